//! Batched two-bone IK: [`LANES`] chains at once in structure-of-arrays form,
//! for crowds (a column of knights gets its legs solved eight at a time).
//!
//! Every lane computes exactly [`super::two_bone::solve_model_space`]: the
//! same reach cases, knee placement, softening and minimal bone rotations,
//! written branch-free (every case is computed and the right one selected)
//! over fixed `[f32; LANES]` arrays so that the compiler turns each step into
//! SIMD instructions (two SSE registers per array on the x86-64 baseline).
//! The only branches skip the rare fallbacks (a half turn, a knee hint along
//! the hip→target axis) when no lane of the batch needs them. Bone lengths
//! are known, so each direction costs one reciprocal rather than a square
//! root and a division per component. The animation crate depends on glam
//! and thiserror only, so the lanes are plain arrays rather than a SIMD
//! crate's types: the compiler's vectorization already reaches the target.

use glam::{Quat, Vec3};

use super::math::{ANTIPARALLEL_NORM_SQ, DEGENERATE_LEN_SQ};
use super::two_bone::{DEGENERATE_LEN, TwoBoneSolution};

/// Chains per batch: eight f32 lanes fill one AVX register (two SSE ones).
pub const LANES: usize = 8;

/// One f32 per lane.
pub type F = [f32; LANES];

/// Vectors in structure-of-arrays form, one per lane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3s {
    /// X components.
    pub x: F,
    /// Y components.
    pub y: F,
    /// Z components.
    pub z: F,
}

/// Quaternions in structure-of-arrays form, one per lane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Quats {
    /// X components.
    pub x: F,
    /// Y components.
    pub y: F,
    /// Z components.
    pub z: F,
    /// W components.
    pub w: F,
}

impl Vec3s {
    /// Lane `i` as a glam vector.
    pub fn get(&self, i: usize) -> Vec3 {
        Vec3::new(self.x[i], self.y[i], self.z[i])
    }

    /// Writes lane `i`.
    pub fn set(&mut self, i: usize, v: Vec3) {
        self.x[i] = v.x;
        self.y[i] = v.y;
        self.z[i] = v.z;
    }
}

impl Quats {
    /// Lane `i` as a glam quaternion.
    pub fn get(&self, i: usize) -> Quat {
        Quat::from_xyzw(self.x[i], self.y[i], self.z[i], self.w[i])
    }
}

/// The inputs of one batch: model-space hip, knee, ankle, target, knee hint
/// and soften ratio per lane (see [`super::two_bone::solve_points`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TwoBoneBatch {
    /// Start (hip) positions.
    pub start: Vec3s,
    /// Mid (knee) positions.
    pub mid: Vec3s,
    /// End (ankle) positions.
    pub end: Vec3s,
    /// Targets.
    pub target: Vec3s,
    /// Knee hints.
    pub hint: Vec3s,
    /// Soften ratios in (0, 1].
    pub soften: F,
}

/// The results of one batch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TwoBoneBatchOut {
    /// New knee positions.
    pub mid: Vec3s,
    /// New end positions.
    pub end: Vec3s,
    /// 1.0 where the lane was in the reachable case, else 0.0.
    pub reachable: F,
    /// Start bone rotations (model space).
    pub start_delta: Quats,
    /// Mid bone rotations (model space, after the start's turn).
    pub mid_delta: Quats,
}

impl TwoBoneBatchOut {
    /// Lane `i` in the scalar solver's form.
    pub fn lane(&self, i: usize) -> TwoBoneSolution {
        TwoBoneSolution {
            points: super::two_bone::TwoBonePoints {
                mid: self.mid.get(i),
                end: self.end.get(i),
                reachable: self.reachable[i] != 0.0,
            },
            start_delta: self.start_delta.get(i),
            mid_delta: self.mid_delta.get(i),
        }
    }
}

// Lane-wise helpers. Each is one loop the compiler vectorizes.
macro_rules! lanes {
    (|$i:ident| $e:expr) => {{
        let mut out = [0.0f32; LANES];
        for $i in 0..LANES {
            out[$i] = $e;
        }
        out
    }};
}

