//! Cost per step of bodies in the fluid (`sim::Immersed`) against the fluid step alone, on the
//! falling-ellipse box [0, 2] × [0, 6] at h = 0.03125 (24 576 triangles, closed, ν = 0.01,
//! Δt = 1e-3): 1, 25 and 1 000 ellipses (semi-axes 0.04 × 0.02, ρ_s = 1.1, on a lattice, tilted),
//! 2 steps to warm up, then the median of 5. The immersed step splits into the fluid step, the
//! rigidity constraint (conjugate gradients, one velocity solve per iteration) and the bodies
//! (contact and Newton–Euler).
//!
//! Run: `cargo bench --bench immersed`.

use std::sync::Arc;
use std::time::Instant;
use tumble::body::{BodyGeometry, RigidBody};
use tumble::broad::LinkedCell;
use tumble::contact::{ContactModel, ContactParameters, ContactSolver, Law, Walls};
use tumble::fluid::{BoundaryConditions, FlowField, P2Space, Unsteady};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::axis_box;
use tumble::shape::Ellipsoid;
use tumble::sim::{Drag, Immersed, ImmersedOptions, Simulation};
use tumble::SimplexMesh;

const WALLS: [&str; 4] = ["xmin", "xmax", "ymin", "ymax"];

fn mesh() -> SimplexMesh<2> {
    axis_box::<2>(Point::<2>::new(0.0, 0.0), Point::<2>::new(2.0, 6.0), [64, 192]).unwrap()
}

fn fluid(mesh: &SimplexMesh<2>) -> Unsteady<2> {
    let mut bc = BoundaryConditions::<2>::default();
    for name in WALLS {
        bc = bc.no_slip(mesh.facet_marker(name).unwrap());
    }
    let space = P2Space::new(mesh);
    let rest = FlowField {
        velocity: vec![Vector::<2>::zeros(); space.len()],
        pressure: vec![0.0; mesh.num_points()],
    };
    Unsteady::new(mesh, space, 0.01, 1e-3, bc, rest, 0.0).unwrap()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mesh = mesh();
    let mut alone = fluid(&mesh);
    let zero = |_: &Point<2>, _: f64| Vector::<2>::zeros();
    let mut times = Vec::new();
    for k in 0..7 {
        let s = Instant::now();
        alone.step(&mesh, &zero).unwrap();
        if k >= 2 {
            times.push(s.elapsed().as_secs_f64());
        }
    }
    let base = median(times);
    println!(
        "{} triangles; fluid step alone: {:.1} ms (median of 5)",
        mesh.num_cells(),
        base * 1e3
    );
    println!(
        "{:>7} {:>10} {:>10} {:>12} {:>10} {:>14} {:>12}",
        "bodies", "step ms", "fluid ms", "constraint", "bodies ms", "(c+b)/fluid", "CG iters"
    );
    let geometry = Arc::new(
        BodyGeometry::from_shape(
            &Ellipsoid {
                semi_axes: [0.04, 0.02],
            },
            0.002,
            0.02,
        )
        .unwrap(),
    );
    for n in [1usize, 25, 1000] {
        let (nx, ny) = if n == 1 {
            (1, 1)
        } else if n == 25 {
            (5, 5)
        } else {
            (20, 50)
        };
        let mut bodies = Vec::new();
        for j in 0..ny {
            for i in 0..nx {
                let x = 2.0 * (i as f64 + 0.5) / nx as f64;
                let y = 0.5 + 5.0 * (j as f64 + 0.5) / ny as f64;
                let mut b = RigidBody::new(&format!("e{i}_{j}"), geometry.clone(), 1.1, Point::<2>::new(x, y));
                b.rotation = 0.3 * (i + j) as f64;
                bodies.push(b);
            }
        }
        let model = ContactModel::new(&ContactParameters::repulsive(Law::Glowinski, 0.01, 1e-5)).unwrap();
        let walls = Walls::new(
            axis_box::<2>(Point::<2>::new(0.0, 0.0), Point::<2>::new(2.0, 6.0), [64, 192]).unwrap(),
            &WALLS,
            0.1,
        )
        .unwrap();
        let sim = Simulation::new(
            bodies,
            Some(walls),
            Vector::<2>::new(0.0, -981.0),
            Drag::default(),
            ContactSolver::new(model, Box::new(LinkedCell::<2>::default())),
        );
        let mut c = Immersed::new(fluid(&mesh), sim, ImmersedOptions::new(1.0)).unwrap();
        let (mut total, mut fl, mut co, mut bo) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut iterations = 0;
        for k in 0..7 {
            let before = (c.seconds, c.iterations);
            let s = Instant::now();
            c.step(&mesh).unwrap();
            if k >= 2 {
                total.push(s.elapsed().as_secs_f64());
                fl.push(c.seconds.fluid - before.0.fluid);
                co.push(c.seconds.constraint - before.0.constraint);
                bo.push(c.seconds.bodies - before.0.bodies);
                iterations += c.iterations - before.1;
            }
        }
        let (t, f, cs, bs) = (median(total), median(fl), median(co), median(bo));
        println!(
            "{n:>7} {:>10.1} {:>10.1} {:>12.1} {:>10.2} {:>14.2} {:>12.1}",
            t * 1e3,
            f * 1e3,
            cs * 1e3,
            bs * 1e3,
            (cs + bs) / f,
            iterations as f64 / 5.0
        );
    }
}
