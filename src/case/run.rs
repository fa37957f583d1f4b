//! The run driver: the one life every run of a case lives, whatever it steps.
//!
//! [`run`] is the entry of every front end (`tumble run`, `tumble check`, Python's `tumble.run`):
//! it reads the case's kind and dimension once and hands the run to its mode, a [`Stepper`] (dry
//! bodies, [`super::dry`]; a flow without bodies, [`super::fluid`]; bodies in a flow,
//! [`super::immersed`]). The driver owns what they all do alike:
//!
//! 1. the output directory, made ready once ([`Output::open`]) before the case is built, so that
//!    its errors come before minutes of set-up: a new run's directory cleared of an earlier run's
//!    files, or a continued run's checkpoint read and checked;
//! 2. the build, timed, and the notes it left ([`super::Case::take_notes`]);
//! 3. the start: the files of step 0, or the checkpoint's state restored and the outputs cut
//!    back to it; then the [`Plan`], which the caller may refuse;
//! 4. the steps, with the rows every `output.csv_every` steps, a snapshot every `output.every`,
//!    a checkpoint every `output.checkpoint_every`; the outputs due because the run ends or is
//!    stopped come after the checkpoint (a longer run would not write them; the continued run
//!    cuts them off); a stop request ends the run at the end of a step with a checkpoint;
//! 5. the end: the files closed, the warnings told ([`Notice`]), `summary.json` written with the
//!    fields every run has ([`RunSummary`]) and the mode's own.
//!
//! A run that fails or is stopped keeps every file it wrote and its `summary.json` says why;
//! a continued run refused before its outputs change leaves the earlier run's files as they were.

use super::checkpoint::{self, Checkpoint, Kind, RunState, Saver, SpentSeconds};
use super::control::{Control, Notice, Plan, RunHeader};
use super::output::{prepare_output, step_count, SavedOutputs};
use super::{dry, fluid, immersed, Case, CaseError};
use crate::io::OutputError;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// The fields every `summary.json` has, flattened into each mode's summary.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    /// The case, how the run ended, the error.
    #[serde(flatten)]
    pub header: RunHeader,
    /// Steps done.
    pub steps: usize,
    /// Simulated time reached.
    pub time: f64,
    /// `Δt`; `null` for a steady flow.
    pub time_step: Option<f64>,
    /// Wall-clock seconds of the whole run (all processes of a continued run), set-up included.
    pub wall_seconds: f64,
    /// The warnings the run gave ([`Notice::Warning`]).
    pub warnings: Vec<String>,
}

/// A run done: its `summary.json` and the lines that say what it did (the command line prints
/// them).
#[derive(Debug, Clone)]
pub struct Finished {
    /// `summary.json`'s content.
    pub summary: serde_json::Value,
    /// What the run did, a line each (sizes, times, the main results).
    pub report: Vec<String>,
}

/// Seconds of a run that the driver counts, all processes of a continued run.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Seconds {
    /// Building the case (this process's and the earlier ones').
    pub setup: f64,
    /// Writing files.
    pub output: f64,
}

/// One mode of run, as the driver steps it.
pub(super) trait Stepper {
    /// The mode's part of `summary.json` (with [`RunSummary`] flattened into it).
    type Summary: Serialize;
    /// Whether every snapshot comes with a row (a run in a fluid: its plots read the rows).
    const ROWS_AT_SNAPSHOTS: bool = false;

