//! The Gmsh reader on binary 4.1 files: a valid binary header followed by arbitrary bytes, seeded
//! with the committed binary meshes' bodies, so that mutations reach the binary sections instead of
//! being refused at the header.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

const HEADER: &[u8] = b"$MeshFormat\n4.1 1 8\n\x01\x00\x00\x00\n$EndMeshFormat\n";

fuzz_target!(|data: &[u8]| {
    let mut file = Vec::with_capacity(HEADER.len() + data.len());
    file.extend_from_slice(HEADER);
    file.extend_from_slice(data);
    let _ = tumble::mesh::gmsh::parse_bytes(&file, Path::new("fuzz.msh"));
});
