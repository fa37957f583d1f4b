//! The lubrication film between two surfaces closer than the fluid mesh resolves, for any shape:
//! its normal resistance from the gap and the surfaces' curvatures.
//!
//! Near the closest points, the gap between two smooth surfaces is the paraboloid
//! `h(x) = h₀ + ½ xᵀ K x` over their common tangent plane, with `K = K_i + K_j` the sum of the two
//! surfaces' curvature tensors there (each positive where its body is convex; a wall's from the
//! fluid side, negative where it is concave). Reynolds's equation of a thin film squeezed at the
//! approach speed `U`, `∇·(h³ ∇p) = 12 μ ∂h/∂t = −12 μ U`, has on that gap the exact solution
//! `p = C / h²` with `C = 6 μ U / tr K`, and its force `F = ∫ p dA` is
//!
//! ```text
//! 3D:  F = 12 π μ U / (h₀ tr K √det K) = 6 π μ U R_x R_y · 2 / ((R_x + R_y) h₀)
//! 2D:  F = 3 √2 π μ U (R / h₀)^{3/2}   per unit length, R = 1 / K,
//! ```
//!
//! with `1/R_x`, `1/R_y` the eigenvalues of `K` in the tangent plane. For a sphere of radius `a`
//! and a plane (`K = I/a`) the 3D form is `6 π μ U a² / h₀`, Cox and Brenner's (1967) leading
//! term; for two spheres it is the same with the reduced radius `a₁a₂/(a₁ + a₂)`; the 2D one is the
//! cylinder's (Jeffrey and Onishi 1981). The terms these forms leave out, `(a/5) ln(a/h₀)` and a
//! constant beside `a²/h₀` for a sphere, are under 1 % of it below `h₀ = a/100` and cancel in part
//! in the difference below.
//!
//! The fluid mesh resolves the film down to a gap of about `h_c` (a cell or two), so only the
//! part it misses is added: `(1 − s)(F(h₀) − F(h_c))` for `h₀ < h_c`, nothing above, below a
//! roughness `h_r` the force of `h_r`, and nothing once the surfaces meet (`h₀ ≤ 0`: the
//! collision law's overlap, where the film has broken down). `s` is the share of the film that
//! the mesh still carries below the cut, 0 by default: a fictitious-domain mesh carries a share
//! at slow approaches that depends on the time step, and none where a step crosses the film
//! (docs/validation.md, "The lubrication film"). A flat face against a flat face (`K = 0`) would
//! give no finite force: each eigenvalue of `K` is at least `1/r` with `r` the smaller bounding
//! radius of the pair, the sphere a flat face fits in.
//!
//! The solver ([`super::ContactSolver`]) finds the films as patches of nodes within `h_c` and
//! a step's approach (one per patch, as the `patches` law finds its contacts), and applies a
//! force along the normal `n` on `i` (`−F` on `j`) halfway across the gap from `j`'s point,
//! with `K = P (R_i K_i R_iᵀ + R_j K_j R_jᵀ) P` from each body's curvature at its point
//! (`P = 𝟙 − n nᵀ`; a wall counts as flat), and by default the tangential part
//! ([`super::shear`]) there.
//!
//! The film is stiff: `λ Δt / m` reaches hundreds near the roughness, and a step of a fluid
//! solver may cross the whole film, so neither `λ` at the step's start (too small while the gap
//! closes, and unstable) nor a backward Euler step (`λ` at the step's end) gives its impulse.
//! Along the normal, with the pair's mass there `m_n`
//! (`1/m_n = Σ 1/m + ((a − G) × n)·J⁻¹((a − G) × n)` over the pair) and the approach speed `u`,
//! the film alone gives `m_n du/dh = λ(h)`: the speed at a gap is the film's work
//! `Φ(h) = ∫_h^{h_c} λ` less than it was at `h_c`, exactly (`Φ = C (ln(h_c/h) − 1 + h/h_c)` in 3D
//! and `C (2/√h − 3/√h_c + h/h_c^{3/2})` in 2D, times `1 − s`, with `λ(h_r)` held below `h_r`).
//! The bodies' step (`x += v' Δt`, semi-implicit Euler) moves the gap to `h' = h − u' Δt`, and
//! the film's step ends at the speed
//!
//! ```text
//! u' = u − (Φ(h − u' Δt) − Φ(h)) / m_n,
//! ```
//!
//! one equation in `u'`, increasing, with its root between 0 and `u` (solved by bisection): the
//! step's impulse `m_n (u − u')` is the film's work over the gap the step crosses whatever the
//! step, and the approach (or the separation, which the film resists alike) slows, never
//! reverses. The force is that impulse over `Δt`. Cost: about 60 evaluations of `Φ` per film
//! (the bisection), and a nearest surface node for each curvature
//! ([`crate::body::BodyGeometry::curvature_near`]).

