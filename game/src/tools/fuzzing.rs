//! The bodies of our fuzz targets, shared by `fuzz/` (cargo-fuzz, libFuzzer)
//! and by the test that replays the committed corpus in every test run
//! (`game/tests/e2e/fuzz_corpus.rs`), so both exercise exactly the same code.
//!
//! Each function takes arbitrary bytes, feeds them to one loader the way
//! the game does, and then uses what was accepted: a loader may refuse
//! anything, but what it accepts must be usable without panics or NaN.
//! A broken promise panics here, which libFuzzer reports as a crash. Each
//! returns whether its loader accepted the input: the corpus replay
//! requires that of our own seeds (the shipped levels and scripts, the
//! small knights), so a seed the loader starts refusing fails there.
//!
//! - [`gltf_import`]: `animation::gltf_import::load_from_bytes` with a base
//!   folder (a sandbox made once per process, see [`gltf_sandbox`]), so the
//!   buffer and image URIs are fuzzed too; every file URI in the input is
//!   checked to resolve inside the folder or not at all; then every skin's
//!   rest pose and every clip sampled at its start, middle and end.
//! - [`rig_file`]: `RigFile::parse` of RON text, then a character made of
//!   the knight's skeleton and clips with that rig, simulated and posed.
//!   What is accepted must pose with finite values.
//! - [`tmx_level`]: `level::from_tmx_str`, then `check-level`'s checks and
//!   a second of simulation and posing with the knight on the level.
//! - [`tmj_level`]: `level::from_tmj_str` (Tiled JSON, translated to TMX
//!   text and loaded by the same path), then the same as [`tmx_level`].
//! - [`input_script`]: `Script::parse`, then the script played for its length.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use animation::gltf_import;
use animation::sampling::{Wrap, sample_at, validate_clip};
use animation::{Clip, Skeleton, Track, local_to_model};
use glam::Mat4;

use crate::character::Character;
use crate::character::rig::RigFile;
use crate::knight::{self, Knight};
use crate::level;
use crate::sim::player::DT;
use crate::sim::script::Script;
use crate::sim::world::Level;
use crate::sim::{Body, Sim};

/// Simulated frames per accepted level: one second, enough to spawn, fall
/// onto the ground and walk a few steps, few enough to keep the fuzzer fast.
const LEVEL_FRAMES: usize = 64;
/// Inputs drawn from an accepted script (about three seconds).
const SCRIPT_STEPS: usize = 200;
/// Simulated frames per accepted rig: half a second of walking on the
/// built-in level, enough for the rig's legs to plant and its IK to run.
const RIG_FRAMES: usize = 32;

/// The small knight the glTF sandbox's `buffer.bin` holds the binary chunk
/// of (triangles, keys per track), and whose JSON names it in the seed
/// `seed-knight-external.gltf`.
pub const SANDBOX_KNIGHT: (usize, usize) = (8, 2);

/// Call once before fuzzing. libFuzzer's Rust glue installs a panic hook
/// that aborts, which would also turn the panics our loaders deliberately
/// catch (the `gltf` crate panics on some malformed files; `load_from_bytes`
/// turns that into an error) into crashes. A silent hook restores Rust's own
/// rule: a panic that escapes the target still aborts the run (libFuzzer's
/// glue catches it and aborts), a caught one is just an error.
pub fn init() {
    std::panic::set_hook(Box::new(|_| {}));
}

/// The glTF target's model folder, made once per process under the
/// temporary folder (`ironstep-fuzz-gltf-PID/model/`), so that fuzzed URIs
/// have files to find and files to be kept from:
///
/// - `buffer.bin` and `sub/buffer.bin`: the binary chunk of the small knight
///   [`SANDBOX_KNIGHT`] (the seed `seed-knight-external.gltf` names it);
/// - `dir/`: a folder; `dev.bin`: a link to `/dev/null`;
/// - `link.bin`: a link to `../outside.bin`, a file outside the folder.
pub fn gltf_sandbox() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("ironstep-fuzz-gltf-{}", std::process::id()));
        let dir = root.join("model");
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(dir.join("sub")).expect("the sandbox folder");
        std::fs::create_dir_all(dir.join("dir")).expect("the sandbox folder");
        let (_, bin) = small_knight_gltf(SANDBOX_KNIGHT.0, SANDBOX_KNIGHT.1);
        std::fs::write(root.join("outside.bin"), vec![0x5A; bin.len()]).expect("outside.bin");
        std::fs::write(dir.join("buffer.bin"), &bin).expect("buffer.bin");
        std::fs::write(dir.join("sub/buffer.bin"), &bin).expect("sub/buffer.bin");
        #[cfg(unix)]
        {
            let _ = std::os::unix::fs::symlink("../outside.bin", dir.join("link.bin"));
            let _ = std::os::unix::fs::symlink("/dev/null", dir.join("dev.bin"));
        }
        dir
    })
}

