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

#[test]
fn distance_writes_the_field_and_reports_json() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("d.vtu");
    // Within the band the value is the distance to the polygonal circle, whose sag is 0.00125, or
    // with --curved to the circle itself (measured 7.7e-7 at most).
    for (curved, tolerance) in [(false, 3e-3), (true, 1e-5)] {
        let mut args = vec![
            "distance",
            "meshes/disk_r3_h0.1.msh",
            "--front",
            "r1",
            "--band",
            "0.5",
            "--closest-point",
            "-o",
            out_path.to_str().unwrap(),
            "--json",
        ];
        if curved {
            args.push("--curved");
        }
        let (ok, out, err) = tumble(&args);
        assert!(ok, "{err}");
        let json: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        for key in ["nodes", "cells", "accepted", "init_seconds", "march_seconds"] {
            assert!(json.get(key).is_some(), "{key} missing in {out}");
        }
        assert_eq!(json["cells"], 6801);
        let accepted = json["accepted"].as_u64().unwrap();
        let vtk = vtkio::Vtk::import(&out_path).unwrap();
        let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
            panic!("not an unstructured grid")
        };
        let piece = pieces.into_iter().next().unwrap().into_loaded_piece_data(None).unwrap();
        let points = piece.points.cast_into::<f64>().unwrap();
        let distance = piece
            .data
            .point
            .iter()
            .find_map(|a| match a {
                vtkio::model::Attribute::DataArray(d) if d.name == "distance" => Some(d.data.clone()),
                _ => None,
            })
            .unwrap()
            .cast_into::<f64>()
            .unwrap();
        let (mut in_band, mut worst) = (0, 0.0f64);
        for (v, d) in distance.iter().enumerate() {
            let r = (points[3 * v].powi(2) + points[3 * v + 1].powi(2)).sqrt();
            if (r - 1.0).abs() <= 0.45 {
                worst = worst.max((d - (r - 1.0)).abs());
                in_band += 1;
            } else if (r - 1.0).abs() > 0.55 {
                assert_eq!(*d, 0.5, "beyond the band: the default value");
            }
        }
        println!("curved {curved}: largest error in the band {worst:.2e}");
        assert!(worst < tolerance, "curved {curved}: {worst}");
        // The band |r − 1| ≤ 0.45 covers about 5.65 / (0.866 h²) ≈ 650 nodes at h = 0.1.
        assert!(
            in_band as u64 <= accepted && in_band > 500,
            "{in_band} nodes in the band"
        );
    }
    let (ok, _, err) = tumble(&[
        "distance",
        "meshes/disk_r3.msh",
        "--front",
        "r9",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("no marker named 'r9'"), "{err}");
    let (ok, _, err) = tumble(&[
        "distance",
        "meshes/disk_r3.msh",
        "--front",
        "r1",
        "--band",
        "-1",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("band width must be positive"), "{err}");
}

#[test]
fn bench_broad_reports_every_method_in_json() {
    let (ok, out, err) = tumble(&["bench", "broad", "--dim", "2", "--n", "2000", "--omega", "5", "--json"]);
    assert!(ok, "{err}");
    let objects: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let names: Vec<&str> = objects.iter().map(|o| o["method"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "brute",
            "linked-cell",
            "sweep",
            "sorted-distance",
            "hgrid",
            "kdtree",
            "auto"
        ]
    );
    let pairs = objects[0]["pairs"].as_u64().unwrap();
    assert!(pairs > 100);
    for o in &objects {
        assert_eq!(o["n"], 2000);
        assert_eq!(o["pairs"].as_u64().unwrap(), pairs, "{o}");
        assert!(o["median_ms"].as_f64().unwrap() > 0.0);
    }
    assert!(objects[6]["chosen"].is_string());
    assert!(objects[6]["probe_ms"].as_f64().unwrap() > 0.0);
}

#[test]
fn bench_broad_reads_csv_and_rejects_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("s.csv");
    std::fs::write(&good, "x,y,z,r\n0,0,0,1\n1.5,0,0,1\n5,5,5,0.5\n").unwrap();
    let (ok, out, err) = tumble(&[
        "bench",
        "broad",
        "--input",
        good.to_str().unwrap(),
        "--method",
        "hgrid",
        "--json",
    ]);
    assert!(ok, "{err}");
    let o: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!((o["n"].as_u64(), o["pairs"].as_u64()), (Some(3), Some(1)));
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "x,y,r\n0,0,1\n1,zero,1\n").unwrap();
    let (ok, _, err) = tumble(&["bench", "broad", "--input", bad.to_str().unwrap()]);
    assert!(
        !ok && err.contains("bad.csv, line 3: expected 3 numbers, found '1,zero,1'"),
        "{err}"
    );
    std::fs::write(&bad, "a,b\n").unwrap();
    let (ok, _, err) = tumble(&["bench", "broad", "--input", bad.to_str().unwrap()]);
    assert!(
        !ok && err.contains("line 1: expected the header x,y,r or x,y,z,r"),
        "{err}"
    );
    std::fs::write(&bad, "x,y,r\n0,0,-1\n1,1,1\n").unwrap();
    let (ok, _, err) = tumble(&["bench", "broad", "--input", bad.to_str().unwrap()]);
    assert!(
        !ok && err.contains("sphere 0: radius -1 must be finite and non-negative"),
        "{err}"
    );
    let (ok, _, err) = tumble(&["bench", "broad", "--n", "100", "--method", "octree"]);
    assert!(!ok && err.contains("unknown method 'octree'"), "{err}");
}

