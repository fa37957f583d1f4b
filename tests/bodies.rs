//! Rigid bodies: surfaces, mass properties and body-frame distance fields against exact values.

use std::f64::consts::PI;
use tumble::body::{BodyGeometry, LatticeField};
use tumble::math::Point;
use tumble::mesh::generate::axis_box;
use tumble::shape::{Ball, Cuboid, Ellipsoid, Shape};

fn disk(r: f64) -> Ball<2> {
    Ball {
        centre: Point::<2>::zeros(),
        radius: r,
    }
}

#[test]
fn disk_geometry_matches_exact_area_inertia_and_distance() {
    let (r, h, band) = (0.125, 0.03 / 4.0, 0.06);
    let g = BodyGeometry::<2>::from_shape(&disk(r), h, band).unwrap();
    let m = g.moments;
    let area_err = (m.measure - PI * r * r).abs() / (PI * r * r);
    let polar = m.second.trace();
    let polar_err = (polar - PI * r.powi(4) / 2.0).abs() / (PI * r.powi(4) / 2.0);
    println!(
        "area err {area_err:.2e}, polar err {polar_err:.2e}, radius {}",
        g.radius
    );
    assert!(area_err < 2e-3 && polar_err < 4e-3);
    assert!(m.centroid.norm() < 1e-12);
    // Field against |x| − r, where the contact law looks (|d| ≤ band).
    let mut worst: f64 = 0.0;
    for k in 0..2000 {
        let a = k as f64 * 0.7;
        let rad = r - 0.03 + 0.09 * (k as f64 / 2000.0);
        let x = Point::<2>::new(rad * a.cos(), rad * a.sin());
        worst = worst.max((g.field.value(&x) - (rad - r)).abs());
    }
    println!("field max err {worst:.2e}");
    assert!(worst < 0.03 / 20.0 / 4.0, "{worst}");
}

#[test]
fn lattice_field_is_the_p1_interpolant_of_the_kuhn_mesh() {
    for_dim::<2>();
    for_dim::<3>();
    fn for_dim<const D: usize>() {
        let n = 5;
        let lo = Point::<D>::repeat(-0.3);
        let h = 0.17;
        let mesh = axis_box::<D>(lo, lo + Point::<D>::repeat(h * n as f64), [n; D]).unwrap();
        let values: Vec<f64> = mesh
            .points()
            .iter()
            .map(|p| (p.norm() * 7.0).sin() + p[0] * p[D - 1])
            .collect();
        let lat = LatticeField {
            lo,
            h,
            n: [n; D],
            values: values.clone(),
            outside: 9.0,
        };
        for k in 0..500 {
            let x = Point::<D>::from_fn(|a, _| -0.3 + h * n as f64 * (((k * (a + 3) * 7919) % 1000) as f64 / 1000.0));
            let found = mesh.locate(&x).unwrap();
            let exact: f64 = mesh
                .cell(found.cell)
                .iter()
                .zip(&found.weights)
                .map(|(&v, w)| w * values[v as usize])
                .sum();
            assert!((lat.value(&x) - exact).abs() < 1e-12, "{} vs {exact}", lat.value(&x));
        }
        assert_eq!(lat.value(&Point::<D>::repeat(5.0)), 9.0);
    }
}

