//! The lubrication film's tangential part ([`tumble::contact::shear`]) in a dry run: a ball
//! sliding along a plate inside the film's cut, no gravity, slows and turns as the film's
//! closed forms integrate in time.

use std::f64::consts::PI;
use tumble::case::Case;
use tumble::sim::{Dim, Kinematics, Simulation};

const R: f64 = 0.1;
const DENSITY: f64 = 7.8;
const CUT: f64 = 0.02;

/// A ball of radius 0.1 (a disk in 2D) at the gap `gap` over the floor of a box of side 2,
/// sliding along it at 1, through a film of viscosity `mu`, cut 0.02 and roughness 1e-4 (the
/// collision law from 1e-4); `tangential` or not.
fn sliding<const D: usize>(mu: f64, gap: f64, tangential: bool) -> Simulation<D>
where
    Dim<D>: Kinematics<D>,
{
    let (shape, corner, h, lattice) = if D == 2 {
        ("circle", "[2.0, 2.0]", 0.05, 0.001)
    } else {
        ("sphere", "[2.0, 2.0, 2.0]", 0.25, 0.004)
    };
    let vector = |x: f64, y: f64| {
        let mut p = vec![x; D];
        p[1] = y;
        format!("{p:?}")
    };
    let text = format!(
        "dimension = {D}\n[domain]\nbox = [{}, {corner}]\nh = {h}\n[[bodies]]\nname = \"ball\"\n\
         shape = {{ type = \"{shape}\", radius = {R} }}\ndensity = {DENSITY}\nposition = {}\nvelocity = {}\n\
         [contact]\nlaw = \"collision\"\nrange = 1e-4\nrestitution = 0.9\nduration = 1e-3\nresolution = {lattice}\n\
         lubrication = {{ cut = {CUT}, roughness = 1e-4, viscosity = {mu}, tangential = {tangential} }}\n\
         [time]\nstep = 1e-4\nend = 1.0\n",
        vector(0.0, 0.0),
        vector(1.0, R + gap),
        {
            let mut v = vec![0.0; D];
            v[0] = 1.0;
            format!("{v:?}")
        }
    );
    Case::parse(std::path::Path::new("shear.toml"), &text)
        .unwrap()
        .build::<D>()
        .unwrap()
}

/// Integrates `(U, w)` (`w = −ω_z`: the turn rolling forward along x on the floor y = 0) by
/// RK4 over `dt` in ten steps, under the rates `rate`.
fn rk4(rate: &dyn Fn((f64, f64)) -> (f64, f64), state: (f64, f64), dt: f64) -> (f64, f64) {
    let add = |s: (f64, f64), k: (f64, f64), f: f64| (s.0 + k.0 * f, s.1 + k.1 * f);
    let h = dt / 10.0;
    let mut state = state;
    for _ in 0..10 {
        let k1 = rate(state);
        let k2 = rate(add(state, k1, h / 2.0));
        let k3 = rate(add(state, k2, h / 2.0));
        let k4 = rate(add(state, k3, h));
        state = (
            state.0 + h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0),
            state.1 + h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1),
        );
    }
    state
}

/// Runs `sim` at steps `dt` for `time` against the exact `(U, w)` of `rate` from (1, 0): the
/// worst relative error of the speed and the worst error of the turning over its largest value.
fn against<const D: usize>(
    mut sim: Simulation<D>,
    rate: &dyn Fn((f64, f64)) -> (f64, f64),
    dt: f64,
    time: f64,
) -> (f64, f64)
where
    Dim<D>: Kinematics<D>,
{
    let turning = |sim: &Simulation<D>| {
        let w = <Dim<D> as Kinematics<D>>::angular_components(&sim.bodies[0].angular_velocity);
        -w[w.len() - 1]
    };
    let mut state = (1.0, 0.0);
    let (mut worst_u, mut worst_w, mut top): (f64, f64, f64) = (0.0, 0.0, 0.0);
    while sim.time < time {
        sim.step(dt).unwrap();
        state = rk4(rate, state, dt);
        top = top.max(state.1.abs());
        worst_u = worst_u.max((sim.bodies[0].velocity[0] / state.0 - 1.0).abs());
        worst_w = worst_w.max((turning(&sim) - state.1).abs());
    }
    println!(
        "D = {D}, after {:.4} s: speed {:.5} (exact {:.5}), turning {:.4} (exact {:.4}); worst errors {worst_u:.2e} and {:.2e} of the top turning",
        sim.time,
        sim.bodies[0].velocity[0],
        state.0,
        turning(&sim),
        state.1,
        worst_w / top
    );
    let moved = sim.bodies[0].position[1] - R - GAP;
    assert!(
        moved.abs() < 1e-4 * GAP,
        "the gap moved by {moved:e}, vy {:e}",
        sim.bodies[0].velocity[1]
    );
    (worst_u, worst_w / top)
}

