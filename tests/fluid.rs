//! The fluid solver against exact values: quadrature exactness, and the steady Stokes problem with
//! a manufactured solution converging at the Taylor–Hood orders (velocity O(h³), pressure O(h²)
//! in L2) in 2D and 3D.

use std::f64::consts::PI;
use tumble::fluid::{boundary_force, solve_steady, BoundaryConditions, FlowField, P2Space, Quadrature, SteadyProblem};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::axis_box;
use tumble::SimplexMesh;

/// ∫ λ_0^a λ_1^b λ_2^c (λ_3^d) over the simplex / its measure = D! a! b! c! d! / (a+b+c+d+D)!.
#[test]
fn quadrature_is_exact_to_its_degree() {
    fn fact(n: usize) -> f64 {
        (1..=n).map(|k| k as f64).product()
    }
    fn check<const D: usize>(degree: usize) {
        let rule = Quadrature::<D>::exact_to(degree);
        assert!((rule.weights.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        for a in 0..=degree {
            for b in 0..=degree - a {
                let c = degree - a - b;
                let e = [a, b, if D == 2 { c } else { 0 }, if D == 3 { c } else { 0 }];
                let exact = fact(D) * e.iter().map(|&k| fact(k)).product::<f64>() / fact(e.iter().sum::<usize>() + D);
                let got: f64 = rule
                    .points
                    .iter()
                    .zip(&rule.weights)
                    .map(|(l, w)| w * (0..4).map(|k| l[k].powi(e[k] as i32)).product::<f64>())
                    .sum();
                assert!(
                    (got - exact).abs() < 1e-14,
                    "D = {D}, exponents {e:?}: {got} vs {exact}"
                );
            }
        }
    }
    for degree in 1..=8 {
        check::<2>(degree);
        check::<3>(degree);
    }
}

/// The manufactured velocity `U_a = Π_{b≠a} sin(π x_b)`: divergence-free, as `U_a` does not
/// depend on `x_a`; `ΔU = −(D − 1) π² U`.
fn shape_u<const D: usize>(x: &Point<D>) -> Vector<D> {
    Vector::<D>::from_fn(|a, _| (0..D).filter(|&b| b != a).map(|b| (PI * x[b]).sin()).product())
}

/// `∇U`, `G[a][e] = ∂_e U_a`.
fn grad_shape_u<const D: usize>(x: &Point<D>) -> nalgebra::SMatrix<f64, D, D> {
    nalgebra::SMatrix::<f64, D, D>::from_fn(|a, e| {
        if a == e {
            return 0.0;
        }
        (0..D)
            .filter(|&b| b != a)
            .map(|b| {
                if b == e {
                    PI * (PI * x[b]).cos()
                } else {
                    (PI * x[b]).sin()
                }
            })
            .product()
    })
}

/// The manufactured pressure `P = Π_b cos(π x_b)`.
fn shape_p<const D: usize>(x: &Point<D>) -> f64 {
    (0..D).map(|b| (PI * x[b]).cos()).product()
}

/// `∇P`.
fn grad_shape_p<const D: usize>(x: &Point<D>) -> Vector<D> {
    Vector::<D>::from_fn(|a, _| {
        (0..D)
            .map(|b| {
                if b == a {
                    -PI * (PI * x[b]).sin()
                } else {
                    (PI * x[b]).cos()
                }
            })
            .product()
    })
}

/// Steady problem with `u = U`, `p = P`, so `f = ν (D − 1) π² U + ∇P` (+ `(U·∇)U` with
/// convection).
fn manufactured<const D: usize>(n: usize, nu: f64, convection: bool) -> (f64, f64, usize) {
    let (u, p, grad_u, grad_p) = (shape_u::<D>, shape_p::<D>, grad_shape_u::<D>, grad_shape_p::<D>);
    let f = move |x: &Point<D>| {
        let mut f = u(x) * (nu * (D as f64 - 1.0) * PI * PI) + grad_p(x);
        if convection {
            f += grad_u(x) * u(x);
        }
        f
    };
    let mesh = axis_box::<D>(Point::<D>::zeros(), Point::<D>::repeat(1.0), [n; D]).unwrap();
    let space = P2Space::new(&mesh);
    let mut bc = BoundaryConditions::<D>::default();
    for m in 1..=2 * D as i32 {
        bc = bc.velocity(m, move |x: &Point<D>, _| u(x));
    }
    let problem = SteadyProblem {
        kinematic_viscosity: nu,
        density: 1.0,
        force: &f,
        boundary: &bc,
        convection,
    };
    let (sol, iterations) = solve_steady(&mesh, &space, &problem, 1e-10, 20).unwrap();
    assert!(
        !convection || (2..=6).contains(&iterations),
        "Newton took {iterations} iterations"
    );
    let (eu, ep) = sol.l2_errors(&mesh, &space, &u, &p);
    (eu, ep, D * space.len() + mesh.num_points())
}

fn orders(errors: &[(f64, f64, usize)]) -> Vec<(f64, f64)> {
    errors
        .windows(2)
        .map(|w| ((w[0].0 / w[1].0).log2(), (w[0].1 / w[1].1).log2()))
        .collect()
}

#[test]
fn stokes_2d_converges_at_taylor_hood_orders() {
    let errors: Vec<(f64, f64, usize)> = [8, 16, 32].iter().map(|&n| manufactured::<2>(n, 0.7, false)).collect();
    let o = orders(&errors);
    println!("2D: {errors:?}\norders {o:?}");
    for (ou, op) in o {
        assert!(ou > 2.85 && op > 1.85, "orders {ou} {op}");
    }
    assert!(errors[2].0 < 1e-4);
}

#[test]
fn stokes_3d_converges_at_taylor_hood_orders() {
    let errors: Vec<(f64, f64, usize)> = [4, 8].iter().map(|&n| manufactured::<3>(n, 0.7, false)).collect();
    let o = orders(&errors);
    println!("3D: {errors:?}\norders {o:?}");
    let (ou, op) = o[0];
    assert!(ou > 2.7 && op > 1.7, "orders {ou} {op}");
}

/// The same solution with the convection term (Navier–Stokes, ν = 0.05): Newton converges in a
/// few iterations and the orders stay those of Taylor–Hood.
#[test]
fn navier_stokes_2d_converges_at_taylor_hood_orders() {
    let errors: Vec<(f64, f64, usize)> = [8, 16, 32].iter().map(|&n| manufactured::<2>(n, 0.05, true)).collect();
    let o = orders(&errors);
    println!("2D Navier–Stokes: {errors:?}\norders {o:?}");
    for (ou, op) in o {
        assert!(ou > 2.8 && op > 1.8, "orders {ou} {op}");
    }
}

/// Steady Navier–Stokes without body force at viscosity `nu` (tolerance 1e-10): the flow, the
/// Newton steps and the seconds taken.
fn navier_stokes(
    mesh: &SimplexMesh<2>,
    space: &P2Space<2>,
    bc: &BoundaryConditions<2>,
    nu: f64,
    max_steps: usize,
) -> (FlowField<2>, usize, f64) {
    let zero = |_: &Point<2>| Vector::<2>::zeros();
    let problem = SteadyProblem {
        kinematic_viscosity: nu,
        density: 1.0,
        force: &zero,
        boundary: bc,
        convection: true,
    };
    let start = std::time::Instant::now();
    let (flow, steps) = solve_steady(mesh, space, &problem, 1e-10, max_steps).unwrap();
    (flow, steps, start.elapsed().as_secs_f64())
}

/// Schäfer–Turek 2D-1 (steady, Re = 20) on the committed coarse (1 008 triangles) and medium (4 541)
/// meshes: drag, lift and pressure difference against the reference values 5.57953523384,
/// 0.010618948146, 0.11752016697 (relative tolerances: coarse 0.6 %, 3 %, 0.5 %; medium 0.2 %, 1 %,
/// 0.1 %; the issue asks 0.5 %, 5 %, 1 % on up to 50 000 triangles).
#[test]
fn schafer_turek_2d1_drag_lift_and_pressure_difference() {
    for (file, drag_tol, lift_tol, dp_tol) in [
        ("meshes/schafer_turek_2d_coarse.msh", 0.006, 0.03, 0.005),
        ("meshes/schafer_turek_2d_medium.msh", 0.002, 0.01, 0.001),
    ] {
        let mesh = tumble::mesh::gmsh::read_dim::<2>(std::path::Path::new(file)).unwrap();
        let space = P2Space::new(&mesh);
        let marker = |name: &str| mesh.facet_marker(name).unwrap();
        let bc = BoundaryConditions::<2>::default()
            .velocity(marker("inlet"), |x: &Point<2>, _| {
                Vector::<2>::new(4.0 * 0.3 * x.y * (0.41 - x.y) / (0.41 * 0.41), 0.0)
            })
            .no_slip(marker("walls"))
            .no_slip(marker("cylinder"))
            .outflow(marker("outlet"));
        let zero = |_: &Point<2>| Vector::<2>::zeros();
        let (flow, iterations, seconds) = navier_stokes(&mesh, &space, &bc, 1e-3, 20);
        let force = boundary_force(&mesh, &space, 1e-3, &zero, &flow, None, marker("cylinder")).unwrap();
        // c = 2 F / (ρ U_mean² D), U_mean = 0.2, D = 0.1.
        let (cd, cl) = (force.x * 500.0, force.y * 500.0);
        let pressure_at = |x: Point<2>| flow.pressure_at(&mesh, &space, &x).expect("inside the channel");
        let dp = pressure_at(Point::<2>::new(0.15, 0.2)) - pressure_at(Point::<2>::new(0.25, 0.2));
        let (ed, el, ep) = (
            (cd / 5.57953523384 - 1.0).abs(),
            (cl / 0.010618948146 - 1.0).abs(),
            (dp / 0.11752016697 - 1.0).abs(),
        );
        println!(
            "{file}: {} cells, {iterations} Newton iterations, {:.2} s: c_D {cd:.5} ({ed:.1e}), c_L {cl:.5} ({el:.1e}), Δp {dp:.5} ({ep:.1e})",
            mesh.num_cells(),
            seconds
        );
        assert!(ed < drag_tol && el < lift_tol && ep < dp_tol);
    }
}

/// Time-dependent manufactured solution `u = U(x) cos t`, `p = P(x) cos t` (U, P as above) with
/// convection, ν = 0.1, to T = 1: the BDF2 error falls at second order in Δt. By pressure
/// correction (the convection extrapolated or by characteristics) the error against the exact
/// solution does, its splitting error dominating the spatial one. The monolithic scheme has no
/// splitting error: its error at Δt = 0.1 is already below the pressure correction's at 0.025
/// (the spatial error of the 16 × 16 mesh), so its order is measured against its own solution at
/// Δt / 8 (velocity and pressure, nodal maximum norm, pressures less their means).
#[test]
fn unsteady_navier_stokes_is_second_order_in_time() {
    use tumble::fluid::{Convection, Scheme};
    let mut finest = f64::INFINITY;
    for (scheme, convection) in [
        (Scheme::PressureCorrection, Convection::Extrapolated),
        (Scheme::PressureCorrection, Convection::Characteristics),
        (Scheme::ProjectedCorrection, Convection::Characteristics),
    ] {
        println!("{scheme:?}, {convection:?}");
        let runs: Vec<_> = [0.1, 0.05, 0.025]
            .iter()
            .map(|&dt| manufactured_unsteady(scheme, convection, dt))
            .collect();
        let errors: Vec<_> = runs.iter().map(|r| r.exact_errors).collect();
        let orders = observed_orders(&errors);
        for (ou, _) in &orders {
            assert!(*ou > 1.7, "{scheme:?}, {convection:?}: velocity order {ou}");
        }
        assert!(
            orders.last().unwrap().1 > 1.3,
            "{scheme:?}, {convection:?}: pressure order"
        );
        finest = finest.min(errors.last().unwrap().0);
    }
    println!("Monolithic");
    let runs: Vec<_> = [0.1, 0.05, 0.025, 0.0125]
        .iter()
        .map(|&dt| manufactured_unsteady(Scheme::Monolithic, Convection::Extrapolated, dt))
        .collect();
    assert!(
        runs[0].exact_errors.0 < finest,
        "monolithic at Δt = 0.1: velocity error {:e}, pressure correction at 0.025: {finest:e}",
        runs[0].exact_errors.0
    );
    let reference = &runs[3].flow;
    let errors: Vec<(f64, f64)> = runs[..3].iter().map(|r| nodal_difference(&r.flow, reference)).collect();
    for (ou, op) in observed_orders(&errors) {
        assert!(
            ou > 1.8 && op > 1.8,
            "monolithic: orders {ou}, {op} against Δt = 0.0125"
        );
    }
}

/// A run of the manufactured unsteady flow to t = 1: the flow and its L2 errors (velocity,
/// pressure) against the exact solution.
struct UnsteadyRun {
    flow: tumble::fluid::FlowField<2>,
    exact_errors: (f64, f64),
}

/// The manufactured unsteady flow on 16 × 16 squares with step `dt`.
fn manufactured_unsteady(scheme: tumble::fluid::Scheme, convection: tumble::fluid::Convection, dt: f64) -> UnsteadyRun {
    use tumble::fluid::{FlowField, Unsteady};
    const D: usize = 2;
    let nu = 0.1;
    let (shape_u, shape_p, grad_u, grad_p) = (shape_u::<D>, shape_p::<D>, grad_shape_u::<D>, grad_shape_p::<D>);
    let f = move |x: &Point<D>, t: f64| {
        -shape_u(x) * t.sin()
            + shape_u(x) * (nu * (D as f64 - 1.0) * PI * PI * t.cos())
            + grad_u(x) * shape_u(x) * t.cos().powi(2)
            + grad_p(x) * t.cos()
    };
    let mesh = axis_box::<D>(Point::<D>::zeros(), Point::<D>::repeat(1.0), [16; D]).unwrap();
    let mut bc = BoundaryConditions::<D>::default();
    for m in 1..=2 * D as i32 {
        bc = bc.velocity(m, move |x: &Point<D>, t| shape_u(x) * t.cos());
    }
    let space = P2Space::new(&mesh);
    let initial = FlowField {
        velocity: space.coordinates().iter().map(shape_u).collect(),
        pressure: mesh.points().iter().map(shape_p).collect(),
    };
    let mut stepper = Unsteady::new(&mesh, space.clone(), nu, dt, bc, initial, 0.0).unwrap();
    stepper.set_convection(convection);
    stepper.set_scheme(scheme).unwrap();
    let steps = (1.0 / dt).round() as usize;
    for _ in 0..steps {
        stepper.step(&mesh, &f).unwrap();
    }
    let t = stepper.time;
    let exact_errors = stepper
        .flow
        .l2_errors(&mesh, &space, &|x: &Point<D>| shape_u(x) * t.cos(), &|x: &Point<D>| {
            shape_p(x) * t.cos()
        });
    println!(
        "Δt = {dt}: t = {t:.3}, velocity error {:.3e}, pressure error {:.3e}, setup {:.3} s, per step assembly {:.2} ms solve {:.2} ms",
        exact_errors.0,
        exact_errors.1,
        stepper.seconds.setup,
        stepper.seconds.assembly / steps as f64 * 1e3,
        stepper.seconds.solve / steps as f64 * 1e3
    );
    UnsteadyRun {
        flow: stepper.flow,
        exact_errors,
    }
}

/// The largest nodal differences (velocity, pressure less its mean) between two flows on one mesh.
fn nodal_difference(a: &tumble::fluid::FlowField<2>, b: &tumble::fluid::FlowField<2>) -> (f64, f64) {
    let mean = |p: &[f64]| p.iter().sum::<f64>() / p.len() as f64;
    let (ma, mb) = (mean(&a.pressure), mean(&b.pressure));
    let eu = a
        .velocity
        .iter()
        .zip(&b.velocity)
        .map(|(u, v)| (u - v).amax())
        .fold(0.0, f64::max);
    let ep = a
        .pressure
        .iter()
        .zip(&b.pressure)
        .map(|(p, q)| (p - ma - q + mb).abs())
        .fold(0.0, f64::max);
    (eu, ep)
}

/// The observed orders between successive halvings of the step.
fn observed_orders(errors: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let orders: Vec<(f64, f64)> = errors
        .windows(2)
        .map(|w| ((w[0].0 / w[1].0).log2(), (w[0].1 / w[1].1).log2()))
        .collect();
    let shown: Vec<String> = errors.iter().map(|(u, p)| format!("({u:.2e}, {p:.2e})")).collect();
    println!("errors {}, orders {orders:.3?}", shown.join(" "));
    orders
}

/// Plane Poiseuille flow driven by a pressure drop alone: channel [0, 2] × [0, 1], `p = Δp` on the
/// inlet (x = 0), `p = 0` on the outlet, no slip on y = 0 and y = 1. The exact solution,
/// `u = Δp/(2νL) y (1 − y)`, `p = Δp (1 − x/L)`, lies in the Taylor–Hood space, so the steady
/// solve (Stokes and Navier–Stokes) must reproduce it to round-off, and the time stepper, started
/// from rest, must reach it.
#[test]
fn pressure_drop_drives_poiseuille_flow() {
    use tumble::fluid::{FlowField, Scheme, Unsteady};
    let (nu, drop, length) = (0.5, 3.0, 2.0);
    let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::new(length, 1.0), [8, 4]).unwrap();
    let space = P2Space::new(&mesh);
    let bc = BoundaryConditions::<2>::default()
        .pressure(1, drop)
        .pressure(2, 0.0)
        .no_slip(3)
        .no_slip(4);
    let exact_u = |x: &Point<2>| Vector::<2>::new(drop / (2.0 * nu * length) * x.y * (1.0 - x.y), 0.0);
    let exact_p = |x: &Point<2>| drop * (1.0 - x.x / length);
    let errors = |flow: &FlowField<2>| {
        let eu = space
            .coordinates()
            .iter()
            .zip(&flow.velocity)
            .map(|(x, u)| (u - exact_u(x)).amax())
            .fold(0.0, f64::max);
        let ep = mesh
            .points()
            .iter()
            .zip(&flow.pressure)
            .map(|(x, p)| (p - exact_p(x)).abs())
            .fold(0.0, f64::max);
        (eu, ep)
    };
    for convection in [false, true] {
        let problem = SteadyProblem {
            kinematic_viscosity: nu,
            density: 1.0,
            force: &|_: &Point<2>| Vector::<2>::zeros(),
            boundary: &bc,
            convection,
        };
        let (flow, _) = solve_steady(&mesh, &space, &problem, 1e-12, 10).unwrap();
        let (eu, ep) = errors(&flow);
        println!("steady (convection {convection}): max velocity error {eu:.2e}, max pressure error {ep:.2e}");
        assert!(eu < 1e-12 && ep < 1e-11, "steady: {eu:e}, {ep:e}");
    }
    for scheme in [Scheme::PressureCorrection, Scheme::Monolithic] {
        let rest = FlowField {
            velocity: vec![Vector::<2>::zeros(); space.len()],
            pressure: vec![0.0; mesh.num_points()],
        };
        let mut stepper = Unsteady::new(&mesh, space.clone(), nu, 0.02, bc.clone(), rest, 0.0).unwrap();
        stepper.set_scheme(scheme).unwrap();
        // The slowest mode decays as exp(−ν π² t): by t = 4 it is below 1e-8.
        for _ in 0..200 {
            stepper.step(&mesh, &|_: &Point<2>, _| Vector::<2>::zeros()).unwrap();
        }
        let (eu, ep) = errors(&stepper.flow);
        println!(
            "unsteady, {scheme:?}, t = {:.1}: max velocity error {eu:.2e}, max pressure error {ep:.2e}",
            stepper.time
        );
        assert!(eu < 1e-6 && ep < 1e-5, "unsteady, {scheme:?}: {eu:e}, {ep:e}");
        // A constraint inside the step needs the pressure correction's split.
        let none = tumble::fluid::Carried {
            dofs: &[],
            loads: &[],
            previous: &[],
        };
        let zero = |_: &Point<2>, _: f64| Vector::<2>::zeros();
        let constrained = stepper.step_constrained(&mesh, &zero, none, &mut |_, _| {});
        assert_eq!(constrained.is_err(), scheme == Scheme::Monolithic, "{scheme:?}");
    }
}

/// Poiseuille flow driven by its inflow profile `u = 4U y(1 − y)` (outflow at p = 0): the
/// steady Stokes pressure `8νU(L − x)` is exact in P1. One step from rest, long against the
/// viscous time of a cell (`ν Δt/h²` = 1600) and of the channel, is the steady Stokes problem:
/// a pass of the pressure correction is one Uzawa iteration for it, whose slowest mode here is
/// the channel's pressure drop itself (the flow a pressure gradient drives is nearly
/// divergence-free: the same mode as the squeeze flow in a narrow gap), so one pass leaves
/// almost all of the pressure to later steps, and the passes of a step bring it in
/// ([`Unsteady::set_pressure_passes`]): 0.99, 0.98, 0.81 and 0.04 of it missing after 1, 2, 4
/// and 8 (the passes' Anderson mixing).
#[test]
fn pressure_passes_converge_a_step_to_the_stokes_pressure() {
    use tumble::fluid::{FlowField, Scheme, Unsteady};
    let (nu, speed, length, dt) = (1.0, 1.0, 2.0, 100.0);
    let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::new(length, 1.0), [8, 4]).unwrap();
    let space = P2Space::new(&mesh);
    let bc = BoundaryConditions::<2>::default()
        .velocity(1, move |x: &Point<2>, _| {
            Vector::<2>::new(4.0 * speed * x.y * (1.0 - x.y), 0.0)
        })
        .outflow(2)
        .no_slip(3)
        .no_slip(4);
    let exact = |x: &Point<2>| 8.0 * nu * speed * (length - x.x);
    let error = |passes: usize, scheme: Scheme| {
        let rest = FlowField {
            velocity: vec![Vector::<2>::zeros(); space.len()],
            pressure: vec![0.0; mesh.num_points()],
        };
        let mut stepper = Unsteady::new(&mesh, space.clone(), nu, dt, bc.clone(), rest, 0.0).unwrap();
        stepper.set_scheme(scheme).unwrap();
        stepper.set_pressure_passes(passes);
        stepper.step(&mesh, &|_: &Point<2>, _| Vector::<2>::zeros()).unwrap();
        let top = 8.0 * nu * speed * length;
        mesh.points()
            .iter()
            .zip(&stepper.flow.pressure)
            .map(|(x, p)| (p - exact(x)).abs() / top)
            .fold(0.0, f64::max)
    };
    for scheme in [Scheme::PressureCorrection, Scheme::ProjectedCorrection] {
        let errors: Vec<f64> = [1, 2, 4, 8].iter().map(|&n| error(n, scheme)).collect();
        println!("{scheme:?}: the pressure's largest error over 8νUL after 1, 2, 4, 8 passes: {errors:.3?}");
        assert!(errors[0] > 0.9, "one pass: {errors:?}");
        assert!(errors.windows(2).all(|w| w[1] < w[0]), "{errors:?}");
        assert!(errors[3] < 0.05, "eight passes: {errors:?}");
    }
}

