//! Convection by the method of characteristics (semi-Lagrangian): the velocity history of the BDF2
//! step is taken where the fluid came from rather than at the node, so that the convection term
//! disappears from the right-hand side and with it the CFL limit and the instability of explicit
//! Galerkin convection at high cell Reynolds numbers (Pironneau 1982; the BDF2 form of Ewing and
//! Russell, and of Boukir, Maday, Métivet and Razafindrakoto 1997).
//!
//! For the P2 dof at `x`, with `X₁` the foot at `t^k` of the characteristic through `(x, t^{k+1})`
//! and `X₂` its foot at `t^{k−1}`, the BDF2 step reads
//!
//! ```text
//! (3u^{k+1}(x) − 4u^k(X₁) + u^{k−1}(X₂))/(2Δt) − ν Δu^{k+1} + ∇p = f,
//! X₁ = x − Δt ū(x − (Δt/2) ū(x)),   ū = (3u^k − u^{k−1})/2  (the velocity at t^{k+1/2}),
//! X₂ = x − 2Δt u^k(x − Δt u^k(x)),
//! ```
//!
//! both feet by the midpoint rule (second order). The transported values are the P2 fields
//! evaluated at the feet (point location by a walk from the dof's own cell); the matrices stay
//! those of the Stokes step. A foot outside the mesh (a characteristic that left through a wall) is
//! pulled back towards `x` by halving until it is inside. Curved cells are located and evaluated
//! as straight ones: the difference is of the order of the cell's sag, at the boundary only.
//!
//! Inside the fictitious domain of rigid bodies ([`crate::sim::Immersed`]) this is what keeps the
//! high-Reynolds runs stable: a node released at a body's rear takes its history from inside the
//! body (the rigid velocity), a node captured at the front from the fluid it came from.

use super::space::{p2_values, P2Space};
use crate::math::{Periodicity, Point, Vector};
use crate::mesh::{CellPoint, SimplexMesh};
use rayon::prelude::*;

/// Halvings of a foot's displacement before giving up on finding it inside the mesh.
const PULL_BACKS: usize = 12;

/// The cell of every P2 dof from which its characteristics are searched, and the transported
/// velocities of the last step.
#[derive(Debug, Clone)]
pub(super) struct Characteristics<const D: usize> {
    hint: Vec<u32>,
    /// `u^k(X₁)` at every dof.
    current: Vec<Vector<D>>,
    /// `u^{k−1}(X₂)` at every dof.
    previous: Vec<Vector<D>>,
}

impl<const D: usize> Characteristics<D> {
    pub(super) fn new(mesh: &SimplexMesh<D>, space: &P2Space<D>) -> Self {
        let mut hint = vec![0; space.len()];
        for c in 0..mesh.num_cells() as u32 {
            for &k in space.dofs(c) {
                hint[k as usize] = c;
            }
        }
        mesh.locator_ready();
        Characteristics {
            hint,
            current: vec![Vector::<D>::zeros(); space.len()],
            previous: vec![Vector::<D>::zeros(); space.len()],
        }
    }

    /// `(u^k(X₁), u^{k−1}(X₂))` at every dof, computed in parallel over dofs (the result does
    /// not depend on the number of threads).
    pub(super) fn transport(
        &mut self,
        mesh: &SimplexMesh<D>,
        space: &P2Space<D>,
        current: &[Vector<D>],
        previous: &[Vector<D>],
        dt: f64,
    ) -> (&[Vector<D>], &[Vector<D>]) {
        let (x, hints) = (space.coordinates(), &self.hint);
        self.current
            .par_iter_mut()
            .zip(self.previous.par_iter_mut())
            .enumerate()
            .for_each(|(k, (a, b))| {
                let (x, hint) = (&x[k], hints[k]);
                let half = |k: usize| current[k] * 1.5 - previous[k] * 0.5;
                let mid = foot(mesh, space.period(), x, &(half(k) * (0.5 * dt)), hint);
                let v = interpolate(space, &mid, current) * 1.5 - interpolate(space, &mid, previous) * 0.5;
                *a = interpolate(space, &foot(mesh, space.period(), x, &(v * dt), mid.cell), current);
                let mid = foot(mesh, space.period(), x, &(current[k] * dt), hint);
                let v = interpolate(space, &mid, current);
                *b = interpolate(
                    space,
                    &foot(mesh, space.period(), x, &(v * (2.0 * dt)), mid.cell),
                    previous,
                );
            });
        (&self.current, &self.previous)
    }
}

/// The point `x − shift` located in the mesh (taken into the periodic cell of `period`), or the
/// nearest point inside along the segment from `x` found by halving the shift (`x` itself, in
/// cell `hint`, at worst). A foot on this side of the periodic faces is walked to from `hint`
/// and is outside as soon as the walk leaves the mesh ([`SimplexMesh::locate_near`]: a
/// characteristic that crosses a wall on its way is pulled back even where the point beyond
/// is inside again); one taken across them is located anywhere.
fn foot<const D: usize>(
    mesh: &SimplexMesh<D>,
    period: &Periodicity<D>,
    x: &Point<D>,
    shift: &Vector<D>,
    hint: u32,
) -> CellPoint {
    let mut s = *shift;
    for _ in 0..PULL_BACKS {
        let y = x - s;
        let wrapped = period.wrap(&y);
        let found = match wrapped == y {
            true => mesh.locate_near(&y, hint),
            false => mesh.locate_from(&wrapped, hint),
        };
        if let Some(found) = found {
            return found;
        }
        s *= 0.5;
    }
    CellPoint {
        cell: hint,
        weights: mesh.barycentric(hint, x),
    }
}

/// The P2 field `u` at a located point.
fn interpolate<const D: usize>(space: &P2Space<D>, at: &CellPoint, u: &[Vector<D>]) -> Vector<D> {
    let phi = p2_values::<D>(&at.weights);
    space
        .dofs(at.cell)
        .iter()
        .zip(&phi)
        .fold(Vector::<D>::zeros(), |s, (&k, w)| s + u[k as usize] * *w)
}
