//! Stokes drag on a sphere of radius `a` translating with velocity `U` inside a fixed concentric
//! spherical container of radius `b`: an exact solution (no box correction to estimate), with the
//! drag `F = 6πμaU K(λ)`, `λ = a/b`, and the wall factor (Happel and Brenner 1965, §4.22)
//!
//! ```text
//! K(λ) = (1 − λ⁵) / (1 − 9λ/4 + 5λ³/2 − 9λ⁵/4 + λ⁶).
//! ```
//!
//! (`tests/fluid.rs` derives the factor again from the stream function, so it is checked, not only
//! quoted.) Meshes are the
//! generator's shells (`mesh::generate::ball` with a hole), with straight tetrahedra and with the
//! cells on both spheres curved (isoparametric P2).
//!
//! `cargo run --release --example stokes_sphere`

use std::time::Instant;
use tumble::fluid::{boundary_force, solve_steady, BoundaryConditions, P2Space, SteadyProblem};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::{ball, Sphere};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (a, b, mu, u) = (1.0, 2.0, 1.0, 1.0);
    let lambda: f64 = a / b;
    let k =
        (1.0 - lambda.powi(5)) / (1.0 - 2.25 * lambda + 2.5 * lambda.powi(3) - 2.25 * lambda.powi(5) + lambda.powi(6));
    println!("λ = {lambda}: K = {k:.10}");
    let exact = 6.0 * std::f64::consts::PI * mu * a * u * k;
    for (h, curved) in [(0.4, false), (0.3, false), (0.4, true), (0.3, true), (0.2, true)] {
        let start = Instant::now();
        let mesh = ball::<3>(
            &[
                Sphere::new(Point::<3>::zeros(), a, "sphere"),
                Sphere::new(Point::<3>::zeros(), b, "container"),
            ],
            true,
            h,
        )?;
        let mut space = P2Space::new(&mesh);
        let (sphere, container) = (mesh.facet_marker("sphere")?, mesh.facet_marker("container")?);
        if curved {
            space.curve_boundary(&mesh, &[sphere], |x| x.normalize() * a)?;
            space.curve_boundary(&mesh, &[container], |x| x.normalize() * b)?;
        }
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
        let (flow, _) = solve_steady(&mesh, &space, &problem, 1e-10, 1)?;
        let force = boundary_force(&mesh, &space, mu, &zero, &flow, None, sphere)?;
        println!(
            "h = {h}, {}: {} tetrahedra, {} unknowns, {:.1} s: drag {:.5} (exact {exact:.5}, error {:.2} %), lateral {:.1e}",
            if curved { "curved" } else { "straight" },
            mesh.num_cells(),
            3 * space.len() + mesh.num_points(),
            start.elapsed().as_secs_f64(),
            -force.x,
            (-force.x / exact - 1.0) * 100.0,
            force.y.hypot(force.z)
        );
    }
    Ok(())
}
