//! The collision law (`law = "collision"`) against the closed forms of a dry collision: the
//! restitution and the duration it is given, a ball rolling without slipping down an incline or
//! sliding above the friction angle, Newton's third law with friction, and the memory of the
//! contacts' springs carried through a checkpoint.

use std::path::Path;
use tumble::case::Case;
use tumble::sim::Simulation;

/// A case of dimension `dim` with one ball of radius `r` (density 7.8) at `position` moving at
/// `velocity`, in a box of side 2 (its floor at 0), the collision law with `contact` (TOML
/// lines), and `gravity`.
fn ball_case(dim: usize, r: f64, position: &[f64], velocity: &[f64], gravity: &[f64], contact: &str) -> String {
    let list = |v: &[f64]| {
        format!(
            "[{}]",
            v.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ")
        )
    };
    let (shape, corner, h, lattice) = if dim == 2 {
        ("circle", "[2.0, 2.0]", 0.05, 0.001)
    } else {
        ("sphere", "[2.0, 2.0, 2.0]", 0.25, 0.004)
    };
    format!(
        "dimension = {dim}\ngravity = {}\n[domain]\nbox = [{}, {corner}]\nh = {h}\n\
         [[bodies]]\nname = \"ball\"\nshape = {{ type = \"{shape}\", radius = {r} }}\ndensity = 7.8\n\
         position = {}\nvelocity = {}\n[contact]\nlaw = \"collision\"\nresolution = {lattice}\n{contact}\n[time]\nstep = 1e-4\nend = 1.0\n",
        list(gravity),
        list(&vec![0.0; dim]),
        list(position),
        list(velocity),
    )
}

/// Builds the case `text`.
fn build<const D: usize>(text: &str) -> Simulation<D>
where
    tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
{
    Case::parse(Path::new("collision.toml"), text)
        .unwrap()
        .build::<D>()
        .unwrap()
}

/// A ball thrown at `speed` straight down onto the floor without gravity, stepped at `steps` per
/// collision: the ratio of its normal speeds after and before, and how long the contact force
/// acted.
fn bounce<const D: usize>(e: f64, duration: f64, speed: f64, steps: f64, phase: f64) -> (f64, f64)
where
    tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
{
    let (r, range) = (0.1, 0.005);
    let mut position = vec![1.0; D];
    position[1] = r + range + (3.0 + phase) * speed * duration / steps;
    let mut velocity = vec![0.0; D];
    velocity[1] = -speed;
    let contact = format!("range = {range}\nrestitution = {e}\nduration = {duration}");
    let mut sim = build::<D>(&ball_case(D, r, &position, &velocity, &vec![0.0; D], &contact));
    let dt = duration / steps;
    let (mut pressed, mut left) = (0usize, false);
    while !left {
        sim.step(dt).unwrap();
        if sim.force[0].norm() > 0.0 {
            pressed += 1;
        } else if pressed > 0 {
            left = true;
        }
        assert!(
            sim.time < 10.0 * duration + 2.0 * range / speed,
            "the ball never left the floor"
        );
    }
    (sim.bodies[0].velocity[1] / speed, pressed as f64 * dt)
}

/// The prescribed restitution within 1 % for e = 0.5, 0.9 and 0.97 at impact speeds 0.01, 0.1 and
/// 1 (the duration does not depend on it; each speed starts the contact at another point of a
/// step), in 2D and 3D, at the law's own step (`t_c / 20`); the duration within 5 % (measured at
/// 100 steps per collision, where a step is 1 %).
#[test]
fn a_ball_dropped_on_a_plate_rebounds_with_the_prescribed_restitution_over_the_prescribed_duration() {
    let duration = 1e-3;
    for e in [0.5, 0.9, 0.97] {
        for (speed, phase) in [(0.01, 0.0), (0.1, 0.5), (1.0, 0.8)] {
            let steps = tumble::contact::collision::STEPS_PER_COLLISION;
            for (dim, (got, _)) in [
                (2, bounce::<2>(e, duration, speed, steps, phase)),
                (3, bounce::<3>(e, duration, speed, steps, phase)),
            ] {
                println!(
                    "{dim}D e = {e}, U = {speed}: rebound {got:.5} ({:+.3} %)",
                    100.0 * (got / e - 1.0)
                );
                assert!((got / e - 1.0).abs() < 0.01, "{dim}D e = {e}, U = {speed}: {got}");
            }
            let (_, lasted) = bounce::<2>(e, duration, speed, 100.0, phase);
            println!("  duration {lasted:.3e} ({:+.2} %)", 100.0 * (lasted / duration - 1.0));
            assert!((lasted / duration - 1.0).abs() < 0.05);
        }
    }
}

