//! A world split across ranks through the C ABI, on one rank whose callbacks copy what it sends
//! itself: the bad calls are statuses and messages naming what is wrong, and the split world
//! steps as the world alone, bit for bit.

use std::ffi::{c_int, c_void, CStr};
use std::ptr::{null, null_mut};
use tumble_c::*;

fn last() -> String {
    unsafe { CStr::from_ptr(tumble_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// One rank's `MPI_Alltoall`: its one count back to itself.
unsafe extern "C" fn counts(_: *mut c_void, send: *const c_int, recv: *mut c_int) -> c_int {
    *recv = *send;
    0
}

/// One rank's `MPI_Alltoallv`: its numbers back to itself.
unsafe extern "C" fn numbers(
    _: *mut c_void,
    send: *const f64,
    send_counts: *const c_int,
    _: *const c_int,
    recv: *mut f64,
    _: *const c_int,
    _: *const c_int,
) -> c_int {
    std::ptr::copy_nonoverlapping(send, recv, *send_counts as usize);
    0
}

/// A callback that fails.
unsafe extern "C" fn broken(_: *mut c_void, _: *const c_int, _: *mut c_int) -> c_int {
    1
}

const ALONE: TumbleExchange = TumbleExchange {
    context: null_mut(),
    rank: 0,
    size: 1,
    counts: Some(counts),
    numbers: Some(numbers),
};

/// Three disks falling onto the floor of the unit square, thrown sideways, damped.
unsafe fn world() -> *mut TumbleWorld {
    let mut square = null_mut();
    assert_eq!(
        tumble_mesh_box(
            2,
            [0.0, 0.0].as_ptr(),
            [1.0, 1.0].as_ptr(),
            [16, 16].as_ptr(),
            &mut square
        ),
        TumbleStatus::Ok
    );
    let mut options = tumble_world_options_default();
    options.gravity[1] = -10.0;
    options.drag_linear = 20.0;
    options.drag_angular = 20.0;
    options.range = 0.02;
    options.stiffness = 1e-5;
    let mut w = null_mut();
    assert_eq!(
        tumble_world_new(2, square, [1, 2, 3, 4].as_ptr(), 4, &options, &mut w),
        TumbleStatus::Ok,
        "{}",
        last()
    );
    tumble_mesh_free(square);
    for (k, x) in [0.25, 0.5, 0.75].iter().enumerate() {
        let mut index = 0;
        let at = [*x, 0.3 + 0.1 * k as f64];
        assert_eq!(
            tumble_world_add_ellipsoid(w, [0.1, 0.1].as_ptr(), 1.0, at.as_ptr(), &0.0, &mut index),
            TumbleStatus::Ok
        );
        let v = [1.0 - k as f64, 0.0];
        tumble_world_set_body(w, index, null(), null(), v.as_ptr(), null());
    }
    w
}

/// The whole square, rank 0's.
const SQUARE: [f64; 4] = [0.0, 0.0, 1.0, 1.0];

#[test]
fn a_split_world_on_one_rank_steps_as_the_world_alone() {
    unsafe {
        let alone = world();
        assert_eq!(tumble_world_step(alone, 1e-3, 2000), TumbleStatus::Ok, "{}", last());
        let w = world();
        let mut ranks = null_mut();
        let status = tumble_world_distribute(w, &ALONE, [1].as_ptr(), 1, SQUARE.as_ptr(), &mut ranks);
        assert_eq!(status, TumbleStatus::Ok, "{}", last());
        assert_eq!(tumble_ranks_step(ranks, 1e-3, 2000), TumbleStatus::Ok, "{}", last());
        let mut ids = [0u64; 3];
        let mut count = 0;
        assert_eq!(
            tumble_ranks_owned_ids(ranks, ids.as_mut_ptr(), 3, &mut count),
            TumbleStatus::Ok
        );
        assert_eq!((count, ids), (3, [0, 1, 2]));
        let mut lowest = (f64::INFINITY, 0);
        for id in 0..3u64 {
            let (mut x, mut v, mut a, mut w) = ([0.0; 2], [0.0; 2], 0.0, 0.0);
            let (mut x1, mut v1, mut a1, mut w1) = ([0.0; 2], [0.0; 2], 0.0, 0.0);
            tumble_world_get_body(alone, id as usize, x.as_mut_ptr(), &mut a, v.as_mut_ptr(), &mut w);
            tumble_ranks_get_body(ranks, id, x1.as_mut_ptr(), &mut a1, v1.as_mut_ptr(), &mut w1);
            assert_eq!((x, v, a, w), (x1, v1, a1, w1), "body {id}");
            if x[1] < lowest.0 {
                lowest = (x[1], id as usize);
            }
        }
        assert!(
            lowest.0 < 0.12,
            "the disks fell onto the floor (within its range 0.02): the lowest at {}",
            lowest.0
        );
        // A body set is seen by the other ranks only after an exchange.
        assert_eq!(
            tumble_ranks_set_body(ranks, 1, [0.5, 0.85].as_ptr(), null(), null(), null()),
            TumbleStatus::Ok
        );
        let mut forces = [0.0; 6];
        let status = tumble_ranks_contact_forces(ranks, forces.as_mut_ptr(), null_mut(), 3, &mut count);
        assert_eq!(status, TumbleStatus::Failed);
        assert!(last().contains("call redistribute first"), "{}", last());
        assert_eq!(tumble_ranks_redistribute(ranks), TumbleStatus::Ok, "{}", last());
        let status = tumble_ranks_contact_forces(ranks, forces.as_mut_ptr(), null_mut(), 3, &mut count);
        assert_eq!(status, TumbleStatus::Ok, "{}", last());
        assert_eq!(
            (forces[2], forces[3]),
            (0.0, 0.0),
            "the disk moved up touches nothing: {forces:?}"
        );
        let (_, k) = lowest;
        if k != 1 {
            assert!(
                forces[2 * k + 1] > 0.0,
                "the floor holds the lowest disk up: {forces:?}"
            );
        }
        tumble_ranks_free(ranks);
        tumble_world_free(w);
        tumble_world_free(alone);
    }
}

#[test]
fn bad_splits_are_refused_naming_what_is_wrong() {
    unsafe {
        let w = world();
        let mut ranks = null_mut();
        let no_callback = TumbleExchange { numbers: None, ..ALONE };
        let status = tumble_world_distribute(w, &no_callback, [1].as_ptr(), 1, SQUARE.as_ptr(), &mut ranks);
        assert_eq!(status, TumbleStatus::InvalidArgument);
        assert!(last().contains("exchange: needs both callbacks"), "{}", last());
        let past = TumbleExchange { rank: 1, ..ALONE };
        let status = tumble_world_distribute(w, &past, [1].as_ptr(), 1, SQUARE.as_ptr(), &mut ranks);
        assert!(last().contains("rank 1 of 1 ranks"), "{status:?} {}", last());
        let two = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0];
        let status = tumble_world_distribute(w, &ALONE, [1, 1].as_ptr(), 2, two.as_ptr(), &mut ranks);
        assert_eq!(status, TumbleStatus::InvalidArgument);
        assert!(
            last().contains("gives 2 ranks' parts, the communicator has 1"),
            "{}",
            last()
        );
        let inverted = [1.0, 0.0, 0.0, 1.0];
        let status = tumble_world_distribute(w, &ALONE, [1].as_ptr(), 1, inverted.as_ptr(), &mut ranks);
        assert_eq!(status, TumbleStatus::InvalidArgument);
        assert!(
            last().contains("rank 0's box 0 is [[1.0, 0.0], [0.0, 1.0]]"),
            "{}",
            last()
        );
        assert!(ranks.is_null());
        // The refused calls left the bodies in the world: a failing exchange is next.
        let failing = TumbleExchange {
            counts: Some(broken),
            ..ALONE
        };
        let status = tumble_world_distribute(w, &failing, [1].as_ptr(), 1, SQUARE.as_ptr(), &mut ranks);
        assert_eq!(status, TumbleStatus::Failed);
        assert!(last().contains("rank 0 failed at this step"), "{}", last());
        tumble_world_free(w);
        // A body outside every part.
        let w = world();
        let lower_half = [0.0, 0.0, 1.0, 0.32];
        let status = tumble_world_distribute(w, &ALONE, [1].as_ptr(), 1, lower_half.as_ptr(), &mut ranks);
        assert_eq!(status, TumbleStatus::Failed);
        assert!(
            last().contains("body 1's centre [0.5, 0.4] is in no rank's part"),
            "{}",
            last()
        );
        tumble_world_free(w);
        // A body this rank does not own.
        let w = world();
        let status = tumble_world_distribute(w, &ALONE, [1].as_ptr(), 1, SQUARE.as_ptr(), &mut ranks);
        assert_eq!(status, TumbleStatus::Ok, "{}", last());
        let mut x = [0.0; 2];
        let status = tumble_ranks_get_body(ranks, 7, x.as_mut_ptr(), null_mut(), null_mut(), null_mut());
        assert_eq!(status, TumbleStatus::InvalidArgument);
        assert!(last().contains("id: is 7, a body rank 0 does not own"), "{}", last());
        assert_eq!(tumble_ranks_step(ranks, -1.0, 1), TumbleStatus::InvalidArgument);
        tumble_ranks_free(ranks);
        tumble_world_free(w);
    }
}
