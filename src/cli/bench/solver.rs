//! `tumble bench solver`: the time and peak memory of a 3D (or 2D) time step against the number
//! of velocity unknowns, for each way of solving the step's constant systems (Cholesky factors,
//! AMG-preconditioned conjugate gradients), side by side in one process.
//!
//! The flow: the unit box cut into `n` cubes a side (six tetrahedra each), fluid entering at
//! `z = 0` with the profile `16 x(1−x) y(1−y)`, leaving at `z = 1`, no slip on the sides;
//! `ν = 0.01`, `Δt = 0.01` (`ν Δt/h²` from 0.006 at `n = 8` to 0.36 at `n = 60`: the velocity system is mass-dominated, as in settling cases). One step to start
//! the history, then `--steps` timed steps (the median is printed). The peak memory is the
//! resident peak (`VmHWM`) of a child process that measures that size alone, mesh included.

use clap::Args;
use std::path::PathBuf;
use std::time::Instant;
use tumble::fluid::{BoundaryConditions, FlowField, P2Space, Unsteady};
use tumble::io::{plot_xy, Curve};
use tumble::linalg::SpdMethod;
use tumble::math::{Point, Vector};
use tumble::memory::peak_resident;
use tumble::mesh::generate::axis_box;

#[derive(Args, Debug)]
pub struct SolverArgs {
    /// Cubes a side for the Cholesky factors (a size whose factor does not fit is reported and
    /// skipped).
    #[arg(long, value_delimiter = ',', default_value = "8,12,16,20")]
    direct: Vec<usize>,
    /// Cubes a side for the iterative path.
    #[arg(long, value_delimiter = ',', default_value = "8,12,16,20,24,32,40")]
    iterative: Vec<usize>,
    /// Timed steps per size (after one untimed).
    #[arg(long, default_value_t = 3)]
    steps: usize,
    /// Dimension: 3 (boxes of n³ cubes) or 2 (squares of n² cut in two triangles each).
    #[arg(long, default_value_t = 3)]
    dim: usize,
    /// Measure one size in this process and print it as JSON (`direct:16`): what the command
    /// runs in a child process per size, so that each peak is its own.
    #[arg(long, hide = true)]
    single: Option<String>,
    /// Write log–log plots of the time and the memory per step against the unknowns here (two
    /// PNG files, `<stem>_time.png` and `<stem>_memory.png`).
    #[arg(long)]
    plot: Option<PathBuf>,
}

/// One size's measurements.
struct Row {
    unknowns: usize,
    setup: f64,
    step: f64,
    peak: f64,
}

pub fn run(args: SolverArgs) -> anyhow::Result<()> {
    let dim = args.dim;
    anyhow::ensure!(dim == 2 || dim == 3, "--dim must be 2 or 3, got {dim}");
    if let Some(single) = &args.single {
        let (method, n) = single
            .split_once(':')
            .and_then(|(m, n)| Some((m, n.parse::<usize>().ok()?)))
            .ok_or_else(|| anyhow::anyhow!("--single takes <direct|iterative>:<n>, got {single}"))?;
        let method = match method {
            "direct" => SpdMethod::Direct,
            "iterative" => SpdMethod::Iterative,
            other => anyhow::bail!("--single takes direct:<n> or iterative:<n>, got {other}"),
        };
        let (row, cells, iterations) = match dim {
            2 => measure::<2>(n, method, args.steps)?,
            _ => measure::<3>(n, method, args.steps)?,
        };
        let line = serde_json::json!({"unknowns": row.unknowns, "setup": row.setup, "step": row.step,
            "peak": row.peak, "cells": cells, "iterations": iterations});
        println!("{line}");
        return Ok(());
    }
    println!(
        "{:<9} {:>5} {:>10} {:>12} {:>9} {:>11} {:>9} {:>16}",
        "path", "n", "cells", "velocity dofs", "setup s", "median s/step", "peak MB", "CG iterations"
    );
    let mut lines = Vec::new();
    for (name, sizes) in [("direct", &args.direct), ("iterative", &args.iterative)] {
        let mut rows = Vec::new();
        for &n in sizes {
            let result = child(name, n, dim, args.steps);
            match result {
                Ok((row, cells, iterations)) => {
                    println!(
                        "{name:<9} {n:>5} {cells:>10} {:>12} {:>9.2} {:>11.3} {:>9.0} {:>16}",
                        row.unknowns,
                        row.setup,
                        row.step,
                        row.peak / 1048576.0,
                        iterations
                    );
                    rows.push(row);
                }
                Err(e) => println!("{name:<9} {n:>5} skipped: {e}"),
            }
        }
        lines.push((name, rows));
    }
    if let Some(plot) = &args.plot {
        let curves = |pick: &dyn Fn(&Row) -> f64| -> Vec<Curve> {
            lines
                .iter()
                .map(|(name, rows)| Curve {
                    name: name.to_string(),
                    points: rows
                        .iter()
                        .map(|r| ((r.unknowns as f64).log10(), pick(r).log10()))
                        .collect(),
                })
                .collect()
        };
        let file = |suffix: &str| {
            let stem = plot
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            plot.with_file_name(format!("{stem}_{suffix}.png"))
        };
        if let Some(folder) = plot.parent().filter(|f| !f.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(|e| anyhow::anyhow!("{}: {e}", folder.display()))?;
        }
        let x = "log10 velocity unknowns";
        plot_xy(&file("time"), "Time per step", x, "log10 seconds", &curves(&|r| r.step))?;
        plot_xy(
            &file("memory"),
            "Peak memory",
            x,
            "log10 MB",
            &curves(&|r| r.peak / 1048576.0),
        )?;
    }
    Ok(())
}