const GAP: f64 = 0.002;

/// A disk sliding at `U` at the gap `h` over a plate feels `F = −λ U`,
/// `λ = 2√2 π μ (√(a/h) − √(a/h_c))`, and turning at `w` the couple `−λ a² w`, at the leading
/// order; applied halfway across the gap, the force's arm is `a + h/2`, which adds `h/2` times
/// the force to the couple about the centre (turning the disk backwards). The speed and the turning follow these over the time the speed falls to
/// a third, within 1 % and 2 %, at steps where `λ Δt / m` is 0.01. At a step 300 times longer
/// (`λ Δt / m` = 3) the film's step slows the disk by backward Euler's `1/(1 + λ Δt/m)`, never
/// reversing it.
#[test]
fn a_disk_sliding_along_a_plate_slows_as_the_square_root_law_gives() {
    let mu = 0.05;
    let sim = sliding::<2>(mu, GAP, true);
    let (m, inertia) = (sim.bodies[0].mass, sim.bodies[0].inertia);
    let lambda = 2.0 * 2f64.sqrt() * PI * mu * ((R / GAP).sqrt() - (R / CUT).sqrt());
    let rate = |(u, w): (f64, f64)| {
        let f = -lambda * u;
        (f / m, (-0.5 * GAP * f - lambda * R * R * w) / inertia)
    };
    let dt = 0.01 * m / lambda;
    let (worst_u, worst_w) = against(sim, &rate, dt, 3f64.ln() * m / lambda);
    assert!(worst_u < 0.01 && worst_w < 0.02, "{worst_u} {worst_w}");
    // A long step: backward Euler's 1/(1 + λΔt/m), never a reversal.
    let mut sim = sliding::<2>(mu, GAP, true);
    let mut last = 1.0;
    for _ in 0..5 {
        sim.step(300.0 * dt).unwrap();
        let u = sim.bodies[0].velocity.x;
        assert!(u > 0.0 && u < last, "{u} after {last}");
        assert!((u / last - 1.0 / 4.0).abs() < 0.05, "{}", u / last);
        last = u;
    }
    // Without the tangential part the film leaves the sliding alone.
    let mut sim = sliding::<2>(mu, GAP, false);
    sim.step(dt).unwrap();
    assert_eq!(sim.bodies[0].velocity.x, 1.0);
}

/// A sphere sliding at `U` at the gap `h` over a plate: Goldman, Cox and Brenner's log terms,
/// with `ℓ = ln(h_c/h)`, `F = −6πμaℓ (8/15 U − 2/15 aw)` and about the centre
/// `T = 8πμa²ℓ (1/10 U − 2/5 aw) − (h/2) F` (the force's arm `a + h/2`, as for the disk): it
/// slows and starts turning as these give, within 1 % of the speed and 2 % of the turning,
/// over the time its speed falls to about a third, at steps where the sliding's `λ Δt/m` is 0.01.
#[test]
fn a_sphere_sliding_along_a_plate_slows_and_turns_as_the_log_terms_give() {
    let mu = 0.5;
    let a = R;
    let sim = sliding::<3>(mu, GAP, true);
    let m = sim.bodies[0].mass;
    let inertia = sim.bodies[0].inertia[(2, 2)];
    let ell = (CUT / GAP).ln();
    let rate = |(u, w): (f64, f64)| {
        let f = -6.0 * PI * mu * a * ell * (8.0 / 15.0 * u - 2.0 / 15.0 * a * w);
        let t = 8.0 * PI * mu * a * a * ell * (0.1 * u - 0.4 * a * w) - 0.5 * GAP * f;
        (f / m, t / inertia)
    };
    let decay = 6.0 * PI * mu * a * ell * 8.0 / 15.0 / m;
    let (worst_u, worst_w) = against(sim, &rate, 0.01 / decay, 1.0 / decay);
    assert!(worst_u < 0.01 && worst_w < 0.02, "{worst_u} {worst_w}");
}

