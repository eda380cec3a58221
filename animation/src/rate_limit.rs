//! Joint speed limiting: each joint's local rotation turns at most a given
//! angle from one frame to the next.
//!
//! IK answers each frame on its own. Where a constraint changes fast (a foot
//! swinging up a slope, a hand passing close to its shoulder, the pelvis
//! lowering late for a landing) the answer can turn a joint further in one
//! frame than any joint of a body turns, and the player sees a snap. This job
//! takes the previous frame's output and the current pose, and moves each
//! joint that turned too far back along the shortest arc toward where it was,
//! to exactly the limit. A joint within the limit is left bit for bit as it
//! was. Translations and scales are never touched.
//!
//! The job only limits; it does not restore what the joints held. A caller
//! whose limbs hold something (a planted foot, a hand on a rung) solves them
//! back onto their holds afterwards, keeping the limited knee's side, which
//! is where most of a fast turn goes when a limb passes near its own root.

use glam::Quat;

use crate::transform::Transform;

avx2_builds! {
    kernel = limit_rotations_kernel;
    /// Turns every rotation of `locals` that is further than `max_angle` radians
    /// from its `previous` rotation back along the shortest arc to exactly
    /// `max_angle` from it. Returns the number of joints limited.
    ///
    /// `previous` and `locals` pair up joint by joint; extra entries of either
    /// are ignored. A non-finite or non-positive `max_angle` limits nothing, and a
    /// joint whose rotation (now or before) is not finite is left alone: limiting
    /// never turns bad input into a plausible-looking pose.
    pub fn limit_rotations(previous: &[Quat], locals: &mut [Transform], max_angle: f32) -> usize {
        if !(max_angle.is_finite() && max_angle > 0.0) {
            return 0;
        }
        // cos(θ/2) of the largest angle allowed: a pair of unit quaternions
        // whose |dot| is at least this is within the limit.
        let min_dot = (0.5 * max_angle).min(std::f32::consts::FRAC_PI_2).cos();
        let mut limited = 0;
        for (prev, now) in previous.iter().zip(locals.iter_mut()) {
            let q = now.rotation;
            let dot = prev.dot(q);
            if !dot.is_finite() || dot.abs() >= min_dot {
                continue;
            }
            // Same hemisphere as the previous rotation, so the arc is the
            // shortest one.
            let q = if dot < 0.0 { -q } else { q };
            let angle = 2.0 * dot.abs().min(1.0).acos();
            if angle <= max_angle {
                continue;
            }
            now.rotation = prev.slerp(q, max_angle / angle).normalize();
            limited += 1;
        }
        limited
    }
}

