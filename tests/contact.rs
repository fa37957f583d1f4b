//! Contact detection and force laws against exact geometry: two circles, an ellipse near a wall,
//! the tripole on the floor, and the balance laws.

use std::sync::Arc;
use tumble::body::{BodyGeometry, RigidBody};
use tumble::broad::BruteForce;
use tumble::contact::{closest_contact, Contact, ContactModel, ContactParameters, ContactSolver, Law, Walls, WALL};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::axis_box;
use tumble::shape::{Ball, Ellipsoid, Shape, Union};

const RHO: f64 = 0.03;

fn geometry(shape: &dyn Shape<2>) -> Arc<BodyGeometry<2>> {
    Arc::new(BodyGeometry::from_shape(shape, RHO / 4.0, 2.0 * RHO).unwrap())
}

fn disk(r: f64) -> Arc<BodyGeometry<2>> {
    geometry(&Ball {
        centre: Point::<2>::zeros(),
        radius: r,
    })
}

fn model(law: Law) -> ContactModel {
    ContactModel::new(&ContactParameters::repulsive(law, RHO, 1e-4)).unwrap()
}

fn unit_box() -> Walls<2> {
    let mesh = axis_box::<2>(Point::<2>::new(0.0, 0.0), Point::<2>::new(2.0, 2.0), [64, 64]).unwrap();
    Walls::new(mesh, &["xmin", "xmax", "ymin", "ymax"], 0.5).unwrap()
}

/// Two circles of radii 0.125 and 0.2 at gap `g` along a slanted line: the gap, contact points and
/// normal against the exact ones.
#[test]
fn two_circles_gap_points_and_normal_are_exact_within_the_mesh_error() {
    let (ra, rb) = (0.125, 0.2);
    let dir = Vector::<2>::new(0.6, 0.8);
    for &g in &[0.025, 0.01, 0.002, -0.005] {
        let a = RigidBody::new("a", disk(ra), 1.0, Point::<2>::new(0.3, 0.4));
        let mut b = RigidBody::new("b", disk(rb), 1.0, Point::<2>::new(0.3, 0.4) + dir * (ra + rb + g));
        b.rotation = 0.37;
        let c = closest_contact(0, 1, &a, &b, RHO).expect("in range");
        let exact_i = a.position + dir * ra;
        let exact_j = b.position - dir * rb;
        println!(
            "g {g}: gap {:.6} point errors {:.2e} {:.2e} normal {:.2e}",
            c.gap,
            (c.point_i - exact_i).norm(),
            (c.point_j - exact_j).norm(),
            (c.normal + dir).norm()
        );
        assert!((c.gap - g).abs() < RHO / 20.0, "gap {} vs {g}", c.gap);
        // Node spacing on the surfaces is about h = ρ/4: points are within one spacing.
        assert!((c.point_i - exact_i).norm() < RHO / 4.0);
        assert!((c.point_j - exact_j).norm() < RHO / 4.0);
        assert!((c.normal + dir).norm() < 1e-2, "normal points from b to a");
    }
    let far = RigidBody::new(
        "b",
        disk(rb),
        1.0,
        Point::<2>::new(0.3, 0.4) + dir * (ra + rb + 1.5 * RHO),
    );
    assert!(closest_contact(
        0,
        1,
        &RigidBody::new("a", disk(ra), 1.0, Point::<2>::new(0.3, 0.4)),
        &far,
        RHO
    )
    .is_none());
}

#[test]
fn glowinski_law_is_the_closed_form_for_exact_circle_data() {
    let (ri, rj, eps) = (0.125, 0.2, 3e-5);
    for &d in &[0.029, 0.015, 0.0, -0.01] {
        let gi = Point::<2>::new(1.0, 1.0);
        let n = Vector::<2>::new(-0.28, 0.96);
        let gj = gi - n * (ri + rj + d);
        let f = Law::Glowinski.force(d, &n, (&(gi - n * ri), &(gj + n * rj)), (ri, Some(rj)), RHO, eps);
        let dist = (gi - gj).norm();
        let exact = (gi - gj) * ((ri + rj + RHO - dist).powi(2) / eps);
        assert!((f - exact).norm() <= 1e-12 * exact.norm(), "{f} vs {exact}");
    }
    let n = Vector::<2>::new(0.0, 1.0);
    let x = Point::<2>::zeros();
    assert_eq!(
        Law::Glowinski.force(RHO * 1.01, &n, (&x, &x), (ri, Some(rj)), RHO, eps),
        Vector::<2>::zeros()
    );
}

