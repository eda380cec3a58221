//! Two-bone limb geometry shared by foot IK, ladder IK and the joint speed
//! limit: which way a knee or elbow bends ([`bend_direction`],
//! [`knee_side`]), a knee's bend for a reach and back ([`knee_bend`],
//! [`reach_for_bend`]), how far a hip must drop to reach a target
//! ([`required_drop`]) and how far it may while a locked knee follows
//! ([`drop_a_knee_follows`]), the longest reach at which a lengthening
//! leg's knee keeps a pace ([`reach_at_knee_speed`]), and a held limb's
//! solve onto its target
//! ([`solve_onto`], which writes the pose and model matrices). The rest
//! reads model matrices and lengths and writes nothing.

use std::f32::consts::PI;

use animation::ik::IkError;
use animation::ik::two_bone::{TwoBoneChain, TwoBoneOptions, TwoBoneResult};
use animation::{Pose, Skeleton};
use glam::{Mat4, Quat, Vec3};

use super::math::{pos, rotate_by};
use crate::character::Limb;

/// The most two-bone passes [`solve_onto`] gives a limb.
pub(super) const SOLVE_PASSES: u32 = 3;
/// A limb's end this close to its target after a pass is on it, metres
/// (a tenth of a millimetre: far inside the 5 mm a planted foot may be off).
pub(super) const SOLVE_TOLERANCE: f32 = 1e-4;

/// The weight of the hinge's natural bend direction in the side a knee that
/// is not a pure hinge bends to, per metre of thigh (see `knee_side`): a
/// tenth of a millimetre, far below any real knee offset, so it decides
/// only for a leg whose knee lies exactly on the hip→ankle line.
pub(super) const POLE_BIAS: f32 = 1e-4;
/// Knee and elbow hinge range, radians: from nearly straight to fully bent
/// (each limb's [`crate::character::Limb::hinge`] is built with it).
pub(crate) const HINGE_RANGE: (f32, f32) = (0.0, 2.7);

/// Solves `chain` toward `opts` (on `pose` and `models`), and again from
/// the corrected pose while its end lands more than [`SOLVE_TOLERANCE`]
/// off a target it is getting closer to, at most [`SOLVE_PASSES`] passes
/// in all. One closed-form pass is exact for a rigid chain, but not where
/// the clip scales a bone unevenly: Mannequiny's idle stretches his thighs
/// 2.7 % along their length, and as he stopped, one pass left a planted
/// ankle 8 mm off its lock (which the next pass brings within 0.3 mm). A
/// target out of reach costs one pass more (the second gets no closer); a
/// solve of less than full weight is never repeated (its weight would
/// compound).
pub(super) fn solve_onto(
    chain: &TwoBoneChain,
    opts: &TwoBoneOptions,
    skeleton: &Skeleton,
    pose: &mut Pose,
    models: &mut [Mat4],
) -> Result<TwoBoneResult, IkError> {
    let mut result = chain.solve(opts, skeleton, pose, models)?;
    if opts.weight < 1.0 {
        return Ok(result);
    }
    for _ in 1..SOLVE_PASSES {
        if result.residual <= SOLVE_TOLERANCE {
            break;
        }
        let again = chain.solve(opts, skeleton, pose, models)?;
        let closer = again.residual < result.residual - SOLVE_TOLERANCE;
        result = again;
        if !closer {
            break;
        }
    }
    Ok(result)
}

/// The model-space direction a limb's mid joint bends toward: across the
/// limb from its hinge axis, so it stays defined when the limb is straight
/// (a knee then still points forward, never flips).
pub(super) fn bend_direction(animated: &[Mat4; 3], limb: &Limb, hinge_local: Vec3) -> Vec3 {
    let [start, mid, end] = animated;
    let line = pos(end) - pos(start);
    let hinge = rotate_by(mid, hinge_local);
    (hinge.cross(line) * limb.bend_sign).normalize_or(Vec3::X)
}

