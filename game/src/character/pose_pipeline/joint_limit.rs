//! Stage 5: the joint speed limit ([`super::PoseStage::Limit`]).
//!
//! [`limit_joint_speed`] reads the frame's input (IK on, dt), the
//! model-to-world transform, the limbs' knee and elbow directions IK chose,
//! the feet's, hands' and rung feet's [`LimbDebug`] (what each holds) and
//! the previous frame's final local rotations; it writes the local pose and
//! model matrices (each joint at most [`MAX_JOINT_SPEED`] from the previous
//! frame, holding limbs solved back onto their holds), the count of
//! limited joints and any lock it undoes in [`PoseDebug`], the feet's lag,
//! hold shares, locks and shown places in `Smoothing`, and this frame's
//! final rotations as the next frame's reference.

use animation::ik::two_bone::{KneeStrategy, Pole, TwoBoneOptions};
use animation::{Pose, limit_rotations, local_to_model};
use glam::{Mat4, Quat, Vec2, Vec3};

use super::foot_ik::{LOCK_CONTACT, LOCK_SETTLED, RESTEP_DRIFT, STANDING_SPEED, let_go};
use super::frame::{FrameInput, LimbDebug, PoseDebug, Smoothing};
use super::limb::solve_onto;
use super::math::{pos, rotation, smoothstep};
use crate::character::{Character, Limb};
use crate::sim::player::Locomotion;

/// The fastest any joint turns relative to its parent, rad/s (see
/// [`limit_joint_speed`]). The knight's clips turn their
/// joints at up to about 17 rad/s (the run); IK's answers to constraints
/// that change late (a foot swinging up a slope, a hand passing close to its
/// shoulder, the pelvis lowering for a landing) reached 23–28 rad/s on a
/// frame or two, which reads as a snap. Held just under the 20 rad/s at
/// which the motion metrics call a turn a pop.
pub const MAX_JOINT_SPEED: f32 = 19.0;
/// The fastest a locked foot's leg may turn to hold it, rad/s: the speed at
/// which the motion metrics call a turn a pop. A hold that needs more lets
/// go (see [`limit_joint_speed`]).
pub(super) const HOLD_POP_SPEED: f32 = 20.0;
/// How fast the joints of a leg the limit slows while its foot is held may
/// turn, rad/s: a foot on its way onto the ground or just locked, or one
/// let go of because holding it would pop ([`HOLD_POP_SPEED`]). Just under
/// the 20 rad/s pop, not [`MAX_JOINT_SPEED`]: the clip has the foot down,
/// and limited at 19 rad/s it was left 10–14 mm off its floor for a frame
/// (RiggedFigure at the foot of the tutorial's climb, 232, and on `long`,
/// 2276; CesiumMan and Kenney on `long`, 2154 and 1567). Over the release
/// sweep: shipped runs failing a 1 cm target 12 → 9 with it for let-go
/// legs alone (10 at 19.5), 7 for both.
pub(super) const LEG_HOLD_LIMIT_SPEED: f32 = 19.9;
/// A holding limb whose end the speed limit moved further than this is
/// solved back onto its hold, metres.
pub(super) const LIMIT_RESOLVE: f32 = 1e-4;
/// A foot standing on a sole point that the speed limit turned further than
/// this is solved back onto its hold too, radians (its ball, 15 cm ahead of
/// the ankle, then moves 0.15 mm).
pub(super) const LIMIT_RESOLVE_TURN: f32 = 1e-3;
/// The shortest time over which a foot coming down onto the ground, not yet
/// locked, takes its full share of the hold from the speed limit, seconds:
/// a run's contact goes from 0 to 1 in a frame, and a leg that lands fully
/// stretched on a descent would bend its knee at 23 rad/s in that frame.
/// Planted (locked) feet are always held in full.
pub(super) const LIMIT_LAND_TIME: f32 = 0.1;
/// How far off its hip→ankle line (a share of the thigh's length) a knee
/// the speed limit held back must lie for the re-solve to keep its side;
/// nearer the line the solve's own pole decides (a nearly straight knee's
/// side is rounding, and keeping it flipped a knee 107 rad/s).
pub(super) const LIMIT_POLE_SHARE: f32 = 0.05;

