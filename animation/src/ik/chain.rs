//! Joint chains for the iterative solvers: the joints from a start joint down
//! to an end joint, gathered into fixed stack storage so that a per-frame
//! solve allocates nothing.

use glam::{Mat3, Mat4, Quat};

use super::IkError;
use crate::pose::Pose;
use crate::skeleton::Skeleton;

/// The most joints an iterative chain may hold. Tails, tentacles and spines
/// stay far below it (the benchmarks go to 16); a fixed bound keeps the
/// solvers' scratch (positions, matrices, rotations) on the stack.
pub const MAX_CHAIN_JOINTS: usize = 64;

/// The joints from `start` to `end` (both included) in parent-to-child order.
#[derive(Clone, Copy, Debug)]
pub struct Chain {
    joints: [usize; MAX_CHAIN_JOINTS],
    len: usize,
}

impl Chain {
    /// Walks from `end` up to `start`; fails if `end` does not lie below
    /// `start`, if the chain is longer than [`MAX_CHAIN_JOINTS`] or if either
    /// index is out of range.
    pub fn new(skeleton: &Skeleton, start: usize, end: usize) -> Result<Self, IkError> {
        let len = skeleton.len();
        for joint in [start, end] {
            if joint >= len {
                return Err(IkError::JointOutOfRange { joint, len });
            }
        }
        let mut joints = [0usize; MAX_CHAIN_JOINTS];
        let mut n = 0;
        let mut j = end;
        loop {
            if n == MAX_CHAIN_JOINTS {
                return Err(IkError::InvalidParameter {
                    what: "chain",
                    reason: "more joints than MAX_CHAIN_JOINTS",
                });
            }
            joints[n] = j;
            n += 1;
            if j == start {
                break;
            }
            match skeleton.parent(j) {
                Some(p) if p >= start => j = p,
                _ => {
                    return Err(IkError::NotAChain {
                        ancestor: start,
                        joint: end,
                    });
                }
            }
        }
        if n < 2 {
            return Err(IkError::NotAChain {
                ancestor: start,
                joint: end,
            });
        }
        joints[..n].reverse();
        Ok(Self { joints, len: n })
    }

    /// The joints, parent first.
    pub fn joints(&self) -> &[usize] {
        &self.joints[..self.len]
    }

    /// Number of joints (at least 2).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a chain holds at least two joints.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Checks that the pose, the model buffer and the chain's matrices are
/// usable: lengths match the skeleton and every value is finite.
pub fn validate_buffers(
    skeleton: &Skeleton,
    pose: &Pose,
    models: &[Mat4],
    chain: &Chain,
) -> Result<(), IkError> {
    if pose.len() != skeleton.len() || models.len() != skeleton.len() {
        return Err(IkError::InvalidParameter {
            what: "pose",
            reason: "pose or model buffer length differs from the skeleton",
        });
    }
    for &j in chain.joints() {
        if !models[j].is_finite() || !pose.locals[j].is_finite() {
            return Err(IkError::NonFinite {
                what: "model matrix or local transform of the chain",
            });
        }
    }
    let start = chain.joints()[0];
    if let Some(p) = skeleton.parent(start)
        && !models[p].is_finite()
    {
        return Err(IkError::NonFinite {
            what: "model matrix of the chain's parent",
        });
    }
    Ok(())
}

/// The model matrix of `joint`'s parent, or the identity for a root.
pub fn parent_model(skeleton: &Skeleton, models: &[Mat4], joint: usize) -> Mat4 {
    skeleton.parent(joint).map_or(Mat4::IDENTITY, |p| models[p])
}

/// Turns a model-space rotation of a joint into the new local rotation:
/// both directions are taken into the parent's frame (the inverse of its
/// linear part, exact under non-uniform scale), and the minimal rotation
/// between them is applied before the old local rotation.
pub fn local_rotation_toward(
    parent_linear_inv: &Mat3,
    local: Quat,
    from_model: glam::Vec3,
    to_model: glam::Vec3,
) -> Quat {
    let f = (*parent_linear_inv * from_model).try_normalize();
    let t = (*parent_linear_inv * to_model).try_normalize();
    match (f, t) {
        (Some(f), Some(t)) => (super::math::rotation_between(f, t) * local).normalize(),
        _ => local,
    }
}
