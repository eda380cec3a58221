//! Motion metrics of a run: does the knight really stand on the world?
//!
//! Recorded per frame from the final pose (after IK), independently of how the
//! pipeline computed its targets: planted feet are measured by the sole point
//! of the posed foot against the level's ground line, sliding by the posed
//! ankle's travel while planted, rung contact by the posed wrist or ankle
//! against the nearest real rung of the ladder, a hand on a ledge by the
//! posed wrist against the corner the controller holds.

use glam::{Quat, Vec2, Vec3};
use serde::Serialize;

use crate::character::Character;
use crate::character::pose_pipeline::{PosePipeline, SOLE_FIT_BALL};
use crate::sim::player::{Locomotion, Player, foot_probe_range};
use crate::sim::world::{FloorHit, FloorKind, Level};

/// A foot counts as planted at this contact weight or more.
pub const PLANTED_CONTACT: f32 = 0.9;
/// A foot's skinned mesh touches the floor when its nearest vertex is this
/// close above it (or under it), metres: 5 mm, half the sole targets' 1 cm,
/// so a foot resting on its floor counts and one skimming over it in its
/// swing does not.
pub const TOUCH_GAP: f32 = 0.005;
/// Seconds after a locomotion state change during which joint speeds are not
/// judged (landing, grabbing a ladder and stepping off are meant to be quick).
pub const STATE_CHANGE_GRACE: f32 = 0.3;
/// Half-width of the ground that must be flat under the player for a frame to
/// count in the flat-ground IK comparison, metres (a stride and a bit).
pub const FLAT_HALF_WIDTH: f32 = 0.9;
/// Seconds of steady walking or running on flat ground before the
/// flat-ground comparison starts (the pelvis rises back from slopes with a
/// time constant of 0.15 s, released feet blend back with 0.08 s).
pub const FLAT_SETTLE: f32 = 1.0;

/// One foot in one frame. A foot is planted when its clip says it is in
/// contact and the pipeline has locked it to the ground.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct FootFrame {
    /// Contact weight from the clip (0 swinging, 1 planted).
    pub contact: f32,
    /// Whether the foot counts as planted this frame.
    pub planted: bool,
    /// Distance of the sole from the ground surface, metres (planted only).
    pub ground_error_m: Option<f32>,
    /// The same for a foot the clip puts on the ground that is not locked
    /// yet (see [`Summary::unlocked_contact_max_error_m`]).
    pub unlocked_error_m: Option<f32>,
    /// How deep the skinned foot's deepest vertex lies under the floor
    /// beneath it, for a foot the clip has on the ground (see
    /// [`Summary::sole_penetration_max_m`]), metres; 0 when none is under.
    pub sole_penetration_m: Option<f32>,
    /// How high the skinned foot's nearest vertex floats above the floor
    /// beneath it, for a foot the clip has on the ground (see
    /// [`Summary::sole_float_max_m`]), metres; 0 when one touches or is
    /// under.
    pub sole_float_m: Option<f32>,
    /// How deep the skinned foot's deepest vertex lies under the floor
    /// beneath it for a foot the clip has off the ground (see
    /// [`Summary::swing_penetration_max_m`]), metres; 0 when none is under.
    pub swing_penetration_m: Option<f32>,
    /// How far the point the skinned foot touches the floor with has
    /// slipped along it since the foot came to touch it, metres (see
    /// [`Summary::touch_slide_max_m`]); absent while it does not touch.
    pub touch_slide_m: Option<f32>,
}

/// One frame of a run.
#[derive(Clone, Debug, Serialize)]
pub struct FrameRecord {
    /// Frame number (one per simulation step).
    pub frame: u64,
    /// Feet position.
    pub pos: [f32; 2],
    /// Locomotion state.
    pub state: &'static str,
    /// Pelvis drop, metres.
    pub pelvis_drop: f32,
    /// Left and right foot.
    pub feet: [FootFrame; 2],
    /// Largest rung contact error this frame, when a limb holds a rung.
    pub rung_error_m: Option<f32>,
    /// Largest distance of a gripping hand from the nearest rung this frame.
    pub hand_hold_error_m: Option<f32>,
    /// Largest distance of a hand gripping a ledge from its hold on the
    /// corner this frame.
    pub ledge_hand_error_m: Option<f32>,
    /// The root's snap this frame (see [`Summary::max_root_snap_m`]), metres.
    pub root_snap_m: f32,
    /// Largest joint angular speed this frame, rad/s.
    pub max_angular_speed: f32,
    /// Largest joint displacement by IK this frame, on settled flat ground.
    pub flat_ik_delta_m: Option<f32>,
    /// The joint that turned fastest this frame.
    pub fastest_joint: usize,
    /// Joints the pose pipeline's speed limit held back this frame.
    pub limited_joints: u32,
    /// Travel of each planted ankle since it was planted, metres.
    pub slide_m: [f32; 2],
    /// Each locomotion layer playing (walk and run clips), the heaviest
    /// first: its playback rate (1 as authored) and share of the layers'
    /// weight.
    pub playback_rate: Vec<GaitRate>,
}

/// One locomotion layer's playback rate in a frame.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct GaitRate {
    /// How fast the clip plays, as a share of its authored speed.
    pub rate: f32,
    /// The layer's share of the frame's layers' weight.
    pub weight: f32,
}

/// A 64-bit value as 16 hex digits (JSON numbers lose bits past 2^53).
fn hex64<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:016x}"))
}