/// The joint speed limit for one character: what it reads and writes.
pub(super) struct JointLimit<'a> {
    /// The character (skeleton, limbs, rig).
    pub c: &'a Character,
    /// The frame's input.
    pub input: &'a FrameInput<'a>,
    /// Model to world, from placement (read).
    pub world: Mat4,
    /// Each limb's knee or elbow direction from this frame's IK (read).
    pub limb_pole: &'a [Vec3; 4],
    /// Memory between frames (read and written).
    pub smooth: &'a mut Smoothing,
    /// The local pose (read and written).
    pub pose: &'a mut Pose,
    /// Model matrices (read and written).
    pub models: &'a mut [Mat4],
    /// What the limbs hold (read); limited joints and undone locks (written).
    pub debug: &'a mut PoseDebug,
    /// The previous frame's final local rotations (read), replaced by this
    /// frame's (written).
    pub prev_rotations: &'a mut Vec<Quat>,
}

/// Step 5: no joint turns faster than [`MAX_JOINT_SPEED`] relative to
/// its parent ([`animation::limit_rotations`] against the previous
/// frame's final pose).
///
/// A limb holding something whose end the limit moved is then solved
/// back toward where IK had put it, with its knee or elbow nearest the
/// limited one: a limb passing near its own root turns fastest about
/// the root→end line, which costs the hold nothing to slow down.
/// - A locked foot, and a hand or foot on a rung, is solved all the way
///   back: the hold wins over the limit.
/// - A foot coming onto the ground, not locked yet, goes toward it only
///   as fast as the limit lets its leg, and locks once it has caught up.
///   It may touch down a few frames after its clip does; its knee never
///   snaps to make it on time (a run's foot landing stretched on a
///   descent, a stop's crossfade).
///
/// With IK off (the raw animation) and on the first frame after a reset
/// nothing is limited.
#[inline(always)]
pub(super) fn limit_joint_speed(job: JointLimit) {
    let JointLimit {
        c,
        input,
        world,
        limb_pole,
        smooth,
        pose,
        models,
        debug,
        prev_rotations,
    } = job;
    let ready = smooth.limit_ready
        && prev_rotations.len() == pose.locals.len()
        && input.ik_enabled
        && input.dt > 0.0;
    if ready {
        // How much each limb holds (legs, then arms): eased in with its
        // contact weight, all of it from the weight a foot locks at, or
        // locked. A foot coming onto the ground and not locked yet
        // takes its share over at least `LIMIT_LAND_TIME`.
        let holds = |d: &LimbDebug| {
            if d.weight <= 0.0 {
                0.0
            } else if d.locked {
                1.0
            } else {
                smoothstep(d.contact / LOCK_CONTACT)
            }
        };
        let d = &debug;
        let rise = input.dt / LIMIT_LAND_TIME;
        let mut share = [0.0f32; 4];
        for (i, foot) in d.feet.iter().enumerate() {
            // A foot the clip lifts next frame is held as it will be
            // then (it is let go of now, see `UNLOCK_CONTACT`).
            let ground = holds(&LimbDebug {
                contact: foot.contact.min(smooth.contact_ahead[i]),
                ..*foot
            });
            let last = &mut smooth.limit_hold[i];
            *last = if foot.locked && !smooth.new_lock[i] {
                ground
            } else {
                ground.min(*last + rise)
            };
            share[i] = last.max(holds(&d.rung_feet[i]));
        }
        // A hand letting go of its rung holds nothing any more: the limit
        // slows it like any joint (re-solved onto the place it is easing
        // toward, Kenney's shoulder turned 127 rad/s as a short-armed
        // climber stepped off a ladder's top). A hand still reaching for
        // its hold (getting onto a ladder) holds only as much as it has
        // reached: held in full, Kenney's wrist turned 175 rad/s.
        for k in 0..2 {
            share[2 + k] = if smooth.arm_let_go[k] > 0.0 {
                0.0
            } else {
                holds(&d.hands[k]) * d.hands[k].weight.clamp(0.0, 1.0)
            };
        }
        // Feet held but not locked: on their way onto the ground, just
        // locked (see below), or on rungs (held in full, a foot getting
        // onto or off a ladder turned a hip at 22–24 rad/s; paced, it
        // reaches its rung a frame later, and rung contact stays within
        // 0.3 mm on the shipped runs). A hand keeps its grip in full.
        let soft = [0, 1].map(|i| !d.feet[i].locked || smooth.new_lock[i]);
        let limbs: [(Option<&Limb>, f32); 4] = [
            (c.legs.first(), share[0]),
            (c.legs.get(1), share[1]),
            (c.arms.first(), share[2]),
            (c.arms.get(1), share[3]),
        ];
        // Each holding limb's end as IK left it: its matrix, whose
        // rotation is taken only for a limb the limit moved (most frames
        // limit nothing).
        let held = limbs.map(|(limb, w)| {
            let limb = limb.filter(|_| w > 0.0)?;
            models.get(limb.end).copied()
        });
        let feet =
            [c.legs.first(), c.legs.get(1)].map(|l| l.and_then(|l| models.get(l.end)).map(pos));
        let n = limit_rotations(prev_rotations, &mut pose.locals, MAX_JOINT_SPEED * input.dt);
        // Locked feet whose hold would pop their legs (see below).
        let mut let_go_of = [false; 2];
        debug.limited_joints = n as u32;
        if n > 0 {
            local_to_model(&c.skeleton, &pose.locals, models);
            for (k, ((limb, w), held)) in limbs.iter().zip(held).enumerate() {
                let (Some(limb), Some(end)) = (limb, held) else {
                    continue;
                };
                let (now, at) = (pos(&models[limb.end]), pos(&end));
                // A foot standing on a sole point (see `foot_ik`'s roll)
                // is held by its turn too: turned by the limit about its
                // ankle, the point it stands on moved (7 mm in a frame).
                let turned = || {
                    k < 2
                        && debug.feet[k].pivot.is_some()
                        && rotation(&models[limb.end]).angle_between(rotation(&end))
                            > LIMIT_RESOLVE_TURN
                };
                if (now - at).length() * w <= LIMIT_RESOLVE && !turned() {
                    continue;
                }
                let turn = rotation(&end);
                // The knee's side: the limited knee's, unless that
                // knee lies (nearly) on the hip→target line, where its
                // side is rounding and the solve's own pole decides.
                let target = now.lerp(at, *w);
                let hip = pos(&models[limb.start]);
                let knee = pos(&models[limb.mid]) - hip;
                let axis = (target - hip).normalize_or_zero();
                let across = |v: Vec3| v - axis * v.dot(axis);
                let solved = across(limb_pole[k]).normalize_or_zero();
                let kept = across(knee);
                // A knee that the target moved past to the other side
                // of its line (a limb far behind its target) is bent
                // the solve's way: kept, it would flip round.
                let pole = if kept.dot(solved) > 0.0 {
                    kept + solved * (LIMIT_POLE_SHARE * knee.length())
                } else {
                    solved
                };
                let opts = TwoBoneOptions {
                    knee: KneeStrategy::Pole {
                        pole: Pole::Direction(pole),
                        twist: 0.0,
                    },
                    hinge: c.rig.pure_hinge(k >= 2).then_some(limb.hinge),
                    end_rotation: Some((turn, *w)),
                    ..TwoBoneOptions::new(target)
                };
                if solve_onto(&limb.chain, &opts, &c.skeleton, pose, models).is_err() {
                    debug.ik_errors += 1;
                }
                // A locked foot is held only while its leg can follow
                // without a pop: solved back onto a lock its hips have
                // left too fast for it (RiggedFigure's knee setting off
                // at 2.6 m/s from his idle, 21 rad/s), the foot lets go
                // where the limit leaves it, and its leg is limited like
                // any other.
                // So is a hand still reaching for its hold (getting onto a
                // ladder from its top, Kenney's arm reached up and out for
                // its rung at 40 rad/s): it holds only what the limit lets
                // it reach.
                let reaching = k >= 2 && *w < 1.0;
                let popped = ((k < 2 && !soft[k]) || reaching)
                    && [limb.start, limb.mid, limb.end].iter().any(|&j| {
                        match (prev_rotations.get(j), pose.locals.get(j)) {
                            (Some(a), Some(b)) => {
                                2.0 * a.dot(b.rotation).abs().min(1.0).acos()
                                    > HOLD_POP_SPEED * input.dt
                            }
                            _ => false,
                        }
                    });
                if popped && k < 2 {
                    let_go_of[k] = true;
                }
                // A foot on its way onto the ground (not locked) goes
                // toward its hold only as fast as the limit lets its
                // leg: it catches up before it locks (see `limit_lag`).
                if !(popped || (k < 2 && soft[k])) {
                    continue;
                }
                let mut again = 0;
                for j in [limb.start, limb.mid, limb.end] {
                    if let (Some(prev), Some(now)) = (prev_rotations.get(j), pose.locals.get_mut(j))
                    {
                        again += limit_rotations(
                            std::slice::from_ref(prev),
                            std::slice::from_mut(now),
                            if k < 2 {
                                LEG_HOLD_LIMIT_SPEED
                            } else {
                                MAX_JOINT_SPEED
                            } * input.dt,
                        );
                    }
                }
                if again > 0 {
                    local_to_model(&c.skeleton, &pose.locals, models);
                }
            }
        }
        // A lock placed this frame holds only where the foot is shown
        // on it: where the limit left it, and where it reached (the
        // pelvis may still be lowering for it, see `DROP_KNEE_SPEED`).
        // Touching down at the end of a swing the limit slowed, a foot
        // pulled fully onto its new lock turned a knee at 22–33 rad/s
        // (CesiumMan's walk played 4× over). Otherwise the foot stays
        // on its way down, and locks once it has caught up.
        for (i, leg) in c.legs.iter().enumerate().take(2) {
            if !smooth.new_lock[i] {
                continue;
            }
            // The ankle, and the sole point the foot stands on (a foot the
            // limit left turned otherwise stands elsewhere on it).
            let off = match (held[i], models.get(leg.end)) {
                (Some(_), Some(now)) => {
                    let ankle = (world.transform_point3(pos(now)) - debug.feet[i].target).length();
                    let point = debug.feet[i].pivot.and_then(|(k, at)| {
                        let q = c.sole_points[i].get(usize::from(k))?;
                        Some((world.transform_point3(now.transform_point3(*q)) - at).length())
                    });
                    ankle.max(point.unwrap_or(0.0))
                }
                _ => f32::INFINITY,
            };
            if off > LOCK_SETTLED {
                smooth.lock[i] = None;
                smooth.new_lock[i] = false;
                debug.feet[i].locked = false;
            }
        }
        for (i, leg) in c.legs.iter().enumerate().take(2) {
            let (true, Some(l), Some(now)) = (let_go_of[i], smooth.lock[i], models.get(leg.end))
            else {
                continue;
            };
            let shown = world.transform_point3(pos(now));
            let free = smooth.foot_free[i];
            let_go(
                smooth,
                i,
                Vec3::new(shown.x, l.y, shown.z),
                free,
                restep(input, shown, free),
            );
            smooth.lock[i] = None;
            debug.feet[i].locked = false;
        }
        for (i, (leg, was)) in c.legs.iter().zip(feet).enumerate().take(2) {
            smooth.limit_lag[i] = match (was, models.get(leg.end)) {
                (Some(was), Some(now)) if n > 0 => (pos(now) - was).length(),
                _ => 0.0,
            };
        }
    } else {
        smooth.limit_lag = [0.0; 2];
    }
    prev_rotations.clear();
    prev_rotations.extend(pose.locals.iter().map(|t| t.rotation));
    smooth.limit_ready = true;
    // Each locked foot's knee bend as shown (its cosine), for the pelvis
    // to keep its pace next frame (see `foot_ik::HOLD_KNEE_SPEED`).
    for (cos, (leg, lock)) in smooth
        .knee_cos
        .iter_mut()
        .zip(c.legs.iter().zip(smooth.lock))
    {
        *cos = match (
            lock,
            models.get(leg.start),
            models.get(leg.mid),
            models.get(leg.end),
        ) {
            (Some(_), Some(h), Some(k), Some(a)) if input.ik_enabled => {
                let (thigh, shin) = (pos(k) - pos(h), pos(a) - pos(k));
                thigh.dot(shin) / (thigh.length_squared() * shin.length_squared()).sqrt()
            }
            _ => f32::NAN,
        };
    }
    for (shown, leg) in smooth.foot_shown.iter_mut().zip(&c.legs) {
        *shown = models
            .get(leg.end)
            .filter(|_| input.ik_enabled)
            .map(|m| world.transform_point3(pos(m)));
    }
}
/// Whether a foot the limit lets go of at `shown`, its animated place
/// `free`, steps there in an arc: with the body standing still, further
/// than a re-step (`RESTEP_DRIFT`), as the idle's re-step does, instead of
/// sliding back along the floor. CesiumMan, stopped by the walls level's
/// 0.5 m wall, had his front foot let go of 8.6 cm past its place as his
/// idle came in; sliding back, its toes stood in the wall, bent up as far
/// as they go, and the sole behind them 13.8 mm under the floor for 8
/// frames. (Rare: out of line.)
#[cold]
#[inline(never)]
fn restep(input: &FrameInput, shown: Vec3, free: Vec3) -> bool {
    input.player.state == Locomotion::Ground
        && input.player.vel.x.abs() <= STANDING_SPEED
        && Vec2::new(shown.x - free.x, shown.z - free.z).length() > RESTEP_DRIFT
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fastest_joint, knight_on, local_rotations};
    use super::*;
    use glam::Vec2;

    /// Runs right over a 45° hill (up 2 m, down 2 m) and stops on the flat
    /// beyond; returns the largest joint angular speed over every frame
    /// (rad/s), the frames the speed limit held a joint back, and the
    /// farthest a locked foot's ankle was from where foot IK held it
    /// (metres).
    fn over_a_hill() -> (f32, u32, f32) {
        use crate::sim::Body;
        use crate::sim::player::{DT, Input};
        use crate::sim::world::GroundSegment;
        let mut sim = knight_on(
            "hill",
            vec![
                GroundSegment::ground(-5.0, 4.0, 0.0, 0.0),
                GroundSegment::ground(4.0, 6.0, 0.0, 2.0),
                GroundSegment::ground(6.0, 8.0, 2.0, 0.0),
                GroundSegment::ground(8.0, 30.0, 0.0, 0.0),
            ],
            Vec2::ZERO,
            Vec2::new(29.0, 0.0),
        );
        let mut prev: Vec<Quat> = Vec::new();
        let (mut fastest, mut limited, mut held) = (0.0f32, 0, 0.0f32);
        for frame in 0..300 {
            sim.step(&Input {
                move_x: if frame < 200 { 1.0 } else { 0.0 },
                run: true,
                ..Input::default()
            });
            sim.pose(DT);
            let body = sim.world.get::<&Body>(sim.player).unwrap();
            let p = &body.pipeline;
            let now = local_rotations(p);
            if !prev.is_empty() {
                fastest = fastest.max(fastest_joint(&prev, &now, DT));
            }
            prev = now;
            limited += u32::from(p.debug.limited_joints > 0);
            let c = Character::knight().unwrap();
            for (leg, foot) in c.legs.iter().zip(&p.debug.feet) {
                if foot.locked && foot.weight >= 1.0 {
                    let ankle = p.world.transform_point3(pos(&p.models[leg.end]));
                    held = held.max((ankle - foot.target).length());
                }
            }
        }
        (fastest, limited, held)
    }

    #[test]
    fn no_joint_outruns_the_speed_limit_and_planted_feet_stay_put() {
        // Running up and down a 45° hill, IK asks a knee or thigh for more
        // than 20 rad/s on a few frames (a foot landing on the descent with
        // its leg stretched: 23.6 rad/s without the limit). The limit holds
        // the joints to MAX_JOINT_SPEED, a locked foot's leg up to what its
        // hold needs (19.9 today), and a locked foot is still held exactly
        // where foot IK put it.
        let (fastest, limited, held) = over_a_hill();
        assert!(
            limited > 0,
            "the limit never had anything to do: {fastest} rad/s"
        );
        assert!(fastest <= 20.0, "{fastest} rad/s");
        assert!(held <= 1e-3, "a locked foot {held} m off its place");
    }
}
