//! Rig files: how the pose pipeline finds a character's legs, arms and clips
//! by joint name, so any humanoid glTF can be played.
//!
//! A rig file is RON:
//!
//! ```ron
//! (
//!     pelvis: "pelvis",
//!     legs: [
//!         (hip: "thigh_l", knee: "shin_l", ankle: "foot_l", toe: Some("toe_l")),
//!         (hip: "thigh_r", knee: "shin_r", ankle: "foot_r", toe: Some("toe_r")),
//!     ],
//!     arms: [
//!         (shoulder: "upper_arm_l", elbow: "forearm_l", wrist: "hand_l"),
//!         (shoulder: "upper_arm_r", elbow: "forearm_r", wrist: "hand_r"),
//!     ],
//!     knee_hinge_axis: (0.0, 0.0, 1.0),
//!     elbow_hinge_axis: (0.0, 0.0, -1.0),
//!     foot_height: 0.07,
//!     clips: (idle: "idle", walk: "walk", run: "run", jump: "jump", fall: "fall", land: "land", climb: "climb"),
//!     walk_cycle_distance: 1.42,
//!     run_cycle_distance: 2.38,
//!     climb_cycle_distance: 0.6,
//! )
//! ```
//!
//! Hinge axes are in the mid joint's local frame; a positive rotation about
//! the axis bends the joint the natural way. `foot_height` is the ankle's
//! height above the sole. Clip names may repeat (a model with only a walk clip
//! can map every state to it).
//!
//! Optional fields serve models that are not built like the knight, and
//! `assets/rigs/cesium_man.rig.ron` uses them all:
//!
//! - `knee_pure_hinge: false` and `elbow_pure_hinge: false` for knees and
//!   elbows that do not turn about their hinge axis alone (see
//!   [`RigFile::knee_pure_hinge`], [`RigFile::elbow_pure_hinge`]);
//! - `idle_time: Some(seconds)` for a model with no standing clip, which then
//!   stands in that frame of its idle clip (see [`RigFile::idle_time`]);
//! - an arm's own `elbow_hinge_axis: Some((x, y, z))`, for a model whose two
//!   elbows' local frames differ (see [`ArmNames::elbow_hinge_axis`]); an arm
//!   without one uses the rig's `elbow_hinge_axis`;
//! - `procedural_climb: true` for a model without a climb clip: the rig then
//!   names no `climb` clip, and a climb cycle of `climb_cycle_distance` is
//!   generated from the model's rest pose at load time, its hands and feet
//!   on rungs `climb_rung_distance` in front, `wrist_from_rung` and
//!   `ankle_from_rung` from them (see `character::procedural_climb`). It
//!   needs two arms and positive `climb_cycle_distance` and
//!   `climb_rung_distance`; a rig that names a climb clip and asks for a
//!   procedural one too, or neither, is an error naming the file;
//! - `hang: "NAME"` and `climb_up: "NAME"` in `clips`, for a model with
//!   authored ledge clips (the knight's): hanging from a ledge plays `hang`,
//!   climbing over it plays `climb_up` at the controller's progress; both or
//!   neither, and only with two arms. A rig without them hangs and climbs
//!   over ledges with its climb clip (see `character::ledge_ik`);
//! - a leg's own `knee_hinge_axis: Some((x, y, z))`, for a model whose two
//!   knees' local frames differ (mirrored rigs);
//! - `up` and `scale`, which turn the model so that `up` points along +Y and
//!   scale it before anything else is read (a Z-up model, one in
//!   centimetres); every other field speaks of the turned, scaled model.
//!
//! `ironstep rig MODEL` infers all of it from a model alone (see
//! `character::humanoid`), and a rig file given with `--rig` is laid over the
//! inferred rig field by field, so it may name only the fields it corrects.
//!
//! Every rig is validated before it is used ([`RigFile::validate`]); an
//! error names the file and the field (`cesium_man.rig.ron: legs[1].hip:
//! ...`). The rules and their reasons:
//!
//! - the file is a regular file of at most [`MAX_RIG_FILE_BYTES`];
//! - one or two legs and at most two arms ([`MAX_LIMBS`]);
//! - every axis (`knee_hinge_axis`, `elbow_hinge_axis`, an arm's own, and
//!   `forward`) has finite components and a length between
//!   [`MIN_AXIS_LENGTH`] and [`MAX_AXIS_LENGTH`] (it is normalised; a
//!   shorter one has no reliable direction, a longer one is a typo whose
//!   length may overflow `f32`);
//! - distances and times are finite and in range: `foot_height` in
//!   [0, 1) m, `climb_rung_distance` in [0, 2) m, the walk and run cycle
//!   distances in (0, [`MAX_CYCLE_DISTANCE`]] m, the climb's in [0,
//!   [`MAX_CYCLE_DISTANCE`]] m, `idle_time` in [0, [`MAX_IDLE_TIME`]] s, and
//!   each offset from a rung under 1 m long;
//! - each limb's joints form a chain in the skeleton (every joint a
//!   descendant of the one before: hip, knee, ankle, toe; shoulder, elbow,
//!   wrist), and no joint serves twice: not within a limb, not in two limbs
//!   (two legs naming the same joints would plant one foot twice), not as
//!   the pelvis and a limb joint.

use std::path::Path;

