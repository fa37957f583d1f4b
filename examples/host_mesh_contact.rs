//! Contact forces for a finite-element code whose mesh follows the bodies (ALE): the bodies are
//! marked facets of the host mesh, and at every time step the host code asks `tumble` for the
//! contacts on the mesh as it is, then for the forces and torques to add to its rigid-body
//! equations.
//!
//! Here three disks sit in a circular container: two of them 0.01 apart, one 0.012 above the wall.
//! The example prints the contacts and the forces, once with the host-mesh mode and once with the
//! body-frame mode (each body's field computed once in its own frame), which agree within the mesh
//! error.
//!
//! Run: `cargo run --release --example host_mesh_contact`.

use std::sync::Arc;
use tumble::body::{BodyGeometry, RigidBody};
use tumble::broad::LinkedCell;
use tumble::contact::{ContactModel, ContactParameters, ContactSolver, HostContact, Law, Walls, WALL};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::{ball, Sphere};
use tumble::shape::Ball;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (r, rho) = (0.125, 0.03);
    let centres = [
        Point::<2>::new(-0.3, 0.1),
        Point::<2>::new(-0.3 + 2.0 * r + 0.01, 0.1),
        Point::<2>::new(0.0, -(1.0 - r - 0.012)),
    ];

    // The host code's mesh: conforming to the three disks (facet markers body0..2) and to the
    // container (marker "wall"), element size 0.01. In an ALE code this mesh moves every step.
    let mut spheres: Vec<Sphere<2>> = centres
        .iter()
        .enumerate()
        .map(|(k, c)| Sphere::new(*c, r, &format!("body{k}")))
        .collect();
    spheres.push(Sphere::new(Point::<2>::zeros(), 1.0, "wall"));
    let mesh = ball(&spheres, false, 0.01)?;
    println!("host mesh: {} nodes, {} triangles", mesh.num_points(), mesh.num_cells());

    // The contact law: Glowinski's, range ρ, stiffness ε (and ε_W for the wall).
    let model = ContactModel::new(&ContactParameters::repulsive(Law::Glowinski, rho, 1e-6)).unwrap();

    // Host-mesh mode: once, the markers; then, at every step, the contacts on the current mesh
    // (narrow bands of width ρ around bodies that have a neighbour, and around the wall).
    let mut host = HostContact::new(
        model,
        &mesh,
        &["body0", "body1", "body2"],
        &["wall"],
        Box::new(LinkedCell::<2>::default()),
    )?;
    let contacts = host.contacts(&mesh, &centres)?;
    for c in contacts {
        let other = if c.j == WALL {
            "wall".to_string()
        } else {
            format!("body {}", c.j)
        };
        println!(
            "host mode: body {} – {other}: gap {:.5}, normal {:?}",
            c.i,
            c.gap,
            c.normal.as_slice()
        );
    }
    // Forces and torques about each centre of mass (each body's bounding radius about its centre,
    // from its nodes, enters Glowinski's law), and the same forces spread over the mesh's nodes,
    // for a host that puts them into its weak form.
    let (mut force, mut torque) = (vec![Vector::<2>::zeros(); 3], vec![0.0; 3]);
    host.forces(&mut force, &mut torque)?;
    let mut loads = vec![Vector::<2>::zeros(); mesh.num_points()];
    host.node_loads(&mut loads)?;
    let loaded = loads.iter().filter(|l| l.norm() > 0.0).count();
    println!("node loads: {loaded} nodes carry a share of the contact forces");

    // Body-frame mode: each shape's field once, in its own frame; the walls' field once.
    let disk = Arc::new(BodyGeometry::from_shape(
        &Ball {
            centre: Point::<2>::zeros(),
            radius: r,
        },
        rho / 4.0,
        2.0 * rho,
    )?);
    let rigid: Vec<RigidBody<2>> = centres
        .iter()
        .map(|c| RigidBody::new("disk", disk.clone(), 1.0, *c))
        .collect();
    let walls = Walls::new(
        ball(&[Sphere::new(Point::<2>::zeros(), 1.0, "wall")], false, 0.05)?,
        &["wall"],
        r + 2.0 * rho,
    )?;
    let mut solver = ContactSolver::new(model, Box::new(LinkedCell::<2>::default()));
    let (mut force_frame, mut torque_frame) = (vec![Vector::<2>::zeros(); 3], vec![0.0; 3]);
    solver.forces(&rigid, Some(&walls), 0.0, &mut force_frame, &mut torque_frame)?;

    for k in 0..3 {
        println!(
            "body {k}: force host {:>8.3} {:>8.3}   body frame {:>8.3} {:>8.3}",
            force[k].x, force[k].y, force_frame[k].x, force_frame[k].y
        );
    }
    Ok(())
}
