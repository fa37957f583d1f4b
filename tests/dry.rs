//! The specification's section 4.1 checks, run dry (no fluid, linear drag) from the committed case
//! files with the `glowinski` law, and what a case file may get wrong.

use std::path::Path;
use tumble::case::{final_tilt, run_dry, Case, CaseError, Control};

/// One row of `bodies.csv` (2D).
#[derive(Debug, Clone)]
struct Row {
    body: String,
    y: f64,
    angle: f64,
    v: f64,
    omega: f64,
}

/// Runs a committed case into a temporary directory; the rows of `bodies.csv`.
fn run_case(name: &str) -> Vec<Row> {
    let case = Case::load(Path::new(&format!("cases/{name}.toml"))).unwrap();
    let mut sim = case.build::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let summary = run_dry(&case, &mut sim, dir.path(), Control::default()).unwrap();
    assert_eq!(summary.run.header.status, tumble::case::Status::Completed);
    for f in [
        "series.pvd",
        "bodies.csv",
        "summary.json",
        "domain.vtu",
        "bodies_000000.vtu",
    ] {
        assert!(dir.path().join(f).is_file(), "{f} written");
    }
    let text = std::fs::read_to_string(dir.path().join("bodies.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("time,body,x,y,angle,vx,vy,omega,fx,fy,torque"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
    for key in ["broad_phase", "distance", "forces", "integration", "output"] {
        assert!(
            json["seconds"][key].as_f64().is_some(),
            "summary.json has seconds.{key}"
        );
    }
    lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            let x = |k: usize| c[k].parse::<f64>().unwrap();
            Row {
                body: c[1].to_string(),
                y: x(3),
                angle: x(4),
                v: x(5).hypot(x(6)),
                omega: x(7),
            }
        })
        .collect()
}

fn of<'a>(rows: &'a [Row], body: &str) -> Vec<&'a Row> {
    rows.iter().filter(|r| r.body == body).collect()
}

const RHO: f64 = 0.03;

/// 4.1.1: the disk's centre stays in [r, r + ρ] and the disk ends at rest.
#[test]
fn disk_falling_on_a_wall_stays_in_range_and_stops() {
    let rows = run_case("dry_disk_wall");
    let r = 0.125;
    let disk = of(&rows, "disk");
    let (lo, hi) = disk
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), row| (a.min(row.y), b.max(row.y)));
    println!(
        "disk: y in [{lo:.5}, {hi:.5}], final y {:.5}, speed {:.2e}",
        disk.last().unwrap().y,
        disk.last().unwrap().v
    );
    assert!(lo >= r && hi <= r + RHO);
    assert!(disk.last().unwrap().v < 1e-3);
    // At rest where the wall force balances the weight: gap ≈ ρ/2 by the choice of ε_W.
    assert!((disk.last().unwrap().y - r - RHO / 2.0).abs() < 0.002);
}

/// 4.1.2: the two squares stay in their intervals and end at rest.
#[test]
fn two_stacked_squares_stay_in_their_intervals_and_stop() {
    let rows = run_case("dry_squares");
    let l = 0.25;
    for (name, lo, hi) in [
        ("lower", l / 2.0, l / 2.0 + RHO),
        ("upper", 1.5 * l, 1.5 * l + 2.0 * RHO),
    ] {
        let b = of(&rows, name);
        let (a, z) = b
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, z), row| (a.min(row.y), z.max(row.y)));
        let last = b.last().unwrap();
        println!(
            "{name}: y in [{a:.5}, {z:.5}] (allowed [{lo}, {hi}]), speed {:.2e}, angle {:.2e}",
            last.v, last.angle
        );
        assert!(a >= lo && z <= hi);
        assert!(last.v < 1e-3 && last.omega.abs() < 1e-3);
        assert!(last.angle.abs() < 1e-3, "they stay flat");
    }
}

