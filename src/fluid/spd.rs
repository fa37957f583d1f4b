//! Symmetric positive definite systems with prescribed (Dirichlet) unknowns, by sparse Cholesky.
//!
//! With the unknowns split into free (`f`) and prescribed (`d`) ones, `A x = b` becomes
//!
//! ```text
//! A_ff x_f = b_f − A_fd x_d,
//! ```
//!
//! which keeps the symmetry that identity rows would break. `A_ff` is factored once, `A_fd` is
//! kept to lift the prescribed values at each solve.
//!
//! The factorisation is chosen for the solves, which every time step repeats. These timings were
//! measured here on a 2D P2 velocity pattern with 200 000 unknowns, solving two right-hand sides:
//! - faer's *simplicial* Cholesky solves in 20 ms;
//! - the supernodal one, which faer picks by default, takes 57 ms on one thread and over 500 ms
//!   with rayon parallelism;
//! - faer's LU takes 83–103 ms.
//!
//! Simplicial factorisation, done once, is slower: 1.3 s against 0.5 s. In 3D the fill is larger.
//! There the simplicial factorisation took 66 s at 49 152 tetrahedra, against 12 s for LU, so the
//! supernodal one is used (`supernodal`).
//! Each solve runs on one thread; the columns of a multi-column solve (the velocity components)
//! run on separate threads.

use super::sparse::Csr;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, LltRef, SymbolicCholesky, SymmetricOrdering,
};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Conj, Mat, MatMut, Par, Side};
use rayon::prelude::*;

const NONE: u32 = u32::MAX;

/// A factored SPD system `A x = b` with some unknowns prescribed.
pub struct SpdSolver {
    /// Number of unknowns.
    rows: usize,
    /// The free unknowns.
    free: Vec<u32>,
    /// `A_fd` as (reduced row, full column, value).
    lift: Vec<(u32, u32, f64)>,
    symbolic: SymbolicCholesky<usize>,
    values: Vec<f64>,
    /// One reduced right-hand side and one solve scratch per column: the columns are solved on
    /// separate threads.
    work: Vec<(Mat<f64>, MemBuffer)>,
}

impl SpdSolver {
    /// Factors `matrix` (symmetric positive definite on the free unknowns) with the unknowns
    /// flagged in `prescribed` eliminated, for solves with up to `columns` right-hand sides;
    /// `supernodal` chooses the supernodal factorisation (3D) over the simplicial one (2D).
    pub fn new(matrix: &Csr, prescribed: &[bool], columns: usize, supernodal: bool) -> Result<SpdSolver, String> {
        let mut reduced = vec![NONE; matrix.rows()];
        let mut free = Vec::new();
        for (k, r) in reduced.iter_mut().enumerate() {
            if !prescribed[k] {
                *r = free.len() as u32;
                free.push(k as u32);
            }
        }
        let mut lower = Vec::new();
        let mut lift = Vec::new();
        for (row, col, value) in matrix.entries() {
            let (i, j) = (reduced[row as usize], reduced[col as usize]);
            match (i, j) {
                (NONE, _) => {}
                (i, NONE) => lift.push((i, col, value)),
                (i, j) if j >= i => lower.push(Triplet::new(j as usize, i as usize, value)),
                _ => {}
            }
        }
        let n = free.len();
        let a = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &lower).map_err(|e| format!("{e:?}"))?;
        let params = CholeskySymbolicParams {
            supernodal_flop_ratio_threshold: if supernodal {
                SupernodalThreshold::FORCE_SUPERNODAL
            } else {
                SupernodalThreshold::FORCE_SIMPLICIAL
            },
            ..Default::default()
        };
        let symbolic = factorize_symbolic_cholesky(a.symbolic(), Side::Lower, SymmetricOrdering::Amd, params)
            .map_err(|e| format!("{e:?}"))?;
        let mut values = vec![0.0; symbolic.len_val()];
        let par = faer::get_global_parallelism();
        let mut mem = MemBuffer::new(symbolic.factorize_numeric_llt_scratch::<f64>(par, Default::default()));
        symbolic
            .factorize_numeric_llt(
                &mut values,
                a.as_ref(),
                Side::Lower,
                Default::default(),
                par,
                MemStack::new(&mut mem),
                Default::default(),
            )
            .map_err(|e| format!("the matrix is not positive definite: {e:?}"))?;
        let work = (0..columns)
            .map(|_| {
                (
                    Mat::zeros(n, 1),
                    MemBuffer::new(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq)),
                )
            })
            .collect();
        Ok(SpdSolver {
            rows: matrix.rows(),
            free,
            lift,
            symbolic,
            values,
            work,
        })
    }

    /// Solves in place: `x` holds the right-hand sides (one per column, at most the number given
    /// to [`new`](Self::new)) on entry, with the prescribed values in the prescribed rows, and the
    /// solutions on return.
    pub fn solve_in_place(&mut self, mut x: MatMut<'_, f64>) {
        assert_eq!(x.nrows(), self.rows, "one row per unknown");
        let columns = x.ncols();
        for (c, (b, _)) in self.work.iter_mut().enumerate().take(columns) {
            for (i, &k) in self.free.iter().enumerate() {
                b[(i, 0)] = x[(k as usize, c)];
            }
            for &(i, col, value) in &self.lift {
                b[(i as usize, 0)] -= value * x[(col as usize, c)];
            }
        }
        let factor = LltRef::new(&self.symbolic, &self.values);
        self.work[..columns].par_iter_mut().for_each(|(b, scratch)| {
            factor.solve_in_place_with_conj(Conj::No, b.as_mut(), Par::Seq, MemStack::new(scratch));
        });
        for (c, (b, _)) in self.work.iter().enumerate().take(columns) {
            for (i, &k) in self.free.iter().enumerate() {
                x[(k as usize, c)] = b[(i, 0)];
            }
        }
    }
}
