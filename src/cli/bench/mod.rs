//! `tumble bench`: timings a user can reproduce on their own machine and data.

mod broad;
mod mesh;
mod solver;

use clap::Subcommand;

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Time the broad-phase methods on a set of spheres, side by side
    /// (example: tumble bench broad --dim 3 --n 100000 --omega 10 --method all).
    Broad(broad::BroadArgs),
    /// Time reading Gmsh files (example: tumble bench mesh meshes/disk_r3.msh meshes/disk_r3.bin.msh).
    Mesh(mesh::MeshArgs),
    /// Time and peak memory of a time step against the velocity unknowns, Cholesky factors
    /// against AMG-preconditioned CG (example: tumble bench solver --direct 8,12,16 --iterative 8,16,32,48).
    Solver(solver::SolverArgs),
}

pub fn run(command: BenchCommand) -> anyhow::Result<()> {
    match command {
        BenchCommand::Broad(args) => broad::run(args),
        BenchCommand::Mesh(args) => mesh::run(args),
        BenchCommand::Solver(args) => solver::run(args),
    }
}
