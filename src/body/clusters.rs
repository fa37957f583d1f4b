//! A body's boundary nodes grouped into small compact clusters, each with a bounding sphere, so
//! that a contact search skips a whole cluster on one test instead of evaluating a field at each
//! of its nodes.
//!
//! A distance field `D` is 1-Lipschitz, and its P1 interpolant on a lattice of exact nodal
//! distances is `√D`-Lipschitz (each of its gradient's components is a difference of two nodal
//! distances `h` apart, over `h`). So a cluster of centre `c` and radius `r` holds no node within
//! `cut` of the field's zero level when `D(c) − L r > cut`, `L` the field's Lipschitz constant: one
//! evaluation instead of one per node. Two spheres touching see about a quarter of each other's
//! nodes inside their bounding spheres but only the few clusters facing the contact, and a body
//! near a wall only its clusters facing the wall (docs/performance.md, "Contact per step").
//!
//! The clusters are the cells of a grid of side `(N ā)^{1/(D−1)}` (`ā` the mean node's share of
//! the surface), about `N` nodes each (8 in 2D, 32 in 3D); building them is a sort of the nodes, `O(n log n)`, once per
//! shape.

use crate::math::Point;

/// Nodes per cluster aimed at in 2D and 3D: fewer makes more cluster tests, more evaluates more
/// nodes of the clusters that pass (a 2D surface has few nodes to skip).
const NODES_PER_CLUSTER: [f64; 2] = [8.0, 32.0];

/// A partition of a surface's nodes into clusters with bounding spheres.
#[derive(Debug, Clone, PartialEq)]
pub struct Clusters<const D: usize> {
    /// The nodes, cluster by cluster, ascending within each.
    nodes: Vec<u32>,
    /// Cluster `c` holds `nodes[offsets[c]..offsets[c + 1]]`.
    offsets: Vec<u32>,
    /// Each cluster's centre: the middle of its nodes' bounding box.
    pub centres: Vec<Point<D>>,
    /// Each cluster's radius: the largest distance of its nodes from its centre.
    pub radii: Vec<f64>,
}

impl<const D: usize> Clusters<D> {
    /// The clusters of `points`, whose mean share of the surface (length in 2D, area in 3D) is
    /// `mean_area`.
    pub fn new(points: &[Point<D>], mean_area: f64) -> Self {
        let side = (NODES_PER_CLUSTER[D.clamp(2, 3) - 2] * mean_area).powf(1.0 / (D as f64 - 1.0));
        let lo = points.iter().fold(Point::<D>::repeat(f64::INFINITY), |m, p| m.inf(p));
        // A degenerate side (a surface of one node, or none) puts every node in one cluster.
        let scale = if side > 0.0 && side.is_finite() {
            1.0 / side
        } else {
            0.0
        };
        let cell = |p: &Point<D>| -> [i64; D] { std::array::from_fn(|a| ((p[a] - lo[a]) * scale).floor() as i64) };
        let mut order: Vec<([i64; D], u32)> = points.iter().enumerate().map(|(k, p)| (cell(p), k as u32)).collect();
        order.sort_unstable();
        let mut offsets = vec![0u32];
        for k in 1..order.len() {
            if order[k].0 != order[k - 1].0 {
                offsets.push(k as u32);
            }
        }
        offsets.push(order.len() as u32);
        let nodes: Vec<u32> = order.into_iter().map(|(_, k)| k).collect();
        let (mut centres, mut radii) = (Vec::new(), Vec::new());
        for c in 0..offsets.len() - 1 {
            let members = &nodes[offsets[c] as usize..offsets[c + 1] as usize];
            let (mut min, mut max) = (Point::<D>::repeat(f64::INFINITY), Point::<D>::repeat(f64::NEG_INFINITY));
            for &k in members {
                min = min.inf(&points[k as usize]);
                max = max.sup(&points[k as usize]);
            }
            let centre = (min + max) * 0.5;
            let radius = members
                .iter()
                .map(|&k| (points[k as usize] - centre).norm())
                .fold(0.0, f64::max);
            centres.push(centre);
            radii.push(radius);
        }
        Clusters {
            nodes,
            offsets,
            centres,
            radii,
        }
    }

    /// The number of clusters.
    pub fn len(&self) -> usize {
        self.centres.len()
    }

    /// Whether there are none (a surface without nodes).
    pub fn is_empty(&self) -> bool {
        self.centres.is_empty()
    }

    /// The nodes of cluster `c`, ascending.
    pub fn nodes(&self, c: usize) -> &[u32] {
        &self.nodes[self.offsets[c] as usize..self.offsets[c + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node is in exactly one cluster, within its radius of the centre, and a sphere's
    /// clusters hold about the number aimed at.
    #[test]
    fn clusters_partition_a_sphere_into_small_balls() {
        let n = 4000;
        let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
        let points: Vec<Point<3>> = (0..n)
            .map(|k| {
                let z = 1.0 - 2.0 * (k as f64 + 0.5) / n as f64;
                let r = (1.0 - z * z).sqrt();
                let t = golden * k as f64;
                Point::<3>::new(r * t.cos(), r * t.sin(), z)
            })
            .collect();
        let area = 4.0 * std::f64::consts::PI / n as f64;
        let clusters = Clusters::new(&points, area);
        let mut seen = vec![0u32; n];
        for c in 0..clusters.len() {
            for &k in clusters.nodes(c) {
                seen[k as usize] += 1;
                assert!((points[k as usize] - clusters.centres[c]).norm() <= clusters.radii[c] + 1e-15);
            }
            assert!(clusters.nodes(c).windows(2).all(|w| w[0] < w[1]));
        }
        assert!(seen.iter().all(|&s| s == 1));
        let mean = n as f64 / clusters.len() as f64;
        assert!((10.0..40.0).contains(&mean), "{mean} nodes a cluster");
        let side = (32.0 * area).sqrt();
        assert!(clusters.radii.iter().all(|&r| r <= 0.5 * 3f64.sqrt() * side + 1e-12));
    }
}
