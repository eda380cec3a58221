//! Small vector and quaternion helpers shared by the solvers.

use glam::{Quat, Vec3};

/// Below this squared length a direction is treated as degenerate (zero).
pub const DEGENERATE_LEN_SQ: f32 = 1e-12;

/// The minimal rotation taking unit vector `from` onto unit vector `to`.
///
/// Stable for nearly parallel vectors (returns a rotation close to identity)
/// and for antiparallel ones (a half turn about an axis perpendicular to
/// `from`). Both inputs must be normalized.
#[inline]
pub fn rotation_between(from: Vec3, to: Vec3) -> Quat {
    // Half-way quaternion: q = (from x to, 1 + from . to), normalized. Robust
    // everywhere except the antiparallel case, handled explicitly.
    let d = from.dot(to);
    if d < -1.0 + 1e-6 {
        return Quat::from_axis_angle(any_perpendicular(from), std::f32::consts::PI);
    }
    let c = from.cross(to);
    Quat::from_xyzw(c.x, c.y, c.z, 1.0 + d).normalize()
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
        #[test]
        fn rotation_between_maps_from_onto_to(a in unit(), b in unit()) {
            let q = rotation_between(a, b);
            prop_assert!((q * a - b).length() < 1e-3, "{a} -> {b}: got {}", q * a);
            prop_assert!(q.is_normalized());
        }
    }

    #[test]
    fn antiparallel_vectors_give_a_half_turn() {
        let q = rotation_between(Vec3::X, -Vec3::X);
        assert!((q * Vec3::X + Vec3::X).length() < 1e-5);
    }
}