    /// Steps done and the time reached.
    fn at(&self) -> (usize, f64);
    /// Opens the outputs of a new run and writes those of step 0 but the rows and the snapshot
    /// (the walls' field, say).
    fn start(&mut self) -> Result<(), OutputError>;
    /// Restores the state `run` of a checkpoint; an error leaves the output untouched.
    fn restore(&mut self, run: &RunState) -> Result<(), CaseError>;
    /// Reopens the outputs as they stood at the checkpoint (`saved`), once the later files are gone.
    fn resume(&mut self, saved: &SavedOutputs) -> Result<(), OutputError>;
    /// The bytes of one time's rows, for the plan.
    fn row_bytes(&self) -> f64;
    /// The bytes of the rows of bodies still to come, written every `period` until `end`.
    fn bytes_to_come(&self, _end: f64, _period: f64) -> f64 {
        0.0
    }
    /// Does step `s` (the steps before it done).
    fn step(&mut self, s: usize) -> Result<(), CaseError>;
    /// Writes the rows (with `rows`) and a snapshot (with `snapshot`) of now.
    fn write(&mut self, rows: bool, snapshot: bool) -> Result<(), OutputError>;
    /// What a checkpoint of now holds: the outputs and the state.
    fn save(&mut self) -> Result<(SavedOutputs, RunState), OutputError>;
    /// Closes the outputs (files renamed into place, plots drawn).
    fn finish(&mut self) -> Result<(), OutputError>;
    /// The warnings the run deserves now.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    /// The mode's summary, around the common part `run`, with the driver's `seconds`.
    fn summary(&self, run: RunSummary, seconds: Seconds) -> Self::Summary;
    /// What the run did, a line each.
    fn report(summary: &Self::Summary) -> Vec<String>;
}

/// The output directory of a run, made ready once: a new run's prepared, or a continued run's
/// checkpoint read and checked (nothing changed on disk yet).
pub(super) struct Output<'a> {
    /// The directory.
    pub dir: &'a Path,
    /// The checkpoint a continued run starts from.
    checkpoint: Option<Checkpoint>,
    /// Dimension of the run.
    dimension: usize,
}

impl<'a> Output<'a> {
    /// The directory `dir` ready for a run of `case` of kind `kind` in dimension `D`: with
    /// `control.restart` its checkpoint (refused if it does not fit the case), otherwise cleared
    /// of an earlier run's files (which a note tells) with a `summary.json` saying `running`.
    pub(super) fn open<const D: usize>(
        case: &Case,
        dir: &'a Path,
        kind: Kind,
        control: &mut Control<'_>,
    ) -> Result<Self, CaseError> {
        let checkpoint = if control.restart {
            let time = case.time()?;
            let steps = step_count(time.end, time.step);
            Some(checkpoint::open(dir, case, (D, time.step, steps), kind)?)
        } else {
            let removed = prepare_output(dir, &RunHeader::running::<D>(case))?;
            if removed > 0 {
                control.tell(Notice::Note(format!(
                    "removed {removed} files of an earlier run from {}",
                    dir.display()
                )));
            }
            None
        };
        Ok(Output {
            dir,
            checkpoint,
            dimension: D,
        })
    }

    /// Ends a run that failed before its first step with `failure`: a new run's `summary.json`
    /// says so; a continued run's files stay as the earlier run left them.
    pub(super) fn fail<T>(&self, case: &Case, failure: CaseError) -> Result<T, CaseError> {
        if self.checkpoint.is_none() {
            let mut header = RunHeader::running_named(case.name(), self.dimension);
            header.conclude(Some(&failure));
            crate::io::write_json(&self.dir.join("summary.json"), &header)?;
        }
        Err(failure)
    }
}

impl Finished {
    /// The finished run of a mode whose `summary` and `report` the driver gave.
    pub(super) fn of<S: Serialize>((summary, report): (S, Vec<String>)) -> Finished {
        Finished {
            summary: serde_json::to_value(&summary).expect("a summary is plain data"),
            report,
        }
    }
}

/// Runs `case` into `out`, whatever its kind (dry bodies, a flow, bodies in a flow) and
/// dimension: the directory made ready, the case built and stepped to its end (or continued
/// from its checkpoint with `control.restart`), `summary.json` written. A run that fails or is
/// stopped writes what it computed and its `summary.json`, and returns the error.
pub fn run(case: &Case, out: &Path, control: Control<'_>) -> Result<Finished, CaseError> {
    let (fluid, bodies) = (case.file.fluid.is_some(), case.has_bodies());
    match (case.file.dimension, fluid, bodies) {
        (2, false, _) => dry::run::<2>(case, out, control),
        (3, false, _) => dry::run::<3>(case, out, control),
        (2, true, false) => fluid::run::<2>(case, out, control),
        (3, true, false) => fluid::run::<3>(case, out, control),
        (2, true, true) => immersed::run::<2>(case, out, control),
        (3, true, true) => immersed::run::<3>(case, out, control),
        (d, ..) => Err(case.invalid("dimension", format!("expected 2 or 3, got {d}"))),
    }
}

