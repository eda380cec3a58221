//! Tests of the two-bone solver: the properties over random legs.

use super::*;
use crate::pose::local_to_model;
use crate::skeleton::JointDef;
use crate::transform::Transform;
use proptest::prelude::*;

/// Joint indices of the test rig: root, hip, thigh twist, knee, ankle.
const ROOT: usize = 0;
const HIP: usize = 1;
const KNEE: usize = 3;
const ANKLE: usize = 4;

/// How the rig's root is transformed (the cases ozz tests).
#[derive(Clone, Copy, Debug)]
enum RootKind {
    Identity,
    Translated,
    Rotated,
    UniformScale,
    NonUniformScale,
    Mirrored,
}

fn root_transform(kind: RootKind) -> Transform {
    let rot = Quat::from_euler(glam::EulerRot::XYZ, 0.4, -1.1, 2.3);
    match kind {
        RootKind::Identity => Transform::IDENTITY,
        RootKind::Translated => Transform::from_translation(Vec3::new(3.0, -2.0, 1.5)),
        RootKind::Rotated => Transform::new(Vec3::ZERO, rot, Vec3::ONE),
        RootKind::UniformScale => Transform::new(Vec3::new(1.0, 2.0, 0.0), rot, Vec3::splat(2.5)),
        RootKind::NonUniformScale => Transform::new(Vec3::X, rot, Vec3::new(0.5, 1.5, 2.0)),
        RootKind::Mirrored => Transform::new(Vec3::Y, rot, Vec3::new(-1.0, 1.0, 1.0)),
    }
}

fn root_kind() -> impl Strategy<Value = RootKind> {
    prop_oneof![
        Just(RootKind::Identity),
        Just(RootKind::Translated),
        Just(RootKind::Rotated),
        Just(RootKind::UniformScale),
        Just(RootKind::NonUniformScale),
        Just(RootKind::Mirrored),
    ]
}

fn unit() -> impl Strategy<Value = Vec3> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_filter("non-zero", |(x, y, z)| x * x + y * y + z * z > 1e-2)
        .prop_map(|(x, y, z)| Vec3::new(x, y, z).normalize())
}

fn rotation() -> impl Strategy<Value = Quat> {
    (-3.1f32..3.1, -1.5f32..1.5, -3.1f32..3.1)
        .prop_map(|(a, b, c)| Quat::from_euler(glam::EulerRot::YXZ, a, b, c))
}

/// A random leg: local rotations of hip, twist, knee, ankle and bone offsets.
#[derive(Clone, Debug)]
struct Leg {
    rotations: [Quat; 4],
    thigh: Vec3,
    twist_at: f32,
    shin: Vec3,
    foot: Vec3,
}

fn leg() -> impl Strategy<Value = Leg> {
    (
        [rotation(), rotation(), rotation(), rotation()],
        unit(),
        0.2f32..1.0,
        0.0f32..1.0,
        unit(),
        0.2f32..1.0,
        unit(),
    )
        .prop_map(|(rotations, td, tl, twist_at, sd, sl, fd)| Leg {
            rotations,
            thigh: td * tl,
            twist_at,
            shin: sd * sl,
            foot: fd * 0.1,
        })
}

struct Rig {
    skeleton: Skeleton,
    pose: Pose,
    models: Vec<Mat4>,
}

fn rig(leg: &Leg, kind: RootKind) -> Rig {
    let j = |name: &str, parent, t: Transform| JointDef {
        name: name.into(),
        parent,
        rest: t,
        inverse_bind: Mat4::IDENTITY,
    };
    let r = &leg.rotations;
    let skeleton = Skeleton::new(vec![
        j("root", None, root_transform(kind)),
        j(
            "hip",
            Some(ROOT),
            Transform::new(Vec3::new(0.1, 1.0, 0.0), r[0], Vec3::ONE),
        ),
        j(
            "thigh_twist",
            Some(HIP),
            Transform::new(leg.thigh * leg.twist_at, r[1], Vec3::ONE),
        ),
        j(
            "knee",
            Some(2),
            Transform::new(
                r[1].inverse() * (leg.thigh * (1.0 - leg.twist_at)),
                r[2],
                Vec3::ONE,
            ),
        ),
        j(
            "ankle",
            Some(KNEE),
            Transform::new(leg.shin, r[3], Vec3::ONE),
        ),
        j("toe", Some(ANKLE), Transform::from_translation(leg.foot)),
    ])
    .unwrap();
    let pose = skeleton.rest_pose();
    let mut models = vec![Mat4::IDENTITY; skeleton.len()];
    local_to_model(&skeleton, &pose.locals, &mut models);
    Rig {
        skeleton,
        pose,
        models,
    }
}

