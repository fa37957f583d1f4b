//! Rigid bodies in the fluid (fictitious domain, `tumble::sim::Immersed`) against exact results:
//! Stokes sedimentation of a disk between two walls (Faxén's drag law) at density ratios 1.01 and
//! 3, its convergence under mesh refinement, a neutrally buoyant body at rest, bad input; in 3D a
//! sphere settling in a spherical container (Happel and Brenner) and a neutrally buoyant sphere;
//! and the committed case `cases/stokes_sedimentation.toml` run from TOML with all its output files.

use std::path::Path;
use std::sync::Arc;
use tumble::body::{BodyGeometry, Dim, Kinematics, RigidBody};
use tumble::broad::LinkedCell;
use tumble::case::{run_immersed, Case, Control, ImmersedSummary};
use tumble::contact::{ContactModel, ContactParameters, ContactSolver, Law, Walls};
use tumble::fluid::{BoundaryConditions, Convection, FlowField, P2Space, Unsteady};
use tumble::linalg::SpdMethod;
use tumble::math::{Point, Vector};
use tumble::mesh::SimplexMesh;
use tumble::shape::{Ball, Ellipsoid, Shape};
use tumble::sim::{BodyBoundary, Drag, Immersed, ImmersedOptions, SimError, Simulation};

const PI: f64 = std::f64::consts::PI;

