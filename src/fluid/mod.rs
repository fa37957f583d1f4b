//! Incompressible flow by finite elements on the fixed simplicial mesh: Taylor–Hood elements (P2
//! velocity, P1 pressure, inf-sup stable on triangles and tetrahedra), written once for 2D and 3D.
//!
//! Built so far: the spaces ([`space`]), simplex quadrature ([`quadrature`]), the steady Stokes and
//! Navier–Stokes solver ([`steady`]) verified by a manufactured solution in 2D and 3D, and drag and
//! lift by the volume formula ([`forces`]) checked on the Schäfer–Turek 2D-1 benchmark
//! (`tests/fluid.rs`). The module knows nothing of bodies or contact.

pub mod forces;
pub mod quadrature;
pub mod space;
pub mod sparse;
pub mod steady;
pub mod unsteady;

pub use forces::boundary_force;
pub use quadrature::Quadrature;
pub use space::P2Space;
pub use steady::{solve_steady, BoundaryConditions, FlowField, FluidError, SteadyProblem};
pub use unsteady::{StepSeconds, Unsteady};