use super::shear::Side;
use super::{Contact, Surroundings, WALL};
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::math::{Point, Vector};
use nalgebra::SMatrix;
use std::f64::consts::PI;

/// The lubrication film's parameters: the fluid's viscosity, the gap below which the mesh no
/// longer resolves the film, and the surfaces' roughness.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lubrication {
    /// `μ`, the fluid's dynamic viscosity.
    pub viscosity: f64,
    /// `h_c`: the gap above which the fluid mesh resolves the film (no force is added).
    pub cut: f64,
    /// `h_r` (< `h_c`): the roughness, below which the force stays the one at `h_r`.
    pub roughness: f64,
    /// `s` in [0, 1): the share of the film's resistance below the cut that the fluid mesh
    /// carries itself; the film adds the rest. 0: the whole film (a dry case, or a mesh that
    /// carries nothing of it).
    pub share: f64,
    /// Whether the film also resists the surfaces' sliding and turning past each other
    /// ([`super::shear`]; on by default), besides their approach.
    pub tangential: bool,
}

/// The film's law on one gap's curvature, `λ_film(h) = C h^{−p}`: `p = 1` in 3D, `3/2` in 2D.
#[derive(Debug, Clone, Copy)]
struct Power {
    c: f64,
    p: f64,
}

impl Lubrication {
    /// `C` and `p` of the film on a gap of relative curvature `k` (world frame, projected on the
    /// tangent plane) whose pair's smaller bounding radius is `radius`: see the module's formulas.
    fn power<const D: usize>(&self, k: &SMatrix<f64, D, D>, radius: f64) -> Power {
        let floor = 1.0 / radius;
        let trace = k.trace();
        if D == 2 {
            let r = 1.0 / trace.max(floor);
            return Power {
                c: 3.0 * 2f64.sqrt() * PI * self.viscosity * r.powf(1.5),
                p: 1.5,
            };
        }
        // The two eigenvalues in the tangent plane from the trace and the sum of the principal
        // minors (the normal's eigenvalue is zero).
        let minors = 0.5 * (trace * trace - (k * k).trace());
        let spread = (0.25 * trace * trace - minors).max(0.0).sqrt();
        let (k1, k2) = ((0.5 * trace + spread).max(floor), (0.5 * trace - spread).max(floor));
        Power {
            c: 12.0 * PI * self.viscosity / ((k1 + k2) * (k1 * k2).sqrt()),
            p: 1.0,
        }
    }

    /// The film's resistance `λ_film(h₀) = F / U` on a gap `h₀` whose surfaces have the relative
    /// curvature `k` (`K_i + K_j`, world frame, projected on the tangent plane) and whose pair's
    /// smaller bounding radius is `radius`: see the module's formulas.
    pub fn film<const D: usize>(&self, gap: f64, k: &SMatrix<f64, D, D>, radius: f64) -> f64 {
        let f = self.power(k, radius);
        f.c * gap.powf(-f.p)
    }

    /// The resistance the mesh misses,
    /// `λ(h₀) = (1 − s)(λ_film(max(h₀, h_r)) − λ_film(h_c))` for `0 < h₀ < h_c`, else 0.
    pub fn resistance<const D: usize>(&self, gap: f64, k: &SMatrix<f64, D, D>, radius: f64) -> f64 {
        self.resisting(gap, self.missed(k, radius))
    }

    /// The law of the part the mesh misses: [`Self::power`]'s times `1 − s`.
    fn missed<const D: usize>(&self, k: &SMatrix<f64, D, D>, radius: f64) -> Power {
        let f = self.power(k, radius);
        Power {
            c: f.c * (1.0 - self.share),
            p: f.p,
        }
    }

    fn resisting(&self, gap: f64, f: Power) -> f64 {
        if gap >= self.cut || gap <= 0.0 {
            return 0.0;
        }
        f.c * (gap.max(self.roughness).powf(-f.p) - self.cut.powf(-f.p))
    }

