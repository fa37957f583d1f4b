//! Case files: a whole simulation described in TOML (see [`schema`] for every key, its unit and
//! default), checked, and built into a [`Simulation`].
//!
//! Errors name the file and the field (or the body) and say what is expected; nothing in a case
//! file can make `tumble` panic.

pub mod check;
pub mod checkpoint;
mod control;
mod dry;
mod fluid;
mod immersed;
mod inflow;
mod output;
mod place;
mod run;
pub mod schema;

pub use check::CheckResult;
pub use control::{Control, Notice, Plan, RunHeader, Status};
pub use dry::{run_dry, DryPhaseSeconds, DrySummary};
pub use fluid::{frequency, run_flow, FlowCase, FlowSeconds, FlowSummary, Report};
pub use immersed::{run_immersed, ImmersedPhaseSeconds, ImmersedSummary};
pub use output::{final_tilt, prepare_output, FinalBody};
pub use run::{run, Finished, RunSummary};
pub use schema::CaseFile;

use crate::body::{default_lattice_step, BodyError, BodyGeometry, Dim, Kinematics, RigidBody};
use crate::broad::sets::method;
use crate::contact::{ContactModel, ContactSolver, Law, Walls};
use crate::fmm::FmmError;
use crate::math::{Point, Vector};
use crate::mesh::generate::{axis_box, check_lattice_size};
use crate::mesh::{gmsh, MeshError, SimplexMesh};
use crate::shape::{planar_shape, Ball, Cuboid, Ellipsoid, Polygon, Shape, Union};
use crate::sim::{Drag, Following, SimError, Simulation};
use schema::{AngularSpec, BodySpec, ShapeSpec};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What is wrong with a case, or what stopped its run.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// The file could not be read.
    #[error("{file}: {cause}", file = file.display())]
    Read {
        /// The case file.
        file: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// Not valid TOML, an unknown key, a missing key or a value of the wrong type.
    #[error("{file}: {message}", file = file.display())]
    Parse {
        /// The case file.
        file: PathBuf,
        /// The parser's message (with line, column and key).
        message: String,
    },
    /// A value out of range.
    #[error("{file}{at}: `{field}`: {message}", file = file.display(),
        at = line.map(|l| format!(":{l}")).unwrap_or_default())]
    Invalid {
        /// The case file.
        file: PathBuf,
        /// The line of the key (or of its table, when the key is left to its default).
        line: Option<usize>,
        /// The key, e.g. `contact.range` or `bodies[2].position`.
        field: String,
        /// What is expected.
        message: String,
    },
    /// A mesh the case names could not be read or built.
    #[error("{file}: {what}: {cause}", file = file.display())]
    Mesh {
        /// The case file.
        file: PathBuf,
        /// Which mesh.
        what: String,
        /// Why.
        cause: Box<MeshError>,
    },
    /// A body's geometry could not be built.
    #[error("{file}: body '{body}': {cause}", file = file.display())]
    Body {
        /// The case file.
        file: PathBuf,
        /// The body.
        body: String,
        /// Why.
        cause: Box<BodyError>,
    },
    /// The walls' distance field could not be computed.
    #[error("{file}: `domain.walls`: {cause}", file = file.display())]
    Walls {
        /// The case file.
        file: PathBuf,
        /// Why.
        cause: Box<FmmError>,
    },
    /// The flow solver failed or stopped (a non-finite velocity, say).
    #[error("{file}: {cause}", file = file.display())]
    Fluid {
        /// The case file.
        file: PathBuf,
        /// Why.
        cause: Box<crate::fluid::FluidError>,
    },
    /// The simulation refused the configuration or stopped.
    #[error("{file}: {cause}", file = file.display())]
    Sim {
        /// The case file.
        file: PathBuf,
        /// Why.
        cause: Box<SimError>,
    },
    /// An output file could not be written.
    #[error(transparent)]
    Output(#[from] crate::io::OutputError),
    /// The caller refused the run's plan before its first step (its output would not fit, say).
    #[error("{file}: {message}", file = file.display())]
    Refused {
        /// The case file.
        file: PathBuf,
        /// Why.
        message: String,
    },
    /// The caller asked the run to stop (a signal); it stopped at the end of a step.
    #[error("{file}: interrupted after step {step} (t = {}); the output up to it is written", crate::math::shown(*time), file = file.display())]
    Interrupted {
        /// The case file.
        file: PathBuf,
        /// The last step done.
        step: usize,
        /// Its time.
        time: f64,
    },
}

