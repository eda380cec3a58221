//! The knight's skeleton: 24 named joints at human proportions for a standing
//! height of 1.80 m (see `shared/notes/scale-and-proportions.md`).
//!
//! Every joint's rest rotation is the identity, so each joint frame is
//! parallel to model space: +X forward (the way the knight faces), +Y up, +Z
//! the knight's right. Knees flex about −Z (the shin swings back), elbows about
//! +Z (the forearm swings forward). Armour adds bulk around these joints, not
//! length, so inverse kinematics reach numbers stay human.

use animation::{JointDef, Skeleton, SkeletonError, Transform};
use glam::{Mat4, Vec3};

/// Standing height the proportions are scaled for, metres.
pub const HEIGHT: f32 = 1.80;
/// Hip joint (thigh start) height above the soles at rest.
pub const HIP_HEIGHT: f32 = 0.95;
/// Knee height above the soles at rest.
pub const KNEE_HEIGHT: f32 = 0.51;
/// Ankle height above the soles: the rig file's `foot_height`.
pub const ANKLE_HEIGHT: f32 = 0.07;
/// Shoulder joint height above the soles.
pub const SHOULDER_HEIGHT: f32 = 1.47;
/// Upper arm length (shoulder to elbow).
pub const UPPER_ARM: f32 = 0.34;
/// Forearm length (elbow to wrist).
pub const FOREARM: f32 = 0.26;
/// Thigh length (hip to knee).
pub const THIGH: f32 = HIP_HEIGHT - KNEE_HEIGHT;
/// Shank length (knee to ankle).
pub const SHIN: f32 = KNEE_HEIGHT - ANKLE_HEIGHT;
/// Half the distance between the hip joints.
pub const HIP_HALF_WIDTH: f32 = 0.09;
/// Half the distance between the shoulder joints (shoulder width 0.47 m
/// measured over the deltoids; the joint centres sit inside that).
pub const SHOULDER_HALF_WIDTH: f32 = 0.20;
/// Ankle to the ball of the foot (the toe joint), along +X.
pub const BALL_FORWARD: f32 = 0.13;

/// Joint indices, in skeleton order (parents before children).
pub mod joint {
    /// The model origin between the feet on the ground.
    pub const ROOT: usize = 0;
    /// Pelvis: carries the whole upper body and both legs.
    pub const PELVIS: usize = 1;
    /// Lower spine.
    pub const SPINE: usize = 2;
    /// Chest (the breastplate).
    pub const CHEST: usize = 3;
    /// Neck.
    pub const NECK: usize = 4;
    /// Head (the helmet).
    pub const HEAD: usize = 5;
    /// Left clavicle.
    pub const CLAVICLE_L: usize = 6;
    /// Left shoulder.
    pub const UPPER_ARM_L: usize = 7;
    /// Left elbow.
    pub const FOREARM_L: usize = 8;
    /// Left wrist.
    pub const HAND_L: usize = 9;
    /// Right clavicle.
    pub const CLAVICLE_R: usize = 10;
    /// Right shoulder.
    pub const UPPER_ARM_R: usize = 11;
    /// Right elbow.
    pub const FOREARM_R: usize = 12;
    /// Right wrist.
    pub const HAND_R: usize = 13;
    /// Left hip.
    pub const THIGH_L: usize = 14;
    /// Left knee.
    pub const SHIN_L: usize = 15;
    /// Left ankle.
    pub const FOOT_L: usize = 16;
    /// Left ball of the foot.
    pub const TOE_L: usize = 17;
    /// Right hip.
    pub const THIGH_R: usize = 18;
    /// Right knee.
    pub const SHIN_R: usize = 19;
    /// Right ankle.
    pub const FOOT_R: usize = 20;
    /// Right ball of the foot.
    pub const TOE_R: usize = 21;
    /// Sword attach point in the right fist.
    pub const WEAPON_R: usize = 22;
    /// Shield attach point on the left forearm.
    pub const SHIELD_L: usize = 23;
    /// Number of joints.
    pub const COUNT: usize = 24;
}

/// One joint of the table: name, parent and bind position in model space.
struct Row {
    name: &'static str,
    parent: Option<usize>,
    position: Vec3,
}

