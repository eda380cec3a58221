//! The per-frame pose pipeline, one file per stage, run in this order by
//! [`PosePipeline::run`] (each stage a plain function or a small job whose
//! fields name what it reads and writes; each file's opening comment says
//! which):
//!
//! 1. **Sample and blend** (`sample_blend.rs`) the clips the state machine
//!    chose ([`Layer`](crate::character::anim_state::Layer)s), then `local_to_model` and a copy of each limb's
//!    animated matrices.
//! 2. **Place the model** in the world (`placement.rs`): feet position,
//!    facing (turns are smoothed), ladder depth, and step-ups smoothed so
//!    the body does not jump.
//! 3. **Foot IK** (`foot_ik.rs`, with the gait's contacts and swing plans
//!    in `gait.rs`): a ground probe under each ankle from the level's h(x)
//!    and normal; each foot keeps its animated lift above the ground it is
//!    over; the pelvis is lowered so both feet can reach (no faster than a
//!    locked foot's knee may follow); a two-bone solve per leg with the
//!    knee hinge limited and the foot turned to the surface normal in
//!    proportion to its contact weight, so a swinging foot keeps its
//!    animated orientation. A swinging knee straightens beyond its
//!    animation at a bounded speed, so a leg reaching down a stair never
//!    whips. A crowd solves its legs batched: every knight's targets, then
//!    all legs in the batched solver's lanes, then the corrections
//!    ([`PosePipeline::foot_ik_group`]).
//! 4. **Ladder IK** (`ladder_ik.rs`): hands and feet onto rungs,
//!    phase-locked to the climb cycle. The rung a limb holds is chosen once
//!    per grip, from where the animation puts the limb in the middle of
//!    that grip, and the correction is interpolated between consecutive
//!    grips during the reach, so hands and feet never pop and a held rung
//!    never changes.
//! 5. **Joint speed limit** (`joint_limit.rs`): no joint turns faster than
//!    [`MAX_JOINT_SPEED`] from one frame to the next; a locked foot and a
//!    hand on a rung are solved back onto their holds, other feet reach
//!    theirs at the limit's pace, and a foot locked this frame keeps its
//!    lock only if it is shown on it.
//! 6. **Palette** (here): model matrices times inverse bind matrices, ready
//!    to upload (the affine product when the inverse binds are affine, as
//!    the model matrices always are; only the translations moved when the
//!    inverse binds are pure translations, as the knight's are).
//!
//! Everything the pipeline needs is passed in ([`FrameInput`], `frame.rs`);
//! everything it remembers between frames (`Smoothing`) and its scratch
//! buffers live in [`PosePipeline`], allocated once per character, except
//! stage 1's layer poses ([`LayerScratch`]), which characters posed one
//! after another may share (a crowd keeps one per group). Two-bone
//! limb geometry the stages share is in `limb.rs`, small math in `math.rs`.
//! A frame allocates nothing.

mod foot_ik;
mod frame;
mod gait;
mod joint_limit;
mod ladder_ik;
mod limb;
mod math;
mod placement;
mod sample_blend;
#[cfg(test)]
mod testing;

use animation::ik::two_bone::TwoBoneOptions;
use animation::{
    LOCAL_TO_MODEL_LANES, Pose, local_to_model, local_to_model_x4, palette, palette_affine,
    palette_affine_in_place, palette_in_place, palette_translation, palette_translation_in_place,
};
use glam::{Mat4, Quat, Vec3};

pub use foot_ik::{GROUP_KNIGHTS, MAX_PELVIS_DROP, REACH_FRACTION, SOLE_FIT_BALL};
pub use frame::{FrameInput, LimbDebug, PoseDebug};
pub use gait::{MAX_DUTY_WARP, body_phase, duty_phase, layer_contact, leg_phase, stance_of};
pub use joint_limit::MAX_JOINT_SPEED;
pub(crate) use limb::HINGE_RANGE;
pub use limb::required_drop;
pub use sample_blend::LayerScratch;

use crate::character::Character;
use crate::character::ledge_ik::LedgeIk;
use frame::Smoothing;
use sample_blend::Sampler;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PoseStage {
    /// Sample every layer's clip (step 1, first half).
    Sample,
    /// Blend the layers (step 1, second half).
    Blend,
    /// `local_to_model`, the limbs' animated matrices, and placing the model
    /// in the world (step 2).
    LocalToModel,
    /// Feet onto the ground (step 3).
    FootIk,
    /// Hands and feet onto rungs (step 4).
    LadderIk,
    /// No joint faster than [`MAX_JOINT_SPEED`] (step 5).
    Limit,
    /// Skinning matrices (step 6).
    Palette,
}

