//! The collision law (`law = "collision"`): a linear spring and dashpot along the normal whose
//! constants give a prescribed restitution coefficient over a prescribed duration, Coulomb
//! friction with a tangential spring, and a rolling resistance with a rolling spring, both
//! carried from step to step by each contact ([`Memory`]). The equations and their choice are in
//! docs/theory.md ("The collision law"); in short, for a contact of gap `d`, normal `n` (from `j`
//! to `i`), relative velocity `v = v_i − v_j` at the application point `a` (the midpoint of the
//! two contact points; against a wall, the body's point nearest the wall) and reduced mass `m = (1/m_i + 1/m_j)⁻¹` (`m_i` against a wall):
//!
//! ```text
//! k = m (π² + ln² e) / t_c²,   c = −2 m ln e / t_c,           δ = ρ − d  (the contact begins at d = ρ)
//! F_n = k δ − c (v·n)                                          (e exact over t_c = π / ω_d)
//! (k, c) → (k̃, c̃) for the step h, so that the steps repeat the exact motion (Collision::stepped)
//! ξ ← ξ on the tangent plane + v_t Δt,   F_t = −κk ξ − κc v_t,   |F_t| ≤ μ max(F_n, 0)
//! ψ ← ψ on the rolling plane + ω_r Δt,   τ_r = −κk R² ψ − κc R² ω_r,   |τ_r| ≤ μ_r R max(F_n, 0)
//! ```
//!
//! with `κ = 2/7` in 3D and `1/3` in 2D (the tangential spring oscillates with the normal one for
//! a ball or a disk), `R = (1/ℓ_i + 1/ℓ_j)⁻¹` from the levers `ℓ = |a − G|` and `ω_r` the part of
//! `ω_i − ω_j` normal to `n` (all of it in 2D). Where a limit binds, the spring is reset to the
//! stretch that gives the limited force (it slides, or rolls, without storing more). A linear
//! spring's duration does not depend on the impact speed, a Hertzian one's does (`t_c ∝ U^−1/5`):
//! the prescribed duration is what lets a fluid step resolve every collision alike.
//!
//! Cost per contact: a few dozen flops and a binary search in the last step's memories, in
//! parallel over the contacts; then a serial sum and a sort of the springs.

use super::{Contact, WALL};
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::math::{Point, Vector};
use rayon::prelude::*;
use std::f64::consts::PI;

/// The collision law's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Collision {
    /// `e`, the ratio of the normal speeds after and before a dry collision, in (0, 1].
    pub restitution: f64,
    /// `t_c`, how long a collision lasts (the half period of the damped spring).
    pub duration: f64,
    /// `μ`, Coulomb's friction coefficient.
    pub friction: f64,
    /// `μ_r`, the rolling resistance coefficient: the rolling torque is at most `μ_r R F_n`.
    pub rolling: f64,
}

/// Time steps per collision that keep the restitution within 1 % of `e` and the duration within
/// 5 % of `t_c` under the semi-implicit Euler step (docs/validation.md, "Collisions").
pub const STEPS_PER_COLLISION: f64 = 20.0;

impl Collision {
    /// The normal spring `k` and dashpot `c` of a pair of reduced mass `m`.
    pub fn normal(&self, m: f64) -> (f64, f64) {
        let l = self.restitution.ln();
        let t = self.duration;
        (m * (PI * PI + l * l) / (t * t), -2.0 * m * l / t)
    }

    /// The spring and dashpot of a pair of reduced mass `m` stepped by `h` (semi-implicit Euler,
    /// the force at the step's start), chosen so that the steps repeat the exact motion at
    /// their ends: the step's map of `(δ/h, δ̇)` has the eigenvalues `exp((−c/2m ± i ω_d) h)` of
    /// the exact flow when `c̃ h / m = 1 − exp(−c h / m)` and
    /// `k̃ h² / m = 2 − c̃ h / m − 2 exp(−c h / 2m) cos(ω_d h)`. They tend to `(k, c)` as `h → 0`;
    /// with `(k, c)` themselves the restitution was `0.75/N` too high for `e = 0.5` at `N` steps a
    /// collision. `h = 0` (forces looked at without a step) gives `(k, c)`.
    pub fn stepped(&self, m: f64, h: f64) -> (f64, f64) {
        let (k, c) = self.normal(m);
        let omega = PI / self.duration;
        if h <= 0.0 || omega * h >= PI {
            return (k, c);
        }
        let b = -(-c * h / m).exp_m1();
        let a = 2.0 - b - 2.0 * (-c * h / (2.0 * m)).exp() * (omega * h).cos();
        (a * m / (h * h), b * m / h)
    }

    /// The time step that resolves a collision: `t_c / 20` ([`STEPS_PER_COLLISION`]).
    pub fn accurate_step(&self) -> f64 {
        self.duration / STEPS_PER_COLLISION
    }
}

