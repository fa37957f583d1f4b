//! Curved fronts: a front of straight facets read as the discretisation of a smooth curve or
//! surface, which is what a mesh of a disk, an ellipse or a sphere is.
//!
//! The nodes of such a front lie on the body, its facets inside it: the straight segment or
//! triangle sags from the body by `s ≈ κ ℓ² / 8` (curvature `κ`, edge length `ℓ`), 0.02 for edges of
//! 0.4 on a unit sphere. Measured from the facets, every distance outside a convex body is too large
//! by up to `s`, and that error is first order in the mesh size near the front, where the rest of
//! the march is already exact. Each facet is therefore replaced by the quadratic patch through its
//! nodes whose edges bulge by the sag their nodes' normals imply:
//!
//! ```text
//! S(λ) = Σ_i λ_i x_i + Σ_{i<j} 4 λ_i λ_j m_ij,   m_ij = ((n_j − n_i) · (x_j − x_i) / 8) n̄_ij,
//! ```
//!
//! `n̄_ij` the normalised mean of the node normals `n_i`, `n_j`; `(n_j − n_i)·(x_j − x_i)/|x_j − x_i|²`
//! is the normal curvature along the edge, so `m_ij` is the sag of the parabola of that curvature
//! (for a circle it is exact to a relative `φ²/4`, `φ` half the angle the edge subtends). The
//! patches of two facets agree along their common edge, so the curved front is continuous. It does
//! not depend on how the facets are oriented.
//!
//! **Node normals** by Max's weights (N. Max, *Weights for computing vertex normals from facet
//! normals*, 1999): `n_v ∝ Σ_f A_f / Π_e |e|²`, `A_f` the facet's area normal and the product over
//! the facet's edges at `v`. They are exact when the node's neighbours lie on a common circle or
//! sphere. **Creases**: where a facet's normal is more than [`CREASE_DEGREES`] from the node normal
//! (the corner of a square, an L-shape, a star's tips), that facet keeps its own normal at the node,
//! so straight sides meeting at a corner stay straight.
//!
//! The distance from a point to a patch is found by Newton's method on `|S(λ) − x|²` from the
//! closest point of the straight facet, with `λ` kept in the facet and a step taken only if it
//! brings the patch closer (at most four: the patch is nearly flat on its own scale, so two or
//! three suffice).

use crate::math::{self, Point, Vector};

/// The largest angle, in degrees, between a facet's normal and a node normal for the facet to bend
/// with its neighbours at that node; beyond it the node is a crease (a corner) for that facet.
pub const CREASE_DEGREES: f64 = 40.0;

/// The curved patches of a front's facets: for each facet the midpoint offsets of its edges
/// `[m_01, m_02, m_12]` (2D: `m_01` only).
#[derive(Debug, Clone)]
pub(crate) struct Curved<const D: usize> {
    offsets: Vec<[Vector<D>; 3]>,
}

/// The local edges of a facet with `D` nodes, in the order of [`Curved::offsets`].
fn edges<const D: usize>() -> &'static [(usize, usize)] {
    if D == 2 {
        &[(0, 1)]
    } else {
        &[(0, 1), (0, 2), (1, 2)]
    }
}

