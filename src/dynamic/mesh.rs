//! A mesh of either dimension.

use super::error::{finite, Error};
use crate::math::Point;
use crate::mesh::generate::{axis_box, ball, box_with_balls, Sphere};
use crate::mesh::gmsh::{self, AnyMesh};
use crate::mesh::{MeshParts, SimplexMesh};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// A triangle (2D) or tetrahedral (3D) mesh with its facet and cell tags, shared: a clone is
/// another handle to the same mesh, and what is computed on it keeps it alive.
#[derive(Debug, Clone)]
pub struct Mesh(Arc<AnyMesh>);

impl Mesh {
    /// Reads a Gmsh `.msh` file (2.2 or 4.1, ASCII or binary) of triangles or tetrahedra; its
    /// physical groups become the tags and their names.
    pub fn read_gmsh(path: impl AsRef<Path>) -> Result<Self, Error> {
        Ok(Mesh(Arc::new(gmsh::read(path).map_err(Error::failed)?)))
    }

    /// A mesh of dimension `dim` from flat arrays: `points` (`dim` coordinates per node), `cells`
    /// (`dim + 1` node indices each: counter-clockwise triangles, right-handed tetrahedra),
    /// `cell_tags` (one per cell, or none), `facets` (`dim` node indices each) and `facet_tags`
    /// (one per facet). The mesh is checked whole: a non-finite coordinate, an index out of
    /// range, an inverted cell, a facet on no cell is an error naming it.
    ///
    /// ```
    /// use tumble::dynamic::Mesh;
    /// // The unit square as two triangles, its bottom side tagged 1, the others 2.
    /// let points = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
    /// let facets = [0, 1, 1, 2, 2, 3, 3, 0];
    /// let square = Mesh::from_arrays(2, &points, &[0, 1, 2, 0, 2, 3], None, &facets, &[1, 2, 2, 2])?;
    /// assert_eq!(square.sizes(), (4, 2, 4));
    /// // A clockwise triangle is refused, named.
    /// let e = Mesh::from_arrays(2, &points, &[0, 2, 1, 0, 2, 3], None, &facets, &[1, 2, 2, 2]).unwrap_err();
    /// assert!(e.message.contains("cell 0"));
    /// # Ok::<(), tumble::dynamic::Error>(())
    /// ```
    pub fn from_arrays(
        dim: usize,
        points: &[f64],
        cells: &[u32],
        cell_tags: Option<&[i32]>,
        facets: &[u32],
        facet_tags: &[i32],
    ) -> Result<Self, Error> {
        if dim != 2 && dim != 3 {
            return Err(Error::argument("dim", format!("is {dim}, expected 2 or 3")));
        }
        let multiple = |name: &str, len: usize, per: usize| {
            if len % per == 0 {
                Ok(len / per)
            } else {
                Err(Error::argument(
                    name,
                    format!("has {len} entries, not a multiple of {per}"),
                ))
            }
        };
        multiple("points", points.len(), dim)?;
        let num_cells = multiple("cells", cells.len(), dim + 1)?;
        let num_facets = multiple("facets", facets.len(), dim)?;
        let cell_tags = match cell_tags {
            Some(t) if t.len() != num_cells => {
                return Err(Error::argument(
                    "cell_tags",
                    format!("has {} tags for {num_cells} cells", t.len()),
                ))
            }
            Some(t) => t.to_vec(),
            None => vec![0; num_cells],
        };
        if facet_tags.len() != num_facets {
            return Err(Error::argument(
                "facet_tags",
                format!("has {} tags for {num_facets} facets", facet_tags.len()),
            ));
        }
        fn parts<const D: usize>(
            points: &[f64],
            cells: &[u32],
            cell_markers: Vec<i32>,
            facets: &[u32],
            facet_markers: &[i32],
        ) -> MeshParts<D> {
            MeshParts {
                points: points.chunks_exact(D).map(Point::<D>::from_column_slice).collect(),
                cells: cells.to_vec(),
                cell_markers,
                facets: facets.chunks_exact(D).map(|f| std::array::from_fn(|k| f[k])).collect(),
                facet_markers: facet_markers.to_vec(),
                facet_names: BTreeMap::new(),
                cell_names: BTreeMap::new(),
            }
        }
        let mesh = if dim == 2 {
            AnyMesh::D2(
                SimplexMesh::new(parts::<2>(points, cells, cell_tags, facets, facet_tags)).map_err(Error::failed)?,
            )
        } else {
            AnyMesh::D3(
                SimplexMesh::new(parts::<3>(points, cells, cell_tags, facets, facet_tags)).map_err(Error::failed)?,
            )
        };
        Ok(Mesh(Arc::new(mesh)))
    }

