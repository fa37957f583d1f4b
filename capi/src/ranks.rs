//! A world split across the MPI ranks of a host code: each rank owns the bodies whose centres lie
//! in its part of the domain and holds ghosts of the others' within contact reach; the bodies
//! migrate and the ghosts are refreshed through the host's own communicator, which `tumble`
//! reaches through two callbacks ([`TumbleExchange`]): `tumble` links no MPI.

use crate::handle::{self, Handle};
use crate::status::{guard, put, room, slice, slice_mut, ErrorSlot, Failure, TumbleStatus};
use crate::world::{copy_state, TumbleWorld};
use std::ffi::{c_char, c_int, c_void};
use tumble::dynamic::{rotation_sizes, RankWorld};
use tumble::sim::Exchange;

/// `MPI_Alltoall` of one count per rank: `send_counts[r]` numbers go to rank `r`; the callback
/// writes into `recv_counts[r]` how many come from rank `r`. Returns 0 on success.
pub type TumbleCountsFn =
    Option<unsafe extern "C" fn(context: *mut c_void, send_counts: *const c_int, recv_counts: *mut c_int) -> c_int>;

/// `MPI_Alltoallv` of doubles with the counts and displacements given (the arguments in
/// `MPI_Alltoallv`'s order). Returns 0 on success.
pub type TumbleNumbersFn = Option<
    unsafe extern "C" fn(
        context: *mut c_void,
        send: *const f64,
        send_counts: *const c_int,
        send_displacements: *const c_int,
        recv: *mut f64,
        recv_counts: *const c_int,
        recv_displacements: *const c_int,
    ) -> c_int,
>;

/// The host's communicator as `tumble` uses it: its rank and size, and two callbacks that the
/// host serves with `MPI_Alltoall` and `MPI_Alltoallv` on its communicator (see
/// `examples/c/ranks_mpi.c`). `tumble` calls them only from the thread that called it, as
/// `MPI_THREAD_FUNNELED` allows.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TumbleExchange {
    /// Passed back to the callbacks (an `MPI_Comm *`, say).
    pub context: *mut c_void,
    /// This rank's number.
    pub rank: c_int,
    /// The number of ranks.
    pub size: c_int,
    /// The counts' all-to-all.
    pub counts: TumbleCountsFn,
    /// The numbers' all-to-all.
    pub numbers: TumbleNumbersFn,
}

/// A [`TumbleExchange`] as the library's [`Exchange`].
struct Callbacks(TumbleExchange);

// SAFETY: the context is only used through the callbacks, which `Distributed` calls only from the
// thread that called into the library (its computing may run on the world's pool; its exchange
// never does), the thread the host gave the context from.
unsafe impl Send for Callbacks {}

impl Exchange for Callbacks {
    fn rank(&self) -> usize {
        self.0.rank as usize
    }
    fn size(&self) -> usize {
        self.0.size as usize
    }
    /// A callback that fails, or counts beyond an `int`, make this rank's messages all empty:
    /// every rank then stops with an error at this step.
    fn all_to_all(&self, send: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
        let size = send.len();
        let failed = || vec![Vec::new(); size];
        let (Some(counts), Some(numbers)) = (self.0.counts, self.0.numbers) else {
            return failed();
        };
        let Ok(send_counts) = send
            .iter()
            .map(|m| c_int::try_from(m.len()))
            .collect::<Result<Vec<c_int>, _>>()
        else {
            return failed();
        };
        let displacements = |counts: &[c_int]| -> Vec<c_int> {
            counts
                .iter()
                .scan(0, |at, &n| {
                    let here = *at;
                    *at += n;
                    Some(here)
                })
                .collect()
        };
        let mut recv_counts = vec![0 as c_int; size];
        // SAFETY: both arrays hold `size` ints, as the callback is told by the communicator's size.
        if unsafe { counts(self.0.context, send_counts.as_ptr(), recv_counts.as_mut_ptr()) } != 0
            || recv_counts.iter().any(|&n| n < 0)
        {
            return failed();
        }
        let flat: Vec<f64> = send.concat();
        let total: usize = recv_counts.iter().map(|&n| n as usize).sum();
        let mut recv = vec![0.0; total];
        let (send_at, recv_at) = (displacements(&send_counts), displacements(&recv_counts));
        // SAFETY: every buffer holds what its counts and displacements say.
        let status = unsafe {
            numbers(
                self.0.context,
                flat.as_ptr(),
                send_counts.as_ptr(),
                send_at.as_ptr(),
                recv.as_mut_ptr(),
                recv_counts.as_ptr(),
                recv_at.as_ptr(),
            )
        };
        if status != 0 {
            return failed();
        }
        recv_at
            .iter()
            .zip(&recv_counts)
            .map(|(&at, &n)| recv[at as usize..(at + n) as usize].to_vec())
            .collect()
    }
}

