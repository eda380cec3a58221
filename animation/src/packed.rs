//! Packed clips: the runtime form of a [`Clip`] whose tracks all share one
//! key time line, sampled with one key search per clip instead of one per
//! track.
//!
//! Exporters that bake every channel at one rate write such clips, and so
//! does the knight's generator. [`PackedClip::pack`] keeps the shared key
//! times once and each property's values key by key: the values of every
//! rotation track at key `k` lie side by side (likewise translations and
//! scales), so a sample finds its key pair and interpolation weight once and
//! then reads two contiguous rows. Rotations are stored and interpolated
//! four tracks at a time, lane by lane (one vector holds the `x` of four
//! tracks, the next their `y`, and so on), with the per-track sampler's
//! operations in its order; a track whose keys lie far apart (the
//! trigonometric slerp, rare at baked key rates) is interpolated alone.
//! [`sample_packed`] gives exactly what
//! [`crate::sample`] gives for the clip it was packed from (the same
//! interpolation code on the same operands, bit for bit); clips that do not
//! pack (tracks with their own times, step or cubic tracks) are sampled with
//! [`crate::sample`]. Neither allocates.

use glam::{Mat4, Quat, Vec3, Vec4};

use crate::clip::{Clip, Interpolation, Track};
use crate::ik::math::sqrt4;
use crate::sampling::{
    SLERP_LINEAR_COS, SLERP_SERIES_COS, SamplingCursor, Wrap, normalize_quat, seek, sinc_series_of,
    slerp_shortest, theta2_series_of, wrap_time,
};
use crate::transform::Transform;

/// The values of four rotation tracks at one key, lane by lane: `x`, `y`,
/// `z` and `w` of the four (a group's lanes past the last track hold the
/// identity and are never written).
type Lanes = [Vec4; 4];

/// The rotation tracks, four to a group.
#[derive(Clone, Debug, Default, PartialEq)]
struct PackedRotations {
    /// The joint of each track, in the clip's track order.
    joints: Vec<u16>,
    /// `values[k * groups + g]` holds tracks `4g..4g + 4` at key `k`.
    values: Vec<Lanes>,
}

impl PackedRotations {
    /// Packs `tracks` (each with one value per key of `keys`).
    fn pack(tracks: &[Track<Quat>], keys: usize) -> Self {
        let groups = tracks.len().div_ceil(4);
        let mut values = Vec::with_capacity(groups * keys);
        for k in 0..keys {
            for g in 0..groups {
                let q = |i: usize| {
                    tracks
                        .get(4 * g + i)
                        .map_or(Quat::IDENTITY, |t| t.values[k])
                };
                let quats = [q(0), q(1), q(2), q(3)];
                values.push([0, 1, 2, 3].map(|c| Vec4::from_array(quats.map(|q| q.to_array()[c]))));
            }
        }
        Self {
            joints: tracks.iter().map(|t| t.joint).collect(),
            values,
        }
    }

    /// The groups at key `k`.
    #[inline]
    fn row(&self, k: usize) -> &[Lanes] {
        let m = self.joints.len().div_ceil(4);
        &self.values[k * m..(k + 1) * m]
    }
}

/// Lane `i` of `lanes` as a quaternion.
#[inline]
fn lane(lanes: &Lanes, i: usize) -> Quat {
    Quat::from_xyzw(lanes[0][i], lanes[1][i], lanes[2][i], lanes[3][i])
}

