//! The Python module `tumble` (its compiled part, `tumble._native`): meshes, narrow-band distance
//! fields and dry bodies in contact, over [`tumble::dynamic`]. Arrays come in as NumPy arrays
//! without copies when they are C-contiguous `float64` (`(N, dim)` for points) and go out as new
//! NumPy arrays; the GIL is released while the library works. A wrong argument raises
//! `ValueError`, a refusal of the library `tumble.TumbleError`, each with the library's message.

// Python constructors take their options as keyword arguments, one Rust parameter each.
#![allow(clippy::too_many_arguments)]

use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use tumble::contact::{ContactParameters, Law, Lubrication};
use tumble::dynamic::{self, ErrorKind, Primitive};

create_exception!(
    _native,
    TumbleError,
    PyException,
    "The library refused the input or the state."
);

/// The Python exception for a library error.
fn raise(e: dynamic::Error) -> PyErr {
    match e.kind {
        ErrorKind::InvalidArgument => PyValueError::new_err(e.message),
        ErrorKind::Failed => TumbleError::new_err(e.message),
    }
}

/// The rows of `points` as one flat slice: an `(N, dim)` array, C-contiguous (a copy otherwise).
fn flat_points<'a>(
    points: &'a PyReadonlyArray2<'_, f64>,
    dim: usize,
    name: &str,
) -> PyResult<std::borrow::Cow<'a, [f64]>> {
    let shape = points.shape();
    if shape[1] != dim {
        return Err(PyValueError::new_err(format!(
            "{name}: has shape {shape:?}, expected (N, {dim})"
        )));
    }
    // `as_slice` also accepts Fortran order, whose memory is not row after row.
    Ok(match points.as_slice() {
        Ok(s) if points.is_c_contiguous() => std::borrow::Cow::Borrowed(s),
        _ => std::borrow::Cow::Owned(points.as_array().iter().copied().collect()),
    })
}

/// A triangle (2D) or tetrahedral (3D) mesh with its facet and cell tags.
#[pyclass(module = "tumble", frozen)]
struct Mesh(dynamic::Mesh);

#[pymethods]
impl Mesh {
    /// A mesh from arrays: `points` `(N, dim)` float64, `cells` `(M, dim + 1)` node indices
    /// (counter-clockwise triangles, right-handed tetrahedra), `facets` `(F, dim)` node indices
    /// of the tagged facets and `facet_tags` `(F,)`, `cell_tags` `(M,)` or None.
    #[new]
    #[pyo3(signature = (points, cells, facets, facet_tags, cell_tags = None))]
    fn new(
        py: Python<'_>,
        points: PyReadonlyArray2<'_, f64>,
        cells: PyReadonlyArray2<'_, u32>,
        facets: PyReadonlyArray2<'_, u32>,
        facet_tags: PyReadonlyArray1<'_, i32>,
        cell_tags: Option<PyReadonlyArray1<'_, i32>>,
    ) -> PyResult<Self> {
        let dim = points.shape()[1];
        let points = flat_points(&points, dim, "points")?;
        let cells: Vec<u32> = cells.as_array().iter().copied().collect();
        let facets: Vec<u32> = facets.as_array().iter().copied().collect();
        let facet_tags: Vec<i32> = facet_tags.as_array().iter().copied().collect();
        let cell_tags: Option<Vec<i32>> = cell_tags.map(|t| t.as_array().iter().copied().collect());
        let points: &[f64] = &points;
        py.detach(|| dynamic::Mesh::from_arrays(dim, points, &cells, cell_tags.as_deref(), &facets, &facet_tags))
            .map(Mesh)
            .map_err(raise)
    }

