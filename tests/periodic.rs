//! Periodic directions: a mesh's faces identified with their images, the fluid's unknowns
//! counted once across them, and the flows that only a periodic domain has in closed form
//! (a channel driven by a body force, Taylor and Green's decaying vortices).

use std::f64::consts::PI;
use tumble::fluid::{solve_steady, BoundaryConditions, FlowField, P2Space, SteadyProblem, Unsteady};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::axis_box;
use tumble::mesh::periodic::{identify, PeriodicFaces};
use tumble::mesh::SimplexMesh;

fn along(axes: &[usize]) -> Vec<PeriodicFaces> {
    axes.iter().map(|&a| PeriodicFaces::of_box(a)).collect()
}

/// Stokes's steady flow driven by the uniform body force `f` (per unit mass, ρ = 1).
fn stokes<const D: usize>(
    mesh: &SimplexMesh<D>,
    space: &P2Space<D>,
    bc: &BoundaryConditions<D>,
    nu: f64,
    f: Vector<D>,
) -> Result<FlowField<D>, tumble::fluid::FluidError> {
    let force = move |_: &Point<D>| f;
    let problem = SteadyProblem {
        kinematic_viscosity: nu,
        density: 1.0,
        force: &force,
        boundary: bc,
        convection: false,
    };
    solve_steady(mesh, space, &problem, 1e-10, 10).map(|(flow, _)| flow)
}

/// `∫ u_x` over the fluid (a quadrature exact to degree 4 on each cell, curved or not).
fn flux_x<const D: usize>(mesh: &SimplexMesh<D>, space: &P2Space<D>, flow: &FlowField<D>) -> f64 {
    let rule = tumble::fluid::Quadrature::<D>::exact_to(4);
    let mut flux = 0.0;
    for c in 0..mesh.num_cells() as u32 {
        let map = space.cell_map(mesh, c);
        for (l, w) in rule.points.iter().zip(&rule.weights) {
            let local = map.at(l);
            let (u, _) = flow.velocity_in_cell(space.dofs(c), &local.phi, &local.grad);
            flux += w * local.measure * u[0];
        }
    }
    flux
}

/// The box's conditions: the periodic faces periodic, the others walls.
fn conditions<const D: usize>(mesh: &SimplexMesh<D>, axes: &[usize]) -> BoundaryConditions<D> {
    let mut bc = BoundaryConditions::<D>::default();
    for a in 0..D {
        for side in ["min", "max"] {
            let m = mesh.facet_marker(&format!("{}{side}", ["x", "y", "z"][a])).unwrap();
            bc = if axes.contains(&a) {
                bc.periodic(m)
            } else {
                bc.no_slip(m)
            };
        }
    }
    bc
}

/// On a box of `n` cells a side periodic along x, a node and its image share their dofs: a
/// vertex dof per node off the upper face, an edge dof per edge up to the period (Euler's
/// count on the cylinder: in 2D `n(n + 1)` vertices and `n(3n + 1)` edges), and the mass
/// matrix still integrates the constant to the area.
#[test]
fn a_periodic_space_counts_each_identified_dof_once() {
    let n = 6;
    let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::new(2.0, 1.0), [n, n]).unwrap();
    let images = identify(&mesh, &along(&[0])).unwrap();
    let space = P2Space::periodic(&mesh, &images);
    assert_eq!(space.vertices, n * (n + 1));
    assert_eq!(space.edges.len(), n * (3 * n + 1));
    // Each dof in the periodic cell, x in [0, 2).
    assert!(space.coordinates().iter().all(|p| p.x >= 0.0 && p.x < 2.0 - 1e-12));
    let torus = identify(&mesh, &along(&[0, 1])).unwrap();
    let space = P2Space::periodic(&mesh, &torus);
    // On the torus: n² vertices, 3n² edges.
    assert_eq!((space.vertices, space.edges.len()), (n * n, 3 * n * n));
    let mesh3 = axis_box::<3>(Point::<3>::zeros(), Point::<3>::repeat(1.0), [3, 4, 5]).unwrap();
    let space3 = P2Space::periodic(&mesh3, &identify(&mesh3, &along(&[0, 1, 2])).unwrap());
    // The 3-torus of the Kuhn lattice: 60 vertices, 7 edges a vertex.
    assert_eq!((space3.vertices, space3.edges.len()), (60, 7 * 60));
}

