//! The simulation: a hecs world of characters and the systems that advance
//! it, in a fixed, documented order.
//!
//! Per fixed step ([`crate::sim::player::DT`], 64 Hz):
//!
//! 1. [`control`]: input → each player-controlled character's controller
//!    (walk, run, jump, ladders, slopes).
//! 2. [`animate`]: each character's animation state machine chooses the clips
//!    and their phases from what the controller did (distance-driven gait).
//!
//! Per rendered frame (or per step when headless):
//!
//! 3. [`pose`]: the pose pipeline ([`crate::character::pose_pipeline`]) turns the chosen
//!    clips into model matrices and a skinning palette, with foot and ladder IK.
//!
//! The level is not in the world: it is one immutable resource the systems
//! read.
//!
//! Beside the systems: [`world`] (the level model), [`ledge`] (which
//! corners a hanging body can hold), [`player`] (the controller), [`clock`]
//! (fixed step and frame pacing), [`script`] (timed presses for headless
//! runs) and [`record`] (what was pressed, written as a script that replays
//! the run exactly).

pub mod clock;
pub mod ledge;
pub mod player;
pub mod record;
pub mod script;
pub mod world;

use std::sync::Arc;

use glam::Vec2;
use hecs::{Entity, World};

use crate::character::Character;
use crate::character::anim_state::{AnimState, Layer, MAX_LAYERS};
use crate::character::pose_pipeline::{FrameInput, PosePipeline, StageObserver};
use crate::sim::player::{DT, Input, MoveParams, Player};
use crate::sim::world::Level;

/// Marks the entity the keyboard, gamepad or script drives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayerControlled;

/// A character's model and its pose pipeline.
pub struct Body {
    /// The model, rig and derived contact data (shared between instances).
    pub character: Arc<Character>,
    /// Scratch buffers, smoothing state and the latest pose and palette.
    pub pipeline: PosePipeline,
}

/// The clips the state machine chose in the last step.
#[derive(Clone, Copy, Debug)]
pub struct Layers {
    /// Layer slots; the first `count` are in use.
    pub layers: [Layer; MAX_LAYERS],
    /// How many are in use.
    pub count: usize,
}

/// The feet position before the last step (for distance-driven phases).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrevPos(pub Vec2);

/// The game state: the world of entities and the level they move in.
pub struct Sim {
    /// Every entity: the player (and, later, other characters).
    pub world: World,
    /// The level (immutable while it is played).
    pub level: Level,
    /// Movement tunables.
    pub params: MoveParams,
    /// The player's entity.
    pub player: Entity,
    /// Whether the pose pipeline runs IK.
    pub ik_enabled: bool,
    /// Fixed steps taken.
    pub steps: u64,
}

impl Sim {
    /// A world with the player at the level's spawn point.
    pub fn new(level: Level, character: Arc<Character>) -> Self {
        let mut world = World::new();
        let pipeline = PosePipeline::new(&character);
        let idle = character.clip_set.idle;
        let idle_hold = character.clip_set.idle_hold.unwrap_or(0.0);
        let player = world.spawn((
            PlayerControlled,
            Player::new(level.spawn),
            PrevPos(level.spawn),
            AnimState::default(),
            Layers {
                layers: [Layer {
                    clip: idle,
                    time: idle_hold,
                    weight: 1.0,
                    looping: true,
                    still: true,
                    rate: 1.0,
                    stride: 1.0,
                    duty: 0.0,
                    held: None,
                }; MAX_LAYERS],
                count: 1,
            },
            Body {
                character,
                pipeline,
            },
        ));
        Self {
            world,
            level,
            params: MoveParams::default(),
            player,
            ik_enabled: true,
            steps: 0,
        }
    }

    /// Starts the player's walk and run cycle at `phase` (wrapped into
    /// [0, 1)) instead of 0: every step then falls that share of a stride
    /// further on along the level. For a run that tries foot placement
    /// against steps landing elsewhere (`ironstep run --gait-phase`); a
    /// respawn starts from 0 again.
    pub fn start_gait_at(&mut self, phase: f32) {
        if let Ok(state) = self.world.query_one_mut::<&mut AnimState>(self.player) {
            *state = AnimState::starting_at(phase);
        }
    }