use animation::Skeleton;
use glam::Vec3;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The largest rig file read: 1 MiB. A rig is a page of text (the
/// knight's is 1.3 KB with its comments); a wrong path (a device, a large
/// file) is refused instead of read into memory.
pub const MAX_RIG_FILE_BYTES: u64 = 1 << 20;

/// The most legs, and the most arms, a rig may name: two (left, right).
/// The pose pipeline plants and climbs with a biped's limbs.
pub const MAX_LIMBS: usize = 2;

/// The shortest axis accepted, before it is normalised: 0.001. A shorter
/// one has too little length for its direction to survive rounding.
pub const MIN_AXIS_LENGTH: f64 = 1e-3;

/// The longest axis accepted, before it is normalised: 1000. An axis is a
/// direction; a longer one is a typo, and lengths near `f32::MAX` overflow
/// to infinity and normalise to zero.
pub const MAX_AXIS_LENGTH: f64 = 1e3;

/// The longest walk, run or climb cycle distance: 10 m. One cycle is two
/// steps (or two rungs); a sprinting human's cycle is under 5 m.
pub const MAX_CYCLE_DISTANCE: f32 = 10.0;

/// The largest `scale` accepted: 10,000. It turns a model's units into
/// metres (0.01 for centimetres, 0.001 for millimetres); one that makes a
/// model ten thousand times larger is a typo, and far larger ones overflow
/// the skeleton's matrices.
pub const MAX_SCALE: f32 = 1e4;

/// The latest `idle_time` accepted: an hour, in seconds. It is a time in
/// the idle clip; clips are seconds long.
pub const MAX_IDLE_TIME: f32 = 3600.0;

/// Joint names of one leg.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct LegNames {
    /// Hip joint (the thigh's start).
    pub hip: String,
    /// Knee joint.
    pub knee: String,
    /// Ankle joint.
    pub ankle: String,
    /// Toe joint, if the rig has one.
    #[serde(default)]
    pub toe: Option<String>,
    /// This leg's knee hinge axis in its knee's local frame, for a model
    /// whose two knees' frames differ (mirrored rigs); absent, the rig's
    /// [`RigFile::knee_hinge_axis`] serves.
    #[serde(default)]
    pub knee_hinge_axis: Option<(f32, f32, f32)>,
}

/// Joint names of one arm.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct ArmNames {
    /// Shoulder joint (the upper arm's start).
    pub shoulder: String,
    /// Elbow joint.
    pub elbow: String,
    /// Wrist joint.
    pub wrist: String,
    /// This arm's elbow hinge axis in its elbow's local frame, for a model
    /// whose two elbows' frames differ; absent, the rig's
    /// [`RigFile::elbow_hinge_axis`] serves.
    #[serde(default)]
    pub elbow_hinge_axis: Option<(f32, f32, f32)>,
}

/// Clip names per animation state.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct ClipNames {
    /// Standing still.
    pub idle: String,
    /// Walk cycle.
    pub walk: String,
    /// Run cycle.
    pub run: String,
    /// Jump take-off and rise.
    pub jump: String,
    /// Falling.
    pub fall: String,
    /// Landing.
    pub land: String,
    /// Ladder climb cycle. May be left out (it then reads as empty) only
    /// when [`RigFile::procedural_climb`] is set, and must be then.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub climb: String,
    /// Hanging from a ledge by the hands (loops), facing its wall; optional
    /// (empty: the climb clip serves, as for any humanoid without one, see
    /// `character::ledge_ik`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hang: String,
    /// Climbing over a ledge from hanging to standing on its top, played
    /// at the controller's progress through the climb (one pass over the
    /// clip's length); optional (empty: the climb clip serves). Named only
    /// with `hang`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub climb_up: String,
}

/// A rig file as written.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct RigFile {
    /// The pelvis joint, lowered so both feet can reach the ground.
    pub pelvis: String,
    /// Left then right leg.
    pub legs: Vec<LegNames>,
    /// Left then right arm.
    #[serde(default)]
    pub arms: Vec<ArmNames>,
    /// Knee hinge axis in the knee's local frame.
    pub knee_hinge_axis: (f32, f32, f32),
    /// Elbow hinge axis in the elbow's local frame.
    #[serde(default = "default_elbow_axis")]
    pub elbow_hinge_axis: (f32, f32, f32),
    /// Whether the model's knees turn about `knee_hinge_axis` alone (the
    /// default). When they do, foot IK solves each leg with the knee turning
    /// about that axis within its range. When they do not (a knee that also
    /// twists or leans sideways as it bends, so the thigh and shin leave the
    /// plane normal to the axis), a nearly straight leg's knee lies off the
    /// hip→ankle line sideways, and a hinged solve that turns that offset
    /// toward the knee's forward direction spins the whole leg about its
    /// axis; set it to `false` and foot IK places such a knee on the side
    /// its animation puts it, with the bend limited by reach.
    #[serde(default = "default_true")]
    pub knee_pure_hinge: bool,
    /// Whether the model's elbows turn about their elbow hinge axes alone
    /// (the default), as [`RigFile::knee_pure_hinge`] for the knees: when
    /// they do not, the ladder IK (and a procedural climb) bends each elbow
    /// toward its pole without the hinge limit, since a hinged solve of a
    /// nearly straight arm whose elbow leaves its hinge plane flips between
    /// the two bends that reach its target.
    #[serde(default = "default_true")]
    pub elbow_pure_hinge: bool,
    /// Height of the ankle above the sole, metres.
    pub foot_height: f32,
    /// Clip names per state.
    pub clips: ClipNames,
    /// For a model without a standing clip: seconds into the idle clip
    /// (usually the walk) to hold while standing, a frame where both feet are
    /// down. Standing then holds that one pose instead of playing the clip,
    /// which would walk in place. Absent: the idle clip plays as it is.
    #[serde(default)]
    pub idle_time: Option<f32>,
    /// Ground distance one walk cycle covers, metres.
    pub walk_cycle_distance: f32,
    /// Ground distance one run cycle covers, metres.
    pub run_cycle_distance: f32,
    /// Ladder height one climb cycle covers, metres.
    #[serde(default)]
    pub climb_cycle_distance: f32,
    /// Whether the climb cycle is generated at load time instead of read
    /// from the model (see `character::procedural_climb`): for a model
    /// without a climb clip. The rig then names no climb clip and needs two
    /// arms, a positive `climb_cycle_distance` and a positive
    /// `climb_rung_distance`.
    #[serde(default)]
    pub procedural_climb: bool,
    /// The model's forward axis in its own space (the way it walks).
    #[serde(default = "default_forward")]
    pub forward: (f32, f32, f32),
    /// Distance from the root to the ladder's rung plane, along `forward`,
    /// while climbing (the climb clip's rungs lie this far in front), metres.
    #[serde(default)]
    pub climb_rung_distance: f32,
    /// Offset of a gripping wrist from the rung's centre line, model space.
    #[serde(default)]
    pub wrist_from_rung: (f32, f32, f32),
    /// Offset of an ankle from the rung its foot stands on, model space.
    #[serde(default)]
    pub ankle_from_rung: (f32, f32, f32),
    /// The model's up axis as the file has it; the model is turned so that
    /// it points along +Y before anything else is read (see
    /// `character::humanoid::normalize`). Every other field speaks of the
    /// turned, scaled model.
    #[serde(default = "default_up")]
    pub up: (f32, f32, f32),
    /// The uniform scale applied to the model at load (after `up`), so that
    /// it stands at a playable height (see
    /// `character::humanoid::infer::STANDING_HEIGHT`).
    #[serde(default = "default_scale")]
    pub scale: f32,
}

