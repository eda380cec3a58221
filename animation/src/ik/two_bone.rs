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
//! All geometry happens in the *chain space*, the start joint's own space
//! (the inverse of its model matrix, taken once by cofactors). There the
//! chain is rigid even when an ancestor carries non-uniform or mirroring
//! scale, and a point reached in chain space is reached in model space
//! because the map between them is affine. The results are local rotation
//! corrections, as ozz-animation's `IKTwoBoneJob` returns them.
//!
//! Three layers, fastest first: [`solve_core`] (model matrices in,
//! corrections out: the per-solve arithmetic), [`TwoBoneChain::solve`] (a
//! chain checked once; per frame it checks only the inputs it reads, applies
//! the corrections and re-propagates the start joint's subtree) and
//! [`TwoBoneIk::solve`] (checks the chain on every call). Trigonometry uses
//! the inline, branch-free [`super::math::sin_cos`] and
//! [`super::math::atan2`], and angles stay sine-cosine pairs where they can;
//! square roots and divisions stay exact IEEE operations so that results
//! are the same on every x86-64 processor (see BENCHMARKS.md for why the
//! approximate reciprocal instructions are not used).
//!
//! [`solve_core`] has two paths: a fast one for the common case (no
//! arctangent or arccosine, independent roots and reciprocals packed four to
//! an instruction, rotations kept unnormalized where only their directions
//! count, the end rotation by quaternion products) and the general one,
//! which the fast path hands every rare case to (degenerate lengths, a pole
//! along the hip→target axis, near half turns, non-uniform or mirroring
//! scale for the end rotation).

use glam::{Affine3A, Mat3A, Mat4, Quat, Vec3, Vec3A, Vec3Swizzles, Vec4};

use super::IkError;
use super::limits::HingeLimit;
use super::math::{
    ANTIPARALLEL_NORM_SQ, DEGENERATE_LEN_SQ, any_perpendicular, atan_series_of, atan2, finite3,
    recip4, rotation_between, sin_cos, sin_cos_inline, sin_cos_twice_of, sqrt4,
};
use crate::pose::{Pose, local_to_model_from_kernel};
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

/// A hinged chain's bend direction (the hinge axis crossed with the
/// start→end line, on the side its allowed bends go) joins the knee's own
/// offset from that line, times this share of the thigh's length, where the
/// solve turns the chain about the line to lean the knee toward the hint.
///
/// A straight or nearly straight knee lies (nearly) on the line, and what
/// offset it has is sideways along the hinge axis wherever the shin leans
/// along that axis (Mannequiny's shin, 0.06 % of the thigh): turned toward
/// the hint, that offset spun the whole leg a quarter turn in one frame as
/// it straightened. A bent knee's offset (a tenth of the thigh or more at
/// 12°) lies along the bend direction already, so the share barely moves it.
pub const HINGE_BEND_BIAS: f32 = 0.02;

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
    // A reciprocal product, as the batched lanes compute it: the projection
    // above cancels when `v` nearly follows `n`, so both must round alike.
    (l2 > DEGENERATE_LEN_SQ).then(|| p * (1.0 / l2.sqrt()))
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
        // Reciprocal products, rounding exactly as the batched lanes do.
        to * (1.0 / dist)
    } else if (c - a).length_squared() > DEGENERATE_LEN_SQ {
        (c - a).normalize()
    } else if l1 > DEGENERATE_LEN {
        (b - a) * (1.0 / l1)
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

/// The settings of one two-bone solve: everything a job holds except its
/// joints. [`TwoBoneChain::solve`] and [`solve_core`] take them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneOptions {
    /// Where the end joint should go, in model space.
    pub target: Vec3,
    /// How the knee is placed on its circle.
    pub knee: KneeStrategy,
    /// Soften ratio in (0, 1] (see [`TwoBoneIk::soften`]).
    pub soften: f32,
    /// Optional hinge limit of the mid joint (axis in the mid joint's frame).
    pub hinge: Option<HingeLimit>,
    /// Optional model-space rotation for the end joint and its own weight in [0, 1].
    pub end_rotation: Option<(Quat, f32)>,
    /// Weight of the whole correction in [0, 1].
    pub weight: f32,
}

impl TwoBoneOptions {
    /// Options with default settings (see [`TwoBoneIk::new`]).
    pub fn new(target: Vec3) -> Self {
        Self {
            target,
            knee: KneeStrategy::MinimalMotion,
            soften: 1.0,
            hinge: None,
            end_rotation: None,
            weight: 1.0,
        }
    }

    /// Whether [`TwoBoneOptions::validate`] accepts the options: the same
    /// checks as one line of comparisons joined without short-circuits, so
    /// that the per-solve check is a few packed instructions instead of a
    /// chain of branches. A NaN or an infinity fails each range comparison
    /// on its own; only the vectors need explicit finiteness tests.
    #[inline(always)]
    pub fn is_valid(&self) -> bool {
        let (w, s) = (self.weight, self.soften);
        let mut ok = finite3(self.target) & (0.0..=1.0).contains(&w) & (s > 0.0) & (s <= 1.0);
        if let KneeStrategy::Pole { pole, twist } = self.knee {
            let v = match pole {
                Pole::Point(p) | Pole::Direction(p) => p,
            };
            ok &= finite3(v) & twist.is_finite();
        }
        if let Some(h) = &self.hinge {
            ok &= h.is_valid();
        }
        if let Some((q, ew)) = self.end_rotation {
            let q = glam::Vec4::from(q);
            ok &= ((q * 0.0).cmpeq(glam::Vec4::ZERO).all())
                & (q.length_squared() >= DEGENERATE_LEN_SQ)
                & (0.0..=1.0).contains(&ew);
        }
        ok
    }

    /// Checks every setting: finite, and within its documented range. Valid
    /// options take one branch ([`TwoBoneOptions::is_valid`]); only refused
    /// ones walk the checks to name their reason. No allocation.
    pub fn validate(&self) -> Result<(), IkError> {
        if self.is_valid() {
            Ok(())
        } else {
            self.check_each()
        }
    }

    /// The checks of [`Self::validate`] one by one, each with its reason:
    /// the first that fails is returned.
    pub(crate) fn check_each(&self) -> Result<(), IkError> {
        if !self.target.is_finite() {
            return Err(IkError::NonFinite { what: "target" });
        }
        if !self.weight.is_finite() {
            return Err(IkError::NonFinite { what: "weight" });
        }
        if !(0.0..=1.0).contains(&self.weight) {
            return Err(IkError::InvalidParameter {
                what: "weight",
                reason: "must lie within [0, 1]",
            });
        }
        if !self.soften.is_finite() {
            return Err(IkError::NonFinite { what: "soften" });
        }
        if self.soften <= 0.0 || self.soften > 1.0 {
            return Err(IkError::InvalidParameter {
                what: "soften",
                reason: "must lie within (0, 1]",
            });
        }
        if let KneeStrategy::Pole { pole, twist } = self.knee {
            let v = match pole {
                Pole::Point(p) | Pole::Direction(p) => p,
            };
            if !v.is_finite() || !twist.is_finite() {
                return Err(IkError::NonFinite { what: "pole" });
            }
        }
        if let Some(h) = &self.hinge {
            h.validate()?;
        }
        if let Some((q, w)) = self.end_rotation {
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
        Ok(())
    }
}

impl TwoBoneIk {
    /// The job's settings without its joints.
    pub fn options(&self) -> TwoBoneOptions {
        TwoBoneOptions {
            target: self.target,
            knee: self.knee,
            soften: self.soften,
            hinge: self.hinge,
            end_rotation: self.end_rotation,
            weight: self.weight,
        }
    }
}

/// What [`solve_core`] computed: local corrections in the manner of
/// ozz-animation's `IKTwoBoneJob`, plus the end orientation.
///
/// Each correction multiplies the joint's current local rotation from the
/// right: `local.rotation = local.rotation * correction`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneCorrection {
    /// Correction of the start joint's local rotation.
    pub start: Quat,
    /// Correction of the mid joint's local rotation.
    pub mid: Quat,
    /// Correction of the end joint's local rotation (the identity without an
    /// end rotation).
    pub end: Quat,
    /// Where the end joint lands, model space, once the corrections apply.
    pub end_position: Vec3,
    /// True when `end_position` lies within [`REACHED_RELATIVE_TOLERANCE`] of
    /// the chain length from the target.
    pub reached: bool,
}

