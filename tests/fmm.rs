//! Fast marching beyond circles: non-convex fronts against their exact distance, monotonicity on
//! obtuse meshes, parallel fields, fields independent of the mesh's node numbering, queries, and
//! bad input.

use std::collections::BTreeMap;
use tumble::fmm::{distance_to_range, distance_to_ranges, FmmError, FmmOptions, Front};
use tumble::math::Point;
use tumble::mesh::generate::{axis_box, ball, Sphere};
use tumble::mesh::MeshParts;
use tumble::shape::{Ball, Polygon, Shape, Union};
use tumble::SimplexMesh;

fn p2(x: f64, y: f64) -> Point<2> {
    Point::<2>::new(x, y)
}

/// The L-shaped region [−0.5, 0.5]² minus [0, 0.5]², as a polygon.
fn l_shape() -> Polygon {
    Polygon {
        vertices: vec![
            p2(-0.5, -0.5),
            p2(0.5, -0.5),
            p2(0.5, 0.0),
            p2(0.0, 0.0),
            p2(0.0, 0.5),
            p2(-0.5, 0.5),
        ],
    }
}

/// A square mesh of [−1, 1]² with `n` intervals per side and, as facet marker 10 ("L"), the mesh
/// edges lying on the polygon's boundary (the polygon's vertices must be grid nodes).
fn square_with_polygon_front(n: usize, polygon: &Polygon) -> SimplexMesh<2> {
    let mesh = axis_box::<2>(p2(-1.0, -1.0), p2(1.0, 1.0), [n, n]).unwrap();
    let on_polygon = |a: &Point<2>, b: &Point<2>| {
        let m = polygon.vertices.len();
        (0..m).any(|i| {
            let (p, q) = (polygon.vertices[i], polygon.vertices[(i + 1) % m]);
            let on = |x: &Point<2>| {
                let t = (x - p).dot(&(q - p)) / (q - p).norm_squared();
                (-1e-12..=1.0 + 1e-12).contains(&t) && (x - (p + (q - p) * t)).norm() < 1e-12
            };
            on(a) && on(b)
        })
    };
    let mut facets = mesh.facets().to_vec();
    let mut markers = mesh.facet_markers().to_vec();
    let mut seen = std::collections::HashSet::new();
    for c in 0..mesh.num_cells() as u32 {
        let cell = mesh.cell(c);
        for k in 0..3 {
            let (a, b) = (cell[(k + 1) % 3], cell[(k + 2) % 3]);
            let (pa, pb) = (mesh.points()[a as usize], mesh.points()[b as usize]);
            if on_polygon(&pa, &pb) && seen.insert((a.min(b), a.max(b))) {
                facets.push([a, b]);
                markers.push(10);
            }
        }
    }
    let mut names: BTreeMap<i32, String> = mesh.facet_names().clone();
    names.insert(10, "L".into());
    SimplexMesh::new(MeshParts {
        points: mesh.points().to_vec(),
        cells: mesh.cells().to_vec(),
        cell_markers: mesh.cell_markers().to_vec(),
        facets,
        facet_markers: markers,
        facet_names: names,
        cell_names: mesh.cell_names().clone(),
    })
    .unwrap()
}

fn max_error(mesh: &SimplexMesh<2>, values: &[f64], shape: &dyn Shape<2>, only: impl Fn(f64) -> bool) -> f64 {
    mesh.points()
        .iter()
        .zip(values)
        .filter(|(x, _)| only(shape.signed_distance(x)))
        .map(|(x, v)| (v - shape.signed_distance(x)).abs())
        .fold(0.0, f64::max)
}

