//! A deterministic scripted crowd of knights for `ironstep bench`: each
//! knight walks (or runs) the level's slopes and stairs, jumps gaps, and
//! climbs every ladder it meets, with full foot and ladder IK, from its own
//! seeded start place, direction, gait and timing.
//!
//! Work is split into groups of [`GROUP`] knights. Each group runs, per
//! frame, its input (the scripted "brains"), one simulation step, and then
//! the pose pipeline stage by stage for the whole group
//! ([`PosePipeline::run_stage_each`], same result per knight as
//! [`PosePipeline::run`]), except sampling and blending, done knight by
//! knight in one pass with one set of layer poses per group
//! ([`PosePipeline::sample_with`], so a knight keeps none of its own), and
//! foot IK, whose leg solves go through the
//! batched two-bone solver a group's legs at a time
//! ([`PosePipeline::foot_ik_group`], equal to the per-knight stage within
//! 1e-5); groups run in parallel on a rayon pool. Every knight's result
//! depends only on its own state, so the crowd's poses are the same for any
//! thread count.

use std::sync::Arc;
use std::time::Instant;

use glam::Vec2;
use rayon::prelude::*;

use crate::character::Character;
use crate::character::anim_state::{AnimState, Layer, MAX_LAYERS};
use crate::character::pose_pipeline::{FrameInput, LayerScratch, PosePipeline, PoseStage};
use crate::profile::{STAGE_COUNT, Scope, Stage};
use crate::sim::player::{DT, Input, Locomotion, MoveParams, Player};
use crate::sim::world::Level;

/// Knights per group: the unit of parallel work and of stage-major
/// processing. Thirty-two: each stage's code then runs for 32 knights
/// before the next stage's, so the larger stages (foot IK's targets, the
/// batched leg solver) stay in the instruction cache from one knight to
/// the next (with eight, Callgrind's simulated first-level instruction
/// cache missed 165 times per knight-frame, with 32 50 times), and the
/// profiler's stage clocks are read a quarter as often. About 70 µs of
/// pose work, large enough that rayon's per-task cost (about a
/// microsecond) stays small, small enough that a crowd of a thousand
/// makes 32 tasks to spread over the threads. See BENCHMARKS.md, "Crowd
/// wall clock (issue 33, thirteenth session)".
pub const GROUP: usize = 32;

/// One knight's script: a small deterministic controller.
#[derive(Clone, Copy, Debug)]
struct Brain {
    dir: f32,
    run: bool,
    /// +1 climbing up, −1 down.
    climb_dir: f32,
    /// Steps until a ladder may be climbed again (after leaving one).
    ladder_cooldown: u32,
    /// Steps jump stays held.
    jump_hold: u32,
    /// Steps stuck against a wall.
    stuck: u32,
    /// Steps until the gait toggles between walk and run.
    gait_timer: u32,
    gait_period: u32,
}

impl Brain {
    fn input(&mut self, p: &Player, level: &Level) -> Input {
        let (x0, x1) = level.extent();
        let mut input = Input::default();
        match p.state {
            // On a ledge: climb over it, or let go if that cannot be.
            Locomotion::Ledge => {
                let climbing = p.ledge.is_some_and(|h| h.climbing());
                input.move_y = if climbing || p.state_time < 1.0 {
                    1.0
                } else {
                    -1.0
                };
                return input;
            }
            Locomotion::Ladder(_) => {
                // Keep climbing the way the climb started, to the end.
                input.move_y = self.climb_dir;
                self.ladder_cooldown = 3 * 64;
                return input;
            }
            Locomotion::Ground => {
                if p.pos.x < x0 + 1.0 {
                    self.dir = 1.0;
                } else if p.pos.x > x1 - 1.0 {
                    self.dir = -1.0;
                }
                if p.vel.x.abs() < 0.05 && self.jump_hold == 0 {
                    self.stuck += 1;
                } else {
                    self.stuck = 0;
                }
                if self.ladder_cooldown == 0
                    && let Some((_, l)) = level.ladder_at(p.pos, 0.3)
                {
                    self.climb_dir = if p.pos.y < l.top - 0.5 { 1.0 } else { -1.0 };
                    input.move_y = self.climb_dir;
                }
                if self.stuck > 32 {
                    self.dir = -self.dir;
                    self.stuck = 0;
                }
                // A gap ahead (a column with no floor at all): jump it.
                if level.top_floor(p.pos.x + self.dir * 0.7).is_none() && self.jump_hold == 0 {
                    self.jump_hold = 20;
                    input.jump_pressed = true;
                }
            }
            Locomotion::Air => {}
        }
        self.ladder_cooldown = self.ladder_cooldown.saturating_sub(1);
        self.gait_timer = self.gait_timer.saturating_sub(1);
        if self.gait_timer == 0 {
            self.run = !self.run;
            self.gait_timer = self.gait_period;
        }
        input.move_x = self.dir;
        input.run = self.run;
        input.jump_held = self.jump_hold > 0;
        self.jump_hold = self.jump_hold.saturating_sub(1);
        input
    }
}

