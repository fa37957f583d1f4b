//! Time-dependent incompressible flow: BDF2 incremental pressure correction in rotational form
//! (Guermond, Minev and Shen 2006, eq. 3.16 and 3.20) with the convection extrapolated, so that
//! every matrix is constant and factored once, before the first step.
//!
//! With `u* = 2ũ^k − ũ^{k−1}` and `p̂ = p^k + (4/3) φ^k − (1/3) φ^{k−1}`, one step is
//!
//! ```text
//! (3ũ^{k+1} − 4ũ^k + ũ^{k−1})/(2Δt) − ν Δũ^{k+1} = f^{k+1} − (u*·∇)u* − ∇p̂,   ũ^{k+1} = g on Γ_D,
//! Δφ^{k+1} = (3/(2Δt)) ∇·ũ^{k+1},   ∂φ/∂n = 0 (φ = 0 on pressure boundaries),
//! p^{k+1} = p^k + φ^{k+1} − ν ∇·ũ^{k+1}.
//! ```
//!
//! On a pressure boundary (prescribed `p₀`, see [`BoundaryConditions::pressure`]) the velocity step
//! carries the traction `ν ∂ũ/∂n − p̂ n = −p₀ n` (the load `−∫ p₀ v·n`) and the correction vanishes
//! there; the rotational term `−ν ∇·ũ` then carries the boundary pressure to `p₀` as the flow
//! settles ([`BoundaryConditions::correction_pins`]).
//!
//! The velocity matrix `(3/(2Δt)) M + ν K` is one scalar matrix for every component; the pressure
//! Poisson matrix and the P1 mass matrix (which projects `∇·ũ` onto P1) are factored once too. A
//! step assembles the right-hand sides (in parallel over cells), multiplies by the constant
//! matrices and does `D + 2` pairs of triangular solves. The first step takes `ũ^{−1} = ũ^0`.
//! The explicit convection limits the time step by a CFL condition `|u| Δt / h ≲ 1`; on meshes
//! too coarse for the flow's boundary layers (cell Reynolds numbers of ten and more, the staircase
//! boundaries of the rigid bodies' fictitious domain) it can blow up whatever the time step.
//! [`Convection::Characteristics`] replaces it by the method of characteristics
//! ([`super::characteristics`]): the history `4ũ^k − ũ^{k−1}` is taken at the feet of the
//! characteristics, the convection term drops out, the matrices are the same.
//!
//! [`Scheme::ProjectedCorrection`] keeps the splitting but not the elimination: the step ends with
//! `u^{k+1} = ũ^{k+1} − (2Δt/3) M⁻¹ Bᵀ φ^{k+1}` (`D` more solves with the velocity mass matrix),
//! the history is `u`, and `p̂ = p^k`. The eliminated form above holds only when the history is
//! last step's `ũ` at the same nodes; a constraint that overwrites dofs between steps (the rigid
//! bodies' capture and release, [`crate::sim::Immersed`]) breaks that, and `φ`'s share of `p̂`
//! then reaches dofs it was never meant for (docs/theory.md, "The projected pressure correction").
//!
//! [`Scheme::Monolithic`] takes the same BDF2 step without splitting: `ũ^{k+1}` and `p^{k+1}` solve
//! the momentum equation above with `∇p^{k+1}` in place of `∇p̂` together with `∇·u^{k+1} = 0`,
//! one constant saddle-point system ([`super::monolithic`]).

use super::assembly::{assemble_constant, load};
use super::boundary::{BoundaryConditions, VelocityDofs};
use super::characteristics::Characteristics;
use super::error::FluidError;
use super::field::FlowField;
use super::monolithic::MonolithicSystem;
use super::space::P2Space;
use super::steady::lu_par;
use crate::linalg::{Csr, SpdMethod, SpdSolver};
use crate::math::{Point, Vector};
use crate::mesh::SimplexMesh;
use faer::prelude::*;
use std::time::Instant;

mod correction;
mod mixing;
mod state;
pub use correction::Pass;
use mixing::Mixing;
pub use state::UnsteadyState;

