//! Incompressible flow by finite elements on the fixed simplicial mesh: Taylor–Hood elements (P2
//! velocity, P1 pressure, inf-sup stable on triangles and tetrahedra), written once for 2D and 3D.
//! The module knows nothing of bodies or contact, nor of case files (`case` builds flows from
//! them); the factorisations and Krylov solves come from [`crate::linalg`].
//!
//! One question per file, its method and cost in the module docs:
//!
//! | module | holds | asked by |
//! |---|---|---|
//! | [`space`] | the P2 and P1 dofs, isoparametric cells on curved boundaries ([`P2Space`]) | everything below |
//! | [`quadrature`] | simplex quadrature rules exact to a degree ([`Quadrature`]) | every integral |
//! | [`field`] | a flow ([`FlowField`]): the velocity and its gradient in a cell, the pressure at a point, L2 errors | solvers, output, tests |
//! | [`units`] | the fluid's density and dynamic viscosity, the kinematic viscosity the solvers take ([`Fluid`]) | case files' runs |
//! | [`boundary`] | the boundary conditions ([`BoundaryConditions`]) and all they turn into: fixed velocity dofs and their values, the pressure's pins, the pressure load, a moving frame's view | the three schemes, [`crate::sim::Following`] |
//! | [`error`] | what can go wrong ([`FluidError`]) | every solve |
//! | [`steady`] | the steady system, assembled in place and solved ([`solve_steady`], [`SteadyProblem`]) | steady runs |
//! | [`newton`] | Newton's method for it: line search, reused factorisations, viscosity continuation | [`solve_steady`] |
//! | [`unsteady`] | the BDF2 time stepper ([`Unsteady`]: pressure correction or the monolithic step, convection extrapolated or along characteristics) and its saved state ([`UnsteadyState`]) | unsteady runs, bodies in a fluid |
//! | [`assembly`] | the step's cell integrals: its constant matrices and its load | [`Unsteady`] |
//! | [`response`] | the step's velocity operator as a constraint inside the step sees it ([`Response`]) | [`crate::sim::Immersed`] |
//! | [`monolithic`] | the monolithic step's saddle-point system ([`monolithic::MonolithicSystem`]) | [`Unsteady`] |
//! | [`characteristics`] | convection along the characteristics (the history at the feet) | [`Unsteady`] |
//! | [`forces`] | drag and lift by the volume formula ([`boundary_force`], [`BoundaryForce`]) | a case's reported forces |
//! | [`post`] | derived fields for output: vertex gradients, vorticity | output |
//!
//! All verified in `tests/fluid.rs` (manufactured solutions, Poiseuille flow, Schäfer–Turek 2D-1).

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
pub use unsteady::{Carried, Convection, Pass, Scheme, Solvers, StepSeconds, Unsteady, UnsteadyState};
