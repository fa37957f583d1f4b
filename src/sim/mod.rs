//! The time loop of rigid bodies under gravity and contact, without fluid ("dry", this file), with
//! optional linear and angular drag standing in for viscous damping; in a fluid, [`Immersed`].
//!
//! One step of length `Δt` (semi-implicit Euler, drag implicit):
//!
//! ```text
//! v ← (v + Δt (F/m + g)) / (1 + c_v Δt),          G ← G + Δt v,
//! ω ← (ω + Δt ω̇(τ)) / (1 + c_ω Δt),               R ← exp(Δt ω) R,
//! ```
//!
//! where `F`, `τ` are the contact force and torque at the start of the step and `ω̇` comes from
//! Euler's equation ([`Kinematics::angular_acceleration`]). The drag terms are unconditionally
//! stable; the contact spring of stiffness `k = |dF/dd|` at contact is stable for
//! `Δt < 2 √(m/k)` (the symplectic Euler limit for an oscillator), which
//! [`Simulation::stable_time_step`] reports with the reduced mass `m/2` for a pair and the mass
//! reduced further by the body's turning.

pub mod distributed;
mod frame;
mod grid;
pub mod immersed;
pub mod state;

/// The bodies' and the fluid's types that a simulation hands out (its bodies, the fluid it steps
/// them in and that fluid's solvers), for its users to name.
pub use crate::body::{Angular, Dim, Kinematics, RigidBody};
pub use crate::fluid::{Solvers, Unsteady, UnsteadyState};
pub use distributed::{Distributed, DistributedError, Exchange, Partition, Threads};
pub use frame::{Following, FrameMotion};
pub use grid::PointGrid;
pub use immersed::{substeps_for, BodyBoundary, Immersed, ImmersedOptions, ImmersedSeconds, ImmersedState};
pub use state::{BodyState, ExitState, SimulationState, SpringState, StateError};

use crate::broad::{BoundingSphere, BroadError, LinkedCell, PeriodicPairs};
use crate::contact::{closest_contact, image_of, ContactSolver, Walls, WALL};
use crate::fluid::FluidError;
use crate::math::Vector;
use rayon::prelude::*;
use std::time::Instant;

/// What stops a simulation.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Two bodies overlap at the start.
    #[error("bodies '{a}' and '{b}' overlap at the start (gap {gap:.3e}); move them apart")]
    Overlap {
        /// One body.
        a: String,
        /// The other.
        b: String,
        /// Their (negative) gap.
        gap: f64,
    },
    /// A body is not inside the domain.
    #[error("body '{body}' is not inside the domain: {detail}")]
    Outside {
        /// The body.
        body: String,
        /// Where it is.
        detail: String,
    },
    /// A body's state stopped being finite (a time step far too large for the contact stiffness).
    #[error("body '{body}' has a non-finite {what} at t = {}: the time step is too large for the contact stiffness (stable below {limit:.3e})", crate::math::shown(*time))]
    NotFinite {
        /// The body.
        body: String,
        /// Position or velocity.
        what: &'static str,
        /// When.
        time: f64,
        /// The stable time step.
        limit: f64,
    },
    /// The flow around the bodies diverged (non-finite, or far faster than anything in the case
    /// can make it).
    #[error("{detail}")]
    Diverged {
        /// What diverged, when, and what to change.
        detail: String,
    },
    /// The broad phase refused the bounding spheres.
    #[error("broad phase: {0}")]
    Broad(#[from] BroadError),
    /// The fluid step failed.
    #[error("fluid: {0}")]
    Fluid(#[from] FluidError),
    /// The bodies in the fluid do not fit the mesh or the fluid.
    #[error("bodies in the fluid: {0}")]
    Immersed(String),
}

/// A body that left the domain through an opening ([`Simulation::leave`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Exit<const D: usize> {
    /// When (the end of the step in which its centre crossed the opening).
    pub time: f64,
    /// The body.
    pub name: String,
    /// The opening's marker name (its number when it has none).
    pub opening: String,
    /// Its centre then (in the lab).
    pub position: Vector<D>,
    /// Its velocity then (in the lab).
    pub velocity: Vector<D>,
}

/// Linear and angular drag rates (per unit time): `dv/dt = … − c_v v`, `dω/dt = … − c_ω ω`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Drag {
    /// `c_v`.
    pub linear: f64,
    /// `c_ω`.
    pub angular: f64,
}

