//! Joint limits shared by the solvers: hinge limits (one axis, an angle range)
//! and cone-plus-twist limits (a swing cone about a bone axis and a twist
//! range about it).

use glam::{Quat, Vec3, Vec3A};

use super::IkError;
use super::math::{DEGENERATE_LEN_SQ, finite3, rotation_between, sin_cos_inline};

/// A hinge: the joint turns only about `axis` (in the joint's local frame),
/// by a signed angle within `[min, max]` radians.
///
/// For the two-bone solver the angle is the bend of the chain: the signed
/// angle about the model-space hinge axis from the upper bone's direction to
/// the lower bone's direction, both projected onto the plane perpendicular to
/// the axis. Zero is a straight limb; a knee uses a range such as `[0, 2.6]`
/// so that it never bends backwards.
///
/// A limit is a per-joint constant: [`HingeLimit::new`] computes the unit
/// axis and the sines and cosines of both limits once, and the two-bone
/// solver's per-frame path reads them instead of evaluating two sine-cosine
/// series and a normalization on every solve. Build the limit once per chain
/// (with the rig) rather than every frame. The fields are read through
/// [`HingeLimit::axis`], [`HingeLimit::min`] and [`HingeLimit::max`], so the
/// cached values always match them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HingeLimit {
    axis: Vec3,
    min: f32,
    max: f32,
    /// `axis` normalized (zero for a zero or non-finite axis, which
    /// [`HingeLimit::validate`] refuses).
    unit_axis: Vec3,
    /// Sine and cosine of `min`.
    min_sin_cos: (f32, f32),
    /// Sine and cosine of `max`.
    max_sin_cos: (f32, f32),
}

impl HingeLimit {
    /// A hinge about `axis` (in the joint's local frame, need not be
    /// normalized) allowing signed angles within `[min, max]` radians (both
    /// within [-π, π]; [`HingeLimit::validate`] checks this, the solvers
    /// validate it on every solve).
    pub fn new(axis: Vec3, min: f32, max: f32) -> Self {
        Self {
            axis,
            min,
            max,
            unit_axis: unit(axis),
            min_sin_cos: sin_cos_inline(min),
            max_sin_cos: sin_cos_inline(max),
        }
    }

    /// The hinge axis in the joint's local frame, as given (not normalized).
    pub fn axis(&self) -> Vec3 {
        self.axis
    }

    /// The smallest allowed angle, in radians.
    pub fn min(&self) -> f32 {
        self.min
    }

    /// The largest allowed angle, in radians.
    pub fn max(&self) -> f32 {
        self.max
    }

    /// The axis normalized (`Vec3A::normalize`, bit for bit, for a valid limit).
    #[inline(always)]
    pub(crate) fn unit_axis(&self) -> Vec3 {
        self.unit_axis
    }

    /// The sines and cosines of `min` and `max`, as
    /// [`super::math::sin_cos_inline`] gives them.
    #[inline(always)]
    pub(crate) fn limits_sin_cos(&self) -> ((f32, f32), (f32, f32)) {
        (self.min_sin_cos, self.max_sin_cos)
    }

    /// Whether [`HingeLimit::validate`] accepts the limit, as one line of
    /// comparisons joined without short-circuits (no branches): a NaN or an
    /// infinity fails the range comparisons on its own, so only the axis
    /// needs an explicit finiteness test.
    #[inline(always)]
    pub fn is_valid(&self) -> bool {
        let pi = std::f32::consts::PI;
        let a = self.axis;
        finite3(a)
            & (a.length_squared() >= DEGENERATE_LEN_SQ)
            & (self.min >= -pi)
            & (self.max <= pi)
            & (self.min <= self.max)
    }

    /// Checks that the axis is finite and non-zero and the range is ordered
    /// within [-π, π]. Valid limits take one branch ([`HingeLimit::is_valid`]);
    /// only a refused one walks the checks to name its reason.
    pub fn validate(&self) -> Result<(), IkError> {
        if self.is_valid() {
            Ok(())
        } else {
            self.check_each()
        }
    }

