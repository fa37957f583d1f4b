//! What the fluid does around a body over a step, for the lubrication film's step
//! ([`super::lubrication`]) in a coupling that resolves the fluid: the film is stiff, and its
//! step must know what the body's approach would be at the step's end without it, and how hard
//! the fluid resists a change of it.
//!
//! Alone, the film's step takes the body's inertia `m` and its speed at the step's start `u`. In
//! a fluid at small Stokes numbers the body moves at the speed the forces balance, not the one
//! its momentum carries: with a film whose resistance `λ` exceeds `m/Δt`, a step that caps the
//! film's impulse at `m u` keeps the body about `(m + D Δt)/m` times too fast (the sphere
//! approaching a wall of docs/validation.md: four times, at a hundredth of its radius). So each
//! body gets
//!
//! ```text
//! drift = (m (U − U⁻) − Δt F_film⁻) / (m + D Δt),      resistance = D,
//! ```
//!
//! the velocity that the last step's forces other than the film (weight, fluid, collision law:
//! `m (U − U⁻)/Δt − F_film⁻`, `U⁻` the velocity a step back) add over the next step, and `D` a
//! measure of the fluid's resistance to the body's translation ([`Surroundings::resistance`]).
//! The film's step then starts from the free speed `u + drift·n` with the mass `m + D Δt`. Its
//! tangential part ([`super::shear`]) turns the bodies too, so each also gets the angular
//! velocity the last step's other torques add, `spin = (J + D_r Δt)⁻¹ (J (ω − ω⁻) − Δt T_film⁻)`,
//! with the fluid's resistance to turning `D_r` estimated from `D` ([`turning`]): a light body
//! whose turning the fluid stops within a step then enters the film's step nearly still, as it
//! leaves it, not at the spin it had.
//! Wherever the body settles at the balance `W + F_fluid + F_film = 0` the result does not
//! depend on `D`: the drift is then the film's own impulse back, and the step gives the film
//! force of the balance, `λ` times the speed. `D` sets how fast the steps reach it: the error of
//! the last film force shrinks each step by about `(D_true − D)/D_true`, and a `D` above twice
//! the fluid's `D_true` would make it grow. Stokes's drag ([`Surroundings::stokes`]) is a lower
//! bound, but near a wall `D_true` is several times it, and the body, always catching up with
//! a balance that moves as the gap closes, lagged behind it (a toy fluid of three times Stokes's
//! drag: 47 % too fast, `tests/lubrication.rs`). So `D` is what the fluid showed at the last step
//! along the body's velocity, `−F_fluid·U/|U|²`, which at small Stokes numbers is `D_true`
//! itself, held between Stokes's and eight times it (an added mass's deceleration shows as
//! resistance too, and a body nearly at rest shows any). Cost: `O(1)` a body and a step.

use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::math::Vector;
use nalgebra::SMatrix;
use std::f64::consts::PI;

/// What the fluid around a body does over a film's step (the module's formulas).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surroundings<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    /// The velocity the body gains by the step's end from everything but the film.
    pub drift: Vector<D>,
    /// The angular velocity it gains likewise (`spin` of the module's formulas).
    pub spin: Angular<D>,
    /// `D`, the fluid's resistance to the body's translation (force over speed, ≥ 0;
    /// [`Self::resistance`]).
    pub resistance: f64,
}

impl<const D: usize> Surroundings<D>
where
    Dim<D>: Kinematics<D>,
{
    /// No fluid: nothing gained, nothing resisting (a dry contact).
    pub fn dry() -> Self {
        Surroundings {
            drift: Vector::<D>::zeros(),
            spin: <Dim<D> as Kinematics<D>>::zero(),
            resistance: 0.0,
        }
    }

    /// Body `b`'s surroundings over a step `dt`, from its velocity and angular velocity a step
    /// back `before`, the film's force and torque `film` on it over that step and the fluid's
    /// resistance `resistance`.
    pub fn after(
        b: &RigidBody<D>,
        before: &(Vector<D>, Angular<D>),
        film: &(Vector<D>, Angular<D>),
        resistance: f64,
        dt: f64,
    ) -> Self {
        let gained = (b.velocity - before.0) * b.mass - film.0 * dt;
        let second = world_second(b);
        let turned = <Dim<D> as Kinematics<D>>::inertia_times(&second, &(b.angular_velocity - before.1)) * b.density
            - film.1 * dt;
        let turning = turning(b, resistance) * dt;
        Surroundings {
            drift: gained / (b.mass + resistance * dt),
            spin: <Dim<D> as Kinematics<D>>::inertia_solve(&loaded(b, turning), &turned),
            resistance,
        }
    }

    /// The fluid's resistance the last step showed: `−F·U/|U|²` for the fluid's force `F` on a
    /// body moving at `U`, between `floor` (Stokes's, [`Self::stokes`]) and eight times it.
    pub fn resistance(force: &Vector<D>, velocity: &Vector<D>, floor: f64) -> f64 {
        let shown = -force.dot(velocity) / velocity.norm_squared();
        if shown.is_finite() {
            shown.clamp(floor, 8.0 * floor)
        } else {
            floor
        }
    }

    /// A lower bound of the resistance of a fluid of viscosity `viscosity` to a body of measure
    /// `volume` in a domain of size `extent`: Stokes's `6 π μ a` in 3D (`a` the radius of the
    /// sphere of the body's volume, the least drag of any shape of that volume), a cylinder's
    /// `4 π μ / ln(L/a)` per unit length in 2D (the logarithm at least 1).
    pub fn stokes(viscosity: f64, volume: f64, extent: f64) -> f64 {
        if D == 3 {
            6.0 * PI * viscosity * (0.75 * volume / PI).cbrt()
        } else {
            let a = (volume / PI).sqrt();
            4.0 * PI * viscosity / (extent / a).ln().max(1.0)
        }
    }
}

/// `D_r`, the fluid's resistance to the body's turning, estimated from its resistance to
/// translation `D` as a sphere's or a cylinder's of the body's volume, radius `r`:
/// `D_r = (4/3) r² D` in 3D (`8πμr³` against `6πμr`), `r² D` in 2D (`4πμr²` against `4πμ` up to
/// the logarithm).
pub(super) fn turning<const D: usize>(b: &RigidBody<D>, resistance: f64) -> f64
where
    Dim<D>: Kinematics<D>,
{
    let volume = b.geometry.moments.measure;
    let r2 = if D == 3 {
        (0.75 * volume / PI).cbrt().powi(2) * 4.0 / 3.0
    } else {
        volume / PI
    };
    r2 * resistance
}

/// The second moment `S` of body `b` in the world frame, `R S Rᵀ` (unit density).
fn world_second<const D: usize>(b: &RigidBody<D>) -> SMatrix<f64, D, D>
where
    Dim<D>: Kinematics<D>,
{
    let rot = b.matrix();
    rot * b.geometry.moments.second * rot.transpose()
}

/// The second moment whose inertia is body `b`'s plus `extra 𝟙` (`ρ S + (extra / 2) 𝟙`, `S` in
/// the world frame): [`Kinematics::inertia_solve`] on it solves `(J + extra 𝟙) w = t`.
pub(super) fn loaded<const D: usize>(b: &RigidBody<D>, extra: f64) -> SMatrix<f64, D, D>
where
    Dim<D>: Kinematics<D>,
{
    world_second(b) * b.density + SMatrix::<f64, D, D>::identity() * (0.5 * extra)
}
