//! What differs between 2D and 3D rigid motion, behind one trait so that bodies, contact and the
//! time loop are written once.
//!
//! | | 2D | 3D |
//! |---|---|---|
//! | rotation | angle θ (radians, counter-clockwise) | unit quaternion q |
//! | angular velocity, torque | scalars ω, τ | vectors ω, τ |
//! | inertia about G | polar moment I = ρ tr S (a scalar) | tensor I = ρ (tr S 𝟙 − S) in the body frame |
//! | torque of F at r | r_x F_y − r_y F_x | r × F |
//! | Euler's equation | I ω̇ = τ | I_w ω̇ = τ − ω × I_w ω, I_w = R I Rᵀ |
//!
//! `S = ∫_B (x − G)(x − G)ᵀ` is the second-moment tensor of the body's region (see
//! [`crate::mesh::Moments`]).

use crate::math::Vector;
use nalgebra::{Matrix3, SMatrix, UnitQuaternion, Vector3};
use std::fmt::Debug;
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

/// The marker type of the `D`-dimensional space; `Dim<2>` and `Dim<3>` implement [`Kinematics`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim<const D: usize>;

/// A rotation of the body frame.
pub type Rotation<const D: usize> = <Dim<D> as Kinematics<D>>::Rotation;
/// An angular velocity, acceleration or torque.
pub type Angular<const D: usize> = <Dim<D> as Kinematics<D>>::Angular;
/// The inertia about the centre of mass, in the body frame.
pub type Inertia<const D: usize> = <Dim<D> as Kinematics<D>>::Inertia;

/// The dimension-dependent part of rigid-body motion.
pub trait Kinematics<const D: usize> {
    /// θ in 2D, a unit quaternion in 3D.
    type Rotation: Copy + Debug + PartialEq + Send + Sync;
    /// A scalar in 2D, a vector in 3D.
    type Angular: Copy
        + Debug
        + PartialEq
        + Send
        + Sync
        + Add<Output = Self::Angular>
        + Sub<Output = Self::Angular>
        + Neg<Output = Self::Angular>
        + Mul<f64, Output = Self::Angular>
        + AddAssign;
    /// A scalar in 2D, a symmetric tensor in 3D.
    type Inertia: Copy + Debug + PartialEq + Send + Sync;

