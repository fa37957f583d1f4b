//! The velocity operator of a time step as a constraint inside the step sees it: [`Response`]
//! applies `A⁻¹`, `A = (3/(2Δt)) M + ν K` with homogeneous velocity conditions, to nodal loads
//! (the velocity response `A⁻¹ Σ_j e_j l_j`), gives the restrictions of `A` that
//! preconditioners and approximate responses need, and collects the pressure nodes whose
//! continuity the constraint releases. It is the interface the rigid bodies' constraint
//! ([`crate::sim::Immersed`]) uses between the velocity solve and the pressure correction
//! ([`super::Unsteady::step_constrained`]).
//!
//! Cost: a response is a solve with the step's velocity system for all components at once (a pair
//! of triangular solves with its factor, or its multigrid-preconditioned CG: [`Response::solve`]),
//! or the part of the triangular solves that reaches the loaded dofs ([`Response::solve_at`]); a
//! restriction or a patch is proportional to its entries.

use crate::linalg::{Csr, Patch, Reach, SpdSolver, TOLERANCE};
use crate::math::Vector;
use faer::Mat;

/// The velocity operator `A = (3/(2Δt)) M + ν K` with homogeneous velocity conditions, factored:
/// what a constraint inside a step
/// ([`Unsteady::step_constrained`](super::Unsteady::step_constrained)) needs to apply `A⁻¹`.
pub struct Response<'a, const D: usize> {
    matrix: &'a Csr,
    solver: &'a mut SpdSolver,
    columns: &'a mut Mat<f64>,
    prescribed: &'a [bool],
    solves: usize,
    released: &'a mut Vec<u32>,
}

impl<'a, const D: usize> Response<'a, D> {
    /// The response of the velocity operator `matrix`, factored as `solver`, with the dofs
    /// `prescribed` held at zero; `columns` (one per component) is its work space and
    /// `released` collects this step's [`release`](Self::release)d nodes (emptied here).
    pub(super) fn new(
        matrix: &'a Csr,
        solver: &'a mut SpdSolver,
        columns: &'a mut Mat<f64>,
        prescribed: &'a [bool],
        released: &'a mut Vec<u32>,
    ) -> Self {
        released.clear();
        Response {
            matrix,
            solver,
            columns,
            prescribed,
            solves: 0,
            released,
        }
    }

    /// The velocity solves done ([`solve`](Self::solve)).
    pub(super) fn solves(&self) -> usize {
        self.solves
    }
}

impl<const D: usize> Response<'_, D> {
    /// `out = A⁻¹ Σ_j e_{at[j]} load[j]`: the velocity response to nodal loads at the dofs `at`
    /// (zero at the prescribed dofs), every component at once.
    pub fn solve(&mut self, at: &[u32], load: &[Vector<D>], out: &mut [Vector<D>]) {
        self.solve_to(at, load, out, TOLERANCE);
    }

    /// [`solve`](Self::solve) to the relative residual `tolerance` on the iterative path (the
    /// factor solves exactly): an inner solve of an iteration that stops well above
    /// [`TOLERANCE`] needs fewer digits.
    pub fn solve_to(&mut self, at: &[u32], load: &[Vector<D>], out: &mut [Vector<D>], tolerance: f64) {
        self.columns.fill(0.0);
        for (&k, l) in at.iter().zip(load) {
            if !self.prescribed[k as usize] {
                for d in 0..D {
                    self.columns[(k as usize, d)] = l[d];
                }
            }
        }
        self.solver.solve_in_place_to(self.columns.as_mut(), tolerance);
        for (k, u) in out.iter_mut().enumerate() {
            *u = Vector::<D>::from_fn(|d, _| self.columns[(k, d)]);
        }
        self.solves += 1;
    }

    /// The columns of the factor that [`solve_at`](Self::solve_at) visits for loads at `at`, into
    /// `reach` ([`SpdSolver::reach`]); `false` if the factor has no elimination tree to follow
    /// (the supernodal one of 3D meshes).
    pub fn reach(&self, at: &[u32], reach: &mut Reach) -> bool {
        self.solver.reach(at, reach)
    }

    /// `out[i] = (A⁻¹ Σ_j e_{at[j]} load[j])[at[i]]`: the response at the loaded dofs only, by
    /// the triangular solves restricted to `reach` (from [`reach`](Self::reach) with the same
    /// `at`), about `reach.share()` of the cost of [`solve`](Self::solve).
    pub fn solve_at(&mut self, reach: &mut Reach, at: &[u32], load: &[Vector<D>], out: &mut [Vector<D>]) {
        self.solver.solve_at(reach, at, load, out);
    }

    /// The patch of the free dofs within `layers` layers of `at` in the operator's graph, with
    /// its matrix ([`Patch`]): an approximate response to loads at `at`.
    pub fn patch(&self, at: &[u32], layers: usize, patch: &mut Patch) {
        patch.build(self.matrix, self.prescribed, at, layers);
    }

    /// `A_CC`, the operator restricted to the dofs `at`, into `out` (rows and columns in the order
    /// of `at`; `slot[k]` is the position of dof `k` in `at`, `u32::MAX` for dofs not in it). A
    /// preconditioner for constraints: `A_CC` approximates `((A⁻¹)_CC)⁻¹`.
    pub fn restrict(&self, at: &[u32], slot: &[u32], out: &mut Csr) {
        self.matrix.restrict_into(at, slot, out);
    }

    /// Releases the continuity equation at the pressure nodes `vertices` for this step: there
    /// the constraint, not incompressibility, sets `∇·ũ` (a rigid body's inside, whose cells
    /// across the surface hold the fluid continued into it), so the pressure correction takes
    /// no source there. Without it the divergence the constraint leaves inside a body feeds
    /// `φ`, whose screened equation at steady state (`(L + 3/(2νΔt) M) φ = 0` in the fluid)
    /// carries it a distance `√(νΔt)` into the fluid: the steady state then depends on `Δt`.
    pub fn release(&mut self, vertices: impl IntoIterator<Item = u32>) {
        self.released.extend(vertices);
    }
}
