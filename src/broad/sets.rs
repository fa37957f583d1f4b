//! The benchmark's sphere sets, generated reproducibly from a seed, and the timing of a method on
//! a set (used by `tumble bench broad` and `cargo bench --bench broad`).

use super::{
    Auto, BoundingSphere, BroadPhase, BruteForce, HierarchicalGrid, KdTree, LinkedCell, SortAndSweep, SortedDistance,
};
use crate::math::Point;
use std::f64::consts::PI;
use std::time::Instant;

/// SplitMix64: a small, well-mixed generator, so that a seed gives the same set everywhere.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// A number in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn ball_measure(d: usize, r: f64) -> f64 {
    if d == 2 {
        PI * r * r
    } else {
        4.0 / 3.0 * PI * r * r * r
    }
}

/// `n` spheres with radii uniform in `[1, ω]`, centres uniform in a cube sized so that the spheres
/// fill the fraction `fraction` of its volume.
pub fn uniform<const D: usize>(n: usize, omega: f64, fraction: f64, seed: u64) -> Vec<BoundingSphere<D>> {
    let mut rng = SplitMix(seed);
    let radii: Vec<f64> = (0..n).map(|_| 1.0 + (omega - 1.0) * rng.uniform()).collect();
    let volume: f64 = radii.iter().map(|&r| ball_measure(D, r)).sum::<f64>() / fraction;
    let side = volume.powf(1.0 / D as f64);
    radii
        .into_iter()
        .map(|radius| BoundingSphere {
            centre: Point::<D>::from_fn(|_, _| side * rng.uniform()),
            radius,
        })
        .collect()
}

/// Leszczynski and Ciesielski's 2D sets: `n` particles in a square of side `nx` with
/// `n / nx² = 100`, diameters uniform in `[d_min, d_max]`.
pub fn leszczynski(n: usize, d_min: f64, d_max: f64, seed: u64) -> Vec<BoundingSphere<2>> {
    let mut rng = SplitMix(seed);
    let side = (n as f64 / 100.0).sqrt();
    (0..n)
        .map(|_| BoundingSphere {
            centre: Point::<2>::new(side * rng.uniform(), side * rng.uniform()),
            radius: 0.5 * (d_min + (d_max - d_min) * rng.uniform()),
        })
        .collect()
}

/// One big sphere among `n − 1` unit spheres filling `fraction` of a cube; the big one is as wide
/// as a cell that would hold about 100 small spheres, which is what a single grid degrades to.
pub fn one_big_among_many<const D: usize>(n: usize, fraction: f64, seed: u64) -> Vec<BoundingSphere<D>> {
    let mut spheres = uniform::<D>(n, 1.0, fraction, seed);
    let side = ((n as f64) * ball_measure(D, 1.0) / fraction).powf(1.0 / D as f64);
    let cell = side * (100.0 / n as f64).powf(1.0 / D as f64);
    spheres[0].radius = 0.5 * cell;
    spheres
}

/// The methods by name: `brute`, `linked-cell`, `sweep`, `sorted-distance`, `hgrid`, `kdtree`, `auto`.
pub fn method<const D: usize>(name: &str) -> Option<Box<dyn BroadPhase<D>>> {
    Some(match name {
        "brute" => Box::new(BruteForce::<D>::default()),
        "linked-cell" => Box::new(LinkedCell::<D>::default()),
        "sweep" => Box::new(SortAndSweep::<D>::default()),
        "sorted-distance" => Box::new(SortedDistance::<D>::default()),
        "hgrid" => Box::new(HierarchicalGrid::<D>::default()),
        "kdtree" => Box::new(KdTree::<D>::default()),
        "auto" => Box::new(Auto::<D>::default()),
        _ => return None,
    })
}

/// All method names, in the order the benchmark prints them.
pub const METHODS: [&str; 7] = [
    "brute",
    "linked-cell",
    "sweep",
    "sorted-distance",
    "hgrid",
    "kdtree",
    "auto",
];

/// The timing of one method on one set.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// The method's name.
    pub method: String,
    /// What `auto` chose (empty for the others).
    pub chosen: String,
    /// Number of spheres.
    pub n: usize,
    /// Number of pairs found.
    pub pairs: usize,
    /// Median wall-clock milliseconds of a full query (update, that is build, and pairs).
    pub median_ms: f64,
    /// For `auto`: milliseconds of its first query, which probes the candidates (not in the median).
    pub probe_ms: Option<f64>,
}

/// Times `runs` full queries (update, that is build, and pairs) of the method on the same object,
/// so that incremental methods run as they would in a simulation; reports the median. `auto` first
/// answers one query that probes its candidates, timed apart (`probe_ms`): a simulation pays it
/// once, then every step costs what the median says.
pub fn time<const D: usize>(name: &str, spheres: &[BoundingSphere<D>], margin: f64, runs: usize) -> Option<Timing> {
    let (pairs, median_ms, chosen, probe_ms) = if name == "auto" {
        let mut auto = Auto::<D>::default();
        let (_, probe) = median_query(&mut auto, spheres, margin, 1)?;
        let (pairs, ms) = median_query(&mut auto, spheres, margin, runs)?;
        (pairs, ms, auto.chosen().unwrap_or_default().to_string(), Some(probe))
    } else {
        let mut m = method::<D>(name)?;
        let (pairs, ms) = median_query(m.as_mut(), spheres, margin, runs)?;
        (pairs, ms, String::new(), None)
    };
    Some(Timing {
        method: name.to_string(),
        chosen,
        n: spheres.len(),
        pairs,
        median_ms,
        probe_ms,
    })
}

/// The number of pairs and the median milliseconds of `runs` queries.
fn median_query<const D: usize>(
    m: &mut dyn BroadPhase<D>,
    spheres: &[BoundingSphere<D>],
    margin: f64,
    runs: usize,
) -> Option<(usize, f64)> {
    let mut out = Vec::new();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        m.update(spheres, margin).ok()?;
        m.pairs(&mut out);
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Some((out.len(), times[times.len() / 2]))
}