    /// Advances the simulation one fixed step (systems 1 and 2).
    pub fn step(&mut self, input: &Input) {
        // Platforms move first; the controller then carries their riders.
        self.level.advance_platforms((self.steps + 1) as f32 * DT);
        control(&mut self.world, &self.level, &self.params, input);
        animate(&mut self.world, &self.params, DT);
        self.steps += 1;
    }

    /// Runs the pose pipeline for every character (system 3).
    pub fn pose(&mut self, dt: f32) {
        pose(&mut self.world, &self.level, self.ik_enabled, dt);
    }

    /// Runs the pose pipeline for every character, telling `observer` when
    /// each pipeline stage starts and ends (the profiler's hook).
    pub fn pose_observed(&mut self, dt: f32, observer: &mut impl StageObserver) {
        pose_observed(&mut self.world, &self.level, self.ik_enabled, dt, observer);
    }

    /// Puts the player back at `at` (feet, metres) as if just spawned
    /// there: a fresh controller, standing animation, and a pose pipeline
    /// that forgets its smoothing (a respawn or a restart).
    pub fn respawn_player(&mut self, at: Vec2) {
        let (player, prev, state, body) = self
            .world
            .query_one_mut::<(&mut Player, &mut PrevPos, &mut AnimState, &mut Body)>(self.player)
            .expect("the player entity lives as long as the sim");
        *player = Player::new(at);
        prev.0 = at;
        *state = AnimState::default();
        body.pipeline.reset();
    }

    /// Replaces the player's controller state (the flow puts a player lost
    /// out of the level back where they fell from, for the fade).
    pub fn set_player(&mut self, p: Player) {
        *self
            .world
            .get::<&mut Player>(self.player)
            .expect("the player entity lives as long as the sim") = p;
    }

    /// A copy of the player's controller state.
    pub fn player_state(&self) -> Player {
        *self
            .world
            .get::<&Player>(self.player)
            .expect("the player entity lives as long as the sim")
    }
}

/// System 1: the controller of every player-controlled character.
pub fn control(world: &mut World, level: &Level, params: &MoveParams, input: &Input) {
    for (player, prev, _) in world.query_mut::<(&mut Player, &mut PrevPos, &PlayerControlled)>() {
        prev.0 = player.pos;
        player.step(level, params, input);
    }
}

/// System 2: the animation state machine of every character. Gait phase is
/// driven by horizontal distance on the ground (so a planted foot stays put on
/// any slope) and by height on a ladder: the body's own, not what a moving
/// platform carried it (walking on the tutorial's lift, CesiumMan's gait
/// played 1.87 times over).
pub fn animate(world: &mut World, params: &MoveParams, dt: f32) {
    for (player, prev, state, layers, body) in
        world.query_mut::<(&Player, &PrevPos, &mut AnimState, &mut Layers, &Body)>()
    {
        let d = player.pos - prev.0 - player.carried;
        layers.count = state.update(
            &body.character.clip_set,
            player,
            params,
            d,
            dt,
            &mut layers.layers,
        );
    }
}

/// System 3: the pose pipeline of every character.
pub fn pose(world: &mut World, level: &Level, ik_enabled: bool, dt: f32) {
    pose_observed(world, level, ik_enabled, dt, &mut ());
}

/// System 3 with a stage observer (see [`StageObserver`]).
pub fn pose_observed(
    world: &mut World,
    level: &Level,
    ik_enabled: bool,
    dt: f32,
    observer: &mut impl StageObserver,
) {
    for (player, state, layers, body) in
        world.query_mut::<(&Player, &AnimState, &Layers, &mut Body)>()
    {
        let input = FrameInput {
            level,
            player,
            layers: &layers.layers[..layers.count],
            climb_phase: state.climb_phase(),
            ik_enabled,
            dt,
        };
        let Body {
            character,
            pipeline,
        } = body;
        pipeline.run_observed(character.as_ref(), &input, observer);
    }
}
