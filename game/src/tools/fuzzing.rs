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
//! - [`gltf_import`]: `animation::gltf_import::load_from_bytes`, then every
//!   skin's rest pose and every clip sampled at its start, middle and end.
//! - [`tmx_level`]: `level::from_tmx_str`, then `check-level`'s checks and
//!   a second of simulation and posing with the knight on the level.
//! - [`input_script`]: `Script::parse`, then the script played for its length.

use std::sync::{Arc, OnceLock};

use animation::gltf_import;
use animation::sampling::{Wrap, sample_at, validate_clip};
use animation::{Clip, Track, local_to_model};
use glam::Mat4;

use crate::character::Character;
use crate::knight::{self, Knight};
use crate::level;
use crate::sim::player::DT;
use crate::sim::script::Script;
use crate::sim::{Body, Sim};

/// Simulated frames per accepted level: one second, enough to spawn, fall
/// onto the ground and walk a few steps, few enough to keep the fuzzer fast.
const LEVEL_FRAMES: usize = 64;
/// Inputs drawn from an accepted script (about three seconds).
const SCRIPT_STEPS: usize = 200;

/// Call once before fuzzing. libFuzzer's Rust glue installs a panic hook
/// that aborts, which would also turn the panics our loaders deliberately
/// catch (the `gltf` crate panics on some malformed files; `load_from_bytes`
/// turns that into an error) into crashes. A silent hook restores Rust's own
/// rule: a panic that escapes the target still aborts the run (libFuzzer's
/// glue catches it and aborts), a caught one is just an error.
pub fn init() {
    std::panic::set_hook(Box::new(|_| {}));
}

/// Imports `data` as a GLB or glTF file; what is accepted must pose.
/// Returns whether the file was accepted (see [`tmx_level`]).
pub fn gltf_import(data: &[u8]) -> bool {
    let Ok(model) = gltf_import::load_from_bytes(data, "fuzz.glb", None) else {
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
    true
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
    fn the_shipped_level_and_scripts_pass_their_targets() {
        assert!(tmx_level(level::TUTORIAL_TMX.as_bytes()));
        assert!(input_script(b"0.0 press right\n1.0 hold jump 0.5\n"));
        assert!(!tmx_level(b"<map/>"), "a rejected file says so");
    }
}
