//! The per-frame pose pipeline, in one readable place and in this order:
//!
//! 1. **Sample and blend** the clips the state machine chose ([`Layer`]s).
//! 2. **Place the model** in the world: feet position, facing (turns are
//!    smoothed), ladder depth, and step-ups smoothed so the body does not jump.
//! 3. **Foot IK**: a ground probe under each ankle from the level's h(x) and
//!    normal; each foot keeps its animated lift above the ground it is over;
//!    the pelvis is lowered so both feet can reach (no faster than a locked
//!    foot's knee may follow); a two-bone solve per leg
//!    with the knee hinge limited and the foot turned to the surface normal in
//!    proportion to its contact weight, so a swinging foot keeps its animated
//!    orientation. A swinging knee straightens beyond its animation at a
//!    bounded speed, so a leg reaching down a stair never whips. A crowd
//!    solves its legs batched: every knight's targets, then all legs in the
//!    batched solver's lanes, then the corrections
//!    ([`PosePipeline::foot_ik_group`]).
//! 4. **Ladder IK**: hands and feet onto rungs, phase-locked to the climb
//!    cycle. The rung a limb holds is chosen once per grip, from where the
//!    animation puts the limb in the middle of that grip, and the correction
//!    is interpolated between consecutive grips during the reach, so hands and
//!    feet never pop and a held rung never changes.
//! 5. **Joint speed limit**: no joint turns faster than
//!    [`MAX_JOINT_SPEED`] from one frame to the next; a locked foot and a
//!    hand on a rung are solved back onto their holds, other feet reach
//!    theirs at the limit's pace, and a foot locked this frame keeps its
//!    lock only if it is shown on it.
//! 6. **Palette**: model matrices times inverse bind matrices, ready to upload.
//!
//! Everything the pipeline needs is passed in ([`FrameInput`]); everything it
//! remembers between frames (smoothing) and its scratch buffers live in
//! [`PosePipeline`], allocated once per character. A frame allocates nothing.

use std::f32::consts::PI;

use animation::ik::two_bone::{KneeStrategy, Pole, TwoBoneCorrection, TwoBoneOptions};
use animation::ik::{IkError, TwoBoneCoreInput, solve_core_batch};
use animation::{
    BlendLayer, Pose, SamplingCursor, Transform, Wrap, blend, limit_rotations, local_to_model,
    palette, palette_in_place, sample, translate_subtree,
};
use glam::{Affine3A, Mat4, Quat, Vec2, Vec3};

use crate::character::anim_state::{Layer, MAX_LAYERS};
use crate::character::ledge_ik::LedgeIk;
use crate::character::{Character, Grip, Limb};
use crate::sim::player::{Locomotion, MAX_SNAP_DOWN, MAX_STEP_UP, Player, foot_probe_range};
use crate::sim::world::{FloorHit, FloorKind, GroundSegment, Ladder, Level};

/// Characters whose legs [`PosePipeline::foot_ik_group`] gathers into one
/// batched call: sixteen legs, two sets of the batched solver's eight lanes.
pub const GROUP_KNIGHTS: usize = 8;

/// The most the pelvis is lowered for the feet, metres. Half the knight's leg:
/// lower than this the pose reads as kneeling, and no walkable slope (≤ 45°)
/// needs it with feet a stride apart.
pub const MAX_PELVIS_DROP: f32 = 0.45;
/// Fraction of the full leg length a planted leg may extend to before the
/// pelvis is lowered: a leg kept just short of straight never locks or pops.
pub const REACH_FRACTION: f32 = 0.97;
/// A swinging foot's target stays at least this fraction of the leg's length
/// below the hip (a running leg folds about this far at most).
const SWING_FOLD: f32 = 0.45;
/// How far under its hip any foot stays at least, as a share of the leg's
/// length (see its use in `foot_ik`).
const FOLD_LIMIT: f32 = 0.1;
/// A landing's give: fall speeds above `ABSORB_MIN_SPEED` (m/s, a hop's)
/// lower the pelvis toward `ABSORB_PER_SPEED` metres per m/s more, up to
/// `ABSORB_MAX` (chosen by eye: a give a player sees, leaving most of the
/// pelvis drop's `MAX_PELVIS_DROP` for the feet's own reach), eased in and out on a spring of `ABSORB_OMEGA` rad/s aimed there
/// for `ABSORB_HOLD` seconds. The spring gets about 60 % of the way: a
/// 1.5 m drop (5.4 m/s) gives 5 cm, a jump in place 4.4 cm.
const ABSORB_MIN_SPEED: f32 = 2.0;
const ABSORB_PER_SPEED: f32 = 0.025;
const ABSORB_MAX: f32 = 0.12;
const ABSORB_OMEGA: f32 = 16.0;
const ABSORB_HOLD: f32 = 0.12;
/// Seconds to fade foot IK in after landing and out after leaving the ground.
const GROUND_FADE: f32 = 0.1;
/// Climbing over a ladder's top, a hand lets go of a hold farther from the
/// shoulder than this fraction of the arm's length (the arm stretched
/// past what it reaches)...
const ARM_LET_GO_REACH: f32 = 0.97;
/// ... over this many seconds: the hand travels back up to its animation,
/// up to a metre, without whipping the shoulder round (over 0.6 s it turned
/// 33 rad/s).
const ARM_LET_GO_TIME: f32 = 1.2;
/// Fastest a hand is carried onto its hold getting on or off a ladder, m/s
/// (1 m/s left a hand 4 cm off its rung when the climb began).
const ARM_REACH_SPEED: f32 = 1.5;
/// How much faster a ladder limb's solve weight comes in than its target
/// moves onto the hold: the weight is full once the target has moved a
/// quarter of the way, while the correction is still small.
const HOLD_WEIGHT_GAIN: f32 = 4.0;
/// Time constant with which a foot off the ground lets go of how far it
/// reached down below the body's floor, seconds.
const REACH_RELEASE: f32 = 0.05;
/// Soften ratio of ladder IK's limbs: reaches beyond this share of a
/// limb's length approach full extension gradually (see
/// `TwoBoneIk::soften`).
const LADDER_SOFTEN: f32 = 0.95;
/// Seconds to fade ladder IK in and out.
const CLIMB_FADE: f32 = 0.15;
/// Time constant of a swinging foot's ground height, seconds: a step edge
/// passing under the foot is followed within a few frames, not in one.
const FOOT_TAU_SWING: f32 = 0.05;
/// The probe's depth while in the air, metres: deep enough that the foot's
/// ground is known before landing (foot IK is faded out in the air).
const AIR_PROBE_DEPTH: f32 = 3.0;
/// Ground under a swinging foot this far above both where the swing left
/// and where it will land is an obstacle the foot steps over, metres.
const OBSTACLE: f32 = 0.01;
/// The same for a floor's own height on the way, which on a slope lies up to
/// 6 cm off the ankle heights the swing's ends are given in (the sole
/// touches a little ahead or behind the ankle, tilted): a step's rise is
/// several times this.
const OBSTACLE_FLOOR: f32 = 0.08;
/// A swinging foot lands at least this far past an edge of the floor it
/// lands on, metres: its heel clear of the step behind.
const EDGE_MARGIN: f32 = 0.12;
/// The share of a swing over which a swinging foot rises to clear an
/// obstacle on its way (see [`OBSTACLE`]), and at its end comes down from
/// it.
const OBSTACLE_RISE: f32 = 0.35;
/// Floors crossed at most following the floor from the body to where a
/// swinging foot will land (a run's landing, 1.6 m ahead, crosses at most
/// three or four tiles' floors).
const MAX_WALK_FLOORS: usize = 8;
/// How far past a floor's end the next one is looked for, metres.
const WALK_EDGE: f32 = 1e-3;
/// Time constant of a planted foot's ground height, seconds.
const FOOT_TAU_STANCE: f32 = 0.01;
/// Time constant of the pelvis rising back after a drop, seconds (lowering is
/// immediate for a locked foot's own reach, so a planted foot always
/// reaches; for the other foot see `DROP_KNEE_SPEED`).
const DROP_TAU_UP: f32 = 0.15;
/// The fastest the pelvis lowering for one foot bends the knee of the
/// other, locked foot, rad/s (see `PosePipeline::foot_ik`): with the clip's
/// own knee motion, under the joint speed limit.
const DROP_KNEE_SPEED: f32 = 12.0;
/// The slowest the pelvis rises back while it is lower than needed, m/s.
const DROP_MIN_RISE_SPEED: f32 = 0.02;
/// Natural frequency of turning (left/right and onto a ladder), rad/s: a
/// critically damped spring, a half turn 95 % done in 0.19 s, turning at
/// most 29 rad/s.
const TURN_OMEGA: f32 = 25.0;
/// Natural frequency of the root settling after a step or onto a ladder,
/// rad/s (a critically damped spring: 95 % of the way in 0.4 s). Its
/// largest acceleration, ω² times the offset, keeps the frame-to-frame
/// change of the root's motion near a centimetre for the 0.3 m offsets of
/// a step or a ladder's depth.
const ROOT_OMEGA: f32 = 12.0;
/// Natural frequency of the spring easing the root offset's way off a
/// ladder, 1/s.
const AIM_OMEGA: f32 = 24.0;
/// A vertical move of the feet position larger than this in one frame is a
/// step (up or down a stair), smoothed instead of followed at once, metres.
const STEP_SNAP: f32 = 0.08;
/// A vertical move in the air this much larger than the velocity explains
/// in one frame is eased like a step, metres.
const AIR_SNAP: f32 = 0.02;
/// Largest move across of a body at rest that the root eases, metres (a
/// larger one is a teleport, followed at once).
const NUDGE: f32 = 0.1;
/// A move larger than this in one frame is a teleport (respawn): the
/// pipeline forgets its smoothing, metres.
const TELEPORT: f32 = 2.0;
/// A foot locks to the ground at this contact weight or more...
const LOCK_CONTACT: f32 = 0.9;
/// ...when its animated ankle is at most this high above its planted
/// height, metres (a foot still coming down from a stride is not yet planted).
const LOCK_LIFT: f32 = 0.02;
/// ...and when the ground height it follows has settled to within this of
/// the ground under it, metres (after a stair edge passed under the foot).
const LOCK_SETTLED: f32 = 0.002;
/// A foot locks only once its sole lies within this angle of the surface
/// under it, radians: the foot turns to a new slope with a lag (so crossing
/// a kink never snaps it), and locking it still tilted would hold the sole
/// off the ground for the whole stance.
const LOCK_TILT: f32 = 0.03;
/// A swinging foot starts turning to the surface below it when its animated
/// lift above the ground is less than this, metres.
const ALIGN_NEAR_LIFT: f32 = 0.05;
/// A locked foot is released below this contact weight: the weight it locks
/// at. The clip's contact falls below it as soon as its foot starts to move
/// (at about 0.16 m/s), and a lock held any longer keeps the foot a
/// millimetre behind while the clip lifts it away, which the released foot
/// then trails for several frames. Foot IK reads the contact one frame
/// ahead too (`layer_contact_ahead`) and takes the lower: a run's contact
/// falls from 1 to 0 within a frame, and a foot held to its last frame on
/// the ground behind a body running up onto a slope straightened its knee
/// at 23.6 rad/s.
const UNLOCK_CONTACT: f32 = LOCK_CONTACT;
/// How far below its rest height a planted ankle may stay where the clip puts
/// it, metres. The baked clips interpolate between keys, so at heel strike
/// and toe-off the knight's stance ankle sinks up to 0.7 mm; lifting it out
/// moves a nearly straight knee more than twice as far, while a sink of a
/// millimetre is far inside the 5 mm a planted sole may be off the ground.
const PLANTED_SINK: f32 = 0.001;
/// How far from where a foot was last shown it is locked at most, metres
/// (about what a running foot travels in a frame as it comes down).
const LOCK_FROM_SHOWN: f32 = 0.02;
/// A lock further than this from where the animation wants the foot is
/// released, metres: the leg would have to stretch or cross.
const LOCK_MAX_DRIFT: f32 = 0.3;
/// Standing still, a locked foot further than this from its animated place
/// steps back to it, metres.
const RESTEP_DRIFT: f32 = 0.04;
/// Height of the arc of such a step (and of any released foot far from its
/// animation), metres.
const RESTEP_LIFT: f32 = 0.06;
/// A released foot locks again only once it is this close to its
/// animation, metres (so a re-stepping foot finishes its step).
const RELOCK_RELEASE: f32 = 0.0005;
/// Seconds a released foot takes to travel back to its animation (a re-step
/// of 0.3 m then peaks under 2 m/s, like an unhurried step).
const RELEASE_TIME: f32 = 0.3;
/// Time constant of a foot turning onto (or off) the surface, seconds.
const ALIGN_TAU: f32 = 0.06;
/// The fastest foot IK straightens a swinging leg's knee beyond its
/// animation, rad/s. When the ground drops away under a swinging foot (a
/// stair edge passing under it) the leg reaches down over a few frames
/// instead of snapping straight in one; the animation's own knee turns at up
/// to about 14 rad/s, so the two together stay under the 20 rad/s a joint may
/// turn outside state changes.
const KNEE_STRAIGHTEN_SPEED: f32 = 6.0;
/// The weight of the hinge's natural bend direction in the side a knee that
/// is not a pure hinge bends to, per metre of thigh (see `knee_side`): a
/// tenth of a millimetre, far below any real knee offset, so it decides
/// only for a leg whose knee lies exactly on the hip→ankle line.
const POLE_BIAS: f32 = 1e-4;
/// The fastest any joint turns relative to its parent, rad/s (see
/// [`PosePipeline::limit_joint_speed`]). The knight's clips turn their
/// joints at up to about 17 rad/s (the run); IK's answers to constraints
/// that change late (a foot swinging up a slope, a hand passing close to its
/// shoulder, the pelvis lowering for a landing) reached 23–28 rad/s on a
/// frame or two, which reads as a snap. Held just under the 20 rad/s at
/// which the motion metrics call a turn a pop.
pub const MAX_JOINT_SPEED: f32 = 19.0;
/// A holding limb whose end the speed limit moved further than this is
/// solved back onto its hold, metres.
const LIMIT_RESOLVE: f32 = 1e-4;
/// The shortest time over which a foot coming down onto the ground, not yet
/// locked, takes its full share of the hold from the speed limit, seconds:
/// a run's contact goes from 0 to 1 in a frame, and a leg that lands fully
/// stretched on a descent would bend its knee at 23 rad/s in that frame.
/// Planted (locked) feet are always held in full.
const LIMIT_LAND_TIME: f32 = 0.1;
/// How far off its hip→ankle line (a share of the thigh's length) a knee
/// the speed limit held back must lie for the re-solve to keep its side;
/// nearer the line the solve's own pole decides (a nearly straight knee's
/// side is rounding, and keeping it flipped a knee 107 rad/s).
const LIMIT_POLE_SHARE: f32 = 0.05;
/// Knee and elbow hinge range, radians: from nearly straight to fully bent
/// (each limb's [`crate::character::Limb::hinge`] is built with it).
pub(crate) const HINGE_RANGE: (f32, f32) = (0.0, 2.7);