/// A channel between walls at y = 0 and 1, periodic along x (and z in 3D), driven by a body
/// force `f` along x: Stokes's steady solution is Poiseuille's `u = f y (1 − y) / (2ν)`, a
/// quadratic that the P2 space holds exactly (to the solver's round-off), and the pressure is
/// constant.
#[test]
fn a_periodic_channel_driven_by_a_body_force_carries_poiseuilles_profile() {
    fn check<const D: usize>(cells: [usize; D], axes: &[usize]) {
        let (nu, f) = (0.5, 3.0);
        let mut hi = Point::<D>::repeat(1.0);
        hi[0] = 2.0;
        let mesh = axis_box::<D>(Point::<D>::zeros(), hi, cells).unwrap();
        let space = P2Space::periodic(&mesh, &identify(&mesh, &along(axes)).unwrap());
        let bc = conditions(&mesh, axes);
        let mut g = Vector::<D>::zeros();
        g[0] = f;
        let flow = stokes(&mesh, &space, &bc, nu, g).unwrap();
        let exact = |x: &Point<D>| {
            let mut u = Vector::<D>::zeros();
            u[0] = f * x[1] * (1.0 - x[1]) / (2.0 * nu);
            u
        };
        let worst = space
            .coordinates()
            .iter()
            .zip(&flow.velocity)
            .map(|(x, u)| (u - exact(x)).norm())
            .fold(0.0, f64::max);
        let (lo, hi) = flow
            .pressure
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &p| (a.min(p), b.max(p)));
        println!(
            "D = {D}: worst velocity error {worst:.2e} of {:.3}, pressure range {:.2e}",
            f / (8.0 * nu),
            hi - lo
        );
        assert!(worst < 1e-9 * f / nu, "{worst}");
        assert!(hi - lo < 1e-9 * f, "{}", hi - lo);
    }
    check::<2>([6, 4], &[0]);
    check::<3>([4, 3, 3], &[0, 2]);
}

/// Taylor and Green's vortices in a box periodic both ways, `[0, 2π]²`: `u = (sin x cos y,
/// −cos x sin y) e^{−2νt}`, `p = ¼ (cos 2x + cos 2y) e^{−4νt}`, an exact solution of
/// Navier–Stokes with no boundary at all. Each unsteady scheme (with the convection along the
/// characteristics) follows it to t = 1 within 1 % of the velocity's norm, and the kinetic
/// energy decays as `e^{−4νt}` within 0.5 %.
#[test]
fn taylor_green_vortices_decay_at_their_exact_rate_in_a_doubly_periodic_box() {
    use tumble::fluid::{Convection, Scheme};
    const D: usize = 2;
    let (nu, dt, n) = (0.05, 0.02, 24);
    let side = 2.0 * PI;
    let mesh = axis_box::<D>(Point::<D>::zeros(), Point::<D>::repeat(side), [n, n]).unwrap();
    let space = P2Space::periodic(&mesh, &identify(&mesh, &along(&[0, 1])).unwrap());
    let u =
        |x: &Point<D>, t: f64| Vector::<D>::new(x.x.sin() * x.y.cos(), -x.x.cos() * x.y.sin()) * (-2.0 * nu * t).exp();
    let p = |x: &Point<D>, t: f64| 0.25 * ((2.0 * x.x).cos() + (2.0 * x.y).cos()) * (-4.0 * nu * t).exp();
    let energy = |flow: &FlowField<D>| {
        let (e, _) = flow.l2_errors(&mesh, &space, &|_: &Point<D>| Vector::<D>::zeros(), &|_: &Point<D>| 0.0);
        e * e
    };
    for scheme in [Scheme::PressureCorrection, Scheme::Monolithic] {
        let initial = FlowField {
            velocity: space.coordinates().iter().map(|x| u(x, 0.0)).collect(),
            pressure: space.coordinates()[..space.vertices]
                .iter()
                .map(|x| p(x, 0.0))
                .collect(),
        };
        let bc = conditions(&mesh, &[0, 1]);
        let mut stepper = Unsteady::new(&mesh, space.clone(), nu, dt, bc, initial, 0.0).unwrap();
        stepper.set_convection(Convection::Characteristics);
        stepper.set_scheme(scheme).unwrap();
        let zero = |_: &Point<D>, _: f64| Vector::<D>::zeros();
        let e0 = energy(&stepper.flow);
        for _ in 0..50 {
            stepper.step(&mesh, &zero).unwrap();
        }
        let t = stepper.time;
        let (eu, ep) = stepper
            .flow
            .l2_errors(&mesh, &space, &|x: &Point<D>| u(x, t), &|x: &Point<D>| p(x, t));
        let norm = PI * (-2.0 * nu * t).exp();
        let decay = energy(&stepper.flow) / e0;
        println!(
            "{scheme:?}, t = {t:.2}: velocity error {:.2e} of the norm, pressure error {ep:.2e}; energy {decay:.5} against {:.5}",
            eu / norm,
            (-4.0 * nu * t).exp()
        );
        assert!(eu / norm < 0.01, "{}", eu / norm);
        assert!((decay / (-4.0 * nu * t).exp() - 1.0).abs() < 0.005, "{decay}");
    }
}