/// `normalize_quat(slerp_shortest(a, b, u))` for the four tracks of a group
/// at once, written to their joints (`joints`, at most four; a joint outside
/// `locals` is skipped). Lane by lane these are `slerp_shortest`'s and
/// `normalize_quat`'s operations in their order (glam's dot product groups
/// `(x·x' + z·z') + (y·y' + w·w')`, as here; negating by −1 is exact), so
/// the same bits; a lane that needs the trigonometric slerp (keys more than
/// about 36° apart, or not finite) is interpolated alone by
/// `slerp_shortest` itself.
#[inline(always)]
fn slerp_group(a: &Lanes, b: &Lanes, u: f32, joints: &[u16], locals: &mut [Transform]) {
    let [ax, ay, az, aw] = *a;
    let [bx, by, bz, bw] = *b;
    let cos = (ax * bx + az * bz) + (ay * by + aw * bw);
    let sign = Vec4::select(cos.cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE);
    let (bx, by, bz, bw, cos) = (bx * sign, by * sign, bz * sign, bw * sign, cos * sign);
    let linear = cos.cmpgt(Vec4::splat(SLERP_LINEAR_COS));
    let series = cos.cmpge(Vec4::splat(SLERP_SERIES_COS));
    let v = 1.0 - u;
    // `Vec4::lerp`: a·(1 − u) + b·u.
    let mut q = [
        ax * v + bx * u,
        ay * v + by * u,
        az * v + bz * u,
        aw * v + bw * u,
    ];
    if series.bitmask() & !linear.bitmask() != 0 {
        let theta2 = theta2_series_of(1.0 - cos);
        let wa = v * sinc_series_of(v * v * theta2);
        let wb = u * sinc_series_of(u * u * theta2);
        let close = [
            ax * wa + bx * wb,
            ay * wa + by * wb,
            az * wa + bz * wb,
            aw * wa + bw * wb,
        ];
        q = [0, 1, 2, 3].map(|c| Vec4::select(linear, q[c], close[c]));
    }
    // `normalize_quat`, the identity where the length is unusable.
    let [qx, qy, qz, qw] = q;
    let len2 = (qx * qx + qz * qz) + (qy * qy + qw * qw);
    let usable =
        (len2.cmplt(Vec4::INFINITY) & len2.cmpgt(Vec4::splat(f32::MIN_POSITIVE))).bitmask();
    let len = Vec4::from_array(sqrt4(len2.to_array()));
    let quats = Mat4::from_cols(qx / len, qy / len, qz / len, qw / len).transpose();
    let alone = !series.bitmask();
    // Lane by lane with the lane a constant (each call inlined), so that
    // each quaternion stays in its register instead of going through an
    // array indexed at run time.
    let lanes = LaneWrite {
        a,
        b,
        u,
        alone,
        usable,
    };
    lanes.put(0, quats.x_axis, joints, locals);
    lanes.put(1, quats.y_axis, joints, locals);
    lanes.put(2, quats.z_axis, joints, locals);
    lanes.put(3, quats.w_axis, joints, locals);
}

/// What [`slerp_group`] needs to write one lane's rotation.
struct LaneWrite<'a> {
    a: &'a Lanes,
    b: &'a Lanes,
    u: f32,
    /// Lanes interpolated alone (the trigonometric slerp), one bit each.
    alone: u32,
    /// Lanes whose normalized group result is usable, one bit each.
    usable: u32,
}

impl LaneWrite<'_> {
    /// Writes lane `i`'s rotation (`q`, the group's normalized result) to
    /// its joint, if the group has a lane `i` and its joint is in `locals`.
    #[inline(always)]
    fn put(&self, i: usize, q: Vec4, joints: &[u16], locals: &mut [Transform]) {
        let Some(local) = joints.get(i).and_then(|&j| locals.get_mut(j as usize)) else {
            return;
        };
        local.rotation = if self.alone & (1 << i) != 0 {
            normalize_quat(slerp_shortest(lane(self.a, i), lane(self.b, i), self.u))
        } else if self.usable & (1 << i) != 0 {
            Quat::from_vec4(q)
        } else {
            Quat::IDENTITY
        };
    }
}

/// The values of one property's tracks, key by key.
#[derive(Clone, Debug, Default, PartialEq)]
struct PackedTracks<T> {
    /// The joint of each track, in the clip's track order.
    joints: Vec<u16>,
    /// `values[k * joints.len() + i]` is track `i`'s value at key `k`.
    values: Vec<T>,
}

impl<T: Copy> PackedTracks<T> {
    /// Packs `tracks` (each with one value per key of `keys`).
    fn pack(tracks: &[Track<T>], keys: usize) -> Self {
        let mut values = Vec::with_capacity(tracks.len() * keys);
        for k in 0..keys {
            values.extend(tracks.iter().map(|t| t.values[k]));
        }
        Self {
            joints: tracks.iter().map(|t| t.joint).collect(),
            values,
        }
    }

    /// The values of every track at key `k`.
    #[inline]
    fn row(&self, k: usize) -> &[T] {
        let m = self.joints.len();
        &self.values[k * m..(k + 1) * m]
    }
}