/// One knight's simulation state.
#[derive(Clone, Debug)]
struct Agent {
    brain: Brain,
    player: Player,
    prev: Vec2,
    anim: AnimState,
    layers: [Layer; MAX_LAYERS],
    count: usize,
}

/// CPU time of one group's stages in the latest frame, for the profiler
/// and the trace.
#[derive(Clone, Copy, Debug)]
pub struct GroupTiming {
    /// Rayon worker that ran the group (0 when not in a pool).
    pub worker: usize,
    /// Start of each [`Stage`] (only input, sim and the pose stages are set).
    pub start: [Option<Instant>; STAGE_COUNT],
    /// Nanoseconds of each stage. A group samples and blends each knight in
    /// one pass (see [`PosePipeline::sample_with`]): its sample time
    /// includes blending, and its blend time is only the clock's own.
    pub ns: [u64; STAGE_COUNT],
}

impl Default for GroupTiming {
    fn default() -> Self {
        Self {
            worker: 0,
            start: [None; STAGE_COUNT],
            ns: [0; STAGE_COUNT],
        }
    }
}

/// The crowd: agents, their pose pipelines, per-group timings.
pub struct Crowd {
    level: Level,
    params: MoveParams,
    character: Arc<Character>,
    agents: Vec<Agent>,
    pipelines: Vec<PosePipeline>,
    /// Each group's layer poses, shared by its knights' sample and blend.
    scratch: Vec<LayerScratch>,
    /// Timing of each group in the latest frame.
    pub timings: Vec<GroupTiming>,
    /// Simulation steps run (the moving platforms' clock).
    steps: u64,
}

/// A 64-bit LCG step (Knuth's MMIX constants), for seeded starts.
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *state >> 11
}

fn unit(state: &mut u64) -> f32 {
    (lcg(state) as f64 / (1u64 << 53) as f64) as f32
}

impl Crowd {
    /// `n` knights spread over `level` from `seed`.
    pub fn new(level: Level, character: Arc<Character>, n: usize, seed: u64) -> Self {
        let (x0, x1) = level.extent();
        let idle = character.clip_set.idle;
        let idle_hold = character.clip_set.idle_hold.unwrap_or(0.0);
        let mut agents = Vec::with_capacity(n);
        for i in 0..n {
            let mut s = seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            lcg(&mut s);
            // A start over ground (not over a gap), clear of the ends.
            let mut x = level.spawn.x;
            for _ in 0..16 {
                let c = x0 + 1.5 + unit(&mut s) * (x1 - x0 - 3.0);
                if level.ground_height(c).is_some() {
                    x = c;
                    break;
                }
            }
            let y = level.ground_height(x).unwrap_or(level.spawn.y);
            let gait_period = 64 * 3 + (lcg(&mut s) % (64 * 6)) as u32;
            let brain = Brain {
                dir: if lcg(&mut s) & 1 == 0 { 1.0 } else { -1.0 },
                run: lcg(&mut s).is_multiple_of(3),
                climb_dir: 1.0,
                ladder_cooldown: 0,
                jump_hold: 0,
                stuck: 0,
                gait_timer: (lcg(&mut s) % u64::from(gait_period)) as u32 + 1,
                gait_period,
            };
            let pos = Vec2::new(x, y + 0.02);
            agents.push(Agent {
                brain,
                player: Player::new(pos),
                prev: pos,
                anim: AnimState::default(),
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
            });
        }
        let pipelines = (0..n).map(|_| PosePipeline::lean(&character)).collect();
        let scratch = (0..n.div_ceil(GROUP))
            .map(|_| LayerScratch::new(&character))
            .collect();
        Self {
            level,
            params: MoveParams::default(),
            character,
            agents,
            pipelines,
            scratch,
            timings: vec![GroupTiming::default(); n.div_ceil(GROUP)],
            steps: 0,
        }
    }

