//! The knight's clips, computed from pose functions of the cycle phase and
//! baked into densely keyed LINEAR tracks: idle, walk, run, jump, fall, land,
//! climb, and for ledges hang and climb_up.
//!
//! Locomotion clips play in place. The feet of walk and run follow explicit
//! model-space paths (a planted foot slides backwards at exactly
//! `cycle_distance / duration`, so it stands still in the world while the
//! game moves the character at that speed) and the legs reach them by a
//! closed-form two-bone solve. The climb cycle is built the same way on a rung
//! lattice of a given spacing: each hand and foot moves two rungs per cycle,
//! the opposite hand and foot together.

use animation::{Clip, Interpolation, Skeleton, Track, Transform, local_to_model};
use glam::{Mat3, Mat4, Quat, Vec3};

use super::skeleton::{
    ANKLE_HEIGHT, BALL_FORWARD, FOREARM, HIP_HALF_WIDTH, SHIN, SHOULDER_HALF_WIDTH, THIGH,
    UPPER_ARM, joint,
};
use crate::sim::ledge::{HANG_DROP, HANG_OFFSET};
use crate::sim::player::{LEDGE_CLIMB_TIME, climb_offset};

/// Walk cycle (two steps), seconds: adults take ~1.0–1.1 s at 1.3–1.4 m/s.
pub const WALK_DURATION: f32 = 1.05;
/// Ground distance a walk cycle covers, metres. Shorter than an unarmoured
/// stride: the planted ankle stays flat (no heel roll), so a stride must fit
/// the straight leg's reach at the lowest pelvis height.
pub const WALK_CYCLE_DISTANCE: f32 = 1.20;
/// Fraction of the walk cycle each foot is planted (gait notes: ≈ 60%).
pub const WALK_STANCE: f32 = 0.6;
/// Run cycle, seconds (gait notes: ~0.7 s with flight phases).
pub const RUN_DURATION: f32 = 0.7;
/// Ground distance a run cycle covers, metres.
pub const RUN_CYCLE_DISTANCE: f32 = 2.2;
/// Fraction of the run cycle each foot is planted; below one half, so both
/// feet are off the ground twice per cycle.
pub const RUN_STANCE: f32 = 0.32;
/// Idle (breathing) loop, seconds.
pub const IDLE_DURATION: f32 = 3.0;
/// Jump take-off and rise, seconds.
pub const JUMP_DURATION: f32 = 0.45;
/// Fall loop, seconds.
pub const FALL_DURATION: f32 = 0.8;
/// Landing recovery, seconds.
pub const LAND_DURATION: f32 = 0.4;
/// Climb cycle, seconds.
pub const CLIMB_DURATION: f32 = 1.2;
/// The rung spacing the shipped climb clip is authored for, metres.
pub const DEFAULT_RUNG_SPACING: f32 = 0.30;
/// Rung spacings the climb cycle can be authored for: the fixed-ladder rule
/// (25–36 cm) that the arm and leg reach is checked against.
pub const RUNG_SPACING_RANGE: (f32, f32) = (0.25, 0.36);
/// Distance of the ladder's rungs in front of the body while climbing (model
/// +X), metres.
pub const CLIMB_RUNG_X: f32 = 0.30;
/// Height of the highest rung a foot stands on, metres: the knee bends to
/// about 100° there.
const CLIMB_FOOT_TOP: f32 = 0.52;
/// Preferred height of the highest rung a hand grips, metres; the actual one
/// is the nearest rung of the lattice that keeps the arm's reach.
const CLIMB_HAND_TOP: f32 = 1.78;
/// The highest a gripped rung may be, metres (arm reach from the shoulder).
const CLIMB_HAND_TOP_MAX: f32 = 1.85;
/// Keys per second of baked tracks: 40 Hz keeps the chord error of planted
/// feet far below the contact analyser's still-speed threshold.
const KEYS_PER_SECOND: f32 = 40.0;
/// The most a limb is stretched (fraction of its length): a fully straight
/// limb has no defined bend direction.
const MAX_STRETCH: f32 = 0.995;

/// Hang loop (the body swaying a little under the hands), seconds.
pub const HANG_DURATION: f32 = 2.4;
/// Climb over a ledge, seconds: the controller's move
/// ([`LEDGE_CLIMB_TIME`]), so the clip plays at its progress.
pub const CLIMB_UP_DURATION: f32 = LEDGE_CLIMB_TIME;

/// Clip names in the order they are written.
pub const CLIP_NAMES: [&str; 9] = [
    "idle", "walk", "run", "jump", "fall", "land", "climb", "hang", "climb_up",
];

/// One leg's goal: ankle position (model space), foot pitch (radians, + lifts
/// the toes), toe bend and the direction the knee bends toward (forward,
/// +X, but for a leg swung up sideways onto a ledge).
#[derive(Clone, Copy, Debug, PartialEq)]
struct LegGoal {
    ankle: Vec3,
    pitch: f32,
    toe: f32,
    pole: Vec3,
}

/// One arm's pose: forward swing, outward abduction and elbow flexion
/// (radians), or a wrist goal with the direction the elbow should point;
/// with both, `hold` (0 to 1) turns the arm from the angles to the goal
/// (a hand letting go of a ledge). `reach` is the most of the arm's length
/// the goal is reached at: farther, the hand stops short on the way to it
/// (a shoulder rising away from a corner lifts the hand off it instead of
/// snapping the elbow straight).
#[derive(Clone, Copy, Debug, PartialEq)]
struct ArmGoal {
    swing: f32,
    abduct: f32,
    elbow: f32,
    ik: Option<(Vec3, Vec3)>,
    hold: f32,
    reach: f32,
}

/// A whole-body pose before the limbs are solved.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PoseSpec {
    pelvis: Vec3,
    pelvis_rot: Quat,
    spine: Quat,
    chest: Quat,
    head: Quat,
    legs: [LegGoal; 2],
    arms: [ArmGoal; 2],
}

