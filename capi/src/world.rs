//! Bodies repelling each other and the walls, without a fluid: a world of rigid bodies given by
//! their shapes (each shape's distance field computed once, in its own frame), the walls of a
//! domain mesh, gravity and drag; its contact forces and torques now, and time steps.

use crate::handle::{self, Handle};
use crate::mesh::TumbleMesh;
use crate::status::{
    contact_options, copy_if_given, copy_out, count, dimension, guard, put, room, slice, slice_mut, ErrorSlot, Failure,
    Outcome, TumbleStatus,
};
use std::ffi::c_char;
use tumble::contact::{ContactParameters, Law, Lubrication};
use tumble::dynamic::{rotation_sizes, BodyState, Primitive, World, WorldOptions};

/// The contact force law (`theory.md`, "Contact").
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TumbleLaw {
    /// The specification's `F = (1/ε)(x_i − x_j)(ρ − d)²` between the closest points.
    Spec = 0,
    /// Glowinski's law along the normal, once per pair at the centre of pressure (the default).
    Glowinski = 1,
    /// Glowinski's law once per connected patch of contact (non-convex bodies).
    Patches = 2,
    /// The collision law: restitution, duration, friction and rolling resistance (not for a
    /// host mesh, which gives no masses or velocities).
    Collision = 3,
}

/// The library's law for `law`.
pub(crate) fn law(law: TumbleLaw) -> Law {
    match law {
        TumbleLaw::Spec => Law::Spec,
        TumbleLaw::Glowinski => Law::Glowinski,
        TumbleLaw::Patches => Law::Patches,
        TumbleLaw::Collision => Law::Collision,
    }
}

/// A number of the options, `None` for NaN (not given).
pub(crate) fn given_number(x: f64) -> Option<f64> {
    (!x.is_nan()).then_some(x)
}

/// The film of `options`: none if its three numbers are NaN, an error if only some are.
fn film(options: &TumbleWorldOptions) -> Result<Option<Lubrication>, Failure> {
    let numbers = [
        options.lubrication_viscosity,
        options.lubrication_cut,
        options.lubrication_roughness,
    ];
    match numbers.map(given_number) {
        [None, None, None] => Ok(None),
        [Some(viscosity), Some(cut), Some(roughness)] => Ok(Some(Lubrication {
            viscosity,
            cut,
            roughness,
            share: given_number(options.lubrication_share).unwrap_or(0.0),
            tangential: options.lubrication_tangential != 0,
        })),
        _ => Err(Failure::new(
            TumbleStatus::InvalidArgument,
            format!(
                "options.lubrication_viscosity, lubrication_cut and lubrication_roughness are given together or \
                 not at all, got {numbers:?}"
            ),
        )),
    }
}

/// A world's parameters; start from [`tumble_world_options_default`] and set at least `range`
/// and `stiffness`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TumbleWorldOptions {
    /// Gravity (the first `dim` components are used; default 0).
    pub gravity: [f64; 3],
    /// Linear drag rate `c_v` in `dv/dt = … − c_v v` (default 0).
    pub drag_linear: f64,
    /// Angular drag rate `c_ω` (default 0).
    pub drag_angular: f64,
    /// The force law (default Glowinski's).
    pub law: TumbleLaw,
    /// `ρ`, the range of a repulsive force (the safety zone), or the gap at which a collision
    /// begins; must be set.
    pub range: f64,
    /// `ε`, a repulsive law's body–body stiffness parameter (force ∝ 1/ε); must be set for
    /// them, NaN (the default) for the collision law.
    pub stiffness: f64,
    /// `ε_W`, the body–wall one; NaN (the default) means `stiffness`.
    pub wall_stiffness: f64,
    /// A repulsive law's normal damping `c` (force per unit approach speed; default 0).
    pub damping: f64,
    /// The collision law's restitution coefficient `e` in (0, 1]; NaN (the default): not given.
    pub restitution: f64,
    /// The collision law's duration `t_c`; NaN (the default): not given.
    pub duration: f64,
    /// The collision law's friction coefficient `μ`; NaN (the default): 0.
    pub friction: f64,
    /// The collision law's rolling resistance coefficient `μ_r`; NaN (the default): 0.
    pub rolling: f64,
    /// The lubrication film's viscosity `μ` (a host's fluid's); NaN (the default): no film. The
    /// film's three numbers are given together or not at all.
    pub lubrication_viscosity: f64,
    /// The gap `h_c` below which the film's force is added, where the host's mesh stops
    /// resolving the film (about two cells); NaN (the default): no film.
    pub lubrication_cut: f64,
    /// The roughness `h_r` (< `h_c`), below which the film's force stays the one at `h_r`; NaN
    /// (the default): no film.
    pub lubrication_roughness: f64,
    /// The share `s` in [0, 1) of the film below the cut that the host's mesh carries itself
    /// (the film adds `1 − s` of its closed form); NaN (the default): 0, the whole film.
    pub lubrication_share: f64,
    /// 1 (the default): the film also resists the surfaces' sliding and turning past each
    /// other; 0: their approach only.
    pub lubrication_tangential: u32,
    /// The spacing of the lattice that holds each body's distance field in its own frame; 0 (the
    /// default) means `min(range/4, the body's smallest size/20)`, as case files do.
    pub lattice_step: f64,
    /// The threads the world's work runs on, in a pool of its own; 0 (the default) means one
    /// per core, shared with the rest of the library. A host with its own threads (OpenMP, MPI
    /// ranks on one node) gives 1 or its share; the results are the same, bit for bit.
    pub threads: u32,
}

