//! Checkpoint and restart through the `tumble` binary: a run of 2N steps and a run of N steps
//! continued with `--restart` for N more write the same bytes (`bodies.csv`, the `.pvd` series),
//! dry and in a fluid, in 2D and 3D, with rows and snapshots that do not fall on the checkpoint's
//! step; a run stopped by SIGINT continues from the checkpoint it wrote; checkpoints that do not
//! fit the case are refused, naming why.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs `tumble run` with `args`; the exit code and standard error.
fn tumble(args: &[&str], case: &Path, out: &Path, restart: bool) -> (Option<i32>, String) {
    let result = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["run", "--quiet"])
        .args(args)
        .arg(if restart { "--restart" } else { "--out" })
        .arg(out)
        .arg(case)
        .output()
        .unwrap();
    (
        result.status.code(),
        String::from_utf8_lossy(&result.stderr).into_owned(),
    )
}

/// Writes `text` with `end` as its end time (the line `end = …`) into `dir/name`.
fn case_ending(dir: &Path, name: &str, text: &str, end: &str) -> PathBuf {
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("end = ") {
                format!("end = {end}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let path = dir.join(name);
    std::fs::write(&path, text.replace("../meshes/", &format!("{ROOT}/meshes/"))).unwrap();
    path
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// Runs `text` to `end` in one go, and to `half` then continued to `end`: the same `bodies.csv`
/// and `series` bytes, and the continued summary counts one restart and all the steps.
fn assert_continues_bit_for_bit(text: &str, (half, end): (&str, &str), series: &str) {
    assert_rows_continue_bit_for_bit(text, (half, end), ("bodies.csv", series));
}

/// [`assert_continues_bit_for_bit`] with the rows in `rows` (a flow's `fluid.csv`).
fn assert_rows_continue_bit_for_bit(text: &str, (half, end): (&str, &str), (rows_file, series): (&str, &str)) {
    let dir = tempfile::tempdir().unwrap();
    let (whole, first) = (dir.path().join("whole"), dir.path().join("parts"));
    let full = case_ending(dir.path(), "case.toml", text, end);
    let (code, err) = tumble(&[], &full, &whole, false);
    assert_eq!(code, Some(0), "{err}");
    let short = case_ending(dir.path(), "case.toml", text, half);
    let (code, err) = tumble(&[], &short, &first, false);
    assert_eq!(code, Some(0), "{err}");
    let rows = read(&first.join(rows_file)).len();
    let full = case_ending(dir.path(), "case.toml", text, end);
    let (code, err) = tumble(&[], &full, &first, true);
    assert_eq!(code, Some(0), "{err}");
    let (a, b) = (read(&whole.join(rows_file)), read(&first.join(rows_file)));
    assert!(b.len() > rows, "the continued run appended rows");
    assert!(
        a == b,
        "{rows_file} differs from byte {:?}",
        a.iter().zip(&b).position(|(x, y)| x != y)
    );
    assert_eq!(read(&whole.join(series)), read(&first.join(series)));
    let (s, t) = (summary(&whole), summary(&first));
    assert_eq!(
        (s["status"].as_str(), t["status"].as_str()),
        (Some("completed"), Some("completed"))
    );
    assert_eq!(s["steps"], t["steps"]);
    assert_eq!((s["restarts"].as_u64(), t["restarts"].as_u64()), (Some(0), Some(1)));
    for key in [
        "final_state",
        "drag_coefficient_max",
        "lift_coefficient_max",
        "strouhal_number",
    ] {
        assert_eq!(s[key], t[key], "{key}");
    }
    // Every snapshot the series lists exists, and no other.
    let listed = String::from_utf8(read(&first.join(series))).unwrap();
    let snapshots = std::fs::read_dir(&first)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".vtu") && n != "domain.vtu")
        .collect::<Vec<_>>();
    assert_eq!(snapshots.len(), listed.matches("file=").count(), "{snapshots:?}");
    assert!(snapshots.iter().all(|n| listed.contains(n.as_str())));
}

/// The squares of `cases/dry_squares.toml` settling on the floor, rows every 7 steps, a
/// checkpoint every 300 and at the end of the 1 000-step run.
#[test]
fn a_dry_2d_run_continues_bit_for_bit() {
    let text = std::fs::read_to_string(format!("{ROOT}/cases/dry_squares.toml"))
        .unwrap()
        .replace("every = 100", "every = 100\ncsv_every = 7\ncheckpoint_every = 300");
    assert_continues_bit_for_bit(&text, ("0.1", "0.2"), "series.pvd");
}

const DRY_3D: &str = r#"
name = "tumbling"
dimension = 3
gravity = [0.0, 0.0, -981.0]
[domain]
box = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
[[bodies]]
name = "egg"
shape = { type = "ellipse", semi_axes = [0.15, 0.1, 0.08] }
density = 1.25
position = [0.5, 0.5, 0.2]
rotation = [0.3, 0.2, 0.1]
angular_velocity = [1.0, -2.0, 3.0]
[[bodies]]
name = "brick"
shape = { type = "rectangle", sides = [0.2, 0.1, 0.1] }
density = 1.25
position = [0.52, 0.48, 0.45]
angular_velocity = [0.0, 4.0, 0.0]
[contact]
range = 0.03
stiffness = 1e-6
wall_stiffness = 1.4e-6
resolution = 0.02
[drag]
linear = 4.0
angular = 2.0
[time]
step = 1e-4
end = 0.2
[output]
every = 50
csv_every = 3
checkpoint_every = 700
"#;

/// An ellipsoid and a brick tumbling onto each other and the floor (quaternions, torques, body
/// and wall contacts), a checkpoint at step 700 and at the end of the 1 000-step run.
#[test]
fn a_dry_3d_run_continues_bit_for_bit() {
    assert_continues_bit_for_bit(DRY_3D, ("0.1", "0.2"), "series.pvd");
}

/// The disk of `cases/stokes_sedimentation.toml` on the coarse mesh: rows every 3 steps,
/// snapshots every 4, checkpoints every 5 and at step 13.
#[test]
fn a_2d_run_in_a_fluid_continues_bit_for_bit() {
    let text = std::fs::read_to_string(format!("{ROOT}/cases/stokes_sedimentation.toml"))
        .unwrap()
        .replace("_0.01.msh", "_0.02.msh")
        .replace("every = 10", "every = 4\ncsv_every = 3\ncheckpoint_every = 5");
    assert_continues_bit_for_bit(&text, ("0.13", "0.3"), "flow.pvd");
}

/// Disks settling in a layer periodic along x (`cases/periodic_settling.toml`), stopped at
/// t = 0.55, before disk `a` crosses the periodic face (at 0.565): the continued run wraps it as
/// the whole run does.
#[test]
fn a_periodic_run_continues_bit_for_bit() {
    let text = std::fs::read_to_string(format!("{ROOT}/cases/periodic_settling.toml")).unwrap()
        + "\n[output]\nevery = 7\ncsv_every = 3\ncheckpoint_every = 20\n";
    assert_continues_bit_for_bit(&text, ("0.55", "0.8"), "flow.pvd");
}

/// Six disks settling hindered in a box periodic every way (`[fluid] balance`, no walls at
/// all), stopped at t = 0.05: its checkpoint holds no wall hints, as there are no walls, and
/// continues as the whole run does (one holding placeholder hints was refused before).
#[test]
fn a_run_periodic_every_way_continues_bit_for_bit() {
    let text = r#"dimension = 2
gravity = [0.0, -100.0]

[domain]
box = [[0.0, 0.0], [1.2, 1.2]]
cells = [24, 24]
periodic = ["x", "y"]

[fluid]
density = 1.0
viscosity = 0.05
balance = true

[[bodies]]
name = "d"
shape = { type = "circle", radius = 0.1 }
density = 1.5
position = [0.6, 0.6]
scatter = { count = 6, spread = [0.6, 0.6], gap = 0.05 }

[contact]
range = 0.05
stiffness = 1e-4

[time]
step = 0.005
end = 0.1

[output]
every = 7
csv_every = 3
checkpoint_every = 4
"#;
    assert_continues_bit_for_bit(text, ("0.05", "0.1"), "flow.pvd");
}

/// A steel disk bouncing off the floor in water through a lubrication film
/// (`cases/steel_disk_water.toml` with a film of cut 0.04, at Δt = 5e-4), stopped at t = 0.0595
/// with the disk in the film (its force nonzero from 0.059 to 0.063): the continued run starts
/// its film's step from the saved film force, as the whole run does.
#[test]
fn a_run_through_a_lubrication_film_continues_bit_for_bit() {
    let text = std::fs::read_to_string(format!("{ROOT}/cases/steel_disk_water.toml"))
        .unwrap()
        .replace(
            "friction = 0.3",
            "friction = 0.3\nlubrication = { cut = 0.04, roughness = 0.005 }",
        )
        .replace("step = 1.25e-4", "step = 5e-4")
        .replace("every = 80", "every = 40\ncheckpoint_every = 50");
    assert!(text.contains("lubrication") && text.contains("step = 5e-4"));
    assert_continues_bit_for_bit(&text, ("0.0595", "0.065"), "flow.pvd");
}

/// Schäfer–Turek 2D-2 (a flow without bodies) on the coarse mesh: rows every 3 steps,
/// snapshots every 7, checkpoints every 20 and at step 50 of 100; the summary's maxima, which
/// read the run's second half, are the same too.
#[test]
fn a_flow_without_bodies_continues_bit_for_bit() {
    let text = std::fs::read_to_string(format!("{ROOT}/cases/schafer_turek_2d2.toml"))
        .unwrap()
        .replace("_2d_medium.msh", "_2d_coarse.msh")
        .replace("every = 400", "every = 7\ncsv_every = 3\ncheckpoint_every = 20");
    assert!(text.contains("checkpoint_every = 20"));
    assert_rows_continue_bit_for_bit(&text, ("0.025", "0.05"), ("fluid.csv", "flow.pvd"));
}

/// A flow's checkpoint continued on another mesh is refused naming the sizes, and the run it
/// came from keeps its files, its summary included.
#[test]
fn a_flow_checkpoint_does_not_continue_on_another_mesh() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{ROOT}/cases/schafer_turek_2d2.toml"))
        .unwrap()
        .replace("_2d_medium.msh", "_2d_coarse.msh")
        .replace("every = 400", "every = 7\ncheckpoint_every = 20");
    let out = dir.path().join("out");
    let case = case_ending(dir.path(), "case.toml", &text, "0.01");
    let (code, err) = tumble(&[], &case, &out, false);
    assert_eq!(code, Some(0), "{err}");
    let rows = read(&out.join("fluid.csv"));
    let other = text.replace("_2d_coarse.msh", "_2d_medium.msh");
    let case = case_ending(dir.path(), "case.toml", &other, "0.02");
    let (code, err) = tumble(&[], &case, &out, true);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("the saved flow does not fit this case"), "{err}");
    assert_eq!(
        summary(&out)["status"],
        "completed",
        "the earlier run's summary is kept"
    );
    assert_eq!(read(&out.join("fluid.csv")), rows, "the earlier run's rows are kept");
}

