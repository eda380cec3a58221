//! Clip sampling: the local transforms a [`Clip`] gives its joints at one time,
//! with glTF 2.0's interpolation semantics, plus clip validation.
//!
//! Two entry points give identical results:
//!
//! * [`sample`] keeps a [`SamplingCursor`] between calls. Sequential playback
//!   walks forward from the key found last time, so finding the key pair is
//!   O(1) amortized per track; a jump backwards or far ahead falls back to a
//!   binary search over the part of the track that can hold the answer.
//! * [`sample_at`] has no memory and binary-searches every track.
//!
//! Both only locate the key pair differently; the interpolation code is
//! shared, so their outputs agree bit for bit. Neither allocates.
//!
//! Semantics (glTF 2.0, appendix C): before the first key a track holds its
//! first value, after the last key its last value; `Step` holds the earlier
//! key; `Linear` lerps vectors and slerps rotations along the shortest arc;
//! `CubicSpline` evaluates the Hermite spline with the out-tangent of the
//! earlier key and the in-tangent of the later key, both scaled by the key
//! interval. Rotations are normalized after every interpolation.
//!
//! A clip that passed [`validate_clip`] for a skeleton of `joint_count` joints
//! never makes sampling panic. Unvalidated clips do not panic either: tracks
//! with too few values or a joint outside the pose are skipped.

use std::ops::{Add, Mul, Sub};

use glam::{Quat, Vec3, Vec4};
use thiserror::Error;

use crate::clip::{Clip, Interpolation, Track};
use crate::ik::math;
use crate::transform::Transform;

/// How a time outside `[0, duration]` is brought back into the clip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrap {
    /// The clip repeats: time is taken modulo the duration into
    /// `[0, duration)`, negative times included.
    Loop,
    /// The clip holds its ends: time is clamped to `[0, duration]`.
    Clamp,
}

/// The largest number of keys [`sample`] steps over one by one before it
/// switches to a binary search.
///
/// At 30 keys per second and 60 frames per second playback advances by at
/// most one key per frame; four steps cover playback up to eight times faster
/// than real time while a genuine jump still costs only a logarithmic search.
pub const MAX_CURSOR_WALK: usize = 4;

/// Maps a time in seconds onto the clip's time line according to `wrap`.
///
/// The result always lies in `[0, duration]` and is finite: a non-finite or
/// negative duration counts as zero, a NaN time as zero, and for
/// [`Wrap::Loop`] an infinite time as zero. With [`Wrap::Loop`] the result is
/// strictly below `duration` unless the duration is zero.
pub fn wrap_time(time: f32, duration: f32, wrap: Wrap) -> f32 {
    let duration = if duration.is_finite() && duration > 0.0 {
        duration
    } else {
        return 0.0;
    };
    if time.is_nan() {
        return 0.0;
    }
    match wrap {
        Wrap::Clamp => time.clamp(0.0, duration),
        Wrap::Loop => {
            // Playback's usual times, at most one loop ahead: the remainder
            // is one exact subtraction (Sterbenz: `time - duration` is
            // representable for duration ≤ time < 2·duration), bit for bit
            // what `rem_euclid` returns, without its software `fmodf`.
            if (0.0..duration).contains(&time) {
                return time;
            }
            if time >= duration && time < 2.0 * duration {
                return time - duration;
            }
            if !time.is_finite() {
                return 0.0;
            }
            let t = time.rem_euclid(duration);
            // `rem_euclid` may round up to exactly `duration` for tiny negative times.
            if t >= duration { 0.0 } else { t }
        }
    }
}

/// Which transform property a track animates; used in error reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// A translation track.
    Translation,
    /// A rotation track.
    Rotation,
    /// A scale track.
    Scale,
}

impl std::fmt::Display for Property {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Property::Translation => "translation",
            Property::Rotation => "rotation",
            Property::Scale => "scale",
        })
    }
}

/// Why a clip cannot be sampled safely for a given skeleton.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ClipError {
    /// The duration is negative, NaN or infinite.
    #[error("clip '{clip}': duration {duration} is not a finite non-negative number of seconds")]
    BadDuration {
        /// The clip's name.
        clip: String,
        /// The offending duration.
        duration: f32,
    },
    /// A track animates a joint the skeleton does not have.
    #[error(
        "clip '{clip}': {property} track {track} animates joint {joint}, but the skeleton has {joint_count} joints"
    )]
    JointOutOfRange {
        /// The clip's name.
        clip: String,
        /// The animated property.
        property: Property,
        /// Index of the track within its property's list.
        track: usize,
        /// The joint it names.
        joint: u16,
        /// The skeleton's joint count.
        joint_count: usize,
    },
    /// A track has no keys.
    #[error("clip '{clip}': {property} track {track} has no keys")]
    EmptyTrack {
        /// The clip's name.
        clip: String,
        /// The animated property.
        property: Property,
        /// Index of the track within its property's list.
        track: usize,
    },
    /// A key time is NaN, infinite, negative or after the clip's duration.
    #[error(
        "clip '{clip}': {property} track {track} key {key} has time {time}, outside [0, {duration}]"
    )]
    KeyTimeOutOfRange {
        /// The clip's name.
        clip: String,
        /// The animated property.
        property: Property,
        /// Index of the track within its property's list.
        track: usize,
        /// Index of the key.
        key: usize,
        /// The offending time in seconds.
        time: f32,
        /// The clip's duration in seconds.
        duration: f32,
    },
    /// A key time is not strictly greater than the one before it.
    #[error(
        "clip '{clip}': {property} track {track} key {key} at {time} s does not come after the previous key"
    )]
    TimesNotIncreasing {
        /// The clip's name.
        clip: String,
        /// The animated property.
        property: Property,
        /// Index of the track within its property's list.
        track: usize,
        /// Index of the key that is not later than its predecessor.
        key: usize,
        /// Its time in seconds.
        time: f32,
    },
    /// The number of values does not match the number of keys (three per key
    /// for cubic splines).
    #[error(
        "clip '{clip}': {property} track {track} has {found} values for {keys} keys, expected {expected}"
    )]
    ValueCount {
        /// The clip's name.
        clip: String,
        /// The animated property.
        property: Property,
        /// Index of the track within its property's list.
        track: usize,
        /// Number of keys.
        keys: usize,
        /// Number of values expected.
        expected: usize,
        /// Number of values found.
        found: usize,
    },
    /// A value or tangent holds NaN or infinity.
    #[error("clip '{clip}': {property} track {track} value {index} is not finite")]
    NonFiniteValue {
        /// The clip's name.
        clip: String,
        /// The animated property.
        property: Property,
        /// Index of the track within its property's list.
        track: usize,
        /// Index of the value (tangents included for cubic splines).
        index: usize,
    },
}

