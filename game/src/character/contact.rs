//! Contact phases: when, in a clip's cycle, a foot or hand holds still on the
//! world (a planted foot, a hand gripping a rung).
//!
//! Clips are played in place, so a limb that stands still in the world moves in
//! model space exactly opposite to the character's own motion: backwards at
//! the walking speed for a planted foot, downwards at the climbing speed for a
//! hand on a rung. Analysing each clip once at load time with that single rule
//! gives contact curves for any model (the knight, CesiumMan) without
//! hand-authored markers.

use animation::{Clip, Skeleton, Transform, Wrap, local_to_model, sample_at};
use glam::{Mat4, Vec3};

/// Samples per cycle of a contact curve. 64 resolves a 1 s walk cycle to
/// 16 ms, finer than the 64 Hz simulation step.
pub const CONTACT_SAMPLES: usize = 64;

/// Speed (m/s, model space) below which a limb, after removing the expected
/// world motion, counts as fully in contact.
const STILL_SPEED: f32 = 0.12;
/// Speed above which it counts as fully free.
const MOVING_SPEED: f32 = 0.5;
/// The least a swing carries its foot forward, as a share of the cycle's
/// stride (a walk's swing carries it about half).
const MIN_SWING_TRAVEL: f32 = 0.25;

/// One limb's contact weight over one clip cycle (0 free, 1 in contact).
#[derive(Clone, Debug, PartialEq)]
pub struct ContactCurve {
    weights: [f32; CONTACT_SAMPLES],
}

impl ContactCurve {
    /// A curve that is in contact all the time (idle).
    pub fn always() -> Self {
        Self {
            weights: [1.0; CONTACT_SAMPLES],
        }
    }

    /// A curve that is never in contact (jumping, falling).
    pub fn never() -> Self {
        Self {
            weights: [0.0; CONTACT_SAMPLES],
        }
    }

    /// A curve from its samples (weights clamped into [0, 1], NaN as 0).
    pub fn from_samples(weights: [f32; CONTACT_SAMPLES]) -> Self {
        Self {
            weights: weights.map(|w| if w.is_nan() { 0.0 } else { w.clamp(0.0, 1.0) }),
        }
    }

    /// The contact weight at normalized phase `phase` (wrapped into [0, 1)),
    /// interpolated linearly between samples.
    pub fn at(&self, phase: f32) -> f32 {
        // A phase within its cycle (nearly always) is its own remainder:
        // `rem_euclid`'s software `fmodf` is skipped, same value.
        let phase = if (0.0..1.0).contains(&phase) {
            phase
        } else {
            phase.rem_euclid(1.0)
        };
        let p = phase * CONTACT_SAMPLES as f32;
        if !p.is_finite() {
            return 0.0;
        }
        // Through `u32`: the same index for every finite `p` (both casts
        // saturate at 0, and far above the last sample both land past
        // it). x86-64 before AVX-512 has no conversion between `f32` and
        // 64-bit unsigned integers, so a `usize` index takes a longer
        // sequence, and so does `i as f32` below; an index known to fit 32
        // bits needs neither.
        let i = (p as u32 as usize).min(CONTACT_SAMPLES - 1);
        let f = p - i as f32;
        let a = self.weights[i];
        let b = self.weights[(i + 1) % CONTACT_SAMPLES];
        a + (b - a) * f
    }

    /// Fraction of the cycle in contact (weight above one half).
    pub fn duty(&self) -> f32 {
        self.weights.iter().filter(|w| **w > 0.5).count() as f32 / CONTACT_SAMPLES as f32
    }
}

/// One swing of a foot in a gait cycle: from lifting off to landing, in
/// normalized phase, with where the foot lands in model space. A gait's phase
/// follows the distance walked (see `AnimState`), so the body moves
/// `(land − phase) · cycle distance` forward before the foot lands, whatever
/// the speed: foot IK uses that to know, during the swing, where the foot
/// will come down.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Swing {
    /// Phase at which the foot lifts off (its contact falls below one half).
    pub lift: f32,
    /// Phase at which it lands (its contact rises to one half), after `lift`
    /// (so possibly above 1 for a swing that wraps around the cycle's end).
    pub land: f32,
    /// The joint's model-space position at `land`.
    pub land_model: Vec3,
    /// The limb's start joint (the hip) at `land`, model space.
    pub land_start: Vec3,
}

