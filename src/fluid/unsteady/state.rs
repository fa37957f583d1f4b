//! The state of an [`Unsteady`] stepper between two steps, [`UnsteadyState`]: all a time step
//! reads of the past, which a checkpoint saves and a restart restores, so that the steps after a
//! restart are those the run would have taken,
//!
//! ```text
//! ũ^k, ũ^{k−1}, ũ^{k−2}   (the BDF2 history and the stepper's acceleration),
//! p^k, φ^k, φ^{k−1}        (the pressure correction's prediction p̂ = p^k + (4φ^k − φ^{k−1})/3),
//! ```
//!
//! with the time, the steps and the seconds spent; the matrices and factors are rebuilt from the
//! case. Saving and restoring copy the vectors: `3 D n₂ + 3 n₁` numbers.

use super::{StepSeconds, Unsteady};
use crate::fluid::FluidError;
use crate::math::{flatten, unflatten_into};

/// The state of an [`Unsteady`] stepper between two steps, exactly: the velocity and its two
/// predecessors (BDF2), the pressure and its two last increments (the pressure correction's
/// prediction), the time and step counter. What a checkpoint saves; the matrices and factors are
/// rebuilt from the case.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UnsteadyState {
    /// `Δt` (checked on restore: the history belongs to it).
    pub time_step: f64,
    /// The start time and the steps done (the time is `start + steps Δt`).
    pub start: f64,
    /// Steps done.
    pub steps: usize,
    /// The time now.
    pub time: f64,
    /// Velocity solves done for constraints.
    pub constraint_solves: usize,
    /// `u^k`, `u^{k−1}`, `u^{k−2}` at the P2 dofs, components dof after dof.
    pub velocity: Vec<f64>,
    /// `u^{k−1}`.
    pub previous: Vec<f64>,
    /// `u^{k−2}`.
    pub older: Vec<f64>,
    /// `p^k` at the vertices.
    pub pressure: Vec<f64>,
    /// The last two pressure increments `φ^k`, `φ^{k−1}`.
    pub phi: Vec<f64>,
    /// `φ^{k−1}`.
    pub phi_previous: Vec<f64>,
    /// Seconds spent (the setup's are this process's own and not restored).
    pub seconds: StepSeconds,
}

impl<const D: usize> Unsteady<D> {
    /// The state now ([`UnsteadyState`]).
    pub fn state(&self) -> UnsteadyState {
        UnsteadyState {
            time_step: self.dt,
            start: self.start,
            steps: self.steps,
            time: self.time,
            constraint_solves: self.constraint_solves,
            velocity: flatten(&self.flow.velocity),
            previous: flatten(&self.previous),
            older: flatten(&self.older),
            pressure: self.flow.pressure.clone(),
            phi: self.phi.clone(),
            phi_previous: self.phi_previous.clone(),
            seconds: self.seconds,
        }
    }

    /// Continues from `state`, saved by [`Self::state`] from a stepper on the same mesh and
    /// space with the same `Δt`; nothing changes on an error.
    pub fn restore(&mut self, state: &UnsteadyState) -> Result<(), FluidError> {
        if state.time_step.to_bits() != self.dt.to_bits() {
            return Err(FluidError::State(format!(
                "it was computed with Δt = {:e}, the case has {:e} (the BDF2 history belongs to its Δt)",
                state.time_step, self.dt
            )));
        }
        let (n2, n1) = (self.space.len(), self.flow.pressure.len());
        let sizes = [&state.velocity, &state.previous, &state.older].map(|v| v.len());
        let pressures = [&state.pressure, &state.phi, &state.phi_previous].map(|v| v.len());
        if sizes.iter().any(|&n| n != D * n2) || pressures.iter().any(|&n| n != n1) {
            return Err(FluidError::State(format!(
                "it holds {} velocity components and {} pressures, the mesh has {} and {n1}",
                sizes[0],
                pressures[0],
                D * n2
            )));
        }
        unflatten_into(&state.velocity, &mut self.flow.velocity);
        unflatten_into(&state.previous, &mut self.previous);
        unflatten_into(&state.older, &mut self.older);
        self.flow.pressure.copy_from_slice(&state.pressure);
        self.phi.copy_from_slice(&state.phi);
        self.phi_previous.copy_from_slice(&state.phi_previous);
        self.start = state.start;
        self.steps = state.steps;
        self.time = state.time;
        self.constraint_solves = state.constraint_solves;
        self.seconds = StepSeconds {
            setup: self.seconds.setup,
            ..state.seconds
        };
        Ok(())
    }
}
