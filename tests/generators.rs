//! The mesh generators against exact geometry: total measure, nodes on the conforming spheres,
//! element counts near the specification's tables, a minimum quality, boundary markers.

use std::f64::consts::PI;
use tumble::math::Point;
use tumble::mesh::generate::{axis_box, ball, Sphere};
use tumble::SimplexMesh;

fn total_measure<const D: usize>(mesh: &SimplexMesh<D>) -> f64 {
    mesh.cell_measures().iter().sum()
}

fn min_quality<const D: usize>(mesh: &SimplexMesh<D>) -> f64 {
    mesh.cell_quality().iter().cloned().fold(f64::INFINITY, f64::min)
}

/// Sum of the measures of the facets with `marker`, and the largest distance of their nodes
/// from the sphere.
fn sphere_facets<const D: usize>(mesh: &SimplexMesh<D>, name: &str, centre: Point<D>, r: f64) -> (f64, f64, usize) {
    let marker = mesh.facet_marker(name).unwrap();
    let (mut area, mut off, mut count) = (0.0, 0.0f64, 0);
    for f in mesh.facets_marked(marker) {
        let n = mesh.facet_area_normal(f);
        area += n.norm();
        count += 1;
        let p0 = mesh.points()[mesh.facets()[f as usize][0] as usize];
        assert!(
            n.dot(&(p0 - centre)) > 0.0,
            "facet {f} of {name} is not oriented outward"
        );
        for &v in &mesh.facets()[f as usize] {
            off = off.max(((mesh.points()[v as usize] - centre).norm() - r).abs());
        }
    }
    (area, off, count)
}

#[test]
fn rectangle_and_box_measure_and_markers() {
    let rect = axis_box::<2>(Point::<2>::new(0.0, 0.0), Point::<2>::new(2.0, 6.0), [8, 24]).unwrap();
    assert_eq!(rect.num_cells(), 2 * 8 * 24);
    assert!((total_measure(&rect) - 12.0).abs() < 1e-12);
    // Right isosceles triangles: no obtuse angle, quality 4√3·(1/2)/(1 + 1 + 2) = √3/2.
    assert!((min_quality(&rect) - 3f64.sqrt() / 2.0).abs() < 1e-12);
    let bottom = rect.facet_marker("ymin").unwrap();
    let len: f64 = rect
        .facets_marked(bottom)
        .map(|f| rect.facet_area_normal(f).norm())
        .sum();
    assert!((len - 2.0).abs() < 1e-12);
    assert_eq!(rect.boundary().len(), rect.facets().len());
    assert_eq!(rect.facets().len(), 2 * (8 + 24));

    let cube = axis_box::<3>(Point::<3>::zeros(), Point::<3>::new(1.0, 2.0, 3.0), [4, 8, 12]).unwrap();
    assert_eq!(cube.num_cells(), 6 * 4 * 8 * 12);
    assert!((total_measure(&cube) - 6.0).abs() < 1e-12);
    assert_eq!(cube.boundary().len(), cube.facets().len());
    for (name, area) in [("xmin", 6.0), ("ymax", 3.0), ("zmin", 2.0)] {
        let m = cube.facet_marker(name).unwrap();
        let a: f64 = cube.facets_marked(m).map(|f| cube.facet_area_normal(f).norm()).sum();
        assert!((a - area).abs() < 1e-12, "{name}: {a}");
    }
    // Outward normals on the boundary.
    for &face in cube.boundary() {
        let n = cube.face_area_normal(face);
        let c = cube.cell_points(face.cell)[..4].iter().sum::<Point<3>>() / 4.0;
        let f = cube.face_nodes(face);
        assert!(n.dot(&(cube.points()[f[0] as usize] - c)) > 0.0);
    }
}

/// Volume (area) enclosed by the facets of `name`, by the divergence theorem:
/// `(1/D) Σ_f x_f · n_f` over the outward area-weighted facet normals.
fn enclosed_measure<const D: usize>(mesh: &SimplexMesh<D>, name: &str) -> f64 {
    let marker = mesh.facet_marker(name).unwrap();
    mesh.facets_marked(marker)
        .map(|f| mesh.points()[mesh.facets()[f as usize][0] as usize].dot(&mesh.facet_area_normal(f)))
        .sum::<f64>()
        / D as f64
}