/// One rank's share of a world split across ranks; made by [`tumble_world_distribute`], freed
/// by [`tumble_ranks_free`].
pub struct TumbleRanks {
    ranks: RankWorld,
    error: ErrorSlot,
}

impl Handle for TumbleRanks {
    const KIND: &'static str = "ranks";
    fn error(&self) -> &ErrorSlot {
        &self.error
    }
}

/// Splits `world` across the ranks of `exchange`: every rank built the same world (the same
/// bodies in the same order: a body's id is its index) and calls this together. Rank `r`'s part
/// of the domain is the union of its `boxes_per_rank[r]` boxes (`num_ranks` counts, one per
/// rank), taken in rank order from `boxes`, each its lower then its upper corner (`2 dim`
/// numbers); a centre on a face two parts share belongs to the lower rank. Each rank keeps the
/// bodies whose centres its part holds and ghosts of the others within contact reach. The bodies
/// move to the split world: `world` is left without bodies (free it as usual). Not yet for the
/// lubrication film or periodic directions.
///
/// # Safety
/// `world` must be a pointer this library returned, `exchange` readable (its callbacks callable
/// with its context until the split world is freed), `boxes_per_rank` hold `num_ranks` counts,
/// `boxes` their boxes' numbers, `out` writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_world_distribute(
    world: *mut TumbleWorld,
    exchange: *const TumbleExchange,
    boxes_per_rank: *const usize,
    num_ranks: usize,
    boxes: *const f64,
    out: *mut *mut TumbleRanks,
) -> TumbleStatus {
    handle::guard_on_mut(world, "world", |h| {
        put(out, std::ptr::null_mut(), "out")?;
        let exchange = *slice(exchange, 1, "exchange")?.first().expect("one");
        if exchange.counts.is_none() || exchange.numbers.is_none() {
            return Err(Failure::argument(
                "exchange",
                "needs both callbacks, counts and numbers",
            ));
        }
        if exchange.size < 1 || exchange.rank < 0 || exchange.rank >= exchange.size {
            return Err(Failure::argument(
                "exchange",
                format!(
                    "has rank {} of {} ranks: expected 0 ≤ rank < size",
                    exchange.rank, exchange.size
                ),
            ));
        }
        let per_rank = slice(boxes_per_rank, num_ranks, "boxes_per_rank")?;
        let total: usize = per_rank.iter().sum();
        let d = h.world.dim();
        let boxes = slice(boxes, total * 2 * d, "boxes")?;
        let ranks = h.world.distribute(per_rank, boxes, Box::new(Callbacks(exchange)))?;
        out.write(handle::make(TumbleRanks {
            ranks,
            error: ErrorSlot::default(),
        }));
        Ok(())
    })
}

/// Frees a split world (null is a no-op).
///
/// # Safety
/// `ranks` must be null or a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_ranks_free(ranks: *mut TumbleRanks) -> TumbleStatus {
    guard(None, || handle::free(ranks, "ranks"))
}

/// The ids of the bodies this rank owns, in increasing order, into `ids` (room for `capacity`;
/// null to ask); `*count` is their number.
///
/// # Safety
/// `ranks` must be a pointer this library returned; `ids` null or room for `capacity`; `count`
/// writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_ranks_owned_ids(
    ranks: *mut TumbleRanks,
    ids: *mut u64,
    capacity: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on_mut(ranks, "ranks", |h| {
        let owned = h.ranks.owned_ids();
        room(owned.len(), capacity, ids.is_null(), count, "ids")?;
        if !ids.is_null() {
            slice_mut(ids, owned.len(), "ids")?.copy_from_slice(&owned);
        }
        Ok(())
    })
}

/// The number of ghosts (the other ranks' bodies within contact reach) this rank holds.
///
/// # Safety
/// `ranks` must be a pointer this library returned, `count` writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_ranks_num_ghosts(ranks: *mut TumbleRanks, count: *mut usize) -> TumbleStatus {
    handle::guard_on_mut(ranks, "ranks", |h| put(count, h.ranks.num_ghosts(), "count"))
}

