//! Cyclic coordinate descent (seeds 001 and 004) for chains of any length.
//!
//! Each iteration walks the chain from the joint nearest the end up to the
//! start; every joint turns so that the line from it to the end effector
//! swings toward the target. A joint's turn is damped to at most
//! `max_step` radians per iteration and then clamped to its limit (hinge or
//! cone-plus-twist), measured from the joint's rest rotation.

use glam::{Affine3A, Mat3, Mat4, Quat, Vec3};

use super::IkError;
use super::chain::{Chain, MAX_CHAIN_JOINTS, parent_model, validate_buffers};
use super::limits::{ConeLimit, HingeLimit};
use super::math::rotation_between;
use crate::pose::{Pose, local_to_model_from};
use crate::skeleton::Skeleton;

/// A per-joint limit for the iterative solvers, relative to the joint's rest
/// (skeleton bind) local rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointLimit {
    /// The joint turns freely.
    Free,
    /// The joint turns only about an axis within an angle range.
    Hinge(HingeLimit),
    /// The joint swings within a cone and twists within a range.
    Cone(ConeLimit),
}

impl JointLimit {
    fn validate(&self) -> Result<(), IkError> {
        match self {
            JointLimit::Free => Ok(()),
            JointLimit::Hinge(h) => h.validate(),
            JointLimit::Cone(c) => c.validate(),
        }
    }

    /// Clamps a local rotation given the joint's rest rotation.
    pub fn apply(&self, rest: Quat, local: Quat) -> Quat {
        match self {
            JointLimit::Free => local,
            JointLimit::Hinge(h) => (rest * h.constrain(rest.inverse() * local)).normalize(),
            JointLimit::Cone(c) => (rest * c.constrain(rest.inverse() * local)).normalize(),
        }
    }
}

/// A CCD job.
#[derive(Clone, Copy, Debug)]
pub struct CcdIk<'a> {
    /// The first joint of the chain (stays in place).
    pub start: usize,
    /// The end effector, a descendant of `start`.
    pub end: usize,
    /// The model-space target for the end effector.
    pub target: Vec3,
    /// Limits per chain joint in parent-to-child order (the end's own entry is
    /// ignored); empty means every joint is free.
    pub limits: &'a [JointLimit],
    /// Damping: the most a joint may turn per iteration, radians in (0, π].
    pub max_step: f32,
    /// Stop when the end lies within this model-space distance of the target.
    pub tolerance: f32,
    /// Stop after this many iterations at most.
    pub max_iterations: u32,
}

/// What an iterative solve achieved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IterativeResult {
    /// Iterations run (0 when the end already lay within tolerance).
    pub iterations: u32,
    /// Model-space distance from the end to the target afterwards.
    pub residual: f32,
    /// True when the residual is within tolerance.
    pub reached: bool,
}

/// Checks the shared settings of the iterative solvers.
pub(crate) fn validate_iterative(
    target: Vec3,
    tolerance: f32,
    max_iterations: u32,
) -> Result<(), IkError> {
    if !target.is_finite() {
        return Err(IkError::NonFinite { what: "target" });
    }
    if !tolerance.is_finite() || tolerance < 0.0 {
        return Err(IkError::InvalidParameter {
            what: "tolerance",
            reason: "must be finite and not negative",
        });
    }
    if max_iterations == 0 {
        return Err(IkError::InvalidParameter {
            what: "max_iterations",
            reason: "must be at least 1",
        });
    }
    Ok(())
}

impl CcdIk<'_> {
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
        if !self.max_step.is_finite()
            || self.max_step <= 0.0
            || self.max_step > std::f32::consts::PI
        {
            return Err(IkError::InvalidParameter {
                what: "max_step",
                reason: "must lie within (0, pi]",
            });
        }
        if !self.limits.is_empty() && self.limits.len() != chain.len() {
            return Err(IkError::InvalidParameter {
                what: "limits",
                reason: "need one limit per chain joint, or none",
            });
        }
        for l in self.limits {
            l.validate()?;
        }
        let joints = chain.joints();
        let n = joints.len();
        let rest = skeleton.rest_locals();
        // Chain-local scratch: local rotations and model affines.
        let mut rot = [Quat::IDENTITY; MAX_CHAIN_JOINTS];
        let mut model = [Affine3A::IDENTITY; MAX_CHAIN_JOINTS];
        let base = Affine3A::from_mat4(parent_model(skeleton, models, joints[0]));
        for (k, &j) in joints.iter().enumerate() {
            rot[k] = pose.locals[j].rotation;
            model[k] = Affine3A::from_mat4(models[j]);
        }
        let affine_of = |k: usize, q: Quat| {
            let l = &pose.locals[joints[k]];
            Affine3A::from_scale_rotation_translation(l.scale, q, l.translation)
        };
        let t = self.target;
        let mut end: Vec3 = model[n - 1].translation.into();
        let mut residual = (end - t).length();
        let mut iterations = 0;
        while residual > self.tolerance && iterations < self.max_iterations {
            iterations += 1;
            for k in (0..n - 1).rev() {
                let p: Vec3 = model[k].translation.into();
                let parent = if k == 0 { base } else { model[k - 1] };
                let parent_inv = Mat3::from(parent.matrix3).inverse();
                let from = parent_inv * (end - p);
                let to = parent_inv * (t - p);
                let (Some(f), Some(g)) = (from.try_normalize(), to.try_normalize()) else {
                    continue;
                };
                let mut step = rotation_between(f, g);
                let (axis, angle) = step.to_axis_angle();
                if angle > self.max_step {
                    step = Quat::from_axis_angle(axis, self.max_step);
                }
                let mut q = (step * rot[k]).normalize();
                if let Some(limit) = self.limits.get(k) {
                    q = limit.apply(rest[joints[k]].rotation, q);
                }
                let new_model = parent * affine_of(k, q);
                end = new_model.transform_point3(model[k].inverse().transform_point3(end));
                rot[k] = q;
                model[k] = new_model;
            }
            // Re-propagate the chain for the next iteration.
            for k in 0..n {
                let parent = if k == 0 { base } else { model[k - 1] };
                model[k] = parent * affine_of(k, rot[k]);
            }
            end = model[n - 1].translation.into();
            residual = (end - t).length();
        }
        if rot[..n].iter().any(|q| !q.is_finite()) {
            return Err(IkError::NonFinite {
                what: "solver result",
            });
        }
        for (k, &j) in joints.iter().enumerate() {
            pose.locals[j].rotation = rot[k];
        }
        local_to_model_from(skeleton, joints[0], &pose.locals, models);
        let residual = (models[self.end].w_axis.truncate() - t).length();
        Ok(IterativeResult {
            iterations,
            residual,
            reached: residual <= self.tolerance,
        })
    }
}
