//! The library with the dimension known at run time, for code that cannot be generic over it:
//! the C ABI (`capi/`) and the Python module (`python/`) wrap these types, and a Rust host that
//! reads its dimension from a file can use them too.
//!
//! [`Mesh`] (2D or 3D), [`Distance`] (a narrow-band distance field on it), [`World`] (dry
//! bodies, walls, gravity and contact) and [`HostContact`] (contact on a host code's own mesh)
//! hold the generic types of [`crate::mesh`],
//! [`crate::fmm`] and [`crate::sim`] for `D = 2` or `3`; their arguments are flat slices
//! (coordinates `x0, y0, (z0,) x1, …`) whose lengths are checked; every failure is one [`Error`]
//! with an [`ErrorKind`] that says whose fault it is.
//!
//! ```
//! use tumble::dynamic::{Distance, DistanceOptions, Mesh};
//! // The unit square in 4 × 4 squares; the distance to its bottom side (tag 3, `ymin`) is y.
//! let mesh = Mesh::new_box(&[0.0, 0.0], &[1.0, 1.0], &[4, 4])?;
//! let options = DistanceOptions { signed: false, ..DistanceOptions::default() };
//! let field = Distance::new(&mesh, &[mesh.facet_tag("ymin")?], &options)?;
//! let mut value = [0.0];
//! field.at(&[0.3, 0.6], &mut value)?;
//! assert!((value[0] - 0.6).abs() < 1e-12);
//! # Ok::<(), tumble::dynamic::Error>(())
//! ```

/// Runs `$body` with `$x` the value inside `$any`, of an enum `$kind` (in scope) whose variants
/// `D2` and `D3` hold the 2D and 3D types, and `$d` the dimension as a constant.
macro_rules! by_dim {
    ($kind:ident, $any:expr, $x:ident, $d:ident => $body:expr) => {
        match $any {
            $kind::D2($x) => {
                #[allow(dead_code)]
                const $d: usize = 2;
                $body
            }
            $kind::D3($x) => {
                #[allow(dead_code)]
                const $d: usize = 3;
                $body
            }
        }
    };
}

mod distance;
mod error;
mod host;
mod mesh;
mod motion;
mod ranks;
mod setup;
mod world;

pub use distance::{Distance, DistanceOptions};
pub use error::{Error, ErrorKind};
pub use host::{Contacts, HostContact, HostOptions};
pub use mesh::Mesh;
pub use ranks::RankWorld;
pub use world::{rotation_sizes, BodyState, Primitive, World, WorldOptions};
