//! Batched full-featured two-bone IK: [`solve_core`] for many chains, eight
//! ([`LANES`]) at a time in structure-of-arrays form, so that a crowd solves
//! its knights' legs together.
//!
//! [`solve_core_batch`] gathers eight chains into `[f32; LANES]` arrays and
//! runs one branch of `solve_core`'s fast path once for all eight,
//! branch-free per lane: every case is computed and the right one is
//! selected, so the compiler turns each step into SIMD instructions. There
//! are two lane kernels, one per branch:
//!
//! - the hinge kernel ([`solve_lanes`]): the start's inverse by cofactors,
//!   the pole hint, the hinge's bend as sine-cosine pairs, the aim and twist
//!   of the start, and the end rotation by quaternion products with its
//!   branch-free rotation extraction and weighted power;
//! - the kernel without a hinge ([`solve_free`]): the same inverse, the
//!   knee hint (the current thigh, or a pole direction with its twist and
//!   weight blend), the three reach cases (too close, too far, reachable)
//!   with soften, the start's turn as a half-way quaternion, the mid's turn
//!   through its adjugate, and the same end rotation.
//!
//! Lane flags are full bit masks, so comparisons and selects stay packed.
//! On x86-64 each kernel is compiled three times, for the baseline (two SSE
//! registers per lane array), for AVX (one register) and for AVX-512 (one
//! register of 32, fewer spills), and the widest build the processor has
//! runs; all use the same IEEE operations with no fused multiply-add, so
//! they give the same bits (a test checks this for both kernels).
//!
//! The vectorized cases: weight not zero, valid options and finite
//! matrices, any soften, an end rotation or none, and either a hinge limit
//! with a pole given as a direction (any twist; the crowd's case), or no
//! hinge with the minimal knee, the pose-preserving knee or a pole
//! direction (any twist). Alongside the arithmetic each lane computes a
//! fallback mask: it is set wherever the scalar fast path would hand the
//! solve to its general path (a singular start, degenerate lengths, a pole
//! within [`POLE_FALLBACK_SINE`] of the hip→target axis, a hinge bend
//! change near a half turn, an aim or a start's turn near a half turn, a
//! knee hint along the hip→target axis, and, for the end rotation, start or
//! mid matrices that are not a rotation times one positive scale).
//! **Fallback rule:** every lane whose mask is set (options that fail
//! [`TwoBoneOptions::validate`] and non-finite matrices included) is solved
//! by calling scalar [`solve_core`] for that lane alone, and its result
//! replaces the lane's.
//!
//! **Routing:** which kernel takes a chain, if any, is a few tag tests
//! ([`lane_kernel`]), made per chain before anything is gathered. Chains
//! are queued per kernel and go to the lanes eight at a time, whatever lies
//! between them in the slice; every other chain (a pole point, a hinge
//! without a pole direction, weight 0) goes straight to scalar
//! [`solve_core`] and costs what the scalar loop costs.
//!
//! **Results:** chains the lanes do not keep get exactly the scalar result,
//! `Err` included. The kernel without a hinge follows the scalar path's
//! operations in its order, its quaternion products and norms summed as
//! glam's SSE2 ones are, so on x86-64 its lanes give the scalar bits (a
//! test checks 20,000 random legs). The hinge kernel sums some products in
//! another order and normalizes without the scalar path's four-wide
//! packing; its lanes get the scalar result up to f32 rounding (the
//! property test holds them to 1e-5), and it is kept so, since the crowd's
//! results come from it.

use glam::{Affine3A, Quat, Vec3};

use super::IkError;
use super::batched::LANES;
use super::math::{
    ANTIPARALLEL_NORM_SQ, DEGENERATE_LEN_SQ, atan_series_of, sin_cos_inline, sin_cos_series_of,
    sin_cos_twice_of,
};
use super::two_bone::{
    CONFORMAL_TOLERANCE, DEGENERATE_LEN, FAST_AIM_MIN_W, FAST_HALF_TURN_NORM_SQ, FAST_MIN_LEN_SQ,
    HINGE_BEND_BIAS, KneeStrategy, POLE_FALLBACK_SINE, Pole, REACHED_RELATIVE_TOLERANCE,
    SINGULAR_DET, TRACE_FORM_MIN, TwoBoneCorrection, TwoBoneOptions, solve_core,
};

/// The inputs of one chain for [`solve_core_batch`]: the model matrices of
/// the start, mid and end joints and the solve's options, exactly the
/// arguments of [`solve_core`].
#[derive(Clone, Copy, Debug)]
pub struct TwoBoneCoreInput {
    /// Model matrix of the start joint (hip).
    pub start: Affine3A,
    /// Model matrix of the mid joint (knee).
    pub mid: Affine3A,
    /// Model matrix of the end joint (ankle).
    pub end: Affine3A,
    /// The solve's options.
    pub opts: TwoBoneOptions,
}

/// Solves every chain like `solve_core(&c.start, &c.mid, &c.end, &c.opts)`,
/// eight at a time in structure-of-arrays lanes; `out[i]` gets chain i's
/// result.
///
/// `out` should be as long as `chains`. When the lengths differ, only the
/// first `min(chains.len(), out.len())` chains are solved and the rest of
/// `out` is left as it was; the function never panics. Any length and any
/// mix of options work: chains in the vectorized case fill the lanes eight
/// at a time (the last set padded), chains outside it go straight to scalar
/// [`solve_core`], and lanes flagged by the fallback mask are solved by it
/// too (see the module documentation). Allocates nothing.
pub fn solve_core_batch(
    chains: &[TwoBoneCoreInput],
    out: &mut [Result<TwoBoneCorrection, IkError>],
) {
    let len = chains.len().min(out.len());
    solve_routed(&chains[..len], &mut out[..len], |_, _| {});
}

/// The routing of [`solve_core_batch`] over equally long `chains` and
/// `out`: each chain in a vectorized case is queued for its lane kernel,
/// which runs once [`LANES`] are queued (and once more for the rest at the
/// end); every other chain is solved by scalar [`solve_core`] on the spot,
/// without being gathered into lanes. `report(i, kept)` is told, for each
/// chain `i` the lanes took, whether their result stood (`false` where the
/// fallback mask sent it to the scalar core); the tests listen, the public
/// function passes a closure that does nothing.
#[inline(always)]
fn solve_routed(
    chains: &[TwoBoneCoreInput],
    out: &mut [Result<TwoBoneCorrection, IkError>],
    mut report: impl FnMut(usize, bool),
) {
    debug_assert_eq!(chains.len(), out.len());
    let pad = padding();
    let mut lanes = Gathered::zeroed();
    // One queue per lane kernel: chain indices and how many are queued.
    let mut queues = [
        (Kernel::Hinge, [0usize; LANES], 0),
        (Kernel::Free, [0; LANES], 0),
    ];
    for (i, c) in chains.iter().enumerate() {
        let Some(kernel) = lane_kernel(c) else {
            if let Some(o) = out.get_mut(i) {
                *o = solve_core(&c.start, &c.mid, &c.end, &c.opts);
            }
            continue;
        };
        let (_, queued, n) = &mut queues[kernel as usize];
        queued[*n] = i;
        *n += 1;
        if *n == LANES {
            *n = 0;
            solve_queued(
                chains,
                out,
                (kernel, &queued[..]),
                &pad,
                &mut lanes,
                &mut report,
            );
        }
    }
    for (kernel, queued, n) in &queues {
        if *n > 0 {
            let queued = &queued[..*n];
            solve_queued(
                chains,
                out,
                (*kernel, queued),
                &pad,
                &mut lanes,
                &mut report,
            );
        }
    }
}

/// The sentinel lane that fills the unused lanes of the last, partial set
/// of lanes: a straight, well-conditioned leg whose arithmetic stays
/// finite. Its result is never used.
fn padding() -> TwoBoneCoreInput {
    TwoBoneCoreInput {
        start: Affine3A::IDENTITY,
        mid: Affine3A::from_translation(Vec3::new(0.0, -0.5, 0.0)),
        end: Affine3A::from_translation(Vec3::new(0.0, -1.0, 0.1)),
        opts: TwoBoneOptions {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(Vec3::Z),
                twist: 0.0,
            },
            hinge: Some(super::limits::HingeLimit::new(Vec3::X, -2.6, 0.0)),
            ..TwoBoneOptions::new(Vec3::new(0.0, -0.8, 0.2))
        },
    }
}

/// Which lane kernel takes a chain; the value indexes the routing's queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// The hinge branch ([`solve_lanes`]): a hinge and a pole direction.
    Hinge = 0,
    /// The branch without a hinge ([`solve_free`]): a pole direction, the
    /// minimal knee or the pose-preserving one.
    Free = 1,
}

/// Which lane kernel takes a chain, from its shape (see the module docs),
/// or `None` for the scalar core: the weight must not be zero and the pole,
/// if any, must be a direction; with a hinge the knee must follow a pole
/// direction (the hinge kernel has no minimal or pose-preserving knee). A few
/// tests of tags; whether the numbers are valid (the options as
/// [`TwoBoneOptions::validate`] checks them, finite matrices) the lanes
/// check eight at a time ([`lanes_valid`]).
#[inline(always)]
fn lane_kernel(c: &TwoBoneCoreInput) -> Option<Kernel> {
    let pole_direction = matches!(
        c.opts.knee,
        KneeStrategy::Pole {
            pole: Pole::Direction(_),
            ..
        }
    );
    if c.opts.weight == 0.0 {
        None
    } else if c.opts.hinge.is_some() {
        pole_direction.then_some(Kernel::Hinge)
    } else if pole_direction || !matches!(c.opts.knee, KneeStrategy::Pole { .. }) {
        Some(Kernel::Free)
    } else {
        None
    }
}

/// Whether some lane kernel takes the chain.
#[cfg(test)]
fn vectorizable(c: &TwoBoneCoreInput) -> bool {
    lane_kernel(c).is_some()
}

/// Per lane, whether the options pass [`TwoBoneOptions::validate`] (given
/// the vectorized shape) and every matrix entry is finite, as packed
/// comparisons (a few instructions per lane instead of a chain of branches
/// per chain). The two squared lengths [`TwoBoneOptions::is_valid`] checks
/// against [`DEGENERATE_LEN_SQ`] are summed here in another order than
/// glam's, so the lanes accept them only from twice that bound: a length
/// between the two goes to the scalar path, which decides it exactly.
/// Every other test is an exact comparison, so a lane marked valid always
/// holds options that validate.
#[inline(always)]
fn lanes_valid(g: &Gathered, hinge: bool) -> M8 {
    let pi = std::f32::consts::PI;
    let (w, s, ew) = (g.weight, g.soften, g.end_weight);
    // Matrices: x · 0 is zero for a finite x and NaN otherwise, and one NaN
    // makes the sum NaN.
    let sum = (nan_sum(&g.s) + nan_sum(&g.m)) + nan_sum(&g.e);
    let q = g.goal;
    let goal_ok = q.x.finite()
        & q.y.finite()
        & q.z.finite()
        & q.w.finite()
        & q.length_squared().ge(2.0 * DEGENERATE_LEN_SQ)
        & ew.ge(0.0)
        & ew.le(1.0);
    let valid = sum.eq(0.0)
        & finite_v8(g.target)
        & w.ge(0.0)
        & w.le(1.0)
        & s.gt(0.0)
        & s.le(1.0)
        & finite_v8(g.pole)
        & g.twist.finite()
        & (!g.has_goal | goal_ok);
    if !hinge {
        return valid;
    }
    valid
        & finite_v8(g.axis)
        & g.axis.length_squared().ge(2.0 * DEGENERATE_LEN_SQ)
        & g.h_min.ge(-pi)
        & g.h_max.le(pi)
        & g.h_min.le(g.h_max)
}

