//! A body moving through the mesh with the accurate boundary (`body_boundary = "surface"`) feels
//! the drag of the same body held among the same cells by a frame that follows it: the
//! momentum the projection gives the dofs it captures is charged to it
//! (`sim::immersed`, step 3; docs/validation.md, "The momentum a surface body gives the dofs it
//! sweeps"). A disk of diameter 1 at Re ≈ 10 (the cylinder's terminal speed 0.743 with
//! μ = 0.0743, Dennis & Chang's C_D(10) = 2.846), a hundred times the fluid's density so that
//! its speed stays within a per cent of the start, on the axis of a channel 12 wide, d/h = 8:
//! over t ∈ (4, 6] the moving disk's drag is 0.969 of the held one's (measured; 0.878 before the
//! captured dofs were charged with ghosts), the held one 1.07 of the unbounded cylinder's (the
//! walls 6 d away). About 20 s.

use std::path::Path;
use tumble::case::{run_immersed, Case, Control};

const U: f64 = 0.7429;

/// The case: the lab's closed channel, or the frame's (the fluid at rest entering at the
/// bottom, leaving at the top).
fn case(frame: bool) -> String {
    let (bottom, top, y) = match frame {
        true => ("{ velocity = [0, 0] }", "\"outflow\"", 8.0),
        false => ("\"no-slip\"", "\"no-slip\"", 17.0),
    };
    format!(
        r#"dimension = 2
gravity = [0, -0.0101010101]

[domain]
box = [[0, 0], [12, 20]]
cells = [96, 160]
walls = ["xmin", "xmax", "ymin"{top_wall}]

[fluid]
density = 1.0
viscosity = 0.0743
convection = "characteristics"
body_boundary = "surface"

[fluid.boundary]
xmin = "no-slip"
xmax = "no-slip"
ymin = {bottom}
ymax = {top}

[[bodies]]
name = "disk"
shape = {{ type = "circle", radius = 0.5 }}
density = 100.0
position = [6, {y}]
velocity = [0, -{U}]

[contact]
range = 0.1
stiffness = 1e-4

[time]
step = 0.1
end = 6

[output]
every = 0
{follow}"#,
        top_wall = if frame { "" } else { ", \"ymax\"" },
        follow = if frame { "\n[frame]\nfollow = \"disk\"\n" } else { "" },
    )
}

/// The disk's mean hydrodynamic force along g over t ∈ (4, 6], from `bodies.csv`.
fn drag(frame: bool) -> f64 {
    let text = case(frame);
    let case = Case::parse(Path::new("sweep.toml"), &text).unwrap();
    let flow = case.build_flow::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    run_immersed(&case, &flow, dir.path(), Control::default()).unwrap();
    let rows = std::fs::read_to_string(dir.path().join("bodies.csv")).unwrap();
    let mut lines = rows.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|&c| c == name).unwrap();
    let (time, hy) = (column("time"), column("hy"));
    let forces: Vec<f64> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| c[time].parse::<f64>().unwrap() > 4.0 + 1e-9)
        .map(|c| c[hy].parse::<f64>().unwrap())
        .collect();
    forces.iter().sum::<f64>() / forces.len() as f64
}

#[test]
fn a_surface_disk_moving_through_the_mesh_feels_the_drag_it_feels_held_among_the_same_cells() {
    let (moving, held) = (drag(false), drag(true));
    // The cylinder's drag at U per unit length, C_D ρ U² d / 2.
    let reference = 2.846 * 0.5 * U * U;
    println!(
        "drag over the cylinder's at Re 10: moving {:.4}, held {:.4}; moving/held {:.4}",
        moving / reference,
        held / reference,
        moving / held
    );
    assert!(
        (held / reference - 1.0).abs() < 0.15,
        "held: {held} against {reference}"
    );
    assert!((moving / held - 1.0).abs() < 0.05, "moving {moving}, held {held}");
}
