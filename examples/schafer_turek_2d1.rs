//! The Schäfer–Turek 2D-1 benchmark (steady flow around a cylinder at Re = 20) on the committed
//! meshes: drag and lift coefficients and the pressure difference across the cylinder against the
//! reference values, with the time of each solve, with straight cells and with the cells on the
//! cylinder curved (isoparametric P2: edge midpoints moved onto the circle).
//!
//! Run: `cargo run --release --example schafer_turek_2d1`.

use std::path::Path;
use std::time::Instant;
use tumble::fluid::{boundary_force, solve_steady, BoundaryConditions, P2Space, SteadyProblem};
use tumble::math::{Point, Vector};
use tumble::mesh::gmsh;

const DRAG: f64 = 5.57953523384;
const LIFT: f64 = 0.010618948146;
const DP: f64 = 0.11752016697;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("| mesh | cylinder | triangles | unknowns | Newton iterations | seconds | c_D (error) | c_L (error) | Δp (error) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (name, curved) in [
        ("coarse", false),
        ("medium", false),
        ("fine", false),
        ("coarse", true),
        ("medium", true),
        ("fine", true),
    ] {
        let start = Instant::now();
        let mesh = gmsh::read_dim::<2>(Path::new(&format!("meshes/schafer_turek_2d_{name}.msh")))?;
        let marker = |n: &str| mesh.facet_marker(n);
        let mut space = P2Space::new(&mesh);
        if curved {
            let centre = Point::<2>::new(0.2, 0.2);
            space.curve_boundary(&mesh, &[marker("cylinder")?], |x| {
                centre + (x - centre).normalize() * 0.05
            })?;
        }
        // Parabolic inflow with U_max = 0.3, no slip on the walls and the cylinder, free outflow.
        let bc = BoundaryConditions::<2>::default()
            .velocity(marker("inlet")?, |x: &Point<2>, _| {
                Vector::<2>::new(4.0 * 0.3 * x.y * (0.41 - x.y) / (0.41 * 0.41), 0.0)
            })
            .no_slip(marker("walls")?)
            .no_slip(marker("cylinder")?)
            .outflow(marker("outlet")?);
        let zero = |_: &Point<2>| Vector::<2>::zeros();
        let problem = SteadyProblem {
            kinematic_viscosity: 1e-3,
            density: 1.0,
            force: &zero,
            boundary: &bc,
            convection: true,
        };
        let (flow, iterations) = solve_steady(&mesh, &space, &problem, 1e-10, 20)?;
        // Drag and lift coefficients 2 F / (ρ U_mean² D) with U_mean = 0.2, D = 0.1.
        let force = boundary_force(&mesh, &space, 1e-3, &zero, &flow, None, marker("cylinder")?)?;
        let (cd, cl) = (500.0 * force.x, 500.0 * force.y);
        let pressure_at = |x: Point<2>| flow.pressure_at(&mesh, &space, &x).expect("inside the channel");
        let dp = pressure_at(Point::<2>::new(0.15, 0.2)) - pressure_at(Point::<2>::new(0.25, 0.2));
        println!(
            "| {name} | {} | {} | {} | {iterations} | {:.2} | {cd:.5} ({:.1e}) | {cl:.5} ({:.1e}) | {dp:.5} ({:.1e}) |",
            if curved { "curved" } else { "straight" },
            mesh.num_cells(),
            2 * space.len() + mesh.num_points(),
            start.elapsed().as_secs_f64(),
            (cd / DRAG - 1.0).abs(),
            (cl / LIFT - 1.0).abs(),
            (dp / DP - 1.0).abs()
        );
    }
    Ok(())
}