fn default_up() -> (f32, f32, f32) {
    (0.0, 1.0, 0.0)
}

fn default_scale() -> f32 {
    1.0
}

fn default_true() -> bool {
    true
}

fn default_forward() -> (f32, f32, f32) {
    (1.0, 0.0, 0.0)
}

fn default_elbow_axis() -> (f32, f32, f32) {
    (0.0, 0.0, 1.0)
}

/// A leg resolved to joint indices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leg {
    /// Hip joint index.
    pub hip: usize,
    /// Knee joint index.
    pub knee: usize,
    /// Ankle joint index.
    pub ankle: usize,
    /// Toe joint index.
    pub toe: Option<usize>,
    /// This leg's knee hinge axis, knee-local, unit length (its own
    /// [`LegNames::knee_hinge_axis`], else the rig's).
    pub knee_hinge_axis: Vec3,
}

/// An arm resolved to joint indices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arm {
    /// Shoulder joint index.
    pub shoulder: usize,
    /// Elbow joint index.
    pub elbow: usize,
    /// Wrist joint index.
    pub wrist: usize,
    /// This arm's elbow hinge axis, elbow-local, unit length (its own
    /// [`ArmNames::elbow_hinge_axis`], else the rig's).
    pub elbow_hinge_axis: Vec3,
}

/// A rig resolved against a skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct Rig {
    /// Pelvis joint index.
    pub pelvis: usize,
    /// Legs (left, right).
    pub legs: Vec<Leg>,
    /// Arms (left, right).
    pub arms: Vec<Arm>,
    /// Knee hinge axis, knee-local, unit length.
    pub knee_hinge_axis: Vec3,
    /// The rig's elbow hinge axis, elbow-local, unit length: the axis of an
    /// arm that names none of its own (each [`Arm`] carries the one that
    /// applies to it).
    pub elbow_hinge_axis: Vec3,
    /// Whether the knees turn about their hinge axis alone (see
    /// [`RigFile::knee_pure_hinge`]).
    pub knee_pure_hinge: bool,
    /// Whether the elbows turn about their hinge axes alone (see
    /// [`RigFile::elbow_pure_hinge`]).
    pub elbow_pure_hinge: bool,
    /// Ankle height above the sole, metres.
    pub foot_height: f32,
    /// Forward axis in model space, unit length.
    pub forward: Vec3,
    /// Offset of a gripping wrist from its rung, model space.
    pub wrist_from_rung: Vec3,
    /// Offset of a standing ankle from its rung, model space.
    pub ankle_from_rung: Vec3,
    /// The file as written (clip names, cycle distances).
    pub file: RigFile,
}

/// Why a rig could not be used.
#[derive(Debug, Error)]
pub enum RigError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The rig file.
        file: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The RON is malformed or misses a field.
    #[error("{file}: {reason}")]
    Parse {
        /// The rig file.
        file: String,
        /// What the parser said.
        reason: String,
    },
    /// A named joint is not in the skeleton.
    #[error("{file}: joint '{joint}' ({role}) is not in the model's skeleton")]
    MissingJoint {
        /// The rig file.
        file: String,
        /// The joint name.
        joint: String,
        /// What the rig uses it for.
        role: &'static str,
    },
    /// The joints of a limb do not form a parent-to-child chain.
    #[error("{file}: '{child}' does not lie below '{parent}' in the skeleton")]
    NotAChain {
        /// The rig file.
        file: String,
        /// The upper joint.
        parent: String,
        /// The joint that should lie below it.
        child: String,
    },
    /// A field of the rig is unusable: out of range, not a chain, a joint
    /// used twice.
    #[error("{file}: {field}: {reason}")]
    Field {
        /// The rig file.
        file: String,
        /// The field, as written (`legs[1].hip`, `knee_hinge_axis`).
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// A number is out of range.
    #[error("{file}: {reason}")]
    Invalid {
        /// The rig file.
        file: String,
        /// What is wrong.
        reason: String,
    },
}

impl RigFile {
    /// Reads a rig file.
    /// It must be a regular file of at most [`MAX_RIG_FILE_BYTES`].
    pub fn load(path: &Path) -> Result<Self, RigError> {
        let file = path.display().to_string();
        let text = read_rig_text(path).map_err(|source| RigError::Io {
            file: file.clone(),
            source,
        })?;
        Self::parse(&text, &file)
    }