fn read(file: &str) -> SimplexMesh<2> {
    tumble::mesh::gmsh::read_dim::<2>(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap()
}

/// Faxén's drag coefficient `λ = F/(μU)` of a disk of radius `a` midway between walls `2l` apart,
/// `k = a/l`.
fn faxen(k: f64) -> f64 {
    let l = -k.ln() - 0.9157 + 1.7244 * k.powi(2) - 1.7302 * k.powi(4) + 2.4056 * k.powi(6) - 4.5913 * k.powi(8);
    4.0 * PI / l
}

/// One body of `shape` and density `rho_s` at `centre` in the closed channel of `file` (markers
/// walls, bottom, top; no-slip everywhere), fluid density 1 and viscosity `mu`, gravity `g`
/// downwards, Stokes flow, time step `dt`, the body's boundary seen as `boundary`.
#[allow(clippy::too_many_arguments)]
fn channel_body(
    file: &str,
    mesh: &SimplexMesh<2>,
    shape: &dyn Shape<2>,
    rho_s: f64,
    centre: Point<2>,
    mu: f64,
    g: f64,
    dt: f64,
    boundary: BodyBoundary,
) -> Result<Immersed<2>, SimError> {
    let space = P2Space::new(mesh);
    let mut bc = BoundaryConditions::<2>::default();
    for name in ["walls", "bottom", "top"] {
        bc = bc.no_slip(mesh.facet_marker(name).unwrap());
    }
    let rest = FlowField {
        velocity: vec![Vector::<2>::zeros(); space.len()],
        pressure: vec![0.0; mesh.num_points()],
    };
    let mut fluid = Unsteady::new(mesh, space, mu, dt, bc, rest, 0.0).unwrap();
    fluid.set_convection(Convection::Off);
    let range = 0.05;
    let geometry = Arc::new(BodyGeometry::from_shape(shape, 0.0025, 2.0 * range).unwrap());
    let body = RigidBody::new("body", geometry, rho_s, centre);
    let walls = Walls::new(read(file), &["walls", "bottom", "top"], 0.5).unwrap();
    let sim = Simulation::new(
        vec![body],
        Some(walls),
        Vector::<2>::new(0.0, -g),
        Drag::default(),
        contact(range),
    );
    let options = ImmersedOptions {
        boundary,
        ..ImmersedOptions::new(1.0)
    };
    Immersed::new(fluid, sim, options)
}

/// The tests' contact: Glowinski's law within `range`, stiffness 1e-4 against bodies and walls,
/// linked cells.
fn contact<const D: usize>(range: f64) -> ContactSolver<D>
where
    Dim<D>: Kinematics<D>,
{
    let model = ContactModel::new(&ContactParameters::repulsive(Law::Glowinski, range, 1e-4)).unwrap();
    ContactSolver::new(model, Box::new(LinkedCell::<D>::default()))
}

fn disk(a: f64) -> Ball<2> {
    Ball {
        centre: Point::<2>::zeros(),
        radius: a,
    }
}

/// The disk's settling speed, its mean over t ∈ (0.4, 0.8] (settled by t = 0.4 within 0.1 %
/// at ρ_s = 1.01 and 0.3 % at ρ_s = 3; as it moves through the unstructured mesh its speed
/// varies by up to ±0.13 % at h = 0.04 and ±0.01 % at h = 0.01, which the mean smooths; the mesh
/// is not symmetric, so the disk drifts sideways at 0.2 % of its speed).
fn settling_speed(file: &str, rho_s: f64, g: f64, boundary: BodyBoundary) -> f64 {
    let mesh = read(file);
    let mut c = channel_body(
        file,
        &mesh,
        &disk(0.125),
        rho_s,
        Point::<2>::new(1.0, 6.0),
        1.0,
        g,
        0.01,
        boundary,
    )
    .unwrap();
    let mut sum = 0.0;
    for step in 1..=80 {
        c.step(&mesh).unwrap();
        if step > 40 {
            sum -= c.bodies.bodies[0].velocity.y;
        }
    }
    let b = &c.bodies.bodies[0];
    assert!(b.velocity.x.abs() < 1e-2 * b.velocity.y.abs(), "{:?}", b.velocity);
    sum / 40.0
}

/// The case: a = 0.125 between walls 2 apart (k = 0.125), ρ_s = 1.01, ρ_f = 1, μ = 1,
/// g = 981: Faxén gives U = 0.045612.
///
/// With the boundary on the surface (ghost dofs and their pressure, [`BodyBoundary::Surface`]) on
/// the meshes refined to h = 0.04, 0.02, 0.01 around the disk, the mean speed over t ∈ (0.4,
/// 0.8]: +0.070 %, +0.000 %, −0.005 %, within Faxén's law's own accuracy (its series, the
/// channel's closed ends), so the order is observed from the three meshes' differences: 3.7. The
/// issue asks 0.3 % on the committed mesh (h = 0.01) and an order of at least 1.5.
/// With ρ_s = 3 and g scaled to the same weight, the same velocity: the scheme is not limited to
/// small density ratios.
///
/// With the nodes inside the disk held ([`BodyBoundary::Nodes`]): 1.6 % fast at h = 0.02, 0.9 % at
/// h = 0.01 (first order: the disk the fluid sees is smaller by a fraction of the dof spacing).
#[test]
fn stokes_sedimentation_between_walls_matches_faxen_and_converges() {
    let (a, mu) = (0.125, 1.0);
    let exact = |rho_s: f64, g: f64| (rho_s - 1.0) * PI * a * a * g / (faxen(a) * mu);
    let error = |h: &str, rho_s: f64, g: f64, boundary| {
        let file = format!("meshes/stokes_sedimentation_{h}.msh");
        settling_speed(&file, rho_s, g, boundary) / exact(rho_s, g) - 1.0
    };
    let surface: Vec<f64> = ["0.04", "0.02", "0.01"]
        .iter()
        .map(|h| error(h, 1.01, 981.0, BodyBoundary::Surface))
        .collect();
    let heavy = error("0.02", 3.0, 4.905, BodyBoundary::Surface);
    // The observed order from the three meshes' differences (halving h each time): the errors
    // against Faxén are as small as its law's own (the series, the channel's closed ends).
    let order = ((surface[0] - surface[1]) / (surface[1] - surface[2])).abs().log2();
    println!(
        "surface: relative errors at h 0.04, 0.02, 0.01: {surface:+.5?} (observed order {order:.2}); ρ_s = 3: {heavy:+.5}"
    );
    assert!(
        surface[0].abs() <= 1e-3 && surface[1..].iter().all(|e| e.abs() <= 2e-4),
        "{surface:?}"
    );
    assert!(order >= 1.5, "order {order}");
    assert!((heavy - surface[1]).abs() < 5e-4, "ρ_s = 3: {heavy}");
    let coarse = error("0.02", 1.01, 981.0, BodyBoundary::Nodes);
    let fine = error("0.01", 1.01, 981.0, BodyBoundary::Nodes);
    let order = (coarse / fine).log2();
    println!("nodes: relative errors at h 0.02, 0.01: {coarse:+.4}, {fine:+.4} (order {order:.2})");
    assert!(coarse > 0.0 && coarse < 0.03 && fine > 0.0 && fine < 0.015);
    assert!(order > 0.7, "order {order}");
}

/// A neutrally buoyant ellipse, tilted, near a wall, in fluid at rest under gravity: nothing moves
/// (the fluid's weight is hydrostatic, the body's excess weight is zero).
#[test]
fn neutrally_buoyant_body_in_fluid_at_rest_stays_at_rest() {
    let file = "meshes/stokes_sedimentation_0.02.msh";
    let mesh = read(file);
    let ellipse = Ellipsoid {
        semi_axes: [0.15, 0.06],
    };
    for boundary in [BodyBoundary::Nodes, BodyBoundary::Surface] {
        let centre = Point::<2>::new(0.9, 5.9);
        let mut c = channel_body(file, &mesh, &ellipse, 1.0, centre, 0.1, 981.0, 0.01, boundary).unwrap();
        c.bodies.bodies[0].rotation = 0.4;
        let (speed, u_max) = run_at_rest(&mesh, &mut c, 20);
        let spin = c.bodies.bodies[0].angular_velocity;
        println!("{boundary:?}: |v| {speed:.2e}, ω {spin:.2e}, max |u| {u_max:.2e}");
        assert!(speed < 1e-10 && spin.abs() < 1e-10 && u_max < 1e-10);
    }
}

/// Steps a body in a fluid at rest `steps` times: its speed and the fluid's largest speed.
fn run_at_rest<const D: usize>(mesh: &SimplexMesh<D>, c: &mut Immersed<D>, steps: usize) -> (f64, f64)
where
    Dim<D>: Kinematics<D>,
{
    for _ in 0..steps {
        c.step(mesh).unwrap();
    }
    let u_max = c.fluid.flow.velocity.iter().map(|u| u.norm()).fold(0.0, f64::max);
    (c.bodies.bodies[0].velocity.norm(), u_max)
}

/// A body lighter than the fluid, or one outside the mesh, is refused with a message naming it;
/// bodies with the monolithic scheme, with one naming `fluid.scheme`.
#[test]
fn bad_bodies_are_refused_with_their_names() {
    let file = "meshes/stokes_sedimentation_0.02.msh";
    let mesh = read(file);
    let light = channel_body(
        file,
        &mesh,
        &disk(0.1),
        0.5,
        Point::<2>::new(1.0, 6.0),
        1.0,
        981.0,
        0.01,
        BodyBoundary::Nodes,
    );
    let message = light.err().expect("a light body was accepted").to_string();
    assert!(message.contains("'body' is lighter than the fluid"), "{message}");
    let outside = channel_body(
        file,
        &mesh,
        &disk(0.1),
        2.0,
        Point::<2>::new(3.0, 6.0),
        1.0,
        981.0,
        0.01,
        BodyBoundary::Nodes,
    );
    let message = outside.err().expect("a body outside was accepted").to_string();
    assert!(message.contains("body 'body' is not inside the domain"), "{message}");
    // The monolithic scheme has no place for the bodies' constraint.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/stokes_sedimentation.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("[fluid]\n", "[fluid]\nscheme = \"monolithic\"\n");
    let case = Case::parse(&path, &text).unwrap();
    let flow = case.build_flow::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let Err(error) = run_immersed(&case, &flow, dir.path(), Control::default()) else {
        panic!("the monolithic scheme was accepted with bodies");
    };
    let message = error.to_string();
    assert!(
        message.contains("`fluid.scheme`") && message.contains("needs scheme = \"projected-correction\""),
        "{message}"
    );
}

/// Runs the committed 2D case `cases/{name}` with its text edited by `edits` (each `(from, to)`
/// must occur): the summary, and the directory holding the output files. The summary's
/// `wall_seconds` is the wall-clock time of the run, setup counted once (it once counted the
/// setup twice: 494 s for a process of 284 s).
fn run_edited_case(name: &str, edits: &[(&str, &str)]) -> (ImmersedSummary, tempfile::TempDir) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases").join(name);
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{name} has no `{from}`");
        text = text.replace(from, to);
    }
    let case = Case::parse(&path, &text).unwrap();
    let flow = case.build_flow::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let start = std::time::Instant::now();
    let summary = run_immersed(&case, &flow, dir.path(), Control::default()).unwrap();
    let elapsed = start.elapsed().as_secs_f64();
    assert!(
        summary.run.wall_seconds <= elapsed && summary.run.wall_seconds >= summary.seconds.setup,
        "wall_seconds {} for a run of {elapsed} s with {} s of setup",
        summary.run.wall_seconds,
        summary.seconds.setup
    );
    (summary, dir)
}

