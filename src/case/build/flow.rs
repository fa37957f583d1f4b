//! The flow of a case with a `[fluid]` table ([`super::super::schema::FluidSpec`]): the domain
//! mesh, its Taylor–Hood space, the boundary conditions, the fluid's parameters in the solver's
//! units (the kinematic viscosity `ν = μ/ρ` and the kinematic pressure `p/ρ`; what is written
//! out is multiplied back by `ρ`), and what the case reports.

use super::super::schema::{BodyBoundarySpec, ConditionSpec, ConvectionSpec, NumberOrExpr, SchemeSpec, SolverSpec};
use super::super::{Case, CaseError};
use crate::expr::Expr;
use crate::fluid::{
    solve_steady, BoundaryConditions, BoundaryForce, Convection, FlowField, Fluid, FluidError, P2Space, Scheme,
    SteadyProblem, Unsteady,
};
use crate::io::{write_mesh_vtu, Field, OutputError};
use crate::linalg::SpdMethod;
use crate::math::{Point, Vector};
use crate::mesh::SimplexMesh;
use crate::sim::{BodyBoundary, Following};
use std::path::Path;

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
    /// Passes of the pressure correction a step ([`Unsteady::set_pressure_passes`]).
    pub pressure_passes: usize,
    /// How the fluid sees bodies' boundaries.
    pub body_boundary: BodyBoundary,
    /// `[fluid] balance`: a body force on the fluid carries the bodies' buoyant weight.
    pub balance: bool,
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
pub(in crate::case) struct Measured<const D: usize> {
    /// The force on the reported marker.
    pub force: Vector<D>,
    /// `2 F_x/(ρ U² L)`.
    pub drag_coefficient: Option<f64>,
    /// `2 F_y/(ρ U² L)`.
    pub lift_coefficient: Option<f64>,
    /// `p(a) − p(b)`.
    pub pressure_difference: Option<f64>,
}