/// 4.1.3: the ellipse goes down, turns its long axis flat and ends at rest.
#[test]
fn ellipse_near_a_wall_turns_flat_and_stops() {
    let rows = run_case("dry_ellipse_wall");
    let e = of(&rows, "ellipse");
    let (first, last) = (e[0], *e.last().unwrap());
    let tilt = (last.angle.rem_euclid(std::f64::consts::PI))
        .min(std::f64::consts::PI - last.angle.rem_euclid(std::f64::consts::PI));
    println!(
        "ellipse: y {:.5} -> {:.5}, angle {:.3} -> {:.2e} (tilt {:.2e}), speed {:.2e}",
        first.y, last.y, first.angle, last.angle, tilt, last.v
    );
    assert!(last.y < first.y - 0.05, "it fell from standing at 45° to lying");
    assert!(tilt < 1f64.to_radians());
    assert!(last.v < 1e-3 && last.omega.abs() < 1e-3);
    let gap = last.y - 0.125;
    assert!((0.0..=RHO).contains(&gap), "rests at gap {gap}");
}

/// A box's mesh follows an explicit `[domain] h`; only the default size, 2ρ, is capped at 256
/// intervals per axis.
#[test]
fn box_mesh_honours_an_explicit_h_and_caps_only_the_default() {
    let cells = |domain: &str| {
        let text = format!(
            "dimension = 2\n[domain]\nbox = [[0.0, 0.0], [2.0, 12.0]]\n{domain}\n[[bodies]]\n\
             shape = {{ type = \"circle\", radius = 0.1 }}\ndensity = 1.0\nposition = [1.0, 1.0]\n\
             [contact]\nrange = 0.01\nstiffness = 1e-6\n[time]\nstep = 1e-4\nend = 1e-4\n"
        );
        let case = Case::parse(Path::new("box.toml"), &text).unwrap();
        case.build::<2>().unwrap().walls.unwrap().mesh().num_cells()
    };
    assert_eq!(cells("h = 0.03125"), 2 * 64 * 384);
    assert_eq!(cells(""), 2 * 100 * 256, "2ρ = 0.02 would be 100 × 600 intervals");
}