/// Checks that a clip can be sampled into a pose of `joint_count` joints:
/// every track names a joint below `joint_count`, has at least one key, key
/// times are finite, within `[0, duration]` and strictly increasing, the value
/// count matches the key count (three values per key for cubic splines), and
/// every value is finite. The duration must be finite and non-negative.
///
/// Sampling a validated clip into a pose of `joint_count` joints never panics
/// and never produces NaN.
pub fn validate_clip(clip: &Clip, joint_count: usize) -> Result<(), ClipError> {
    if !clip.duration.is_finite() || clip.duration < 0.0 {
        return Err(ClipError::BadDuration {
            clip: clip.name.clone(),
            duration: clip.duration,
        });
    }
    for (i, track) in clip.translations.iter().enumerate() {
        validate_track(clip, Property::Translation, i, track, joint_count, |v| {
            v.is_finite()
        })?;
    }
    for (i, track) in clip.rotations.iter().enumerate() {
        validate_track(clip, Property::Rotation, i, track, joint_count, |q| {
            q.is_finite()
        })?;
    }
    for (i, track) in clip.scales.iter().enumerate() {
        validate_track(clip, Property::Scale, i, track, joint_count, |v| {
            v.is_finite()
        })?;
    }
    Ok(())
}

fn validate_track<T>(
    clip: &Clip,
    property: Property,
    track_index: usize,
    track: &Track<T>,
    joint_count: usize,
    finite: impl Fn(&T) -> bool,
) -> Result<(), ClipError> {
    if track.joint as usize >= joint_count {
        return Err(ClipError::JointOutOfRange {
            clip: clip.name.clone(),
            property,
            track: track_index,
            joint: track.joint,
            joint_count,
        });
    }
    if track.times.is_empty() {
        return Err(ClipError::EmptyTrack {
            clip: clip.name.clone(),
            property,
            track: track_index,
        });
    }
    for (key, &time) in track.times.iter().enumerate() {
        if !(time.is_finite() && time >= 0.0 && time <= clip.duration) {
            return Err(ClipError::KeyTimeOutOfRange {
                clip: clip.name.clone(),
                property,
                track: track_index,
                key,
                time,
                duration: clip.duration,
            });
        }
        if key > 0 && time <= track.times[key - 1] {
            return Err(ClipError::TimesNotIncreasing {
                clip: clip.name.clone(),
                property,
                track: track_index,
                key,
                time,
            });
        }
    }
    let keys = track.times.len();
    let expected = match track.interpolation {
        Interpolation::CubicSpline => keys * 3,
        Interpolation::Step | Interpolation::Linear => keys,
    };
    if track.values.len() != expected {
        return Err(ClipError::ValueCount {
            clip: clip.name.clone(),
            property,
            track: track_index,
            keys,
            expected,
            found: track.values.len(),
        });
    }
    if let Some(index) = track.values.iter().position(|v| !finite(v)) {
        return Err(ClipError::NonFiniteValue {
            clip: clip.name.clone(),
            property,
            track: track_index,
            index,
        });
    }
    Ok(())
}

/// The shape of a clip as far as a [`SamplingCursor`] cares: its track
/// counts per property. (Key counts need no check: a cached key index that
/// does not fit its track only costs [`seek`] a binary search.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct ClipShape {
    translations: usize,
    rotations: usize,
    scales: usize,
}

impl ClipShape {
    fn of(clip: &Clip) -> Self {
        Self {
            translations: clip.translations.len(),
            rotations: clip.rotations.len(),
            scales: clip.scales.len(),
        }
    }

    fn tracks(&self) -> usize {
        self.translations + self.rotations + self.scales
    }
}

/// Per-track memory of the key found by the previous [`sample`] call, so that
/// sequential playback finds its keys without searching.
///
/// A cursor is built for one clip. Used with a clip of a different shape
/// (track counts) it notices and resets itself, which is the only time it
/// allocates. Used with another clip of the same shape it
/// stays correct: every cached index is checked against the track before use,
/// and a stale one merely costs a binary search. A [`crate::PackedClip`]
/// ([`crate::sample_packed`]) needs only its one key index:
/// `SamplingCursor::default()` serves it without allocating.
#[derive(Clone, Debug, Default)]
pub struct SamplingCursor {
    shape: ClipShape,
    /// For every track (translations, then rotations, then scales): the
    /// number of keys whose time is at or before the last sampled time.
    next_key: Vec<u32>,
    /// The same for a [`crate::PackedClip`], whose tracks share their keys
    /// ([`crate::sample_packed`]): one index for the whole clip.
    pub(crate) shared_key: u32,
}

impl SamplingCursor {
    /// A cursor for `clip`, positioned at its start.
    pub fn new(clip: &Clip) -> Self {
        let shape = ClipShape::of(clip);
        Self {
            shape,
            next_key: vec![0; shape.tracks()],
            shared_key: 0,
        }
    }

    /// Forgets the cached keys; the next [`sample`] searches every track.
    pub fn reset(&mut self) {
        self.next_key.fill(0);
        self.shared_key = 0;
    }

    /// Rebuilds the cursor when `clip` does not have the shape it was built for.
    fn fit(&mut self, clip: &Clip) {
        let shape = ClipShape::of(clip);
        if shape != self.shape || self.next_key.len() != shape.tracks() {
            self.shape = shape;
            self.next_key.clear();
            self.next_key.resize(shape.tracks(), 0);
        }
    }
}

/// Number of keys at or before `t`, found by binary search in `times[lo..hi]`
/// (the caller knows the answer lies in `lo..=hi`).
#[inline]
fn search(times: &[f32], lo: usize, hi: usize, t: f32) -> usize {
    lo + times[lo..hi].partition_point(|&k| k <= t)
}