#[test]
fn l_shaped_conforming_front() {
    let l = l_shape();
    for n in [40, 80] {
        let h = 2.0 / n as f64;
        let mesh = square_with_polygon_front(n, &l);
        let front = Front::named(&mesh, &["L"]).unwrap();
        let march = distance_to_range(&mesh, &front, &FmmOptions::default()).unwrap();
        let closest = distance_to_range(
            &mesh,
            &front,
            &FmmOptions {
                closest_point: true,
                ..FmmOptions::default()
            },
        )
        .unwrap();
        // Read as a curved front, the L's corners are creases and its sides stay straight.
        let curved = distance_to_range(
            &mesh,
            &front,
            &FmmOptions {
                closest_point: true,
                curved_front: true,
                ..FmmOptions::default()
            },
        )
        .unwrap();
        let e_march = max_error(&mesh, &march.values, &l, |_| true);
        let e_closest = max_error(&mesh, &closest.values, &l, |_| true);
        let e_curved = max_error(&mesh, &curved.values, &l, |_| true);
        println!(
            "L-shape h = {h}: max error march {e_march:.3e}, closest-point {e_closest:.3e}, curved {e_curved:.3e}"
        );
        // The front is exactly polygonal: closest-point mode is exact, concave corner included.
        assert!(e_closest < 1e-12 && e_curved < 1e-12, "{e_closest} {e_curved}");
        assert!(e_march < 0.05, "{e_march}");
        // Signs: every node off the front is on the right side.
        for (x, v) in mesh.points().iter().zip(&march.values) {
            let exact = l.signed_distance(x);
            assert!(
                exact.abs() < 1e-12 || v.signum() == exact.signum(),
                "sign at {x}: {v} vs {exact}"
            );
        }
    }
}

/// A five-pointed star and the tripole (three overlapping disks of diameter 0.25) as fronts cutting
/// through a square mesh: the march converges to their exact distance outside them.
#[test]
fn star_and_tripole_shape_fronts() {
    let star = Polygon {
        vertices: (0..10)
            .map(|k| {
                let angle = std::f64::consts::PI / 2.0 + k as f64 * std::f64::consts::PI / 5.0;
                let r = if k % 2 == 0 { 0.6 } else { 0.25 };
                p2(r * angle.cos(), r * angle.sin())
            })
            .collect(),
    };
    let tripole = Union {
        parts: (0..3)
            .map(|k| {
                let angle = std::f64::consts::PI / 2.0 + k as f64 * 2.0 * std::f64::consts::PI / 3.0;
                Box::new(Ball {
                    centre: p2(0.1 * angle.cos(), 0.1 * angle.sin()),
                    radius: 0.125,
                }) as Box<dyn Shape<2>>
            })
            .collect(),
    };
    for (name, shape) in [("star", &star as &dyn Shape<2>), ("tripole", &tripole as &dyn Shape<2>)] {
        let mut errors = Vec::new();
        for n in [50, 100, 200] {
            let mesh = axis_box::<2>(p2(-1.0, -1.0), p2(1.0, 1.0), [n, n]).unwrap();
            let field = distance_to_range(&mesh, &Front::Shape(shape), &FmmOptions::default()).unwrap();
            // Outside the shape the union's signed distance is exact; compare there.
            let e = max_error(&mesh, &field.values, shape, |d| d > 0.0);
            // Signs are those of the shape's signed distance.
            for (x, v) in mesh.points().iter().zip(&field.values) {
                assert_eq!(v.signum(), shape.signed_distance(x).signum(), "{name} at {x}");
            }
            let closest = distance_to_range(
                &mesh,
                &Front::Shape(shape),
                &FmmOptions {
                    closest_point: true,
                    ..FmmOptions::default()
                },
            )
            .unwrap();
            assert!(max_error(&mesh, &closest.values, shape, |_| true) < 1e-12);
            errors.push(e);
        }
        println!("{name}: max error outside {errors:?}");
        assert!(errors[2] < errors[0] / 2.0 && errors[2] < 0.02, "{name}: {errors:?}");
    }
}