/// The model-space side of the hip→ankle line a knee that is not a pure
/// hinge (see `Rig::knee_pure_hinge`) is placed on when its ankle goes to
/// `to_target` (from the hip): where the animated knee would lie off that
/// line once bent about its hinge axis as far as the target's reach needs,
/// with the leg swung rigidly onto the target. A knee its animation
/// hyperextends stays hyperextended while the reach allows, never further
/// back than the animation; otherwise it bends forward. The hinge's natural
/// bend direction ([`bend_direction`]) is added as a small bias so a straight
/// leg still has a side. The unhinged solver puts the knee on this side at
/// the bend the reach needs; as the leg straightens the knee's distance from
/// the line, and with it any effect of this direction, goes to zero, so the
/// side turning quickly near straight moves the leg by nothing.
pub(super) fn knee_side(
    animated: &[Mat4; 3],
    limb: &Limb,
    hinge_local: Vec3,
    to_target: Vec3,
) -> Vec3 {
    let [start, mid, end] = animated;
    let fallback = bend_direction(animated, limb, hinge_local);
    let u = pos(mid) - pos(start);
    let s = pos(end) - pos(mid);
    let Some(hm) = rotate_by(mid, hinge_local).try_normalize() else {
        return fallback;
    };
    // |u + R(θ) s|² = k0 + k1 cos θ, θ the bend about the hinge measured
    // between the bones' projections onto the plane normal to it.
    let s_par = hm * s.dot(hm);
    let (u_perp, s_perp) = (u - hm * u.dot(hm), s - s_par);
    let (up, sp) = (u_perp.length(), s_perp.length());
    if up < 1e-6 || sp < 1e-6 {
        return fallback;
    }
    let theta0 = hm.dot(u_perp.cross(s_perp)).atan2(u_perp.dot(s_perp));
    let k0 = (u + s_par).length_squared() + sp * sp;
    let k1 = 2.0 * up * sp;
    let tc = ((to_target.length_squared() - k0) / k1)
        .clamp(-1.0, 1.0)
        .acos();
    let theta = if -tc >= theta0.min(0.0) && (theta0 + tc).abs() < (theta0 - tc).abs() {
        -tc
    } else {
        tc
    };
    let e = u + Quat::from_axis_angle(hm, theta - theta0) * s;
    let (Some(e_dir), Some(t_dir)) = (e.try_normalize(), to_target.try_normalize()) else {
        return fallback;
    };
    let offset = u - e_dir * u.dot(e_dir);
    Quat::from_rotation_arc(e_dir, t_dir) * offset + fallback * (POLE_BIAS * u.length())
}

/// The bend of a knee, radians (0 straight), that puts the ankle `reach`
/// from the hip, for a thigh and shin of these lengths (law of cosines).
pub(super) fn knee_bend(thigh: f32, shin: f32, reach: f32) -> f32 {
    let cos = (thigh * thigh + shin * shin - reach * reach) / (2.0 * thigh * shin).max(1e-6);
    PI - cos.clamp(-1.0, 1.0).acos()
}

