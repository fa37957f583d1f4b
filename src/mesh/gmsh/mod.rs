//! Reading Gmsh `.msh` files: versions 4.1 (ASCII and binary) and 2.2 (ASCII).
//!
//! Physical groups become markers, with their names from `$PhysicalNames`: the groups of the mesh's
//! dimension mark cells, those one dimension lower mark facets (an element in several groups is a
//! facet once per group; facets in no group are dropped, since the boundary is derived anyway).
//! Lower-dimensional elements (points, and lines in 3D) are ignored. The dimension of the mesh is
//! that of its highest elements; a 2D mesh must lie in a plane z = const. Only nodes used by cells
//! are kept, in the file's order.
//!
//! Every error names the file and the line (or, in binary sections, the byte offset) and says what
//! was expected; no input makes the reader panic (a property test feeds it corrupted files).
//!
//! The reader is written here rather than taken from `mshio`, which reads neither version 2.2 nor
//! `$PhysicalNames` and reports errors without positions.

mod cursor;
mod parse;

use super::{Location, MeshError, MeshParts, SimplexMesh, NONE};
use crate::math::Point;
use cursor::Cursor;
use parse::Raw;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// A mesh of the dimension found in the file.
#[derive(Debug)]
pub enum AnyMesh {
    /// Triangles.
    D2(SimplexMesh<2>),
    /// Tetrahedra.
    D3(SimplexMesh<3>),
}

/// Reads a `.msh` file whose dimension is not known in advance.
pub fn read(path: impl AsRef<Path>) -> Result<AnyMesh, MeshError> {
    let path = path.as_ref();
    let data = std::fs::read(path).map_err(|cause| MeshError::Io {
        path: path.to_path_buf(),
        cause,
    })?;
    parse_bytes(&data, path)
}

/// Reads a `.msh` file that must hold a mesh of dimension `D`.
pub fn read_dim<const D: usize>(path: impl AsRef<Path>) -> Result<SimplexMesh<D>, MeshError> {
    let path = path.as_ref();
    let data = std::fs::read(path).map_err(|cause| MeshError::Io {
        path: path.to_path_buf(),
        cause,
    })?;
    let raw = parse::parse(&mut Cursor::new(&data, path))?;
    let dim = mesh_dimension(&raw, path)?;
    if dim != D {
        return Err(MeshError::InFile {
            path: path.to_path_buf(),
            cause: Box::new(MeshError::Invalid(format!(
                "expected a {D}D mesh, the file holds a {dim}D mesh"
            ))),
        });
    }
    build(raw, path)
}

/// Parses the bytes of a `.msh` file; `path` is used in error messages only.
pub fn parse_bytes(data: &[u8], path: &Path) -> Result<AnyMesh, MeshError> {
    let raw = parse::parse(&mut Cursor::new(data, path))?;
    match mesh_dimension(&raw, path)? {
        2 => Ok(AnyMesh::D2(build(raw, path)?)),
        _ => Ok(AnyMesh::D3(build(raw, path)?)),
    }
}

fn mesh_dimension(raw: &Raw, path: &Path) -> Result<usize, MeshError> {
    match raw.elements.iter().map(|e| e.dim).max() {
        Some(d @ (2 | 3)) => Ok(d as usize),
        _ => Err(MeshError::InFile {
            path: path.to_path_buf(),
            cause: Box::new(MeshError::Invalid(
                "the file has no triangles or tetrahedra: expected a 2D or 3D mesh".into(),
            )),
        }),
    }
}

fn describe(tag: u64, location: Location) -> String {
    format!(" (element {tag}, {location})")
}

