//! Skeletons: joint names, the parent hierarchy, the rest pose and the inverse
//! bind matrices.

use std::collections::HashMap;

use glam::Mat4;
use thiserror::Error;

use crate::pose::Pose;
use crate::transform::Transform;

/// The most joints a skeleton may have.
///
/// Vertices store joint indices as `u16` and the renderer keeps every palette
/// of a frame in one storage buffer; 1,024 joints (64 KiB of matrices per
/// character) is far beyond any humanoid (the knight has about 30, CesiumMan 19)
/// while keeping per-character scratch on the stack (see
/// [`crate::local_to_model_from`], which marks dirty joints in a fixed bitset).
pub const MAX_JOINTS: usize = 1024;

/// Why a skeleton could not be built.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SkeletonError {
    /// The skeleton has no joints at all.
    #[error("skeleton has no joints")]
    Empty,
    /// More joints than [`MAX_JOINTS`].
    #[error("skeleton has {0} joints, more than the limit of {MAX_JOINTS}")]
    TooManyJoints(usize),
    /// The names, parents, rest pose and inverse bind lists differ in length.
    #[error(
        "skeleton lists differ in length: {names} names, {parents} parents, {rest} rest transforms, {inverse_bind} inverse bind matrices"
    )]
    LengthMismatch {
        /// Number of names.
        names: usize,
        /// Number of parents.
        parents: usize,
        /// Number of rest transforms.
        rest: usize,
        /// Number of inverse bind matrices.
        inverse_bind: usize,
    },
    /// A joint's parent comes after it (or is itself): joints must be sorted parent-before-child.
    #[error("joint {joint} ('{name}') has parent {parent}, which does not come before it")]
    ParentNotBeforeChild {
        /// Index of the offending joint.
        joint: usize,
        /// Its name.
        name: String,
        /// The parent index it names.
        parent: usize,
    },
    /// A rest transform or inverse bind matrix holds NaN or infinity.
    #[error("joint {joint} ('{name}') has a non-finite rest transform or inverse bind matrix")]
    NonFinite {
        /// Index of the offending joint.
        joint: usize,
        /// Its name.
        name: String,
    },
}

/// One joint as given to [`Skeleton::new`].
#[derive(Clone, Debug)]
pub struct JointDef {
    /// The joint's name (need not be unique; lookup returns the first).
    pub name: String,
    /// Index of the parent joint, which must be smaller than this joint's index.
    pub parent: Option<usize>,
    /// The rest (bind-time) local transform.
    pub rest: Transform,
    /// The inverse of the joint's model-space bind matrix.
    pub inverse_bind: Mat4,
}

/// A joint hierarchy, sorted so that every parent comes before its children.
///
/// Sorting parent-before-child lets [`crate::local_to_model`] build every model
/// matrix in one forward pass and lets IK re-propagate a chain from one joint
/// downward.
#[derive(Clone, Debug)]
pub struct Skeleton {
    names: Vec<String>,
    parents: Vec<u16>,
    rest: Vec<Transform>,
    inverse_bind: Vec<Mat4>,
    /// For every joint, one past the index of the last joint of its subtree
    /// (joints are sorted parent-before-child, so a subtree lies within
    /// `joint..subtree_end[joint]`, possibly interleaved with other joints).
    subtree_end: Vec<u16>,
    /// For every joint, whether its subtree is exactly
    /// `joint..subtree_end[joint]` (no other joint interleaved: depth-first
    /// order there), so a walk over it needs no membership test.
    subtree_contiguous: Vec<bool>,
    /// Whether every inverse bind matrix is affine (bottom row exactly
    /// 0 0 0 1), so the palette may take the affine product
    /// ([`crate::palette_affine_in_place`]).
    inverse_bind_affine: bool,
    /// Whether every inverse bind matrix is a pure translation (linear part
    /// exactly the identity), so the palette only moves each model matrix's
    /// translation ([`crate::palette_translation_in_place`]).
    inverse_bind_translation: bool,
    by_name: HashMap<String, u16>,
}

/// The parent value stored for a root joint.
const NO_PARENT: u16 = u16::MAX;

impl Skeleton {
    /// Builds a skeleton from joints sorted parent-before-child.
    ///
    /// Several roots are allowed (glTF skins may have joints with no common root).
    pub fn new(joints: Vec<JointDef>) -> Result<Self, SkeletonError> {
        let mut names = Vec::with_capacity(joints.len());
        let mut parents = Vec::with_capacity(joints.len());
        let mut rest = Vec::with_capacity(joints.len());
        let mut inverse_bind = Vec::with_capacity(joints.len());
        for j in joints {
            names.push(j.name);
            parents.push(j.parent);
            rest.push(j.rest);
            inverse_bind.push(j.inverse_bind);
        }
        Self::from_parts(names, parents, rest, inverse_bind)
    }

