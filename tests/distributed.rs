//! A body set split across ranks (threads standing for the host's MPI ranks, `sim::Threads`)
//! moves its bodies exactly as one simulation of all of them: a thousand spheres thrown about a
//! box under gravity, colliding with each other and the walls, cut into 1, 2 and 4 slabs that
//! the spheres cross.

use std::sync::Arc;
use tumble::body::{BodyGeometry, RigidBody};
use tumble::broad::sets::method;
use tumble::contact::{ContactModel, ContactParameters, ContactSolver, Law, Walls};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::axis_box;
use tumble::shape::Ball;
use tumble::sim::{Distributed, DistributedError, Drag, Exchange, Partition, Simulation, Threads};

const RADIUS: f64 = 0.04;
const RANGE: f64 = 0.01;
const STEPS: usize = 150;

/// The collision law's step is 5.6 times shorter: more steps, and faster across the slabs, so
/// that spheres cross between the ranks.
const COLLISION_STEPS: usize = 300;

fn corners() -> (Point<3>, Point<3>) {
    (Point::<3>::zeros(), Point::<3>::new(2.0, 1.0, 1.0))
}

fn ball() -> Arc<BodyGeometry<3>> {
    let shape = Ball {
        centre: Point::<3>::zeros(),
        radius: RADIUS,
    };
    Arc::new(BodyGeometry::from_shape(&shape, RANGE / 2.0, 2.0 * RANGE).unwrap())
}

/// 1 000 spheres on a 20 × 10 × 5 lattice (gaps 0.02), thrown at random velocities of up to
/// `across` along x and 1 along y and z (a fixed sequence).
fn spheres(geometry: &Arc<BodyGeometry<3>>, across: f64) -> Vec<RigidBody<3>> {
    let mut seed = 12345_u64;
    let mut random = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let mut bodies = Vec::new();
    for k in 0..1000 {
        let (i, j, l) = (k % 20, (k / 20) % 10, k / 200);
        let at = Point::<3>::new(0.05 + 0.1 * i as f64, 0.05 + 0.1 * j as f64, 0.05 + 0.1 * l as f64);
        let mut b = RigidBody::new(&format!("s{k}"), geometry.clone(), 1.0, at);
        b.velocity = Vector::<3>::new(across * random(), random(), random());
        b.angular_velocity = Vector::<3>::new(random(), random(), random()) * 10.0;
        bodies.push(b);
    }
    bodies
}

/// The box's walls, gravity, a damped Glowinski law (or the collision law, with friction and
/// rolling resistance, whose springs the bodies carry from rank to rank), and `bodies`.
fn world(bodies: Vec<RigidBody<3>>, collision: bool) -> Simulation<3> {
    let (lo, hi) = corners();
    let mesh = axis_box::<3>(lo, hi, [20, 10, 10]).unwrap();
    let walls = Walls::new(mesh, &["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"], 0.2).unwrap();
    let parameters = if collision {
        ContactParameters {
            friction: Some(0.3),
            rolling: Some(0.05),
            ..ContactParameters::collision(RANGE, 0.8, 0.02)
        }
    } else {
        ContactParameters {
            damping: Some(1e-3),
            ..ContactParameters::repulsive(Law::Glowinski, RANGE, 1e-4)
        }
    };
    let model = ContactModel::new(&parameters).unwrap();
    let solver = ContactSolver::new(model, method::<3>("auto").unwrap());
    Simulation::new(
        bodies,
        Some(walls),
        Vector::<3>::new(0.0, 0.0, -1.0),
        Drag::default(),
        solver,
    )
}

/// Each body's state as bits: position, rotation, velocity, angular velocity.
fn bits(b: &RigidBody<3>) -> Vec<u64> {
    let q = b.rotation.quaternion().coords;
    b.position
        .iter()
        .chain(q.iter())
        .chain(b.velocity.iter())
        .chain(b.angular_velocity.iter())
        .map(|x| x.to_bits())
        .collect()
}

/// Each body's bits by id.
type States = Vec<(u64, Vec<u64>)>;

