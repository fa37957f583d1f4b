//! The local update of fast marching on a simplex, one code path for triangles and tetrahedra.
//!
//! The arrival time at node `v` through the face spanned by accepted nodes `y_0 … y_k` (k = 0, 1 or
//! 2: a node, an edge, a triangle) with times `t_i` is the minimum over the points `p` of the face of
//! `T(p) + |v − p|`, with `T` linear on the face. Write `p = y_0 + E λ` with `E = [y_1 − y_0, …]`,
//! `w = v − y_0`, `δ_i = t_i − t_0`, `G = EᵀE`. At the minimum the unit vector `q` from `p` to `v`
//! satisfies `Eᵀq = δ` (the directional derivative of `T` along each edge), hence
//!
//! ```text
//! α = G⁻¹ δ,   β = G⁻¹ Eᵀ w,   |w⊥|² = |w|² − βᵀ G β,   r = |w⊥| / √(1 − δᵀ α),
//! λ = β − r α,   T_v = t_0 + δᵀ λ + r,
//! ```
//!
//! valid when `1 − δᵀα > 0` (the front can reach `v` across this face) and `λ` lies in the face
//! (`λ_i ≥ 0`, `Σ λ_i ≤ 1`); otherwise the minimum lies on a sub-face, which the caller tries too.
//! For k = 1 this is the Kimmel–Sethian triangle update, for k = 2 the tetrahedron update.
//!
//! **Second order** ([`Face::corrected`]). `T` linear on the face is first order: a front spreading
//! from a curved body has convex times, which the interpolant overestimates by
//! `Q = ½ Σ λ_i d_iᵀ H d_i` at the foot `p` (`λ_0 = 1 − Σ λ_i`, `d_i = y_i − p`, `H` the Hessian of
//! `T`), at every update. The nodes' own predictions `t_i + g_i · (p − y_i)` from their gradients
//! `g_i` underestimate it by the same `Q`, so the face value `Σ λ_i (t_i + ½ g_i · (p − y_i))`,
//! added to `|v − p|` at the linear update's foot, is exact for quadratic times: the march's error
//! then comes from the gradients (the characteristic directions of earlier updates) rather than
//! from the front's curvature.
//!
//! **Causality.** An update is also rejected when `T_v` is below one of the `t_i` it uses: on an
//! obtuse simplex the minimiser can lie "downwind", and accepting it would break the monotone order
//! of the march. The sub-face updates then apply (the one-node update `t_i + |v − y_i|` always
//! does), so the field stays monotone along the march on any mesh.

use crate::math::{Point, Vector};

/// The update of `v` through the face `y[0..k+1]` with times `t[0..k+1]`, or `None` if the minimum
/// is not inside that face or violates causality. `y` and `t` hold 1 to 3 entries.
pub fn face_update<const D: usize>(v: &Point<D>, y: &[Point<D>], t: &[f64]) -> Option<f64> {
    let w = v - y[0];
    let value = match y.len() {
        1 => return Some(t[0] + w.norm()),
        2 => Face::<D, 1>::new((&y[0], t[0]), [(&y[1], t[1])])?.value(&w),
        _ => Face::<D, 2>::new((&y[0], t[0]), [(&y[1], t[1]), (&y[2], t[2])])?.value(&w),
    };
    value.is_finite().then_some(value)
}

/// A face of `K` edges from its node `y_0` (an edge, `K = 1`, or a triangle, `K = 2`) of accepted
/// nodes with what its update needs that does not depend on the node updated: `E`, `G⁻¹`,
/// `α = G⁻¹δ`, `1 − δᵀα`, and for a face of codimension one (an edge in 2D, a triangle in 3D) its
/// normal `n` with `1/(|n| √(1 − δᵀα))`. The march prepares the faces around a newly accepted
/// node and updates its neighbours through them. `K` a constant, the small products unroll and
/// an edge costs what an edge needs.
///
/// With a normal, `|w⊥| = |w · n| / |n|`, so `r = |w⊥| / √(1 − δᵀα)` costs one dot product and
/// no square root or division per node updated.
#[derive(Debug, Clone, Copy)]
pub struct Face<const D: usize, const K: usize> {
    /// `y_k − y_0`.
    e: [Vector<D>; K],
    /// `G⁻¹`, symmetric.
    inverse: [[f64; K]; K],
    alpha: [f64; K],
    delta: [f64; K],
    /// `1 − δᵀα`, positive.
    s: f64,
    /// The normal and `1/(|n| √(1 − δᵀα))` of a face of codimension one; zero otherwise.
    normal: Vector<D>,
    scale: f64,
    t0: f64,
    t_max: f64,
}