    /// Reads a Gmsh `.msh` file (2.2 or 4.1, ASCII or binary); its physical groups are the tags.
    #[staticmethod]
    fn read_gmsh(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Self> {
        py.detach(|| dynamic::Mesh::read_gmsh(&path)).map(Mesh).map_err(raise)
    }

    /// The box `[lower, upper]` split into `cells[a]` intervals along axis `a`, its faces tagged
    /// 1 to 2 dim and named xmin, xmax, ymin, ymax (zmin, zmax).
    #[staticmethod]
    fn box_(py: Python<'_>, lower: Vec<f64>, upper: Vec<f64>, cells: Vec<usize>) -> PyResult<Self> {
        py.detach(|| dynamic::Mesh::new_box(&lower, &upper, &cells))
            .map(Mesh)
            .map_err(raise)
    }

    /// A disk or ball (the last of `centres` `(n, dim)` and `radii` `(n,)`) with disks or balls
    /// in it, meshed conformingly at element size `h`: sphere k's facets tagged k + 1 and named
    /// `body<k>` (the last `wall`), the inner ones' insides meshed too. A host mesh for trying
    /// `HostContact`.
    #[staticmethod]
    fn balls(py: Python<'_>, centres: PyReadonlyArray2<'_, f64>, radii: Vec<f64>, h: f64) -> PyResult<Self> {
        let dim = centres.shape()[1];
        let flat = flat_points(&centres, dim, "centres")?;
        let flat: &[f64] = &flat;
        py.detach(|| dynamic::Mesh::balls(dim, flat, &radii, h))
            .map(Mesh)
            .map_err(raise)
    }

    /// The box `[lower, upper]` in `cells[a]` intervals per axis, conforming to the spheres of
    /// `centres` `(n, dim)` and `radii` `(n,)` inside it, their insides left out with `holes`:
    /// sphere k's facets tagged k + 1 (`body<k>`), the box's sides n + 1 … n + 2 dim (xmin, xmax,
    /// ymin, ymax, zmin, zmax). A host code's body-fitted mesh of bodies in a box.
    #[staticmethod]
    #[pyo3(signature = (lower, upper, cells, centres, radii, holes = true))]
    fn box_with_balls(
        py: Python<'_>,
        lower: Vec<f64>,
        upper: Vec<f64>,
        cells: Vec<usize>,
        centres: PyReadonlyArray2<'_, f64>,
        radii: Vec<f64>,
        holes: bool,
    ) -> PyResult<Self> {
        let flat = flat_points(&centres, lower.len(), "centres")?;
        let flat: &[f64] = &flat;
        py.detach(|| dynamic::Mesh::box_with_balls(&lower, &upper, &cells, flat, &radii, holes))
            .map(Mesh)
            .map_err(raise)
    }

    /// 2 or 3.
    #[getter]
    fn dim(&self) -> usize {
        self.0.dim()
    }

    /// The node coordinates, `(N, dim)`.
    #[getter]
    fn points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let dim = self.0.dim();
        let flat = self.0.points();
        let n = flat.len() / dim;
        flat.into_pyarray(py).reshape([n, dim])
    }

    /// The cells' node indices, `(M, dim + 1)`.
    #[getter]
    fn cells<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let per = self.0.dim() + 1;
        let cells = self.0.cells().to_vec();
        let n = cells.len() / per;
        cells.into_pyarray(py).reshape([n, per])
    }

    /// The tagged facets' node indices, `(F, dim)`.
    #[getter]
    fn facets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let dim = self.0.dim();
        let facets = self.0.facets().0.to_vec();
        let n = facets.len() / dim;
        facets.into_pyarray(py).reshape([n, dim])
    }

    /// Each tagged facet's tag, `(F,)`.
    #[getter]
    fn facet_tags<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        self.0.facets().1.to_vec().into_pyarray(py)
    }

    /// The same mesh with its nodes at `points` `(N, dim)`: a host mesh that moved without
    /// changing its cells (its topology kept, cheaper than building it again).
    fn with_points(&self, py: Python<'_>, points: PyReadonlyArray2<'_, f64>) -> PyResult<Self> {
        let flat = flat_points(&points, self.0.dim(), "points")?;
        let flat: &[f64] = &flat;
        py.detach(|| self.0.with_points(flat)).map(Mesh).map_err(raise)
    }

    /// The tag of the facets named `name`.
    fn facet_tag(&self, name: &str) -> PyResult<i32> {
        self.0.facet_tag(name).map_err(raise)
    }

    fn __repr__(&self) -> String {
        let (n, m, f) = self.0.sizes();
        format!("Mesh({}D, {n} nodes, {m} cells, {f} tagged facets)", self.0.dim())
    }
}

