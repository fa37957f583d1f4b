//! Fluid cases: a `[fluid]` table turns the domain mesh into a flow problem (see
//! [`schema::FluidSpec`]), solved steady (Newton) or in time (BDF2 pressure correction).
//!
//! Units are the case's: the solver works with the kinematic viscosity `ν = μ/ρ` and the
//! kinematic pressure `p/ρ`; output pressures and forces are multiplied back by `ρ`.
//!
//! | file | content |
//! |---|---|
//! | `flow.pvd`, `flow_NNNNNN.vtu` | the mesh with point data `velocity`, `pressure`, `vorticity` (a scalar in 2D, a vector in 3D), every `output.every` steps (steady: one file) |
//! | `fluid.csv` | with `[fluid.report]`, unsteady: `time,fx,fy(,fz),drag_coefficient,lift_coefficient,pressure_difference` every `output.csv_every` steps |
//! | `summary.json` | the mode, sizes, times, and the reported `drag_coefficient`, `lift_coefficient`, `pressure_difference` (final values; unsteady runs add maxima and the Strouhal number over the last half) |
//! | `checkpoint.cbor` | unsteady, with `output.checkpoint_every` or when the run is stopped: the fluid's state and the reported history, from which `tumble run --restart` continues ([`super::checkpoint`]) |
//!
//! Files are written whole; a run that stops (a non-finite velocity, say) keeps every file and row
//! written so far, and `summary.json` says `"status": "failed"` with the error.

use super::checkpoint::{self, Kind, RunState, Saver, SpentSeconds};
use super::control::{Control, Plan, RunHeader};
use super::output::{prepare_output, step_count, SavedOutputs};
use super::schema::{BodyBoundarySpec, ConditionSpec, ConvectionSpec, NumberOrExpr, SchemeSpec, SolverSpec};
use super::{Case, CaseError};
use crate::expr::Expr;
use crate::fluid::{
    solve_steady, BoundaryConditions, BoundaryForce, Convection, FlowField, Fluid, FluidError, P2Space, Scheme,
    Solvers, SteadyProblem, Unsteady,
};
use crate::io::{write_mesh_vtu, Field, OutputError, PartFile, PvdSeries};
use crate::linalg::SpdMethod;
use crate::math::{Point, Vector};
use crate::mesh::SimplexMesh;
use crate::sim::{BodyBoundary, Following};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

/// A fluid case, built: the mesh, the conditions and the parameters in the solver's units.
pub struct FlowCase<const D: usize> {
    /// The domain mesh.
    pub mesh: SimplexMesh<D>,
    /// Its Taylor–Hood velocity space.
    pub space: P2Space<D>,
    /// Boundary conditions (pressures divided by ρ).
    pub boundary: BoundaryConditions<D>,
    /// ρ and μ.
    pub fluid: Fluid,
    /// ν = μ/ρ.
    pub nu: f64,
    /// The body force per unit mass (gravity).
    pub gravity: Vector<D>,
    /// Steady (Newton) or unsteady.
    pub steady: bool,
    /// Stokes, or how Navier–Stokes treats convection.
    pub convection: Convection,
    /// How unsteady steps couple velocity and pressure.
    pub scheme: Scheme,
    /// How the fluid sees bodies' boundaries.
    pub body_boundary: BodyBoundary,
    /// How the step's constant systems are solved.
    pub solver: SpdMethod,
    /// What to measure.
    pub report: Report,
    /// The force on the reported marker, set up once.
    force: Option<BoundaryForce>,
}

/// The quantities a case reports.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The marker whose force is measured.
    pub marker: Option<i32>,
    /// `(U, L)`, the reference velocity and length (2D) or area (3D) of the coefficients
    /// `2F/(ρ U² L)` and of the Strouhal number `f L / U`.
    pub reference: Option<(f64, f64)>,
    /// The two pressure points, located: each cell and its vertices' weights.
    pub pressure_points: Option<[(u32, [f64; 4]); 2]>,
}

/// One set of reported values.
#[derive(Debug, Clone, Copy)]
struct Measured<const D: usize> {
    force: Vector<D>,
    drag_coefficient: Option<f64>,
    lift_coefficient: Option<f64>,
    pressure_difference: Option<f64>,
}

/// One step's reported values as a checkpoint keeps them ([`Measured`] without its dimension).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Reported {
    time: f64,
    force: Vec<f64>,
    drag_coefficient: Option<f64>,
    lift_coefficient: Option<f64>,
    pressure_difference: Option<f64>,
}

