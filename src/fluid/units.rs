//! The fluid's constants in the user's units and the solvers': a [`Fluid`] has a density `ρ` and
//! a dynamic viscosity `μ`, as a case gives them; the solvers of this module work with the
//! kinematic viscosity
//!
//! ```text
//! ν = μ/ρ
//! ```
//!
//! and the kinematic pressure `p/ρ` (the momentum equation divided by `ρ`), so that the density
//! enters a flow only through its conditions and its output. Converting is a division.

/// A Newtonian fluid: its density and its dynamic viscosity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fluid {
    /// The density `ρ`.
    pub density: f64,
    /// The dynamic viscosity `μ`.
    pub viscosity: f64,
}

impl Fluid {
    /// `ν = μ/ρ`, the viscosity the solvers take.
    pub fn kinematic_viscosity(&self) -> f64 {
        self.viscosity / self.density
    }
}
