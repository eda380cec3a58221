//! Stage 4: hands and feet onto rungs ([`super::PoseStage::LadderIk`]).
//!
//! [`ladder_ik`] reads the frame's input (the ladder, the player's ladder
//! move, the climb phase, dt), the model-to-world transform, the limbs'
//! animated matrices and the climb weight, ladder and root lag placement
//! left in `Smoothing`; it writes each limb's hold memory in `Smoothing`
//! (its last correction on the rungs, a hand's let-go and hold share),
//! solves each arm and leg onto its rung in the local pose and model
//! matrices, records each limb's knee or elbow direction, and fills the
//! hands' and rung feet's [`LimbDebug`].

use animation::Pose;
use animation::ik::two_bone::{KneeStrategy, Pole, TwoBoneOptions};
use glam::{Mat4, Vec3};

use super::frame::{FrameInput, LimbDebug, PoseDebug, Smoothing};
use super::limb::bend_direction;
use super::math::{pos, rigid_inverse, smoothstep};
use crate::character::{Character, Grip};
use crate::sim::player::Locomotion;
use crate::sim::world::Ladder;

/// Climbing over a ladder's top or up its rungs, a hand lets go of a hold
/// farther from the shoulder than this fraction of the arm's length (the
/// arm stretched past what it reaches; softened, see [`LADDER_SOFTEN`], it
/// already falls a few millimetres short)...
pub(super) const ARM_LET_GO_REACH: f32 = 0.97;
/// ... over this many seconds: the hand travels back up to its animation,
/// up to a metre, without whipping the shoulder round (over 0.6 s it turned
/// 33 rad/s).
pub(super) const ARM_LET_GO_TIME: f32 = 1.2;
/// A hand that let go of a rung out of its reach while climbing (see
/// [`ARM_LET_GO_REACH`]) takes the next rung once the climb's contact
/// for it has fallen below this: it is swinging up for that rung.
pub(super) const CLIMB_REGRIP_CONTACT: f32 = 0.1;
/// Fastest a hand is carried onto its hold getting on or off a ladder, m/s
/// (1 m/s left a hand 4 cm off its rung when the climb began).
pub(super) const ARM_REACH_SPEED: f32 = 1.5;
/// How much faster a ladder limb's solve weight comes in than its target
/// moves onto the hold: the weight is full once the target has moved a
/// quarter of the way, while the correction is still small.
pub(super) const HOLD_WEIGHT_GAIN: f32 = 4.0;
/// Soften ratio of ladder IK's limbs: reaches beyond this share of a
/// limb's length approach full extension gradually (see
/// `TwoBoneIk::soften`).
pub(super) const LADDER_SOFTEN: f32 = 0.95;

/// Ladder IK for one character: what it reads and writes.
pub(super) struct LadderIk<'a> {
    /// The character (rig, limbs, grips, climb clip).
    pub c: &'a Character,
    /// The frame's input.
    pub input: &'a FrameInput<'a>,
    /// Model to world, from placement (read).
    pub world: Mat4,
    /// Each limb's animated start, mid and end matrices (read).
    pub limb_animated: &'a [[Mat4; 3]; 4],
    /// Memory between frames (read and written).
    pub smooth: &'a mut Smoothing,
    /// The local pose (written by the solves).
    pub pose: &'a mut Pose,
    /// Model matrices (read and written by the solves).
    pub models: &'a mut [Mat4],
    /// The hands' and rung feet's records, refused solves (written).
    pub debug: &'a mut PoseDebug,
    /// Each limb's knee or elbow direction (written for the limbs solved).
    pub limb_pole: &'a mut [Vec3; 4],
}