    /// Parses rig text; `file` labels errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, RigError> {
        ron::from_str(text).map_err(|e| RigError::Parse {
            file: file.to_string(),
            reason: e.to_string(),
        })
    }

    /// Resolves joint names against `skeleton`; `file` labels errors.
    /// The rig is validated first ([`RigFile::validate`]).
    pub fn resolve(&self, skeleton: &Skeleton, file: &str) -> Result<Rig, RigError> {
        self.validate(skeleton, file)?;
        let find = |name: &str, role: &'static str| {
            skeleton
                .joint_index(name)
                .ok_or_else(|| RigError::MissingJoint {
                    file: file.to_string(),
                    joint: name.to_string(),
                    role,
                })
        };
        let below = |parent: &str, p: usize, child: &str, c: usize| {
            if skeleton.is_descendant_of(c, p) && c != p {
                Ok(())
            } else {
                Err(RigError::NotAChain {
                    file: file.to_string(),
                    parent: parent.to_string(),
                    child: child.to_string(),
                })
            }
        };
        let axis = |v: (f32, f32, f32), what: &str| {
            let v = Vec3::new(v.0, v.1, v.2);
            if v.is_finite() && v.length() > 1e-3 {
                Ok(v.normalize())
            } else {
                Err(RigError::Invalid {
                    file: file.to_string(),
                    reason: format!("{what} must be a finite non-zero vector"),
                })
            }
        };
        let offset = |v: (f32, f32, f32), what: &str| {
            let v = Vec3::new(v.0, v.1, v.2);
            if v.is_finite() && v.length() < 1.0 {
                Ok(v)
            } else {
                Err(RigError::Invalid {
                    file: file.to_string(),
                    reason: format!("{what} must be finite and under 1 m"),
                })
            }
        };
        if !(self.climb_rung_distance.is_finite() && (0.0..2.0).contains(&self.climb_rung_distance))
        {
            return Err(RigError::Invalid {
                file: file.to_string(),
                reason: format!(
                    "climb_rung_distance {} must be in [0, 2) metres",
                    self.climb_rung_distance
                ),
            });
        }
        let knee_hinge_axis = axis(self.knee_hinge_axis, "knee_hinge_axis")?;
        let mut legs = Vec::new();
        for (i, l) in self.legs.iter().enumerate() {
            let leg = Leg {
                knee_hinge_axis: match l.knee_hinge_axis {
                    Some(v) => axis(v, &format!("legs[{i}].knee_hinge_axis"))?,
                    None => knee_hinge_axis,
                },
                hip: find(&l.hip, "hip")?,
                knee: find(&l.knee, "knee")?,
                ankle: find(&l.ankle, "ankle")?,
                toe: l.toe.as_deref().map(|t| find(t, "toe")).transpose()?,
            };
            below(&l.hip, leg.hip, &l.knee, leg.knee)?;
            below(&l.knee, leg.knee, &l.ankle, leg.ankle)?;
            if let (Some(t), Some(ti)) = (&l.toe, leg.toe) {
                below(&l.ankle, leg.ankle, t, ti)?;
            }
            legs.push(leg);
        }
        let elbow_hinge_axis = axis(self.elbow_hinge_axis, "elbow_hinge_axis")?;
        let mut arms = Vec::new();
        for (i, a) in self.arms.iter().enumerate() {
            let arm = Arm {
                shoulder: find(&a.shoulder, "shoulder")?,
                elbow: find(&a.elbow, "elbow")?,
                wrist: find(&a.wrist, "wrist")?,
                elbow_hinge_axis: match a.elbow_hinge_axis {
                    Some(v) => axis(v, &format!("arms[{i}].elbow_hinge_axis"))?,
                    None => elbow_hinge_axis,
                },
            };
            below(&a.shoulder, arm.shoulder, &a.elbow, arm.elbow)?;
            below(&a.elbow, arm.elbow, &a.wrist, arm.wrist)?;
            arms.push(arm);
        }
        if !(self.foot_height.is_finite() && (0.0..1.0).contains(&self.foot_height)) {
            return Err(RigError::Invalid {
                file: file.to_string(),
                reason: format!("foot_height {} must be in [0, 1) metres", self.foot_height),
            });
        }
        if let Some(t) = self.idle_time
            && !(t.is_finite() && t >= 0.0)
        {
            return Err(RigError::Invalid {
                file: file.to_string(),
                reason: format!("idle_time {t} must be a time in the idle clip, seconds"),
            });
        }
        for (v, what) in [
            (self.walk_cycle_distance, "walk_cycle_distance"),
            (self.run_cycle_distance, "run_cycle_distance"),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(RigError::Invalid {
                    file: file.to_string(),
                    reason: format!("{what} {v} must be positive"),
                });
            }
        }
        self.check_climb(file)?;
        self.check_ledge_clips(file)?;
        Ok(Rig {
            pelvis: find(&self.pelvis, "pelvis")?,
            legs,
            arms,
            knee_hinge_axis,
            elbow_hinge_axis,
            knee_pure_hinge: self.knee_pure_hinge,
            elbow_pure_hinge: self.elbow_pure_hinge,
            foot_height: self.foot_height,
            forward: axis(self.forward, "forward")?,
            wrist_from_rung: offset(self.wrist_from_rung, "wrist_from_rung")?,
            ankle_from_rung: offset(self.ankle_from_rung, "ankle_from_rung")?,
            file: self.clone(),
        })
    }
}

/// Reads a rig file's text: a regular file (not a device, FIFO or folder)
/// of at most [`MAX_RIG_FILE_BYTES`], read no further than that.
fn read_rig_text(path: &Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read};
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_RIG_FILE_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_RIG_FILE_BYTES {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!("larger than the limit of {MAX_RIG_FILE_BYTES} bytes for a rig file"),
        ));
    }
    Ok(text)
}

