//! Stage 1: sample and blend ([`super::PoseStage::Sample`] and
//! [`super::PoseStage::Blend`]; [`snapshot_limbs`] runs in
//! [`super::PoseStage::LocalToModel`]).
//!
//! Reads the character's clips and the frame's [`Layer`]s; writes the
//! animated local pose (the pipeline's `pose.locals`), each leg's joints
//! sampled at the leg's own phase under a duty warp ([`Layer::duty`]). Keeps, in
//! [`Sampler`], each clip's sampling cursor, each clip's time and last step
//! (`clip_steps`, which foot IK reads for contacts a frame ahead), the
//! pose an outgoing crossfade layer holds ([`Layer::held`]) and the latest
//! frame's layers, from which that pose is blended again when a crossfade
//! begins, and the latest blended rotations, near which the next frame's
//! layers are blended ([`animation::blend_near`]: a crossfade between
//! rotations half a turn apart moves on instead of flipping). The layer
//! poses sampling fills and blending reads are
//! a [`LayerScratch`], which only one character's sample-and-blend needs at
//! a time: a crowd keeps one per group of knights, not one per knight.
//! [`snapshot_limbs`] then copies each limb's animated model matrices, all
//! that foot and ladder IK read of the animated pose.

use animation::{BlendLayer, SamplingCursor, Transform, Wrap, blend_near, sample, sample_packed};
use glam::{Mat4, Quat};

use crate::character::Character;
use crate::character::anim_state::{Layer, MAX_LAYERS};

use super::gait::leg_phase;

/// Local poses sampled per frame: one per layer that is not held. An
/// [`AnimState`](crate::character::anim_state::AnimState) gives at most one
/// held layer (the outgoing state of a crossfade, which blends from
/// `held_pose` with no copy) and at most three others (idle, walk and run
/// of the new state), so a [`LayerScratch`] holds three buffers, not four
/// (each is a whole local pose: 1,152 bytes for the knight's 24 joints).
const SAMPLED_LAYERS: usize = MAX_LAYERS - 1;

/// The local poses of one frame's sampled layers ([`SAMPLED_LAYERS`] of
/// them, each a whole local pose of the character), written by sampling and
/// read by the blend that follows it. Nothing in it outlives one
/// character's sample and blend (every layer is sampled over the rest pose
/// first), so characters posed one after another share one: a crowd keeps
/// one per group of knights ([`super::PosePipeline::sample_with`]) instead
/// of one per knight, 3,456 bytes less per knight.
#[derive(Clone, Debug)]
pub struct LayerScratch {
    /// The layer poses one after another, `joints` transforms each.
    locals: Vec<Transform>,
    joints: usize,
    /// A leg's own sample of a gait clip under a duty warp (see
    /// [`Layer::duty`] and [`sample_layer`]), a pose's worth. Shared like
    /// the layer poses: kept per knight, it added 1,152 bytes to every
    /// knight of a crowd once the knight's gait was warped. Allocated with
    /// the rest, not when a layer first warps: a crowd's group whose first
    /// warp came mid-run allocated in that frame (the bench counted 4
    /// allocations in 300 frames once walks on steep ground warped).
    leg: Vec<Transform>,
}

impl LayerScratch {
    /// Allocates the layer poses and a leg's pose for `character`.
    pub fn new(character: &Character) -> Self {
        let joints = character.skeleton.len();
        Self {
            locals: vec![Transform::IDENTITY; joints * SAMPLED_LAYERS],
            joints,
            leg: vec![Transform::IDENTITY; joints],
        }
    }

    /// Resizes the buffers for `character` if they were made for a skeleton
    /// of another size (the only time this allocates).
    fn fit(&mut self, character: &Character) {
        let joints = character.skeleton.len();
        if self.joints != joints {
            *self = Self::new(character);
        }
    }

    /// Layer pose `slot` (below [`SAMPLED_LAYERS`]).
    fn layer(&self, slot: usize) -> &[Transform] {
        &self.locals[slot * self.joints..(slot + 1) * self.joints]
    }
}

