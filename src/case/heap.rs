//! The angle of repose of a heap of bodies: the slope of its free surface against the horizontal.
//!
//! With `ĝ` the direction of gravity, each body's height is `z = −G·ĝ` and its horizontal place
//! `h = G − (G·ĝ) ĝ`. The heap's axis passes through the mean horizontal place `c`; the distance
//! from it, `r = |P (h − c)|`, is measured along the horizontal directions in which the heap
//! spreads: `P` projects onto the eigenvectors of the horizontal covariance of `h` whose standard
//! deviation is at least half the largest. A cone spreads in both, so `r` is the distance from its
//! axis; a heap in a slot (or a 2D heap) spreads along the slot only, so `r` is the distance from
//! the plane through its crest, whatever the bodies' places across the slot. The spread
//! coordinates are cut into cells of side the largest body diameter (intervals on either side of a
//! ridge's crest, squares around a cone's axis); the free surface is the highest top (`z` plus the
//! bounding radius) in each cell, at that body's `r`. Binned by `r` alone, the higher side's tops
//! would hide the lower side's and a lopsided heap would read its shallower side's slope; cell by
//! cell, the fit below weighs every side alike and gives their mean slope. A least-squares line
//! `z = a + b r` through the cells whose middles lie between 20 % and 80 % of the heap's reach
//! (leaving out the rounded crest and the toe) gives the angle `atan(−b)`. The reach is the distance within which 95 % of
//! the bodies lie, so that a few bodies rolled away across the floor do not stretch it. Cost:
//! `O(n log n)`.

use crate::math::{for_each_cell, Point, Vector};
use nalgebra::{DMatrix, SMatrix};
use std::collections::HashMap;

/// The fewest bodies that make a heap.
const FEWEST: usize = 30;