/// The numbers a run is judged by.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Frames recorded.
    pub frames: u64,
    /// Frames whose pose or palette held a NaN or infinity.
    pub nan_count: u64,
    /// Largest distance of a planted foot's sole from the ground, metres
    /// (the sole judged as a rigid line from its heel to its ball, see
    /// `sole_error`).
    pub planted_foot_max_error_m: f32,
    /// Largest travel of what a planted foot stands on while it stays
    /// planted, metres: the sole point foot IK holds it on as the foot
    /// rolls (its heel, then its ball; a plant starts anew on each), else
    /// its ankle.
    pub stance_slide_max_m: f32,
    /// Largest joint angular speed over every frame, rad/s (the breakdown
    /// by cause is [`Summary::joint_speed_by_cause`]).
    pub max_joint_angular_speed_rad_s: f32,
    /// The same maximum split by what the frame was doing.
    pub joint_speed_by_cause: JointSpeedBreakdown,
    /// Frames in which the pose pipeline's joint speed limit held at least
    /// one joint back (`MAX_JOINT_SPEED`): how often IK asked for more.
    pub joint_speed_limited_frames: u64,
    /// Largest jump of the character's root (its model placement) in one
    /// frame beyond what its velocity explains, metres. On each axis a
    /// frame's displacement is explained by the simulation's velocity (any
    /// velocity between the last frame's and this one's times the frame: a
    /// take-off, a landing or a wall changes it within a step; a moving
    /// platform's carry counts) or by the root's own motion the frame before
    /// (a smoothing offset easing out, as the root leaves a ladder's depth
    /// while the body meets a wall); the snap is the length of what is left
    /// on the three axes. A root moving at any steady speed, or
    /// with the body's velocity, scores 0; a 0.6 m teleport scores 0.6 m;
    /// an ease that starts abruptly scores its first frame's step.
    pub max_root_snap_m: f32,
    /// Largest speed at which the whole body turns (its model placement's
    /// rotation: facing left or right, onto or off a ladder), rad/s, over
    /// every frame. A mirror flip in one frame scores π × 64.
    pub max_turn_speed_rad_s: f32,
    /// Largest distance of a gripping hand from the nearest rung, over every
    /// frame on a ladder (mounting and dismounting included, a hand above
    /// the top rung included: it grips nothing), metres.
    pub hand_hold_max_error_m: f32,
    /// Hand-frames counted in [`Summary::hand_hold_max_error_m`].
    pub hand_hold_frames: u64,
    /// Frames on a ladder in which the hands are taken onto or off it (the
    /// ladder's hold fading in or out), left out of the hand hold.
    pub hand_release_frames: u64,
    /// Largest distance of a hand gripping a ledge from its hold on the
    /// corner (the corner plus the rig's `wrist_from_rung`, measured across
    /// the edge: in x and y, the edge running along z), over every frame in
    /// which the ledge IK holds that hand fully (hanging, and climbing over
    /// until the hand lets go), metres.
    pub ledge_hand_max_error_m: f32,
    /// Frames spent on a ledge (catching it, hanging, climbing over it).
    pub ledge_frames: u64,
    /// Hand-frames counted in [`Summary::ledge_hand_max_error_m`].
    pub ledge_grip_frames: u64,
    /// Largest distance of a gripping hand or standing foot from its rung
    /// while climbing the rungs (not while climbing over the top), metres.
    pub rung_contact_max_error_m: f32,
    /// Largest joint displacement IK made on flat ground, metres (IK on vs off).
    pub ik_flat_ground_delta_m: f32,
    /// Frames with at least one planted foot.
    pub planted_frames: u64,
    /// Foot-frames whose clip says "in contact" but whose foot was not yet
    /// locked to the ground (still coming down after a stop or a landing).
    pub unlocked_contact_frames: u64,
    /// Largest distance from the ground of a foot the clip has in contact
    /// but the pipeline has not locked yet, metres: its sole judged as a
    /// planted one is (see `sole_error`: a foot coming down on its heel or
    /// its ball is on the ground).
    pub unlocked_contact_max_error_m: f32,
    /// Largest depth of a foot's skinned mesh under the floor, over every
    /// foot the clip has on the ground (contact at least
    /// [`PLANTED_CONTACT`], on settled ground; locked or not, and stepping
    /// too, lifted in an arc by foot IK): each vertex
    /// of the foot (skinned at least half to the ankle or a joint below it)
    /// is posed on the CPU from the frame's palette and measured across the
    /// floor beneath it, heel, ball and toe alike, metres. Measured in the
    /// metrics only, never in the game loop.
    pub sole_penetration_max_m: f32,
    /// Largest gap between such a foot's mesh and the floor: the nearest
    /// vertex's height above the floor beneath it when no vertex touches,
    /// metres (see [`Summary::sole_penetration_max_m`]); 0 for a foot
    /// stepping (lifted in an arc on purpose, see `LimbDebug::stepping`).
    pub sole_float_max_m: f32,
    /// Foot-frames counted in [`Summary::sole_penetration_max_m`] and
    /// [`Summary::sole_float_max_m`] (0 for a character without a mesh).
    pub sole_frames: u64,
    /// Largest depth of a foot's skinned mesh under the floor for a foot the
    /// clip has off the ground (contact under [`PLANTED_CONTACT`]: lifting,
    /// swinging, coming down), on settled ground, measured as
    /// [`Summary::sole_penetration_max_m`] is, metres. A swinging foot is
    /// not held to the floor, but it is kept out of it: a toe through a
    /// slope as the foot swings up it is as visible as one planted in it.
    pub swing_penetration_max_m: f32,
    /// Foot-frames counted in [`Summary::swing_penetration_max_m`].
    pub swing_frames: u64,
    /// Largest slip of a foot touching the floor, whatever its clip says,
    /// metres: from the frame a foot's skinned mesh comes within
    /// [`TOUCH_GAP`] of the floor until it leaves it, each frame's travel
    /// along the floor of the vertex touching it (its nearest) since the
    /// frame before, summed. A foot that rolls from heel to toe touches
    /// with one point after another, each still while it touches, and
    /// slips by nothing; one that skates, or scuffs the floor in its swing,
    /// slips by as far as it goes. Unlike
    /// [`Summary::stance_slide_max_m`] it does not ask the clip or foot IK
    /// whether the foot is down: a clip whose feet never stand still is
    /// measured too. A foot swivelling on the floor as the body turns round
    /// slips by as far as its touching point sweeps (about the ankle, as
    /// foot IK turns it). On settled ground; on a lift, in the lift's
    /// frame.
    pub touch_slide_max_m: f32,
    /// Foot-frames touching the floor (counted in
    /// [`Summary::touch_slide_max_m`]; 0 for a character without a mesh).
    pub touch_frames: u64,
    /// Limb-frames in a grip with no rung within half a rung spacing (a hand
    /// above the ladder's top, a foot below its first rung).
    pub rung_missing_frames: u64,
    /// Frames with a limb on a rung.
    pub rung_contact_frames: u64,
    /// Frames counted as flat ground.
    pub flat_ground_frames: u64,
    /// IK solves refused for bad input.
    pub ik_errors: u64,
    /// Where the player ended.
    pub final_pos: [f32; 2],
    /// The pose checksum of the whole run: FNV-1a over every frame's
    /// skinning palette and world transform
    /// ([`crate::sim::record::PoseChecksum`]), written as 16 hex digits.
    /// Equal checksums mean bit-identical poses on every frame: what a
    /// replay of a recording must reproduce.
    #[serde(serialize_with = "hex64")]
    pub pose_checksum: u64,
    /// Whether the script's goal was reached (absent without a goal).
    pub goal_reached: Option<bool>,
    /// Largest angle of ground under a planted foot, degrees.
    pub max_planted_slope_deg: f32,
    /// Whether the autopilot reached the exit (absent for scripted runs).
    pub exit_reached: Option<bool>,
    /// Frames the autopilot took to reach the exit.
    pub autopilot_frames_to_exit: Option<u64>,
    /// Why the autopilot could not finish: where (x, y, the move it was
    /// on) and why.
    pub autopilot_failure: Option<String>,
    /// Slowest and fastest playback rate of the locomotion layers (walk and
    /// run play in one phase, at one rate relative to their blend's
    /// authored cycle) over the frames in which they carry the whole pose
    /// (at least 99 % of the layers' weight: not while the idle or a
    /// crossfade blends in) and play (rate above 0); absent with no such
    /// frame. The stride makes up the rest of the ground speed
    /// (`anim_state::MIN_PLAYBACK_RATE`, `MAX_PLAYBACK_RATE`,
    /// `MAX_STRIDE_LEGS`) for every character whose clips can be helped
    /// (`anim_state::fastest_rate`).
    pub playback_rate_min: Option<f32>,
    /// See [`Summary::playback_rate_min`].
    pub playback_rate_max: Option<f32>,
}