/// How far toward `need` a pelvis now lowered by `was` may go down (metres)
/// while the knee of a leg with these `bones` (thigh, shin) holding a foot
/// at `to_foot` from its hip (before any drop) bends at most `turn` radians
/// more or less: `need` if the knee follows it within that, else the most
/// it can (never less than `was`).
pub(super) fn drop_a_knee_follows(
    was: f32,
    need: f32,
    bones: (f32, f32),
    to_foot: Vec3,
    turn: f32,
) -> f32 {
    if need <= was {
        return need;
    }
    let bend = |d: f32| knee_bend(bones.0, bones.1, (to_foot + Vec3::Y * d).length());
    let from = bend(was);
    if (bend(need) - from).abs() <= turn {
        return need;
    }
    // Bisection: the bend changes monotonically with the drop while the
    // foot is below its hip (and the drop does not take the hip below it).
    let (mut lo, mut hi) = (was, need);
    for _ in 0..16 {
        let mid = 0.5 * (lo + hi);
        if (bend(mid) - from).abs() > turn {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    lo
}

/// How far a pelvis now lowered by `drop` (metres) must go down, at most to
/// `top`, so that the knee of a leg with these `bones` (thigh, shin)
/// holding a foot at `to_foot` from its hip (before any drop) is bent at
/// least as far as the bend whose cosine is `least_cos`: `drop` where it
/// already is, where `least_cos` is NaN (no bend to keep), and where no drop
/// down to `top` and to the foot's height does it (the clip itself
/// straightens the knee that fast: holding the hips down would not keep
/// the foot, only drop the body by up to `top` in a frame).
///
/// A knee bent `b` puts the ankle `√(t² + s² + 2ts·cos b)` from the hip,
/// so the least drop brings the foot within that reach (a cosine, not an
/// angle: no inverse cosine per leg and frame).
pub(super) fn hold_for_knee(
    drop: f32,
    top: f32,
    bones: (f32, f32),
    to_foot: Vec3,
    least_cos: f32,
) -> f32 {
    let (t, s) = bones;
    let reach2 = t * t + s * s + 2.0 * t * s * least_cos;
    // NaN (no bend to keep) or below zero: nothing to hold for.
    if reach2.is_nan() || reach2 < 0.0 || (to_foot + Vec3::Y * drop).length_squared() <= reach2 {
        return drop;
    }
    // |to_foot + d·Y|² = reach² at the least d (the hip above the foot).
    let disc = reach2 - Vec3::new(to_foot.x, 0.0, to_foot.z).length_squared();
    if disc < 0.0 {
        return drop;
    }
    let held = -to_foot.y - disc.sqrt();
    if held > drop && held <= top.min(-to_foot.y) {
        held
    } else {
        drop
    }
}

/// The cosine of the least bend a knee bent `cos_was` (its cosine) last
/// frame may have after straightening by a turn whose cosine and sine are
/// `turn` (see [`hold_for_knee`]); NaN where the knee may straighten fully
/// (bent less than the turn, or no bend known).
pub(super) fn straightened_cos(cos_was: f32, turn: (f32, f32)) -> f32 {
    let (sin_t, cos_t) = turn;
    if cos_was.is_nan() || cos_was >= cos_t {
        return f32::NAN;
    }
    // cos(b − t) = cos b cos t + sin b sin t, with sin b ≥ 0 for b in [0, π].
    let sin_was = (1.0 - cos_was * cos_was).max(0.0).sqrt();
    cos_was * cos_t + sin_was * sin_t
}

/// The longest hip-to-ankle distance at which the knee of a leg with these
/// bones (thigh, shin), lengthening at `rate` metres per second, turns no
/// faster than `speed` radians per second; the full length when the leg is
/// not lengthening. A knee's turn for a given lengthening grows without
/// bound as the leg straightens (the ankle's distance from the hip changes
/// by `thigh · shin · sin(bend) / distance` per radian), so a leg whose hip
/// moves on away from a locked foot at a steady pace needs its knee ever
/// faster near the end of its reach. Where no distance keeps the knee that
/// slow, the one at which it turns slowest.
pub(super) fn reach_at_knee_speed(bones: (f32, f32), rate: f32, speed: f32) -> f32 {
    let (thigh, shin) = bones;
    let full = thigh + shin;
    if !(rate > 0.0 && speed > 0.0 && full.is_finite()) {
        return full;
    }
    // With x the squared distance, 2 · thigh · shin · sin(bend) is
    // sqrt((full² − x)(x − diff²)), and the knee turns at most `speed`
    // where speed² (full² − x)(x − diff²) ≥ 4 rate² x: a quadratic in x.
    let (p, q) = (full * full, (thigh - shin) * (thigh - shin));
    let s2 = speed * speed;
    let b = s2 * (p + q) - 4.0 * rate * rate;
    let disc = b * b - 4.0 * s2 * s2 * p * q;
    let x = if disc >= 0.0 && b > 0.0 {
        (b + disc.sqrt()) / (2.0 * s2)
    } else {
        // The turn is slowest where x = sqrt(p q) (its derivative's root).
        (p * q).sqrt()
    };
    x.max(0.0).sqrt().clamp((thigh - shin).abs(), full)
}

/// The hip-to-ankle distance at which a knee with these bones bends `bend`
/// radians: the inverse of [`knee_bend`].
pub(super) fn reach_for_bend(thigh: f32, shin: f32, bend: f32) -> f32 {
    let bend = bend.clamp(0.0, PI);
    (thigh * thigh + shin * shin + 2.0 * thigh * shin * bend.cos())
        .max(0.0)
        .sqrt()
}

/// The furthest a hip may drop (straight down) while a foot held at offset
/// `v` from it stays at least `fold` below it and at least `shortest` from
/// it (the leg folded no further than its knee bends); 0 when it is
/// already closer. The inverse bound of [`required_drop`].
pub(super) fn deepest_drop(v: Vec3, fold: f32, shortest: f32) -> f32 {
    if !v.is_finite() {
        return 0.0;
    }
    let across = Vec3::new(v.x, 0.0, v.z).length_squared();
    let under = fold.max((shortest * shortest - across).max(0.0).sqrt());
    (-v.y - under).max(0.0)
}

/// How far a hip must drop (straight down) so that a target at offset `v`
/// from it lies within `reach`; 0 when it already does.
pub fn required_drop(v: Vec3, reach: f32) -> f32 {
    if v.length_squared() <= reach * reach || !v.is_finite() {
        return 0.0;
    }
    // |v + d·Y|² = reach² → d² + 2 d v.y + |v|² − reach² = 0.
    let disc = v.y * v.y - v.length_squared() + reach * reach;
    if disc < 0.0 {
        // Too far sideways to reach by dropping: drop level with the target.
        return (-v.y).max(0.0);
    }
    (-v.y - disc.sqrt()).max(0.0)
}
#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]
        #[test]
        fn dropped_hip_reaches_the_target(
            x in -1.0f32..1.0, y in -2.0f32..0.5, z in -0.3f32..0.3, reach in 0.2f32..1.0,
        ) {
            let v = Vec3::new(x, y, z);
            let d = required_drop(v, reach);
            prop_assert!(d >= 0.0 && d.is_finite());
            let after = (v + Vec3::Y * d).length();
            // Dropping can help when the target is within reach sideways and
            // not so far above the hip that only raising it would do.
            let disc = y * y - v.length_squared() + reach * reach;
            if Vec2::new(x, z).length() <= reach && -y + disc.max(0.0).sqrt() >= 0.0 {
                prop_assert!(after <= reach * (1.0 + 1e-4) + 1e-5, "{after} > {reach}");
                // Minimal: a little less drop would not do.
                if d > 1e-3 {
                    prop_assert!((v + Vec3::Y * (d - 1e-3)).length() > reach - 1e-4);
                }
            }
        }
    }

    #[test]
    fn a_leg_with_a_scaled_thigh_is_solved_onto_its_target() {
        use animation::{JointDef, Transform, local_to_model};
        // Hip, knee 0.4 m below, ankle 0.4 m below that; the thigh
        // stretched 2.7 % along its length (as Mannequiny's idle does),
        // which its child the shin inherits.
        let joint = |name: &str, parent, y: f32| JointDef {
            name: name.into(),
            parent,
            rest: Transform::from_translation(Vec3::new(0.0, y, 0.0)),
            inverse_bind: Mat4::IDENTITY,
        };
        let skeleton = Skeleton::new(vec![
            joint("hip", None, 1.0),
            joint("knee", Some(0), -0.4),
            joint("ankle", Some(1), -0.4),
        ])
        .unwrap();
        let chain = TwoBoneChain::new(&skeleton, 0, 1, 2).unwrap();
        let mut pose: Pose = skeleton.rest_pose();
        pose.locals[0].scale = Vec3::new(1.0, 1.027, 1.0);
        pose.locals[1].rotation = Quat::from_rotation_x(0.3);
        let mut models = vec![Mat4::IDENTITY; 3];
        local_to_model(&skeleton, &pose.locals, &mut models);
        // A target ahead and below, well within reach.
        let opts = TwoBoneOptions::new(Vec3::new(0.0, 0.35, 0.25));
        let (mut once, mut once_models) = (pose.clone(), models.clone());
        let one = chain
            .solve(&opts, &skeleton, &mut once, &mut once_models)
            .unwrap();
        let all = solve_onto(&chain, &opts, &skeleton, &mut pose, &mut models).unwrap();
        let off = (pos(&models[2]) - opts.target).length();
        // One pass misses by millimetres; the passes land on it.
        assert!(one.residual > 10.0 * SOLVE_TOLERANCE, "{}", one.residual);
        assert!(
            off <= SOLVE_TOLERANCE && all.residual <= SOLVE_TOLERANCE,
            "{off}"
        );
    }

    proptest! {
        #[test]
        fn a_hip_dropped_its_deepest_stays_clear_of_its_foot(
            x in -1.0f32..1.0, y in -1.5f32..0.5, z in -0.3f32..0.3,
            fold in 0.0f32..0.2, shortest in 0.0f32..0.4,
        ) {
            let v = Vec3::new(x, y, z);
            let d = deepest_drop(v, fold, shortest);
            prop_assert!(d >= 0.0 && d.is_finite());
            if d > 0.0 {
                // Dropped d, the foot lies fold below the hip and at
                // least shortest from it, one of them exactly...
                let after = v + Vec3::Y * d;
                prop_assert!(after.y <= -fold + 1e-4, "{after}");
                prop_assert!(after.length() >= shortest - 1e-4, "{after}");
                // ...and a millimetre more would break one of them.
                let more = v + Vec3::Y * (d + 1e-3);
                prop_assert!(more.y > -fold || more.length() < shortest);
            }
        }
    }

    proptest! {
        #[test]
        fn reach_for_bend_inverts_knee_bend(
            thigh in 0.1f32..1.0, shin in 0.1f32..1.0, t in 0.0f32..1.0,
        ) {
            let lo = (thigh - shin).abs();
            let reach = lo + (thigh + shin - lo) * t;
            let bend = knee_bend(thigh, shin, reach);
            prop_assert!((0.0..=PI).contains(&bend));
            let back = reach_for_bend(thigh, shin, bend);
            prop_assert!((back - reach).abs() < 2e-3, "{reach} -> {bend} -> {back}");
        }
    }

    proptest! {
        #[test]
        fn a_knee_turns_at_its_pace_at_the_reach_for_it(
            thigh in 0.2f32..0.6, shin in 0.2f32..0.6, rate in 0.05f32..4.0, speed in 4.0f32..30.0,
        ) {
            let full = thigh + shin;
            let reach = reach_at_knee_speed((thigh, shin), rate, speed);
            prop_assert!(reach <= full + 1e-6 && reach >= (thigh - shin).abs() - 1e-6);
            // The knee's turn, rad/s, for the leg lengthening `rate` from
            // `l` (over a short step), worked in f64: in f32 the
            // difference of the two nearly equal squares in the knee's
            // cosine is a few per cent off near a folded knee, and with
            // bones of 0.509 m each a span read as turning slower than the
            // pace where none does (proptest's saved cases).
            let dt = 1e-6f64;
            let (t, s) = (f64::from(thigh), f64::from(shin));
            let bend = |l: f64| {
                let cos = ((t * t + s * s - l * l) / (2.0 * t * s)).clamp(-1.0, 1.0);
                std::f64::consts::PI - cos.acos()
            };
            let turn = |l: f32| {
                let l = f64::from(l);
                ((bend(l) - bend(l + f64::from(rate) * dt)) / dt) as f32
            };
            let top = full - 2e-3;
            if reach < top {
                // Every span past the reach turns the knee faster than the
                // pace: the reach is the longest that keeps it.
                for k in 1..=8 {
                    let l = reach + 1e-3 + (top - reach - 1e-3) * k as f32 / 8.0;
                    prop_assert!(turn(l) > 0.98 * speed, "{} at {l} past {reach}", turn(l));
                }
                // At the reach itself the pace, where any span keeps it.
                let lo = (thigh - shin).abs();
                let keeps = (1..16).any(|k| turn(lo + (reach - lo) * k as f32 / 16.0) <= speed);
                if keeps {
                    prop_assert!((turn(reach) - speed).abs() < 0.03 * speed, "{} at {reach}", turn(reach));
                }
            }
        }
    }

    proptest! {
        #[test]
        fn a_locked_knee_follows_the_pelvis_within_its_turn(
            thigh in 0.2f32..0.6, shin in 0.2f32..0.6, x in -0.4f32..0.4, y in -1.0f32..-0.5,
            was in 0.0f32..0.2, more in 0.0f32..0.2, turn in 0.02f32..0.5,
        ) {
            // A foot within the leg's reach (it is locked there).
            let to_foot = Vec3::new(x, y, 0.0);
            let to_foot = to_foot.normalize() * to_foot.length().min(0.98 * (thigh + shin));
            let need = was + more;
            let d = drop_a_knee_follows(was, need, (thigh, shin), to_foot, turn);
            prop_assert!((was..=need).contains(&d), "{was} ≤ {d} ≤ {need}");
            let bend = |d: f32| knee_bend(thigh, shin, (to_foot + Vec3::Y * d).length());
            let turned = (bend(d) - bend(was)).abs();
            prop_assert!(turned <= turn + 1e-4, "{turned} > {turn}");
            // Held back only as far as the knee needs: all of its turn used.
            if d < need {
                prop_assert!(turned >= turn - 1e-3, "{turned} < {turn}");
            }
            // Rising is never held back.
            prop_assert_eq!(drop_a_knee_follows(need, was, (thigh, shin), to_foot, turn), was);
        }
    }

    proptest! {
        #[test]
        fn a_hip_held_for_its_knee_goes_no_lower_than_the_knee_needs(
            thigh in 0.2f32..0.6, shin in 0.2f32..0.6,
            x in -0.6f32..0.6, y in -1.2f32..-0.1, z in -0.2f32..0.2,
            drop in 0.0f32..0.2, top in 0.0f32..0.5, slower in -0.5f32..0.5,
        ) {
            let to_foot = Vec3::new(x, y, z);
            let bend = |d: f32| knee_bend(thigh, shin, (to_foot + Vec3::Y * d).length());
            // The bend to keep: about the one at this drop, more or less.
            let least = (bend(drop) + slower).clamp(0.0, PI);
            let held = hold_for_knee(drop, top, (thigh, shin), to_foot, least.cos());
            prop_assert!(held.is_finite());
            let top = top.min(-y);
            if held == drop {
                // Not held: the knee is bent enough, or no drop within
                // `top` (and the foot's height) bends it enough.
                prop_assert!(bend(drop) >= least - 1e-3 || top <= drop || bend(top) < least + 1e-3);
            } else {
                // Held: lower, within `top` and the foot's height, and
                // bent enough, but no more than a millimetre's worth.
                prop_assert!(held > drop && held <= top + 1e-6, "{held}");
                prop_assert!(bend(held) >= least - 1e-3, "{} < {least}", bend(held));
                prop_assert!(bend(held - 1e-3) < least + 1e-4, "{held}");
            }
        }
    }

    proptest! {
        #[test]
        fn a_knee_straightened_by_a_turn_is_bent_that_much_less(
            was in 0.0f32..3.1, turn in 0.0f32..0.5,
        ) {
            let c = straightened_cos(was.cos(), turn.sin_cos());
            if was > turn + 1e-3 {
                prop_assert!((c.acos() - (was - turn)).abs() < 2e-3, "{} vs {}", c.acos(), was - turn);
            } else if was < turn - 1e-3 {
                prop_assert!(c.is_nan());
            }
        }
    }

    #[test]
    fn a_body_rising_off_a_planted_foot_holds_its_hip_down_for_the_knee() {
        // A leg of 0.45 + 0.45 m over a foot 0.8 m under its hip (its knee
        // bent 0.92 rad): the body rising 4 cm in a frame straightens the
        // knee by 0.22 rad (14 rad/s at 64 Hz) at the same drop.
        let bones = (0.45, 0.45);
        let before = Vec3::new(0.1, -0.8, 0.0);
        let was = knee_bend(0.45, 0.45, before.length());
        let risen = before - Vec3::Y * 0.04;
        let straightened = was - knee_bend(0.45, 0.45, risen.length());
        assert!((0.2..0.25).contains(&straightened), "{straightened}");
        // Allowed 0.1 rad, the hip goes down far enough for that...
        let least = straightened_cos(was.cos(), 0.1f32.sin_cos());
        let held = hold_for_knee(0.0, 0.45, bones, risen, least);
        assert!(held > 0.0 && held < 0.04, "{held}");
        let bend = knee_bend(0.45, 0.45, (risen + Vec3::Y * held).length());
        assert!((bend - (was - 0.1)).abs() < 1e-3, "{bend}");
        // ...allowed the whole turn, or with no bend to keep, it stays.
        let least = straightened_cos(was.cos(), 0.25f32.sin_cos());
        assert_eq!(hold_for_knee(0.0, 0.45, bones, risen, least), 0.0);
        assert_eq!(hold_for_knee(0.0, 0.45, bones, risen, f32::NAN), 0.0);
        // A knee that no drop within reach bends that far is not held.
        assert_eq!(hold_for_knee(0.0, 0.01, bones, risen, was.cos()), 0.0);
    }
}
