//! The time step's integrals over the cells: the constant matrices, assembled once,
//!
//! ```text
//! M₂[i, j] = ∫ φ_i φ_j,   K₂[i, j] = ∫ ∇φ_i·∇φ_j,   B[q, d n₂ + i] = −∫ λ_q ∂_d φ_i,
//! M₁[q, r] = ∫ λ_q λ_r,   K₁[q, r] = ∫ ∇λ_q·∇λ_r      (φ: P2, λ: P1),
//! ```
//!
//! and the load of every step, `(f(t) − (u·∇)u, φ_i)` per cell, with the convection of the
//! extrapolated velocity or without it. The quadratures are exact on straight cells for the
//! matrices (degree 4, the P2 mass matrix's) and for the load's convection term (degree 5).
//!
//! Cost: the matrices are one pass over the cells (element matrices computed in parallel a block
//! of cells at a time, added in order); the load is a pass over the cells in parallel, each
//! writing its own `(D + 1)(D + 2)/2` vectors, which the caller scatters.

use super::field::velocity_in_cell;
use super::quadrature::Quadrature;
use super::space::{p2_count, Local, P2Space};
use super::unsteady::TimeField;
use crate::linalg::Csr;
use crate::math::Vector;
use crate::mesh::SimplexMesh;
use rayon::prelude::*;

/// `(f(t) − (u·∇)u, φ_i)` (without the convection term if `convection` is false) for the P2
/// functions of every cell, in parallel over cells into `out[c][i]` (the caller scatters them: no
/// thread needs a vector of the whole mesh).
pub(super) fn load<const D: usize>(
    space: &P2Space<D>,
    mesh: &SimplexMesh<D>,
    f: TimeField<D>,
    t: f64,
    u: &[Vector<D>],
    convection: bool,
    out: &mut [[Vector<D>; 10]],
) {
    let nb = p2_count(D);
    let rule = Quadrature::<D>::exact_to(5);
    out.par_iter_mut().enumerate().for_each(|(c, local)| {
        let c = c as u32;
        *local = [Vector::<D>::zeros(); 10];
        let map = space.cell_map(mesh, c);
        let dofs = space.dofs(c);
        for (l, w) in rule.points.iter().zip(&rule.weights) {
            let Local {
                x, phi, grad, measure, ..
            } = map.at(l);
            let mut value = f(&x, t);
            if convection {
                let (v, g) = velocity_in_cell(u, dofs, &phi, &grad);
                value -= g * v;
            }
            let value = value * (w * measure);
            for i in 0..nb {
                local[i] += value * phi[i];
            }
        }
    });
}

/// The constant matrices: P2 mass and stiffness (scalar), the divergence `B` (`n1 × D n2`,
/// `B[q, d n2 + i] = −∫ λ_q ∂_d φ_i`), P1 mass and stiffness.
pub(super) fn assemble_constant<const D: usize>(
    mesh: &SimplexMesh<D>,
    space: &P2Space<D>,
) -> (Csr, Csr, Csr, Csr, Csr) {
    let (n2, n1) = (space.len(), space.vertices);
    let nb = p2_count(D);
    let rule = Quadrature::<D>::exact_to(4);
    let cells = mesh.num_cells();
    let dofs = |c: usize, out: &mut Vec<u32>| out.extend_from_slice(space.dofs(c as u32));
    let vertices = |c: usize, out: &mut Vec<u32>| out.extend_from_slice(&space.dofs(c as u32)[..D + 1]);
    let components = |c: usize, out: &mut Vec<u32>| {
        let d = space.dofs(c as u32);
        out.extend((0..D).flat_map(|a| d.iter().map(move |&k| (a * n2) as u32 + k)));
    };
    let mut m2 = Csr::pattern(n2, n2, cells, dofs, dofs);
    let mut k2 = m2.clone();
    let mut b = Csr::pattern(n1, D * n2, cells, vertices, components);
    let mut m1 = Csr::pattern(n1, n1, cells, vertices, vertices);
    let mut k1 = m1.clone();
    /// A cell's element matrices: P2 mass and stiffness, the divergence's rows, P1 mass and
    /// stiffness.
    type Element = (
        [[f64; 10]; 10],
        [[f64; 10]; 10],
        [[[f64; 3]; 10]; 4],
        [[f64; 4]; 4],
        [[f64; 4]; 4],
    );
    // Element matrices computed in parallel a block of cells at a time, added in sequence (the
    // cells of a block share rows).
    const BLOCK: usize = 8192;
    let mut block: Vec<Element> = Vec::with_capacity(BLOCK);
    for first in (0..cells).step_by(BLOCK) {
        let last = (first + BLOCK).min(cells);
        (first..last)
            .into_par_iter()
            .map(|c| {
                let map = space.cell_map(mesh, c as u32);
                let mut e: Element = Default::default();
                let (m2, k2, b, m1, k1) = (&mut e.0, &mut e.1, &mut e.2, &mut e.3, &mut e.4);
                for (l, w) in rule.points.iter().zip(&rule.weights) {
                    let Local {
                        phi,
                        grad,
                        grad_l,
                        measure,
                        ..
                    } = map.at(l);
                    let w = w * measure;
                    for i in 0..nb {
                        for j in 0..nb {
                            m2[i][j] += w * phi[i] * phi[j];
                            k2[i][j] += w * grad[i].dot(&grad[j]);
                        }
                        for m in 0..=D {
                            for d in 0..D {
                                b[m][i][d] -= w * l[m] * grad[i][d];
                            }
                        }
                    }
                    for a in 0..=D {
                        for e in 0..=D {
                            m1[a][e] += w * l[a] * l[e];
                            k1[a][e] += w * grad_l[a].dot(&grad_l[e]);
                        }
                    }
                }
                e
            })
            .collect_into_vec(&mut block);
        for (c, (em2, ek2, eb, em1, ek1)) in (first..last).zip(&block) {
            let dofs = space.dofs(c as u32);
            let vertices = &dofs[..D + 1];
            for i in 0..nb {
                for j in 0..nb {
                    m2.add(dofs[i], dofs[j], em2[i][j]);
                    k2.add(dofs[i], dofs[j], ek2[i][j]);
                }
                for (m, &q) in vertices.iter().enumerate() {
                    for (d, &value) in eb[m][i][..D].iter().enumerate() {
                        b.add(q, (d * n2) as u32 + dofs[i], value);
                    }
                }
            }
            for (a, &va) in vertices.iter().enumerate() {
                for (e, &ve) in vertices.iter().enumerate() {
                    m1.add(va, ve, em1[a][e]);
                    k1.add(va, ve, ek1[a][e]);
                }
            }
        }
    }
    (m2, k2, b, m1, k1)
}
