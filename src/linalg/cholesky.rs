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
//! **Cost**: the symbolic phase (AMD order, elimination tree, column counts) once per pattern;
//! the numeric factorisation `Σ_j |L_{*j}|²` multiply–adds (`|L_{*j}|` the entries of column
//! `j`), which in 3D the largest supernodes dominate; a solve `4 nnz(L)` flops per right-hand
//! side, bound by reading `L` (12 bytes per entry).
//!
//! The kind of factor is chosen for the solves, which every time step repeats. These timings were
//! measured here on a 2D P2 velocity pattern with 200 000 unknowns, solving two right-hand sides:
//! - faer's *simplicial* Cholesky solves in 20 ms;
//! - the supernodal one, which faer picks by default, takes 57 ms on one thread and over 500 ms
//!   with rayon parallelism;
//! - faer's LU takes 83–103 ms.
//!
//! Simplicial factorisation, done once, is slower: 1.3 s against 0.5 s. In 3D the fill is larger.
//! There the simplicial factorisation took 66 s at 49 152 tetrahedra, against 12 s for LU, so the
//! supernodal one is used (`supernodal`).
//! A simplicial factor solves up to three right-hand sides (the velocity components) in one sweep
//! over `L`, on two threads that each take half of the elimination tree ([`super::tree_split`]):
//! on the velocity factor of the immersed-bodies benchmark (2.2 million entries, two components) 1.4–1.6x
//! faster than faer's solve of a column per thread (2.8–4.2 ms against 3.9–6.7 ms, alternated in
//! one process). A supernodal factor uses faer's solve, a column per thread. The factor's indices
//! are `u32`: a quarter less memory for `L` than with `usize` (8.5 MB of the 34 MB of the 2D
//! velocity factor of the immersed-bodies benchmark) and as much less traffic in the solves; a factor
//! beyond 2³² entries is an error. (Its values in single precision did not make the solves
//! faster.)
//!
//! **Solves at a few unknowns** ([`CholeskySolver::solve_at`]): when the right-hand side is zero
//! except at a set `S` of unknowns and only the solution at `S` is wanted (the rigid bodies'
//! constraint, [`crate::sim::Immersed`]), only the columns of `L` on the paths from `S` to the root
//! of the elimination tree take part: the forward solve `L y = b` fills only the ancestors of
//! `S` (every row index of a column of `L` is an ancestor of the column), and the backward solve
//! `Lᵀ x = y` gives `x_j` from the `x_i` of the ancestors `i` of `j`. On the velocity matrix of
//! the immersed-bodies benchmark (24 576 triangles) those paths hold 16 % of `L` for the dofs of one
//! small body, 53 % for 25 bodies and 86 % for 1 000 ([`Reach::share`] says which). Simplicial
//! factors only.

use super::sparse::Csr;
use super::tree_split::{Lanes, Lower, SplitScratch, TreeSplit};
use super::FactorError;
use crate::math::Vector;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, LltRef, SymbolicCholesky, SymbolicCholeskyRaw,
    SymmetricOrdering,
};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Conj, Mat, MatMut, Par, Side};
use rayon::prelude::*;

const NONE: u32 = u32::MAX;

/// A factored SPD system `A x = b` with some unknowns prescribed.
pub struct CholeskySolver {
    /// Number of unknowns.
    rows: usize,
    /// The free unknowns.
    free: Vec<u32>,
    /// `A_fd` as (reduced row, full column, value).
    lift: Vec<(u32, u32, f64)>,
    symbolic: SymbolicCholesky<u32>,
    values: Vec<f64>,
    /// For faer's solves (a supernodal factor, or more than three columns), one reduced
    /// right-hand side and one solve scratch per column: the columns are solved on separate
    /// threads. Empty otherwise.
    work: Vec<(Mat<f64>, MemBuffer)>,
    /// Each unknown's column of `L` in a simplicial factor, its reduced index in a supernodal one
    /// (`NONE` if prescribed).
    column: Vec<u32>,
    /// For a simplicial factor, the parent of each column in the elimination tree (`NONE` at a
    /// root).
    parent: Option<Vec<u32>>,
    /// For a simplicial factor, the split of its elimination tree for two-thread solves.
    split: Option<TreeSplit>,
}

