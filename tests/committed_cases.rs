//! Every case file the project ships (`cases/`, `cases/spec_4_2/` and `scripts/`) still reads and builds: its keys are
//! the schema's, its mesh exists with the markers it names, its expressions parse. Running them is
//! for `tumble run` and `tumble check`; this catches a case left behind by a change to the schema.

use std::path::{Path, PathBuf};
use tumble::body::{Dim, Kinematics};
use tumble::case::Case;

/// The `.toml` files directly under `dir`, sorted.
fn case_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

/// Builds what `tumble run` builds before its first step: the fluid for a fluid case (with or
/// without bodies), the bodies and walls for a dry one.
fn build<const D: usize>(case: &Case) -> Result<(), String>
where
    Dim<D>: Kinematics<D>,
{
    if case.file.fluid.is_some() {
        case.build_flow::<D>().map(drop).map_err(|e| e.to_string())
    } else {
        case.build::<D>().map(drop).map_err(|e| e.to_string())
    }
}

#[test]
fn every_committed_case_builds() {
    let files: Vec<_> = ["cases", "cases/spec_4_2", "scripts"]
        .into_iter()
        .flat_map(case_files)
        .collect();
    assert!(files.len() >= 11, "expected the committed cases, found {files:?}");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let built = Case::load(path)
                .map_err(|e| e.to_string())
                .and_then(|case| match case.file.dimension {
                    2 => build::<2>(&case),
                    3 => build::<3>(&case),
                    d => Err(format!("dimension {d}")),
                });
            built.err().map(|e| format!("{}: {e}", path.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