/// A clip whose tracks share one key time line, packed for sampling (see
/// the module documentation). Built once per clip, at load time.
#[derive(Clone, Debug, PartialEq)]
pub struct PackedClip {
    duration: f32,
    /// The key times every track shares, at least one.
    times: Vec<f32>,
    translations: PackedTracks<Vec3>,
    rotations: PackedRotations,
    scales: PackedTracks<Vec3>,
}

/// Where a time falls on a packed clip's key time line.
enum Segment {
    /// Hold every track's value at this key.
    Hold(usize),
    /// Interpolate from key `k` to key `k + 1` with weight `u`.
    Between { k: usize, u: f32 },
}

impl PackedClip {
    /// Packs `clip` when every track is linear and has the same key times
    /// (bit for bit) and one value per key; `None` otherwise, and for a clip
    /// without tracks (sample those with [`crate::sample`]).
    pub fn pack(clip: &Clip) -> Option<Self> {
        let times = clip
            .translations
            .first()
            .map(|t| &t.times)
            .or_else(|| clip.rotations.first().map(|t| &t.times))
            .or_else(|| clip.scales.first().map(|t| &t.times))?;
        let fits = |interpolation: Interpolation, t: &[f32], values: usize| {
            interpolation == Interpolation::Linear
                && values == times.len()
                && t.len() == times.len()
                && t.iter().zip(times).all(|(a, b)| a.to_bits() == b.to_bits())
        };
        let vec3_fits = |tracks: &[Track<Vec3>]| {
            tracks
                .iter()
                .all(|t| fits(t.interpolation, &t.times, t.values.len()))
        };
        let rotations_fit = clip
            .rotations
            .iter()
            .all(|t| fits(t.interpolation, &t.times, t.values.len()));
        if times.is_empty()
            || !vec3_fits(&clip.translations)
            || !rotations_fit
            || !vec3_fits(&clip.scales)
        {
            return None;
        }
        let keys = times.len();
        Some(Self {
            duration: clip.duration,
            times: times.clone(),
            translations: PackedTracks::pack(&clip.translations, keys),
            rotations: PackedRotations::pack(&clip.rotations, keys),
            scales: PackedTracks::pack(&clip.scales, keys),
        })
    }

    /// The clip's length in seconds (as the clip it was packed from).
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// The number of keys every track has.
    pub fn keys(&self) -> usize {
        self.times.len()
    }

    /// Where `t` (already wrapped) falls, given the number of keys at or
    /// before it: what [`crate::sample`]'s per-track search finds for every
    /// track of the clip this was packed from.
    #[inline]
    fn segment(&self, idx: usize, t: f32) -> Segment {
        let n = self.times.len();
        if idx == 0 {
            return Segment::Hold(0);
        }
        if idx >= n {
            return Segment::Hold(n - 1);
        }
        let k = idx - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let dt = t1 - t0;
        let u = if dt > 0.0 && dt.is_finite() {
            ((t - t0) / dt).clamp(0.0, 1.0)
        } else {
            0.0
        };
        Segment::Between { k, u }
    }
}

