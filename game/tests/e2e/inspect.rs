//! End-to-end tests of the real `ironstep inspect` binary: the `--json`
//! document is checked against joint globals computed independently with the
//! `gltf` crate, and bad input must exit non-zero with one line on stderr.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use glam::{Mat4, Quat, Vec3};
use serde_json::Value;

/// Largest allowed difference per matrix element, relative to the largest
/// element (f32 products along a 19-joint hierarchy).
const TOLERANCE: f32 = 1e-5;

fn shared_model(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/assets/third_party/gltf")
        .join(rel)
}

fn cesium_man() -> PathBuf {
    shared_model("CesiumMan/CesiumMan.glb")
}

fn inspect(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .arg("inspect")
        .args(args)
        .output()
        .expect("the ironstep binary runs")
}

fn json(args: &[&str]) -> Value {
    let out = inspect(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON document on stdout")
}

/// Every node's global transform with animation `anim` sampled at `t`
/// (LINEAR and STEP samplers, clamped), composed from the glTF document
/// alone.
fn independent_globals(path: &Path, anim: usize, t: f32) -> (gltf::Document, Vec<Mat4>) {
    let (doc, buffers, _) = gltf::import(path).expect("the shared model loads");
    let mut trs: Vec<(Vec3, Quat, Vec3)> = doc
        .nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
        })
        .collect();
    let animation = doc.animations().nth(anim).expect("the animation exists");
    for channel in animation.channels() {
        let reader = channel.reader(|b| Some(&buffers[b.index()].0[..]));
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        let step = channel.sampler().interpolation() == gltf::animation::Interpolation::Step;
        let (i0, i1, u) = match times.iter().rposition(|&x| x <= t) {
            None => (0, 0, 0.0),
            Some(k) if k + 1 >= times.len() => (k, k, 0.0),
            Some(k) if step => (k, k, 0.0),
            Some(k) => (k, k + 1, (t - times[k]) / (times[k + 1] - times[k])),
        };
        let node = channel.target().node().index();
        use gltf::animation::util::ReadOutputs;
        match reader.read_outputs().unwrap() {
            ReadOutputs::Translations(it) => {
                let v: Vec<Vec3> = it.map(Vec3::from).collect();
                trs[node].0 = v[i0].lerp(v[i1], u);
            }
            ReadOutputs::Rotations(it) => {
                // The spec requires unit keys; normalize the rounded ones.
                let v: Vec<Quat> = it
                    .into_f32()
                    .map(|q| Quat::from_array(q).normalize())
                    .collect();
                trs[node].1 = v[i0].slerp(v[i1], u);
            }
            ReadOutputs::Scales(it) => {
                let v: Vec<Vec3> = it.map(Vec3::from).collect();
                trs[node].2 = v[i0].lerp(v[i1], u);
            }
            ReadOutputs::MorphTargetWeights(_) => {}
        }
    }
    let locals: Vec<Mat4> = trs
        .iter()
        .map(|&(t, r, s)| Mat4::from_scale_rotation_translation(s, r, t))
        .collect();
    let mut parent = vec![None; locals.len()];
    for n in doc.nodes() {
        for c in n.children() {
            parent[c.index()] = Some(n.index());
        }
    }
    let globals = (0..locals.len())
        .map(|i| {
            let mut m = locals[i];
            let mut up = parent[i];
            while let Some(p) = up {
                m = locals[p] * m;
                up = parent[p];
            }
            m
        })
        .collect();
    (doc, globals)
}

fn as_mat4(v: &Value) -> Mat4 {
    let cols: Vec<f32> = v
        .as_array()
        .expect("global is an array")
        .iter()
        .map(|x| x.as_f64().expect("a number") as f32)
        .collect();
    assert_eq!(cols.len(), 16);
    Mat4::from_cols_slice(&cols)
}

/// The name `inspect` reports for a joint node: its own, or `node<index>`.
fn joint_name(node: &gltf::Node) -> String {
    node.name()
        .map_or_else(|| format!("node{}", node.index()), str::to_string)
}

