//! The pressure correction's part of a step ([`Unsteady::set_pressure_passes`]): passes of the
//! velocity solve under the predicted pressure, the constraint ([`Pass`]) and the pressure
//! update `p += φ − ν π(∇·ũ)` at the step's pose, the passes' pressures combined by Anderson's
//! mixing ([`super::mixing`]), then in the projected form the projection of the last velocity.
//! Cost a pass: one velocity solve, the constraint's, one Poisson and one pressure-mass solve;
//! the projection `D` velocity-mass solves once.

use super::{Constraint, Unsteady};
use crate::fluid::{FluidError, Response};
use crate::math::Vector;
use crate::mesh::SimplexMesh;
use std::time::Instant;

/// What a pass of a constrained step asks of the constraint ([`Unsteady::set_pressure_passes`]).
pub enum Pass<'a, 'r, const D: usize> {
    /// Make the pass's new velocity satisfy the constraint.
    Velocity {
        /// The pass's velocity, to be constrained in place.
        velocity: &'a mut [Vector<D>],
        /// Which dofs carry a velocity condition.
        prescribed: &'a [bool],
        /// The velocity operator's responses to loads.
        response: &'a mut Response<'r, D>,
        /// Whether this is the step's last pass (a constraint that moves bodies moves them then
        /// only).
        last: bool,
    },
    /// Between two passes: the constraint sets what it holds itself in the pressure as the
    /// first corrected it (the pressure inside bodies), and may add to the next velocity solve's
    /// right-hand side the loads the first found (its warm start), before the next velocity
    /// solve.
    Between {
        /// The pressure, as the pass corrected it.
        pressure: &'a mut [f64],
        /// The velocity step's right-hand side without the pressure's gradient, component-major
        /// (`d * dofs + k`).
        load: &'a mut [f64],
    },
}