/// A tilted ellipsoid settling in a closed box of fluid: checkpoints every 5 steps and at step 7
/// of 12.
#[test]
fn a_3d_run_in_a_fluid_continues_bit_for_bit() {
    assert_continues_bit_for_bit(EGG_IN_A_BOX, ("0.035", "0.06"), "flow.pvd");
}

/// The egg in a syrup (ν Δt/h² = 1 000) on the iterative solvers: the rigidity constraint's patch
/// takes more conjugate-gradient iterations than its limit at the first step, and the constraint
/// takes whole solves from then on; the checkpoint keeps that choice, so the continued run takes
/// the same path.
#[test]
fn a_3d_run_in_stokes_flow_continues_bit_for_bit_past_the_patch() {
    let text = EGG_IN_A_BOX
        .replace("cells = [6, 6, 6]", "cells = [10, 10, 10]")
        .replace("viscosity = 1.0", "viscosity = 2000.0\nsolver = \"iterative\"");
    assert!(text.contains("cells = [10, 10, 10]") && text.contains("solver = \"iterative\""));
    assert_continues_bit_for_bit(&text, ("0.035", "0.06"), "flow.pvd");
}

const EGG_IN_A_BOX: &str = r#"
name = "egg_in_a_box"
dimension = 3
gravity = [0.0, 0.0, -981.0]
[domain]
box = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
cells = [6, 6, 6]
[fluid]
density = 1.0
viscosity = 1.0
[fluid.boundary]
xmin = "no-slip"
xmax = "no-slip"
ymin = "no-slip"
ymax = "no-slip"
zmin = "no-slip"
zmax = "no-slip"
[[bodies]]
name = "egg"
shape = { type = "ellipse", semi_axes = [0.25, 0.2, 0.15] }
density = 1.5
position = [0.5, 0.5, 0.5]
rotation = [0.3, 0.2, 0.1]
[contact]
range = 0.05
stiffness = 1e-4
resolution = 0.02
[time]
step = 0.005
end = 0.06
[output]
every = 4
checkpoint_every = 5
"#;

