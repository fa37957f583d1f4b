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
//!    and, with one body sub-step, the contact force and torque at the step's start (over `ρ_f`)
//!    on its dofs, in equal shares plus the couple that keeps their moment about the centre of
//!    mass. Loading the contact there, not after the solve, makes the fluid's added mass and
//!    drag answer it in the same step: applied after the solve, a pair force at the
//!    specification's case 4.2.3 (`cases/two_disks_floor.toml`, density ratio 1.01) moved the
//!    disks sideways 23 % faster than a body-fitted host at `h = 0.01` (`hosts/`), 2 % with it.
//!    A contact stiff enough to need sub-steps stays explicit in them: loaded from the step's
//!    start, the falling tripole went through the floor. The multipliers `μ` are internal
//!    forces (no net force or torque on any body): with `Π` the least-squares fit of a rigid
//!    motion to the values on each `C_i`, they solve `(I − Π) Eᵀ A⁻¹ E μ = −(I − Π) Eᵀ ũ₀`
//!    (`ũ₀` the solution without them) by restarted GMRES, one velocity solve per iteration,
//!    preconditioned by `(I − Π) A_CC (I − Π)`. With
//!    [`BodyBoundary::Surface`] the rows of the dofs near the surface read the fluid at image
//!    points instead (`B` in place of `Eᵀ`, `Ghost`), and the system is not symmetric. The last
//!    step's multipliers, carried to the dofs the bodies hold now, ride in the right-hand side (a
//!    warm start: the iterations solve for their change), and while few bodies are constrained
//!    an iteration's solve visits only the factor's columns that reach their dofs
//!    ([`crate::fluid::Response::solve_at`]; a 2D factor's, on the iterative path a whole solve). Holding
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
//!    each, `F_h`, `T_h` held), then `G ← G + δ U`, `R ← exp(δ ω) R`. `F_h` and `T_h` leave out
//!    the loaded contact of the step's start, which then cancels.
//! 3. **Rigidity projection** at the new pose: the dofs inside each body take its velocity.
//!    The dofs a body has just captured (ahead of it) were fluid, slower than the body: setting
//!    them to its velocity gives the fluid the momentum `ρ_f Σ_k ∫φ_k (U(x_k) − u_k)` that no
//!    force paid for. With [`BodyBoundary::Nodes`] it is charged to the body at the next step
//!    (`F_h` and `T_h` less it over `Δt`), so that the projection conserves momentum. Without the
//!    charge the drag of a body moved at a prescribed speed did not converge with `Δt`
//!    (Re 17 disk at `h = d/10`, `Δt` 2e-3 to 2.5e-4: 11.91, 11.95, 11.99, 12.01 dyn; with it
//!    12.72, 12.62, 12.57, 12.54, first order), and the Re 17 disk settled 5.9 % too fast at
//!    `h = d/10` (Re_max 18.32; with the charge 17.40–17.48 for `Δt` 1e-3 to 2.5e-4, and 17.39–17.43
//!    at `d/20`; published 17.3–17.42).
//!    It is a staircase's error: it vanishes with `h`, not with `Δt`. With ghosts
//!    ([`BodyBoundary::Surface`]) the captured dofs hold the fluid continued into the body, and
//!    charging their change made the speeds diverge with `Δt` (5.51, 5.70, 5.81 for `Δt` 2e-3 to
//!    5e-4), so it is not charged there.
//!
//! With one sub-step, step 2 reads `ρ_s U' = ρ_f U_f + (ρ_s − ρ_f) U`: the fluid's part of the
//! body moves as the fluid solve says (its weight, the contact, added mass and drag are
//! implicit, inside the solve) and the excess mass keeps its momentum. Both weights are positive
//! for `ρ_s ≥ ρ_f`, so the scheme has no density-ratio limit there; at `ρ_s = ρ_f` the body takes
//! the fluid's rigid motion (a neutrally buoyant body in fluid at rest stays at rest exactly),
//! unlike explicit immersed-boundary couplings that fail below `ρ_s/ρ_f ≈ 1.2`. Gravity on the
//! fluid is balanced by a hydrostatic pressure: the fluid gets no body force, the pressure written
//! out is the dynamic one, and the bodies get the buoyancy-corrected weight.

use super::{PointGrid, SimError, Simulation, SimulationState, StateError};
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::fluid::space::{p2_count, p2_values};
use crate::fluid::{Carried, P2Space, Response, Unsteady, UnsteadyState};
use crate::linalg::{restarted_gmres, Csr, Patch, Reach};
use crate::math::{flatten, unflatten_into, Point, Vector};
use crate::mesh::{CellPoint, SimplexMesh};
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
    /// Where the bodies hold the fluid ([`BodyBoundary`]).
    pub boundary: BodyBoundary,
    /// Relative tolerance of the multipliers' iterations: the root mean square of the
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
            boundary: BodyBoundary::Nodes,
            substeps: 0,
            tolerance: 1e-5,
        }
    }
}