/// `κ`, the tangential spring's share of the normal one: `2/7` for a sphere (`1/m + R²/J`
/// = `7/(2m)`), `1/3` for a disk (`3/m`).
fn tangential_share(dim: usize) -> f64 {
    if dim == 2 {
        1.0 / 3.0
    } else {
        2.0 / 7.0
    }
}

/// What a contact carries from one step to the next: its tangential and rolling springs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Memory<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    /// The body.
    pub i: u32,
    /// The other body, or [`WALL`].
    pub j: u32,
    /// The contact point on `i`, in `i`'s frame: it tells the contacts of a pair apart.
    pub anchor: Point<D>,
    /// `ξ`, the tangential spring's stretch (world frame).
    pub slip: Vector<D>,
    /// `ψ`, the rolling spring's angle (world frame).
    pub roll: Angular<D>,
}

/// A contact of the last step continues into this step if its anchor is within this share of
/// the body's bounding radius of the new one (a rolling ball's moves by `|v| Δt` a step); else
/// the contact is new and its springs start unstretched.
const SAME_CONTACT: f64 = 0.25;

/// What one contact does this step: its force on `i` (minus on `j`) at `at`, its rolling torque
/// on `i` (minus on `j`), and its springs for the next step.
#[derive(Debug, Clone, Copy)]
pub struct Effect<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    force: Vector<D>,
    at: Point<D>,
    rolling: Angular<D>,
    springs: Memory<D>,
}

/// The collision law's force and torque of every contact, summed in the order of `contacts` into
/// `force` and `torque` (overwritten), for a step of length `dt`, the walls moving at `walls`
/// ([`super::ContactSolver::wall_velocity`]). `memory` holds the springs of
/// the last step's contacts, sorted by `(i, j)`, and is replaced by this step's (sorted). The
/// contacts are evaluated in parallel into `effects` (reused) and summed serially, so the result
/// does not depend on the number of threads.
#[allow(clippy::too_many_arguments)]
pub(super) fn collide<const D: usize>(
    law: &Collision,
    range: f64,
    contacts: &[Contact<D>],
    (bodies, walls): (&[RigidBody<D>], &Vector<D>),
    dt: f64,
    memory: &mut Vec<Memory<D>>,
    effects: &mut Vec<Option<Effect<D>>>,
    force: &mut [Vector<D>],
    torque: &mut [Angular<D>],
) where
    Dim<D>: Kinematics<D>,
{
    contacts
        .par_iter()
        .map(|c| effect(law, range, c, (bodies, walls), dt, memory))
        .collect_into_vec(effects);
    force.fill(Vector::<D>::zeros());
    torque.fill(<Dim<D> as Kinematics<D>>::zero());
    memory.clear();
    for (c, e) in contacts.iter().zip(effects.iter()) {
        let Some(e) = e else { continue };
        let bi = &bodies[c.i as usize];
        force[c.i as usize] += e.force;
        torque[c.i as usize] += <Dim<D> as Kinematics<D>>::torque(&(e.at - bi.position), &e.force) + e.rolling;
        if c.j != WALL {
            let gj = bodies[c.j as usize].position + c.shift;
            force[c.j as usize] -= e.force;
            torque[c.j as usize] += <Dim<D> as Kinematics<D>>::torque(&(e.at - gj), &(-e.force)) - e.rolling;
        }
        memory.push(e.springs);
    }
    memory.sort_unstable_by_key(|m| (m.i, m.j));
}

