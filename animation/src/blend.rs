//! Pose blending (weighted layers with optional per-joint masks, crossfades)
//! and root motion (the root joint's movement between two clip times, and
//! removing it from a pose so a clip plays in place).
//!
//! All blending happens on local transforms. Rotations are blended by
//! normalized weighted sums (nlerp): every contribution is first brought into
//! the hemisphere of the first contributing layer, because `q` and `-q` are
//! the same rotation and must blend the same way; or, with [`blend_near`],
//! into the hemisphere of a rotation the caller gives per joint (the frame
//! before's), so that a blend between rotations half a turn apart moves on
//! from frame to frame instead of flipping. Allocates nothing.

use glam::{Quat, Vec3, Vec4};
use thiserror::Error;

use crate::clip::Clip;
use crate::sampling::{Wrap, normalize_quat, sample_joint, wrap_time};
use crate::transform::Transform;

/// A per-joint total weight at or below this counts as "no layer contributes"
/// and the joint takes its rest transform.
///
/// Weights are user-facing fractions (typically 0..1); dividing by a total
/// smaller than this would amplify rounding noise in the weighted sums by more
/// than a million, while any total a caller means to be non-zero is far above it.
pub const BLEND_WEIGHT_EPSILON: f32 = 1e-6;

/// Why a blend was refused. The output is left untouched in every case.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum BlendError {
    /// A layer's pose, the rest pose and the output differ in joint count.
    #[error("{what} has {found} joints, expected {expected}")]
    LengthMismatch {
        /// Which input (e.g. "layer 2", "rest pose", "joint weights of layer 0").
        what: String,
        /// The expected joint count (the output's).
        expected: usize,
        /// The joint count found.
        found: usize,
    },
    /// A layer weight is negative, NaN or infinite.
    #[error("layer {layer} has weight {weight}, which is not a finite non-negative number")]
    BadLayerWeight {
        /// Index of the layer.
        layer: usize,
        /// The offending weight.
        weight: f32,
    },
    /// A per-joint weight is negative, NaN or infinite.
    #[error(
        "layer {layer} has joint weight {weight} for joint {joint}, which is not a finite non-negative number"
    )]
    BadJointWeight {
        /// Index of the layer.
        layer: usize,
        /// The joint.
        joint: usize,
        /// The offending weight.
        weight: f32,
    },
    /// A crossfade factor is NaN.
    #[error("crossfade factor is NaN")]
    BadCrossfade,
    /// A joint index is outside the pose.
    #[error("joint {joint} is out of range for a pose of {len} joints")]
    JointOutOfRange {
        /// The offending index.
        joint: usize,
        /// The pose's joint count.
        len: usize,
    },
    /// The up axis given for in-place playback is zero or not finite.
    #[error("up axis {0} is zero or not finite")]
    BadUpAxis(Vec3),
}

/// Up to this many layers without masks, [`blend`] takes its fast path
/// (the layer list is copied into a fixed array on the stack); more layers
/// take the general path, with the same result.
const MAX_UNMASKED_LAYERS: usize = 8;

/// One weighted pose in a [`blend`].
#[derive(Clone, Copy, Debug)]
pub struct BlendLayer<'a> {
    /// Local transforms, one per joint of the skeleton.
    pub locals: &'a [Transform],
    /// The layer's weight, finite and non-negative; only ratios between
    /// layers matter, since weights are normalized per joint.
    pub weight: f32,
    /// Optional per-joint factors multiplied into `weight` (a mask: 0 leaves a
    /// joint to the other layers); one per joint, finite and non-negative.
    pub joint_weights: Option<&'a [f32]>,
}

/// Blends weighted poses into `out`.
///
/// For every joint the effective weight of a layer is `weight` times its
/// joint weight (1 without a mask); weights are normalized per joint.
/// Translations and scales are weighted averages; rotations are weighted
/// sums, each brought into the hemisphere of the first layer contributing to
/// that joint, then normalized. A joint whose total weight is at most
/// [`BLEND_WEIGHT_EPSILON`] takes `rest`'s transform.
///
/// Every layer, its mask, `rest` and `out` must have the same length;
/// weights must be finite and non-negative. Everything is checked before
/// anything is written, so on error `out` is untouched. Allocates nothing.
pub fn blend(
    layers: &[BlendLayer],
    rest: &[Transform],
    out: &mut [Transform],
) -> Result<(), BlendError> {
    blend_near(layers, rest, &[], out)
}