    /// The checks of [`Self::validate`] one by one, each with its reason:
    /// the first that fails is returned.
    pub(crate) fn check_each(&self) -> Result<(), IkError> {
        if !self.axis.is_finite() || !self.min.is_finite() || !self.max.is_finite() {
            return Err(IkError::NonFinite {
                what: "hinge limit",
            });
        }
        if self.axis.length_squared() < DEGENERATE_LEN_SQ {
            return Err(IkError::InvalidParameter {
                what: "hinge axis",
                reason: "the axis has zero length",
            });
        }
        let pi = std::f32::consts::PI;
        if self.min > self.max || self.min < -pi || self.max > pi {
            return Err(IkError::InvalidParameter {
                what: "hinge range",
                reason: "min must not exceed max and both must lie within [-pi, pi]",
            });
        }
        Ok(())
    }

    /// Restricts a local rotation to this hinge: keeps only its twist about
    /// the axis and clamps that angle into `[min, max]`.
    pub fn constrain(&self, rotation: Quat) -> Quat {
        let axis = self.axis.normalize();
        let angle = twist_angle(rotation, axis);
        Quat::from_axis_angle(axis, angle.clamp(self.min, self.max))
    }
}

/// `axis` normalized as the two-bone solver's SSE vectors normalize it (one
/// division per component), or zero where that is not finite.
fn unit(axis: Vec3) -> Vec3 {
    let n = Vec3A::from(axis).normalize();
    if n.is_finite() { n.into() } else { Vec3::ZERO }
}

/// A swing cone about a bone axis plus a twist range about it, for ball
/// joints such as the shoulder or the spine links of a tail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConeLimit {
    /// The bone axis in the joint's local frame (need not be normalized).
    pub axis: Vec3,
    /// The largest swing of the axis away from its rest direction, radians in [0, π].
    pub max_swing: f32,
    /// The largest twist about the axis either way, radians in [0, π].
    pub max_twist: f32,
}

impl ConeLimit {
    /// Checks that the axis is finite and non-zero and the angles lie in [0, π].
    pub fn validate(&self) -> Result<(), IkError> {
        if !self.axis.is_finite() || !self.max_swing.is_finite() || !self.max_twist.is_finite() {
            return Err(IkError::NonFinite { what: "cone limit" });
        }
        if self.axis.length_squared() < DEGENERATE_LEN_SQ {
            return Err(IkError::InvalidParameter {
                what: "cone axis",
                reason: "the axis has zero length",
            });
        }
        let pi = std::f32::consts::PI;
        if !(0.0..=pi).contains(&self.max_swing) || !(0.0..=pi).contains(&self.max_twist) {
            return Err(IkError::InvalidParameter {
                what: "cone angles",
                reason: "swing and twist limits must lie within [0, pi]",
            });
        }
        Ok(())
    }

    /// Restricts a local rotation (relative to the rest orientation) to the
    /// cone: splits it into swing and twist about the axis, clamps each, and
    /// recombines them as `swing * twist`.
    pub fn constrain(&self, rotation: Quat) -> Quat {
        let axis = self.axis.normalize();
        let twist = twist_angle(rotation, axis).clamp(-self.max_twist, self.max_twist);
        let swung = rotation * axis;
        let swing_angle = axis.dot(swung).clamp(-1.0, 1.0).acos();
        let swing = if swing_angle <= self.max_swing {
            rotation_between(axis, swung.normalize())
        } else {
            let full = rotation_between(axis, swung.normalize());
            let (swing_axis, _) = full.to_axis_angle();
            if swing_axis.length_squared() < DEGENERATE_LEN_SQ {
                Quat::IDENTITY
            } else {
                Quat::from_axis_angle(swing_axis.normalize(), self.max_swing)
            }
        };
        swing * Quat::from_axis_angle(axis, twist)
    }