/// The committed case on its coarser mesh: `summary.json` reports Faxén's terminal velocity within
/// 3 %, `bodies.csv` carries the hydrodynamic force (which balances the weight once settled),
/// `flow.pvd` pairs the fluid and the bodies at every output time, and the plots exist.
#[test]
fn stokes_sedimentation_case_writes_its_outputs() {
    let (s, dir) = run_edited_case("stokes_sedimentation.toml", &[("_0.01.msh", "_0.02.msh")]);
    let exact = 0.01 * PI * 0.125 * 0.125 * 981.0 / faxen(0.125);
    let u = s.terminal_velocity.expect("settled");
    println!("terminal velocity {u:.6} (Faxén {exact:.6}), Re {:.4}", s.max_reynolds);
    assert!(
        (u / exact - 1.0).abs() < 0.005,
        "the case's surface boundary: 0.26 % on this mesh"
    );
    assert!((s.max_reynolds - 1.01 * s.max_speed * 0.25).abs() < 1e-12);
    assert!(s.final_gap.is_none() && s.min_body_gap.is_none(), "far from the walls");
    let csv = std::fs::read_to_string(dir.path().join("bodies.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "time,body,x,y,angle,vx,vy,omega,fx,fy,torque,hx,hy,htorque");
    assert_eq!(lines.len(), 42);
    let hy: f64 = lines[41].split(',').nth(12).unwrap().parse().unwrap();
    let weight = 0.01 * PI * 0.125 * 0.125 * 981.0;
    assert!((hy / weight - 1.0).abs() < 0.02, "hy {hy}, weight {weight}");
    let pvd = std::fs::read_to_string(dir.path().join("flow.pvd")).unwrap();
    for step in ["000000", "000040"] {
        assert!(pvd.contains(&format!("part=\"0\" file=\"flow_{step}.vtu\"")), "{pvd}");
        assert!(pvd.contains(&format!("part=\"1\" file=\"bodies_{step}.vtu\"")), "{pvd}");
    }
    for png in ["position.png", "velocity.png", "angle.png"] {
        let bytes = std::fs::read(dir.path().join(png)).unwrap();
        assert_eq!(&bytes[1..4], b"PNG", "{png}");
    }
}

/// The committed Re ≈ 17 case (Wan and Turek 2006) on the mesh twice as coarse as its own
/// (h = d/10 along the path) at twice its time step, to t = 0.9: the maximum Reynolds number
/// ρ_s U d/μ within 3 % of the published 17.3 (Glowinski et al.: 17.42; measured 17.40 here, and
/// 18.3 before the momentum of the captured dofs was charged), reached at t ≈ 0.5–0.6, and
/// the disk at rest on the bottom at a gap in [0, ρ].
#[test]
fn disk_sedimentation_re17_case_reaches_the_published_reynolds_number_and_rests() {
    let (s, _dir) = run_edited_case(
        "disk_sedimentation_re17.toml",
        &[
            ("_0.0125.msh", "_0.025.msh"),
            ("step = 5e-4", "step = 1e-3"),
            ("end = 1.2", "end = 0.9"),
        ],
    );
    let gap = s.final_gap.expect("on the bottom");
    println!(
        "Re_max {:.3} at t = {:.3}, final gap {gap:.4}, final speed {:.2e}",
        s.max_reynolds, s.max_speed_time, s.final_speed
    );
    assert!((s.max_reynolds / 17.3 - 1.0).abs() < 0.03);
    assert!((0.45..0.7).contains(&s.max_speed_time));
    assert!(gap > 0.0 && gap < 0.03 && s.final_speed < 0.05);
    let x = s.final_state[0].position[0];
    assert!((x - 1.0).abs() < 0.01, "the disk falls straight: x = {x}");
}

/// The committed drafting–kissing–tumbling case to t = 2.2: the trailing disk falls faster than
/// the leading one in its wake (drafting, by more than 20 % at t = 1), then their gap falls within
/// the contact range (kissing, published at t ≈ 1.0–1.5) without overlap, then the pair turns over
/// (tumbling): the heights cross at t = 2.01 near y = 4.56 here, published 1.8–1.9 near 4.85.
#[test]
fn dkt_case_drafts_kisses_and_tumbles_without_overlap() {
    let (s, dir) = run_edited_case("dkt.toml", &[("end = 3.0", "end = 2.2"), ("every = 50", "every = 0")]);
    let csv = std::fs::read_to_string(dir.path().join("bodies.csv")).unwrap();
    // (time, upper, lower) with each body's x, y, angle, vx, vy, …
    let mut rows: Vec<(f64, Vec<f64>, Vec<f64>)> = Vec::new();
    for line in csv.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let values: Vec<f64> = fields[2..].iter().map(|x| x.parse().unwrap()).collect();
        let t: f64 = fields[0].parse().unwrap();
        match fields[1] {
            "upper" => rows.push((t, values, Vec::new())),
            _ => rows.last_mut().unwrap().2 = values,
        }
    }
    let at_one = rows.iter().find(|r| r.0 >= 1.0).unwrap();
    let kiss = s.min_body_gap.expect("the disks came within contact range");
    let crossing = rows.iter().find(|r| r.1[1] < r.2[1]).expect("the heights cross");
    println!(
        "t = 1: upper vy {:.3}, lower vy {:.3}; smallest gap {kiss:.4}; heights cross at t = {:.3}, y = {:.3}",
        at_one.1[4], at_one.2[4], crossing.0, crossing.1[1]
    );
    assert!(at_one.1[4] < 1.2 * at_one.2[4], "drafting: the upper disk is faster");
    assert!(kiss > 0.0 && kiss < 0.025);
    assert!((1.6..2.1).contains(&crossing.0) && (crossing.1[1] - 4.85).abs() < 0.35);
}

/// The committed high-Reynolds case (ρ_s = 1.5, μ = 0.01, convection along the characteristics)
/// on the mesh twice as coarse as its own at twice its time step, to t = 0.16: the heights follow
/// Bergmann, Hovnanian and Iollo's (2014) y = 3.50 at t = 0.083 within 0.06 and 2.69 at 0.153
/// within 0.15 (measured 3.54 and 2.82: the disk falls 5 % slower than theirs, whose Re_max ≈ 500
/// is the top of the published 440–500; the disk has fallen 1.2 by then, at 11 cm/s; the
/// explicit convection blows up at 8 cm/s).
#[test]
fn disk_sedimentation_high_re_case_follows_the_published_trajectory() {
    let (s, dir) = run_edited_case(
        "disk_sedimentation_high_re.toml",
        &[
            ("_0.0125.msh", "_0.025.msh"),
            ("step = 2.5e-4", "step = 5e-4"),
            ("end = 0.45", "end = 0.16"),
            ("every = 100", "every = 0"),
            ("csv_every = 20", "csv_every = 1"),
        ],
    );
    let csv = std::fs::read_to_string(dir.path().join("bodies.csv")).unwrap();
    let path: Vec<(f64, f64)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let v: Vec<f64> = l.split(',').filter_map(|x| x.parse().ok()).collect();
            (v[0], v[2])
        })
        .collect();
    let height = |t: f64| {
        let k = path.iter().position(|p| p.0 >= t).unwrap();
        let (a, b) = (path[k - 1], path[k]);
        a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0)
    };
    let (early, late) = (height(0.083), height(0.153));
    println!(
        "y(0.083) = {early:.4} (3.50), y(0.153) = {late:.4} (2.69), speed {:.3} at t = {:.3}",
        s.max_speed, s.max_speed_time
    );
    assert!((early - 3.50).abs() < 0.06 && (late - 2.69).abs() < 0.15);
}