impl RigFile {
    /// Checks the rig against the rules in the module documentation (limb
    /// counts, axes, ranges, chains, distinct joints) before it is resolved;
    /// errors name `file` and the field. A joint name the skeleton lacks is
    /// left to [`RigFile::resolve`], which names it and its role.
    pub fn validate(&self, skeleton: &Skeleton, file: &str) -> Result<(), RigError> {
        let fail = |field: &str, reason: String| RigError::Field {
            file: file.to_string(),
            field: field.to_string(),
            reason,
        };
        for (count, field, min) in [(self.legs.len(), "legs", 1), (self.arms.len(), "arms", 0)] {
            if !(min..=MAX_LIMBS).contains(&count) {
                return Err(fail(
                    field,
                    format!("the rig names {count}; it needs {min} to {MAX_LIMBS} (left, right)"),
                ));
            }
        }
        let mut axes = vec![
            ("knee_hinge_axis".to_string(), self.knee_hinge_axis),
            ("elbow_hinge_axis".to_string(), self.elbow_hinge_axis),
            ("forward".to_string(), self.forward),
            ("up".to_string(), self.up),
        ];
        for (i, l) in self.legs.iter().enumerate() {
            if let Some(v) = l.knee_hinge_axis {
                axes.push((format!("legs[{i}].knee_hinge_axis"), v));
            }
        }
        for (i, a) in self.arms.iter().enumerate() {
            if let Some(v) = a.elbow_hinge_axis {
                axes.push((format!("arms[{i}].elbow_hinge_axis"), v));
            }
        }
        for (field, v) in axes {
            check_axis(v).map_err(|reason| fail(&field, reason))?;
        }
        // [lo, hi) for heights and distances, (0, max] for cycles that must
        // move, [0, max] for the rest.
        let (closed, open, positive) = (Ends::Closed, Ends::OpenAbove, Ends::OpenBelow);
        for (field, value, range) in [
            ("foot_height", Some(self.foot_height), (0.0, 1.0, open, "m")),
            (
                "climb_rung_distance",
                Some(self.climb_rung_distance),
                (0.0, 2.0, open, "m"),
            ),
            (
                "walk_cycle_distance",
                Some(self.walk_cycle_distance),
                (0.0, MAX_CYCLE_DISTANCE, positive, "m"),
            ),
            (
                "run_cycle_distance",
                Some(self.run_cycle_distance),
                (0.0, MAX_CYCLE_DISTANCE, positive, "m"),
            ),
            (
                "climb_cycle_distance",
                Some(self.climb_cycle_distance),
                (0.0, MAX_CYCLE_DISTANCE, closed, "m"),
            ),
            (
                "idle_time",
                self.idle_time,
                (0.0, MAX_IDLE_TIME, closed, "s"),
            ),
            (
                "scale",
                Some(self.scale),
                (0.0, MAX_SCALE, positive, "(a factor)"),
            ),
        ] {
            if let Some(v) = value {
                check_range(v, range).map_err(|reason| fail(field, reason))?;
            }
        }
        for (field, v) in [
            ("wrist_from_rung", self.wrist_from_rung),
            ("ankle_from_rung", self.ankle_from_rung),
        ] {
            let len =
                (f64::from(v.0).powi(2) + f64::from(v.1).powi(2) + f64::from(v.2).powi(2)).sqrt();
            if len.is_nan() || len >= 1.0 {
                return Err(fail(
                    field,
                    format!("{v:?} must be finite and under 1 m long"),
                ));
            }
        }
        // Chains and distinct joints. Every joint named, by field.
        let mut used: Vec<(String, usize)> = Vec::new();
        let mut claim = |field: String, name: &str| -> Result<Option<usize>, RigError> {
            let Some(j) = skeleton.joint_index(name) else {
                return Ok(None);
            };
            if let Some((other, _)) = used.iter().find(|(_, k)| *k == j) {
                return Err(fail(
                    &field,
                    format!("joint '{name}' is also {other}; each limb needs joints of its own"),
                ));
            }
            used.push((field, j));
            Ok(Some(j))
        };
        claim("pelvis".to_string(), &self.pelvis)?;
        let mut limbs: Vec<Vec<(String, &str)>> = Vec::new();
        for (i, l) in self.legs.iter().enumerate() {
            let mut chain = vec![
                (format!("legs[{i}].hip"), l.hip.as_str()),
                (format!("legs[{i}].knee"), l.knee.as_str()),
                (format!("legs[{i}].ankle"), l.ankle.as_str()),
            ];
            if let Some(t) = &l.toe {
                chain.push((format!("legs[{i}].toe"), t.as_str()));
            }
            limbs.push(chain);
        }
        for (i, a) in self.arms.iter().enumerate() {
            limbs.push(vec![
                (format!("arms[{i}].shoulder"), a.shoulder.as_str()),
                (format!("arms[{i}].elbow"), a.elbow.as_str()),
                (format!("arms[{i}].wrist"), a.wrist.as_str()),
            ]);
        }
        for chain in limbs {
            let mut above: Option<(String, &str, usize)> = None;
            for (field, name) in chain {
                let joint = claim(field.clone(), name)?;
                if let (Some((up_field, up_name, up)), Some(j)) = (&above, joint)
                    && !(j != *up && skeleton.is_descendant_of(j, *up))
                {
                    return Err(fail(
                        &field,
                        format!(
                            "joint '{name}' does not lie below {up_field} '{up_name}' in the skeleton; a limb's joints must form a chain, each below the one before"
                        ),
                    ));
                }
                above = joint.map(|j| (field, name, j));
            }
        }
        Ok(())
    }
}

/// Which ends of a range of rig values are allowed.
#[derive(Clone, Copy)]
enum Ends {
    /// Both: `[lo, hi]`.
    Closed,
    /// The lower only: `[lo, hi)`.
    OpenAbove,
    /// The upper only: `(lo, hi]`.
    OpenBelow,
}

/// Checks a rig value against its range (`lo`, `hi`, which ends are
/// allowed, the unit); the reason when outside.
fn check_range(v: f32, (lo, hi, ends, unit): (f32, f32, Ends, &str)) -> Result<(), String> {
    let (above_lo, below_hi, open, close) = match ends {
        Ends::Closed => (v >= lo, v <= hi, "[", "]"),
        Ends::OpenAbove => (v >= lo, v < hi, "[", ")"),
        Ends::OpenBelow => (v > lo, v <= hi, "(", "]"),
    };
    if v.is_finite() && above_lo && below_hi {
        Ok(())
    } else {
        Err(format!("{v} is outside {open}{lo}, {hi}{close} {unit}"))
    }
}

/// Checks one axis of a rig: finite components and a length (computed in
/// `f64`, so it cannot overflow) between [`MIN_AXIS_LENGTH`] and
/// [`MAX_AXIS_LENGTH`]; the reason when not.
fn check_axis(v: (f32, f32, f32)) -> Result<(), String> {
    let (x, y, z) = (f64::from(v.0), f64::from(v.1), f64::from(v.2));
    let len = (x * x + y * y + z * z).sqrt();
    if !(x.is_finite() && y.is_finite() && z.is_finite()) {
        return Err(format!("{v:?} is not finite"));
    }
    if !(MIN_AXIS_LENGTH..=MAX_AXIS_LENGTH).contains(&len) {
        return Err(format!(
            "{v:?} has length {len:.3e}; an axis needs a length between {MIN_AXIS_LENGTH} and {MAX_AXIS_LENGTH} (it is normalised)"
        ));
    }
    Ok(())
}