/// `final_tilt` (summary.json) is the angle of the body's first axis from the plane normal to
/// gravity: exact values for set rotations, 0 for an axis level with any gravity direction.
#[test]
fn final_tilt_is_the_first_axis_angle_from_level() {
    let case = Case::load(Path::new("cases/dry_ellipse_wall.toml")).unwrap();
    let mut sim = case.build::<2>().unwrap();
    let down = sim.gravity;
    for (angle, tilt) in [(0.0, 0.0), (90.0, 90.0), (170.0, 10.0), (-30.0, 30.0), (225.0, 45.0)] {
        let angle: f64 = angle;
        sim.bodies[0].rotation = angle.to_radians();
        let got = final_tilt(&sim.bodies, &down).unwrap();
        assert!((got - f64::to_radians(tilt)).abs() < 1e-12, "{angle}°: {got}");
    }
    sim.bodies[0].rotation = 0.0;
    let sideways = tumble::math::Vector::<2>::new(3.0, 0.0);
    assert!((final_tilt(&sim.bodies, &sideways).unwrap() - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
    assert_eq!(final_tilt(&sim.bodies, &tumble::math::Vector::<2>::zeros()), None);
}

/// The `spec` law in the disk case: its force peaks at 4ρ³/(27 ε_W), below the weight, so the disk
/// goes through the floor and the run stops with an error naming it, keeping what it wrote.
#[test]
fn spec_law_lets_the_heavy_disk_through_and_the_run_says_so() {
    let text = std::fs::read_to_string("cases/dry_disk_wall.toml")
        .unwrap()
        .replace("law = \"glowinski\"", "law = \"spec\"");
    let case = Case::parse(Path::new("spec_disk.toml"), &text).unwrap();
    let mut sim = case.build::<2>().unwrap();
    let peak = 4.0 * RHO.powi(3) / (27.0 * 1.05e-6);
    assert!(peak < sim.bodies[0].mass * 981.0);
    let dir = tempfile::tempdir().unwrap();
    let err = run_dry(&case, &mut sim, dir.path(), Control::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("'disk'") && err.contains("left the domain"), "{err}");
    let summary = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
    assert!(summary.contains("\"failed\""));
    assert!(
        std::fs::read_to_string(dir.path().join("bodies.csv"))
            .unwrap()
            .lines()
            .count()
            > 10
    );
}

fn build_error(text: &str) -> String {
    match Case::parse(Path::new("bad.toml"), text).and_then(|c| c.build::<2>().map(|_| ())) {
        Err(e @ (CaseError::Parse { .. } | CaseError::Invalid { .. } | CaseError::Sim { .. })) => e.to_string(),
        other => panic!("expected a clear error, got {other:?}"),
    }
}

const GOOD: &str = r#"
dimension = 2
gravity = [0.0, -981.0]
[domain]
box = [[0.0, 0.0], [2.0, 2.0]]
[[bodies]]
name = "a"
shape = { type = "circle", radius = 0.125 }
density = 1.25
position = [0.5, 0.5]
[[bodies]]
name = "b"
shape = { type = "circle", radius = 0.125 }
density = 1.25
position = [1.0, 0.5]
[contact]
range = 0.03
stiffness = 1e-6
[time]
step = 1e-4
end = 0.01
"#;

#[test]
fn bad_case_files_get_errors_naming_the_field_or_body() {
    assert!(Case::parse(Path::new("good.toml"), GOOD).unwrap().build::<2>().is_ok());
    let cases = [
        (
            GOOD.replace("position = [1.0, 0.5]", "position = [0.7, 0.5]"),
            "bodies 'a' and 'b' overlap",
        ),
        (
            GOOD.replace("position = [1.0, 0.5]", "position = [2.5, 0.5]"),
            "body 'b' is not inside the domain",
        ),
        (
            GOOD.replace("position = [1.0, 0.5]", "position = [1.0, 0.05]"),
            "body 'b' is not inside the domain",
        ),
        (
            GOOD.replace("range = 0.03", "range = 0.0"),
            "`contact.range`: must be a positive number",
        ),
        (GOOD.replace("range = 0.03", "range = -1.0"), "`contact.range`"),
        (
            GOOD.replace("stiffness = 1e-6", "stiffness = 0.0"),
            "`contact.stiffness`: must be a positive number",
        ),
        (
            GOOD.replace("stiffness = 1e-6", "stiffness = 1e-6\ndamping = -1"),
            "`contact.damping`: must be a number ≥ 0, got -1",
        ),
        (
            GOOD.replace("range = 0.03", "range = 0.03\nlaw = \"hooke\""),
            "unknown law 'hooke'",
        ),
        (
            GOOD.replace("range = 0.03", "range = 0.03\nrnage = 1"),
            "unknown field `rnage`",
        ),
        (
            GOOD.replace("density = 1.25\nposition = [0.5", "densty = 1.25\nposition = [0.5"),
            "unknown field `densty`",
        ),
        (
            GOOD.replace("position = [1.0, 0.5]", "position = [1.0, 0.5, 0.0]"),
            "`bodies[1].position`: expected 2 finite numbers",
        ),
        (
            GOOD.replace(
                "radius = 0.125 }\ndensity = 1.25\nposition = [1.0",
                "radius = -0.1 }\ndensity = 1.25\nposition = [1.0",
            ),
            "`bodies[1].shape.radius`",
        ),
        (
            GOOD.replace(
                "type = \"circle\", radius = 0.125 }\ndensity = 1.25\nposition = [1.0",
                "type = \"blob\" }\ndensity = 1.25\nposition = [1.0",
            ),
            "unknown variant `blob`",
        ),
        (GOOD.replace("step = 1e-4", "step = nan"), "`time.step`"),
        (
            GOOD.replace("name = \"b\"", "name = \"a\""),
            "'a' is also the name of bodies[0]",
        ),
        // Value errors name the line of their key (line 1 of GOOD is empty).
        (
            GOOD.replace("range = 0.03", "range = 0.0"),
            "bad.toml:17: `contact.range`",
        ),
        (
            GOOD.replace("radius = 0.125 }\ndensity = 1.25\nposition = [1.0", "radius = 0.125 }\ndensity = -1\nposition = [1.0"),
            "bad.toml:14: `bodies[1].density`",
        ),
        // Sizes that used to panic or abort while allocating: refused before, naming the key.
        (
            GOOD.replace("type = \"circle\", radius = 0.125 }\ndensity = 1.25\nposition = [1.0", "type = \"ellipse\", semi_axes = [1e-9, 1e-9] }\ndensity = 1.25\nposition = [1.0"),
            "bad.toml:13: `bodies[1].shape`: body 'b': a lattice of",
        ),
        (
            GOOD.replace("type = \"circle\", radius = 0.125 }\ndensity = 1.25\nposition = [1.0", "type = \"ellipse\", semi_axes = [1e6, 1e6] }\ndensity = 1.25\nposition = [1.0"),
            "bad.toml:13: `bodies[1].shape`: the body reaches 1000000 from its centre, more than the domain's diagonal",
        ),
        (
            GOOD.replace("range = 0.03", "range = 0.03\nresolution = 1e-7"),
            "bad.toml:18: `contact.resolution`: body 'a': a lattice of 3700007 × 3700007 nodes would need about",
        ),
        (
            GOOD.replace("box = [[0.0, 0.0], [2.0, 2.0]]", "box = [[0.0, 0.0], [2.0, 2.0]]\nh = 1e-6"),
            "bad.toml:6: `domain.h`: a lattice of 2000001 × 2000001 nodes would need about",
        ),
        (
            GOOD.replace("box = [[0.0, 0.0], [2.0, 2.0]]", "box = [[0.0, 0.0], [2.0, 2.0]]\ncells = [100000000, 100000000]"),
            "`domain.cells`: a lattice of 100000001 × 100000001 nodes would need about",
        ),
        (
            GOOD.replace("box = [[0.0, 0.0], [2.0, 2.0]]", "box = [[0.0, 0.0], [2.0, 2.0]]\nh = 1e-300"),
            "`domain.h`: a lattice of",
        ),
        // A self-intersecting (bow-tie) polygon, and one whose edge folds back on the previous one.
        (
            GOOD.replace("type = \"circle\", radius = 0.125 }\ndensity = 1.25\nposition = [1.0", "type = \"polygon\", vertices = [[0, 0], [0.2, 0.2], [0.2, 0], [0, 0.1]] }\ndensity = 1.25\nposition = [1.0"),
            "`bodies[1].shape.vertices`: edges 0–1 and 2–3 meet: a polygon must be simple",
        ),
        (
            GOOD.replace("type = \"circle\", radius = 0.125 }\ndensity = 1.25\nposition = [1.0", "type = \"polygon\", vertices = [[0, 0], [0.2, 0], [0.1, 0], [0.1, 0.1]] }\ndensity = 1.25\nposition = [1.0"),
            "`bodies[1].shape.vertices`: edges 0–1 and 1–2 meet",
        ),
    ];
    for (text, expected) in cases {
        let err = build_error(&text);
        println!("{err}");
        assert!(err.contains(expected), "expected '{expected}' in: {err}");
        assert!(err.starts_with("bad.toml"), "the message names the file: {err}");
    }
}

/// The same code path in 3D: a spinning ball falls on the floor of a box, stays in [r, r + ρ],
/// comes to rest at the gap where the wall force balances its weight, and its spin about the
/// vertical decays as exp(−c_ω t) (a sphere on a frictionless floor feels no torque).
#[test]
fn ball_in_3d_rests_on_the_floor_and_its_spin_decays_freely() {
    let text = r#"
dimension = 3
gravity = [0.0, 0.0, -981.0]
[domain]
box = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
[[bodies]]
name = "ball"
shape = { type = "circle", radius = 0.125 }
density = 1.25
position = [0.5, 0.5, 0.152]
angular_velocity = [0.0, 0.0, 3.0]
[contact]
range = 0.03
stiffness = 1e-6
wall_stiffness = 1.4e-6
resolution = 0.02
[drag]
linear = 40.0
angular = 2.0
[time]
step = 1e-4
end = 0.3
[output]
every = 0
"#;
    let case = Case::parse(Path::new("ball3d.toml"), text).unwrap();
    let mut sim = case.build::<3>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    run_dry(&case, &mut sim, dir.path(), Control::default()).unwrap();
    let csv = std::fs::read_to_string(dir.path().join("bodies.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz")
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| {
            l.split(',')
                .enumerate()
                .filter(|(k, _)| *k != 1)
                .map(|(_, x)| x.parse().unwrap())
                .collect()
        })
        .collect();
    let (r, rho) = (0.125, 0.03);
    let (lo, hi) = rows
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), row| (a.min(row[3]), b.max(row[3])));
    let last = rows.last().unwrap();
    let speed = (last[8].powi(2) + last[9].powi(2) + last[10].powi(2)).sqrt();
    let spin = 3.0 * (-2.0f64 * 0.3).exp();
    println!(
        "z in [{lo:.5}, {hi:.5}], speed {speed:.2e}, wz {:.5} (free decay {spin:.5}), wx {:.2e}, wy {:.2e}",
        last[13], last[11], last[12]
    );
    assert!(lo >= r && hi <= r + rho);
    assert!(speed < 1e-2);
    assert!((last[13] - spin).abs() < 1e-3 * spin);
    // The ball's surface is a geodesic sphere, symmetric enough that the contact's centre of
    // pressure stays on the vertical through G: no torque tilts the spin axis.
    let tumbling = last[11].hypot(last[12]);
    assert!(tumbling < 1e-6, "spurious spin {tumbling}");
}

