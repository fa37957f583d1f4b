//! Contact time per step on the specification's section 4.2 configurations (1 to 25 disks of
//! radius 0.125 in [0, 2]², ρ = 0.03, every disk within range of the floor or of a neighbour), next
//! to the specification's own figures, and on square packings of up to 10 000 disks to show how the
//! cost scales. Each configuration runs the dry time loop (gravity, `glowinski` law, linked-cell
//! broad phase) and reports the median over the steps of the contact time (broad phase + gap
//! evaluation + forces), and the one-off setup (the disk's body-frame field, shared by all disks,
//! and the walls' field).
//!
//! Then the host-mesh mode (fields recomputed each step on a mesh conforming to the bodies, here
//! disks in a circle of radius 1.5 meshed at h = 0.01) against the body-frame mode on the same
//! configurations; and the specification's section 4.3, the narrow band confined around each
//! body against the whole domain.
//!
//! Then the collision law against Glowinski's on the same 25 and 10 000 disks.
//!
//! Run: `cargo bench --bench contact` (about a minute).

use std::sync::Arc;
use std::time::Instant;
use tumble::body::{BodyGeometry, RigidBody};
use tumble::broad::sets::method;
use tumble::contact::{ContactModel, ContactParameters, ContactSolver, HostContact, Law, Walls};
use tumble::fmm::{distance_to_range, FmmOptions, Front};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::{axis_box, ball, box_with_balls, Sphere};
use tumble::shape::Ball;
use tumble::sim::{Drag, Simulation};

const R: f64 = 0.125;
const RHO: f64 = 0.03;

/// `n` disks on a square grid of `m = ⌈√n⌉` columns, gaps ρ/2 between neighbours and to the floor,
/// centred on x = width/2; the box is [0, width] × [0, height].
fn packing(n: usize, width: f64) -> Vec<Point<2>> {
    let m = (n as f64).sqrt().ceil() as usize;
    let s = 2.0 * R + RHO / 2.0;
    (0..n)
        .map(|k| {
            let (row, col) = (k / m, k % m);
            Point::<2>::new(
                width / 2.0 + (col as f64 - (m as f64 - 1.0) / 2.0) * s,
                R + RHO / 2.0 + row as f64 * s,
            )
        })
        .collect()
}

/// The disk's shared geometry: lattice spacing ρ/4, band 2ρ.
fn disk() -> Arc<BodyGeometry<2>> {
    let shape = Ball {
        centre: Point::<2>::zeros(),
        radius: R,
    };
    Arc::new(BodyGeometry::from_shape(&shape, RHO / 4.0, 2.0 * RHO).unwrap())
}

struct Timing {
    n: usize,
    setup_ms: f64,
    pairs_per_step: f64,
    contacts: usize,
    median_ms: f64,
    broad_ms: f64,
    distance_ms: f64,
    forces_ms: f64,
}

fn run(n: usize, width: f64, steps: usize) -> Timing {
    let start = Instant::now();
    let disk = disk();
    let height = width;
    let cells = (width / (2.0 * RHO)).ceil().min(512.0) as usize;
    let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::new(width, height), [cells, cells]).unwrap();
    let walls = Walls::new(mesh, &["xmin", "xmax", "ymin", "ymax"], R + 2.0 * RHO).unwrap();
    let setup_ms = start.elapsed().as_secs_f64() * 1e3;
    let bodies: Vec<RigidBody<2>> = packing(n, width)
        .into_iter()
        .enumerate()
        .map(|(k, p)| RigidBody::new(&format!("d{k}"), disk.clone(), 1.01, p))
        .collect();
    let model = ContactModel::new(&ContactParameters::repulsive(Law::Glowinski, RHO, 1e-6)).unwrap();
    let solver = ContactSolver::new(model, method::<2>("linked-cell").unwrap());
    let mut sim = Simulation::new(
        bodies,
        Some(walls),
        Vector::<2>::new(0.0, -981.0),
        Drag::default(),
        solver,
    );
    let mut per_step = Vec::new();
    let (mut contacts, mut pairs) = (0, 0.0);
    let mut last = sim.contact.times;
    for _ in 0..steps {
        sim.step(1e-4).unwrap();
        let t = sim.contact.times;
        per_step.push((t.broad - last.broad) + (t.distance - last.distance) + (t.forces - last.forces));
        contacts = contacts.max(sim.contact.contacts.len());
        pairs += sim
            .contact
            .contacts
            .iter()
            .filter(|c| c.j != tumble::contact::WALL)
            .count() as f64;
        last = t;
    }
    per_step.sort_by(f64::total_cmp);
    let t = sim.contact.times;
    let k = steps as f64 / 1e3;
    Timing {
        n,
        setup_ms,
        pairs_per_step: pairs / steps as f64,
        contacts,
        median_ms: per_step[steps / 2] * 1e3,
        broad_ms: t.broad / k,
        distance_ms: t.distance / k,
        forces_ms: t.forces / k,
    }
}

