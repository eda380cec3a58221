//! End-to-end: Tiled JSON maps (issue 35). Every shipped level exported to
//! TMJ by the real Tiled (`assets/levels/export-tmj`, outputs committed in
//! `game/tests/levels/tmj/`) loads to the same world as its TMX and plays
//! identically through the real binary; so do Tiled's exports of the
//! loader's test maps (every layer encoding, groups, an infinite map, TSX
//! and TSJ tilesets, TX and TJ templates). Malformed JSON gives one clear
//! error naming the file and the place; designer edits of a TMJ change only
//! the edited values and give the same world as the same edits of the TMX,
//! and the designer window (under Xvfb) saves a dragged ladder back as JSON;
//! hot reload follows a TMJ and its JSON tileset.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use game::level::edit::{LadderEnd, LevelDoc, PlankEnd};
use game::level::watch::{LevelWatcher, Reload};
use game::level::{LoadedLevel, load};
use serde_json::Value;

use crate::common::fresh_dir;

/// How long a hot reload may take to see a save (file events, debounce).
const EVENT_WAIT: Duration = Duration::from_secs(20);

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tmj_dir() -> PathBuf {
    manifest().join("tests/levels/tmj")
}

/// The level's world and everything the loader noticed, with the file's
/// name left out: what must be equal between a TMX and its TMJ.
fn world(l: &LoadedLevel) -> String {
    let mut l = l.clone();
    l.file = String::new();
    format!("{l:?}")
}