impl<const D: usize> Curved<D> {
    /// The patches of the facets with node indices `nodes` and coordinates `points`.
    pub(crate) fn new(nodes: &[[u32; D]], points: &[[Point<D>; D]]) -> Self {
        let unit: Vec<Vector<D>> = points
            .iter()
            .map(|p| {
                math::facet_area_normal(p)
                    .try_normalize(1e-300)
                    .unwrap_or_else(Vector::<D>::zeros)
            })
            .collect();
        // Each facet's normal at each of its nodes, aligned with the facet's own normal; a crease
        // keeps the facet's normal.
        let mut at_node: Vec<[Vector<D>; D]> = unit.iter().map(|n| [*n; D]).collect();
        let mut by_node: Vec<(u32, u32, u8)> = nodes
            .iter()
            .enumerate()
            .flat_map(|(f, facet)| facet.iter().enumerate().map(move |(k, &v)| (v, f as u32, k as u8)))
            .collect();
        by_node.sort_unstable();
        let cos_crease = CREASE_DEGREES.to_radians().cos();
        for group in by_node.chunk_by(|a, b| a.0 == b.0) {
            let reference = unit[group[0].1 as usize];
            let mut sum = Vector::<D>::zeros();
            for &(_, f, k) in group {
                let p = &points[f as usize];
                let k = k as usize;
                let lengths: f64 = (0..D)
                    .filter(|&j| j != k)
                    .map(|j| (p[j] - p[k]).norm_squared())
                    .product();
                let weighted = math::facet_area_normal(p) / lengths;
                sum += if weighted.dot(&reference) < 0.0 {
                    -weighted
                } else {
                    weighted
                };
            }
            let Some(normal) = sum.try_normalize(1e-300) else {
                continue;
            };
            for &(_, f, k) in group {
                let own = unit[f as usize];
                let aligned = if normal.dot(&own) < 0.0 { -normal } else { normal };
                if aligned.dot(&own) >= cos_crease {
                    at_node[f as usize][k as usize] = aligned;
                }
            }
        }
        let offsets = points
            .iter()
            .zip(&at_node)
            .map(|(p, n)| {
                let mut m = [Vector::<D>::zeros(); 3];
                for (slot, &(i, j)) in edges::<D>().iter().enumerate() {
                    let sag = (n[j] - n[i]).dot(&(p[j] - p[i])) / 8.0;
                    if let Some(mean) = (n[i] + n[j]).try_normalize(1e-300) {
                        m[slot] = mean * sag;
                    }
                }
                m
            })
            .collect();
        Curved { offsets }
    }

    /// The point of facet `f`'s patch at the local coordinates `t` (`λ_{1..D−1}`), and its
    /// derivatives: first along each coordinate, then second (`uu`, `uv`, `vv`; 2D: `tt`).
    #[inline]
    fn patch(&self, p: &[Point<D>; D], f: u32, t: [f64; 2]) -> (Point<D>, [Vector<D>; 2], [Vector<D>; 3]) {
        let m = &self.offsets[f as usize];
        let zero = Vector::<D>::zeros();
        if D == 2 {
            let (l0, l1) = (1.0 - t[0], t[0]);
            let s = p[0] * l0 + p[1] * l1 + m[0] * (4.0 * l0 * l1);
            let d = (p[1] - p[0]) + m[0] * (4.0 * (l0 - l1));
            (s, [d, zero], [m[0] * -8.0, zero, zero])
        } else {
            let (l0, l1, l2) = (1.0 - t[0] - t[1], t[0], t[1]);
            let s = p[0] * l0 + p[1] * l1 + p[2] * l2 + (m[0] * (l0 * l1) + m[1] * (l0 * l2) + m[2] * (l1 * l2)) * 4.0;
            let du = (p[1] - p[0]) + (m[0] * (l0 - l1) - m[1] * l2 + m[2] * l2) * 4.0;
            let dv = (p[2] - p[0]) + (m[1] * (l0 - l2) - m[0] * l1 + m[2] * l1) * 4.0;
            let uv = (m[2] - m[0] - m[1]) * 4.0;
            (s, [du, dv], [m[0] * -8.0, uv, m[1] * -8.0])
        }
    }

    /// The distance from `x` to facet `f`'s patch (`p` the facet's nodes).
    pub(crate) fn distance(&self, x: &Point<D>, p: &[Point<D>; D], f: u32) -> f64 {
        let flat = math::closest_point_on_facet(x, p);
        let mut t = local_coordinates(p, &flat);
        if !(t[0].is_finite() && t[1].is_finite()) {
            // A degenerate facet (a repeated node of a surface front): no patch, its points.
            return (flat - x).norm();
        }
        let (mut s, mut d1, mut d2) = self.patch(p, f, t);
        let mut best = (s - x).norm_squared();
        for _ in 0..4 {
            let r = s - x;
            // Newton on g(t) = |S(t) − x|² / 2: gradient Jᵀr, Hessian JᵀJ + Σ r·S'' (the Gauss–
            // Newton matrix where that is not positive definite, far inside a concave side).
            let g = [d1[0].dot(&r), d1[1].dot(&r)];
            let step = if D == 2 {
                let h = d1[0].norm_squared() + r.dot(&d2[0]);
                let h = if h > 0.0 { h } else { d1[0].norm_squared() };
                [-g[0] / h, 0.0]
            } else {
                let mut h = [
                    d1[0].norm_squared() + r.dot(&d2[0]),
                    d1[0].dot(&d1[1]) + r.dot(&d2[1]),
                    d1[1].norm_squared() + r.dot(&d2[2]),
                ];
                if h[0] <= 0.0 || h[0] * h[2] - h[1] * h[1] <= 0.0 {
                    h = [d1[0].norm_squared(), d1[0].dot(&d1[1]), d1[1].norm_squared()];
                }
                let det = h[0] * h[2] - h[1] * h[1];
                if det <= 0.0 {
                    break;
                }
                [(-h[2] * g[0] + h[1] * g[1]) / det, (h[1] * g[0] - h[0] * g[1]) / det]
            };
            let next = clamp_to_facet::<D>([t[0] + step[0], t[1] + step[1]]);
            let (s_next, d1_next, d2_next) = self.patch(p, f, next);
            let value = (s_next - x).norm_squared();
            if value >= best {
                break;
            }
            (t, s, d1, d2, best) = (next, s_next, d1_next, d2_next, value);
        }
        best.sqrt()
    }
}