/// The largest joint angular speed by the kind of frame it happened in,
/// rad/s. Every frame is in exactly one of these.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct JointSpeedBreakdown {
    /// Frames in a settled locomotion state whose clips do not blend
    /// between states.
    pub steady: f32,
    /// The first [`STATE_CHANGE_GRACE`] seconds of a locomotion state
    /// (take-off, landing, grabbing a ladder, stepping off one).
    pub state_change: f32,
    /// Settled frames whose clips blend between states (walk into idle,
    /// ground into climb).
    pub blend: f32,
}

/// Accumulates frames and the summary.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// Every frame, in order.
    pub frames: Vec<FrameRecord>,
    /// The summary so far.
    pub summary: Summary,
    prev_rotations: Vec<Quat>,
    plant_start: [Option<(Vec3, Option<u16>)>; 2],
    /// The sole point each planted foot stood on last frame (see
    /// `LimbDebug::pivot`).
    plant_point: [Option<u8>; 2],
    flat_time: f32,
    prev_speed: f32,
    /// The root's position and its displacement over the frame before.
    prev_root: Option<(Vec3, Option<Vec3>)>,
    /// The simulation's velocity last frame.
    prev_vel: Vec3,
    /// The model placement's rotation last frame.
    prev_turn: Option<Quat>,
    /// Every frame's pose so far.
    checksum: crate::sim::record::PoseChecksum,
    /// Each foot's mesh vertices (see [`foot_vertices`]), found on the
    /// first frame.
    soles: Option<[Vec<usize>; 2]>,
    /// Each foot's vertices last frame (world, less the lift's position it
    /// touched, if any) while it touched the floor, the lift, and how far
    /// it has slipped since it came to touch it.
    touch: [Option<Touch>; 2],
}

/// A foot touching the floor (see [`Summary::touch_slide_max_m`]).
#[derive(Clone, Debug, Default)]
struct Touch {
    points: Vec<Vec3>,
    platform: Option<u16>,
    slid: f32,
}