/// Runs this command for one size in a child process and reads its JSON line.
fn child(method: &str, n: usize, dim: usize, steps: usize) -> anyhow::Result<(Row, usize, String)> {
    let output = std::process::Command::new(std::env::current_exe()?)
        .args(["bench", "solver", "--single", &format!("{method}:{n}")])
        .args(["--dim", &dim.to_string(), "--steps", &steps.to_string()])
        .output()?;
    if !output.status.success() {
        let message = String::from_utf8_lossy(&output.stderr);
        anyhow::bail!(
            "{}",
            message.trim().lines().last().unwrap_or("the child process failed")
        );
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let v: serde_json::Value = serde_json::from_str(text.trim().lines().last().unwrap_or_default())?;
    let number = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    let row = Row {
        unknowns: number("unknowns") as usize,
        setup: number("setup"),
        step: number("step"),
        peak: number("peak"),
    };
    Ok((
        row,
        number("cells") as usize,
        v["iterations"].as_str().unwrap_or("").to_string(),
    ))
}

/// Builds the box of `n` cells a side and its stepper with `method`, takes `1 + steps` steps;
/// the row, the cells, and the last step's CG iterations (velocity, pressure, mass).
fn measure<const D: usize>(n: usize, method: SpdMethod, steps: usize) -> anyhow::Result<(Row, usize, String)> {
    let start = Instant::now();
    let mesh = axis_box::<D>(Point::<D>::zeros(), Point::<D>::from_element(1.0), [n; D])?;
    let (inlet, outlet) = if D == 3 { ("zmin", "zmax") } else { ("ymin", "ymax") };
    let mut bc = BoundaryConditions::<D>::default()
        .velocity(mesh.facet_marker(inlet)?, |x: &Point<D>, _| {
            let profile = (0..D - 1).map(|a| 4.0 * x[a] * (1.0 - x[a])).product::<f64>();
            Vector::<D>::from_fn(|a, _| if a == D - 1 { profile } else { 0.0 })
        })
        .outflow(mesh.facet_marker(outlet)?);
    for side in ["xmin", "xmax", "ymin", "ymax"]
        .into_iter()
        .filter(|s| *s != inlet && *s != outlet)
    {
        if let Ok(m) = mesh.facet_marker(side) {
            bc = bc.no_slip(m);
        }
    }
    let space = P2Space::new(&mesh);
    let rest = FlowField {
        velocity: vec![Vector::<D>::zeros(); space.len()],
        pressure: vec![0.0; mesh.num_points()],
    };
    let unknowns = D * space.len();
    let mut stepper = Unsteady::with_method(&mesh, space, (0.01, 0.01), bc, (rest, 0.0), method)?;
    let setup = start.elapsed().as_secs_f64();
    let still = |_: &Point<D>, _: f64| Vector::<D>::zeros();
    stepper.step(&mesh, &still)?;
    let mut times = Vec::new();
    for _ in 0..steps.max(1) {
        let begin = Instant::now();
        stepper.step(&mesh, &still)?;
        times.push(begin.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let (u, p, m) = stepper.iterations();
    let row = Row {
        unknowns,
        setup,
        step: times[times.len() / 2],
        peak: peak_resident().unwrap_or(0.0),
    };
    Ok((row, mesh.num_cells(), format!("{u}/{p}/{m}")))
}
