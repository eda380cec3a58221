//! The closed-form two-bone solver (hip/knee/ankle, shoulder/elbow/wrist).
//!
//! Construction after seed 000: with the hip `a`, knee `b`, ankle `c` and
//! target `t`, the target is either too close (the longer segment points at
//! it, the other away), too far (the chain reaches straight for it at full
//! extension) or reachable (the knee lies on the circle where the sphere of
//! the thigh's length about the hip meets the sphere of the shin's length
//! about the target). Where on that circle the knee goes is the knee
//! strategy's choice. Bones turn by the minimal rotation between their old
//! and new directions, start bone first, mid bone second.
//!
//! With a [`HingeLimit`] the mid joint instead turns only about its hinge
//! axis: the bend angle that gives the wanted reach is solved in closed form,
//! clamped to the range, and the start joint then aims the chain at the
//! target and twists it about the hip→target axis to place the knee.
//!
//! All geometry happens in the *chain space*, the local space of the start
//! joint's parent. There the chain is rigid even when an ancestor carries
//! non-uniform or mirroring scale, and a point reached in chain space is
//! reached in model space because the map between them is affine.

use glam::{Mat4, Quat, Vec3};

use super::IkError;
use super::limits::HingeLimit;
use super::math::{DEGENERATE_LEN_SQ, any_perpendicular, rotation_between};
use crate::pose::{Pose, local_to_model_from};
use crate::skeleton::Skeleton;

/// A target counts as reached when the end joint lies within this fraction of
/// the chain's length from it (the 1e-4 × chain length criterion).
pub const REACHED_RELATIVE_TOLERANCE: f32 = 1e-4;

/// Below this length (in chain-space units, metres for an unscaled rig) a
/// bone or an offset counts as zero: f32 directions of shorter vectors are
/// noise.
pub const DEGENERATE_LEN: f32 = 1e-6;

/// Below this sine between a pole and the hip→target axis the pole no longer
/// defines a bend plane. Under it the knee direction blends smoothly toward
/// the current knee (0.1 ≈ 5.7°), so the knee never flips as the pole lines
/// up with the target.
pub const POLE_FALLBACK_SINE: f32 = 0.1;

/// Where the knee (elbow) goes on its circle of solutions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KneeStrategy {
    /// Seed 000: the circle point nearest the current knee.
    MinimalMotion,
    /// Seed 003: rotate about the hip→target axis so that the thigh stays
    /// closest to the animated thigh (the pose's current start bone).
    ///
    /// For a three-point chain this is the same point as
    /// [`KneeStrategy::MinimalMotion`] (the knee sits at a fixed distance from
    /// the hip, so the nearest knee is the nearest thigh direction); it is
    /// kept as its own strategy because it names the intent and the tests
    /// check the seed's claim.
    PosePreserving,
    /// The knee points toward a pole, then turns by `twist` radians about the
    /// hip→target axis.
    Pole {
        /// The pole, in model space.
        pole: Pole,
        /// Extra rotation of the knee about the hip→target axis, radians.
        twist: f32,
    },
}

/// A pole given as a model-space point or a model-space direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pole {
    /// The knee points toward this model-space point.
    Point(Vec3),
    /// The knee points along this model-space direction.
    Direction(Vec3),
}

/// A two-bone IK job: inputs and settings for one chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneIk {
    /// The start joint (hip, shoulder).
    pub start: usize,
    /// The mid joint (knee, elbow), a descendant of `start`.
    pub mid: usize,
    /// The end joint (ankle, wrist), a descendant of `mid`.
    pub end: usize,
    /// Where the end joint should go, in model space.
    pub target: Vec3,
    /// How the knee is placed on its circle.
    pub knee: KneeStrategy,
    /// Soften ratio in (0, 1]: past this fraction of the full reach the chain
    /// eases toward full extension instead of snapping straight. 1 disables it.
    pub soften: f32,
    /// Optional hinge limit of the mid joint (axis in the mid joint's frame).
    pub hinge: Option<HingeLimit>,
    /// Optional model-space rotation for the end joint and its own weight in [0, 1].
    pub end_rotation: Option<(Quat, f32)>,
    /// Weight of the whole correction in [0, 1].
    pub weight: f32,
}