    /// The film's work from the cut down to the gap `h`, `Φ(h) = ∫_h^{h_c} λ`: zero above the
    /// cut, growing as the gap closes, by `λ(h_r)` per unit length below the roughness, and no
    /// more once the surfaces meet (`h ≤ 0`).
    fn working(&self, gap: f64, f: Power) -> f64 {
        if gap >= self.cut {
            return 0.0;
        }
        let h = gap.max(self.roughness);
        // ∫_h^{h_c} C (s^{−p} − h_c^{−p}) ds.
        let primitive = |s: f64| {
            let power = if f.p == 1.0 {
                s.ln()
            } else {
                s.powf(1.0 - f.p) / (1.0 - f.p)
            };
            power - s * self.cut.powf(-f.p)
        };
        let film = f.c * (primitive(self.cut) - primitive(h));
        film + self.resisting(self.roughness, f) * (self.roughness - gap.max(0.0)).max(0.0)
    }

    /// The approach speed after a step `dt` of a pair of mass `mass` along the normal that
    /// approaches at `approach` (negative: separates) across the gap `gap`, under the part of the
    /// film the mesh misses alone (the module's step): between `approach` and 0.
    pub fn stepped<const D: usize>(
        &self,
        (gap, approach): (f64, f64),
        (k, radius): (&SMatrix<f64, D, D>, f64),
        mass: f64,
        dt: f64,
    ) -> f64 {
        let f = self.missed(k, radius);
        let start = self.working(gap, f);
        // Increasing in `u'`, from `g(0) = −u` to `g(u)` of the sign of `u`.
        let g = |after: f64| after - approach + (self.working(gap - after * dt, f) - start) / mass;
        if approach == 0.0 {
            return 0.0;
        }
        let (mut lo, mut hi) = if approach > 0.0 {
            (0.0, approach)
        } else {
            (approach, 0.0)
        };
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if g(mid) > 0.0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        0.5 * (lo + hi)
    }
}

