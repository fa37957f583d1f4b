//! Host-mesh mode, for finite-element codes whose mesh follows the bodies (ALE, as in the
//! specification): the bodies' boundaries are marked facets of the host mesh, and the distance
//! fields are recomputed on it at every step, but only where they are needed.
//!
//! One call of [`HostContact::contacts`]:
//! 1. each body's boundary nodes (the facets of its tag) and bounding sphere about its given
//!    centre;
//! 2. broad phase with margin `ρ` → candidate pairs;
//! 3. for each body `i` that is the first of a candidate pair, its field `D_i` with band `ρ` in
//!    closest-point mode (in parallel over bodies);
//! 4. pair `(i, j)`: every node `x_k` of `∂B_j` that `D_i` reached is projected exactly on the facet
//!    of `∂B_i` the march found closest, `p_k`, at the distance `d_k = |x_k − p_k|`; the nodes with
//!    `d_k ≤ ρ` are the probes;
//! 5. the walls: the field `D_Ω` of the wall tags, band `ρ`, and the same with each body's nodes as
//!    probes and the wall facets as the other side.
//!
//! The probes become contacts as the law says ([`super::Law::detection`]):
//! - closest points (`spec`): the probe with the smallest `d_k`, one contact at `x_k` and `p_k`;
//! - patches (`glowinski`: the one holding the closest probe; `patches`: every one): the probes
//!   are grouped into patches connected along the edges of the probed surface's facets, and each
//!   patch is one contact whose gap is its smallest `d_k` and whose points are its centres of
//!   pressure `Σ w_k x_k / Σ w_k` and `Σ w_k p_k / Σ w_k` with `w_k = a_k (ρ − d_k)²` (`a_k` the
//!   node's share of the surface), as in body-frame mode ([`super::patch_contacts`]). The normal is
//!   along the line between the two centres, so that the law's force, applied anywhere on that
//!   line, has the same torque.
//!
//! Each contact also keeps its **load shares**: the weights `w_k / Σ w` on the probed nodes and
//! the same weights times the facet coordinates of `p_k` on the nodes of the facets they fall on.
//! [`HostContact::node_loads`] spreads each contact's force over them, so that the loads on a
//! body's nodes sum to its force and their moments to its torque, for a host that puts the
//! contact into its weak form.
//!
//! Gaps are the distances `d_k`, which on a host mesh are never negative: a conforming mesh
//! without an inverted cell (which [`SimplexMesh::new`] and [`SimplexMesh::with_points`] refuse)
//! keeps the bodies apart. The specification computes a whole-mesh field for every body and two
//! fields per pair; here one narrow band per body that has a neighbour, and one exact projection
//! per probe replaces the second field.

use super::gap::{for_each_patch, Probe, Scratch};
use super::{accumulate, Contact, ContactModel, ContactTimes, Detection, WALL};
use crate::body::{Angular, Dim, Kinematics};
use crate::broad::{BoundingSphere, BroadError, BroadPhase};
use crate::fmm::{distance_to_range, DistanceField, FmmError, FmmOptions, Front};
use crate::math::{self, Point, Vector};
use crate::mesh::{SimplexMesh, NONE};
use rayon::prelude::*;
use std::time::Instant;

/// Why the host-mesh mode refuses the collision law.
pub const COLLISION_ON_A_HOST_MESH: &str = "the collision law needs the bodies' masses and velocities, which a host \
                                            mesh does not give; use spec, glowinski or patches here";

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
    /// A force law the host-mesh mode cannot compute.
    #[error("law: {0}")]
    Law(String),
}