/// A sphere of radius 0.5 and density `rho_s` at `centre` in a spherical container of radius 1
/// centred at the origin, meshed at `h` (no-slip), fluid density 1 and viscosity 1, gravity 1
/// downwards, Stokes flow, `Δt = 0.02`.
fn sphere_in_container(h: f64, rho_s: f64, centre: Point<3>) -> (SimplexMesh<3>, Immersed<3>) {
    sphere_in_container_by(h, rho_s, centre, SpdMethod::Auto)
}

/// [`sphere_in_container`] with the fluid's systems solved by `method`.
fn sphere_in_container_by(h: f64, rho_s: f64, centre: Point<3>, method: SpdMethod) -> (SimplexMesh<3>, Immersed<3>) {
    sphere_in(
        Container {
            radius: 1.0,
            h,
            dt: 0.02,
        },
        rho_s,
        centre,
        method,
        BodyBoundary::Nodes,
    )
}

/// A spherical container centred at the origin, meshed at `h`, and the time step.
struct Container {
    radius: f64,
    h: f64,
    dt: f64,
}

/// The sphere of radius 0.5 and density `rho_s` at `centre` in `container`, the fluid's systems
/// solved by `method`, the body seen through `boundary`.
fn sphere_in(
    container: Container,
    rho_s: f64,
    centre: Point<3>,
    method: SpdMethod,
    boundary: BodyBoundary,
) -> (SimplexMesh<3>, Immersed<3>) {
    use tumble::mesh::generate::{ball, Sphere};
    let Container { radius, h, dt } = container;
    let mesh = ball::<3>(&[Sphere::new(Point::<3>::zeros(), radius, "wall")], false, h).unwrap();
    let space = P2Space::new(&mesh);
    let bc = BoundaryConditions::<3>::default().no_slip(mesh.facet_marker("wall").unwrap());
    let rest = FlowField {
        velocity: vec![Vector::<3>::zeros(); space.len()],
        pressure: vec![0.0; mesh.num_points()],
    };
    let mut fluid = Unsteady::with_method(&mesh, space, (1.0, dt), bc, (rest, 0.0), method).unwrap();
    fluid.set_convection(Convection::Off);
    let range = 0.05;
    let shape = Ball {
        centre: Point::<3>::zeros(),
        radius: 0.5,
    };
    let geometry = Arc::new(BodyGeometry::from_shape(&shape, 0.025, 2.0 * range).unwrap());
    let sim = Simulation::new(
        vec![RigidBody::new("sphere", geometry, rho_s, centre)],
        None,
        Vector::<3>::new(0.0, 0.0, -1.0),
        Drag::default(),
        contact(range),
    );
    let options = ImmersedOptions {
        boundary,
        ..ImmersedOptions::new(1.0)
    };
    let immersed = Immersed::new(fluid, sim, options).unwrap();
    (mesh, immersed)
}