/// Bodies carried along a channel: one leaves through the outlet (`xmax`) before the checkpoint,
/// and an `[[inflow]]` table releases one every 1/12 s, before and after it: the continued run
/// rebuilds the released bodies still present and writes the same rows, `exits.csv` and bodies'
/// `.vtu` files (each body keeps its number).
#[test]
fn a_run_with_bodies_entering_and_leaving_continues_bit_for_bit() {
    let text = r#"
name = "through"
dimension = 2
[domain]
box = [[0.0, 0.0], [1.0, 0.25]]
cells = [80, 20]
walls = ["ymin", "ymax"]
[fluid]
density = 1.0
viscosity = 0.01
[fluid.boundary]
xmin = { velocity = [1.0, 0.0] }
xmax = "outflow"
ymin = "no-slip"
ymax = "no-slip"
[[bodies]]
name = "ahead"
shape = { type = "circle", radius = 0.03 }
density = 1.0
position = [0.8, 0.125]
[[inflow]]
name = "fed"
shape = { type = "circle", radius = 0.03 }
density = 1.0
position = [0.1, 0.125]
spread = [0.0, 0.04]
velocity = [1.0, 0.0]
rate = 12.0
[contact]
range = 0.01
stiffness = 1e-4
[time]
step = 0.005
end = 0.3
[output]
every = 4
csv_every = 3
checkpoint_every = 5
"#;
    assert_continues_bit_for_bit(text, ("0.2", "0.3"), "flow.pvd");
    let dir = tempfile::tempdir().unwrap();
    let (whole, first) = (dir.path().join("whole"), dir.path().join("parts"));
    let (code, err) = tumble(&[], &case_ending(dir.path(), "case.toml", text, "0.3"), &whole, false);
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = tumble(&[], &case_ending(dir.path(), "case.toml", text, "0.2"), &first, false);
    assert_eq!(code, Some(0), "{err}");
    let s = summary(&first);
    assert_eq!(
        (s["bodies_in"].as_u64(), s["bodies_out"].as_u64()),
        (Some(4), Some(1)),
        "{s}"
    );
    let (code, err) = tumble(&[], &case_ending(dir.path(), "case.toml", text, "0.3"), &first, true);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(read(&whole.join("exits.csv")), read(&first.join("exits.csv")));
    // The bodies keep their numbers in the `.vtu` files across the restart.
    for entry in std::fs::read_dir(&whole).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with("bodies_") {
            assert!(read(&whole.join(&name)) == read(&first.join(&name)), "{name} differs");
        }
    }
    let (s, t) = (summary(&whole), summary(&first));
    assert_eq!(s["exit_order"], t["exit_order"]);
    assert_eq!(
        (s["bodies_in"].as_u64(), s["bodies"].as_u64()),
        (Some(5), Some(4)),
        "{s}"
    );
}