/// Which films [`add_films`] adds, and over what.
pub(super) enum Held<'a> {
    /// Every film over the step (for the fluid's solve); with a list and the law's range `ρ`,
    /// a pair one of whose films reaches the law's contact within the step (`h₀ − u'Δt ≤ ρ`) is
    /// left out and named in the list (sorted), to be stepped with the law's sub-steps instead
    /// ([`Held::Only`]).
    Step(Option<(&'a mut Vec<(u32, u32)>, f64)>),
    /// Only the films of these pairs (sorted), each sub-step.
    Only(&'a [(u32, u32)]),
}

/// One film's loads over the step: its push along the normal (on `i`; `−` on `j`) and, with the
/// tangential part, its force on `i` and the couple on `i` about the film's point
/// ([`super::shear`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Push<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    normal: f64,
    shear: Vector<D>,
    couple: Angular<D>,
}

/// Adds the film force of the patches of `films` that `held` names to `force` and `torque`, in
/// the order of the films: the impulse of the film over the step `dt`
/// ([`Lubrication::stepped`]) over `dt`, or with `dt = 0` (forces looked at without a step) the
/// resistance times the approach speed; and with [`Lubrication::tangential`] the film's
/// resistance to the surfaces' sliding and turning ([`super::shear`]), stepped by
/// [`Lubrication::shear_stepped`]. With `fluid` (one per body; empty: dry) the step starts
/// from each body's free velocity at the step's end and its mass over the step, `m + D Δt`
/// ([`Surroundings`]); the walls move at `walls` ([`super::ContactSolver::wall_velocity`]).
/// `pushes` is scratch.
#[allow(clippy::too_many_arguments)]
pub(super) fn add_films<const D: usize>(
    film: &Lubrication,
    films: &[Contact<D>],
    (bodies, fluid, walls): (&[RigidBody<D>], &[Surroundings<D>], &Vector<D>),
    dt: f64,
    mut held: Held<'_>,
    pushes: &mut Vec<Push<D>>,
    force: &mut [Vector<D>],
    torque: &mut [Angular<D>],
) where
    Dim<D>: Kinematics<D>,
{
    let around = |k: u32| fluid.get(k as usize).copied().unwrap_or_else(Surroundings::dry);
    let none = Push {
        normal: 0.0,
        shear: Vector::<D>::zeros(),
        couple: <Dim<D> as Kinematics<D>>::zero(),
    };
    pushes.clear();
    for c in films {
        if let Held::Only(pairs) = &held {
            if pairs.binary_search(&(c.i, c.j)).is_err() {
                pushes.push(none);
                continue;
            }
        }
        let n = c.normal;
        let a = middle(c);
        let bi = &bodies[c.i as usize];
        let projector = SMatrix::<f64, D, D>::identity() - n * n.transpose();
        let k_i = projector * curvature(bi, &c.point_i) * projector;
        let mut k_j = SMatrix::<f64, D, D>::zeros();
        let mut radius = bi.geometry.radius;
        let (si, start) = (around(c.i), dt == 0.0);
        let mut compliance = along_normal(bi, &a, &n, si.resistance * dt);
        // Each side's velocity, free at the step's end in a fluid.
        let side_i = Side::of(bi, &si, dt);
        let mut side_j = Side::wall(walls);
        let bj = (c.j != WALL).then(|| c.other(bodies));
        if let Some(bj) = &bj {
            let sj = around(c.j);
            k_j = projector * curvature(bj, &c.point_j) * projector;
            radius = radius.min(bj.geometry.radius);
            compliance += along_normal(bj, &a, &n, sj.resistance * dt);
            side_j = Side::of(bj, &sj, dt);
        }
        let (v_i, v_j) = (side_i.at(&a), side_j.at(&a));
        // `u = −(v_i − v_j)·n`, positive while the gap closes.
        let approach = (v_j - v_i).dot(&n);
        let k = k_i + k_j;
        let mut push = none;
        push.normal = if start {
            film.resistance(c.gap, &k, radius) * approach
        } else {
            let mass = 1.0 / compliance;
            let after = film.stepped((c.gap, approach), (&k, radius), mass, dt);
            if let Held::Step(Some((deferred, range))) = &mut held {
                if c.gap - after * dt <= *range {
                    deferred.push((c.i, c.j));
                }
            }
            mass * (approach - after) / dt
        };
        if film.tangential {
            let slip = projector * (v_i - v_j);
            let spin = <Dim<D> as Kinematics<D>>::spin;
            let turn = projector * (spin(&side_j.spin, &n) - spin(&side_i.spin, &n));
            let s = film.shear_stepped(
                (c.gap, &n),
                (&k_i, &k_j),
                radius,
                (&side_i, &side_j),
                &a,
                (&slip, &turn),
                dt,
            );
            push.shear = s.force;
            push.couple = <Dim<D> as Kinematics<D>>::torque(&(-n), &s.moment);
        }
        pushes.push(push);
    }
    if let Held::Step(Some((d, _))) = &mut held {
        d.sort_unstable();
        d.dedup();
    }
    let deferred: &[(u32, u32)] = match &held {
        Held::Step(Some((d, _))) => d.as_slice(),
        _ => &[],
    };
    for (c, push) in films.iter().zip(pushes.iter()) {
        if (push.normal == 0.0 && push.shear == Vector::<D>::zeros()) || deferred.binary_search(&(c.i, c.j)).is_ok() {
            continue;
        }
        let a = middle(c);
        let f = c.normal * push.normal + push.shear;
        let bi = &bodies[c.i as usize];
        force[c.i as usize] += f;
        torque[c.i as usize] += <Dim<D> as Kinematics<D>>::torque(&(a - bi.position), &f) + push.couple;
        if c.j != WALL {
            let gj = bodies[c.j as usize].position + c.shift;
            force[c.j as usize] -= f;
            torque[c.j as usize] += <Dim<D> as Kinematics<D>>::torque(&(a - gj), &(-f)) - push.couple;
        }
    }
}

/// The film's point: halfway across the gap from `j`'s closest point along the normal (a wall's
/// contact names a node of `i`'s surface as its point, which may lie off the gap's lowest point
/// that its gap measures, by up to a node's spacing along the normal).
fn middle<const D: usize>(c: &Contact<D>) -> Point<D> {
    c.point_j + c.normal * (0.5 * c.gap)
}

/// Body `b`'s curvature tensor at its surface point nearest the world point `x`, in the world
/// frame: `R K Rᵀ`.
fn curvature<const D: usize>(b: &RigidBody<D>, x: &Point<D>) -> SMatrix<f64, D, D>
where
    Dim<D>: Kinematics<D>,
{
    let r = b.matrix();
    r * b.geometry.curvature_near(&b.to_body(x)) * r.transpose()
}

/// `1/(m + m_f) + (r × n)·J⁻¹(r × n)` with `r = a − G`: the inverse of the mass body `b` shows to
/// a force along `n` at `a`, in its own motion along `n` there, with `m_f` the fluid's share over
/// the step (`D Δt`; 0 dry).
fn along_normal<const D: usize>(b: &RigidBody<D>, a: &Point<D>, n: &Vector<D>, fluid: f64) -> f64
where
    Dim<D>: Kinematics<D>,
{
    let r = a - b.position;
    let rot = b.matrix();
    let second = rot * b.geometry.moments.second * rot.transpose() * b.density;
    let turn = <Dim<D> as Kinematics<D>>::inertia_solve(&second, &<Dim<D> as Kinematics<D>>::torque(&r, n));
    1.0 / (b.mass + fluid) + <Dim<D> as Kinematics<D>>::spin(&turn, &r).dot(n)
}