/// A body of `shape` (TOML) whose lowest point is `height` below its centre, set on the floor of
/// a box tilted by `theta` (gravity turned) with friction `mu` and the contact lines `more`, the
/// collision lasting 30 ms, e = 0.2 (the springs' start damped out). The resting overlap
/// `g t_c² / π²` (0.9 mm) is then ten times the gap's ripple as a rolling ball's sampled surface
/// turns under it (about `s² / 8R` for surface nodes `s` apart; 0.085 mm here): with 1 ms (an
/// overlap of 1 µm) the ball chattered on the ripple, touching in a third of its steps, and its
/// friction was 4 % too strong.
fn on_incline<const D: usize>(shape: &str, height: f64, theta: f64, mu: f64, more: &str) -> Simulation<D>
where
    tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
{
    let (g, range) = (9.81, 0.005);
    let mut gravity = vec![0.0; D];
    (gravity[0], gravity[1]) = (g * theta.sin(), -g * theta.cos());
    let mut position = vec![1.0; D];
    (position[0], position[1]) = (0.3, height + range);
    let contact = format!("range = {range}\nrestitution = 0.2\nduration = {INCLINE_DURATION}\nfriction = {mu}\n{more}");
    let text = ball_case(D, 0.1, &position, &vec![0.0; D], &gravity, &contact).replace(
        &format!(
            "shape = {{ type = \"{}\", radius = 0.1 }}",
            if D == 2 { "circle" } else { "sphere" }
        ),
        &format!("shape = {shape}"),
    );
    build::<D>(&text)
}

/// How long a collision on the incline lasts ([`on_incline`]).
const INCLINE_DURATION: f64 = 0.03;

/// A body of `shape` on the incline ([`on_incline`]): its acceleration along it, from its speed
/// between t = 0.1 and 0.3.
fn down_incline<const D: usize>(shape: &str, height: f64, theta: f64, mu: f64) -> f64
where
    tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
{
    let duration = INCLINE_DURATION;
    let mut sim = on_incline::<D>(shape, height, theta, mu, "");
    let dt = sim.stable_time_step();
    // The law's step, t_c/20, a little less for a ball whose sampled surface is not quite round.
    assert!(dt <= duration / 20.0 && dt > 0.95 * duration / 20.0, "{dt}");
    let speed_at = |sim: &mut Simulation<D>, t: f64| {
        while sim.time < t - 0.5 * dt {
            sim.step(dt).unwrap();
        }
        sim.bodies[0].velocity[0]
    };
    let v1 = speed_at(&mut sim, 0.1);
    let v2 = speed_at(&mut sim, 0.3);
    (v2 - v1) / 0.2
}

/// A disk and a ball roll without slipping down an incline below the friction angle's limit
/// (`tan θ < 3μ` for a disk, `7μ/2` for a ball), at `2/3 g sin θ` and `5/7 g sin θ`, and slide
/// above it at `g (sin θ − μ cos θ)`, within 1 %.
#[test]
fn balls_roll_without_slipping_below_the_friction_limit_and_slide_above_it() {
    let (g, mu) = (9.81, 0.3);
    let deg = |d: f64| d.to_radians();
    let check = |what: &str, got: f64, want: f64| {
        println!(
            "{what}: acceleration {got:.5}, closed form {want:.5} ({:+.3} %)",
            100.0 * (got / want - 1.0)
        );
        assert!((got / want - 1.0).abs() < 0.01, "{what}");
    };
    let disk = "{ type = \"circle\", radius = 0.1 }";
    let t = deg(20.0);
    check(
        "disk rolling, 20°",
        down_incline::<2>(disk, 0.1, t, mu),
        2.0 / 3.0 * g * t.sin(),
    );
    check(
        "ball rolling, 20°",
        down_incline::<3>(disk, 0.1, t, mu),
        5.0 / 7.0 * g * t.sin(),
    );
    let t = deg(50.0);
    assert!(t.tan() > 3.0 * mu);
    check(
        "disk sliding, 50°",
        down_incline::<2>(disk, 0.1, t, mu),
        g * (t.sin() - mu * t.cos()),
    );
    let t = deg(60.0);
    assert!(t.tan() > 3.5 * mu);
    check(
        "ball sliding, 60°",
        down_incline::<3>(disk, 0.1, t, mu),
        g * (t.sin() - mu * t.cos()),
    );
}