/// The tripole falls tilted, tips onto a second lobe and rests on two, each a `patches` contact:
/// the angle ends ≡ 0 (mod 2π/3) and the body at rest.
#[test]
fn tripole_comes_to_rest_on_two_lobes() {
    let case = Case::load(Path::new("cases/dry_tripole_floor.toml")).unwrap();
    let mut sim = case.build::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    run_dry(&case, &mut sim, dir.path(), Control::default()).unwrap();
    let b = &sim.bodies[0];
    let third = 2.0 * std::f64::consts::PI / 3.0;
    let off = (b.rotation + third / 2.0).rem_euclid(third) - third / 2.0;
    println!(
        "angle {:.3e} off a rest angle, speed {:.2e}, omega {:.2e}, contacts {}",
        off,
        b.velocity.norm(),
        b.angular_velocity,
        sim.contact.contacts.len()
    );
    assert!(off.abs() < 1e-3 && b.velocity.norm() < 1e-3 && b.angular_velocity.abs() < 1e-3);
    assert_eq!(sim.contact.contacts.len(), 2);
    assert!(sim.contact.contacts.iter().all(|c| (0.0..0.03125).contains(&c.gap)));
}

/// The contacts' normal damping (`[contact] damping`): a disk dropped on the floor rebounds to
/// 99 % of its height without it, to 73 % with `c = 2` (asserted: under 80 %), and does not leave the
/// contact range at all with `c = 20`, where it rests at the same gap as the undamped disk would
/// (ρ/2, the dashpot does not move the equilibrium). Two disks thrown at each other keep their
/// total momentum to round-off (the dashpot is an internal force) and lose kinetic energy.
#[test]
fn contact_damping_dissipates_without_moving_the_rest_state() {
    let drop = |damping: f64| -> (f64, f64) {
        let text = format!(
            "dimension = 2\ngravity = [0.0, -981.0]\n[domain]\nbox = [[0.0, 0.0], [2.0, 2.0]]\nh = 0.0625\n\
             [[bodies]]\nname = \"disk\"\nshape = {{ type = \"circle\", radius = 0.125 }}\ndensity = 1.25\n\
             position = [1.0, 0.325]\n[contact]\nrange = 0.03\nstiffness = 1.0e-6\nwall_stiffness = 1.05e-6\n\
             damping = {damping}\n[time]\nstep = 1.0e-4\nend = 1.0\n"
        );
        let case = Case::parse(Path::new("drop.toml"), &text).unwrap();
        let mut sim = case.build::<2>().unwrap();
        assert_eq!(sim.contact.model.damping, damping);
        let (mut touched, mut rebound) = (false, 0.0f64);
        for _ in 0..6000 {
            sim.step(1e-4).unwrap();
            let b = &sim.bodies[0];
            touched |= b.position.y < 0.125 + 0.03;
            if touched && b.velocity.y > 0.0 {
                rebound = rebound.max(b.position.y);
            }
        }
        (rebound, sim.bodies[0].position.y)
    };
    let (free, _) = drop(0.0);
    let (damped, _) = drop(2.0);
    let (held, rest) = drop(20.0);
    println!("rebound heights: c = 0: {free:.4}, c = 2: {damped:.4}, c = 20: {held:.4} (rest {rest:.4})");
    assert!(free > 0.125 + 0.99 * 0.2);
    assert!(damped < 0.125 + 0.8 * 0.2);
    assert!(held < 0.125 + 0.03 && (rest - 0.125 - 0.015).abs() < 0.002);

    let text = GOOD
        .replace("gravity = [0.0, -981.0]", "")
        .replace("position = [0.5, 0.5]", "position = [0.7, 0.5]\nvelocity = [5, 0.3]")
        .replace("stiffness = 1e-6", "stiffness = 1e-6\ndamping = 1.0");
    let case = Case::parse(Path::new("pair.toml"), &text).unwrap();
    let mut sim = case.build::<2>().unwrap();
    let momentum = |s: &tumble::sim::Simulation<2>| {
        s.bodies
            .iter()
            .map(|b| b.velocity * b.mass)
            .sum::<tumble::math::Vector<2>>()
    };
    let energy = |s: &tumble::sim::Simulation<2>| {
        s.bodies
            .iter()
            .map(|b| 0.5 * b.mass * b.velocity.norm_squared())
            .sum::<f64>()
    };
    let (p0, e0) = (momentum(&sim), energy(&sim));
    for _ in 0..1000 {
        sim.step(1e-4).unwrap();
    }
    let (p1, e1) = (momentum(&sim), energy(&sim));
    println!("pair: momentum {p0:?} → {p1:?}, kinetic energy {e0:.5} → {e1:.5}");
    assert!((p1 - p0).norm() < 1e-12 * p0.norm());
    assert!(e1 < 0.9 * e0);
}