/// The longest edge among the facets of `name`.
fn longest_facet_edge<const D: usize>(mesh: &SimplexMesh<D>, name: &str) -> f64 {
    let marker = mesh.facet_marker(name).unwrap();
    let mut longest = 0.0f64;
    for f in mesh.facets_marked(marker) {
        let nodes = mesh.facets()[f as usize];
        for i in 0..D {
            for j in i + 1..D {
                longest = longest.max((mesh.points()[nodes[i] as usize] - mesh.points()[nodes[j] as usize]).norm());
            }
        }
    }
    longest
}

/// Checks that the mesh fills the regions bounded by the spheres exactly (cell measures against
/// the divergence theorem on the sphere facets, to round-off) and that those regions are within the
/// facet sag `ℓ² / R` of the exact balls.
fn check_conforming<const D: usize>(mesh: &SimplexMesh<D>, spheres: &[Sphere<D>], hole: bool) {
    let ball_measure = |r: f64| if D == 2 { PI * r * r } else { 4.0 / 3.0 * PI * r.powi(3) };
    let sphere_measure = |r: f64| if D == 2 { 2.0 * PI * r } else { 4.0 * PI * r * r };
    for (k, s) in spheres.iter().enumerate() {
        let (area, off, count) = sphere_facets(mesh, &s.name, s.centre, s.radius);
        assert!(count > 0 && off < 1e-12, "{}: nodes {off} off the sphere", s.name);
        let enclosed = enclosed_measure(mesh, &s.name);
        let cells: f64 = mesh
            .cell_markers()
            .iter()
            .zip(mesh.cell_measures())
            .filter(|(&m, _)| m as usize <= k + 1)
            .map(|(_, v)| v)
            .sum();
        let hole_measure = if hole {
            enclosed_measure(mesh, &spheres[0].name)
        } else {
            0.0
        };
        if !(hole && k == 0) {
            assert!(
                (cells + hole_measure - enclosed).abs() < 1e-10 * enclosed,
                "{}: cells {cells} + hole {hole_measure} against enclosed {enclosed}",
                s.name
            );
        }
        let l = longest_facet_edge(mesh, &s.name);
        let sag = l * l / s.radius;
        let exact = ball_measure(s.radius);
        assert!(
            enclosed < exact && exact - enclosed < sphere_measure(s.radius) * sag,
            "{}: {enclosed} vs {exact}",
            s.name
        );
        assert!(area < sphere_measure(s.radius) && area > sphere_measure(s.radius) * (1.0 - 2.0 * sag / s.radius));
    }
}

#[test]
fn disk_conforms_to_circles() {
    let o = Point::<2>::zeros();
    let circles = [
        Sphere::new(o, 1.0, "r1"),
        Sphere::new(o, 2.0, "r2"),
        Sphere::new(o, 3.0, "outer"),
    ];
    // The specification's Gmsh meshes (its section 1.2).
    let gmsh_counts = [472.0, 1828.0, 6890.0, 26712.0, 105940.0];
    for (h, gmsh) in [0.4, 0.2, 0.1, 0.05, 0.025].into_iter().zip(gmsh_counts) {
        let mesh = ball(&circles, false, h).unwrap();
        check_conforming(&mesh, &circles, false);
        let q = min_quality(&mesh);
        assert!(q > 0.25, "h = {h}: min quality {q}");
        let n = mesh.num_cells() as f64;
        assert!((n / gmsh - 1.0).abs() < 0.08, "{n} triangles at h = {h}, Gmsh {gmsh}");
        assert_eq!(mesh.boundary().len(), mesh.facets_marked(3).count());
    }
}

#[test]
fn annulus_has_a_hole() {
    let o = Point::<2>::new(0.5, -0.25);
    let circles = [Sphere::new(o, 1.0, "inner"), Sphere::new(o, 3.0, "outer")];
    let mesh = ball(&circles, true, 0.1).unwrap();
    check_conforming(&mesh, &circles, true);
    assert_eq!(mesh.boundary().len(), mesh.facets().len());
    assert!(mesh.cell_marker("inside_inner").is_err());
}

