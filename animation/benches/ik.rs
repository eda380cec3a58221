//! Cost of the IK solvers over 4,096 fixed, seeded random leg cases.
//!
//! - `two_bone/*`: the pose-level job (validation, chain space, bone
//!   rotations, re-propagation from the hip down), per knee strategy and
//!   with soften, hinge limit and end orientation switched on. One iteration
//!   solves all 4,096 legs, so divide the time by 4,096 for one solve. Each
//!   solve first restores its leg's original pose (`two_bone/restore_only`
//!   is that copy alone). `two_bone_chain/*`: the same through a
//!   `TwoBoneChain` checked once. `two_bone_core/*`: `solve_core` alone on
//!   the hip, knee and ankle model matrices; `two_bone_core/full_batched`
//!   is `full` through `solve_core_batch` (eight lanes at a time, all
//!   4,096 legs in one call). `two_bone_core_sets/<set>/scalar` and
//!   `/batched`: per option set (minimal, pose-preserving, pole direction,
//!   pole with soften, weight or end rotation, hinge, full, and a mix of
//!   them chain by chain), the loop of `solve_core` and `solve_core_batch`
//!   over the same prebuilt chains into the same output slice.
//!
//!   The hinge limit is built once, outside the timed loops, as a real
//!   caller builds it once per chain: [`HingeLimit::new`] computes its unit
//!   axis and its limits' sines and cosines then, and the solves read them.
//! - `two_bone_math/scalar` and `two_bone_math/batched`: the model-space
//!   core alone, one lane at a time and eight lanes at a time (4,096 solves
//!   per iteration either way).
//! - `ccd/N` and `fabrik/N`: chains of 4, 8 and 16 joints, eight iterations
//!   per solve (tolerance 0 so every solve runs all eight); one benchmark
//!   iteration is one solve, including restoring the chain's pose.
//!
//! Run: `cargo bench -p animation --bench ik`.
//!
//! With `IK_BENCH_CLOCK=thread` in the environment every figure is the
//! benchmark thread's own CPU time (`/proc/thread-self/schedstat`) instead of
//! wall-clock time: on the shared two-core development machine, where other
//! builds preempt the benchmark, that is the figure an idle machine would
//! give (caches and clock speed aside).

use std::hint::black_box;

use animation::ik::batched::{TwoBoneBatch, TwoBoneBatchOut};
use animation::ik::{
    CcdIk, FabrikIk, HingeLimit, IkError, KneeStrategy, LANES, Pole, TwoBoneChain,
    TwoBoneCoreInput, TwoBoneIk, TwoBoneOptions, solve_batch, solve_core, solve_core_batch,
    solve_model_space,
};
use animation::{JointDef, Pose, Skeleton, Transform, local_to_model};
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput};
use glam::{Affine3A, Mat4, Quat, Vec3};

/// Leg cases per benchmark iteration.
const CASES: usize = 4096;

/// A small deterministic generator (64-bit LCG) so every run sees the same legs.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
    fn rotation(&mut self, max: f32) -> Quat {
        Quat::from_euler(
            glam::EulerRot::YXZ,
            self.range(-max, max),
            self.range(-max, max),
            self.range(-max, max),
        )
    }
    fn dir(&mut self) -> Vec3 {
        Vec3::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        )
        .normalize_or(Vec3::Y)
    }
}

fn leg_skeleton() -> Skeleton {
    let j = |name: &str, parent, t: Vec3| JointDef {
        name: name.into(),
        parent,
        rest: Transform::from_translation(t),
        inverse_bind: Mat4::IDENTITY,
    };
    Skeleton::new(vec![
        j("pelvis", None, Vec3::Y),
        j("hip", Some(0), Vec3::new(0.1, 0.0, 0.0)),
        j("knee", Some(1), Vec3::new(0.0, -0.45, 0.0)),
        j("ankle", Some(2), Vec3::new(0.0, -0.45, 0.0)),
        j("toe", Some(3), Vec3::new(0.0, -0.05, 0.12)),
    ])
    .unwrap()
}