/// Contact detection on a host mesh whose facets mark the bodies and the walls.
///
/// ```
/// use tumble::broad::BruteForce;
/// use tumble::contact::{ContactModel, ContactParameters, HostContact, Law, WALL};
/// use tumble::math::{Point, Vector};
/// use tumble::mesh::generate::{ball, Sphere};
///
/// // A disk of radius 0.25 at 0.02 from the inside of a circle of radius 1, meshed conformingly
/// // at size 0.01: the disk's facets are tagged 1 ("disk"), the circle's 2 ("wall").
/// let centre = Point::<2>::new(0.0, -0.73);
/// let mesh = ball::<2>(&[Sphere::new(centre, 0.25, "disk"), Sphere::new(Point::<2>::zeros(), 1.0, "wall")], false, 0.01)?;
/// let model = ContactModel::new(&ContactParameters::repulsive(Law::Glowinski, 0.03, 1e-4)).unwrap();
/// let mut host = HostContact::from_markers(model, &mesh, &[1], &[2], Box::new(BruteForce::<2>::default()))?;
/// let contacts = host.contacts(&mesh, &[centre])?;
/// assert_eq!((contacts.len(), contacts[0].j), (1, WALL));
/// assert!((contacts[0].gap - 0.02).abs() < 1e-4);
/// // The force pushes the disk up, and the loads on its nodes sum to it.
/// let (mut force, mut torque) = ([Vector::<2>::zeros()], [0.0]);
/// host.forces(&mut force, &mut torque)?;
/// let mut loads = vec![Vector::<2>::zeros(); mesh.num_points()];
/// host.node_loads(&mut loads)?;
/// let on_disk: Vector<2> = mesh.facets_marked(1).flat_map(|f| mesh.facets()[f as usize]).collect::<std::collections::BTreeSet<_>>()
///     .into_iter().map(|v| loads[v as usize]).sum();
/// assert!(force[0].y > 0.0 && (on_disk - force[0]).norm() < 1e-12 * force[0].norm());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct HostContact<const D: usize> {
    /// The parameters (the law, its range and stiffnesses).
    pub model: ContactModel,
    surfaces: Vec<Surface>,
    /// The wall facets in the order of the wall field's front (ascending).
    walls: Vec<u32>,
    wall_tags: Vec<i32>,
    broad: Box<dyn BroadPhase<D>>,
    /// The mesh's node and marked-facet counts, which a moved mesh must keep.
    sizes: (usize, usize),
    /// Each body's centre and bounding radius at the last call.
    spheres: Vec<(Point<D>, f64)>,
    contacts: Vec<Contact<D>>,
    /// The load shares of contact `k`: `shares[ends[k − 1]..ends[k]]`, `(node, s)`: the node takes
    /// `s F` of the contact's force `F` on body `i` (negative `s` on the other side).
    ends: Vec<u32>,
    shares: Vec<(u32, f64)>,
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
        let bodies: Vec<i32> = bodies.iter().map(|n| marker(n)).collect::<Result<_, _>>()?;
        let walls: Vec<i32> = walls.iter().map(|n| marker(n)).collect::<Result<_, _>>()?;
        Self::from_markers(model, mesh, &bodies, &walls, broad)
    }

    /// Bodies marked by the facet tags `bodies` (one per body, as Gmsh's physical groups number
    /// them) and walls marked by the tags `walls`. A tag that marks no facet, or that two bodies
    /// or a body and the walls share, is an error naming it; so is the collision law, whose
    /// force needs the bodies' masses and velocities, which a host mesh does not give.
    pub fn from_markers(
        model: ContactModel,
        mesh: &SimplexMesh<D>,
        bodies: &[i32],
        walls: &[i32],
        broad: Box<dyn BroadPhase<D>>,
    ) -> Result<Self, HostError> {
        if model.collision.is_some() {
            return Err(HostError::Law(COLLISION_ON_A_HOST_MESH.into()));
        }
        let known = || {
            let mut tags: Vec<i32> = mesh.facet_markers().to_vec();
            tags.sort_unstable();
            tags.dedup();
            tags
        };
        for (k, &tag) in bodies.iter().enumerate() {
            if bodies[..k].contains(&tag) {
                return Err(HostError::Invalid(format!(
                    "body {k}: tag {tag} is also body {}'s; each body needs its own",
                    bodies.iter().position(|&t| t == tag).unwrap_or(0)
                )));
            }
            if walls.contains(&tag) {
                return Err(HostError::Invalid(format!("body {k}: tag {tag} is also a wall tag")));
            }
        }
        let surfaces: Vec<Surface> = bodies.iter().map(|&tag| Surface::new(mesh, tag)).collect();
        let empty = |what: String, tag: i32| {
            HostError::Invalid(format!(
                "{what}: tag {tag} marks no facet of the host mesh (its facet tags: {:?})",
                known()
            ))
        };
        if let Some(k) = surfaces.iter().position(|s| s.nodes.is_empty()) {
            return Err(empty(format!("body {k}"), bodies[k]));
        }
        if let Some(&tag) = walls.iter().find(|&&t| mesh.facets_marked(t).next().is_none()) {
            return Err(empty("walls".into(), tag));
        }
        Ok(HostContact {
            model,
            surfaces,
            walls: marked_facets(mesh, walls),
            wall_tags: walls.to_vec(),
            broad,
            sizes: (mesh.num_points(), mesh.facets().len()),
            spheres: Vec::new(),
            contacts: Vec::new(),
            ends: Vec::new(),
            shares: Vec::new(),
            times: ContactTimes::default(),
            fields: 0,
        })
    }

    /// The number of bodies.
    pub fn num_bodies(&self) -> usize {
        self.surfaces.len()
    }

    /// The number of the host mesh's nodes (the length [`node_loads`](Self::node_loads) fills).
    pub fn num_points(&self) -> usize {
        self.sizes.0
    }

    /// The contacts of the bodies, whose centres of mass are `centres`, on the host mesh as it is
    /// now (its nodes may have moved since the last call, see [`SimplexMesh::with_points`]; its
    /// cells and markers must be those given to [`from_markers`](Self::from_markers)). Pairs come
    /// in ascending order, then the walls' contacts by body; patches in the order of their first
    /// node.
    pub fn contacts(&mut self, mesh: &SimplexMesh<D>, centres: &[Point<D>]) -> Result<&[Contact<D>], HostError> {
        if centres.len() != self.surfaces.len() {
            return Err(HostError::Invalid(format!(
                "{} centres for {} bodies",
                centres.len(),
                self.surfaces.len()
            )));
        }
        if let Some(k) = centres.iter().position(|c| !c.iter().all(|x| x.is_finite())) {
            return Err(HostError::Invalid(format!(
                "body {k}: centre {:?} is not finite",
                centres[k].as_slice()
            )));
        }
        if (mesh.num_points(), mesh.facets().len()) != self.sizes {
            return Err(HostError::Invalid(format!(
                "the mesh has {} nodes and {} marked facets, but the contact was made for {} and {}",
                mesh.num_points(),
                mesh.facets().len(),
                self.sizes.0,
                self.sizes.1
            )));
        }
        let cut = self.model.range;
        let detection = self.model.law.detection();
        let start = Instant::now();
        let points = mesh.points();
        self.spheres.clear();
        self.spheres.extend(self.surfaces.iter().zip(centres).map(|(s, c)| {
            let radius = s
                .nodes
                .iter()
                .map(|&v| (points[v as usize] - c).norm())
                .fold(0.0, f64::max);
            (*c, radius)
        }));
        let mut pairs = Vec::new();
        if self.spheres.len() >= 2 {
            let spheres: Vec<BoundingSphere<D>> = self
                .spheres
                .iter()
                .map(|&(centre, radius)| BoundingSphere { centre, radius })
                .collect();
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
        let surfaces = &self.surfaces;
        let fields: Vec<DistanceField<D>> = firsts
            .par_iter()
            .map(|&i| distance_to_range(mesh, &Front::Markers(vec![surfaces[i as usize].tag]), &options))
            .collect::<Result<_, _>>()?;
        self.fields = fields.len();
        let search = Search {
            mesh,
            centres,
            cut,
            detection,
        };
        let mut found: Vec<Found<D>> = pairs
            .par_iter()
            .map_init(HostScratch::default, |scratch, &(i, j)| {
                let mut out = Found::default();
                if let Ok(k) = firsts.binary_search(&i) {
                    let other = Other {
                        field: &fields[k],
                        facets: &surfaces[i as usize].facets,
                    };
                    search.probe(&other, &surfaces[j as usize], (i, j), false, scratch, &mut out);
                }
                out
            })
            .collect();
        if !self.walls.is_empty() {
            let field = distance_to_range(mesh, &Front::Markers(self.wall_tags.clone()), &options)?;
            let other = Other {
                field: &field,
                facets: &self.walls,
            };
            found.extend(
                (0..surfaces.len() as u32)
                    .into_par_iter()
                    .map_init(HostScratch::default, |scratch, i| {
                        let mut out = Found::default();
                        search.probe(&other, &surfaces[i as usize], (i, WALL), true, scratch, &mut out);
                        out
                    })
                    .collect::<Vec<_>>(),
            );
        }
        self.contacts.clear();
        self.ends.clear();
        self.shares.clear();
        for f in found {
            let base = self.shares.len() as u32;
            self.contacts.extend(f.contacts);
            self.ends.extend(f.ends.iter().map(|&e| base + e));
            self.shares.extend(f.shares);
        }
        self.times.distance += t1.elapsed().as_secs_f64();
        Ok(&self.contacts)
    }

    /// The contacts found by the last call to [`contacts`](Self::contacts).
    pub fn last_contacts(&self) -> &[Contact<D>] {
        &self.contacts
    }

    /// The load shares of the last call's contact `k`: `(node, s)` pairs, the node taking `s F` of
    /// the contact's force `F` on body `i` (see [`super::ContactModel::force`]); the shares on
    /// `i`'s side sum to 1, those on the other side (body `j` or the walls) to −1, and a node may
    /// appear more than once. `None` if there is no contact `k`.
    pub fn load_shares(&self, k: usize) -> Option<&[(u32, f64)]> {
        let end = *self.ends.get(k)? as usize;
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        Some(&self.shares[start..end])
    }

    /// Each body's contact force and torque about its centre, from the last call's contacts
    /// ([`super::accumulate`], with each body's bounding radius about its centre as the law's
    /// `R`); `force` and `torque` (one per body) are overwritten.
    pub fn forces(&mut self, force: &mut [Vector<D>], torque: &mut [Angular<D>]) -> Result<(), HostError>
    where
        Dim<D>: Kinematics<D>,
    {
        let n = self.surfaces.len();
        if force.len() != n || torque.len() != n {
            return Err(HostError::Invalid(format!(
                "{} forces and {} torques for {n} bodies",
                force.len(),
                torque.len()
            )));
        }
        let start = Instant::now();
        if self.spheres.len() == n {
            accumulate(&self.model, &self.contacts, &self.spheres, force, torque);
        } else {
            force.fill(Vector::<D>::zeros());
            torque.fill(<Dim<D> as Kinematics<D>>::zero());
        }
        self.times.forces += start.elapsed().as_secs_f64();
        Ok(())
    }

    /// The contact loads on the mesh's nodes (one per node, overwritten): each contact's force
    /// spread over its [load shares](Self::load_shares), zero away from the contacts. Summed over a
    /// body's boundary nodes they give its force of [`forces`](Self::forces), and their moments
    /// its torque; the walls' nodes take the reactions.
    pub fn node_loads(&self, loads: &mut [Vector<D>]) -> Result<(), HostError> {
        if loads.len() != self.sizes.0 {
            return Err(HostError::Invalid(format!(
                "{} loads for a mesh of {} nodes",
                loads.len(),
                self.sizes.0
            )));
        }
        loads.fill(Vector::<D>::zeros());
        for (k, c) in self.contacts.iter().enumerate() {
            let radius = |b: u32| self.spheres[b as usize].1;
            let f = self.model.force(c, radius(c.i), (c.j != WALL).then(|| radius(c.j)));
            for &(v, s) in self.load_shares(k).unwrap_or(&[]) {
                loads[v as usize] += f * s;
            }
        }
        Ok(())
    }
}