/// `grid` copies a body: `count` copies along each axis at `spacing`, named `<name>_<n>` with the
/// first axis fastest, copy `n` turned by `n · turn`; the copies fall like bodies written one by
/// one (the dry summary's `min_gap` and `final_speed` come with them). Bad grids name their key.
#[test]
fn grids_copy_a_body_and_bad_grids_name_their_key() {
    let text = GOOD.replace(
        "position = [1.0, 0.5]",
        "position = [1.0, 0.5]\nangle = 0.1\ngrid = { count = [3, 2], spacing = [0.3, 0.4], turn = 0.25 }",
    );
    let case = Case::parse(Path::new("grid.toml"), &text).unwrap();
    let sim = case.build::<2>().unwrap();
    assert_eq!(sim.bodies.len(), 7);
    let names: Vec<&str> = sim.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["a", "b_0", "b_1", "b_2", "b_3", "b_4", "b_5"]);
    for (n, b) in sim.bodies[1..].iter().enumerate() {
        let (i, j) = (n % 3, n / 3);
        assert_eq!(b.position[0], 1.0 + i as f64 * 0.3);
        assert_eq!(b.position[1], 0.5 + j as f64 * 0.4);
        assert_eq!(b.rotation, 0.1 + n as f64 * 0.25);
    }
    assert!(std::sync::Arc::ptr_eq(&sim.bodies[1].geometry, &sim.bodies[6].geometry));
    let mut sim = sim;
    let dir = tempfile::tempdir().unwrap();
    let s = run_dry(&case, &mut sim, dir.path(), Control::default()).unwrap();
    assert_eq!(s.bodies, 7);
    // Everything falls freely for 0.01: v = g t, nothing within range of another body.
    assert!((s.final_speed - 981.0 * 0.01).abs() < 1e-9, "{}", s.final_speed);
    assert_eq!(s.min_gap, None);

    let bad = [
        (
            "count = [3, 2]",
            "count = [3]",
            "`bodies[1].grid.count`: expected 2 counts of at least 1",
        ),
        ("count = [3, 2]", "count = [3, 0]", "`bodies[1].grid.count`"),
        ("count = [3, 2]", "count = [100000, 100000]", "at most 10000000 copies"),
        ("spacing = [0.3, 0.4]", "spacing = [0.3]", "`bodies[1].grid.spacing`"),
        (
            "turn = 0.25",
            "turn = [0.1, 0.2, 0.3]",
            "`bodies[1].grid.turn`: expected 1 finite number(s)",
        ),
        (
            "name = \"a\"",
            "name = \"b_4\"",
            "the copy 'b_4' has the name of bodies[0]",
        ),
    ];
    for (from, to, expected) in bad {
        let err = build_error(&text.replacen(from, to, 1));
        assert!(err.contains(expected), "expected '{expected}' in: {err}");
    }
}

