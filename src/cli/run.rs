//! `tumble run CASE.toml [--out DIR]`: runs a case with a progress bar; `tumble check CASE.toml`
//! runs it and checks its results against the case's `[check]` intervals.

use super::Exit;
use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tumble::body::{Dim, Kinematics};
use tumble::case::{prepare_output, run_dry, run_flow, run_immersed, Case, CaseError, Control, RunHeader, Status};

/// Arguments of `tumble run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The case file (TOML; its keys are in docs/guide.md).
    case: PathBuf,
    /// The output directory; default `out/<case name>`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress bar (for scripts and logs).
    #[arg(long)]
    quiet: bool,
}

/// Runs the case. Its `[check]` table is validated as `check` validates it: the intervals before
/// the run, the keys against the summary after it (the output is kept either way); the values
/// are reported, and judged only by `check`.
pub fn run(args: RunArgs) -> Result<()> {
    let case = Case::load(&args.case)?;
    case.check_ranges()?;
    let summary = run_any(&case, &args)?;
    let results = case.check(&summary)?;
    if !results.is_empty() {
        let inside = results.iter().filter(|r| r.passed).count();
        println!(
            "[check]: {inside} of {} values inside their intervals (`tumble check` fails a run otherwise)",
            results.len()
        );
    }
    Ok(())
}

/// Runs the case and checks its `[check]` intervals: an error if any value falls outside.
pub fn check(args: RunArgs) -> Result<()> {
    let case = Case::load(&args.case)?;
    if case.check_ranges()?.is_empty() {
        anyhow::bail!("{}: the case has no [check] table to check", args.case.display());
    }
    let summary = run_any(&case, &args)?;
    let results = case.check(&summary)?;
    println!("{:<24} {:>14}   interval", "check", "value");
    for r in &results {
        println!(
            "{:<24} {:>14}   [{}, {}]  {}",
            r.key,
            r.value.map_or("none".to_string(), |v| format!("{v:.6}")),
            r.range[0],
            r.range[1],
            if r.passed { "ok" } else { "FAILED" }
        );
    }
    let failed = results.iter().filter(|r| !r.passed).count();
    if failed > 0 {
        anyhow::bail!("{}: {failed} of {} checks failed", args.case.display(), results.len());
    }
    Ok(())
}

/// A stop requested by SIGINT or SIGTERM: the first one sets `flag` (the run stops at the end of
/// its step and writes everything) and records which signal came; a second one ends the process
/// at once (exit 128 + the signal), for a user who will not wait.
struct Stop {
    flag: Arc<AtomicBool>,
    signal: Arc<AtomicUsize>,
}

impl Stop {
    fn install() -> Result<Stop> {
        let (flag, signal) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)));
        for sig in [SIGINT, SIGTERM] {
            signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, flag.clone())?;
            signal_hook::flag::register(sig, flag.clone())?;
            signal_hook::flag::register_usize(sig, signal.clone(), sig as usize)?;
        }
        Ok(Stop { flag, signal })
    }

    /// The error that ends the process for the run's result `e`: an interruption exits with
    /// 128 + the signal (130 for SIGINT, 143 for SIGTERM), as shells expect.
    fn exit(&self, e: CaseError) -> anyhow::Error {
        match e {
            CaseError::Interrupted { .. } => {
                let signal = self.signal.load(Ordering::Relaxed).max(SIGINT as usize);
                Exit {
                    code: 128 + signal as u8,
                    message: e.to_string(),
                }
                .into()
            }
            e => e.into(),
        }
    }
}

/// Runs a dry or fluid case; returns its summary as JSON. The output directory is prepared (an
/// earlier run's files removed, a directory that cannot take the run refused) before the case is
/// built, so that its errors come before minutes of setup.
fn run_any(case: &Case, args: &RunArgs) -> Result<serde_json::Value> {
    let out = output_dir(case, args);
    let header = RunHeader {
        case: case.name(),
        status: Status::Running,
        error: None,
        dimension: case.file.dimension,
    };
    let removed = prepare_output(&out, &header)?;
    if removed > 0 && !args.quiet {
        eprintln!("removed {removed} files of an earlier run from {}", out.display());
    }
    let stop = Stop::install()?;
    let fluid = case.file.fluid.is_some();
    let bodies = !case.file.bodies.is_empty();
    let run = Run {
        out: &out,
        quiet: args.quiet,
        stop: &stop,
    };
    match (case.file.dimension, fluid, bodies) {
        (2, false, _) => run_dry_dim::<2>(case, &run),
        (3, false, _) => run_dry_dim::<3>(case, &run),
        (2, true, false) => run_flow_dim::<2>(case, &run),
        (3, true, false) => run_flow_dim::<3>(case, &run),
        (2, true, true) => run_immersed_dim::<2>(case, &run),
        (3, true, true) => run_immersed_dim::<3>(case, &run),
        (d, ..) => anyhow::bail!("{}: `dimension`: expected 2 or 3, got {d}", args.case.display()),
    }
}

/// Where and how a run goes.
struct Run<'a> {
    out: &'a Path,
    quiet: bool,
    stop: &'a Stop,
}

