//! Incompressible flow by finite elements on the fixed simplicial mesh: Taylor–Hood elements (P2
//! velocity, P1 pressure, inf-sup stable on triangles and tetrahedra), written once for 2D and 3D.
//!
//! The spaces ([`space`]), simplex quadrature ([`quadrature`]), the steady Stokes and
//! Navier–Stokes solver ([`steady`], with [`saddle`] and [`supernodal_lu`] for its saddle-point
//! systems and [`gmres`] to refine their solves), the time stepper ([`unsteady`], its coupled step's
//! system in [`coupled`]), drag and lift
//! by the volume formula ([`forces`]) and derived output fields ([`post`]); all verified in
//! `tests/fluid.rs` (manufactured solutions, Poiseuille flow, Schäfer–Turek 2D-1). The module
//! knows nothing of bodies or contact, nor of case files (`case` builds flows from them).

pub mod characteristics;
pub mod coupled;
pub mod forces;
pub mod gmres;
pub mod post;
pub mod quadrature;
pub mod saddle;
pub mod space;
pub mod sparse;
pub mod spd;
pub mod steady;
pub mod supernodal_lu;
pub mod tree_split;
pub mod unsteady;

pub use forces::{boundary_force, BoundaryForce};
pub use quadrature::Quadrature;
pub use space::P2Space;
pub use steady::{solve_steady, BoundaryConditions, FlowField, FluidError, SteadyProblem};
pub use unsteady::{Carried, Convection, Response, Scheme, StepSeconds, Unsteady};
