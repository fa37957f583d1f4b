//! Bodies in a periodic domain without a fluid: a collision across a periodic face (and across
//! an edge where two periodic directions meet) is the same collision in the middle of the cell,
//! momentum is kept through it, the bodies wrap into the cell, and what a periodic domain cannot
//! take is refused by name.

use std::path::Path;
use tumble::case::Case;
use tumble::sim::Simulation;

/// `[a, b, …]` as TOML.
fn list(v: &[f64]) -> String {
    format!(
        "[{}]",
        v.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ")
    )
}

/// Two balls of radius 0.1 (densities 7.8 and 3.0) at `positions` moving at `velocities` in the
/// unit box, periodic along x and y, walls at the others (z in 3D), the collision law with
/// friction and, if `film`, a tangential lubrication film.
fn pair_case(dim: usize, positions: [&[f64]; 2], velocities: [&[f64]; 2], film: bool) -> String {
    let (shape, lattice, h) = if dim == 2 {
        ("circle", 0.001, 0.05)
    } else {
        ("sphere", 0.004, 0.125)
    };
    let periodic = if dim == 2 { "[\"x\"]" } else { "[\"x\", \"y\"]" };
    let lubrication = if film {
        "lubrication = { cut = 0.02, roughness = 1e-3, viscosity = 0.05 }\n"
    } else {
        ""
    };
    let body = |k: usize, density: f64| {
        format!(
            "[[bodies]]\nname = \"b{k}\"\nshape = {{ type = \"{shape}\", radius = 0.1 }}\ndensity = {density}\n\
             position = {}\nvelocity = {}\n",
            list(positions[k]),
            list(velocities[k])
        )
    };
    format!(
        "dimension = {dim}\n[domain]\nbox = [{}, {}]\nh = {h}\nperiodic = {periodic}\n{}{}\
         [contact]\nlaw = \"collision\"\nrange = 0.005\nrestitution = 0.8\nduration = 1e-3\nfriction = 0.3\n\
         resolution = {lattice}\n{lubrication}[time]\nstep = 1e-4\nend = 1.0\n",
        list(&vec![0.0; dim]),
        list(&vec![1.0; dim]),
        body(0, 7.8),
        body(1, 3.0),
    )
}

