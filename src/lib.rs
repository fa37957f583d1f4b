//! `tumble`: rigid bodies moving in a viscous fluid and repelling each other and the walls through
//! narrow-band distance fields computed on unstructured simplicial meshes.
//!
//! The crate is organised in layers, each importing only the ones below it: `ARCHITECTURE.md` at
//! the repository's root maps the modules, their layers and where new code goes (the one map:
//! `tests/layers.rs` checks it against the source). From the bottom: [`math`], [`mesh`], [`fmm`]
//! (distance fields), [`body`], [`contact`], [`fluid`], [`sim`] (the time loops), [`case`] (case
//! files and their runs) and [`dynamic`] (what the C ABI and the Python module wrap).
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
