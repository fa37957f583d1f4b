//! Contact on the host code's own mesh (the host-mesh mode): the bodies are tagged facets of a
//! mesh that follows them, and each call finds their contacts on the mesh as it is now, their
//! forces and torques, and the same forces spread over the mesh's nodes.

use crate::handle::{self, Handle};
use crate::mesh::TumbleMesh;
use crate::status::{
    contact_options, copy_if_given, count, guard, put, room, slice, slice_mut, ErrorSlot, Failure, TumbleStatus,
};
use crate::world::{given_number, law, TumbleLaw};
use std::ffi::c_char;
use tumble::dynamic::{HostContact, HostOptions};

/// The `j` of a contact with the walls.
pub const TUMBLE_WALL: u32 = u32::MAX;

/// A host-mesh contact's parameters; start from [`tumble_host_options_default`] and set at least
/// `range` and `stiffness`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TumbleHostOptions {
    /// The force law (default Glowinski's); `TUMBLE_LAW_PATCHES` finds every patch of contact.
    pub law: TumbleLaw,
    /// `ρ`, the range of the force (the safety zone); must be set.
    pub range: f64,
    /// `ε`, the body–body stiffness parameter (force ∝ 1/ε); must be set.
    pub stiffness: f64,
    /// `ε_W`, the body–wall one; NaN (the default) means `stiffness`.
    pub wall_stiffness: f64,
    /// The threads the work runs on, in a pool of its own; 0 (the default) means one per core.
    pub threads: u32,
}

/// The defaults: Glowinski's law, every core, and `range` and `stiffness` NaN (to be set).
#[no_mangle]
pub extern "C" fn tumble_host_options_default() -> TumbleHostOptions {
    TumbleHostOptions {
        law: TumbleLaw::Glowinski,
        range: f64::NAN,
        stiffness: f64::NAN,
        wall_stiffness: f64::NAN,
        threads: 0,
    }
}

/// One contact: between body `i` and body `j` (or the walls, `j == TUMBLE_WALL`), at `gap`, from
/// `point_j` on `j` to `point_i` on `i`, the unit `normal` pointing from `j` towards `i` (in 2D
/// the third components are 0).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TumbleContact {
    /// The body the force is computed for.
    pub i: u32,
    /// The other body, or `TUMBLE_WALL`.
    pub j: u32,
    /// The gap.
    pub gap: f64,
    /// The point on body `i`'s boundary.
    pub point_i: [f64; 3],
    /// The point on body `j`'s boundary or the walls.
    pub point_j: [f64; 3],
    /// The unit normal from `j` towards `i`.
    pub normal: [f64; 3],
}

/// Contact on a host mesh; made by [`tumble_host_new`], freed by [`tumble_host_free`].
pub struct TumbleHost {
    host: HostContact,
    error: ErrorSlot,
}

impl Handle for TumbleHost {
    const KIND: &'static str = "host contact";
    fn error(&self) -> &ErrorSlot {
        &self.error
    }
}

/// A new host-mesh contact `*out` on `mesh`: body `k`'s boundary is the facets tagged
/// `body_tags[k]` (`num_bodies` tags), the walls those tagged `wall_tags` (`num_wall_tags`, may be
/// 0). `options` must have `range` and `stiffness` set. A tag the mesh does not have, or that two
/// bodies share, is `TUMBLE_STATUS_INVALID_ARGUMENT` naming it.
///
/// # Safety
/// `mesh` must be a pointer this library returned, the tag arrays hold the numbers said,
/// `options` be readable, `out` writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_host_new(
    mesh: *const TumbleMesh,
    body_tags: *const i32,
    num_bodies: usize,
    wall_tags: *const i32,
    num_wall_tags: usize,
    options: *const TumbleHostOptions,
    out: *mut *mut TumbleHost,
) -> TumbleStatus {
    guard(None, || {
        put(out, std::ptr::null_mut(), "out")?;
        let given = contact_options(options, "tumble_host_options_default")?;
        let mesh = &handle::get(mesh, "mesh")?.mesh;
        let bodies = slice(body_tags, num_bodies, "body_tags")?;
        let walls = slice(wall_tags, num_wall_tags, "wall_tags")?;
        let options = HostOptions {
            law: law(given.law),
            range: given.range,
            stiffness: given.stiffness,
            wall_stiffness: given_number(given.wall_stiffness),
            threads: (given.threads != 0).then_some(given.threads as usize),
        };
        let fields = ["range", "stiffness", "wall_stiffness", "threads"];
        let host = HostContact::new(mesh, bodies, walls, &options).map_err(|e| Failure::naming_options(e, &fields))?;
        out.write(handle::make(TumbleHost {
            host,
            error: ErrorSlot::default(),
        }));
        Ok(())
    })
}

