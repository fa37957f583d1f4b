//! The lubrication film's resistance ([`Lubrication`]) against the classical closed forms (a
//! sphere and a plane, two spheres, a cylinder and a plane) and against Reynolds's equation itself
//! on a gap of two different curvatures.

use nalgebra::{Matrix2, Matrix3};
use std::f64::consts::PI;
use tumble::contact::Lubrication;

const FILM: Lubrication = Lubrication {
    viscosity: 0.3,
    cut: 0.02,
    roughness: 1e-4,
};

/// The relative curvature of a gap over the plane z = 0 with principal radii `rx`, `ry`.
fn gap_curvature(rx: f64, ry: f64) -> Matrix3<f64> {
    Matrix3::from_diagonal(&nalgebra::Vector3::new(1.0 / rx, 1.0 / ry, 0.0))
}

#[test]
fn the_film_is_cox_and_brenners_between_spheres_and_the_cylinders_in_2d() {
    let (a, h) = (0.5, 2e-3);
    let mu = FILM.viscosity;
    // A sphere and a plane: 6 π μ a² / h.
    let sphere = FILM.film::<3>(h, &gap_curvature(a, a), 10.0);
    assert!((sphere / (6.0 * PI * mu * a * a / h) - 1.0).abs() < 1e-12, "{sphere}");
    // Two spheres: the same with the reduced radius.
    let (a1, a2) = (0.5, 0.2);
    let reduced = a1 * a2 / (a1 + a2);
    let pair = FILM.film::<3>(h, &(gap_curvature(a1, a1) + gap_curvature(a2, a2)), 10.0);
    assert!(
        (pair / (6.0 * PI * mu * reduced * reduced / h) - 1.0).abs() < 1e-12,
        "{pair}"
    );
    // A rotated frame changes nothing.
    let turn = nalgebra::Rotation3::from_euler_angles(0.3, -0.7, 1.1);
    let normal = turn * nalgebra::Vector3::z();
    let p = Matrix3::identity() - normal * normal.transpose();
    let turned = turn.matrix() * gap_curvature(0.3, 0.7) * turn.matrix().transpose();
    let flat = FILM.film::<3>(h, &gap_curvature(0.3, 0.7), 10.0);
    assert!((FILM.film::<3>(h, &(p * turned * p), 10.0) / flat - 1.0).abs() < 1e-12);
    // A cylinder and a plane in 2D, per unit length: 3 √2 π μ (a/h)^{3/2}.
    let k = Matrix2::from_diagonal(&nalgebra::Vector2::new(1.0 / a, 0.0));
    let cylinder = FILM.film::<2>(h, &k, 10.0);
    assert!((cylinder / (3.0 * 2f64.sqrt() * PI * mu * (a / h).powf(1.5)) - 1.0).abs() < 1e-12);
    // A flat face is held at the bounding radius's curvature.
    let face = FILM.film::<3>(h, &Matrix3::zeros(), 0.25);
    assert!((face / (6.0 * PI * mu * 0.25 * 0.25 / h) - 1.0).abs() < 1e-12);
}

/// On the gap `h = h₀ + x²/2R_x + y²/2R_y`, `p = C/h²` with `C = 6 μ U / (1/R_x + 1/R_y)` solves
/// Reynolds's equation `∇·(h³∇p) = −12 μ U` (checked by finite differences at points of the film)
/// and its integral (by quadrature on polar coordinates out to 10⁴ h₀) is the film's resistance
/// times `U`.
#[test]
fn the_film_solves_reynolds_equation_on_a_gap_of_two_curvatures() {
    let (rx, ry, h0, u) = (0.4, 0.1, 1e-3, 2.0);
    let mu = FILM.viscosity;
    let c = 6.0 * mu * u / (1.0 / rx + 1.0 / ry);
    let gap = |x: f64, y: f64| h0 + x * x / (2.0 * rx) + y * y / (2.0 * ry);
    let p = |x: f64, y: f64| c / gap(x, y).powi(2);
    let flux = |x: f64, y: f64, dx: f64, dy: f64, s: f64| {
        // h³ ∂p along (dx, dy) at the midpoint, by a difference over s.
        let h = gap(x, y);
        h.powi(3) * (p(x + dx * s / 2.0, y + dy * s / 2.0) - p(x - dx * s / 2.0, y - dy * s / 2.0)) / s
    };
    let mut worst: f64 = 0.0;
    for (x, y) in [(0.0, 0.0), (0.01, 0.003), (-0.02, 0.01), (0.05, -0.004)] {
        let s = 1e-5;
        let div = (flux(x + s / 2.0, y, 1.0, 0.0, s) - flux(x - s / 2.0, y, 1.0, 0.0, s)) / s
            + (flux(x, y + s / 2.0, 0.0, 1.0, s) - flux(x, y - s / 2.0, 0.0, 1.0, s)) / s;
        worst = worst.max((div / (-12.0 * mu * u) - 1.0).abs());
    }
    println!("Reynolds's equation's residual: {worst:.1e}");
    assert!(worst < 1e-4, "{worst}");
    // x = √(2 R_x h₀) ρ cos θ, y = √(2 R_y h₀) ρ sin θ: h = h₀ (1 + ρ²), dA = 2 h₀ √(R_x R_y) ρ dρ dθ.
    let (n, top) = (200_000, 100.0);
    let mut force = 0.0;
    for k in 0..n {
        let rho = top * (k as f64 + 0.5) / n as f64;
        let x = (2.0 * rx * h0).sqrt() * rho;
        force += p(x, 0.0) * 2.0 * h0 * (rx * ry).sqrt() * rho * (top / n as f64) * 2.0 * PI;
    }
    let film = FILM.film::<3>(h0, &gap_curvature(rx, ry), 10.0) * u;
    println!("force by quadrature {force:.6e}, the film's {film:.6e}");
    assert!((force / film - 1.0).abs() < 2e-4, "{force} {film}");
}

#[test]
fn the_added_resistance_is_the_films_below_the_cut_and_stops_at_the_roughness() {
    let k = gap_curvature(0.5, 0.5);
    assert_eq!(FILM.resistance::<3>(FILM.cut, &k, 1.0), 0.0);
    assert_eq!(FILM.resistance::<3>(0.5, &k, 1.0), 0.0);
    let just_below = FILM.resistance::<3>(FILM.cut * (1.0 - 1e-9), &k, 1.0);
    assert!(just_below >= 0.0 && just_below < 1e-6 * FILM.film::<3>(FILM.cut, &k, 1.0));
    let h = 1e-3;
    let added = FILM.resistance::<3>(h, &k, 1.0);
    let expected = 6.0 * PI * FILM.viscosity * 0.25 * (1.0 / h - 1.0 / FILM.cut);
    assert!((added / expected - 1.0).abs() < 1e-12, "{added} {expected}");
    let rough = FILM.resistance::<3>(FILM.roughness, &k, 1.0);
    assert_eq!(FILM.resistance::<3>(FILM.roughness / 3.0, &k, 1.0), rough);
    assert_eq!(FILM.resistance::<3>(-0.01, &k, 1.0), rough);
}