/// Per lane, whether the three components are finite.
#[inline(always)]
fn finite_v8(v: V8) -> M8 {
    v.x.finite() & v.y.finite() & v.z.finite()
}

/// Per lane, zero where the matrix's entries are finite and NaN otherwise
/// (`x · 0` summed as a tree, a short dependency chain).
#[inline(always)]
fn nan_sum(m: &[V8; 4]) -> F8 {
    let col = |v: &V8| ((v.x * 0.0) + (v.y * 0.0)) + (v.z * 0.0);
    (col(&m[0]) + col(&m[1])) + (col(&m[2]) + col(&m[3]))
}

// ---------------------------------------------------------------------------
// Lane types: one f32, mask, vector or quaternion per lane. Each operation is
// one loop over the lanes, which the compiler vectorizes.

/// One f32 per lane.
#[derive(Clone, Copy, Debug)]
struct F8([f32; LANES]);

/// One flag per lane, as a full bit mask (all ones or zero) so that
/// comparisons and selects compile to packed compares and bitwise blends.
#[derive(Clone, Copy, Debug)]
struct M8([u32; LANES]);

/// One vector per lane.
#[derive(Clone, Copy, Debug)]
struct V8 {
    x: F8,
    y: F8,
    z: F8,
}

/// One quaternion per lane.
#[derive(Clone, Copy, Debug)]
struct Q8 {
    x: F8,
    y: F8,
    z: F8,
    w: F8,
}

/// One f32 computed per lane by `f`.
#[inline(always)]
fn map(f: impl Fn(usize) -> f32) -> F8 {
    let mut o = [0.0f32; LANES];
    for (i, v) in o.iter_mut().enumerate() {
        *v = f(i);
    }
    F8(o)
}

/// One flag computed per lane by `f`.
#[inline(always)]
fn mask(f: impl Fn(usize) -> bool) -> M8 {
    let mut o = [0u32; LANES];
    for (i, v) in o.iter_mut().enumerate() {
        *v = 0u32.wrapping_sub(u32::from(f(i)));
    }
    M8(o)
}

macro_rules! f8_binop {
    ($trait:ident, $method:ident, $op:tt) => {
        impl std::ops::$trait for F8 {
            type Output = F8;
            #[inline(always)]
            fn $method(self, r: F8) -> F8 {
                map(|i| self.0[i] $op r.0[i])
            }
        }
        impl std::ops::$trait<f32> for F8 {
            type Output = F8;
            #[inline(always)]
            fn $method(self, r: f32) -> F8 {
                map(|i| self.0[i] $op r)
            }
        }
        impl std::ops::$trait<F8> for f32 {
            type Output = F8;
            #[inline(always)]
            fn $method(self, r: F8) -> F8 {
                map(|i| self $op r.0[i])
            }
        }
    };
}
f8_binop!(Add, add, +);
f8_binop!(Sub, sub, -);
f8_binop!(Mul, mul, *);
f8_binop!(Div, div, /);

impl std::ops::Neg for F8 {
    type Output = F8;
    #[inline(always)]
    fn neg(self) -> F8 {
        map(|i| -self.0[i])
    }
}

macro_rules! m8_binop {
    ($trait:ident, $method:ident, $op:tt) => {
        impl std::ops::$trait for M8 {
            type Output = M8;
            #[inline(always)]
            fn $method(self, r: M8) -> M8 {
                let mut o = [0u32; LANES];
                for (i, v) in o.iter_mut().enumerate() {
                    *v = self.0[i] $op r.0[i];
                }
                M8(o)
            }
        }
    };
}
m8_binop!(BitAnd, bitand, &);
m8_binop!(BitOr, bitor, |);

impl std::ops::Not for M8 {
    type Output = M8;
    #[inline(always)]
    fn not(self) -> M8 {
        M8(self.0.map(|m| !m))
    }
}

impl M8 {
    /// Lane-wise `self != r`.
    #[inline(always)]
    fn ne(self, r: M8) -> M8 {
        let mut o = [0u32; LANES];
        for (i, v) in o.iter_mut().enumerate() {
            *v = self.0[i] ^ r.0[i];
        }
        M8(o)
    }

    /// Whether lane `i` is set.
    #[inline(always)]
    fn lane(self, i: usize) -> bool {
        self.0[i] != 0
    }
}

impl F8 {
    #[inline(always)]
    fn splat(v: f32) -> F8 {
        F8([v; LANES])
    }
    #[inline(always)]
    fn sqrt(self) -> F8 {
        map(|i| self.0[i].sqrt())
    }
    #[inline(always)]
    fn abs(self) -> F8 {
        map(|i| self.0[i].abs())
    }
    #[inline(always)]
    fn max(self, r: f32) -> F8 {
        map(|i| self.0[i].max(r))
    }
    #[inline(always)]
    fn clamp(self, lo: f32, hi: f32) -> F8 {
        map(|i| self.0[i].clamp(lo, hi))
    }
    #[inline(always)]
    fn lt(self, r: impl Into<F8>) -> M8 {
        let r = r.into();
        mask(|i| self.0[i] < r.0[i])
    }
    #[inline(always)]
    fn le(self, r: impl Into<F8>) -> M8 {
        let r = r.into();
        mask(|i| self.0[i] <= r.0[i])
    }
    #[inline(always)]
    fn gt(self, r: impl Into<F8>) -> M8 {
        let r = r.into();
        mask(|i| self.0[i] > r.0[i])
    }
    #[inline(always)]
    fn ge(self, r: impl Into<F8>) -> M8 {
        let r = r.into();
        mask(|i| self.0[i] >= r.0[i])
    }
    #[inline(always)]
    fn eq(self, r: impl Into<F8>) -> M8 {
        let r = r.into();
        mask(|i| self.0[i] == r.0[i])
    }
    /// Lane-wise `f32::is_finite`.
    #[inline(always)]
    fn finite(self) -> M8 {
        mask(|i| self.0[i].is_finite())
    }
}

impl From<f32> for F8 {
    #[inline(always)]
    fn from(v: f32) -> F8 {
        F8::splat(v)
    }
}

/// `if c { a } else { b }` per lane.
#[inline(always)]
fn sel(c: M8, a: impl Into<F8>, b: impl Into<F8>) -> F8 {
    let (a, b) = (a.into(), b.into());
    map(|i| f32::from_bits((a.0[i].to_bits() & c.0[i]) | (b.0[i].to_bits() & !c.0[i])))
}

/// `if c { a } else { b }` per lane, for vectors.
#[inline(always)]
fn sel_v(c: M8, a: V8, b: V8) -> V8 {
    V8 {
        x: sel(c, a.x, b.x),
        y: sel(c, a.y, b.y),
        z: sel(c, a.z, b.z),
    }
}

/// `if c { a } else { b }` per lane, for quaternions.
#[inline(always)]
fn sel_q(c: M8, a: Q8, b: Q8) -> Q8 {
    Q8 {
        x: sel(c, a.x, b.x),
        y: sel(c, a.y, b.y),
        z: sel(c, a.z, b.z),
        w: sel(c, a.w, b.w),
    }
}

impl std::ops::Add for V8 {
    type Output = V8;
    #[inline(always)]
    fn add(self, r: V8) -> V8 {
        V8 {
            x: self.x + r.x,
            y: self.y + r.y,
            z: self.z + r.z,
        }
    }
}

impl std::ops::Sub for V8 {
    type Output = V8;
    #[inline(always)]
    fn sub(self, r: V8) -> V8 {
        V8 {
            x: self.x - r.x,
            y: self.y - r.y,
            z: self.z - r.z,
        }
    }
}

impl std::ops::Mul<F8> for V8 {
    type Output = V8;
    #[inline(always)]
    fn mul(self, s: F8) -> V8 {
        V8 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
}

impl V8 {
    #[inline(always)]
    fn dot(self, r: V8) -> F8 {
        self.x * r.x + self.y * r.y + self.z * r.z
    }
    #[inline(always)]
    fn cross(self, r: V8) -> V8 {
        V8 {
            x: self.y * r.z - self.z * r.y,
            y: self.z * r.x - self.x * r.z,
            z: self.x * r.y - self.y * r.x,
        }
    }
    #[inline(always)]
    fn length_squared(self) -> F8 {
        self.dot(self)
    }
}

/// `x·v.x + y·v.y + z·v.z`: a matrix given by its columns times `v`.
#[inline(always)]
fn mul_cols(x: V8, y: V8, z: V8, v: V8) -> V8 {
    x * v.x + y * v.y + z * v.z
}

/// The start's inverse as its cofactor rows and 1 / determinant (a type
/// rather than a closure, so that it is inlined into the AVX build too).
#[derive(Clone, Copy)]
struct InverseRows(V8, V8, V8, F8);

impl InverseRows {
    /// The inverse times `v` (the rows' products, then the reciprocal).
    #[inline(always)]
    fn apply(self, v: V8) -> V8 {
        mul_rows(self.0, self.1, self.2, v) * self.3
    }
}

/// `(r0·v, r1·v, r2·v)`: a matrix given by its rows times `v`.
#[inline(always)]
fn mul_rows(r0: V8, r1: V8, r2: V8, v: V8) -> V8 {
    V8 {
        x: r0.dot(v),
        y: r1.dot(v),
        z: r2.dot(v),
    }
}

impl Q8 {
    /// The quaternion with vector part `v` and scalar part `w`.
    #[inline(always)]
    fn of(v: V8, w: F8) -> Q8 {
        Q8 {
            x: v.x,
            y: v.y,
            z: v.z,
            w,
        }
    }
    #[inline(always)]
    fn vector(self) -> V8 {
        V8 {
            x: self.x,
            y: self.y,
            z: self.z,
        }
    }
    #[inline(always)]
    fn conjugate(self) -> Q8 {
        Q8 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
            w: self.w,
        }
    }
    #[inline(always)]
    fn scale(self, s: F8) -> Q8 {
        Q8 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
            w: self.w * s,
        }
    }
    #[inline(always)]
    fn length_squared(self) -> F8 {
        self.x * self.x + self.y * self.y + self.z * self.z + self.w * self.w
    }
    /// The Hamilton product `self · r` (glam's `Quat * Quat`).
    #[inline(always)]
    fn mul(self, r: Q8) -> Q8 {
        let (a, b) = (self, r);
        Q8 {
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        }
    }
    #[inline(always)]
    fn finite(self) -> M8 {
        self.x.finite() & self.y.finite() & self.z.finite() & self.w.finite()
    }
    /// [`Q8::mul`] with its sums grouped as glam's SSE2 `Quat * Quat`
    /// groups them, `(w·r + x-terms) + (y-terms + z-terms)`, so that the
    /// lanes without a hinge round exactly as the scalar path does on
    /// x86-64.
    #[inline(always)]
    fn mul_as_glam(self, r: Q8) -> Q8 {
        let l = self;
        Q8 {
            x: (l.x * r.w + l.w * r.x) + (l.y * r.z - l.z * r.y),
            y: (l.w * r.y - l.x * r.z) + (l.z * r.x + l.y * r.w),
            z: (l.x * r.y + l.w * r.z) + (l.z * r.w - l.y * r.x),
            w: (l.w * r.w - l.x * r.x) - (l.z * r.z + l.y * r.y),
        }
    }
    /// [`Q8::length_squared`] grouped as glam's SSE2 four-wide dot product,
    /// `(x² + z²) + (y² + w²)`, for the same reason as [`Q8::mul_as_glam`].
    #[inline(always)]
    fn length_squared_as_glam(self) -> F8 {
        (self.x * self.x + self.z * self.z) + (self.y * self.y + self.w * self.w)
    }
}