/// Frees a host-mesh contact (null is a no-op).
///
/// # Safety
/// `host` must be null or a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_host_free(host: *mut TumbleHost) -> TumbleStatus {
    guard(None, || handle::free(host, "host"))
}

/// Finds the contacts on `mesh` (the mesh given to [`tumble_host_new`], or one
/// [`crate::mesh::tumble_mesh_with_points`] made from it) with the bodies' centres of mass at
/// `centres` (`num_bodies × dim` numbers); `*count` is the number of contacts, which
/// [`tumble_host_get_contacts`], [`tumble_host_forces`] and [`tumble_host_node_loads`] read.
///
/// # Safety
/// `host` and `mesh` must be pointers this library returned, `centres` hold `num_bodies × dim`
/// numbers, `count` be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_host_find_contacts(
    host: *mut TumbleHost,
    mesh: *const TumbleMesh,
    centres: *const f64,
    num_bodies: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on_mut(host, "host", |h| {
        put(count, 0, "count")?;
        let mesh = &handle::get(mesh, "mesh")?.mesh;
        let n = crate::status::count(num_bodies, h.host.dim(), "num_bodies")?;
        let centres = slice(centres, n, "centres")?;
        let found = h.host.find_contacts(mesh, centres)?;
        count.write(found);
        Ok(())
    })
}

/// The contacts the last [`tumble_host_find_contacts`] found, into `contacts` (room for
/// `capacity`); `*count` is their number. With too small a buffer nothing is copied and the
/// status is `TUMBLE_STATUS_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `host` must be a pointer this library returned, `contacts` have room for `capacity` contacts,
/// `count` be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_host_get_contacts(
    host: *const TumbleHost,
    contacts: *mut TumbleContact,
    capacity: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on(host, "host", |h| {
        let found = h.host.contacts();
        let n = found.gap.len();
        room(n, capacity, false, count, "contacts")?;
        let out = slice_mut(contacts, n, "contacts")?;
        let d = h.host.dim();
        let padded = |flat: &[f64], k: usize| {
            let mut x = [0.0; 3];
            x[..d].copy_from_slice(&flat[k * d..(k + 1) * d]);
            x
        };
        for (k, c) in out.iter_mut().enumerate() {
            *c = TumbleContact {
                i: found.i[k],
                j: found.j[k],
                gap: found.gap[k],
                point_i: padded(&found.point_i, k),
                point_j: padded(&found.point_j, k),
                normal: padded(&found.normal, k),
            };
        }
        Ok(())
    })
}

/// The contact force (`dim` numbers per body) and torque about its centre (2D: 1 number per
/// body; 3D: 3) of every body from the last contacts, into `forces` and `torques` (room for
/// `capacity` bodies each; either may be null); `*count` is the number of bodies.
///
/// # Safety
/// `host` must be a pointer this library returned; non-null outputs must have room for
/// `capacity` bodies; `count` must be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_host_forces(
    host: *mut TumbleHost,
    forces: *mut f64,
    torques: *mut f64,
    capacity: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on_mut(host, "host", |h| {
        room(
            h.host.num_bodies(),
            capacity,
            forces.is_null() && torques.is_null(),
            count,
            "bodies",
        )?;
        let (f, t) = h.host.forces()?;
        copy_if_given(&f, forces, "forces")?;
        copy_if_given(&t, torques, "torques")
    })
}

/// The contact loads on the mesh's nodes from the last contacts, into `loads` (`num_nodes × dim`
/// numbers, `num_nodes` the mesh's node count): each contact's force spread over the nodes near
/// it, so that the loads on a body's boundary nodes sum to its force and their moments to its
/// torque; the walls' nodes take the reactions; zero elsewhere.
///
/// # Safety
/// `host` must be a pointer this library returned, `loads` have room for `num_nodes × dim`
/// numbers.
#[no_mangle]
pub unsafe extern "C" fn tumble_host_node_loads(
    host: *const TumbleHost,
    loads: *mut f64,
    num_nodes: usize,
) -> TumbleStatus {
    handle::guard_on(host, "host", |h| {
        let all = h.host.node_loads()?;
        let d = h.host.dim();
        if count(num_nodes, d, "num_nodes")? != all.len() {
            return Err(Failure::argument(
                "num_nodes",
                format!("is {num_nodes}, the mesh has {} nodes", all.len() / d),
            ));
        }
        slice_mut(loads, all.len(), "loads")?.copy_from_slice(&all);
        Ok(())
    })
}

/// The message of the last failed call on `host` (empty if none), valid until the next; never
/// null.
///
/// # Safety
/// `host` must be null or a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_host_error(host: *const TumbleHost) -> *const c_char {
    handle::error_of(host, "host")
}
