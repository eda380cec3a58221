//! End-to-end: hostile and careless model and rig files given to
//! `ironstep run --character MODEL --rig RIG` (issue 30). Each file is built
//! here; each run must end with a non-zero exit and one clear line on stderr
//! naming the file and the URI or field, never a "panicked at", never a read
//! outside the model's folder, never a hang on a device.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::fresh_dir;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const CESIUM: &str = "../shared/assets/third_party/gltf/CesiumMan/CesiumMan.glb";
const RIG: &str = "assets/rigs/cesium_man.rig.ron";

/// `ironstep run` of ten frames with this model and rig.
fn run(model: &Path, rig: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .current_dir(repo())
        .args(["run", "--input", "assets/scripts/slopes_walk.txt"])
        .args(["--frames", "10", "--character"])
        .arg(model)
        .arg("--rig")
        .arg(rig)
        .output()
        .expect("the ironstep binary runs")
}

/// Runs `model` with CesiumMan's rig (or `rig`) and returns the one line the
/// failure prints, checked: a non-zero exit, one line, no panic report.
fn fails(model: &Path, rig: Option<&Path>) -> String {
    let out = run(model, rig.unwrap_or(&repo().join(RIG)));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "accepted: {err}");
    assert_eq!(out.status.code(), Some(1), "an error, not a crash: {err}");
    assert!(
        !err.contains("panicked at"),
        "a panic reached the user: {err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

/// CesiumMan as a `.gltf` in `dir` whose one buffer has `uri` and its own
/// length (or `byte_length`); the binary chunk is written as `dir/CesiumMan.bin`.
fn cesium_gltf(dir: &Path, uri: &str, byte_length: Option<u64>) -> PathBuf {
    let bytes = std::fs::read(repo().join(CESIUM)).unwrap();
    let gltf = gltf::Gltf::from_slice(&bytes).unwrap();
    let mut root = gltf.document.as_json().clone();
    root.buffers[0].uri = Some(uri.to_string());
    if let Some(len) = byte_length {
        root.buffers[0].byte_length = len.into();
    }
    std::fs::write(dir.join("CesiumMan.bin"), gltf.blob.as_ref().unwrap()).unwrap();
    let path = dir.join("bad.gltf");
    std::fs::write(&path, gltf::json::serialize::to_vec(&root).unwrap()).unwrap();
    path
}

#[test]
fn a_model_in_its_own_folder_with_an_external_buffer_plays() {
    let dir = fresh_dir("hostile_models_ok");
    let model = cesium_gltf(&dir, "CesiumMan.bin", None);
    let out = run(&model, &repo().join(RIG));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn buffer_uris_outside_the_model_folder_are_refused_naming_the_uri() {
    let root = fresh_dir("hostile_models_uri");
    let dir = root.join("model");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(root.join("outside.bin"), [0u8; 64]).unwrap();
    for (uri, why) in [
        ("file:///dev/zero", "uses the URI scheme 'file'"),
        ("/etc/hostname", "is an absolute path"),
        ("%FF", "does not percent-decode to UTF-8"),
        ("../outside.bin", "climbs out of the model's folder"),
        ("sub/../../outside.bin", "climbs out of the model's folder"),
    ] {
        let model = cesium_gltf(&dir, uri, None);
        let err = fails(&model, None);
        assert!(
            err.contains("bad.gltf: buffer 0 uri") && err.contains(&format!("\"{uri}\" {why}")),
            "{uri}: {err}"
        );
    }
}

#[test]
fn a_buffer_file_shorter_than_declared_is_refused() {
    let dir = fresh_dir("hostile_models_short");
    let model = cesium_gltf(&dir, "CesiumMan.bin", Some(100_000_000));
    let err = fails(&model, None);
    let len = std::fs::metadata(dir.join("CesiumMan.bin")).unwrap().len();
    assert!(
        err.contains("bad.gltf: buffer 0 uri \"CesiumMan.bin\"")
            && err.contains(&format!(
                "holds {len} bytes, fewer than the byteLength of 100000000"
            )),
        "{err}"
    );
    // Over the limit, refused before reading.
    let model = cesium_gltf(&dir, "CesiumMan.bin", Some(1 << 40));
    let err = fails(&model, None);
    assert!(err.contains("more than the limit of"), "{err}");
}

#[test]
fn a_device_as_the_model_is_refused_without_reading_it() {
    let err = fails(Path::new("/dev/zero"), None);
    assert!(
        err.contains("/dev/zero") && err.contains("not a regular file"),
        "{err}"
    );
}

#[test]
fn a_panic_inside_the_gltf_crate_is_reported_without_a_panic_message() {
    // The fuzzer's reproducer of an index panic in gltf-json's validation.
    let model = repo().join("fuzz/corpus/gltf_import/crash-gltf-json-index-panic.glb");
    let err = fails(&model, None);
    assert!(
        err.contains("crash-gltf-json-index-panic.glb: the glTF reader failed on malformed data"),
        "{err}"
    );
}

/// CesiumMan's rig with one replacement, written into `dir` as `name`.
fn rig_with(dir: &Path, name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(repo().join(RIG)).unwrap();
    assert!(text.contains(from), "{from}");
    let path = dir.join(name);
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

#[test]
fn bad_rig_files_are_refused_naming_the_file_and_the_field() {
    let dir = fresh_dir("hostile_models_rig");
    let model = repo().join(CESIUM);
    let huge = rig_with(
        &dir,
        "huge_axis.rig.ron",
        "knee_hinge_axis: (0.0, 1.0, 0.0)",
        "knee_hinge_axis: (3e38, 3e38, 0.0)",
    );
    let err = fails(&model, Some(&huge));
    assert!(
        err.contains("huge_axis.rig.ron: knee_hinge_axis: (3e38, 3e38, 0.0) has length 4.243e38"),
        "{err}"
    );
    let same = rig_with(
        &dir,
        "same_legs.rig.ron",
        r#"(hip: "leg_joint_R_1", knee: "leg_joint_R_2", ankle: "leg_joint_R_3", toe: Some("leg_joint_R_5"))"#,
        r#"(hip: "leg_joint_L_1", knee: "leg_joint_L_2", ankle: "leg_joint_L_3", toe: Some("leg_joint_L_5"))"#,
    );
    let err = fails(&model, Some(&same));
    assert!(
        err.contains("same_legs.rig.ron: legs[1].hip: joint 'leg_joint_L_1' is also legs[0].hip"),
        "{err}"
    );
    let chain = rig_with(
        &dir,
        "not_a_chain.rig.ron",
        r#"ankle: "leg_joint_R_3""#,
        r#"ankle: "Skeleton_arm_joint_R__3_""#,
    );
    let err = fails(&model, Some(&chain));
    assert!(
        err.contains("not_a_chain.rig.ron: legs[1].ankle: joint 'Skeleton_arm_joint_R__3_' does not lie below legs[1].knee 'leg_joint_R_2'"),
        "{err}"
    );
}