/// A case file read and parsed, with where it came from.
#[derive(Debug, Clone)]
pub struct Case {
    /// The file.
    pub path: PathBuf,
    /// Its content.
    pub file: CaseFile,
    /// Its text, where errors find the line of a key.
    text: String,
    /// What building the case changed in its input on the way ([`Case::notes`]).
    notes: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Case {
    /// Reads and parses `path`.
    pub fn load(path: &Path) -> Result<Case, CaseError> {
        let text = std::fs::read_to_string(path).map_err(|cause| CaseError::Read {
            file: path.to_path_buf(),
            cause,
        })?;
        Case::parse(path, &text)
    }

    /// Parses `text` as the content of `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Case, CaseError> {
        let file: CaseFile = toml::from_str(text).map_err(|e| CaseError::Parse {
            file: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let case = Case {
            path: path.to_path_buf(),
            file,
            text: text.to_string(),
            notes: Default::default(),
        };
        if let Some(name) = &case.file.name {
            if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
                return Err(case.invalid(
                    "name",
                    format!("'{name}' is not a file name: the run writes to out/<name>, so it may hold no `/` or `\\` and not be `.` or `..`"),
                ));
            }
        }
        Ok(case)
    }

    /// The case's name: `name`, or the file's stem.
    pub fn name(&self) -> String {
        self.file.name.clone().unwrap_or_else(|| {
            self.path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "case".into())
        })
    }

    /// What building the case changed in its input on the way, for the user to be told (cells
    /// of a Gmsh mesh that were clockwise and were reordered), each once: the notes are taken.
    pub fn take_notes(&self) -> Vec<String> {
        self.notes
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }

    /// Reads the Gmsh mesh `path` (for the key `field`), noting cells it reoriented.
    fn read_mesh<const D: usize>(&self, path: &Path, field: &str) -> Result<SimplexMesh<D>, CaseError> {
        let (mesh, notes) = gmsh::read_dim_noted::<D>(path).map_err(|cause| CaseError::Mesh {
            file: self.path.clone(),
            what: field.to_string(),
            cause: Box::new(cause),
        })?;
        if notes.reoriented_cells > 0 {
            if let Ok(mut n) = self.notes.lock() {
                n.push(format!(
                    "{} (`{field}`): {} of {} cells were clockwise (2D) or left-handed (3D) in the file and were reordered",
                    path.display(),
                    notes.reoriented_cells,
                    mesh.num_cells()
                ));
            }
        }
        Ok(mesh)
    }

    fn interrupted(&self, step: usize, time: f64) -> CaseError {
        CaseError::Interrupted {
            file: self.path.clone(),
            step,
            time,
        }
    }

    /// The error for the simulation's `cause`.
    fn sim_error(&self, cause: SimError) -> CaseError {
        CaseError::Sim {
            file: self.path.clone(),
            cause: Box::new(cause),
        }
    }

    fn invalid(&self, field: impl Into<String>, message: impl Into<String>) -> CaseError {
        let field = field.into();
        CaseError::Invalid {
            file: self.path.clone(),
            line: place::line_of(&self.text, &field),
            field,
            message: message.into(),
        }
    }

    /// A path in the case relative to the case file's directory.
    fn relative(&self, p: &str) -> PathBuf {
        self.path.parent().unwrap_or(Path::new(".")).join(p)
    }

    /// A vector of `D` finite components from `v`, or an error naming `field`.
    fn vector<const D: usize>(&self, field: &str, v: &[f64]) -> Result<Vector<D>, CaseError> {
        if v.len() != D || v.iter().any(|x| !x.is_finite()) {
            return Err(self.invalid(field, format!("expected {D} finite numbers, got {v:?}")));
        }
        Ok(Vector::<D>::from_fn(|k, _| v[k]))
    }