impl Rig {
    /// Whether an arm's elbow (`arm`) or a leg's knee turns about its hinge
    /// axis alone ([`RigFile::elbow_pure_hinge`],
    /// [`RigFile::knee_pure_hinge`]): the ladder IK bends one that does not
    /// without the hinge limit.
    pub fn pure_hinge(&self, arm: bool) -> bool {
        if arm {
            self.elbow_pure_hinge
        } else {
            self.knee_pure_hinge
        }
    }
}

impl RigFile {
    /// Checks how the rig asks for its climb cycle: a named clip, or
    /// `procedural_climb` with what the generator needs.
    fn check_climb(&self, file: &str) -> Result<(), RigError> {
        let invalid = |reason: String| {
            Err(RigError::Invalid {
                file: file.to_string(),
                reason,
            })
        };
        if !(self.climb_cycle_distance.is_finite() && self.climb_cycle_distance >= 0.0) {
            return invalid(format!(
                "climb_cycle_distance {} must be zero or positive",
                self.climb_cycle_distance
            ));
        }
        match (self.procedural_climb, self.clips.climb.is_empty()) {
            (false, true) => invalid(
                "clips.climb is missing: name the model's climb clip, or set procedural_climb: true to have one generated".to_string(),
            ),
            (true, false) => invalid(format!(
                "clips.climb names '{}' but procedural_climb is true: leave clips.climb out, or set procedural_climb: false to play '{}'",
                self.clips.climb, self.clips.climb
            )),
            (true, true) if self.arms.len() != 2 => invalid(format!(
                "procedural_climb needs two arms (left, right), the rig names {}",
                self.arms.len()
            )),
            (true, true) if self.climb_cycle_distance <= 0.0 => invalid(
                "procedural_climb needs a positive climb_cycle_distance (two rungs, e.g. 0.6)"
                    .to_string(),
            ),
            (true, true) if self.climb_rung_distance <= 0.0 => invalid(
                "procedural_climb needs a positive climb_rung_distance (how far in front of the root the rungs are)"
                    .to_string(),
            ),
            _ => Ok(()),
        }
    }

    /// Checks the optional ledge clips: `hang` and `climb_up` are named
    /// together or not at all (the climb over a ledge starts from the hang
    /// it is authored with), and only for a rig with two arms (the ledge
    /// IK holds a hand on the corner with each).
    fn check_ledge_clips(&self, file: &str) -> Result<(), RigError> {
        let (hang, up) = (&self.clips.hang, &self.clips.climb_up);
        let reason = match (hang.is_empty(), up.is_empty()) {
            (true, true) => return Ok(()),
            (false, true) => format!(
                "clips.hang names '{hang}' but clips.climb_up is missing: name both ledge clips, or neither (the climb clip then serves)"
            ),
            (true, false) => format!(
                "clips.climb_up names '{up}' but clips.hang is missing: name both ledge clips, or neither (the climb clip then serves)"
            ),
            (false, false) if self.arms.len() != 2 => format!(
                "clips.hang and clips.climb_up need two arms (left, right), the rig names {}",
                self.arms.len()
            ),
            (false, false) => return Ok(()),
        };
        Err(RigError::Invalid {
            file: file.to_string(),
            reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use animation::{JointDef, Transform};
    use glam::Mat4;

    fn skeleton() -> Skeleton {
        let names = [
            "pelvis", "thigh_l", "shin_l", "foot_l", "spine", "arm_l", "elbow_l", "hand_l",
            "arm_r", "elbow_r", "hand_r",
        ];
        let parents = [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(0),
            Some(4),
            Some(5),
            Some(6),
            Some(4),
            Some(8),
            Some(9),
        ];
        Skeleton::new(
            names
                .iter()
                .zip(parents)
                .map(|(n, p)| JointDef {
                    name: n.to_string(),
                    parent: p,
                    rest: Transform::from_translation(Vec3::NEG_Y * 0.4),
                    inverse_bind: Mat4::IDENTITY,
                })
                .collect(),
        )
        .unwrap()
    }

    const RIG: &str = r#"(
        pelvis: "pelvis",
        legs: [(hip: "thigh_l", knee: "shin_l", ankle: "foot_l")],
        knee_hinge_axis: (0.0, 0.0, 2.0),
        foot_height: 0.07,
        clips: (idle: "a", walk: "a", run: "a", jump: "a", fall: "a", land: "a", climb: "a"),
        walk_cycle_distance: 1.4,
        run_cycle_distance: 2.4,
    )"#;

    #[test]
    fn resolves_names_to_indices() {
        let rig = RigFile::parse(RIG, "r.ron")
            .unwrap()
            .resolve(&skeleton(), "r.ron")
            .unwrap();
        assert_eq!(
            rig.legs[0],
            Leg {
                hip: 1,
                knee: 2,
                ankle: 3,
                toe: None,
                knee_hinge_axis: Vec3::Z,
            }
        );
        assert_eq!(rig.knee_hinge_axis, Vec3::Z);
    }

    #[test]
    fn missing_joint_names_the_file_and_joint() {
        let text = RIG.replace("\"shin_l\"", "\"calf_l\"");
        let err = RigFile::parse(&text, "r.ron")
            .unwrap()
            .resolve(&skeleton(), "r.ron")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "r.ron: joint 'calf_l' (knee) is not in the model's skeleton"
        );
    }

    #[test]
    fn limbs_must_be_chains() {
        let text = RIG.replace("ankle: \"foot_l\"", "ankle: \"spine\"");
        let err = RigFile::parse(&text, "r.ron")
            .unwrap()
            .resolve(&skeleton(), "r.ron")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "r.ron: legs[0].ankle: joint 'spine' does not lie below legs[0].knee 'shin_l' in the skeleton; a limb's joints must form a chain, each below the one before"
        );
        // An arm whose wrist is above its shoulder, not below its elbow.
        let text = with_arms("None", "").replace("wrist: \"hand_r\"", "wrist: \"spine\"");
        let err = resolve_err(&text);
        assert!(
            err.starts_with(
                "r.ron: arms[1].wrist: joint 'spine' does not lie below arms[1].elbow 'elbow_r'"
            ),
            "{err}"
        );
    }

