//! The Taylor–Hood spaces on a simplicial mesh: P2 for each velocity component (a degree of
//! freedom at every vertex and every edge midpoint) and P1 for the pressure (the vertices).
//!
//! On a cell with barycentric coordinates `λ_0 … λ_D`, the P2 basis is `λ_i (2 λ_i − 1)` at vertex
//! `i` and `4 λ_i λ_j` at the midpoint of edge `(i, j)`, with gradients `(4 λ_i − 1) ∇λ_i` and
//! `4 (λ_i ∇λ_j + λ_j ∇λ_i)`. The local order is the cell's vertices, then its edges in the order
//! of [`EDGES`].
//!
//! Cells are straight (affine) unless [`P2Space::curve_boundary`] moved the midpoints of some
//! boundary edges onto the true boundary: cells with such an edge are *isoparametric*, mapped from
//! their straight cell `x̂` by the P2 map `x = Σ_k X_k φ_k(x̂)` through their six (ten) nodes `X_k`.
//! With `G_k = ∇_x̂ φ_k` the straight cell's gradients, the map's Jacobian is `F = Σ_k X_k G_kᵀ`,
//! the true gradients are `∇φ_k = F⁻ᵀ G_k` and volume elements scale by `det F`
//! ([`CellMap::at`]). The pressure (P1) basis is linear in `x̂`. This removes the `O(h²)` error of
//! a polygonal boundary, which otherwise caps the accuracy of forces on curved obstacles.

use crate::linalg::Csr;
use crate::math::Periodicity;
use crate::math::{self, Point, Vector};
use crate::mesh::periodic::NodeImages;
use crate::mesh::{MeshError, SimplexMesh};
use std::collections::HashMap;

/// The local edges of a triangle (first 3) or a tetrahedron (all 6), as pairs of local vertices.
pub const EDGES: [(usize, usize); 6] = [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3)];

/// Number of P2 basis functions on a `D`-simplex.
pub const fn p2_count(d: usize) -> usize {
    (d + 1) * (d + 2) / 2
}

/// The P2 degrees of freedom of a mesh.
#[derive(Debug, Clone)]
pub struct P2Space<const D: usize> {
    /// The vertex dofs (P2 dofs `0 .. vertices`, the P1 pressure's dofs): the mesh's nodes, those
    /// a periodic direction identifies counted once.
    pub vertices: usize,
    /// The edges as sorted pairs of vertex dofs (P2 dof `vertices + e` is the midpoint of edge `e`).
    pub edges: Vec<[u32; 2]>,
    /// Each cell's P2 dofs, `p2_count(D)` per cell: its vertices then its edges.
    pub cell_dofs: Vec<u32>,
    edge_index: HashMap<[u32; 2], u32>,
    /// The vertex dof of each mesh node (the node itself without a periodic direction).
    vertex_dof: Vec<u32>,
    /// The position of every dof: vertices, then the edges' midpoints, moved onto the true
    /// boundary where [`curve_boundary`](Self::curve_boundary) curved it; in the periodic cell.
    nodes: Vec<Point<D>>,
    /// The periodic directions.
    period: Periodicity<D>,
    /// Whether each cell is curved (isoparametric).
    curved: Vec<bool>,
}

impl<const D: usize> P2Space<D> {
    /// The P2 space of `mesh`.
    pub fn new(mesh: &SimplexMesh<D>) -> Self {
        Self::periodic(mesh, &NodeImages::none(mesh))
    }

