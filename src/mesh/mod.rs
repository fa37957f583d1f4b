//! Simplicial meshes in 2D (triangles) and 3D (tetrahedra): one generic [`SimplexMesh<D>`] shared
//! by the distance fields, the contact and the fluid solver.
//!
//! A mesh is built once from its parts ([`MeshParts`]): nodes, cells, cell markers, and marked
//! facets (boundary or interior, Gmsh's physical groups) with their names. Construction validates
//! the input (finite coordinates, node indices in range, positive cell measures, marked facets that
//! are faces of the mesh) and derives what never changes: node → cells, cell → neighbours, the
//! boundary facets, measures, normals and a quality per cell. Point location builds its k-d tree on
//! first use, and so do the node stars (`star`) that fast marching walks.

mod error;
pub mod generate;
pub mod gmsh;
mod locate;
mod moments;
mod morton;
pub mod periodic;
mod star;
mod topology;

pub use error::{Location, MeshError};
pub use locate::CellPoint;
pub use moments::Moments;
pub use topology::NONE;

use crate::math::{self, Point, Vector};
use locate::Locator;
use rayon::prelude::*;
use star::Stars;
pub use star::{OrderedStars, LINK_POSITIONS};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use topology::Topology;

/// The raw data a mesh is built from.
#[derive(Debug, Clone, Default)]
pub struct MeshParts<const D: usize> {
    /// Node coordinates.
    pub points: Vec<Point<D>>,
    /// Cells, flat: `D + 1` node indices each, positively oriented.
    pub cells: Vec<u32>,
    /// One marker per cell (a Gmsh physical surface or volume; 0 if none).
    pub cell_markers: Vec<i32>,
    /// Marked facets (segments in 2D, triangles in 3D), on the boundary or inside the mesh. A facet
    /// in several groups appears once per group.
    pub facets: Vec<[u32; D]>,
    /// One marker per facet.
    pub facet_markers: Vec<i32>,
    /// Names of facet markers.
    pub facet_names: BTreeMap<i32, String>,
    /// Names of cell markers.
    pub cell_names: BTreeMap<i32, String>,
}

/// A facet of a cell: the one opposite the cell's local vertex `local`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellFace {
    /// The cell.
    pub cell: u32,
    /// The local index (0..=D) of the vertex the facet is opposite to.
    pub local: u8,
}

/// A conforming simplicial mesh of dimension `D` (2 or 3). See the [module docs](self).
#[derive(Debug)]
pub struct SimplexMesh<const D: usize> {
    parts: MeshParts<D>,
    topology: Topology,
    /// The (one or two) cells each marked facet belongs to; the second is [`NONE`] on the boundary.
    facet_cells: Vec<[u32; 2]>,
    /// The cell facets with no neighbour.
    boundary: Vec<CellFace>,
    /// Outward unit normal and measure of each boundary facet.
    boundary_normals: Vec<(Vector<D>, f64)>,
    /// Unit normal (oriented by node order) and measure of each marked facet.
    facet_normals: Vec<(Vector<D>, f64)>,
    cell_measures: Vec<f64>,
    cell_quality: Vec<f64>,
    locator: OnceLock<Locator<D>>,
    stars: OnceLock<Stars>,
    ordered_stars: OnceLock<OrderedStars<D>>,
}

impl<const D: usize> Clone for SimplexMesh<D> {
    /// A copy of the mesh; the point locator and the node stars, built on first use, are built
    /// again by the copy when it needs them.
    fn clone(&self) -> Self {
        SimplexMesh {
            parts: self.parts.clone(),
            topology: self.topology.clone(),
            facet_cells: self.facet_cells.clone(),
            boundary: self.boundary.clone(),
            boundary_normals: self.boundary_normals.clone(),
            facet_normals: self.facet_normals.clone(),
            cell_measures: self.cell_measures.clone(),
            cell_quality: self.cell_quality.clone(),
            locator: OnceLock::new(),
            stars: OnceLock::new(),
            ordered_stars: OnceLock::new(),
        }
    }
}

