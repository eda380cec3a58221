//! The `ironstep` binary: plays the game, and carries the command-line tools
//! for artists, designers and engineers (see `game::tools`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Counts allocations so `ironstep bench` can report allocations per frame
/// and memory per knight.
#[global_allocator]
static ALLOCATOR: game::profile::CountingAllocator = game::profile::CountingAllocator;

/// Ironstep: a side-scroller whose 3D knight really stands on the world.
#[derive(Parser, Debug)]
#[command(name = "ironstep", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a glTF model's joints, clips, meshes and warnings (for artists and riggers).
    Inspect(game::tools::inspect::InspectArgs),
    /// Play the game in a window (the default with no command): the title screen, or `--level L` straight into play.
    Play(game::window::app::PlayArgs),
    /// Run the simulation headless from an input script and report motion metrics.
    Run(game::tools::headless::RunArgs),
    /// Render a skinned glTF model to a PNG, framed automatically (for artists and tests).
    Render(game::tools::render_model::RenderArgs),
    /// Check Tiled level maps for problems (for designers and their CI).
    CheckLevel(game::level::check::CheckArgs),
    /// Drag a target and watch IK chains follow (two-bone strategies, CCD, FABRIK).
    IkLab(game::tools::ik_lab::IkLabArgs),
    /// Benchmark a scripted crowd of knights: per-stage CPU and GPU times, JSON, Chrome trace.
    Bench(game::tools::bench::BenchArgs),
    /// Infer a humanoid model's rig file (joints, axes, scale, clip roles), one comment per decision.
    Rig(game::tools::rig::RigArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Inspect(args)) => game::tools::inspect::run(&args),
        Some(Command::Run(args)) => game::tools::headless::run(&args),
        Some(Command::Play(args)) => game::window::app::play(args),
        Some(Command::IkLab(args)) => game::tools::ik_lab::run(args),
        Some(Command::Render(args)) => game::tools::render_model::run(&args),
        Some(Command::Bench(args)) => game::tools::bench::run(&args),
        Some(Command::Rig(args)) => game::tools::rig::run(&args),
        // The title screen first.
        None => game::window::app::play(game::window::app::PlayArgs {
            screenshot_dir: ".".into(),
            ..Default::default()
        }),
        Some(Command::CheckLevel(args)) => game::level::check::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One clear line: the error and its causes, no backtrace.
            eprintln!("ironstep: {err:#}");
            ExitCode::FAILURE
        }
    }
}
