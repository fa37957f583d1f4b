//! Meshes: read from a Gmsh file or built from flat arrays, of a dimension (2 or 3) known at
//! run time.

use crate::handle::{self, Handle};
use crate::status::{
    copy_if_given, copy_out, count, dimension, guard, put, room, slice, ErrorSlot, Failure, TumbleStatus,
};
use std::ffi::{c_char, CStr};
use tumble::dynamic::Mesh;

/// A triangle (2D) or tetrahedral (3D) mesh with its facet and cell tags. Made by
/// [`tumble_mesh_read_gmsh`], [`tumble_mesh_new`] or [`tumble_mesh_box`], freed by
/// [`tumble_mesh_free`]; what is computed on it (a distance field, a world) keeps what it needs,
/// so it may be freed first.
pub struct TumbleMesh {
    pub(crate) mesh: Mesh,
    error: ErrorSlot,
}

impl Handle for TumbleMesh {
    const KIND: &'static str = "mesh";
    fn error(&self) -> &ErrorSlot {
        &self.error
    }
}

/// `text` as UTF-8.
///
/// # Safety
/// A non-null `text` must be a NUL-terminated string.
pub(crate) unsafe fn text<'a>(text: *const c_char, name: &str) -> Result<&'a str, Failure> {
    if text.is_null() {
        return Err(Failure::new(TumbleStatus::NullPointer, format!("{name} is null")));
    }
    CStr::from_ptr(text)
        .to_str()
        .map_err(|_| Failure::argument(name, "is not valid UTF-8"))
}

/// Hands `mesh` to the caller through `out` (checked not null).
unsafe fn register(mesh: Mesh, out: *mut *mut TumbleMesh) -> Result<(), Failure> {
    out.write(handle::make(TumbleMesh {
        mesh,
        error: ErrorSlot::default(),
    }));
    Ok(())
}

/// Reads a Gmsh `.msh` file (format 2.2 or 4.1, ASCII or binary) of triangles or tetrahedra;
/// its physical groups become the tags (`$PhysicalNames` their names). On success `*out` is a
/// new mesh handle.
///
/// # Safety
/// `path` must be a NUL-terminated string, `out` a writable pointer.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_read_gmsh(path: *const c_char, out: *mut *mut TumbleMesh) -> TumbleStatus {
    guard(None, || {
        put(out, std::ptr::null_mut(), "out")?;
        let path = text(path, "path")?;
        register(Mesh::read_gmsh(path)?, out)
    })
}

/// Builds a mesh of dimension `dim` (2 or 3) from flat arrays: `points` holds `num_points × dim`
/// coordinates; `cells` `num_cells × (dim + 1)` node indices (counter-clockwise triangles,
/// right-handed tetrahedra); `cell_tags` one tag per cell, or null for none; `facets`
/// `num_facets × dim` node indices of the marked boundary (or interior) facets and `facet_tags`
/// their tags. The mesh is checked whole: a non-finite coordinate, an index out of range, an
/// inverted or degenerate cell or a facet on no cell is `TUMBLE_STATUS_FAILED` naming it.
///
/// # Safety
/// Each non-null array must hold the count given; `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_new(
    dim: u32,
    points: *const f64,
    num_points: usize,
    cells: *const u32,
    num_cells: usize,
    cell_tags: *const i32,
    facets: *const u32,
    num_facets: usize,
    facet_tags: *const i32,
    out: *mut *mut TumbleMesh,
) -> TumbleStatus {
    guard(None, || {
        put(out, std::ptr::null_mut(), "out")?;
        let d = dimension(dim)?;
        let points = slice(points, count(num_points, d, "num_points")?, "points")?;
        let cells = slice(cells, count(num_cells, d + 1, "num_cells")?, "cells")?;
        let cell_tags = if cell_tags.is_null() {
            None
        } else {
            Some(slice(cell_tags, num_cells, "cell_tags")?)
        };
        let facets = slice(facets, count(num_facets, d, "num_facets")?, "facets")?;
        let facet_tags = slice(facet_tags, num_facets, "facet_tags")?;
        let mesh = Mesh::from_arrays(d, points, cells, cell_tags, facets, facet_tags)?;
        register(mesh, out)
    })
}

