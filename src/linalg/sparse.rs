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

    /// `a A + b B` for matrices of the same shape.
    pub fn combine(a: f64, ma: &Csr, b: f64, mb: &Csr) -> Csr {
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
