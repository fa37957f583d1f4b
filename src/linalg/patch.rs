//! The response of an SPD matrix to loads at a few unknowns, approximated on a patch around
//! them: the unknowns within a few layers of the matrix's graph, the others held at zero.
//!
//! Where the matrix is dominated by its mass term (a time step's `(3/(2Δt)) M + ν K` with
//! `ν Δt` small against `h²`), `A⁻¹` decays within a few cells of a load (over the length
//! `√(ν Δt)`), so the response on the patch is close to the whole one at the loads, and costs a
//! fraction of it: Jacobi-preconditioned conjugate gradients on the patch's matrix (the mass
//! term makes it well conditioned). The rigid bodies' constraint iterates on it on the iterative
//! path ([`crate::sim::Immersed`]) and corrects with whole solves.
//!
//! **Cost**: building, a breadth-first search of `layers` layers and the patch's submatrix
//! (`O(entries of its rows)`); a solve, a few tens of products with that submatrix.

use super::iterative::Cg;
use super::sparse::Csr;
use crate::math::Vector;

const NONE: u32 = u32::MAX;

/// A patch of unknowns, its matrix, and the vectors of its solves; kept between uses.
#[derive(Debug, Default)]
pub struct Patch {
    /// The unknowns of the patch.
    dofs: Vec<u32>,
    /// Each unknown's position in `dofs` (`NONE` outside).
    slot: Vec<u32>,
    matrix: Csr,
    inverse_diagonal: Vec<f64>,
    /// The solves' vectors.
    cg: Cg,
    /// The CG iterations of the last solve.
    pub last_iterations: usize,
}

impl Patch {
    /// The patch of the free unknowns within `layers` steps of `seeds` in the graph of `a`
    /// (`prescribed` unknowns are left out: their response is zero), and its matrix.
    pub fn build(&mut self, a: &Csr, prescribed: &[bool], seeds: &[u32], layers: usize) {
        self.slot.resize(a.rows(), NONE);
        for &k in &self.dofs {
            self.slot[k as usize] = NONE;
        }
        self.dofs.clear();
        for &k in seeds {
            if !prescribed[k as usize] && self.slot[k as usize] == NONE {
                self.slot[k as usize] = self.dofs.len() as u32;
                self.dofs.push(k);
            }
        }
        let mut begin = 0;
        for _ in 0..layers {
            let end = self.dofs.len();
            for i in begin..end {
                let (columns, _) = a.row(self.dofs[i] as usize);
                for &c in columns {
                    if !prescribed[c as usize] && self.slot[c as usize] == NONE {
                        self.slot[c as usize] = self.dofs.len() as u32;
                        self.dofs.push(c);
                    }
                }
            }
            begin = end;
        }
        a.restrict_into(&self.dofs, &self.slot, &mut self.matrix);
        self.matrix.inverse_diagonal_into(&mut self.inverse_diagonal);
    }

    /// The number of unknowns in the patch.
    pub fn len(&self) -> usize {
        self.dofs.len()
    }

    /// Whether the patch is empty.
    pub fn is_empty(&self) -> bool {
        self.dofs.is_empty()
    }

    /// `out[i] ≈ (A⁻¹ b)[at[i]]` for `b` that is `load[i]` at `at[i]` and zero elsewhere: the
    /// patch's solution (zero outside it) to a relative residual `tolerance`.
    pub fn solve<const K: usize>(&mut self, at: &[u32], load: &[Vector<K>], out: &mut [Vector<K>], tolerance: f64) {
        self.cg.reset(K * self.dofs.len());
        for (&k, l) in at.iter().zip(load) {
            let s = self.slot[k as usize];
            if s != NONE {
                self.cg.b[K * s as usize..K * s as usize + K].copy_from_slice(l.as_slice());
            }
        }
        let inverse = &self.inverse_diagonal;
        let jacobi = |r: &[f64], z: &mut [f64]| {
            for ((z, r), s) in z.chunks_exact_mut(K).zip(r.chunks_exact(K)).zip(inverse) {
                z.iter_mut().zip(r).for_each(|(z, r)| *z = r * s);
            }
        };
        let (iterations, _) = self.cg.solve::<K>(&self.matrix, jacobi, tolerance);
        self.last_iterations = iterations;
        for (&k, o) in at.iter().zip(out.iter_mut()) {
            let s = self.slot[k as usize];
            *o = if s == NONE {
                Vector::<K>::zeros()
            } else {
                Vector::<K>::from_column_slice(&self.cg.x[K * s as usize..K * s as usize + K])
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::SpdSolver;

    /// A mass-dominated chain, `(1 + 2ε) x_i − ε (x_{i−1} + x_{i+1})`, `ε = 0.1`, whose inverse
    /// decays by `ρ ≈ 0.092` a node: held at zero `L + 1` nodes from the loads, the patch's
    /// response at two loads errs by about `ρ^{2(L+1)}`: 7e-5 with one layer, below 1e-10 with
    /// eight.
    #[test]
    fn the_patch_response_matches_the_whole_one_as_the_layers_grow() {
        let (n, e) = (2001usize, 0.1);
        let mut t = Vec::new();
        for i in 0..n as u32 {
            t.push((i, i, 1.0 + 2.0 * e));
            if i > 0 {
                t.push((i, i - 1, -e));
                t.push((i - 1, i, -e));
            }
        }
        let a = Csr::from_triplets(n, n, t);
        let prescribed = vec![false; n];
        let at = [700u32, 704];
        let load = [Vector::<2>::new(1.0, -2.0), Vector::<2>::new(0.5, 3.0)];
        let mut whole = SpdSolver::new(&a, &prescribed, 2, false).unwrap();
        let mut exact = [Vector::<2>::zeros(); 2];
        let mut reach = crate::linalg::Reach::default();
        assert!(whole.reach(&at, &mut reach));
        whole.solve_at(&mut reach, &at, &load, &mut exact);
        let error = |layers: usize| {
            let mut patch = Patch::default();
            patch.build(&a, &prescribed, &at, layers);
            let within = |i: usize| {
                at.iter()
                    .any(|&a| (i as i64 - a as i64).unsigned_abs() as usize <= layers)
            };
            assert_eq!(patch.len(), (0..n).filter(|&i| within(i)).count());
            let mut out = [Vector::<2>::zeros(); 2];
            patch.solve(&at, &load, &mut out, 1e-12);
            out.iter().zip(&exact).map(|(o, x)| (o - x).norm()).fold(0.0, f64::max)
        };
        let (one, eight) = (error(1), error(8));
        assert!(one > 1e-5 && one < 1e-3, "one layer: {one:e}");
        assert!(eight < 1e-10, "eight layers: {eight:e}");
    }
}
