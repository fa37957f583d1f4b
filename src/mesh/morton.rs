//! Morton keys: a point's quantised coordinates with their bits interleaved (21 per axis in 3D,
//! 32 in 2D), so that sorting by key orders points along a Z-shaped space-filling curve and
//! points near in the order are near in space. The point locator sorts batches of queries by it;
//! the fast marching numbers the nodes by it ([`super::star`]).

use crate::math::Point;

/// The key of points within a bounding box.
#[derive(Debug, Clone, Copy)]
pub(super) struct Morton<const D: usize> {
    lo: Point<D>,
    scale: f64,
}

impl<const D: usize> Morton<D> {
    /// Keys for points in the box `[lo, hi]` (quantised over its longest side).
    pub(super) fn new(lo: Point<D>, hi: Point<D>) -> Self {
        let extent = (hi - lo).max();
        Morton {
            lo,
            scale: if extent > 0.0 { 1.0 / extent } else { 1.0 },
        }
    }

    /// The key of `x`, `O(64)` bit operations.
    pub(super) fn key(&self, x: &Point<D>) -> u64 {
        let bits = 64 / D as u32;
        let max = ((1u64 << bits) - 1) as f64;
        let q: [u64; D] = std::array::from_fn(|a| (((x[a] - self.lo[a]) * self.scale).clamp(0.0, 1.0) * max) as u64);
        let mut key = 0u64;
        for b in (0..bits).rev() {
            for qa in q {
                key = (key << 1) | ((qa >> b) & 1);
            }
        }
        key
    }
}
