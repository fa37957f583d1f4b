//! Dry bodies, walls, gravity and contact, of either dimension.

use super::error::{finite, length, Error};
use super::mesh::Mesh;
use super::motion::{pose, set_motion};
use super::setup::{contact_model, positive, thread_pool, within};
use crate::body::{default_lattice_step, Angular, BodyError, BodyGeometry, Dim, Kinematics, RigidBody, Rotation};
use crate::broad::sets::method;
use crate::contact::{ContactParameters, ContactSolver, Law, Walls};
use crate::math::{Point, Vector};
use crate::mesh::gmsh::AnyMesh;
use crate::shape::{planar_shape, Ball, Cuboid, Ellipsoid, Polygon, Shape, Union};
use crate::sim::{Drag, SimError, Simulation, SimulationState};
use crate::SimplexMesh;
use std::sync::Arc;

/// A world's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldOptions {
    /// Gravity, `dim` components.
    pub gravity: Vec<f64>,
    /// Linear drag rate `c_v` in `dv/dt = … − c_v v`.
    pub drag_linear: f64,
    /// Angular drag rate `c_ω`.
    pub drag_angular: f64,
    /// The contact: the law and its parameters, as a case's `[contact]` table gives them
    /// (checked by [`ContactModel::new`](crate::contact::ContactModel::new)).
    pub contact: ContactParameters,
    /// The spacing of the lattice that holds each body's field in its own frame (`None`:
    /// [`default_lattice_step`], as case files do).
    pub lattice_step: Option<f64>,
    /// The threads the world's work runs on, in a pool of its own (`None`: rayon's global pool,
    /// one thread per core). A host that runs its own threads (OpenMP, MPI ranks on one node)
    /// gives 1 or its share; the results do not depend on it, bit for bit.
    pub threads: Option<usize>,
}

impl WorldOptions {
    /// No gravity, drag or damping, Glowinski's law, `range` and `stiffness` as given.
    pub fn new(dim: usize, range: f64, stiffness: f64) -> Self {
        Self::with_contact(dim, ContactParameters::repulsive(Law::Glowinski, range, stiffness))
    }

    /// No gravity or drag, the contact `contact` (for the collision law,
    /// [`ContactParameters::collision`]).
    pub fn with_contact(dim: usize, contact: ContactParameters) -> Self {
        WorldOptions {
            gravity: vec![0.0; dim],
            drag_linear: 0.0,
            drag_angular: 0.0,
            contact,
            lattice_step: None,
            threads: None,
        }
    }
}

/// A primitive body shape, its sizes along the body frame's axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    /// An ellipse or ellipsoid of these semi-axes (a disk or ball when they are equal).
    Ellipsoid,
    /// A rectangle or box of these side lengths.
    Box,
}

/// One body's state: `position` and `velocity` (`dim` numbers), `orientation` (2D: the angle;
/// 3D: the unit quaternion `w, x, y, z`), `angular_velocity` (2D: 1 number; 3D: 3, world frame),
/// and its mass.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyState {
    /// The centre of mass.
    pub position: Vec<f64>,
    /// The rotation from the body frame.
    pub orientation: Vec<f64>,
    /// The centre's velocity.
    pub velocity: Vec<f64>,
    /// The angular velocity.
    pub angular_velocity: Vec<f64>,
    /// The mass, `ρ |B|` with `|B|` the area or volume of the body as its surface encloses it.
    pub mass: f64,
}

/// A dry simulation of one dimension and what its walls are made from.
pub(super) struct Typed<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    pub(super) sim: Simulation<D>,
    /// The domain and its wall tags; the walls' field is built when the bodies are known (its
    /// band reaches the largest body's radius plus 2ρ, as a case's does) and again after a body
    /// is added.
    domain: Option<(SimplexMesh<D>, Vec<i32>)>,
    lattice_step: Option<f64>,
    /// The bodies' motion at the start of the current step, put back if the step fails; kept
    /// between steps so that a step allocates nothing.
    motion: Vec<Motion<D>>,
    /// The geometries of the primitives added so far, by primitive and sizes (their bits).
    primitives: Vec<(Vec<u64>, Arc<BodyGeometry<D>>)>,
}