impl Recorder {
    /// Records the frame the pipeline just produced.
    pub fn record(
        &mut self,
        level: &Level,
        player: &Player,
        c: &Character,
        p: &PosePipeline,
        dt: f32,
    ) {
        let s = &mut self.summary;
        let frame = s.frames;
        s.frames += 1;
        s.final_pos = player.pos.to_array();
        self.checksum.add(p);
        s.pose_checksum = self.checksum.value();
        s.ik_errors += u64::from(p.debug.ik_errors);
        let finite = p.palette().iter().all(|m| m.is_finite())
            && p.models.iter().all(|m| m.is_finite())
            && p.world.is_finite();
        if !finite {
            s.nan_count += 1;
        }

        let settled = player.state_time >= STATE_CHANGE_GRACE;
        let on_ground =
            player.state == Locomotion::Ground && settled && p.debug.ground_weight >= 0.999;
        let mut feet = [FootFrame::default(); 2];
        let mut slide = [0.0f32; 2];
        for (i, leg) in c.legs.iter().enumerate() {
            let mut unlocked_error = None;
            let contact = p.debug.feet[i].contact;
            let ankle_m = p.world * p.models[leg.end];
            let ankle = ankle_m.w_axis.truncate();
            let sole = ankle_m.transform_point3(c.sole_local[i]);
            // The sole as a rigid line along the foot (a foot over a convex
            // edge rests on the edge).
            let fwd = ankle_m
                .transform_vector3(c.rest_ankle_rotation[i].inverse() * c.rig.forward)
                .normalize_or(Vec3::X);
            let planted = on_ground && contact >= PLANTED_CONTACT && p.debug.feet[i].locked;
            if on_ground
                && contact >= PLANTED_CONTACT
                && !p.debug.feet[i].locked
                && !p.debug.feet[i].stepping
            {
                s.unlocked_contact_frames += 1;
                // Not locked yet (settling onto a new slope), but the clip
                // says the foot is on the ground: it must be, too. Judged
                // as a planted sole is (a foot coming down on its heel or
                // its ball is on the ground).
                if let Some(err) = sole_error(level, player, sole, fwd, sole_line(c, i)) {
                    s.unlocked_contact_max_error_m = s.unlocked_contact_max_error_m.max(err);
                    unlocked_error = Some(err);
                }
            }
            let soles = self.soles.get_or_insert_with(|| foot_vertices(c));
            // A foot stepping while its clip has it down (lifted in an arc
            // by foot IK, see `LimbDebug::stepping`: a re-step while the
            // body stands, a step round as it turns) is in its swing, not
            // on the ground: it is not held to the floor, but it is still
            // kept out of it.
            let stepping = p.debug.feet[i].stepping;
            let mesh_gap = (on_ground && contact >= PLANTED_CONTACT)
                .then(|| sole_gap(level, player, c, p, &soles[i]))
                .flatten()
                .map(|(under, over)| {
                    if stepping {
                        (under, 0.0)
                    } else {
                        (under, over)
                    }
                });
            if let Some((under, over)) = mesh_gap {
                s.sole_frames += 1;
                s.sole_penetration_max_m = s.sole_penetration_max_m.max(under);
                s.sole_float_max_m = s.sole_float_max_m.max(over);
            }
            feet[i] = FootFrame {
                contact,
                planted,
                ground_error_m: None,
                unlocked_error_m: unlocked_error,
                sole_penetration_m: mesh_gap.map(|g| g.0),
                sole_float_m: mesh_gap.map(|g| g.1),
                swing_penetration_m: None,
                touch_slide_m: None,
            };
            if on_ground
                && contact < PLANTED_CONTACT
                && let Some((under, _)) = sole_gap(level, player, c, p, &soles[i])
            {
                s.swing_frames += 1;
                s.swing_penetration_max_m = s.swing_penetration_max_m.max(under);
                feet[i].swing_penetration_m = Some(under);
            }
            let touch = self.touch[i].take();
            if on_ground && let Some(t) = touch_slide(level, player, c, p, &soles[i], touch) {
                s.touch_frames += 1;
                s.touch_slide_max_m = s.touch_slide_max_m.max(t.slid);
                feet[i].touch_slide_m = Some(t.slid);
                self.touch[i] = Some(t);
            }
            if !planted {
                self.plant_start[i] = None;
                self.plant_point[i] = None;
                continue;
            }
            let floor = foot_floor(level, player, sole.x);
            if let Some(f) = floor {
                let err = sole_error(level, player, sole, fwd, sole_line(c, i)).unwrap_or(0.0);
                feet[i].ground_error_m = Some(err);
                s.planted_foot_max_error_m = s.planted_foot_max_error_m.max(err);
                s.max_planted_slope_deg = s
                    .max_planted_slope_deg
                    .max(f.segment.angle().abs().to_degrees());
            }
            // On a moving platform the foot is measured in the platform's
            // frame: riding along is not sliding.
            // A foot planted across the edge of a platform may find the
            // platform under its sole on one frame and the ground beside it
            // on the next: the plant's start is carried over into the new
            // frame where it was last frame, so the change of frame itself
            // is not a slide (it read as 68 m).
            // Which floor's frame: the one under the ankle, where foot IK
            // finds the floor it holds the foot on (a sole reaching from
            // the ground over the edge of a lift that then moved away read
            // as 47 mm of slide, though the foot stood still on the
            // ground).
            let held_on = foot_floor(level, player, ankle.x);
            let platform = match held_on.map(|f| f.kind()) {
                Some(FloorKind::Platform(k)) => Some(k),
                _ => None,
            };
            let frame_of = |k: Option<u16>| {
                k.and_then(|k| level.platforms.get(k as usize))
                    .map_or(Vec3::ZERO, |p| p.pos.extend(0.0))
            };
            // What a planted foot stands on holds still: the sole point
            // foot IK holds it on (its heel or ball, as the foot rolls from
            // one to the other), else its ankle. Rolling onto another
            // point starts a new plant there.
            let point = p.debug.feet[i].pivot.map(|(k, _)| k);
            let held = point
                .and_then(|k| c.sole_points[i].get(usize::from(k)))
                .map_or(ankle, |&q| ankle_m.transform_point3(q));
            if point != self.plant_point[i] {
                self.plant_start[i] = None;
                self.plant_point[i] = point;
            }
            let start = plant_start_in(self.plant_start[i], platform, held, frame_of);
            self.plant_start[i] = Some((start, platform));
            slide[i] = (held - frame_of(platform) - start).length();
            s.stance_slide_max_m = s.stance_slide_max_m.max(slide[i]);
        }
        if feet.iter().any(|f| f.planted) {
            s.planted_frames += 1;
        }

        // Rung contact: gripping limbs against the nearest real rung.
        let mut rung_error = None;
        // Climbing the rungs only: climbing over the top (an `LadderMove`) the
        // feet leave the rungs for the floor and the hands hold the rails;
        // those frames are judged by the hand hold, the root snap and the
        // joint speeds below.
        if let Locomotion::Ladder(li) = player.state
            && let Some(ladder) = level.ladders.get(li)
            && settled
            && player.ladder_move.is_none()
            && p.debug.climb_weight >= 0.999
        {
            let limbs = c
                .arms
                .iter()
                .take(2)
                .zip(&p.debug.hands)
                .map(|(l, d)| (l, d, c.rig.wrist_from_rung, true))
                .chain(
                    c.legs
                        .iter()
                        .zip(&p.debug.rung_feet)
                        .map(|(l, d)| (l, d, c.rig.ankle_from_rung, false)),
                );
            for (limb, d, offset, hand) in limbs {
                // A hand letting go of a rung the body rose out of its
                // reach is counted as releasing (see the hand hold below).
                if d.contact < PLANTED_CONTACT || (hand && d.weight < 0.999) {
                    continue;
                }
                let end = (p.world * p.models[limb.end]).w_axis.truncate();
                let o = p.world.transform_vector3(offset);
                // A hand also holds the rails' rungs above the top.
                let nearest = if hand {
                    ladder
                        .hold_for(end.y - o.y, true)
                        .or(ladder.nearest_grip(end.y - o.y))
                } else {
                    ladder.nearest_rung(end.y - o.y)
                };
                let Some(r) = nearest else {
                    continue;
                };
                // The rung is a bar along X in the plane z = 0: only height and
                // depth matter.
                let err = ((end.y - (r + o.y)).powi(2) + (end.z - o.z).powi(2)).sqrt();
                if err > 0.5 * ladder.rung_spacing {
                    // Above the top rung or below the first: nothing to hold.
                    s.rung_missing_frames += 1;
                    continue;
                }
                rung_error = Some(rung_error.map_or(err, |e: f32| e.max(err)));
            }
            if let Some(e) = rung_error {
                s.rung_contact_frames += 1;
                s.rung_contact_max_error_m = s.rung_contact_max_error_m.max(e);
            }
        }

        // Hand hold: every frame on a ladder (climbing over its top too)
        // in which the ladder holds the hands fully (not while they reach
        // for the first rungs as a climb starts, nor while they let go as the
        // body steps off; [`Summary::hand_release_frames`] counts those),
        // every gripping hand against its hold however far: the nearest grip,
        // or above the rails' top the highest one ([`Ladder::hold_for`]).
        let mut hand_error = None;
        let on_ladder = match player.state {
            Locomotion::Ladder(li) => level.ladders.get(li),
            _ => None,
        };
        let arms = c.arms.len().min(2);
        let letting_go = p.debug.hands[..arms].iter().any(|h| h.weight < 0.999);
        if on_ladder.is_some() && (p.debug.climb_weight < 0.999 || letting_go) {
            s.hand_release_frames += 1;
        }
        if let Some(ladder) = on_ladder
            && p.debug.climb_weight >= 0.999
        {
            for (limb, d) in c.arms.iter().take(2).zip(&p.debug.hands) {
                // A hand the ladder holds (not one letting go of a hold the
                // body rose out of its reach: counted as releasing).
                if d.contact < PLANTED_CONTACT || d.weight < 0.999 {
                    continue;
                }
                let end = (p.world * p.models[limb.end]).w_axis.truncate();
                let o = p.world.transform_vector3(c.rig.wrist_from_rung);
                let y = end.y - o.y;
                let Some(r) = ladder.hold_for(y, true).or(ladder.nearest_grip(y)) else {
                    continue;
                };
                let err = ((end.y - (r + o.y)).powi(2) + (end.z - o.z).powi(2)).sqrt();
                s.hand_hold_frames += 1;
                s.hand_hold_max_error_m = s.hand_hold_max_error_m.max(err);
                hand_error = Some(hand_error.map_or(err, |e: f32| e.max(err)));
            }
        }

        // Ledge hold: each hand the ledge IK holds fully, against the
        // corner the controller holds (not the IK's own target).
        let mut ledge_error = None;
        if player.state == Locomotion::Ledge {
            s.ledge_frames += 1;
        }
        if let Some(hang) = player.ledge.filter(|_| player.state == Locomotion::Ledge) {
            let o = p.world.transform_vector3(c.rig.wrist_from_rung);
            let hold = hang.ledge.corner + Vec2::new(o.x, o.y);
            for (k, arm) in c.arms.iter().take(2).enumerate() {
                if p.ledge.grip[k] < 0.999 {
                    continue;
                }
                let end = (p.world * p.models[arm.end]).w_axis.truncate();
                let err = (end.truncate() - hold).length();
                s.ledge_grip_frames += 1;
                s.ledge_hand_max_error_m = s.ledge_hand_max_error_m.max(err);
                ledge_error = Some(ledge_error.map_or(err, |e: f32| e.max(err)));
            }
        }

        // Flat ground: IK must leave the animation alone.
        let mut flat_delta = None;
        // Steady walking only: starting and stopping move planted feet in the
        // animation itself (the idle pose blends in), which the locks hold.
        let steady = (player.vel.x.abs() - self.prev_speed).abs() < 1e-3;
        self.prev_speed = player.vel.x.abs();
        let flat = on_ground && steady && is_flat(level, player.pos);
        self.flat_time = if flat { self.flat_time + dt } else { 0.0 };
        if flat && self.flat_time >= FLAT_SETTLE {
            s.flat_ground_frames += 1;
            let delta = p
                .models
                .iter()
                .zip(&p.animated)
                .map(|(a, b)| (a.w_axis - b.w_axis).truncate().length())
                .fold(0.0f32, f32::max);
            s.ik_flat_ground_delta_m = s.ik_flat_ground_delta_m.max(delta);
            flat_delta = Some(delta);
        }

        // Joint angular speed (local rotations, so turning the whole body
        // about its root does not count).
        let mut max_speed = 0.0f32;
        let mut fastest_joint = 0;
        if self.prev_rotations.len() == p.pose.locals.len() && dt > 0.0 {
            for (j, (prev, now)) in self.prev_rotations.iter().zip(&p.pose.locals).enumerate() {
                let dot = prev.dot(now.rotation).abs().min(1.0);
                let speed = 2.0 * dot.acos() / dt;
                if speed > max_speed {
                    max_speed = speed;
                    fastest_joint = j;
                }
            }
        }
        self.prev_rotations.clear();
        self.prev_rotations
            .extend(p.pose.locals.iter().map(|t| t.rotation));
        if p.debug.limited_joints > 0 {
            s.joint_speed_limited_frames += 1;
        }
        if max_speed.is_finite() {
            s.max_joint_angular_speed_rad_s = s.max_joint_angular_speed_rad_s.max(max_speed);
            let b = &mut s.joint_speed_by_cause;
            let cause = if !settled {
                &mut b.state_change
            } else if p.debug.transition {
                &mut b.blend
            } else {
                &mut b.steady
            };
            *cause = cause.max(max_speed);
        }

        // Turning: the placement's rotation from one frame to the next.
        let (_, turn, _) = p.world.to_scale_rotation_translation();
        if let Some(prev) = self.prev_turn.replace(turn)
            && dt > 0.0
        {
            let speed = 2.0 * prev.dot(turn).abs().min(1.0).acos() / dt;
            if speed.is_finite() {
                s.max_turn_speed_rad_s = s.max_turn_speed_rad_s.max(speed);
            }
        }

        // Root snap: the displacement beyond what a velocity explains. The
        // body's velocity is its own plus that of a moving platform it
        // stands on, or the carry it keeps in the air after leaving one:
        // stepping onto a platform takes its speed within a step, as a
        // take-off does.
        let root = p.world.w_axis.truncate();
        let carry = match player.floor {
            FloorKind::Platform(k) if player.state == Locomotion::Ground => level
                .platforms
                .get(k as usize)
                .map_or(Vec2::ZERO, |q| q.delta() / dt.max(1e-6)),
            _ => Vec2::new(player.carry_vx, 0.0),
        };
        let vel = (player.vel + carry).extend(0.0);
        let prev_vel = std::mem::replace(&mut self.prev_vel, vel);
        let mut root_snap = 0.0;
        if let Some((prev, prev_delta)) = self.prev_root {
            let delta = root - prev;
            if let Some(pd) = prev_delta {
                let by_sim = beyond_box(delta, prev_vel * dt, vel * dt);
                let by_own = (delta - pd).abs();
                root_snap = by_sim.min(by_own).length();
                if root_snap.is_finite() {
                    s.max_root_snap_m = s.max_root_snap_m.max(root_snap);
                }
            }
            self.prev_root = Some((root, Some(delta)));
        } else {
            self.prev_root = Some((root, None));
        }

        let gait_share: f32 = p.debug.gait_rates.iter().flatten().map(|r| r.1).sum();
        if let Some((rate, _)) = p.debug.gait_rates[0].filter(|r| r.0 > 0.0 && gait_share >= 0.99) {
            s.playback_rate_min = Some(s.playback_rate_min.map_or(rate, |m| m.min(rate)));
            s.playback_rate_max = Some(s.playback_rate_max.map_or(rate, |m| m.max(rate)));
        }
        self.frames.push(FrameRecord {
            frame,
            pos: player.pos.to_array(),
            state: match player.state {
                Locomotion::Ground => "ground",
                Locomotion::Air => "air",
                Locomotion::Ladder(_) => "ladder",
                Locomotion::Ledge => "ledge",
            },
            pelvis_drop: p.debug.pelvis_drop,
            feet,
            rung_error_m: rung_error,
            hand_hold_error_m: hand_error,
            ledge_hand_error_m: ledge_error,
            root_snap_m: root_snap,
            max_angular_speed: max_speed,
            fastest_joint,
            limited_joints: p.debug.limited_joints,
            slide_m: slide,
            playback_rate: p
                .debug
                .gait_rates
                .iter()
                .flatten()
                .map(|&(rate, weight)| GaitRate { rate, weight })
                .collect(),
            flat_ik_delta_m: flat_delta,
        });
    }
}

