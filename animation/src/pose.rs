//! Poses (local transforms per joint) and the local-to-model job, whole or
//! from one joint downward.

use glam::{Mat4, Quat, Vec3, Vec3A, Vec3Swizzles, Vec4};

use crate::skeleton::{MAX_JOINTS, Skeleton};
use crate::transform::Transform;

/// The local transform of every joint of one skeleton, in joint order.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// Local (parent-relative) transforms, one per joint.
    pub locals: Vec<Transform>,
}

impl Pose {
    /// A pose of `len` identity transforms.
    pub fn identity(len: usize) -> Self {
        Self {
            locals: vec![Transform::IDENTITY; len],
        }
    }

    /// Number of joints.
    pub fn len(&self) -> usize {
        self.locals.len()
    }

    /// True when the pose has no joints.
    pub fn is_empty(&self) -> bool {
        self.locals.is_empty()
    }
}

avx2_builds! {
    kernel = local_to_model_kernel;
    /// Computes every joint's model-space matrix from its local transform.
    ///
    /// `locals` and `models` must both hold one entry per joint of `skeleton`
    /// (panics otherwise: a length mismatch is a programming error, not bad data).
    /// Roots use the identity as their parent. Runs in one forward pass because the
    /// skeleton is sorted parent-before-child; allocates nothing.
    pub fn local_to_model(skeleton: &Skeleton, locals: &[Transform], models: &mut [Mat4]) {
        let n = skeleton.len();
        assert_eq!(locals.len(), n, "pose length differs from skeleton");
        assert_eq!(
            models.len(),
            n,
            "model matrix buffer length differs from skeleton"
        );
        let parents = skeleton.raw_parents();
        for (i, (&p, local)) in parents.iter().zip(locals).enumerate() {
            // A root's parent is the identity (the same products as any joint's,
            // apart so that a child's loop reads its parent straight).
            models[i] = if p == u16::MAX {
                compose(&Mat4::IDENTITY, local)
            } else {
                let parent = models[p as usize];
                compose(&parent, local)
            };
        }
    }
}

/// How many poses [`local_to_model_x4`] builds at once.
pub const LOCAL_TO_MODEL_LANES: usize = 4;

avx2_builds! {
    kernel = local_to_model_x4_kernel;
    /// [`local_to_model`] for four poses of the same skeleton at once: the same
    /// products in the same order for each pose, so each pose's matrices have
    /// the bits [`local_to_model`] gives it alone.
    ///
    /// Why four at once: one pose's pass is a chain in which each joint waits
    /// for its parent's matrix (a product and two sums, then a store read back
    /// by the child), so a processor that could start several joints at a
    /// time idles between them. Four poses' joints interleaved are four
    /// independent chains, which fill that wait (a crowd's group of knights,
    /// `game::character::crowd`). Four is enough to hide the chain's latency
    /// on the processors measured (BENCHMARKS.md); more would only lengthen
    /// the working set.
    ///
    /// Panics where a pose's `locals` or `models` length differs from the
    /// skeleton's (a programming error, as in [`local_to_model`]).
    pub fn local_to_model_x4(
        skeleton: &Skeleton,
        locals: [&[Transform]; LOCAL_TO_MODEL_LANES],
        models: [&mut [Mat4]; LOCAL_TO_MODEL_LANES],
    ) {
        let n = skeleton.len();
        let [m0, m1, m2, m3] = models;
        let [l0, l1, l2, l3] = locals;
        for (l, m) in [(l0, &*m0), (l1, &*m1), (l2, &*m2), (l3, &*m3)] {
            assert_eq!(l.len(), n, "pose length differs from skeleton");
            assert_eq!(m.len(), n, "model matrix buffer length differs from skeleton");
        }
        let parents = skeleton.raw_parents();
        for (i, &p) in parents.iter().enumerate() {
            if p == u16::MAX {
                m0[i] = compose(&Mat4::IDENTITY, &l0[i]);
                m1[i] = compose(&Mat4::IDENTITY, &l1[i]);
                m2[i] = compose(&Mat4::IDENTITY, &l2[i]);
                m3[i] = compose(&Mat4::IDENTITY, &l3[i]);
            } else {
                let p = p as usize;
                m0[i] = compose(&m0[p], &l0[i]);
                m1[i] = compose(&m1[p], &l1[i]);
                m2[i] = compose(&m2[p], &l2[i]);
                m3[i] = compose(&m3[p], &l3[i]);
            }
        }
    }
}

