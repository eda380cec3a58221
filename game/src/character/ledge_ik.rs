//! Ledge IK: the hands onto a ledge's corner, the feet against its wall, and
//! the body raised or lowered so each character hangs by arms of its own length
//! — one job with named inputs and outputs, run by the pose pipeline after
//! the ladder IK and before the joint speed limit.
//!
//! The pose under it is the rig's authored ledge clips where it names them
//! (the knight's `hang` and `climb_up`: the hang loop, and the climb over the
//! top played at the controller's progress, its hands on the corner while
//! they hold), else the character's climb clip (generated for a humanoid
//! without one by [`crate::character::procedural_climb`]): arms up in front,
//! feet on a wall, its phase moving with the height climbed, so climbing
//! over a ledge the legs step up the wall. This job puts it on the ledge:
//!
//! - **Hands.** Each wrist is held at the corner plus the rig's
//!   `wrist_from_rung` (the fist over the edge, as around a rung), straight
//!   above its shoulder along the edge, by the two-bone arm chains the
//!   ladder IK uses. The hold comes in over the catch. With authored ledge
//!   clips the target swings about the shoulder from the animated hand (the
//!   hang clip brings it up to the corner) to the corner as the catch
//!   progresses, solved at full weight. A procedural hang's arm is solved
//!   onto the corner at full weight, bent as its climb clip bends it
//!   ([`procedural_climb::elbow_pole`]), and its joints turn from where the
//!   catch found them to that solve as the catch progresses: the target
//!   never leaves the arm's reach ([`LET_GO_REACH`], while a short body is
//!   still being lifted to its hang), and no joint turns faster than its
//!   angle over the catch allows, whatever pose the catch came from.
//!   Letting go, the arm's joints turn from their last hold back to the
//!   animation over [`LET_GO_TIME`] (bounded joint speed whatever the two
//!   poses). Climbing over the top, a hand lets go once the rising shoulder
//!   folds its arm past [`LET_GO_FOLD`] or stretches it past
//!   [`LET_GO_REACH`].
//! - **Body.** The hang is the character's own: its body is raised or
//!   lowered so that its arms, held up from its shoulders, reach the corner
//!   at [`HANG_REACH`] of their length ([`LedgeIk::lift_full`], from the
//!   pose it hangs in: the shoulders of its rest pose under authored ledge
//!   clips, of its climb clip for a procedural hang, and the arms' length),
//!   eased in with the hold. A short character's feet hang higher than the
//!   controller's hang ([`HANG_DROP`], the knight's), a tall one's lower,
//!   but never nearer the floor under them than [`FLOOR_CLEARANCE`] (nor
//!   below it when it lets go and the change fades with the fall).
//!   Climbing over the top, a procedural hang's lift goes as the body
//!   rises, so a lifted body rises from its own hang to standing at the
//!   climb's pace. The controller (its grabs, reach and hanging place) is
//!   the same for every character, so what `check-level` finds holds for
//!   all of them.
//! - **Feet.** Where the ledge's face goes on down past a foot, the ankle is
//!   set against it (the ball of the foot on the wall: the rig's
//!   `ankle_from_rung` from the face); where it does not (a thin platform's
//!   edge) the foot dangles as the clip has it.
//!
//! [`LedgeIk::solve`] is allocation-free; every hold is a target solved at
//! full weight, and a hold coming or going turns joints between two fixed
//! or slowly moving poses, never along a path that flips.

use animation::Pose;
use animation::ik::two_bone::{KneeStrategy, Pole, TwoBoneOptions};
use glam::{Mat4, Quat, Vec2, Vec3};

use crate::character::pose_pipeline::{FrameInput, LimbDebug};
use crate::character::procedural_climb;
use crate::character::{Character, Limb};
use crate::sim::ledge::{HANG_DROP, HANG_OFFSET};
use crate::sim::player::{Locomotion, climb_offset};