/// The narrow-band distance to some tagged facets of a mesh, at its nodes.
#[pyclass(module = "tumble", frozen)]
struct DistanceField(dynamic::Distance);

#[pymethods]
impl DistanceField {
    /// The distance to the facets of `mesh` tagged with any of `tags`, within `max_distance`
    /// of them (infinity: the whole mesh; beyond it `default_value`, None meaning
    /// `max_distance`); negative inside the front when `signed`; exact to the closest front
    /// facet at each node when `closest_point`.
    #[new]
    #[pyo3(signature = (mesh, tags, max_distance = f64::INFINITY, default_value = None, signed = true, closest_point = true, curved_front = false))]
    fn new(
        py: Python<'_>,
        mesh: &Mesh,
        tags: Vec<i32>,
        max_distance: f64,
        default_value: Option<f64>,
        signed: bool,
        closest_point: bool,
        curved_front: bool,
    ) -> PyResult<Self> {
        let options = dynamic::DistanceOptions {
            max_distance,
            default_value,
            signed,
            closest_point,
            curved_front,
        };
        let mesh = &mesh.0;
        py.detach(|| dynamic::Distance::new(mesh, &tags, &options))
            .map(DistanceField)
            .map_err(raise)
    }

    /// One value per node, `(N,)`.
    #[getter]
    fn values<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.0.values().to_vec().into_pyarray(py)
    }

    /// Whether the march reached each node (its value is a distance), `(N,)` bool.
    #[getter]
    fn reached<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.0.reached().to_vec().into_pyarray(py)
    }

    /// The field's linear interpolant at `points` `(K, dim)`: `(K,)`, NaN outside the mesh.
    fn at<'py>(&self, py: Python<'py>, points: PyReadonlyArray2<'py, f64>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let flat = flat_points(&points, self.0.mesh().dim(), "points")?;
        let mut values = vec![0.0; points.shape()[0]];
        let flat: &[f64] = &flat;
        py.detach(|| self.0.at(flat, &mut values)).map_err(raise)?;
        Ok(values.into_pyarray(py))
    }

    /// Where the field is smallest on the facets tagged `tags`: `(point, value)`, or None when
    /// no node of them is in the band.
    fn argmin<'py>(&self, py: Python<'py>, tags: Vec<i32>) -> Option<(Bound<'py, PyArray1<f64>>, f64)> {
        self.0.argmin(&tags).map(|(x, v)| (x.into_pyarray(py), v))
    }
}

/// Bodies repelling each other and the walls, with gravity and drag, without a fluid.
#[pyclass(module = "tumble")]
struct World(dynamic::World);

/// The law named `name`.
fn law(name: &str) -> PyResult<Law> {
    Law::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("law: unknown '{name}'; expected one of {}", Law::NAMES)))
}

