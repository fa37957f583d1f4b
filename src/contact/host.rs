//! Host-mesh mode, for finite-element codes whose mesh follows the bodies (ALE, as in the
//! specification): the bodies' boundaries are marked facets of the host mesh, and the distance
//! fields are recomputed on it at every step, but only where they are needed.
//!
//! One call of [`HostContact::contacts`]:
//! 1. each body's boundary nodes (its marker's facets) and bounding sphere about its given centre;
//! 2. broad phase with margin `ρ` → candidate pairs;
//! 3. the wall field `D_Ω`, narrow band `ρ`, closest-point mode; a body is near a wall when one of
//!    its boundary nodes was reached;
//! 4. for each body `i` that is the first of a candidate pair, its field `D_i` with band `ρ` in
//!    closest-point mode (in parallel over bodies);
//! 5. pair `(i, j)`: the node of `∂B_j` with the smallest `D_i` is `x_j`; the exact projection of
//!    `x_j` on the facet of `∂B_i` it is closest to is `x_i`, and `d = |x_i − x_j|`. Walls: the same
//!    with `D_Ω` on `∂B_i` and the projection on the wall facet.
//!
//! The specification computes a whole-mesh field for every body and two fields per pair; here one
//! narrow band per body that has a neighbour, and one exact projection per contact replaces the
//! second field. Gaps are unsigned (a conforming host mesh cannot overlap). One contact per pair or
//! wall: the closest points.

use super::{Contact, ContactModel, ContactTimes, WALL};
use crate::broad::{BoundingSphere, BroadError, BroadPhase};
use crate::fmm::{distance_to_range, DistanceField, FmmError, FmmOptions, Front};
use crate::math::{self, Point, Vector};
use crate::mesh::{SimplexMesh, NONE};
use rayon::prelude::*;
use std::time::Instant;

