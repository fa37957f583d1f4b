//! Right-preconditioned GMRES: without restart for the Newton steps of the steady solver, whose
//! matrix is close to one already factored ([`gmres`]); restarted for the rigid bodies'
//! non-symmetric constraint ([`restarted_gmres`], [`crate::sim::Immersed`]).
//!
//! With a preconditioner `M ≈ A`, GMRES builds an orthonormal basis `V` of the Krylov space of
//! `A M⁻¹` from the initial residual `r₀ = b − A x₀` (Arnoldi with modified Gram–Schmidt,
//! `A M⁻¹ V_j = V_{j+1} H_j`), and takes `x = x₀ + M⁻¹ V_j y` with `y` minimising
//! `‖β e₁ − H_j y‖` (Givens rotations keep `H_j` triangular, and the minimum is the residual's norm
//! without forming it). Right preconditioning makes that norm the true residual `‖b − A x‖`, so the
//! stopping test means the same whatever `M` is. When `A − M` is small, `A M⁻¹ = I + (A − M) M⁻¹`
//! and the residual falls by about `‖(A − M) M⁻¹‖` per iteration, faster as the iteration goes on.
//!
//! **Cost** of `k` iterations on `n` unknowns: `k` products with `A`, `k` applications of `M⁻¹`,
//! and `k(k + 3)/2` dot products and as many updates of length `n` (the Gram–Schmidt sweeps);
//! memory `2(k + 1) n` values (the basis `V` and the directions `M⁻¹ V`). Without restart the
//! cost grows as `k² n`, so it is meant for a good preconditioner and a few iterations (the
//! steady solver stops at 20 and factorises instead); restarted after `m` iterations, `x` takes the
//! cycle's minimiser and the next cycle starts from its residual, memory `2(m + 1) n`.

/// Solves `A x = b` from the initial guess in `x`, stopping when `‖b − A x‖ ≤ tolerance`.
/// `apply(v, out)` sets `out = A v`; `precondition(v)` replaces `v` by `M⁻¹ v`. Returns the number
/// of iterations, or `None` (with `x` unchanged) when `max_iterations` do not reach the tolerance.
pub fn gmres(
    mut apply: impl FnMut(&[f64], &mut [f64]),
    mut precondition: impl FnMut(&mut [f64]),
    b: &[f64],
    x: &mut [f64],
    tolerance: f64,
    max_iterations: usize,
) -> Option<usize> {
    let start = x.to_vec();
    match cycle(&mut apply, &mut precondition, b, x, tolerance, max_iterations) {
        (iterations, true) => Some(iterations),
        (_, false) => {
            x.copy_from_slice(&start);
            None
        }
    }
}

/// Restarted GMRES(`restart`): cycles of at most `restart` iterations from the last cycle's
/// solution, until `‖b − A x‖ ≤ tolerance` or `max_iterations` in all, so that memory stays
/// `2(restart + 1) n` values whatever the iterations. Returns the iterations and whether the
/// tolerance was reached; `x` holds the best solution found either way.
pub fn restarted_gmres(
    mut apply: impl FnMut(&[f64], &mut [f64]),
    mut precondition: impl FnMut(&mut [f64]),
    b: &[f64],
    x: &mut [f64],
    tolerance: f64,
    restart: usize,
    max_iterations: usize,
) -> (usize, bool) {
    let mut done = 0;
    loop {
        let length = restart.max(1).min(max_iterations - done.min(max_iterations));
        let (iterations, converged) = cycle(&mut apply, &mut precondition, b, x, tolerance, length);
        done += iterations;
        if converged || done >= max_iterations || iterations == 0 {
            return (done, converged);
        }
    }
}

