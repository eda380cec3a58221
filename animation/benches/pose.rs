//! Per-character cost of the runtime pose pipeline: sample a clip with a
//! cursor at sequential 60 Hz times, build model matrices, build the skinning
//! palette.
//!
//! Synthetic skeletons: a 19-joint humanoid (CesiumMan's joint count) and a
//! 60-joint tree (a humanoid with fingers). Clips animate translation,
//! rotation and scale of every joint, as glTF exporters write them, at 30
//! keys per second over 2 seconds, once with linear and once with cubic
//! spline keys. Each benchmark iteration is one character for one frame, so
//! the reported time is the cost per character per frame.
//!
//! The real CesiumMan from the shared assets runs the same frame
//! (`frame/cesium_man`).
//!
//! Run: `cargo bench -p animation --bench pose`.

use std::hint::black_box;
use std::time::Duration;

use animation::{
    Clip, Interpolation, JointDef, SamplingCursor, Skeleton, Track, Transform, Wrap,
    local_to_model, palette, sample, sample_at,
};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Mat4, Quat, Vec3};

/// Keys per second in the synthetic clips (a common export rate).
const KEYS_PER_SECOND: f32 = 30.0;
/// Length of the synthetic clips in seconds.
const CLIP_SECONDS: f32 = 2.0;
/// Frame step of the simulated playback (60 Hz).
const FRAME_DT: f32 = 1.0 / 60.0;

/// A 19-joint humanoid: hips, spine, chest, neck, head, two arms of four
/// joints (shoulder to hand) and two legs of three (thigh to foot).
fn humanoid19() -> Skeleton {
    let mut parents: Vec<Option<usize>> = vec![None, Some(0), Some(1), Some(2), Some(3)];
    for _ in 0..2 {
        let start = parents.len();
        parents.extend([Some(2), Some(start), Some(start + 1), Some(start + 2)]);
    }
    for _ in 0..2 {
        let start = parents.len();
        parents.extend([Some(0), Some(start), Some(start + 1)]);
    }
    skeleton(parents)
}

/// A 60-joint tree whose joints branch off earlier ones, as deep and bushy
/// as a humanoid with fingers.
fn tree60() -> Skeleton {
    let parents = (0..60usize)
        .map(|i| (i > 0).then(|| (i - 1) * 3 / 4))
        .collect();
    skeleton(parents)
}

fn skeleton(parents: Vec<Option<usize>>) -> Skeleton {
    let joints = parents
        .into_iter()
        .enumerate()
        .map(|(i, parent)| {
            let rest = Transform::new(
                Vec3::new(0.02 * i as f32, 0.1, 0.0),
                Quat::from_rotation_z(0.05 * i as f32),
                Vec3::ONE,
            );
            JointDef {
                name: format!("joint{i}"),
                parent,
                rest,
                inverse_bind: Mat4::from_translation(Vec3::new(0.0, -0.1 * i as f32, 0.0)),
            }
        })
        .collect();
    Skeleton::new(joints).expect("synthetic skeleton is valid")
}

/// A clip animating T, R and S of every joint with smooth pseudo-motion.
fn clip(joints: usize, interpolation: Interpolation) -> Clip {
    let keys = (KEYS_PER_SECOND * CLIP_SECONDS) as usize + 1;
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / KEYS_PER_SECOND).collect();
    let per_key = if interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let expand = |values: Vec<Vec3>| -> Vec<Vec3> {
        values
            .into_iter()
            .flat_map(|v| {
                if per_key == 3 {
                    vec![v * 0.1, v, v * 0.1]
                } else {
                    vec![v]
                }
            })
            .collect()
    };
    let mut translations = Vec::new();
    let mut rotations = Vec::new();
    let mut scales = Vec::new();
    for j in 0..joints {
        let phase = j as f32 * 0.37;
        let wave = |k: usize| (k as f32 * 0.2 + phase).sin();
        translations.push(Track {
            joint: j as u16,
            interpolation,
            times: times.clone(),
            values: expand(
                (0..keys)
                    .map(|k| Vec3::new(0.0, 0.1 + 0.01 * wave(k), 0.0))
                    .collect(),
            ),
        });
        scales.push(Track {
            joint: j as u16,
            interpolation,
            times: times.clone(),
            values: expand(
                (0..keys)
                    .map(|k| Vec3::splat(1.0 + 0.01 * wave(k)))
                    .collect(),
            ),
        });
        let qs: Vec<Quat> = (0..keys)
            .map(|k| Quat::from_euler(glam::EulerRot::XYZ, 0.5 * wave(k), 0.3 * wave(k + 7), 0.1))
            .collect();
        let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        rotations.push(Track {
            joint: j as u16,
            interpolation,
            times: times.clone(),
            values: if per_key == 3 {
                qs.iter().flat_map(|&q| [zero, q, zero]).collect()
            } else {
                qs
            },
        });
    }
    let clip = Clip {
        name: format!("synthetic-{joints}"),
        duration: CLIP_SECONDS,
        translations,
        rotations,
        scales,
    };
    animation::validate_clip(&clip, joints).expect("synthetic clip is valid");
    clip
}