/// A disk and a ball at rest on a floor that slides under them at `V` (a frame that follows a
/// body sees its walls so, `ContactSolver::wall_velocity`): friction drags them until they roll
/// on it, the angular momentum about the contact point kept, at `V/3` (disk, `I = m r²/2`) and
/// `2V/7` (ball, `2/5`) within 1 %; with the floor at rest they stay still (within 1e-4 of
/// `V`: the disk's sampled surface ripples).
#[test]
fn a_floor_sliding_under_a_ball_drags_it_until_it_rolls() {
    fn dragged<const D: usize>(belt: f64) -> f64
    where
        tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
    {
        let (g, range) = (9.81, 0.005);
        let mut gravity = vec![0.0; D];
        gravity[1] = -g;
        let mut position = vec![1.0; D];
        position[1] = 0.1 + range - 0.5 * g * (INCLINE_DURATION / std::f64::consts::PI).powi(2);
        let contact = format!("range = {range}\nrestitution = 0.2\nduration = {INCLINE_DURATION}\nfriction = 0.3");
        let mut sim = build::<D>(&ball_case(D, 0.1, &position, &vec![0.0; D], &gravity, &contact));
        sim.contact.wall_velocity[0] = belt;
        let dt = sim.stable_time_step();
        // Sliding lasts `V / (μ g (1 + m r²/I))`: 0.113 s (disk) and 0.097 s (ball) at V = 1.
        while sim.time < 0.3 {
            sim.step(dt).unwrap();
        }
        sim.bodies[0].velocity[0]
    }
    let disk = dragged::<2>(1.0);
    let ball = dragged::<3>(1.0);
    println!("disk {disk:.5} (1/3), ball {ball:.5} (2/7)");
    assert!((disk * 3.0 - 1.0).abs() < 0.01, "disk {disk}");
    assert!((ball * 3.5 - 1.0).abs() < 0.01, "ball {ball}");
    let (still_disk, still_ball) = (dragged::<2>(0.0), dragged::<3>(0.0));
    println!("on a floor at rest: disk {still_disk:e}, ball {still_ball:e}");
    assert!(still_disk.abs() < 1e-4 && still_ball.abs() < 1e-4);
}

/// Two spinning disks collide obliquely with friction and rolling resistance: the pair's
/// momentum and angular momentum (about the origin, spins included) are kept to round-off, as
/// the forces act on both at one point and the rolling torques are opposite; the kinetic energy
/// falls.
#[test]
fn an_oblique_collision_with_friction_keeps_momentum_and_angular_momentum() {
    let text = ball_case(2, 0.1, &[0.7, 1.0], &[3.0, 0.4], &[0.0, 0.0], "range = 0.005\nrestitution = 0.7\nduration = 1e-3\nfriction = 0.4\nrolling = 0.05")
        .replace("[contact]", "angular_velocity = 20.0\n[[bodies]]\nname = \"other\"\nshape = { type = \"circle\", radius = 0.08 }\ndensity = 2.5\nposition = [1.0, 1.09]\nvelocity = [-1.0, 0.0]\nangular_velocity = -5.0\n[contact]");
    let mut sim = build::<2>(&text);
    let momentum = |s: &Simulation<2>| {
        s.bodies
            .iter()
            .map(|b| b.velocity * b.mass)
            .sum::<tumble::math::Vector<2>>()
    };
    let angular = |s: &Simulation<2>| {
        s.bodies
            .iter()
            .map(|b| {
                b.mass * (b.position.x * b.velocity.y - b.position.y * b.velocity.x) + b.inertia * b.angular_velocity
            })
            .sum::<f64>()
    };
    let energy = |s: &Simulation<2>| s.bodies.iter().map(|b| b.kinetic_energy()).sum::<f64>();
    let (p0, l0, e0) = (momentum(&sim), angular(&sim), energy(&sim));
    let dt = sim.stable_time_step();
    let mut touched = 0;
    while sim.time < 0.1 {
        sim.step(dt).unwrap();
        touched += usize::from(sim.force[0].norm() > 0.0);
    }
    let (p1, l1, e1) = (momentum(&sim), angular(&sim), energy(&sim));
    println!("{touched} steps in contact; momentum {p0:?} → {p1:?}, angular momentum {l0:.12} → {l1:.12}, energy {e0:.5} → {e1:.5}");
    assert!(touched >= 15, "they collided");
    assert!((p1 - p0).norm() < 1e-12 * p0.norm());
    assert!((l1 - l0).abs() < 1e-12 * l0.abs().max(p0.norm()));
    assert!(e1 < 0.9 * e0);
    assert!(
        sim.contact.memory().is_empty(),
        "the contact has ended and its springs are gone"
    );
}

