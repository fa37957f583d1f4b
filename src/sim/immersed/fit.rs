//! The rigid motions of the bodies' dofs. [`Fit`] is the least-squares rigid motion `Π u` of
//! velocities `u` at a body's points: the mean `ū` and `ω = J(S)⁻¹ Σ (x − c) × (u − ū)` about
//! their centroid `c`, with `S = Σ (x − c)(x − c)ᵀ` kept for the step in a [`Frame`];
//! [`remove_rigid`] applies `I − Π`, the constraint's projector. After the solve each body's fit
//! of its rows is the motion `(U_f, ω_f)` of the fluid it holds ([`Work::fit`], read by
//! Newton–Euler). At the new pose the rigidity projection gives the dofs their body's velocity
//! ([`Work::project`]), after measuring the momentum `Σ_k ∫φ_k (U(x_k) − u_k)` this gives the dofs
//! the body has just captured ([`Work::capture`]). Each is a pass over the constrained dofs,
//! `O(|C|)`.

use super::constraint::Scratch;
use super::Work;
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::math::{Point, Vector};
use nalgebra::SMatrix;

/// A rigid motion fitted to velocities at points: the translation at the points' centroid
/// `centre` and the rotation.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fit<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    centre: Point<D>,
    velocity: Vector<D>,
    pub(super) spin: Angular<D>,
}

impl<const D: usize> Fit<D>
where
    Dim<D>: Kinematics<D>,
{
    /// The least-squares rigid motion of the values `u` at `points`, whose centroid `c` and
    /// second moment `S = Σ (x − c)(x − c)ᵀ` are `frame`: the mean velocity about `c`, and
    /// `ω = J(S)⁻¹ Σ (x − c) × (u − ū)`.
    fn new(points: &[Point<D>], u: &[Vector<D>], frame: &Frame<D>) -> Self {
        let velocity = u.iter().fold(Vector::<D>::zeros(), |s, v| s + v) / points.len().max(1) as f64;
        let mut moment = <Dim<D> as Kinematics<D>>::zero();
        for (p, v) in points.iter().zip(u) {
            moment += <Dim<D> as Kinematics<D>>::torque(&(p - frame.centre), &(v - velocity));
        }
        Fit {
            centre: frame.centre,
            velocity,
            spin: <Dim<D> as Kinematics<D>>::inertia_solve(&frame.second, &moment),
        }
    }

    /// The fitted velocity at `x`.
    pub(super) fn at(&self, x: &Point<D>) -> Vector<D> {
        self.velocity + <Dim<D> as Kinematics<D>>::spin(&self.spin, &(x - self.centre))
    }
}

/// The centroid and second moment `Σ (x − c)(x − c)ᵀ` of one body's constrained dofs, fixed
/// for a step (the fits of every iteration and the load shares use them).
#[derive(Debug, Clone, Copy)]
pub(super) struct Frame<const D: usize> {
    pub(super) centre: Point<D>,
    pub(super) second: SMatrix<f64, D, D>,
}

impl<const D: usize> Frame<D> {
    /// The frame of `points`.
    pub(super) fn new(points: &[Point<D>]) -> Self {
        let centre = points.iter().fold(Point::<D>::zeros(), |s, p| s + p) / points.len().max(1) as f64;
        let second = points.iter().fold(SMatrix::<f64, D, D>::zeros(), |s, p| {
            let r = p - centre;
            s + r * r.transpose()
        });
        Frame { centre, second }
    }
}

/// `v ← (I − Π) v` on each body's part `ranges[i]..ranges[i + 1]`: minus its rigid fit at
/// `points`, whose frames are `frames`.
pub(super) fn remove_rigid<const D: usize>(
    ranges: &[usize],
    points: &[Point<D>],
    frames: &[Frame<D>],
    v: &mut [Vector<D>],
) where
    Dim<D>: Kinematics<D>,
{
    for (w, frame) in ranges.windows(2).zip(frames) {
        let (points, values) = (&points[w[0]..w[1]], &mut v[w[0]..w[1]]);
        let fit = Fit::new(points, values, frame);
        for (p, x) in points.iter().zip(values.iter_mut()) {
            *x -= fit.at(p);
        }
    }
}