/// A body force as a function of position and time.
pub type TimeField<'a, const D: usize> = &'a (dyn Fn(&Point<D>, f64) -> Vector<D> + Sync);

/// A constraint applied inside a step ([`Unsteady::step_constrained`]): it gets the space and what
/// each pass of the step asks of it ([`Pass`]).
pub type Constraint<'a, const D: usize> = dyn FnMut(&P2Space<D>, Pass<'_, '_, D>) + 'a;

/// The velocity dofs that move with rigid bodies during a step ([`Unsteady::step_constrained`]).
///
/// The material at a carried dof was in its body a step before, so its BDF2 history
/// `4ũ^k − ũ^{k−1}` is the body's: `ũ^k` at the dof (rigid already) and `previous`, the body's
/// velocity there a step earlier, neither transported along characteristics nor taken from
/// the fluid that was at the dof before the body arrived (which would drag every dof a moving
/// body captures back to the fluid's speed, a spurious drag that grows with `Δt`).
#[derive(Debug, Clone, Copy)]
pub struct Carried<'a, const D: usize> {
    /// The dofs.
    pub dofs: &'a [u32],
    /// Nodal loads on them (forces over the density), added to the right-hand side.
    pub loads: &'a [Vector<D>],
    /// `ũ^{k−1}` at them: their body's velocity a step before the current one.
    pub previous: &'a [Vector<D>],
}

/// How a time step treats the convection term `(u·∇)u`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Convection {
    /// None: Stokes flow.
    Off,
    /// Explicit, with `u* = 2ũ^k − ũ^{k−1}` in `(u*·∇)u*` (the default; CFL-limited).
    #[default]
    Extrapolated,
    /// The method of characteristics (semi-Lagrangian): no CFL limit, robust on under-resolved
    /// meshes; two feet per dof, two point locations per foot, see [`super::characteristics`].
    Characteristics,
}

/// How a time step couples the velocity and the pressure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scheme {
    /// BDF2 incremental pressure correction in rotational form (the default): `D + 2` pairs of
    /// triangular solves with small symmetric positive definite factors per step; the rigid
    /// bodies' constraint acts between its velocity step and its correction.
    #[default]
    PressureCorrection,
    /// BDF2 with the velocity and the pressure solved together ([`MonolithicSystem`]): no splitting
    /// error, one solve with the larger saddle-point factor per step; no constraints.
    Monolithic,
    /// The incremental pressure correction in its projected form: the step ends with the
    /// divergence-free `u^{k+1} = ũ^{k+1} − (2Δt/3) ∇φ^{k+1}` (the velocity mass matrix solved,
    /// `D` more solves a step), the history is `u`, and `p̂ = p^k`. Where the history is not the
    /// last step's solution (the dofs a body captures and releases) the default's eliminated
    /// form feeds the capture's divergence back through `φ`; this one does not.
    ProjectedCorrection,
}

/// The largest relative residual a monolithic step accepts after its iterative refinement (which
/// brings it below 1e-9 when the factorisation is sound).
const COUPLED_RESIDUAL: f64 = 1e-8;

/// Seconds spent per phase, summed over steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StepSeconds {
    /// Building and factoring the matrices (once).
    pub setup: f64,
    /// Right-hand sides (convection, force, history) per step.
    pub assembly: f64,
    /// Triangular solves per step.
    pub solve: f64,
}

/// The work vectors of a step, allocated once.
struct Work<const D: usize> {
    extrapolated: Vec<Vector<D>>,
    /// Each cell's load vector (then scattered into `load`): no per-thread full-size vectors.
    cell_load: Vec<[Vector<D>; 10]>,
    load: Vec<f64>,
    p_hat: Vec<f64>,
    gradient: Vec<f64>,
    history: Vec<f64>,
    product: Vec<f64>,
    flat: Vec<f64>,
    divergence: Vec<f64>,
    /// The pressure nodes whose continuity a constraint releases in this step
    /// ([`Response::release`]).
    released: Vec<u32>,
    /// The velocity right-hand sides, then solutions: one column per component.
    velocity: Mat<f64>,
    phi: Mat<f64>,
    projected: Mat<f64>,
    /// The passes' Anderson mixing of the pressure ([`Unsteady::set_pressure_passes`]).
    mixing: Mixing,
}

