//! Which rank owns a point, and how far a point is from a rank's part of the domain.
//!
//! A host's domain decomposition, as `tumble` sees it: each rank's part is a union of axis-aligned
//! boxes. A distributed mesh gives them directly (deal.II's bounding boxes of the locally owned
//! cells, `GridTools::compute_mesh_predicate_bounding_box`, gathered to every rank; a slab or
//! a recursive bisection of a box), and every rank holds the same list, so that every rank
//! computes the same owner for a body without asking. A point belongs to the lowest rank whose
//! closed box holds it: a point on a shared face has one owner.
//!
//! Costs: [`Partition::owner`] and [`Partition::distance`] run through the boxes, `O(boxes)`, which
//! for a few boxes a rank is less than one body's contact.

use crate::math::{Point, Vector};

/// Every rank's part of the domain as boxes `[lo, hi]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition<const D: usize> {
    /// `(rank, lo, hi)`, in rank order.
    boxes: Vec<(usize, Point<D>, Point<D>)>,
    ranks: usize,
}

impl<const D: usize> Partition<D> {
    /// The partition whose rank `r` owns the union of `parts[r]` (each box `(lo, hi)` with
    /// `lo ≤ hi` along every axis, all finite); an error naming the rank and the box otherwise.
    pub fn new(parts: &[Vec<(Point<D>, Point<D>)>]) -> Result<Self, String> {
        let mut boxes = Vec::new();
        for (rank, part) in parts.iter().enumerate() {
            for (k, (lo, hi)) in part.iter().enumerate() {
                let good = (0..D).all(|a| lo[a].is_finite() && hi[a].is_finite() && lo[a] <= hi[a]);
                if !good {
                    return Err(format!(
                        "rank {rank}'s box {k} is [{:?}, {:?}]: expected finite corners with lo ≤ hi along every axis",
                        lo.as_slice(),
                        hi.as_slice()
                    ));
                }
                boxes.push((rank, *lo, *hi));
            }
        }
        Ok(Partition {
            boxes,
            ranks: parts.len(),
        })
    }

    /// `[lo, hi]` cut into `ranks` slabs of equal width across `axis`, rank `r` owning the `r`-th.
    pub fn slabs(lo: Point<D>, hi: Point<D>, axis: usize, ranks: usize) -> Result<Self, String> {
        if axis >= D || ranks == 0 {
            return Err(format!(
                "slabs across axis {axis} for {ranks} ranks: expected an axis below {D} and a rank at least"
            ));
        }
        let width = (hi[axis] - lo[axis]) / ranks as f64;
        let parts: Vec<Vec<(Point<D>, Point<D>)>> = (0..ranks)
            .map(|r| {
                let (mut a, mut b) = (lo, hi);
                a[axis] = lo[axis] + width * r as f64;
                if r + 1 < ranks {
                    b[axis] = lo[axis] + width * (r + 1) as f64;
                }
                vec![(a, b)]
            })
            .collect();
        Self::new(&parts)
    }

    /// The number of ranks.
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// The rank that owns `x`: the lowest whose box holds it; `None` if no box does.
    pub fn owner(&self, x: &Point<D>) -> Option<usize> {
        self.boxes
            .iter()
            .find(|(_, lo, hi)| (0..D).all(|a| lo[a] <= x[a] && x[a] <= hi[a]))
            .map(|&(rank, _, _)| rank)
    }

    /// The distance from `x` to rank `rank`'s part (0 inside it; infinite for a rank without
    /// boxes).
    pub fn distance(&self, rank: usize, x: &Point<D>) -> f64 {
        self.boxes
            .iter()
            .filter(|(r, _, _)| *r == rank)
            .map(|(_, lo, hi)| {
                let outside = Vector::<D>::from_fn(|a, _| (lo[a] - x[a]).max(x[a] - hi[a]).max(0.0));
                outside.norm()
            })
            .fold(f64::INFINITY, f64::min)
    }
}