struct LegCase {
    pose: Pose,
    models: Vec<Mat4>,
    target: Vec3,
    pole: Vec3,
}

fn leg_cases(skeleton: &Skeleton) -> Vec<LegCase> {
    let mut rng = Lcg(0x1b0_57e9);
    (0..CASES)
        .map(|_| {
            let mut pose = skeleton.rest_pose();
            pose.locals[1].rotation = rng.rotation(0.6);
            pose.locals[2].rotation = Quat::from_rotation_x(rng.range(0.0, 1.5));
            pose.locals[3].rotation = rng.rotation(0.3);
            let mut models = vec![Mat4::IDENTITY; skeleton.len()];
            local_to_model(skeleton, &pose.locals, &mut models);
            let hip = models[1].w_axis.truncate();
            let target = hip + rng.dir() * rng.range(0.1, 1.0);
            LegCase {
                pose,
                models,
                target,
                pole: Vec3::new(0.0, 0.0, 1.0) + rng.dir() * 0.3,
            }
        })
        .collect()
}

fn two_bone<M: Measurement>(c: &mut Criterion<M>) {
    let skeleton = leg_skeleton();
    let mut cases = leg_cases(&skeleton);
    let hinge = HingeLimit::new(Vec3::X, -2.6, 0.0);
    type Build = fn(&LegCase, HingeLimit) -> TwoBoneIk;
    let variants: [(&str, Build); 6] = [
        ("minimal", |c, _| TwoBoneIk::new(1, 2, 3, c.target)),
        ("pose_preserving", |c, _| TwoBoneIk {
            knee: KneeStrategy::PosePreserving,
            ..TwoBoneIk::new(1, 2, 3, c.target)
        }),
        ("pole", |c, _| TwoBoneIk {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(c.pole),
                twist: 0.1,
            },
            ..TwoBoneIk::new(1, 2, 3, c.target)
        }),
        ("minimal_soften", |c, _| TwoBoneIk {
            soften: 0.95,
            ..TwoBoneIk::new(1, 2, 3, c.target)
        }),
        ("minimal_hinge", |c, h| TwoBoneIk {
            hinge: Some(h),
            ..TwoBoneIk::new(1, 2, 3, c.target)
        }),
        ("full", |c, h| TwoBoneIk {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(c.pole),
                twist: 0.1,
            },
            soften: 0.95,
            hinge: Some(h),
            end_rotation: Some((Quat::from_rotation_x(0.2), 1.0)),
            weight: 0.9,
            ..TwoBoneIk::new(1, 2, 3, c.target)
        }),
    ];
    // Every solve starts from its case's original pose: the pose and model
    // matrices are copied back first (no allocation), so that the state does
    // not drift with the number of iterations criterion happens to run.
    // `restore_only` measures that copy alone.
    let pristine: Vec<(Vec<Transform>, Vec<Mat4>)> = cases
        .iter()
        .map(|c| (c.pose.locals.clone(), c.models.clone()))
        .collect();
    let mut group = c.benchmark_group("two_bone");
    group.throughput(Throughput::Elements(CASES as u64));
    group.bench_function("restore_only", |b| {
        b.iter(|| {
            for (case, (locals, models)) in cases.iter_mut().zip(&pristine) {
                case.pose.locals.copy_from_slice(locals);
                case.models.copy_from_slice(models);
                black_box(&case.models);
            }
        })
    });
    for (name, build) in variants {
        group.bench_function(name, |b| {
            b.iter(|| {
                for (case, (locals, models)) in cases.iter_mut().zip(&pristine) {
                    case.pose.locals.copy_from_slice(locals);
                    case.models.copy_from_slice(models);
                    let job = build(case, hinge);
                    let r = job.solve(&skeleton, &mut case.pose, &mut case.models);
                    black_box(r.ok());
                }
            })
        });
    }
    group.finish();

    // The same jobs through a chain handle checked once (the per-frame path).
    let chain = TwoBoneChain::new(&skeleton, 1, 2, 3).unwrap();
    let mut group = c.benchmark_group("two_bone_chain");
    group.throughput(Throughput::Elements(CASES as u64));
    for (name, build) in [variants[0], variants[5]] {
        group.bench_function(name, |b| {
            b.iter(|| {
                for (case, (locals, models)) in cases.iter_mut().zip(&pristine) {
                    case.pose.locals.copy_from_slice(locals);
                    case.models.copy_from_slice(models);
                    let opts = build(case, hinge).options();
                    let r = chain.solve(&opts, &skeleton, &mut case.pose, &mut case.models);
                    black_box(r.ok());
                }
            })
        });
    }
    group.finish();
}

