//! `tumble bench`: timings a user can reproduce on their own machine and data.

mod broad;
mod mesh;

use clap::Subcommand;

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Time the broad-phase methods on a set of spheres, side by side
    /// (example: tumble bench broad --dim 3 --n 100000 --omega 10 --method all).
    Broad(broad::BroadArgs),
    /// Time reading Gmsh files (example: tumble bench mesh meshes/disk_r3.msh meshes/disk_r3.bin.msh).
    Mesh(mesh::MeshArgs),
}

pub fn run(command: BenchCommand) -> anyhow::Result<()> {
    match command {
        BenchCommand::Broad(args) => broad::run(args),
        BenchCommand::Mesh(args) => mesh::run(args),
    }
}
