//! Contact on a host code's own mesh (the host-mesh mode, [`crate::contact::HostContact`]), of
//! either dimension.

use super::error::{finite, length, Error};
use super::mesh::Mesh;
use super::setup::{contact_model, thread_pool, within};
use crate::body::{Dim, Kinematics};
use crate::broad::sets::method;
use crate::contact::{self, Law};
use crate::math::{self, Point, Vector};
use crate::mesh::gmsh::AnyMesh;

/// A host-mesh contact's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct HostOptions {
    /// The force law: `Spec` takes the closest nodes, `Glowinski` the nearest patch of each pair,
    /// `Patches` every patch.
    pub law: Law,
    /// `ρ`, the range of the force (the safety zone).
    pub range: f64,
    /// `ε`, the body–body stiffness parameter (force ∝ 1/ε).
    pub stiffness: f64,
    /// `ε_W`, the body–wall one (`None`: `stiffness`).
    pub wall_stiffness: Option<f64>,
    /// The threads the work runs on, in a pool of its own (`None`: rayon's global pool); the
    /// results do not depend on it.
    pub threads: Option<usize>,
}

impl HostOptions {
    /// Glowinski's law with `range` and `stiffness`, on every core.
    pub fn new(range: f64, stiffness: f64) -> Self {
        HostOptions {
            law: Law::Glowinski,
            range,
            stiffness,
            wall_stiffness: None,
            threads: None,
        }
    }
}

/// The contacts of a call, flat: contact `k` is between body `i[k]` and body `j[k]` (or the walls,
/// `j[k] =` [`contact::WALL`]), at gap `gap[k]`, from the point `point_j` (`dim` numbers from
/// `dim k`) to the point `point_i`, the unit `normal` pointing from `j` towards `i`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Contacts {
    /// The body the force is computed for.
    pub i: Vec<u32>,
    /// The other body, or [`contact::WALL`].
    pub j: Vec<u32>,
    /// The gaps.
    pub gap: Vec<f64>,
    /// The points on `∂B_i`.
    pub point_i: Vec<f64>,
    /// The points on `∂B_j` or the walls.
    pub point_j: Vec<f64>,
    /// The unit normals from `B_j` towards `B_i`.
    pub normal: Vec<f64>,
}

/// Contact detection, forces and nodal loads on a host code's mesh whose facet tags mark the
/// bodies and the walls; the mesh may move between calls (same cells, new points).
///
/// ```
/// use tumble::dynamic::{HostContact, HostOptions, Mesh};
/// // A disk of radius 0.25 at 0.02 above the inside of a circle of radius 1 (tags 1 and 2).
/// let mesh = Mesh::balls(2, &[0.0, -0.73, 0.0, 0.0], &[0.25, 1.0], 0.01)?;
/// let mut host = HostContact::new(&mesh, &[1], &[2], &HostOptions::new(0.03, 1e-4))?;
/// assert_eq!(host.find_contacts(&mesh, &[0.0, -0.73])?, 1);
/// assert!((host.contacts().gap[0] - 0.02).abs() < 1e-4);
/// let (force, _torque) = host.forces()?;
/// let loads = host.node_loads()?;
/// let total: f64 = loads.iter().skip(1).step_by(2).filter(|&&y| y > 0.0).sum();
/// assert!(force[1] > 0.0 && (total - force[1]).abs() < 1e-12 * force[1]);
/// # Ok::<(), tumble::dynamic::Error>(())
/// ```
pub struct HostContact {
    any: Any,
    /// Its own threads, if it was given a count.
    pool: Option<rayon::ThreadPool>,
}

enum Any {
    D2(contact::HostContact<2>),
    D3(contact::HostContact<3>),
}

impl HostContact {
    /// Bodies whose boundaries are the facets tagged `body_tags` (one tag per body, in the order of
    /// the centres given to [`Self::find_contacts`]) and walls tagged `wall_tags` (may be empty) on
    /// `mesh`.
    pub fn new(mesh: &Mesh, body_tags: &[i32], wall_tags: &[i32], options: &HostOptions) -> Result<Self, Error> {
        if body_tags.is_empty() {
            return Err(Error::argument("body_tags", "is empty: give one facet tag per body"));
        }
        let known = mesh.facet_tags();
        for (name, tags) in [("body_tags", body_tags), ("wall_tags", wall_tags)] {
            if let Some(tag) = tags.iter().find(|t| !known.contains(t)) {
                return Err(Error::argument(
                    name,
                    format!("the mesh has no facet tagged {tag}; its facet tags are {known:?}"),
                ));
            }
        }
        // Before the model, whose check would name `stiffness`, which the law does not take.
        if options.law == Law::Collision {
            return Err(Error::argument("law", contact::COLLISION_ON_A_HOST_MESH));
        }
        let model = contact_model(&contact::ContactParameters {
            wall_stiffness: options.wall_stiffness,
            ..contact::ContactParameters::repulsive(options.law, options.range, options.stiffness)
        })?;
        let invalid = |e: contact::HostError| match e {
            contact::HostError::Invalid(message) => Error::argument("body_tags", message),
            contact::HostError::Law(message) => Error::argument("law", message),
            e => Error::failed(e),
        };
        let any = match mesh.any() {
            AnyMesh::D2(m) => {
                Any::D2(contact::HostContact::from_markers(model, m, body_tags, wall_tags, broad()).map_err(invalid)?)
            }
            AnyMesh::D3(m) => {
                Any::D3(contact::HostContact::from_markers(model, m, body_tags, wall_tags, broad()).map_err(invalid)?)
            }
        };
        Ok(HostContact {
            any,
            pool: thread_pool(options.threads)?,
        })
    }