impl Swing {
    /// `(progress, phase left)` at `phase` if it falls within this swing:
    /// progress runs 0 at lift-off to 1 at landing.
    pub fn at(&self, phase: f32) -> Option<(f32, f32)> {
        let p = phase.rem_euclid(1.0);
        let p = if p < self.lift { p + 1.0 } else { p };
        (p < self.land).then(|| {
            let progress = (p - self.lift) / (self.land - self.lift).max(1e-6);
            (progress, self.land - p)
        })
    }
}

/// The swings of joint `end` (of a limb from `start`) in a looping clip
/// whose contact curve is `curve` and whose character walks `stride` (model
/// space, metres per cycle): each run of samples under one half in which
/// the joint travels forward at least a quarter of the stride, with the two
/// joints' model-space positions at the sample where contact comes back. A
/// curve never or always in contact has none; a short run in which the
/// foot barely moves (an uneven clip's stance read as two) is no swing.
pub fn swings(
    skeleton: &Skeleton,
    clip: &Clip,
    start: usize,
    end: usize,
    curve: &ContactCurve,
    stride: Vec3,
) -> Vec<Swing> {
    let down = |i: usize| curve.weights[i % CONTACT_SAMPLES] >= 0.5;
    let Some(first_down) = (0..CONTACT_SAMPLES).find(|&i| down(i)) else {
        return Vec::new();
    };
    let mut locals: Vec<Transform> = skeleton.rest_locals().to_vec();
    let mut models = vec![Mat4::IDENTITY; skeleton.len()];
    let mut at_sample = |i: usize| {
        locals.copy_from_slice(skeleton.rest_locals());
        let t = (i % CONTACT_SAMPLES) as f32 / CONTACT_SAMPLES as f32 * clip.duration;
        sample_at(clip, t, Wrap::Loop, &mut locals);
        local_to_model(skeleton, &locals, &mut models);
        (
            models[start].w_axis.truncate(),
            models[end].w_axis.truncate(),
        )
    };
    let forward = stride.normalize_or_zero();
    let min_travel = MIN_SWING_TRAVEL * stride.length();
    let n = CONTACT_SAMPLES as f32;
    let mut out = Vec::new();
    // Walk one cycle starting in contact, so every swing is seen whole.
    let mut lift = None;
    for k in 1..=CONTACT_SAMPLES {
        let i = first_down + k;
        match (down(i), lift) {
            (false, None) => lift = Some(i),
            (true, Some(l)) => {
                let (_, lifted) = at_sample(l);
                let (hip, landed) = at_sample(i);
                if (landed - lifted).dot(forward) >= min_travel {
                    let lift_phase = (l % CONTACT_SAMPLES) as f32 / n;
                    out.push(Swing {
                        lift: lift_phase,
                        land: lift_phase + (i - l) as f32 / n,
                        land_model: landed,
                        land_start: hip,
                    });
                }
                lift = None;
            }
            _ => {}
        }
    }
    out
}

/// Where joint `end` is along `forward` (model space, metres) at each of
/// [`CONTACT_SAMPLES`] evenly spaced phases of a looping clip: a foot's
/// track back and forth through its cycle.
pub fn forward_track(
    skeleton: &Skeleton,
    clip: &Clip,
    end: usize,
    forward: Vec3,
) -> [f32; CONTACT_SAMPLES] {
    let mut locals: Vec<Transform> = skeleton.rest_locals().to_vec();
    let mut models = vec![Mat4::IDENTITY; skeleton.len()];
    let dt = clip.duration.max(1e-3) / CONTACT_SAMPLES as f32;
    std::array::from_fn(|i| {
        locals.copy_from_slice(skeleton.rest_locals());
        sample_at(clip, i as f32 * dt, Wrap::Loop, &mut locals);
        local_to_model(skeleton, &locals, &mut models);
        models[end].w_axis.truncate().dot(forward)
    })
}

/// Computes the contact curve of joint `end` in a looping clip whose
/// character moves with `world_velocity` (model space, m/s) while it plays:
/// the limb is in contact where its model-space velocity cancels that motion.
pub fn analyse(skeleton: &Skeleton, clip: &Clip, end: usize, world_velocity: Vec3) -> ContactCurve {
    let n = skeleton.len();
    let mut locals: Vec<Transform> = skeleton.rest_locals().to_vec();
    let mut models = vec![Mat4::IDENTITY; n];
    let duration = clip.duration.max(1e-3);
    let dt = duration / CONTACT_SAMPLES as f32;
    let mut positions = [Vec3::ZERO; CONTACT_SAMPLES];
    for (i, p) in positions.iter_mut().enumerate() {
        locals.copy_from_slice(skeleton.rest_locals());
        sample_at(clip, i as f32 * dt, Wrap::Loop, &mut locals);
        local_to_model(skeleton, &locals, &mut models);
        *p = models[end].w_axis.truncate();
    }
    let mut weights = [0.0; CONTACT_SAMPLES];
    for (i, w) in weights.iter_mut().enumerate() {
        // Central difference, wrapping around the cycle.
        let a = positions[(i + CONTACT_SAMPLES - 1) % CONTACT_SAMPLES];
        let b = positions[(i + 1) % CONTACT_SAMPLES];
        let v = (b - a) / (2.0 * dt);
        let residual = (v + world_velocity).length();
        let t = ((residual - STILL_SPEED) / (MOVING_SPEED - STILL_SPEED)).clamp(0.0, 1.0);
        *w = 1.0 - t * t * (3.0 - 2.0 * t);
    }
    ContactCurve { weights }
}