/// How the fluid sees a body's boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BodyBoundary {
    /// The velocity dofs inside the body move with it (a staircase of dofs): robust at any
    /// Reynolds number, first order in `h` (the body the fluid sees is smaller by a fraction of
    /// the dof spacing: Faxén's disk at `h = a/12.5` settles 0.9 % too fast).
    #[default]
    Nodes,
    /// The dofs within a cell of the surface are ghosts that hold the rigid motion at the
    /// surface point below them, by quadratic extrapolation along the normal from two image
    /// points in the fluid (`Ghost`); the deeper ones move with the body. The pressure at the
    /// ghost vertices is extrapolated from the fluid too, and held at the deeper ones (without it
    /// the pressure inside the body grew step after step), and the continuity equation is
    /// released at the body's vertices ([`crate::fluid::Response::release`]: with it the steady
    /// speed depended on `Δt`, by 1 % per halving). In Stokes flow: Faxén's disk +0.07 % at
    /// `h = a/3.1`, within 0.01 % from `a/6.25` on; a sphere in a container of four radii +6.7 %,
    /// +0.98 % and −0.19 % at four, six and eight mesh steps across (the nodes: +10.4 % at six),
    /// in one of two radii (a gap of three to five steps) +1.0 % at six and −2.5 % at eight.
    /// Where the mesh does not resolve the boundary layer (Re 500 at `h = d/20`) the
    /// extrapolation from beyond it under-estimates the drag (measured with the linear rows
    /// before the pressure's extrapolation: Re_max 645 against 440–500 published).
    Surface,
}

