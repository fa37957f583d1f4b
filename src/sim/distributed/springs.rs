//! The collision law's springs as they travel between ranks: a contact's memory
//! ([`Memory`]) with its bodies named by their ids instead of a rank's indices.
//!
//! ```text
//! [id_i, id_j (−1: a wall), anchor (D), slip (D), roll (1 | 3)]
//! ```
//!
//! A body that migrates takes the springs of its contacts with it, and the new owner takes them
//! instead of its own: a pair of two ghosts here may have met before either was a ghost here,
//! while the old owner met every contact of its own body from its start.

use crate::body::{Dim, Kinematics};
use crate::contact::{Memory, WALL};
use crate::math::Vector;

/// A spring between body `i` and body `j` (`None`: the walls), by id.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Spring<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    pub i: u64,
    pub j: Option<u64>,
    pub memory: Memory<D>,
}

/// The springs of `memory`, whose indices are into `ids`.
pub(super) fn by_ids<const D: usize>(memory: &[Memory<D>], ids: &[u64]) -> Vec<Spring<D>>
where
    Dim<D>: Kinematics<D>,
{
    memory.iter().map(|m| by_id(m, ids)).collect()
}

/// The spring of `m`, whose indices are into `ids`.
pub(super) fn by_id<const D: usize>(m: &Memory<D>, ids: &[u64]) -> Spring<D>
where
    Dim<D>: Kinematics<D>,
{
    Spring {
        i: ids[m.i as usize],
        j: (m.j != WALL).then(|| ids[m.j as usize]),
        memory: *m,
    }
}

/// The springs whose bodies are both held (`index_of`), as a rank's memory, sorted by pair.
pub(super) fn by_index<const D: usize>(
    springs: impl Iterator<Item = Spring<D>>,
    index_of: impl Fn(u64) -> Option<usize>,
) -> Vec<Memory<D>>
where
    Dim<D>: Kinematics<D>,
{
    let mut memory: Vec<Memory<D>> = springs
        .filter_map(|s| {
            let i = index_of(s.i)? as u32;
            let j = match s.j {
                Some(j) => index_of(j)? as u32,
                None => WALL,
            };
            Some(Memory { i, j, ..s.memory })
        })
        .collect();
    memory.sort_by_key(|m| (m.i, m.j));
    memory
}

/// The numbers of one spring.
pub(super) fn width<const D: usize>() -> usize
where
    Dim<D>: Kinematics<D>,
{
    2 + 2 * D + <Dim<D> as Kinematics<D>>::angular_components(&<Dim<D> as Kinematics<D>>::zero()).len()
}

/// Appends spring `s` to `out`.
pub(super) fn write<const D: usize>(s: &Spring<D>, out: &mut Vec<f64>)
where
    Dim<D>: Kinematics<D>,
{
    out.extend_from_slice(&[s.i as f64, s.j.map_or(-1.0, |j| j as f64)]);
    out.extend_from_slice(s.memory.anchor.as_slice());
    out.extend_from_slice(s.memory.slip.as_slice());
    out.extend(<Dim<D> as Kinematics<D>>::angular_components(&s.memory.roll));
}

/// The spring at the start of `n` (at least [`width`] numbers).
pub(super) fn read<const D: usize>(n: &[f64]) -> Spring<D>
where
    Dim<D>: Kinematics<D>,
{
    Spring {
        i: n[0] as u64,
        j: (n[1] >= 0.0).then(|| n[1] as u64),
        memory: Memory {
            i: 0,
            j: 0,
            anchor: Vector::<D>::from_column_slice(&n[2..2 + D]),
            slip: Vector::<D>::from_column_slice(&n[2 + D..2 + 2 * D]),
            roll: <Dim<D> as Kinematics<D>>::angular_from(&n[2 + 2 * D..width::<D>()])
                .expect("a spring holds its roll"),
        },
    }
}
