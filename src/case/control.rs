//! What every run shares with its caller: how it is driven ([`Control`]: the setup time to count,
//! a progress report, a request to stop, where its notices go), what it tells ([`Notice`]) and the
//! head of its `summary.json` ([`RunHeader`]: the case, how the run ended, the error).

use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a run is driven from outside.
#[derive(Default)]
pub struct Control<'a> {
    /// Seconds spent building the case before the run was called (counted in `wall_seconds`).
    pub setup_seconds: f64,
    /// Called after every step with `(step, steps)`.
    pub progress: Option<&'a mut dyn FnMut(usize, usize)>,
    /// Read after every step: once set (by a signal handler, say), the run stops at the end of the
    /// step, writes its outputs whole and a `summary.json` with `"status": "interrupted"`, and
    /// returns [`super::CaseError::Interrupted`].
    pub stop: Option<&'a AtomicBool>,
    /// Shown what the run will do and write, once its first output (step 0) is written and before
    /// its first step; an `Err(why)` stops the run there ([`super::CaseError::Refused`]).
    pub plan: Option<&'a mut ApprovePlan<'a>>,
    /// Continue the run from the checkpoint in the output directory
    /// ([`super::checkpoint`]) instead of starting it afresh.
    pub restart: bool,
    /// Told every [`Notice`] as the run gives it (the command line prints them on stderr, Python
    /// issues them as warnings); the warnings are also in `summary.json`.
    pub notify: Option<&'a mut dyn FnMut(&Notice)>,
}

/// What a run tells its user besides its results: every front end gives the same ones, since
/// the run driver ([`super::run`]) makes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// What the run did or changed on the way (files of an earlier run removed, cells of a mesh
    /// reordered).
    Note(String),
    /// What may make the results wrong (a time step above the stable one, a CFL number above 1).
    Warning(String),
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::Note(text) => write!(f, "note: {text}"),
            Notice::Warning(text) => write!(f, "warning: {text}"),
        }
    }
}

/// Shown a run's [`Plan`]; `Err(why)` refuses it.
pub type ApprovePlan<'a> = dyn FnMut(&Plan) -> Result<(), String> + 'a;

/// What a time-stepping run will do and write, estimated from its first output.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Steps to do.
    pub steps: usize,
    /// `Δt`.
    pub time_step: f64,
    /// The end time.
    pub end: f64,
    /// `.vtu` snapshots (each of one or more files) in all, the first one included.
    pub snapshots: usize,
    /// Times rows are written to the CSV file(s), the first one included.
    pub rows: usize,
    /// Estimated bytes of the whole output: what the first output wrote, plus a snapshot's size
    /// times the snapshots to come, plus a row time's bytes times the rows to come.
    pub bytes: f64,
}

impl Plan {
    /// Adds `bytes` to the estimate (the rows of the bodies `[[inflow]]` will release).
    pub(super) fn add_bytes(&mut self, bytes: f64) {
        self.bytes += bytes;
    }

    /// The plan of a run of `steps` steps of `dt` to `end` writing snapshots every `every` steps
    /// (0: none) and rows every `csv_every`, into `out`, whose first output (step 0) has the
    /// snapshot there ([`first_snapshot_bytes`]) and rows of `row_bytes`.
    pub(super) fn new(
        (steps, dt, end): (usize, f64, f64),
        (every, csv_every): (usize, usize),
        out: &std::path::Path,
        row_bytes: f64,
    ) -> Plan {
        let snapshot_bytes = first_snapshot_bytes(out);
        // Every `every`-th step and the last one; with no snapshot at all, none.
        let outputs = |period: usize| steps / period + usize::from(steps % period != 0);
        let snapshots = if every > 0 { outputs(every).saturating_add(1) } else { 0 };
        let rows = outputs(csv_every.max(1)).saturating_add(1);
        let written: u64 = std::fs::read_dir(out)
            .map(|dir| dir.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
            .unwrap_or(0);
        Plan {
            steps,
            time_step: dt,
            end,
            snapshots,
            rows,
            bytes: written as f64
                + snapshot_bytes * snapshots.saturating_sub(1) as f64
                + row_bytes * (rows as f64 - 1.0),
        }
    }
}

/// Bytes of the first snapshot's files in `out` (`*_000000.vtu`).
fn first_snapshot_bytes(out: &std::path::Path) -> f64 {
    std::fs::read_dir(out)
        .map(|dir| {
            dir.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with("_000000.vtu"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len() as f64)
                .sum()
        })
        .unwrap_or(0.0)
}

impl Control<'_> {
    /// Reports `step` of `steps`.
    pub(super) fn report(&mut self, step: usize, steps: usize) {
        if let Some(progress) = &mut self.progress {
            progress(step, steps);
        }
    }

    /// Shows `plan` to the caller, who may refuse it.
    pub(super) fn approve(&mut self, case: &super::Case, plan: &Plan) -> Result<(), super::CaseError> {
        match &mut self.plan {
            Some(approve) => approve(plan).map_err(|message| super::CaseError::Refused {
                file: case.path.clone(),
                message,
            }),
            None => Ok(()),
        }
    }

    /// Tells the caller `notice`.
    pub(super) fn tell(&mut self, notice: Notice) {
        if let Some(notify) = &mut self.notify {
            notify(&notice);
        }
    }

    /// Whether the caller asked the run to stop.
    pub(super) fn stop_requested(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Still running (what `summary.json` says from the start until the end: a process killed
    /// outright leaves it so).
    Running,
    /// Reached the end time.
    Completed,
    /// Stopped by an error (named in `error`).
    Failed,
    /// Stopped at the caller's request (a signal) at the end of a step.
    Interrupted,
}

/// The head of every `summary.json`: which case, how it ended and why.
#[derive(Debug, Clone, Serialize)]
pub struct RunHeader {
    /// The case's name.
    pub case: String,
    /// How the run ended.
    pub status: Status,
    /// The error that stopped the run, or the interruption.
    pub error: Option<String>,
    /// 2 or 3.
    pub dimension: usize,
    /// How many times the run was continued from a checkpoint (`tumble run --restart`).
    pub restarts: usize,
}

impl RunHeader {
    /// The header of a run of `case` in dimension `D` that has started.
    pub(super) fn running<const D: usize>(case: &super::Case) -> Self {
        Self::running_named(case.name(), D)
    }

    /// The header of a run of the case `name` in `dimension` that has started.
    pub fn running_named(name: String, dimension: usize) -> Self {
        RunHeader {
            case: name,
            status: Status::Running,
            error: None,
            dimension,
            restarts: 0,
        }
    }

    /// Says how the run ended: with `failure`, or completed without one.
    pub(super) fn conclude(&mut self, failure: Option<&super::CaseError>) {
        self.status = match failure {
            None => Status::Completed,
            Some(super::CaseError::Interrupted { .. }) => Status::Interrupted,
            Some(_) => Status::Failed,
        };
        self.error = failure.map(|e| e.to_string());
    }
}
