//! Checkpoints: a run's whole state in `checkpoint.cbor` in its output directory, from which
//! `tumble run CASE --restart DIR` continues as if it had never stopped.
//!
//! A run writes its checkpoint every `output.checkpoint_every` steps and at its last step (with
//! that key), and whenever it is stopped by a signal (always): the state of its simulation
//! ([`crate::sim::SimulationState`], [`crate::sim::ImmersedState`], or for a flow without bodies
//! [`crate::fluid::UnsteadyState`]), the statistics of its `summary.json` so far, its time spent,
//! and where its outputs stood: the bytes of its rows (`bodies.csv`, or a flow's `fluid.csv`)
//! and the entries of its `.pvd` series at that step, taken before the rows and snapshots a run
//! writes only because it ends or stops there (a run continued from the checkpoint would not
//! have written them; they are cut off). The file is [CBOR](https://cbor.io) (RFC 8949, readable
//! with Python's `cbor2`), written whole (temporary file, then rename): a process killed while
//! writing it leaves the previous one.
//!
//! A continued run (`open`, `Checkpoint::trim`) rebuilds everything that follows from the case file (bodies'
//! geometries and fields, the walls' field, the fluid's matrices and factors), restores the
//! state, cuts the rows back to the checkpoint's, removes the snapshots written after
//! it and rewrites the series; its rows then follow bit for bit those of a run that was never
//! stopped (`tests/restart.rs`). The case may change its end time (to go further) and its
//! output frequencies, not what the state depends on: the dimension, the bodies (by name), the
//! time step, the mesh (its velocity dofs held by the bodies are checked) and the contact
//! parameters that set the sub-steps.

use super::fluid::Reported;
use super::immersed::Extremes;
use super::output::SavedOutputs;
use super::Case;
use crate::fluid::UnsteadyState;
use crate::io::{write_atomically, OutputError};
use crate::sim::{ImmersedState, SimulationState};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The checkpoint's file name in the output directory.
pub const CHECKPOINT: &str = "checkpoint.cbor";

/// The version of the checkpoint's layout; a checkpoint of another version is refused.
const FORMAT: u32 = 1;

/// Seconds of the runs before this one (all earlier processes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct SpentSeconds {
    /// Wall-clock seconds.
    pub wall: f64,
    /// Set-up seconds.
    pub setup: f64,
    /// Seconds writing files.
    pub output: f64,
}

/// The simulation's state and the statistics its summary accumulates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) enum RunState {
    /// A dry run.
    Dry {
        /// The bodies, walls and contact.
        state: SimulationState,
        /// The most contacts at one step so far.
        max_contacts: usize,
        /// The smallest contact gap so far.
        min_gap: Option<f64>,
        /// The largest speed of a body so far (0 in a checkpoint written before it was kept).
        #[serde(default)]
        max_speed: f64,
    },
    /// Bodies in a fluid.
    Immersed {
        /// Bodies, fluid and coupling.
        state: Box<ImmersedState>,
        /// The summary's extremes so far.
        extremes: Extremes,
    },
    /// A flow without bodies (unsteady).
    Flow {
        /// The fluid.
        state: Box<UnsteadyState>,
        /// The values reported at every step so far (the summary's maxima and Strouhal number
        /// read the run's second half).
        history: Vec<Reported>,
        /// Seconds assembling, solving and reporting so far, all processes.
        seconds: [f64; 3],
    },
}

/// Which kind of run a checkpoint is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// [`RunState::Dry`].
    Dry,
    /// [`RunState::Immersed`].
    Immersed,
    /// [`RunState::Flow`].
    Flow,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Dry => "a dry run",
            Kind::Immersed => "a run of bodies in a fluid",
            Kind::Flow => "a flow without bodies",
        }
    }
}