/// The same pressure `c` on every face of a box but one (no slip there, which removes the
/// translations), no force: the fluid stays at rest and the pressure is `c` everywhere, which holds
/// only if every face's load `−∫ c φ_i n` has the right sign and weight (2D and 3D).
#[test]
fn uniform_boundary_pressure_leaves_the_fluid_at_rest() {
    fn check<const D: usize>() {
        let c = 2.5;
        let mesh = axis_box::<D>(Point::<D>::zeros(), Point::<D>::repeat(1.0), [3; D]).unwrap();
        let space = P2Space::new(&mesh);
        let mut bc = BoundaryConditions::<D>::default().no_slip(1);
        for m in 2..=2 * D as i32 {
            bc = bc.pressure(m, c);
        }
        let problem = SteadyProblem {
            kinematic_viscosity: 1.0,
            density: 1.0,
            force: &|_: &Point<D>| Vector::<D>::zeros(),
            boundary: &bc,
            convection: false,
        };
        let (flow, _) = solve_steady(&mesh, &space, &problem, 1e-12, 10).unwrap();
        let eu = flow.velocity.iter().map(|u| u.amax()).fold(0.0, f64::max);
        let ep = flow.pressure.iter().map(|p| (p - c).abs()).fold(0.0, f64::max);
        println!("{D}D: max |u| {eu:.2e}, max |p − c| {ep:.2e}");
        assert!(eu < 1e-12 && ep < 1e-12, "{D}D: {eu:e} {ep:e}");
    }
    check::<2>();
    check::<3>();
}

