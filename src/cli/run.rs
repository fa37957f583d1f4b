//! `tumble run CASE.toml [--out DIR]`: runs a case with a progress bar; `tumble check CASE.toml`
//! runs it and checks its results against the case's `[check]` intervals.

use super::Exit;
use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tumble::case::{Case, CaseError, Control, Notice, Plan};
use tumble::math::shown;
use tumble::memory::Bytes;

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
    /// Run even if the estimated output exceeds the free disk space.
    #[arg(long)]
    force: bool,
    /// Continue the run whose output directory DIR holds a checkpoint (`checkpoint.cbor`,
    /// written every `output.checkpoint_every` steps and when a run is stopped) and append to its
    /// outputs; the case may end later than the run did.
    #[arg(long, value_name = "DIR")]
    restart: Option<PathBuf>,
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
    /// The message says how to continue the run from the checkpoint it wrote in `out`.
    fn exit(&self, e: CaseError, out: &Path) -> anyhow::Error {
        match e {
            CaseError::Interrupted { ref file, .. } => {
                let signal = self.signal.load(Ordering::Relaxed).max(SIGINT as usize);
                Exit {
                    code: 128 + signal as u8,
                    message: format!(
                        "{e}\ncontinue it with: tumble run {} --restart {}",
                        file.display(),
                        out.display()
                    ),
                }
                .into()
            }
            e => e.into(),
        }
    }
}

/// Runs a case of any kind ([`tumble::case::run`]); returns its summary as JSON. The output
/// directory is made ready (an earlier run's files removed, a directory that cannot take the run
/// refused) before the case is built, so that its errors come before minutes of setup.
fn run_any(case: &Case, args: &RunArgs) -> Result<serde_json::Value> {
    let out = output_dir(case, args)?;
    let stop = Stop::install()?;
    let run = Run {
        out: &out,
        quiet: args.quiet,
        force: args.force,
        restart: args.restart.is_some(),
        stop: &stop,
    };
    let finished = run.go(case, |control| tumble::case::run(case, &out, control))?;
    for (k, line) in finished.report.iter().enumerate() {
        match k {
            0 => println!("{line}; output in {}", out.display()),
            _ => println!("{line}"),
        }
    }
    Ok(finished.summary)
}

/// Where and how a run goes.
struct Run<'a> {
    out: &'a Path,
    quiet: bool,
    force: bool,
    restart: bool,
    stop: &'a Stop,
}

impl Run<'_> {
    /// Calls `run` with a [`Control`] whose plan is printed (and refused when its output would not
    /// fit the free disk, unless `--force`), whose progress drives a progress bar (hidden if
    /// `quiet`, cleared at the end) and prints the estimated total time once the first steps are
    /// timed, whose notices are printed on stderr, and whose stop flag the signals set; an
    /// interruption becomes the exit code.
    fn go<T>(&self, case: &Case, run: impl FnOnce(Control<'_>) -> Result<T, CaseError>) -> Result<T> {
        let bar = if self.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(0)
        };
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {elapsed} elapsed, {msg} left")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let mut plan = |plan: &Plan| self.approve(case, plan);
        let mut timer: Option<(Instant, usize)> = None;
        let mut estimated = false;
        // Without a terminal (a batch job's log) the bar is not drawn: a line every tenth instead.
        let mut tenths = (!self.quiet && !std::io::stderr().is_terminal()).then_some(0);
        let started = Instant::now();
        let mut progress = |s: usize, n: usize| {
            bar.set_length(n as u64);
            bar.set_position(s as u64);
            // The first step is timed out (it may fill caches and pools); the time left is the
            // mean time of the steps since then (output included) times the steps left, and
            // three seconds of them give the printed estimate.
            let (since, first) = *timer.get_or_insert((Instant::now(), s));
            let elapsed = since.elapsed().as_secs_f64();
            if s <= first {
                return;
            }
            let left = duration(elapsed / (s - first) as f64 * n.saturating_sub(s) as f64);
            bar.set_message(left.clone());
            if let Some(done) = &mut tenths {
                let tenth = 10 * s / n.max(1);
                if tenth > *done && tenth < 10 {
                    *done = tenth;
                    eprintln!(
                        "{}0 % ({s} of {n} steps), {} elapsed, about {left} left",
                        tenth,
                        duration(started.elapsed().as_secs_f64())
                    );
                }
            }
            if !estimated && elapsed >= 3.0 {
                estimated = true;
                let per_step = elapsed / (s - first) as f64;
                let message = format!(
                    "estimated: {} for the {n} steps ({} per step)",
                    duration(per_step * n as f64),
                    duration(per_step)
                );
                bar.suspend(|| eprintln!("{message}"));
            }
        };
        let mut notify = |notice: &Notice| bar.suspend(|| eprintln!("{notice}"));
        let result = run(Control {
            setup_seconds: 0.0,
            progress: Some(&mut progress),
            stop: Some(&self.stop.flag),
            plan: Some(&mut plan),
            restart: self.restart,
            notify: Some(&mut notify),
        });
        bar.finish_and_clear();
        result.map_err(|e| self.stop.exit(e, self.out))
    }

    /// Prints what the run will do and write; refuses it when the output would exceed the free
    /// space of the output's disk, unless `--force`.
    fn approve(&self, case: &Case, plan: &Plan) -> Result<(), String> {
        let free = free_bytes(self.out);
        eprintln!(
            "{}: {} steps of {} to t = {}; {} snapshots, {} CSV row times: about {} of output in {}{}",
            case.name(),
            count(plan.steps),
            shown(plan.time_step),
            shown(plan.end),
            count(plan.snapshots),
            count(plan.rows),
            Bytes(plan.bytes),
            self.out.display(),
            free.map(|f| format!(" ({} free)", Bytes(f))).unwrap_or_default()
        );
        match free {
            Some(free) if plan.bytes > free && !self.force => Err(format!(
                "the output would take about {}, more than the {} free on the disk of {}: write less \
                 (a larger `output.every` or `output.csv_every`, a shorter `time.end`), free space, \
                 or pass --force",
                Bytes(plan.bytes),
                Bytes(free),
                self.out.display()
            )),
            _ => Ok(()),
        }
    }
}