avx2_builds! {
    kernel = local_to_model_from_kernel;
    /// Recomputes the model matrices of `from` and all of its descendants, leaving
    /// every other joint as it was.
    ///
    /// This is the partial re-propagation an IK solver needs after it changes the
    /// local rotation of one joint of a chain: the joint's parent model matrix must
    /// already be correct. Allocates nothing (dirty joints are marked in a
    /// stack bitset of [`MAX_JOINTS`] bits).
    pub fn local_to_model_from(
        skeleton: &Skeleton,
        from: usize,
        locals: &[Transform],
        models: &mut [Mat4],
    ) {
        let n = skeleton.len();
        assert_eq!(locals.len(), n, "pose length differs from skeleton");
        assert_eq!(
            models.len(),
            n,
            "model matrix buffer length differs from skeleton"
        );
        assert!(from < n, "joint {from} out of range");
        for_subtree(skeleton, from, |i, p| {
            let parent = p.map_or(Mat4::IDENTITY, |p| models[p]);
            models[i] = compose(&parent, &locals[i]);
        });
    }
}

avx2_builds! {
    kernel = translate_subtree_kernel;
    /// Moves `from` and all of its descendants by `offset` in model space,
    /// leaving every other joint as it was.
    ///
    /// This is what [`local_to_model_from`] computes after `from`'s local
    /// translation changed by its parent's inverse applied to `offset` (a
    /// translation of one joint moves its whole subtree rigidly), for the price
    /// of one addition per joint instead of a matrix product: the foot IK's
    /// pelvis drop uses it. Equal to the re-propagation up to rounding.
    /// Allocates nothing.
    pub fn translate_subtree(skeleton: &Skeleton, from: usize, offset: Vec3, models: &mut [Mat4]) {
        let n = skeleton.len();
        assert_eq!(
            models.len(),
            n,
            "model matrix buffer length differs from skeleton"
        );
        assert!(from < n, "joint {from} out of range");
        let offset = offset.extend(0.0);
        for_subtree(skeleton, from, |i, _| models[i].w_axis += offset);
    }
}

/// Calls `visit(joint, parent)` for `from` and then each of its descendants,
/// every parent before its children (the skeleton's order); `parent` is
/// `None` for a root. Only `from..skeleton.subtree_end(from)` is walked: all
/// of it when the subtree fills it ([`Skeleton::subtree_is_contiguous`], a
/// depth-first order there), else with the subtree marked in a stack bitset
/// of [`MAX_JOINTS`] bits; nothing is allocated. Always inlined, so that
/// each caller's AVX2 build has its own copy (see [`crate::dispatch`]).
#[inline(always)]
fn for_subtree(skeleton: &Skeleton, from: usize, mut visit: impl FnMut(usize, Option<usize>)) {
    let parents = &skeleton.raw_parents()[..skeleton.subtree_end(from)];
    if skeleton.subtree_is_contiguous(from) {
        for (i, &p) in parents.iter().enumerate().skip(from) {
            visit(i, (p != u16::MAX).then_some(p as usize));
        }
        return;
    }
    let mut inside = [0u64; MAX_JOINTS / 64];
    for (i, &p) in parents.iter().enumerate().skip(from) {
        let parent = (p != u16::MAX).then_some(p as usize);
        let in_subtree = i == from || parent.is_some_and(|p| (inside[p / 64] >> (p % 64)) & 1 == 1);
        if in_subtree {
            visit(i, parent);
            inside[i / 64] |= 1 << (i % 64);
        }
    }
}

/// `parent · local` with `local` given as translation, rotation and scale:
/// the local matrix is affine (bottom row 0 0 0 1), so its three linear
/// columns take three vector products each and its translation four, where
/// a general 4×4 product takes four for every column. Equal to
/// `parent * local.to_mat4()` up to rounding, and bit for bit to building
/// the local matrix with glam's `Affine3A::from_scale_rotation_translation`
/// first (see [`rotation_columns`]).
#[inline]
fn compose(parent: &Mat4, local: &Transform) -> Mat4 {
    let (x, y, z) = rotation_columns(local.rotation);
    let s = local.scale;
    let column = |v: Vec3A| parent.x_axis * v.x + parent.y_axis * v.y + parent.z_axis * v.z;
    Mat4::from_cols(
        column(x * s.x),
        column(y * s.y),
        column(z * s.z),
        column(Vec3A::from(local.translation)) + parent.w_axis,
    )
}