/// What the contact `c` does this step ([`Effect`]), `None` if it neither is nor comes within
/// range during the step; `memory` the last step's springs.
fn effect<const D: usize>(
    law: &Collision,
    range: f64,
    c: &Contact<D>,
    (bodies, walls): (&[RigidBody<D>], &Vector<D>),
    dt: f64,
    memory: &[Memory<D>],
) -> Option<Effect<D>>
where
    Dim<D>: Kinematics<D>,
{
    let kappa = tangential_share(D);
    let bi = &bodies[c.i as usize];
    let bj = (c.j != WALL).then(|| c.other(bodies));
    // Where the contact acts: a wall takes the whole gap (the body's point nearest the wall, at
    // `gap` from the wall's point along the normal: a ball rolls on its own radius; the body's
    // centre of pressure lies inside a curved body), two bodies half each (both at the same
    // point, so the pair's torques balance).
    let a = match &bj {
        Some(_) => (c.point_i + c.point_j) * 0.5,
        None => c.point_j + c.normal * c.gap,
    };
    let n = c.normal;
    let lever_i = (a - bi.position).norm();
    let (mass, radius, v, w) = match &bj {
        Some(bj) => (
            1.0 / (1.0 / bi.mass + 1.0 / bj.mass),
            harmonic(lever_i, (a - bj.position).norm()),
            bi.point_velocity(&a) - bj.point_velocity(&a),
            bi.angular_velocity - bj.angular_velocity,
        ),
        None => (bi.mass, lever_i, bi.point_velocity(&a) - walls, bi.angular_velocity),
    };
    let (k, damper) = law.stepped(mass, dt);
    let vn = v.dot(&n);
    // The overlap now and, moving on as now, at the step's end. A step that the contact enters
    // or leaves takes the force at the start of its part inside (no spring yet on the way in)
    // times that part's share of the step: without it the restitution was off by up to a step's
    // impulse, 3.5 % for e = 0.5 at 20 steps a collision; with it, 0.6 %.
    let (now, then) = (range - c.gap, range - c.gap - vn * dt);
    let normal = if now > 0.0 && then >= 0.0 {
        k * now - damper * vn
    } else if now > 0.0 {
        now / (now - then) * (k * now - damper * vn)
    } else if then > 0.0 {
        then / (then - now) * (-damper * vn)
    } else {
        return None;
    };
    let pressing = normal.max(0.0);
    let anchor = bi.to_body(&c.point_i);
    let before = remembered(memory, c, &anchor, SAME_CONTACT * bi.geometry.radius);

    // Friction: the tangential spring turned onto today's tangent plane, its force limited.
    let vt = v - n * vn;
    // The spring stretches by this step's sliding first, then pushes (ξ as the normal overlap,
    // from the velocity the last step ended with): stretched after the force, with the velocity
    // of the step's start, the tangential oscillator gained energy each step (forward Euler) and
    // a sticking impact turned its contact point back 1.28 times faster than the law's e.
    let mut slip = before.map_or(Vector::<D>::zeros(), |m| onto_plane(&m.slip, &n)) + vt * dt;
    let (kt, ct) = (kappa * k, kappa * damper);
    let mut ft = -(slip * kt) - vt * ct;
    let limit = law.friction * pressing;
    if ft.norm() > limit {
        ft *= limit / ft.norm();
        slip = -(ft + vt * ct) / kt;
    }
    // Rolling resistance: the same on the relative rotation normal to `n`.
    let wr = <Dim<D> as Kinematics<D>>::rolling(&w, &n);
    let mut roll = before.map_or(<Dim<D> as Kinematics<D>>::zero(), |m| {
        let turned = <Dim<D> as Kinematics<D>>::rolling(&m.roll, &n);
        rescaled::<D>(turned, magnitude::<D>(&m.roll))
    }) + wr * dt;
    let (kr, cr) = (kt * radius * radius, ct * radius * radius);
    let mut tr = -(roll * kr) - wr * cr;
    let limit = law.rolling * radius * pressing;
    if magnitude::<D>(&tr) > limit {
        tr = rescaled::<D>(tr, limit);
        roll = -(tr + wr * cr) * (1.0 / kr);
    }
    Some(Effect {
        force: n * normal + ft,
        at: a,
        rolling: tr,
        springs: Memory {
            i: c.i,
            j: c.j,
            anchor,
            slip,
            roll,
        },
    })
}

/// `(1/x + 1/y)⁻¹`.
fn harmonic(x: f64, y: f64) -> f64 {
    1.0 / (1.0 / x + 1.0 / y)
}

/// The memory of the last step's contact of the pair of `c` whose anchor is nearest `anchor`,
/// if within `reach`.
fn remembered<'a, const D: usize>(
    memory: &'a [Memory<D>],
    c: &Contact<D>,
    anchor: &Point<D>,
    reach: f64,
) -> Option<&'a Memory<D>>
where
    Dim<D>: Kinematics<D>,
{
    let first = memory.partition_point(|m| (m.i, m.j) < (c.i, c.j));
    memory[first..]
        .iter()
        .take_while(|m| (m.i, m.j) == (c.i, c.j))
        .map(|m| ((m.anchor - anchor).norm(), m))
        .filter(|&(d, _)| d <= reach)
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, m)| m)
}

/// `x` turned onto the plane normal to `n`, its length kept (zero if `x` is along `n`).
fn onto_plane<const D: usize>(x: &Vector<D>, n: &Vector<D>) -> Vector<D> {
    let t = x - n * x.dot(n);
    let norm = t.norm();
    if norm > 0.0 {
        t * (x.norm() / norm)
    } else {
        Vector::<D>::zeros()
    }
}

/// `|w|`.
fn magnitude<const D: usize>(w: &Angular<D>) -> f64
where
    Dim<D>: Kinematics<D>,
{
    <Dim<D> as Kinematics<D>>::magnitude(w)
}

/// `w` scaled to length `length` (zero stays zero).
fn rescaled<const D: usize>(w: Angular<D>, length: f64) -> Angular<D>
where
    Dim<D>: Kinematics<D>,
{
    let m = magnitude::<D>(&w);
    if m > 0.0 {
        w * (length / m)
    } else {
        w
    }
}
