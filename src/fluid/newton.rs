//! Newton's method for the steady Navier–Stokes system of [`super::steady`]: each iteration
//! linearises the convection about the previous iterate `w` and solves
//!
//! ```text
//! ν (∇u, ∇v) + ((w·∇)u + (u·∇)w, v) − (p, ∇·v) = (f, v) + ((w·∇)w, v),   −(q, ∇·u) = 0
//! ```
//!
//! for the new `u`. Newton starts from rest, so its first step is the Stokes solution, a symmetric
//! system solved by `LDLᵀ`; the others by LU ([`crate::linalg::saddle`]: both without pivoting, in
//! one elimination order computed once, and refined by GMRES to the step's tolerance, faer's LU
//! with partial pivoting taking over if GMRES does not get there). It stops when the velocity
//! change, relative to the largest velocity, is below the tolerance, or below its square root after
//! falling at least tenfold: in Newton's quadratic regime the error left is then about the square
//! of the change, which saves the last, confirming step.
//!
//! Once the iterate is within [`REUSE`] of the point where the last LU was computed (the sum of the
//! relative changes since), a Newton step is solved by GMRES preconditioned with that LU instead
//! of a new factorisation ([`crate::linalg::gmres`](mod@crate::linalg::gmres)): the Jacobians
//! differ by about that much, so GMRES needs a few iterations, each a pair of triangular solves
//! and a product with the matrix, far cheaper than a factorisation. Its residual is brought below
//! `η ‖r₀‖` with the forcing term `η = min(10⁻², c²)`, `c` the previous relative change, which
//! keeps the convergence quadratic (the stopping rule above relies on it). A step whose expected
//! iterations would cost more than a factorisation factorises instead ([`REFACTOR_ITERATIONS`]),
//! and so does one where GMRES does not get there in [`GMRES_ITERATIONS`].
//!
//! Far from the solution (high Reynolds numbers) a full Newton step can overshoot: a step is
//! halved until the residual norm `‖J(w) w − b(w)‖` decreases (Armijo's test, down to
//! [`MIN_FRACTION`] of the step). If Newton from rest still does not converge in a third of the
//! steps allowed (at least 8), or stalls ([`STALLED_STEPS`]), the problem is solved at twice the
//! viscosity first and Newton starts again from that flow (with all the steps allowed), up to
//! [`CONTINUATION_LEVELS`] times (16 times the viscosity).
//!
//! Cost: per step an assembly (and one more per halving of the line search) and either a
//! factorisation or a few GMRES iterations; a continuation level costs a whole Newton solve.

use super::error::FluidError;
use super::space::P2Space;
use super::steady::{SteadyProblem, System};
use crate::math::shown;
use crate::mesh::SimplexMesh;

/// How many times [`solve_steady`](super::solve_steady) may double the viscosity to reach a flow
/// Newton converges from.
pub const CONTINUATION_LEVELS: usize = 4;

/// A Newton solve's fixed inputs.
pub(super) struct Newton<'a, const D: usize> {
    pub(super) mesh: &'a SimplexMesh<D>,
    pub(super) space: &'a P2Space<D>,
    pub(super) tolerance: f64,
    pub(super) max_iterations: usize,
}