/// Two balls of radii 0.1 and 0.05 sliding past each other inside the film's cut (no walls, no
/// gravity), the smaller also turning: the film's loads on the two are equal and opposite about
/// a common point, so the pair's momentum and angular momentum stay what they were (to
/// round-off over 200 steps), while their relative sliding slows; in 2D and 3D.
#[test]
fn two_balls_sliding_past_each_other_keep_their_momenta() {
    fn check<const D: usize>()
    where
        Dim<D>: Kinematics<D>,
    {
        let shape = if D == 2 { "circle" } else { "sphere" };
        let vector = |v: [f64; 3]| format!("{:?}", &v[..D]);
        let spin = if D == 2 {
            "3.0".to_string()
        } else {
            "[0.5, -1.0, 3.0]".to_string()
        };
        let mut text = format!("dimension = {D}\n");
        for (name, radius, y, vx, w) in [("big", 0.1, 1.0, 0.4, None), ("small", 0.05, 1.152, -0.6, Some(&spin))] {
            text += &format!(
                "[[bodies]]\nname = \"{name}\"\nshape = {{ type = \"{shape}\", radius = {radius} }}\ndensity = 7.8\n\
                 position = {}\nvelocity = {}\n{}",
                vector([1.0, y, 1.0]),
                vector([vx, 0.0, 0.1]),
                w.map_or(String::new(), |w| format!("angular_velocity = {w}\n"))
            );
        }
        let lattice = if D == 2 { 0.002 } else { 0.005 };
        text += &format!(
            "[contact]\nlaw = \"collision\"\nrange = 1e-4\nrestitution = 0.9\nduration = 1e-3\nresolution = {lattice}\n\
             lubrication = {{ cut = 0.02, roughness = 1e-4, viscosity = 0.5 }}\n[time]\nstep = 1e-4\nend = 1.0\n"
        );
        let mut sim = Case::parse(std::path::Path::new("pair.toml"), &text)
            .unwrap()
            .build::<D>()
            .unwrap();
        let momenta = |sim: &Simulation<D>| {
            let mut linear = vec![0.0; D];
            let mut angular = vec![0.0; 3];
            for b in &sim.bodies {
                for (l, v) in linear.iter_mut().zip(b.velocity.iter()) {
                    *l += b.mass * v;
                }
                let p = b.velocity * b.mass;
                let orbit = <Dim<D> as Kinematics<D>>::torque(&b.position, &p);
                let inertia = b.matrix() * b.geometry.moments.second * b.matrix().transpose();
                let own = <Dim<D> as Kinematics<D>>::inertia_times(&inertia, &b.angular_velocity) * b.density;
                let sum = <Dim<D> as Kinematics<D>>::angular_components(&(orbit + own));
                for (k, s) in sum.iter().enumerate() {
                    angular[3 - sum.len() + k] += s;
                }
            }
            (linear, angular)
        };
        let sliding = |sim: &Simulation<D>| sim.bodies[0].velocity[0] - sim.bodies[1].velocity[0];
        let (linear, angular) = momenta(&sim);
        let start = sliding(&sim);
        for _ in 0..200 {
            sim.step(1e-4).unwrap();
        }
        let (linear_after, angular_after) = momenta(&sim);
        let scale = linear.iter().chain(&angular).fold(0.0f64, |m, x| m.max(x.abs()));
        let drift = linear
            .iter()
            .zip(&linear_after)
            .chain(angular.iter().zip(&angular_after))
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        println!(
            "D = {D}: sliding {start:.4} -> {:.4}, momenta drift {:.1e} of {scale:.2e}",
            sliding(&sim),
            drift
        );
        assert!(drift < 1e-12 * scale, "{drift}");
        assert!(sliding(&sim) < 0.9 * start && sliding(&sim) > 0.0);
    }
    check::<2>();
    check::<3>();
}

