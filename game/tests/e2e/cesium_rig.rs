//! Measures CesiumMan's skeleton and walk clip from the model itself and
//! checks that our rig file for it (`assets/rigs/cesium_man.rig.ron`) agrees:
//! the forward direction, the knee and (per arm) elbow hinge axes, the ankle's height
//! above the sole and the ground distance of one walk cycle. The rig's
//! numbers were taken from this measurement, not guessed.

use std::path::{Path, PathBuf};

use animation::gltf_import::{self, ImportedModel};
use animation::{Skeleton, Transform, Wrap, local_to_model, palette, sample_at, skin};
use game::character::rig::RigFile;
use glam::{Mat4, Vec3};

/// Samples taken over the walk cycle.
const SAMPLES: usize = 200;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cesium() -> ImportedModel {
    gltf_import::load(&root().join("../shared/assets/third_party/gltf/CesiumMan/CesiumMan.glb"))
        .expect("the shared CesiumMan model loads")
}

fn rig() -> RigFile {
    RigFile::load(&root().join("assets/rigs/cesium_man.rig.ron")).expect("the rig file parses")
}

fn models_at(skel: &Skeleton, locals: &[Transform]) -> Vec<Mat4> {
    let mut m = vec![Mat4::IDENTITY; skel.len()];
    local_to_model(skel, locals, &mut m);
    m
}

/// Model-space joint matrices at each sample of the clip.
fn cycle(model: &ImportedModel) -> (f32, Vec<Vec<Mat4>>) {
    let s = &model.skins[0];
    let clip = &s.clips[0];
    let mut all = Vec::new();
    for i in 0..SAMPLES {
        let mut locals = s.skeleton.rest_locals().to_vec();
        sample_at(
            clip,
            clip.duration * i as f32 / SAMPLES as f32,
            Wrap::Loop,
            &mut locals,
        );
        all.push(models_at(&s.skeleton, &locals));
    }
    (clip.duration, all)
}

