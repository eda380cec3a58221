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

/// Replays every input of `target`'s corpus through its body. None may
/// panic, and our own seeds (`seed-*`: the shipped levels, scripts and
/// rigs, the small knights) must be accepted: a body returns early on a
/// file its loader refuses, so a seed that stops loading would otherwise
/// exercise nothing and still pass. Hostile seeds (`seed-refused-*`: the
/// URIs and rigs of issue 30) must be refused.
fn replay(target: &str, run: fn(&[u8]) -> bool) {
    let files = corpus(target);
    let mut failed = Vec::new();
    let mut refused = Vec::new();
    let mut accepted = Vec::new();
    let mut seeds = 0;
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let must_refuse = name.starts_with("seed-refused-");
        let seed = name.starts_with("seed-") && !must_refuse;
        seeds += usize::from(seed);
        match catch_unwind(AssertUnwindSafe(|| run(&data))) {
            Err(_) => failed.push(f.display().to_string()),
            Ok(false) if seed => refused.push(f.display().to_string()),
            Ok(true) if must_refuse => accepted.push(f.display().to_string()),
            Ok(_) => {}
        }
    }
    eprintln!("{target}: {} inputs replayed, {seeds} seeds", files.len());
    assert!(failed.is_empty(), "{target}: inputs that fail: {failed:#?}");
    assert!(
        refused.is_empty(),
        "{target}: seeds the loader refuses (each must load and play): {refused:#?}"
    );
    assert!(
        accepted.is_empty(),
        "{target}: hostile seeds the loader accepts (each must be refused): {accepted:#?}"
    );
    assert!(seeds >= 2, "{target}: only {seeds} seeds in the corpus");
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
fn tmj_level_corpus_replays_cleanly() {
    replay("tmj_level", game::tools::fuzzing::tmj_level);
}

#[test]
fn input_script_corpus_replays_cleanly() {
    replay("input_script", game::tools::fuzzing::input_script);
}

#[test]
fn rig_corpus_replays_cleanly() {
    replay("rig", game::tools::fuzzing::rig_file);
}

/// The rig fuzzer's seeds of the shipped rigs are the shipped files.
#[test]
fn committed_rig_seeds_are_the_shipped_rigs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (seed, shipped) in [
        ("seed-knight.rig.ron", "assets/knight.rig.ron"),
        (
            "seed-refused-cesium-man.rig.ron",
            "assets/rigs/cesium_man.rig.ron",
        ),
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

/// The TMJ fuzzer starts from Tiled's exports of our levels and test maps
/// (`game/tests/levels/tmj/`, those with their tilesets embedded),
/// committed as `seed-<file name>` and kept equal to them here.
#[test]
fn committed_tmj_seeds_match_the_tiled_exports() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/levels/tmj");
    let mut stale = Vec::new();
    let mut count = 0;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tmj"))
        .collect();
    files.sort();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        // Those naming external files cannot load from memory.
        if name.ends_with("-tsj.tmj") || name.contains("external") || name.contains("json_refs") {
            continue;
        }
        count += 1;
        if let Err(e) = seed_matches("tmj_level", &name, &std::fs::read(&f).unwrap()) {
            stale.push(e);
        }
    }
    assert!(count >= 8, "only {count} TMJ seeds");
    assert!(stale.is_empty(), "stale seeds: {stale:#?}");
}

/// Compares the committed seed `corpus/<target>/seed-<name>` with `bytes`,
/// or writes it when `IRONSTEP_WRITE_FUZZ_SEEDS` is set.
fn seed_matches(target: &str, name: &str, bytes: &[u8]) -> Result<(), String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let path = dir.join(format!("seed-{name}"));
    if std::env::var_os("IRONSTEP_WRITE_FUZZ_SEEDS").is_some() {
        game::fsio::write_atomic(&path, bytes).unwrap();
    }
    match std::fs::read(&path) {
        Ok(committed) if committed == bytes => Ok(()),
        Ok(_) => Err(format!("{} differs from its source", path.display())),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The level and script fuzzers start from what we ship: every level in
/// `assets/levels/` (the shipped ones and the walls test level) and every
/// script in `assets/scripts/`, committed as `seed-<file name>` and kept
/// equal to them here (regenerate with `IRONSTEP_WRITE_FUZZ_SEEDS=1`, see
/// [`KNIGHT_SEEDS`]). The replays above then require each to be accepted.
#[test]
fn committed_level_and_script_seeds_match_the_shipped_files() {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let mut stale = Vec::new();
    let mut count = 0;
    for (folder, ext, target) in [
        ("levels", "tmx", "tmx_level"),
        ("scripts", "txt", "input_script"),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(assets.join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            count += 1;
            if let Err(e) = seed_matches(target, &name, &std::fs::read(&f).unwrap()) {
                stale.push(e);
            }
        }
    }
    for name in game::level::shipped::shipped_names() {
        assert!(
            assets.join(format!("levels/{name}.tmx")).is_file(),
            "the shipped level {name} has its file in assets/levels/"
        );
    }
    assert!(count >= 8, "only {count} levels and scripts found");
    assert!(
        stale.is_empty(),
        "stale seeds (regenerate with IRONSTEP_WRITE_FUZZ_SEEDS=1): {stale:#?}"
    );
}
