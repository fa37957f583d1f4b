//! The status every entry point returns, the last error's message, and the guard that keeps
//! panics and bad pointers on this side of the boundary.

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

/// What a call did: `TUMBLE_STATUS_OK`, or why it did nothing. The message of the last failure
/// is [`tumble_last_error`] (per thread) and the handle's own (`tumble_mesh_error`, …).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TumbleStatus {
    /// Done.
    Ok = 0,
    /// A pointer argument that must not be null was null.
    NullPointer = 1,
    /// An argument out of its range: a count, a dimension, a NaN, an index, a tag the mesh lacks.
    InvalidArgument = 2,
    /// A handle that is not live: freed already, never made, or of another kind.
    InvalidHandle = 3,
    /// An output buffer smaller than the result; the count says how large it must be.
    BufferTooSmall = 4,
    /// The library refused the input: an unreadable file, an inverted cell, an empty front, …
    Failed = 5,
    /// A bug inside `tumble` (a Rust panic), caught at the boundary; the message says where.
    Panic = 6,
}

/// A failure on its way to the caller: its status and message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: TumbleStatus,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(status: TumbleStatus, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }

    /// An argument out of range, named.
    pub(crate) fn argument(name: &str, message: impl std::fmt::Display) -> Self {
        Failure::new(TumbleStatus::InvalidArgument, format!("{name}: {message}"))
    }
}

impl From<tumble::dynamic::Error> for Failure {
    fn from(e: tumble::dynamic::Error) -> Self {
        let status = match e.kind {
            tumble::dynamic::ErrorKind::InvalidArgument => TumbleStatus::InvalidArgument,
            tumble::dynamic::ErrorKind::Failed => TumbleStatus::Failed,
        };
        Failure::new(status, e.message)
    }
}

impl Failure {
    /// The failure `e`, its argument named as the C caller sees it (`options.range`) when it is
    /// one of `fields`, the fields of the options struct the call read.
    pub(crate) fn naming_options(e: tumble::dynamic::Error, fields: &[&str]) -> Self {
        let in_options = e.argument.as_deref().is_some_and(|a| fields.contains(&a));
        let mut failure = Failure::from(e);
        if in_options {
            failure.message = format!("options.{}", failure.message);
        }
        failure
    }
}

/// A call's outcome before it becomes a status.
pub(crate) type Outcome = Result<(), Failure>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// A handle's last error message, kept with the handle.
#[derive(Debug, Default)]
pub(crate) struct ErrorSlot(Mutex<CString>);

impl ErrorSlot {
    fn set(&self, message: &CString) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = message.clone();
    }

    /// The message; valid until the next failing call on the handle.
    pub(crate) fn as_ptr(&self) -> *const c_char {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).as_ptr()
    }
}

/// Runs `body`, turning its failure or panic into a status and recording the message for this
/// thread and, when the call has one, for its handle (`slot`).
pub(crate) fn guard(slot: Option<&ErrorSlot>, body: impl FnOnce() -> Outcome) -> TumbleStatus {
    report(slot, caught(body))
}

/// `body`'s outcome, a panic turned into a [`TumbleStatus::Panic`] failure.
pub(crate) fn caught(body: impl FnOnce() -> Outcome) -> Outcome {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(Failure::new(
            TumbleStatus::Panic,
            format!("internal error (please report): {what}"),
        ))
    })
}

/// The status of `outcome`; a failure's message is recorded for this thread and, when the call
/// has a handle, in its `slot`.
pub(crate) fn report(slot: Option<&ErrorSlot>, outcome: Outcome) -> TumbleStatus {
    let Err(failure) = outcome else {
        return TumbleStatus::Ok;
    };
    let message = CString::new(failure.message.replace('\0', " ")).unwrap_or_default();
    if let Some(slot) = slot {
        slot.set(&message);
    }
    LAST_ERROR.with(|last| *last.borrow_mut() = message);
    failure.status
}

