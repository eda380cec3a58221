//! Stage 2: place the model in the world (the end of
//! [`super::PoseStage::LocalToModel`]).
//!
//! Reads the player (position, velocity, facing, locomotion, ladder move),
//! the level's ladders and, at a step up, its floors (a flight's treads),
//! and the rig's forward axis and climb distance; writes the model-to-world
//! transform (returned) and the placement's memory in `Smoothing`: the
//! facing's turn spring, the root offset's springs (a step, a ladder's
//! depth, an unexplained rise in the air, a nudge at rest), the ride up a
//! flight of stairs, a landing's give (`absorb`, applied by foot IK), and the ground
//! and climb weights that fade foot and ladder IK in and out. A teleport
//! (or the first frame) resets all of `Smoothing`.

use std::f32::consts::PI;

use glam::{Mat4, Quat, Vec3};

use super::frame::{FrameInput, Smoothing};
use super::math::spring_decay;
use crate::character::Character;
use crate::sim::player::Locomotion;
use crate::sim::world::{FloorHit, FloorKind};

/// A landing's give: fall speeds above `ABSORB_MIN_SPEED` (m/s, a hop's)
/// lower the pelvis toward `ABSORB_PER_SPEED` metres per m/s more, up to
/// `ABSORB_MAX` (chosen by eye: a give a player sees, leaving most of the
/// pelvis drop's `MAX_PELVIS_DROP` for the feet's own reach), eased in and out on a spring of `ABSORB_OMEGA` rad/s aimed there
/// for `ABSORB_HOLD` seconds. The spring gets about 60 % of the way: a
/// 1.5 m drop (5.4 m/s) gives 5 cm, a jump in place 4.4 cm.
pub(super) const ABSORB_MIN_SPEED: f32 = 2.0;
pub(super) const ABSORB_PER_SPEED: f32 = 0.025;
pub(super) const ABSORB_MAX: f32 = 0.12;
pub(super) const ABSORB_OMEGA: f32 = 16.0;
pub(super) const ABSORB_HOLD: f32 = 0.12;
/// Seconds to fade foot IK in after landing.
pub(super) const GROUND_FADE: f32 = 0.1;
/// Seconds to fade foot IK out after leaving the ground: slower than in,
/// since a pelvis lowered for the feet (up to 26 cm on Kenney's short legs
/// running up a 45° slope) rises back over the fade, and over 0.1 s it
/// turned the legs faster than the joint speed limit as he jumped off (the
/// limit acted on 1 % fewer frames of the shared humanoids' runs at 0.2 s;
/// no better at 0.3).
pub(super) const GROUND_FADE_OUT: f32 = 0.2;
/// Seconds to fade ladder IK in and out.
pub(super) const CLIMB_FADE: f32 = 0.15;
/// Natural frequency of turning (left/right and onto a ladder), rad/s: a
/// critically damped spring, a half turn 95 % done in 0.19 s, turning at
/// most 29 rad/s.
pub(super) const TURN_OMEGA: f32 = 25.0;
/// Natural frequency of the root settling after a step or onto a ladder,
/// rad/s (a critically damped spring: 95 % of the way in 0.4 s). Its
/// largest acceleration, ω² times the offset, keeps the frame-to-frame
/// change of the root's motion near a centimetre for the 0.3 m offsets of
/// a step or a ladder's depth.
pub(super) const ROOT_OMEGA: f32 = 12.0;
/// Natural frequency of the spring easing the root offset's way off a
/// ladder, 1/s.
pub(super) const AIM_OMEGA: f32 = 24.0;
/// A step up within this run of the one before, also up, is a flight of
/// stairs, metres: the root rides a line through its steps instead of
/// easing over each from rest. Eased step by step (critically damped at
/// [`ROOT_OMEGA`], which lags a steady climb by twice its speed over ω),
/// the root of a runner up the made level's half-tile stairs lagged
/// 0.15–0.39 m under the body (Kenney's legs are 0.54 m long), folding his
/// stance leg until his thigh turned 34 rad/s. Riding, each step's offset
/// is taken up over the tread the body stands on (to its far edge, the
/// next riser), or after the flight's last step (no level tread a step up
/// ahead) eased out over twice the flight's tread. Over the release sweep:
/// soles under the floor 62 → 50 foot-frames, limited frames 935 → 912.
/// Not down stairs: there a runner's landing two treads down came 13.5 mm
/// short of its tread with the root lower sooner (the pelvis's drop, eased
/// for the old root, fell behind; the knight on the made level, frame
/// 104).
pub(super) const STAIR_RUN: f32 = 1.2;
/// The shortest run between two steps taken as a flight's tread, metres.
pub(super) const STAIR_MIN_TREAD: f32 = 0.15;
/// The slowest a body moves across for its steps to be ridden as stairs,
/// m/s (a body stepping up in place is not climbing a flight).
pub(super) const STAIR_MIN_SPEED: f32 = 0.1;
/// How far above and below a floor the level is probed for a flight's
/// treads, metres.
pub(super) const STAIR_PROBE: f32 = 0.1;
/// A vertical move of the feet position larger than this in one frame is a
/// step (up or down a stair), smoothed instead of followed at once, metres.
pub(super) const STEP_SNAP: f32 = 0.08;
/// A vertical move in the air this much larger than the velocity explains
/// in one frame is eased like a step, metres.
pub(super) const AIR_SNAP: f32 = 0.02;
/// Largest move across of a body at rest that the root eases, metres (a
/// larger one is a teleport, followed at once).
pub(super) const NUDGE: f32 = 0.1;
/// A move larger than this in one frame is a teleport (respawn): the
/// pipeline forgets its smoothing, metres.
pub(super) const TELEPORT: f32 = 2.0;