/// A body's position, rotation, velocity and angular velocity.
type Motion<const D: usize> = (Point<D>, Rotation<D>, Vector<D>, Angular<D>);

pub(super) enum Any {
    D2(Typed<2>),
    D3(Typed<3>),
}

/// Bodies repelling each other and the walls, with gravity and drag, without a fluid. Each
/// body's distance field is computed once in its own frame; the contact forces and a step are
/// those of [`Simulation`], so a world set up like a case file gives that case's numbers bit
/// for bit.
///
/// ```
/// use tumble::dynamic::{Mesh, Primitive, World, WorldOptions};
/// // A disk of radius 0.1 resting on the floor of the unit square (tag 3, `ymin`).
/// let square = Mesh::new_box(&[0.0, 0.0], &[1.0, 1.0], &[16, 16])?;
/// let options = WorldOptions {
///     gravity: vec![0.0, -981.0],
///     drag_linear: 20.0,
///     ..WorldOptions::new(2, 0.03, 1e-6)
/// };
/// let mut world = World::new(2, Some((&square, &[3])), &options)?;
/// let disk = world.add_body(Primitive::Ellipsoid, &[0.1, 0.1], 1.0, &[0.5, 0.115], &[0.0])?;
/// world.step(1e-4, 10_000)?;
/// let (forces, _torques) = world.contact_forces()?;
/// // At rest, the floor carries the disk's weight.
/// let weight = world.body(disk)?.mass * 981.0;
/// assert!((forces[1] / weight - 1.0).abs() < 1e-3);
/// # Ok::<(), tumble::dynamic::Error>(())
/// ```
pub struct World {
    pub(super) any: Any,
    /// The world's own threads, if it was given a count.
    pub(super) pool: Option<rayon::ThreadPool>,
}

/// Runs `$body` with `$w` the typed world and `$d` its dimension ([`by_dim!`]), on the world's threads.
macro_rules! on_pool {
    ($world:expr, $w:ident, $d:ident => $body:expr) => {{
        let World { any, pool } = $world;
        within(pool, || by_dim!(Any, any, $w, $d => $body))
    }};
}

/// The number of orientation and angular velocity components in dimension `dim`: (1, 1) in 2D,
/// (4, 3) in 3D.
pub fn rotation_sizes(dim: usize) -> (usize, usize) {
    if dim == 2 {
        (1, 1)
    } else {
        (4, 3)
    }
}

impl World {
    /// A world of dimension `dim` (2 or 3) without bodies; `domain`, if given, is its mesh and the
    /// tags of its wall facets.
    pub fn new(dim: usize, domain: Option<(&Mesh, &[i32])>, options: &WorldOptions) -> Result<Self, Error> {
        if let Some((mesh, tags)) = domain {
            if mesh.dim() != dim {
                return Err(Error::argument(
                    "dim",
                    format!("is {dim}, but the domain is a {}D mesh", mesh.dim()),
                ));
            }
            if tags.is_empty() {
                return Err(Error::argument(
                    "wall_tags",
                    "is empty: give the tags of the domain's walls",
                ));
            }
            let known = mesh.facet_tags();
            if let Some(tag) = tags.iter().find(|t| !known.contains(t)) {
                return Err(Error::argument(
                    "wall_tags",
                    format!("the domain has no facet tagged {tag}; its facet tags are {known:?}"),
                ));
            }
        }
        let any = match (dim, domain.map(|(m, t)| (m.any(), t))) {
            (2, None) => Any::D2(Typed::new(options, None)?),
            (3, None) => Any::D3(Typed::new(options, None)?),
            (2, Some((AnyMesh::D2(m), t))) => Any::D2(Typed::new(options, Some((m.clone(), t.to_vec())))?),
            (3, Some((AnyMesh::D3(m), t))) => Any::D3(Typed::new(options, Some((m.clone(), t.to_vec())))?),
            _ => return Err(Error::argument("dim", format!("is {dim}, expected 2 or 3"))),
        };
        let pool = thread_pool(options.threads)?;
        Ok(World { any, pool })
    }