fn lerp_spec(a: &PoseSpec, b: &PoseSpec, t: f32) -> PoseSpec {
    let leg = |x: &LegGoal, y: &LegGoal| LegGoal {
        ankle: x.ankle.lerp(y.ankle, t),
        pitch: x.pitch + (y.pitch - x.pitch) * t,
        toe: x.toe + (y.toe - x.toe) * t,
        pole: x.pole.lerp(y.pole, t),
    };
    let arm = |x: &ArmGoal, y: &ArmGoal| ArmGoal {
        swing: x.swing + (y.swing - x.swing) * t,
        abduct: x.abduct + (y.abduct - x.abduct) * t,
        elbow: x.elbow + (y.elbow - x.elbow) * t,
        ik: x.ik,
        hold: x.hold + (y.hold - x.hold) * t,
        reach: x.reach,
    };
    PoseSpec {
        pelvis: a.pelvis.lerp(b.pelvis, t),
        pelvis_rot: a.pelvis_rot.slerp(b.pelvis_rot, t),
        spine: a.spine.slerp(b.spine, t),
        chest: a.chest.slerp(b.chest, t),
        head: a.head.slerp(b.head, t),
        legs: [leg(&a.legs[0], &b.legs[0]), leg(&a.legs[1], &b.legs[1])],
        arms: [arm(&a.arms[0], &b.arms[0]), arm(&a.arms[1], &b.arms[1])],
    }
}

/// Side sign per limb index: 0 is left (−Z), 1 is right (+Z).
const SIDE: [f32; 2] = [-1.0, 1.0];

/// Height of the pelvis joint above the hip joints at rest.
const PELVIS_ABOVE_HIP: f32 = 0.02;

/// Solves a two-bone limb from `root` toward `target`, bending toward `pole`.
/// Returns the model rotations of the upper and lower bone, whose rest
/// direction is −Y and whose hinge is local Z; `bend` is +1 when flexion
/// swings the lower bone toward local +X (elbows), −1 toward −X (knees).
fn two_bone(root: Vec3, target: Vec3, l1: f32, l2: f32, pole: Vec3, bend: f32) -> (Quat, Quat) {
    let d = target - root;
    let n = d.try_normalize().unwrap_or(Vec3::NEG_Y);
    let dist = d
        .length()
        .clamp((l1 - l2).abs() + 1e-3, (l1 + l2) * MAX_STRETCH);
    let m = (pole - n * pole.dot(n))
        .try_normalize()
        .unwrap_or_else(|| n.any_orthonormal_vector());
    let a = (l1 * l1 - l2 * l2 + dist * dist) / (2.0 * dist);
    let h = (l1 * l1 - a * a).max(0.0).sqrt();
    let elbow = root + n * a + m * h;
    let end = root + n * dist;
    let b1 = (elbow - root) / l1;
    let b2 = (end - elbow) / l2;
    let perp = (b2 - b1 * b2.dot(b1)).try_normalize().unwrap_or(-m);
    let x1 = perp * bend;
    let y1 = -b1;
    let z1 = x1.cross(y1).normalize();
    let x1 = y1.cross(z1);
    let upper = Quat::from_mat3(&Mat3::from_cols(x1, y1, z1)).normalize();
    let y2 = -b2;
    let x2 = y2.cross(z1).normalize();
    let lower = Quat::from_mat3(&Mat3::from_cols(x2, y2, z1)).normalize();
    (upper, lower)
}

fn rotation_of(m: &Mat4) -> Quat {
    Quat::from_mat3(&Mat3::from_mat4(*m)).normalize()
}

/// Turns a pose spec into local transforms, and `models` into the matching
/// model-space matrices.
fn solve(skeleton: &Skeleton, spec: &PoseSpec, locals: &mut [Transform], models: &mut [Mat4]) {
    locals.copy_from_slice(skeleton.rest_locals());
    locals[joint::PELVIS].translation = spec.pelvis;
    locals[joint::PELVIS].rotation = spec.pelvis_rot;
    locals[joint::SPINE].rotation = spec.spine;
    locals[joint::CHEST].rotation = spec.chest;
    locals[joint::HEAD].rotation = spec.head;
    local_to_model(skeleton, locals, models);
    let pelvis_rot = rotation_of(&models[joint::PELVIS]);
    let legs = [
        [joint::THIGH_L, joint::SHIN_L, joint::FOOT_L, joint::TOE_L],
        [joint::THIGH_R, joint::SHIN_R, joint::FOOT_R, joint::TOE_R],
    ];
    for (goal, [thigh, shin, foot, toe]) in spec.legs.iter().zip(legs) {
        let hip = models[thigh].w_axis.truncate();
        let (qt, qs) = two_bone(hip, goal.ankle, THIGH, SHIN, goal.pole, -1.0);
        locals[thigh].rotation = pelvis_rot.inverse() * qt;
        locals[shin].rotation = qt.inverse() * qs;
        locals[foot].rotation = qs.inverse() * Quat::from_rotation_z(goal.pitch);
        locals[toe].rotation = Quat::from_rotation_z(goal.toe);
    }
    let arms = [
        [joint::CLAVICLE_L, joint::UPPER_ARM_L, joint::FOREARM_L],
        [joint::CLAVICLE_R, joint::UPPER_ARM_R, joint::FOREARM_R],
    ];
    for (i, (goal, [clav, upper, fore])) in spec.arms.iter().zip(arms).enumerate() {
        let angles = || {
            (
                Quat::from_rotation_z(goal.swing) * Quat::from_rotation_x(-SIDE[i] * goal.abduct),
                Quat::from_rotation_z(goal.elbow),
            )
        };
        if let Some((wrist, pole)) = goal.ik {
            let shoulder = models[upper].w_axis.truncate();
            let arm = UPPER_ARM + FOREARM;
            let wrist = if goal.reach < 1.0 {
                shoulder + (wrist - shoulder).clamp_length_max(goal.reach * arm)
            } else {
                wrist
            };
            let (qu, qf) = two_bone(shoulder, wrist, UPPER_ARM, FOREARM, pole, 1.0);
            let (u, f) = (rotation_of(&models[clav]).inverse() * qu, qu.inverse() * qf);
            if goal.hold >= 1.0 {
                locals[upper].rotation = u;
                locals[fore].rotation = f;
            } else {
                let (au, af) = angles();
                let h = goal.hold.max(0.0);
                locals[upper].rotation = au.slerp(u, h);
                locals[fore].rotation = af.slerp(f, h);
            }
        } else {
            (locals[upper].rotation, locals[fore].rotation) = angles();
        }
    }
    local_to_model(skeleton, locals, models);
}

