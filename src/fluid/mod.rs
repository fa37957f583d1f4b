//! Incompressible flow by finite elements on the fixed simplicial mesh: Taylor–Hood elements (P2
//! velocity, P1 pressure, inf-sup stable on triangles and tetrahedra), written once for 2D and 3D.
//!
//! The spaces ([`space`]), simplex quadrature ([`quadrature`]), the steady Stokes and
//! Navier–Stokes solver ([`steady`]), the time stepper ([`unsteady`]: pressure correction, or the
//! monolithic step whose saddle-point system is in [`monolithic`]; convection extrapolated or
//! along the characteristics, [`characteristics`]), drag and lift by the volume formula
//! ([`forces`]) and derived output fields ([`post`]); all verified in `tests/fluid.rs`
//! (manufactured solutions, Poiseuille flow, Schäfer–Turek 2D-1). The factorisations and Krylov
//! solves come from [`crate::linalg`]. The module knows nothing of bodies or contact, nor of case
//! files (`case` builds flows from them).

pub mod assembly;
pub mod boundary;
pub mod characteristics;
pub mod error;
pub mod field;
pub mod forces;
pub mod monolithic;
pub mod newton;
pub mod post;
pub mod quadrature;
pub mod response;
pub mod space;
pub mod steady;
pub mod units;
pub mod unsteady;

pub use boundary::{BoundaryConditions, VelocityData, VelocityDofs};
pub use error::FluidError;
pub use field::FlowField;
pub use forces::{boundary_force, BoundaryForce};
pub use quadrature::Quadrature;
pub use response::Response;
pub use space::P2Space;
pub use steady::{solve_steady, SteadyProblem};
pub use units::Fluid;
pub use unsteady::{Carried, Convection, Scheme, Solvers, StepSeconds, Unsteady, UnsteadyState};
