//! Sound: which sound each [`CharacterEvent`] makes and how loud
//! ([`cue_for`]), the synthesized sound bank ([`synth`]), and playback
//! through the audio device ([`output`]), silent when there is none.
//!
//! The mapping from events to cues is pure, so that the headless runs
//! (`ironstep run --sound-log F`) write exactly the cues the window would
//! play, and the tests check them without a device.

pub mod output;
pub mod synth;

use crate::character::events::{CharacterEvent, Surface};

pub use output::Audio;

/// One of the game's sounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SoundId {
    /// A foot on this surface.
    Footstep(Surface),
    /// Pushing off for a jump.
    Jump,
    /// Touching down.
    Land,
    /// A hand closing on a rung.
    Grip,
    /// A checkpoint reached.
    Checkpoint,
    /// The level's exit reached.
    LevelComplete,
}

impl SoundId {
    /// Every sound, in the bank's order.
    pub const ALL: [SoundId; 10] = [
        SoundId::Footstep(Surface::Ground),
        SoundId::Footstep(Surface::Slope),
        SoundId::Footstep(Surface::Plank),
        SoundId::Footstep(Surface::Rung),
        SoundId::Footstep(Surface::Platform),
        SoundId::Jump,
        SoundId::Land,
        SoundId::Grip,
        SoundId::Checkpoint,
        SoundId::LevelComplete,
    ];

    /// The sound's index in [`SoundId::ALL`] (and the bank).
    pub fn index(self) -> usize {
        match self {
            SoundId::Footstep(Surface::Ground) => 0,
            SoundId::Footstep(Surface::Slope) => 1,
            SoundId::Footstep(Surface::Plank) => 2,
            SoundId::Footstep(Surface::Rung) => 3,
            SoundId::Footstep(Surface::Platform) => 4,
            SoundId::Jump => 5,
            SoundId::Land => 6,
            SoundId::Grip => 7,
            SoundId::Checkpoint => 8,
            SoundId::LevelComplete => 9,
        }
    }

    /// The sound's name, as the sound log writes it (`footstep_plank`,
    /// `land`, ...).
    pub fn name(self) -> &'static str {
        match self {
            SoundId::Footstep(Surface::Ground) => "footstep_ground",
            SoundId::Footstep(Surface::Slope) => "footstep_slope",
            SoundId::Footstep(Surface::Plank) => "footstep_plank",
            SoundId::Footstep(Surface::Rung) => "footstep_rung",
            SoundId::Footstep(Surface::Platform) => "footstep_platform",
            SoundId::Jump => "jump",
            SoundId::Land => "land",
            SoundId::Grip => "grip",
            SoundId::Checkpoint => "checkpoint",
            SoundId::LevelComplete => "level_complete",
        }
    }
}

/// A sound to play and its volume (0 to 1, before the master volume).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cue {
    /// The sound.
    pub sound: SoundId,
    /// Its volume, 0 to 1.
    pub volume: f32,
}

/// A footstep's volume at a standstill (a foot re-stepping while standing)
/// and at [`LOUD_STEP_SPEED`] or more: running steps are louder than walking
/// ones.
const STEP_VOLUME: (f32, f32) = (0.25, 0.7);
/// The body speed at which footsteps are loudest, m/s: the knight's run.
const LOUD_STEP_SPEED: f32 = 4.0;
/// A landing's volume from the gentlest touch-down to one at
/// [`LOUD_LANDING_SPEED`] or more.
const LAND_VOLUME: (f32, f32) = (0.15, 1.0);
/// The impact speed of the loudest landing, m/s: a fall of about 3.7 m
/// (`v² = 2 g h` at 9.81 m/s²), the highest drops of the shipped levels.
const LOUD_LANDING_SPEED: f32 = 8.5;
/// A rung's footstep is quieter than a floor's: the climber places the foot.
const RUNG_STEP_VOLUME: f32 = 0.35;
const JUMP_VOLUME: f32 = 0.5;
const GRIP_VOLUME: f32 = 0.4;
/// A ledge grab: both hands and the whole body's weight, louder than a rung's grip.
const LEDGE_GRAB_VOLUME: f32 = 0.7;
const CHIME_VOLUME: f32 = 0.8;

/// The sound an event makes, and how loud: footsteps by the body's speed,
/// landings by the speed of impact (a higher fall lands louder).
pub fn cue_for(event: &CharacterEvent) -> Cue {
    let lerp = |(lo, hi): (f32, f32), t: f32| {
        let t = if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.0
        };
        lo + (hi - lo) * t
    };
    match *event {
        CharacterEvent::FootPlant {
            surface: Surface::Rung,
            ..
        } => Cue {
            sound: SoundId::Footstep(Surface::Rung),
            volume: RUNG_STEP_VOLUME,
        },
        CharacterEvent::FootPlant { surface, speed, .. } => Cue {
            sound: SoundId::Footstep(surface),
            volume: lerp(STEP_VOLUME, speed / LOUD_STEP_SPEED),
        },
        CharacterEvent::Jump { .. } => Cue {
            sound: SoundId::Jump,
            volume: JUMP_VOLUME,
        },
        CharacterEvent::Land { impact_speed, .. } => Cue {
            sound: SoundId::Land,
            // Loudness grows with the energy of the impact (speed squared).
            volume: lerp(LAND_VOLUME, (impact_speed / LOUD_LANDING_SPEED).powi(2)),
        },
        CharacterEvent::LadderGrip { .. } => Cue {
            sound: SoundId::Grip,
            volume: GRIP_VOLUME,
        },
        // Both hands slapping onto a corner and taking the body's weight:
        // the grip's sound, louder.
        CharacterEvent::LedgeGrab { .. } => Cue {
            sound: SoundId::Grip,
            volume: LEDGE_GRAB_VOLUME,
        },
        CharacterEvent::Checkpoint { .. } => Cue {
            sound: SoundId::Checkpoint,
            volume: CHIME_VOLUME,
        },
        CharacterEvent::LevelComplete { .. } => Cue {
            sound: SoundId::LevelComplete,
            volume: CHIME_VOLUME,
        },
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::character::events::Side;

    #[test]
    fn every_sound_has_its_own_index_and_name() {
        for (i, id) in SoundId::ALL.iter().enumerate() {
            assert_eq!(id.index(), i);
        }
        let mut names: Vec<_> = SoundId::ALL.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SoundId::ALL.len());
    }

    #[test]
    fn higher_falls_land_louder_and_running_steps_are_louder_than_walking() {
        let land = |v| {
            cue_for(&CharacterEvent::Land {
                position: Vec3::ZERO,
                surface: Surface::Ground,
                impact_speed: v,
            })
            .volume
        };
        assert!(land(0.0) < land(3.0) && land(3.0) < land(6.0) && land(6.0) < land(8.0));
        assert_eq!(land(20.0), LAND_VOLUME.1);
        assert_eq!(land(f32::NAN), LAND_VOLUME.0);
        let step = |speed| {
            cue_for(&CharacterEvent::FootPlant {
                foot: Side::Left,
                position: Vec3::ZERO,
                surface: Surface::Plank,
                speed,
            })
        };
        assert_eq!(step(1.4).sound, SoundId::Footstep(Surface::Plank));
        assert!(step(1.4).volume < step(4.0).volume);
    }
}