/// Imports `data` as a GLB or glTF file from [`gltf_sandbox`]; every file
/// URI must resolve inside it or not at all, and what is accepted must pose.
/// Returns whether the model was accepted (see [`tmx_level`]).
pub fn gltf_import(data: &[u8]) -> bool {
    let dir = gltf_sandbox();
    check_sandbox(data, dir);
    let Ok(model) = gltf_import::load_from_bytes(data, "fuzz.gltf", Some(dir)) else {
        return false;
    };
    for skin in &model.skins {
        let s = &skin.skeleton;
        let pose = s.rest_pose();
        let mut models = vec![Mat4::IDENTITY; s.len()];
        local_to_model(s, &pose.locals, &mut models);
        assert!(
            models.iter().all(|m| m.is_finite()),
            "accepted rest pose is not finite"
        );
        for clip in &skin.clips {
            validate_clip(clip, s.len()).expect("an imported clip validates");
            let mut locals = pose.locals.clone();
            for t in [0.0, clip.duration * 0.5, clip.duration] {
                sample_at(clip, t, Wrap::Loop, &mut locals);
                assert!(
                    locals.iter().all(|l| l.is_finite()),
                    "sampled pose is not finite"
                );
            }
        }
    }
    for mesh in &model.meshes {
        assert!(
            mesh.positions.iter().all(|p| p.is_finite()),
            "accepted mesh has non-finite positions"
        );
    }
    true
}

/// The sandbox promise: every buffer or image URI of `data` (glTF JSON, or
/// a GLB's JSON chunk) that is not a data URI resolves, with the importer's
/// own resolver, to a regular file inside `dir`, or to nothing.
fn check_sandbox(data: &[u8], dir: &Path) {
    let json = match data {
        [b'g', b'l', b'T', b'F', ..] if data.len() >= 20 => {
            let len = u32::from_le_bytes([data[12], data[13], data[14], data[15]]) as usize;
            match data.get(20..20usize.saturating_add(len)) {
                Some(chunk) => chunk,
                None => return,
            }
        }
        _ => data,
    };
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(json) else {
        return;
    };
    let inside = dir.canonicalize().expect("the sandbox folder");
    for list in ["buffers", "images"] {
        let Some(items) = doc.get(list).and_then(|v| v.as_array()) else {
            continue;
        };
        for uri in items.iter().filter_map(|i| i.get("uri")?.as_str()) {
            if uri.starts_with("data:") {
                continue;
            }
            if let Ok(path) = gltf_import::resolve_file_uri(dir, uri) {
                assert!(
                    path.starts_with(&inside) && path.is_file(),
                    "uri {uri:?} resolved to {} outside the model's folder",
                    path.display()
                );
            }
        }
    }
}

/// Parses `data` as a rig file for the knight's skeleton and clips; an
/// accepted rig must make a character that walks and poses. Returns whether
/// the rig was accepted (see [`tmx_level`]).
pub fn rig_file(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let Ok(rig) = RigFile::parse(text, "fuzz.rig.ron") else {
        return false;
    };
    let (skeleton, clips, level) = knight_parts();
    let Ok(character) = Character::new(
        "knight.glb",
        skeleton.clone(),
        clips.clone(),
        &rig,
        "fuzz.rig.ron",
    ) else {
        return false;
    };
    let r = &character.rig;
    for axis in [r.knee_hinge_axis, r.elbow_hinge_axis, r.forward]
        .into_iter()
        .chain(r.arms.iter().map(|a| a.elbow_hinge_axis))
    {
        assert!(
            axis.is_finite() && (axis.length() - 1.0).abs() < 1e-3,
            "an accepted rig has an axis that is not a unit vector: {axis}"
        );
    }
    let mut sim = Sim::new(level.clone(), Arc::new(character));
    let input = crate::sim::player::Input {
        move_x: 1.0,
        ..Default::default()
    };
    for _ in 0..RIG_FRAMES {
        sim.step(&input);
        sim.pose(DT);
    }
    assert!(
        sim.player_state().pos.is_finite(),
        "player position went non-finite"
    );
    let body = sim.world.get::<&Body>(sim.player).expect("player body");
    assert!(
        body.pipeline.palette().iter().all(|m| m.is_finite()),
        "palette went non-finite with an accepted rig"
    );
    true
}