/// A deliberately bad mesh: the nodes of a square lattice shifted so that a third of the triangles
/// are obtuse. The march stays monotone: values along the acceptance order never decrease.
#[test]
fn monotone_on_obtuse_meshes() {
    let n = 60;
    let mesh = axis_box::<2>(p2(-1.0, -1.0), p2(1.0, 1.0), [n, n]).unwrap();
    let h = 2.0 / n as f64;
    let mut points = mesh.points().to_vec();
    for (i, p) in points.iter_mut().enumerate() {
        if p.x.abs() < 1.0 - 1e-9 && p.y.abs() < 1.0 - 1e-9 {
            let (a, b) = (
                (i * 7919 % 1000) as f64 / 1000.0 - 0.5,
                (i * 104729 % 1000) as f64 / 1000.0 - 0.5,
            );
            p.x += 0.45 * h * a;
            p.y += 0.45 * h * b;
        }
    }
    let mesh = SimplexMesh::new(MeshParts {
        points,
        cells: mesh.cells().to_vec(),
        cell_markers: mesh.cell_markers().to_vec(),
        facets: mesh.facets().to_vec(),
        facet_markers: mesh.facet_markers().to_vec(),
        facet_names: mesh.facet_names().clone(),
        cell_names: mesh.cell_names().clone(),
    })
    .unwrap();
    let obtuse = (0..mesh.num_cells() as u32)
        .filter(|&c| {
            let p = mesh.cell_points(c);
            (0..3).any(|k| (p[(k + 1) % 3] - p[k]).dot(&(p[(k + 2) % 3] - p[k])) < 0.0)
        })
        .count();
    assert!(
        obtuse * 4 > mesh.num_cells(),
        "only {obtuse} obtuse triangles of {}",
        mesh.num_cells()
    );
    let disk = Ball {
        centre: p2(0.1, -0.05),
        radius: 0.3,
    };
    for front in [Front::Shape(&disk), Front::named(&mesh, &["xmin"]).unwrap()] {
        let options = FmmOptions {
            signed: matches!(front, Front::Shape(_)),
            ..FmmOptions::default()
        };
        let field = distance_to_range(&mesh, &front, &options).unwrap();
        let marched = &field.order[field.stats.initialised..];
        assert!(marched.len() > mesh.num_points() / 2);
        for pair in marched.windows(2) {
            let (a, b) = (
                field.values[pair[0] as usize].abs(),
                field.values[pair[1] as usize].abs(),
            );
            assert!(b >= a, "not monotone: {a} then {b}");
        }
        // Still first-order accurate for the wall distance x + 1.
        if let Front::Markers(_) = front {
            let e = mesh
                .points()
                .iter()
                .zip(&field.values)
                .map(|(x, v)| (v - (x.x + 1.0)).abs())
                .fold(0.0, f64::max);
            assert!(e < 2.0 * h, "wall distance error {e}");
        }
    }
}

/// Several fields at once are each what a single call gives, whatever the number of threads.
#[test]
fn parallel_fields_are_independent_of_threads() {
    let o = p2(0.0, 0.0);
    let mesh = ball(
        &[
            Sphere::new(o, 0.5, "a"),
            Sphere::new(o, 1.0, "b"),
            Sphere::new(o, 2.0, "c"),
        ],
        false,
        0.05,
    )
    .unwrap();
    let fronts = [
        Front::named(&mesh, &["a"]).unwrap(),
        Front::named(&mesh, &["b"]).unwrap(),
        Front::named(&mesh, &["a", "b"]).unwrap(),
    ];
    let options = FmmOptions {
        max_distance: Some(0.4),
        signed: false,
        ..FmmOptions::default()
    };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let serial: Vec<Vec<f64>> = one
        .install(|| distance_to_ranges(&mesh, &fronts, &options))
        .into_iter()
        .map(|f| f.unwrap().values)
        .collect();
    let parallel: Vec<Vec<f64>> = two
        .install(|| distance_to_ranges(&mesh, &fronts, &options))
        .into_iter()
        .map(|f| f.unwrap().values)
        .collect();
    assert_eq!(serial, parallel);
    for (front, values) in fronts.iter().zip(&serial) {
        assert_eq!(&distance_to_range(&mesh, front, &options).unwrap().values, values);
    }
}