fn pos(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

/// The hinge axis of a mid joint in its own frame, measured where the clip
/// bends the limb most: the axis `upper × lower` about which a positive
/// rotation turns the lower bone further from the upper one's line, taken
/// into the mid joint's frame. Also returns that largest bend, radians.
fn hinge_axis(models: &[Vec<Mat4>], start: usize, mid: usize, end: usize) -> (Vec3, f32) {
    let bend = |m: &[Mat4]| {
        let a = (pos(&m[mid]) - pos(&m[start])).normalize();
        let b = (pos(&m[end]) - pos(&m[mid])).normalize();
        a.dot(b).clamp(-1.0, 1.0).acos()
    };
    let most = (0..models.len())
        .max_by(|&a, &b| bend(&models[a]).total_cmp(&bend(&models[b])))
        .unwrap();
    let m = &models[most];
    let upper = pos(&m[mid]) - pos(&m[start]);
    let lower = pos(&m[end]) - pos(&m[mid]);
    let axis_model = upper.cross(lower).normalize();
    let (_, r, _) = m[mid].to_scale_rotation_translation();
    ((r.inverse() * axis_model).normalize(), bend(m))
}

struct Measured {
    forward: Vec3,
    knee_axes: [Vec3; 2],
    elbow_axes: [Vec3; 2],
    foot_height: [f32; 2],
    cycle_distance: [f32; 2],
    stance_floor: [f32; 2],
    /// The range over the walk of the thigh's lean along the rig's knee
    /// hinge axis (the cosine between them): constant for a knee that turns
    /// about that axis alone.
    thigh_lean: [(f32, f32); 2],
    /// The same for each upper arm along its elbow's axis in the rig file.
    upper_arm_lean: [(f32, f32); 2],
    /// Each ankle's height above its lowest in the walk, per sample.
    ankle_lift: [Vec<f32>; 2],
    /// The walk's duration, seconds.
    duration: f32,
}

fn measure() -> Measured {
    let model = cesium();
    let rig = rig();
    let s = &model.skins[0];
    let skel = &s.skeleton;
    let j = |n: &str| skel.joint_index(n).unwrap_or_else(|| panic!("joint {n}"));
    let (duration, models) = cycle(&model);
    let dt = duration / SAMPLES as f32;
    let pelvis = j(&rig.pelvis);

    let mut knee_axes = [Vec3::ZERO; 2];
    let mut elbow_axes = [Vec3::ZERO; 2];
    let mut foot_height = [0.0; 2];
    let mut cycle_distance = [0.0; 2];
    let mut stance_floor = [0.0; 2];
    let mut thigh_lean = [(0.0, 0.0); 2];
    let mut upper_arm_lean = [(0.0, 0.0); 2];
    let mut ankle_lift = [Vec::new(), Vec::new()];
    let mut rel_velocity = Vec3::ZERO;

    // Rest pose, skinned: the lowest vertex bound mostly to each foot.
    let rest = models_at(skel, skel.rest_locals());
    let mut pal = vec![Mat4::IDENTITY; skel.len()];
    palette(&rest, skel.inverse_bind(), &mut pal).unwrap();
    let mesh = &model.meshes[0];
    let mut skinned = vec![Vec3::ZERO; mesh.positions.len()];
    skin(
        &pal,
        &mesh.positions,
        &[],
        &mesh.joints,
        &mesh.weights,
        &mut skinned,
        &mut [],
    )
    .unwrap();

    for (side, leg) in rig.legs.iter().enumerate() {
        let (hip, knee, ankle) = (j(&leg.hip), j(&leg.knee), j(&leg.ankle));
        let foot_joints: Vec<usize> = (0..skel.len())
            .filter(|&k| k == ankle || skel.is_descendant_of(k, ankle))
            .collect();
        let sole = skinned
            .iter()
            .zip(&mesh.joints)
            .zip(&mesh.weights)
            .filter(|((_, js), ws)| {
                let top = (0..4).max_by(|&a, &b| ws[a].total_cmp(&ws[b])).unwrap();
                foot_joints.contains(&(js[top] as usize))
            })
            .map(|((p, _), _)| p.y)
            .fold(f32::INFINITY, f32::min);
        foot_height[side] = pos(&rest[ankle]).y - sole;
        eprintln!(
            "leg {side}: rest ankle {:.3} m, sole {sole:.3} m",
            pos(&rest[ankle]).y
        );
        knee_axes[side] = hinge_axis(&models, hip, knee, ankle).0;
        let axis = Vec3::from(rig.knee_hinge_axis).normalize();
        let leans = models.iter().map(|m| {
            let (_, r, _) = m[knee].to_scale_rotation_translation();
            (pos(&m[knee]) - pos(&m[hip])).normalize().dot(r * axis)
        });
        thigh_lean[side] = leans.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), l| {
            (lo.min(l), hi.max(l))
        });

        // Stance: the samples where this ankle is within 1 cm of its lowest.
        let ys: Vec<f32> = models.iter().map(|m| pos(&m[ankle]).y).collect();
        let min_y = ys.iter().copied().fold(f32::INFINITY, f32::min);
        stance_floor[side] = min_y;
        ankle_lift[side] = ys.iter().map(|y| y - min_y).collect();
        let mut v = Vec3::ZERO;
        let mut n = 0;
        for i in 0..SAMPLES {
            let k = (i + 1) % SAMPLES;
            if ys[i] < min_y + 0.01 && ys[k] < min_y + 0.01 {
                let foot = pos(&models[k][ankle]) - pos(&models[i][ankle]);
                let body = pos(&models[k][pelvis]) - pos(&models[i][pelvis]);
                v += (body - foot) / dt;
                n += 1;
            }
        }
        let v = v / n.max(1) as f32;
        rel_velocity += v;
        cycle_distance[side] = Vec3::new(v.x, 0.0, v.z).length() * duration;
    }
    // The elbows, by name (the rig file must name the same joints).
    let arm_names = [
        [
            "Skeleton_arm_joint_L__4_",
            "Skeleton_arm_joint_L__3_",
            "Skeleton_arm_joint_L__2_",
        ],
        [
            "Skeleton_arm_joint_R",
            "Skeleton_arm_joint_R__2_",
            "Skeleton_arm_joint_R__3_",
        ],
    ];
    for (a, [shoulder, elbow, wrist]) in rig.arms.iter().zip(arm_names) {
        assert_eq!([&a.shoulder, &a.elbow, &a.wrist], [shoulder, elbow, wrist]);
    }
    for (side, [shoulder, elbow, wrist]) in arm_names.into_iter().enumerate() {
        let (axis, most) = hinge_axis(&models, j(shoulder), j(elbow), j(wrist));
        eprintln!("elbow {side}: most bend {:.1}°", most.to_degrees());
        elbow_axes[side] = axis;
        let rig_axis = rig.arms[side]
            .elbow_hinge_axis
            .map_or(axis, |a| Vec3::from(a).normalize());
        let leans = models.iter().map(|m| {
            let (_, r, _) = m[j(elbow)].to_scale_rotation_translation();
            (pos(&m[j(elbow)]) - pos(&m[j(shoulder)]))
                .normalize()
                .dot(r * rig_axis)
        });
        upper_arm_lean[side] = leans.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), l| {
            (lo.min(l), hi.max(l))
        });
    }
    let forward = Vec3::new(rel_velocity.x, 0.0, rel_velocity.z).normalize();
    let m = Measured {
        forward,
        knee_axes,
        elbow_axes,
        foot_height,
        cycle_distance,
        stance_floor,
        thigh_lean,
        upper_arm_lean,
        ankle_lift,
        duration,
    };
    eprintln!(
        "CesiumMan measured: forward {:.3}, knee axes {:.3} {:.3}, elbow axes {:.3} {:.3}, foot height {:.3?} m, cycle distance {:.3?} m, lowest ankle in the walk {:.3?} m, thigh lean along the knee axis {:.3?}, upper arm lean along the elbow axis {:.3?}",
        m.forward,
        m.knee_axes[0],
        m.knee_axes[1],
        m.elbow_axes[0],
        m.elbow_axes[1],
        m.foot_height,
        m.cycle_distance,
        m.stance_floor,
        m.thigh_lean,
        m.upper_arm_lean
    );
    m
}

