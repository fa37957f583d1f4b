//! The hierarchical grid of Ogarko and Luding: spheres are sorted into levels by size, each level a
//! grid whose cells are at least its largest diameter (plus the margin) wide, stored as a hash of
//! its occupied cells. Pairs within a level come from the half-shell scan of the linked-cell method;
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

use super::cells::{half_shell, Grid};
use super::{chunked_pairs, touching, validate, BroadError, BroadPhase, Sphere};
use crate::math::Point;

const EMPTY: u64 = u64::MAX;

/// One level: its grid and the spheres of it sorted by cell, with a hash of the occupied cells.
#[derive(Debug, Default)]
struct Level<const D: usize> {
    grid: Option<Grid<D>>,
    /// Occupied cells (dense indices, sorted) and `start[c]..start[c + 1]` into `items`.
    keys: Vec<u64>,
    start: Vec<u32>,
    items: Vec<u32>,
    /// Open addressing: slot → cell key and its position in `keys`.
    slots: Vec<u64>,
    values: Vec<u32>,
    shift: u32,
}

impl<const D: usize> Level<D> {
    fn build(spheres: &[Sphere<D>], members: &[u32], size: f64) -> Self {
        if members.is_empty() {
            return Level::default();
        }
        let subset: Vec<Sphere<D>> = members.iter().map(|&i| spheres[i as usize]).collect();
        let grid = Grid::covering(&subset, size, f64::INFINITY);
        let mut keyed: Vec<(u64, u32)> = members
            .iter()
            .map(|&i| (grid.index(&grid.cell(&spheres[i as usize].centre)), i))
            .collect();
        keyed.sort_unstable();
        let mut keys = Vec::new();
        let mut start = Vec::new();
        for (pos, &(k, _)) in keyed.iter().enumerate() {
            if keys.last() != Some(&k) {
                keys.push(k);
                start.push(pos as u32);
            }
        }
        start.push(keyed.len() as u32);
        let capacity = (2 * keys.len()).next_power_of_two().max(2);
        let shift = 64 - capacity.trailing_zeros();
        let mut slots = vec![EMPTY; capacity];
        let mut values = vec![0u32; capacity];
        for (pos, &k) in keys.iter().enumerate() {
            let mut s = Self::hash(k, shift);
            while slots[s] != EMPTY {
                s = (s + 1) & (capacity - 1);
            }
            slots[s] = k;
            values[s] = pos as u32;
        }
        Level {
            grid: Some(grid),
            keys,
            start,
            items: keyed.into_iter().map(|(_, i)| i).collect(),
            slots,
            values,
            shift,
        }
    }

    #[inline]
    fn hash(key: u64, shift: u32) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
    }

    /// The spheres of the cell with dense index `key`.
    #[inline]
    fn cell(&self, key: u64) -> &[u32] {
        let mask = self.slots.len() - 1;
        let mut s = Self::hash(key, self.shift);
        loop {
            match self.slots[s] {
                EMPTY => return &[],
                k if k == key => {
                    let p = self.values[s] as usize;
                    return &self.items[self.start[p] as usize..self.start[p + 1] as usize];
                }
                _ => s = (s + 1) & mask,
            }
        }
    }
}

