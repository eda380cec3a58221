//! End-to-end: the hostile and careless level files of issue 30, each built
//! here, through the real binary (`check-level`, `run --level`), designer
//! mode's document and hot reload. Each must end in one clear error naming
//! the file, the place, the value and the limit, with a non-zero exit: never
//! a hang, an abort, a "panicked at" or a silently changed level.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use game::level::edit::LevelDoc;
use game::level::watch::{LevelWatcher, Reload};

use crate::common::fresh_dir;

/// How long a hot reload may take to see a save (file events, debounce).
const EVENT_WAIT: Duration = Duration::from_secs(20);

/// The test tileset: gid 1 Solid, gid 2 OneWay, gid 3 decoration.
const TILESET: &str = r#"<tileset firstgid="1" name="t" tilewidth="32" tileheight="32" tilecount="3" columns="3"><image source="t.png" width="96" height="32"/><tile id="0" type="Solid"/><tile id="1" type="OneWay"/></tileset>"#;

/// A 10 × 4 map: two rows of air over two rows of Solid, a spawn and an
/// exit on the ground, and `extra` objects; `edit` changes the text.
fn map_text(extra: &str) -> String {
    let air = vec!["0"; 20].join(",");
    let ground = vec!["1"; 20].join(",");
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" renderorder="right-down" width="10" height="4" tilewidth="32" tileheight="32" infinite="0">
 {TILESET}
 <layer id="1" name="Ground" width="10" height="4"><data encoding="csv">{air},
{ground}</data></layer>
 <objectgroup id="2" name="Objects">
  <object id="1" type="Spawn" x="48" y="64"><point/></object>
  <object id="2" type="Exit" x="272" y="64"><point/></object>
  {extra}
 </objectgroup>
</map>
"#
    )
}

/// The files of the issue's table, by name, with what the error must say
/// (after the file name).
fn hostile_files() -> Vec<(&'static str, String, &'static [&'static str])> {
    let good = map_text("");
    vec![
        (
            "far_ladder.tmx",
            map_text(
                r#"<object id="5" type="Ladder" x="64" y="-128000000" width="16" height="320"/>"#,
            ),
            &[":object 5:", "y -128000000 px", "4096 tiles"],
        ),
        (
            "huge_slope.tmx",
            map_text(
                r#"<object id="6" type="Slope" x="0" y="0" width="3200000" height="3200000"/>"#,
            ),
            &[":object 6:", "3200000 px", "4096 tiles"],
        ),
        (
            "far_slope.tmx",
            map_text(
                r#"<object id="7" type="Slope" x="64000000000" y="64" width="32" height="32"/>"#,
            ),
            &[":object 7:", "x 64000000000 px"],
        ),
        (
            "wide_map.tmx",
            good.replacen("width=\"10\"", "width=\"2000000\"", 2),
            &[":map:", "map too large", "width 2000000", "4096"],
        ),
        (
            "stray_gid.tmx",
            good.replacen("1,1,1", "1,77,1", 1),
            &[
                ":layer 'Ground' tile (1,2):",
                "gid 77 belongs to no tileset",
            ],
        ),
        (
            "width_1e8.tmx",
            good.replacen("width=\"10\"", "width=\"100000000\"", 1),
            &[":map:", "map too large", "width 100000000"],
        ),
        (
            "short_data.tmx",
            good.replacen("width=\"10\"", "width=\"13\"", 2),
            &[
                ":layer 'Ground':",
                "data length does not match width × height",
                "13 × 4 = 52",
            ],
        ),
        (
            "buried_spawn.tmx",
            good.replace(
                r#"type="Spawn" x="48" y="64""#,
                r#"type="Spawn" x="48" y="112""#,
            ),
            &[":object 1:", "spawn inside a solid at (0.75, 0.25) m"],
        ),
    ]
}

/// Writes the hostile files into a fresh folder.
fn write_all(tag: &str) -> (PathBuf, Vec<(PathBuf, &'static [&'static str])>) {
    let dir = fresh_dir(tag);
    let files = hostile_files()
        .into_iter()
        .map(|(name, text, want)| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            (path, want)
        })
        .collect();
    (dir, files)
}

