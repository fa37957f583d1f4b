//! Narrow-band fast marching on triangle and tetrahedral meshes: the (signed) distance to a front,
//! computed only up to `max_distance`, with a default value beyond it.
//!
//! ```text
//! D(x) = 0 on the front,   D(x) = ±dist(x, front) where dist ≤ d_max,   D(x) = δ elsewhere,
//! ```
//!
//! negative inside a closed front in signed mode. The front is a set of mesh facets given by their
//! markers (the mesh conforms to it, the specification's case), the zero level set of an analytic
//! [`Shape`], or a polyline or triangulated surface of its own; the last two cut through the cells.
//!
//! 1. **Initialisation** (exact): the nodes on the front get 0; every other node of a cell that
//!    touches the front (conforming) or is cut by it (shape, surface) gets its exact distance: to the
//!    front facets around it (point–segment in 2D, point–triangle in 3D), or `|φ|` for a shape. They
//!    are frozen. A separate surface is sampled finely and the samples located in the mesh to find
//!    the cells it crosses (with one ring of cells around them), and the sides are given by the
//!    pseudo-normal of each node's closest facet.
//! 2. **Marching**: an indexed binary heap with decrease-key; a node taken from the heap is accepted
//!    and its unaccepted neighbours are updated through it and through the faces of accepted nodes
//!    around it, those of cells it shares with them and, in 3D, the nearby ones as virtual
//!    simplices (see the `march` module and [`update`], with its causality check); the march
//!    stops when the smallest tentative value exceeds `d_max`. Nodes never accepted get `δ`. The
//!    update is the standard one (the minimum over the face of a linear interpolant plus the
//!    distance) with a second-order value: the face's times are interpolated with the nodes'
//!    gradients ([`update::Face::corrected`]), each node keeping the direction of the
//!    characteristic that reached it. A front spreading from a curved body makes the times convex, which the linear
//!    interpolant overestimates at every update; with the correction the march converges at order
//!    1.89 instead of 1.15 on the disks of `tests/fmm_accuracy.rs`, and on the ball at h = 0.1 its
//!    error is 0.20x the specification's instead of 1.26x.
//! 3. **Closest-point mode**: each node inherits the front facet of the accepted neighbour that
//!    gives it the smallest *exact* distance, and that distance becomes its value. This is exact for
//!    convex fronts (the closest-facet regions are connected) and leaves only the interpolation error
//!    of the P1 field.
//! 4. **Curved fronts** ([`FmmOptions::curved_front`]): the facets of a front that discretises a
//!    smooth body are bent into quadratic patches by their nodes' normals ([`curved`]), so that
//!    the exact distances of steps 1 and 3 are measured to the body, not to its inscribed polygon.
//!
//! The cost is O(n log n) in the number `n` of nodes within the band; arrays of one entry per mesh
//! node are allocated (18 bytes a node: value, heap slot, state, sign and closest facet; plus, out
//! of closest-point mode, the linear value and the gradient: 42 bytes in 2D, 50 in 3D), and
//! during the initialisation of a front of mesh facets 4 bytes a cell (where each cell touching
//! the front is listed, zeroed memory from the allocator, written only there), but only the band
//! is visited. The march walks the mesh's node stars in the numbering of a Morton curve
//! ([`SimplexMesh::ordered_stars`]: a star's nodes and their values then lie close in memory),
//! which the mesh builds at the first march and keeps with its other adjacency (outside the times
//! reported); the state is kept in that numbering and the field returned in the mesh's.

pub mod curved;
mod heap;
mod init;
mod march;
mod query;
pub(crate) mod topology;
pub mod update;

use crate::math::Point;
use crate::mesh::{MeshError, SimplexMesh};
use crate::shape::Shape;
use rayon::prelude::*;
use std::time::Instant;

/// The front a distance field is measured from.
#[derive(Clone)]
pub enum Front<'a, const D: usize> {
    /// The mesh facets carrying any of these markers (the mesh conforms to the front).
    Markers(Vec<i32>),
    /// The zero level set of a shape's signed distance, cutting through the cells.
    Shape(&'a dyn Shape<D>),
    /// A polyline (2D) or triangulated surface (3D) of its own, cutting through the cells: `facets`
    /// index `points`. For a signed field it must be closed (each node, or edge, in two facets).
    Surface {
        /// Its nodes.
        points: &'a [Point<D>],
        /// Its segments (2D) or triangles (3D).
        facets: &'a [[u32; D]],
    },
}

impl<const D: usize> Front<'_, D> {
    /// The facets of `mesh` whose markers are called `names`; an unknown name is an error listing
    /// the names the mesh has.
    pub fn named(mesh: &SimplexMesh<D>, names: &[&str]) -> Result<Self, FmmError> {
        names
            .iter()
            .map(|n| mesh.facet_marker(n).map_err(FmmError::Mesh))
            .collect::<Result<Vec<i32>, _>>()
            .map(Front::Markers)
    }
}