#[inline(always)]
fn sel(c: [bool; LANES], a: F, b: F) -> F {
    lanes!(|i| if c[i] { a[i] } else { b[i] })
}

#[inline(always)]
fn sel3(c: [bool; LANES], a: &Vec3s, b: &Vec3s) -> Vec3s {
    Vec3s {
        x: sel(c, a.x, b.x),
        y: sel(c, a.y, b.y),
        z: sel(c, a.z, b.z),
    }
}

#[inline(always)]
fn cmp(f: impl Fn(usize) -> bool) -> [bool; LANES] {
    let mut out = [false; LANES];
    for (i, o) in out.iter_mut().enumerate() {
        *o = f(i);
    }
    out
}

#[inline(always)]
fn sub(a: &Vec3s, b: &Vec3s) -> Vec3s {
    Vec3s {
        x: lanes!(|i| a.x[i] - b.x[i]),
        y: lanes!(|i| a.y[i] - b.y[i]),
        z: lanes!(|i| a.z[i] - b.z[i]),
    }
}

#[inline(always)]
fn add(a: &Vec3s, b: &Vec3s) -> Vec3s {
    Vec3s {
        x: lanes!(|i| a.x[i] + b.x[i]),
        y: lanes!(|i| a.y[i] + b.y[i]),
        z: lanes!(|i| a.z[i] + b.z[i]),
    }
}

#[inline(always)]
fn scale(a: &Vec3s, s: F) -> Vec3s {
    Vec3s {
        x: lanes!(|i| a.x[i] * s[i]),
        y: lanes!(|i| a.y[i] * s[i]),
        z: lanes!(|i| a.z[i] * s[i]),
    }
}

/// Divides by a per-lane scalar: one division for the reciprocal, three
/// products (within an ulp of three divisions, far inside the 1e-5 the
/// lanes must keep to the scalar solver).
#[inline(always)]
fn div(a: &Vec3s, s: F) -> Vec3s {
    scale(a, lanes!(|i| 1.0 / s[i]))
}

#[inline(always)]
fn dot(a: &Vec3s, b: &Vec3s) -> F {
    lanes!(|i| a.x[i] * b.x[i] + a.y[i] * b.y[i] + a.z[i] * b.z[i])
}

#[inline(always)]
fn cross(a: &Vec3s, b: &Vec3s) -> Vec3s {
    Vec3s {
        x: lanes!(|i| a.y[i] * b.z[i] - a.z[i] * b.y[i]),
        y: lanes!(|i| a.z[i] * b.x[i] - a.x[i] * b.z[i]),
        z: lanes!(|i| a.x[i] * b.y[i] - a.y[i] * b.x[i]),
    }
}

#[inline(always)]
fn splat(v: f32) -> F {
    [v; LANES]
}

/// Glam's `any_orthonormal_vector` per lane (the scalar solver uses glam's).
#[inline(always)]
fn any_perp(n: &Vec3s) -> Vec3s {
    let sign = lanes!(|i| if n.z[i] >= 0.0 { 1.0 } else { -1.0 });
    let a = lanes!(|i| -1.0 / (sign[i] + n.z[i]));
    let b = lanes!(|i| n.x[i] * n.y[i] * a[i]);
    Vec3s {
        x: b,
        y: lanes!(|i| sign[i] + n.y[i] * n.y[i] * a[i]),
        z: lanes!(|i| -n.y[i]),
    }
}

/// The unit part of `v` perpendicular to unit `n` per lane, and where it
/// exists (`perpendicular_part` of the scalar solver).
#[inline(always)]
fn perp_of(v: &Vec3s, n: &Vec3s) -> (Vec3s, [bool; LANES]) {
    let d = dot(v, n);
    let p = sub(v, &scale(n, d));
    let l2 = dot(&p, &p);
    let ok = cmp(|i| l2[i] > DEGENERATE_LEN_SQ);
    let inv = lanes!(|i| 1.0 / if ok[i] { l2[i] } else { 1.0 }.sqrt());
    (scale(&p, inv), ok)
}