#[test]
fn run_writes_the_output_files_and_reports_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("disk");
    let (ok, stdout, err) = tumble(&["run", "cases/dry_disk_wall.toml", "--out", out.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(stdout.contains("dry_disk_wall: 1 bodies, 10000 steps"), "{stdout}");
    // Without a terminal, a line every tenth of the run instead of the bar.
    let tenths: Vec<&str> = err.lines().filter(|l| l.contains(" % (")).collect();
    assert_eq!(tenths.len(), 9, "{err}");
    for (k, line) in tenths.iter().enumerate() {
        let head = format!("{}0 % ({} of 10000 steps), ", k + 1, (k + 1) * 1000);
        assert!(line.starts_with(&head) && line.ends_with(" left"), "{line}");
    }
    for f in [
        "series.pvd",
        "bodies.csv",
        "summary.json",
        "domain.vtu",
        "bodies_010000.vtu",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "completed");
    assert_eq!(summary["steps"], 10000);
    // The header and 10 001 states.
    assert_eq!(
        std::fs::read_to_string(out.join("bodies.csv")).unwrap().lines().count(),
        10_002
    );

    let bad = dir.path().join("bad.toml");
    let text = std::fs::read_to_string("cases/dry_disk_wall.toml")
        .unwrap()
        .replace("range = 0.03", "range = 0.03\nrnage = 1");
    std::fs::write(&bad, text).unwrap();
    let (ok, _, err) = tumble(&["run", bad.to_str().unwrap()]);
    assert!(
        !ok && err.contains("bad.toml") && err.contains("unknown field `rnage`"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    let (ok, out, _) = tumble(&["run", "--help"]);
    assert!(ok && out.contains("example"), "{out}");
}

/// Sizes that aborted the process while allocating (exit 134) or panicked (101) end with exit
/// code 1 and a message naming the key; `TUMBLE_MEMORY_LIMIT` caps the budget, and a value of it
/// that is not a size is an error before any work.
#[test]
fn sizes_beyond_the_memory_are_errors_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, edit: (&str, &str), limit: Option<&str>| {
        let case = dir.path().join(format!("{name}.toml"));
        let text = std::fs::read_to_string("cases/dry_squares.toml").unwrap();
        assert!(text.contains(edit.0));
        std::fs::write(&case, text.replacen(edit.0, edit.1, 1)).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_tumble"));
        command.args([
            "run",
            case.to_str().unwrap(),
            "--out",
            dir.path().join(name).to_str().unwrap(),
        ]);
        if let Some(limit) = limit {
            command.env("TUMBLE_MEMORY_LIMIT", limit);
        }
        let out = command.output().unwrap();
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let wide = (
        "{ type = \"rectangle\", sides = [0.25, 0.25] }",
        "{ type = \"ellipse\", semi_axes = [1e6, 1e6] }",
    );
    for (name, edit, limit, expected) in [
        (
            "h",
            ("h = 0.0625", "h = 1e-6"),
            None,
            "h.toml:17: `domain.h`: a lattice of 2000001 × 2000001 nodes would need about",
        ),
        (
            "cells",
            ("h = 0.0625", "cells = [100000000, 100000000]"),
            None,
            "`domain.cells`: a lattice of",
        ),
        (
            "resolution",
            ("range = 0.03", "range = 0.03\nresolution = 1e-7"),
            None,
            "`contact.resolution`: body 'lower'",
        ),
        ("wide", wide, None, "`bodies[0].shape`: the body reaches 1000000"),
        (
            "capped",
            ("h = 0.0625", "h = 0.001"),
            Some("64M"),
            "`domain.h`: a lattice of 2001 × 2001 nodes would need about 1.7 GB of memory, more than the",
        ),
        (
            "limit",
            ("h = 0.0625", "h = 0.0625"),
            Some("8 lots"),
            "error: TUMBLE_MEMORY_LIMIT = '8 lots' is not a size",
        ),
    ] {
        let (code, err) = run(name, edit, limit);
        assert_eq!(code, Some(1), "{name}: {err}");
        assert!(err.contains(expected), "{name}: expected '{expected}' in {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Before its first step a run prints its steps and the output it will write, and refuses an
/// output larger than the free disk unless `--force`; times of any size print short.
#[test]
fn runs_print_their_plan_and_refuse_outputs_beyond_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, _, err) = tumble(&[
        "run",
        "cases/dry_squares.toml",
        "--quiet",
        "--out",
        dir.path().join("squares").to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains("dry_squares: 15000 steps of 0.0001 to t = 1.5; 151 snapshots, 15001 CSV row times: about"),
        "{err}"
    );
    let text = std::fs::read_to_string("cases/dry_squares.toml").unwrap();
    for (name, edit, expected) in [
        (
            "tiny",
            ("step = 1.0e-4", "step = 1e-300"),
            "1.8e19 steps of 1e-300 to t = 1.5",
        ),
        (
            "many",
            ("end = 1.5", "end = 1e8"),
            "1.0e12 steps of 0.0001 to t = 100000000",
        ),
    ] {
        let case = dir.path().join(format!("{name}.toml"));
        std::fs::write(&case, text.replacen(edit.0, edit.1, 1)).unwrap();
        let out = dir.path().join(name);
        let (ok, _, err) = tumble(&["run", case.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert!(!ok && err.contains(expected), "{name}: {err}");
        assert!(
            err.contains("more than the") && err.contains("or pass --force"),
            "{err}"
        );
        assert!(err.lines().all(|l| l.len() < 400), "{err}");
        let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
        assert!(
            summary.contains("\"status\": \"failed\"") && summary.contains("\"steps\": 0"),
            "{summary}"
        );
    }
}

#[test]
fn run_of_a_fluid_case_prints_and_writes_the_coefficients() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("st.toml");
    let mesh = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/schafer_turek_2d_coarse.msh");
    let text = std::fs::read_to_string("cases/schafer_turek_2d1.toml")
        .unwrap()
        .replace("../meshes/schafer_turek_2d_medium.msh", mesh.to_str().unwrap());
    std::fs::write(&case, text).unwrap();
    let out = dir.path().join("out");
    let (ok, stdout, err) = tumble(&["run", case.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(ok, "{err}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for key in ["drag_coefficient", "lift_coefficient", "pressure_difference"] {
        let value = summary[key].as_f64().unwrap();
        let line = stdout.lines().find(|l| l.trim_start().starts_with(key)).unwrap();
        let printed: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(
            (printed - value).abs() < 1e-8,
            "{key}: printed {printed}, written {value}"
        );
    }
    assert!((summary["drag_coefficient"].as_f64().unwrap() - 5.5795).abs() < 0.03);
}

#[test]
fn check_runs_a_case_and_judges_its_intervals() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/schafer_turek_2d_coarse.msh");
    let text = std::fs::read_to_string("cases/schafer_turek_2d1.toml")
        .unwrap()
        .replace("../meshes/schafer_turek_2d_medium.msh", mesh.to_str().unwrap());
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let good = write("good.toml", &text);
    let (ok, stdout, err) = tumble(&["check", &good, "--out", out, "--quiet"]);
    assert!(ok, "{err}");
    assert_eq!(stdout.matches(" ok").count(), 3, "{stdout}");

    let failing = write("failing.toml", &text.replace("[5.551638, 5.607432]", "[5.6, 5.7]"));
    let (ok, stdout, err) = tumble(&["check", &failing, "--out", out, "--quiet"]);
    assert!(
        !ok && stdout.contains("FAILED") && err.contains("1 of 3 checks failed"),
        "{stdout}\n{err}"
    );

    let unknown = write(
        "unknown.toml",
        &text.replace("drag_coefficient = [", "drag_coeficient = ["),
    );
    let (ok, _, err) = tumble(&["check", &unknown, "--out", out, "--quiet"]);
    assert!(
        !ok && err.contains("`check.drag_coeficient`: summary.json has no `drag_coeficient`; its numbers are:")
            && err.contains("drag_coefficient"),
        "{err}"
    );

    let inverted = write("inverted.toml", &text.replace("[5.551638, 5.607432]", "[5.7, 5.6]"));
    let (ok, _, err) = tumble(&["check", &inverted, "--quiet"]);
    assert!(
        !ok && err.contains("`check.drag_coefficient`: expected [low, high] with low ≤ high"),
        "{err}"
    );

    let none = write("none.toml", &text[..text.find("[check]").unwrap()]);
    let (ok, _, err) = tumble(&["check", &none, "--quiet"]);
    assert!(!ok && err.contains("has no [check] table"), "{err}");

    // `run` validates the table as `check` does (the intervals before running, the keys after),
    // reports the values and does not judge them.
    let (ok, _, err) = tumble(&["run", &inverted, "--out", out, "--quiet"]);
    assert!(!ok && err.contains("expected [low, high] with low ≤ high"), "{err}");
    let (ok, _, err) = tumble(&["run", &unknown, "--out", out, "--quiet"]);
    assert!(!ok && err.contains("summary.json has no `drag_coeficient`"), "{err}");
    let (ok, stdout, err) = tumble(&["run", &failing, "--out", out, "--quiet"]);
    assert!(
        ok && stdout.contains("[check]: 2 of 3 values inside their intervals"),
        "{stdout}\n{err}"
    );
}

/// A dry case, a case of a body in a fluid and one of disks in a periodic layer (crossing its
/// faces) give the same `bodies.csv`, byte for byte, on 1, 2 and 4 threads: parallel loops
/// (pairs, elements, bodies) sum in a fixed order.
#[test]
fn runs_are_bit_identical_on_1_2_and_4_threads() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("dry_squares.toml", vec![("end = 1.5", "end = 0.3")]),
        (
            "stokes_sedimentation.toml",
            vec![("_0.01.msh", "_0.02.msh"), ("end = 0.4", "end = 0.1")],
        ),
        ("periodic_settling.toml", vec![("end = 3.0", "end = 0.8")]),
    ];
    for (name, edits) in cases {
        let mut text = std::fs::read_to_string(format!("{root}/cases/{name}")).unwrap();
        for (from, to) in edits {
            assert!(text.contains(from), "{name} has no `{from}`");
            text = text.replace(from, to);
        }
        let case = dir.path().join(name);
        std::fs::write(&case, text.replace("../meshes/", &format!("{root}/meshes/"))).unwrap();
        let csv: Vec<Vec<u8>> = [1, 2, 4]
            .iter()
            .map(|threads| {
                let out = dir.path().join(format!("{name}.{threads}"));
                let status = Command::new(env!("CARGO_BIN_EXE_tumble"))
                    .args(["run", "--quiet", "--out"])
                    .arg(&out)
                    .arg(&case)
                    .env("RAYON_NUM_THREADS", threads.to_string())
                    .status()
                    .unwrap();
                assert!(status.success(), "{name} on {threads} threads");
                std::fs::read(out.join("bodies.csv")).unwrap()
            })
            .collect();
        assert!(csv[0].len() > 1000, "{name}: {} bytes", csv[0].len());
        assert!(
            csv[1] == csv[0] && csv[2] == csv[0],
            "{name}: bodies.csv differs between thread counts"
        );
    }
}
