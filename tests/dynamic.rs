//! The run-time-dimension API (`tumble::dynamic`): the same numbers whatever the world's thread
//! count, a saved state that continues bit for bit, and the results of the generic types.

use tumble::contact::ContactParameters;
use tumble::dynamic::{Mesh, Primitive, World, WorldOptions};

/// 24 ellipses of two sizes stacked in a 2 × 2 box so that they collide as they fall, on
/// `threads` threads.
fn pile(threads: Option<usize>) -> World {
    pile_with(threads, WorldOptions::new(2, 0.03, 1e-6))
}

/// The pile of [`pile`] with the contact of `options`.
fn pile_with(threads: Option<usize>, options: WorldOptions) -> World {
    let box_ = Mesh::new_box(&[0.0, 0.0], &[2.0, 2.0], &[32, 32]).unwrap();
    let options = WorldOptions {
        gravity: vec![0.0, -981.0],
        drag_linear: 5.0,
        threads,
        ..options
    };
    let mut world = World::new(2, Some((&box_, &[1, 2, 3, 4])), &options).unwrap();
    for k in 0..24 {
        let (row, column) = ((k / 6) as f64, (k % 6) as f64);
        let axes = if k % 2 == 0 { [0.1, 0.06] } else { [0.08, 0.08] };
        let position = [0.2 + 0.3 * column + 0.02 * row, 0.2 + 0.3 * row];
        world
            .add_body(Primitive::Ellipsoid, &axes, 1.5, &position, &[0.3 * k as f64])
            .unwrap();
    }
    world
}

/// Every body's state and contact force, as bits.
fn bits(world: &mut World) -> Vec<u64> {
    let (forces, torques) = world.contact_forces().unwrap();
    let mut out: Vec<u64> = forces.iter().chain(&torques).map(|x| x.to_bits()).collect();
    for i in 0..world.num_bodies() {
        let b = world.body(i).unwrap();
        out.extend(
            b.position
                .iter()
                .chain(&b.orientation)
                .chain(&b.velocity)
                .chain(&b.angular_velocity)
                .map(|x| x.to_bits()),
        );
    }
    out
}

#[test]
fn a_world_gives_the_same_bits_on_one_two_and_every_thread() {
    let runs: Vec<Vec<u64>> = [Some(1), Some(2), None]
        .into_iter()
        .map(|threads| {
            let mut world = pile(threads);
            world.step(1e-4, 1500).unwrap();
            bits(&mut world)
        })
        .collect();
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
    // The pile has fallen and its bodies touch: forces are not all zero.
    let mut world = pile(Some(1));
    world.step(1e-4, 1500).unwrap();
    let (forces, _) = world.contact_forces().unwrap();
    assert!(forces.iter().filter(|f| **f != 0.0).count() > 10);
}

/// The collision law with friction and rolling resistance in a world: the same bits on one and
/// two threads, and a saved world (its contacts' springs with it) continues bit for bit; a
/// repulsive law's key given to it is refused, naming the key.
#[test]
fn a_world_with_the_collision_law_is_reproducible_and_checks_its_keys() {
    let collision = || {
        WorldOptions::with_contact(
            2,
            ContactParameters {
                friction: Some(0.4),
                rolling: Some(0.02),
                ..ContactParameters::collision(0.01, 0.5, 2e-3)
            },
        )
    };
    let dt = 1e-4;
    let mut one = pile_with(Some(1), collision());
    let mut two = pile_with(Some(2), collision());
    one.step(dt, 1500).unwrap();
    two.step(dt, 700).unwrap();
    let saved = two.save();
    let mut again = pile_with(None, collision());
    again.restore(&saved).unwrap();
    again.step(dt, 800).unwrap();
    assert_eq!(bits(&mut one), bits(&mut again));
    let (forces, _) = one.contact_forces().unwrap();
    assert!(forces.iter().filter(|f| **f != 0.0).count() > 10, "the pile touches");

    let mut options = collision();
    options.contact.stiffness = Some(1e-6);
    let error = World::new(2, None, &options).err().unwrap();
    assert_eq!(error.argument.as_deref(), Some("stiffness"));
    assert!(
        error.to_string().contains("not a parameter of the collision law"),
        "{error}"
    );
}

#[test]
fn a_saved_world_continues_bit_for_bit() {
    let mut first = pile(None);
    first.step(1e-4, 700).unwrap();
    let saved = first.save();
    first.step(1e-4, 700).unwrap();
    let mut second = pile(Some(2));
    second.restore(&saved).unwrap();
    second.step(1e-4, 700).unwrap();
    assert_eq!(bits(&mut first), bits(&mut second));
    // A state of other bodies, or not a state at all, is refused and changes nothing.
    let mut other = World::new(2, None, &WorldOptions::new(2, 0.03, 1e-6)).unwrap();
    other
        .add_body(Primitive::Box, &[0.1, 0.1], 1.0, &[0.5, 0.5], &[0.0])
        .unwrap();
    let before = bits(&mut other);
    let e = other.restore(&saved).unwrap_err();
    assert!(e.message.contains("it holds the bodies [body0, body1"), "{e}");
    assert!(other
        .restore(b"not cbor")
        .unwrap_err()
        .message
        .starts_with("state: is not a saved world state"));
    assert_eq!(before, bits(&mut other));
}