impl<const D: usize> Newton<'_, D> {
    /// Newton from rest; if it does not converge, from the flow at twice the viscosity (solved
    /// the same way, `levels − 1` more times at most). Returns the solution vector and the Newton
    /// steps taken in all.
    pub(super) fn continued(
        &self,
        system: &mut System<D>,
        problem: &SteadyProblem<D>,
        levels: usize,
    ) -> Result<(Vec<f64>, usize), FluidError> {
        // With a fallback left, a try from rest gets a third of the steps (at least 8): Newton
        // that will converge does so in a few steps, and one that oscillates wastes the rest.
        let limit = if levels > 0 {
            (self.max_iterations / 3).max(8).min(self.max_iterations)
        } else {
            self.max_iterations
        };
        match self.solve(system, problem, None, limit) {
            Err(FluidError::NotConverged(_)) if levels > 0 => {
                let thicker = SteadyProblem {
                    kinematic_viscosity: 2.0 * problem.kinematic_viscosity,
                    ..*problem
                };
                let (start, before) = self.continued(system, &thicker, levels - 1)?;
                let (x, steps) = self.solve(system, problem, Some(start), self.max_iterations)?;
                Ok((x, before + steps))
            }
            result => result,
        }
    }

    /// Newton's method from `start` (rest if `None`) in at most `limit` steps; returns the
    /// solution vector and the steps.
    fn solve(
        &self,
        system: &mut System<D>,
        problem: &SteadyProblem<D>,
        start: Option<Vec<f64>>,
        limit: usize,
    ) -> Result<(Vec<f64>, usize), FluidError> {
        let (mesh, space, tolerance) = (self.mesh, self.space, self.tolerance);
        let from_rest = start.is_none();
        let mut x = start.unwrap_or_else(|| vec![0.0; system.size]);
        let mut flow = system.flow(&x)?;
        // The relative change since the last factorisation (none yet: infinite).
        let mut since_factor = f64::INFINITY;
        let mut previous = f64::INFINITY;
        // The last accepted iterate, its residual norm, the Newton step from it and the fraction
        // of that step taken.
        let mut base = x.clone();
        let mut base_residual = f64::INFINITY;
        let mut direction = vec![0.0; system.size];
        let mut fraction = 1.0;
        // Steps in a row whose line search ran out (no decrease even at the smallest fraction).
        let mut stalled = 0;
        for step in 1..=limit {
            // The line search: the residual at the iterate must decrease, or the step is halved.
            loop {
                system.assemble(mesh, space, problem, Some(&flow));
                let residual = system.residual(&x);
                let decreased = residual <= (1.0 - 1e-4 * fraction) * base_residual;
                if decreased || fraction <= MIN_FRACTION {
                    stalled = if decreased { 0 } else { stalled + 1 };
                    base_residual = residual;
                    break;
                }
                fraction *= 0.5;
                for ((xk, bk), dk) in x.iter_mut().zip(&base).zip(&direction) {
                    *xk = bk + fraction * dk;
                }
                flow = system.flow(&x)?;
            }
            if stalled == STALLED_STEPS {
                return Err(FluidError::NotConverged(format!(
                    "Newton's method stalled after {step} steps at {} (no decrease of the residual along \
                     {STALLED_STEPS} steps in a row)",
                    viscosity(problem)
                )));
            }
            base.copy_from_slice(&x);
            let mut next = x.clone();
            // GMRES starts from `x`, whose residual the line search has just measured.
            let forcing = (previous * previous).min(1e-2);
            if step == 1 && from_rest {
                // From rest the linearisation is Stokes: symmetric.
                system.solve_symmetric(&mut next)?;
            } else if !(worth_reusing::<D>(since_factor, forcing)
                && system.gmres(&mut next, forcing * base_residual).is_some())
            {
                system.solve_factored(&mut next, forcing * base_residual)?;
                since_factor = 0.0;
            }
            let next_flow = system.flow(&next)?;
            let change = next_flow
                .velocity
                .iter()
                .zip(&flow.velocity)
                .map(|(a, b)| (a - b).amax())
                .fold(0.0, f64::max);
            let scale = next_flow
                .velocity
                .iter()
                .map(|v| v.amax())
                .fold(f64::MIN_POSITIVE, f64::max);
            let relative = change / scale;
            for ((dk, nk), xk) in direction.iter_mut().zip(&next).zip(&x) {
                *dk = nk - xk;
            }
            (x, flow, fraction) = (next, next_flow, 1.0);
            since_factor += relative;
            if relative <= tolerance || (relative <= tolerance.sqrt() && relative <= 0.1 * previous) {
                return Ok((x, step));
            }
            previous = relative;
        }
        Err(FluidError::NotConverged(format!(
            "Newton's method did not converge in {limit} steps at {} (relative change {previous:.1e} at the \
             last)",
            viscosity(problem)
        )))
    }
}

/// The viscosity of `problem` for a message, in the user's terms: `viscosity μ = … (ν = μ/ρ = …)`.
fn viscosity<const D: usize>(problem: &SteadyProblem<D>) -> String {
    let nu = problem.kinematic_viscosity;
    format!(
        "viscosity μ = {} (ν = μ/ρ = {})",
        shown(problem.density * nu),
        shown(nu)
    )
}

/// The smallest fraction of a Newton step the line search tries; below it the step is taken
/// anyway.
pub const MIN_FRACTION: f64 = 1.0 / 64.0;

/// After this many steps in a row whose line search found no decrease, Newton gives up (and
/// [`solve_steady`](super::solve_steady) tries from a larger viscosity).
pub const STALLED_STEPS: usize = 3;

/// How far (the sum of the relative velocity changes) the iterate may move from the point of the
/// last factorisation before Newton factorises its Jacobian again rather than reusing the LU as
/// GMRES's preconditioner.
pub const REUSE: f64 = 0.2;

/// In 2D, a factorisation costs about as much as this many GMRES iterations (the Schäfer–Turek
/// meshes: scatter and numeric LU 8–40 ms, an iteration 1.3–6 ms), so a step expected to take
/// more factorises instead. In 3D a factorisation costs more than [`GMRES_ITERATIONS`].
pub const REFACTOR_ITERATIONS: f64 = 6.0;

/// Whether a Newton step should reuse the last LU, `moved` (the sum of the relative changes) from
/// where it was computed, to reduce the residual by `forcing`: the Jacobians differ by about
/// `moved`, so GMRES gains about that factor per iteration and needs `ln forcing / ln moved`
/// (measured on the Schäfer–Turek medium mesh: 2, 4 and 10 iterations where this predicts 2.0,
/// 4.2 and 9.2).
fn worth_reusing<const D: usize>(moved: f64, forcing: f64) -> bool {
    let limit = if D == 2 {
        REFACTOR_ITERATIONS
    } else {
        GMRES_ITERATIONS as f64
    };
    moved <= REUSE && (moved <= 0.0 || forcing.ln() / moved.ln() <= limit)
}

/// The most GMRES iterations a Newton step spends before it factorises its own Jacobian instead
/// (each costs a pair of triangular solves and a product with the matrix).
pub const GMRES_ITERATIONS: usize = 20;
