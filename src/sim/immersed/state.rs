//! What an [`Immersed`] run keeps between two steps, saved and restored exactly (the
//! checkpoints of [`crate::sim::state`]): the bodies', the fluid's and the coupling's own state
//! ([`ImmersedState`]), and the seconds spent per phase ([`ImmersedSeconds`]). Saving copies the
//! state (`O(|C|)` for the coupling, `|C|` the constrained dofs); restoring finds the constrained
//! dofs again at the saved poses and checks them against the saved ones.

use super::Immersed;
use crate::body::{Angular, Dim, Kinematics};
use crate::fluid::UnsteadyState;
use crate::math::{flatten, unflatten_into, Vector};
use crate::sim::{SimulationState, StateError};

/// Seconds per phase, summed over steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImmersedSeconds {
    /// The fluid steps, without the constraint.
    pub fluid: f64,
    /// The constraint's iterations and the rigidity projection.
    pub constraint: f64,
    /// Contact forces and body updates.
    pub bodies: f64,
}

/// The state of an [`Immersed`] run between two steps, exactly (see [`crate::sim::state`]): the
/// bodies', the fluid's, and the coupling's own: the bodies' velocities a step back (their dofs'
/// BDF2 history), the multipliers on the constrained dofs (the next solve's warm start) and the
/// last solve's iteration count (which chooses between restricted and full solves, whose results
/// differ in the last bits).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImmersedState {
    /// The bodies, walls and contact.
    pub bodies: SimulationState,
    /// The fluid.
    pub fluid: UnsteadyState,
    /// Body sub-steps per fluid step (checked: it follows from the contact parameters).
    pub substeps: usize,
    /// The hydrodynamic force on each body at the last step, components body after body.
    pub hydro_force: Vec<f64>,
    /// The hydrodynamic torque likewise.
    pub hydro_torque: Vec<f64>,
    /// Each body's velocity a step back.
    pub before_velocity: Vec<f64>,
    /// Each body's angular velocity a step back.
    pub before_spin: Vec<f64>,
    /// The momentum each body's last projection gave the dofs it captured, over `ρ_f`
    /// (charged at the next step), components body after body; empty in checkpoints written
    /// before it existed (read as zero).
    #[serde(default)]
    pub captured_momentum: Vec<f64>,
    /// The angular momentum likewise.
    #[serde(default)]
    pub captured_angular: Vec<f64>,
    /// The constrained velocity dofs, body after body (checked: they follow from the poses).
    pub constrained: Vec<u32>,
    /// The multipliers on them.
    pub multiplier: Vec<f64>,
    /// The last solve's iterations.
    pub last_iterations: usize,
    /// The constraint's patch's last conjugate-gradient iterations (which choose between the
    /// patch and whole solves); 0 in checkpoints written before it was kept.
    #[serde(default)]
    pub patch_iterations: usize,
    /// The lubrication film's force on each body at the last step (the next step's film starts
    /// from it, [`crate::contact::surroundings`]); empty without a film or from a run saved before it was kept.
    #[serde(default)]
    pub film_force: Vec<f64>,
    /// Its torque likewise.
    #[serde(default)]
    pub film_torque: Vec<f64>,
    /// All steps' iterations.
    pub iterations: usize,
    /// Seconds spent.
    pub seconds: ImmersedSeconds,
}

