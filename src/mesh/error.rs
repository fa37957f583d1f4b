//! Errors of mesh construction and mesh files: each names the file, the place in it (line or byte
//! offset) or the cell, node or facet at fault, and what was expected. Each message is complete in
//! itself (it includes its cause), so none is chained to a `source()`.

use std::fmt;
use std::path::PathBuf;

/// Where in a file an error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// A 1-based line of a text file.
    Line(usize),
    /// A 0-based byte offset into a binary section.
    Byte(usize),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(l) => write!(f, "line {l}"),
            Location::Byte(b) => write!(f, "byte {b}"),
        }
    }
}

/// Everything that can go wrong when reading, building or writing a mesh.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// The file could not be read or written.
    #[error("{path}: {cause}", path = path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        cause: std::io::Error,
    },
    /// The file is not what its format says it should be at this place.
    #[error("{path}, {location}: {message}", path = path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where in the file.
        location: Location,
        /// What was found and what was expected.
        message: String,
    },
    /// The mesh read from a file is invalid (an inverted element, a facet not on any cell, …).
    #[error("{path}: {cause}", path = path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with its mesh.
        cause: Box<MeshError>,
    },
    /// A cell is invalid.
    #[error("cell {cell}{origin}: {message}")]
    Cell {
        /// The 0-based cell index.
        cell: u32,
        /// Where the cell came from (for example " (element 17 at line 40)"), or empty.
        origin: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A node is invalid.
    #[error("node {node}: {message}")]
    Node {
        /// The 0-based node index.
        node: u32,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A marked facet is invalid.
    #[error("facet {facet} (marker {marker}){origin}: {message}")]
    Facet {
        /// The 0-based index in the list of marked facets.
        facet: u32,
        /// The marker's name, or its number if it has none.
        marker: String,
        /// Where the facet came from, or empty.
        origin: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A marker name that the mesh does not have.
    #[error("the mesh has no marker named '{name}'; it has: {known}")]
    UnknownMarker {
        /// The name asked for.
        name: String,
        /// The names the mesh has, comma-separated.
        known: String,
    },
    /// Inconsistent input that is none of the above.
    #[error("{0}")]
    Invalid(String),
    /// A mesh larger than the memory the run may take.
    #[error(transparent)]
    Memory(#[from] crate::memory::MemoryError),
    /// A mesh with more nodes or cells than its 32-bit indices can number.
    #[error("{0}")]
    TooLarge(String),
}

impl MeshError {
    /// Whether the mesh was refused for its size (memory or index range): a coarser one would do.
    pub fn is_size_limit(&self) -> bool {
        matches!(
            self,
            MeshError::Memory(crate::memory::MemoryError::TooLarge { .. }) | MeshError::TooLarge(_)
        )
    }
}