/// Curved (isoparametric P2) cells: the area of a disk and the volume of a ball summed by
/// quadrature over the cells converge at order 4 with the boundary cells curved onto the sphere,
/// against order 2 for the polygon (polyhedron) of straight cells.
#[test]
fn curved_cells_integrate_the_disk_and_ball_to_fourth_order() {
    use tumble::mesh::generate::{ball, Sphere};
    fn measure<const D: usize>(h: f64, curved: bool) -> f64 {
        let mesh = ball::<D>(&[Sphere::new(Point::<D>::zeros(), 1.0, "sphere")], false, h).unwrap();
        let mut space = P2Space::new(&mesh);
        if curved {
            let m = mesh.facet_marker("sphere").unwrap();
            space.curve_boundary(&mesh, &[m], |x| x.normalize()).unwrap();
        }
        let rule = Quadrature::<D>::exact_to(4);
        (0..mesh.num_cells() as u32)
            .map(|c| {
                let map = space.cell_map(&mesh, c);
                rule.points
                    .iter()
                    .zip(&rule.weights)
                    .map(|(l, w)| w * map.at(l).measure)
                    .sum::<f64>()
            })
            .sum()
    }
    fn check<const D: usize>(exact: f64, hs: [f64; 2], orders: [f64; 2]) {
        for (curved, order) in [(false, orders[0]), (true, orders[1])] {
            let e: Vec<f64> = hs.iter().map(|&h| (measure::<D>(h, curved) - exact).abs()).collect();
            let observed = (e[0] / e[1]).ln() / (hs[0] / hs[1]).ln();
            println!(
                "{D}D curved {curved}: errors {:.2e}, {:.2e}, order {observed:.2}",
                e[0], e[1]
            );
            assert!(observed > order, "{D}D curved {curved}: order {observed}");
        }
    }
    check::<2>(PI, [0.2, 0.1], [1.8, 3.6]);
    check::<3>(4.0 / 3.0 * PI, [0.4, 0.2], [1.8, 3.3]);
}

