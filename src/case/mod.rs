//! Case files: a whole simulation described in TOML (see [`schema`] for every key, its unit and
//! default), checked, built and run.
//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | [`Case`] (a file read and parsed) and [`CaseError`] |
//! | `schema.rs`, `place.rs` | the keys, and the line of a key for an error |
//! | `build/` | the case builder: the parsed case turned into `sim`'s objects (bodies, walls, contact, domain mesh, flow) |
//! | `inflow.rs` | bodies released during a run (`[[inflow]]`) |
//! | `run.rs` | the run driver ([`run`]): one life for every run, its [`RunSummary`] |
//! | `dry.rs`, `fluid.rs`, `immersed.rs` | the three modes the driver steps: dry bodies, a flow alone, bodies in a flow |
//! | `output.rs`, `checkpoint.rs`, `control.rs` | the bodies' files, checkpoints, and what a run shares with its caller |
//! | `check.rs` | a case's `[check]` intervals judged against its summary |
//!
//! Errors name the file and the field (or the body) and say what is expected; nothing in a case
//! file can make `tumble` panic.

mod build;
pub mod check;
pub mod checkpoint;
mod control;
mod dry;
mod fluid;
mod heap;
mod immersed;
mod inflow;
mod output;
mod place;
mod run;
pub mod schema;

pub use build::{FlowCase, Report};
pub use check::CheckResult;
pub use control::{Control, Notice, Plan, RunHeader, Status};
pub use dry::{run_dry, DryPhaseSeconds, DrySummary};
pub use fluid::{frequency, run_flow, FlowSeconds, FlowSummary};
pub use heap::repose_angle;
pub use immersed::{run_immersed, ImmersedPhaseSeconds, ImmersedSummary};
pub use output::{final_tilt, prepare_output, FinalBody};
pub use run::{run, Finished, RunSummary};
pub use schema::CaseFile;

use crate::body::BodyError;
use crate::fmm::FmmError;
use crate::math::Vector;
use crate::mesh::{gmsh, MeshError, SimplexMesh};
use crate::sim::SimError;
use std::path::{Path, PathBuf};

/// What is wrong with a case, or what stopped its run.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// The file could not be read.
    #[error("{file}: {cause}", file = file.display())]
    Read {
        /// The case file.
        file: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// Not valid TOML, an unknown key, a missing key or a value of the wrong type.
    #[error("{file}: {message}", file = file.display())]
    Parse {
        /// The case file.
        file: PathBuf,
        /// The parser's message (with line, column and key).
        message: String,
    },
    /// A value out of range.
    #[error("{file}{at}: `{field}`: {message}", file = file.display(),
        at = line.map(|l| format!(":{l}")).unwrap_or_default())]
    Invalid {
        /// The case file.
        file: PathBuf,
        /// The line of the key (or of its table, when the key is left to its default).
        line: Option<usize>,
        /// The key, e.g. `contact.range` or `bodies[2].position`.
        field: String,
        /// What is expected.
        message: String,
    },
    /// A mesh the case names could not be read or built.
    #[error("{file}: {what}: {cause}", file = file.display())]
    Mesh {
        /// The case file.
        file: PathBuf,
        /// Which mesh.
        what: String,
        /// Why.
        cause: Box<MeshError>,
    },
    /// A body's geometry could not be built.
    #[error("{file}: body '{body}': {cause}", file = file.display())]
    Body {
        /// The case file.
        file: PathBuf,
        /// The body.
        body: String,
        /// Why.
        cause: Box<BodyError>,
    },
    /// The walls' distance field could not be computed.
    #[error("{file}: `domain.walls`: {cause}", file = file.display())]
    Walls {
        /// The case file.
        file: PathBuf,
        /// Why.
        cause: Box<FmmError>,
    },
    /// The flow solver failed or stopped (a non-finite velocity, say).
    #[error("{file}: {cause}", file = file.display())]
    Fluid {
        /// The case file.
        file: PathBuf,
        /// Why.
        cause: Box<crate::fluid::FluidError>,
    },
    /// The simulation refused the configuration or stopped.
    #[error("{file}: {cause}", file = file.display())]
    Sim {
        /// The case file.
        file: PathBuf,
        /// Why.
        cause: Box<SimError>,
    },
    /// An output file could not be written.
    #[error(transparent)]
    Output(#[from] crate::io::OutputError),
    /// The caller refused the run's plan before its first step (its output would not fit, say).
    #[error("{file}: {message}", file = file.display())]
    Refused {
        /// The case file.
        file: PathBuf,
        /// Why.
        message: String,
    },
    /// The caller asked the run to stop (a signal); it stopped at the end of a step.
    #[error("{file}: interrupted after step {step} (t = {}); the output up to it is written", crate::math::shown(*time), file = file.display())]
    Interrupted {
        /// The case file.
        file: PathBuf,
        /// The last step done.
        step: usize,
        /// Its time.
        time: f64,
    },
}

