//! Rigid bodies in the fluid: a fictitious domain on the fixed mesh, the bodies' interiors held
//! rigid by Lagrange multipliers at the velocity dofs inside them (the collocation variant of
//! Glowinski, Pan, Hesla and Joseph's distributed Lagrange multipliers, J. Comput. Phys. 169, 2001)
//! and the body velocities from momentum (the rigidity projection of Sharma and Patankar,
//! J. Comput. Phys. 205, 2005).
//!
//! The fluid equations are solved on the whole mesh, bodies included, with the fluid density
//! `ρ_f` everywhere, so the fluid matrices stay constant and factored once. Body `i` owns the free
//! velocity dofs `C_i` where its signed distance field is `d_i ≤ 0` (any shape works). One step:
//!
//! 1. **Constrained velocity solve** ([`Unsteady::step_constrained`]): `A ũ = b + w + E μ` with
//!    `u|C_i` rigid. `w` loads each body's buoyancy-corrected weight `W_i = (ρ_s − ρ_f)|B_i| g`
//!    (over `ρ_f`) on its dofs, in equal shares plus the couple that keeps its moment about the
//!    centre of mass. The multipliers `μ` are internal forces (no net force or torque on any
//!    body): with `Π` the least-squares fit of a rigid motion to the values on each `C_i`, they
//!    solve the symmetric positive definite system `(I − Π) Eᵀ A⁻¹ E μ = −(I − Π) Eᵀ ũ₀` (`ũ₀` the
//!    solution without them) by conjugate gradients, one velocity solve per iteration,
//!    preconditioned by `(I − Π) A_CC (I − Π)`. The last step's multipliers, carried to the dofs
//!    the bodies hold now, ride in the right-hand side (a warm start: the iterations solve for
//!    their change), and while few bodies are constrained an iteration's solve visits only the
//!    factor's columns that reach their dofs ([`crate::fluid::Response::solve_at`]). Holding
//!    the interior rigid inside the solve (rather than resetting it after) is what gives the
//!    viscous stress on the body its full value: a reset-only projection sees about half of it,
//!    and its terminal velocities do not converge with `Δt` (measured: 60 % too fast at
//!    `Δt = 2.5e-4` in the Stokes test). Loading
//!    the weight after the solve instead made the error depend on `Δt` (1.6x at `Δt = 0.01`).
//!    The BDF2 history of the body's dofs is the body's own ([`Carried`]): `ũ^k` there is its
//!    rigid velocity, and `ũ^{k−1}` its rigid velocity a step earlier, also at the dofs it has
//!    just captured (whose stored `ũ^{k−1}`, or whose foot of characteristic, is the slower
//!    fluid that was there before): otherwise every captured dof is pulled back towards the
//!    fluid's speed, a drag that grows with the distance the body moves per step (on the Re 17
//!    disk at `h = d/10` this moved Re_max from 18.7 to 18.3, towards the published 17.3). What
//!    remains of that drag limits the step: a body should move less than half a cell per step.
//! 2. **Newton–Euler**: the fluid in the body moves with the fitted rigid motion `(U_f, ω_f)`, so
//!    the hydrodynamic force and torque are `F_h = ρ_f |B| (U_f − U)/Δt − W`,
//!    `T_h = ρ_f J_w (ω_f − ω)/Δt` (`J_w` the unit-density inertia), and the body's
//!    `ρ_s |B| dU/dt = F_h + W + F_c`, `I_w dω/dt = T_h + T_c − ω × I_w ω` are advanced by
//!    symplectic Euler over `n` sub-steps of `Δt/n` (contact forces `F_c`, `T_c` recomputed at
//!    each, `F_h`, `T_h` held), then `G ← G + δ U`, `R ← exp(δ ω) R`.
//! 3. **Rigidity projection** at the new pose: the dofs inside each body take its velocity.
//!
//! With one sub-step and no contact, step 2 reads `ρ_s U' = ρ_f U_f + (ρ_s − ρ_f) U`: the
//! fluid's part of the body moves as the fluid solve says (its weight, added mass and drag are
//! implicit, inside the solve) and the excess mass keeps its momentum. Both weights are positive
//! for `ρ_s ≥ ρ_f`, so the scheme has no density-ratio limit there; at `ρ_s = ρ_f` the body takes
//! the fluid's rigid motion (a neutrally buoyant body in fluid at rest stays at rest exactly),
//! unlike explicit immersed-boundary couplings that fail below `ρ_s/ρ_f ≈ 1.2`. Gravity on the
//! fluid is balanced by a hydrostatic pressure: the fluid gets no body force, the pressure written
//! out is the dynamic one, and the bodies get the buoyancy-corrected weight.