/// The columns of a simplicial factor that a solve at a set of unknowns visits
/// ([`CholeskySolver::reach`]), with the solve's scratch; kept by the caller between solves.
#[derive(Debug, Default)]
pub struct Reach {
    /// The columns, in increasing order (children before parents).
    columns: Vec<u32>,
    /// Their entries over all the entries of `L`.
    share: f64,
    /// A flag per column, all false between calls.
    marked: Vec<bool>,
    /// The solution, one vector per column of the right-hand side.
    x: Vec<Vec<f64>>,
}

impl Reach {
    /// The fraction of the factor's entries a solve visits: a solve at these unknowns costs about
    /// that fraction of a full one.
    pub fn share(&self) -> f64 {
        self.share
    }
}

/// Matrix entries as (row, column, value).
pub(super) type Entries = Vec<(u32, u32, f64)>;

/// The free unknowns (those not flagged in `prescribed`), the entries `(i, j)` of `A_ff` in their
/// numbering that `keep(i, j)` keeps, and `A_fd` as (free row, full column, value): `A x = b`
/// becomes `A_ff x_f = b_f − A_fd x_d`.
pub(super) fn eliminate(
    matrix: &Csr,
    prescribed: &[bool],
    keep: impl Fn(u32, u32) -> bool,
) -> (Vec<u32>, Entries, Entries) {
    let mut reduced = vec![NONE; matrix.rows()];
    let mut free = Vec::new();
    for (k, r) in reduced.iter_mut().enumerate() {
        if !prescribed[k] {
            *r = free.len() as u32;
            free.push(k as u32);
        }
    }
    let mut entries = Vec::new();
    let mut lift = Vec::new();
    for (row, col, value) in matrix.entries() {
        match (reduced[row as usize], reduced[col as usize]) {
            (NONE, _) => {}
            (i, NONE) => lift.push((i, col, value)),
            (i, j) if keep(i, j) => entries.push((i, j, value)),
            _ => {}
        }
    }
    (free, entries, lift)
}

/// The `K` right-hand sides over `rows` unknowns that are `load[i]` at `at[i]` where `free`, zero
/// elsewhere (what a solve at a few unknowns does by a whole solve).
pub(super) fn point_loads<const K: usize>(
    rows: usize,
    at: &[u32],
    load: &[Vector<K>],
    free: impl Fn(u32) -> bool,
) -> Mat<f64> {
    let mut x = Mat::<f64>::zeros(rows, K);
    for (&k, b) in at.iter().zip(load).filter(|(&k, _)| free(k)) {
        for (c, v) in b.iter().enumerate() {
            x[(k as usize, c)] = *v;
        }
    }
    x
}

/// `out[i]` = row `at[i]` of the `K` columns `x`.
pub(super) fn rows_at<const K: usize>(x: &Mat<f64>, at: &[u32], out: &mut [Vector<K>]) {
    for (&k, o) in at.iter().zip(out.iter_mut()) {
        *o = Vector::<K>::from_fn(|c, _| x[(k as usize, c)]);
    }
}

impl CholeskySolver {
    /// Factors `matrix` (symmetric positive definite on the free unknowns) with the unknowns
    /// flagged in `prescribed` eliminated, for solves with up to `columns` right-hand sides;
    /// `supernodal` chooses the supernodal factorisation (3D) over the simplicial one (2D).
    pub fn new(
        matrix: &Csr,
        prescribed: &[bool],
        columns: usize,
        supernodal: bool,
    ) -> Result<CholeskySolver, FactorError> {
        Self::with_fill_limit(matrix, prescribed, columns, supernodal, f64::INFINITY)?
            .ok_or_else(|| FactorError::Failed("no fill limit, yet the factor was refused".into()))
    }