/// The defaults: no gravity or drag, Glowinski's law, no damping, and `range` and `stiffness`
/// NaN (to be set).
#[no_mangle]
pub extern "C" fn tumble_world_options_default() -> TumbleWorldOptions {
    TumbleWorldOptions {
        gravity: [0.0; 3],
        drag_linear: 0.0,
        drag_angular: 0.0,
        law: TumbleLaw::Glowinski,
        range: f64::NAN,
        stiffness: f64::NAN,
        wall_stiffness: f64::NAN,
        damping: 0.0,
        restitution: f64::NAN,
        duration: f64::NAN,
        friction: f64::NAN,
        rolling: f64::NAN,
        lubrication_viscosity: f64::NAN,
        lubrication_cut: f64::NAN,
        lubrication_roughness: f64::NAN,
        lubrication_share: f64::NAN,
        lubrication_tangential: 1,
        lattice_step: 0.0,
        threads: 0,
    }
}

/// Bodies, walls, gravity and contact; made by [`tumble_world_new`], freed by
/// [`tumble_world_free`].
pub struct TumbleWorld {
    pub(crate) world: World,
    error: ErrorSlot,
}

impl Handle for TumbleWorld {
    const KIND: &'static str = "world";
    fn error(&self) -> &ErrorSlot {
        &self.error
    }
}

/// `ptr` as `len` numbers, which must be given.
unsafe fn require<'a>(ptr: *const f64, len: usize, name: &str) -> Result<&'a [f64], Failure> {
    if ptr.is_null() {
        return Err(Failure::new(TumbleStatus::NullPointer, format!("{name} is null")));
    }
    slice(ptr, len, name)
}

/// A new body's `position` and `orientation` in dimension `dim`, which must be given.
unsafe fn placement<'a>(
    dim: usize,
    position: *const f64,
    orientation: *const f64,
) -> Result<(&'a [f64], &'a [f64]), Failure> {
    Ok((
        require(position, dim, "position")?,
        require(orientation, rotation_sizes(dim).0, "orientation")?,
    ))
}

/// `ptr` as `len` numbers, or `None` for null.
unsafe fn optional<'a>(ptr: *const f64, len: usize, name: &str) -> Result<Option<&'a [f64]>, Failure> {
    if ptr.is_null() {
        Ok(None)
    } else {
        slice(ptr, len, name).map(Some)
    }
}

