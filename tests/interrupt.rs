//! Runs that are stopped: signals sent to a real `tumble run` process, and output directories that
//! cannot take a run or hold an earlier one.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Writes `cases/<name>` with `edits` applied (mesh paths made absolute) into `dir`.
fn edited_case(dir: &Path, name: &str, edits: &[(&str, &str)]) -> PathBuf {
    let mut text = std::fs::read_to_string(format!("{ROOT}/cases/{name}")).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{name} has no `{from}`");
        text = text.replacen(from, to, 1);
    }
    let case = dir.join(name);
    std::fs::write(&case, text.replace("../meshes/", &format!("{ROOT}/meshes/"))).unwrap();
    case
}

fn start(case: &Path, out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["run", "--quiet", "--out"])
        .arg(out)
        .arg(case)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `file` holds at least `bytes` (the run is stepping), then sends `signal`.
fn signal_when_written(child: &Child, file: &Path, bytes: u64, signal: &str) {
    let start = Instant::now();
    while std::fs::metadata(file).map_or(0, |m| m.len()) < bytes {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{} never grew",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// The datasets a `.pvd` file lists.
fn listed(pvd: &Path) -> Vec<String> {
    std::fs::read_to_string(pvd)
        .unwrap()
        .lines()
        .filter_map(|l| Some(l.split("file=\"").nth(1)?.split('"').next()?.to_string()))
        .collect()
}

/// Every file the run left: no `.part`, no temporary file, and every dataset the series lists exists.
fn assert_whole(out: &Path, pvd: &str) {
    for entry in std::fs::read_dir(out).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            !name.ends_with(".part") && !name.ends_with(".tmp"),
            "{name} left behind"
        );
    }
    for file in listed(&out.join(pvd)) {
        assert!(out.join(&file).is_file(), "{pvd} lists {file}, which is missing");
    }
}

/// SIGINT on a dry run: it stops at the end of a step, renames `bodies.csv`, ends the series at
/// that step, writes `summary.json` with status "interrupted" and exits with 130.
#[test]
fn sigint_stops_a_dry_run_at_a_step_with_every_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let case = edited_case(dir.path(), "dry_squares.toml", &[("end = 1.5", "end = 100.0")]);
    let out = dir.path().join("out");
    let child = start(&case, &out);
    signal_when_written(&child, &out.join("bodies.csv.part"), 200_000, "INT");
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted after step"), "{stderr}");
    let s = summary(&out);
    assert_eq!(s["status"], "interrupted");
    let steps = s["steps"].as_u64().unwrap();
    assert!(steps > 0 && steps < 1_000_000, "{steps}");
    // The header and one row per body for every step 0..=steps (csv_every is 1).
    let csv = std::fs::read_to_string(out.join("bodies.csv")).unwrap();
    assert_eq!(csv.lines().count() as u64, 1 + 2 * (steps + 1));
    assert!(csv.ends_with('\n'));
    let last = csv
        .lines()
        .last()
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse::<f64>()
        .unwrap();
    assert!((last - s["time"].as_f64().unwrap()).abs() < 1e-12);
    assert_whole(&out, "series.pvd");
    assert_eq!(
        listed(&out.join("series.pvd")).last().unwrap(),
        &format!("bodies_{steps:06}.vtu"),
        "the series ends at the step the run stopped at"
    );
}

/// SIGTERM on bodies in a fluid: the same, with the flow's series, exit 143.
#[test]
fn sigterm_stops_a_run_in_a_fluid_with_every_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let case = edited_case(
        dir.path(),
        "stokes_sedimentation.toml",
        &[
            ("_0.01.msh", "_0.02.msh"),
            ("end = 0.4", "end = 100.0"),
            ("every = 10", "every = 3"),
        ],
    );
    let out = dir.path().join("out");
    let child = start(&case, &out);
    // Four snapshots listed (two parts each): the run is at step 9 or beyond.
    signal_when_written(&child, &out.join("flow.pvd"), 1200, "TERM");
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(143), "{stderr}");
    let s = summary(&out);
    assert_eq!(s["status"], "interrupted");
    let steps = s["steps"].as_u64().unwrap();
    assert!(steps >= 9, "{steps}");
    let csv = std::fs::read_to_string(out.join("bodies.csv")).unwrap();
    assert_eq!(
        csv.lines().count() as u64,
        2 + steps,
        "one body: header and steps + 1 rows"
    );
    assert_whole(&out, "flow.pvd");
    let last = listed(&out.join("flow.pvd"));
    assert_eq!(last[last.len() - 2], format!("flow_{steps:06}.vtu"));
    assert!(out.join("position.png").is_file());
}

