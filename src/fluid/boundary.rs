//! The boundary conditions of a flow and all they turn into: [`BoundaryConditions`] (a velocity
//! `g(x, t)` or a pressure `p₀` on the facets of each marker, every boundary facet with one), the
//! velocity dofs they fix and the values there at a time, where the pressure is pinned, the load
//! of a prescribed pressure, and the conditions as a moving frame sees them. The steady system,
//! the pressure correction and the monolithic step all apply them from here:
//!
//! ```text
//! u = g(x, t)             on the velocity boundaries: their P2 dofs are prescribed (identity rows),
//! ν ∂u/∂n − p n = −p₀ n   on the pressure boundaries: the load −p₀ ∫_F φ_i n on their facets F.
//! ```
//!
//! A periodic face ([`BoundaryConditions::periodic`]) takes none: its dofs are its images'
//! ([`P2Space::periodic`]).
//!
//! Without a pressure boundary the pressure is defined up to a constant, and each scheme pins it:
//! the steady system and the monolithic step at one vertex
//! ([`BoundaryConditions::pressure_pin`]), the pressure correction through its increment
//! ([`BoundaryConditions::correction_pins`], which also holds the increment on the pressure
//! boundaries).
//!
//! Cost: the check is a pass over the boundary facets (a hash map of the marked ones); the fixed
//! dofs are found once, a pass over the marked facets per velocity condition; their values at a
//! time take one evaluation of `g` per fixed dof; the pressure load is a pass over the facets.

use super::error::FluidError;
use super::space::P2Space;
use crate::math::{Point, Vector};
use crate::mesh::SimplexMesh;
use std::sync::Arc;

/// Prescribed velocity on a boundary, a function of position and time (steady problems use
/// `t = 0`).
pub type VelocityData<const D: usize> = Arc<dyn Fn(&Point<D>, f64) -> Vector<D> + Send + Sync>;

/// Boundary conditions by facet marker; every boundary facet must get one.
#[derive(Clone, Default)]
pub struct BoundaryConditions<const D: usize> {
    /// Prescribed velocity (no-slip: zero; inflow: a profile) on the facets with each marker.
    pub velocity: Vec<(i32, VelocityData<D>)>,
    /// Prescribed pressure `p₀`, in the sense of the normal traction `ν ∂u/∂n − p n = −p₀ n`, on
    /// the facets with each marker (outflow: `p₀ = 0`).
    pub pressure: Vec<(i32, f64)>,
    /// The markers of periodic faces ([`crate::mesh::periodic`]): no condition, the flow there
    /// is the flow at their images (a [`P2Space::periodic`] identifies their dofs).
    pub periodic: Vec<i32>,
}

impl<const D: usize> BoundaryConditions<D> {
    /// Zero velocity on the facets marked `marker`.
    pub fn no_slip(mut self, marker: i32) -> Self {
        self.velocity
            .push((marker, Arc::new(|_: &Point<D>, _: f64| Vector::<D>::zeros())));
        self
    }

    /// Velocity `g(x, t)` on the facets marked `marker`.
    pub fn velocity(mut self, marker: i32, g: impl Fn(&Point<D>, f64) -> Vector<D> + Send + Sync + 'static) -> Self {
        self.velocity.push((marker, Arc::new(g)));
        self
    }

    /// The facets marked `marker` are a periodic face: no condition.
    pub fn periodic(mut self, marker: i32) -> Self {
        self.periodic.push(marker);
        self
    }

    /// Traction-free outflow on the facets marked `marker`: pressure 0.
    pub fn outflow(self, marker: i32) -> Self {
        self.pressure(marker, 0.0)
    }

    /// Pressure `p0` on the facets marked `marker` (a pressure drop between an inlet and an
    /// outlet is two such conditions).
    pub fn pressure(mut self, marker: i32, p0: f64) -> Self {
        self.pressure.push((marker, p0));
        self
    }

