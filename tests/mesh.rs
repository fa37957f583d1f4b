//! The mesh core: adjacency, boundary, point location against brute force, and construction errors.

use std::collections::BTreeMap;
use tumble::math::{Point, Vector};
use tumble::mesh::generate::{axis_box, ball, Sphere};
use tumble::mesh::{gmsh, MeshParts, NONE};
use tumble::SimplexMesh;

/// Neighbours are mutual and share exactly the facet opposite the local vertex.
fn check_adjacency<const D: usize>(mesh: &SimplexMesh<D>) {
    for c in 0..mesh.num_cells() as u32 {
        for k in 0..=D {
            let n = mesh.neighbour(c, k);
            if n == NONE {
                continue;
            }
            let back = (0..=D)
                .find(|&j| mesh.neighbour(n, j) == c)
                .expect("neighbours are mutual");
            let shared: Vec<u32> = mesh
                .cell(c)
                .iter()
                .copied()
                .filter(|v| mesh.cell(n).contains(v))
                .collect();
            assert_eq!(shared.len(), D);
            assert!(!shared.contains(&mesh.cell(c)[k]));
            assert!(!shared.contains(&mesh.cell(n)[back]));
        }
    }
    // Every cell lists itself in its nodes' incidence.
    for c in 0..mesh.num_cells() as u32 {
        for &v in mesh.cell(c) {
            assert!(mesh.cells_of_node(v).contains(&c));
        }
    }
}

#[test]
fn adjacency_of_generated_and_read_meshes() {
    let o = Point::<2>::zeros();
    let disk = ball(&[Sphere::new(o, 1.0, "a"), Sphere::new(o, 3.0, "b")], false, 0.2).unwrap();
    check_adjacency(&disk);
    let annulus = ball(&[Sphere::new(o, 1.0, "a"), Sphere::new(o, 3.0, "b")], true, 0.2).unwrap();
    check_adjacency(&annulus);
    // Euler: V − E + F = 1 for a disk, 0 for an annulus; E = (3F + B) / 2 with B boundary edges.
    for (mesh, chi) in [(&disk, 1), (&annulus, 0)] {
        let (v, f, b) = (
            mesh.num_points() as i64,
            mesh.num_cells() as i64,
            mesh.boundary().len() as i64,
        );
        assert_eq!(v - (3 * f + b) / 2 + f, chi);
    }
    let cube = axis_box::<3>(Point::<3>::zeros(), Point::<3>::repeat(1.0), [3, 4, 5]).unwrap();
    check_adjacency(&cube);
    assert_eq!(cube.boundary().len(), 2 * 2 * (3 * 4 + 4 * 5 + 3 * 5));
    let read = gmsh::read_dim::<3>("meshes/ball_r3.bin.msh").unwrap();
    check_adjacency(&read);
    // The boundary is exactly the outer sphere's facets.
    let bf = read.boundary().len() as i64;
    assert_eq!(
        bf,
        read.facets_marked(read.facet_marker("outer").unwrap()).count() as i64
    );
}

