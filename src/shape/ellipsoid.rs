//! The exact distance to an ellipse (2D) or ellipsoid (3D), after D. Eberly, "Distance from a point
//! to an ellipse, an ellipsoid, or a hyperellipsoid" (2013).
//!
//! With the semi-axes sorted `e_0 ≥ … ≥ e_{D−1}` and the point reflected into the first orthant
//! (`y_i ≥ 0`), the closest point is `x_i = e_i² y_i / (t + e_i²)` where `t` is the root of
//! `Σ (e_i y_i / (t + e_i²))² = 1`, found by bisection on the scaled function
//! `G(s) = Σ (r_i z_i / (s + r_i))² − 1`, `r_i = (e_i / e_{D−1})²`, `z_i = y_i / e_i`, which is
//! monotone between `z_{D−1} − 1` and `|r ⊙ z| − 1` (outside) or `0` (inside). Components with
//! `y_i = 0` have `x_i = 0` and drop out, except on the plane of the smallest axis (`y_{D−1} = 0`),
//! where points close to the centre have their closest point off that plane.

use super::{Boundary, Shape};
use crate::math::Point;

/// An ellipse or ellipsoid centred at the origin with the given semi-axes along the coordinate axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ellipsoid<const D: usize> {
    /// Semi-axes, any order, all positive.
    pub semi_axes: [f64; D],
}

impl<const D: usize> Shape<D> for Ellipsoid<D> {
    fn signed_distance(&self, x: &Point<D>) -> f64 {
        // Sort the axes in decreasing order and reflect the point into the first orthant.
        let mut order: [usize; D] = std::array::from_fn(|i| i);
        order.sort_by(|&a, &b| self.semi_axes[b].total_cmp(&self.semi_axes[a]));
        let e: Vec<f64> = order.iter().map(|&i| self.semi_axes[i]).collect();
        let y: Vec<f64> = order.iter().map(|&i| x[i].abs()).collect();
        let d = distance_sorted(&e, &y);
        let inside = (0..D).map(|i| (x[i] / self.semi_axes[i]).powi(2)).sum::<f64>() < 1.0;
        if inside {
            -d
        } else {
            d
        }
    }
    fn bounding_radius(&self) -> f64 {
        self.semi_axes.iter().copied().fold(0.0, f64::max)
    }
    /// In 2D, points `(a cos t, b sin t)` at equal steps of `t`, as many as the perimeter over `h`
    /// (Ramanujan's approximation of the perimeter), symmetric about both axes; in 3D a geodesic
    /// sphere scaled by the semi-axes.
    fn boundary(&self, h: f64) -> Option<Boundary<D>> {
        if D == 3 {
            return Some(super::geodesic::<D>(
                std::array::from_fn(|k| self.semi_axes[k.min(D - 1)]),
                h,
            ));
        }
        let (a, b) = (self.semi_axes[0], self.semi_axes[D - 1]);
        let perimeter = std::f64::consts::PI * (3.0 * (a + b) - ((3.0 * a + b) * (a + 3.0 * b)).sqrt());
        let n = (perimeter / h).ceil().max(8.0) as usize;
        let n = n + n % 4;
        Some(super::closed_polyline(
            (0..n)
                .map(|k| {
                    let t = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                    Point::<D>::from_fn(|i, _| [a * t.cos(), b * t.sin(), 0.0][i])
                })
                .collect(),
        ))
    }
}

/// Distance from `y` (all `y_i ≥ 0`) to the ellipsoid with semi-axes `e` (decreasing), any
/// dimension.
fn distance_sorted(e: &[f64], y: &[f64]) -> f64 {
    let n = e.len();
    if n == 1 {
        return (y[0] - e[0]).abs();
    }
    let last = n - 1;
    if y[last] > 0.0 {
        // Components with y_i = 0 have x_i = 0 and contribute |x_i − y_i| = 0.
        let positive: Vec<usize> = (0..n).filter(|&i| y[i] > 0.0).collect();
        let ep: Vec<f64> = positive.iter().map(|&i| e[i]).collect();
        let yp: Vec<f64> = positive.iter().map(|&i| y[i]).collect();
        return root_distance(&ep, &yp);
    }
    // y_{n−1} = 0: the closest point may leave this plane if the point is near the centre.
    let mut xde = vec![0.0; last];
    let mut discr = 1.0;
    let mut off_plane = true;
    for i in 0..last {
        let denom = e[i] * e[i] - e[last] * e[last];
        let numer = e[i] * y[i];
        if numer >= denom {
            off_plane = false;
            break;
        }
        xde[i] = numer / denom;
        discr -= xde[i] * xde[i];
    }
    if off_plane && discr > 0.0 {
        let mut d2 = (e[last] * discr.sqrt()).powi(2);
        for i in 0..last {
            d2 += (e[i] * xde[i] - y[i]).powi(2);
        }
        return d2.sqrt();
    }
    distance_sorted(&e[..last], &y[..last])
}