fn pos(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

impl Rig {
    /// Joint position in chain space (the root's local space).
    fn chain_pos(&self, joint: usize) -> Vec3 {
        self.models[ROOT]
            .inverse()
            .transform_point3(pos(&self.models[joint]))
    }
    fn to_model(&self, p: Vec3) -> Vec3 {
        self.models[ROOT].transform_point3(p)
    }
    fn lengths(&self) -> (f32, f32) {
        let (a, b, c) = (
            self.chain_pos(HIP),
            self.chain_pos(KNEE),
            self.chain_pos(ANKLE),
        );
        ((b - a).length(), (c - b).length())
    }
    fn solve(&mut self, job: &TwoBoneIk) -> TwoBoneResult {
        let r = job
            .solve(&self.skeleton, &mut self.pose, &mut self.models)
            .unwrap();
        let mut full = vec![Mat4::IDENTITY; self.skeleton.len()];
        local_to_model(&self.skeleton, &self.pose.locals, &mut full);
        for (i, (a, b)) in full.iter().zip(&self.models).enumerate() {
            assert!(
                a.abs_diff_eq(*b, 1e-3),
                "model matrix {i} not re-propagated"
            );
        }
        r
    }
}

/// A chain-space target at `ratio` of the way between the shortest and the
/// longest reach, in direction `dir` from the hip.
fn target_at(rig: &Rig, dir: Vec3, ratio: f32) -> Vec3 {
    let (l1, l2) = rig.lengths();
    let lo = (l1 - l2).abs();
    rig.chain_pos(HIP) + dir * (lo + (l1 + l2 - lo) * ratio)
}

fn job(target: Vec3) -> TwoBoneIk {
    TwoBoneIk::new(HIP, KNEE, ANKLE, target)
}

proptest! {
    #![proptest_config(ProptestConfig { max_global_rejects: 200_000, ..ProptestConfig::with_cases(10_000) })]

    #[test]
    fn bone_lengths_are_preserved(leg in leg(), kind in root_kind(), dir in unit(), ratio in -0.5f32..1.5) {
        let mut rig = rig(&leg, kind);
        let (l1, l2) = rig.lengths();
        let t = rig.to_model(target_at(&rig, dir, ratio));
        rig.solve(&job(t));
        let (n1, n2) = rig.lengths();
        prop_assert!((n1 - l1).abs() <= 1e-5 * l1.max(1.0) * 2.0, "thigh {l1} -> {n1}");
        prop_assert!((n2 - l2).abs() <= 1e-5 * l2.max(1.0) * 2.0, "shin {l2} -> {n2}");
    }

    #[test]
    fn reachable_targets_are_reached_under_any_root(
        leg in leg(), kind in root_kind(), dir in unit(), ratio in 0.02f32..0.98,
    ) {
        let mut rig = rig(&leg, kind);
        let (l1, l2) = rig.lengths();
        let tc = target_at(&rig, dir, ratio);
        let r = rig.solve(&job(rig.to_model(tc)));
        let err = (rig.chain_pos(ANKLE) - tc).length();
        prop_assert!(err <= 1e-4 * (l1 + l2), "chain-space error {err} for chain {}", l1 + l2);
        if matches!(kind, RootKind::Identity | RootKind::Translated | RootKind::Rotated) {
            prop_assert!(r.reached, "residual {}", r.residual);
        }
    }

    #[test]
    fn unreachable_targets_get_a_straight_chain_toward_them(
        leg in leg(), kind in root_kind(), dir in unit(), extra in 1.02f32..3.0,
    ) {
        let mut rig = rig(&leg, kind);
        let (l1, l2) = rig.lengths();
        let a = rig.chain_pos(HIP);
        let tc = a + dir * (l1 + l2) * extra;
        let r = rig.solve(&job(rig.to_model(tc)));
        prop_assert!(!r.reached);
        let (b, c) = (rig.chain_pos(KNEE), rig.chain_pos(ANKLE));
        prop_assert!((b - a).normalize().dot(dir) > 1.0 - 1e-4);
        prop_assert!((c - a).normalize().dot(dir) > 1.0 - 1e-4);
        prop_assert!(((c - a).length() - (l1 + l2)).abs() < 1e-4 * (l1 + l2));
    }

    #[test]
    fn too_close_targets_fold_the_longer_segment_toward_them(
        leg in leg(), dir in unit(), ratio in 0.05f32..0.9,
    ) {
        let mut rig = rig(&leg, RootKind::Identity);
        let (l1, l2) = rig.lengths();
        prop_assume!((l1 - l2).abs() > 0.05);
        let a = rig.chain_pos(HIP);
        let tc = a + dir * (l1 - l2).abs() * ratio;
        rig.solve(&job(tc));
        let (b, c) = (rig.chain_pos(KNEE), rig.chain_pos(ANKLE));
        let thigh = (b - a).normalize();
        let shin = (c - b).normalize();
        if l1 > l2 {
            prop_assert!(thigh.dot(dir) > 1.0 - 1e-3 && shin.dot(dir) < -1.0 + 1e-3);
        } else {
            prop_assert!(thigh.dot(dir) < -1.0 + 1e-3 && shin.dot(dir) > 1.0 - 1e-3);
        }
    }

    #[test]
    fn minimal_knee_is_the_circle_point_nearest_the_current_knee(
        leg in leg(), dir in unit(), ratio in 0.05f32..0.95,
    ) {
        let mut rig = rig(&leg, RootKind::Rotated);
        let (l1, l2) = rig.lengths();
        let (a, b0) = (rig.chain_pos(HIP), rig.chain_pos(KNEE));
        let tc = target_at(&rig, dir, ratio);
        rig.solve(&job(rig.to_model(tc)));
        let b = rig.chain_pos(KNEE);
        // Sample the circle of solutions.
        let d = (tc - a).length();
        let n = (tc - a) / d;
        let cos = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0);
        let centre = a + n * l1 * cos;
        let radius = l1 * (1.0 - cos * cos).sqrt();
        let e1 = n.any_orthonormal_vector();
        let e2 = n.cross(e1);
        let nearest = (0..256)
            .map(|i| {
                let ang = i as f32 * std::f32::consts::TAU / 256.0;
                let p = centre + (e1 * ang.cos() + e2 * ang.sin()) * radius;
                (p - b0).length()
            })
            .fold(f32::INFINITY, f32::min);
        prop_assert!(((b - centre).length() - radius).abs() < 1e-3 * (l1 + l2), "knee off the circle");
        prop_assert!((b - b0).length() <= nearest + 1e-4 * (l1 + l2), "{} > {nearest}", (b - b0).length());
    }

    #[test]
    fn pose_preserving_thigh_never_deviates_more_than_minimal_knee(
        leg in leg(), dir in unit(), ratio in -0.2f32..1.2,
    ) {
        let mut minimal = rig(&leg, RootKind::Identity);
        let animated = (minimal.chain_pos(KNEE) - minimal.chain_pos(HIP)).normalize();
        let tc = target_at(&minimal, dir, ratio);
        let mut preserving = rig(&leg, RootKind::Identity);
        minimal.solve(&job(tc));
        preserving.solve(&TwoBoneIk { knee: KneeStrategy::PosePreserving, ..job(tc) });
        let thigh = |r: &Rig| (r.chain_pos(KNEE) - r.chain_pos(HIP)).normalize();
        let dev_min = thigh(&minimal).dot(animated).clamp(-1.0, 1.0).acos();
        let dev_pres = thigh(&preserving).dot(animated).clamp(-1.0, 1.0).acos();
        prop_assert!(dev_pres <= dev_min + 1e-3, "{dev_pres} > {dev_min}");
    }

    #[test]
    fn knee_never_bends_outside_its_hinge_limits(
        leg in leg(), kind in prop_oneof![Just(RootKind::Identity), Just(RootKind::Rotated), Just(RootKind::UniformScale), Just(RootKind::Mirrored)],
        axis in unit(), dir in unit(), ratio in -0.3f32..1.3, lo in -0.5f32..0.5, span in 0.0f32..2.6,
    ) {
        let mut rig = rig(&leg, kind);
        let limit = HingeLimit::new(axis, lo, (lo + span).min(std::f32::consts::PI));
        let old_local = rig.pose.locals[KNEE].rotation;
        let tc = target_at(&rig, dir, ratio);
        rig.solve(&TwoBoneIk { hinge: Some(limit), ..job(rig.to_model(tc)) });
        // The knee turned only about its hinge axis (in its own frame).
        let delta = old_local.inverse() * rig.pose.locals[KNEE].rotation;
        prop_assert!((delta * axis - axis).length() < 1e-3, "knee left its hinge axis");
        // The bend angle lies within the limits.
        let (a, b, c) = (rig.chain_pos(HIP), rig.chain_pos(KNEE), rig.chain_pos(ANKLE));
        let root_inv = rig.models[ROOT].inverse();
        let h = glam::Mat3::from_mat4(root_inv * rig.models[KNEE]) * axis;
        let h = h.normalize();
        let u = b - a;
        let uperp = u - h * u.dot(h);
        let s = c - b;
        let sperp = s - h * s.dot(h);
        prop_assume!(uperp.length() > 1e-3 && sperp.length() > 1e-3);
        let theta = signed_angle_about(u, s, h);
        prop_assert!(theta >= limit.min() - 2e-3 && theta <= limit.max() + 2e-3,
            "bend {theta} outside [{}, {}]", limit.min(), limit.max());
    }

    #[test]
    fn hinged_reachable_targets_within_the_range_are_reached(
        leg in leg(), dir in unit(), ratio in 0.05f32..0.95,
    ) {
        // A full range [-pi, pi] constrains only the axis: every reach between the
        // hinge's shortest and longest is available.
        let mut rig = rig(&leg, RootKind::Rotated);
        let axis = Vec3::X;
        let (a, b, c) = (rig.chain_pos(HIP), rig.chain_pos(KNEE), rig.chain_pos(ANKLE));
        let h = (glam::Mat3::from_mat4(rig.models[ROOT].inverse() * rig.models[KNEE]) * axis).normalize();
        let (u, s) = (b - a, c - b);
        let s_par = h * s.dot(h);
        let k0 = (u + s_par).length_squared() + (s - s_par).length_squared();
        let k1 = 2.0 * (u - h * u.dot(h)).length() * (s - s_par).length();
        let (lo, hi) = ((k0 - k1).max(0.0).sqrt(), (k0 + k1).sqrt());
        let tc = a + dir * (lo + (hi - lo) * ratio);
        let limit = HingeLimit::new(axis, -std::f32::consts::PI, std::f32::consts::PI);
        rig.solve(&TwoBoneIk { hinge: Some(limit), ..job(rig.to_model(tc)) });
        let err = (rig.chain_pos(ANKLE) - tc).length();
        prop_assert!(err <= 1e-4 * (u.length() + s.length()) + 1e-5, "error {err}");
    }

    #[test]
    fn error_shrinks_monotonically_with_weight(
        leg in leg(), dir in unit(), ratio in 0.1f32..0.9, w1 in 0.0f32..1.0, w2 in 0.0f32..1.0,
    ) {
        let base = rig(&leg, RootKind::Identity);
        let (l1, l2) = base.lengths();
        let tc = target_at(&base, dir, ratio);
        let (a, c0) = (base.chain_pos(HIP), base.chain_pos(ANKLE));
        // Keep to cases where every weighted target stays reachable.
        let lo = (l1 - l2).abs() * 1.001;
        prop_assume!((0..=32).all(|i| {
            let d = (c0 + (tc - c0) * (i as f32 / 32.0) - a).length();
            d >= lo && d <= (l1 + l2) * 0.999
        }));
        let (wa, wb) = (w1.min(w2), w1.max(w2));
        let err = |w: f32| {
            let mut r = rig(&leg, RootKind::Identity);
            r.solve(&TwoBoneIk { weight: w, ..job(tc) });
            (r.chain_pos(ANKLE) - tc).length()
        };
        let (ea, eb) = (err(wa), err(wb));
        prop_assert!(eb <= ea + 1e-4 * (l1 + l2), "error {eb} at weight {wb} above {ea} at {wa}");
    }

    #[test]
    fn weight_zero_leaves_the_pose_as_it_was(
        leg in leg(), kind in root_kind(), dir in unit(), ratio in -0.5f32..1.5, pole in unit(),
    ) {
        let mut rig = rig(&leg, kind);
        let before = rig.pose.clone();
        let tc = target_at(&rig, dir, ratio);
        rig.solve(&TwoBoneIk {
            weight: 0.0,
            knee: KneeStrategy::Pole { pole: Pole::Direction(pole), twist: 0.5 },
            ..job(rig.to_model(tc))
        });
        prop_assert_eq!(rig.pose, before);
    }

    #[test]
    fn solver_never_produces_nan_even_for_degenerate_chains(
        thigh in prop_oneof![Just(Vec3::ZERO), unit()],
        shin in prop_oneof![Just(Vec3::ZERO), Just(Vec3::Y), unit()],
        rots in [rotation(), rotation(), rotation(), rotation()],
        kind in root_kind(),
        target in prop_oneof![Just(None), (unit(), 0.0f32..3.0).prop_map(Some)],
        knee in prop_oneof![
            Just(KneeStrategy::MinimalMotion),
            Just(KneeStrategy::PosePreserving),
            (unit(), -3.0f32..3.0).prop_map(|(p, t)| KneeStrategy::Pole { pole: Pole::Direction(p), twist: t }),
            Just(KneeStrategy::Pole { pole: Pole::Point(Vec3::ZERO), twist: 0.0 }),
        ],
        soften in prop_oneof![Just(1.0f32), 0.01f32..1.0],
        hinged in any::<bool>(),
        end_rot in prop_oneof![Just(None), (rotation(), 0.0f32..1.0).prop_map(Some)],
        weight in prop_oneof![Just(1.0f32), 0.0f32..1.0],
    ) {
        let leg = Leg { rotations: rots, thigh, twist_at: 0.5, shin, foot: Vec3::ZERO };
        let mut rig = rig(&leg, kind);
        // Target at the hip itself, or anywhere.
        let tc = match target {
            None => rig.chain_pos(HIP),
            Some((d, r)) => rig.chain_pos(HIP) + d * r,
        };
        let job = TwoBoneIk {
            knee,
            soften,
            hinge: hinged.then_some(HingeLimit::new(Vec3::X, 0.0, 2.6)),
            end_rotation: end_rot,
            weight,
            ..job(rig.to_model(tc))
        };
        let r = rig.solve(&job);
        prop_assert!(r.residual.is_finite());
        for (i, l) in rig.pose.locals.iter().enumerate() {
            prop_assert!(l.is_finite(), "joint {i} went non-finite");
        }
        for m in &rig.models {
            prop_assert!(m.is_finite());
        }
    }
}