/// Median seconds of `f` over `n` calls.
fn median(n: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..n)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[n / 2]
}

/// The specification's section 4.3: each body's field on a mesh that fits the bodies, by the
/// narrow-band march confined to `2.5ρ`, `3ρ`, `4ρ` from the body against the whole domain. The
/// nine disks of case 4.2.6 in the 2 × 2 box meshed at h = 0.01 (insides included), the nine fields
/// one after the other (an execution), signed, with exact distances at the closest facets; median
/// of 11 executions, beside the specification's 200 executions' time over 200.
fn band_study() {
    let spheres: Vec<Sphere<2>> = packing(9, 2.0)
        .iter()
        .enumerate()
        .map(|(k, c)| Sphere::new(*c, R, &format!("b{k}")))
        .collect();
    let mesh = box_with_balls::<2>(
        Point::<2>::zeros(),
        Point::<2>::new(2.0, 2.0),
        [200, 200],
        &spheres,
        false,
    )
    .unwrap();
    let fronts: Vec<Front<2>> = (0..9)
        .map(|k| Front::named(&mesh, &[format!("b{k}").as_str()]).unwrap())
        .collect();
    let bands = [
        ("the whole domain", None, 0.241),
        ("4ρ", Some(4.0), 0.312),
        ("3ρ", Some(3.0), 0.294),
        ("2.5ρ", Some(2.5), 0.292),
    ];
    for (label, band, spec_s) in bands {
        let options = FmmOptions {
            max_distance: band.map(|b| b * RHO),
            closest_point: true,
            ..FmmOptions::default()
        };
        let mut nodes = 0;
        let s = median(11, || {
            nodes = fronts
                .iter()
                .map(|f| distance_to_range(&mesh, f, &options).unwrap().stats.accepted)
                .sum();
        });
        println!(
            "| {label} | {} | {nodes} | {:.3} | {:.3} |",
            mesh.num_cells(),
            s * 1e3,
            spec_s / 200.0 * 1e3
        );
    }
}

/// The collision law against Glowinski's on the same `n` packed disks (gaps ρ/2, every disk in
/// contact with its neighbours and the floor), the contact of one step (broad phase, gaps, forces)
/// timed in alternation, median of 21 calls each. The collision law finds its contacts up to 2ρ
/// and keeps each contact's springs.
fn law_versus_law(n: usize, width: f64) {
    let disk = disk();
    let cells = (width / (2.0 * RHO)).ceil().min(512.0) as usize;
    let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::new(width, width), [cells, cells]).unwrap();
    let walls = Walls::new(mesh, &["xmin", "xmax", "ymin", "ymax"], R + 2.0 * RHO).unwrap();
    let bodies: Vec<RigidBody<2>> = packing(n, width)
        .into_iter()
        .enumerate()
        .map(|(k, p)| RigidBody::new(&format!("d{k}"), disk.clone(), 1.01, p))
        .collect();
    let solver = |parameters: ContactParameters| {
        ContactSolver::new(
            ContactModel::new(&parameters).unwrap(),
            method::<2>("linked-cell").unwrap(),
        )
    };
    let mut glowinski = solver(ContactParameters::repulsive(Law::Glowinski, RHO, 1e-6));
    let mut collision = solver(ContactParameters {
        friction: Some(0.3),
        rolling: Some(0.01),
        ..ContactParameters::collision(RHO, 0.9, 2e-3)
    });
    let (mut f, mut t) = (vec![Vector::<2>::zeros(); n], vec![0.0; n]);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..21 {
        a.push(median(1, || {
            glowinski.forces(&bodies, Some(&walls), 1e-4, &mut f, &mut t).unwrap()
        }));
        b.push(median(1, || {
            collision.forces(&bodies, Some(&walls), 1e-4, &mut f, &mut t).unwrap()
        }));
    }
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    println!(
        "| {n} | {} | {} | {:.4} | {:.4} | {:.2} |",
        glowinski.contacts.len(),
        collision.contacts.len(),
        a[10] * 1e3,
        b[10] * 1e3,
        b[10] / a[10]
    );
}

