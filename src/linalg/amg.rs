//! Smoothed-aggregation algebraic multigrid (Vaněk, Mandel and Brezina 1996, "Algebraic
//! multigrid by smoothed aggregation for second and fourth order elliptic problems", Computing
//! 56, 179–196) for a scalar SPD matrix, applied as one V-cycle: the preconditioner of
//! [`super::iterative`]'s conjugate gradients.
//!
//! **Set-up**, level by level until at most [`COARSEST`] unknowns are left:
//! 1. *strength*: `j` is a strong neighbour of `i` when `|a_ij| ≥ θ √(a_ii a_jj)`, with
//!    `θ = 0.08` on the finest level, halved on each coarser one (their matrices are denser);
//! 2. *aggregation* in three passes: every unknown whose strong neighbours are all free starts
//!    an aggregate with them; each one left joins the aggregate of its strongest aggregated
//!    neighbour; the rest group with their free strong neighbours;
//! 3. the *tentative prolongation* `P₀` puts the constant (the near-null space of a Laplacian
//!    and of a mass matrix alike) on each aggregate, and one damped Jacobi step smooths it,
//!    `P = (I − ω D⁻¹ A) P₀` with `ω = 4/(3 λ)`, `λ` a bound on the largest eigenvalue of
//!    `D⁻¹ A` (twenty power iterations, times 1.2: with 1.1 the estimate fell short on one mesh
//!    of the benchmark, the smoother amplified what lay beyond it, and the velocity took 20
//!    iterations instead of 10);
//! 4. the coarse matrix is Galerkin's, `A_c = Pᵀ A P`.
//!
//! The coarsest matrix is factored dense (Cholesky). **A V-cycle** smooths by a Chebyshev
//! polynomial of degree three in `D⁻¹ A` on `[λ/30, λ]` before and after the coarse correction:
//! a polynomial of the matrix, so the cycle is symmetric (what conjugate gradients need) and every
//! operation is a matrix–vector product or a vector update, parallel over rows; Gauss–Seidel
//! would be sequential. `K` right-hand sides (the velocity components) go through the cycle
//! together, interleaved, so each pass over a matrix serves all of them.
//!
//! **Cost**: the operator complexity `Σ nnz(A_l)/nnz(A_0)` (1.6 on the 7-point Laplacian, 1.1
//! on the P2 velocity matrix over its P1 level) times the matrix's memory; a cycle about ten
//! products with each level's matrix and two with each transfer.
//! Written here: the Rust crates that offer AMG (scirs2-sparse, nalgebra-sparse-linalg) are young,
//! bring their own matrix types and run on one thread; this one works on [`Csr`] with `u32`
//! indices, interleaved columns and rayon.

use super::sparse::Csr;
use nalgebra::DMatrix;
use rayon::prelude::*;

/// Levels stop coarsening at this many unknowns, factored dense.
pub const COARSEST: usize = 400;

/// The most levels.
const MAX_LEVELS: usize = 25;

/// A level: its matrix, the inverse of its diagonal, `λ ≈ ρ(D⁻¹ A)`, and (but on the coarsest)
/// the prolongation to it from the next coarser level and its transpose.
#[derive(Debug)]
struct Level {
    a: Csr,
    inverse_diagonal: Vec<f64>,
    lambda: f64,
    transfer: Option<(Csr, Csr)>,
}

impl Level {
    /// The level of `a` (with `D⁻¹` and `λ`) and, given the prolongation `p` from the next
    /// coarser level, that level's matrix `Pᵀ A P`.
    fn with(a: Csr, inverse_diagonal: Vec<f64>, lambda: f64, p: Option<Csr>) -> (Level, Option<Csr>) {
        let transfer = p.map(|p| {
            let r = p.transpose();
            (p, r)
        });
        let coarse = transfer.as_ref().map(|(p, r)| r.product(&a.product(p)));
        let level = Level {
            a,
            inverse_diagonal,
            lambda,
            transfer,
        };
        (level, coarse)
    }
}

/// A level's vectors for `K` interleaved columns: right-hand side, solution, residual, the
/// smoother's direction and a product.
#[derive(Debug, Default)]
struct Vectors {
    b: Vec<f64>,
    x: Vec<f64>,
    r: Vec<f64>,
    d: Vec<f64>,
    t: Vec<f64>,
}

/// The hierarchy and the vectors of its V-cycle.
#[derive(Debug)]
pub struct Amg {
    levels: Vec<Level>,
    coarsest: DMatrix<f64>,
    vectors: Vec<Vectors>,
}

