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

use super::{gather, MeshError, MeshParts, SimplexMesh, NONE};
use crate::math::{self, Point};
use cursor::{Cursor, Mark};
use parse::{Raw, RawElement};
use rayon::prelude::*;
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

/// What reading a file changed on the way, for the user to be told.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadNotes {
    /// Cells whose nodes were clockwise (2D) or left-handed (3D) in the file and were reordered
    /// (Gmsh writes the cells of a surface meshed from a clockwise curve loop clockwise).
    pub reoriented_cells: usize,
}

/// Reads a `.msh` file whose dimension is not known in advance.
pub fn read(path: impl AsRef<Path>) -> Result<AnyMesh, MeshError> {
    read_noted(path).map(|(mesh, _)| mesh)
}

/// [`read`], and what it changed on the way.
pub fn read_noted(path: impl AsRef<Path>) -> Result<(AnyMesh, ReadNotes), MeshError> {
    let path = path.as_ref();
    parse_bytes_noted(&file_bytes(path)?, path)
}

/// Reads a `.msh` file that must hold a mesh of dimension `D`.
pub fn read_dim<const D: usize>(path: impl AsRef<Path>) -> Result<SimplexMesh<D>, MeshError> {
    read_dim_noted(path).map(|(mesh, _)| mesh)
}

/// [`read_dim`], and what it changed on the way.
pub fn read_dim_noted<const D: usize>(path: impl AsRef<Path>) -> Result<(SimplexMesh<D>, ReadNotes), MeshError> {
    let path = path.as_ref();
    let data = file_bytes(path)?;
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
    build(raw, &data, path)
}

/// Parses the bytes of a `.msh` file; `path` is used in error messages only.
pub fn parse_bytes(data: &[u8], path: &Path) -> Result<AnyMesh, MeshError> {
    parse_bytes_noted(data, path).map(|(mesh, _)| mesh)
}

/// [`parse_bytes`], and what it changed on the way.
pub fn parse_bytes_noted(data: &[u8], path: &Path) -> Result<(AnyMesh, ReadNotes), MeshError> {
    let raw = parse::parse(&mut Cursor::new(data, path))?;
    Ok(match mesh_dimension(&raw, path)? {
        2 => build(raw, data, path).map(|(m, notes)| (AnyMesh::D2(m), notes))?,
        _ => build(raw, data, path).map(|(m, notes)| (AnyMesh::D3(m), notes))?,
    })
}

