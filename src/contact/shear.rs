//! The lubrication film's tangential part, for any shape: the force and the couples of a thin
//! film whose two surfaces slide and turn past each other, from Reynolds's equation on the
//! film's paraboloid (the normal part, the squeeze: [`super::lubrication`]).
//!
//! Over the common tangent plane the gap is `h(x) = h₀ + ½ xᵀ K x`, `K = K_i + K_j`, each
//! surface's paraboloid carried by its body. Body `i`'s surface moves along the plane at `S_i`
//! (its material's tangential velocity at the closest point) and its paraboloid's vertex at
//! `W_i`, with `K_i W_i = K_i S_i − P(Ω_i × n_i)` (`n_i` the normal out of body `i` into the gap,
//! `P` the projector on the plane: a sphere turning about its centre keeps its vertex). Reynolds's
//! equation `∇·(h³ ∇p) = 12 μ (∂h/∂t + ∇·(h (S_i + S_j)/2))` then reads `∇·(h³ ∇p) = 12 μ b·x`,
//!
//! ```text
//! b = ½ (K_j − K_i)(S_i − S_j) + P(Ω_i × n_i + Ω_j × n_j),
//! ```
//!
//! zero for a common rigid motion of the two bodies. In 3D it is solved by `p = c·x / h²` with
//! `(K + 2 tr K) c = −12 μ b` (in the plane). The pressure's first moment `Π = ∫ p x dA` and the
//! shear `μ (S_i − S_j)/h ± ½ h ∇p` of the two surfaces, integrated over the patch where the gap
//! is below the cut `h_c` (what the mesh misses, as for the normal part), give
//!
//! ```text
//! Π = −24 π μ ℓ (det K)^{−1/2} (K (K + 2 tr K))⁻¹ b,   L = 2 π ℓ (det K)^{−1/2},   ℓ = ln(h_c / h₀),
//! F_i = ½ (K_j − K_i) Π − μ L (S_i − S_j) = −F_j,
//! ```
//!
//! and the couples `n_i × Π` on `i` and `n_j × Π = −n_i × Π` on `j` about the closest point (the
//! pressure's, whose force acts along the normal at every point of the patch). For a sphere of
//! radius `a` beside a plane (`K = 𝟙/a`) these are the log terms of Goldman, Cox and Brenner
//! (1967): `F = −6πμa ℓ (8/15 U − 2/15 a Ω)` and, about the centre, `T = 8πμa² ℓ (1/10 U − 2/5 a Ω)`
//! for a translation `U` along the plane and a turn `Ω` (rolling forward when `aΩ = U`); for two
//! equal spheres sliding past each other at `U`, `F = −πμa ℓ U` (`1/6` of Stokes's drag per `ℓ`,
//! Jeffrey and Onishi's 1984 `Y^A` term). In 2D (per unit length, `R = 1/K`) the line integrals
//! `∫ dx / h^m` over the film give, with `σ = √(2R) (h₀^{−1/2} − h_c^{−1/2})`,
//!
//! ```text
//! Π = −4 π μ σ R² b,   L = π σ:
//! ```
//!
//! a cylinder sliding along a plane at `U` feels `F = −2√2 π μ U (a/h₀)^{1/2}` and no couple,
//! turning at `Ω` the couple `−2√2 π μ a² Ω (a/h₀)^{1/2}` about its axis and no force, at the
//! leading order (Jeffrey and Onishi 1981).
//!
//! As for the normal part, each eigenvalue of `K` is at least `1/r` (`r` the pair's smaller
//! bounding radius), `h₀` is held at the roughness `h_r` below it, the force is `1 − s` of the
//! whole (the mesh's share `s`, calibrated on the normal approach only), and there is none at or
//! beyond the cut nor once the surfaces meet (`h₀ ≤ 0`, where the collision law's friction
//! acts). The resistance is linear in the bodies' velocities, symmetric and dissipative; its
//! step (`λ Δt / m` reaches a few near the roughness in 2D) is in [`Lubrication::shear_stepped`]. Cost: a 2 × 2
//! eigenproblem and a few vector operations a film.

