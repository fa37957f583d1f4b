//! The velocity dofs each body holds. At each pose [`Work::collect`] finds the free dofs where
//! the body's signed distance is `d ≤ 0` (the dofs within its bounding sphere, from a grid of
//! them, bodies in parallel: `O(dofs in the spheres)` distance evaluations), makes those within a
//! spacing of the surface ghosts with [`BodyBoundary::Surface`] (and which of a ghost's two image
//! points lie inside another body: the bodies within two spacings of each, `O(N²)` sphere tests a
//! pose, then their distances at the two points), takes each body's [`Frame`], and
//! carries the multipliers over from the dofs held before, less their rigid part (they stay
//! internal forces). In a periodic domain a body near a periodic face holds the dofs its image
//! across it covers, at their images next to the body (so that the fits and the loads see one
//! rigid motion). [`Work::share`] spreads a body's load, a force `F` at `G` and a torque `T`
//! (over `ρ_f`), over its dofs as equal parts plus the couple that keeps the load's moment about
//! their centroid `c`:
//!
//! ```text
//! f_k = F/|C_i| + ω × (x_k − c),   ω = J(S)⁻¹ ((G − c) × F + T),   O(|C_i|).
//! ```

use super::fit::{remove_rigid, Frame};
use super::ghosts::Ghost;
use super::{BodyBoundary, Work};
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::fluid::space::p2_count;
use crate::fluid::P2Space;
use crate::math::{Point, Vector};
use crate::sim::{PointGrid, SimError};
use rayon::prelude::*;

