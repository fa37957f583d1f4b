//! Anderson mixing of the pressure over the passes of a step ([`super::Unsteady::set_pressure_passes`]).
//!
//! At the step's pose a pass is an affine map `p ↦ G(p)` (velocity solve, constraint, pressure
//! update): one iteration of Uzawa's method for the step's Stokes problem, preconditioned by
//! `ν M⁻¹ + (3/2Δt) L⁻¹` (Cahouet and Chabard). Repeated, it contracts by about `1 − β²` a pass
//! (β the discrete inf-sup constant, small where a gap is narrow). Anderson's mixing (type II,
//! Walker and Ni 2011) takes the next input as the combination of the outputs so far whose
//! residual `f = G(p) − p` is least:
//!
//! ```text
//! γ = argmin ‖f_k − Σ_i γ_i (f_{i+1} − f_i)‖,   p_{k+1} = G(p_k) − Σ_i γ_i (G(p_{i+1}) − G(p_i)),
//! ```
//!
//! which on an affine map is GMRES on the residual, without its vectors of the velocity. What a
//! map holds fixed (the pressure inside bodies, [`super::Pass::Between`]) every output has
//! alike and the mix keeps. Cost: `O(k n)` for the `k`-th pass's normal equations and the mix,
//! `2 k n` numbers kept (`n` the pressure nodes); nothing beside a pass's solves.

/// The outputs and residuals of a step's passes so far.
#[derive(Debug, Default)]
pub(super) struct Mixing {
    /// Pressure nodes.
    n: usize,
    /// The passes so far.
    count: usize,
    /// `G(p_i)`, pass after pass.
    outputs: Vec<f64>,
    /// `f_i = G(p_i) − p_i`.
    residuals: Vec<f64>,
}

impl Mixing {
    /// Forgets the passes of the last step (at most `passes` of `n` nodes this one).
    pub(super) fn reset(&mut self, n: usize, passes: usize) {
        self.n = n;
        self.count = 0;
        self.outputs.resize(n * passes, 0.0);
        self.residuals.resize(n * passes, 0.0);
    }

    /// Records the pass that took `input` to `output`, and replaces `output` by the next input.
    pub(super) fn mix(&mut self, input: &[f64], output: &mut [f64]) {
        let (n, k) = (self.n, self.count);
        self.outputs[k * n..(k + 1) * n].copy_from_slice(output);
        for ((r, o), i) in self.residuals[k * n..(k + 1) * n]
            .iter_mut()
            .zip(output.iter())
            .zip(input)
        {
            *r = o - i;
        }
        self.count += 1;
        if k == 0 {
            return;
        }
        // The differences `Δf_j = f_{j+1} − f_j`, j < k, and the normal equations of γ.
        let f = &self.residuals;
        let delta = |j: usize, x: usize| f[(j + 1) * n + x] - f[j * n + x];
        let mut normal = nalgebra::DMatrix::<f64>::zeros(k, k);
        let mut right = nalgebra::DVector::<f64>::zeros(k);
        for x in 0..n {
            let last = f[k * n + x];
            for a in 0..k {
                let da = delta(a, x);
                right[a] += da * last;
                for b in 0..=a {
                    normal[(a, b)] += da * delta(b, x);
                }
            }
        }
        for a in 0..k {
            for b in 0..a {
                normal[(b, a)] = normal[(a, b)];
            }
        }
        // Near-dependent differences (a pass that changed nothing) leave γ undetermined: a
        // relative ridge keeps it small.
        let scale = (0..k).map(|a| normal[(a, a)]).fold(0.0, f64::max);
        if scale <= 0.0 {
            return;
        }
        for a in 0..k {
            normal[(a, a)] += 1e-12 * scale;
        }
        let Some(gamma) = normal.cholesky().map(|c| c.solve(&right)) else {
            return;
        };
        let g = &self.outputs;
        for (x, o) in output.iter_mut().enumerate() {
            let correction: f64 = (0..k).map(|j| gamma[j] * (g[(j + 1) * n + x] - g[j * n + x])).sum();
            *o -= correction;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Mixing;

    /// On an affine contraction `G(p) = A p + b` in n dimensions the mix reaches the fixed
    /// point in at most n + 1 passes (it is GMRES on `I − A`), where the plain iteration is
    /// still far from it.
    #[test]
    fn the_mix_finds_the_fixed_point_of_an_affine_map_in_n_plus_one_passes() {
        let a = [[0.9, 0.05, 0.0], [0.05, 0.7, 0.1], [0.0, 0.1, 0.5]];
        let b = [1.0, -2.0, 0.5];
        let map = |p: &[f64]| -> Vec<f64> {
            (0..3)
                .map(|i| (0..3).map(|j| a[i][j] * p[j]).sum::<f64>() + b[i])
                .collect()
        };
        // The fixed point, by many plain iterations.
        let mut exact = vec![0.0; 3];
        for _ in 0..2000 {
            exact = map(&exact);
        }
        let mut mixing = Mixing::default();
        mixing.reset(3, 5);
        let (mut p, mut plain) = (vec![0.0; 3], vec![0.0; 3]);
        for _ in 0..4 {
            let mut out = map(&p);
            mixing.mix(&p, &mut out);
            p = out;
            plain = map(&plain);
        }
        let error = |x: &[f64]| x.iter().zip(&exact).map(|(u, v)| (u - v).abs()).fold(0.0, f64::max);
        assert!(error(&p) < 1e-6, "mixed: {p:?} against {exact:?}");
        assert!(error(&plain) > 1.0, "plain: {plain:?}");
    }
}