/// A body's boundary on the host mesh: its facets, its nodes and their neighbours along the
/// facets' edges (compressed rows). The topology never changes, so this is built once.
struct Surface {
    tag: i32,
    /// The facets of the tag, ascending: the order of the body field's front.
    facets: Vec<u32>,
    /// The facets' nodes, ascending.
    nodes: Vec<u32>,
    /// Row `k`: the facets (mesh indices) of `nodes[k]`.
    facet_offsets: Vec<u32>,
    node_facets: Vec<u32>,
    /// Row `k`: the other nodes of those facets.
    neighbour_offsets: Vec<u32>,
    neighbours: Vec<u32>,
}

impl Surface {
    fn new<const D: usize>(mesh: &SimplexMesh<D>, tag: i32) -> Self {
        let facets = marked_facets(mesh, &[tag]);
        let mut incidence: Vec<(u32, u32)> = facets
            .iter()
            .flat_map(|&f| mesh.facets()[f as usize].map(|v| (v, f)))
            .collect();
        incidence.sort_unstable();
        let mut nodes: Vec<u32> = incidence.iter().map(|&(v, _)| v).collect();
        nodes.dedup();
        let (mut facet_offsets, mut neighbour_offsets) = (vec![0u32], vec![0u32]);
        let (mut node_facets, mut neighbours) = (Vec::new(), Vec::new());
        let mut row = Vec::new();
        for run in incidence.chunk_by(|a, b| a.0 == b.0) {
            let v = run[0].0;
            node_facets.extend(run.iter().map(|&(_, f)| f));
            facet_offsets.push(node_facets.len() as u32);
            row.clear();
            row.extend(
                run.iter()
                    .flat_map(|&(_, f)| mesh.facets()[f as usize])
                    .filter(|&w| w != v),
            );
            row.sort_unstable();
            row.dedup();
            neighbours.extend_from_slice(&row);
            neighbour_offsets.push(neighbours.len() as u32);
        }
        Surface {
            tag,
            facets,
            nodes,
            facet_offsets,
            node_facets,
            neighbour_offsets,
            neighbours,
        }
    }