/// A new world of dimension `dim` (2 or 3). `domain` may be null (no walls); otherwise its facets
/// tagged `wall_tags` are the walls, and its dimension must be `dim`. `options` must have `range`
/// and `stiffness` set.
///
/// # Safety
/// `domain` must be null or a pointer this library returned, `wall_tags` hold `num_wall_tags`
/// tags, `options` be readable, `out` writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_new(
    dim: u32,
    domain: *const TumbleMesh,
    wall_tags: *const i32,
    num_wall_tags: usize,
    options: *const TumbleWorldOptions,
    out: *mut *mut TumbleWorld,
) -> TumbleStatus {
    guard(None, || {
        put(out, std::ptr::null_mut(), "out")?;
        let given = contact_options(options, "tumble_world_options_default")?;
        let d = dimension(dim)?;
        let tags = slice(wall_tags, num_wall_tags, "wall_tags")?;
        let domain = if domain.is_null() {
            None
        } else {
            Some((&handle::get(domain, "domain")?.mesh, tags))
        };
        let options = WorldOptions {
            gravity: given.gravity[..d].to_vec(),
            drag_linear: given.drag_linear,
            drag_angular: given.drag_angular,
            contact: ContactParameters {
                law: law(given.law),
                range: given.range,
                stiffness: given_number(given.stiffness),
                wall_stiffness: given_number(given.wall_stiffness),
                damping: (given.damping != 0.0).then_some(given.damping),
                restitution: given_number(given.restitution),
                duration: given_number(given.duration),
                friction: given_number(given.friction),
                rolling: given_number(given.rolling),
                lubrication: film(&given)?,
            },
            lattice_step: (given.lattice_step != 0.0).then_some(given.lattice_step),
            threads: (given.threads != 0).then_some(given.threads as usize),
        };
        let fields = [
            "gravity",
            "drag_linear",
            "drag_angular",
            "range",
            "stiffness",
            "wall_stiffness",
            "damping",
            "restitution",
            "duration",
            "friction",
            "rolling",
            "lubrication_viscosity",
            "lubrication_cut",
            "lubrication_roughness",
            "lubrication_share",
            "lattice_step",
            "threads",
        ];
        let world = World::new(d, domain, &options).map_err(|e| Failure::naming_options(e, &fields))?;
        out.write(handle::make(TumbleWorld {
            world,
            error: ErrorSlot::default(),
        }));
        Ok(())
    })
}

/// Frees a world (null is a no-op).
///
/// # Safety
/// `world` must be null or a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_free(world: *mut TumbleWorld) -> TumbleStatus {
    guard(None, || handle::free(world, "world"))
}

/// Adds a body of `primitive` with `sizes` under the world's guard.
unsafe fn add(
    world: *mut TumbleWorld,
    primitive: Primitive,
    sizes: *const f64,
    density: f64,
    position: *const f64,
    orientation: *const f64,
    index: *mut usize,
) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        let d = h.world.dim();
        let sizes = require(sizes, d, "sizes")?;
        let (position, orientation) = placement(d, position, orientation)?;
        let added = h.world.add_body(primitive, sizes, density, position, orientation)?;
        put_index(index, added)
    })
}

/// Adds a body whose shape is the ellipse (2D) or ellipsoid (3D) of semi-axes `semi_axes`
/// (`dim` numbers, along the body frame's axes; all equal for a disk or ball), of `density`, at
/// `position` (`dim` numbers) with `orientation` (2D: the angle in radians; 3D: the quaternion
/// `w, x, y, z`, normalised here), at rest; its index (0, 1, … in the order added) into `*index`
/// (which may be null).
///
/// # Safety
/// `world` must be a pointer this library returned; the arrays must hold the numbers said;
/// `index` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_add_ellipsoid(
    world: *mut TumbleWorld,
    semi_axes: *const f64,
    density: f64,
    position: *const f64,
    orientation: *const f64,
    index: *mut usize,
) -> TumbleStatus {
    add(
        world,
        Primitive::Ellipsoid,
        semi_axes,
        density,
        position,
        orientation,
        index,
    )
}

/// Adds a body whose shape is the rectangle (2D) or box (3D) of side lengths `sides` (`dim`
/// numbers, along the body frame's axes), as [`tumble_world_add_ellipsoid`].
///
/// # Safety
/// As [`tumble_world_add_ellipsoid`].
#[no_mangle]
pub unsafe extern "C" fn tumble_world_add_box(
    world: *mut TumbleWorld,
    sides: *const f64,
    density: f64,
    position: *const f64,
    orientation: *const f64,
    index: *mut usize,
) -> TumbleStatus {
    add(world, Primitive::Box, sides, density, position, orientation, index)
}

