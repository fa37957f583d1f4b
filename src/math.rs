//! The dimension-dependent kernels, written once for `D` = 2 and 3: everything else in the crate
//! uses these and never branches on the dimension itself.

use nalgebra::{SMatrix, SVector};

mod periodic;
pub use periodic::Periodicity;

/// A point of the `D`-dimensional space.
pub type Point<const D: usize> = SVector<f64, D>;
/// A vector of the `D`-dimensional space.
pub type Vector<const D: usize> = SVector<f64, D>;

/// Fails to compile for a dimension other than 2 or 3 (evaluated at monomorphisation).
pub(crate) const fn assert_dim<const D: usize>() {
    assert!(D == 2 || D == 3, "tumble works in 2 or 3 dimensions");
}

/// `D!`, the ratio between the determinant of the edge matrix and the simplex measure.
pub const fn factorial(d: usize) -> f64 {
    match d {
        0 | 1 => 1.0,
        2 => 2.0,
        _ => 6.0,
    }
}

/// The edge matrix `[p1 − p0, …, pD − p0]` of a simplex given by its `D + 1` vertices.
#[inline]
pub fn edge_matrix<const D: usize>(p: &[Point<D>]) -> SMatrix<f64, D, D> {
    SMatrix::<f64, D, D>::from_fn(|r, c| p[c + 1][r] - p[0][r])
}

/// Signed measure (area in 2D, volume in 3D) of the simplex `p[0..=D]`:
/// `det[p1 − p0, …, pD − p0] / D!`, positive for a counter-clockwise triangle or a
/// right-handed tetrahedron.
#[inline]
pub fn signed_measure<const D: usize>(p: &[Point<D>]) -> f64 {
    assert_dim::<D>();
    determinant(&edge_matrix(p)) / factorial(D)
}

/// Determinant of a 2×2 or 3×3 matrix (explicit formula; nalgebra's needs `DimMin`, which a const
/// generic dimension does not provide).
#[inline]
pub fn determinant<const D: usize>(m: &SMatrix<f64, D, D>) -> f64 {
    assert_dim::<D>();
    if D == 2 {
        m[(0, 0)] * m[(1, 1)] - m[(0, 1)] * m[(1, 0)]
    } else {
        m[(0, 0)] * (m[(1, 1)] * m[(2, 2)] - m[(1, 2)] * m[(2, 1)])
            - m[(0, 1)] * (m[(1, 0)] * m[(2, 2)] - m[(1, 2)] * m[(2, 0)])
            + m[(0, 2)] * (m[(1, 0)] * m[(2, 1)] - m[(1, 1)] * m[(2, 0)])
    }
}

/// Area-weighted normal of the facet `p[0..D]` (a segment in 2D, a triangle in 3D): its length is
/// the facet's measure and its direction follows the vertex order: `(t_y, −t_x)` for the segment
/// `t = p1 − p0` (to the right of the direction of travel, so outward for a counter-clockwise
/// boundary) and `(p1 − p0) × (p2 − p0) / 2` for a triangle.
#[inline]
pub fn facet_area_normal<const D: usize>(p: &[Point<D>]) -> Vector<D> {
    assert_dim::<D>();
    let a = p[1] - p[0];
    if D == 2 {
        Vector::<D>::from_fn(|i, _| if i == 0 { a[1] } else { -a[0] })
    } else {
        let b = p[2] - p[0];
        Vector::<D>::from_fn(|i, _| {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            0.5 * (a[j] * b[k] - a[k] * b[j])
        })
    }
}

/// Shape quality in `[0, 1]`: `c_D · |V|^(2/D) / Σ ℓ²` over the edges, normalised so that the
/// equilateral triangle and the regular tetrahedron score 1 (`c_2 = 4√3`, `c_3 = 12·3^(2/3)`),
/// and a degenerate simplex 0. It is the mean-ratio measure of Liu and Joe, cheap and smooth.
pub fn quality<const D: usize>(p: &[Point<D>]) -> f64 {
    let volume = signed_measure(p).abs();
    let mut sum_sq = 0.0;
    for i in 0..=D {
        for j in i + 1..=D {
            sum_sq += (p[i] - p[j]).norm_squared();
        }
    }
    if sum_sq == 0.0 {
        return 0.0;
    }
    let c = if D == 2 {
        4.0 * 3f64.sqrt()
    } else {
        12.0 * 3f64.powf(2.0 / 3.0)
    };
    c * volume.powf(2.0 / D as f64) / sum_sq
}

