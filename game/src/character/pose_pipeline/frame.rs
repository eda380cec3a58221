//! What flows between the stages of a frame.
//!
//! - [`FrameInput`]: what a frame reads from outside (level, player, the
//!   state machine's layers, the climb phase, the IK toggle, dt); every
//!   stage reads it, none writes it.
//! - [`PoseDebug`] and its [`LimbDebug`]s: what the stages did, reset by
//!   sampling, written by foot IK, ladder IK and the joint speed limit,
//!   read by the overlay, the metrics and the contact events.
//! - `Smoothing`: the pipeline's memory between frames, written by
//!   placement (springs, fades), foot IK (foot grounds, locks, pelvis
//!   drop), ladder IK (holds) and the joint speed limit (its reference).

use glam::{Vec2, Vec3};

use crate::character::anim_state::Layer;
use crate::sim::player::Player;
use crate::sim::world::Level;

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
    /// Whether the limb is taking a deliberate step (a foot lifted in an
    /// arc: back under the body standing, round with it turning), off the
    /// ground on purpose.
    pub stepping: bool,
    /// The point a locked foot stands on (0 heel, 1 ball of
    /// `Character::sole_points`) and where foot IK holds it, world metres.
    pub pivot: Option<(u8, Vec3)>,
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
    /// The locomotion layers playing (walk and run clips, not held, not
    /// standing) as (playback rate, share of the layers' weight), the
    /// heaviest first (walk and run play in one phase, at one rate: see
    /// [`crate::character::anim_state::Layer::rate`]).
    pub gait_rates: [Option<(f32, f32)>; 2],
    /// Joints [`MAX_JOINT_SPEED`](super::MAX_JOINT_SPEED) held back this frame.
    pub limited_joints: u32,
}