    /// The box `[lower, upper]` (its dimension is their length, 2 or 3) split into `cells[a]`
    /// intervals along axis `a`, its faces tagged 1 to `2 dim` and named `xmin`, `xmax`, `ymin`,
    /// `ymax` (`zmin`, `zmax`).
    ///
    /// ```
    /// use tumble::dynamic::Mesh;
    /// // The unit cube in 2 × 2 × 2 cubes of 6 tetrahedra each.
    /// let cube = Mesh::new_box(&[0.0; 3], &[1.0; 3], &[2, 2, 2])?;
    /// assert_eq!((cube.dim(), cube.sizes().1), (3, 48));
    /// assert_eq!(cube.facet_tag("zmax")?, 6);
    /// # Ok::<(), tumble::dynamic::Error>(())
    /// ```
    pub fn new_box(lower: &[f64], upper: &[f64], cells: &[usize]) -> Result<Self, Error> {
        let dim = box_dimension(lower, upper, cells)?;
        let mesh = if dim == 2 {
            AnyMesh::D2(
                axis_box::<2>(
                    Point::<2>::from_column_slice(lower),
                    Point::<2>::from_column_slice(upper),
                    [cells[0], cells[1]],
                )
                .map_err(Error::failed)?,
            )
        } else {
            AnyMesh::D3(
                axis_box::<3>(
                    Point::<3>::from_column_slice(lower),
                    Point::<3>::from_column_slice(upper),
                    [cells[0], cells[1], cells[2]],
                )
                .map_err(Error::failed)?,
            )
        };
        Ok(Mesh(Arc::new(mesh)))
    }

    /// A disk (2D) or ball (3D) with disks or balls in it, meshed conformingly at element size
    /// `h` by the library's generator: `centres` (`dim` numbers per sphere) and `radii`, the last
    /// the outer sphere. Sphere `k`'s facets are tagged `k + 1` and named `body<k>`, the last
    /// `wall`; the inner spheres' insides are meshed too (cell tag `k + 1`). The spheres must lie
    /// apart and inside the last with a gap of at least one element: a host mesh for trying the
    /// host-mesh mode.
    ///
    /// ```
    /// use tumble::dynamic::Mesh;
    /// // Two disks of radius 0.2 in the unit circle.
    /// let mesh = Mesh::balls(2, &[-0.3, 0.0, 0.3, 0.0, 0.0, 0.0], &[0.2, 0.2, 1.0], 0.05)?;
    /// assert_eq!(mesh.facet_tags(), [1, 2, 3]);
    /// assert_eq!((mesh.facet_tag("body1")?, mesh.facet_tag("wall")?), (2, 3));
    /// // Touching disks leave no room for an element between them.
    /// let e = Mesh::balls(2, &[-0.2, 0.0, 0.2, 0.0, 0.0, 0.0], &[0.2, 0.2, 1.0], 0.05).unwrap_err();
    /// assert!(e.message.starts_with("radii: sphere 0 ('body0') must lie inside sphere 1 ('body1') or apart from it"));
    /// # Ok::<(), tumble::dynamic::Error>(())
    /// ```
    pub fn balls(dim: usize, centres: &[f64], radii: &[f64], h: f64) -> Result<Self, Error> {
        if dim != 2 && dim != 3 {
            return Err(Error::argument("dim", format!("is {dim}, expected 2 or 3")));
        }
        if radii.is_empty() {
            return Err(Error::argument("radii", "is empty: give at least the outer sphere"));
        }
        super::error::length("centres", centres, radii.len() * dim)?;
        finite("centres", centres)?;
        let name = |k: usize| {
            if k + 1 == radii.len() {
                "wall".to_string()
            } else {
                format!("body{k}")
            }
        };
        let refused = |e: crate::mesh::MeshError| Error::argument("radii", e);
        let mesh = if dim == 2 {
            AnyMesh::D2(ball::<2>(&spheres::<2>(centres, radii, name), false, h).map_err(refused)?)
        } else {
            AnyMesh::D3(ball::<3>(&spheres::<3>(centres, radii, name), false, h).map_err(refused)?)
        };
        Ok(Mesh(Arc::new(mesh)))
    }