/// The box `[lower, upper]` (`dim` numbers each) split into `cells[a]` intervals along each axis
/// (`dim!` simplices per lattice cell), its faces tagged 1 to `2 dim` and named `xmin`, `xmax`,
/// `ymin`, `ymax` (`zmin`, `zmax`).
///
/// # Safety
/// `lower`, `upper` and `cells` must hold `dim` numbers each, `out` be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_box(
    dim: u32,
    lower: *const f64,
    upper: *const f64,
    cells: *const u32,
    out: *mut *mut TumbleMesh,
) -> TumbleStatus {
    guard(None, || {
        put(out, std::ptr::null_mut(), "out")?;
        let d = dimension(dim)?;
        let given = |ptr: *const f64, name: &str| -> Result<&[f64], Failure> {
            if ptr.is_null() {
                return Err(Failure::new(TumbleStatus::NullPointer, format!("{name} is null")));
            }
            slice(ptr, d, name)
        };
        let (lo, hi) = (given(lower, "lower")?, given(upper, "upper")?);
        if cells.is_null() {
            return Err(Failure::new(TumbleStatus::NullPointer, "cells is null"));
        }
        let n: Vec<usize> = slice(cells, d, "cells")?.iter().map(|&k| k as usize).collect();
        let mesh = Mesh::new_box(lo, hi, &n)?;
        register(mesh, out)
    })
}

/// A disk (2D) or ball (3D) with disks or balls in it, meshed conformingly at element size `h`
/// by the library's generator: `num_spheres` spheres of `centres` (`num_spheres × dim` numbers)
/// and `radii`, the last the outer one. Sphere `k`'s facets are tagged `k + 1` and named
/// `body<k>` (the last `wall`); the inner spheres' insides are meshed too. The spheres must lie
/// apart and inside the last with a gap of at least one element. A host mesh for trying the
/// host-mesh mode.
///
/// # Safety
/// `centres` must hold `num_spheres × dim` numbers, `radii` `num_spheres`, `out` be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_balls(
    dim: u32,
    centres: *const f64,
    radii: *const f64,
    num_spheres: usize,
    h: f64,
    out: *mut *mut TumbleMesh,
) -> TumbleStatus {
    guard(None, || {
        put(out, std::ptr::null_mut(), "out")?;
        let d = dimension(dim)?;
        let centres = slice(centres, count(num_spheres, d, "num_spheres")?, "centres")?;
        let radii = slice(radii, num_spheres, "radii")?;
        register(Mesh::balls(d, centres, radii, h)?, out)
    })
}

/// The box `[lower, upper]` split into `cells[a]` intervals along each axis (as
/// [`tumble_mesh_box`]), conforming to `num_spheres` spheres of `centres` (`num_spheres × dim`
/// numbers) and `radii` inside it; with `holes` non-zero their insides are left out (a host code's
/// body-fitted fluid mesh). Sphere `k`'s facets are tagged `k + 1` (`body<k>`), the box's sides
/// `num_spheres + 1` to `num_spheres + 2 dim` (`xmin`, `xmax`, `ymin`, `ymax`, `zmin`, `zmax`).
/// The spheres must lie inside the box and apart, with gaps of at least one interval.
///
/// # Safety
/// `lower`, `upper` and `cells` must hold `dim` numbers each, `centres` `num_spheres × dim`,
/// `radii` `num_spheres`, `out` be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_box_with_balls(
    dim: u32,
    lower: *const f64,
    upper: *const f64,
    cells: *const u32,
    centres: *const f64,
    radii: *const f64,
    num_spheres: usize,
    holes: i32,
    out: *mut *mut TumbleMesh,
) -> TumbleStatus {
    guard(None, || {
        put(out, std::ptr::null_mut(), "out")?;
        let d = dimension(dim)?;
        let (lo, hi) = (slice(lower, d, "lower")?, slice(upper, d, "upper")?);
        let n: Vec<usize> = slice(cells, d, "cells")?.iter().map(|&k| k as usize).collect();
        let centres = slice(centres, count(num_spheres, d, "num_spheres")?, "centres")?;
        let radii = slice(radii, num_spheres, "radii")?;
        register(Mesh::box_with_balls(lo, hi, &n, centres, radii, holes != 0)?, out)
    })
}