avx2_builds! {
    kernel = blend_near_kernel;
    /// [`blend`], with each joint's rotations brought into the hemisphere of
    /// `near[joint]` instead of the first layer's, where `near` has a rotation
    /// for every joint (an empty `near` is [`blend`]).
    ///
    /// Two rotations half a turn apart have no midway: their weighted sum
    /// points one way or the other by which hemisphere the second is brought
    /// into, and as one of them moves across the half turn the choice, and with
    /// it the blend, flips in one step (a crossfade from arms hanging down to
    /// arms reaching up swung a shoulder through 2.9 rad in one frame). Given
    /// the rotations the blend gave (or the pose showed) the frame before,
    /// the choice follows the motion instead, and the blend moves continuously
    /// as long as no layer turns a quarter turn between two frames.
    pub fn blend_near(
        layers: &[BlendLayer],
        rest: &[Transform],
        near: &[Quat],
        out: &mut [Transform],
    ) -> Result<(), BlendError> {
        let n = out.len();
        check_len("rest pose", rest.len(), n)?;
        let near = if near.len() == n { Some(near) } else { None };
        for (i, layer) in layers.iter().enumerate() {
            if layer.locals.len() != n {
                return Err(BlendError::LengthMismatch {
                    what: format!("layer {i}"),
                    expected: n,
                    found: layer.locals.len(),
                });
            }
            if !(layer.weight.is_finite() && layer.weight >= 0.0) {
                return Err(BlendError::BadLayerWeight {
                    layer: i,
                    weight: layer.weight,
                });
            }
            if let Some(mask) = layer.joint_weights {
                if mask.len() != n {
                    return Err(BlendError::LengthMismatch {
                        what: format!("joint weights of layer {i}"),
                        expected: n,
                        found: mask.len(),
                    });
                }
                if let Some(joint) = mask.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
                    return Err(BlendError::BadJointWeight {
                        layer: i,
                        joint,
                        weight: mask[joint],
                    });
                }
            }
        }

        // One contributing layer without a mask (a clip playing alone, the
        // common case): its pose is the blend, copied without the per-joint
        // weighted sums (the same result to rounding; rotations are normalized
        // as in the general path).
        let mut contributing = layers.iter().filter(|l| l.weight > 0.0);
        if let (Some(only), None) = (contributing.next(), contributing.next())
            && only.joint_weights.is_none()
            && only.weight > BLEND_WEIGHT_EPSILON
        {
            for (slot, local) in out.iter_mut().zip(only.locals) {
                *slot = Transform {
                    rotation: normalize_quat(Vec4::from(local.rotation)),
                    ..*local
                };
            }
            return Ok(());
        }

        // No masks (every per-frame blend of the game): the total weight is the
        // same for every joint, so it is summed and inverted once, and the
        // layers' weights are pre-scaled. Same sums as the general path below.
        if layers.len() <= MAX_UNMASKED_LAYERS && layers.iter().all(|l| l.joint_weights.is_none()) {
            let total: f32 = layers.iter().map(|l| l.weight).filter(|w| *w > 0.0).sum();
            if !(total > BLEND_WEIGHT_EPSILON && total.is_finite()) {
                out.copy_from_slice(rest);
                return Ok(());
            }
            let inv = 1.0 / total;
            let mut active = [(&[][..], 0.0f32); MAX_UNMASKED_LAYERS];
            let mut count = 0;
            for l in layers.iter().filter(|l| l.weight > 0.0) {
                active[count] = (l.locals, l.weight * inv);
                count += 1;
            }
            let active = &active[..count];
            let (first, w0) = active[0];
            for (j, slot) in out.iter_mut().enumerate() {
                let l0 = &first[j];
                let q0 = Vec4::from(l0.rotation);
                let (r, q0) = match near {
                    Some(near) => {
                        let r = Vec4::from(near[j]);
                        (r, if q0.dot(r) < 0.0 { -q0 } else { q0 })
                    }
                    None => (q0, q0),
                };
                let mut translation = l0.translation * w0;
                let mut scale = l0.scale * w0;
                let mut rotation = q0 * w0;
                for &(locals, w) in &active[1..] {
                    let local = &locals[j];
                    let q = Vec4::from(local.rotation);
                    let q = if q.dot(r) < 0.0 { -q } else { q };
                    translation += local.translation * w;
                    scale += local.scale * w;
                    rotation += q * w;
                }
                *slot = Transform {
                    translation,
                    rotation: normalize_quat(rotation),
                    scale,
                };
            }
            return Ok(());
        }

        for (j, slot) in out.iter_mut().enumerate() {
            let mut total = 0.0f32;
            let mut translation = Vec3::ZERO;
            let mut scale = Vec3::ZERO;
            let mut rotation = Vec4::ZERO;
            let mut reference: Option<Vec4> = near.map(|near| Vec4::from(near[j]));
            for layer in layers {
                let w = layer.weight * layer.joint_weights.map_or(1.0, |m| m[j]);
                if w <= 0.0 {
                    continue;
                }
                let local = &layer.locals[j];
                let q = Vec4::from(local.rotation);
                let r = *reference.get_or_insert(q);
                let q = if q.dot(r) < 0.0 { -q } else { q };
                total += w;
                translation += local.translation * w;
                scale += local.scale * w;
                rotation += q * w;
            }
            *slot = if total > BLEND_WEIGHT_EPSILON && total.is_finite() {
                let inv = 1.0 / total;
                Transform {
                    translation: translation * inv,
                    rotation: normalize_quat(rotation),
                    scale: scale * inv,
                }
            } else {
                rest[j]
            };
        }
        Ok(())
    }
}