/// The arms' resting guard: shield raised before the body, sword forward.
fn guard_arms(breath: f32) -> [ArmGoal; 2] {
    [
        ArmGoal {
            swing: 0.45 + breath,
            abduct: 0.22,
            elbow: 1.25,
            ik: None,
            hold: 0.0,
            reach: 1.0,
        },
        ArmGoal {
            swing: 0.15 + breath,
            abduct: 0.14,
            elbow: 0.55,
            ik: None,
            hold: 0.0,
            reach: 1.0,
        },
    ]
}

fn hip_to_pelvis(hip_y: f32, x: f32) -> Vec3 {
    Vec3::new(x, hip_y + PELVIS_ABOVE_HIP, 0.0)
}

fn idle(p: f32) -> PoseSpec {
    let s = (p * std::f32::consts::TAU).sin();
    let foot = |x: f32, z: f32| LegGoal {
        ankle: Vec3::new(x, ANKLE_HEIGHT, z),
        pitch: 0.0,
        toe: 0.0,
        pole: Vec3::X,
    };
    PoseSpec {
        pelvis: hip_to_pelvis(0.925 - 0.006 * s, 0.0),
        pelvis_rot: Quat::from_rotation_y(0.12),
        spine: Quat::from_rotation_y(-0.06),
        chest: Quat::from_rotation_z(-0.03 + 0.02 * s),
        head: Quat::from_rotation_y(-0.06) * Quat::from_rotation_z(-0.02 * s),
        legs: [
            foot(0.09, -HIP_HALF_WIDTH - 0.03),
            foot(-0.09, HIP_HALF_WIDTH + 0.03),
        ],
        arms: guard_arms(0.03 * s),
    }
}

/// Walk and run share one shape with different numbers; `p` is the phase,
/// the left foot strikes the ground at 0 and the right at one half.
struct Gait {
    distance: f32,
    stance: f32,
    lift: f32,
    kick: f32,
    hip_mean: f32,
    hip_bob: f32,
    lean: f32,
    arm_swing: f32,
    elbow: f32,
}

const WALK: Gait = Gait {
    distance: WALK_CYCLE_DISTANCE,
    stance: WALK_STANCE,
    lift: 0.09,
    kick: 0.05,
    hip_mean: 0.885,
    hip_bob: 0.025,
    lean: -0.05,
    arm_swing: 0.28,
    elbow: 0.35,
};

const RUN: Gait = Gait {
    distance: RUN_CYCLE_DISTANCE,
    stance: RUN_STANCE,
    lift: 0.22,
    kick: 0.32,
    hip_mean: 0.825,
    hip_bob: 0.035,
    lean: -0.2,
    arm_swing: 0.55,
    elbow: 1.35,
};

fn gait(g: &Gait, p: f32) -> PoseSpec {
    let tau = std::f32::consts::TAU;
    let stride = g.distance * g.stance;
    let reach = (THIGH + SHIN) * MAX_STRETCH;
    let mut legs = [LegGoal {
        ankle: Vec3::ZERO,
        pitch: 0.0,
        toe: 0.0,
        pole: Vec3::X,
    }; 2];
    let mut hip_limit = f32::MAX;
    for (i, leg) in legs.iter_mut().enumerate() {
        let q = (p - 0.5 * i as f32).rem_euclid(1.0);
        let z = SIDE[i] * (HIP_HALF_WIDTH - 0.005);
        if q < g.stance {
            let x = stride * (0.5 - q / g.stance);
            leg.ankle = Vec3::new(x, ANKLE_HEIGHT, z);
            hip_limit = hip_limit.min(ANKLE_HEIGHT + (reach * reach - x * x).max(0.0).sqrt());
        } else {
            let w = (q - g.stance) / (1.0 - g.stance);
            let ease = (1.0 - (std::f32::consts::PI * w).cos()) * 0.5;
            let arc = (std::f32::consts::PI * w).sin();
            let x = stride * (ease - 0.5) - g.kick * arc * (1.0 - w) * 2.0;
            let y = ANKLE_HEIGHT + g.lift * arc + g.kick * 0.8 * arc * (1.0 - w);
            leg.ankle = Vec3::new(x, y, z);
            leg.pitch = -0.5 * arc * (1.0 - w) + 0.25 * arc * w;
            leg.toe = 0.3 * arc * (1.0 - w);
        }
    }
    // Highest at mid-stance of each foot, lowest just after each strike.
    let mid = g.stance * 0.5;
    let hip = (g.hip_mean + g.hip_bob * (2.0 * tau * (p - mid)).cos()).min(hip_limit);
    let c = (tau * p).cos();
    let swing = |i: usize| -SIDE[i] * g.arm_swing * c;
    let arms = guard_arms(0.0);
    PoseSpec {
        pelvis: hip_to_pelvis(hip, 0.0),
        pelvis_rot: Quat::from_rotation_y(-0.08 * c),
        spine: Quat::from_rotation_z(g.lean),
        chest: Quat::from_rotation_y(0.12 * c),
        head: Quat::from_rotation_z(-g.lean * 0.7),
        legs,
        arms: [
            ArmGoal {
                swing: arms[0].swing * 0.6 + 0.5 * swing(0),
                elbow: arms[0].elbow.max(g.elbow),
                ..arms[0]
            },
            ArmGoal {
                swing: arms[1].swing * 0.3 + swing(1),
                elbow: g.elbow + 0.2 * (1.0 - c) * 0.5,
                ..arms[1]
            },
        ],
    }
}