fn file_bytes(path: &Path) -> Result<Vec<u8>, MeshError> {
    std::fs::read(path).map_err(|cause| MeshError::Io {
        path: path.to_path_buf(),
        cause,
    })
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

/// Node indices by Gmsh tag: a table when the tags are dense (Gmsh numbers nodes 1 to N), a hash
/// map otherwise.
enum TagIndex {
    Dense(Vec<u32>),
    Sparse(HashMap<u64, u32>),
}

impl TagIndex {
    /// The index of every tag, or the position of the first tag defined twice.
    fn new(tags: &[u64]) -> Result<Self, usize> {
        let max = tags.iter().copied().max().unwrap_or(0);
        if max <= 2 * tags.len() as u64 + 1024 {
            let mut table = vec![NONE; max as usize + 1];
            for (i, &tag) in tags.iter().enumerate() {
                if std::mem::replace(&mut table[tag as usize], i as u32) != NONE {
                    return Err(i);
                }
            }
            Ok(TagIndex::Dense(table))
        } else {
            let mut map = HashMap::with_capacity(tags.len());
            for (i, &tag) in tags.iter().enumerate() {
                if map.insert(tag, i as u32).is_some() {
                    return Err(i);
                }
            }
            Ok(TagIndex::Sparse(map))
        }
    }

    fn get(&self, tag: u64) -> Option<u32> {
        match self {
            TagIndex::Dense(table) => table.get(tag as usize).copied().filter(|&i| i != NONE),
            TagIndex::Sparse(map) => map.get(&tag).copied(),
        }
    }
}

/// Builds the mesh of dimension `D` from the raw tables (reorienting clockwise cells), naming
/// elements and lines in errors; `data` is the file, read again only to number the line of an
/// error.
fn build<const D: usize>(raw: Raw, data: &[u8], path: &Path) -> Result<(SimplexMesh<D>, ReadNotes), MeshError> {
    let in_file = |e: MeshError| MeshError::InFile {
        path: path.to_path_buf(),
        cause: Box::new(e),
    };
    let at = |mark: Mark, message| MeshError::Parse {
        path: path.to_path_buf(),
        location: mark.locate(data),
        message,
    };
    let index_of_tag = TagIndex::new(&raw.node_tags).map_err(|i| {
        at(
            raw.node_marks[i],
            format!("node tag {} is defined twice in $Nodes", raw.node_tags[i]),
        )
    })?;
    let undefined = |e: &RawElement, tag: u64| {
        at(
            e.mark,
            format!("element {} refers to node {tag}, which $Nodes does not define", e.tag),
        )
    };
    // Nodes used by cells, renumbered in the file's order; `kept` maps them back to the file's.
    let mut new_index = vec![NONE; raw.node_tags.len()];
    for e in raw.elements.iter().filter(|e| e.dim as usize == D) {
        for &tag in &e.nodes[..D + 1] {
            let i = index_of_tag.get(tag).ok_or_else(|| undefined(e, tag))?;
            new_index[i as usize] = 0;
        }
    }
    let (mut points, mut kept) = (Vec::new(), Vec::new());
    let z0 = raw.coords.first().map_or(0.0, |c| c[2]);
    for (i, c) in raw.coords.iter().enumerate() {
        if new_index[i] == NONE {
            continue;
        }
        if D == 2 && (c[2] - z0).abs() > 1e-12 * (1.0 + z0.abs()) {
            return Err(at(
                raw.node_marks[i],
                format!(
                    "node {} has z = {} but the first node z = {z0}: a 2D mesh must lie in a plane z = const",
                    raw.node_tags[i], c[2]
                ),
            ));
        }
        new_index[i] = points.len() as u32;
        points.push(Point::<D>::from_fn(|a, _| c[a]));
        kept.push(i as u32);
    }

    // Cells and marked facets, each with the element it came from.
    let (mut cells, mut cell_markers, mut cell_element) = (Vec::new(), Vec::new(), Vec::new());
    let (mut facets, mut facet_markers, mut facet_element) = (Vec::new(), Vec::new(), Vec::new());
    for (k, e) in raw.elements.iter().enumerate() {
        let physical = &raw.groups[e.group as usize];
        if e.dim as usize == D {
            for &tag in &e.nodes[..D + 1] {
                cells.push(new_index[index_of_tag.get(tag).ok_or_else(|| undefined(e, tag))? as usize]);
            }
            cell_markers.push(physical.first().copied().unwrap_or(0));
            cell_element.push(k as u32);
        } else if e.dim as usize == D - 1 && !physical.is_empty() {
            let mut facet = [0u32; D];
            for (f, &tag) in facet.iter_mut().zip(&e.nodes[..D]) {
                *f = new_index[index_of_tag.get(tag).ok_or_else(|| undefined(e, tag))? as usize];
                if *f == NONE {
                    return Err(at(
                        e.mark,
                        format!("element {} (a facet) uses node {tag}, which belongs to no cell", e.tag),
                    ));
                }
            }
            for &m in physical {
                facets.push(facet);
                facet_markers.push(m);
                facet_element.push(k as u32);
            }
        }
    }
    let notes = ReadNotes {
        reoriented_cells: reorient::<D>(&points, &mut cells),
    };
    let (mut facet_names, mut cell_names) = (BTreeMap::new(), BTreeMap::new());
    for (dim, tag, name, mark) in &raw.names {
        let (table, used) = match *dim as usize {
            d if d == D => (&mut cell_names, cell_markers.contains(tag)),
            d if d + 1 == D => (&mut facet_names, facet_markers.contains(tag)),
            _ => continue,
        };
        if !used {
            return Err(at(
                *mark,
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
    let origin = |k: u32| {
        let e = &raw.elements[k as usize];
        format!(" (element {}, {})", e.tag, e.mark.locate(data))
    };
    let mesh = SimplexMesh::new(parts).map_err(|e| match e {
        MeshError::Cell { cell, message, .. } => in_file(MeshError::Cell {
            cell,
            origin: origin(cell_element[cell as usize]),
            message,
        }),
        MeshError::Facet {
            facet, marker, message, ..
        } => in_file(MeshError::Facet {
            facet,
            marker,
            origin: origin(facet_element[facet as usize]),
            message,
        }),
        MeshError::Node { node, message } => {
            let i = kept[node as usize] as usize;
            at(raw.node_marks[i], format!("node {}: {message}", raw.node_tags[i]))
        }
        other => in_file(other),
    })?;
    Ok((mesh, notes))
}

/// Swaps the first two nodes of every cell of negative measure (clockwise in 2D, left-handed in
/// 3D), so that all cells are positively oriented as [`SimplexMesh`] expects; returns how many.
/// Cells of zero measure are left for the mesh to reject.
fn reorient<const D: usize>(points: &[Point<D>], cells: &mut [u32]) -> usize {
    cells
        .par_chunks_exact_mut(D + 1)
        .map(|cell| {
            let m = math::signed_measure(&gather::<D>(points, cell)[..D + 1]);
            if m < 0.0 {
                cell.swap(0, 1);
                1
            } else {
                0
            }
        })
        .sum()
}