/// A new mesh `*out`: `mesh` with its nodes at `points` (`num_points × dim` coordinates, every
/// node): a host mesh that moved without changing its cells, cheaper than `tumble_mesh_new`
/// (the topology is kept). A cell the move inverted is `TUMBLE_STATUS_FAILED` naming it.
///
/// # Safety
/// `mesh` must be a pointer this library returned, `points` hold `num_points × dim` numbers,
/// `out` be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_with_points(
    mesh: *const TumbleMesh,
    points: *const f64,
    num_points: usize,
    out: *mut *mut TumbleMesh,
) -> TumbleStatus {
    handle::guard_on(mesh, "mesh", |m| {
        put(out, std::ptr::null_mut(), "out")?;
        let n = count(num_points, m.mesh.dim(), "num_points")?;
        let moved = m.mesh.with_points(slice(points, n, "points")?)?;
        register(moved, out)
    })
}

/// Frees a mesh handle (null is a no-op); fields computed on it stay valid.
///
/// # Safety
/// `mesh` must be null or a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_free(mesh: *mut TumbleMesh) -> TumbleStatus {
    guard(None, || handle::free(mesh, "mesh"))
}

/// The mesh's dimension (2 or 3) and its numbers of nodes, cells and marked facets; any output
/// pointer may be null.
///
/// # Safety
/// `mesh` must be a pointer this library returned; non-null outputs must be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_sizes(
    mesh: *const TumbleMesh,
    dim: *mut u32,
    num_points: *mut usize,
    num_cells: *mut usize,
    num_facets: *mut usize,
) -> TumbleStatus {
    handle::guard_on(mesh, "mesh", |m| {
        let d = m.mesh.dim();
        let (p, c, f) = m.mesh.sizes();
        if !dim.is_null() {
            dim.write(d as u32);
        }
        for (ptr, value) in [(num_points, p), (num_cells, c), (num_facets, f)] {
            if !ptr.is_null() {
                ptr.write(value);
            }
        }
        Ok(())
    })
}

/// Copies the tagged facets into `facets` (`dim` node indices per facet) and their tags into
/// `tags` (one per facet), room for `capacity` facets in each (either may be null); `*count` is
/// the number of facets. With too small a buffer nothing is copied and the status is
/// `TUMBLE_STATUS_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `mesh` must be a pointer this library returned; non-null outputs must have room for
/// `capacity` facets; `count` must be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_facets(
    mesh: *const TumbleMesh,
    facets: *mut u32,
    tags: *mut i32,
    capacity: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on(mesh, "mesh", |m| {
        let (nodes, each) = m.mesh.facets();
        room(
            each.len(),
            capacity,
            facets.is_null() && tags.is_null(),
            count,
            "facets",
        )?;
        copy_if_given(nodes, facets, "facets")?;
        copy_if_given(each, tags, "tags")
    })
}

/// Copies the node coordinates (`num_points × dim` doubles) into `points` (room for
/// `capacity` doubles); `*count` is the number of doubles. With too small a buffer nothing is
/// copied and the status is `TUMBLE_STATUS_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `mesh` must be a pointer this library returned, `points` hold `capacity` writable doubles,
/// `count` be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_points(
    mesh: *const TumbleMesh,
    points: *mut f64,
    capacity: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on(mesh, "mesh", |m| {
        copy_out(&m.mesh.points(), points, capacity, count, "points")
    })
}

/// The tag of the facets named `name` (a Gmsh physical group's name) into `*tag`.
///
/// # Safety
/// `mesh` must be a pointer this library returned, `name` a NUL-terminated string, `tag`
/// writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_facet_tag(
    mesh: *const TumbleMesh,
    name: *const c_char,
    tag: *mut i32,
) -> TumbleStatus {
    handle::guard_on(mesh, "mesh", |m| {
        let name = text(name, "name")?;
        put(tag, m.mesh.facet_tag(name)?, "tag")
    })
}

/// The message of the last failed call on `mesh` (empty if none), valid until the next; never
/// null (a message about the handle itself if it is not a live mesh).
///
/// # Safety
/// `mesh` must be null or a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_mesh_error(mesh: *const TumbleMesh) -> *const c_char {
    handle::error_of(mesh, "mesh")
}