use super::{PointGrid, SimError, Simulation, SimulationState, StateError};
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::fluid::{Carried, Response, Unsteady, UnsteadyState};
use crate::linalg::{Csr, Reach};
use crate::math::{flatten, unflatten_into, Point, Vector};
use crate::mesh::SimplexMesh;
use nalgebra::SMatrix;
use rayon::prelude::*;
use std::time::Instant;

/// The parameters of bodies in a fluid ([`Immersed::new`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImmersedOptions {
    /// `ρ_f`.
    pub fluid_density: f64,
    /// Body sub-steps per fluid step; `0` chooses them from the contact stiffness
    /// ([`Simulation::stable_time_step`]).
    pub substeps: usize,
    /// Relative tolerance of the multipliers' conjugate gradients: the root mean square of the
    /// rigidity defect over the constrained dofs, relative to the largest velocity (a mean, so
    /// that the goal does not tighten with the number of bodies).
    pub tolerance: f64,
}

impl ImmersedOptions {
    /// Fluid density `rho_f`, sub-steps chosen from the contact stiffness, tolerance 1e-5 (the
    /// results of `tests/immersed.rs` agree with those at 1e-8 to four digits or better: the
    /// Re 17 disk's Re_max 18.330 against 18.323, the high-Re disk's y(0.153) 2.6742 against
    /// 2.6745, the others to every printed digit).
    pub fn new(fluid_density: f64) -> Self {
        ImmersedOptions {
            fluid_density,
            substeps: 0,
            tolerance: 1e-5,
        }
    }
}

/// A rigid motion fitted to velocities at points: the translation at the points' centroid
/// `centre` and the rotation.
#[derive(Debug, Clone, Copy)]
struct Fit<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    centre: Point<D>,
    velocity: Vector<D>,
    spin: Angular<D>,
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
    fn at(&self, x: &Point<D>) -> Vector<D> {
        self.velocity + <Dim<D> as Kinematics<D>>::spin(&self.spin, &(x - self.centre))
    }
}

/// The centroid and second moment `Σ (x − c)(x − c)ᵀ` of one body's constrained dofs, fixed
/// for a step (the fits of every conjugate-gradient iteration and the load shares use them).
#[derive(Debug, Clone, Copy)]
struct Frame<const D: usize> {
    centre: Point<D>,
    second: SMatrix<f64, D, D>,
}

impl<const D: usize> Frame<D> {
    fn new(points: &[Point<D>]) -> Self {
        let centre = points.iter().fold(Point::<D>::zeros(), |s, p| s + p) / points.len().max(1) as f64;
        let second = points.iter().fold(SMatrix::<f64, D, D>::zeros(), |s, p| {
            let r = p - centre;
            s + r * r.transpose()
        });
        Frame { centre, second }
    }
}

/// Seconds per phase, summed over steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImmersedSeconds {
    /// The fluid steps, without the constraint.
    pub fluid: f64,
    /// The constraint's conjugate gradients and the rigidity projection.
    pub constraint: f64,
    /// Contact forces and body updates.
    pub bodies: f64,
}