impl TwoBoneCorrection {
    /// No correction: the chain stays where it is.
    pub(crate) fn identity(end_position: Vec3A, reached: bool) -> Self {
        Self {
            start: Quat::IDENTITY,
            mid: Quat::IDENTITY,
            end: Quat::IDENTITY,
            end_position: end_position.into(),
            reached,
        }
    }
}

/// The inverse of an affine map and the determinant of its linear part, or
/// `None` when the linear part is singular (a zero scale). Cofactors, one
/// reciprocal; no 4×4 inverse.
#[inline]
fn affine_inverse(m: &Affine3A) -> Option<(Affine3A, f32)> {
    let (x, y, z) = (m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis);
    let c0 = y.cross(z);
    let c1 = z.cross(x);
    let c2 = x.cross(y);
    let det = x.dot(c0);
    if det.abs() < SINGULAR_DET || !det.is_finite() {
        return None;
    }
    let r = 1.0 / det;
    let inv = Mat3A::from_cols(c0 * r, c1 * r, c2 * r).transpose();
    Some((
        Affine3A {
            matrix3: inv,
            translation: -(inv * m.translation),
        },
        det,
    ))
}

/// Below this absolute determinant a joint's model matrix counts as singular
/// (a scale of about 1e-4 on every axis): its inverse would be noise.
pub const SINGULAR_DET: f32 = 1e-12;

/// The transposed cofactor matrix of `m`: `m⁻¹` times `det m`. Directions
/// through it are those through the inverse, up to the sign of the
/// determinant, with no division.
#[inline]
fn adjugate(m: &Mat3A) -> Mat3A {
    Mat3A::from_cols(
        m.y_axis.cross(m.z_axis),
        m.z_axis.cross(m.x_axis),
        m.x_axis.cross(m.y_axis),
    )
    .transpose()
}

/// The rotation part of a linear map with its scale removed (a mirroring
/// map loses its mirror on the x axis first), or the identity when it has none.
#[inline]
fn rotation_of(m: &Mat3A) -> Quat {
    let det = m.determinant();
    let sx = m.x_axis.length() * det.signum();
    let (sy, sz) = (m.y_axis.length(), m.z_axis.length());
    let r = Quat::from_mat3a(&Mat3A::from_cols(
        m.x_axis / sx,
        m.y_axis / sy,
        m.z_axis / sz,
    ));
    // Unit to rounding: the end correction built from it is scale-free (an
    // angle from atan2) or renormalized by the job, so no normalization here.
    if r.is_finite() { r } else { Quat::IDENTITY }
}

/// `v` turned by `angle` radians about the unit `axis`, `v` perpendicular to it.
/// Always inlined: the fast path of [`solve_core`] calls it on its hot line.
#[inline(always)]
fn turn_in_plane(v: Vec3A, axis: Vec3A, angle: f32) -> Vec3A {
    if angle == 0.0 {
        return v;
    }
    let (s, c) = sin_cos_inline(angle);
    v * c + axis.cross(v) * s
}

/// The knee direction a pole asks for, in the start's space (`a` at the
/// origin): the pole's component perpendicular to the hip→target axis,
/// fading smoothly into the current bend direction as the pole lines up with
/// that axis, then turned by `twist` about it.
#[inline]
fn pole_direction(raw: Vec3A, b: Vec3A, c: Vec3A, t: Vec3A, twist: f32) -> Vec3A {
    let axis = t
        .try_normalize()
        .unwrap_or_else(|| c.normalize_or(Vec3A::X));
    let pole_dir = raw.normalize_or_zero();
    let perp = pole_dir - axis * pole_dir.dot(axis);
    let s = perp.length();
    // Below POLE_FALLBACK_SINE the current bend direction fades in, fully at s = 0.
    let fade = (1.0 - s / POLE_FALLBACK_SINE).max(0.0);
    let blended = if fade == 0.0 {
        // The pole alone decides: its unit component about the axis (the
        // angle blend below reduces to exactly this, without trigonometry).
        perp / s
    } else {
        // The fallback is the current bend direction: the knee's offset
        // from the hip→end line, defined for any bent leg.
        let bend = match c.try_normalize() {
            Some(ac) => b - ac * b.dot(ac),
            None => b,
        };
        let e1 = perpendicular_part(bend.into(), axis.into())
            .map_or_else(|| any_perpendicular(axis.into()).into(), Vec3A::from);
        let e2 = axis.cross(e1);
        // Blend by angle about the axis (not by vector sum, which can pass
        // through zero): the pole's angle from the bend direction fades to
        // zero as the pole lines up with the axis, so the pole's jump across
        // the axis happens where it has no say.
        let pole_angle = if s > 0.0 {
            atan2(perp.dot(e2), perp.dot(e1))
        } else {
            0.0
        };
        let ang = pole_angle * (1.0 - fade * fade);
        let (sn, cs) = sin_cos(ang);
        e1 * cs + e2 * sn
    };
    turn_in_plane(blended, axis, twist)
}

/// Seed 000's knee and end placement in the start's space (the start at the
/// origin; `l1 = |b|`): the new knee and end positions and the unit direction
/// of the new thigh. The same cases and fallbacks as [`solve_points`].
#[inline]
fn place(b: Vec3A, c: Vec3A, t: Vec3A, l1: f32, hint: Vec3A, soften: f32) -> (Vec3A, Vec3A, Vec3A) {
    let l2 = (c - b).length();
    let dist = t.length();
    let n = if dist > DEGENERATE_LEN {
        t / dist
    } else if c.length_squared() > DEGENERATE_LEN_SQ {
        c.normalize()
    } else if l1 > DEGENERATE_LEN {
        b / l1
    } else {
        Vec3A::X
    };
    let reach = l1 + l2;
    let eff = soften_distance(dist, reach, soften);
    if eff < (l1 - l2).abs() {
        // Too close: the longer segment toward the target, the other away.
        let sign = if l1 >= l2 { 1.0 } else { -1.0 };
        let knee = n * (sign * l1);
        return (knee, knee - n * (sign * l2), n * sign);
    }
    if eff >= reach || l1 <= DEGENERATE_LEN || eff <= DEGENERATE_LEN {
        // Too far (or a degenerate chain): straight toward the target.
        return (n * l1, n * reach, n);
    }
    // Reachable: the knee on the circle of the two spheres.
    let cos_theta = ((l1 * l1 + eff * eff - l2 * l2) / (2.0 * l1 * eff)).clamp(-1.0, 1.0);
    let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    let u = perpendicular_part(hint.into(), n.into())
        .or_else(|| perpendicular_part(b.into(), n.into()))
        .map_or_else(|| any_perpendicular(n.into()).into(), Vec3A::from);
    let dir = n * cos_theta + u * sin_theta;
    (dir * l1, n * eff, dir)
}

/// The rotation about unit `n` taking unit `f` onto unit `g`, both
/// perpendicular to `n`: the half-way quaternion, with no angle computed
/// (a half turn about `n` when they point opposite ways).
#[inline]
fn rotation_about(n: Vec3A, f: Vec3A, g: Vec3A) -> Quat {
    let c = n * n.dot(f.cross(g));
    let w = 0.5 * (f + g).length_squared();
    let n2 = c.length_squared() + w * w;
    if n2 < ANTIPARALLEL_NORM_SQ {
        return Quat::from_xyzw(n.x, n.y, n.z, 0.0);
    }
    let inv = 1.0 / n2.sqrt();
    Quat::from_xyzw(c.x * inv, c.y * inv, c.z * inv, w * inv)
}

/// The cosine of the allowed bend nearest zero, where a hinged chain reaches
/// furthest, given the cosines of the limits.
#[inline(always)]
fn longest_reach_cos(h: &HingeLimit, cos_min: f32, cos_max: f32) -> f32 {
    if h.min() > 0.0 {
        cos_min
    } else if h.max() < 0.0 {
        cos_max
    } else {
        1.0
    }
}