/// Step 2: the model-to-world transform, with smoothed turns and steps.
/// Always inlined into [`super::PosePipeline::run_stage`]'s builds (its
/// only caller), so that it is built for AVX2 with the rest of the stage.
#[inline(always)]
pub(super) fn place(c: &Character, input: &FrameInput, s: &mut Smoothing) -> Mat4 {
    let p = input.player;
    let dt = input.dt.max(0.0);
    let on_ladder = match p.state {
        Locomotion::Ladder(i) => input.level.ladders.get(i).map(|l| (i, l)),
        _ => None,
    };
    // Climbing over a ladder's top, the body turns from the ladder to the
    // floor, leaves the ladder's depth and hands the limbs from the rungs
    // to the floor by how far across it is (0 on the rungs, 1 standing).
    let off = match (on_ladder, p.ladder_move) {
        (Some(_), Some(o)) => o.off_ladder(),
        _ => 0.0,
    };
    let side_yaw = match p.ladder_move {
        Some(o) if o.side != 0.0 => o.side,
        _ => p.facing,
    };
    let standing_yaw = if side_yaw >= 0.0 { 0.0 } else { PI };
    let target_yaw = if on_ladder.is_some() {
        0.5 * PI + (standing_yaw - 0.5 * PI) * off
    } else {
        standing_yaw
    };
    let target_offset = match on_ladder {
        Some((_, l)) => Vec3::new(l.x - p.pos.x, 0.0, c.rig.file.climb_rung_distance) * (1.0 - off),
        None => Vec3::ZERO,
    };
    if !s.initialized || (p.pos - s.prev_pos).length() > TELEPORT {
        *s = Smoothing {
            initialized: true,
            prev_pos: p.pos,
            yaw: target_yaw,
            root_offset: target_offset,
            root_vel: Vec3::ZERO,
            stair_x: f32::NAN,
            stair_step: 0.0,
            stair_w: 0.0,
            stair_h: 0.0,
            stair_last: false,
            aim_offset: target_offset,
            aim_vel: Vec3::ZERO,
            prev_grounded: p.state == Locomotion::Ground,
            prev_vel_y: p.vel.y,
            prev_vel_x: p.vel.x,
            absorb: 0.0,
            absorb_vel: 0.0,
            absorb_depth: 0.0,
            absorb_hold: 0.0,
            ground_weight: if p.state == Locomotion::Ground {
                1.0
            } else {
                0.0
            },
            climb_weight: if on_ladder.is_some() { 1.0 } else { 0.0 },
            foot_ground: [p.pos.y; 2],
            foot_offset: [0.0; 2],
            foot_reach: [0.0; 2],
            swing_from: [p.pos.y; 2],
            swing_from_x: [f32::NAN; 2],
            land_shift: [0.0; 2],
            lift_shift: [0.0; 2],
            lifting: [false; 2],
            foot_slope: [0.0; 2],
            foot_align: [0.0; 2],
            foot_tilt: [0.0; 2],
            toe_bend: [0.0; 2],
            heel: [0.0; 2],
            leg_span: [f32::NAN; 2],
            knee_cos: [f32::NAN; 2],
            out_of_reach: [false; 2],
            land_tilt: [(f32::NAN, 0.0, 0.0); 2],
            sole_lift: [0.0; 2],
            pivot: [None; 2],
            roll: [Vec3::ZERO; 2],
            lock: [None; 2],
            release: [Vec3::ZERO; 2],
            release_from: [Vec3::ZERO; 2],
            release_t: [1.0; 2],
            release_lift: [false; 2],
            turn_step: [false; 2],
            step_clear: [0.0; 2],
            turning: false,
            settle_left: 0.0,
            yaw_vel: 0.0,
            root_lag: Vec3::ZERO,
            pelvis_drop: 0.0,
            knee_correction: [0.0; 2],
            ladder: on_ladder.map(|(i, _)| i),
            ladder_hold: [Vec3::ZERO; 4],
            arm_let_go: [0.0; 2],
            arm_hold: [0.0; 2],
            platform: s.platform,
            limit_ready: false,
            limit_hold: [0.0; 2],
            limit_lag: [0.0; 2],
            contact_ahead: [0.0; 2],
            new_lock: [false; 2],
            foot_shown: [None; 2],
            foot_free: [Vec3::ZERO; 2],
        };
    }
    // A step up or down a stair on the ground: the root eases over it.
    // A jump's rise or a landing's fall is motion, followed as it is.
    // In the air, a rise the velocity does not explain (the feet riding
    // over an edge as a jump rises past it) is eased the same way.
    let dy = p.pos.y - s.prev_pos.y;
    let grounded = p.state == Locomotion::Ground;
    if grounded && s.prev_grounded {
        if dy.abs() > STEP_SNAP {
            // Only the step: the motion the last frame had (down a slope
            // into the step) goes on. Eased whole, the root stopped dead
            // from a 45° descent's 2.4 m/s at the stair below its foot, a
            // 3.3 cm snap (`tests/levels/descents.tmx`). (Not a step's own
            // move, the frame after one.)
            let going = s.prev_vel_y * dt;
            let going = if going.abs() <= STEP_SNAP { going } else { 0.0 };
            let step = dy - going;
            s.root_offset.y -= step;
            // A step up a tread after another step up: a flight of
            // stairs, which the root rides (see `STAIR_RUN`).
            let run = (p.pos.x - s.stair_x).abs();
            let on_stairs = step > 0.0
                && s.stair_step > 0.0
                && (STAIR_MIN_TREAD..=STAIR_RUN).contains(&run)
                && p.vel.x.abs() > STAIR_MIN_SPEED;
            if on_stairs {
                // The aim at the step: as far under the body as the ride
                // had still to go, and the step.
                s.stair_h = stair_aim(s, p.pos.x) - step;
                // Another step a tread on (a level tread a step higher,
                // within a third of a step, half a tread past the next
                // riser): the ride goes on at
                // the stairs' pace to the far edge of the tread the body
                // now stands on. None: it eases out over twice the
                // flight's tread (the floor past the last step may run
                // on, or rise into a slope).
                let dir = p.vel.x.signum();
                let level = |h: &FloorHit| h.segment.y0 == h.segment.y1;
                let next = input.level.floor_below(
                    p.pos.x + dir * 1.5 * run,
                    p.pos.y + 2.0 * step + STAIR_PROBE,
                    4.0 * step + 2.0 * STAIR_PROBE,
                );
                s.stair_last =
                    !next.is_some_and(|h| level(&h) && (h.y - p.pos.y - step).abs() < 0.35 * step);
                let tread = input
                    .level
                    .floor_below(p.pos.x, p.pos.y + 0.5 * STAIR_PROBE, 2.0 * STAIR_PROBE)
                    .filter(level);
                s.stair_w = if s.stair_last {
                    2.0 * run
                } else {
                    tread.map_or(run, |t| {
                        let edge = if dir > 0.0 {
                            t.segment.x1
                        } else {
                            t.segment.x0
                        };
                        (edge - p.pos.x).abs().max(STAIR_MIN_TREAD)
                    })
                };
            } else {
                s.stair_h = 0.0;
            }
            s.stair_x = p.pos.x;
            s.stair_step = step;
        } else {
            // The body setting off up (or down) a slope while the root
            // still eases the same way over a step: the root's own ease
            // gives way to the body's new motion, as far as that goes,
            // so the root does not move with both at once. Running up the
            // made level's stairs into its 45° climb, the root still
            // rising over the last stair went up the climb's first frame
            // by both, an 18.6 mm snap on every model's run (4.8 mm now).
            let dv = p.vel.y - s.prev_vel_y;
            let closing = s.root_offset.y * s.root_vel.y < 0.0;
            if closing && dv * s.root_vel.y > 0.0 {
                let t = dv.abs().min(s.root_vel.y.abs());
                s.root_vel.y -= t.copysign(s.root_vel.y);
            }
        }
    } else if p.state == Locomotion::Air || grounded {
        // In the air against this step's velocity; landing against the
        // fall's (a landing on a rising slope lifts the feet: the root
        // goes on down a little and comes back up).
        let v = if grounded { s.prev_vel_y } else { p.vel.y };
        let unexplained = dy - v * dt;
        if unexplained.abs() > AIR_SNAP {
            s.root_offset.y -= unexplained;
        }
    }
    // On the rungs the body sliding clear of a wall beside the ladder
    // moves the feet position across without a velocity: the root
    // keeps its place and eases there.
    if on_ladder.is_some() && p.ladder_move.is_none() {
        let unexplained = p.pos.x - s.prev_pos.x - p.vel.x * dt;
        if unexplained.abs() > 1e-4 && unexplained.abs() < TELEPORT {
            s.root_offset.x -= unexplained;
        }
    }
    // Off the ladder, a body at rest nudged across (a lift's side
    // settling against it) keeps its place and eases there; one a
    // moving platform carries is followed.
    let dx = p.pos.x - s.prev_pos.x;
    let carried = p.carry_vx != 0.0 || matches!(p.floor, FloorKind::Platform(_));
    let at_rest = p.vel.x.abs() < 1e-3 && s.prev_vel_x.abs() < 1e-3 && !carried;
    if on_ladder.is_none() && at_rest && dx.abs() > 1e-4 && dx.abs() < NUDGE {
        s.root_offset.x -= dx;
    }
    // Landing, the legs give in proportion to the fall speed: the
    // pelvis eases down (a spring, so no joint starts with a jerk),
    // holds a moment and comes back up.
    if grounded && !s.prev_grounded {
        let impact = (-s.prev_vel_y - ABSORB_MIN_SPEED).max(0.0);
        s.absorb_depth = (impact * ABSORB_PER_SPEED).min(ABSORB_MAX);
        s.absorb_hold = ABSORB_HOLD;
    }
    let aim = if s.absorb_hold > 0.0 {
        s.absorb_depth
    } else {
        0.0
    };
    s.absorb_hold -= dt;
    let (x, v) = spring(s.absorb - aim, s.absorb_vel, ABSORB_OMEGA, dt);
    s.absorb = aim + x;
    s.absorb_vel = v;
    s.prev_grounded = grounded;
    s.prev_vel_y = p.vel.y;
    s.prev_vel_x = p.vel.x;
    s.prev_pos = p.pos;
    let mut d = wrap_pi(target_yaw - s.yaw);
    if d.abs() > PI - 1e-3 {
        // A half turn goes through facing the camera, never away from it.
        d = if s.yaw.cos() >= 0.0 { -PI } else { PI };
    }
    // A critically damped spring: a turn starts and ends without a
    // jerk (a first-order ease turned 0.7 rad in a turn's first frame).
    let (x, v) = spring(-d, s.yaw_vel, TURN_OMEGA, dt);
    s.yaw = wrap_pi(s.yaw + x + d);
    s.yaw_vel = v;
    s.turning = wrap_pi(target_yaw - s.yaw).abs() > 0.05;
    // A critically damped spring: the offset's velocity changes
    // smoothly, so an ease never starts or stops with a jerk.
    // Leaving a ladder, the root's way out of its depth is eased on a
    // spring of its own first, so the root's ease starts without a jerk
    // (a spring from rest toward a 0.3 m offset starts at its full
    // acceleration: a 1.5 cm snap). Onto a ladder, the hands and feet
    // reach ahead for the rungs while the root eases in (`root_lag`),
    // so that way is not slowed.
    if on_ladder.is_some() {
        s.aim_offset = target_offset;
        s.aim_vel = Vec3::ZERO;
    } else {
        let (x, v) = spring(s.aim_offset - target_offset, s.aim_vel, AIM_OMEGA, dt);
        s.aim_offset = target_offset + x;
        s.aim_vel = v;
    }
    // Up a flight of stairs the root's aim rides a line through the steps
    // (see `STAIR_RUN`), its motion fed forward so the spring does not lag
    // it.
    if !grounded || on_ladder.is_some() {
        s.stair_h = 0.0;
        s.stair_x = f32::NAN;
    }
    let x_next = p.pos.x + p.vel.x * dt;
    let ride_from = stair_aim(s, p.pos.x);
    let ride_to = stair_aim(s, x_next);
    let ride_vel = if dt > 0.0 {
        (ride_to - ride_from) / dt
    } else {
        0.0
    };
    let (x, v) = spring(
        s.root_offset - s.aim_offset - Vec3::Y * ride_from,
        s.root_vel - Vec3::Y * ride_vel,
        ROOT_OMEGA,
        dt,
    );
    s.root_offset = s.aim_offset + Vec3::Y * ride_to + x;
    s.root_vel = v + Vec3::Y * ride_vel;
    if (x_next - s.stair_x).abs() >= s.stair_w {
        s.stair_h = 0.0;
    }
    s.root_lag = target_offset - s.root_offset;
    if (s.root_offset - target_offset).length() < 1e-5
        && s.root_vel.length() < 1e-4
        && s.aim_vel.length() < 1e-4
        && s.stair_h == 0.0
    {
        s.root_offset = target_offset;
        s.root_vel = Vec3::ZERO;
        s.aim_offset = target_offset;
        s.aim_vel = Vec3::ZERO;
    }
    let ground = if p.state == Locomotion::Ground {
        1.0
    } else {
        0.0
    };
    let fade = if ground > s.ground_weight {
        GROUND_FADE
    } else {
        GROUND_FADE_OUT
    };
    s.ground_weight = step_toward(s.ground_weight, ground, dt / fade);
    let climb = match (on_ladder, p.ladder_move) {
        (Some(_), Some(m)) => m.hold(),
        (Some(_), None) => 1.0,
        _ => 0.0,
    };
    s.climb_weight = step_toward(s.climb_weight, climb, dt / CLIMB_FADE);
    if let Some((i, _)) = on_ladder {
        s.ladder = Some(i);
    }

    let fwd = Vec3::new(c.rig.forward.x, 0.0, c.rig.forward.z).normalize_or(Vec3::X);
    let align = Quat::from_rotation_arc(fwd, Vec3::X);
    let rotation = Quat::from_rotation_y(s.yaw) * align;
    let origin = Vec3::new(p.pos.x, p.pos.y, 0.0) + s.root_offset;
    Mat4::from_rotation_translation(rotation, origin)
}

