//! `tumble bench solver`: the time and peak memory of a 3D (or 2D) time step against the number
//! of velocity unknowns, for each way of solving the step's constant systems (Cholesky factors,
//! AMG-preconditioned conjugate gradients), side by side in one process.
//!
//! The flow: the unit box cut into `n` cubes a side (six tetrahedra each), fluid entering at
//! `z = 0` with the profile `16 x(1−x) y(1−y)`, leaving at `z = 1`, no slip on the sides;
//! `ν = 0.01`, `Δt = 0.01` (`ν Δt/h²` from 0.006 at `n = 8` to 0.36 at `n = 60`: the velocity system is mass-dominated, as in settling cases). One step to start
//! the history, then `--steps` timed steps (the median is printed). The peak memory is the
//! resident peak (`VmHWM`) of a child process that measures that size alone, mesh included.
//!
//! `--mesh FILE` adds a Gmsh mesh (graded meshes, refined where bodies go) to both paths: the
//! same flow from its `--inlet` marker to its `--outlet` marker, no slip on every other marker,
//! with lengths scaled by the mesh's largest extent `L` (`ν = 0.01 L²`, inflow peak `L`), so that
//! the Reynolds number and `ν Δt/h²` are the unit box's at the same relative `h`.

use clap::Args;
use std::path::PathBuf;
use std::time::Instant;
use tumble::fluid::{BoundaryConditions, FlowField, P2Space, Unsteady};
use tumble::io::{plot_xy, Curve};
use tumble::linalg::SpdMethod;
use tumble::math::{Point, Vector};
use tumble::memory::peak_resident;
use tumble::mesh::generate::axis_box;
use tumble::mesh::{gmsh, SimplexMesh};

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
    /// Gmsh meshes measured on both paths after the boxes (the flow enters at `--inlet`,
    /// leaves at `--outlet`, no slip elsewhere).
    #[arg(long, value_delimiter = ',')]
    mesh: Vec<PathBuf>,
    /// The inflow marker of the `--mesh` files.
    #[arg(long, default_value = "bottom")]
    inlet: String,
    /// The outflow marker of the `--mesh` files.
    #[arg(long, default_value = "top")]
    outlet: String,
    /// Measure one size in this process and print it as JSON (`direct:16`, or `direct:FILE`
    /// for a mesh file): what the command runs in a child process per size, so that each peak is
    /// its own.
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

/// What one measurement runs on: the box of `n` cells a side, or a mesh file.
#[derive(Clone)]
enum Source {
    Box(usize),
    File(PathBuf),
}

