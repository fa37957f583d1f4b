//! Derived fields for output: the velocity gradient recovered at the vertices, and the vorticity.
//!
//! The P2 velocity's gradient is discontinuous across cells; at a vertex it is taken as the
//! average over the cells around it, weighted by their measures (exact for a quadratic field, which
//! has the same gradient at the vertex from every cell); on a periodic mesh, over the cells
//! around the node and its images.

use super::field::FlowField;
use super::space::{Local, P2Space};
use crate::math::Vector;
use crate::mesh::SimplexMesh;
use nalgebra::SMatrix;
use rayon::prelude::*;

impl<const D: usize> FlowField<D> {
    /// The velocity gradient `G[d][e] = ∂_e u_d` at every vertex (measure-weighted cell average;
    /// across a periodic face, over the cells of the node and of its images alike).
    pub fn vertex_gradients(&self, mesh: &SimplexMesh<D>, space: &P2Space<D>) -> Vec<SMatrix<f64, D, D>> {
        let sums: Vec<(SMatrix<f64, D, D>, f64)> = (0..mesh.num_points() as u32)
            .into_par_iter()
            .map(|v| {
                let mut sum = SMatrix::<f64, D, D>::zeros();
                let mut weight = 0.0;
                for &c in mesh.cells_of_node(v) {
                    let local = mesh.cell(c).iter().position(|&x| x == v).unwrap_or(0);
                    let mut l = [0.0; 4];
                    l[local] = 1.0;
                    let Local { grad, measure, .. } = space.cell_map(mesh, c).at(&l);
                    for (k, &dof) in space.dofs(c).iter().enumerate() {
                        sum += self.velocity[dof as usize] * grad[k].transpose() * measure;
                    }
                    weight += measure;
                }
                (sum, weight)
            })
            .collect();
        let average = |(sum, weight): (SMatrix<f64, D, D>, f64)| sum / weight.max(f64::MIN_POSITIVE);
        if !space.period().any() {
            return sums.into_iter().map(average).collect();
        }
        // A node and its images share their vertex dof: add their cells' sums there.
        let mut by_dof = vec![(SMatrix::<f64, D, D>::zeros(), 0.0); space.vertices];
        for (v, (sum, weight)) in sums.iter().enumerate() {
            let k = space.vertex_dof(v as u32) as usize;
            by_dof[k].0 += sum;
            by_dof[k].1 += weight;
        }
        (0..mesh.num_points() as u32)
            .map(|v| average(by_dof[space.vertex_dof(v) as usize]))
            .collect()
    }

    /// The vorticity `∇ × u` at every vertex: in 2D the scalar `∂_x u_y − ∂_y u_x` (as the
    /// z-component of a vector), in 3D the vector.
    pub fn vorticity(&self, mesh: &SimplexMesh<D>, space: &P2Space<D>) -> Vec<Vector<3>> {
        self.vertex_gradients(mesh, space)
            .iter()
            .map(|g| {
                if D == 2 {
                    Vector::<3>::new(0.0, 0.0, g[(1, 0)] - g[(0, 1)])
                } else {
                    Vector::<3>::new(g[(2, 1)] - g[(1, 2)], g[(0, 2)] - g[(2, 0)], g[(1, 0)] - g[(0, 1)])
                }
            })
            .collect()
    }
}
