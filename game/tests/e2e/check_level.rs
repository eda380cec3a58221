//! End-to-end tests of `ironstep check-level` and of the loader on maps in
//! every encoding and layout Tiled writes.

use std::path::{Path, PathBuf};
use std::process::Command;

use game::level;

fn levels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/levels")
}

fn ironstep(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("ironstep runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_encoding_and_layout_loads_to_the_same_level() {
    let reference = level::load(levels_dir().join("encoding_csv.tmx")).unwrap();
    assert_eq!(reference.level.ladders.len(), 1);
    for name in [
        "encoding_base64.tmx",
        "encoding_zlib.tmx",
        "encoding_gzip.tmx",
        "encoding_zstd.tmx",
        "infinite.tmx",
        "group_layers.tmx",
        "external_tileset_and_template.tmx",
    ] {
        let l = level::load(levels_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(l.level.segments, reference.level.segments, "{name}");
        assert_eq!(l.level.ladders, reference.level.ladders, "{name}");
        assert_eq!(l.level.spawn, reference.level.spawn, "{name}");
        assert_eq!(l.level.exit, reference.level.exit, "{name}");
        assert!(l.diagnostics.is_empty(), "{name}: {:?}", l.diagnostics);
    }
}

#[test]
fn an_embedded_map_cannot_reach_external_tilesets_and_says_so() {
    let text =
        std::fs::read_to_string(levels_dir().join("external_tileset_and_template.tmx")).unwrap();
    let e = level::from_tmx_str(&text, "embedded.tmx")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("embedded.tmx:"), "{e}");
}

#[test]
fn check_level_passes_the_shipped_levels_with_exit_code_zero() {
    let (code, out, err) = ironstep(&[
        "check-level",
        "../assets/levels/tutorial.tmx",
        "../assets/levels/long.tmx",
    ]);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(out.contains("2 level files OK"), "{out}");
}

#[test]
fn check_level_prints_file_location_message_and_fails_on_errors() {
    let (code, out, err) = ironstep(&[
        "check-level",
        "tests/levels/encoding_csv.tmx",
        "tests/levels/bad_ladder.tmx",
    ]);
    assert_ne!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(
        lines[0],
        "tests/levels/bad_ladder.tmx:object 3: error: unknown property 'colour' on a Ladder (known: rung_spacing, first_rung_offset)"
    );
    assert!(
        lines[1].starts_with(
            "tests/levels/bad_ladder.tmx:object 3: error: ladder rung spacing 0.500 m"
        ),
        "{out}"
    );
    assert!(err.contains("1 of 2 level files have errors"), "{err}");
}

#[test]
fn check_level_json_lists_every_file_and_finding() {
    let (code, out, _) = ironstep(&[
        "check-level",
        "--json",
        "tests/levels/encoding_csv.tmx",
        "tests/levels/bad_ladder.tmx",
        "tests/levels/missing.tmx",
    ]);
    assert_ne!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let files = v.as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["diagnostics"].as_array().unwrap().len(), 0);
    let bad = files[1]["diagnostics"].as_array().unwrap();
    assert_eq!(bad.len(), 2);
    assert_eq!(bad[1]["severity"], "error");
    assert_eq!(bad[1]["location"], "object 3");
    assert_eq!(files[2]["loaded"], false);
    assert!(
        files[2]["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("missing.tmx"),
        "{out}"
    );
}

#[test]
fn check_level_reports_third_party_maps_clearly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/assets/third_party/tiled/mapeditor-tiled-examples/forest/forest.tmx");
    let path = root.display().to_string();
    let (code, out, _) = ironstep(&["check-level", &path]);
    assert_ne!(code, 0);
    assert_eq!(
        out.trim(),
        format!("{path}:map: error: no ground: no tile has the class Solid, Slope or OneWay")
    );
}

#[test]
fn check_level_reports_ladder_feet_platform_paths_and_the_unreachable_place() {
    // The CSV test map with its ladder cut short (its foot 1.5 m above the
    // low floor, so the wall is not climbed) and a moving platform driven
    // into the wall; no corner grabbable (the wall's would be caught).
    let text = std::fs::read_to_string(levels_dir().join("encoding_csv.tmx")).unwrap();
    let text = text
        .replace(
            "x=\"170\" y=\"32\" width=\"16\" height=\"192\"",
            "x=\"170\" y=\"32\" width=\"16\" height=\"96\"",
        )
        .replace(
            " </objectgroup>",
            "  <object id=\"5\" type=\"MovingPlatform\" x=\"96\" y=\"128\"><polyline points=\"0,0 224,0\"/></object>\n  <object id=\"6\" type=\"NoGrab\" x=\"0\" y=\"0\" width=\"384\" height=\"256\"/>\n </objectgroup>",
        );
    let dir = std::env::temp_dir().join(format!("ironstep-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("broken.tmx");
    std::fs::write(&path, text).unwrap();
    let file = path.display().to_string();
    let (code, out, _) = ironstep(&["check-level", &file]);
    assert_ne!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(
        lines[0],
        format!(
            "{file}:object 3: error: ladder bottom at 2.00 m has no floor to stand on within 0.45 m of it"
        )
    );
    assert_eq!(
        lines[1],
        format!(
            "{file}:object 5: error: moving platform's box enters a solid with its top centre at (2.30, 2.00) m on its path"
        )
    );
    assert!(
        lines[2].starts_with(&format!(
            "{file}:object 2: error: exit at (5.25, 3.50) m is unreachable from the spawn: the first place not reached is the floor from x 3.00 to 5.75 m at height 3.50..3.50 m; the farthest reached is the floor from x 0.25 to "
        )),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_shipped_level_needs_a_ledge_grab_to_reach_its_exit() {
    // Issue 34: each shipped level has a place only a grab reaches (the
    // tutorial, the Long Climb and the Tower each hold their exit on top of
    // a 3 m wall). The level as shipped passes; the same map with a NoGrab
    // rectangle over all of it (no corner can be caught) has its exit
    // unreachable, the first place not reached being the wall's top.
    let dir = std::env::temp_dir().join(format!("ironstep-needs-grab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in game::level::shipped::shipped_names() {
        let shipped = format!("../assets/levels/{name}.tmx");
        let (code, out, err) = ironstep(&["check-level", &shipped]);
        assert_eq!(code, 0, "{name}: stdout {out}\nstderr {err}");
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&shipped)).unwrap();
        assert_eq!(text.matches(" </objectgroup>").count(), 1, "{name}");
        let text = text.replace(
            " </objectgroup>",
            "  <object id=\"9999\" type=\"NoGrab\" x=\"0\" y=\"0\" width=\"100000\" height=\"100000\"/>\n </objectgroup>",
        );
        let path = dir.join(format!("{name}.tmx"));
        std::fs::write(&path, text).unwrap();
        let file = path.display().to_string();
        let (code, out, _) = ironstep(&["check-level", &file]);
        assert_ne!(code, 0, "{name}: reached without a grab: {out}");
        let exit = level::load(&path).unwrap().level.exit;
        let unreachable = out
            .lines()
            .find(|l| l.contains("error: exit at"))
            .unwrap_or_else(|| panic!("{name}: {out}"));
        // The first place not reached is the floor at the exit's height
        // (the wall's top), named before the farthest place reached.
        let first = unreachable.split("; the farthest reached").next().unwrap();
        assert!(
            first.contains(
                "is unreachable from the spawn: the first place not reached is the floor"
            ) && first.ends_with(&format!("at height {:.2}..{:.2} m", exit.y, exit.y)),
            "{name}: {unreachable}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