/// Area and polar moment of an ellipse and a square, volume and inertia of a 3D ball, against the
/// closed forms, within the `O(h²)` of the level-set surface.
#[test]
fn mass_properties_of_shapes_match_closed_forms() {
    let (a, b) = (0.5, 0.25);
    let e = BodyGeometry::<2>::from_shape(&Ellipsoid { semi_axes: [a, b] }, 0.01, 0.05).unwrap();
    let area = PI * a * b;
    assert!((e.moments.measure - area).abs() < 1e-3 * area);
    let polar = area * (a * a + b * b) / 4.0;
    assert!((e.moments.second.trace() - polar).abs() < 2e-3 * polar);
    // Second moments along the axes: area a²/4 and area b²/4.
    assert!((e.moments.second[(0, 0)] - area * a * a / 4.0).abs() < 2e-3 * polar);
    assert!(e.moments.second[(0, 1)].abs() < 1e-6);

    let l = 0.25;
    let sq = BodyGeometry::<2>::from_shape(&Cuboid { half: [l / 2.0; 2] }, 0.01, 0.05).unwrap();
    // The rectangle's boundary is exact (its sides subdivided), so are its moments and radius.
    assert!((sq.moments.measure - l * l).abs() < 1e-14);
    assert!((sq.moments.second.trace() - l.powi(4) / 6.0).abs() < 1e-14);
    assert!((sq.radius - l / 2.0 * 2f64.sqrt()).abs() < 1e-14);

    let r = 0.3;
    let ball = BodyGeometry::<3>::from_shape(
        &Ball {
            centre: Point::<3>::zeros(),
            radius: r,
        },
        0.03,
        0.06,
    )
    .unwrap();
    let volume = 4.0 / 3.0 * PI * r.powi(3);
    let v_err = (ball.moments.measure - volume).abs() / volume;
    // Inertia about any axis (2/5) m r², with m = volume (density 1).
    let i_exact = 0.4 * volume * r * r;
    let inertia = ball.moments.second.trace() * nalgebra::Matrix3::identity() - ball.moments.second;
    let i_err = (0..3)
        .map(|k| (inertia[(k, k)] - i_exact).abs() / i_exact)
        .fold(0.0, f64::max);
    println!(
        "3D ball: volume err {v_err:.2e}, inertia err {i_err:.2e}, surface nodes {}",
        ball.surface.points.len()
    );
    assert!(v_err < 1e-2 && i_err < 2e-2);
    // A box and an ellipsoid in 3D: the box's faces are exact, the ellipsoid's nodes are on it.
    let b = BodyGeometry::<3>::from_shape(&Cuboid { half: [0.2, 0.1, 0.05] }, 0.03, 0.06).unwrap();
    assert!((b.moments.measure - 0.4 * 0.2 * 0.1).abs() < 1e-12);
    assert!((b.radius - (0.04f64 + 0.01 + 0.0025).sqrt()).abs() < 1e-12);
    let e = BodyGeometry::<3>::from_shape(
        &Ellipsoid {
            semi_axes: [0.3, 0.2, 0.1],
        },
        0.02,
        0.06,
    )
    .unwrap();
    let ve = 4.0 / 3.0 * PI * 0.3 * 0.2 * 0.1;
    assert!(
        (e.moments.measure - ve).abs() < 1e-2 * ve,
        "{} vs {ve}",
        e.moments.measure
    );
    // The 3D field against |x| − r in the contact band.
    let mut worst: f64 = 0.0;
    for k in 0..500 {
        let u = Point::<3>::new(
            (k as f64 * 0.37).sin(),
            (k as f64 * 0.91).cos(),
            (k as f64 * 0.13).sin(),
        )
        .normalize();
        let rad = r + 0.05 * ((k % 7) as f64 / 6.0) - 0.02;
        worst = worst.max((ball.field.value(&(u * rad)) - (rad - r)).abs());
    }
    println!("3D field max err {worst:.2e}");
    assert!(worst < 0.03 * 0.03 / 0.3, "{worst}");
}

/// A body meshed on its own (the committed Gmsh disk of radius 3): its surface is the mesh's
/// boundary and its moments those of the region.
#[test]
fn body_from_a_gmsh_mesh() {
    let mesh = tumble::mesh::gmsh::read_dim::<2>(std::path::Path::new("meshes/disk_r3.msh")).unwrap();
    let g = BodyGeometry::<2>::from_mesh(&mesh, 0.2, 0.4).unwrap();
    let cells = mesh.moments(|_| true);
    assert!((g.moments.measure - cells.measure).abs() < 1e-9 * cells.measure);
    assert!((g.moments.second - cells.second).norm() < 1e-9 * cells.second.norm());
    assert!((g.radius - 3.0).abs() < 1e-6);
    assert!((g.field.value(&Point::<2>::new(3.2, 0.0)) - 0.2).abs() < 0.01);
}

