//! The symbolic part of a mesh, built once: which cells touch each node, and which cell lies across
//! each facet of a cell.

use super::MeshError;
use rayon::prelude::*;

/// "No cell": the neighbour across a boundary facet.
pub const NONE: u32 = u32::MAX;

/// Node → cells in compressed sparse row form, and cell → neighbours.
#[derive(Debug, Clone)]
pub struct Topology {
    /// `node_cells[node_offsets[v]..node_offsets[v + 1]]` are the cells containing node `v`, sorted.
    pub node_offsets: Vec<u32>,
    /// See `node_offsets`.
    pub node_cells: Vec<u32>,
    /// `neighbours[c * (D + 1) + k]` is the cell across the facet of `c` opposite its vertex `k`,
    /// or [`NONE`] on the boundary.
    pub neighbours: Vec<u32>,
}

impl Topology {
    /// Builds the adjacency of `cells` (flat, `nv` vertices each) over `n_points` nodes.
    ///
    /// Node → cells by a counting sort, O(cells). A cell's neighbour across the facet opposite
    /// vertex `k` is the other cell in the intersection of the (sorted) cell lists of that facet's
    /// nodes; the cells are processed in parallel and each writes only its own entries. A facet
    /// shared by three or more cells is an error.
    pub fn build(n_points: usize, cells: &[u32], nv: usize) -> Result<Self, MeshError> {
        let (node_offsets, node_cells) = node_to_cells(n_points, cells, nv);
        let incident = |v: u32| {
            let v = v as usize;
            &node_cells[node_offsets[v] as usize..node_offsets[v + 1] as usize]
        };
        let mut neighbours = vec![NONE; cells.len()];
        neighbours.par_chunks_mut(nv).enumerate().try_for_each(|(c, out)| {
            let cell = &cells[c * nv..(c + 1) * nv];
            for k in 0..nv {
                let (a, b) = (cell[(k + 1) % nv], cell[(k + 2) % nv]);
                let mut found = NONE;
                for other in SortedIntersection::new(incident(a), incident(b)) {
                    if other as usize == c {
                        continue;
                    }
                    let oc = &cells[other as usize * nv..(other as usize + 1) * nv];
                    let shares_face = (3..nv).all(|j| oc.contains(&cell[(k + j) % nv]));
                    if shares_face {
                        if found != NONE {
                            return Err(MeshError::Cell {
                                cell: c as u32,
                                origin: String::new(),
                                message: format!(
                                    "its facet opposite local vertex {k} is shared by cells {found} and {other} too \
                                         (a facet may belong to at most two cells)"
                                ),
                            });
                        }
                        found = other;
                    }
                }
                out[k] = found;
            }
            Ok(())
        })?;
        Ok(Topology {
            node_offsets,
            node_cells,
            neighbours,
        })
    }

    /// The cells containing node `v`, sorted.
    #[inline]
    pub fn cells_of_node(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.node_cells[self.node_offsets[v] as usize..self.node_offsets[v + 1] as usize]
    }
}

/// Counting sort of the cells by node: CSR offsets and cell lists (each list sorted, since cells
/// are visited in order).
fn node_to_cells(n_points: usize, cells: &[u32], nv: usize) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = vec![0u32; n_points + 1];
    for &v in cells {
        offsets[v as usize + 1] += 1;
    }
    for i in 0..n_points {
        offsets[i + 1] += offsets[i];
    }
    let mut fill: Vec<u32> = offsets[..n_points].to_vec();
    let mut node_cells = vec![0u32; cells.len()];
    for (c, cell) in cells.chunks_exact(nv).enumerate() {
        for &v in cell {
            let slot = &mut fill[v as usize];
            node_cells[*slot as usize] = c as u32;
            *slot += 1;
        }
    }
    (offsets, node_cells)
}

/// The common elements of two sorted lists, in order.
struct SortedIntersection<'a> {
    a: &'a [u32],
    b: &'a [u32],
}

impl<'a> SortedIntersection<'a> {
    fn new(a: &'a [u32], b: &'a [u32]) -> Self {
        SortedIntersection { a, b }
    }
}

impl Iterator for SortedIntersection<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        while let (Some(&x), Some(&y)) = (self.a.first(), self.b.first()) {
            match x.cmp(&y) {
                std::cmp::Ordering::Less => self.a = &self.a[1..],
                std::cmp::Ordering::Greater => self.b = &self.b[1..],
                std::cmp::Ordering::Equal => {
                    self.a = &self.a[1..];
                    self.b = &self.b[1..];
                    return Some(x);
                }
            }
        }
        None
    }
}