/// `mesh` with its nodes renumbered by `perm` (the new node `n` is the old `perm[n]`).
fn renumbered<const D: usize>(mesh: &SimplexMesh<D>, perm: &[u32]) -> SimplexMesh<D> {
    let mut rank = vec![0u32; perm.len()];
    for (n, &u) in perm.iter().enumerate() {
        rank[u as usize] = n as u32;
    }
    SimplexMesh::new(MeshParts {
        points: perm.iter().map(|&u| mesh.points()[u as usize]).collect(),
        cells: mesh.cells().iter().map(|&u| rank[u as usize]).collect(),
        cell_markers: mesh.cell_markers().to_vec(),
        facets: mesh.facets().iter().map(|f| f.map(|u| rank[u as usize])).collect(),
        facet_markers: mesh.facet_markers().to_vec(),
        facet_names: mesh.facet_names().clone(),
        cell_names: mesh.cell_names().clone(),
    })
    .unwrap()
}

/// The march works in a numbering of its own (a Morton curve through the nodes) and returns the
/// field in the mesh's: the same mesh with its nodes shuffled gives every node the same value to
/// the last bit, and the same acceptance order, for a front of facets (signed, and in
/// closest-point mode, in 2D and 3D) and a shape.
#[test]
fn fields_do_not_depend_on_the_node_numbering() {
    fn check<const D: usize>(mesh: &SimplexMesh<D>, front: &str, shape: &dyn Shape<D>) {
        // A shuffle by a multiplicative permutation of the indices (n coprime to the step).
        let n = mesh.num_points() as u64;
        let step = (1..n).rev().find(|s| gcd(*s, n) == 1 && *s < n / 2).unwrap();
        let perm: Vec<u32> = (0..n).map(|i| ((i * step + 7) % n) as u32).collect();
        let other = renumbered(mesh, &perm);
        for closest_point in [false, true] {
            let options = FmmOptions {
                max_distance: Some(0.6),
                closest_point,
                ..FmmOptions::default()
            };
            let a = distance_to_range(mesh, &Front::named(mesh, &[front]).unwrap(), &options).unwrap();
            let b = distance_to_range(&other, &Front::named(&other, &[front]).unwrap(), &options).unwrap();
            assert!(a.stats.accepted > 100 && a.stats.accepted < mesh.num_points());
            for (m, &u) in perm.iter().enumerate() {
                assert_eq!(b.values[m].to_bits(), a.values[u as usize].to_bits(), "{D}D node {u}");
                assert_eq!(b.reached[m], a.reached[u as usize]);
            }
            let order: Vec<u32> = b.order.iter().map(|&m| perm[m as usize]).collect();
            assert_eq!(order, a.order);
        }
        let options = FmmOptions::default();
        let a = distance_to_range(mesh, &Front::Shape(shape), &options).unwrap();
        let b = distance_to_range(&other, &Front::Shape(shape), &options).unwrap();
        for (m, &u) in perm.iter().enumerate() {
            assert_eq!(
                b.values[m].to_bits(),
                a.values[u as usize].to_bits(),
                "{D}D shape, node {u}"
            );
        }
    }
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let disk = ball(
        &[Sphere::new(p2(0.1, 0.0), 0.5, "a"), Sphere::new(p2(0.0, 0.0), 1.5, "b")],
        false,
        0.05,
    )
    .unwrap();
    check(
        &disk,
        "a",
        &Ball {
            centre: p2(0.2, 0.1),
            radius: 0.4,
        },
    );
    let o = Point::<3>::new(0.0, 0.0, 0.0);
    let solid = ball(&[Sphere::new(o, 0.5, "a"), Sphere::new(o, 1.2, "b")], false, 0.15).unwrap();
    check(
        &solid,
        "a",
        &Ball {
            centre: Point::<3>::new(0.1, 0.0, 0.0),
            radius: 0.45,
        },
    );
}