impl<const D: usize> Unsteady<D> {
    /// The passes and the projection of a step at time `t` whose right-hand side without the
    /// pressure's gradient is in the work's `load`; `start` is when the solves began (their
    /// seconds).
    pub(super) fn correct(
        &mut self,
        mesh: &SimplexMesh<D>,
        t: f64,
        constrain: Option<&mut Constraint<'_, D>>,
        start: Instant,
    ) -> Result<(), FluidError> {
        let (n2, n1, dt) = (self.space.len(), self.space.vertices, self.dt);
        let w = &mut self.work;
        // The pressure correction's predicted pressure `p̂ = p^k + (4φ^k − φ^{k−1})/3`, or `p^k`
        // in the projected form, whose history is already corrected; a later pass takes the
        // pressure the last one corrected.
        let correction = if self.projection.is_some() { 0.0 } else { 1.0 };
        for (k, p) in w.p_hat.iter_mut().enumerate() {
            *p = self.flow.pressure[k] + correction * (4.0 * self.phi[k] - self.phi_previous[k]) / 3.0;
        }
        let mut constrain = constrain;
        let passes = self.pressure_passes.max(1);
        if passes > 1 {
            w.mixing.reset(n1, passes);
        }
        for pass in 0..passes {
            let last = pass + 1 == passes;
            if pass > 0 {
                w.p_hat.copy_from_slice(&self.flow.pressure);
            }
            self.divergence.mul_transpose(&w.p_hat, &mut w.gradient);
            for d in 0..D {
                for k in 0..n2 {
                    w.velocity[(k, d)] = w.load[d * n2 + k] - w.gradient[d * n2 + k];
                }
            }
            self.boundary.prescribe(mesh, &self.space, &self.fixed, t, |k, value| {
                for d in 0..D {
                    w.velocity[(k, d)] = value[d];
                }
            })?;
            self.velocity_solver.solve_in_place(w.velocity.as_mut());
            if let Some(k) = (0..n2).find(|&k| (0..D).any(|d| !w.velocity[(k, d)].is_finite())) {
                return Err(FluidError::NotFinite(format!(
                    "the velocity is not finite at dof {k} after step {} (t = {}): the time step is too large for the flow (CFL)",
                    self.steps + 1,
                    crate::math::shown(t)
                )));
            }
            if pass == 0 {
                // Shift the history in place: the oldest velocity's storage takes the new one.
                std::mem::swap(&mut self.older, &mut self.previous);
                std::mem::swap(&mut self.previous, &mut self.flow.velocity);
            }
            for (k, u) in self.flow.velocity.iter_mut().enumerate() {
                *u = Vector::<D>::from_fn(|d, _| w.velocity[(k, d)]);
            }
            let mut response = Response::new(
                &self.velocity_matrix,
                &mut self.velocity_solver,
                &mut w.velocity,
                self.fixed.is_fixed(),
                &mut w.released,
            );
            if let Some(constrain) = constrain.as_mut() {
                let pass = Pass::Velocity {
                    velocity: &mut self.flow.velocity,
                    prescribed: self.fixed.is_fixed(),
                    response: &mut response,
                    last,
                };
                constrain(&self.space, pass);
            }
            self.constraint_solves += response.solves();
            for (k, u) in self.flow.velocity.iter().enumerate() {
                for d in 0..D {
                    w.flat[d * n2 + k] = u[d];
                }
            }
            self.divergence.mul(&w.flat, &mut w.divergence);
            for &k in &w.released {
                if let Some(d) = w.divergence.get_mut(k as usize) {
                    *d = 0.0;
                }
            }
            let scale = 1.5 / dt;
            for k in 0..n1 {
                w.phi[(k, 0)] = if self.phi_fixed[k] {
                    0.0
                } else {
                    scale * w.divergence[k]
                };
                // The L2 projection of ∇·ũ onto P1: M1 π = (∇·ũ, q) = −B ũ.
                w.projected[(k, 0)] = -w.divergence[k];
            }
            self.poisson_solver.solve_in_place(w.phi.as_mut());
            self.mass1_solver.solve_in_place(w.projected.as_mut());
            if let Some(k) = (0..n1).find(|&k| !(w.phi[(k, 0)].is_finite() && w.projected[(k, 0)].is_finite())) {
                return Err(FluidError::NotFinite(format!(
                    "the pressure is not finite at node {k} after step {} (t = {})",
                    self.steps + 1,
                    crate::math::shown(t)
                )));
            }
            if pass == 0 {
                std::mem::swap(&mut self.phi, &mut self.phi_previous);
            }
            for k in 0..n1 {
                self.phi[k] = w.phi[(k, 0)];
                self.flow.pressure[k] += w.phi[(k, 0)] - self.nu * w.projected[(k, 0)];
            }
            if !last {
                if let Some(constrain) = constrain.as_mut() {
                    let between = Pass::Between {
                        pressure: &mut self.flow.pressure,
                        load: &mut w.load,
                    };
                    constrain(&self.space, between);
                }
                w.mixing.mix(&w.p_hat, &mut self.flow.pressure);
            }
        }
        self.seconds.solve += start.elapsed().as_secs_f64();
        if let Some(mass) = &mut self.projection {
            // `u = ũ − (2Δt/3) M⁻¹ Bᵀφ`, the dofs with a condition kept.
            let start = Instant::now();
            self.divergence.mul_transpose(&self.phi, &mut w.gradient);
            let fixed = self.fixed.is_fixed();
            for d in 0..D {
                for (k, &held) in fixed.iter().enumerate() {
                    w.velocity[(k, d)] = if held { 0.0 } else { w.gradient[d * n2 + k] };
                }
            }
            mass.solve_in_place(w.velocity.as_mut());
            let scale = 2.0 * dt / 3.0;
            for (k, u) in self.flow.velocity.iter_mut().enumerate() {
                for d in 0..D {
                    u[d] -= scale * w.velocity[(k, d)];
                }
            }
            self.seconds.solve += start.elapsed().as_secs_f64();
        }
        Ok(())
    }
}
