//! Rigid bodies in the fluid: a fictitious domain on the fixed mesh, the bodies' interiors held
//! rigid by Lagrange multipliers at the velocity dofs inside them (the collocation variant of
//! Glowinski, Pan, Hesla and Joseph's distributed Lagrange multipliers, J. Comput. Phys. 169, 2001)
//! and the body velocities from momentum (the rigidity projection of Sharma and Patankar,
//! J. Comput. Phys. 205, 2005).
//!
//! The fluid equations are solved on the whole mesh, bodies included, with the fluid density
//! `ρ_f` everywhere, so the fluid matrices stay constant and factored once. Body `i` holds the
//! free velocity dofs `C_i` where its signed distance field is `d_i ≤ 0` (any shape works;
//! `dofs.rs`). Gravity on the fluid is balanced by a hydrostatic pressure: the fluid gets no body
//! force, the pressure written out is the dynamic one, and the bodies get the buoyancy-corrected
//! weight `W_i = (ρ_s − ρ_f)|B_i| g`. One step ([`Immersed::step`]):
//!
//! 1. **Constrained velocity solve** ([`Unsteady::step_constrained`]): `A ũ = b + w + E μ` with
//!    `u|C_i` rigid. `w` loads each body's `W_i` and, with one body sub-step, the contact force
//!    and torque at the step's start (over `ρ_f`) on its dofs (`dofs.rs`), so that the fluid's
//!    added mass and drag answer the contact in the same step; a contact stiff enough to need
//!    sub-steps stays explicit in them, but a lubrication film is loaded whatever the sub-steps,
//!    its step taken from the body's surroundings (the drift and the fluid's resistance the last
//!    step showed, [`Surroundings`]). The multipliers `μ` are internal forces (no net force or
//!    torque on any body): with `Π` the least-squares fit of a rigid motion to the values on each
//!    `C_i` (`fit.rs`), they solve `(I − Π) Eᵀ A⁻¹ E μ = −(I − Π) Eᵀ ũ₀` (`ũ₀` the solution without
//!    them) by restarted GMRES (`constraint.rs`). With [`BodyBoundary::Surface`] the rows of the
//!    dofs near the surface read the fluid at image points instead (`B` in place of `Eᵀ`,
//!    `ghosts.rs`), and the pressure inside the bodies is held (`pressure.rs`). Holding the
//!    interior rigid inside the solve, rather than resetting it after, is what gives the viscous
//!    stress on the body its full value: reset after the solve, or with the weight loaded after
//!    it, the terminal velocities depended on `Δt`. The BDF2 history of the body's dofs is the body's own
//!    ([`Carried`]): `ũ^k` there is its rigid velocity, and `ũ^{k−1}` its rigid velocity a step
//!    earlier, also at the dofs it has just captured; otherwise every captured dof is pulled back
//!    towards the slower fluid that was there, a drag that grows with the distance the body moves
//!    per step. What remains of that drag limits the step: a body should move less than half a
//!    cell per step.
//! 2. **Newton–Euler** (`motion.rs`): the fluid in the body moves with the fitted rigid motion
//!    `(U_f, ω_f)`, so the hydrodynamic force and torque are `F_h = ρ_f |B| (U_f − U)/Δt − W`,
//!    `T_h = ρ_f J_w (ω_f − ω)/Δt` (`J_w` the unit-density inertia), and the body's
//!    `ρ_s |B| dU/dt = F_h + W + F_c`, `I_w dω/dt = T_h + T_c − ω × I_w ω` are advanced by
//!    symplectic Euler over `n` sub-steps of `Δt/n` (contact forces `F_c`, `T_c` recomputed at
//!    each, `F_h`, `T_h` held), then `G ← G + δ U`, `R ← exp(δ ω) R`. `F_h` and `T_h` leave out
//!    the loaded contact of the step's start, which then cancels.
//! 3. **Rigidity projection** at the new pose (`fit.rs`): the dofs inside each body take its
//!    velocity, and with [`BodyBoundary::Surface`] the ghosts the fluid continued through the
//!    surface. The dofs a body has just captured (ahead of it) were fluid: setting them so gives
//!    them the momentum `ρ_f Σ_k ∫φ_k (u_k' − u_k)` that no force paid for, `u_k'` the value the
//!    projection gave. It is charged to the body at the next step (`F_h` and `T_h` less it over
//!    `Δt`), so that the projection conserves momentum. Without the charge the bodies moving
//!    through the mesh were too fast: with `Nodes` by a staircase's error that vanishes with
//!    `h`, not with `Δt`; with ghosts, whose captured values jump from the fluid's by about the
//!    slip's gradient times a spacing, a sphere moving through the mesh felt less drag than the
//!    same sphere held among the same cells by a frame that follows it, and at Re 10 never
//!    reached a terminal speed. (Charging the jump to the rigid motion, `U(x_k) − u_k`, which is
//!    not the ghosts' value, made their speeds drift with `Δt`. The ghosts that stay ghosts
//!    change too as the surface sweeps on, their depth changing; charging that as well
//!    over-corrected, so it is not charged: `docs/validation.md`, "The momentum a surface body
//!    gives the dofs it sweeps".)
//!
//! With one sub-step, step 2 reads `ρ_s U' = ρ_f U_f + (ρ_s − ρ_f) U`: the fluid's part of the
//! body moves as the fluid solve says (its weight, the contact, added mass and drag are
//! implicit, inside the solve) and the excess mass keeps its momentum. Both weights are positive
//! for `ρ_s ≥ ρ_f`, so the scheme has no density-ratio limit there; at `ρ_s = ρ_f` the body takes
//! the fluid's rigid motion (a neutrally buoyant body in fluid at rest stays at rest exactly),
//! unlike explicit immersed-boundary couplings that fail below `ρ_s/ρ_f ≈ 1.2`.
//!
//! In a periodic domain a body across a face holds the dofs its images cover (`dofs.rs`); in one
//! periodic along gravity, [`ImmersedOptions::balance`] adds the mean pressure gradient that
//! carries the suspension's weight, and [`Immersed::mean_velocity`] is the mixture's mean velocity
//! its settling is measured against (`mixture.rs`).
//!
//! Cost per step: one fluid step, whose velocity solve the constraint repeats `k` times (its
//! GMRES iterations; the last step's multipliers are the warm start), each restricted to the
//! factor's columns that reach the constrained dofs or to a patch around them, plus one whole
//! solve of the multipliers' change (`constraint.rs`); `O(|C|)` work for the dofs, the fits, the
//! shares and the projection (`|C|` the constrained dofs, found among those within each body's
//! bounding sphere), and `n` contact computations for the sub-steps. The measurements behind these
//! choices are in `docs/validation.md`, "Why the coupling is built as it is".