/// A steady flow with no condition anywhere has no determined mean velocity: refused, and so is
/// a periodic face given a condition.
#[test]
fn a_flow_periodic_everywhere_or_a_periodic_face_with_a_condition_is_refused() {
    let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::repeat(1.0), [4, 4]).unwrap();
    let space = P2Space::periodic(&mesh, &identify(&mesh, &along(&[0, 1])).unwrap());
    let bc = conditions(&mesh, &[0, 1]);
    let e = stokes(&mesh, &space, &bc, 1.0, Vector::<2>::x())
        .unwrap_err()
        .to_string();
    assert!(e.contains("mean velocity"), "{e}");
    let both = conditions(&mesh, &[0, 1]).no_slip(mesh.facet_marker("xmin").unwrap());
    let e = both.check(&mesh).unwrap_err().to_string();
    assert!(e.contains("xmin") && e.contains("periodic"), "{e}");
}

/// `cases/periodic_channel.toml` (the channel above from a case file, `[domain] periodic =
/// ["x"]`): each wall carries half the body force, `ρ f L H / 2 = 1`, to round-off.
#[test]
fn the_periodic_channel_case_puts_half_the_body_force_on_each_wall() {
    use tumble::case::{run_flow, Case, Control};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/periodic_channel.toml");
    let case = Case::load(&path).unwrap();
    let flow = case.build_flow::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let summary = run_flow(&case, &flow, dir.path(), Control::default()).unwrap();
    let cd = summary.drag_coefficient.unwrap();
    assert!((cd - 1.0).abs() < 1e-9, "{cd}");
}