/// The error a dry 2D case `text` is refused with (a panic if it is accepted).
fn refused(text: &str) -> String {
    match Case::parse(Path::new("bad.toml"), text).and_then(|c| c.build::<2>()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn build<const D: usize>(text: &str) -> Simulation<D>
where
    tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
{
    Case::parse(Path::new("periodic_pair.toml"), text)
        .unwrap()
        .build::<D>()
        .unwrap()
}

/// The pair meeting across the faces x = 0 (and y = 0 in 3D, at the edge) and the same pair
/// shifted by half the cell, meeting in its middle, stepped alike: the same motion to round-off.
fn across_and_in_the_middle<const D: usize>(film: bool)
where
    tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
{
    // Body 0 just inside x = 0 (and y = 0), body 1 just inside x = 1 (and y = 1): 0.24 apart
    // through the corner's images, off-centre so that friction spins them.
    let periodic = if D == 2 { 1 } else { 2 };
    let mut p0 = vec![0.5; D];
    let mut p1 = vec![0.5; D];
    let mut v0 = vec![0.0; D];
    let mut v1 = vec![0.0; D];
    for a in 0..periodic {
        p0[a] = 0.12 / (periodic as f64).sqrt();
        p1[a] = 1.0 - 0.12 / (periodic as f64).sqrt();
        v0[a] = -1.0 / (periodic as f64).sqrt();
        v1[a] = 0.5 / (periodic as f64).sqrt();
    }
    p1[periodic % D] += 0.04;
    let mut across = build::<D>(&pair_case(D, [&p0, &p1], [&v0, &v1], film));
    let shifted = |p: &[f64]| -> Vec<f64> {
        p.iter()
            .enumerate()
            .map(|(a, &x)| if a < periodic { (x + 0.5) % 1.0 } else { x })
            .collect()
    };
    let mut middle = build::<D>(&pair_case(D, [&shifted(&p0), &shifted(&p1)], [&v0, &v1], film));
    let momentum =
        |sim: &Simulation<D>| -> nalgebra::SVector<f64, D> { sim.bodies.iter().map(|b| b.velocity * b.mass).sum() };
    let before = momentum(&across);
    let mut met = false;
    for _ in 0..600 {
        across.step(1e-4).unwrap();
        middle.step(1e-4).unwrap();
        met |= across.contact.contacts.iter().any(|c| c.gap <= 0.005);
        assert!((momentum(&across) - before).norm() < 1e-12 * before.norm());
    }
    assert!(met, "the pair never met");
    for (a, m) in across.bodies.iter().zip(&middle.bodies) {
        // The same place in the cell, half a cell apart along the periodic axes.
        for k in 0..D {
            let d = a.position[k] - m.position[k];
            let d = if k < periodic {
                (d + 1.0).rem_euclid(1.0) - 0.5
            } else {
                d
            };
            assert!(d.abs() < 1e-9, "{}: axis {k} off by {d:e}", a.name);
            assert!((0.0..1.0).contains(&a.position[k]), "{} outside the cell", a.name);
        }
        assert!((a.velocity - m.velocity).norm() < 1e-9, "{}", a.name);
        let spin = <tumble::sim::Dim<D> as tumble::sim::Kinematics<D>>::magnitude;
        assert!(spin(&(a.angular_velocity - m.angular_velocity)) < 1e-7, "{}", a.name);
    }
    // They bounced (the normal speed reversed) or the film stopped them, and friction spun them.
    let b = &across.bodies;
    let normal_before = (v0[0] - v1[0]) * periodic as f64 / (periodic as f64).sqrt();
    let normal_after = (b[0].velocity[0] - b[1].velocity[0]) * periodic as f64 / (periodic as f64).sqrt();
    if film {
        // The film took most of the approach (0.05 Pa s on a gap below 0.02).
        assert!(
            normal_after.abs() < 0.1 * normal_before.abs(),
            "{normal_before} then {normal_after}"
        );
    } else {
        assert!(
            normal_after * normal_before < 0.0,
            "{normal_before} then {normal_after}"
        );
    }
    let spin = <tumble::sim::Dim<D> as tumble::sim::Kinematics<D>>::magnitude(&b[0].angular_velocity);
    assert!(spin > 0.1, "{spin}");
}

#[test]
fn a_collision_across_a_periodic_face_is_the_collision_in_the_middle_2d() {
    across_and_in_the_middle::<2>(false);
}

#[test]
fn a_collision_across_a_periodic_edge_is_the_collision_in_the_middle_3d() {
    across_and_in_the_middle::<3>(false);
}

#[test]
fn a_lubricated_collision_across_a_periodic_face_is_the_one_in_the_middle() {
    across_and_in_the_middle::<2>(true);
}

/// A ball leaving through a periodic face comes back through its image, at its speed, with no
/// wall's force: the faces are no walls.
#[test]
fn a_ball_passes_through_a_periodic_face_untouched() {
    let mut sim = build::<2>(&pair_case(
        2,
        [&[0.5, 0.3], &[0.95, 0.7]],
        [&[0.0, 0.0], &[3.0, 0.0]],
        false,
    ));
    for _ in 0..500 {
        sim.step(1e-4).unwrap();
        assert!(sim.force.iter().all(|f| f.norm() == 0.0), "{:?}", sim.force);
    }
    let b = &sim.bodies[1];
    assert!((b.position.x - (0.95 + 0.15 - 1.0)).abs() < 1e-12, "{:?}", b.position);
    assert_eq!(b.velocity.x, 3.0);
}

/// What a periodic domain with bodies cannot take is refused, naming the key.
#[test]
fn a_periodic_face_named_a_wall_and_a_short_period_are_refused() {
    let text = pair_case(2, [&[0.5, 0.3], &[0.5, 0.7]], [&[0.0, 0.0], &[0.0, 0.0]], false);
    let e = refused(&text.replace(
        "periodic = [\"x\"]",
        "periodic = [\"x\"]\nwalls = [\"xmin\", \"ymin\", \"ymax\"]",
    ));
    assert!(
        e.contains("`domain.walls`: 'xmin' is a periodic face (domain.periodic), which is no wall"),
        "{e}"
    );
    // A cell 0.4 long holds no two balls of radius 0.1 without one meeting itself.
    let e = refused(
        &text
            .replace("box = [[0.0, 0.0], [1.0, 1.0]]", "box = [[0.0, 0.0], [0.4, 1.0]]")
            .replace("0.5, 0.3", "0.2, 0.3")
            .replace("0.5, 0.7", "0.2, 0.7"),
    );
    assert!(
        e.contains("the period 0.4 along axis 0 is shorter than twice the largest pair's reach"),
        "{e}"
    );
}

/// A disk settling in a channel periodic along x (Stokes flow, walls at y = 0 and 2), as the
/// body boundary `boundary` sees it, released at `x` with the horizontal speed `u`: its
/// velocity after each of 15 steps.
fn settling_disk(x: f64, u: f64, boundary: &str) -> Vec<nalgebra::Vector2<f64>> {
    let text = format!(
        "dimension = 2\ngravity = [0.0, -10.0]\n[domain]\nbox = [[0.0, 0.0], [1.0, 2.0]]\ncells = [16, 32]\n\
         periodic = [\"x\"]\n[fluid]\ndensity = 1.0\nviscosity = 0.1\nstokes = true\nbody_boundary = \"{boundary}\"\n\
         [fluid.boundary]\nymin = \"no-slip\"\nymax = \"no-slip\"\n[[bodies]]\nname = \"disk\"\n\
         shape = {{ type = \"circle\", radius = 0.125 }}\ndensity = 1.5\nposition = [{x:?}, 1.2]\nvelocity = [{u:?}, 0.0]\n\
         [contact]\nrange = 0.05\nstiffness = 1e-4\n[time]\nstep = 0.01\nend = 0.15\n[output]\nevery = 0\n"
    );
    let case = Case::parse(Path::new("periodic_disk.toml"), &text).unwrap();
    let flow = case.build_flow::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    tumble::case::run_immersed(&case, &flow, dir.path(), tumble::case::Control::default()).unwrap();
    let csv = std::fs::read_to_string(dir.path().join("bodies.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (vx, vy) = (column("vx"), column("vy"));
    lines
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|x| x.parse().unwrap_or(f64::NAN)).collect();
            nalgebra::Vector2::new(v[vx], v[vy])
        })
        .collect()
}

/// A disk straddling the periodic face x = 0 (its centre at 0.03, the mesh's nodes at the same
/// places relative to it as at 0.53, half a period on) settles as the one in the middle: the
/// fluid's dofs across the face are held at their images next to the body, and the ghosts' image
/// points are found across it. With a horizontal speed it crosses the face while it settles.
/// With the `"nodes"` boundary the two are the same to round-off. With `"surface"` they differ
/// by 5e-5 of the largest speed (9e-5 while crossing), as two disks both in the middle a quarter
/// period apart do (the same order): the pressure correction's increment is pinned at the mesh's
/// vertex 0, whose place relative to the disk then shows (the vertices inside the disk are
/// released from continuity, and what that leaves of the increment's compatibility goes there).
/// Handling the face wrongly shows at once: a ghost spacing measured across the face without
/// the nearest image made the first step 15 % off.
#[test]
fn a_disk_straddling_a_periodic_face_settles_as_the_one_in_the_middle() {
    for (boundary, u, tolerance) in [
        ("nodes", 0.0, 1e-8),
        ("nodes", -1.0, 1e-8),
        ("surface", 0.0, 3e-4),
        ("surface", -1.0, 3e-4),
    ] {
        let across = settling_disk(0.03, u, boundary);
        let middle = settling_disk(0.53, u, boundary);
        assert_eq!(across.len(), middle.len());
        let fastest = middle.iter().map(|v| v.norm()).fold(0.0, f64::max);
        assert!(middle.last().unwrap().y < -0.05, "{boundary}: {:?}", middle.last());
        let worst = across
            .iter()
            .zip(&middle)
            .map(|(a, m)| (a - m).norm() / fastest)
            .fold(0.0, f64::max);
        assert!(worst < tolerance, "{boundary}, u {u}: {worst:e} of the speed apart");
    }
}

/// One disk of volume fraction `phi` settling in a doubly periodic unit cell of `cells` × `cells`
/// (Stokes flow, `[fluid] balance`, the accurate body boundary): the square array of disks
/// settling, whose drag per unit length over `μ U` (`U` the speed relative to the mixture's mean
/// velocity, zero volume flux) is Sangani and Acrivos's. Returns that drag, `W / (μ U)`.
fn settling_array(phi: f64, cells: usize) -> f64 {
    let radius = (phi / std::f64::consts::PI).sqrt();
    let text = format!(
        "dimension = 2\ngravity = [0.0, -10.0]\n[domain]\nbox = [[0.0, 0.0], [1.0, 1.0]]\ncells = [{cells}, {cells}]\n\
         periodic = [\"x\", \"y\"]\n[fluid]\ndensity = 1.0\nviscosity = 1.0\nstokes = true\nbalance = true\n\
         body_boundary = \"surface\"\n[[bodies]]\nname = \"disk\"\nshape = {{ type = \"circle\", radius = {radius:?} }}\n\
         density = 2.0\nposition = [0.5, 0.5]\n[contact]\nrange = 0.02\nstiffness = 1e-4\n[time]\nstep = 0.005\n\
         end = 0.5\n[output]\nevery = 0\n"
    );
    let case = Case::parse(Path::new("array.toml"), &text).unwrap();
    let flow = case.build_flow::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let summary = tumble::case::run_immersed(&case, &flow, dir.path(), tumble::case::Control::default()).unwrap();
    let weight = 1.0 * std::f64::consts::PI * radius * radius * 10.0;
    weight / summary.settling_velocity.unwrap()
}

/// The square array of disks settling at the volume fractions 0.1 and 0.4 (Sangani and
/// Acrivos 1982, their Table 1: 24.83 and 217.89), a disk in a doubly periodic cell whose
/// suspension's weight the mean pressure gradient carries: within 0.25 % at 32 and 64 cells
/// across (−0.02 % and −0.06 % when written; d/h 11 and 46; +0.40 % and +0.68 % while the
/// mixture's mean velocity counted the ghosts as they were). The whole curve from 0.01 to 0.5 is
/// in docs/validation.md (`scripts/settling_array.py`).
#[test]
fn a_settling_square_array_of_disks_has_sangani_and_acrivos_drag() {
    for (phi, cells, expected) in [(0.1, 32, 24.83), (0.4, 64, 217.89)] {
        let drag = settling_array(phi, cells);
        assert!(
            (drag / expected - 1.0).abs() < 0.0025,
            "φ {phi}: {drag} against Sangani and Acrivos's {expected}"
        );
    }
}

/// Disks scattered at random in a doubly periodic box settle under `[fluid] balance`: the mean
/// pressure gradient holds the mixture's momentum, so the bodies' mean velocity levels off (a
/// box without it falls as a whole, ever faster), and `settling_velocity` is the bodies' speed
/// relative to the mixture's mean velocity, more than their own (the fluid goes up as they go
/// down). The scattered disks are the seed's, apart through the periodic faces.
#[test]
fn a_balanced_periodic_suspension_settles_at_a_steady_mean_speed() {
    let text = "dimension = 2\ngravity = [0.0, -100.0]\n[domain]\nbox = [[0.0, 0.0], [1.6, 1.6]]\ncells = [40, 40]\n\
                periodic = [\"x\", \"y\"]\n[fluid]\ndensity = 1.0\nviscosity = 0.05\nbalance = true\n[[bodies]]\n\
                name = \"d\"\nshape = { type = \"circle\", radius = 0.1 }\ndensity = 1.5\nposition = [0.8, 0.8]\n\
                scatter = { count = 8, spread = [0.8, 0.8], gap = 0.05, seed = 3 }\n[contact]\nrange = 0.05\n\
                stiffness = 1e-4\n[time]\nstep = 0.005\nend = 0.6\n[output]\nevery = 0\n";
    let case = Case::parse(Path::new("suspension.toml"), text).unwrap();
    let flow = case.build_flow::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let summary = tumble::case::run_immersed(&case, &flow, dir.path(), tumble::case::Control::default()).unwrap();
    let csv = std::fs::read_to_string(dir.path().join("bodies.csv")).unwrap();
    let start: Vec<nalgebra::Vector2<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[0] == "0")
        .map(|f| nalgebra::Vector2::new(f[2].parse().unwrap(), f[3].parse().unwrap()))
        .collect();
    assert_eq!(start.len(), 8);
    for (i, a) in start.iter().enumerate() {
        assert!((0..2).all(|k| (0.0..1.6).contains(&a[k])), "{a:?} outside");
        for b in &start[i + 1..] {
            let d = (a - b).map(|x| x - 1.6 * (x / 1.6).round());
            assert!(d.norm() >= 0.25 - 1e-12, "{a:?} and {b:?} {} apart", d.norm());
        }
    }
    let mean_vy = |time: f64| -> f64 {
        let rows: Vec<f64> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|f| (f[0].parse::<f64>().unwrap() - time).abs() < 1e-9)
            .map(|f| f[6].parse::<f64>().unwrap())
            .collect();
        assert_eq!(rows.len(), 8, "rows at {time}");
        rows.iter().sum::<f64>() / 8.0
    };
    let (early, late) = (mean_vy(0.3), mean_vy(0.6));
    // Free fall would add g Δt (1 − ρ_f/ρ_s) = 10 between the two; the balanced mean changes by
    // a few per cent of itself.
    assert!(
        early < -0.3 && (late - early).abs() < 0.1 * early.abs(),
        "{early} then {late}"
    );
    let settling = summary.settling_velocity.unwrap();
    assert!(settling > -late && settling < 1.3 * -late, "{settling} against {late}");
}