fn air(tuck: f32, spread: f32) -> PoseSpec {
    let leg = |x: f32, y: f32, z: f32, pitch: f32| LegGoal {
        ankle: Vec3::new(x, y, z),
        pitch,
        toe: 0.0,
        pole: Vec3::X,
    };
    PoseSpec {
        pelvis: hip_to_pelvis(0.95, 0.0),
        pelvis_rot: Quat::IDENTITY,
        spine: Quat::from_rotation_z(-0.1 * tuck),
        chest: Quat::IDENTITY,
        head: Quat::from_rotation_z(0.05),
        legs: [
            leg(
                0.05 + 0.25 * tuck,
                0.12 + 0.40 * tuck,
                -0.1,
                -0.4 + 0.3 * tuck,
            ),
            leg(
                -0.08 + 0.10 * tuck,
                0.10 + 0.28 * tuck,
                0.1,
                -0.5 + 0.2 * tuck,
            ),
        ],
        arms: [
            ArmGoal {
                swing: 0.5,
                abduct: 0.25 + spread,
                elbow: 1.1,
                ik: None,
                hold: 0.0,
                reach: 1.0,
            },
            ArmGoal {
                swing: 0.3 + spread,
                abduct: 0.2 + spread,
                elbow: 0.6,
                ik: None,
                hold: 0.0,
                reach: 1.0,
            },
        ],
    }
}

