//! Skipping a body's node clusters out of reach changes no contact: the contacts of a packed 3D
//! heap of balls, ellipsoids and bricks in a box, and of a packed 2D set, are bit for bit those of
//! the same bodies whose surfaces are one cluster (every node evaluated), with every law.

use nalgebra::{UnitQuaternion, Vector3};
use std::sync::Arc;
use tumble::body::{BodyGeometry, Clusters, Dim, Kinematics, RigidBody};
use tumble::broad::BruteForce;
use tumble::contact::{ContactModel, ContactParameters, ContactSolver, Law, Walls};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::axis_box;
use tumble::shape::{Ball, Cuboid, Ellipsoid, Shape};

const RHO: f64 = 0.01;

/// The geometry of `shape`, and the same with its surface as a single cluster.
fn geometries<const D: usize>(shape: &dyn Shape<D>, h: f64) -> (Arc<BodyGeometry<D>>, Arc<BodyGeometry<D>>) {
    let g = BodyGeometry::from_shape(shape, h, 2.0 * RHO).unwrap();
    let whole = BodyGeometry {
        clusters: Clusters::new(&g.surface.points, f64::INFINITY),
        ..g.clone()
    };
    assert_eq!(whole.clusters.len(), 1);
    assert!(g.clusters.len() > 4, "{} clusters", g.clusters.len());
    (Arc::new(g), Arc::new(whole))
}

/// The contacts of `bodies` in `walls` under `law`.
fn contacts<const D: usize>(bodies: &[RigidBody<D>], walls: &Walls<D>, law: Law) -> Vec<tumble::contact::Contact<D>>
where
    Dim<D>: Kinematics<D>,
{
    let parameters = match law {
        Law::Collision => ContactParameters::collision(RHO, 0.5, 1e-3),
        _ => ContactParameters::repulsive(law, RHO, 1e-4),
    };
    let model = ContactModel::new(&parameters).unwrap();
    let mut solver = ContactSolver::new(model, Box::new(BruteForce::<D>::default()));
    let mut force = vec![Vector::<D>::zeros(); bodies.len()];
    let mut torque = vec![<Dim<D> as Kinematics<D>>::zero(); bodies.len()];
    solver
        .forces(bodies, Some(walls), 0.0, &mut force, &mut torque)
        .unwrap();
    solver.contacts.clone()
}

/// Checks that the bodies built with `whole` geometries have the contacts of those built with
/// clustered ones, under every law, and that there are some.
fn same_contacts<const D: usize>(clustered: &[RigidBody<D>], whole: &[RigidBody<D>], walls: &Walls<D>, least: usize)
where
    Dim<D>: Kinematics<D>,
{
    for law in [Law::Spec, Law::Glowinski, Law::Patches, Law::Collision] {
        let (a, b) = (contacts(clustered, walls, law), contacts(whole, walls, law));
        println!(
            "{law:?}: {} contacts, {} with a wall",
            a.len(),
            a.iter().filter(|c| c.j == u32::MAX).count()
        );
        assert!(a.len() >= least, "{law:?}: {} contacts", a.len());
        assert_eq!(a, b, "{law:?}");
    }
}

#[test]
fn skipping_clusters_changes_no_contact_in_3d() {
    let shapes: Vec<Box<dyn Shape<3>>> = vec![
        Box::new(Ball {
            centre: Point::<3>::zeros(),
            radius: 0.04,
        }),
        Box::new(Ellipsoid {
            semi_axes: [0.05, 0.035, 0.03],
        }),
        Box::new(Cuboid {
            half: [0.04, 0.025, 0.02],
        }),
    ];
    let pairs: Vec<_> = shapes.iter().map(|s| geometries(s.as_ref(), 0.004)).collect();
    // A 5 × 5 × 4 lattice 0.075 apart (closer than two bounding radii, so that neighbours touch
    // or overlap), each body turned a little, the lowest layer 0.03 above the floor (the balls
    // within range of it, the others overlapping it), the outer columns as near the side walls.
    let (mut clustered, mut whole) = (Vec::new(), Vec::new());
    for k in 0..100usize {
        let (x, y, z) = (k % 5, (k / 5) % 5, k / 25);
        let position = Point::<3>::new(
            0.035 + 0.075 * x as f64,
            0.035 + 0.075 * y as f64,
            0.045 + 0.075 * z as f64,
        );
        let t = k as f64;
        let rotation = UnitQuaternion::from_scaled_axis(Vector3::new((0.7 * t).sin(), (1.3 * t).cos(), 0.4 * t.sin()));
        for (list, g) in [(&mut clustered, &pairs[k % 3].0), (&mut whole, &pairs[k % 3].1)] {
            let mut b = RigidBody::new("b", g.clone(), 1.0, position);
            b.rotation = rotation;
            list.push(b);
        }
    }
    // Cells much larger than the bodies and unequal in their sides, as a box's default mesh for a
    // slot: a point near an edge of the box lies in a cell whose nodes are nearest to different
    // walls.
    let mesh = axis_box::<3>(Point::<3>::zeros(), Point::<3>::new(0.37, 0.37, 0.5), [2, 6, 3]).unwrap();
    let walls = Walls::new(mesh, &["xmin", "xmax", "ymin", "ymax", "zmin"], 0.1).unwrap();
    same_contacts(&clustered, &whole, &walls, 150);
}