fn v3(t: (f32, f32, f32)) -> Vec3 {
    Vec3::new(t.0, t.1, t.2).normalize()
}

#[test]
fn the_rig_file_matches_the_measured_model() {
    let m = measure();
    let rig = rig();
    assert!(
        v3(rig.forward).dot(m.forward) > 0.95,
        "forward {}",
        m.forward
    );
    for a in m.knee_axes {
        assert!(v3(rig.knee_hinge_axis).dot(a) > 0.9, "knee axis {a}");
    }
    // The two elbows bend about different local axes, so no one
    // elbow_hinge_axis fits both: each arm names its own, the measured one.
    assert!(
        m.elbow_axes[0].dot(m.elbow_axes[1]) < 0.8,
        "{:?}",
        m.elbow_axes
    );
    assert_eq!(rig.arms.len(), 2);
    for (arm, measured) in rig.arms.iter().zip(m.elbow_axes) {
        let axis = arm.elbow_hinge_axis.expect("each arm names its elbow axis");
        assert!(v3(axis).dot(measured) > 0.99, "elbow axis {measured}");
    }
    // He has no climb clip: the rig asks for a generated one.
    assert!(rig.procedural_climb && rig.clips.climb.is_empty());
    for h in m.foot_height {
        assert!((rig.foot_height - h).abs() < 0.015, "foot height {h}");
    }
    let d = 0.5 * (m.cycle_distance[0] + m.cycle_distance[1]);
    assert!(
        (rig.walk_cycle_distance / d - 1.0).abs() < 0.08,
        "cycle {d}"
    );
    // His knees are not pure hinges: the thigh's lean along the knee axis
    // changes through the walk by more than 0.02 (0.004 to 0.048 on the left
    // leg, -0.095 to -0.001 on the right),
    // so the rig says so and foot IK does not solve them as hinges.
    for (lo, hi) in m.thigh_lean {
        assert!(hi - lo > 0.02, "thigh lean {lo}..{hi}");
    }
    assert!(!rig.knee_pure_hinge);
    // Nor are his elbows: the upper arm's lean along the elbow axis changes
    // through the walk by 0.18 (left) and 0.13 (right), so the rig says so
    // and the ladder IK does not solve them as hinges (solved as hinges, a
    // shoulder turned half a turn in one frame as he stepped onto a ladder,
    // 200 rad/s).
    for (lo, hi) in m.upper_arm_lean {
        assert!(hi - lo > 0.05, "upper arm lean {lo}..{hi}");
    }
    assert!(!rig.elbow_pure_hinge);
    // Standing holds the frame of the walk where both feet are lowest (the
    // walk has no still pose, nor a frame with both feet flat: at its best
    // one ankle is 0.107 m above its lowest, its heel lifting; foot IK sets
    // that foot down). The rig's time is within 1 cm of that best frame.
    let both = |i: usize| m.ankle_lift[0][i].max(m.ankle_lift[1][i]);
    let best = (0..SAMPLES)
        .min_by(|&a, &b| both(a).total_cmp(&both(b)))
        .unwrap();
    eprintln!(
        "both feet lowest at {:.3} s ({:.4} m)",
        m.duration * best as f32 / SAMPLES as f32,
        both(best)
    );
    let hold = rig
        .idle_time
        .expect("the rig holds a frame of the walk to stand");
    let i = (hold / m.duration * SAMPLES as f32).round() as usize % SAMPLES;
    assert!(
        both(i) < both(best) + 0.01,
        "idle_time {hold}: an ankle is {} m up",
        both(i)
    );
    // The only clip is the walk; he runs with the knight's run retargeted,
    // at the stride the rig inference measures for it on his legs.
    assert_eq!(rig.clips.run, "knight run");
    let mut model = cesium();
    game::character::humanoid::reattach::feet(&mut model);
    let inferred = game::character::humanoid::infer_model(&model).unwrap();
    assert!((rig.run_cycle_distance - inferred.rig.run_cycle_distance).abs() < 0.05);
}