/// `[fluid] balance` where a wall holds the weight, or without bodies, is refused by name.
#[test]
fn a_balance_without_a_periodic_direction_along_gravity_or_without_bodies_is_refused() {
    let balance_error = |periodic: &str, walls: &str, bodies: &str| {
        let text = format!(
            "dimension = 2\ngravity = [0.0, -1.0]\n[domain]\nbox = [[0.0, 0.0], [1.0, 1.0]]\ncells = [8, 8]\n\
             periodic = {periodic}\n[fluid]\ndensity = 1.0\nviscosity = 1.0\nbalance = true\n{walls}[time]\n\
             step = 0.01\nend = 0.1\n{bodies}"
        );
        let case = Case::parse(Path::new("balance.toml"), &text).unwrap();
        case.build_flow::<2>().map(drop).unwrap_err().to_string()
    };
    let disk = "[[bodies]]\nshape = { type = \"circle\", radius = 0.1 }\ndensity = 2.0\nposition = [0.5, 0.5]\n";
    let walls = "[fluid.boundary]\nymin = \"no-slip\"\nymax = \"no-slip\"\n";
    let e = balance_error("[\"x\"]", walls, disk);
    assert!(
        e.contains("`fluid.balance`: the balance carries the bodies' weight in a domain periodic along gravity"),
        "{e}"
    );
    let e = balance_error("[\"x\", \"y\"]", "", "");
    assert!(
        e.contains("`fluid.balance`: the balance carries the bodies' weight: the case has none"),
        "{e}"
    );
}

