//! Choosing the method: a timed probe.

use super::{BoundingSphere, BroadError, BroadPhase, BruteForce, HierarchicalGrid, LinkedCell, SortAndSweep};
use std::time::Instant;

/// Runs each candidate method once on the first update (and again when the number of spheres
/// changes by more than a factor 2, or every `REPROBE` updates) and keeps the fastest; between
/// probes it is exactly that method. [`chosen`](Self::chosen) says which it is.
///
/// Candidates: brute force below 64 spheres; otherwise the linked cell and the hierarchical grid,
/// and sort and sweep up to 20 000 spheres (in dense sets its candidates grow like `N^(2 − 1/D)`:
/// probing it on a million spheres would cost seconds). The sorted-distance method and the k-d tree
/// lose to these on every set of the benchmark.
pub struct Auto<const D: usize> {
    current: Option<Box<dyn BroadPhase<D>>>,
    /// The number of spheres at the last probe, and the updates since.
    probed_n: usize,
    since_probe: usize,
}

/// Updates between two probes.
const REPROBE: usize = 1000;

impl<const D: usize> Default for Auto<D> {
    fn default() -> Self {
        Auto {
            current: None,
            probed_n: 0,
            since_probe: 0,
        }
    }
}

impl<const D: usize> Auto<D> {
    /// The name of the method in use (none before the first update).
    pub fn chosen(&self) -> Option<&'static str> {
        self.current.as_ref().map(|m| m.name())
    }

    fn candidates(n: usize) -> Vec<Box<dyn BroadPhase<D>>> {
        if n < 64 {
            return vec![Box::new(BruteForce::<D>::default())];
        }
        let mut candidates: Vec<Box<dyn BroadPhase<D>>> = vec![
            Box::new(LinkedCell::<D>::default()),
            Box::new(HierarchicalGrid::<D>::default()),
        ];
        if n <= 20_000 {
            candidates.push(Box::new(SortAndSweep::<D>::default()));
        }
        candidates
    }
}

impl<const D: usize> BroadPhase<D> for Auto<D> {
    fn name(&self) -> &'static str {
        "auto"
    }

    /// Delegates to the chosen method (which validates the input), probing first when needed.
    fn update(&mut self, spheres: &[BoundingSphere<D>], margin: f64) -> Result<(), BroadError> {
        self.since_probe += 1;
        let n = spheres.len();
        let stale = self.since_probe >= REPROBE;
        let resized = n < self.probed_n / 2 || n > 2 * self.probed_n;
        if self.current.is_none() || stale || resized {
            let mut best: Option<(f64, Box<dyn BroadPhase<D>>)> = None;
            let mut scratch = Vec::new();
            for mut method in Self::candidates(n) {
                let start = Instant::now();
                method.update(spheres, margin)?;
                method.pairs(&mut scratch);
                let t = start.elapsed().as_secs_f64();
                if best.as_ref().is_none_or(|(b, _)| t < *b) {
                    best = Some((t, method));
                }
            }
            self.current = best.map(|(_, m)| m);
            self.probed_n = n;
            self.since_probe = 0;
            return Ok(());
        }
        self.current.as_mut().expect("probed").update(spheres, margin)
    }

    fn pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        match &mut self.current {
            Some(m) => m.pairs(out),
            None => out.clear(),
        }
    }
}
