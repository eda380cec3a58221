//! Feet that hang off the root instead of the shin, as IK-controller rigs
//! export them (the foot bone is a child of the root or of a control joint,
//! so that an animator can pin it to the floor).
//!
//! Such a model shows no leg chain of three joints: the thigh and the shin
//! end in nothing. When the rest pose shows no legs as it is, each shin
//! that ends a chain is paired with the skinned joint, outside its subtree,
//! that continues it — the one at the shin's end, about a thigh's length on
//! along the thigh-to-shin line (within [`FOOT_MAX_ANGLE_DEG`], at
//! [`FOOT_MIN_ALONG`]–[`FOOT_MAX_ALONG`] thigh lengths from the knee). When
//! two such pairs make legs, each foot is re-parented under its shin, the
//! skeleton re-sorted parent-before-child, and everything that names joints
//! (the skin's joint nodes, every vertex's joints, every clip's tracks)
//! renumbered. The foot's rest and animated transforms are re-expressed
//! relative to the shin (its clips resampled at [`RESAMPLE_HZ`]), so every
//! joint's model matrix, and so every skinned vertex, is exactly what it was
//! at rest and at every resampled key. The leg is then solved to the
//! shin's end — where the foot joint sits — and the foot follows the shin,
//! as a leg whose foot was a child of the shin would.

use animation::gltf_import::ImportedModel;
use animation::{Clip, Interpolation, Skeleton, Track, Transform, Wrap, local_to_model, sample_at};
use glam::{Mat4, Quat, Vec3};

use super::shape::{Body, MeshView};

/// The largest angle between the thigh-to-shin line and the shin-to-foot
/// line, degrees: a leg at rest stands nearly straight (a knee bent more
/// than this at rest is not a standing rest pose).
pub const FOOT_MAX_ANGLE_DEG: f32 = 35.0;
/// The least distance from the shin joint to the foot, in thigh lengths (a
/// shin is about as long as a thigh).
pub const FOOT_MIN_ALONG: f32 = 0.5;
/// The largest distance from the shin joint to the foot, in thigh lengths.
pub const FOOT_MAX_ALONG: f32 = 1.6;
/// Keys per second of a re-parented foot's resampled tracks (the rate the
/// retargeted clips use; a walk's fastest foot turn spans several keys).
pub const RESAMPLE_HZ: f32 = 60.0;

/// Re-parents every foot hung off the root under its shin, in every skin
/// whose rest pose shows no legs as it is (see the module documentation);
/// returns one sentence per foot re-parented, for `ironstep rig`.
pub fn feet(model: &mut ImportedModel) -> Vec<String> {
    let mut notes = Vec::new();
    for s in 0..model.skins.len() {
        let skel = &model.skins[s].skeleton;
        let views: Vec<MeshView<'_>> = model
            .meshes
            .iter()
            .filter(|m| m.skin == s)
            .map(|m| (&m.positions[..], &m.joints[..], &m.weights[..]))
            .collect();
        let body = Body::new(skel, &views);
        if body.legs().is_some() {
            continue;
        }
        let pairs = pairs(&body, &model.meshes, s);
        if pairs.len() < 2 {
            continue;
        }
        let Some(skin) = reparented(model, s, &pairs) else {
            continue;
        };
        let (skin, order) = skin;
        let moved_meshes: Vec<_> = model
            .meshes
            .iter()
            .filter(|m| m.skin == s)
            .map(|m| remap_joints(&m.joints, &order))
            .collect();
        let views: Vec<MeshView<'_>> = model
            .meshes
            .iter()
            .filter(|m| m.skin == s)
            .zip(&moved_meshes)
            .map(|(m, js)| (&m.positions[..], &js[..], &m.weights[..]))
            .collect();
        if Body::new(&skin.skeleton, &views).legs().is_none() {
            continue;
        }
        let old = &model.skins[s].skeleton;
        for &(shin, foot) in &pairs {
            notes.push(format!(
                "foot '{}' hangs off '{}', not its shin '{}': re-parented under the shin, so the leg is solved to the shin's end and the foot follows it",
                old.name(foot),
                old.parent(foot).map_or("(the root)", |p| old.name(p)),
                old.name(shin),
            ));
        }
        let mut moved = moved_meshes.into_iter();
        for m in model.meshes.iter_mut().filter(|m| m.skin == s) {
            m.joints = moved.next().expect("one list per mesh of the skin");
        }
        model.skins[s] = skin;
    }
    notes
}

