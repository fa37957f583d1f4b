//! Bodies repelling each other and the walls, without a fluid: a world of rigid bodies given by
//! their shapes (each shape's distance field computed once, in its own frame), the walls of a
//! domain mesh, gravity and drag; its contact forces and torques now, and time steps.

use crate::handle::{self, Handle};
use crate::mesh::TumbleMesh;
use crate::status::{put, slice, slice_mut, ErrorSlot, Failure, Outcome, TumbleStatus};
use std::ffi::c_char;
use std::sync::Arc;
use tumble::body::{default_lattice_step, BodyGeometry, Dim, Kinematics, RigidBody};
use tumble::broad::sets::method;
use tumble::contact::{ContactModel, ContactSolver, Law, Walls};
use tumble::math::{Point, Vector};
use tumble::mesh::gmsh::AnyMesh;
use tumble::shape::{Cuboid, Ellipsoid, Shape};
use tumble::sim::{Drag, Simulation};
use tumble::SimplexMesh;

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
    /// `ρ`, the range of the force (the safety zone); must be set.
    pub range: f64,
    /// `ε`, the body–body stiffness parameter (force ∝ 1/ε); must be set.
    pub stiffness: f64,
    /// `ε_W`, the body–wall one; NaN (the default) means `stiffness`.
    pub wall_stiffness: f64,
    /// Normal damping `c` of each contact (force per unit approach speed; default 0).
    pub damping: f64,
    /// The spacing of the lattice that holds each body's distance field in its own frame; 0 (the
    /// default) means `min(range/4, the body's smallest size/20)`, as case files do.
    pub lattice_step: f64,
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
        lattice_step: 0.0,
    }
}

/// A dry simulation of either dimension and what its walls are made from.
struct World<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    sim: Simulation<D>,
    /// The domain mesh and the wall tags; the walls' field is built when the bodies are known
    /// (its band reaches the largest body's radius plus 2ρ) and again if a larger body comes.
    domain: Option<(SimplexMesh<D>, Vec<i32>)>,
    lattice_step: f64,
}

enum AnyWorld {
    D2(World<2>),
    D3(World<3>),
}

/// Bodies, walls, gravity and contact; made by [`tumble_world_new`], freed by
/// [`tumble_world_free`].
pub struct TumbleWorld {
    world: AnyWorld,
    error: ErrorSlot,
}

impl Handle for TumbleWorld {
    const KIND: &'static str = "world";
    fn error(&self) -> &ErrorSlot {
        &self.error
    }
}

/// Runs `$body` with `$w` the world (mutable) and `$d` its dimension.
macro_rules! with_world {
    ($h:expr, $w:ident, $d:ident => $body:expr) => {
        match &mut $h.world {
            AnyWorld::D2($w) => {
                #[allow(dead_code)]
                const $d: usize = 2;
                $body
            }
            AnyWorld::D3($w) => {
                #[allow(dead_code)]
                const $d: usize = 3;
                $body
            }
        }
    };
}

