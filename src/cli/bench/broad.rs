//! `tumble bench broad`: time the broad-phase methods on a generated or given set of spheres.

use anyhow::{bail, Context};
use clap::Args;
use std::path::{Path, PathBuf};
use tumble::broad::sets::{self, Timing, METHODS};
use tumble::broad::BoundingSphere;
use tumble::math::Point;

#[derive(Args, Debug)]
pub struct BroadArgs {
    /// Dimension of a generated set (2 or 3).
    #[arg(long, default_value_t = 3)]
    dim: usize,
    /// Number of spheres of a generated set.
    #[arg(long, default_value_t = 100_000)]
    n: usize,
    /// Size ratio r_max / r_min of a generated set (radii uniform in [1, omega]).
    #[arg(long, default_value_t = 1.0)]
    omega: f64,
    /// Solid fraction of a generated set.
    #[arg(long, default_value_t = 0.3)]
    fraction: f64,
    /// Seed of a generated set.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Read the spheres from a CSV file with the header x,y,r or x,y,z,r instead.
    #[arg(long)]
    input: Option<PathBuf>,
    /// A method (brute, linked-cell, sweep, sorted-distance, hgrid, kdtree, auto) or all.
    #[arg(long, default_value = "all")]
    method: String,
    /// Contact margin added to the sum of radii.
    #[arg(long, default_value_t = 0.0)]
    margin: f64,
    /// Queries timed per method (the median is reported; at least 5).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Print one JSON object per method {"method", "n", "pairs", "median_ms"} instead of a table
    /// (auto adds "chosen" and "probe_ms", its first query, which probes the candidates).
    #[arg(long)]
    json: bool,
}

pub fn run(args: BroadArgs) -> anyhow::Result<()> {
    if let Some(path) = &args.input {
        match read_csv(path)? {
            Spheres::D2(s) => report(&s, &args),
            Spheres::D3(s) => report(&s, &args),
        }
    } else {
        if !(args.omega >= 1.0 && args.fraction > 0.0 && args.fraction < 1.0 && args.n >= 2) {
            bail!("a generated set needs --n ≥ 2, --omega ≥ 1 and 0 < --fraction < 1");
        }
        match args.dim {
            2 => report(&sets::uniform::<2>(args.n, args.omega, args.fraction, args.seed), &args),
            3 => report(&sets::uniform::<3>(args.n, args.omega, args.fraction, args.seed), &args),
            d => bail!("--dim must be 2 or 3, got {d}"),
        }
    }
}

fn report<const D: usize>(spheres: &[BoundingSphere<D>], args: &BroadArgs) -> anyhow::Result<()> {
    tumble::broad::validate(spheres, args.margin)?;
    let names: Vec<&str> = match args.method.as_str() {
        "all" => METHODS
            .iter()
            .copied()
            .filter(|&m| m != "brute" || spheres.len() <= 20_000)
            .collect(),
        m if METHODS.contains(&m) => vec![m],
        m => bail!("unknown method '{m}': expected one of {} or all", METHODS.join(", ")),
    };
    let runs = args.runs.max(5);
    let timings: Vec<Timing> = names
        .iter()
        .map(|m| sets::time::<D>(m, spheres, args.margin, runs).expect("validated input"))
        .collect();
    if args.json {
        for t in &timings {
            let mut object =
                serde_json::json!({"method": t.method, "n": t.n, "pairs": t.pairs, "median_ms": t.median_ms});
            if !t.chosen.is_empty() {
                object["chosen"] = t.chosen.clone().into();
            }
            if let Some(probe) = t.probe_ms {
                object["probe_ms"] = probe.into();
            }
            println!("{object}");
        }
        return Ok(());
    }
    let best = timings.iter().map(|t| t.median_ms).fold(f64::INFINITY, f64::min);
    println!(
        "{} spheres in {D}D; median of {runs} full queries (build included)",
        spheres.len()
    );
    println!("{:<16} {:>12} {:>12} {:>8}", "method", "pairs", "median ms", "/ best");
    for t in &timings {
        let note = if t.chosen.is_empty() {
            String::new()
        } else {
            format!("  (chose {})", t.chosen)
        };
        println!(
            "{:<16} {:>12} {:>12.2} {:>8.2}{note}",
            t.method,
            t.pairs,
            t.median_ms,
            t.median_ms / best
        );
    }
    if args.method == "all" && spheres.len() > 20_000 {
        println!("(brute force left out above 20 000 spheres)");
    }
    Ok(())
}

enum Spheres {
    D2(Vec<BoundingSphere<2>>),
    D3(Vec<BoundingSphere<3>>),
}

/// Reads `x,y,r` or `x,y,z,r` rows; errors name the file and the line.
fn read_csv(path: &Path) -> anyhow::Result<Spheres> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines
        .next()
        .with_context(|| format!("{}: the file is empty", path.display()))?;
    let columns: Vec<&str> = header.split(',').map(str::trim).collect();
    let dim = match columns.as_slice() {
        ["x", "y", "r"] => 2,
        ["x", "y", "z", "r"] => 3,
        _ => bail!(
            "{}, line 1: expected the header x,y,r or x,y,z,r, found '{header}'",
            path.display()
        ),
    };
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for (i, line) in lines {
        let values: Result<Vec<f64>, _> = line.split(',').map(|v| v.trim().parse::<f64>()).collect();
        match values {
            Ok(v) if v.len() == dim + 1 => rows.push(v),
            _ => bail!(
                "{}, line {}: expected {} numbers, found '{line}'",
                path.display(),
                i + 1,
                dim + 1
            ),
        }
    }
    let sphere = |v: &Vec<f64>| (v[..dim].to_vec(), v[dim]);
    Ok(if dim == 2 {
        Spheres::D2(
            rows.iter()
                .map(sphere)
                .map(|(c, r)| BoundingSphere {
                    centre: Point::<2>::new(c[0], c[1]),
                    radius: r,
                })
                .collect(),
        )
    } else {
        Spheres::D3(
            rows.iter()
                .map(sphere)
                .map(|(c, r)| BoundingSphere {
                    centre: Point::<3>::new(c[0], c[1], c[2]),
                    radius: r,
                })
                .collect(),
        )
    })
}