fn smooth(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn jump(p: f32) -> PoseSpec {
    let crouch = PoseSpec {
        pelvis: hip_to_pelvis(0.86, 0.0),
        ..idle(0.0)
    };
    if p < 0.3 {
        lerp_spec(&crouch, &air(0.0, 0.0), smooth(p / 0.3))
    } else {
        lerp_spec(&air(0.0, 0.0), &air(1.0, 0.05), smooth((p - 0.3) / 0.7))
    }
}

fn fall(p: f32) -> PoseSpec {
    let s = (p * std::f32::consts::TAU).sin();
    let mut spec = air(0.55 + 0.1 * s, 0.25 + 0.08 * s);
    spec.legs[0].ankle.y += 0.03 * s;
    spec.legs[1].ankle.y -= 0.03 * s;
    spec
}

fn land(p: f32) -> PoseSpec {
    let rest = idle(0.0);
    let impact = PoseSpec {
        pelvis: hip_to_pelvis(0.70, 0.0),
        spine: Quat::from_rotation_z(-0.35),
        head: Quat::from_rotation_z(0.25),
        legs: [
            LegGoal {
                ankle: Vec3::new(0.14, ANKLE_HEIGHT, -HIP_HALF_WIDTH - 0.03),
                ..rest.legs[0]
            },
            LegGoal {
                ankle: Vec3::new(-0.12, ANKLE_HEIGHT, HIP_HALF_WIDTH + 0.03),
                ..rest.legs[1]
            },
        ],
        arms: [
            ArmGoal {
                abduct: 0.45,
                ..rest.arms[0]
            },
            ArmGoal {
                abduct: 0.4,
                swing: 0.4,
                ..rest.arms[1]
            },
        ],
        ..rest
    };
    if p < 0.2 {
        lerp_spec(&air(0.3, 0.1), &impact, smooth(p / 0.2))
    } else {
        lerp_spec(&impact, &rest, smooth((p - 0.2) / 0.8))
    }
}

/// The rung heights of the climb lattice: the highest rung a foot and a hand
/// use, for rung `spacing`. The hand rung lies a whole number of rungs above
/// the foot rung, so hands and feet meet rungs of one ladder.
pub fn climb_tops(spacing: f32) -> (f32, f32) {
    let mut n = ((CLIMB_HAND_TOP - CLIMB_FOOT_TOP) / spacing).round();
    while n > 1.0 && CLIMB_FOOT_TOP + n * spacing > CLIMB_HAND_TOP_MAX {
        n -= 1.0;
    }
    (CLIMB_FOOT_TOP, CLIMB_FOOT_TOP + n * spacing)
}

/// Offset of the wrist from the rung a hand grips (the fist wraps the rung).
pub const WRIST_FROM_RUNG: Vec3 = Vec3::new(-0.05, 0.04, 0.0);
/// Offset of the ankle from the rung a foot stands on (the ball of the foot
/// on the rung).
pub const ANKLE_FROM_RUNG: Vec3 = Vec3::new(-BALL_FORWARD - 0.02, ANKLE_HEIGHT - 0.005, 0.0);

/// Height of the rung a limb is on and whether it grips it, for a limb that
/// moves during the half cycle starting at `move_start`.
fn climb_limb(spacing: f32, top: f32, p: f32, move_start: f32) -> (f32, f32, bool) {
    let q = (p - move_start).rem_euclid(1.0);
    if q < 0.5 {
        let w = q / 0.5;
        let ease = smooth(w);
        (
            top - spacing + spacing * ease,
            (std::f32::consts::PI * w).sin(),
            false,
        )
    } else {
        (top - 2.0 * spacing * (q - 0.5), 0.0, true)
    }
}

fn climb(spacing: f32, p: f32) -> PoseSpec {
    let (foot_top, hand_top) = climb_tops(spacing);
    // Left hand and right foot move in the first half, the others in the second.
    let hand_move = [0.0, 0.5];
    let foot_move = [0.5, 0.0];
    let mut legs = [LegGoal {
        ankle: Vec3::ZERO,
        pitch: 0.0,
        toe: 0.0,
        pole: Vec3::X,
    }; 2];
    let mut arms = [ArmGoal {
        swing: 0.0,
        abduct: 0.0,
        elbow: 0.0,
        ik: None,
        hold: 1.0,
        reach: 1.0,
    }; 2];
    for i in 0..2 {
        let (y, arc, _) = climb_limb(spacing, foot_top, p, foot_move[i]);
        legs[i].ankle = Vec3::new(CLIMB_RUNG_X, y, SIDE[i] * 0.12) + ANKLE_FROM_RUNG
            - Vec3::new(0.12 * arc, -0.04 * arc, 0.0);
        legs[i].pitch = -0.1 - 0.2 * arc;
        let (y, arc, _) = climb_limb(spacing, hand_top, p, hand_move[i]);
        let wrist = Vec3::new(CLIMB_RUNG_X, y, SIDE[i] * 0.19) + WRIST_FROM_RUNG
            - Vec3::new(0.12 * arc, 0.0, 0.0);
        arms[i].ik = Some((wrist, Vec3::new(-0.4, -1.0, SIDE[i] * 0.9)));
    }
    let s = (2.0 * std::f32::consts::TAU * p).sin();
    PoseSpec {
        pelvis: hip_to_pelvis(0.93 + 0.01 * s, 0.02),
        pelvis_rot: Quat::IDENTITY,
        spine: Quat::from_rotation_z(-0.08),
        chest: Quat::from_rotation_y(0.05 * (std::f32::consts::TAU * p).cos()),
        head: Quat::from_rotation_z(0.2),
        legs,
        arms,
    }
}

/// Where a ledge's corner is in model space while the knight hangs from it:
/// the controller's hang, [`HANG_OFFSET`] ahead of the feet and
/// [`HANG_DROP`] above them.
fn hang_corner() -> Vec3 {
    Vec3::new(HANG_OFFSET, HANG_DROP, 0.0)
}

/// The wrists' goals on a corner at `corner` (model space): the rig's
/// `wrist_from_rung` from it, a shoulder's width apart.
fn on_corner(corner: Vec3) -> [Vec3; 2] {
    SIDE.map(|s| corner + WRIST_FROM_RUNG + Vec3::Z * s * SHOULDER_HALF_WIDTH)
}

/// The elbows' directions hanging (out and back, under the raised arms).
fn hang_poles() -> [Vec3; 2] {
    SIDE.map(|s| Vec3::new(-0.4, -0.6, s * 0.9))
}

/// Hanging from a ledge by the hands, facing its wall (+X): arms up onto
/// the corner, nearly straight; the body straight under them; the balls of
/// the feet against the wall, the legs swaying a little; the head turned
/// up to the hands. `p` is the phase of the slow sway.
fn hang(p: f32) -> PoseSpec {
    let s = (p * std::f32::consts::TAU).sin();
    let wrists = on_corner(hang_corner());
    let poles = hang_poles();
    let wall = HANG_OFFSET + ANKLE_FROM_RUNG.x;
    let leg = |i: usize, y: f32| LegGoal {
        ankle: Vec3::new(wall, y, SIDE[i] * (HIP_HALF_WIDTH + 0.02)),
        pitch: HANG_FOOT_PITCH,
        toe: 0.0,
        pole: Vec3::X,
    };
    let arm = |i: usize| ArmGoal {
        swing: 0.0,
        abduct: 0.0,
        elbow: 0.0,
        ik: Some((wrists[i], poles[i])),
        hold: 1.0,
        reach: CLIMB_UP_REACH,
    };
    PoseSpec {
        pelvis: Vec3::new(HANG_PELVIS.x + 0.01 * s, HANG_PELVIS.y, 0.0),
        pelvis_rot: Quat::IDENTITY,
        spine: Quat::from_rotation_z(-0.03 * s),
        chest: Quat::from_rotation_y(0.03 * s),
        head: Quat::from_rotation_z(0.3),
        legs: [leg(0, 0.15 + 0.02 * s), leg(1, 0.12 - 0.02 * s)],
        arms: [arm(0), arm(1)],
    }
}

/// The pelvis hanging (model space): straight under the shoulders, the
/// arms reaching the corner at about 90 % of their length.
const HANG_PELVIS: Vec3 = Vec3::new(-0.02, 0.97, 0.0);

/// One key of the climb over a ledge, in the corner's frame (the corner at
/// the origin, model axes: the top toward +X, up +Y): the pelvis, the
/// forward lean of the spine (radians), the head's tilt up, and each
/// ankle with the way its knee bends.
#[derive(Clone, Copy, Debug)]
struct ClimbKey {
    u: f32,
    pelvis: Vec3,
    lean: f32,
    head: f32,
    ankles: [Vec3; 2],
    poles: [Vec3; 2],
}

/// A knee swung up sideways (left, right) instead of forward through the
/// wall.
const KNEE_OUT: [Vec3; 2] = [Vec3::new(0.4, 0.0, -1.0), Vec3::new(0.4, 0.0, 1.0)];

/// The keys of the climb over a ledge: a pull-up with the body off the
/// wall, the shoulders passing over the hands into a press, the right leg
/// swung up sideways onto the top and planted, the left brought over the
/// edge, and the stand (the idle's pose, see [`climb_up`]). Spaced so that
/// no joint turns faster than a ladder climber's (see the tests).
const CLIMB_KEYS: [ClimbKey; 7] = {
    const fn v(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, y, z)
    }
    const L: f32 = -(HIP_HALF_WIDTH + 0.02);
    const R: f32 = HIP_HALF_WIDTH + 0.02;
    const FWD: Vec3 = Vec3::X;
    [
        ClimbKey {
            u: 0.0,
            pelvis: v(-0.27, -0.98, 0.0),
            lean: 0.0,
            head: 0.3,
            ankles: [v(-0.15, -1.80, L), v(-0.15, -1.83, R)],
            poles: [FWD, FWD],
        },
        ClimbKey {
            u: 0.2,
            pelvis: v(-0.32, -0.80, 0.0),
            lean: 0.1,
            head: 0.3,
            ankles: [v(-0.17, -1.62, L), v(-0.21, -1.68, R)],
            poles: [FWD, FWD],
        },
        ClimbKey {
            u: 0.34,
            pelvis: v(-0.44, -0.50, 0.0),
            lean: 0.28,
            head: 0.25,
            ankles: [v(-0.22, -1.34, L), v(-0.30, -1.32, R)],
            poles: [FWD, FWD],
        },
        ClimbKey {
            u: 0.48,
            pelvis: v(-0.36, -0.10, 0.0),
            lean: 0.62,
            head: 0.1,
            ankles: [v(-0.30, -0.92, L), v(-0.42, -0.80, R + 0.05)],
            poles: [FWD, KNEE_OUT[1]],
        },
        ClimbKey {
            u: 0.6,
            pelvis: v(-0.14, 0.14, 0.0),
            lean: 0.6,
            head: 0.0,
            ankles: [v(-0.32, -0.66, L), v(-0.20, -0.05, R + 0.1)],
            poles: [FWD, KNEE_OUT[1]],
        },
        ClimbKey {
            u: 0.72,
            pelvis: v(0.10, 0.42, 0.0),
            lean: 0.42,
            head: 0.0,
            ankles: [v(-0.26, -0.36, L - 0.05), v(0.24, 0.07, R + 0.04)],
            poles: [KNEE_OUT[0], FWD],
        },
        ClimbKey {
            u: 0.86,
            pelvis: v(0.30, 0.76, 0.0),
            lean: 0.15,
            head: 0.0,
            ankles: [v(0.22, 0.26, L), v(0.27, 0.07, R + 0.02)],
            poles: [FWD, FWD],
        },
    ]
};