/// Adds a polygon (2D): `vertices` holds the `x, y` of its `num_vertices` corners in order
/// around it, in any frame (the body frame's origin is the polygon's centroid, placed at
/// `position`); otherwise as [`tumble_world_add_ellipsoid`]. Edges that cross are
/// `TUMBLE_STATUS_INVALID_ARGUMENT` naming two of them.
///
/// # Safety
/// As [`tumble_world_add_ellipsoid`]; `vertices` must hold `2 num_vertices` numbers.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_add_polygon(
    world: *mut TumbleWorld,
    vertices: *const f64,
    num_vertices: usize,
    density: f64,
    position: *const f64,
    orientation: *const f64,
    index: *mut usize,
) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        let d = h.world.dim();
        let n = count(num_vertices, 2, "num_vertices")?;
        let vertices = require(vertices, n, "vertices")?;
        let (position, orientation) = placement(d, position, orientation)?;
        let added = h.world.add_polygon(vertices, density, position, orientation)?;
        put_index(index, added)
    })
}

/// Adds a union of `num_spheres` disks (2D) or balls (3D): `centres` (`dim` numbers each, in any
/// frame: the body frame's origin is the union's centroid, placed at `position`) and `radii`;
/// otherwise as [`tumble_world_add_ellipsoid`]. The 3D sister of a tripole, say.
///
/// # Safety
/// As [`tumble_world_add_ellipsoid`]; `centres` must hold `num_spheres × dim` numbers and
/// `radii` `num_spheres`.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_add_spheres(
    world: *mut TumbleWorld,
    centres: *const f64,
    radii: *const f64,
    num_spheres: usize,
    density: f64,
    position: *const f64,
    orientation: *const f64,
    index: *mut usize,
) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        let d = h.world.dim();
        let n = count(num_spheres, d, "num_spheres")?;
        let centres = require(centres, n, "centres")?;
        let radii = require(radii, num_spheres, "radii")?;
        let (position, orientation) = placement(d, position, orientation)?;
        let added = h.world.add_spheres(centres, radii, density, position, orientation)?;
        put_index(index, added)
    })
}

/// Adds a body meshed on its own (`body`, a mesh of the world's dimension, a Gmsh mesh of the
/// body say): its boundary facets are its surface, its cells give its area or volume and
/// inertia, and its centroid is placed at `position`; otherwise as
/// [`tumble_world_add_ellipsoid`]. The body keeps what it needs: `body` may be freed after.
///
/// # Safety
/// As [`tumble_world_add_ellipsoid`]; `body` must be a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_add_mesh_body(
    world: *mut TumbleWorld,
    body: *const TumbleMesh,
    density: f64,
    position: *const f64,
    orientation: *const f64,
    index: *mut usize,
) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        let d = h.world.dim();
        let mesh = &handle::get(body, "body")?.mesh;
        let (position, orientation) = placement(d, position, orientation)?;
        let added = h.world.add_mesh_body(mesh, density, position, orientation)?;
        put_index(index, added)
    })
}

/// Writes a new body's index through `index` unless it is null.
unsafe fn put_index(index: *mut usize, added: usize) -> Result<(), Failure> {
    if !index.is_null() {
        index.write(added);
    }
    Ok(())
}

/// The number of bodies into `*count`.
///
/// # Safety
/// `world` must be a pointer this library returned, `count` writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_num_bodies(world: *mut TumbleWorld, count: *mut usize) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| put(count, h.world.num_bodies(), "count"))
}

/// Body `index`'s state, each output if not null: `position` and `velocity` (`dim` numbers),
/// `orientation` (2D: the angle; 3D: the unit quaternion `w, x, y, z`), `angular_velocity` (2D: 1
/// number; 3D: 3, world frame).
///
/// # Safety
/// `world` must be a pointer this library returned; each non-null output must have room for its
/// numbers.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_get_body(
    world: *mut TumbleWorld,
    index: usize,
    position: *mut f64,
    orientation: *mut f64,
    velocity: *mut f64,
    angular_velocity: *mut f64,
) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        copy_state(&h.world.body(index)?, position, orientation, velocity, angular_velocity)
    })
}

