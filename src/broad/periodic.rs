//! The pairs of a periodic domain: any broad-phase method run on the spheres and their images
//! across the periodic faces.
//!
//! With periodic directions ([`Periodicity`]) two spheres touch when the nearest image of one comes
//! within `r_i + r_j + margin` of the other. [`PeriodicPairs`] adds to the spheres (their centres
//! wrapped into the cell) the images whose shifted centre lies within `r + r_max + margin` of the
//! cell ([`Periodicity::images`]), runs its method on the lot and maps each pair back to the two
//! spheres and the shift that takes `j` to its image next to `i`. A pair is found once from each
//! side (`i` with `j`'s image and `j` with `i`'s): the pairs are sorted and the repeats dropped.
//!
//! The images are at most `3^D` per sphere near a corner, few in a cell much larger than the
//! spheres: the cost is the method's on `N (1 + O(surface share))` spheres. A pair meets through
//! one image only when every period is at least `2 (2 r_max + margin)`; a shorter period is
//! refused ([`BroadError::Period`]), and for a single sphere one shorter than `2 r + margin`,
//! where it would meet its own image.

use super::{validate, BoundingSphere, BroadError, BroadPhase};
use crate::math::{Periodicity, Vector};

/// A broad phase over periodic directions: pairs `(i, j, s)` with `i < j` and `s` the shift of
/// `j`'s image that comes within reach of `i`.
pub struct PeriodicPairs<const D: usize> {
    method: Box<dyn BroadPhase<D>>,
    period: Periodicity<D>,
    /// The spheres and their images.
    all: Vec<BoundingSphere<D>>,
    /// For each of `all`, the sphere it is an image of, the shift from its centre as given and
    /// whether it is an image (not the sphere itself wrapped into the cell).
    origin: Vec<(u32, Vector<D>, bool)>,
    found: Vec<(u32, u32)>,
}

impl<const D: usize> PeriodicPairs<D> {
    /// `method` run over the images of `period`'s directions (with none, `method` alone).
    pub fn new(method: Box<dyn BroadPhase<D>>, period: Periodicity<D>) -> Self {
        PeriodicPairs {
            method,
            period,
            all: Vec::new(),
            origin: Vec::new(),
            found: Vec::new(),
        }
    }