/// The hinge-limited solve in the start's space (the start at the origin):
/// the start joint's rotation, the sine and cosine of half the mid joint's
/// bend change about the hinge `hm`, and where the end lands.
///
/// One arctangent (the current bend), one arccosine (the wanted bend) and the
/// cosines of the limits; every other angle stays a sine-cosine pair.
#[inline]
fn solve_hinged(
    h: &HingeLimit,
    hm: Vec3A,
    b: Vec3A,
    c: Vec3A,
    t: Vec3A,
    hint: Vec3A,
    soften: f32,
) -> (Quat, (f32, f32), Vec3A) {
    let u = b;
    let s = c - b;
    let s_par = hm * s.dot(hm);
    let s_perp = s - s_par;
    let u_perp = u - hm * u.dot(hm);
    let (up2, sp2) = (u_perp.length_squared(), s_perp.length_squared());
    // The current bend: the signed angle about the hinge from thigh to shin.
    let theta0 = if up2 < DEGENERATE_LEN_SQ || sp2 < DEGENERATE_LEN_SQ {
        0.0
    } else {
        atan2(hm.dot(u_perp.cross(s_perp)), u_perp.dot(s_perp))
    };
    let k0 = (u + s_par).length_squared() + sp2;
    let k1 = 2.0 * (up2 * sp2).sqrt();
    let theta = if k1 <= DEGENERATE_LEN {
        theta0.clamp(h.min(), h.max())
    } else {
        // The reach at bend angle θ is sqrt(k0 + k1·cos θ).
        let reach_at = |cos_th: f32| (k0 + k1 * cos_th).max(0.0).sqrt();
        let (min, max) = (h.min(), h.max());
        let (cos_min, cos_max) = (sin_cos(min).1, sin_cos(max).1);
        let best_cos = longest_reach_cos(h, cos_min, cos_max);
        let d = soften_distance(t.length(), reach_at(best_cos), soften);
        let ctc = ((d * d - k0) / k1).clamp(-1.0, 1.0);
        let tc = super::math::acos(ctc);
        let mut best = (f32::INFINITY, f32::INFINITY, theta0.clamp(min, max));
        for (cand, cos_cand) in [(tc, ctc), (-tc, ctc), (min, cos_min), (max, cos_max)] {
            let th = cand.clamp(min, max);
            let cos_th = if th == cand {
                cos_cand
            } else if cand < min {
                cos_min
            } else {
                cos_max
            };
            let score = ((reach_at(cos_th) - d).abs(), (th - theta0).abs(), th);
            if score.0 < best.0 - 1e-6 || ((score.0 - best.0).abs() <= 1e-6 && score.1 < best.1) {
                best = score;
            }
        }
        best.2
    };
    let half = sin_cos((theta - theta0) * 0.5);
    let dm = Quat::from_xyzw(hm.x * half.0, hm.y * half.0, hm.z * half.0, half.1);
    let e = u + dm * s;
    let n = t
        .try_normalize()
        .or_else(|| e.try_normalize())
        .unwrap_or(Vec3A::X);
    let r1 = match e.try_normalize() {
        Some(en) => rotation_between(en.into(), n.into()),
        None => Quat::IDENTITY,
    };
    // Turn the chain about the hip→target axis so the knee leans toward the
    // hint: its offset from the line, with the hinge's bend direction
    // (against the bend side, see HINGE_BEND_BIAS).
    let knee = r1 * u;
    let side = if h.min() + h.max() >= 0.0 { -1.0 } else { 1.0 };
    let bend = (hm.cross(e).normalize_or_zero() * (side * HINGE_BEND_BIAS)) * u.length();
    let knee = knee + r1 * bend;
    let f = knee - n * knee.dot(n);
    let g = hint - n * hint.dot(n);
    let ds = if f.length_squared() < DEGENERATE_LEN_SQ || g.length_squared() < DEGENERATE_LEN_SQ {
        r1
    } else {
        rotation_about(n, f.normalize(), g.normalize()) * r1
    };
    (ds, half, ds * e)
}

/// The end joint's correction by the general matrix chain: the end's model
/// rotation once the start and mid turn (any scale, mirroring included),
/// then the turn toward `q` by `k` (the end's weight times the job's).
#[cold]
#[inline(never)]
fn end_turn_general(
    start: &Affine3A,
    mid: &Affine3A,
    end: &Affine3A,
    start_fix: Quat,
    mid_fix: Quat,
    q: Quat,
    k: f32,
) -> Quat {
    let il = affine_inverse(start).map_or(Mat3A::IDENTITY, |(inv, _)| inv.matrix3);
    // The end relative to the mid through the mid's adjugate: the inverse
    // times det, whose sign (not size) matters to rotation_of.
    let mid_rel = il * mid.matrix3;
    let end_rel = adjugate(&mid.matrix3) * end.matrix3;
    let end_rel = end_rel * mid.matrix3.determinant().signum();
    let turned =
        start.matrix3 * Mat3A::from_quat(start_fix) * mid_rel * Mat3A::from_quat(mid_fix) * end_rel;
    let current = rotation_of(&turned);
    let mut goal = q.normalize();
    if goal.dot(current) < 0.0 {
        goal = -goal;
    }
    weighted_turn(current.inverse() * goal, k)
}

/// `r` raised to the power `k` in [0, 1]: slerp from the identity, since
/// slerp(current, goal, k) = current · (current⁻¹ · goal)^k. `r` must lie in
/// the hemisphere w ≥ 0.
#[inline]
fn weighted_turn(r: Quat, k: f32) -> Quat {
    if k == 1.0 {
        return r;
    }
    let v = Vec3A::new(r.x, r.y, r.z);
    let sv = v.length();
    if sv > 0.0 {
        let (sn, cs) = sin_cos(atan2(sv, r.w) * k);
        let v = v * (sn / sv);
        Quat::from_xyzw(v.x, v.y, v.z, cs)
    } else {
        Quat::IDENTITY
    }
}

/// The two-bone solve on model matrices alone: the counterpart of
/// ozz-animation's `IKTwoBoneJob`.
///
/// Takes the model matrices of the start, mid and end joints and the job's
/// options (which must have passed [`TwoBoneOptions::validate`]) and returns
/// the local corrections of the three joints. Works in the start joint's
/// own space, where the chain is rigid even under an ancestor's non-uniform
/// or mirroring scale (the start and mid joints' own scales must be
/// uniform). Reads nothing else, writes nothing, allocates nothing; fails
/// only when the start's matrix is singular, and never returns NaN for
/// finite input.
///
/// The common case runs as one mostly branch-free line of arithmetic;
/// degenerate chains, poles within [`POLE_FALLBACK_SINE`] of the
/// hip→target axis, turns within a few degrees of a half turn and weight 0
/// take a general path, which computes the same solution (up to rounding)
/// with every fallback.
pub fn solve_core(
    start: &Affine3A,
    mid: &Affine3A,
    end: &Affine3A,
    opts: &TwoBoneOptions,
) -> Result<TwoBoneCorrection, IkError> {
    let fast = if opts.weight != 0.0 {
        solve_core_fast(start, mid, end, opts)
    } else {
        None
    };
    if let Some(fix) = fast {
        return Ok(fix);
    }
    solve_core_general(start, mid, end, opts)
}

/// Below this squared length (chain-space units) the fast path hands a bone,
/// the target distance or the bent chain to the general path.
pub(crate) const FAST_MIN_LEN_SQ: f32 = 1e-10;

/// Below this squared norm of the unnormalized half-way pair the hinge's
/// bend change is within 1e-3 rad of a half turn: the general path takes it.
pub(crate) const FAST_HALF_TURN_NORM_SQ: f32 = 1e-6;

/// Below this 1 + ê·n (ê the bent chain's direction, n the hip→target axis)
/// the aim turns the chain by more than about 172°: the general path takes
/// it, where the fast path's division by 1 + ê·n would lose bits.
pub(crate) const FAST_AIM_MIN_W: f32 = 1e-2;

/// How far (relative, on the Gram matrix of its columns) a joint's model
/// matrix may be from a rotation times one positive scale for the end
/// rotation to be found by quaternion products instead of the matrix chain.
pub(crate) const CONFORMAL_TOLERANCE: f32 = 1e-5;

/// `x·v.x + y·v.y + z·v.z`: a matrix given by its columns times `v`.
#[inline(always)]
fn mul_cols(x: Vec3A, y: Vec3A, z: Vec3A, v: Vec3A) -> Vec3A {
    x * v.x + y * v.y + z * v.z
}

