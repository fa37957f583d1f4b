//! `tumble distance`: the distance field of marked facets of a mesh, to a `.vtu` file.

use anyhow::bail;
use clap::Args;
use std::path::{Path, PathBuf};
use tumble::fmm::{distance_to_range, FmmOptions, Front};
use tumble::io::{write_mesh_vtu, Field};
use tumble::mesh::gmsh::{self, AnyMesh};
use tumble::mesh::NONE;
use tumble::SimplexMesh;

/// Compute the distance to marked facets by narrow-band fast marching and write it to a .vtu file
/// (example: tumble distance meshes/disk_r3.msh --front r1 --band 1 -o distance.vtu).
#[derive(Args, Debug)]
pub struct DistanceArgs {
    /// A Gmsh .msh file.
    mesh: PathBuf,
    /// Names of the facet markers forming the front, comma-separated (e.g. r1 or wall,inlet).
    #[arg(long, value_delimiter = ',', required = true)]
    front: Vec<String>,
    /// Width d_max of the narrow band; the whole mesh if absent.
    #[arg(long, allow_negative_numbers = true)]
    band: Option<f64>,
    /// Value of the nodes beyond the band (default: the band width).
    #[arg(long, allow_negative_numbers = true)]
    default: Option<f64>,
    /// Unsigned distance (by default it is negative inside a closed front).
    #[arg(long)]
    unsigned: bool,
    /// Track each node's closest front facet (written as `closest_facet`) and use the exact
    /// distance to it.
    #[arg(long)]
    closest_point: bool,
    /// Measure distances to the smooth body the front's facets discretise (quadratic patches bent
    /// by the node normals; corners stay sharp), not to the facets themselves.
    #[arg(long)]
    curved: bool,
    /// The .vtu file to write, with the point field `distance`.
    #[arg(short, long)]
    output: PathBuf,
    /// Print one JSON object {"nodes", "cells", "accepted", "init_seconds", "march_seconds"} instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: DistanceArgs) -> anyhow::Result<()> {
    if args.output.extension().and_then(|e| e.to_str()) != Some("vtu") {
        bail!("{}: the output must be a .vtu file", args.output.display());
    }
    match gmsh::read(&args.mesh)? {
        AnyMesh::D2(m) => compute(&m, &args),
        AnyMesh::D3(m) => compute(&m, &args),
    }
}

fn compute<const D: usize>(mesh: &SimplexMesh<D>, args: &DistanceArgs) -> anyhow::Result<()> {
    let names: Vec<&str> = args.front.iter().map(String::as_str).collect();
    let front = Front::named(mesh, &names).map_err(|e| anyhow::anyhow!("{}: {e}", args.mesh.display()))?;
    let options = FmmOptions {
        max_distance: args.band,
        default_value: args.default,
        signed: !args.unsigned,
        closest_point: args.closest_point,
        curved_front: args.curved,
    };
    let field =
        distance_to_range(mesh, &front, &options).map_err(|e| anyhow::anyhow!("{}: {e}", args.mesh.display()))?;
    let mut point_fields = vec![Field::scalar("distance", &field.values)];
    if let Some(closest) = &field.closest {
        let ids: Vec<i32> = closest.iter().map(|&c| if c == NONE { -1 } else { c as i32 }).collect();
        point_fields.push(Field::integer("closest_facet", &ids));
    }
    write_mesh_vtu(
        &args.output,
        mesh,
        point_fields,
        vec![Field::integer("marker", mesh.cell_markers())],
    )?;
    let stats = field.stats;
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "nodes": mesh.num_points(),
                "cells": mesh.num_cells(),
                "accepted": stats.accepted,
                "init_seconds": stats.init_seconds,
                "march_seconds": stats.march_seconds,
            })
        );
    } else {
        print_summary(mesh, &args.output, &stats);
    }
    Ok(())
}

fn print_summary<const D: usize>(mesh: &SimplexMesh<D>, output: &Path, stats: &tumble::fmm::FmmStats) {
    println!(
        "{} of {} nodes accepted ({} initialised exactly); initialisation {:.2} ms, march {:.2} ms",
        stats.accepted,
        mesh.num_points(),
        stats.initialised,
        stats.init_seconds * 1e3,
        stats.march_seconds * 1e3
    );
    println!("wrote {} (point field 'distance')", output.display());
}