impl Reported {
    fn of<const D: usize>(&(time, m): &(f64, Measured<D>)) -> Reported {
        Reported {
            time,
            force: m.force.as_slice().to_vec(),
            drag_coefficient: m.drag_coefficient,
            lift_coefficient: m.lift_coefficient,
            pressure_difference: m.pressure_difference,
        }
    }

    fn measured<const D: usize>(&self) -> Option<(f64, Measured<D>)> {
        (self.force.len() == D).then(|| {
            let m = Measured {
                force: Vector::<D>::from_column_slice(&self.force),
                drag_coefficient: self.drag_coefficient,
                lift_coefficient: self.lift_coefficient,
                pressure_difference: self.pressure_difference,
            };
            (self.time, m)
        })
    }
}

/// Seconds per phase of a flow run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FlowSeconds {
    /// Reading the mesh, building the space; for unsteady runs also assembling and factoring the
    /// constant matrices.
    pub setup: f64,
    /// Steady: the Newton solve. Unsteady: right-hand sides, all steps.
    pub assembly: f64,
    /// Unsteady: triangular solves, all steps.
    pub solve: f64,
    /// Forces and pressure difference.
    pub report: f64,
    /// Writing files.
    pub output: f64,
}

/// What `summary.json` holds for a fluid case.
#[derive(Debug, Clone, Serialize)]
pub struct FlowSummary {
    /// The case, how the run ended, the error.
    #[serde(flatten)]
    pub run: RunHeader,
    /// `"steady"` or `"unsteady"`.
    pub mode: String,
    /// Mesh cells.
    pub cells: usize,
    /// Velocity unknowns (components × P2 dofs).
    pub velocity_unknowns: usize,
    /// How the unsteady step's velocity, pressure and mass systems were solved (`"cholesky"` or
    /// `"amg-cg"`, `[fluid] solver`); `null` for a steady flow.
    pub linear_solvers: Option<Solvers>,
    /// Pressure unknowns.
    pub pressure_unknowns: usize,
    /// Newton iterations (steady).
    pub newton_iterations: Option<usize>,
    /// Steps done (unsteady).
    pub steps: usize,
    /// Time reached.
    pub time: f64,
    /// `Δt` (unsteady).
    pub time_step: Option<f64>,
    /// The force on the reported marker (final).
    pub force: Option<Vec<f64>>,
    /// `2 F_x/(ρ U² L)` (final).
    pub drag_coefficient: Option<f64>,
    /// `2 F_y/(ρ U² L)` (final).
    pub lift_coefficient: Option<f64>,
    /// `p(a) − p(b)` (final).
    pub pressure_difference: Option<f64>,
    /// Unsteady: the largest drag coefficient over the last half of the run.
    pub drag_coefficient_max: Option<f64>,
    /// Unsteady: the largest lift coefficient over the last half of the run.
    pub lift_coefficient_max: Option<f64>,
    /// Unsteady: `f L / U` with `f` the lift's frequency over the last half of the run (from its
    /// upward crossings of its mean; at least three needed).
    pub strouhal_number: Option<f64>,
    /// Wall-clock seconds of the whole run.
    pub wall_seconds: f64,
    /// Seconds per phase.
    pub seconds: FlowSeconds,
    /// Unsteady: assembly and solve seconds per step.
    pub seconds_per_step: Option<f64>,
}

impl Case {
    /// The error for `cause`, under the key to change when there is one: the mesh's size for a
    /// factorisation that does not fit, the condition for a velocity that is not finite.
    pub(super) fn fluid_error(&self, cause: FluidError) -> CaseError {
        match cause {
            FluidError::Memory(m @ crate::memory::MemoryError::TooLarge { .. }) => self.invalid(
                self.domain_size_key(),
                format!("{m}: a coarser mesh needs less (the factors grow faster than the unknowns)"),
            ),
            FluidError::Condition { ref marker, .. } => {
                self.invalid(format!("fluid.boundary.{marker}.velocity"), cause.to_string())
            }
            cause => CaseError::Fluid {
                file: self.path.clone(),
                cause: Box::new(cause),
            },
        }
    }

