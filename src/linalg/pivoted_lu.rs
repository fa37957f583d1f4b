//! Sparse LU with partial pivoting, by faer: the robust fallback for a non-symmetric matrix on
//! which the factorisations without pivoting ([`super::saddle`]) do not bring GMRES to its
//! tolerance.
//!
//! faer orders the columns for the pattern of `AᵀA` (COLAMD) and pivots by rows, so it factorises
//! anything non-singular but fills several times more than a symmetric order on a symmetric
//! pattern, and is as many times slower (the measured figures are in [`super::saddle`]). The
//! symbolic part is computed once per pattern ([`PivotedLu::new`]); a numeric factorisation
//! reuses the factor's storage and the scratch space.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::lu::{factorize_symbolic_lu, LuRef, NumericLu, SymbolicLu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{ColMut, Conj, Par};

/// An LU factorisation with its symbolic part (shared by every matrix of one pattern) and the
/// numeric factor's storage and scratch space, reused from one factorisation to the next.
pub struct PivotedLu {
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, f64>,
    scratch: MemBuffer,
    par: Par,
}

impl PivotedLu {
    /// The symbolic analysis of `pattern`; `par` is the parallelism of the factorisations and
    /// solves. `Err` says what faer refused.
    pub fn new(pattern: SymbolicSparseColMatRef<'_, usize>, par: Par) -> Result<Self, String> {
        let symbolic = factorize_symbolic_lu(pattern, Default::default()).map_err(|e| format!("{e:?}"))?;
        let scratch = MemBuffer::new(
            symbolic
                .factorize_numeric_lu_scratch::<f64>(par, Default::default())
                .or(symbolic.solve_in_place_scratch::<f64>(1, par)),
        );
        Ok(PivotedLu {
            symbolic,
            numeric: NumericLu::new(),
            scratch,
            par,
        })
    }

    /// Factorises `matrix`, which has the pattern given to [`PivotedLu::new`]. `Err` (a singular
    /// matrix) says what faer found; the factor is then unusable until the next success.
    pub fn factorize(&mut self, matrix: SparseColMatRef<'_, usize, f64>) -> Result<(), String> {
        self.symbolic
            .factorize_numeric_lu(
                &mut self.numeric,
                matrix,
                self.par,
                MemStack::new(&mut self.scratch),
                Default::default(),
            )
            .map(|_| ())
            .map_err(|e| format!("{e:?}"))
    }

    /// `x ← A⁻¹ x` with the last factorisation.
    pub fn solve_in_place(&mut self, x: &mut [f64]) {
        LuRef::new_unchecked(&self.symbolic, &self.numeric).solve_in_place_with_conj(
            Conj::No,
            ColMut::from_slice_mut(x).as_mat_mut(),
            self.par,
            MemStack::new(&mut self.scratch),
        );
    }
}
