//! `tumble mesh info` and `tumble mesh convert`.

use anyhow::bail;
use clap::Subcommand;
use std::path::{Path, PathBuf};
use tumble::io::{write_mesh_vtu, Field};
use tumble::mesh::gmsh::{self, AnyMesh, ReadNotes};
use tumble::SimplexMesh;

#[derive(Subcommand, Debug)]
pub enum MeshCommand {
    /// Print a mesh's dimension, counts, markers, quality and bounding box
    /// (example: tumble mesh info meshes/ball_r3.msh).
    Info {
        /// A Gmsh .msh file (version 4.1 ASCII or binary, or 2.2 ASCII).
        file: PathBuf,
    },
    /// Convert a Gmsh mesh to a VTK .vtu file for ParaView, with the cell markers and the quality as
    /// cell data (example: tumble mesh convert meshes/disk_r3.msh disk.vtu).
    Convert {
        /// The Gmsh .msh file to read.
        input: PathBuf,
        /// The .vtu file to write.
        output: PathBuf,
    },
}

pub fn run(command: MeshCommand) -> anyhow::Result<()> {
    match command {
        MeshCommand::Info { file } => {
            let (mesh, notes) = gmsh::read_noted(&file)?;
            match mesh {
                AnyMesh::D2(m) => print!("{}", info(&file, &m, notes)),
                AnyMesh::D3(m) => print!("{}", info(&file, &m, notes)),
            }
        }
        MeshCommand::Convert { input, output } => {
            if output.extension().and_then(|e| e.to_str()) != Some("vtu") {
                bail!("{}: the output must be a .vtu file", output.display());
            }
            let (nodes, cells) = match gmsh::read(&input)? {
                AnyMesh::D2(m) => convert(&m, &output)?,
                AnyMesh::D3(m) => convert(&m, &output)?,
            };
            println!("wrote {} ({nodes} nodes, {cells} cells)", output.display());
        }
    }
    Ok(())
}

fn convert<const D: usize>(mesh: &SimplexMesh<D>, output: &Path) -> anyhow::Result<(usize, usize)> {
    write_mesh_vtu(
        output,
        mesh,
        vec![],
        vec![
            Field::integer("marker", mesh.cell_markers()),
            Field::scalar("quality", mesh.cell_quality()),
        ],
    )?;
    Ok((mesh.num_points(), mesh.num_cells()))
}

/// The report of `tumble mesh info`.
fn info<const D: usize>(file: &Path, mesh: &SimplexMesh<D>, notes: ReadNotes) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let kind = if D == 2 { "triangles" } else { "tetrahedra" };
    let facet_kind = if D == 2 { "segments" } else { "triangles" };
    let _ = writeln!(out, "{}: {D}D mesh", file.display());
    let _ = writeln!(out, "  nodes           {}", mesh.num_points());
    let _ = writeln!(out, "  cells           {} {kind}", mesh.num_cells());
    if notes.reoriented_cells > 0 {
        let order = if D == 2 { "clockwise" } else { "left-handed" };
        let _ = writeln!(
            out,
            "  orientation     {} cells were {order} in the file and are reordered",
            notes.reoriented_cells
        );
    }
    let q = mesh.cell_quality();
    let (qmin, qmax) = q
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    let qmean = q.iter().sum::<f64>() / q.len() as f64;
    let _ = writeln!(
        out,
        "  quality         min {qmin:.3}, mean {qmean:.3}, max {qmax:.3} (1 = regular simplex)"
    );
    let (lo, hi) = mesh.bounding_box();
    let bbox: Vec<String> = (0..D).map(|a| format!("[{}, {}]", lo[a], hi[a])).collect();
    let _ = writeln!(out, "  bounding box    {}", bbox.join(" × "));
    let measure: f64 = mesh.cell_measures().iter().sum();
    let _ = writeln!(
        out,
        "  {:<16}{measure}",
        if D == 2 { "total area" } else { "total volume" }
    );
    let mut cell_counts = std::collections::BTreeMap::<i32, usize>::new();
    for &m in mesh.cell_markers() {
        *cell_counts.entry(m).or_default() += 1;
    }
    let _ = writeln!(out, "  cell markers");
    for (m, n) in cell_counts {
        let name = mesh.cell_names().get(&m).map_or("(no name)", String::as_str);
        let _ = writeln!(out, "    {m:>6}  {name:<20} {n} {kind}");
    }
    let mut facet_counts = std::collections::BTreeMap::<i32, usize>::new();
    for &m in mesh.facet_markers() {
        *facet_counts.entry(m).or_default() += 1;
    }
    let _ = writeln!(out, "  facet markers");
    for (m, n) in facet_counts {
        let name = mesh.facet_names().get(&m).map_or("(no name)", String::as_str);
        let _ = writeln!(out, "    {m:>6}  {name:<20} {n} {facet_kind}");
    }
    let sorted = |mut f: [u32; D]| {
        f.sort_unstable();
        f
    };
    let marked: std::collections::HashSet<[u32; D]> = mesh.facets().iter().map(|&f| sorted(f)).collect();
    let unmarked = mesh
        .boundary()
        .iter()
        .filter(|&&face| !marked.contains(&sorted(mesh.face_nodes(face))))
        .count();
    let _ = writeln!(
        out,
        "  boundary        {} {facet_kind}, {unmarked} of them in no facet marker",
        mesh.boundary().len()
    );
    out
}