/// A scatter that cannot place its copies, or given with a grid, is refused naming the key.
#[test]
fn a_scatter_too_full_or_beside_a_grid_is_refused() {
    let text = pair_case(2, [&[0.5, 0.3], &[0.5, 0.7]], [&[0.0, 0.0], &[0.0, 0.0]], false);
    // Forty disks of radius 0.1 in the unit cell (their area 1.26 of it); random addition jams at
    // about 16.
    let full = text.replacen(
        "velocity = [0.0, 0.0]\n",
        "velocity = [0.0, 0.0]\nscatter = { count = 40, spread = [0.5, 0.5] }\n",
        1,
    );
    let e = refused(&full);
    assert!(
        e.contains("`bodies[0].scatter`: placed") && e.contains("of 40 copies"),
        "{e}"
    );
    let both = text.replacen(
        "velocity = [0.0, 0.0]\n",
        "velocity = [0.0, 0.0]\nscatter = { count = 2, spread = [0.1, 0.1] }\ngrid = { count = [2, 1], spacing = [0.3, 0.0] }\n",
        1,
    );
    assert!(refused(&both).contains("`bodies[0].scatter`: give either `grid` or `scatter`"));
}

/// On a Gmsh mesh meshed with `Periodic Curve` (`meshes/periodic_cylinder.msh`: the unit cell of
/// a square array of fixed cylinders, periodic both ways), a disk released across the cell's
/// corner settles through the face y = 0 and comes back at the top, its weight carried by the
/// mean pressure gradient.
#[test]
fn a_disk_settles_across_the_corner_of_a_periodic_gmsh_mesh() {
    let mesh = Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/periodic_cylinder.msh");
    let text = format!(
        "dimension = 2\ngravity = [0.0, -10.0]\n[domain]\nmesh = {:?}\n\
         periodic = {{ x = [\"left\", \"right\"], y = [\"bottom\", \"top\"] }}\nwalls = [\"cylinder\"]\n[fluid]\n\
         density = 1.0\nviscosity = 0.1\nbalance = true\n[fluid.boundary]\ncylinder = \"no-slip\"\n[[bodies]]\n\
         name = \"d\"\nshape = {{ type = \"circle\", radius = 0.05 }}\ndensity = 2.0\nposition = [0.03, 0.02]\n\
         [contact]\nrange = 0.02\nstiffness = 1e-4\n[time]\nstep = 0.005\nend = 0.4\n[output]\nevery = 0\n",
        mesh.to_str().unwrap()
    );
    let case = Case::parse(Path::new("gmsh_periodic.toml"), &text).unwrap();
    let flow = case.build_flow::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let summary = tumble::case::run_immersed(&case, &flow, dir.path(), tumble::case::Control::default()).unwrap();
    let last = &summary.final_state[0];
    assert!(
        last.position[1] > 0.9 && last.position[1] < 1.0 && last.velocity[1] < -0.05,
        "{:?} at {:?}",
        last.velocity,
        last.position
    );
}
