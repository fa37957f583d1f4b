//! The force of the fluid on a marked boundary by the volume (weak-residual) formula: with `v_a`
//! the P2 function equal to the unit vector `e_a` at the boundary's dofs and zero elsewhere,
//!
//! ```text
//! F_a = −[ (∂u/∂t, v_a) + ν (∇u, ∇v_a) + ((u·∇)u, v_a) − (p, ∇·v_a) − (f, v_a) ],
//! ```
//!
//! which equals `∫ σ n_body · e_a` over the boundary for the exact solution (integrate the momentum
//! equation against `v_a` by parts) but converges at the order of the volume terms, faster than
//! differentiating the discrete solution on the boundary.

use super::error::FluidError;
use super::field::FlowField;
use super::quadrature::Quadrature;
use super::space::{p2_count, Local, P2Space};
use crate::math::{Point, Vector};
use crate::mesh::SimplexMesh;

/// The force of the flow (kinematic viscosity `nu`, body force `f`) on the facets marked `marker`, per unit
/// density; `acceleration` is `∂u/∂t` at the P2 dofs for an unsteady flow (`None`: steady). For a
/// force measured at every step, build a [`BoundaryForce`] once instead.
pub fn boundary_force<const D: usize>(
    mesh: &SimplexMesh<D>,
    space: &P2Space<D>,
    nu: f64,
    f: &(dyn Fn(&Point<D>) -> Vector<D> + Sync),
    flow: &FlowField<D>,
    acceleration: Option<&[Vector<D>]>,
    marker: i32,
) -> Result<Vector<D>, FluidError> {
    Ok(BoundaryForce::new(mesh, space, marker)?.compute(mesh, space, nu, f, flow, acceleration))
}

/// What the force on one boundary needs, found once: the P2 dofs on it and the cells touching it.
#[derive(Debug, Clone)]
pub struct BoundaryForce {
    on: Vec<bool>,
    cells: Vec<u32>,
}

impl BoundaryForce {
    /// The boundary of the facets marked `marker` (an unknown marker is an error naming it).
    pub fn new<const D: usize>(mesh: &SimplexMesh<D>, space: &P2Space<D>, marker: i32) -> Result<Self, FluidError> {
        let mut on = vec![false; space.len()];
        for k in space.boundary_dofs(mesh, &[marker])? {
            on[k as usize] = true;
        }
        let cells = (0..mesh.num_cells() as u32)
            .filter(|&c| space.dofs(c).iter().any(|&k| on[k as usize]))
            .collect();
        Ok(BoundaryForce { on, cells })
    }

    /// The force (see [`boundary_force`]).
    pub fn compute<const D: usize>(
        &self,
        mesh: &SimplexMesh<D>,
        space: &P2Space<D>,
        nu: f64,
        f: &(dyn Fn(&Point<D>) -> Vector<D> + Sync),
        flow: &FlowField<D>,
        acceleration: Option<&[Vector<D>]>,
    ) -> Vector<D> {
        let on = &self.on;
        let rule = Quadrature::<D>::exact_to(5);
        let nb = p2_count(D);
        let mut residual = Vector::<D>::zeros();
        for &c in &self.cells {
            let dofs = space.dofs(c);
            let map = space.cell_map(mesh, c);
            let vertices = &dofs[..D + 1];
            for (l, w) in rule.points.iter().zip(&rule.weights) {
                let Local {
                    x, phi, grad, measure, ..
                } = map.at(l);
                let w = w * measure;
                let (u, gu) = flow.velocity_in_cell(dofs, &phi, &grad);
                let pressure: f64 = (0..=D).map(|k| flow.pressure[vertices[k] as usize] * l[k]).sum();
                let mut inertia = gu * u - f(&x);
                if let Some(a) = acceleration {
                    inertia += dofs
                        .iter()
                        .zip(&phi)
                        .map(|(&k, &v)| a[k as usize] * v)
                        .sum::<Vector<D>>();
                }
                for i in (0..nb).filter(|&i| on[dofs[i] as usize]) {
                    // Test function e_a φ_i for every a at once: ν ∇u ∇φ_i + (conv − f) φ_i − p ∇φ_i.
                    residual += (gu * grad[i] * nu + inertia * phi[i] - grad[i] * pressure) * w;
                }
            }
        }
        -residual
    }
}