impl Amg {
    /// The hierarchy of the SPD matrix `a`; `first`, if given, is the prolongation to the first
    /// level from a coarser space the caller knows (P1 under P2: `A_c = Pᵀ A P` is then the P1
    /// matrix of the same operator, far sparser than an aggregation's), and aggregation goes on
    /// from there.
    pub fn new(a: Csr, first: Option<Csr>) -> Amg {
        let mut levels = Vec::new();
        let mut a = a;
        let mut theta = 0.08;
        if let Some(p) = first.filter(|p| p.rows() == a.rows() && a.rows() > COARSEST) {
            let (inverse_diagonal, lambda) = bounds(&a);
            let (level, coarse) = Level::with(a, inverse_diagonal, lambda, Some(p));
            levels.push(level);
            a = coarse.expect("a coarse matrix under a prolongation");
        }
        loop {
            let (inverse_diagonal, lambda) = bounds(&a);
            let n = a.rows();
            if n <= COARSEST || levels.len() + 1 >= MAX_LEVELS {
                levels.push(Level::with(a, inverse_diagonal, lambda, None).0);
                break;
            }
            // Where too few unknowns are strong neighbours for the aggregates to coarsen, weaker
            // connections count too.
            let (mut aggregate, mut count) = aggregates(&a, theta);
            while count as f64 > 0.7 * n as f64 && theta > 1e-4 {
                theta *= 0.25;
                (aggregate, count) = aggregates(&a, theta);
            }
            let p = prolongation(&a, &inverse_diagonal, lambda, &aggregate, count);
            let (level, coarse) = Level::with(a, inverse_diagonal, lambda, Some(p));
            levels.push(level);
            a = coarse.expect("a coarse matrix under a prolongation");
            theta *= 0.5;
        }
        let last = &levels[levels.len() - 1].a;
        let n = last.rows();
        let mut dense = DMatrix::<f64>::zeros(n, n);
        for (i, j, v) in last.entries() {
            dense[(i as usize, j as usize)] += v;
        }
        let coarsest = match dense.clone().cholesky() {
            Some(c) => c.inverse(),
            None => dense.pseudo_inverse(1e-12).unwrap_or_else(|_| DMatrix::zeros(n, n)),
        };
        let vectors = levels.iter().map(|_| Vectors::default()).collect();
        Amg {
            levels,
            coarsest,
            vectors,
        }
    }

    /// The number of levels.
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// The operator complexity: the entries of all levels' matrices over the finest one's.
    pub fn complexity(&self) -> f64 {
        let total: usize = self.levels.iter().map(|l| l.a.nnz()).sum();
        total as f64 / self.levels[0].a.nnz().max(1) as f64
    }

    /// `x = M⁻¹ b` by one V-cycle, `K` interleaved columns.
    pub fn apply<const K: usize>(&mut self, b: &[f64], x: &mut [f64]) {
        let (_, mut cycle) = self.split::<K>();
        cycle(b, x);
    }

    /// The finest matrix, `A` itself, and the V-cycle `(b, x) ↦ x = M⁻¹ b` for `K` interleaved
    /// columns: what conjugate gradients need, from one hierarchy that holds `A` once.
    pub fn split<const K: usize>(&mut self) -> (&Csr, impl FnMut(&[f64], &mut [f64]) + '_) {
        let Amg {
            levels,
            coarsest,
            vectors,
        } = self;
        for (level, v) in levels.iter().zip(vectors.iter_mut()) {
            let n = K * level.a.rows();
            for w in [&mut v.b, &mut v.x, &mut v.r, &mut v.d, &mut v.t] {
                w.resize(n, 0.0);
            }
        }
        let levels: &[Level] = levels;
        let apply = move |b: &[f64], x: &mut [f64]| {
            vectors[0].b.copy_from_slice(b);
            cycle::<K>(levels, vectors, coarsest);
            x.copy_from_slice(&vectors[0].x);
        };
        (&levels[0].a, apply)
    }
}

/// The V-cycle from the first of `levels`: `x ≈ A⁻¹ b` in `vectors[0]`.
fn cycle<const K: usize>(levels: &[Level], vectors: &mut [Vectors], coarsest: &DMatrix<f64>) {
    let level = &levels[0];
    let (v, coarse) = vectors.split_first_mut().expect("a level");
    let Some((p, r)) = &level.transfer else {
        // x = A⁻¹ b with the dense inverse, column by column of it (it is stored by columns).
        v.x.fill(0.0);
        for (j, column) in coarsest.column_iter().enumerate() {
            let b: [f64; K] = std::array::from_fn(|c| v.b[K * j + c]);
            for (x, &m) in v.x.chunks_exact_mut(K).zip(column.iter()) {
                x.iter_mut().zip(&b).for_each(|(x, b)| *x += m * b);
            }
        }
        return;
    };
    v.x.fill(0.0);
    smooth::<K>(level, v, true);
    level.a.mul_columns::<K>(&v.x, &mut v.t);
    v.r.par_iter_mut()
        .zip(&v.b)
        .zip(&v.t)
        .for_each(|((r, b), t)| *r = b - t);
    r.mul_columns::<K>(&v.r, &mut coarse[0].b);
    cycle::<K>(&levels[1..], coarse, coarsest);
    p.mul_columns::<K>(&coarse[0].x, &mut v.t);
    v.x.par_iter_mut().zip(&v.t).for_each(|(x, t)| *x += t);
    smooth::<K>(level, v, false);
}