/// The joint table in skeleton order. Left is −Z, right is +Z.
fn rows() -> [Row; joint::COUNT] {
    use joint::*;
    let r = |name, parent, x, y, z| Row {
        name,
        parent,
        position: Vec3::new(x, y, z),
    };
    let (hw, sw) = (HIP_HALF_WIDTH, SHOULDER_HALF_WIDTH);
    let elbow = SHOULDER_HEIGHT - UPPER_ARM;
    let wrist = elbow - FOREARM;
    [
        r("root", None, 0.0, 0.0, 0.0),
        r("pelvis", Some(ROOT), 0.0, 0.97, 0.0),
        r("spine", Some(PELVIS), 0.0, 1.09, 0.0),
        r("chest", Some(SPINE), 0.0, 1.26, 0.0),
        r("neck", Some(CHEST), 0.0, 1.50, 0.0),
        r("head", Some(NECK), 0.0, 1.60, 0.0),
        r("clavicle_l", Some(CHEST), 0.0, 1.43, -0.04),
        r("upper_arm_l", Some(CLAVICLE_L), 0.0, SHOULDER_HEIGHT, -sw),
        r("forearm_l", Some(UPPER_ARM_L), 0.0, elbow, -sw),
        r("hand_l", Some(FOREARM_L), 0.0, wrist, -sw),
        r("clavicle_r", Some(CHEST), 0.0, 1.43, 0.04),
        r("upper_arm_r", Some(CLAVICLE_R), 0.0, SHOULDER_HEIGHT, sw),
        r("forearm_r", Some(UPPER_ARM_R), 0.0, elbow, sw),
        r("hand_r", Some(FOREARM_R), 0.0, wrist, sw),
        r("thigh_l", Some(PELVIS), 0.0, HIP_HEIGHT, -hw),
        r("shin_l", Some(THIGH_L), 0.0, KNEE_HEIGHT, -hw),
        r("foot_l", Some(SHIN_L), 0.0, ANKLE_HEIGHT, -hw),
        r("toe_l", Some(FOOT_L), BALL_FORWARD, 0.025, -hw),
        r("thigh_r", Some(PELVIS), 0.0, HIP_HEIGHT, hw),
        r("shin_r", Some(THIGH_R), 0.0, KNEE_HEIGHT, hw),
        r("foot_r", Some(SHIN_R), 0.0, ANKLE_HEIGHT, hw),
        r("toe_r", Some(FOOT_R), BALL_FORWARD, 0.025, hw),
        r("weapon_r", Some(HAND_R), 0.0, wrist - 0.075, sw),
        r("shield_l", Some(FOREARM_L), 0.0, elbow - 0.14, -sw - 0.075),
    ]
}

/// Bind positions of every joint in model space, in skeleton order.
pub fn bind_positions() -> Vec<Vec3> {
    rows().iter().map(|r| r.position).collect()
}

/// Joint names in skeleton order.
pub fn names() -> Vec<&'static str> {
    rows().iter().map(|r| r.name).collect()
}

/// Parent of each joint in skeleton order.
pub fn parents() -> Vec<Option<usize>> {
    rows().iter().map(|r| r.parent).collect()
}

/// Builds the knight's skeleton: rest locals are the offsets between bind
/// positions (no rotation), inverse binds the negated bind positions.
pub fn build() -> Result<Skeleton, SkeletonError> {
    let rows = rows();
    let joints = rows
        .iter()
        .map(|r| {
            let parent_pos = r.parent.map_or(Vec3::ZERO, |p| rows[p].position);
            JointDef {
                name: r.name.to_string(),
                parent: r.parent,
                rest: Transform::from_translation(r.position - parent_pos),
                inverse_bind: Mat4::from_translation(-r.position),
            }
        })
        .collect();
    Skeleton::new(joints)
}

#[cfg(test)]
mod tests {
    use super::*;
    use animation::local_to_model;

    #[test]
    fn skeleton_has_the_issues_named_joints() {
        let s = build().unwrap();
        assert!((20..=30).contains(&s.len()));
        for name in [
            "root",
            "pelvis",
            "spine",
            "chest",
            "neck",
            "head",
            "clavicle_l",
            "upper_arm_r",
            "forearm_l",
            "hand_r",
            "thigh_l",
            "shin_r",
            "foot_l",
            "toe_r",
            "weapon_r",
            "shield_l",
        ] {
            assert!(s.joint_index(name).is_some(), "missing {name}");
        }
    }

    #[test]
    fn rest_pose_reproduces_bind_positions_and_inverse_binds() {
        let s = build().unwrap();
        let mut models = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, s.rest_locals(), &mut models);
        for (i, p) in bind_positions().iter().enumerate() {
            assert!(models[i].w_axis.truncate().abs_diff_eq(*p, 1e-6));
            assert!((models[i] * s.inverse_bind()[i]).abs_diff_eq(Mat4::IDENTITY, 1e-6));
        }
    }

    #[test]
    fn limb_lengths_are_human_for_1_80_m() {
        // Drillis & Contini fractions of H, within 2 cm.
        let close = |a: f32, b: f32| (a - b).abs() < 0.02;
        assert!(close(THIGH, 0.245 * HEIGHT));
        assert!(close(SHIN, 0.246 * HEIGHT));
        assert!(close(UPPER_ARM, 0.186 * HEIGHT));
        assert!(close(FOREARM, 0.146 * HEIGHT));
        assert!(close(HIP_HEIGHT, 0.530 * HEIGHT));
        assert!(close(SHOULDER_HEIGHT, 0.818 * HEIGHT));
    }
}