    /// 2 or 3.
    pub fn dim(&self) -> usize {
        match &self.any {
            Any::D2(_) => 2,
            Any::D3(_) => 3,
        }
    }

    /// The number of bodies.
    pub fn num_bodies(&mut self) -> usize {
        by_dim!(Any, &mut self.any, w, D => w.sim.bodies.len())
    }

    /// Adds a body of shape `primitive` with `sizes` (`dim` numbers), `density`, at `position`
    /// with `orientation` ([`BodyState`]'s), at rest; its index (0, 1, … in the order added).
    pub fn add_body(
        &mut self,
        primitive: Primitive,
        sizes: &[f64],
        density: f64,
        position: &[f64],
        orientation: &[f64],
    ) -> Result<usize, Error> {
        on_pool!(self, w, D => {
            length("sizes", sizes, D)?;
            if let Some(k) = sizes.iter().position(|x| !(x.is_finite() && *x > 0.0)) {
                return Err(Error::argument("sizes", format!("component {k} is {}, expected a positive number", sizes[k])));
            }
            let smallest = sizes.iter().copied().fold(f64::INFINITY, f64::min);
            match primitive {
                Primitive::Ellipsoid => {
                    let shape = Ellipsoid { semi_axes: std::array::from_fn::<f64, D, _>(|k| sizes[k]) };
                    w.add_primitive(primitive, sizes, &shape, smallest, density, position, orientation)
                }
                Primitive::Box => {
                    let shape = Cuboid { half: std::array::from_fn::<f64, D, _>(|k| sizes[k] / 2.0) };
                    w.add_primitive(primitive, sizes, &shape, smallest / 2.0, density, position, orientation)
                }
            }
        })
    }

    /// Adds a polygon (2D): `vertices` holds its corners' `x, y` in order around it, in any
    /// frame (the body frame's origin is the polygon's centroid, at `position`). A polygon whose
    /// edges cross is an error naming two of them.
    pub fn add_polygon(
        &mut self,
        vertices: &[f64],
        density: f64,
        position: &[f64],
        orientation: &[f64],
    ) -> Result<usize, Error> {
        if self.dim() != 2 {
            return Err(Error::argument(
                "vertices",
                "a polygon is a 2D shape (in 3D, give the body's own mesh)",
            ));
        }
        if vertices.len() % 2 != 0 || vertices.len() < 6 {
            return Err(Error::argument(
                "vertices",
                format!("has {} numbers, expected x, y of at least 3 corners", vertices.len()),
            ));
        }
        finite("vertices", vertices)?;
        let polygon = Polygon {
            vertices: vertices.chunks_exact(2).map(|v| Point::<2>::new(v[0], v[1])).collect(),
        };
        if let Some((a, b)) = polygon.crossing() {
            let n = polygon.vertices.len();
            return Err(Error::argument(
                "vertices",
                format!(
                    "edges {a}–{} and {b}–{} meet: a polygon must be simple, its corners listed in order around it",
                    (a + 1) % n,
                    (b + 1) % n
                ),
            ));
        }
        let feature = polygon.bounding_radius() / 10.0;
        let shape: Box<dyn Shape<2>> = Box::new(polygon);
        on_pool!(self, w, D => {
            let shape = planar_shape::<D>(shape).expect("the world is 2D");
            w.add(shape.as_ref(), feature, density, position, orientation)
        })
    }

    /// Adds a union of disks (2D) or balls (3D): `centres` (`dim` numbers each, in any frame: the
    /// body frame's origin is the union's centroid, at `position`) and their `radii`.
    pub fn add_spheres(
        &mut self,
        centres: &[f64],
        radii: &[f64],
        density: f64,
        position: &[f64],
        orientation: &[f64],
    ) -> Result<usize, Error> {
        let d = self.dim();
        if radii.is_empty() {
            return Err(Error::argument("radii", "is empty: give at least one sphere"));
        }
        length("centres", centres, radii.len() * d)?;
        finite("centres", centres)?;
        if let Some(k) = radii.iter().position(|r| !(r.is_finite() && *r > 0.0)) {
            return Err(Error::argument(
                "radii",
                format!("radius {k} is {}, expected a positive number", radii[k]),
            ));
        }
        let feature = radii.iter().copied().fold(f64::INFINITY, f64::min);
        on_pool!(self, w, D => {
            let parts: Vec<Box<dyn Shape<D>>> = centres
                .chunks_exact(D)
                .zip(radii)
                .map(|(c, &radius)| Box::new(Ball { centre: Point::<D>::from_column_slice(c), radius }) as Box<dyn Shape<D>>)
                .collect();
            w.add(&Union { parts }, feature, density, position, orientation)
        })
    }