/// The angle of repose in degrees of the heap of bodies at `centres` with bounding radii `radii`
/// under `gravity` (see the module's documentation); `None` without gravity, with fewer than 30
/// bodies, or when fewer than three bins lie in the fitted range.
pub fn repose_angle<const D: usize>(centres: &[Point<D>], radii: &[f64], gravity: &Vector<D>) -> Option<f64> {
    let down = gravity.try_normalize(0.0)?;
    let n = centres.len();
    if n < FEWEST || radii.len() != n {
        return None;
    }
    let flat: Vec<Vector<D>> = centres.iter().map(|p| p - down * p.dot(&down)).collect();
    let mean = flat.iter().fold(Vector::<D>::zeros(), |s, h| s + h) / n as f64;
    let covariance = flat.iter().fold(SMatrix::<f64, D, D>::zeros(), |s, h| {
        s + (h - mean) * (h - mean).transpose()
    }) / n as f64;
    // A dynamic matrix: nalgebra's eigensolver is not generic over a const dimension.
    let eigen = DMatrix::from_fn(D, D, |i, j| covariance[(i, j)]).symmetric_eigen();
    let largest = eigen.eigenvalues.max();
    let spread: Vec<Vector<D>> = (0..D)
        .filter(|&k| eigen.eigenvalues[k] >= 0.25 * largest)
        .map(|k| Vector::<D>::from_fn(|a, _| eigen.eigenvectors[(a, k)]))
        .collect();
    let width = 2.0 * radii.iter().copied().fold(0.0, f64::max);
    // Each body's coordinates along the spread directions (zero along the others), and its
    // distance from the axis.
    let coordinates: Vec<Vector<D>> = flat
        .iter()
        .map(|h| Vector::<D>::from_fn(|k, _| spread.get(k).map_or(0.0, |e| e.dot(&(h - mean)))))
        .collect();
    let mut sorted: Vec<f64> = coordinates.iter().map(|c| c.norm()).collect();
    sorted.sort_unstable_by(f64::total_cmp);
    let reach = sorted[(0.95 * (n - 1) as f64) as usize];
    if !(width > 0.0 && reach > 0.0) {
        return None;
    }
    // The highest top over each cell of side `width` of the spread coordinates, at that body's
    // distance: the heap's sides apart (binned by distance alone, the higher side's tops would
    // hide the lower side's, and a lopsided heap would read its shallower side's slope). A body
    // counts in every cell its bounding ball's shadow reaches, so that a cell holding only the
    // edge of a surface body's column does not read a buried one.
    let mut tops: HashMap<[i64; D], (f64, f64)> = HashMap::new();
    for ((p, c), r) in centres.iter().zip(&coordinates).zip(radii) {
        let lo: [i64; D] = std::array::from_fn(|k| ((c[k] - r) / width).floor() as i64);
        let hi: [i64; D] = std::array::from_fn(|k| {
            if k < spread.len() {
                ((c[k] + r) / width).floor() as i64
            } else {
                lo[k]
            }
        });
        let top = (c.norm(), -p.dot(&down) + r);
        for_each_cell(lo, hi, |cell| {
            let best = tops.entry(*cell).or_insert((0.0, f64::NEG_INFINITY));
            if top.1 > best.1 {
                *best = top;
            }
        });
    }
    let fitted: Vec<(f64, f64)> = tops
        .into_iter()
        .filter(|(cell, _)| {
            let middle = Vector::<D>::from_fn(|k, _| {
                if k < spread.len() {
                    (cell[k] as f64 + 0.5) * width
                } else {
                    0.0
                }
            });
            (0.2 * reach..=0.8 * reach).contains(&middle.norm())
        })
        .map(|(_, t)| t)
        .collect();
    if fitted.len() < 3 {
        return None;
    }
    let m = fitted.len() as f64;
    let (sr, sz) = fitted.iter().fold((0.0, 0.0), |(a, b), &(r, z)| (a + r, b + z));
    let (rm, zm) = (sr / m, sz / m);
    let (srr, srz) = fitted.iter().fold((0.0, 0.0), |(a, b), &(r, z)| {
        (a + (r - rm).powi(2), b + (r - rm) * (z - zm))
    });
    Some((-srz / srr).atan().to_degrees())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Balls of radius 0.5 filling a cone of slope 25° (3D) and a ridge of 30° in a slot four
    /// wide, in columns on a unit grid: the angle within 0.3°, whatever the direction of gravity;
    /// a lopsided ridge of 30° and 20° reads their mean within 0.5°.
    #[test]
    fn the_slopes_of_a_cone_and_a_ridge_in_a_slot() {
        let cone = |x: f64, y: f64| 10.0 - (x * x + y * y).sqrt() * 25f64.to_radians().tan();
        let ridge = |x: f64, _y: f64| 10.0 - x.abs() * 30f64.to_radians().tan();
        // Lopsided: 30° on one side, 20° on the other; folded into one distance, the 20° side's
        // tops stood above the other's everywhere and the heap read 20°.
        let lopsided = |x: f64, _y: f64| 10.0 - x.abs() * if x < 0.0 { 30f64 } else { 20f64 }.to_radians().tan();
        for (surface, across, expected, tolerance) in [
            (&cone as &dyn Fn(f64, f64) -> f64, 24.0, 25.0, 0.3),
            (&ridge, 2.0, 30.0, 0.3),
            (&lopsided, 2.0, 25.0, 0.5),
        ] {
            let mut centres = Vec::new();
            for i in -24..=24 {
                for j in -24..=24 {
                    let (x, y) = (i as f64, j as f64);
                    if y.abs() > across {
                        continue;
                    }
                    // A column of balls 1 apart, the last touching the surface from below.
                    let mut z = surface(x, y) - 0.5;
                    while z >= 0.5 {
                        centres.push(Point::<3>::new(x + 0.1 * (z * 7.0).sin(), y, z));
                        z -= 1.0;
                    }
                }
            }
            let radii = vec![0.5; centres.len()];
            let angle = repose_angle(&centres, &radii, &Vector::<3>::new(0.0, 0.0, -9.81)).unwrap();
            println!("{expected}°: {angle:.2}° from {} balls", centres.len());
            assert!((angle - expected).abs() < tolerance, "{angle} against {expected}");
            // Gravity along x: the same heap turned.
            let turned: Vec<Point<3>> = centres.iter().map(|p| Point::<3>::new(-p.z, p.y, p.x)).collect();
            let again = repose_angle(&turned, &radii, &Vector::<3>::new(9.81, 0.0, 0.0)).unwrap();
            assert!((again - angle).abs() < 1e-9);
        }
        assert!(repose_angle(
            &[Point::<3>::zeros(); 10],
            &[0.5; 10],
            &Vector::<3>::new(0.0, 0.0, -1.0)
        )
        .is_none());
    }
}
