//! Sort and sweep (Gavrilova and Rokne's segment approach): project each sphere on the axis of
//! largest spread as the interval `[c − r − m/2, c + r + m/2]`, sort the intervals by their lower
//! end, and compare each with the following ones while they overlap. Between steps, when the bodies
//! move little, the previous order is re-sorted by insertion sort, which costs O(N + moves).

use super::{chunked_pairs, touching, validate, BoundingSphere, BroadError, BroadPhase};

/// Sort and sweep, with incremental re-sorting between updates.
#[derive(Debug, Default)]
pub struct SortAndSweep<const D: usize> {
    spheres: Vec<BoundingSphere<D>>,
    /// BoundingSphere indices sorted by the lower ends of their intervals, and those ends.
    order: Vec<u32>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    axis: usize,
    margin: f64,
}

impl<const D: usize> SortAndSweep<D> {
    /// The axis along which the centres spread most (largest variance).
    fn spread_axis(spheres: &[BoundingSphere<D>]) -> usize {
        let n = spheres.len() as f64;
        let mean = spheres.iter().map(|s| s.centre).sum::<crate::math::Point<D>>() / n;
        let var = spheres
            .iter()
            .map(|s| (s.centre - mean).component_mul(&(s.centre - mean)))
            .sum::<crate::math::Point<D>>();
        var.imax()
    }
}

impl<const D: usize> BroadPhase<D> for SortAndSweep<D> {
    fn name(&self) -> &'static str {
        "sweep"
    }

    fn update(&mut self, spheres: &[BoundingSphere<D>], margin: f64) -> Result<(), BroadError> {
        validate(spheres, margin)?;
        let axis = Self::spread_axis(spheres);
        let lower_of = |i: u32| {
            let s = &spheres[i as usize];
            s.centre[axis] - s.radius - 0.5 * margin
        };
        let reuse = self.order.len() == spheres.len() && self.axis == axis;
        if reuse {
            // Insertion sort of the previous order under the new positions; give up on it (and sort
            // from scratch) if the bodies moved too much for it to pay.
            let mut keys: Vec<(f64, u32)> = self.order.iter().map(|&i| (lower_of(i), i)).collect();
            let mut moves = 0usize;
            let budget = 8 * keys.len();
            for k in 1..keys.len() {
                let item = keys[k];
                let mut j = k;
                while j > 0 && (keys[j - 1].0, keys[j - 1].1) > (item.0, item.1) && moves <= budget {
                    keys[j] = keys[j - 1];
                    j -= 1;
                    moves += 1;
                }
                keys[j] = item;
                if moves > budget {
                    break;
                }
            }
            if moves > budget {
                keys.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            }
            self.order = keys.into_iter().map(|(_, i)| i).collect();
        } else {
            self.order = (0..spheres.len() as u32).collect();
            self.order
                .sort_unstable_by(|&a, &b| lower_of(a).total_cmp(&lower_of(b)).then(a.cmp(&b)));
        }
        self.axis = axis;
        self.spheres.clear();
        self.spheres.extend(self.order.iter().map(|&i| spheres[i as usize]));
        self.lower = self
            .spheres
            .iter()
            .map(|s| s.centre[axis] - s.radius - 0.5 * margin)
            .collect();
        self.upper = self
            .spheres
            .iter()
            .map(|s| s.centre[axis] + s.radius + 0.5 * margin)
            .collect();
        self.margin = margin;
        Ok(())
    }

    fn pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        let (s, order, lower, upper, m) = (&self.spheres, &self.order, &self.lower, &self.upper, self.margin);
        chunked_pairs(s.len(), out, |range, local| {
            for k in range {
                for l in k + 1..s.len() {
                    if lower[l] > upper[k] {
                        break;
                    }
                    if touching(&s[k], &s[l], m) {
                        let (p, q) = (order[k], order[l]);
                        local.push((p.min(q), p.max(q)));
                    }
                }
            }
        });
    }
}
