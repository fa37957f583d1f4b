//! The linked-cell method: cells at least one largest diameter (plus the margin) wide, so that a
//! sphere can only touch spheres of its own and the neighbouring cells; each cell is compared with
//! itself and its half shell of neighbours.

use super::cells::{counting_sort, half_shell, Grid};
use super::{chunked_pairs, touching, validate, BroadError, BroadPhase, Sphere};

/// Linked cells on a dense grid (counting sort by cell, half-shell scan, parallel over cell ranges).
#[derive(Debug, Default)]
pub struct LinkedCell<const D: usize> {
    /// The spheres in cell order, and their original indices.
    sorted: Vec<Sphere<D>>,
    index: Vec<u32>,
    start: Vec<u32>,
    grid: Option<Grid<D>>,
    margin: f64,
}

impl<const D: usize> BroadPhase<D> for LinkedCell<D> {
    fn name(&self) -> &'static str {
        "linked-cell"
    }

    fn update(&mut self, spheres: &[Sphere<D>], margin: f64) -> Result<(), BroadError> {
        validate(spheres, margin)?;
        let r_max = spheres.iter().map(|s| s.radius).fold(0.0, f64::max);
        // At most 2 cells per sphere: sparser grids are only empty cells to visit.
        let grid = Grid::covering(spheres, 2.0 * r_max + margin, 2.0 * spheres.len() as f64 + 64.0);
        let (start, order) = counting_sort(&grid, spheres);
        self.sorted.clear();
        self.sorted.extend(order.iter().map(|&i| spheres[i as usize]));
        self.index = order;
        self.start = start;
        self.grid = Some(grid);
        self.margin = margin;
        Ok(())
    }

    fn pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        let Some(grid) = self.grid else {
            out.clear();
            return;
        };
        let (sorted, index, start, m) = (&self.sorted, &self.index, &self.start, self.margin);
        let shell = half_shell::<D>();
        let n_cells = grid.len() as usize;
        chunked_pairs(n_cells, out, |cells, local| {
            for c in cells {
                let (a0, a1) = (start[c] as usize, start[c + 1] as usize);
                if a0 == a1 {
                    continue;
                }
                let mut coords = [0u64; D];
                let mut rest = c as u64;
                for (a, v) in coords.iter_mut().enumerate() {
                    *v = rest % grid.dims[a];
                    rest /= grid.dims[a];
                }
                let mut emit = |i: usize, j: usize| {
                    if touching(&sorted[i], &sorted[j], m) {
                        let (p, q) = (index[i], index[j]);
                        local.push((p.min(q), p.max(q)));
                    }
                };
                for i in a0..a1 {
                    for j in i + 1..a1 {
                        emit(i, j);
                    }
                }
                for o in &shell {
                    let mut n = [0u64; D];
                    let mut inside = true;
                    for a in 0..D {
                        let v = coords[a] as i64 + o[a];
                        inside &= v >= 0 && (v as u64) < grid.dims[a];
                        n[a] = v.max(0) as u64;
                    }
                    if !inside {
                        continue;
                    }
                    let nc = grid.index(&n) as usize;
                    let (b0, b1) = (start[nc] as usize, start[nc + 1] as usize);
                    for i in a0..a1 {
                        for j in b0..b1 {
                            emit(i, j);
                        }
                    }
                }
            }
        });
    }
}