/// A run continued from a checkpoint taken while a ball rolls (its contact's springs stretched)
/// repeats the uninterrupted run bit for bit.
#[test]
fn the_springs_go_through_a_checkpoint() {
    let (g, theta) = (9.81f64, 20f64.to_radians());
    let text = ball_case(
        2,
        0.1,
        &[0.3, 0.105],
        &[0.0; 2],
        &[g * theta.sin(), -g * theta.cos()],
        "range = 0.005\nrestitution = 0.5\nduration = 0.01\nfriction = 0.3\nrolling = 0.01",
    );
    let (mut whole, mut first) = (build::<2>(&text), build::<2>(&text));
    let dt = whole.stable_time_step();
    for _ in 0..300 {
        whole.step(dt).unwrap();
    }
    for _ in 0..150 {
        first.step(dt).unwrap();
    }
    let saved = first.state();
    assert_eq!(saved.springs.len(), 1);
    assert!(saved.springs[0].slip.iter().any(|&x| x != 0.0));
    let mut second = build::<2>(&text);
    second.restore(&saved).unwrap();
    for _ in 0..150 {
        second.step(dt).unwrap();
    }
    let (a, b) = (&whole.bodies[0], &second.bodies[0]);
    assert_eq!(
        (a.position, a.velocity, a.rotation, a.angular_velocity),
        (b.position, b.velocity, b.rotation, b.angular_velocity)
    );
}

/// The collision law's keys are checked with the law: errors name the key and say what is
/// expected.
#[test]
fn collision_keys_that_do_not_fit_the_law_are_named() {
    let error = |contact: &str| {
        let text = ball_case(2, 0.1, &[1.0, 1.0], &[0.0; 2], &[0.0; 2], contact);
        match Case::parse(Path::new("bad.toml"), &text).and_then(|c| c.build::<2>().map(|_| ())) {
            Err(e) => e.to_string(),
            Ok(()) => panic!("accepted: {contact}"),
        }
    };
    for (contact, expected) in [
        (
            "range = 0.005\nduration = 1e-3",
            "`contact.restitution`: is missing: the collision law needs it",
        ),
        ("range = 0.005\nrestitution = 0.5", "`contact.duration`: is missing"),
        (
            "range = 0.005\nrestitution = 1.5\nduration = 1e-3",
            "`contact.restitution`: must be a number in (0, 1], got 1.5",
        ),
        (
            "range = 0.005\nrestitution = 0\nduration = 1e-3",
            "`contact.restitution`: must be a number in (0, 1], got 0",
        ),
        (
            "range = 0.005\nrestitution = 0.5\nduration = -1",
            "`contact.duration`: must be a positive number, got -1",
        ),
        (
            "range = 0.005\nrestitution = 0.5\nduration = 1e-3\nfriction = -0.1",
            "`contact.friction`: must be a number ≥ 0",
        ),
        (
            "range = 0.005\nrestitution = 0.5\nduration = 1e-3\nstiffness = 1e-6",
            "`contact.stiffness`: is not a parameter of the collision law",
        ),
        (
            "range = 0.005\nrestitution = 0.5\nduration = 1e-3\ndamping = 1",
            "`contact.damping`: is not a parameter of the collision law",
        ),
    ] {
        let got = error(contact);
        assert!(got.contains(expected), "expected '{expected}' in: {got}");
    }
    let text = ball_case(
        2,
        0.1,
        &[1.0, 1.0],
        &[0.0; 2],
        &[0.0; 2],
        "range = 0.005\nstiffness = 1e-6\nfriction = 0.3",
    )
    .replace("law = \"collision\"\n", "");
    let got = Case::parse(Path::new("bad.toml"), &text)
        .unwrap()
        .build::<2>()
        .err()
        .unwrap()
        .to_string();
    assert!(
        got.contains(
            "`contact.friction`: is a parameter of the collision law (law = \"collision\"), not of 'glowinski'"
        ),
        "{got}"
    );
}