impl PoseStage {
    /// Every stage, in the order a frame runs them.
    pub const ALL: [PoseStage; 7] = [
        PoseStage::Sample,
        PoseStage::Blend,
        PoseStage::LocalToModel,
        PoseStage::FootIk,
        PoseStage::LadderIk,
        PoseStage::Limit,
        PoseStage::Palette,
    ];
}

/// Which product of model and inverse bind matrices the palette takes: the
/// cheapest the skeleton's inverse binds allow.
#[derive(Clone, Copy)]
enum Product {
    /// Pure translations: only each translation column moves.
    Translation,
    /// Affine: three vector products per column.
    Affine,
    /// Any: glam's 4×4 product.
    Full,
}

/// Told when each stage of a frame starts and ends (the profiler's hook; the
/// pipeline itself keeps no clock).
pub trait StageObserver {
    /// `stage` is about to run.
    fn enter(&mut self, stage: PoseStage);
    /// `stage` has finished.
    fn exit(&mut self, stage: PoseStage);
}

/// Observes nothing.
impl StageObserver for () {
    fn enter(&mut self, _: PoseStage) {}
    fn exit(&mut self, _: PoseStage) {}
}

/// One character's pose pipeline: scratch buffers and smoothing state.
#[derive(Clone, Debug)]
pub struct PosePipeline {
    /// Stage 1's cursors, clip steps and held pose.
    sampler: Sampler,
    /// Stage 1's layer poses when the pipeline is posed on its own
    /// ([`PosePipeline::run_stage`]); a [`PosePipeline::lean`] one has none
    /// until it is (a crowd passes each knight its group's, see
    /// [`PosePipeline::sample_with`]).
    scratch: Option<LayerScratch>,
    /// The final local pose.
    pub pose: Pose,
    /// The final local rotations of the previous frame (the joint speed
    /// limit's reference).
    prev_rotations: Vec<Quat>,
    /// Model matrices as animated, before IK (every joint; empty in a
    /// [`PosePipeline::lean`] pipeline, which keeps only its limbs').
    pub animated: Vec<Mat4>,
    /// The animated model matrices of each limb's start, mid and end joints
    /// (legs, then up to two arms): all that foot and ladder IK read of the
    /// animated pose.
    limb_animated: [[Mat4; 3]; 4],
    /// This frame's two-bone options for each leg, set by foot IK's first
    /// half (targets, pelvis drop, knee straightening) for its second (the
    /// solves, one leg at a time or a crowd's legs batched); `None` for a
    /// leg foot IK leaves alone.
    leg_opts: [Option<TwoBoneOptions>; 2],
    /// The model-space direction each limb's knee or elbow was bent toward
    /// by its latest solve this frame (legs, then arms; zero for a limb no
    /// IK solved): where the joint speed limit's re-solve bends a limb whose
    /// knee lies on its hip→ankle line.
    limb_pole: [Vec3; 4],
    /// Model matrices after IK (in a [`PosePipeline::lean`] pipeline, once
    /// the palette stage has run, they hold the palette instead).
    pub models: Vec<Mat4>,
    /// Skinning matrices (model × inverse bind), ready to upload; empty in a
    /// lean pipeline, whose palette is written over `models`. Read it with
    /// [`PosePipeline::palette`].
    palette: Vec<Mat4>,
    /// Model to world.
    pub world: Mat4,
    /// What IK did this frame.
    pub debug: PoseDebug,
    /// The ledge IK's memory and what it did this frame.
    pub ledge: LedgeIk,
    smooth: Smoothing,
}

impl PosePipeline {
    /// Allocates the scratch buffers for `character`.
    pub fn new(character: &Character) -> Self {
        let n = character.skeleton.len();
        Self {
            sampler: Sampler::new(character),
            scratch: Some(LayerScratch::new(character)),
            pose: character.skeleton.rest_pose(),
            prev_rotations: Vec::with_capacity(n),
            animated: vec![Mat4::IDENTITY; n],
            limb_animated: [[Mat4::IDENTITY; 3]; 4],
            leg_opts: [None; 2],
            limb_pole: [Vec3::ZERO; 4],
            models: vec![Mat4::IDENTITY; n],
            palette: vec![Mat4::IDENTITY; n],
            world: Mat4::IDENTITY,
            debug: PoseDebug::default(),
            ledge: LedgeIk::new(character),
            smooth: Smoothing::default(),
        }
    }