    /// Adds a body meshed on its own (a Gmsh mesh of the body, say): its boundary facets are its
    /// surface and its cells give its area or volume and inertia; the body frame's origin is its
    /// centroid, at `position`. Its field's lattice spacing is `lattice_step`, or ρ/4.
    pub fn add_mesh_body(
        &mut self,
        body: &Mesh,
        density: f64,
        position: &[f64],
        orientation: &[f64],
    ) -> Result<usize, Error> {
        if body.dim() != self.dim() {
            return Err(Error::argument(
                "body",
                format!("is a {}D mesh in a {}D world", body.dim(), self.dim()),
            ));
        }
        let World { any, pool } = self;
        within(pool, || match (any, body.any()) {
            (Any::D2(w), AnyMesh::D2(m)) => w.add_with(f64::INFINITY, density, position, orientation, |h, band| {
                BodyGeometry::from_mesh(m, h, band).map(Arc::new)
            }),
            (Any::D3(w), AnyMesh::D3(m)) => w.add_with(f64::INFINITY, density, position, orientation, |h, band| {
                BodyGeometry::from_mesh(m, h, band).map(Arc::new)
            }),
            _ => unreachable!("the dimensions were compared"),
        })
    }

    /// Body `index`'s state.
    pub fn body(&mut self, index: usize) -> Result<BodyState, Error> {
        by_dim!(Any, &mut self.any, w, D => Ok(BodyState::of(body(&w.sim.bodies, index)?)))
    }

    /// Sets the parts of body `index`'s state that are given (a 3D quaternion is normalised);
    /// nothing changes if one is refused.
    pub fn set_body(
        &mut self,
        index: usize,
        position: Option<&[f64]>,
        orientation: Option<&[f64]>,
        velocity: Option<&[f64]>,
        angular_velocity: Option<&[f64]>,
    ) -> Result<(), Error> {
        by_dim!(Any, &mut self.any, w, D => {
            let mut b = body(&w.sim.bodies, index)?.clone();
            set_motion(&mut b, position, orientation, velocity, angular_velocity)?;
            w.sim.bodies[index] = b;
            Ok(())
        })
    }

    /// The contact force (`dim` numbers per body) and torque (2D: 1 per body; 3D: 3) on every
    /// body at the current state. A body whose centre is outside the domain is an error naming it.
    pub fn contact_forces(&mut self) -> Result<(Vec<f64>, Vec<f64>), Error> {
        on_pool!(self, w, D => {
            w.ready()?;
            w.sim.contact_forces(0.0).map_err(Error::failed)?;
            let forces = w.sim.force.iter().flat_map(|f| f.iter().copied()).collect();
            let torques = w
                .sim
                .torque
                .iter()
                .flat_map(<Dim<D> as Kinematics<D>>::angular_components)
                .collect();
            Ok((forces, torques))
        })
    }

    /// The world's state between two steps, as bytes (the CBOR of [`SimulationState`]: the
    /// bodies' motion, time, steps, the last contact forces and the walls' hints). Restored into
    /// a world set up the same way ([`Self::restore`]), the steps that follow are those this
    /// world would have done, bit for bit.
    ///
    /// ```
    /// use tumble::dynamic::{Mesh, Primitive, World, WorldOptions};
    /// let floor = Mesh::new_box(&[0.0, 0.0], &[2.0, 2.0], &[16, 16])?;
    /// let options = WorldOptions { gravity: vec![0.0, -981.0], ..WorldOptions::new(2, 0.03, 1e-6) };
    /// let mut world = World::new(2, Some((&floor, &[1, 2, 3, 4])), &options)?;
    /// world.add_body(Primitive::Ellipsoid, &[0.2, 0.1], 1.5, &[1.0, 0.2], &[0.3])?;
    /// world.step(1e-4, 500)?;
    /// let saved = world.save();
    /// world.step(1e-4, 500)?;
    /// let ahead = world.body(0)?;
    /// world.restore(&saved)?;
    /// world.step(1e-4, 500)?;
    /// assert_eq!(world.body(0)?, ahead);
    /// # Ok::<(), tumble::dynamic::Error>(())
    /// ```
    pub fn save(&mut self) -> Vec<u8> {
        let state = by_dim!(Any, &mut self.any, w, D => w.sim.state());
        let mut bytes = Vec::new();
        ciborium::into_writer(&state, &mut bytes).expect("a state encodes into memory");
        bytes
    }