    /// Builds the flow problem of a case with a `[fluid]` table.
    pub fn build_flow<const D: usize>(&self) -> Result<FlowCase<D>, CaseError> {
        let f = &self.file;
        let Some(spec) = &f.fluid else {
            return Err(self.invalid("fluid", "this case has no [fluid] table"));
        };
        if f.dimension != D {
            return Err(self.invalid("dimension", format!("expected {D}, got {}", f.dimension)));
        }
        let density = self.positive("fluid.density", spec.density.unwrap_or(1.0))?;
        let fluid = Fluid {
            density,
            viscosity: self.positive("fluid.viscosity", spec.viscosity)?,
        };
        let nu = fluid.kinematic_viscosity();
        let steady = spec.steady.unwrap_or(false);
        let convection = match (spec.stokes.unwrap_or(false), spec.convection) {
            (false, None | Some(ConvectionSpec::Extrapolated)) => Convection::Extrapolated,
            (false, Some(ConvectionSpec::Characteristics)) => Convection::Characteristics,
            (true, None) => Convection::Off,
            (true, Some(_)) => {
                return Err(self.invalid(
                    "fluid.convection",
                    "a Stokes flow (fluid.stokes = true) has no convection to treat: remove one of the two",
                ))
            }
        };
        let scheme = match spec.scheme {
            None | Some(SchemeSpec::PressureCorrection) => Scheme::PressureCorrection,
            Some(SchemeSpec::Monolithic) => Scheme::Monolithic,
        };
        if f.frame.is_some() && !self.has_bodies() {
            return Err(self.invalid(
                "frame.follow",
                "a frame follows a body: this case has none ([[bodies]])",
            ));
        }
        if !steady {
            let time = self.time()?;
            self.positive("time.step", time.step)?;
            self.positive("time.end", time.end)?;
        }
        let Some(domain) = &f.domain else {
            return Err(self.invalid("domain", "a fluid case needs a [domain] with `box` or `mesh`"));
        };
        let (mesh, _) = self.domain_mesh::<D>(domain, f64::INFINITY)?;
        let gravity = match &f.gravity {
            Some(g) => self.vector::<D>("gravity", g)?,
            None => Vector::<D>::zeros(),
        };
        let mut boundary = BoundaryConditions::<D>::default();
        for (name, condition) in &spec.boundary {
            let field = format!("fluid.boundary.{name}");
            let marker = mesh
                .facet_marker(name)
                .map_err(|e| self.invalid(&field, e.to_string()))?;
            boundary = match condition {
                ConditionSpec::Keyword(k) if k == "no-slip" => boundary.no_slip(marker),
                ConditionSpec::Keyword(k) if k == "outflow" => boundary.outflow(marker),
                ConditionSpec::Keyword(k) => {
                    return Err(self.invalid(
                        &field,
                        format!("unknown condition '{k}'; expected \"no-slip\", \"outflow\", {{ velocity = [..] }} or {{ pressure = p0 }}"),
                    ))
                }
                ConditionSpec::Table(t) => match (&t.velocity, t.pressure) {
                    (Some(v), None) => {
                        let components = self.velocity_expressions::<D>(&format!("{field}.velocity"), v)?;
                        boundary.velocity(marker, move |x: &Point<D>, t| {
                            Vector::<D>::from_fn(|d, _| components[d].eval(x.as_slice(), t))
                        })
                    }
                    (None, Some(p)) if p.is_finite() => boundary.pressure(marker, p / density),
                    (None, Some(p)) => return Err(self.invalid(&field, format!("pressure must be finite, got {p}"))),
                    _ => return Err(self.invalid(&field, "give either `velocity` or `pressure`")),
                },
            };
        }
        boundary
            .check(&mesh)
            .map_err(|e| self.invalid("fluid.boundary", e.to_string()))?;
        let report = match &spec.report {
            None => Report::default(),
            Some(r) => {
                let marker = match &r.marker {
                    Some(name) => Some(
                        mesh.facet_marker(name)
                            .map_err(|e| self.invalid("fluid.report.marker", e.to_string()))?,
                    ),
                    None => None,
                };
                let reference = match (r.reference_velocity, r.reference_length) {
                    (Some(u), Some(l)) => Some((
                        self.positive("fluid.report.reference_velocity", u)?,
                        self.positive("fluid.report.reference_length", l)?,
                    )),
                    (None, None) => None,
                    _ => {
                        return Err(self.invalid(
                            "fluid.report",
                            "coefficients need both `reference_velocity` and `reference_length`",
                        ))
                    }
                };
                let pressure_points = match &r.pressure_points {
                    Some([a, b]) => {
                        let mut located = [(0, [0.0; 4]); 2];
                        for (k, (p, slot)) in [a, b].into_iter().zip(&mut located).enumerate() {
                            let field = format!("fluid.report.pressure_points[{k}]");
                            let x = self.vector::<D>(&field, p)?;
                            let found = mesh
                                .locate(&x)
                                .ok_or_else(|| self.invalid(&field, format!("the point {p:?} is outside the mesh")))?;
                            let mut w = [0.0; 4];
                            w[..=D].copy_from_slice(&found.weights[..=D]);
                            *slot = (found.cell, w);
                        }
                        Some(located)
                    }
                    None => None,
                };
                Report {
                    marker,
                    reference,
                    pressure_points,
                }
            }
        };
        let mut space = P2Space::new(&mesh);
        for (k, curve) in spec.curved.iter().enumerate() {
            let field = format!("fluid.curved[{k}]");
            let marker = mesh
                .facet_marker(&curve.marker)
                .map_err(|e| self.invalid(format!("{field}.marker"), e.to_string()))?;
            let centre = self.vector::<D>(&format!("{field}.centre"), &curve.centre)?;
            let radius = self.positive(&format!("{field}.radius"), curve.radius)?;
            // The facets' vertices must lie on the circle: the curved cells interpolate it.
            let off = mesh
                .facets_marked(marker)
                .flat_map(|f| mesh.facets()[f as usize])
                .map(|v| ((mesh.points()[v as usize] - centre).norm() - radius).abs())
                .fold(0.0, f64::max);
            if off > 1e-6 * radius {
                return Err(self.invalid(
                    &field,
                    format!(
                        "the nodes of the facets marked '{}' are up to {off:.3e} off the circle of centre {:?} and radius {radius}",
                        curve.marker,
                        curve.centre
                    ),
                ));
            }
            space
                .curve_boundary(&mesh, &[marker], |x| centre + (x - centre).normalize() * radius)
                .map_err(|e| self.invalid(&field, e.to_string()))?;
        }
        let force = match report.marker {
            Some(m) => Some(BoundaryForce::new(&mesh, &space, m).map_err(|e| self.fluid_error(e))?),
            None => None,
        };
        Ok(FlowCase {
            force,
            mesh,
            space,
            boundary,
            fluid,
            nu,
            gravity,
            steady,
            convection,
            scheme,
            body_boundary: match spec.body_boundary {
                Some(BodyBoundarySpec::Surface) => BodyBoundary::Surface,
                Some(BodyBoundarySpec::Nodes) | None => BodyBoundary::Nodes,
            },
            solver: match spec.solver {
                Some(SolverSpec::Direct) => SpdMethod::Direct,
                Some(SolverSpec::Iterative) => SpdMethod::Iterative,
                Some(SolverSpec::Auto) | None => SpdMethod::Auto,
            },
            report,
        })
    }

