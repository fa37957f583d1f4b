//! Opaque handles: boxes handed to the caller as pointers, and the registry of the live ones, so
//! that a handle used after it was freed, twice freed, or of the wrong kind is an error
//! (`TUMBLE_STATUS_INVALID_HANDLE`) instead of a read of freed memory.

use crate::status::{caught, guard, report, tumble_last_error, ErrorSlot, Failure, Outcome, TumbleStatus};
use std::collections::HashMap;
use std::ffi::c_char;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// A kind of handle.
pub(crate) trait Handle: 'static {
    /// Its name in messages (`"mesh"`).
    const KIND: &'static str;
    /// Where the message of the last failed call on it is kept.
    fn error(&self) -> &ErrorSlot;
}

fn registry() -> MutexGuard<'static, HashMap<usize, &'static str>> {
    static LIVE: OnceLock<Mutex<HashMap<usize, &'static str>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// Boxes `value` and registers it: the pointer the caller keeps.
pub(crate) fn make<T: Handle>(value: T) -> *mut T {
    let ptr = Box::into_raw(Box::new(value));
    registry().insert(ptr as usize, T::KIND);
    ptr
}

/// The live handle behind `ptr`.
///
/// # Safety
/// While the caller does not free it on another thread during the call, a registered pointer
/// points to its box.
pub(crate) unsafe fn get<'a, T: Handle>(ptr: *const T, name: &str) -> Result<&'a T, Failure> {
    if ptr.is_null() {
        return Err(Failure::new(TumbleStatus::NullPointer, format!("{name} is null")));
    }
    match registry().get(&(ptr as usize)) {
        Some(&kind) if kind == T::KIND => Ok(&*ptr),
        Some(&kind) => Err(Failure::new(
            TumbleStatus::InvalidHandle,
            format!("{name} is a {kind} handle, expected a {}", T::KIND),
        )),
        None => Err(Failure::new(
            TumbleStatus::InvalidHandle,
            format!("{name} is not a live {} handle (freed already, or never made)", T::KIND),
        )),
    }
}

/// Unregisters and drops the handle behind `ptr`; null is a no-op, as `free(NULL)` is.
///
/// # Safety
/// As [`get`].
pub(crate) unsafe fn free<T: Handle>(ptr: *mut T, name: &str) -> Result<(), Failure> {
    if ptr.is_null() {
        return Ok(());
    }
    get(ptr, name)?;
    registry().remove(&(ptr as usize));
    drop(Box::from_raw(ptr));
    Ok(())
}

/// Runs `body` on the live handle behind `ptr` under [`guard`], its failure recorded on the handle
/// too.
///
/// # Safety
/// As [`get`].
pub(crate) unsafe fn guard_on<T: Handle>(ptr: *const T, name: &str, body: impl FnOnce(&T) -> Outcome) -> TumbleStatus {
    match get(ptr, name) {
        Ok(h) => guard(Some(h.error()), || body(h)),
        Err(e) => report(None, Err(e)),
    }
}

/// The last error message of the handle behind `ptr`, or, if it is not live, the message saying
/// so.
///
/// # Safety
/// As [`get`].
pub(crate) unsafe fn error_of<T: Handle>(ptr: *const T, name: &str) -> *const c_char {
    match get(ptr, name) {
        Ok(h) => h.error().as_ptr(),
        Err(e) => {
            report(None, Err(e));
            tumble_last_error()
        }
    }
}

/// [`guard_on`] for a call that changes the handle.
///
/// # Safety
/// As [`get`]; the caller must not use the handle from another thread during the call.
pub(crate) unsafe fn guard_on_mut<T: Handle>(
    ptr: *mut T,
    name: &str,
    body: impl FnOnce(&mut T) -> Outcome,
) -> TumbleStatus {
    match get(ptr, name) {
        // SAFETY: the handle is live, and the caller holds it alone during the call; the borrow
        // that changes it ends before its error slot is read.
        Ok(_) => {
            let outcome = caught(|| body(&mut *ptr));
            report(Some((*ptr).error()), outcome)
        }
        Err(e) => report(None, Err(e)),
    }
}