    /// 2 or 3.
    pub fn dim(&self) -> usize {
        by_dim!(Any, &self.any, _h, D => D)
    }

    /// The number of bodies.
    pub fn num_bodies(&self) -> usize {
        by_dim!(Any, &self.any, h, D => h.num_bodies())
    }

    /// Finds the contacts on `mesh` (the one given to [`Self::new`], or the same cells moved by
    /// [`Mesh::with_points`]) with the bodies' centres of mass at `centres` (`dim` numbers per
    /// body); their number. [`Self::contacts`], [`Self::forces`] and [`Self::node_loads`]
    /// read them.
    pub fn find_contacts(&mut self, mesh: &Mesh, centres: &[f64]) -> Result<usize, Error> {
        let (n, d) = (self.num_bodies(), self.dim());
        if mesh.dim() != d {
            return Err(Error::argument(
                "mesh",
                format!("is a {}D mesh, the contact is {d}D", mesh.dim()),
            ));
        }
        length("centres", centres, n * d)?;
        finite("centres", centres)?;
        let HostContact { any, pool } = self;
        within(pool, || match (any, mesh.any()) {
            (Any::D2(h), AnyMesh::D2(m)) => found(h, m, centres),
            (Any::D3(h), AnyMesh::D3(m)) => found(h, m, centres),
            _ => unreachable!("the dimensions were compared"),
        })
    }

    /// The contacts found by the last call to [`Self::find_contacts`].
    pub fn contacts(&self) -> Contacts {
        by_dim!(Any, &self.any, h, D => {
            let list = h.last_contacts();
            let flat = |f: fn(&contact::Contact<D>) -> Vector<D>| math::flatten(&list.iter().map(f).collect::<Vec<_>>());
            Contacts {
                i: list.iter().map(|c| c.i).collect(),
                j: list.iter().map(|c| c.j).collect(),
                gap: list.iter().map(|c| c.gap).collect(),
                point_i: flat(|c| c.point_i),
                point_j: flat(|c| c.point_j),
                normal: flat(|c| c.normal),
            }
        })
    }

    /// The contact force (`dim` numbers per body) and torque about its centre (2D: 1 number per
    /// body; 3D: 3) on every body, from the last call's contacts.
    pub fn forces(&mut self) -> Result<(Vec<f64>, Vec<f64>), Error> {
        by_dim!(Any, &mut self.any, h, D => {
            let n = h.num_bodies();
            let (mut force, mut torque) = (vec![Vector::<D>::zeros(); n], vec![<Dim<D> as Kinematics<D>>::zero(); n]);
            h.forces(&mut force, &mut torque).map_err(Error::failed)?;
            Ok((
                force.iter().flat_map(|f| f.iter().copied()).collect(),
                torque.iter().flat_map(<Dim<D> as Kinematics<D>>::angular_components).collect(),
            ))
        })
    }

    /// The contact loads on the mesh's nodes (`dim` numbers per node, zero away from the
    /// contacts): each contact's force spread over the nodes near it, so that the loads on a
    /// body's nodes sum to its force of [`Self::forces`] and their moments to its torque; the
    /// walls' nodes take the reactions.
    pub fn node_loads(&self) -> Result<Vec<f64>, Error> {
        by_dim!(Any, &self.any, h, D => {
            let mut loads = vec![Vector::<D>::zeros(); h.num_points()];
            h.node_loads(&mut loads).map_err(Error::failed)?;
            Ok(loads.iter().flat_map(|l| l.iter().copied()).collect())
        })
    }
}

/// The automatic broad phase of dimension `D`.
fn broad<const D: usize>() -> Box<dyn crate::broad::BroadPhase<D>> {
    method::<D>("auto").expect("the automatic broad phase exists")
}

/// Runs a typed contact call; the number of contacts.
fn found<const D: usize>(
    host: &mut contact::HostContact<D>,
    mesh: &crate::SimplexMesh<D>,
    centres: &[f64],
) -> Result<usize, Error> {
    let centres: Vec<Point<D>> = centres.chunks_exact(D).map(Point::<D>::from_column_slice).collect();
    let invalid = |e: contact::HostError| match e {
        contact::HostError::Invalid(message) => Error::argument("mesh", message),
        e => Error::failed(e),
    };
    Ok(host.contacts(mesh, &centres).map_err(invalid)?.len())
}