/// Barycentric coordinates of `x` in the simplex `p[0..=D]` (the first `D + 1` entries; the rest
/// zero): `λ_{1..D} = M⁻¹ (x − p0)` with `M = [p1 − p0, …, pD − p0]` inverted by cofactors (in 3D
/// the rows of `M⁻¹` are `e2 × e3`, `e3 × e1`, `e1 × e2` over `det M`), and `λ_0 = 1 − Σ λ_i`.
/// A degenerate simplex gives non-finite coordinates.
#[inline]
pub fn barycentric<const D: usize>(p: &[Point<D>], x: &Point<D>) -> [f64; 4] {
    assert_dim::<D>();
    let mut out = [0.0; 4];
    let r = x - p[0];
    if D == 2 {
        let (e1, e2) = (p[1] - p[0], p[2] - p[0]);
        let inv_det = 1.0 / (e1[0] * e2[1] - e1[1] * e2[0]);
        out[1] = (e2[1] * r[0] - e2[0] * r[1]) * inv_det;
        out[2] = (e1[0] * r[1] - e1[1] * r[0]) * inv_det;
    } else {
        let (e1, e2, e3) = (p[1] - p[0], p[2] - p[0], p[3] - p[0]);
        let cross = |a: &Vector<D>, b: &Vector<D>| {
            [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ]
        };
        let dot = |a: [f64; 3], b: &Vector<D>| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        let c23 = cross(&e2, &e3);
        let inv_det = 1.0 / dot(c23, &e1);
        out[1] = dot(c23, &r) * inv_det;
        out[2] = dot(cross(&e3, &e1), &r) * inv_det;
        out[3] = dot(cross(&e1, &e2), &r) * inv_det;
    }
    out[0] = 1.0 - out[1] - out[2] - out[3];
    out
}

/// Euclidean distance from `x` to the segment (2D facet) or triangle (3D facet) `p[0..D]`.
pub fn distance_to_facet<const D: usize>(x: &Point<D>, p: &[Point<D>]) -> f64 {
    (x - closest_point_on_facet(x, p)).norm()
}

/// The point of the segment or triangle `p[0..D]` closest to `x` (Ericson, *Real-Time Collision
/// Detection*, §5.1.2 and §5.1.5, by Voronoi regions of the vertices, edges and face).
pub fn closest_point_on_facet<const D: usize>(x: &Point<D>, p: &[Point<D>]) -> Point<D> {
    closest_feature_on_facet(x, p).0
}

/// The weights `λ` (summing to 1) of the facet's nodes `p[0..D]` that reproduce a point `x` of
/// the facet, `x = Σ λ_a p_a`: for a segment `λ = (1 − t, t)` with `t` the parameter along it;
/// for a triangle the solution of the normal equations `G (λ_1, λ_2) = (ab·ax, ac·ax)` with the
/// Gram matrix `G` of `ab, ac`, which is also the projection for a point off the plane. A
/// degenerate facet puts all the weight on its first node.
pub fn facet_coordinates<const D: usize>(x: &Point<D>, p: &[Point<D>]) -> [f64; 3] {
    assert_dim::<D>();
    if D == 2 {
        let t = segment_parameter(x, &p[0], &p[1]);
        return [1.0 - t, t, 0.0];
    }
    let (ab, ac, ax) = (p[1] - p[0], p[2] - p[0], x - p[0]);
    let (g11, g12, g22) = (ab.dot(&ab), ab.dot(&ac), ac.dot(&ac));
    let det = g11 * g22 - g12 * g12;
    if det <= f64::EPSILON * g11 * g22 {
        return [1.0, 0.0, 0.0];
    }
    let (r1, r2) = (ab.dot(&ax), ac.dot(&ax));
    let (u, v) = ((g22 * r1 - g12 * r2) / det, (g11 * r2 - g12 * r1) / det);
    [1.0 - u - v, u, v]
}

/// Where on a facet its closest point to a given point lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// At vertex `j`.
    Vertex(usize),
    /// On the edge of a triangle opposite its vertex `j`, between its ends.
    Edge(usize),
    /// Inside the segment or the triangle.
    Interior,
}