/// Shin and foot pairs: each chain-ending shin with the skinned joint that
/// continues it.
fn pairs(
    body: &Body<'_>,
    meshes: &[animation::gltf_import::SkinnedMesh],
    s: usize,
) -> Vec<(usize, usize)> {
    let skel = body.skeleton;
    let n = skel.len();
    let mut skinned = vec![false; n];
    for m in meshes.iter().filter(|m| m.skin == s) {
        for (js, ws) in m.joints.iter().zip(&m.weights) {
            for (j, w) in js.iter().zip(ws) {
                if *w > 0.0 && usize::from(*j) < n {
                    skinned[usize::from(*j)] = true;
                }
            }
        }
    }
    // Whether anything at or below a joint moves vertices.
    let mut below = skinned.clone();
    for j in (0..n).rev() {
        if below[j]
            && let Some(p) = skel.parent(j)
        {
            below[p] = true;
        }
    }
    let max_angle = FOOT_MAX_ANGLE_DEG.to_radians().cos();
    let mut out: Vec<(usize, usize, f32)> = Vec::new();
    for shin in 0..n {
        let Some(thigh) = skel.parent(shin) else {
            continue;
        };
        if body.helper[shin] || body.helper[thigh] || !skinned[shin] {
            continue;
        }
        // The shin ends its chain: nothing below it moves vertices.
        if (shin + 1..skel.subtree_end(shin)).any(|c| skinned[c]) {
            continue;
        }
        let along = body.pos(shin) - body.pos(thigh);
        let l = along.length();
        if l.is_nan() || l <= 0.0 {
            continue;
        }
        let best = (0..n)
            .filter(|&f| {
                f != shin
                    && below[f]
                    && skinned[f]
                    && !body.helper[f]
                    && !skel.is_descendant_of(f, thigh)
                    && !skel.is_descendant_of(thigh, f)
                    && f != thigh
            })
            .filter_map(|f| {
                let v = body.pos(f) - body.pos(shin);
                let d = v.length();
                let cos = v.dot(along) / (d * l);
                (d >= FOOT_MIN_ALONG * l && d <= FOOT_MAX_ALONG * l && cos >= max_angle)
                    .then_some((f, cos))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((foot, cos)) = best {
            out.push((shin, foot, cos));
        }
    }
    // A foot continues one shin only: the straighter pair keeps it.
    out.sort_by(|a, b| b.2.total_cmp(&a.2));
    let mut taken = vec![false; n];
    let mut pairs = Vec::new();
    for (shin, foot, _) in out {
        if !taken[foot] && !taken[shin] {
            taken[foot] = true;
            taken[shin] = true;
            pairs.push((shin, foot));
        }
    }
    pairs.sort_unstable();
    pairs
}

/// The skin `s` with each pair's foot under its shin, and the new index of
/// each old joint; `None` when the result is not a valid skeleton.
fn reparented(
    model: &ImportedModel,
    s: usize,
    pairs: &[(usize, usize)],
) -> Option<(animation::gltf_import::ImportedSkin, Vec<usize>)> {
    let skin = &model.skins[s];
    let old = &skin.skeleton;
    let n = old.len();
    let mut parent: Vec<Option<usize>> = (0..n).map(|j| old.parent(j)).collect();
    for &(shin, foot) in pairs {
        parent[foot] = Some(shin);
    }
    // Depths under the new parents (a cycle cannot arise: a foot is never
    // an ancestor of its thigh), then a stable sort by depth, as the import
    // sorts joints.
    let mut depth = vec![usize::MAX; n];
    fn depth_of(j: usize, parent: &[Option<usize>], depth: &mut [usize], guard: usize) -> usize {
        if depth[j] != usize::MAX {
            return depth[j];
        }
        let d = match parent[j] {
            Some(p) if guard > 0 => depth_of(p, parent, depth, guard - 1) + 1,
            _ => 0,
        };
        depth[j] = d;
        d
    }
    for j in 0..n {
        depth_of(j, &parent, &mut depth, n);
    }
    let mut by_new: Vec<usize> = (0..n).collect();
    by_new.sort_by_key(|&j| (depth[j], j));
    let mut order = vec![0; n];
    for (new, &old_j) in by_new.iter().enumerate() {
        order[old_j] = new;
    }
    let mut rest_models = vec![Mat4::IDENTITY; n];
    local_to_model(old, old.rest_locals(), &mut rest_models);
    let mut rest: Vec<Transform> = old.rest_locals().to_vec();
    for &(shin, foot) in pairs {
        rest[foot] = Transform::from_mat4(&(rest_models[shin].inverse() * rest_models[foot]));
    }
    let skeleton = Skeleton::from_parts(
        by_new.iter().map(|&j| old.name(j).to_string()).collect(),
        by_new
            .iter()
            .map(|&j| parent[j].map(|p| order[p]))
            .collect(),
        by_new.iter().map(|&j| rest[j]).collect(),
        by_new.iter().map(|&j| old.inverse_bind()[j]).collect(),
    )
    .ok()?;
    let clips = skin
        .clips
        .iter()
        .map(|c| reparent_clip(old, c, pairs, &order))
        .collect();
    Some((
        animation::gltf_import::ImportedSkin {
            name: skin.name.clone(),
            gltf_skin: skin.gltf_skin,
            skeleton,
            joint_nodes: by_new.iter().map(|&j| skin.joint_nodes[j]).collect(),
            clips,
        },
        order,
    ))
}

/// `clip` for the re-parented skeleton: tracks renumbered by `order`, and
/// each moved foot's tracks replaced by its transform relative to its shin,
/// resampled.
fn reparent_clip(old: &Skeleton, clip: &Clip, pairs: &[(usize, usize)], order: &[usize]) -> Clip {
    let moved = |j: u16| pairs.iter().any(|&(_, f)| usize::from(j) == f);
    let renumber = |j: u16| order[usize::from(j)] as u16;
    let mut out = Clip {
        name: clip.name.clone(),
        duration: clip.duration,
        translations: Vec::new(),
        rotations: Vec::new(),
        scales: Vec::new(),
    };
    for t in clip.translations.iter().filter(|t| !moved(t.joint)) {
        out.translations.push(Track {
            joint: renumber(t.joint),
            ..t.clone()
        });
    }
    for t in clip.rotations.iter().filter(|t| !moved(t.joint)) {
        out.rotations.push(Track {
            joint: renumber(t.joint),
            ..t.clone()
        });
    }
    for t in clip.scales.iter().filter(|t| !moved(t.joint)) {
        out.scales.push(Track {
            joint: renumber(t.joint),
            ..t.clone()
        });
    }
    let animated =
        !(clip.translations.is_empty() && clip.rotations.is_empty() && clip.scales.is_empty());
    if animated && clip.duration.is_finite() && clip.duration >= 0.0 {
        let times: Vec<f32> = if clip.duration > 0.0 {
            let keys = ((clip.duration * RESAMPLE_HZ).ceil() as usize).max(1) + 1;
            (0..keys)
                .map(|k| clip.duration * k as f32 / (keys - 1) as f32)
                .collect()
        } else {
            vec![0.0]
        };
        let mut locals = old.rest_locals().to_vec();
        let mut models = vec![Mat4::IDENTITY; old.len()];
        let mut values: Vec<(Vec<Vec3>, Vec<Quat>, Vec<Vec3>)> =
            vec![(Vec::new(), Vec::new(), Vec::new()); pairs.len()];
        for &t in &times {
            locals.copy_from_slice(old.rest_locals());
            sample_at(clip, t, Wrap::Clamp, &mut locals);
            local_to_model(old, &locals, &mut models);
            for (i, &(shin, foot)) in pairs.iter().enumerate() {
                let l = Transform::from_mat4(&(models[shin].inverse() * models[foot]));
                let (ts, rs, ss) = &mut values[i];
                // Keep consecutive rotations in one hemisphere, so that
                // linear keys turn the short way.
                let r = match rs.last() {
                    Some(prev) if prev.dot(l.rotation) < 0.0 => -l.rotation,
                    _ => l.rotation,
                };
                ts.push(l.translation);
                rs.push(r);
                ss.push(l.scale);
            }
        }
        for (i, &(_, foot)) in pairs.iter().enumerate() {
            let (ts, rs, ss) = std::mem::take(&mut values[i]);
            let joint = order[foot] as u16;
            let track = |v| Track {
                joint,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values: v,
            };
            out.translations.push(track(ts));
            out.rotations.push(Track {
                joint,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values: rs,
            });
            out.scales.push(track(ss));
        }
    }
    out.translations.sort_by_key(|t| t.joint);
    out.rotations.sort_by_key(|t| t.joint);
    out.scales.sort_by_key(|t| t.joint);
    out
}

/// Every vertex's joints renumbered by `order`.
fn remap_joints(joints: &[[u16; 4]], order: &[usize]) -> Vec<[u16; 4]> {
    joints
        .iter()
        .map(|js| js.map(|j| order.get(usize::from(j)).map_or(j, |&k| k as u16)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use animation::JointDef;
    use animation::gltf_import::{ImportedSkin, Material, SkinnedMesh};

    /// A two-legged figure whose feet hang off the root: root, pelvis, per
    /// side thigh and shin under the pelvis, and per side a foot under the
    /// root at the shin's end, each joint skinning one vertex.
    fn figure() -> ImportedModel {
        let y = |h: f32, x: f32| Transform::from_translation(Vec3::new(x, h, 0.0));
        // name, parent, local rest.
        let joints: [(&str, Option<usize>, Transform); 8] = [
            ("root", None, Transform::IDENTITY),
            ("foot_l", Some(0), y(0.1, 0.1)),
            ("pelvis", Some(0), y(1.0, 0.0)),
            ("foot_r", Some(0), y(0.1, -0.1)),
            ("thigh_l", Some(2), y(0.0, 0.1)),
            ("thigh_r", Some(2), y(0.0, -0.1)),
            ("shin_l", Some(4), y(-0.45, 0.0)),
            ("shin_r", Some(5), y(-0.45, 0.0)),
        ];
        let defs: Vec<JointDef> = joints
            .iter()
            .map(|&(n, p, r)| JointDef {
                name: n.into(),
                parent: p,
                rest: r,
                inverse_bind: Mat4::IDENTITY,
            })
            .collect();
        let mut skeleton = Skeleton::new(defs).unwrap();
        let mut models = vec![Mat4::IDENTITY; 8];
        local_to_model(&skeleton, skeleton.rest_locals(), &mut models);
        let inverse_bind: Vec<Mat4> = models.iter().map(|m| m.inverse()).collect();
        skeleton = Skeleton::from_parts(
            skeleton.names().to_vec(),
            (0..8).map(|j| skeleton.parent(j)).collect(),
            skeleton.rest_locals().to_vec(),
            inverse_bind,
        )
        .unwrap();
        let positions: Vec<Vec3> = models.iter().map(|m| m.w_axis.truncate()).collect();
        let clip = Clip {
            name: "walk".into(),
            duration: 1.0,
            translations: vec![Track {
                joint: 2,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 1.0],
                values: vec![Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.9, 0.3)],
            }],
            rotations: vec![
                Track {
                    joint: 6,
                    interpolation: Interpolation::Linear,
                    times: vec![0.0, 0.5, 1.0],
                    values: vec![
                        Quat::IDENTITY,
                        Quat::from_rotation_x(0.8),
                        Quat::from_rotation_x(0.1),
                    ],
                },
                Track {
                    joint: 1,
                    interpolation: Interpolation::Linear,
                    times: vec![0.0, 1.0],
                    values: vec![Quat::IDENTITY, Quat::from_rotation_x(-0.5)],
                },
            ],
            scales: Vec::new(),
        };
        ImportedModel {
            source: "figure.glb".into(),
            skins: vec![ImportedSkin {
                name: "figure".into(),
                gltf_skin: Some(0),
                skeleton,
                joint_nodes: (10..18).collect(),
                clips: vec![clip],
            }],
            meshes: vec![SkinnedMesh {
                name: "figure/0".into(),
                skin: 0,
                node: 0,
                rigid: false,
                normals: vec![Vec3::Y; 8],
                uvs: vec![[0.0; 2]; 8],
                colors: Vec::new(),
                joints: (0..8u16).map(|j| [j, 0, 0, 0]).collect(),
                weights: vec![[1.0, 0.0, 0.0, 0.0]; 8],
                indices: Vec::new(),
                material: Material::default(),
                renormalized_vertices: 0,
                ignored_morph_targets: 0,
                positions,
            }],
            clips: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Model matrices by joint name at `t` of clip 0.
    fn pose_at(skin: &animation::gltf_import::ImportedSkin, t: f32) -> Vec<(String, Mat4)> {
        let s = &skin.skeleton;
        let mut locals = s.rest_locals().to_vec();
        sample_at(&skin.clips[0], t, Wrap::Clamp, &mut locals);
        let mut models = vec![Mat4::IDENTITY; s.len()];
        local_to_model(s, &locals, &mut models);
        let mut out: Vec<(String, Mat4)> = (0..s.len())
            .map(|j| (s.name(j).to_string(), models[j]))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    #[test]
    fn feet_off_the_root_go_under_their_shins_and_every_joint_stays_put() {
        let mut model = figure();
        let before = model.skins[0].clone();
        let notes = feet(&mut model);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("foot 'foot_l' hangs off 'root', not its shin 'shin_l'"));
        let skin = &model.skins[0];
        let s = &skin.skeleton;
        for side in ["l", "r"] {
            let foot = s.joint_index(&format!("foot_{side}")).unwrap();
            let shin = s.joint_index(&format!("shin_{side}")).unwrap();
            assert_eq!(s.parent(foot), Some(shin));
        }
        // At rest and at every resampled key (1/60 s apart), every joint's
        // model matrix is what it was.
        for k in 0..=60 {
            let t = k as f32 / 60.0;
            for ((name, a), (_, b)) in pose_at(&before, t).iter().zip(pose_at(skin, t)) {
                assert!(a.abs_diff_eq(b, 1e-5), "{name} at {t}: {a} vs {b}");
            }
        }
        // Each vertex still follows the joint it followed, by name.
        for (v, js) in model.meshes[0].joints.iter().enumerate() {
            assert_eq!(s.name(usize::from(js[0])), before.skeleton.name(v));
        }
        // Joint nodes moved with their joints.
        for j in 0..s.len() {
            let old = before.skeleton.joint_index(s.name(j)).unwrap();
            assert_eq!(skin.joint_nodes[j], before.joint_nodes[old]);
        }
    }

    #[test]
    fn a_model_whose_legs_show_is_left_alone() {
        let mut model = figure();
        feet(&mut model);
        let once = model.skins[0].skeleton.clone();
        assert!(feet(&mut model).is_empty());
        assert_eq!(model.skins[0].skeleton.names(), once.names());
    }

    #[test]
    fn a_foot_beside_the_shin_is_no_foot() {
        let mut model = figure();
        // Move the right foot half a metre to the side: no longer along its
        // leg, so only one pair is found and nothing changes.
        let s = &model.skins[0].skeleton;
        let mut rest = s.rest_locals().to_vec();
        rest[3].translation.x = -0.6;
        model.skins[0].skeleton = Skeleton::from_parts(
            s.names().to_vec(),
            (0..s.len()).map(|j| s.parent(j)).collect(),
            rest,
            s.inverse_bind().to_vec(),
        )
        .unwrap();
        assert!(feet(&mut model).is_empty());
        assert_eq!(model.skins[0].skeleton.parent(3), Some(0));
    }
}