/// Crossfades two poses: `t = 0` gives `a`, `t = 1` gives `b`.
///
/// `t` is clamped to `[0, 1]`; NaN is refused. Translations and scales are
/// interpolated linearly, rotations by nlerp with `b` brought into `a`'s
/// hemisphere (the same result as a two-layer [`blend`] with weights `1 - t`
/// and `t`). All three slices must have the same length; on error `out` is
/// untouched. Allocates nothing.
///
/// This is also render interpolation's job: the game draws a character
/// between its last two simulation steps by crossfading their final local
/// poses at the step fraction the display frame falls on.
pub fn crossfade(
    a: &[Transform],
    b: &[Transform],
    t: f32,
    out: &mut [Transform],
) -> Result<(), BlendError> {
    check_len("pose a", a.len(), out.len())?;
    check_len("pose b", b.len(), out.len())?;
    if t.is_nan() {
        return Err(BlendError::BadCrossfade);
    }
    let t = t.clamp(0.0, 1.0);
    for ((slot, a), b) in out.iter_mut().zip(a).zip(b) {
        *slot = a.lerp(b, t);
    }
    Ok(())
}

fn check_len(what: &str, found: usize, expected: usize) -> Result<(), BlendError> {
    if found == expected {
        Ok(())
    } else {
        Err(BlendError::LengthMismatch {
            what: what.to_owned(),
            expected,
            found,
        })
    }
}

/// How the root joint moved between two clip times, in the root's parent
/// space (the model space when the root has no parent).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootMotion {
    /// Change of the root's local translation, in metres.
    pub translation: Vec3,
    /// Rotation taking the root's local rotation at the start time to the one
    /// at the end time: `rotation * r(from) = r(to)`.
    pub rotation: Quat,
}

impl RootMotion {
    /// No movement.
    pub const NONE: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };

    /// The translation without its component along `up` (the horizontal part
    /// a character controller applies to the entity); zero when `up` is zero
    /// or not finite.
    pub fn horizontal_translation(&self, up: Vec3) -> Vec3 {
        let up = up.normalize_or_zero();
        self.translation - up * self.translation.dot(up)
    }
}

/// The root joint's local transform on the clip's unwrapped time line.
///
/// With [`Wrap::Loop`], every completed cycle adds the clip's whole-cycle
/// movement: the translation from the first frame to the last is added once
/// per cycle, and the rotation from the first frame to the last is applied
/// once per cycle (`R(t + k·d) = C^k · R(t)`).
fn unwrapped_root(clip: &Clip, root_joint: usize, time: f32, wrap: Wrap) -> (Vec3, Quat) {
    let d = clip.duration;
    let at = |t: f32| sample_joint(clip, root_joint, t, Wrap::Clamp, Transform::IDENTITY);
    if wrap == Wrap::Clamp || !(d.is_finite() && d > 0.0) || !time.is_finite() {
        let local = at(wrap_time(time, d, wrap));
        return (local.translation, local.rotation);
    }
    let local_time = wrap_time(time, d, Wrap::Loop);
    let cycles = ((time - local_time) / d).round();
    let local = at(local_time);
    if cycles == 0.0 {
        return (local.translation, local.rotation);
    }
    let (first, last) = (at(0.0), at(d));
    let translation = local.translation + (last.translation - first.translation) * cycles;
    let cycle_rotation = (last.rotation * first.rotation.inverse()).normalize();
    let (axis, angle) = cycle_rotation.to_axis_angle();
    let powered = if angle.abs() > 0.0 && axis.is_finite() {
        Quat::from_axis_angle(axis, angle * cycles)
    } else {
        Quat::IDENTITY
    };
    (translation, (powered * local.rotation).normalize())
}