/// The point of the segment or triangle `p[0..D]` closest to `x` and the feature it lies on
/// (Ericson, §5.1.2 and §5.1.5: the Voronoi regions are tested in turn, vertices first).
pub fn closest_feature_on_facet<const D: usize>(x: &Point<D>, p: &[Point<D>]) -> (Point<D>, Feature) {
    assert_dim::<D>();
    if D == 2 {
        let t = segment_parameter(x, &p[0], &p[1]);
        return if t <= 0.0 {
            (p[0], Feature::Vertex(0))
        } else if t >= 1.0 {
            (p[1], Feature::Vertex(1))
        } else {
            (p[0] + (p[1] - p[0]) * t, Feature::Interior)
        };
    }
    let (a, b, c) = (p[0], p[1], p[2]);
    let (ab, ac, ap) = (b - a, c - a, x - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Vertex(0));
    }
    let bp = x - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Feature::Edge(2));
    }
    let cp = x - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Feature::Edge(1));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return (b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))), Feature::Edge(0));
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), Feature::Interior)
}

/// The point of the segment `[a, b]` closest to `x`.
pub fn closest_point_on_segment<const D: usize>(x: &Point<D>, a: &Point<D>, b: &Point<D>) -> Point<D> {
    a + (b - a) * segment_parameter(x, a, b).clamp(0.0, 1.0)
}

/// The parameter `t` of the projection `a + t (b − a)` of `x` on the line through `a` and `b`
/// (unclamped; 0 for a degenerate segment).
fn segment_parameter<const D: usize>(x: &Point<D>, a: &Point<D>, b: &Point<D>) -> f64 {
    let ab = b - a;
    let len2 = ab.norm_squared();
    if len2 == 0.0 {
        0.0
    } else {
        (x - a).dot(&ab) / len2
    }
}

/// The closest points `(p, q)` of the segments `[a0, a1]` and `[b0, b1]` (Ericson, *Real-Time
/// Collision Detection*, §5.1.9): minimise `|a0 + s d1 − b0 − t d2|` over `s, t ∈ [0, 1]`.
pub fn closest_points_segments<const D: usize>(
    a0: &Point<D>,
    a1: &Point<D>,
    b0: &Point<D>,
    b1: &Point<D>,
) -> (Point<D>, Point<D>) {
    let (d1, d2, r) = (a1 - a0, b1 - b0, a0 - b0);
    let (a, e, f) = (d1.norm_squared(), d2.norm_squared(), d2.dot(&r));
    if a <= f64::EPSILON && e <= f64::EPSILON {
        return (*a0, *b0);
    }
    let (s, t) = if a <= f64::EPSILON {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(&r);
        if e <= f64::EPSILON {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(&d2);
            let denom = a * e - b * b;
            let mut s = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (a0 + d1 * s, b0 + d2 * t)
}

/// The closest points `(p, q)` of two facets (segments in 2D, triangles in 3D), `p` on `a` and `q`
/// on `b`; where they intersect, a common point. In 2D the minimum of two disjoint segments is at an
/// endpoint of one; in 3D that of two disjoint triangles is between a vertex and a triangle or
/// between two edges, and the triangles intersect exactly when an edge of one crosses the other.
pub fn closest_points_facets<const D: usize>(a: &[Point<D>], b: &[Point<D>]) -> (Point<D>, Point<D>) {
    assert_dim::<D>();
    let mut best = (a[0], b[0]);
    let mut best_d = f64::INFINITY;
    let mut consider = |p: Point<D>, q: Point<D>| {
        let d = (p - q).norm_squared();
        if d < best_d {
            best_d = d;
            best = (p, q);
        }
    };
    if D == 2 {
        let (p, q) = closest_points_segments(&a[0], &a[1], &b[0], &b[1]);
        consider(p, q);
        return best;
    }
    for (from, to, swap) in [(a, b, false), (b, a, true)] {
        for v in &from[..3] {
            let q = closest_point_on_facet(v, &to[..3]);
            if swap {
                consider(q, *v)
            } else {
                consider(*v, q)
            }
        }
        for i in 0..3 {
            if let Some(x) = segment_crosses_triangle(&from[i], &from[(i + 1) % 3], &to[..3]) {
                consider(x, x);
            }
        }
    }
    for i in 0..3 {
        for j in 0..3 {
            let (p, q) = closest_points_segments(&a[i], &a[(i + 1) % 3], &b[j], &b[(j + 1) % 3]);
            consider(p, q);
        }
    }
    best
}

/// The winding number of the closed polyline (2D) or triangulated surface (3D) `facets` around `x`:
/// the sum of the signed angles (solid angles) the facets subtend at `x`, over 2π (4π). It is ±1
/// inside a closed front and 0 outside, whatever the facets' orientation within each component is
/// as long as it is consistent. In 3D the solid angle of a triangle `a, b, c` (relative to `x`) is
/// `2 atan2(a·(b×c), |a||b||c| + (a·b)|c| + (a·c)|b| + (b·c)|a|)` (Van Oosterom and Strackee).
pub fn winding_number<const D: usize>(x: &Point<D>, facets: &[[Point<D>; D]]) -> f64 {
    assert_dim::<D>();
    let mut total = 0.0;
    for f in facets {
        let a = f[0] - x;
        let b = f[1] - x;
        if D == 2 {
            total += (a[0] * b[1] - a[1] * b[0]).atan2(a.dot(&b));
        } else {
            let c = f[2] - x;
            let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
            let triple = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0]);
            let den = la * lb * lc + a.dot(&b) * lc + a.dot(&c) * lb + b.dot(&c) * la;
            total += 2.0 * triple.atan2(den);
        }
    }
    total
        / if D == 2 {
            2.0 * std::f64::consts::PI
        } else {
            4.0 * std::f64::consts::PI
        }
}