/// One cycle of at most `max_iterations` from `x`, leaving in `x` the minimiser of the residual
/// over the Krylov space built; returns the iterations and whether the tolerance was reached.
fn cycle(
    apply: &mut impl FnMut(&[f64], &mut [f64]),
    precondition: &mut impl FnMut(&mut [f64]),
    b: &[f64],
    x: &mut [f64],
    tolerance: f64,
    max_iterations: usize,
) -> (usize, bool) {
    let n = b.len();
    let mut w = vec![0.0; n];
    apply(x, &mut w);
    let mut v: Vec<f64> = b.iter().zip(&w).map(|(b, aw)| b - aw).collect();
    let beta = norm(&v);
    if beta <= tolerance {
        return (0, true);
    }
    v.iter_mut().for_each(|vi| *vi /= beta);
    // The basis V, the preconditioned directions Z = M⁻¹ V, the Hessenberg columns (rotated to
    // triangular), the rotations and the rotated right-hand side g.
    let mut basis = vec![v];
    let mut directions: Vec<Vec<f64>> = Vec::new();
    let mut h: Vec<Vec<f64>> = Vec::new();
    let mut rotations: Vec<(f64, f64)> = Vec::new();
    let mut g = vec![beta];
    let mut converged = false;
    for j in 0..max_iterations {
        let mut z = basis[j].clone();
        precondition(&mut z);
        apply(&z, &mut w);
        directions.push(z);
        let mut column = Vec::with_capacity(j + 2);
        for vi in &basis {
            let hij = dot(&w, vi);
            w.iter_mut().zip(vi).for_each(|(wk, vk)| *wk -= hij * vk);
            column.push(hij);
        }
        let next = norm(&w);
        column.push(next);
        for (i, &(c, s)) in rotations.iter().enumerate() {
            let (a, b) = (column[i], column[i + 1]);
            column[i] = c * a + s * b;
            column[i + 1] = c * b - s * a;
        }
        let (a, b) = (column[j], column[j + 1]);
        let r = a.hypot(b);
        let (c, s) = if r == 0.0 { (1.0, 0.0) } else { (a / r, b / r) };
        column[j] = r;
        column[j + 1] = 0.0;
        rotations.push((c, s));
        g.push(-s * g[j]);
        g[j] *= c;
        h.push(column);
        let residual = g[j + 1].abs();
        if !residual.is_finite() {
            return (j + 1, false);
        }
        if residual <= tolerance || next == 0.0 {
            converged = residual <= tolerance;
            break;
        }
        if j + 1 < max_iterations {
            basis.push(w.iter().map(|wk| wk / next).collect());
        }
    }
    // Back substitution in the triangular H y = g, then x += Z y.
    let k = h.len();
    let mut y = vec![0.0; k];
    for i in (0..k).rev() {
        let sum: f64 = (i + 1..k).map(|m| h[m][i] * y[m]).sum();
        y[i] = if h[i][i] == 0.0 { 0.0 } else { (g[i] - sum) / h[i][i] };
    }
    for (yi, zi) in y.iter().zip(&directions) {
        x.iter_mut().zip(zi).for_each(|(xk, zk)| *xk += yi * zk);
    }
    (k, converged)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

#[cfg(test)]
mod tests {
    use super::{gmres, restarted_gmres};

    /// `‖A x − b‖` for the matrix of [`apply`] with `p`.
    fn residual(p: f64, x: &[f64], b: &[f64]) -> f64 {
        let mut ax = vec![0.0; x.len()];
        apply(p)(x, &mut ax);
        ax.iter().zip(b).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt()
    }

    /// A non-symmetric tridiagonal matrix (convection–diffusion: 2 on the diagonal, −1 ± p off it).
    fn apply(p: f64) -> impl Fn(&[f64], &mut [f64]) {
        move |v: &[f64], out: &mut [f64]| {
            let n = v.len();
            for i in 0..n {
                let left = if i > 0 { v[i - 1] } else { 0.0 };
                let right = if i + 1 < n { v[i + 1] } else { 0.0 };
                out[i] = 2.0 * v[i] - (1.0 + p) * left - (1.0 - p) * right;
            }
        }
    }

    #[test]
    fn solves_a_nonsymmetric_system_to_the_tolerance() {
        let n = 40;
        let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut x = vec![0.0; n];
        let iterations = gmres(apply(0.3), |_| {}, &b, &mut x, 1e-10, n).expect("converges in n steps");
        let r = residual(0.3, &x, &b);
        assert!(r <= 1e-10, "residual {r}");
        assert!(iterations <= n, "{iterations} iterations");
        // Too few iterations: no answer, and the guess is left as it was.
        let mut y = vec![0.0; n];
        assert_eq!(gmres(apply(0.3), |_| {}, &b, &mut y, 1e-10, 3), None);
        assert!(y.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn restarted_cycles_reach_the_tolerance_with_a_bounded_basis() {
        let n = 60;
        let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.21).sin() + 0.5).collect();
        let mut x = vec![0.0; n];
        let (iterations, converged) = restarted_gmres(apply(0.2), |_| {}, &b, &mut x, 1e-9, 10, 2000);
        let r = residual(0.2, &x, &b);
        assert!(converged && r <= 1e-9, "residual {r} after {iterations}");
        assert!(iterations > 10, "it needed restarts: {iterations}");
        // Stopped early: no convergence, but x is the last cycle's minimiser (its residual fell
        // from the right-hand side's norm).
        let mut y = vec![0.0; n];
        let (_, converged) = restarted_gmres(apply(0.2), |_| {}, &b, &mut y, 1e-12, 5, 15);
        let b_norm = b.iter().map(|v| v * v).sum::<f64>().sqrt();
        let r = residual(0.2, &y, &b);
        assert!(!converged && r < 0.99 * b_norm, "residual {r} of {b_norm}");
    }

    #[test]
    fn a_nearby_preconditioner_converges_in_a_few_iterations() {
        // M = the matrix with p = 0.3, A the one with p = 0.33: A M⁻¹ = I + small, so the
        // residual falls by about a decade per iteration. M⁻¹ is applied by a tight unpreconditioned
        // GMRES solve.
        let n = 40;
        let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).cos()).collect();
        let precondition = |v: &mut [f64]| {
            let rhs = v.to_vec();
            v.iter_mut().for_each(|x| *x = 0.0);
            gmres(apply(0.3), |_| {}, &rhs, v, 1e-14, n).expect("an exact inner solve");
        };
        let mut x = vec![0.0; n];
        let iterations = gmres(apply(0.33), precondition, &b, &mut x, 1e-9, n).expect("converges");
        assert!(iterations <= 8, "{iterations} iterations");
        let r = residual(0.33, &x, &b);
        assert!(r <= 1e-9, "residual {r}");
        // The exact preconditioner: one iteration.
        let exact = |v: &mut [f64]| {
            let rhs = v.to_vec();
            v.iter_mut().for_each(|x| *x = 0.0);
            gmres(apply(0.33), |_| {}, &rhs, v, 1e-14, n).expect("an exact inner solve");
        };
        let mut z = vec![0.0; n];
        assert_eq!(gmres(apply(0.33), exact, &b, &mut z, 1e-9, n), Some(1));
    }
}