    /// Like [`PosePipeline::new`], without the full copy of the animated
    /// model matrices ([`PosePipeline::animated`] stays empty), with the
    /// palette written over the model matrices and without layer poses of
    /// its own (the caller passes them, [`PosePipeline::sample_with`]): a
    /// crowd's pipeline, which no metrics or debug drawing read, saves those
    /// buffers' time and memory. Poses and palettes are the same as a full
    /// pipeline's. Posed on its own ([`PosePipeline::run_stage`]), a lean
    /// pipeline allocates its layer poses once, the first time.
    pub fn lean(character: &Character) -> Self {
        Self {
            animated: Vec::new(),
            palette: Vec::new(),
            scratch: None,
            ..Self::new(character)
        }
    }

    /// Skinning matrices (model × inverse bind) of the latest frame, ready to
    /// upload.
    pub fn palette(&self) -> &[Mat4] {
        if self.palette.is_empty() {
            &self.models
        } else {
            &self.palette
        }
    }

    /// Forgets the smoothing (after a respawn or a level change).
    pub fn reset(&mut self) {
        self.smooth = Smoothing::default();
        self.ledge.reset();
    }

    /// Runs one frame of the pipeline: every [`PoseStage`] in order.
    pub fn run(&mut self, c: &Character, input: &FrameInput) {
        for stage in PoseStage::ALL {
            self.run_stage(stage, c, input);
        }
    }

    /// Runs one frame of the pipeline, telling `observer` when each stage
    /// starts and ends (profiling). Same result as [`PosePipeline::run`].
    pub fn run_observed(
        &mut self,
        c: &Character,
        input: &FrameInput,
        observer: &mut impl StageObserver,
    ) {
        for stage in PoseStage::ALL {
            observer.enter(stage);
            self.run_stage(stage, c, input);
            observer.exit(stage);
        }
    }

