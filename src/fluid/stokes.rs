//! The steady Stokes problem with Taylor–Hood elements: find `u ∈ P2^D`, `p ∈ P1` with
//!
//! ```text
//! ν (∇u, ∇v) − (p, ∇·v) = (f, v)   for all v vanishing on the Dirichlet boundary,
//!            −(q, ∇·u) = 0         for all q,
//! ```
//!
//! and `u = g` on the Dirichlet boundary. Unknowns are ordered `u_x` (all P2 dofs), `u_y` (`u_z`),
//! then `p`. Dirichlet rows are replaced by identity rows; when the whole boundary is Dirichlet the
//! pressure is defined up to a constant and its first dof is pinned to 0. The system is assembled in
//! parallel (per cell, then summed) and solved by faer's sparse LU.

use super::quadrature::Quadrature;
use super::space::{barycentric_gradients, p2_count, p2_gradients, p2_values, P2Space};
use crate::math::{Point, Vector};
use crate::mesh::{MeshError, SimplexMesh};
use faer::prelude::*;
use faer::sparse::{SparseColMat, Triplet};
use rayon::prelude::*;

/// What can go wrong in a fluid solve.
#[derive(Debug, thiserror::Error)]
pub enum FluidError {
    /// A marker the mesh does not have.
    #[error("{0}")]
    Mesh(#[from] MeshError),
    /// The linear solver failed (a singular system: a boundary without conditions, say).
    #[error("the linear solver failed: {0}")]
    Solve(String),
}

/// A Taylor–Hood solution: velocity at every P2 dof, pressure at every vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowField<const D: usize> {
    /// Velocity per P2 dof (vertices, then edge midpoints).
    pub velocity: Vec<Vector<D>>,
    /// Pressure per vertex.
    pub pressure: Vec<f64>,
}

/// Solves the steady Stokes problem on `mesh` with viscosity `nu`, body force `f` and velocity
/// `g` on the facets marked `dirichlet`.
pub fn solve_stokes<const D: usize>(
    mesh: &SimplexMesh<D>,
    space: &P2Space<D>,
    nu: f64,
    f: &(dyn Fn(&Point<D>) -> Vector<D> + Sync),
    dirichlet: &[i32],
    g: &(dyn Fn(&Point<D>) -> Vector<D> + Sync),
) -> Result<FlowField<D>, FluidError> {
    let n2 = space.len();
    let n1 = mesh.num_points();
    let size = D * n2 + n1;
    let nb = p2_count(D);
    let rule = Quadrature::<D>::exact_to(4);
    type Part = (Vec<Triplet<usize, usize, f64>>, Vec<(usize, f64)>);
    let (mut triplets, rhs_parts): (Vec<_>, Vec<_>) = (0..mesh.num_cells() as u32)
        .into_par_iter()
        .map(|c| {
            let p = mesh.cell_points(c);
            let (grad_l, measure) = barycentric_gradients::<D>(&p[..D + 1]);
            let dofs = space.dofs(c);
            let vertices = mesh.cell(c);
            let mut a = [[0.0; 10]; 10];
            let mut b = [[[0.0; 3]; 10]; 4];
            let mut load = [Vector::<D>::zeros(); 10];
            for (l, w) in rule.points.iter().zip(&rule.weights) {
                let w = w * measure;
                let phi = p2_values::<D>(l);
                let grad = p2_gradients::<D>(l, &grad_l);
                let x: Point<D> = (0..=D).map(|k| p[k] * l[k]).sum();
                let fx = f(&x);
                for i in 0..nb {
                    load[i] += fx * (w * phi[i]);
                    for j in 0..nb {
                        a[i][j] += w * nu * grad[i].dot(&grad[j]);
                    }
                    for m in 0..=D {
                        for d in 0..D {
                            b[m][i][d] -= w * l[m] * grad[i][d];
                        }
                    }
                }
            }
            let mut t = Vec::with_capacity(D * nb * nb + 2 * D * (D + 1) * nb);
            for i in 0..nb {
                for j in 0..nb {
                    for d in 0..D {
                        t.push(Triplet::new(
                            d * n2 + dofs[i] as usize,
                            d * n2 + dofs[j] as usize,
                            a[i][j],
                        ));
                    }
                }
                for (m, &vertex) in vertices.iter().enumerate() {
                    let q = D * n2 + vertex as usize;
                    for (d, &value) in b[m][i][..D].iter().enumerate() {
                        let u = d * n2 + dofs[i] as usize;
                        t.push(Triplet::new(q, u, value));
                        t.push(Triplet::new(u, q, value));
                    }
                }
            }
            let r = (0..nb)
                .flat_map(|i| (0..D).map(move |d| (d * n2 + dofs[i] as usize, load[i][d])))
                .collect();
            (t, r) as Part
        })
        .unzip();
    let mut rhs = vec![0.0; size];
    for part in rhs_parts {
        for (k, v) in part {
            rhs[k] += v;
        }
    }

    // Dirichlet rows: identity, right-hand side g at the dof.
    let fixed = space.boundary_dofs(mesh, dirichlet)?;
    let coords = space.coordinates(mesh);
    let mut is_fixed = vec![false; size];
    for &k in &fixed {
        let value = g(&coords[k as usize]);
        for d in 0..D {
            let row = d * n2 + k as usize;
            is_fixed[row] = true;
            rhs[row] = value[d];
        }
    }
    let all_dirichlet = mesh.facet_markers().iter().all(|m| dirichlet.contains(m));
    if all_dirichlet {
        is_fixed[D * n2] = true;
        rhs[D * n2] = 0.0;
    }
    let mut entries: Vec<Triplet<usize, usize, f64>> = Vec::new();
    for part in triplets.iter_mut() {
        entries.extend(part.drain(..).filter(|t| !is_fixed[t.row]));
    }
    entries.extend((0..size).filter(|&k| is_fixed[k]).map(|k| Triplet::new(k, k, 1.0)));
    let matrix = SparseColMat::<usize, f64>::try_new_from_triplets(size, size, &entries)
        .map_err(|e| FluidError::Solve(format!("{e:?}")))?;
    let lu = matrix.sp_lu().map_err(|e| FluidError::Solve(format!("{e:?}")))?;
    let x = lu.solve(Col::<f64>::from_fn(size, |k| rhs[k]));
    Ok(FlowField {
        velocity: (0..n2).map(|k| Vector::<D>::from_fn(|d, _| x[d * n2 + k])).collect(),
        pressure: (0..n1).map(|k| x[D * n2 + k]).collect(),
    })
}

impl<const D: usize> FlowField<D> {
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
            let pts = mesh.cell_points(c);
            let (_, measure) = barycentric_gradients::<D>(&pts[..D + 1]);
            let dofs = space.dofs(c);
            let vertices = mesh.cell(c);
            for (l, w) in rule.points.iter().zip(&rule.weights) {
                let w = w * measure;
                let x: Point<D> = (0..=D).map(|k| pts[k] * l[k]).sum();
                let phi = p2_values::<D>(l);
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