    /// The same mesh with its nodes at `points` (`dim` coordinates per node, every node): a host
    /// mesh that moved without changing its cells. Cheaper than building it again from arrays:
    /// the topology is kept ([`SimplexMesh::with_points`]).
    ///
    /// ```
    /// use tumble::dynamic::Mesh;
    /// let square = Mesh::new_box(&[0.0, 0.0], &[1.0, 1.0], &[2, 2])?;
    /// // Stretched to [0, 2] × [0, 1]: the same cells at new points.
    /// let points: Vec<f64> = square.points().chunks(2).flat_map(|p| [2.0 * p[0], p[1]]).collect();
    /// let wide = square.with_points(&points)?;
    /// assert_eq!((wide.sizes(), wide.cells()), (square.sizes(), square.cells()));
    /// // Mirrored, every cell would turn inside out: refused, naming the first.
    /// let mirrored: Vec<f64> = square.points().chunks(2).flat_map(|p| [-p[0], p[1]]).collect();
    /// assert!(square.with_points(&mirrored).unwrap_err().message.contains("cell 0"));
    /// # Ok::<(), tumble::dynamic::Error>(())
    /// ```
    pub fn with_points(&self, points: &[f64]) -> Result<Self, Error> {
        let d = self.dim();
        super::error::length("points", points, self.sizes().0 * d)?;
        let moved = match &*self.0 {
            AnyMesh::D2(m) => AnyMesh::D2(
                m.with_points(points.chunks_exact(2).map(Point::<2>::from_column_slice).collect())
                    .map_err(Error::failed)?,
            ),
            AnyMesh::D3(m) => AnyMesh::D3(
                m.with_points(points.chunks_exact(3).map(Point::<3>::from_column_slice).collect())
                    .map_err(Error::failed)?,
            ),
        };
        Ok(Mesh(Arc::new(moved)))
    }

    /// The mesh of either dimension.
    pub fn any(&self) -> &AnyMesh {
        &self.0
    }

    /// 2 or 3.
    pub fn dim(&self) -> usize {
        by_dim!(AnyMesh, &*self.0, _m, D => D)
    }

    /// The numbers of nodes, cells and marked facets.
    pub fn sizes(&self) -> (usize, usize, usize) {
        by_dim!(AnyMesh, &*self.0, m, D => (m.num_points(), m.num_cells(), m.facets().len()))
    }

    /// The node coordinates, `dim` per node.
    pub fn points(&self) -> Vec<f64> {
        by_dim!(AnyMesh, &*self.0, m, D => m.points().iter().flat_map(|p| p.iter().copied()).collect())
    }

    /// The cells' node indices, `dim + 1` per cell.
    pub fn cells(&self) -> &[u32] {
        by_dim!(AnyMesh, &*self.0, m, D => m.cells())
    }