/// Three steps of Chebyshev's iteration on `D⁻¹ A x = D⁻¹ b` for the eigenvalues in `[λ/30, λ]`
/// (Saad, "Iterative methods for sparse linear systems", algorithm 12.1), from `x = 0` when
/// `zero` (then the first residual is `b`).
fn smooth<const K: usize>(level: &Level, v: &mut Vectors, zero: bool) {
    const DEGREE: usize = 3;
    let (high, low) = (level.lambda, level.lambda / 30.0);
    let (theta, delta) = (0.5 * (high + low), 0.5 * (high - low));
    let sigma = theta / delta;
    let mut rho = 1.0 / sigma;
    if zero {
        v.r.copy_from_slice(&v.b);
    } else {
        level.a.mul_columns::<K>(&v.x, &mut v.t);
        v.r.par_iter_mut()
            .zip(&v.b)
            .zip(&v.t)
            .for_each(|((r, b), t)| *r = b - t);
    }
    let inverse = &level.inverse_diagonal;
    v.d.par_chunks_exact_mut(K)
        .zip(v.r.par_chunks_exact(K))
        .zip(inverse.par_iter())
        .for_each(|((d, r), s)| d.iter_mut().zip(r).for_each(|(d, r)| *d = r * s / theta));
    for k in 0..DEGREE {
        v.x.par_iter_mut().zip(&v.d).for_each(|(x, d)| *x += d);
        if k + 1 == DEGREE {
            break;
        }
        level.a.mul_columns::<K>(&v.d, &mut v.t);
        v.r.par_iter_mut().zip(&v.t).for_each(|(r, t)| *r -= t);
        let next = 1.0 / (2.0 * sigma - rho);
        let (keep, push) = (next * rho, 2.0 * next / delta);
        v.d.par_chunks_exact_mut(K)
            .zip(v.r.par_chunks_exact(K))
            .zip(inverse.par_iter())
            .for_each(|((d, r), s)| {
                d.iter_mut().zip(r).for_each(|(d, r)| *d = keep * *d + push * s * r);
            });
        rho = next;
    }
}

/// The smoothers' bound on the largest eigenvalue of `D⁻¹ A` is the power iterations' estimate,
/// which is low, times this.
const SAFETY: f64 = 1.2;

/// Power iterations that estimate the largest eigenvalue of `D⁻¹ A`.
const POWER_ITERATIONS: usize = 20;

/// `D⁻¹`, the inverse of `a`'s diagonal (zero where it is not positive), and the smoothers'
/// bound `λ` on the spectrum of `D⁻¹ A`.
fn bounds(a: &Csr) -> (Vec<f64>, f64) {
    let inverse = a.inverse_diagonal();
    let lambda = SAFETY * spectral_radius(a, &inverse);
    (inverse, lambda)
}

/// An estimate of the largest eigenvalue of `D⁻¹ A` (`inverse` = `D⁻¹`), by power iterations
/// from a fixed start of pseudo-random values (all frequencies present).
fn spectral_radius(a: &Csr, inverse: &[f64]) -> f64 {
    let n = a.rows();
    let mut v: Vec<f64> = (0..n)
        .map(|i| ((i as u64).wrapping_mul(2_654_435_761) % 4_294_967_296) as f64 / 4_294_967_296.0 - 0.5)
        .collect();
    let mut w = vec![0.0; n];
    let mut lambda = 1.0;
    for _ in 0..POWER_ITERATIONS {
        a.mul(&v, &mut w);
        w.par_iter_mut().zip(inverse).for_each(|(w, s)| *w *= s);
        let (norm_v, norm_w) = (norm(&v), norm(&w));
        if norm_w == 0.0 || norm_v == 0.0 {
            break;
        }
        lambda = norm_w / norm_v;
        v.par_iter_mut().zip(&w).for_each(|(v, w)| *v = w / norm_w);
    }
    lambda
}

fn norm(v: &[f64]) -> f64 {
    super::iterative::dots::<1>(v, v)[0].sqrt()
}