/// Options of [`distance_to_range`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FmmOptions {
    /// The narrow band `d_max`: nodes farther than this from the front are not computed. `None`
    /// marches over the whole mesh.
    pub max_distance: Option<f64>,
    /// `δ`, the value of the nodes beyond the band (on either side); defaults to `d_max`.
    pub default_value: Option<f64>,
    /// Negative inside the front (which must then be closed), as the specification's `F = −1` run.
    pub signed: bool,
    /// Track the front facet closest to each node and make the node's value the exact distance to
    /// it.
    pub closest_point: bool,
    /// Read a front of mesh facets (or a surface front) as the discretisation of a smooth body:
    /// each facet becomes the quadratic patch through its nodes bent by their normals (see
    /// [`curved`]), so that distances are measured to the body rather than to its inscribed
    /// polygon. Corners where the facet normals turn by more than about twice
    /// [`curved::CREASE_DEGREES`] (a square's 90°) stay sharp.
    /// Ignored for a shape front, which is exact already.
    pub curved_front: bool,
}

impl Default for FmmOptions {
    /// Whole mesh, signed, no closest-point tracking.
    fn default() -> Self {
        FmmOptions {
            max_distance: None,
            default_value: None,
            signed: true,
            closest_point: false,
            curved_front: false,
        }
    }
}

/// What went wrong in [`distance_to_range`].
#[derive(Debug, thiserror::Error)]
pub enum FmmError {
    /// A marker name or number that the mesh does not have.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// No facet carries the front's markers, or the shape does not cross the mesh.
    #[error("the front is empty: {0}")]
    EmptyFront(String),
    /// An option out of range.
    #[error("option {option}: {message}")]
    Option {
        /// The option's name.
        option: &'static str,
        /// What is expected.
        message: String,
    },
    /// A surface front with invalid data.
    #[error("surface front: {0}")]
    Surface(String),
    /// A signed distance asked of a front that does not enclose a region.
    #[error("a signed distance needs a closed front: {0} (ask for an unsigned distance instead)")]
    OpenFront(String),
}

/// A distance field on the nodes of a mesh, with what was learnt computing it.
#[derive(Debug, Clone)]
pub struct DistanceField<const D: usize> {
    /// One value per mesh node.
    pub values: Vec<f64>,
    /// Whether each node was reached (its value is a distance, not the default).
    pub reached: Vec<bool>,
    /// In closest-point mode, the front facet closest to each reached node (its index among the
    /// front's facets, see [`front_facets`](Self::front_facets)), [`crate::mesh::NONE`] elsewhere.
    pub closest: Option<Vec<u32>>,
    /// The nodes in the order the march fixed their values: the initialised nodes first (by value),
    /// then the accepted ones. Values along it never decrease after the initialised nodes.
    pub order: Vec<u32>,
    /// The front's facets (their nodes' coordinates), for a front of mesh facets.
    pub front_facets: Vec<[Point<D>; D]>,
    /// `d_max` (infinite for a whole-mesh march).
    pub max_distance: f64,
    /// Counts and times.
    pub stats: FmmStats,
}

/// Counts and times of a march.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FmmStats {
    /// Nodes with a computed value (initialised or accepted).
    pub accepted: usize,
    /// Nodes initialised with exact distances.
    pub initialised: usize,
    /// Seconds spent on the initialisation.
    pub init_seconds: f64,
    /// Seconds spent marching.
    pub march_seconds: f64,
}

/// The distance field of `front` on `mesh`; see the [module docs](self).
pub fn distance_to_range<const D: usize>(
    mesh: &SimplexMesh<D>,
    front: &Front<D>,
    options: &FmmOptions,
) -> Result<DistanceField<D>, FmmError> {
    let d_max = options.max_distance.unwrap_or(f64::INFINITY);
    if d_max.is_nan() || d_max <= 0.0 {
        return Err(FmmError::Option {
            option: "max_distance",
            message: format!("the band width must be positive, got {d_max}"),
        });
    }
    let default = options.default_value.unwrap_or(d_max);
    if default.is_nan() {
        return Err(FmmError::Option {
            option: "default_value",
            message: "must be a number".into(),
        });
    }
    // Built at the first march and kept by the mesh, outside the times.
    let ordered = mesh.ordered_stars();
    let start = Instant::now();
    let mut state = init::initialise(mesh, front, options)?;
    let init_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    march::march(ordered, &mut state, d_max, options.closest_point);
    let march_seconds = start.elapsed().as_secs_f64();
    Ok(state.finish(ordered, d_max, default, options, (init_seconds, march_seconds)))
}

/// Several fields on the same mesh (one per body, say), computed in parallel; each is exactly what
/// [`distance_to_range`] gives alone, whatever the number of threads.
pub fn distance_to_ranges<const D: usize>(
    mesh: &SimplexMesh<D>,
    fronts: &[Front<D>],
    options: &FmmOptions,
) -> Vec<Result<DistanceField<D>, FmmError>> {
    fronts.par_iter().map(|f| distance_to_range(mesh, f, options)).collect()
}
