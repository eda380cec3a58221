//! Translation-rotation-scale transforms, the local form of every joint.

use glam::{Affine3A, Mat4, Quat, Vec3};

/// A joint's transform relative to its parent as translation, rotation and
/// scale, applied in the order glTF and ozz use: `T * R * S`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Translation in the parent's space, in metres.
    pub translation: Vec3,
    /// Rotation, a unit quaternion.
    pub rotation: Quat,
    /// Scale along the joint's own axes (may be non-uniform or negative).
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// The transform that changes nothing.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// Builds a transform from its three parts.
    pub fn new(translation: Vec3, rotation: Quat, scale: Vec3) -> Self {
        Self {
            translation,
            rotation,
            scale,
        }
    }

    /// A pure translation.
    pub fn from_translation(translation: Vec3) -> Self {
        Self {
            translation,
            ..Self::IDENTITY
        }
    }

    /// The matrix `T * R * S`.
    #[inline]
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// The affine `T * R * S`, cheaper to multiply than a full matrix.
    #[inline]
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes a matrix without shear into translation, rotation and scale.
    ///
    /// A matrix with shear (possible when a non-uniformly scaled parent has a
    /// rotated child) has no exact TRS form; the result is glam's closest
    /// decomposition.
    pub fn from_mat4(m: &Mat4) -> Self {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Self {
            translation,
            rotation,
            scale,
        }
    }

    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_round_trip_keeps_trs() {
        let t = Transform::new(
            Vec3::new(1.0, -2.0, 0.5),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 2.0),
            Vec3::new(1.5, 0.5, 2.0),
        );
        let back = Transform::from_mat4(&t.to_mat4());
        assert!(back.translation.abs_diff_eq(t.translation, 1e-5));
        assert!(back.scale.abs_diff_eq(t.scale, 1e-5));
        assert!(back.rotation.dot(t.rotation).abs() > 1.0 - 1e-5);
    }

    #[test]
    fn affine_and_matrix_agree() {
        let t = Transform::new(Vec3::X, Quat::from_rotation_y(0.7), Vec3::splat(2.0));
        let a = Mat4::from(t.to_affine());
        assert!(a.abs_diff_eq(t.to_mat4(), 1e-6));
    }
}