#[test]
fn non_finite_inputs_are_refused_and_leave_the_pose_untouched() {
    let leg = Leg {
        rotations: [Quat::IDENTITY; 4],
        thigh: Vec3::NEG_Y * 0.5,
        twist_at: 0.5,
        shin: Vec3::NEG_Y * 0.5,
        foot: Vec3::Z * 0.1,
    };
    let mut rig = rig(&leg, RootKind::Identity);
    let (before, models) = (rig.pose.clone(), rig.models.clone());
    let bad = [
        TwoBoneIk {
            target: Vec3::new(f32::NAN, 0.0, 0.0),
            ..job(Vec3::ZERO)
        },
        TwoBoneIk {
            target: Vec3::splat(f32::INFINITY),
            ..job(Vec3::ZERO)
        },
        TwoBoneIk {
            weight: f32::NAN,
            ..job(Vec3::ZERO)
        },
        TwoBoneIk {
            weight: 1.5,
            ..job(Vec3::ZERO)
        },
        TwoBoneIk {
            soften: 0.0,
            ..job(Vec3::ZERO)
        },
        TwoBoneIk {
            knee: KneeStrategy::Pole {
                pole: Pole::Point(Vec3::NAN),
                twist: 0.0,
            },
            ..job(Vec3::ZERO)
        },
        TwoBoneIk {
            end_rotation: Some((Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0), 1.0)),
            ..job(Vec3::ZERO)
        },
        TwoBoneIk {
            hinge: Some(HingeLimit::new(Vec3::ZERO, 0.0, 1.0)),
            ..job(Vec3::ZERO)
        },
        TwoBoneIk::new(HIP, ANKLE, KNEE, Vec3::ZERO),
        TwoBoneIk::new(HIP, KNEE, 99, Vec3::ZERO),
    ];
    for j in bad {
        assert!(
            j.solve(&rig.skeleton, &mut rig.pose, &mut rig.models)
                .is_err(),
            "{j:?} accepted"
        );
        assert_eq!(rig.pose, before);
        assert_eq!(rig.models, models);
    }
    rig.models[KNEE].w_axis.x = f32::NAN;
    assert!(matches!(
        job(Vec3::ZERO).solve(&rig.skeleton, &mut rig.pose, &mut rig.models),
        Err(IkError::NonFinite { .. })
    ));
}

