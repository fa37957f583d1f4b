//! The hierarchical grid of Ogarko and Luding: spheres are sorted into levels by size, each level a
//! grid whose cells are at least its largest diameter (plus the margin) wide (the linked cell's
//! [`CellList`], sized to its own spheres). Pairs within a level come from the half-shell scan;
//! a sphere of level `l` also visits, in every coarser level `k`, the cells within
//! `r + (s_k + m)/2` of its centre (spheres there have `2r_q + m ≤ s_k`), so each cross-level pair
//! is found once, from its smaller sphere.
//!
//! **Levels.** The cell sizes grow geometrically (the exponential size distribution of the
//! Krijgsman–Ogarko slides) from `2 r_min + m` to `2 r_max + m`; their number `L` minimises the cost
//! model `T = T_cd + K·T_ca` evaluated on the actual radii: `T_cd` counts the candidate pairs (for a
//! sphere of level `l`, the spheres of its own level in half its 3^D neighbourhood and those of each
//! coarser level `k` in a (3 s_k)^D box, at uniform density over the bounding box) and `T_ca` the
//! cell visits (`3^D/2` for the own level, `3^D` per coarser non-empty level), with `K = 1`.

use super::cells::{half_shell, CellList};
use super::{chunked_pairs, touching, validate, BoundingSphere, BroadError, BroadPhase};
use crate::math::{self, Point};

/// K of the cost model: the cost of visiting a cell over that of testing a pair.
const CELL_VISIT: f64 = 1.0;

/// The hierarchical grid.
#[derive(Debug, Default)]
pub struct HierarchicalGrid<const D: usize> {
    levels: Vec<Option<CellList<D>>>,
    sizes: Vec<f64>,
    margin: f64,
}

impl<const D: usize> HierarchicalGrid<D> {
    /// The cell sizes of the levels chosen at the last update, finest first.
    pub fn cell_sizes(&self) -> &[f64] {
        &self.sizes
    }

    /// Geometric cell sizes from `s_min` to `s_max` in `levels` steps.
    fn sizes(s_min: f64, s_max: f64, levels: usize) -> Vec<f64> {
        if levels == 1 {
            return vec![s_max];
        }
        let q = (s_max / s_min).powf(1.0 / (levels - 1) as f64);
        (0..levels)
            .map(|k| {
                if k + 1 == levels {
                    s_max
                } else {
                    s_min * q.powi(k as i32)
                }
            })
            .collect()
    }

    /// The level of a sphere: the first whose cells hold its diameter plus the margin.
    fn level(sizes: &[f64], radius: f64, margin: f64) -> usize {
        let need = 2.0 * radius + margin;
        sizes
            .iter()
            .position(|&s| s >= need * (1.0 - 1e-12))
            .unwrap_or(sizes.len() - 1)
    }

    /// The number of levels minimising the cost model (see the module docs).
    fn choose(spheres: &[BoundingSphere<D>], margin: f64) -> Vec<f64> {
        let (r_min, r_max) = spheres
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), s| (a.min(s.radius), b.max(s.radius)));
        let (s_min, s_max) = ((2.0 * r_min + margin).max(1e-300), 2.0 * r_max + margin);
        if s_max <= 2.0 * s_min {
            return vec![s_max];
        }
        let mut lo = Point::<D>::repeat(f64::INFINITY);
        let mut hi = Point::<D>::repeat(f64::NEG_INFINITY);
        for s in spheres {
            lo = lo.inf(&s.centre);
            hi = hi.sup(&s.centre);
        }
        let volume: f64 = (0..D).map(|a| (hi[a] - lo[a]).max(s_max)).product();
        let shell = 3f64.powi(D as i32);
        let max_levels = ((s_max / s_min).log2().ceil() as usize + 1).min(16);
        let mut best = (f64::INFINITY, vec![s_max]);
        for levels in 1..=max_levels {
            let sizes = Self::sizes(s_min, s_max, levels);
            let mut count = vec![0f64; levels];
            for s in spheres {
                count[Self::level(&sizes, s.radius, margin)] += 1.0;
            }
            let mut cost = 0.0;
            for l in 0..levels {
                let own = count[l] / volume * (3.0 * sizes[l]).powi(D as i32) / 2.0 + CELL_VISIT * shell / 2.0;
                let cross: f64 = (l + 1..levels)
                    .filter(|&k| count[k] > 0.0)
                    .map(|k| count[k] / volume * (3.0 * sizes[k]).powi(D as i32) + CELL_VISIT * shell)
                    .sum();
                cost += count[l] * (own + cross);
            }
            if cost < best.0 {
                best = (cost, sizes);
            }
        }
        best.1
    }
}

impl<const D: usize> BroadPhase<D> for HierarchicalGrid<D> {
    fn name(&self) -> &'static str {
        "hgrid"
    }

    fn update(&mut self, spheres: &[BoundingSphere<D>], margin: f64) -> Result<(), BroadError> {
        validate(spheres, margin)?;
        self.sizes = Self::choose(spheres, margin);
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); self.sizes.len()];
        for (i, s) in spheres.iter().enumerate() {
            members[Self::level(&self.sizes, s.radius, margin)].push(i as u32);
        }
        // Each level rebuilt into last step's buffers where it has some.
        self.levels.resize_with(self.sizes.len(), || None);
        for ((level, m), &size) in self.levels.iter_mut().zip(&members).zip(&self.sizes) {
            if m.is_empty() {
                *level = None;
            } else {
                level.get_or_insert_with(CellList::new).rebuild(spheres, Some(m), size);
            }
        }
        self.margin = margin;
        Ok(())
    }

    fn pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        let (m, levels) = (self.margin, &self.levels);
        let shell = half_shell::<D>();
        out.clear();
        let mut part = Vec::new();
        // Pairs within each level: each cell with itself and its half shell.
        for list in levels.iter().flatten() {
            chunked_pairs(list.grid.len() as usize, &mut part, |range, local| {
                list.pairs_within(range, &shell, m, local)
            });
            out.extend_from_slice(&part);
        }
        // Pairs across levels: each sphere against the coarser levels' cells within reach.
        for (l, fine) in levels.iter().enumerate() {
            let Some(fine) = fine else { continue };
            chunked_pairs(fine.sorted.len(), &mut part, |range, local| {
                for i in range {
                    let p = &fine.sorted[i];
                    for coarse in levels[l + 1..].iter().flatten() {
                        let grid = &coarse.grid;
                        let reach = p.radius + 0.5 * (grid.size + m);
                        let lo: [i64; D] =
                            std::array::from_fn(|a| ((p.centre[a] - reach - grid.lo[a]) / grid.size).floor() as i64);
                        let hi: [i64; D] =
                            std::array::from_fn(|a| ((p.centre[a] + reach - grid.lo[a]) / grid.size).floor() as i64);
                        if (0..D).any(|a| hi[a] < 0 || lo[a] >= grid.dims[a] as i64) {
                            continue;
                        }
                        let from: [i64; D] = std::array::from_fn(|a| lo[a].max(0));
                        let to: [i64; D] = std::array::from_fn(|a| hi[a].min(grid.dims[a] as i64 - 1));
                        math::for_each_cell(from, to, |c| {
                            let key = grid.index(&std::array::from_fn(|a| c[a] as u64)) as usize;
                            for j in coarse.cell(key) {
                                if touching(p, &coarse.sorted[j], m) {
                                    let (a, b) = (fine.index[i], coarse.index[j]);
                                    local.push((a.min(b), a.max(b)));
                                }
                            }
                        });
                    }
                }
            });
            out.extend_from_slice(&part);
        }
    }
}
