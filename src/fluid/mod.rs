//! Incompressible flow by finite elements on the fixed simplicial mesh: Taylor–Hood elements (P2
//! velocity, P1 pressure, inf-sup stable on triangles and tetrahedra), written once for 2D and 3D.
//!
//! Built so far: the spaces ([`space`]), simplex quadrature ([`quadrature`]) and the steady Stokes
//! solver ([`stokes`]), verified by a manufactured solution in 2D and 3D (`tests/fluid.rs`). The
//! module knows nothing of bodies or contact.

pub mod quadrature;
pub mod space;
pub mod stokes;

pub use quadrature::Quadrature;
pub use space::P2Space;
pub use stokes::{solve_stokes, FlowField, FluidError};