fn straight_leg() -> Rig {
    let leg = Leg {
        rotations: [Quat::IDENTITY; 4],
        thigh: Vec3::NEG_Y * 0.5,
        twist_at: 0.5,
        shin: Vec3::NEG_Y * 0.5 + Vec3::Z * 0.05,
        foot: Vec3::Z * 0.1,
    };
    rig(&leg, RootKind::Identity)
}

#[test]
fn pole_direction_bends_the_knee_toward_it() {
    for pole in [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z] {
        let mut rig = straight_leg();
        let t = rig.chain_pos(HIP) + Vec3::NEG_Y * 0.7;
        rig.solve(&TwoBoneIk {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(pole),
                twist: 0.0,
            },
            ..job(t)
        });
        let (a, b) = (rig.chain_pos(HIP), rig.chain_pos(KNEE));
        let knee = (b - a) - Vec3::NEG_Y * (b - a).dot(Vec3::NEG_Y);
        assert!(
            knee.normalize().dot(pole) > 0.999,
            "pole {pole}: knee {knee}"
        );
    }
}

#[test]
fn knee_moves_continuously_as_the_pole_lines_up_with_the_target() {
    // Sweep the pole through the hip->target axis (across the leg's bend
    // direction, -Z here): the knee must not jump.
    let mut last: Option<Vec3> = None;
    for i in 0..=400 {
        let ang = -0.3 + 0.6 * i as f32 / 400.0;
        let pole = Quat::from_rotation_z(ang) * Vec3::NEG_Y;
        let mut rig = straight_leg();
        let t = rig.chain_pos(HIP) + Vec3::NEG_Y * 0.8;
        rig.solve(&TwoBoneIk {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(pole),
                twist: 0.0,
            },
            ..job(t)
        });
        let b = rig.chain_pos(KNEE);
        if let Some(prev) = last {
            assert!(
                (b - prev).length() < 0.02,
                "knee jumped at pole angle {ang}: {prev} -> {b}"
            );
        }
        last = Some(b);
    }
}

