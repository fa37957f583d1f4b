//! The lubrication film's resistance ([`Lubrication`]) against the classical closed forms (a
//! sphere and a plane, two spheres, a cylinder and a plane) and against Reynolds's equation itself
//! on a gap of two different curvatures.

use nalgebra::{Matrix2, Matrix3};
use std::f64::consts::PI;
use tumble::case::Case;
use tumble::contact::{Lubrication, Surroundings};

const FILM: Lubrication = Lubrication {
    viscosity: 0.3,
    cut: 0.02,
    roughness: 1e-4,
    share: 0.0,
    tangential: true,
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
    assert!(rough > 0.0);
    // The surfaces met: the collision law's overlap, no film.
    assert_eq!(FILM.resistance::<3>(0.0, &k, 1.0), 0.0);
    assert_eq!(FILM.resistance::<3>(-0.01, &k, 1.0), 0.0);
}

/// With the mesh's share `s`, the film adds `1 − s` of its resistance and of its step's impulse:
/// the same as the whole film of a fluid `1 − s` times as viscous.
#[test]
fn a_share_the_mesh_carries_is_left_out_of_the_film() {
    let k = gap_curvature(0.5, 0.5);
    let shared = Lubrication { share: 0.7, ..FILM };
    let thinner = Lubrication {
        viscosity: 0.3 * FILM.viscosity,
        ..FILM
    };
    for h in [1.5e-2, 1e-3, 2e-4, 5e-5] {
        let (a, b) = (shared.resistance::<3>(h, &k, 1.0), thinner.resistance::<3>(h, &k, 1.0));
        assert!((a / b - 1.0).abs() < 1e-12, "{h}: {a} {b}");
        let expected = 0.3 * FILM.resistance::<3>(h, &k, 1.0);
        assert!((a / expected - 1.0).abs() < 1e-12, "{h}: {a} {expected}");
        let (a, b) = (
            shared.stepped::<3>((h, 0.5), (&k, 1.0), 0.01, 1e-3),
            thinner.stepped::<3>((h, 0.5), (&k, 1.0), 0.01, 1e-3),
        );
        assert!((a - b).abs() < 1e-12 && a < 0.5, "{h}: {a} {b}");
        assert!(
            shared.stepped::<3>((h, 0.5), (&k, 1.0), 0.01, 1e-3) > FILM.stepped::<3>((h, 0.5), (&k, 1.0), 0.01, 1e-3)
        );
    }
    // The film's own closed form stays whole.
    assert_eq!(shared.film::<3>(1e-3, &k, 1.0), FILM.film::<3>(1e-3, &k, 1.0));
}

/// A ball (or a disk) of radius `r` and density 7.8 coasting without gravity at `speed` towards
/// the floor of a box of side 2 (or, with `pair`, towards its mirror image across the plane
/// y = 1, a second ball in a box without walls) through a film of viscosity `mu`, cut 0.02 and
/// roughness 1e-4 beside a collision law that begins at 1e-4: the gap (from the centre) and the
/// approach speed at each step `dt` until the gap is `last` or the approach stops (at most 0.2).
fn coast<const D: usize>(mu: f64, speed: f64, pair: bool, (last, dt): (f64, f64)) -> Vec<(f64, f64)>
where
    tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
{
    let r = 0.1;
    let (shape, corner, h, lattice) = if D == 2 {
        ("circle", "[2.0, 2.0]", 0.05, 0.001)
    } else {
        ("sphere", "[2.0, 2.0, 2.0]", 0.25, 0.004)
    };
    let at = |y: f64| {
        let mut p = vec![1.0; D];
        p[1] = y;
        format!("{p:?}")
    };
    let moving = |v: f64| {
        let mut p = vec![0.0; D];
        p[1] = v;
        format!("{p:?}")
    };
    let start = r + 0.021;
    let mut text = format!("dimension = {D}\n");
    if pair {
        for (name, y, v) in [("low", 1.0 - start, speed), ("high", 1.0 + start, -speed)] {
            text += &format!(
                "[[bodies]]\nname = \"{name}\"\nshape = {{ type = \"{shape}\", radius = {r} }}\ndensity = 7.8\n\
                 position = {}\nvelocity = {}\n",
                at(y),
                moving(v)
            );
        }
    } else {
        text += &format!(
            "[domain]\nbox = [{}, {corner}]\nh = {h}\n[[bodies]]\nname = \"ball\"\n\
             shape = {{ type = \"{shape}\", radius = {r} }}\ndensity = 7.8\nposition = {}\nvelocity = {}\n",
            moving(0.0),
            at(start),
            moving(-speed)
        );
    }
    text += &format!(
        "[contact]\nlaw = \"collision\"\nrange = 1e-4\nrestitution = 0.9\nduration = 1e-3\nresolution = {lattice}\n\
         lubrication = {{ cut = 0.02, roughness = 1e-4, viscosity = {mu} }}\n[time]\nstep = 1e-4\nend = 1.0\n"
    );
    let mut sim = Case::parse(std::path::Path::new("film.toml"), &text)
        .unwrap()
        .build::<D>()
        .unwrap();
    let mut out = Vec::new();
    loop {
        let b = &sim.bodies[sim.bodies.len() - 1];
        let (gap, approach) = if pair {
            (2.0 * (b.position[1] - 1.0 - r), -2.0 * b.velocity[1])
        } else {
            (b.position[1] - r, -b.velocity[1])
        };
        out.push((gap, approach));
        if gap <= last || approach <= 0.0 || sim.time > 0.2 {
            return out;
        }
        sim.step(dt).unwrap();
    }
}

