//! Broad phase: which bounding spheres come within a margin of each other (and of the walls), so
//! that only those pairs get distance-field evaluations.
//!
//! Every method returns exactly the pairs `i < j` with `|c_i − c_j| ≤ r_i + r_j + margin`, each once
//! (the property tests check them against [`BruteForce`]). They differ in how they find the
//! candidates:
//!
//! | method | candidates | best for |
//! |---|---|---|
//! | [`BruteForce`] | all pairs | a few dozen spheres; the reference |
//! | [`LinkedCell`] | a grid of cells at least one largest diameter wide, half-shell scan | similar sizes (ω = r_max/r_min small) |
//! | [`SortAndSweep`] | intervals on the axis of largest spread, sorted | any sizes, sparse sets; re-sorts incrementally |
//! | [`SortedDistance`] | distances to a corner, sorted (Leszczynski and Ciesielski) | small sets, any dimension |
//! | [`HierarchicalGrid`] | one grid per size class (Ogarko and Luding) | wide size distributions, one big among many |
//! | [`KdTree`] | a `kiddo` radius query per sphere | a comparison point |
//! | [`Auto`] | picks one of the above by a timed probe | when the set is not known in advance |
//!
//! With periodic directions, [`PeriodicPairs`] runs any of them on the spheres and their images.
//!
//! Pairs come in a deterministic order: the parallel methods split their work into chunks of a fixed
//! size and concatenate them in order, so the result never depends on the number of threads.

mod auto;
mod brute;
mod cells;
mod hgrid;
mod kdtree;
mod linked_cell;
mod periodic;
pub mod sets;
mod sorted_distance;
mod sweep;

pub use auto::Auto;
pub use brute::BruteForce;
pub use hgrid::HierarchicalGrid;
pub use kdtree::KdTree;
pub use linked_cell::LinkedCell;
pub use periodic::PeriodicPairs;
pub use sorted_distance::SortedDistance;
pub use sweep::SortAndSweep;

use crate::math::Point;

/// A bounding sphere (a disk in 2D).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundingSphere<const D: usize> {
    /// Centre.
    pub centre: Point<D>,
    /// Radius.
    pub radius: f64,
}

/// Invalid input to a broad phase.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BroadError {
    /// A sphere with a non-finite centre or a negative or non-finite radius.
    #[error("sphere {index}: {message}")]
    InvalidSphere {
        /// Its index.
        index: u32,
        /// What is wrong.
        message: String,
    },
    /// Fewer than two spheres: there is no pair to look for.
    #[error("a broad phase needs at least two spheres, got {0}")]
    TooFew(usize),
    /// A negative or non-finite margin.
    #[error("the margin must be finite and non-negative, got {0}")]
    Margin(f64),
    /// More spheres than `u32` indices.
    #[error("{0} spheres exceed the u32 index range")]
    TooMany(usize),
    /// A periodic direction shorter than twice the reach of the largest pair (a pair could meet
    /// through two images), or than the reach itself for a single sphere (it would meet itself).
    #[error(
        "the period {length} along axis {axis} is shorter than twice the largest pair's reach {reach} (two largest \
         bounding radii and the contact margin; for a single body, than the reach itself): a body would meet \
         another, or itself, through its images; make the periodic cell longer"
    )]
    Period {
        /// The axis.
        axis: usize,
        /// Its period.
        length: f64,
        /// `2 r_max + margin`.
        reach: f64,
    },
}

/// A method that finds the pairs of spheres within a margin of each other.
pub trait BroadPhase<const D: usize>: Send + Sync {
    /// The method's name, as `tumble bench broad --method` spells it.
    fn name(&self) -> &'static str;
    /// Takes the spheres of this step (building or updating the method's structure).
    fn update(&mut self, spheres: &[BoundingSphere<D>], margin: f64) -> Result<(), BroadError>;
    /// Replaces `out` by every pair `(i, j)`, `i < j`, with `|c_i − c_j| ≤ r_i + r_j + margin`.
    fn pairs(&mut self, out: &mut Vec<(u32, u32)>);
}

