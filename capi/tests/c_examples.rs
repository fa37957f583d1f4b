//! The C and C++ examples built with the system's compilers against `include/tumble.h` and the
//! shared library, run, and their printed numbers checked: the narrow-band distance to the circle
//! r = 1 of `meshes/disk_r3_h0.1.msh` against the exact `|x| − 1`, and each bad input a status
//! and a message.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding the `libtumble_c.so` built with this test: its own (`target/<profile>/deps`).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().to_path_buf()
}

/// The number after `key` on the line that starts with `line`.
fn number(output: &str, line: &str, key: &str) -> f64 {
    let text = output
        .lines()
        .find(|l| l.starts_with(line))
        .unwrap_or_else(|| panic!("no line '{line}' in:\n{output}"));
    let rest = &text[text.find(key).unwrap_or_else(|| panic!("no '{key}' in '{text}'")) + key.len()..];
    let token: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || "+-.e".contains(*c))
        .collect();
    token.parse().unwrap_or_else(|_| panic!("'{token}' in '{text}'"))
}

/// Builds `source` with `compiler` and `flags` against the library and runs it on the disk mesh
/// from the repository's top directory: its standard output.
fn build_and_run(compiler: &str, flags: &[&str], source: &str, name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lib = library_dir();
    assert!(
        lib.join("libtumble_c.so").exists(),
        "no libtumble_c.so in {}",
        lib.display()
    );
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let built = Command::new(compiler)
        .current_dir(&root)
        .args(flags)
        .args(["-Wall", "-Wextra", "-Werror", "-Iinclude", source, "-o"])
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-ltumble_c")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lm")
        .output()
        .unwrap_or_else(|e| panic!("{compiler}: {e} (install the compilers: apt-get install gcc g++)"));
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let run = Command::new(&exe)
        .current_dir(&root)
        .arg("meshes/disk_r3_h0.1.msh")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{out}{}", String::from_utf8_lossy(&run.stderr));
    out
}

#[test]
fn the_cpp_example_gets_the_c_examples_field() {
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let out = build_and_run(&compiler, &["-std=c++17"], "examples/cpp/distance.cpp", "cpp_distance");
    assert_eq!(number(&out, "nodes in the band", ":"), 1837.0, "{out}");
    assert!(number(&out, "max error", "|x| - 1:") <= 1.25e-3, "{out}");
    assert!(out.contains("caught: reading the mesh: no/such/file.msh"), "{out}");
    // The ellipse: the C example's numbers, bit for bit.
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let c = build_and_run(&cc, &["-std=c99"], "examples/c/ellipse_floor.c", "c_ellipse_for_cpp");
    let line = |text: &str, prefix: &str| values(text.lines().find(|l| l.starts_with(prefix)).unwrap_or(""));
    let start = line(&out, "ellipse at t = 0");
    assert_eq!(start[..], line(&c, "t 0.0000")[6..], "{out}\n{c}");
    let end = line(&out, "ellipse at t = 2");
    assert_eq!(end[..], line(&c, "t 2.0000")[1..3], "{out}\n{c}");
}

#[test]
fn the_c_example_computes_the_distance_to_a_circle_and_reports_bad_input() {
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = build_and_run(&compiler, &["-std=c99"], "examples/c/distance.c", "c_distance");
    // 3 496 nodes; the band reaches 1.2 from the circle, and the values are exact distances to
    // its chords, which lie within h²/(8r) = 1.25e-3 of the circle (h = 0.1, r = 1).
    assert_eq!(number(&out, "mesh", "2D,"), 3496.0);
    assert_eq!(number(&out, "nodes in the band", ":"), 1837.0, "{out}");
    assert!(number(&out, "nodes in the band", "largest |d| there:") <= 1.2);
    assert!(number(&out, "max error", "|x| - 1:") <= 1.25e-3, "{out}");
    assert!((number(&out, "d(0, 0.8)", "=") + 0.2).abs() < 2e-3, "{out}");
    assert!((number(&out, "d(0, 0.8)", "d(1.2, 0) =") - 0.2).abs() < 2e-3, "{out}");
    // The circle r = 2's chords lie within h²/16 of it.
    assert!((number(&out, "argmin on r2", "d =") - 1.0).abs() < 7e-4, "{out}");
    for (line, status) in [
        ("NaN point", 2.0),
        ("small buffer", 4.0),
        ("missing file", 5.0),
        ("unknown name", 2.0),
        ("mesh freed twice", 3.0),
    ] {
        assert_eq!(number(&out, line, "status"), status, "{out}");
    }
    assert!(out.contains("point 0 has a non-finite coordinate"), "{out}");
    assert!(out.contains("needs 3496"), "{out}");
    assert!(out.contains("no/such/file.msh"), "{out}");
    assert!(out.contains("it has: r1, r2, outer"), "{out}");
    assert!(out.contains("not a live mesh handle"), "{out}");
}