    /// No rotation.
    fn identity() -> Self::Rotation;
    /// The zero angular quantity.
    fn zero() -> Self::Angular;
    /// The matrix `R` taking body-frame vectors to the world frame.
    fn matrix(r: &Self::Rotation) -> SMatrix<f64, D, D>;
    /// The torque of the force `f` applied at offset `r` from the centre of mass.
    fn torque(r: &Vector<D>, f: &Vector<D>) -> Self::Angular;
    /// `ω × r`: the velocity of a point at offset `r` due to the rotation.
    fn spin(w: &Self::Angular, r: &Vector<D>) -> Vector<D>;
    /// The part of `w` that rolls on a plane of normal `n`: `w` in 2D, `w − (w·n) n` in 3D (the
    /// twist about `n` taken out).
    fn rolling(w: &Self::Angular, n: &Vector<D>) -> Self::Angular;
    /// `|w|`.
    fn magnitude(w: &Self::Angular) -> f64;
    /// The inertia of a region with second-moment tensor `s` (about its centroid) and density `rho`.
    fn inertia(s: &SMatrix<f64, D, D>, rho: f64) -> Self::Inertia;
    /// `J w` with `J` the unit-density inertia of second-moment tensor `s` (world frame): `tr S w`
    /// in 2D, `(tr S 𝟙 − S) w` in 3D.
    fn inertia_times(s: &SMatrix<f64, D, D>, w: &Self::Angular) -> Self::Angular;
    /// `J⁻¹ t` for the same `J` (zero if `J` is singular).
    fn inertia_solve(s: &SMatrix<f64, D, D>, t: &Self::Angular) -> Self::Angular;
    /// The smallest principal moment of the same `J`: `tr S` in 2D, `tr S − λ_max(S)` in 3D.
    fn least_inertia(s: &SMatrix<f64, D, D>) -> f64;
    /// The angular acceleration `ω̇` of a body with body-frame inertia `i`, rotation `r` and angular
    /// velocity `w` under the torque `t` (Euler's equation in the world frame).
    fn angular_acceleration(
        i: &Self::Inertia,
        r: &Self::Rotation,
        w: &Self::Angular,
        t: &Self::Angular,
    ) -> Self::Angular;
    /// The rotation after turning at the constant world angular velocity `w` for a time `dt`:
    /// `θ + ω dt` in 2D, `exp(ω dt) q` in 3D.
    fn advance(r: &Self::Rotation, w: &Self::Angular, dt: f64) -> Self::Rotation;
    /// The kinetic energy of rotation `½ ωᵀ I_w ω`.
    fn rotational_energy(i: &Self::Inertia, r: &Self::Rotation, w: &Self::Angular) -> f64;
    /// The rotation's components as written to `bodies.csv`: `[θ]` in 2D, `[qw, qx, qy, qz]` in 3D.
    fn rotation_components(r: &Self::Rotation) -> Vec<f64>;
    /// The angular quantity's components: `[ω]` in 2D, `[ωx, ωy, ωz]` in 3D.
    fn angular_components(w: &Self::Angular) -> Vec<f64>;
    /// The rotation from the components a case file gives: `[θ]` (radians) in 2D; in 3D a rotation
    /// vector `[ax, ay, az]` (axis times angle), or `None` for a wrong count or a zero quaternion.
    fn rotation_from(components: &[f64]) -> Option<Self::Rotation>;
    /// The angular quantity from its components, `None` for a wrong count.
    fn angular_from(components: &[f64]) -> Option<Self::Angular>;
    /// The rotation from its stored components ([`Self::rotation_components`]), bit for bit (a
    /// checkpoint's rotation, not renormalised); `None` for a wrong count.
    fn rotation_exact(components: &[f64]) -> Option<Self::Rotation>;
}

impl Kinematics<2> for Dim<2> {
    type Rotation = f64;
    type Angular = f64;
    type Inertia = f64;

    fn identity() -> f64 {
        0.0
    }
    fn zero() -> f64 {
        0.0
    }
    fn matrix(r: &f64) -> SMatrix<f64, 2, 2> {
        let (s, c) = r.sin_cos();
        SMatrix::<f64, 2, 2>::new(c, -s, s, c)
    }
    fn torque(r: &Vector<2>, f: &Vector<2>) -> f64 {
        r.x * f.y - r.y * f.x
    }
    fn spin(w: &f64, r: &Vector<2>) -> Vector<2> {
        Vector::<2>::new(-w * r.y, w * r.x)
    }
    fn rolling(w: &f64, _n: &Vector<2>) -> f64 {
        *w
    }
    fn magnitude(w: &f64) -> f64 {
        w.abs()
    }
    fn inertia(s: &SMatrix<f64, 2, 2>, rho: f64) -> f64 {
        rho * s.trace()
    }
    fn inertia_times(s: &SMatrix<f64, 2, 2>, w: &f64) -> f64 {
        s.trace() * w
    }
    fn inertia_solve(s: &SMatrix<f64, 2, 2>, t: &f64) -> f64 {
        let j = s.trace();
        if j > 0.0 {
            t / j
        } else {
            0.0
        }
    }
    fn least_inertia(s: &SMatrix<f64, 2, 2>) -> f64 {
        s.trace()
    }
    fn angular_acceleration(i: &f64, _: &f64, _: &f64, t: &f64) -> f64 {
        t / i
    }
    fn advance(r: &f64, w: &f64, dt: f64) -> f64 {
        r + w * dt
    }
    fn rotational_energy(i: &f64, _: &f64, w: &f64) -> f64 {
        0.5 * i * w * w
    }
    fn rotation_components(r: &f64) -> Vec<f64> {
        vec![*r]
    }
    fn angular_components(w: &f64) -> Vec<f64> {
        vec![*w]
    }
    fn rotation_from(c: &[f64]) -> Option<f64> {
        (c.len() == 1).then(|| c[0])
    }
    fn angular_from(c: &[f64]) -> Option<f64> {
        (c.len() == 1).then(|| c[0])
    }
    fn rotation_exact(c: &[f64]) -> Option<f64> {
        (c.len() == 1).then(|| c[0])
    }
}