/// The columns of the rotation matrix of the unit quaternion `q`: glam's
/// `Mat3A::from_quat` arithmetic (the same products, sums and differences of
/// the same operands, so the same bits) three lanes at a time: the squares,
/// the mixed products and the w products are one vector product each,
/// instead of nine scalar products and lane inserts. This is the hottest
/// part of building model matrices.
#[inline(always)]
fn rotation_columns(q: Quat) -> (Vec3A, Vec3A, Vec3A) {
    let v = Vec3A::from_vec4(Vec4::from(q));
    let v2 = v + v;
    // (xx, yy, zz), (xy, xz, yz) and (wx, wy, wz), each a·b2 as glam forms them.
    let d = v * v2;
    let o = v.xxy() * v2.yzz();
    let w = Vec3A::splat(q.w) * v2;
    let w = w.zyx();
    // (xy + wz, xz + wy, yz + wx) and (xy − wz, xz − wy, yz − wx).
    let plus = o + w;
    let minus = o - w;
    // (1 − (yy + zz), 1 − (xx + zz), 1 − (xx + yy)).
    let diag = Vec3A::ONE - (d.yxx() + d.zzy());
    (
        Vec3A::new(diag.x, plus.x, minus.y),
        Vec3A::new(minus.x, diag.y, plus.z),
        Vec3A::new(plus.y, minus.z, diag.z),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::JointDef;

    /// The parents of a random tree of `picks.len() + 1` joints: joint 0
    /// the root, joint `i > 0` hanging from the joint `picks[i - 1]` of the
    /// way through those before it.
    fn random_tree(picks: &[f64]) -> Vec<Option<usize>> {
        std::iter::once(None)
            .chain(
                picks
                    .iter()
                    .enumerate()
                    .map(|(i, &u)| Some((u * (i + 1) as f64) as usize)),
            )
            .collect()
    }

    fn chain_skeleton() -> Skeleton {
        let j = |name: &str, parent, t: Vec3| JointDef {
            name: name.into(),
            parent,
            rest: Transform::new(t, Quat::from_rotation_z(0.3), Vec3::ONE),
            inverse_bind: Mat4::IDENTITY,
        };
        Skeleton::new(vec![
            j("root", None, Vec3::ZERO),
            j("a", Some(0), Vec3::Y),
            j("b", Some(1), Vec3::Y),
            j("side", Some(0), Vec3::X),
            j("c", Some(2), Vec3::Y),
        ])
        .unwrap()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]

        /// The vectorized compose gives the bits of the product with glam's
        /// affine matrix of the transform (the form it replaced).
        #[test]
        fn compose_equals_glam_affine_bit_for_bit(
            q in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            t in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
            s in (0.1f32..3.0, 0.1f32..3.0, 0.1f32..3.0),
            p in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            pt in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
        ) {
            let q = Quat::from_xyzw(q.0, q.1, q.2, q.3).normalize();
            let pq = Quat::from_xyzw(p.0, p.1, p.2, p.3).normalize();
            proptest::prop_assume!(q.is_finite() && pq.is_finite());
            let local = Transform::new(Vec3::new(t.0, t.1, t.2), q, Vec3::new(s.0, s.1, s.2));
            let parent = Mat4::from_scale_rotation_translation(
                Vec3::new(s.2, s.0, s.1),
                pq,
                Vec3::new(pt.0, pt.1, pt.2),
            );
            let a = local.to_affine();
            let column = |v: Vec3A| parent.x_axis * v.x + parent.y_axis * v.y + parent.z_axis * v.z;
            let m = &a.matrix3;
            let want = Mat4::from_cols(
                column(m.x_axis),
                column(m.y_axis),
                column(m.z_axis),
                column(a.translation) + parent.w_axis,
            );
            let got = compose(&parent, &local);
            let bits = |m: Mat4| m.to_cols_array().map(f32::to_bits);
            proptest::prop_assert_eq!(bits(got), bits(want));
        }
    }

    proptest::proptest! {
        /// On any parent-before-child skeleton (depth-first or with
        /// subtrees interleaved), re-propagating from a changed joint gives
        /// the whole pass's matrices bit for bit, and moving a subtree moves
        /// exactly its joints.
        #[test]
        fn partial_walks_cover_exactly_the_subtree(
            picks in proptest::collection::vec(0.0f64..1.0, 1..40),
            from_pick in 0.0f64..1.0,
            angle in -3.0f32..3.0,
        ) {
            let joints = picks.len() + 1;
            let parents = random_tree(&picks);
            let s = Skeleton::from_parts(
                (0..joints).map(|i| format!("j{i}")).collect(),
                parents.clone(),
                (0..joints)
                    .map(|i| Transform::new(Vec3::new(0.1, 0.3 + i as f32 * 0.01, -0.2), Quat::from_rotation_z(0.3), Vec3::ONE))
                    .collect(),
                vec![Mat4::IDENTITY; joints],
            )
            .unwrap();
            let from = ((from_pick * joints as f64) as usize).min(joints - 1);
            let inside = |mut j: usize| loop {
                if j == from {
                    break true;
                }
                match parents[j] {
                    Some(p) => j = p,
                    None => break false,
                }
            };
            let range_filled = (from..s.subtree_end(from)).all(inside);
            proptest::prop_assert_eq!(s.subtree_is_contiguous(from), range_filled);
            let mut pose = s.rest_pose();
            let mut models = vec![Mat4::IDENTITY; joints];
            local_to_model(&s, &pose.locals, &mut models);
            pose.locals[from].rotation = Quat::from_rotation_x(angle);
            local_to_model_from(&s, from, &pose.locals, &mut models);
            let mut full = vec![Mat4::IDENTITY; joints];
            local_to_model(&s, &pose.locals, &mut full);
            let bits = |m: &Mat4| m.to_cols_array().map(f32::to_bits);
            for j in 0..joints {
                proptest::prop_assert_eq!(bits(&models[j]), bits(&full[j]), "joint {}", j);
            }
            let before = models.clone();
            translate_subtree(&s, from, Vec3::X, &mut models);
            for j in 0..joints {
                let moved = models[j].w_axis != before[j].w_axis;
                proptest::prop_assert_eq!(moved, inside(j), "joint {}", j);
            }
        }
    }

    proptest::proptest! {
        /// The dispatched builds (AVX2 where the processor has it) give the
        /// baseline build's matrices bit for bit: the whole pass, the
        /// re-propagation and the subtree move, on random poses with
        /// non-uniform scales.
        #[test]
        fn every_build_gives_the_baseline_bits(
            picks in proptest::collection::vec(0.0f64..1.0, 1..30),
            quats in proptest::collection::vec((-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, 0.1f32..1.0), 30),
            moves in proptest::collection::vec((-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0, 0.2f32..3.0), 30),
            from_pick in 0.0f64..1.0,
        ) {
            let joints = picks.len() + 1;
            let parents = random_tree(&picks);
            let s = Skeleton::from_parts(
                (0..joints).map(|i| format!("j{i}")).collect(),
                parents,
                vec![Transform::IDENTITY; joints],
                vec![Mat4::IDENTITY; joints],
            )
            .unwrap();
            let locals: Vec<Transform> = (0..joints)
                .map(|i| {
                    let (x, y, z, w) = quats[i];
                    let (a, b, c, k) = moves[i];
                    Transform::new(
                        Vec3::new(a, b, c),
                        Quat::from_xyzw(x, y, z, w).normalize(),
                        Vec3::new(k, 1.0, 1.0 / k),
                    )
                })
                .collect();
            let from = ((from_pick * joints as f64) as usize).min(joints - 1);
            let bits = |m: &[Mat4]| m.iter().flat_map(|m| m.to_cols_array().map(f32::to_bits)).collect::<Vec<u32>>();
            let mut got = vec![Mat4::IDENTITY; joints];
            let mut want = vec![Mat4::IDENTITY; joints];
            local_to_model(&s, &locals, &mut got);
            local_to_model_kernel(&s, &locals, &mut want);
            proptest::prop_assert_eq!(bits(&got), bits(&want));
            let mut changed = locals.clone();
            changed[from].rotation = Quat::from_rotation_x(0.7) * changed[from].rotation;
            local_to_model_from(&s, from, &changed, &mut got);
            local_to_model_from_kernel(&s, from, &changed, &mut want);
            proptest::prop_assert_eq!(bits(&got), bits(&want));
            translate_subtree(&s, from, Vec3::new(0.1, -0.3, 0.2), &mut got);
            translate_subtree_kernel(&s, from, Vec3::new(0.1, -0.3, 0.2), &mut want);
            proptest::prop_assert_eq!(bits(&got), bits(&want));
        }
    }

    proptest::proptest! {
        /// Four poses built at once give each pose the bits it gets alone,
        /// in both builds, on random trees with non-uniform scales (four
        /// different poses, so that a lane reading another's joint would
        /// show).
        #[test]
        fn four_at_once_give_each_pose_its_own_bits(
            picks in proptest::collection::vec(0.0f64..1.0, 0..30),
            quats in proptest::collection::vec((-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, 0.1f32..1.0), 4 * 31),
            moves in proptest::collection::vec((-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0, 0.2f32..3.0), 4 * 31),
        ) {
            let joints = picks.len() + 1;
            let s = Skeleton::from_parts(
                (0..joints).map(|i| format!("j{i}")).collect(),
                random_tree(&picks),
                vec![Transform::IDENTITY; joints],
                vec![Mat4::IDENTITY; joints],
            )
            .unwrap();
            let poses: Vec<Vec<Transform>> = (0..LOCAL_TO_MODEL_LANES)
                .map(|k| {
                    (0..joints)
                        .map(|i| {
                            let (x, y, z, w) = quats[k * 31 + i];
                            let (a, b, c, m) = moves[k * 31 + i];
                            Transform::new(
                                Vec3::new(a, b, c),
                                Quat::from_xyzw(x, y, z, w).normalize(),
                                Vec3::new(m, 1.0, 1.0 / m),
                            )
                        })
                        .collect()
                })
                .collect();
            let bits = |m: &[Mat4]| m.iter().flat_map(|m| m.to_cols_array().map(f32::to_bits)).collect::<Vec<u32>>();
            let alone: Vec<Vec<u32>> = poses
                .iter()
                .map(|l| {
                    let mut m = vec![Mat4::IDENTITY; joints];
                    local_to_model_kernel(&s, l, &mut m);
                    bits(&m)
                })
                .collect();
            for dispatched in [true, false] {
                let mut out = vec![vec![Mat4::ZERO; joints]; LOCAL_TO_MODEL_LANES];
                let [a, b, c, d] = &mut out[..] else { unreachable!() };
                let locals = [&poses[0][..], &poses[1][..], &poses[2][..], &poses[3][..]];
                let models = [&mut a[..], &mut b[..], &mut c[..], &mut d[..]];
                if dispatched {
                    local_to_model_x4(&s, locals, models);
                } else {
                    local_to_model_x4_kernel(&s, locals, models);
                }
                for k in 0..LOCAL_TO_MODEL_LANES {
                    proptest::prop_assert_eq!(&bits(&out[k]), &alone[k], "pose {}, dispatched {}", k, dispatched);
                }
            }
        }
    }

    #[test]
    fn model_matrices_compose_parent_first() {
        let s = chain_skeleton();
        let pose = s.rest_pose();
        let mut models = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, &pose.locals, &mut models);
        let expect_c = pose.locals[0].to_mat4()
            * pose.locals[1].to_mat4()
            * pose.locals[2].to_mat4()
            * pose.locals[4].to_mat4();
        assert!(models[4].abs_diff_eq(expect_c, 1e-6));
    }

    #[test]
    fn partial_update_touches_only_descendants() {
        let s = chain_skeleton();
        let mut pose = s.rest_pose();
        let mut models = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, &pose.locals, &mut models);
        let before = models.clone();
        pose.locals[1].rotation = Quat::from_rotation_x(1.0);
        local_to_model_from(&s, 1, &pose.locals, &mut models);
        let mut full = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, &pose.locals, &mut full);
        for i in 0..s.len() {
            assert!(models[i].abs_diff_eq(full[i], 1e-6), "joint {i}");
        }
        assert_eq!(models[3], before[3]);
        assert_eq!(models[0], before[0]);
    }

    #[test]
    fn translating_a_subtree_equals_re_propagating_the_moved_joint() {
        let s = chain_skeleton();
        let mut pose = s.rest_pose();
        pose.locals[0].rotation = Quat::from_rotation_z(0.7);
        pose.locals[0].scale = Vec3::new(1.0, 2.0, 0.5);
        pose.locals[1].rotation = Quat::from_rotation_x(0.4);
        let mut models = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, &pose.locals, &mut models);
        let before = models.clone();
        let offset = Vec3::new(0.1, -0.25, 0.05);
        // The same move as a change of joint 1's local translation.
        let local = models[0].inverse().transform_vector3(offset);
        pose.locals[1].translation += local;
        translate_subtree(&s, 1, offset, &mut models);
        let mut full = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, &pose.locals, &mut full);
        for i in 0..s.len() {
            assert!(models[i].abs_diff_eq(full[i], 1e-5), "joint {i}");
        }
        assert_eq!(models[3], before[3], "the sibling's subtree stays");
        assert_eq!(models[0], before[0], "the parent stays");
    }
}