/// Runs `inspect --json --time t` on `path` and compares every joint's
/// global and parent with the independent composition.
fn assert_globals_match(path: &Path, t: f32) {
    let t_arg = t.to_string();
    let report = json(&[path.to_str().unwrap(), "--json", "--time", &t_arg]);
    let (doc, globals) = independent_globals(path, 0, t);
    let skins = report["skins"].as_array().unwrap();
    assert_eq!(skins.len(), doc.skins().count());
    for (skin, gskin) in skins.iter().zip(doc.skins()) {
        let joints = skin["joints"].as_array().unwrap();
        let gjoints: Vec<gltf::Node> = gskin.joints().collect();
        assert_eq!(joints.len(), gjoints.len());
        for joint in joints {
            let name = joint["name"].as_str().unwrap();
            let node = gjoints
                .iter()
                .find(|n| joint_name(n) == name)
                .unwrap_or_else(|| panic!("{name} is a joint of the skin"));
            let ours = as_mat4(&joint["global"]);
            let theirs = globals[node.index()];
            let scale = theirs
                .to_cols_array()
                .iter()
                .fold(1.0f32, |m, x| m.max(x.abs()));
            for (a, b) in ours.to_cols_array().iter().zip(theirs.to_cols_array()) {
                assert!(
                    (a - b).abs() <= TOLERANCE * scale,
                    "{name} at t={t}: {ours} vs {theirs}"
                );
            }
            // In these models every joint's parent node is itself a joint.
            if let Some(p) = joint["parent"].as_u64() {
                let parent_name = joints[p as usize]["name"].as_str().unwrap();
                let parent_node = gjoints
                    .iter()
                    .find(|n| joint_name(n) == parent_name)
                    .unwrap();
                assert!(
                    parent_node.children().any(|c| c.index() == node.index()),
                    "{parent_name} is the parent of {name}"
                );
            }
        }
    }
}

#[test]
fn json_globals_of_cesium_man_at_half_a_second_match_the_gltf_scene() {
    assert_globals_match(&cesium_man(), 0.5);
}

#[test]
fn json_globals_default_to_clip_zero_at_time_zero() {
    let report = json(&[cesium_man().to_str().unwrap(), "--json"]);
    assert_eq!(report["time"].as_f64(), Some(0.0));
    assert_eq!(report["clip"].as_str(), Some("0"));
    assert_globals_match(&cesium_man(), 0.0);
}

#[test]
fn json_globals_of_every_shared_model_match_between_keys() {
    for rel in [
        "RiggedFigure/RiggedFigure.glb",
        "RiggedSimple/RiggedSimple.glb",
        "SimpleSkin/SimpleSkin.gltf",
    ] {
        assert_globals_match(&shared_model(rel), 0.77);
    }
}

#[test]
fn json_lists_clips_with_names_and_durations() {
    let report = json(&[cesium_man().to_str().unwrap(), "--json", "--clip", "0"]);
    let clips = report["clips"].as_array().unwrap();
    assert_eq!(clips.len(), 1);
    assert_eq!(clips[0]["name"].as_str(), Some("0"));
    // The last key of CesiumMan's animation, read from the accessors' max.
    let (doc, _, _) = gltf::import(cesium_man()).unwrap();
    let last_key = doc
        .animations()
        .next()
        .unwrap()
        .channels()
        .map(|c| c.sampler().input().max().unwrap()[0].as_f64().unwrap())
        .fold(0.0f64, f64::max);
    assert!((clips[0]["duration"].as_f64().unwrap() - last_key).abs() < 1e-5);
}

#[test]
fn human_report_is_the_default() {
    let out = inspect(&[cesium_man().to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("skin 0 'Armature': 19 joints"), "{text}");
    assert!(text.contains("clips: 1"), "{text}");
}

/// Asserts a failed run: non-zero exit, nothing on stdout, one line on
/// stderr that contains `needle`.
fn assert_one_line_error(out: &Output, needle: &str) {
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(needle), "{err}");
}

#[test]
fn bad_input_exits_non_zero_with_one_line_naming_the_file() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("inspect-e2e");
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = std::fs::read(cesium_man()).unwrap();
    let truncated = dir.join("truncated.glb");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let invalid = dir.join("invalid.gltf");
    std::fs::write(&invalid, b"{ \"asset\": ").unwrap();
    let missing = dir.join("missing.glb");
    for path in [&truncated, &invalid, &missing] {
        let p = path.to_str().unwrap();
        assert_one_line_error(&inspect(&[p, "--json"]), p);
    }
    let out = inspect(&[cesium_man().to_str().unwrap(), "--clip", "walk"]);
    assert_one_line_error(&out, "no clip named or numbered 'walk'");
    let out = inspect(&[cesium_man().to_str().unwrap(), "--time", "NaN"]);
    assert_one_line_error(&out, "--time");
}
