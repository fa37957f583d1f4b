//! A P1 field on a Kuhn lattice (see [`crate::mesh::generate::kuhn_lattice`]), evaluated without
//! point location: the point's cube is `⌊(x − lo)/h⌋`, and its simplex is the one whose axis
//! ordering sorts the fractional coordinates `t` in decreasing order, `t_σ0 ≥ t_σ1 ≥ …`. On that
//! simplex, with corners `v_0 = corner`, `v_k = v_{k−1} + e_σ(k−1)`, the P1 interpolant is
//!
//! ```text
//! u(x) = (1 − t_σ0) u_0 + Σ_{k=1}^{D−1} (t_σ(k−1) − t_σk) u_k + t_σ(D−1) u_D,
//! ∂u/∂x_σk = (u_{k+1} − u_k) / h.
//! ```
//!
//! This is exactly the P1 interpolant on the lattice mesh, at the cost of a sort of `D` numbers:
//! the evaluation a contact step does thousands of times.

use crate::math::{Point, Vector};

/// Values at the nodes of a cubic Kuhn lattice, with a constant value outside it.
#[derive(Debug, Clone, PartialEq)]
pub struct LatticeField<const D: usize> {
    /// The lattice's lower corner.
    pub lo: Point<D>,
    /// The grid spacing (the same along every axis).
    pub h: f64,
    /// Intervals per axis.
    pub n: [usize; D],
    /// One value per node, node `(i_0, …)` at `i_0 + (n_0 + 1)(i_1 + (n_1 + 1) i_2)`.
    pub values: Vec<f64>,
    /// The value outside the lattice.
    pub outside: f64,
}

impl<const D: usize> LatticeField<D> {
    /// The field's value and gradient at `x`; outside the lattice, `(outside, 0)`.
    #[inline]
    pub fn eval(&self, x: &Point<D>) -> (f64, Vector<D>) {
        let mut corner = 0usize;
        let mut stride = [0usize; D];
        let mut t = [0.0; D];
        let mut s = 1usize;
        for a in 0..D {
            let u = (x[a] - self.lo[a]) / self.h;
            if !(u >= 0.0 && u <= self.n[a] as f64) {
                return (self.outside, Vector::<D>::zeros());
            }
            let i = (u as usize).min(self.n[a] - 1);
            t[a] = u - i as f64;
            corner += i * s;
            stride[a] = s;
            s *= self.n[a] + 1;
        }
        let mut order: [usize; D] = std::array::from_fn(|a| a);
        order.sort_unstable_by(|&a, &b| t[b].total_cmp(&t[a]));
        let mut node = corner;
        let mut u_prev = self.values[node];
        let mut value = (1.0 - t[order[0]]) * u_prev;
        let mut grad = Vector::<D>::zeros();
        for k in 0..D {
            let a = order[k];
            node += stride[a];
            let u = self.values[node];
            let w = if k + 1 < D { t[a] - t[order[k + 1]] } else { t[a] };
            value += w * u;
            grad[a] = (u - u_prev) / self.h;
            u_prev = u;
        }
        (value, grad)
    }

    /// The field's value at `x` (see [`eval`](Self::eval)).
    #[inline]
    pub fn value(&self, x: &Point<D>) -> f64 {
        self.eval(x).0
    }

    /// The gradient by central differences of the interpolant over one spacing,
    /// `(u(x + h e_a) − u(x − h e_a)) / 2h`: it averages the piecewise constant P1 gradients of the
    /// cells around `x`, so on a smooth field its error is `O(h²)` instead of `O(h)`.
    pub fn smooth_gradient(&self, x: &Point<D>) -> Vector<D> {
        Vector::<D>::from_fn(|a, _| {
            let mut e = Vector::<D>::zeros();
            e[a] = self.h;
            (self.value(&(x + e)) - self.value(&(x - e))) / (2.0 * self.h)
        })
    }

    /// The field's value at `x` if `x` lies on the lattice (where the interpolant is
    /// `√D`-Lipschitz when the nodal values are exact distances); `None` outside it, where the
    /// field is the constant `outside`.
    #[inline]
    pub fn value_on_lattice(&self, x: &Point<D>) -> Option<f64> {
        let on = (0..D).all(|a| {
            let u = (x[a] - self.lo[a]) / self.h;
            u >= 0.0 && u <= self.n[a] as f64
        });
        on.then(|| self.value(x))
    }

    /// The lattice's upper corner.
    pub fn hi(&self) -> Point<D> {
        Point::<D>::from_fn(|a, _| self.lo[a] + self.h * self.n[a] as f64)
    }
}
