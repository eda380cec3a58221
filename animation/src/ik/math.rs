//! Small vector and quaternion helpers shared by the solvers.

use glam::{Quat, Vec3};

/// Below this squared length a direction is treated as degenerate (zero).
pub const DEGENERATE_LEN_SQ: f32 = 1e-12;

/// Below this squared norm of the unnormalized half-way quaternion the two
/// vectors are antiparallel to within 1e-7 rad and the rotation axis is
/// noise: any half turn is then as good as exact.
pub const ANTIPARALLEL_NORM_SQ: f32 = 1e-14;

/// The minimal rotation taking unit vector `from` onto unit vector `to`.
///
/// Stable for nearly parallel vectors (returns a rotation close to identity)
/// and for nearly antiparallel ones: the quaternion's scalar part `1 + from·to`
/// is computed as `|from + to|² / 2`, which does not cancel when the vectors
/// point almost opposite ways (the naive form loses the axis there). Exactly
/// antiparallel vectors give a half turn about an axis perpendicular to
/// `from`. Both inputs must be normalized.
#[inline]
pub fn rotation_between(from: Vec3, to: Vec3) -> Quat {
    // The axis is projected back onto the plane perpendicular to `from`: when
    // the vectors are nearly antiparallel the cross product is tiny and its
    // rounding would otherwise tilt the half turn off `from`.
    let c = from.cross(to);
    let c = c - from * c.dot(from);
    let w = 0.5 * (from + to).length_squared();
    let n2 = c.length_squared() + w * w;
    if n2 < ANTIPARALLEL_NORM_SQ {
        return Quat::from_axis_angle(any_perpendicular(from), std::f32::consts::PI);
    }
    let inv = 1.0 / n2.sqrt();
    Quat::from_xyzw(c.x * inv, c.y * inv, c.z * inv, w * inv)
}

/// A unit vector perpendicular to `v` (which need not be normalized but must
/// not be zero).
#[inline]
pub fn any_perpendicular(v: Vec3) -> Vec3 {
    v.any_orthonormal_vector()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unit() -> impl Strategy<Value = Vec3> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_filter("non-zero", |(x, y, z)| x * x + y * y + z * z > 1e-3)
            .prop_map(|(x, y, z)| Vec3::new(x, y, z).normalize())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]
        #[test]
        fn rotation_between_maps_from_onto_to(a in unit(), b in unit()) {
            let q = rotation_between(a, b);
            prop_assert!((q * a - b).length() < 1e-5, "{a} -> {b}: got {}", q * a);
            prop_assert!(q.is_normalized());
        }

        #[test]
        fn rotation_between_is_exact_for_nearly_antiparallel_vectors(a in unit(), tilt in -1e-3f32..1e-3) {
            let axis = a.any_orthonormal_vector();
            let b = (Quat::from_axis_angle(axis, std::f32::consts::PI + tilt) * a).normalize();
            let q = rotation_between(a, b);
            prop_assert!((q * a - b).length() < 1e-5, "{a} -> {b}: got {}", q * a);
        }
    }

    #[test]
    fn antiparallel_vectors_give_a_half_turn() {
        let q = rotation_between(Vec3::X, -Vec3::X);
        assert!((q * Vec3::X + Vec3::X).length() < 1e-5);
    }
}