    /// Knights in the crowd.
    pub fn len(&self) -> usize {
        self.agents.len()
    }

    /// Whether the crowd is empty.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// The level.
    pub fn level(&self) -> &Level {
        &self.level
    }

    /// The knights' model.
    pub fn character(&self) -> &Arc<Character> {
        &self.character
    }

    /// Each knight's pose pipeline (palette, world transform).
    pub fn pipelines(&self) -> &[PosePipeline] {
        &self.pipelines
    }

    /// Each knight's controller state.
    pub fn players(&self) -> impl Iterator<Item = &Player> {
        self.agents.iter().map(|a| &a.player)
    }

    /// One frame: every group's input, simulation step and pose, groups in
    /// parallel on the current rayon pool (call inside `pool.install`).
    pub fn frame(&mut self) {
        // Moving platforms first (the same clock as `Sim::step`), then
        // every knight; riders are carried by their controllers.
        self.steps += 1;
        if !self.level.platforms.is_empty() {
            self.level.advance_platforms(self.steps as f32 * DT);
        }
        let level = &self.level;
        let params = &self.params;
        let character = self.character.as_ref();
        self.agents
            .par_chunks_mut(GROUP)
            .zip(self.pipelines.par_chunks_mut(GROUP))
            .zip(self.scratch.par_iter_mut())
            .zip(self.timings.par_iter_mut())
            .for_each(|(((agents, pipelines), scratch), timing)| {
                group_frame(level, params, character, agents, pipelines, scratch, timing);
            });
    }