    /// The error resolving rig `text` against [`skeleton`] gives.
    fn resolve_err(text: &str) -> String {
        RigFile::parse(text, "r.ron")
            .unwrap()
            .resolve(&skeleton(), "r.ron")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn an_unusable_up_axis_or_scale_is_refused_naming_the_field() {
        let with = |extra: &str| {
            resolve_err(&RIG.replace("foot_height: 0.07,", &format!("foot_height: 0.07, {extra}")))
        };
        let err = with("up: (3e38, 3e38, 0.0),");
        assert!(err.starts_with("r.ron: up: "), "{err}");
        for scale in ["0.0", "-1.0", "NaN", "1e9"] {
            let err = with(&format!("scale: {scale},"));
            assert!(err.starts_with("r.ron: scale: "), "{scale}: {err}");
        }
    }

    #[test]
    fn a_huge_or_tiny_hinge_axis_is_refused_naming_the_field() {
        // (3e38, 3e38, 0): its f32 length overflows to infinity, and it
        // would normalise to zero.
        let err = resolve_err(&RIG.replace("(0.0, 0.0, 2.0)", "(3e38, 3e38, 0.0)"));
        assert!(
            err.starts_with("r.ron: knee_hinge_axis: (3e38, 3e38, 0.0) has length 4.243e38"),
            "{err}"
        );
        let err = resolve_err(&RIG.replace("(0.0, 0.0, 2.0)", "(0.0, 0.0, 1e-4)"));
        assert!(err.starts_with("r.ron: knee_hinge_axis: "), "{err}");
        assert!(err.contains("between 0.001 and 1000"), "{err}");
        let err = resolve_err(&RIG.replace("(0.0, 0.0, 2.0)", "(0.0, NaN, 1.0)"));
        assert!(
            err.starts_with("r.ron: knee_hinge_axis: ") && err.contains("not finite"),
            "{err}"
        );
        let err = resolve_err(&with_arms("Some((0.0, 3e38, 3e38))", ""));
        assert!(
            err.starts_with("r.ron: arms[1].elbow_hinge_axis: "),
            "{err}"
        );
        let err = resolve_err(&RIG.replace(
            "foot_height: 0.07,",
            "foot_height: 0.07, forward: (1e4, 0.0, 0.0),",
        ));
        assert!(err.starts_with("r.ron: forward: "), "{err}");
        // Within the limits any length serves: the axis is normalised.
        let rig = RigFile::parse(
            &RIG.replace("(0.0, 0.0, 2.0)", "(0.0, 0.0, 900.0)"),
            "r.ron",
        )
        .unwrap()
        .resolve(&skeleton(), "r.ron")
        .unwrap();
        assert_eq!(rig.knee_hinge_axis, Vec3::Z);
    }

    #[test]
    fn two_limbs_naming_the_same_joints_are_refused() {
        let two_legs = RIG.replace(
            r#"legs: [(hip: "thigh_l", knee: "shin_l", ankle: "foot_l")],"#,
            r#"legs: [(hip: "thigh_l", knee: "shin_l", ankle: "foot_l"), (hip: "thigh_l", knee: "shin_l", ankle: "foot_l")],"#,
        );
        assert_eq!(
            resolve_err(&two_legs),
            "r.ron: legs[1].hip: joint 'thigh_l' is also legs[0].hip; each limb needs joints of its own"
        );
        // An arm sharing a joint with the other arm, the pelvis as a hip.
        let text = with_arms("None", "").replace("wrist: \"hand_r\"", "wrist: \"hand_l\"");
        let err = resolve_err(&text);
        assert!(
            err.starts_with("r.ron: arms[1].wrist: joint 'hand_l' is also arms[0].wrist"),
            "{err}"
        );
        let err = resolve_err(&RIG.replace("hip: \"thigh_l\"", "hip: \"pelvis\""));
        assert!(
            err.starts_with("r.ron: legs[0].hip: joint 'pelvis' is also pelvis"),
            "{err}"
        );
        // Three legs, no leg.
        let three = RIG.replace(
            r#"legs: [(hip: "thigh_l", knee: "shin_l", ankle: "foot_l")],"#,
            r#"legs: [(hip: "a", knee: "b", ankle: "c"), (hip: "d", knee: "e", ankle: "f"), (hip: "g", knee: "h", ankle: "i")],"#,
        );
        assert!(resolve_err(&three).starts_with("r.ron: legs: the rig names 3; it needs 1 to 2"));
    }

    #[test]
    fn values_outside_their_documented_ranges_are_refused_naming_the_field() {
        for (from, to, field) in [
            ("foot_height: 0.07", "foot_height: 1.5", "foot_height"),
            (
                "walk_cycle_distance: 1.4",
                "walk_cycle_distance: 1e30",
                "walk_cycle_distance",
            ),
            (
                "walk_cycle_distance: 1.4",
                "walk_cycle_distance: 0.0",
                "walk_cycle_distance",
            ),
            (
                "run_cycle_distance: 2.4",
                "run_cycle_distance: inf",
                "run_cycle_distance",
            ),
            (
                "run_cycle_distance: 2.4,",
                "run_cycle_distance: 2.4, climb_cycle_distance: 11.0,",
                "climb_cycle_distance",
            ),
            (
                "run_cycle_distance: 2.4,",
                "run_cycle_distance: 2.4, idle_time: Some(1e9),",
                "idle_time",
            ),
            (
                "run_cycle_distance: 2.4,",
                "run_cycle_distance: 2.4, wrist_from_rung: (3e38, 3e38, 0.0),",
                "wrist_from_rung",
            ),
        ] {
            let text = RIG.replace(from, to);
            assert_ne!(text, RIG, "{from}");
            let err = resolve_err(&text);
            assert!(err.starts_with(&format!("r.ron: {field}: ")), "{err}");
        }
    }

    #[test]
    fn the_shipped_rigs_pass_validation() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let knight =
            crate::knight::Knight::generate(crate::knight::clips::DEFAULT_RUNG_SPACING).unwrap();
        let path = root.join("assets/knight.rig.ron");
        let rig = RigFile::load(&path).unwrap();
        rig.validate(&knight.skeleton, "knight.rig.ron").unwrap();
        let cesium = animation::gltf_import::load(
            &root.join("../shared/assets/third_party/gltf/CesiumMan/CesiumMan.glb"),
        )
        .unwrap();
        let rig = RigFile::load(&root.join("assets/rigs/cesium_man.rig.ron")).unwrap();
        rig.resolve(&cesium.skins[0].skeleton, "cesium_man.rig.ron")
            .unwrap();
    }