/// Happel and Brenner's wall factor of a sphere at the centre of a spherical container,
/// `K = (1 − λ⁵)/(1 − 9λ/4 + 5λ³/2 − 9λ⁵/4 + λ⁶)`, `λ = a/b`.
fn happel_brenner(lambda: f64) -> f64 {
    (1.0 - lambda.powi(5)) / (1.0 - 2.25 * lambda + 2.5 * lambda.powi(3) - 2.25 * lambda.powi(5) + lambda.powi(6))
}

/// 3D with the boundary on the surface ([`BodyBoundary::Surface`]): the sphere of radius
/// `a = 0.5` in a container of radius `b = 4a` (`λ = 0.25`, K = 2.1049), ρ_s − ρ_f = 0.01 (it
/// moves 0.1 % of the gap: the concentric reference holds), Stokes flow, Δt = 0.1, the speed at
/// t = 4 (steady from t = 1.5 to 1e-4, and the same to 1e-5 for Δt = 0.4 and 0.025). At four,
/// six and eight mesh steps across the diameter (h = a/2, a/3, a/4): +6.7 %, +0.98 %, −0.19 %;
/// the issue asks 2 % at six. In a container of radius 2a (a gap of three to five steps) the
/// error depends on how the lattice meets the gap: +1.0 % at six steps, −2.5 % at eight, between
/// −2.5 % and +2.1 % from six to ten. The pressure stays bounded (max |p| about 3e-3).
#[test]
fn sphere_settling_in_a_wide_container_with_the_surface_boundary() {
    let a = 0.5;
    let errors: Vec<f64> = [2.0, 3.0, 4.0]
        .iter()
        .map(|steps| {
            let container = Container {
                radius: 4.0 * a,
                h: a / steps,
                dt: 0.1,
            };
            let (error, pressure) = settled_with_the_surface(container, 40);
            assert!(pressure < 5e-3, "d/h = {}: max |p| = {pressure:e}", 2.0 * steps);
            error
        })
        .collect();
    let order = (errors[0] / errors[1]).ln() / 1.5f64.ln();
    println!("surface, λ = 0.25: errors at d/h = 4, 6, 8: {errors:+.4?}, order {order:.2} from 4 to 6");
    assert!(errors[1].abs() < 0.02 && errors[2].abs() < 0.01, "{errors:?}");
    assert!(order > 2.0, "order {order}");
    // A narrow gap: the container of radius 2a (K = 7.2941), eight steps across, Δt = 0.05 to
    // t = 2: −2.5 %.
    let container = Container {
        radius: 2.0 * a,
        h: a / 4.0,
        dt: 0.05,
    };
    let (narrow, _) = settled_with_the_surface(container, 40);
    println!("surface, λ = 0.5: error at d/h = 8: {narrow:+.4}");
    assert!(narrow.abs() < 0.03, "{narrow}");
}

