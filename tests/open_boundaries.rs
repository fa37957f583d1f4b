//! Bodies entering through `[[inflow]]` and leaving through the domain's openings (marked
//! boundaries that are not walls), against the exact motion of semi-implicit Euler under
//! gravity: `x_n = x_0 + g Δt² n (n + 1) / 2`, `v_n = n g Δt`.

use std::path::Path;
use tumble::case::{run, Case, Control};

/// Three disks released at one place in a box open at `xmax`, gravity along `+x`: each waits
/// until the one before has moved clear, falls out through `xmax` and is written to `exits.csv`.
const FALLING_OUT: &str = r#"
dimension = 2
gravity = [10.0, 0.0]
[domain]
box = [[0.0, 0.0], [1.0, 1.0]]
h = 0.05
walls = ["xmin", "ymin", "ymax"]
[[inflow]]
name = "drop"
shape = { type = "circle", radius = 0.05 }
density = 1.0
position = [0.2, 0.5]
spread = [0.0, 0.2]
times = [0.0, 0.0, 0.0]
[contact]
range = 0.02
stiffness = 1e-6
[time]
step = 1e-3
end = 0.75
[output]
every = 0
"#;

const G: f64 = 10.0;
const DT: f64 = 1e-3;

/// How far a body released at rest has fallen after `n` steps.
fn fallen(n: usize) -> f64 {
    G * DT * DT * (n * (n + 1)) as f64 / 2.0
}

/// The `y` of body `n` of the table (`0.5 + 0.2 (2 r_n − 1)`, `r_n` the second coordinate of
/// Roberts' R2 sequence, `frac(0.5 + (n + 1) / φ₂²)` with `φ₂` the plastic number).
fn release_y(n: usize) -> f64 {
    let plastic: f64 = 1.324_717_957_244_746;
    0.5 + 0.2 * (2.0 * (0.5 + (n as f64 + 1.0) / (plastic * plastic)).fract() - 1.0)
}

#[test]
fn released_bodies_wait_for_room_and_leave_through_the_opening_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let case = Case::parse(Path::new("falling_out.toml"), FALLING_OUT).unwrap();
    let summary = run(&case, dir.path(), Control::default()).unwrap().summary;

    // Body n is released at the start of the first step (not before body n − 1's) at which
    // every body before it is out of its contact range: bounding spheres more than
    // 2 r + range = 0.12 apart.
    let mut release: Vec<usize> = Vec::new();
    for n in 0..3 {
        let step = (release.last().copied().unwrap_or(0)..)
            .find(|&s| {
                release.iter().enumerate().all(|(m, &r)| {
                    let (dx, dy) = (fallen(s - r), release_y(n) - release_y(m));
                    (dx * dx + dy * dy).sqrt() > 0.12
                })
            })
            .unwrap();
        release.push(step);
    }
    assert!(release[2] > release[1], "the test has one body wait: {release:?}");
    // It leaves at the end of the first step after which its centre is past x = 1.
    let exit: Vec<usize> = release
        .iter()
        .map(|&r| r + (1..).find(|&n| 0.2 + fallen(n) > 1.0).unwrap())
        .collect();

    let bodies = std::fs::read_to_string(dir.path().join("bodies.csv")).unwrap();
    for (n, &r) in release.iter().enumerate() {
        let name = format!("drop_{n}");
        let first = bodies
            .lines()
            .find(|l| l.split(',').nth(1) == Some(name.as_str()))
            .unwrap();
        let x: Vec<f64> = first.split(',').map(|v| v.parse().unwrap_or(f64::NAN)).collect();
        assert!((x[0] - (r + 1) as f64 * DT).abs() < 1e-9, "{name} first row {first}");
        assert!((x[2] - (0.2 + fallen(1))).abs() < 1e-12, "{first}");
        assert!((x[3] - release_y(n)).abs() < 1e-12, "{first}");
        let last = bodies
            .lines()
            .rfind(|l| l.split(',').nth(1) == Some(name.as_str()))
            .unwrap();
        let t: f64 = last.split(',').next().unwrap().parse().unwrap();
        assert!((t - (exit[n] - 1) as f64 * DT).abs() < 1e-9, "{name} last row {last}");
    }

    let exits = std::fs::read_to_string(dir.path().join("exits.csv")).unwrap();
    let rows: Vec<Vec<&str>> = exits.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(exits.lines().next(), Some("time,body,opening,x,y,vx,vy"));
    assert_eq!(rows.len(), 3, "{exits}");
    for (n, row) in rows.iter().enumerate() {
        let number = |k: usize| row[k].parse::<f64>().unwrap();
        let falls = exit[n] - release[n];
        assert_eq!((row[1], row[2]), (format!("drop_{n}").as_str(), "xmax"));
        assert!((number(0) - exit[n] as f64 * DT).abs() < 1e-9, "{row:?}");
        // No wall pushed it on the way out: its motion is gravity's alone, to the last bit of
        // the sums.
        assert!((number(3) - (0.2 + fallen(falls))).abs() < 1e-12, "{row:?}");
        assert!((number(5) - falls as f64 * G * DT).abs() < 1e-9, "{row:?}");
        assert!(number(3) > 1.0 && 0.2 + fallen(falls - 1) <= 1.0);
    }
    assert_eq!(summary["bodies_in"], 3);
    assert_eq!(summary["bodies_out"], 3);
    assert_eq!(summary["bodies"], 0);
    assert_eq!(summary["exit_order"], serde_json::json!(["drop_0", "drop_1", "drop_2"]));
}