/// The root joint's movement from `from_time` to `to_time` (seconds).
///
/// With [`Wrap::Loop`] the times are not wrapped independently: time is
/// unrolled across cycles, so that going from 0.9·d to 1.1·d moves the root
/// forward by 0.2·d of motion instead of jumping back by 0.8·d (see
/// [`RootMotion`] for the cycle model). `to_time < from_time` gives the
/// reverse movement. A root without tracks, or a clip of zero duration, gives
/// [`RootMotion::NONE`]. Finite inputs never yield NaN.
pub fn extract_root_motion(
    clip: &Clip,
    root_joint: usize,
    from_time: f32,
    to_time: f32,
    wrap: Wrap,
) -> RootMotion {
    let (t0, r0) = unwrapped_root(clip, root_joint, from_time, wrap);
    let (t1, r1) = unwrapped_root(clip, root_joint, to_time, wrap);
    let translation = t1 - t0;
    let rotation = (r1 * r0.inverse()).normalize();
    RootMotion {
        translation: if translation.is_finite() {
            translation
        } else {
            Vec3::ZERO
        },
        rotation: if rotation.is_finite() {
            rotation
        } else {
            Quat::IDENTITY
        },
    }
}

/// Makes a pose play in place: removes the horizontal part (orthogonal to
/// `up`) of the root joint's local translation and keeps the vertical part
/// (bobbing, crouching).
///
/// `up` is the up axis in the root's parent space (+Y for glTF); it need not
/// be normalized. On error `locals` is untouched.
pub fn remove_root_horizontal_translation(
    locals: &mut [Transform],
    root_joint: usize,
    up: Vec3,
) -> Result<(), BlendError> {
    let len = locals.len();
    let root = locals
        .get_mut(root_joint)
        .ok_or(BlendError::JointOutOfRange {
            joint: root_joint,
            len,
        })?;
    let up_n = up.normalize_or_zero();
    if up_n == Vec3::ZERO || !up_n.is_finite() {
        return Err(BlendError::BadUpAxis(up));
    }
    root.translation = up_n * root.translation.dot(up_n);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::{Interpolation, Track};
    use proptest::prelude::*;

    fn tr(t: Vec3, q: Quat, s: Vec3) -> Transform {
        Transform::new(t, q, s)
    }

    #[test]
    fn two_layers_average_by_weight() {
        let a = [tr(Vec3::ZERO, Quat::IDENTITY, Vec3::ONE)];
        let b = [tr(
            Vec3::new(4.0, 0.0, 0.0),
            Quat::from_rotation_y(90f32.to_radians()),
            Vec3::splat(3.0),
        )];
        let mut out = [Transform::IDENTITY];
        let layers = [
            BlendLayer {
                locals: &a,
                weight: 3.0,
                joint_weights: None,
            },
            BlendLayer {
                locals: &b,
                weight: 1.0,
                joint_weights: None,
            },
        ];
        blend(&layers, &[Transform::IDENTITY], &mut out).unwrap();
        // Weights 3:1 normalize to 0.75 / 0.25.
        assert!(
            out[0]
                .translation
                .abs_diff_eq(Vec3::new(1.0, 0.0, 0.0), 1e-6)
        );
        assert!(out[0].scale.abs_diff_eq(Vec3::splat(1.5), 1e-6));
        // nlerp: 0.75*(0,0,0,1) + 0.25*(0, sin45, 0, cos45), normalized.
        let s = 0.5f32.sqrt();
        let sum = Vec4::new(0.0, 0.25 * s, 0.0, 0.75 + 0.25 * s);
        assert!(Vec4::from(out[0].rotation).abs_diff_eq(sum / sum.length(), 1e-6));
    }

    #[test]
    fn masked_joints_fall_back_to_other_layers_or_rest() {
        let base = [Transform::from_translation(Vec3::X); 3];
        let over = [Transform::from_translation(Vec3::Y); 3];
        let rest = [Transform::from_translation(Vec3::Z); 3];
        let base_mask = [1.0, 1.0, 0.0];
        let over_mask = [0.0, 1.0, 0.0];
        let mut out = [Transform::IDENTITY; 3];
        let layers = [
            BlendLayer {
                locals: &base,
                weight: 1.0,
                joint_weights: Some(&base_mask),
            },
            BlendLayer {
                locals: &over,
                weight: 1.0,
                joint_weights: Some(&over_mask),
            },
        ];
        blend(&layers, &rest, &mut out).unwrap();
        assert_eq!(out[0].translation, Vec3::X);
        assert!(
            out[1]
                .translation
                .abs_diff_eq(Vec3::new(0.5, 0.5, 0.0), 1e-6)
        );
        assert_eq!(out[2], rest[2]);
    }

    #[test]
    fn zero_total_weight_gives_rest_and_no_layers_give_rest() {
        let a = [tr(Vec3::X, Quat::from_rotation_x(1.0), Vec3::ONE)];
        let rest = [Transform::from_translation(Vec3::new(0.0, 2.0, 0.0))];
        let mut out = [Transform::IDENTITY];
        blend(
            &[BlendLayer {
                locals: &a,
                weight: 0.0,
                joint_weights: None,
            }],
            &rest,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, rest);
        let mut out = [Transform::IDENTITY];
        blend(&[], &rest, &mut out).unwrap();
        assert_eq!(out, rest);
    }

    #[test]
    fn bad_weights_and_lengths_are_refused_without_writing() {
        let a = [Transform::IDENTITY; 2];
        let rest = [Transform::IDENTITY; 2];
        let marker = Transform::from_translation(Vec3::splat(9.0));
        let mut out = [marker; 2];
        for w in [-1.0, f32::NAN, f32::INFINITY] {
            let e = blend(
                &[BlendLayer {
                    locals: &a,
                    weight: w,
                    joint_weights: None,
                }],
                &rest,
                &mut out,
            );
            assert!(matches!(
                e,
                Err(BlendError::BadLayerWeight { layer: 0, .. })
            ));
        }
        let mask = [1.0, -0.5];
        let e = blend(
            &[BlendLayer {
                locals: &a,
                weight: 1.0,
                joint_weights: Some(&mask),
            }],
            &rest,
            &mut out,
        );
        assert!(matches!(
            e,
            Err(BlendError::BadJointWeight {
                layer: 0,
                joint: 1,
                ..
            })
        ));
        let short = [Transform::IDENTITY; 1];
        let e = blend(
            &[BlendLayer {
                locals: &short,
                weight: 1.0,
                joint_weights: None,
            }],
            &rest,
            &mut out,
        );
        assert!(matches!(
            e,
            Err(BlendError::LengthMismatch {
                expected: 2,
                found: 1,
                ..
            })
        ));
        assert!(crossfade(&a, &a, f32::NAN, &mut out).is_err());
        assert!(crossfade(&a, &short, 0.5, &mut out).is_err());
        assert_eq!(out, [marker; 2]);
    }

    #[test]
    fn crossfade_ends_are_the_inputs() {
        let a = [tr(Vec3::X, Quat::from_rotation_z(0.4), Vec3::ONE)];
        let b = [tr(Vec3::Y, -Quat::from_rotation_z(1.4), Vec3::splat(2.0))];
        let mut out = [Transform::IDENTITY];
        crossfade(&a, &b, 0.0, &mut out).unwrap();
        assert!(out[0].translation.abs_diff_eq(a[0].translation, 1e-6));
        assert!(out[0].rotation.abs_diff_eq(a[0].rotation, 1e-6));
        crossfade(&a, &b, 1.0, &mut out).unwrap();
        assert!(out[0].translation.abs_diff_eq(b[0].translation, 1e-6));
        assert!(out[0].rotation.dot(b[0].rotation).abs() > 1.0 - 1e-6);
        // Half way between 0.4 rad and 1.4 rad about Z is 0.9 rad (equal
        // weights make nlerp hit the true midpoint), despite b's negative sign.
        crossfade(&a, &b, 0.5, &mut out).unwrap();
        assert!(out[0].rotation.dot(Quat::from_rotation_z(0.9)).abs() > 1.0 - 1e-6);
        assert!(out[0].scale.abs_diff_eq(Vec3::splat(1.5), 1e-6));
    }

    fn walk_clip() -> Clip {
        // Root walks 2 m along +X per 1 s cycle and turns 90° about Y per cycle,
        // bobbing up and down on Y.
        Clip {
            name: "walk".into(),
            duration: 1.0,
            translations: vec![Track {
                joint: 0,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 0.5, 1.0],
                values: vec![
                    Vec3::new(0.0, 1.0, 0.0),
                    Vec3::new(1.0, 0.9, 0.0),
                    Vec3::new(2.0, 1.0, 0.0),
                ],
            }],
            rotations: vec![Track {
                joint: 0,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 1.0],
                values: vec![Quat::IDENTITY, Quat::from_rotation_y(90f32.to_radians())],
            }],
            scales: vec![],
        }
    }

    #[test]
    fn root_motion_within_a_cycle_is_the_sampled_difference() {
        let m = extract_root_motion(&walk_clip(), 0, 0.25, 0.75, Wrap::Loop);
        // x: 0.5 -> 1.5; y: 0.95 -> 0.95.
        assert!(
            m.translation.abs_diff_eq(Vec3::new(1.0, 0.0, 0.0), 1e-5),
            "{}",
            m.translation
        );
        let expect = Quat::from_rotation_y(45f32.to_radians());
        assert!(m.rotation.dot(expect).abs() > 1.0 - 1e-6);
    }

    #[test]
    fn root_motion_across_the_loop_adds_whole_cycles() {
        let c = walk_clip();
        // 0.9 s -> 1.1 s crosses the end: 0.2 s of walking is 0.4 m forward.
        let m = extract_root_motion(&c, 0, 0.9, 1.1, Wrap::Loop);
        assert!((m.translation.x - 0.4).abs() < 1e-4, "{}", m.translation);
        assert!(m.translation.y.abs() < 1e-4);
        assert!(
            m.rotation
                .dot(Quat::from_rotation_y(18f32.to_radians()))
                .abs()
                > 1.0 - 1e-5
        );
        // Three full cycles: 6 m and 270°.
        let m = extract_root_motion(&c, 0, 0.3, 3.3, Wrap::Loop);
        assert!(
            m.translation.abs_diff_eq(Vec3::new(6.0, 0.0, 0.0), 1e-4),
            "{}",
            m.translation
        );
        assert!(
            m.rotation
                .dot(Quat::from_rotation_y(270f32.to_radians()))
                .abs()
                > 1.0 - 1e-5
        );
        // Backwards is the reverse.
        let back = extract_root_motion(&c, 0, 1.1, 0.9, Wrap::Loop);
        assert!((back.translation.x + 0.4).abs() < 1e-4);
        // Clamp never goes past the end.
        let m = extract_root_motion(&c, 0, 0.9, 1.1, Wrap::Clamp);
        assert!((m.translation.x - 0.2).abs() < 1e-4);
        // A joint without tracks does not move.
        assert_eq!(
            extract_root_motion(&c, 3, 0.0, 5.0, Wrap::Loop),
            RootMotion::NONE
        );
        assert!((m.horizontal_translation(Vec3::Y) - Vec3::new(0.2, 0.0, 0.0)).length() < 1e-4);
    }

    #[test]
    fn in_place_keeps_only_the_vertical_root_translation() {
        let mut locals = [
            Transform::from_translation(Vec3::new(3.0, 0.9, -2.0)),
            Transform::from_translation(Vec3::new(1.0, 1.0, 1.0)),
        ];
        remove_root_horizontal_translation(&mut locals, 0, Vec3::new(0.0, 2.0, 0.0)).unwrap();
        assert!(
            locals[0]
                .translation
                .abs_diff_eq(Vec3::new(0.0, 0.9, 0.0), 1e-6)
        );
        assert_eq!(locals[1].translation, Vec3::ONE);
        assert!(remove_root_horizontal_translation(&mut locals, 2, Vec3::Y).is_err());
        assert!(remove_root_horizontal_translation(&mut locals, 0, Vec3::ZERO).is_err());
    }

    /// Blends `a` and `b` half and half, near `near` (empty: as [`blend`]).
    fn halfway(a: Quat, b: Quat, near: &[Quat]) -> Quat {
        let (la, lb) = (
            [Transform::new(Vec3::ZERO, a, Vec3::ONE)],
            [Transform::new(Vec3::ZERO, b, Vec3::ONE)],
        );
        let layers = [
            BlendLayer {
                locals: &la,
                weight: 0.5,
                joint_weights: None,
            },
            BlendLayer {
                locals: &lb,
                weight: 0.5,
                joint_weights: None,
            },
        ];
        let mut out = [Transform::IDENTITY];
        blend_near(&layers, &[Transform::IDENTITY], near, &mut out).unwrap();
        out[0].rotation
    }

    #[test]
    fn a_blend_near_the_last_one_moves_on_across_a_half_turn() {
        // Halfway between no turn and a turn about X that grows from 170°
        // to 190°: blended as it comes, the result jumps from +89.5° to
        // −89.5° where the turn passes 180°; near the frame before's, it
        // goes on turning half a degree a step.
        let step = |near: bool| {
            let mut last: Option<Quat> = None;
            let mut worst = 0.0f32;
            for deg in 170..=190 {
                let b = Quat::from_rotation_x((deg as f32).to_radians());
                let reference: Vec<Quat> = if near {
                    last.into_iter().collect()
                } else {
                    vec![]
                };
                let q = halfway(Quat::IDENTITY, b, &reference);
                if let Some(l) = last {
                    worst = worst.max(l.angle_between(q));
                }
                last = Some(q);
            }
            worst.to_degrees()
        };
        assert!(step(false) > 170.0, "{}", step(false));
        assert!(step(true) < 0.6, "{}", step(true));
        // Near rotations that do not fit the pose are not used.
        let b = Quat::from_rotation_x(1.0);
        let two = [Quat::IDENTITY; 2];
        assert_eq!(
            halfway(Quat::IDENTITY, b, &two),
            halfway(Quat::IDENTITY, b, &[])
        );
    }

    fn arb_unit_quat() -> impl Strategy<Value = Quat> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_filter("non-degenerate", |(x, y, z, w)| {
                x * x + y * y + z * z + w * w > 1e-3
            })
            .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
    }

    fn arb_transform() -> impl Strategy<Value = Transform> {
        (
            (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
            arb_unit_quat(),
            (0.1f32..3.0, 0.1f32..3.0, 0.1f32..3.0),
        )
            .prop_map(|((x, y, z), q, (a, b, c))| {
                Transform::new(Vec3::new(x, y, z), q, Vec3::new(a, b, c))
            })
    }

    fn layers<'a>(poses: &'a [[Transform; 1]], weights: &[f32]) -> Vec<BlendLayer<'a>> {
        poses
            .iter()
            .zip(weights)
            .map(|(l, w)| BlendLayer {
                locals: l,
                weight: *w,
                joint_weights: None,
            })
            .collect()
    }

    proptest! {
        #[test]
        fn a_blend_near_the_last_one_follows_a_layer_fading_in(
            a in arb_unit_quat(),
            axis in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
                .prop_filter("an axis", |(x, y, z)| x * x + y * y + z * z > 1e-2),
            step in 0.005f32..0.05,
            w in 0.5f32..0.95,
        ) {
            // One layer still, the other (weighing at least as much, as a
            // crossfade's incoming layer does from its middle on) turning
            // away from it steadily through a half turn and on: the blend
            // near the frame before's moves on with it, never more than
            // twice the turning layer's step in a frame (blended near the
            // first layer it jumps where the turn passes a half turn, see
            // `a_blend_near_the_last_one_moves_on_across_a_half_turn`). It
            // holds to 0.1 rad past the half turn whatever the weights (the
            // lighter layer's own hemisphere flips once the turn passes
            // 2 acos(−lighter/heavier), at least 186°).
            let axis = Vec3::new(axis.0, axis.1, axis.2).normalize();
            let mut last: Option<Quat> = None;
            let steps = ((std::f32::consts::PI + 0.1) / step) as usize;
            for k in 0..=steps {
                let b = Quat::from_axis_angle(axis, step * k as f32) * a;
                let la = [Transform::new(Vec3::ZERO, a, Vec3::ONE)];
                let lb = [Transform::new(Vec3::ZERO, b, Vec3::ONE)];
                let layers = [
                    BlendLayer { locals: &la, weight: 1.0 - w, joint_weights: None },
                    BlendLayer { locals: &lb, weight: w, joint_weights: None },
                ];
                let mut out = [Transform::IDENTITY];
                let near: Vec<Quat> = last.into_iter().collect();
                blend_near(&layers, &[Transform::IDENTITY], &near, &mut out).unwrap();
                let q = out[0].rotation;
                prop_assert!(q.is_normalized());
                if let Some(l) = last {
                    prop_assert!(
                        l.angle_between(q) <= 2.0 * step + 1e-3,
                        "step {k}: {} rad for a layer's {step}", l.angle_between(q)
                    );
                }
                last = Some(q);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        #[test]
        fn blended_rotations_are_unit_and_translations_stay_in_the_hull(
            poses in proptest::collection::vec((arb_transform(), 0.0f32..4.0), 1..5),
        ) {
            let locals: Vec<[Transform; 1]> = poses.iter().map(|(t, _)| [*t]).collect();
            let layers: Vec<BlendLayer> = locals.iter().zip(&poses)
                .map(|(l, (_, w))| BlendLayer { locals: l, weight: *w, joint_weights: None })
                .collect();
            let mut out = [Transform::IDENTITY];
            blend(&layers, &[Transform::IDENTITY], &mut out).unwrap();
            prop_assert!(out[0].is_finite());
            prop_assert!((out[0].rotation.length() - 1.0).abs() < 1e-5);
            let contributing = poses.iter().filter(|(_, w)| *w > 0.0);
            let (lo, hi) = contributing.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), (t, _)| {
                (lo.min(t.translation), hi.max(t.translation))
            });
            if lo.is_finite() {
                prop_assert!(out[0].translation.cmpge(lo - 1e-4).all());
                prop_assert!(out[0].translation.cmple(hi + 1e-4).all());
            }
        }

        /// Without masks, each translation and scale component is the sum
        /// of the layers' values times their weights over the total, in
        /// layer order, as scalars compute it: bit for bit.
        #[test]
        fn unmasked_blend_sums_components_as_scalars_do(
            poses in proptest::collection::vec((arb_transform(), 0.0f32..4.0), 2..5),
        ) {
            let locals: Vec<[Transform; 1]> = poses.iter().map(|(t, _)| [*t]).collect();
            let weights: Vec<f32> = poses.iter().map(|(_, w)| *w).collect();
            let mut out = [Transform::IDENTITY];
            blend(&layers(&locals, &weights), &[Transform::IDENTITY], &mut out).unwrap();
            let total: f32 = weights.iter().copied().filter(|w| *w > 0.0).sum();
            prop_assume!(total > BLEND_WEIGHT_EPSILON && weights.iter().filter(|w| **w > 0.0).count() > 1);
            let inv = 1.0 / total;
            let sum = |part: fn(&Transform) -> Vec3| {
                let mut terms = poses.iter().filter(|(_, w)| *w > 0.0).map(|(t, w)| (part(t), w * inv));
                let (first, w0) = terms.next().unwrap();
                let mut acc = first.to_array().map(|c| c * w0);
                for (v, w) in terms {
                    for (a, c) in acc.iter_mut().zip(v.to_array()) {
                        *a += c * w;
                    }
                }
                acc.map(f32::to_bits)
            };
            prop_assert_eq!(out[0].translation.to_array().map(f32::to_bits), sum(|t| t.translation));
            prop_assert_eq!(out[0].scale.to_array().map(f32::to_bits), sum(|t| t.scale));
        }

        /// The dispatched build (AVX2 where the processor has it) blends
        /// to the baseline build's bits: one layer, several, masked or not,
        /// near the frame before's rotations or not.
        #[test]
        fn every_build_blends_to_the_baseline_bits(
            poses in proptest::collection::vec((arb_transform(), arb_transform(), 0.0f32..4.0), 1..5),
            masked in any::<bool>(),
            near in (arb_unit_quat(), arb_unit_quat()),
            use_near in any::<bool>(),
        ) {
            let locals: Vec<[Transform; 2]> = poses.iter().map(|(a, b, _)| [*a, *b]).collect();
            let mask = [0.25, 1.0];
            let layers: Vec<BlendLayer> = locals
                .iter()
                .zip(&poses)
                .map(|(l, (_, _, w))| BlendLayer {
                    locals: l,
                    weight: *w,
                    joint_weights: masked.then_some(&mask[..]),
                })
                .collect();
            let near = if use_near { vec![near.0, near.1] } else { vec![] };
            let rest = [Transform::IDENTITY; 2];
            let (mut got, mut want) = ([Transform::IDENTITY; 2], [Transform::IDENTITY; 2]);
            blend_near(&layers, &rest, &near, &mut got).unwrap();
            blend_near_kernel(&layers, &rest, &near, &mut want).unwrap();
            let bits = |l: &[Transform; 2]| {
                l.map(|t| (t.translation.to_array(), t.rotation.to_array(), t.scale.to_array()))
                    .map(|(a, b, c)| (a.map(f32::to_bits), b.map(f32::to_bits), c.map(f32::to_bits)))
            };
            prop_assert_eq!(bits(&got), bits(&want));
        }

        #[test]
        fn negated_rotations_blend_to_the_same_rotation(
            poses in proptest::collection::vec((arb_transform(), 0.01f32..4.0, any::<bool>()), 1..5),
        ) {
            let plain: Vec<[Transform; 1]> = poses.iter().map(|(t, _, _)| [*t]).collect();
            let flipped: Vec<[Transform; 1]> = poses
                .iter()
                .map(|(t, _, flip)| {
                    let mut t = *t;
                    if *flip { t.rotation = -t.rotation; }
                    [t]
                })
                .collect();
            let weights: Vec<f32> = poses.iter().map(|(_, w, _)| *w).collect();
            let (mut a, mut b) = ([Transform::IDENTITY], [Transform::IDENTITY]);
            blend(&layers(&plain, &weights), &[Transform::IDENTITY], &mut a).unwrap();
            blend(&layers(&flipped, &weights), &[Transform::IDENTITY], &mut b).unwrap();
            // Same rotation: equal up to the overall sign.
            prop_assert!(a[0].rotation.dot(b[0].rotation).abs() > 1.0 - 1e-5,
                "{} vs {}", a[0].rotation, b[0].rotation);
        }

        #[test]
        fn crossfade_matches_two_layer_blend(
            a in arb_transform(), b in arb_transform(), t in 0.0f32..=1.0,
        ) {
            let mut x = [Transform::IDENTITY];
            let mut y = [Transform::IDENTITY];
            crossfade(&[a], &[b], t, &mut x).unwrap();
            let (la, lb) = ([a], [b]);
            let layers = [
                BlendLayer { locals: &la, weight: 1.0 - t, joint_weights: None },
                BlendLayer { locals: &lb, weight: t, joint_weights: None },
            ];
            blend(&layers, &[Transform::IDENTITY], &mut y).unwrap();
            prop_assert!(x[0].translation.abs_diff_eq(y[0].translation, 1e-4));
            prop_assert!(x[0].scale.abs_diff_eq(y[0].scale, 1e-4));
            prop_assert!(x[0].rotation.dot(y[0].rotation).abs() > 1.0 - 1e-5);
        }
    }
}