/// What can stop a host-mesh contact step.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A marker the host mesh does not have, or a field that could not be computed.
    #[error("host mesh: {0}")]
    Fmm(#[from] FmmError),
    /// The broad phase refused the bounding spheres.
    #[error("broad phase: {0}")]
    Broad(#[from] BroadError),
    /// Wrong arguments.
    #[error("{0}")]
    Invalid(String),
}

/// Contact detection on a host mesh whose facets mark the bodies and the walls.
pub struct HostContact<const D: usize> {
    /// The parameters (the law's force is applied to the contacts by the caller, see
    /// [`ContactModel::force`]).
    pub model: ContactModel,
    bodies: Vec<i32>,
    /// Each body's boundary nodes (its marker's facets' nodes, sorted): the topology never changes.
    nodes: Vec<Vec<u32>>,
    walls: Vec<i32>,
    broad: Box<dyn BroadPhase<D>>,
    /// Time spent, per phase (`distance` includes the fast marching).
    pub times: ContactTimes,
    /// Body fields computed at the last call.
    pub fields: usize,
}

impl<const D: usize> HostContact<D> {
    /// Bodies marked `bodies` (one facet marker name per body) and walls marked `walls` on `mesh`.
    pub fn new(
        model: ContactModel,
        mesh: &SimplexMesh<D>,
        bodies: &[&str],
        walls: &[&str],
        broad: Box<dyn BroadPhase<D>>,
    ) -> Result<Self, HostError> {
        let marker = |name: &str| mesh.facet_marker(name).map_err(|e| HostError::Invalid(e.to_string()));
        let markers: Vec<i32> = bodies.iter().map(|n| marker(n)).collect::<Result<_, _>>()?;
        Ok(HostContact {
            model,
            nodes: markers.iter().map(|&m| marked_nodes(mesh, m)).collect(),
            bodies: markers,
            walls: walls.iter().map(|n| marker(n)).collect::<Result<_, _>>()?,
            broad,
            times: ContactTimes::default(),
            fields: 0,
        })
    }

    /// The contacts of the bodies, whose centres of mass are `centres`, on the host mesh as it is
    /// now (its nodes may have moved since the last call; its cells and markers must be those given
    /// to [`new`](Self::new)).
    pub fn contacts(&mut self, mesh: &SimplexMesh<D>, centres: &[Point<D>]) -> Result<Vec<Contact<D>>, HostError> {
        if centres.len() != self.bodies.len() {
            return Err(HostError::Invalid(format!(
                "{} centres for {} bodies",
                centres.len(),
                self.bodies.len()
            )));
        }
        let cut = self.model.range;
        let start = Instant::now();
        let nodes = &self.nodes;
        let spheres: Vec<BoundingSphere<D>> = nodes
            .iter()
            .zip(centres)
            .map(|(ns, c)| BoundingSphere {
                centre: *c,
                radius: ns
                    .iter()
                    .map(|&v| (mesh.points()[v as usize] - c).norm())
                    .fold(0.0, f64::max),
            })
            .collect();
        let mut pairs = Vec::new();
        if spheres.len() >= 2 {
            self.broad.update(&spheres, cut)?;
            self.broad.pairs(&mut pairs);
            pairs.sort_unstable();
        }
        let t1 = Instant::now();
        self.times.broad += (t1 - start).as_secs_f64();

        let options = FmmOptions {
            max_distance: Some(cut),
            default_value: None,
            signed: false,
            closest_point: true,
            curved_front: false,
        };
        let mut firsts: Vec<u32> = pairs.iter().map(|&(i, _)| i).collect();
        firsts.dedup();
        let fields: Vec<DistanceField<D>> = firsts
            .par_iter()
            .map(|&i| distance_to_range(mesh, &Front::Markers(vec![self.bodies[i as usize]]), &options))
            .collect::<Result<_, _>>()?;
        self.fields = fields.len();
        let mut out: Vec<Contact<D>> = pairs
            .par_iter()
            .filter_map(|&(i, j)| {
                let field = &fields[firsts.binary_search(&i).ok()?];
                // Seen from i's field: x_j on ∂B_j, x_i its projection on ∂B_i.
                let (xj, xi) = closest(mesh, field, &nodes[j as usize])?;
                Some(contact(i, j, xi, xj, centres[i as usize] - centres[j as usize]))
            })
            .collect();
        if !self.walls.is_empty() {
            let wall = distance_to_range(mesh, &Front::Markers(self.walls.clone()), &options)?;
            out.extend((0..self.bodies.len()).filter_map(|i| {
                let (xi, xw) = closest(mesh, &wall, &nodes[i])?;
                Some(contact(i as u32, WALL, xi, xw, centres[i] - xw))
            }));
        }
        self.times.distance += t1.elapsed().as_secs_f64();
        Ok(out)
    }
}

/// The contact between `x_i` and `x_j` (normal from `x_j` to `x_i`, or along `fallback`).
fn contact<const D: usize>(i: u32, j: u32, xi: Point<D>, xj: Point<D>, fallback: Vector<D>) -> Contact<D> {
    let r = xi - xj;
    Contact {
        i,
        j,
        point_i: xi,
        point_j: xj,
        gap: r.norm(),
        normal: r
            .try_normalize(1e-300)
            .or_else(|| fallback.try_normalize(1e-300))
            .unwrap_or_else(Vector::<D>::zeros),
    }
}

/// The node of `nodes` with the smallest value of `field` (reached nodes only) and its exact
/// projection on the front facet it is closest to.
fn closest<const D: usize>(
    mesh: &SimplexMesh<D>,
    field: &DistanceField<D>,
    nodes: &[u32],
) -> Option<(Point<D>, Point<D>)> {
    let closest = field.closest.as_ref()?;
    let v = nodes
        .iter()
        .copied()
        .filter(|&v| field.reached[v as usize] && closest[v as usize] != NONE)
        .min_by(|&a, &b| {
            field.values[a as usize]
                .total_cmp(&field.values[b as usize])
                .then(a.cmp(&b))
        })?;
    let x = mesh.points()[v as usize];
    let facet = &field.front_facets[closest[v as usize] as usize];
    Some((x, math::closest_point_on_facet::<D>(&x, facet)))
}

/// The nodes of the facets carrying `marker`, sorted.
fn marked_nodes<const D: usize>(mesh: &SimplexMesh<D>, marker: i32) -> Vec<u32> {
    let mut nodes: Vec<u32> = mesh
        .facets_marked(marker)
        .flat_map(|f| mesh.facets()[f as usize])
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    nodes
}
