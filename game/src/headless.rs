//! `ironstep run`: the real simulation and pose pipeline, driven by a script
//! of timed presses, with motion metrics written as JSON.
//!
//! ```text
//! ironstep run --input assets/scripts/slopes.txt --frames 2400 --metrics out.json
//! ```
//!
//! One frame is one fixed simulation step (64 per second), so a run is
//! deterministic: the same script gives the same metrics on every machine.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::Serialize;

use crate::character::Character;
use crate::metrics::{FrameRecord, Recorder, Summary};
use crate::player::DT;
use crate::script::Script;
use crate::sim::{Body, Sim};
use crate::world::Level;

/// The most frames one run may take: ten minutes of game time, which no
/// script needs and which keeps the per-frame record in memory bounded
/// (about 200 bytes a frame).
pub const MAX_FRAMES: u64 = 64 * 600;

/// Arguments of `ironstep run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The level: `builtin` (the default).
    #[arg(long, default_value = "builtin")]
    pub level: String,
    /// The input script (see `assets/scripts/`).
    #[arg(long)]
    pub input: PathBuf,
    /// Frames to run (one per 64 Hz simulation step).
    #[arg(long)]
    pub frames: u64,
    /// Write the motion metrics (per frame and a summary) to this JSON file.
    #[arg(long)]
    pub metrics: Option<PathBuf>,
    /// Run without IK (to compare with the raw animation).
    #[arg(long)]
    pub no_ik: bool,
}

/// The JSON document `--metrics` writes.
#[derive(Serialize)]
struct MetricsFile<'a> {
    level: &'a str,
    script: String,
    ik: bool,
    summary: &'a Summary,
    frames: &'a [FrameRecord],
}

/// Loads the level a `--level` argument names.
pub fn load_level(name: &str) -> Result<Level> {
    match name {
        "builtin" => Ok(Level::builtin()),
        other => bail!(
            "{other}: unknown level (this build knows only `builtin`; Tiled levels arrive with the level editor work)"
        ),
    }
}

/// Runs a script and returns the recorder.
pub fn run_script(
    level: Level,
    character: Arc<Character>,
    script: &Script,
    frames: u64,
    ik: bool,
) -> Recorder {
    let mut sim = Sim::new(level, character);
    sim.ik_enabled = ik;
    let mut input = script.player();
    let mut rec = Recorder::default();
    for _ in 0..frames {
        sim.step(&input.next_input());
        sim.pose(DT);
        let player = sim.player_state();
        let body = sim
            .world
            .get::<&Body>(sim.player)
            .expect("the player has a body");
        rec.record(&sim.level, &player, &body.character, &body.pipeline, DT);
    }
    if let Some(goal) = script.goal {
        let end = glam::Vec2::from_array(rec.summary.final_pos);
        rec.summary.goal_reached = Some(end.distance(goal.pos) <= goal.radius);
    }
    rec
}

/// Runs `ironstep run`.
pub fn run(args: &RunArgs) -> Result<()> {
    if args.frames == 0 || args.frames > MAX_FRAMES {
        bail!(
            "--frames {} must be between 1 and {MAX_FRAMES}",
            args.frames
        );
    }
    let level = load_level(&args.level)?;
    let script = Script::load(&args.input)?;
    let character = Arc::new(Character::knight().context("building the knight")?);
    let rec = run_script(level, character, &script, args.frames, !args.no_ik);
    let s = &rec.summary;
    println!(
        "{} frames; planted foot error {:.4} m; stance slide {:.4} m; max joint speed {:.2} rad/s; rung contact error {:.4} m; flat-ground IK delta {:.6} m; NaN frames {}; goal {}",
        s.frames,
        s.planted_foot_max_error_m,
        s.stance_slide_max_m,
        s.max_joint_angular_speed_rad_s,
        s.rung_contact_max_error_m,
        s.ik_flat_ground_delta_m,
        s.nan_count,
        match s.goal_reached {
            Some(true) => "reached",
            Some(false) => "NOT reached",
            None => "none",
        }
    );
    if let Some(path) = &args.metrics {
        write_metrics(path, &args.level, &args.input, !args.no_ik, &rec)?;
    }
    Ok(())
}

fn write_metrics(path: &Path, level: &str, script: &Path, ik: bool, rec: &Recorder) -> Result<()> {
    let doc = MetricsFile {
        level,
        script: script.display().to_string(),
        ik,
        summary: &rec.summary,
        frames: &rec.frames,
    };
    let json = serde_json::to_string(&doc).context("encoding the metrics")?;
    std::fs::write(path, json)
        .with_context(|| format!("{}: cannot write the metrics", path.display()))
}