/// `(r0·v, r1·v, r2·v)`: a matrix given by its rows times `v`.
#[inline(always)]
fn mul_rows(r0: Vec3A, r1: Vec3A, r2: Vec3A, v: Vec3A) -> Vec3A {
    Vec3A::new(r0.dot(v), r1.dot(v), r2.dot(v))
}

/// Whether the linear map `m` is a rotation times one scale: its columns of
/// equal lengths and pairwise perpendicular, to [`CONFORMAL_TOLERANCE`];
/// and the squared length of its first column (`x_axis.length_squared()`,
/// bit for bit), which the caller needs anyway. The Gram matrix's diagonal
/// and off-diagonal come from the rows as three vector products each; no
/// branches.
#[inline(always)]
fn conformal_scale_sq(m: &Mat3A) -> (bool, f32) {
    let t = m.transpose();
    let (r0, r1, r2) = (t.x_axis, t.y_axis, t.z_axis);
    // (x·x, y·y, z·z) and (x·y, y·z, z·x) for the columns x, y, z.
    let diag = r0 * r0 + r1 * r1 + r2 * r2;
    let off = r0 * r0.yzx() + r1 * r1.yzx() + r2 * r2.yzx();
    let tol = Vec3A::splat(CONFORMAL_TOLERANCE * diag.x);
    let conformal = ((diag - Vec3A::splat(diag.x)).abs().cmple(tol) & off.abs().cmple(tol)).all();
    (conformal, diag.x)
}

/// The quaternion with vector part `v` and scalar part `w`.
#[inline(always)]
fn quat_of(v: Vec3A, w: f32) -> Quat {
    Quat::from_xyzw(v.x, v.y, v.z, w)
}

/// The vector part of `q`.
#[inline(always)]
fn vector_of(q: Quat) -> Vec3A {
    Vec3A::new(q.x, q.y, q.z)
}