impl<const D: usize> World<D>
where
    Dim<D>: Kinematics<D>,
{
    fn new(options: &TumbleWorldOptions, domain: Option<(SimplexMesh<D>, Vec<i32>)>) -> Result<Self, Failure> {
        let positive = |name: &str, x: f64| {
            if x.is_finite() && x > 0.0 {
                Ok(x)
            } else {
                Err(Failure::argument(name, format!("is {x}, expected a positive number")))
            }
        };
        let non_negative = |name: &str, x: f64| {
            if x.is_finite() && x >= 0.0 {
                Ok(x)
            } else {
                Err(Failure::argument(name, format!("is {x}, expected a number ≥ 0")))
            }
        };
        let range = positive("options.range", options.range)?;
        let stiffness = positive("options.stiffness", options.stiffness)?;
        let wall_stiffness = if options.wall_stiffness.is_nan() {
            stiffness
        } else {
            positive("options.wall_stiffness", options.wall_stiffness)?
        };
        let law = match options.law {
            TumbleLaw::Spec => Law::Spec,
            TumbleLaw::Glowinski => Law::Glowinski,
            TumbleLaw::Patches => Law::Patches,
        };
        if let Some(k) = options.gravity[..D].iter().position(|g| !g.is_finite()) {
            return Err(Failure::argument(
                "options.gravity",
                format!("component {k} is not finite"),
            ));
        }
        let drag = Drag {
            linear: non_negative("options.drag_linear", options.drag_linear)?,
            angular: non_negative("options.drag_angular", options.drag_angular)?,
        };
        let model = ContactModel {
            law,
            range,
            stiffness,
            wall_stiffness,
        };
        let broad = method::<D>("auto").expect("the automatic broad phase exists");
        let mut sim = Simulation::new(
            Vec::new(),
            None,
            Vector::<D>::from_column_slice(&options.gravity[..D]),
            drag,
            ContactSolver::new(model, broad),
        );
        sim.damping = non_negative("options.damping", options.damping)?;
        Ok(World {
            sim,
            domain,
            lattice_step: non_negative("options.lattice_step", options.lattice_step)?,
        })
    }

    /// Adds a body of `shape` (smallest size `feature`); its index.
    fn add(
        &mut self,
        shape: &dyn Shape<D>,
        feature: f64,
        density: f64,
        position: &[f64],
        orientation: &[f64],
    ) -> Result<usize, Failure> {
        if !(density.is_finite() && density > 0.0) {
            return Err(Failure::argument(
                "density",
                format!("is {density}, expected a positive number"),
            ));
        }
        let range = self.sim.contact.model.range;
        let h = if self.lattice_step > 0.0 {
            self.lattice_step
        } else {
            default_lattice_step(range, feature)
        };
        let geometry = BodyGeometry::from_shape(shape, h, 2.0 * range).map_err(Failure::failed)?;
        let index = self.sim.bodies.len();
        let mut body = RigidBody::new(
            &format!("body{index}"),
            Arc::new(geometry),
            density,
            Point::<D>::zeros(),
        );
        set_pose(&mut body, Some(position), Some(orientation))?;
        self.sim.bodies.push(body);
        self.sim.force.push(Vector::<D>::zeros());
        self.sim.torque.push(<Dim<D> as Kinematics<D>>::zero());
        self.sim.walls = None;
        Ok(index)
    }

    /// Builds the walls' field if the bodies changed since (its band reaches the largest body's
    /// radius plus 2ρ, as a case's does).
    fn ready(&mut self) -> Outcome {
        if self.sim.bodies.is_empty() {
            return Err(Failure::new(
                TumbleStatus::Failed,
                "the world has no body: add one first",
            ));
        }
        if self.sim.walls.is_none() {
            if let Some((mesh, tags)) = &self.domain {
                let reach = self.sim.bodies.iter().map(|b| b.geometry.radius).fold(0.0, f64::max)
                    + 2.0 * self.sim.contact.model.range;
                self.sim.walls = Some(Walls::from_markers(mesh.clone(), tags, reach).map_err(Failure::failed)?);
            }
        }
        Ok(())
    }
}

/// Sets a body's position (`D` numbers) and orientation (2D: the angle; 3D: the unit quaternion
/// `w, x, y, z`), each if given.
fn set_pose<const D: usize>(body: &mut RigidBody<D>, position: Option<&[f64]>, orientation: Option<&[f64]>) -> Outcome
where
    Dim<D>: Kinematics<D>,
{
    if let Some(p) = position {
        finite("position", p)?;
        body.position = Point::<D>::from_column_slice(p);
    }
    if let Some(o) = orientation {
        finite("orientation", o)?;
        let norm = o.iter().map(|x| x * x).sum::<f64>().sqrt();
        let unit: Vec<f64> = if D == 3 {
            o.iter().map(|x| x / norm).collect()
        } else {
            o.to_vec()
        };
        body.rotation = <Dim<D> as Kinematics<D>>::rotation_exact(&unit)
            .filter(|_| D == 2 || norm > 0.0)
            .ok_or_else(|| {
                Failure::argument(
                    "orientation",
                    format!("{o:?} is not a rotation (a quaternion of norm 0)"),
                )
            })?;
    }
    Ok(())
}