fn bench_pose(c: &mut Criterion) {
    for (skel_name, skel) in [("humanoid19", humanoid19()), ("tree60", tree60())] {
        let n = skel.len();
        let mut models = vec![Mat4::IDENTITY; n];
        let mut pal = vec![Mat4::IDENTITY; n];
        for (interp_name, interpolation) in [
            ("linear", Interpolation::Linear),
            ("cubic", Interpolation::CubicSpline),
        ] {
            let clip = clip(n, interpolation);
            let mut locals = skel.rest_locals().to_vec();

            let mut cursor = SamplingCursor::new(&clip);
            let mut time = 0.0f32;
            c.bench_function(&format!("frame/{skel_name}/{interp_name}"), |b| {
                b.iter(|| {
                    time = (time + FRAME_DT) % CLIP_SECONDS;
                    sample(&clip, time, Wrap::Loop, &mut cursor, &mut locals);
                    local_to_model(&skel, &locals, &mut models);
                    palette(&models, skel.inverse_bind(), &mut pal).unwrap();
                    black_box(&pal);
                })
            });

            let mut cursor = SamplingCursor::new(&clip);
            let mut time = 0.0f32;
            c.bench_function(&format!("sample_cursor/{skel_name}/{interp_name}"), |b| {
                b.iter(|| {
                    time = (time + FRAME_DT) % CLIP_SECONDS;
                    sample(&clip, black_box(time), Wrap::Loop, &mut cursor, &mut locals);
                    black_box(&locals);
                })
            });

            let mut time = 0.0f32;
            c.bench_function(&format!("sample_at/{skel_name}/{interp_name}"), |b| {
                b.iter(|| {
                    time = (time + FRAME_DT) % CLIP_SECONDS;
                    sample_at(&clip, black_box(time), Wrap::Loop, &mut locals);
                    black_box(&locals);
                })
            });
        }

        let locals = skel.rest_locals().to_vec();
        c.bench_function(&format!("local_to_model/{skel_name}"), |b| {
            b.iter(|| {
                local_to_model(&skel, black_box(&locals), &mut models);
                black_box(&models);
            })
        });
        c.bench_function(&format!("palette/{skel_name}"), |b| {
            b.iter(|| {
                palette(black_box(&models), skel.inverse_bind(), &mut pal).unwrap();
                black_box(&pal);
            })
        });
    }
}

/// The real CesiumMan (19 joints, 57 LINEAR channels over 2 s), imported
/// from the shared assets: one character for one frame, sampled with a
/// cursor at 60 Hz.
fn bench_cesium_man(c: &mut Criterion) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/assets/third_party/gltf/CesiumMan/CesiumMan.glb");
    let model = animation::gltf_import::load(&path).expect("CesiumMan imports");
    let skin = &model.skins[0];
    let skel = &skin.skeleton;
    let clip = &skin.clips[0];
    let n = skel.len();
    let mut locals = skel.rest_locals().to_vec();
    let mut models = vec![Mat4::IDENTITY; n];
    let mut pal = vec![Mat4::IDENTITY; n];
    let mut cursor = SamplingCursor::new(clip);
    let mut time = 0.0f32;
    c.bench_function("frame/cesium_man", |b| {
        b.iter(|| {
            time = (time + FRAME_DT) % clip.duration;
            sample(clip, time, Wrap::Loop, &mut cursor, &mut locals);
            local_to_model(skel, &locals, &mut models);
            palette(&models, skel.inverse_bind(), &mut pal).unwrap();
            black_box(&pal);
        })
    });
}

criterion_group! {
    name = benches;
    // Short runs: the figures are stable to a few percent on an idle machine
    // and the suite stays under a minute and a half.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = bench_pose, bench_cesium_man
}
criterion_main!(benches);