impl<const D: usize> SimplexMesh<D> {
    /// Number of nodes of a cell.
    pub const NV: usize = D + 1;

    /// Validates `parts` and builds the mesh with its adjacency, measures and quality.
    ///
    /// Errors name the node, cell or facet at fault: a non-finite coordinate, a node index out of
    /// range, a cell with a repeated node or a non-positive measure, a facet shared by more than
    /// two cells, a marked facet that is not a face of any cell.
    pub fn new(parts: MeshParts<D>) -> Result<Self, MeshError> {
        math::assert_dim::<D>();
        let nv = Self::NV;
        let n_points = parts.points.len();
        check_lengths(&parts)?;
        if let Some(v) = parts.points.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
            return Err(MeshError::Node {
                node: v as u32,
                message: format!("coordinates {:?} are not finite", parts.points[v].as_slice()),
            });
        }
        for (c, cell) in parts.cells.chunks_exact(nv).enumerate() {
            check_cell(c, cell, n_points)?;
        }
        let (cell_measures, cell_quality) = cell_geometry::<D>(&parts.points, &parts.cells)?;
        let topology = Topology::build(n_points, &parts.cells, nv)?;
        let boundary: Vec<CellFace> = (0..parts.cells.len())
            .filter(|&i| topology.neighbours[i] == NONE)
            .map(|i| CellFace {
                cell: (i / nv) as u32,
                local: (i % nv) as u8,
            })
            .collect();
        let (boundary_normals, facet_normals) = facet_geometry(&parts, &boundary);
        let mut mesh = SimplexMesh {
            parts,
            topology,
            facet_cells: Vec::new(),
            boundary,
            boundary_normals,
            facet_normals,
            cell_measures,
            cell_quality,
            locator: OnceLock::new(),
            stars: OnceLock::new(),
            ordered_stars: OnceLock::new(),
        };
        mesh.facet_cells = mesh.find_facet_cells()?;
        Ok(mesh)
    }

    /// The same mesh with its nodes at `points` (one per node, in order): a host code's mesh
    /// that moved (ALE) without changing its cells. The topology, the marked facets' cells and the
    /// boundary are kept; the cells' measures and quality and the facets' normals are computed
    /// again. A non-finite coordinate or a cell the move inverted is an error naming it.
    ///
    /// ```
    /// use tumble::math::{Point, Vector};
    /// use tumble::mesh::generate::axis_box;
    /// let mesh = axis_box::<3>(Point::<3>::zeros(), Point::<3>::repeat(1.0), [4, 4, 4])?;
    /// // Translated: the same cells, measures and facet normals.
    /// let shift = Vector::<3>::new(0.5, 0.0, -2.0);
    /// let moved = mesh.with_points(mesh.points().iter().map(|p| p + shift).collect())?;
    /// assert_eq!(moved.cells(), mesh.cells());
    /// let volume: f64 = moved.cell_measures().iter().sum();
    /// assert!((volume - 1.0).abs() < 1e-12);
    /// # Ok::<(), tumble::mesh::MeshError>(())
    /// ```
    pub fn with_points(&self, points: Vec<Point<D>>) -> Result<Self, MeshError> {
        if points.len() != self.num_points() {
            return Err(MeshError::Invalid(format!(
                "{} points given for a mesh of {} nodes",
                points.len(),
                self.num_points()
            )));
        }
        if let Some(v) = points.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
            return Err(MeshError::Node {
                node: v as u32,
                message: format!("coordinates {:?} are not finite", points[v].as_slice()),
            });
        }
        let (cell_measures, cell_quality) = cell_geometry::<D>(&points, &self.parts.cells)?;
        let mut moved = self.clone();
        moved.parts.points = points;
        (moved.boundary_normals, moved.facet_normals) = facet_geometry(&moved.parts, &moved.boundary);
        (moved.cell_measures, moved.cell_quality) = (cell_measures, cell_quality);
        Ok(moved)
    }

    /// For each marked facet, the one or two cells having it as a face.
    fn find_facet_cells(&self) -> Result<Vec<[u32; 2]>, MeshError> {
        self.parts
            .facets
            .par_iter()
            .enumerate()
            .map(|(f, facet)| {
                let mut found = [NONE; 2];
                let mut n = 0;
                for &c in self.topology.cells_of_node(facet[0]) {
                    if facet.iter().all(|v| self.cell(c).contains(v)) {
                        if n < 2 {
                            found[n] = c;
                        }
                        n += 1;
                    }
                }
                let message = if facet.iter().enumerate().any(|(i, v)| facet[..i].contains(v)) {
                    Some(format!("nodes {facet:?} repeat a node"))
                } else if n == 0 {
                    Some(format!("nodes {facet:?} are not the nodes of a face of any cell"))
                } else {
                    None
                };
                match message {
                    Some(message) => Err(MeshError::Facet {
                        facet: f as u32,
                        marker: self.facet_marker_label(self.parts.facet_markers[f]),
                        origin: String::new(),
                        message,
                    }),
                    None => Ok(found),
                }
            })
            .collect()
    }

    /// Node coordinates.
    pub fn points(&self) -> &[Point<D>] {
        &self.parts.points
    }
    /// Number of nodes.
    pub fn num_points(&self) -> usize {
        self.parts.points.len()
    }
    /// Number of cells.
    pub fn num_cells(&self) -> usize {
        self.parts.cells.len() / Self::NV
    }
    /// All cells, flat, `D + 1` nodes each.
    pub fn cells(&self) -> &[u32] {
        &self.parts.cells
    }
    /// The nodes of cell `c`.
    #[inline]
    pub fn cell(&self, c: u32) -> &[u32] {
        let nv = Self::NV;
        &self.parts.cells[c as usize * nv..(c as usize + 1) * nv]
    }
    /// The coordinates of the nodes of cell `c` (the first `D + 1` entries are used).
    #[inline]
    pub fn cell_points(&self, c: u32) -> [Point<D>; 4] {
        gather(&self.parts.points, self.cell(c))
    }
    /// The marker of each cell.
    pub fn cell_markers(&self) -> &[i32] {
        &self.parts.cell_markers
    }
    /// Measure (area or volume) of each cell.
    pub fn cell_measures(&self) -> &[f64] {
        &self.cell_measures
    }
    /// Shape quality of each cell, in `(0, 1]`, 1 for the regular simplex (see [`math::quality`]).
    pub fn cell_quality(&self) -> &[f64] {
        &self.cell_quality
    }
    /// The cell across the facet of `c` opposite its local vertex `k`, or [`NONE`].
    #[inline]
    pub fn neighbour(&self, c: u32, k: usize) -> u32 {
        self.topology.neighbours[c as usize * Self::NV + k]
    }
    /// The cells containing node `v`, sorted.
    #[inline]
    pub fn cells_of_node(&self, v: u32) -> &[u32] {
        self.topology.cells_of_node(v)
    }
    /// The cell facets that have no neighbour.
    pub fn boundary(&self) -> &[CellFace] {
        &self.boundary
    }
    /// The nodes of the facet of cell `face.cell` opposite its local vertex `face.local`, ordered so
    /// that [`math::facet_area_normal`] points away from that vertex (out of the cell).
    pub fn face_nodes(&self, face: CellFace) -> [u32; D] {
        oriented_face(&self.parts.points, self.cell(face.cell), face.local as usize)
    }
    /// Outward area-weighted normal of a cell facet: its length is the facet's measure.
    pub fn face_area_normal(&self, face: CellFace) -> Vector<D> {
        let p = gather::<D>(&self.parts.points, &self.face_nodes(face));
        math::facet_area_normal(&p[..D])
    }
    /// Outward unit normal and measure of each boundary facet, in the order of
    /// [`boundary`](Self::boundary).
    pub fn boundary_normals(&self) -> &[(Vector<D>, f64)] {
        &self.boundary_normals
    }

    /// Marked facets.
    pub fn facets(&self) -> &[[u32; D]] {
        &self.parts.facets
    }
    /// The marker of each marked facet.
    pub fn facet_markers(&self) -> &[i32] {
        &self.parts.facet_markers
    }
    /// The one or two cells each marked facet belongs to ([`NONE`] for the second on the boundary).
    pub fn facet_cells(&self) -> &[[u32; 2]] {
        &self.facet_cells
    }
    /// Area-weighted normal of marked facet `f`, oriented by its node order (see
    /// [`math::facet_area_normal`]); its length is the facet's measure.
    pub fn facet_area_normal(&self, f: u32) -> Vector<D> {
        let (n, measure) = self.facet_normals[f as usize];
        n * measure
    }
    /// Unit normal (oriented by node order) and measure of each marked facet.
    pub fn facet_normals(&self) -> &[(Vector<D>, f64)] {
        &self.facet_normals
    }
    /// Names of the facet markers.
    pub fn facet_names(&self) -> &BTreeMap<i32, String> {
        &self.parts.facet_names
    }
    /// Names of the cell markers.
    pub fn cell_names(&self) -> &BTreeMap<i32, String> {
        &self.parts.cell_names
    }
    /// The facet marker called `name`, or an error listing the names the mesh has.
    pub fn facet_marker(&self, name: &str) -> Result<i32, MeshError> {
        lookup_marker(&self.parts.facet_names, name)
    }
    /// The cell marker called `name`, or an error listing the names the mesh has.
    pub fn cell_marker(&self, name: &str) -> Result<i32, MeshError> {
        lookup_marker(&self.parts.cell_names, name)
    }
    /// Indices of the marked facets carrying `marker`.
    pub fn facets_marked(&self, marker: i32) -> impl Iterator<Item = u32> + '_ {
        (0..self.parts.facets.len() as u32).filter(move |&f| self.parts.facet_markers[f as usize] == marker)
    }
    /// A marker's name, or its number when it has none.
    pub fn facet_marker_label(&self, marker: i32) -> String {
        self.parts
            .facet_names
            .get(&marker)
            .cloned()
            .unwrap_or_else(|| marker.to_string())
    }

    /// The axis-aligned bounding box `(min, max)` of the nodes.
    pub fn bounding_box(&self) -> (Point<D>, Point<D>) {
        let mut lo = Point::<D>::repeat(f64::INFINITY);
        let mut hi = Point::<D>::repeat(f64::NEG_INFINITY);
        for p in &self.parts.points {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
        (lo, hi)
    }

    /// The length of the shortest cell edge, the `h` of a CFL number `|u| Δt / h`: each cell's
    /// `D(D+1)/2` edges measured, `O(cells)`.
    pub fn shortest_edge(&self) -> f64 {
        (0..self.num_cells() as u32)
            .map(|c| {
                let p = self.cell_points(c);
                (0..=D)
                    .flat_map(|a| (a + 1..=D).map(move |b| (a, b)))
                    .map(|(a, b)| (p[a] - p[b]).norm())
                    .fold(f64::INFINITY, f64::min)
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// The cell containing `x` and the barycentric coordinates of `x` in it, or `None` when `x` is
    /// outside the mesh. See [`CellPoint`] and the `locate` module for the method.
    pub fn locate(&self, x: &Point<D>) -> Option<CellPoint> {
        self.locator().locate(self, x)
    }

    /// Like [`locate`](Self::locate), but walking from `hint` first: fast when successive queries
    /// are close to each other (a body's nodes, a particle's path).
    pub fn locate_from(&self, x: &Point<D>, hint: u32) -> Option<CellPoint> {
        self.locator().locate_from(self, x, hint)
    }

    /// Like [`locate_from`](Self::locate_from) for a point within a few cells of `hint`, but
    /// `None` as soon as the walk towards it leaves the mesh through a boundary facet, without
    /// the search among the cells within the longest edge that [`locate`](Self::locate) makes
    /// then (`mesh::locate`). Exact in a convex mesh; in a non-convex one a point reads as outside
    /// when the walk towards it meets a concave stretch of boundary. Cost: the walk's
    /// steps, at most 32, then [`locate`](Self::locate) if it stopped there.
    pub fn locate_near(&self, x: &Point<D>, hint: u32) -> Option<CellPoint> {
        self.locator().locate_near(self, x, hint)
    }

    /// Locates many points at once: [`locate`](Self::locate) for each, in the order of a Morton
    /// curve through them so that each walk starts from the previous answer; in parallel, with
    /// results that do not depend on the number of threads. The answers are in the order of `xs`.
    pub fn locate_many(&self, xs: &[Point<D>]) -> Vec<Option<CellPoint>> {
        self.locator().locate_many(self, xs)
    }

    /// Builds the point-location k-d tree now rather than at the first query.
    pub fn locator_ready(&self) {
        self.locator();
    }

    /// The nodes sharing a cell with `v` (ascending) and, for each, its neighbours in `v`'s link as
    /// bits of their positions (see `mesh::star`); all stars are built at the first call.
    #[inline]
    pub fn star(&self, v: u32) -> (&[u32], &[u64]) {
        self.stars().of(v)
    }

    /// Builds the node stars now rather than at the first [`star`](Self::star).
    pub fn stars_ready(&self) {
        self.stars();
    }

    fn stars(&self) -> &Stars {
        self.stars
            .get_or_init(|| Stars::new(self.num_points(), &self.parts.cells, Self::NV, &self.topology, None))
    }

    /// The nodes renumbered along a Morton curve, with their stars in that numbering, built at the
    /// first call and kept: the fast marching's view of the mesh (see [`OrderedStars`]).
    pub fn ordered_stars(&self) -> &OrderedStars<D> {
        self.ordered_stars.get_or_init(|| {
            OrderedStars::new(
                &self.parts.points,
                &self.parts.cells,
                &self.topology,
                self.bounding_box(),
            )
        })
    }

    fn locator(&self) -> &Locator<D> {
        self.locator.get_or_init(|| Locator::new(self))
    }

    /// Barycentric coordinates of `x` in cell `c` (all `D + 1` of them in the first entries).
    pub fn barycentric(&self, c: u32, x: &Point<D>) -> [f64; 4] {
        math::barycentric(&self.cell_points(c)[..Self::NV], x)
    }
}

/// Coordinates of up to four nodes (the first `nodes.len()` entries are set).
#[inline]
pub(crate) fn gather<const D: usize>(points: &[Point<D>], nodes: &[u32]) -> [Point<D>; 4] {
    let mut out = [Point::<D>::zeros(); 4];
    for (o, &v) in out.iter_mut().zip(nodes) {
        *o = points[v as usize];
    }
    out
}

/// Unit normal and measure of the facet with nodes `facet`.
fn unit_normal<const D: usize>(points: &[Point<D>], facet: &[u32; D]) -> (Vector<D>, f64) {
    let n = math::facet_area_normal(&gather::<D>(points, facet)[..D]);
    let measure = n.norm();
    (if measure > 0.0 { n / measure } else { n }, measure)
}

/// The nodes of the facet of `cell` opposite its local vertex `k`, ordered so that
/// [`math::facet_area_normal`] points away from that vertex.
pub(crate) fn oriented_face<const D: usize>(points: &[Point<D>], cell: &[u32], k: usize) -> [u32; D] {
    let mut nodes = [0u32; D];
    for (j, n) in nodes.iter_mut().enumerate() {
        *n = cell[(k + 1 + j) % (D + 1)];
    }
    let p = gather::<D>(points, &nodes);
    let normal = math::facet_area_normal(&p[..D]);
    if normal.dot(&(points[cell[k] as usize] - p[0])) > 0.0 {
        nodes.swap(0, 1);
    }
    nodes
}

fn lookup_marker(names: &BTreeMap<i32, String>, name: &str) -> Result<i32, MeshError> {
    names
        .iter()
        .find(|(_, n)| n.as_str() == name)
        .map(|(&m, _)| m)
        .ok_or_else(|| MeshError::UnknownMarker {
            name: name.to_string(),
            known: names.values().cloned().collect::<Vec<_>>().join(", "),
        })
}

fn check_lengths<const D: usize>(parts: &MeshParts<D>) -> Result<(), MeshError> {
    let nv = D + 1;
    if parts.cells.len() % nv != 0 {
        return Err(MeshError::Invalid(format!(
            "the cell array has {} entries, not a multiple of {nv}",
            parts.cells.len()
        )));
    }
    if parts.cell_markers.len() * nv != parts.cells.len() {
        return Err(MeshError::Invalid(format!(
            "{} cell markers for {} cells",
            parts.cell_markers.len(),
            parts.cells.len() / nv
        )));
    }
    if parts.facet_markers.len() != parts.facets.len() {
        return Err(MeshError::Invalid(format!(
            "{} facet markers for {} facets",
            parts.facet_markers.len(),
            parts.facets.len()
        )));
    }
    if parts.cells.is_empty() {
        return Err(MeshError::Invalid("the mesh has no cells".into()));
    }
    if parts.points.len() >= NONE as usize {
        return Err(MeshError::Invalid(format!(
            "{} nodes exceed the u32 index range",
            parts.points.len()
        )));
    }
    if let Some((f, facet)) = parts
        .facets
        .iter()
        .enumerate()
        .find(|(_, facet)| facet.iter().any(|&v| v as usize >= parts.points.len()))
    {
        return Err(MeshError::Facet {
            facet: f as u32,
            marker: parts.facet_markers[f].to_string(),
            origin: String::new(),
            message: format!(
                "node index in {facet:?} is out of range (the mesh has {} nodes)",
                parts.points.len()
            ),
        });
    }
    Ok(())
}

fn check_cell(c: usize, cell: &[u32], n_points: usize) -> Result<(), MeshError> {
    let err = |message: String| MeshError::Cell {
        cell: c as u32,
        origin: String::new(),
        message,
    };
    if let Some(&v) = cell.iter().find(|&&v| v as usize >= n_points) {
        return Err(err(format!(
            "node index {v} is out of range (the mesh has {n_points} nodes)"
        )));
    }
    if cell.iter().enumerate().any(|(i, v)| cell[..i].contains(v)) {
        return Err(err(format!("nodes {cell:?} repeat a node")));
    }
    Ok(())
}

/// Each cell's measure and quality; a cell whose measure is not positive is an error naming it.
fn cell_geometry<const D: usize>(points: &[Point<D>], cells: &[u32]) -> Result<(Vec<f64>, Vec<f64>), MeshError> {
    let nv = D + 1;
    let measures: Vec<f64> = cells
        .par_chunks_exact(nv)
        .map(|cell| math::signed_measure(&gather::<D>(points, cell)[..nv]))
        .collect();
    if let Some(c) = measures.iter().position(|&m| m.is_nan() || m <= 0.0) {
        return Err(MeshError::Cell {
            cell: c as u32,
            origin: String::new(),
            message: format!(
                "measure {:e} is not positive (the cell is inverted or degenerate; expected its nodes in \
                 counter-clockwise (2D) or right-handed (3D) order)",
                measures[c]
            ),
        });
    }
    let quality = cells
        .par_chunks_exact(nv)
        .map(|cell| math::quality(&gather::<D>(points, cell)[..nv]))
        .collect();
    Ok((measures, quality))
}

/// The outward unit normal and measure of each boundary face, and the unit normal and measure
/// of each marked facet.
#[allow(clippy::type_complexity)]
fn facet_geometry<const D: usize>(
    parts: &MeshParts<D>,
    boundary: &[CellFace],
) -> (Vec<(Vector<D>, f64)>, Vec<(Vector<D>, f64)>) {
    let nv = D + 1;
    let boundary_normals = boundary
        .par_iter()
        .map(|f| {
            let cell = &parts.cells[f.cell as usize * nv..(f.cell as usize + 1) * nv];
            unit_normal(&parts.points, &oriented_face(&parts.points, cell, f.local as usize))
        })
        .collect();
    let facet_normals = parts.facets.par_iter().map(|f| unit_normal(&parts.points, f)).collect();
    (boundary_normals, facet_normals)
}