/// `rotation_between_or_identity` per lane for directions already divided by
/// their (shared, known) length: `ok` marks the lanes whose vectors were
/// long enough, the others get the identity. The solver knows every bone's
/// length, so no lane normalizes twice.
#[inline(always)]
fn rotation_between_unit(f: &Vec3s, t: &Vec3s, ok: [bool; LANES]) -> Quats {
    let c = cross(f, t);
    let cf = dot(&c, f);
    let c = sub(&c, &scale(f, cf));
    let h = add(f, t);
    let w = lanes!(|i| 0.5 * (h.x[i] * h.x[i] + h.y[i] * h.y[i] + h.z[i] * h.z[i]));
    let n2 = lanes!(|i| c.x[i] * c.x[i] + c.y[i] * c.y[i] + c.z[i] * c.z[i] + w[i] * w[i]);
    let anti = cmp(|i| n2[i] < ANTIPARALLEL_NORM_SQ);
    let inv = lanes!(|i| if anti[i] { 0.0 } else { 1.0 / n2[i].sqrt() });
    // Half turns are rare: their perpendicular axis (a division per lane)
    // is computed only when some lane needs it (a well-predicted branch).
    let p = if anti.iter().any(|&a| a) {
        any_perp(f)
    } else {
        Vec3s::default()
    };
    let pick = |half: F, general: F, ident: f32| {
        lanes!(|i| if !ok[i] {
            ident
        } else if anti[i] {
            half[i]
        } else {
            general[i]
        })
    };
    Quats {
        x: pick(p.x, lanes!(|i| c.x[i] * inv[i]), 0.0),
        y: pick(p.y, lanes!(|i| c.y[i] * inv[i]), 0.0),
        z: pick(p.z, lanes!(|i| c.z[i] * inv[i]), 0.0),
        w: pick(splat(0.0), lanes!(|i| w[i] * inv[i]), 1.0),
    }
}

/// Rotates vectors by quaternions per lane (glam's formula, for equal rounding).
#[inline(always)]
fn rotate(q: &Quats, v: &Vec3s) -> Vec3s {
    let b = Vec3s {
        x: q.x,
        y: q.y,
        z: q.z,
    };
    let b2 = dot(&b, &b);
    let vb = dot(v, &b);
    let bxv = cross(&b, v);
    let k0 = lanes!(|i| q.w[i] * q.w[i] - b2[i]);
    let k1 = lanes!(|i| vb[i] * 2.0);
    let k2 = lanes!(|i| q.w[i] * 2.0);
    Vec3s {
        x: lanes!(|i| v.x[i] * k0[i] + b.x[i] * k1[i] + bxv.x[i] * k2[i]),
        y: lanes!(|i| v.y[i] * k0[i] + b.y[i] * k1[i] + bxv.y[i] * k2[i]),
        z: lanes!(|i| v.z[i] * k0[i] + b.z[i] * k1[i] + bxv.z[i] * k2[i]),
    }
}