impl<const D: usize, const K: usize> Face<D, K> {
    /// Whether the face spans a hyperplane, and so has a normal.
    const FULL: bool = K + 1 == D;

    /// The face from `y_0` with time `t_0` to the nodes `y` with times `t`, or `None` if no front
    /// can cross it (`δᵀα ≥ 1`: the times rise faster along it than the distance) or it is
    /// degenerate.
    #[inline]
    pub fn new((y0, t0): (&Point<D>, f64), y: [(&Point<D>, f64); K]) -> Option<Self> {
        let e: [Vector<D>; K] = std::array::from_fn(|k| y[k].0 - y0);
        let delta: [f64; K] = std::array::from_fn(|k| y[k].1 - t0);
        let inverse = invert(&std::array::from_fn(|i| std::array::from_fn(|j| e[i].dot(&e[j]))))?;
        let alpha = apply(&inverse, &delta);
        let s = 1.0 - dot(&delta, &alpha);
        if s <= 0.0 || !s.is_finite() {
            return None;
        }
        let (normal, scale) = if Self::FULL {
            let mut nodes = [*y0; 3];
            for (k, (yk, _)) in y.iter().enumerate() {
                nodes[k + 1] = **yk;
            }
            let n = crate::math::facet_area_normal(&nodes[..D]);
            (n, 1.0 / (n.norm_squared() * s).sqrt())
        } else {
            (Vector::<D>::zeros(), 0.0)
        };
        Some(Face {
            e,
            inverse,
            alpha,
            delta,
            s,
            normal,
            scale,
            t0,
            t_max: y.iter().fold(t0, |m, &(_, t)| m.max(t)),
        })
    }

    /// The update of the node at `w = v − y_0`, or infinity if its minimiser is not in the face,
    /// the node lies on the face's line or plane, or the value is below a time it uses
    /// (causality). Written without early returns: the march evaluates many faces per node and
    /// their validity is unpredictable.
    #[inline]
    pub fn value(&self, w: &Vector<D>) -> f64 {
        let (lambda, r) = self.foot(w);
        let tv = self.linear(&lambda) + r;
        let inside = lambda.iter().all(|&l| l >= 0.0) & (lambda.iter().sum::<f64>() <= 1.0);
        if (r > 0.0) & inside & (tv >= self.t_max) {
            tv
        } else {
            f64::INFINITY
        }
    }

    /// The [`value`](Self::value) of the node at `w = v − y_0` if it is below `bound`, infinity
    /// otherwise. A face without a normal decides it before its square root: from
    /// `λ = β − rα` and `r = |w⊥|/√s` (`s = 1 − δᵀα`), `T_v = t_0 + δᵀβ + r s = t_0 + δᵀβ + |w⊥| √s`,
    /// so `T_v < bound` if and only if `m = bound − t_0 − δᵀβ > 0` and `|w⊥|² s < m²`; the
    /// nodes that pass are evaluated as by `value`. The march's edges mostly fail it: it spares
    /// their square roots.
    #[inline]
    pub fn value_below(&self, w: &Vector<D>, bound: f64) -> f64 {
        if !Self::FULL {
            let ew: [f64; K] = std::array::from_fn(|k| self.e[k].dot(w));
            let beta = apply(&self.inverse, &ew);
            // A relative slack far above the few units in the last place by which the identity's
            // rounding and `value`'s differ: what fails here fails there too, to the last bit.
            let slack = 1e-12 * bound.abs();
            let m = bound + slack - self.linear(&beta);
            let perp = w.norm_squared() - dot(&ew, &beta);
            if m <= 0.0 || perp * self.s >= m * m {
                return f64::INFINITY;
            }
        }
        let t = self.value(w);
        if t < bound {
            t
        } else {
            f64::INFINITY
        }
    }