    fn velocity_expressions<const D: usize>(&self, field: &str, v: &[NumberOrExpr]) -> Result<Vec<Expr>, CaseError> {
        if v.len() != D {
            return Err(self.invalid(field, format!("expected {D} components, got {}", v.len())));
        }
        v.iter()
            .enumerate()
            .map(|(k, c)| match c {
                NumberOrExpr::Number(x) if x.is_finite() => Ok(Expr::constant(*x)),
                NumberOrExpr::Number(x) => {
                    Err(self.invalid(format!("{field}[{k}]"), format!("expected a finite number, got {x}")))
                }
                NumberOrExpr::Expr(text) => {
                    Expr::parse(text).map_err(|e| self.invalid(format!("{field}[{k}]"), e.to_string()))
                }
            })
            .collect()
    }
}

impl<const D: usize> FlowCase<D> {
    /// The time stepper of this flow with step `dt`, from rest at t = 0 (matrices factored), its
    /// prescribed velocities seen from `frame` if the case follows a body.
    pub(super) fn stepper(&self, case: &Case, dt: f64, frame: Option<&Following<D>>) -> Result<Unsteady<D>, CaseError> {
        let rest = FlowField {
            velocity: vec![Vector::<D>::zeros(); self.space.len()],
            pressure: vec![0.0; self.mesh.num_points()],
        };
        let mut stepper = Unsteady::with_method(
            &self.mesh,
            self.space.clone(),
            (self.nu, dt),
            match frame {
                Some(f) => f.boundary(self.boundary.clone()),
                None => self.boundary.clone(),
            },
            (rest, 0.0),
            self.solver,
        )
        .map_err(|e| case.fluid_error(e))?;
        stepper.set_convection(self.convection);
        stepper.set_scheme(self.scheme).map_err(|e| case.fluid_error(e))?;
        Ok(stepper)
    }