/// Whether the linear map with columns `x`, `y`, `z` is a rotation times one
/// scale (the scalar `conformal_scale_sq`), and the squared length of `x`.
#[inline(always)]
fn conformal_scale_sq(x: V8, y: V8, z: V8) -> (M8, F8) {
    let (dx, dy, dz) = (x.dot(x), y.dot(y), z.dot(z));
    let (oxy, oyz, ozx) = (x.dot(y), y.dot(z), z.dot(x));
    let tol = dx * CONFORMAL_TOLERANCE;
    // `|dx - dx| <= tol` of the scalar check holds exactly where dx is finite.
    let ok = dx.finite()
        & (dy - dx).abs().le(tol)
        & (dz - dx).abs().le(tol)
        & oxy.abs().le(tol)
        & oyz.abs().le(tol)
        & ozx.abs().le(tol);
    (ok, dx)
}

/// The end joint's rotation (the scalar `rotation_of_fast`) per lane, up to
/// a positive factor: the columns normalized, then the trace form or glam's
/// case split, chosen by selects; the identity where it is not finite.
#[inline(always)]
fn rotation_of_fast(x: V8, y: V8, z: V8) -> Q8 {
    let det = x.dot(y.cross(z));
    let (lx, ly, lz) = (x.dot(x).sqrt(), y.dot(y).sqrt(), z.dot(z).sqrt());
    let sign = sel(det.lt(0.0), -1.0, 1.0);
    let (ix, iy, iz) = (1.0 / (lx * sign), 1.0 / ly, 1.0 / lz);
    let (nx, ny, nz) = (x * ix, y * iy, z * iz);
    let (m00, m11, m22) = (nx.x, ny.y, nz.z);
    let tr = m00 + m11 + m22;
    let k = V8 {
        x: ny.z - nz.y,
        y: nz.x - nx.z,
        z: nx.y - ny.x,
    };
    let c = 1.0 - tr;
    let qw = Q8::of(k, 1.0 + tr);
    let qx = Q8 {
        x: (nx.x + nx.x) + c,
        y: nx.y + ny.x,
        z: nx.z + nz.x,
        w: k.x,
    };
    let qy = Q8 {
        x: ny.x + nx.y,
        y: (ny.y + ny.y) + c,
        z: ny.z + nz.y,
        w: k.y,
    };
    let qz = Q8 {
        x: nz.x + nx.z,
        y: nz.y + ny.z,
        z: (nz.z + nz.z) + c,
        w: k.z,
    };
    let split = sel_q(
        m22.le(0.0),
        sel_q((m11 - m00).le(0.0), qx, qy),
        sel_q((m11 + m00).le(0.0), qz, qw),
    );
    let q = sel_q(tr.gt(TRACE_FORM_MIN), qw, split);
    let identity = Q8::of(
        V8 {
            x: F8::splat(0.0),
            y: F8::splat(0.0),
            z: F8::splat(0.0),
        },
        F8::splat(1.0),
    );
    sel_q(q.finite(), q, identity)
}

/// `r` raised to the power `k` in [0, 1) per lane (the scalar `turn_power`):
/// `r` with w ≥ 0, given up to a positive factor; the identity where its
/// vector part vanishes.
#[inline(always)]
fn turn_power(r: Q8, k: F8) -> Q8 {
    let v = r.vector();
    let sv = v.length_squared().sqrt();
    let rw = r.w;
    let lo = map(|i| sv.0[i].min(rw.0[i]));
    let hi = map(|i| sv.0[i].max(rw.0[i]));
    let a = lo / hi;
    let a_folded = (lo - hi) / (lo + hi);
    let inv_sv = 1.0 / sv;
    let big = a.gt(0.414_213_57);
    let z = sel(big, a_folded, a);
    let base = sel(big, std::f32::consts::FRAC_PI_4, 0.0);
    let atan = base + atan_series_of(z);
    let phi = sel(sv.gt(rw), std::f32::consts::FRAC_PI_2 - atan, atan);
    let (sn, cs) = sin_cos_twice_of(phi * k * 0.5);
    let turned = Q8::of(v * (sn * inv_sv), cs);
    let zero = sv.le(0.0);
    Q8 {
        x: sel(zero, 0.0, turned.x),
        y: sel(zero, 0.0, turned.y),
        z: sel(zero, 0.0, turned.z),
        w: sel(zero, 1.0, turned.w),
    }
}

/// Eight chains' inputs in lanes.
struct Gathered {
    s: [V8; 4],
    m: [V8; 4],
    e: [V8; 4],
    target: V8,
    pole: V8,
    /// Set where the knee follows a pole direction; elsewhere the pole and
    /// twist are zero and the knee hint is the current thigh direction.
    is_pole: M8,
    twist: F8,
    twist_sin: F8,
    twist_cos: F8,
    weight: F8,
    soften: F8,
    axis: V8,
    unit_axis: V8,
    h_min: F8,
    h_max: F8,
    sin_min: F8,
    cos_min: F8,
    sin_max: F8,
    cos_max: F8,
    goal: Q8,
    has_goal: M8,
    end_weight: F8,
}

/// One chain's corrections as the lanes computed them.
struct Solved {
    start: Q8,
    mid: Q8,
    end: Q8,
    end_position: V8,
    reached: M8,
    fallback: M8,
}

/// Splits a vector into lane `i` of `v`.
#[inline(always)]
fn put(v: &mut V8, i: usize, p: Vec3) {
    v.x.0[i] = p.x;
    v.y.0[i] = p.y;
    v.z.0[i] = p.z;
}

impl Gathered {
    /// All lanes zero: the buffer [`gather`] overwrites batch after batch.
    fn zeroed() -> Self {
        let zero_v = V8 {
            x: F8::splat(0.0),
            y: F8::splat(0.0),
            z: F8::splat(0.0),
        };
        let zero_f = F8::splat(0.0);
        Gathered {
            s: [zero_v; 4],
            m: [zero_v; 4],
            e: [zero_v; 4],
            target: zero_v,
            pole: zero_v,
            is_pole: M8([0; LANES]),
            twist: zero_f,
            twist_sin: zero_f,
            twist_cos: zero_f,
            weight: zero_f,
            soften: zero_f,
            axis: zero_v,
            unit_axis: zero_v,
            h_min: zero_f,
            h_max: zero_f,
            sin_min: zero_f,
            cos_min: zero_f,
            sin_max: zero_f,
            cos_max: zero_f,
            goal: Q8::of(zero_v, zero_f),
            has_goal: M8([0; LANES]),
            end_weight: zero_f,
        }
    }
}

/// The columns of one joint's matrix (`which` picks start, mid or end).
#[inline(always)]
fn columns(c: &TwoBoneCoreInput, which: usize) -> [glam::Vec3A; 4] {
    let a = [&c.start, &c.mid, &c.end][which];
    [
        a.matrix3.x_axis,
        a.matrix3.y_axis,
        a.matrix3.z_axis,
        a.translation,
    ]
}

/// The pole twist's sine and cosine per lane, bit for bit as
/// [`super::math::sin_cos_inline`] gives them: the series within [-π/4,
/// π/4], the series of a quarter angle doubled twice within [-π, π], and
/// beyond that the values [`gather`] computed for those lanes alone. Eight
/// lanes cost about what one scalar evaluation did in the gathering.
#[inline(always)]
fn twist_sin_cos(g: &Gathered) -> (F8, F8) {
    let t = g.twist;
    let a = t.abs();
    let (s1, c1) = sin_cos_series_of(t);
    let (s4, c4) = sin_cos_series_of(t * 0.25);
    let (s4, c4) = (2.0 * s4 * c4, (c4 - s4) * (c4 + s4));
    let (s4, c4) = (2.0 * s4 * c4, (c4 - s4) * (c4 + s4));
    let small = a.le(std::f32::consts::FRAC_PI_4);
    let within = a.le(std::f32::consts::PI);
    (
        sel(small, s1, sel(within, s4, g.twist_sin)),
        sel(small, c1, sel(within, c4, g.twist_cos)),
    )
}

// The matrices are gathered four lanes at a time.
const _: () = assert!(LANES.is_multiple_of(4));

/// The start, mid and end matrices of the picked chains into lanes, four
/// lanes at a time: each column's x, y and z across four chains written as
/// one four-float array each, which the compiler turns into register
/// shuffles and 16-byte stores instead of twelve single-float stores.
#[inline(always)]
fn gather_matrices(picked: &[&TwoBoneCoreInput; LANES], g: &mut Gathered) {
    for (which, lanes) in [&mut g.s, &mut g.m, &mut g.e].into_iter().enumerate() {
        for (quad, four) in picked.chunks_exact(4).enumerate() {
            let cols = [
                columns(four[0], which),
                columns(four[1], which),
                columns(four[2], which),
                columns(four[3], which),
            ];
            let at = 4 * quad;
            for (k, lane) in lanes.iter_mut().enumerate() {
                let [a, b, c, d] = [cols[0][k], cols[1][k], cols[2][k], cols[3][k]];
                lane.x.0[at..at + 4].copy_from_slice(&[a.x, b.x, c.x, d.x]);
                lane.y.0[at..at + 4].copy_from_slice(&[a.y, b.y, c.y, d.y]);
                lane.z.0[at..at + 4].copy_from_slice(&[a.z, b.z, c.z, d.z]);
            }
        }
    }
}