/// How much of an arm's length the hanging hands reach up to (the elbows a
/// little bent): what [`LedgeIk::lift_full`] raises a short character or
/// lowers a tall one for.
pub const HANG_REACH: f32 = 0.88;
/// Climbing over the top, the share of its arm's length past which a hand
/// lets go of the corner (the shoulder rising away from it): before the arm
/// is nearly straight, where the elbow turns fast for little reach
/// (CesiumMan's at 26 rad/s, held to 0.97). Catching a ledge in a
/// procedural hang, also the farthest from its shoulder a hand is solved
/// toward while the body is still below its hang.
pub const LET_GO_REACH: f32 = 0.93;
/// Climbing over the top, the share of its arm's length under which a hand
/// lets go of the corner (the shoulder rising past it folds the arm further
/// than an elbow bends: held on, the knight's hand slid 7.5 mm off).
pub const LET_GO_FOLD: f32 = 0.35;
/// Seconds a hand takes to let go of the corner once out of reach, or the
/// hold to fade after the hands let go (a drop or a jump off the ledge).
pub const LET_GO_TIME: f32 = 0.5;
/// Seconds a character's lift (or lowering) takes to go once off the ledge (longer
/// than the hands' release: the root eases down without a jerk).
pub const LIFT_RELEASE_TIME: f32 = 0.7;
/// The least room a lowered (tall) character's hanging feet keep above
/// the floor under them, metres: they never touch it while hanging.
pub const FLOOR_CLEARANCE: f32 = 0.1;
/// The fastest a tall character's lowering changes while it hangs, m/s:
/// the floor under a moving platform's edge may change in one step (the
/// edge passing over a step), and the body must not jump with it.
const LOWER_RATE: f32 = 0.5;
/// How many phases of a climb clip [`LedgeIk::new`] samples for the
/// shoulders of the procedural hang (its pelvis bobs twice a cycle: 16
/// samples find its lowest within a millimetre).
const HANG_SAMPLES: usize = 16;
/// Seconds a foot takes onto or off the wall.
pub const FOOT_WALL_TIME: f32 = 0.5;
/// Climbing over the top, the part of the climb's progress (start, length)
/// over which the hold's share (and, under authored ledge clips, the lift)
/// goes to 0: the body is then stepping across onto the top.
const CLIMB_RELEASE: (f32, f32) = (0.5, 0.4);
/// The softening of the leg solves against the wall (a nearly straight
/// knee keeps its side).
const LEG_SOFTEN: f32 = 0.98;

/// The ledge IK's memory between frames and what it did this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LedgeIk {
    /// How far a hanging body of this character is raised, metres (0 for
    /// one whose arms reach the knight's hang, negative, lowered, for one
    /// taller than that, see the module docs).
    pub lift_full: f32,
    /// The lift at this ledge: [`LedgeIk::lift_full`] with a lowering kept
    /// clear of the floor under the hanging feet (metres); held as it was
    /// off the ledge.
    lift_here: f32,
    /// How far the body is raised now, metres.
    pub lift: f32,
    /// The hold's share, 0 to 1 (eased where used): up over a catch, 1
    /// hanging, down over a release.
    pub share: f32,
    /// Each hand's share of its hold on the corner this frame (0 to 1).
    pub grip: [f32; 2],
    /// Where each wrist is held this frame, world metres.
    pub hold: [Vec3; 2],
    /// Each hand's let-go progress climbing over the top (0 holding, 1 let
    /// go).
    let_go: [f32; 2],
    /// The share of the lift, 0 to 1: as the hold's, but going down over
    /// [`LIFT_RELEASE_TIME`] off the ledge; climbing over the top in a
    /// procedural hang, the share of the rise still to come (applied as it
    /// is, not eased: the rise is eased already).
    lift_share: f32,
    /// Each arm's local rotations (shoulder, elbow, wrist) the last frame
    /// its hand was held (fully, or by a hold fading over the climb): a
    /// hand letting go turns from them back to the animation, so it starts
    /// from where it was (kept only from full grips, a release climbing
    /// over the top started from the pose at the fade's start and turned
    /// the knight's forearms at the speed limit).
    held: [Option<[Quat; 3]>; 2],
    /// Off the ledge, the feet's height above the floor below when the
    /// hands let go (see [`LedgeIk::solve`]'s lift), metres.
    drop_from: Option<f32>,
    /// Each leg's local rotations (hip, knee, ankle) the last frame its
    /// foot was on the wall.
    leg_held: [Option<[Quat; 3]>; 2],
    /// Each foot's share of the wall (0 to 1) and the face it is held
    /// against (world x) with the direction the body faces.
    foot: [f32; 2],
    wall: [Option<(f32, f32)>; 2],
    /// The corner held last (world), and the direction the body faced it.
    corner: Option<(Vec2, f32)>,
    /// Where each arm's elbow bends hanging (model space), for a character
    /// that hangs in its climb clip: that clip's elbow direction
    /// ([`procedural_climb::elbow_pole`]); `None` with authored ledge clips,
    /// whose elbows the hang clip places.
    hang_pole: Option<[Vec3; 2]>,
    /// Each arm's local rotations (shoulder, elbow, wrist) as the catch
    /// found them: over the catch the arm turns from them to its hold.
    reach_from: [Option<[Quat; 3]>; 2],
}

