//! An SPD system with prescribed unknowns, solved by a Cholesky factor ([`super::cholesky`]) or by
//! AMG-preconditioned conjugate gradients ([`super::iterative`]), chosen by [`SpdMethod`].
//!
//! The factor is the faster where it fits: in 2D always, in 3D up to a few hundred thousand
//! unknowns. Its fill grows faster than the unknowns in 3D (the separators of nested dissection
//! are planes), the iterative path's memory as the unknowns, so [`SpdMethod::Auto`] factors
//! unless the factor would not fit the memory budget ([`crate::memory`]) or would hold more than
//! [`FILL_LIMIT`] times the entries of the matrix's lower triangle. The limit is where the times
//! per step cross on the 3D P2 velocity system of `tumble bench solver` (README): the factor holds
//! 85 times the matrix at 353 000 velocity unknowns (0.23 s a step against 0.31 s iterating),
//! 98 times at 556 000 (0.45 s against 0.37 s), 139 times at 824 000 (0.82 s and 4.8 GB against
//! 0.58 s and 0.84 GB). 2D factors hold 10 to 20 times their matrix.

use super::cholesky::{point_loads, rows_at, CholeskySolver, Reach};
use super::iterative::{AmgCg, TOLERANCE};
use super::sparse::Csr;
use super::FactorError;
use crate::math::Vector;
use faer::MatMut;

/// How an SPD system is solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpdMethod {
    /// The factor where it fits and is not too filled, the iterations otherwise.
    #[default]
    Auto,
    /// Always the Cholesky factor.
    Direct,
    /// Always conjugate gradients preconditioned by algebraic multigrid.
    Iterative,
}

/// [`SpdMethod::Auto`] iterates when the factor would hold more than this many times the entries
/// of the matrix's lower triangle.
pub const FILL_LIMIT: f64 = 90.0;

/// A solver of `A x = b` with prescribed unknowns, direct or iterative.
pub enum SpdSolver {
    /// A Cholesky factor.
    Direct(Box<CholeskySolver>),
    /// AMG-preconditioned conjugate gradients.
    Iterative(Box<AmgCg>),
}

impl SpdSolver {
    /// Factors `matrix` (SPD on the free unknowns) with the unknowns flagged in `prescribed`
    /// eliminated, for up to `columns` right-hand sides; `supernodal` chooses the supernodal
    /// factorisation (3D) over the simplicial one (2D).
    pub fn new(matrix: &Csr, prescribed: &[bool], columns: usize, supernodal: bool) -> Result<SpdSolver, FactorError> {
        CholeskySolver::new(matrix, prescribed, columns, supernodal).map(|f| SpdSolver::Direct(Box::new(f)))
    }

    /// Like [`new`](Self::new), by `method`; `coarse`, for the iterative path, a prolongation
    /// from a coarser space to all the unknowns that the multigrid takes as its first level
    /// ([`super::amg::Amg::new`]).
    pub fn with_method(
        matrix: &Csr,
        prescribed: &[bool],
        (columns, supernodal): (usize, bool),
        method: SpdMethod,
        coarse: Option<&Csr>,
    ) -> Result<SpdSolver, FactorError> {
        match method {
            SpdMethod::Direct => Self::new(matrix, prescribed, columns, supernodal),
            SpdMethod::Iterative => Ok(SpdSolver::Iterative(Box::new(AmgCg::new(matrix, prescribed, coarse)))),
            SpdMethod::Auto => {
                let lower = matrix.nnz().div_ceil(2) + matrix.rows() / 2;
                match CholeskySolver::with_fill_limit(
                    matrix,
                    prescribed,
                    columns,
                    supernodal,
                    FILL_LIMIT * lower as f64,
                ) {
                    Ok(Some(factor)) => Ok(SpdSolver::Direct(Box::new(factor))),
                    Ok(None) | Err(FactorError::Memory(_)) => {
                        Self::with_method(matrix, prescribed, (columns, supernodal), SpdMethod::Iterative, coarse)
                    }
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// `"cholesky"` or `"amg-cg"`.
    pub fn name(&self) -> &'static str {
        match self {
            SpdSolver::Direct(_) => "cholesky",
            SpdSolver::Iterative(_) => "amg-cg",
        }
    }

    /// The iterations of the last solve (zero for the factor).
    pub fn last_iterations(&self) -> usize {
        match self {
            SpdSolver::Direct(_) => 0,
            SpdSolver::Iterative(s) => s.last_iterations,
        }
    }

    /// Solves in place: `x` holds the right-hand sides (one per column, at most the number given
    /// to [`new`](Self::new)) on entry, with the prescribed values in the prescribed rows, and the
    /// solutions on return.
    pub fn solve_in_place(&mut self, x: MatMut<'_, f64>) {
        self.solve_in_place_to(x, TOLERANCE);
    }

    /// [`solve_in_place`](Self::solve_in_place), the iterative path to the relative residual
    /// `tolerance` (the factor's solve is exact).
    pub fn solve_in_place_to(&mut self, x: MatMut<'_, f64>, tolerance: f64) {
        match self {
            SpdSolver::Direct(f) => f.solve_in_place(x),
            SpdSolver::Iterative(s) => match x.ncols() {
                1 => s.solve_in_place::<1>(x, tolerance),
                2 => s.solve_in_place::<2>(x, tolerance),
                3 => s.solve_in_place::<3>(x, tolerance),
                n => panic!("the iterative path solves up to three columns at once, not {n}"),
            },
        }
    }

    /// The columns of the factor that [`solve_at`](Self::solve_at) visits for loads at `at`
    /// ([`CholeskySolver::reach`]); `false` without a simplicial factor to follow.
    pub fn reach(&self, at: &[u32], reach: &mut Reach) -> bool {
        match self {
            SpdSolver::Direct(f) => f.reach(at, reach),
            SpdSolver::Iterative(_) => false,
        }
    }

    /// `out[i] = (A⁻¹ b)[at[i]]` for the right-hand side `load[i]` at `at[i]`, zero elsewhere
    /// ([`CholeskySolver::solve_at`]); the iterative path does a full solve.
    pub fn solve_at<const K: usize>(
        &mut self,
        reach: &mut Reach,
        at: &[u32],
        load: &[Vector<K>],
        out: &mut [Vector<K>],
    ) {
        match self {
            SpdSolver::Direct(f) => f.solve_at(reach, at, load, out),
            SpdSolver::Iterative(s) => {
                let mut x = point_loads(s.rows(), at, load, |k| s.is_free(k));
                s.solve_in_place::<K>(x.as_mut(), TOLERANCE);
                rows_at(&x, at, out);
            }
        }
    }
}
