//! What a run of bodies in a fluid is given: the fluid density, the body sub-steps, how the fluid
//! sees a body's boundary ([`BodyBoundary`]) and the constraint's tolerance; and the sub-steps
//! that resolve the contact springs, `n = ⌈Δt / (0.2 Δt_stable)⌉` ([`substeps_for`]).

/// The parameters of bodies in a fluid ([`Immersed::new`](super::Immersed::new)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImmersedOptions {
    /// `ρ_f`.
    pub fluid_density: f64,
    /// A uniform body force on the fluid that carries the bodies' buoyant weight (the mean
    /// pressure gradient of a suspension settling in a domain periodic along gravity, see
    /// `sim::immersed::mixture`); default false.
    pub balance: bool,
    /// Body sub-steps per fluid step; `0` chooses them from the contact stiffness
    /// ([`Simulation::stable_time_step`](crate::sim::Simulation::stable_time_step)).
    pub substeps: usize,
    /// Where the bodies hold the fluid ([`BodyBoundary`]).
    pub boundary: BodyBoundary,
    /// Relative tolerance of the multipliers' iterations: the root mean square of the
    /// rigidity defect over the constrained dofs, relative to the largest velocity (a mean, so
    /// that the goal does not tighten with the number of bodies).
    pub tolerance: f64,
}

impl ImmersedOptions {
    /// Fluid density `rho_f`, sub-steps chosen from the contact stiffness, tolerance 1e-5 (the
    /// results of `tests/immersed.rs` agree with those at 1e-8 to four digits or better).
    pub fn new(fluid_density: f64) -> Self {
        ImmersedOptions {
            fluid_density,
            boundary: BodyBoundary::Nodes,
            substeps: 0,
            tolerance: 1e-5,
            balance: false,
        }
    }
}

/// How the fluid sees a body's boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BodyBoundary {
    /// The velocity dofs inside the body move with it (a staircase of dofs): robust at any
    /// Reynolds number, first order in `h` (the body the fluid sees is smaller by a fraction of
    /// the dof spacing, so it settles too fast).
    #[default]
    Nodes,
    /// The dofs within a cell of the surface are ghosts that hold the rigid motion at the
    /// surface point below them, by quadratic extrapolation along the normal from two image
    /// points in the fluid (`Ghost`); the deeper ones move with the body. The pressure at the
    /// ghost vertices is extrapolated from the fluid too, and held at the deeper ones (without it
    /// the pressure inside the body grew step after step), and the continuity equation is
    /// released at the body's vertices ([`crate::fluid::Response::release`]: with it the steady
    /// speed depended on `Δt`). In Stokes flow far closer than [`Self::Nodes`] on the same mesh;
    /// where the mesh does not resolve the boundary layer the extrapolation from beyond it
    /// under-estimates the drag.
    Surface,
}

/// The body sub-steps per fluid step of length `dt` that keep each within a fifth of the contact's
/// `stable` time step ([`Simulation::stable_time_step`](crate::sim::Simulation::stable_time_step));
/// 1 without contact springs.
pub fn substeps_for(dt: f64, stable: f64) -> usize {
    if stable.is_finite() {
        ((dt / (0.2 * stable)).ceil() as usize).max(1)
    } else {
        1
    }
}