/// The stages of one frame, in the order they run (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PoseStage {
    /// Sample every layer's clip (step 1, first half).
    Sample,
    /// Blend the layers, `local_to_model`, and place the model in the world
    /// (step 1, second half, and step 2).
    Blend,
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
    pub const ALL: [PoseStage; 6] = [
        PoseStage::Sample,
        PoseStage::Blend,
        PoseStage::FootIk,
        PoseStage::LadderIk,
        PoseStage::Limit,
        PoseStage::Palette,
    ];
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

/// What one frame of the pipeline reads.
#[derive(Clone, Copy, Debug)]
pub struct FrameInput<'a> {
    /// The level (ground h(x), normals, ladders).
    pub level: &'a Level,
    /// The player's state (feet position, facing, locomotion).
    pub player: &'a Player,
    /// The clips to sample and their weights, from the state machine.
    pub layers: &'a [Layer],
    /// The climb cycle's phase in [0, 1).
    pub climb_phase: f32,
    /// Whether IK runs (a debug toggle; off shows the raw animation).
    pub ik_enabled: bool,
    /// Seconds since the previous frame.
    pub dt: f32,
}

/// What the pipeline did for one limb this frame (for the debug overlay and
/// the motion metrics), in world space.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LimbDebug {
    /// Where IK asked the end joint to go.
    pub target: Vec3,
    /// The ground point under the foot, or the rung point held.
    pub probe: Vec3,
    /// Weight the IK ran with.
    pub weight: f32,
    /// The limb's contact weight from its clip (0 free, 1 planted or gripping).
    pub contact: f32,
    /// The height of the rung chosen for the current or next grip.
    pub rung: Option<f32>,
    /// Whether the foot is locked to the ground (planted).
    pub locked: bool,
    /// Whether the limb is taking a deliberate step while standing (a foot
    /// lifted in an arc back under the body), off the ground on purpose.
    pub stepping: bool,
}

/// Everything the debug overlay and the metrics read after a frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PoseDebug {
    /// Feet on the ground (left, right).
    pub feet: [LimbDebug; 2],
    /// Hands on rungs (left, right).
    pub hands: [LimbDebug; 2],
    /// Feet on rungs (left, right).
    pub rung_feet: [LimbDebug; 2],
    /// How far the pelvis was lowered, metres.
    pub pelvis_drop: f32,
    /// Weight of foot IK (fades with the ground state).
    pub ground_weight: f32,
    /// Weight of ladder IK (fades with the ladder state).
    pub climb_weight: f32,
    /// IK solves refused this frame (bad input; the pose kept its animation).
    pub ik_errors: u32,
    /// Whether the clips are blending between states (starting, stopping,
    /// jumping, landing, mounting a ladder): more than one clip in the mix,
    /// and one of them not walk or run.
    pub transition: bool,
    /// Joints [`MAX_JOINT_SPEED`] held back this frame.
    pub limited_joints: u32,
}

/// Memory between frames.
#[derive(Clone, Copy, Debug, Default)]
struct Smoothing {
    initialized: bool,
    prev_pos: Vec2,
    yaw: f32,
    root_offset: Vec3,
    /// How fast the root offset is changing, metres per second.
    root_vel: Vec3,
    /// Where the root's offset is headed off a ladder (its target eased on
    /// a spring of its own), and how fast that moves, m/s.
    aim_offset: Vec3,
    aim_vel: Vec3,
    /// Whether the player was on the ground last frame.
    prev_grounded: bool,
    /// The player's vertical velocity last frame, m/s.
    prev_vel_y: f32,
    /// The body's horizontal velocity the frame before, m/s.
    prev_vel_x: f32,
    /// How far a landing lowers the pelvis now (metres), how fast that
    /// changes (m/s), the depth it gives to and the seconds it holds there.
    absorb: f32,
    absorb_vel: f32,
    absorb_depth: f32,
    absorb_hold: f32,
    ground_weight: f32,
    climb_weight: f32,
    foot_ground: [f32; 2],
    /// How far each foot's filtered ground is from h(x) under it, metres.
    foot_offset: [f32; 2],
    /// How far each foot reaches below the body's floor (0 or less), metres.
    foot_reach: [f32; 2],
    /// Each foot's ground (ankle height) where its swing began: a swing's
    /// ground goes from there to where the foot will land.
    swing_from: [f32; 2],
    /// How far each foot was carried clear of an edge by its last swing
    /// (see [`EDGE_MARGIN`]), metres: kept through the stance it lands in.
    land_shift: [f32; 2],
    foot_slope: [f32; 2],
    foot_align: [f32; 2],
    lock: [Option<Vec3>; 2],
    release: [Vec3; 2],
    release_from: [Vec3; 2],
    release_t: [f32; 2],
    /// Whether the current release is a step taken while standing (lifted in
    /// an arc); a release into a walking swing rides the clip's own lift.
    release_lift: [bool; 2],
    turning: bool,
    /// How fast the facing turns, rad/s.
    yaw_vel: f32,
    /// How far the smoothed model placement still is from where it is
    /// going (on a ladder: the climbing position), world metres.
    root_lag: Vec3,
    pelvis_drop: f32,
    /// How much more each knee was bent by foot IK than in the animation last
    /// frame, radians (negative: straighter).
    knee_correction: [f32; 2],
    ladder: Option<usize>,
    /// How far each hand has let go of its hold climbing over a ladder's
    /// top (0 holding, 1 let go).
    arm_let_go: [f32; 2],
    /// Each limb's correction (legs, then arms) onto its hold in the last
    /// frame on the ladder, world metres.
    ladder_hold: [Vec3; 4],
    /// Each arm's share of its hold (see `ladder_ik`).
    arm_hold: [f32; 2],
    /// The moving platform under each foot last frame and where it was
    /// then: a planted foot moves with it.
    platform: [Option<(u16, Vec2)>; 2],
    /// Whether `PosePipeline::prev_rotations` holds the previous frame's
    /// final pose (the joint speed limit has something to limit from).
    limit_ready: bool,
    /// Each foot's share of its ground hold in the joint speed limit last
    /// frame (see [`LIMIT_LAND_TIME`]).
    limit_hold: [f32; 2],
    /// How far the joint speed limit left each foot from where IK put it
    /// last frame, metres: a foot locks only once it has caught up.
    limit_lag: [f32; 2],
    /// Each foot's contact weight one frame ahead (see
    /// `layer_contact_ahead`).
    contact_ahead: [f32; 2],
    /// Whether each foot's lock was placed this frame: it holds only if
    /// the joint speed limit leaves the foot on it (see
    /// `PosePipeline::limit_joint_speed`).
    new_lock: [bool; 2],
    /// Each ankle where the last frame showed it, world metres (`None`
    /// with IK off).
    foot_shown: [Option<Vec3>; 2],
}