/// A disk settling in a frame that follows it (`[frame]`, Navier–Stokes): the frame's motion is
/// part of the state, and the continued run writes the same rows.
#[test]
fn a_run_in_a_following_frame_continues_bit_for_bit() {
    let text = r#"
name = "followed"
dimension = 2
gravity = [0, -981]
[domain]
box = [[0, 0], [2, 6]]
cells = [24, 72]
walls = ["xmin", "xmax"]
[fluid]
density = 1.0
viscosity = 0.1
[fluid.boundary]
xmin = "no-slip"
xmax = "no-slip"
ymin = { velocity = [0, 0] }
ymax = "outflow"
[frame]
follow = "disk"
[[bodies]]
name = "disk"
shape = { type = "circle", radius = 0.25 }
density = 1.05
position = [1.1, 3]
[contact]
range = 0.05
stiffness = 1e-4
[time]
step = 0.01
end = 0.3
[output]
every = 4
csv_every = 3
checkpoint_every = 5
"#;
    assert_continues_bit_for_bit(text, ("0.17", "0.3"), "flow.pvd");
}

/// Ctrl-C writes a checkpoint (without `checkpoint_every`) and says how to continue; the
/// continued run ends with the rows of a run never stopped.
#[test]
fn a_run_stopped_by_sigint_continues_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{ROOT}/cases/dry_squares.toml")).unwrap();
    let case = case_ending(dir.path(), "squares.toml", &text, "2.0");
    let (whole, stopped) = (dir.path().join("whole"), dir.path().join("stopped"));
    let child = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["run", "--quiet", "--out"])
        .arg(&stopped)
        .arg(&case)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::fs::metadata(stopped.join("bodies.csv.part")).map_or(0, |m| m.len()) < 200_000 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the run never wrote its rows"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let result = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(130), "{err}");
    assert!(err.contains("continue it with: tumble run"), "{err}");
    let steps = summary(&stopped)["steps"].as_u64().unwrap();
    assert!(steps < 20_000, "the run was stopped before its end ({steps} steps)");

    let (code, err) = tumble(&[], &case, &stopped, true);
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = tumble(&[], &case, &whole, false);
    assert_eq!(code, Some(0), "{err}");
    assert!(read(&whole.join("bodies.csv")) == read(&stopped.join("bodies.csv")));
    assert_eq!(read(&whole.join("series.pvd")), read(&stopped.join("series.pvd")));
}