/// SIGKILL cannot be caught: what is on disk is still whole. `summary.json` says the run was
/// running, `bodies.csv.part` ends on a complete row, every dataset the series lists exists.
#[test]
fn after_sigkill_every_file_on_disk_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let case = edited_case(dir.path(), "dry_squares.toml", &[("end = 1.5", "end = 100.0")]);
    let out = dir.path().join("out");
    let mut child = start(&case, &out);
    signal_when_written(&child, &out.join("bodies.csv.part"), 500_000, "KILL");
    child.wait().unwrap();
    assert_eq!(summary(&out)["status"], "running");
    let part = std::fs::read_to_string(out.join("bodies.csv.part")).unwrap();
    assert!(part.ends_with('\n'), "the rows end on a complete line");
    let columns = part.lines().next().unwrap().split(',').count();
    assert!(part.lines().all(|l| l.split(',').count() == columns));
    for file in listed(&out.join("series.pvd")) {
        assert!(out.join(&file).is_file(), "series.pvd lists {file}, which is missing");
    }
}

/// A second run into the same directory removes the first one's files (a shorter run then lists
/// and leaves only its own series); a directory holding files named like a run's without a
/// `summary.json`, a file given as `--out`, a `summary.json` that is a directory, and a `name`
/// with a path in it are refused before the case is built.
#[test]
fn output_directories_never_mix_runs_and_bad_ones_are_refused_first() {
    let dir = tempfile::tempdir().unwrap();
    let run = |case: &Path, out: &Path| {
        let result = Command::new(env!("CARGO_BIN_EXE_tumble"))
            .args(["run", "--out"])
            .arg(out)
            .arg(case)
            .output()
            .unwrap();
        (
            result.status.code(),
            String::from_utf8_lossy(&result.stderr).into_owned(),
        )
    };
    let out = dir.path().join("out");
    let long = edited_case(dir.path(), "dry_squares.toml", &[("end = 1.5", "end = 0.05")]);
    let (code, err) = run(&long, &out);
    assert_eq!(code, Some(0), "{err}");
    let count = |out: &Path| {
        std::fs::read_dir(out)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("bodies_"))
            .count()
    };
    let first = count(&out);
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let short = edited_case(dir.path(), "dry_squares.toml", &[("end = 1.5", "end = 0.02")]);
    let (code, err) = run(&short, &out);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!("removed {} files of an earlier run", first + 4)),
        "{err}"
    );
    assert_eq!(count(&out), listed(&out.join("series.pvd")).len());
    assert!(count(&out) < first);
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");

    let foreign = dir.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("series.pvd"), "not ours").unwrap();
    let (code, err) = run(&short, &foreign);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("holds files named as a run's output (series.pvd) but no summary.json"),
        "{err}"
    );

    let file = dir.path().join("a_file");
    std::fs::write(&file, "x").unwrap();
    let (code, err) = run(&short, &file);
    assert_eq!(code, Some(1));
    assert!(err.contains("a_file: is a file: the output needs a directory"), "{err}");

    let odd = dir.path().join("odd");
    std::fs::create_dir_all(odd.join("summary.json")).unwrap();
    let (code, err) = run(&short, &odd);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("summary.json: is a directory where the run writes a file"),
        "{err}"
    );

    for name in ["../../escape", "/abs/path", ".."] {
        let text = std::fs::read_to_string(&short).unwrap();
        let case = dir.path().join("named.toml");
        std::fs::write(&case, format!("name = \"{name}\"\n{text}")).unwrap();
        let result = Command::new(env!("CARGO_BIN_EXE_tumble"))
            .current_dir(dir.path())
            .args(["run"])
            .arg(&case)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains("named.toml:1: `name`:") && err.contains("is not a file name"),
            "{err}"
        );
    }
    assert!(!dir.path().join("escape").exists() && !Path::new("/abs/path").exists());
}