/// The root's aim (its offset from the body, metres) over a flight of
/// stairs with the body at `x` (see [`STAIR_RUN`]): the offset at the last
/// step, taken up along the ride's run from it, straight (at the stairs'
/// pace), or after the flight's last step easing out at a constant
/// deceleration (`2u − u²`: the pace at the step, none at the end). 0 off
/// stairs.
fn stair_aim(s: &Smoothing, x: f32) -> f32 {
    if s.stair_h == 0.0 || s.stair_w <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    let u = ((x - s.stair_x).abs() / s.stair_w).clamp(0.0, 1.0);
    let f = if s.stair_last { 2.0 * u - u * u } else { u };
    s.stair_h * (1.0 - f)
}

/// One step of a critically damped spring pulling `x` (moving at `v`) to
/// zero with natural frequency `omega` (rad/s), solved exactly for `dt`:
/// the new offset and velocity.
pub(super) fn spring<T>(x: T, v: T, omega: f32, dt: f32) -> (T, T)
where
    T: Copy
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<f32, Output = T>,
{
    let j = v + x * omega;
    let e = spring_decay(omega, dt);
    ((x + j * dt) * e, (v - j * (omega * dt)) * e)
}

pub(super) fn step_toward(value: f32, target: f32, step: f32) -> f32 {
    if value < target {
        (value + step).min(target)
    } else {
        (value - step).max(target)
    }
}