/// What cannot be continued is refused before any step, with the reason: no checkpoint, another
/// time step, other bodies, a case that ends no later, a corrupted file, `--out` elsewhere, a
/// flow without bodies.
#[test]
fn checkpoints_that_do_not_fit_the_case_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{ROOT}/cases/dry_squares.toml")).unwrap();
    let out = dir.path().join("out");
    let short = case_ending(dir.path(), "squares.toml", &text, "0.01");
    let (code, err) = tumble(&[], &short, &out, false);
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = tumble(&[], &short, &out, true);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("checkpoint.cbor: does not exist: the run wrote no checkpoint"),
        "{err}"
    );

    let with_checkpoints = text.replace("every = 100", "every = 100\ncheckpoint_every = 50");
    let short = case_ending(dir.path(), "squares.toml", &with_checkpoints, "0.01");
    let (code, err) = tumble(&[], &short, &out, false);
    assert_eq!(code, Some(0), "{err}");
    let refused = |edit: (&str, &str), expected: &str| {
        let case = case_ending(
            dir.path(),
            "squares.toml",
            &with_checkpoints.replacen(edit.0, edit.1, 1),
            "0.02",
        );
        let (code, err) = tumble(&[], &case, &out, true);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains(expected), "expected '{expected}' in: {err}");
        assert_eq!(
            summary(&out)["status"],
            "completed",
            "the earlier run's summary is kept"
        );
        assert!(
            !read(&out.join("bodies.csv")).is_empty(),
            "the earlier run's rows are kept"
        );
    };
    refused(
        ("step = 1.0e-4", "step = 2.0e-4"),
        "was written with `time.step` = 1e-4, the case has 2e-4",
    );
    refused(
        ("name = \"upper\"", "name = \"top\""),
        "holds a body 'upper' that the case does not have (or holds it twice); the case has [lower, top]",
    );
    refused(
        ("dimension = 2", "name = \"other\"\ndimension = 2"),
        "belongs to the case 'squares', not 'other'",
    );
    let short = case_ending(dir.path(), "squares.toml", &with_checkpoints, "0.01");
    let (code, err) = tumble(&[], &short, &out, true);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("is at step 100 (t = 0.01), and the case ends at step 100"),
        "{err}"
    );
    let longer = case_ending(dir.path(), "squares.toml", &with_checkpoints, "0.02");
    let (code, err) = tumble(&["--out", "elsewhere"], &longer, &out, true);
    assert_eq!(code, Some(1));
    assert!(err.contains("continues the run in its own directory"), "{err}");
    std::fs::write(out.join("checkpoint.cbor"), b"\xa1garbage").unwrap();
    let (code, err) = tumble(&[], &longer, &out, true);
    assert_eq!(code, Some(1));
    assert!(err.contains("is not a checkpoint of this version of tumble"), "{err}");

    let flow = dir.path().join("flow.toml");
    let text = std::fs::read_to_string(format!("{ROOT}/cases/schafer_turek_2d1.toml")).unwrap();
    std::fs::write(&flow, text.replace("../meshes/", &format!("{ROOT}/meshes/"))).unwrap();
    let (code, err) = tumble(&[], &flow, &out, true);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("a steady flow is one solve and writes no checkpoint"),
        "{err}"
    );

    // An unsteady flow under the dry run's name: the checkpoint holds the other kind of run.
    let (code, err) = tumble(&[], &short, &out, false);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(format!("{ROOT}/cases/schafer_turek_2d2.toml")).unwrap();
    let flow = case_ending(dir.path(), "squares.toml", &text, "0.02");
    let (code, err) = tumble(&[], &flow, &out, true);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("holds a dry run in 2D; the case is a flow without bodies in 2D"),
        "{err}"
    );
}