use super::{surroundings, Lubrication, Surroundings};
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::math::{Point, Vector};
use nalgebra::SMatrix;
use std::f64::consts::PI;

/// The tangential film on one gap: the force on `i` (`−force` on `j`) and the pressure's first
/// moment `Π`, whose couple is `n_i × Π` on `i` and `−n_i × Π` on `j` about the closest point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shear<const D: usize> {
    /// `F_i`.
    pub force: Vector<D>,
    /// `Π = ∫ p x dA`.
    pub moment: Vector<D>,
}

impl<const D: usize> Shear<D> {
    /// No force.
    pub fn zero() -> Self {
        Shear {
            force: Vector::<D>::zeros(),
            moment: Vector::<D>::zeros(),
        }
    }
}

impl Lubrication {
    /// The tangential film on a gap `gap` of normal `n` (from `j` towards `i`, the contact's),
    /// whose surfaces have the curvatures `k_i` and `k_j` (world frame, projected on the tangent
    /// plane; zero for a wall), the pair's smaller bounding radius being `radius`; `slip` is
    /// `S_i − S_j`, the surfaces' relative tangential velocity at the gap, and `turn`
    /// `P(Ω_i × n_i + Ω_j × n_j)` with `n_i = −n`, `n_j = n`. The module's formulas.
    pub fn shear<const D: usize>(
        &self,
        (gap, n): (f64, &Vector<D>),
        (k_i, k_j): (&SMatrix<f64, D, D>, &SMatrix<f64, D, D>),
        radius: f64,
        (slip, turn): (&Vector<D>, &Vector<D>),
    ) -> Shear<D> {
        if gap >= self.cut || gap <= 0.0 {
            return Shear::zero();
        }
        let h = gap.max(self.roughness);
        let floor = 1.0 / radius;
        let b = (k_j - k_i) * slip * 0.5 + turn;
        let k = k_i + k_j;
        let weight = 1.0 - self.share;
        let (moment, length) = if D == 2 {
            let t = tangent(n);
            let r = 1.0 / (t.dot(&(k * t))).max(floor);
            let sigma = weight * (2.0 * r).sqrt() * (h.powf(-0.5) - self.cut.powf(-0.5));
            (t * (-4.0 * PI * self.viscosity * sigma * r * r * b.dot(&t)), PI * sigma)
        } else {
            let ell = weight * (self.cut / h).ln();
            let [(e1, k1), (e2, k2)] = principal(n, &k, floor);
            let scale = ell / (k1 * k2).sqrt();
            let trace = k1 + k2;
            let moment = (e1 * (b.dot(&e1) / (k1 * (k1 + 2.0 * trace)))
                + e2 * (b.dot(&e2) / (k2 * (k2 + 2.0 * trace))))
                * (-24.0 * PI * self.viscosity * scale);
            (moment, 2.0 * PI * scale)
        };
        Shear {
            force: (k_j - k_i) * moment * 0.5 - slip * (self.viscosity * length),
            moment,
        }
    }
}

/// A unit tangent to the plane of normal `n` (2D: `n` turned by a quarter; 3D: the coordinate
/// axis least along `n`, its normal part taken out).
fn tangent<const D: usize>(n: &Vector<D>) -> Vector<D> {
    let axis = (0..D).min_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs())).unwrap_or(0);
    let mut t = -n * n[axis];
    t[axis] += 1.0;
    t.normalize()
}

/// The 3D tangent plane's second unit vector beside `t1`: the axis least along `n` and `t1`,
/// their parts taken out.
fn second_tangent<const D: usize>(n: &Vector<D>, t1: &Vector<D>) -> Vector<D> {
    let mut t2 = Vector::<D>::zeros();
    for axis in 0..D {
        let mut e = Vector::<D>::zeros();
        e[axis] = 1.0;
        let e = e - n * n[axis] - t1 * t1[axis];
        if e.norm_squared() > t2.norm_squared() {
            t2 = e;
        }
    }
    t2.normalize()
}

