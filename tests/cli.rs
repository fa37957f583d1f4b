//! The `tumble` binary as a user runs it.

use std::process::Command;

fn tumble(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tumble")).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn mesh_info_prints_counts_and_markers() {
    let (ok, out, _) = tumble(&["mesh", "info", "meshes/disk_r3.bin.msh"]);
    assert!(ok);
    for expected in [
        "2D mesh",
        "nodes           258",
        "cells           466 triangles",
        "r1",
        "16 segments",
        "outer",
        "48 segments",
        "0 of them in no facet marker",
    ] {
        assert!(out.contains(expected), "'{expected}' missing from:\n{out}");
    }
    let (ok, out, _) = tumble(&["mesh", "info", "meshes/ball_r3.v22.msh"]);
    assert!(
        ok && out.contains("1416 tetrahedra") && out.contains("462 triangles"),
        "{out}"
    );
}

#[test]
fn mesh_convert_writes_a_readable_vtu() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("ball.vtu");
    let (ok, out, err) = tumble(&["mesh", "convert", "meshes/ball_r3.msh", out_path.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("366 nodes, 1416 cells"), "{out}");
    let vtk = vtkio::Vtk::import(&out_path).unwrap();
    let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("not an unstructured grid")
    };
    let piece = pieces.into_iter().next().unwrap().into_loaded_piece_data(None).unwrap();
    assert_eq!(piece.num_points(), 366);
    assert_eq!(piece.cells.types.len(), 1416);
    let names: Vec<String> = piece
        .data
        .cell
        .iter()
        .map(|a| match a {
            vtkio::model::Attribute::DataArray(d) => d.name.clone(),
            _ => String::new(),
        })
        .collect();
    assert_eq!(names, ["marker", "quality"]);
}

#[test]
fn errors_are_messages_not_panics() {
    let (ok, _, err) = tumble(&["mesh", "info", "meshes/none.msh"]);
    assert!(!ok && err.starts_with("error: meshes/none.msh: "), "{err}");
    let (ok, _, err) = tumble(&["mesh", "info", "meshes/disk_r3.geo"]);
    assert!(
        !ok && err.contains("meshes/disk_r3.geo, line 1: expected a section header"),
        "{err}"
    );
    let (ok, _, err) = tumble(&["mesh", "convert", "meshes/disk_r3.msh", "out.vtk"]);
    assert!(!ok && err.contains("the output must be a .vtu file"), "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn every_help_has_an_example() {
    for args in [
        vec!["--help"],
        vec!["mesh", "--help"],
        vec!["mesh", "info", "--help"],
        vec!["mesh", "convert", "--help"],
    ] {
        let (ok, out, _) = tumble(&args);
        assert!(
            ok && (out.contains("example") || out.contains("Example")),
            "{args:?}:\n{out}"
        );
    }
}
