//! The case builder: a parsed case turned into the library's objects (bodies, walls, contact,
//! the domain mesh, the flow), each key checked on the way with an error naming the file and
//! the key. The runs ([`super::run`]) see only what it builds.
//!
//! | file | builds |
//! |---|---|
//! | `mod.rs` | the dry [`Simulation`]: contact model, gravity, drag, bodies and walls; a following frame |
//! | `bodies.rs` | the bodies (shapes, geometries shared between equal shapes, poses, grids of copies) |
//! | `shape.rs` | a body's analytic shape from its `shape` table |
//! | `domain.rs` | the domain mesh (a box or a Gmsh file) and the walls' distance field |
//! | `flow.rs` | the flow of a `[fluid]` table ([`FlowCase`]): mesh, space, conditions, parameters, what to report |

mod bodies;
mod domain;
mod flow;
mod shape;

pub(super) use flow::Measured;
pub use flow::{FlowCase, Report};

use super::inflow::Inflow;
use super::schema::{self, BodySpec};
use super::{Case, CaseError};
use crate::body::{Dim, Kinematics, RigidBody};
use crate::broad::sets::method;
use crate::contact::{ContactModel, ContactParameters, ContactSolver, Law, Lubrication};
use crate::math::{Periodicity, Vector};
use crate::sim::{Drag, Following, Simulation};

impl Case {
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
    pub(in crate::case) fn frame<const D: usize>(
        &self,
        sim: &Simulation<D>,
        gravity: &Vector<D>,
    ) -> Result<Option<Following<D>>, CaseError>
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

    /// The film of `[contact] lubrication`, with the `[fluid]`'s viscosity (or its own, without a
    /// fluid) and the share of it the mesh carries (0 by default).
    fn lubrication(&self, c: &schema::ContactSpec) -> Result<Option<Lubrication>, CaseError> {
        let Some(l) = c.lubrication else {
            return Ok(None);
        };
        let viscosity = match (&self.file.fluid, l.viscosity) {
            (Some(_), Some(_)) => {
                return Err(self.invalid(
                    "contact.lubrication.viscosity",
                    "the film's viscosity is the [fluid]'s: remove it",
                ))
            }
            (Some(f), None) => f.viscosity,
            (None, Some(mu)) => mu,
            (None, None) => {
                return Err(self.invalid(
                    "contact.lubrication.viscosity",
                    "is missing: a case without a [fluid] gives the film's viscosity here",
                ))
            }
        };
        Ok(Some(Lubrication {
            viscosity,
            cut: l.cut,
            roughness: l.roughness,
            share: l.share.unwrap_or(0.0),
            tangential: l.tangential.unwrap_or(true),
        }))
    }

    /// The simulation of [`Self::simulation`] and the case's `[[inflow]]` tables.
    pub(in crate::case) fn parts<const D: usize>(&self) -> Result<(Simulation<D>, Vec<Inflow<D>>), CaseError>
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
                format!("unknown law '{law_name}'; expected one of {}", Law::NAMES),
            )
        })?;
        let model = ContactModel::new(&ContactParameters {
            law,
            range: c.range,
            stiffness: c.stiffness,
            wall_stiffness: c.wall_stiffness,
            damping: c.damping,
            restitution: c.restitution,
            duration: c.duration,
            friction: c.friction,
            rolling: c.rolling,
            lubrication: self.lubrication(c)?,
        })
        .map_err(|e| {
            // The film's arguments are `lubrication_cut`, …; its keys `lubrication.cut`, ….
            let key = e.field.replacen("lubrication_", "lubrication.", 1);
            self.invalid(format!("contact.{key}"), e.message)
        })?;
        let band = model.band();
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
            Some(d) => Some(self.domain_mesh::<D>(d, band)?),
            None => None,
        };
        let specs: Vec<(String, BodySpec)> = f
            .bodies
            .iter()
            .enumerate()
            .map(|(k, b)| (format!("bodies[{k}]"), b.clone()))
            .collect();
        let period = domain
            .as_ref()
            .map_or(Periodicity::none(), |(.., images)| *images.period());
        let bodies = self.bodies::<D>(
            &specs,
            &model,
            c.resolution,
            (domain.as_ref().map(|(m, ..)| m), &period),
        )?;
        let mesh = domain.as_ref().map(|(m, ..)| m);
        let inflows = self.inflows::<D>((&model, c.resolution, time.end), mesh, &bodies)?;
        let templates: Vec<RigidBody<D>> = inflows.iter().map(|i| i.template().clone()).collect();
        let periodic = domain.as_ref().is_some_and(|(.., images)| images.any());
        if periodic && f.frame.is_some() {
            return Err(self.invalid(
                "frame",
                "a frame that follows a body moves the mesh with it, which a periodic domain (domain.periodic) does \
                 not: remove one of them",
            ));
        }
        let mut contact = ContactSolver::new(model, broad);
        let walls = match domain {
            Some((mesh, default_walls, images)) => {
                contact = contact.with_period(*images.period());
                let all = [&bodies[..], &templates].concat();
                self.walls::<D>(mesh, default_walls, band, &all, &images)?
            }
            None => None,
        };
        let sim = Simulation::new(bodies, walls, gravity, drag, contact);
        sim.check_start().map_err(|cause| self.sim_error(cause))?;
        Ok((sim, inflows))
    }
}