/// Where the segment `[p, q]` crosses the triangle `t` (3D), if it does.
fn segment_crosses_triangle<const D: usize>(p: &Point<D>, q: &Point<D>, t: &[Point<D>]) -> Option<Point<D>> {
    let n = facet_area_normal(t);
    let (dp, dq) = ((p - t[0]).dot(&n), (q - t[0]).dot(&n));
    if dp * dq > 0.0 || dp == dq {
        return None;
    }
    let x = p + (q - p) * (dp / (dp - dq));
    let w = barycentric(&[t[0], t[1], t[2], t[0] + n], &x);
    (w[0] >= 0.0 && w[1] >= 0.0 && w[2] >= 0.0).then_some(x)
}

/// The components of `v`, vector after vector: `[v0x, v0y, v1x, v1y, …]`.
pub fn flatten<const D: usize>(v: &[Vector<D>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}

/// The vectors whose components [`flatten`] gave `flat`, into `out`; `false` (and `out`
/// unchanged) when `flat` does not hold `D` components for each of them.
pub fn unflatten_into<const D: usize>(flat: &[f64], out: &mut [Vector<D>]) -> bool {
    if flat.len() != D * out.len() {
        return false;
    }
    for (x, c) in out.iter_mut().zip(flat.chunks_exact(D)) {
        *x = Vector::<D>::from_column_slice(c);
    }
    true
}

/// Calls `visit` with every integer cell `c` of the box `from ≤ c ≤ to` (componentwise, both
/// ends included), the first coordinate counting fastest; none when `to < from` in some
/// coordinate. The odometer every grid search over a block of cells walks.
#[inline]
pub fn for_each_cell<const D: usize>(from: [i64; D], to: [i64; D], mut visit: impl FnMut(&[i64; D])) {
    if (0..D).any(|a| to[a] < from[a]) {
        return;
    }
    let mut c = from;
    'cells: loop {
        visit(&c);
        for a in 0..D {
            if c[a] < to[a] {
                c[a] += 1;
                continue 'cells;
            }
            c[a] = from[a];
        }
        return;
    }
}

