//! The one error type of the run-time-dimension API.

use std::fmt;

/// Whose fault a failure is: the C ABI's status and the Python exception follow from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// An argument out of its range: a length, a dimension, a NaN, an index, a tag.
    InvalidArgument,
    /// The library refused the input or the state: an unreadable file, an inverted cell, an
    /// empty front, a body outside the domain.
    Failed,
}

/// A failure: its kind and a message that names the argument, node, cell, body or file at fault.
///
/// ```
/// use tumble::dynamic::{ErrorKind, Mesh};
/// // A wrong argument names it.
/// let e = Mesh::new_box(&[0.0, 0.0], &[1.0, f64::NAN], &[4, 4]).unwrap_err();
/// assert_eq!((e.kind, e.argument.as_deref()), (ErrorKind::InvalidArgument, Some("upper")));
/// assert_eq!(e.message, "upper: component 1 is NaN");
/// // The library's refusal says what and where.
/// let e = Mesh::read_gmsh("no/such/file.msh").unwrap_err();
/// assert_eq!(e.kind, ErrorKind::Failed);
/// assert!(e.message.contains("no/such/file.msh"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// Whose fault.
    pub kind: ErrorKind,
    /// The argument at fault, for [`ErrorKind::InvalidArgument`].
    pub argument: Option<String>,
    /// What is wrong and what is expected (starting with the argument's name, if any).
    pub message: String,
}

impl Error {
    /// The argument `name` is wrong: `message` says how.
    pub fn argument(name: &str, message: impl fmt::Display) -> Self {
        Error {
            kind: ErrorKind::InvalidArgument,
            argument: Some(name.to_string()),
            message: format!("{name}: {message}"),
        }
    }

    /// The library's own error.
    pub fn failed(error: impl fmt::Display) -> Self {
        Error {
            kind: ErrorKind::Failed,
            argument: None,
            message: error.to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// `values` must all be finite: the first that is not is an error naming `name` and its index.
pub(crate) fn finite(name: &str, values: &[f64]) -> Result<(), Error> {
    match values.iter().position(|x| !x.is_finite()) {
        Some(k) => Err(Error::argument(name, format!("component {k} is {}", values[k]))),
        None => Ok(()),
    }
}

/// `values` must hold `expected` numbers.
pub(crate) fn length(name: &str, values: &[f64], expected: usize) -> Result<(), Error> {
    if values.len() == expected {
        Ok(())
    } else {
        Err(Error::argument(
            name,
            format!("has {} numbers, expected {expected}", values.len()),
        ))
    }
}