    /// The P2 space of `mesh` with its nodes identified across periodic faces (`images`,
    /// [`crate::mesh::periodic`]): a vertex dof per master node, numbered in the nodes' order, an
    /// edge dof per edge up to the periods (an edge and its image, their ends each other's
    /// images, are one); each dof placed in the periodic cell. A function of this space is
    /// periodic, and assembling over the cells sums each identified dof's rows, as on the
    /// torus. Without a periodic direction the vertex dofs are the nodes, in their order.
    pub fn periodic(mesh: &SimplexMesh<D>, images: &NodeImages<D>) -> Self {
        let nv = D + 1;
        let ne = nv * D / 2;
        let masters = images.masters();
        let mut vertex_dof = vec![0u32; mesh.num_points()];
        let mut vertices = 0u32;
        for (v, &m) in masters.iter().enumerate() {
            if m as usize == v {
                vertex_dof[v] = vertices;
                vertices += 1;
            }
        }
        for (v, &m) in masters.iter().enumerate() {
            vertex_dof[v] = vertex_dof[m as usize];
        }
        let pair = |x: u32, y: u32| {
            let (a, b) = (vertex_dof[x as usize], vertex_dof[y as usize]);
            [a.min(b), a.max(b)]
        };
        let mut edges: Vec<([u32; 2], [u32; 2])> = Vec::with_capacity(mesh.num_cells() * ne);
        for c in 0..mesh.num_cells() as u32 {
            let cell = mesh.cell(c);
            for &(a, b) in &EDGES[..ne] {
                edges.push((pair(cell[a], cell[b]), [cell[a], cell[b]]));
            }
        }
        // One per dof pair, the first in the order of the pairs and then of the nodes (so that
        // the midpoint is the same whatever the cells' order).
        edges.sort_unstable();
        edges.dedup_by_key(|e| e.0);
        let edge_index: HashMap<[u32; 2], u32> = edges.iter().enumerate().map(|(k, e)| (e.0, k as u32)).collect();
        let mut cell_dofs = Vec::with_capacity(mesh.num_cells() * p2_count(D));
        for c in 0..mesh.num_cells() as u32 {
            let cell = mesh.cell(c);
            cell_dofs.extend(cell.iter().map(|&v| vertex_dof[v as usize]));
            for &(a, b) in &EDGES[..ne] {
                cell_dofs.push(vertices + edge_index[&pair(cell[a], cell[b])]);
            }
        }
        let p = mesh.points();
        let period = *images.period();
        let nodes = masters
            .iter()
            .enumerate()
            .filter(|&(v, &m)| m as usize == v)
            .map(|(v, _)| p[v])
            .chain(
                edges
                    .iter()
                    .map(|(_, [x, y])| period.wrap(&((p[*x as usize] + p[*y as usize]) * 0.5))),
            )
            .collect();
        P2Space {
            vertices: vertices as usize,
            edges: edges.into_iter().map(|e| e.0).collect(),
            cell_dofs,
            edge_index,
            vertex_dof,
            nodes,
            period,
            curved: vec![false; mesh.num_cells()],
        }
    }

    /// The vertex dof (and the pressure's dof) of mesh node `v`.
    pub fn vertex_dof(&self, v: u32) -> u32 {
        self.vertex_dof[v as usize]
    }

    /// The periodic directions.
    pub fn period(&self) -> &Periodicity<D> {
        &self.period
    }

    /// The interpolation of P1 functions (values at the vertices) into this space, an
    /// `n₂ × n₁` matrix: a vertex dof takes its vertex's value, an edge's the mean of its two
    /// ends. The coarse level of the velocity's multigrid ([`crate::linalg::iterative`]).
    pub fn p1_prolongation(&self) -> Csr {
        let mut t: Vec<(u32, u32, f64)> = (0..self.vertices as u32).map(|k| (k, k, 1.0)).collect();
        for (e, &[a, b]) in self.edges.iter().enumerate() {
            let k = (self.vertices + e) as u32;
            t.push((k, a, 0.5));
            t.push((k, b, 0.5));
        }
        Csr::from_triplets(self.len(), self.vertices, t)
    }

    /// Curves the boundary facets carrying any of `markers`: the midpoint of each of their edges
    /// moves to `project(midpoint)`, the closest point of the true boundary (a circle, a sphere…),
    /// and the cells having such an edge become isoparametric. Returns the number of cells
    /// curved. An unknown marker is an error naming it.
    pub fn curve_boundary(
        &mut self,
        mesh: &SimplexMesh<D>,
        markers: &[i32],
        project: impl Fn(&Point<D>) -> Point<D>,
    ) -> Result<usize, MeshError> {
        let moved: Vec<u32> = self
            .boundary_dofs(mesh, markers)?
            .into_iter()
            .filter(|&k| k as usize >= self.vertices)
            .collect();
        let mut is_moved = vec![false; self.len()];
        for &k in &moved {
            self.nodes[k as usize] = project(&self.nodes[k as usize]);
            is_moved[k as usize] = true;
        }
        let n = p2_count(D);
        let mut count = 0;
        for (c, dofs) in self.cell_dofs.chunks_exact(n).enumerate() {
            if !self.curved[c] && dofs.iter().any(|&k| is_moved[k as usize]) {
                self.curved[c] = true;
                count += 1;
            }
        }
        Ok(count)
    }