impl<const D: usize> Work<D>
where
    Dim<D>: Kinematics<D>,
{
    /// Each body's rigid fit of the rows' values, into `self.fits`.
    pub(super) fn fit(&mut self, velocity: &[Vector<D>]) {
        let Scratch { values, rows, .. } = &mut self.scratch;
        values.clear();
        values.extend(self.observed.iter().map(|&k| velocity[k as usize]));
        rows.resize(self.dofs.len(), Vector::<D>::zeros());
        self.ghosts.apply(values, rows);
        self.fits.clear();
        for (w, frame) in self.ranges.windows(2).zip(&self.target_frames) {
            self.fits
                .push(Fit::new(&self.targets[w[0]..w[1]], &rows[w[0]..w[1]], frame));
        }
    }

    /// Remembers the velocity of the dofs the bodies hold now and did not hold in the solve
    /// (the ones just captured), before [`Self::project`] changes it; [`Self::captured`] takes
    /// the difference.
    pub(super) fn capture(&mut self, velocity: &[Vector<D>]) {
        self.fresh.clear();
        self.was_held.resize(velocity.len(), false);
        for &k in &self.held {
            self.was_held[k as usize] = true;
        }
        for (row, &k) in self.dofs.iter().enumerate() {
            if !self.was_held[k as usize] {
                self.fresh.push((row as u32, velocity[k as usize]));
            }
        }
        for &k in &self.held {
            self.was_held[k as usize] = false;
        }
    }

    /// The momentum and angular momentum (over `ρ_f`) that [`Self::project`] gave the dofs
    /// each body has just captured ([`Self::capture`]), `Σ_k ∫φ_k (u_k' − u_k)` and
    /// `Σ_k (x_k − G) × ∫φ_k (u_k' − u_k)` (`measure[k] = ∫φ_k`), into `out`: `u_k'` the body's velocity at the dof,
    /// or at a ghost the fluid continued through the surface (whose jump from the fluid's value
    /// is of the order of the slip's gradient times a spacing, and gave the fluid ahead of a
    /// body moving through the mesh a push no force paid for).
    pub(super) fn captured(
        &self,
        velocity: &[Vector<D>],
        measure: &[f64],
        bodies: &[RigidBody<D>],
        out: &mut [(Vector<D>, Angular<D>)],
    ) {
        out.fill((Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero()));
        for &(row, before) in &self.fresh {
            let row = row as usize;
            let body = self.ranges.partition_point(|&r| r <= row) - 1;
            let k = self.dofs[row] as usize;
            let gained = (velocity[k] - before) * measure[k];
            let (momentum, angular) = &mut out[body];
            *momentum += gained;
            *angular += <Dim<D> as Kinematics<D>>::torque(&(self.points[row] - bodies[body].position), &gained);
        }
    }

    /// The constrained dofs take their body's velocity, and then, once the rows are built at
    /// this pose, each ghost the value its row extrapolates ([`Self::extrapolate`]).
    pub(super) fn project(&mut self, velocity: &mut [Vector<D>], bodies: &[RigidBody<D>]) {
        for (b, w) in bodies.iter().zip(self.ranges.windows(2)) {
            for (&k, p) in self.dofs[w[0]..w[1]].iter().zip(&self.points[w[0]..w[1]]) {
                velocity[k as usize] = b.point_velocity(p);
            }
        }
        if !self.stencil_ready {
            return;
        }
        let mut values = std::mem::take(&mut self.scratch.values);
        values.clear();
        values.extend(self.observed.iter().map(|&k| velocity[k as usize]));
        self.extrapolate(&mut values, |body, x| bodies[body].point_velocity(x));
        for g in &self.ghosts.list {
            velocity[self.dofs[g.row as usize] as usize] = values[g.row as usize];
        }
        self.scratch.values = values;
    }
}