impl<const D: usize> Work<D> {
    fn new(n2: usize, n1: usize, cells: usize) -> Self {
        Work {
            extrapolated: vec![Vector::<D>::zeros(); n2],
            cell_load: vec![[Vector::<D>::zeros(); 10]; cells],
            load: vec![0.0; D * n2],
            p_hat: vec![0.0; n1],
            gradient: vec![0.0; D * n2],
            history: vec![0.0; n2],
            product: vec![0.0; n2],
            flat: vec![0.0; D * n2],
            divergence: vec![0.0; n1],
            released: Vec::new(),
            velocity: Mat::zeros(n2, D),
            phi: Mat::zeros(n1, 1),
            projected: Mat::zeros(n1, 1),
            mixing: Mixing::default(),
        }
    }
}

/// The time stepper: constant matrices, their factors, and the state.
pub struct Unsteady<const D: usize> {
    space: P2Space<D>,
    /// The kinematic viscosity `ν = μ/ρ`.
    nu: f64,
    dt: f64,
    mass2: Csr,
    divergence: Csr,
    /// `(3/(2Δt)) M + ν K`, kept for constraints' preconditioners ([`Response::restrict`]).
    velocity_matrix: Csr,
    velocity_solver: SpdSolver,
    poisson_solver: SpdSolver,
    mass1_solver: SpdSolver,
    /// The P2 dofs the velocity conditions fix.
    fixed: VelocityDofs,
    /// Stokes, or how convection is treated.
    convection: Convection,
    /// Built at the first step with [`Convection::Characteristics`].
    characteristics: Option<Characteristics<D>>,
    /// The monolithic system and its right-hand side and solution ([`Scheme::Monolithic`]).
    monolithic: Option<(MonolithicSystem, Vec<f64>, Vec<f64>)>,
    /// The velocity mass matrix's solver ([`Scheme::ProjectedCorrection`]).
    projection: Option<SpdSolver>,
    /// The passes of velocity solve, constraint and pressure update a step ([`Self::set_pressure_passes`]).
    pressure_passes: usize,
    phi_fixed: Vec<bool>,
    /// `−∫ p₀ φ_i n_d` (component-major), constant.
    pressure_load: Vec<f64>,
    boundary: BoundaryConditions<D>,
    previous: Vec<Vector<D>>,
    /// The velocity before `previous` (for the BDF2 acceleration).
    older: Vec<Vector<D>>,
    phi: Vec<f64>,
    phi_previous: Vec<f64>,
    work: Work<D>,
    /// The current velocity (at every P2 dof) and pressure (at every vertex).
    pub flow: FlowField<D>,
    /// The current time.
    pub time: f64,
    start: f64,
    /// Steps done.
    pub steps: usize,
    /// Velocity solves done for constraints ([`Response::solve`]), all steps.
    pub constraint_solves: usize,
    /// Time spent.
    pub seconds: StepSeconds,
}

/// How each constant system of a step is solved ([`Unsteady::solvers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Solvers {
    /// The velocity system `(3/(2Δt)) M + ν K`.
    pub velocity: &'static str,
    /// The pressure correction's Poisson system.
    pub pressure: &'static str,
    /// The P1 mass matrix (the divergence's projection).
    pub mass: &'static str,
}

impl<const D: usize> Unsteady<D> {
    /// A stepper for kinematic viscosity `nu` (`ν = μ/ρ`) and time step `dt` on `mesh` with the
    /// velocity space `space` (curved or not, see [`P2Space::curve_boundary`]), starting from
    /// `initial` at time `t0`; assembles and factors the constant matrices (or, where a factor
    /// would not fit or would be slow, builds their multigrid hierarchies: [`SpdMethod::Auto`]).
    pub fn new(
        mesh: &SimplexMesh<D>,
        space: P2Space<D>,
        nu: f64,
        dt: f64,
        boundary: BoundaryConditions<D>,
        initial: FlowField<D>,
        t0: f64,
    ) -> Result<Self, FluidError> {
        Self::with_method(mesh, space, (nu, dt), boundary, (initial, t0), SpdMethod::Auto)
    }