    /// Checks that every boundary facet of `mesh` has a condition (or is periodic), one only,
    /// and that every marker named exists: an error names the facet or the marker.
    pub fn check(&self, mesh: &SimplexMesh<D>) -> Result<(), FluidError> {
        let conditions = || {
            self.velocity
                .iter()
                .map(|(k, _)| *k)
                .chain(self.pressure.iter().map(|(k, _)| *k))
        };
        let named = |m: i32| conditions().any(|k| k == m) || self.periodic.contains(&m);
        for m in conditions().chain(self.periodic.iter().copied()) {
            if !mesh.facet_markers().contains(&m) {
                return Err(FluidError::Boundary(format!(
                    "a boundary condition names marker {}, which no facet carries",
                    mesh.facet_marker_label(m)
                )));
            }
        }
        if let Some(m) = conditions().find(|m| self.periodic.contains(m)) {
            return Err(FluidError::Boundary(format!(
                "the facets marked {} are periodic and have a condition too: a periodic face takes none",
                mesh.facet_marker_label(m)
            )));
        }
        // The marker of every marked facet, by its sorted nodes.
        let markers: std::collections::HashMap<[u32; D], i32> = mesh
            .facets()
            .iter()
            .zip(mesh.facet_markers())
            .map(|(f, &m)| {
                let mut key = *f;
                key.sort_unstable();
                (key, m)
            })
            .collect();
        for &face in mesh.boundary() {
            let nodes = mesh.face_nodes(face);
            let mut key = nodes;
            key.sort_unstable();
            match markers.get(&key) {
                Some(&m) if named(m) => {}
                Some(&m) => {
                    return Err(FluidError::Boundary(format!(
                        "the boundary facets marked {} have no condition",
                        mesh.facet_marker_label(m)
                    )))
                }
                None => {
                    return Err(FluidError::Boundary(format!(
                        "the boundary facet with nodes {nodes:?} (cell {}) has no marker, hence no condition",
                        face.cell
                    )))
                }
            }
        }
        Ok(())
    }

    /// These conditions as a moving frame sees them: `frame()` gives the frame's displacement `s`
    /// and velocity `c` in the lab at the moment a condition is evaluated (they may change from
    /// step to step), and each prescribed velocity `g(x, t)` of the lab becomes
    /// `g(x + s, t) − c`; pressures are unchanged (a Galilean change of frame, under which
    /// Navier–Stokes holds unchanged: [`crate::sim::Following`]).
    pub fn seen_from(self, frame: impl Fn() -> (Vector<D>, Vector<D>) + Send + Sync + 'static) -> Self {
        let frame = Arc::new(frame);
        let velocity = self
            .velocity
            .into_iter()
            .map(|(marker, g)| {
                let frame = Arc::clone(&frame);
                let moved: VelocityData<D> = Arc::new(move |x: &Point<D>, t: f64| {
                    let (shift, speed) = frame();
                    g(&(x + shift), t) - speed
                });
                (marker, moved)
            })
            .collect();
        BoundaryConditions {
            velocity,
            pressure: self.pressure,
            periodic: self.periodic,
        }
    }

    /// The P2 dofs each velocity condition fixes on `mesh` (an error names a marker no facet
    /// carries).
    pub fn velocity_dofs(&self, mesh: &SimplexMesh<D>, space: &P2Space<D>) -> Result<VelocityDofs, FluidError> {
        let mut fixed = vec![false; space.len()];
        let mut by_condition = Vec::with_capacity(self.velocity.len());
        for (marker, _) in &self.velocity {
            let dofs = space.boundary_dofs(mesh, &[*marker])?;
            for &k in &dofs {
                fixed[k as usize] = true;
            }
            by_condition.push(dofs);
        }
        Ok(VelocityDofs { by_condition, fixed })
    }

    /// The prescribed velocity at time `t`: `set(k, g(x_k, t))` for every dof `k` of `dofs` (from
    /// [`velocity_dofs`](Self::velocity_dofs)), condition after condition, so that a dof on two
    /// markers ends with the value of the last. An error names the condition, the point and the
    /// time of a value that is not finite.
    pub fn prescribe(
        &self,
        mesh: &SimplexMesh<D>,
        space: &P2Space<D>,
        dofs: &VelocityDofs,
        t: f64,
        mut set: impl FnMut(usize, &Vector<D>),
    ) -> Result<(), FluidError> {
        let coordinates = space.coordinates();
        for ((marker, g), dofs) in self.velocity.iter().zip(&dofs.by_condition) {
            for &k in dofs {
                let x = &coordinates[k as usize];
                let value = g(x, t);
                if value.iter().any(|v| !v.is_finite()) {
                    return Err(FluidError::condition(mesh, *marker, x, t, &value));
                }
                set(k as usize, &value);
            }
        }
        Ok(())
    }