/// How far beyond a floor's end [`sole_gap`] looks for lower ground (a
/// riser face), and how much lower it must be, metres.
const RISER_PROBE: f32 = 0.02;

/// Each leg's foot as mesh vertices: those skinned at least half to the
/// ankle joint or a joint below it (the toe), by index into the
/// character's mesh; none without a mesh.
fn foot_vertices(c: &Character) -> [Vec<usize>; 2] {
    match &c.mesh {
        Some(mesh) => [0, 1].map(|i| c.foot_vertices(mesh, i)),
        None => [Vec::new(), Vec::new()],
    }
}

/// Vertex `v` of `mesh` posed by the frame's `palette` (linear blend
/// skinning on the CPU, as the vertex shader does), in the world; `None`
/// for a vertex or joint the mesh or palette lacks.
fn skinned(
    mesh: &crate::character::CharacterMesh,
    palette: &[glam::Mat4],
    p: &PosePipeline,
    v: usize,
) -> Option<Vec3> {
    let (js, ws) = (mesh.joints.get(v)?, mesh.weights.get(v)?);
    let rest = *mesh.positions.get(v)?;
    let mut at = Vec3::ZERO;
    for (j, w) in js.iter().zip(ws) {
        if *w > 0.0 {
            at += palette.get(usize::from(*j))?.transform_point3(rest) * *w;
        }
    }
    Some(p.world.transform_point3(at))
}