impl Source {
    /// `16` is a box, anything else a path.
    fn parse(text: &str) -> Self {
        text.parse::<usize>()
            .map(Source::Box)
            .unwrap_or_else(|_| Source::File(PathBuf::from(text)))
    }
    /// What `--single` reads back.
    fn argument(&self) -> String {
        match self {
            Source::Box(n) => n.to_string(),
            Source::File(path) => path.display().to_string(),
        }
    }
    /// The table's `n` column: the box's cells a side or the file's stem.
    fn label(&self) -> String {
        match self {
            Source::Box(n) => n.to_string(),
            Source::File(path) => path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }
}

pub fn run(args: SolverArgs) -> anyhow::Result<()> {
    let dim = args.dim;
    anyhow::ensure!(dim == 2 || dim == 3, "--dim must be 2 or 3, got {dim}");
    let markers = (args.inlet.as_str(), args.outlet.as_str());
    if let Some(single) = &args.single {
        let (method, source) = single
            .split_once(':')
            .ok_or_else(|| anyhow::anyhow!("--single takes <direct|iterative>:<n|file>, got {single}"))?;
        let method = match method {
            "direct" => SpdMethod::Direct,
            "iterative" => SpdMethod::Iterative,
            other => anyhow::bail!("--single takes direct:<n|file> or iterative:<n|file>, got {other}"),
        };
        let source = Source::parse(source);
        let (row, cells, iterations) = match dim {
            2 => measure::<2>(&source, markers, method, args.steps)?,
            _ => measure::<3>(&source, markers, method, args.steps)?,
        };
        let line = serde_json::json!({"unknowns": row.unknowns, "setup": row.setup, "step": row.step,
            "peak": row.peak, "cells": cells, "iterations": iterations});
        println!("{line}");
        return Ok(());
    }
    for path in &args.mesh {
        anyhow::ensure!(path.is_file(), "--mesh {}: no such file", path.display());
    }
    println!(
        "{:<9} {:>5} {:>10} {:>12} {:>9} {:>11} {:>9} {:>16}",
        "path", "n", "cells", "velocity dofs", "setup s", "median s/step", "peak MB", "CG iterations"
    );
    let files = args.mesh.iter().cloned().map(Source::File);
    let mut lines = Vec::new();
    for (name, sizes) in [("direct", &args.direct), ("iterative", &args.iterative)] {
        let mut rows = Vec::new();
        for source in sizes.iter().map(|&n| Source::Box(n)).chain(files.clone()) {
            let label = source.label();
            match child(name, &source, &args) {
                Ok((row, cells, iterations)) => {
                    println!(
                        "{name:<9} {label:>5} {cells:>10} {:>12} {:>9.2} {:>11.3} {:>9.0} {:>16}",
                        row.unknowns,
                        row.setup,
                        row.step,
                        row.peak / 1048576.0,
                        iterations
                    );
                    if matches!(source, Source::Box(_)) {
                        rows.push(row);
                    }
                }
                Err(e) => println!("{name:<9} {label:>5} skipped: {e}"),
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
fn child(method: &str, source: &Source, args: &SolverArgs) -> anyhow::Result<(Row, usize, String)> {
    let output = std::process::Command::new(std::env::current_exe()?)
        .args([
            "bench",
            "solver",
            "--single",
            &format!("{method}:{}", source.argument()),
        ])
        .args(["--dim", &args.dim.to_string(), "--steps", &args.steps.to_string()])
        .args(["--inlet", &args.inlet, "--outlet", &args.outlet])
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

/// Builds the mesh of `source` (the box's faces are marked `zmin`, `zmax`, …) and its stepper
/// with `method`, takes `1 + steps` steps; the row, the cells, and the last step's CG iterations
/// (velocity, pressure, mass).
fn measure<const D: usize>(
    source: &Source,
    (inlet, outlet): (&str, &str),
    method: SpdMethod,
    steps: usize,
) -> anyhow::Result<(Row, usize, String)> {
    let start = Instant::now();
    let (mesh, inlet, outlet): (SimplexMesh<D>, _, _) = match source {
        Source::Box(n) => {
            let mesh = axis_box::<D>(Point::<D>::zeros(), Point::<D>::from_element(1.0), [*n; D])?;
            let ends = if D == 3 { ("zmin", "zmax") } else { ("ymin", "ymax") };
            (mesh, ends.0, ends.1)
        }
        Source::File(path) => (gmsh::read_dim::<D>(path)?, inlet, outlet),
    };
    let (lo, hi) = mesh.bounding_box();
    let length = (hi - lo).max();
    let (inlet, outlet) = (mesh.facet_marker(inlet)?, mesh.facet_marker(outlet)?);
    let mut bc = BoundaryConditions::<D>::default()
        .velocity(inlet, move |x: &Point<D>, _| {
            let profile = (0..D - 1)
                .map(|a| {
                    let s = (x[a] - lo[a]) / (hi[a] - lo[a]);
                    4.0 * s * (1.0 - s)
                })
                .product::<f64>();
            Vector::<D>::from_fn(|a, _| if a == D - 1 { length * profile } else { 0.0 })
        })
        .outflow(outlet);
    let markers: std::collections::BTreeSet<i32> = mesh.facet_markers().iter().copied().collect();
    for marker in markers {
        if marker != inlet && marker != outlet {
            bc = bc.no_slip(marker);
        }
    }
    let space = P2Space::new(&mesh);
    let rest = FlowField {
        velocity: vec![Vector::<D>::zeros(); space.len()],
        pressure: vec![0.0; mesh.num_points()],
    };
    let unknowns = D * space.len();
    let nu = 0.01 * length * length;
    let mut stepper = Unsteady::with_method(&mesh, space, (nu, 0.01), bc, (rest, 0.0), method)?;
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
