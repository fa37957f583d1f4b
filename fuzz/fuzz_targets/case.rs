//! The case parser and the building of a case's bodies and walls (without running it) on arbitrary
//! text, seeded with the committed cases: every input must give a world or an error naming the key,
//! never a panic or an abort. A case that asks for more memory than the fuzzer's limit must be
//! refused by the memory estimate before it allocates.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use tumble::case::Case;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(case) = Case::parse(Path::new("cases/fuzz.toml"), text) else { return };
    match case.file.dimension {
        2 => drop(case.build::<2>()),
        3 => drop(case.build::<3>()),
        _ => {}
    }
});