/// The body sub-steps per fluid step of length `dt` that keep each within a fifth of the contact's
/// `stable` time step ([`Simulation::stable_time_step`]); 1 without contact springs.
pub fn substeps_for(dt: f64, stable: f64) -> usize {
    if stable.is_finite() {
        ((dt / (0.2 * stable)).ceil() as usize).max(1)
    } else {
        1
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
    /// The momentum each body's last projection gave the dofs it captured, over `ρ_f`
    /// (charged at the next step), components body after body; empty in checkpoints written
    /// before it existed (read as zero).
    #[serde(default)]
    pub captured_momentum: Vec<f64>,
    /// The angular momentum likewise.
    #[serde(default)]
    pub captured_angular: Vec<f64>,
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

/// A constrained dof near its body's surface (within one cell of it): its row holds the rigid
/// motion not at the dof but at the surface point `x_s` closest to it, by quadratic
/// extrapolation along the normal `n` from two image points in the fluid, `x_s + δ n` and
/// `x_s + 2δ n`: with `t = −depth, δ, 2δ` the three points' abscissae along `n` (`depth =
/// |x_k − x_s|`), the row is the Lagrange interpolant's value at the surface,
/// `ℓ₀ u_k + ℓ₁ u_h(x_s + δ n) + ℓ₂ u_h(x_s + 2δ n) = U(x_s)`, `ℓ₀ = 2δ²/((δ + depth)(2δ + depth))`,
/// `ℓ₁ = 2 depth/(δ + depth)`, `ℓ₂ = −depth/(2δ + depth)`. Where the second point is outside
/// the mesh (a narrow gap to a wall) the row is linear, `w u_k + (1 − w) u_h(x_s + δ n) = U(x_s)`,
/// `w = δ/(δ + depth)`. `δ` is half the dof's spacing (the largest distance to another dof of
/// its cells), so that `x_s + δ n` lies in or next to the cells across the surface, and at
/// least the ghost's depth (`x_s + δ n` is then at least its mirror point, and `ℓ₀ ≥ 1/3`: a
/// deeper ghost read from closer points amplified the fluid's values up to six times, and Xia's
/// ellipse at `A/h = 12` went unstable). Linear from a whole spacing, the 3D sphere in a
/// container settled 5.4 % too fast at six mesh steps across; so, +0.98 % (the pressure's two
/// points at the same `δ` and `2δ`).
#[derive(Debug, Clone, Copy)]
struct Ghost<const D: usize> {
    /// Its position among the constrained dofs.
    row: u32,
    normal: Vector<D>,
    depth: f64,
    /// `δ`, the first image point's distance from the surface.
    reach: f64,
}

impl<const D: usize> Ghost<D> {
    /// The row's own weight and its image points' (`first` at `x_s + δ n`, `second` at
    /// `x_s + 2δ n` if inside the mesh).
    fn weights(&self, first: CellPoint, second: Option<CellPoint>) -> (f64, [Option<(CellPoint, f64)>; 2]) {
        let (d, r) = (self.depth, self.reach);
        match second {
            Some(second) => (
                2.0 * r * r / ((r + d) * (2.0 * r + d)),
                [Some((first, 2.0 * d / (r + d))), Some((second, -d / (2.0 * r + d)))],
            ),
            None => (r / (r + d), [Some((first, d / (r + d))), None]),
        }
    }
}

/// The ghosts and their rows `(position in the observed dofs, weight)`, ghost `i`'s in
/// `entries[start[i]..start[i + 1]]`, its own dof's first.
#[derive(Debug, Default)]
struct Rows<const D: usize> {
    list: Vec<Ghost<D>>,
    start: Vec<usize>,
    entries: Vec<(u32, f64)>,
}

impl<const D: usize> Rows<D> {
    /// `out = B v`: the rows' values from the values `v` at the observed dofs (a dof's own value,
    /// or a ghost's extrapolation to its surface point).
    fn apply(&self, v: &[Vector<D>], out: &mut [Vector<D>]) {
        out.copy_from_slice(&v[..out.len()]);
        for (g, w) in self.list.iter().zip(self.start.windows(2)) {
            out[g.row as usize] = self.entries[w[0]..w[1]]
                .iter()
                .fold(Vector::<D>::zeros(), |s, &(j, c)| s + v[j as usize] * c);
        }
    }

    /// `v[row] /= w` for each ghost: `W⁻¹ v`, with `W` the rows' own weights.
    fn unweight(&self, v: &mut [Vector<D>]) {
        for (g, &w) in self.list.iter().zip(&self.start) {
            v[g.row as usize] /= self.entries[w].1;
        }
    }
}

/// The ghost vertices' pressure rows at the current pose: vertex `vertex[i]` takes
/// `Σ w p_v` over `entries[start[i]..start[i + 1]]` (the linear extrapolation from the pressure's
/// P1 values in the image points' cells, [`Work::extrapolate_pressure`]).
#[derive(Debug, Default)]
struct PressureRows {
    vertex: Vec<u32>,
    start: Vec<usize>,
    entries: Vec<(u32, f64)>,
}

/// The vectors of the constraint's iterations, kept between steps: the residual and the
/// multipliers' change (flat, for GMRES), the loads and the response at the observed dofs, the
/// rows' values, and the preconditioner's input and output.
#[derive(Debug, Default)]
struct Scratch<const D: usize> {
    residual: Vec<f64>,
    change: Vec<f64>,
    load: Vec<Vector<D>>,
    values: Vec<Vector<D>>,
    rows: Vec<Vector<D>>,
    weighted: Vec<Vector<D>>,
    product: Vec<Vector<D>>,
}

/// GMRES restarts after this many iterations (memory `2 (RESTART + 1)` vectors of the rows).
const RESTART: usize = 40;

/// The most Gauss–Seidel sweeps that set the ghosts' values from their rows
/// ([`Work::extrapolate`], [`Work::extrapolate_pressure`]); they stop earlier when a sweep changes
/// no value by more than `SWEPT` of the largest. An image point half a spacing from the surface
/// often lies in a cell with other ghosts: two sweeps left the rows unsatisfied, and Xia's
/// ellipse (`cases/xia_ellipse.toml`) went unstable within 0.4 s; 20 kept it on its course.
const SWEEPS: usize = 50;

/// The relative change at which the ghosts' sweeps stop.
const SWEPT: f64 = 1e-12;

/// The most iterations of one step's constraint.
const MAX_ITERATIONS: usize = 500;

/// On the iterative path, the patch on which the iterations take the response spans this many
/// layers of the velocity matrix's graph around the observed dofs.
const PATCH_LAYERS: usize = 4;

/// The relative residual of the patch's solves.
const PATCH_TOLERANCE: f64 = 1e-8;

/// On the iterative path, the most rounds of iterations, each followed by a whole solve of the
/// multipliers' change and a check of the true defect; all but the last on the patch.
const MAX_ROUNDS: usize = 6;

/// The constrained dofs, their rows, and the solver's vectors, kept between steps.
#[derive(Debug, Default)]
struct Work<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    /// The constrained dofs, body after body.
    dofs: Vec<u32>,
    /// Each body's, with the body's distance there, found in parallel (kept to reuse their
    /// storage).
    inside: Vec<Vec<(u32, f64)>>,
    /// Their positions.
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
    cell_of: Vec<u32>,
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
    /// The factor's columns that a solve at the observed dofs visits.
    reach: Reach,
    /// On the iterative path, the dofs around the observed ones on which the iterations take the
    /// response ([`Patch`]).
    patch: Patch,
    /// `A_CC`, the velocity operator on the constrained dofs (the preconditioner).
    block: Csr,
    /// The last solve's iterations.
    iterations: usize,
    /// The multipliers by velocity dof while the constrained set changes (zero elsewhere), and
    /// the set they were on.
    by_dof: Vec<Vector<D>>,
    held: Vec<u32>,
    /// `∫ φ_k` of each velocity dof (with [`BodyBoundary::Nodes`]; empty with ghosts): the
    /// measure that turns the projection's velocity changes into momentum ([`Self::capture`]).
    measure: Vec<f64>,
    /// Marks the dofs of `held` while [`Self::capture`] looks for the ones just captured.
    was_held: Vec<bool>,
    /// Each ghost's rigid velocity at its surface point while [`Self::extrapolate`] sweeps.
    rigid: Vec<Vector<D>>,
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
            0 => substeps_for(fluid.time_step(), bodies.stable_time_step()),
            n => n,
        };
        let n = bodies.bodies.len();
        let measure = match options.boundary {
            BodyBoundary::Nodes => fluid.dof_measures(),
            BodyBoundary::Surface => Vec::new(),
        };
        let work = Work::new(fluid.space(), options.boundary, measure);
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
        let (momentum, captured_angular): (Vec<_>, Vec<_>) = self.captured.iter().copied().unzip();
        ImmersedState {
            bodies: self.bodies.state(),
            fluid: self.fluid.state(),
            substeps: self.substeps,
            hydro_force: flatten(&self.hydro_force),
            hydro_torque: angular(&self.hydro_torque),
            before_velocity: flatten(&velocity),
            before_spin: angular(&spin),
            captured_momentum: flatten(&momentum),
            captured_angular: angular(&captured_angular),
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
        let n = state.bodies.bodies.len();
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
        let mut momentum = vec![Vector::<D>::zeros(); n];
        let captured_angular = if state.captured_angular.is_empty() {
            Some(vec![<Dim<D> as Kinematics<D>>::zero(); n])
        } else {
            angular(&state.captured_angular)
        };
        let (true, true, true, Some(hydro_torque), Some(spin), Some(captured_angular)) = (
            unflatten_into(&state.hydro_force, &mut hydro_force),
            unflatten_into(&state.before_velocity, &mut velocity),
            state.captured_momentum.is_empty() || unflatten_into(&state.captured_momentum, &mut momentum),
            angular(&state.hydro_torque),
            angular(&state.before_spin),
            captured_angular,
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
        self.captured = momentum.into_iter().zip(captured_angular).collect();
        self.iterations = state.iterations;
        self.seconds = state.seconds;
        Ok(())
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
        work.capture(velocity, &self.bodies.bodies, &mut gained);
        self.captured.extend_from_slice(&gained[old..]);
        work.project(velocity, &self.bodies.bodies);
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
            loaded_contact,
            load_dofs,
            shares,
            before,
            carried_previous,
            captured,
        } = self;
        let (dt, time) = (fluid.time_step(), fluid.time + fluid.time_step());
        let (mut constraint, mut motion) = (0.0, 0.0);
        let zero = |_: &Point<D>, _: f64| Vector::<D>::zeros();
        // The contact of the step's start goes into the solve with the weight when one sub-step
        // resolves it; a stiffer contact, sub-stepped, changes too much within the step for its
        // start to stand for it (a tripole hitting the floor went through it), and stays explicit.
        let implicit_contact = *substeps == 1;
        if implicit_contact {
            bodies.contact_forces()?;
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
        // Warm start: the last step's multipliers ride in the right-hand side, and the conjugate
        // gradients only solve for their change.
        for (s, m) in shares.iter_mut().zip(&work.multiplier) {
            *s += m;
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
        fluid.step_constrained(mesh, &zero, carried, &mut |space, velocity, prescribed, response| {
            let begin = Instant::now();
            *iterations += work.constrain(mesh, space, velocity, response, options.tolerance);
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
                work.capture(velocity, &bodies.bodies, captured);
                work.project(velocity, &bodies.bodies);
                // Inside a body the rows set the divergence: its vertices' continuity is released,
                // or the pressure correction would carry what they leave into the fluid.
                if !work.ghosts.list.is_empty() {
                    response.release(work.dofs.iter().copied().filter(|&k| (k as usize) < space.vertices));
                }
            }
            constraint += begin.elapsed().as_secs_f64();
        })?;
        if outcome.is_ok() && work.stencil_ready {
            // Only where a body still is: a vertex it has left is fluid again and keeps its
            // corrected pressure (restoring the held value there while `φ` keeps its increment
            // made the pressure jump by `φ ~ 1/Δt` at every vertex the body uncovered).
            for &(k, p) in &work.held_pressure {
                if work.slot[k as usize] != u32::MAX {
                    fluid.flow.pressure[k as usize] = p;
                }
            }
            work.extrapolate_pressure(&mut fluid.flow.pressure);
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
    /// The work of `space`: each dof's spacing and one of its cells; ghosts if `boundary` is
    /// [`BodyBoundary::Surface`]; `measure`, each dof's `∫ φ_k` (empty with ghosts).
    fn new(space: &P2Space<D>, boundary: BodyBoundary, measure: Vec<f64>) -> Self {
        let surface = boundary == BodyBoundary::Surface;
        let position = space.coordinates();
        let n = if surface { space.len() } else { 0 };
        let (mut spacing, mut cell_of) = (vec![0.0f64; n], vec![0u32; n]);
        for (c, dofs) in space
            .cell_dofs
            .chunks_exact(p2_count(D))
            .enumerate()
            .filter(|_| surface)
        {
            for &k in dofs {
                let far = dofs
                    .iter()
                    .map(|&j| (position[j as usize] - position[k as usize]).norm())
                    .fold(0.0, f64::max);
                spacing[k as usize] = spacing[k as usize].max(far);
                cell_of[k as usize] = c as u32;
            }
        }
        Work {
            spacing,
            cell_of,
            measure,
            ..Work::default()
        }
    }

    /// The free dofs inside each body at its current pose, and which of them are ghosts.
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
        self.stencil_ready = false;
        self.dofs.clear();
        self.points.clear();
        self.targets.clear();
        self.ghosts.list.clear();
        self.ranges.clear();
        self.ranges.push(0);
        self.inside.resize_with(bodies.len(), Vec::new);
        self.inside.par_iter_mut().zip(bodies).for_each(|(inside, b)| {
            inside.clear();
            grid.for_each_within(&b.position, b.geometry.radius, |k| {
                if !prescribed[k as usize] {
                    let d = b.distance(&position[k as usize]);
                    if d <= 0.0 {
                        inside.push((k, d));
                    }
                }
            });
            inside.sort_unstable_by_key(|&(k, _)| k);
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
            for &(k, d) in inside {
                let x = position[k as usize];
                let mut target = x;
                let spacing = self.spacing.get(k as usize).copied().unwrap_or(0.0);
                if d > -spacing {
                    if let Some((s, normal)) = b.surface_point(&x) {
                        target = s;
                        let depth = (x - s).norm();
                        self.ghosts.list.push(Ghost {
                            row: self.dofs.len() as u32,
                            normal,
                            depth,
                            reach: (0.5 * spacing).max(depth),
                        });
                    }
                }
                self.dofs.push(k);
                self.points.push(x);
                self.targets.push(target);
            }
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
        remove_rigid(&self.ranges, &self.points, &self.frames, &mut multiplier);
        self.multiplier = multiplier;
        for &k in &self.held {
            self.by_dof[k as usize] = Vector::<D>::zeros();
        }
        Ok(())
    }

    /// The ghosts' rows at the current pose: each image point located in the mesh and its cell's
    /// P2 values; `observed` gets the dofs they read. A ghost whose image point is outside the
    /// mesh holds the rigid motion at its own position.
    fn stencil(&mut self, mesh: &SimplexMesh<D>, space: &P2Space<D>) {
        let m = self.dofs.len();
        self.observed.clear();
        self.observed.extend_from_slice(&self.dofs);
        let rows = &mut self.ghosts;
        rows.start.clear();
        rows.start.push(0);
        rows.entries.clear();
        for g in &rows.list {
            let row = g.row as usize;
            let k = self.dofs[row];
            let locate =
                |reach: f64| mesh.locate_from(&(self.targets[row] + g.normal * reach), self.cell_of[k as usize]);
            match (locate(g.reach), locate(2.0 * g.reach)) {
                (Some(first), second) => {
                    let (own, images) = g.weights(first, second);
                    rows.entries.push((g.row, own));
                    for (at, c) in images.into_iter().flatten() {
                        for (&j, v) in space.dofs(at.cell).iter().zip(p2_values::<D>(&at.weights)) {
                            if self.slot[j as usize] == u32::MAX {
                                self.slot[j as usize] = self.observed.len() as u32;
                                self.observed.push(j);
                            }
                            rows.entries.push((self.slot[j as usize], c * v));
                        }
                    }
                }
                (None, _) => {
                    rows.entries.push((g.row, 1.0));
                    self.targets[row] = self.points[row];
                }
            }
            rows.start.push(rows.entries.len());
        }
        for &j in &self.observed[m..] {
            self.slot[j as usize] = u32::MAX;
        }
        self.pressure_stencil(mesh, space.vertices);
        self.target_frames.clear();
        for w in self.ranges.windows(2) {
            self.target_frames.push(Frame::new(&self.targets[w[0]..w[1]]));
        }
        self.stencil_ready = true;
    }

    /// Shares each body's load `loads[i] = (G, F, T)` (a force over `ρ_f` applied at `G`, and a
    /// torque over `ρ_f`) among its dofs, into `shares`: equal parts plus the couple that keeps
    /// the load's moment about the dofs' centroid (which is not exactly `G`).
    fn share(&self, loads: &[(Point<D>, Vector<D>, Angular<D>)], shares: &mut Vec<Vector<D>>) {
        shares.resize(self.dofs.len(), Vector::<D>::zeros());
        for (body, (w, (centre, load, torque))) in self.ranges.windows(2).zip(loads).enumerate() {
            let points = &self.points[w[0]..w[1]];
            let Frame { centre: mean, second } = self.frames[body];
            let moment = <Dim<D> as Kinematics<D>>::torque(&(centre - mean), load) + *torque;
            let spin = <Dim<D> as Kinematics<D>>::inertia_solve(&second, &moment);
            let share = load / points.len() as f64;
            for (d, p) in shares[w[0]..w[1]].iter_mut().zip(points) {
                *d = share + <Dim<D> as Kinematics<D>>::spin(&spin, &(p - mean));
            }
        }
    }

    /// Makes the velocity rigid on the rows (each body's rows take one rigid motion) by GMRES
    /// on the internal multipliers `μ` (no net force or torque on any body),
    /// `(I − Π_t) B A⁻¹ E μ = −(I − Π_t) B ũ₀`, right-preconditioned by `(I − Π) A_CC W⁻¹`
    /// (`W` the rows' own weights; the operator restricted to the constrained dofs approximates
    /// the inverse of `(A⁻¹)_CC`), until the rms of the rows' defect is below `tolerance` times
    /// the largest velocity; returns the iterations. `Π_t` removes each body's rigid fit at the
    /// targets, `Π` at the dofs. The system is not symmetric (`B ≠ Eᵀ` at the ghosts), hence
    /// GMRES, restarted every [`RESTART`] iterations.
    ///
    /// An iteration needs the response at the observed dofs only: a solve restricted to the
    /// factor's columns on their paths in the elimination tree ([`Response::solve_at`]), a share
    /// `s` of the factor ([`Reach::share`]; about 0.16 for one small body in the middle of the
    /// benchmark's box, 0.53 for 25, 0.86 for 1 000), which costs about `s` of a full solve
    /// (measured 0.55 against 3.7 ms at `s` = 0.16). The iterations are restricted when
    /// `k s < k − 1`, with `k` the last step's iterations; the velocity everywhere then takes
    /// one full solve of the multipliers' change at the end.
    ///
    /// Without a simplicial factor (3D: a supernodal factor or the iterative path) the iterations
    /// take the response on a [`Patch`], the free dofs within [`PATCH_LAYERS`] layers of the
    /// velocity matrix's graph around the observed ones, held at zero beyond (the mass term
    /// makes `A⁻¹` decay within a few cells); a whole solve of the change follows, and the true
    /// defect is checked: if above the goal, another round, the last of [`MAX_ROUNDS`] on whole
    /// solves. On `cases/settling_ellipsoid_3d.toml` (137 000 velocity unknowns, `ν Δt/h²` =
    /// 0.013) one round a step, the top speed the same to 2e-11, the constraint 3.5 times
    /// cheaper on the factor (2.8 s against 9.8 s for 50 steps) and 4.2 times on the iterative
    /// path (4.5 s against 18.7 s); with `ν` 100 and 1 000 times larger (`ν Δt/h²` = 1.3 and 13), one round
    /// and 1.6 rounds a step.
    fn constrain(
        &mut self,
        mesh: &SimplexMesh<D>,
        space: &P2Space<D>,
        velocity: &mut [Vector<D>],
        response: &mut Response<'_, D>,
        tolerance: f64,
    ) -> usize {
        if self.dofs.is_empty() {
            return 0;
        }
        if !self.stencil_ready {
            self.stencil(mesh, space);
        }
        let m = self.dofs.len();
        let expected = self.iterations.max(1) as f64;
        let reachable = response.reach(&self.observed, &mut self.reach);
        let restricted = reachable && self.reach.share() < 1.0 - 1.0 / expected;
        response.restrict(&self.dofs, &self.slot, &mut self.block);
        let Work {
            dofs,
            observed,
            ghosts,
            ranges,
            points,
            targets,
            frames,
            target_frames,
            block,
            reach,
            scratch,
            response: full,
            multiplier,
            patch,
            ..
        } = self;
        let Scratch {
            residual,
            change,
            load,
            values,
            rows,
            weighted,
            product,
        } = scratch;
        let local = !reachable;
        if local {
            response.patch(observed, PATCH_LAYERS, patch);
        }
        let scale = velocity
            .iter()
            .map(|v| v.norm_squared())
            .fold(0.0, f64::max)
            .max(1e-300);
        let goal = tolerance * (scale * m as f64).sqrt();
        full.resize(velocity.len(), Vector::<D>::zeros());
        load.clear();
        load.resize(observed.len(), Vector::<D>::zeros());
        weighted.resize(m, Vector::<D>::zeros());
        product.resize(m, Vector::<D>::zeros());
        let mut iterations = 0;
        for round in 0..if local { MAX_ROUNDS } else { 1 } {
            values.clear();
            values.extend(observed.iter().map(|&k| velocity[k as usize]));
            rows.resize(m, Vector::<D>::zeros());
            ghosts.apply(values, rows);
            remove_rigid(ranges, targets, target_frames, rows);
            residual.clear();
            residual.extend(rows.iter().flat_map(|v| v.iter().map(|x| -x)));
            if round > 0 && residual.iter().map(|x| x * x).sum::<f64>().sqrt() <= goal {
                break;
            }
            change.clear();
            change.resize(m * D, 0.0);
            // The last round, if it comes to that, iterates on whole solves.
            let on_patch = local && round + 1 < MAX_ROUNDS;
            let apply = |v: &[f64], out: &mut [f64]| {
                for (l, c) in load.iter_mut().zip(v.chunks_exact(D)) {
                    *l = Vector::<D>::from_column_slice(c);
                }
                if restricted {
                    response.solve_at(reach, observed, load, values);
                } else if on_patch {
                    patch.solve(observed, load, values, PATCH_TOLERANCE);
                } else {
                    response.solve(dofs, &load[..m], full);
                    for (g, &k) in values.iter_mut().zip(observed.iter()) {
                        *g = full[k as usize];
                    }
                }
                ghosts.apply(values, rows);
                remove_rigid(ranges, targets, target_frames, rows);
                for (o, r) in out.chunks_exact_mut(D).zip(rows.iter()) {
                    o.copy_from_slice(r.as_slice());
                }
            };
            let precondition = |v: &mut [f64]| {
                for (w, c) in weighted.iter_mut().zip(v.chunks_exact(D)) {
                    *w = Vector::<D>::from_column_slice(c);
                }
                ghosts.unweight(weighted);
                block.mul_vectors(weighted, product);
                remove_rigid(ranges, points, frames, product);
                for (o, p) in v.chunks_exact_mut(D).zip(product.iter()) {
                    o.copy_from_slice(p.as_slice());
                }
            };
            let (done, _) = restarted_gmres(apply, precondition, residual, change, goal, RESTART, MAX_ITERATIONS);
            iterations += done;
            if done == 0 {
                break;
            }
            for (l, c) in load.iter_mut().zip(change.chunks_exact(D)) {
                *l = Vector::<D>::from_column_slice(c);
            }
            response.solve(dofs, &load[..m], full);
            for (u, r) in velocity.iter_mut().zip(full.iter()) {
                *u += r;
            }
            for (m, c) in multiplier.iter_mut().zip(load.iter()) {
                *m += c;
            }
        }
        self.iterations = iterations;
        iterations
    }

    /// Each body's rigid fit of the rows' values, into `self.fits`.
    fn fit(&mut self, velocity: &[Vector<D>]) {
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

    /// The momentum and angular momentum (over `ρ_f`) that [`Self::project`] is about to give
    /// the dofs each body has just captured, `Σ_k ∫φ_k (U(x_k) − u_k)` and
    /// `Σ_k (x_k − G) × ∫φ_k (U(x_k) − u_k)` over the dofs it holds now and did not hold in
    /// the solve, into `out` (zero with ghosts, whose values are the fluid's continued).
    fn capture(&mut self, velocity: &[Vector<D>], bodies: &[RigidBody<D>], out: &mut [(Vector<D>, Angular<D>)]) {
        out.fill((Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero()));
        if self.measure.is_empty() {
            return;
        }
        self.was_held.resize(self.measure.len(), false);
        for &k in &self.held {
            self.was_held[k as usize] = true;
        }
        for ((b, w), (momentum, angular)) in bodies.iter().zip(self.ranges.windows(2)).zip(out.iter_mut()) {
            for (&k, p) in self.dofs[w[0]..w[1]].iter().zip(&self.points[w[0]..w[1]]) {
                if !self.was_held[k as usize] {
                    let gained = (b.point_velocity(p) - velocity[k as usize]) * self.measure[k as usize];
                    *momentum += gained;
                    *angular += <Dim<D> as Kinematics<D>>::torque(&(p - b.position), &gained);
                }
            }
        }
        for &k in &self.held {
            self.was_held[k as usize] = false;
        }
    }

    /// The constrained dofs take their body's velocity, and then, once the rows are built at
    /// this pose, each ghost the value its row extrapolates ([`Self::extrapolate`]).
    fn project(&mut self, velocity: &mut [Vector<D>], bodies: &[RigidBody<D>]) {
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

    /// Keeps the pressure at the vertices inside the bodies (restored after the step, before the
    /// ghosts' is extrapolated): their test functions see the cells whose divergence the rigid
    /// motion and the ghosts set, not incompressibility, so the pressure correction would add
    /// the same increment there step after step.
    fn hold_pressure(&mut self, vertices: usize, pressure: &[f64]) {
        self.held_pressure.clear();
        if self.ghosts.list.is_empty() {
            return;
        }
        self.held_pressure.extend(
            self.dofs
                .iter()
                .filter(|&&k| (k as usize) < vertices)
                .map(|&k| (k, pressure[k as usize])),
        );
    }

    /// The ghost vertices' pressure rows ([`PressureRows`]) at the current pose: the linear
    /// extrapolation along the normal from two points in the fluid, `x_s + δ n` and `x_s + 2δ n`,
    /// `p_k = p₁ + (p₁ − p₂) depth/δ`; where the second point is outside the mesh (a narrow gap
    /// to a wall), `p_k = p₁`; a ghost whose first point is outside has no row (it keeps its held
    /// value).
    fn pressure_stencil(&mut self, mesh: &SimplexMesh<D>, vertices: usize) {
        let rows = &mut self.pressure_rows;
        rows.vertex.clear();
        rows.start.clear();
        rows.start.push(0);
        rows.entries.clear();
        for g in &self.ghosts.list {
            let row = g.row as usize;
            let k = self.dofs[row];
            if k as usize >= vertices {
                continue;
            }
            let x_s = self.targets[row];
            let locate = |x: Point<D>| mesh.locate_from(&x, self.cell_of[k as usize]);
            let Some(first) = locate(x_s + g.normal * g.reach) else {
                continue;
            };
            let second = locate(x_s + g.normal * (2.0 * g.reach));
            let slope = if second.is_some() { g.depth / g.reach } else { 0.0 };
            for (at, scale) in [(Some(first), 1.0 + slope), (second, -slope)] {
                if let Some(at) = at {
                    let cell = mesh.cell(at.cell);
                    rows.entries
                        .extend(cell.iter().zip(&at.weights).map(|(&v, w)| (v, scale * w)));
                }
            }
            rows.vertex.push(k);
            rows.start.push(rows.entries.len());
        }
    }

    /// Sets the ghost vertices' pressure by their rows ([`Self::pressure_stencil`]), by
    /// Gauss–Seidel sweeps to convergence ([`SWEEPS`]; an image point's cell may hold another
    /// ghost). The cells across the surface then see the fluid's pressure continued into the
    /// body, not a value the pressure correction builds from the divergence the ghosts leave
    /// there (which grew without bound in a closed container: the sphere's speed drifted by
    /// −2.5 % over 120 steps).
    fn extrapolate_pressure(&self, pressure: &mut [f64]) {
        let rows = &self.pressure_rows;
        for _ in 0..SWEEPS {
            let (mut change, mut size) = (0.0f64, 0.0f64);
            for (&k, w) in rows.vertex.iter().zip(rows.start.windows(2)) {
                let p: f64 = rows.entries[w[0]..w[1]]
                    .iter()
                    .map(|&(v, c)| c * pressure[v as usize])
                    .sum();
                change = change.max((p - pressure[k as usize]).abs());
                size = size.max(p.abs());
                pressure[k as usize] = p;
            }
            if change <= SWEPT * size {
                break;
            }
        }
    }

    /// Sets each ghost's value in `values` (at the observed dofs) to what its row extrapolates
    /// from the others when its body moves with `rigid(body, x)`,
    /// `u_k = (U(x_s) − Σ_j b_j u_j)/w`, by Gauss–Seidel sweeps to convergence ([`SWEEPS`];
    /// ghosts read each other). The ghosts' history is made so (at the step's start and a step back, from the same rows):
    /// their BDF2 difference is then the change of the fluid's slip along the body, not a jump
    /// from a rigid value to an extrapolated one, whose inertia `(3/(2Δt)) M (u_k − U)` would
    /// brake the body.
    fn extrapolate(&mut self, values: &mut [Vector<D>], rigid: impl Fn(usize, &Point<D>) -> Vector<D>) {
        // The sweeps change only the fluid's part of each row: its rigid part is computed once.
        self.rigid.clear();
        self.rigid.extend(self.ghosts.list.iter().map(|g| {
            let row = g.row as usize;
            rigid(self.ranges.partition_point(|&r| r <= row) - 1, &self.targets[row])
        }));
        for _ in 0..SWEEPS {
            let (mut change, mut size) = (0.0f64, 0.0f64);
            for ((g, w), target) in self
                .ghosts
                .list
                .iter()
                .zip(self.ghosts.start.windows(2))
                .zip(&self.rigid)
            {
                let row = g.row as usize;
                let (own, rest) = (self.ghosts.entries[w[0]].1, &self.ghosts.entries[w[0] + 1..w[1]]);
                let read = rest
                    .iter()
                    .fold(Vector::<D>::zeros(), |s, &(j, c)| s + values[j as usize] * c);
                let u = (target - read) / own;
                change = change.max((u - values[row]).norm());
                size = size.max(u.norm());
                values[row] = u;
            }
            if change <= SWEPT * size {
                break;
            }
        }
    }
}

/// `v ← (I − Π) v` on each body's part `ranges[i]..ranges[i + 1]`: minus its rigid fit at
/// `points`, whose frames are `frames`.
fn remove_rigid<const D: usize>(ranges: &[usize], points: &[Point<D>], frames: &[Frame<D>], v: &mut [Vector<D>])
where
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

/// Step 2: the hydrodynamic forces from the fitted motions, then Newton–Euler over `substeps`.
/// The fitted motions answer the weight and, with one sub-step, the contact force of the step's
/// start (`loaded`, in the solve's right-hand side; zero with several sub-steps), so both are
/// taken out of the hydrodynamic force: the contact then moves the body with the fluid's added
/// mass and drag, implicitly.
#[allow(clippy::too_many_arguments)]
fn advance<const D: usize>(
    sim: &mut Simulation<D>,
    fits: &[Fit<D>],
    captured: &[(Vector<D>, Angular<D>)],
    loaded: &[(Vector<D>, Angular<D>)],
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
    for ((((b, fit), (momentum, angular)), (fc, tc)), (f, t)) in sim
        .bodies
        .iter()
        .zip(fits)
        .zip(captured)
        .zip(loaded)
        .zip(hydro_force.iter_mut().zip(hydro_torque.iter_mut()))
    {
        let volume = b.geometry.moments.measure;
        let weight = sim.gravity * ((b.density - rho_f) * volume);
        *f = (fit.at(&b.position) - b.velocity) * (rho_f * volume / dt) - weight - fc - momentum * (rho_f / dt);
        let m = b.matrix();
        let second = m * b.geometry.moments.second * m.transpose();
        *t = <Dim<D> as Kinematics<D>>::inertia_times(&second, &(fit.spin - b.angular_velocity)) * (rho_f / dt)
            - *tc
            - *angular * (rho_f / dt);
    }
    let delta = dt / substeps as f64;
    let g = sim.gravity;
    for _ in 0..substeps {
        // With one sub-step its contact is the step's start's, computed and loaded already.
        if substeps > 1 {
            sim.contact_forces()?;
        }
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