pub(super) fn wrap_pi(a: f32) -> f32 {
    let b = a + PI;
    // Angles already in range (nearly all) skip `rem_euclid`'s software
    // `fmodf`, which returns `b` itself there.
    if (0.0..2.0 * PI).contains(&b) {
        return b - PI;
    }
    b.rem_euclid(2.0 * PI) - PI
}
#[cfg(test)]
mod tests {
    use super::super::testing::{fastest_joint, knight_on_flat_ground, local_rotations};
    use super::*;

    /// How far the knight's root falls under the line through a flight's
    /// step edges (its riser feet) at most, metres, running (or walking)
    /// up `n` stairs of `riser` on `tread`, over the flight's middle
    /// treads (the ride starts at the second step).
    fn root_under_stairs(run: bool, riser: f32, tread: f32, n: usize) -> f32 {
        use super::super::testing::{knight_on, step_right};
        use crate::sim::Body;
        use crate::sim::world::GroundSegment;
        let x0 = 4.0;
        let mut segments = vec![GroundSegment::ground(-5.0, x0, 0.0, 0.0)];
        for k in 0..n {
            let (x, y) = (x0 + k as f32 * tread, (k + 1) as f32 * riser);
            segments.push(GroundSegment::ground(x, x + tread, y, y));
        }
        let end = x0 + n as f32 * tread;
        let top = n as f32 * riser;
        segments.push(GroundSegment::ground(end, end + 20.0, top, top));
        let mut sim = knight_on(
            "stairs",
            segments,
            glam::Vec2::new(0.0, 0.0),
            glam::Vec2::new(end + 19.0, top),
        );
        let mut under = 0.0f32;
        for _ in 0..600 {
            step_right(&mut sim, run);
            let x = sim.player_state().pos.x;
            if x < x0 + 2.0 * tread || x > end - tread {
                continue;
            }
            let body = sim.world.get::<&Body>(sim.player).unwrap();
            let root = body.pipeline.world.w_axis.y;
            let line = riser * (x - x0) / tread;
            under = under.max(line - root);
        }
        under
    }