/// A small deterministic generator (no dependency for this).
struct Lcg(u64);
impl Lcg {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// `locate` agrees with testing every cell: same answer inside/outside, and the cell found
/// contains the point with barycentric coordinates that reproduce it.
fn check_location<const D: usize>(mesh: &SimplexMesh<D>, n: usize, seed: u64) {
    let (lo, hi) = mesh.bounding_box();
    let mut rng = Lcg(seed);
    let (mut inside, mut outside) = (0, 0);
    for _ in 0..n {
        let x = Point::<D>::from_fn(|a, _| rng.uniform(lo[a] - 0.1, hi[a] + 0.1));
        let brute = (0..mesh.num_cells() as u32).find(|&c| mesh.barycentric(c, &x)[..=D].iter().all(|&w| w >= -1e-10));
        match (mesh.locate(&x), brute) {
            (Some(found), Some(_)) => {
                inside += 1;
                let p = mesh.cell_points(found.cell);
                let back: Point<D> = (0..=D).map(|k| p[k] * found.weights[k]).sum();
                assert!((back - x).norm() < 1e-9, "{back} vs {x}");
                assert!(found.weights[..=D].iter().all(|&w| w >= -1e-10));
                assert!((found.weights[..=D].iter().sum::<f64>() - 1.0).abs() < 1e-12);
                // Walking from an arbitrary hint finds a containing cell too.
                let again = mesh
                    .locate_from(&x, (found.cell * 7919) % mesh.num_cells() as u32)
                    .unwrap();
                assert!(mesh.barycentric(again.cell, &x)[..=D].iter().all(|&w| w >= -1e-10));
            }
            (None, None) => outside += 1,
            (got, brute) => panic!("locate {:?} but brute force {brute:?} for {x}", got.map(|g| g.cell)),
        }
    }
    assert!(inside > n / 5 && outside > 0, "{inside} inside, {outside} outside");
}

#[test]
fn point_location_matches_brute_force() {
    let o = Point::<2>::new(0.3, 0.1);
    // An annulus is not convex: walks that reach the hole must fall back to the radius search.
    let annulus = ball(&[Sphere::new(o, 1.0, "a"), Sphere::new(o, 3.0, "b")], true, 0.15).unwrap();
    check_location(&annulus, 3000, 1);
    let rect = axis_box::<2>(Point::<2>::new(-1.0, 0.0), Point::<2>::new(2.0, 1.0), [30, 10]).unwrap();
    check_location(&rect, 2000, 2);
    let shell = ball(
        &[
            Sphere::new(Point::<3>::zeros(), 0.6, "a"),
            Sphere::new(Point::<3>::zeros(), 1.5, "b"),
        ],
        true,
        0.2,
    )
    .unwrap();
    check_location(&shell, 1000, 3);
    let read = gmsh::read_dim::<3>("meshes/ball_r3.msh").unwrap();
    check_location(&read, 1000, 4);
}

/// `locate_near` from a cell about two cells from the point: in a convex mesh exactly what
/// testing every cell says, inside and outside; in a non-convex one never a wrong cell, and
/// `None` for a point inside only where the walk met the hole.
fn check_near<const D: usize>(mesh: &SimplexMesh<D>, convex: bool, n: usize, seed: u64) {
    let mut rng = Lcg(seed);
    let (mut inside, mut outside, mut missed) = (0, 0, 0);
    for _ in 0..n {
        let hint = (rng.uniform(0.0, 1.0) * mesh.num_cells() as f64) as u32 % mesh.num_cells() as u32;
        let p = mesh.cell_points(hint);
        let centre: Point<D> = (0..=D).map(|k| p[k] / (D + 1) as f64).sum();
        let size = (p[1] - p[0]).norm();
        let x = centre + Vector::<D>::from_fn(|_, _| rng.uniform(-2.0, 2.0) * size);
        let brute = (0..mesh.num_cells() as u32).find(|&c| mesh.barycentric(c, &x)[..=D].iter().all(|&w| w >= -1e-10));
        match (mesh.locate_near(&x, hint), brute) {
            (Some(found), Some(_)) => {
                inside += 1;
                assert!(mesh.barycentric(found.cell, &x)[..=D].iter().all(|&w| w >= -1e-10));
            }
            (None, None) => outside += 1,
            (None, Some(_)) if !convex => missed += 1,
            (got, brute) => panic!(
                "locate_near {:?} but brute force {brute:?} for {x}",
                got.map(|g| g.cell)
            ),
        }
    }
    assert!(inside > n / 2 && outside > 0, "{inside} inside, {outside} outside");
    assert!(missed * 50 < n, "{missed} of {n} points inside read as outside");
}

#[test]
fn locate_near_agrees_with_brute_force_in_convex_meshes_and_never_finds_a_wrong_cell() {
    let rect = axis_box::<2>(Point::<2>::new(-1.0, 0.0), Point::<2>::new(2.0, 1.0), [30, 10]).unwrap();
    check_near(&rect, true, 3000, 5);
    let read = gmsh::read_dim::<3>("meshes/ball_r3.msh").unwrap();
    check_near(&read, true, 2000, 6);
    let o = Point::<2>::new(0.3, 0.1);
    let annulus = ball(&[Sphere::new(o, 1.0, "a"), Sphere::new(o, 3.0, "b")], true, 0.15).unwrap();
    check_near(&annulus, false, 3000, 7);
}

fn triangle_parts(cells: Vec<u32>, points: Vec<Point<2>>) -> MeshParts<2> {
    let n = cells.len() / 3;
    MeshParts {
        points,
        cells,
        cell_markers: vec![0; n],
        facets: vec![],
        facet_markers: vec![],
        facet_names: BTreeMap::new(),
        cell_names: BTreeMap::new(),
    }
}

#[test]
fn invalid_meshes_are_errors_naming_the_culprit() {
    let square = || {
        vec![
            Point::<2>::new(0.0, 0.0),
            Point::<2>::new(1.0, 0.0),
            Point::<2>::new(1.0, 1.0),
            Point::<2>::new(0.0, 1.0),
            Point::<2>::new(2.0, 2.0),
        ]
    };
    let err = |parts| SimplexMesh::new(parts).unwrap_err().to_string();
    assert!(err(triangle_parts(vec![0, 1, 2, 0, 3, 2], square())).starts_with("cell 1: measure -5e-1 is not positive"));
    assert!(err(triangle_parts(vec![0, 1, 7], square())).contains("cell 0: node index 7 is out of range"));
    assert!(err(triangle_parts(vec![0, 1, 1], square())).contains("cell 0: nodes [0, 1, 1] repeat a node"));
    // Three triangles on the edge 0–2.
    let e = err(triangle_parts(vec![0, 1, 2, 0, 2, 3, 2, 0, 4], {
        let mut p = square();
        p[4] = Point::<2>::new(2.0, 0.5);
        p
    }));
    assert!(e.contains("shared by cells"), "{e}");
    let mut nan = square();
    nan[2].x = f64::NAN;
    assert!(err(triangle_parts(vec![0, 1, 2], nan)).starts_with("node 2: coordinates"));
    let mut unmarked = triangle_parts(vec![0, 1, 2], square());
    unmarked.facets = vec![[0, 3]];
    unmarked.facet_markers = vec![5];
    unmarked.facet_names = BTreeMap::from([(5, "wall".into())]);
    assert!(err(unmarked).contains("facet 0 (marker wall): nodes [0, 3] are not the nodes of a face"));
    assert!(err(triangle_parts(vec![], square())).contains("no cells"));
}

#[test]
fn locate_many_agrees_with_locate_and_ignores_the_thread_count() {
    let o = Point::<3>::zeros();
    let shell = ball(&[Sphere::new(o, 0.6, "a"), Sphere::new(o, 1.5, "b")], true, 0.15).unwrap();
    let mut rng = Lcg(7);
    let xs: Vec<Point<3>> = (0..20_000)
        .map(|_| Point::<3>::from_fn(|_, _| rng.uniform(-1.6, 1.6)))
        .collect();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let serial = one.install(|| shell.locate_many(&xs));
    let parallel = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(|| shell.locate_many(&xs));
    assert_eq!(serial, parallel);
    let mut inside = 0;
    for (x, found) in xs.iter().zip(&serial) {
        match (found, shell.locate(x)) {
            (Some(f), Some(_)) => {
                inside += 1;
                assert!(shell.barycentric(f.cell, x)[..4].iter().all(|&w| w >= -1e-10));
            }
            (None, None) => {}
            (a, b) => panic!("locate_many {a:?} but locate {b:?} at {x}"),
        }
    }
    assert!(inside > 5000, "{inside}");
}

#[test]
fn boundary_normals_are_outward_and_close_the_surface() {
    // Σ n_f |f| = 0 over a closed surface, and x · n > 0 on the boundary of a ball centred at 0.
    let o = Point::<3>::zeros();
    let mesh = ball(&[Sphere::new(o, 1.0, "a"), Sphere::new(o, 2.0, "b")], false, 0.3).unwrap();
    let mut sum = Point::<3>::zeros();
    for (face, &(n, measure)) in mesh.boundary().iter().zip(mesh.boundary_normals()) {
        assert!((n.norm() - 1.0).abs() < 1e-12 && measure > 0.0);
        sum += n * measure;
        let x = mesh.points()[mesh.face_nodes(*face)[0] as usize];
        assert!(x.dot(&n) > 0.0);
    }
    assert!(sum.norm() < 1e-12, "{sum}");
    let total: f64 = mesh.boundary_normals().iter().map(|&(_, m)| m).sum();
    let marked: f64 = mesh
        .facet_normals()
        .iter()
        .zip(mesh.facet_markers())
        .filter(|(_, &m)| m == 2)
        .map(|(&(_, a), _)| a)
        .sum();
    assert!((total - marked).abs() < 1e-12 * total);
}

/// The shortest edge of a box's lattice is its smallest spacing (the cells' diagonals are longer).
#[test]
fn shortest_edge_of_a_box_is_its_smallest_spacing() {
    let rect = axis_box::<2>(Point::<2>::new(-1.0, 0.0), Point::<2>::new(2.0, 1.0), [30, 4]).unwrap();
    assert!((rect.shortest_edge() - 0.1).abs() < 1e-12, "{}", rect.shortest_edge());
    let cube = axis_box::<3>(Point::<3>::zeros(), Point::<3>::repeat(1.0), [3, 4, 5]).unwrap();
    assert!((cube.shortest_edge() - 0.2).abs() < 1e-12, "{}", cube.shortest_edge());
}

/// A node with more neighbours than a star's link masks hold (a fan of 100 triangles around the
/// centre of a regular 100-gon) is a mesh like any other, and fast marching over it stays an
/// upper bound close to the distance: to an arc of the polygon's boundary, inside the convex
/// polygon the straight distance to the arc (exact at the centre, within 10 % on the ring).
#[test]
fn a_node_with_a_hundred_neighbours_is_marched_through() {
    let n = 100u32;
    let angle = |k: u32| std::f64::consts::TAU * f64::from(k) / f64::from(n);
    let mut points = vec![Point::<2>::new(0.0, 0.0)];
    points.extend((0..n).map(|k| Point::<2>::new(angle(k).cos(), angle(k).sin())));
    let cells = (1..=n).flat_map(|k| [0, k, k % n + 1]).collect();
    // The arc: the boundary edges between the ring's nodes 40 and 60 (144° to 216°).
    let arc: Vec<[u32; 2]> = (41..=60).map(|k| [k, k + 1]).collect();
    let mesh = SimplexMesh::new(MeshParts {
        facet_markers: vec![1; arc.len()],
        facets: arc,
        facet_names: BTreeMap::from([(1, "arc".into())]),
        ..triangle_parts(cells, points)
    })
    .unwrap();
    assert_eq!(mesh.star(0).0.len(), n as usize);
    let front = tumble::fmm::Front::named(&mesh, &["arc"]).unwrap();
    let unsigned = tumble::fmm::FmmOptions {
        signed: false,
        ..Default::default()
    };
    let field = tumble::fmm::distance_to_range(&mesh, &front, &unsigned).unwrap();
    let ends = [mesh.points()[41], mesh.points()[61]];
    for (v, x) in mesh.points().iter().enumerate() {
        let k = v as u32;
        let exact = if (41..=61).contains(&k) {
            0.0
        } else if v == 0 {
            // The nearest points of the arc are the middles of its chords.
            (std::f64::consts::PI / f64::from(n)).cos()
        } else {
            ends.iter().map(|e| (x - e).norm()).fold(f64::INFINITY, f64::min)
        };
        // First order on this mesh: the ring's nodes are reached along its chords and through
        // the centre, at most 9.4 % above the distance.
        let got = field.values[v];
        assert!(
            got >= exact - 1e-12 && got <= 1.1 * exact,
            "node {v}: {got} against {exact}"
        );
    }
}