/// Solves [`LANES`] two-bone chains at once; lane `i` of `out` equals
/// [`super::two_bone::solve_model_space`] on lane `i` of `input` (within f32
/// rounding). Allocates nothing.
pub fn solve_batch(input: &TwoBoneBatch, out: &mut TwoBoneBatchOut) {
    let (a, b, c, t) = (&input.start, &input.mid, &input.end, &input.target);
    let ab = sub(b, a);
    let bc = sub(c, b);
    let l1 = lanes!(|i| (ab.x[i] * ab.x[i] + ab.y[i] * ab.y[i] + ab.z[i] * ab.z[i]).sqrt());
    let l2 = lanes!(|i| (bc.x[i] * bc.x[i] + bc.y[i] * bc.y[i] + bc.z[i] * bc.z[i]).sqrt());
    let to = sub(t, a);
    let dist = lanes!(|i| (to.x[i] * to.x[i] + to.y[i] * to.y[i] + to.z[i] * to.z[i]).sqrt());
    // The axis toward the target, with the scalar solver's fallbacks.
    let ac = sub(c, a);
    let ac_l2 = dot(&ac, &ac);
    let fallback_x = Vec3s {
        x: splat(1.0),
        ..Default::default()
    };
    let ab_dir = div(&ab, l1);
    let ab_or_x = sel3(cmp(|i| l1[i] > DEGENERATE_LEN), &ab_dir, &fallback_x);
    let ac_dir = scale(&ac, lanes!(|i| 1.0 / ac_l2[i].sqrt()));
    let fb = sel3(cmp(|i| ac_l2[i] > DEGENERATE_LEN_SQ), &ac_dir, &ab_or_x);
    let to_dir = div(&to, dist);
    let n = sel3(cmp(|i| dist[i] > DEGENERATE_LEN), &to_dir, &fb);
    // Softened distance.
    let reach = lanes!(|i| l1[i] + l2[i]);
    let eff = lanes!(|i| {
        let ratio = input.soften[i];
        let start = reach[i] * ratio;
        let span = reach[i] - start;
        let x = dist[i] - start;
        let soft = start + span * x / (x + span);
        if ratio >= 1.0 || dist[i] <= start || span <= DEGENERATE_LEN {
            dist[i]
        } else {
            soft
        }
    });
    // Too close.
    let too_close = cmp(|i| eff[i] < (l1[i] - l2[i]).abs());
    let sign = lanes!(|i| if l1[i] >= l2[i] { 1.0 } else { -1.0 });
    let close_knee = add(a, &scale(&n, lanes!(|i| sign[i] * l1[i])));
    let close_end = sub(&close_knee, &scale(&n, lanes!(|i| sign[i] * l2[i])));
    // Too far or degenerate.
    let straight =
        cmp(|i| eff[i] >= reach[i] || l1[i] <= DEGENERATE_LEN || eff[i] <= DEGENERATE_LEN);
    let far_knee = add(a, &scale(&n, l1));
    let far_end = add(
        a,
        &scale(&n, lanes!(|i| reach[i].min(eff[i].max(reach[i])))),
    );
    // Reachable: the circle.
    let cos_t = lanes!(|i| ((l1[i] * l1[i] + eff[i] * eff[i] - l2[i] * l2[i])
        / (2.0 * l1[i] * eff[i]))
        .clamp(-1.0, 1.0));
    let sin_t = lanes!(|i| (1.0 - cos_t[i] * cos_t[i]).max(0.0).sqrt());
    let centre = add(a, &scale(&n, lanes!(|i| l1[i] * cos_t[i])));
    let (hp, hok) = perp_of(&input.hint, &n);
    // The fallbacks (the current thigh, then any perpendicular) only where
    // some lane's hint lies along the axis: rare, and a well-predicted branch.
    let u = if hok.iter().all(|&ok| ok) {
        hp
    } else {
        let (cp, cok) = perp_of(&ab, &n);
        sel3(hok, &hp, &sel3(cok, &cp, &any_perp(&n)))
    };
    let reach_knee = add(&centre, &scale(&u, lanes!(|i| l1[i] * sin_t[i])));
    let reach_end = add(a, &scale(&n, eff));
    // Select the case per lane, in the scalar solver's order.
    let mid = sel3(
        too_close,
        &close_knee,
        &sel3(straight, &far_knee, &reach_knee),
    );
    let end = sel3(too_close, &close_end, &sel3(straight, &far_end, &reach_end));
    out.reachable = lanes!(|i| {
        if too_close[i] {
            0.0
        } else if straight[i] {
            if eff[i] == reach[i] { 1.0 } else { 0.0 }
        } else {
            1.0
        }
    });
    // Bone rotations: start first, then mid after the start's turn. The new
    // thigh's direction is known per case (±n, or n·cos θ + u·sin θ) and
    // both shins are l2 long, so only the old thigh is divided by its length.
    let reach_dir = add(&scale(&n, cos_t), &scale(&u, sin_t));
    let thigh_dir = sel3(too_close, &scale(&n, sign), &sel3(straight, &n, &reach_dir));
    let ab2 = dot(&ab, &ab);
    let thigh_ok = cmp(|i| ab2[i] >= DEGENERATE_LEN_SQ);
    let inv_l1 = lanes!(|i| 1.0 / l1[i]);
    let start_delta = rotation_between_unit(&scale(&ab, inv_l1), &thigh_dir, thigh_ok);
    let inv_l2 = lanes!(|i| 1.0 / l2[i]);
    let bc2 = dot(&bc, &bc);
    let shin_ok = cmp(|i| bc2[i] >= DEGENERATE_LEN_SQ);
    let shin_turned = scale(&rotate(&start_delta, &bc), inv_l2);
    let shin_new = scale(&sub(&end, &mid), inv_l2);
    out.mid_delta = rotation_between_unit(&shin_turned, &shin_new, shin_ok);
    out.start_delta = start_delta;
    out.mid = mid;
    out.end = end;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ik::two_bone::solve_model_space;
    use proptest::prelude::*;

    fn v3() -> impl Strategy<Value = Vec3> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }

    /// One lane's inputs: hip, knee, ankle, target, hint, soften. Some lanes
    /// are degenerate on purpose (zero bones, target at the hip, zero hint).
    fn lane() -> impl Strategy<Value = (Vec3, Vec3, Vec3, Vec3, Vec3, f32)> {
        (
            v3(),
            prop_oneof![3 => v3(), 1 => Just(Vec3::ZERO)],
            prop_oneof![3 => v3(), 1 => Just(Vec3::ZERO)],
            prop_oneof![4 => (v3(), 0.0f32..2.0).prop_map(|(v, s)| v * s), 1 => Just(Vec3::ZERO)],
            // A zero hint sends the lane to the fallbacks (current thigh, any perpendicular).
            prop_oneof![4 => v3(), 1 => Just(Vec3::ZERO)],
            prop_oneof![Just(1.0f32), 0.05f32..1.0],
        )
            .prop_map(|(a, kb, kc, t, h, s)| {
                (a, a + kb * 0.6, a + kb * 0.6 + kc * 0.6, a + t, h, s)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]
        #[test]
        fn batched_lanes_equal_the_scalar_solver(lanes in prop::array::uniform8(lane())) {
            let mut input = TwoBoneBatch::default();
            for (i, (a, b, c, t, h, s)) in lanes.iter().enumerate() {
                input.start.set(i, *a);
                input.mid.set(i, *b);
                input.end.set(i, *c);
                input.target.set(i, *t);
                input.hint.set(i, *h);
                input.soften[i] = *s;
            }
            let mut out = TwoBoneBatchOut::default();
            solve_batch(&input, &mut out);
            for (i, (a, b, c, t, h, s)) in lanes.iter().enumerate() {
                let want = solve_model_space(*a, *b, *c, *t, *h, *s);
                let got = out.lane(i);
                prop_assert!(got.points.mid.abs_diff_eq(want.points.mid, 1e-5), "lane {i} knee {} vs {}", got.points.mid, want.points.mid);
                prop_assert!(got.points.end.abs_diff_eq(want.points.end, 1e-5), "lane {i} end");
                prop_assert_eq!(got.points.reachable, want.points.reachable);
                prop_assert!(got.start_delta.dot(want.start_delta).abs() > 1.0 - 1e-5, "lane {i} start {} vs {}", got.start_delta, want.start_delta);
                prop_assert!(got.mid_delta.dot(want.mid_delta).abs() > 1.0 - 1e-5, "lane {i} mid {} vs {}", got.mid_delta, want.mid_delta);
                prop_assert!(got.points.mid.is_finite() && got.points.end.is_finite());
            }
        }
    }
}