/// The knight's skeleton and clips and the built-in level, made once per
/// process for the rig target.
fn knight_parts() -> &'static (Skeleton, Vec<Clip>, Level) {
    static PARTS: OnceLock<(Skeleton, Vec<Clip>, Level)> = OnceLock::new();
    PARTS.get_or_init(|| {
        let k =
            Knight::generate(knight::clips::DEFAULT_RUNG_SPACING).expect("the knight generates");
        (k.skeleton, k.clips, Level::builtin())
    })
}

/// Loads `data` as a TMX level; an accepted level must check and play.
/// Returns whether the level was accepted (and so checked and played): the
/// corpus test requires it of our shipped seeds, so a seed the loader
/// starts refusing fails there instead of exercising nothing.
pub fn tmx_level(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let Ok(loaded) = level::from_tmx_str(text, "fuzz.tmx") else {
        return false;
    };
    play_level(loaded);
    true
}

/// Parses `data` as a Tiled JSON map (`.tmj`); an accepted level must check
/// and play as [`tmx_level`] requires. Returns whether it was accepted.
pub fn tmj_level(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let Ok(loaded) = level::from_tmj_str(text, "fuzz.tmj") else {
        return false;
    };
    play_level(loaded);
    true
}

/// `check-level`'s checks on an accepted level, then [`LEVEL_FRAMES`] of
/// simulation and posing with the knight walking right: positions and the
/// pose's palette must stay finite.
fn play_level(loaded: level::LoadedLevel) {
    let _ = level::check::check_level(&loaded);
    let mut sim = Sim::new(loaded.level, knight_character());
    let input = crate::sim::player::Input {
        move_x: 1.0,
        ..Default::default()
    };
    for _ in 0..LEVEL_FRAMES {
        sim.step(&input);
        sim.pose(DT);
    }
    let p = sim.player_state();
    assert!(p.pos.is_finite(), "player position went non-finite: {p:?}");
    let body = sim.world.get::<&Body>(sim.player).expect("player body");
    assert!(
        body.pipeline.palette().iter().all(|m| m.is_finite()),
        "palette went non-finite"
    );
}

/// Parses `data` as an input script; an accepted script must play.
/// Returns whether the script was accepted (see [`tmx_level`]).
pub fn input_script(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let Ok(script) = Script::parse(text, "fuzz.txt") else {
        return false;
    };
    let mut player = script.player();
    for _ in 0..SCRIPT_STEPS {
        let i = player.next_input();
        assert!(
            i.move_x.is_finite() && i.move_y.is_finite(),
            "script produced non-finite input: {i:?}"
        );
    }
    true
}

/// The knight, generated once per process (generation takes milliseconds;
/// a fuzzer runs the level target thousands of times a second).
fn knight_character() -> Arc<Character> {
    static KNIGHT: OnceLock<Arc<Character>> = OnceLock::new();
    KNIGHT
        .get_or_init(|| Arc::new(Character::knight().expect("the knight generates")))
        .clone()
}

/// The small knight of [`small_knight_glb`] as a `.gltf` file whose one
/// buffer is the external file `buffer.bin`: its JSON and that file's bytes.
pub fn small_knight_gltf(triangles: usize, keys: usize) -> (Vec<u8>, Vec<u8>) {
    let glb = small_knight_glb(triangles, keys);
    let glb = gltf_json_chunks(&glb).expect("the small knight is a GLB");
    let mut json: serde_json::Value = serde_json::from_slice(glb.0).expect("its JSON parses");
    json["buffers"][0]["uri"] = serde_json::Value::from("buffer.bin");
    let text = serde_json::to_vec(&json).expect("JSON writes");
    (text, glb.1.to_vec())
}