    /// Builds a skeleton from parallel lists (see [`Skeleton::new`]).
    pub fn from_parts(
        names: Vec<String>,
        parents: Vec<Option<usize>>,
        rest: Vec<Transform>,
        inverse_bind: Vec<Mat4>,
    ) -> Result<Self, SkeletonError> {
        let n = names.len();
        if n == 0 {
            return Err(SkeletonError::Empty);
        }
        if n > MAX_JOINTS {
            return Err(SkeletonError::TooManyJoints(n));
        }
        if parents.len() != n || rest.len() != n || inverse_bind.len() != n {
            return Err(SkeletonError::LengthMismatch {
                names: n,
                parents: parents.len(),
                rest: rest.len(),
                inverse_bind: inverse_bind.len(),
            });
        }
        let mut packed = Vec::with_capacity(n);
        for (i, p) in parents.iter().enumerate() {
            match *p {
                Some(p) if p >= i => {
                    return Err(SkeletonError::ParentNotBeforeChild {
                        joint: i,
                        name: names[i].clone(),
                        parent: p,
                    });
                }
                Some(p) => packed.push(p as u16),
                None => packed.push(NO_PARENT),
            }
            if !rest[i].is_finite() || !inverse_bind[i].is_finite() {
                return Err(SkeletonError::NonFinite {
                    joint: i,
                    name: names[i].clone(),
                });
            }
        }
        // Children come after their parents: one backward pass carries each
        // subtree's end up to its root.
        let mut subtree_end: Vec<u16> = (1..=n as u16).collect();
        // And each subtree's size: contiguous where it fills its range.
        let mut size = vec![1usize; n];
        for i in (0..n).rev() {
            if packed[i] != NO_PARENT {
                let p = packed[i] as usize;
                subtree_end[p] = subtree_end[p].max(subtree_end[i]);
                size[p] += size[i];
            }
        }
        let subtree_contiguous = (0..n)
            .map(|j| size[j] == subtree_end[j] as usize - j)
            .collect();
        let mut by_name = HashMap::with_capacity(n);
        for (i, name) in names.iter().enumerate().rev() {
            by_name.insert(name.clone(), i as u16);
        }
        let inverse_bind_affine = inverse_bind.iter().all(|m| m.row(3) == glam::Vec4::W);
        let inverse_bind_translation = inverse_bind_affine
            && inverse_bind.iter().all(|m| {
                m.x_axis == glam::Vec4::X && m.y_axis == glam::Vec4::Y && m.z_axis == glam::Vec4::Z
            });
        Ok(Self {
            names,
            parents: packed,
            rest,
            inverse_bind,
            inverse_bind_affine,
            inverse_bind_translation,
            subtree_end,
            subtree_contiguous,
            by_name,
        })
    }

    /// Number of joints.
    #[inline]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Always false: a skeleton has at least one joint.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The parent of joint `joint`, or `None` for a root.
    #[inline]
    pub fn parent(&self, joint: usize) -> Option<usize> {
        let p = self.parents[joint];
        (p != NO_PARENT).then_some(p as usize)
    }

    /// Parent indices as stored: `u16::MAX` marks a root.
    #[inline]
    pub fn raw_parents(&self) -> &[u16] {
        &self.parents
    }

    /// One past the index of the last descendant of `joint` (`joint + 1` for
    /// a leaf): every joint of its subtree lies in `joint..subtree_end(joint)`.
    /// Joints of other subtrees may lie in that range too (the order is
    /// parent-before-child, not necessarily depth-first).
    #[inline]
    pub fn subtree_end(&self, joint: usize) -> usize {
        self.subtree_end[joint] as usize
    }

    /// Whether every joint in `joint..subtree_end(joint)` belongs to
    /// `joint`'s subtree (no joint of another subtree interleaved, as in a
    /// depth-first order): a walk over the subtree is then a walk over the
    /// range.
    #[inline]
    pub fn subtree_is_contiguous(&self, joint: usize) -> bool {
        self.subtree_contiguous[joint]
    }

    /// Joint names in joint order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The name of one joint.
    pub fn name(&self, joint: usize) -> &str {
        &self.names[joint]
    }