const FREE: u32 = u32::MAX;

/// The aggregates of `a` at strength `theta`: each unknown's aggregate and their number.
fn aggregates(a: &Csr, theta: f64) -> (Vec<u32>, usize) {
    let n = a.rows();
    let diagonal = &a.diagonal();
    let strong = |i: usize| {
        let (columns, values) = a.row(i);
        columns.iter().zip(values).filter_map(move |(&j, &v)| {
            let strength = v.abs() / (diagonal[i] * diagonal[j as usize]).abs().sqrt();
            (j as usize != i && strength >= theta).then_some((j as usize, strength))
        })
    };
    let mut aggregate = vec![FREE; n];
    let mut count = 0u32;
    for i in 0..n {
        if aggregate[i] == FREE && strong(i).all(|(j, _)| aggregate[j] == FREE) {
            aggregate[i] = count;
            for (j, _) in strong(i) {
                aggregate[j] = count;
            }
            count += 1;
        }
    }
    let first = aggregate.clone();
    for (i, g) in aggregate.iter_mut().enumerate() {
        if *g == FREE {
            let best = strong(i)
                .filter(|&(j, _)| first[j] != FREE)
                .max_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((j, _)) = best {
                *g = first[j];
            }
        }
    }
    for i in 0..n {
        if aggregate[i] == FREE {
            aggregate[i] = count;
            for (j, _) in strong(i) {
                if aggregate[j] == FREE {
                    aggregate[j] = count;
                }
            }
            count += 1;
        }
    }
    (aggregate, count as usize)
}

/// `P = (I − ω D⁻¹ A) P₀`, `ω = 4/(3 λ)`, with `P₀` the aggregates' indicator.
fn prolongation(a: &Csr, inverse: &[f64], lambda: f64, aggregate: &[u32], count: usize) -> Csr {
    let tentative = Csr::from_triplets(
        a.rows(),
        count,
        aggregate.iter().enumerate().map(|(i, &g)| (i as u32, g, 1.0)).collect(),
    );
    let omega = 4.0 / (3.0 * lambda);
    let mut p = a.product(&tentative);
    p.for_each_entry_mut(|i, j, v| {
        *v = if j == aggregate[i] { 1.0 } else { 0.0 } - omega * inverse[i] * *v;
    });
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 7-point Laplacian on an `m³` grid with Dirichlet conditions outside.
    fn laplacian(m: usize) -> Csr {
        let at = |i: usize, j: usize, k: usize| ((i * m + j) * m + k) as u32;
        let mut t = Vec::new();
        for i in 0..m {
            for j in 0..m {
                for k in 0..m {
                    t.push((at(i, j, k), at(i, j, k), 6.0));
                    for (di, dj, dk) in [(1, 0, 0), (0, 1, 0), (0, 0, 1)] {
                        let (a, b, c) = (i + di, j + dj, k + dk);
                        if a < m && b < m && c < m {
                            t.push((at(i, j, k), at(a, b, c), -1.0));
                            t.push((at(a, b, c), at(i, j, k), -1.0));
                        }
                    }
                }
            }
        }
        Csr::from_triplets(m * m * m, m * m * m, t)
    }

    /// A V-cycle as an iteration, `x ← x + M⁻¹ (b − A x)`, reduces the error of the 3D
    /// Laplacian by a factor independent of the grid: at most 0.35 a cycle on 16³ and 32³.
    #[test]
    fn v_cycles_converge_at_a_rate_independent_of_the_grid() {
        for m in [16, 32] {
            let a = laplacian(m);
            let n = a.rows();
            let mut amg = Amg::new(a.clone(), None);
            assert!(amg.depth() >= 3, "{} levels", amg.depth());
            assert!(amg.complexity() < 2.0, "complexity {}", amg.complexity());
            let b: Vec<f64> = (0..n).map(|i| ((i * 13) % 7) as f64 - 3.0).collect();
            let mut x = vec![0.0; n];
            let (mut r, mut ax, mut dx) = (b.clone(), vec![0.0; n], vec![0.0; n]);
            let mut norms = Vec::new();
            for _ in 0..8 {
                amg.apply::<1>(&r, &mut dx);
                x.iter_mut().zip(&dx).for_each(|(x, d)| *x += d);
                a.mul(&x, &mut ax);
                r.iter_mut().zip(b.iter().zip(&ax)).for_each(|(r, (b, ax))| *r = b - ax);
                norms.push(norm(&r));
            }
            let rate = (norms[7] / norms[2]).powf(1.0 / 5.0);
            assert!(rate < 0.35, "m = {m}: rate {rate}, residuals {norms:?}");
        }
    }
}