mod constraint;
mod dofs;
mod fit;
mod ghosts;
mod mixture;
mod motion;
mod options;
mod pressure;
mod state;
mod watch;

pub use options::{substeps_for, BodyBoundary, ImmersedOptions};
pub use state::{ImmersedSeconds, ImmersedState};

use super::{PointGrid, SimError, Simulation};
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::contact::Surroundings;
use crate::fluid::{Carried, Pass, Unsteady};
use crate::linalg::{Csr, Patch, Reach};
use crate::math::{Periodicity, Point, Vector};
use crate::mesh::SimplexMesh;
use constraint::Scratch;
use fit::{Fit, Frame};
use ghosts::Rows;
use mixture::Mixture;
use motion::advance;
use pressure::PressureRows;
use std::time::Instant;
use watch::Watch;

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
    /// The constraint's iterations, all steps.
    pub iterations: usize,
    /// Time spent.
    pub seconds: ImmersedSeconds,
    dofs: PointGrid<D>,
    work: Work<D>,
    /// Each body's load over `ρ_f`: its point of application (the centre of mass), the
    /// buoyancy-corrected weight plus the contact force at the step's start, and the contact
    /// torque; loaded on the body's dofs in the velocity step's right-hand side.
    loads: Vec<(Point<D>, Vector<D>, Angular<D>)>,
    /// The contact force and torque of the step's start on each body (loaded with the weight).
    loaded_contact: Vec<(Vector<D>, Angular<D>)>,
    /// The loaded dofs (the constrained ones at the step's start) and their shares.
    load_dofs: Vec<u32>,
    shares: Vec<Vector<D>>,
    /// Each body's velocity and angular velocity a step back, and the rigid velocity it gives
    /// the loaded dofs (their BDF2 history, [`Carried`]).
    before: Vec<(Vector<D>, Angular<D>)>,
    carried_previous: Vec<Vector<D>>,
    /// The momentum and angular momentum (over `ρ_f`) the last rigidity projection gave the
    /// dofs each body had just captured, charged to the body at the next step.
    captured: Vec<(Vector<D>, Angular<D>)>,
    /// The largest speed the case can give, to tell a diverged flow ([`watch`]).
    watch: Watch,
    /// The diameter of the velocity dofs' bounding box (the domain's size, [`Surroundings::stokes`]).
    extent: f64,
    /// The mean velocity's weights and the balance of the weight ([`mixture`]).
    mixture: Mixture,
}