/// Stage 1's memory: the sampling cursors, each clip's time and step, the
/// pose a crossfade holds and the layers of the latest frame.
#[derive(Clone, Debug)]
pub(super) struct Sampler {
    cursors: Vec<SamplingCursor>,
    /// Each clip's time when a layer last played it, and how far that time
    /// moved in the frame before, seconds (NaN: not played yet): what the
    /// clip will do next frame, for contacts about to end.
    pub(super) clip_steps: Vec<[f32; 2]>,
    /// The layers the latest frame blended (at most [`MAX_LAYERS`], the
    /// capacity, so keeping them never allocates), and whether there was
    /// such a frame. A crossfade that begins holds that frame's animated
    /// pose, which is blended again from them then (sampling depends only
    /// on the clip and the time, so it is that pose bit for bit): the
    /// pipeline keeps a few layers instead of a whole pose (1,152 bytes for
    /// the knight) and copies nothing per frame.
    last_layers: Vec<Layer>,
    has_last: bool,
    /// The pose an outgoing crossfade layer holds (see [`Layer::held`]) and
    /// the number of the crossfade it was taken for.
    held_pose: Vec<Transform>,
    held_id: Option<u32>,
    /// The latest frame's blended local rotations (empty before the
    /// first): each joint's layers are blended in their hemisphere
    /// ([`animation::blend_near`]). The animated pose's, not the final
    /// pose's: near a limb IK has turned far from its animation (an arm
    /// reaching for a rung), the hemisphere of the final pose made the
    /// blend itself jump.
    last_rotations: Vec<Quat>,
}

impl Sampler {
    /// Allocates the buffers for `character`.
    pub(super) fn new(character: &Character) -> Self {
        Self {
            // A packed clip's cursor keeps one key index and no per-track
            // ones (no allocation).
            cursors: character
                .clips
                .iter()
                .zip(&character.packed_clips)
                .map(|(clip, packed)| match packed {
                    Some(_) => SamplingCursor::default(),
                    None => SamplingCursor::new(clip),
                })
                .collect(),
            clip_steps: vec![[f32::NAN, 0.0]; character.clips.len()],
            last_layers: Vec::with_capacity(MAX_LAYERS),
            has_last: false,
            held_pose: character.skeleton.rest_locals().to_vec(),
            held_id: None,
            last_rotations: Vec::with_capacity(character.skeleton.len()),
        }
    }

    /// Step 1a: sample every layer into its own local pose in `scratch`. A
    /// held layer (the outgoing state of a crossfade, [`Layer::held`]) takes
    /// the animated pose of the frame before its crossfade began.
    pub(super) fn sample(
        &mut self,
        c: &Character,
        layers: &[Layer],
        pose: &mut [Transform],
        scratch: &mut LayerScratch,
    ) {
        // A held layer's clip does not move; a still one's contact does
        // not depend on its time (and a rig whose idle is its walk held at
        // one frame plays the same clip there as in its gait).
        // The first layer playing a clip moves it (walk and run may be one
        // clip, at one time).
        let mut seen = [usize::MAX; MAX_LAYERS];
        for (k, layer) in layers.iter().enumerate().take(MAX_LAYERS) {
            if layer.held.is_some() || layer.still || seen.contains(&layer.clip.index) {
                continue;
            }
            seen[k] = layer.clip.index;
            let Some(e) = self.clip_steps.get_mut(layer.clip.index) else {
                continue;
            };
            let duration = layer.clip.duration.max(1e-3);
            let mut step = layer.time - e[0];
            if layer.looping && step < -0.5 * duration {
                step += duration;
            }
            // Not played last frame, or started over: no step known.
            if !(step.is_finite() && step.abs() <= 0.25 * duration) {
                step = 0.0;
            }
            *e = [layer.time, step];
        }
        let n = layers.len().min(MAX_LAYERS);
        // A crossfade that begins holds the pose the frame before showed.
        let new_hold = layers[..n]
            .iter()
            .find_map(|l| l.held.filter(|&id| self.held_id != Some(id)));
        if let Some(id) = new_hold {
            self.held_id = Some(id);
            if self.has_last {
                // The latest frame's blend again, into `pose` (this frame's
                // is written over it below), with the layer poses in
                // `scratch` (sampled over below) and the held pose as it
                // was then; then kept.
                let last = std::mem::take(&mut self.last_layers);
                self.sample_layers(c, &last, pose, scratch);
                let near = std::mem::take(&mut self.last_rotations);
                self.blend_layers(c, &last, &near, pose, scratch);
                self.last_rotations = near;
                self.last_layers = last;
                self.held_pose.copy_from_slice(pose);
            } else if let Some(layer) = layers[..n].iter().find(|l| l.held == Some(id)) {
                // No frame before this one: the clip where it was.
                sample_layer(
                    c,
                    layer,
                    &mut self.cursors,
                    &mut scratch.leg,
                    &mut self.held_pose,
                );
            }
        }
        self.sample_layers(c, &layers[..n], pose, scratch);
    }