#[test]
fn skipping_clusters_changes_no_contact_in_2d() {
    let shapes: Vec<Box<dyn Shape<2>>> = vec![
        Box::new(Ball {
            centre: Point::<2>::zeros(),
            radius: 0.04,
        }),
        Box::new(Ellipsoid {
            semi_axes: [0.05, 0.03],
        }),
        Box::new(Cuboid { half: [0.04, 0.02] }),
    ];
    let pairs: Vec<_> = shapes.iter().map(|s| geometries(s.as_ref(), 0.004)).collect();
    let (mut clustered, mut whole) = (Vec::new(), Vec::new());
    for k in 0..64usize {
        let position = Point::<2>::new(0.035 + 0.075 * (k % 8) as f64, 0.035 + 0.075 * (k / 8) as f64);
        for (list, g) in [(&mut clustered, &pairs[k % 3].0), (&mut whole, &pairs[k % 3].1)] {
            let mut b = RigidBody::new("b", g.clone(), 1.0, position);
            b.rotation = (1.7 * k as f64).sin();
            list.push(b);
        }
    }
    let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::new(0.62, 0.7), [3, 9]).unwrap();
    let walls = Walls::new(mesh, &["xmin", "xmax", "ymin", "ymax"], 0.1).unwrap();
    same_contacts(&clustered, &whole, &walls, 60);
}

/// Balls of radius 0.5 along the two lower edges of a slot 4 wide whose mesh has cells of
/// 1.25 × 0.083 × 0.625 (a box's default mesh): a cluster's centre 0.14 from the side wall and 0.4
/// from the floor lies in a cell whose nodes are nearest the floor and the side wall; its wall
/// distance is the side wall's (it was the floor's, and skipping its cluster lost nodes of the
/// side wall's contact).
#[test]
fn skipping_clusters_changes_no_contact_in_a_slots_corners() {
    let (clustered, whole) = geometries::<3>(
        &Ball {
            centre: Point::<3>::zeros(),
            radius: 0.5,
        },
        0.04,
    );
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for k in 0..16 {
        let t = k as f64;
        // Gaps 0.001–0.0055 to the side wall and 0.002–0.008 to the floor, all within range.
        let y = if k % 2 == 0 {
            0.501 + 0.0003 * t
        } else {
            3.499 - 0.0003 * t
        };
        let position = Point::<3>::new(0.6 + 0.55 * t, y, 0.502 + 0.0004 * t);
        let rotation = UnitQuaternion::from_scaled_axis(Vector3::new(t.sin(), (2.0 * t).cos(), 0.3 * t));
        for (list, g) in [(&mut a, &clustered), (&mut b, &whole)] {
            let mut body = RigidBody::new("b", g.clone(), 1.0, position);
            body.rotation = rotation;
            list.push(body);
        }
    }
    let mesh = axis_box::<3>(Point::<3>::zeros(), Point::<3>::new(10.0, 4.0, 5.0), [8, 48, 8]).unwrap();
    let walls = Walls::new(mesh, &["xmin", "xmax", "ymin", "ymax", "zmin"], 1.0).unwrap();
    // A point 0.506 from the side wall and 0.5107 above the floor, in a cell whose nodes fast
    // marching gave the floor as their closest wall.
    let (d, w) = walls.query(&Point::<3>::new(1.15, 3.494, 0.5107), &mut 0);
    assert!((d - 0.506).abs() < 1e-12 && (w.y - 4.0).abs() < 1e-12, "{d} at {w:?}");
    same_contacts(&a, &b, &walls, 16);
}
