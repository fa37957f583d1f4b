//! How the ranks of a body set split across processes talk: one all-to-all of numbers a step.
//!
//! [`Exchange`] is the one collective [`super::Distributed`] needs: every rank sends a buffer of
//! `f64`s to every rank (most of them empty) and receives one from each. A host implements it on
//! its own communicator: with MPI, `MPI_Alltoall` of the counts and `MPI_Alltoallv` of the
//! numbers, or a neighbourhood exchange when it knows its neighbours. `tumble` holds no
//! communicator and starts no processes: the host's MPI is the only one in the run, whichever
//! implementation and bindings the host was built with (which is why this is a trait and not a
//! dependency on the `mpi` crate).
//!
//! [`Threads`] is an in-process implementation (a rank per thread, a mailbox and a barrier), for
//! tests and for trying a partition without MPI.

use std::sync::{Arc, Barrier, Mutex, PoisonError};

/// An all-to-all exchange among the ranks of a communicator. `Send` so that a rank's share can
/// be handed to a thread pool for its computing; [`super::Distributed`] calls it only from the
/// thread that called it (an MPI host initialised with `MPI_THREAD_FUNNELED` is served).
pub trait Exchange: Send {
    /// This rank's number, `0..size()`.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Sends `send[r]` to rank `r` (`send.len() == size()`; this rank's own entry included) and
    /// returns what each rank sent to this one, indexed by the sender. Every rank calls it
    /// together, as a collective.
    fn all_to_all(&self, send: Vec<Vec<f64>>) -> Vec<Vec<f64>>;
}

/// One rank alone: what it sends to itself comes back.
#[derive(Debug, Clone, Copy, Default)]
pub struct Alone;

impl Exchange for Alone {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn all_to_all(&self, send: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
        send
    }
}

/// A rank of a group of threads in one process ([`Threads::group`]).
pub struct Threads {
    rank: usize,
    size: usize,
    shared: Arc<Mailbox>,
}

/// `slots[to][from]`: what `from` sent to `to` in the exchange under way.
struct Mailbox {
    slots: Mutex<Vec<Vec<Vec<f64>>>>,
    barrier: Barrier,
}

impl Threads {
    /// `size` ranks, one for each thread that will call [`Exchange::all_to_all`] together.
    pub fn group(size: usize) -> Vec<Threads> {
        let shared = Arc::new(Mailbox {
            slots: Mutex::new(vec![vec![Vec::new(); size]; size]),
            barrier: Barrier::new(size),
        });
        (0..size)
            .map(|rank| Threads {
                rank,
                size,
                shared: shared.clone(),
            })
            .collect()
    }
}

impl Exchange for Threads {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    /// Two barriers: after every rank has posted, and after every rank has taken its own (so that
    /// no rank posts the next exchange's buffers into a slot not yet read).
    fn all_to_all(&self, send: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
        assert_eq!(send.len(), self.size, "one buffer per rank");
        {
            let mut slots = self.shared.slots.lock().unwrap_or_else(PoisonError::into_inner);
            for (to, buffer) in send.into_iter().enumerate() {
                slots[to][self.rank] = buffer;
            }
        }
        self.shared.barrier.wait();
        let received = {
            let mut slots = self.shared.slots.lock().unwrap_or_else(PoisonError::into_inner);
            std::mem::replace(&mut slots[self.rank], vec![Vec::new(); self.size])
        };
        self.shared.barrier.wait();
        received
    }
}
