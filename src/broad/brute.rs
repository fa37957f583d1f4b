//! Every pair: the reference the other methods are tested against.

use super::{chunked_pairs, touching, validate, BoundingSphere, BroadError, BroadPhase};

/// Tests all `N(N − 1)/2` pairs (in parallel over the first index).
#[derive(Debug, Default)]
pub struct BruteForce<const D: usize> {
    spheres: Vec<BoundingSphere<D>>,
    margin: f64,
}

impl<const D: usize> BroadPhase<D> for BruteForce<D> {
    fn name(&self) -> &'static str {
        "brute"
    }
    fn update(&mut self, spheres: &[BoundingSphere<D>], margin: f64) -> Result<(), BroadError> {
        validate(spheres, margin)?;
        self.spheres.clear();
        self.spheres.extend_from_slice(spheres);
        self.margin = margin;
        Ok(())
    }
    fn pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        let (s, m) = (&self.spheres, self.margin);
        chunked_pairs(s.len(), out, |range, local| {
            for i in range {
                for j in i + 1..s.len() {
                    if touching(&s[i], &s[j], m) {
                        local.push((i as u32, j as u32));
                    }
                }
            }
        });
    }
}
