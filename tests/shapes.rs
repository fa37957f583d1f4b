//! Analytic shapes against independent computations of their distance.

use tumble::math::Point;
use tumble::shape::{Cuboid, Polygon, Shape};

fn p2(x: f64, y: f64) -> Point<2> {
    Point::<2>::new(x, y)
}

/// The rectangle's distance against the polygon with the same corners, and the box's at points
/// whose nearest feature is known.
#[test]
fn cuboids_against_polygons_and_known_points() {
    let rect = Cuboid { half: [1.0, 0.25] };
    let poly = Polygon {
        vertices: vec![p2(-1.0, -0.25), p2(1.0, -0.25), p2(1.0, 0.25), p2(-1.0, 0.25)],
    };
    for i in 0..40 {
        for j in 0..40 {
            let x = p2(-2.0 + 0.1 * i as f64, -1.0 + 0.05 * j as f64);
            assert!(
                (rect.signed_distance(&x) - poly.signed_distance(&x)).abs() < 1e-12,
                "{x}"
            );
        }
    }
    let cube = Cuboid { half: [1.0, 2.0, 0.5] };
    let d = |x: f64, y: f64, z: f64| cube.signed_distance(&Point::<3>::new(x, y, z));
    assert!((d(0.0, 0.0, 0.0) + 0.5).abs() < 1e-15); // nearest face z
    assert!((d(3.0, 0.0, 0.0) - 2.0).abs() < 1e-15); // face x
    assert!((d(2.0, 3.0, 0.0) - 2f64.sqrt()).abs() < 1e-15); // edge
    assert!((d(2.0, 3.0, 1.5) - 3f64.sqrt()).abs() < 1e-15); // corner
    assert!((d(0.9, -1.5, 0.1) + 0.1).abs() < 1e-15); // inside, nearest face x
}
