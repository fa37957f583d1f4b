//! The lubrication film between two surfaces closer than the fluid mesh resolves, for any shape:
//! its normal resistance from the gap and the surfaces' curvatures.
//!
//! Near the closest points, the gap between two smooth surfaces is the paraboloid
//! `h(x) = h₀ + ½ xᵀ K x` over their common tangent plane, with `K = K_i + K_j` the sum of the two
//! surfaces' curvature tensors there (each positive where its body is convex; a wall's from the
//! fluid side, negative where it is concave). Reynolds's equation of a thin film squeezed at the
//! approach speed `U`, `∇·(h³ ∇p) = 12 μ ∂h/∂t = −12 μ U`, has on that gap the exact solution
//! `p = C / h²` with `C = 6 μ U / tr K`, and its force `F = ∫ p dA` is
//!
//! ```text
//! 3D:  F = 12 π μ U / (h₀ tr K √det K) = 6 π μ U R_x R_y · 2 / ((R_x + R_y) h₀)
//! 2D:  F = 3 √2 π μ U (R / h₀)^{3/2}   per unit length, R = 1 / K,
//! ```
//!
//! with `1/R_x`, `1/R_y` the eigenvalues of `K` in the tangent plane. For a sphere of radius `a`
//! and a plane (`K = I/a`) the 3D form is `6 π μ U a² / h₀`, Cox and Brenner's (1967) leading
//! term; for two spheres it is the same with the reduced radius `a₁a₂/(a₁ + a₂)`; the 2D one is the
//! cylinder's (Jeffrey and Onishi 1981). The terms these forms leave out, `(a/5) ln(a/h₀)` and a
//! constant beside `a²/h₀` for a sphere, are under 1 % of it below `h₀ = a/100` and cancel in part
//! in the difference below.
//!
//! The fluid mesh resolves the film down to a gap of about `h_c` (a cell or two), so only the
//! part it misses is added: `F(h₀) − F(h_c)` for `h₀ < h_c`, nothing above, and below a roughness
//! `h_r` the force of `h_r` (the film breaks down there and the collision law takes over). A
//! flat face against a flat face (`K = 0`) would give no finite force: each eigenvalue of `K` is
//! at least `1/r` with `r` the smaller bounding radius of the pair, the sphere a flat face fits in.
//! Cost: a few operations per contact, beside the curvatures
//! ([`crate::body::BodyGeometry::curvature_near`]).

use nalgebra::SMatrix;
use std::f64::consts::PI;

/// The lubrication film's parameters: the fluid's viscosity, the gap below which the mesh no
/// longer resolves the film, and the surfaces' roughness.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lubrication {
    /// `μ`, the fluid's dynamic viscosity.
    pub viscosity: f64,
    /// `h_c`: the gap above which the fluid mesh resolves the film (no force is added).
    pub cut: f64,
    /// `h_r` (< `h_c`): the roughness, below which the force stays the one at `h_r`.
    pub roughness: f64,
}

impl Lubrication {
    /// The film's resistance `λ(h₀) = F / U` on a gap `h₀` whose surfaces have the relative
    /// curvature `k` (`K_i + K_j`, world frame, projected on the tangent plane) and whose pair's
    /// smaller bounding radius is `radius`: see the module's formulas.
    pub fn film<const D: usize>(&self, gap: f64, k: &SMatrix<f64, D, D>, radius: f64) -> f64 {
        let floor = 1.0 / radius;
        let trace = k.trace();
        if D == 2 {
            let r = 1.0 / trace.max(floor);
            return 3.0 * 2f64.sqrt() * PI * self.viscosity * (r / gap).powf(1.5);
        }
        // The two eigenvalues in the tangent plane from the trace and the sum of the principal
        // minors (the normal's eigenvalue is zero).
        let minors = 0.5 * (trace * trace - (k * k).trace());
        let spread = (0.25 * trace * trace - minors).max(0.0).sqrt();
        let (k1, k2) = ((0.5 * trace + spread).max(floor), (0.5 * trace - spread).max(floor));
        12.0 * PI * self.viscosity / (gap * (k1 + k2) * (k1 * k2).sqrt())
    }

    /// The resistance the mesh misses, `λ(max(h₀, h_r)) − λ(h_c)` for `h₀ < h_c`, else 0: the
    /// force on body `i` is `−λ ((v_i − v_j)·n) n` at the contact points.
    pub fn resistance<const D: usize>(&self, gap: f64, k: &SMatrix<f64, D, D>, radius: f64) -> f64 {
        if gap >= self.cut {
            return 0.0;
        }
        self.film(gap.max(self.roughness), k, radius) - self.film(self.cut, k, radius)
    }
}
