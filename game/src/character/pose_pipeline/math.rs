//! Small helpers every stage uses: positions and rotations of model
//! matrices, an exponential approach and a smoothstep. Pure functions of
//! their arguments.

use glam::{Mat4, Quat, Vec3};

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
