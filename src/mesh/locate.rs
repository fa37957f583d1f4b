//! Point location: which cell contains a point, and its barycentric coordinates there.
//!
//! A k-d tree (`kiddo`) over the mesh nodes gives, by an approximate nearest-neighbour query, a
//! node close to the point; a visibility walk starts from a cell of that node and moves across the
//! facet with the most negative barycentric coordinate until every coordinate is non-negative. The
//! tree holds nodes rather than cell centroids because there are 2 to 6 times fewer of them, which
//! keeps the query in cache; any start near the point serves, since the walk does the rest.
//!
//! The walk can stop at the boundary of a non-convex domain, or cycle in degenerate
//! configurations; then the cells of every node within the longest edge of the mesh are tested,
//! which finds the cell if there is one (a point of a simplex is within the simplex's longest edge
//! of each of its nodes). So `None` means that the point is outside the mesh, never that the
//! search gave up. That search tests every cell within the longest edge, thousands of them in a
//! graded mesh, and almost always fails, since a walk from a nearby cell seldom stops at the
//! boundary for a point inside: [`locate_near`](super::SimplexMesh::locate_near) skips it for the
//! points that callers expect close to their hint and may lie just outside (the feet of
//! characteristics at an inflow or a sliding wall).
//!
//! [`locate_many`](super::SimplexMesh::locate_many) orders a batch of points along a Morton
//! (Z-order) curve and walks from each answer to the next, which touches memory in order.

use super::morton::Morton;
use super::{SimplexMesh, NONE};
use crate::math::{barycentric, Point};
use kiddo::{ImmutableKdTree, SquaredEuclidean};
use rayon::prelude::*;

/// Barycentric coordinates below `-TOLERANCE` place a point outside a cell.
const TOLERANCE: f64 = 1e-10;
/// A walk from a caller's hint gives up after this many steps and asks the tree.
const HINT_STEPS: usize = 32;
/// Points per independent chunk in [`Locator::locate_many`] (fixed, so that results do not depend on
/// the number of threads).
const CHUNK: usize = 4096;

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
    /// The longest edge of the mesh, squared (slightly enlarged against round-off).
    reach_sq: f64,
    /// Keys over the nodes' bounding box.
    morton: Morton<D>,
}

impl<const D: usize> Locator<D> {
    pub(super) fn new(mesh: &SimplexMesh<D>) -> Self {
        let nodes: Vec<[f64; D]> = mesh.points().iter().map(|p| (*p).into()).collect();
        let reach_sq = (0..mesh.num_cells() as u32)
            .into_par_iter()
            .map(|c| {
                let p = mesh.cell_points(c);
                let mut longest: f64 = 0.0;
                for i in 0..=D {
                    for j in i + 1..=D {
                        longest = longest.max((p[i] - p[j]).norm_squared());
                    }
                }
                longest
            })
            .reduce(|| 0.0, f64::max);
        let tree = ImmutableKdTree::new_from_slice(&nodes).expect("a valid mesh has finite nodes");
        let (lo, hi) = mesh.bounding_box();
        Locator {
            tree,
            reach_sq: reach_sq * (1.0 + 1e-9),
            morton: Morton::new(lo, hi),
        }
    }

    pub(super) fn locate(&self, mesh: &SimplexMesh<D>, x: &Point<D>) -> Option<CellPoint> {
        let key: [f64; D] = (*x).into();
        let node = self
            .tree
            .query(&key)
            .nearest_one::<SquaredEuclidean<f64>>()
            .approx()
            .execute()
            .item;
        let start = mesh.cells_of_node(node)[0];
        match walk(mesh, x, start, usize::MAX) {
            Walk::Found(found) => Some(found),
            Walk::Left | Walk::Stopped => self.search(mesh, x),
        }
    }

    pub(super) fn locate_from(&self, mesh: &SimplexMesh<D>, x: &Point<D>, hint: u32) -> Option<CellPoint> {
        if (hint as usize) < mesh.num_cells() {
            if let Walk::Found(found) = walk(mesh, x, hint, HINT_STEPS) {
                return Some(found);
            }
        }
        self.locate(mesh, x)
    }

    pub(super) fn locate_near(&self, mesh: &SimplexMesh<D>, x: &Point<D>, hint: u32) -> Option<CellPoint> {
        if (hint as usize) >= mesh.num_cells() {
            return self.locate(mesh, x);
        }
        match walk(mesh, x, hint, HINT_STEPS) {
            Walk::Found(found) => Some(found),
            Walk::Left => None,
            Walk::Stopped => self.locate(mesh, x),
        }
    }

    pub(super) fn locate_many(&self, mesh: &SimplexMesh<D>, xs: &[Point<D>]) -> Vec<Option<CellPoint>> {
        let mut order: Vec<(u64, u32)> = xs
            .par_iter()
            .enumerate()
            .map(|(i, x)| (self.morton.key(x), i as u32))
            .collect();
        order.par_sort_unstable();
        let located: Vec<(u32, Option<CellPoint>)> = order
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                let mut hint = NONE;
                chunk.iter().map(move |&(_, i)| {
                    let found = self.locate_from(mesh, &xs[i as usize], hint);
                    if let Some(f) = found {
                        hint = f.cell;
                    }
                    (i, found)
                })
            })
            .collect();
        let mut out = vec![None; xs.len()];
        for (i, found) in located {
            out[i as usize] = found;
        }
        out
    }

    /// Tests the cells of every node within reach of `x`.
    fn search(&self, mesh: &SimplexMesh<D>, x: &Point<D>) -> Option<CellPoint> {
        let key: [f64; D] = (*x).into();
        self.tree
            .query(&key)
            .within::<SquaredEuclidean<f64>>(self.reach_sq)
            .unsorted()
            .execute()
            .into_iter()
            .flat_map(|hit| mesh.cells_of_node(hit.item).iter().copied())
            .find_map(|cell| {
                let weights = barycentric(&mesh.cell_points(cell)[..D + 1], x);
                inside::<D>(&weights).then_some(CellPoint { cell, weights })
            })
    }
}

/// How a walk ended.
enum Walk {
    /// In this cell.
    Found(CellPoint),
    /// Across a boundary facet: outside the mesh if it is convex.
    Left,
    /// At the step limit.
    Stopped,
}

/// Visibility walk from `start`, of at most `limit` steps (and never more than a bound that grows
/// with the mesh, against cycles).
fn walk<const D: usize>(mesh: &SimplexMesh<D>, x: &Point<D>, start: u32, limit: usize) -> Walk {
    let mut cell = start;
    let max_steps = limit.min(64 + 4 * (mesh.num_cells() as f64).powf(1.0 / D as f64) as usize);
    for _ in 0..max_steps {
        let weights = barycentric(&mesh.cell_points(cell)[..D + 1], x);
        let (k, &min) = weights[..D + 1]
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .expect("a cell has D + 1 nodes");
        if min >= -TOLERANCE {
            return Walk::Found(CellPoint { cell, weights });
        }
        let next = mesh.neighbour(cell, k);
        if next == NONE {
            return Walk::Left;
        }
        cell = next;
    }
    Walk::Stopped
}

fn inside<const D: usize>(weights: &[f64; 4]) -> bool {
    weights[..D + 1].iter().all(|&w| w >= -TOLERANCE)
}