impl LedgeIk {
    /// The ledge IK for `c`: how far its hanging body must be raised, from
    /// the pose it hangs in and the arms' length (see
    /// [`LedgeIk::lift_full`]).
    pub fn new(c: &Character) -> Self {
        let need = hang_need(c);
        // No arms (nothing held) or a degenerate pose: no lift.
        let lift_full = if need.is_finite() { need } else { 0.0 };
        let hang_pole = c.clip_set.ledge.is_none().then(|| hang_poles(c));
        Self {
            lift_full,
            lift_here: lift_full.max(0.0),
            hang_pole,
            ..Self::default()
        }
    }

    /// Forgets the frames before (a respawn, a level load).
    pub fn reset(&mut self) {
        *self = Self {
            lift_full: self.lift_full,
            lift_here: self.lift_full.max(0.0),
            hang_pole: self.hang_pole,
            ..Self::default()
        };
    }

    /// One frame: the hold's share from the player's state, the body raised
    /// by it (`world` moved up), hands on the corner and feet on the wall
    /// solved into `pose` and `models` (model space); each held hand is
    /// reported in `hands` (so the joint speed limit solves it back onto
    /// its hold) and its bend in `poles` (arms at 2 and 3, as the pipeline
    /// numbers limbs). Returns the number of refused solves.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        c: &Character,
        input: &FrameInput,
        pose: &mut Pose,
        models: &mut [Mat4],
        world: &mut Mat4,
        hands: &mut [LimbDebug; 2],
        poles: &mut [Vec3; 4],
    ) -> u32 {
        let dt = input.dt.max(0.0);
        let p = input.player;
        let hang = if p.state == Locomotion::Ledge {
            p.ledge
        } else {
            None
        };
        self.grip = [0.0; 2];
        let procedural = self.hang_pole.is_some();
        // Whether the body was off any hold: a catch starts the lift afresh.
        let fresh = self.lift_share <= 0.0;
        match hang {
            Some(h) => {
                self.corner = Some((h.ledge.corner, -h.ledge.side));
                self.share = if h.climbing() {
                    // Over the top the hold (and a short character's lift)
                    // goes as the body comes onto it.
                    1.0 - smoothstep((h.climb_progress() - CLIMB_RELEASE.0) / CLIMB_RELEASE.1)
                } else {
                    // The catch: the hold comes in with its progress (never
                    // back out, should it start from a hold fading).
                    self.share.max(h.catch_progress())
                };
                if !h.climbing() {
                    self.let_go = [0.0; 2];
                }
                self.lift_share = if h.climbing() && procedural {
                    // A procedural hang's lift goes, climbing over the top,
                    // as the body rises (none of it once risen the corner's
                    // height): a lifted body rises from its own hang onto
                    // the top at the climb's pace, never past the top and
                    // back down. (Held until the climb's release, a lifted
                    // body rose the whole controller's rise first, its
                    // shoulders passing the corner so fast that a short
                    // arm folded at over 20 rad/s before it let go.)
                    1.0 - climb_offset(h.climb_progress()).y / HANG_DROP
                } else if h.climbing() {
                    self.share
                } else {
                    self.lift_share.max(self.share)
                };
            }
            None => {
                self.share = (self.share - dt / LET_GO_TIME).max(0.0);
                self.lift_share = (self.lift_share - dt / LIFT_RELEASE_TIME).max(0.0);
                // Letting go: each hand turns back from its last hold.
                self.let_go = [0.0; 2];
            }
        }
        let Some((corner, facing)) = self.corner else {
            return 0;
        };
        let eased = smoothstep(self.share);
        // The body raised for a short character, eased with the hold; off
        // the ledge it settles back with the hold's fade.
        // Off the ledge the lift also goes with the fall: all of it by the
        // time the feet reach the floor they were above when the hands let
        // go (a short character lands where he stands, the root at rest).
        let above = |y: f32| {
            input
                .level
                .floor_below(p.pos.x, y, 50.0)
                .map(|h| (y - h.y).max(0.0))
        };
        let fall = if hang.is_some() {
            self.drop_from = None;
            1.0
        } else {
            if self.drop_from.is_none() {
                self.drop_from = Some(above(p.pos.y).unwrap_or(f32::INFINITY));
            }
            match (self.drop_from, above(p.pos.y)) {
                (Some(h0), Some(h)) if h0.is_finite() && h0 > 1e-3 => smoothstep(h / h0),
                _ => 1.0,
            }
        };
        if hang.is_some() {
            // A tall character is lowered no nearer the floor under the
            // hanging feet than FLOOR_CLEARANCE; so far that, letting go,
            // the lowering fading with the fall (`smoothstep(h / h0)` of
            // it, at most 1.125 h / h0) never puts the feet under the
            // floor either.
            let room = above(p.pos.y).unwrap_or(f32::INFINITY);
            let lowest = -((room - FLOOR_CLEARANCE).max(0.0) / 1.125);
            let want = self.lift_full.max(lowest);
            let step = LOWER_RATE * dt;
            self.lift_here = if fresh {
                want
            } else {
                self.lift_here + (want - self.lift_here).clamp(-step, step)
            };
        }
        let weight = if procedural && hang.is_some_and(|h| h.climbing()) {
            self.lift_share
        } else {
            smoothstep(self.lift_share)
        };
        let lift = self.lift_here * weight * fall;
        world.w_axis.y += lift;
        self.lift = lift;
        if self.share <= 0.0 && self.lift_share <= 0.0 && self.foot == [0.0; 2] {
            self.corner = None;
            self.held = [None; 2];
            self.leg_held = [None; 2];
            return 0;
        }
        if !input.ik_enabled {
            return 0;
        }
        let inv = world.inverse();
        let mut errors = 0;
        // Hands: onto the corner over a catch (the arm's joints turning
        // from where the catch found them to the hold's solve), held there,
        // and letting go by turning the arm's joints back from their last
        // hold to the animation (bounded speed, no path through the
        // shoulder).
        let offset = world.transform_vector3(c.rig.wrist_from_rung);
        let climbing = hang.is_some_and(|h| h.climbing());
        let mut turned = false;
        for (k, arm) in c.arms.iter().take(2).enumerate() {
            let shoulder = world.transform_point3(pos(&models[arm.start]));
            let animated = world.transform_point3(pos(&models[arm.end]));
            let hold = Vec3::new(corner.x + offset.x, corner.y + offset.y, shoulder.z);
            let arm_len = arm_length(models, arm);
            if climbing {
                let ratio = (hold - shoulder).length() / arm_len.max(1e-3);
                let g = &mut self.let_go[k];
                if !(LET_GO_FOLD..=LET_GO_REACH).contains(&ratio) || *g > 0.0 {
                    *g = (*g + dt / LET_GO_TIME).min(1.0);
                }
            }
            let joints = [arm.start, arm.mid, arm.end];
            let releasing = hang.is_none() || self.let_go[k] > 0.0;
            let catching = hang.is_some_and(|h| !h.climbing());
            if releasing || !catching || self.share >= 1.0 {
                self.reach_from[k] = None;
            }

            if releasing {
                let w = if hang.is_none() {
                    eased
                } else {
                    smoothstep(1.0 - self.let_go[k])
                };
                if let Some(held) = self.held[k] {
                    if w <= 0.0 {
                        self.held[k] = None;
                        continue;
                    }
                    for (j, q) in joints.into_iter().zip(held) {
                        let r = &mut pose.locals[j].rotation;
                        *r = r.slerp(q, w);
                    }
                    turned = true;
                }
                continue;
            }
            let w = eased;
            if w <= 0.0 {
                continue;
            }
            if turned {
                animation::local_to_model(&c.skeleton, &pose.locals, models);
                turned = false;
            }
            // The arm is solved onto its hold in full, then, over the catch,
            // its joints turn from where the catch found them to that solve
            // by the hold's share (as a hand letting go turns back): each
            // joint turns at most its angle between the two times the
            // share's rate, whatever the two poses. (A target swung about
            // the shoulder from the animated hand to the hold turned on an
            // arc whose axis is undefined when the two lie on opposite
            // sides of the shoulder: Kenney's arm, hanging straight down
            // from the fall, reached for a corner 145° away and his
            // shoulder spun at 35 rad/s. Turning from the animation under
            // the catch instead, a crossfade from the fall that turns his
            // shoulder the other way round, the two came half a turn apart
            // and the turn between them flipped: 150 rad/s.)
            //
            // The hold the arm is solved toward lies no further from the
            // shoulder than LET_GO_REACH of the arm: over the catch the
            // body may still be below its hang (a short character's lift
            // comes in with it, RiggedFigure's 0.7 m), and a target out of
            // reach straightened the arm, where its bend is undefined (his
            // elbow flipped at 60 rad/s as the target came back into
            // reach). Hanging, the hold is in reach by the lift.
            //
            // Climbing over the top, the hold fades back to the animation
            // (a climb clip's hands are near the corner): the target swings
            // about the shoulder from the animated hand to the hold by the
            // hold's share, solved at full weight.
            let to = hold - shoulder;
            let most = LET_GO_REACH * arm_len;
            let reaching = catching && procedural;
            let target = if reaching {
                if to.length() > most {
                    shoulder + to * (most / to.length())
                } else {
                    hold
                }
            } else {
                around(shoulder, animated, hold, w)
            };
            // Bent as the hang bends it: a climb clip's elbows (fixed in
            // the model) rather than the animation's under the catch (a
            // crossfade from the fall, whose elbow turned half a turn over
            // Kenney's catch and twisted the solved arm with it).
            let pole = self
                .hang_pole
                .map_or_else(|| bend(models, arm, arm.hinge.axis()), |p| p[k]);
            poles[2 + k] = pole;
            let opts = TwoBoneOptions {
                knee: KneeStrategy::Pole {
                    pole: Pole::Direction(pole),
                    twist: 0.0,
                },
                hinge: c.rig.pure_hinge(true).then_some(arm.hinge),
                // Unsoftened: a gripping hand reaches its hold exactly (it
                // lets go before the arm is straight, see LET_GO_REACH).
                soften: 1.0,
                ..TwoBoneOptions::new(inv.transform_point3(target))
            };
            let from = joints.map(|j| pose.locals[j].rotation);
            if arm.chain.solve(&opts, &c.skeleton, pose, models).is_err() {
                errors += 1;
                continue;
            }
            if reaching && w < 1.0 {
                let from = *self.reach_from[k].get_or_insert(from);
                for (j, q) in joints.into_iter().zip(from) {
                    let r = &mut pose.locals[j].rotation;
                    *r = q.slerp(*r, w);
                }
                animation::local_to_model(&c.skeleton, &pose.locals, models);
            }
            self.held[k] = Some(joints.map(|j| pose.locals[j].rotation));
            self.grip[k] = w;
            self.hold[k] = hold;
            hands[k] = LimbDebug {
                target,
                probe: hold,
                weight: w,
                // The joint speed limit holds a hand by its contact: in
                // full once gripping, less while the hold comes.
                contact: w,
                rung: None,
                locked: false,
                stepping: false,
                pivot: None,
            };
        }
        if turned {
            animation::local_to_model(&c.skeleton, &pose.locals, models);
        }
        // Feet: against the face where it goes on down past them, while
        // hanging (climbing over, they leave it).
        let hanging = hang.is_some_and(|h| !h.climbing());
        let ankle_off = world
            .transform_vector3(c.rig.ankle_from_rung)
            .dot(Vec3::X * facing);
        for (i, leg) in c.legs.iter().take(2).enumerate() {
            let animated = world.transform_point3(pos(&models[leg.end]));
            let inside = corner.x + facing * 0.01;
            let face_here = input.level.solid_overlaps(
                inside.min(inside + facing * 0.01),
                inside.max(inside + facing * 0.01),
                animated.y - 0.05,
                animated.y + 0.05,
            );
            if face_here && hanging {
                self.wall[i] = Some((corner.x, facing));
            }
            let want = if face_here && hanging { eased } else { 0.0 };
            let f = &mut self.foot[i];
            *f = if want > *f {
                (*f + dt / FOOT_WALL_TIME).min(want)
            } else {
                (*f - dt / FOOT_WALL_TIME).max(want)
            };
            let joints = [leg.start, leg.mid, leg.end];
            if want <= 0.0 {
                // Off the wall: the leg's joints turn from their last hold
                // back to the animation, as a hand letting go does.
                if let Some(held) = self.leg_held[i] {
                    if *f <= 0.0 {
                        self.leg_held[i] = None;
                        self.wall[i] = None;
                        continue;
                    }
                    let w = smoothstep(*f);
                    for (j, q) in joints.into_iter().zip(held) {
                        let r = &mut pose.locals[j].rotation;
                        *r = r.slerp(q, w);
                    }
                    animation::local_to_model(&c.skeleton, &pose.locals, models);
                } else {
                    self.wall[i] = None;
                }
                continue;
            }
            let Some((face, dir)) = self.wall[i] else {
                continue;
            };
            // The foot's target eases from the animated foot onto the wall
            // by its share, and the leg's joints turn from the animation to
            // that solve by the same share: the solve's knee swivels to its
            // pole (from the knee's hinge axis, defined when the leg is
            // straight) up to 0.4 rad from the animation's (Kenney's hips
            // in a fall), and solved in full from the foot's first frame on
            // the wall a hip turned at the speed limit.
            let on_wall = Vec3::new(face + dir * ankle_off, animated.y, animated.z);
            let share = smoothstep(*f);
            let target = animated.lerp(on_wall, share);
            let from = joints.map(|j| pose.locals[j].rotation);
            let pole = bend(models, leg, leg.hinge.axis());
            poles[i] = pole;
            let opts = TwoBoneOptions {
                knee: KneeStrategy::Pole {
                    pole: Pole::Direction(pole),
                    twist: 0.0,
                },
                hinge: c.rig.pure_hinge(false).then_some(leg.hinge),
                soften: LEG_SOFTEN,
                ..TwoBoneOptions::new(inv.transform_point3(target))
            };
            if leg.chain.solve(&opts, &c.skeleton, pose, models).is_err() {
                errors += 1;
            }
            if share < 1.0 {
                for (j, q) in joints.into_iter().zip(from) {
                    let r = &mut pose.locals[j].rotation;
                    *r = q.slerp(*r, share);
                }
                animation::local_to_model(&c.skeleton, &pose.locals, models);
            }
            self.leg_held[i] = Some(joints.map(|j| pose.locals[j].rotation));
        }
        errors
    }
}

