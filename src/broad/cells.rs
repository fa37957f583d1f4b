//! Spheres binned into the cells of a dense grid: cell coordinates and indices, the spheres sorted by
//! cell (a parallel two-pass counting sort) and the half-shell scan of neighbouring cells.

use super::BoundingSphere;
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
    pub fn covering(spheres: &[BoundingSphere<D>], size: f64, max_cells: f64) -> Self {
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

/// Spheres binned into a dense grid: sorted by cell, copied in cell order (so that the pair tests
/// stream through memory), with their original indices, and the half-shell scan.
#[derive(Debug)]
pub(super) struct CellList<const D: usize> {
    pub grid: Grid<D>,
    /// `start[c]..start[c + 1]` are the positions of cell `c`'s spheres in `sorted`.
    pub start: Vec<u32>,
    pub sorted: Vec<BoundingSphere<D>>,
    pub index: Vec<u32>,
    /// The sort's keys `(cell << 32) | sphere` in input order and scattered into buckets (kept
    /// between rebuilds, like the fields above, so that a step allocates no per-sphere or per-cell
    /// array again; only the small per-chunk and per-bucket counts).
    keys: Vec<u64>,
    buckets: Vec<u64>,
}

/// At most this many buckets in the first pass of [`CellList::rebuild`].
const BUCKETS: usize = 1 << 10;
/// About this many spheres per bucket (fewer, larger buckets for small sets: less overhead).
const BUCKET: usize = 1 << 10;
/// Spheres per chunk in the first pass of [`CellList::rebuild`] (fixed, so that the order does not
/// depend on the thread count).
const SORT_CHUNK: usize = 1 << 16;

impl<const D: usize> CellList<D> {
    /// An empty list, to [`rebuild`](CellList::rebuild).
    pub fn new() -> Self {
        CellList {
            grid: Grid {
                lo: Point::<D>::zeros(),
                size: 1.0,
                dims: [1; D],
            },
            start: Vec::new(),
            sorted: Vec::new(),
            index: Vec::new(),
            keys: Vec::new(),
            buckets: Vec::new(),
        }
    }

    /// Bins `members` (indices into `spheres`; all of them if `None`) into cells at least `size`
    /// wide, with at most about two cells per sphere (wider cells where the spheres are sparse: any
    /// width of at least `size` keeps the scan complete), in this list's buffers (no per-sphere or
    /// per-cell allocation once they are large enough).
    ///
    /// A stable parallel counting sort by cell in two passes, so that every pass stays in cache
    /// and runs on all threads: the spheres are first scattered into buckets of `2^shift`
    /// consecutive cells (at most [`BUCKETS`]; each fixed chunk of spheres counts and writes its
    /// own share of every bucket), then each bucket is counting-sorted by cell on its own. The
    /// order within a cell is the input order whatever the thread count.
    pub fn rebuild(&mut self, spheres: &[BoundingSphere<D>], members: Option<&[u32]>, size: f64) {
        let copy;
        let subset: &[BoundingSphere<D>] = match members {
            Some(m) => {
                copy = m.par_iter().map(|&i| spheres[i as usize]).collect::<Vec<_>>();
                &copy
            }
            None => spheres,
        };
        let n = subset.len();
        let grid = Grid::covering(subset, size, 2.0 * n as f64 + 64.0);
        let n_cells = grid.len() as usize;
        // About `BUCKET` spheres per bucket, at most `BUCKETS` buckets.
        let buckets_log2 = (n / BUCKET).clamp(1, BUCKETS).ilog2();
        let shift = (usize::BITS - n_cells.leading_zeros()).saturating_sub(buckets_log2);
        let n_buckets = ((n_cells - 1) >> shift) + 1;
        // Pass 1: the (cell, sphere) keys, counted per chunk and bucket, scattered into buckets.
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        keys.par_extend(subset.par_iter().enumerate().map(|(i, s)| {
            let c = grid.index(&grid.cell(&s.centre));
            (c << 32) | i as u64
        }));
        let counts: Vec<Vec<u32>> = keys
            .par_chunks(SORT_CHUNK)
            .map(|chunk| {
                let mut count = vec![0u32; n_buckets];
                for &k in chunk {
                    count[(k >> 32) as usize >> shift] += 1;
                }
                count
            })
            .collect();
        let mut bucket_start = vec![0usize; n_buckets + 1];
        for b in 0..n_buckets {
            bucket_start[b + 1] = bucket_start[b] + counts.iter().map(|c| c[b] as usize).sum::<usize>();
        }
        let mut buckets = std::mem::take(&mut self.buckets);
        buckets.resize(n, 0);
        {
            // Every chunk's share of every bucket: bucket-major, chunk-minor, so the scatter is stable.
            let mut shares: Vec<Vec<&mut [u64]>> = (0..counts.len()).map(|_| Vec::with_capacity(n_buckets)).collect();
            let mut rest: &mut [u64] = &mut buckets;
            for b in 0..n_buckets {
                for (k, count) in counts.iter().enumerate() {
                    let (share, tail) = rest.split_at_mut(count[b] as usize);
                    shares[k].push(share);
                    rest = tail;
                }
            }
            keys.par_chunks(SORT_CHUNK).zip(shares).for_each(|(chunk, mut share)| {
                let mut fill = vec![0usize; n_buckets];
                for &k in chunk {
                    let b = (k >> 32) as usize >> shift;
                    share[b][fill[b]] = k;
                    fill[b] += 1;
                }
            });
        }
        // Pass 2: each bucket counting-sorted by cell, writing its cells' `start` and its spheres.
        // Every entry is overwritten below: resizing only (no clearing pass over memory).
        self.start.resize(n_cells + 1, 0);
        self.sorted.resize(
            n,
            BoundingSphere {
                centre: Point::<D>::zeros(),
                radius: 0.0,
            },
        );
        self.index.resize(n, 0);
        let mut parts = Vec::with_capacity(n_buckets);
        let (mut sorted, mut index): (&mut [BoundingSphere<D>], &mut [u32]) = (&mut self.sorted, &mut self.index);
        for b in 0..n_buckets {
            let len = bucket_start[b + 1] - bucket_start[b];
            let (s, s_rest) = sorted.split_at_mut(len);
            let (i, i_rest) = index.split_at_mut(len);
            parts.push((b, s, i));
            (sorted, index) = (s_rest, i_rest);
        }
        self.start[..n_cells]
            .par_chunks_mut(1 << shift)
            .zip(parts)
            .for_each(|(start, (b, sorted, index))| {
                let (first, keys) = (b << shift, &buckets[bucket_start[b]..bucket_start[b + 1]]);
                start.fill(0);
                for &k in keys {
                    start[(k >> 32) as usize - first] += 1;
                }
                let mut at = 0;
                for s in start.iter_mut() {
                    (*s, at) = (at, at + *s);
                }
                for &k in keys {
                    let (c, i) = ((k >> 32) as usize - first, k as u32 as usize);
                    let pos = start[c] as usize;
                    start[c] += 1;
                    sorted[pos] = subset[i];
                    index[pos] = members.map_or(i as u32, |m| m[i]);
                }
                // `start[c]` is now the end of cell `c`: shift to starts, offset to global positions.
                start.copy_within(..start.len() - 1, 1);
                start[0] = 0;
                for s in start.iter_mut() {
                    *s += bucket_start[b] as u32;
                }
            });
        self.start[n_cells] = n as u32;
        self.grid = grid;
        self.keys = keys;
        self.buckets = buckets;
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
        // Each run as (its row's offset in dense indices, its row's offsets, smallest and largest x offset).
        let mut stride = [1i64; D];
        for a in 1..D {
            stride[a] = stride[a - 1] * grid.dims[a - 1] as i64;
        }
        let runs: Vec<(i64, [i64; D], i64, i64)> = runs
            .into_iter()
            .map(|(row, x0, x1)| ((1..D).map(|a| row[a] * stride[a]).sum(), row, x0, x1))
            .collect();
        let dims0 = grid.dims[0] as i64;
        // The cell coordinates of `c`, advanced with it (no division per cell).
        let mut coords = self.coords(cells.start);
        let (first, mut len) = (local.len(), local.len());
        for c in cells {
            let here = self.cell(c);
            let at = coords;
            coords[0] += 1;
            for a in 0..D - 1 {
                if coords[a] < grid.dims[a] {
                    break;
                }
                coords[a] = 0;
                coords[a + 1] += 1;
            }
            if here.is_empty() {
                continue;
            }
            // Candidate `(i, j)` for `j` in `js`: its positions written at `len` unconditionally
            // and kept by advancing `len` when the spheres touch (no branch to mispredict on the
            // test); mapped to the original indices once the range is done.
            let mut emit = |i: usize, js: std::ops::Range<usize>| {
                if local.len() < len + js.len() {
                    local.resize((len + js.len()).max(2 * local.len()), (0, 0));
                }
                for j in js {
                    local[len] = (i as u32, j as u32);
                    len += super::touching(&sorted[i], &sorted[j], margin) as usize;
                }
            };
            for i in here.clone() {
                emit(i, i + 1..here.end);
            }
            let x = at[0] as i64;
            for (offset, row, dx_min, dx_max) in &runs {
                let inside = (1..D).all(|a| {
                    let v = at[a] as i64 + row[a];
                    v >= 0 && (v as u64) < grid.dims[a]
                });
                let x0 = (x + dx_min).max(0);
                let x1 = (x + dx_max).min(dims0 - 1);
                if !inside || x0 > x1 {
                    continue;
                }
                let n0 = (c as i64 + offset + x0 - x) as usize;
                let n1 = n0 + (x1 - x0) as usize;
                let there = self.start[n0] as usize..self.start[n1 + 1] as usize;
                for i in here.clone() {
                    emit(i, there.clone());
                }
            }
        }
        local.truncate(len);
        for pair in &mut local[first..] {
            let (p, q) = (index[pair.0 as usize], index[pair.1 as usize]);
            *pair = (p.min(q), p.max(q));
        }
    }
}
