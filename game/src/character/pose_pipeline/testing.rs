//! Helpers the stages' tests share: a joint speed measure and a knight on a
//! made level.

use glam::{Quat, Vec2};

use crate::character::Character;

/// The largest angular speed, rad/s, of a joint turning from `prev` to
/// `now` (local rotations) in `dt` seconds.
pub(super) fn fastest_joint(prev: &[Quat], now: &[Quat], dt: f32) -> f32 {
    prev.iter()
        .zip(now)
        .map(|(a, b)| 2.0 * a.dot(*b).abs().min(1.0).acos() / dt)
        .fold(0.0, f32::max)
}

/// The local rotations of `pipeline`'s current pose, in joint order.
pub(super) fn local_rotations(pipeline: &super::PosePipeline) -> Vec<Quat> {
    pipeline.pose.locals.iter().map(|t| t.rotation).collect()
}

/// The knight at `spawn` on a level of these ground `segments` (no
/// ladders) whose exit is at `exit`.
pub(super) fn knight_on(
    name: &str,
    segments: Vec<crate::sim::world::GroundSegment>,
    spawn: Vec2,
    exit: Vec2,
) -> crate::sim::Sim {
    let level = crate::sim::world::Level::from_profile(name, segments, vec![], spawn, exit, -10.0);
    crate::sim::Sim::new(level, std::sync::Arc::new(Character::knight().unwrap()))
}

/// The knight alone on flat ground from `x0` to `x1`, spawned `h`
/// metres above it at x = 0 (the exit near the right end).
pub(super) fn knight_on_flat_ground(x0: f32, x1: f32, h: f32) -> crate::sim::Sim {
    use crate::sim::world::GroundSegment;
    knight_on(
        "flat",
        vec![GroundSegment::ground(x0, x1, 0.0, 0.0)],
        Vec2::new(0.0, h),
        Vec2::new(x1 - 1.0, 0.0),
    )
}

/// One frame of `sim` with the player holding right (running where `run`),
/// posed: what the foot tests step their knights with.
pub(super) fn step_right(sim: &mut crate::sim::Sim, run: bool) {
    use crate::sim::player::{DT, Input};
    sim.step(&Input {
        move_x: 1.0,
        run,
        ..Input::default()
    });
    sim.pose(DT);
}