/// Gathers [`LANES`] chains into the lanes of `g`, overwriting every lane.
/// Writing into the caller's buffer spares a 4 KB copy per batch.
fn gather(picked: &[&TwoBoneCoreInput; LANES], g: &mut Gathered) {
    gather_matrices(picked, g);
    for (i, c) in picked.iter().enumerate() {
        let o = &c.opts;
        put(&mut g.target, i, o.target);
        let (d, twist, is_pole) = match o.knee {
            KneeStrategy::Pole {
                pole: Pole::Direction(d),
                twist,
            } => (d, twist, !0),
            _ => (Vec3::ZERO, 0.0, 0),
        };
        put(&mut g.pole, i, d);
        g.twist.0[i] = twist;
        g.is_pole.0[i] = is_pole;
        // The lanes compute the twist's sine and cosine within [-π, π]
        // ([`twist_sin_cos`]); beyond (and for NaN), here, as the scalar
        // fast path takes them. Lanes that do not need them keep stale
        // values, which the lanes never select.
        if !twist.is_finite() || twist.abs() > std::f32::consts::PI {
            let (ts, tc) = sin_cos_inline(twist);
            g.twist_sin.0[i] = ts;
            g.twist_cos.0[i] = tc;
        }
        g.weight.0[i] = o.weight;
        g.soften.0[i] = o.soften;
        if let Some(h) = &o.hinge {
            put(&mut g.axis, i, h.axis());
            put(&mut g.unit_axis, i, h.unit_axis());
            g.h_min.0[i] = h.min();
            g.h_max.0[i] = h.max();
            let ((smin, cmin), (smax, cmax)) = h.limits_sin_cos();
            g.sin_min.0[i] = smin;
            g.cos_min.0[i] = cmin;
            g.sin_max.0[i] = smax;
            g.cos_max.0[i] = cmax;
        }
        // The goal as given (the lanes check it and whether its weight
        // times the solve's is positive); none is the identity, weight 0.
        let (q, ew, has) = match o.end_rotation {
            Some((q, ew)) => (q, ew, !0),
            None => (Quat::IDENTITY, 0.0, 0),
        };
        g.goal.x.0[i] = q.x;
        g.goal.y.0[i] = q.y;
        g.goal.z.0[i] = q.z;
        g.goal.w.0[i] = q.w;
        g.has_goal.0[i] = has;
        g.end_weight.0[i] = ew;
    }
}

/// Solves the chains `queued` (indices into `chains`, at most [`LANES`],
/// all in the vectorized case) in one set of lanes, `pad` standing in for
/// the unused lanes, and writes each result to its index in `out`; lanes
/// flagged by the fallback mask get scalar [`solve_core`]'s result instead.
/// Tells `report` which lanes kept their result.
#[inline(always)]
fn solve_queued(
    chains: &[TwoBoneCoreInput],
    out: &mut [Result<TwoBoneCorrection, IkError>],
    (kernel, queued): (Kernel, &[usize]),
    pad: &TwoBoneCoreInput,
    g: &mut Gathered,
    report: &mut impl FnMut(usize, bool),
) {
    let picked: [&TwoBoneCoreInput; LANES] =
        std::array::from_fn(|k| queued.get(k).and_then(|&i| chains.get(i)).unwrap_or(pad));
    gather(&picked, g);
    let r = match kernel {
        Kernel::Hinge => solve_lanes(g),
        Kernel::Free => solve_free(g),
    };
    for (k, &i) in queued.iter().enumerate() {
        let (Some(c), Some(o)) = (chains.get(i), out.get_mut(i)) else {
            continue;
        };
        let kept = !r.fallback.lane(k);
        report(i, kept);
        if !kept {
            *o = solve_core(&c.start, &c.mid, &c.end, &c.opts);
            continue;
        }
        let start = Quat::from_xyzw(
            r.start.x.0[k],
            r.start.y.0[k],
            r.start.z.0[k],
            r.start.w.0[k],
        );
        let mid = Quat::from_xyzw(r.mid.x.0[k], r.mid.y.0[k], r.mid.z.0[k], r.mid.w.0[k]);
        let end = Quat::from_xyzw(r.end.x.0[k], r.end.y.0[k], r.end.z.0[k], r.end.w.0[k]);
        let end_position = Vec3::new(
            r.end_position.x.0[k],
            r.end_position.y.0[k],
            r.end_position.z.0[k],
        );
        let reached = r.reached.lane(k);
        // Field by field into an `Ok` (placed first where the slot holds an
        // `Err`): building the whole value first made the compiler store the
        // position and flag piecewise and load them back as one 16-byte
        // word, a store-forwarding stall that was a fifth of the batch's
        // time outside the lanes.
        if o.is_err() {
            *o = Ok(TwoBoneCorrection::identity(glam::Vec3A::ZERO, false));
        }
        if let Ok(fix) = o {
            fix.start = start;
            fix.mid = mid;
            fix.end = end;
            fix.end_position = end_position;
            fix.reached = reached;
        }
    }
}

/// Builds a lane kernel (`$inline`, an `#[inline(always)]` function) three
/// times, for AVX-512 (F and VL), for AVX and for the x86-64 baseline, and
/// a dispatcher `$solve` that calls the widest build the processor has. All
/// builds use the same IEEE operations (no fused multiply-add, which Rust
/// never introduces on its own), so they give the same bits (tested).
///
/// Why three builds (measured on the hinge kernel): AVX puts each lane
/// array in one 256-bit register instead of two SSE ones, about 40 %
/// faster; AVX-512 keeps eight lanes in 256-bit registers but has 32 of
/// them instead of 16, so about half as many values spill to the stack
/// (385 -> 199 stack moves, the kernel 1,659 -> 1,393 instructions, the
/// batch 57 -> 53 ns per solve). Letting the compiler use 512-bit registers
/// for sixteen lanes was slower (83 ns), as was compiling the whole batch
/// loop, gathering included, for AVX-512 (62 ns).
macro_rules! lane_kernel_builds {
    ($solve:ident, $inline:ident, $avx512:ident, $avx:ident, $baseline:ident) => {
        #[doc = concat!("[`", stringify!($inline), "`] compiled for the widest instruction set the processor has.")]
        #[inline(always)]
        fn $solve(g: &Gathered) -> Solved {
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx512vl") {
                    // SAFETY: the processor has AVX-512F and AVX-512VL
                    // (checked just above; VL implies F), the only
                    // requirement of this `target_feature` function.
                    return unsafe { $avx512(g) };
                }
                if std::arch::is_x86_feature_detected!("avx") {
                    // SAFETY: the processor has AVX (checked just above),
                    // the only requirement of this `target_feature`
                    // function.
                    return unsafe { $avx(g) };
                }
            }
            $baseline(g)
        }

        #[doc = concat!("[`", stringify!($inline), "`] for processors with AVX-512 (F and VL).")]
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512vl")]
        fn $avx512(g: &Gathered) -> Solved {
            $inline(g)
        }

        #[doc = concat!("[`", stringify!($inline), "`] for processors with AVX.")]
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx")]
        fn $avx(g: &Gathered) -> Solved {
            $inline(g)
        }

        #[doc = concat!("[`", stringify!($inline), "`] for the target's baseline instruction set.")]
        #[inline(never)]
        fn $baseline(g: &Gathered) -> Solved {
            $inline(g)
        }
    };
}

lane_kernel_builds!(
    solve_lanes,
    solve_lanes_inline,
    solve_lanes_avx512,
    solve_lanes_avx,
    solve_lanes_baseline
);

