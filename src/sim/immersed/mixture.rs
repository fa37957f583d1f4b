//! The suspension as a whole: its mean velocity and, with [`ImmersedOptions::balance`], the
//! mean pressure gradient that carries its weight.
//!
//! In a domain periodic along gravity nothing holds the bodies' buoyant weight
//! `W = Σ_i (ρ_i − ρ_f) |B_i| g` but the walls, and without walls the suspension would fall as a
//! whole, faster at every step. A real settling suspension is held by the mean pressure gradient
//! (the bottom of its container); here it is the uniform body force on the fluid, the bodies'
//! share of it included (the fictitious fluid in them moves with them),
//!
//! ```text
//! f_b = −W / (ρ_f |Ω|),
//! ```
//!
//! so that the mixture takes no net force and keeps its momentum. The fictitious domain keeps the
//! mixture's momentum `P = ρ_f Σ_k u_k ∫ φ_k + Σ_i (m_i − ρ_f |B_i|) V_i` only approximately (the
//! fluid a body holds is its dofs', not `|B_i|`): at a volume fraction of 0.1 in 2D `P` grew by 2 %
//! of the weight's impulse, the whole mixture drifting against gravity. So the step's force also
//! takes back the momentum gained so far, `f = f_b − P / (ρ_f |Ω| Δt)`: the mean pressure
//! gradient that holds the mixture's momentum at zero. The velocity the settling is
//! measured against is the mixture's mean, `⟨u⟩ = ∫_Ω u / |Ω|` (fluid and bodies: the fluid in a
//! body moves with it), the frame of zero volume flux that Richardson and Zaki's law and the
//! resolved simulations use:
//!
//! ```text
//! ⟨u⟩ = (Σ_k u_k ∫ φ_k + Σ_i Σ_{k ∈ C_i} (V_i(x_k) − u_k) ∫ φ_k) / Σ_k ∫ φ_k,
//! ```
//!
//! the dofs `C_i` inside body `i` counted at its rigid motion `V_i(x) = v_i + ω_i × (x − G_i)`,
//! the velocity there. With [`BodyBoundary::Surface`] the dofs within a spacing of the surface
//! are ghosts that hold the fluid continued into the body (the image points' rows), not its
//! motion: ahead of a settling sphere the continued fluid runs against it, so their values go
//! down faster than the sphere, and counted as they are they shifted the frame by a part of the
//! settling speed that grows with the volume fraction (docs/validation.md, the settling arrays).
//! The same mean holds the momentum in the balance. Cost: `O(dofs)` once for the weights, `O(dofs)` a mean or a balance.
//!
//! [`BodyBoundary::Surface`]: super::BodyBoundary::Surface
//!
//! [`ImmersedOptions::balance`]: super::ImmersedOptions::balance

use crate::body::{Dim, Kinematics, RigidBody};
use crate::math::{Point, Vector};

/// A dof inside a body: its index, its signed distance and the shift to its image next to the
/// body (`dofs.rs`).
pub(super) type Inside<const D: usize> = (u32, f64, Vector<D>);
/// The dofs inside each body and the bodies.
pub(super) type Held<'a, const D: usize> = (&'a [Vec<Inside<D>>], &'a [RigidBody<D>]);

/// Each velocity dof's `∫ φ_k` and their sum `|Ω|`.
#[derive(Debug, Default)]
pub(super) struct Mixture {
    measure: Vec<f64>,
    volume: f64,
}

impl Mixture {
    /// The weights of `measure`, each dof's `∫ φ_k`.
    pub(super) fn new(measure: Vec<f64>) -> Self {
        let volume = measure.iter().sum();
        Mixture { measure, volume }
    }

    /// Each velocity dof's `∫ φ_k`, the measure that also turns the projection's velocity
    /// changes into momentum ([`Work::captured`](super::Work::captured)).
    pub(super) fn measure(&self) -> &[f64] {
        &self.measure
    }

    /// `⟨u⟩` of the velocity `u` (one vector per dof at `position`), the dofs inside each body
    /// (`inside[i]`: body `i`'s dofs, each with the shift to its image next to the body in a
    /// periodic domain) at the body's rigid motion.
    pub(super) fn mean<const D: usize>(
        &self,
        (u, position): (&[Vector<D>], &[Point<D>]),
        held: Held<'_, D>,
    ) -> Vector<D>
    where
        Dim<D>: Kinematics<D>,
    {
        let (inside, bodies) = held;
        let sum = u
            .iter()
            .zip(&self.measure)
            .fold(Vector::<D>::zeros(), |s, (v, m)| s + v * *m);
        let rigid = inside.iter().zip(bodies).fold(Vector::<D>::zeros(), |s, (dofs, b)| {
            dofs.iter().fold(s, |s, &(k, _, back)| {
                let k = k as usize;
                s + (b.point_velocity(&(position[k] + back)) - u[k]) * self.measure[k]
            })
        });
        (sum + rigid) / self.volume
    }