/// [`solve_core`]'s common case as one mostly branch-free line of vector
/// arithmetic, or `None` where a fallback of [`solve_core_general`] would
/// apply (the caller then runs that). The same construction and results up
/// to rounding, with these shortcuts:
///
/// - independent square roots and reciprocals go four to an instruction
///   ([`sqrt4`], [`recip4`]), still exact IEEE operations;
/// - the knee hint is not normalized: only its direction across the
///   hip→target axis counts, and that is normalized once where it is used;
/// - the pole's sine against the axis is compared squared, with no root;
/// - the hinge keeps every angle as a sine-cosine pair: which of the two
///   bends that give the wanted reach (or which limit) applies is decided on
///   cosines, the bent chain comes from products of the pairs, and the half
///   bend change for the mid's correction from the half-way pair, with no
///   arctangent or arccosine;
/// - rotations that only feed other rotations (the aim, the twist, the
///   start's turn on its way to the end's) stay unnormalized, and where a
///   vector must go through a turn before that turn is normalized, the
///   two-reflection form of the minimal rotation takes it;
/// - the end lands at `n·|e|` (the start's turn takes the bent chain `e`
///   onto the hip→target axis `n` and twists about that axis);
/// - where the start and mid matrices are rotations times one positive
///   scale, the end rotation is three quaternion products and one
///   branch-free rotation extraction (the end's own matrix) instead of a
///   chain of matrix products, and its weighted power needs no quadrant
///   logic;
/// - work that depends on the inputs alone (the end rotation's checks and
///   the end's own rotation, the twist's sine and cosine, the mid's
///   adjugate without a hinge) is written first: the processor's
///   out-of-order window holds only part of a solve, so work written after
///   the long chain of roots and divisions would start late (measured:
///   about 4 % of the full solve).
#[inline(always)]
fn solve_core_fast(
    start: &Affine3A,
    mid: &Affine3A,
    end: &Affine3A,
    opts: &TwoBoneOptions,
) -> Option<TwoBoneCorrection> {
    let w = opts.weight;
    let (sx, sy, sz) = (
        start.matrix3.x_axis,
        start.matrix3.y_axis,
        start.matrix3.z_axis,
    );
    let (mx, my, mz) = (mid.matrix3.x_axis, mid.matrix3.y_axis, mid.matrix3.z_axis);
    let (pa, pb, pc) = (start.translation, mid.translation, end.translation);
    let target = Vec3A::from(opts.target);
    // What depends on the inputs alone comes first in program order: the
    // processor's window reaches only part of a solve, and work written
    // after the long chain of roots and divisions would wait to enter it.
    // The end rotation's checks and the end's own rotation, and the twist.
    let end_inputs = match opts.end_rotation {
        Some((_, ew)) if ew * w > 0.0 => {
            let (start_conformal, s_len_sq) = conformal_scale_sq(&start.matrix3);
            let (mid_conformal, m_len_sq) = conformal_scale_sq(&mid.matrix3);
            let [s_len, m_len, _, _] = sqrt4([s_len_sq, m_len_sq, 1.0, 1.0]);
            let conformal = start_conformal & mid_conformal;
            Some((conformal, s_len, m_len, rotation_of_fast(end).conjugate()))
        }
        _ => None,
    };
    // Without a hinge, the mid's adjugate and its old shin direction in its
    // own frame (see the mid's turn below), with 1 / its length.
    let (a0, a1, a2, old_dir, old_len_sq, inv_old_len) = if opts.hinge.is_none() {
        let (a0, a1, a2) = (my.cross(mz), mz.cross(mx), mx.cross(my));
        let old_dir = mul_rows(a0, a1, a2, pc - pb);
        let old_len_sq = old_dir.length_squared();
        (a0, a1, a2, old_dir, old_len_sq, 1.0 / old_len_sq.sqrt())
    } else {
        (Vec3A::ZERO, Vec3A::ZERO, Vec3A::ZERO, Vec3A::ZERO, 0.0, 0.0)
    };
    let twist_sin_cos = match opts.knee {
        KneeStrategy::Pole { twist, .. } => sin_cos_inline(twist),
        _ => (0.0, 1.0),
    };
    // The start's inverse by cofactors: rows c0, c1, c2 over the determinant.
    let (c0, c1, c2) = (sy.cross(sz), sz.cross(sx), sx.cross(sy));
    let det = sx.dot(c0);
    if !(det.abs() >= SINGULAR_DET && det.is_finite()) {
        return None;
    }
    let rdet = 1.0 / det;
    let inv = |v: Vec3A| mul_rows(c0, c1, c2, v) * rdet;
    let (ab, mb) = (pb - pa, pc - pb);
    // The chain in the start's own space: the start sits at the origin.
    let b = inv(ab);
    let c = inv(pc - pa);
    let t = c + (inv(target - pa) - c) * w;
    let s = c - b;
    let hm_raw = match &opts.hinge {
        Some(h) => inv(mul_cols(mx, my, mz, Vec3A::from(h.axis()))),
        None => Vec3A::X,
    };
    let (l1_sq, l2_sq, dist_sq) = (b.length_squared(), s.length_squared(), t.length_squared());
    let hm_sq = hm_raw.length_squared();
    if !((l1_sq > FAST_MIN_LEN_SQ)
        & (l2_sq > FAST_MIN_LEN_SQ)
        & (dist_sq > FAST_MIN_LEN_SQ)
        & (hm_sq > FAST_MIN_LEN_SQ))
    {
        return None;
    }
    let [l1, l2, dist, hm_len] = sqrt4([l1_sq, l2_sq, dist_sq, hm_sq]);
    let [inv_l1, inv_dist, inv_hm, _] = recip4([l1, dist, hm_len, 1.0]);
    let n = t * inv_dist;
    let current = b * inv_l1;

    // The knee direction the strategy asks for, blended by weight with the
    // current one; not normalized (see above).
    let hint = match opts.knee {
        KneeStrategy::MinimalMotion | KneeStrategy::PosePreserving => current,
        KneeStrategy::Pole { pole, twist } => {
            let raw = match pole {
                Pole::Point(p) => inv(Vec3A::from(p) - pa),
                Pole::Direction(d) => inv(Vec3A::from(d)),
            };
            let perp = raw - n * raw.dot(n);
            let p2 = perp.length_squared();
            // The pole alone decides only where its sine against the axis
            // reaches POLE_FALLBACK_SINE; below, the general path fades in
            // the current bend direction.
            let fade_free = p2 >= POLE_FALLBACK_SINE * POLE_FALLBACK_SINE * raw.length_squared();
            if !(fade_free & (p2 > FAST_MIN_LEN_SQ)) {
                return None;
            }
            // At full weight the pole alone is the hint and its length does
            // not count; blended with the current direction it must be unit.
            let dir = if twist == 0.0 {
                perp
            } else {
                perp * twist_sin_cos.1 + n.cross(perp) * twist_sin_cos.0
            };
            if w == 1.0 {
                dir
            } else {
                current * (1.0 - w) + dir * (w / p2.sqrt())
            }
        }
    };

    // `turn` is the start's correction up to a positive factor.
    let (start_fix, mid_fix, new_end, det_m, turn) = match &opts.hinge {
        None => {
            let reach = l1 + l2;
            let eff = soften_distance(dist, reach, opts.soften);
            let (new_mid, new_end, dir) = if eff < (l1 - l2).abs() {
                // Too close: the longer segment toward the target, the other away.
                let sign = if l1 >= l2 { 1.0 } else { -1.0 };
                let knee = n * (sign * l1);
                (knee, knee - n * (sign * l2), n * sign)
            } else if eff >= reach || eff <= DEGENERATE_LEN {
                // Too far: straight toward the target.
                (n * l1, n * reach, n)
            } else {
                // Reachable: the knee on the circle of the two spheres.
                let hp = hint - n * hint.dot(n);
                let hp2 = hp.length_squared();
                let ok = hp2 > DEGENERATE_LEN_SQ;
                if !ok {
                    return None;
                }
                // Unsoftened, eff is dist and 1 / (2·l1·eff) is known already.
                let num = l1 * l1 + eff * eff - l2 * l2;
                let cos_theta = if opts.soften >= 1.0 {
                    num * (0.5 * inv_l1 * inv_dist)
                } else {
                    num / (2.0 * l1 * eff)
                };
                let cos_theta = cos_theta.clamp(-1.0, 1.0);
                let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
                let u = hp * (1.0 / hp2.sqrt());
                let dir = n * cos_theta + u * sin_theta;
                (dir * l1, n * eff, dir)
            };
            // The start's turn: the half-way quaternion of the old and new
            // thigh directions (rotation_between without its half-turn
            // fallback, which the general path keeps).
            let half = current + dir;
            let w_ds = 0.5 * half.length_squared();
            let ok = w_ds > FAST_AIM_MIN_W;
            if !ok {
                return None;
            }
            let c_ds = current.cross(dir);
            let c_ds = c_ds - current * c_ds.dot(current);
            let [inv_ds, inv_w_ds, _, _] =
                recip4([(c_ds.length_squared() + w_ds * w_ds).sqrt(), w_ds, 1.0, 1.0]);
            let ds = quat_of(c_ds * inv_ds, w_ds * inv_ds);
            // The mid's turn in its own frame: directions through the
            // adjugate of its model matrix (see solve_core_general), the new
            // shin taken back through the start's turn by the two-reflection
            // form of the minimal rotation from `dir` to `current`, which
            // needs 1 / (1 + dir·current) rather than ds itself.
            let dm = if old_len_sq > 0.0 && old_len_sq.is_finite() {
                let inv_len = inv_old_len;
                let shin = new_end - new_mid;
                let back =
                    shin - half * (half.dot(shin) * inv_w_ds) + current * (2.0 * dir.dot(shin));
                let new_dir = mul_rows(a0, a1, a2, mul_cols(sx, sy, sz, back));
                rotation_between((old_dir * inv_len).into(), (new_dir * inv_len).into())
            } else {
                Quat::IDENTITY
            };
            (ds, dm, new_end, mx.dot(a0), ds)
        }
        Some(h) => {
            // Projections along the hinge through 1/|h|² (no root on this
            // path); the unit axis only where a length depends on it.
            let inv_hm2 = 1.0 / hm_sq;
            let det_m = mx.dot(my.cross(mz));
            let mirrored = (det < 0.0) != (det_m < 0.0);
            let u = b;
            let s_par = hm_raw * (s.dot(hm_raw) * inv_hm2);
            let s_perp = s - s_par;
            let u_perp = u - hm_raw * (u.dot(hm_raw) * inv_hm2);
            let (up2, sp2) = (u_perp.length_squared(), s_perp.length_squared());
            // The reach at bend θ is sqrt(k0 + k1·cos θ).
            let k1 = 2.0 * (up2 * sp2).sqrt();
            let ok =
                (up2 >= DEGENERATE_LEN_SQ) & (sp2 >= DEGENERATE_LEN_SQ) & (k1 > DEGENERATE_LEN);
            if !ok {
                return None;
            }
            let inv_k1 = 1.0 / k1;
            let k0 = (u + s_par).length_squared() + sp2;
            // The current bend θ0 as a sine-cosine pair: |u⊥|·|s⊥| = k1 / 2.
            let y0 = hm_raw.dot(u_perp.cross(s_perp)) * inv_hm;
            let (sin0, cos0) = (y0 * (2.0 * inv_k1), u_perp.dot(s_perp) * (2.0 * inv_k1));
            // The limits' sines and cosines, computed once with the limit.
            let ((sin_min, cos_min), (sin_max, cos_max)) = h.limits_sin_cos();
            let (h_min, h_max) = (h.min(), h.max());
            let d = if opts.soften < 1.0 {
                let best_cos = longest_reach_cos(h, cos_min, cos_max);
                soften_distance(dist, (k0 + k1 * best_cos).max(0.0).sqrt(), opts.soften)
            } else {
                dist
            };
            // The bends ±tc give the reach d; tc in [0, π] by its cosine.
            let ctc = ((d * d - k0) * inv_k1).clamp(-1.0, 1.0);
            let stc = ((1.0 - ctc) * (1.0 + ctc)).sqrt();
            // Range tests on cosines (cos falls on [0, π]).
            let pos_ok = (h_min <= 0.0 || ctc <= cos_min) & (h_max >= 0.0) & (ctc >= cos_max);
            let neg_ok = (h_min <= 0.0) & (ctc >= cos_min) & (h_max >= 0.0 || ctc <= cos_max);
            let theta0_negative = y0 < 0.0;
            let (sin_t, cos_t) = if pos_ok | neg_ok {
                // Both allowed: the one nearer the current bend.
                let negative = if pos_ok & neg_ok {
                    theta0_negative
                } else {
                    neg_ok
                };
                (if negative { -stc } else { stc }, ctc)
            } else {
                // Neither: the limit whose reach is nearest (the limits lie
                // on one side of tc, where reach follows the cosine).
                let (em, ex) = ((cos_min - ctc).abs(), (cos_max - ctc).abs());
                if em < ex || (em == ex && theta0_negative) {
                    (sin_min, cos_min)
                } else {
                    (sin_max, cos_max)
                }
            };
            // The bent chain: the shin's part across the hinge turned by the
            // bend change θ - θ0, by products of the pairs (no root).
            let cos_d = cos_t * cos0 + sin_t * sin0;
            let sin_d = sin_t * cos0 - cos_t * sin0;
            let e = u + s_par + s_perp * cos_d + hm_raw.cross(s_perp) * (sin_d * inv_hm);
            // Half the bend change for the mid's correction, from the
            // half-way pair; negated where |θ - θ0| > π, as the angle's half
            // would give it. Off the path to the start's rotation.
            let (hx, hy) = (cos0 + cos_t, sin0 + sin_t);
            let hw = 0.5 * (hx * hx + hy * hy);
            let hn2 = hw * hw + sin_d * sin_d;
            let ok = hn2 >= FAST_HALF_TURN_NORM_SQ;
            if !ok {
                return None;
            }
            let flip = ((sin_t >= 0.0) != (sin0 >= 0.0)) & (cos_t + cos0 < 0.0);
            let inv_hn = (if flip { -1.0 } else { 1.0 }) / hn2.sqrt();
            let (sh, ch) = (sin_d * inv_hn, hw * inv_hn);

            // The start's turn: r1, the minimal rotation taking the bent
            // chain e onto the hip→target axis n (seed 000's aim), then the
            // twist about n that takes the thigh's part across the axis
            // (r1·f, f the thigh's part across e) onto the hint's (ĝ).
            // r1·f comes from the two-reflection form of the minimal
            // rotation, v - ((ê + n)·v / (1 + ê·n))·(ê + n) + 2(ê·v)·n (the
            // last term vanishes for v ⊥ e), and neither quaternion is
            // normalized on the way to the end's turn, which does not see
            // their sizes: only the start's own correction is divided.
            let e2 = e.length_squared();
            let ok = e2 > FAST_MIN_LEN_SQ;
            if !ok {
                return None;
            }
            let inv_e2 = 1.0 / e2;
            let e_len = e2.sqrt();
            // The knee's offset across e, with the hinge's bend direction
            // (see HINGE_BEND_BIAS): |hm × e| is |e|/|hm| when hm ⊥ e.
            let side = if h_min + h_max >= 0.0 { -1.0 } else { 1.0 };
            let cross = hm_raw.cross(e);
            let c2 = cross.length_squared();
            let bend = if c2 > FAST_MIN_LEN_SQ {
                cross * (side * HINGE_BEND_BIAS * l1 / c2.sqrt())
            } else {
                Vec3A::ZERO
            };
            let f = u - e * (u.dot(e) * inv_e2) + bend;
            let g = hint - n * hint.dot(n);
            let (f2, g2) = (f.length_squared(), g.length_squared());
            // |e|·(1 + ê·n), and |e| times the half-way quaternion of ê and n.
            let w1 = e_len + e.dot(n);
            let ok = w1 > FAST_AIM_MIN_W * e_len;
            if !ok {
                return None;
            }
            let r1 = quat_of(e.cross(n), w1);
            let turn = if (f2 < DEGENERATE_LEN_SQ) | (g2 < DEGENERATE_LEN_SQ) {
                r1
            } else {
                let [f_len, g_len, _, _] = sqrt4([f2, g2, 1.0, 1.0]);
                let [inv_w1, inv_g, _, _] = recip4([w1, g_len, 1.0, 1.0]);
                let gn = g * inv_g;
                let f_turned = f - (e + n * e_len) * (n.dot(f) * inv_w1);
                // 2|f|² times the half-way quaternion of r1·f̂ and ĝ about n:
                // h = r1·f + |f|·ĝ keeps its bits when they nearly oppose.
                let qv = n * (2.0 * f_len * n.dot(f_turned.cross(gn)));
                let qw = (f_turned + gn * f_len).length_squared();
                let twist =
                    if qv.length_squared() + qw * qw < ANTIPARALLEL_NORM_SQ * (4.0 * f2 * f2) {
                        quat_of(n, 0.0)
                    } else {
                        quat_of(qv, qw)
                    };
                twist * r1
            };
            let ds = turn * (1.0 / turn.length());
            // The same bend change about the local axis (reversed in a mirrored frame).
            let v = Vec3A::from(h.unit_axis()) * if mirrored { -sh } else { sh };
            (ds, quat_of(v, ch), n * e_len, det_m, turn)
        }
    };

    let end_fix = match (opts.end_rotation, end_inputs) {
        (Some((q, ew)), Some((conformal, s_len, m_len, end_inverse))) => {
            if (det > 0.0) & (det_m > 0.0) & conformal {
                // S·Ds·S⁻¹ is the rotation Ds about the start's model-space
                // axis (S·v / |S x|); likewise for the mid. The end's model
                // rotation after both turns is then their product with the
                // end's own rotation. Both turns are taken times their
                // matrix's scale (S·v, |S x|·w): positive factors, which the
                // power below does not see, and no division.
                let ds_model = quat_of(mul_cols(sx, sy, sz, vector_of(turn)), turn.w * s_len);
                let dm_model = quat_of(mul_cols(mx, my, mz, vector_of(mid_fix)), mid_fix.w * m_len);
                // current⁻¹ · goal, the start's turn last: the other
                // factors do not wait for it.
                let rest = end_inverse * dm_model.conjugate();
                // Up to a positive factor (the start's turn, the end's
                // rotation and the goal are not normalized): the power below
                // depends on directions only.
                let r = rest * (ds_model.conjugate() * q);
                // The goal's sign nearest the current rotation.
                let r = if r.w < 0.0 { -r } else { r };
                let k = ew * w;
                if k == 1.0 {
                    r * (1.0 / r.length())
                } else {
                    turn_power(r, k)
                }
            } else {
                end_turn_general(start, mid, end, start_fix, mid_fix, q, ew * w)
            }
        }
        _ => Quat::IDENTITY,
    };
    let end_position = mul_cols(sx, sy, sz, new_end) + pa;
    let [thigh, shin, residual, _] = sqrt4([
        ab.length_squared(),
        mb.length_squared(),
        (end_position - target).length_squared(),
        1.0,
    ]);
    let tolerance = REACHED_RELATIVE_TOLERANCE * (thigh + shin).max(DEGENERATE_LEN);
    Some(TwoBoneCorrection {
        start: start_fix,
        mid: mid_fix,
        end: end_fix,
        end_position: end_position.into(),
        reached: residual <= tolerance,
    })
}

