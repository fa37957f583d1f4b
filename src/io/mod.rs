//! Files for users: VTK `.vtu` meshes with fields and `.pvd` time series for ParaView, PNG plots
//! of time series. Every file is written whole: to a temporary file in the same directory, then
//! renamed over the target, so a reader never sees half a file and a run that stops midway keeps
//! every file it finished.

mod atomic;
mod plot;
mod pvd;
mod vtu;

pub use atomic::{write_atomically, write_json, PartFile};
pub use plot::{plot_curves, plot_xy, Curve};
pub use pvd::{PvdEntry, PvdSeries};
pub use vtu::{write_mesh_vtu, write_simplices_vtu, Field};

use std::path::PathBuf;

/// An output file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The operating system refused.
    #[error("{path}: {cause}", path = path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        cause: std::io::Error,
    },
    /// The data could not be encoded.
    #[error("{path}: {message}", path = path.display())]
    Encode {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The output directory cannot take a run (a file, a directory where a file goes, another
    /// program's files).
    #[error("{path}: {message}", path = path.display())]
    Refused {
        /// The directory or file.
        path: PathBuf,
        /// Why, and what to do.
        message: String,
    },
}