#[cfg(test)]
mod tests {
    use super::*;
    use animation::{Interpolation, JointDef, Track};
    use glam::Quat;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_sample_index_through_u32_is_the_one_through_usize(
            p in prop_oneof![0.0f32..64.0, 0.0f32..1e12, Just(-0.0f32), Just(f32::MAX)],
        ) {
            // `ContactCurve::at`'s index, converted the cheap way.
            let cheap = (p as u32 as usize).min(CONTACT_SAMPLES - 1);
            prop_assert_eq!(cheap, (p as usize).min(CONTACT_SAMPLES - 1));
        }
    }

    /// A root with one "foot" that slides backwards at 1 m/s for the first
    /// half of a 1 s cycle and swings forward in the second half.
    fn sliding_foot() -> (Skeleton, Clip) {
        let skeleton = Skeleton::new(vec![
            JointDef {
                name: "root".into(),
                parent: None,
                rest: Transform::IDENTITY,
                inverse_bind: Mat4::IDENTITY,
            },
            JointDef {
                name: "foot".into(),
                parent: Some(0),
                rest: Transform::IDENTITY,
                inverse_bind: Mat4::IDENTITY,
            },
        ])
        .unwrap();
        let times = vec![0.0, 0.5, 1.0];
        let values = vec![
            Vec3::new(0.25, 0.0, 0.0),
            Vec3::new(-0.25, 0.0, 0.0),
            Vec3::new(0.25, 0.0, 0.0),
        ];
        let clip = Clip {
            name: "walk".into(),
            duration: 1.0,
            translations: vec![Track {
                joint: 1,
                interpolation: Interpolation::Linear,
                times,
                values,
            }],
            rotations: vec![Track {
                joint: 0,
                interpolation: Interpolation::Step,
                times: vec![0.0],
                values: vec![Quat::IDENTITY],
            }],
            scales: vec![],
        };
        (skeleton, clip)
    }

    #[test]
    fn planted_foot_is_in_contact_and_swinging_foot_is_free() {
        let (skeleton, clip) = sliding_foot();
        let curve = analyse(&skeleton, &clip, 1, Vec3::X);
        assert!(curve.at(0.25) > 0.99, "stance {}", curve.at(0.25));
        assert!(curve.at(0.75) < 0.01, "swing {}", curve.at(0.75));
        assert!((curve.duty() - 0.5).abs() < 0.1);
    }

    #[test]
    fn the_swing_is_found_with_where_the_foot_lands() {
        let (skeleton, clip) = sliding_foot();
        let curve = analyse(&skeleton, &clip, 1, Vec3::X);
        let found = swings(&skeleton, &clip, 0, 1, &curve, Vec3::X);
        assert_eq!(found.len(), 1, "{found:?}");
        let s = found[0];
        // The foot swings forward in the second half and lands at the front.
        assert!(
            (s.lift - 0.5).abs() < 0.1 && (s.land - 1.0).abs() < 0.1,
            "{s:?}"
        );
        assert!(s.land_model.x > 0.2, "{s:?}");
        let (progress, left) = s.at(0.75).expect("mid-swing");
        assert!((0.3..0.7).contains(&progress) && (0.15..0.35).contains(&left));
        assert_eq!(s.at(0.25), None);
        assert!(swings(&skeleton, &clip, 0, 1, &ContactCurve::always(), Vec3::X).is_empty());
        assert!(swings(&skeleton, &clip, 0, 1, &ContactCurve::never(), Vec3::X).is_empty());
    }

    #[test]
    fn phase_wraps_and_never_returns_nan() {
        let c = ContactCurve::always();
        assert_eq!(c.at(-3.25), 1.0);
        assert_eq!(c.at(f32::NAN), 0.0);
    }
}