    /// Continues from `bytes`, saved by [`Self::save`] from a world with the same dimension and
    /// bodies (added in the same order). Nothing changes on an error.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let state: SimulationState = ciborium::from_reader(bytes)
            .map_err(|e| Error::argument("state", format!("is not a saved world state: {e}")))?;
        by_dim!(Any, &mut self.any, w, D => {
            // A world's bodies are its indices: the state must hold them all, in order.
            let names = |names: Vec<&str>| names.join(", ");
            if state.bodies.len() != w.sim.bodies.len()
                || state.bodies.iter().zip(&w.sim.bodies).any(|(s, b)| s.name != b.name)
            {
                return Err(Error::argument(
                    "state",
                    format!(
                        "the saved state does not fit this world: it holds the bodies [{}], the world [{}]",
                        names(state.bodies.iter().map(|s| s.name.as_str()).collect()),
                        names(w.sim.bodies.iter().map(|b| b.name.as_str()).collect())
                    ),
                ));
            }
            if !w.sim.bodies.is_empty() {
                w.ready()?;
            }
            w.sim.restore(&state).map_err(|e| Error::argument("state", e))
        })
    }

    /// Advances the world by `steps` steps of `dt` ([`Simulation::step`]). A body whose state
    /// stops being finite or whose centre leaves the domain is an error naming it, and the
    /// bodies keep the state of the step before.
    pub fn step(&mut self, dt: f64, steps: usize) -> Result<(), Error> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(Error::argument("dt", format!("is {dt}, expected a positive number")));
        }
        on_pool!(self, w, D => {
            w.ready()?;
            for _ in 0..steps {
                w.motion.clear();
                w.motion
                    .extend(w.sim.bodies.iter().map(|b| (b.position, b.rotation, b.velocity, b.angular_velocity)));
                // A world's bodies keep their indices: one through an opening (a marked
                // boundary that is not a wall) is an error, as one through a wall is.
                let crossed = w.sim.step(dt).and_then(|()| match w.sim.crossings().first() {
                    Some((k, opening)) => Err(SimError::Outside {
                        body: w.sim.bodies[*k].name.clone(),
                        detail: format!("its centre left the domain through the opening '{opening}'"),
                    }),
                    None => Ok(()),
                });
                if let Err(e) = crossed {
                    for (b, &(x, r, v, o)) in w.sim.bodies.iter_mut().zip(&w.motion) {
                        (b.position, b.rotation, b.velocity, b.angular_velocity) = (x, r, v, o);
                    }
                    return Err(Error::failed(e));
                }
            }
            Ok(())
        })
    }
}