/// The model-space core alone (ozz's `IKTwoBoneJob` counterpart): model
/// matrices of hip, knee and ankle in, local corrections out.
fn two_bone_core<M: Measurement>(c: &mut Criterion<M>) {
    let skeleton = leg_skeleton();
    let cases = leg_cases(&skeleton);
    let hinge = HingeLimit::new(Vec3::X, -2.6, 0.0);
    let inputs: Vec<([Affine3A; 3], Vec3, Vec3)> = cases
        .iter()
        .map(|c| {
            let m = |j: usize| Affine3A::from_mat4(c.models[j]);
            ([m(1), m(2), m(3)], c.target, c.pole)
        })
        .collect();
    type Build = fn(Vec3, Vec3, HingeLimit) -> TwoBoneOptions;
    let variants: [(&str, Build); 4] = [
        ("minimal", |t, _, _| TwoBoneOptions::new(t)),
        ("pole_soften", |t, p, _| TwoBoneOptions {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(p),
                twist: 0.1,
            },
            soften: 0.95,
            ..TwoBoneOptions::new(t)
        }),
        ("hinge", |t, _, h| TwoBoneOptions {
            hinge: Some(h),
            ..TwoBoneOptions::new(t)
        }),
        ("full", |t, p, h| TwoBoneOptions {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(p),
                twist: 0.1,
            },
            soften: 0.95,
            hinge: Some(h),
            end_rotation: Some((Quat::from_rotation_x(0.2), 1.0)),
            weight: 0.9,
            ..TwoBoneOptions::new(t)
        }),
    ];
    let mut group = c.benchmark_group("two_bone_core");
    group.throughput(Throughput::Elements(CASES as u64));
    for (name, build) in variants {
        group.bench_function(name, |b| {
            b.iter(|| {
                for (m, t, p) in &inputs {
                    let opts = build(*t, *p, hinge);
                    black_box(solve_core(&m[0], &m[1], &m[2], black_box(&opts)).ok());
                }
            })
        });
    }
    // `full` through solve_core_batch: the same 4,096 legs and options,
    // eight lanes at a time, in one call for all of them.
    let full = variants[3].1;
    let chains: Vec<TwoBoneCoreInput> = inputs
        .iter()
        .map(|(m, t, p)| TwoBoneCoreInput {
            start: m[0],
            mid: m[1],
            end: m[2],
            opts: full(*t, *p, hinge),
        })
        .collect();
    let mut out = vec![Err(IkError::NonFinite { what: "unset" }); chains.len()];
    group.bench_function("full_batched", |b| {
        b.iter(|| {
            solve_core_batch(black_box(&chains), &mut out);
            black_box(&out);
        })
    });
    group.finish();
}