impl TwoBoneIk {
    /// A job with default settings: minimal knee motion, no soften, no hinge,
    /// no end orientation, full weight.
    pub fn new(start: usize, mid: usize, end: usize, target: Vec3) -> Self {
        Self {
            start,
            mid,
            end,
            target,
            knee: KneeStrategy::MinimalMotion,
            soften: 1.0,
            hinge: None,
            end_rotation: None,
            weight: 1.0,
        }
    }
}

/// What a two-bone solve achieved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneResult {
    /// True when the end joint lies within [`REACHED_RELATIVE_TOLERANCE`] of
    /// the chain length from the target.
    pub reached: bool,
    /// Distance from the end joint to the target after the solve, model space.
    pub residual: f32,
}

/// The knee and end positions a two-bone solve chose (seed 000's `b'`, `c'`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBonePoints {
    /// New mid (knee) position.
    pub mid: Vec3,
    /// New end (ankle) position.
    pub end: Vec3,
    /// True when the end lands on the (softened) target: the reachable case.
    pub reachable: bool,
}

/// The softened reach: distances up to `ratio × reach` pass unchanged, beyond
/// it they approach `reach` along `start + span·x/(x + span)` (x the distance
/// past the start): continuous with slope 1 where softening begins, so the
/// knee does not pop, and never quite straight. A rational curve rather than
/// an exponential so that the batched solver computes it in SIMD lanes with
/// the same result. A ratio of 1 or more disables softening.
#[inline]
pub fn soften_distance(distance: f32, reach: f32, ratio: f32) -> f32 {
    if ratio >= 1.0 {
        return distance;
    }
    let start = reach * ratio;
    let span = reach - start;
    if distance <= start || span <= DEGENERATE_LEN {
        distance
    } else {
        let x = distance - start;
        start + span * x / (x + span)
    }
}

/// The unit component of `v` perpendicular to unit `n`, or `None` when `v`
/// is (nearly) parallel to `n`.
#[inline]
fn perpendicular_part(v: Vec3, n: Vec3) -> Option<Vec3> {
    let p = v - n * v.dot(n);
    let l2 = p.length_squared();
    (l2 > DEGENERATE_LEN_SQ).then(|| p / l2.sqrt())
}

/// Seed 000's positions: the new knee and end for hip `a`, knee `b`, end `c`
/// and target `t`. `knee_hint` is the direction (from the hip→target axis)
/// the knee should lean toward; when it is parallel to the axis the current
/// knee decides, and when that is too, any perpendicular does.
///
/// This is the pure function shared by the scalar job, the batched solver and
/// the benchmarks. Never returns NaN for finite input.
pub fn solve_points(
    a: Vec3,
    b: Vec3,
    c: Vec3,
    t: Vec3,
    knee_hint: Vec3,
    soften: f32,
) -> TwoBonePoints {
    let l1 = (b - a).length();
    let l2 = (c - b).length();
    let to = t - a;
    let dist = to.length();
    let n = if dist > DEGENERATE_LEN {
        to / dist
    } else if (c - a).length_squared() > DEGENERATE_LEN_SQ {
        (c - a).normalize()
    } else if l1 > DEGENERATE_LEN {
        (b - a) / l1
    } else {
        Vec3::X
    };
    let reach = l1 + l2;
    let eff = soften_distance(dist, reach, soften);
    if eff < (l1 - l2).abs() {
        // Too close: the longer segment toward the target, the other away.
        let sign = if l1 >= l2 { 1.0 } else { -1.0 };
        let knee = a + n * (sign * l1);
        return TwoBonePoints {
            mid: knee,
            end: knee - n * (sign * l2),
            reachable: false,
        };
    }
    if eff >= reach || l1 <= DEGENERATE_LEN || eff <= DEGENERATE_LEN {
        // Too far (or a degenerate chain): straight toward the target.
        return TwoBonePoints {
            mid: a + n * l1,
            end: a + n * reach.min(eff.max(reach)),
            reachable: eff == reach,
        };
    }
    // Reachable: the knee on the circle of the two spheres.
    let cos_theta = ((l1 * l1 + eff * eff - l2 * l2) / (2.0 * l1 * eff)).clamp(-1.0, 1.0);
    let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    let centre = a + n * (l1 * cos_theta);
    let u = perpendicular_part(knee_hint, n)
        .or_else(|| perpendicular_part(b - a, n))
        .unwrap_or_else(|| any_perpendicular(n));
    TwoBonePoints {
        mid: centre + u * (l1 * sin_theta),
        end: a + n * eff,
        reachable: true,
    }
}