    /// The method's name.
    pub fn name(&self) -> &'static str {
        self.method.name()
    }

    /// Sets the periodic directions.
    pub fn set_period(&mut self, period: Periodicity<D>) {
        self.period = period;
    }

    /// The periodic directions.
    pub fn period(&self) -> &Periodicity<D> {
        &self.period
    }

    /// Replaces `out` by every pair `(i, j, s)`, `i < j`, with
    /// `|c_i − (c_j + s)| ≤ r_i + r_j + margin` for the nearest image `c_j + s` of `c_j`
    /// (`s = 0` without periodic directions), sorted by `(i, j)`. The centres may lie outside
    /// the cell: `s` is the shift from `c_j` as given.
    pub fn pairs(
        &mut self,
        spheres: &[BoundingSphere<D>],
        margin: f64,
        out: &mut Vec<(u32, u32, Vector<D>)>,
    ) -> Result<(), BroadError> {
        out.clear();
        if spheres.is_empty() || (spheres.len() < 2 && !self.period.any()) {
            return Ok(());
        }
        if !self.period.any() {
            self.method.update(spheres, margin)?;
            self.method.pairs(&mut self.found);
            out.extend(self.found.iter().map(|&(i, j)| (i, j, Vector::<D>::zeros())));
            out.sort_unstable_by_key(|&(i, j, _)| (i, j));
            return Ok(());
        }
        validate(spheres, margin).or_else(|e| match e {
            // One sphere may still meet its neighbours' images: only its own, which the
            // period's bound rules out.
            BroadError::TooFew(1) => Ok(()),
            e => Err(e),
        })?;
        let largest = spheres.iter().map(|s| s.radius).fold(0.0, f64::max);
        let reach = 2.0 * largest + margin;
        // One sphere must only stay clear of its own images.
        let least = if spheres.len() == 1 { reach } else { 2.0 * reach };
        for a in 0..D {
            if let Some((_, length)) = self.period.axis(a) {
                if length < least {
                    return Err(BroadError::Period { axis: a, length, reach });
                }
            }
        }
        self.all.clear();
        self.origin.clear();
        for (k, s) in spheres.iter().enumerate() {
            let wrapped = self.period.wrap(&s.centre);
            let into = wrapped - s.centre;
            self.period.images(&wrapped, s.radius + largest + margin, |shift| {
                self.all.push(BoundingSphere {
                    centre: wrapped + shift,
                    radius: s.radius,
                });
                self.origin
                    .push((k as u32, into + shift, shift != Vector::<D>::zeros()));
            });
        }
        if self.all.len() < 2 {
            return Ok(());
        }
        self.method.update(&self.all, margin)?;
        self.method.pairs(&mut self.found);
        for &(a, b) in &self.found {
            let ((i, si, image_i), (j, sj, image_j)) = (self.origin[a as usize], self.origin[b as usize]);
            // Two images see each other as their originals do (or through another image).
            if i == j || (image_i && image_j) {
                continue;
            }
            let shift = sj - si;
            out.push(if i < j { (i, j, shift) } else { (j, i, -shift) });
        }
        out.sort_unstable_by_key(|&(i, j, _)| (i, j));
        out.dedup_by_key(|&mut (i, j, _)| (i, j));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad::sets::{method, uniform};
    use crate::math::Point;

    /// Every pair by brute force over the nearest images.
    fn nearest_image_pairs<const D: usize>(
        spheres: &[BoundingSphere<D>],
        period: &Periodicity<D>,
        margin: f64,
    ) -> Vec<(u32, u32, Vector<D>)> {
        let mut out = Vec::new();
        for i in 0..spheres.len() {
            for j in i + 1..spheres.len() {
                let d = spheres[j].centre - spheres[i].centre;
                let e = period.nearest(&d);
                if e.norm() <= spheres[i].radius + spheres[j].radius + margin {
                    out.push((i as u32, j as u32, e - d));
                }
            }
        }
        out
    }

    fn check<const D: usize>(fraction: f64) {
        let mut spheres = uniform::<D>(600, 2.0, fraction, 7);
        // The cube the set fills, periodic along every axis but the last.
        let side = spheres
            .iter()
            .flat_map(|s| s.centre.iter().copied())
            .fold(0.0, f64::max);
        let mut period = Periodicity::<D>::none();
        for a in 0..D - 1 {
            period = period.with_axis(a, 0.0, side);
        }
        // Every third centre a period away from the cell: the shifts are from the centres as given.
        for s in spheres.iter_mut().step_by(3) {
            s.centre[0] += side;
        }
        let margin = 0.3;
        let expected = nearest_image_pairs(&spheres, &period, margin);
        let across = expected.iter().filter(|p| p.2 != Vector::<D>::zeros()).count();
        assert!(across > 10, "{across} pairs across the faces");
        for name in ["brute", "linked-cell", "sweep", "hgrid"] {
            let mut pairs = PeriodicPairs::new(method::<D>(name).unwrap(), period);
            let mut out = Vec::new();
            pairs.pairs(&spheres, margin, &mut out).unwrap();
            assert_eq!(out.len(), expected.len(), "{name}");
            for (a, b) in out.iter().zip(&expected) {
                assert_eq!((a.0, a.1), (b.0, b.1), "{name}");
                assert!((a.2 - b.2).norm() < 1e-9 * side, "{name}: {a:?} against {b:?}");
            }
        }
    }

    #[test]
    fn pairs_across_the_faces_are_the_nearest_images_pairs_2d() {
        check::<2>(0.3);
    }

    #[test]
    fn pairs_across_the_faces_are_the_nearest_images_pairs_3d() {
        check::<3>(0.2);
    }

    #[test]
    fn a_period_shorter_than_two_reaches_is_refused_and_one_sphere_meets_no_one() {
        let period = Periodicity::<2>::none().with_axis(0, 0.0, 4.0);
        let spheres = [
            BoundingSphere {
                centre: Point::<2>::new(0.5, 0.0),
                radius: 1.0,
            },
            BoundingSphere {
                centre: Point::<2>::new(3.5, 0.0),
                radius: 0.5,
            },
        ];
        let mut pairs = PeriodicPairs::new(method::<2>("brute").unwrap(), period);
        let mut out = Vec::new();
        let err = pairs.pairs(&spheres, 0.1, &mut out).unwrap_err();
        assert_eq!(
            err,
            BroadError::Period {
                axis: 0,
                length: 4.0,
                reach: 2.1
            }
        );
        pairs.pairs(&spheres[1..], 0.1, &mut out).unwrap();
        assert!(out.is_empty());
        // One sphere alone only clears its own images: 2.1 ≤ 4, but not 2.2 > 2.
        pairs.pairs(&spheres[..1], 0.1, &mut out).unwrap();
        let mut short = PeriodicPairs::new(
            method::<2>("brute").unwrap(),
            Periodicity::<2>::none().with_axis(0, 0.0, 2.0),
        );
        assert!(short.pairs(&spheres[..1], 0.2, &mut out).is_err());
        // Long enough: the two meet across x = 0 (centres 1.2 apart, within 1.5 + 0.1).
        let period = Periodicity::<2>::none().with_axis(0, 0.0, 4.2);
        let mut pairs = PeriodicPairs::new(method::<2>("brute").unwrap(), period);
        pairs.pairs(&spheres, 0.1, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].0, out[0].1), (0, 1));
        assert!((out[0].2 - Vector::<2>::new(-4.2, 0.0)).norm() < 1e-15);
    }
}