    /// Samples `layers` (at most [`MAX_LAYERS`]): one clip alone straight
    /// into `pose`, else every layer that is not held into its own local
    /// pose in `scratch`, in order.
    fn sample_layers(
        &mut self,
        c: &Character,
        layers: &[Layer],
        pose: &mut [Transform],
        scratch: &mut LayerScratch,
    ) {
        if let Some(layer) = single_layer(layers)
            && layer.held.is_none()
        {
            // One clip alone (most frames): sampled straight into the pose,
            // which is then the blend; no layer buffer, no blend pass.
            sample_layer(c, layer, &mut self.cursors, &mut scratch.leg, pose);
            return;
        }
        scratch.fit(c);
        let mut slots = scratch.locals.chunks_exact_mut(scratch.joints);
        let leg = &mut scratch.leg;
        // More than `SAMPLED_LAYERS` layers that are not held are never
        // given (see `SAMPLED_LAYERS`); one would blend as its rest pose.
        for layer in layers.iter().filter(|l| l.held.is_none()) {
            if let Some(locals) = slots.next() {
                sample_layer(c, layer, &mut self.cursors, leg, locals);
            }
        }
    }

    /// Step 1b: blend the layers sampled into `scratch` by the
    /// [`Sampler::sample`] just before into `pose`, and keep the layers: the
    /// next crossfade holds their blend.
    pub(super) fn blend(
        &mut self,
        c: &Character,
        layers: &[Layer],
        pose: &mut [Transform],
        scratch: &LayerScratch,
    ) {
        let mut near = std::mem::take(&mut self.last_rotations);
        self.blend_layers(c, layers, &near, pose, scratch);
        near.clear();
        near.extend(pose.iter().map(|t| t.rotation));
        self.last_rotations = near;
        self.last_layers.clear();
        self.last_layers
            .extend_from_slice(&layers[..layers.len().min(MAX_LAYERS)]);
        self.has_last = true;
    }

    fn blend_layers(
        &mut self,
        c: &Character,
        layers: &[Layer],
        near: &[Quat],
        pose: &mut [Transform],
        scratch: &LayerScratch,
    ) {
        if single_layer(layers).is_some_and(|l| l.held.is_none()) {
            // Sampled straight into the pose (see `sample`).
            return;
        }
        let rest = c.skeleton.rest_locals();
        let n = layers.len().min(MAX_LAYERS);
        // Each layer's pose: the held pose for a held layer, else the next
        // sampled buffer, in the order `sample` filled them.
        let mut slot = 0;
        let blend_layers: [BlendLayer; MAX_LAYERS] = std::array::from_fn(|i| {
            let locals: &[Transform] = match layers.get(i) {
                Some(l) if i < n && l.held.is_some() => &self.held_pose,
                Some(_) if i < n && slot < SAMPLED_LAYERS => {
                    slot += 1;
                    scratch.layer(slot - 1)
                }
                _ => rest,
            };
            BlendLayer {
                locals,
                weight: if i < n {
                    layers[i].weight.max(0.0)
                } else {
                    0.0
                },
                joint_weights: None,
            }
        });
        if blend_near(&blend_layers[..n], rest, near, pose).is_err() {
            pose.copy_from_slice(rest);
        }
    }
}

/// Copies each limb's start, mid and end model matrices (legs, then up to
/// two arms) from `models` into `out`: the animated matrices foot and
/// ladder IK read.
pub(super) fn snapshot_limbs(c: &Character, models: &[Mat4], out: &mut [[Mat4; 3]; 4]) {
    let limbs = c.legs.iter().chain(c.arms.iter().take(2));
    for (slot, limb) in out.iter_mut().zip(limbs) {
        *slot = [models[limb.start], models[limb.mid], models[limb.end]];
    }
}