/// A two-bone solution in model (or chain) space: the new positions and the
/// rotations that turn the start bone and then the mid bone onto them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneSolution {
    /// The new knee and end positions.
    pub points: TwoBonePoints,
    /// Rotation of the start bone about the start joint (applied first).
    pub start_delta: Quat,
    /// Rotation of the mid bone about the mid joint, after the start's turn.
    pub mid_delta: Quat,
}

/// The minimal rotation between two directions, or the identity when either
/// has (nearly) zero length.
#[inline]
pub fn rotation_between_or_identity(from: Vec3, to: Vec3) -> Quat {
    let (lf, lt) = (from.length_squared(), to.length_squared());
    if lf < DEGENERATE_LEN_SQ || lt < DEGENERATE_LEN_SQ {
        return Quat::IDENTITY;
    }
    rotation_between(from / lf.sqrt(), to / lt.sqrt())
}

/// [`solve_points`] plus the two bone rotations (seed 000's order: start
/// bone, then mid bone). The batched solver computes exactly this per lane.
pub fn solve_model_space(
    a: Vec3,
    b: Vec3,
    c: Vec3,
    t: Vec3,
    knee_hint: Vec3,
    soften: f32,
) -> TwoBoneSolution {
    let points = solve_points(a, b, c, t, knee_hint, soften);
    let start_delta = rotation_between_or_identity(b - a, points.mid - a);
    let mid_delta = rotation_between_or_identity(start_delta * (c - b), points.end - points.mid);
    TwoBoneSolution {
        points,
        start_delta,
        mid_delta,
    }
}

/// Checks that a matrix is finite.
fn finite_mat(m: &Mat4) -> bool {
    m.is_finite()
}