    /// Whether cell `c` is curved.
    pub fn is_curved(&self, c: u32) -> bool {
        self.curved[c as usize]
    }

    /// The geometry of cell `c`, to evaluate basis functions at quadrature points.
    pub fn cell_map(&self, mesh: &SimplexMesh<D>, c: u32) -> CellMap<D> {
        let p = mesh.cell_points(c);
        let (grad_l, measure) = barycentric_gradients::<D>(&p[..D + 1]);
        let curved = self.curved[c as usize].then(|| {
            let mut x = [Point::<D>::zeros(); 10];
            for (slot, &k) in x.iter_mut().zip(self.dofs(c)) {
                *slot = self.nodes[k as usize];
                if self.period.any() {
                    // The dof's image next to the cell.
                    *slot = p[0] + self.period.nearest(&(*slot - p[0]));
                }
            }
            x
        });
        CellMap {
            vertices: p,
            grad_l,
            measure,
            curved,
        }
    }

    /// Number of P2 dofs.
    pub fn len(&self) -> usize {
        self.vertices + self.edges.len()
    }

    /// Whether the space has no dofs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The P2 dofs of cell `c`.
    pub fn dofs(&self, c: u32) -> &[u32] {
        let n = p2_count(D);
        &self.cell_dofs[c as usize * n..(c as usize + 1) * n]
    }

    /// The P2 dofs sharing a cell with each dof (itself included), ascending, in compressed
    /// rows: dof `k`'s are `list[ptr[k]..ptr[k + 1]]`. Returns `(ptr, list)`.
    pub fn neighbours(&self) -> (Vec<usize>, Vec<u32>) {
        let n = self.len();
        let nb = p2_count(D);
        // The cells of each dof, in compressed rows.
        let mut start = vec![0usize; n + 1];
        for &k in &self.cell_dofs {
            start[k as usize + 1] += 1;
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut cursor = start.clone();
        let mut cells = vec![0u32; self.cell_dofs.len()];
        for (c, dofs) in self.cell_dofs.chunks_exact(nb).enumerate() {
            for &k in dofs {
                cells[cursor[k as usize]] = c as u32;
                cursor[k as usize] += 1;
            }
        }
        let mut ptr = Vec::with_capacity(n + 1);
        let mut list = Vec::with_capacity(self.cell_dofs.len() * 3);
        ptr.push(0);
        let mut around = Vec::new();
        for k in 0..n {
            around.clear();
            for &c in &cells[start[k]..start[k + 1]] {
                around.extend_from_slice(self.dofs(c));
            }
            around.sort_unstable();
            around.dedup();
            list.extend_from_slice(&around);
            ptr.push(list.len());
        }
        (ptr, list)
    }

    /// The position of every P2 dof (vertices, then edge midpoints, on the true boundary where it
    /// is curved).
    pub fn coordinates(&self) -> &[Point<D>] {
        &self.nodes
    }

    /// The P2 dof at the midpoint of the edge between mesh nodes `a` and `b` (either order), if
    /// they share an edge.
    pub fn edge_dof(&self, a: u32, b: u32) -> Option<u32> {
        let (a, b) = (self.vertex_dof(a), self.vertex_dof(b));
        self.edge_index
            .get(&[a.min(b), a.max(b)])
            .map(|&e| self.vertices as u32 + e)
    }

    /// The P2 dofs on the facets carrying any of `markers`, sorted: their vertices and the
    /// midpoints of their edges. An unknown marker is an error naming it.
    pub fn boundary_dofs(&self, mesh: &SimplexMesh<D>, markers: &[i32]) -> Result<Vec<u32>, MeshError> {
        for &m in markers {
            if !mesh.facet_markers().contains(&m) {
                return Err(MeshError::Invalid(format!(
                    "no facet carries marker {}",
                    mesh.facet_marker_label(m)
                )));
            }
        }
        let mut dofs = Vec::new();
        for (f, &m) in mesh.facets().iter().zip(mesh.facet_markers()) {
            if !markers.contains(&m) {
                continue;
            }
            dofs.extend(f.iter().map(|&v| self.vertex_dof(v)));
            for a in 0..D {
                for b in a + 1..D {
                    dofs.extend(self.edge_dof(f[a], f[b]));
                }
            }
        }
        dofs.sort_unstable();
        dofs.dedup();
        Ok(dofs)
    }
}

/// A cell's geometry: its straight cell and, if curved, its P2 nodes.
#[derive(Debug, Clone)]
pub struct CellMap<const D: usize> {
    vertices: [Point<D>; 4],
    grad_l: [Vector<D>; 4],
    measure: f64,
    curved: Option<[Point<D>; 10]>,
}

/// What a quadrature point needs: the point, the P2 values and gradients, the P1 (barycentric)
/// gradients, and the volume element `|det F|` times the straight cell's measure (multiply by the
/// reference weight).
#[derive(Debug, Clone, Copy)]
pub struct Local<const D: usize> {
    /// The physical point.
    pub x: Point<D>,
    /// P2 basis values.
    pub phi: [f64; 10],
    /// P2 basis gradients.
    pub grad: [Vector<D>; 10],
    /// Gradients of the P1 basis `λ_0 … λ_D`.
    pub grad_l: [Vector<D>; 4],
    /// The volume element.
    pub measure: f64,
}

impl<const D: usize> CellMap<D> {
    /// The straight cell's measure.
    pub fn straight_measure(&self) -> f64 {
        self.measure
    }

