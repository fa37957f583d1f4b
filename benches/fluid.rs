//! Time per step of the unsteady Navier–Stokes solver (BDF2 pressure correction, matrices factored
//! once) on the sizes: the falling-ellipse box [0, 2] × [0, 6] at h = 0.0625, 0.03125
//! (24 576 triangles), h/2 (98 304) and h/4 (393 216), and 3D boxes of 49 152 and 96 000
//! tetrahedra. A fluid at rest
//! with a parabolic inflow from the bottom and free outflow at the top, 10 steps; the setup
//! (assembly and factorisation, once) is reported apart.
//!
//! Run: `cargo bench --bench fluid`.

use std::time::Instant;
use tumble::fluid::{BoundaryConditions, FlowField, P2Space, Unsteady};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::axis_box;
use tumble::SimplexMesh;

fn run<const D: usize>(name: &str, mesh: &SimplexMesh<D>) {
    let (ymin, ymax) = (mesh.facet_marker("ymin").unwrap(), mesh.facet_marker("ymax").unwrap());
    let mut bc = BoundaryConditions::<D>::default()
        .velocity(ymin, |x: &Point<D>, _| {
            Vector::<D>::from_fn(|a, _| if a == 1 { x[0] * (2.0 - x[0]) } else { 0.0 })
        })
        .outflow(ymax);
    for name in ["xmin", "xmax", "zmin", "zmax"] {
        if let Ok(m) = mesh.facet_marker(name) {
            bc = bc.no_slip(m);
        }
    }
    let start = Instant::now();
    let space = P2Space::new(mesh);
    let initial = FlowField {
        velocity: vec![Vector::<D>::zeros(); space.len()],
        pressure: vec![0.0; mesh.num_points()],
    };
    let mut stepper = Unsteady::new(mesh, space, 0.1, 1e-3, bc, initial, 0.0).unwrap();
    let setup = start.elapsed().as_secs_f64();
    let gravity = |_: &Point<D>, _: f64| Vector::<D>::zeros();
    let mut times = Vec::new();
    for _ in 0..10 {
        let s = Instant::now();
        stepper.step(mesh, &gravity).unwrap();
        times.push(s.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let steps = stepper.steps as f64;
    println!(
        "| {name} | {} | {} | {:.2} | {:.1} | {:.1} | {:.1} |",
        mesh.num_cells(),
        D * stepper.space().len() + mesh.num_points(),
        setup,
        times[5] * 1e3,
        stepper.seconds.assembly / steps * 1e3,
        stepper.seconds.solve / steps * 1e3
    );
}

fn main() {
    println!("| mesh | cells | unknowns | setup s (assembly + factorisation, once) | median ms per step | assembly ms | solve ms |");
    println!("|---|---|---|---|---|---|---|");
    for n in [32, 64, 128, 256] {
        let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::new(2.0, 6.0), [n, 3 * n]).unwrap();
        run(&format!("2D [0,2]×[0,6], h = {}", 2.0 / n as f64), &mesh);
    }
    for n in [16, 20] {
        let mesh = axis_box::<3>(Point::<3>::zeros(), Point::<3>::new(1.0, 2.0, 1.0), [n, 2 * n, n]).unwrap();
        run(&format!("3D [0,1]×[0,2]×[0,1], h = {}", 1.0 / n as f64), &mesh);
    }
}
