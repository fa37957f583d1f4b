//! `tumble`: rigid bodies moving in a viscous fluid and repelling each other and the walls through
//! narrow-band distance fields computed on unstructured simplicial meshes.
//!
//! The crate is organised in layers (`ARCHITECTURE.md` at the repository's root draws them and
//! says where new code goes); each imports only the ones below it:
//! - [`math`], [`memory`] (the budget checked before large allocations), [`expr`], [`linalg`] (sparse storage, factorisations, Krylov methods) and [`io`]
//!   (VTK, PVD and CSV files written whole): no geometry;
//! - [`mesh`] and [`shape`]: simplicial meshes in 2D and 3D (Gmsh input, generators, point
//!   location) and analytic shapes;
//! - [`fmm`]: narrow-band distance fields on a mesh;
//! - [`contact`], [`broad`], [`body`]: the force laws, the broad phase and rigid-body motion;
//! - [`fluid`]: the incompressible Navier–Stokes solver on a fixed mesh;
//! - [`sim`]: bodies in a world without fluid (dry) and bodies immersed in the fluid;
//! - [`case`]: case files, their runs, outputs and checks;
//! - [`dynamic`]: meshes, distance fields and dry worlds whose dimension is known at run time,
//!   with one error type: what the C ABI (`capi/`) and the Python module (`python/`) wrap.
//!
//! Every algorithm is written once for a const generic dimension `D` (2 or 3).

// Every public item is documented (the library is used from C and Python through its docs too).
#![warn(missing_docs)]

pub mod body;
pub mod broad;
pub mod case;
pub mod contact;
pub mod dynamic;
pub mod expr;
pub mod fluid;
pub mod fmm;
pub mod io;
pub mod linalg;
pub mod math;
pub mod memory;
pub mod mesh;
pub mod shape;
pub mod sim;

pub use mesh::{MeshError, SimplexMesh};