/// The principal directions and curvatures of `k` in the tangent plane of the 3D normal `n`,
/// each curvature at least `floor`.
fn principal<const D: usize>(n: &Vector<D>, k: &SMatrix<f64, D, D>, floor: f64) -> [(Vector<D>, f64); 2] {
    let t1 = tangent(n);
    let t2 = second_tangent(n, &t1);
    let (a, c, d) = (t1.dot(&(k * t1)), t1.dot(&(k * t2)), t2.dot(&(k * t2)));
    let angle = 0.5 * (2.0 * c).atan2(a - d);
    let (s, co) = angle.sin_cos();
    let e1 = t1 * co + t2 * s;
    let e2 = t2 * co - t1 * s;
    let curvature = |e: &Vector<D>| e.dot(&(k * e)).max(floor);
    [(e1, curvature(&e1)), (e2, curvature(&e2))]
}

/// One body's side of a tangential film: its centre, its velocity and angular velocity (free at
/// the step's end in a fluid), its mass over the step (`m + D Δt`; `None`: a wall, which does
/// not move under the film) and the fluid's share of its moment of inertia over the step,
/// `D_r Δt`.
pub(super) struct Side<'a, const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    pub body: Option<&'a RigidBody<D>>,
    pub velocity: Vector<D>,
    pub spin: Angular<D>,
    pub mass: f64,
    pub turning: f64,
}

impl<'a, const D: usize> Side<'a, D>
where
    Dim<D>: Kinematics<D>,
{
    /// Body `b` in the surroundings `s` over a step `dt` (its velocity and angular velocity free
    /// at the step's end, its mass `m + D Δt`, its moment of inertia `J + D_r Δt`,
    /// [`surroundings::turning`]), or as it is for `dt = 0`. Without the fluid's share a light
    /// body in creeping flow, whose own `J` is tiny, would make the film's step take its couple
    /// for an infinitely stiff one and hold back the whole film.
    pub fn of(b: &'a RigidBody<D>, s: &Surroundings<D>, dt: f64) -> Self {
        let still = dt == 0.0;
        Side {
            body: Some(b),
            velocity: b.velocity + if still { Vector::<D>::zeros() } else { s.drift },
            spin: b.angular_velocity
                + if still {
                    <Dim<D> as Kinematics<D>>::zero()
                } else {
                    s.spin
                },
            mass: b.mass + s.resistance * dt,
            turning: surroundings::turning(b, s.resistance) * dt,
        }
    }

    /// A wall moving at `velocity`: it does not turn, nor move under the film.
    pub fn wall(velocity: &Vector<D>) -> Self {
        Side {
            body: None,
            velocity: *velocity,
            spin: <Dim<D> as Kinematics<D>>::zero(),
            mass: f64::INFINITY,
            turning: 0.0,
        }
    }

    /// The velocity of this side's material at the point `a`.
    pub fn at(&self, a: &Point<D>) -> Vector<D> {
        match self.body {
            Some(_) => self.moved(a, &(self.velocity, self.spin)),
            None => self.velocity,
        }
    }

    /// The force `f` and the couple `c` (about `a`) as this body's force and torque about its
    /// centre.
    pub fn load(&self, a: &Point<D>, f: &Vector<D>, c: &Angular<D>) -> (Vector<D>, Angular<D>) {
        let centre = self.body.map_or(*a, |b| b.position);
        (*f, *c + <Dim<D> as Kinematics<D>>::torque(&(a - centre), f))
    }

    /// How the load `(f, t)` (force, torque about the centre) changes this side's velocity and
    /// spin per unit time, `(f / m, (J + D_r Δt 𝟙)⁻¹ t)`: nothing for a wall.
    fn response(&self, (f, t): &(Vector<D>, Angular<D>)) -> (Vector<D>, Angular<D>) {
        let Some(b) = self.body else {
            return (Vector::<D>::zeros(), <Dim<D> as Kinematics<D>>::zero());
        };
        (
            f / self.mass,
            <Dim<D> as Kinematics<D>>::inertia_solve(&surroundings::loaded(b, self.turning), t),
        )
    }

    /// The velocity at `a` of this side's material moving at `(dv, dw)` (its centre's velocity and
    /// its angular velocity): a change of motion's, nothing for a wall.
    fn moved(&self, a: &Point<D>, (dv, dw): &(Vector<D>, Angular<D>)) -> Vector<D> {
        match self.body {
            Some(b) => dv + <Dim<D> as Kinematics<D>>::spin(dw, &(a - b.position)),
            None => Vector::<D>::zeros(),
        }
    }
}

