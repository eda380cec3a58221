//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`, minimized
//! by `cargo fuzz cmin` after each fuzzing session, crash reproducers
//! included) through the same target bodies the fuzzers run
//! (`game::tools::fuzzing`). Every test run thus re-checks every input the fuzzers
//! found interesting, without libFuzzer or a nightly compiler.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 3,
        "{}: the corpus has only {} inputs",
        dir.display(),
        files.len()
    );
    files
}

fn replay(target: &str, run: fn(&[u8])) {
    let files = corpus(target);
    let mut failed = Vec::new();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        if catch_unwind(AssertUnwindSafe(|| run(&data))).is_err() {
            failed.push(f.display().to_string());
        }
    }
    eprintln!("{target}: {} inputs replayed", files.len());
    assert!(failed.is_empty(), "{target}: inputs that fail: {failed:#?}");
}

#[test]
fn gltf_import_corpus_replays_cleanly() {
    replay("gltf_import", game::tools::fuzzing::gltf_import);
}

#[test]
fn tmx_level_corpus_replays_cleanly() {
    replay("tmx_level", game::tools::fuzzing::tmx_level);
}

#[test]
fn input_script_corpus_replays_cleanly() {
    replay("input_script", game::tools::fuzzing::input_script);
}

#[test]
fn rig_corpus_replays_cleanly() {
    replay("rig", game::tools::fuzzing::rig_file);
}

/// Seeds each target must accept (a target that refused them would fuzz
/// only its error paths, and its replay would pass whatever happened to the
/// loader): by target, the seed files' name prefix and the body.
#[test]
fn the_seeds_that_must_load_are_accepted() {
    type Accepts = fn(&[u8]) -> bool;
    let accepted: [(&str, &str, Accepts); 2] = [
        (
            "gltf_import",
            "seed-knight-",
            game::tools::fuzzing::gltf_import_accepts,
        ),
        ("rig", "seed-knight", game::tools::fuzzing::rig_file_accepts),
    ];
    for (target, prefix, accepts) in accepted {
        let seeds: Vec<_> = corpus(target)
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix))
            })
            .collect();
        assert!(seeds.len() >= 2, "{target}: {seeds:?}");
        for seed in seeds {
            assert!(
                accepts(&std::fs::read(&seed).unwrap()),
                "{} is refused",
                seed.display()
            );
        }
    }
}

/// The rig fuzzer's seeds of the shipped rigs are the shipped files.
#[test]
fn committed_rig_seeds_are_the_shipped_rigs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (seed, shipped) in [
        ("seed-knight.rig.ron", "assets/knight.rig.ron"),
        ("seed-cesium-man.rig.ron", "assets/rigs/cesium_man.rig.ron"),
    ] {
        let seed = root.join("fuzz/corpus/rig").join(seed);
        assert_eq!(
            std::fs::read_to_string(&seed).unwrap(),
            std::fs::read_to_string(root.join(shipped)).unwrap(),
            "{} differs from {shipped}: copy it again",
            seed.display()
        );
    }
}

/// The glTF fuzzer's seeds of our own: small knights cut from the generator
/// (triangles, keys per track), and one as `.gltf` with an external buffer
/// (`seed-knight-external.gltf`, see `SANDBOX_KNIGHT`). Committed in the
/// corpus; regenerate them with `IRONSTEP_WRITE_FUZZ_SEEDS=1 cargo test -p
/// game --test e2e committed_glb_seeds`.
const KNIGHT_SEEDS: [(usize, usize); 3] = [(1, 1), (8, 2), (24, 4)];

#[test]
fn committed_glb_seeds_match_the_generator() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/gltf_import");
    let write = std::env::var_os("IRONSTEP_WRITE_FUZZ_SEEDS").is_some();
    for (tris, keys) in KNIGHT_SEEDS {
        let path = dir.join(format!("seed-knight-{tris}tri-{keys}key.glb"));
        let bytes = game::tools::fuzzing::small_knight_glb(tris, keys);
        if write {
            std::fs::create_dir_all(&dir).unwrap();
            game::fsio::write_atomic(&path, &bytes).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            committed == bytes,
            "{} differs from the generator: regenerate it (see KNIGHT_SEEDS)",
            path.display()
        );
    }
    // The small knight as .gltf naming the sandbox's buffer.bin.
    let (tris, keys) = game::tools::fuzzing::SANDBOX_KNIGHT;
    let path = dir.join("seed-knight-external.gltf");
    let (json, _) = game::tools::fuzzing::small_knight_gltf(tris, keys);
    if write {
        game::fsio::write_atomic(&path, &json).unwrap();
    }
    let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        committed == json,
        "{} differs from the generator: regenerate it (see SANDBOX_KNIGHT)",
        path.display()
    );
}
