//! Periodic directions of a box: the domain repeats along some coordinate axes with a period
//! `L_a`, so that a point `x` and `x + k L_a e_a` are the same point for every integer `k`.
//!
//! A point is kept in the box's fundamental cell `[lo_a, lo_a + L_a)` by [`Periodicity::wrap`]
//! (`x_a − L_a ⌊(x_a − lo_a)/L_a⌋`); the displacement between two points is taken to the nearest
//! image by [`Periodicity::nearest`] (`d_a − L_a round(d_a/L_a)`); and what lies within a reach of
//! a point across a periodic face is found among the shifts of [`Periodicity::images`], the
//! `0, ±L_a` combinations whose shifted point comes within the reach of the cell (at most `3^D`,
//! one without a periodic direction). Each is `O(D)` (`O(3^D)` for the images) and allocates
//! nothing.

use super::{Point, Vector};

/// The periodic axes of a box: for each axis its lower bound and period, or none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Periodicity<const D: usize> {
    axes: [Option<(f64, f64)>; D],
}

impl<const D: usize> Default for Periodicity<D> {
    fn default() -> Self {
        Self::none()
    }
}

impl<const D: usize> Periodicity<D> {
    /// No periodic direction: every method is the identity (no images but the point itself).
    pub fn none() -> Self {
        Periodicity { axes: [None; D] }
    }

    /// Periodic along `axis` from `lo` with the period `length > 0` (added to what `self` has).
    pub fn with_axis(mut self, axis: usize, lo: f64, length: f64) -> Self {
        self.axes[axis] = Some((lo, length));
        self
    }

    /// Whether any axis is periodic.
    pub fn any(&self) -> bool {
        self.axes.iter().any(Option::is_some)
    }

    /// The lower bound and period of `axis`, if it is periodic.
    pub fn axis(&self, axis: usize) -> Option<(f64, f64)> {
        self.axes[axis]
    }

    /// `x` taken into the fundamental cell along the periodic axes.
    pub fn wrap(&self, x: &Point<D>) -> Point<D> {
        let mut y = *x;
        for (a, axis) in self.axes.iter().enumerate() {
            if let Some((lo, l)) = axis {
                y[a] -= l * ((y[a] - lo) / l).floor();
                // Round-off can leave `lo + L` itself: that is `lo`.
                if y[a] >= lo + l {
                    y[a] = *lo;
                }
            }
        }
        y
    }

    /// The displacement `d` taken to its nearest image (each periodic component within half a
    /// period).
    pub fn nearest(&self, d: &Vector<D>) -> Vector<D> {
        let mut e = *d;
        for (a, axis) in self.axes.iter().enumerate() {
            if let Some((_, l)) = axis {
                e[a] -= l * (e[a] / l).round();
            }
        }
        e
    }

    /// Calls `f` with every shift `s` (zero first) for which the ball of radius `reach` about
    /// `x + s` meets the fundamental cell's slab along every periodic axis: the images of a
    /// point in the cell that something within `reach` of the cell may see. `x` is taken as it
    /// is (wrap it first).
    pub fn images(&self, x: &Point<D>, reach: f64, mut f: impl FnMut(Vector<D>)) {
        // Per axis, the shifts that apply: 0 and, near a face, ±L.
        let mut options = [[0.0f64; 3]; D];
        let mut counts = [1usize; D];
        for (a, axis) in self.axes.iter().enumerate() {
            if let Some((lo, l)) = axis {
                let (below, above) = (x[a] - lo, lo + l - x[a]);
                if above <= reach {
                    options[a][counts[a]] = -l;
                    counts[a] += 1;
                }
                if below <= reach {
                    options[a][counts[a]] = *l;
                    counts[a] += 1;
                }
            }
        }
        let total: usize = counts.iter().product();
        for k in 0..total {
            let mut s = Vector::<D>::zeros();
            let mut rest = k;
            for a in 0..D {
                s[a] = options[a][rest % counts[a]];
                rest /= counts[a];
            }
            f(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Vector2, Vector3};

    #[test]
    fn a_point_wraps_into_the_cell_and_a_displacement_to_its_nearest_image() {
        let p = Periodicity::<2>::none().with_axis(0, -1.0, 2.0);
        let w = p.wrap(&Vector2::new(1.25, 7.0));
        assert!((w - Vector2::new(-0.75, 7.0)).norm() < 1e-15);
        assert_eq!(p.wrap(&Vector2::new(-5.0, 0.0)), Vector2::new(-1.0, 0.0));
        assert!((p.wrap(&Vector2::new(-3.5, 0.0)).x - 0.5).abs() < 1e-15);
        let d = p.nearest(&Vector2::new(1.5, 3.0));
        assert!((d - Vector2::new(-0.5, 3.0)).norm() < 1e-15);
        assert_eq!(
            Periodicity::<2>::none().wrap(&Vector2::new(9.0, -9.0)),
            Vector2::new(9.0, -9.0)
        );
        assert!(p.any() && !Periodicity::<3>::none().any());
    }

    #[test]
    fn images_are_the_shifts_whose_points_come_within_reach_of_the_cell() {
        let p = Periodicity::<3>::none().with_axis(0, 0.0, 1.0).with_axis(1, 0.0, 2.0);
        let mut seen = Vec::new();
        // Near x = 1 and y = 0: shifts −1 in x, +2 in y and both, besides zero.
        p.images(&Vector3::new(0.95, 0.05, 0.5), 0.1, |s| seen.push(s));
        assert_eq!(seen[0], Vector3::zeros());
        assert_eq!(seen.len(), 4);
        for s in [
            Vector3::new(-1.0, 0.0, 0.0),
            Vector3::new(0.0, 2.0, 0.0),
            Vector3::new(-1.0, 2.0, 0.0),
        ] {
            assert!(seen.contains(&s), "{s:?} in {seen:?}");
        }
        let mut middle = 0;
        p.images(&Vector3::new(0.5, 1.0, 9.0), 0.1, |_| middle += 1);
        assert_eq!(middle, 1);
        // A reach longer than the period: both shifts of the axis.
        let mut wide = Vec::new();
        p.images(&Vector3::new(0.5, 1.0, 0.0), 0.6, |s| wide.push(s.x));
        assert_eq!(wide, [0.0, -1.0, 1.0]);
    }
}
