//! Render interpolation of a character's pose: what the window draws between
//! two fixed simulation steps.
//!
//! The simulation and the pose pipeline advance in fixed steps of 1/64 s; a
//! display refreshes at 60, 120, 144 Hz or anything else. A display frame
//! falls at a fraction `alpha` of the way from the step before the latest to
//! the latest one (see [`crate::sim::clock::FixedClock`]). [`DrawnPose`]
//! keeps the final local pose and the model-to-world placement of those two
//! steps and, per display frame, blends them at `alpha`: local rotations by
//! nlerp on the shortest arc, translations and scales linearly
//! ([`animation::crossfade`]), the placement (position and facing) the same
//! way ([`animation::Transform::lerp`]); then `local_to_model` and the
//! palette, into buffers of its own. So the limbs and the facing move every
//! displayed frame, as the body does, at any display rate.
//!
//! It only reads the pose pipeline's results: the pipeline's own state
//! (smoothing, foot locks, the joint speed limit's history) advances on
//! simulation steps alone, whatever the display does. It allocates once, in
//! [`DrawnPose::new`]; recording a step and drawing a frame reuse the
//! buffers.
//!
//! A teleport is never blended across: the caller says so with
//! [`DrawnPose::snap`] (a respawn, a level load, a designer edit), and a
//! placement that moved farther than [`DRAWN_TELEPORT`] in one step counts as
//! one anyway.

use animation::{Transform, crossfade, local_to_model, palette};
use glam::Mat4;

use crate::character::Character;
use crate::character::pose_pipeline::PosePipeline;

/// A character placed this much farther (metres) in one step than the step
/// before is drawn where it is, not blended from where it was: no legitimate
/// movement covers it in 1/64 s (the run is 6 m/s, about 0.1 m a step), while
/// every teleport (respawn, relocation by a level edit) is longer. The same
/// distance the window's body interpolation used before poses were blended.
pub const DRAWN_TELEPORT: f32 = 1.0;

/// One simulation step's result, as the renderer needs it.
#[derive(Clone, Debug)]
struct StepPose {
    /// The final local pose (after IK and the joint speed limit).
    locals: Vec<Transform>,
    /// Model to world, decomposed.
    root: Transform,
}

/// A character's pose drawn between its last two simulation steps (see the
/// module's documentation).
#[derive(Clone, Debug)]
pub struct DrawnPose {
    /// The step before the latest, and the latest.
    prev: StepPose,
    cur: StepPose,
    /// Whether `prev` may be blended from (false after a teleport or before
    /// two steps are known).
    blend: bool,
    /// Whether any step was recorded.
    recorded: bool,
    /// The drawn frame: local pose, model matrices, palette, placement.
    locals: Vec<Transform>,
    models: Vec<Mat4>,
    palette: Vec<Mat4>,
    world: Mat4,
}

impl DrawnPose {
    /// Allocates the buffers for `character` (the only allocation).
    pub fn new(character: &Character) -> Self {
        let rest = character.skeleton.rest_locals();
        let n = rest.len();
        let step = StepPose {
            locals: rest.to_vec(),
            root: Transform::IDENTITY,
        };
        Self {
            prev: step.clone(),
            cur: step,
            blend: false,
            recorded: false,
            locals: rest.to_vec(),
            models: vec![Mat4::IDENTITY; n],
            palette: vec![Mat4::IDENTITY; n],
            world: Mat4::IDENTITY,
        }
    }

    /// Records the result of a pose pipeline run (one simulation step): the
    /// latest step becomes the previous one. A placement that jumped more
    /// than [`DRAWN_TELEPORT`] is not blended across.
    pub fn record(&mut self, pipeline: &PosePipeline) {
        std::mem::swap(&mut self.prev, &mut self.cur);
        let locals = &pipeline.pose.locals;
        if self.cur.locals.len() == locals.len() {
            self.cur.locals.copy_from_slice(locals);
        } else {
            // Another character's pipeline: never in the game, which records
            // one character per `DrawnPose`; kept sound all the same.
            self.cur.locals.clear();
            self.cur.locals.extend_from_slice(locals);
        }
        self.cur.root = Transform::from_mat4(&pipeline.world);
        let jump = (self.cur.root.translation - self.prev.root.translation).length();
        self.blend = self.recorded
            && self.prev.locals.len() == self.cur.locals.len()
            && jump <= DRAWN_TELEPORT;
        self.recorded = true;
    }

    /// The latest step is shown as it is until the next one: it was a
    /// teleport (respawn, level load, a designer edit), or a step in which
    /// the simulation did not move (the pause menu, a respawn's fade). The
    /// next step blends from it, not from before it.
    pub fn snap(&mut self) {
        self.blend = false;
    }