    /// The neighbours of node `v` (a node of the surface).
    fn neighbours(&self, v: u32) -> &[u32] {
        match self.nodes.binary_search(&v) {
            Ok(k) => &self.neighbours[self.neighbour_offsets[k] as usize..self.neighbour_offsets[k + 1] as usize],
            Err(_) => &[],
        }
    }

    /// Node `nodes[k]`'s share of the surface's measure: its facets' measures over `D`.
    fn area<const D: usize>(&self, mesh: &SimplexMesh<D>, k: usize) -> f64 {
        let facets = &self.node_facets[self.facet_offsets[k] as usize..self.facet_offsets[k + 1] as usize];
        facets.iter().map(|&f| mesh.facet_normals()[f as usize].1).sum::<f64>() / D as f64
    }
}

/// The marked facets carrying one of `tags`, ascending (the order of a field's front).
fn marked_facets<const D: usize>(mesh: &SimplexMesh<D>, tags: &[i32]) -> Vec<u32> {
    (0..mesh.facets().len() as u32)
        .filter(|&f| tags.contains(&mesh.facet_markers()[f as usize]))
        .collect()
}

/// The side whose field probes the other's nodes: the field and its front's facets.
struct Other<'a, const D: usize> {
    field: &'a DistanceField<D>,
    facets: &'a [u32],
}

