//! A simulation's state between two steps, exactly: what a checkpoint saves so that a run
//! continued from it repeats, bit for bit, the steps the uninterrupted run would have done
//! ([`Simulation::state`] and [`Simulation::restore`]; for bodies in a fluid,
//! [`super::Immersed::state`]).
//!
//! Only what the next steps read is saved: the bodies' motion (rotations as stored, not
//! renormalised), the step counter and time, the last contact forces (written in the next output
//! rows), the collision law's springs of each contact and the walls' point-location hints (a query that starts in another cell may end in a
//! neighbouring cell for a point on their common facet, and interpolate there to the last bit
//! differently). Everything built from the case (geometries, distance fields, matrices and their
//! factors) is rebuilt from the case file, not saved.

use super::{Exit, Simulation};
use crate::body::{Dim, Kinematics, RigidBody};
use crate::contact::{ContactTimes, Memory, WALL};
use crate::math::{flatten, unflatten_into, Vector};
use serde::{Deserialize, Serialize};

/// One body's motion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyState {
    /// Its name (on restore, the case's body of that name takes this state).
    pub name: String,
    /// Centre of mass.
    pub position: Vec<f64>,
    /// Rotation components as stored: `[θ]` in 2D, `[qw, qx, qy, qz]` in 3D.
    pub rotation: Vec<f64>,
    /// Velocity.
    pub velocity: Vec<f64>,
    /// Angular velocity: `[ω]` in 2D, `[ωx, ωy, ωz]` in 3D.
    pub angular_velocity: Vec<f64>,
}

/// A body that left ([`super::Exit`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExitState {
    /// When.
    pub time: f64,
    /// The body.
    pub name: String,
    /// The opening.
    pub opening: String,
    /// Its centre then.
    pub position: Vec<f64>,
    /// Its velocity then.
    pub velocity: Vec<f64>,
}

/// The springs of one contact of the collision law ([`crate::contact::Memory`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpringState {
    /// The body (its index among the bodies present).
    pub i: u32,
    /// The other body, or `u32::MAX` for a wall.
    pub j: u32,
    /// The contact point on `i` in `i`'s frame.
    pub anchor: Vec<f64>,
    /// The tangential spring's stretch.
    pub slip: Vec<f64>,
    /// The rolling spring's angle.
    pub roll: Vec<f64>,
}

/// The state of a [`Simulation`] (bodies, walls and contact) between two steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimulationState {
    /// 2 or 3.
    pub dimension: usize,
    /// Time.
    pub time: f64,
    /// Steps done.
    pub steps: usize,
    /// The bodies present, in order.
    pub bodies: Vec<BodyState>,
    /// The bodies that left through an opening, in order.
    #[serde(default)]
    pub exits: Vec<ExitState>,
    /// A following frame's displacement and velocity along its axis ([`super::FrameMotion`]).
    #[serde(default)]
    pub frame: Option<(f64, f64)>,
    /// The contact force on each body at the last step, components body after body.
    pub force: Vec<f64>,
    /// The contact torque likewise.
    pub torque: Vec<f64>,
    /// The walls' point-location hints ([`crate::contact::ContactSolver::wall_hints`]).
    pub wall_hints: Vec<u32>,
    /// The collision law's springs ([`crate::contact::ContactSolver::memory`]).
    #[serde(default)]
    pub springs: Vec<SpringState>,
    /// Seconds spent integrating.
    pub integration_seconds: f64,
    /// Seconds spent in contact, per phase.
    pub contact_seconds: ContactTimes,
}

/// A saved state that does not fit the simulation it is restored into.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the saved state does not fit this case: {0}")]
pub struct StateError(pub String);