    /// The second-order value of the node at `w = v − y_0` (see the module docs), for a face
    /// whose [`value`](Self::value) there is finite, given the unit gradients of the times at
    /// `y_0`, `g0`, and at the other nodes, `g`, and the unit direction of its characteristic. It
    /// is evaluated at the linear update's foot (the value is stationary there) and kept at or
    /// above the face's times, which keeps the march monotone. A node whose gradient is unknown
    /// (zero: on the front) takes the characteristic's direction, which makes its term vanish
    /// with the others' when no gradient is known: the linear value.
    #[inline]
    pub fn corrected(&self, w: &Vector<D>, g0: &Vector<D>, g: [&Vector<D>; K]) -> (f64, Vector<D>) {
        let (lambda, r) = self.foot(w);
        let foot = (0..K).fold(Vector::<D>::zeros(), |f, k| f + self.e[k] * lambda[k]);
        let q = (w - foot) / r;
        let pick = |g: &Vector<D>| g + q * f64::from(u8::from(g.norm_squared() == 0.0));
        let (g0, g) = (pick(g0), g.map(pick));
        let smooth = g0.dot(&q) >= SMOOTH && g.iter().all(|g| g.dot(&q) >= SMOOTH);
        let l0 = lambda.iter().fold(1.0, |l, x| l - x);
        let terms = (0..K).fold(l0 * g0.dot(&foot), |sum, k| {
            sum + lambda[k] * g[k].dot(&(foot - self.e[k]))
        });
        let correction = 0.5 * f64::from(u8::from(smooth)) * terms;
        let tv = self.linear(&lambda) + r + correction;
        (tv.max(self.t_max), q)
    }

    /// The times' linear interpolant at the point `λ` of the face.
    #[inline]
    fn linear(&self, lambda: &[f64; K]) -> f64 {
        (0..K).fold(self.t0, |t, k| t + self.delta[k] * lambda[k])
    }

    /// The foot of the characteristic through the node at `w`: its coordinates `λ` on the face and
    /// its distance `r` from the node.
    #[inline]
    fn foot(&self, w: &Vector<D>) -> ([f64; K], f64) {
        let ew: [f64; K] = std::array::from_fn(|k| self.e[k].dot(w));
        let beta = apply(&self.inverse, &ew);
        let r = if Self::FULL {
            self.normal.dot(w).abs() * self.scale
        } else {
            ((w.norm_squared() - dot(&ew, &beta)) / self.s).max(0.0).sqrt()
        };
        (std::array::from_fn(|k| beta[k] - r * self.alpha[k]), r)
    }
}

/// The smallest cosine between a face node's gradient and the characteristic for which the
/// second-order value applies: beyond it the face straddles a kink of the times (where
/// characteristics from two parts of the front meet), which the gradients cannot interpolate.
pub const SMOOTH: f64 = 0.9;

/// `G⁻¹` of the Gram matrix `G` of one or two edges, or `None` if they are parallel (two) or the
/// edge has no length (one: its inverse is infinite, which `Face::new` then refuses).
#[inline]
fn invert<const K: usize>(g: &[[f64; K]; K]) -> Option<[[f64; K]; K]> {
    let mut inverse = [[0.0; K]; K];
    match K {
        1 => inverse[0][0] = 1.0 / g[0][0],
        2 => {
            let det = g[0][0] * g[1][1] - g[0][1] * g[0][1];
            if det <= 1e-300 {
                return None;
            }
            let inv = 1.0 / det;
            inverse[0][0] = g[1][1] * inv;
            inverse[0][1] = -g[0][1] * inv;
            inverse[1][0] = inverse[0][1];
            inverse[1][1] = g[0][0] * inv;
        }
        _ => unreachable!("a face has one or two edges"),
    }
    Some(inverse)
}