/// Value, normal and argmin queries: an inner circle of radius 0.5 centred at (0.5, 0) inside a disk
/// of radius 2; the field of the inner circle is smallest on the outer circle at (2, 0), where it is
/// 2 − 1 = 1.
#[test]
fn queries() {
    let mesh = ball(
        &[
            Sphere::new(p2(0.5, 0.0), 0.5, "inner"),
            Sphere::new(p2(0.0, 0.0), 2.0, "outer"),
        ],
        false,
        0.02,
    )
    .unwrap();
    let field = distance_to_range(
        &mesh,
        &Front::named(&mesh, &["inner"]).unwrap(),
        &FmmOptions {
            closest_point: true,
            ..FmmOptions::default()
        },
    )
    .unwrap();
    let exact = |x: &Point<2>| (x - p2(0.5, 0.0)).norm() - 0.5;
    for x in [p2(1.3, 0.4), p2(-1.0, 0.2), p2(0.5, 0.1), p2(0.2, -1.5)] {
        let v = field.value_at(&mesh, &x).unwrap();
        assert!((v - exact(&x)).abs() < 2e-3, "value at {x}: {v} vs {}", exact(&x));
        let n = field.normal_at(&mesh, &x).unwrap();
        let expected = (x - p2(0.5, 0.0)).normalize();
        assert!(n.dot(&expected) > 0.99, "normal at {x}: {n}");
    }
    assert_eq!(field.value_at(&mesh, &p2(3.0, 0.0)), None);
    let outer = mesh.facet_marker("outer").unwrap();
    let (point, value) = field.argmin_on(&mesh, &[outer]).unwrap();
    assert!((point - p2(2.0, 0.0)).norm() < 0.05, "{point}");
    assert!((value - 1.0).abs() < 1e-3, "{value}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let mesh = ball(
        &[
            Sphere::new(p2(0.0, 0.0), 1.0, "inner"),
            Sphere::new(p2(0.0, 0.0), 2.0, "outer"),
        ],
        false,
        0.2,
    )
    .unwrap();
    let err = Front::named(&mesh, &["nope"]).err().unwrap().to_string();
    assert!(
        err.contains("no marker named 'nope'") && err.contains("inner, outer"),
        "{err}"
    );
    let err = distance_to_range(&mesh, &Front::Markers(vec![42]), &FmmOptions::default()).unwrap_err();
    assert!(matches!(err, FmmError::EmptyFront(_)), "{err}");
    for bad in [0.0, -1.0, f64::NAN] {
        let options = FmmOptions {
            max_distance: Some(bad),
            ..FmmOptions::default()
        };
        let err = distance_to_range(&mesh, &Front::named(&mesh, &["inner"]).unwrap(), &options)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("option max_distance: the band width must be positive"),
            "{err}"
        );
    }
    // A wall that does not close: signed is refused, unsigned works.
    let square = axis_box::<2>(p2(0.0, 0.0), p2(1.0, 1.0), [4, 4]).unwrap();
    let wall = Front::named(&square, &["ymin"]).unwrap();
    let err = distance_to_range(&square, &wall, &FmmOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("a signed distance needs a closed front") && err.contains("belongs to 1 front facet"),
        "{err}"
    );
    let unsigned = FmmOptions {
        signed: false,
        ..FmmOptions::default()
    };
    assert!(distance_to_range(&square, &wall, &unsigned).is_ok());
    // A shape that misses the mesh.
    let far = Ball {
        centre: p2(10.0, 10.0),
        radius: 1.0,
    };
    let err = distance_to_range(&square, &Front::Shape(&far), &FmmOptions::default()).unwrap_err();
    assert!(matches!(err, FmmError::EmptyFront(_)), "{err}");
}

