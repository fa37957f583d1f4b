//! What can go wrong in a fluid solve: one error type, [`FluidError`], for the steady solver, the
//! time stepper and the boundary conditions, each variant with a message that names what failed
//! (the marker, the step, the field, the factorisation). Building one costs nothing but its
//! message.

use crate::linalg::FactorError;
use crate::math::{Point, Vector};
use crate::mesh::{MeshError, SimplexMesh};

/// What can go wrong in a fluid solve.
#[derive(Debug, thiserror::Error)]
pub enum FluidError {
    /// A marker the mesh does not have.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// A boundary without a condition, or a condition on a marker no facet carries.
    #[error("{0}")]
    Boundary(String),
    /// The solution stopped being finite (named: the step, the field and where).
    #[error("{0}")]
    NotFinite(String),
    /// Newton's method did not converge (with what it reached).
    #[error("{0}")]
    NotConverged(String),
    /// The linear solver failed (a singular system: a boundary without conditions, say).
    #[error("the linear solver failed: {0}")]
    Solve(String),
    /// A factorisation would not fit the memory budget: the mesh is too fine for the machine.
    #[error("{0}")]
    Memory(crate::memory::MemoryError),
    /// A prescribed boundary velocity that is not finite (a formula dividing by zero, say).
    #[error("the velocity prescribed on '{marker}' is {value:?} at {at:?}, t = {}: it must be finite", crate::math::shown(*time))]
    Condition {
        /// The facet marker's name (or number).
        marker: String,
        /// Where.
        at: Vec<f64>,
        /// When.
        time: f64,
        /// The value.
        value: Vec<f64>,
    },
    /// A saved flow state ([`super::UnsteadyState`]) that does not fit the stepper.
    #[error("the saved flow does not fit this case: {0}")]
    State(String),
}

impl FluidError {
    /// The error for velocity condition `marker` at `x`, time `time`.
    pub(crate) fn condition<const D: usize>(
        mesh: &SimplexMesh<D>,
        marker: i32,
        x: &Point<D>,
        time: f64,
        value: &Vector<D>,
    ) -> Self {
        FluidError::Condition {
            marker: mesh.facet_marker_label(marker),
            at: x.as_slice().to_vec(),
            time,
            value: value.as_slice().to_vec(),
        }
    }
}

impl From<FactorError> for FluidError {
    fn from(e: FactorError) -> Self {
        match e {
            FactorError::Memory(m) => FluidError::Memory(m),
            FactorError::Failed(message) => FluidError::Solve(message),
        }
    }
}
