//! The C ABI of `tumble`: meshes, distance fields and bodies in contact from C, C++, Fortran (`iso_c_binding`) or
//! any language with a C foreign-function interface. The header is `include/tumble.h`, generated
//! from this crate by cbindgen (`capi/cbindgen.toml`; `tests/header.rs` checks that it matches).
//!
//! The conventions, the same for every call:
//! - objects are opaque handles (`TumbleMesh *`, `TumbleDistance *`, `TumbleWorld *`,
//!   `TumbleRanks *`, `TumbleHost *`) made by a `*_new` or
//!   `*_read_*` call and released by the matching `*_free`; a handle that was freed, or of the
//!   wrong kind, is detected and refused (`TUMBLE_STATUS_INVALID_HANDLE`) as long as its address
//!   was not reused by a newer handle;
//! - arrays are flat and C-ordered with explicit counts: coordinates `double[n × dim]`,
//!   connectivity `uint32_t`, tags `int32_t`; outputs go into buffers the caller owns (a capacity
//!   in, a count out);
//! - every call returns a [`TumbleStatus`]; on failure [`tumble_last_error`] (per thread) and the
//!   handle's own `*_error` hold a message that names the argument, node, cell or file at fault;
//!   no panic crosses the boundary (a bug inside is `TUMBLE_STATUS_PANIC`);
//! - a handle may be used from any thread, but not from two at once.

#![warn(missing_docs)]

mod distance;
mod handle;
mod host;
mod mesh;
mod ranks;
mod status;
mod world;

// Every public item of these modules is part of the ABI.
pub use distance::*;
pub use host::*;
pub use mesh::*;
pub use ranks::*;
pub use status::{tumble_last_error, TumbleStatus};
pub use world::*;

/// The version of this ABI: it grows when a call or a struct changes incompatibly. A program
/// built against `include/tumble.h` checks `tumble_abi_version() == TUMBLE_ABI_VERSION`.
pub const TUMBLE_ABI_VERSION: u32 = 2;

/// The ABI version of the library loaded, [`TUMBLE_ABI_VERSION`] when it was built.
#[no_mangle]
pub extern "C" fn tumble_abi_version() -> u32 {
    TUMBLE_ABI_VERSION
}