fn finite(name: &str, values: &[f64]) -> Outcome {
    match values.iter().position(|x| !x.is_finite()) {
        Some(k) => Err(Failure::argument(name, format!("component {k} is {}", values[k]))),
        None => Ok(()),
    }
}

/// The number of doubles of an orientation (1 in 2D, 4 in 3D) and of an angular velocity (1, 3).
fn rotation_sizes(dim: usize) -> (usize, usize) {
    if dim == 2 {
        (1, 1)
    } else {
        (4, 3)
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
    crate::status::guard(None, || {
        put(out, std::ptr::null_mut(), "out")?;
        if options.is_null() {
            return Err(Failure::new(
                TumbleStatus::NullPointer,
                "options is null: start from tumble_world_options_default() and set range and stiffness",
            ));
        }
        let options = options.read();
        let tags = slice(wall_tags, num_wall_tags, "wall_tags")?.to_vec();
        let mesh = if domain.is_null() {
            None
        } else {
            Some(handle::get(domain, "domain")?.mesh.clone())
        };
        if mesh.is_some() && tags.is_empty() {
            return Err(Failure::argument(
                "num_wall_tags",
                "is 0: give the tags of the domain's walls",
            ));
        }
        let mismatch = |d: usize| Failure::argument("dim", format!("is {dim}, but the domain is a {d}D mesh"));
        let world = match (dim, mesh.as_deref()) {
            (2, None) => AnyWorld::D2(World::new(&options, None)?),
            (3, None) => AnyWorld::D3(World::new(&options, None)?),
            (2, Some(AnyMesh::D2(m))) => AnyWorld::D2(World::new(&options, Some((m.clone(), tags)))?),
            (3, Some(AnyMesh::D3(m))) => AnyWorld::D3(World::new(&options, Some((m.clone(), tags)))?),
            (3, Some(AnyMesh::D2(_))) => return Err(mismatch(2)),
            (2, Some(AnyMesh::D3(_))) => return Err(mismatch(3)),
            _ => return Err(Failure::argument("dim", format!("is {dim}, expected 2 or 3"))),
        };
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
    crate::status::guard(None, || handle::free(world, "world"))
}

/// The primitive shapes a body can be made of through the ABI.
#[derive(Debug, Clone, Copy)]
enum Primitive {
    /// Semi-axes.
    Ellipsoid,
    /// Side lengths.
    Cuboid,
}

/// Adds a body of `primitive` with `sizes` (`dim` numbers) under the world's guard.
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
        let added = with_world!(h, w, D => {
            let sizes = slice(sizes, D, "sizes")?;
            if let Some(k) = sizes.iter().position(|x| !(x.is_finite() && *x > 0.0)) {
                return Err(Failure::argument("sizes", format!("component {k} is {}, expected a positive number", sizes[k])));
            }
            let position = require(position, D, "position")?;
            let orientation = require(orientation, rotation_sizes(D).0, "orientation")?;
            let smallest = sizes.iter().copied().fold(f64::INFINITY, f64::min);
            match primitive {
                Primitive::Ellipsoid => {
                    let shape = Ellipsoid { semi_axes: std::array::from_fn::<f64, D, _>(|k| sizes[k]) };
                    w.add(&shape, smallest, density, position, orientation)?
                }
                Primitive::Cuboid => {
                    let shape = Cuboid { half: std::array::from_fn::<f64, D, _>(|k| sizes[k] / 2.0) };
                    w.add(&shape, smallest / 2.0, density, position, orientation)?
                }
            }
        });
        if !index.is_null() {
            index.write(added);
        }
        Ok(())
    })
}

/// `ptr` as `len` numbers, which must be given.
unsafe fn require<'a>(ptr: *const f64, len: usize, name: &str) -> Result<&'a [f64], Failure> {
    if ptr.is_null() {
        return Err(Failure::new(TumbleStatus::NullPointer, format!("{name} is null")));
    }
    slice(ptr, len, name)
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
    add(world, Primitive::Cuboid, sides, density, position, orientation, index)
}