/// Whether the layers mix clips of different states (see
/// [`PoseDebug::transition`](super::PoseDebug::transition)).
pub(super) fn is_transition(c: &Character, layers: &[Layer]) -> bool {
    let total: f32 = layers.iter().map(|l| l.weight).sum();
    let gait = [c.clip_set.walk.index, c.clip_set.run.index];
    let mixing = || layers.iter().filter(|l| l.weight > 0.01 * total);
    mixing().count() >= 2 && mixing().any(|l| l.still || !gait.contains(&l.clip.index))
}

/// Samples `layer`'s clip into `out` (rest pose first, for joints the clip
/// does not animate), looping or held at its ends: its packed form when it
/// has one ([`Character::packed_clips`], one key search for the clip), else
/// track by track (the same result). Under a duty warp ([`Layer::duty`])
/// each leg's joints (its hip and everything below) are the clip's at the
/// leg's own phase ([`leg_phase`]), sampled into `leg_pose` (a
/// [`LayerScratch`]'s, sized to the skeleton when it is made and shared by
/// the characters posed one after another; resized here only if it was
/// made for another skeleton) and copied over.
pub(super) fn sample_layer(
    c: &Character,
    layer: &Layer,
    cursors: &mut [SamplingCursor],
    leg_pose: &mut Vec<Transform>,
    out: &mut [Transform],
) {
    sample_clip_at(c, layer, layer.time, cursors, out);
    if layer.duty <= 0.0 || layer.still || layer.held.is_some() {
        return;
    }
    let duration = layer.clip.duration.max(1e-3);
    let phase = layer.time / duration;
    let skeleton = &c.skeleton;
    for leg in &c.legs {
        let own = leg_phase(leg, layer, phase);
        if own == phase {
            continue;
        }
        if leg_pose.len() != out.len() {
            leg_pose.clear();
            leg_pose.resize(out.len(), Transform::IDENTITY);
        }
        sample_clip_at(c, layer, own * duration, cursors, leg_pose);
        let start = leg.start;
        for j in start..skeleton.subtree_end(start).min(out.len()) {
            if skeleton.subtree_is_contiguous(start) || skeleton.is_descendant_of(j, start) {
                out[j] = leg_pose[j];
            }
        }
    }
}

/// Samples `layer`'s clip at `time` into `out` (see [`sample_layer`]).
fn sample_clip_at(
    c: &Character,
    layer: &Layer,
    time: f32,
    cursors: &mut [SamplingCursor],
    out: &mut [Transform],
) {
    out.copy_from_slice(c.skeleton.rest_locals());
    let wrap = if layer.looping {
        Wrap::Loop
    } else {
        Wrap::Clamp
    };
    let i = layer.clip.index;
    match c.packed_clips.get(i) {
        Some(Some(packed)) => sample_packed(packed, time, wrap, &mut cursors[i], out),
        _ => sample(&c.clips[i], time, wrap, &mut cursors[i], out),
    }
}

/// The one layer of a frame that plays a single clip at a usable weight
/// (most frames), which is then sampled straight into the pose.
pub(super) fn single_layer(layers: &[Layer]) -> Option<&Layer> {
    match layers {
        [only]
            if only.weight > animation::blend::BLEND_WEIGHT_EPSILON && only.weight.is_finite() =>
        {
            Some(only)
        }
        _ => None,
    }
}