/// Stokes drag on a sphere (radius a = 1) translating with U = 1 inside a fixed concentric sphere
/// (b = 2), an exact solution: `F = 6πμaU K(λ)`, `λ = a/b`, with Happel and Brenner's wall factor
/// `K = (1 − λ⁵)/(1 − 9λ/4 + 5λ³/2 − 9λ⁵/4 + λ⁶)`, checked here against the factor derived from
/// the stream function `ψ = sin²θ (A r⁴ + B r² + C r + D/r)` (no slip on both spheres) and its
/// Stokeslet drag `8πμC`. On the generated shell with h = 0.4 (3 138 tetrahedra) and both spheres'
/// cells curved, the drag is within 1.5 % (the issue asks 3 %; `examples/stokes_sphere.rs` shows
/// 0.45 % at h = 0.3 and 0.11 % at h = 0.2).
#[test]
fn stokes_drag_on_a_sphere_in_a_spherical_container() {
    use tumble::mesh::generate::{ball, Sphere};
    let (a, b, mu, u) = (1.0, 2.0, 1.0, 1.0);
    let lambda: f64 = a / b;
    let k =
        (1.0 - lambda.powi(5)) / (1.0 - 2.25 * lambda + 2.5 * lambda.powi(3) - 2.25 * lambda.powi(5) + lambda.powi(6));
    // f(r) = A r⁴ + B r² + C r + D/r with f(a) = U a²/2, f'(a) = U a, f(b) = f'(b) = 0.
    let row = |r: f64| [r.powi(4), r * r, r, 1.0 / r];
    let slope = |r: f64| [4.0 * r.powi(3), 2.0 * r, 1.0, -1.0 / (r * r)];
    let m = nalgebra::Matrix4::from_rows(&[row(a).into(), slope(a).into(), row(b).into(), slope(b).into()]);
    let coefficients = m
        .lu()
        .solve(&nalgebra::Vector4::new(u * a * a / 2.0, u * a, 0.0, 0.0))
        .unwrap();
    let k_derived = coefficients[2] / (0.75 * a * u);
    assert!((k - k_derived).abs() < 1e-12 * k, "{k} vs {k_derived}");

    let exact = 6.0 * PI * mu * a * u * k;
    let mesh = ball::<3>(
        &[
            Sphere::new(Point::<3>::zeros(), a, "sphere"),
            Sphere::new(Point::<3>::zeros(), b, "container"),
        ],
        true,
        0.4,
    )
    .unwrap();
    let (sphere, container) = (
        mesh.facet_marker("sphere").unwrap(),
        mesh.facet_marker("container").unwrap(),
    );
    let mut space = P2Space::new(&mesh);
    space.curve_boundary(&mesh, &[sphere], |x| x.normalize() * a).unwrap();
    space
        .curve_boundary(&mesh, &[container], |x| x.normalize() * b)
        .unwrap();
    let bc = BoundaryConditions::<3>::default()
        .velocity(sphere, move |_: &Point<3>, _| Vector::<3>::new(u, 0.0, 0.0))
        .no_slip(container);
    let zero = |_: &Point<3>| Vector::<3>::zeros();
    let problem = SteadyProblem {
        kinematic_viscosity: mu,
        density: 1.0,
        force: &zero,
        boundary: &bc,
        convection: false,
    };
    let (flow, _) = solve_steady(&mesh, &space, &problem, 1e-10, 1).unwrap();
    let force = boundary_force(&mesh, &space, mu, &zero, &flow, None, sphere).unwrap();
    let error = -force.x / exact - 1.0;
    println!(
        "K = {k:.6}; drag {:.4} against {exact:.4}: error {:.2} %, lateral force {:.1e}",
        -force.x,
        error * 100.0,
        force.y.hypot(force.z)
    );
    assert!(error.abs() < 0.015, "{error}");
    assert!(force.y.hypot(force.z) < 0.01 * exact);
}