    /// Up a flight of stairs the root rides the line through its steps.
    /// Eased over each step from rest it lagged ever further under it: the
    /// knight running up 0.25 m risers on 0.5 m treads 0.156 m under it
    /// (0.049 riding), walking 0.019 m (none), running up 0.2 m on 0.3 m
    /// 0.263 m (0.111: the steps come every four or five frames, and the
    /// lag of the first step, eased from rest, is still being taken up).
    #[test]
    fn up_a_flight_of_stairs_the_root_rides_its_steps() {
        for (run, riser, tread, most) in [
            (true, 0.25, 0.5, 0.08),
            (false, 0.25, 0.5, 0.01),
            (true, 0.2, 0.3, 0.15),
        ] {
            let under = root_under_stairs(run, riser, tread, 8);
            assert!(
                under < most,
                "run {run}, {riser} on {tread}: {under:.3} m under the steps"
            );
        }
    }

    #[test]
    fn the_root_spring_is_continuous_and_settles() {
        // From rest at an offset, the spring moves off with no jump in
        // velocity and reaches the target without overshooting.
        let (mut x, mut v) = (Vec3::new(0.3, -0.2, 0.1), Vec3::ZERO);
        let dt = 1.0 / 64.0;
        let mut prev_step = Vec3::ZERO;
        for i in 0..64 {
            let (nx, nv) = spring(x, v, ROOT_OMEGA, dt);
            let step = nx - x;
            // Frame-to-frame change of the motion: a centimetre at most.
            assert!((step - prev_step).length() <= 0.01, "frame {i}");
            assert!(
                nx.x >= 0.0 && nx.y <= 0.0 && nx.z >= 0.0,
                "overshoot at {i}"
            );
            prev_step = step;
            (x, v) = (nx, nv);
        }
        assert!(x.length() < 0.01 && v.length() < 0.1, "{x} {v}");
    }

