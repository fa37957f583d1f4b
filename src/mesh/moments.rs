//! Exact moments of a mesh region: measure, centroid and second-moment tensor, the ingredients of a
//! rigid body's mass, centre of mass and inertia.
//!
//! On a simplex `T` with vertices `v_0 … v_D` (exact for the linear geometry):
//!
//! ```text
//! ∫_T 1 = |T|,   ∫_T x = |T| (Σ v_i) / (D + 1),
//! ∫_T x xᵀ = |T| (Σ v_i v_iᵀ + (Σ v_i)(Σ v_i)ᵀ) / ((D + 1)(D + 2)).
//! ```
//!
//! The second moment about the centroid `c` is `∫ x xᵀ − |Ω| c cᵀ`. For a density ρ, the inertia
//! about the centroid is `ρ tr(S)` in 2D (the polar moment) and `ρ (tr(S) I − S)` in 3D.

use super::SimplexMesh;
use crate::math::Point;
use nalgebra::SMatrix;

/// Measure, centroid and second-moment tensor about the centroid of a set of cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments<const D: usize> {
    /// Area (2D) or volume (3D).
    pub measure: f64,
    /// Centroid.
    pub centroid: Point<D>,
    /// `S = ∫ (x − c)(x − c)ᵀ`.
    pub second: SMatrix<f64, D, D>,
}

impl<const D: usize> Moments<D> {
    /// The inertia about the centroid for density `rho`, as a D×D tensor: `ρ (tr S I − S)` in 3D;
    /// in 2D the single entry that matters, the polar moment `ρ tr S`, fills the diagonal.
    pub fn inertia(&self, rho: f64) -> SMatrix<f64, D, D> {
        let trace = self.second.trace();
        if D == 2 {
            SMatrix::<f64, D, D>::identity() * (rho * trace)
        } else {
            (SMatrix::<f64, D, D>::identity() * trace - self.second) * rho
        }
    }
}

impl<const D: usize> SimplexMesh<D> {
    /// The moments of the cells whose marker satisfies `keep` (all cells: `|_| true`).
    pub fn moments(&self, keep: impl Fn(i32) -> bool) -> Moments<D> {
        let nv = D + 1;
        let mut measure = 0.0;
        let mut first = Point::<D>::zeros();
        let mut second = SMatrix::<f64, D, D>::zeros();
        for c in 0..self.num_cells() as u32 {
            if !keep(self.cell_markers()[c as usize]) {
                continue;
            }
            let p = self.cell_points(c);
            let m = self.cell_measures()[c as usize];
            let sum: Point<D> = p[..nv].iter().sum();
            let mut outer = sum * sum.transpose();
            for v in &p[..nv] {
                outer += v * v.transpose();
            }
            measure += m;
            first += sum * (m / nv as f64);
            second += outer * (m / (nv * (nv + 1)) as f64);
        }
        let centroid = if measure > 0.0 { first / measure } else { first };
        Moments {
            measure,
            centroid,
            second: second - centroid * centroid.transpose() * measure,
        }
    }
}
