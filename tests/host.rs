//! Host-mesh mode (fields recomputed on a mesh that follows the bodies) against the body-frame mode
//! on the same configurations: gaps, contact points and forces agree within the mesh error.

use std::collections::BTreeSet;
use std::sync::Arc;
use tumble::body::{Angular, BodyGeometry, Dim, Kinematics, RigidBody};
use tumble::broad::{BruteForce, LinkedCell};
use tumble::contact::{accumulate, ContactModel, ContactParameters, ContactSolver, HostContact, Law, Walls, WALL};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::{ball, Sphere};
use tumble::mesh::{MeshParts, SimplexMesh};
use tumble::shape::Ball;

const RHO: f64 = 0.03;
const R: f64 = 0.125;

fn model() -> ContactModel {
    ContactModel::new(&ContactParameters::repulsive(Law::Glowinski, RHO, 1e-6)).unwrap()
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
    frame
        .forces(&bodies, Some(&walls), 0.0, &mut f_frame, &mut t_frame)
        .unwrap();

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
    accumulate(&model(), host_contacts, &centres_radii, &mut f_host, &mut t_host);
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

/// `|w|` of a torque in either dimension: `½ Σ_k |w × e_k|² = |w|²`.
fn magnitude<const D: usize>(w: &Angular<D>) -> f64
where
    Dim<D>: Kinematics<D>,
{
    let sum: f64 = (0..D)
        .map(|k| {
            <Dim<D> as Kinematics<D>>::spin(w, &Vector::<D>::from_fn(|a, _| if a == k { 1.0 } else { 0.0 }))
                .norm_squared()
        })
        .sum();
    (sum / 2.0).sqrt()
}

/// The mesh `spheres` makes at size `h`, with the facets of marker `from` given marker `to`: two
/// spheres become one body (a rigid body of two lobes, non-convex).
fn merged<const D: usize>(spheres: &[Sphere<D>], h: f64, from: i32, to: i32) -> SimplexMesh<D> {
    let mesh = ball::<D>(spheres, false, h).unwrap();
    let mut facet_names = mesh.facet_names().clone();
    facet_names.remove(&from);
    SimplexMesh::new(MeshParts {
        points: mesh.points().to_vec(),
        cells: mesh.cells().to_vec(),
        cell_markers: mesh.cell_markers().to_vec(),
        facets: mesh.facets().to_vec(),
        facet_markers: mesh
            .facet_markers()
            .iter()
            .map(|&m| if m == from { to } else { m })
            .collect(),
        facet_names,
        cell_names: mesh.cell_names().clone(),
    })
    .unwrap()
}

/// What a host-mesh contact step gave: the contacts, each body's force and torque, and the checks
/// of the node loads (the largest relative misfit of their sums and moments against the forces
/// and torques, and of the walls' reaction).
struct Step<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    contacts: Vec<tumble::contact::Contact<D>>,
    force: Vec<Vector<D>>,
    torque: Vec<Angular<D>>,
    loads_misfit: f64,
}

fn step<const D: usize>(
    model: ContactModel,
    mesh: &SimplexMesh<D>,
    bodies: &[i32],
    walls: &[i32],
    centres: &[Point<D>],
) -> Step<D>
where
    Dim<D>: Kinematics<D>,
{
    let mut host = HostContact::from_markers(model, mesh, bodies, walls, Box::new(BruteForce::<D>::default())).unwrap();
    let contacts = host.contacts(mesh, centres).unwrap().to_vec();
    let n = bodies.len();
    let (mut force, mut torque) = (
        vec![Vector::<D>::zeros(); n],
        vec![<Dim<D> as Kinematics<D>>::zero(); n],
    );
    host.forces(&mut force, &mut torque).unwrap();
    let mut loads = vec![Vector::<D>::zeros(); mesh.num_points()];
    host.node_loads(&mut loads).unwrap();
    // The loads on each body's nodes against its force and torque; the walls' against the sum.
    let mut misfit: f64 = 0.0;
    let scale = force.iter().map(|f| f.norm()).fold(0.0, f64::max);
    let nodes_of = |tags: &[i32]| -> Vec<u32> {
        let set: BTreeSet<u32> = (0..mesh.facets().len() as u32)
            .filter(|&f| tags.contains(&mesh.facet_markers()[f as usize]))
            .flat_map(|f| mesh.facets()[f as usize])
            .collect();
        set.into_iter().collect()
    };
    for (k, &tag) in bodies.iter().enumerate() {
        let (mut sum, mut moment) = (Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero());
        for v in nodes_of(&[tag]) {
            let l = loads[v as usize];
            sum += l;
            moment += <Dim<D> as Kinematics<D>>::torque(&(mesh.points()[v as usize] - centres[k]), &l);
        }
        misfit = misfit.max((sum - force[k]).norm() / scale);
        misfit = misfit.max(magnitude::<D>(&(moment - torque[k])) / scale);
    }
    if !walls.is_empty() {
        let on_walls: Vector<D> = nodes_of(walls).iter().map(|&v| loads[v as usize]).sum();
        let total: Vector<D> = force.iter().sum();
        misfit = misfit.max((on_walls + total).norm() / scale);
    }
    Step {
        contacts,
        force,
        torque,
        loads_misfit: misfit,
    }
}

