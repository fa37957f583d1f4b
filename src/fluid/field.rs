//! A flow on the Taylor–Hood spaces and what is read from it: [`FlowField`] (the velocity at
//! every P2 dof, the pressure at every vertex), the velocity and its gradient at a point of a
//! cell,
//!
//! ```text
//! u(x) = Σ_k u_k φ_k(x),   ∇u(x) = Σ_k u_k ∇φ_kᵀ(x)   (the cell's P2 dofs k),
//! ```
//!
//! the P1 pressure at a point (one point location, then `D + 1` weights) and the L2 errors
//! against an exact flow (a degree-6 quadrature on every cell).

use super::quadrature::Quadrature;
use super::space::{p2_count, Local, P2Space};
use crate::math::{Point, Vector};
use crate::mesh::SimplexMesh;

/// A Taylor–Hood solution: velocity at every P2 dof, pressure at every vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowField<const D: usize> {
    /// Velocity per P2 dof (vertices, then edge midpoints).
    pub velocity: Vec<Vector<D>>,
    /// Pressure per vertex.
    pub pressure: Vec<f64>,
}

/// A body force or any vector field given as a function of position.
pub type VectorField<'a, const D: usize> = &'a (dyn Fn(&Point<D>) -> Vector<D> + Sync);

/// The P2 field `velocity` and its gradient `G[d][e] = ∂_e u_d` at a point of a cell with P2 dofs
/// `dofs`, given the basis values `phi` and gradients `grad` there.
pub fn velocity_in_cell<const D: usize>(
    velocity: &[Vector<D>],
    dofs: &[u32],
    phi: &[f64; 10],
    grad: &[Vector<D>; 10],
) -> (Vector<D>, nalgebra::SMatrix<f64, D, D>) {
    let mut v = Vector::<D>::zeros();
    let mut g = nalgebra::SMatrix::<f64, D, D>::zeros();
    for (k, &dof) in dofs.iter().enumerate() {
        let u = velocity[dof as usize];
        v += u * phi[k];
        g += u * grad[k].transpose();
    }
    (v, g)
}

impl<const D: usize> FlowField<D> {
    /// The velocity and its gradient at a point of a cell (see [`velocity_in_cell`]).
    pub fn velocity_in_cell(
        &self,
        dofs: &[u32],
        phi: &[f64; 10],
        grad: &[Vector<D>; 10],
    ) -> (Vector<D>, nalgebra::SMatrix<f64, D, D>) {
        velocity_in_cell(&self.velocity, dofs, phi, grad)
    }

    /// The (P1) pressure at `x` (taken into the periodic cell), or `None` outside the mesh.
    pub fn pressure_at(&self, mesh: &SimplexMesh<D>, space: &P2Space<D>, x: &Point<D>) -> Option<f64> {
        let found = mesh.locate(&space.period().wrap(x))?;
        Some(
            space.dofs(found.cell)[..D + 1]
                .iter()
                .zip(&found.weights)
                .map(|(&v, w)| w * self.pressure[v as usize])
                .sum(),
        )
    }

    /// The L2 norms of `u_h − u` and of `p_h − p` (each pressure taken with zero mean, as the
    /// pressure is defined up to a constant), by a quadrature exact to degree 6 on each cell.
    pub fn l2_errors(
        &self,
        mesh: &SimplexMesh<D>,
        space: &P2Space<D>,
        u: &dyn Fn(&Point<D>) -> Vector<D>,
        p: &dyn Fn(&Point<D>) -> f64,
    ) -> (f64, f64) {
        let rule = Quadrature::<D>::exact_to(6);
        let (mut volume, mut mean_h, mut mean) = (0.0, 0.0, 0.0);
        let mut samples = Vec::new();
        let mut eu = 0.0;
        for c in 0..mesh.num_cells() as u32 {
            let map = space.cell_map(mesh, c);
            let dofs = space.dofs(c);
            let vertices = &dofs[..D + 1];
            for (l, w) in rule.points.iter().zip(&rule.weights) {
                let Local { x, phi, measure, .. } = map.at(l);
                let w = w * measure;
                let uh: Vector<D> = (0..p2_count(D)).map(|i| self.velocity[dofs[i] as usize] * phi[i]).sum();
                eu += w * (uh - u(&x)).norm_squared();
                let ph: f64 = (0..=D).map(|k| self.pressure[vertices[k] as usize] * l[k]).sum();
                let pe = p(&x);
                volume += w;
                mean_h += w * ph;
                mean += w * pe;
                samples.push((w, ph, pe));
            }
        }
        let (mean_h, mean) = (mean_h / volume, mean / volume);
        let ep: f64 = samples
            .iter()
            .map(|(w, ph, pe)| w * ((ph - mean_h) - (pe - mean)).powi(2))
            .sum();
        (eu.sqrt(), ep.sqrt())
    }
}