/// `solve_core_batch` against the loop of `solve_core` it replaces, per
/// option set: the same 4,096 legs as `two_bone_core`, the options built
/// once into the chains both sides read, every result written to the same
/// output slice. `mixed` cycles through the other sets chain by chain.
fn two_bone_core_sets<M: Measurement>(c: &mut Criterion<M>) {
    let skeleton = leg_skeleton();
    let cases = leg_cases(&skeleton);
    let hinge = HingeLimit::new(Vec3::X, -2.6, 0.0);
    type Build = fn(Vec3, Vec3, HingeLimit) -> TwoBoneOptions;
    let sets: [(&str, Build); 9] = [
        ("minimal", |t, _, _| TwoBoneOptions::new(t)),
        ("pose_preserving", |t, _, _| TwoBoneOptions {
            knee: KneeStrategy::PosePreserving,
            ..TwoBoneOptions::new(t)
        }),
        ("pole", |t, p, _| TwoBoneOptions {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(p),
                twist: 0.0,
            },
            ..TwoBoneOptions::new(t)
        }),
        ("pole_soften", |t, p, _| TwoBoneOptions {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(p),
                twist: 0.1,
            },
            soften: 0.95,
            ..TwoBoneOptions::new(t)
        }),
        ("pole_weight", |t, p, _| TwoBoneOptions {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(p),
                twist: 0.1,
            },
            weight: 0.9,
            ..TwoBoneOptions::new(t)
        }),
        ("pole_end_rotation", |t, p, _| TwoBoneOptions {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(p),
                twist: 0.1,
            },
            end_rotation: Some((Quat::from_rotation_x(0.2), 1.0)),
            ..TwoBoneOptions::new(t)
        }),
        ("minimal_hinge", |t, _, h| TwoBoneOptions {
            hinge: Some(h),
            ..TwoBoneOptions::new(t)
        }),
        ("pole_hinge", |t, p, h| TwoBoneOptions {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(p),
                twist: 0.0,
            },
            hinge: Some(h),
            ..TwoBoneOptions::new(t)
        }),
        ("full", |t, p, h| TwoBoneOptions {
            knee: KneeStrategy::Pole {
                pole: Pole::Direction(p),
                twist: 0.1,
            },
            soften: 0.95,
            hinge: Some(h),
            end_rotation: Some((Quat::from_rotation_x(0.2), 1.0)),
            weight: 0.9,
            ..TwoBoneOptions::new(t)
        }),
    ];
    let chains_for = |pick: &dyn Fn(usize) -> Build| -> Vec<TwoBoneCoreInput> {
        cases
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let m = |j: usize| Affine3A::from_mat4(c.models[j]);
                TwoBoneCoreInput {
                    start: m(1),
                    mid: m(2),
                    end: m(3),
                    opts: pick(i)(c.target, c.pole, hinge),
                }
            })
            .collect()
    };
    let mut group = c.benchmark_group("two_bone_core_sets");
    group.throughput(Throughput::Elements(CASES as u64));
    let mut out = vec![Err(IkError::NonFinite { what: "unset" }); CASES];
    let mut runs: Vec<(&str, Vec<TwoBoneCoreInput>)> = sets
        .iter()
        .map(|&(name, build)| (name, chains_for(&|_| build)))
        .collect();
    runs.push(("mixed", chains_for(&|i| sets[i % sets.len()].1)));
    for (name, chains) in &runs {
        group.bench_function(format!("{name}/scalar"), |b| {
            b.iter(|| {
                for (c, o) in black_box(chains).iter().zip(out.iter_mut()) {
                    *o = solve_core(&c.start, &c.mid, &c.end, &c.opts);
                }
                black_box(&out);
            })
        });
        group.bench_function(format!("{name}/batched"), |b| {
            b.iter(|| {
                solve_core_batch(black_box(chains), &mut out);
                black_box(&out);
            })
        });
    }
    group.finish();
}

fn two_bone_math<M: Measurement>(c: &mut Criterion<M>) {
    let skeleton = leg_skeleton();
    let cases = leg_cases(&skeleton);
    let points: Vec<[Vec3; 5]> = cases
        .iter()
        .map(|c| {
            let p = |j: usize| c.models[j].w_axis.truncate();
            [p(1), p(2), p(3), c.target, p(2) - p(1)]
        })
        .collect();
    let mut batches = Vec::new();
    for chunk in points.chunks(LANES) {
        let mut b = TwoBoneBatch::default();
        for (i, p) in chunk.iter().enumerate() {
            b.start.set(i, p[0]);
            b.mid.set(i, p[1]);
            b.end.set(i, p[2]);
            b.target.set(i, p[3]);
            b.hint.set(i, p[4]);
            b.soften[i] = 0.95;
        }
        batches.push(b);
    }
    let mut group = c.benchmark_group("two_bone_math");
    group.throughput(Throughput::Elements(CASES as u64));
    group.bench_function("scalar", |b| {
        b.iter(|| {
            for p in &points {
                black_box(solve_model_space(p[0], p[1], p[2], p[3], p[4], 0.95));
            }
        })
    });
    let mut out = TwoBoneBatchOut::default();
    group.bench_function("batched", |b| {
        b.iter(|| {
            for batch in &batches {
                solve_batch(black_box(batch), &mut out);
                black_box(&out);
            }
        })
    });
    group.finish();
}