#[test]
fn soften_eases_the_knee_toward_full_extension_without_a_pop() {
    let mut last: Option<Vec3> = None;
    for i in 0..=400 {
        let d = 0.7 + 0.5 * i as f32 / 400.0;
        let mut rig = straight_leg();
        let t = rig.chain_pos(HIP) + Vec3::new(0.0, -d, 0.1);
        let r = rig.solve(&TwoBoneIk {
            soften: 0.9,
            ..job(t)
        });
        let b = rig.chain_pos(KNEE);
        if let Some(prev) = last {
            assert!((b - prev).length() < 0.01, "knee popped at distance {d}");
        }
        if d > 0.95 {
            assert!(
                !r.reached,
                "softened chain should not snap onto a far target"
            );
        }
        last = Some(b);
    }
}

#[test]
fn end_rotation_turns_the_foot_to_the_ground_normal() {
    let mut rig = straight_leg();
    let t = rig.chain_pos(HIP) + Vec3::new(0.1, -0.8, 0.1);
    let goal = Quat::from_rotation_z(0.3);
    let r = rig.solve(&TwoBoneIk {
        end_rotation: Some((goal, 1.0)),
        ..job(t)
    });
    assert!(r.reached);
    let (_, q, _) = rig.models[ANKLE].to_scale_rotation_translation();
    assert!(
        q.dot(goal).abs() > 1.0 - 1e-5,
        "foot rotation {q} not {goal}"
    );
    // Half the weight turns it half way.
    let mut half = straight_leg();
    half.solve(&TwoBoneIk {
        end_rotation: Some((goal, 0.5)),
        ..job(t)
    });
    let (_, q, _) = half.models[ANKLE].to_scale_rotation_translation();
    assert!(q.angle_between(goal) > 0.05 && q.angle_between(goal) < 0.3);
}