    /// Runs one stage of the pipeline. A frame is every stage of
    /// [`PoseStage::ALL`] in that order; callers that pose many characters
    /// may run one stage for a group of characters before the next (each
    /// character's result is the same as with [`PosePipeline::run`]).
    pub fn run_stage(&mut self, stage: PoseStage, c: &Character, input: &FrameInput) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above), the only
            // requirement of this `target_feature` function.
            unsafe { self.run_stage_avx2(stage, c, input) };
            return;
        }
        self.run_stage_kernel(stage, c, input);
    }

    /// Runs `stage` for each pipeline of `pipelines` with its input of
    /// `inputs`, one after another: [`PosePipeline::run_stage`] for each
    /// (the same result), with the processor's build chosen once for all
    /// of them instead of once per character (a crowd's group).
    pub fn run_stage_each(
        pipelines: &mut [PosePipeline],
        stage: PoseStage,
        c: &Character,
        inputs: &[FrameInput],
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above), the only
            // requirement of this `target_feature` function.
            unsafe { Self::run_stage_each_avx2(pipelines, stage, c, inputs) };
            return;
        }
        for (p, input) in pipelines.iter_mut().zip(inputs) {
            p.run_stage_kernel(stage, c, input);
        }
    }

    /// [`PosePipeline::run_stage_each`] built for processors with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_stage_each_avx2(
        pipelines: &mut [PosePipeline],
        stage: PoseStage,
        c: &Character,
        inputs: &[FrameInput],
    ) {
        for (p, input) in pipelines.iter_mut().zip(inputs) {
            p.run_stage_kernel(stage, c, input);
        }
    }

    /// [`PosePipeline::run_stage_each`] of [`PoseStage::LocalToModel`] (the
    /// same result), the model matrices built four poses at a time
    /// ([`local_to_model_x4`]: the same bits as one at a time, with four
    /// knights' parent-to-child chains interleaved so that none waits on its
    /// own), then the rest of the stage knight by knight.
    pub fn local_to_model_each(
        pipelines: &mut [PosePipeline],
        c: &Character,
        inputs: &[FrameInput],
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above), the only
            // requirement of this `target_feature` function.
            unsafe { Self::local_to_model_each_avx2(pipelines, c, inputs) };
            return;
        }
        Self::local_to_model_each_kernel(pipelines, c, inputs);
    }

    /// [`PosePipeline::local_to_model_each`] built for processors with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn local_to_model_each_avx2(
        pipelines: &mut [PosePipeline],
        c: &Character,
        inputs: &[FrameInput],
    ) {
        Self::local_to_model_each_kernel(pipelines, c, inputs);
    }

    /// The body of [`PosePipeline::local_to_model_each`], inlined into each
    /// of its builds.
    #[inline(always)]
    fn local_to_model_each_kernel(
        pipelines: &mut [PosePipeline],
        c: &Character,
        inputs: &[FrameInput],
    ) {
        let mut chunks = pipelines.chunks_exact_mut(LOCAL_TO_MODEL_LANES);
        for chunk in &mut chunks {
            let [a, b, d, e] = chunk else {
                unreachable!("chunks_exact_mut gives chunks of LOCAL_TO_MODEL_LANES")
            };
            local_to_model_x4(
                &c.skeleton,
                [
                    &a.pose.locals,
                    &b.pose.locals,
                    &d.pose.locals,
                    &e.pose.locals,
                ],
                [&mut a.models, &mut b.models, &mut d.models, &mut e.models],
            );
        }
        for p in chunks.into_remainder() {
            local_to_model(&c.skeleton, &p.pose.locals, &mut p.models);
        }
        for (p, input) in pipelines.iter_mut().zip(inputs) {
            p.after_local_to_model(c, input);
        }
    }

    /// [`PosePipeline::run_stage`] built for processors with AVX2 (the
    /// stages' code inlined here; the same bits, see
    /// [`PosePipeline::foot_ik_targets_avx2`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_stage_avx2(&mut self, stage: PoseStage, c: &Character, input: &FrameInput) {
        self.run_stage_kernel(stage, c, input);
    }

    /// The local-to-model stage's work after the model matrices are built:
    /// the animated matrices kept for the debug view, each limb's animated
    /// matrices, and the model's placement in the world.
    #[inline(always)]
    fn after_local_to_model(&mut self, c: &Character, input: &FrameInput) {
        if !self.animated.is_empty() {
            self.animated.copy_from_slice(&self.models);
        }
        sample_blend::snapshot_limbs(c, &self.models, &mut self.limb_animated);
        self.world = placement::place(c, input, &mut self.smooth);
    }

    /// The body of [`PosePipeline::run_stage`], inlined into each of its
    /// builds with the stages' own kernels (placement and foot IK's targets
    /// in the same build as the rest). Called straight, it is the baseline
    /// build, which the tests compare with the dispatched one.
    #[inline(always)]
    pub(crate) fn run_stage_kernel(&mut self, stage: PoseStage, c: &Character, input: &FrameInput) {
        match stage {
            PoseStage::Sample | PoseStage::Blend => {
                // Taken out and put back: no allocation once it exists.
                let mut scratch = self.scratch.take().unwrap_or_else(|| LayerScratch::new(c));
                if stage == PoseStage::Sample {
                    self.sample_with(c, input, &mut scratch);
                } else {
                    self.blend_with(c, input, &scratch);
                }
                self.scratch = Some(scratch);
            }
            PoseStage::LocalToModel => {
                local_to_model(&c.skeleton, &self.pose.locals, &mut self.models);
                self.after_local_to_model(c, input);
            }
            PoseStage::FootIk => {
                self.foot_ik_targets_kernel(c, input);
                foot_ik::solve_legs(
                    c,
                    &self.leg_opts,
                    &mut self.pose,
                    &mut self.models,
                    &mut self.debug,
                );
            }
            PoseStage::LadderIk => {
                if input.ik_enabled {
                    ladder_ik::ladder_ik(ladder_ik::LadderIk {
                        c,
                        input,
                        world: self.world,
                        limb_animated: &self.limb_animated,
                        smooth: &mut self.smooth,
                        pose: &mut self.pose,
                        models: &mut self.models,
                        debug: &mut self.debug,
                        limb_pole: &mut self.limb_pole,
                    });
                }
                // Hands on a ledge's corner (see `ledge_ik`).
                self.debug.ik_errors += self.ledge.solve(
                    c,
                    input,
                    &mut self.pose,
                    &mut self.models,
                    &mut self.world,
                    &mut self.debug.hands,
                    &mut self.limb_pole,
                );
            }
            PoseStage::Limit => joint_limit::limit_joint_speed(joint_limit::JointLimit {
                c,
                input,
                world: self.world,
                limb_pole: &self.limb_pole,
                smooth: &mut self.smooth,
                pose: &mut self.pose,
                models: &mut self.models,
                debug: &mut self.debug,
                prev_rotations: &mut self.prev_rotations,
            }),
            PoseStage::Palette => {
                self.debug.ground_weight = self.smooth.ground_weight;
                self.debug.climb_weight = self.smooth.climb_weight;
                // Lengths always match (all sized from the skeleton), so this
                // cannot fail; keep the previous palette if it ever did. The
                // model matrices are affine (built by `local_to_model` and
                // moved rigidly by IK), so with affine inverse binds (every
                // rig's so far) the affine product serves: a quarter fewer
                // operations, the same palette but for the signs of zeros.
                // With inverse binds that are pure translations (the
                // knight's: bound unrotated and unscaled) only each matrix's
                // translation moves.
                let ib = c.skeleton.inverse_bind();
                let product = if c.skeleton.inverse_binds_are_translations() {
                    Product::Translation
                } else if c.skeleton.inverse_binds_are_affine() {
                    Product::Affine
                } else {
                    Product::Full
                };
                let _ = match (self.palette.is_empty(), product) {
                    (true, Product::Translation) => {
                        palette_translation_in_place(&mut self.models, ib)
                    }
                    (true, Product::Affine) => palette_affine_in_place(&mut self.models, ib),
                    (true, Product::Full) => palette_in_place(&mut self.models, ib),
                    (false, Product::Translation) => {
                        palette_translation(&self.models, ib, &mut self.palette)
                    }
                    (false, Product::Affine) => palette_affine(&self.models, ib, &mut self.palette),
                    (false, Product::Full) => palette(&self.models, ib, &mut self.palette),
                };
            }
        }
    }

    /// [`PoseStage::Sample`] with the layer poses in `scratch` instead of the
    /// pipeline's own. [`PosePipeline::blend_with`] with the same `scratch`
    /// must follow it before anything else is sampled into `scratch`: the
    /// two together are [`PoseStage::Sample`] and [`PoseStage::Blend`], with
    /// the same result. A crowd poses its knights this way one after
    /// another, sample and blend per knight, with one `scratch` per group.
    pub fn sample_with(&mut self, c: &Character, input: &FrameInput, scratch: &mut LayerScratch) {
        self.debug = PoseDebug::default();
        self.debug.transition = sample_blend::is_transition(c, input.layers);
        self.debug.gait_rates = sample_blend::gait_rates(c, input.layers);
        self.sampler
            .sample(c, input.layers, &mut self.pose.locals, scratch);
    }

    /// [`PoseStage::Blend`] of the layers [`PosePipeline::sample_with`] just
    /// sampled into `scratch`.
    pub fn blend_with(&mut self, c: &Character, input: &FrameInput, scratch: &LayerScratch) {
        self.sampler
            .blend(c, input.layers, &mut self.pose.locals, scratch);
    }

    /// Stage 3, first half ([`foot_ik::foot_targets`]) when IK is on,
    /// leaving each leg's two-bone options in `leg_opts` (none when IK is
    /// off).
    fn foot_ik_targets(&mut self, c: &Character, input: &FrameInput) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above), the only
            // requirement of this `target_feature` function.
            unsafe { self.foot_ik_targets_avx2(c, input) };
            return;
        }
        self.foot_ik_targets_kernel(c, input);
    }

    /// [`PosePipeline::foot_ik_targets`] built for processors with AVX2:
    /// the same operations (so the same bits; Rust never fuses a multiply
    /// and an add on its own), with three-operand instructions that spare
    /// most register copies (see `animation`'s `dispatch` module and
    /// BENCHMARKS.md, "Crowd cost cuts (issue 33, eleventh session)").
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn foot_ik_targets_avx2(&mut self, c: &Character, input: &FrameInput) {
        self.foot_ik_targets_kernel(c, input);
    }

    /// The body of [`PosePipeline::foot_ik_targets`], inlined into each of
    /// its builds.
    #[inline(always)]
    fn foot_ik_targets_kernel(&mut self, c: &Character, input: &FrameInput) {
        self.leg_opts = [None; 2];
        self.limb_pole = [Vec3::ZERO; 4];
        if input.ik_enabled {
            foot_ik::foot_targets(foot_ik::FootTargets {
                c,
                input,
                world: self.world,
                limb_animated: &self.limb_animated,
                clip_steps: &self.sampler.clip_steps,
                smooth: &mut self.smooth,
                pose: &mut self.pose,
                models: &mut self.models,
                debug: &mut self.debug,
                leg_opts: &mut self.leg_opts,
                limb_pole: &mut self.limb_pole,
            });
        }
    }
}
