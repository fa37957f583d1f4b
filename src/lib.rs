//! `tumble`: rigid bodies moving in a viscous fluid and repelling each other and the walls through
//! narrow-band distance fields computed on unstructured simplicial meshes.
//!
//! The crate is organised in layers (see `design.md` in the shared notes): [`mesh`] and [`shape`] at
//! the bottom (simplicial meshes in 2D and 3D, Gmsh input, generators, point location; analytic
//! shapes), [`fmm`] on the mesh (narrow-band distance fields), and [`io`] for the files users open in
//! ParaView. Every algorithm is written once for a const generic dimension `D` (2 or 3).

pub mod body;
pub mod broad;
pub mod case;
pub mod contact;
pub mod expr;
pub mod fluid;
pub mod fmm;
pub mod io;
pub mod math;
pub mod mesh;
pub mod shape;
pub mod sim;

pub use mesh::{MeshError, SimplexMesh};
