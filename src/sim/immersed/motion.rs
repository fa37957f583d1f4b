//! Newton–Euler for bodies in the fluid, step 2 of the [outline](super). The fluid in a body
//! moves with its fitted rigid motion `(U_f, ω_f)` ([`super::fit`]), so the hydrodynamic force
//! and torque are
//!
//! ```text
//! F_h = ρ_f |B| (U_f − U)/Δt − W − F_c⁰ − ρ_f P/Δt,
//! T_h = ρ_f J_w (ω_f − ω)/Δt − T_c⁰ − ρ_f L/Δt,
//! ```
//!
//! `W = (ρ_s − ρ_f)|B| g` the buoyancy-corrected weight, `J_w` the unit-density inertia in the
//! lab, `(F_c⁰, T_c⁰)` the contact of the step's start that the solve was loaded with (with
//! several sub-steps, only the lubrication film's: [`crate::contact::lubrication`]) and `(P, L)`
//! the momentum over `ρ_f` that the last projection gave the dofs the body captured. Then
//! `ρ_s |B| dU/dt = F_h + W + F_c`, `I dω/dt = T_h + T_c − ω × I ω` by symplectic Euler over `n`
//! sub-steps of `δ = Δt/n`, `F_h` and `T_h` held and the contact `(F_c, T_c)` recomputed at each
//! (the law's, and the film of a pair that reaches the contact within the step, an impact; the
//! other films' held at the loaded one): `U ← U + δ (F_h + W + F_c)/m`,
//! `ω ← ω + δ ω̇`, `G ← G + δ U`, `R ← exp(δ ω) R`. Cost: `O(bodies)` a sub-step, and the contact
//! forces.

use super::fit::Fit;
use crate::body::{Angular, Dim, Kinematics};
use crate::math::Vector;
use crate::sim::{SimError, Simulation};
use rayon::prelude::*;

/// Step 2: the hydrodynamic forces from the fitted motions, then Newton–Euler over `substeps`.
/// The fitted motions answer the weight and, with one sub-step, the contact force of the step's
/// start (`loaded`, in the solve's right-hand side; with several sub-steps the film's alone), so
/// both are taken out of the hydrodynamic force: the contact then moves the body with the
/// fluid's added mass and drag, implicitly.
#[allow(clippy::too_many_arguments)]
pub(super) fn advance<const D: usize>(
    sim: &mut Simulation<D>,
    fits: &[Fit<D>],
    captured: &[(Vector<D>, Angular<D>)],
    loaded: &[(Vector<D>, Angular<D>)],
    hydro_force: &mut [Vector<D>],
    hydro_torque: &mut [Angular<D>],
    rho_f: f64,
    dt: f64,
    substeps: usize,
    time: f64,
) -> Result<(), SimError>
where
    Dim<D>: Kinematics<D>,
{
    for ((((b, fit), (momentum, angular)), (fc, tc)), (f, t)) in sim
        .bodies
        .iter()
        .zip(fits)
        .zip(captured)
        .zip(loaded)
        .zip(hydro_force.iter_mut().zip(hydro_torque.iter_mut()))
    {
        let volume = b.geometry.moments.measure;
        let weight = sim.gravity * ((b.density - rho_f) * volume);
        *f = (fit.at(&b.position) - b.velocity) * (rho_f * volume / dt) - weight - fc - momentum * (rho_f / dt);
        let m = b.matrix();
        let second = m * b.geometry.moments.second * m.transpose();
        *t = <Dim<D> as Kinematics<D>>::inertia_times(&second, &(fit.spin - b.angular_velocity)) * (rho_f / dt)
            - *tc
            - *angular * (rho_f / dt);
    }
    let delta = dt / substeps as f64;
    let g = sim.gravity;
    for _ in 0..substeps {
        // With one sub-step its contact is the step's start's, computed and loaded already.
        // With several, the law's is recomputed, with the films deferred to the sub-steps, and
        // the other films' stays the loaded one.
        if substeps > 1 {
            sim.law_forces(delta)?;
            for (k, (f, t)) in sim.force.iter_mut().zip(sim.torque.iter_mut()).enumerate() {
                *f += loaded[k].0;
                *t += loaded[k].1;
            }
        }
        sim.bodies
            .par_iter_mut()
            .zip(hydro_force.par_iter().zip(hydro_torque.par_iter()))
            .zip(sim.force.par_iter().zip(sim.torque.par_iter()))
            .for_each(|((b, (fh, th)), (fc, tc))| {
                let excess = (b.density - rho_f) * b.geometry.moments.measure;
                b.velocity += (fh + g * excess + fc) * (delta / b.mass);
                let torque = *th + *tc;
                let alpha = <Dim<D> as Kinematics<D>>::angular_acceleration(
                    &b.inertia,
                    &b.rotation,
                    &b.angular_velocity,
                    &torque,
                );
                b.angular_velocity += alpha * delta;
                b.position += b.velocity * delta;
                b.rotation = <Dim<D> as Kinematics<D>>::advance(&b.rotation, &b.angular_velocity, delta);
            });
    }
    if substeps > 1 {
        sim.contact.end_substeps(substeps);
    }
    sim.wrap();
    sim.time = time;
    sim.steps += 1;
    sim.check_finite()
}