/// The state of an [`Immersed`] run between two steps, exactly (see [`super::state`]): the
/// bodies', the fluid's, and the coupling's own: the bodies' velocities a step back (their dofs'
/// BDF2 history), the multipliers on the constrained dofs (the next solve's warm start) and the
/// last solve's iteration count (which chooses between restricted and full solves, whose results
/// differ in the last bits).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImmersedState {
    /// The bodies, walls and contact.
    pub bodies: SimulationState,
    /// The fluid.
    pub fluid: UnsteadyState,
    /// Body sub-steps per fluid step (checked: it follows from the contact parameters).
    pub substeps: usize,
    /// The hydrodynamic force on each body at the last step, components body after body.
    pub hydro_force: Vec<f64>,
    /// The hydrodynamic torque likewise.
    pub hydro_torque: Vec<f64>,
    /// Each body's velocity a step back.
    pub before_velocity: Vec<f64>,
    /// Each body's angular velocity a step back.
    pub before_spin: Vec<f64>,
    /// The constrained velocity dofs, body after body (checked: they follow from the poses).
    pub constrained: Vec<u32>,
    /// The multipliers on them.
    pub multiplier: Vec<f64>,
    /// The last solve's conjugate-gradient iterations.
    pub last_iterations: usize,
    /// All steps' iterations.
    pub iterations: usize,
    /// Seconds spent.
    pub seconds: ImmersedSeconds,
}

/// The constrained dofs and the conjugate gradients' vectors, kept between steps.
#[derive(Debug, Default)]
struct Work<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    /// The constrained dofs, body after body.
    dofs: Vec<u32>,
    /// Each body's, found in parallel (kept to reuse their storage).
    inside: Vec<Vec<u32>>,
    /// Their positions.
    points: Vec<Point<D>>,
    /// `ranges[i]..ranges[i + 1]` are body `i`'s.
    ranges: Vec<usize>,
    /// The position of each dof in `dofs` (`u32::MAX` if not constrained).
    slot: Vec<u32>,
    /// Each body's frame of its constrained dofs.
    frames: Vec<Frame<D>>,
    residual: Vec<Vector<D>>,
    direction: Vec<Vector<D>>,
    image: Vec<Vector<D>>,
    gathered: Vec<Vector<D>>,
    response: Vec<Vector<D>>,
    /// Each body's rigid fit after the solve.
    fits: Vec<Fit<D>>,
    /// The multipliers `μ` at the constrained dofs: those of the last solve, carried over to the
    /// dofs the bodies hold at their new poses (the next step's warm start).
    multiplier: Vec<Vector<D>>,
    /// The multipliers' change in this step's solve.
    change: Vec<Vector<D>>,
    /// The factor's columns that a solve at the constrained dofs visits.
    reach: Reach,
    /// `A_CC`, the velocity operator on the constrained dofs (the preconditioner).
    block: Csr,
    /// The last solve's iterations.
    iterations: usize,
    /// The multipliers by velocity dof while the constrained set changes (zero elsewhere), and
    /// the set they were on.
    by_dof: Vec<Vector<D>>,
    held: Vec<u32>,
}

/// Bodies and fluid on one mesh.
pub struct Immersed<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    /// The fluid.
    pub fluid: Unsteady<D>,
    /// The bodies, walls, gravity and contact (its `force`, `torque` are the contact's).
    pub bodies: Simulation<D>,
    /// Parameters.
    pub options: ImmersedOptions,
    /// The hydrodynamic force `F_h` on each body at the last step.
    pub hydro_force: Vec<Vector<D>>,
    /// The hydrodynamic torque `T_h` on each body at the last step.
    pub hydro_torque: Vec<Angular<D>>,
    /// Body sub-steps per fluid step.
    pub substeps: usize,
    /// Conjugate-gradient iterations, all steps.
    pub iterations: usize,
    /// Time spent.
    pub seconds: ImmersedSeconds,
    dofs: PointGrid<D>,
    work: Work<D>,
    /// The buoyancy-corrected weight of each body over `ρ_f` and its point of application (the
    /// centre of mass), loaded on the body's dofs in the velocity step's right-hand side.
    loads: Vec<(Point<D>, Vector<D>)>,
    /// The loaded dofs (the constrained ones at the step's start) and their shares.
    load_dofs: Vec<u32>,
    shares: Vec<Vector<D>>,
    /// Each body's velocity and angular velocity a step back, and the rigid velocity it gives
    /// the loaded dofs (their BDF2 history, [`Carried`]).
    before: Vec<(Vector<D>, Angular<D>)>,
    carried_previous: Vec<Vector<D>>,
}