/// Step 4: hands and feet onto rungs.
pub(super) fn ladder_ik(job: LadderIk) {
    let LadderIk {
        c,
        input,
        world,
        limb_animated,
        smooth,
        pose,
        models,
        debug,
        limb_pole,
    } = job;
    let cw = smooth.climb_weight;
    let Some(ladder) = smooth.ladder.and_then(|i| input.level.ladders.get(i)) else {
        return;
    };
    if cw <= 0.0 || c.clip_set.climb.cycle_distance <= 0.0 {
        return;
    }
    let inv = rigid_inverse(&world);
    let floor = world.w_axis.y;
    let cycle = c.clip_set.climb.cycle_distance;
    let phase = input.climb_phase;
    let climb_index = c.clip_set.climb.index;
    // Each limb with its slot in `limb_animated` (legs 0 and 1, arms 2 and 3).
    let limbs = c
        .arms
        .iter()
        .take(2)
        .enumerate()
        .map(|(k, l)| (l, 2 + k, c.rig.wrist_from_rung, l.hinge.axis(), true))
        .chain(
            c.legs
                .iter()
                .enumerate()
                .map(|(k, l)| (l, k, c.rig.ankle_from_rung, l.hinge.axis(), false)),
        );
    let (mut hand, mut foot) = (0, 0);
    let on_ladder = matches!(input.player.state, Locomotion::Ladder(_));
    for (limb, slot, offset, axis, is_arm) in limbs {
        let Some(grip) = limb.grip else { continue };
        let (delta, rung) = rung_correction(&grip, ladder, floor, phase, cycle, offset.y, is_arm);
        let aw = world.transform_point3(pos(&limb_animated[slot][2]));
        // While the body still eases into its climbing place, hands and
        // feet already reach for the rungs where they will be.
        // Off the ladder (letting go) each limb keeps the correction
        // it had in the last frame on it, moving with the body (the
        // body's rise or fall would pick another rung; a hold left
        // behind in the world would stretch the arms after the body).
        let reach = if on_ladder {
            let lag = Vec3::new(smooth.root_lag.x, 0.0, smooth.root_lag.z);
            let r = Vec3::Y * delta + lag;
            smooth.ladder_hold[slot] = Vec3::Y * delta;
            r
        } else {
            smooth.ladder_hold[slot]
        };
        // The ladder's hold comes and goes by moving the target between
        // the animation and the hold, solved at (nearly) full weight:
        // weighting a solve toward a distant hold would blend rotations
        // of up to a half turn, whose path flips sides midway (an arm
        // jumping off a ladder turned 43 rad/s in one frame).
        // Climbing over a ladder's top, a hand whose hold the rising
        // body leaves out of its reach lets go of it (a real climber's
        // does, for the floor or the next rung): held on, the arm was
        // dragged along fully stretched, the hand sliding off its rung.
        // Once out of reach it lets go over ARM_LET_GO_TIME, the hand
        // leaving at once (the hold's share falls as (1 − t)², so the
        // arm is never dragged a frame longer) and settling gently,
        // travelling back to its animation.
        // Climbing the rungs, a hand whose rung the body rises out of
        // its reach lets go the same way, until the climb swings it up
        // for the next rung (its contact gone): held on, Mannequiny's
        // short arms were stretched and his hand slid 27 mm off its rung
        // near a ladder's top.
        let leaving = on_ladder && input.player.ladder_move.is_some_and(|m| m.leaving);
        let climbing = on_ladder && input.player.ladder_move.is_none();
        let contact = limb.contact[climb_index].at(phase);
        let hold = if is_arm && (leaving || climbing) {
            let k = slot - 2;
            let [shoulder, elbow, wrist] = limb_animated[slot].each_ref().map(pos);
            let arm = (elbow - shoulder).length() + (wrist - elbow).length();
            let shoulder_w = world.transform_point3(shoulder);
            let ratio = (aw + reach - shoulder_w).length() / arm.max(1e-3);
            let g = &mut smooth.arm_let_go[k];
            if climbing && contact < CLIMB_REGRIP_CONTACT {
                *g = 0.0;
            } else if ratio > ARM_LET_GO_REACH || *g > 0.0 {
                *g = (*g + input.dt.max(0.0) / ARM_LET_GO_TIME).min(1.0);
            }
            cw * (1.0 - *g).powi(2)
        } else {
            if is_arm {
                smooth.arm_let_go[slot - 2] = 0.0;
            }
            cw
        };
        // Getting on or off, a hand takes its hold no faster than
        // ARM_REACH_SPEED carries it there: onto a ladder from its top,
        // the hold comes in with the climb while the hand is nearly a
        // metre above its rung, and the arm swung down for it at
        // 26 rad/s. (On the rungs the hold is there already.)
        let moving_on = on_ladder && input.player.ladder_move.is_some();
        let hold = if is_arm {
            let h = &mut smooth.arm_hold[slot - 2];
            let most = *h + ARM_REACH_SPEED * input.dt.max(0.0) / reach.length().max(1e-3);
            // Still catching up after the move: the same limit.
            *h = if moving_on || *h < hold - 1e-3 {
                hold.min(most)
            } else {
                hold
            };
            *h
        } else {
            hold
        };
        let target_w = aw + reach * hold;
        let weight = (hold * HOLD_WEIGHT_GAIN).min(1.0);
        limb_pole[slot] = bend_direction(&limb_animated[slot], limb, axis);
        let opts = TwoBoneOptions {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(limb_pole[slot]),
                twist: 0.0,
            },
            // A knee or elbow that is not a pure hinge is bent unhinged.
            hinge: c.rig.pure_hinge(is_arm).then_some(limb.hinge),
            weight,
            // An arm reaching down to the rails' top while the body
            // rises over it passes full extension: softened, the elbow
            // never locks straight, so its bend never flips sides. The
            // softening comes in with how far the limb is pulled down
            // below its animation (past half a spacing, only there), so
            // a limb reaching up for a rung still reaches it.
            // Letting go (jumping or stepping off), no limb holds a
            // rung any more: all are softened as the body moves away.
            soften: if on_ladder {
                1.0 - (1.0 - LADDER_SOFTEN)
                    * ((-delta - 0.5 * ladder.rung_spacing) / (0.5 * ladder.rung_spacing))
                        .clamp(0.0, 1.0)
            } else {
                LADDER_SOFTEN
            },
            ..TwoBoneOptions::new(inv.transform_point3(target_w))
        };
        if limb.chain.solve(&opts, &c.skeleton, pose, models).is_err() {
            debug.ik_errors += 1;
        }
        let d = LimbDebug {
            target: target_w,
            probe: Vec3::new(target_w.x, rung.unwrap_or(target_w.y), 0.0),
            weight: hold,
            contact,
            rung,
            locked: false,
            stepping: false,
            pivot: None,
        };
        if is_arm {
            debug.hands[hand] = d;
            hand += 1;
        } else {
            debug.rung_feet[foot] = d;
            foot += 1;
        }
    }
}