/// The numbers after each key of a `report` line of `examples/c/ellipse_floor.c`.
fn values(line: &str) -> Vec<f64> {
    line.split_whitespace().filter_map(|w| w.parse::<f64>().ok()).collect()
}

#[test]
fn the_c_ellipse_on_the_floor_is_the_rust_case_bit_for_bit() {
    use tumble::case::Case;
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = build_and_run(
        &compiler,
        &["-std=c99"],
        "examples/c/ellipse_floor.c",
        "c_ellipse_floor",
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let case = Case::load(&root.join("cases/dry_ellipse_wall.toml")).unwrap();
    let mut sim = case.build::<2>().unwrap();
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("t ")).collect();
    assert_eq!(lines.len(), 5, "{out}");
    for (k, line) in lines.iter().enumerate() {
        if k > 0 {
            for _ in 0..5000 {
                sim.step(1e-4).unwrap();
            }
        }
        sim.contact_forces(0.0).unwrap();
        let b = &sim.bodies[0];
        let rust = [
            0.5 * k as f64,
            b.position.x,
            b.position.y,
            b.rotation,
            b.velocity.x,
            b.velocity.y,
            sim.force[0].x,
            sim.force[0].y,
            sim.torque[0],
        ];
        let c = values(line);
        assert_eq!(c.len(), rust.len(), "{line}");
        for (name, (a, b)) in ["t", "x", "y", "angle", "vx", "vy", "fx", "fy", "torque"]
            .iter()
            .zip(c.iter().zip(&rust))
        {
            assert!(
                a.to_bits() == b.to_bits(),
                "at t = {}: {name} is {a:e} from C, {b:e} from Rust",
                rust[0]
            );
        }
    }
    // The specification's checks: the ellipse lies flat, at rest, at the gap where the wall force
    // holds its weight (about ρ/2 = 0.015); the force is its weight, π a b ρ_s g = 120.38.
    assert!(number(&out, "at rest", "tilt") < 0.1, "{out}");
    assert!(number(&out, "at rest", "speed") < 1e-6, "{out}");
    assert!((number(&out, "at rest", "gap") - 0.015).abs() < 1e-3, "{out}");
    let weight = std::f64::consts::PI * 0.25 * 0.125 * 1.25 * 981.0;
    assert!(
        (sim.force[0].y / weight - 1.0).abs() < 1e-3,
        "{} against {weight}",
        sim.force[0].y
    );
}

#[test]
fn an_installed_library_builds_a_program_through_pkg_config() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let prefix = Path::new(env!("CARGO_TARGET_TMPDIR")).join("prefix");
    let installed = Command::new(root.join("capi/install.sh"))
        .arg(&prefix)
        .env("TUMBLE_LIB_DIR", library_dir())
        .output()
        .unwrap();
    assert!(
        installed.status.success(),
        "{}",
        String::from_utf8_lossy(&installed.stderr)
    );
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "tumble"])
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .output()
        .unwrap_or_else(|e| panic!("pkg-config: {e} (apt-get install pkg-config)"));
    let flags = String::from_utf8_lossy(&flags.stdout).into_owned();
    assert!(flags.contains("-ltumble_c"), "{flags}");
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ellipse_pkg_config");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(&compiler)
        .current_dir(&root)
        .args(["-std=c99", "examples/c/ellipse_floor.c", "-o"])
        .arg(&exe)
        .args(flags.split_whitespace())
        .arg(format!("-Wl,-rpath,{}", prefix.join("lib").display()))
        .arg("-lm")
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let run = Command::new(&exe).output().unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(number(&out, "at rest", "speed") < 1e-6, "{out}");
}