/// The distance when every `y_i > 0`: bisection for the root of `G`.
fn root_distance(e: &[f64], y: &[f64]) -> f64 {
    let n = e.len();
    let small = e[n - 1];
    let z: Vec<f64> = (0..n).map(|i| y[i] / e[i]).collect();
    let r: Vec<f64> = (0..n).map(|i| (e[i] / small).powi(2)).collect();
    let g = |s: f64| (0..n).map(|i| (r[i] * z[i] / (s + r[i])).powi(2)).sum::<f64>() - 1.0;
    let g0 = g(0.0);
    let s = if g0 == 0.0 {
        0.0
    } else {
        let mut lo = z[n - 1] - 1.0;
        let mut hi = if g0 < 0.0 {
            0.0
        } else {
            (0..n).map(|i| (r[i] * z[i]).powi(2)).sum::<f64>().sqrt() - 1.0
        };
        let mut mid = 0.5 * (lo + hi);
        for _ in 0..200 {
            mid = 0.5 * (lo + hi);
            if mid == lo || mid == hi {
                break;
            }
            let v = g(mid);
            if v > 0.0 {
                lo = mid;
            } else if v < 0.0 {
                hi = mid;
            } else {
                break;
            }
        }
        mid
    };
    (0..n)
        .map(|i| {
            let x = r[i] * y[i] / (s + r[i]);
            (x - y[i]).powi(2)
        })
        .sum::<f64>()
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the minimum over a fine sampling of the boundary, inside and outside, on the axes
    /// and at the centre.
    #[test]
    fn ellipse_distance_matches_brute_force() {
        let shape = Ellipsoid { semi_axes: [0.5, 1.3] };
        let n = 400_000;
        let boundary: Vec<Point<2>> = (0..n)
            .map(|k| {
                let t = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                Point::<2>::new(0.5 * t.cos(), 1.3 * t.sin())
            })
            .collect();
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
        };
        let mut points: Vec<Point<2>> = (0..200).map(|_| Point::<2>::new(rnd(), rnd())).collect();
        points.extend([
            Point::<2>::new(0.0, 0.0),
            Point::<2>::new(0.3, 0.0),
            Point::<2>::new(0.0, 0.9),
            Point::<2>::new(-1.7, 0.0),
            Point::<2>::new(0.0, -2.0),
            Point::<2>::new(0.1, 1e-9),
        ]);
        for x in points {
            let brute = boundary.iter().map(|b| (x - b).norm()).fold(f64::INFINITY, f64::min);
            let d = shape.signed_distance(&x);
            assert!((d.abs() - brute).abs() < 1e-5, "{x:?}: {d} vs {brute}");
            let inside = (x.x / 0.5).powi(2) + (x.y / 1.3).powi(2) < 1.0;
            assert_eq!(d < 0.0, inside, "{x:?}");
        }
    }

    #[test]
    fn ellipsoid_distance_matches_brute_force() {
        let axes = [0.4, 1.0, 0.7];
        let shape = Ellipsoid { semi_axes: axes };
        let m = 700;
        let mut boundary = Vec::with_capacity(m * m);
        for i in 0..m {
            let theta = std::f64::consts::PI * (i as f64 + 0.5) / m as f64;
            for j in 0..2 * m {
                let phi = std::f64::consts::PI * j as f64 / m as f64;
                boundary.push(Point::<3>::new(
                    axes[0] * theta.sin() * phi.cos(),
                    axes[1] * theta.sin() * phi.sin(),
                    axes[2] * theta.cos(),
                ));
            }
        }
        let points = [
            Point::<3>::new(0.0, 0.0, 0.0),
            Point::<3>::new(0.1, 0.2, 0.0),
            Point::<3>::new(1.0, -1.2, 0.3),
            Point::<3>::new(0.0, 0.0, 1.5),
            Point::<3>::new(0.2, 0.0, 0.1),
            Point::<3>::new(-0.3, 0.5, -0.4),
            Point::<3>::new(0.05, 0.0, 0.0),
        ];
        for x in points {
            let brute = boundary.iter().map(|b| (x - b).norm()).fold(f64::INFINITY, f64::min);
            let d = shape.signed_distance(&x);
            assert!((d.abs() - brute).abs() < 5e-3, "{x:?}: {d} vs {brute}");
            assert!(d.abs() <= brute + 1e-12, "{x:?}: {d} above the sampled minimum {brute}");
        }
        // A sphere is a special ellipsoid.
        let sphere = Ellipsoid { semi_axes: [0.5; 3] };
        assert!((sphere.signed_distance(&Point::<3>::new(0.3, 0.4, 1.2)) - (1.3 - 0.5)).abs() < 1e-12);
        assert!((sphere.signed_distance(&Point::<3>::new(0.1, 0.0, 0.0)) + 0.4).abs() < 1e-12);
    }
}