    /// The reported quantities of `flow` (with `∂u/∂t` for an unsteady flow), in the case's units.
    fn measure(&self, flow: &FlowField<D>, acceleration: Option<&[Vector<D>]>) -> Measured<D> {
        let mut m = Measured::<D> {
            force: Vector::<D>::zeros(),
            drag_coefficient: None,
            lift_coefficient: None,
            pressure_difference: None,
        };
        let g = self.gravity;
        if let Some(force) = &self.force {
            let f = force.compute(&self.mesh, &self.space, self.nu, &|_: &Point<D>| g, flow, acceleration);
            m.force = f * self.fluid.density;
            if let Some((u, l)) = self.report.reference {
                let scale = 2.0 / (u * u * l);
                m.drag_coefficient = Some(scale * f[0]);
                m.lift_coefficient = Some(scale * f[1]);
            }
        }
        if let Some(points) = &self.report.pressure_points {
            let p = |(cell, w): &(u32, [f64; 4])| -> f64 {
                self.mesh
                    .cell(*cell)
                    .iter()
                    .zip(w)
                    .map(|(&v, w)| w * flow.pressure[v as usize])
                    .sum()
            };
            m.pressure_difference = Some(self.fluid.density * (p(&points[0]) - p(&points[1])));
        }
        m
    }

    /// Writes `flow` at the vertices: velocity, pressure (times ρ), vorticity.
    pub(super) fn write_flow(&self, path: &Path, flow: &FlowField<D>) -> Result<(), OutputError> {
        let n = self.mesh.num_points();
        let pressure: Vec<f64> = flow.pressure.iter().map(|p| p * self.fluid.density).collect();
        let vorticity = flow.vorticity(&self.mesh, &self.space);
        let vorticity = if D == 2 {
            Field::scalar("vorticity", &vorticity.iter().map(|w| w.z).collect::<Vec<_>>())
        } else {
            Field::vector("vorticity", &vorticity)
        };
        write_mesh_vtu(
            path,
            &self.mesh,
            vec![
                Field::vector("velocity", &flow.velocity[..n]),
                Field::scalar("pressure", &pressure),
                vorticity,
            ],
            vec![],
        )
    }
}

/// Runs a fluid case, writing into `out` (prepared by [`super::prepare_output`]); `control`
/// reports progress and may stop an unsteady run at the end of a step. A run that fails or is
/// stopped writes what it computed and its `summary.json`, and returns the error.
pub fn run_flow<const D: usize>(
    case: &Case,
    flow: &FlowCase<D>,
    out: &Path,
    mut control: Control<'_>,
) -> Result<FlowSummary, CaseError> {
    let start = Instant::now();
    let setup_seconds = control.setup_seconds;
    if control.restart && flow.steady {
        return Err(CaseError::Refused {
            file: case.path.clone(),
            message: "a steady flow is one solve and writes no checkpoint: run it again".into(),
        });
    }
    // A checkpoint that does not fit is refused before anything in `out` changes.
    let checkpoint = if control.restart {
        let time = case.time()?;
        let steps = step_count(time.end, time.step);
        Some(checkpoint::open(out, case, (D, time.step, steps), Kind::Flow)?)
    } else {
        prepare_output(out, &RunHeader::running::<D>(case))?;
        None
    };
    let mut seconds = FlowSeconds {
        setup: setup_seconds,
        ..FlowSeconds::default()
    };
    let mut summary = FlowSummary {
        run: RunHeader::running::<D>(case),
        mode: if flow.steady { "steady" } else { "unsteady" }.into(),
        cells: flow.mesh.num_cells(),
        velocity_unknowns: D * flow.space.len(),
        linear_solvers: None,
        pressure_unknowns: flow.mesh.num_points(),
        newton_iterations: None,
        steps: 0,
        time: 0.0,
        time_step: None,
        force: None,
        drag_coefficient: None,
        lift_coefficient: None,
        pressure_difference: None,
        drag_coefficient_max: None,
        lift_coefficient_max: None,
        strouhal_number: None,
        wall_seconds: 0.0,
        seconds: FlowSeconds::default(),
        seconds_per_step: None,
    };
    let restarting = checkpoint.is_some();
    let mut series = PvdSeries::new(out.join("flow.pvd"));
    let result = if flow.steady {
        run_steady(case, flow, out, &mut series, &mut summary, &mut seconds)
    } else {
        run_unsteady(
            case,
            flow,
            (out, checkpoint),
            &mut series,
            &mut summary,
            &mut seconds,
            &mut control,
        )
    };
    let result = match result {
        // Refused before the outputs changed (a state that does not fit the mesh, say): the
        // earlier run's files, its summary included, stay as they were.
        Err(e) if restarting && summary.run.restarts == 0 => return Err(e),
        result => result,
    };
    summary.run = RunHeader {
        restarts: summary.run.restarts,
        ..RunHeader::new::<D>(case, result.as_ref().err())
    };
    // Unsteady runs continued from a checkpoint have added the earlier processes' seconds.
    summary.wall_seconds += setup_seconds + start.elapsed().as_secs_f64();
    summary.seconds = seconds;
    let written = crate::io::write_json(&out.join("summary.json"), &summary);
    match (result, written) {
        (Err(e), _) => Err(e),
        (Ok(()), Err(e)) => Err(e.into()),
        (Ok(()), Ok(())) => Ok(summary),
    }
}

