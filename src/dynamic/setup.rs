//! What the run-time-dimension objects that step bodies ([`super::World`], [`super::HostContact`])
//! share: their own pool of threads, and their contact parameters checked with errors naming the
//! argument.

use super::error::Error;
use crate::contact::{ContactModel, ContactParameters};

/// Runs `work` on `pool`'s threads, or on the global pool's.
pub(super) fn within<T: Send>(pool: &Option<rayon::ThreadPool>, work: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// A pool of `threads` threads (`None`: none, rayon's global pool serves).
pub(super) fn thread_pool(threads: Option<usize>) -> Result<Option<rayon::ThreadPool>, Error> {
    match threads {
        None => Ok(None),
        Some(0) => Err(Error::argument(
            "threads",
            "is 0, expected at least 1 (or none for every core)",
        )),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map(Some)
            .map_err(|e| Error::failed(format!("a pool of {n} threads: {e}"))),
    }
}

/// `x` if it is positive and finite, else an error naming `name`.
pub(super) fn positive(name: &str, x: f64) -> Result<f64, Error> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(Error::argument(name, format!("is {x}, expected a positive number")))
    }
}

/// The contact parameters, checked ([`ContactModel::new`]), with errors naming the argument.
pub(super) fn contact_model(parameters: &ContactParameters) -> Result<ContactModel, Error> {
    ContactModel::new(parameters).map_err(|e| Error::argument(e.field, e.message))
}