/// The skinned foot (vertices `verts` of the character's mesh, posed by
/// the frame's palette) against the floor beneath each vertex, measured
/// across the floor: how deep the deepest vertex lies under it (0 when
/// none does) and how high the nearest floats above it when none touches
/// (0 otherwise), metres. `None` without vertices or floor.
fn sole_gap(
    level: &Level,
    player: &Player,
    c: &Character,
    p: &PosePipeline,
    verts: &[usize],
) -> Option<(f32, f32)> {
    let mesh = c.mesh.as_ref()?;
    let palette = p.palette();
    let (mut under, mut nearest) = (0.0f32, f32::INFINITY);
    for &v in verts {
        let at = skinned(mesh, palette, p, v)?;
        let Some(f) = foot_floor(level, player, at.x) else {
            continue;
        };
        let seg = f.segment;
        let gap = (at.y - seg.height_at(at.x)) * f.normal().y;
        nearest = nearest.min(gap);
        if gap >= 0.0 {
            continue;
        }
        // Under a floor near its end where the ground beyond steps down
        // (a stair's tread, a block's top), the vertex is as deep in the
        // solid as it is from the riser face, if that is nearer: a toe
        // 2 cm into a step's riser is 2 cm in, not a step's height.
        let mut depth = -gap;
        for (end, beyond) in [
            (seg.x0, seg.x0 - RISER_PROBE),
            (seg.x1, seg.x1 + RISER_PROBE),
        ] {
            let drops = foot_floor(level, player, beyond)
                .is_none_or(|g| g.segment.height_at(beyond) < seg.height_at(end) - RISER_PROBE);
            if drops {
                depth = depth.min((at.x - end).abs());
            }
        }
        under = under.max(depth);
    }
    nearest.is_finite().then(|| (under, nearest.max(0.0)))
}