/// The frame's locomotion layers as (playback rate, share of the layers'
/// weight), the heaviest first (see [`super::PoseDebug::gait_rates`]).
pub(super) fn gait_rates(c: &Character, layers: &[Layer]) -> [Option<(f32, f32)>; 2] {
    let gait = [c.clip_set.walk.index, c.clip_set.run.index];
    let total: f32 = layers.iter().map(|l| l.weight.max(0.0)).sum();
    let mut out = [None; 2];
    if total <= 0.0 {
        return out;
    }
    let playing = layers
        .iter()
        .filter(|l| l.held.is_none() && !l.still && gait.contains(&l.clip.index));
    for l in playing {
        let this = (l.rate, l.weight.max(0.0) / total);
        match out {
            [None, _] => out[0] = Some(this),
            [Some(a), _] if l.weight > a.1 => out = [Some(this), Some(a)],
            [Some(_), None] => out[1] = Some(this),
            [Some(_), Some(b)] if l.weight > b.1 => out[1] = Some(this),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fastest_joint, knight_on_flat_ground, local_rotations};
    use glam::Quat;

    /// Runs right on flat ground (running when `run`), jumping at frame 90;
    /// returns the largest joint angular speed of the frames from the
    /// take-off on, and of the steady frames before it, rad/s.
    fn take_off_speeds(run: bool) -> (f32, f32) {
        use crate::sim::Body;
        use crate::sim::player::{DT, Input};
        let mut sim = knight_on_flat_ground(-5.0, 60.0, 0.0);
        let mut prev: Vec<Quat> = Vec::new();
        let (mut before, mut after) = (0.0f32, 0.0f32);
        for frame in 0..110 {
            sim.step(&Input {
                move_x: 1.0,
                run,
                jump_pressed: frame == 90,
                jump_held: (90..110).contains(&frame),
                ..Input::default()
            });
            sim.pose(DT);
            let body = sim.world.get::<&Body>(sim.player).unwrap();
            let now = local_rotations(&body.pipeline);
            if !prev.is_empty() {
                let speed = fastest_joint(&prev, &now, DT);
                if (60..90).contains(&frame) {
                    before = before.max(speed);
                } else if frame >= 90 {
                    after = after.max(speed);
                }
            }
            prev = now;
        }
        (before, after)
    }

    /// A crossfade that begins holds the animated pose of the frame before
    /// it bit for bit, blended again from that frame's layers: after one
    /// clip alone, after two blended, and after a crossfade half done (its
    /// own held pose among the layers).
    #[test]
    fn a_new_crossfade_holds_the_last_frames_pose_exactly() {
        use super::{LayerScratch, Sampler};
        use crate::character::Character;
        use crate::character::anim_state::Layer;
        let c = Character::knight().unwrap();
        let set = c.clip_set;
        let layer = |clip, time: f32, weight, held| Layer {
            held,
            ..Layer::looping(clip, time, weight)
        };
        let mut sampler = Sampler::new(&c);
        let mut scratch = LayerScratch::new(&c);
        let mut pose = c.skeleton.rest_locals().to_vec();
        let mut shown = pose.clone();
        let mut held = 0;
        for frame in 0..60u32 {
            let t = frame as f32 / 64.0;
            let w = (frame % 10) as f32 / 10.0;
            // Crossfade k from frame 10 k on; walk alone before.
            let id = (frame >= 10).then_some(frame / 10);
            let layers: Vec<Layer> = match frame / 10 {
                0 => vec![layer(set.walk, t, 1.0, None)],
                1 | 3 => vec![
                    layer(set.walk, t, 1.0 - w, id),
                    layer(set.run, 0.7 * t, 0.3 + w, None),
                ],
                _ => vec![
                    layer(set.run, t, 0.4, id),
                    layer(set.walk, 0.9 * t, 0.2 + w, None),
                    layer(set.idle, 0.0, 0.3, None),
                    layer(set.run, 1.1 * t, 0.1 + w, None),
                ],
            };
            sampler.sample(&c, &layers, &mut pose, &mut scratch);
            if frame % 10 == 0 && frame > 0 {
                assert_eq!(sampler.held_pose, shown, "crossfade of frame {frame}");
                held += 1;
            }
            sampler.blend(&c, &layers, &mut pose, &scratch);
            shown.copy_from_slice(&pose);
            // IK works on the pose after the blend.
            pose.fill(animation::Transform::IDENTITY);
        }
        assert_eq!(held, 5);
    }

    /// Every clip of the knight is sampled packed (one key search per clip,
    /// see `Character::packed_clips`), and the pipeline's sampling of each,
    /// through a loop and a jump back, equals the per-track sampler's bit
    /// for bit.
    #[test]
    fn every_knight_clip_is_sampled_packed_with_the_per_track_result() {
        use super::{SamplingCursor, sample_layer};
        use crate::character::Character;
        use crate::character::anim_state::{ClipInfo, Layer};
        let c = Character::knight().unwrap();
        assert!(c.packed_clips.iter().all(Option::is_some));
        let mut cursors: Vec<SamplingCursor> =
            c.clips.iter().map(|_| SamplingCursor::default()).collect();
        for (index, clip) in c.clips.iter().enumerate() {
            let mut per_track = SamplingCursor::new(clip);
            for frame in (0..150).chain(20..40) {
                let time = frame as f32 / 60.0;
                let layer = Layer {
                    clip: ClipInfo {
                        index,
                        duration: clip.duration,
                        cycle_distance: 0.0,
                    },
                    time,
                    weight: 1.0,
                    looping: frame % 3 != 0,
                    still: false,
                    rate: 1.0,
                    stride: 1.0,
                    duty: 0.0,
                    held: None,
                };
                let mut got = c.skeleton.rest_locals().to_vec();
                sample_layer(&c, &layer, &mut cursors, &mut Vec::new(), &mut got);
                let mut want = c.skeleton.rest_locals().to_vec();
                let wrap = if layer.looping {
                    animation::Wrap::Loop
                } else {
                    animation::Wrap::Clamp
                };
                animation::sample(clip, time, wrap, &mut per_track, &mut want);
                assert_eq!(got, want, "clip {} at {time} s", clip.name);
            }
        }
    }

    #[test]
    fn under_a_duty_warp_each_leg_plays_its_gait_at_its_own_phase() {
        // The knight's run with its legs' clocks warped: each leg's hip and
        // everything below it is the clip at that leg's phase
        // (`gait::leg_phase`), every other joint the clip at the layer's;
        // unwarped, the whole pose is the clip at the layer's time.
        use super::{SamplingCursor, sample_clip_at, sample_layer};
        use crate::character::Character;
        use crate::character::anim_state::Layer;
        use crate::character::pose_pipeline::gait::leg_phase;
        let c = Character::knight().unwrap();
        let run = c.clip_set.run;
        let mut cursors: Vec<SamplingCursor> =
            c.clips.iter().map(|_| SamplingCursor::default()).collect();
        let mut leg_pose = Vec::new();
        let in_leg = |j: usize, leg: usize| c.skeleton.is_descendant_of(j, c.legs[leg].start);
        let mut moved = 0;
        for frame in 0..40 {
            let layer = Layer {
                clip: run,
                time: frame as f32 / 40.0 * run.duration,
                weight: 1.0,
                looping: true,
                still: false,
                rate: 1.0,
                stride: 1.3,
                duty: 0.3,
                held: None,
            };
            let mut got = c.skeleton.rest_locals().to_vec();
            sample_layer(&c, &layer, &mut cursors, &mut leg_pose, &mut got);
            let mut body = c.skeleton.rest_locals().to_vec();
            sample_clip_at(&c, &layer, layer.time, &mut cursors, &mut body);
            let legs: Vec<Vec<_>> = (0..2)
                .map(|k| {
                    let phase = leg_phase(&c.legs[k], &layer, layer.time / run.duration);
                    let mut pose = c.skeleton.rest_locals().to_vec();
                    sample_clip_at(&c, &layer, phase * run.duration, &mut cursors, &mut pose);
                    pose
                })
                .collect();
            for j in 0..c.skeleton.len() {
                let want = match (in_leg(j, 0), in_leg(j, 1)) {
                    (true, _) => legs[0][j],
                    (_, true) => legs[1][j],
                    _ => body[j],
                };
                assert_eq!(got[j], want, "frame {frame}, joint {j}");
                moved += usize::from(got[j] != body[j]);
            }
            let still = Layer { duty: 0.0, ..layer };
            sample_layer(&c, &still, &mut cursors, &mut leg_pose, &mut got);
            assert_eq!(got, body, "frame {frame} unwarped");
        }
        assert!(moved > 100, "the warp moved {moved} leg joints");
    }

    #[test]
    fn a_take_off_crossfades_from_the_pose_shown() {
        // The jump's crossfade holds the pose of the frame before it (a
        // blend of walk and run at a run), not the walk clip's pose at the
        // run's phase: a running take-off turned a forearm at 64 rad/s in
        // one frame when it did.
        for run in [false, true] {
            let (before, after) = take_off_speeds(run);
            assert!(before > 5.0, "moving before the jump: {before}");
            assert!(
                after <= 20.0,
                "run {run}: take-off {after} rad/s (before {before})"
            );
        }
    }
}
