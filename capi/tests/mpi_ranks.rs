//! `examples/c/ranks_mpi.c` built with `mpicc` and run under `mpirun` on 1, 2 and 4 ranks (the
//! machine's cores oversubscribed): a thousand spheres in a box with walls, split into slabs
//! across x, come out the same to the last bit as one world of them all stepped alone, with
//! spheres having crossed between the ranks. Needs Open MPI (`apt-get install libopenmpi-dev
//! openmpi-bin`; `.ci/run` installs it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding the `libtumble_c.so` built with this test: its own (`target/<profile>/deps`).
fn library_dir() -> PathBuf {
    std::env::current_exe().unwrap().parent().unwrap().to_path_buf()
}

/// Runs the example on `ranks` ranks (`alone`: the world stepped without a split); each body's
/// line by id, and the rank that owns it at the end.
fn run(exe: &Path, ranks: usize, name: &str, alone: bool) -> BTreeMap<u64, (String, usize)> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let prefix = dir.join(name);
    let mut command = Command::new("mpirun");
    command
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--oversubscribe", "-n", &ranks.to_string()])
        .arg(exe)
        .arg(&prefix);
    if alone {
        command.arg("alone");
    }
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("mpirun: {e} (install Open MPI: apt-get install libopenmpi-dev openmpi-bin)"));
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut bodies = BTreeMap::new();
    for rank in 0..ranks {
        let text = std::fs::read_to_string(format!("{}.{rank}", prefix.display())).unwrap();
        for line in text.lines().filter(|l| l.starts_with("body ")) {
            let id: u64 = line.split(' ').nth(1).unwrap().parse().unwrap();
            assert!(
                bodies.insert(id, (line.to_string(), rank)).is_none(),
                "body {id} owned twice"
            );
        }
    }
    bodies
}

#[test]
fn a_thousand_spheres_on_1_2_and_4_mpi_ranks_are_the_world_alone_bit_for_bit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lib = library_dir();
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ranks_mpi");
    let built = Command::new("mpicc")
        .current_dir(&root)
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Iinclude",
            "examples/c/ranks_mpi.c",
            "-o",
        ])
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-ltumble_c")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lm")
        .output()
        .unwrap_or_else(|e| panic!("mpicc: {e} (install Open MPI: apt-get install libopenmpi-dev openmpi-bin)"));
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let alone = run(&exe, 1, "alone", true);
    assert_eq!(alone.len(), 1000);
    for ranks in [1, 2, 4] {
        let split = run(&exe, ranks, &format!("split{ranks}"), false);
        assert_eq!(split.len(), 1000, "{ranks} ranks: every body owned once");
        let differ = split.iter().filter(|(id, (line, _))| alone[id].0 != *line).count();
        assert_eq!(differ, 0, "{ranks} ranks: {differ} bodies differ from the world alone");
        // Sphere k starts at x = 0.05 + 0.1 (k mod 20), in the slab of that x.
        let start = |id: u64| ((0.05 + 0.1 * (id % 20) as f64) * ranks as f64 / 2.0) as usize;
        let crossed = split.iter().filter(|(&id, (_, rank))| start(id) != *rank).count();
        println!("{ranks} ranks: {crossed} spheres end on another rank than they started on");
        if ranks > 1 {
            assert!(
                crossed > 20,
                "{ranks} ranks: spheres cross between the ranks ({crossed})"
            );
        }
    }
}
