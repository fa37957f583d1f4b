//! The curvature of a body's surface at each of its nodes, which the lubrication film between two
//! surfaces closer than a fluid mesh resolves depends on ([`crate::contact::lubrication`]);
//! computed once per shape, since a rigid body's surface never changes.
//!
//! At node `p` with unit outward normal `n` (the area-weighted mean of its facets' normals) and a
//! tangent basis `t_1 (, t_2)`, the nodes within two rings of edges give offsets
//! `d = q − p`, `u_k = d·t_k`, `w = d·n`, and the height function
//!
//! ```text
//! w = −½ (A u_1² + 2B u_1 u_2 + C u_2²) + E u_1 + F u_2      (2D: w = −½ A u_1² + E u_1)
//! ```
//!
//! is fitted by least squares (the linear terms absorb a tilt of the estimated normal). The
//! curvature tensor is `K = A t_1t_1ᵀ + B (t_1t_2ᵀ + t_2t_1ᵀ) + C t_2t_2ᵀ`, positive where the
//! body is convex. The nodes of a primitive lie on its exact surface, where the fit's only error is
//! the height function's quartic term, `ρ²/4r²` of the curvature over a fit of radius `ρ` (two
//! spacings) on a radius of curvature `r`: 1 % at `r` = 10 spacings. Reading the curvature off the
//! distance field's Hessian instead was measured to carry ±5 % of noise from the facets' kinks
//! (the field is the exact distance to the faceted surface). Cost: a `5 × 5` solve per node, once.

use super::Surface;
use crate::math::{self, Point, Vector};
use nalgebra::{SMatrix, SVector};

/// The curvature tensor of `surface` at each node, in its frame (see the module's doc); zero at a
/// node whose neighbourhood is too small or degenerate for the fit.
pub fn node_curvatures<const D: usize>(surface: &Surface<D>) -> Vec<SMatrix<f64, D, D>> {
    let normals = node_normals(surface);
    let mut ring: Vec<u32> = Vec::new();
    (0..surface.points.len())
        .map(|v| {
            ring.clear();
            for &a in surface.neighbours(v as u32) {
                for &b in std::iter::once(&a).chain(surface.neighbours(a)) {
                    if b as usize != v && !ring.contains(&b) {
                        ring.push(b);
                    }
                }
            }
            fit(
                &surface.points[v],
                &normals[v],
                ring.iter().map(|&q| surface.points[q as usize]),
            )
        })
        .collect()
}

/// Each node's unit outward normal: the sum of its facets' area normals, normalised.
fn node_normals<const D: usize>(surface: &Surface<D>) -> Vec<Vector<D>> {
    let mut normals = vec![Vector::<D>::zeros(); surface.points.len()];
    for f in &surface.facets {
        let corners: [Point<D>; D] = std::array::from_fn(|a| surface.points[f[a] as usize]);
        let normal = math::facet_area_normal::<D>(&corners);
        for &v in f {
            normals[v as usize] += normal;
        }
    }
    for n in &mut normals {
        *n = n.try_normalize(1e-300).unwrap_or_else(Vector::<D>::zeros);
    }
    normals
}

/// A unit vector orthogonal to `n`, and in 3D a second one completing a right-handed basis.
fn tangents<const D: usize>(n: &Vector<D>) -> (Vector<D>, Vector<D>) {
    if D == 2 {
        return (
            Vector::<D>::from_fn(|a, _| if a == 0 { -n[1] } else { n[0] }),
            Vector::<D>::zeros(),
        );
    }
    // The axis least aligned with n, made orthogonal to it.
    let axis = (0..D).min_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs())).unwrap_or(0);
    let mut e = Vector::<D>::zeros();
    e[axis] = 1.0;
    let t1 = (e - n * n.dot(&e)).normalize();
    let t2 = Vector::<D>::from_fn(|a, _| {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        n[b] * t1[c] - n[c] * t1[b]
    });
    (t1, t2)
}

/// The least-squares fit of the height function at `p` with normal `n` to the nodes `ring`.
fn fit<const D: usize>(p: &Point<D>, n: &Vector<D>, ring: impl Iterator<Item = Point<D>>) -> SMatrix<f64, D, D> {
    if n.norm_squared() == 0.0 {
        return SMatrix::<f64, D, D>::zeros();
    }
    let (t1, t2) = tangents(n);
    // Unknowns (A, B, C, E, F) in 3D, (A, E) in 2D (the others' rows and columns left as the
    // identity, so that the system stays regular and they come out zero).
    let mut normal = SMatrix::<f64, 5, 5>::zeros();
    let mut rhs = SVector::<f64, 5>::zeros();
    let mut count = 0;
    for q in ring {
        let d = q - p;
        let (u1, u2, w) = (d.dot(&t1), d.dot(&t2), d.dot(n));
        let row = if D == 2 {
            SVector::<f64, 5>::from([-0.5 * u1 * u1, 0.0, 0.0, u1, 0.0])
        } else {
            SVector::<f64, 5>::from([-0.5 * u1 * u1, -u1 * u2, -0.5 * u2 * u2, u1, u2])
        };
        normal += row * row.transpose();
        rhs += row * w;
        count += 1;
    }
    if D == 2 {
        for k in [1, 2, 4] {
            normal[(k, k)] = 1.0;
        }
    }
    if count < if D == 2 { 2 } else { 5 } {
        return SMatrix::<f64, D, D>::zeros();
    }
    let Some(x) = normal.lu().solve(&rhs) else {
        return SMatrix::<f64, D, D>::zeros();
    };
    let k = t1 * t1.transpose() * x[0];
    if D == 2 {
        return k;
    }
    k + (t1 * t2.transpose() + t2 * t1.transpose()) * x[1] + t2 * t2.transpose() * x[2]
}