/// The hinge branch of the scalar fast path over eight lanes, branch-free:
/// every lane's corrections and its fallback mask (see the module docs).
#[inline(always)]
fn solve_lanes_inline(g: &Gathered) -> Solved {
    let w = g.weight;
    let [sx, sy, sz, pa] = g.s;
    let [mx, my, mz, pb] = g.m;
    let [ex, ey, ez, pc] = g.e;
    let target = g.target;
    // Input-only work first: the end rotation's checks and the end's own rotation.
    let (start_conformal, s_len_sq) = conformal_scale_sq(sx, sy, sz);
    let (mid_conformal, m_len_sq) = conformal_scale_sq(mx, my, mz);
    let (s_len, m_len) = (s_len_sq.sqrt(), m_len_sq.sqrt());
    let conformal = start_conformal & mid_conformal;
    let end_inverse = rotation_of_fast(ex, ey, ez).conjugate();

    // The start's inverse by cofactors.
    let (c0, c1, c2) = (sy.cross(sz), sz.cross(sx), sx.cross(sy));
    let det = sx.dot(c0);
    let mut fallback = !(det.abs().ge(SINGULAR_DET) & det.finite());
    // An end rotation counts where its weight times the solve's is positive.
    let has_end = g.has_goal & (g.end_weight * w).gt(0.0);
    let rdet = 1.0 / det;
    let inv = InverseRows(c0, c1, c2, rdet);
    let (ab, mb) = (pb - pa, pc - pb);
    let b = inv.apply(ab);
    let c = inv.apply(pc - pa);
    let t = c + (inv.apply(target - pa) - c) * w;
    let s = c - b;
    let hm_raw = inv.apply(mul_cols(mx, my, mz, g.axis));
    let (l1_sq, l2_sq, dist_sq) = (b.length_squared(), s.length_squared(), t.length_squared());
    let hm_sq = hm_raw.length_squared();
    fallback = fallback
        | !(l1_sq.gt(FAST_MIN_LEN_SQ)
            & l2_sq.gt(FAST_MIN_LEN_SQ)
            & dist_sq.gt(FAST_MIN_LEN_SQ)
            & hm_sq.gt(FAST_MIN_LEN_SQ));
    let (l1, dist, hm_len) = (l1_sq.sqrt(), dist_sq.sqrt(), hm_sq.sqrt());
    let (inv_l1, inv_dist, inv_hm) = (1.0 / l1, 1.0 / dist, 1.0 / hm_len);
    let n = t * inv_dist;
    let current = b * inv_l1;

    // The pole's hint, not normalized at full weight.
    let raw = inv.apply(g.pole);
    let perp = raw - n * raw.dot(n);
    let p2 = perp.length_squared();
    let fade_free = p2.ge(raw.length_squared() * (POLE_FALLBACK_SINE * POLE_FALLBACK_SINE));
    fallback = fallback | !(fade_free & p2.gt(FAST_MIN_LEN_SQ));
    let (twist_sin, twist_cos) = twist_sin_cos(g);
    let dir = perp * twist_cos + n.cross(perp) * twist_sin;
    let blended = current * (1.0 - w) + dir * (w / p2.sqrt());
    let hint = sel_v(w.eq(1.0), dir, blended);

    // The hinge.
    let inv_hm2 = 1.0 / hm_sq;
    let det_m = mx.dot(my.cross(mz));
    let mirrored = det.lt(0.0).ne(det_m.lt(0.0));
    let u = b;
    let s_par = hm_raw * (s.dot(hm_raw) * inv_hm2);
    let s_perp = s - s_par;
    let u_perp = u - hm_raw * (u.dot(hm_raw) * inv_hm2);
    let (up2, sp2) = (u_perp.length_squared(), s_perp.length_squared());
    let k1 = 2.0 * (up2 * sp2).sqrt();
    fallback =
        fallback | !(up2.ge(DEGENERATE_LEN_SQ) & sp2.ge(DEGENERATE_LEN_SQ) & k1.gt(DEGENERATE_LEN));
    let inv_k1 = 1.0 / k1;
    let k0 = (u + s_par).length_squared() + sp2;
    let y0 = hm_raw.dot(u_perp.cross(s_perp)) * inv_hm;
    let (sin0, cos0) = (y0 * (2.0 * inv_k1), u_perp.dot(s_perp) * (2.0 * inv_k1));
    let (sin_min, cos_min, sin_max, cos_max) = (g.sin_min, g.cos_min, g.sin_max, g.cos_max);
    let (h_min, h_max) = (g.h_min, g.h_max);
    // The softened distance (the scalar soften_distance per lane).
    let best_cos = sel(h_min.gt(0.0), cos_min, sel(h_max.lt(0.0), cos_max, 1.0));
    let reach = (k0 + k1 * best_cos).max(0.0).sqrt();
    let soft_start = reach * g.soften;
    let span = reach - soft_start;
    let over = dist - soft_start;
    let softened = soft_start + span * over / (over + span);
    let keep = g.soften.ge(1.0) | dist.le(soft_start) | span.le(DEGENERATE_LEN);
    let d = sel(keep, dist, softened);
    let ctc = ((d * d - k0) * inv_k1).clamp(-1.0, 1.0);
    let stc = ((1.0 - ctc) * (1.0 + ctc)).sqrt();
    let pos_ok = (h_min.le(0.0) | ctc.le(cos_min)) & h_max.ge(0.0) & ctc.ge(cos_max);
    let neg_ok = h_min.le(0.0) & ctc.ge(cos_min) & (h_max.ge(0.0) | ctc.le(cos_max));
    let theta0_negative = y0.lt(0.0);
    let either = pos_ok | neg_ok;
    let both = pos_ok & neg_ok;
    let negative = (both & theta0_negative) | (!both & neg_ok);
    let (em, ex_) = ((cos_min - ctc).abs(), (cos_max - ctc).abs());
    let use_min = em.lt(ex_) | (em.eq(ex_) & theta0_negative);
    let sin_t = sel(
        either,
        sel(negative, -stc, stc),
        sel(use_min, sin_min, sin_max),
    );
    let cos_t = sel(either, ctc, sel(use_min, cos_min, cos_max));
    let cos_d = cos_t * cos0 + sin_t * sin0;
    let sin_d = sin_t * cos0 - cos_t * sin0;
    let e = u + s_par + s_perp * cos_d + hm_raw.cross(s_perp) * (sin_d * inv_hm);
    let (hx, hy) = (cos0 + cos_t, sin0 + sin_t);
    let hw = 0.5 * (hx * hx + hy * hy);
    let hn2 = hw * hw + sin_d * sin_d;
    fallback = fallback | !hn2.ge(FAST_HALF_TURN_NORM_SQ);
    let flip = sin_t.ge(0.0).ne(sin0.ge(0.0)) & (cos_t + cos0).lt(0.0);
    let inv_hn = sel(flip, -1.0, 1.0) / hn2.sqrt();
    let (sh, ch) = (sin_d * inv_hn, hw * inv_hn);

    // The start's turn: the aim r1, then the twist about n toward the hint.
    let e2 = e.length_squared();
    fallback = fallback | !e2.gt(FAST_MIN_LEN_SQ);
    let inv_e2 = 1.0 / e2;
    let e_len = e2.sqrt();
    // The knee's offset across e with the hinge's bend direction (the
    // scalar path's HINGE_BEND_BIAS).
    let side = sel((h_min + h_max).ge(0.0), -1.0, 1.0);
    let cross = hm_raw.cross(e);
    let c2 = cross.length_squared();
    let bend_scale = sel(
        c2.gt(FAST_MIN_LEN_SQ),
        side * HINGE_BEND_BIAS * l1 / c2.sqrt(),
        0.0,
    );
    let f = u - e * (u.dot(e) * inv_e2) + cross * bend_scale;
    let gp = hint - n * hint.dot(n);
    let (f2, g2) = (f.length_squared(), gp.length_squared());
    let w1 = e_len + e.dot(n);
    fallback = fallback | !w1.gt(e_len * FAST_AIM_MIN_W);
    let r1 = Q8::of(e.cross(n), w1);
    let (f_len, g_len) = (f2.sqrt(), g2.sqrt());
    let (inv_w1, inv_g) = (1.0 / w1, 1.0 / g_len);
    let gn = gp * inv_g;
    let f_turned = f - (e + n * e_len) * (n.dot(f) * inv_w1);
    let qv = n * (2.0 * f_len * n.dot(f_turned.cross(gn)));
    let qw = (f_turned + gn * f_len).length_squared();
    let anti = (qv.length_squared() + qw * qw).lt(ANTIPARALLEL_NORM_SQ * (4.0 * f2 * f2));
    let twist = sel_q(anti, Q8::of(n, F8::splat(0.0)), Q8::of(qv, qw));
    let degenerate = f2.lt(DEGENERATE_LEN_SQ) | g2.lt(DEGENERATE_LEN_SQ);
    let turn = sel_q(degenerate, r1, twist.mul(r1));
    let ds = turn.scale(1.0 / turn.length_squared().sqrt());
    let axis_sign = sel(mirrored, -sh, sh);
    let mid_fix = Q8::of(g.unit_axis * axis_sign, ch);
    let new_end = n * e_len;

    // The end rotation by quaternion products (conformal start and mid only).
    fallback = fallback | (has_end & !(det.gt(0.0) & det_m.gt(0.0) & conformal));
    let end_fix = end_turn(
        g,
        has_end,
        (s_len, m_len),
        (end_inverse, turn, mid_fix),
        false,
    );

    let end_position = mul_cols(sx, sy, sz, new_end) + pa;
    let thigh = ab.length_squared().sqrt();
    let shin = mb.length_squared().sqrt();
    let residual = (end_position - target).length_squared().sqrt();
    let tolerance = (thigh + shin).max(DEGENERATE_LEN) * REACHED_RELATIVE_TOLERANCE;
    Solved {
        start: ds,
        mid: mid_fix,
        end: end_fix,
        end_position,
        reached: residual.le(tolerance),
        // Lanes whose numbers fail validation go to the scalar path whole
        // (checked last: the check depends on the inputs alone and overlaps
        // the solve's tail).
        fallback: fallback | !lanes_valid(g, true),
    }
}

lane_kernel_builds!(
    solve_free,
    solve_free_inline,
    solve_free_avx512,
    solve_free_avx,
    solve_free_baseline
);

/// The knee hint of the scalar fast path without a hinge, per lane: the
/// current thigh direction, or for a pole direction ([`Gathered::is_pole`])
/// its part across the hip→target axis `n`, turned by the twist (left as it
/// is where the twist is zero, as the scalar path leaves it) and, below full
/// weight, blended with the current direction. Also the lanes whose pole
/// the scalar fast path hands to the general one.
#[inline(always)]
fn free_hint(g: &Gathered, inv: InverseRows, n: V8, current: V8, w: F8) -> (V8, M8) {
    let raw = inv.apply(g.pole);
    let perp = raw - n * raw.dot(n);
    let p2 = perp.length_squared();
    let fade_free = p2.ge(raw.length_squared() * (POLE_FALLBACK_SINE * POLE_FALLBACK_SINE));
    let bad = !(fade_free & p2.gt(FAST_MIN_LEN_SQ));
    let (twist_sin, twist_cos) = twist_sin_cos(g);
    let turned = perp * twist_cos + n.cross(perp) * twist_sin;
    let dir = sel_v(g.twist.eq(0.0), perp, turned);
    let blended = current * (1.0 - w) + dir * (w / p2.sqrt());
    let hint = sel_v(w.eq(1.0), dir, blended);
    (sel_v(g.is_pole, hint, current), g.is_pole & bad)
}

/// The scalar fast path without a hinge over eight lanes, branch-free, in
/// the scalar path's operations and order (the same bits where no lane
/// falls back, tested): the reach cases (too close, too far, reachable) by
/// selects, the start's turn as the half-way quaternion of the old and new
/// thigh, the mid's turn in its own frame through its adjugate, and the end
/// rotation as in [`solve_lanes_inline`].
#[inline(always)]
fn solve_free_inline(g: &Gathered) -> Solved {
    let w = g.weight;
    let [sx, sy, sz, pa] = g.s;
    let [mx, my, mz, pb] = g.m;
    let [ex, ey, ez, pc] = g.e;
    let target = g.target;
    // Input-only work first, as in the scalar path.
    let (start_conformal, s_len_sq) = conformal_scale_sq(sx, sy, sz);
    let (mid_conformal, m_len_sq) = conformal_scale_sq(mx, my, mz);
    let (s_len, m_len) = (s_len_sq.sqrt(), m_len_sq.sqrt());
    let conformal = start_conformal & mid_conformal;
    let end_inverse = rotation_of_fast(ex, ey, ez).conjugate();
    // The mid's adjugate and the old shin's direction in the mid's frame.
    let (a0, a1, a2) = (my.cross(mz), mz.cross(mx), mx.cross(my));
    let old_dir = mul_rows(a0, a1, a2, pc - pb);
    let old_len_sq = old_dir.length_squared();
    let inv_old_len = 1.0 / old_len_sq.sqrt();

    // The start's inverse by cofactors.
    let (c0, c1, c2) = (sy.cross(sz), sz.cross(sx), sx.cross(sy));
    let det = sx.dot(c0);
    let mut fallback = !(det.abs().ge(SINGULAR_DET) & det.finite());
    let has_end = g.has_goal & (g.end_weight * w).gt(0.0);
    let rdet = 1.0 / det;
    let inv = InverseRows(c0, c1, c2, rdet);
    let (ab, mb) = (pb - pa, pc - pb);
    let b = inv.apply(ab);
    let c = inv.apply(pc - pa);
    let t = c + (inv.apply(target - pa) - c) * w;
    let s = c - b;
    let (l1_sq, l2_sq, dist_sq) = (b.length_squared(), s.length_squared(), t.length_squared());
    fallback = fallback
        | !(l1_sq.gt(FAST_MIN_LEN_SQ) & l2_sq.gt(FAST_MIN_LEN_SQ) & dist_sq.gt(FAST_MIN_LEN_SQ));
    let (l1, l2, dist) = (l1_sq.sqrt(), l2_sq.sqrt(), dist_sq.sqrt());
    let (inv_l1, inv_dist) = (1.0 / l1, 1.0 / dist);
    let n = t * inv_dist;
    let current = b * inv_l1;
    let (hint, pole_fallback) = free_hint(g, inv, n, current, w);
    fallback = fallback | pole_fallback;

    // The softened distance (the scalar soften_distance per lane).
    let reach = l1 + l2;
    let soft_start = reach * g.soften;
    let span = reach - soft_start;
    let over = dist - soft_start;
    let softened = soft_start + span * over / (over + span);
    let keep = g.soften.ge(1.0) | dist.le(soft_start) | span.le(DEGENERATE_LEN);
    let eff = sel(keep, dist, softened);
    // Too close: the longer segment toward the target, the other away.
    let close = eff.lt((l1 - l2).abs());
    let sign = sel(l1.ge(l2), 1.0, -1.0);
    let close_mid = n * (sign * l1);
    let close_end = close_mid - n * (sign * l2);
    // Too far: straight toward the target.
    let far = eff.ge(reach) | eff.le(DEGENERATE_LEN);
    // Reachable: the knee on the circle of the two spheres.
    let hp = hint - n * hint.dot(n);
    let hp2 = hp.length_squared();
    fallback = fallback | (!close & !far & !hp2.gt(DEGENERATE_LEN_SQ));
    let num = l1 * l1 + eff * eff - l2 * l2;
    let cos_theta = sel(
        g.soften.ge(1.0),
        num * (0.5 * inv_l1 * inv_dist),
        num / (2.0 * l1 * eff),
    )
    .clamp(-1.0, 1.0);
    let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    let u = hp * (1.0 / hp2.sqrt());
    let reach_dir = n * cos_theta + u * sin_theta;
    let new_mid = sel_v(close, close_mid, sel_v(far, n * l1, reach_dir * l1));
    let new_end = sel_v(close, close_end, sel_v(far, n * reach, n * eff));
    let dir = sel_v(close, n * sign, sel_v(far, n, reach_dir));

    // The start's turn: the half-way quaternion of the old and new thigh.
    let half = current + dir;
    let w_ds = 0.5 * half.length_squared();
    fallback = fallback | !w_ds.gt(FAST_AIM_MIN_W);
    let c_ds = current.cross(dir);
    let c_ds = c_ds - current * c_ds.dot(current);
    let inv_ds = 1.0 / (c_ds.length_squared() + w_ds * w_ds).sqrt();
    let inv_w_ds = 1.0 / w_ds;
    let ds = Q8::of(c_ds * inv_ds, w_ds * inv_ds);
    // The mid's turn in its own frame: the new shin taken back through the
    // start's turn (two reflections), then through the mid's adjugate; the
    // minimal rotation from the old shin's direction to it.
    let shin = new_end - new_mid;
    let back = shin - half * (half.dot(shin) * inv_w_ds) + current * (2.0 * dir.dot(shin));
    let new_dir = mul_rows(a0, a1, a2, mul_cols(sx, sy, sz, back));
    let (from, to) = (old_dir * inv_old_len, new_dir * inv_old_len);
    let cr = from.cross(to);
    let cr = cr - from * cr.dot(from);
    let wr = 0.5 * (from + to).length_squared();
    let n2 = cr.length_squared() + wr * wr;
    let turns = old_len_sq.gt(0.0) & old_len_sq.finite();
    fallback = fallback | (turns & n2.lt(ANTIPARALLEL_NORM_SQ));
    let inv_n2 = 1.0 / n2.sqrt();
    let mid_fix = sel_q(turns, Q8::of(cr * inv_n2, wr * inv_n2), identity_q());
    let det_m = mx.dot(a0);

    let end_fix = end_turn(g, has_end, (s_len, m_len), (end_inverse, ds, mid_fix), true);
    fallback = fallback | (has_end & !(det.gt(0.0) & det_m.gt(0.0) & conformal));

    let end_position = mul_cols(sx, sy, sz, new_end) + pa;
    let thigh = ab.length_squared().sqrt();
    let shin_len = mb.length_squared().sqrt();
    let residual = (end_position - target).length_squared().sqrt();
    let tolerance = (thigh + shin_len).max(DEGENERATE_LEN) * REACHED_RELATIVE_TOLERANCE;
    Solved {
        start: ds,
        mid: mid_fix,
        end: end_fix,
        end_position,
        reached: residual.le(tolerance),
        fallback: fallback | !lanes_valid(g, false),
    }
}