/// Over how much of the climb the hands let go of the corner (start,
/// length), turning back to the guard: the shoulders are then over the
/// top and pressing away from the hands.
const CLIMB_LET_GO: (f32, f32) = (0.42, 0.58);

/// A value through keys at `us` (rising) by a cubic through each (slopes
/// from the neighbours, zero at both ends): smooth, without stopping at
/// every key as easing each span would.
fn through_keys(u: f32, us: &[f32], value: impl Fn(usize) -> f32) -> f32 {
    let n = us.len();
    let k = (1..n).find(|&k| u <= us[k]).unwrap_or(n - 1);
    let (u0, u1) = (us[k - 1], us[k]);
    let h = (u1 - u0).max(1e-6);
    let s = ((u - u0) / h).clamp(0.0, 1.0);
    let slope = |i: usize| {
        if i == 0 || i == n - 1 {
            0.0
        } else {
            (value(i + 1) - value(i - 1)) / (us[i + 1] - us[i - 1])
        }
    };
    let (p0, p1) = (value(k - 1), value(k));
    let (m0, m1) = (slope(k - 1) * h, slope(k) * h);
    let (s2, s3) = (s * s, s * s * s);
    (2.0 * s3 - 3.0 * s2 + 1.0) * p0
        + (s3 - 2.0 * s2 + s) * m0
        + (-2.0 * s3 + 3.0 * s2) * p1
        + (s3 - s2) * m1
}

/// Climbing over a ledge from hanging to standing on its top, `u` of the
/// way through (0 to 1), posed about the feet where the controller has
/// them then ([`climb_offset`]): the keys ([`CLIMB_KEYS`]) are in the
/// corner's frame, so the hands stay on the corner and a planted foot
/// stays on the top while the feet's point moves; the pose ends in the
/// idle's first frame, where the standing body takes over.
fn climb_up(u: f32) -> PoseSpec {
    let corner = corner_at(u);
    let stand = idle(0.0);
    let end = corner_at(1.0);
    // The last key is the stand itself, in the corner's frame.
    let last = ClimbKey {
        u: 1.0,
        pelvis: stand.pelvis - end,
        lean: 0.0,
        head: 0.0,
        ankles: stand.legs.map(|l| l.ankle - end),
        poles: [Vec3::X, Vec3::X],
    };
    let mut keys = [last; CLIMB_KEYS.len() + 1];
    keys[..CLIMB_KEYS.len()].copy_from_slice(&CLIMB_KEYS);
    let us = keys.map(|k| k.u);
    let at = |f: &dyn Fn(&ClimbKey) -> f32| through_keys(u, &us, |i| f(&keys[i]));
    let vec = |f: &dyn Fn(&ClimbKey) -> Vec3| {
        Vec3::new(at(&|k| f(k).x), at(&|k| f(k).y), at(&|k| f(k).z))
    };
    // Into the stand the rotations turn to the idle's own.
    let to_stand = smooth((u - CLIMB_KEYS[CLIMB_KEYS.len() - 1].u) / (1.0 - 0.86));
    let lean = Quat::from_rotation_z(-at(&|k| k.lean));
    let mut legs = stand.legs;
    for (i, leg) in legs.iter_mut().enumerate() {
        leg.ankle = corner + vec(&|k| k.ankles[i]);
        leg.pole = vec(&|k| k.poles[i]).normalize_or(Vec3::X);
        leg.pitch = HANG_FOOT_PITCH * (1.0 - smooth(u / 0.6));
        leg.toe = 0.0;
    }
    let hold = 1.0 - smooth((u - CLIMB_LET_GO.0) / CLIMB_LET_GO.1);
    let wrists = on_corner(corner);
    let poles = hang_poles();
    let press = smooth(u / 0.5);
    let mut arms = stand.arms;
    for (i, arm) in arms.iter_mut().enumerate() {
        let pole = poles[i].lerp(Vec3::new(-1.0, 0.2, SIDE[i] * 0.5), press);
        arm.ik = Some((wrists[i], pole));
        arm.hold = hold;
        arm.reach = CLIMB_UP_REACH;
    }
    PoseSpec {
        pelvis: corner + vec(&|k| k.pelvis),
        pelvis_rot: Quat::IDENTITY.slerp(stand.pelvis_rot, to_stand),
        spine: lean.slerp(stand.spine, to_stand),
        chest: Quat::IDENTITY.slerp(stand.chest, to_stand),
        head: Quat::from_rotation_z(at(&|k| k.head)).slerp(stand.head, to_stand),
        legs,
        arms,
    }
}

/// The most of its length an arm reaches for the corner in the ledge clips:
/// as far as the ledge IK holds a hand climbing (its `LET_GO_REACH`, 0.93)
/// less a margin, so the elbow never snaps straight.
const CLIMB_UP_REACH: f32 = 0.9;

/// The feet's pitch hanging (toes up a little, the balls on the wall).
const HANG_FOOT_PITCH: f32 = 0.15;

/// The corner in model space `u` of the way through the climb over it.
fn corner_at(u: f32) -> Vec3 {
    let feet = climb_offset(u);
    hang_corner() - Vec3::new(feet.x, feet.y, 0.0)
}

