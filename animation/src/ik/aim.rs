//! The aim (look-at) solver: turns one joint so that its forward axis points
//! at a target, with an optional pole that fixes the roll of its up axis.
//! Used to lay feet along the ground normal and to turn heads.

use glam::{Mat3, Mat4, Quat, Vec3};

use super::IkError;
use super::math::{DEGENERATE_LEN_SQ, rotation_between};
use super::two_bone::signed_angle_about;
use crate::pose::{Pose, local_to_model_from};
use crate::skeleton::Skeleton;

/// An aim job for one joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AimIk {
    /// The joint to turn.
    pub joint: usize,
    /// The model-space point the forward axis should point at.
    pub target: Vec3,
    /// The forward axis in the joint's local frame (need not be normalized).
    pub forward: Vec3,
    /// The up axis in the joint's local frame, rolled toward `pole`.
    pub up: Vec3,
    /// Optional model-space direction the up axis should lean toward.
    pub pole: Option<Vec3>,
    /// Weight of the correction in [0, 1].
    pub weight: f32,
}

/// What an aim solve achieved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AimResult {
    /// Angle in radians between the new forward axis and the target direction.
    pub residual_angle: f32,
}

impl AimIk {
    /// Turns the joint (writing its local rotation) and re-propagates its
    /// descendants. On error the pose is untouched.
    pub fn solve(
        &self,
        skeleton: &Skeleton,
        pose: &mut Pose,
        models: &mut [Mat4],
    ) -> Result<AimResult, IkError> {
        let len = skeleton.len();
        if pose.len() != len || models.len() != len {
            return Err(IkError::InvalidParameter {
                what: "pose",
                reason: "pose or model buffer length differs from the skeleton",
            });
        }
        if self.joint >= len {
            return Err(IkError::JointOutOfRange {
                joint: self.joint,
                len,
            });
        }
        if !self.target.is_finite()
            || !self.forward.is_finite()
            || !self.up.is_finite()
            || !self.weight.is_finite()
            || self.pole.is_some_and(|p| !p.is_finite())
        {
            return Err(IkError::NonFinite { what: "aim input" });
        }
        if !(0.0..=1.0).contains(&self.weight) {
            return Err(IkError::InvalidParameter {
                what: "weight",
                reason: "must lie within [0, 1]",
            });
        }
        if self.forward.length_squared() < DEGENERATE_LEN_SQ {
            return Err(IkError::InvalidParameter {
                what: "forward",
                reason: "zero-length axis",
            });
        }
        let parent = skeleton
            .parent(self.joint)
            .map_or(Mat4::IDENTITY, |p| models[p]);
        let m = models[self.joint];
        if !m.is_finite() || !parent.is_finite() || !pose.locals[self.joint].is_finite() {
            return Err(IkError::NonFinite {
                what: "model matrix of the aimed joint",
            });
        }
        if self.weight == 0.0 {
            let fwd = (Mat3::from_mat4(m) * self.forward).normalize_or_zero();
            let dir = (self.target - m.w_axis.truncate()).normalize_or_zero();
            return Ok(AimResult {
                residual_angle: fwd.dot(dir).clamp(-1.0, 1.0).acos(),
            });
        }
        let lin = Mat3::from_mat4(m);
        let p = m.w_axis.truncate();
        let fwd = (lin * self.forward).normalize_or_zero();
        let Some(dir) = (self.target - p).try_normalize() else {
            // Target at the joint: no direction to aim along.
            return Ok(AimResult {
                residual_angle: 0.0,
            });
        };
        if fwd == Vec3::ZERO {
            return Err(IkError::InvalidParameter {
                what: "joint",
                reason: "degenerate (zero-scale) model matrix",
            });
        }
        let mut r = rotation_between(fwd, dir);
        if let Some(pole) = self.pole {
            let up = r * (lin * self.up);
            let roll = signed_angle_about(up, pole, dir);
            r = Quat::from_axis_angle(dir, roll) * r;
        }
        let r = Quat::IDENTITY.slerp(r, self.weight).normalize();
        // Into the parent's frame: the forward and up images before and after.
        let parent_inv = Mat3::from_mat4(parent).inverse();
        let local = pose.locals[self.joint].rotation;
        let a1 = parent_inv * fwd;
        let b1 = parent_inv * (r * fwd);
        let step = match (a1.try_normalize(), b1.try_normalize()) {
            (Some(a), Some(b)) => rotation_between(a, b),
            _ => Quat::IDENTITY,
        };
        // Roll about the new forward to match the rotated up axis.
        let up_m = lin * self.up;
        let new_local = if up_m.length_squared() > DEGENERATE_LEN_SQ {
            let up_now = parent_inv * up_m;
            let up_goal = parent_inv * (r * up_m);
            let axis = b1.normalize_or(Vec3::X);
            let roll = signed_angle_about(step * up_now, up_goal, axis);
            Quat::from_axis_angle(axis, roll) * step * local
        } else {
            step * local
        };
        let new_local = new_local.normalize();
        if !new_local.is_finite() {
            return Err(IkError::NonFinite {
                what: "solver result",
            });
        }
        pose.locals[self.joint].rotation = new_local;
        local_to_model_from(skeleton, self.joint, &pose.locals, models);
        let fwd_new = (Mat3::from_mat4(models[self.joint]) * self.forward).normalize_or_zero();
        Ok(AimResult {
            residual_angle: fwd_new.dot(dir).clamp(-1.0, 1.0).acos(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pose::local_to_model;
    use crate::skeleton::JointDef;
    use crate::transform::Transform;
    use proptest::prelude::*;

    fn rig(root: Quat, scale: Vec3, foot: Quat) -> (Skeleton, Pose, Vec<Mat4>) {
        let j = |name: &str, parent, t| JointDef {
            name: name.into(),
            parent,
            rest: t,
            inverse_bind: Mat4::IDENTITY,
        };
        let s = Skeleton::new(vec![
            j(
                "root",
                None,
                Transform::new(Vec3::new(1.0, 2.0, 3.0), root, scale),
            ),
            j("foot", Some(0), Transform::new(Vec3::Y, foot, Vec3::ONE)),
            j("toe", Some(1), Transform::from_translation(Vec3::Z * 0.2)),
        ])
        .unwrap();
        let pose = s.rest_pose();
        let mut models = vec![Mat4::IDENTITY; 3];
        local_to_model(&s, &pose.locals, &mut models);
        (s, pose, models)
    }

    fn unit() -> impl Strategy<Value = Vec3> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_filter("non-zero", |(x, y, z)| x * x + y * y + z * z > 1e-2)
            .prop_map(|(x, y, z)| Vec3::new(x, y, z).normalize())
    }

    fn rot() -> impl Strategy<Value = Quat> {
        (-3.0f32..3.0, -1.5f32..1.5, -3.0f32..3.0)
            .prop_map(|(a, b, c)| Quat::from_euler(glam::EulerRot::YXZ, a, b, c))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]
        #[test]
        fn aimed_forward_axis_points_at_the_target_with_up_toward_the_pole(
            root in rot(), foot in rot(), dir in unit(), pole in unit(), uniform in any::<bool>(),
        ) {
            let scale = if uniform { Vec3::splat(1.5) } else { Vec3::new(0.7, 1.3, 1.0) };
            let (s, mut pose, mut models) = rig(root, scale, foot);
            prop_assume!(dir.cross(pole).length() > 0.1);
            let p = models[1].w_axis.truncate();
            let job = AimIk { joint: 1, target: p + dir * 2.0, forward: Vec3::Z, up: Vec3::Y, pole: Some(pole), weight: 1.0 };
            let r = job.solve(&s, &mut pose, &mut models).unwrap();
            prop_assert!(r.residual_angle < 1e-3, "residual {}", r.residual_angle);
            let up = (Mat3::from_mat4(models[1]) * Vec3::Y).normalize();
            let fwd = (Mat3::from_mat4(models[1]) * Vec3::Z).normalize();
            if uniform {
                // The up axis lies in the plane of forward and pole, on the pole's side.
                prop_assert!(up.dot(fwd.cross(pole)).abs() < 2e-3);
                prop_assert!(up.dot(pole) > -1e-3);
            }
        }

        #[test]
        fn aim_weight_zero_changes_nothing(root in rot(), foot in rot(), dir in unit()) {
            let (s, mut pose, mut models) = rig(root, Vec3::ONE, foot);
            let before = pose.clone();
            let p = models[1].w_axis.truncate();
            let job = AimIk { joint: 1, target: p + dir, forward: Vec3::Z, up: Vec3::Y, pole: None, weight: 0.0 };
            job.solve(&s, &mut pose, &mut models).unwrap();
            prop_assert!(pose.locals[1].rotation.dot(before.locals[1].rotation).abs() > 1.0 - 1e-6);
        }
    }

    #[test]
    fn non_finite_aim_target_is_refused() {
        let (s, mut pose, mut models) = rig(Quat::IDENTITY, Vec3::ONE, Quat::IDENTITY);
        let before = pose.clone();
        let job = AimIk {
            joint: 1,
            target: Vec3::NAN,
            forward: Vec3::Z,
            up: Vec3::Y,
            pole: None,
            weight: 1.0,
        };
        assert!(job.solve(&s, &mut pose, &mut models).is_err());
        assert_eq!(pose, before);
    }
}