    /// Whether a frame between steps blends the last two (false: it shows
    /// the latest as it is).
    pub fn blends(&self) -> bool {
        self.blend
    }

    /// Fills the drawn frame at `alpha` (0: the step before the latest, 1:
    /// the latest; clamped) for `character`. Allocates nothing.
    pub fn update(&mut self, character: &Character, alpha: f32) {
        let t = if self.blend { alpha } else { 1.0 };
        // Lengths match unless another character was recorded: then the
        // latest step is drawn as it is (`blend` is false).
        if crossfade(&self.prev.locals, &self.cur.locals, t, &mut self.locals).is_err() {
            self.locals.clear();
            self.locals.extend_from_slice(&self.cur.locals);
        }
        let n = self.locals.len();
        self.models.resize(n, Mat4::IDENTITY);
        self.palette.resize(n, Mat4::IDENTITY);
        let skeleton = &character.skeleton;
        if skeleton.len() != n {
            return;
        }
        local_to_model(skeleton, &self.locals, &mut self.models);
        // Sized from the skeleton alike: cannot fail; the last palette stays
        // if it ever did.
        let _ = palette(&self.models, skeleton.inverse_bind(), &mut self.palette);
        self.world = self.prev.root.lerp(&self.cur.root, t).to_mat4();
    }

    /// The drawn frame's skinning matrices (model × inverse bind).
    pub fn palette(&self) -> &[Mat4] {
        &self.palette
    }

    /// The drawn frame's model matrices.
    pub fn models(&self) -> &[Mat4] {
        &self.models
    }