#[test]
fn glowinski_law_with_discrete_fields_is_within_the_gap_error() {
    let (ra, rb, eps) = (0.125, 0.125, 1e-4);
    let dir = Vector::<2>::new(1.0, 0.0);
    for &g in &[0.02, 0.005] {
        let a = RigidBody::new("a", disk(ra), 1.0, Point::<2>::new(0.5, 0.5));
        let b = RigidBody::new("b", disk(rb), 1.0, Point::<2>::new(0.5 + ra + rb + g, 0.5));
        let c = closest_contact(0, 1, &a, &b, RHO).unwrap();
        let f = model(Law::Glowinski).force(&c, a.geometry.radius, Some(b.geometry.radius));
        let exact = -dir * ((RHO - g).powi(2) * (ra + rb + g) / eps);
        // dF/dd = −2(ρ − d)(R_i + R_j + d)/ε + …: the relative error is about 2 δd/(ρ − d).
        let rel = (f - exact).norm() / exact.norm();
        println!("g {g}: force rel err {rel:.2e}");
        assert!(rel < 2.0 * (RHO / 20.0) / (RHO - g), "{rel}");
    }
}

/// Newton's third law and the balance of torques, for every law, on a random-ish pair of ellipses.
#[test]
fn forces_are_equal_and_opposite_and_torques_balance() {
    let e = geometry(&Ellipsoid { semi_axes: [0.2, 0.1] });
    for law in [Law::Spec, Law::Glowinski, Law::Patches] {
        let mut a = RigidBody::new("a", e.clone(), 1.0, Point::<2>::new(0.7, 0.7));
        a.rotation = 0.3;
        let mut b = RigidBody::new("b", e.clone(), 1.0, Point::<2>::new(0.7 + 0.2 + 0.12, 0.7 + 0.05));
        b.rotation = 1.2;
        let bodies = [a, b];
        let mut solver = ContactSolver::new(model(law), Box::new(BruteForce::<2>::default()));
        let mut force = vec![Vector::<2>::zeros(); 2];
        let mut torque = vec![0.0; 2];
        solver.forces(&bodies, None, 0.0, &mut force, &mut torque).unwrap();
        assert!(!solver.contacts.is_empty(), "{law:?}: the ellipses are within range");
        assert!(force[0].norm() > 0.0);
        assert!((force[0] + force[1]).norm() <= 1e-12 * force[0].norm(), "{law:?}");
        for o in [Point::<2>::zeros(), Point::<2>::new(3.0, -1.0)] {
            let about = |k: usize| {
                let g = bodies[k].position - o;
                torque[k] + g.x * force[k].y - g.y * force[k].x
            };
            let scale = force[0].norm() * 3.0;
            assert!(
                (about(0) + about(1)).abs() <= 1e-12 * scale,
                "{law:?}: {}",
                about(0) + about(1)
            );
        }
    }
}

/// An ellipse tilted by θ just above the floor: the wall contact is at the exact lowest point, and
/// the torque turns it towards horizontal with the magnitude of F × the lever arm.
#[test]
fn ellipse_near_the_floor_torque_sign_and_magnitude() {
    let (a, b) = (0.2, 0.1);
    let e = geometry(&Ellipsoid { semi_axes: [a, b] });
    let walls = unit_box();
    let theta: f64 = 0.4;
    // Lowest point of the tilted ellipse: support function in direction −y.
    let half_height = ((a * theta.sin()).powi(2) + (b * theta.cos()).powi(2)).sqrt();
    let g = 0.01;
    let mut body = RigidBody::new("e", e, 1.0, Point::<2>::new(1.0, half_height + g));
    body.rotation = theta;
    // The lowest point: x offset = −(a² sinθ cosθ − b² sinθ cosθ)/half_height in world x.
    let dx = -(a * a - b * b) * theta.sin() * theta.cos() / half_height;
    let exact = Point::<2>::new(1.0 + dx, 0.0);
    let mut solver = ContactSolver::new(model(Law::Glowinski), Box::new(BruteForce::<2>::default()));
    let mut force = vec![Vector::<2>::zeros(); 1];
    let mut torque = vec![0.0; 1];
    solver
        .forces(std::slice::from_ref(&body), Some(&walls), 0.0, &mut force, &mut torque)
        .unwrap();
    assert_eq!(solver.contacts.len(), 1);
    let c = solver.contacts[0];
    assert_eq!(c.j, WALL);
    println!(
        "gap {:.5} wall point {:?} exact {:?}, torque {}",
        c.gap, c.point_j, exact, torque[0]
    );
    assert!((c.gap - g).abs() < RHO / 20.0);
    assert!((c.point_j - exact).norm() < RHO / 4.0);
    // Force up; the contact point is left of G (dx < 0) for θ > 0, so the torque is clockwise
    // (negative): it lowers the raised right end towards horizontal.
    let arm = (c.point_i.x + c.point_j.x) / 2.0 - body.position.x;
    assert!(torque[0] < 0.0);
    assert!((torque[0] - arm * force[0].y).abs() < 1e-12 * torque[0].abs());
    assert!((arm - dx).abs() < RHO / 4.0, "arm {arm} vs {dx}");
}