/// Every level in `assets/levels/` (shipped and test levels), by name.
fn level_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(manifest().join("../assets/levels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tmx"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The pairs (TMX, its Tiled JSON export) the fixtures hold.
fn pairs() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for name in level_names() {
        let tmx = manifest().join(format!("../assets/levels/{name}.tmx"));
        for tmj in [format!("{name}.tmj"), format!("{name}-tsj.tmj")] {
            out.push((tmx.clone(), tmj_dir().join(tmj)));
        }
    }
    for t in [
        "encoding_csv",
        "encoding_base64",
        "encoding_zlib",
        "encoding_gzip",
        "encoding_zstd",
        "group_layers",
        "infinite",
        "external_tileset_and_template",
    ] {
        out.push((
            manifest().join(format!("tests/levels/{t}.tmx")),
            tmj_dir().join(format!("test-{t}.tmj")),
        ));
    }
    out.push((
        manifest().join("tests/levels/external_tileset_and_template.tmx"),
        tmj_dir().join("test-json_refs.tmj"),
    ));
    out
}

#[test]
fn every_tiled_json_export_loads_to_the_same_world_as_its_tmx() {
    let pairs = pairs();
    assert!(pairs.len() >= 2 * game::level::shipped::SHIPPED_LEVELS.len() + 9);
    for (tmx, tmj) in &pairs {
        assert!(
            tmj.is_file(),
            "{}: no Tiled export of {}; run assets/levels/export-tmj",
            tmj.display(),
            tmx.display()
        );
        let a = load(tmx).unwrap_or_else(|e| panic!("{e}"));
        let mut b = load(tmj).unwrap_or_else(|e| panic!("{e}"));
        // A map without a `name` property is called by its file's name.
        if b.level.name == tmj.file_stem().unwrap().to_string_lossy() {
            b.level.name = a.level.name.clone();
        }
        assert_eq!(
            world(&a),
            world(&b),
            "{} loads to another world than {}",
            tmj.display(),
            tmx.display()
        );
        assert_eq!(b.file, tmj.display().to_string());
    }
    // The exports are Tiled's own: the fixtures say which Tiled wrote them.
    let tutorial: Value =
        serde_json::from_str(&std::fs::read_to_string(tmj_dir().join("tutorial.tmj")).unwrap())
            .unwrap();
    assert!(tutorial["tiledversion"].as_str().is_some(), "{tutorial}");
}

/// Runs `ironstep` from the crate's folder.
fn ironstep(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .args(args)
        .current_dir(manifest())
        .env("WGPU_DEBUG", "0")
        .output()
        .expect("ironstep runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The autopilot's run of `level`: its metrics without the level's name
/// (every frame's position, state and contact figures, and the summary).
fn autopilot(level: &str, dir: &Path) -> Value {
    let metrics = dir.join(format!("{}.json", level.replace(['/', '.'], "_")));
    let m = metrics.display().to_string();
    let (code, out, err) = ironstep(&["run", "--autopilot", "--level", level, "--metrics", &m]);
    assert_eq!(code, 0, "{level}: stdout {out}\nstderr {err}");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&metrics).unwrap()).unwrap();
    assert_eq!(doc["summary"]["exit_reached"], true, "{level}: {out}");
    doc["level"] = Value::Null;
    doc
}

/// `bench`'s crowd on `level`: its pose checksum.
fn bench_checksum(level: &str, dir: &Path) -> String {
    let json = dir.join(format!("bench_{}.json", level.replace(['/', '.'], "_")));
    let j = json.display().to_string();
    let (code, out, err) = ironstep(&[
        "bench",
        "--level",
        level,
        "--characters",
        "4",
        "--frames",
        "30",
        "--warmup",
        "10",
        "--no-render",
        "--threads",
        "1",
        "--json",
        &j,
    ]);
    assert_eq!(code, 0, "{level}: stdout {out}\nstderr {err}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    doc["pose_checksum"]
        .as_str()
        .expect("pose_checksum")
        .to_string()
}

#[test]
fn every_shipped_level_plays_identically_from_its_tiled_json_export() {
    let dir = fresh_dir("tmj_plays");
    for name in game::level::shipped::shipped_names() {
        let tmx = format!("../assets/levels/{name}.tmx");
        let a = autopilot(&tmx, &dir);
        for tmj in [
            format!("tests/levels/tmj/{name}.tmj"),
            format!("tests/levels/tmj/{name}-tsj.tmj"),
        ] {
            let b = autopilot(&tmj, &dir);
            assert_eq!(
                a["summary"]["autopilot_frames_to_exit"], b["summary"]["autopilot_frames_to_exit"],
                "{tmj}: frames to the exit"
            );
            assert_eq!(a["summary"], b["summary"], "{tmj}: the run's figures");
            assert!(a == b, "{tmj}: a frame of the run differs from {tmx}'s");
        }
        let (ca, cb) = (
            bench_checksum(&tmx, &dir),
            bench_checksum(&format!("tests/levels/tmj/{name}.tmj"), &dir),
        );
        assert_eq!(ca, cb, "{name}: the crowd's pose checksum");
    }
}

/// A small valid TMJ map: two rows of air over two of Solid (10 × 4), a
/// spawn and an exit; `edit` changes the JSON before it is written.
fn tmj_map(edit: impl FnOnce(&mut Value)) -> String {
    let mut data = vec![0; 20];
    data.extend(vec![1; 20]);
    let mut v = serde_json::json!({
        "type": "map", "version": "1.10", "tiledversion": "1.11.0",
        "orientation": "orthogonal", "renderorder": "right-down",
        "width": 10, "height": 4, "tilewidth": 32, "tileheight": 32,
        "infinite": false, "nextlayerid": 3, "nextobjectid": 3,
        "tilesets": [{
            "firstgid": 1, "name": "t", "tilewidth": 32, "tileheight": 32,
            "tilecount": 3, "columns": 3, "image": "t.png", "imagewidth": 96, "imageheight": 32,
            "tiles": [{"id": 0, "type": "Solid"}, {"id": 1, "type": "OneWay"}]
        }],
        "layers": [
            {"type": "tilelayer", "id": 1, "name": "Ground", "width": 10, "height": 4,
             "x": 0, "y": 0, "opacity": 1, "visible": true, "data": data},
            {"type": "objectgroup", "id": 2, "name": "Objects", "objects": [
                {"id": 1, "type": "Spawn", "x": 48, "y": 64, "point": true},
                {"id": 2, "type": "Exit", "x": 272, "y": 64, "point": true}
            ]}
        ]
    });
    edit(&mut v);
    serde_json::to_string_pretty(&v).unwrap()
}

/// Malformed and hostile TMJ files, with what the one error must say after
/// the file's name.
fn malformed() -> Vec<(&'static str, String, &'static [&'static str])> {
    let deep_groups = {
        let mut l = serde_json::json!({"type": "tilelayer", "name": "G", "width": 10, "height": 4, "data": [1]});
        for _ in 0..70 {
            l = serde_json::json!({"type": "group", "name": "g", "layers": [l]});
        }
        l
    };
    vec![
        (
            "empty.tmj",
            String::new(),
            &[":line 1 column 0:", "not valid JSON", "ends early"],
        ),
        (
            "truncated.tmj",
            tmj_map(|_| {})[..200].to_string(),
            &["not valid JSON", "ends early"],
        ),
        (
            "array.tmj",
            "[1, 2]".into(),
            &[":line 1 column 0:", "expected a Tiled JSON document"],
        ),
        (
            "trailing.tmj",
            tmj_map(|_| {}) + "}",
            &["not valid JSON", "trailing characters"],
        ),
        (
            "tileset.tmj",
            r#"{"type":"tileset","name":"x"}"#.into(),
            &[":map:", "a tileset, not a map"],
        ),
        (
            "width_text.tmj",
            tmj_map(|v| v["width"] = "ten".into()),
            &[
                "not in Tiled's JSON format",
                "invalid type: string \"ten\"",
                "expected a JSON number",
            ],
        ),
        (
            "no_layers.tmj",
            tmj_map(|v| {
                v.as_object_mut().unwrap().remove("layers");
            }),
            &["missing field `layers`"],
        ),
        (
            "negative_gid.tmj",
            tmj_map(|v| v["layers"][0]["data"][3] = (-1).into()),
            &["invalid value: integer `-1`", "expected u32"],
        ),
        (
            "short_data.tmj",
            tmj_map(|v| v["layers"][0]["data"] = serde_json::json!([1, 1])),
            &[
                ":layer 'Ground':",
                "data length does not match",
                "2 tiles, not 10 × 4 = 40",
            ],
        ),
        (
            "wide_map.tmj",
            tmj_map(|v| v["width"] = 2_000_000.into()),
            &[":map:", "width 2000000 tiles", "limit of 4096"],
        ),
        (
            "unknown_gid.tmj",
            tmj_map(|v| v["layers"][0]["data"][25] = 77.into()),
            &[
                ":layer 'Ground' tile (5,2):",
                "tile gid 77 belongs to no tileset",
            ],
        ),
        (
            "huge_tilecount.tmj",
            tmj_map(|v| v["tilesets"][0]["tilecount"] = 3_000_000_000u64.into()),
            &[":tileset 't':", "tilecount 3000000000", "65536"],
        ),
        (
            "far_ladder.tmj",
            tmj_map(|v| {
                v["layers"][1]["objects"].as_array_mut().unwrap().push(serde_json::json!(
                    {"id": 5, "type": "Ladder", "x": 64, "y": -128000000, "width": 16, "height": 320}
                ))
            }),
            &[":object 5:", "y -128000000 px", "4096 tiles"],
        ),
        (
            "rung_flood.tmj",
            tmj_map(|v| {
                v["layers"][1]["objects"].as_array_mut().unwrap().push(serde_json::json!(
                    {"id": 5, "type": "Ladder", "x": 64, "y": 0, "width": 16, "height": 64,
                     "properties": [{"name": "rung_spacing", "type": "float", "value": 0.00001}]}
                ))
            }),
            &[":object 5:", "rungs", "16384"],
        ),
        (
            "text_spacing.tmj",
            tmj_map(|v| {
                v["layers"][1]["objects"].as_array_mut().unwrap().push(serde_json::json!(
                    {"id": 5, "type": "Ladder", "x": 64, "y": 0, "width": 16, "height": 64,
                     "properties": [{"name": "rung_spacing", "type": "string", "value": "wide"}]}
                ))
            }),
            &[":object 5:", "rung_spacing"],
        ),
        (
            "no_spawn.tmj",
            tmj_map(|v| v["layers"][1]["objects"][0]["type"] = "Spwn".into()),
            &[":map:", "no Spawn object"],
        ),
        (
            "isometric.tmj",
            tmj_map(|v| v["orientation"] = "isometric".into()),
            &[":map:", "Isometric maps are not supported"],
        ),
        (
            "deep_groups.tmj",
            tmj_map(|v| v["layers"][0] = deep_groups),
            &["too deep", "nested more than 128"],
        ),
        (
            "weird_layer.tmj",
            tmj_map(|v| v["layers"][0]["type"] = "hexagons".into()),
            &[":layer 'Ground':", "unknown layer type 'hexagons'"],
        ),
        (
            "control_char.tmj",
            tmj_map(|v| v["layers"][0]["name"] = "Gr\u{1}ound".into()),
            &[":map:", "control character U+0001"],
        ),
        (
            "outside_tileset.tmj",
            tmj_map(|v| {
                v["tilesets"][0] = serde_json::json!({"firstgid": 1, "source": "../outside.tsj"})
            }),
            &[":file '", "outside.tsj'", "outside the map's folder"],
        ),
        (
            "broken_tileset.tmj",
            tmj_map(|v| {
                v["tilesets"][0] = serde_json::json!({"firstgid": 1, "source": "broken.tsj"})
            }),
            &[":file '", "broken.tsj' line 1 column 8:", "not valid JSON"],
        ),
        (
            "bomb.tmj",
            tmj_map(|v| {
                v["layers"][0]["encoding"] = "base64".into();
                v["layers"][0]["compression"] = "zlib".into();
                // 40 cells declared; the zlib stream unpacks to 1 MiB.
                use base64::Engine;
                use std::io::Write;
                let mut z =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
                z.write_all(&vec![0u8; 1 << 20]).unwrap();
                v["layers"][0]["data"] = base64::engine::general_purpose::STANDARD
                    .encode(z.finish().unwrap())
                    .into();
            }),
            &[":layer 'Ground':", "more than 10 × 4 = 40 tiles"],
        ),
    ]
}

fn says(text: &str, file: &str, want: &[&str]) -> bool {
    text.contains(file) && want.iter().all(|w| text.contains(w))
}

#[test]
fn malformed_tmj_files_give_one_clear_error_naming_the_file_and_the_place() {
    let dir = fresh_dir("tmj_malformed");
    std::fs::write(dir.join("broken.tsj"), "{\"name\":").unwrap();
    for (name, text, want) in malformed() {
        let path = dir.join(name);
        std::fs::write(&path, &text).unwrap();
        let p = path.display().to_string();
        let (code, out, err) = ironstep(&["check-level", &p]);
        let all = format!("{out}{err}");
        assert_ne!(code, 0, "{name}: accepted\n{all}");
        assert!(!all.contains("panicked"), "{name}: {all}");
        let line = all
            .lines()
            .find(|l| l.contains(": error: "))
            .unwrap_or_else(|| panic!("{name}: no error line\n{all}"));
        assert!(
            line.starts_with(&format!("{p}:")) && says(line, name, want),
            "{name}: {want:?}\n{all}"
        );
        // `run` refuses it the same way, and so does designer mode.
        let (code, out, err) = ironstep(&["run", "--autopilot", "--level", &p, "--frames", "2"]);
        assert_ne!(code, 0, "{name}: run accepted it\n{out}{err}");
        assert!(
            says(&err, name, want) && !err.contains("panicked"),
            "{name}: {err}"
        );
        let e = LevelDoc::open(&path).unwrap_err();
        assert!(says(&e, name, want), "{name}: {want:?}\n{e}");
    }
}

/// Copies a fixture (and the tileset `tileset` it names) into a folder.
fn copy_fixture(dir: &Path, name: &str, tileset: &str) -> PathBuf {
    std::fs::copy(tmj_dir().join(tileset), dir.join(tileset)).unwrap();
    let path = dir.join(name);
    std::fs::copy(tmj_dir().join(name), &path).unwrap();
    path
}

/// The same designer edits, on any document: a ladder's top, its rung
/// spacing and first rung offset (added), one slope cell's heights (a new
/// `Slope` object), a plank lengthened by a tile, a moving platform's path
/// point.
fn designer_edits(doc: &mut LevelDoc) {
    let top = doc.level().ladders[0].top;
    doc.set_ladder_end(0, LadderEnd::Top, top - 0.25).unwrap();
    doc.set_rung_spacing(1, 0.28).unwrap();
    doc.set_first_rung_offset(0, 0.2).unwrap();
    let c = *doc
        .loaded()
        .columns
        .iter()
        .find(|c| c.slope && c.override_id.is_none())
        .expect("a slope cell");
    doc.set_slope_heights(c.col, c.row, 0.25, 0.75).unwrap();
    // The first plank with an empty cell right of it grows into it.
    let planks = doc.planks();
    let i = (0..planks.len())
        .find(|&i| {
            doc.clone()
                .set_plank_end(i, PlankEnd::Right, planks[i].col1 + 1)
                .is_ok()
        })
        .expect("a plank that can grow");
    doc.set_plank_end(i, PlankEnd::Right, planks[i].col1 + 1)
        .unwrap();
    let mut q = doc.level().platforms[0].path[1];
    q.x -= 0.5;
    doc.set_platform_point(0, 1, q).unwrap();
}

#[test]
fn designer_edits_of_a_tmj_change_only_the_edited_values_and_match_the_tmx() {
    let dir = fresh_dir("tmj_designer");
    for name in ["tutorial.tmj", "tutorial-tsj.tmj"] {
        let path = copy_fixture(&dir, name, "tutorial.tsj");
        let before = std::fs::read_to_string(&path).unwrap();
        let mut doc = LevelDoc::open(&path).unwrap();
        designer_edits(&mut doc);
        doc.save().unwrap();
        let after = std::fs::read_to_string(&path).unwrap();

        // The same edits of the TMX give the same world.
        let tmx = dir.join("tutorial.tmx");
        std::fs::copy(manifest().join("../assets/levels/tutorial.tmx"), &tmx).unwrap();
        let mut tmx_doc = LevelDoc::open(&tmx).unwrap();
        designer_edits(&mut tmx_doc);
        assert_eq!(world(doc.loaded()), world(tmx_doc.loaded()), "{name}");
        // The saved file reopens to that world, still as JSON.
        let reopened = load(&path).unwrap();
        assert_eq!(world(&reopened), world(doc.loaded()), "{name}");
        let v: Value = serde_json::from_str(&after).expect("saved as JSON");

        // Only the edited values changed: every line of the file before is
        // still there but the few holding an edited value, and the JSON
        // differs from the original only in those places.
        let old: Value = serde_json::from_str(&before).unwrap();
        let mut diffs = Vec::new();
        json_diff("", &old, &v, &mut diffs);
        let objs = |v: &Value| v["layers"][2]["objects"].as_array().unwrap().len();
        assert_eq!(objs(&v), objs(&old) + 1, "one Slope object added");
        for d in &diffs {
            assert!(
                d.starts_with("/nextobjectid: 9 -> 10")
                    || (d.starts_with("/layers/")
                        && d.contains("/data/")
                        && d.ends_with(": 0 -> 2"))
                    || d.contains("/layers/2/objects/1/y")
                    || d.contains("/layers/2/objects/1/height")
                    || d.contains("/layers/2/objects/1/properties")
                    || d.contains("/layers/2/objects/2/properties")
                    || d.contains("/layers/2/objects/4/polyline/1/x")
                    || d.contains("/layers/2/objects/8"),
                "{name}: an unexpected change {d}\nall: {diffs:#?}"
            );
        }
        let cells = diffs.iter().filter(|d| d.contains("/data/")).count();
        assert_eq!(cells, 1, "{name}: one plank tile added: {diffs:#?}");
        let lines_before: Vec<&str> = before.lines().collect();
        let lines_after: std::collections::HashSet<&str> = after.lines().collect();
        let lost: Vec<&&str> = lines_before
            .iter()
            .filter(|l| !lines_after.contains(**l))
            .collect();
        assert!(
            lost.len() <= 8,
            "{name}: {} lines changed: {lost:#?}",
            lost.len()
        );
    }
}

/// The paths where two JSON values differ.
fn json_diff(at: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                json_diff(
                    &format!("{at}/{k}"),
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                json_diff(
                    &format!("{at}/{i}"),
                    x.get(i).unwrap_or(&Value::Null),
                    y.get(i).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        _ if a != b => out.push(format!("{at}: {a} -> {b}")),
        _ => {}
    }
}

#[test]
fn hot_reload_follows_a_tmj_and_its_json_tileset_and_keeps_the_last_good_level() {
    let dir = fresh_dir("tmj_reload");
    let path = copy_fixture(&dir, "walls-tsj.tmj", "walls.tsj");
    let mut w = LevelWatcher::new(&path).unwrap();
    let original = w.current().level.segments.clone();
    let text = std::fs::read_to_string(&path).unwrap();

    // A broken save: the error names the file, the old level stays.
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    match w.wait(EVENT_WAIT) {
        Some(Reload::Error(msg)) => assert!(
            msg.contains("walls-tsj.tmj") && msg.contains("not valid JSON"),
            "{msg}"
        ),
        other => panic!("expected an error, got {other:?}"),
    }
    assert_eq!(w.current().level.segments, original);

    // The map fixed with one more Solid tile on the top row: reloaded.
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["layers"][0]["data"][0] = 1.into();
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    match w.wait(EVENT_WAIT) {
        Some(Reload::Reloaded(l)) => assert_ne!(l.level.segments, original),
        other => panic!("expected a reload, got {other:?}"),
    }
    assert!(w.last_error().is_none());

    // Saving the JSON tileset reloads too: the Solid tile's class gone,
    // the level has no ground and the error names the map.
    let tsj = dir.join("walls.tsj");
    let ts = std::fs::read_to_string(&tsj).unwrap();
    std::fs::write(&tsj, ts.replace("\"Solid\"", "\"Sold\"")).unwrap();
    match w.wait(EVENT_WAIT) {
        Some(Reload::Error(msg)) => assert!(msg.contains("walls-tsj.tmj"), "{msg}"),
        Some(Reload::Reloaded(l)) => {
            assert!(
                l.diagnostics.iter().any(|d| d.message.contains("'Sold'")),
                "{:?}",
                l.diagnostics
            )
        }
        None => panic!("saving the tileset did not reload the map"),
    }
}

/// The map of `designer.rs`'s window test as Tiled writes JSON: a 24 × 10
/// map of 32 px tiles, a floor, a 2 m wall on the right with a ladder up it
/// (object 3, top at y = 128 px, 128 px tall), one slope tile.
fn designer_window_level() -> String {
    let mut data = Vec::new();
    for r in 0..10 {
        for c in 0..24 {
            data.push(match (r, c) {
                (8 | 9, _) => 1,
                (4..=7, 14..) => 1,
                (7, 4) => 2,
                _ => 0,
            });
        }
    }
    let v = serde_json::json!({
        "compressionlevel": -1, "height": 10, "infinite": false,
        "layers": [
            {"data": data, "height": 10, "id": 1, "name": "Ground", "opacity": 1,
             "type": "tilelayer", "visible": true, "width": 24, "x": 0, "y": 0},
            {"draworder": "topdown", "id": 2, "name": "Objects", "opacity": 1, "type": "objectgroup",
             "visible": true, "x": 0, "y": 0, "objects": [
                {"height": 0, "id": 1, "name": "spawn", "point": true, "rotation": 0, "type": "Spawn",
                 "visible": true, "width": 0, "x": 368, "y": 256},
                {"height": 0, "id": 2, "name": "exit", "point": true, "rotation": 0, "type": "Exit",
                 "visible": true, "width": 0, "x": 656, "y": 128},
                {"height": 128, "id": 3, "name": "ladder", "rotation": 0, "type": "Ladder",
                 "visible": true, "width": 32, "x": 416, "y": 128,
                 "properties": [{"name": "rung_spacing", "type": "float", "value": 0.3}]}
            ]}
        ],
        "nextlayerid": 3, "nextobjectid": 4, "orientation": "orthogonal", "renderorder": "right-down",
        "tiledversion": "1.8.2", "tileheight": 32,
        "tilesets": [{"columns": 2, "firstgid": 1, "image": "tiles.png", "imageheight": 32,
            "imagewidth": 64, "margin": 0, "name": "t", "spacing": 0, "tilecount": 2,
            "tileheight": 32, "tilewidth": 32, "tiles": [
                {"id": 0, "type": "Solid"},
                {"id": 1, "type": "Slope", "properties": [
                    {"name": "left", "type": "float", "value": 0},
                    {"name": "right", "type": "float", "value": 1}]}
            ]}],
        "tilewidth": 32, "type": "map", "version": "1.8", "width": 24
    });
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn the_designer_window_drags_a_ladder_in_a_tmj_and_saves_json() {
    crate::common::require("xvfb-run", "xvfb xauth");
    crate::common::require("xdotool", "xdotool");
    let dir = fresh_dir("tmj-designer-window");
    let path = dir.join("copy.tmj");
    let original = designer_window_level();
    std::fs::write(&path, &original).unwrap();
    let bin = env!("CARGO_BIN_EXE_ironstep");
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    let script = format!(
        r#"cd '{dir}'
export XDG_RUNTIME_DIR='{runtime}' WGPU_DEBUG=0 IRONSTEP_DATA_DIR='{runtime}/data'
waitfor() {{ n=0; until grep -q "$1" out.txt; do n=$((n+1)); [ $n -gt 600 ] && {{ echo "timed out waiting for $1"; cat out.txt; kill $game; exit 1; }}; sleep 0.1; done; }}
'{bin}' play --edit --level copy.tmj --window-size 1280x720 --exit-after 1000000 > out.txt 2> err.txt &
game=$!
waitfor 'handle ladder 0 top'
set -- $(grep 'handle ladder 0 top' out.txt | head -n 1)
x=$7; y=$8
win=$(xdotool search --sync --name '^Ironstep$' | head -n 1)
xdotool windowfocus --sync "$win"
sleep 1
xdotool mousemove --window "$win" $x $y
sleep 0.3
xdotool mousedown 1
sleep 0.3
xdotool mousemove --window "$win" $x $((y - 20))
sleep 0.3
xdotool mousemove --window "$win" $x $((y - 40))
sleep 0.3
xdotool mouseup 1
sleep 0.3
xdotool key ctrl+s
waitfor 'designer: saved'
xdotool key Escape Up Return
wait $game
echo "exit $?""#,
        dir = dir.display(),
        runtime = runtime.display(),
    );
    crate::designer::run_window_script(&script, &dir);
    let saved = std::fs::read_to_string(&path).unwrap();
    let (old, new): (Value, Value) = (
        serde_json::from_str(&original).unwrap(),
        serde_json::from_str(&saved).expect("saved as JSON"),
    );
    let mut diffs = Vec::new();
    json_diff("", &old, &new, &mut diffs);
    assert!(
        !diffs.is_empty()
            && diffs.iter().all(|d| d.starts_with("/layers/1/objects/2/y:")
                || d.starts_with("/layers/1/objects/2/height:")),
        "{diffs:#?}"
    );
    let (y, h) = (
        new["layers"][1]["objects"][2]["y"].as_f64().unwrap(),
        new["layers"][1]["objects"][2]["height"].as_f64().unwrap(),
    );
    assert!(y < 128.0 && (128.0 - y) % 4.0 == 0.0, "y {y}");
    assert_eq!(y + h, 256.0, "the foot stays");
    // Only the two numbers' lines changed.
    let changed = original
        .lines()
        .zip(saved.lines())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(original.lines().count(), saved.lines().count());
    assert_eq!(changed, 2, "{saved}");
    let back = load(&path).unwrap();
    assert!((back.level.ladders[0].top - (3.0 + (128.0 - y) / 64.0) as f32).abs() < 1e-4);
}