    /// [`new`](Self::new) with the constant matrices solved by `method`; `(nu, dt)` the kinematic
    /// viscosity and the time step, `(initial, t0)` the start.
    pub fn with_method(
        mesh: &SimplexMesh<D>,
        space: P2Space<D>,
        (nu, dt): (f64, f64),
        boundary: BoundaryConditions<D>,
        (initial, t0): (FlowField<D>, f64),
        method: SpdMethod,
    ) -> Result<Self, FluidError> {
        let start = Instant::now();
        boundary.check(mesh)?;
        if !(dt > 0.0 && dt.is_finite() && nu > 0.0 && nu.is_finite()) {
            return Err(FluidError::Solve(format!(
                "the time step and the kinematic viscosity must be positive, got Δt = {dt}, ν = {nu}"
            )));
        }
        let (n2, n1) = (space.len(), space.vertices);
        if initial.velocity.len() != n2 || initial.pressure.len() != n1 {
            return Err(FluidError::Solve(format!(
                "the initial flow has {} velocities and {} pressures, the mesh needs {n2} and {n1}",
                initial.velocity.len(),
                initial.pressure.len()
            )));
        }
        let (mass2, stiffness2, divergence, mass1, stiffness1) = assemble_constant(mesh, &space);
        let fixed = boundary.velocity_dofs(mesh, &space)?;
        let velocity = Csr::combine(1.5 / dt, &mass2, nu, &stiffness2);
        let factor = |m: &Csr, prescribed: &[bool], columns: usize, coarse: Option<&Csr>| {
            SpdSolver::with_method(m, prescribed, (columns, D == 3), method, coarse).map_err(FluidError::from)
        };
        let p1 = (method != SpdMethod::Direct).then(|| space.p1_prolongation());
        let velocity_solver = factor(&velocity, fixed.is_fixed(), D, p1.as_ref())?;
        drop(p1);
        let phi_fixed = boundary.correction_pins(mesh, &space);
        let mut pressure_load = vec![0.0; D * n2];
        boundary.add_pressure_load(mesh, &space, &mut pressure_load);
        let poisson_solver = factor(&stiffness1, &phi_fixed, 1, None)?;
        let mass1_solver = factor(&mass1, &vec![false; n1], 1, None)?;
        let seconds = StepSeconds {
            setup: start.elapsed().as_secs_f64(),
            ..StepSeconds::default()
        };
        Ok(Unsteady {
            space,
            nu,
            dt,
            mass2,
            divergence,
            velocity_matrix: velocity,
            velocity_solver,
            poisson_solver,
            mass1_solver,
            fixed,
            convection: Convection::Extrapolated,
            characteristics: None,
            monolithic: None,
            projection: None,
            pressure_passes: 1,
            phi_fixed,
            pressure_load,
            boundary,
            previous: initial.velocity.clone(),
            older: initial.velocity.clone(),
            phi: vec![0.0; n1],
            phi_previous: vec![0.0; n1],
            work: Work::new(n2, n1, mesh.num_cells()),
            flow: initial,
            time: t0,
            start: t0,
            steps: 0,
            constraint_solves: 0,
            seconds,
        })
    }

    /// How the velocity, pressure-correction and P1 mass systems are solved (`"cholesky"` or
    /// `"amg-cg"` each).
    pub fn solvers(&self) -> Solvers {
        Solvers {
            velocity: self.velocity_solver.name(),
            pressure: self.poisson_solver.name(),
            mass: self.mass1_solver.name(),
        }
    }

    /// The conjugate-gradient iterations of the last solve of the velocity, pressure-correction
    /// and P1 mass systems (zero for those factored).
    pub fn iterations(&self) -> (usize, usize, usize) {
        (
            self.velocity_solver.last_iterations(),
            self.poisson_solver.last_iterations(),
            self.mass1_solver.last_iterations(),
        )
    }