/// The exact force and torque about `centre` on a body of `lobes` from contacts whose forces
/// `law(gap)` push each lobe along the line from `source` through its centre (towards `source` if
/// `inward`): each contact is given by its gap and a point near its lobe.
fn pushed<const D: usize>(
    contacts: impl Iterator<Item = (f64, Point<D>)>,
    lobes: &[Point<D>],
    (source, inward): (Point<D>, bool),
    centre: Point<D>,
    law: impl Fn(f64) -> f64,
) -> (Vector<D>, Angular<D>)
where
    Dim<D>: Kinematics<D>,
{
    let (mut force, mut torque) = (Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero());
    for (gap, near) in contacts {
        let lobe = *lobes
            .iter()
            .min_by(|a, b| (*a - near).norm().total_cmp(&(*b - near).norm()))
            .unwrap();
        let f = (lobe - source).normalize() * law(gap) * if inward { -1.0 } else { 1.0 };
        force += f;
        torque += <Dim<D> as Kinematics<D>>::torque(&(lobe - centre), &f);
    }
    (force, torque)
}

/// Two lobes of radius `r` (one body, centre of mass `G` between them) at gap `g` from the inside
/// of the unit circle or sphere, symmetric about the lowest point at angles `±θ`: the `patches` law
/// finds both contacts, each Glowinski's wall force `(ρ − g)² 2 (R + g) / ε_W` along the radius
/// through its lobe (`R = c sin θ + r` the body's bounding radius about `G`, `c = 1 − r − g`),
/// which sum to `2 F cos θ` upwards with no torque about `G`; the `glowinski` law keeps the one
/// closest contact, with its torque `F c sin θ cos θ`.
fn two_lobes_on_the_wall<const D: usize>(rho: f64, g: f64, h: f64)
where
    Dim<D>: Kinematics<D>,
{
    let (r, theta) = (0.125, 0.35_f64);
    let c = 1.0 - r - g;
    let lobe = |s: f64| {
        let mut x = Point::<D>::zeros();
        x[0] = s * c * theta.sin();
        x[D - 1] = -c * theta.cos();
        x
    };
    let spheres = [
        Sphere::new(lobe(-1.0), r, "lobe_a"),
        Sphere::new(lobe(1.0), r, "lobe_b"),
        Sphere::new(Point::<D>::zeros(), 1.0, "wall"),
    ];
    let mesh = merged(&spheres, h, 2, 1);
    let centre = (lobe(-1.0) + lobe(1.0)) * 0.5;
    let model = ContactModel { range: rho, ..model() };
    let eps = model.wall_stiffness;
    let bounding = c * theta.sin() + r;
    // Glowinski's wall force at gap d.
    let law = |d: f64| (rho - d).powi(2) * 2.0 * (bounding + d) / eps;

    let patches = step(
        ContactModel {
            law: Law::Patches,
            ..model
        },
        &mesh,
        &[1],
        &[3],
        &[centre],
    );
    let one = step(model, &mesh, &[1], &[3], &[centre]);
    // The exact forces at the measured gaps: what is left is the normals' and the patches' error.
    let each = law(g);
    let lobes = [lobe(-1.0), lobe(1.0)];
    let (up, turn) = pushed(
        patches.contacts.iter().map(|c| (c.gap, c.point_i)),
        &lobes,
        (Point::<D>::zeros(), true),
        centre,
        law,
    );
    println!(
        "{D}D, h {h}: patches {} contacts, gaps {:?}, force {:?} (exact {:?}), |torque| {:.3e}, loads misfit {:.1e}; \
         glowinski {} contact, |torque| {:.3e} (one lobe: {:.3e}), loads misfit {:.1e}",
        patches.contacts.len(),
        patches.contacts.iter().map(|c| c.gap).collect::<Vec<_>>(),
        patches.force[0].as_slice(),
        up.as_slice(),
        magnitude::<D>(&patches.torque[0]),
        patches.loads_misfit,
        one.contacts.len(),
        magnitude::<D>(&one.torque[0]),
        law(one.contacts[0].gap) * c * theta.sin() * theta.cos(),
        one.loads_misfit,
    );
    assert_eq!(patches.contacts.len(), 2);
    assert_eq!(one.contacts.len(), 1);
    for contact in &patches.contacts {
        assert_eq!(contact.j, WALL);
        // Node sampling: the gap is measured from nodes, at most (h/2)²/(2r) above the exact one.
        assert!(
            contact.gap >= g - 1e-12 && contact.gap - g < h * h / r,
            "gap {}",
            contact.gap
        );
    }
    assert!((patches.force[0] - up).norm() < 0.01 * up.norm());
    assert!(magnitude::<D>(&(patches.torque[0] - turn)) < 0.01 * each * c * theta.sin());
    let lone = magnitude::<D>(&one.torque[0]) / (law(one.contacts[0].gap) * c * theta.sin() * theta.cos());
    assert!(
        (lone - 1.0).abs() < 0.05,
        "the one contact's torque is {lone} of a lobe's"
    );
    assert!(patches.loads_misfit < 1e-12 && one.loads_misfit < 1e-12);
}