/// A time for a message, rounded to 12 significant digits (`n Δt` is not always a round number in
/// binary: 1 800 × 2.5e-4 is 0.44999999999999996, and the message should say 0.45), in plain
/// notation from 1e-4 to 1e9 and in scientific notation outside (1e-300 is not 300 digits).
pub fn shown(t: f64) -> String {
    let rounded: f64 = format!("{t:.11e}").parse().unwrap_or(t);
    if rounded == 0.0 || !rounded.is_finite() || (1e-4..1e9).contains(&rounded.abs()) {
        format!("{rounded}")
    } else {
        format!("{rounded:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// Every cell of a box once, the first coordinate fastest; an empty box none.
    #[test]
    fn the_cells_of_a_box() {
        let mut seen = Vec::new();
        for_each_cell([-1, 2, 0], [0, 4, 1], |c| seen.push(*c));
        assert_eq!(seen.len(), 2 * 3 * 2);
        assert_eq!(seen[..3], [[-1, 2, 0], [0, 2, 0], [-1, 3, 0]]);
        assert_eq!(*seen.last().unwrap(), [0, 4, 1]);
        let mut sorted = seen.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), seen.len());
        let mut none = 0;
        for_each_cell([0, 3], [2, 2], |_| none += 1);
        assert_eq!(none, 0);
    }

    fn p2(x: f64, y: f64) -> Point<2> {
        Point::<2>::new(x, y)
    }
    fn p3(x: f64, y: f64, z: f64) -> Point<3> {
        Point::<3>::new(x, y, z)
    }

    #[test]
    fn measures_and_normals() {
        let tri = [p2(0.0, 0.0), p2(2.0, 0.0), p2(0.0, 1.0)];
        assert_relative_eq!(signed_measure(&tri), 1.0);
        let tet = [
            p3(0.0, 0.0, 0.0),
            p3(1.0, 0.0, 0.0),
            p3(0.0, 1.0, 0.0),
            p3(0.0, 0.0, 3.0),
        ];
        assert_relative_eq!(signed_measure(&tet), 0.5);
        let n = facet_area_normal(&[p2(0.0, 0.0), p2(3.0, 0.0)]);
        assert_relative_eq!(n, Vector::<2>::new(0.0, -3.0));
        let n = facet_area_normal(&tet[..3]);
        assert_relative_eq!(n, Vector::<3>::new(0.0, 0.0, 0.5));
    }

    #[test]
    fn quality_of_regular_simplices_is_one() {
        let s = 3f64.sqrt();
        let tri = [p2(0.0, 0.0), p2(1.0, 0.0), p2(0.5, s / 2.0)];
        assert_relative_eq!(quality(&tri), 1.0, epsilon = 1e-12);
        let tet = [
            p3(1.0, 1.0, 1.0),
            p3(1.0, -1.0, -1.0),
            p3(-1.0, 1.0, -1.0),
            p3(-1.0, -1.0, 1.0),
        ];
        assert_relative_eq!(quality(&tet), 1.0, epsilon = 1e-12);
        let flat = [p2(0.0, 0.0), p2(1.0, 0.0), p2(2.0, 0.0)];
        assert_eq!(quality(&flat), 0.0);
    }

    /// Facet–facet closest points against a brute-force sampling of both facets.
    #[test]
    fn closest_points_of_facets_match_brute_force() {
        let mut seed = 99u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for _ in 0..200 {
            let a = [
                p3(rnd(), rnd(), rnd()),
                p3(rnd(), rnd(), rnd()),
                p3(rnd(), rnd(), rnd()),
            ];
            let b = [
                p3(rnd(), rnd(), rnd()),
                p3(rnd(), rnd(), rnd()),
                p3(rnd(), rnd(), rnd()),
            ];
            let (p, q) = closest_points_facets(&a, &b);
            let exact = (p - q).norm();
            let n = 30;
            let sample = |t: &[Point<3>; 3]| {
                let mut pts = Vec::new();
                for i in 0..=n {
                    for j in 0..=n - i {
                        let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                        pts.push(t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v);
                    }
                }
                pts
            };
            let (sa, sb) = (sample(&a), sample(&b));
            let mut brute = f64::INFINITY;
            for x in &sa {
                for y in &sb {
                    brute = brute.min((x - y).norm());
                }
            }
            // p and q lie on their facets: their distance is at least the true minimum.
            assert!(exact <= brute + 1e-12 && brute - exact < 0.1, "{exact} vs {brute}");
            assert!((distance_to_facet(&p, &a)) < 1e-9 && distance_to_facet(&q, &b) < 1e-9);
        }
        // Crossing segments in 2D meet.
        let (p, q) = closest_points_facets(&[p2(-1.0, 0.0), p2(1.0, 0.0)], &[p2(0.5, -1.0), p2(0.5, 1.0)]);
        assert!((p - q).norm() < 1e-15 && (p - p2(0.5, 0.0)).norm() < 1e-15);
    }

    #[test]
    fn closest_point_on_triangle_matches_brute_force() {
        let tri = [p3(0.1, 0.0, 0.2), p3(1.0, 0.3, 0.0), p3(0.2, 1.1, 0.5)];
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
        };
        for _ in 0..200 {
            let x = p3(rnd(), rnd(), rnd());
            let exact = distance_to_facet(&x, &tri);
            // Brute force over a fine barycentric sampling of the triangle.
            let n = 200;
            let mut best = f64::INFINITY;
            for i in 0..=n {
                for j in 0..=n - i {
                    let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                    let q = tri[0] + (tri[1] - tri[0]) * u + (tri[2] - tri[0]) * v;
                    best = best.min((x - q).norm());
                }
            }
            assert!(exact <= best + 1e-12 && best - exact < 1e-2, "{exact} vs {best}");
        }
    }

    #[test]
    fn times_print_short_whatever_their_size() {
        assert_eq!(shown(1800.0 * 2.5e-4), "0.45");
        assert_eq!(shown(1.5), "1.5");
        assert_eq!(shown(1e-300 * 3.0), "3e-300");
        assert_eq!(shown(1e12), "1e12");
        assert_eq!(shown(0.0), "0");
    }
}