    /// The P2 space.
    pub fn space(&self) -> &P2Space<D> {
        &self.space
    }

    /// The time step.
    pub fn time_step(&self) -> f64 {
        self.dt
    }

    /// The measure `∫ φ_k` of each velocity dof's basis function (the P2 mass matrix's row sums:
    /// zero at the vertices in 2D, negative there in 3D), so that `Σ_k ∫φ_k u_k` is the momentum
    /// of a field over the density.
    pub fn dof_measures(&self) -> Vec<f64> {
        (0..self.mass2.rows())
            .map(|r| self.mass2.row(r).1.iter().sum())
            .collect()
    }

    /// The kinematic viscosity `ν = μ/ρ`.
    pub fn kinematic_viscosity(&self) -> f64 {
        self.nu
    }

    /// How the steps treat convection ([`Convection::Extrapolated`] unless set).
    pub fn set_convection(&mut self, convection: Convection) {
        self.convection = convection;
    }

    /// Sets the passes of a pressure-correction step (1 unless set; at least 1): each pass
    /// solves the velocity under the pressure the last one left, applies the constraint at the
    /// step's pose ([`Self::step_constrained`]; the bodies move after the last) and corrects the
    /// pressure, the passes' pressures combined by Anderson's mixing ([`mixing`]). One pass is
    /// one Uzawa iteration a step for the step's Stokes problem: enough where the step is short
    /// against the viscous time of a cell, while in creeping flow (`ν Δt/h² ≫ 1`) the pressure
    /// then trails the geometry by about 1.5 steps (docs/theory.md). Cost: a step's solves and
    /// constraint iterations, times the passes.
    pub fn set_pressure_passes(&mut self, passes: usize) {
        self.pressure_passes = passes.max(1);
    }

    /// The passes of a pressure-correction step ([`Self::set_pressure_passes`]).
    pub fn pressure_passes(&self) -> usize {
        self.pressure_passes
    }

    /// How the steps couple velocity and pressure.
    pub fn scheme(&self) -> Scheme {
        match (&self.monolithic, &self.projection) {
            (Some(_), _) => Scheme::Monolithic,
            (None, Some(_)) => Scheme::ProjectedCorrection,
            (None, None) => Scheme::PressureCorrection,
        }
    }

    /// How the steps couple velocity and pressure ([`Scheme::PressureCorrection`] unless set);
    /// [`Scheme::Monolithic`] builds and factorises its matrix here, [`Scheme::ProjectedCorrection`]
    /// the velocity mass matrix (by the velocity solver's method). `Err` names what the
    /// factorisation refused.
    pub fn set_scheme(&mut self, scheme: Scheme) -> Result<(), FluidError> {
        let start = Instant::now();
        (self.monolithic, self.projection) = match scheme {
            Scheme::PressureCorrection => (None, None),
            Scheme::ProjectedCorrection => {
                let method = match self.velocity_solver {
                    SpdSolver::Direct(_) => SpdMethod::Direct,
                    SpdSolver::Iterative(_) => SpdMethod::Iterative,
                };
                let mass = SpdSolver::with_method(&self.mass2, self.fixed.is_fixed(), (D, D == 3), method, None)?;
                (None, Some(mass))
            }
            Scheme::Monolithic => {
                let system = MonolithicSystem::new::<D>(
                    &self.velocity_matrix,
                    &self.divergence,
                    self.fixed.is_fixed(),
                    self.boundary.pressure_pin(),
                    lu_par(D),
                )?;
                let size = D * self.space.len() + self.flow.pressure.len();
                (Some((system, vec![0.0; size], vec![0.0; size])), None)
            }
        };
        self.seconds.setup += start.elapsed().as_secs_f64();
        Ok(())
    }

