//! The library guide's walkthrough (docs/library.md, "Walkthrough"), in Rust; `examples/c/
//! walkthrough.c` and `examples/python/walkthrough.py` take the same steps and print the same
//! text, `examples/walkthrough.out` (`tests/walkthrough.rs`, `capi/tests/c_examples.rs` and
//! `python/tests` check all three against it).
//!
//! 1. read a Gmsh mesh and compute the narrow-band distance to one of its circles;
//! 2. drop the specification's ellipse (check 4.1.3) on the floor of a box and step it to rest;
//! 3. find the contacts of three disks on a host code's own mesh, with their forces and the node
//!    loads.
//!
//! Run: `cargo run --release --example walkthrough` from the repository's top directory.

use std::f64::consts::PI;
use std::io::Write;
use tumble::dynamic::{Distance, DistanceOptions, HostContact, HostOptions, Mesh, Primitive, World, WorldOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    walkthrough(&mut std::io::stdout())
}

/// The three steps, printed into `out`.
pub fn walkthrough(out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    // 1. The distance to the circle r = 1 (facets named "r1") within 1.2 of it.
    let mesh = Mesh::read_gmsh("meshes/disk_r3_h0.1.msh")?;
    let (nodes, cells, _) = mesh.sizes();
    writeln!(out, "mesh: {nodes} nodes, {cells} triangles")?;
    let options = DistanceOptions {
        max_distance: 1.2,
        ..DistanceOptions::default()
    };
    let field = Distance::new(&mesh, &[mesh.facet_tag("r1")?], &options)?;
    let reached = field.reached().iter().filter(|&&r| r).count();
    let mut d = [0.0; 2];
    field.at(&[0.0, 0.8, 1.2, 0.0], &mut d)?;
    writeln!(
        out,
        "distance: {reached} nodes in the band; d(0, 0.8) = {:.6}, d(1.2, 0) = {:.6}",
        d[0], d[1]
    )?;

    // 2. The ellipse (semi-axes 0.25, 0.125, density 1.25) at 45°, 0.9ρ above the floor of the
    //    box [0, 2]², its four sides (tags 1 to 4) the walls; 2 s in steps of 1e-4.
    let floor = Mesh::new_box(&[0.0, 0.0], &[2.0, 2.0], &[32, 32])?;
    let options = WorldOptions {
        gravity: vec![0.0, -981.0],
        drag_linear: 20.0,
        drag_angular: 20.0,
        ..WorldOptions::new(2, 0.03, 1e-6)
    };
    let mut world = World::new(2, Some((&floor, &[1, 2, 3, 4])), &options)?;
    world.add_body(Primitive::Ellipsoid, &[0.25, 0.125], 1.25, &[1.0, 0.2246], &[PI / 4.0])?;
    world.step(1e-4, 20000)?;
    let (forces, _) = world.contact_forces()?;
    let body = world.body(0)?;
    writeln!(
        out,
        "ellipse at t = 2: y = {:.6}, angle = {:.6}, wall force {:.4}, weight {:.4}",
        body.position[1],
        body.orientation[0],
        forces[1],
        body.mass * 981.0
    )?;

    // 3. Three disks of radius 0.125 in the unit circle (tags 1, 2, 3; the circle 4), two 0.01
    //    apart and one 0.012 above the wall, on a mesh that conforms to them (h = 0.01).
    let centres = [-0.3, 0.1, -0.04, 0.1, 0.0, -0.863];
    let host_mesh = Mesh::balls(
        2,
        &[&centres[..], &[0.0, 0.0]].concat(),
        &[0.125, 0.125, 0.125, 1.0],
        0.01,
    )?;
    let mut host = HostContact::new(&host_mesh, &[1, 2, 3], &[4], &HostOptions::new(0.03, 1e-6))?;
    let found = host.find_contacts(&host_mesh, &centres)?;
    let contacts = host.contacts();
    for k in 0..found {
        let other = match contacts.j[k] {
            tumble::contact::WALL => "the wall".to_string(),
            j => format!("disk {j}"),
        };
        writeln!(
            out,
            "contact: disk {} and {other}, gap {:.6}",
            contacts.i[k], contacts.gap[k]
        )?;
    }
    let (forces, _) = host.forces()?;
    for (k, f) in forces.chunks(2).enumerate() {
        writeln!(out, "force on disk {k}: ({:.4}, {:.4})", f[0], f[1])?;
    }
    let loads = host.node_loads()?;
    let loaded = loads.chunks(2).filter(|l| l[0] != 0.0 || l[1] != 0.0).count();
    writeln!(out, "node loads: {loaded} nodes")?;
    Ok(())
}