#[test]
fn chain_handle_refuses_bad_chains_once_and_bad_input_every_frame() {
    let mut rig = straight_leg();
    assert!(matches!(
        TwoBoneChain::new(&rig.skeleton, HIP, ANKLE, KNEE),
        Err(IkError::NotAChain { .. })
    ));
    assert!(matches!(
        TwoBoneChain::new(&rig.skeleton, HIP, KNEE, 99),
        Err(IkError::JointOutOfRange { .. })
    ));
    let chain = TwoBoneChain::new(&rig.skeleton, HIP, KNEE, ANKLE).unwrap();
    let (before, models) = (rig.pose.clone(), rig.models.clone());
    for target in [Vec3::NAN, Vec3::splat(f32::INFINITY)] {
        let r = chain.solve(
            &TwoBoneOptions::new(target),
            &rig.skeleton,
            &mut rig.pose,
            &mut rig.models,
        );
        assert!(matches!(r, Err(IkError::NonFinite { .. })));
        assert_eq!(rig.pose, before);
        assert_eq!(rig.models, models);
    }
    rig.pose.locals[KNEE].rotation.x = f32::NAN;
    let r = chain.solve(
        &TwoBoneOptions::new(Vec3::ZERO),
        &rig.skeleton,
        &mut rig.pose,
        &mut rig.models,
    );
    assert!(matches!(r, Err(IkError::NonFinite { .. })));
    assert_eq!(rig.models, models);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn chain_handle_and_core_agree_with_the_job(
        leg in leg(), kind in root_kind(), dir in unit(), ratio in -0.3f32..1.3, pole in unit(),
        hinged in any::<bool>(), weight in 0.1f32..1.0,
    ) {
        let mut by_job = rig(&leg, kind);
        let mut by_chain = rig(&leg, kind);
        let tc = target_at(&by_job, dir, ratio);
        let job = TwoBoneIk {
            knee: KneeStrategy::Pole { pole: Pole::Direction(pole), twist: 0.3 },
            soften: 0.9,
            hinge: hinged.then_some(HingeLimit::new(Vec3::X, -2.0, 0.5)),
            end_rotation: Some((Quat::from_rotation_y(0.4), 0.7)),
            weight,
            ..job(by_job.to_model(tc))
        };
        // The core's predicted end position is where the job puts the end.
        let m = |j: usize| glam::Affine3A::from_mat4(by_job.models[j]);
        let fix = solve_core(&m(HIP), &m(KNEE), &m(ANKLE), &job.options()).unwrap();
        let r1 = by_job.solve(&job);
        let chain = TwoBoneChain::new(&by_chain.skeleton, HIP, KNEE, ANKLE).unwrap();
        let r2 = chain.solve(&job.options(), &by_chain.skeleton, &mut by_chain.pose, &mut by_chain.models).unwrap();
        prop_assert_eq!(r1, r2);
        prop_assert_eq!(&by_job.pose, &by_chain.pose);
        let end = pos(&by_job.models[ANKLE]);
        let (l1, l2) = by_job.lengths();
        let scale = glam::Mat3::from_mat4(by_job.models[ROOT]).determinant().abs().cbrt().max(1.0);
        prop_assert!((fix.end_position - end).length() <= 1e-4 * (l1 + l2) * scale * 4.0,
            "core predicts {} but the job put the end at {end}", fix.end_position);
    }

    /// The chain's `prepare` and `apply` as dispatched (their AVX2 builds on
    /// a processor with AVX2) give the baseline builds' bits: the chain's
    /// matrices, then the local pose, the model matrices and the result.
    #[test]
    fn every_build_of_prepare_and_apply_gives_the_baseline_bits(
        leg in leg(), kind in root_kind(), dir in unit(), ratio in -0.3f32..1.3, pole in unit(),
        hinged in any::<bool>(), weight in 0.0f32..1.0, end in any::<bool>(),
    ) {
        let mut a = rig(&leg, kind);
        let mut b = rig(&leg, kind);
        let tc = target_at(&a, dir, ratio);
        let opts = TwoBoneIk {
            knee: KneeStrategy::Pole { pole: Pole::Direction(pole), twist: 0.3 },
            soften: 0.9,
            hinge: hinged.then_some(HingeLimit::new(Vec3::X, -2.0, 0.5)),
            end_rotation: end.then_some((Quat::from_rotation_y(0.4), 0.7)),
            weight,
            ..job(a.to_model(tc))
        }
        .options();
        let chain = TwoBoneChain::new(&a.skeleton, HIP, KNEE, ANKLE).unwrap();
        let affine_bits = |m: &[Affine3A; 3]| m.map(|m| m.to_cols_array().map(f32::to_bits));
        let dispatched = chain.prepare(&opts, &a.skeleton, &a.pose, &a.models).unwrap();
        let baseline = chain.prepare_kernel(&opts, &b.skeleton, &b.pose, &b.models).unwrap();
        prop_assert_eq!(affine_bits(&dispatched), affine_bits(&baseline));
        let [s, m, e] = baseline;
        let Ok(fix) = solve_core(&s, &m, &e, &opts) else { return Ok(()) };
        let ra = chain.apply(&fix, &opts, &a.skeleton, &mut a.pose, &mut a.models);
        let rb = chain.apply_kernel(&fix, &opts, &b.skeleton, &mut b.pose, &mut b.models);
        let result_bits = |r: &Result<TwoBoneResult, IkError>| {
            r.as_ref().map(|r| (r.reached, r.residual.to_bits())).map_err(|e| e.to_string())
        };
        prop_assert_eq!(result_bits(&ra), result_bits(&rb));
        let model_bits = |r: &Rig| r.models.iter().map(|m| m.to_cols_array().map(f32::to_bits)).collect::<Vec<_>>();
        let rotation_bits = |r: &Rig| r.pose.locals.iter().map(|t| t.rotation.to_array().map(f32::to_bits)).collect::<Vec<_>>();
        prop_assert_eq!(model_bits(&a), model_bits(&b));
        prop_assert_eq!(rotation_bits(&a), rotation_bits(&b));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn branch_free_rotation_extraction_matches_glam(
        r in rotation(), scale in (0.2f32..3.0, 0.2f32..3.0, 0.2f32..3.0), mirrored in any::<bool>(),
    ) {
        let s = Vec3::new(if mirrored { -scale.0 } else { scale.0 }, scale.1, scale.2);
        let m = Affine3A::from_scale_rotation_translation(s, r, Vec3::ZERO);
        let fast = rotation_of_fast(&m).normalize();
        let general = rotation_of(&m.matrix3);
        let fast = if fast.dot(general) < 0.0 { -fast } else { fast };
        prop_assert!(fast.abs_diff_eq(general, 2e-6), "{fast} vs {general}");
    }

    #[test]
    fn fast_turn_power_agrees_with_the_general_one(r in rotation(), k in 0.0f32..1.0, small in any::<bool>()) {
        // Large turns and turns of a few milliradians alike.
        let r = if small { Quat::IDENTITY.slerp(r, 1e-3) } else { r };
        let r = if r.w < 0.0 { -r } else { r };
        let (fast, general) = (turn_power(r * 3.5, k), weighted_turn(r, k));
        prop_assert!(fast.abs_diff_eq(general, 1e-6), "{r} ^ {k}: {fast} vs {general}");
        prop_assert!(fast.abs_diff_eq(Quat::IDENTITY.slerp(r, k), 2e-6));
    }
}

/// A float that is often special: NaN, ±infinity, zero, the edges of the
/// documented ranges (0, 1, ±π) and just past them, or any value.
fn edgy() -> impl Strategy<Value = f32> {
    let pi = std::f32::consts::PI;
    prop_oneof![
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(0.0f32),
        Just(-0.0f32),
        Just(1.0f32),
        Just(1.0 + f32::EPSILON),
        Just(-f32::MIN_POSITIVE),
        Just(pi),
        Just(-pi),
        Just(pi.next_up()),
        Just((-pi).next_down()),
        Just(1e-7f32),
        -4.0f32..4.0,
    ]
}

fn edgy_vec() -> impl Strategy<Value = Vec3> {
    (edgy(), edgy(), edgy()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn edgy_options() -> impl Strategy<Value = TwoBoneOptions> {
    let knee = prop_oneof![
        Just(KneeStrategy::MinimalMotion),
        Just(KneeStrategy::PosePreserving),
        (edgy_vec(), edgy(), any::<bool>()).prop_map(|(p, twist, point)| KneeStrategy::Pole {
            pole: if point {
                Pole::Point(p)
            } else {
                Pole::Direction(p)
            },
            twist,
        }),
    ];
    let hinge = prop::option::of(
        (edgy_vec(), edgy(), edgy()).prop_map(|(a, lo, hi)| HingeLimit::new(a, lo, hi)),
    );
    let end = prop::option::of(
        ((edgy(), edgy(), edgy(), edgy()), edgy())
            .prop_map(|((x, y, z, w), ew)| (Quat::from_xyzw(x, y, z, w), ew)),
    );
    (edgy_vec(), knee, edgy(), hinge, end, edgy()).prop_map(
        |(target, knee, soften, hinge, end_rotation, weight)| TwoBoneOptions {
            target,
            knee,
            soften,
            hinge,
            end_rotation,
            weight,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// The branch-free validity checks accept exactly what the
    /// one-by-one checks accept, special values included.
    #[test]
    fn is_valid_agrees_with_the_checks_one_by_one(o in edgy_options()) {
        prop_assert_eq!(o.is_valid(), o.check_each().is_ok(), "{:?}", o);
        prop_assert_eq!(o.validate().is_ok(), o.is_valid());
        if let Some(h) = &o.hinge {
            prop_assert_eq!(h.is_valid(), h.check_each().is_ok(), "{:?}", h);
        }
    }
}

/// A hinged leg straightening onto a target out of reach, whose shin leans
/// a third of a millimetre along its knee's hinge axis (Mannequiny's shins
/// lean so), keeps its hinge axis where it was: the knee's tiny sideways
/// offset must not decide how the leg turns about its hip→target line
/// (turned toward the pole, it spun Mannequiny's leg a quarter turn in one
/// frame as his knee straightened). Both the fast and the general path.
#[test]
fn a_straightening_hinged_leg_does_not_spin_about_its_axis() {
    let leg = Leg {
        rotations: [Quat::IDENTITY; 4],
        thigh: Vec3::NEG_Y * 0.45,
        twist_at: 0.5,
        shin: Vec3::NEG_Y * 0.45 + Vec3::X * 3e-4,
        foot: Vec3::Z * 0.1,
    };
    // A positive bend about +X swings the shin back, so the knee goes
    // forward (+Z): the pole.
    let limit = HingeLimit::new(Vec3::X, 0.0, 2.7);
    for kind in [RootKind::Identity, RootKind::Rotated, RootKind::Mirrored] {
        let mut last: Option<Vec3> = None;
        for i in 0..=100 {
            let rig = rig(&leg, kind);
            // From a bent knee (0.8 m) to out of reach (1.0 m; the leg is 0.9 m).
            let d = 0.8 + 0.2 * i as f32 / 100.0;
            let dir = Vec3::new(0.0, -1.0, 0.05).normalize();
            let t = rig.to_model(rig.chain_pos(HIP) + dir * d);
            let root = Mat3A::from_mat4(rig.models[ROOT]);
            let opts = TwoBoneOptions {
                knee: KneeStrategy::Pole {
                    pole: Pole::Direction((root * Vec3A::Z).into()),
                    twist: 0.0,
                },
                hinge: Some(limit),
                ..TwoBoneOptions::new(t)
            };
            let a = |j: usize| Affine3A::from_mat4(rig.models[j]);
            let fast = solve_core_fast(&a(HIP), &a(KNEE), &a(ANKLE), &opts)
                .expect("the fast path takes a plain leg");
            let general = solve_core_general(&a(HIP), &a(KNEE), &a(ANKLE), &opts).unwrap();
            let hip = Mat3A::from_mat4(rig.models[HIP]);
            let before = (hip * Vec3A::X).normalize();
            for (path, fix) in [("fast", fast), ("general", general)] {
                let after = (hip * (fix.start * Vec3A::X)).normalize();
                let turned = before.dot(after).clamp(-1.0, 1.0).acos().to_degrees();
                assert!(
                    turned < 3.0,
                    "{kind:?} {path} at {d} m: the hinge axis turned {turned}°"
                );
                if path == "fast" {
                    if let Some(prev) = last {
                        let step = prev.dot(after.into()).clamp(-1.0, 1.0).acos().to_degrees();
                        assert!(step < 1.0, "{kind:?} at {d} m: hinge jumped {step}°");
                    }
                    last = Some(after.into());
                }
            }
        }
    }
}
