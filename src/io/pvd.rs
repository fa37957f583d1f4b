//! ParaView collection (`.pvd`) files: a time series of `.vtu` files. vtkio has no writer for them;
//! the format is a few lines of XML.

use super::{write_atomically, OutputError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One dataset of a series: (time, part, file).
pub type PvdEntry = (f64, usize, String);

/// A `.pvd` time series, rewritten whole after each new entry so that an interrupted run leaves a
/// valid series of the steps it finished. A time may hold several datasets (parts: the fluid and
/// the bodies, say), which ParaView shows together.
#[derive(Debug)]
pub struct PvdSeries {
    path: PathBuf,
    /// (time, part, file).
    entries: Vec<PvdEntry>,
}

impl PvdSeries {
    /// A series to be written at `path` (nothing is written until the first [`push`](Self::push)).
    pub fn new(path: impl AsRef<Path>) -> Self {
        PvdSeries {
            path: path.as_ref().to_path_buf(),
            entries: Vec::new(),
        }
    }

    /// The series at `path` with the entries of an earlier run (saved from [`Self::entries`]),
    /// written at once (the file on disk may list later entries, which are dropped).
    pub fn restored(path: impl AsRef<Path>, entries: Vec<PvdEntry>) -> Result<Self, OutputError> {
        let series = PvdSeries {
            path: path.as_ref().to_path_buf(),
            entries,
        };
        series.write()?;
        Ok(series)
    }

    /// Adds the dataset `file` (a path relative to the `.pvd` file's directory) at `time` and
    /// rewrites the collection.
    pub fn push(&mut self, time: f64, file: &str) -> Result<(), OutputError> {
        self.push_parts(time, &[file])
    }

    /// Adds the datasets `files` at `time` as parts 0, 1, … and rewrites the collection.
    pub fn push_parts(&mut self, time: f64, files: &[&str]) -> Result<(), OutputError> {
        self.entries
            .extend(files.iter().enumerate().map(|(part, f)| (time, part, f.to_string())));
        self.write()
    }

    /// Writes the collection whole.
    fn write(&self) -> Result<(), OutputError> {
        let entries = &self.entries;
        write_atomically(&self.path, |out| {
            let io = |cause| OutputError::Io {
                path: self.path.clone(),
                cause,
            };
            writeln!(out, "<?xml version=\"1.0\"?>").map_err(io)?;
            writeln!(
                out,
                "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">"
            )
            .map_err(io)?;
            writeln!(out, "  <Collection>").map_err(io)?;
            for (t, part, f) in entries {
                writeln!(
                    out,
                    "    <DataSet timestep=\"{t:e}\" group=\"\" part=\"{part}\" file=\"{}\"/>",
                    xml_escape(f)
                )
                .map_err(io)?;
            }
            writeln!(out, "  </Collection>").map_err(io)?;
            writeln!(out, "</VTKFile>").map_err(io)
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The entries so far: (time, part, file).
    pub fn entries(&self) -> &[PvdEntry] {
        &self.entries
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
