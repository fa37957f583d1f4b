//! The rigidity constraint's multipliers. With `E` the injection of the constrained dofs, `B`
//! their rows (`Eᵀ` but at the ghosts, [`super::ghosts`]), `Π_t` and `Π` the removal of each
//! body's rigid fit at the rows' targets and at the dofs ([`super::fit`]), and `ũ₀` the velocity
//! solved without them, the internal multipliers `μ` (no net force or torque on any body) solve
//!
//! ```text
//! (I − Π_t) B A⁻¹ E μ = −(I − Π_t) B ũ₀,   right-preconditioned by (I − Π) A_CC W⁻¹,
//! ```
//!
//! by restarted GMRES ([`Work::constrain`]; `W` the rows' own weights, `A_CC` the velocity
//! operator on the constrained dofs, which approximates the inverse of `(A⁻¹)_CC`). The last
//! step's multipliers, carried to the dofs the bodies hold now, ride in the right-hand side (a
//! warm start: the iterations solve for their change).
//!
//! Cost: each of the `k` iterations is one velocity solve at the observed dofs (restricted to the
//! factor's columns that reach them, or on a patch around them) and `O(|C|)` for the rows, the
//! fits and the preconditioner (`|C|` the constrained dofs), plus GMRES's own `O(j |C|)` at its
//! `j`-th iteration since a restart; then one whole solve of the multipliers' change a round.

use super::fit::remove_rigid;
use super::Work;
use crate::body::{Dim, Kinematics};
use crate::fluid::{P2Space, Response};
use crate::linalg::restarted_gmres;
use crate::math::Vector;
use crate::mesh::SimplexMesh;

/// The vectors of the constraint's iterations, kept between steps: the residual and the
/// multipliers' change (flat, for GMRES), the loads and the response at the observed dofs, the
/// rows' values, and the preconditioner's input and output.
#[derive(Debug, Default)]
pub(super) struct Scratch<const D: usize> {
    residual: Vec<f64>,
    change: Vec<f64>,
    load: Vec<Vector<D>>,
    pub(super) values: Vec<Vector<D>>,
    pub(super) rows: Vec<Vector<D>>,
    weighted: Vec<Vector<D>>,
    product: Vec<Vector<D>>,
}

/// GMRES restarts after this many iterations (memory `2 (RESTART + 1)` vectors of the rows).
const RESTART: usize = 40;

/// The most iterations of one step's constraint.
const MAX_ITERATIONS: usize = 500;

/// On the iterative path, the patch on which the iterations take the response spans this many
/// layers of the velocity matrix's graph around the observed dofs.
const PATCH_LAYERS: usize = 4;

/// The relative residual of the patch's solves.
const PATCH_TOLERANCE: f64 = 1e-8;

/// The patch's conjugate-gradient iterations above which its response costs more than a whole
/// solve: the patch holds while the mass term dominates the operator (`ν Δt` small against
/// `h²`), where Jacobi's preconditioner suffices; where viscosity dominates (Stokes flow, a long
/// step) its iterations grow, the response spreads beyond the patch, and the whole solve's
/// multigrid is the cheaper path (docs/performance.md, "The constraint's patch in Stokes flow").
const PATCH_CG_LIMIT: usize = 60;

/// The relative residual of an iteration's whole solve on the iterative path, over the
/// constraint's tolerance: an iteration's response needs no more digits than the defect the
/// iterations stop at (inexact Krylov; the multipliers' change then takes a solve to the
/// solver's own tolerance; measured in docs/performance.md, "The constraint's patch in Stokes
/// flow").
const INNER_SHARE: f64 = 0.1;

/// On the iterative path, the most rounds of iterations, each followed by a whole solve of the
/// multipliers' change and a check of the true defect; all but the last on the patch.
const MAX_ROUNDS: usize = 6;

impl<const D: usize> Work<D>
where
    Dim<D>: Kinematics<D>,
{
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
    /// `s` of the factor ([`Reach::share`](crate::linalg::Reach::share); small for a few small
    /// bodies, near 1 for many), which costs about `s` of a full solve. The iterations are
    /// restricted when `k s < k − 1`, with `k` the last step's iterations; the velocity
    /// everywhere then takes one full solve of the multipliers' change at the end.
    ///
    /// Without a simplicial factor (3D: a supernodal factor or the iterative path) the iterations
    /// take the response on a [`Patch`](crate::linalg::Patch), the free dofs within
    /// [`PATCH_LAYERS`] layers of the velocity matrix's graph around the observed ones, held at
    /// zero beyond (the mass term
    /// makes `A⁻¹` decay within a few cells); a whole solve of the change follows, and the true
    /// defect is checked: if above the goal, another round, the last of [`MAX_ROUNDS`] on whole
    /// solves. A round is usually enough, and the velocities agree with those of whole solves
    /// far below the tolerance. Once the patch's solve takes more than [`PATCH_CG_LIMIT`]
    /// iterations (the operator is not mass-dominated), the iterations take whole solves from
    /// the next step on.
    pub(super) fn constrain(
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
        let local = !reachable && self.patch_iterations <= PATCH_CG_LIMIT;
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
                    response.solve_to(dofs, &load[..m], full, INNER_SHARE * tolerance);
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
        if local {
            self.patch_iterations = self.patch.last_iterations;
        }
        self.iterations = iterations;
        iterations
    }
}
