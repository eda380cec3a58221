//! Translation-rotation-scale transforms, the local form of every joint.

use glam::{Affine3A, Mat4, Quat, Vec3, Vec4};

use crate::sampling::normalize_quat;

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

    /// The transform `t` of the way from `self` to `other`: translation and
    /// scale linearly, rotation by nlerp on the shortest arc (`other`'s
    /// rotation is brought into `self`'s hemisphere first, since `q` and `-q`
    /// are the same rotation). `t` is clamped to `[0, 1]`, so `0` gives
    /// `self` and `1` gives `other` exactly (up to the rotation's
    /// renormalisation); a NaN `t` counts as 0. This is the per-joint step of
    /// [`crate::crossfade`], and what render interpolation draws between two
    /// simulation steps.
    #[inline]
    pub fn lerp(&self, other: &Transform, t: f32) -> Transform {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        let qa = Vec4::from(self.rotation);
        let mut qb = Vec4::from(other.rotation);
        if qa.dot(qb) < 0.0 {
            qb = -qb;
        }
        Transform {
            translation: self.translation.lerp(other.translation, t),
            rotation: normalize_quat(qa.lerp(qb, t)),
            scale: self.scale.lerp(other.scale, t),
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

    #[test]
    fn lerp_takes_the_short_way_round() {
        // 350 degrees about y is -10 degrees: half way to it from the
        // identity is -5 degrees, not 175.
        let a = Transform::IDENTITY;
        let b = Transform::new(
            Vec3::X,
            Quat::from_rotation_y(350f32.to_radians()),
            Vec3::ONE,
        );
        let m = a.lerp(&b, 0.5);
        let want = Quat::from_rotation_y((-5f32).to_radians());
        assert!(m.rotation.dot(want).abs() > 1.0 - 1e-6, "{:?}", m.rotation);
        assert!(m.translation.abs_diff_eq(Vec3::new(0.5, 0.0, 0.0), 1e-6));
        // Out-of-range and NaN factors are clamped.
        assert_eq!(a.lerp(&b, -3.0).translation, Vec3::ZERO);
        assert_eq!(a.lerp(&b, 7.0).translation, Vec3::X);
        assert_eq!(a.lerp(&b, f32::NAN).translation, Vec3::ZERO);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn arb_quat() -> impl Strategy<Value = Quat> {
            (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
                .prop_filter("non-zero", |(x, y, z, w)| {
                    x * x + y * y + z * z + w * w > 0.01
                })
                .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
        }

        fn arb_transform() -> impl Strategy<Value = Transform> {
            (
                (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
                arb_quat(),
                (0.2f32..3.0, 0.2f32..3.0, 0.2f32..3.0),
            )
                .prop_map(|((x, y, z), q, (sx, sy, sz))| {
                    Transform::new(Vec3::new(x, y, z), q, Vec3::new(sx, sy, sz))
                })
        }

        /// The angle between two rotations, radians (0 to pi), from the
        /// chord between them (acos near 1 loses half the digits).
        fn angle(a: Quat, b: Quat) -> f32 {
            let (a, b) = (Vec4::from(a), Vec4::from(b));
            let chord = (a - b).length().min((a + b).length());
            4.0 * (0.5 * chord).min(1.0).asin()
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(10_000))]

            /// The ends are the inputs; in between the rotation is a unit
            /// quaternion on the shorter arc (no farther from either end
            /// than the ends are from each other), and the translation
            /// lies on the segment between the ends.
            #[test]
            fn lerp_stays_between_its_ends(
                a in arb_transform(),
                b in arb_transform(),
                flip in any::<bool>(),
                t in 0.0f32..=1.0,
            ) {
                let b = if flip { Transform { rotation: -b.rotation, ..b } } else { b };
                let at0 = a.lerp(&b, 0.0);
                let at1 = a.lerp(&b, 1.0);
                prop_assert!(at0.translation.abs_diff_eq(a.translation, 1e-6));
                prop_assert!(angle(at0.rotation, a.rotation) < 1e-3);
                prop_assert!(at1.translation.abs_diff_eq(b.translation, 1e-5));
                prop_assert!(angle(at1.rotation, b.rotation) < 1e-3);
                let m = a.lerp(&b, t);
                prop_assert!((m.rotation.length() - 1.0).abs() < 1e-5);
                let whole = angle(a.rotation, b.rotation);
                prop_assert!(angle(m.rotation, a.rotation) <= whole + 1e-3);
                prop_assert!(angle(m.rotation, b.rotation) <= whole + 1e-3);
                let on_line = a.translation + (b.translation - a.translation) * t;
                prop_assert!(m.translation.abs_diff_eq(on_line, 1e-4));
                // `q` and `-q` are the same rotation, and interpolate alike
                // (except half a turn apart, where both arcs are shortest).
                prop_assume!(a.rotation.dot(b.rotation).abs() > 0.01);
                let neg = a.lerp(&Transform { rotation: -b.rotation, ..b }, t);
                prop_assert!(angle(neg.rotation, m.rotation) < 1e-3);
            }

            /// Going the other way gives the same transform: `a` to `b` at
            /// `t` is `b` to `a` at `1 - t`.
            #[test]
            fn lerp_is_symmetric(a in arb_transform(), b in arb_transform(), t in 0.0f32..=1.0) {
                let ab = a.lerp(&b, t);
                let ba = b.lerp(&a, 1.0 - t);
                prop_assert!(ab.translation.abs_diff_eq(ba.translation, 1e-4));
                prop_assert!(ab.scale.abs_diff_eq(ba.scale, 1e-4));
                prop_assert!(angle(ab.rotation, ba.rotation) < 2e-3);
            }
        }
    }
}