/// A case file read and parsed, with where it came from.
#[derive(Debug, Clone)]
pub struct Case {
    /// The file.
    pub path: PathBuf,
    /// Its content.
    pub file: CaseFile,
    /// Its text, where errors find the line of a key.
    text: String,
    /// What building the case changed in its input on the way ([`Case::notes`]).
    notes: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Case {
    /// Reads and parses `path`.
    pub fn load(path: &Path) -> Result<Case, CaseError> {
        let text = std::fs::read_to_string(path).map_err(|cause| CaseError::Read {
            file: path.to_path_buf(),
            cause,
        })?;
        Case::parse(path, &text)
    }

    /// Parses `text` as the content of `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Case, CaseError> {
        let file: CaseFile = toml::from_str(text).map_err(|e| CaseError::Parse {
            file: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let case = Case {
            path: path.to_path_buf(),
            file,
            text: text.to_string(),
            notes: Default::default(),
        };
        if let Some(name) = &case.file.name {
            if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
                return Err(case.invalid(
                    "name",
                    format!("'{name}' is not a file name: the run writes to out/<name>, so it may hold no `/` or `\\` and not be `.` or `..`"),
                ));
            }
        }
        Ok(case)
    }

    /// The case's name: `name`, or the file's stem.
    pub fn name(&self) -> String {
        self.file.name.clone().unwrap_or_else(|| {
            self.path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "case".into())
        })
    }

    /// What building the case changed in its input on the way, for the user to be told (cells
    /// of a Gmsh mesh that were clockwise and were reordered), each once: the notes are taken.
    pub fn take_notes(&self) -> Vec<String> {
        self.notes
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }

    /// Reads the Gmsh mesh `path` (for the key `field`), noting cells it reoriented.
    fn read_mesh<const D: usize>(&self, path: &Path, field: &str) -> Result<SimplexMesh<D>, CaseError> {
        let (mesh, notes) = gmsh::read_dim_noted::<D>(path).map_err(|cause| CaseError::Mesh {
            file: self.path.clone(),
            what: field.to_string(),
            cause: Box::new(cause),
        })?;
        if notes.reoriented_cells > 0 {
            if let Ok(mut n) = self.notes.lock() {
                n.push(format!(
                    "{} (`{field}`): {} of {} cells were clockwise (2D) or left-handed (3D) in the file and were reordered",
                    path.display(),
                    notes.reoriented_cells,
                    mesh.num_cells()
                ));
            }
        }
        Ok(mesh)
    }

    fn interrupted(&self, step: usize, time: f64) -> CaseError {
        CaseError::Interrupted {
            file: self.path.clone(),
            step,
            time,
        }
    }

    /// The error for the simulation's `cause`.
    fn sim_error(&self, cause: SimError) -> CaseError {
        CaseError::Sim {
            file: self.path.clone(),
            cause: Box::new(cause),
        }
    }

    fn invalid(&self, field: impl Into<String>, message: impl Into<String>) -> CaseError {
        let field = field.into();
        CaseError::Invalid {
            file: self.path.clone(),
            line: place::line_of(&self.text, &field),
            field,
            message: message.into(),
        }
    }

    /// A path in the case relative to the case file's directory.
    fn relative(&self, p: &str) -> PathBuf {
        self.path.parent().unwrap_or(Path::new(".")).join(p)
    }

    /// A vector of `D` finite components from `v`, or an error naming `field`.
    fn vector<const D: usize>(&self, field: &str, v: &[f64]) -> Result<Vector<D>, CaseError> {
        if v.len() != D || v.iter().any(|x| !x.is_finite()) {
            return Err(self.invalid(field, format!("expected {D} finite numbers, got {v:?}")));
        }
        Ok(Vector::<D>::from_fn(|k, _| v[k]))
    }

    fn positive(&self, field: &str, x: f64) -> Result<f64, CaseError> {
        if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(self.invalid(field, format!("must be a positive number, got {x}")))
        }
    }

    /// The `[time]` table, or an error saying it is needed.
    pub fn time(&self) -> Result<&schema::TimeSpec, CaseError> {
        self.file
            .time
            .as_ref()
            .ok_or_else(|| self.invalid("time", "this case needs a [time] table with `step` and `end`"))
    }

    /// Whether the case has bodies: `[[bodies]]` or bodies released by `[[inflow]]`.
    pub fn has_bodies(&self) -> bool {
        !(self.file.bodies.is_empty() && self.file.inflow.is_empty())
    }
}
