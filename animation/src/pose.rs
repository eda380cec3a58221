//! Poses (local transforms per joint) and the local-to-model job, whole or
//! from one joint downward.

use glam::{Affine3A, Mat4};

use crate::skeleton::{MAX_JOINTS, Skeleton};
use crate::transform::Transform;

/// The local transform of every joint of one skeleton, in joint order.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// Local (parent-relative) transforms, one per joint.
    pub locals: Vec<Transform>,
}

impl Pose {
    /// A pose of `len` identity transforms.
    pub fn identity(len: usize) -> Self {
        Self {
            locals: vec![Transform::IDENTITY; len],
        }
    }

    /// Number of joints.
    pub fn len(&self) -> usize {
        self.locals.len()
    }

    /// True when the pose has no joints.
    pub fn is_empty(&self) -> bool {
        self.locals.is_empty()
    }
}

/// Computes every joint's model-space matrix from its local transform.
///
/// `locals` and `models` must both hold one entry per joint of `skeleton`
/// (panics otherwise: a length mismatch is a programming error, not bad data).
/// Roots use the identity as their parent. Runs in one forward pass because the
/// skeleton is sorted parent-before-child; allocates nothing.
pub fn local_to_model(skeleton: &Skeleton, locals: &[Transform], models: &mut [Mat4]) {
    let n = skeleton.len();
    assert_eq!(locals.len(), n, "pose length differs from skeleton");
    assert_eq!(
        models.len(),
        n,
        "model matrix buffer length differs from skeleton"
    );
    let parents = skeleton.raw_parents();
    for i in 0..n {
        let local = locals[i].to_affine();
        let p = parents[i];
        models[i] = if p == u16::MAX {
            Mat4::from(local)
        } else {
            mul_affine(&models[p as usize], &local)
        };
    }
}

/// Recomputes the model matrices of `from` and all of its descendants, leaving
/// every other joint as it was.
///
/// This is the partial re-propagation an IK solver needs after it changes the
/// local rotation of one joint of a chain: the joint's parent model matrix must
/// already be correct. Allocates nothing (dirty joints are marked in a
/// stack bitset of [`MAX_JOINTS`] bits).
pub fn local_to_model_from(
    skeleton: &Skeleton,
    from: usize,
    locals: &[Transform],
    models: &mut [Mat4],
) {
    let n = skeleton.len();
    assert_eq!(locals.len(), n, "pose length differs from skeleton");
    assert_eq!(
        models.len(),
        n,
        "model matrix buffer length differs from skeleton"
    );
    assert!(from < n, "joint {from} out of range");
    let parents = skeleton.raw_parents();
    let mut dirty = [0u64; MAX_JOINTS / 64];
    for i in from..n {
        let p = parents[i];
        let has_dirty_parent = p != u16::MAX && (dirty[p as usize / 64] >> (p % 64)) & 1 == 1;
        if i != from && !has_dirty_parent {
            continue;
        }
        let local = locals[i].to_affine();
        models[i] = if p == u16::MAX {
            Mat4::from(local)
        } else {
            mul_affine(&models[p as usize], &local)
        };
        dirty[i / 64] |= 1 << (i % 64);
    }
}

#[inline]
fn mul_affine(parent: &Mat4, local: &Affine3A) -> Mat4 {
    *parent * Mat4::from(*local)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::JointDef;
    use glam::{Quat, Vec3};

    fn chain_skeleton() -> Skeleton {
        let j = |name: &str, parent, t: Vec3| JointDef {
            name: name.into(),
            parent,
            rest: Transform::new(t, Quat::from_rotation_z(0.3), Vec3::ONE),
            inverse_bind: Mat4::IDENTITY,
        };
        Skeleton::new(vec![
            j("root", None, Vec3::ZERO),
            j("a", Some(0), Vec3::Y),
            j("b", Some(1), Vec3::Y),
            j("side", Some(0), Vec3::X),
            j("c", Some(2), Vec3::Y),
        ])
        .unwrap()
    }

    #[test]
    fn model_matrices_compose_parent_first() {
        let s = chain_skeleton();
        let pose = s.rest_pose();
        let mut models = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, &pose.locals, &mut models);
        let expect_c = pose.locals[0].to_mat4()
            * pose.locals[1].to_mat4()
            * pose.locals[2].to_mat4()
            * pose.locals[4].to_mat4();
        assert!(models[4].abs_diff_eq(expect_c, 1e-6));
    }

    #[test]
    fn partial_update_touches_only_descendants() {
        let s = chain_skeleton();
        let mut pose = s.rest_pose();
        let mut models = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, &pose.locals, &mut models);
        let before = models.clone();
        pose.locals[1].rotation = Quat::from_rotation_x(1.0);
        local_to_model_from(&s, 1, &pose.locals, &mut models);
        let mut full = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, &pose.locals, &mut full);
        for i in 0..s.len() {
            assert!(models[i].abs_diff_eq(full[i], 1e-6), "joint {i}");
        }
        assert_eq!(models[3], before[3]);
        assert_eq!(models[0], before[0]);
    }
}