impl<const D: usize> Immersed<D>
where
    Dim<D>: Kinematics<D>,
{
    /// Couples `bodies` to `fluid`: checks the start (bodies inside and apart, each holding at
    /// least one free velocity dof, no lighter than the fluid) and makes the fluid rigid inside
    /// the bodies.
    pub fn new(fluid: Unsteady<D>, bodies: Simulation<D>, options: ImmersedOptions) -> Result<Self, SimError> {
        let ImmersedOptions {
            fluid_density: rho,
            tolerance,
            ..
        } = options;
        if !(rho > 0.0 && rho.is_finite() && tolerance > 0.0 && tolerance < 1.0) {
            return Err(SimError::Immersed(format!(
                "the fluid density must be positive and the tolerance in (0, 1), got ρ_f = {rho}, tolerance = {tolerance}"
            )));
        }
        bodies.check_start()?;
        if let Some(b) = bodies.bodies.iter().find(|b| b.density < rho) {
            return Err(SimError::Immersed(format!(
                "body '{}' is lighter than the fluid (ρ_s = {} < ρ_f = {rho}): the fictitious domain needs ρ_s ≥ ρ_f",
                b.name, b.density
            )));
        }
        let size = bodies
            .bodies
            .iter()
            .map(|b| 2.0 * b.geometry.radius)
            .fold(0.0, f64::max);
        let stable = bodies.stable_time_step();
        let dt = fluid.time_step();
        let substeps = match options.substeps {
            0 if stable.is_finite() => ((dt / (0.2 * stable)).ceil() as usize).max(1),
            0 => 1,
            n => n,
        };
        let n = bodies.bodies.len();
        let before = bodies.bodies.iter().map(|b| (b.velocity, b.angular_velocity)).collect();
        let mut immersed = Immersed {
            dofs: PointGrid::new(fluid.space().coordinates(), size.max(f64::MIN_POSITIVE)),
            fluid,
            bodies,
            options,
            hydro_force: vec![Vector::<D>::zeros(); n],
            hydro_torque: vec![<Dim<D> as Kinematics<D>>::zero(); n],
            substeps,
            iterations: 0,
            seconds: ImmersedSeconds::default(),
            work: Work::default(),
            loads: vec![(Point::<D>::zeros(), Vector::<D>::zeros()); n],
            load_dofs: Vec::new(),
            shares: Vec::new(),
            before,
            carried_previous: Vec::new(),
        };
        let (velocity, position, prescribed) = immersed.fluid.velocity_mut();
        immersed
            .work
            .collect(&immersed.dofs, position, prescribed, &immersed.bodies.bodies)?;
        immersed.work.project(velocity, &immersed.bodies.bodies);
        Ok(immersed)
    }

    /// The state now ([`ImmersedState`]).
    pub fn state(&self) -> ImmersedState {
        let angular = |w: &[Angular<D>]| -> Vec<f64> {
            w.iter()
                .flat_map(<Dim<D> as Kinematics<D>>::angular_components)
                .collect()
        };
        let (velocity, spin): (Vec<_>, Vec<_>) = self.before.iter().copied().unzip();
        ImmersedState {
            bodies: self.bodies.state(),
            fluid: self.fluid.state(),
            substeps: self.substeps,
            hydro_force: flatten(&self.hydro_force),
            hydro_torque: angular(&self.hydro_torque),
            before_velocity: flatten(&velocity),
            before_spin: angular(&spin),
            constrained: self.work.dofs.clone(),
            multiplier: flatten(&self.work.multiplier),
            last_iterations: self.work.iterations,
            iterations: self.iterations,
            seconds: self.seconds,
        }
    }

    /// Continues from `state`, saved by [`Self::state`] from a run built from the same case.
    /// On an error the run is partly restored and must not go on: build it again.
    pub fn restore(&mut self, state: &ImmersedState) -> Result<(), StateError> {
        let n = self.bodies.bodies.len();
        if state.substeps != self.substeps {
            return Err(StateError(format!(
                "it was run with {} body sub-steps per step, the case gives {} (the contact parameters changed)",
                state.substeps, self.substeps
            )));
        }
        let angular = |flat: &[f64]| -> Option<Vec<Angular<D>>> {
            let count = flat.len() / n.max(1);
            let w: Option<Vec<_>> = flat
                .chunks(count.max(1))
                .map(<Dim<D> as Kinematics<D>>::angular_from)
                .collect();
            w.filter(|w| w.len() == n)
        };
        let mut hydro_force = vec![Vector::<D>::zeros(); n];
        let mut velocity = vec![Vector::<D>::zeros(); n];
        let (true, true, Some(hydro_torque), Some(spin)) = (
            unflatten_into(&state.hydro_force, &mut hydro_force),
            unflatten_into(&state.before_velocity, &mut velocity),
            angular(&state.hydro_torque),
            angular(&state.before_spin),
        ) else {
            return Err(StateError(format!(
                "its hydrodynamic forces and past velocities do not have the components of {n} bodies"
            )));
        };
        self.fluid
            .restore(&state.fluid)
            .map_err(|e| StateError(e.to_string()))?;
        self.bodies.restore(&state.bodies)?;
        let (_, position, prescribed) = self.fluid.velocity_mut();
        self.work
            .collect(&self.dofs, position, prescribed, &self.bodies.bodies)
            .map_err(|e| StateError(e.to_string()))?;
        if self.work.dofs != state.constrained {
            return Err(StateError(format!(
                "the bodies hold {} velocity dofs at their saved poses, the saved run held {} (another mesh?)",
                self.work.dofs.len(),
                state.constrained.len()
            )));
        }
        if !unflatten_into(&state.multiplier, &mut self.work.multiplier) {
            return Err(StateError(format!(
                "it holds {} multiplier components for {} constrained dofs",
                state.multiplier.len(),
                self.work.dofs.len()
            )));
        }
        self.work.iterations = state.last_iterations;
        self.hydro_force = hydro_force;
        self.hydro_torque = hydro_torque;
        self.before = velocity.into_iter().zip(spin).collect();
        self.iterations = state.iterations;
        self.seconds = state.seconds;
        Ok(())
    }

    /// Advances the fluid and the bodies by one fluid time step.
    pub fn step(&mut self, mesh: &SimplexMesh<D>) -> Result<(), SimError> {
        let start = Instant::now();
        let mut outcome = Ok(());
        let Immersed {
            fluid,
            bodies,
            options,
            hydro_force,
            hydro_torque,
            substeps,
            iterations,
            seconds,
            dofs,
            work,
            loads,
            load_dofs,
            shares,
            before,
            carried_previous,
        } = self;
        let (dt, time) = (fluid.time_step(), fluid.time + fluid.time_step());
        let (mut constraint, mut motion) = (0.0, 0.0);
        let zero = |_: &Point<D>, _: f64| Vector::<D>::zeros();
        for (l, b) in loads.iter_mut().zip(&bodies.bodies) {
            let weight = bodies.gravity * ((b.density / options.fluid_density - 1.0) * b.geometry.moments.measure);
            *l = (b.position, weight);
        }
        work.share(loads, shares);
        // Warm start: the last step's multipliers ride in the right-hand side, and the conjugate
        // gradients only solve for their change.
        for (s, m) in shares.iter_mut().zip(&work.multiplier) {
            *s += m;
        }
        load_dofs.clear();
        load_dofs.extend_from_slice(&work.dofs);
        carried_previous.clear();
        for ((b, w), (velocity, spin)) in bodies.bodies.iter().zip(work.ranges.windows(2)).zip(before.iter_mut()) {
            carried_previous.extend(
                work.points[w[0]..w[1]]
                    .iter()
                    .map(|p| *velocity + <Dim<D> as Kinematics<D>>::spin(spin, &(p - b.position))),
            );
            *velocity = b.velocity;
            *spin = b.angular_velocity;
        }
        let carried = Carried {
            dofs: load_dofs,
            loads: shares,
            previous: carried_previous,
        };
        fluid.step_constrained(mesh, &zero, carried, &mut |space, velocity, prescribed, response| {
            let begin = Instant::now();
            *iterations += work.constrain(velocity, response, options.tolerance);
            work.fit(velocity);
            constraint += begin.elapsed().as_secs_f64();
            let begin = Instant::now();
            outcome = advance(
                bodies,
                &work.fits,
                hydro_force,
                hydro_torque,
                options.fluid_density,
                dt,
                *substeps,
                time,
            );
            motion += begin.elapsed().as_secs_f64();
            let begin = Instant::now();
            if outcome.is_ok() {
                outcome = work.collect(dofs, space.coordinates(), prescribed, &bodies.bodies);
                work.project(velocity, &bodies.bodies);
            }
            constraint += begin.elapsed().as_secs_f64();
        })?;
        seconds.constraint += constraint;
        seconds.bodies += motion;
        seconds.fluid += start.elapsed().as_secs_f64() - constraint - motion;
        outcome
    }
}

