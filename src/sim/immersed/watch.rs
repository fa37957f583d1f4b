//! Telling a diverged coupling from a contact that did not hold. After each step the flow's
//! largest speed is compared with the largest speed the case can give,
//!
//! ```text
//! V = max(√(2 |g| L), the boundary's speeds, each body's |U| + |ω| R when it entered),
//! ```
//!
//! `L` the mesh's diagonal (a free fall across the whole domain). A flow that became non-finite,
//! a flow faster than `100 V`, or a body that leaves the domain faster than `10 V` has diverged:
//! the error says so, at which step, and how far the bodies moved per step before it (the
//! plain pressure correction holds the coupling below about half a cell per step, the projected
//! one, the default with bodies, beyond; docs/validation.md "The collision law in a fluid"), where the body's exit alone
//! would have blamed the contact. `V = 0` (no gravity, no boundary or body speed) turns the check
//! off. Cost: one pass over the velocity dofs a step.

use crate::body::{Dim, Kinematics, RigidBody};
use crate::fluid::Scheme;
use crate::math::{shown, Vector};
use crate::mesh::SimplexMesh;
use crate::sim::SimError;

/// Steps back at which the bodies' speed is reported: before the divergence grew.
const BACK: usize = 20;

/// The largest speed the case can give and the bodies' recent cells per step.
#[derive(Debug, Clone)]
pub(super) struct Watch {
    /// The bodies' speeds when they entered, and the boundary's so far.
    given: f64,
    /// `√(2 |g| L)` and the smallest edge, once the mesh is seen.
    fall: Option<(f64, f64)>,
    /// The bodies' largest `|U| Δt / h` over the last [`BACK`] steps, oldest first.
    cells: std::collections::VecDeque<f64>,
    /// Whether the fluid runs the plain pressure correction, which holds the coupling only below
    /// about half a cell a step.
    plain: bool,
}

impl Watch {
    pub(super) fn new() -> Self {
        Watch {
            given: 0.0,
            fall: None,
            cells: std::collections::VecDeque::with_capacity(BACK + 1),
            plain: false,
        }
    }

    /// Takes in the scheme the fluid steps by (a library user may change it between steps).
    pub(super) fn scheme(&mut self, scheme: Scheme) {
        self.plain = scheme == Scheme::PressureCorrection;
    }

    /// Takes in the speeds of bodies entering the run.
    pub(super) fn enter<'a, const D: usize>(&mut self, bodies: impl IntoIterator<Item = &'a RigidBody<D>>)
    where
        Dim<D>: Kinematics<D>,
    {
        for b in bodies {
            self.given = self.given.max(b.fastest_point_speed());
        }
    }

    /// `V`, with the mesh's free fall taken in on first sight.
    fn reference<const D: usize>(&mut self, mesh: &SimplexMesh<D>, gravity: &Vector<D>) -> f64 {
        let (fall, _) = *self.fall.get_or_insert_with(|| {
            let (lo, hi) = mesh.bounding_box();
            ((2.0 * gravity.norm() * (hi - lo).norm()).sqrt(), mesh.shortest_edge())
        });
        fall.max(self.given)
    }

    /// After a step of `dt` that ended at `step`, `time`: an error if the flow `velocity` (with
    /// the boundary's dofs marked in `prescribed`) diverged; else the bodies' cells per step are
    /// taken in.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check<const D: usize>(
        &mut self,
        mesh: &SimplexMesh<D>,
        gravity: &Vector<D>,
        velocity: &[Vector<D>],
        prescribed: &[bool],
        bodies: &[RigidBody<D>],
        dt: f64,
        (step, time): (usize, f64),
    ) -> Result<(), SimError>
    where
        Dim<D>: Kinematics<D>,
    {
        let mut largest = 0.0_f64;
        for (u, &fixed) in velocity.iter().zip(prescribed) {
            let speed = u.norm();
            if !speed.is_finite() {
                return Err(self.diverged(step, time, "became non-finite", String::new()));
            }
            if fixed {
                self.given = self.given.max(speed);
            }
            largest = largest.max(speed);
        }
        let v = self.reference(mesh, gravity);
        if v > 0.0 && largest > 100.0 * v {
            return Err(self.diverged(
                step,
                time,
                "diverged",
                format!(
                    ": its largest speed {largest:.3e} is over a hundred times the largest this case can give ({})",
                    self.given_words(v)
                ),
            ));
        }
        let h = self.fall.map_or(f64::INFINITY, |(_, h)| h);
        let cells = bodies.iter().map(|b| b.velocity.norm() * dt / h).fold(0.0, f64::max);
        if self.cells.len() == BACK {
            self.cells.pop_front();
        }
        self.cells.push_back(cells);
        Ok(())
    }

    /// The error for body `b` that left the domain in the step ending at `step`, `time`, if it
    /// left too fast for anything but a diverged coupling; else `None` (the contact's error stands).
    pub(super) fn exit<const D: usize>(
        &mut self,
        mesh: &SimplexMesh<D>,
        gravity: &Vector<D>,
        b: &RigidBody<D>,
        (step, time): (usize, f64),
    ) -> Option<SimError>
    where
        Dim<D>: Kinematics<D>,
    {
        let v = self.reference(mesh, gravity);
        let speed = b.velocity.norm();
        (v > 0.0 && (speed.is_nan() || speed > 10.0 * v)).then(|| {
            self.diverged(
                step,
                time,
                "diverged",
                format!(
                    ": body '{}' left the domain at speed {speed:.3e}, over ten times the largest this case can give ({})",
                    b.name,
                    self.given_words(v)
                ),
            )
        })
    }

    fn given_words(&self, v: f64) -> String {
        format!("{v:.3e}: a free fall across the domain, the boundary's speeds and the bodies' starting speeds")
    }

    fn diverged(&self, step: usize, time: f64, verb: &str, what: String) -> SimError {
        let advice = match self.cells.front() {
            Some(&c) if self.plain && c > 0.45 => format!(
                "{} steps before, a body moved {c:.2} cells per step (|U| Δt / h): the plain pressure correction \
                 holds the fluid–body coupling below about half a cell per step; set fluid.scheme = \
                 \"projected-correction\" (the default with bodies, which held a disk at two cells a step) or \
                 lower time.step",
                self.cells.len()
            ),
            _ => "lower time.step".into(),
        };
        SimError::Diverged {
            detail: format!("the flow {verb} at step {step} (t = {}){what}; {advice}", shown(time)),
        }
    }
}