/// Validates indices, the chain and every finite input of a job.
fn validate(
    job: &TwoBoneIk,
    skeleton: &Skeleton,
    pose: &Pose,
    models: &[Mat4],
) -> Result<(), IkError> {
    let len = skeleton.len();
    if pose.len() != len || models.len() != len {
        return Err(IkError::InvalidParameter {
            what: "pose",
            reason: "pose or model buffer length differs from the skeleton",
        });
    }
    for joint in [job.start, job.mid, job.end] {
        if joint >= len {
            return Err(IkError::JointOutOfRange { joint, len });
        }
    }
    if job.mid == job.start || !skeleton.is_descendant_of(job.mid, job.start) {
        return Err(IkError::NotAChain {
            ancestor: job.start,
            joint: job.mid,
        });
    }
    if job.end == job.mid || !skeleton.is_descendant_of(job.end, job.mid) {
        return Err(IkError::NotAChain {
            ancestor: job.mid,
            joint: job.end,
        });
    }
    if !job.target.is_finite() {
        return Err(IkError::NonFinite { what: "target" });
    }
    if !job.weight.is_finite() {
        return Err(IkError::NonFinite { what: "weight" });
    }
    if !(0.0..=1.0).contains(&job.weight) {
        return Err(IkError::InvalidParameter {
            what: "weight",
            reason: "must lie within [0, 1]",
        });
    }
    if !job.soften.is_finite() {
        return Err(IkError::NonFinite { what: "soften" });
    }
    if job.soften <= 0.0 || job.soften > 1.0 {
        return Err(IkError::InvalidParameter {
            what: "soften",
            reason: "must lie within (0, 1]",
        });
    }
    if let KneeStrategy::Pole { pole, twist } = job.knee {
        let v = match pole {
            Pole::Point(p) | Pole::Direction(p) => p,
        };
        if !v.is_finite() || !twist.is_finite() {
            return Err(IkError::NonFinite { what: "pole" });
        }
    }
    if let Some(h) = &job.hinge {
        h.validate()?;
    }
    if let Some((q, w)) = job.end_rotation {
        if !q.is_finite() || !w.is_finite() {
            return Err(IkError::NonFinite {
                what: "end rotation",
            });
        }
        if q.length_squared() < DEGENERATE_LEN_SQ {
            return Err(IkError::InvalidParameter {
                what: "end rotation",
                reason: "zero quaternion",
            });
        }
        if !(0.0..=1.0).contains(&w) {
            return Err(IkError::InvalidParameter {
                what: "end rotation weight",
                reason: "must lie within [0, 1]",
            });
        }
    }
    let mut j = job.end;
    loop {
        if !finite_mat(&models[j]) || !pose.locals[j].is_finite() {
            return Err(IkError::NonFinite {
                what: "model matrix or local transform of the chain",
            });
        }
        match skeleton.parent(j) {
            Some(p) if j != job.start => j = p,
            Some(p) => {
                if !finite_mat(&models[p]) {
                    return Err(IkError::NonFinite {
                        what: "model matrix of the start's parent",
                    });
                }
                break;
            }
            None => break,
        }
    }
    Ok(())
}

/// The signed angle from `from` to `to` about unit `axis` (both projected on
/// the plane perpendicular to it); zero when either projection vanishes.
#[inline]
pub fn signed_angle_about(from: Vec3, to: Vec3, axis: Vec3) -> f32 {
    let f = from - axis * from.dot(axis);
    let g = to - axis * to.dot(axis);
    if f.length_squared() < DEGENERATE_LEN_SQ || g.length_squared() < DEGENERATE_LEN_SQ {
        return 0.0;
    }
    axis.dot(f.cross(g)).atan2(f.dot(g))
}

/// The rotation part of a matrix's linear columns, with scale removed.
fn rotation_of(m: &Mat4) -> Quat {
    let (_, r, _) = m.to_scale_rotation_translation();
    if r.is_finite() {
        r.normalize()
    } else {
        Quat::IDENTITY
    }
}