    /// Drops the knight from `h` metres onto flat ground; returns the
    /// deepest pelvis drop after landing, metres, and the largest joint
    /// speed of the landing's frames, rad/s.
    fn landing_give(h: f32) -> (f32, f32) {
        use crate::sim::Body;
        use crate::sim::player::{DT, Input};
        let mut sim = knight_on_flat_ground(-5.0, 5.0, h);
        let (mut deepest, mut fastest) = (0.0f32, 0.0f32);
        let mut prev: Vec<Quat> = Vec::new();
        let mut landed = false;
        for _ in 0..200 {
            sim.step(&Input::default());
            sim.pose(DT);
            let body = sim.world.get::<&Body>(sim.player).unwrap();
            let now = local_rotations(&body.pipeline);
            landed |= sim.player_state().state == Locomotion::Ground;
            if landed {
                deepest = deepest.max(body.pipeline.debug.pelvis_drop);
                fastest = fastest.max(fastest_joint(&prev, &now, DT));
            }
            prev = now;
        }
        (deepest, fastest)
    }

    #[test]
    fn a_landing_gives_in_proportion_to_the_fall() {
        let (low, _) = landing_give(0.1);
        let (mid, mid_speed) = landing_give(1.5);
        let (high, high_speed) = landing_give(3.0);
        // A hop lands at under 2 m/s: no give (what the pelvis drops is
        // foot IK's standing need, under a centimetre). 1.5 m lands at
        // 5.4 m/s, 3 m at 7.7 m/s.
        assert!(low < 0.01, "{low}");
        assert!(mid > low + 0.04 && high > mid + 0.015, "{low} {mid} {high}");
        assert!(high <= ABSORB_MAX + 0.01, "{high}");
        // Eased in and out: the knees bend at walking speeds.
        assert!(
            mid_speed <= 20.0 && high_speed <= 20.0,
            "{mid_speed} {high_speed}"
        );
    }