    /// Like [`new`](Self::new), but `None` (after the symbolic analysis only) when the factor
    /// would hold more than `limit` entries.
    pub fn with_fill_limit(
        matrix: &Csr,
        prescribed: &[bool],
        columns: usize,
        supernodal: bool,
        limit: f64,
    ) -> Result<Option<CholeskySolver>, FactorError> {
        let (free, upper, lift) = eliminate(matrix, prescribed, |i, j| j >= i);
        let lower: Vec<_> = upper
            .into_iter()
            .map(|(i, j, value)| Triplet::new(j, i, value))
            .collect();
        let n = free.len();
        let a = SparseColMat::<u32, f64>::try_new_from_triplets(n, n, &lower).map_err(|e| format!("{e:?}"))?;
        let params = CholeskySymbolicParams {
            supernodal_flop_ratio_threshold: if supernodal {
                SupernodalThreshold::FORCE_SUPERNODAL
            } else {
                SupernodalThreshold::FORCE_SIMPLICIAL
            },
            ..Default::default()
        };
        let symbolic = match factorize_symbolic_cholesky(a.symbolic(), Side::Lower, SymmetricOrdering::Amd, params) {
            Ok(symbolic) => symbolic,
            // More entries than 32-bit indices count: a factor beyond any limit.
            Err(faer::sparse::FaerError::IndexOverflow) if limit.is_finite() => return Ok(None),
            Err(faer::sparse::FaerError::IndexOverflow) => {
                return Err(FactorError::Failed(format!(
                    "the Cholesky factor of a {n} × {n} system has more entries than 32-bit indices count \
                     (over 4.3e9): solve it by the iterative path (`[fluid] solver = \"iterative\"` or `\"auto\"`)"
                )))
            }
            Err(e) => return Err(FactorError::Failed(format!("{e:?}"))),
        };
        let entries = symbolic.len_val() as f64;
        if entries > limit {
            return Ok(None);
        }
        crate::memory::reserve(8.0 * entries, || {
            format!("the Cholesky factor of a {n} × {n} system ({entries:.3e} entries)")
        })?;
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
        let inverse = symbolic.perm().map(|p| p.arrays().1);
        let parent = match symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(l) => {
                let (start, row) = (l.col_ptr(), l.row_idx());
                let parent: Vec<u32> = (0..n)
                    .map(|j| {
                        if start[j + 1] > start[j] + 1 {
                            row[start[j] as usize + 1]
                        } else {
                            NONE
                        }
                    })
                    .collect();
                Some(parent)
            }
            SymbolicCholeskyRaw::Supernodal(_) => None,
        };
        let split = match (symbolic.raw(), &parent) {
            (SymbolicCholeskyRaw::Simplicial(l), Some(parent)) => Some(TreeSplit::new(l.col_ptr(), parent.as_slice())),
            _ => None,
        };
        // faer's column solves serve only where the split ones do not.
        let faer_columns = if split.is_some() && columns <= 3 { 0 } else { columns };
        let work = (0..faer_columns)
            .map(|_| {
                (
                    Mat::zeros(n, 1),
                    MemBuffer::new(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq)),
                )
            })
            .collect();
        let mut column = vec![NONE; matrix.rows()];
        for (r, &k) in free.iter().enumerate() {
            column[k as usize] = match (&parent, inverse) {
                (Some(_), Some(inv)) => inv[r],
                _ => r as u32,
            };
        }
        Ok(Some(CholeskySolver {
            column,
            parent,
            rows: matrix.rows(),
            free,
            lift,
            symbolic,
            values,
            work,
            split,
        }))
    }

    /// The columns of `L` that a solve at the unknowns `at` (free ones) visits, into `reach`:
    /// the paths from their columns to the roots of the elimination tree. `false` (and `reach`
    /// untouched) for a supernodal factor.
    pub fn reach(&self, at: &[u32], reach: &mut Reach) -> bool {
        let (column, Some(parent)) = (&self.column, &self.parent) else {
            return false;
        };
        let SymbolicCholeskyRaw::Simplicial(l) = self.symbolic.raw() else {
            return false;
        };
        let start = l.col_ptr();
        reach.marked.resize(parent.len(), false);
        for &k in at {
            let mut j = column[k as usize];
            while j != NONE && !reach.marked[j as usize] {
                reach.marked[j as usize] = true;
                j = parent[j as usize];
            }
        }
        // Marking then scanning orders the columns in linear time.
        let mut entries = 0;
        reach.columns.clear();
        for (j, m) in reach.marked.iter_mut().enumerate() {
            if *m {
                *m = false;
                reach.columns.push(j as u32);
                entries += (start[j + 1] - start[j]) as usize;
            }
        }
        reach.share = entries as f64 / start[parent.len()].max(1) as f64;
        true
    }

    /// `out[i] = (A⁻¹ b)[at[i]]` for the right-hand side `b` that is `load[i]` at `at[i]` and zero
    /// elsewhere, `K` columns at once, visiting only the columns of `reach` (from
    /// [`reach`](Self::reach) with the same `at`; loads at prescribed unknowns are ignored and
    /// their solution is zero: homogeneous conditions). Without a simplicial factor it does a full
    /// solve, in a matrix it allocates.
    pub fn solve_at<const K: usize>(
        &mut self,
        reach: &mut Reach,
        at: &[u32],
        load: &[Vector<K>],
        out: &mut [Vector<K>],
    ) {
        let column = &self.column;
        let SymbolicCholeskyRaw::Simplicial(l) = self.symbolic.raw() else {
            let mut x = point_loads(self.rows, at, load, |k| column[k as usize] != NONE);
            self.solve_in_place(x.as_mut());
            rows_at(&x, at, out);
            return;
        };
        let (start, row, value) = (l.col_ptr(), l.row_idx(), self.values.as_slice());
        let n = start.len() - 1;
        reach.x.resize_with(K, Vec::new);
        let columns = &reach.columns;
        // One component per thread: the solves are bound by memory traffic, and two threads draw
        // on more of it than one.
        reach.x.par_iter_mut().enumerate().for_each(|(c, x)| {
            x.resize(n, 0.0);
            for &j in columns {
                x[j as usize] = 0.0;
            }
            for (&k, b) in at.iter().zip(load) {
                if column[k as usize] != NONE {
                    x[column[k as usize] as usize] = b[c];
                }
            }
            // L y = b, children first; the diagonal is the first entry of each column.
            for &j in columns {
                let (first, last) = (start[j as usize] as usize, start[j as usize + 1] as usize);
                let y = x[j as usize] / value[first];
                x[j as usize] = y;
                for (&i, v) in row[first + 1..last].iter().zip(&value[first + 1..last]) {
                    x[i as usize] -= v * y;
                }
            }
            // Lᵀ x = y, parents first.
            for &j in columns.iter().rev() {
                let (first, last) = (start[j as usize] as usize, start[j as usize + 1] as usize);
                let s = row[first + 1..last]
                    .iter()
                    .zip(&value[first + 1..last])
                    .fold(x[j as usize], |s, (&i, v)| s - v * x[i as usize]);
                x[j as usize] = s / value[first];
            }
        });
        for (&k, o) in at.iter().zip(out.iter_mut()) {
            *o = match column[k as usize] {
                NONE => Vector::<K>::zeros(),
                j => Vector::<K>::from_fn(|c, _| reach.x[c][j as usize]),
            };
        }
    }

    /// [`solve_in_place`](Self::solve_in_place) for `K` columns with a simplicial factor: all
    /// columns in one sweep, on two threads ([`TreeSplit`]); faer's solve (a column per thread)
    /// otherwise.
    fn solve_split<const K: usize>(&mut self, mut x: MatMut<'_, f64>)
    where
        SplitScratch: Lanes<K>,
    {
        let (Some(split), SymbolicCholeskyRaw::Simplicial(l)) = (&mut self.split, self.symbolic.raw()) else {
            return self.solve_columns(x);
        };
        let column = &self.column;
        let y = split.right_hand_sides::<K>(self.free.len());
        for &k in &self.free {
            y[column[k as usize] as usize] = std::array::from_fn(|c| x[(k as usize, c)]);
        }
        for &(i, col, value) in &self.lift {
            let j = column[self.free[i as usize] as usize] as usize;
            for (c, v) in y[j].iter_mut().enumerate() {
                *v -= value * x[(col as usize, c)];
            }
        }
        let lower = Lower {
            start: l.col_ptr(),
            row: l.row_idx(),
            value: &self.values,
        };
        split.solve::<K>(lower);
        let y = split.right_hand_sides::<K>(self.free.len());
        for &k in &self.free {
            for (c, v) in y[column[k as usize] as usize].iter().enumerate() {
                x[(k as usize, c)] = *v;
            }
        }
    }

    /// Solves in place: `x` holds the right-hand sides (one per column, at most the number given
    /// to [`new`](Self::new)) on entry, with the prescribed values in the prescribed rows, and the
    /// solutions on return.
    pub fn solve_in_place(&mut self, x: MatMut<'_, f64>) {
        assert_eq!(x.nrows(), self.rows, "one row per unknown");
        match x.ncols() {
            1 => self.solve_split::<1>(x),
            2 => self.solve_split::<2>(x),
            3 => self.solve_split::<3>(x),
            _ => self.solve_columns(x),
        }
    }

    /// [`solve_in_place`](Self::solve_in_place) by faer, a column per thread.
    fn solve_columns(&mut self, mut x: MatMut<'_, f64>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The 5-point Laplacian plus the identity on an `m × m` grid, its boundary prescribed.
    fn grid(m: usize) -> (Csr, Vec<bool>) {
        let mut entries = Vec::new();
        let at = |i: usize, j: usize| (i * m + j) as u32;
        for i in 0..m {
            for j in 0..m {
                entries.push((at(i, j), at(i, j), 5.0));
                for (di, dj) in [(0, 1), (1, 0)] {
                    if i + di < m && j + dj < m {
                        entries.push((at(i, j), at(i + di, j + dj), -1.0));
                        entries.push((at(i + di, j + dj), at(i, j), -1.0));
                    }
                }
            }
        }
        let prescribed = (0..m * m)
            .map(|k| k / m == 0 || k / m == m - 1 || k % m == 0 || k % m == m - 1)
            .collect();
        (Csr::from_triplets(m * m, m * m, entries), prescribed)
    }

    /// Solves with `columns` right-hand sides (prescribed values on the boundary) and checks
    /// `A x = b` on the free rows; returns the solution.
    fn solve(matrix: &Csr, prescribed: &[bool], columns: usize, supernodal: bool) -> Mat<f64> {
        let n = matrix.rows();
        let mut solver = CholeskySolver::new(matrix, prescribed, columns, supernodal).unwrap();
        let b = Mat::<f64>::from_fn(n, columns, |k, c| ((k * 7 + c * 3) % 11) as f64 - 5.0);
        let mut x = b.clone();
        solver.solve_in_place(x.as_mut());
        for c in 0..columns {
            let column: Vec<f64> = (0..n).map(|k| x[(k, c)]).collect();
            let mut ax = vec![0.0; n];
            matrix.mul(&column, &mut ax);
            for k in 0..n {
                let expected = if prescribed[k] { b[(k, c)] } else { ax[k] };
                let got = if prescribed[k] { x[(k, c)] } else { b[(k, c)] };
                assert!(
                    (expected - got).abs() < 1e-12 * (1.0 + got.abs()),
                    "row {k}, column {c}: {expected} against {got}"
                );
            }
        }
        x
    }

    #[test]
    fn split_solves_match_faer_for_one_to_three_columns() {
        let (matrix, prescribed) = grid(60);
        // Four columns take faer's solve, a column per thread; one to three the split one.
        let reference = solve(&matrix, &prescribed, 4, false);
        for columns in 1..=3 {
            let x = solve(&matrix, &prescribed, columns, false);
            for c in 0..columns {
                for k in 0..matrix.rows() {
                    assert!((x[(k, c)] - reference[(k, c)]).abs() < 1e-13 * (1.0 + reference[(k, c)].abs()));
                }
            }
        }
        solve(&matrix, &prescribed, 2, true);
    }
}