/// Bodies, walls, gravity and contact: everything a dry time step needs.
pub struct Simulation<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    /// The bodies.
    pub bodies: Vec<RigidBody<D>>,
    /// The domain's walls, if any.
    pub walls: Option<Walls<D>>,
    /// Gravity.
    pub gravity: Vector<D>,
    /// Drag.
    pub drag: Drag,
    /// The contact computation.
    pub contact: ContactSolver<D>,
    /// The contact force on each body at the last step.
    pub force: Vec<Vector<D>>,
    /// The contact torque on each body at the last step.
    pub torque: Vec<Angular<D>>,
    /// Current time.
    pub time: f64,
    /// Steps done.
    pub steps: usize,
    /// Seconds spent integrating.
    pub integration_seconds: f64,
    /// The bodies that left through an opening and were removed, in order; the caller takes
    /// them (to write them out) as it likes.
    pub exits: Vec<Exit<D>>,
    /// The frame the bodies' positions and velocities are in, when it follows a body
    /// ([`Following`], bodies in a fluid); `None`: the lab's.
    pub frame: Option<Following<D>>,
}

impl<const D: usize> Simulation<D>
where
    Dim<D>: Kinematics<D>,
{
    /// A simulation at time 0.
    pub fn new(
        bodies: Vec<RigidBody<D>>,
        walls: Option<Walls<D>>,
        gravity: Vector<D>,
        drag: Drag,
        contact: ContactSolver<D>,
    ) -> Self {
        let n = bodies.len();
        Simulation {
            bodies,
            walls,
            gravity,
            drag,
            contact,
            force: vec![Vector::<D>::zeros(); n],
            torque: vec![<Dim<D> as Kinematics<D>>::zero(); n],
            time: 0.0,
            steps: 0,
            integration_seconds: 0.0,
            exits: Vec::new(),
            frame: None,
        }
    }

    /// The frame's displacement and velocity in the lab (zero without a following frame): body
    /// `b` is at `b.position + offset` in the lab, moving at `b.velocity + velocity`.
    pub fn frame_motion(&self) -> (Vector<D>, Vector<D>) {
        self.frame
            .as_ref()
            .map_or((Vector::<D>::zeros(), Vector::<D>::zeros()), Following::lab)
    }

    /// Body `b`'s centre and velocity in the lab: as stored, moved by a following frame's
    /// displacement and velocity ([`Self::frame_motion`]).
    pub fn in_lab(&self, b: &RigidBody<D>) -> (Vector<D>, Vector<D>) {
        let (offset, moving) = self.frame_motion();
        (b.position + offset, b.velocity + moving)
    }

    /// Adds `body` (released during the run) after the others, with no contact force yet.
    pub fn insert(&mut self, body: RigidBody<D>) {
        self.bodies.push(body);
        self.force.push(Vector::<D>::zeros());
        self.torque.push(<Dim<D> as Kinematics<D>>::zero());
    }

    /// Removes the bodies whose centre of mass has crossed an opening of the domain (a marked
    /// boundary that is not a wall: an outlet, an inlet; [`Walls::opening_crossed`]), recording
    /// each in [`Self::exits`]; returns their indices before the removal, ascending.
    ///
    /// A body leaves once its centre is past the opening, not its whole bounding sphere: the
    /// part still inside is released to the fluid with its rigid velocity, the velocity of the
    /// flow that carries it out. Waiting for the last sliver would leave a fluid's rigidity
    /// constraint a handful of dofs, too few to fit a rigid motion to. Without walls (no domain
    /// mesh) no body leaves.
    pub fn leave(&mut self) -> Vec<usize> {
        let crossed = self.crossings();
        for &(k, ref opening) in &crossed {
            let b = &self.bodies[k];
            let (position, velocity) = self.in_lab(b);
            self.exits.push(Exit {
                time: self.time,
                name: b.name.clone(),
                opening: opening.clone(),
                position,
                velocity,
            });
        }
        for &(k, _) in crossed.iter().rev() {
            self.bodies.remove(k);
            self.force.remove(k);
            self.torque.remove(k);
            self.contact.remove_body(k);
        }
        crossed.into_iter().map(|(k, _)| k).collect()
    }

    /// The bodies whose centre of mass has crossed an opening, ascending, each with the
    /// opening's marker name (its number when it has none); none without walls.
    pub fn crossings(&mut self) -> Vec<(usize, String)> {
        let Some(walls) = &self.walls else {
            return Vec::new();
        };
        let hints = self.contact.hints_mut();
        hints.resize(self.bodies.len(), 0);
        self.bodies
            .iter()
            .enumerate()
            .filter_map(|(k, b)| {
                let marker = walls.opening_crossed(&b.position, &mut hints[k])?;
                Some((k, walls.mesh().facet_marker_label(marker)))
            })
            .collect()
    }

    /// Checks the starting configuration: every body inside the domain (its centre and every
    /// boundary node) and no two bodies overlapping (pairs from the broad phase).
    pub fn check_start(&self) -> Result<(), SimError> {
        if let Some(w) = &self.walls {
            for b in &self.bodies {
                if !w.contains(&b.position) {
                    return Err(SimError::Outside {
                        body: b.name.clone(),
                        detail: format!("its centre {:?} is outside the domain mesh", b.position.as_slice()),
                    });
                }
                if let Some(p) = b
                    .geometry
                    .surface
                    .points
                    .iter()
                    .map(|p| b.to_world(p))
                    .find(|x| !w.contains(x))
                {
                    return Err(SimError::Outside {
                        body: b.name.clone(),
                        detail: format!("its boundary point {:?} is outside the domain mesh", p.as_slice()),
                    });
                }
            }
        }
        let cut = self.contact.model.range;
        let spheres: Vec<BoundingSphere<D>> = self
            .bodies
            .iter()
            .map(|b| BoundingSphere {
                centre: b.position,
                radius: b.geometry.radius,
            })
            .collect();
        let mut pairs = Vec::new();
        let mut broad = PeriodicPairs::new(Box::new(LinkedCell::<D>::default()), *self.contact.period());
        broad.pairs(&spheres, cut, &mut pairs)?;
        for (i, j, shift) in pairs {
            let (a, b) = (&self.bodies[i as usize], image_of(&self.bodies[j as usize], &shift));
            if let Some(c) = closest_contact(i, j, a, &b, cut) {
                if c.gap < 0.0 {
                    return Err(SimError::Overlap {
                        a: a.name.clone(),
                        b: b.name.clone(),
                        gap: c.gap,
                    });
                }
            }
        }
        Ok(())
    }

    /// The largest stable time step of the contact: the least over the bodies of
    /// [`ContactModel::stable_time_step`](crate::contact::ContactModel::stable_time_step) with
    /// `m_i` the mass a contact point moves with:
    /// `1/m_i = 1/m + ℓ²/J_min`, the turn about the least principal moment `J_min` adding to the
    /// translation. `ℓ² = R² − r²` bounds the squared lever of a force along the boundary's normal
    /// (`R` the farthest boundary point from `G`, `r` the distance field's value at `G`: a convex body's support plane
    /// at a point is at least `r` from `G`); it is 0 for a ball. Without the turn a brick in a
    /// pile (`ℓ²/J_min` 6.5 times `1/m`) was given a step at which it shook at hundreds of rad/s.
    pub fn stable_time_step(&self) -> f64 {
        self.bodies
            .iter()
            .map(|b| self.stable_time_step_of(b))
            .fold(f64::INFINITY, f64::min)
    }

    /// The stable time step of [`Self::stable_time_step`] for the body `b` alone.
    pub fn stable_time_step_of(&self, b: &RigidBody<D>) -> f64 {
        let g = &b.geometry;
        let nearest = g.field.value(&Vector::<D>::zeros()).abs().min(g.radius);
        let turn = (g.radius * g.radius - nearest * nearest).max(0.0)
            / (b.density * <Dim<D> as Kinematics<D>>::least_inertia(&g.moments.second));
        let moved = 1.0 / (1.0 / b.mass + turn);
        self.contact.model.stable_time_step(b.mass, moved, g.radius)
    }

    /// The body sub-steps per fluid step of length `dt` ([`substeps_for`]) that suit these
    /// bodies and those still `to_come` (released later by the case).
    pub fn substeps<'a>(&self, dt: f64, to_come: impl IntoIterator<Item = &'a RigidBody<D>>) -> usize {
        let stable = to_come
            .into_iter()
            .map(|b| self.stable_time_step_of(b))
            .fold(self.stable_time_step(), f64::min);
        substeps_for(dt, stable)
    }

    /// The smallest gap between two bodies among the contacts now (negative: an overlap); `None`
    /// when no pair is within contact range.
    pub fn smallest_body_gap(&self) -> Option<f64> {
        self.contact
            .contacts
            .iter()
            .filter(|c| c.j != WALL)
            .map(|c| c.gap)
            .reduce(f64::min)
    }

    /// The smallest distance from a body's boundary to a wall now, over the points of the
    /// bodies' surfaces (`O(surface points)` queries of the walls' field); `None` without walls
    /// or farther than the walls' field reaches.
    pub fn wall_gap(&self) -> Option<f64> {
        let walls = self.walls.as_ref()?;
        let mut hint = 0;
        let gap = self
            .bodies
            .iter()
            .flat_map(|b| b.geometry.surface.points.iter().map(move |p| b.to_world(p)))
            .map(|x| walls.query(&x, &mut hint).0)
            .fold(f64::INFINITY, f64::min);
        (gap < walls.band()).then_some(gap)
    }

    /// The contact force and torque on every body now, into [`Self::force`] and
    /// [`Self::torque`], to be held over a step `dt` (0: looked at without a step; see
    /// [`ContactSolver::forces`]); an error if a body's centre has left the domain.
    pub fn contact_forces(&mut self, dt: f64) -> Result<(), SimError> {
        self.contact
            .forces(&self.bodies, self.walls.as_ref(), dt, &mut self.force, &mut self.torque)?;
        self.still_inside()
    }

    /// The collision law's force and torque alone (no lubrication film) into [`Self::force`] and
    /// [`Self::torque`], as [`Self::contact_forces`] ([`ContactSolver::law_forces`]).
    pub fn law_forces(&mut self, dt: f64) -> Result<(), SimError> {
        self.contact
            .law_forces(&self.bodies, self.walls.as_ref(), dt, &mut self.force, &mut self.torque)?;
        self.still_inside()
    }

    /// An error if the last contact computation found a body's centre outside the domain.
    fn still_inside(&self) -> Result<(), SimError> {
        if let Some(k) = self.contact.outside {
            let b = &self.bodies[k as usize];
            return Err(SimError::Outside {
                body: b.name.clone(),
                detail: format!(
                    "its centre left the domain at t = {} (position {:?}, speed {:.3e}): the contact force did \
                     not hold it; {}",
                    crate::math::shown(self.time),
                    b.position.as_slice(),
                    b.velocity.norm(),
                    self.through_advice(b)
                ),
            });
        }
        Ok(())
    }

    /// What to change when body `b` went through a wall, with the numbers of its law.
    fn through_advice(&self, b: &RigidBody<D>) -> String {
        let size = b
            .geometry
            .field
            .value(&Vector::<D>::zeros())
            .abs()
            .min(b.geometry.radius);
        match &self.contact.model.collision {
            Some(law) => format!(
                "the collision law lets a body at speed U overlap by about U t_c/π, here {:.3e} against the body's \
                 inner radius {size:.3e}: shorten contact.duration",
                b.velocity.norm() * law.duration / std::f64::consts::PI
            ),
            None => format!(
                "a stiffer wall (a smaller contact.wall_stiffness, now {:.3e}) or a smaller time step holds it \
                 (the contact's stable step is {:.3e})",
                self.contact.model.wall_stiffness,
                self.stable_time_step()
            ),
        }
    }

    /// The error for the first body whose position or velocity is not finite, if any.
    pub fn check_finite(&self) -> Result<(), SimError> {
        match self
            .bodies
            .iter()
            .find(|b| !(b.position.iter().all(|x| x.is_finite()) && b.velocity.iter().all(|x| x.is_finite())))
        {
            Some(b) => Err(SimError::NotFinite {
                body: b.name.clone(),
                what: "position or velocity",
                time: self.time,
                limit: self.stable_time_step(),
            }),
            None => Ok(()),
        }
    }

    /// Takes every body's centre into the periodic cell ([`ContactSolver::period`]; nothing
    /// without periodic directions): a body that left through a periodic face comes back
    /// through its image.
    pub fn wrap(&mut self) {
        let period = *self.contact.period();
        if period.any() {
            for b in &mut self.bodies {
                b.position = period.wrap(&b.position);
            }
        }
    }

    /// Advances all bodies by `dt`.
    pub fn step(&mut self, dt: f64) -> Result<(), SimError> {
        self.contact_forces(dt)?;
        let start = Instant::now();
        let (g, drag) = (self.gravity, self.drag);
        self.bodies
            .par_iter_mut()
            .zip(self.force.par_iter().zip(self.torque.par_iter()))
            .for_each(|(b, (f, t))| advance(b, f, t, &g, drag, dt));
        self.wrap();
        self.time += dt;
        self.steps += 1;
        self.integration_seconds += start.elapsed().as_secs_f64();
        self.check_finite()
    }
}

/// One dry step of body `b` under the force `f` and torque `t` held over `dt`, gravity `g` and
/// `drag` (the semi-implicit Euler step of the module's doc): the loop of [`Simulation::step`],
/// and of [`Distributed::step`] over the bodies a rank owns.
pub(crate) fn advance<const D: usize>(
    b: &mut RigidBody<D>,
    f: &Vector<D>,
    t: &Angular<D>,
    g: &Vector<D>,
    drag: Drag,
    dt: f64,
) where
    Dim<D>: Kinematics<D>,
{
    b.velocity = (b.velocity + (f / b.mass + g) * dt) / (1.0 + drag.linear * dt);
    b.position += b.velocity * dt;
    let alpha = <Dim<D> as Kinematics<D>>::angular_acceleration(&b.inertia, &b.rotation, &b.angular_velocity, t);
    b.angular_velocity = (b.angular_velocity + alpha * dt) * (1.0 / (1.0 + drag.angular * dt));
    b.rotation = <Dim<D> as Kinematics<D>>::advance(&b.rotation, &b.angular_velocity, dt);
}