/// Steps the run that `build` makes (timed as set-up, with the seconds `control.setup_seconds`
/// spent before) into `output`, as the module doc says: its summary and report.
pub(super) fn drive<S: Stepper>(
    case: &Case,
    output: Output<'_>,
    mut control: Control<'_>,
    build: impl FnOnce() -> Result<S, CaseError>,
) -> Result<(S::Summary, Vec<String>), CaseError> {
    let start = Instant::now();
    let out = output.dir;
    let built = build();
    for note in case.take_notes() {
        control.tell(Notice::Note(note));
    }
    let mut stepper = match built {
        Ok(stepper) => stepper,
        Err(e) => return output.fail(case, e),
    };
    let setup = control.setup_seconds + start.elapsed().as_secs_f64();
    let time = case.time()?;
    let (dt, steps) = (time.step, step_count(time.end, time.step));
    let cadence = Cadence::of(case, steps, S::ROWS_AT_SNAPSHOTS);
    let mut failure: Option<CaseError> = None;
    let mut output_seconds = 0.0;
    let (first, spent, restarts) = match &output.checkpoint {
        Some(checkpoint) => {
            stepper.restore(&checkpoint.run)?;
            checkpoint.trim(out)?;
            stepper.resume(&checkpoint.outputs)?;
            (checkpoint.step + 1, checkpoint.spent, checkpoint.restarts + 1)
        }
        None => {
            let t = Instant::now();
            failure = stepper
                .start()
                .and_then(|()| stepper.write(true, cadence.every > 0))
                .err()
                .map(CaseError::from);
            output_seconds = t.elapsed().as_secs_f64();
            (1, SpentSeconds::default(), 0)
        }
    };
    output_seconds += spent.output;
    let mut warned = Vec::new();
    tell_new(&mut control, &mut warned, stepper.warnings());
    if failure.is_none() {
        let mut plan = Plan::new(
            (steps + 1 - first, dt, time.end),
            (cadence.every, cadence.csv_every),
            out,
            stepper.row_bytes(),
        );
        plan.add_bytes(stepper.bytes_to_come(time.end, dt * cadence.csv_every as f64));
        failure = control.approve(case, &plan).err();
    }
    let saver = Saver {
        restarts,
        spent,
        before_start: control.setup_seconds,
        setup,
        ..Saver::of(case, out, (output.dimension, dt), start)
    };
    // The checkpoint of the state now, with the outputs as they stand.
    let save = |stepper: &mut S, output_seconds: f64| {
        let (outputs, state) = stepper.save()?;
        saver.save(stepper.at(), outputs, output_seconds, state)
    };
    for s in first..=steps {
        if failure.is_some() {
            break;
        }
        if control.stop_requested() {
            let (done, t) = stepper.at();
            // The checkpoint, then the state the run stopped at ends the series and the rows.
            let clock = Instant::now();
            let last = save(&mut stepper, output_seconds).and_then(|()| {
                let (rows, snapshot) = cadence.ending(done);
                stepper.write(rows, snapshot)
            });
            output_seconds += clock.elapsed().as_secs_f64();
            failure = Some(last.err().map_or_else(|| case.interrupted(done, t), CaseError::from));
            break;
        }
        if let Err(e) = stepper.step(s) {
            failure = Some(e);
            break;
        }
        // The outputs due at this step, the checkpoint, then those due because the run ends
        // here.
        let clock = Instant::now();
        let (rows, snapshot) = cadence.due(s);
        let mut written = stepper.write(rows, snapshot);
        if written.is_ok() && cadence.checkpoint_every > 0 && (s % cadence.checkpoint_every == 0 || s == steps) {
            written = save(&mut stepper, output_seconds + clock.elapsed().as_secs_f64());
        }
        if written.is_ok() && s == steps {
            let (rows, snapshot) = cadence.ending(s);
            written = stepper.write(rows, snapshot);
        }
        output_seconds += clock.elapsed().as_secs_f64();
        if let Err(e) = written {
            failure = Some(e.into());
        }
        control.report(s, steps);
    }
    let clock = Instant::now();
    if let Err(e) = stepper.finish() {
        failure.get_or_insert(e.into());
    }
    output_seconds += clock.elapsed().as_secs_f64();
    tell_new(&mut control, &mut warned, stepper.warnings());
    let (steps_done, time_reached) = stepper.at();
    let mut header = RunHeader::running_named(case.name(), output.dimension);
    header.restarts = restarts;
    header.conclude(failure.as_ref());
    let run = RunSummary {
        header,
        steps: steps_done,
        time: time_reached,
        time_step: Some(dt),
        wall_seconds: spent.wall + control.setup_seconds + start.elapsed().as_secs_f64(),
        warnings: warned,
    };
    let seconds = Seconds {
        setup: spent.setup + setup,
        output: output_seconds,
    };
    let summary = stepper.summary(run, seconds);
    conclude(out, summary, failure).map(|summary| {
        let report = S::report(&summary);
        (summary, report)
    })
}