/// [`rotation_of`] for the end's matrix in the fast path, up to a positive
/// factor (or its negation, which the caller's hemisphere choice absorbs):
/// the columns normalized (lengths from the rows' products), then, for
/// turns up to about 138° (trace above [`TRACE_FORM_MIN`], one
/// well-predicted branch), the trace form 4w·q alone; otherwise glam's case
/// split of `Quat::from_rotation_axes` as a choice among the columns of the
/// symmetric matrix whose columns are 4·qᵢ·q (P + (1 - tr)·I and the skew
/// part k above, kᵀ and 1 + tr below, P the normalized matrix plus its
/// transpose), by selects.
#[inline(always)]
fn rotation_of_fast(m: &Affine3A) -> Quat {
    use glam::{BVec4A, Vec4};
    let (x, y, z) = (m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis);
    let det = x.dot(y.cross(z));
    let t = m.matrix3.transpose();
    let len_sq = t.x_axis * t.x_axis + t.y_axis * t.y_axis + t.z_axis * t.z_axis;
    let [lx, ly, lz, _] = sqrt4([len_sq.x, len_sq.y, len_sq.z, 1.0]);
    let inv = Vec3A::ONE / Vec3A::new(lx * det.signum(), ly, lz);
    let n = Mat3A::from_cols(x * inv.x, y * inv.y, z * inv.z);
    let (m00, m11, m22) = (n.x_axis.x, n.y_axis.y, n.z_axis.z);
    let tr = m00 + m11 + m22;
    let k = Vec3A::new(
        n.y_axis.z - n.z_axis.y,
        n.z_axis.x - n.x_axis.z,
        n.x_axis.y - n.y_axis.x,
    );
    if tr > TRACE_FORM_MIN {
        // Turns up to about 138°, the common case: the trace form alone is
        // well conditioned (4·w² = 1 + tr > 1/2), the others are not needed.
        let r = Quat::from_vec4(k.extend(1.0 + tr));
        return if r.is_finite() { r } else { Quat::IDENTITY };
    }
    let p = n + n.transpose();
    let c = 1.0 - tr;
    let qx = (p.x_axis + Vec3A::X * c).extend(k.x);
    let qy = (p.y_axis + Vec3A::Y * c).extend(k.y);
    let qz = (p.z_axis + Vec3A::Z * c).extend(k.z);
    let qw = k.extend(1.0 + tr);
    let pick = |cond: bool, a: Vec4, b: Vec4| Vec4::select(BVec4A::splat(cond), a, b);
    let q = pick(
        m22 <= 0.0,
        pick(m11 - m00 <= 0.0, qx, qy),
        pick(m11 + m00 <= 0.0, qz, qw),
    );
    let r = Quat::from_vec4(q);
    if r.is_finite() { r } else { Quat::IDENTITY }
}

/// Above this trace of a rotation matrix [`rotation_of_fast`] takes the
/// trace form (4w·q from the skew part and 1 + tr) without the case split:
/// 1 + tr > 1/2 keeps it well conditioned.
pub(crate) const TRACE_FORM_MIN: f32 = -0.5;