    /// Whether the cell is curved.
    pub fn is_curved(&self) -> bool {
        self.curved.is_some()
    }

    /// The geometry at barycentric point `l` of the reference cell.
    pub fn at(&self, l: &[f64; 4]) -> Local<D> {
        let phi = p2_values::<D>(l);
        let grad = p2_gradients::<D>(l, &self.grad_l);
        let Some(nodes) = &self.curved else {
            return Local {
                x: (0..=D).map(|k| self.vertices[k] * l[k]).sum(),
                phi,
                grad,
                grad_l: self.grad_l,
                measure: self.measure,
            };
        };
        let n = p2_count(D);
        let mut f = nalgebra::SMatrix::<f64, D, D>::zeros();
        let mut x = Point::<D>::zeros();
        for k in 0..n {
            f += nodes[k] * grad[k].transpose();
            x += nodes[k] * phi[k];
        }
        let det = math::determinant(&f);
        let inv_t = f
            .try_inverse()
            .unwrap_or_else(nalgebra::SMatrix::<f64, D, D>::identity)
            .transpose();
        let mut out = Local {
            x,
            phi,
            grad,
            grad_l: self.grad_l,
            measure: self.measure * det.abs(),
        };
        for g in out.grad.iter_mut().take(n) {
            *g = inv_t * *g;
        }
        for g in out.grad_l.iter_mut().take(D + 1) {
            *g = inv_t * *g;
        }
        out
    }
}

/// The gradients `∇λ_0 … ∇λ_D` of the barycentric coordinates of a simplex (constant on it) and
/// its measure.
pub fn barycentric_gradients<const D: usize>(p: &[Point<D>]) -> ([Vector<D>; 4], f64) {
    let e = math::edge_matrix::<D>(p);
    let measure = math::determinant(&e).abs() / math::factorial(D);
    let inv = e.try_inverse().unwrap_or_else(nalgebra::SMatrix::<f64, D, D>::zeros);
    let mut g = [Vector::<D>::zeros(); 4];
    for k in 0..D {
        g[k + 1] = inv.row(k).transpose();
    }
    g[0] = -(0..D).map(|k| g[k + 1]).sum::<Vector<D>>();
    (g, measure)
}

/// The P2 basis values at barycentric point `l` (local order: vertices, then [`EDGES`]).
pub fn p2_values<const D: usize>(l: &[f64; 4]) -> [f64; 10] {
    let mut v = [0.0; 10];
    for i in 0..=D {
        v[i] = l[i] * (2.0 * l[i] - 1.0);
    }
    for (k, &(i, j)) in EDGES[..(D + 1) * D / 2].iter().enumerate() {
        v[D + 1 + k] = 4.0 * l[i] * l[j];
    }
    v
}

/// The P2 basis gradients at barycentric point `l`, given the barycentric gradients `g`.
pub fn p2_gradients<const D: usize>(l: &[f64; 4], g: &[Vector<D>; 4]) -> [Vector<D>; 10] {
    let mut out = [Vector::<D>::zeros(); 10];
    for i in 0..=D {
        out[i] = g[i] * (4.0 * l[i] - 1.0);
    }
    for (k, &(i, j)) in EDGES[..(D + 1) * D / 2].iter().enumerate() {
        out[D + 1 + k] = (g[j] * l[i] + g[i] * l[j]) * 4.0;
    }
    out
}