    /// The index of the first joint with this name.
    pub fn joint_index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).map(|&i| i as usize)
    }

    /// The rest pose's local transforms.
    pub fn rest_locals(&self) -> &[Transform] {
        &self.rest
    }

    /// A pose holding the rest transforms.
    pub fn rest_pose(&self) -> Pose {
        Pose {
            locals: self.rest.clone(),
        }
    }

    /// Inverse bind matrices, one per joint.
    pub fn inverse_bind(&self) -> &[Mat4] {
        &self.inverse_bind
    }

    /// True when every inverse bind matrix is affine: its bottom row is
    /// exactly 0 0 0 1, as a rigid or scaled bind pose gives. Then [`crate::palette_affine_in_place`] gives the palette's
    /// product of model matrices built by [`crate::local_to_model`].
    pub fn inverse_binds_are_affine(&self) -> bool {
        self.inverse_bind_affine
    }

    /// True when every inverse bind matrix is a pure translation: affine,
    /// with its three linear columns exactly the identity's, as a bind pose
    /// with every joint unrotated and unscaled gives (the knight's). Then
    /// [`crate::palette_translation_in_place`] gives the palette.
    pub fn inverse_binds_are_translations(&self) -> bool {
        self.inverse_bind_translation
    }

    /// True when `joint` is `ancestor` or lies below it.
    pub fn is_descendant_of(&self, joint: usize, ancestor: usize) -> bool {
        let mut j = Some(joint);
        while let Some(i) = j {
            if i == ancestor {
                return true;
            }
            if i < ancestor {
                return false;
            }
            j = self.parent(i);
        }
        false
    }

    /// The joints from `ancestor` down to `joint`, both included, in
    /// parent-to-child order; `None` if `joint` is not below `ancestor`.
    pub fn chain(&self, ancestor: usize, joint: usize) -> Option<Vec<usize>> {
        let mut out = vec![joint];
        let mut j = joint;
        while j != ancestor {
            j = self.parent(j)?;
            out.push(j);
        }
        out.reverse();
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn joint(name: &str, parent: Option<usize>) -> JointDef {
        JointDef {
            name: name.into(),
            parent,
            rest: Transform::from_translation(Vec3::Y),
            inverse_bind: Mat4::IDENTITY,
        }
    }

    #[test]
    fn rejects_child_before_parent() {
        let err = Skeleton::new(vec![joint("a", Some(1)), joint("b", None)]).unwrap_err();
        assert!(matches!(
            err,
            SkeletonError::ParentNotBeforeChild { joint: 0, .. }
        ));
    }

    #[test]
    fn rejects_empty_and_non_finite() {
        assert_eq!(Skeleton::new(vec![]).unwrap_err(), SkeletonError::Empty);
        let mut j = joint("a", None);
        j.rest.translation.x = f32::NAN;
        assert!(matches!(
            Skeleton::new(vec![j]).unwrap_err(),
            SkeletonError::NonFinite { .. }
        ));
    }

    #[test]
    fn lookup_by_name_and_chains() {
        let s = Skeleton::new(vec![
            joint("root", None),
            joint("hip", Some(0)),
            joint("knee", Some(1)),
            joint("other", Some(0)),
            joint("ankle", Some(2)),
        ])
        .unwrap();
        assert_eq!(s.joint_index("knee"), Some(2));
        assert_eq!(s.joint_index("nope"), None);
        assert_eq!(s.chain(1, 4), Some(vec![1, 2, 4]));
        assert_eq!(s.chain(3, 4), None);
        assert!(s.is_descendant_of(4, 1));
        assert!(!s.is_descendant_of(3, 1));
        // Breadth-first order: hip's subtree (1, 2, 4) spans 1..5 around
        // the unrelated joint 3.
        let ends: Vec<usize> = (0..s.len()).map(|j| s.subtree_end(j)).collect();
        assert_eq!(ends, vec![5, 5, 5, 4, 5]);
        for j in 0..s.len() {
            for k in 0..s.len() {
                if s.is_descendant_of(k, j) {
                    assert!((j..s.subtree_end(j)).contains(&k), "{k} below {j}");
                }
            }
        }
    }

    #[test]
    fn several_roots_are_allowed() {
        let s = Skeleton::new(vec![
            joint("a", None),
            joint("b", None),
            joint("c", Some(1)),
        ])
        .unwrap();
        assert_eq!(s.parent(0), None);
        assert_eq!(s.parent(1), None);
        assert_eq!(s.parent(2), Some(1));
    }
}