/// The local coordinates `λ_{1..D−1}` of a point `y` of the facet `p`'s plane (line): the solution
/// of the Gram system `[e_i · e_j] t = [e_i · (y − p_0)]`, `e_i = p_i − p_0`.
#[inline]
fn local_coordinates<const D: usize>(p: &[Point<D>; D], y: &Point<D>) -> [f64; 2] {
    let (e1, r) = (p[1] - p[0], y - p[0]);
    if D == 2 {
        return [e1.dot(&r) / e1.norm_squared(), 0.0];
    }
    let e2 = p[2] - p[0];
    let (g11, g12, g22) = (e1.norm_squared(), e1.dot(&e2), e2.norm_squared());
    let (b1, b2) = (e1.dot(&r), e2.dot(&r));
    let det = g11 * g22 - g12 * g12;
    [(g22 * b1 - g12 * b2) / det, (g11 * b2 - g12 * b1) / det]
}

/// The nearest local coordinates inside the facet: `t ∈ [0, 1]` (2D); `u, v ≥ 0`, `u + v ≤ 1` (3D).
#[inline]
fn clamp_to_facet<const D: usize>(t: [f64; 2]) -> [f64; 2] {
    if D == 2 {
        return [t[0].clamp(0.0, 1.0), 0.0];
    }
    let (u, v) = (t[0].max(0.0), t[1].max(0.0));
    let excess = u + v - 1.0;
    if excess <= 0.0 {
        return [u, v];
    }
    // Onto the edge u + v = 1, then back into its ends.
    let u = (u - excess / 2.0).clamp(0.0, 1.0);
    [u, 1.0 - u]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{Ball, Shape};

    /// The facets' coordinates and their curved patches.
    fn bend<const D: usize>(points: &[Point<D>], nodes: &[[u32; D]]) -> (Vec<[Point<D>; D]>, Curved<D>) {
        let coords: Vec<[Point<D>; D]> = nodes
            .iter()
            .map(|f| std::array::from_fn(|j| points[f[j] as usize]))
            .collect();
        let curved = Curved::new(nodes, &coords);
        (coords, curved)
    }

    /// The distance from `x` to the straight facets and to their patches.
    fn nearest<const D: usize>(coords: &[[Point<D>; D]], curved: &Curved<D>, x: &Point<D>) -> (f64, f64) {
        let flat = coords
            .iter()
            .map(|p| math::distance_to_facet(x, p))
            .fold(f64::INFINITY, f64::min);
        let bent = (0..coords.len() as u32)
            .map(|f| curved.distance(x, &coords[f as usize], f))
            .fold(f64::INFINITY, f64::min);
        (flat, bent)
    }

    /// Nodes on a circle: the curved segments' sag matches the arc's to `φ²/4` of it, and the
    /// distance from outside and inside points to the curved front matches the circle's far better
    /// than the straight segments'.
    #[test]
    fn a_polygon_on_a_circle_bends_onto_the_circle() {
        let n = 16;
        let points: Vec<Point<2>> = (0..n)
            .map(|i| {
                let a = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
                Point::<2>::new(a.cos(), a.sin())
            })
            .collect();
        let nodes: Vec<[u32; 2]> = (0..n).map(|i| [i as u32, ((i + 1) % n) as u32]).collect();
        let (coords, curved) = bend(&points, &nodes);
        let half = std::f64::consts::PI / n as f64;
        let sag = 1.0 - half.cos();
        let m = curved.offsets[0][0].norm();
        assert!((m - sag).abs() < 0.3 * half * half * sag, "{m} vs {sag}");
        let (mut flat_err, mut curved_err) = (0.0f64, 0.0f64);
        for k in 0..200 {
            let a = 0.0314 * k as f64;
            for r in [0.5, 1.3, 2.0] {
                let x = Point::<2>::new(r * a.cos(), r * a.sin());
                let exact = (r - 1.0f64).abs();
                let (flat, bent) = nearest(&coords, &curved, &x);
                flat_err = flat_err.max((flat - exact).abs());
                curved_err = curved_err.max((bent - exact).abs());
            }
        }
        assert!(flat_err > 0.9 * sag, "{flat_err}");
        assert!(curved_err < 0.02 * sag, "{curved_err} against a sag of {sag}");
    }

    /// The corners of a square are creases: its sides stay straight and the distance to it is
    /// exact.
    #[test]
    fn the_sides_of_a_square_stay_straight() {
        let corners = [
            Point::<2>::new(0.0, 0.0),
            Point::<2>::new(1.0, 0.0),
            Point::<2>::new(1.0, 1.0),
            Point::<2>::new(0.0, 1.0),
        ];
        // Two segments a side, so that the midpoints are smooth nodes.
        let mut points = Vec::new();
        for i in 0..4 {
            points.push(corners[i]);
            points.push((corners[i] + corners[(i + 1) % 4]) / 2.0);
        }
        let nodes: Vec<[u32; 2]> = (0..8).map(|i| [i as u32, ((i + 1) % 8) as u32]).collect();
        let (coords, curved) = bend(&points, &nodes);
        assert!(curved.offsets.iter().all(|m| m[0].norm() == 0.0));
        let (_, d) = nearest(&coords, &curved, &Point::<2>::new(0.3, -0.7));
        assert!((d - 0.7).abs() < 1e-15);
    }

    /// A repeated node (a zero-length segment, as a user's polyline may have) gives finite
    /// distances: to that node.
    #[test]
    fn a_repeated_node_is_a_point() {
        let p = [
            Point::<2>::new(0.0, 0.0),
            Point::<2>::new(1.0, 0.0),
            Point::<2>::new(1.0, 0.0),
        ];
        let nodes = [[0u32, 1], [1, 2], [2, 0]];
        let (coords, curved) = bend(&p, &nodes);
        let d = curved.distance(&Point::<2>::new(1.0, 2.0), &coords[1], 1);
        assert!((d - 2.0).abs() < 1e-15, "{d}");
    }

    /// The crate's geodesic unit sphere (edges about 0.35): the curved front's distance matches the
    /// sphere's to a small fraction of the facets' sag.
    #[test]
    fn a_geodesic_sphere_bends_onto_the_sphere() {
        let sphere = Ball::<3> {
            centre: Point::<3>::zeros(),
            radius: 1.0,
        };
        let (points, nodes) = sphere.boundary(0.35).expect("a ball has a boundary");
        let (coords, curved) = bend(&points, &nodes);
        let sag = coords
            .iter()
            .map(|p| 1.0 - ((p[0] + p[1] + p[2]) / 3.0).norm())
            .fold(0.0, f64::max);
        let (mut flat_err, mut curved_err) = (0.0f64, 0.0f64);
        for k in 0..300 {
            let (a, b) = (0.61 * k as f64, 0.37 * k as f64);
            let dir = Point::<3>::new(a.cos() * b.sin(), a.sin() * b.sin(), b.cos());
            for r in [0.6, 1.4, 2.5] {
                let x = dir * r;
                let exact = (r - 1.0f64).abs();
                let (flat, bent) = nearest(&coords, &curved, &x);
                flat_err = flat_err.max((flat - exact).abs());
                curved_err = curved_err.max((bent - exact).abs());
            }
        }
        println!("sag {sag:.3e}: straight facets {flat_err:.3e}, curved {curved_err:.3e}");
        assert!(flat_err > 0.5 * sag, "{flat_err} against a sag of {sag}");
        assert!(curved_err < 0.1 * sag, "{curved_err} against a sag of {sag}");
    }
}