/// The sphere of radius 0.5, ρ_s − ρ_f = 0.01, at the centre of `container`, seen through its
/// surface, after `steps` steps: its speed over Happel and Brenner's, less one, and the largest
/// pressure.
fn settled_with_the_surface(container: Container, steps: usize) -> (f64, f64) {
    let a = 0.5;
    let exact = 0.01 * 4.0 / 3.0 * PI * a * a * a / (6.0 * PI * a * happel_brenner(a / container.radius));
    let (mesh, mut c) = sphere_in(
        container,
        1.01,
        Point::<3>::zeros(),
        SpdMethod::Auto,
        BodyBoundary::Surface,
    );
    for _ in 0..steps {
        c.step(&mesh).unwrap();
    }
    let pressure = c.fluid.flow.pressure.iter().fold(0.0f64, |m, p| m.max(p.abs()));
    (-c.bodies.bodies[0].velocity.z / exact - 1.0, pressure)
}

/// 3D, the same code path as 2D: a sphere of radius `a` settling from the centre of a spherical
/// container of radius `b = 2a` in Stokes flow, against Happel and Brenner's terminal velocity
/// `U = W / (6πμa K)`, `K = (1 − λ⁵)/(1 − 9λ/4 + 5λ³/2 − 9λ⁵/4 + λ⁶)`, `λ = a/b` (K = 7.2941),
/// `W = (ρ_s − ρ_f)(4/3)πa³ g`, at t = 0.5 (the velocity varies by under 3 % from t = 0.2 on,
/// and the sphere has moved 1 % of the gap). The held nodes lie inside the sphere, so the body the fluid sees is
/// smaller by a fraction of the node spacing and it falls too fast, by an error of first order in
/// `h`: +17.2 % and +12.2 % at `h` = 0.125 and 0.1 (3.5 and 4.4 lattice steps across the radius).
/// That is the 2D channel's deficit (Faxén, +1.6 % at `a/h` = 6.25: an effective radius short by
/// about 0.12 `h` there, 0.17 `h` here) amplified by the container's wall factor, whose drag varies
/// as `a⁴` near `λ = 0.5` against `a^0.8` in the channel; 3 % would take `h ≈ a/20`, beyond a test.
/// It falls straight down and hardly spins: the lattice mesh is not symmetric, and the spin falls
/// with `h` (8e-5 and 2e-5 against `U/a` = 0.015).
#[test]
fn sphere_settling_in_a_spherical_container_converges_to_happel_brenner() {
    let (a, lambda): (f64, f64) = (0.5, 0.5);
    let k = happel_brenner(lambda);
    let exact = 4.0 / 3.0 * PI * a.powi(3) / (6.0 * PI * a * k);
    let mut errors = Vec::new();
    for h in [0.125, 0.1] {
        let (mesh, mut c) = sphere_in_container(h, 2.0, Point::<3>::zeros());
        for _ in 0..25 {
            c.step(&mesh).unwrap();
        }
        let s = &c.bodies.bodies[0];
        let error = -s.velocity.z / exact - 1.0;
        println!(
            "h {h}: {} tetrahedra, U = {:.6} (Happel–Brenner {exact:.6}, K = {k:.4}): error {error:+.4}; sideways {:.1e}, spin {:.1e}, {:.1} iterations per step",
            mesh.num_cells(),
            -s.velocity.z,
            s.velocity.xy().norm(),
            s.angular_velocity.norm(),
            c.iterations as f64 / 25.0
        );
        assert!(s.velocity.xy().norm() < 1e-2 * exact && s.angular_velocity.norm() < 1e-2 * exact / a);
        errors.push(error);
    }
    let order = (errors[0] / errors[1]).ln() / 1.25f64.ln();
    println!("observed order {order:.2}");
    assert!(
        errors[1] > 0.0 && errors[1] < errors[0] && errors[0] < 0.2,
        "{errors:?}"
    );
    assert!((0.5..2.5).contains(&order), "{order}");
}