    /// FNV-1a over every knight's palette and world transform, in knight
    /// order: equal checksums mean bit-identical poses.
    pub fn checksum(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |v: f32| {
            for b in v.to_bits().to_le_bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        for p in &self.pipelines {
            for m in p.palette().iter().chain(std::iter::once(&p.world)) {
                m.to_cols_array().into_iter().for_each(&mut eat);
            }
        }
        h
    }

    /// How many knights are on a ladder and on the ground.
    pub fn census(&self) -> (usize, usize) {
        let ladder = self
            .agents
            .iter()
            .filter(|a| matches!(a.player.state, Locomotion::Ladder(_)))
            .count();
        let ground = self
            .agents
            .iter()
            .filter(|a| a.player.state == Locomotion::Ground)
            .count();
        (ladder, ground)
    }
}

fn group_frame(
    level: &Level,
    params: &MoveParams,
    character: &Character,
    agents: &mut [Agent],
    pipelines: &mut [PosePipeline],
    scratch: &mut LayerScratch,
    timing: &mut GroupTiming,
) {
    timing.worker = rayon::current_thread_index().unwrap_or(0);
    if agents.is_empty() {
        return;
    }
    let mut inputs = [Input::default(); GROUP];
    let mut t = Instant::now();
    let lap = |stage: Stage, t: &mut Instant, timing: &mut GroupTiming| {
        let now = Instant::now();
        timing.start[stage.index()] = Some(*t);
        timing.ns[stage.index()] = (now - *t).as_nanos() as u64;
        *t = now;
    };
    {
        let _s = Scope::new(Stage::Input);
        stage_input(level, agents, &mut inputs);
    }
    lap(Stage::Input, &mut t, timing);
    {
        let _s = Scope::new(Stage::Sim);
        stage_sim(level, params, character, agents, &inputs);
    }
    lap(Stage::Sim, &mut t, timing);
    let frame_inputs: [FrameInput; GROUP] = std::array::from_fn(|k| {
        // A short last group repeats its first knight's input in the unused
        // slots, which are never read.
        agent_input(level, agents.get(k).unwrap_or(&agents[0]))
    });
    let frame_inputs = &frame_inputs[..agents.len()];
    for stage in PoseStage::ALL {
        let _s = Scope::new(Stage::of_pose(stage));
        let (p, c, inputs) = (&mut *pipelines, character, frame_inputs);
        match stage {
            PoseStage::Sample => stage_sample_blend(p, c, inputs, scratch),
            // Done knight by knight with sampling, just above.
            PoseStage::Blend => {}
            PoseStage::LocalToModel => stage_local_to_model(p, c, inputs),
            PoseStage::FootIk => stage_foot_ik(p, c, inputs),
            PoseStage::LadderIk => stage_ladder_ik(p, c, inputs),
            PoseStage::Limit => stage_limit(p, c, inputs),
            PoseStage::Palette => stage_palette(p, c, inputs),
        }
        lap(Stage::of_pose(stage), &mut t, timing);
    }
}

// One function per stage of a group's frame, never inlined: `tests/cost`
// reads each stage's instruction count as the inclusive cost of its
// function in Callgrind's profile (one call per group and stage, a few
// instructions each; sampling and blending one call per knight). Their
// names are listed in `tests/cost`.

/// A knight's pose pipeline input for this frame: its player and layers
/// on `level`, IK on, one fixed step.
fn agent_input<'a>(level: &'a Level, a: &'a Agent) -> FrameInput<'a> {
    FrameInput {
        level,
        player: &a.player,
        layers: &a.layers[..a.count],
        climb_phase: a.anim.climb_phase(),
        ik_enabled: true,
        dt: DT,
    }
}

/// The scripted input of every knight of a group.
#[inline(never)]
fn stage_input(level: &Level, agents: &mut [Agent], inputs: &mut [Input; GROUP]) {
    for (a, input) in agents.iter_mut().zip(inputs) {
        *input = a.brain.input(&a.player, level);
    }
}

/// One simulation step (controller and animation state) of every knight of
/// a group.
#[inline(never)]
fn stage_sim(
    level: &Level,
    params: &MoveParams,
    character: &Character,
    agents: &mut [Agent],
    inputs: &[Input; GROUP],
) {
    for (a, input) in agents.iter_mut().zip(inputs) {
        a.prev = a.player.pos;
        a.player.step(level, params, input);
        // As `sim::animate`: distance-driven gait and climb phases.
        let d = a.player.pos - a.prev - a.player.carried;
        a.count = a
            .anim
            .update(&character.clip_set, &a.player, params, d, DT, &mut a.layers);
    }
}

/// Runs one pose stage for every knight of a group, one knight after another.
#[inline(always)]
fn each(stage: PoseStage, pipelines: &mut [PosePipeline], c: &Character, inputs: &[FrameInput]) {
    PosePipeline::run_stage_each(pipelines, stage, c, inputs);
}

/// Clip sampling and blending for every knight of a group, one knight after
/// another, all through the group's layer poses.
#[inline(never)]
fn stage_sample_blend(
    pipelines: &mut [PosePipeline],
    c: &Character,
    inputs: &[FrameInput],
    scratch: &mut LayerScratch,
) {
    for (p, input) in pipelines.iter_mut().zip(inputs) {
        knight_sample(p, c, input, scratch);
        knight_blend(p, c, input, scratch);
    }
}

/// Clip sampling of one knight into the group's layer poses.
#[inline(never)]
fn knight_sample(p: &mut PosePipeline, c: &Character, input: &FrameInput, s: &mut LayerScratch) {
    p.sample_with(c, input, s);
}

/// Blending of the layers [`knight_sample`] just sampled.
#[inline(never)]
fn knight_blend(p: &mut PosePipeline, c: &Character, input: &FrameInput, s: &LayerScratch) {
    p.blend_with(c, input, s);
}

/// `local_to_model` and placement for every knight of a group.
#[inline(never)]
fn stage_local_to_model(pipelines: &mut [PosePipeline], c: &Character, inputs: &[FrameInput]) {
    PosePipeline::local_to_model_each(pipelines, c, inputs);
}

/// Foot IK: the group's legs go through the batched two-bone solver.
#[inline(never)]
fn stage_foot_ik(pipelines: &mut [PosePipeline], c: &Character, inputs: &[FrameInput]) {
    PosePipeline::foot_ik_group(pipelines, c, inputs);
}

/// Ladder IK for every knight of a group.
#[inline(never)]
fn stage_ladder_ik(pipelines: &mut [PosePipeline], c: &Character, inputs: &[FrameInput]) {
    each(PoseStage::LadderIk, pipelines, c, inputs);
}

/// The joint speed limit for every knight of a group.
#[inline(never)]
fn stage_limit(pipelines: &mut [PosePipeline], c: &Character, inputs: &[FrameInput]) {
    each(PoseStage::Limit, pipelines, c, inputs);
}

/// Skinning palettes for every knight of a group.
#[inline(never)]
fn stage_palette(pipelines: &mut [PosePipeline], c: &Character, inputs: &[FrameInput]) {
    each(PoseStage::Palette, pipelines, c, inputs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::world::{FloorKind, GroundSegment, MovingPlatform};

    #[test]
    fn the_crowd_rides_moving_platforms() {
        // Two ferries low over flat ground: knights walking into them step
        // up onto them (0.25 m) and are carried; every knight on one stands
        // exactly on its top, in every frame, for any thread count.
        let mut level = Level::from_profile(
            "ferries",
            vec![GroundSegment::ground(-20.0, 20.0, 0.0, 0.0)],
            vec![],
            Vec2::ZERO,
            Vec2::new(15.0, 0.0),
            -10.0,
        );
        for y in [-12.0f32, 4.0] {
            level.platforms.push(MovingPlatform::new(
                vec![Vec2::new(y, 0.25), Vec2::new(y + 6.0, 0.25)],
                1.5,
                0.25,
                0.8,
                1.0,
            ));
        }
        let character = Arc::new(Character::knight().unwrap());
        let mut sums = Vec::new();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut crowd = Crowd::new(level.clone(), character.clone(), 24, 5);
            let mut riding = 0;
            pool.install(|| {
                for _ in 0..64 * 12 {
                    crowd.frame();
                    for a in &crowd.agents {
                        if a.player.state == Locomotion::Ground
                            && let FloorKind::Platform(k) = a.player.floor
                        {
                            riding += 1;
                            let top = crowd.level.platforms[k as usize].pos.y;
                            assert!((a.player.pos.y - top).abs() < 1e-4, "sank into a ferry");
                        }
                    }
                }
            });
            assert!(
                riding > 64 * 4,
                "knights rode the ferries ({riding} knight-frames)"
            );
            sums.push(crowd.checksum());
        }
        assert_eq!(sums[0], sums[1]);
    }

    #[test]
    fn staged_groups_equal_the_plain_pipeline_and_threads_agree() {
        let character = Arc::new(Character::knight().unwrap());
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut crowd = Crowd::new(Level::builtin(), character.clone(), 11, 7);
            pool.install(|| {
                for _ in 0..40 {
                    crowd.frame();
                }
            });
            crowd
        };
        let one = run(1);
        let two = run(2);
        assert_eq!(one.checksum(), two.checksum());
        // The same knight through `PosePipeline::run` gives the same palette.
        let a = &one.agents[3];
        let mut p = one.pipelines[3].clone();
        let input = agent_input(&one.level, a);
        let mut q = p.clone();
        p.run(&character, &input);
        for stage in PoseStage::ALL {
            q.run_stage(stage, &character, &input);
        }
        assert_eq!(p.palette(), q.palette());
    }