impl RunState {
    fn kind(&self) -> Kind {
        match self {
            RunState::Dry { .. } => Kind::Dry,
            RunState::Immersed { .. } => Kind::Immersed,
            RunState::Flow { .. } => Kind::Flow,
        }
    }
}

/// What `checkpoint.cbor` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Checkpoint {
    /// [`FORMAT`].
    pub format: u32,
    /// The case's name.
    pub case: String,
    /// 2 or 3.
    pub dimension: usize,
    /// Steps done.
    pub step: usize,
    /// Time reached.
    pub time: f64,
    /// `Δt`.
    pub time_step: f64,
    /// How many times the run was continued before this checkpoint was written.
    pub restarts: usize,
    /// Seconds spent up to the checkpoint, all processes.
    pub spent: SpentSeconds,
    /// The outputs then.
    pub outputs: SavedOutputs,
    /// The state.
    pub run: RunState,
}

/// What every checkpoint of one run shares, and the clock of the process writing them.
pub(super) struct Saver<'a> {
    /// The output directory.
    pub out: &'a Path,
    /// The case's name.
    pub case: String,
    /// 2 or 3.
    pub dimension: usize,
    /// `Δt`.
    pub time_step: f64,
    /// Restarts before this process.
    pub restarts: usize,
    /// Seconds spent by earlier processes.
    pub spent: SpentSeconds,
    /// This process's seconds before `start`, counted in the wall-clock time.
    pub before_start: f64,
    /// This process's set-up seconds.
    pub setup: f64,
    /// When this process's run started.
    pub start: std::time::Instant,
}

impl<'a> Saver<'a> {
    /// The saver of a new run of `case` in `dimension` with `Δt` `dt` into `out`, started at
    /// `start`; a continued run sets `restarts` and `spent`, and every run its set-up seconds.
    pub(super) fn of(case: &Case, out: &'a Path, (dimension, dt): (usize, f64), start: std::time::Instant) -> Self {
        Saver {
            out,
            case: case.name(),
            dimension,
            time_step: dt,
            restarts: 0,
            spent: SpentSeconds::default(),
            before_start: 0.0,
            setup: 0.0,
            start,
        }
    }

    /// Writes the checkpoint of the state `run` at `step`, `time`, with the outputs `outputs`
    /// and `output_seconds` spent writing files so far (all processes).
    pub(super) fn save(
        &self,
        (step, time): (usize, f64),
        outputs: SavedOutputs,
        output_seconds: f64,
        run: RunState,
    ) -> Result<(), OutputError> {
        Checkpoint {
            format: FORMAT,
            case: self.case.clone(),
            dimension: self.dimension,
            step,
            time,
            time_step: self.time_step,
            restarts: self.restarts,
            spent: SpentSeconds {
                wall: self.spent.wall + self.before_start + self.start.elapsed().as_secs_f64(),
                setup: self.spent.setup + self.setup,
                output: output_seconds,
            },
            outputs,
            run,
        }
        .write(self.out)
    }
}

impl Checkpoint {
    /// Writes the checkpoint into `out`, whole.
    pub(super) fn write(&self, out: &Path) -> Result<(), OutputError> {
        let path = out.join(CHECKPOINT);
        write_atomically(&path, |w| {
            ciborium::into_writer(self, w).map_err(|e| OutputError::Encode {
                path: path.clone(),
                message: e.to_string(),
            })
        })
    }

    /// Reads the checkpoint of `out`.
    fn read(out: &Path) -> Result<Checkpoint, OutputError> {
        let path = out.join(CHECKPOINT);
        let refused = |message: String| OutputError::Refused {
            path: path.clone(),
            message,
        };
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(refused(
                    "does not exist: the run wrote no checkpoint (set `output.checkpoint_every`; a run stopped \
                     by Ctrl-C or SIGTERM writes one too)"
                        .into(),
                ))
            }
            Err(cause) => return Err(OutputError::Io { path, cause }),
        };
        let checkpoint: Checkpoint = ciborium::from_reader(std::io::BufReader::new(file))
            .map_err(|e| refused(format!("is not a checkpoint of this version of tumble: {e}")))?;
        if checkpoint.format != FORMAT {
            return Err(refused(format!(
                "has layout version {}, this tumble reads version {FORMAT}",
                checkpoint.format
            )));
        }
        Ok(checkpoint)
    }
}