/// Builds the mesh of dimension `D` from the raw tables, naming elements and lines in errors.
fn build<const D: usize>(raw: Raw, path: &Path) -> Result<SimplexMesh<D>, MeshError> {
    let in_file = |e: MeshError| MeshError::InFile {
        path: path.to_path_buf(),
        cause: Box::new(e),
    };
    let parse_error = |location, message| MeshError::Parse {
        path: path.to_path_buf(),
        location,
        message,
    };
    let mut index_of_tag: HashMap<u64, u32> = HashMap::with_capacity(raw.node_tags.len());
    for (i, &tag) in raw.node_tags.iter().enumerate() {
        if index_of_tag.insert(tag, i as u32).is_some() {
            return Err(in_file(MeshError::Invalid(format!(
                "node tag {tag} is defined twice in $Nodes"
            ))));
        }
    }
    // Nodes used by cells, renumbered in the file's order.
    let mut new_index = vec![NONE; raw.node_tags.len()];
    for e in raw.elements.iter().filter(|e| e.dim as usize == D) {
        for &tag in &e.nodes[..D + 1] {
            let &i = index_of_tag.get(&tag).ok_or_else(|| {
                parse_error(
                    e.location,
                    format!("element {} refers to node {tag}, which $Nodes does not define", e.tag),
                )
            })?;
            new_index[i as usize] = 0;
        }
    }
    let mut points = Vec::new();
    let z0 = raw.coords.first().map_or(0.0, |c| c[2]);
    for (i, c) in raw.coords.iter().enumerate() {
        if new_index[i] == NONE {
            continue;
        }
        if D == 2 && (c[2] - z0).abs() > 1e-12 * (1.0 + z0.abs()) {
            return Err(in_file(MeshError::Invalid(format!(
                "node {} has z = {} but the first node z = {z0}: a 2D mesh must lie in a plane z = const",
                raw.node_tags[i], c[2]
            ))));
        }
        new_index[i] = points.len() as u32;
        points.push(Point::<D>::from_fn(|a, _| c[a]));
    }
    let node = |tag: u64| new_index[index_of_tag[&tag] as usize];

    let (mut cells, mut cell_markers, mut cell_origin) = (Vec::new(), Vec::new(), Vec::new());
    let (mut facets, mut facet_markers, mut facet_origin) = (Vec::new(), Vec::new(), Vec::new());
    for e in &raw.elements {
        let physical = &raw.groups[e.group as usize];
        if e.dim as usize == D {
            cells.extend(e.nodes[..D + 1].iter().map(|&t| node(t)));
            cell_markers.push(physical.first().copied().unwrap_or(0));
            cell_origin.push(describe(e.tag, e.location));
        } else if e.dim as usize == D - 1 && !physical.is_empty() {
            let mut facet = [0u32; D];
            for (f, &tag) in facet.iter_mut().zip(&e.nodes[..D]) {
                let i = index_of_tag.get(&tag).ok_or_else(|| {
                    parse_error(
                        e.location,
                        format!("element {} refers to node {tag}, which $Nodes does not define", e.tag),
                    )
                })?;
                *f = new_index[*i as usize];
                if *f == NONE {
                    return Err(parse_error(
                        e.location,
                        format!("element {} (a facet) uses node {tag}, which belongs to no cell", e.tag),
                    ));
                }
            }
            for &m in physical {
                facets.push(facet);
                facet_markers.push(m);
                facet_origin.push(describe(e.tag, e.location));
            }
        }
    }
    let (mut facet_names, mut cell_names) = (BTreeMap::new(), BTreeMap::new());
    for (dim, tag, name, location) in &raw.names {
        let (table, used) = match *dim as usize {
            d if d == D => (&mut cell_names, cell_markers.contains(tag)),
            d if d + 1 == D => (&mut facet_names, facet_markers.contains(tag)),
            _ => continue,
        };
        if !used {
            return Err(parse_error(
                *location,
                format!("physical group '{name}' (dimension {dim}, tag {tag}) has no elements"),
            ));
        }
        table.insert(*tag, name.clone());
    }
    let parts = MeshParts {
        points,
        cells,
        cell_markers,
        facets,
        facet_markers,
        facet_names,
        cell_names,
    };
    SimplexMesh::new(parts).map_err(|e| {
        in_file(match e {
            MeshError::Cell { cell, message, .. } => MeshError::Cell {
                cell,
                origin: cell_origin[cell as usize].clone(),
                message,
            },
            MeshError::Facet {
                facet, marker, message, ..
            } => MeshError::Facet {
                facet,
                marker,
                origin: facet_origin[facet as usize].clone(),
                message,
            },
            other => other,
        })
    })
}