/// One character's pose pipeline: scratch buffers and smoothing state.
#[derive(Clone, Debug)]
pub struct PosePipeline {
    layer_locals: Vec<Vec<Transform>>,
    cursors: Vec<SamplingCursor>,
    /// Each clip's time when a layer last played it, and how far that time
    /// moved in the frame before, seconds (NaN: not played yet): what the
    /// clip will do next frame, for contacts about to end.
    clip_steps: Vec<[f32; 2]>,
    /// The animated local pose (clips blended, before IK) of the latest
    /// frame, and whether there was one.
    last_animated: Vec<Transform>,
    has_last: bool,
    /// The pose an outgoing crossfade layer holds (see [`Layer::held`]) and
    /// the number of the crossfade it was taken for.
    held_pose: Vec<Transform>,
    held_id: Option<u32>,
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
            layer_locals: vec![character.skeleton.rest_locals().to_vec(); MAX_LAYERS],
            cursors: character.clips.iter().map(SamplingCursor::new).collect(),
            clip_steps: vec![[f32::NAN, 0.0]; character.clips.len()],
            last_animated: character.skeleton.rest_locals().to_vec(),
            has_last: false,
            held_pose: character.skeleton.rest_locals().to_vec(),
            held_id: None,
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
    /// model matrices ([`PosePipeline::animated`] stays empty) and with the
    /// palette written over the model matrices: a crowd's pipeline, which
    /// no metrics or debug drawing read, saves those two buffers' time and
    /// memory. Poses and palettes are the same as a full pipeline's.
    pub fn lean(character: &Character) -> Self {
        Self {
            animated: Vec::new(),
            palette: Vec::new(),
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
        match stage {
            PoseStage::Sample => {
                self.debug = PoseDebug::default();
                self.debug.transition = is_transition(c, input.layers);
                self.sample(c, input.layers);
            }
            PoseStage::Blend => {
                self.blend(c, input.layers);
                local_to_model(&c.skeleton, &self.pose.locals, &mut self.models);
                if !self.animated.is_empty() {
                    self.animated.copy_from_slice(&self.models);
                }
                let limbs = c.legs.iter().chain(c.arms.iter().take(2));
                for (slot, limb) in self.limb_animated.iter_mut().zip(limbs) {
                    *slot = [
                        self.models[limb.start],
                        self.models[limb.mid],
                        self.models[limb.end],
                    ];
                }
                self.place(c, input);
            }
            PoseStage::FootIk => {
                self.foot_ik_targets(c, input);
                self.solve_legs(c);
            }
            PoseStage::LadderIk => {
                if input.ik_enabled {
                    self.ladder_ik(c, input);
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
            PoseStage::Limit => self.limit_joint_speed(c, input),
            PoseStage::Palette => {
                self.debug.ground_weight = self.smooth.ground_weight;
                self.debug.climb_weight = self.smooth.climb_weight;
                // Lengths always match (all sized from the skeleton), so this
                // cannot fail; keep the previous palette if it ever did.
                let ib = c.skeleton.inverse_bind();
                let _ = if self.palette.is_empty() {
                    palette_in_place(&mut self.models, ib)
                } else {
                    palette(&self.models, ib, &mut self.palette)
                };
            }
        }
    }

    /// Step 1a: sample every layer into its own local pose. A held layer
    /// (the outgoing state of a crossfade, [`Layer::held`]) takes the
    /// animated pose of the frame before its crossfade began.
    fn sample(&mut self, c: &Character, layers: &[Layer]) {
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
        if let Some(layer) = single_layer(layers)
            && layer.held.is_none()
        {
            // One clip alone (most frames): sampled straight into the pose,
            // which is then the blend; no layer buffer, no blend pass.
            sample_layer(c, layer, &mut self.cursors, &mut self.pose.locals);
            return;
        }
        for (layer, locals) in layers[..n].iter().zip(&mut self.layer_locals) {
            let Some(id) = layer.held else {
                sample_layer(c, layer, &mut self.cursors, locals);
                continue;
            };
            if self.held_id != Some(id) {
                self.held_id = Some(id);
                if self.has_last {
                    self.held_pose.copy_from_slice(&self.last_animated);
                } else {
                    // No frame before this one: the clip where it was.
                    sample_layer(c, layer, &mut self.cursors, &mut self.held_pose);
                }
            }
            locals.copy_from_slice(&self.held_pose);
        }
    }

    /// Step 1b: blend the sampled layers into `pose`, and keep the result
    /// for the next crossfade to hold.
    fn blend(&mut self, c: &Character, layers: &[Layer]) {
        self.blend_layers(c, layers);
        self.last_animated.copy_from_slice(&self.pose.locals);
        self.has_last = true;
    }

    fn blend_layers(&mut self, c: &Character, layers: &[Layer]) {
        if single_layer(layers).is_some_and(|l| l.held.is_none()) {
            // Sampled straight into the pose (see `sample`).
            return;
        }
        let rest = c.skeleton.rest_locals();
        let n = layers.len().min(MAX_LAYERS);
        let blend_layers: [BlendLayer; MAX_LAYERS] = std::array::from_fn(|i| BlendLayer {
            locals: &self.layer_locals[i],
            weight: if i < n {
                layers[i].weight.max(0.0)
            } else {
                0.0
            },
            joint_weights: None,
        });
        if blend(&blend_layers[..n], rest, &mut self.pose.locals).is_err() {
            self.pose.locals.copy_from_slice(rest);
        }
    }

    /// Step 2: the model-to-world transform, with smoothed turns and steps.
    fn place(&mut self, c: &Character, input: &FrameInput) {
        let p = input.player;
        let s = &mut self.smooth;
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
            Some((_, l)) => {
                Vec3::new(l.x - p.pos.x, 0.0, c.rig.file.climb_rung_distance) * (1.0 - off)
            }
            None => Vec3::ZERO,
        };
        if !s.initialized || (p.pos - s.prev_pos).length() > TELEPORT {
            *s = Smoothing {
                initialized: true,
                prev_pos: p.pos,
                yaw: target_yaw,
                root_offset: target_offset,
                root_vel: Vec3::ZERO,
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
                land_shift: [0.0; 2],
                foot_slope: [0.0; 2],
                foot_align: [0.0; 2],
                lock: [None; 2],
                release: [Vec3::ZERO; 2],
                release_from: [Vec3::ZERO; 2],
                release_t: [1.0; 2],
                release_lift: [false; 2],
                turning: false,
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
                s.root_offset.y -= dy;
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
        let (x, v) = spring(s.root_offset - s.aim_offset, s.root_vel, ROOT_OMEGA, dt);
        s.root_offset = s.aim_offset + x;
        s.root_vel = v;
        s.root_lag = target_offset - s.root_offset;
        if (s.root_offset - target_offset).length() < 1e-5
            && v.length() < 1e-4
            && s.aim_vel.length() < 1e-4
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
        s.ground_weight = step_toward(s.ground_weight, ground, dt / GROUND_FADE);
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
        self.world = Mat4::from_rotation_translation(rotation, origin);
    }

    /// Step 3: feet onto the ground.
    fn foot_ik(&mut self, c: &Character, input: &FrameInput) {
        let gw = self.smooth.ground_weight;
        let level = input.level;
        let dt = input.dt.max(0.0);
        let inv = self.world.inverse();
        let floor = self.world.w_axis.y;
        let body = input.player.pos;
        let fh = c.rig.foot_height;
        let mut targets = [Vec3::ZERO; 2];
        // The pelvis drop each swinging foot will need where it lands.
        let mut anticipate = [0.0f32; 2];
        let mut normals = [Vec3::Y; 2];
        let mut aligns = [0.0; 2];
        let still_weight = input
            .layers
            .iter()
            .filter(|l| l.still)
            .map(|l| l.weight)
            .sum::<f32>();
        let total_weight = input.layers.iter().map(|l| l.weight).sum::<f32>();
        let idle = still_weight >= 0.99 * total_weight;
        // A held frame of a walk (the rig's idle_time) may have a heel up:
        // standing sets that foot down flat (its rest orientation), in step
        // with the crossfade into it.
        let settle = if c.clip_set.idle_hold.is_some() && total_weight > 0.0 {
            (still_weight / total_weight).clamp(0.0, 1.0)
        } else {
            0.0
        };
        // Where each foot's animation wants it (for choosing which foot re-steps).
        let free_prev: [Vec3; 2] = std::array::from_fn(|i| {
            let aw = self.world.transform_point3(pos(&self.limb_animated[i][2]));
            aw + Vec3::Y * (self.smooth.foot_ground[i] - floor)
        });
        for (i, leg) in c.legs.iter().enumerate() {
            // The clip's contact, and the one foot IK works with: the
            // lower of it and next frame's, so that a foot the clip lifts
            // next frame is let go of and starts its swing now (see
            // `UNLOCK_CONTACT`).
            let clip_contact = layer_contact(leg, input.layers);
            let ahead = layer_contact_ahead(leg, input.layers, &self.clip_steps);
            self.smooth.contact_ahead[i] = ahead;
            let contact = clip_contact.min(ahead);
            let [hip_a, _, ankle_a] = self.limb_animated[i];
            let aw = self.world.transform_point3(pos(&ankle_a));
            // A swinging foot on the ground goes from the ground it left
            // to the ground where it will land, over its swing: a foot
            // stepping up or down a stair reaches for the next tread through
            // the swing, instead of when its ankle crosses the edge (often
            // the frame it lands). A held foot stays on the ground it
            // stands on.
            let mut plan = swing_plan(leg, input.layers);
            plan.share *= 1.0 - contact;
            if self.smooth.lock[i].is_some() || input.player.state != Locomotion::Ground {
                plan.share = 0.0;
            }
            let dir = if input.player.vel.x.abs() > 0.01 {
                input.player.vel.x.signum()
            } else {
                input.player.facing.signum()
            };
            let landing = if plan.share > 0.0 {
                let lx = self.world.w_axis.x
                    + dir * plan.ahead
                    + self.world.transform_vector3(plan.land_model).x;
                let lx = input.player.foot_probe_x(lx);
                plan_landing(level, body, lx, dir, body.x + dir * plan.ahead, aw.x)
            } else {
                None
            };
            // Landing clear of an edge, the foot is carried there through
            // its swing, and stays there through the stance it lands in
            // (its lock takes that place): the next swing starts from it.
            // Off the ground the carry fades.
            let shift = if plan.share > 0.0 {
                landing.map_or(0.0, |l| l.moved * smoothstep(plan.progress) * plan.share)
            } else if input.player.state == Locomotion::Ground {
                self.smooth.land_shift[i]
            } else {
                self.smooth.land_shift[i] * (1.0 - approach(dt, REACH_RELEASE))
            };
            self.smooth.land_shift[i] = shift;
            let aw = aw + Vec3::X * shift;
            // The ankle height over the ground under it, for a foot lying on
            // the surface: the sole touches at s, the ankle sits fh along n.
            // A locked foot is probed where it is held, not where its clip
            // has moved on to: on a slope a clip whose stance foot drifts a
            // centimetre would otherwise move the held foot up or down as much.
            let ax = self.smooth.lock[i].map_or(aw.x, |l| l.x);
            // The floor under the ankle (its normal), then under the sole's
            // contact point: the nearest floor below a step above the body's
            // own floor (a higher rise is a wall, for the feet too), no
            // deeper than a leg reaches down a step or a slope while
            // standing or stepping onto a ladder (a ladder caught beside a
            // ledge must not pull the feet toward the floor below); in the
            // air, deeper, so the foot's ground is known on landing.
            // Never beyond a wall beside the body.
            let ax = input.player.foot_probe_x(ax);
            let (top, depth) = foot_probe_range(body, ax);
            let depth = if input.player.state == Locomotion::Air {
                depth.max(AIR_PROBE_DEPTH)
            } else {
                depth
            };
            let under = level.floor_below(ax, top, depth);
            let n = under.map_or(Vec2::Y, |h| h.normal());
            let sx = input.player.foot_probe_x(ax - n.x * fh);
            let probe = level
                .floor_below(sx, top, depth)
                .map(|h| (sx, h))
                .or_else(|| under.map(|h| (ax, h)));
            // A foot on a moving platform moves with it: its held place and
            // its smoothed ground height are kept in the platform's frame.
            let on_platform = probe.and_then(|(_, h)| match h.kind() {
                FloorKind::Platform(k) => Some((k, level.platforms[k as usize].pos)),
                _ => None,
            });
            if let (Some((k, now)), Some((k0, then))) = (on_platform, self.smooth.platform[i])
                && k == k0
            {
                let d = now - then;
                self.smooth.foot_ground[i] += d.y;
                if let Some(l) = &mut self.smooth.lock[i] {
                    *l += Vec3::new(d.x, d.y, 0.0);
                }
            }
            self.smooth.platform[i] = on_platform;
            let ground = probe.map(|(px, h)| h.segment.height_at(px));
            let n_raw = probe.map_or(n, |(_, h)| h.normal());
            let raw_lift = pos(&ankle_a).y - c.rest_ankle_height[i];
            let settled = raw_lift.max(0.0) * settle;
            let lift = raw_lift - settled;
            let near = (1.0 - lift / ALIGN_NEAR_LIFT).clamp(0.0, 1.0);
            let down = contact.max(near);
            let tau = FOOT_TAU_SWING + (FOOT_TAU_STANCE - FOOT_TAU_SWING) * contact;
            let k = approach(dt, tau);
            // Just onto the ground (from a ladder or the air, while foot IK
            // fades in) a ground more than a step from the one the foot
            // last had is taken as it is: that one may be a floor far below
            // (climbing onto a ladder's top, 2 m), and lagging up from it
            // the foot reached down for it.
            let landed = input.player.state == Locomotion::Ground && gw < 1.0;
            let fade_in = |k: f32, gap: f32| {
                if landed && gap.abs() > MAX_STEP_UP + MAX_SNAP_DOWN {
                    1.0
                } else {
                    k
                }
            };
            if let Some((px, j)) = probe {
                // The foot's ground follows h(x) with a lag, long while the
                // foot swings (so a kink or a step under a swinging foot
                // never jerks the leg), short in contact.
                let g = ankle_over(&j.segment, px, fh);
                let aim = match landing {
                    Some(l) => {
                        let (lx, land) = (l.x, ankle_over(&l.hit.segment, l.x, fh));
                        let from = self.smooth.swing_from[i];
                        let planned = from + (land - from) * smoothstep(plan.progress);
                        // How far the pelvis must be down when this foot
                        // lands, from where the hip will be then (the
                        // root by then on the floor it walks to):
                        // reached through the swing, not in the frames
                        // the foot comes down.
                        let hip = self.world.transform_point3(plan.land_start)
                            + Vec3::new(dir * plan.ahead, l.body_floor - floor, 0.0);
                        let foot = self.world.transform_point3(plan.land_model);
                        let foot = Vec3::new(lx, land + c.rest_ankle_height[i], foot.z);
                        // As far as the leg reaches (or the clip
                        // stretches it) at the landing.
                        let allowed = (REACH_FRACTION * c.leg_length[i])
                            .max((plan.land_model - plan.land_start).length());
                        anticipate[i] = required_drop(foot - hip, allowed)
                            * smoothstep(plan.progress)
                            * plan.share;
                        let aim = g + (planned - g) * plan.share;
                        // Ground higher than both ends of the swing, on
                        // the way from the foot to its landing, is
                        // stepped over: the foot rises for it as soon
                        // as it lies ahead, not when it reaches it.
                        let low = from.max(land);
                        let ahead = if l.highest > low + OBSTACLE_FLOOR {
                            l.highest
                        } else {
                            f32::NEG_INFINITY
                        };
                        // Eased in over the swing's start, as the foot
                        // lifts (the ground it stood on may hide it); what
                        // lies ahead also out over its end, as the foot
                        // comes down to land (an obstacle just before the
                        // landing is cleared by the toe, not held under
                        // the ankle until the frame the foot lands). The
                        // ground under the foot itself is never gone into.
                        let rise = smoothstep((plan.progress / OBSTACLE_RISE).min(1.0));
                        let fall = smoothstep(((1.0 - plan.progress) / OBSTACLE_RISE).min(1.0));
                        let lift = |aim: f32, over: f32, w: f32| {
                            if over > aim {
                                aim + (over - aim) * w * plan.share
                            } else {
                                aim
                            }
                        };
                        let aim = lift(aim, ahead, rise * fall);
                        if g > low + OBSTACLE {
                            lift(aim, g, rise)
                        } else {
                            aim
                        }
                    }
                    None => g,
                };
                let sm = &mut self.smooth;
                let fg = &mut sm.foot_ground[i];
                *fg += (aim - *fg) * fade_in(k, aim - *fg);
                if plan.share <= 0.0 {
                    sm.swing_from[i] = *fg;
                }
                if (g - *fg).abs() < 1e-5 {
                    *fg = g;
                }
                sm.foot_offset[i] = *fg - g;
                let n = n_raw;
                // The surface angle follows with the same lag, so a foot
                // passing over a kink of the ground turns, never snaps.
                let slope = (-n.x).atan2(n.y);
                let fs = &mut self.smooth.foot_slope[i];
                *fs += (slope - *fs) * approach(dt, ALIGN_TAU);
                if (slope - *fs).abs() < 1e-5 {
                    *fs = slope;
                }
            } else if input.player.state == Locomotion::Ground {
                // No floor within a step under the foot (past a ledge's
                // edge): it keeps its animated height, at the body's floor,
                // instead of the ground it last had (landing on a post, a
                // foot over its edge kept reaching for the floor below).
                let fg = &mut self.smooth.foot_ground[i];
                *fg += (floor - *fg) * fade_in(k, floor - *fg);
                self.smooth.foot_offset[i] = 0.0;
            }
            let sm = &mut self.smooth;
            // A foot turns to the surface in contact, and already while it
            // comes down close to the ground, so it lands aligned and can
            // lock at once.
            sm.foot_align[i] += (down - sm.foot_align[i]) * approach(dt, ALIGN_TAU);
            let slope = sm.foot_slope[i];
            let n = Vec2::new(-slope.sin(), slope.cos());
            // Off the ground (in the air, or caught by a ladder) the feet
            // know the floor below (for the landing) but do not reach down
            // for it: walking off a ledge, a foot keeps its animated height
            // instead of stretching toward the floor far below while foot
            // IK fades out.
            // What a foot reached down on the ground it lets go of over
            // REACH_RELEASE once off it, so a foot reaching past a ledge's
            // edge as the body walks off rises to its animated height over
            // a few frames, not in one.
            let offset = sm.foot_ground[i] - floor - settled;
            sm.foot_reach[i] = if input.player.state == Locomotion::Ground {
                offset.min(0.0)
            } else {
                sm.foot_reach[i] * (1.0 - approach(dt, REACH_RELEASE))
            };
            let offset = offset.max(0.0) + sm.foot_reach[i];
            let free = aw + Vec3::Y * offset;

            // Lock a planted foot where it landed; release it into its swing.
            let drift = sm.lock[i].map_or(0.0, |l| Vec2::new(l.x - free.x, l.z - free.z).length());
            // A lock the leg cannot reach (sideways from the hip, where
            // lowering the pelvis does not help) is let go.
            let hip = self.world.transform_point3(pos(&hip_a));
            let reachable = sm.lock[i].is_none_or(|l| {
                Vec2::new(l.x - hip.x, l.z - hip.z).length() <= REACH_FRACTION * c.leg_length[i]
            });
            let keep = gw >= 0.999 && !sm.turning && drift <= LOCK_MAX_DRIFT && reachable;
            // Standing still with a foot left where a stride ended: step it
            // back under the body, one foot at a time.
            let restep = idle
                && drift > RESTEP_DRIFT
                && sm.lock[1 - i].is_some()
                && drift >= other_drift(sm, i, &free_prev);
            let was_locked = sm.lock[i].is_some();
            sm.lock[i] = match sm.lock[i] {
                Some(l) if keep && !restep && contact >= UNLOCK_CONTACT => Some(l),
                Some(l) => {
                    sm.release[i] = Vec3::new(l.x - free.x, 0.0, l.z - free.z);
                    sm.release_from[i] = sm.release[i];
                    sm.release_t[i] = 0.0;
                    sm.release_lift[i] = idle;
                    None
                }
                None if keep
                    && contact >= LOCK_CONTACT
                    && sm.release[i].length() <= RELOCK_RELEASE
                    && lift <= LOCK_LIFT
                    && ground.is_some()
                    && sm.foot_offset[i].abs() <= LOCK_SETTLED
                    && sm.limit_lag[i] <= LOCK_SETTLED
                    && ((-n_raw.x).atan2(n_raw.y) - slope * sm.foot_align[i]).abs()
                        <= LOCK_TILT =>
                {
                    // Where the clip has it, at most `LOCK_FROM_SHOWN` from
                    // where the foot was last shown: a clip that moves a
                    // foot its contact calls down (CesiumMan setting off
                    // from his stand) would otherwise lock it centimetres
                    // on, and the knee turned 48 rad/s to put it there.
                    let at = free + sm.release[i];
                    Some(sm.foot_shown[i].map_or(at, |f| {
                        let on =
                            Vec2::new(at.x - f.x, at.z - f.z).clamp_length_max(LOCK_FROM_SHOWN);
                        Vec3::new(f.x + on.x, at.y, f.z + on.y)
                    }))
                }
                None => None,
            };
            sm.new_lock[i] = !was_locked && sm.lock[i].is_some();
            let target_w = match sm.lock[i] {
                Some(l) => {
                    sm.release[i] = Vec3::ZERO;
                    // Planted means on the ground: the animated lift is
                    // dropped, and the clip's own slight sink is kept.
                    let sink = lift.clamp(-PLANTED_SINK, 0.0);
                    Vec3::new(l.x, sm.foot_ground[i] + c.rest_ankle_height[i] + sink, l.z)
                }
                None => {
                    // A released foot travels back to its animation in a
                    // fixed time, eased, lifting in an arc if it has far to go.
                    sm.release_t[i] = (sm.release_t[i] + dt / RELEASE_TIME).min(1.0);
                    let t = sm.release_t[i];
                    sm.release[i] = sm.release_from[i] * (1.0 - smoothstep(t));
                    let height = if sm.release_lift[i] {
                        (RESTEP_LIFT * sm.release_from[i].length() / RESTEP_DRIFT).min(RESTEP_LIFT)
                    } else {
                        0.0
                    };
                    free + sm.release[i] + Vec3::Y * (height * (PI * t).sin())
                }
            };
            targets[i] = inv.transform_point3(target_w);
            // A swinging foot follows the ground only as far as a leg can fold:
            // behind a runner on a steep descent the ground is higher than
            // the hip's reach, and chasing it would swing the knee through.
            let hip = pos(&hip_a);
            let ceiling = hip.y - SWING_FOLD * c.leg_length[i];
            if targets[i].y > ceiling {
                let free_weight = 1.0 - sm.foot_align[i];
                targets[i].y += (ceiling - targets[i].y) * free_weight;
            }
            normals[i] = inv.transform_vector3(n.extend(0.0)).normalize_or(Vec3::Y);
            aligns[i] = sm.foot_align[i];
            self.debug.feet[i] = LimbDebug {
                target: target_w,
                probe: Vec3::new(sx, ground.unwrap_or(target_w.y - fh), aw.z),
                weight: gw,
                contact: clip_contact,
                rung: None,
                locked: sm.lock[i].is_some(),
                stepping: sm.lock[i].is_none() && sm.release_lift[i] && sm.release_t[i] < 1.0,
            };
        }
        // Lower the pelvis so both feet can reach (at once, as fast as a
        // locked knee may follow; rise slowly, also when foot IK has faded
        // out in the air).
        let mut need = 0.0f32;
        // What a locked foot needs itself, which it gets at once.
        let mut need_locked = 0.0f32;
        for (i, [hip, knee, ankle]) in self.limb_animated[..2].iter().enumerate() {
            let (hip, knee, ankle) = (pos(hip), pos(knee), pos(ankle));
            let full = (knee - hip).length() + (ankle - knee).length();
            let allowed = (REACH_FRACTION * full).max((ankle - hip).length());
            let own = required_drop(targets[i] - hip, allowed);
            need = need.max(own).max(anticipate[i]);
            if self.smooth.lock[i].is_some() {
                need_locked = need_locked.max(own);
            }
        }
        let need = (need * gw).clamp(0.0, MAX_PELVIS_DROP);
        let need_locked = (need_locked * gw).clamp(0.0, need);
        // Lowered for the other foot, a locked foot's knee bends at most
        // DROP_KNEE_SPEED: lowered at once, CesiumMan stopping at a
        // ladder's top (his trailing foot coming down onto the floor)
        // bent his planted knee at 28 rad/s. The other foot reaches the
        // ground over the frames the pelvis takes, and locks once there.
        let mut most = need;
        for (i, leg) in self.limb_animated[..2].iter().enumerate() {
            if self.smooth.lock[i].is_some() {
                let [hip, knee, ankle] = leg.each_ref().map(pos);
                let bones = ((knee - hip).length(), (ankle - knee).length());
                let turn = DROP_KNEE_SPEED * dt;
                most = drop_a_knee_follows(
                    self.smooth.pelvis_drop,
                    most,
                    bones,
                    targets[i] - hip,
                    turn,
                );
            }
        }
        let need = most.max(need_locked);
        let s = &mut self.smooth;
        s.pelvis_drop = if need >= s.pelvis_drop {
            need
        } else {
            // Eased back up, plus a small constant rate so the drop reaches
            // what is needed (often zero) instead of creeping toward it: a
            // tail of a millimetre would otherwise shift flat-ground poses.
            let eased = s.pelvis_drop + (need - s.pelvis_drop) * approach(dt, DROP_TAU_UP);
            (eased - DROP_MIN_RISE_SPEED * dt).max(need)
        };
        // A landing's give (see `Smoothing::absorb`) on top, while the feet
        // are on the ground.
        let drop = (s.pelvis_drop + s.absorb.max(0.0) * gw).min(MAX_PELVIS_DROP);
        self.debug.pelvis_drop = drop;
        if drop > 0.0 {
            let pelvis = c.rig.pelvis;
            let parent = c
                .skeleton
                .parent(pelvis)
                .map_or(Mat4::IDENTITY, |p| self.models[p]);
            let local = parent.inverse().transform_vector3(Vec3::NEG_Y * drop);
            if local.is_finite() {
                // The pelvis's subtree moves rigidly: its model matrices
                // shift by the drop, no re-propagation needed.
                self.pose.locals[pelvis].translation += local;
                translate_subtree(&c.skeleton, pelvis, Vec3::NEG_Y * drop, &mut self.models);
            }
        }
        if gw <= 0.0 {
            self.smooth.knee_correction = [0.0; 2];
            return;
        }

        for (i, leg) in c.legs.iter().enumerate() {
            // A swinging leg straightens beyond its animation at a bounded
            // speed: the foot reaches down over a few frames instead of
            // whipping the knee to its limit in one. Bending stays immediate
            // (a foot rising over a step must clear it), and a foot in
            // contact or locked reaches the ground at once.
            let hip = pos(&self.models[leg.start]);
            // No foot, even one on the ground, is brought higher than
            // FOLD_LIMIT of the leg under its (lowered) hip: the leg would
            // fold up past its knee and flip round it (CesiumMan running up
            // the 45° slope on his walk played four times over, the front
            // foot's ground above his hip, lowered for the back foot: an
            // ankle turned 123 rad/s). The foot sinks into the slope for
            // those few frames instead.
            targets[i].y = targets[i].y.min(hip.y - FOLD_LIMIT * c.leg_length[i]);
            let [animated_hip, knee, ankle] = self.limb_animated[i].each_ref().map(pos);
            let (thigh, shin) = ((knee - animated_hip).length(), (ankle - knee).length());
            let animated_bend = knee_bend(thigh, shin, (ankle - animated_hip).length());
            let wanted = knee_bend(thigh, shin, (targets[i] - hip).length()) - animated_bend;
            let sm = &mut self.smooth;
            let free = sm.lock[i].is_none() && self.debug.feet[i].contact < LOCK_CONTACT;
            // The bound loosens as the clip brings the foot into contact,
            // so a knee a swing kept bent has caught up by the time the
            // foot locks, instead of snapping straight then.
            let contact = self.debug.feet[i].contact.min(sm.contact_ahead[i]);
            let rate = KNEE_STRAIGHTEN_SPEED / (1.0 - contact).max(0.05);
            let slowest = sm.knee_correction[i] - rate * dt;
            sm.knee_correction[i] = if free { wanted.max(slowest) } else { wanted };
            if sm.knee_correction[i] > wanted {
                let reach = reach_for_bend(thigh, shin, animated_bend + sm.knee_correction[i]);
                targets[i] = hip + (targets[i] - hip).normalize_or_zero() * reach;
            }
            let animated_rot = rotation(&self.limb_animated[i][2])
                .slerp(c.rest_ankle_rotation[i], settle)
                .normalize();
            let align =
                Quat::IDENTITY.slerp(Quat::from_rotation_arc(Vec3::Y, normals[i]), aligns[i]);
            let (pole, hinge) = if c.rig.knee_pure_hinge {
                let pole = bend_direction(&self.limb_animated[i], leg, leg.hinge.axis());
                (pole, Some(leg.hinge))
            } else {
                // The bend is limited by reach instead: never folded past
                // the hinge's largest bend.
                let shortest = reach_for_bend(thigh, shin, HINGE_RANGE.1);
                let v = targets[i] - hip;
                if v.length() < shortest {
                    targets[i] = hip + v.normalize_or(Vec3::NEG_Y) * shortest;
                }
                let ankle = pos(&self.models[leg.end]);
                let to_target = (ankle - hip) + (targets[i] - ankle) * gw;
                let pole = knee_side(&self.limb_animated[i], leg, leg.hinge.axis(), to_target);
                (pole, None)
            };
            let opts = TwoBoneOptions {
                knee: KneeStrategy::Pole {
                    pole: Pole::Direction(pole),
                    twist: 0.0,
                },
                hinge,
                end_rotation: Some(((align * animated_rot).normalize(), 1.0)),
                weight: gw,
                ..TwoBoneOptions::new(targets[i])
            };
            self.limb_pole[i] = pole;
            self.leg_opts[i] = Some(opts);
        }
    }

    /// Step 3, first half: [`PosePipeline::foot_ik`] when IK is on, leaving
    /// each leg's two-bone options in `leg_opts` (none when IK is off).
    fn foot_ik_targets(&mut self, c: &Character, input: &FrameInput) {
        self.leg_opts = [None; 2];
        self.limb_pole = [Vec3::ZERO; 4];
        if input.ik_enabled {
            self.foot_ik(c, input);
        }
    }

    /// Step 3, second half: each leg's two-bone solve toward its options.
    fn solve_legs(&mut self, c: &Character) {
        for (leg, opts) in c.legs.iter().zip(self.leg_opts) {
            let Some(opts) = opts else { continue };
            if leg
                .chain
                .solve(&opts, &c.skeleton, &mut self.pose, &mut self.models)
                .is_err()
            {
                self.debug.ik_errors += 1;
            }
        }
    }

    /// Step 3 for a group of characters posed with the same `character`
    /// (a crowd's group; `inputs[k]` is `pipelines[k]`'s frame): every
    /// character's foot-IK targets first, then all their legs' two-bone cores
    /// in one batched call ([`solve_core_batch`], eight legs per set of SIMD
    /// lanes), then each leg's corrections applied. The poses equal
    /// [`PosePipeline::run_stage`]'s for [`PoseStage::FootIk`] within the
    /// batched solver's agreement with the scalar one (1e-5); the other
    /// stages are unchanged. Allocates nothing: legs are gathered
    /// [`GROUP_KNIGHTS`] characters at a time in stack arrays.
    pub fn foot_ik_group(pipelines: &mut [PosePipeline], c: &Character, inputs: &[FrameInput]) {
        const LEGS: usize = 2 * GROUP_KNIGHTS;
        let unused = TwoBoneCoreInput {
            start: Affine3A::IDENTITY,
            mid: Affine3A::IDENTITY,
            end: Affine3A::IDENTITY,
            opts: TwoBoneOptions::new(Vec3::ZERO),
        };
        for (group, inputs) in pipelines
            .chunks_mut(GROUP_KNIGHTS)
            .zip(inputs.chunks(GROUP_KNIGHTS))
        {
            let mut chains = [unused; LEGS];
            // Which character and leg each gathered chain belongs to.
            let mut owner = [(0usize, 0usize); LEGS];
            let mut n = 0;
            for (k, (p, input)) in group.iter_mut().zip(inputs).enumerate() {
                p.foot_ik_targets(c, input);
                for (i, leg) in c.legs.iter().enumerate() {
                    let Some(opts) = p.leg_opts[i] else { continue };
                    match leg.chain.prepare(&opts, &c.skeleton, &p.pose, &p.models) {
                        Ok([start, mid, end]) => {
                            chains[n] = TwoBoneCoreInput {
                                start,
                                mid,
                                end,
                                opts,
                            };
                            owner[n] = (k, i);
                            n += 1;
                        }
                        Err(_) => p.debug.ik_errors += 1,
                    }
                }
            }
            let mut fixes: [Result<TwoBoneCorrection, IkError>; LEGS] =
                std::array::from_fn(|_| Err(IkError::NonFinite { what: "unsolved" }));
            solve_core_batch(&chains[..n], &mut fixes[..n]);
            for ((chain, &(k, i)), fix) in chains[..n].iter().zip(&owner[..n]).zip(&fixes[..n]) {
                let p = &mut group[k];
                let applied = fix.as_ref().map_err(Clone::clone).and_then(|fix| {
                    c.legs[i]
                        .chain
                        .apply(fix, &chain.opts, &c.skeleton, &mut p.pose, &mut p.models)
                });
                if applied.is_err() {
                    p.debug.ik_errors += 1;
                }
            }
        }
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
    fn limit_joint_speed(&mut self, c: &Character, input: &FrameInput) {
        let ready = self.smooth.limit_ready
            && self.prev_rotations.len() == self.pose.locals.len()
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
            let d = &self.debug;
            let rise = input.dt / LIMIT_LAND_TIME;
            let mut share = [0.0f32; 4];
            for (i, foot) in d.feet.iter().enumerate() {
                // A foot the clip lifts next frame is held as it will be
                // then (it is let go of now, see `UNLOCK_CONTACT`).
                let ground = holds(&LimbDebug {
                    contact: foot.contact.min(self.smooth.contact_ahead[i]),
                    ..*foot
                });
                let last = &mut self.smooth.limit_hold[i];
                *last = if foot.locked && !self.smooth.new_lock[i] {
                    ground
                } else {
                    ground.min(*last + rise)
                };
                share[i] = last.max(holds(&d.rung_feet[i]));
            }
            share[2] = holds(&d.hands[0]);
            share[3] = holds(&d.hands[1]);
            // Feet held but not locked: on their way onto the ground, just
            // locked (see below), or on rungs (held in full, a foot getting
            // onto or off a ladder turned a hip at 22–24 rad/s; paced, it
            // reaches its rung a frame later, and rung contact stays within
            // 0.3 mm on the shipped runs). A hand keeps its grip in full.
            let soft = [0, 1].map(|i| !d.feet[i].locked || self.smooth.new_lock[i]);
            let limbs: [(Option<&Limb>, f32); 4] = [
                (c.legs.first(), share[0]),
                (c.legs.get(1), share[1]),
                (c.arms.first(), share[2]),
                (c.arms.get(1), share[3]),
            ];
            let held = limbs.map(|(limb, w)| {
                let limb = limb.filter(|_| w > 0.0)?;
                let end = self.models.get(limb.end)?;
                Some((pos(end), rotation(end)))
            });
            let feet = [c.legs.first(), c.legs.get(1)]
                .map(|l| l.and_then(|l| self.models.get(l.end)).map(pos));
            let n = limit_rotations(
                &self.prev_rotations,
                &mut self.pose.locals,
                MAX_JOINT_SPEED * input.dt,
            );
            self.debug.limited_joints = n as u32;
            if n > 0 {
                local_to_model(&c.skeleton, &self.pose.locals, &mut self.models);
                for (k, ((limb, w), held)) in limbs.iter().zip(held).enumerate() {
                    let (Some(limb), Some((at, turn))) = (limb, held) else {
                        continue;
                    };
                    let now = pos(&self.models[limb.end]);
                    if (now - at).length() * w <= LIMIT_RESOLVE {
                        continue;
                    }
                    // The knee's side: the limited knee's, unless that
                    // knee lies (nearly) on the hip→target line, where its
                    // side is rounding and the solve's own pole decides.
                    let target = now.lerp(at, *w);
                    let hip = pos(&self.models[limb.start]);
                    let knee = pos(&self.models[limb.mid]) - hip;
                    let axis = (target - hip).normalize_or_zero();
                    let across = |v: Vec3| v - axis * v.dot(axis);
                    let solved = across(self.limb_pole[k]).normalize_or_zero();
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
                    if limb
                        .chain
                        .solve(&opts, &c.skeleton, &mut self.pose, &mut self.models)
                        .is_err()
                    {
                        self.debug.ik_errors += 1;
                    }
                    // A foot on its way onto the ground (not locked) goes
                    // toward its hold only as fast as the limit lets its
                    // leg: it catches up before it locks (see `limit_lag`).
                    if k >= 2 || !soft[k] {
                        continue;
                    }
                    let mut again = 0;
                    for j in [limb.start, limb.mid, limb.end] {
                        if let (Some(prev), Some(now)) =
                            (self.prev_rotations.get(j), self.pose.locals.get_mut(j))
                        {
                            again += limit_rotations(
                                std::slice::from_ref(prev),
                                std::slice::from_mut(now),
                                MAX_JOINT_SPEED * input.dt,
                            );
                        }
                    }
                    if again > 0 {
                        local_to_model(&c.skeleton, &self.pose.locals, &mut self.models);
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
                if !self.smooth.new_lock[i] {
                    continue;
                }
                let off = match (held[i], self.models.get(leg.end)) {
                    (Some(_), Some(now)) => {
                        (self.world.transform_point3(pos(now)) - self.debug.feet[i].target).length()
                    }
                    _ => f32::INFINITY,
                };
                if off > LOCK_SETTLED {
                    self.smooth.lock[i] = None;
                    self.smooth.new_lock[i] = false;
                    self.debug.feet[i].locked = false;
                }
            }
            for (i, (leg, was)) in c.legs.iter().zip(feet).enumerate().take(2) {
                self.smooth.limit_lag[i] = match (was, self.models.get(leg.end)) {
                    (Some(was), Some(now)) if n > 0 => (pos(now) - was).length(),
                    _ => 0.0,
                };
            }
        } else {
            self.smooth.limit_lag = [0.0; 2];
        }
        self.prev_rotations.clear();
        self.prev_rotations
            .extend(self.pose.locals.iter().map(|t| t.rotation));
        self.smooth.limit_ready = true;
        for (shown, leg) in self.smooth.foot_shown.iter_mut().zip(&c.legs) {
            *shown = self
                .models
                .get(leg.end)
                .filter(|_| input.ik_enabled)
                .map(|m| self.world.transform_point3(pos(m)));
        }
    }

    /// Step 4: hands and feet onto rungs.
    fn ladder_ik(&mut self, c: &Character, input: &FrameInput) {
        let cw = self.smooth.climb_weight;
        let Some(ladder) = self.smooth.ladder.and_then(|i| input.level.ladders.get(i)) else {
            return;
        };
        if cw <= 0.0 || c.clip_set.climb.cycle_distance <= 0.0 {
            return;
        }
        let inv = self.world.inverse();
        let floor = self.world.w_axis.y;
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
            let (delta, rung) =
                rung_correction(&grip, ladder, floor, phase, cycle, offset.y, is_arm);
            let aw = self
                .world
                .transform_point3(pos(&self.limb_animated[slot][2]));
            // While the body still eases into its climbing place, hands and
            // feet already reach for the rungs where they will be.
            // Off the ladder (letting go) each limb keeps the correction
            // it had in the last frame on it, moving with the body (the
            // body's rise or fall would pick another rung; a hold left
            // behind in the world would stretch the arms after the body).
            let reach = if on_ladder {
                let lag = Vec3::new(self.smooth.root_lag.x, 0.0, self.smooth.root_lag.z);
                let r = Vec3::Y * delta + lag;
                self.smooth.ladder_hold[slot] = Vec3::Y * delta;
                r
            } else {
                self.smooth.ladder_hold[slot]
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
            let leaving = on_ladder && input.player.ladder_move.is_some_and(|m| m.leaving);
            let hold = if is_arm && leaving {
                let k = slot - 2;
                let [shoulder, elbow, wrist] = self.limb_animated[slot].each_ref().map(pos);
                let arm = (elbow - shoulder).length() + (wrist - elbow).length();
                let shoulder_w = self.world.transform_point3(shoulder);
                let ratio = (aw + reach - shoulder_w).length() / arm.max(1e-3);
                let g = &mut self.smooth.arm_let_go[k];
                if ratio > ARM_LET_GO_REACH || *g > 0.0 {
                    *g = (*g + input.dt.max(0.0) / ARM_LET_GO_TIME).min(1.0);
                }
                cw * (1.0 - *g).powi(2)
            } else {
                if is_arm {
                    self.smooth.arm_let_go[slot - 2] = 0.0;
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
                let h = &mut self.smooth.arm_hold[slot - 2];
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
            self.limb_pole[slot] = bend_direction(&self.limb_animated[slot], limb, axis);
            let opts = TwoBoneOptions {
                knee: KneeStrategy::Pole {
                    pole: Pole::Direction(self.limb_pole[slot]),
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
            if limb
                .chain
                .solve(&opts, &c.skeleton, &mut self.pose, &mut self.models)
                .is_err()
            {
                self.debug.ik_errors += 1;
            }
            let d = LimbDebug {
                target: target_w,
                probe: Vec3::new(target_w.x, rung.unwrap_or(target_w.y), 0.0),
                weight: hold,
                contact: limb.contact[climb_index].at(phase),
                rung,
                locked: false,
                stepping: false,
            };
            if is_arm {
                self.debug.hands[hand] = d;
                hand += 1;
            } else {
                self.debug.rung_feet[foot] = d;
                foot += 1;
            }
        }
    }
}

/// The vertical correction that puts a limb on its hold at climb `phase`
/// ([`Ladder::hold_for`]: a hand also holds the rails' rungs above the top),
/// and the hold's height: constant through a grip, eased from one grip's
/// correction to the next during the reach between them.
fn rung_correction(
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

/// The model-space direction a limb's mid joint bends toward: across the
/// limb from its hinge axis, so it stays defined when the limb is straight
/// (a knee then still points forward, never flips).
fn bend_direction(animated: &[Mat4; 3], limb: &Limb, hinge_local: Vec3) -> Vec3 {
    let [start, mid, end] = animated;
    let line = pos(end) - pos(start);
    let hinge = rotate_by(mid, hinge_local);
    (hinge.cross(line) * limb.bend_sign).normalize_or(Vec3::X)
}

/// The model-space side of the hip→ankle line a knee that is not a pure
/// hinge (see `Rig::knee_pure_hinge`) is placed on when its ankle goes to
/// `to_target` (from the hip): where the animated knee would lie off that
/// line once bent about its hinge axis as far as the target's reach needs,
/// with the leg swung rigidly onto the target. A knee its animation
/// hyperextends stays hyperextended while the reach allows, never further
/// back than the animation; otherwise it bends forward. The hinge's natural
/// bend direction ([`bend_direction`]) is added as a small bias so a straight
/// leg still has a side. The unhinged solver puts the knee on this side at
/// the bend the reach needs; as the leg straightens the knee's distance from
/// the line, and with it any effect of this direction, goes to zero, so the
/// side turning quickly near straight moves the leg by nothing.
fn knee_side(animated: &[Mat4; 3], limb: &Limb, hinge_local: Vec3, to_target: Vec3) -> Vec3 {
    let [start, mid, end] = animated;
    let fallback = bend_direction(animated, limb, hinge_local);
    let u = pos(mid) - pos(start);
    let s = pos(end) - pos(mid);
    let Some(hm) = rotate_by(mid, hinge_local).try_normalize() else {
        return fallback;
    };
    // |u + R(θ) s|² = k0 + k1 cos θ, θ the bend about the hinge measured
    // between the bones' projections onto the plane normal to it.
    let s_par = hm * s.dot(hm);
    let (u_perp, s_perp) = (u - hm * u.dot(hm), s - s_par);
    let (up, sp) = (u_perp.length(), s_perp.length());
    if up < 1e-6 || sp < 1e-6 {
        return fallback;
    }
    let theta0 = hm.dot(u_perp.cross(s_perp)).atan2(u_perp.dot(s_perp));
    let k0 = (u + s_par).length_squared() + sp * sp;
    let k1 = 2.0 * up * sp;
    let tc = ((to_target.length_squared() - k0) / k1)
        .clamp(-1.0, 1.0)
        .acos();
    let theta = if -tc >= theta0.min(0.0) && (theta0 + tc).abs() < (theta0 - tc).abs() {
        -tc
    } else {
        tc
    };
    let e = u + Quat::from_axis_angle(hm, theta - theta0) * s;
    let (Some(e_dir), Some(t_dir)) = (e.try_normalize(), to_target.try_normalize()) else {
        return fallback;
    };
    let offset = u - e_dir * u.dot(e_dir);
    Quat::from_rotation_arc(e_dir, t_dir) * offset + fallback * (POLE_BIAS * u.length())
}

/// How far the other foot's lock is from where its animation wants it.
/// The ankle height of a foot lying flat on `seg` with its sole at `x`: the
/// sole touches the surface, the ankle sits `fh` along the surface normal.
fn ankle_over(seg: &GroundSegment, x: f32, fh: f32) -> f32 {
    seg.height_at(x) + seg.normal().y * fh - fh
}

fn other_drift(s: &Smoothing, i: usize, free: &[Vec3; 2]) -> f32 {
    let j = 1 - i;
    s.lock[j].map_or(0.0, |l| {
        Vec2::new(l.x - free[j].x, l.z - free[j].z).length()
    })
}

/// Whether the layers mix clips of different states (see
/// [`PoseDebug::transition`]).
fn is_transition(c: &Character, layers: &[Layer]) -> bool {
    let total: f32 = layers.iter().map(|l| l.weight).sum();
    let gait = [c.clip_set.walk.index, c.clip_set.run.index];
    let mixing = || layers.iter().filter(|l| l.weight > 0.01 * total);
    mixing().count() >= 2 && mixing().any(|l| l.still || !gait.contains(&l.clip.index))
}

/// The contact weight of a limb under the blended layers (0 free, 1 planted
/// or gripping): each layer's clip contact curve at its phase, weighted;
/// a standing layer counts both feet down.
pub fn layer_contact(limb: &Limb, layers: &[Layer]) -> f32 {
    contact_at(limb, layers, |l| l.time)
}

/// [`layer_contact`] one frame ahead: each layer's clip moved on by the
/// step it took in the last frame (`steps`, see
/// `PosePipeline::clip_steps`); a held layer stays where it is.
fn layer_contact_ahead(limb: &Limb, layers: &[Layer], steps: &[[f32; 2]]) -> f32 {
    contact_at(limb, layers, |l| {
        let step = if l.held.is_some() {
            0.0
        } else {
            steps.get(l.clip.index).map_or(0.0, |e| e[1])
        };
        l.time + step
    })
}

/// The layers' blended contact for `limb` with each layer's clip at
/// `time(layer)`.
fn contact_at(limb: &Limb, layers: &[Layer], time: impl Fn(&Layer) -> f32) -> f32 {
    let (mut sum, mut total) = (0.0, 0.0);
    for l in layers {
        if l.still {
            // Standing: both feet down (see `Layer::still`).
            sum += l.weight;
            total += l.weight;
            continue;
        }
        let phase = time(l) / l.clip.duration.max(1e-3);
        let phase = if l.looping {
            phase
        } else {
            phase.clamp(0.0, 0.999)
        };
        sum += l.weight * limb.contact[l.clip.index].at(phase);
        total += l.weight;
    }
    if total > 1e-6 { sum / total } else { 0.0 }
}

/// The floor the body walks to from `body` (its feet) toward `x`, floor by
/// floor, stepping at most [`MAX_STEP_UP`] up and [`MAX_SNAP_DOWN`] down
/// where one floor ends and the next begins (as the player's own walk
/// does), with the x it was found at: the floor at `x`, or the end of the
/// last one before a ledge's drop or a rise higher than a step (where the
/// body stops, or walks off into the air, and a swing lands no farther).
/// `visit` sees each stretch of floor walked, as the heights at its two
/// ends (a floor is straight between them), from the body on. `None` when
/// no floor is under the body itself. At most [`MAX_WALK_FLOORS`] floors
/// are crossed.
fn walkable_floor(
    level: &Level,
    body: Vec2,
    x: f32,
    mut visit: impl FnMut(f32, f32, &GroundSegment),
) -> Option<(f32, FloorHit)> {
    let reach = |x: f32, y: f32| level.floor_below(x, y + MAX_STEP_UP, MAX_STEP_UP + MAX_SNAP_DOWN);
    let at = |x: f32, hit: FloorHit| {
        let y = hit.segment.height_at(x);
        (x, FloorHit { y, ..hit })
    };
    let mut hit = reach(body.x, body.y)?;
    let dir = x - body.x;
    let mut from = body.x;
    for _ in 0..MAX_WALK_FLOORS {
        let seg = hit.segment;
        let end = if dir > 0.0 { seg.x1 } else { seg.x0 };
        if (x - end) * dir < 0.0 || dir == 0.0 {
            visit(from, x, &seg);
            return Some(at(x, hit));
        }
        let inside = end - WALK_EDGE.copysign(dir);
        visit(from, inside, &seg);
        from = end + WALK_EDGE.copysign(dir);
        match reach(from, seg.height_at(end)) {
            Some(next) => hit = next,
            None => return Some(at(inside, hit)),
        }
    }
    let x = hit.segment.x0.max(hit.segment.x1.min(x));
    Some(at(x, hit))
}

/// Where a foot swinging toward `x` lands, and on what: the floor the body
/// walks to there (see [`walkable_floor`]), moved on past an edge it would
/// land within [`EDGE_MARGIN`] of (a foot landing just past a stair's edge
/// would have its heel on the step behind it, and drop or rise the
/// riser's height in its last frame).
///
/// Returns the landing's x, its floor, and how far the edge moved it.
fn plan_landing(
    level: &Level,
    body: Vec2,
    x: f32,
    dir: f32,
    then_x: f32,
    foot_x: f32,
) -> Option<Landing> {
    // The floor under the body when the foot lands, and the highest floor
    // from the foot on to its landing (behind the body too, for a trailing
    // foot).
    let mut body_floor = body.y;
    let mut highest = f32::NEG_INFINITY;
    let mut over = |a: f32, b: f32, seg: &GroundSegment| {
        let (lo, hi) = (a.min(b), a.max(b));
        if (lo..=hi).contains(&then_x) {
            body_floor = seg.height_at(then_x);
        }
        // The part of this stretch ahead of the foot.
        let (lo, hi) = if dir > 0.0 {
            (lo.max(foot_x), hi)
        } else {
            (lo, hi.min(foot_x))
        };
        if lo <= hi {
            highest = highest.max(seg.height_at(lo).max(seg.height_at(hi)));
        }
    };
    let (reached, hit) = walkable_floor(level, body, x, &mut over)?;
    if (body.x - foot_x) * dir > 0.0 {
        walkable_floor(level, body, foot_x, &mut over);
    }
    let (x, hit, moved) = clear_of_edge(level, x, reached, hit, dir);
    Some(Landing {
        x,
        hit,
        moved,
        body_floor,
        highest,
    })
}

/// Where a swinging foot will land, and what lies on its way.
#[derive(Clone, Copy, Debug)]
struct Landing {
    /// The landing's x, metres.
    x: f32,
    /// The floor there.
    hit: FloorHit,
    /// How far an edge moved the landing on (see [`EDGE_MARGIN`]), metres.
    moved: f32,
    /// The floor under the body when the foot lands.
    body_floor: f32,
    /// The highest floor between the foot and its landing.
    highest: f32,
}

/// A landing at `x`, on `hit` found at `reached`, moved clear of an edge
/// behind it: returns the landing's x, its floor and how far it moved.
fn clear_of_edge(
    level: &Level,
    x: f32,
    reached: f32,
    hit: FloorHit,
    dir: f32,
) -> (f32, FloorHit, f32) {
    let seg = &hit.segment;
    let edge = if dir > 0.0 { seg.x0 } else { seg.x1 };
    let past = (x - edge) * dir;
    // Short of the landing (a ledge or a wall stops the way there), or
    // clear of the edge: no move.
    if (reached - x).abs() > 1e-3 || past >= EDGE_MARGIN {
        return (reached, hit, 0.0);
    }
    // Is the floor behind the edge at another height (a step), or the same
    // surface going on (tiles, or a slope's kink)?
    let behind = edge - dir * 1e-3;
    let y = seg.height_at(edge);
    let step = level
        .floor_below(behind, y + MAX_STEP_UP, MAX_STEP_UP + MAX_SNAP_DOWN)
        .is_none_or(|h| (h.y - y).abs() > OBSTACLE);
    let clear = edge + dir * EDGE_MARGIN;
    if step && seg.covers(clear) {
        let hit = FloorHit {
            y: seg.height_at(clear),
            ..hit
        };
        (clear, hit, clear - x)
    } else {
        (x, hit, 0.0)
    }
}

/// Where a leg's swing will land, from the gait layers it swings in.
#[derive(Clone, Copy, Debug, Default)]
struct SwingPlan {
    /// The share of the layers' weight in which the foot swings (0 in
    /// contact, or with no gait playing).
    share: f32,
    /// Progress through the swing, 0 at lift-off to 1 at landing.
    progress: f32,
    /// How far the body moves before the foot lands, metres.
    ahead: f32,
    /// The foot's model-space position when it lands.
    land_model: Vec3,
    /// The hip's model-space position then.
    land_start: Vec3,
}

/// A leg's [`SwingPlan`] under the blended layers: each gait layer in which
/// the foot swings gives its progress, distance left and landing place
/// (its clip's phase follows distance walked, so distance left is phase
/// left times the cycle's distance), weighted by the layer's weight. Its
/// share is of the gait and standing layers: a crossfade's held pose (a
/// landing running on) leaves the swing to the gait coming in.
fn swing_plan(leg: &Limb, layers: &[Layer]) -> SwingPlan {
    let mut plan = SwingPlan::default();
    let mut total = 0.0;
    for l in layers {
        if l.held.is_some() || l.weight <= 0.0 {
            continue;
        }
        if l.still {
            total += l.weight;
            continue;
        }
        let Some(swings) = leg.swings.get(l.clip.index).filter(|s| !s.is_empty()) else {
            continue;
        };
        total += l.weight;
        let phase = l.time / l.clip.duration.max(1e-3);
        let swing = swings.iter().find_map(|s| s.at(phase).map(|at| (at, s)));
        if let Some(((progress, left), s)) = swing {
            plan.land_model += s.land_model * l.weight;
            plan.land_start += s.land_start * l.weight;
            plan.share += l.weight;
            plan.progress += progress * l.weight;
            plan.ahead += left * l.clip.cycle_distance * l.weight;
        }
    }
    if plan.share > 0.0 {
        let w = plan.share;
        plan.progress /= w;
        plan.ahead /= w;
        plan.land_model /= w;
        plan.land_start /= w;
        plan.share = if total > 0.0 {
            (w / total).min(1.0)
        } else {
            0.0
        };
    }
    plan
}

/// The bend of a knee, radians (0 straight), that puts the ankle `reach`
/// from the hip, for a thigh and shin of these lengths (law of cosines).
fn knee_bend(thigh: f32, shin: f32, reach: f32) -> f32 {
    let cos = (thigh * thigh + shin * shin - reach * reach) / (2.0 * thigh * shin).max(1e-6);
    PI - cos.clamp(-1.0, 1.0).acos()
}

/// How far toward `need` a pelvis now lowered by `was` may go down (metres)
/// while the knee of a leg with these `bones` (thigh, shin) holding a foot
/// at `to_foot` from its hip (before any drop) bends at most `turn` radians
/// more or less: `need` if the knee follows it within that, else the most
/// it can (never less than `was`).
fn drop_a_knee_follows(was: f32, need: f32, bones: (f32, f32), to_foot: Vec3, turn: f32) -> f32 {
    if need <= was {
        return need;
    }
    let bend = |d: f32| knee_bend(bones.0, bones.1, (to_foot + Vec3::Y * d).length());
    let from = bend(was);
    if (bend(need) - from).abs() <= turn {
        return need;
    }
    // Bisection: the bend changes monotonically with the drop while the
    // foot is below its hip (and the drop does not take the hip below it).
    let (mut lo, mut hi) = (was, need);
    for _ in 0..16 {
        let mid = 0.5 * (lo + hi);
        if (bend(mid) - from).abs() > turn {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    lo
}

/// The hip-to-ankle distance at which a knee with these bones bends `bend`
/// radians: the inverse of [`knee_bend`].
fn reach_for_bend(thigh: f32, shin: f32, bend: f32) -> f32 {
    let bend = bend.clamp(0.0, PI);
    (thigh * thigh + shin * shin + 2.0 * thigh * shin * bend.cos())
        .max(0.0)
        .sqrt()
}

/// How far a hip must drop (straight down) so that a target at offset `v`
/// from it lies within `reach`; 0 when it already does.
pub fn required_drop(v: Vec3, reach: f32) -> f32 {
    if v.length_squared() <= reach * reach || !v.is_finite() {
        return 0.0;
    }
    // |v + d·Y|² = reach² → d² + 2 d v.y + |v|² − reach² = 0.
    let disc = v.y * v.y - v.length_squared() + reach * reach;
    if disc < 0.0 {
        // Too far sideways to reach by dropping: drop level with the target.
        return (-v.y).max(0.0);
    }
    (-v.y - disc.sqrt()).max(0.0)
}

fn pos(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

fn rotation(m: &Mat4) -> Quat {
    let (_, r, _) = m.to_scale_rotation_translation();
    if r.is_finite() {
        r.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// `v` turned by the rotation part of `m` (what [`rotation`] extracts), without
/// extracting a quaternion: the matrix applied to `v` divided by the axes'
/// scales (the x scale negative for a mirroring matrix, as glam decomposes).
fn rotate_by(m: &Mat4, v: Vec3) -> Vec3 {
    let (x, y, z) = (
        m.x_axis.truncate(),
        m.y_axis.truncate(),
        m.z_axis.truncate(),
    );
    let sx = x.length() * x.dot(y.cross(z)).signum();
    let r = x * (v.x / sx) + y * (v.y / y.length()) + z * (v.z / z.length());
    if r.is_finite() { r } else { v }
}

/// The one layer of a frame that plays a single clip at a usable weight
/// (most frames), which is then sampled straight into the pose.
/// Samples `layer`'s clip into `out` (rest pose first, for joints the clip
/// does not animate), looping or held at its ends.
fn sample_layer(
    c: &Character,
    layer: &Layer,
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
    sample(&c.clips[i], layer.time, wrap, &mut cursors[i], out);
}

fn single_layer(layers: &[Layer]) -> Option<&Layer> {
    match layers {
        [only]
            if only.weight > animation::blend::BLEND_WEIGHT_EPSILON && only.weight.is_finite() =>
        {
            Some(only)
        }
        _ => None,
    }
}

/// Fraction of the remaining distance an exponential approach with time
/// constant `tau` covers in `dt`.
/// One step of a critically damped spring pulling `x` (moving at `v`) to
/// zero with natural frequency `omega` (rad/s), solved exactly for `dt`:
/// the new offset and velocity.
fn spring<T>(x: T, v: T, omega: f32, dt: f32) -> (T, T)
where
    T: Copy
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<f32, Output = T>,
{
    let j = v + x * omega;
    let e = (-omega * dt).exp();
    ((x + j * dt) * e, (v - j * (omega * dt)) * e)
}

fn approach(dt: f32, tau: f32) -> f32 {
    if tau <= 0.0 {
        1.0
    } else {
        1.0 - (-dt / tau).exp()
    }
}

fn step_toward(value: f32, target: f32, step: f32) -> f32 {
    if value < target {
        (value + step).min(target)
    } else {
        (value - step).max(target)
    }
}

fn wrap_pi(a: f32) -> f32 {
    let b = a + PI;
    // Angles already in range (nearly all) skip `rem_euclid`'s software
    // `fmodf`, which returns `b` itself there.
    if (0.0..2.0 * PI).contains(&b) {
        return b - PI;
    }
    b.rem_euclid(2.0 * PI) - PI
}

fn smoothstep(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]
        #[test]
        fn dropped_hip_reaches_the_target(
            x in -1.0f32..1.0, y in -2.0f32..0.5, z in -0.3f32..0.3, reach in 0.2f32..1.0,
        ) {
            let v = Vec3::new(x, y, z);
            let d = required_drop(v, reach);
            prop_assert!(d >= 0.0 && d.is_finite());
            let after = (v + Vec3::Y * d).length();
            // Dropping can help when the target is within reach sideways and
            // not so far above the hip that only raising it would do.
            let disc = y * y - v.length_squared() + reach * reach;
            if Vec2::new(x, z).length() <= reach && -y + disc.max(0.0).sqrt() >= 0.0 {
                prop_assert!(after <= reach * (1.0 + 1e-4) + 1e-5, "{after} > {reach}");
                // Minimal: a little less drop would not do.
                if d > 1e-3 {
                    prop_assert!((v + Vec3::Y * (d - 1e-3)).length() > reach - 1e-4);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn reach_for_bend_inverts_knee_bend(
            thigh in 0.1f32..1.0, shin in 0.1f32..1.0, t in 0.0f32..1.0,
        ) {
            let lo = (thigh - shin).abs();
            let reach = lo + (thigh + shin - lo) * t;
            let bend = knee_bend(thigh, shin, reach);
            prop_assert!((0.0..=PI).contains(&bend));
            let back = reach_for_bend(thigh, shin, bend);
            prop_assert!((back - reach).abs() < 2e-3, "{reach} -> {bend} -> {back}");
        }
    }

    proptest! {
        #[test]
        fn a_locked_knee_follows_the_pelvis_within_its_turn(
            thigh in 0.2f32..0.6, shin in 0.2f32..0.6, x in -0.4f32..0.4, y in -1.0f32..-0.5,
            was in 0.0f32..0.2, more in 0.0f32..0.2, turn in 0.02f32..0.5,
        ) {
            // A foot within the leg's reach (it is locked there).
            let to_foot = Vec3::new(x, y, 0.0);
            let to_foot = to_foot.normalize() * to_foot.length().min(0.98 * (thigh + shin));
            let need = was + more;
            let d = drop_a_knee_follows(was, need, (thigh, shin), to_foot, turn);
            prop_assert!((was..=need).contains(&d), "{was} ≤ {d} ≤ {need}");
            let bend = |d: f32| knee_bend(thigh, shin, (to_foot + Vec3::Y * d).length());
            let turned = (bend(d) - bend(was)).abs();
            prop_assert!(turned <= turn + 1e-4, "{turned} > {turn}");
            // Held back only as far as the knee needs: all of its turn used.
            if d < need {
                prop_assert!(turned >= turn - 1e-3, "{turned} < {turn}");
            }
            // Rising is never held back.
            prop_assert_eq!(drop_a_knee_follows(need, was, (thigh, shin), to_foot, turn), was);
        }
    }

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

    /// The largest angular speed, rad/s, of a joint turning from `prev` to
    /// `now` (local rotations) in `dt` seconds.
    fn fastest_joint(prev: &[Quat], now: &[Quat], dt: f32) -> f32 {
        prev.iter()
            .zip(now)
            .map(|(a, b)| 2.0 * a.dot(*b).abs().min(1.0).acos() / dt)
            .fold(0.0, f32::max)
    }

    /// The knight alone on flat ground from `x0` to `x1`, spawned `h`
    /// metres above it at x = 0 (the exit near the right end).
    /// The knight at `spawn` on a level of these ground `segments` (no
    /// ladders) whose exit is at `exit`.
    fn knight_on(
        name: &str,
        segments: Vec<crate::sim::world::GroundSegment>,
        spawn: Vec2,
        exit: Vec2,
    ) -> crate::sim::Sim {
        let level =
            crate::sim::world::Level::from_profile(name, segments, vec![], spawn, exit, -10.0);
        crate::sim::Sim::new(level, std::sync::Arc::new(Character::knight().unwrap()))
    }

    fn knight_on_flat_ground(x0: f32, x1: f32, h: f32) -> crate::sim::Sim {
        use crate::sim::world::GroundSegment;
        knight_on(
            "flat",
            vec![GroundSegment::ground(x0, x1, 0.0, 0.0)],
            Vec2::new(0.0, h),
            Vec2::new(x1 - 1.0, 0.0),
        )
    }

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
            let now: Vec<Quat> = body
                .pipeline
                .pose
                .locals
                .iter()
                .map(|t| t.rotation)
                .collect();
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

    /// Walks (or runs, when `run`) right over a flight of `steps` stairs,
    /// 0.2 m risers on 0.45 m treads, up (`rise` +1) or down (−1); returns
    /// the largest joint angular speed (rad/s) and the largest vertical
    /// move of a swinging foot's IK target in one frame (metres) between
    /// the first step and the landing after the last.
    fn over_stairs(run: bool, rise: f32) -> (f32, f32) {
        use crate::sim::Body;
        use crate::sim::player::{DT, Input};
        use crate::sim::world::GroundSegment;
        let (tread, riser, steps) = (0.45, 0.2 * rise, 6);
        let mut segments = vec![GroundSegment::ground(-5.0, 4.0, 0.0, 0.0)];
        for k in 0..steps {
            let x = 4.0 + k as f32 * tread;
            let y = (k + 1) as f32 * riser;
            segments.push(GroundSegment::ground(x, x + tread, y, y));
        }
        let (end, top) = (4.0 + steps as f32 * tread, steps as f32 * riser);
        segments.push(GroundSegment::ground(end, end + 20.0, top, top));
        let mut sim = knight_on("stairs", segments, Vec2::ZERO, Vec2::new(end + 19.0, top));
        let mut prev: Vec<Quat> = Vec::new();
        let mut prev_target = [None::<f32>; 2];
        let (mut joint, mut jump) = (0.0f32, 0.0f32);
        for _ in 0..400 {
            sim.step(&Input {
                move_x: 1.0,
                run,
                ..Input::default()
            });
            sim.pose(DT);
            let x = sim.player_state().pos.x;
            let body = sim.world.get::<&Body>(sim.player).unwrap();
            let now: Vec<Quat> = body
                .pipeline
                .pose
                .locals
                .iter()
                .map(|t| t.rotation)
                .collect();
            let on_stairs = (3.5..end + 1.0).contains(&x);
            if !prev.is_empty() && on_stairs {
                joint = joint.max(fastest_joint(&prev, &now, DT));
            }
            for (i, foot) in body.pipeline.debug.feet.iter().enumerate() {
                let swinging = !foot.locked && foot.contact < 0.5;
                if let (Some(y), true, true) = (prev_target[i], swinging, on_stairs) {
                    jump = jump.max((foot.target.y - y).abs());
                }
                prev_target[i] = Some(foot.target.y);
            }
            prev = now;
        }
        (joint, jump)
    }

    #[test]
    fn a_swing_reaches_for_the_tread_it_lands_on() {
        // Walking and running up and down a flight of 0.2 m stairs, a
        // swinging foot goes from the tread it left to the one it lands on
        // through its swing (and over a step's nose on the way), instead of
        // when its ankle crosses an edge, often the frame it lands. Today
        // at most 16.3 rad/s (running down) and a target moving 7.4 cm in a
        // frame; when each swing followed the ground under its ankle: 22.4
        // rad/s walking up, 21.6 running down, a target 10.5 cm.
        for run in [false, true] {
            for rise in [1.0, -1.0] {
                let (joint, jump) = over_stairs(run, rise);
                let what = format!("run {run}, rise {rise}: {joint} rad/s, {jump} m");
                assert!(joint <= 18.0, "{what}");
                assert!(jump <= 0.08, "{what}");
            }
        }
    }

    #[test]
    fn the_contact_ahead_is_the_clips_one_step_on() {
        // A run layer moving on by its last step reads next frame's
        // contact; a held layer stays where it is.
        let c = Character::knight().unwrap();
        let run = c.clip_set.run;
        let mut steps = vec![[f32::NAN, 0.0]; c.clips.len()];
        let step = run.duration / 40.0;
        steps[run.index] = [0.0, step];
        let leg = &c.legs[0];
        let mut changed = 0;
        for k in 0..40 {
            let layer = Layer {
                clip: run,
                time: k as f32 * step,
                weight: 1.0,
                looping: true,
                still: false,
                held: None,
            };
            let ahead = layer_contact_ahead(leg, &[layer], &steps);
            let next = layer_contact(
                leg,
                &[Layer {
                    time: layer.time + step,
                    ..layer
                }],
            );
            assert!((ahead - next).abs() < 1e-6, "{k}: {ahead} vs {next}");
            let held = Layer {
                held: Some(1),
                ..layer
            };
            let now = layer_contact(leg, &[held]);
            assert_eq!(layer_contact_ahead(leg, &[held], &steps), now);
            changed += usize::from((ahead - now).abs() > 0.5);
        }
        assert!(changed > 0, "the run's contact never changed in a step");
    }

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
            let now: Vec<Quat> = p.pose.locals.iter().map(|t| t.rotation).collect();
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

    #[test]
    fn a_foot_past_a_ledge_keeps_the_bodys_floor() {
        // Landing on a 1 m post near its edge walking right, and on off it:
        // while the body stands on the post, a foot over the edge finds no
        // floor within a step and goes to the post's height (from where it
        // reached in the air, within 15 cm today). It kept the ground its
        // probe had last found in the air: 56 cm below, and the pelvis
        // crouched for it.
        use crate::sim::Body;
        use crate::sim::player::{DT, Input, Locomotion};
        use crate::sim::world::GroundSegment;
        let mut sim = knight_on(
            "post",
            vec![
                GroundSegment::ground(-5.0, 0.0, 0.0, 0.0),
                GroundSegment::ground(0.0, 1.0, 1.0, 1.0),
                GroundSegment::ground(1.0, 10.0, 0.0, 0.0),
            ],
            Vec2::new(0.6, 1.4),
            Vec2::new(9.0, 0.0),
        );
        let mut lowest = f32::INFINITY;
        let mut on_post = 0;
        for _ in 0..200 {
            sim.step(&Input {
                move_x: 1.0,
                ..Input::default()
            });
            sim.pose(DT);
            let p = sim.player_state();
            if p.state != Locomotion::Ground || p.pos.y < 0.5 {
                continue;
            }
            on_post += 1;
            let body = sim.world.get::<&Body>(sim.player).unwrap();
            for foot in &body.pipeline.debug.feet {
                lowest = lowest.min(foot.target.y);
            }
        }
        assert!(on_post > 5, "{on_post} frames on the post");
        let ankle = Character::knight().unwrap().rest_ankle_height[0];
        assert!(
            lowest >= 1.0 + ankle - 0.15,
            "a foot reached down to {lowest}"
        );
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
            let now: Vec<Quat> = body
                .pipeline
                .pose
                .locals
                .iter()
                .map(|t| t.rotation)
                .collect();
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
