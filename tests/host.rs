//! Host-mesh mode (fields recomputed on a mesh that follows the bodies) against the body-frame mode
//! on the same configurations: gaps, contact points and forces agree within the mesh error.

use std::sync::Arc;
use tumble::body::{BodyGeometry, RigidBody};
use tumble::broad::{BruteForce, LinkedCell};
use tumble::contact::{accumulate, ContactModel, ContactSolver, HostContact, Law, Walls, WALL};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::{ball, Sphere};
use tumble::shape::Ball;

const RHO: f64 = 0.03;
const R: f64 = 0.125;

fn model() -> ContactModel {
    ContactModel {
        law: Law::Glowinski,
        range: RHO,
        stiffness: 1e-6,
        wall_stiffness: 1e-6,
    }
}

/// Disks `a` and `b` at gap `g` and a disk `c` at gap `gw` from the outer circle of radius 1 (the
/// wall), meshed conformingly at size `h`.
fn configuration(g: f64, gw: f64) -> Vec<Point<2>> {
    vec![
        Point::<2>::new(-0.3, 0.1),
        Point::<2>::new(-0.3 + 2.0 * R + g, 0.1),
        Point::<2>::new(0.0, -(1.0 - R - gw)),
    ]
}

#[test]
fn host_mesh_contacts_agree_with_body_frame_contacts() {
    let (g, gw, h) = (0.01, 0.012, 0.01);
    let centres = configuration(g, gw);
    let mut spheres: Vec<Sphere<2>> = centres
        .iter()
        .enumerate()
        .map(|(k, c)| Sphere::new(*c, R, &format!("body{k}")))
        .collect();
    spheres.push(Sphere::new(Point::<2>::zeros(), 1.0, "wall"));
    let mesh = ball::<2>(&spheres, false, h).unwrap();
    let mut host = HostContact::new(
        model(),
        &mesh,
        &["body0", "body1", "body2"],
        &["wall"],
        Box::new(LinkedCell::<2>::default()),
    )
    .unwrap();
    let host_contacts = host.contacts(&mesh, &centres).unwrap();

    let disk = Arc::new(
        BodyGeometry::from_shape(
            &Ball {
                centre: Point::<2>::zeros(),
                radius: R,
            },
            RHO / 4.0,
            2.0 * RHO,
        )
        .unwrap(),
    );
    let bodies: Vec<RigidBody<2>> = centres
        .iter()
        .map(|c| RigidBody::new("d", disk.clone(), 1.0, *c))
        .collect();
    let wall_mesh = ball::<2>(&[Sphere::new(Point::<2>::zeros(), 1.0, "wall")], false, 0.05).unwrap();
    let walls = Walls::new(wall_mesh, &["wall"], R + 2.0 * RHO).unwrap();
    let mut frame = ContactSolver::new(model(), Box::new(BruteForce::<2>::default()));
    let (mut f_frame, mut t_frame) = (vec![Vector::<2>::zeros(); 3], vec![0.0; 3]);
    frame.forces(&bodies, Some(&walls), &mut f_frame, &mut t_frame).unwrap();

    assert_eq!(host_contacts.len(), 2, "{host_contacts:?}");
    assert_eq!(frame.contacts.len(), 2);
    for (hc, exact_gap) in host_contacts.iter().zip([g, gw]) {
        let fc = frame
            .contacts
            .iter()
            .find(|c| c.i == hc.i && c.j == hc.j)
            .expect("same pair");
        println!(
            "{}-{}: gap host {:.5} frame {:.5} exact {exact_gap}; points {:.1e} {:.1e}",
            hc.i,
            hc.j,
            hc.gap,
            fc.gap,
            (hc.point_i - fc.point_i).norm(),
            (hc.point_j - fc.point_j).norm()
        );
        // The host's gap overestimates by the node sampling, (h/2)²/2 (1/R_i + 1/R_j) at most.
        assert!((hc.gap - exact_gap).abs() < RHO / 20.0);
        assert!((hc.gap - fc.gap).abs() < RHO / 20.0);
        assert!((hc.point_i - fc.point_i).norm() < h);
        assert!((hc.point_j - fc.point_j).norm() < h);
        assert!((hc.normal - fc.normal).norm() < 0.05);
        assert!(hc.j == WALL || hc.j == 1);
    }
    let centres_radii: Vec<(Point<2>, f64)> = centres.iter().map(|c| (*c, R)).collect();
    let (mut f_host, mut t_host) = (vec![Vector::<2>::zeros(); 3], vec![0.0; 3]);
    accumulate(&model(), &host_contacts, &centres_radii, &mut f_host, &mut t_host);
    for k in 0..3 {
        let rel = (f_host[k] - f_frame[k]).norm() / f_frame[k].norm();
        println!(
            "body {k}: force host {:?} frame {:?} rel {rel:.2e}",
            f_host[k].as_slice(),
            f_frame[k].as_slice()
        );
        // dF/F = 2 δd/(ρ − d) with δd ≤ ρ/20 and d ≈ ρ/3.
        assert!(rel < 0.15);
    }
    assert_eq!(host.fields, 1, "one body field for the one pair");
}
