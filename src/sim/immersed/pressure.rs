//! The pressure inside the bodies with [`BodyBoundary::Surface`](super::BodyBoundary::Surface).
//! At the vertices inside a body the pressure of the step's start is held
//! ([`Work::hold_pressure`]): their test functions see the cells whose divergence the rigid
//! motion and the ghosts set, not incompressibility, so the pressure correction would add the
//! same increment there step after step. At the ghost vertices it is extrapolated from the fluid
//! along the normal, from the two points the velocity's rows read ([`super::ghosts`]):
//!
//! ```text
//! p_k = p₁ + (p₁ − p₂) depth/δ,   p₁ = p_h(x_s + δ n),   p₂ = p_h(x_s + 2δ n),
//! ```
//!
//! `p_h` the pressure's P1 interpolant ([`PressureRows`], [`Work::pressure_stencil`]), so that
//! the cells across the surface see the fluid's pressure continued into the body. The rows are
//! built with the ghosts' (two point locations a ghost vertex) and applied by at most
//! [`SWEEPS`] Gauss–Seidel sweeps a step, `O(entries)` each ([`Work::extrapolate_pressure`]).

use super::ghosts::{SWEEPS, SWEPT};
use super::Work;
use crate::body::{Dim, Kinematics};
use crate::fluid::{P2Space, Response};
use crate::math::Point;
use crate::mesh::SimplexMesh;

/// The ghost vertices' pressure rows at the current pose: vertex `vertex[i]` takes
/// `Σ w p_v` over `entries[start[i]..start[i + 1]]` (the linear extrapolation from the pressure's
/// P1 values in the image points' cells, [`Work::extrapolate_pressure`]).
#[derive(Debug, Default)]
pub(super) struct PressureRows {
    vertex: Vec<u32>,
    start: Vec<usize>,
    entries: Vec<(u32, f64)>,
}