/// 3D: a neutrally buoyant sphere in a fluid at rest stays at rest, exactly.
#[test]
fn neutrally_buoyant_sphere_in_fluid_at_rest_stays_at_rest() {
    let (mesh, mut c) = sphere_in_container(0.125, 1.0, Point::<3>::new(0.1, -0.05, 0.2));
    let (speed, u_max) = run_at_rest(&mesh, &mut c, 5);
    let spin = c.bodies.bodies[0].angular_velocity.norm();
    println!("|v| {speed:.2e}, |ω| {spin:.2e}, max |u| {u_max:.2e}");
    assert!(speed < 1e-10 && spin < 1e-10 && u_max < 1e-10);
}

/// 3D, both ways of solving the fluid's systems: the sphere settling in its container, 10 steps
/// with the Cholesky factors and with AMG-preconditioned CG (the constraint on a patch in both,
/// then whole solves), gives the same velocity to 1e-8 of itself (measured 8e-12; the
/// constraint's tolerance is 1e-5, the iterations' 1e-9).
#[test]
fn the_iterative_path_settles_the_sphere_as_the_factors_do() {
    let run = |method| {
        let (mesh, mut c) = sphere_in_container_by(0.125, 2.0, Point::<3>::zeros(), method);
        for _ in 0..10 {
            c.step(&mesh).unwrap();
        }
        (c.fluid.solvers().velocity, c.bodies.bodies[0].velocity)
    };
    let (direct_solver, direct) = run(SpdMethod::Direct);
    let (iterative_solver, iterative) = run(SpdMethod::Iterative);
    let difference = (direct - iterative).norm() / direct.norm();
    println!("{direct_solver}: {direct:?}, {iterative_solver}: {iterative:?}, relative difference {difference:.2e}");
    assert_eq!((direct_solver, iterative_solver), ("cholesky", "amg-cg"));
    assert!(direct.z < -0.005 && difference < 1e-8, "{difference:e}");
}

/// Faxén's disk (a = 0.125, walls 2 apart) settling through a channel only 6 long, 3 below the
/// disk and 3 above, in a frame that follows it (`cases/stokes_sedimentation_frame.toml`): the walls move up past it, the fluid
/// enters at the bottom at the lab's rest and leaves at the top. Its speed is Faxén's for an
/// infinite channel (measured −0.13 % at h = a/4; a closed channel 12 long on the same spacing,
/// the disk 3 widths from each end: −0.09 %), `bodies.csv` and `summary.json` give the lab's motion, and the
/// disk stays where it started on the mesh.
#[test]
fn a_frame_that_follows_the_disk_gives_faxens_speed_on_a_short_channel() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/stokes_sedimentation_frame.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let case = Case::parse(&path, &text).unwrap();
    let flow = case.build_flow::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let s = run_immersed(&case, &flow, dir.path(), Control::default()).unwrap();
    let exact = 0.01 * PI * 0.125 * 0.125 * 981.0 / faxen(0.125);
    let u = s.terminal_velocity.expect("settled");
    assert!((u / exact - 1.0).abs() < 0.002, "{u} against Faxén's {exact}");
    // The frame moves down with the disk (its axis is gravity's), at the disk's speed.
    let (z, v) = (s.frame_offset.unwrap(), s.frame_velocity.unwrap());
    assert!((v / u - 1.0).abs() < 1e-3, "frame at {v}, disk at {u}");
    let y = s.final_state[0].position[1];
    assert!(y < 3.0 - 0.9 * u * 0.4, "the lab's position, {y}");
    assert!(
        (y - (3.0 - z)).abs() < 2e-3,
        "on the mesh the disk stays within a tenth of a cell"
    );
    let rows = std::fs::read_to_string(dir.path().join("bodies.csv")).unwrap();
    let last: Vec<f64> = rows
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap_or(f64::NAN))
        .collect();
    assert_eq!((last[3], last[6]), (y, s.final_state[0].velocity[1]));
    // Following a body the case does not have is refused, naming the key.
    let other = Case::parse(
        Path::new("frame.toml"),
        &text.replace("follow = \"disk\"", "follow = \"ball\""),
    )
    .unwrap();
    let flow = other.build_flow::<2>().unwrap();
    let e = run_immersed(&other, &flow, tempfile::tempdir().unwrap().path(), Control::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("frame.follow") && e.contains("'ball'"), "{e}");
}