    #[test]
    fn foot_ik_fades_out_over_ground_fade_out_and_in_over_ground_fade() {
        // Jumping in place: foot IK's weight falls from 1 by DT /
        // GROUND_FADE_OUT a frame once the body leaves the ground, and comes
        // back by DT / GROUND_FADE a frame once it lands (0.1 s both ways
        // before: a pelvis lowered for the feet rose back over 6 frames).
        use crate::sim::Body;
        use crate::sim::player::{DT, Input, Locomotion};
        let mut sim = knight_on_flat_ground(-20.0, 20.0, 0.0);
        for _ in 0..32 {
            sim.step(&Input::default());
            sim.pose(DT);
        }
        let mut weights = Vec::new();
        for frame in 0..96 {
            sim.step(&Input {
                jump_pressed: frame == 0,
                jump_held: frame < 20,
                ..Input::default()
            });
            sim.pose(DT);
            let body = sim.world.get::<&Body>(sim.player).unwrap();
            let on_ground = sim.player_state().state == Locomotion::Ground;
            weights.push((on_ground, body.pipeline.debug.ground_weight));
        }
        let off = weights
            .iter()
            .position(|w| !w.0)
            .expect("the jump leaves the ground");
        let back = off + weights[off..].iter().position(|w| w.0).expect("and lands");
        // Out: one step of DT / GROUND_FADE_OUT a frame.
        for k in 0..4 {
            let want = 1.0 - (k + 1) as f32 * DT / GROUND_FADE_OUT;
            assert!(
                (weights[off + k].1 - want).abs() < 1e-4,
                "out {k}: {weights:?}"
            );
        }
        // In: from what was left, DT / GROUND_FADE a frame.
        let before = weights[back - 1].1;
        let want = (before + DT / GROUND_FADE).min(1.0);
        assert!((weights[back].1 - want).abs() < 1e-4, "in: {weights:?}");
    }