/// The tripole (three disks of diameter 0.25) resting symmetrically on two lobes: `patches` gives
/// two contacts and a net torque below 1 % of one contact's; `glowinski` gives one contact.
#[test]
fn tripole_on_the_floor_has_two_patches_and_no_net_torque() {
    let r = 0.125;
    let lobes: Vec<Box<dyn Shape<2>>> = (0..3)
        .map(|k| {
            let a = std::f64::consts::FRAC_PI_2 + k as f64 * 2.0 * std::f64::consts::PI / 3.0;
            Box::new(Ball {
                centre: Point::<2>::new(a.cos(), a.sin()) * 0.2,
                radius: r,
            }) as Box<dyn Shape<2>>
        })
        .collect();
    let tripole = geometry(&Union { parts: lobes });
    // Lobes 1 and 2 point down-left and down-right; their lowest points are at y = −0.1 − r from the
    // shape origin. The body frame is centred on the centroid (the shape origin, by symmetry).
    let lowest = 0.2 * 0.5 + r;
    let walls = unit_box();
    let body = RigidBody::new("t", tripole.clone(), 1.0, Point::<2>::new(1.0, lowest + 0.01));
    let mut force = vec![Vector::<2>::zeros(); 1];
    let mut torque = vec![0.0; 1];
    let mut solver = ContactSolver::new(model(Law::Patches), Box::new(BruteForce::<2>::default()));
    solver
        .forces(std::slice::from_ref(&body), Some(&walls), 0.0, &mut force, &mut torque)
        .unwrap();
    let contacts: Vec<Contact<2>> = solver.contacts.clone();
    assert_eq!(contacts.len(), 2, "{contacts:?}");
    let one = {
        let f = solver.model.force(&contacts[0], tripole.radius, None);
        let a = (contacts[0].point_i + contacts[0].point_j) / 2.0 - body.position;
        (a.x * f.y - a.y * f.x).abs()
    };
    println!("net torque {} one contact's {} {contacts:?}", torque[0], one);
    assert!(torque[0].abs() < 0.01 * one);
    let mut single = ContactSolver::new(model(Law::Glowinski), Box::new(BruteForce::<2>::default()));
    single
        .forces(std::slice::from_ref(&body), Some(&walls), 0.0, &mut force, &mut torque)
        .unwrap();
    assert_eq!(single.contacts.len(), 1);
}

/// Contacts, forces and torques are the same, bit for bit, on 1 and 2 threads (pairs are
/// evaluated in parallel, forces summed in a fixed order): 400 ellipses in a box, all laws.
#[test]
fn results_do_not_depend_on_the_thread_count() {
    let e = geometry(&Ellipsoid {
        semi_axes: [0.05, 0.03],
    });
    let bodies: Vec<RigidBody<2>> = (0..400)
        .map(|k| {
            let (row, col) = (k / 20, k % 20);
            let mut b = RigidBody::new(
                "e",
                e.clone(),
                1.0,
                Point::<2>::new(0.1 + 0.095 * col as f64, 0.1 + 0.07 * row as f64),
            );
            b.rotation = (k as f64 * 0.7).sin();
            b
        })
        .collect();
    let walls = unit_box();
    for law in [Law::Spec, Law::Glowinski, Law::Patches] {
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    let mut solver =
                        ContactSolver::new(model(law), Box::new(tumble::broad::LinkedCell::<2>::default()));
                    let mut force = vec![Vector::<2>::zeros(); bodies.len()];
                    let mut torque = vec![0.0; bodies.len()];
                    solver
                        .forces(&bodies, Some(&walls), 0.0, &mut force, &mut torque)
                        .unwrap();
                    (solver.contacts.clone(), force, torque)
                })
        };
        let (one, two) = (run(1), run(2));
        assert!(one.0.len() > 300, "{law:?}: {} contacts", one.0.len());
        assert_eq!(one, two, "{law:?}");
    }
}
