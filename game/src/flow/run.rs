//! One attempt at one level: the timer, the falls, the last checkpoint
//! reached, and the phases playing → (respawning → playing)* → complete.
//!
//! [`LevelRun::step`] wraps [`Sim::step`]: it is what the window, the
//! headless campaign and the tests call once per fixed step instead. While
//! playing it steps the simulation, then looks at where the player ended:
//!
//! - Lost out of the level (below [`Level::kill_height`]): the controller
//!   puts a lost player back at the spawn by itself
//!   ([`crate::sim::player::Player::step`]); the run notices that jump
//!   ([`lost_in_step`], the same rule the autopilot uses), puts the player
//!   back where they were before it (so the fade shows the fall, not the
//!   spawn), counts a fall and starts the respawn fade. The world holds
//!   still during the fade; half way, fully faded, the player is moved to
//!   the last checkpoint reached (the spawn until one is) with a fresh
//!   pose, and the fade lifts. The timer keeps running through it: a fall
//!   costs [`RESPAWN_STEPS`] of time.
//! - Standing near a checkpoint other than the last one reached: it becomes
//!   the last one (going back to an earlier one makes that the last again).
//! - Standing at the exit: the run is complete and stops the timer.
//!
//! Each of these pushes a [`FlowEvent`] onto the caller's per-frame list,
//! which a sound system or the HUD reads.

use glam::Vec2;

use crate::sim::Sim;
use crate::sim::player::{DT, Input, Locomotion, Player};
use crate::sim::world::Level;
use crate::tools::autopilot::EXIT_RADIUS;

/// Steps the screen takes to fade out after a fall: 0.3 s at 64 Hz, long
/// enough to read as a cut, short enough not to punish (Celeste respawns
/// in well under a second).
pub const FADE_OUT_STEPS: u32 = 20;
/// Steps the screen takes to fade back in at the checkpoint (0.3 s).
pub const FADE_IN_STEPS: u32 = 20;
/// Steps a respawn takes in all.
pub const RESPAWN_STEPS: u32 = FADE_OUT_STEPS + FADE_IN_STEPS;
/// How far from a checkpoint, horizontally, a standing player reaches it,
/// metres: wider than a step at running speed (about 0.1 m) and than the
/// body (0.5 m), so running past one never misses it.
pub const CHECKPOINT_REACH_X: f32 = 0.75;
/// How far above or below a checkpoint's feet a standing player reaches
/// it, metres: a step either way, never the floor of another storey.
pub const CHECKPOINT_REACH_Y: f32 = 0.5;
/// A move longer than this in one step is a teleport, metres (the rule the
/// autopilot and the pose pipeline use too): no controller moves so far in
/// 1/64 s.
pub const TELEPORT_DISTANCE: f32 = 2.0;

/// Something that happened in the flow this step, for sounds and the HUD.
#[derive(Clone, Debug, PartialEq)]
pub enum FlowEvent {
    /// The player reached a checkpoint: its index in
    /// [`Level::checkpoints`] and its name.
    CheckpointReached {
        /// Index in [`Level::checkpoints`].
        index: usize,
        /// Its name.
        name: String,
    },
    /// The player fell out of the level here (feet, metres).
    Fell {
        /// Where the player was last seen.
        at: Vec2,
    },
    /// The player came back at a checkpoint (or the spawn).
    Respawned {
        /// Where (feet, metres).
        at: Vec2,
    },
    /// The player reached the exit.
    LevelComplete {
        /// Game time from spawn to exit, seconds.
        time_s: f32,
        /// Falls on the way.
        falls: u32,
    },
}

/// Where a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The player moves; the timer runs.
    Playing,
    /// After a fall: the world holds still while the screen fades out and in;
    /// `step` counts from 0 to [`RESPAWN_STEPS`].
    Respawning {
        /// Steps since the fall.
        step: u32,
    },
    /// The exit was reached; nothing moves any more.
    Complete,
}

/// One attempt at one level.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelRun {
    /// Where the run is.
    pub phase: Phase,
    /// Fixed steps since the start, respawns included, up to the exit.
    pub steps: u64,
    /// Falls out of the level.
    pub falls: u32,
    /// The last checkpoint reached (an index into [`Level::checkpoints`]);
    /// `None` while it is the spawn.
    pub checkpoint: Option<usize>,
}

impl Default for LevelRun {
    fn default() -> Self {
        Self::new()
    }
}

impl LevelRun {
    /// A run at its start: playing, at the spawn, no time, no falls.
    pub fn new() -> Self {
        Self {
            phase: Phase::Playing,
            steps: 0,
            falls: 0,
            checkpoint: None,
        }
    }

    /// Game time so far, seconds.
    pub fn time_s(&self) -> f32 {
        self.steps as f32 * DT
    }

    /// Whether the simulation is stepped by [`LevelRun::step`] now (false
    /// during a respawn's fade and after the exit).
    pub fn is_playing(&self) -> bool {
        self.phase == Phase::Playing
    }

