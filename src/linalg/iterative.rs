//! Conjugate gradients preconditioned by one algebraic-multigrid V-cycle ([`super::amg`]) for
//! an SPD matrix with prescribed unknowns: the path of [`super::SpdSolver`] whose memory grows
//! linearly with the unknowns, for 3D meshes whose Cholesky factor would not fit or would be slow.
//!
//! The prescribed unknowns are eliminated as in [`super::cholesky`] (`A_ff x_f = b_f − A_fd x_d`).
//! `K` right-hand sides (the velocity components) iterate together, interleaved, each with its
//! own step lengths, so every product and V-cycle serves all of them; a column stops counting
//! when `‖r‖ ≤ tolerance ‖b‖` (it keeps iterating, harmlessly, until the others do too).
//!
//! **Cost** per iteration: one product with `A_ff`, one V-cycle (about ten products' worth),
//! five vector updates; memory `nnz(A_ff)` plus the hierarchy (its operator complexity times
//! that) plus six vectors of `K n` values and five on each level of the V-cycle. The V-cycle's
//! rate does not depend on `h`, so the iterations do not grow with the mesh: to `10⁻⁹`, 9–10 on
//! the 3D velocity matrix and 11–13 on the pressure's from 15 000 to 5.3 million velocity
//! unknowns (`tumble bench solver`, docs/performance.md).

use super::amg::Amg;
use super::sparse::Csr;
use faer::MatMut;
use rayon::prelude::*;

/// The relative residual at which a solve stops.
pub const TOLERANCE: f64 = 1e-9;

/// The most iterations of a solve.
const MAX_ITERATIONS: usize = 500;

/// An SPD system with prescribed unknowns, solved by AMG-preconditioned conjugate gradients.
#[derive(Debug)]
pub struct AmgCg {
    rows: usize,
    /// The free unknowns, in increasing order.
    free: Vec<u32>,
    lift: Vec<(u32, u32, f64)>,
    /// The hierarchy of `A_ff` (which holds `A_ff` as its finest level).
    amg: Amg,
    /// The iterations' vectors, `K` interleaved columns of the free unknowns.
    cg: Cg,
    /// The iterations of the last solve.
    pub last_iterations: usize,
    /// Solves that stopped at the most iterations before the tolerance.
    pub unconverged: usize,
}

impl AmgCg {
    /// The system `matrix` (SPD on the free unknowns) with the unknowns flagged in `prescribed`
    /// eliminated; builds the multigrid hierarchy, its first level by `coarse` if given (a
    /// prolongation onto all the unknowns from a coarser space, [`Amg::new`]).
    pub fn new(matrix: &Csr, prescribed: &[bool], coarse: Option<&Csr>) -> AmgCg {
        let (free, reduced, lift) = super::cholesky::eliminate(matrix, prescribed, |_, _| true);
        let n = free.len();
        let first = coarse.map(|p| free_rows(p, &free));
        let amg = Amg::new(Csr::from_triplets(n, n, reduced), first);
        AmgCg {
            rows: matrix.rows(),
            free,
            lift,
            amg,
            cg: Cg::default(),
            last_iterations: 0,
            unconverged: 0,
        }
    }

    /// The number of unknowns.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Whether unknown `k` is free (not prescribed).
    pub fn is_free(&self, k: u32) -> bool {
        self.free.binary_search(&k).is_ok()
    }

    /// Solves in place, `K` columns, to the relative residual `tolerance` ([`TOLERANCE`] unless
    /// an outer iteration needs fewer digits): `x` holds the right-hand sides with the
    /// prescribed values in the prescribed rows on entry, the solutions on return.
    pub fn solve_in_place<const K: usize>(&mut self, mut x: MatMut<'_, f64>, tolerance: f64) {
        assert_eq!(x.nrows(), self.rows, "one row per unknown");
        self.cg.reset(K * self.free.len());
        let b = &mut self.cg.b;
        for (i, &k) in self.free.iter().enumerate() {
            for c in 0..K {
                b[K * i + c] = x[(k as usize, c)];
            }
        }
        for &(i, col, value) in &self.lift {
            for c in 0..K {
                b[K * i as usize + c] -= value * x[(col as usize, c)];
            }
        }
        let (a, cycle) = self.amg.split::<K>();
        let (iterations, converged) = self.cg.solve::<K>(a, cycle, tolerance);
        self.last_iterations = iterations;
        if !converged {
            self.unconverged += 1;
        }
        for (i, &k) in self.free.iter().enumerate() {
            for c in 0..K {
                x[(k as usize, c)] = self.cg.x[K * i + c];
            }
        }
    }
}

/// The vectors of conjugate gradients on `K` interleaved columns, kept between solves: the
/// right-hand side and the solution (public: the caller fills one and reads the other), the
/// residual, the preconditioned residual, the direction and its product.
#[derive(Debug, Default)]
pub struct Cg {
    /// The right-hand side.
    pub b: Vec<f64>,
    /// The solution.
    pub x: Vec<f64>,
    r: Vec<f64>,
    z: Vec<f64>,
    p: Vec<f64>,
    q: Vec<f64>,
}

