//! The ghosts of [`BodyBoundary::Surface`](super::BodyBoundary::Surface): the constrained dofs
//! within a cell of a body's surface, whose rows hold the rigid motion not at the dof `x_k` but
//! at the surface point `x_s` closest to it, by quadratic extrapolation along the normal `n` from
//! two image points in the fluid, `x_s + δ n` and `x_s + 2δ n`. With `t = −depth, δ, 2δ` the three
//! points' abscissae along `n` (`depth = |x_k − x_s|`), the row is the Lagrange interpolant's
//! value at the surface:
//!
//! ```text
//! ℓ₀ u_k + ℓ₁ u_h(x_s + δ n) + ℓ₂ u_h(x_s + 2δ n) = U(x_s),
//! ℓ₀ = 2δ²/((δ + depth)(2δ + depth)),   ℓ₁ = 2 depth/(δ + depth),   ℓ₂ = −depth/(2δ + depth).
//! ```
//!
//! Where the second point is outside the mesh (a narrow gap to a wall) or inside another body
//! (a narrow gap to it) the row is linear, `w u_k + (1 − w) u_h(x_s + δ n) = U(x_s)`,
//! `w = δ/(δ + depth)`; where the first is, the row holds the rigid motion at the dof itself.
//! Two bodies' ghosts reading each other's rows across a gap under a cell, each an
//! extrapolation that amplifies what it reads, made the pair's flow diverge
//! (docs/validation.md, Brenner's two spheres). `δ` is half the dof's spacing
//! (the largest distance to another dof of its cells), so that `x_s + δ n` lies in or next to the
//! cells across the surface, and at least the ghost's depth (`x_s + δ n` is then at least its
//! mirror point, and `ℓ₀ ≥ 1/3`): a deeper ghost read from closer points amplified the fluid's
//! values until the run went unstable. Linear rows from a whole spacing made the bodies settle
//! too fast; the pressure's rows read the same two points ([`super::pressure`]).
//!
//! The rows ([`Rows`], the ghosts' part of the constraint's `B`) are built once a pose
//! ([`Work::stencil`]: two point locations a ghost, walking from one of its cells, and the P2
//! values there); [`Work::extrapolate`] sets the ghosts' values from them by Gauss–Seidel
//! sweeps, `O(entries)` each, at most [`SWEEPS`] a call.

use super::fit::Frame;
use super::Work;
use crate::body::{Dim, Kinematics};
use crate::fluid::space::p2_values;
use crate::fluid::P2Space;
use crate::math::{Point, Vector};
use crate::mesh::{CellPoint, SimplexMesh};

/// A constrained dof within a cell of its body's surface: its row holds the rigid motion at the
/// surface point `x_s` closest to it, extrapolated from the image points `x_s + δ n` and
/// `x_s + 2δ n` (the [module docs](self)).
#[derive(Debug, Clone, Copy)]
pub(super) struct Ghost<const D: usize> {
    /// Its position among the constrained dofs.
    pub(super) row: u32,
    /// `x_s`, the surface point closest to the dof (its target while the row extrapolates).
    pub(super) surface: Point<D>,
    /// `n`, the surface's outward normal at `x_s`.
    pub(super) normal: Vector<D>,
    /// `|x_k − x_s|`.
    pub(super) depth: f64,
    /// `δ`, the first image point's distance from the surface.
    pub(super) reach: f64,
    /// How many of the image points, `x_s + δ n` then `x_s + 2δ n`, lie outside every other
    /// body (2, 1 or 0): one inside another body reads that body's rows, not the fluid.
    pub(super) images: u8,
}

impl<const D: usize> Ghost<D> {
    /// The row's own weight and its image points' (`first` at `x_s + δ n`, `second` at
    /// `x_s + 2δ n` if inside the mesh).
    fn weights(&self, first: CellPoint, second: Option<CellPoint>) -> (f64, [Option<(CellPoint, f64)>; 2]) {
        let (d, r) = (self.depth, self.reach);
        match second {
            Some(second) => (
                2.0 * r * r / ((r + d) * (2.0 * r + d)),
                [Some((first, 2.0 * d / (r + d))), Some((second, -d / (2.0 * r + d)))],
            ),
            None => (r / (r + d), [Some((first, d / (r + d))), None]),
        }
    }
}

/// The ghosts and their rows `(position in the observed dofs, weight)`, ghost `i`'s in
/// `entries[start[i]..start[i + 1]]`, its own dof's first.
#[derive(Debug, Default)]
pub(super) struct Rows<const D: usize> {
    pub(super) list: Vec<Ghost<D>>,
    start: Vec<usize>,
    entries: Vec<(u32, f64)>,
}

impl<const D: usize> Rows<D> {
    /// `out = B v`: the rows' values from the values `v` at the observed dofs (a dof's own value,
    /// or a ghost's extrapolation to its surface point).
    pub(super) fn apply(&self, v: &[Vector<D>], out: &mut [Vector<D>]) {
        out.copy_from_slice(&v[..out.len()]);
        for (g, w) in self.list.iter().zip(self.start.windows(2)) {
            out[g.row as usize] = self.entries[w[0]..w[1]]
                .iter()
                .fold(Vector::<D>::zeros(), |s, &(j, c)| s + v[j as usize] * c);
        }
    }

