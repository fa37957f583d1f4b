//! A body's boundary as a closed polyline (2D) or triangulated surface (3D) in the body frame: the
//! nodes on which the other bodies' distance fields are evaluated, the facets that are the body's
//! own distance front and its picture in the output, and the node adjacency that groups nodes into
//! contact patches.
//!
//! An analytic shape's surface is the zero level set of the P1 interpolant of its signed distance
//! on a Kuhn lattice ("marching simplices"): on each cell with nodes of both signs, the points where
//! the edges cross zero, `p = a + φ_a/(φ_a − φ_b) (b − a)`, make a segment (2D) or one or two
//! triangles (3D). Crossings are shared by the cells around an edge, so the surface is closed and
//! conforming. Its distance to the true boundary is the P1 interpolation error, `O(h² κ)`.

use crate::math::{self, Point};
use crate::mesh::{Moments, SimplexMesh};
use nalgebra::SMatrix;
use std::collections::HashMap;

/// A closed, outward-oriented polyline or triangulated surface.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface<const D: usize> {
    /// Nodes.
    pub points: Vec<Point<D>>,
    /// Segments (2D) or triangles (3D) indexing `points`, oriented so that
    /// [`math::facet_area_normal`] points out of the body.
    pub facets: Vec<[u32; D]>,
    /// Node adjacency (CSR): the neighbours of node `v` along the facets' edges are
    /// `neighbours[offsets[v]..offsets[v + 1]]`.
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
    /// Each node's share of the surface's length (area): `Σ |f| / D` over the facets `f` around it,
    /// the weight of the node in a quadrature over the surface.
    pub node_areas: Vec<f64>,
}

impl<const D: usize> Surface<D> {
    /// A surface from its nodes and outward-oriented facets.
    pub fn new(points: Vec<Point<D>>, facets: Vec<[u32; D]>) -> Self {
        let n = points.len();
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(facets.len() * D * (D - 1));
        for f in &facets {
            for a in 0..D {
                for b in 0..D {
                    if a != b {
                        pairs.push((f[a], f[b]));
                    }
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut offsets = vec![0u32; n + 1];
        for &(a, _) in &pairs {
            offsets[a as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let neighbours = pairs.into_iter().map(|(_, b)| b).collect();
        let mut node_areas = vec![0.0; n];
        for f in &facets {
            let corners: [Point<D>; D] = std::array::from_fn(|a| points[f[a] as usize]);
            let share = math::facet_area_normal::<D>(&corners).norm() / D as f64;
            for &v in f {
                node_areas[v as usize] += share;
            }
        }
        Surface {
            points,
            facets,
            offsets,
            neighbours,
            node_areas,
        }
    }

    /// The zero level set of the P1 field `phi` (one value per node) on `mesh`, oriented towards
    /// increasing `phi`. Nodes with `phi == 0` count as outside, so no crossing is degenerate.
    pub fn level_set(mesh: &SimplexMesh<D>, phi: &[f64]) -> Self {
        let mut points = Vec::new();
        let mut facets = Vec::new();
        let mut crossing: HashMap<(u32, u32), u32> = HashMap::new();
        let inside = |v: u32| phi[v as usize] < 0.0;
        for c in 0..mesh.num_cells() as u32 {
            let cell = mesh.cell(c);
            let ins: Vec<u32> = cell.iter().copied().filter(|&v| inside(v)).collect();
            let outs: Vec<u32> = cell.iter().copied().filter(|&v| !inside(v)).collect();
            if ins.is_empty() || outs.is_empty() {
                continue;
            }
            let mut node = |a: u32, b: u32| -> u32 {
                *crossing.entry((a, b)).or_insert_with(|| {
                    let (pa, pb) = (mesh.points()[a as usize], mesh.points()[b as usize]);
                    let (fa, fb) = (phi[a as usize], phi[b as usize]);
                    points.push(pa + (pb - pa) * (fa / (fa - fb)));
                    (points.len() - 1) as u32
                })
            };
            // The crossings in cyclic order around the cut: one per inside–outside edge.
            let ring: Vec<u32> = match (ins.len(), outs.len()) {
                (2, 2) => vec![
                    node(ins[0], outs[0]),
                    node(ins[0], outs[1]),
                    node(ins[1], outs[1]),
                    node(ins[1], outs[0]),
                ],
                _ => ins
                    .iter()
                    .flat_map(|&a| outs.iter().map(move |&b| (a, b)))
                    .map(|(a, b)| node(a, b))
                    .collect(),
            };
            let p = mesh.cell_points(c);
            let grad = gradient::<D>(&p[..D + 1], &cell.iter().map(|&v| phi[v as usize]).collect::<Vec<_>>());
            for k in 0..ring.len() + 1 - D {
                let mut f: [u32; D] = std::array::from_fn(|a| if a == 0 { ring[0] } else { ring[k + a] });
                let corners: Vec<Point<D>> = f.iter().map(|&v| points[v as usize]).collect();
                if math::facet_area_normal::<D>(&corners).dot(&grad) < 0.0 {
                    f.swap(0, 1);
                }
                facets.push(f);
            }
        }
        Surface::new(points, facets)
    }

    /// The neighbours of node `v` along the facets' edges.
    pub fn neighbours(&self, v: u32) -> &[u32] {
        &self.neighbours[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }

    /// The facets' corner coordinates.
    pub fn facet_points(&self) -> Vec<[Point<D>; D]> {
        self.facets
            .iter()
            .map(|f| std::array::from_fn(|a| self.points[f[a] as usize]))
            .collect()
    }

    /// The exact moments of the polygon (polyhedron) the surface bounds: the sum over facets `f` of
    /// the signed simplices (cones) `(o, f)` from a fixed apex `o`, whose measure is
    /// `(f_0 − o) · n_f / D` with `n_f` the facet's area normal; each cone contributes like a cell
    /// of [`crate::mesh::Moments`].
    pub fn moments(&self) -> Moments<D> {
        let nv = D + 1;
        let o = self.points.first().copied().unwrap_or_else(Point::<D>::zeros);
        let mut measure = 0.0;
        let mut first = Point::<D>::zeros();
        let mut second = SMatrix::<f64, D, D>::zeros();
        for f in &self.facets {
            let corners: [Point<D>; D] = std::array::from_fn(|a| self.points[f[a] as usize] - o);
            let m = corners[0].dot(&math::facet_area_normal::<D>(&corners)) / D as f64;
            let sum: Point<D> = corners.iter().sum();
            let mut outer = sum * sum.transpose();
            for v in &corners {
                outer += v * v.transpose();
            }
            measure += m;
            first += sum * (m / nv as f64);
            second += outer * (m / (nv * (nv + 1)) as f64);
        }
        let c = if measure != 0.0 { first / measure } else { first };
        Moments {
            measure,
            centroid: c + o,
            second: second - c * c.transpose() * measure,
        }
    }
}

/// The gradient of the linear function with values `u` at the simplex corners `p`.
fn gradient<const D: usize>(p: &[Point<D>], u: &[f64]) -> Point<D> {
    let inv = math::edge_matrix::<D>(p)
        .try_inverse()
        .unwrap_or_else(SMatrix::<f64, D, D>::zeros);
    inv.transpose() * Point::<D>::from_fn(|k, _| u[k + 1] - u[0])
}
