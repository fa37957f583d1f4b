//! The Gmsh reader on arbitrary bytes, seeded with the committed ASCII meshes (4.1 and 2.2): every
//! input must give a mesh or an error, never a panic, a hang or an allocation beyond the input's
//! size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let _ = tumble::mesh::gmsh::parse_bytes(data, Path::new("fuzz.msh"));
});