fn record<const D: usize>(summary: &mut FlowSummary, m: &Measured<D>, has_force: bool) {
    summary.force = has_force.then(|| m.force.as_slice().to_vec());
    summary.drag_coefficient = m.drag_coefficient;
    summary.lift_coefficient = m.lift_coefficient;
    summary.pressure_difference = m.pressure_difference;
}

fn run_steady<const D: usize>(
    case: &Case,
    flow: &FlowCase<D>,
    out: &Path,
    series: &mut PvdSeries,
    summary: &mut FlowSummary,
    seconds: &mut FlowSeconds,
) -> Result<(), CaseError> {
    let t = Instant::now();
    let g = flow.gravity;
    let problem = SteadyProblem {
        kinematic_viscosity: flow.nu,
        density: flow.fluid.density,
        force: &|_: &Point<D>| g,
        boundary: &flow.boundary,
        convection: flow.convection != Convection::Off,
    };
    let (solution, iterations) =
        solve_steady(&flow.mesh, &flow.space, &problem, 1e-10, 30).map_err(|e| case.fluid_error(e))?;
    seconds.assembly = t.elapsed().as_secs_f64();
    summary.newton_iterations = Some(iterations);
    let t = Instant::now();
    let m = flow.measure(&solution, None);
    record(summary, &m, flow.report.marker.is_some());
    seconds.report = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let name = "flow_000000.vtu";
    flow.write_flow(&out.join(name), &solution)?;
    series.push(0.0, name)?;
    seconds.output = t.elapsed().as_secs_f64();
    Ok(())
}