impl<const D: usize> Work<D>
where
    Dim<D>: Kinematics<D>,
{
    /// Keeps the pressure at the vertices inside the bodies (restored after the step, before the
    /// ghosts' is extrapolated): their test functions see the cells whose divergence the rigid
    /// motion and the ghosts set, not incompressibility, so the pressure correction would add
    /// the same increment there step after step.
    pub(super) fn hold_pressure(&mut self, vertices: usize, pressure: &[f64]) {
        self.held_pressure.clear();
        if self.ghosts.list.is_empty() {
            return;
        }
        self.held_pressure.extend(
            self.dofs
                .iter()
                .filter(|&&k| (k as usize) < vertices)
                .map(|&k| (k, pressure[k as usize])),
        );
    }

    /// Restores the held pressure where a body still is (a vertex a body has left is fluid
    /// again and keeps its corrected pressure: restoring the held value there while `φ` keeps
    /// its increment made the pressure jump by `φ ~ 1/Δt` at every vertex the body uncovered),
    /// then extrapolates the ghosts' ([`Self::extrapolate_pressure`]); after a step, and between
    /// its passes (where every held vertex is still in its body).
    pub(super) fn restore_pressure(&self, pressure: &mut [f64]) {
        if !self.stencil_ready {
            return;
        }
        for &(k, p) in &self.held_pressure {
            if self.slot[k as usize] != u32::MAX {
                pressure[k as usize] = p;
            }
        }
        self.extrapolate_pressure(pressure);
    }

    /// Releases the continuity of the vertices inside the bodies (with ghosts): there the rows
    /// set the divergence, and the pressure correction would carry what they leave into the
    /// fluid.
    pub(super) fn release_inside(&self, response: &mut Response<'_, D>, vertices: usize) {
        if !self.ghosts.list.is_empty() {
            response.release(self.dofs.iter().copied().filter(|&k| (k as usize) < vertices));
        }
    }

    /// The ghost vertices' pressure rows ([`PressureRows`]) at the current pose: the linear
    /// extrapolation along the normal from two points in the fluid, `x_s + δ n` and `x_s + 2δ n`,
    /// `p_k = p₁ + (p₁ − p₂) depth/δ`; where the second point is outside the mesh (a narrow gap
    /// to a wall) or inside another body, `p_k = p₁`, read where the first point is even when it
    /// is inside another body (a gap under half a spacing), whose rows continue the gap's
    /// pressure there. A vertex held at its step's start value instead, in a cluster of spheres
    /// (a gap of half a cell and two more under 1.2 cells), let the sphere's velocity alternate
    /// from step to step, doubling every two steps, until the flow diverged. A ghost whose first
    /// point is outside the mesh has no row (it keeps its held value).
    pub(super) fn pressure_stencil(&mut self, mesh: &SimplexMesh<D>, space: &P2Space<D>) {
        let vertices = space.vertices;
        let rows = &mut self.pressure_rows;
        rows.vertex.clear();
        rows.start.clear();
        rows.start.push(0);
        rows.entries.clear();
        for g in &self.ghosts.list {
            let row = g.row as usize;
            let k = self.dofs[row];
            if k as usize >= vertices {
                continue;
            }
            // Read from the surface point even where the first image point is inside another
            // body (whose velocity rows then hold the rigid motion at the dof, their target).
            let x_s = g.surface;
            let locate = |x: Point<D>| mesh.locate_from(&self.period.wrap(&x), self.cell_of[k as usize]);
            let Some(first) = locate(x_s + g.normal * g.reach) else {
                continue;
            };
            let second = locate(x_s + g.normal * (2.0 * g.reach)).filter(|_| g.images >= 2);
            let slope = if second.is_some() { g.depth / g.reach } else { 0.0 };
            for (at, scale) in [(Some(first), 1.0 + slope), (second, -slope)] {
                if let Some(at) = at {
                    let cell = &space.dofs(at.cell)[..D + 1];
                    rows.entries
                        .extend(cell.iter().zip(&at.weights).map(|(&v, w)| (v, scale * w)));
                }
            }
            rows.vertex.push(k);
            rows.start.push(rows.entries.len());
        }
    }

    /// Sets the ghost vertices' pressure by their rows ([`Self::pressure_stencil`]), by
    /// Gauss–Seidel sweeps to convergence ([`SWEEPS`]; an image point's cell may hold another
    /// ghost). The cells across the surface then see the fluid's pressure continued into the
    /// body, not a value the pressure correction builds from the divergence the ghosts leave
    /// there (which grew without bound in a closed container, and the body's speed drifted with
    /// it).
    pub(super) fn extrapolate_pressure(&self, pressure: &mut [f64]) {
        let rows = &self.pressure_rows;
        for _ in 0..SWEEPS {
            let (mut change, mut size) = (0.0f64, 0.0f64);
            for (&k, w) in rows.vertex.iter().zip(rows.start.windows(2)) {
                let p: f64 = rows.entries[w[0]..w[1]]
                    .iter()
                    .map(|&(v, c)| c * pressure[v as usize])
                    .sum();
                change = change.max((p - pressure[k as usize]).abs());
                size = size.max(p.abs());
                pressure[k as usize] = p;
            }
            if change <= SWEPT * size {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BodyBoundary, Immersed, ImmersedOptions};
    use crate::body::{BodyGeometry, RigidBody};
    use crate::broad::LinkedCell;
    use crate::contact::{ContactModel, ContactParameters, ContactSolver, Law};
    use crate::math::{Point, Vector};
    use crate::shape::Ball;
    use crate::sim::{Drag, Simulation};
    use std::sync::Arc;

    /// Two disks of radius 0.1 a quarter cell apart on a 40 × 40 grid of the unit square: some
    /// ghost vertices of each have their first image point inside the other disk. Each such
    /// vertex still gets a pressure row, which reads the fluid at `x_s + δ n` with weights summing
    /// to one (a vertex left to hold its step-start pressure there drove a period-two sawtooth in
    /// tight 3D clusters, docs/validation.md "Hindered settling").
    #[test]
    fn ghost_vertices_whose_first_image_is_in_another_body_get_pressure_rows() {
        let h = 1.0 / 40.0;
        let (mesh, fluid) = super::super::unit_square_fluid(40);
        let (a, gap) = (0.1, 0.25 * h);
        let disk = Ball {
            centre: Point::<2>::zeros(),
            radius: a,
        };
        let geometry = Arc::new(BodyGeometry::from_shape(&disk, 0.002, 0.02).unwrap());
        let at = |x: f64| Point::<2>::new(0.5 + x, 0.5 + 0.3 * h);
        let bodies = vec![
            RigidBody::new("left", geometry.clone(), 2.0, at(-a - 0.5 * gap)),
            RigidBody::new("right", geometry, 2.0, at(a + 0.5 * gap)),
        ];
        let model = ContactModel::new(&ContactParameters::repulsive(Law::Glowinski, 0.1 * gap, 1e-4)).unwrap();
        let contact = ContactSolver::new(model, Box::new(LinkedCell::<2>::default()));
        let sim = Simulation::new(bodies, None, Vector::<2>::new(0.0, -1.0), Drag::default(), contact);
        let options = ImmersedOptions {
            boundary: BodyBoundary::Surface,
            ..ImmersedOptions::new(1.0)
        };
        let mut c = Immersed::new(fluid, sim, options).unwrap();
        c.work.stencil(&mesh, c.fluid.space());
        let work = &c.work;
        let vertices = mesh.num_points() as u32;
        let blocked: Vec<u32> = work
            .ghosts
            .list
            .iter()
            .filter(|g| g.images == 0 && work.dofs[g.row as usize] < vertices)
            .map(|g| work.dofs[g.row as usize])
            .collect();
        println!(
            "{} ghost vertices with their first image point in the other disk",
            blocked.len()
        );
        assert!(
            blocked.len() >= 2,
            "the disks should block some ghost vertices' first image, got {blocked:?}"
        );
        let rows = &work.pressure_rows;
        for k in blocked {
            let i = rows
                .vertex
                .iter()
                .position(|&v| v == k)
                .unwrap_or_else(|| panic!("vertex {k} has no pressure row"));
            let sum: f64 = rows.entries[rows.start[i]..rows.start[i + 1]]
                .iter()
                .map(|&(_, w)| w)
                .sum();
            assert!((sum - 1.0).abs() < 1e-12, "vertex {k}: weights sum to {sum}");
        }
    }
}