    /// `v[row] /= w` for each ghost: `W⁻¹ v`, with `W` the rows' own weights.
    pub(super) fn unweight(&self, v: &mut [Vector<D>]) {
        for (g, &w) in self.list.iter().zip(&self.start) {
            v[g.row as usize] /= self.entries[w].1;
        }
    }
}

/// The most Gauss–Seidel sweeps that set the ghosts' values from their rows
/// ([`Work::extrapolate`], [`Work::extrapolate_pressure`]); they stop earlier when a sweep changes
/// no value by more than `SWEPT` of the largest. An image point half a spacing from the surface
/// often lies in a cell with other ghosts: a few sweeps left the rows unsatisfied, and Xia's
/// ellipse (`cases/xia_ellipse.toml`) went unstable.
pub(super) const SWEEPS: usize = 50;

/// The relative change at which the ghosts' sweeps stop.
pub(super) const SWEPT: f64 = 1e-12;

impl<const D: usize> Work<D>
where
    Dim<D>: Kinematics<D>,
{
    /// The ghosts' rows at the current pose: each image point located in the mesh and its cell's
    /// P2 values; `observed` gets the dofs they read. A ghost whose image point is outside the
    /// mesh holds the rigid motion at its own position.
    pub(super) fn stencil(&mut self, mesh: &SimplexMesh<D>, space: &P2Space<D>) {
        let m = self.dofs.len();
        self.observed.clear();
        self.observed.extend_from_slice(&self.dofs);
        let rows = &mut self.ghosts;
        rows.start.clear();
        rows.start.push(0);
        rows.entries.clear();
        for g in &rows.list {
            let row = g.row as usize;
            let k = self.dofs[row];
            let locate = |reach: f64| {
                let x = self.period.wrap(&(g.surface + g.normal * reach));
                mesh.locate_from(&x, self.cell_of[k as usize])
            };
            let first = if g.images >= 1 { locate(g.reach) } else { None };
            let second = if g.images >= 2 { locate(2.0 * g.reach) } else { None };
            match (first, second) {
                (Some(first), second) => {
                    let (own, images) = g.weights(first, second);
                    rows.entries.push((g.row, own));
                    for (at, c) in images.into_iter().flatten() {
                        for (&j, v) in space.dofs(at.cell).iter().zip(p2_values::<D>(&at.weights)) {
                            if self.slot[j as usize] == u32::MAX {
                                self.slot[j as usize] = self.observed.len() as u32;
                                self.observed.push(j);
                            }
                            rows.entries.push((self.slot[j as usize], c * v));
                        }
                    }
                }
                (None, _) => {
                    rows.entries.push((g.row, 1.0));
                    self.targets[row] = self.points[row];
                }
            }
            rows.start.push(rows.entries.len());
        }
        for &j in &self.observed[m..] {
            self.slot[j as usize] = u32::MAX;
        }
        self.pressure_stencil(mesh, space);
        self.target_frames.clear();
        for w in self.ranges.windows(2) {
            self.target_frames.push(Frame::new(&self.targets[w[0]..w[1]]));
        }
        self.stencil_ready = true;
    }

    /// Sets each ghost's value in `values` (at the observed dofs) to what its row extrapolates
    /// from the others when its body moves with `rigid(body, x)`,
    /// `u_k = (U(x_s) − Σ_j b_j u_j)/w`, by Gauss–Seidel sweeps to convergence ([`SWEEPS`];
    /// ghosts read each other). The ghosts' history is made so (at the step's start and a step back, from the same rows):
    /// their BDF2 difference is then the change of the fluid's slip along the body, not a jump
    /// from a rigid value to an extrapolated one, whose inertia `(3/(2Δt)) M (u_k − U)` would
    /// brake the body.
    pub(super) fn extrapolate(&mut self, values: &mut [Vector<D>], rigid: impl Fn(usize, &Point<D>) -> Vector<D>) {
        // The sweeps change only the fluid's part of each row: its rigid part is computed once.
        self.rigid.clear();
        self.rigid.extend(self.ghosts.list.iter().map(|g| {
            let row = g.row as usize;
            rigid(self.ranges.partition_point(|&r| r <= row) - 1, &self.targets[row])
        }));
        for _ in 0..SWEEPS {
            let (mut change, mut size) = (0.0f64, 0.0f64);
            for ((g, w), target) in self
                .ghosts
                .list
                .iter()
                .zip(self.ghosts.start.windows(2))
                .zip(&self.rigid)
            {
                let row = g.row as usize;
                let (own, rest) = (self.ghosts.entries[w[0]].1, &self.ghosts.entries[w[0] + 1..w[1]]);
                let read = rest
                    .iter()
                    .fold(Vector::<D>::zeros(), |s, &(j, c)| s + values[j as usize] * c);
                let u = (target - read) / own;
                change = change.max((u - values[row]).norm());
                size = size.max(u.norm());
                values[row] = u;
            }
            if change <= SWEPT * size {
                break;
            }
        }
    }
}
