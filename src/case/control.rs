//! What every run shares with its caller: how it is driven ([`Control`]: the setup time to count,
//! a progress report, a request to stop) and the head of its `summary.json` ([`RunHeader`]: the
//! case, how the run ended, the error).

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
}

impl Control<'_> {
    /// Reports `step` of `steps`.
    pub(super) fn report(&mut self, step: usize, steps: usize) {
        if let Some(progress) = &mut self.progress {
            progress(step, steps);
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
}

impl RunHeader {
    /// The header of a run of `case` in dimension `D` that has started.
    pub(super) fn running<const D: usize>(case: &super::Case) -> Self {
        RunHeader {
            case: case.name(),
            status: Status::Running,
            error: None,
            dimension: D,
        }
    }

    /// The header of a run of `case` in dimension `D` that ended with `failure` (none: completed).
    pub(super) fn new<const D: usize>(case: &super::Case, failure: Option<&super::CaseError>) -> Self {
        RunHeader {
            case: case.name(),
            status: match failure {
                None => Status::Completed,
                Some(super::CaseError::Interrupted { .. }) => Status::Interrupted,
                Some(_) => Status::Failed,
            },
            error: failure.map(|e| e.to_string()),
            dimension: D,
        }
    }
}