    /// The vertex whose pressure is fixed to 0 (an identity row) in the steady system and the
    /// monolithic step, which solve for the pressure itself: without a pressure boundary it is
    /// defined up to a constant and their saddle-point matrices are singular until one value is
    /// set. `None` where a prescribed pressure sets the constant.
    pub fn pressure_pin(&self) -> Option<usize> {
        self.pressure.is_empty().then_some(0)
    }

    /// Whether the pressure correction's increment `φ` is fixed to 0 at each vertex dof. On the
    /// pressure boundaries' vertices: there the velocity step carries the traction of `p₀` and
    /// the correction must not move the pressure, whose rotational update `−ν ∇·ũ` brings it to
    /// `p₀` as the flow settles (resetting `φ = p₀ − p` there instead is unstable). Without a
    /// pressure boundary, at the [`pressure_pin`](Self::pressure_pin) alone: `φ` solves a Neumann
    /// problem, defined up to a constant.
    pub fn correction_pins(&self, mesh: &SimplexMesh<D>, space: &P2Space<D>) -> Vec<bool> {
        let mut fixed = vec![false; space.vertices];
        match self.pressure_pin() {
            Some(v) => fixed[v] = true,
            None => {
                for (f, m) in mesh.facets().iter().zip(mesh.facet_markers()) {
                    if self.pressure.iter().any(|(k, _)| k == m) {
                        for &v in f {
                            fixed[space.vertex_dof(v) as usize] = true;
                        }
                    }
                }
            }
        }
        fixed
    }

    /// Adds the load of the prescribed pressures, `−p₀ ∫_F φ_i n_d` for every facet `F` with a
    /// pressure marker, to `out` (component-major: `out[d n + i]`, `n` the number of P2 dofs); `n`
    /// is the outward normal. The integrals are exact: on a segment the P2 functions integrate to
    /// `|F|/6` (vertices) and `2|F|/3` (midpoint), on a triangle to 0 (vertices) and `|F|/3`
    /// (midpoints).
    pub fn add_pressure_load(&self, mesh: &SimplexMesh<D>, space: &P2Space<D>, out: &mut [f64]) {
        let n2 = space.len();
        let (vertex_weight, midpoint_weight) = if D == 2 {
            (1.0 / 6.0, 2.0 / 3.0)
        } else {
            (0.0, 1.0 / 3.0)
        };
        for (f, (nodes, marker)) in mesh.facets().iter().zip(mesh.facet_markers()).enumerate() {
            let Some(&(_, p0)) = self.pressure.iter().find(|(m, _)| m == marker) else {
                continue;
            };
            let mut normal = mesh.facet_area_normal(f as u32);
            // Orient it out of the domain: away from the cell's vertex off the facet.
            let cell = mesh.facet_cells()[f][0];
            if let Some(&opposite) = mesh.cell(cell).iter().find(|v| !nodes.contains(v)) {
                let p = mesh.points();
                if (p[opposite as usize] - p[nodes[0] as usize]).dot(&normal) > 0.0 {
                    normal = -normal;
                }
            }
            let mut add = |dof: u32, weight: f64| {
                for d in 0..D {
                    out[d * n2 + dof as usize] -= p0 * weight * normal[d];
                }
            };
            for &v in nodes {
                add(space.vertex_dof(v), vertex_weight);
            }
            for a in 0..D {
                for b in a + 1..D {
                    let (x, y) = (nodes[a], nodes[b]);
                    if let Some(dof) = space.edge_dof(x, y) {
                        add(dof, midpoint_weight);
                    }
                }
            }
        }
    }
}

/// The P2 dofs the velocity conditions fix ([`BoundaryConditions::velocity_dofs`]), found once per
/// mesh.
#[derive(Debug, Clone)]
pub struct VelocityDofs {
    /// Each velocity condition's dofs, in the order of [`BoundaryConditions::velocity`].
    by_condition: Vec<Vec<u32>>,
    /// Whether each P2 dof carries a velocity condition.
    fixed: Vec<bool>,
}

impl VelocityDofs {
    /// Whether each P2 dof carries a velocity condition.
    pub fn is_fixed(&self) -> &[bool] {
        &self.fixed
    }
}