    /// The swing angle of `rotation`: how far it turns the axis away.
    pub fn swing_of(&self, rotation: Quat) -> f32 {
        let axis = self.axis.normalize();
        axis.dot((rotation * axis).normalize())
            .clamp(-1.0, 1.0)
            .acos()
    }

    /// The twist angle of `rotation` about the axis, in (-π, π].
    pub fn twist_of(&self, rotation: Quat) -> f32 {
        twist_angle(rotation, self.axis.normalize())
    }
}

/// The signed angle in (-π, π] of the twist part of `q` about unit `axis`
/// (swing-twist decomposition). Zero when `q` has no component about the axis.
pub fn twist_angle(q: Quat, axis: Vec3) -> f32 {
    let v = Vec3::new(q.x, q.y, q.z);
    let p = axis * v.dot(axis);
    let (x, w) = (p.dot(axis), q.w);
    if x * x + w * w < 1e-12 {
        return 0.0;
    }
    let mut angle = 2.0 * x.atan2(w);
    if angle > std::f32::consts::PI {
        angle -= std::f32::consts::TAU;
    } else if angle < -std::f32::consts::PI {
        angle += std::f32::consts::TAU;
    }
    angle
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]
        #[test]
        fn hinge_constrain_stays_on_axis_within_range(
            ax in -1.0f32..1.0, ay in 0.1f32..1.0, az in -1.0f32..1.0,
            rx in -3.0f32..3.0, ry in -3.0f32..3.0, rz in -3.0f32..3.0,
            min in -3.0f32..0.0, span in 0.0f32..3.0,
        ) {
            let limit = HingeLimit::new(Vec3::new(ax, ay, az), min, (min + span).min(std::f32::consts::PI));
            let q = limit.constrain(Quat::from_euler(glam::EulerRot::XYZ, rx, ry, rz));
            let axis = limit.axis().normalize();
            prop_assert!((q * axis - axis).length() < 1e-4);
            let a = twist_angle(q, axis);
            prop_assert!(a >= limit.min() - 1e-4 && a <= limit.max() + 1e-4, "{a}");
        }

        #[test]
        fn cone_constrain_respects_swing_and_twist(
            rx in -3.0f32..3.0, ry in -3.0f32..3.0, rz in -3.0f32..3.0,
            swing in 0.0f32..3.0, twist in 0.0f32..3.0,
        ) {
            let limit = ConeLimit { axis: Vec3::Y, max_swing: swing, max_twist: twist };
            let q = limit.constrain(Quat::from_euler(glam::EulerRot::XYZ, rx, ry, rz));
            prop_assert!(limit.swing_of(q) <= swing + 1e-3);
            prop_assert!(limit.twist_of(q).abs() <= twist + 1e-3);
        }
    }

    #[test]
    fn a_new_hinge_caches_its_unit_axis_and_its_limits_sines_and_cosines() {
        let limit = HingeLimit::new(Vec3::new(0.0, 2.0, 0.0), -2.6, 0.5);
        assert_eq!(
            (limit.axis(), limit.min(), limit.max()),
            (Vec3::new(0.0, 2.0, 0.0), -2.6, 0.5)
        );
        assert_eq!(limit.unit_axis(), Vec3::Y);
        let (lo, hi) = limit.limits_sin_cos();
        for ((s, c), angle) in [(lo, -2.6f32), (hi, 0.5)] {
            assert!((s - angle.sin()).abs() < 1e-6 && (c - angle.cos()).abs() < 1e-6);
        }
        // A zero axis caches zero (and is refused by validate).
        let zero = HingeLimit::new(Vec3::ZERO, 0.0, 1.0);
        assert_eq!(zero.unit_axis(), Vec3::ZERO);
        assert!(zero.validate().is_err());
    }

    #[test]
    fn reversed_hinge_range_is_refused() {
        let limit = HingeLimit::new(Vec3::X, 1.0, 0.0);
        assert!(limit.validate().is_err());
    }
}