/// The state of body `id`, which this rank owns, each output if not null (as
/// `tumble_world_get_body` gives it).
///
/// # Safety
/// `ranks` must be a pointer this library returned; each non-null output must have room for its
/// numbers.
#[no_mangle]
pub unsafe extern "C" fn tumble_ranks_get_body(
    ranks: *mut TumbleRanks,
    id: u64,
    position: *mut f64,
    orientation: *mut f64,
    velocity: *mut f64,
    angular_velocity: *mut f64,
) -> TumbleStatus {
    handle::guard_on_mut(ranks, "ranks", |h| {
        copy_state(&h.ranks.body(id)?, position, orientation, velocity, angular_velocity)
    })
}

/// Sets the state of body `id`, which this rank owns, each input if not null (a 3D quaternion is
/// normalised); every rank calls [`tumble_ranks_redistribute`] before the next contact forces or
/// step.
///
/// # Safety
/// `ranks` must be a pointer this library returned; each non-null input must hold its numbers.
#[no_mangle]
pub unsafe extern "C" fn tumble_ranks_set_body(
    ranks: *mut TumbleRanks,
    id: u64,
    position: *const f64,
    orientation: *const f64,
    velocity: *const f64,
    angular_velocity: *const f64,
) -> TumbleStatus {
    handle::guard_on_mut(ranks, "ranks", |h| {
        let d = h.ranks.dim();
        let (rotation, spin) = rotation_sizes(d);
        let given = |ptr: *const f64, n: usize, name: &str| -> Result<Option<&[f64]>, Failure> {
            if ptr.is_null() {
                Ok(None)
            } else {
                slice(ptr, n, name).map(Some)
            }
        };
        Ok(h.ranks.set_body(
            id,
            given(position, d, "position")?,
            given(orientation, rotation, "orientation")?,
            given(velocity, d, "velocity")?,
            given(angular_velocity, spin, "angular_velocity")?,
        )?)
    })
}

/// The contact force (`dim` numbers a body) and torque (2D: 1; 3D: 3) on each body this rank
/// owns, in the order of [`tumble_ranks_owned_ids`], into `forces` and `torques` (room for
/// `capacity` bodies each; either may be null); `*count` is the number of owned bodies.
///
/// # Safety
/// `ranks` must be a pointer this library returned; non-null outputs must have room for
/// `capacity` bodies; `count` writable.
#[no_mangle]
pub unsafe extern "C" fn tumble_ranks_contact_forces(
    ranks: *mut TumbleRanks,
    forces: *mut f64,
    torques: *mut f64,
    capacity: usize,
    count: *mut usize,
) -> TumbleStatus {
    handle::guard_on_mut(ranks, "ranks", |h| {
        let n = h.ranks.owned_ids().len();
        room(n, capacity, forces.is_null() && torques.is_null(), count, "bodies")?;
        let (f, t) = h.ranks.contact_forces()?;
        if !forces.is_null() {
            slice_mut(forces, f.len(), "forces")?.copy_from_slice(&f);
        }
        if !torques.is_null() {
            slice_mut(torques, t.len(), "torques")?.copy_from_slice(&t);
        }
        Ok(())
    })
}

/// Advances every rank's bodies by `steps` dry steps of `dt` (every rank calls it together): the
/// same bodies, to the last bit, as one world of them all. If any rank fails, every rank
/// returns `TUMBLE_STATUS_FAILED` at the same step, and the split world is not to be stepped
/// again.
///
/// # Safety
/// `ranks` must be a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_ranks_step(ranks: *mut TumbleRanks, dt: f64, steps: usize) -> TumbleStatus {
    handle::guard_on_mut(ranks, "ranks", |h| Ok(h.ranks.step(dt, steps)?))
}

/// After the host moved the bodies this rank owns (`tumble_ranks_set_body`): each body goes to
/// the rank that owns its centre now and the ghosts are sent afresh (every rank calls it
/// together).
///
/// # Safety
/// `ranks` must be a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_ranks_redistribute(ranks: *mut TumbleRanks) -> TumbleStatus {
    handle::guard_on_mut(ranks, "ranks", |h| Ok(h.ranks.redistribute()?))
}

/// The message of the last failed call on `ranks` (empty if none), valid until the next; never
/// null.
///
/// # Safety
/// `ranks` must be null or a pointer this library returned.
#[no_mangle]
pub unsafe extern "C" fn tumble_ranks_error(ranks: *const TumbleRanks) -> *const c_char {
    handle::error_of(ranks, "ranks")
}