    #[test]
    fn turning_around_passes_through_the_camera_over_several_frames() {
        use crate::sim::Body;
        use crate::sim::player::{DT, Input};
        let mut sim = knight_on_flat_ground(-20.0, 20.0, 0.0);
        let mut yaws = Vec::new();
        for frame in 0..160 {
            let move_x = if frame < 64 { 1.0 } else { -1.0 };
            sim.step(&Input {
                move_x,
                ..Input::default()
            });
            sim.pose(DT);
            let body = sim.world.get::<&Body>(sim.player).unwrap();
            // The model's forward (+X in the world when facing right).
            let fwd = body.pipeline.world.transform_vector3(
                Quat::from_rotation_arc(
                    Vec3::new(
                        body.character.rig.forward.x,
                        0.0,
                        body.character.rig.forward.z,
                    )
                    .normalize(),
                    Vec3::X,
                )
                .inverse()
                    * Vec3::X,
            );
            yaws.push(fwd.z.atan2(fwd.x));
        }
        let steps: Vec<f32> = yaws
            .windows(2)
            .map(|w| wrap_pi(w[1] - w[0]).abs())
            .collect();
        let turning = steps.iter().filter(|&&d| d > 0.01).count();
        let fastest = steps.iter().copied().fold(0.0, f32::max);
        // Half a turn, no frame turning more than 0.5 rad (32 rad/s), over
        // at least eight frames, facing the camera on the way (+Z).
        assert!(fastest <= 0.5, "{fastest} rad in one frame");
        assert!(turning >= 8, "{turning} frames");
        let toward_camera = yaws
            .iter()
            .any(|&y| (y - std::f32::consts::FRAC_PI_2).abs() < 0.3);
        assert!(toward_camera, "{yaws:?}");
    }
}