/// The end joint's correction per lane, as the scalar fast path computes it
/// for start and mid matrices that are rotations times one positive scale:
/// the start's `turn` (its correction up to a positive factor) and the mid's
/// correction taken to model space, the end's current rotation after them
/// (`end_inverse` is its own rotation, conjugated), the turn toward the goal
/// and its weighted power; the identity where `has_end` is not set. `lens`
/// are the start's and mid's scales. With `as_glam` the quaternion products
/// and the norm are summed in glam's order ([`Q8::mul_as_glam`]): the lanes
/// without a hinge do, and so give the scalar bits; the hinge lanes keep
/// their own order, and with it the crowd's results.
#[inline(always)]
fn end_turn(
    g: &Gathered,
    has_end: M8,
    lens: (F8, F8),
    (end_inverse, turn, mid_fix): (Q8, Q8, Q8),
    as_glam: bool,
) -> Q8 {
    let [sx, sy, sz, _] = g.s;
    let [mx, my, mz, _] = g.m;
    let (s_len, m_len) = lens;
    let mul = |a: Q8, b: Q8| if as_glam { a.mul_as_glam(b) } else { a.mul(b) };
    let ds_model = Q8::of(mul_cols(sx, sy, sz, turn.vector()), turn.w * s_len);
    let dm_model = Q8::of(mul_cols(mx, my, mz, mid_fix.vector()), mid_fix.w * m_len);
    let rest = mul(end_inverse, dm_model.conjugate());
    let r = mul(rest, mul(ds_model.conjugate(), g.goal));
    let r = sel_q(r.w.lt(0.0), r.scale(F8::splat(-1.0)), r);
    let k = g.end_weight * g.weight;
    let r_sq = if as_glam {
        r.length_squared_as_glam()
    } else {
        r.length_squared()
    };
    let full = r.scale(1.0 / r_sq.sqrt());
    let end_fix = sel_q(k.eq(1.0), full, turn_power(r, k));
    sel_q(has_end, end_fix, identity_q())
}