/// Number of keys at or before `t`, starting from a cached guess.
///
/// Returns exactly what `search(times, 0, len, t)` returns for sorted times.
#[inline]
pub(crate) fn seek(times: &[f32], cached: usize, t: f32) -> usize {
    let n = times.len();
    let mut idx = cached.min(n);
    if idx > 0 && times[idx - 1] > t {
        // Time went backwards: the answer lies before the cached key.
        return search(times, 0, idx - 1, t);
    }
    let mut steps = 0;
    while idx < n && times[idx] <= t {
        idx += 1;
        steps += 1;
        if steps == MAX_CURSOR_WALK {
            return search(times, idx, n, t);
        }
    }
    idx
}

/// The values a track interpolates between at one time: either one value
/// held as is, or a key pair and the normalized position between them.
enum Segment {
    /// Hold the value with this index into `values`.
    Hold(usize),
    /// Interpolate from key `k` to key `k + 1`; `u` in `[0, 1]`, `dt` the key
    /// interval in seconds.
    Between { k: usize, u: f32, dt: f32 },
}

/// Where `t` falls in a track, given the number of keys at or before it.
/// `None` when the track's values are too few for its keys (an unvalidated
/// clip), so the caller skips it.
#[inline]
fn segment<T>(track: &Track<T>, idx: usize, t: f32) -> Option<Segment> {
    let n = track.times.len();
    let cubic = track.interpolation == Interpolation::CubicSpline;
    let needed = if cubic { n * 3 } else { n };
    if n == 0 || track.values.len() < needed {
        return None;
    }
    // Index of a key's value: the middle of the three cubic entries.
    let value = |k: usize| if cubic { 3 * k + 1 } else { k };
    if idx == 0 {
        return Some(Segment::Hold(value(0)));
    }
    if idx >= n {
        return Some(Segment::Hold(value(n - 1)));
    }
    let k = idx - 1;
    if track.interpolation == Interpolation::Step {
        return Some(Segment::Hold(k));
    }
    let dt = track.times[k + 1] - track.times[k];
    let u = if dt > 0.0 && dt.is_finite() {
        ((t - track.times[k]) / dt).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Some(Segment::Between { k, u, dt })
}

/// Hermite basis weights for `u` in `[0, 1]`: value at k, out-tangent of k,
/// value at k+1, in-tangent of k+1 (the tangent weights still need the key
/// interval as a factor).
#[inline]
fn hermite(u: f32) -> [f32; 4] {
    let u2 = u * u;
    let u3 = u2 * u;
    [
        2.0 * u3 - 3.0 * u2 + 1.0,
        u3 - 2.0 * u2 + u,
        -2.0 * u3 + 3.0 * u2,
        u3 - u2,
    ]
}

/// Samples a vector (translation or scale) track.
#[inline]
fn sample_vec3(track: &Track<Vec3>, idx: usize, t: f32) -> Option<Vec3> {
    Some(match segment(track, idx, t)? {
        Segment::Hold(i) => track.values[i],
        Segment::Between { k, u, dt } => match track.interpolation {
            Interpolation::CubicSpline => {
                let [h0, h1, h2, h3] = hermite(u);
                let v = &track.values;
                v[3 * k + 1] * h0
                    + v[3 * k + 2] * (h1 * dt)
                    + v[3 * k + 4] * h2
                    + v[3 * k + 3] * (h3 * dt)
            }
            _ => track.values[k].lerp(track.values[k + 1], u),
        },
    })
}

/// Samples a rotation track; the result is a unit quaternion (the identity
/// when the keys are degenerate, e.g. all-zero).
#[inline]
fn sample_quat(track: &Track<Quat>, idx: usize, t: f32) -> Option<Quat> {
    let q = match segment(track, idx, t)? {
        Segment::Hold(i) => Vec4::from(track.values[i]),
        Segment::Between { k, u, dt } => match track.interpolation {
            Interpolation::CubicSpline => {
                let [h0, h1, h2, h3] = hermite(u);
                let v = |i: usize| Vec4::from(track.values[i]);
                v(3 * k + 1) * h0
                    + v(3 * k + 2) * (h1 * dt)
                    + v(3 * k + 4) * h2
                    + v(3 * k + 3) * (h3 * dt)
            }
            _ => slerp_shortest(track.values[k], track.values[k + 1], u),
        },
    };
    Some(normalize_quat(q))
}

/// Above this cosine between two rotations, [`slerp_shortest`] interpolates
/// linearly: the arc is under about 1.8° and `sin` of the angle is too small
/// to divide by without losing precision, while the chord and the arc differ
/// by less than 1e-7 after normalization.
pub(crate) const SLERP_LINEAR_COS: f32 = 0.9995;

/// From this cosine up to [`SLERP_LINEAR_COS`], [`slerp_shortest`] takes its
/// weights from short power series: θ ≤ 0.32 rad there (a turn of up to 36°
/// between two keys), where the series' truncation is below 1e-7.
pub(crate) const SLERP_SERIES_COS: f32 = 0.95;

/// Spherical interpolation along the shorter arc (the second rotation's sign
/// is flipped when the two lie in opposite hemispheres). Returns an
/// unnormalized 4-vector; the caller normalizes.
///
/// The weights are `sin((1-u)θ)` and `sin(uθ)` without the common factor
/// `1/sin θ`, which the caller's normalization removes; the angle and the
/// sines come from the inline series of [`crate::ik::math`] (a few ulp from
/// the standard library, no calls into libm): this is the hottest function of
/// clip sampling, always inlined so that the out-of-order core overlaps one
/// track's normalization (a root and a division) with the next track's work.
#[inline(always)]
pub(crate) fn slerp_shortest(a: Quat, b: Quat, u: f32) -> Vec4 {
    let a = Vec4::from(a);
    let mut b = Vec4::from(b);
    let mut cos = a.dot(b);
    if cos < 0.0 {
        b = -b;
        cos = -cos;
    }
    if cos > SLERP_LINEAR_COS {
        return a.lerp(b, u);
    }
    if cos >= SLERP_SERIES_COS {
        // Close keys (the common case at dense key rates): θ² from a series
        // in 1 − cos θ, then sin(kθ)/θ = k·S(k²θ²), the common factor 1/θ
        // left to the caller's normalization. No division, root or
        // trigonometry; within 1e-7 of the trigonometric form (tested).
        let theta2 = theta2_series_of(1.0 - cos);
        let v = 1.0 - u;
        return a * (v * sinc_series_of(v * v * theta2)) + b * (u * sinc_series_of(u * u * theta2));
    }
    // Keys are unit quaternions, so `cos` is at most 1 (clamped against
    // rounding). One sine-cosine pair gives both weights:
    // sin((1-u)θ) = sin θ cos uθ − cos θ sin uθ.
    let cos = cos.min(1.0);
    let sin = ((1.0 - cos) * (1.0 + cos)).sqrt();
    let (su, cu) = math::sin_cos(u * math::atan2(sin, cos));
    a * (sin * cu - cos * su) + b * su
}

/// θ² of the angle θ with `x` = 1 − cos θ, by its series to x⁵ (for
/// [`slerp_shortest`]'s close keys, `x` ≤ 0.05): for `f32`, or for four
/// pairs of keys at once in a `Vec4` ([`crate::sample_packed`]), with the
/// same operations in the same order, so the same bits.
#[inline(always)]
pub(crate) fn theta2_series_of<T>(x: T) -> T
where
    T: Copy + Mul<Output = T> + Mul<f32, Output = T>,
    f32: Add<T, Output = T>,
{
    x * (2.0 + x * (1.0 / 3.0 + x * (4.0 / 45.0 + x * (1.0 / 35.0 + x * (32.0 / 1575.0)))))
}

/// sin(√z)/√z by its series to z⁴ (z = (kθ)² ≤ 0.1 in [`slerp_shortest`]),
/// generic like [`theta2_series_of`].
#[inline(always)]
pub(crate) fn sinc_series_of<T>(z: T) -> T
where
    T: Copy + Mul<Output = T> + Mul<f32, Output = T>,
    f32: Sub<T, Output = T>,
{
    1.0 - z * (1.0 / 6.0 - z * (1.0 / 120.0 - z * (1.0 / 5040.0 - z * (1.0 / 362_880.0))))
}

/// Normalizes a 4-vector into a rotation, falling back to the identity when
/// it has no usable length.
#[inline]
pub(crate) fn normalize_quat(q: Vec4) -> Quat {
    let len2 = q.length_squared();
    if len2.is_finite() && len2 > f32::MIN_POSITIVE {
        Quat::from_vec4(q / len2.sqrt())
    } else {
        Quat::IDENTITY
    }
}

/// Writes the clip's values at `time` into `locals`, using and updating
/// `cursor` to find keys quickly during sequential playback.
///
/// `time` is in seconds and is first mapped by [`wrap_time`]. Only the
/// animated properties of animated joints are written; everything else in
/// `locals` (normally the rest pose) is left as it was. Tracks whose joint is
/// outside `locals` are skipped. The result equals [`sample_at`]'s exactly.
/// Allocates nothing, unless `cursor` was built for a clip of a different
/// shape and must be rebuilt.
pub fn sample(
    clip: &Clip,
    time: f32,
    wrap: Wrap,
    cursor: &mut SamplingCursor,
    locals: &mut [Transform],
) {
    cursor.fit(clip);
    let t = wrap_time(time, clip.duration, wrap);
    let (tc, rest) = cursor.next_key.split_at_mut(clip.translations.len());
    let (rc, sc) = rest.split_at_mut(clip.rotations.len());
    for (track, c) in clip.translations.iter().zip(tc) {
        let idx = seek(&track.times, *c as usize, t);
        *c = idx as u32;
        if let (Some(local), Some(v)) = (
            locals.get_mut(track.joint as usize),
            sample_vec3(track, idx, t),
        ) {
            local.translation = v;
        }
    }
    // Each interpolated rotation is normalized one track later, after the
    // next track's interpolation: the root and division of one track then
    // overlap the next track's work instead of holding up the loop (same
    // values, same order of writes).
    let mut pending: Option<(usize, Vec4)> = None;
    let flush = |pending: &mut Option<(usize, Vec4)>, locals: &mut [Transform]| {
        if let Some((joint, q)) = pending.take() {
            locals[joint].rotation = normalize_quat(q);
        }
    };
    for (track, c) in clip.rotations.iter().zip(rc) {
        let idx = seek(&track.times, *c as usize, t);
        *c = idx as u32;
        let joint = track.joint as usize;
        if joint >= locals.len() {
            continue;
        }
        // The common case inline: linear keys on both sides of `t` (the
        // same arithmetic as `sample_quat`, without its case analysis).
        let (times, values) = (&track.times, &track.values);
        if track.interpolation == Interpolation::Linear
            && idx > 0
            && idx < times.len()
            && values.len() >= times.len()
        {
            let (t0, t1) = (times[idx - 1], times[idx]);
            let dt = t1 - t0;
            if dt > 0.0 && dt.is_finite() {
                let u = ((t - t0) / dt).clamp(0.0, 1.0);
                let q = slerp_shortest(values[idx - 1], values[idx], u);
                flush(&mut pending, locals);
                pending = Some((joint, q));
                continue;
            }
        }
        flush(&mut pending, locals);
        if let Some(q) = sample_quat(track, idx, t) {
            locals[joint].rotation = q;
        }
    }
    flush(&mut pending, locals);
    for (track, c) in clip.scales.iter().zip(sc) {
        let idx = seek(&track.times, *c as usize, t);
        *c = idx as u32;
        if let (Some(local), Some(v)) = (
            locals.get_mut(track.joint as usize),
            sample_vec3(track, idx, t),
        ) {
            local.scale = v;
        }
    }
}

/// Writes the clip's values at `time` into `locals` without a cursor (every
/// track is binary-searched).
///
/// Same contract and same result as [`sample`]; meant for one-off queries
/// such as `ironstep inspect --time`. Allocates nothing.
pub fn sample_at(clip: &Clip, time: f32, wrap: Wrap, locals: &mut [Transform]) {
    let t = wrap_time(time, clip.duration, wrap);
    for track in &clip.translations {
        let idx = search(&track.times, 0, track.times.len(), t);
        if let (Some(local), Some(v)) = (
            locals.get_mut(track.joint as usize),
            sample_vec3(track, idx, t),
        ) {
            local.translation = v;
        }
    }
    for track in &clip.rotations {
        let idx = search(&track.times, 0, track.times.len(), t);
        if let (Some(local), Some(q)) = (
            locals.get_mut(track.joint as usize),
            sample_quat(track, idx, t),
        ) {
            local.rotation = q;
        }
    }
    for track in &clip.scales {
        let idx = search(&track.times, 0, track.times.len(), t);
        if let (Some(local), Some(v)) = (
            locals.get_mut(track.joint as usize),
            sample_vec3(track, idx, t),
        ) {
            local.scale = v;
        }
    }
}

/// The local transform of one joint at `time`: `base` with every property
/// the clip animates for `joint` replaced by its sampled value.
///
/// Cheap for clips with few tracks per joint; used for root motion. When
/// several tracks animate the same property of the joint, the last one wins,
/// as in [`sample`].
pub fn sample_joint(
    clip: &Clip,
    joint: usize,
    time: f32,
    wrap: Wrap,
    base: Transform,
) -> Transform {
    let t = wrap_time(time, clip.duration, wrap);
    let mut out = base;
    for track in clip
        .translations
        .iter()
        .filter(|k| k.joint as usize == joint)
    {
        let idx = search(&track.times, 0, track.times.len(), t);
        if let Some(v) = sample_vec3(track, idx, t) {
            out.translation = v;
        }
    }
    for track in clip.rotations.iter().filter(|k| k.joint as usize == joint) {
        let idx = search(&track.times, 0, track.times.len(), t);
        if let Some(q) = sample_quat(track, idx, t) {
            out.rotation = q;
        }
    }
    for track in clip.scales.iter().filter(|k| k.joint as usize == joint) {
        let idx = search(&track.times, 0, track.times.len(), t);
        if let Some(v) = sample_vec3(track, idx, t) {
            out.scale = v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn vtrack(
        joint: u16,
        interpolation: Interpolation,
        times: &[f32],
        values: &[Vec3],
    ) -> Track<Vec3> {
        Track {
            joint,
            interpolation,
            times: times.to_vec(),
            values: values.to_vec(),
        }
    }

    fn qtrack(
        joint: u16,
        interpolation: Interpolation,
        times: &[f32],
        values: &[Quat],
    ) -> Track<Quat> {
        Track {
            joint,
            interpolation,
            times: times.to_vec(),
            values: values.to_vec(),
        }
    }

    fn clip(duration: f32, translations: Vec<Track<Vec3>>, rotations: Vec<Track<Quat>>) -> Clip {
        Clip {
            name: "test".into(),
            duration,
            translations,
            rotations,
            scales: vec![],
        }
    }

    fn sample_translation(c: &Clip, t: f32, wrap: Wrap) -> Vec3 {
        let mut locals = [Transform::IDENTITY; 2];
        sample_at(c, t, wrap, &mut locals);
        locals[0].translation
    }

    fn sample_rotation(c: &Clip, t: f32) -> Quat {
        let mut locals = [Transform::IDENTITY; 2];
        sample_at(c, t, Wrap::Clamp, &mut locals);
        locals[0].rotation
    }

    #[test]
    fn cubic_translation_matches_hand_computed_hermite() {
        // Keys at t=1 (v=1, out-tangent 2) and t=3 (in-tangent -1, v=5); interval 2 s.
        let c = clip(
            3.0,
            vec![vtrack(
                0,
                Interpolation::CubicSpline,
                &[1.0, 3.0],
                &[
                    Vec3::new(9.0, 0.0, 0.0), // in-tangent of key 0 (unused between keys)
                    Vec3::new(1.0, 0.0, 0.0),
                    Vec3::new(2.0, 0.0, 0.0),
                    Vec3::new(-1.0, 0.0, 0.0),
                    Vec3::new(5.0, 0.0, 0.0),
                    Vec3::new(7.0, 0.0, 0.0), // out-tangent of key 1 (unused)
                ],
            )],
            vec![],
        );
        // t = 2 s -> u = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125.
        // p = 0.5*1 + 0.125*2*2 + 0.5*5 + (-0.125)*(-1)*2 = 0.5 + 0.5 + 2.5 + 0.25 = 3.75.
        assert!((sample_translation(&c, 2.0, Wrap::Clamp).x - 3.75).abs() < 1e-6);
        // t = 1.5 s -> u = 0.25: h00 = 27/32, h10 = 9/64, h01 = 5/32, h11 = -3/64.
        // p = 27/32 + 9/64*2*2 + 5/32*5 + (-3/64)*(-1)*2 = 0.84375 + 0.5625 + 0.78125 + 0.09375 = 2.28125.
        assert!((sample_translation(&c, 1.5, Wrap::Clamp).x - 2.28125).abs() < 1e-6);
        // Ends hold the values, not the tangents.
        assert_eq!(sample_translation(&c, 0.0, Wrap::Clamp).x, 1.0);
        assert_eq!(sample_translation(&c, 3.0, Wrap::Clamp).x, 5.0);
    }

    #[test]
    fn step_holds_the_earlier_key() {
        let c = clip(
            2.0,
            vec![vtrack(
                0,
                Interpolation::Step,
                &[0.0, 1.0, 2.0],
                &[Vec3::X, Vec3::Y, Vec3::Z],
            )],
            vec![],
        );
        assert_eq!(sample_translation(&c, 0.0, Wrap::Clamp), Vec3::X);
        assert_eq!(sample_translation(&c, 0.999, Wrap::Clamp), Vec3::X);
        assert_eq!(sample_translation(&c, 1.0, Wrap::Clamp), Vec3::Y);
        assert_eq!(sample_translation(&c, 1.5, Wrap::Clamp), Vec3::Y);
        assert_eq!(sample_translation(&c, 2.0, Wrap::Clamp), Vec3::Z);
    }

    #[test]
    fn before_first_and_after_last_key_hold_end_values() {
        let c = clip(
            4.0,
            vec![vtrack(
                0,
                Interpolation::Linear,
                &[1.0, 3.0],
                &[Vec3::new(2.0, 0.0, 0.0), Vec3::new(6.0, 0.0, 0.0)],
            )],
            vec![],
        );
        assert_eq!(sample_translation(&c, 0.0, Wrap::Clamp).x, 2.0);
        assert_eq!(sample_translation(&c, 0.5, Wrap::Clamp).x, 2.0);
        assert_eq!(sample_translation(&c, 3.5, Wrap::Clamp).x, 6.0);
        assert_eq!(sample_translation(&c, 100.0, Wrap::Clamp).x, 6.0);
        assert_eq!(sample_translation(&c, -100.0, Wrap::Clamp).x, 2.0);
    }

    #[test]
    fn linear_between_keys_interpolates_proportionally() {
        let c = clip(
            3.0,
            vec![vtrack(
                0,
                Interpolation::Linear,
                &[1.0, 3.0],
                &[Vec3::new(2.0, -4.0, 0.0), Vec3::new(6.0, 4.0, 1.0)],
            )],
            vec![],
        );
        // 1.5 s is a quarter of the way from 1 s to 3 s.
        let v = sample_translation(&c, 1.5, Wrap::Clamp);
        assert!(v.abs_diff_eq(Vec3::new(3.0, -2.0, 0.25), 1e-6), "{v}");
    }

    #[test]
    fn looping_across_the_end_wraps_to_the_start() {
        let c = clip(
            2.0,
            vec![vtrack(
                0,
                Interpolation::Linear,
                &[0.0, 1.0, 2.0],
                &[
                    Vec3::ZERO,
                    Vec3::new(10.0, 0.0, 0.0),
                    Vec3::new(4.0, 0.0, 0.0),
                ],
            )],
            vec![],
        );
        for eps in [0.001_f32, 0.25, 0.5, 1.7] {
            let wrapped = sample_translation(&c, 2.0 + eps, Wrap::Loop);
            let direct = sample_translation(&c, eps, Wrap::Loop);
            assert!(
                wrapped.abs_diff_eq(direct, 1e-4),
                "eps {eps}: {wrapped} vs {direct}"
            );
            let negative = sample_translation(&c, eps - 2.0, Wrap::Loop);
            assert!(
                negative.abs_diff_eq(direct, 1e-4),
                "eps {eps}: {negative} vs {direct}"
            );
        }
        // 0.1 s into the clip: a tenth of the way from 0 to 10.
        assert!((sample_translation(&c, 4.1, Wrap::Loop).x - 1.0).abs() < 1e-3);
        // Clamp holds the last value instead.
        assert_eq!(sample_translation(&c, 2.5, Wrap::Clamp).x, 4.0);
    }

    #[test]
    fn wrap_time_stays_in_range_for_odd_inputs() {
        assert_eq!(wrap_time(f32::NAN, 2.0, Wrap::Loop), 0.0);
        assert_eq!(wrap_time(f32::NAN, 2.0, Wrap::Clamp), 0.0);
        assert_eq!(wrap_time(f32::INFINITY, 2.0, Wrap::Clamp), 2.0);
        assert_eq!(wrap_time(f32::INFINITY, 2.0, Wrap::Loop), 0.0);
        assert_eq!(wrap_time(1.0, 0.0, Wrap::Loop), 0.0);
        assert_eq!(wrap_time(1.0, f32::NAN, Wrap::Loop), 0.0);
        assert_eq!(wrap_time(-0.5, 2.0, Wrap::Loop), 1.5);
        assert!(wrap_time(-1e-9, 2.0, Wrap::Loop) < 2.0);
    }

    #[test]
    fn linear_rotation_takes_the_shortest_path() {
        // Key 1 is a 170° turn about Z written with a negative w, i.e. the
        // same rotation as -q: the short way from identity is 170°, and the
        // midpoint is an 85° turn about Z (not 95° the other way round).
        let q1 = -Quat::from_rotation_z(170f32.to_radians());
        assert!(Quat::IDENTITY.dot(q1) < 0.0);
        let c = clip(
            1.0,
            vec![],
            vec![qtrack(
                0,
                Interpolation::Linear,
                &[0.0, 1.0],
                &[Quat::IDENTITY, q1],
            )],
        );
        let mid = sample_rotation(&c, 0.5);
        let expect = Quat::from_rotation_z(85f32.to_radians());
        assert!(mid.dot(expect).abs() > 1.0 - 1e-6, "{mid} vs {expect}");
        // Slerp: a quarter of the way is 42.5°, not the chord's angle.
        let quarter = sample_rotation(&c, 0.25);
        let expect = Quat::from_rotation_z(42.5f32.to_radians());
        assert!(
            quarter.dot(expect).abs() > 1.0 - 1e-6,
            "{quarter} vs {expect}"
        );
    }

    #[test]
    fn cubic_rotation_is_normalized() {
        // Two keys 90° apart about X with zero tangents: the spline value at
        // the midpoint is the chord midpoint, of length cos(22.5°) < 1, and
        // must come out normalized as the 45° rotation.
        let a = Quat::IDENTITY;
        let b = Quat::from_rotation_x(90f32.to_radians());
        let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        let c = clip(
            1.0,
            vec![],
            vec![qtrack(
                0,
                Interpolation::CubicSpline,
                &[0.0, 1.0],
                &[zero, a, zero, zero, b, zero],
            )],
        );
        let mid = sample_rotation(&c, 0.5);
        assert!((mid.length() - 1.0).abs() < 1e-6);
        // Hermite with zero tangents at u=0.5 weighs both values 0.5: chord midpoint.
        let s = (0.5f32).sqrt();
        let chord = Vec4::new(0.5 * s, 0.0, 0.0, 0.5 + 0.5 * s);
        let expect = chord / chord.length();
        assert!(Vec4::from(mid).abs_diff_eq(expect, 1e-6), "{mid}");
        assert!(mid.dot(Quat::from_rotation_x(45f32.to_radians())) > 1.0 - 1e-6);
    }

    #[test]
    fn one_key_tracks_are_constant_and_other_joints_untouched() {
        let c = Clip {
            name: "const".into(),
            duration: 0.0,
            translations: vec![vtrack(
                1,
                Interpolation::Linear,
                &[0.0],
                &[Vec3::splat(3.0)],
            )],
            rotations: vec![],
            scales: vec![vtrack(
                1,
                Interpolation::CubicSpline,
                &[0.0],
                &[Vec3::ZERO, Vec3::splat(2.0), Vec3::ZERO],
            )],
        };
        let marker = Transform::from_translation(Vec3::new(7.0, 8.0, 9.0));
        for t in [-1.0, 0.0, 0.5, 10.0] {
            let mut locals = [marker; 2];
            sample_at(&c, t, Wrap::Loop, &mut locals);
            assert_eq!(locals[0], marker);
            assert_eq!(locals[1].translation, Vec3::splat(3.0));
            assert_eq!(locals[1].scale, Vec3::splat(2.0));
            assert_eq!(locals[1].rotation, Quat::IDENTITY);
        }
    }

    #[test]
    fn malformed_tracks_are_skipped_not_panicking() {
        let c = Clip {
            name: "bad".into(),
            duration: f32::NAN,
            translations: vec![
                vtrack(5, Interpolation::Linear, &[0.0, 1.0], &[Vec3::X, Vec3::Y]),
                vtrack(
                    0,
                    Interpolation::CubicSpline,
                    &[0.0, 1.0],
                    &[Vec3::X, Vec3::Y],
                ),
                vtrack(0, Interpolation::Linear, &[], &[]),
            ],
            rotations: vec![qtrack(
                1,
                Interpolation::Linear,
                &[1.0, 0.0],
                &[Quat::IDENTITY],
            )],
            scales: vec![],
        };
        let mut locals = [Transform::IDENTITY; 2];
        sample_at(&c, 0.5, Wrap::Loop, &mut locals);
        let mut cursor = SamplingCursor::new(&c);
        sample(&c, 0.5, Wrap::Clamp, &mut cursor, &mut locals);
        assert_eq!(locals, [Transform::IDENTITY; 2]);
        assert!(validate_clip(&c, 2).is_err());
    }

    #[test]
    fn validation_reports_each_kind_of_defect() {
        let good = clip(
            1.0,
            vec![vtrack(
                1,
                Interpolation::Linear,
                &[0.0, 1.0],
                &[Vec3::X, Vec3::Y],
            )],
            vec![qtrack(
                0,
                Interpolation::CubicSpline,
                &[0.5],
                &[Quat::IDENTITY; 3],
            )],
        );
        assert_eq!(validate_clip(&good, 2), Ok(()));
        assert!(matches!(
            validate_clip(&good, 1),
            Err(ClipError::JointOutOfRange {
                joint: 1,
                joint_count: 1,
                ..
            })
        ));
        let mut c = good.clone();
        c.duration = -1.0;
        assert!(matches!(
            validate_clip(&c, 2),
            Err(ClipError::BadDuration { .. })
        ));
        let mut c = good.clone();
        c.translations[0].times = vec![0.5, 0.5];
        assert!(matches!(
            validate_clip(&c, 2),
            Err(ClipError::TimesNotIncreasing { key: 1, .. })
        ));
        let mut c = good.clone();
        c.translations[0].times = vec![0.0, 1.5];
        assert!(matches!(
            validate_clip(&c, 2),
            Err(ClipError::KeyTimeOutOfRange { key: 1, .. })
        ));
        let mut c = good.clone();
        c.rotations[0].values.pop();
        assert!(matches!(
            validate_clip(&c, 2),
            Err(ClipError::ValueCount {
                expected: 3,
                found: 2,
                ..
            })
        ));
        let mut c = good.clone();
        c.translations[0].values[1].y = f32::INFINITY;
        assert!(matches!(
            validate_clip(&c, 2),
            Err(ClipError::NonFiniteValue { index: 1, .. })
        ));
        let mut c = good.clone();
        c.translations[0].times.clear();
        c.translations[0].values.clear();
        assert!(matches!(
            validate_clip(&c, 2),
            Err(ClipError::EmptyTrack { .. })
        ));
    }

    #[test]
    fn cursor_resets_for_a_clip_of_another_shape() {
        let a = clip(
            1.0,
            vec![vtrack(
                0,
                Interpolation::Linear,
                &[0.0, 1.0],
                &[Vec3::ZERO, Vec3::X],
            )],
            vec![],
        );
        let b = clip(
            1.0,
            vec![
                vtrack(
                    0,
                    Interpolation::Linear,
                    &[0.0, 1.0],
                    &[Vec3::ZERO, Vec3::Y],
                ),
                vtrack(1, Interpolation::Step, &[0.0, 0.5], &[Vec3::ZERO, Vec3::Z]),
            ],
            vec![],
        );
        let mut cursor = SamplingCursor::new(&a);
        let mut locals = [Transform::IDENTITY; 2];
        sample(&a, 0.9, Wrap::Clamp, &mut cursor, &mut locals);
        sample(&b, 0.75, Wrap::Clamp, &mut cursor, &mut locals);
        let mut expect = [Transform::IDENTITY; 2];
        sample_at(&b, 0.75, Wrap::Clamp, &mut expect);
        assert_eq!(locals, expect);
    }

    // ---- property tests -------------------------------------------------

    /// A random valid track: 1..40 keys with random positive gaps.
    fn arb_times() -> impl Strategy<Value = Vec<f32>> {
        (proptest::collection::vec(0.001f32..0.2, 1..40), 0.0f32..0.3).prop_map(|(gaps, start)| {
            let mut t = start;
            gaps.iter()
                .map(|g| {
                    let k = t;
                    t += g;
                    k
                })
                .collect()
        })
    }

    fn arb_interp() -> impl Strategy<Value = Interpolation> {
        prop_oneof![
            Just(Interpolation::Step),
            Just(Interpolation::Linear),
            Just(Interpolation::CubicSpline)
        ]
    }

    fn arb_vec3() -> impl Strategy<Value = Vec3> + Clone {
        (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }

    fn arb_quat() -> impl Strategy<Value = Quat> + Clone {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_map(|(x, y, z, w)| normalize_quat(Vec4::new(x, y, z, w)))
    }

    fn arb_track<T: std::fmt::Debug + Clone + 'static>(
        joints: u16,
        value: impl Strategy<Value = T> + Clone + 'static,
    ) -> impl Strategy<Value = Track<T>> {
        (0..joints, arb_interp(), arb_times()).prop_flat_map(
            move |(joint, interpolation, times)| {
                let count = if interpolation == Interpolation::CubicSpline {
                    times.len() * 3
                } else {
                    times.len()
                };
                proptest::collection::vec(value.clone(), count).prop_map(move |values| Track {
                    joint,
                    interpolation,
                    times: times.clone(),
                    values,
                })
            },
        )
    }

    fn arb_clip() -> impl Strategy<Value = Clip> {
        (
            proptest::collection::vec(arb_track(4, arb_vec3()), 0..3),
            proptest::collection::vec(arb_track(4, arb_quat()), 0..4),
            proptest::collection::vec(arb_track(4, arb_vec3()), 0..2),
        )
            .prop_map(|(translations, rotations, scales)| {
                let duration = translations
                    .iter()
                    .map(|t| *t.times.last().unwrap())
                    .chain(rotations.iter().map(|t| *t.times.last().unwrap()))
                    .chain(scales.iter().map(|t| *t.times.last().unwrap()))
                    .fold(0.0f32, f32::max);
                Clip {
                    name: "random".into(),
                    duration,
                    translations,
                    rotations,
                    scales,
                }
            })
    }

    /// Time steps: mostly small forward steps (playback), sometimes jumps
    /// back or far ahead.
    fn arb_steps() -> impl Strategy<Value = Vec<f32>> {
        proptest::collection::vec(
            prop_oneof![
                6 => 0.0f32..0.05,
                1 => -3.0f32..0.0,
                1 => 0.0f32..3.0,
            ],
            1..30,
        )
    }

    /// Slerp in f64 by its definition, for checking [`slerp_shortest`].
    fn reference_slerp(a: Quat, b: Quat, u: f64) -> [f64; 4] {
        let a = [a.x, a.y, a.z, a.w].map(f64::from);
        let mut b = [b.x, b.y, b.z, b.w].map(f64::from);
        if (0..4).map(|i| a[i] * b[i]).sum::<f64>() < 0.0 {
            b = b.map(|v| -v);
        }
        // The angle without cancellation near 0: 2·atan2(|a − b|, |a + b|).
        let norm = |v: [f64; 4]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let theta = 2.0
            * norm(std::array::from_fn(|i| a[i] - b[i]))
                .atan2(norm(std::array::from_fn(|i| a[i] + b[i])));
        if theta < 1e-12 {
            return a;
        }
        let (wa, wb) = (
            ((1.0 - u) * theta).sin() / theta.sin(),
            (u * theta).sin() / theta.sin(),
        );
        std::array::from_fn(|i| a[i] * wa + b[i] * wb)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// Looping playback's shortcuts (within the first two loops) give
        /// bit for bit what `rem_euclid` gives, around the loop points too.
        #[test]
        fn looping_wrap_equals_rem_euclid(
            duration in prop_oneof![1e-3f32..10.0, Just(1.05f32), Just(0.7f32)],
            loops in prop_oneof![-3.0f32..3.0, -1e-6f32..1e-6, 1.0f32 - 1e-6..1.0 + 1e-6, 2.0f32 - 1e-6..2.0 + 1e-6],
        ) {
            let time = duration * loops;
            let want = time.rem_euclid(duration);
            let want = if want >= duration { 0.0 } else { want };
            prop_assert_eq!(wrap_time(time, duration, Wrap::Loop).to_bits(), want.to_bits());
        }

        /// Every branch of the interpolation (linear, series, trigonometric)
        /// stays within 1e-6 of the exact slerp, for key pairs from nearly
        /// equal to opposite.
        #[test]
        fn slerp_matches_the_exact_slerp(
            a in arb_quat(),
            axis in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            angle in prop_oneof![0.0f32..0.07, 0.0f32..0.7, 0.0f32..std::f32::consts::TAU],
            u in 0.0f32..=1.0,
        ) {
            let axis = Vec3::new(axis.0, axis.1, axis.2).normalize_or(Vec3::X);
            let b = (Quat::from_axis_angle(axis, angle) * a).normalize();
            let got = normalize_quat(slerp_shortest(a, b, u));
            let want = reference_slerp(a, b, f64::from(u));
            let len = want.iter().map(|v| v * v).sum::<f64>().sqrt();
            let got = [got.x, got.y, got.z, got.w].map(f64::from);
            for i in 0..4 {
                prop_assert!((got[i] - want[i] / len).abs() < 1e-6, "{got:?} vs {want:?}");
            }
        }

        #[test]
        fn cursor_sampling_equals_binary_search_sampling(
            clip in arb_clip(),
            steps in arb_steps(),
            start in -1.0f32..1.0,
            looping in any::<bool>(),
        ) {
            prop_assert_eq!(validate_clip(&clip, 4), Ok(()));
            let wrap = if looping { Wrap::Loop } else { Wrap::Clamp };
            let mut cursor = SamplingCursor::new(&clip);
            let mut t = start;
            for step in steps {
                t += step;
                let mut with_cursor = [Transform::IDENTITY; 4];
                let mut searched = [Transform::IDENTITY; 4];
                sample(&clip, t, wrap, &mut cursor, &mut with_cursor);
                sample_at(&clip, t, wrap, &mut searched);
                prop_assert_eq!(with_cursor, searched);
                for l in &with_cursor {
                    prop_assert!(l.is_finite());
                    prop_assert!((l.rotation.length() - 1.0).abs() < 1e-5);
                }
            }
        }

        #[test]
        fn linear_samples_stay_between_their_keys(
            a in arb_vec3(), b in arb_vec3(), qa in arb_quat(), qb in arb_quat(), u in 0.0f32..=1.0,
        ) {
            let c = clip(
                1.0,
                vec![vtrack(0, Interpolation::Linear, &[0.0, 1.0], &[a, b])],
                vec![qtrack(0, Interpolation::Linear, &[0.0, 1.0], &[qa, qb])],
            );
            let mut locals = [Transform::IDENTITY; 1];
            sample_at(&c, u, Wrap::Clamp, &mut locals);
            let v = locals[0].translation;
            prop_assert!(v.cmpge(a.min(b) - 1e-5).all() && v.cmple(a.max(b) + 1e-5).all());
            // Slerp moves at constant angular speed along the short arc.
            let q = locals[0].rotation;
            let full = qa.angle_between(qb);
            prop_assert!((qa.angle_between(q) - u * full).abs() < 2e-3);
            prop_assert!((q.angle_between(qb) - (1.0 - u) * full).abs() < 2e-3);
        }
    }
}