impl Kinematics<3> for Dim<3> {
    type Rotation = UnitQuaternion<f64>;
    type Angular = Vector3<f64>;
    type Inertia = Matrix3<f64>;

    fn identity() -> UnitQuaternion<f64> {
        UnitQuaternion::identity()
    }
    fn zero() -> Vector3<f64> {
        Vector3::zeros()
    }
    fn matrix(r: &UnitQuaternion<f64>) -> Matrix3<f64> {
        r.to_rotation_matrix().into_inner()
    }
    fn torque(r: &Vector<3>, f: &Vector<3>) -> Vector3<f64> {
        r.cross(f)
    }
    fn spin(w: &Vector3<f64>, r: &Vector<3>) -> Vector<3> {
        w.cross(r)
    }
    fn rolling(w: &Vector3<f64>, n: &Vector<3>) -> Vector3<f64> {
        w - n * w.dot(n)
    }
    fn magnitude(w: &Vector3<f64>) -> f64 {
        w.norm()
    }
    fn inertia(s: &Matrix3<f64>, rho: f64) -> Matrix3<f64> {
        (Matrix3::identity() * s.trace() - s) * rho
    }
    fn inertia_times(s: &Matrix3<f64>, w: &Vector3<f64>) -> Vector3<f64> {
        Self::inertia(s, 1.0) * w
    }
    fn inertia_solve(s: &Matrix3<f64>, t: &Vector3<f64>) -> Vector3<f64> {
        Self::inertia(s, 1.0)
            .cholesky()
            .map(|c| c.solve(t))
            .unwrap_or_else(Vector3::zeros)
    }
    fn least_inertia(s: &Matrix3<f64>) -> f64 {
        s.trace() - s.symmetric_eigenvalues().max()
    }
    fn angular_acceleration(
        i: &Matrix3<f64>,
        r: &UnitQuaternion<f64>,
        w: &Vector3<f64>,
        t: &Vector3<f64>,
    ) -> Vector3<f64> {
        let m = Self::matrix(r);
        let iw = m * i * m.transpose();
        let rhs = t - w.cross(&(iw * w));
        iw.cholesky().map(|c| c.solve(&rhs)).unwrap_or_else(Vector3::zeros)
    }
    fn advance(r: &UnitQuaternion<f64>, w: &Vector3<f64>, dt: f64) -> UnitQuaternion<f64> {
        UnitQuaternion::from_scaled_axis(w * dt) * r
    }
    fn rotational_energy(i: &Matrix3<f64>, r: &UnitQuaternion<f64>, w: &Vector3<f64>) -> f64 {
        let m = Self::matrix(r);
        0.5 * w.dot(&(m * i * m.transpose() * w))
    }
    fn rotation_components(r: &UnitQuaternion<f64>) -> Vec<f64> {
        vec![r.w, r.i, r.j, r.k]
    }
    fn angular_components(w: &Vector3<f64>) -> Vec<f64> {
        w.as_slice().to_vec()
    }
    fn rotation_from(c: &[f64]) -> Option<UnitQuaternion<f64>> {
        (c.len() == 3).then(|| UnitQuaternion::from_scaled_axis(Vector3::new(c[0], c[1], c[2])))
    }
    fn angular_from(c: &[f64]) -> Option<Vector3<f64>> {
        (c.len() == 3).then(|| Vector3::new(c[0], c[1], c[2]))
    }
    fn rotation_exact(c: &[f64]) -> Option<UnitQuaternion<f64>> {
        (c.len() == 4).then(|| UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(c[0], c[1], c[2], c[3])))
    }
}