/// `ptr` as a slice of `len` items; null is accepted only for `len = 0`.
///
/// # Safety
/// A non-null `ptr` must point to `len` readable items.
pub(crate) unsafe fn slice<'a, T>(ptr: *const T, len: usize, name: &str) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure::new(
            TumbleStatus::NullPointer,
            format!("{name} is null but its count is {len}"),
        ));
    }
    if !ptr.is_aligned() {
        return Err(Failure::argument(name, "is not aligned for its type"));
    }
    Ok(std::slice::from_raw_parts(ptr, len))
}

/// `ptr` as a mutable slice of `len` items, as [`slice`].
///
/// # Safety
/// A non-null `ptr` must point to `len` writable items.
pub(crate) unsafe fn slice_mut<'a, T>(ptr: *mut T, len: usize, name: &str) -> Result<&'a mut [T], Failure> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(Failure::new(
            TumbleStatus::NullPointer,
            format!("{name} is null but its capacity is {len}"),
        ));
    }
    if !ptr.is_aligned() {
        return Err(Failure::argument(name, "is not aligned for its type"));
    }
    Ok(std::slice::from_raw_parts_mut(ptr, len))
}

/// Writes `value` through `ptr`, which must not be null.
///
/// # Safety
/// A non-null `ptr` must be writable.
pub(crate) unsafe fn put<T>(ptr: *mut T, value: T, name: &str) -> Outcome {
    if ptr.is_null() {
        return Err(Failure::new(TumbleStatus::NullPointer, format!("{name} is null")));
    }
    ptr.write(value);
    Ok(())
}

/// `source` into the caller's buffer, or the room it needs.
///
/// # Safety
/// `out` must hold `capacity` writable items, `count` be writable.
pub(crate) unsafe fn copy_out<T: Copy>(
    source: &[T],
    out: *mut T,
    capacity: usize,
    count: *mut usize,
    name: &str,
) -> Result<(), Failure> {
    put(count, source.len(), "count")?;
    if capacity < source.len() {
        return Err(Failure::new(
            TumbleStatus::BufferTooSmall,
            format!("{name} has room for {capacity}, the field has {} nodes", source.len()),
        ));
    }
    slice_mut(out, source.len(), name)?.copy_from_slice(source);
    Ok(())
}

/// The message of the last call on this thread that failed, or an empty string; valid until the
/// next failing call on this thread. Never null.
#[no_mangle]
pub extern "C" fn tumble_last_error() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// `n × per`, the length of an array of `n` items of `per` numbers, or an error naming the count
/// `name` if it overflows.
pub(crate) fn count(n: usize, per: usize, name: &str) -> Result<usize, Failure> {
    n.checked_mul(per)
        .ok_or_else(|| Failure::argument(name, format!("count {n} × {per} overflows")))
}

/// `dim` as a size, if it is 2 or 3.
pub(crate) fn dimension(dim: u32) -> Result<usize, Failure> {
    match dim {
        2 | 3 => Ok(dim as usize),
        _ => Err(Failure::argument("dim", format!("is {dim}, expected 2 or 3"))),
    }
}

/// Writes `n`, the number of items there are, into `*count`; unless every output is null
/// (`none_given`, a call that asks for the count), `capacity` must hold them.
pub(crate) unsafe fn room(n: usize, capacity: usize, none_given: bool, count: *mut usize, what: &str) -> Outcome {
    put(count, n, "count")?;
    if capacity < n && !none_given {
        return Err(Failure::new(
            TumbleStatus::BufferTooSmall,
            format!("room for {capacity} {what}, there are {n}"),
        ));
    }
    Ok(())
}

/// Copies `source` into `out` (room for `source.len()`), unless `out` is null.
pub(crate) unsafe fn copy_if_given<T: Copy>(source: &[T], out: *mut T, name: &str) -> Outcome {
    if !out.is_null() {
        slice_mut(out, source.len(), name)?.copy_from_slice(source);
    }
    Ok(())
}

/// The options behind `options`, which a contact's `*_new` needs: null is an error saying to start
/// from `defaults()` and set the range and the stiffness.
pub(crate) unsafe fn contact_options<T: Copy>(options: *const T, defaults: &str) -> Result<T, Failure> {
    if options.is_null() {
        return Err(Failure::new(
            TumbleStatus::NullPointer,
            format!("options is null: start from {defaults}() and set range and stiffness"),
        ));
    }
    Ok(options.read())
}