/// The constrained dofs, their rows, and the solver's vectors, kept between steps. Each part of
/// the step adds its methods in its own file: [`dofs`], [`ghosts`], [`pressure`], [`constraint`],
/// [`fit`].
#[derive(Debug, Default)]
struct Work<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    /// The constrained dofs, body after body.
    dofs: Vec<u32>,
    /// Each body's, with the body's distance there and the shift that takes the dof to the
    /// body's side of a periodic face (zero elsewhere), found in parallel (kept to reuse their
    /// storage).
    inside: Vec<Vec<mixture::Inside<D>>>,
    /// Their positions, next to their body (across a periodic face, the dof's image there).
    points: Vec<Point<D>>,
    /// Where each row holds its body's rigid motion: the dof's position, or a ghost's surface
    /// point.
    targets: Vec<Point<D>>,
    /// The rows that are ghosts, and their rows.
    ghosts: Rows<D>,
    /// `ranges[i]..ranges[i + 1]` are body `i`'s.
    ranges: Vec<usize>,
    /// The position of each dof in `dofs` (`u32::MAX` if not constrained).
    slot: Vec<u32>,
    /// Each body's frame of its constrained dofs (the multipliers' and the loads').
    frames: Vec<Frame<D>>,
    /// Each body's frame of its targets (the rigid fits').
    target_frames: Vec<Frame<D>>,
    /// For each dof, the largest distance to another dof of its cells (a dof deeper in a body
    /// than that shares no cell with the fluid), and one of its cells (where the search for its
    /// image point starts); empty without ghosts.
    spacing: Vec<f64>,
    /// The largest of `spacing`.
    spacing_max: f64,
    cell_of: Vec<u32>,
    /// The fluid's periodic directions: a body holds the dofs its images across the periodic
    /// faces cover, and the ghosts' image points are wrapped into the cell.
    period: Periodicity<D>,
    /// The bodies near each body (`near[near_start[i]..near_start[i + 1]]`): within two spacings
    /// of it, where its ghosts' image points may reach ([`Self::collect`]), with the shift of
    /// the nearest image.
    near: Vec<(u32, Vector<D>)>,
    near_start: Vec<usize>,
    /// The dofs whose velocities the rows read: `dofs`, then the other dofs of the image points'
    /// cells.
    observed: Vec<u32>,
    /// Whether `ghosts` has its rows at the current pose ([`Self::stencil`]).
    stencil_ready: bool,
    /// The GMRES vectors.
    scratch: Scratch<D>,
    /// The pressure at the vertices inside the bodies at the step's start ([`Self::hold_pressure`]).
    held_pressure: Vec<(u32, f64)>,
    /// The ghost vertices' pressure rows at the current pose.
    pressure_rows: PressureRows,
    /// The response to the multipliers' change, at every dof.
    response: Vec<Vector<D>>,
    /// Each body's rigid fit after the solve.
    fits: Vec<Fit<D>>,
    /// The multipliers `μ` at the constrained dofs: those of the last solve, carried over to the
    /// dofs the bodies hold at their new poses (the next step's warm start).
    multiplier: Vec<Vector<D>>,
    /// The multipliers the step's right-hand side carries (its warm start, then with each pass's
    /// change added between passes, [`Pass::Between`]).
    warm: Vec<Vector<D>>,
    /// The factor's columns that a solve at the observed dofs visits.
    reach: Reach,
    /// On the iterative path, the dofs around the observed ones on which the iterations take the
    /// response ([`Patch`]).
    patch: Patch,
    /// The patch's conjugate-gradient iterations at its last solve (0 before one): above
    /// the constraint's `PATCH_CG_LIMIT` the iterations take whole solves instead.
    patch_iterations: usize,
    /// `A_CC`, the velocity operator on the constrained dofs (the preconditioner).
    block: Csr,
    /// The last solve's iterations.
    iterations: usize,
    /// The multipliers by velocity dof while the constrained set changes (zero elsewhere), and
    /// the set they were on.
    by_dof: Vec<Vector<D>>,
    held: Vec<u32>,
    /// Marks the dofs of `held` while [`Self::capture`] looks for the ones just captured.
    was_held: Vec<bool>,
    /// The dofs just captured (their rows) and their velocity before the projection.
    fresh: Vec<(u32, Vector<D>)>,
    /// Each ghost's rigid velocity at its surface point while [`Self::extrapolate`] sweeps.
    rigid: Vec<Vector<D>>,
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
        let substeps = match options.substeps {
            0 => bodies.substeps(fluid.time_step(), []),
            n => n,
        };
        let n = bodies.bodies.len();
        let mixture = Mixture::new(fluid.dof_measures());
        let work = Work::new(fluid.space(), options.boundary);
        let before = bodies.bodies.iter().map(|b| (b.velocity, b.angular_velocity)).collect();
        let mut watch = Watch::new();
        watch.enter(&bodies.bodies);
        let extent = {
            let x = fluid.space().coordinates();
            let lo = x.iter().fold(Point::<D>::repeat(f64::INFINITY), |m, p| m.inf(p));
            let hi = x.iter().fold(Point::<D>::repeat(f64::NEG_INFINITY), |m, p| m.sup(p));
            (hi - lo).norm()
        };
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
            work,
            loads: vec![
                (
                    Point::<D>::zeros(),
                    Vector::<D>::zeros(),
                    <Dim<D> as Kinematics<D>>::zero()
                );
                n
            ],
            loaded_contact: vec![(Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero()); n],
            load_dofs: Vec::new(),
            shares: Vec::new(),
            before,
            carried_previous: Vec::new(),
            captured: vec![(Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero()); n],
            watch,
            extent,
            mixture,
        };
        let (velocity, position, prescribed) = immersed.fluid.velocity_mut();
        immersed
            .work
            .collect(&immersed.dofs, position, prescribed, &immersed.bodies.bodies)?;
        immersed.work.project(velocity, &immersed.bodies.bodies);
        Ok(immersed)
    }

    /// Adds `bodies` (released during the run, their places clear of the others) on `mesh`: the
    /// dofs each holds take its rigid velocity, and the momentum this gives them is charged to it
    /// at the next step as for the dofs a moving body captures (with [`BodyBoundary::Nodes`]).
    /// An error if one holds no free velocity dof.
    pub fn insert(&mut self, mesh: &SimplexMesh<D>, bodies: Vec<RigidBody<D>>) -> Result<(), SimError> {
        if bodies.is_empty() {
            return Ok(());
        }
        let zero = (Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero());
        let old = self.bodies.bodies.len();
        self.watch.enter(&bodies);
        for b in bodies {
            self.before.push((b.velocity, b.angular_velocity));
            self.bodies.insert(b);
            self.hydro_force.push(zero.0);
            self.hydro_torque.push(zero.1);
        }
        let (_, position, prescribed) = self.fluid.velocity_mut();
        let work = &mut self.work;
        work.collect(&self.dofs, position, prescribed, &self.bodies.bodies)?;
        work.stencil(mesh, self.fluid.space());
        let mut gained = vec![zero; self.bodies.bodies.len()];
        let (velocity, _, _) = self.fluid.velocity_mut();
        work.capture(velocity);
        work.project(velocity, &self.bodies.bodies);
        work.captured(velocity, self.mixture.measure(), &self.bodies.bodies, &mut gained);
        self.captured.extend_from_slice(&gained[old..]);
        Ok(())
    }

    /// The mixture's mean velocity `⟨u⟩ = ∫_Ω u / |Ω|`, fluid and bodies (the dofs inside a body
    /// at its rigid motion, not the ghosts' continued fluid): the frame of zero volume flux a
    /// settling suspension's speed is measured in.
    pub fn mean_velocity(&self) -> Vector<D> {
        let held = (&self.work.inside[..], &self.bodies.bodies[..]);
        self.mixture
            .mean((&self.fluid.flow.velocity, self.fluid.space().coordinates()), held)
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
            loaded_contact,
            load_dofs,
            shares,
            before,
            carried_previous,
            captured,
            watch,
            extent,
            mixture,
        } = self;
        let (dt, time) = (fluid.time_step(), fluid.time + fluid.time_step());
        watch.scheme(fluid.scheme());
        let (mut constraint, mut motion) = (0.0, 0.0);
        let push = match options.balance {
            true => mixture.balance(
                (&fluid.flow.velocity, fluid.space().coordinates(), options.fluid_density),
                (&work.inside, &bodies.bodies),
                &bodies.gravity,
                dt,
            ),
            false => Vector::<D>::zeros(),
        };
        let push = |_: &Point<D>, _: f64| push;
        // The contact of the step's start goes into the solve with the weight when one sub-step
        // resolves it; a stiffer contact, sub-stepped, changes too much within the step for its
        // start to stand for it (a tripole hitting the floor went through it), and stays explicit.
        // The lubrication film goes into the solve in any case: at Stokes numbers of order one
        // the fluid's viscous answer to a force is faster than a step, and a film held only by
        // the body's inertia over sub-steps cut a settling sphere's speed threefold where its
        // force was a twentieth of the weight (docs/validation.md, "The lubrication film").
        // But a film whose step reaches the law's range (an impact) is stepped with the law's
        // sub-steps: held over the step, its push against the approach went on after the
        // rebound and added to it.
        let implicit_contact = *substeps == 1;
        let films = bodies.contact.model.lubrication.is_some();
        // In a frame that follows a body the walls slide past the bodies at minus its velocity:
        // the friction and the films take the bodies' velocities relative to them.
        if let Some(frame) = &bodies.frame {
            bodies.contact.wall_velocity = -frame.lab().1;
        }
        if let Some(l) = bodies.contact.model.lubrication {
            // What the fluid does around each body, for the film's step ([`Surroundings`]).
            let contact = &mut bodies.contact;
            contact.surroundings.clear();
            for (k, b) in bodies.bodies.iter().enumerate() {
                let film = (
                    contact.film_force.get(k).copied().unwrap_or_else(Vector::<D>::zeros),
                    contact
                        .film_torque
                        .get(k)
                        .copied()
                        .unwrap_or_else(<Dim<D> as Kinematics<D>>::zero),
                );
                let stokes = Surroundings::<D>::stokes(l.viscosity, b.geometry.moments.measure, *extent);
                let resistance = Surroundings::resistance(&hydro_force[k], &b.velocity, stokes);
                let s = Surroundings::after(b, &before[k], &film, resistance, dt);
                contact.surroundings.push(s);
            }
        }
        if implicit_contact {
            bodies.contact_forces(dt)?;
        } else if films {
            bodies.contact.film_forces(&bodies.bodies, bodies.walls.as_ref(), dt)?;
        }
        let n = bodies.bodies.len();
        loads.resize(
            n,
            (
                Point::<D>::zeros(),
                Vector::<D>::zeros(),
                <Dim<D> as Kinematics<D>>::zero(),
            ),
        );
        loaded_contact.resize(n, (Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero()));
        for (k, (l, c)) in loads.iter_mut().zip(loaded_contact.iter_mut()).enumerate() {
            let b = &bodies.bodies[k];
            *c = if implicit_contact {
                (bodies.force[k], bodies.torque[k])
            } else if films {
                (bodies.contact.film_force[k], bodies.contact.film_torque[k])
            } else {
                (Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero())
            };
            let weight = bodies.gravity * ((b.density / options.fluid_density - 1.0) * b.geometry.moments.measure);
            *l = (
                b.position,
                weight + c.0 / options.fluid_density,
                c.1 * (1.0 / options.fluid_density),
            );
        }
        work.share(loads, shares);
        // Warm start: the last step's multipliers ride in the right-hand side, and the
        // iterations only solve for their change.
        for (s, m) in shares.iter_mut().zip(&work.multiplier) {
            *s += m;
        }
        if fluid.pressure_passes() > 1 {
            work.warm.clone_from(&work.multiplier);
        }
        load_dofs.clear();
        load_dofs.extend_from_slice(&work.dofs);
        if !work.stencil_ready {
            work.stencil(mesh, fluid.space());
        }
        // The rows' history a step back: the body's rigid motion then, and at a ghost what its
        // row extrapolates from the fluid then.
        let rigid_before = |body: usize, x: &Point<D>| {
            let (velocity, spin) = &before[body];
            velocity + <Dim<D> as Kinematics<D>>::spin(spin, &(x - bodies.bodies[body].position))
        };
        carried_previous.clear();
        for (body, w) in work.ranges.windows(2).enumerate() {
            carried_previous.extend(work.points[w[0]..w[1]].iter().map(|p| rigid_before(body, p)));
        }
        let previous = fluid.previous_velocity();
        let mut values = std::mem::take(&mut work.scratch.values);
        values.clear();
        values.extend_from_slice(carried_previous);
        values.extend(work.observed[work.dofs.len()..].iter().map(|&k| previous[k as usize]));
        work.extrapolate(&mut values, rigid_before);
        for g in &work.ghosts.list {
            carried_previous[g.row as usize] = values[g.row as usize];
        }
        work.scratch.values = values;
        for (b, (velocity, spin)) in bodies.bodies.iter().zip(before.iter_mut()) {
            *velocity = b.velocity;
            *spin = b.angular_velocity;
        }
        let carried = Carried {
            dofs: load_dofs,
            loads: shares,
            previous: carried_previous,
        };
        work.hold_pressure(fluid.space().vertices, &fluid.flow.pressure);
        fluid.step_constrained(mesh, &push, carried, &mut |space, pass| {
            let (velocity, prescribed, response, last) = match pass {
                Pass::Velocity {
                    velocity,
                    prescribed,
                    response,
                    last,
                } => (velocity, prescribed, response, last),
                Pass::Between { pressure, load } => {
                    // Between passes at the step's pose: the pass's change of the multipliers
                    // rides in the next pass's right-hand side (its warm start), and the bodies'
                    // pressure is held and the ghosts' extrapolated, as after the step.
                    let n2 = load.len() / D;
                    for ((&k, m), w) in work.dofs.iter().zip(&work.multiplier).zip(work.warm.iter_mut()) {
                        let change = m - *w;
                        for d in 0..D {
                            load[d * n2 + k as usize] += change[d];
                        }
                        *w = *m;
                    }
                    work.restore_pressure(pressure);
                    return;
                }
            };
            let begin = Instant::now();
            *iterations += work.constrain(mesh, space, velocity, response, options.tolerance);
            if !last {
                // A pass before the last: the bodies stay where the step began, and the pressure
                // correction that follows releases the continuity inside them there.
                work.release_inside(response, space.vertices);
                constraint += begin.elapsed().as_secs_f64();
                return;
            }
            work.fit(velocity);
            constraint += begin.elapsed().as_secs_f64();
            let begin = Instant::now();
            outcome = advance(
                bodies,
                &work.fits,
                captured,
                loaded_contact,
                hydro_force,
                hydro_torque,
                options.fluid_density,
                dt,
                *substeps,
                time,
            );
            if let Err(SimError::Outside { body, .. }) = &outcome {
                let left = bodies.bodies.iter().find(|b| &b.name == body);
                if let Some(e) = left.and_then(|b| watch.exit(mesh, &bodies.gravity, b, (bodies.steps + 1, time))) {
                    outcome = Err(e);
                }
            }
            if outcome.is_ok() {
                for k in bodies.leave().into_iter().rev() {
                    hydro_force.remove(k);
                    hydro_torque.remove(k);
                    before.remove(k);
                    captured.remove(k);
                }
            }
            motion += begin.elapsed().as_secs_f64();
            let begin = Instant::now();
            if outcome.is_ok() {
                outcome = work.collect(dofs, space.coordinates(), prescribed, &bodies.bodies);
                if outcome.is_ok() {
                    work.stencil(mesh, space);
                }
                work.capture(velocity);
                work.project(velocity, &bodies.bodies);
                work.captured(velocity, mixture.measure(), &bodies.bodies, captured);
                work.release_inside(response, space.vertices);
            }
            constraint += begin.elapsed().as_secs_f64();
        })?;
        if outcome.is_ok() {
            work.restore_pressure(&mut fluid.flow.pressure);
        }
        if let (Ok(()), Some(frame)) = (&outcome, &bodies.frame) {
            // The frame takes on the followed body's velocity along its axis (it stops where
            // the body has left): every velocity in it loses that much ([`super::frame`]).
            let (z, v) = frame.motion.get();
            let w = bodies
                .bodies
                .iter()
                .find(|b| b.name == frame.body)
                .map_or(0.0, |b| b.velocity.dot(&frame.axis));
            frame.motion.set((z + v * dt, v + w));
            let c = frame.axis * -w;
            fluid.shift(&c);
            for b in &mut bodies.bodies {
                b.velocity += c;
            }
            for (velocity, _) in before.iter_mut() {
                *velocity += c;
            }
        }
        if outcome.is_ok() {
            let (velocity, _, prescribed) = fluid.velocity_mut();
            outcome = watch.check(
                mesh,
                &bodies.gravity,
                velocity,
                prescribed,
                &bodies.bodies,
                dt,
                (bodies.steps, time),
            );
        }
        seconds.constraint += constraint;
        seconds.bodies += motion;
        seconds.fluid += start.elapsed().as_secs_f64() - constraint - motion;
        outcome
    }
}

/// The fluid of this module's unit tests: the unit square of `cells` × `cells`, walls all round,
/// `ν = 0.1`, steps of 0.01, at rest.
#[cfg(test)]
fn unit_square_fluid(cells: usize) -> (SimplexMesh<2>, Unsteady<2>) {
    use crate::fluid::{BoundaryConditions, FlowField, P2Space};
    let mesh =
        crate::mesh::generate::axis_box::<2>(Point::<2>::zeros(), Point::<2>::new(1.0, 1.0), [cells; 2]).unwrap();
    let space = P2Space::new(&mesh);
    let mut bc = BoundaryConditions::<2>::default();
    for name in ["xmin", "xmax", "ymin", "ymax"] {
        bc = bc.no_slip(mesh.facet_marker(name).unwrap());
    }
    let rest = FlowField {
        velocity: vec![Vector::<2>::zeros(); space.len()],
        pressure: vec![0.0; mesh.num_points()],
    };
    let fluid = Unsteady::new(&mesh, space, 0.1, 0.01, bc, rest, 0.0).unwrap();
    (mesh, fluid)
}
