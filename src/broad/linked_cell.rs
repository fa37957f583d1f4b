//! The linked-cell method: cells at least one largest diameter (plus the margin) wide, so that a
//! sphere can only touch spheres of its own and the neighbouring cells; each cell is compared with
//! itself and its half shell of neighbours.

use super::cells::{half_shell, CellList};
use super::{chunked_pairs, validate, BoundingSphere, BroadError, BroadPhase};

/// Linked cells on a dense grid (counting sort by cell, half-shell scan, parallel over cell ranges).
#[derive(Debug, Default)]
pub struct LinkedCell<const D: usize> {
    cells: Option<CellList<D>>,
    margin: f64,
}

impl<const D: usize> BroadPhase<D> for LinkedCell<D> {
    fn name(&self) -> &'static str {
        "linked-cell"
    }

    fn update(&mut self, spheres: &[BoundingSphere<D>], margin: f64) -> Result<(), BroadError> {
        validate(spheres, margin)?;
        use rayon::prelude::*;
        let r_max = spheres.par_iter().map(|s| s.radius).reduce(|| 0.0, f64::max);
        self.cells
            .get_or_insert_with(CellList::new)
            .rebuild(spheres, None, 2.0 * r_max + margin);
        self.margin = margin;
        Ok(())
    }

    fn pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        let Some(cells) = &self.cells else {
            out.clear();
            return;
        };
        let shell = half_shell::<D>();
        chunked_pairs(cells.grid.len() as usize, out, |range, local| {
            cells.pairs_within(range, &shell, self.margin, local)
        });
    }
}
