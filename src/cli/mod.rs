//! Command-line interface: one module per subcommand.

mod bench;
mod distance;
mod mesh;
mod run;

use clap::{Parser, Subcommand};

/// Rigid bodies in a viscous fluid, repelling each other and the walls through distance fields.
///
/// Example: tumble run cases/dry_disk_wall.toml
#[derive(Parser, Debug)]
#[command(name = "tumble", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a case file (example: tumble run cases/dry_disk_wall.toml --out out/disk).
    Run(run::RunArgs),
    /// Run a case and check its results against the intervals of its [check] table; fails if
    /// any is outside (example: tumble check cases/schafer_turek_2d2.toml).
    Check(run::RunArgs),
    /// Inspect and convert meshes (example: tumble mesh info meshes/disk_r3.msh).
    #[command(subcommand)]
    Mesh(mesh::MeshCommand),
    /// Distance to marked facets by narrow-band fast marching, to a .vtu file
    /// (example: tumble distance meshes/disk_r3.msh --front r1 --band 1 -o distance.vtu).
    Distance(distance::DistanceArgs),
    /// Benchmarks (example: tumble bench broad --dim 3 --n 100000 --omega 10).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

/// An error that ends the process with its own exit code (an interrupted run: 128 + the signal).
#[derive(Debug)]
pub struct Exit {
    /// The process's exit code.
    pub code: u8,
    /// What to print.
    pub message: String,
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// Runs the parsed command.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    // A memory limit that is not a size is an error before any work, not halfway through it.
    tumble::memory::budget()?;
    match cli.command {
        Command::Run(r) => run::run(r),
        Command::Check(r) => run::check(r),
        Command::Mesh(m) => mesh::run(m),
        Command::Distance(d) => distance::run(d),
        Command::Bench(b) => bench::run(b),
    }
}
