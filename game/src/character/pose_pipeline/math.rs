//! Small helpers every stage uses: positions and rotations of model
//! matrices, an exponential approach, a spring's decay and a smoothstep.
//! Pure functions of their arguments.

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};

use super::placement::{ABSORB_OMEGA, AIM_OMEGA, ROOT_OMEGA, TURN_OMEGA};
use crate::sim::player::DT;

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

/// `e^(-omega · dt)`, the decay of a critically damped spring of natural
/// frequency `omega` over `dt` (see `placement::spring`). At the
/// simulation's step ([`DT`], every frame of the game and the crowd) for
/// the springs' frequencies it is the table [`SPRING_DECAY_AT_STEP`]'s,
/// without an `expf` per call (four a frame per character).
#[inline]
pub(super) fn spring_decay(omega: f32, dt: f32) -> f32 {
    if dt == DT {
        for (w, e) in SPRING_DECAY_AT_STEP {
            if omega == w {
                return e;
            }
        }
    }
    spring_decay_at(omega, dt)
}

/// [`spring_decay`] computed, for any step.
fn spring_decay_at(omega: f32, dt: f32) -> f32 {
    (-omega * dt).exp()
}

/// [`spring_decay`] at [`DT`] for the placement springs' frequencies, as
/// `(omega, decay)`. Each decay is the bits [`spring_decay_at`] gives with
/// this platform's `expf` (the tests check them: the same bits on x86-64
/// Linux, within a unit in the last place anywhere), so looking it up
/// changes nothing.
const SPRING_DECAY_AT_STEP: [(f32, f32); 4] = [
    (ABSORB_OMEGA, f32::from_bits(0x3f47_5f7d)),
    (TURN_OMEGA, f32::from_bits(0x3f2d_37e0)),
    (ROOT_OMEGA, f32::from_bits(0x3f54_3b41)),
    (AIM_OMEGA, f32::from_bits(0x3f2f_f231)),
];

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

        #[test]
        fn a_spring_decay_off_the_table_is_computed(
            dt in prop::sample::select(vec![DT, DT * 0.5, 0.02, 0.0]),
            omega in 0.0f32..40.0,
            table in 0usize..4,
        ) {
            prop_assert_eq!(
                spring_decay(omega, dt).to_bits(),
                spring_decay_at(omega, dt).to_bits()
            );
            let (omega, _) = SPRING_DECAY_AT_STEP[table];
            if dt != DT {
                prop_assert_eq!(
                    spring_decay(omega, dt).to_bits(),
                    spring_decay_at(omega, dt).to_bits()
                );
            }
        }
    }

    #[test]
    fn the_step_s_table_holds_the_computed_decays() {
        // The same bits on x86-64 Linux (glibc's `expf`, which the table
        // was taken with), within a unit in the last place elsewhere.
        for (omega, e) in SPRING_DECAY_AT_STEP {
            let computed = spring_decay_at(omega, DT);
            if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
                assert_eq!(
                    e.to_bits(),
                    computed.to_bits(),
                    "{omega}: {e} against {computed}"
                );
            } else {
                assert!(e.to_bits().abs_diff(computed.to_bits()) <= 1, "{omega}");
            }
            assert_eq!(spring_decay(omega, DT).to_bits(), e.to_bits());
        }
        // Every spring placement runs is in it.
        for omega in [ABSORB_OMEGA, TURN_OMEGA, ROOT_OMEGA, AIM_OMEGA] {
            assert!(
                SPRING_DECAY_AT_STEP.iter().any(|&(w, _)| w == omega),
                "{omega}"
            );
        }
    }
}