/// The contacts of one pair or one body with the walls, with their load shares.
#[derive(Default)]
struct Found<const D: usize> {
    contacts: Vec<Contact<D>>,
    /// The end of each contact's shares in `shares`.
    ends: Vec<u32>,
    shares: Vec<(u32, f64)>,
}

/// A thread's buffers: the probes, their projections and front facets, and the patch search's.
#[derive(Default)]
struct HostScratch<const D: usize> {
    patches: Scratch<D>,
    near: Vec<Probe<D>>,
    projections: Vec<(Point<D>, u32)>,
    weights: Vec<f64>,
}

/// What every probe of a call shares.
struct Search<'m, const D: usize> {
    mesh: &'m SimplexMesh<D>,
    centres: &'m [Point<D>],
    cut: f64,
    detection: Detection,
}

impl<const D: usize> Search<'_, D> {
    /// The contacts between `other`'s front and the nodes of `probed`, as pair `(i, j)`: the
    /// probed surface is body `i` if `probed_is_i` (a body against the walls), else body `j`.
    fn probe(
        &self,
        other: &Other<D>,
        probed: &Surface,
        (i, j): (u32, u32),
        probed_is_i: bool,
        scratch: &mut HostScratch<D>,
        out: &mut Found<D>,
    ) {
        let Some(closest) = other.field.closest.as_ref() else {
            return;
        };
        let points = self.mesh.points();
        let HostScratch {
            patches,
            near,
            projections,
            weights,
        } = scratch;
        near.clear();
        projections.clear();
        for &v in &probed.nodes {
            let f = closest[v as usize];
            if !other.field.reached[v as usize] || f == NONE {
                continue;
            }
            let x = points[v as usize];
            let p = math::closest_point_on_facet::<D>(&x, &other.field.front_facets[f as usize]);
            let d = (x - p).norm();
            if d <= self.cut {
                near.push(Probe {
                    node: v,
                    value: d,
                    local: x,
                });
                projections.push((p, f));
            }
        }
        // The closest probe, the first of equals.
        let Some(nearest) = (0..near.len()).min_by(|&a, &b| near[a].value.total_cmp(&near[b].value)) else {
            return;
        };
        let mut emit = |members: &[usize]| {
            self.emit(
                other,
                probed,
                (i, j),
                probed_is_i,
                (near, projections),
                members,
                weights,
                out,
            )
        };
        match self.detection {
            Detection::ClosestPoints => emit(&[nearest]),
            Detection::NearestPatch | Detection::AllPatches => {
                let all = self.detection == Detection::AllPatches;
                for_each_patch(
                    near,
                    |v| probed.neighbours(v),
                    patches,
                    |_, members| {
                        if all || members.contains(&nearest) {
                            emit(members);
                        }
                    },
                );
            }
        }
    }

    /// One contact from the probes `members`: the centres of pressure of the probed nodes and of
    /// their projections, the smallest gap, and the load shares.
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &self,
        other: &Other<D>,
        probed: &Surface,
        (i, j): (u32, u32),
        probed_is_i: bool,
        (near, projections): (&[Probe<D>], &[(Point<D>, u32)]),
        members: &[usize],
        weights: &mut Vec<f64>,
        out: &mut Found<D>,
    ) {
        weights.clear();
        weights.extend(members.iter().map(|&m| {
            let k = probed.nodes.binary_search(&near[m].node).unwrap_or(0);
            probed.area(self.mesh, k) * (self.cut - near[m].value).max(0.0).powi(2)
        }));
        if weights.iter().sum::<f64>() <= 0.0 {
            weights.fill(1.0);
        }
        let total: f64 = weights.iter().sum();
        let (mut on_probed, mut on_other) = (Point::<D>::zeros(), Point::<D>::zeros());
        let mut best = members[0];
        // The probed side takes −F (body j) or +F (body i against a wall); the other side the
        // opposite.
        let sign = if probed_is_i { 1.0 } else { -1.0 };
        for (&m, &w) in members.iter().zip(weights.iter()) {
            let s = w / total;
            let (p, f) = projections[m];
            on_probed += near[m].local * s;
            on_other += p * s;
            if near[m].value < near[best].value {
                best = m;
            }
            out.shares.push((near[m].node, sign * s));
            let facet = &other.field.front_facets[f as usize];
            let lambda = math::facet_coordinates::<D>(&p, facet);
            let nodes = self.mesh.facets()[other.facets[f as usize] as usize];
            out.shares
                .extend(nodes.iter().zip(lambda).map(|(&v, l)| (v, -sign * s * l)));
        }
        let (point_i, point_j) = if probed_is_i {
            (on_probed, on_other)
        } else {
            (on_other, on_probed)
        };
        // The direction from j to i at the closest probe, which orients the line of the centres.
        let toward_i = (near[best].local - projections[best].0) * sign;
        let line = point_i - point_j;
        let normal = if line.norm() > 1e-9 * self.cut {
            line.normalize() * if line.dot(&toward_i) < 0.0 { -1.0 } else { 1.0 }
        } else {
            let centre_j = if j == WALL { point_j } else { self.centres[j as usize] };
            toward_i
                .try_normalize(1e-300)
                .or_else(|| (self.centres[i as usize] - centre_j).try_normalize(1e-300))
                .unwrap_or_else(Vector::<D>::zeros)
        };
        out.contacts.push(Contact {
            i,
            j,
            point_i,
            point_j,
            gap: near[best].value,
            normal,
            shift: Vector::<D>::zeros(),
        });
        out.ends.push(out.shares.len() as u32);
    }
}
