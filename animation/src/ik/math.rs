//! Small vector and quaternion helpers shared by the solvers.

use std::ops::{Add, Mul, Sub};

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

/// Inputs of [`sin_cos`] beyond this magnitude go to the standard library:
/// past it the f64 quadrant reduction below loses bits.
pub const FAST_TRIG_MAX_ARG: f32 = 1.0e5;

/// Sine and cosine of `x` together, inline and branch-light: the angle is
/// reduced to [-π/4, π/4] by quadrant and both series are evaluated there
/// (Taylor to the 11th and 12th order, truncation below 2e-9). Agrees with
/// the standard library to a few ulp (checked by the tests below).
#[inline]
pub fn sin_cos(x: f32) -> (f32, f32) {
    if x.is_nan() || x.abs() > FAST_TRIG_MAX_ARG {
        return x.sin_cos();
    }
    if x.abs() <= std::f32::consts::FRAC_PI_4 {
        // Quadrant 0, where the reduction below leaves x as it is: the same
        // bits without it.
        return sin_cos_series(x);
    }
    let k = (x * std::f32::consts::FRAC_2_PI + 0.5f32.copysign(x)) as i32;
    // The reduction in f64: exact enough for every quadrant below the limit.
    let r = (f64::from(x) - f64::from(k) * std::f64::consts::FRAC_PI_2) as f32;
    let (s, c) = sin_cos_series(r);
    // The quadrant by bit operations, not a match: random angles would
    // mispredict its branches. Odd quadrants swap sine and cosine; the sine
    // is negated in quadrants 2 and 3, the cosine in 1 and 2.
    let swap = k & 1 != 0;
    let (s0, c0) = (pick(swap, c, s), pick(swap, s, c));
    let sin_sign = ((k as u32) & 2) << 30;
    let cos_sign = ((k as u32).wrapping_add(1) & 2) << 30;
    (
        f32::from_bits(s0.to_bits() ^ sin_sign),
        f32::from_bits(c0.to_bits() ^ cos_sign),
    )
}

/// Sine and cosine of `x` in [-π, π] (the range of hinge limits), inline
/// and branch-free: the series at x/4 (within [-π/4, π/4]), then the
/// double-angle formulas twice. Agrees with the standard library to a few
/// ulp (checked by the tests below).
#[inline(always)]
pub fn sin_cos_pi(x: f32) -> (f32, f32) {
    let (s, c) = sin_cos_series(x * 0.25);
    let (s, c) = (2.0 * s * c, (c - s) * (c + s));
    (2.0 * s * c, (c - s) * (c + s))
}

/// Sine and cosine of any `x`, inline for the angles per-chain settings
/// such as hinge limits and pole twists use: within [-π/4, π/4] the series
/// alone (bit for bit [`sin_cos`] there, and the shortest dependency chain),
/// within [-π, π] [`sin_cos_pi`], beyond that [`sin_cos`]. Two
/// well-predicted branches (the angle is the same solve after solve).
#[inline(always)]
pub fn sin_cos_inline(x: f32) -> (f32, f32) {
    let a = x.abs();
    if a <= std::f32::consts::FRAC_PI_4 {
        sin_cos_series(x)
    } else if a <= std::f32::consts::PI {
        sin_cos_pi(x)
    } else {
        sin_cos(x)
    }
}

/// The sine and cosine series of [`sin_cos`] for `r` in [-π/4, π/4]
/// (Taylor to the 11th and 12th order, truncation below 2e-9).
#[inline(always)]
fn sin_cos_series(r: f32) -> (f32, f32) {
    sin_cos_series_of(r)
}

/// [`sin_cos_series`] for any number type with f32 arithmetic: `f32`
/// itself, or the batched solver's SIMD lanes, which thus compute the same
/// operations in the same order and get the same bits.
#[inline(always)]
pub(crate) fn sin_cos_series_of<T>(r: T) -> (T, T)
where
    T: Copy + Add<Output = T> + Mul<Output = T> + Mul<f32, Output = T>,
    f32: Add<T, Output = T> + Sub<T, Output = T>,
{
    let r2 = r * r;
    let s = r + r
        * r2
        * (-1.0f32 / 6.0
            + r2 * (1.0f32 / 120.0 + r2 * (-1.0f32 / 5040.0 + r2 * (1.0f32 / 362_880.0))));
    let c = 1.0f32
        + r2 * (-0.5f32
            + r2 * (1.0f32 / 24.0
                + r2 * (-1.0f32 / 720.0 + r2 * (1.0f32 / 40_320.0 - r2 * (1.0f32 / 3_628_800.0)))));
    (s, c)
}