/// The checkpoint in `out`, checked against the run of `case` about to continue from it
/// (dimension `dimension`, `Δt` `dt`, `steps` steps in all, of kind `kind`): it belongs to this
/// case and ends before the case does. Nothing is changed on disk (see [`Checkpoint::trim`]).
pub(super) fn open(
    out: &Path,
    case: &Case,
    (dimension, dt, steps): (usize, f64, usize),
    kind: Kind,
) -> Result<Checkpoint, OutputError> {
    let checkpoint = Checkpoint::read(out)?;
    let mismatch = |message: String| unfit(out, message);
    if checkpoint.case != case.name() {
        return Err(mismatch(format!(
            "belongs to the case '{}', not '{}'",
            checkpoint.case,
            case.name()
        )));
    }
    if checkpoint.dimension != dimension || checkpoint.run.kind() != kind {
        return Err(mismatch(format!(
            "holds {} in {}D; the case is {} in {dimension}D",
            checkpoint.run.kind().describe(),
            checkpoint.dimension,
            kind.describe()
        )));
    }
    if checkpoint.time_step.to_bits() != dt.to_bits() {
        return Err(mismatch(format!(
            "was written with `time.step` = {:e}, the case has {dt:e}: a run continues with its own time step",
            checkpoint.time_step
        )));
    }
    if checkpoint.step >= steps {
        return Err(mismatch(format!(
            "is at step {} (t = {}), and the case ends at step {steps}: there is nothing to continue (raise `time.end`)",
            checkpoint.step,
            crate::math::shown(checkpoint.time)
        )));
    }
    Ok(checkpoint)
}

impl Checkpoint {
    /// Makes `out` ready for the run continued from this checkpoint, once its state is restored:
    /// removes the snapshots written after it (and any temporary file) and writes
    /// `summary.json` saying `running`. `bodies.csv` and the series are cut back by
    /// [`super::output::Writer::resume`].
    pub(super) fn trim(&self, out: &Path) -> Result<(), OutputError> {
        let listed: Vec<&str> = self
            .outputs
            .series
            .iter()
            .flat_map(|(_, entries)| entries.iter().map(|(_, _, f)| f.as_str()))
            .collect();
        for path in later_files(out, &listed)? {
            std::fs::remove_file(&path).map_err(|cause| OutputError::Io { path, cause })?;
        }
        let mut header = super::control::RunHeader::running_named(self.case.clone(), self.dimension);
        header.restarts = self.restarts + 1;
        crate::io::write_json(&out.join("summary.json"), &header)
    }
}

/// The error for a checkpoint in `out` whose state does not fit the case (`why`).
pub(super) fn unfit(out: &Path, why: impl std::fmt::Display) -> OutputError {
    OutputError::Refused {
        path: out.join(CHECKPOINT),
        message: why.to_string(),
    }
}

/// The files of `out` that a continued run replaces: snapshots (`<series>_NNNNNN.vtu`) not in
/// `listed`, and temporary files.
fn later_files(out: &Path, listed: &[&str]) -> Result<Vec<PathBuf>, OutputError> {
    let io = |cause| OutputError::Io {
        path: out.to_path_buf(),
        cause,
    };
    let mut later = Vec::new();
    for entry in std::fs::read_dir(out).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let temporary = name.starts_with('.') && name.ends_with(".tmp") && super::output::is_run_file(&name);
        if temporary || (super::output::is_snapshot(&name) && !listed.contains(&name.as_str())) {
            later.push(entry.path());
        }
    }
    Ok(later)
}