/// Steps an unsteady flow, from the start or from `checkpoint` (which `out` holds), writing the
/// series, `fluid.csv` and checkpoints. As for bodies in a fluid, a checkpoint is taken after
/// the outputs due at its step and before those written only because the run ends or stops
/// there (a longer run would not write them; the continued run cuts them off).
fn run_unsteady<const D: usize>(
    case: &Case,
    flow: &FlowCase<D>,
    (out, checkpoint): (&Path, Option<checkpoint::Checkpoint>),
    series: &mut PvdSeries,
    summary: &mut FlowSummary,
    seconds: &mut FlowSeconds,
    control: &mut Control<'_>,
) -> Result<(), CaseError> {
    let start = Instant::now();
    let time = case.time()?;
    let (dt, steps) = (time.step, step_count(time.end, time.step));
    summary.time_step = Some(dt);
    let output = case.file.output.clone().unwrap_or_default();
    let every = output.every.unwrap_or((steps / 100).max(1));
    let csv_every = output.csv_every.unwrap_or(1).max(1);
    let checkpoint_every = output.checkpoint_every.unwrap_or(0);
    let mut stepper = flow.stepper(case, dt, None)?;
    seconds.setup += stepper.seconds.setup;
    summary.linear_solvers = Some(stepper.solvers());
    let reporting = flow.report.marker.is_some() || flow.report.pressure_points.is_some();
    let mut acceleration = vec![Vector::<D>::zeros(); flow.space.len()];
    let g = flow.gravity;

    let write = |stepper: &Unsteady<D>, series: &mut PvdSeries| -> Result<(), OutputError> {
        let name = format!("flow_{:06}.vtu", stepper.steps);
        flow.write_flow(&out.join(&name), &stepper.flow)?;
        series.push(stepper.time, &name)
    };
    let mut failure: Option<CaseError> = None;
    let (mut csv, mut history, first, spent, earlier, restarts) = match checkpoint {
        Some(checkpoint) => {
            let RunState::Flow {
                state,
                history,
                seconds: earlier,
            } = &checkpoint.run
            else {
                return Err(checkpoint::unfit(out, "it is not of a flow without bodies").into());
            };
            stepper.restore(state).map_err(|e| checkpoint::unfit(out, e))?;
            let history = history
                .iter()
                .map(Reported::measured::<D>)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| checkpoint::unfit(out, format!("its reported forces are not of dimension {D}")))?;
            checkpoint.trim(out)?;
            // From here on the outputs are the continued run's (the summary says it restarted).
            summary.run.restarts = checkpoint.restarts + 1;
            let entries = checkpoint.outputs.series.iter().find(|(name, _)| name == "flow.pvd");
            if let Some((_, entries)) = entries {
                *series = PvdSeries::restored(out.join("flow.pvd"), entries.clone())?;
            }
            let csv = if reporting {
                Some(Csv::resume(out, checkpoint.outputs.csv_bytes)?)
            } else {
                None
            };
            (
                csv,
                history,
                checkpoint.step + 1,
                checkpoint.spent,
                *earlier,
                checkpoint.restarts + 1,
            )
        }
        None => {
            let csv = if reporting { Some(Csv::new(out, D)?) } else { None };
            let t = Instant::now();
            if every > 0 {
                failure = write(&stepper, series).err().map(CaseError::from);
            }
            let spent = SpentSeconds {
                output: t.elapsed().as_secs_f64(),
                ..SpentSeconds::default()
            };
            (csv, Vec::new(), 1, spent, [0.0; 3], 0)
        }
    };
    seconds.setup += spent.setup;
    seconds.output += spent.output;
    if failure.is_none() {
        // A `fluid.csv` row: the time, the force and three coefficients, about 24 bytes each.
        let row_bytes = if reporting { 24.0 * (D + 4) as f64 } else { 0.0 };
        let plan = Plan::new((steps + 1 - first, dt, time.end), (every, csv_every), out, row_bytes);
        failure = control.approve(case, &plan).err();
    }
    let saver = Saver {
        restarts,
        spent,
        before_start: control.setup_seconds,
        setup: seconds.setup - spent.setup,
        ..Saver::of::<D>(case, out, dt, start)
    };
    let phases = |stepper: &Unsteady<D>, report: f64| {
        [
            earlier[0] + stepper.seconds.assembly,
            earlier[1] + stepper.seconds.solve,
            earlier[2] + report,
        ]
    };
    // The checkpoint of the state now, with the outputs as they stand.
    let save = |stepper: &Unsteady<D>,
                csv: &mut Option<Csv>,
                series: &PvdSeries,
                history: &[(f64, Measured<D>)],
                (report, output): (f64, f64)|
     -> Result<(), OutputError> {
        let csv_bytes = match csv {
            Some(csv) => csv.written()?,
            None => 0,
        };
        let outputs = SavedOutputs {
            csv_bytes,
            rows: 0,
            series: vec![("flow.pvd".into(), series.entries().to_vec())],
            body_ids: Vec::new(),
        };
        let state = RunState::Flow {
            state: Box::new(stepper.state()),
            history: history.iter().map(Reported::of).collect(),
            seconds: phases(stepper, report),
        };
        saver.save((stepper.steps, stepper.time), outputs, output, state)
    };
    // The row and the snapshot of the step just done, as `(row, snapshot)` says.
    let outputs = |stepper: &Unsteady<D>,
                   csv: &mut Option<Csv>,
                   series: &mut PvdSeries,
                   history: &[(f64, Measured<D>)],
                   (row, snapshot): (bool, bool)|
     -> Result<(), OutputError> {
        if let (true, Some(csv), Some((time, m))) = (row, csv, history.last()) {
            csv.row(*time, m)?;
        }
        if snapshot {
            write(stepper, series)?;
        }
        Ok(())
    };
    let mut report_seconds = 0.0;
    for s in first..=steps {
        if failure.is_some() {
            break;
        }
        if control.stop_requested() {
            let done = stepper.steps;
            // The checkpoint, then the state the run stopped at ends the series and the rows.
            let t = Instant::now();
            let due = (done % csv_every != 0, every > 0 && done % every != 0);
            let last = save(&stepper, &mut csv, series, &history, (report_seconds, seconds.output))
                .and_then(|()| outputs(&stepper, &mut csv, series, &history, due));
            seconds.output += t.elapsed().as_secs_f64();
            failure = Some(
                last.err()
                    .map_or_else(|| case.interrupted(done, stepper.time), CaseError::from),
            );
            break;
        }
        if let Err(e) = stepper.step(&flow.mesh, &|_: &Point<D>, _| g) {
            failure = Some(case.fluid_error(e));
            break;
        }
        if reporting {
            let t = Instant::now();
            stepper.acceleration(&mut acceleration);
            history.push((stepper.time, flow.measure(&stepper.flow, Some(&acceleration))));
            report_seconds += t.elapsed().as_secs_f64();
        }
        let t = Instant::now();
        let (row, snapshot) = (s % csv_every == 0, every > 0 && s % every == 0);
        let mut written = outputs(&stepper, &mut csv, series, &history, (row, snapshot));
        if written.is_ok() && checkpoint_every > 0 && (s % checkpoint_every == 0 || s == steps) {
            let output = seconds.output + t.elapsed().as_secs_f64();
            written = save(&stepper, &mut csv, series, &history, (report_seconds, output));
        }
        if written.is_ok() && s == steps {
            written = outputs(&stepper, &mut csv, series, &history, (!row, every > 0 && !snapshot));
        }
        seconds.output += t.elapsed().as_secs_f64();
        if let Err(e) = written {
            failure = Some(e.into());
        }
        control.report(s, steps);
    }
    if let Some(Err(e)) = csv.map(Csv::finish) {
        failure.get_or_insert(e.into());
    }
    [seconds.assembly, seconds.solve, seconds.report] = phases(&stepper, report_seconds);
    summary.wall_seconds = spent.wall;
    summary.steps = stepper.steps;
    summary.time = stepper.time;
    summary.seconds_per_step = Some((seconds.assembly + seconds.solve) / stepper.steps.max(1) as f64);
    if let Some((_, last)) = history.last() {
        record(summary, last, flow.report.marker.is_some());
        let half = &history[history.len() / 2..];
        let max = |f: fn(&Measured<D>) -> Option<f64>| {
            half.iter()
                .filter_map(|(_, m)| f(m))
                .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))
        };
        summary.drag_coefficient_max = max(|m| m.drag_coefficient);
        summary.lift_coefficient_max = max(|m| m.lift_coefficient);
        if let Some((u, l)) = flow.report.reference {
            let lift: Vec<(f64, f64)> = half
                .iter()
                .filter_map(|(t, m)| Some((*t, m.lift_coefficient?)))
                .collect();
            summary.strouhal_number = frequency(&lift).map(|f| f * l / u);
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The frequency of an oscillating series `(t, y)`: the number of upward crossings of its mean,
/// less one, over the time between the first and the last (crossing times linearly interpolated);
/// `None` with fewer than three crossings.
pub fn frequency(series: &[(f64, f64)]) -> Option<f64> {
    let mean = series.iter().map(|s| s.1).sum::<f64>() / series.len().max(1) as f64;
    let crossings: Vec<f64> = series
        .windows(2)
        .filter(|w| w[0].1 < mean && w[1].1 >= mean)
        .map(|w| {
            let (a, b) = (w[0].1 - mean, w[1].1 - mean);
            w[0].0 + (w[1].0 - w[0].0) * (-a / (b - a))
        })
        .collect();
    if crossings.len() < 3 {
        return None;
    }
    Some((crossings.len() - 1) as f64 / (crossings[crossings.len() - 1] - crossings[0]))
}

/// `fluid.csv`, written to a `.part` file and renamed into place when done or failed.
struct Csv(PartFile);

impl Csv {
    /// `fluid.csv` of a run continued from a checkpoint: its first `bytes` bytes kept.
    fn resume(out: &Path, bytes: u64) -> Result<Csv, OutputError> {
        Ok(Csv(PartFile::resume(&out.join("fluid.csv"), bytes)?))
    }

    /// Bytes written so far, all flushed (for a checkpoint).
    fn written(&mut self) -> Result<u64, OutputError> {
        self.0.flush()?;
        self.0.written()
    }

    fn new(out: &Path, dimension: usize) -> Result<Csv, OutputError> {
        let mut file = PartFile::create(&out.join("fluid.csv"))?;
        let force = ["fx", "fy", "fz"][..dimension].join(",");
        file.line(&format!(
            "time,{force},drag_coefficient,lift_coefficient,pressure_difference"
        ))?;
        Ok(Csv(file))
    }

    fn row<const D: usize>(&mut self, time: f64, m: &Measured<D>) -> Result<(), OutputError> {
        let optional = |x: Option<f64>| x.map(|x| format!("{x:e}")).unwrap_or_default();
        let force: Vec<String> = m.force.iter().map(|x| format!("{x:e}")).collect();
        self.0.line(&format!(
            "{time},{},{},{},{}",
            force.join(","),
            optional(m.drag_coefficient),
            optional(m.lift_coefficient),
            optional(m.pressure_difference)
        ))
    }

    fn finish(self) -> Result<(), OutputError> {
        self.0.finish()
    }
}