/// The approach speed the film leaves at gap `h` of one coming in at `u0` from beyond the cut
/// `h_c`: `m du/dh = λ(h) = λ_film(h) − λ_film(h_c)` integrated from `h_c` (exactly).
fn coasted(dim: usize, mu: f64, u0: f64, pair: bool, h: f64) -> f64 {
    let (r, hc): (f64, f64) = (0.1, 0.02);
    let (mut m, mut radius) = if dim == 2 {
        (7.8 * PI * r * r, r)
    } else {
        (7.8 * 4.0 / 3.0 * PI * r.powi(3), r)
    };
    if pair {
        (m, radius) = (m / 2.0, r / 2.0);
    }
    let integral = if dim == 2 {
        let c = 3.0 * 2f64.sqrt() * PI * mu * radius.powf(1.5);
        c * (2.0 * (h.powf(-0.5) - hc.powf(-0.5)) - (hc - h) * hc.powf(-1.5))
    } else {
        6.0 * PI * mu * radius * radius * ((hc / h).ln() - (hc - h) / hc)
    };
    u0 - integral / m
}

/// A ball coasting onto a plate, and two balls onto each other, slow down through the film as
/// its closed form integrates (`m du/dh = λ(h)`) down to a tenth of the cut, within 1.5 % of the
/// speed lost, in 2D and 3D, at 40 steps across the film and at 4: the film's gap, curvatures
/// (fitted on the surface mesh), reduced mass and radius are the exact ones, and the step does
/// the film's work over the gap it crosses. A film that takes all of the approach stops it
/// without a bounce.
#[test]
fn a_ball_coasting_onto_a_plate_or_another_slows_as_the_film_integrates() {
    fn check<const D: usize>(pair: bool, dt: f64)
    where
        tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
    {
        let (mu, u0) = (if D == 2 { 6e-3 } else { 0.05 }, 1.0);
        let path = coast::<D>(mu, if pair { u0 / 2.0 } else { u0 }, pair, (0.002, dt));
        let mut worst: f64 = 0.0;
        for &(h, u) in path.iter().filter(|(h, _)| *h < 0.015) {
            let exact = coasted(D, mu, u0, pair, h);
            worst = worst.max(((u0 - u) / (u0 - exact) - 1.0).abs());
        }
        let (h, u) = path[path.len() - 1];
        let lost = (u0 - u) / u0;
        println!("D = {D}, pair {pair}, dt {dt:e}: at h = {h:.2e} speed {u:.4} (lost {lost:.3}), worst error in the loss {worst:.2e}");
        assert!(h <= 0.0021 && lost > 0.15, "{h} {u}");
        assert!(worst < 0.015, "{worst}");
    }
    check::<2>(false, 1e-4);
    check::<3>(false, 1e-4);
    check::<2>(true, 1e-4);
    check::<3>(true, 1e-4);
    check::<2>(false, 1e-3);
    check::<3>(true, 1e-3);
    // Ten times the viscosity: the film takes the whole approach and the ball stops where its
    // work is the ball's momentum, Φ(h*) = m u₀, without a bounce (3D: C (ln(h_c/h*) − 1 +
    // h*/h_c) = m u₀, C = 6 π μ a²).
    let mu = 0.5;
    let path = coast::<3>(mu, 1.0, false, (0.0, 1e-4));
    let (h, u) = path[path.len() - 1];
    let c = 6.0 * PI * mu * 0.01;
    let m = 7.8 * 4.0 / 3.0 * PI * 1e-3;
    let (mut lo, mut hi): (f64, f64) = (1e-4, 0.02);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if c * ((0.02 / mid).ln() - 1.0 + mid / 0.02) > m {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    println!(
        "stopped at h = {h:.4e} (h* = {lo:.4e}), speed {u:e}, {} steps",
        path.len()
    );
    assert!(u.abs() < 1e-3 && (h / lo - 1.0).abs() < 0.01, "{h} {u}");
    assert!(path.iter().all(|&(_, u)| u >= 0.0), "the film pushed the ball back");
}

/// A ball settling onto a plate through a film in a toy fluid that answers with the drag
/// `−D_t U` alone, solved with the body (`(m + D_t Δt) U' = m U + Δt (W + F_c)`), the drag three
/// times Stokes's: the time it takes from the cut to each gap follows the exact
/// `m du/dt = W − D_t u − λ(h) u` (RK4 at a thousandth of the step) when the film's step is given
/// the ball's surroundings ([`Surroundings`]): within 6 % at steps over which the film's
/// `λ Δt/m` reaches 15, 3 % at half the step (first order: the speed halves within the first
/// steps into the film), and within 0.8 % and 0.3 % of the time to the gaps below a quarter of
/// the cut. Given the ball's inertia alone, as a dry run, the film's impulse is capped at `m u`
/// and the ball reaches a thirtieth of the cut in half the time.
#[test]
fn a_ball_settling_in_a_viscous_fluid_takes_the_films_time() {
    for dt in [0.01, 0.005] {
        settling(dt);
    }
}

fn settling(dt: f64) {
    let (r, density, mu, g, cut) = (0.1, 7.8, 0.3, 26.0, 0.02);
    let volume = 4.0 / 3.0 * PI * r * r * r;
    let m = density * volume;
    let stokes = Surroundings::<3>::stokes(mu, volume, 2.0);
    assert!((stokes / (6.0 * PI * mu * r) - 1.0).abs() < 1e-12);
    let (drag, weight) = (3.0 * stokes, m * g);
    let (start, u0) = (r + 0.04, weight / drag);
    let text = format!(
        "dimension = 3\n[domain]\nbox = [[0.0, 0.0, 0.0], [2.0, 2.0, 2.0]]\nh = 0.25\n[[bodies]]\nname = \"ball\"\n\
         shape = {{ type = \"sphere\", radius = {r} }}\ndensity = {density}\nposition = [1.0, {start}, 1.0]\n\
         velocity = [0.0, {}, 0.0]\n[contact]\nlaw = \"collision\"\nrange = 1e-4\nrestitution = 0.9\n\
         duration = 1e-3\nresolution = 0.004\nlubrication = {{ cut = {cut}, roughness = 1e-4, viscosity = {mu} }}\n\
         [time]\nstep = {dt}\nend = 1.0\n",
        -u0
    );
    // The exact times at which the gap reaches each of `gaps` (decreasing), from the same start.
    let exact = |gaps: &[f64]| -> Vec<f64> {
        let film = |h: f64| {
            let h = h.max(1e-4);
            6.0 * PI * mu * r * r * (1.0 / h - 1.0 / cut).max(0.0)
        };
        let rate = |(h, u): (f64, f64)| (-u, (weight - drag * u - film(h) * u) / m);
        let (mut y, mut t, step) = ((start - r, u0), 0.0, dt * 1e-3);
        let mut out = Vec::new();
        for &target in gaps {
            while y.0 > target {
                let (h, u) = y;
                let k1 = rate(y);
                let k2 = rate((h + 0.5 * step * k1.0, u + 0.5 * step * k1.1));
                let k3 = rate((h + 0.5 * step * k2.0, u + 0.5 * step * k2.1));
                let k4 = rate((h + step * k3.0, u + step * k3.1));
                y.0 += step / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
                y.1 += step / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
                t += step;
            }
            // Back to the target along the last step.
            out.push(t - (target - y.0) / y.1);
        }
        out
    };
    // The gap at each step down to a thirtieth of the cut, with or without the surroundings.
    let settle = |surrounded: bool| -> Vec<f64> {
        let mut sim = Case::parse(std::path::Path::new("film.toml"), &text)
            .unwrap()
            .build::<3>()
            .unwrap();
        let zero = nalgebra::Vector3::zeros();
        let (mut before, mut film) = ((sim.bodies[0].velocity, sim.bodies[0].angular_velocity), (zero, zero));
        let mut gaps = Vec::new();
        while sim.bodies[0].position[1] - r > cut / 30.0 && gaps.len() < 2000 {
            let b = &sim.bodies[0];
            gaps.push(b.position[1] - r);
            sim.contact.surroundings.clear();
            if surrounded {
                let fluid = -b.velocity * drag;
                let resistance = Surroundings::resistance(&fluid, &b.velocity, stokes);
                sim.contact
                    .surroundings
                    .push(Surroundings::after(b, &before, &film, resistance, dt));
            }
            sim.contact_forces(dt).unwrap();
            film = (sim.contact.film_force[0], sim.contact.film_torque[0]);
            let load = nalgebra::Vector3::new(0.0, -weight, 0.0) + sim.force[0];
            let b = &mut sim.bodies[0];
            before = (b.velocity, b.angular_velocity);
            b.velocity = (b.velocity * m + load * dt) / (m + drag * dt);
            b.position += b.velocity * dt;
        }
        gaps
    };
    // The worst error in the time from the cut (reached at the same time by both: the speed is
    // `u₀` until then) to each gap down to a twentieth of the cut.
    let entered = (start - r - cut) / u0;
    let worst = |gaps: &[f64]| {
        let inside: Vec<(f64, f64)> = gaps
            .iter()
            .enumerate()
            .map(|(k, &h)| (h, k as f64 * dt))
            .filter(|&(h, _)| h < cut && h > cut / 20.0)
            .collect();
        let reference = exact(&inside.iter().map(|&(h, _)| h).collect::<Vec<_>>());
        inside
            .iter()
            .zip(&reference)
            .map(|(&(h, t), e)| (h, ((t - entered) / (e - entered) - 1.0).abs()))
            .fold((0.0, 0.0), |(all, deep): (f64, f64), (h, e)| {
                (all.max(e), if h < cut / 4.0 { deep.max(e) } else { deep })
            })
    };
    let path = settle(true);
    let (surrounded, alone) = (worst(&path), worst(&settle(false)));
    let last = path.iter().copied().filter(|&h| h > cut / 20.0).fold(1.0, f64::min);
    let stiff = 6.0 * PI * mu * r * r * (1.0 / last - 1.0 / cut) * dt / m;
    println!(
        "Δt {dt}: {} steps into the film, λΔt/m up to {stiff:.0}: worst error in the time from the cut {:.2e} \
         (below h_c/4 {:.2e}) with the surroundings, {:.2e} with the ball's inertia alone",
        path.iter().filter(|&&h| h < cut).count(),
        surrounded.0,
        surrounded.1,
        alone.0
    );
    assert!(stiff > 5.0, "{stiff}");
    assert!(surrounded.0 < 0.07 * dt / 0.01 && surrounded.1 < 0.01, "{surrounded:?}");
    assert!(alone.0 > 0.3, "{alone:?}");
}

/// A film's keys that do not fit are named with what is expected: its viscosity given beside a
/// `[fluid]` (which has it) or missing without one, a roughness not below the cut, a cut that
/// is not a positive number, an unknown key.
#[test]
fn film_keys_that_do_not_fit_are_named() {
    let case = |fluid: &str, film: &str| {
        format!(
            "dimension = 2\n{fluid}[domain]\nbox = [[0.0, 0.0], [1.0, 1.0]]\nh = 0.05\n[[bodies]]\n\
             shape = {{ type = \"circle\", radius = 0.1 }}\ndensity = 2.0\nposition = [0.5, 0.5]\n\
             [contact]\nlaw = \"collision\"\nrange = 0.01\nrestitution = 0.9\nduration = 0.01\n\
             lubrication = {{ {film} }}\n[time]\nstep = 1e-3\nend = 0.01\n"
        )
    };
    let out = tempfile::tempdir().unwrap();
    let error = |text: String| {
        let case = Case::parse(std::path::Path::new("film.toml"), &text);
        let built = case.and_then(|c| tumble::case::run(&c, out.path(), tumble::case::Control::default()));
        match built {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        }
    };
    let fluid = "[fluid]\nviscosity = 0.01\ndensity = 1.0\nboundary = { xmin = \"no-slip\", xmax = \"no-slip\", ymin = \"no-slip\", ymax = \"no-slip\" }\n";
    for (text, expected) in [
        (
            case(fluid, "cut = 0.02, roughness = 1e-4, viscosity = 0.01"),
            "`contact.lubrication.viscosity`: the film's viscosity is the [fluid]'s: remove it",
        ),
        (
            case("", "cut = 0.02, roughness = 1e-4"),
            "`contact.lubrication.viscosity`: is missing: a case without a [fluid] gives the film's viscosity here",
        ),
        (
            case("", "cut = 0.02, roughness = 0.02, viscosity = 0.01"),
            "`contact.lubrication.roughness`: must be below the cut (0.02), got 0.02",
        ),
        (
            case("", "cut = -1.0, roughness = 1e-4, viscosity = 0.01"),
            "`contact.lubrication.cut`: must be a positive number, got -1",
        ),
        (
            case(fluid, "cut = 0.02, roughness = 1e-4, share = 1.0"),
            "`contact.lubrication.share`: must be in [0, 1), the share of the film the fluid mesh carries itself, got 1",
        ),
        (
            case("", "cut = 0.02, roughnes = 1e-4, viscosity = 0.01"),
            "unknown field `roughnes`",
        ),
    ] {
        let message = error(text);
        assert!(message.contains("film.toml"), "{message}");
        assert!(message.contains(expected), "{message}\nexpected: {expected}");
    }
}