#[pymethods]
impl World {
    /// A world of dimension `dim`; `domain` (a Mesh) and `wall_tags` its walls, if any. The
    /// contact's keywords are a case's `[contact]` keys: `law` one of "spec", "glowinski",
    /// "patches" (repulsive: `stiffness` ε, force ∝ 1/ε, `wall_stiffness` ε_W, None:
    /// `stiffness`, `damping` a normal dashpot) or "collision" (`restitution` e, `duration` t_c,
    /// `friction` μ, `rolling` μ_r); `range` is ρ, the range of a repulsive force or where a
    /// collision begins. `lubrication` = (viscosity μ, cut h_c, roughness h_r) adds the film's
    /// force below the gap h_c beside the law (None: no film), less the share `lubrication_share`
    /// in [0, 1) of it that the host's mesh carries itself (None: 0), and with
    /// `lubrication_tangential` (True by default) its resistance to the surfaces' sliding and
    /// turning past each other too. `lattice_step` the spacing
    /// of each body's own field (None: min(ρ/4, its smallest size/20)); `threads` the threads of
    /// a pool of the world's own (None: every core; the results do not depend on it).
    #[new]
    #[pyo3(signature = (dim, range, stiffness = None, domain = None, wall_tags = Vec::new(), gravity = None, drag_linear = 0.0, drag_angular = 0.0, law = "glowinski", wall_stiffness = None, damping = None, restitution = None, duration = None, friction = None, rolling = None, lubrication = None, lubrication_share = None, lubrication_tangential = true, lattice_step = None, threads = None))]
    fn new(
        py: Python<'_>,
        dim: usize,
        range: f64,
        stiffness: Option<f64>,
        domain: Option<&Mesh>,
        wall_tags: Vec<i32>,
        gravity: Option<Vec<f64>>,
        drag_linear: f64,
        drag_angular: f64,
        law: &str,
        wall_stiffness: Option<f64>,
        damping: Option<f64>,
        restitution: Option<f64>,
        duration: Option<f64>,
        friction: Option<f64>,
        rolling: Option<f64>,
        lubrication: Option<(f64, f64, f64)>,
        lubrication_share: Option<f64>,
        lubrication_tangential: bool,
        lattice_step: Option<f64>,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let contact = ContactParameters {
            law: self::law(law)?,
            range,
            stiffness,
            wall_stiffness,
            damping,
            restitution,
            duration,
            friction,
            rolling,
            lubrication: lubrication.map(|(viscosity, cut, roughness)| Lubrication {
                viscosity,
                cut,
                roughness,
                share: lubrication_share.unwrap_or(0.0),
                tangential: lubrication_tangential,
            }),
        };
        let options = dynamic::WorldOptions {
            gravity: gravity.unwrap_or_else(|| vec![0.0; dim]),
            drag_linear,
            drag_angular,
            contact,
            lattice_step,
            threads,
        };
        let domain = domain.map(|m| (&m.0, &wall_tags[..]));
        py.detach(|| dynamic::World::new(dim, domain, &options))
            .map(World)
            .map_err(raise)
    }

    /// Adds an ellipse (2D) or ellipsoid (3D) of `semi_axes` and `density` at `position` with
    /// `orientation` (2D: the angle; 3D: the quaternion w, x, y, z; None: none), at rest; its
    /// index.
    #[pyo3(signature = (semi_axes, density, position, orientation = None))]
    fn add_ellipsoid(
        &mut self,
        py: Python<'_>,
        semi_axes: Vec<f64>,
        density: f64,
        position: Vec<f64>,
        orientation: Option<Vec<f64>>,
    ) -> PyResult<usize> {
        self.add(py, Primitive::Ellipsoid, semi_axes, density, position, orientation)
    }

    /// Adds a rectangle (2D) or box (3D) of side lengths `sides`, as `add_ellipsoid`.
    #[pyo3(signature = (sides, density, position, orientation = None))]
    fn add_box(
        &mut self,
        py: Python<'_>,
        sides: Vec<f64>,
        density: f64,
        position: Vec<f64>,
        orientation: Option<Vec<f64>>,
    ) -> PyResult<usize> {
        self.add(py, Primitive::Box, sides, density, position, orientation)
    }

    /// Adds a polygon (2D) of corners `vertices` `(N, 2)`, in order around it, in any frame (its
    /// centroid is placed at `position`); its index.
    #[pyo3(signature = (vertices, density, position, orientation = None))]
    fn add_polygon(
        &mut self,
        py: Python<'_>,
        vertices: PyReadonlyArray2<'_, f64>,
        density: f64,
        position: Vec<f64>,
        orientation: Option<Vec<f64>>,
    ) -> PyResult<usize> {
        let vertices = flat_points(&vertices, 2, "vertices")?;
        let orientation = self.orientation(orientation);
        let world = &mut self.0;
        let vertices: &[f64] = &vertices;
        py.detach(|| world.add_polygon(vertices, density, &position, &orientation))
            .map_err(raise)
    }