    /// The pipeline's stages built for AVX2 (`run_stage` on a processor
    /// that has it, and `run_stage_each` over a group) pose every knight as
    /// their baseline build does, bit for bit: palettes and placements over
    /// walking, climbing and blending frames of the builtin level.
    #[test]
    fn every_build_of_the_stages_poses_the_same_bits() {
        let character = Arc::new(Character::knight().unwrap());
        let mut crowd = Crowd::new(Level::builtin(), character.clone(), GROUP, 5);
        let bits = |p: &PosePipeline| {
            p.palette()
                .iter()
                .chain(std::iter::once(&p.world))
                .flat_map(|m| m.to_cols_array().map(f32::to_bits))
                .collect::<Vec<u32>>()
        };
        for frame in 0..240 {
            crowd.frame();
            if frame % 4 != 0 {
                continue;
            }
            // The group's stages run together (`run_stage_each`, the
            // crowd's path, its build chosen once, and local-to-model four
            // knights at a time) too.
            let inputs: Vec<FrameInput> = crowd
                .agents
                .iter()
                .map(|a| agent_input(&crowd.level, a))
                .collect();
            let mut together = crowd.pipelines.clone();
            for stage in PoseStage::ALL {
                if stage == PoseStage::LocalToModel {
                    PosePipeline::local_to_model_each(&mut together, &character, &inputs);
                } else {
                    PosePipeline::run_stage_each(&mut together, stage, &character, &inputs);
                }
            }
            for (k, input) in inputs.iter().enumerate() {
                let mut dispatched = crowd.pipelines[k].clone();
                let mut baseline = dispatched.clone();
                for stage in PoseStage::ALL {
                    dispatched.run_stage(stage, &character, input);
                    baseline.run_stage_kernel(stage, &character, input);
                }
                assert!(
                    bits(&dispatched) == bits(&baseline),
                    "knight {k} posed differently by the two builds in frame {frame}"
                );
                assert!(
                    bits(&together[k]) == bits(&baseline),
                    "knight {k} posed differently by the group's stages in frame {frame}"
                );
            }
        }
    }