/// `M b`.
#[inline]
fn apply<const K: usize>(m: &[[f64; K]; K], b: &[f64; K]) -> [f64; K] {
    std::array::from_fn(|i| dot(&m[i], b))
}

/// `aᵀ b`.
#[inline]
fn dot<const K: usize>(a: &[f64; K], b: &[f64; K]) -> f64 {
    (0..K).fold(0.0, |sum, k| sum + a[k] * b[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plane wave `T(x) = n · x` is reproduced exactly by the triangle and tetrahedron updates
    /// when its characteristic through `v` crosses the face (`v` = a point of the face + `r n`), and
    /// the face update is rejected when the characteristic misses the face.
    #[test]
    fn plane_waves_are_exact() {
        let n2 = Point::<2>::new(0.6, 0.8);
        let y2 = [Point::<2>::new(0.0, 0.0), Point::<2>::new(1.0, 0.1)];
        let t2: Vec<f64> = y2.iter().map(|y| n2.dot(y)).collect();
        let v2 = y2[0] + (y2[1] - y2[0]) * 0.3 + n2 * 0.7;
        let got = face_update(&v2, &y2, &t2).unwrap();
        assert!((got - n2.dot(&v2)).abs() < 1e-14, "{got}");
        // Foot outside the segment: no update through it.
        let beyond = y2[0] + (y2[1] - y2[0]) * 1.4 + n2 * 0.7;
        assert_eq!(face_update(&beyond, &y2, &t2), None);

        let n3 = Point::<3>::new(0.2, 0.3, 0.5).normalize();
        let y3 = [
            Point::<3>::new(0.0, 0.0, 0.0),
            Point::<3>::new(1.0, 0.0, 0.1),
            Point::<3>::new(0.0, 1.0, 0.2),
        ];
        let t3: Vec<f64> = y3.iter().map(|y| n3.dot(y)).collect();
        let v3 = y3[0] + (y3[1] - y3[0]) * 0.3 + (y3[2] - y3[0]) * 0.25 + n3 * 0.8;
        let got = face_update(&v3, &y3, &t3).unwrap();
        assert!((got - n3.dot(&v3)).abs() < 1e-14, "{got}");
        // The edge update of the same wave can only overestimate (T ≥ exact for a plane wave).
        if let Some(edge) = face_update(&v3, &y3[..2], &t3[..2]) {
            assert!(edge >= n3.dot(&v3) - 1e-14);
        }
    }

    /// A point source at `s` with exact values at the nodes: the update never falls below the true
    /// distance (linear interpolation of the convex distance overestimates it) and stays close.
    #[test]
    fn point_source_is_bounded_below_by_the_distance() {
        let s = Point::<2>::new(-1.0, -2.0);
        for (a, b, v) in [
            ([0.0, 0.0], [1.0, 0.0], [0.5, 0.8]),
            ([0.0, 0.0], [0.3, 0.1], [0.1, 0.5]),
            ([2.0, 0.0], [2.0, 1.0], [3.0, 0.5]),
        ] {
            let y = [Point::<2>::new(a[0], a[1]), Point::<2>::new(b[0], b[1])];
            let v = Point::<2>::new(v[0], v[1]);
            let t: Vec<f64> = y.iter().map(|y| (y - s).norm()).collect();
            let exact = (v - s).norm();
            if let Some(got) = face_update(&v, &y, &t) {
                // Linear interpolation of a convex function overestimates it: T ≥ exact.
                assert!(got >= exact - 1e-12 && got < exact + 0.05, "{got} vs {exact}");
            }
        }
    }

    /// The second-order value of a point source's time `|v − s|` from exact times and gradients
    /// at the face's nodes: its error is a small fraction of the linear value's (which
    /// overestimates), on triangles and tetrahedra of size 0.1 at distance 1 from the source; with
    /// no gradient known it is the linear value.
    #[test]
    fn second_order_values_of_a_point_source() {
        fn check<const D: usize, const K: usize>(s: Point<D>, y: &[Point<D>], v: Point<D>) {
            let t: Vec<f64> = y.iter().map(|y| (y - s).norm()).collect();
            let g: Vec<Vector<D>> = y.iter().map(|y| (y - s).normalize()).collect();
            let face = Face::<D, K>::new((&y[0], t[0]), std::array::from_fn(|k| (&y[k + 1], t[k + 1]))).unwrap();
            let w = v - y[0];
            let exact = (v - s).norm();
            let linear = face.value(&w);
            assert!(linear.is_finite() && linear > exact, "{linear} against {exact}");
            let (second, direction) = face.corrected(&w, &g[0], std::array::from_fn(|k| &g[k + 1]));
            assert!(
                (second - exact).abs() < 0.05 * (linear - exact),
                "linear {:.3e}, second order {:.3e}",
                linear - exact,
                second - exact
            );
            assert!((direction - (v - s).normalize()).norm() < 0.05);
            let zero = Vector::<D>::zeros();
            assert!((face.corrected(&w, &zero, [&zero; K]).0 - linear).abs() < 1e-14);
        }
        let s2 = Point::<2>::new(0.0, -1.0);
        check::<2, 1>(
            s2,
            &[Point::<2>::new(-0.04, 0.0), Point::<2>::new(0.06, 0.01)],
            Point::<2>::new(0.01, 0.09),
        );
        let s3 = Point::<3>::new(0.0, 0.0, -1.0);
        check::<3, 2>(
            s3,
            &[
                Point::<3>::new(-0.05, -0.03, 0.0),
                Point::<3>::new(0.06, -0.02, 0.01),
                Point::<3>::new(0.0, 0.07, -0.01),
            ],
            Point::<3>::new(0.01, 0.0, 0.09),
        );
    }

    /// `value_below` is `value` where that is below the bound and infinity elsewhere, for edges
    /// in 3D (the square-root-free test) and 2D and triangles in 3D, at pseudo-random nodes.
    #[test]
    fn value_below_is_the_value_under_the_bound() {
        fn check<const D: usize, const K: usize>(seed: u64) -> usize {
            let mut state = seed;
            let mut next = || {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 11) as f64 / (1u64 << 53) as f64
            };
            let mut finite = 0;
            for _ in 0..2000 {
                let y0 = Point::<D>::from_fn(|_, _| next());
                let y: [Point<D>; K] = std::array::from_fn(|_| Point::<D>::from_fn(|_, _| next()));
                let t0 = 1.0 + next();
                let t: [f64; K] = std::array::from_fn(|_| t0 - 0.5 * next());
                let Some(face) = Face::<D, K>::new((&y0, t0), std::array::from_fn(|k| (&y[k], t[k]))) else {
                    continue;
                };
                let w = Point::<D>::from_fn(|_, _| 2.0 * next() - 0.5) - y0;
                let value = face.value(&w);
                for bound in [t0 + 3.0 * next(), value * (1.0 + 1e-9), value * (1.0 - 1e-9)] {
                    let want = if value < bound { value } else { f64::INFINITY };
                    assert_eq!(face.value_below(&w, bound), want, "bound {bound}, value {value}");
                }
                finite += usize::from(value.is_finite());
            }
            finite
        }
        // Valid updates among the 2 000 nodes: 580, 460 and 56.
        assert!(check::<3, 1>(1) > 400);
        assert!(check::<2, 1>(2) > 400);
        assert!(check::<3, 2>(3) > 40);
    }

    /// On an obtuse triangle the downwind minimiser is rejected (causality), not accepted below
    /// the values it uses.
    #[test]
    fn causality_rejects_downwind_updates() {
        // v sits almost on the edge ab, between a (t = 0) and b (t = 1): the edge update would
        // give a value below t_b.
        let y = [Point::<2>::new(0.0, 0.0), Point::<2>::new(2.0, 0.0)];
        let v = Point::<2>::new(1.0, 0.01);
        assert_eq!(face_update(&v, &y, &[0.0, 1.9]), None);
    }
}