#[test]
fn the_c_host_contact_example_gets_the_rust_forces_bit_for_bit() {
    use tumble::broad::sets::method;
    use tumble::contact::{ContactModel, ContactParameters, HostContact, Law};
    use tumble::math::{Point, Vector};
    use tumble::mesh::generate::{ball, Sphere};
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = build_and_run(&compiler, &["-std=c99"], "examples/c/host_contact.c", "c_host_contact");

    // The same three disks and container through the library's own generic API.
    let r = 0.125;
    let centres = [
        Point::<2>::new(-0.3, 0.1),
        Point::<2>::new(-0.3 + 2.0 * r + 0.01, 0.1),
        Point::<2>::new(0.0, -(1.0 - r - 0.012)),
    ];
    let mut spheres: Vec<Sphere<2>> = centres
        .iter()
        .enumerate()
        .map(|(k, c)| Sphere::new(*c, r, &format!("body{k}")))
        .collect();
    spheres.push(Sphere::new(Point::<2>::zeros(), 1.0, "wall"));
    let mesh = ball::<2>(&spheres, false, 0.01).unwrap();
    let model = ContactModel::new(&ContactParameters::repulsive(Law::Glowinski, 0.03, 1e-6)).unwrap();
    let mut host = HostContact::from_markers(model, &mesh, &[1, 2, 3], &[4], method::<2>("auto").unwrap()).unwrap();
    assert_eq!(host.contacts(&mesh, &centres).unwrap().len(), 2);
    let (mut force, mut torque) = (vec![Vector::<2>::zeros(); 3], vec![0.0; 3]);
    host.forces(&mut force, &mut torque).unwrap();

    assert!(out.contains("step 0 contact body 0 - body 1: gap 0.0100"), "{out}");
    assert!(out.contains("step 0 contact body 2 - wall: gap 0.0120"), "{out}");
    for k in 0..3 {
        let line = |step: usize| {
            let prefix = format!("step {step} force {k}:");
            values(out.lines().find(|l| l.starts_with(&prefix)).unwrap_or(""))
        };
        let (c, moved) = (line(0), line(1));
        let rust = [force[k].x, force[k].y, torque[k]];
        assert_eq!(c.len(), 4, "{out}");
        for (a, b) in c[1..].iter().zip(&rust) {
            assert_eq!(a.to_bits(), b.to_bits(), "body {k}: {a:e} from C, {b:e} from Rust");
        }
        // The translated mesh: the same forces but for rounding.
        for (a, b) in moved[1..].iter().zip(&rust) {
            assert!(
                (a - b).abs() <= 1e-9 * force[0].norm(),
                "body {k} moved: {a:e} against {b:e}"
            );
        }
    }
    // The walls take the reactions: the node loads sum to zero.
    for step in ["step 0 loads", "step 1 loads"] {
        assert!(number(&out, step, "loads:") > 10.0, "{out}");
        let sum = values(out.lines().find(|l| l.starts_with(step)).unwrap());
        assert!(
            sum[sum.len() - 2..].iter().all(|s| s.abs() < 1e-9 * force[0].norm()),
            "{out}"
        );
    }
    assert_eq!(number(&out, "bad tag", "status"), 2.0, "{out}");
    assert!(out.contains("body_tags: the mesh has no facet tagged 9"), "{out}");
}

#[test]
fn the_fortran_example_gets_the_c_examples_numbers_bit_for_bit() {
    let fortran = std::env::var("FC").unwrap_or_else(|_| "gfortran".into());
    // Fortran's module file goes to the test's own directory, not the repository.
    let modules = env!("CARGO_TARGET_TMPDIR");
    let out = build_and_run(
        &fortran,
        &["-std=f2008", "-J", modules],
        "examples/fortran/ellipse_floor.f90",
        "fortran_ellipse_floor",
    );
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let c = build_and_run(
        &cc,
        &["-std=c99"],
        "examples/c/ellipse_floor.c",
        "c_ellipse_for_fortran",
    );
    let lines = |text: &str| -> Vec<Vec<f64>> { text.lines().filter(|l| l.starts_with("t ")).map(values).collect() };
    let (f, c) = (lines(&out), lines(&c));
    assert_eq!(f.len(), 5, "{out}");
    for (a, b) in f.iter().zip(&c) {
        assert_eq!(a.len(), 9, "{out}");
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(a), bits(b), "Fortran {a:?}\nC {b:?}");
    }
    assert!(number(&out, "at rest", "tilt") < 0.1, "{out}");
    assert!((number(&out, "at rest", "gap") - 0.015).abs() < 1e-3, "{out}");
}

#[test]
fn the_c_walkthrough_prints_the_guides_output() {
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = build_and_run(&compiler, &["-std=c99"], "examples/c/walkthrough.c", "c_walkthrough");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let expected = std::fs::read_to_string(root.join("examples/walkthrough.out")).unwrap();
    assert_eq!(out, expected);
}
