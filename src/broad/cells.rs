//! Spheres binned into the cells of a grid: cell coordinates, injective keys, the spheres sorted by
//! cell (a counting sort for dense grids, a sort for hashed ones) and the half-shell of neighbours.

use super::Sphere;
use crate::math::Point;
use rayon::prelude::*;

/// The cells of a grid of spacing `size` anchored at `lo`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Grid<const D: usize> {
    pub lo: Point<D>,
    pub size: f64,
    /// Cells per axis (so that every centre falls in `0..dims[a]`).
    pub dims: [u64; D],
}

impl<const D: usize> Grid<D> {
    /// A grid of cells at least `size` wide covering the centres, with at most `max_cells` cells
    /// (larger cells if needed: any cell at least `size` wide keeps every method correct) and cell
    /// coordinates that fit the keys (below 2^21 per axis in 3D, 2^31 in 2D).
    pub fn covering(spheres: &[Sphere<D>], size: f64, max_cells: f64) -> Self {
        let (lo, hi) = spheres
            .par_chunks(4096)
            .map(|chunk| {
                chunk.iter().fold(
                    (Point::<D>::repeat(f64::INFINITY), Point::<D>::repeat(f64::NEG_INFINITY)),
                    |(lo, hi), s| (lo.inf(&s.centre), hi.sup(&s.centre)),
                )
            })
            .reduce(
                || (Point::<D>::repeat(f64::INFINITY), Point::<D>::repeat(f64::NEG_INFINITY)),
                |(a, b), (c, d)| (a.inf(&c), b.sup(&d)),
            );
        let extent = hi - lo;
        let max_axis = ((1u64 << (64 / D as u32 - 1)) - 2) as f64;
        let mut size = size.max(extent.max() / max_axis).max(f64::MIN_POSITIVE);
        loop {
            let cells: f64 = (0..D).map(|a| (extent[a] / size).floor() + 1.0).product();
            if cells <= max_cells {
                break;
            }
            size *= (cells / max_cells).powf(1.0 / D as f64).max(1.01);
        }
        let dims = std::array::from_fn(|a| (extent[a] / size).floor() as u64 + 1);
        Grid { lo, size, dims }
    }

    /// The cell of `x` (clamped into the grid).
    #[inline]
    pub fn cell(&self, x: &Point<D>) -> [u64; D] {
        std::array::from_fn(|a| (((x[a] - self.lo[a]) / self.size).max(0.0) as u64).min(self.dims[a] - 1))
    }

    /// The dense index of a cell (x fastest).
    #[inline]
    pub fn index(&self, c: &[u64; D]) -> u64 {
        let mut i = 0;
        for a in (0..D).rev() {
            i = i * self.dims[a] + c[a];
        }
        i
    }

    /// Number of cells.
    pub fn len(&self) -> u64 {
        self.dims.iter().product()
    }
}

/// The offsets of the half shell: the neighbour cells `o ≠ 0` in `{−1, 0, 1}^D` whose last
/// non-zero coordinate is positive (4 in 2D, 13 in 3D), so that each pair of neighbouring cells is
/// visited once.
pub(super) fn half_shell<const D: usize>() -> Vec<[i64; D]> {
    let mut out = Vec::new();
    for code in 0..3usize.pow(D as u32) {
        let mut o = [0i64; D];
        let mut c = code;
        for v in o.iter_mut() {
            *v = (c % 3) as i64 - 1;
            c /= 3;
        }
        if o.iter().rev().find(|&&v| v != 0).is_some_and(|&v| v > 0) {
            out.push(o);
        }
    }
    out
}

/// Spheres binned into a dense grid: counting sort by cell, the spheres copied in cell order (so
/// that the pair tests stream through memory), their original indices, and the half-shell scan.
#[derive(Debug)]
pub(super) struct CellList<const D: usize> {
    pub grid: Grid<D>,
    /// `start[c]..start[c + 1]` are the positions of cell `c`'s spheres in `sorted`.
    pub start: Vec<u32>,
    pub sorted: Vec<Sphere<D>>,
    pub index: Vec<u32>,
}