#[test]
fn ball_conforms_to_spheres() {
    let o = Point::<3>::zeros();
    let spheres = [
        Sphere::new(o, 1.0, "r1"),
        Sphere::new(o, 2.0, "r2"),
        Sphere::new(o, 3.0, "outer"),
    ];
    // The specification's Gmsh meshes (its section 1.3); the coarsest is left out of the count
    // check (one lattice step of 0.9 against radii of 1: counts there depend on the rounding).
    for (h, gmsh) in [(0.8, None), (0.4, Some(8967.0)), (0.2, Some(69966.0))] {
        let mesh = ball(&spheres, false, h).unwrap();
        check_conforming(&mesh, &spheres, false);
        let q = min_quality(&mesh);
        assert!(q > 0.08, "h = {h}: min quality {q}");
        if let Some(gmsh) = gmsh {
            let n = mesh.num_cells() as f64;
            assert!((n / gmsh - 1.0).abs() < 0.08, "{n} tetrahedra at h = {h}, Gmsh {gmsh}");
        }
    }
}

#[test]
fn shell_has_a_hole() {
    let o = Point::<3>::new(0.1, 0.2, -0.3);
    let spheres = [Sphere::new(o, 0.5, "inner"), Sphere::new(o, 1.5, "outer")];
    let mesh = ball(&spheres, true, 0.15).unwrap();
    check_conforming(&mesh, &spheres, true);
    assert_eq!(mesh.boundary().len(), mesh.facets().len());
}

#[test]
fn bad_generator_input_is_an_error() {
    let o = Point::<2>::zeros();
    assert!(ball(&[Sphere::new(o, 1.0, "a"), Sphere::new(o, 1.05, "b")], false, 0.1).is_err());
    assert!(ball(&[Sphere::new(o, -1.0, "a")], false, 0.1).is_err());
    assert!(ball(&[Sphere::new(o, 1.0, "a")], false, 0.0).is_err());
    assert!(ball(&[Sphere::new(o, 1.0, "a")], true, 0.1).is_err());
    assert!(ball::<2>(&[], false, 0.1).is_err());
    assert!(axis_box::<2>(Point::<2>::new(0.0, 0.0), Point::<2>::new(1.0, 0.0), [2, 2]).is_err());
    assert!(axis_box::<3>(Point::<3>::zeros(), Point::<3>::repeat(1.0), [2, 0, 2]).is_err());
}