/// Body state `b` into the outputs that are not null.
///
/// # Safety
/// Each non-null output must have room for its numbers.
pub(crate) unsafe fn copy_state(
    b: &BodyState,
    position: *mut f64,
    orientation: *mut f64,
    velocity: *mut f64,
    angular_velocity: *mut f64,
) -> Outcome {
    for (out, values, name) in [
        (position, &b.position, "position"),
        (orientation, &b.orientation, "orientation"),
        (velocity, &b.velocity, "velocity"),
        (angular_velocity, &b.angular_velocity, "angular_velocity"),
    ] {
        if !out.is_null() {
            slice_mut(out, values.len(), name)?.copy_from_slice(values);
        }
    }
    Ok(())
}

/// Body `index`'s mass into `*mass`: its density times its area or volume as its surface
/// encloses it (for a shape without an exact surface, the lattice's level set).
///
/// # Safety
/// `world` must be a pointer this library returned, `mass` writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_get_mass(world: *mut TumbleWorld, index: usize, mass: *mut f64) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| put(mass, h.world.body(index)?.mass, "mass"))
}

/// Sets body `index`'s state, each input if not null (as [`tumble_world_get_body`] gives it; a
/// 3D quaternion is normalised). Nothing changes if an input is refused.
///
/// # Safety
/// `world` must be a pointer this library returned; each non-null input must hold its numbers.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_set_body(
    world: *mut TumbleWorld,
    index: usize,
    position: *const f64,
    orientation: *const f64,
    velocity: *const f64,
    angular_velocity: *const f64,
) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        let d = h.world.dim();
        let (rotation, spin) = rotation_sizes(d);
        Ok(h.world.set_body(
            index,
            optional(position, d, "position")?,
            optional(orientation, rotation, "orientation")?,
            optional(velocity, d, "velocity")?,
            optional(angular_velocity, spin, "angular_velocity")?,
        )?)
    })
}

/// The contact force (`dim` numbers per body) and torque (2D: 1 number per body; 3D: 3) on
/// every body at the current state, into `forces` and `torques` (room for `capacity` bodies
/// each; either may be null); `*count` is the number of bodies. A body's centre outside the
/// domain is `TUMBLE_STATUS_FAILED` naming it.
///
/// # Safety
/// `world` must be a pointer this library returned; non-null outputs must have room for
/// `capacity` bodies; `count` must be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_contact_forces(
    world: *mut TumbleWorld,
    forces: *mut f64,
    torques: *mut f64,
    capacity: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        let n = h.world.num_bodies();
        room(n, capacity, forces.is_null() && torques.is_null(), count, "bodies")?;
        let (f, t) = h.world.contact_forces()?;
        copy_if_given(&f, forces, "forces")?;
        copy_if_given(&t, torques, "torques")
    })
}

/// Advances the world by `steps` time steps of `dt` (semi-implicit Euler with the contact forces
/// of each step's start, gravity and drag). A body whose state stops being finite, or whose
/// centre leaves the domain, is `TUMBLE_STATUS_FAILED` naming it, with the state of the step
/// before kept.
///
/// # Safety
/// `world` must be a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_step(world: *mut TumbleWorld, dt: f64, steps: usize) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| Ok(h.world.step(dt, steps)?))
}

/// The world's state between two steps (the bodies' motion, time, the last contact forces) as
/// bytes into `buffer` (room for `capacity`); `*count` is their number. With too small a buffer
/// nothing is copied and the status is `TUMBLE_STATUS_BUFFER_TOO_SMALL` (a null `buffer` with
/// capacity 0 asks for the size that way). Restored into a world set up the same way, the steps
/// that follow are this world's, bit for bit.
///
/// # Safety
/// `world` must be a pointer this library returned, `buffer` hold `capacity` writable bytes,
/// `count` be writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_save(
    world: *mut TumbleWorld,
    buffer: *mut u8,
    capacity: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        copy_out(&h.world.save(), buffer, capacity, count, "buffer")
    })
}

/// Continues from `size` bytes saved by [`tumble_world_save`] from a world with the same
/// dimension and bodies (added in the same order); nothing changes if they do not fit.
///
/// # Safety
/// `world` must be a pointer this library returned, `state` hold `size` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_restore(world: *mut TumbleWorld, state: *const u8, size: usize) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        let bytes = slice(state, size, "state")?;
        Ok(h.world.restore(bytes)?)
    })
}

/// The message of the last failed call on `world` (empty if none), valid until the next; never
/// null.
///
/// # Safety
/// `world` must be null or a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_error(world: *const TumbleWorld) -> *const c_char {
    handle::error_of(world, "world")
}