/// What a split run ends with: each body's bits by id, the migrations, and the most ghosts a
/// rank held at the end.
fn split(ranks: usize, dt: f64, collision: bool) -> (States, usize, usize) {
    let (steps, across) = if collision {
        (COLLISION_STEPS, 2.0)
    } else {
        (STEPS, 1.0)
    };
    let geometry = ball();
    let (lo, hi) = corners();
    let group = Threads::group(ranks);
    let results: Vec<(States, usize, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = group
            .into_iter()
            .map(|exchange| {
                let geometry = geometry.clone();
                scope.spawn(move || {
                    // Rank 0 holds them all at the start; they go to their owners.
                    let bodies = if exchange.rank() == 0 {
                        spheres(&geometry, across)
                    } else {
                        Vec::new()
                    };
                    let ids = (0..bodies.len() as u64).collect();
                    let partition = Partition::slabs(lo, hi, 0, ranks).unwrap();
                    let mut d = Distributed::new(
                        world(bodies, collision),
                        ids,
                        vec![geometry],
                        partition,
                        Box::new(exchange),
                    )
                    .unwrap();
                    for _ in 0..steps {
                        d.step(dt).unwrap();
                    }
                    let owned = d.owned().map(|(id, b)| (id, bits(b))).collect();
                    (owned, d.migrations, d.ghosts())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all: States = results.iter().flat_map(|r| r.0.clone()).collect();
    all.sort_by_key(|x| x.0);
    let migrations = results.iter().map(|r| r.1).sum();
    let ghosts = results.iter().map(|r| r.2).max().unwrap_or(0);
    (all, migrations, ghosts)
}

/// The spheres on one rank and split across 1, 2 and 4: the same to the last bit.
fn split_as_one(collision: bool) {
    let geometry = ball();
    let (steps, across) = if collision {
        (COLLISION_STEPS, 2.0)
    } else {
        (STEPS, 1.0)
    };
    let mut one = world(spheres(&geometry, across), collision);
    let dt = 0.5 * one.stable_time_step();
    let (mut contacts, mut springs) = (0, 0);
    for _ in 0..steps {
        one.step(dt).unwrap();
        contacts += one.contact.contacts.len();
        springs += one.contact.memory().len();
    }
    let reference: States = one
        .bodies
        .iter()
        .enumerate()
        .map(|(k, b)| (k as u64, bits(b)))
        .collect();
    let moved = one
        .bodies
        .iter()
        .zip(spheres(&geometry, across))
        .map(|(b, a)| (b.position - a.position).norm())
        .fold(0.0, f64::max);
    println!("dt {dt:.3e}, {contacts} contacts and {springs} springs over {steps} steps, the farthest sphere moved {moved:.3}");
    assert!(contacts > 10 * steps, "the spheres collide: {contacts} contacts");
    assert!(
        !collision || springs > 10 * steps,
        "the contacts keep springs: {springs}"
    );
    for ranks in [1, 2, 4] {
        let (all, migrations, ghosts) = split(ranks, dt, collision);
        println!("{ranks} ranks: {migrations} migrations, up to {ghosts} ghosts a rank");
        assert_eq!(all.len(), 1000, "every body owned by one rank");
        let differ = all.iter().zip(&reference).filter(|(a, b)| a != b).count();
        assert_eq!(differ, 0, "{ranks} ranks: {differ} bodies differ from one rank's");
        if ranks > 1 {
            assert!(
                migrations > 20,
                "{ranks} ranks: spheres cross between them ({migrations})"
            );
            assert!(ghosts > 20, "{ranks} ranks: ghosts held ({ghosts})");
        }
    }
}

#[test]
fn a_thousand_spheres_split_across_ranks_move_as_on_one_to_the_last_bit() {
    split_as_one(false);
}

#[test]
fn with_the_collision_laws_springs_too() {
    split_as_one(true);
}

/// What `Distributed::new` says on each of two ranks, rank `r` starting with `bodies(r)` and
/// their `ids(r)`, over `partition`.
fn errors_on_two_ranks(
    partition: Partition<3>,
    bodies: impl Fn(usize, &Arc<BodyGeometry<3>>) -> (Vec<RigidBody<3>>, Vec<u64>) + Sync,
) -> Vec<String> {
    let geometry = ball();
    let group = Threads::group(2);
    std::thread::scope(|scope| {
        let handles: Vec<_> = group
            .into_iter()
            .map(|exchange| {
                let (geometry, partition, bodies) = (geometry.clone(), partition.clone(), &bodies);
                scope.spawn(move || {
                    let (given, ids) = bodies(exchange.rank(), &geometry);
                    match Distributed::new(world(given, false), ids, vec![geometry], partition, Box::new(exchange)) {
                        Err(e) => e.to_string(),
                        Ok(_) => "no error".to_string(),
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn a_body_outside_every_part_stops_every_rank() {
    let (lo, _) = corners();
    // Slabs over the lower half of the box only: a body at z = 0.75 is in no part.
    let partition = Partition::slabs(lo, Point::<3>::new(2.0, 1.0, 0.5), 0, 2).unwrap();
    let errors = errors_on_two_ranks(partition, |rank, geometry| match rank {
        1 => (
            vec![RigidBody::new(
                "b",
                geometry.clone(),
                1.0,
                Point::<3>::new(1.5, 0.5, 0.75),
            )],
            vec![0],
        ),
        _ => (Vec::new(), Vec::new()),
    });
    assert!(
        errors[1].contains("body 0's centre [1.5, 0.5, 0.75] is in no rank's part"),
        "{}",
        errors[1]
    );
    assert_eq!(errors[0], DistributedError::OtherRank { rank: 1 }.to_string());
}

#[test]
fn ids_given_twice_are_refused_on_every_rank() {
    let (lo, hi) = corners();
    // Both ranks give a body 7, both in rank 1's part.
    let errors = errors_on_two_ranks(Partition::slabs(lo, hi, 0, 2).unwrap(), |rank, geometry| {
        let x = 1.2 + 0.1 * rank as f64;
        (
            vec![RigidBody::new("b", geometry.clone(), 1.0, Point::<3>::new(x, 0.5, 0.5))],
            vec![7],
        )
    });
    assert!(errors[1].contains("body id 7 is given twice"), "{}", errors[1]);
    assert_eq!(errors[0], DistributedError::OtherRank { rank: 1 }.to_string());
}
