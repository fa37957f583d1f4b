//! A compressed-row sparse matrix for the products a time step needs (mass times history, the
//! divergence of a velocity, the gradient of a pressure), built once from triplets; faer holds the
//! factorisations (see [`super::cholesky`]).
//!
//! **Cost**: building sorts the `t` triplets (in parallel, `O(t log t)`) and sums duplicates;
//! storage is 12 bytes per entry (a `u32` column and an `f64` value) and 8 per row. A product
//! reads every entry once, rows on parallel threads (`O(nnz)`); [`Csr::restrict_into`] reads
//! only the chosen rows.

use crate::math::Vector;
use faer::sparse::SparseColMatRef;
use rayon::prelude::*;

/// `out = A v` for a matrix in faer's compressed columns (one pass over the entries, sequential:
/// the scattered writes of a column would race on threads).
pub fn csc_mul(a: SparseColMatRef<'_, usize, f64>, v: &[f64], out: &mut [f64]) {
    out.fill(0.0);
    for (j, &vj) in v.iter().enumerate() {
        for (i, &aij) in a.row_idx_of_col(j).zip(a.val_of_col(j)) {
            out[i] += aij * vj;
        }
    }
}

/// A sparse matrix in compressed rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Csr {
    rows: usize,
    cols: usize,
    offsets: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
}

impl Csr {
    /// The `rows × cols` matrix summing the triplets `(row, col, value)`.
    pub fn from_triplets(rows: usize, cols: usize, mut entries: Vec<(u32, u32, f64)>) -> Self {
        entries.par_sort_unstable_by_key(|&(r, c, _)| (r, c));
        let mut offsets = vec![0usize; rows + 1];
        let mut indices = Vec::with_capacity(entries.len());
        let mut values: Vec<f64> = Vec::with_capacity(entries.len());
        let mut last = None;
        for (r, c, v) in entries {
            if last == Some((r, c)) {
                *values.last_mut().expect("a previous entry") += v;
            } else {
                indices.push(c);
                values.push(v);
                offsets[r as usize + 1] += 1;
                last = Some((r, c));
            }
        }
        for k in 0..rows {
            offsets[k + 1] += offsets[k];
        }
        Csr {
            rows,
            cols,
            offsets,
            indices,
            values,
        }
    }

    /// The `rows × cols` pattern (values zero) of a matrix assembled from `cells` element
    /// matrices: cell `c` couples the rows that `rows_of(c, out)` appends to `out` with the
    /// columns `cols_of(c, out)` appends. Built through each row's cells (a counting pass), rows
    /// in parallel: memory 12 bytes per entry and 4 per row and cell, no triplets.
    pub fn pattern(
        rows: usize,
        cols: usize,
        cells: usize,
        rows_of: impl Fn(usize, &mut Vec<u32>),
        cols_of: impl Fn(usize, &mut Vec<u32>) + Sync,
    ) -> Csr {
        let mut start = vec![0usize; rows + 1];
        let mut cell_rows = Vec::new();
        for c in 0..cells {
            cell_rows.clear();
            rows_of(c, &mut cell_rows);
            for &r in &cell_rows {
                start[r as usize + 1] += 1;
            }
        }
        for k in 0..rows {
            start[k + 1] += start[k];
        }
        let mut next = start.clone();
        let mut cell_of = vec![0u32; start[rows]];
        for c in 0..cells {
            cell_rows.clear();
            rows_of(c, &mut cell_rows);
            for &r in &cell_rows {
                cell_of[next[r as usize]] = c as u32;
                next[r as usize] += 1;
            }
        }
        drop(next);
        let columns: Vec<Vec<u32>> = (0..rows)
            .into_par_iter()
            .map(|r| {
                let mut row = Vec::new();
                for &c in &cell_of[start[r]..start[r + 1]] {
                    cols_of(c as usize, &mut row);
                }
                row.sort_unstable();
                row.dedup();
                row
            })
            .collect();
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        for row in &columns {
            offsets.push(offsets[offsets.len() - 1] + row.len());
        }
        let indices: Vec<u32> = columns.into_iter().flatten().collect();
        let values = vec![0.0; indices.len()];
        Csr {
            rows,
            cols,
            offsets,
            indices,
            values,
        }
    }