    /// A knight's pose does not depend on the other knights of its group:
    /// the layer poses a group's knights share carry nothing from one
    /// knight to the next (nor do the batched leg solves' lanes).
    #[test]
    fn a_knights_pose_does_not_depend_on_the_rest_of_its_group() {
        let character = Arc::new(Character::knight().unwrap());
        let mut alone = Crowd::new(Level::builtin(), character.clone(), 3, 9);
        let mut full = Crowd::new(Level::builtin(), character, GROUP, 9);
        let mut blended = 0;
        for frame in 0..400 {
            alone.frame();
            full.frame();
            for k in 0..alone.len() {
                let (a, b) = (&alone.pipelines[k], &full.pipelines[k]);
                assert!(
                    a.palette() == b.palette() && a.world == b.world,
                    "knight {k} posed differently in frame {frame}"
                );
                blended += usize::from(alone.agents[k].count > 1);
            }
        }
        // Knight-frames that blended layers (through the shared poses).
        assert!(blended > 100, "only {blended} knight-frames blended");
    }

    /// The crowd's batched foot IK poses every knight as the per-knight
    /// stage does, to the batched solver's rounding, on ground, slopes and
    /// ladders alike.
    #[test]
    fn batched_foot_ik_matches_the_per_knight_stage() {
        let character = Character::knight().unwrap();
        let mut crowd = Crowd::new(Level::builtin(), Arc::new(character.clone()), 24, 5);
        let (mut worst, mut legs) = (0.0f32, 0);
        for _ in 0..90 {
            crowd.frame();
            let inputs: Vec<FrameInput> = crowd
                .agents
                .iter()
                .map(|a| agent_input(&crowd.level, a))
                .collect();
            let mut batched = crowd.pipelines.clone();
            let mut single = crowd.pipelines.clone();
            for p in [&mut batched, &mut single] {
                for (q, input) in p.iter_mut().zip(&inputs) {
                    q.run_stage(PoseStage::Sample, &character, input);
                    q.run_stage(PoseStage::Blend, &character, input);
                    q.run_stage(PoseStage::LocalToModel, &character, input);
                }
            }
            PosePipeline::foot_ik_group(&mut batched, &character, &inputs);
            for (q, input) in single.iter_mut().zip(&inputs) {
                q.run_stage(PoseStage::FootIk, &character, input);
            }
            for (b, s) in batched.iter().zip(&single) {
                assert_eq!(b.debug.ik_errors, s.debug.ik_errors);
                assert_eq!(b.debug.ik_errors, 0);
                legs += b.debug.feet.iter().filter(|f| f.weight > 0.0).count();
                for (mb, ms) in b.models.iter().zip(&s.models) {
                    let d = (*mb - *ms).to_cols_array().map(f32::abs);
                    worst = d.into_iter().fold(worst, f32::max);
                }
            }
        }
        assert!(legs > 1000, "only {legs} legs solved");
        assert!(
            worst <= 1e-5,
            "batched and per-knight foot IK differ by {worst}"
        );
    }
}