/// What a periodic domain cannot take is refused naming the key.
#[test]
fn periodic_keys_that_do_not_fit_are_named() {
    use tumble::case::Case;
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/periodic_channel.toml"))
            .unwrap();
    let error = |text: String| -> String {
        let case = match Case::parse(std::path::Path::new("bad.toml"), &text) {
            Ok(c) => c,
            Err(e) => return e.to_string(),
        };
        match case.build_flow::<2>() {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        }
    };
    for (bad, expected) in [
        (
            text.replace("periodic = [\"x\"]", "periodic = [\"w\"]"),
            "`domain.periodic`: unknown axis 'w'",
        ),
        (
            text.replace("periodic = [\"x\"]", "periodic = 3"),
            "`domain.periodic`: expected a list of axes",
        ),
        (
            text.replace("ymin = \"no-slip\"", "ymin = \"no-slip\"\nxmin = \"no-slip\""),
            "`fluid.boundary.xmin`: a periodic face (domain.periodic) takes no condition",
        ),
        (
            text.replace("cells = [8, 6]", "cells = [2, 6]"),
            "three cells across at least",
        ),
        (
            text.replace("periodic = [\"x\"]", "periodic = { x = [\"xmin\", \"ymax\"] }"),
            "a periodic face lies in one plane normal to its axis x",
        ),
    ] {
        let e = error(bad);
        assert!(e.contains(expected), "{e}\nexpected: {expected}");
    }
    // A body in the periodic channel.
    let bodies = text.replace("[fluid]", "[contact]\nlaw = \"collision\"\nrange = 0.01\nrestitution = 0.9\nduration = 1e-3\n\n[[bodies]]\nshape = { type = \"circle\", radius = 0.1 }\ndensity = 2.0\nposition = [1.0, 0.5]\n\n[time]\nstep = 0.01\nend = 0.1\n\n[fluid]").replace("steady = true\n", "");
    let dir = tempfile::tempdir().unwrap();
    // A frame that follows a body moves the mesh, which a periodic domain does not.
    let framed = Case::parse(
        std::path::Path::new("framed.toml"),
        &format!("{bodies}\n[frame]\nfollow = \"b\"\n"),
    )
    .unwrap();
    let flow = framed.build_flow::<2>().unwrap();
    let e = tumble::case::run_immersed(&framed, &flow, dir.path(), tumble::case::Control::default())
        .map(drop)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`frame`: a frame that follows a body moves the mesh with it"),
        "{e}"
    );
}

/// Stokes flow through a square array of cylinders at the volume fraction 0.1: one cylinder in
/// the unit cell of a Gmsh mesh whose sides are meshed as images of each other
/// (`meshes/periodic_cylinder.geo`, ASCII as Gmsh writes it, 3 228 triangles, the cylinder's
/// cells curved), the flow driven by a body force `f` on the fluid. The drag per unit length
/// over `μU` (`U` the mean velocity over the cell) is Sangani and Acrivos's (1982, their
/// Table 1) 24.83 within 0.2 % (24.832 when written); the force the cylinder takes from the periodic flow balances
/// the body force on the fluid, and with the mean pressure gradient's push on the cylinder
/// itself, `f |Φ|`, it is `f` times the cell's area.
#[test]
fn stokes_flow_through_a_square_array_of_cylinders_has_sangani_and_acrivos_drag() {
    use tumble::fluid::boundary_force;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/periodic_cylinder.msh");
    let mesh = tumble::mesh::gmsh::read_dim::<2>(&path).unwrap();
    let faces = [
        PeriodicFaces {
            axis: 0,
            lo: "left".into(),
            hi: "right".into(),
        },
        PeriodicFaces {
            axis: 1,
            lo: "bottom".into(),
            hi: "top".into(),
        },
    ];
    let mut space = P2Space::periodic(&mesh, &identify(&mesh, &faces).unwrap());
    let (phi, nu, f) = (0.1, 1.0, 1.0);
    let a = (phi / PI).sqrt();
    let centre = Point::<2>::new(0.5, 0.5);
    let cylinder = mesh.facet_marker("cylinder").unwrap();
    space
        .curve_boundary(&mesh, &[cylinder], |x| centre + (x - centre).normalize() * a)
        .unwrap();
    let mut bc = BoundaryConditions::<2>::default().no_slip(cylinder);
    for name in ["left", "right", "bottom", "top"] {
        bc = bc.periodic(mesh.facet_marker(name).unwrap());
    }
    let force = |_: &Point<2>| Vector::<2>::new(f, 0.0);
    let flow = stokes(&mesh, &space, &bc, nu, Vector::<2>::new(f, 0.0)).unwrap();
    let drag = boundary_force(&mesh, &space, nu, &force, &flow, None, cylinder).unwrap();
    // The mean velocity over the cell (area 1), the cylinder's inside at rest.
    let flux = flux_x(&mesh, &space, &flow);
    let fluid = 1.0 - phi;
    let total = drag.x + f * phi;
    let ratio = total / (nu * flux);
    println!(
        "drag {:.6} (f |fluid| {fluid:.6}), with the mean gradient's push {total:.6}; mean velocity {flux:.6}; F/(μU) {ratio:.3} (Sangani & Acrivos 24.83)",
        drag.x
    );
    assert!((drag.x / (f * fluid) - 1.0).abs() < 1e-3, "{}", drag.x);
    assert!((ratio / 24.83 - 1.0).abs() < 0.002, "{ratio}");
}