/// The bytes an unprivileged user may still write on the file system of `dir` (`statvfs`).
fn free_bytes(dir: &Path) -> Option<f64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `path` is a NUL-terminated string and `stat` a plain struct statvfs fills in.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    let status = unsafe { libc::statvfs(path.as_ptr(), &mut stat) };
    (status == 0).then_some(stat.f_bavail as f64 * stat.f_frsize as f64)
}

/// A count for a message: digits up to a billion, then `1.8e19`.
fn count(n: usize) -> String {
    if n < 1_000_000_000 {
        n.to_string()
    } else {
        format!("{:.1e}", n as f64)
    }
}

/// A duration for a message: `0.4 ms`, `12 s`, `3.5 min`, `2.1 h`, `4.0 days`, `3.2e9 years`.
fn duration(seconds: f64) -> String {
    match seconds {
        s if s < 1e-3 => format!("{:.0} µs", s * 1e6),
        s if s < 1.0 => format!("{:.1} ms", s * 1e3),
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7200.0 => format!("{:.1} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3600.0),
        s if s < 3.15e7 * 2.0 => format!("{:.1} days", s / 86_400.0),
        s => format!("{:.1e} years", s / 3.156e7),
    }
}

/// `--out`, or the directory of `--restart`, or `out/<case name>`.
fn output_dir(case: &Case, args: &RunArgs) -> Result<PathBuf> {
    match (&args.out, &args.restart) {
        (Some(out), Some(dir)) if out != dir => anyhow::bail!(
            "--restart {} continues the run in its own directory: leave out --out {}",
            dir.display(),
            out.display()
        ),
        (_, Some(dir)) => {
            if !dir.is_dir() {
                anyhow::bail!("--restart {}: not a directory of a run", dir.display());
            }
            Ok(dir.clone())
        }
        (Some(out), None) => Ok(out.clone()),
        (None, None) => Ok(PathBuf::from("out").join(case.name())),
    }
}

#[cfg(test)]
mod tests {
    use super::{count, duration};

    #[test]
    fn durations_and_counts_print_short_whatever_their_size() {
        assert_eq!(duration(0.0004), "400 µs");
        assert_eq!(duration(0.0125), "12.5 ms");
        assert_eq!(count(15000), "15000");
        assert_eq!(count(usize::MAX), "1.8e19");
        assert_eq!(duration(45.0), "45 s");
        assert_eq!(duration(3.0 * 3600.0), "3.0 h");
        assert_eq!(duration(1e17), "3.2e9 years");
    }
}
