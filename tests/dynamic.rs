//! The run-time-dimension API (`tumble::dynamic`): the same numbers whatever the world's thread
//! count, a saved state that continues bit for bit, and the results of the generic types.

use tumble::dynamic::{Mesh, Primitive, World, WorldOptions};

/// 24 ellipses of two sizes stacked in a 2 × 2 box so that they collide as they fall, on
/// `threads` threads.
fn pile(threads: Option<usize>) -> World {
    let box_ = Mesh::new_box(&[0.0, 0.0], &[2.0, 2.0], &[32, 32]).unwrap();
    let options = WorldOptions {
        gravity: vec![0.0, -981.0],
        drag_linear: 5.0,
        threads,
        ..WorldOptions::new(2, 0.03, 1e-6)
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