avx2_builds! {
    kernel = sample_packed_kernel;
    /// Writes the packed clip's values at `time` into `locals`, using and
    /// updating `cursor` (its one key index for packed clips, kept apart from
    /// the per-track ones [`crate::sample`] uses) to find the key pair quickly
    /// during sequential playback.
    ///
    /// Same contract and the same result, bit for bit, as [`crate::sample`] on
    /// the clip `clip` was packed from: `time` is mapped by [`wrap_time`], only
    /// the animated properties of animated joints are written, tracks whose
    /// joint is outside `locals` are skipped. Allocates nothing.
    pub fn sample_packed(
        clip: &PackedClip,
        time: f32,
        wrap: Wrap,
        cursor: &mut SamplingCursor,
        locals: &mut [Transform],
    ) {
        let t = wrap_time(time, clip.duration, wrap);
        let idx = seek(&clip.times, cursor.shared_key as usize, t);
        cursor.shared_key = idx as u32;
        match clip.segment(idx, t) {
            Segment::Hold(k) => {
                let tracks = &clip.translations;
                for (&j, &v) in tracks.joints.iter().zip(tracks.row(k)) {
                    if let Some(local) = locals.get_mut(j as usize) {
                        local.translation = v;
                    }
                }
                let tracks = &clip.rotations;
                for (joints, lanes) in tracks.joints.chunks(4).zip(tracks.row(k)) {
                    for (i, &j) in joints.iter().enumerate() {
                        if let Some(local) = locals.get_mut(j as usize) {
                            local.rotation = normalize_quat(Vec4::from(lane(lanes, i)));
                        }
                    }
                }
                let tracks = &clip.scales;
                for (&j, &v) in tracks.joints.iter().zip(tracks.row(k)) {
                    if let Some(local) = locals.get_mut(j as usize) {
                        local.scale = v;
                    }
                }
            }
            Segment::Between { k, u } => {
                let tracks = &clip.translations;
                let rows = tracks.row(k).iter().zip(tracks.row(k + 1));
                for (&j, (&a, &b)) in tracks.joints.iter().zip(rows) {
                    if let Some(local) = locals.get_mut(j as usize) {
                        local.translation = a.lerp(b, u);
                    }
                }
                let tracks = &clip.rotations;
                let rows = tracks.row(k).iter().zip(tracks.row(k + 1));
                for (joints, (a, b)) in tracks.joints.chunks(4).zip(rows) {
                    slerp_group(a, b, u, joints, locals);
                }
                let tracks = &clip.scales;
                let rows = tracks.row(k).iter().zip(tracks.row(k + 1));
                for (&j, (&a, &b)) in tracks.joints.iter().zip(rows) {
                    if let Some(local) = locals.get_mut(j as usize) {
                        local.scale = a.lerp(b, u);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::{sample, sample_at};
    use proptest::prelude::*;

    fn track<T>(joint: u16, interpolation: Interpolation, times: &[f32], values: &[T]) -> Track<T>
    where
        T: Copy,
    {
        Track {
            joint,
            interpolation,
            times: times.to_vec(),
            values: values.to_vec(),
        }
    }

    fn shared_clip() -> Clip {
        let times = [0.0, 0.5, 1.0];
        Clip {
            name: "shared".into(),
            duration: 1.0,
            translations: vec![track(
                0,
                Interpolation::Linear,
                &times,
                &[Vec3::ZERO, Vec3::X, Vec3::Y],
            )],
            rotations: vec![
                track(
                    1,
                    Interpolation::Linear,
                    &times,
                    &[
                        Quat::IDENTITY,
                        Quat::from_rotation_z(0.4),
                        Quat::from_rotation_x(2.0),
                    ],
                ),
                track(
                    0,
                    Interpolation::Linear,
                    &times,
                    &[Quat::from_rotation_y(1.0); 3],
                ),
            ],
            scales: vec![],
        }
    }

    #[test]
    fn only_linear_clips_on_one_time_line_pack() {
        let good = shared_clip();
        let packed = PackedClip::pack(&good).expect("shared times pack");
        assert_eq!((packed.keys(), packed.duration()), (3, 1.0));
        let mut own_times = good.clone();
        own_times.rotations[1].times[1] = 0.6;
        assert_eq!(PackedClip::pack(&own_times), None);
        let mut step = good.clone();
        step.translations[0].interpolation = Interpolation::Step;
        assert_eq!(PackedClip::pack(&step), None);
        let mut short = good.clone();
        short.rotations[0].values.pop();
        assert_eq!(PackedClip::pack(&short), None);
        let empty = Clip {
            translations: vec![],
            rotations: vec![],
            ..good
        };
        assert_eq!(PackedClip::pack(&empty), None);
    }

    #[test]
    fn joints_outside_the_pose_are_skipped() {
        let mut clip = shared_clip();
        clip.rotations[0].joint = 7;
        let packed = PackedClip::pack(&clip).unwrap();
        let mut cursor = SamplingCursor::default();
        let mut got = [Transform::IDENTITY; 2];
        sample_packed(&packed, 0.7, Wrap::Loop, &mut cursor, &mut got);
        let mut want = [Transform::IDENTITY; 2];
        sample_at(&clip, 0.7, Wrap::Loop, &mut want);
        assert_eq!(got, want);
    }

    /// One key's turn from the key before: an axis-angle vector and a scale.
    type Turn = (f32, f32, f32, f32);

    /// A random clip whose tracks share one time line (with repeated key
    /// times now and then, which interpolate with weight 0).
    fn arb_shared_clip() -> impl Strategy<Value = Clip> {
        let gaps =
            proptest::collection::vec(prop_oneof![8 => 0.001f32..0.2, 1 => Just(0.0f32)], 1..30);
        (gaps, 0usize..3, 0usize..10, 0usize..2).prop_flat_map(|(gaps, nt, nr, ns)| {
            let mut t = 0.0;
            let times: Vec<f32> = gaps
                .iter()
                .map(|g| {
                    t += g;
                    t
                })
                .collect();
            let keys = times.len();
            let vec3 =
                (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0).prop_map(|(x, y, z)| Vec3::new(x, y, z));
            // Neighbouring keys from nearly equal to far apart, so that every
            // branch of the slerp is taken.
            let quat = (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
                .prop_map(|(x, y, z, w)| normalize_quat(Vec4::new(x, y, z, w)));
            let vtracks = move |n: usize| {
                proptest::collection::vec(
                    (0u16..5, proptest::collection::vec(vec3.clone(), keys)),
                    n,
                )
            };
            let rtracks = proptest::collection::vec(
                (
                    0u16..5,
                    quat,
                    // Each key's turn: small (the linear slerp), moderate
                    // (the series) or large (the trigonometric one).
                    proptest::collection::vec(
                        (
                            -0.3f32..0.3,
                            -0.3f32..0.3,
                            -0.3f32..0.3,
                            prop_oneof![Just(0.1f32), Just(1.0f32), Just(4.0f32)],
                        ),
                        keys,
                    ),
                ),
                nr,
            );
            (vtracks(nt), rtracks, vtracks(ns)).prop_map(move |(tr, rot, sc)| {
                let vt = |(joint, values): (u16, Vec<Vec3>)| Track {
                    joint,
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    values,
                };
                let rt = |(joint, start, turns): (u16, Quat, Vec<Turn>)| {
                    let mut q = start;
                    let values = turns
                        .iter()
                        .map(|&(x, y, z, scale)| {
                            q = (Quat::from_scaled_axis(Vec3::new(x, y, z) * scale) * q)
                                .normalize();
                            q
                        })
                        .collect();
                    Track {
                        joint,
                        interpolation: Interpolation::Linear,
                        times: times.clone(),
                        values,
                    }
                };
                Clip {
                    name: "random".into(),
                    duration: *times.last().unwrap(),
                    translations: tr.into_iter().map(vt).collect(),
                    rotations: rot.into_iter().map(rt).collect(),
                    scales: sc.into_iter().map(vt).collect(),
                }
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// Packed sampling gives the per-track sampler's poses bit for bit,
        /// through playback, jumps back and ahead, looping or clamped.
        #[test]
        fn packed_sampling_equals_per_track_sampling(
            clip in arb_shared_clip(),
            steps in proptest::collection::vec(
                prop_oneof![6 => 0.0f32..0.05, 1 => -3.0f32..0.0, 1 => 0.0f32..3.0], 1..30),
            start in -1.0f32..1.0,
            looping in any::<bool>(),
        ) {
            let wrap = if looping { Wrap::Loop } else { Wrap::Clamp };
            let tracks = clip.translations.len() + clip.rotations.len() + clip.scales.len();
            let packed = PackedClip::pack(&clip);
            prop_assert_eq!(packed.is_some(), tracks > 0);
            let Some(packed) = packed else { return Ok(()) };
            let mut per_track = SamplingCursor::new(&clip);
            let mut shared = SamplingCursor::default();
            let mut baseline_cursor = SamplingCursor::default();
            let mut t = start;
            for step in steps {
                t += step;
                let mut want = [Transform::IDENTITY; 4];
                let mut got = [Transform::IDENTITY; 4];
                sample(&clip, t, wrap, &mut per_track, &mut want);
                sample_packed(&packed, t, wrap, &mut shared, &mut got);
                // The baseline build of the same kernel (the dispatched one
                // above is the AVX2 build where the processor has it).
                let mut baseline = [Transform::IDENTITY; 4];
                sample_packed_kernel(&packed, t, wrap, &mut baseline_cursor, &mut baseline);
                let bits = |l: &[Transform; 4]| {
                    l.iter()
                        .flat_map(|l| {
                            l.translation.to_array().into_iter()
                                .chain(l.rotation.to_array())
                                .chain(l.scale.to_array())
                        })
                        .map(f32::to_bits)
                        .collect::<Vec<u32>>()
                };
                prop_assert_eq!(bits(&got), bits(&want));
                prop_assert_eq!(bits(&baseline), bits(&want));
            }
        }
    }
}
