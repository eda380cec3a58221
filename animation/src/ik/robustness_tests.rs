//! Robustness properties of every IK solver over wild and degenerate input:
//! zero-length and collinear bones, targets on the root, root scales from
//! 1e-3 to 1e3 (non-uniform and mirrored), and NaN/Inf in the job. Whatever
//! comes in, a solver either succeeds with a finite pose or refuses with an
//! error and leaves the pose as it was; it never panics and never writes NaN.
//!
//! The normal test run draws 10,000 cases per property. Set
//! `IRONSTEP_IK_CASES` for the long mode, e.g.
//! `IRONSTEP_IK_CASES=1000000 cargo test -p animation --release robustness`
//! (about ten minutes on two cores).

use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;

use super::batched::{LANES, TwoBoneBatch, TwoBoneBatchOut, solve_batch};
use super::{
    AimIk, CcdIk, ConeLimit, FabrikIk, HingeLimit, JointLimit, KneeStrategy, Pole, TwoBoneIk,
};
use crate::pose::{Pose, local_to_model};
use crate::skeleton::{JointDef, Skeleton};
use crate::transform::Transform;

/// Cases per property: 10,000 unless `IRONSTEP_IK_CASES` says otherwise.
fn cases() -> u32 {
    std::env::var("IRONSTEP_IK_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// A length drawn log-uniformly from 1e-3 to 1e3.
fn wide_len() -> impl Strategy<Value = f32> {
    (-3.0f32..3.0).prop_map(|e| 10f32.powf(e))
}

fn unit() -> impl Strategy<Value = Vec3> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_map(|(x, y, z)| Vec3::new(x, y, z).try_normalize().unwrap_or(Vec3::Y))
}

fn rotation() -> impl Strategy<Value = Quat> {
    (-3.2f32..3.2, -1.6f32..1.6, -3.2f32..3.2)
        .prop_map(|(a, b, c)| Quat::from_euler(glam::EulerRot::YXZ, a, b, c))
}

/// A non-finite or finite scalar: mostly finite, sometimes NaN or ±Inf.
fn maybe_bad(v: f32, pick: u8) -> f32 {
    match pick {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        _ => v,
    }
}

/// How a bone leaves its parent.
#[derive(Clone, Copy, Debug)]
enum Bone {
    /// Zero length: the child sits on its parent.
    Zero,
    /// Along the previous bone (a collinear chain).
    Collinear(f32),
    /// Any direction, any length.
    Free(Vec3, f32),
}

fn bone() -> impl Strategy<Value = Bone> {
    prop_oneof![
        1 => Just(Bone::Zero),
        2 => wide_len().prop_map(Bone::Collinear),
        4 => (unit(), wide_len()).prop_map(|(d, l)| Bone::Free(d, l)),
    ]
}

/// A five-joint chain below a wildly transformed root.
#[derive(Clone, Debug)]
struct WildChain {
    root_scale: Vec3,
    root_rotation: Quat,
    root_offset: Vec3,
    bones: [Bone; 4],
    rotations: [Quat; 5],
}

fn wild_chain() -> impl Strategy<Value = WildChain> {
    (
        // Uniform or non-uniform scale, possibly mirrored on one axis.
        (wide_len(), wide_len(), wide_len(), any::<bool>(), 0u8..4),
        rotation(),
        (unit(), wide_len()),
        [bone(), bone(), bone(), bone()],
        [rotation(), rotation(), rotation(), rotation(), rotation()],
    )
        .prop_map(
            |((sx, sy, sz, uniform, mirror), rot, (od, ol), bones, rotations)| {
                let mut s = if uniform {
                    Vec3::splat(sx)
                } else {
                    Vec3::new(sx, sy, sz)
                };
                match mirror {
                    0 => s.x = -s.x,
                    1 => s.z = -s.z,
                    _ => {}
                }
                WildChain {
                    root_scale: s,
                    root_rotation: rot,
                    root_offset: od * ol,
                    bones,
                    rotations,
                }
            },
        )
}

struct Rig {
    skeleton: Skeleton,
    pose: Pose,
    models: Vec<Mat4>,
}

impl WildChain {
    fn rig(&self) -> Rig {
        let mut defs = vec![JointDef {
            name: "root".into(),
            parent: None,
            rest: Transform::new(self.root_offset, self.root_rotation, self.root_scale),
            inverse_bind: Mat4::IDENTITY,
        }];
        let mut previous = Vec3::Y;
        for (k, b) in self.bones.iter().enumerate() {
            let offset = match *b {
                Bone::Zero => Vec3::ZERO,
                Bone::Collinear(l) => previous * l,
                Bone::Free(d, l) => {
                    previous = d;
                    d * l
                }
            };
            defs.push(JointDef {
                name: format!("j{k}"),
                parent: Some(k),
                rest: Transform::new(offset, self.rotations[k], Vec3::ONE),
                inverse_bind: Mat4::IDENTITY,
            });
        }
        // A toe below the last joint, so descendants are re-propagated too.
        defs.push(JointDef {
            name: "toe".into(),
            parent: Some(4),
            rest: Transform::new(Vec3::X * 0.1, self.rotations[4], Vec3::ONE),
            inverse_bind: Mat4::IDENTITY,
        });
        let skeleton = Skeleton::new(defs).expect("a valid chain skeleton");
        let pose = skeleton.rest_pose();
        let mut models = vec![Mat4::IDENTITY; skeleton.len()];
        local_to_model(&skeleton, &pose.locals, &mut models);
        Rig {
            skeleton,
            pose,
            models,
        }
    }
}

/// Where a target goes.
#[derive(Clone, Copy, Debug)]
enum TargetKind {
    /// Exactly on the chain's start joint.
    OnStart,
    /// Exactly on the chain's root.
    OnRoot,
    /// Where the end already is.
    OnEnd,
    /// Anywhere around the start, at any distance.
    Around(Vec3, f32),
    /// A component is NaN or infinite.
    NonFinite(u8, u8),
}

fn target_kind() -> impl Strategy<Value = TargetKind> {
    prop_oneof![
        1 => Just(TargetKind::OnStart),
        1 => Just(TargetKind::OnRoot),
        1 => Just(TargetKind::OnEnd),
        6 => (unit(), wide_len()).prop_map(|(d, l)| TargetKind::Around(d, l)),
        1 => (0u8..3, 0u8..3).prop_map(|(axis, pick)| TargetKind::NonFinite(axis, pick)),
    ]
}

fn pos(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

impl Rig {
    fn target(&self, kind: TargetKind, start: usize, end: usize) -> Vec3 {
        match kind {
            TargetKind::OnStart => pos(&self.models[start]),
            TargetKind::OnRoot => pos(&self.models[0]),
            TargetKind::OnEnd => pos(&self.models[end]),
            TargetKind::Around(d, l) => pos(&self.models[start]) + d * l,
            TargetKind::NonFinite(axis, pick) => {
                let mut t = pos(&self.models[start]);
                t[usize::from(axis)] = maybe_bad(0.0, pick);
                t
            }
        }
    }

    /// Checks the outcome of a solve: success leaves a finite pose whose
    /// model matrices match its locals; failure leaves everything as it was.
    fn check<T: std::fmt::Debug>(
        &self,
        before: &(Pose, Vec<Mat4>),
        outcome: Result<T, super::IkError>,
        must_fail: bool,
        residual: impl Fn(&T) -> f32,
    ) -> Result<(), TestCaseError> {
        match outcome {
            Ok(r) => {
                prop_assert!(!must_fail, "non-finite input accepted: {r:?}");
                prop_assert!(residual(&r).is_finite(), "non-finite residual: {r:?}");
                for (i, l) in self.pose.locals.iter().enumerate() {
                    prop_assert!(l.is_finite(), "joint {i} local went non-finite: {l:?}");
                }
                for (i, m) in self.models.iter().enumerate() {
                    prop_assert!(m.is_finite(), "joint {i} model went non-finite");
                }
            }
            Err(e) => {
                // Refusing is allowed for any degenerate input, but then the
                // pose must be exactly as it was and the error must say why.
                prop_assert!(!e.to_string().is_empty());
                prop_assert_eq!(&self.pose, &before.0);
                prop_assert_eq!(&self.models, &before.1);
            }
        }
        Ok(())
    }
}

fn knee() -> impl Strategy<Value = KneeStrategy> {
    prop_oneof![
        Just(KneeStrategy::MinimalMotion),
        Just(KneeStrategy::PosePreserving),
        (unit(), -3.0f32..3.0).prop_map(|(p, twist)| KneeStrategy::Pole {
            pole: Pole::Direction(p),
            twist
        }),
        (unit(), wide_len()).prop_map(|(d, l)| KneeStrategy::Pole {
            pole: Pole::Point(d * l),
            twist: 0.0
        }),
        Just(KneeStrategy::Pole {
            pole: Pole::Direction(Vec3::ZERO),
            twist: 0.0
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn two_bone_never_panics_or_writes_non_finite_values(
        chain in wild_chain(),
        target in target_kind(),
        knee in knee(),
        soften in prop_oneof![Just(1.0f32), 1e-3f32..1.0],
        hinge in prop_oneof![
            Just(None),
            (unit(), -3.1f32..0.0, 0.0f32..3.1).prop_map(|(axis, min, max)| Some(HingeLimit::new(axis, min, max))),
        ],
        end_rotation in prop_oneof![Just(None), (rotation(), 0.0f32..=1.0).prop_map(Some)],
        weight in prop_oneof![Just(1.0f32), Just(0.0f32), 0.0f32..=1.0],
        bad_option in 0u8..12,
    ) {
        let mut rig = chain.rig();
        let before = (rig.pose.clone(), rig.models.clone());
        let mut job = TwoBoneIk {
            knee,
            soften,
            hinge,
            end_rotation,
            weight,
            ..TwoBoneIk::new(1, 3, 4, rig.target(target, 1, 4))
        };
        // Now and then a non-finite option instead of a non-finite target.
        match bad_option {
            0 => job.weight = f32::NAN,
            1 => job.soften = f32::INFINITY,
            2 => job.end_rotation = Some((Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0), 1.0)),
            _ => {}
        }
        let must_fail = matches!(target, TargetKind::NonFinite(..)) || bad_option < 3;
        let outcome = job.solve(&rig.skeleton, &mut rig.pose, &mut rig.models);
        rig.check(&before, outcome, must_fail, |r| r.residual)?;
    }

    #[test]
    fn aim_never_panics_or_writes_non_finite_values(
        chain in wild_chain(),
        target in target_kind(),
        forward in prop_oneof![Just(Vec3::ZERO), unit()],
        up in prop_oneof![Just(Vec3::ZERO), unit()],
        pole in prop_oneof![Just(None), unit().prop_map(Some), Just(Some(Vec3::ZERO))],
        weight in 0.0f32..=1.0,
        joint in 1usize..5,
    ) {
        let mut rig = chain.rig();
        let before = (rig.pose.clone(), rig.models.clone());
        let job = AimIk { joint, target: rig.target(target, joint, 5), forward, up, pole, weight };
        let must_fail = matches!(target, TargetKind::NonFinite(..));
        let outcome = job.solve(&rig.skeleton, &mut rig.pose, &mut rig.models);
        rig.check(&before, outcome, must_fail, |r| r.residual_angle)?;
    }

    #[test]
    fn ccd_never_panics_or_writes_non_finite_values(
        chain in wild_chain(),
        target in target_kind(),
        limit in prop_oneof![
            Just(JointLimit::Free),
            (unit(), -3.1f32..0.0, 0.0f32..3.1).prop_map(|(axis, min, max)| JointLimit::Hinge(HingeLimit::new(axis, min, max))),
            (unit(), 0.0f32..std::f32::consts::PI, 0.0f32..std::f32::consts::PI).prop_map(|(axis, max_swing, max_twist)| JointLimit::Cone(ConeLimit { axis, max_swing, max_twist })),
        ],
        limited in any::<bool>(),
        max_step in 0.01f32..std::f32::consts::PI,
        tolerance in prop_oneof![Just(0.0f32), 1e-6f32..1e-1],
        max_iterations in 1u32..24,
    ) {
        let mut rig = chain.rig();
        let before = (rig.pose.clone(), rig.models.clone());
        let limits = [limit; 5];
        let job = CcdIk {
            start: 1,
            end: 5,
            target: rig.target(target, 1, 5),
            limits: if limited { &limits } else { &[] },
            max_step,
            tolerance,
            max_iterations,
        };
        let must_fail = matches!(target, TargetKind::NonFinite(..));
        let outcome = job.solve(&rig.skeleton, &mut rig.pose, &mut rig.models);
        rig.check(&before, outcome, must_fail, |r| r.residual)?;
    }

    #[test]
    fn fabrik_never_panics_or_writes_non_finite_values(
        chain in wild_chain(),
        target in target_kind(),
        pole in prop_oneof![Just(None), (unit(), wide_len()).prop_map(|(d, l)| Some(d * l))],
        cone in prop_oneof![Just(None), (0.0f32..std::f32::consts::PI).prop_map(Some)],
        tolerance in prop_oneof![Just(0.0f32), 1e-6f32..1e-1],
        max_iterations in 1u32..24,
    ) {
        let mut rig = chain.rig();
        let before = (rig.pose.clone(), rig.models.clone());
        let cones = [cone.unwrap_or(0.0); 5];
        let job = FabrikIk {
            start: 1,
            end: 5,
            target: rig.target(target, 1, 5),
            pole,
            cones: if cone.is_some() { &cones } else { &[] },
            tolerance,
            max_iterations,
        };
        let must_fail = matches!(target, TargetKind::NonFinite(..));
        let outcome = job.solve(&rig.skeleton, &mut rig.pose, &mut rig.models);
        rig.check(&before, outcome, must_fail, |r| r.residual)?;
    }

    #[test]
    fn batched_lanes_stay_finite_for_degenerate_finite_input(
        lanes in proptest::collection::vec(
            (
                (unit(), wide_len()),
                prop_oneof![Just(None), (unit(), wide_len()).prop_map(Some)],
                prop_oneof![Just(None), (unit(), wide_len()).prop_map(Some)],
                prop_oneof![Just(None), (unit(), wide_len()).prop_map(Some)],
                prop_oneof![Just(Vec3::ZERO), unit()],
                prop_oneof![Just(1.0f32), 1e-3f32..1.0],
                any::<bool>(),
            ),
            LANES,
        ),
    ) {
        let mut input = TwoBoneBatch::default();
        for (i, ((hd, hl), knee, end, target, hint, soften, collinear)) in lanes.iter().enumerate() {
            let hip = *hd * *hl;
            // Missing offsets put the point on the one before it (zero-length bones).
            let knee = knee.map_or(hip, |(d, l)| hip + d * l);
            let end = if *collinear {
                knee + (knee - hip)
            } else {
                end.map_or(knee, |(d, l)| knee + d * l)
            };
            let target = target.map_or(hip, |(d, l)| hip + d * l);
            input.start.set(i, hip);
            input.mid.set(i, knee);
            input.end.set(i, end);
            input.target.set(i, target);
            input.hint.set(i, *hint);
            input.soften[i] = *soften;
        }
        let mut out = TwoBoneBatchOut::default();
        solve_batch(&input, &mut out);
        for i in 0..LANES {
            let s = out.lane(i);
            prop_assert!(s.points.mid.is_finite() && s.points.end.is_finite(), "lane {i}: {s:?}");
            prop_assert!(s.start_delta.is_finite() && s.mid_delta.is_finite(), "lane {i}: {s:?}");
        }
    }
}