    /// How dark the screen is, 0 (clear) to 1 (black): the respawn fade.
    pub fn fade(&self) -> f32 {
        match self.phase {
            Phase::Respawning { step } if step < FADE_OUT_STEPS => {
                step as f32 / FADE_OUT_STEPS as f32
            }
            Phase::Respawning { step } => {
                1.0 - (step - FADE_OUT_STEPS) as f32 / FADE_IN_STEPS as f32
            }
            _ => 0.0,
        }
    }

    /// Where the player comes back after a fall on `level`: the last
    /// checkpoint reached, or the spawn (also when a reloaded level has
    /// lost that checkpoint).
    pub fn respawn_point(&self, level: &Level) -> Vec2 {
        self.checkpoint
            .and_then(|i| level.checkpoints.get(i))
            .map_or(level.spawn, |c| c.pos)
    }

    /// One fixed step of the run: steps `sim` with `input` while playing
    /// (see the module's documentation) and pushes what happened onto
    /// `events`.
    pub fn step(&mut self, sim: &mut Sim, input: &Input, events: &mut Vec<FlowEvent>) {
        match self.phase {
            Phase::Complete => {}
            Phase::Respawning { step } => {
                self.steps += 1;
                let step = step + 1;
                if step == FADE_OUT_STEPS {
                    let at = self.respawn_point(&sim.level);
                    sim.respawn_player(at);
                    events.push(FlowEvent::Respawned { at });
                }
                self.phase = if step >= RESPAWN_STEPS {
                    Phase::Playing
                } else {
                    Phase::Respawning { step }
                };
            }
            Phase::Playing => {
                let before = sim.player_state();
                sim.step(input);
                self.steps += 1;
                let after = sim.player_state();
                if lost_in_step(&before, &after, &sim.level) {
                    sim.set_player(before);
                    self.falls += 1;
                    self.phase = Phase::Respawning { step: 0 };
                    events.push(FlowEvent::Fell { at: before.pos });
                    return;
                }
                if let Some(i) = checkpoint_at(&after, &sim.level)
                    && self.checkpoint != Some(i)
                {
                    self.checkpoint = Some(i);
                    events.push(FlowEvent::CheckpointReached {
                        index: i,
                        name: sim.level.checkpoints[i].name.clone(),
                    });
                }
                if at_exit(&after, &sim.level) {
                    self.phase = Phase::Complete;
                    events.push(FlowEvent::LevelComplete {
                        time_s: self.time_s(),
                        falls: self.falls,
                    });
                }
            }
        }
    }
}

/// Whether the player was lost out of the level in the step from `before`
/// to `after`: the controller moved them to the spawn, farther than any
/// step moves ([`TELEPORT_DISTANCE`]).
pub fn lost_in_step(before: &Player, after: &Player, level: &Level) -> bool {
    after.pos == level.spawn && before.pos.distance(after.pos) > TELEPORT_DISTANCE
}

/// The checkpoint `p` stands at, if any (the first in map order when two
/// are in reach).
pub fn checkpoint_at(p: &Player, level: &Level) -> Option<usize> {
    if p.state != Locomotion::Ground {
        return None;
    }
    level.checkpoints.iter().position(|c| {
        (p.pos.x - c.pos.x).abs() <= CHECKPOINT_REACH_X
            && (p.pos.y - c.pos.y).abs() <= CHECKPOINT_REACH_Y
    })
}