/// `r` raised to the power `k` in [0, 1), as [`weighted_turn`] computes it,
/// for an `r` with w ≥ 0 given up to a positive factor (the result is unit):
/// the half angle φ = atan2(|v|, w) lies in [0, π/2], so the arctangent
/// needs no quadrant logic (its two candidate ratios divide side by side)
/// and kφ/2 in [0, π/4] needs no reduction; the series are evaluated by
/// Estrin's scheme, a short dependency chain.
#[inline(always)]
fn turn_power(r: Quat, k: f32) -> Quat {
    let v = vector_of(r);
    let sv = v.length();
    let rw = r.w;
    if sv <= 0.0 {
        return Quat::IDENTITY;
    }
    let (lo, hi) = (sv.min(rw), sv.max(rw));
    let [a, a_folded, inv_sv, _] =
        (glam::Vec4::new(lo, lo - hi, 1.0, 1.0) / glam::Vec4::new(hi, lo + hi, sv, 1.0)).to_array();
    // atan(a), a in [0, 1]: past tan(π/8) as π/4 + atan((a - 1) / (a + 1)).
    let big = a > 0.414_213_57;
    let z = if big { a_folded } else { a };
    let base = if big {
        std::f32::consts::FRAC_PI_4
    } else {
        0.0
    };
    let atan = base + atan_series_of(z);
    let phi = if sv > rw {
        std::f32::consts::FRAC_PI_2 - atan
    } else {
        atan
    };
    // sin and cos of ψ = kφ / 2 in [0, π/4], then of 2ψ.
    let (sn, cs) = sin_cos_twice_of(phi * k * 0.5);
    quat_of(v * (sn * inv_sv), cs)
}

/// [`solve_core`] with every fallback: degenerate lengths, a pole along the
/// hip→target axis, half-turns, weight 0 and singular start matrices.
#[cold]
#[inline(never)]
fn solve_core_general(
    start: &Affine3A,
    mid: &Affine3A,
    end: &Affine3A,
    opts: &TwoBoneOptions,
) -> Result<TwoBoneCorrection, IkError> {
    let (pa, pb, pc) = (start.translation, mid.translation, end.translation);
    let target = Vec3A::from(opts.target);
    let model_len = (pb - pa).length() + (pc - pb).length();
    let tolerance = REACHED_RELATIVE_TOLERANCE * model_len.max(DEGENERATE_LEN);
    let w = opts.weight;
    if w == 0.0 {
        return Ok(TwoBoneCorrection::identity(
            pc,
            (pc - target).length() <= tolerance,
        ));
    }
    let (inv, start_det) = affine_inverse(start).ok_or(IkError::InvalidParameter {
        what: "start joint",
        reason: "its model matrix is singular (zero scale)",
    })?;
    let il = inv.matrix3;
    // The chain in the start's own space: the start sits at the origin.
    let b = il * (pb - pa);
    let c = il * (pc - pa);
    let t = c + (il * (target - pa) - c) * w;
    let l1 = b.length();
    let current = if l1 > 0.0 { b / l1 } else { Vec3A::ZERO };

    // The knee direction the strategy asks for, blended by weight with the
    // current one so that weight 0 keeps the knee where it is.
    let hint = match opts.knee {
        KneeStrategy::MinimalMotion | KneeStrategy::PosePreserving => current,
        KneeStrategy::Pole { pole, twist } => {
            let raw = match pole {
                Pole::Point(p) => il * (Vec3A::from(p) - pa),
                Pole::Direction(d) => il * Vec3A::from(d),
            };
            let dir = pole_direction(raw, b, c, t, twist).normalize_or_zero();
            if w == 1.0 {
                dir
            } else {
                (current * (1.0 - w) + dir * w).normalize_or_zero()
            }
        }
    };

    let (start_fix, mid_fix, new_end) = match &opts.hinge {
        None => {
            let (new_mid, new_end, dir) = place(b, c, t, l1, hint, opts.soften);
            // `dir` is unit by construction (n, or n·cos θ + u·sin θ).
            let ds = if l1 > 0.0 {
                rotation_between(current.into(), dir.into())
            } else {
                Quat::IDENTITY
            };
            // The mid's turn in its own frame: directions through the
            // adjugate of its start-space linear part (the inverse up to a
            // positive or negative factor, which directions do not see).
            // The shin keeps its length, and the map into the mid's frame is
            // a rotation times one scale (the joints' own scales are uniform),
            // so both shins share one length: the old shin's, computed while
            // the start's rotation is still being found.
            let to_mid = adjugate(&mid.matrix3);
            let old_dir = to_mid * (pc - pb);
            let old_len_sq = old_dir.length_squared();
            let dm = if old_len_sq > 0.0 && old_len_sq.is_finite() {
                let inv_len = 1.0 / old_len_sq.sqrt();
                let new_dir = to_mid * (start.matrix3 * (ds.inverse() * (new_end - new_mid)));
                rotation_between((old_dir * inv_len).into(), (new_dir * inv_len).into())
            } else {
                Quat::IDENTITY
            };
            (ds, dm, new_end)
        }
        Some(h) => {
            let axis_local = Vec3A::from(h.axis()).normalize();
            let mid_lin = il * mid.matrix3;
            let hm = (mid_lin * axis_local).normalize_or(Vec3A::X);
            let mirrored = (start_det < 0.0) != (mid.matrix3.determinant() < 0.0);
            let (ds, (sh, ch), new_end) = solve_hinged(h, hm, b, c, t, hint, opts.soften);
            // The same bend change about the local axis (reversed in a mirrored frame).
            let v = axis_local * if mirrored { -sh } else { sh };
            (ds, Quat::from_xyzw(v.x, v.y, v.z, ch), new_end)
        }
    };

    let end_fix = match opts.end_rotation {
        Some((q, ew)) if ew * w > 0.0 => {
            end_turn_general(start, mid, end, start_fix, mid_fix, q, ew * w)
        }
        _ => Quat::IDENTITY,
    };
    let end_position = start.transform_point3a(new_end);
    Ok(TwoBoneCorrection {
        start: start_fix,
        mid: mid_fix,
        end: end_fix,
        end_position: end_position.into(),
        reached: (end_position - target).length() <= tolerance,
    })
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

/// True when every component of every vector is finite, like `is_finite` on
/// each, with no branch per component: a non-finite component times zero is
/// NaN, and NaN survives the sum.
#[inline(always)]
fn all_finite(vs: &[Vec4]) -> bool {
    let mut acc = Vec4::ZERO;
    for v in vs {
        acc += *v * 0.0;
    }
    acc.cmpeq(Vec4::ZERO).all()
}

/// A two-bone chain of one skeleton, checked once: the indices lie in the
/// skeleton and each joint descends from the one before. The per-frame
/// [`TwoBoneChain::solve`] then skips those walks and checks only what it
/// reads (lengths, finiteness of three matrices and three rotations, the
/// options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwoBoneChain {
    start: usize,
    mid: usize,
    end: usize,
    joints: usize,
}

impl TwoBoneChain {
    /// Checks the chain against `skeleton`.
    pub fn new(skeleton: &Skeleton, start: usize, mid: usize, end: usize) -> Result<Self, IkError> {
        let len = skeleton.len();
        for joint in [start, mid, end] {
            if joint >= len {
                return Err(IkError::JointOutOfRange { joint, len });
            }
        }
        if mid == start || !skeleton.is_descendant_of(mid, start) {
            return Err(IkError::NotAChain {
                ancestor: start,
                joint: mid,
            });
        }
        if end == mid || !skeleton.is_descendant_of(end, mid) {
            return Err(IkError::NotAChain {
                ancestor: mid,
                joint: end,
            });
        }
        Ok(Self {
            start,
            mid,
            end,
            joints: len,
        })
    }

    /// The start, mid and end joints.
    pub fn joints(&self) -> (usize, usize, usize) {
        (self.start, self.mid, self.end)
    }

    /// Solves the chain toward `opts`: writes new local rotations of the
    /// start and mid (and end, with an end rotation) joints into `pose` and
    /// re-propagates `models` for the start joint and its descendants.
    ///
    /// `skeleton` must be the one the chain was checked against and `models`
    /// the model matrices of `pose`. On error nothing is written. The same as
    /// [`TwoBoneChain::prepare`], [`solve_core`] on its matrices, then
    /// [`TwoBoneChain::apply`]; a caller solving many chains at once runs
    /// the middle step batched instead.
    pub fn solve(
        &self,
        opts: &TwoBoneOptions,
        skeleton: &Skeleton,
        pose: &mut Pose,
        models: &mut [Mat4],
    ) -> Result<TwoBoneResult, IkError> {
        let [s, m, e] = self.prepare(opts, skeleton, pose, models)?;
        let fix = solve_core(&s, &m, &e, opts)?;
        self.apply(&fix, opts, skeleton, pose, models)
    }