impl<const D: usize> Simulation<D>
where
    Dim<D>: Kinematics<D>,
{
    /// The state now (see the [module](self)).
    pub fn state(&self) -> SimulationState {
        SimulationState {
            dimension: D,
            time: self.time,
            steps: self.steps,
            bodies: self
                .bodies
                .iter()
                .map(|b| BodyState {
                    name: b.name.clone(),
                    position: b.position.as_slice().to_vec(),
                    rotation: <Dim<D> as Kinematics<D>>::rotation_components(&b.rotation),
                    velocity: b.velocity.as_slice().to_vec(),
                    angular_velocity: <Dim<D> as Kinematics<D>>::angular_components(&b.angular_velocity),
                })
                .collect(),
            exits: self
                .exits
                .iter()
                .map(|e| ExitState {
                    time: e.time,
                    name: e.name.clone(),
                    opening: e.opening.clone(),
                    position: e.position.as_slice().to_vec(),
                    velocity: e.velocity.as_slice().to_vec(),
                })
                .collect(),
            frame: self.frame.as_ref().map(|f| f.motion.get()),
            force: flatten(&self.force),
            torque: self
                .torque
                .iter()
                .flat_map(<Dim<D> as Kinematics<D>>::angular_components)
                .collect(),
            wall_hints: self.contact.wall_hints().to_vec(),
            springs: self
                .contact
                .memory()
                .iter()
                .map(|m| SpringState {
                    i: m.i,
                    j: m.j,
                    anchor: m.anchor.as_slice().to_vec(),
                    slip: m.slip.as_slice().to_vec(),
                    roll: <Dim<D> as Kinematics<D>>::angular_components(&m.roll),
                })
                .collect(),
            integration_seconds: self.integration_seconds,
            contact_seconds: self.contact.times,
        }
    }

    /// Continues from `state`, saved by [`Self::state`] from a simulation built from the same
    /// case: the same dimension, and bodies the simulation has (by name: those that have not
    /// left since). Nothing changes on an error.
    pub fn restore(&mut self, state: &SimulationState) -> Result<(), StateError> {
        if state.dimension != D {
            return Err(StateError(format!("it is {}D, the case is {D}D", state.dimension)));
        }
        // The saved bodies are the case's less those that left, each found by name (each once:
        // taken out of the index when found).
        let mut by_name: std::collections::HashMap<&str, &RigidBody<D>> =
            self.bodies.iter().map(|b| (b.name.as_str(), b)).collect();
        let mut moved = Vec::with_capacity(state.bodies.len());
        for s in &state.bodies {
            match by_name.remove(s.name.as_str()) {
                Some(b) => moved.push(b.clone()),
                None => {
                    return Err(StateError(format!(
                        "it holds a body '{}' that the case does not have (or holds it twice); the case has [{}]",
                        s.name,
                        self.bodies
                            .iter()
                            .map(|b| b.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )))
                }
            }
        }
        let n = moved.len();
        let angular = <Dim<D> as Kinematics<D>>::angular_components(&<Dim<D> as Kinematics<D>>::zero()).len();
        for (b, s) in moved.iter_mut().zip(&state.bodies) {
            let rotation = <Dim<D> as Kinematics<D>>::rotation_exact(&s.rotation);
            let angular_velocity = <Dim<D> as Kinematics<D>>::angular_from(&s.angular_velocity);
            match (rotation, angular_velocity) {
                (Some(r), Some(w)) if s.position.len() == D && s.velocity.len() == D => {
                    b.position = Vector::<D>::from_column_slice(&s.position);
                    b.velocity = Vector::<D>::from_column_slice(&s.velocity);
                    b.rotation = r;
                    b.angular_velocity = w;
                }
                _ => {
                    return Err(StateError(format!(
                        "body '{}' has components of the wrong count",
                        s.name
                    )))
                }
            }
        }
        let mut force = vec![Vector::<D>::zeros(); n];
        let torque: Option<Vec<_>> = state
            .torque
            .chunks(angular)
            .map(<Dim<D> as Kinematics<D>>::angular_from)
            .collect();
        let torque = torque.filter(|t| t.len() == n && state.torque.len() == n * angular);
        let (true, Some(torque)) = (unflatten_into(&state.force, &mut force), torque) else {
            return Err(StateError(format!(
                "it holds {} force and {} torque components for {n} bodies",
                state.force.len(),
                state.torque.len()
            )));
        };
        let cells = self.walls.as_ref().map_or(0, |w| w.mesh().num_cells());
        if !(state.wall_hints.is_empty() || state.wall_hints.len() == n)
            || state.wall_hints.iter().any(|&c| c as usize >= cells)
        {
            return Err(StateError(format!(
                "it holds {} wall hints (cells of the walls' mesh) for {n} bodies and {cells} cells",
                state.wall_hints.len()
            )));
        }
        let mut springs = Vec::with_capacity(state.springs.len());
        for m in &state.springs {
            let roll = <Dim<D> as Kinematics<D>>::angular_from(&m.roll);
            match roll {
                Some(roll)
                    if m.anchor.len() == D
                        && m.slip.len() == D
                        && (m.i as usize) < n
                        && (m.j == WALL || (m.j as usize) < n) =>
                {
                    springs.push(Memory {
                        i: m.i,
                        j: m.j,
                        anchor: Vector::<D>::from_column_slice(&m.anchor),
                        slip: Vector::<D>::from_column_slice(&m.slip),
                        roll,
                    })
                }
                _ => {
                    return Err(StateError(format!(
                        "the springs of the contact of bodies {} and {} have components of the wrong count or \
                         name a body beyond the {n} present",
                        m.i, m.j
                    )))
                }
            }
        }
        let mut exits = Vec::with_capacity(state.exits.len());
        for e in &state.exits {
            if e.position.len() != D || e.velocity.len() != D {
                return Err(StateError(format!(
                    "the exit of body '{}' has components of the wrong count",
                    e.name
                )));
            }
            exits.push(Exit {
                time: e.time,
                name: e.name.clone(),
                opening: e.opening.clone(),
                position: Vector::<D>::from_column_slice(&e.position),
                velocity: Vector::<D>::from_column_slice(&e.velocity),
            });
        }
        match (&self.frame, state.frame) {
            (Some(f), Some(motion)) => f.motion.set(motion),
            (None, None) => {}
            _ => {
                return Err(StateError(
                    "the case and the saved run differ in following a body ([frame])".into(),
                ))
            }
        }
        self.bodies = moved;
        self.exits = exits;
        self.force = force;
        self.torque = torque;
        self.contact.set_wall_hints(&state.wall_hints);
        self.contact.set_memory(springs);
        self.time = state.time;
        self.steps = state.steps;
        self.integration_seconds = state.integration_seconds;
        self.contact.times = state.contact_seconds;
        Ok(())
    }
}