/// Writes `summary` as `out`'s `summary.json`; the run's `failure` if it had one, else the
/// summary (or the error writing it).
pub(super) fn conclude<T: Serialize>(out: &Path, summary: T, failure: Option<CaseError>) -> Result<T, CaseError> {
    let written = crate::io::write_json(&out.join("summary.json"), &summary);
    match (failure, written) {
        (Some(e), _) => Err(e),
        (None, Err(e)) => Err(e.into()),
        (None, Ok(())) => Ok(summary),
    }
}

/// A report's lines of named values, `  name  value` with `digits` decimals; a value that is
/// `None` has no line.
pub(super) fn value_lines(values: &[(&str, Option<f64>)], digits: usize) -> Vec<String> {
    values
        .iter()
        .filter_map(|(name, x)| x.map(|x| format!("  {name:<20} {x:.digits$}")))
        .collect()
}

/// Tells `control` the `warnings` not in `told`, and adds them there.
fn tell_new(control: &mut Control<'_>, told: &mut Vec<String>, warnings: Vec<String>) {
    for w in warnings {
        if !told.contains(&w) {
            control.tell(Notice::Warning(w.clone()));
            told.push(w);
        }
    }
}

/// When a run writes: the case's `[output]` read once.
#[derive(Debug, Clone, Copy)]
struct Cadence {
    /// A snapshot every `every` steps (0: none).
    every: usize,
    /// Rows every `csv_every` steps.
    csv_every: usize,
    /// A checkpoint every `checkpoint_every` steps (0: only when stopped).
    checkpoint_every: usize,
    /// Rows at every snapshot too.
    rows_at_snapshots: bool,
}

impl Cadence {
    /// The cadence of `case`'s run of `steps` steps: by default a hundred snapshots and rows at
    /// every step.
    fn of(case: &Case, steps: usize, rows_at_snapshots: bool) -> Cadence {
        let output = case.file.output.clone().unwrap_or_default();
        Cadence {
            every: output.every.unwrap_or((steps / 100).max(1)),
            csv_every: output.csv_every.unwrap_or(1).max(1),
            checkpoint_every: output.checkpoint_every.unwrap_or(0),
            rows_at_snapshots,
        }
    }

    /// Whether step `s` has rows and a snapshot.
    fn due(&self, s: usize) -> (bool, bool) {
        let snapshot = self.every > 0 && s % self.every == 0;
        (
            s % self.csv_every == 0 || (self.rows_at_snapshots && snapshot),
            snapshot,
        )
    }

    /// The rows and the snapshot a run that ends (or stops) at step `s` adds: those `s` is not
    /// due anyway, so that the files end at the last state.
    fn ending(&self, s: usize) -> (bool, bool) {
        let (rows, snapshot) = self.due(s);
        (!rows, self.every > 0 && !snapshot)
    }
}

/// What `build` builds for the run into `output`, its seconds added to `control`'s set-up; if it
/// fails, the run ends there ([`Output::fail`]).
pub(super) fn built<T>(
    case: &Case,
    output: &Output<'_>,
    control: &mut Control<'_>,
    build: impl FnOnce() -> Result<T, CaseError>,
) -> Result<T, CaseError> {
    let start = Instant::now();
    match build() {
        Ok(built) => {
            control.setup_seconds += start.elapsed().as_secs_f64();
            Ok(built)
        }
        Err(e) => output.fail(case, e),
    }
}
