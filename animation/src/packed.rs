//! Packed clips: the runtime form of a [`Clip`] whose tracks all share one
//! key time line, sampled with one key search per clip instead of one per
//! track.
//!
//! Exporters that bake every channel at one rate write such clips, and so
//! does the knight's generator. [`PackedClip::pack`] keeps the shared key
//! times once and each property's values key by key: the values of every
//! rotation track at key `k` lie side by side (likewise translations and
//! scales), so a sample finds its key pair and interpolation weight once and
//! then reads two contiguous rows. [`sample_packed`] gives exactly what
//! [`crate::sample`] gives for the clip it was packed from (the same
//! interpolation code on the same operands, bit for bit); clips that do not
//! pack (tracks with their own times, step or cubic tracks) are sampled with
//! [`crate::sample`]. Neither allocates.

use glam::{Quat, Vec3, Vec4};

use crate::clip::{Clip, Interpolation, Track};
use crate::sampling::{SamplingCursor, Wrap, normalize_quat, seek, slerp_shortest, wrap_time};
use crate::transform::Transform;

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
    rotations: PackedTracks<Quat>,
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
            rotations: PackedTracks::pack(&clip.rotations, keys),
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
            for (&j, &q) in tracks.joints.iter().zip(tracks.row(k)) {
                if let Some(local) = locals.get_mut(j as usize) {
                    local.rotation = normalize_quat(Vec4::from(q));
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
            for (&j, (&a, &b)) in tracks.joints.iter().zip(rows) {
                if let Some(local) = locals.get_mut(j as usize) {
                    local.rotation = normalize_quat(slerp_shortest(a, b, u));
                }
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

    /// A random clip whose tracks share one time line (with repeated key
    /// times now and then, which interpolate with weight 0).
    fn arb_shared_clip() -> impl Strategy<Value = Clip> {
        let gaps =
            proptest::collection::vec(prop_oneof![8 => 0.001f32..0.2, 1 => Just(0.0f32)], 1..30);
        (gaps, 0usize..3, 0usize..5, 0usize..2).prop_flat_map(|(gaps, nt, nr, ns)| {
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
                    proptest::collection::vec((-0.3f32..0.3, -0.3f32..0.3, -0.3f32..0.3), keys),
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
                let rt = |(joint, start, turns): (u16, Quat, Vec<(f32, f32, f32)>)| {
                    let mut q = start;
                    let values = turns
                        .iter()
                        .map(|&(x, y, z)| {
                            q = (Quat::from_scaled_axis(Vec3::new(x, y, z) * 4.0) * q).normalize();
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
            let mut t = start;
            for step in steps {
                t += step;
                let mut want = [Transform::IDENTITY; 4];
                let mut got = [Transform::IDENTITY; 4];
                sample(&clip, t, wrap, &mut per_track, &mut want);
                sample_packed(&packed, t, wrap, &mut shared, &mut got);
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
            }
        }
    }
}
