//! `ironstep run --sound-log F.json`: every sound a run would play, one
//! record per cue, so that tests (and people) check the game's sound without
//! an audio device.
//!
//! ```json
//! {"sounds": [
//!   {"frame": 212, "sound": "footstep_ground", "event": "footstep",
//!    "volume": 0.62, "surface": "ground", "side": "left",
//!    "position": [3.41, 0.0, 0.09], "speed": 3.9},
//!   {"frame": 760, "sound": "land", "event": "land", "volume": 0.33,
//!    "surface": "plank", "position": [...], "impact_speed": 4.8}
//! ]}
//! ```
//!
//! `frame` counts fixed steps from 0, like the motion metrics' `frames`
//! array; `volume` is the cue's own (0 to 1), before any master volume.
//! `surface` is set for footsteps and landings, `side` for footsteps and
//! grips, `speed` for footsteps, `impact_speed` for landings.

use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::audio::cue_for;
use crate::character::events::{CharacterEvent, FrameEvents};

/// One cue of the log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SoundRecord {
    /// The fixed step it happened in, from 0.
    pub frame: u64,
    /// The sound played ([`crate::audio::SoundId::name`]).
    pub sound: &'static str,
    /// The event that made it ([`CharacterEvent::kind_name`]).
    pub event: &'static str,
    /// The cue's volume, 0 to 1.
    pub volume: f32,
    /// The surface stepped or landed on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub surface: Option<&'static str>,
    /// The foot or hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<&'static str>,
    /// Where, world metres.
    pub position: [f32; 3],
    /// The body's speed at a footstep, m/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<f32>,
    /// The downward speed at a landing, m/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impact_speed: Option<f32>,
}

/// The cues of a run, in order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SoundLog {
    /// Every cue.
    pub sounds: Vec<SoundRecord>,
    /// Events that did not fit their frame (see
    /// [`crate::character::events::MAX_EVENTS`]); zero in every run so far.
    pub dropped: u64,
}

impl SoundLog {
    /// Adds a frame's events.
    pub fn record(&mut self, frame: u64, events: &FrameEvents) {
        self.dropped += u64::from(events.dropped());
        for e in events.iter() {
            let cue = cue_for(e);
            let (mut surface, mut side, mut speed, mut impact_speed) = (None, None, None, None);
            match *e {
                CharacterEvent::FootPlant {
                    foot,
                    surface: s,
                    speed: v,
                    ..
                } => {
                    surface = Some(s.name());
                    side = Some(foot.name());
                    speed = Some(v);
                }
                CharacterEvent::Land {
                    surface: s,
                    impact_speed: v,
                    ..
                } => {
                    surface = Some(s.name());
                    impact_speed = Some(v);
                }
                CharacterEvent::LadderGrip { hand, .. } => side = Some(hand.name()),
                CharacterEvent::Jump { .. }
                | CharacterEvent::LedgeGrab { .. }
                | CharacterEvent::Checkpoint { .. }
                | CharacterEvent::LevelComplete { .. } => {}
            }
            self.sounds.push(SoundRecord {
                frame,
                sound: cue.sound.name(),
                event: e.kind_name(),
                volume: cue.volume,
                surface,
                side,
                position: e.position().to_array(),
                speed,
                impact_speed,
            });
        }
    }

    /// Writes the log as JSON, atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        let json = serde_json::to_string(self).context("encoding the sound log")?;
        crate::fsio::write_atomic(path, json.as_bytes())
            .with_context(|| format!("{}: cannot write the sound log", path.display()))
    }
}