/// The same in 3D: Stokes flow through a simple cubic array of spheres at the volume fraction
/// 0.027, one sphere in the unit cell of a Gmsh mesh whose opposite faces are meshed as images
/// of each other (`meshes/periodic_sphere.geo`, `Periodic Surface`, ASCII, 12 141 tetrahedra,
/// the sphere's cells curved): the drag over Stokes's, `F/(6πμaU)` (`U` the mean velocity over
/// the cell, `F` the body force on the cell), is Zick and Homsy's (1982) 2.008 within 0.5 %
/// (2.0091 when written).
#[test]
fn stokes_flow_through_a_simple_cubic_array_of_spheres_has_zick_and_homsys_drag() {
    use tumble::fluid::boundary_force;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/periodic_sphere.msh");
    let mesh = tumble::mesh::gmsh::read_dim::<3>(&path).unwrap();
    let mut space = P2Space::periodic(&mesh, &identify(&mesh, &along(&[0, 1, 2])).unwrap());
    let (phi, nu, f) = (0.027, 1.0, 1.0);
    let a = (0.75 * phi / PI).cbrt();
    let centre = Point::<3>::repeat(0.5);
    let sphere = mesh.facet_marker("sphere").unwrap();
    space
        .curve_boundary(&mesh, &[sphere], |x| centre + (x - centre).normalize() * a)
        .unwrap();
    let mut bc = BoundaryConditions::<3>::default().no_slip(sphere);
    for face in along(&[0, 1, 2]) {
        for name in [&face.lo, &face.hi] {
            bc = bc.periodic(mesh.facet_marker(name).unwrap());
        }
    }
    let g = Vector::<3>::new(f, 0.0, 0.0);
    let flow = stokes(&mesh, &space, &bc, nu, g).unwrap();
    let drag = boundary_force(&mesh, &space, nu, &move |_: &Point<3>| g, &flow, None, sphere).unwrap();
    let flux = flux_x(&mesh, &space, &flow);
    let k = f / (6.0 * PI * nu * a * flux);
    println!(
        "drag {:.6} (f |fluid| {:.6}); mean velocity {flux:.6}; F/(6πμaU) {k:.4} (Zick & Homsy 2.008)",
        drag.x,
        f * (1.0 - phi)
    );
    assert!((drag.x / (f * (1.0 - phi)) - 1.0).abs() < 5e-3, "{}", drag.x);
    assert!((k / 2.008 - 1.0).abs() < 0.005, "{k}");
}

/// The vorticity written for a periodic flow is the same at a node and at its images (each the
/// average over the cells around all of them): Taylor and Green's `ω = 2 sin x sin y` from its
/// P2 interpolant, within 1.5 % of its peak at every node, the faces' included.
#[test]
fn the_vorticity_is_one_field_across_the_periodic_faces() {
    const D: usize = 2;
    let n = 24;
    let mesh = axis_box::<D>(Point::<D>::zeros(), Point::<D>::repeat(2.0 * PI), [n, n]).unwrap();
    let images = identify(&mesh, &along(&[0, 1])).unwrap();
    let space = P2Space::periodic(&mesh, &images);
    let flow = FlowField {
        velocity: space
            .coordinates()
            .iter()
            .map(|x| Vector::<D>::new(x.x.sin() * x.y.cos(), -x.x.cos() * x.y.sin()))
            .collect(),
        pressure: vec![0.0; space.vertices],
    };
    let w = flow.vorticity(&mesh, &space);
    let mut worst: f64 = 0.0;
    for (v, p) in mesh.points().iter().enumerate() {
        worst = worst.max((w[v].z - 2.0 * p.x.sin() * p.y.sin()).abs());
        let m = images.masters()[v] as usize;
        assert_eq!(w[v], w[m], "node {v} and its master {m}");
    }
    println!("worst vorticity error {worst:.2e} of 2");
    assert!(worst < 0.03, "{worst}");
}