/// Exact moments: a rectangle and a box (exact to round-off) and a disk and a ball (within the
/// polygonal approximation of their boundary), against the analytic area, centroid and inertia.
#[test]
fn moments_against_analytic_values() {
    let (a, b) = (2.0, 0.5);
    let rect = axis_box::<2>(Point::<2>::new(1.0, -1.0), Point::<2>::new(1.0 + a, -1.0 + b), [13, 7]).unwrap();
    let m = rect.moments(|_| true);
    assert!((m.measure - a * b).abs() < 1e-13);
    assert!((m.centroid - Point::<2>::new(1.0 + a / 2.0, -1.0 + b / 2.0)).norm() < 1e-13);
    assert!((m.second[(0, 0)] - a.powi(3) * b / 12.0).abs() < 1e-13);
    assert!((m.second[(1, 1)] - a * b.powi(3) / 12.0).abs() < 1e-13);
    assert!(m.second[(0, 1)].abs() < 1e-13);
    // Polar moment of a rectangle of density 3: 3 · ab(a² + b²)/12.
    assert!((m.inertia(3.0)[(0, 0)] - 3.0 * a * b * (a * a + b * b) / 12.0).abs() < 1e-12);

    let (a, b, c) = (1.0, 2.0, 0.5);
    let cuboid = axis_box::<3>(Point::<3>::zeros(), Point::<3>::new(a, b, c), [5, 7, 3]).unwrap();
    let m = cuboid.moments(|_| true);
    let v = a * b * c;
    assert!((m.measure - v).abs() < 1e-13);
    let inertia = m.inertia(2.0);
    // Box: I_xx = ρ V (b² + c²)/12, and so on; no products of inertia.
    for (k, expected) in [(0, b * b + c * c), (1, a * a + c * c), (2, a * a + b * b)] {
        assert!((inertia[(k, k)] - 2.0 * v * expected / 12.0).abs() < 1e-12, "{k}");
    }
    assert!(inertia[(0, 1)].abs() < 1e-13 && inertia[(1, 2)].abs() < 1e-13);

    // Disk of radius 0.5 centred at (0.3, 0.2): area πR², polar moment ρ π R⁴ / 2.
    let r = 0.5;
    let disk = ball(&[Sphere::new(Point::<2>::new(0.3, 0.2), r, "b")], false, 0.01).unwrap();
    let m = disk.moments(|_| true);
    assert!((m.measure / (PI * r * r) - 1.0).abs() < 1e-3, "{}", m.measure);
    assert!((m.centroid - Point::<2>::new(0.3, 0.2)).norm() < 1e-6);
    let polar = m.inertia(1.0)[(0, 0)];
    assert!((polar / (PI * r.powi(4) / 2.0) - 1.0).abs() < 2e-3, "{polar}");

    // Ball of radius 0.5: volume 4πR³/3, inertia 2/5 M R² on each axis.
    let sphere = ball(&[Sphere::new(Point::<3>::zeros(), r, "b")], false, 0.04).unwrap();
    let m = sphere.moments(|_| true);
    let volume = 4.0 / 3.0 * PI * r.powi(3);
    assert!((m.measure / volume - 1.0).abs() < 0.02, "{}", m.measure);
    let inertia = m.inertia(1.0);
    for k in 0..3 {
        let expected = 0.4 * volume * r * r;
        assert!(
            (inertia[(k, k)] / expected - 1.0).abs() < 0.04,
            "{k}: {}",
            inertia[(k, k)]
        );
    }
    // Region by marker: the inner disk of a two-circle mesh.
    let two = ball(
        &[
            Sphere::new(Point::<2>::zeros(), 1.0, "a"),
            Sphere::new(Point::<2>::zeros(), 2.0, "b"),
        ],
        false,
        0.05,
    )
    .unwrap();
    let inner = two.moments(|m| m == 1);
    assert!((inner.measure / PI - 1.0).abs() < 5e-3);
}

/// Several bodies in one ball (the host mesh of the contact's host-mesh mode): each body's facets
/// lie on its circle (sphere), oriented outward, and its cells fill exactly the polytope they
/// bound; overlapping bodies are refused with a message naming them.
#[test]
fn several_bodies_in_one_ball() {
    for_dim::<2>(0.02);
    for_dim::<3>(0.08);
    fn for_dim<const D: usize>(h: f64) {
        let at = |x: f64| Point::<D>::from_fn(|a, _| if a == 0 { x } else { 0.1 });
        let bodies = [Sphere::new(at(-0.35), 0.2, "a"), Sphere::new(at(0.25), 0.25, "b")];
        let mut spheres = bodies.to_vec();
        spheres.push(Sphere::new(Point::<D>::zeros(), 1.0, "wall"));
        let mesh = ball::<D>(&spheres, false, h).unwrap();
        for (k, s) in bodies.iter().enumerate() {
            let (_, off, count) = sphere_facets(&mesh, &s.name, s.centre, s.radius);
            assert!(count > 0 && off < 1e-12, "{}: nodes {off} off the sphere", s.name);
            let cells: f64 = mesh
                .cell_markers()
                .iter()
                .zip(mesh.cell_measures())
                .filter(|(&m, _)| m as usize == k + 1)
                .map(|(_, v)| v)
                .sum();
            let enclosed = enclosed_measure(&mesh, &s.name);
            assert!(
                (cells - enclosed).abs() < 1e-10 * enclosed,
                "{}: {cells} vs {enclosed}",
                s.name
            );
        }
        let overlapping = [
            Sphere::new(at(-0.1), 0.2, "a"),
            Sphere::new(at(0.2), 0.25, "b"),
            Sphere::new(Point::<D>::zeros(), 1.0, "wall"),
        ];
        let err = ball::<D>(&overlapping, false, h).unwrap_err().to_string();
        assert!(err.contains("sphere 0 ('a')") && err.contains("'b'"), "{err}");
    }
}

