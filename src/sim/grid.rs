//! A uniform grid over a fixed set of points (the fluid mesh's cell centroids and velocity dofs),
//! built once by a counting sort, answering "which points lie within `r` of `c`" without
//! allocating: the cells overlapping the query's bounding box are scanned and each point tested.

use crate::math::Point;

/// Points binned into cubic cells of side `size` (compressed row storage of the bins).
#[derive(Debug, Clone)]
pub struct PointGrid<const D: usize> {
    lo: Point<D>,
    size: f64,
    dims: [usize; D],
    /// `start[b]..start[b + 1]` indexes `items` and `sorted` for bin `b`.
    start: Vec<u32>,
    items: Vec<u32>,
    sorted: Vec<Point<D>>,
}

impl<const D: usize> PointGrid<D> {
    /// Bins `points` into cells of side `size` (positive), at most about `4 n` bins (the side grows
    /// if the points' box would need more).
    pub fn new(points: &[Point<D>], size: f64) -> Self {
        let mut lo = Point::<D>::repeat(f64::INFINITY);
        let mut hi = Point::<D>::repeat(f64::NEG_INFINITY);
        for p in points {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
        if points.is_empty() {
            lo = Point::<D>::zeros();
            hi = lo;
        }
        // A side far below the box's (no bodies yet: any size) would overflow the counts.
        let extent = (hi - lo).max();
        let mut size = size.max(extent * 1e-6).max(f64::MIN_POSITIVE);
        let count =
            |size: f64| -> [usize; D] { std::array::from_fn(|a| ((hi[a] - lo[a]) / size).floor() as usize + 1) };
        while count(size).iter().product::<usize>() > 4 * points.len().max(1) {
            size *= 1.5;
        }
        let dims = count(size);
        let bins = dims.iter().product::<usize>();
        let mut grid = PointGrid {
            lo,
            size,
            dims,
            start: vec![0; bins + 1],
            items: vec![0; points.len()],
            sorted: vec![Point::<D>::zeros(); points.len()],
        };
        let bin: Vec<usize> = points.iter().map(|p| grid.bin(&grid.cell_of(p))).collect();
        for &b in &bin {
            grid.start[b + 1] += 1;
        }
        for b in 0..bins {
            grid.start[b + 1] += grid.start[b];
        }
        let mut next = grid.start.clone();
        for (k, &b) in bin.iter().enumerate() {
            let slot = next[b] as usize;
            grid.items[slot] = k as u32;
            grid.sorted[slot] = points[k];
            next[b] += 1;
        }
        grid
    }

    fn cell_of(&self, p: &Point<D>) -> [usize; D] {
        std::array::from_fn(|a| (((p[a] - self.lo[a]) / self.size).floor().max(0.0) as usize).min(self.dims[a] - 1))
    }

    fn bin(&self, c: &[usize; D]) -> usize {
        (0..D).rev().fold(0, |acc, a| acc * self.dims[a] + c[a])
    }

    /// Calls `f(k)` for every point `k` with `|p_k − centre| ≤ radius`.
    pub fn for_each_within(&self, centre: &Point<D>, radius: f64, mut f: impl FnMut(u32)) {
        let a = self.cell_of(&(centre - Point::<D>::repeat(radius)));
        let b = self.cell_of(&(centre + Point::<D>::repeat(radius)));
        let r2 = radius * radius;
        let mut c = a;
        loop {
            let bin = self.bin(&c);
            for slot in self.start[bin] as usize..self.start[bin + 1] as usize {
                if (self.sorted[slot] - centre).norm_squared() <= r2 {
                    f(self.items[slot]);
                }
            }
            let mut axis = 0;
            loop {
                if axis == D {
                    return;
                }
                if c[axis] < b[axis] {
                    c[axis] += 1;
                    break;
                }
                c[axis] = a[axis];
                axis += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every query returns exactly the points a brute-force scan finds.
    #[test]
    fn matches_brute_force() {
        let mut seed = 7u64;
        let mut rand = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let points: Vec<Point<3>> = (0..2000)
            .map(|_| Point::<3>::new(rand() * 4.0, rand(), rand() * 2.0))
            .collect();
        let grid = PointGrid::new(&points, 0.13);
        for q in 0..50 {
            let centre = Point::<3>::new(rand() * 5.0 - 0.5, rand() * 1.5 - 0.25, rand() * 2.0);
            let radius = 0.02 * q as f64;
            let mut found = Vec::new();
            grid.for_each_within(&centre, radius, |k| found.push(k));
            found.sort_unstable();
            let expected: Vec<u32> = (0..points.len() as u32)
                .filter(|&k| (points[k as usize] - centre).norm() <= radius)
                .collect();
            assert_eq!(found, expected, "query {q}");
        }
    }
}