/// Host-mesh mode against body-frame mode on `n` packed disks (each within range of its
/// neighbours) in the middle of a circle of radius 1.5.
fn host_versus_frame(n: usize) {
    let model = ContactModel::new(&ContactParameters::repulsive(Law::Glowinski, RHO, 1e-6)).unwrap();
    let outer = 1.5;
    let rows = (n as f64).sqrt().ceil();
    let centres: Vec<Point<2>> = packing(n, 0.0)
        .into_iter()
        .map(|p| p - Vector::<2>::new(0.0, rows * (R + RHO / 4.0)))
        .collect();
    let mut spheres: Vec<Sphere<2>> = centres
        .iter()
        .enumerate()
        .map(|(k, c)| Sphere::new(*c, R, &format!("b{k}")))
        .collect();
    spheres.push(Sphere::new(Point::<2>::zeros(), outer, "wall"));
    let mesh = ball::<2>(&spheres, false, 0.01).unwrap();
    let names: Vec<String> = (0..n).map(|k| format!("b{k}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut host = HostContact::new(model, &mesh, &refs, &["wall"], method::<2>("linked-cell").unwrap()).unwrap();
    let mut contacts = 0;
    let host_s = median(5, || contacts = host.contacts(&mesh, &centres).unwrap().len());

    let disk = disk();
    let bodies: Vec<RigidBody<2>> = centres
        .iter()
        .map(|c| RigidBody::new("d", disk.clone(), 1.0, *c))
        .collect();
    let wall_mesh = ball::<2>(&[Sphere::new(Point::<2>::zeros(), outer, "wall")], false, 0.05).unwrap();
    let walls = Walls::new(wall_mesh, &["wall"], R + 2.0 * RHO).unwrap();
    let mut frame = ContactSolver::new(model, method::<2>("linked-cell").unwrap());
    let (mut f, mut t) = (vec![Vector::<2>::zeros(); n], vec![0.0; n]);
    let frame_s = median(5, || frame.forces(&bodies, Some(&walls), 0.0, &mut f, &mut t).unwrap());
    println!(
        "| {n} | {} | {} | {} | {:.3} | {:.4} | {:.0}x |",
        mesh.num_cells(),
        contacts,
        frame.contacts.len(),
        host_s * 1e3,
        frame_s * 1e3,
        host_s / frame_s
    );
}

fn main() {
    println!("Section 4.2 configurations: contact time per step (median of 50 steps), 2 threads.\n");
    println!("| disks | contacts | median ms/step | broad / distance / forces ms (mean) | setup ms | specification, complex-shaped bodies, s per execution |");
    println!("|---|---|---|---|---|---|");
    // The specification's "complex shaped body" column: total seconds / executions.
    let spec = [
        (1, 8.38542, 150),
        (2, 21.24991, 200),
        (3, 33.05940, 203),
        (6, 73.74359, 203),
        (9, 118.6058, 200),
        (16, 369.1102, 257),
        (25, 1041.908, 311),
    ];
    for (n, total, executions) in spec {
        let t = run(n, 2.0, 50);
        println!(
            "| {n} | {} | {:.4} | {:.4} / {:.4} / {:.4} | {:.1} | {:.3} ({:.0}x) |",
            t.contacts,
            t.median_ms,
            t.broad_ms,
            t.distance_ms,
            t.forces_ms,
            t.setup_ms,
            total / executions as f64,
            total / executions as f64 / (t.median_ms * 1e-3)
        );
    }
    println!("\nScaling: square packings in a box, every disk within range of its neighbours.\n");
    println!("| disks | body pairs in contact | contacts | median ms/step | µs per disk | broad / distance / forces ms (mean) |");
    println!("|---|---|---|---|---|---|");
    for n in [100, 1_000, 10_000] {
        let width = ((n as f64).sqrt().ceil() + 2.0) * (2.0 * R + RHO / 2.0);
        let t = run(n, width, 20);
        println!(
            "| {} | {:.0} | {} | {:.3} | {:.2} | {:.3} / {:.3} / {:.3} |",
            t.n,
            t.pairs_per_step,
            t.contacts,
            t.median_ms,
            t.median_ms * 1e3 / n as f64,
            t.broad_ms,
            t.distance_ms,
            t.forces_ms
        );
    }
    println!("\nThe collision law against Glowinski's: the contact of one step on the same disks, alternated, median of 21 calls.\n");
    println!("| disks | contacts (glowinski) | contacts (collision) | glowinski ms | collision ms | ratio |");
    println!("|---|---|---|---|---|---|");
    law_versus_law(25, 2.0);
    law_versus_law(10_000, (100.0 + 2.0) * (2.0 * R + RHO / 2.0));
    println!("\nHost-mesh mode (narrow-band fields on a conforming mesh, recomputed per step) against the body-frame mode, median of 5 calls.\n");
    println!("| disks | host mesh triangles | contacts (host) | contacts (body frame) | host ms/step | body-frame ms/step | ratio |");
    println!("|---|---|---|---|---|---|---|");
    for n in [1, 9, 25] {
        host_versus_frame(n);
    }
    println!("\nSection 4.3: nine disks' fields on a mesh that fits them (case 4.2.6), the march confined to a band around each body against the whole domain, one execution = the nine fields, median of 11.\n");
    println!("| band | triangles | nodes computed | ms per execution | specification, ms per execution |");
    println!("|---|---|---|---|---|");
    band_study();
}