/// The foot (vertices `verts`, skinned as in [`sole_gap`]) if it touches
/// the floor this frame (its nearest vertex within [`TOUCH_GAP`] of the
/// floor beneath it), with how far it has slipped since it came to touch
/// it: `last`, what it was last frame if it touched then (on the same lift
/// or none), plus the travel along the floor of this frame's nearest
/// vertex since then. `None` when it does not touch, without vertices or
/// without floor.
fn touch_slide(
    level: &Level,
    player: &Player,
    c: &Character,
    p: &PosePipeline,
    verts: &[usize],
    last: Option<Touch>,
) -> Option<Touch> {
    let mesh = c.mesh.as_ref()?;
    let palette = p.palette();
    let mut t = Touch {
        points: Vec::with_capacity(verts.len()),
        ..Touch::default()
    };
    let mut nearest: Option<(f32, usize, Option<u16>, Vec3)> = None;
    for &v in verts {
        let at = skinned(mesh, palette, p, v)?;
        if let Some(f) = foot_floor(level, player, at.x) {
            let gap = (at.y - f.segment.height_at(at.x)) * f.normal().y;
            if nearest.is_none_or(|(g, ..)| gap < g) {
                let lift = match f.kind() {
                    FloorKind::Platform(k) => Some(k),
                    _ => None,
                };
                nearest = Some((gap, t.points.len(), lift, f.normal().extend(0.0)));
            }
        }
        t.points.push(at);
    }
    let (gap, k, lift, normal) = nearest?;
    if gap > TOUCH_GAP {
        return None;
    }
    let frame = lift
        .and_then(|k| level.platforms.get(usize::from(k)))
        .map_or(Vec3::ZERO, |p| p.pos.extend(0.0));
    for q in &mut t.points {
        *q -= frame;
    }
    t.slid = match last {
        Some(l) if l.platform == lift && l.points.len() == t.points.len() => {
            // Along the floor only: a vertex coming down onto it as the
            // foot rolls flat (its heel, then its ball) is not slipping.
            let d = t.points[k] - l.points[k];
            l.slid + (d - normal * d.dot(normal)).length()
        }
        _ => 0.0,
    };
    t.platform = lift;
    Some(t)
}

/// How far `p` lies outside the box with corners `a` and `b`, on each axis:
/// each axis's displacement explained by any velocity along that axis
/// between the last frame's and this one's (a body that meets a wall while
/// it falls stops across within the step and goes on falling).
fn beyond_box(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    (p - p.clamp(a.min(b), a.max(b))).abs()
}

/// Whether the ground is one flat level stretch within [`FLAT_HALF_WIDTH`]
/// of `x`.
fn is_flat(level: &Level, feet: Vec2) -> bool {
    let near = |x: f32| {
        let (top, depth) = foot_probe_range(feet, x);
        level.floor_below(x, top, depth)
    };
    let Some(h) = near(feet.x) else {
        return false;
    };
    (0..=8).all(|k| {
        let xi = feet.x - FLAT_HALF_WIDTH + k as f32 * (FLAT_HALF_WIDTH / 4.0);
        near(xi).is_some_and(|hi| (hi.y - h.y).abs() < 1e-5)
    })
}

/// Half the length of the sole line judged against the floor for a
/// character without a mesh, metres: the sole's ball-to-heel contact region
/// of a human foot (about 0.16 m of a 0.26 m foot).
pub const SOLE_HALF_LENGTH: f32 = 0.08;

/// The sole line of foot `i` judged against the floor, metres from the sole
/// point along the foot's forward axis: from its heel to its ball (the
/// share [`SOLE_FIT_BALL`] of its toe's reach, where foot IK rests a sole
/// across a corner), as the foot's mesh has them at rest
/// ([`Character::sole_reach`]); [`SOLE_HALF_LENGTH`] either way without a
/// mesh. Judged on one line of ±8 cm on every model, Mannequiny's bigger
/// foot resting on its heel and ball at the foot of a 45° slope read as
/// floating 9 mm over the corner between them.
fn sole_line(c: &Character, i: usize) -> (f32, f32) {
    let [back, ahead] = c.sole_reach[i];
    if back > 0.0 || ahead > 0.0 {
        (back, ahead * SOLE_FIT_BALL)
    } else {
        (SOLE_HALF_LENGTH, SOLE_HALF_LENGTH)
    }
}

/// How far a planted sole is from the floor, metres along the floor's
/// normal: the larger of how far it floats and how far it sinks. It floats
/// by the smallest height above the floor over five points of the sole line
/// (`line`, see [`sole_line`]: the sole point, its heel and ball and the
/// points halfway to them along the foot's forward axis), so a rigid foot
/// resting on a convex edge, or on its heel and ball across a concave
/// corner, floats by zero; it sinks by how far the sole point itself is
/// under the floor. A point of the line past the end of the floor under the
/// sole point with no floor under it (a ledge's edge) is judged where the
/// line crosses that end: a foot resting on a ledge's edge floats by zero
/// too. (Points over nothing were left out: CesiumMan's foot rolled onto its
/// ball a centimetre inside a ledge read as floating 6.8 mm, its sole point
/// over the floor the only point judged.) (A toe reaching into a riser
/// ahead is not judged here.) `None` without a floor under the sole point.
fn sole_error(
    level: &Level,
    player: &Player,
    sole: Vec3,
    fwd: Vec3,
    line: (f32, f32),
) -> Option<f32> {
    let gap_at = |q: Vec3| {
        foot_floor(level, player, q.x).map(|f| (q.y - f.segment.height_at(q.x)) * f.normal().y)
    };
    let under = foot_floor(level, player, sole.x)?;
    let (seg, ny) = (under.segment, under.normal().y);
    let centre = (sole.y - seg.height_at(sole.x)) * ny;
    // Where the line from the sole point to `q` crosses the end of the
    // floor under the sole point, if `q` lies past that end.
    let at_end = |q: Vec3| {
        let end = if q.x > seg.x1 {
            seg.x1
        } else if q.x < seg.x0 {
            seg.x0
        } else {
            return None;
        };
        let t = (end - sole.x) / (q.x - sole.x);
        let y = sole.y + (q.y - sole.y) * t;
        (t.is_finite() && (0.0..=1.0).contains(&t)).then(|| (y - seg.height_at(end)) * ny)
    };
    let mut floating = centre;
    let (back, ball) = line;
    for along in [-back, -0.5 * back, 0.5 * ball, ball] {
        let q = sole + fwd * along;
        if let Some(g) = gap_at(q).or_else(|| at_end(q)) {
            floating = floating.min(g);
        }
    }
    Some(floating.max(0.0).max(-centre))
}

/// Where a planted ankle started, in the frame of the floor now under its
/// sole (`platform`, `None` for the level's fixed floors; `frame_of` gives a
/// frame's origin now): the recorded start, carried over from the frame it
/// was recorded in where the floor under the sole changed during the plant,
/// or the ankle itself for a new plant.
fn plant_start_in(
    recorded: Option<(Vec3, Option<u16>)>,
    platform: Option<u16>,
    ankle: Vec3,
    frame_of: impl Fn(Option<u16>) -> Vec3,
) -> Vec3 {
    match recorded {
        Some((start, was)) if was == platform => start,
        Some((start, was)) => start + frame_of(was) - frame_of(platform),
        None => ankle - frame_of(platform),
    }
}

