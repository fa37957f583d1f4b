//! A `kiddo` k-d tree over the centres, one radius query per sphere (reach `r_i + r_max + m`).

use super::{chunked_pairs, touching, validate, BoundingSphere, BroadError, BroadPhase};
use kiddo::{ImmutableKdTree, SquaredEuclidean};

/// Radius queries in a k-d tree (parallel over the queries).
#[derive(Default)]
pub struct KdTree<const D: usize> {
    spheres: Vec<BoundingSphere<D>>,
    tree: Option<ImmutableKdTree<f64, D>>,
    r_max: f64,
    margin: f64,
}

impl<const D: usize> BroadPhase<D> for KdTree<D> {
    fn name(&self) -> &'static str {
        "kdtree"
    }

    fn update(&mut self, spheres: &[BoundingSphere<D>], margin: f64) -> Result<(), BroadError> {
        validate(spheres, margin)?;
        let centres: Vec<[f64; D]> = spheres.iter().map(|s| s.centre.into()).collect();
        self.tree = Some(ImmutableKdTree::new_from_slice(&centres).expect("validated finite centres"));
        self.spheres = spheres.to_vec();
        self.r_max = spheres.iter().map(|s| s.radius).fold(0.0, f64::max);
        self.margin = margin;
        Ok(())
    }

    fn pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        let Some(tree) = &self.tree else {
            out.clear();
            return;
        };
        let (s, r_max, m) = (&self.spheres, self.r_max, self.margin);
        chunked_pairs(s.len(), out, |range, local| {
            let mut hits = Vec::new();
            for i in range {
                let reach = s[i].radius + r_max + m;
                let key: [f64; D] = s[i].centre.into();
                hits.clear();
                hits.extend(
                    tree.query(&key)
                        .within::<SquaredEuclidean<f64>>(reach * reach)
                        .unsorted()
                        .execute()
                        .into_iter()
                        .map(|h| h.item)
                        .filter(|&j| j as usize > i && touching(&s[i], &s[j as usize], m)),
                );
                hits.sort_unstable();
                local.extend(hits.iter().map(|&j| (i as u32, j)));
            }
        });
    }
}