/// Whether `p` stands at the level's exit: on the ground within
/// [`EXIT_RADIUS`], the autopilot's rule.
pub fn at_exit(p: &Player, level: &Level) -> bool {
    p.state == Locomotion::Ground && p.pos.distance(level.exit) <= EXIT_RADIUS
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::character::Character;
    use crate::sim::world::{Checkpoint, GroundSegment};

    /// Ground from x = 0 to 6, a pit from 6 to 8, ground from 8 to 14;
    /// spawn at 1, a checkpoint at 4, the exit at 13.
    fn pit_level() -> Level {
        let mut level = Level::from_profile(
            "pit",
            vec![
                GroundSegment::ground(0.0, 6.0, 0.0, 0.0),
                GroundSegment::ground(8.0, 14.0, 0.0, 0.0),
            ],
            Vec::new(),
            Vec2::new(1.0, 0.0),
            Vec2::new(13.0, 0.0),
            -3.0,
        );
        level.checkpoints.push(Checkpoint {
            pos: Vec2::new(4.0, 0.0),
            name: "before the pit".into(),
        });
        level
    }

    fn sim(level: Level) -> Sim {
        Sim::new(level, Arc::new(Character::knight().unwrap()))
    }

    fn walk(dir: f32) -> Input {
        Input {
            move_x: dir,
            ..Input::default()
        }
    }

    /// Steps until `until` says so (at most `max` steps); returns the
    /// events of every step.
    fn play(
        run: &mut LevelRun,
        sim: &mut Sim,
        input: Input,
        max: u32,
        mut until: impl FnMut(&LevelRun, &[FlowEvent]) -> bool,
    ) -> Vec<FlowEvent> {
        let mut all = Vec::new();
        for _ in 0..max {
            let mut events = Vec::new();
            run.step(sim, &input, &mut events);
            all.extend(events);
            if until(run, &all) {
                return all;
            }
        }
        panic!("not done after {max} steps: {run:?} {all:?}");
    }

    #[test]
    fn a_fall_into_the_pit_fades_and_respawns_at_the_last_checkpoint() {
        let mut sim = sim(pit_level());
        let mut run = LevelRun::new();
        // Walk right: past the checkpoint, then into the pit.
        let events = play(&mut run, &mut sim, walk(1.0), 64 * 10, |r, _| {
            !r.is_playing()
        });
        assert_eq!(
            events[0],
            FlowEvent::CheckpointReached {
                index: 0,
                name: "before the pit".into()
            }
        );
        let FlowEvent::Fell { at } = events[1] else {
            panic!("{events:?}")
        };
        assert!(
            at.x > 6.0 && at.x < 8.5 && at.y < 0.0,
            "fell in the pit: {at}"
        );
        assert_eq!(run.falls, 1);
        // The fade holds the player where they fell; the world stands still.
        let held = sim.player_state().pos;
        assert_eq!(held, at);
        let steps_at_fall = sim.steps;
        let mut fades = Vec::new();
        let events = play(&mut run, &mut sim, walk(1.0), RESPAWN_STEPS, |r, _| {
            fades.push(r.fade());
            r.is_playing()
        });
        assert_eq!(sim.steps, steps_at_fall, "no simulation step in the fade");
        assert_eq!(
            events,
            [FlowEvent::Respawned {
                at: Vec2::new(4.0, 0.0)
            }]
        );
        let peak = fades.iter().cloned().fold(0.0, f32::max);
        assert_eq!(peak, 1.0, "fully dark half way: {fades:?}");
        assert_eq!(*fades.last().unwrap(), 0.0);
        assert_eq!(sim.player_state().pos, Vec2::new(4.0, 0.0));
        assert_eq!(run.steps, steps_at_fall + u64::from(RESPAWN_STEPS));
    }

    #[test]
    fn without_a_checkpoint_the_spawn_is_where_a_fall_ends() {
        let mut level = pit_level();
        level.checkpoints.clear();
        let mut sim = sim(level);
        let mut run = LevelRun::new();
        play(&mut run, &mut sim, walk(1.0), 64 * 10, |r, _| {
            r.is_playing() && r.falls == 1
        });
        assert_eq!(sim.player_state().pos, Vec2::new(1.0, 0.0));
    }

    #[test]
    fn reaching_the_exit_completes_the_run_and_stops_the_clock() {
        // No pit: ground all the way from the spawn to the exit.
        let level = Level::from_profile(
            "flat",
            vec![GroundSegment::ground(0.0, 8.0, 0.0, 0.0)],
            Vec::new(),
            Vec2::new(1.0, 0.0),
            Vec2::new(5.0, 0.0),
            -3.0,
        );
        let mut sim = sim(level);
        let mut run = LevelRun::new();
        let events = play(&mut run, &mut sim, walk(1.0), 64 * 10, |r, _| {
            r.phase == Phase::Complete
        });
        let [FlowEvent::LevelComplete { time_s, falls }] = events[..] else {
            panic!("{events:?}")
        };
        assert_eq!(falls, 0);
        assert_eq!(time_s, run.steps as f32 * DT);
        // Walking 3.5 m at walking speed takes seconds, not a frame.
        assert!(run.steps > 64, "{}", run.steps);
        let (steps, sim_steps) = (run.steps, sim.steps);
        let mut events = Vec::new();
        run.step(&mut sim, &walk(1.0), &mut events);
        assert!(events.is_empty());
        assert_eq!((run.steps, sim.steps), (steps, sim_steps));
    }

    #[test]
    fn the_fade_rises_then_falls() {
        let mut run = LevelRun::new();
        assert_eq!(run.fade(), 0.0);
        run.phase = Phase::Respawning { step: 0 };
        assert_eq!(run.fade(), 0.0);
        run.phase = Phase::Respawning {
            step: FADE_OUT_STEPS / 2,
        };
        assert!((run.fade() - 0.5).abs() < 1e-6);
        run.phase = Phase::Respawning {
            step: FADE_OUT_STEPS,
        };
        assert_eq!(run.fade(), 1.0);
        run.phase = Phase::Respawning {
            step: RESPAWN_STEPS - 1,
        };
        assert!(run.fade() > 0.0 && run.fade() < 0.1);
    }

    #[test]
    fn a_respawn_point_lost_by_a_reload_falls_back_to_the_spawn() {
        let level = pit_level();
        let run = LevelRun {
            checkpoint: Some(3),
            ..LevelRun::new()
        };
        assert_eq!(run.respawn_point(&level), level.spawn);
    }
}