/// In closest-point mode the minimum on a marked boundary is located between nodes, on the facets:
/// two circles that are not concentric, the inner one's field evaluated on the outer one. With the
/// inner circle of radius 0.5 at (0.3, 0.2) and the outer of radius 2 at 0, the closest point of
/// the outer circle is along the line through both centres, where the gap is 2 − |c| − 0.5.
#[test]
fn argmin_between_nodes_in_closest_point_mode() {
    let c = p2(0.3, 0.2);
    let mesh = ball(
        &[Sphere::new(c, 0.5, "inner"), Sphere::new(p2(0.0, 0.0), 2.0, "outer")],
        false,
        0.1,
    )
    .unwrap();
    let front = Front::named(&mesh, &["inner"]).unwrap();
    let outer = mesh.facet_marker("outer").unwrap();
    let exact_gap = 2.0 - c.norm() - 0.5;
    let exact_point = c.normalize() * 2.0;
    let nodal = distance_to_range(&mesh, &front, &FmmOptions::default()).unwrap();
    let (p_nodal, v_nodal) = nodal.argmin_on(&mesh, &[outer]).unwrap();
    let exact_mode = distance_to_range(
        &mesh,
        &front,
        &FmmOptions {
            closest_point: true,
            ..FmmOptions::default()
        },
    )
    .unwrap();
    let (p, v) = exact_mode.argmin_on(&mesh, &[outer]).unwrap();
    println!(
        "nodal: {:?} {v_nodal}; closest-point: {:?} {v}; exact {:?} {exact_gap}",
        p_nodal.as_slice(),
        p.as_slice(),
        exact_point.as_slice()
    );
    // Between two polygons inscribed in the circles, the gap is within the facet sags (h²/(8R)).
    let sag = 0.1f64.powi(2) / 8.0 * (1.0 / 0.5 + 1.0 / 2.0);
    assert!((v - exact_gap).abs() < sag, "{v} vs {exact_gap}");
    // The point is on the outer polygon and achieves the value exactly against the front facets.
    let on_outer = mesh
        .facets_marked(outer)
        .map(|f| {
            let n = mesh.facets()[f as usize];
            tumble::math::distance_to_facet(&p, &[mesh.points()[n[0] as usize], mesh.points()[n[1] as usize]])
        })
        .fold(f64::INFINITY, f64::min);
    assert!(on_outer < 1e-12, "{on_outer}");
    let to_front = exact_mode
        .front_facets
        .iter()
        .map(|f| tumble::math::distance_to_facet(&p, f))
        .fold(f64::INFINITY, f64::min);
    assert!((to_front - v).abs() < 1e-12, "{to_front} vs {v}");
    // It improves on the best node. The position itself is ill-conditioned (the gap varies only
    // quadratically along the circle, so a sag of 3e-3 moves the minimum by up to about 0.23).
    let best_node = mesh
        .facets_marked(outer)
        .flat_map(|f| mesh.facets()[f as usize])
        .map(|n| exact_mode.values[n as usize])
        .fold(f64::INFINITY, f64::min);
    assert!(v <= best_node + 1e-12 && v <= v_nodal + 1e-12);
    assert!((p - exact_point).norm() < 0.25, "{p}");
}

/// A star polygon given as a polyline of its own, cutting through a square mesh: in closest-point
/// mode the values are the exact signed distance to the polygon (signs from the closest facets' pseudo-normals), and
/// the march is first order.
#[test]
fn polyline_front_of_its_own() {
    let star = Polygon {
        vertices: (0..14)
            .map(|k| {
                let angle = 0.3 + k as f64 * std::f64::consts::PI / 7.0;
                let r = if k % 2 == 0 { 0.7 } else { 0.3 };
                p2(r * angle.cos(), r * angle.sin())
            })
            .collect(),
    };
    let n = star.vertices.len() as u32;
    let facets: Vec<[u32; 2]> = (0..n).map(|i| [i, (i + 1) % n]).collect();
    let front = Front::Surface {
        points: &star.vertices,
        facets: &facets,
    };
    let mesh = axis_box::<2>(p2(-1.0, -1.0), p2(1.0, 1.0), [100, 100]).unwrap();
    let closest = distance_to_range(
        &mesh,
        &front,
        &FmmOptions {
            closest_point: true,
            ..FmmOptions::default()
        },
    )
    .unwrap();
    let e = max_error(&mesh, &closest.values, &star, |_| true);
    assert!(e < 1e-12, "closest-point error {e}");
    let march = distance_to_range(&mesh, &front, &FmmOptions::default()).unwrap();
    let e = max_error(&mesh, &march.values, &star, |_| true);
    assert!(e < 0.03, "march error {e}");
    // The same polyline reversed gives the same field.
    let reversed: Vec<[u32; 2]> = facets.iter().map(|f| [f[1], f[0]]).collect();
    let back = distance_to_range(
        &mesh,
        &Front::Surface {
            points: &star.vertices,
            facets: &reversed,
        },
        &FmmOptions::default(),
    )
    .unwrap();
    let diff = back
        .values
        .iter()
        .zip(&march.values)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("reversed polyline: largest difference {diff:e}");
    assert!(diff < 1e-12, "{diff}");
}