/// A collision too long for the impact speed lets the body through the floor, and the error says
/// why in the law's numbers: the overlap `U t_c/π` against the body's size, and what to change.
#[test]
fn a_body_through_the_floor_is_told_why() {
    let contact = "range = 0.002\nrestitution = 0.7\nduration = 0.2";
    let mut sim = build::<2>(&ball_case(2, 0.05, &[1.0, 0.06], &[0.0, -3.0], &[0.0, 0.0], contact));
    let error = (0..1000)
        .find_map(|_| sim.step(1e-2).err())
        .expect("the disk went through")
        .to_string();
    assert!(error.contains("its centre left the domain"), "{error}");
    assert!(error.contains("overlap by about U t_c/π, here 1.6"), "{error}");
    assert!(error.contains("shorten contact.duration"), "{error}");
}

/// A brick (0.2 × 0.1, 3D 0.2 × 0.1 × 0.2) set on its long face on the floor of a box tilted by
/// `theta`, friction `mu`, rolling resistance 0.1 ([`on_incline`]): where it is and how fast
/// it moves down the incline at t = 0.1, 0.4 and 0.8.
fn brick_down_incline<const D: usize>(theta: f64, mu: f64) -> [(f64, f64); 3]
where
    tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
{
    let sides = if D == 2 { "[0.2, 0.1]" } else { "[0.2, 0.1, 0.2]" };
    let shape = format!("{{ type = \"rectangle\", sides = {sides} }}");
    let mut sim = on_incline::<D>(&shape, 0.05, theta, mu, "rolling = 0.1");
    let dt = sim.stable_time_step();
    [0.1, 0.4, 0.8].map(|t| {
        while sim.time < t - 0.5 * dt {
            sim.step(dt).unwrap();
        }
        (sim.bodies[0].position[0] - 0.3, sim.bodies[0].velocity[0])
    })
}

/// A brick on a face sticks below the friction angle (`tan θ < μ`: it settles within a few
/// millimetres of where it landed and stops) and slides above it at `g (sin θ − μ cos θ)` within
/// 2 %, in 2D and 3D. With rolling resistance: without it the brick's rocking on its face is
/// undamped, its normal force swings by a quarter, and it creeps down a 15° incline at 2 cm/s
/// (docs/validation.md, "The collision law").
#[test]
fn bricks_stick_below_the_friction_angle_and_slide_above_it() {
    let (g, mu) = (9.81, 0.3);
    for deg in [10.0_f64, 15.0, 25.0] {
        let theta = deg.to_radians();
        for (dim, [(_, v1), (x2, v2), (x3, v3)]) in [
            (2, brick_down_incline::<2>(theta, mu)),
            (3, brick_down_incline::<3>(theta, mu)),
        ] {
            if theta.tan() < mu {
                println!("{dim}D brick, {deg}°: at {x2:.3e} (t = 0.4), {x3:.3e} (t = 0.8), speed {v3:.2e}");
                assert!(
                    x3.abs() < 5e-3 && (x3 - x2).abs() < 1e-4 && v3.abs() < 1e-4,
                    "{dim}D {deg}°: {x2} {x3} {v3}"
                );
            } else {
                let (a, exact) = ((v2 - v1) / 0.3, g * (theta.sin() - mu * theta.cos()));
                println!(
                    "{dim}D brick, {deg}°: acceleration {a:.5}, sliding {exact:.5} ({:+.2} %)",
                    100.0 * (a / exact - 1.0)
                );
                assert!((a / exact - 1.0).abs() < 0.02, "{dim}D {deg}°: {a} against {exact}");
            }
        }
    }
}