    /// The current velocity at every P2 dof, the positions of the dofs and whether each carries a
    /// velocity condition, for a constraint applied between steps (the rigid bodies' projection,
    /// [`crate::sim::Immersed`]): the changed velocity is the one the next step starts from and the
    /// one [`Self::acceleration`] differentiates. Dofs with a condition must keep their values.
    pub fn velocity_mut(&mut self) -> (&mut [Vector<D>], &[Point<D>], &[bool]) {
        (&mut self.flow.velocity, self.space.coordinates(), self.fixed.is_fixed())
    }

    /// Adds `c` to the velocity now and in the history (`u^k`, `u^{k−1}`, `u^{k−2}`) at every
    /// dof: the flow seen from a frame that starts moving at `−c` relative to this one (a
    /// Galilean change, under which the equations hold unchanged; [`crate::sim::Following`]).
    pub fn shift(&mut self, c: &Vector<D>) {
        for u in self
            .flow
            .velocity
            .iter_mut()
            .chain(self.previous.iter_mut())
            .chain(self.older.iter_mut())
        {
            *u += c;
        }
    }

    /// The velocity a step back, `ũ^{k−1}`, at every P2 dof.
    pub fn previous_velocity(&self) -> &[Vector<D>] {
        &self.previous
    }

    /// `∂u/∂t` now, at every P2 dof, into `out`, by the scheme's own formula: BDF2
    /// `(3u^{k+1} − 4u^k + u^{k−1})/(2Δt)`, backward Euler after the first step, zero before it
    /// (for the force on a boundary, [`super::BoundaryForce`]).
    pub fn acceleration(&self, out: &mut [Vector<D>]) {
        let dt = self.dt;
        let u = &self.flow.velocity;
        for (k, a) in out.iter_mut().enumerate() {
            *a = match self.steps {
                0 => Vector::<D>::zeros(),
                1 => (u[k] - self.previous[k]) / dt,
                _ => (u[k] * 3.0 - self.previous[k] * 4.0 + self.older[k]) / (2.0 * dt),
            };
        }
    }

    /// Advances one step under the body force `f(x, t)`; an error names the step and the field
    /// if the solution stops being finite.
    pub fn step(&mut self, mesh: &SimplexMesh<D>, f: TimeField<D>) -> Result<(), FluidError> {
        let none = Carried {
            dofs: &[],
            loads: &[],
            previous: &[],
        };
        self.advance(mesh, f, none, None)
    }

    /// [`Self::step`] for a flow carrying rigid bodies: the loads on the `carried` dofs are added
    /// to the velocity step's right-hand side, their history is their own (see [`Carried`]), and
    /// a constraint is applied to the new velocity `ũ^{k+1}` between the velocity
    /// solve and the pressure correction: `constrain(space, velocity, prescribed, response)` may
    /// change the velocity of dofs without a velocity condition, using `response` to add
    /// responses of the velocity operator to loads (the rigid bodies' constraint,
    /// [`crate::sim::Immersed`]); the correction then sees the divergence of the changed field.
    /// An error with [`Scheme::Monolithic`], which has no step between the two.
    pub fn step_constrained(
        &mut self,
        mesh: &SimplexMesh<D>,
        f: TimeField<D>,
        carried: Carried<'_, D>,
        constrain: &mut Constraint<'_, D>,
    ) -> Result<(), FluidError> {
        if self.monolithic.is_some() {
            return Err(FluidError::Solve(
                "the monolithic scheme solves velocity and pressure together: it has no place for a constraint \
                 between them; use the pressure correction"
                    .into(),
            ));
        }
        self.advance(mesh, f, carried, Some(constrain))
    }

