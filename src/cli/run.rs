//! `tumble run CASE.toml [--out DIR]`: runs a case with a progress bar.

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;
use tumble::body::{Dim, Kinematics};
use tumble::case::{run as run_case, Case};

/// Arguments of `tumble run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The case file (TOML; see cases/README.md).
    case: PathBuf,
    /// The output directory; default `out/<case name>`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress bar (for scripts and logs).
    #[arg(long)]
    quiet: bool,
}

/// Runs the case.
pub fn run(args: RunArgs) -> Result<()> {
    let case = Case::load(&args.case)?;
    match case.file.dimension {
        2 => run_dim::<2>(&case, &args),
        3 => run_dim::<3>(&case, &args),
        d => anyhow::bail!("{}: `dimension`: expected 2 or 3, got {d}", args.case.display()),
    }
}

fn run_dim<const D: usize>(case: &Case, args: &RunArgs) -> Result<()>
where
    Dim<D>: Kinematics<D>,
{
    let start = Instant::now();
    let mut sim = case.build::<D>()?;
    let setup = start.elapsed().as_secs_f64();
    let dt = case.file.time.step;
    let limit = sim.stable_time_step();
    if dt > limit {
        eprintln!(
            "warning: time step {dt:e} exceeds the contact springs' stable step {limit:.3e} (2 √(m/k)); \
             the run may blow up: lower time.step or raise contact.stiffness"
        );
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(case.name()));
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {elapsed} elapsed, {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let summary = run_case(case, &mut sim, &out, setup, &mut |s, n| {
        bar.set_length(n as u64);
        bar.set_position(s as u64);
    });
    bar.finish_and_clear();
    let summary = summary?;
    println!(
        "{}: {} bodies, {} steps to t = {}, {:.2} s ({:.3} ms of contact per step, {} law, {} broad phase); output in {}",
        summary.case,
        summary.bodies,
        summary.steps,
        summary.time,
        summary.wall_seconds,
        summary.contact_seconds_per_step * 1e3,
        summary.law,
        summary.broad_phase,
        out.display()
    );
    Ok(())
}