/// The lid-driven cavity at Re = 1000 (unit square, lid velocity 1, ν = 1e-3, the lid's corners
/// moving). Newton from the Stokes flow does not converge here (plain Newton failed in 30
/// iterations); the steady solver gets there by its line search and a start from the flow at
/// twice the viscosity. The centreline extrema converge at first order (the lid's discontinuity at
/// the corners), so they are extrapolated from 24 × 24 and 48 × 48 squares (Richardson, `2 u_48 −
/// u_24`) and compared with Botella and Peyret's spectral values (Comput. Fluids 27, 1998):
/// u_min = −0.3885698 on x = 0.5, v_max = 0.3769447 and v_min = −0.5270771 on y = 0.5, within
/// 2 % (measured: 1.2, 1.3 and 0.7 %; from 32 and 64 squares 0.6 % each).
#[test]
fn lid_driven_cavity_at_re_1000_matches_botella_and_peyret() {
    let extrema = |n: usize| {
        let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::repeat(1.0), [n, n]).unwrap();
        let space = P2Space::new(&mesh);
        let marker = |name: &str| mesh.facet_marker(name).unwrap();
        let bc = BoundaryConditions::<2>::default()
            .no_slip(marker("xmin"))
            .no_slip(marker("xmax"))
            .no_slip(marker("ymin"))
            .velocity(marker("ymax"), |_: &Point<2>, _| Vector::<2>::new(1.0, 0.0));
        let (flow, steps, seconds) = navier_stokes(&mesh, &space, &bc, 1e-3, 30);
        let velocity_at = |x: Point<2>| {
            let found = mesh.locate(&x).expect("inside the cavity");
            let l = [found.weights[0], found.weights[1], found.weights[2], 0.0];
            let phi = space.cell_map(&mesh, found.cell).at(&l).phi;
            space
                .dofs(found.cell)
                .iter()
                .zip(&phi)
                .map(|(&k, w)| flow.velocity[k as usize] * *w)
                .sum::<Vector<2>>()
        };
        let line = |f: &dyn Fn(f64) -> f64| (0..=400).map(|k| f(k as f64 / 400.0)).collect::<Vec<_>>();
        let u = line(&|y| velocity_at(Point::<2>::new(0.5, y)).x);
        let v = line(&|x| velocity_at(Point::<2>::new(x, 0.5)).y);
        let found = [
            u.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            v.iter().copied().fold(f64::INFINITY, f64::min),
        ];
        println!("cavity Re 1000, {n} × {n}: {steps} Newton steps, {seconds:.2} s: u_min, v_max, v_min {found:.5?}");
        found
    };
    let (coarse, fine) = (extrema(24), extrema(48));
    for ((c, f), reference) in coarse.iter().zip(&fine).zip([-0.3885698, 0.3769447, -0.5270771]) {
        let extrapolated = 2.0 * f - c;
        println!("extrapolated {extrapolated:.5} against {reference}");
        assert!(
            (f - reference).abs() < 0.6 * (c - reference).abs(),
            "no convergence: {c}, {f}"
        );
        assert!(
            (extrapolated / reference - 1.0).abs() < 0.02,
            "{extrapolated} against {reference}"
        );
    }
}

