//! FABRIK (seed 002's "garden hose"): forward-and-backward reaching for
//! chains of any length.
//!
//! The solver works on joint positions: the backward pass drags the end onto
//! the target and pulls each joint after it at its bone length; the forward
//! pass pins the start back in place and pushes the joints out again. Each
//! bone may be held within a cone about the previous bone's direction, and
//! an optional pole turns every inner joint about the line through its
//! neighbours toward a model-space point. Positions become local rotations
//! at the end by the minimal rotation of each bone, in its parent's frame.

use glam::{Affine3A, Mat3, Mat4, Vec3};

use super::IkError;
use super::ccd::{IterativeResult, validate_iterative};
use super::chain::{
    Chain, MAX_CHAIN_JOINTS, local_rotation_toward, parent_model, validate_buffers,
};
use crate::pose::{Pose, local_to_model_from};
use crate::skeleton::Skeleton;

/// A FABRIK job.
#[derive(Clone, Copy, Debug)]
pub struct FabrikIk<'a> {
    /// The first joint of the chain (stays in place).
    pub start: usize,
    /// The end effector, a descendant of `start`.
    pub end: usize,
    /// The model-space target for the end effector.
    pub target: Vec3,
    /// Optional model-space point the inner joints bend toward.
    pub pole: Option<Vec3>,
    /// Per chain joint (parent-to-child order): the largest angle in radians
    /// between the bone leaving this joint and the bone entering it. Empty
    /// means no cone limits; the start joint's entry is ignored.
    pub cones: &'a [f32],
    /// Stop when the end lies within this model-space distance of the target.
    pub tolerance: f32,
    /// Stop after this many iterations at most.
    pub max_iterations: u32,
}

/// Keeps `dir` (unit) within `max_angle` of unit `axis`.
#[inline]
fn clamp_to_cone(dir: Vec3, axis: Vec3, max_angle: f32) -> Vec3 {
    let cos = dir.dot(axis);
    if cos >= max_angle.cos() {
        return dir;
    }
    let side = (dir - axis * cos)
        .try_normalize()
        .unwrap_or_else(|| axis.any_orthonormal_vector());
    axis * max_angle.cos() + side * max_angle.sin()
}