fn ironstep(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("ironstep runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `text` names `file` and then says everything in `want`.
fn says(text: &str, file: &str, want: &[&str]) -> bool {
    text.lines()
        .any(|l| l.contains(file) && want.iter().all(|w| l.contains(w)))
}

#[test]
fn the_good_map_of_these_tests_loads_and_checks_clean() {
    let dir = fresh_dir("hostile-good");
    std::fs::write(dir.join("good.tmx"), map_text("")).unwrap();
    let (code, out, err) = ironstep(&dir, &["check-level", "good.tmx"]);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(out.contains("1 level files OK"), "{out}");
    std::fs::write(dir.join("walk.txt"), "0 press right\n").unwrap();
    let args = [
        "run", "--level", "good.tmx", "--input", "walk.txt", "--frames", "8",
    ];
    let (code, out, err) = ironstep(&dir, &args);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
}

#[test]
fn check_level_refuses_each_hostile_file_with_one_clear_error() {
    let (dir, files) = write_all("hostile-check");
    for (path, want) in &files {
        let name = path.file_name().unwrap().to_str().unwrap();
        let (code, out, err) = ironstep(&dir, &["check-level", name]);
        assert_ne!(code, 0, "{name}: stdout: {out}\nstderr: {err}");
        assert!(says(&out, name, want), "{name}: {want:?}\nstdout: {out}");
        assert_eq!(out.lines().count(), 1, "{name}: one error\n{out}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert!(!out.contains("level files OK"), "{name}: {out}");
    }
}

#[test]
fn run_refuses_each_hostile_level_with_a_non_zero_exit() {
    let (dir, files) = write_all("hostile-run");
    std::fs::write(dir.join("walk.txt"), "0 press right\n").unwrap();
    for (path, want) in &files {
        let name = path.file_name().unwrap().to_str().unwrap();
        let args = [
            "run", "--level", name, "--input", "walk.txt", "--frames", "8",
        ];
        let (code, out, err) = ironstep(&dir, &args);
        assert_ne!(code, 0, "{name}: stdout: {out}\nstderr: {err}");
        assert!(says(&err, name, want), "{name}: {want:?}\nstderr: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}

#[test]
fn designer_mode_refuses_to_open_them_and_refuses_an_edit_that_makes_one() {
    let (dir, files) = write_all("hostile-designer");
    for (path, want) in &files {
        let name = path.file_name().unwrap().to_str().unwrap();
        let Err(e) = LevelDoc::open(path) else {
            panic!("{name}: designer mode opened it");
        };
        assert!(says(&e, name, want), "{name}: {want:?}\n{e}");
    }
    // Dragging a good ladder's top four million metres up is refused and
    // leaves the document as it was (the editor then checks nothing huge).
    let path = dir.join("ladder.tmx");
    std::fs::write(
        &path,
        map_text(
            r#"<object id="5" type="Ladder" x="96" y="0" width="16" height="64"><properties><property name="rung_spacing" type="float" value="0.3"/></properties></object>"#,
        ),
    )
    .unwrap();
    let mut doc = LevelDoc::open(&path).unwrap();
    let before = doc.text().to_string();
    let e = doc.set_ladder_extent(0, 1.0, 4.0e6).unwrap_err();
    assert!(
        e.contains("ladder.tmx:object 5:") && e.contains("4096 tiles"),
        "{e}"
    );
    assert_eq!(doc.text(), before);
}

#[test]
fn hot_reload_keeps_the_good_level_and_reports_each_hostile_save() {
    let dir = fresh_dir("hostile-reload");
    let path = dir.join("level.tmx");
    std::fs::write(&path, map_text("")).unwrap();
    let mut w = LevelWatcher::new(&path).unwrap();
    let good = w.current().level.segments.clone();
    for (name, text, want) in hostile_files() {
        std::fs::write(&path, text).unwrap();
        match w.wait(EVENT_WAIT) {
            Some(Reload::Error(msg)) => {
                assert!(
                    says(&msg, "level.tmx", want) && msg.contains("keeping the last good level"),
                    "{name}: {want:?}\n{msg}"
                );
            }
            other => panic!("{name}: expected an error, got {other:?}"),
        }
        assert_eq!(w.current().level.segments, good, "{name}: old level kept");
    }
}

#[test]
fn a_level_naming_a_device_or_a_file_outside_its_folder_is_refused() {
    let dir = fresh_dir("hostile-paths");
    let levels = dir.join("levels");
    std::fs::create_dir_all(&levels).unwrap();
    std::fs::write(
        dir.join("outside.tsx"),
        TILESET.replace("firstgid=\"1\" ", ""),
    )
    .unwrap();
    let naming = |source: &str| {
        map_text("").replace(
            TILESET,
            &format!(r#"<tileset firstgid="1" source="{source}"/>"#),
        )
    };
    for (name, source, want) in [
        ("up.tmx", "../outside.tsx", "outside the map's folder"),
        ("abs.tmx", "/etc/passwd", "outside the map's folder"),
        ("zero.tmx", "/dev/zero", "outside the map's folder"),
        ("folder.tmx", ".", "not a regular file"),
    ] {
        std::fs::write(levels.join(name), naming(source)).unwrap();
        let (code, out, err) = ironstep(&levels, &["check-level", name]);
        assert_ne!(code, 0, "{name}: {out}{err}");
        assert!(
            says(&out, name, &[source, want]),
            "{name}: {source} {want}\n{out}"
        );
    }
    // The map itself may be anywhere the user points, but must be a
    // regular file: a pipe named like a map is refused, not waited on.
    #[cfg(unix)]
    {
        let made = Command::new("mkfifo").arg(dir.join("pipe.tmx")).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let (code, out, err) = ironstep(&dir, &["check-level", "pipe.tmx"]);
        assert_ne!(code, 0, "{out}{err}");
        assert!(
            says(&out, "pipe.tmx", &[":map:", "not a regular file"]),
            "{out}"
        );
    }
}