impl<const D: usize> Work<D>
where
    Dim<D>: Kinematics<D>,
{
    /// The free dofs inside each body at its current pose.
    fn collect(
        &mut self,
        grid: &PointGrid<D>,
        position: &[Point<D>],
        prescribed: &[bool],
        bodies: &[RigidBody<D>],
    ) -> Result<(), SimError> {
        if self.slot.len() != position.len() {
            self.slot = vec![u32::MAX; position.len()];
            self.by_dof = vec![Vector::<D>::zeros(); position.len()];
        }
        std::mem::swap(&mut self.held, &mut self.dofs);
        for &k in &self.held {
            self.slot[k as usize] = u32::MAX;
        }
        for (&k, m) in self.held.iter().zip(&self.multiplier) {
            self.by_dof[k as usize] = *m;
        }
        self.dofs.clear();
        self.points.clear();
        self.ranges.clear();
        self.ranges.push(0);
        self.inside.resize_with(bodies.len(), Vec::new);
        self.inside.par_iter_mut().zip(bodies).for_each(|(inside, b)| {
            inside.clear();
            grid.for_each_within(&b.position, b.geometry.radius, |k| {
                if !prescribed[k as usize] && b.distance(&position[k as usize]) <= 0.0 {
                    inside.push(k);
                }
            });
            inside.sort_unstable();
        });
        for (b, inside) in bodies.iter().zip(&self.inside) {
            if inside.is_empty() {
                return Err(SimError::Outside {
                    body: b.name.clone(),
                    detail: format!(
                        "it holds no free velocity node of the fluid mesh (centre {:?}): refine the mesh or move it off the walls",
                        b.position.as_slice()
                    ),
                });
            }
            self.dofs.extend_from_slice(inside);
            self.points.extend(inside.iter().map(|&k| position[k as usize]));
            self.ranges.push(self.dofs.len());
        }
        self.frames.clear();
        for w in self.ranges.windows(2) {
            self.frames.push(Frame::new(&self.points[w[0]..w[1]]));
        }
        for (i, &k) in self.dofs.iter().enumerate() {
            self.slot[k as usize] = i as u32;
        }
        let mut multiplier = std::mem::take(&mut self.multiplier);
        multiplier.clear();
        multiplier.extend(self.dofs.iter().map(|&k| self.by_dof[k as usize]));
        self.remove_rigid(&mut multiplier);
        self.multiplier = multiplier;
        for &k in &self.held {
            self.by_dof[k as usize] = Vector::<D>::zeros();
        }
        let m = self.dofs.len();
        for v in [
            &mut self.residual,
            &mut self.direction,
            &mut self.image,
            &mut self.gathered,
        ] {
            v.resize(m, Vector::<D>::zeros());
        }
        Ok(())
    }

    /// `v ← (I − Π) v` on the constrained dofs: each body's part minus its rigid fit.
    fn remove_rigid(&self, v: &mut [Vector<D>]) {
        for (w, frame) in self.ranges.windows(2).zip(&self.frames) {
            let (points, values) = (&self.points[w[0]..w[1]], &mut v[w[0]..w[1]]);
            let fit = Fit::new(points, values, frame);
            for (p, x) in points.iter().zip(values.iter_mut()) {
                *x -= fit.at(p);
            }
        }
    }

    /// Shares each body's load `loads[i] = (G, F)` (a force over `ρ_f`, applied at `G`) among its
    /// dofs, into `shares`: equal parts plus the couple that keeps the load's moment about `G`
    /// (the dofs' centroid is not exactly `G`).
    fn share(&self, loads: &[(Point<D>, Vector<D>)], shares: &mut Vec<Vector<D>>) {
        shares.resize(self.dofs.len(), Vector::<D>::zeros());
        for (body, (w, (centre, load))) in self.ranges.windows(2).zip(loads).enumerate() {
            let points = &self.points[w[0]..w[1]];
            let Frame { centre: mean, second } = self.frames[body];
            let moment = <Dim<D> as Kinematics<D>>::torque(&(centre - mean), load);
            let spin = <Dim<D> as Kinematics<D>>::inertia_solve(&second, &moment);
            let share = load / points.len() as f64;
            for (d, p) in shares[w[0]..w[1]].iter_mut().zip(points) {
                *d = share + <Dim<D> as Kinematics<D>>::spin(&spin, &(p - mean));
            }
        }
    }

    /// `z = (I − Π) A_CC r` (`r` already free of rigid motions).
    fn precondition(&self, r: &[Vector<D>], z: &mut [Vector<D>]) {
        self.block.mul_vectors(r, z);
        self.remove_rigid(z);
    }

    /// Makes the velocity rigid on the constrained dofs by conjugate gradients on the internal
    /// multipliers, preconditioned by `(I − Π) A_CC (I − Π)` (the operator restricted to the
    /// constrained dofs approximates the inverse of `Eᵀ A⁻¹ E`), until the rms rigidity defect
    /// on the constrained dofs is below `tolerance` times the largest velocity; returns the
    /// iterations.
    ///
    /// An iteration needs `Eᵀ A⁻¹ E p`, the response at the constrained dofs only: a solve
    /// restricted to the factor's columns on their paths in the elimination tree
    /// ([`Response::solve_at`]), a share `s` of the factor ([`Reach::share`]; about 0.16 for one
    /// small body in the middle of the benchmark's box, 0.53 for 25, 0.86 for 1 000). A
    /// restricted solve costs about `s` of a full one (measured 0.55 against 3.7 ms at
    /// `s` = 0.16, the components on two threads in both); but the velocity everywhere then needs
    /// one full solve of the multipliers' change at the end. So
    /// the iterations are restricted when `k s + 1 < k`, with `k` the last step's iterations, and
    /// otherwise each does a full solve and updates the velocity as it goes.
    fn constrain(&mut self, velocity: &mut [Vector<D>], response: &mut Response<'_, D>, tolerance: f64) -> usize {
        if self.dofs.is_empty() {
            return 0;
        }
        let expected = self.iterations.max(1) as f64;
        let restricted = response.reach(&self.dofs, &mut self.reach) && self.reach.share() < 1.0 - 1.0 / expected;
        response.restrict(&self.dofs, &self.slot, &mut self.block);
        self.response.resize(velocity.len(), Vector::<D>::zeros());
        let mut residual = std::mem::take(&mut self.residual);
        let mut image = std::mem::take(&mut self.image);
        let mut preconditioned = std::mem::take(&mut self.gathered);
        for (r, &k) in residual.iter_mut().zip(&self.dofs) {
            *r = -velocity[k as usize];
        }
        self.remove_rigid(&mut residual);
        self.change.clear();
        self.change.resize(self.dofs.len(), Vector::<D>::zeros());
        let dot = |a: &[Vector<D>], b: &[Vector<D>]| a.iter().zip(b).map(|(x, y)| x.dot(y)).sum::<f64>();
        let scale = velocity
            .iter()
            .map(|v| v.norm_squared())
            .fold(0.0, f64::max)
            .max(1e-300);
        let mut rr = dot(&residual, &residual);
        let goal = tolerance * tolerance * scale * self.dofs.len() as f64;
        self.precondition(&residual, &mut preconditioned);
        self.direction.copy_from_slice(&preconditioned);
        let mut rz = dot(&residual, &preconditioned);
        let mut iterations = 0;
        while rr > goal && iterations < 500 {
            if restricted {
                response.solve_at(&mut self.reach, &self.dofs, &self.direction, &mut image);
            } else {
                response.solve(&self.dofs, &self.direction, &mut self.response);
                for (g, &k) in image.iter_mut().zip(&self.dofs) {
                    *g = self.response[k as usize];
                }
            }
            self.remove_rigid(&mut image);
            let alpha = rz / dot(&self.direction, &image);
            if !restricted {
                for (u, r) in velocity.iter_mut().zip(&self.response) {
                    *u += r * alpha;
                }
            }
            for (m, p) in self.change.iter_mut().zip(&self.direction) {
                *m += p * alpha;
            }
            for (r, q) in residual.iter_mut().zip(&image) {
                *r -= q * alpha;
            }
            rr = dot(&residual, &residual);
            iterations += 1;
            if rr <= goal {
                break;
            }
            self.precondition(&residual, &mut preconditioned);
            let next = dot(&residual, &preconditioned);
            let beta = next / rz;
            rz = next;
            for (p, z) in self.direction.iter_mut().zip(&preconditioned) {
                *p = z + *p * beta;
            }
        }
        if restricted && iterations > 0 {
            response.solve(&self.dofs, &self.change, &mut self.response);
            for (u, r) in velocity.iter_mut().zip(&self.response) {
                *u += r;
            }
        }
        for (m, c) in self.multiplier.iter_mut().zip(&self.change) {
            *m += c;
        }
        self.residual = residual;
        self.image = image;
        self.gathered = preconditioned;
        self.iterations = iterations;
        iterations
    }

    /// Each body's rigid fit of the velocity on its constrained dofs, into `self.fits`.
    fn fit(&mut self, velocity: &[Vector<D>]) {
        for (g, &k) in self.gathered.iter_mut().zip(&self.dofs) {
            *g = velocity[k as usize];
        }
        self.fits.clear();
        for (w, frame) in self.ranges.windows(2).zip(&self.frames) {
            self.fits
                .push(Fit::new(&self.points[w[0]..w[1]], &self.gathered[w[0]..w[1]], frame));
        }
    }

    /// The constrained dofs take their body's velocity.
    fn project(&self, velocity: &mut [Vector<D>], bodies: &[RigidBody<D>]) {
        for (b, w) in bodies.iter().zip(self.ranges.windows(2)) {
            for (&k, p) in self.dofs[w[0]..w[1]].iter().zip(&self.points[w[0]..w[1]]) {
                velocity[k as usize] = b.point_velocity(p);
            }
        }
    }
}