impl<const D: usize> Work<D>
where
    Dim<D>: Kinematics<D>,
{
    /// The work of `space`: each dof's spacing and one of its cells; ghosts if `boundary` is
    /// [`BodyBoundary::Surface`].
    pub(super) fn new(space: &P2Space<D>, boundary: BodyBoundary) -> Self {
        let surface = boundary == BodyBoundary::Surface;
        let position = space.coordinates();
        let n = if surface { space.len() } else { 0 };
        let (mut spacing, mut cell_of) = (vec![0.0f64; n], vec![0u32; n]);
        for (c, dofs) in space
            .cell_dofs
            .chunks_exact(p2_count(D))
            .enumerate()
            .filter(|_| surface)
        {
            for &k in dofs {
                // A cell across a periodic face has dofs on both sides: their nearest images.
                let far = dofs
                    .iter()
                    .map(|&j| {
                        space
                            .period()
                            .nearest(&(position[j as usize] - position[k as usize]))
                            .norm()
                    })
                    .fold(0.0, f64::max);
                spacing[k as usize] = spacing[k as usize].max(far);
                cell_of[k as usize] = c as u32;
            }
        }
        Work {
            spacing_max: spacing.iter().copied().fold(0.0, f64::max),
            spacing,
            cell_of,
            period: *space.period(),
            ..Work::default()
        }
    }

    /// The free dofs inside each body at its current pose, and which of them are ghosts.
    pub(super) fn collect(
        &mut self,
        grid: &PointGrid<D>,
        position: &[Point<D>],
        prescribed: &[bool],
        bodies: &[RigidBody<D>],
    ) -> Result<(), SimError> {
        if self.slot.len() != position.len() {
            self.slot = vec![u32::MAX; position.len()];
            self.by_dof = vec![Vector::<D>::zeros(); position.len()];
        }
        std::mem::swap(&mut self.held, &mut self.dofs);
        for &k in &self.held {
            self.slot[k as usize] = u32::MAX;
        }
        for (&k, m) in self.held.iter().zip(&self.multiplier) {
            self.by_dof[k as usize] = *m;
        }
        self.stencil_ready = false;
        self.dofs.clear();
        self.points.clear();
        self.targets.clear();
        self.ghosts.list.clear();
        self.ranges.clear();
        self.ranges.push(0);
        self.inside.resize_with(bodies.len(), Vec::new);
        let period = self.period;
        self.inside.par_iter_mut().zip(bodies).for_each(|(inside, b)| {
            inside.clear();
            // Across a periodic face the body's image `G + s` covers dofs `x` of the cell, whose
            // images `x − s` are in the body.
            let centre = period.wrap(&b.position);
            let into = centre - b.position;
            period.images(&centre, b.geometry.radius, |s| {
                grid.for_each_within(&(centre + s), b.geometry.radius, |k| {
                    let back = -(into + s);
                    if !prescribed[k as usize] {
                        let d = b.distance(&(position[k as usize] + back));
                        if d <= 0.0 {
                            inside.push((k, d, back));
                        }
                    }
                });
            });
            inside.sort_unstable_by_key(|&(k, ..)| k);
        });
        // The bodies near each (with ghosts): a ghost's image points lie within two spacings of
        // its body's surface, and one inside another body reads that body's rows, not the fluid.
        let margin = 2.0 * self.spacing_max;
        self.near.clear();
        self.near_start.clear();
        self.near_start.push(0);
        for (i, b) in bodies.iter().enumerate() {
            if !self.spacing.is_empty() {
                self.near.extend((0..bodies.len() as u32).filter_map(|j| {
                    // The nearest image of body `j`, and whether its sphere comes within `margin`.
                    let other = &bodies[j as usize];
                    let d = other.position - b.position;
                    let e = period.nearest(&d);
                    let reach = b.geometry.radius + other.geometry.radius + margin;
                    (j as usize != i && e.norm() <= reach).then_some((j, e - d))
                }));
            }
            self.near_start.push(self.near.len());
        }
        for (i, (b, inside)) in bodies.iter().zip(&self.inside).enumerate() {
            if inside.is_empty() {
                return Err(SimError::Outside {
                    body: b.name.clone(),
                    detail: format!(
                        "it holds no free velocity node of the fluid mesh (centre {:?}): refine the mesh or move it off the walls",
                        b.position.as_slice()
                    ),
                });
            }
            for &(k, d, back) in inside {
                let x = position[k as usize] + back;
                let mut target = x;
                let spacing = self.spacing.get(k as usize).copied().unwrap_or(0.0);
                if d > -spacing {
                    if let Some((s, normal)) = b.surface_point(&x) {
                        target = s;
                        let depth = (x - s).norm();
                        let reach = (0.5 * spacing).max(depth);
                        let near = &self.near[self.near_start[i]..self.near_start[i + 1]];
                        let fluid = |t: f64| {
                            let image = s + normal * t;
                            near.iter()
                                .all(|&(j, shift)| bodies[j as usize].distance(&(image - shift)) > 0.0)
                        };
                        let images = if !fluid(reach) {
                            0
                        } else if !fluid(2.0 * reach) {
                            1
                        } else {
                            2
                        };
                        self.ghosts.list.push(Ghost {
                            row: self.dofs.len() as u32,
                            surface: s,
                            normal,
                            depth,
                            reach,
                            images,
                        });
                    }
                }
                self.dofs.push(k);
                self.points.push(x);
                self.targets.push(target);
            }
            self.ranges.push(self.dofs.len());
        }
        self.frames.clear();
        for w in self.ranges.windows(2) {
            self.frames.push(Frame::new(&self.points[w[0]..w[1]]));
        }
        for (i, &k) in self.dofs.iter().enumerate() {
            self.slot[k as usize] = i as u32;
        }
        let mut multiplier = std::mem::take(&mut self.multiplier);
        multiplier.clear();
        multiplier.extend(self.dofs.iter().map(|&k| self.by_dof[k as usize]));
        remove_rigid(&self.ranges, &self.points, &self.frames, &mut multiplier);
        self.multiplier = multiplier;
        for &k in &self.held {
            self.by_dof[k as usize] = Vector::<D>::zeros();
        }
        Ok(())
    }

    /// Shares each body's load `loads[i] = (G, F, T)` (a force over `ρ_f` applied at `G`, and a
    /// torque over `ρ_f`) among its dofs, into `shares`: equal parts plus the couple that keeps
    /// the load's moment about the dofs' centroid (which is not exactly `G`).
    pub(super) fn share(&self, loads: &[(Point<D>, Vector<D>, Angular<D>)], shares: &mut Vec<Vector<D>>) {
        shares.resize(self.dofs.len(), Vector::<D>::zeros());
        for (body, (w, (centre, load, torque))) in self.ranges.windows(2).zip(loads).enumerate() {
            let points = &self.points[w[0]..w[1]];
            let Frame { centre: mean, second } = self.frames[body];
            let moment = <Dim<D> as Kinematics<D>>::torque(&(centre - mean), load) + *torque;
            let spin = <Dim<D> as Kinematics<D>>::inertia_solve(&second, &moment);
            let share = load / points.len() as f64;
            for (d, p) in shares[w[0]..w[1]].iter_mut().zip(points) {
                *d = share + <Dim<D> as Kinematics<D>>::spin(&spin, &(p - mean));
            }
        }
    }
}