/// A light sphere (a hundredth of steel's density) pushed along a plate at the gap 0.002 by a
/// constant force `P`, in a toy fluid that resists its translation with `D_t` (three times
/// Stokes's drag) and its turning with `D_r` (twice Stokes's `8πμa³`), solved with the body
/// (`(m + D_t Δt) U' = m U + Δt (P + F)`, likewise for the turning), its film's step given the
/// sphere's surroundings (the velocity and the spin the last step's other forces gave it): it
/// slides and turns at the steady state of the film's log terms, `D_t U − F = P` and
/// `D_r w = T`, within 1 % (0.07 % and 0.2 % when written). With `λ Δt / m` at 21 for the
/// sliding alone and the sphere's own moment of inertia a hundredth of the fluid's over a step,
/// the film's step is backward Euler on the coupled sliding and turning, with the fluid's shares
/// of the mass and the moment of inertia; the latter estimated as a sphere's from `D_t`, 1.5
/// times this fluid's `D_r`, which the steady state does not see.
#[test]
fn a_light_sphere_pushed_along_a_plate_in_creeping_flow_slides_as_the_film_and_the_fluid_balance() {
    use tumble::contact::Surroundings;
    let (mu, a, density, dt) = (0.3, R, DENSITY / 100.0, 0.01);
    let volume = 4.0 / 3.0 * PI * a.powi(3);
    let stokes = Surroundings::<3>::stokes(mu, volume, 2.0);
    let (drag, turning) = (3.0 * stokes, 2.0 * 8.0 * PI * mu * a.powi(3));
    let push = drag;
    let text = format!(
        "dimension = 3\n[domain]\nbox = [[0.0, 0.0, 0.0], [4.0, 2.0, 2.0]]\nh = 0.25\n[[bodies]]\nname = \"ball\"\n\
         shape = {{ type = \"sphere\", radius = {a} }}\ndensity = {density}\nposition = [1.0, {}, 1.0]\n\
         [contact]\nlaw = \"collision\"\nrange = 1e-4\nrestitution = 0.9\nduration = 1e-3\nresolution = 0.004\n\
         lubrication = {{ cut = {CUT}, roughness = 1e-4, viscosity = {mu} }}\n[time]\nstep = {dt}\nend = 1.0\n",
        a + GAP
    );
    let mut sim = Case::parse(std::path::Path::new("push.toml"), &text)
        .unwrap()
        .build::<3>()
        .unwrap();
    let (m, inertia) = (sim.bodies[0].mass, sim.bodies[0].inertia[(2, 2)]);
    let zero = nalgebra::Vector3::zeros();
    let (mut before, mut film) = ((sim.bodies[0].velocity, sim.bodies[0].angular_velocity), (zero, zero));
    for _ in 0..40 {
        let b = &sim.bodies[0];
        let fluid = -b.velocity * drag;
        let resistance = Surroundings::resistance(&fluid, &b.velocity, stokes);
        sim.contact.surroundings.clear();
        sim.contact
            .surroundings
            .push(Surroundings::after(b, &before, &film, resistance, dt));
        sim.contact_forces(dt).unwrap();
        film = (sim.contact.film_force[0], sim.contact.film_torque[0]);
        let (force, torque) = (sim.force[0] + nalgebra::Vector3::x() * push, sim.torque[0]);
        let b = &mut sim.bodies[0];
        before = (b.velocity, b.angular_velocity);
        b.velocity = (b.velocity * m + force * dt) / (m + drag * dt);
        b.angular_velocity = (b.angular_velocity * inertia + torque * dt) / (inertia + turning * dt);
        b.position.x += b.velocity.x * dt;
    }
    // The steady state: with w = −ω_z, F = −c (8/15 U − 2/15 a w), T = 8πμa²ℓ (1/10 U − 2/5 a w)
    // − (h/2) F (the force's arm a + h/2), c = 6πμaℓ.
    let ell = (CUT / GAP).ln();
    let c = 6.0 * PI * mu * a * ell;
    let d = 8.0 * PI * mu * a * a * ell;
    // (D_t + 8c/15) U − (2ca/15) w = P;  −(d/10 + (h/2)(8c/15)) U + (D_r + 2da/5 − (h/2)(2ca/15)) w = 0.
    let (a11, a12) = (drag + 8.0 * c / 15.0, -2.0 * c * a / 15.0);
    let (a21, a22) = (
        -(d / 10.0 + 0.5 * GAP * 8.0 * c / 15.0),
        turning + 0.4 * d * a - 0.5 * GAP * 2.0 * c * a / 15.0,
    );
    let det = a11 * a22 - a12 * a21;
    let (u, w) = (push * a22 / det, -push * a21 / det);
    let b = &sim.bodies[0];
    println!(
        "sliding {:.5} (steady {u:.5}, without the film {:.5}), turning {:.5} (steady {w:.5}); lambda dt/m {:.0}, J/(D_r dt) {:.1e}",
        b.velocity.x,
        push / drag,
        -b.angular_velocity.z,
        8.0 * c / 15.0 * dt / m,
        inertia / (turning * dt)
    );
    assert!((b.velocity.x / u - 1.0).abs() < 0.01, "{} against {u}", b.velocity.x);
    assert!(
        (-b.angular_velocity.z / w - 1.0).abs() < 0.01,
        "{} against {w}",
        -b.angular_velocity.z
    );
    assert!(push / drag - u > 0.1 * u, "the film slows it");
}