/// The vertical correction that puts a limb on its hold at climb `phase`
/// ([`Ladder::hold_for`]: a hand also holds the rails' rungs above the top),
/// and the hold's height: constant through a grip, eased from one grip's
/// correction to the next during the reach between them.
pub(super) fn rung_correction(
    grip: &Grip,
    ladder: &Ladder,
    floor: f32,
    phase: f32,
    cycle: f32,
    offset_y: f32,
    hand: bool,
) -> (f32, Option<f32>) {
    let len = (grip.end - grip.start).clamp(0.0, 1.0);
    // The grip instance that started most recently (k counts cycles).
    let k = (phase - grip.start).floor();
    let start = grip.start + k;
    // The limb's world height at a grip's middle follows from the phase,
    // since the climb phase is driven by the distance climbed.
    let at = |center: f32| {
        let y = floor + (center - phase) * cycle + grip.center_model.y;
        match ladder.hold_for(y - offset_y, hand) {
            Some(r) => (r + offset_y - y, Some(r)),
            // Past the ladder's end: nothing to hold.
            None => (0.0, None),
        }
    };
    let center = start + 0.5 * len;
    if phase <= start + len {
        at(center)
    } else {
        let (a, _) = at(center);
        let (b, rb) = at(center + 1.0);
        let u = ((phase - start - len) / (1.0 - len).max(1e-3)).clamp(0.0, 1.0);
        (a + (b - a) * smoothstep(u), rb)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rung_correction_is_continuous_and_constant_while_gripping() {
        let ladder = Ladder {
            x: 0.0,
            bottom: 0.0,
            top: 5.0,
            rung_spacing: 0.25,
            first_rung_offset: 0.25,
            half_width: 0.25,
        };
        let grip = Grip {
            start: 0.5,
            end: 1.0,
            center_model: Vec3::new(0.3, 1.9, 0.1),
        };
        let cycle = 0.6;
        let mut prev: Option<(f32, f32)> = None;
        for i in 0..=2000 {
            let climbed = i as f32 * 0.001;
            let phase = (climbed / cycle).rem_euclid(1.0);
            let floor = 0.2 + climbed;
            let (d, rung) = rung_correction(&grip, &ladder, floor, phase, cycle, 0.04, false);
            assert!(d.is_finite() && d.abs() <= 0.25, "{d}");
            if let Some((pd, pp)) = prev {
                assert!((d - pd).abs() < 0.01, "jump {pd} -> {d} at {climbed}");
                let gripping = |p: f32| (0.5..1.0).contains(&p);
                if gripping(phase) && gripping(pp) && phase > pp {
                    assert!((d - pd).abs() < 1e-4, "moved while gripping");
                    // The limb's world height plus the correction sits on the rung.
                    let y = floor + (0.75 - phase) * cycle + 1.9 + d;
                    let r = rung.unwrap();
                    assert!((y - (r + 0.04)).abs() < 1e-3, "{y} vs {r}");
                }
            }
            prev = Some((d, phase));
        }
    }
}
