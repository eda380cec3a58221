//! Small helpers every stage uses: positions and rotations of model
//! matrices, an exponential approach and a smoothstep. Pure functions of
//! their arguments.

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};

pub(super) fn pos(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

pub(super) fn rotation(m: &Mat4) -> Quat {
    let (_, r, _) = m.to_scale_rotation_translation();
    if r.is_finite() {
        r.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// `v` turned by the rotation part of `m` (what [`rotation`] extracts), without
/// extracting a quaternion: the matrix applied to `v` divided by the axes'
/// scales (the x scale negative for a mirroring matrix, as glam decomposes).
pub(super) fn rotate_by(m: &Mat4, v: Vec3) -> Vec3 {
    let (x, y, z) = (
        m.x_axis.truncate(),
        m.y_axis.truncate(),
        m.z_axis.truncate(),
    );
    let sx = x.length() * x.dot(y.cross(z)).signum();
    let r = x * (v.x / sx) + y * (v.y / y.length()) + z * (v.z / z.length());
    if r.is_finite() { r } else { v }
}

/// The inverse of a rigid matrix (a rotation and a translation, as
/// `placement::place` builds the model's world matrix): the rotation
/// transposed, and the translation turned back by it. The same as
/// `Mat4::inverse` for such a matrix but for rounding, without its
/// cofactors and division (on every foot IK frame, see BENCHMARKS.md,
/// "Crowd wall clock (issue 33, fourteenth session)"). Only for a matrix
/// known to be rigid: a scaled one's inverse is not its transpose.
pub(super) fn rigid_inverse(m: &Mat4) -> Mat4 {
    let r = Mat3::from_mat4(*m).transpose();
    let t = -(r * m.w_axis.truncate());
    Mat4::from_cols(
        r.x_axis.extend(0.0),
        r.y_axis.extend(0.0),
        r.z_axis.extend(0.0),
        Vec4::new(t.x, t.y, t.z, 1.0),
    )
}

/// Fraction of the remaining distance an exponential approach with time
/// constant `tau` covers in `dt`.
pub(super) fn approach(dt: f32, tau: f32) -> f32 {
    if tau <= 0.0 {
        1.0
    } else {
        1.0 - (-dt / tau).exp()
    }
}

pub(super) fn smoothstep(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unit(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, y, z).normalize_or(Vec3::X)
    }

    proptest! {
        #[test]
        fn a_rigid_inverse_is_the_inverse(
            (ax, ay, az) in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            angle in -7.0f32..7.0,
            yaw in -7.0f32..7.0,
            (tx, ty, tz) in (-50.0f32..50.0, -50.0f32..50.0, -5.0f32..5.0),
        ) {
            let r = Quat::from_axis_angle(unit(ax, ay, az), angle) * Quat::from_rotation_y(yaw);
            let m = Mat4::from_rotation_translation(r, Vec3::new(tx, ty, tz));
            let inv = rigid_inverse(&m);
            prop_assert!(inv.abs_diff_eq(m.inverse(), 1e-4), "{inv} against {}", m.inverse());
            prop_assert!((inv * m).abs_diff_eq(Mat4::IDENTITY, 1e-5));
        }
    }
}