#[test]
fn inflow_tables_that_make_no_sense_are_errors_naming_the_key() {
    let with = |from: &str, to: &str| {
        let text = FALLING_OUT.replace(from, to);
        assert_ne!(text, FALLING_OUT, "{from}");
        match Case::parse(Path::new("bad.toml"), &text) {
            Err(e) => e.to_string(),
            Ok(case) => run(&case, tempfile::tempdir().unwrap().path(), Control::default())
                .unwrap_err()
                .to_string(),
        }
    };
    let e = with("times = [0.0, 0.0, 0.0]", "times = [0.2, 0.1]");
    assert!(e.contains("inflow[0].times") && e.contains("ascending"), "{e}");
    let e = with("times = [0.0, 0.0, 0.0]", "times = [0.0]\nrate = 3.0");
    assert!(e.contains("inflow[0]") && e.contains("either `times`"), "{e}");
    let e = with("times = [0.0, 0.0, 0.0]", "rate = -3.0");
    assert!(e.contains("inflow[0].rate"), "{e}");
    let e = with("spread = [0.0, 0.2]", "spread = [0.0, -0.2]");
    assert!(e.contains("inflow[0].spread"), "{e}");
    let e = with("name = \"drop\"", "name = \"drop\"\ncolour = \"red\"");
    assert!(e.contains("colour"), "{e}");
    let taken = FALLING_OUT.replace(
        "[contact]",
        "[[bodies]]\nname = \"drop_7\"\nshape = { type = \"circle\", radius = 0.05 }\ndensity = 1.0\nposition = [0.6, 0.2]\n[contact]",
    );
    let case = Case::parse(Path::new("taken.toml"), &taken).unwrap();
    let e = run(&case, tempfile::tempdir().unwrap().path(), Control::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("inflow[0].name") && e.contains("drop_7"), "{e}");
}

/// The size a run announces before it starts counts the rows of the bodies `[[inflow]]` will
/// release (as if none left, so at least what is written): here every body starts by inflow.
#[test]
fn the_announced_output_counts_the_bodies_to_be_released() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("falling_out.toml");
    std::fs::write(&case, FALLING_OUT).unwrap();
    let out = dir.path().join("out");
    let result = std::process::Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["run", "--quiet", "--out"])
        .arg(&out)
        .arg(&case)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(0), "{err}");
    let announced = err
        .split("about ")
        .nth(1)
        .and_then(|rest| rest.split(" of output").next())
        .unwrap_or_else(|| panic!("no size in: {err}"));
    let (number, unit) = announced.split_once(' ').unwrap();
    let scale = match unit {
        "bytes" => 1.0,
        "KB" => 1024.0,
        "MB" => 1024.0 * 1024.0,
        _ => panic!("{announced}"),
    };
    let announced = number.parse::<f64>().unwrap() * scale;
    let written: u64 = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(
        announced >= written as f64 && announced < 4.0 * written as f64,
        "announced {announced} bytes, wrote {written}"
    );
}