impl<const D: usize> CellList<D> {
    /// Bins `members` (indices into `spheres`; all of them if `None`) into cells at least `size`
    /// wide, with at most about two cells per sphere (wider cells where the spheres are sparse: any
    /// width of at least `size` keeps the scan complete).
    pub fn build(spheres: &[Sphere<D>], members: Option<&[u32]>, size: f64) -> Self {
        let copy;
        let subset: &[Sphere<D>] = match members {
            Some(m) => {
                copy = m.par_iter().map(|&i| spheres[i as usize]).collect::<Vec<_>>();
                &copy
            }
            None => spheres,
        };
        let grid = Grid::covering(subset, size, 2.0 * subset.len() as f64 + 64.0);
        let n_cells = grid.len() as usize;
        let cell_of: Vec<u32> = subset
            .par_iter()
            .map(|s| grid.index(&grid.cell(&s.centre)) as u32)
            .collect();
        let mut start = vec![0u32; n_cells + 1];
        for &c in &cell_of {
            start[c as usize + 1] += 1;
        }
        for c in 0..n_cells {
            start[c + 1] += start[c];
        }
        let mut fill = start.clone();
        let mut order = vec![0u32; subset.len()];
        for (i, &c) in cell_of.iter().enumerate() {
            order[fill[c as usize] as usize] = i as u32;
            fill[c as usize] += 1;
        }
        CellList {
            grid,
            start,
            sorted: order.par_iter().map(|&i| subset[i as usize]).collect(),
            index: match members {
                Some(m) => order.par_iter().map(|&i| m[i as usize]).collect(),
                None => order,
            },
        }
    }

    /// Positions in `sorted` of the spheres of cell `c`.
    #[inline]
    pub fn cell(&self, c: usize) -> std::ops::Range<usize> {
        self.start[c] as usize..self.start[c + 1] as usize
    }

    /// The cell coordinates of dense index `c`.
    #[inline]
    pub fn coords(&self, c: usize) -> [u64; D] {
        let mut coords = [0u64; D];
        let mut rest = c as u64;
        for (a, v) in coords.iter_mut().enumerate() {
            *v = rest % self.grid.dims[a];
            rest /= self.grid.dims[a];
        }
        coords
    }

    /// The pairs within the cells `cells` and between each of them and its half shell.
    ///
    /// Cells are numbered x fastest, so the half shell is a few runs of consecutive cells: `x + 1`
    /// in the cell's own row, and `x − 1 … x + 1` in each row above it (the rows whose last
    /// non-zero offset is positive); the spheres of a run are consecutive in `sorted`, so each run
    /// costs two lookups of `start` however many cells it spans.
    pub fn pairs_within(
        &self,
        cells: std::ops::Range<usize>,
        shell: &[[i64; D]],
        margin: f64,
        local: &mut Vec<(u32, u32)>,
    ) {
        let (sorted, index, grid) = (&self.sorted, &self.index, &self.grid);
        // The runs: (offset of the row in the other axes, smallest and largest x offset).
        let mut runs: Vec<([i64; D], i64, i64)> = Vec::new();
        for o in shell {
            let mut row = *o;
            row[0] = 0;
            match runs.iter_mut().find(|r| r.0 == row) {
                Some(r) => {
                    r.1 = r.1.min(o[0]);
                    r.2 = r.2.max(o[0]);
                }
                None => runs.push((row, o[0], o[0])),
            }
        }
        let dims0 = grid.dims[0] as i64;
        for c in cells {
            let here = self.cell(c);
            if here.is_empty() {
                continue;
            }
            let mut emit = |i: usize, j: usize| {
                if super::touching(&sorted[i], &sorted[j], margin) {
                    let (p, q) = (index[i], index[j]);
                    local.push((p.min(q), p.max(q)));
                }
            };
            for i in here.clone() {
                for j in i + 1..here.end {
                    emit(i, j);
                }
            }
            let coords = self.coords(c);
            for (row, dx_min, dx_max) in &runs {
                let inside = (1..D).all(|a| {
                    let v = coords[a] as i64 + row[a];
                    v >= 0 && (v as u64) < grid.dims[a]
                });
                let x0 = (coords[0] as i64 + dx_min).max(0);
                let x1 = (coords[0] as i64 + dx_max).min(dims0 - 1);
                if !inside || x0 > x1 {
                    continue;
                }
                let mut first = [0u64; D];
                for a in 1..D {
                    first[a] = (coords[a] as i64 + row[a]) as u64;
                }
                first[0] = x0 as u64;
                let n0 = grid.index(&first) as usize;
                let n1 = n0 + (x1 - x0) as usize;
                let there = self.start[n0] as usize..self.start[n1 + 1] as usize;
                for i in here.clone() {
                    for j in there.clone() {
                        emit(i, j);
                    }
                }
            }
        }
    }
}