impl Case {
    /// The error for `cause`, under the key to change when there is one: the mesh's size for a
    /// factorisation that does not fit, the condition for a velocity that is not finite.
    pub(in crate::case) fn fluid_error(&self, cause: FluidError) -> CaseError {
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
        // With bodies the projected correction is the default: the plain one diverges where a
        // body moves more than half a cell a step (docs/validation.md).
        let scheme = match spec.scheme {
            None if self.has_bodies() => Scheme::ProjectedCorrection,
            None | Some(SchemeSpec::PressureCorrection) => Scheme::PressureCorrection,
            Some(SchemeSpec::Monolithic) => Scheme::Monolithic,
            Some(SchemeSpec::ProjectedCorrection) => Scheme::ProjectedCorrection,
        };
        let pressure_passes = match (spec.pressure_passes, scheme) {
            (None, _) => 1,
            (Some(0), _) => {
                return Err(self.invalid("fluid.pressure_passes", "at least 1 pass a step, got 0"));
            }
            (Some(n), Scheme::Monolithic) if n > 1 => {
                return Err(self.invalid(
                    "fluid.pressure_passes",
                    "the monolithic scheme solves the pressure with the velocity: it has no passes; \
                     remove the key or use the pressure correction",
                ));
            }
            (Some(n), _) => n,
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
        let (mesh, _, images) = self.domain_mesh::<D>(domain, f64::INFINITY)?;
        let gravity = match &f.gravity {
            Some(g) => self.vector::<D>("gravity", g)?,
            None => Vector::<D>::zeros(),
        };
        let balance = spec.balance.unwrap_or(false);
        if balance {
            let walled = (0..D).find(|&a| gravity[a] != 0.0 && images.period().axis(a).is_none());
            if gravity == Vector::<D>::zeros() || walled.is_some() {
                return Err(self.invalid(
                    "fluid.balance",
                    "the balance carries the bodies' weight in a domain periodic along gravity, where no wall does: \
                     give a gravity and make every axis it has a component along periodic (domain.periodic)",
                ));
            }
            if f.bodies.is_empty() && f.inflow.is_empty() {
                return Err(self.invalid(
                    "fluid.balance",
                    "the balance carries the bodies' weight: the case has none",
                ));
            }
        }
        let mut boundary = BoundaryConditions::<D>::default();
        for f in images.faces() {
            for name in [&f.lo, &f.hi] {
                if spec.boundary.contains_key(name.as_str()) {
                    return Err(self.invalid(
                        format!("fluid.boundary.{name}"),
                        "a periodic face (domain.periodic) takes no condition: the flow there is the flow at its image",
                    ));
                }
                let marker = mesh
                    .facet_marker(name)
                    .map_err(|e| self.invalid("domain.periodic", e.to_string()))?;
                boundary = boundary.periodic(marker);
            }
        }
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
        let mut space = P2Space::periodic(&mesh, &images);
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
            pressure_passes,
            body_boundary: match spec.body_boundary {
                Some(BodyBoundarySpec::Surface) => BodyBoundary::Surface,
                Some(BodyBoundarySpec::Nodes) | None => BodyBoundary::Nodes,
            },
            balance,
            solver: match spec.solver {
                Some(SolverSpec::Direct) => SpdMethod::Direct,
                Some(SolverSpec::Iterative) => SpdMethod::Iterative,
                Some(SolverSpec::Auto) | None => SpdMethod::Auto,
            },
            report,
        })
    }

    pub(in crate::case) fn velocity_expressions<const D: usize>(
        &self,
        field: &str,
        v: &[NumberOrExpr],
    ) -> Result<Vec<Expr>, CaseError> {
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
    pub(in crate::case) fn stepper(
        &self,
        case: &Case,
        dt: f64,
        frame: Option<&Following<D>>,
    ) -> Result<Unsteady<D>, CaseError> {
        let rest = FlowField {
            velocity: vec![Vector::<D>::zeros(); self.space.len()],
            pressure: vec![0.0; self.space.vertices],
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
        stepper.set_pressure_passes(self.pressure_passes);
        Ok(stepper)
    }

    /// The steady flow (Newton's method to a relative residual of 1e-10, at most 30 iterations)
    /// and the iterations it took.
    pub(in crate::case) fn solve_steady(&self, case: &Case) -> Result<(FlowField<D>, usize), CaseError> {
        let g = self.gravity;
        let problem = SteadyProblem {
            kinematic_viscosity: self.nu,
            density: self.fluid.density,
            force: &|_: &Point<D>| g,
            boundary: &self.boundary,
            convection: self.convection != Convection::Off,
        };
        solve_steady(&self.mesh, &self.space, &problem, 1e-10, 30).map_err(|e| case.fluid_error(e))
    }

    /// Refuses a flow that bodies cannot move in: a steady one, or the monolithic scheme.
    pub(in crate::case) fn check_for_bodies(&self, case: &Case) -> Result<(), CaseError> {
        if self.steady {
            return Err(case.invalid(
                "fluid.steady",
                "bodies move: a case with [[bodies]] needs time stepping ([time]), not a steady flow",
            ));
        }
        if self.scheme == Scheme::Monolithic {
            return Err(case.invalid(
                "fluid.scheme",
                "the bodies' constraint acts between the velocity step and the pressure correction: a case with \
                 [[bodies]] needs scheme = \"projected-correction\" (the default with bodies) or \"pressure-correction\"",
            ));
        }
        Ok(())
    }

    /// Whether convection is extrapolated (explicit), whose stability needs a CFL number below 1.
    pub(in crate::case) fn explicit_convection(&self) -> bool {
        self.convection == Convection::Extrapolated
    }

    /// The reported quantities of `flow` (with `∂u/∂t` for an unsteady flow), in the case's units.
    pub(in crate::case) fn measure(&self, flow: &FlowField<D>, acceleration: Option<&[Vector<D>]>) -> Measured<D> {
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
                self.space.dofs(*cell)[..D + 1]
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
    pub(in crate::case) fn write_flow(&self, path: &Path, flow: &FlowField<D>) -> Result<(), OutputError> {
        // At each node, its dofs' values (an identified node's its master's).
        let at_nodes = (0..self.mesh.num_points() as u32).map(|v| self.space.vertex_dof(v) as usize);
        let velocity: Vec<Vector<D>> = at_nodes.clone().map(|k| flow.velocity[k]).collect();
        let pressure: Vec<f64> = at_nodes.map(|k| flow.pressure[k] * self.fluid.density).collect();
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
                Field::vector("velocity", &velocity),
                Field::scalar("pressure", &pressure),
                vorticity,
            ],
            vec![],
        )
    }
}