/// The JSON and binary chunks of a GLB file (the binary one empty if absent).
fn gltf_json_chunks(glb: &[u8]) -> Option<(&[u8], &[u8])> {
    let u32_at = |at: usize| -> Option<usize> {
        let b = glb.get(at..at + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let json_len = u32_at(12)?;
    let json = glb.get(20..20 + json_len)?;
    let bin_at = 20 + json_len;
    let bin = match u32_at(bin_at) {
        Some(len) => glb.get(bin_at + 8..bin_at + 8 + len)?,
        None => &[],
    };
    Some((json, bin))
}

/// A small but complete GLB of our own for the glTF fuzzer's seed corpus:
/// the knight's skeleton, its first `triangles` triangles (with only the
/// vertices they use) and its walk clip cut to its first keys.
pub fn small_knight_glb(triangles: usize, keys: usize) -> Vec<u8> {
    let k = Knight::generate(knight::clips::DEFAULT_RUNG_SPACING).expect("the knight generates");
    let mut mesh = k.mesh.clone();
    let used: Vec<u16> = mesh.indices[..(triangles * 3).min(mesh.indices.len())].to_vec();
    let mut remap = vec![u16::MAX; mesh.positions.len()];
    let mut order = Vec::new();
    for &i in &used {
        if remap[usize::from(i)] == u16::MAX {
            remap[usize::from(i)] = order.len() as u16;
            order.push(usize::from(i));
        }
    }
    fn pick<T: Copy>(v: &[T], order: &[usize]) -> Vec<T> {
        order.iter().map(|&i| v[i]).collect()
    }
    mesh.positions = pick(&k.mesh.positions, &order);
    mesh.normals = pick(&k.mesh.normals, &order);
    mesh.colors = pick(&k.mesh.colors, &order);
    mesh.joints = pick(&k.mesh.joints, &order);
    mesh.weights = pick(&k.mesh.weights, &order);
    mesh.indices = used.iter().map(|&i| remap[usize::from(i)]).collect();
    let walk = k
        .clips
        .iter()
        .find(|c| c.name == "walk")
        .expect("the knight has a walk clip");
    fn cut<T: Copy>(t: &Track<T>, keys: usize) -> Track<T> {
        let n = keys.min(t.times.len()).max(1);
        let per_key = t.values.len() / t.times.len().max(1);
        Track {
            joint: t.joint,
            interpolation: t.interpolation,
            times: t.times[..n].to_vec(),
            values: t.values[..n * per_key].to_vec(),
        }
    }
    let translations: Vec<_> = walk.translations.iter().map(|t| cut(t, keys)).collect();
    let rotations: Vec<_> = walk.rotations.iter().map(|t| cut(t, keys)).collect();
    let scales: Vec<_> = walk.scales.iter().map(|t| cut(t, keys)).collect();
    let duration = translations
        .iter()
        .map(|t| *t.times.last().unwrap_or(&0.0))
        .chain(rotations.iter().map(|t| *t.times.last().unwrap_or(&0.0)))
        .chain(scales.iter().map(|t| *t.times.last().unwrap_or(&0.0)))
        .fold(0.0f32, f32::max);
    let clip = Clip {
        name: "walk".into(),
        duration,
        translations,
        rotations,
        scales,
    };
    knight::glb::write(&k.skeleton, &mesh, &[clip]).expect("the small knight writes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_small_knight_seed_is_a_valid_small_glb() {
        let bytes = small_knight_glb(24, 4);
        assert!(bytes.len() < 16 * 1024, "{} bytes", bytes.len());
        let model = gltf_import::load_from_bytes(&bytes, "seed.glb", None).unwrap();
        assert_eq!(model.skins[0].skeleton.len(), 24);
        assert_eq!(model.meshes[0].indices.len(), 24 * 3);
        assert!(gltf_import(&bytes), "the seed is accepted");
    }

    #[test]
    fn the_external_knight_seed_loads_from_the_sandbox() {
        let (json, bin) = small_knight_gltf(SANDBOX_KNIGHT.0, SANDBOX_KNIGHT.1);
        assert_eq!(
            std::fs::read(gltf_sandbox().join("buffer.bin")).unwrap(),
            bin
        );
        assert!(gltf_import(&json), "the seed is refused");
        // Through a link out of the folder it is refused (not read).
        let text = String::from_utf8(json).unwrap();
        for uri in ["link.bin", "../outside.bin", "dev.bin", "dir"] {
            let bad = text.replace("\"buffer.bin\"", &format!("{uri:?}"));
            assert!(!gltf_import(bad.as_bytes()), "{uri}");
        }
        assert!(gltf_import(
            text.replace("\"buffer.bin\"", "\"sub/./buffer.bin\"")
                .as_bytes()
        ));
    }

    #[test]
    fn the_shipped_knight_rig_passes_its_target() {
        assert!(rig_file(crate::character::KNIGHT_RIG.as_bytes()));
        assert!(!rig_file(b"(pelvis: 3"));
    }

    #[test]
    fn the_shipped_level_and_scripts_pass_their_targets() {
        assert!(tmx_level(level::TUTORIAL_TMX.as_bytes()));
        assert!(input_script(b"0.0 press right\n1.0 hold jump 0.5\n"));
        assert!(!tmx_level(b"<map/>"), "a rejected file says so");
        let tmj = include_str!("../../tests/levels/tmj/tutorial.tmj");
        assert!(tmj_level(tmj.as_bytes()));
        assert!(!tmj_level(b"{\"type\":\"map\"}"), "a rejected file says so");
    }
}
