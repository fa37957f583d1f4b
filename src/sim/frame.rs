//! A frame of reference that follows one body along an axis: the fixed mesh moves with it, so a
//! body can settle through a channel of any length on a mesh a few widths long.
//!
//! The frame translates along the unit axis `e` with velocity `V(t) e` and has moved `Z(t) e`.
//! Between two steps it takes on the body's velocity along `e` relative to it, `w`: `V ← V + w`,
//! and every velocity in the frame (the fluid's, with its history, and the bodies') loses `w e`.
//! Navier–Stokes is invariant under that change (a Galilean transformation at an instant), so no
//! fictitious force appears; the frame's acceleration, `w/Δt` per step, is a sum of such jumps.
//! Over a step the frame moves at the `V` of its start: `Z ← Z + V Δt`. A prescribed velocity
//! `g(x, t)` of the lab frame (walls at rest, fluid at rest far below) reads
//! `g(x + Z e, t) − V e` in the moving one ([`Following::boundary`]).
//!
//! What this leaves out: the history of the fluid at a node is the fluid that was there a step
//! earlier in the old frame, `w Δt` away in the new one, an error of order `w |∇u| Δt` in the
//! acceleration that vanishes as the body's speed settles (`w → 0`).

use crate::fluid::BoundaryConditions;
use crate::math::Vector;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The frame's displacement `Z` and velocity `V` along its axis, shared by the simulation and the
/// fluid's prescribed velocities.
#[derive(Debug, Default)]
pub struct FrameMotion {
    offset: AtomicU64,
    velocity: AtomicU64,
}

impl FrameMotion {
    /// `(Z, V)`.
    pub fn get(&self) -> (f64, f64) {
        (
            f64::from_bits(self.offset.load(Ordering::Relaxed)),
            f64::from_bits(self.velocity.load(Ordering::Relaxed)),
        )
    }

    /// Sets `(Z, V)`.
    pub fn set(&self, (offset, velocity): (f64, f64)) {
        self.offset.store(offset.to_bits(), Ordering::Relaxed);
        self.velocity.store(velocity.to_bits(), Ordering::Relaxed);
    }
}

/// A frame following the body called `body` along the unit vector `axis`.
#[derive(Debug, Clone)]
pub struct Following<const D: usize> {
    /// The body followed.
    pub body: String,
    /// The unit axis `e`.
    pub axis: Vector<D>,
    /// `Z` and `V`.
    pub motion: Arc<FrameMotion>,
}

impl<const D: usize> Following<D> {
    /// A frame at rest at the lab's origin, following `body` along `axis` (normalised; `None` if
    /// it is zero or not finite).
    pub fn new(body: &str, axis: Vector<D>) -> Option<Self> {
        let axis = axis.try_normalize(0.0).filter(|a| a.iter().all(|x| x.is_finite()))?;
        Some(Following {
            body: body.to_string(),
            axis,
            motion: Arc::default(),
        })
    }

    /// The frame's displacement `Z e` and velocity `V e` in the lab: a point `x` of the frame is
    /// at `x + Z e` in the lab, a velocity `u` there is `u + V e`.
    pub fn lab(&self) -> (Vector<D>, Vector<D>) {
        let (z, v) = self.motion.get();
        (self.axis * z, self.axis * v)
    }

    /// `boundary` as the moving frame sees it: each prescribed velocity `g(x, t)` of the lab
    /// becomes `g(x + Z e, t) − V e` (pressures are unchanged), with `Z` and `V` read when the
    /// condition is evaluated ([`BoundaryConditions::seen_from`]).
    pub fn boundary(&self, boundary: BoundaryConditions<D>) -> BoundaryConditions<D> {
        let frame = self.clone();
        boundary.seen_from(move || frame.lab())
    }
}