impl Cg {
    /// Every vector zero, of length `len`.
    pub fn reset(&mut self, len: usize) {
        for v in [
            &mut self.b,
            &mut self.x,
            &mut self.r,
            &mut self.z,
            &mut self.p,
            &mut self.q,
        ] {
            v.clear();
            v.resize(len, 0.0);
        }
    }

    /// Conjugate gradients on `a x = b` from `x = 0`, each of the `K` columns with its own
    /// steps, preconditioned by `precondition(r, z)` (`z = M⁻¹ r`, symmetric positive definite),
    /// until every column's residual is below `tolerance` times its right-hand side or
    /// 500 iterations; returns the iterations and whether the tolerance was reached.
    pub fn solve<const K: usize>(
        &mut self,
        a: &Csr,
        precondition: impl FnMut(&[f64], &mut [f64]),
        tolerance: f64,
    ) -> (usize, bool) {
        let Cg { b, x, r, z, p, q } = self;
        conjugate_gradients::<K>(a, precondition, b, x, [r, z, p, q], tolerance)
    }
}

/// [`Cg::solve`] on the vectors `[r, z, p, q]`.
fn conjugate_gradients<const K: usize>(
    a: &Csr,
    mut precondition: impl FnMut(&[f64], &mut [f64]),
    b: &[f64],
    x: &mut [f64],
    [r, z, p, q]: [&mut Vec<f64>; 4],
    tolerance: f64,
) -> (usize, bool) {
    let goal: [f64; K] = {
        let norms = dots::<K>(b, b);
        std::array::from_fn(|c| tolerance * tolerance * norms[c])
    };
    x.fill(0.0);
    r.copy_from_slice(b);
    precondition(r, z);
    p.copy_from_slice(z);
    let mut rz = dots::<K>(r, z);
    let mut iterations = 0;
    while iterations < MAX_ITERATIONS {
        let rr = dots::<K>(r, r);
        if (0..K).all(|c| rr[c] <= goal[c]) {
            return (iterations, true);
        }
        a.mul_columns::<K>(p, q);
        let pq = dots::<K>(p, q);
        let alpha: [f64; K] = std::array::from_fn(|c| if pq[c] > 0.0 { rz[c] / pq[c] } else { 0.0 });
        x.par_chunks_exact_mut(K)
            .zip(r.par_chunks_exact_mut(K))
            .zip(p.par_chunks_exact(K).zip(q.par_chunks_exact(K)))
            .for_each(|((x, r), (p, q))| {
                for c in 0..K {
                    x[c] += alpha[c] * p[c];
                    r[c] -= alpha[c] * q[c];
                }
            });
        precondition(r, z);
        let next = dots::<K>(r, z);
        let beta: [f64; K] = std::array::from_fn(|c| if rz[c] > 0.0 { next[c] / rz[c] } else { 0.0 });
        rz = next;
        p.par_chunks_exact_mut(K)
            .zip(z.par_chunks_exact(K))
            .for_each(|(p, z)| (0..K).for_each(|c| p[c] = z[c] + beta[c] * p[c]));
        iterations += 1;
    }
    (iterations, false)
}

/// The rows `free` of the prolongation `p`, without the columns left empty.
fn free_rows(p: &Csr, free: &[u32]) -> Csr {
    let mut used = vec![u32::MAX; p.cols()];
    let mut t = Vec::new();
    let mut count = 0u32;
    for (i, &k) in free.iter().enumerate() {
        let (columns, values) = p.row(k as usize);
        for (&c, &v) in columns.iter().zip(values) {
            if used[c as usize] == u32::MAX {
                used[c as usize] = count;
                count += 1;
            }
            t.push((i as u32, used[c as usize], v));
        }
    }
    Csr::from_triplets(free.len(), count as usize, t)
}

/// The `K` columns' dot products of interleaved vectors, the same bits on any number of threads.
pub(super) fn dots<const K: usize>(u: &[f64], v: &[f64]) -> [f64; K] {
    // Blocks of a fixed size, summed in order: the same sums whatever the threads.
    const BLOCK: usize = 4096;
    let partial: Vec<[f64; K]> = u
        .par_chunks(K * BLOCK)
        .zip(v.par_chunks(K * BLOCK))
        .map(|(u, v)| {
            let mut s = [0.0; K];
            for (u, v) in u.chunks_exact(K).zip(v.chunks_exact(K)) {
                (0..K).for_each(|c| s[c] += u[c] * v[c]);
            }
            s
        })
        .collect();
    partial
        .iter()
        .fold([0.0; K], |a, b| std::array::from_fn(|c| a[c] + b[c]))
}