impl Lubrication {
    /// The tangential film on a gap between `sides` (point `a`, the film's inputs `(slip, turn)`
    /// of [`Self::shear`] at the step's start, free of the film), stepped over `dt` by backward
    /// Euler: the inputs at the step's end solve `z' = z + Δt A z'`, `A z` the rate at which the
    /// loads of the film `z` drives change `z` through the two sides' masses and moments of
    /// inertia (the fluid's shares included), and the film is the one `z'` drives. The film
    /// being linear in `z`, `A` is built column by column from the film of each unit input
    /// (`z` has `2(D − 1)` components in the tangent plane); `I − Δt A` is `I` plus a dissipative
    /// part, so the impulse slows the sliding and the turning, never reverses them, whatever the
    /// step. `dt = 0`: the film `z` drives (a look at the forces). Cost: `2D − 1` films and a
    /// 4 × 4 solve a gap.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn shear_stepped<const D: usize>(
        &self,
        (gap, n): (f64, &Vector<D>),
        (k_i, k_j): (&SMatrix<f64, D, D>, &SMatrix<f64, D, D>),
        radius: f64,
        (side_i, side_j): (&Side<'_, D>, &Side<'_, D>),
        a: &Point<D>,
        (slip, turn): (&Vector<D>, &Vector<D>),
        dt: f64,
    ) -> Shear<D>
    where
        Dim<D>: Kinematics<D>,
    {
        let film = |slip: &Vector<D>, turn: &Vector<D>| self.shear((gap, n), (k_i, k_j), radius, (slip, turn));
        if dt <= 0.0 || gap >= self.cut || gap <= 0.0 {
            return film(slip, turn);
        }
        let m = D - 1;
        let t1 = tangent(n);
        let plane = [t1, if D == 3 { second_tangent(n, &t1) } else { t1 }];
        let zero = Vector::<D>::zeros();
        let spin = <Dim<D> as Kinematics<D>>::spin;
        // `I − Δt A` in the coordinates (slip·t_k, turn·t_k); the unused corner is `I` in 2D.
        let mut system = nalgebra::Matrix4::<f64>::identity();
        for k in 0..2 * m {
            let unit = plane[k % m];
            let (s_k, r_k) = if k < m { (unit, zero) } else { (zero, unit) };
            let s = film(&s_k, &r_k);
            let couple = <Dim<D> as Kinematics<D>>::torque(&(-n), &s.moment);
            let di = side_i.response(&side_i.load(a, &s.force, &couple));
            let dj = side_j.response(&side_j.load(a, &(-s.force), &(-couple)));
            let d_slip = side_i.moved(a, &di) - side_j.moved(a, &dj);
            let d_turn = spin(&dj.1, n) - spin(&di.1, n);
            for r in 0..m {
                system[(r, k)] -= dt * d_slip.dot(&plane[r]);
                system[(r + m, k)] -= dt * d_turn.dot(&plane[r]);
            }
        }
        let mut start = nalgebra::Vector4::<f64>::zeros();
        for r in 0..m {
            start[r] = slip.dot(&plane[r]);
            start[r + m] = turn.dot(&plane[r]);
        }
        let Some(end) = system.lu().solve(&start) else {
            return film(slip, turn);
        };
        let (mut slip_end, mut turn_end) = (zero, zero);
        for r in 0..m {
            slip_end += plane[r] * end[r];
            turn_end += plane[r] * end[r + m];
        }
        film(&slip_end, &turn_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix2, Matrix3, Vector2, Vector3};

    const MU: f64 = 0.7;

    fn film() -> Lubrication {
        Lubrication {
            viscosity: MU,
            cut: 0.1,
            roughness: 1e-9,
            share: 0.0,
            tangential: true,
        }
    }

    /// A sphere of radius `a` at the gap `h` above the plane z = 0 translating at `u` along x and
    /// turning at `w` about y: the force along x and the torque about y about its centre.
    fn sphere_on_plane(a: f64, h: f64, u: f64, w: f64) -> (f64, f64) {
        let n = Vector3::z();
        let spin = Vector3::new(0.0, w, 0.0);
        let slip = Vector3::new(u, 0.0, 0.0) + spin.cross(&(-n * a));
        // P(Ω_i × n_i) with n_i = −n; the plane does not turn.
        let turn = spin.cross(&(-n));
        let k = Matrix3::from_diagonal(&Vector3::new(1.0 / a, 1.0 / a, 0.0));
        let s = film().shear((h, &n), (&k, &Matrix3::zeros()), a, (&slip, &turn));
        let couple = (-n).cross(&s.moment) + (-n * a).cross(&s.force);
        (s.force.x, couple.y)
    }

    #[test]
    fn a_sphere_beside_a_plane_has_goldman_cox_and_brenner_log_terms() {
        let (a, h): (f64, f64) = (2.0, 1e-4);
        let ell = (0.1 / h).ln();
        let (f, t) = sphere_on_plane(a, h, 1.0, 0.0);
        assert!((f / (-6.0 * PI * MU * a * ell) - 8.0 / 15.0).abs() < 1e-12, "{f}");
        assert!((t / (8.0 * PI * MU * a * a * ell) - 1.0 / 10.0).abs() < 1e-12, "{t}");
        let (f, t) = sphere_on_plane(a, h, 0.0, 1.0);
        assert!((f / (6.0 * PI * MU * a * a * ell) - 2.0 / 15.0).abs() < 1e-12, "{f}");
        assert!(
            (t / (-8.0 * PI * MU * a.powi(3) * ell) - 2.0 / 5.0).abs() < 1e-12,
            "{t}"
        );
    }

    #[test]
    fn two_equal_spheres_sliding_feel_a_sixth_of_stokes_per_log() {
        let (a, h): (f64, f64) = (0.5, 1e-3);
        let ell = (0.1 / h).ln();
        // Turned normal: the answer does not depend on the frame.
        let n = Vector3::new(1.0, 2.0, 2.0) / 3.0;
        let u = Vector3::new(2.0, -1.0, 0.0) / 5f64.sqrt();
        let p = Matrix3::identity() - n * n.transpose();
        let k = p * (Matrix3::identity() / a) * p;
        let s = film().shear((h, &n), (&k, &k), a, (&u, &Vector3::zeros()));
        assert!(
            (s.force - u * (-PI * MU * a * ell)).norm() < 1e-12 * ell,
            "{:?}",
            s.force
        );
        assert!(s.moment.norm() < 1e-15);
    }

    /// On the gap `h = h₀ + x²/2R_x + y²/2R_y`, `p = c·x/h²` with `(K + 2 tr K) c = −12 μ b`
    /// solves `∇·(h³∇p) = 12 μ b·x` (checked by finite differences), and its first moment over the
    /// patch below the cut (by quadrature, `ℓ − 1 + h₀/h_c` there against the leading `ℓ`) is the
    /// film's `Π`.
    #[test]
    fn the_pressure_solves_reynolds_equation_on_a_gap_of_two_curvatures() {
        let (rx, ry, h0) = (0.4, 0.1, 1e-6);
        let b = Vector3::new(0.8, -0.3, 0.0);
        let (kx, ky) = (1.0 / rx, 1.0 / ry);
        let c = [
            -12.0 * MU * b.x / (kx + 2.0 * (kx + ky)),
            -12.0 * MU * b.y / (ky + 2.0 * (kx + ky)),
        ];
        let gap = |x: f64, y: f64| h0 + 0.5 * (kx * x * x + ky * y * y);
        let p = |x: f64, y: f64| (c[0] * x + c[1] * y) / gap(x, y).powi(2);
        let flux = |x: f64, y: f64, (dx, dy): (f64, f64), s: f64| {
            gap(x, y).powi(3) * (p(x + dx * s / 2.0, y + dy * s / 2.0) - p(x - dx * s / 2.0, y - dy * s / 2.0)) / s
        };
        for (x, y) in [(1e-4, 3e-5), (-2e-4, 1e-4), (5e-4, -4e-5)] {
            let s = 1e-7;
            let div = (flux(x + s / 2.0, y, (1.0, 0.0), s) - flux(x - s / 2.0, y, (1.0, 0.0), s)) / s
                + (flux(x, y + s / 2.0, (0.0, 1.0), s) - flux(x, y - s / 2.0, (0.0, 1.0), s)) / s;
            let source = 12.0 * MU * (b.x * x + b.y * y);
            assert!((div / source - 1.0).abs() < 1e-3, "{div} {source}");
        }
        // x = √(2 R_x h₀) ρ cos θ, y = √(2 R_y h₀) ρ sin θ: h = h₀ (1 + ρ²), dA = 2 h₀ √(R_x R_y) ρ dρ dθ,
        // out to the cut h_c = h₀ (1 + ρ_c²).
        let cut = film().cut;
        let top = (cut / h0 - 1.0).sqrt();
        let (n, m) = (400_000, 64);
        let mut moment = Vector3::zeros();
        for k in 0..n {
            // ρ on a log scale: the integrand lives over decades.
            let (lo, hi) = ((1e-4f64).ln(), top.ln());
            let t = lo + (hi - lo) * (k as f64 + 0.5) / n as f64;
            let rho = t.exp();
            let d_rho = rho * (hi - lo) / n as f64;
            for j in 0..m {
                let theta = 2.0 * PI * (j as f64 + 0.5) / m as f64;
                let (x, y) = (
                    (2.0 * rx * h0).sqrt() * rho * theta.cos(),
                    (2.0 * ry * h0).sqrt() * rho * theta.sin(),
                );
                let area = 2.0 * h0 * (rx * ry).sqrt() * rho * d_rho * 2.0 * PI / m as f64;
                moment += Vector3::new(x, y, 0.0) * (p(x, y) * area);
            }
        }
        let k = Matrix3::from_diagonal(&Vector3::new(kx, ky, 0.0));
        // The film's Π for this b: b = ½ (K_j − K_i) slip with K_i = 0, K_j = K and slip = 2 K⁻¹ b.
        let slip = Vector3::new(2.0 * b.x / kx, 2.0 * b.y / ky, 0.0);
        let s = film().shear(
            (h0, &Vector3::z()),
            (&Matrix3::zeros(), &k),
            1.0,
            (&slip, &Vector3::zeros()),
        );
        let ell = (cut / h0).ln();
        let expected = s.moment * ((ell - 1.0 + h0 / cut) / ell);
        assert!(
            (moment - expected).norm() < 1e-3 * expected.norm(),
            "{moment:?} {expected:?}"
        );
    }

    #[test]
    fn a_cylinder_beside_a_plane_feels_the_square_root_law() {
        let (a, h): (f64, f64) = (0.3, 1e-5);
        let n = Vector2::y();
        let k = Matrix2::new(1.0 / a, 0.0, 0.0, 0.0);
        let sigma = (a / h).sqrt() - (a / 0.1).sqrt();
        let scale = 2.0 * 2f64.sqrt() * PI * MU * sigma;
        // Sliding at 1: the force, no couple about the axis.
        let slip = Vector2::x();
        let s = film().shear((h, &n), (&k, &Matrix2::zeros()), a, (&slip, &Vector2::zeros()));
        let couple = |s: &Shear<2>| {
            let c = <Dim<2> as Kinematics<2>>::torque(&(-n), &s.moment);
            c + <Dim<2> as Kinematics<2>>::torque(&(-n * a), &s.force)
        };
        assert!((s.force.x / (-scale) - 1.0).abs() < 1e-12, "{:?}", s.force);
        assert!(couple(&s).abs() < 1e-12 * scale);
        // Turning at 1 about its axis: the couple, no force.
        let w = 1.0;
        let slip = <Dim<2> as Kinematics<2>>::spin(&w, &(-n * a));
        let turn = <Dim<2> as Kinematics<2>>::spin(&w, &(-n));
        let s = film().shear((h, &n), (&k, &Matrix2::zeros()), a, (&slip, &turn));
        assert!(s.force.norm() < 1e-12 * scale, "{:?}", s.force);
        assert!((couple(&s) / (-scale * a * a) - 1.0).abs() < 1e-12, "{}", couple(&s));
    }

    #[test]
    fn nothing_beyond_the_cut_nor_under_overlap_and_the_share_scales() {
        let n = Vector3::z();
        let k = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, 0.0));
        let u = Vector3::x();
        let z = Matrix3::zeros();
        for gap in [0.1, 0.2, 0.0, -1e-3] {
            assert_eq!(film().shear((gap, &n), (&k, &z), 1.0, (&u, &u)), Shear::zero());
        }
        let whole = film().shear((1e-3, &n), (&k, &z), 1.0, (&u, &u));
        let shared = Lubrication { share: 0.25, ..film() }.shear((1e-3, &n), (&k, &z), 1.0, (&u, &u));
        assert!((shared.force - whole.force * 0.75).norm() < 1e-12);
        // Below the roughness the film is the roughness's.
        let rough = Lubrication {
            roughness: 1e-3,
            ..film()
        };
        assert_eq!(
            rough.shear((1e-5, &n), (&k, &z), 1.0, (&u, &u)),
            rough.shear((1e-3, &n), (&k, &z), 1.0, (&u, &u))
        );
    }

    #[test]
    fn the_resistance_is_symmetric_between_sliding_and_turning() {
        // An ellipsoid-like anisotropic gap (curvatures 1 and 4) against a sphere of radius 2:
        // the power of a translation's load on a turning is the turning's load on the
        // translation (reciprocity).
        let n = Vector3::z();
        let ki = Matrix3::from_diagonal(&Vector3::new(1.0, 4.0, 0.0));
        let kj = Matrix3::from_diagonal(&Vector3::new(0.5, 0.5, 0.0));
        let ai = 0.7;
        // Body i above (centre at +ai n), only it moving.
        let load = |u: Vector3<f64>, w: Vector3<f64>| {
            let slip = u + w.cross(&(-n * ai));
            let turn = w.cross(&(-n));
            let s = film().shear((1e-3, &n), (&ki, &kj), 1.0, (&slip, &turn));
            (s.force, (-n).cross(&s.moment) + (-n * ai).cross(&s.force))
        };
        let (u, w) = (Vector3::new(0.3, -0.8, 0.0), Vector3::new(0.6, 0.2, 0.0));
        let (fu, _) = load(u, Vector3::zeros());
        let (_, tw) = load(Vector3::zeros(), w);
        let (fw, _) = load(Vector3::zeros(), w);
        let (_, tu) = load(u, Vector3::zeros());
        assert!(
            (tu.dot(&w) - fw.dot(&u)).abs() < 1e-12 * fu.norm(),
            "{} {}",
            tu.dot(&w),
            fw.dot(&u)
        );
        // And dissipative: each motion's load opposes it.
        assert!(fu.dot(&u) < 0.0 && tw.dot(&w) < 0.0);
    }
}