impl Run<'_> {
    /// Calls `run` with a [`Control`] counting `setup` seconds, whose progress drives a progress
    /// bar (hidden if `quiet`, cleared at the end) and whose stop flag the signals set; an
    /// interruption becomes the exit code.
    fn go<T>(&self, setup: f64, run: impl FnOnce(Control<'_>) -> Result<T, CaseError>) -> Result<T> {
        with_progress(self.quiet, |progress| {
            run(Control {
                setup_seconds: setup,
                progress: Some(progress),
                stop: Some(&self.stop.flag),
            })
        })
        .map_err(|e| self.stop.exit(e))
    }
}

/// Calls `run` with a progress callback `(step, steps)` that drives a progress bar (hidden if
/// `quiet`), cleared at the end.
fn with_progress<T>(quiet: bool, run: impl FnOnce(&mut dyn FnMut(usize, usize)) -> T) -> T {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {elapsed} elapsed, {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let result = run(&mut |s, n| {
        bar.set_length(n as u64);
        bar.set_position(s as u64);
    });
    bar.finish_and_clear();
    result
}

/// A time for a message, rounded to 12 significant digits: `n Δt` is not always a round number in
/// binary (1 800 × 2.5e-4 is 0.44999999999999996), and the message should say 0.45.
fn shown(t: f64) -> f64 {
    if t == 0.0 || !t.is_finite() {
        return t;
    }
    let scale = 10f64.powi(11 - t.abs().log10().floor() as i32);
    (t * scale).round() / scale
}

fn output_dir(case: &Case, args: &RunArgs) -> PathBuf {
    args.out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(case.name()))
}

fn run_flow_dim<const D: usize>(case: &Case, run: &Run<'_>) -> Result<serde_json::Value> {
    let start = Instant::now();
    let flow = case.build_flow::<D>()?;
    let setup = start.elapsed().as_secs_f64();
    let out = run.out;
    let s = run.go(setup, |control| run_flow(case, &flow, out, control))?;
    println!(
        "{}: {} flow, {} cells, {} unknowns, {:.2} s; output in {}",
        s.run.case,
        s.mode,
        s.cells,
        s.velocity_unknowns + s.pressure_unknowns,
        s.wall_seconds,
        out.display()
    );
    if let Some(k) = s.newton_iterations {
        println!("  {k} Newton iterations");
    }
    if s.mode == "unsteady" {
        println!(
            "  {} steps to t = {}, {:.1} ms per step",
            s.steps,
            shown(s.time),
            s.seconds_per_step.unwrap_or(0.0) * 1e3
        );
    }
    let show = |name: &str, x: Option<f64>| {
        if let Some(x) = x {
            println!("  {name:<20} {x:.8}");
        }
    };
    show("drag_coefficient", s.drag_coefficient);
    show("lift_coefficient", s.lift_coefficient);
    show("pressure_difference", s.pressure_difference);
    show("drag_coefficient_max", s.drag_coefficient_max);
    show("lift_coefficient_max", s.lift_coefficient_max);
    show("strouhal_number", s.strouhal_number);
    Ok(serde_json::to_value(&s)?)
}

fn run_immersed_dim<const D: usize>(case: &Case, run: &Run<'_>) -> Result<serde_json::Value>
where
    Dim<D>: Kinematics<D>,
{
    let start = Instant::now();
    let flow = case.build_flow::<D>()?;
    let setup = start.elapsed().as_secs_f64();
    let out = run.out;
    let s = run.go(setup, |control| run_immersed(case, &flow, out, control))?;
    println!(
        "{}: {} bodies in the fluid, {} cells, {} steps to t = {}, {:.2} s ({:.1} ms per step, {:.1} constraint iterations per step, {} body sub-steps); output in {}",
        s.run.case,
        s.bodies,
        s.cells,
        s.steps,
        shown(s.time),
        s.wall_seconds,
        1e3 * (s.seconds.fluid + s.seconds.constraint + s.seconds.bodies) / s.steps.max(1) as f64,
        s.constraint_iterations,
        s.substeps,
        out.display()
    );
    let show = |name: &str, x: Option<f64>| {
        if let Some(x) = x {
            println!("  {name:<20} {x:.6}");
        }
    };
    show("terminal_velocity", s.terminal_velocity);
    show("max_speed", Some(s.max_speed));
    show("max_speed_time", Some(s.max_speed_time));
    show("max_reynolds", Some(s.max_reynolds));
    show("final_gap", s.final_gap);
    show("min_body_gap", s.min_body_gap);
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
    Ok(serde_json::to_value(&s)?)
}

fn run_dry_dim<const D: usize>(case: &Case, run: &Run<'_>) -> Result<serde_json::Value>
where
    Dim<D>: Kinematics<D>,
{
    let start = Instant::now();
    let mut sim = case.build::<D>()?;
    let setup = start.elapsed().as_secs_f64();
    let dt = case.time()?.step;
    let limit = sim.stable_time_step();
    if dt > limit {
        eprintln!(
            "warning: time step {dt:e} exceeds the contact springs' stable step {limit:.3e} (2 √(m/k)); \
             the run may blow up: lower time.step or raise contact.stiffness"
        );
    }
    let out = run.out;
    let summary = run.go(setup, |control| run_dry(case, &mut sim, out, control))?;
    println!(
        "{}: {} bodies, {} steps to t = {}, {:.2} s ({:.3} ms of contact per step, {} law, {} broad phase); output in {}",
        summary.run.case,
        summary.bodies,
        summary.steps,
        shown(summary.time),
        summary.wall_seconds,
        summary.contact_seconds_per_step * 1e3,
        summary.law,
        summary.broad_phase,
        out.display()
    );
    Ok(serde_json::to_value(&summary)?)
}