impl<const D: usize> Typed<D>
where
    Dim<D>: Kinematics<D>,
{
    fn new(options: &WorldOptions, domain: Option<(SimplexMesh<D>, Vec<i32>)>) -> Result<Self, Error> {
        let non_negative = |name: &str, x: f64| {
            if x.is_finite() && x >= 0.0 {
                Ok(x)
            } else {
                Err(Error::argument(name, format!("is {x}, expected a number ≥ 0")))
            }
        };
        let model = contact_model(&options.contact)?;
        length("gravity", &options.gravity, D)?;
        finite("gravity", &options.gravity)?;
        let drag = Drag {
            linear: non_negative("drag_linear", options.drag_linear)?,
            angular: non_negative("drag_angular", options.drag_angular)?,
        };
        if let Some(h) = options.lattice_step {
            positive("lattice_step", h)?;
        }
        let broad = method::<D>("auto").expect("the automatic broad phase exists");
        let sim = Simulation::new(
            Vec::new(),
            None,
            Vector::<D>::from_column_slice(&options.gravity),
            drag,
            ContactSolver::new(model, broad),
        );
        Ok(Typed {
            sim,
            domain,
            lattice_step: options.lattice_step,
            motion: Vec::new(),
            primitives: Vec::new(),
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
    ) -> Result<usize, Error> {
        self.add_with(feature, density, position, orientation, |h, band| {
            BodyGeometry::from_shape(shape, h, band).map(Arc::new)
        })
    }

    /// Adds a body of the primitive `primitive` of `sizes` ([`Self::add`]), sharing the geometry
    /// of an earlier body of the same primitive and sizes: a thousand equal spheres hold one
    /// distance field, and a world split across ranks sends a body as its shape's index.
    #[allow(clippy::too_many_arguments)]
    fn add_primitive(
        &mut self,
        primitive: Primitive,
        sizes: &[f64],
        shape: &dyn Shape<D>,
        feature: f64,
        density: f64,
        position: &[f64],
        orientation: &[f64],
    ) -> Result<usize, Error> {
        let key: Vec<u64> = std::iter::once(primitive as u64)
            .chain(sizes.iter().map(|x| x.to_bits()))
            .collect();
        let known = self.primitives.iter().find(|(k, _)| *k == key).map(|(_, g)| g.clone());
        let index = self.add_with(feature, density, position, orientation, |h, band| match known {
            Some(g) => Ok(g),
            None => BodyGeometry::from_shape(shape, h, band).map(Arc::new),
        })?;
        if !self.primitives.iter().any(|(k, _)| *k == key) {
            self.primitives.push((key, self.sim.bodies[index].geometry.clone()));
        }
        Ok(index)
    }

    /// Adds a body whose geometry `build(h, band)` makes (smallest size `feature`); its index.
    fn add_with(
        &mut self,
        feature: f64,
        density: f64,
        position: &[f64],
        orientation: &[f64],
        build: impl FnOnce(f64, f64) -> Result<Arc<BodyGeometry<D>>, BodyError>,
    ) -> Result<usize, Error> {
        if !(density.is_finite() && density > 0.0) {
            return Err(Error::argument(
                "density",
                format!("is {density}, expected a positive number"),
            ));
        }
        let (Some(position), Some(rotation)) = pose::<D>(Some(position), Some(orientation))? else {
            unreachable!("both were given")
        };
        let model = &self.sim.contact.model;
        let h = self.lattice_step.unwrap_or(default_lattice_step(model.range, feature));
        let geometry = build(h, model.band()).map_err(Error::failed)?;
        let index = self.sim.bodies.len();
        let mut body = RigidBody::new(&format!("body{index}"), geometry, density, position);
        body.rotation = rotation;
        self.sim.bodies.push(body);
        self.sim.force.push(Vector::<D>::zeros());
        self.sim.torque.push(<Dim<D> as Kinematics<D>>::zero());
        self.sim.walls = None;
        Ok(index)
    }

    /// Builds the walls' field if a body was added since.
    pub(super) fn ready(&mut self) -> Result<(), Error> {
        if self.sim.bodies.is_empty() {
            return Err(Error::failed("the world has no body: add one first"));
        }
        if self.sim.walls.is_none() {
            if let Some((mesh, tags)) = &self.domain {
                let reach = self.sim.bodies.iter().map(|b| b.geometry.radius).fold(0.0, f64::max)
                    + self.sim.contact.model.band();
                self.sim.walls = Some(Walls::from_markers(mesh.clone(), tags, reach).map_err(Error::failed)?);
            }
        }
        Ok(())
    }
}

fn body<const D: usize>(bodies: &[RigidBody<D>], index: usize) -> Result<&RigidBody<D>, Error>
where
    Dim<D>: Kinematics<D>,
{
    bodies
        .get(index)
        .ok_or_else(|| Error::argument("index", format!("is {index}, the world has {} bodies", bodies.len())))
}
