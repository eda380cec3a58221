//! The `ironstep` binary: plays the game, and carries the command-line tools
//! for artists, designers and engineers (see `game::tools`). The command
//! line itself is defined in `game::cli`.

use std::process::ExitCode;

use clap::Parser;

/// Counts allocations so `ironstep bench` can report allocations per frame
/// and memory per knight.
#[global_allocator]
static ALLOCATOR: game::profile::CountingAllocator = game::profile::CountingAllocator;

fn main() -> ExitCode {
    match game::cli::Cli::parse().run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One clear line: the error and its causes, no backtrace.
            eprintln!("ironstep: {err:#}");
            ExitCode::FAILURE
        }
    }
}