    /// The drawn frame's model-to-world transform.
    pub fn world(&self) -> Mat4 {
        self.world
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use crate::sim::player::{DT, Input};
    use crate::sim::world::Level;
    use crate::sim::{Body, Sim};

    fn knight() -> Arc<Character> {
        Arc::new(Character::knight().expect("the knight loads"))
    }

    fn walk_right() -> Input {
        Input {
            move_x: 1.0,
            ..Input::default()
        }
    }

    fn step(sim: &mut Sim, input: &Input, drawn: &mut DrawnPose) {
        sim.step(input);
        sim.pose(DT);
        let body = sim.world.get::<&Body>(sim.player).unwrap();
        drawn.record(&body.pipeline);
    }

    fn max_gap(a: &[Mat4], b: &[Mat4]) -> f32 {
        a.iter()
            .zip(b)
            .map(|(a, b)| (a.w_axis - b.w_axis).length())
            .fold(0.0, f32::max)
    }

    /// At alpha 1 the drawn frame is the pipeline's own pose, palette and
    /// placement (its final locals are its final models); at 0 it is the
    /// step before's.
    #[test]
    fn the_ends_are_the_pipelines_own_frames() {
        let c = knight();
        let mut sim = Sim::new(Level::builtin(), c.clone());
        let mut drawn = DrawnPose::new(&c);
        let mut before: Option<(Vec<Mat4>, Mat4)> = None;
        for i in 0..200 {
            step(&mut sim, &walk_right(), &mut drawn);
            let body = sim.world.get::<&Body>(sim.player).unwrap();
            let p = &body.pipeline;
            if let Some((models, world)) = &before {
                drawn.update(&c, 0.0);
                assert!(max_gap(drawn.models(), models) < 1e-5, "step {i}");
                assert!(drawn.world().abs_diff_eq(*world, 1e-5));
            }
            drawn.update(&c, 1.0);
            assert!(
                max_gap(drawn.models(), &p.models) < 1e-4,
                "step {i}: {}",
                max_gap(drawn.models(), &p.models)
            );
            let pal = p.palette();
            for (a, b) in drawn.palette().iter().zip(pal) {
                assert!(a.abs_diff_eq(*b, 1e-4), "step {i}");
            }
            assert!(drawn.world().abs_diff_eq(p.world, 1e-5), "step {i}");
            before = Some((p.models.clone(), p.world));
        }
    }

    /// Half way between two walking steps, the limbs and the body are
    /// drawn between where they were and where they are: every joint's
    /// model position near the midpoint of its two steps, and the frame
    /// different from both.
    #[test]
    fn a_frame_between_steps_is_between_them() {
        let c = knight();
        let mut sim = Sim::new(Level::builtin(), c.clone());
        let mut drawn = DrawnPose::new(&c);
        for _ in 0..80 {
            step(&mut sim, &walk_right(), &mut drawn);
        }
        drawn.update(&c, 0.0);
        let a = drawn.models().to_vec();
        let wa = drawn.world();
        drawn.update(&c, 1.0);
        let b = drawn.models().to_vec();
        let wb = drawn.world();
        drawn.update(&c, 0.5);
        let m = drawn.models();
        assert!(max_gap(m, &a) > 1e-3 && max_gap(m, &b) > 1e-3);
        for ((m, a), b) in m.iter().zip(&a).zip(&b) {
            let mid = 0.5 * (a.w_axis + b.w_axis);
            let span = (a.w_axis - b.w_axis).length();
            assert!((m.w_axis - mid).length() <= 0.1 * span + 1e-4);
        }
        let mid = 0.5 * (wa.w_axis + wb.w_axis);
        assert!((drawn.world().w_axis - mid).length() < 1e-5);
        assert!((wa.w_axis - wb.w_axis).length() > 0.01, "walking");
    }

    /// The facing turns between steps too: a turn around is drawn at every
    /// frame's own angle, never a pop from one step's facing to the next.
    #[test]
    fn the_facing_turn_is_blended() {
        let c = knight();
        let mut sim = Sim::new(Level::builtin(), c.clone());
        let mut drawn = DrawnPose::new(&c);
        for _ in 0..60 {
            step(&mut sim, &walk_right(), &mut drawn);
        }
        let left = Input {
            move_x: -1.0,
            ..Input::default()
        };
        let yaw = |m: Mat4| {
            let x = m.transform_vector3(glam::Vec3::X);
            x.z.atan2(x.x)
        };
        let mut turned = 0;
        for _ in 0..60 {
            step(&mut sim, &left, &mut drawn);
            drawn.update(&c, 0.0);
            let a = yaw(drawn.world());
            drawn.update(&c, 1.0);
            let b = yaw(drawn.world());
            drawn.update(&c, 0.5);
            let m = yaw(drawn.world());
            let d = |x: f32, y: f32| {
                let r = (x - y).rem_euclid(std::f32::consts::TAU);
                r.min(std::f32::consts::TAU - r)
            };
            if d(a, b) > 0.01 {
                turned += 1;
                assert!((d(a, m) - d(m, b)).abs() < 0.1 * d(a, b) + 1e-4);
                assert!(d(a, m) > 0.3 * d(a, b));
            }
        }
        assert!(turned >= 3, "the knight turned over {turned} steps");
    }

    /// A teleport is drawn where it lands: after a snap, or a jump longer
    /// than [`DRAWN_TELEPORT`], every frame until the next step shows the
    /// latest step as it is.
    #[test]
    fn teleports_are_not_blended() {
        let c = knight();
        let mut sim = Sim::new(Level::builtin(), c.clone());
        let mut drawn = DrawnPose::new(&c);
        for _ in 0..80 {
            step(&mut sim, &walk_right(), &mut drawn);
        }
        assert!(drawn.blends());
        drawn.snap();
        drawn.update(&c, 0.0);
        let at0 = drawn.models().to_vec();
        let w0 = drawn.world();
        drawn.update(&c, 1.0);
        assert_eq!(at0, drawn.models());
        assert_eq!(w0, drawn.world());
        // Far away in one step: not blended either.
        let spawn = sim.player_state().pos;
        sim.respawn_player(spawn + glam::Vec2::new(5.0, 0.0));
        sim.pose(DT);
        {
            let body = sim.world.get::<&Body>(sim.player).unwrap();
            drawn.record(&body.pipeline);
        }
        assert!(!drawn.blends());
        drawn.update(&c, 0.0);
        let body = sim.world.get::<&Body>(sim.player).unwrap();
        assert!(drawn.world().abs_diff_eq(body.pipeline.world, 1e-5));
    }

    /// Recording and drawing reuse the buffers: no allocation in steady
    /// state (the buffers' addresses and capacities stay).
    #[test]
    fn drawing_reuses_its_buffers() {
        let c = knight();
        let mut sim = Sim::new(Level::builtin(), c.clone());
        let mut drawn = DrawnPose::new(&c);
        step(&mut sim, &walk_right(), &mut drawn);
        drawn.update(&c, 0.5);
        let ptrs = |d: &DrawnPose| {
            [
                d.locals.as_ptr() as usize,
                d.models.as_ptr() as usize,
                d.palette.as_ptr() as usize,
            ]
        };
        let before = ptrs(&drawn);
        let mut steps = [
            drawn.prev.locals.as_ptr() as usize,
            drawn.cur.locals.as_ptr() as usize,
        ];
        steps.sort_unstable();
        for k in 0..100 {
            step(&mut sim, &walk_right(), &mut drawn);
            drawn.update(&c, k as f32 / 100.0);
            assert_eq!(ptrs(&drawn), before);
            let mut now = [
                drawn.prev.locals.as_ptr() as usize,
                drawn.cur.locals.as_ptr() as usize,
            ];
            now.sort_unstable();
            assert_eq!(now, steps);
        }
    }
}