/// The identity rotation in every lane.
#[inline(always)]
fn identity_q() -> Q8 {
    let zero = F8::splat(0.0);
    Q8 {
        x: zero,
        y: zero,
        z: zero,
        w: F8::splat(1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ik::HingeLimit;
    use glam::{EulerRot, Vec3A};
    use proptest::prelude::*;

    /// How a leg's root is transformed: the vectorized cases (identity,
    /// translated, rotated, uniformly scaled) and, rarer, the ones the end
    /// rotation hands to the scalar path (non-uniform, mirrored).
    #[derive(Clone, Copy, Debug)]
    enum Root {
        Identity,
        Translated(Vec3),
        Rotated(Quat),
        Uniform(Vec3, Quat, f32),
        NonUniform(Quat, Vec3),
        Mirrored(Quat),
    }

    fn root_matrix(r: Root) -> Affine3A {
        match r {
            Root::Identity => Affine3A::IDENTITY,
            Root::Translated(t) => Affine3A::from_translation(t),
            Root::Rotated(q) => Affine3A::from_quat(q),
            Root::Uniform(t, q, s) => {
                Affine3A::from_scale_rotation_translation(Vec3::splat(s), q, t)
            }
            Root::NonUniform(q, s) => Affine3A::from_scale_rotation_translation(s, q, Vec3::X),
            Root::Mirrored(q) => {
                Affine3A::from_scale_rotation_translation(Vec3::new(-1.0, 1.0, 1.0), q, Vec3::Y)
            }
        }
    }

    fn rotation() -> impl Strategy<Value = Quat> {
        (-3.1f32..3.1, -1.5f32..1.5, -3.1f32..3.1)
            .prop_map(|(a, b, c)| Quat::from_euler(EulerRot::YXZ, a, b, c))
    }

    fn unit() -> impl Strategy<Value = Vec3> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_filter("non-zero", |(x, y, z)| x * x + y * y + z * z > 1e-2)
            .prop_map(|(x, y, z)| Vec3::new(x, y, z).normalize())
    }

    fn root() -> impl Strategy<Value = Root> {
        let t = (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0).prop_map(|(x, y, z)| Vec3::new(x, y, z));
        prop_oneof![
            2 => Just(Root::Identity),
            2 => t.clone().prop_map(Root::Translated),
            2 => rotation().prop_map(Root::Rotated),
            3 => (t, rotation(), 0.2f32..4.0).prop_map(|(t, q, s)| Root::Uniform(t, q, s)),
            1 => (rotation(), (0.5f32..2.0, 0.5f32..2.0, 0.5f32..2.0))
                .prop_map(|(q, (x, y, z))| Root::NonUniform(q, Vec3::new(x, y, z))),
            1 => rotation().prop_map(Root::Mirrored),
        ]
    }

    /// The knee strategy: mostly the vectorized pole direction, sometimes
    /// one the batch hands to the scalar path.
    fn knee() -> impl Strategy<Value = KneeStrategy> {
        prop_oneof![
            8 => (unit(), prop_oneof![Just(0.0f32), -3.0f32..3.0])
                .prop_map(|(d, twist)| KneeStrategy::Pole { pole: Pole::Direction(d), twist }),
            1 => (unit(), -1.0f32..1.0)
                .prop_map(|(d, twist)| KneeStrategy::Pole { pole: Pole::Point(d * 2.0), twist }),
            1 => Just(KneeStrategy::MinimalMotion),
        ]
    }

    fn hinge() -> impl Strategy<Value = Option<HingeLimit>> {
        prop_oneof![
            4 => Just(Some(HingeLimit::new(Vec3::X, -2.6, 0.0))),
            4 => Just(Some(HingeLimit::new(Vec3::X, 0.0, 2.6))),
            2 => (unit(), -3.0f32..0.5, 0.0f32..2.5)
                .prop_map(|(a, lo, w)| Some(HingeLimit::new(a, lo, (lo + w).min(3.1)))),
            1 => Just(None),
        ]
    }

    /// One random leg under a random root, with random options.
    fn chain() -> impl Strategy<Value = TwoBoneCoreInput> {
        (
            (root(), rotation(), rotation(), rotation()),
            (0.1f32..1.0, 0.1f32..1.0, 0.0f32..0.6),
            (unit(), prop_oneof![0.0f32..0.4, 0.4f32..1.0, 1.0f32..2.0]),
            knee(),
            hinge(),
            (
                prop_oneof![Just(1.0f32), 0.9f32..1.0],
                prop_oneof![3 => Just(1.0f32), 3 => 0.0f32..1.0, 1 => Just(0.0f32)],
            ),
            prop_oneof![
                Just(None),
                (rotation(), prop_oneof![Just(1.0f32), 0.0f32..1.0]).prop_map(Some)
            ],
        )
            .prop_map(
                |(
                    (root, rh, rk, ra),
                    (l1, l2, bend),
                    (dir, reach),
                    knee,
                    hinge,
                    (soften, weight),
                    end_rotation,
                )| {
                    let root = root_matrix(root);
                    let hip =
                        root * Affine3A::from_rotation_translation(rh, Vec3::new(0.1, -0.2, 0.05));
                    let knee_local = Affine3A::from_rotation_translation(
                        rk * Quat::from_rotation_x(-bend),
                        Vec3::new(0.0, -l1, 0.02),
                    );
                    let mid = hip * knee_local;
                    let end =
                        mid * Affine3A::from_rotation_translation(ra, Vec3::new(0.01, -l2, 0.0));
                    let target = hip.translation + Vec3A::from(dir) * ((l1 + l2) * reach * 1.3);
                    TwoBoneCoreInput {
                        start: hip,
                        mid,
                        end,
                        opts: TwoBoneOptions {
                            target: target.into(),
                            knee,
                            soften,
                            hinge,
                            end_rotation,
                            weight,
                        },
                    }
                },
            )
    }

    /// Asserts that `got` equals scalar `solve_core` on `c` within 1e-5.
    fn assert_matches(c: &TwoBoneCoreInput, got: &Result<TwoBoneCorrection, IkError>) {
        let want = solve_core(&c.start, &c.mid, &c.end, &c.opts);
        match (got, &want) {
            (Ok(g), Ok(w)) => {
                for (a, b, what) in [
                    (g.start, w.start, "start"),
                    (g.mid, w.mid, "mid"),
                    (g.end, w.end, "end"),
                ] {
                    let same = Vec4::from(a).abs_diff_eq(Vec4::from(b), 1e-5)
                        || Vec4::from(a).abs_diff_eq(-Vec4::from(b), 1e-5);
                    let both_nan = !a.is_finite() && !b.is_finite();
                    assert!(same || both_nan, "{what}: {a} vs {b} for {c:?}");
                }
                let nan = !g.end_position.is_finite() && !w.end_position.is_finite();
                assert!(
                    nan || g.end_position.abs_diff_eq(w.end_position, 1e-5),
                    "end position {} vs {} for {c:?}",
                    g.end_position,
                    w.end_position
                );
                if g.reached != w.reached {
                    let (pa, pb, pc) = (c.start.translation, c.mid.translation, c.end.translation);
                    let len = (pb - pa).length() + (pc - pb).length();
                    let tol =
                        crate::ik::two_bone::REACHED_RELATIVE_TOLERANCE * len.max(DEGENERATE_LEN);
                    let residual = (w.end_position - c.opts.target).length();
                    assert!((residual - tol).abs() <= 1e-5, "reached differs for {c:?}");
                }
            }
            (Err(g), Err(w)) => assert_eq!(g, w),
            _ => panic!("Ok/Err differs: {got:?} vs {want:?} for {c:?}"),
        }
    }

    use glam::Vec4;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]
        #[test]
        fn batches_equal_scalar_solve_core(chains in prop::collection::vec(chain(), 1..=20)) {
            let mut out = vec![Ok(TwoBoneCorrection { start: Quat::NAN, mid: Quat::NAN, end: Quat::NAN, end_position: Vec3::NAN, reached: false }); chains.len()];
            solve_core_batch(&chains, &mut out);
            for (c, got) in chains.iter().zip(&out) {
                assert_matches(c, got);
            }
        }
    }

    /// The option sets a mixed batch draws from: as generated (mostly the
    /// crowd's shape), and the sets users solve besides it.
    fn option_set(opts: &mut TwoBoneOptions, set: usize, pole: Vec3) {
        let pole_dir = KneeStrategy::Pole {
            pole: Pole::Direction(pole),
            twist: 0.0,
        };
        match set {
            0 => {}
            1 => *opts = TwoBoneOptions::new(opts.target),
            2 => {
                *opts = TwoBoneOptions {
                    knee: KneeStrategy::PosePreserving,
                    ..TwoBoneOptions::new(opts.target)
                }
            }
            3 => {
                opts.knee = pole_dir;
                opts.hinge = None;
            }
            4 => {
                opts.knee = pole_dir;
                opts.hinge = None;
                opts.soften = 0.95;
                opts.weight = 0.7;
                opts.end_rotation = Some((Quat::from_rotation_x(0.2), 0.8));
            }
            5 => opts.knee = KneeStrategy::MinimalMotion,
            6 => opts.weight = 0.0,
            _ => {
                opts.knee = KneeStrategy::Pole {
                    pole: Pole::Point(pole * 2.0),
                    twist: 0.3,
                }
            }
        }
    }

    /// The bits of a result, `Err` as itself: equal exactly where the
    /// results are the same bit for bit.
    fn result_bits(r: &Result<TwoBoneCorrection, IkError>) -> Result<[u32; 16], IkError> {
        r.clone().map(|f| {
            let mut b = [0u32; 16];
            let q = [f.start, f.mid, f.end].map(|q| q.to_array());
            for (k, v) in q.as_flattened().iter().enumerate() {
                b[k] = v.to_bits();
            }
            for (k, v) in f.end_position.to_array().iter().enumerate() {
                b[12 + k] = v.to_bits();
            }
            b[15] = u32::from(f.reached);
            b
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]
        /// A batch mixing option sets: exactly the chains in the vectorized
        /// cases reach the lanes (in any order and number, however many
        /// other chains lie between them), every chain outside the hinge
        /// lanes gets scalar `solve_core`'s result bit for bit, and every
        /// chain lands in its own slot.
        #[test]
        fn mixed_batches_route_each_chain_and_match_scalar(
            chains in prop::collection::vec((chain(), 0usize..8, unit()), 1..=40)
        ) {
            let chains: Vec<_> = chains
                .into_iter()
                .map(|(mut c, set, pole)| {
                    option_set(&mut c.opts, set, pole);
                    c
                })
                .collect();
            let mut out = vec![unset(); chains.len()];
            let mut laned = vec![false; chains.len()];
            solve_routed(&chains, &mut out, |i, _| {
                assert!(!laned[i], "chain {i} reached the lanes twice");
                laned[i] = true;
            });
            for (i, (c, got)) in chains.iter().zip(&out).enumerate() {
                prop_assert_eq!(laned[i], vectorizable(c), "chain {} routed wrongly", i);
                // The scalar core's chains and the lanes without a hinge:
                // the scalar bits.
                if lane_kernel(c) != Some(Kernel::Hinge) {
                    let want = solve_core(&c.start, &c.mid, &c.end, &c.opts);
                    prop_assert_eq!(result_bits(got), result_bits(&want), "chain {}", i);
                }
                assert_matches(c, got);
            }
            // The public entry point routes the same way.
            let mut public = vec![unset(); chains.len()];
            solve_core_batch(&chains, &mut public);
            for (a, b) in out.iter().zip(&public) {
                prop_assert_eq!(result_bits(a), result_bits(b));
            }
        }
    }

    /// Most random legs in the vectorized case stay in the lanes, so the
    /// property above compares the lanes, not the scalar path with itself.
    #[test]
    fn most_random_vectorizable_legs_stay_in_the_lanes() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        let mut runner = TestRunner::deterministic();
        let strategy = chain();
        let chains: Vec<_> = (0..4_000)
            .map(|_| strategy.new_tree(&mut runner).unwrap().current())
            .collect();
        let mut out = vec![unset(); chains.len()];
        let (mut vectorizable_lanes, mut kept_lanes) = (0, 0);
        for (chunk, out) in chains.chunks(LANES).zip(out.chunks_mut(LANES)) {
            let kept = solve_chunk(chunk, out);
            vectorizable_lanes += chunk.iter().filter(|c| vectorizable(c)).count();
            kept_lanes += kept.iter().filter(|&&k| k).count();
        }
        for (c, got) in chains.iter().zip(&out) {
            assert_matches(c, got);
        }
        eprintln!(
            "{kept_lanes} of {vectorizable_lanes} vectorizable lanes kept, {} chains",
            chains.len()
        );
        assert!(
            kept_lanes * 10 >= vectorizable_lanes * 6,
            "{kept_lanes} of {vectorizable_lanes}"
        );
    }

    /// Every build of the lanes this processor can run (AVX-512, AVX, the
    /// baseline) gives the same bits, fallback masks included.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_build_of_the_lanes_gives_the_same_bits() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        let avx512 = std::arch::is_x86_feature_detected!("avx512vl");
        let avx = std::arch::is_x86_feature_detected!("avx");
        // Said, not silent: a build the processor cannot run is not compared.
        if !avx512 {
            eprintln!("SKIPPED the AVX-512 lanes: this CPU has no AVX-512VL");
        }
        if !avx {
            eprintln!("SKIPPED the AVX lanes: this CPU has no AVX");
        }
        let bits = |s: &Solved| {
            let mut v = Vec::new();
            for q in [s.start, s.mid, s.end] {
                for f in [q.x, q.y, q.z, q.w] {
                    v.extend(f.0.map(f32::to_bits));
                }
            }
            for f in [s.end_position.x, s.end_position.y, s.end_position.z] {
                v.extend(f.0.map(f32::to_bits));
            }
            v.extend(s.reached.0);
            v.extend(s.fallback.0);
            v
        };
        let mut runner = TestRunner::deterministic();
        let strategy = chain();
        let mut g = Gathered::zeroed();
        // Without a hinge, half the chains: the generator alone makes few.
        let free = free_chain();
        for round in 0..1000 {
            let chains: Vec<_> = (0..LANES)
                .map(|_| {
                    if round % 2 == 0 {
                        strategy.new_tree(&mut runner).unwrap().current()
                    } else {
                        free.new_tree(&mut runner).unwrap().current()
                    }
                })
                .collect();
            type Build = unsafe fn(&Gathered) -> Solved;
            let builds: [(Kernel, &str, Build, Build, Build); 2] = [
                (
                    Kernel::Hinge,
                    "hinge",
                    solve_lanes_baseline,
                    solve_lanes_avx,
                    solve_lanes_avx512,
                ),
                (
                    Kernel::Free,
                    "free",
                    solve_free_baseline,
                    solve_free_avx,
                    solve_free_avx512,
                ),
            ];
            for (kernel, name, baseline, avx_build, avx512_build) in builds {
                // As the routing gathers them: lanes outside the kernel padded.
                let pad = padding();
                let picked = std::array::from_fn(|i| {
                    Some(&chains[i])
                        .filter(|c| lane_kernel(c) == Some(kernel))
                        .unwrap_or(&pad)
                });
                gather(&picked, &mut g);
                // SAFETY: the baseline build needs nothing.
                let want = bits(&unsafe { baseline(&g) });
                if avx {
                    // SAFETY: AVX is present (checked above).
                    assert_eq!(bits(&unsafe { avx_build(&g) }), want, "AVX {name} lanes");
                }
                if avx512 {
                    // SAFETY: AVX-512F and AVX-512VL are present (checked above).
                    let got = bits(&unsafe { avx512_build(&g) });
                    assert_eq!(got, want, "AVX-512 {name} lanes");
                }
            }
        }
    }

    /// One random leg without a hinge, with the minimal knee, the
    /// pose-preserving one or a pole direction (twist zero or not), and
    /// random soften, weight and end rotation: what the lanes without a
    /// hinge take.
    fn free_chain() -> impl Strategy<Value = TwoBoneCoreInput> {
        let knee = prop_oneof![
            Just(KneeStrategy::MinimalMotion),
            Just(KneeStrategy::PosePreserving),
            unit().prop_map(|d| KneeStrategy::Pole {
                pole: Pole::Direction(d),
                twist: 0.0
            }),
            (unit(), -4.0f32..4.0).prop_map(|(d, twist)| KneeStrategy::Pole {
                pole: Pole::Direction(d),
                twist
            }),
        ];
        (chain(), knee).prop_map(|(mut c, knee)| {
            c.opts.hinge = None;
            c.opts.knee = knee;
            if c.opts.weight == 0.0 {
                c.opts.weight = 0.5;
            }
            c
        })
    }

    /// The lanes without a hinge give scalar `solve_core`'s result bit for
    /// bit wherever they keep it (every reach case, twist, soften, weight
    /// and end rotation), and keep most random legs.
    #[test]
    fn free_lanes_equal_the_scalar_core_bit_for_bit() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        let mut runner = TestRunner::deterministic();
        let strategy = free_chain();
        let chains: Vec<_> = (0..20_000)
            .map(|_| strategy.new_tree(&mut runner).unwrap().current())
            .collect();
        let mut out = vec![unset(); chains.len()];
        let mut kept = vec![None; chains.len()];
        solve_routed(&chains, &mut out, |i, k| kept[i] = Some(k));
        let mut differ = Vec::new();
        for (i, (c, got)) in chains.iter().zip(&out).enumerate() {
            assert_eq!(lane_kernel(c), Some(Kernel::Free));
            let want = solve_core(&c.start, &c.mid, &c.end, &c.opts);
            if result_bits(got) != result_bits(&want) {
                differ.push((i, kept[i], result_bits(got), result_bits(&want)));
            }
        }
        assert!(
            differ.is_empty(),
            "{} chains differ, the first: {:?}",
            differ.len(),
            &differ[..differ.len().min(3)]
        );
        let in_lanes = kept.iter().filter(|k| **k == Some(true)).count();
        eprintln!("{in_lanes} of {} chains kept in the lanes", chains.len());
        assert!(in_lanes * 10 >= chains.len() * 8, "{in_lanes}");
    }

    /// The lanes' twist sine and cosine equal the scalar fast path's bit
    /// for bit, on both sides of every range edge and far beyond them.
    #[test]
    fn lane_twist_sin_cos_equals_the_scalar_one_bit_for_bit() {
        use std::f32::consts::{FRAC_PI_4, PI};
        let mut twists = vec![0.0, -0.0, 1e-30, 100.0, -1e4, 7.0];
        for e in [FRAC_PI_4, PI] {
            for v in [e, -e] {
                twists.extend([v, v.next_up(), v.next_down()]);
            }
        }
        twists.extend((0..4001).map(|k| -8.0 + 16.0 * k as f32 / 4000.0));
        let mut g = Gathered::zeroed();
        for eight in twists.chunks(LANES) {
            let chains: Vec<_> = eight
                .iter()
                .enumerate()
                .map(|(k, &twist)| {
                    let mut c = crowd_leg(k);
                    c.opts.knee = KneeStrategy::Pole {
                        pole: Pole::Direction(Vec3::Z),
                        twist,
                    };
                    c
                })
                .collect();
            gather(&lanes_of(&chains, &padding()), &mut g);
            let (s, c) = twist_sin_cos(&g);
            for (i, &twist) in eight.iter().enumerate() {
                let (ws, wc) = sin_cos_inline(twist);
                assert_eq!(
                    (s.0[i].to_bits(), c.0[i].to_bits()),
                    (ws.to_bits(), wc.to_bits()),
                    "twist {twist}"
                );
            }
        }
    }

    /// A crowd leg: hinge, pole direction with twist, soften, end rotation,
    /// weight 0.9, under a rotated, translated, uniformly scaled root.
    fn crowd_leg(k: usize) -> TwoBoneCoreInput {
        let f = k as f32;
        let root = Affine3A::from_scale_rotation_translation(
            Vec3::splat(1.2),
            Quat::from_rotation_y(0.3 * f),
            Vec3::new(f, 0.0, -f),
        );
        let hip = root * Affine3A::from_rotation_translation(Quat::from_rotation_z(0.1), Vec3::Y);
        let mid = hip
            * Affine3A::from_rotation_translation(
                Quat::from_rotation_x(-0.4),
                Vec3::new(0.0, -0.45, 0.0),
            );
        let end = mid * Affine3A::from_translation(Vec3::new(0.0, -0.45, 0.02));
        let target = hip.transform_point3(Vec3::new(0.05 * f, -0.7, 0.1));
        TwoBoneCoreInput {
            start: hip,
            mid,
            end,
            opts: TwoBoneOptions {
                target,
                knee: KneeStrategy::Pole {
                    pole: Pole::Direction(Vec3::new(0.1, 0.0, 1.0)),
                    twist: 0.1,
                },
                soften: 0.95,
                hinge: Some(HingeLimit::new(Vec3::X, -2.6, 0.0)),
                end_rotation: Some((Quat::from_rotation_x(0.2), 1.0)),
                weight: 0.9,
            },
        }
    }

    /// Solves up to [`LANES`] chains as [`solve_core_batch`] routes them
    /// and says which of them the lanes took and kept.
    fn solve_chunk(
        chunk: &[TwoBoneCoreInput],
        out: &mut [Result<TwoBoneCorrection, IkError>],
    ) -> [bool; LANES] {
        assert!(chunk.len() <= LANES);
        let mut kept = [false; LANES];
        solve_routed(chunk, out, |i, k| kept[i] = k);
        kept
    }

    /// Up to [`LANES`] chains as lane inputs, `pad` in the lanes past them.
    fn lanes_of<'a>(
        chains: &'a [TwoBoneCoreInput],
        pad: &'a TwoBoneCoreInput,
    ) -> [&'a TwoBoneCoreInput; LANES] {
        std::array::from_fn(|i| chains.get(i).unwrap_or(pad))
    }

    fn unset() -> Result<TwoBoneCorrection, IkError> {
        Err(IkError::NonFinite { what: "unset" })
    }

    /// Solves one batch of `chains` and checks that exactly the lanes in
    /// `scalar` left the kernel and that every lane matches scalar
    /// `solve_core`.
    fn assert_only_these_lanes_fall_back(
        chains: &[TwoBoneCoreInput],
        scalar: &[usize],
        what: &str,
    ) {
        let mut out = vec![unset(); chains.len()];
        let kept = solve_chunk(chains, &mut out);
        let mut want = [true; LANES];
        for &i in scalar {
            want[i] = false;
        }
        assert_eq!(kept, want, "{what}");
        for (c, got) in chains.iter().zip(&out) {
            assert_matches(c, got);
        }
    }

    #[test]
    fn crowd_legs_stay_in_the_lanes_and_match_the_scalar_solver() {
        let chains: Vec<_> = (0..LANES).map(crowd_leg).collect();
        let mut out = vec![unset(); LANES];
        let kept = solve_chunk(&chains, &mut out);
        assert_eq!(kept, [true; LANES]);
        for (c, got) in chains.iter().zip(&out) {
            assert_matches(c, got);
        }
    }

    #[test]
    fn a_zero_length_bone_goes_to_the_scalar_path_and_the_others_stay_in_the_lanes() {
        let mut chains: Vec<_> = (0..LANES).map(crowd_leg).collect();
        // The knee on the hip: a zero-length thigh.
        chains[3].mid.translation = chains[3].start.translation;
        assert_only_these_lanes_fall_back(&chains, &[3], "zero-length thigh");
    }

    #[test]
    fn a_nan_target_gets_the_scalar_result_and_the_others_stay_in_the_lanes() {
        let mut chains: Vec<_> = (0..LANES).map(crowd_leg).collect();
        chains[5].opts.target = Vec3::new(f32::NAN, 0.0, 0.0);
        chains[6].start.translation.x = f32::INFINITY;
        assert_only_these_lanes_fall_back(&chains, &[5, 6], "NaN target, infinite translation");
    }

    /// Each way the numbers can fail validation, one per lane among good
    /// crowd legs: the lanes check them, send those chains to the scalar
    /// path (which returns its error, or for a borderline hinge axis its
    /// exact verdict), and keep the others.
    #[test]
    fn invalid_numbers_in_lanes_get_the_scalar_result() {
        type Spoil = fn(&mut TwoBoneCoreInput);
        let spoils: [(&str, Spoil); 15] = [
            ("weight above 1", |c| c.opts.weight = 1.5),
            ("NaN weight", |c| c.opts.weight = f32::NAN),
            ("soften 0", |c| c.opts.soften = 0.0),
            ("soften above 1", |c| c.opts.soften = 1.0 + f32::EPSILON),
            ("infinite pole", |c| {
                c.opts.knee = KneeStrategy::Pole {
                    pole: Pole::Direction(Vec3::new(0.0, f32::INFINITY, 1.0)),
                    twist: 0.1,
                }
            }),
            ("NaN twist", |c| {
                c.opts.knee = KneeStrategy::Pole {
                    pole: Pole::Direction(Vec3::Z),
                    twist: f32::NAN,
                }
            }),
            ("hinge min above max", |c| {
                c.opts.hinge = Some(HingeLimit::new(Vec3::X, 0.5, -0.5))
            }),
            ("hinge beyond pi", |c| {
                c.opts.hinge = Some(HingeLimit::new(Vec3::X, -3.5, 0.0))
            }),
            ("zero hinge axis", |c| {
                c.opts.hinge = Some(HingeLimit::new(Vec3::ZERO, -2.6, 0.0))
            }),
            ("borderline hinge axis", |c| {
                let len = (1.5 * DEGENERATE_LEN_SQ).sqrt();
                c.opts.hinge = Some(HingeLimit::new(Vec3::X * len, -2.6, 0.0))
            }),
            ("zero goal", |c| {
                c.opts.end_rotation = Some((Quat::from_xyzw(0.0, 0.0, 0.0, 0.0), 1.0))
            }),
            ("NaN goal", |c| {
                c.opts.end_rotation = Some((Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0), 1.0))
            }),
            ("end weight above 1", |c| {
                c.opts.end_rotation = Some((Quat::IDENTITY, 2.0))
            }),
            ("infinite target", |c| c.opts.target.z = f32::NEG_INFINITY),
            ("NaN in the end matrix", |c| {
                c.end.matrix3.y_axis.z = f32::NAN
            }),
        ];
        for ((what, spoil), hinged) in spoils.into_iter().flat_map(|s| [(s, true), (s, false)]) {
            if !hinged && what.contains("hinge") {
                continue;
            }
            for lane in [0, 5] {
                let mut chains: Vec<_> = (0..LANES).map(crowd_leg).collect();
                if !hinged {
                    // The lanes without a hinge check the same numbers.
                    for c in &mut chains {
                        c.opts.hinge = None;
                    }
                }
                spoil(&mut chains[lane]);
                assert_only_these_lanes_fall_back(
                    &chains,
                    &[lane],
                    &format!("{what} in lane {lane}, hinge {hinged}"),
                );
                if what != "borderline hinge axis" {
                    assert!(chains[lane].opts.validate().is_err() || what.contains("matrix"));
                }
            }
        }
    }

    #[test]
    fn partial_batches_and_short_outputs_fill_what_fits() {
        let chains: Vec<_> = (0..11).map(crowd_leg).collect();
        let mut out = vec![unset(); 11];
        solve_core_batch(&chains, &mut out);
        for (c, got) in chains.iter().zip(&out) {
            assert_matches(c, got);
        }
        // A shorter output: the first five chains, nothing else, no panic.
        let mut short = vec![unset(); 5];
        solve_core_batch(&chains, &mut short);
        for (c, got) in chains.iter().zip(&short) {
            assert_matches(c, got);
        }
        // A longer output: the tail is left alone.
        let mut long = vec![unset(); 13];
        solve_core_batch(&chains[..3], &mut long);
        assert!(long[3..].iter().all(|r| *r == unset()));
        solve_core_batch(&[], &mut long);
    }
}