/// The floor a foot at `x` should stand on: what the foot probe looks for
/// ([`foot_probe_range`]), moving platforms included.
fn foot_floor(level: &Level, player: &Player, x: f32) -> Option<FloorHit> {
    let x = player.foot_probe_x(x);
    let (top, depth) = foot_probe_range(player.pos, x);
    crate::sim::player::foot_floor(level, player.pos, x, top, depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::world::GroundSegment;

    #[test]
    fn a_sole_resting_on_its_heel_and_ball_across_a_corner_is_on_the_floor() {
        // Flat floor to x = 1, then a 45° rise. A rigid sole of a foot
        // whose heel lies 11 cm behind its sole point and ball 12 cm ahead,
        // resting on both across the corner, its sole point over the flat:
        // judged on its own heel-to-ball line it is on the floor; on 8 cm
        // either way it read as floating over the corner; and a sole point
        // under the floor still sinks.
        let level = Level::of_floors(
            "corner",
            vec![
                GroundSegment::ground(-5.0, 1.0, 0.0, 0.0),
                GroundSegment::ground(1.0, 3.0, 0.0, 2.0),
            ],
        );
        let player = Player::new(Vec2::new(0.8, 0.0));
        // The sole pitched 20° up, its heel on the flat and its ball (23 cm
        // on) on the slope.
        let (back, ball) = (0.11, 0.12);
        let fwd = Vec3::new(20f32.to_radians().cos(), 20f32.to_radians().sin(), 0.0);
        let heel = Vec3::new(1.0 + (back + ball) * (fwd.y - fwd.x), 0.0, 0.0);
        let sole = heel + fwd * back;
        assert!(sole.x < 1.0, "{sole}");
        let own = sole_error(&level, &player, sole, fwd, (back, ball)).unwrap();
        assert!(own < 1e-4, "{own}");
        let knights = sole_error(
            &level,
            &player,
            sole,
            fwd,
            (SOLE_HALF_LENGTH, SOLE_HALF_LENGTH),
        );
        assert!(knights.unwrap() > 0.005, "{knights:?}");
        let sunk = sole_error(&level, &player, sole - Vec3::Y * 0.06, fwd, (back, ball)).unwrap();
        assert!(sunk > 0.005, "{sunk}");
    }

    #[test]
    fn a_sole_rolled_onto_a_ledges_edge_rests_on_it() {
        // A floor ending at x = 1 over a drop of 2 m. A sole pitched 12°
        // toe-down, its sole point 4 cm inside the edge and 4 mm over the
        // floor, its ball 11 cm on (past the edge, over nothing): its line
        // crosses the edge 4.4 mm under the corner, so the foot rests on
        // the edge. Judged on the points over the floor alone (the sole
        // point and the heel side, all above it) it read as floating 4 mm.
        // The same sole lifted 12.5 mm crosses the edge 8 mm over the
        // corner, and floats by that.
        let level = Level::of_floors(
            "ledge",
            vec![
                GroundSegment::ground(-5.0, 1.0, 0.0, 0.0),
                GroundSegment::ground(1.0, 5.0, -2.0, -2.0),
            ],
        );
        let player = Player::new(Vec2::new(0.8, 0.0));
        let a = 12f32.to_radians();
        let fwd = Vec3::new(a.cos(), -a.sin(), 0.0);
        let sole = Vec3::new(0.96, 0.004, 0.0);
        let (back, ball) = (0.075, 0.11);
        let err = sole_error(&level, &player, sole, fwd, (back, ball)).unwrap();
        assert!(err < 1e-4, "{err}");
        let lifted = sole + Vec3::Y * 0.0125;
        let err = sole_error(&level, &player, lifted, fwd, (back, ball)).unwrap();
        assert!((0.0075..0.0085).contains(&err), "{err}");
    }

    #[test]
    fn a_plant_keeps_its_start_when_the_floor_under_it_changes_frame() {
        // A lift 67 m along, moving right 1.5 cm a frame; a foot planted on
        // the ground beside it at x 67.3 whose sole finds the lift on the
        // next frame, not having moved: no slide (it read as the lift's 67 m
        // offset from the level's origin).
        let lift = Vec3::new(67.0, 4.0, 0.0);
        let frame_of = |k: Option<u16>| if k.is_some() { lift } else { Vec3::ZERO };
        let ankle = Vec3::new(67.3, 4.1, 0.0);
        let start = plant_start_in(None, None, ankle, frame_of);
        assert_eq!(start, ankle);
        let on_lift = plant_start_in(Some((start, None)), Some(0), ankle, frame_of);
        assert!((ankle - lift - on_lift).length() < 1e-6);
        // Within one frame the recorded start stands.
        let moved = Vec3::new(0.015, 0.0, 0.0);
        let kept = plant_start_in(Some((on_lift, Some(0))), Some(0), ankle + moved, frame_of);
        assert_eq!(kept, on_lift);
    }

    #[test]
    fn each_axis_is_explained_by_its_own_velocity_change() {
        let dt = 1.0 / 64.0;
        let (falling_on, stopped) = (Vec3::new(3.4, -4.7, 0.0), Vec3::ZERO);
        // Meeting a wall while still falling: across stopped early in the
        // step, down went on. Each lies within its axis's range.
        let wall = Vec3::new(0.004, -0.073, 0.0);
        assert_eq!(beyond_box(wall, falling_on * dt, stopped * dt), Vec3::ZERO);
        // A jump across with no velocity: all of it is unexplained.
        let teleport = Vec3::new(0.6, 0.0, 0.0);
        let left = beyond_box(teleport, stopped * dt, stopped * dt);
        assert!((left.length() - 0.6).abs() < 1e-6, "{left}");
        // A move past the faster of the two velocities: the excess is.
        let past = Vec3::new(0.1, 0.0, 0.0);
        let left = beyond_box(past, falling_on * dt, stopped * dt);
        assert!((left.x - (0.1 - 3.4 * dt)).abs() < 1e-6, "{left}");
    }
}