    /// `A[row][col] += value`, at an entry of the pattern (found by bisection in the row).
    pub fn add(&mut self, row: u32, col: u32, value: f64) {
        let range = self.offsets[row as usize]..self.offsets[row as usize + 1];
        let at = self.indices[range.clone()]
            .binary_search(&col)
            .expect("the entry is in the pattern");
        self.values[range.start + at] += value;
    }

    /// `y = A x`.
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        y.par_iter_mut().enumerate().for_each(|(r, y)| {
            let range = self.offsets[r]..self.offsets[r + 1];
            *y = self.indices[range.clone()]
                .iter()
                .zip(&self.values[range])
                .map(|(&c, v)| v * x[c as usize])
                .sum();
        });
    }

    /// `y = A x` for vectors of `D` components, the same matrix on each.
    pub fn mul_vectors<const D: usize>(&self, x: &[Vector<D>], y: &mut [Vector<D>]) {
        y.par_iter_mut().enumerate().for_each(|(r, y)| {
            let range = self.offsets[r]..self.offsets[r + 1];
            *y = self.indices[range.clone()]
                .iter()
                .zip(&self.values[range])
                .fold(Vector::<D>::zeros(), |s, (&c, v)| s + x[c as usize] * *v);
        });
    }

    /// The submatrix on the rows and columns `at`, into `out` (its storage reused): row and column
    /// `i` of `out` are row and column `at[i]` of `self`, and `slot[k]` is the position of `k` in
    /// `at` (`u32::MAX` for indices not in it).
    pub fn restrict_into(&self, at: &[u32], slot: &[u32], out: &mut Csr) {
        out.rows = at.len();
        out.cols = at.len();
        out.offsets.clear();
        out.offsets.push(0);
        out.indices.clear();
        out.values.clear();
        for &k in at {
            let (columns, values) = self.row(k as usize);
            for (&c, &v) in columns.iter().zip(values) {
                if slot[c as usize] != u32::MAX {
                    out.indices.push(slot[c as usize]);
                    out.values.push(v);
                }
            }
            out.offsets.push(out.indices.len());
        }
    }

    /// Row `r`: its column indices and values.
    pub fn row(&self, r: usize) -> (&[u32], &[f64]) {
        let range = self.offsets[r]..self.offsets[r + 1];
        (&self.indices[range.clone()], &self.values[range])
    }

    /// `y = Aᵀ x`.
    pub fn mul_transpose(&self, x: &[f64], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for (r, &xr) in x.iter().enumerate().take(self.rows) {
            for k in self.offsets[r]..self.offsets[r + 1] {
                y[self.indices[k] as usize] += self.values[k] * xr;
            }
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Every stored entry as `(row, column, value)`, row by row.
    pub fn entries(&self) -> impl Iterator<Item = (u32, u32, f64)> + '_ {
        (0..self.rows).flat_map(move |r| {
            (self.offsets[r]..self.offsets[r + 1]).map(move |k| (r as u32, self.indices[k], self.values[k]))
        })
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// The diagonal entries (zero where none is stored).
    pub fn diagonal(&self) -> Vec<f64> {
        (0..self.rows).map(|r| self.entry_on_diagonal(r)).collect()
    }

    /// `a_rr`, zero if the row stores none.
    fn entry_on_diagonal(&self, r: usize) -> f64 {
        let (columns, values) = self.row(r);
        columns
            .iter()
            .zip(values)
            .find(|(&c, _)| c as usize == r)
            .map_or(0.0, |(_, &v)| v)
    }

    /// `D⁻¹`, the inverse of the diagonal (zero where it is not positive): Jacobi's
    /// preconditioner and the smoothers' scaling.
    pub fn inverse_diagonal(&self) -> Vec<f64> {
        let mut out = Vec::new();
        self.inverse_diagonal_into(&mut out);
        out
    }

    /// [`inverse_diagonal`](Self::inverse_diagonal) into `out`, reusing its storage.
    pub fn inverse_diagonal_into(&self, out: &mut Vec<f64>) {
        out.clear();
        out.extend((0..self.rows).map(|r| {
            let d = self.entry_on_diagonal(r);
            if d > 0.0 {
                1.0 / d
            } else {
                0.0
            }
        }));
    }

    /// `Aᵀ`, by a counting pass over the columns.
    pub fn transpose(&self) -> Csr {
        let mut offsets = vec![0usize; self.cols + 1];
        for &c in &self.indices {
            offsets[c as usize + 1] += 1;
        }
        for k in 0..self.cols {
            offsets[k + 1] += offsets[k];
        }
        let mut next = offsets.clone();
        let mut indices = vec![0u32; self.indices.len()];
        let mut values = vec![0.0; self.values.len()];
        for r in 0..self.rows {
            for k in self.offsets[r]..self.offsets[r + 1] {
                let c = self.indices[k] as usize;
                indices[next[c]] = r as u32;
                values[next[c]] = self.values[k];
                next[c] += 1;
            }
        }
        Csr {
            rows: self.cols,
            cols: self.rows,
            offsets,
            indices,
            values,
        }
    }

    /// `A B`, row by row (Gustavson's method: each row of the product gathers the rows of `B`
    /// that its entries name, in a dense accumulator), blocks of rows on parallel threads.
    pub fn product(&self, b: &Csr) -> Csr {
        assert_eq!(self.cols, b.rows, "the inner dimensions agree");
        const BLOCK: usize = 2048;
        let blocks: Vec<(Vec<usize>, Vec<u32>, Vec<f64>)> = (0..self.rows.div_ceil(BLOCK))
            .into_par_iter()
            .map(|block| {
                let mut accumulator = vec![0.0; b.cols];
                let mut seen = vec![false; b.cols];
                let (mut counts, mut indices, mut values) = (Vec::new(), Vec::new(), Vec::new());
                let mut row = Vec::new();
                for r in block * BLOCK..((block + 1) * BLOCK).min(self.rows) {
                    row.clear();
                    for k in self.offsets[r]..self.offsets[r + 1] {
                        let (middle, a) = (self.indices[k] as usize, self.values[k]);
                        for m in b.offsets[middle]..b.offsets[middle + 1] {
                            let c = b.indices[m] as usize;
                            if !seen[c] {
                                seen[c] = true;
                                row.push(c as u32);
                            }
                            accumulator[c] += a * b.values[m];
                        }
                    }
                    row.sort_unstable();
                    for &c in &row {
                        indices.push(c);
                        values.push(accumulator[c as usize]);
                        accumulator[c as usize] = 0.0;
                        seen[c as usize] = false;
                    }
                    counts.push(row.len());
                }
                (counts, indices, values)
            })
            .collect();
        let mut offsets = Vec::with_capacity(self.rows + 1);
        offsets.push(0);
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for (counts, i, v) in blocks {
            for c in counts {
                offsets.push(offsets.last().copied().unwrap_or(0) + c);
            }
            indices.extend(i);
            values.extend(v);
        }
        Csr {
            rows: self.rows,
            cols: b.cols,
            offsets,
            indices,
            values,
        }
    }

    /// Calls `f(row, column, value)` on every stored entry, which it may change.
    pub fn for_each_entry_mut(&mut self, mut f: impl FnMut(usize, u32, &mut f64)) {
        for r in 0..self.rows {
            for k in self.offsets[r]..self.offsets[r + 1] {
                f(r, self.indices[k], &mut self.values[k]);
            }
        }
    }

    /// `y = A x` for `K` interleaved columns (`x[K j + c]` is column `c` at row `j`).
    pub fn mul_columns<const K: usize>(&self, x: &[f64], y: &mut [f64]) {
        y.par_chunks_exact_mut(K).enumerate().for_each(|(r, y)| {
            let mut sum = [0.0; K];
            for k in self.offsets[r]..self.offsets[r + 1] {
                let (c, v) = (self.indices[k] as usize, self.values[k]);
                for (s, x) in sum.iter_mut().zip(&x[K * c..K * c + K]) {
                    *s += v * x;
                }
            }
            y.copy_from_slice(&sum);
        });
    }

    /// `a A + b B` for matrices of the same shape.
    pub fn combine(a: f64, ma: &Csr, b: f64, mb: &Csr) -> Csr {
        if ma.offsets == mb.offsets && ma.indices == mb.indices {
            let mut sum = ma.clone();
            sum.values
                .iter_mut()
                .zip(&mb.values)
                .for_each(|(x, y)| *x = a * *x + b * y);
            return sum;
        }
        let mut t = Vec::with_capacity(ma.values.len() + mb.values.len());
        for (scale, m) in [(a, ma), (b, mb)] {
            for r in 0..m.rows {
                for k in m.offsets[r]..m.offsets[r + 1] {
                    t.push((r as u32, m.indices[k], scale * m.values[k]));
                }
            }
        }
        Csr::from_triplets(ma.rows, ma.cols, t)
    }
}