/// The specification's section 4.2 geometry: disks of radius 0.125 in the box [0, 2]² at h = 0.01,
/// and a ball in a box in 3D. The fluid's measure is the box's less the polygons inscribed in the
/// circles (within the chords' error), every sphere's facets lie on it and point away from it, the
/// box's sides are whole, the outside is the only region with `holes`.
#[test]
fn disks_and_balls_in_a_box() {
    use tumble::mesh::generate::box_with_balls;
    let r = 0.125;
    let centres = [Point::<2>::new(0.85, 0.14), Point::<2>::new(1.15, 0.14)];
    let spheres: Vec<Sphere<2>> = centres
        .iter()
        .enumerate()
        .map(|(k, c)| Sphere::new(*c, r, &format!("disk{k}")))
        .collect();
    let mesh = box_with_balls::<2>(
        Point::<2>::zeros(),
        Point::<2>::new(2.0, 2.0),
        [200, 200],
        &spheres,
        true,
    )
    .unwrap();
    // Chords of length s ≈ 0.01 cut a circle's area by about s²/(12 r) per unit of perimeter.
    let chords = 2.0 * 2.0 * PI * r * 0.01 * 0.01 / (12.0 * r);
    println!(
        "two disks in the box at h = 0.01: {} triangles (the specification's Gmsh mesh: 93 752), quality ≥ {:.3}",
        mesh.num_cells(),
        min_quality(&mesh)
    );
    assert!((total_measure(&mesh) - (4.0 - 2.0 * PI * r * r)).abs() < 2.0 * chords);
    assert!(min_quality(&mesh) > 0.25);
    for (k, c) in centres.iter().enumerate() {
        let (length, off, _) = sphere_facets(&mesh, &format!("disk{k}"), *c, r);
        assert!(
            (length - 2.0 * PI * r).abs() < 1e-3 && off < 1e-12,
            "disk {k}: {length}, {off}"
        );
    }
    for (name, tag) in [("xmin", 3), ("xmax", 4), ("ymin", 5), ("ymax", 6)] {
        assert_eq!(mesh.facet_marker(name).unwrap(), tag);
        let len: f64 = mesh.facets_marked(tag).map(|f| mesh.facet_area_normal(f).norm()).sum();
        assert!((len - 2.0).abs() < 1e-12, "{name}: {len}");
    }
    assert!(mesh.cell_markers().iter().all(|&m| m == 3));
    assert_eq!(mesh.cell_marker("outside").unwrap(), 3);
    assert_eq!(mesh.boundary().len(), mesh.facets().len());

    // 3D, the ball meshed too: the two regions' measures.
    let ball = [Sphere::new(Point::<3>::new(0.5, 0.5, 0.4), 0.2, "ball")];
    let mesh = box_with_balls::<3>(Point::<3>::zeros(), Point::<3>::repeat(1.0), [20, 20, 20], &ball, false).unwrap();
    let inside: f64 = mesh
        .cell_measures()
        .iter()
        .zip(mesh.cell_markers())
        .filter(|&(_, &m)| m == 1)
        .map(|(v, _)| v)
        .sum();
    let exact = 4.0 / 3.0 * PI * 0.2f64.powi(3);
    assert!((total_measure(&mesh) - 1.0).abs() < 1e-12);
    assert!((inside - exact).abs() < 0.03 * exact, "{inside} against {exact}");
    let (area, off, _) = sphere_facets(&mesh, "ball", ball[0].centre, 0.2);
    assert!((area - 4.0 * PI * 0.04).abs() < 0.03 * 4.0 * PI * 0.04 && off < 1e-12);
    assert_eq!(mesh.cell_marker("inside_ball").unwrap(), 1);
    // A sphere too near a side is refused, named.
    let near = [Sphere::new(Point::<2>::new(0.1, 1.0), 0.095, "near")];
    let e = box_with_balls::<2>(Point::<2>::zeros(), Point::<2>::new(2.0, 2.0), [200, 200], &near, true).unwrap_err();
    assert!(
        e.to_string().contains("sphere 0 ('near') must lie inside the box"),
        "{e}"
    );
}
