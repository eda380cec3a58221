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
//! - a leg's own `knee_hinge_axis: Some((x, y, z))`, for a model whose two
//!   knees' local frames differ (mirrored rigs);
//! - `up` and `scale`, which turn the model so that `up` points along +Y and
//!   scale it before anything else is read (a Z-up model, one in
//!   centimetres); every other field speaks of the turned, scaled model.
//!
//! `ironstep rig MODEL` infers all of it from a model alone (see
//! `character::humanoid`), and a rig file given with `--rig` is laid over the
//! inferred rig field by field, so it may name only the fields it corrects.

use std::path::Path;

use animation::Skeleton;
use glam::Vec3;
use serde::{Deserialize, Serialize};
use thiserror::Error;

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
    pub fn load(path: &Path) -> Result<Self, RigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| RigError::Io {
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
    pub fn resolve(&self, skeleton: &Skeleton, file: &str) -> Result<Rig, RigError> {
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
        assert!(matches!(err, RigError::NotAChain { .. }), "{err}");
    }

    /// [`RIG`] with two arms, the right one with `right` as its own elbow
    /// axis, and `extra` fields.
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
            assert_eq!(
                err.to_string(),
                "cm.rig.ron: arms[1].elbow_hinge_axis must be a finite non-zero vector"
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