#[test]
fn a_world_refuses_zero_threads() {
    let options = WorldOptions {
        threads: Some(0),
        ..WorldOptions::new(2, 0.03, 1e-6)
    };
    let e = World::new(2, None, &options).err().unwrap();
    assert!(e.message.starts_with("threads: is 0"), "{e}");
}

/// A mesh moved by `SimplexMesh::with_points` is the mesh built again from its arrays at the new
/// points, bit for bit in every derived quantity; printed: the time of both (3D, 48³ × 6 cells).
#[test]
fn a_moved_mesh_is_the_mesh_built_again() {
    use std::time::Instant;
    use tumble::math::Point;
    use tumble::mesh::generate::axis_box;
    use tumble::mesh::MeshParts;
    use tumble::SimplexMesh;
    let mesh = axis_box::<3>(Point::<3>::zeros(), Point::<3>::repeat(1.0), [48, 48, 48]).unwrap();
    let moved: Vec<Point<3>> = mesh
        .points()
        .iter()
        .map(|p| Point::<3>::new(p.x + 0.1 * p.y * p.y, p.y + 0.05 * p.z, p.z + 0.2))
        .collect();
    let start = Instant::now();
    let fast = mesh.with_points(moved.clone()).unwrap();
    let fast_seconds = start.elapsed().as_secs_f64();
    let parts = MeshParts {
        points: moved,
        cells: mesh.cells().to_vec(),
        cell_markers: mesh.cell_markers().to_vec(),
        facets: mesh.facets().to_vec(),
        facet_markers: mesh.facet_markers().to_vec(),
        facet_names: mesh.facet_names().clone(),
        cell_names: mesh.cell_names().clone(),
    };
    let start = Instant::now();
    let rebuilt = SimplexMesh::new(parts).unwrap();
    let rebuild_seconds = start.elapsed().as_secs_f64();
    println!(
        "{} cells: with_points {:.3} s, rebuilt {:.3} s ({:.1}x)",
        mesh.num_cells(),
        fast_seconds,
        rebuild_seconds,
        rebuild_seconds / fast_seconds
    );
    assert_eq!(fast.cell_measures(), rebuilt.cell_measures());
    assert_eq!(fast.cell_quality(), rebuilt.cell_quality());
    assert_eq!(fast.boundary(), rebuilt.boundary());
    assert_eq!(fast.boundary_normals(), rebuilt.boundary_normals());
    assert_eq!(fast.facet_normals(), rebuilt.facet_normals());
    assert_eq!(fast.facet_cells(), rebuilt.facet_cells());
    // A move that inverts a cell is refused, naming it.
    let mut bad = mesh.points().to_vec();
    let cell = mesh.cell(0).to_vec();
    bad[cell[0] as usize] = bad[cell[1] as usize] * 2.0 - bad[cell[0] as usize];
    let e = mesh.with_points(bad).unwrap_err().to_string();
    assert!(e.contains("not positive"), "{e}");
}

/// A host-mesh contact through `dynamic` on `threads` threads: the flat contacts, forces, torques
/// and node loads of three spheres (radius 0.2) in the unit circle or ball, two at gap `g` and one
/// at `g` from the wall (`g` one lattice step, which the generator needs), with the `patches` law,
/// as bits.
fn host_bits(dim: usize, threads: Option<usize>) -> Vec<u64> {
    use tumble::contact::Law;
    use tumble::dynamic::{HostContact, HostOptions};
    let (h, g, range) = if dim == 2 {
        (0.02, 0.02, 0.04)
    } else {
        (0.06, 0.07, 0.1)
    };
    let mut centres = vec![0.0; 4 * dim];
    centres[0] = -0.2 - g / 2.0;
    centres[dim] = 0.2 + g / 2.0;
    centres[3 * dim - 1] = -(1.0 - 0.2 - g);
    let mesh = Mesh::balls(dim, &centres, &[0.2, 0.2, 0.2, 1.0], h).unwrap();
    let options = HostOptions {
        law: Law::Patches,
        threads,
        ..HostOptions::new(range, 1e-4)
    };
    let collision = HostOptions {
        law: Law::Collision,
        ..options.clone()
    };
    let refused = HostContact::new(&mesh, &[1, 2, 3], &[4], &collision).err().unwrap();
    assert_eq!(refused.argument.as_deref(), Some("law"), "{refused}");
    let mut host = HostContact::new(&mesh, &[1, 2, 3], &[4], &options).unwrap();
    let found = host.find_contacts(&mesh, &centres[..3 * dim]).unwrap();
    let contacts = host.contacts();
    assert_eq!(found, 2, "{contacts:?}");
    assert_eq!((contacts.i, contacts.j), (vec![0, 2], vec![1, tumble::contact::WALL]));
    let (forces, torques) = host.forces().unwrap();
    let loads = host.node_loads().unwrap();
    // The loads balance: the walls take the reaction of the third sphere's force.
    for a in 0..dim {
        let sum: f64 = loads.iter().skip(a).step_by(dim).sum();
        assert!(sum.abs() < 1e-12 * forces[2 * dim + dim - 1].abs(), "{sum}");
    }
    [contacts.gap, contacts.point_i, contacts.normal, forces, torques, loads]
        .concat()
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

#[test]
fn a_host_contact_gives_the_same_bits_on_one_or_two_threads_in_2d_and_3d() {
    for dim in [2, 3] {
        let one = host_bits(dim, Some(1));
        assert_eq!(one, host_bits(dim, Some(2)), "{dim}D");
        assert_eq!(one, host_bits(dim, None), "{dim}D");
    }
}
