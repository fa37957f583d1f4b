//! Point location: which cell contains a point, and its barycentric coordinates there.
//!
//! A k-d tree (`kiddo`) over the cell centroids gives a start cell close to the point; a visibility
//! walk then moves across the facet with the most negative barycentric coordinate until every
//! coordinate is non-negative. The walk can stop at the boundary of a non-convex domain, or cycle in
//! rare degenerate configurations; then every cell whose centroid lies within the largest
//! centroid-to-vertex distance of the mesh is tested, which finds the cell if there is one (a cell
//! that contains `x` has its centroid within that distance of `x`). So `None` means that `x` is
//! outside the mesh, never that the search gave up.

use super::{SimplexMesh, NONE};
use crate::math::{edge_matrix, Point};
use kiddo::{ImmutableKdTree, SquaredEuclidean};

/// Barycentric coordinates below `-TOLERANCE` place a point outside a cell.
const TOLERANCE: f64 = 1e-10;

/// A point located in a mesh.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellPoint {
    /// The containing cell.
    pub cell: u32,
    /// Barycentric coordinates with respect to the cell's nodes, in the order of
    /// [`SimplexMesh::cell`]; the first `D + 1` entries are used, the rest are zero.
    pub weights: [f64; 4],
}

#[derive(Debug)]
pub(super) struct Locator<const D: usize> {
    tree: ImmutableKdTree<f64, D>,
    /// The largest distance, squared, from a cell's centroid to one of its nodes.
    reach_sq: f64,
}

impl<const D: usize> Locator<D> {
    pub(super) fn new(mesh: &SimplexMesh<D>) -> Self {
        let nv = D + 1;
        let mut reach_sq: f64 = 0.0;
        let centroids: Vec<[f64; D]> = (0..mesh.num_cells() as u32)
            .map(|c| {
                let p = mesh.cell_points(c);
                let centroid = p[..nv].iter().sum::<Point<D>>() / nv as f64;
                for q in &p[..nv] {
                    reach_sq = reach_sq.max((q - centroid).norm_squared());
                }
                centroid.into()
            })
            .collect();
        let tree = ImmutableKdTree::new_from_slice(&centroids).expect("a mesh has at least one cell and finite nodes");
        Locator {
            tree,
            reach_sq: reach_sq * (1.0 + 1e-9),
        }
    }

    pub(super) fn locate(&self, mesh: &SimplexMesh<D>, x: &Point<D>) -> Option<CellPoint> {
        let key: [f64; D] = (*x).into();
        let start = self.tree.query(&key).nearest_one::<SquaredEuclidean<f64>>().execute().item;
        walk(mesh, x, start).or_else(|| self.search(mesh, x))
    }

    pub(super) fn locate_from(&self, mesh: &SimplexMesh<D>, x: &Point<D>, hint: u32) -> Option<CellPoint> {
        if (hint as usize) < mesh.num_cells() {
            if let Some(found) = walk(mesh, x, hint) {
                return Some(found);
            }
        }
        self.locate(mesh, x)
    }

    /// Tests every cell whose centroid is within reach of `x`.
    fn search(&self, mesh: &SimplexMesh<D>, x: &Point<D>) -> Option<CellPoint> {
        let key: [f64; D] = (*x).into();
        self.tree
            .query(&key)
            .within::<SquaredEuclidean<f64>>(self.reach_sq)
            .unsorted()
            .execute()
            .into_iter()
            .find_map(|hit| {
                let weights = barycentric(&mesh.cell_points(hit.item)[..D + 1], x);
                inside::<D>(&weights).then_some(CellPoint {
                    cell: hit.item,
                    weights,
                })
            })
    }
}

/// Visibility walk from `start`; `None` if it leaves the mesh or takes too many steps.
fn walk<const D: usize>(mesh: &SimplexMesh<D>, x: &Point<D>, start: u32) -> Option<CellPoint> {
    let mut cell = start;
    let max_steps = 64 + 4 * (mesh.num_cells() as f64).powf(1.0 / D as f64) as usize;
    for _ in 0..max_steps {
        let weights = barycentric(&mesh.cell_points(cell)[..D + 1], x);
        let (k, &min) = weights[..D + 1]
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .expect("a cell has D + 1 nodes");
        if min >= -TOLERANCE {
            return Some(CellPoint { cell, weights });
        }
        let next = mesh.neighbour(cell, k);
        if next == NONE {
            return None;
        }
        cell = next;
    }
    None
}

fn inside<const D: usize>(weights: &[f64; 4]) -> bool {
    weights[..D + 1].iter().all(|&w| w >= -TOLERANCE)
}

/// Barycentric coordinates of `x` in the simplex `p[0..=D]`: `λ_{1..D} = M⁻¹ (x − p0)` with
/// `M = [p1 − p0, …, pD − p0]`, and `λ_0 = 1 − Σ λ_i`.
pub(super) fn barycentric<const D: usize>(p: &[Point<D>], x: &Point<D>) -> [f64; 4] {
    let mut out = [0.0; 4];
    let Some(inv) = edge_matrix(p).try_inverse() else {
        out[0] = f64::NAN;
        return out;
    };
    let lambda = inv * (x - p[0]);
    out[0] = 1.0 - lambda.sum();
    out[1..=D].copy_from_slice(lambda.as_slice());
    out
}