    /// Adds a union of disks (2D) or balls (3D) of `centres` `(N, dim)` (in any frame: the
    /// union's centroid is placed at `position`) and `radii` `(N,)`; its index.
    #[pyo3(signature = (centres, radii, density, position, orientation = None))]
    fn add_spheres(
        &mut self,
        py: Python<'_>,
        centres: PyReadonlyArray2<'_, f64>,
        radii: Vec<f64>,
        density: f64,
        position: Vec<f64>,
        orientation: Option<Vec<f64>>,
    ) -> PyResult<usize> {
        let centres = flat_points(&centres, self.0.dim(), "centres")?;
        let orientation = self.orientation(orientation);
        let world = &mut self.0;
        let centres: &[f64] = &centres;
        py.detach(|| world.add_spheres(centres, &radii, density, &position, &orientation))
            .map_err(raise)
    }

    /// Adds a body meshed on its own (`body`, a Mesh of the world's dimension): its boundary is
    /// its surface, its centroid is placed at `position`; its index.
    #[pyo3(signature = (body, density, position, orientation = None))]
    fn add_mesh_body(
        &mut self,
        py: Python<'_>,
        body: &Mesh,
        density: f64,
        position: Vec<f64>,
        orientation: Option<Vec<f64>>,
    ) -> PyResult<usize> {
        let orientation = self.orientation(orientation);
        let world = &mut self.0;
        let body = &body.0;
        py.detach(|| world.add_mesh_body(body, density, &position, &orientation))
            .map_err(raise)
    }

    /// The number of bodies.
    #[getter]
    fn num_bodies(&mut self) -> usize {
        self.0.num_bodies()
    }

    /// Body `index`'s state: a dict of `position`, `orientation`, `velocity`,
    /// `angular_velocity` arrays and its `mass`.
    fn body<'py>(&mut self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let state = self.0.body(index).map_err(raise)?;
        let dict = pyo3::types::PyDict::new(py);
        dict.set_item("position", state.position.into_pyarray(py))?;
        dict.set_item("orientation", state.orientation.into_pyarray(py))?;
        dict.set_item("velocity", state.velocity.into_pyarray(py))?;
        dict.set_item("angular_velocity", state.angular_velocity.into_pyarray(py))?;
        dict.set_item("mass", state.mass)?;
        Ok(dict)
    }

    /// Sets the given parts of body `index`'s state; nothing changes if one is refused.
    #[pyo3(signature = (index, position = None, orientation = None, velocity = None, angular_velocity = None))]
    fn set_body(
        &mut self,
        index: usize,
        position: Option<Vec<f64>>,
        orientation: Option<Vec<f64>>,
        velocity: Option<Vec<f64>>,
        angular_velocity: Option<Vec<f64>>,
    ) -> PyResult<()> {
        self.0
            .set_body(
                index,
                position.as_deref(),
                orientation.as_deref(),
                velocity.as_deref(),
                angular_velocity.as_deref(),
            )
            .map_err(raise)
    }

    /// The contact forces `(n, dim)` and torques (2D: `(n,)`; 3D: `(n, 3)`) on the bodies now.
    #[allow(clippy::type_complexity)]
    fn contact_forces<'py>(&mut self, py: Python<'py>) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyAny>)> {
        let dim = self.0.dim();
        let world = &mut self.0;
        let (forces, torques) = py.detach(|| world.contact_forces()).map_err(raise)?;
        pair(py, dim, forces, torques)
    }

    /// The world's state between two steps as bytes; `restore` continues from them, bit for bit.
    fn save<'py>(&mut self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        pyo3::types::PyBytes::new(py, &self.0.save())
    }

    /// Continues from a state `save` gave, of a world with the same bodies.
    fn restore(&mut self, state: &[u8]) -> PyResult<()> {
        self.0.restore(state).map_err(raise)
    }

    /// Advances the world by `steps` steps of `dt`.
    #[pyo3(signature = (dt, steps = 1))]
    fn step(&mut self, py: Python<'_>, dt: f64, steps: usize) -> PyResult<()> {
        let world = &mut self.0;
        py.detach(|| world.step(dt, steps)).map_err(raise)
    }
}

