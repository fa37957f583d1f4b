//! `tumble bench mesh`: the time to read Gmsh files into meshes, with their adjacency, measures and
//! quality (what `tumble mesh info` and a case do with a mesh file), as a median over repeated
//! reads; `scripts/bench_gmsh_read.py` puts meshio's time on the same files beside it.

use clap::Args;
use std::path::PathBuf;
use std::time::Instant;
use tumble::mesh::gmsh::{self, AnyMesh};

#[derive(Args, Debug)]
pub struct MeshArgs {
    /// Gmsh .msh files (4.1 ASCII or binary, 2.2 ASCII).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Reads timed per file (the median is reported).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Print one JSON object per file {"file", "bytes", "cells", "median_s", "mb_per_s"} instead
    /// of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: MeshArgs) -> anyhow::Result<()> {
    let runs = args.runs.max(1);
    if !args.json {
        println!("median of {runs} reads (file bytes, parsing, adjacency, measures and quality)");
        println!(
            "{:<40} {:>10} {:>10} {:>10} {:>8}",
            "file", "MB", "cells", "median s", "MB/s"
        );
    }
    for file in &args.files {
        let bytes = std::fs::metadata(file)
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?
            .len();
        let mut seconds = Vec::with_capacity(runs);
        let mut cells = 0;
        for _ in 0..runs {
            let start = Instant::now();
            let mesh = gmsh::read(file)?;
            seconds.push(start.elapsed().as_secs_f64());
            cells = match &mesh {
                AnyMesh::D2(m) => m.num_cells(),
                AnyMesh::D3(m) => m.num_cells(),
            };
        }
        seconds.sort_by(f64::total_cmp);
        let median = seconds[runs / 2];
        let mb = bytes as f64 / 1e6;
        if args.json {
            let object = serde_json::json!({
                "file": file.display().to_string(), "bytes": bytes, "cells": cells,
                "median_s": median, "mb_per_s": mb / median,
            });
            println!("{object}");
        } else {
            println!(
                "{:<40} {:>10.1} {:>10} {:>10.3} {:>8.0}",
                file.display(),
                mb,
                cells,
                median,
                mb / median
            );
        }
    }
    Ok(())
}