/// The angle between two rotations, radians in [0, π] (either sign of a
/// quaternion is the same rotation).
pub fn rotation_angle(a: Quat, b: Quat) -> f32 {
    2.0 * a.dot(b).abs().min(1.0).acos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;
    use proptest::prelude::*;

    fn arb_quat() -> impl Strategy<Value = Quat> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_filter_map(
            "a rotation",
            |(x, y, z, w)| {
                let q = Quat::from_xyzw(x, y, z, w);
                (q.length() > 0.1).then(|| q.normalize())
            },
        )
    }

    fn with_rotation(q: Quat) -> Transform {
        Transform::new(Vec3::new(0.1, 0.2, 0.3), q, Vec3::ONE)
    }

    #[test]
    fn a_joint_within_the_limit_is_left_as_it_was() {
        let prev = [Quat::from_rotation_x(0.1)];
        let mut locals = [with_rotation(Quat::from_rotation_x(0.25))];
        let before = locals;
        assert_eq!(limit_rotations(&prev, &mut locals, 0.2), 0);
        assert_eq!(locals, before);
    }

    #[test]
    fn a_joint_past_the_limit_turns_exactly_the_limit_toward_its_new_rotation() {
        let prev = [Quat::from_rotation_z(0.0)];
        let mut locals = [with_rotation(Quat::from_rotation_z(0.9))];
        assert_eq!(limit_rotations(&prev, &mut locals, 0.3), 1);
        let (axis, angle) = locals[0].rotation.to_axis_angle();
        assert!((angle - 0.3).abs() < 1e-5, "{angle}");
        assert!(axis.abs_diff_eq(Vec3::Z, 1e-5), "{axis}");
        assert_eq!(locals[0].translation, Vec3::new(0.1, 0.2, 0.3));
    }

    #[test]
    fn the_opposite_sign_of_a_quaternion_is_the_same_rotation() {
        let prev = [Quat::from_rotation_y(0.2)];
        let mut locals = [with_rotation(-Quat::from_rotation_y(0.3))];
        assert_eq!(limit_rotations(&prev, &mut locals, 0.2), 0);
    }

    #[test]
    fn bad_input_limits_nothing() {
        let prev = [Quat::IDENTITY, Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)];
        let mut locals = [
            with_rotation(Quat::from_rotation_x(1.0)),
            with_rotation(Quat::from_rotation_x(1.0)),
        ];
        let before = locals;
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert_eq!(limit_rotations(&prev, &mut locals, bad), 0);
        }
        assert_eq!(limit_rotations(&prev, &mut locals, 0.5), 1);
        assert_eq!(locals[1], before[1]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]

        /// After limiting, no joint is further than the limit from where it
        /// was; one that was limited lies on the shortest arc toward its new
        /// rotation, and one that was not is untouched.
        #[test]
        fn every_joint_ends_within_the_limit_on_the_way_to_its_target(
            pairs in proptest::collection::vec((arb_quat(), arb_quat()), 1..8),
            max_angle in 0.01f32..3.0,
        ) {
            let prev: Vec<Quat> = pairs.iter().map(|p| p.0).collect();
            let mut locals: Vec<Transform> = pairs.iter().map(|p| with_rotation(p.1)).collect();
            let n = limit_rotations(&prev, &mut locals, max_angle);
            // Joints surely past the limit, and those that may be (within
            // rounding of it).
            let (mut surely, mut maybe) = (0, 0);
            for ((a, b), out) in pairs.iter().zip(&locals) {
                let before = rotation_angle(*a, *b);
                let after = rotation_angle(*a, out.rotation);
                prop_assert!(after <= max_angle + 1e-3, "{after} > {max_angle}");
                if before > max_angle - 1e-4 {
                    maybe += 1;
                }
                if before > max_angle + 1e-4 {
                    surely += 1;
                    // On the arc: the angles add up.
                    let rest = rotation_angle(out.rotation, *b);
                    prop_assert!((after + rest - before).abs() < 2e-3, "{after} + {rest} vs {before}");
                } else if before <= max_angle - 1e-4 {
                    prop_assert_eq!(out.rotation, *b);
                }
            }
            prop_assert!(surely <= n && n <= maybe, "{surely} <= {n} <= {maybe}");
        }

        /// The dispatched build (AVX2 where the processor has it) limits to
        /// the baseline build's bits.
        #[test]
        fn every_build_limits_to_the_baseline_bits(
            pairs in proptest::collection::vec((arb_quat(), arb_quat()), 1..8),
            max_angle in 0.01f32..3.0,
        ) {
            let prev: Vec<Quat> = pairs.iter().map(|p| p.0).collect();
            let mut got: Vec<Transform> = pairs.iter().map(|p| with_rotation(p.1)).collect();
            let mut want = got.clone();
            let n = limit_rotations(&prev, &mut got, max_angle);
            prop_assert_eq!(n, limit_rotations_kernel(&prev, &mut want, max_angle));
            let bits = |l: &[Transform]| l.iter().map(|t| t.rotation.to_array().map(f32::to_bits)).collect::<Vec<_>>();
            prop_assert_eq!(bits(&got), bits(&want));
        }
    }
}