impl World {
    /// `orientation`, or none (the identity) in the world's dimension.
    fn orientation(&self, orientation: Option<Vec<f64>>) -> Vec<f64> {
        orientation.unwrap_or_else(|| match self.0.dim() {
            2 => vec![0.0],
            _ => vec![1.0, 0.0, 0.0, 0.0],
        })
    }

    fn add(
        &mut self,
        py: Python<'_>,
        primitive: Primitive,
        sizes: Vec<f64>,
        density: f64,
        position: Vec<f64>,
        orientation: Option<Vec<f64>>,
    ) -> PyResult<usize> {
        let orientation = self.orientation(orientation);
        let world = &mut self.0;
        py.detach(|| world.add_body(primitive, &sizes, density, &position, &orientation))
            .map_err(raise)
    }
}

/// Contact on a host code's own mesh: the bodies are tagged facets of a mesh that follows them.
#[pyclass(module = "tumble")]
struct HostContact(dynamic::HostContact);

#[pymethods]
impl HostContact {
    /// Bodies whose boundaries are the facets of `mesh` tagged `body_tags` (one tag per body)
    /// and walls tagged `wall_tags`. `range` is ρ, `stiffness` ε, `wall_stiffness` ε_W (None:
    /// `stiffness`), `law` one of "spec", "glowinski", "patches" (every patch of contact);
    /// `threads` the threads of a pool of its own (None: every core).
    #[new]
    #[pyo3(signature = (mesh, body_tags, range, stiffness, wall_tags = Vec::new(), law = "glowinski", wall_stiffness = None, threads = None))]
    fn new(
        py: Python<'_>,
        mesh: &Mesh,
        body_tags: Vec<i32>,
        range: f64,
        stiffness: f64,
        wall_tags: Vec<i32>,
        law: &str,
        wall_stiffness: Option<f64>,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let options = dynamic::HostOptions {
            law: self::law(law)?,
            range,
            stiffness,
            wall_stiffness,
            threads,
        };
        let mesh = &mesh.0;
        py.detach(|| dynamic::HostContact::new(mesh, &body_tags, &wall_tags, &options))
            .map(HostContact)
            .map_err(raise)
    }

    /// 2 or 3.
    #[getter]
    fn dim(&self) -> usize {
        self.0.dim()
    }

    /// The number of bodies.
    #[getter]
    fn num_bodies(&self) -> usize {
        self.0.num_bodies()
    }

    /// Finds the contacts on `mesh` (the one given, or the same cells moved by `with_points`)
    /// with the bodies' centres of mass at `centres` `(n, dim)`; their number.
    fn find_contacts(&mut self, py: Python<'_>, mesh: &Mesh, centres: PyReadonlyArray2<'_, f64>) -> PyResult<usize> {
        let flat = flat_points(&centres, self.0.dim(), "centres")?;
        let flat: &[f64] = &flat;
        let (host, mesh) = (&mut self.0, &mesh.0);
        py.detach(|| host.find_contacts(mesh, flat)).map_err(raise)
    }