impl TwoBoneIk {
    /// Runs the job: reads the chain's model matrices, writes new local
    /// rotations of the start and mid (and end, with an end rotation) joints
    /// into `pose`, and re-propagates `models` from the start joint down.
    ///
    /// `models` must be the model matrices of `pose` (from
    /// [`crate::local_to_model`]). On error nothing is written.
    pub fn solve(
        &self,
        skeleton: &Skeleton,
        pose: &mut Pose,
        models: &mut [Mat4],
    ) -> Result<TwoBoneResult, IkError> {
        validate(self, skeleton, pose, models)?;
        let parent = skeleton
            .parent(self.start)
            .map_or(Mat4::IDENTITY, |p| models[p]);
        if parent.determinant().abs() < 1e-12 {
            return Err(IkError::InvalidParameter {
                what: "start joint's parent",
                reason: "its model matrix is singular (zero scale)",
            });
        }
        // Affine inverse: cheaper than a full 4x4 one and exact for TRS chains.
        let inv = glam::Affine3A::from_mat4(parent).inverse();
        let inv_lin = glam::Mat3::from(inv.matrix3);
        let chain_point = |j: usize| inv.transform_point3(models[j].w_axis.truncate());
        let a = chain_point(self.start);
        let b = chain_point(self.mid);
        let c = chain_point(self.end);
        let model_chain_len = (models[self.mid].w_axis - models[self.start].w_axis)
            .truncate()
            .length()
            + (models[self.end].w_axis - models[self.mid].w_axis)
                .truncate()
                .length();
        let w = self.weight;
        if w == 0.0 {
            let residual = (models[self.end].w_axis.truncate() - self.target).length();
            return Ok(TwoBoneResult {
                reached: residual <= REACHED_RELATIVE_TOLERANCE * model_chain_len,
                residual,
            });
        }
        let t_full = inv.transform_point3(self.target);
        let t = c + (t_full - c) * w;

        // The knee direction the strategy asks for, blended by weight with the
        // current one so that weight 0 keeps the knee where it is.
        let current = (b - a).normalize_or_zero();
        let strategy_dir = match self.knee {
            KneeStrategy::MinimalMotion | KneeStrategy::PosePreserving => current,
            KneeStrategy::Pole { pole, twist } => {
                let raw = match pole {
                    Pole::Point(p) => inv.transform_point3(p) - a,
                    Pole::Direction(d) => inv.transform_vector3(d),
                };
                let axis = (t - a)
                    .try_normalize()
                    .unwrap_or_else(|| (c - a).normalize_or(Vec3::X));
                let pole_dir = raw.normalize_or_zero();
                let perp = pole_dir - axis * pole_dir.dot(axis);
                let s = perp.length();
                // Smooth fallback: below POLE_FALLBACK_SINE the current knee
                // direction fades in, fully at s = 0.
                let fade = (1.0 - s / POLE_FALLBACK_SINE).max(0.0);
                // The fallback is the current bend direction: the knee's offset
                // from the hip→end line, defined for any bent leg.
                let bend = match (c - a).try_normalize() {
                    Some(ac) => (b - a) - ac * (b - a).dot(ac),
                    None => b - a,
                };
                let e1 = perpendicular_part(bend, axis).unwrap_or_else(|| any_perpendicular(axis));
                let e2 = axis.cross(e1);
                // Blend by angle about the axis (not by vector sum, which can
                // pass through zero): the pole's angle from the bend direction
                // fades to zero as the pole lines up with the axis, so the
                // pole's jump across the axis happens where it has no say.
                let pole_angle = if s > 0.0 {
                    perp.dot(e2).atan2(perp.dot(e1))
                } else {
                    0.0
                };
                let keep = 1.0 - fade * fade;
                let ang = pole_angle * keep;
                let blended = e1 * ang.cos() + e2 * ang.sin();
                Quat::from_axis_angle(axis, twist) * blended
            }
        };
        let hint = (current * (1.0 - w) + strategy_dir.normalize_or_zero() * w).normalize_or_zero();

        let (start_delta, mid_local_delta, new_b, new_c) = match &self.hinge {
            None => {
                let pts = solve_points(a, b, c, t, hint, self.soften);
                let ds = match ((b - a).try_normalize(), (pts.mid - a).try_normalize()) {
                    (Some(u), Some(v)) => rotation_between(u, v),
                    _ => Quat::IDENTITY,
                };
                // Mid: directions in the mid's parent frame (exact under any scale).
                let mid_parent = skeleton.parent(self.mid).expect("mid has a parent");
                let lp_inv = (inv_lin * glam::Mat3::from_mat4(models[mid_parent])).inverse();
                let old_dir = lp_inv * (c - b);
                let new_dir = lp_inv * (ds.inverse() * (pts.end - pts.mid));
                let dm = match (old_dir.try_normalize(), new_dir.try_normalize()) {
                    (Some(u), Some(v)) => rotation_between(u, v),
                    _ => Quat::IDENTITY,
                };
                (ds, dm, pts.mid, pts.end)
            }
            Some(h) => {
                let axis_local = h.axis.normalize();
                let mid_lin = inv_lin * glam::Mat3::from_mat4(models[self.mid]);
                let hm = mid_lin * axis_local;
                let mirrored = mid_lin.determinant() < 0.0;
                let hm = hm.normalize_or(Vec3::X);
                let u = b - a;
                let s = c - b;
                let s_par = hm * s.dot(hm);
                let s_perp = s - s_par;
                let u_perp = u - hm * u.dot(hm);
                let theta0 = signed_angle_about(u_perp, s_perp, hm);
                let k0 = (u + s_par).length_squared() + s_perp.length_squared();
                let k1 = 2.0 * u_perp.length() * s_perp.length();
                let theta = if k1 <= DEGENERATE_LEN {
                    theta0.clamp(h.min, h.max)
                } else {
                    let reach_at = |th: f32| (k0 + k1 * th.cos()).max(0.0).sqrt();
                    let best_cos_angle = 0.0f32.clamp(h.min, h.max);
                    let reach = reach_at(best_cos_angle);
                    let d = soften_distance((t - a).length(), reach, self.soften);
                    let tc = ((d * d - k0) / k1).clamp(-1.0, 1.0).acos();
                    let mut best = (f32::INFINITY, f32::INFINITY, theta0.clamp(h.min, h.max));
                    for cand in [tc, -tc, h.min, h.max] {
                        let th = cand.clamp(h.min, h.max);
                        let score = ((reach_at(th) - d).abs(), (th - theta0).abs(), th);
                        if score.0 < best.0 - 1e-6
                            || ((score.0 - best.0).abs() <= 1e-6 && score.1 < best.1)
                        {
                            best = score;
                        }
                    }
                    best.2
                };
                let delta = theta - theta0;
                let dm_chain = Quat::from_axis_angle(hm, delta);
                let e = u + dm_chain * s;
                let n = (t - a)
                    .try_normalize()
                    .or_else(|| e.try_normalize())
                    .unwrap_or(Vec3::X);
                let r1 = match e.try_normalize() {
                    Some(en) => rotation_between(en, n),
                    None => Quat::IDENTITY,
                };
                let knee = r1 * u;
                let phi = signed_angle_about(knee, hint, n);
                let ds = Quat::from_axis_angle(n, phi) * r1;
                let local_angle = if mirrored { -delta } else { delta };
                (
                    ds,
                    Quat::from_axis_angle(axis_local, local_angle),
                    a + ds * u,
                    a + ds * e,
                )
            }
        };
        let _ = (new_b, new_c);

        let start_rot = (start_delta * pose.locals[self.start].rotation).normalize();
        let mid_rot = if self.hinge.is_some() {
            (pose.locals[self.mid].rotation * mid_local_delta).normalize()
        } else {
            (mid_local_delta * pose.locals[self.mid].rotation).normalize()
        };
        if !start_rot.is_finite() || !mid_rot.is_finite() {
            return Err(IkError::NonFinite {
                what: "solver result",
            });
        }
        pose.locals[self.start].rotation = start_rot;
        pose.locals[self.mid].rotation = mid_rot;
        local_to_model_from(skeleton, self.start, &pose.locals, models);

        if let Some((q, ew)) = self.end_rotation {
            let end_parent = skeleton.parent(self.end).expect("end has a parent");
            let qp = rotation_of(&models[end_parent]);
            let current = rotation_of(&models[self.end]);
            let mut target = q.normalize();
            if target.dot(current) < 0.0 {
                target = -target;
            }
            let desired = current.slerp(target, ew * w).normalize();
            let local = (qp.inverse() * desired).normalize();
            if local.is_finite() {
                pose.locals[self.end].rotation = local;
                local_to_model_from(skeleton, self.end, &pose.locals, models);
            }
        }
        let residual = (models[self.end].w_axis.truncate() - self.target).length();
        Ok(TwoBoneResult {
            reached: residual <= REACHED_RELATIVE_TOLERANCE * model_chain_len.max(DEGENERATE_LEN),
            residual,
        })
    }
}

#[cfg(test)]
#[path = "two_bone_tests.rs"]
mod tests;