/// The iterative path (AMG-preconditioned CG, the P1 level under P2 for the velocity) solves the
/// same discrete systems as the Cholesky factors: in a 3D box of 10³ cubes (9 261 P2 nodes, so
/// the multigrid has levels) with a parabolic inflow, five steps give the same velocity to 1e-6
/// of its largest value and the same pressure to 1e-5 of its range.
#[test]
fn iterative_and_direct_solvers_give_the_same_3d_flow() {
    use tumble::fluid::Unsteady;
    use tumble::linalg::SpdMethod;
    const D: usize = 3;
    let mesh = axis_box::<D>(Point::<D>::zeros(), Point::<D>::repeat(1.0), [10; D]).unwrap();
    let flow = |method: SpdMethod| {
        let mut bc = BoundaryConditions::<D>::default()
            .velocity(mesh.facet_marker("zmin").unwrap(), |x: &Point<D>, _| {
                Vector::<D>::new(0.0, 0.0, 16.0 * x[0] * (1.0 - x[0]) * x[1] * (1.0 - x[1]))
            })
            .outflow(mesh.facet_marker("zmax").unwrap());
        for side in ["xmin", "xmax", "ymin", "ymax"] {
            bc = bc.no_slip(mesh.facet_marker(side).unwrap());
        }
        let space = P2Space::new(&mesh);
        let rest = FlowField {
            velocity: vec![Vector::<D>::zeros(); space.len()],
            pressure: vec![0.0; mesh.num_points()],
        };
        let mut stepper = Unsteady::with_method(&mesh, space, (0.01, 0.01), bc, (rest, 0.0), method).unwrap();
        let still = |_: &Point<D>, _: f64| Vector::<D>::zeros();
        for _ in 0..5 {
            stepper.step(&mesh, &still).unwrap();
        }
        (stepper.solvers(), stepper.iterations(), stepper.flow)
    };
    let (direct_solvers, _, direct) = flow(SpdMethod::Direct);
    let (iterative_solvers, iterations, iterative) = flow(SpdMethod::Iterative);
    assert_eq!(direct_solvers.velocity, "cholesky");
    assert_eq!(iterative_solvers.velocity, "amg-cg");
    assert!(iterations.0 <= 15 && iterations.1 <= 20, "iterations {iterations:?}");
    let largest = direct.velocity.iter().map(|u| u.norm()).fold(0.0, f64::max);
    let du = direct
        .velocity
        .iter()
        .zip(&iterative.velocity)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    let range = direct.pressure.iter().fold(f64::NEG_INFINITY, |m, &p| m.max(p))
        - direct.pressure.iter().fold(f64::INFINITY, |m, &p| m.min(p));
    let dp = direct
        .pressure
        .iter()
        .zip(&iterative.pressure)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!(
        "largest |u| {largest:.4}, |Δu| {du:.3e}, pressure range {range:.4}, |Δp| {dp:.3e}, iterations {iterations:?}"
    );
    assert!(largest > 0.5 && du < 1e-6 * largest, "|Δu| {du:e} of {largest}");
    assert!(dp < 1e-5 * range, "|Δp| {dp:e} of {range}");
}