/// A triangulated sphere (the boundary of a generated ball) inside a box mesh: closest-point values
/// equal the brute-force distance to the triangles, with the sign of the sphere.
#[test]
fn triangulated_surface_front_of_its_own() {
    let o = Point::<3>::zeros();
    let sphere_mesh = ball(&[Sphere::new(o, 0.5, "s")], false, 0.15).unwrap();
    let facets: Vec<[u32; 3]> = sphere_mesh.facets().to_vec();
    let points = sphere_mesh.points();
    let front = Front::Surface {
        points,
        facets: &facets,
    };
    let mesh = axis_box::<3>(Point::<3>::repeat(-1.0), Point::<3>::repeat(1.0), [20, 20, 20]).unwrap();
    let field = distance_to_range(
        &mesh,
        &front,
        &FmmOptions {
            closest_point: true,
            max_distance: Some(0.4),
            ..FmmOptions::default()
        },
    )
    .unwrap();
    let triangles: Vec<[Point<3>; 3]> = facets
        .iter()
        .map(|f| [points[f[0] as usize], points[f[1] as usize], points[f[2] as usize]])
        .collect();
    let mut checked = 0;
    for (v, x) in mesh.points().iter().enumerate() {
        if !field.reached[v] {
            continue;
        }
        let brute = triangles
            .iter()
            .map(|t| tumble::math::distance_to_facet(x, t))
            .fold(f64::INFINITY, f64::min);
        assert!(
            (field.values[v].abs() - brute).abs() < 1e-12,
            "node {v}: {} vs {brute}",
            field.values[v]
        );
        let exact = x.norm() - 0.5;
        if exact.abs() > 0.02 {
            assert_eq!(field.values[v].signum(), exact.signum(), "sign at {x}");
        }
        checked += 1;
    }
    assert!(checked > 1000, "{checked}");
}