/// A ball (disk) of radius 0.1 thrown at the floor without gravity at normal speed 1 and
/// tangential speed `vt`, spinning at `spin` (rad/s; about z), under Foerster et al.'s (1994)
/// cellulose acetate parameters (e = 0.87, μ = 0.25): the contact point's tangential speed over
/// the normal speed before and after (`ψ₁`, `ψ₂`), the normal speed ratio, the changes of the
/// tangential speed and the spin.
fn oblique<const D: usize>(vt: f64, spin: f64) -> (f64, f64, f64, f64, f64)
where
    tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
{
    let (r, range, duration) = (0.1, 0.005, 3e-3);
    let mut position = vec![1.0; D];
    position[1] = r + range + 0.002;
    let mut velocity = vec![0.0; D];
    (velocity[0], velocity[1]) = (vt, -1.0);
    let contact = format!("range = {range}\nrestitution = 0.87\nduration = {duration}\nfriction = 0.25");
    let spin_line = if D == 2 {
        format!("angular_velocity = {spin:?}\n")
    } else {
        format!("angular_velocity = [0.0, 0.0, {spin:?}]\n")
    };
    let text = ball_case(D, r, &position, &velocity, &vec![0.0; D], &contact)
        .replace("[contact]", &format!("{spin_line}[contact]"));
    let mut sim = build::<D>(&text);
    let dt = sim.stable_time_step();
    let contact_point = |s: &Simulation<D>| {
        let b = &s.bodies[0];
        let mut down = b.position;
        down[1] -= r;
        (
            b.point_velocity(&down)[0],
            b.velocity[0],
            b.velocity[1],
            angular_z::<D>(b),
        )
    };
    let (u1, v1, n1, w1) = contact_point(&sim);
    let mut pressed = 0;
    while pressed == 0 || sim.force[0].norm() > 0.0 {
        sim.step(dt).unwrap();
        pressed += usize::from(sim.force[0].norm() > 0.0);
        assert!(sim.time < 0.05);
    }
    let (u2, v2, n2, w2) = contact_point(&sim);
    (u1 / n1.abs(), u2 / n2.abs(), -n2 / n1, v2 - v1, w2 - w1)
}

/// The spin about z of a body (the 2D angle's rate, or the third component in 3D): the velocity
/// `ω × x̂` it gives a point one unit along x from its centre, along y.
fn angular_z<const D: usize>(b: &tumble::body::RigidBody<D>) -> f64
where
    tumble::sim::Dim<D>: tumble::sim::Kinematics<D>,
{
    let mut x = b.position;
    x[0] += 1.0;
    (b.point_velocity(&x) - b.velocity)[1]
}

/// An oblique impact that slides throughout (`|ψ₁| > μ(1 + e)(1 + 1/K)`, `K = I/mR²`: 2/5 for a
/// ball, 1/2 for a disk) leaves as the impulse theory says (Walton 1993; Foerster et al. 1994):
/// the normal speed times e, the tangential speed changed by `μ(1 + e)|v_n|` against the
/// contact point's sliding and the spin by `μ(1 + e)|v_n| / (K R)`, within 1 % (2D) and 2 %
/// (3D), with spin either way. Below that limit the contact point's tangential speed reverses (it sticks); the
/// sweep is in docs/validation.md.
#[test]
fn an_oblique_impact_leaves_with_the_spin_and_angle_of_the_impulse_theory() {
    let (e, mu, r) = (0.87, 0.25, 0.1);
    for (vt, spin) in [(3.0, 0.0), (2.0, 20.0), (-1.0, -30.0), (0.5, -30.0)] {
        for (dim, k, got) in [(2, 0.5, oblique::<2>(vt, spin)), (3, 0.4, oblique::<3>(vt, spin))] {
            let (psi1, psi2, ratio, dv, dw) = got;
            let limit = mu * (1.0 + e) * (1.0 + 1.0 / k);
            let slide = -psi1.signum() * mu * (1.0 + e);
            println!(
                "{dim}D vt {vt}, ω {spin}: ψ₁ {psi1:.4} (limit {limit:.3}) → ψ₂ {psi2:.4}; e {ratio:.5}; Δv_t {dv:.5} (theory {slide:.5}), Δω {dw:.4} (theory {:.4})",
                slide / (k * r)
            );
            // 3D: the sampled sphere's gap ripples as it turns under the slide (0.085 mm against
            // an overlap of 1 mm), 2 %.
            let tolerance = if dim == 2 { 0.01 } else { 0.02 };
            assert!(psi1.abs() > 1.2 * limit);
            assert!((ratio / e - 1.0).abs() < tolerance, "{dim}D: e {ratio}");
            assert!(
                (dv / slide - 1.0).abs() < tolerance,
                "{dim}D: Δv_t {dv} against {slide}"
            );
            assert!((dw * k * r / slide - 1.0).abs() < tolerance, "{dim}D: Δω {dw}");
        }
    }
}