/// A body's world distance is its body-frame field at `R^T (x − G)`: a rotated ellipse.
#[test]
fn rotated_body_distance_matches_the_rotated_shape() {
    use std::sync::Arc;
    use tumble::body::RigidBody;
    let shape = Ellipsoid { semi_axes: [0.3, 0.1] };
    let g = Arc::new(BodyGeometry::<2>::from_shape(&shape, 0.005, 0.04).unwrap());
    let mut body = RigidBody::new("e", g, 2.0, Point::<2>::new(1.0, 2.0));
    body.rotation = 0.7;
    let (s, c) = 0.7f64.sin_cos();
    for k in 0..200 {
        let x = Point::<2>::new(1.0 + 0.4 * (k as f64 * 0.3).cos(), 2.0 + 0.4 * (k as f64 * 0.7).sin());
        let local = Point::<2>::new(c * (x.x - 1.0) + s * (x.y - 2.0), -s * (x.x - 1.0) + c * (x.y - 2.0));
        let exact = shape.signed_distance(&local);
        if exact.abs() < 0.04 {
            assert!(
                (body.distance(&x) - exact).abs() < 2e-4,
                "{} vs {exact}",
                body.distance(&x)
            );
        }
    }
    assert!((body.mass - 2.0 * PI * 0.3 * 0.1).abs() < 1e-3 * body.mass);
}

/// The curvature tensor fitted at a body's surface nodes ([`BodyGeometry::curvature_near`]),
/// projected on the tangent plane at the point asked (as the lubrication film does), against the
/// exact one of an ellipse and an ellipsoid, `P ∇²F P / |∇F|` for `F = Σ x_a²/e_a² − 1`, at points
/// all around them, nodes a twentieth of the smallest semi-axis apart: within 1 % of `1/r` on a
/// circle and a sphere of radius `r` (measured 0.23 % and 0.48 %), within 3 % of the largest
/// curvature on the ellipse (2:1) and the ellipsoid (2:1.33:1), where it varies between the point
/// and its nearest node (measured 2.2 % and 1.6 %).
#[test]
fn curvature_fitted_at_the_nodes_matches_the_ellipsoids() {
    fn for_dim<const D: usize>(semi: [f64; D]) -> f64 {
        let smallest = semi.iter().copied().fold(f64::INFINITY, f64::min);
        let h = smallest / 20.0;
        let shape = Ellipsoid { semi_axes: semi };
        let g = BodyGeometry::<D>::from_shape(&shape, h, 4.0 * h).unwrap();
        let mut worst: f64 = 0.0;
        let count = 60;
        for k in 0..count {
            let t = 2.0 * PI * (k as f64 + 0.3) / count as f64;
            let u = PI * (k as f64 * 0.618_034 % 1.0) - PI / 2.0;
            let unit: [f64; 3] = [t.cos() * u.cos(), t.sin() * u.cos(), u.sin()];
            let dir: [f64; 3] = if D == 2 { [t.cos(), t.sin(), 0.0] } else { unit };
            let x = Point::<D>::from_fn(|a, _| semi[a] * dir[a]);
            let grad = tumble::math::Vector::<D>::from_fn(|a, _| 2.0 * x[a] / (semi[a] * semi[a]));
            let n = grad.normalize();
            let p = nalgebra::SMatrix::<f64, D, D>::identity() - n * n.transpose();
            let hess =
                nalgebra::SMatrix::<f64, D, D>::from_fn(|a, b| if a == b { 2.0 / (semi[a] * semi[a]) } else { 0.0 });
            let exact = p * hess * p / grad.norm();
            let largest = semi.iter().copied().fold(0.0, f64::max) / (smallest * smallest);
            worst = worst.max((p * g.curvature_near(&x) * p - exact).norm() / largest);
        }
        worst
    }
    let (circle, sphere) = (for_dim::<2>([0.1, 0.1]), for_dim::<3>([0.1, 0.1, 0.1]));
    let (ellipse, ellipsoid) = (for_dim::<2>([0.2, 0.1]), for_dim::<3>([0.15, 0.1, 0.075]));
    println!(
        "curvature error over the largest: circle {circle:.2e}, sphere {sphere:.2e}, ellipse {ellipse:.2e}, \
         ellipsoid {ellipsoid:.2e}"
    );
    assert!(circle < 0.01 && sphere < 0.01, "{circle} {sphere}");
    assert!(ellipse < 0.03 && ellipsoid < 0.03, "{ellipse} {ellipsoid}");
}