    /// One step, with the constraint (pressure correction only) if there is one.
    fn advance(
        &mut self,
        mesh: &SimplexMesh<D>,
        f: TimeField<D>,
        carried: Carried<'_, D>,
        constrain: Option<&mut Constraint<'_, D>>,
    ) -> Result<(), FluidError> {
        let start = Instant::now();
        let (n2, dt) = (self.space.len(), self.dt);
        // From the start time, not by accumulation: `t` stays a round number of steps.
        let t = self.start + (self.steps + 1) as f64 * dt;
        let w = &mut self.work;
        let current = &self.flow.velocity;
        for ((e, u), v) in w.extrapolated.iter_mut().zip(current).zip(&self.previous) {
            *e = u * 2.0 - v;
        }
        for (&k, v) in carried.dofs.iter().zip(carried.previous) {
            w.extrapolated[k as usize] = current[k as usize] * 2.0 - v;
        }
        // Force minus convection, tested with every P2 function, component-major.
        load(
            &self.space,
            mesh,
            f,
            t,
            &w.extrapolated,
            self.convection == Convection::Extrapolated,
            &mut w.cell_load,
        );
        // The history at the nodes, or at the feet of the characteristics.
        let (history, older) = if self.convection == Convection::Characteristics {
            let transport = self
                .characteristics
                .get_or_insert_with(|| Characteristics::new(mesh, &self.space));
            transport.transport(mesh, &self.space, current, &self.previous, dt)
        } else {
            (current.as_slice(), self.previous.as_slice())
        };
        w.load.copy_from_slice(&self.pressure_load);
        for (c, local) in w.cell_load.iter().enumerate() {
            for (&dof, value) in self.space.dofs(c as u32).iter().zip(local) {
                for d in 0..D {
                    w.load[d * n2 + dof as usize] += value[d];
                }
            }
        }
        // The right-hand side less the pressure's gradient, component-major: the force, the
        // BDF2 history and the carried dofs' loads.
        for d in 0..D {
            for (k, h) in w.history.iter_mut().enumerate() {
                *h = (4.0 * history[k][d] - older[k][d]) / (2.0 * dt);
            }
            for (&k, v) in carried.dofs.iter().zip(carried.previous) {
                w.history[k as usize] = (4.0 * current[k as usize][d] - v[d]) / (2.0 * dt);
            }
            self.mass2.mul(&w.history, &mut w.product);
            for (l, p) in w.load[d * n2..(d + 1) * n2].iter_mut().zip(&w.product) {
                *l += p;
            }
        }
        for (&k, l) in carried.dofs.iter().zip(carried.loads) {
            for d in 0..D {
                w.load[d * n2 + k as usize] += l[d];
            }
        }
        self.seconds.assembly += start.elapsed().as_secs_f64();

        let start = Instant::now();
        if let Some((system, rhs, x)) = &mut self.monolithic {
            rhs[..D * n2].copy_from_slice(&w.load);
            self.boundary.prescribe(mesh, &self.space, &self.fixed, t, |k, value| {
                for d in 0..D {
                    rhs[d * n2 + k] = value[d];
                }
            })?;
            rhs[D * n2..].fill(0.0);
            let residual = system.solve(rhs, x);
            if residual > COUPLED_RESIDUAL {
                return Err(FluidError::Solve(format!(
                    "the monolithic system of step {} (t = {}) was solved to a relative residual of {residual:.1e} only: \
                     its factorisation is too inaccurate (a time step too large for the mesh?)",
                    self.steps + 1,
                    crate::math::shown(t)
                )));
            }
            if let Some(k) = x.iter().position(|v| !v.is_finite()) {
                return Err(FluidError::NotFinite(format!(
                    "the {} is not finite at {} {} after step {} (t = {}): the time step is too large for the flow (CFL)",
                    if k < D * n2 { "velocity" } else { "pressure" },
                    if k < D * n2 { "dof" } else { "node" },
                    if k < D * n2 { k % n2 } else { k - D * n2 },
                    self.steps + 1,
                    crate::math::shown(t)
                )));
            }
            std::mem::swap(&mut self.older, &mut self.previous);
            std::mem::swap(&mut self.previous, &mut self.flow.velocity);
            for (k, u) in self.flow.velocity.iter_mut().enumerate() {
                *u = Vector::<D>::from_fn(|d, _| x[d * n2 + k]);
            }
            self.flow.pressure.copy_from_slice(&x[D * n2..]);
            self.seconds.solve += start.elapsed().as_secs_f64();
            self.time = t;
            self.steps += 1;
            return Ok(());
        }
        self.correct(mesh, t, constrain, start)?;
        self.time = t;
        self.steps += 1;
        Ok(())
    }
}