/// Two equal disks (a = 0.1, ρ_s = 1.01) side by side across a gap of a fifth of a cell
/// (h = 0.02 around them), settling in Stokes flow between the channel's walls: by symmetry (the
/// mesh's aside) they fall at one speed and keep their gap. With the boundary on the surface the
/// ghosts in the gap have image points inside the other disk; read there, each extrapolated
/// the other's rows. Here the two speeds agree within 1 %, the gap holds within a tenth of
/// itself, and the pair falls faster than one disk alone (each drags the other along) but
/// slower than twice it.
#[test]
fn two_disks_across_a_gap_under_a_cell_settle_together_with_the_surface_boundary() {
    let file = "meshes/stokes_sedimentation_0.02.msh";
    let mesh = read(file);
    let (a, gap, g, steps) = (0.1, 0.004, 981.0, 20);
    let at = |x: f64| Point::<2>::new(x, 6.0);
    let body = |x: f64| channel_body(file, &mesh, &disk(a), 1.01, at(x), 1.0, g, 0.01, BodyBoundary::Surface).unwrap();
    let mut alone = body(1.0);
    for _ in 0..steps {
        alone.step(&mesh).unwrap();
    }
    let single = -alone.bodies.bodies[0].velocity.y;
    let mut pair = body(1.0 - a - 0.5 * gap);
    let geometry = pair.bodies.bodies[0].geometry.clone();
    let second = RigidBody::new("second", geometry, 1.01, at(1.0 + a + 0.5 * gap));
    pair.insert(&mesh, vec![second]).unwrap();
    // The contact law within a tenth of the gap: the fluid alone between them.
    pair.bodies.contact = contact(0.1 * gap);
    for _ in 0..steps {
        pair.step(&mesh).unwrap();
    }
    let [l, r] = [&pair.bodies.bodies[0], &pair.bodies.bodies[1]];
    let (vl, vr) = (-l.velocity.y, -r.velocity.y);
    let now = (r.position - l.position).norm() - 2.0 * a;
    println!("alone {single:.5}, pair {vl:.5} {vr:.5}, gap {now:.5}");
    assert!((vl - vr).abs() < 0.01 * vl, "{vl} {vr}");
    assert!((now - gap).abs() < 0.1 * gap, "gap {now}");
    assert!(vl > single && vl < 2.0 * single, "{vl} against {single}");
}

/// In creeping flow (here `ν Δt/h²` = 250 and the disk's viscous time `a²/ν` a sixth of a step)
/// one pass of the pressure correction a step is one Uzawa iteration, and a disk released from
/// rest takes about five steps to reach its settling speed as the pressure builds (1.667, 1.096,
/// 1.066, 1.023, 1.004 of Faxén's `U` = 0.045612 at steps 1 to 5); with three passes a step
/// ([`Unsteady::set_pressure_passes`]) it is within 1 % at the second step and within 3.1 % from
/// there (0.993, 1.031, 1.014, 0.993), both within 0.03 % at the eighth. The disk's density is
/// 1.01, so that the body's own inertia, explicit in the coupling, lags by a hundredth of a step.
#[test]
fn pressure_passes_settle_a_disk_in_creeping_flow_within_steps() {
    let file = "meshes/stokes_sedimentation_0.02.msh";
    let mesh = read(file);
    let faxen = 0.045612;
    let speeds = |passes: usize| {
        let centre = Point::<2>::new(1.0, 6.0);
        let mut c = channel_body(
            file,
            &mesh,
            &disk(0.125),
            1.01,
            centre,
            10.0,
            9810.0,
            0.01,
            BodyBoundary::Surface,
        )
        .unwrap();
        c.fluid.set_pressure_passes(passes);
        let v = (0..8)
            .map(|_| {
                c.step(&mesh).unwrap();
                -c.bodies.bodies[0].velocity.y / faxen
            })
            .collect::<Vec<_>>();
        println!("passes {passes}: {} constraint iterations", c.iterations);
        v
    };
    let (one, three) = (speeds(1), speeds(3));
    println!("one pass {one:.4?}\nthree passes {three:.4?}");
    assert!(
        (three[1] - 1.0).abs() < 0.01 && (one[1] - 1.0).abs() > 0.05,
        "second step: {one:?} {three:?}"
    );
    assert!(three.iter().skip(1).all(|u| (u - 1.0).abs() < 0.04), "{three:?}");
    assert!(
        (three[7] - 1.0).abs() < 0.001 && (one[7] - 1.0).abs() < 0.001,
        "{one:?} {three:?}"
    );
}