    fn positive(&self, field: &str, x: f64) -> Result<f64, CaseError> {
        if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(self.invalid(field, format!("must be a positive number, got {x}")))
        }
    }

    /// The `[time]` table, or an error saying it is needed.
    pub fn time(&self) -> Result<&schema::TimeSpec, CaseError> {
        self.file
            .time
            .as_ref()
            .ok_or_else(|| self.invalid("time", "this case needs a [time] table with `step` and `end`"))
    }

    /// Whether the case has bodies: `[[bodies]]` or bodies released by `[[inflow]]`.
    pub fn has_bodies(&self) -> bool {
        !(self.file.bodies.is_empty() && self.file.inflow.is_empty())
    }

    /// Builds the simulation the case describes (dimension `D`, which must be the file's).
    pub fn build<const D: usize>(&self) -> Result<Simulation<D>, CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        let f = &self.file;
        if f.dimension != D {
            return Err(self.invalid("dimension", format!("expected {D}, got {}", f.dimension)));
        }
        if f.fluid.is_some() {
            return Err(self.invalid(
                "fluid",
                "this case has a fluid: run it with `tumble run`, which builds the flow",
            ));
        }
        self.simulation()
    }

    /// The bodies, walls, gravity and contact of the case (dry or in a fluid), checked at the
    /// start (without the bodies `[[inflow]]` releases: see [`Self::parts`]).
    pub(crate) fn simulation<const D: usize>(&self) -> Result<Simulation<D>, CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        self.parts().map(|(sim, _)| sim)
    }

    /// The frame of `[frame]` for the bodies of `sim` under `gravity`, if the case has one.
    fn frame<const D: usize>(&self, sim: &Simulation<D>, gravity: &Vector<D>) -> Result<Option<Following<D>>, CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        let Some(spec) = &self.file.frame else {
            return Ok(None);
        };
        if !sim.bodies.iter().any(|b| b.name == spec.follow) {
            let names: Vec<&str> = sim.bodies.iter().map(|b| b.name.as_str()).collect();
            return Err(self.invalid(
                "frame.follow",
                format!(
                    "no body is called '{}'; the bodies are [{}]",
                    spec.follow,
                    names.join(", ")
                ),
            ));
        }
        let axis = match &spec.axis {
            Some(a) => self.vector::<D>("frame.axis", a)?,
            None => *gravity,
        };
        Following::new(&spec.follow, axis).map(Some).ok_or_else(|| {
            self.invalid(
                "frame.axis",
                "the frame moves along `axis`, by default along gravity: give a non-zero one",
            )
        })
    }

    /// The simulation of [`Self::simulation`] and the case's `[[inflow]]` tables.
    fn parts<const D: usize>(&self) -> Result<(Simulation<D>, Vec<inflow::Inflow<D>>), CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        let f = &self.file;
        let c = f
            .contact
            .as_ref()
            .ok_or_else(|| self.invalid("contact", "a case with bodies needs a [contact] table"))?;
        let time = self.time()?;
        let law_name = c.law.as_deref().unwrap_or("glowinski");
        let law = Law::from_name(law_name).ok_or_else(|| {
            self.invalid(
                "contact.law",
                format!("unknown law '{law_name}'; expected one of spec, glowinski, patches"),
            )
        })?;
        let range = self.positive("contact.range", c.range)?;
        let model = ContactModel {
            law,
            range,
            stiffness: self.positive("contact.stiffness", c.stiffness)?,
            wall_stiffness: self.positive("contact.wall_stiffness", c.wall_stiffness.unwrap_or(c.stiffness))?,
        };
        let broad_name = c.broad_phase.as_deref().unwrap_or("auto");
        let broad = method::<D>(broad_name).ok_or_else(|| {
            self.invalid(
                "contact.broad_phase",
                format!(
                    "unknown method '{broad_name}'; expected one of {}",
                    crate::broad::sets::METHODS.join(", ")
                ),
            )
        })?;
        if let Some(h) = c.resolution {
            self.positive("contact.resolution", h)?;
        }
        self.positive("time.step", time.step)?;
        self.positive("time.end", time.end)?;
        if f.frame.is_some() && f.fluid.is_none() {
            return Err(self.invalid(
                "frame",
                "a frame that follows a body moves the fluid's mesh with it: it needs a [fluid]",
            ));
        }
        if f.bodies.is_empty() && f.inflow.is_empty() {
            return Err(self.invalid("bodies", "a case needs at least one body ([[bodies]] or [[inflow]])"));
        }
        let gravity = match &f.gravity {
            Some(g) => self.vector::<D>("gravity", g)?,
            None => Vector::<D>::zeros(),
        };
        let drag = match &f.drag {
            Some(d) => {
                let rate = |field: &str, x: Option<f64>| {
                    let x = x.unwrap_or(0.0);
                    if x.is_finite() && x >= 0.0 {
                        Ok(x)
                    } else {
                        Err(self.invalid(field, format!("must be a number ≥ 0, got {x}")))
                    }
                };
                Drag {
                    linear: rate("drag.linear", d.linear)?,
                    angular: rate("drag.angular", d.angular)?,
                }
            }
            None => Drag::default(),
        };
        let domain = match &f.domain {
            Some(d) => Some(self.domain_mesh::<D>(d, 2.0 * range)?),
            None => None,
        };
        let specs: Vec<(String, BodySpec)> = f
            .bodies
            .iter()
            .enumerate()
            .map(|(k, b)| (format!("bodies[{k}]"), b.clone()))
            .collect();
        let bodies = self.bodies::<D>(&specs, range, c.resolution, domain.as_ref().map(|(m, _)| m))?;
        let mesh = domain.as_ref().map(|(m, _)| m);
        let inflows = self.inflows::<D>((range, c.resolution, time.end), mesh, &bodies)?;
        let templates: Vec<RigidBody<D>> = inflows.iter().map(|i| i.template().clone()).collect();
        let walls = match domain {
            Some((mesh, default_walls)) => {
                Some(self.walls::<D>(mesh, default_walls, range, &[&bodies[..], &templates].concat())?)
            }
            None => None,
        };
        let mut sim = Simulation::new(bodies, walls, gravity, drag, ContactSolver::new(model, broad));
        sim.damping = match c.damping {
            Some(x) if !(x.is_finite() && x >= 0.0) => {
                return Err(self.invalid("contact.damping", format!("must be a number ≥ 0, got {x}")))
            }
            x => x.unwrap_or(0.0),
        };
        sim.check_start().map_err(|cause| self.sim_error(cause))?;
        Ok((sim, inflows))
    }

    /// The bodies, each checked against the domain's size (when there is a domain) before its
    /// lattice is built, and its lattice against the memory budget.
    fn bodies<const D: usize>(
        &self,
        specs: &[(String, BodySpec)],
        range: f64,
        resolution: Option<f64>,
        domain: Option<&SimplexMesh<D>>,
    ) -> Result<Vec<RigidBody<D>>, CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        // A body that fits in the domain has a diameter of at most the domain's diagonal, and so
        // reaches at most that far from any point of its convex hull.
        let diagonal = domain.map(|m| {
            let (lo, hi) = m.bounding_box();
            (hi - lo).norm()
        });
        let fits = |field: String, extent: f64| match diagonal {
            Some(diagonal) if extent > diagonal => Err(self.invalid(
                field,
                format!(
                    "the body reaches {extent} from its centre, more than the domain's diagonal \
                     ({diagonal}): it cannot fit in the domain"
                ),
            )),
            _ => Ok(()),
        };
        let mut shared: HashMap<String, Arc<BodyGeometry<D>>> = HashMap::new();
        let mut names: HashMap<String, &str> = HashMap::new();
        let mut bodies = Vec::new();
        for (k, (at, spec)) in specs.iter().enumerate() {
            let field = |key: &str| format!("{at}.{key}");
            let name = spec.name.clone().unwrap_or_else(|| format!("body{k}"));
            if let Some(first) = names.insert(name.clone(), at) {
                return Err(self.invalid(field("name"), format!("'{name}' is also the name of {first}")));
            }
            let density = self.positive(&field("density"), spec.density)?;
            let (shape, feature, extent) = self.shape::<D>(&spec.shape, &field("shape"))?;
            if shape.is_some() {
                fits(field("shape"), extent)?;
            }
            let h = resolution.unwrap_or(default_lattice_step(range, feature));
            let key = format!("{:?} h={h:e}", spec.shape);
            let geometry = match shared.get(&key) {
                Some(g) => g.clone(),
                None => {
                    let built = match shape {
                        Some(s) => BodyGeometry::from_shape(s.as_ref(), h, 2.0 * range),
                        None => {
                            let file = match &spec.shape {
                                ShapeSpec::Mesh { file } => file.as_str(),
                                _ => "",
                            };
                            let path = self.relative(file);
                            let mesh = self.read_mesh::<D>(&path, &field("shape.file"))?;
                            let points = mesh.points();
                            let centre = points.iter().fold(Point::<D>::zeros(), |s, p| s + p) / points.len() as f64;
                            let extent = points.iter().map(|p| (p - centre).norm()).fold(0.0, f64::max);
                            fits(field("shape.file"), extent)?;
                            BodyGeometry::from_mesh(&mesh, h, 2.0 * range)
                        }
                    };
                    let g = Arc::new(built.map_err(|cause| match cause {
                        BodyError::Mesh(e) if e.is_size_limit() => {
                            let (key, spacing, hint) = match resolution {
                                Some(_) => (
                                    "contact.resolution".to_string(),
                                    format!("{h:e}"),
                                    "a larger `contact.resolution` makes it smaller",
                                ),
                                None => (
                                    field("shape"),
                                    format!("{h:e} = min(range/4, size/20)"),
                                    "is the body's size meant? `contact.resolution` sets the spacing",
                                ),
                            };
                            self.invalid(
                                key,
                                format!(
                                    "body '{name}': {e}; this lattice holds its distance field, spacing {spacing}, \
                                     over the body and 2·range around it: {hint}"
                                ),
                            )
                        }
                        cause => CaseError::Body {
                            file: self.path.clone(),
                            body: name.clone(),
                            cause: Box::new(cause),
                        },
                    })?);
                    shared.insert(key, g.clone());
                    g
                }
            };
            let mut body = RigidBody::new(
                &name,
                geometry,
                density,
                self.vector::<D>(&field("position"), &spec.position)?,
            );
            let rotation: Vec<f64> = match (D, spec.angle, &spec.rotation) {
                (2, a, None) => vec![a.unwrap_or(0.0)],
                (3, None, r) => r.clone().unwrap_or_else(|| vec![0.0; 3]),
                (2, _, Some(_)) => return Err(self.invalid(field("rotation"), "2D bodies take `angle` (radians)")),
                _ => return Err(self.invalid(field("angle"), "3D bodies take `rotation` (a rotation vector)")),
            };
            body.rotation = <Dim<D> as Kinematics<D>>::rotation_from(&rotation)
                .filter(|_| rotation.iter().all(|x| x.is_finite()))
                .ok_or_else(|| self.invalid(field("rotation"), format!("expected finite numbers, got {rotation:?}")))?;
            if let Some(v) = &spec.velocity {
                body.velocity = self.vector::<D>(&field("velocity"), v)?;
            }
            if let Some(w) = &spec.angular_velocity {
                let components = match w {
                    AngularSpec::Scalar(x) => vec![*x],
                    AngularSpec::Vector(v) => v.clone(),
                };
                body.angular_velocity = <Dim<D> as Kinematics<D>>::angular_from(&components)
                    .filter(|_| components.iter().all(|x| x.is_finite()))
                    .ok_or_else(|| {
                        self.invalid(
                            field("angular_velocity"),
                            format!(
                                "expected {} finite number{}, got {components:?}",
                                if D == 2 { 1 } else { 3 },
                                if D == 2 { "" } else { "s" }
                            ),
                        )
                    })?;
            }
            match &spec.grid {
                None => bodies.push(body),
                Some(grid) => {
                    let (offsets, turn) = self.grid::<D>(grid, &field("grid"))?;
                    for (n, offset) in offsets.into_iter().enumerate() {
                        let mut copy = body.clone();
                        copy.name = format!("{name}_{n}");
                        if let Some(first) = names.insert(copy.name.clone(), at) {
                            return Err(self.invalid(
                                field("grid"),
                                format!("the copy '{}' has the name of {first}", copy.name),
                            ));
                        }
                        copy.position += offset;
                        let turned: Vec<f64> = rotation.iter().zip(&turn).map(|(r, t)| r + n as f64 * t).collect();
                        copy.rotation = <Dim<D> as Kinematics<D>>::rotation_from(&turned)
                            .ok_or_else(|| self.invalid(field("grid.turn"), "the copies' rotations are not finite"))?;
                        bodies.push(copy);
                    }
                }
            }
        }
        Ok(bodies)
    }

    /// The offsets of a grid's copies (the first axis fastest) and its turn per copy (as many
    /// components as a rotation: 1 in 2D, 3 in 3D).
    fn grid<const D: usize>(
        &self,
        grid: &schema::GridSpec,
        field: &str,
    ) -> Result<(Vec<Vector<D>>, Vec<f64>), CaseError> {
        const MOST: usize = 10_000_000;
        let total = grid.count.iter().try_fold(1usize, |n, &c| n.checked_mul(c));
        if grid.count.len() != D || grid.count.contains(&0) || total.is_none_or(|n| n > MOST) {
            return Err(self.invalid(
                format!("{field}.count"),
                format!(
                    "expected {D} counts of at least 1, at most {MOST} copies in all, got {:?}",
                    grid.count
                ),
            ));
        }
        let spacing = self.vector::<D>(&format!("{field}.spacing"), &grid.spacing)?;
        let components = if D == 2 { 1 } else { 3 };
        let turn = match &grid.turn {
            None => vec![0.0; components],
            Some(AngularSpec::Scalar(x)) => vec![*x],
            Some(AngularSpec::Vector(v)) => v.clone(),
        };
        if turn.len() != components || turn.iter().any(|x| !x.is_finite()) {
            return Err(self.invalid(
                format!("{field}.turn"),
                format!("expected {components} finite number(s), got {turn:?}"),
            ));
        }
        let mut offsets = Vec::with_capacity(total.unwrap_or(0));
        let mut index = [0usize; D];
        loop {
            offsets.push(Vector::<D>::from_fn(|a, _| index[a] as f64 * spacing[a]));
            let Some(a) = (0..D).find(|&a| index[a] + 1 < grid.count[a]) else {
                break;
            };
            index[a] += 1;
            index[..a].fill(0);
        }
        Ok((offsets, turn))
    }

    /// The analytic shape of `spec` (`None` for a mesh), its smallest feature size, and how far it
    /// reaches from a point of its convex hull (at least half its diameter, at most all of it).
    #[allow(clippy::type_complexity)]
    fn shape<const D: usize>(
        &self,
        spec: &ShapeSpec,
        field: &str,
    ) -> Result<(Option<Box<dyn Shape<D>>>, f64, f64), CaseError> {
        let sizes = |key: &str, v: &[f64], scale: f64| -> Result<[f64; D], CaseError> {
            if v.len() != D || v.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
                return Err(self.invalid(
                    format!("{field}.{key}"),
                    format!("expected {D} positive numbers, got {v:?}"),
                ));
            }
            Ok(std::array::from_fn(|k| v[k] * scale))
        };
        Ok(match spec {
            ShapeSpec::Circle { radius } => {
                let r = self.positive(&format!("{field}.radius"), *radius)?;
                (
                    Some(Box::new(Ball {
                        centre: Point::<D>::zeros(),
                        radius: r,
                    })),
                    r,
                    r,
                )
            }
            ShapeSpec::Ellipse { semi_axes } => {
                let e = sizes("semi_axes", semi_axes, 1.0)?;
                (
                    Some(Box::new(Ellipsoid { semi_axes: e })),
                    e.iter().copied().fold(f64::INFINITY, f64::min),
                    e.iter().copied().fold(0.0, f64::max),
                )
            }
            ShapeSpec::Rectangle { sides } => {
                let half = sizes("sides", sides, 0.5)?;
                let cuboid = Cuboid { half };
                let extent = cuboid.bounding_radius();
                (
                    Some(Box::new(cuboid)),
                    half.iter().copied().fold(f64::INFINITY, f64::min),
                    extent,
                )
            }
            ShapeSpec::Polygon { vertices } => {
                if vertices.len() < 3 || vertices.iter().flatten().any(|x| !x.is_finite()) {
                    return Err(self.invalid(
                        format!("{field}.vertices"),
                        "expected at least 3 vertices [x, y] of finite numbers",
                    ));
                }
                let polygon = Polygon {
                    vertices: vertices.iter().map(|v| Point::<2>::new(v[0], v[1])).collect(),
                };
                if let Some((a, b)) = polygon.crossing() {
                    let n = vertices.len();
                    return Err(self.invalid(
                        format!("{field}.vertices"),
                        format!(
                            "edges {a}–{} and {b}–{} meet: a polygon must be simple (its edges meet only at \
                             their shared vertices), listed in order around it",
                            (a + 1) % n,
                            (b + 1) % n
                        ),
                    ));
                }
                let centre = polygon.vertices.iter().fold(Point::<2>::zeros(), |s, v| s + v) / vertices.len() as f64;
                let extent = polygon.vertices.iter().map(|v| (v - centre).norm()).fold(0.0, f64::max);
                let feature = polygon.bounding_radius() / 10.0;
                (
                    Some(
                        planar_shape::<D>(Box::new(polygon))
                            .ok_or_else(|| self.invalid(field, "a polygon is a 2D shape"))?,
                    ),
                    feature,
                    extent,
                )
            }
            ShapeSpec::Tripole { diameter, arm, bar } => {
                let r = self.positive(&format!("{field}.diameter"), *diameter)? / 2.0;
                let arm = self.positive(&format!("{field}.arm"), *arm)?;
                let half_bar = self.positive(&format!("{field}.bar"), bar.unwrap_or(r))? / 2.0;
                let mut parts: Vec<Box<dyn Shape<2>>> = Vec::new();
                for k in 0..3 {
                    let a = std::f64::consts::FRAC_PI_2 + k as f64 * 2.0 * std::f64::consts::PI / 3.0;
                    let (u, n) = (Point::<2>::new(a.cos(), a.sin()), Point::<2>::new(-a.sin(), a.cos()));
                    parts.push(Box::new(Ball {
                        centre: u * arm,
                        radius: r,
                    }));
                    parts.push(Box::new(Polygon {
                        vertices: vec![
                            n * half_bar,
                            n * half_bar + u * arm,
                            u * arm - n * half_bar,
                            -n * half_bar,
                        ],
                    }));
                }
                let union: Box<dyn Shape<2>> = Box::new(Union { parts });
                (
                    Some(planar_shape::<D>(union).ok_or_else(|| self.invalid(field, "the tripole is a 2D shape"))?),
                    half_bar.min(r),
                    arm + r,
                )
            }
            ShapeSpec::Spheres { centres, radius, radii } => {
                if centres.is_empty() || centres.iter().any(|c| c.len() != D || c.iter().any(|x| !x.is_finite())) {
                    return Err(self.invalid(
                        format!("{field}.centres"),
                        format!("expected a list of at least one centre of {D} finite numbers"),
                    ));
                }
                let radii: Vec<f64> = match (radius, radii) {
                    (Some(r), None) => vec![self.positive(&format!("{field}.radius"), *r)?; centres.len()],
                    (None, Some(radii)) if radii.len() == centres.len() => radii
                        .iter()
                        .enumerate()
                        .map(|(k, &r)| self.positive(&format!("{field}.radii[{k}]"), r))
                        .collect::<Result<_, _>>()?,
                    _ => {
                        return Err(self.invalid(
                            field,
                            format!(
                                "give either `radius` (one for all) or `radii` (one for each of the {} centres)",
                                centres.len()
                            ),
                        ))
                    }
                };
                let centres: Vec<Point<D>> = centres.iter().map(|c| Point::<D>::from_fn(|k, _| c[k])).collect();
                let mean = centres.iter().fold(Point::<D>::zeros(), |s, c| s + c) / centres.len() as f64;
                let extent = centres
                    .iter()
                    .zip(&radii)
                    .map(|(c, r)| (c - mean).norm() + r)
                    .fold(0.0, f64::max);
                let parts: Vec<Box<dyn Shape<D>>> = centres
                    .into_iter()
                    .zip(&radii)
                    .map(|(centre, &radius)| Box::new(Ball { centre, radius }) as Box<dyn Shape<D>>)
                    .collect();
                (
                    Some(Box::new(Union { parts })),
                    radii.iter().copied().fold(f64::INFINITY, f64::min),
                    extent,
                )
            }
            ShapeSpec::Mesh { .. } => (None, f64::INFINITY, 0.0),
        })
    }

    fn walls<const D: usize>(
        &self,
        mesh: SimplexMesh<D>,
        default_walls: Vec<String>,
        range: f64,
        bodies: &[RigidBody<D>],
    ) -> Result<Walls<D>, CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        let d = self
            .file
            .domain
            .as_ref()
            .expect("walls are built for a case with a domain");
        let names = d.walls.clone().unwrap_or(default_walls);
        if names.is_empty() {
            return Err(self.invalid("domain.walls", "name the wall markers of the mesh"));
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let reach = bodies.iter().map(|b| b.geometry.radius).fold(0.0, f64::max) + 2.0 * range;
        Walls::new(mesh, &refs, reach).map_err(|cause| CaseError::Walls {
            file: self.path.clone(),
            cause: Box::new(cause),
        })
    }

    /// The key that sets the domain mesh's size: `domain.mesh`, `domain.cells` or `domain.h`.
    fn domain_size_key(&self) -> &'static str {
        match &self.file.domain {
            Some(d) if d.mesh.is_some() => "domain.mesh",
            Some(d) if d.cells.is_some() => "domain.cells",
            _ => "domain.h",
        }
    }

    /// The domain's mesh (a box meshed with spacing `domain.h`, default `default_h`, or a Gmsh
    /// file) and the names of a box's faces (none for a file).
    pub(crate) fn domain_mesh<const D: usize>(
        &self,
        d: &schema::DomainSpec,
        default_h: f64,
    ) -> Result<(SimplexMesh<D>, Vec<String>), CaseError> {
        let mesh_err = |what: &str, cause| CaseError::Mesh {
            file: self.path.clone(),
            what: what.into(),
            cause: Box::new(cause),
        };
        let (mesh, default_walls) = match (&d.bounds, &d.mesh) {
            (Some([lo, hi]), None) => {
                let lo = self.vector::<D>("domain.box[0]", lo)?;
                let hi = self.vector::<D>("domain.box[1]", hi)?;
                if (0..D).any(|a| hi[a] <= lo[a]) {
                    return Err(self.invalid("domain.box", "the upper corner must exceed the lower one on every axis"));
                }
                let cells: [usize; D] = match &d.cells {
                    Some(n) if n.len() == D && n.iter().all(|&k| k > 0) => std::array::from_fn(|a| n[a]),
                    Some(n) => {
                        return Err(self.invalid("domain.cells", format!("expected {D} positive integers, got {n:?}")))
                    }
                    None => {
                        // The default size (2ρ) is capped so that a small ρ cannot make a huge mesh
                        // unasked; a size the case gives is honoured.
                        let h = self.positive("domain.h", d.h.unwrap_or(default_h))?;
                        let cap = match (d.h, D) {
                            (Some(_), _) => f64::INFINITY,
                            (None, 2) => 256.0,
                            (None, _) => 48.0,
                        };
                        std::array::from_fn(|a| ((hi[a] - lo[a]) / h).ceil().clamp(1.0, cap) as usize)
                    }
                };
                check_lattice_size(&cells).map_err(|e| {
                    if !e.is_size_limit() {
                        return mesh_err("domain.box", e);
                    }
                    let hint = match d.cells {
                        Some(_) => "fewer cells make a smaller mesh",
                        None => "a larger spacing makes a smaller mesh",
                    };
                    self.invalid(self.domain_size_key(), format!("{e}; {hint}"))
                })?;
                let mesh = axis_box::<D>(lo, hi, cells).map_err(|e| mesh_err("domain.box", e))?;
                let names = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"];
                (mesh, names[..2 * D].iter().map(|s| s.to_string()).collect())
            }
            (None, Some(file)) => {
                let mesh = self.read_mesh::<D>(&self.relative(file), "domain.mesh")?;
                (mesh, Vec::new())
            }
            _ => return Err(self.invalid("domain", "give either `box` or `mesh`")),
        };
        Ok((mesh, default_walls))
    }
}