impl FabrikIk<'_> {
    /// Runs the job, writing the chain's local rotations and re-propagating
    /// from the start joint down. Allocates nothing. On error the pose is
    /// untouched.
    pub fn solve(
        &self,
        skeleton: &Skeleton,
        pose: &mut Pose,
        models: &mut [Mat4],
    ) -> Result<IterativeResult, IkError> {
        let chain = Chain::new(skeleton, self.start, self.end)?;
        validate_buffers(skeleton, pose, models, &chain)?;
        validate_iterative(self.target, self.tolerance, self.max_iterations)?;
        if self.pole.is_some_and(|p| !p.is_finite()) {
            return Err(IkError::NonFinite { what: "pole" });
        }
        if !self.cones.is_empty() && self.cones.len() != chain.len() {
            return Err(IkError::InvalidParameter {
                what: "cones",
                reason: "need one cone per chain joint, or none",
            });
        }
        if self
            .cones
            .iter()
            .any(|c| !c.is_finite() || *c < 0.0 || *c > std::f32::consts::PI)
        {
            return Err(IkError::InvalidParameter {
                what: "cones",
                reason: "each cone must lie within [0, pi]",
            });
        }
        let joints = chain.joints();
        let n = joints.len();
        let mut p = [Vec3::ZERO; MAX_CHAIN_JOINTS];
        let mut len = [0.0f32; MAX_CHAIN_JOINTS];
        for (k, &j) in joints.iter().enumerate() {
            p[k] = models[j].w_axis.truncate();
        }
        for k in 0..n - 1 {
            len[k] = (p[k + 1] - p[k]).length();
        }
        let old = p;
        let root = p[0];
        let t = self.target;
        let total: f32 = len[..n - 1].iter().sum();
        let mut residual = (p[n - 1] - t).length();
        let mut iterations = 0;
        // Direction of the bone entering the start joint, for its child's cone.
        let incoming = match skeleton.parent(joints[0]) {
            Some(parent) => (root - models[parent].w_axis.truncate()).try_normalize(),
            None => None,
        };
        let cone = |k: usize| self.cones.get(k).copied();
        if (t - root).length() >= total {
            // Out of reach: one straight pass, clamped by the cones.
            iterations = 1;
            let dir = (t - root).try_normalize().unwrap_or(Vec3::X);
            let mut prev_dir = incoming;
            for k in 0..n - 1 {
                let mut d = dir;
                if let (Some(axis), Some(c)) = (prev_dir, cone(k)) {
                    d = clamp_to_cone(d, axis, c);
                }
                p[k + 1] = p[k] + d * len[k];
                prev_dir = Some(d);
            }
            residual = (p[n - 1] - t).length();
        } else {
            while residual > self.tolerance && iterations < self.max_iterations {
                iterations += 1;
                // Backward: end onto the target.
                p[n - 1] = t;
                for k in (0..n - 1).rev() {
                    let d = (p[k] - p[k + 1]).try_normalize().unwrap_or(Vec3::Y);
                    p[k] = p[k + 1] + d * len[k];
                }
                // Forward: start back in place, cones about the previous bone.
                p[0] = root;
                let mut prev_dir = incoming;
                for k in 0..n - 1 {
                    let mut d = (p[k + 1] - p[k]).try_normalize().unwrap_or(Vec3::Y);
                    if let (Some(axis), Some(c)) = (prev_dir, cone(k)) {
                        d = clamp_to_cone(d, axis, c);
                    }
                    p[k + 1] = p[k] + d * len[k];
                    prev_dir = Some(d);
                }
                // Pole: turn inner joints about their neighbours' line.
                if let Some(pole) = self.pole {
                    for k in 1..n - 1 {
                        let Some(axis) = (p[k + 1] - p[k - 1]).try_normalize() else {
                            continue;
                        };
                        let joint_off = p[k] - p[k - 1];
                        let along = axis * joint_off.dot(axis);
                        let radial = joint_off - along;
                        let pole_off = pole - p[k - 1];
                        let pole_radial = pole_off - axis * pole_off.dot(axis);
                        if let (Some(_), Some(pr)) =
                            (radial.try_normalize(), pole_radial.try_normalize())
                        {
                            p[k] = p[k - 1] + along + pr * radial.length();
                        }
                    }
                }
                residual = (p[n - 1] - t).length();
            }
        }
        // Positions -> local rotations, parent first, tracking new model affines.
        let mut rot = [glam::Quat::IDENTITY; MAX_CHAIN_JOINTS];
        let mut parent_new = Affine3A::from_mat4(parent_model(skeleton, models, joints[0]));
        for k in 0..n - 1 {
            let j = joints[k];
            let parent_inv = Mat3::from(parent_new.matrix3).inverse();
            // The old bone direction, rotated along with the already-changed
            // ancestors: read it in the joint's old local frame.
            let old_parent = Affine3A::from_mat4(parent_model(skeleton, models, j));
            let old_dir_parent = Mat3::from(old_parent.matrix3).inverse() * (old[k + 1] - old[k]);
            let new_dir_parent = parent_inv * (p[k + 1] - p[k]);
            let local = pose.locals[j];
            let q = local_rotation_toward(
                &Mat3::IDENTITY,
                local.rotation,
                old_dir_parent,
                new_dir_parent,
            );
            rot[k] = q;
            parent_new *=
                Affine3A::from_scale_rotation_translation(local.scale, q, local.translation);
            // Intermediate joints are the chain's own joints, so the next
            // joint's parent is this one.
        }
        for r in &rot[..n - 1] {
            if !r.is_finite() {
                return Err(IkError::NonFinite {
                    what: "solver result",
                });
            }
        }
        for k in 0..n - 1 {
            pose.locals[joints[k]].rotation = rot[k];
        }
        local_to_model_from(skeleton, joints[0], &pose.locals, models);
        let final_residual = (models[self.end].w_axis.truncate() - t).length();
        let _ = residual;
        Ok(IterativeResult {
            iterations,
            residual: final_residual,
            reached: final_residual <= self.tolerance,
        })
    }
}