/// The reduced pile: 96 bodies (32 balls, 32 ellipsoids, 32 bricks, each turned a little more
/// than the one before) poured into a 0.5 × 0.5 box through air (a linear drag of rate 40), on
/// the collision law, as `cases/dry_pile_3d.toml` with a tenth of its bodies.
const PILE: &str = r#"dimension = 3
gravity = [0.0, 0.0, -981.0]
[domain]
box = [[0.0, 0.0, 0.0], [0.5, 0.5, 1.0]]
[[bodies]]
name = "ball"
shape = { type = "sphere", radius = 0.04 }
density = 2.5
position = [0.06, 0.06, 0.08]
grid = { count = [4, 4, 2], spacing = [0.11, 0.11, 0.11] }
[[bodies]]
name = "egg"
shape = { type = "ellipse", semi_axes = [0.05, 0.035, 0.03] }
density = 2.5
position = [0.06, 0.06, 0.35]
grid = { count = [4, 4, 2], spacing = [0.11, 0.11, 0.11], turn = [0.7, 0.3, 0.5] }
[[bodies]]
name = "brick"
shape = { type = "rectangle", sides = [0.08, 0.05, 0.04] }
density = 2.5
position = [0.06, 0.06, 0.6]
grid = { count = [4, 4, 2], spacing = [0.11, 0.11, 0.11], turn = [0.4, 0.9, 0.2] }
[contact]
law = "collision"
range = 0.01
resolution = RESOLUTION
restitution = 0.3
duration = 2e-3
friction = 0.5
rolling = 0.05
[drag]
linear = 40.0
angular = 40.0
[time]
step = 1e-4
end = 0.3
"#;

/// A pile poured on the collision law comes to rest: by t = 0.25 every body moves at less than
/// 1 % of the pour's top speed, and no body overlapped another or a wall at any step.
#[test]
fn a_poured_pile_comes_to_rest_without_overlap() {
    let mut sim = build::<3>(&PILE.replace("RESOLUTION", "0.008"));
    let dt = sim.stable_time_step();
    let range = sim.contact.model.range;
    let (mut top, mut smallest) = (0.0_f64, f64::INFINITY);
    while sim.time < 0.25 {
        sim.step(dt).unwrap();
        top = top.max(sim.bodies.iter().map(|b| b.velocity.norm()).fold(0.0, f64::max));
        for c in sim.contact.contacts.iter().filter(|c| c.gap <= range) {
            smallest = smallest.min(c.gap);
        }
    }
    let last = sim.bodies.iter().map(|b| b.velocity.norm()).fold(0.0, f64::max);
    println!(
        "{} bodies, {} steps of {dt:.3e}: top speed {top:.3}, at the end {last:.3e} ({:.3} %), smallest gap {smallest:.3e}",
        sim.bodies.len(),
        sim.steps,
        100.0 * last / top
    );
    assert_eq!(sim.bodies.len(), 96);
    assert!(top > 15.0, "the pour reached {top}");
    assert!(last < 0.01 * top, "a body still moves at {last} of {top}");
    assert!(smallest > 0.0, "an overlap of {smallest}");
}