/// `if c { a } else { b }` by bit masks, so that the compiler emits no branch.
#[inline(always)]
fn pick(c: bool, a: f32, b: f32) -> f32 {
    let m = 0u32.wrapping_sub(u32::from(c));
    f32::from_bits((a.to_bits() & m) | (b.to_bits() & !m))
}

/// tan(π/8): above it [`atan2`] shifts its argument by π/4.
const TAN_FRAC_PI_8: f32 = 0.414_213_57;

/// The four-quadrant arctangent of `y / x`, inline: the ratio is folded into
/// [0, tan(π/8)] and the series evaluated to the 17th order (truncation below
/// 1e-8). Signs follow the standard library, zeros included; `atan2(0, 0)`
/// is ±0 or ±π as there.
#[inline]
pub fn atan2(y: f32, x: f32) -> f32 {
    let (ax, ay) = (x.abs(), y.abs());
    let (lo, hi) = (ax.min(ay), ax.max(ay));
    if hi == 0.0 || hi.is_nan() || !hi.is_finite() || !lo.is_finite() {
        return y.atan2(x);
    }
    let a = lo / hi;
    // Every fold is a bit-mask select: the signs and ratios of real inputs
    // are random, and mispredicted branches would cost more than the series.
    let big = a > TAN_FRAC_PI_8;
    let z = pick(big, (a - 1.0) / (a + 1.0), a);
    let base = pick(big, std::f32::consts::FRAC_PI_4, 0.0);
    let z2 = z * z;
    let p = 1.0 / 15.0 - z2 * (1.0 / 17.0);
    let p = 1.0 / 13.0 - z2 * p;
    let p = 1.0 / 11.0 - z2 * p;
    let p = 1.0 / 9.0 - z2 * p;
    let p = 1.0 / 7.0 - z2 * p;
    let p = 1.0 / 5.0 - z2 * p;
    let p = 1.0 / 3.0 - z2 * p;
    let r = base + (z - z * z2 * p);
    let r = pick(ay > ax, std::f32::consts::FRAC_PI_2 - r, r);
    let r = pick(x.is_sign_negative(), std::f32::consts::PI - r, r);
    r.copysign(y)
}

/// The arccosine of `x` clamped to [-1, 1], via [`atan2`] of the sine and the
/// cosine (the sine as √((1-x)(1+x)), which keeps its bits near ±1).
#[inline]
pub fn acos(x: f32) -> f32 {
    let x = x.clamp(-1.0, 1.0);
    atan2(((1.0 - x) * (1.0 + x)).sqrt(), x)
}

/// The rotation by `angle` radians about the unit `axis` ([`Quat::from_axis_angle`]
/// with the inline [`sin_cos`]).
#[inline]
pub fn quat_from_axis_angle(axis: Vec3, angle: f32) -> Quat {
    let (s, c) = sin_cos(angle * 0.5);
    let v = axis * s;
    Quat::from_xyzw(v.x, v.y, v.z, c)
}

/// The square roots of four values at once, each the exact IEEE root (bit
/// for bit `f32::sqrt`): independent roots written side by side, so that
/// the compiler may pack them into one instruction.
#[inline(always)]
pub fn sqrt4(v: [f32; 4]) -> [f32; 4] {
    v.map(f32::sqrt)
}

/// The reciprocals of four values at once: one exact IEEE division per lane
/// (`divps` on x86-64), bit for bit `1.0 / x`.
#[inline(always)]
pub fn recip4(v: [f32; 4]) -> [f32; 4] {
    (glam::Vec4::ONE / glam::Vec4::from_array(v)).to_array()
}

/// `atan(z)` for `z` in [-tan(π/8), tan(π/8)]: the odd Taylor series to
/// z¹⁷ by Estrin's scheme (a short dependency chain), for any number type
/// with f32 arithmetic: `f32`, or the batched solver's SIMD lanes, which
/// thus compute the same operations in the same order and get the same
/// bits.
#[inline(always)]
pub(crate) fn atan_series_of<T>(z: T) -> T
where
    T: Copy + Add<Output = T> + Mul<Output = T> + Mul<f32, Output = T>,
    f32: Sub<T, Output = T>,
{
    let t = z * z;
    let (t2, t4) = (t * t, t * t * (t * t));
    let p01 = (1.0f32 - t * (1.0f32 / 3.0)) + t2 * (1.0f32 / 5.0 - t * (1.0f32 / 7.0));
    let p23 = (1.0f32 / 9.0 - t * (1.0f32 / 11.0)) + t2 * (1.0f32 / 13.0 - t * (1.0f32 / 15.0));
    z * (p01 + t4 * (p23 + t4 * (1.0f32 / 17.0)))
}