/// How far `c`'s hanging body must be raised (negative: lowered) for its
/// hands, held on the corner, to be [`HANG_REACH`] of its arm's length from
/// its shoulders in the controller's hang ([`HANG_DROP`] under the corner,
/// [`HANG_OFFSET`] from its face): the most any arm needs.
///
/// The shoulders are those of the pose the character hangs in:
///
/// - with authored ledge clips, its rest pose: the hang clip is posed by its
///   author for the controller's hang (the knight's puts the wrists on the
///   corner with his rest pose's shoulders);
/// - else its climb clip (generated or its own), which a ledge plays
///   (see `anim_state`): sampled at [`HANG_SAMPLES`] phases of its cycle,
///   since the phase it shows follows the height climbed, and taking the
///   phase that needs most. A procedural climb holds the shoulders lower
///   and further back than the rest pose does (its pelvis tucked, its upper
///   body leaning: RiggedFigure's 0.1 m lower), and a lift from the rest
///   pose left the arms reaching past their length: the hands never held
///   the corner fully.
///
/// `NEG_INFINITY` when the character has no arms.
fn hang_need(c: &Character) -> f32 {
    let rest = c.skeleton.rest_pose();
    let mut models = vec![Mat4::IDENTITY; c.skeleton.len()];
    let wrist_up = c.rig.wrist_from_rung.y;
    let forward = c.rig.forward.normalize_or(Vec3::X);
    let back = c.rig.wrist_from_rung.dot(forward);
    // The need of each arm in the pose `models`: the shoulder's height
    // from which an arm reaching HANG_REACH of its length up to the hold
    // (`across` in front of it) gets there.
    let need = |models: &[Mat4], across: &dyn Fn(Vec3) -> f32| {
        c.arms
            .iter()
            .take(2)
            .map(|a| {
                let s = pos(&models[a.start]);
                let arm = arm_length(models, a);
                let across = across(s);
                let reach = ((HANG_REACH * arm).powi(2) - across * across)
                    .max(0.0)
                    .sqrt();
                HANG_DROP + wrist_up - (s.y + reach)
            })
            .fold(f32::NEG_INFINITY, f32::max)
    };
    if c.clip_set.ledge.is_some() {
        animation::local_to_model(&c.skeleton, &rest.locals, &mut models);
        return need(&models, &|_| (HANG_OFFSET + back).abs());
    }
    // The hold lies HANG_OFFSET + back in front of the feet (the model's
    // origin), so in front of a shoulder by that less the shoulder's own
    // place along the forward axis.
    let ahead = Vec3::new(forward.x, 0.0, forward.z).normalize_or(Vec3::X);
    let clip = c.clip_set.climb;
    let Some(climb) = c.clips.get(clip.index) else {
        return f32::NEG_INFINITY;
    };
    let mut locals = rest.locals.clone();
    (0..HANG_SAMPLES)
        .map(|k| {
            let t = k as f32 / HANG_SAMPLES as f32 * clip.duration;
            animation::sample_at(climb, t, animation::Wrap::Loop, &mut locals);
            animation::local_to_model(&c.skeleton, &locals, &mut models);
            need(&models, &|s: Vec3| HANG_OFFSET + back - s.dot(ahead))
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

/// Each arm's elbow direction hanging in the climb clip (model space):
/// [`procedural_climb::elbow_pole`], out on the side of its shoulder.
fn hang_poles(c: &Character) -> [Vec3; 2] {
    let rest = c.skeleton.rest_pose();
    let mut models = vec![Mat4::IDENTITY; c.skeleton.len()];
    animation::local_to_model(&c.skeleton, &rest.locals, &mut models);
    let up = Vec3::Y;
    let forward = Vec3::new(c.rig.forward.x, 0.0, c.rig.forward.z).normalize_or(Vec3::X);
    let left = up.cross(forward);
    [0, 1].map(|k| {
        let side = c
            .arms
            .get(k)
            .map_or(0.0, |a| pos(&models[a.start]).dot(left).signum());
        procedural_climb::elbow_pole(up, forward, left * side)
    })
}

/// The point `t` of the way from `from` to `to` around `centre` (the
/// direction from the centre turned on the shortest arc, the distance
/// eased): a hand going between the animation and its hold swings about the
/// shoulder as an arm does, never along a straight line past the shoulder
/// (where the two-bone solve folds the elbow through itself and turns the
/// arm at over 100 rad/s).
fn around(centre: Vec3, from: Vec3, to: Vec3, t: f32) -> Vec3 {
    let (a, b) = (from - centre, to - centre);
    let (la, lb) = (a.length(), b.length());
    if la < 1e-4 || lb < 1e-4 {
        return from.lerp(to, t);
    }
    let turn = Quat::from_rotation_arc(a / la, b / lb);
    centre + Quat::IDENTITY.slerp(turn, t) * (a / la) * (la + (lb - la) * t)
}

/// An arm's or leg's length (start to mid to end) in `models`.
fn arm_length(models: &[Mat4], limb: &Limb) -> f32 {
    let [s, m, e] = [limb.start, limb.mid, limb.end].map(|j| pos(&models[j]));
    (m - s).length() + (e - m).length()
}

/// The model-space direction a limb's mid joint bends toward now: across
/// its start→end line from its hinge axis (defined when the limb is
/// straight, so the bend never flips).
fn bend(models: &[Mat4], limb: &Limb, hinge_local: Vec3) -> Vec3 {
    let [s, m, e] = [limb.start, limb.mid, limb.end].map(|j| models[j]);
    let line = pos(&e) - pos(&s);
    let hinge = m.transform_vector3(hinge_local).normalize_or_zero();
    (hinge.cross(line) * limb.bend_sign).normalize_or(Vec3::X)
}

fn pos(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

/// 3t² − 2t³: 0 to 1 with zero slope at both ends.
fn smoothstep(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::character::KNIGHT_RIG;
    use crate::character::rig::RigFile;
    use crate::knight;
    use animation::{Wrap, sample_at};

    /// The knight with no ledge clips and a procedural climb (as a model
    /// with no rig file of its own hangs).
    fn procedural_knight() -> Character {
        let text = KNIGHT_RIG
            .replace(
                ", climb: \"climb\", hang: \"hang\", climb_up: \"climb_up\"",
                "",
            )
            .replace(
                "climb_cycle_distance:",
                "procedural_climb: true, climb_cycle_distance:",
            );
        assert_ne!(text, KNIGHT_RIG);
        let rig = RigFile::parse(&text, "p.rig.ron").unwrap();
        let k = knight::Knight::generate(knight::clips::DEFAULT_RUNG_SPACING).unwrap();
        Character::new("k.glb", k.skeleton, k.clips, &rig, "p.rig.ron").unwrap()
    }

    /// Each arm's reach to its hold on the corner, as a share of its
    /// length, in the climb clip at phase `t` (0 to 1) with the body raised
    /// by `lift` in the controller's hang (the hold on the shoulder's
    /// plane along the edge).
    fn reach_at(c: &Character, t: f32, lift: f32) -> [f32; 2] {
        let clip = c.clip_set.climb;
        let mut locals = c.skeleton.rest_locals().to_vec();
        sample_at(
            &c.clips[clip.index],
            t * clip.duration,
            Wrap::Loop,
            &mut locals,
        );
        let mut models = vec![Mat4::IDENTITY; c.skeleton.len()];
        animation::local_to_model(&c.skeleton, &locals, &mut models);
        let f = Vec3::new(c.rig.forward.x, 0.0, c.rig.forward.z).normalize();
        let hold = f * HANG_OFFSET + Vec3::Y * (HANG_DROP - lift) + c.rig.wrist_from_rung;
        [0, 1].map(|k| {
            let a = &c.arms[k];
            let s = pos(&models[a.start]);
            let to = hold - s;
            // Along the edge the hold is level with the shoulder.
            let side = f.cross(Vec3::Y).normalize();
            (to - side * to.dot(side)).length() / arm_length(&models, a)
        })
    }

    #[test]
    fn a_procedural_hang_is_lifted_for_its_climb_clips_shoulders() {
        // The lift comes from the pose the character hangs in: at every
        // phase of its climb clip the arms reach the corner within
        // HANG_REACH of their length, and at the neediest phase exactly
        // that. From the rest pose's shoulders (higher than the climb
        // clip's tucked and leaning ones) the arms fell short.
        let c = procedural_knight();
        assert!(c.clip_set.ledge.is_none());
        let ik = LedgeIk::new(&c);
        let reaches: Vec<f32> = (0..64)
            .flat_map(|k| reach_at(&c, k as f32 / 64.0, ik.lift_full))
            .collect();
        let most = reaches.iter().fold(0.0f32, |m, &r| m.max(r));
        assert!(
            (most - HANG_REACH).abs() < 2e-3,
            "lift {}: the arms reach at most {most} of their length",
            ik.lift_full
        );
        // The authored clips' lift (the rest pose's) is less: it would
        // leave the climb clip's arms reaching past HANG_REACH.
        let knight = Character::knight().unwrap();
        let rest = LedgeIk::new(&knight).lift_full;
        assert!(rest < ik.lift_full - 0.01, "{rest} vs {}", ik.lift_full);
        let short = (0..64)
            .flat_map(|k| reach_at(&c, k as f32 / 64.0, rest))
            .fold(0.0f32, f32::max);
        assert!(short > HANG_REACH + 0.01, "{short}");
    }

    #[test]
    fn a_procedural_hang_bends_its_elbows_as_its_climb_clip_does() {
        // Down, back and out on each arm's own side.
        let c = procedural_knight();
        let poles = LedgeIk::new(&c).hang_pole.unwrap();
        let f = Vec3::new(c.rig.forward.x, 0.0, c.rig.forward.z).normalize();
        let left = Vec3::Y.cross(f);
        let rest = c.skeleton.rest_pose();
        let mut models = vec![Mat4::IDENTITY; c.skeleton.len()];
        animation::local_to_model(&c.skeleton, &rest.locals, &mut models);
        for (k, pole) in poles.iter().enumerate() {
            let side = pos(&models[c.arms[k].start]).dot(left).signum();
            assert!(pole.y < 0.0 && pole.dot(f) < 0.0, "{pole}");
            assert!(pole.dot(left) * side > 0.0, "arm {k}: {pole}");
        }
        // Authored ledge clips place the elbows themselves.
        assert!(
            LedgeIk::new(&Character::knight().unwrap())
                .hang_pole
                .is_none()
        );
    }
}