/// Checks the input every method shares: at least two spheres, finite centres, finite non-negative
/// radii, a finite non-negative margin.
pub fn validate<const D: usize>(spheres: &[BoundingSphere<D>], margin: f64) -> Result<(), BroadError> {
    if spheres.len() < 2 {
        return Err(BroadError::TooFew(spheres.len()));
    }
    if spheres.len() > u32::MAX as usize {
        return Err(BroadError::TooMany(spheres.len()));
    }
    if !(margin.is_finite() && margin >= 0.0) {
        return Err(BroadError::Margin(margin));
    }
    use rayon::prelude::*;
    let invalid =
        |s: &BoundingSphere<D>| !(s.centre.iter().all(|x| x.is_finite()) && s.radius.is_finite() && s.radius >= 0.0);
    // Scanned by chunks: a `position_first` over single spheres costs as much as a linked-cell build.
    let first_invalid = spheres
        .par_chunks(CHUNK)
        .enumerate()
        .find_map_first(|(k, chunk)| chunk.iter().position(invalid).map(|p| k * CHUNK + p));
    if let Some(i) = first_invalid {
        let s = &spheres[i];
        let message = if !s.centre.iter().all(|x| x.is_finite()) {
            format!("centre {:?} is not finite", s.centre.as_slice())
        } else {
            format!("radius {} must be finite and non-negative", s.radius)
        };
        return Err(BroadError::InvalidSphere {
            index: i as u32,
            message,
        });
    }
    Ok(())
}

/// Whether spheres `a` and `b` are within `margin` of each other.
#[inline]
pub(crate) fn touching<const D: usize>(a: &BoundingSphere<D>, b: &BoundingSphere<D>, margin: f64) -> bool {
    let reach = a.radius + b.radius + margin;
    (a.centre - b.centre).norm_squared() <= reach * reach
}

/// The spheres whose centre is within `r_i + margin` of a wall, for a domain given by the distance
/// from a point to its walls (for a box, the distance to the nearest face: see [`box_wall_distance`]).
pub fn near_walls<const D: usize>(
    spheres: &[BoundingSphere<D>],
    margin: f64,
    wall_distance: impl Fn(&Point<D>) -> f64 + Sync,
) -> Vec<u32> {
    use rayon::prelude::*;
    spheres
        .par_iter()
        .enumerate()
        .filter(|(_, s)| wall_distance(&s.centre) <= s.radius + margin)
        .map(|(i, _)| i as u32)
        .collect()
}

/// Distance from `x` to the nearest face of the box `[lo, hi]` (negative outside it).
pub fn box_wall_distance<const D: usize>(lo: Point<D>, hi: Point<D>) -> impl Fn(&Point<D>) -> f64 + Sync {
    move |x| {
        (0..D)
            .map(|a| (x[a] - lo[a]).min(hi[a] - x[a]))
            .fold(f64::INFINITY, f64::min)
    }
}

/// Work chunk of the parallel methods (fixed, so results do not depend on the thread count).
pub(crate) const CHUNK: usize = 2048;

/// Runs `find(range, out)` over `0..n` in chunks of [`CHUNK`], in parallel, and concatenates the
/// chunks' pairs in order into `out`.
pub(crate) fn chunked_pairs(
    n: usize,
    out: &mut Vec<(u32, u32)>,
    find: impl Fn(std::ops::Range<usize>, &mut Vec<(u32, u32)>) + Sync,
) {
    use rayon::prelude::*;
    let chunks: Vec<Vec<(u32, u32)>> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|k| {
            let mut local = Vec::new();
            find(k * CHUNK..((k + 1) * CHUNK).min(n), &mut local);
            local
        })
        .collect();
    out.clear();
    out.reserve(chunks.iter().map(Vec::len).sum());
    for c in chunks {
        out.extend(c);
    }
}