impl<const D: usize> Immersed<D>
where
    Dim<D>: Kinematics<D>,
{
    /// The state now ([`ImmersedState`]).
    pub fn state(&self) -> ImmersedState {
        let angular = |w: &[Angular<D>]| -> Vec<f64> {
            w.iter()
                .flat_map(<Dim<D> as Kinematics<D>>::angular_components)
                .collect()
        };
        let (velocity, spin): (Vec<_>, Vec<_>) = self.before.iter().copied().unzip();
        let (momentum, captured_angular): (Vec<_>, Vec<_>) = self.captured.iter().copied().unzip();
        // The film's force and torque a step back, when there is one per body (else empty).
        let film = &self.bodies.contact;
        let kept = |len: usize, flat: &dyn Fn() -> Vec<f64>| {
            if len == self.bodies.bodies.len() {
                flat()
            } else {
                Vec::new()
            }
        };
        ImmersedState {
            bodies: self.bodies.state(),
            fluid: self.fluid.state(),
            substeps: self.substeps,
            hydro_force: flatten(&self.hydro_force),
            hydro_torque: angular(&self.hydro_torque),
            before_velocity: flatten(&velocity),
            before_spin: angular(&spin),
            captured_momentum: flatten(&momentum),
            captured_angular: angular(&captured_angular),
            constrained: self.work.dofs.clone(),
            multiplier: flatten(&self.work.multiplier),
            last_iterations: self.work.iterations,
            patch_iterations: self.work.patch_iterations,
            film_force: kept(film.film_force.len(), &|| flatten(&film.film_force)),
            film_torque: kept(film.film_torque.len(), &|| angular(&film.film_torque)),
            iterations: self.iterations,
            seconds: self.seconds,
        }
    }

    /// Continues from `state`, saved by [`Self::state`] from a run built from the same case.
    /// On an error the run is partly restored and must not go on: build it again.
    pub fn restore(&mut self, state: &ImmersedState) -> Result<(), StateError> {
        let n = state.bodies.bodies.len();
        if state.substeps != self.substeps {
            return Err(StateError(format!(
                "it was run with {} body sub-steps per step, the case gives {} (the contact parameters changed)",
                state.substeps, self.substeps
            )));
        }
        let angular = |flat: &[f64]| -> Option<Vec<Angular<D>>> {
            let count = flat.len() / n.max(1);
            let w: Option<Vec<_>> = flat
                .chunks(count.max(1))
                .map(<Dim<D> as Kinematics<D>>::angular_from)
                .collect();
            w.filter(|w| w.len() == n)
        };
        let mut hydro_force = vec![Vector::<D>::zeros(); n];
        let mut velocity = vec![Vector::<D>::zeros(); n];
        let mut momentum = vec![Vector::<D>::zeros(); n];
        let captured_angular = if state.captured_angular.is_empty() {
            Some(vec![<Dim<D> as Kinematics<D>>::zero(); n])
        } else {
            angular(&state.captured_angular)
        };
        let mut film_force = vec![Vector::<D>::zeros(); n];
        let film_torque = if state.film_torque.is_empty() {
            Some(Vec::new())
        } else {
            angular(&state.film_torque)
        };
        let (true, true, true, true, Some(hydro_torque), Some(spin), Some(captured_angular), Some(film_torque)) = (
            unflatten_into(&state.hydro_force, &mut hydro_force),
            unflatten_into(&state.before_velocity, &mut velocity),
            state.captured_momentum.is_empty() || unflatten_into(&state.captured_momentum, &mut momentum),
            state.film_force.is_empty() || unflatten_into(&state.film_force, &mut film_force),
            angular(&state.hydro_torque),
            angular(&state.before_spin),
            captured_angular,
            film_torque,
        ) else {
            return Err(StateError(format!(
                "its hydrodynamic forces and past velocities do not have the components of {n} bodies"
            )));
        };
        self.fluid
            .restore(&state.fluid)
            .map_err(|e| StateError(e.to_string()))?;
        self.bodies.restore(&state.bodies)?;
        let (_, position, prescribed) = self.fluid.velocity_mut();
        self.work
            .collect(&self.dofs, position, prescribed, &self.bodies.bodies)
            .map_err(|e| StateError(e.to_string()))?;
        if self.work.dofs != state.constrained {
            return Err(StateError(format!(
                "the bodies hold {} velocity dofs at their saved poses, the saved run held {} (another mesh?)",
                self.work.dofs.len(),
                state.constrained.len()
            )));
        }
        if !unflatten_into(&state.multiplier, &mut self.work.multiplier) {
            return Err(StateError(format!(
                "it holds {} multiplier components for {} constrained dofs",
                state.multiplier.len(),
                self.work.dofs.len()
            )));
        }
        self.work.iterations = state.last_iterations;
        self.work.patch_iterations = state.patch_iterations;
        self.hydro_force = hydro_force;
        self.hydro_torque = hydro_torque;
        self.before = velocity.into_iter().zip(spin).collect();
        self.captured = momentum.into_iter().zip(captured_angular).collect();
        if !state.film_force.is_empty() {
            self.bodies.contact.film_force = film_force;
        }
        if !film_torque.is_empty() {
            self.bodies.contact.film_torque = film_torque;
        }
        self.iterations = state.iterations;
        self.seconds = state.seconds;
        Ok(())
    }
}