/// Bakes a pose function into a clip with one key every 1/[`KEYS_PER_SECOND`]
/// seconds. For looping clips the last key repeats the first exactly.
fn bake(
    skeleton: &Skeleton,
    name: &str,
    duration: f32,
    looping: bool,
    pose: impl Fn(f32) -> PoseSpec,
) -> Clip {
    let keys = (duration * KEYS_PER_SECOND).round().max(2.0) as usize;
    let animated: Vec<usize> = (1..joint::COUNT)
        .filter(|j| *j != joint::WEAPON_R && *j != joint::SHIELD_L)
        .collect();
    let n = skeleton.len();
    let mut locals = skeleton.rest_locals().to_vec();
    let mut models = vec![Mat4::IDENTITY; n];
    let mut times = Vec::with_capacity(keys + 1);
    let mut rotations: Vec<Vec<Quat>> = vec![Vec::with_capacity(keys + 1); animated.len()];
    let mut pelvis = Vec::with_capacity(keys + 1);
    for k in 0..=keys {
        let u = k as f32 / keys as f32;
        let phase = if looping && k == keys { 0.0 } else { u };
        solve(skeleton, &pose(phase), &mut locals, &mut models);
        times.push(if k == keys { duration } else { u * duration });
        pelvis.push(locals[joint::PELVIS].translation);
        for (track, j) in rotations.iter_mut().zip(&animated) {
            let mut q = locals[*j].rotation;
            if let Some(prev) = track.last()
                && prev.dot(q) < 0.0
            {
                q = -q;
            }
            track.push(q);
        }
    }
    Clip {
        name: name.to_string(),
        duration,
        translations: vec![Track {
            joint: joint::PELVIS as u16,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: pelvis,
        }],
        rotations: animated
            .iter()
            .zip(rotations)
            .map(|(j, values)| Track {
                joint: *j as u16,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values,
            })
            .collect(),
        scales: vec![],
    }
}