    /// The checks of [`TwoBoneChain::solve`] before its core: buffer lengths,
    /// the options, finite model matrices and local rotations of the three
    /// joints. Returns the start, mid and end model matrices for
    /// [`solve_core`] (or a batched solve of many chains).
    pub fn prepare(
        &self,
        opts: &TwoBoneOptions,
        skeleton: &Skeleton,
        pose: &Pose,
        models: &[Mat4],
    ) -> Result<[Affine3A; 3], IkError> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above), the only
            // requirement of this `target_feature` function.
            return unsafe { self.prepare_avx2(opts, skeleton, pose, models) };
        }
        self.prepare_kernel(opts, skeleton, pose, models)
    }

    /// [`TwoBoneChain::prepare`] built for processors with AVX2 (see
    /// [`crate::dispatch`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn prepare_avx2(
        &self,
        opts: &TwoBoneOptions,
        skeleton: &Skeleton,
        pose: &Pose,
        models: &[Mat4],
    ) -> Result<[Affine3A; 3], IkError> {
        self.prepare_kernel(opts, skeleton, pose, models)
    }

    /// The body of [`TwoBoneChain::prepare`], inlined into each of its
    /// builds (the options' check too: [`TwoBoneOptions::validate`]'s
    /// one-branch test, its reasons only for options that fail it).
    #[inline(always)]
    pub(crate) fn prepare_kernel(
        &self,
        opts: &TwoBoneOptions,
        skeleton: &Skeleton,
        pose: &Pose,
        models: &[Mat4],
    ) -> Result<[Affine3A; 3], IkError> {
        let len = self.joints;
        if skeleton.len() != len || pose.len() != len || models.len() != len {
            return Err(IkError::InvalidParameter {
                what: "pose",
                reason: "skeleton, pose or model buffer length differs from the chain's skeleton",
            });
        }
        if !opts.is_valid() {
            opts.check_each()?;
        }
        let (s, m, e) = (self.start, self.mid, self.end);
        let (ms, mm, me) = (&models[s], &models[m], &models[e]);
        let matrices_finite = all_finite(&[
            ms.x_axis, ms.y_axis, ms.z_axis, ms.w_axis, mm.x_axis, mm.y_axis, mm.z_axis, mm.w_axis,
            me.x_axis, me.y_axis, me.z_axis, me.w_axis,
        ]);
        if !matrices_finite {
            return Err(IkError::NonFinite {
                what: "model matrix of the chain",
            });
        }
        let (rs, rm, re) = (
            pose.locals[s].rotation,
            pose.locals[m].rotation,
            pose.locals[e].rotation,
        );
        if !all_finite(&[Vec4::from(rs), Vec4::from(rm), Vec4::from(re)]) {
            return Err(IkError::NonFinite {
                what: "local rotation of the chain",
            });
        }
        Ok([
            Affine3A::from_mat4(*ms),
            Affine3A::from_mat4(*mm),
            Affine3A::from_mat4(*me),
        ])
    }

    /// The rest of [`TwoBoneChain::solve`] once its core has run: applies
    /// `fix` (the core's result for `opts` on the matrices
    /// [`TwoBoneChain::prepare`] returned) to the local rotations in `pose`
    /// and re-propagates `models` from the start joint down. Nothing is
    /// written if the corrected rotations are not finite.
    pub fn apply(
        &self,
        fix: &TwoBoneCorrection,
        opts: &TwoBoneOptions,
        skeleton: &Skeleton,
        pose: &mut Pose,
        models: &mut [Mat4],
    ) -> Result<TwoBoneResult, IkError> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above), the only
            // requirement of this `target_feature` function.
            return unsafe { self.apply_avx2(fix, opts, skeleton, pose, models) };
        }
        self.apply_kernel(fix, opts, skeleton, pose, models)
    }

    /// [`TwoBoneChain::apply`] built for processors with AVX2 (see
    /// [`crate::dispatch`]): the same operations, so the same bits.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn apply_avx2(
        &self,
        fix: &TwoBoneCorrection,
        opts: &TwoBoneOptions,
        skeleton: &Skeleton,
        pose: &mut Pose,
        models: &mut [Mat4],
    ) -> Result<TwoBoneResult, IkError> {
        self.apply_kernel(fix, opts, skeleton, pose, models)
    }

    /// The body of [`TwoBoneChain::apply`], inlined into each of its builds
    /// (with the re-propagation's kernel in the same build). Called
    /// straight, it is the baseline build, which the tests compare with the
    /// dispatched one.
    #[inline(always)]
    pub(crate) fn apply_kernel(
        &self,
        fix: &TwoBoneCorrection,
        opts: &TwoBoneOptions,
        skeleton: &Skeleton,
        pose: &mut Pose,
        models: &mut [Mat4],
    ) -> Result<TwoBoneResult, IkError> {
        let len = self.joints;
        if skeleton.len() != len || pose.len() != len || models.len() != len {
            return Err(IkError::InvalidParameter {
                what: "pose",
                reason: "skeleton, pose or model buffer length differs from the chain's skeleton",
            });
        }
        let (s, m, e) = (self.start, self.mid, self.end);
        if opts.weight == 0.0 {
            let residual = (fix.end_position - opts.target).length();
            return Ok(TwoBoneResult {
                reached: fix.reached,
                residual,
            });
        }
        let (rs, rm, re) = (
            pose.locals[s].rotation,
            pose.locals[m].rotation,
            pose.locals[e].rotation,
        );
        // Quat::normalize's arithmetic (1 / √(q·q), then the product), the
        // three roots and reciprocals side by side.
        let (qs, qm, qe) = (rs * fix.start, rm * fix.mid, re * fix.end);
        let lengths = sqrt4([
            qs.length_squared(),
            qm.length_squared(),
            qe.length_squared(),
            1.0,
        ]);
        let [is, im, ie, _] = recip4(lengths);
        let (start_rot, mid_rot, end_rot) = (qs * is, qm * im, qe * ie);
        if !all_finite(&[
            Vec4::from(start_rot),
            Vec4::from(mid_rot),
            Vec4::from(end_rot),
        ]) {
            return Err(IkError::NonFinite {
                what: "solver result",
            });
        }
        pose.locals[s].rotation = start_rot;
        pose.locals[m].rotation = mid_rot;
        if opts.end_rotation.is_some() {
            pose.locals[e].rotation = end_rot;
        }
        let model_len = (models[m].w_axis - models[s].w_axis).truncate().length()
            + (models[e].w_axis - models[m].w_axis).truncate().length();
        local_to_model_from_kernel(skeleton, s, &pose.locals, models);
        let residual = (models[e].w_axis.truncate() - opts.target).length();
        Ok(TwoBoneResult {
            reached: residual <= REACHED_RELATIVE_TOLERANCE * model_len.max(DEGENERATE_LEN),
            residual,
        })
    }
}

impl TwoBoneIk {
    /// Runs the job: checks the chain (see [`TwoBoneChain::new`]), then
    /// [`TwoBoneChain::solve`]s it. Per-frame callers keep a
    /// [`TwoBoneChain`] instead and skip the ancestry walks.
    ///
    /// `models` must be the model matrices of `pose` (from
    /// [`crate::local_to_model`]). On error nothing is written.
    pub fn solve(
        &self,
        skeleton: &Skeleton,
        pose: &mut Pose,
        models: &mut [Mat4],
    ) -> Result<TwoBoneResult, IkError> {
        let len = skeleton.len();
        if pose.len() != len || models.len() != len {
            return Err(IkError::InvalidParameter {
                what: "pose",
                reason: "pose or model buffer length differs from the skeleton",
            });
        }
        TwoBoneChain::new(skeleton, self.start, self.mid, self.end)?.solve(
            &self.options(),
            skeleton,
            pose,
            models,
        )
    }
}

#[cfg(test)]
#[path = "two_bone_tests.rs"]
mod tests;
