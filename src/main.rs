//! The `tumble` command line. See `tumble --help`.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            e.downcast_ref::<cli::Exit>()
                .map_or(std::process::ExitCode::FAILURE, |exit| exit.code.into())
        }
    }
}