    #[test]
    fn a_rig_path_that_is_no_regular_file_is_refused() {
        let err = RigFile::load(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert_eq!(err, "/dev/zero: not a regular file");
    }

    /// [`RIG`] with two arms, the right one with `right` as its own elbow
    /// axis, and `extra` fields.
    #[test]
    fn ledge_clips_come_as_a_pair_and_need_two_arms() {
        let both = with_arms("None", "").replace(
            "climb: \"a\")",
            "climb: \"a\", hang: \"a\", climb_up: \"a\")",
        );
        assert!(both.contains("climb_up"), "{both}");
        let s = skeleton();
        let ok = RigFile::parse(&both, "p.ron").unwrap();
        assert_eq!(ok.clips.hang, "a");
        assert!(ok.resolve(&s, "p.ron").is_ok());
        for (text, says) in [
            (
                both.replace(", climb_up: \"a\"", ""),
                "clips.hang names 'a' but clips.climb_up is missing",
            ),
            (
                both.replace(", hang: \"a\"", ""),
                "clips.climb_up names 'a' but clips.hang is missing",
            ),
        ] {
            let err = RigFile::parse(&text, "p.ron")
                .and_then(|r| r.resolve(&s, "p.ron").map(|_| ()))
                .unwrap_err();
            assert!(
                err.to_string().starts_with(&format!("p.ron: {says}")),
                "{err}"
            );
        }
        // Without arms the ledge IK has no hands to hold the corner with.
        let armless = RIG.replace(
            "climb: \"a\")",
            "climb: \"a\", hang: \"a\", climb_up: \"a\")",
        );
        let err = RigFile::parse(&armless, "p.ron")
            .and_then(|r| r.resolve(&s, "p.ron").map(|_| ()))
            .unwrap_err();
        assert!(err.to_string().contains("need two arms"), "{err}");
    }

    fn with_arms(right: &str, extra: &str) -> String {
        RIG.replace(
            "knee_hinge_axis:",
            &format!(
                r#"arms: [
                    (shoulder: "arm_l", elbow: "elbow_l", wrist: "hand_l"),
                    (shoulder: "arm_r", elbow: "elbow_r", wrist: "hand_r", elbow_hinge_axis: {right}),
                ],
                elbow_hinge_axis: (0.0, 0.0, -3.0),
                {extra}
                knee_hinge_axis:"#
            ),
        )
    }

    #[test]
    fn each_arm_may_name_its_own_elbow_axis() {
        let text = with_arms("Some((0.0, 2.0, 0.0))", "");
        let rig = RigFile::parse(&text, "r.ron")
            .unwrap()
            .resolve(&skeleton(), "r.ron")
            .unwrap();
        // The left arm names none: the rig's axis, normalized.
        assert_eq!(rig.arms[0].elbow_hinge_axis, Vec3::NEG_Z);
        assert_eq!(rig.arms[1].elbow_hinge_axis, Vec3::Y);
        assert_eq!(rig.elbow_hinge_axis, Vec3::NEG_Z);
        // Old files (one axis for both arms) read as before.
        let text = with_arms("None", "");
        let rig = RigFile::parse(&text, "r.ron")
            .unwrap()
            .resolve(&skeleton(), "r.ron")
            .unwrap();
        assert_eq!(rig.arms[1].elbow_hinge_axis, Vec3::NEG_Z);
        // Elbows are pure hinges unless the rig says otherwise.
        assert!(rig.pure_hinge(true) && rig.pure_hinge(false));
    }

    #[test]
    fn a_bad_arm_axis_names_the_file_and_the_field() {
        for bad in ["Some((0.0, 0.0, 0.0))", "Some((inf, 0.0, 1.0))"] {
            let err = RigFile::parse(&with_arms(bad, ""), "cm.rig.ron")
                .unwrap()
                .resolve(&skeleton(), "cm.rig.ron")
                .unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("cm.rig.ron: arms[1].elbow_hinge_axis: "),
                "{err}"
            );
        }
        let err = RigFile::parse(&with_arms("Some((1.0, 0.0))", ""), "cm.rig.ron").unwrap_err();
        assert!(err.to_string().starts_with("cm.rig.ron: "), "{err}");
    }

    #[test]
    fn a_procedural_climb_names_no_climb_clip_and_needs_its_geometry() {
        let procedural = |extra: &str| {
            let text = with_arms("None", extra).replace(", climb: \"a\"", "");
            RigFile::parse(&text, "p.ron")
                .unwrap()
                .resolve(&skeleton(), "p.ron")
        };
        let ok = "procedural_climb: true, climb_cycle_distance: 0.6, climb_rung_distance: 0.25,";
        assert!(procedural(ok).unwrap().file.procedural_climb);
        let err = procedural("procedural_climb: true, climb_rung_distance: 0.25,").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("p.ron: procedural_climb needs a positive climb_cycle_distance"),
            "{err}"
        );
        let err = procedural("climb_cycle_distance: 0.6,").unwrap_err();
        assert!(
            err.to_string().starts_with("p.ron: clips.climb is missing"),
            "{err}"
        );
        let text = with_arms("None", ok);
        let err = RigFile::parse(&text, "p.ron")
            .unwrap()
            .resolve(&skeleton(), "p.ron")
            .unwrap_err();
        assert!(
            err.to_string().contains("procedural_climb is true"),
            "{err}"
        );
    }

    #[test]
    fn malformed_ron_is_an_error() {
        let err = RigFile::parse("(pelvis: 3", "bad.ron").unwrap_err();
        assert!(err.to_string().starts_with("bad.ron: "));
    }
}
