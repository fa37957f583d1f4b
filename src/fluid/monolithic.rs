//! The saddle-point system of a monolithic time step: velocity and pressure solved
//! together, without splitting,
//!
//! ```text
//! [ A  Bᵀ ] [u^{k+1}]   [f]          A = (3/(2Δt)) M + ν K on each component,
//! [ B  0  ] [p^{k+1}] = [0],         B[q, d n₂ + i] = −∫ λ_q ∂_d φ_i,
//! ```
//!
//! with the prescribed velocities (and, without a pressure boundary, the first pressure) as
//! identity rows. The matrix is constant and symmetric: factorised once as `LDLᵀ` by
//! [`Saddle`] (velocity pivots positive, pressure pivots negative), then a step is a pair of
//! triangular solves, with iterative refinement where the residual is not small enough (the
//! factorisation regularises the pivots it finds too small).

use crate::linalg::FactorError;
use crate::linalg::{csc_mul, Csr, Saddle};
use faer::sparse::{SparseColMat, Triplet};
use faer::Par;

/// At most this many rounds of iterative refinement per solve.
const REFINEMENTS: usize = 4;

/// The relative residual at which refinement stops. The factorisation alone reaches 4e-10–6e-10
/// on the Schäfer–Turek 2D-2 steps, so refinement runs only where it did worse (the first steps
/// from rest: 4e-4 and 4e-7); a step's time error is many orders larger.
const TOLERANCE: f64 = 1e-9;

/// The factored monolithic matrix and a solve's work vectors.
pub struct MonolithicSystem {
    matrix: SparseColMat<usize, f64>,
    fixed: Vec<bool>,
    /// The indices of the prescribed unknowns.
    fixed_columns: Vec<u32>,
    saddle: Saddle,
    residual: Vec<f64>,
    product: Vec<f64>,
}

impl MonolithicSystem {
    /// Builds and factorises the matrix for the scalar velocity block `velocity` (`A`, `n₂ × n₂`)
    /// and the divergence `divergence` (`B`, `n₁ × D n₂`); `prescribed[k]` marks the P2 dofs with
    /// a velocity condition, `pressure_pin` is the vertex whose pressure is fixed, if any
    /// ([`BoundaryConditions::pressure_pin`](super::BoundaryConditions::pressure_pin)).
    /// `Err` names what the factorisation refused.
    pub fn new<const D: usize>(
        velocity: &Csr,
        divergence: &Csr,
        prescribed: &[bool],
        pressure_pin: Option<usize>,
        par: Par,
    ) -> Result<Self, FactorError> {
        let (n2, n1) = (velocity.rows(), divergence.rows());
        let size = D * n2 + n1;
        let mut triplets = Vec::new();
        for d in 0..D {
            let shift = d * n2;
            triplets.extend(
                velocity
                    .entries()
                    .map(|(i, j, v)| Triplet::new(shift + i as usize, shift + j as usize, v)),
            );
        }
        for (q, c, v) in divergence.entries() {
            let q = D * n2 + q as usize;
            triplets.push(Triplet::new(q, c as usize, v));
            triplets.push(Triplet::new(c as usize, q, v));
        }
        let matrix = SparseColMat::try_new_from_triplets(size, size, &triplets).map_err(|e| format!("{e:?}"))?;
        let mut fixed: Vec<bool> = (0..D).flat_map(|_| prescribed.iter().copied()).collect();
        fixed.extend((0..n1).map(|v| pressure_pin == Some(v)));
        let mut saddle = Saddle::new(matrix.symbolic(), &fixed, n2, D * n2, par)?;
        saddle.factorize_symmetric(matrix.val())?;
        let fixed_columns = (0..size as u32).filter(|&k| fixed[k as usize]).collect();
        Ok(MonolithicSystem {
            matrix,
            fixed,
            fixed_columns,
            saddle,
            residual: vec![0.0; size],
            product: vec![0.0; size],
        })
    }

    /// Solves for `x` (velocity components, then pressures): `b` holds the right-hand side in the
    /// free rows and the prescribed values in the fixed ones. Returns the relative residual
    /// reached.
    pub fn solve(&mut self, b: &[f64], x: &mut [f64]) -> f64 {
        x.copy_from_slice(b);
        self.saddle.apply(x);
        let scale = self.reduced_rhs_norm(b).max(f64::MIN_POSITIVE);
        let mut relative = self.refine_residual(b, x) / scale;
        for _ in 0..REFINEMENTS {
            if relative <= TOLERANCE {
                break;
            }
            self.saddle.apply(&mut self.residual);
            for (xk, rk) in x.iter_mut().zip(&self.residual) {
                *xk += rk;
            }
            relative = self.refine_residual(b, x) / scale;
        }
        relative
    }

    /// `‖b_f − M_fF b_F‖`: the norm of the right-hand side of the free unknowns once the prescribed
    /// values have moved to it, the scale of the residual (at a flow's first step from rest, `b_f`
    /// is zero and the prescribed inflow drives it all).
    fn reduced_rhs_norm(&mut self, b: &[f64]) -> f64 {
        let m = self.matrix.as_ref();
        self.product.copy_from_slice(b);
        for &j in &self.fixed_columns {
            let j = j as usize;
            for (i, &a) in m.row_idx_of_col(j).zip(m.val_of_col(j)) {
                self.product[i] -= a * b[j];
            }
        }
        self.product
            .iter()
            .zip(&self.fixed)
            .filter(|(_, &f)| !f)
            .map(|(v, _)| v * v)
            .sum::<f64>()
            .sqrt()
    }

    /// `residual = b − M x` in the free rows, zero in the fixed ones; returns its norm.
    fn refine_residual(&mut self, b: &[f64], x: &[f64]) -> f64 {
        csc_mul(self.matrix.as_ref(), x, &mut self.product);
        let mut sum = 0.0;
        for (((r, &bk), &mk), &f) in self.residual.iter_mut().zip(b).zip(&self.product).zip(&self.fixed) {
            *r = if f { 0.0 } else { bk - mk };
            sum += *r * *r;
        }
        sum.sqrt()
    }
}
