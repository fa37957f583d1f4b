//! The sorted-distance method of Leszczynski and Ciesielski: `l_i = |c_i − x_0| − r_i`, the
//! distance from a corner `x_0` of the set to the near side of each sphere, sorted; sphere `i` is
//! compared with the following ones until `l_j − l_i > 2 r_i + m`. Complete, since two touching
//! spheres have `|c_j − x_0| ≤ |c_i − x_0| + r_i + r_j + m`, that is `l_j − l_i ≤ 2 r_i + m`.
//! The same code in any dimension.

use super::{chunked_pairs, touching, validate, BoundingSphere, BroadError, BroadPhase};
use crate::math::Point;

/// Leszczynski and Ciesielski's sorted distances.
#[derive(Debug, Default)]
pub struct SortedDistance<const D: usize> {
    sorted: Vec<BoundingSphere<D>>,
    index: Vec<u32>,
    distance: Vec<f64>,
    margin: f64,
}

impl<const D: usize> BroadPhase<D> for SortedDistance<D> {
    fn name(&self) -> &'static str {
        "sorted-distance"
    }

    fn update(&mut self, spheres: &[BoundingSphere<D>], margin: f64) -> Result<(), BroadError> {
        validate(spheres, margin)?;
        let corner = spheres
            .iter()
            .fold(Point::<D>::repeat(f64::INFINITY), |lo, s| lo.inf(&s.centre));
        let mut keyed: Vec<(f64, u32)> = spheres
            .iter()
            .enumerate()
            .map(|(i, s)| ((s.centre - corner).norm() - s.radius, i as u32))
            .collect();
        keyed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        self.distance = keyed.iter().map(|k| k.0).collect();
        self.index = keyed.iter().map(|k| k.1).collect();
        self.sorted = self.index.iter().map(|&i| spheres[i as usize]).collect();
        self.margin = margin;
        Ok(())
    }

    fn pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        let (s, index, l, m) = (&self.sorted, &self.index, &self.distance, self.margin);
        chunked_pairs(s.len(), out, |range, local| {
            for i in range {
                let limit = l[i] + 2.0 * s[i].radius + m;
                for j in i + 1..s.len() {
                    if l[j] > limit {
                        break;
                    }
                    if touching(&s[i], &s[j], m) {
                        let (p, q) = (index[i], index[j]);
                        local.push((p.min(q), p.max(q)));
                    }
                }
            }
        });
    }
}