/// Non-convex surfaces cutting through a box mesh: the level set of three overlapping balls
/// (smooth creases where they meet) and an L-shaped prism of 20 triangles (a sharp concave edge,
/// and closest points on its edges and corners). Every initialised node's side, taken from its
/// closest facet's pseudo-normal, is the side the winding number gives, for both orientations.
#[test]
fn pseudo_normal_sides_match_the_winding_number_on_non_convex_surfaces() {
    let parts: Vec<Box<dyn Shape<3>>> = (0..3)
        .map(|k| {
            let a = 2.0 * std::f64::consts::PI * k as f64 / 3.0;
            Box::new(Ball {
                centre: Point::<3>::new(0.3 * a.cos(), 0.3 * a.sin(), 0.1 * k as f64),
                radius: 0.3,
            }) as Box<dyn Shape<3>>
        })
        .collect();
    let union = Union { parts };
    let lattice = axis_box::<3>(Point::<3>::repeat(-0.8), Point::<3>::repeat(0.8), [24, 24, 24]).unwrap();
    let phi: Vec<f64> = lattice.points().iter().map(|x| union.signed_distance(x)).collect();
    let balls = tumble::body::Surface::level_set(&lattice, &phi);
    // The L (0,0) (2,0) (2,1) (1,1) (1,2) (0,2), scaled by 0.6, shifted and extruded along z.
    let corners = [(0., 0.), (2., 0.), (2., 1.), (1., 1.), (1., 2.), (0., 2.)];
    let points: Vec<Point<3>> = [-0.5, 0.4]
        .iter()
        .flat_map(|&z| {
            corners
                .iter()
                .map(move |&(x, y)| Point::<3>::new(0.6 * x - 0.55, 0.6 * y - 0.6, z))
        })
        .collect();
    let mut facets: Vec<[u32; 3]> = vec![[0, 2, 1], [0, 3, 2], [0, 5, 3], [3, 5, 4]];
    facets.extend([[6, 7, 8], [6, 8, 9], [6, 9, 11], [9, 10, 11]]);
    for k in 0..6u32 {
        let next = (k + 1) % 6;
        facets.extend([[k, next, next + 6], [k, next + 6, k + 6]]);
    }
    let prism = tumble::body::Surface::new(points, facets);
    let mesh = axis_box::<3>(Point::<3>::repeat(-1.0), Point::<3>::repeat(1.0), [31, 29, 27]).unwrap();
    for surface in [balls, prism] {
        let triangles = surface.facet_points();
        let reversed: Vec<[u32; 3]> = surface.facets.iter().map(|f| [f[0], f[2], f[1]]).collect();
        for facets in [&surface.facets, &reversed] {
            let field = distance_to_range(
                &mesh,
                &Front::Surface {
                    points: &surface.points,
                    facets,
                },
                &FmmOptions {
                    closest_point: true,
                    max_distance: Some(0.05),
                    ..FmmOptions::default()
                },
            )
            .unwrap();
            let (mut inside, mut outside) = (0, 0);
            for &v in &field.order[..field.stats.initialised] {
                let (x, value) = (mesh.points()[v as usize], field.values[v as usize]);
                if value == 0.0 || !field.reached[v as usize] {
                    continue;
                }
                let winding = tumble::math::winding_number(&x, &triangles);
                assert_eq!(
                    value < 0.0,
                    winding.abs() > 0.5,
                    "node {v} at {x}: {value}, winding number {winding}"
                );
                if value < 0.0 {
                    inside += 1;
                } else {
                    outside += 1;
                }
            }
            println!("{} facets: {inside} nodes inside, {outside} outside", triangles.len());
            assert!(inside > 300 && outside > 300, "{inside} inside, {outside} outside");
        }
    }
}

#[test]
fn bad_surface_fronts() {
    let mesh = axis_box::<2>(p2(-1.0, -1.0), p2(1.0, 1.0), [10, 10]).unwrap();
    let points = [p2(0.0, 0.0), p2(0.5, 0.0), p2(0.0, 0.5)];
    let open = [[0u32, 1], [1, 2]];
    let err = distance_to_range(
        &mesh,
        &Front::Surface {
            points: &points,
            facets: &open,
        },
        &FmmOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("needs a closed front") && err.contains("belongs to 1 facet"),
        "{err}"
    );
    let unsigned = FmmOptions {
        signed: false,
        ..FmmOptions::default()
    };
    assert!(distance_to_range(
        &mesh,
        &Front::Surface {
            points: &points,
            facets: &open
        },
        &unsigned
    )
    .is_ok());
    let bad = [[0u32, 7]];
    let err = distance_to_range(
        &mesh,
        &Front::Surface {
            points: &points,
            facets: &bad,
        },
        &unsigned,
    )
    .unwrap_err()
    .to_string();
    assert!(err.starts_with("surface front: facet 0 refers to node [0, 7]"), "{err}");
    let far = [p2(5.0, 5.0), p2(6.0, 5.0)];
    let err = distance_to_range(
        &mesh,
        &Front::Surface {
            points: &far,
            facets: &[[0, 1]],
        },
        &unsigned,
    )
    .unwrap_err();
    assert!(matches!(err, FmmError::EmptyFront(_)), "{err}");
}