fn chain(n: usize) -> (Skeleton, Pose, Vec<Mat4>, Vec3) {
    let mut rng = Lcg(42 + n as u64);
    let defs = (0..n)
        .map(|k| JointDef {
            name: format!("j{k}"),
            parent: k.checked_sub(1),
            rest: Transform::new(
                if k == 0 { Vec3::ZERO } else { Vec3::Y * 0.25 },
                rng.rotation(0.4),
                Vec3::ONE,
            ),
            inverse_bind: Mat4::IDENTITY,
        })
        .collect();
    let s = Skeleton::new(defs).unwrap();
    let pose = s.rest_pose();
    let mut models = vec![Mat4::IDENTITY; n];
    local_to_model(&s, &pose.locals, &mut models);
    let target = models[0].w_axis.truncate() + Vec3::new(0.3, 0.2, 0.1) * (n as f32 * 0.25);
    (s, pose, models, target)
}

/// Iterations per iterative solve in the benchmarks.
const ITERATIONS: u32 = 8;

fn iterative<M: Measurement>(c: &mut Criterion<M>) {
    let mut group = c.benchmark_group("iterative");
    for n in [4usize, 8, 16] {
        let (s, pose, models, target) = chain(n);
        let (mut p, mut m) = (pose.clone(), models.clone());
        let ccd = CcdIk {
            start: 0,
            end: n - 1,
            target,
            limits: &[],
            max_step: 0.5,
            tolerance: 0.0,
            max_iterations: ITERATIONS,
        };
        group.bench_function(format!("ccd/{n}"), |b| {
            b.iter(|| {
                p.locals.copy_from_slice(&pose.locals);
                m.copy_from_slice(&models);
                black_box(ccd.solve(&s, &mut p, &mut m).ok())
            })
        });
        let fabrik = FabrikIk {
            start: 0,
            end: n - 1,
            target,
            pole: None,
            cones: &[],
            tolerance: 0.0,
            max_iterations: ITERATIONS,
        };
        group.bench_function(format!("fabrik/{n}"), |b| {
            b.iter(|| {
                p.locals.copy_from_slice(&pose.locals);
                m.copy_from_slice(&models);
                black_box(fabrik.solve(&s, &mut p, &mut m).ok())
            })
        });
    }
    group.finish();
}

/// The benchmark thread's CPU time in nanoseconds: time it actually ran,
/// whoever else shares the cores.
struct ThreadTime;

impl ThreadTime {
    fn now() -> u64 {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat")
            .expect("IK_BENCH_CLOCK=thread needs Linux's /proc/thread-self/schedstat");
        text.split_whitespace()
            .next()
            .and_then(|t| t.parse().ok())
            .expect("schedstat starts with the run time in nanoseconds")
    }
}

impl Measurement for ThreadTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        Self::now()
    }
    fn end(&self, start: u64) -> u64 {
        Self::now().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        // Nanoseconds, like wall-clock time: the same units and scaling.
        WallTime.formatter()
    }
}

fn run<M: Measurement>(mut c: Criterion<M>) {
    two_bone(&mut c);
    two_bone_core(&mut c);
    two_bone_core_sets(&mut c);
    two_bone_math(&mut c);
    iterative(&mut c);
    c.final_summary();
}

fn main() {
    let config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
        .sample_size(20)
        .configure_from_args();
    if std::env::var("IK_BENCH_CLOCK").is_ok_and(|v| v == "thread") {
        run(config.with_measurement(ThreadTime));
    } else {
        run(config);
    }
}