/// `(sin 2x, cos 2x)` for `x` in [0, π/4]: the sine and cosine series of
/// `x` by Estrin's scheme, then the double-angle formulas. Generic like
/// [`atan_series_of`], for the same reason.
#[inline(always)]
pub(crate) fn sin_cos_twice_of<T>(x: T) -> (T, T)
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Mul<f32, Output = T>,
    f32: Add<T, Output = T> + Mul<T, Output = T>,
{
    let x2 = x * x;
    let x4 = x2 * x2;
    let sin_x = x + x
        * x2
        * ((-1.0f32 / 6.0 + x2 * (1.0f32 / 120.0))
            + x4 * (-1.0f32 / 5040.0 + x2 * (1.0f32 / 362_880.0)));
    let cos_x = 1.0f32
        + x2 * ((-0.5f32 + x2 * (1.0f32 / 24.0))
            + x4 * ((-1.0f32 / 720.0 + x2 * (1.0f32 / 40_320.0)) - x4 * (1.0f32 / 3_628_800.0)));
    (2.0f32 * sin_x * cos_x, (cos_x - sin_x) * (cos_x + sin_x))
}

/// Whether every component of `v` is finite, by `x · 0 == 0` (NaN for an
/// infinity or a NaN) on all three at once: no branches.
#[inline(always)]
pub fn finite3(v: Vec3) -> bool {
    let a = glam::Vec3A::from(v);
    (a * 0.0).cmpeq(glam::Vec3A::ZERO).all()
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

        #[test]
        fn inline_sin_cos_agrees_with_the_standard_library(x in -40.0f32..40.0) {
            let (s, c) = sin_cos(x);
            let (ws, wc) = x.sin_cos();
            prop_assert!((s - ws).abs() <= 4e-7 && (c - wc).abs() <= 4e-7, "{x}: {s} {c} vs {ws} {wc}");
        }

        #[test]
        fn half_turn_sin_cos_agrees_with_the_standard_library(x in -std::f32::consts::PI..=std::f32::consts::PI) {
            let (s, c) = sin_cos_pi(x);
            let (ws, wc) = x.sin_cos();
            prop_assert!((s - ws).abs() <= 6e-7 && (c - wc).abs() <= 6e-7, "{x}: {s} {c} vs {ws} {wc}");
        }

        #[test]
        fn per_chain_sin_cos_agrees_with_the_standard_library(x in -10.0f32..10.0) {
            let (s, c) = sin_cos_inline(x);
            let (ws, wc) = x.sin_cos();
            prop_assert!((s - ws).abs() <= 6e-7 && (c - wc).abs() <= 6e-7, "{x}: {s} {c} vs {ws} {wc}");
            if x.abs() <= std::f32::consts::FRAC_PI_4 {
                prop_assert_eq!((s, c), sin_cos(x));
            }
        }

        #[test]
        fn inline_atan2_agrees_with_the_standard_library(y in -10.0f32..10.0, x in -10.0f32..10.0, tiny in any::<bool>()) {
            let (y, x) = if tiny { (y * 1e-20, x * 1e-20) } else { (y, x) };
            let (got, want) = (atan2(y, x), y.atan2(x));
            prop_assert!((got - want).abs() <= 8e-7, "atan2({y}, {x}) = {got}, want {want}");
        }

        #[test]
        fn inline_acos_agrees_with_the_standard_library(x in -1.2f32..1.2) {
            let (got, want) = (acos(x), x.clamp(-1.0, 1.0).acos());
            prop_assert!((got - want).abs() <= 8e-7, "acos({x}) = {got}, want {want}");
        }
    }

    #[test]
    fn inline_trigonometry_keeps_the_standard_signs_at_zeros_and_axes() {
        for (y, x) in [
            (0.0f32, 0.0f32),
            (-0.0, 0.0),
            (0.0, -0.0),
            (-0.0, -0.0),
            (0.0, -1.0),
            (-0.0, -1.0),
            (1.0, 0.0),
            (-1.0, 0.0),
        ] {
            assert_eq!(atan2(y, x), y.atan2(x), "atan2({y}, {x})");
        }
        assert!(sin_cos(1e30).0.is_finite());
        assert_eq!(acos(1.0), 0.0);
    }

    #[test]
    fn packed_roots_and_reciprocals_match_the_scalar_operations() {
        let v = [2.0f32, 0.3, 1e-20, 12345.678];
        let (r, q) = (sqrt4(v), recip4(v));
        for i in 0..4 {
            assert_eq!(r[i].to_bits(), v[i].sqrt().to_bits());
            assert_eq!(q[i].to_bits(), (1.0 / v[i]).to_bits());
        }
    }

    #[test]
    fn antiparallel_vectors_give_a_half_turn() {
        let q = rotation_between(Vec3::X, -Vec3::X);
        assert!((q * Vec3::X + Vec3::X).length() < 1e-5);
    }
}
