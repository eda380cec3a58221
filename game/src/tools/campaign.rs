//! `ironstep run --campaign --autopilot [--metrics F.json]`: the whole level
//! sequence (`assets/levels/sequence.ron`) played headless, in order, by the
//! autopilot, through the same flow as the window ([`LevelRun`]: falls
//! counted, respawns at checkpoints, the exit completing a level).
//!
//! Each level runs until its exit, until the autopilot gives up, or for at
//! most `--frames` frames (one per 64 Hz step, by default
//! [`autopilot::DEFAULT_FRAMES`]). A level not completed ends the
//! campaign, as it would for a player (the next one stays locked), and the
//! command fails. The summary, printed and written to `--metrics`, holds
//! `levels_completed`, the total `falls` and time, and per level its time,
//! frames, falls, checkpoints reached, why it failed if it did, and the
//! motion metrics' summary of its frames. Progress is not saved: a
//! headless run is a test, not a player.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::character::Character;
use crate::flow::run::{FlowEvent, LevelRun, Phase};
use crate::flow::sequence::{SEQUENCE_LABEL, Sequence};
use crate::sim::player::{DT, Input, MoveParams};
use crate::sim::{Body, Sim};
use crate::tools::autopilot::{self, Autopilot};
use crate::tools::metrics::{Recorder, Summary};

/// One level of a campaign run.
#[derive(Clone, Debug, Serialize)]
pub struct LevelReport {
    /// The level's name in the sequence (what `--level` takes).
    pub level: String,
    /// Its display name.
    pub name: String,
    /// Whether its exit was reached.
    pub completed: bool,
    /// Fixed steps played (respawn fades included): to the exit when
    /// completed.
    pub frames: u64,
    /// Game time, seconds (`frames` / 64).
    pub time_s: f32,
    /// Falls out of the level.
    pub falls: u32,
    /// Checkpoint events (each time one became the last reached).
    pub checkpoints_reached: u32,
    /// Why the level was not completed.
    pub failure: Option<String>,
    /// The motion metrics over the level's simulated frames.
    pub motion: Summary,
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct CampaignSummary {
    /// Levels in the sequence.
    pub levels_in_sequence: usize,
    /// Levels completed, from the first on.
    pub levels_completed: usize,
    /// Falls over all levels played.
    pub falls: u32,
    /// Game time over all levels played, seconds.
    pub time_s: f32,
    /// Each level played, in order.
    pub levels: Vec<LevelReport>,
}

/// The JSON document `--metrics` writes for a campaign.
#[derive(Serialize)]
struct CampaignFile<'a> {
    campaign: &'a str,
    ik: bool,
    summary: &'a CampaignSummary,
}

/// Plays one level with the autopilot through a [`LevelRun`].
pub fn play_level(
    level_name: &str,
    level: crate::sim::world::Level,
    character: Arc<Character>,
    frames: u64,
    ik: bool,
) -> Result<LevelReport> {
    let mut pilot = Autopilot::new(&level, MoveParams::default())
        .with_context(|| format!("{level_name}: cannot build the reachability graph"))?;
    let name = level.name.clone();
    let mut sim = Sim::new(level, character);
    sim.ik_enabled = ik;
    let mut run = LevelRun::new();
    let mut rec = Recorder::default();
    let mut events = Vec::new();
    let mut checkpoints_reached = 0;
    for _ in 0..frames {
        if run.phase == Phase::Complete || pilot.failed() {
            break;
        }
        let input = if run.is_playing() {
            let player = sim.player_state();
            pilot.input(&sim.level, &player, sim.steps)
        } else {
            // The respawn fade: the world holds still.
            Input::default()
        };
        let stepped_before = sim.steps;
        events.clear();
        run.step(&mut sim, &input, &mut events);
        checkpoints_reached += events
            .iter()
            .filter(|e| matches!(e, FlowEvent::CheckpointReached { .. }))
            .count() as u32;
        if sim.steps == stepped_before
            && !events
                .iter()
                .any(|e| matches!(e, FlowEvent::Respawned { .. }))
        {
            continue;
        }
        sim.pose(DT);
        let player = sim.player_state();
        let body = sim
            .world
            .get::<&Body>(sim.player)
            .expect("the player has a body");
        rec.record(&sim.level, &player, &body.character, &body.pipeline, DT);
    }
    let completed = run.phase == Phase::Complete;
    let failure = match (completed, &pilot.outcome.failure) {
        (true, _) => None,
        (false, Some(why)) => Some(why.clone()),
        (false, None) => {
            let p = sim.player_state().pos;
            Some(format!(
                "out of frames after {} at ({:.2}, {:.2}) m",
                run.steps, p.x, p.y
            ))
        }
    };
    Ok(LevelReport {
        level: level_name.to_string(),
        name,
        completed,
        frames: run.steps,
        time_s: run.time_s(),
        falls: run.falls,
        checkpoints_reached,
        failure,
        motion: rec.summary,
    })
}

/// Plays the shipped sequence; stops after the first level not completed.
pub fn play_sequence(
    sequence: &Sequence,
    character: Arc<Character>,
    frames: u64,
    ik: bool,
    mut each: impl FnMut(&LevelReport),
) -> Result<CampaignSummary> {
    let mut levels = Vec::new();
    for (name, source) in sequence.names.iter().zip(&sequence.sources) {
        let level = source
            .load()
            .with_context(|| format!("{SEQUENCE_LABEL}: level {name}"))?;
        let report = play_level(name, level, character.clone(), frames, ik)?;
        each(&report);
        let done = report.completed;
        levels.push(report);
        if !done {
            break;
        }
    }
    Ok(CampaignSummary {
        levels_in_sequence: sequence.len(),
        levels_completed: levels.iter().take_while(|l| l.completed).count(),
        falls: levels.iter().map(|l| l.falls).sum(),
        time_s: levels.iter().map(|l| l.time_s).sum(),
        levels,
    })
}

/// Runs `ironstep run --campaign --autopilot`.
pub fn run(
    character: Arc<Character>,
    frames: Option<u64>,
    ik: bool,
    metrics: Option<&Path>,
) -> Result<()> {
    let sequence = Sequence::shipped()?;
    let frames = frames.unwrap_or(autopilot::DEFAULT_FRAMES);
    let summary = play_sequence(&sequence, character, frames, ik, |l| match &l.failure {
        None => println!(
            "campaign: {} ({}): exit reached in {} frames ({:.2} s), {} falls, {} checkpoints",
            l.level, l.name, l.frames, l.time_s, l.falls, l.checkpoints_reached
        ),
        Some(why) => println!(
            "campaign: {} ({}): NOT completed after {} frames, {} falls: {why}",
            l.level, l.name, l.frames, l.falls
        ),
    })?;
    println!(
        "campaign: {} of {} levels completed, {} falls, {:.2} s",
        summary.levels_completed, summary.levels_in_sequence, summary.falls, summary.time_s
    );
    if let Some(path) = metrics {
        let doc = CampaignFile {
            campaign: SEQUENCE_LABEL,
            ik,
            summary: &summary,
        };
        let json = serde_json::to_string_pretty(&doc).context("encoding the campaign summary")?;
        crate::fsio::write_atomic(path, json.as_bytes())
            .with_context(|| format!("{}: cannot write the metrics", path.display()))?;
    }
    if summary.levels_completed < summary.levels_in_sequence {
        let stuck = summary.levels.last().map_or("?", |l| l.level.as_str());
        bail!(
            "campaign: stopped at {stuck}: {} of {} levels completed",
            summary.levels_completed,
            summary.levels_in_sequence
        );
    }
    Ok(())
}