/// Step 2: the hydrodynamic forces from the fitted motions, then Newton–Euler over `substeps`.
#[allow(clippy::too_many_arguments)]
fn advance<const D: usize>(
    sim: &mut Simulation<D>,
    fits: &[Fit<D>],
    hydro_force: &mut [Vector<D>],
    hydro_torque: &mut [Angular<D>],
    rho_f: f64,
    dt: f64,
    substeps: usize,
    time: f64,
) -> Result<(), SimError>
where
    Dim<D>: Kinematics<D>,
{
    for ((b, fit), (f, t)) in sim
        .bodies
        .iter()
        .zip(fits)
        .zip(hydro_force.iter_mut().zip(hydro_torque.iter_mut()))
    {
        let volume = b.geometry.moments.measure;
        let weight = sim.gravity * ((b.density - rho_f) * volume);
        *f = (fit.at(&b.position) - b.velocity) * (rho_f * volume / dt) - weight;
        let m = b.matrix();
        let second = m * b.geometry.moments.second * m.transpose();
        *t = <Dim<D> as Kinematics<D>>::inertia_times(&second, &(fit.spin - b.angular_velocity)) * (rho_f / dt);
    }
    let delta = dt / substeps as f64;
    let g = sim.gravity;
    for _ in 0..substeps {
        sim.contact_forces()?;
        sim.bodies
            .par_iter_mut()
            .zip(hydro_force.par_iter().zip(hydro_torque.par_iter()))
            .zip(sim.force.par_iter().zip(sim.torque.par_iter()))
            .for_each(|((b, (fh, th)), (fc, tc))| {
                let excess = (b.density - rho_f) * b.geometry.moments.measure;
                b.velocity += (fh + g * excess + fc) * (delta / b.mass);
                let torque = *th + *tc;
                let alpha = <Dim<D> as Kinematics<D>>::angular_acceleration(
                    &b.inertia,
                    &b.rotation,
                    &b.angular_velocity,
                    &torque,
                );
                b.angular_velocity += alpha * delta;
                b.position += b.velocity * delta;
                b.rotation = <Dim<D> as Kinematics<D>>::advance(&b.rotation, &b.angular_velocity, delta);
            });
    }
    sim.time = time;
    sim.steps += 1;
    sim.check_finite()
}