    /// The body force per unit mass on the fluid over the next step `dt` that carries the
    /// buoyant weight of the bodies under `gravity` in a fluid of density `rho_f` and takes back
    /// the mixture's momentum of the velocity `u` and the bodies (`held` as in [`Self::mean`]).
    pub(super) fn balance<const D: usize>(
        &self,
        (u, position, rho_f): (&[Vector<D>], &[Point<D>], f64),
        held: Held<'_, D>,
        gravity: &Vector<D>,
        dt: f64,
    ) -> Vector<D>
    where
        Dim<D>: Kinematics<D>,
    {
        let bodies = held.1;
        let (excess, momentum) = bodies.iter().fold((0.0, Vector::<D>::zeros()), |(w, p), b| {
            let extra = b.mass - rho_f * b.geometry.moments.measure;
            (w + extra, p + b.velocity * extra)
        });
        let momentum = momentum + self.mean((u, position), held) * (rho_f * self.volume);
        -(gravity * excess + momentum / dt) / (rho_f * self.volume)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BodyBoundary, Immersed, ImmersedOptions};
    use crate::body::{BodyGeometry, RigidBody};
    use crate::broad::LinkedCell;
    use crate::contact::{ContactModel, ContactParameters, ContactSolver, Law};
    use crate::math::{Point, Vector};
    use crate::shape::Ball;
    use crate::sim::{Drag, Simulation};
    use std::sync::Arc;

    /// A disk of radius 0.2 going down at 1 in the unit square (40 × 40 cells, the accurate
    /// boundary), the fluid going up at 0.3 everywhere else: the mean velocity is
    /// `0.3 − 1.3 S` for `S` the measure of the dofs the disk holds, within 2 % of `π 0.2²` (a
    /// staircase of dofs), whatever its ghosts hold (here the fluid continued at 7 or at −5).
    #[test]
    fn the_mixture_counts_the_dofs_inside_a_body_at_its_rigid_motion_not_the_ghosts() {
        let (_, fluid) = super::super::unit_square_fluid(40);
        let a = 0.2;
        let disk = Ball {
            centre: Point::<2>::zeros(),
            radius: a,
        };
        let geometry = Arc::new(BodyGeometry::from_shape(&disk, 0.002, 0.04).unwrap());
        let mut body = RigidBody::new("disk", geometry, 2.0, Point::<2>::new(0.51, 0.48));
        body.velocity = Vector::<2>::new(0.0, -1.0);
        let model = ContactModel::new(&ContactParameters::repulsive(Law::Glowinski, 0.01, 1e-4)).unwrap();
        let contact = ContactSolver::new(model, Box::new(LinkedCell::<2>::default()));
        let sim = Simulation::new(vec![body], None, Vector::<2>::new(0.0, -1.0), Drag::default(), contact);
        let options = ImmersedOptions {
            boundary: BodyBoundary::Surface,
            ..ImmersedOptions::new(1.0)
        };
        let mut c = Immersed::new(fluid, sim, options).unwrap();
        let held: Vec<usize> = c.work.inside[0].iter().map(|&(k, ..)| k as usize).collect();
        let ghosts = c.work.ghosts.list.len();
        assert!(
            ghosts > 0 && ghosts < held.len(),
            "{ghosts} ghosts of {} dofs",
            held.len()
        );
        let measure: f64 = held.iter().map(|&k| c.mixture.measure[k]).sum();
        let area = std::f64::consts::PI * a * a;
        assert!(
            (measure / area - 1.0).abs() < 0.02,
            "the disk holds {measure}, against {area}"
        );
        let expected = 0.3 - 1.3 * measure / c.mixture.volume;
        for ghost in [7.0, -5.0] {
            let u = &mut c.fluid.flow.velocity;
            u.iter_mut().for_each(|v| *v = Vector::<2>::new(0.0, 0.3));
            for &k in &held {
                u[k] = Vector::<2>::new(0.0, ghost);
            }
            let mean = c.mean_velocity();
            assert!(mean.x.abs() < 1e-14, "{mean:?}");
            assert!(
                (mean.y - expected).abs() < 1e-12,
                "ghosts at {ghost}: {} against {expected}",
                mean.y
            );
        }
    }
}