/// The hierarchical grid.
#[derive(Debug, Default)]
pub struct HierarchicalGrid<const D: usize> {
    spheres: Vec<Sphere<D>>,
    level_of: Vec<u8>,
    levels: Vec<Level<D>>,
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
    fn choose(spheres: &[Sphere<D>], margin: f64) -> Vec<f64> {
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
                let own = count[l] / volume * (3.0 * sizes[l]).powi(D as i32) / 2.0 + shell / 2.0;
                let cross: f64 = (l + 1..levels)
                    .filter(|&k| count[k] > 0.0)
                    .map(|k| count[k] / volume * (3.0 * sizes[k]).powi(D as i32) + shell)
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

    fn update(&mut self, spheres: &[Sphere<D>], margin: f64) -> Result<(), BroadError> {
        validate(spheres, margin)?;
        self.sizes = Self::choose(spheres, margin);
        self.level_of = spheres
            .iter()
            .map(|s| Self::level(&self.sizes, s.radius, margin) as u8)
            .collect();
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); self.sizes.len()];
        for (i, &l) in self.level_of.iter().enumerate() {
            members[l as usize].push(i as u32);
        }
        self.levels = members
            .iter()
            .zip(&self.sizes)
            .map(|(m, &s)| Level::build(spheres, m, s))
            .collect();
        self.spheres = spheres.to_vec();
        self.margin = margin;
        Ok(())
    }

    fn pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        let (s, m, levels, level_of) = (&self.spheres, self.margin, &self.levels, &self.level_of);
        let shell = half_shell::<D>();
        let emit = |p: u32, q: u32, local: &mut Vec<(u32, u32)>| {
            if touching(&s[p as usize], &s[q as usize], m) {
                local.push((p.min(q), p.max(q)));
            }
        };
        // Pairs within each level: the occupied cells, each with itself and its half shell.
        let mut within = Vec::new();
        for level in levels {
            let Some(grid) = level.grid else { continue };
            let mut part = Vec::new();
            chunked_pairs(level.keys.len(), &mut part, |range, local| {
                for c in range {
                    let here = &level.items[level.start[c] as usize..level.start[c + 1] as usize];
                    for (a, &p) in here.iter().enumerate() {
                        for &q in &here[a + 1..] {
                            emit(p, q, local);
                        }
                    }
                    let mut coords = [0u64; D];
                    let mut rest = level.keys[c];
                    for (a, v) in coords.iter_mut().enumerate() {
                        *v = rest % grid.dims[a];
                        rest /= grid.dims[a];
                    }
                    for o in &shell {
                        let mut n = [0u64; D];
                        let mut inside = true;
                        for a in 0..D {
                            let v = coords[a] as i64 + o[a];
                            inside &= v >= 0 && (v as u64) < grid.dims[a];
                            n[a] = v.max(0) as u64;
                        }
                        if inside {
                            for &p in here {
                                for &q in level.cell(grid.index(&n)) {
                                    emit(p, q, local);
                                }
                            }
                        }
                    }
                }
            });
            within.extend(part);
        }
        // Pairs across levels: each sphere against the coarser levels' cells within reach.
        let mut across = Vec::new();
        chunked_pairs(s.len(), &mut across, |range, local| {
            for p in range {
                let l = level_of[p] as usize;
                for level in &levels[l + 1..] {
                    let Some(grid) = level.grid else { continue };
                    let reach = s[p].radius + 0.5 * (grid.size + m);
                    let lo_cell: [i64; D] =
                        std::array::from_fn(|a| ((s[p].centre[a] - reach - grid.lo[a]) / grid.size).floor() as i64);
                    let hi_cell: [i64; D] =
                        std::array::from_fn(|a| ((s[p].centre[a] + reach - grid.lo[a]) / grid.size).floor() as i64);
                    let clamp = |v: i64, a: usize| v.clamp(0, grid.dims[a] as i64 - 1);
                    if (0..D).any(|a| hi_cell[a] < 0 || lo_cell[a] >= grid.dims[a] as i64) {
                        continue;
                    }
                    let from: [i64; D] = std::array::from_fn(|a| clamp(lo_cell[a], a));
                    let to: [i64; D] = std::array::from_fn(|a| clamp(hi_cell[a], a));
                    let mut c = from;
                    'cells: loop {
                        let key = grid.index(&std::array::from_fn(|a| c[a] as u64));
                        for &q in level.cell(key) {
                            emit(p as u32, q, local);
                        }
                        for a in 0..D {
                            if c[a] < to[a] {
                                c[a] += 1;
                                continue 'cells;
                            }
                            c[a] = from[a];
                        }
                        break;
                    }
                }
            }
        });
        out.clear();
        out.reserve(within.len() + across.len());
        out.extend(within);
        out.extend(across);
    }
}