/// A dumbbell of two overlapping balls (`type = "spheres"`) dropped tilted onto the floor: its
/// volume is the union's, `2 · 4πr³/3 − π(4r + d)(2r − d)²/12` (two balls of radius r, centres d
/// apart, less their lens), within 1 % at the lattice spacing r/10; it tips onto its second ball
/// and rests on both (two `patches` contacts), its axis level. Bad `spheres` entries name their key.
#[test]
fn dumbbell_of_spheres_has_the_union_volume_and_rests_on_both_balls() {
    let text = r#"
dimension = 3
gravity = [0.0, 0.0, -981.0]
[domain]
box = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
[[bodies]]
name = "dumbbell"
shape = { type = "spheres", centres = [[-0.08, 0.0, 0.0], [0.08, 0.0, 0.0]], radius = 0.1 }
density = 1.5
position = [0.5, 0.5, 0.2]
rotation = [0.0, 0.4, 0.0]
[contact]
law = "patches"
range = 0.03
stiffness = 1e-6
damping = 0.5
resolution = 0.01
[drag]
linear = 20.0
angular = 20.0
[time]
step = 1e-4
end = 0.6
[output]
every = 0
csv_every = 100
"#;
    let case = Case::parse(Path::new("dumbbell.toml"), text).unwrap();
    let mut sim = case.build::<3>().unwrap();
    let (r, d) = (0.1f64, 0.16f64);
    let pi = std::f64::consts::PI;
    let exact = 2.0 * 4.0 * pi * r.powi(3) / 3.0 - pi * (4.0 * r + d) * (2.0 * r - d).powi(2) / 12.0;
    let volume = sim.bodies[0].mass / 1.5;
    println!("volume {volume:.6e}, exact {exact:.6e}");
    assert!((volume / exact - 1.0).abs() < 0.01, "{volume} vs {exact}");
    let dir = tempfile::tempdir().unwrap();
    let s = run_dry(&case, &mut sim, dir.path(), Control::default()).unwrap();
    let b = &sim.bodies[0];
    let tilt = s.final_tilt.unwrap();
    println!(
        "tilt {tilt:.2e}, z {:.4}, speed {:.2e}, min gap {:?}, contacts {}",
        b.position[2],
        s.final_speed,
        s.min_gap,
        sim.contact.contacts.len()
    );
    assert!(tilt < 1e-3, "{tilt}");
    assert!(s.final_speed < 1e-2);
    assert!(b.position[2] > r && b.position[2] < r + 0.03, "{}", b.position[2]);
    assert_eq!(sim.contact.contacts.len(), 2);

    for (from, to, key) in [
        (
            "radius = 0.1 }",
            "radius = 0.1, radii = [0.1, 0.1] }",
            "`bodies[0].shape`",
        ),
        ("radius = 0.1 }", "radii = [0.1] }", "`bodies[0].shape`"),
        ("radius = 0.1 }", "radius = -0.1 }", "`bodies[0].shape.radius`"),
        ("[0.08, 0.0, 0.0]]", "[0.08, 0.0]]", "`bodies[0].shape.centres`"),
    ] {
        let bad = text.replace(from, to);
        let error = match Case::parse(Path::new("bad.toml"), &bad).and_then(|c| c.build::<3>().map(|_| ())) {
            Err(e) => e.to_string(),
            Ok(()) => panic!("{to} was accepted"),
        };
        println!("{error}");
        assert!(error.contains(key), "{error}");
    }
}