/// Memory between frames.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Smoothing {
    pub(super) initialized: bool,
    pub(super) prev_pos: Vec2,
    pub(super) yaw: f32,
    pub(super) root_offset: Vec3,
    /// How fast the root offset is changing, metres per second.
    pub(super) root_vel: Vec3,
    /// A flight of stairs the root rides (see `placement::STAIR_RUN`): the
    /// body's x at its last step and that step's height (signed, metres;
    /// x NaN before the first), the run the ride takes, the root's offset
    /// at the step that the ride takes up over that run (0 off stairs),
    /// and whether the ride eases out (past the flight's last step).
    pub(super) stair_x: f32,
    pub(super) stair_step: f32,
    pub(super) stair_w: f32,
    pub(super) stair_h: f32,
    pub(super) stair_last: bool,
    /// Where the root's offset is headed off a ladder (its target eased on
    /// a spring of its own), and how fast that moves, m/s.
    pub(super) aim_offset: Vec3,
    pub(super) aim_vel: Vec3,
    /// Whether the player was on the ground last frame.
    pub(super) prev_grounded: bool,
    /// The player's vertical velocity last frame, m/s.
    pub(super) prev_vel_y: f32,
    /// The body's horizontal velocity the frame before, m/s.
    pub(super) prev_vel_x: f32,
    /// How far a landing lowers the pelvis now (metres), how fast that
    /// changes (m/s), the depth it gives to and the seconds it holds there.
    pub(super) absorb: f32,
    pub(super) absorb_vel: f32,
    pub(super) absorb_depth: f32,
    pub(super) absorb_hold: f32,
    pub(super) ground_weight: f32,
    pub(super) climb_weight: f32,
    pub(super) foot_ground: [f32; 2],
    /// How far each foot's filtered ground is from h(x) under it, metres.
    pub(super) foot_offset: [f32; 2],
    /// How far each foot reaches below the body's floor (0 or less), metres.
    pub(super) foot_reach: [f32; 2],
    /// Each foot's ground (ankle height) where its swing began: a swing's
    /// ground goes from there to where the foot will land.
    pub(super) swing_from: [f32; 2],
    /// Each foot's x (world) where its swing began, with `swing_from`: the
    /// swing's path passes over the ground from there to its landing
    /// (`gait::swing_ground`). Not a number until a foot first swings.
    pub(super) swing_from_x: [f32; 2],
    /// How far each foot was carried clear of an edge by its last swing
    /// (see [`EDGE_MARGIN`](super::gait::EDGE_MARGIN)), metres: kept through the stance it lands in.
    pub(super) land_shift: [f32; 2],
    /// The carry each foot stood with, let go of over the first
    /// [`LIFT_FADE`](super::foot_ik::LIFT_FADE) of its next swing, metres.
    pub(super) lift_shift: [f32; 2],
    /// Whether each foot is in the part of its swing that lets go of
    /// [`Smoothing::lift_shift`]: from its stance until that part ends.
    pub(super) lifting: [bool; 2],
    pub(super) foot_slope: [f32; 2],
    pub(super) foot_align: [f32; 2],
    /// How far each foot is turned onto its surface's slope (0 none, 1
    /// onto it): its `foot_align`, or more while it comes down toward a
    /// landing (see `foot_ik::TILT_FROM`), held while it is down.
    pub(super) foot_tilt: [f32; 2],
    /// How far foot IK bends each foot's toes up out of the floor, radians
    /// (see `foot_ik::TOE_BEND_SPEED`).
    pub(super) toe_bend: [f32; 2],
    /// How far each foot is turned up onto its ball, radians (see
    /// `foot_ik::MAX_HEEL_LIFT`).
    pub(super) heel: [f32; 2],
    /// The square of how far each locked foot's ankle target stood from
    /// its animated hip last frame, square metres, before any heel lift
    /// (NaN for a foot that was not locked): how fast its leg lengthens
    /// (see `foot_ik::PUSH_OFF_KNEE_SPEED`).
    pub(super) leg_span: [f32; 2],
    /// The cosine of each locked foot's knee bend as shown last frame (after
    /// the joint speed limit), NaN for a foot that was not locked: how far
    /// the pelvis holds the hips down for the knee's pace (see
    /// `foot_ik::HOLD_KNEE_SPEED`).
    pub(super) knee_cos: [f32; 2],
    /// Whether each foot was let go of because its leg ran out of reach,
    /// until it locks again or its clip lifts it (see
    /// `foot_ik::raise_trailing_feet`).
    pub(super) out_of_reach: [bool; 2],
    /// Where each swinging foot's landing was when the surface it turns
    /// toward was last found (NaN for none), that surface's slope and how
    /// far the landing is clear of a kink (see `foot_ik::LAND_TILT_MOVE`).
    pub(super) land_tilt: [(f32, f32, f32); 2],
    pub(super) lock: [Option<Vec3>; 2],
    /// How far each foot off its lock was raised last frame to keep its
    /// heel, ball and toe out of the ground, metres (a locked foot's own
    /// rise on its lowest point while locked).
    pub(super) sole_lift: [f32; 2],
    /// The point each locked foot stands on (0 heel, 1 ball of
    /// `Character::sole_points`) and where it is held, world metres from
    /// the foot's lock target.
    pub(super) pivot: [Option<(u8, Vec3)>; 2],
    /// How far foot roll moved each ankle from its lock target (or lifted
    /// a foot off its lock) last frame, world metres.
    pub(super) roll: [Vec3; 2],
    pub(super) release: [Vec3; 2],
    pub(super) release_from: [Vec3; 2],
    pub(super) release_t: [f32; 2],
    /// Whether the current release is a step taken while standing (lifted in
    /// an arc); a release into a walking swing rides the clip's own lift.
    pub(super) release_lift: [bool; 2],
    /// Whether the current release is a step round as the body turns
    /// (see `foot_ik::TURN_STEP_SHARE`), until it is set down.
    pub(super) turn_step: [bool; 2],
    /// How far each stepping foot is raised over a floor higher than the
    /// one it steps on (see `foot_ik::STEP_CLEAR_FALL`).
    pub(super) step_clear: [f32; 2],
    pub(super) turning: bool,
    /// Seconds left in which a locked foot creeps to where the idle stands
    /// it (`foot_ik::IDLE_SETTLE_TIME` from when the body last moved on the ground).
    pub(super) settle_left: f32,
    /// How fast the facing turns, rad/s.
    pub(super) yaw_vel: f32,
    /// How far the smoothed model placement still is from where it is
    /// going (on a ladder: the climbing position), world metres.
    pub(super) root_lag: Vec3,
    pub(super) pelvis_drop: f32,
    /// How much more each knee was bent by foot IK than in the animation last
    /// frame, radians (negative: straighter).
    pub(super) knee_correction: [f32; 2],
    pub(super) ladder: Option<usize>,
    /// How far each hand has let go of its hold climbing over a ladder's
    /// top (0 holding, 1 let go).
    pub(super) arm_let_go: [f32; 2],
    /// Each limb's correction (legs, then arms) onto its hold in the last
    /// frame on the ladder, world metres.
    pub(super) ladder_hold: [Vec3; 4],
    /// Each arm's share of its hold (see `ladder_ik`).
    pub(super) arm_hold: [f32; 2],
    /// The moving platform under each foot last frame and where it was
    /// then: a planted foot moves with it.
    pub(super) platform: [Option<(u16, Vec2)>; 2],
    /// Whether `PosePipeline::prev_rotations` holds the previous frame's
    /// final pose (the joint speed limit has something to limit from).
    pub(super) limit_ready: bool,
    /// Each foot's share of its ground hold in the joint speed limit last
    /// frame (see [`LIMIT_LAND_TIME`](super::joint_limit::LIMIT_LAND_TIME)).
    pub(super) limit_hold: [f32; 2],
    /// How far the joint speed limit left each foot from where IK put it
    /// last frame, metres: a foot locks only once it has caught up.
    pub(super) limit_lag: [f32; 2],
    /// Each foot's contact weight one frame ahead (see
    /// `layer_contact_ahead`).
    pub(super) contact_ahead: [f32; 2],
    /// Whether each foot's lock was placed this frame: it holds only if
    /// the joint speed limit leaves the foot on it (see
    /// `joint_limit::limit_joint_speed`).
    pub(super) new_lock: [bool; 2],
    /// Each ankle where the last frame showed it, world metres (`None`
    /// with IK off).
    pub(super) foot_shown: [Option<Vec3>; 2],
    /// Where each foot's animation wants it this frame, world metres (a
    /// foot released travels back to it; see `foot_ik::let_go`).
    pub(super) foot_free: [Vec3; 2],
}