#[test]
fn a_two_lobed_body_rests_on_both_lobes_with_the_patches_law_in_2d() {
    two_lobes_on_the_wall::<2>(RHO, 0.01, 0.01);
}

#[test]
fn a_two_lobed_body_rests_on_both_lobes_with_the_patches_law_in_3d() {
    // The generator needs a lattice step between the spheres: a wider range than in 2D.
    two_lobes_on_the_wall::<3>(0.1, 0.05, 0.04);
}

/// Two lobes of radius 0.1 (one body) at gap `g` from a ball of radius 0.4 (another body) at
/// angles `±θ` from its top: the `patches` law finds both contacts of the pair, each Glowinski's
/// `(ρ − d)² (R_0 + R_1 + d) / ε` along the line of the centres: at equal gaps the lobes take
/// `2 F cos θ` upwards, the ball the opposite, and neither a torque.
fn two_lobes_on_a_ball<const D: usize>(rho: f64, g: f64, h: f64, tolerance: f64)
where
    Dim<D>: Kinematics<D>,
{
    let (r0, r1, theta) = (0.4, 0.1, 0.5_f64);
    let mut base = Point::<D>::zeros();
    base[D - 1] = -0.3;
    let c = r0 + r1 + g;
    let lobe = |s: f64| {
        let mut x = base;
        x[0] += s * c * theta.sin();
        x[D - 1] += c * theta.cos();
        x
    };
    let spheres = [
        Sphere::new(base, r0, "ball"),
        Sphere::new(lobe(-1.0), r1, "lobe_a"),
        Sphere::new(lobe(1.0), r1, "lobe_b"),
        Sphere::new(Point::<D>::zeros(), 1.0, "wall"),
    ];
    let mesh = merged(&spheres, h, 3, 2);
    let centres = [base, (lobe(-1.0) + lobe(1.0)) * 0.5];
    let model = ContactModel {
        law: Law::Patches,
        range: rho,
        ..model()
    };
    let s = step(model, &mesh, &[1, 2], &[4], &centres);
    let bounding = c * theta.sin() + r1;
    let law = |d: f64| (rho - d).powi(2) * (r0 + bounding + d) / model.stiffness;
    let lobes = [lobe(-1.0), lobe(1.0)];
    let (up, turn) = pushed(
        s.contacts.iter().map(|c| (c.gap, c.point_j)),
        &lobes,
        (base, false),
        centres[1],
        law,
    );
    println!(
        "{D}D, h {h}: {} contacts, gaps {:?}, force on the lobes {:?} (exact at these gaps {:?}), |torques| {:.2e} {:.2e}, loads misfit {:.1e}",
        s.contacts.len(),
        s.contacts.iter().map(|c| c.gap).collect::<Vec<_>>(),
        s.force[1].as_slice(),
        up.as_slice(),
        magnitude::<D>(&s.torque[0]),
        magnitude::<D>(&s.torque[1]),
        s.loads_misfit
    );
    assert_eq!(s.contacts.len(), 2);
    for contact in &s.contacts {
        assert_eq!((contact.i, contact.j), (0, 1));
        assert!(
            contact.gap >= g - 1e-12 && contact.gap - g < h * h / r1,
            "gap {}",
            contact.gap
        );
    }
    assert!((s.force[1] - up).norm() < tolerance * up.norm());
    assert!((s.force[0] + s.force[1]).norm() < 1e-12 * up.norm());
    assert!(magnitude::<D>(&(s.torque[1] - turn)) < tolerance * up.norm() * c);
    assert!(magnitude::<D>(&s.torque[0]) < tolerance * up.norm() * c);
    assert!(s.loads_misfit < 1e-12);
}

#[test]
fn a_two_lobed_body_rests_on_a_ball_at_two_contacts_in_2d() {
    two_lobes_on_a_ball::<2>(RHO, 0.01, 0.01, 0.01);
}

#[test]
fn a_two_lobed_body_rests_on_a_ball_at_two_contacts_in_3d() {
    // Lobes 2.2 lattice steps in radius: their facets tilt the normals by up to 2 %.
    two_lobes_on_a_ball::<3>(0.1, 0.05, 0.04, 0.02);
}