/// The number of bodies into `*count`.
///
/// # Safety
/// `world` must be a pointer this library returned, `count` writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_num_bodies(world: *mut TumbleWorld, count: *mut usize) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        let n = with_world!(h, w, D => w.sim.bodies.len());
        put(count, n, "count")
    })
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
        with_world!(h, w, D => {
            let b = body(&w.sim.bodies, index)?;
            let rotation = <Dim<D> as Kinematics<D>>::rotation_components(&b.rotation);
            let spin = <Dim<D> as Kinematics<D>>::angular_components(&b.angular_velocity);
            for (out, values, name) in [
                (position, b.position.as_slice(), "position"),
                (orientation, &rotation[..], "orientation"),
                (velocity, b.velocity.as_slice(), "velocity"),
                (angular_velocity, &spin[..], "angular_velocity"),
            ] {
                if !out.is_null() {
                    slice_mut(out, values.len(), name)?.copy_from_slice(values);
                }
            }
        });
        Ok(())
    })
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
        with_world!(h, w, D => {
            let (rotation_len, spin_len) = rotation_sizes(D);
            let optional = |ptr: *const f64, len, name| if ptr.is_null() { Ok(None) } else { slice(ptr, len, name).map(Some) };
            let position = optional(position, D, "position")?;
            let orientation = optional(orientation, rotation_len, "orientation")?;
            let velocity = optional(velocity, D, "velocity")?;
            let spin = optional(angular_velocity, spin_len, "angular_velocity")?;
            let mut b = body(&w.sim.bodies, index)?.clone();
            set_pose(&mut b, position, orientation)?;
            if let Some(v) = velocity {
                finite("velocity", v)?;
                b.velocity = Vector::<D>::from_column_slice(v);
            }
            if let Some(s) = spin {
                finite("angular_velocity", s)?;
                b.angular_velocity = <Dim<D> as Kinematics<D>>::angular_from(s).expect("the count was checked");
            }
            w.sim.bodies[index] = b;
        });
        Ok(())
    })
}

fn body<const D: usize>(bodies: &[RigidBody<D>], index: usize) -> Result<&RigidBody<D>, Failure>
where
    Dim<D>: Kinematics<D>,
{
    bodies
        .get(index)
        .ok_or_else(|| Failure::argument("index", format!("is {index}, the world has {} bodies", bodies.len())))
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
        with_world!(h, w, D => {
            let n = w.sim.bodies.len();
            put(count, n, "count")?;
            if capacity < n && !(forces.is_null() && torques.is_null()) {
                return Err(Failure::new(
                    TumbleStatus::BufferTooSmall,
                    format!("room for {capacity} bodies, the world has {n}"),
                ));
            }
            w.ready()?;
            w.sim.contact_forces().map_err(Failure::failed)?;
            write_loads(w, forces, torques)
        })
    })
}

/// The last computed forces and torques into the caller's buffers (room checked).
unsafe fn write_loads<const D: usize>(w: &World<D>, forces: *mut f64, torques: *mut f64) -> Outcome
where
    Dim<D>: Kinematics<D>,
{
    let n = w.sim.bodies.len();
    let spin = rotation_sizes(D).1;
    if !forces.is_null() {
        let out = slice_mut(forces, n * D, "forces")?;
        for (o, f) in out.chunks_exact_mut(D).zip(&w.sim.force) {
            o.copy_from_slice(f.as_slice());
        }
    }
    if !torques.is_null() {
        let out = slice_mut(torques, n * spin, "torques")?;
        for (o, t) in out.chunks_exact_mut(spin).zip(&w.sim.torque) {
            o.copy_from_slice(&<Dim<D> as Kinematics<D>>::angular_components(t));
        }
    }
    Ok(())
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
    handle::guard_on_mut(world, "world", |h| {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(Failure::argument("dt", format!("is {dt}, expected a positive number")));
        }
        with_world!(h, w, D => {
            w.ready()?;
            for _ in 0..steps {
                let before = w.sim.bodies.clone();
                if let Err(e) = w.sim.step(dt) {
                    w.sim.bodies = before;
                    return Err(Failure::failed(e));
                }
            }
            Ok(())
        })
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