    /// The last contacts found, as arrays: `i` and `j` `(k,)` (the bodies; `j` is -1 for the
    /// walls), `gap` `(k,)`, `point_i`, `point_j` and `normal` `(k, dim)` (the normal points
    /// from `j` towards `i`).
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let c = self.0.contacts();
        let dim = self.0.dim();
        let n = c.gap.len();
        let body = |b: &u32| if *b == tumble::contact::WALL { -1 } else { *b as i64 };
        let out = pyo3::types::PyDict::new(py);
        out.set_item("i", c.i.iter().map(body).collect::<Vec<i64>>().into_pyarray(py))?;
        out.set_item("j", c.j.iter().map(body).collect::<Vec<i64>>().into_pyarray(py))?;
        out.set_item("gap", c.gap.into_pyarray(py))?;
        out.set_item("point_i", c.point_i.into_pyarray(py).reshape([n, dim])?)?;
        out.set_item("point_j", c.point_j.into_pyarray(py).reshape([n, dim])?)?;
        out.set_item("normal", c.normal.into_pyarray(py).reshape([n, dim])?)?;
        Ok(out)
    }

    /// The contact forces `(n, dim)` and torques about the centres (2D: `(n,)`; 3D: `(n, 3)`) of
    /// the last contacts.
    #[allow(clippy::type_complexity)]
    fn forces<'py>(&mut self, py: Python<'py>) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyAny>)> {
        let dim = self.0.dim();
        let (forces, torques) = self.0.forces().map_err(raise)?;
        pair(py, dim, forces, torques)
    }

    /// The contact loads on the mesh's nodes `(N, dim)`: each contact's force spread over the
    /// nodes near it, so that the loads on a body's nodes sum to its force and their moments to
    /// its torque; the walls' nodes take the reactions.
    fn node_loads<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let dim = self.0.dim();
        let loads = self.0.node_loads().map_err(raise)?;
        let n = loads.len() / dim;
        loads.into_pyarray(py).reshape([n, dim])
    }

    fn __repr__(&self) -> String {
        format!("HostContact({}D, {} bodies)", self.0.dim(), self.0.num_bodies())
    }
}

/// Forces `(n, dim)` and torques (2D: `(n,)`; 3D: `(n, 3)`) as NumPy arrays.
#[allow(clippy::type_complexity)]
fn pair<'py>(
    py: Python<'py>,
    dim: usize,
    forces: Vec<f64>,
    torques: Vec<f64>,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyAny>)> {
    let n = forces.len() / dim;
    let forces = forces.into_pyarray(py).reshape([n, dim])?;
    let torques = if dim == 2 {
        torques.into_pyarray(py).into_any()
    } else {
        torques.into_pyarray(py).reshape([n, 3])?.into_any()
    };
    Ok((forces, torques))
}

/// Runs the case file `case` into the directory `out` (built and stepped to its end, without
/// progress, the GIL released): its `summary.json` as a JSON string (`None` if the run failed)
/// and the run's notices, each `(kind, text)` with kind `"note"` or `"warning"` (the lines
/// `tumble run` prints as `note: text`, `warning: text`), with the error if it failed.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn run_case(
    py: Python<'_>,
    case: std::path::PathBuf,
    out: std::path::PathBuf,
) -> (Option<String>, Vec<(&'static str, String)>, Option<String>) {
    py.detach(|| {
        let mut notices = Vec::new();
        let mut notify = |n: &tumble::case::Notice| {
            notices.push(match n {
                tumble::case::Notice::Note(text) => ("note", text.clone()),
                tumble::case::Notice::Warning(text) => ("warning", text.clone()),
            })
        };
        let control = tumble::case::Control {
            notify: Some(&mut notify),
            ..Default::default()
        };
        let result = tumble::case::Case::load(&case).and_then(|case| tumble::case::run(&case, &out, control));
        match result {
            Ok(finished) => (Some(finished.summary.to_string()), notices, None),
            Err(e) => (None, notices, Some(e.to_string())),
        }
    })
}

/// The compiled part of the `tumble` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Mesh>()?;
    m.add_class::<DistanceField>()?;
    m.add_class::<World>()?;
    m.add_class::<HostContact>()?;
    m.add_function(wrap_pyfunction!(run_case, m)?)?;
    m.add("TumbleError", m.py().get_type::<TumbleError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