    /// The box `[lower, upper]` split into `cells[a]` intervals along axis `a` (as
    /// [`Self::new_box`]), conforming to the spheres of `centres` (`dim` numbers per sphere) and
    /// `radii` inside it: the bodies' boundaries of a particulate flow in a box, for a host code's
    /// body-fitted mesh. With `holes` the spheres' insides are left out. Sphere `k`'s facets are
    /// tagged `k + 1` and named `body<k>`; the box's sides follow, `s + 1` to `s + 2 dim` for `s`
    /// spheres, named `xmin`, `xmax`, `ymin`, `ymax` (`zmin`, `zmax`). The spheres must lie inside
    /// the box and apart, with gaps of at least one lattice interval.
    ///
    /// ```
    /// use tumble::dynamic::Mesh;
    /// // The specification's section 4.2.3 box with two disks near the floor and each other.
    /// let mesh = Mesh::box_with_balls(&[0.0, 0.0], &[2.0, 2.0], &[200, 200], &[0.85, 0.14, 1.15, 0.14], &[0.125, 0.125], true)?;
    /// assert_eq!(mesh.facet_tags(), [1, 2, 3, 4, 5, 6]);
    /// assert_eq!(mesh.facet_tag("ymin")?, 5);
    /// # Ok::<(), tumble::dynamic::Error>(())
    /// ```
    pub fn box_with_balls(
        lower: &[f64],
        upper: &[f64],
        cells: &[usize],
        centres: &[f64],
        radii: &[f64],
        holes: bool,
    ) -> Result<Self, Error> {
        let dim = box_dimension(lower, upper, cells)?;
        super::error::length("centres", centres, radii.len() * dim)?;
        finite("centres", centres)?;
        let name = |k: usize| format!("body{k}");
        let refused = |e: crate::mesh::MeshError| Error::argument("radii", e);
        let mesh = if dim == 2 {
            AnyMesh::D2(
                box_with_balls::<2>(
                    Point::<2>::from_column_slice(lower),
                    Point::<2>::from_column_slice(upper),
                    [cells[0], cells[1]],
                    &spheres::<2>(centres, radii, name),
                    holes,
                )
                .map_err(refused)?,
            )
        } else {
            AnyMesh::D3(
                box_with_balls::<3>(
                    Point::<3>::from_column_slice(lower),
                    Point::<3>::from_column_slice(upper),
                    [cells[0], cells[1], cells[2]],
                    &spheres::<3>(centres, radii, name),
                    holes,
                )
                .map_err(refused)?,
            )
        };
        Ok(Mesh(Arc::new(mesh)))
    }

    /// The tagged facets: their nodes (`dim` node indices per facet) and each one's tag, as
    /// [`Self::from_arrays`] takes them.
    ///
    /// ```
    /// use tumble::dynamic::Mesh;
    /// // Two disks in the unit circle, made one body: the second disk's facets take the first's tag.
    /// let two = Mesh::balls(2, &[-0.3, 0.0, 0.3, 0.0, 0.0, 0.0], &[0.2, 0.2, 1.0], 0.05)?;
    /// let (facets, tags) = two.facets();
    /// let merged: Vec<i32> = tags.iter().map(|&t| if t == 2 { 1 } else { t }).collect();
    /// let one = Mesh::from_arrays(2, &two.points(), two.cells(), None, facets, &merged)?;
    /// assert_eq!(one.facet_tags(), [1, 3]);
    /// # Ok::<(), tumble::dynamic::Error>(())
    /// ```
    pub fn facets(&self) -> (&[u32], &[i32]) {
        by_dim!(AnyMesh, &*self.0, m, D => (m.facets().as_flattened(), m.facet_markers()))
    }

    /// The facets' distinct tags, in increasing order.
    pub fn facet_tags(&self) -> Vec<i32> {
        let mut tags = by_dim!(AnyMesh, &*self.0, m, D => m.facet_markers().to_vec());
        tags.sort_unstable();
        tags.dedup();
        tags
    }

    /// The tag of the facets named `name`.
    pub fn facet_tag(&self, name: &str) -> Result<i32, Error> {
        by_dim!(AnyMesh, &*self.0, m, D => m.facet_marker(name)).map_err(|e| Error::argument("name", e))
    }
}

/// The spheres of `centres` (`D` numbers each) and `radii`, sphere `k` named `name(k)`.
fn spheres<const D: usize>(centres: &[f64], radii: &[f64], name: impl Fn(usize) -> String) -> Vec<Sphere<D>> {
    centres
        .chunks_exact(D)
        .zip(radii)
        .enumerate()
        .map(|(k, (c, &r))| Sphere::new(Point::<D>::from_column_slice(c), r, &name(k)))
        .collect()
}

/// The dimension of the box `[lower, upper]` in `cells` intervals per axis, its arguments checked:
/// 2 or 3 coordinates each, finite.
fn box_dimension(lower: &[f64], upper: &[f64], cells: &[usize]) -> Result<usize, Error> {
    let dim = lower.len();
    if dim != 2 && dim != 3 {
        return Err(Error::argument(
            "lower",
            format!("has {dim} coordinates, expected 2 or 3"),
        ));
    }
    super::error::length("upper", upper, dim)?;
    if cells.len() != dim {
        return Err(Error::argument(
            "cells",
            format!("has {} counts, expected {dim}", cells.len()),
        ));
    }
    finite("lower", lower)?;
    finite("upper", upper)?;
    Ok(dim)
}