/// Builds all nine clips (in [`CLIP_NAMES`] order); the climb cycle is
/// authored for `rung_spacing` metres between rungs.
pub fn build(skeleton: &Skeleton, rung_spacing: f32) -> Vec<Clip> {
    vec![
        bake(skeleton, "idle", IDLE_DURATION, true, idle),
        bake(skeleton, "walk", WALK_DURATION, true, |p| gait(&WALK, p)),
        bake(skeleton, "run", RUN_DURATION, true, |p| gait(&RUN, p)),
        bake(skeleton, "jump", JUMP_DURATION, false, jump),
        bake(skeleton, "fall", FALL_DURATION, true, fall),
        bake(skeleton, "land", LAND_DURATION, false, land),
        bake(skeleton, "climb", CLIMB_DURATION, true, |p| {
            climb(rung_spacing, p)
        }),
        bake(skeleton, "hang", HANG_DURATION, true, hang),
        bake(skeleton, "climb_up", CLIMB_UP_DURATION, false, climb_up),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knight::skeleton;
    use animation::{Transform, Wrap, sample_at, validate_clip};
    use proptest::prelude::*;

    fn joint_pos(s: &Skeleton, clip: &Clip, t: f32, j: usize) -> Vec3 {
        let mut locals = s.rest_locals().to_vec();
        let mut models = vec![Mat4::IDENTITY; s.len()];
        sample_at(clip, t, Wrap::Loop, &mut locals);
        local_to_model(s, &locals, &mut models);
        models[j].w_axis.truncate()
    }

    #[test]
    fn every_clip_is_valid_and_finite() {
        let s = skeleton::build().unwrap();
        let clips = build(&s, DEFAULT_RUNG_SPACING);
        assert_eq!(clips.len(), CLIP_NAMES.len());
        for (c, name) in clips.iter().zip(CLIP_NAMES) {
            assert_eq!(c.name, name);
            validate_clip(c, s.len()).unwrap();
            assert!(
                c.rotations
                    .iter()
                    .all(|t| t.values.iter().all(|q| q.is_finite()))
            );
        }
    }

    #[test]
    fn walk_stance_foot_reaches_its_ground_target() {
        // The leg solve reaches every planted-foot goal: no reach clamp.
        let s = skeleton::build().unwrap();
        let mut locals = s.rest_locals().to_vec();
        let mut models = vec![Mat4::IDENTITY; s.len()];
        for g in [&WALK, &RUN] {
            for k in 0..100 {
                let p = k as f32 / 100.0;
                let spec = gait(g, p);
                solve(&s, &spec, &mut locals, &mut models);
                for (leg, foot) in spec.legs.iter().zip([joint::FOOT_L, joint::FOOT_R]) {
                    let got = models[foot].w_axis.truncate();
                    assert!(
                        got.distance(leg.ankle) < 1e-3,
                        "phase {p}: {got} vs {:?}",
                        leg.ankle
                    );
                }
            }
        }
    }

    #[test]
    fn knees_never_bend_backwards() {
        let s = skeleton::build().unwrap();
        let clips = build(&s, DEFAULT_RUNG_SPACING);
        for clip in &clips {
            for k in 0..50 {
                let t = clip.duration * k as f32 / 50.0;
                for (hip, knee, ankle) in [
                    (joint::THIGH_L, joint::SHIN_L, joint::FOOT_L),
                    (joint::THIGH_R, joint::SHIN_R, joint::FOOT_R),
                ] {
                    let (h, k2, a) = (
                        joint_pos(&s, clip, t, hip),
                        joint_pos(&s, clip, t, knee),
                        joint_pos(&s, clip, t, ankle),
                    );
                    // The knee lies on the forward side of the hip-ankle line
                    // (in the sagittal plane, forward is +X).
                    let d = (a - h).normalize();
                    let off = (k2 - h) - d * (k2 - h).dot(d);
                    assert!(
                        off.x > -1e-3,
                        "{} t={t}: knee behind the leg line {off}",
                        clip.name
                    );
                }
            }
        }
    }

    /// The fastest any joint turns (local rotation, rad/s) sampling `clip`
    /// at 64 Hz, with the joint and the time.
    fn fastest_joint(s: &Skeleton, clip: &Clip) -> (f32, usize, f32) {
        let dt = 1.0 / 64.0;
        let n = (clip.duration / dt).floor() as usize;
        let mut prev = s.rest_locals().to_vec();
        sample_at(clip, 0.0, Wrap::Clamp, &mut prev);
        let mut worst = (0.0, 0, 0.0);
        for k in 1..=n {
            let t = k as f32 * dt;
            let mut locals = s.rest_locals().to_vec();
            sample_at(clip, t, Wrap::Clamp, &mut locals);
            for (j, (a, b)) in prev.iter().zip(&locals).enumerate() {
                let w = a.rotation.angle_between(b.rotation) / dt;
                if w > worst.0 {
                    worst = (w, j, t);
                }
            }
            prev = locals;
        }
        worst
    }

    #[test]
    fn the_ledge_clips_turn_every_joint_at_climbing_speeds() {
        // The hang sways (today 0.4 rad/s); the climb over the top turns
        // no joint faster than 14 rad/s (today 12.9, a shoulder as it
        // passes over its hand), leaving the ledge IK's corrections room
        // under the 20 rad/s target.
        let s = skeleton::build().unwrap();
        let clips = build(&s, DEFAULT_RUNG_SPACING);
        for (name, bound) in [("hang", 2.0), ("climb_up", 14.0)] {
            let clip = clips.iter().find(|c| c.name == name).unwrap();
            let (w, j, t) = fastest_joint(&s, clip);
            assert!(
                w <= bound,
                "{name}: joint {} turns {w:.1} rad/s at {t:.3} s",
                s.name(j)
            );
        }
    }

    #[test]
    fn the_climb_up_starts_from_the_hang_and_ends_standing_with_the_hands_on_the_corner() {
        let s = skeleton::build().unwrap();
        let mut locals = s.rest_locals().to_vec();
        let mut models = vec![Mat4::IDENTITY; s.len()];
        let mut other = locals.clone();
        let mut other_models = models.clone();
        let same = |a: &[Transform], b: &[Transform]| {
            a.iter().zip(b).all(|(x, y)| {
                x.rotation.angle_between(y.rotation) < 1e-3
                    && x.translation.distance(y.translation) < 1e-4
            })
        };
        solve(&s, &climb_up(0.0), &mut locals, &mut models);
        solve(&s, &hang(0.0), &mut other, &mut other_models);
        assert!(same(&locals, &other), "the climb starts from the hang");
        solve(&s, &climb_up(1.0), &mut locals, &mut models);
        solve(&s, &idle(0.0), &mut other, &mut other_models);
        assert!(same(&locals, &other), "the climb ends in the idle's pose");
        // While they hold (the pull-up and the press), the wrists are on
        // the corner, which the keys follow as the feet's point moves
        // (within 2.5 cm: an arm reaches at most 90 % of its length, the
        // ledge IK places the hand exactly).
        for k in 0..=40 {
            let u = CLIMB_LET_GO.0 * k as f32 / 40.0;
            solve(&s, &climb_up(u), &mut locals, &mut models);
            let goals = on_corner(corner_at(u));
            for (hand, goal) in [joint::HAND_L, joint::HAND_R].into_iter().zip(goals) {
                let d = models[hand].w_axis.truncate().distance(goal);
                assert!(d < 0.025, "u {u}: {} {d} m off the corner", s.name(hand));
            }
        }
        // Standing up, each foot once on the top stays on it (the right
        // from its step up, the left once brought over the edge).
        for (foot, from) in [(joint::FOOT_R, 0.72), (joint::FOOT_L, 0.86)] {
            for k in 0..=20 {
                let u = from + (1.0 - from) * k as f32 / 20.0;
                solve(&s, &climb_up(u), &mut locals, &mut models);
                let top = corner_at(u).y;
                let y = models[foot].w_axis.y;
                assert!(
                    y >= top + ANKLE_HEIGHT - 0.01,
                    "u {u}: ankle at {y}, top {top}"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn two_bone_reaches_reachable_targets_through_a_pure_hinge(
            x in -0.8f32..0.8, y in -0.8f32..0.8, z in -0.3f32..0.3,
            px in -1.0f32..1.0, pz in -0.5f32..0.5,
            bend in prop_oneof![Just(1.0f32), Just(-1.0f32)],
        ) {
            let (l1, l2) = (THIGH, SHIN);
            let target = Vec3::new(x, y, z);
            let d = target.length();
            prop_assume!(d > 0.05 && d < (l1 + l2) * MAX_STRETCH - 1e-3);
            let pole = Vec3::new(px, 0.2, pz);
            prop_assume!(pole.cross(target).length() > 0.05);
            let (upper, lower) = two_bone(Vec3::ZERO, target, l1, l2, pole, bend);
            let end = upper * (Vec3::NEG_Y * l1) + lower * (Vec3::NEG_Y * l2);
            prop_assert!(end.distance(target) < 1e-3, "reached {end} for {target}");
            // The lower bone turns about the upper bone's local Z only, by a
            // flexion of the sign the hinge prescribes.
            let rel = upper.inverse() * lower;
            let (axis, angle) = rel.to_axis_angle();
            prop_assert!(angle < 1e-3 || axis.cross(Vec3::Z).length() < 1e-2, "axis {axis}");
            let swung = rel * Vec3::NEG_Y;
            prop_assert!(swung.x * bend >= -1e-4, "bent the wrong way: {swung}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn climb_hands_and_feet_meet_rungs_of_one_ladder(
            spacing in RUNG_SPACING_RANGE.0..RUNG_SPACING_RANGE.1,
            p in 0.0f32..1.0,
        ) {
            let s = skeleton::build().unwrap();
            let mut locals = s.rest_locals().to_vec();
            let mut models = vec![Mat4::IDENTITY; s.len()];
            let spec = climb(spacing, p);
            solve(&s, &spec, &mut locals, &mut models);
            let (foot_top, hand_top) = climb_tops(spacing);
            let mut rungs = Vec::new();
            for i in 0..2 {
                let (y, _, grip) = climb_limb(spacing, foot_top, p, [0.5, 0.0][i]);
                if grip {
                    let ankle = models[[joint::FOOT_L, joint::FOOT_R][i]].w_axis.truncate();
                    prop_assert!((ankle.y - ANKLE_FROM_RUNG.y - y).abs() < 2e-3, "foot {i} off its rung");
                    rungs.push(y);
                }
                let (y, _, grip) = climb_limb(spacing, hand_top, p, [0.0, 0.5][i]);
                if grip {
                    let wrist = models[[joint::HAND_L, joint::HAND_R][i]].w_axis.truncate();
                    prop_assert!((wrist.y - WRIST_FROM_RUNG.y - y).abs() < 2e-3, "hand {i} off its rung");
                    rungs.push(y);
                }
            }
            prop_assert!(rungs.len() >= 2);
            for r in &rungs {
                let k = (r - rungs[0]) / spacing;
                prop_assert!((k - k.round()).abs() < 1e-3, "rungs {rungs:?} not {spacing} apart");
            }
        }
    }
}
