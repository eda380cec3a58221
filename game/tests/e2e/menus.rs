//! End-to-end tests of the game's menus and save files in a real window
//! under Xvfb.
//!
//! The first drives a bare `ironstep play` (the title screen) with real key
//! presses (XTEST, via xdotool): Down to Level select, Enter, Enter on the
//! tutorial, a walk, Esc to pause, Esc to resume, and Quit from the pause
//! menu. Every step waits on the `flow: ...` line the game prints when its
//! screen or selection changes, never on a frame count; the level the game
//! loads, the screens in order and the knight's walk are checked from
//! those lines. The second starts the game over corrupt save files: each is
//! reported in one line naming it and the reason, kept aside and replaced,
//! and the game plays.
//!
//! Needs `xvfb-run` and `xdotool` (tests/run installs them); without them
//! the tests fail with what to install rather than skipping.

use crate::common;
use common::*;

/// The `flow: screen ...` lines of the game's stdout: (screen, selected
/// item, player x).
fn screens(out: &str) -> Vec<(String, String, f32)> {
    out.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("flow: screen ")?;
            let (screen, rest) = rest.split_once(" selected \"")?;
            let (item, rest) = rest.split_once("\" player ")?;
            let x = rest.split_whitespace().next()?.parse().ok()?;
            Some((screen.to_string(), item.to_string(), x))
        })
        .collect()
}

#[test]
fn keys_lead_from_the_title_into_a_level_and_pause_and_resume_it() {
    require("xvfb-run", "xvfb xauth");
    require("xdotool", "xdotool");
    let dir = fresh_dir("menus-e2e");
    let bin = env!("CARGO_BIN_EXE_ironstep");
    let script = format!(
        r#"{WAITFOR}
'{bin}' play --window-size 960x540 --screenshot-on-exit --screenshot-dir . > out.txt 2> err.txt &
game=$!
win=$(xdotool search --sync --name '^Ironstep$' | head -n 1)
xdotool windowfocus --sync "$win"
waitfor 'flow: screen Title selected "Play"'
xdotool key Down
waitfor 'selected "Level select"'
xdotool key Return
waitfor 'flow: screen LevelSelect'
xdotool key Return
waitfor 'flow: screen Playing'
xdotool keydown Right
sleep 2
xdotool keyup Right
xdotool key Escape
waitcount 'flow: screen Paused' 1
xdotool key Escape
waitcount 'flow: screen Playing' 2
xdotool key Escape
waitcount 'flow: screen Paused' 2
xdotool key Up
waitfor 'selected "Quit"'
xdotool key Return
wait $game
echo "exit $?""#
    );
    let out = run_in_xvfb(&script, &dir);
    let seen = screens(&out);
    let names: Vec<(&str, &str)> = seen
        .iter()
        .map(|(s, i, _)| (s.as_str(), i.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("Title", "Play"),
            ("Title", "Level select"),
            ("LevelSelect", "1. Tutorial"),
            ("Playing", ""),
            ("Paused", "Resume"),
            ("Playing", ""),
            ("Paused", "Resume"),
            ("Paused", "Quit"),
        ],
        "{out}"
    );
    assert!(
        out.contains("flow: level tutorial (Tutorial)"),
        "the tutorial was loaded: {out}"
    );
    // The knight walked while playing and stood still while paused.
    let x_start = seen[3].2;
    let x_paused = seen[4].2;
    assert!(
        x_paused > x_start + 0.1,
        "walked right: {x_start} then {x_paused}"
    );
    // The picture taken on quitting is the pause menu over the level.
    let shot = out
        .lines()
        .find_map(|l| l.strip_prefix("screenshot "))
        .and_then(|l| l.split_whitespace().next())
        .expect("a screenshot on quitting");
    let (w, h, rgba) = renderer::read_png_rgba(&dir.join(shot)).unwrap();
    assert_eq!((w, h), (960, 540));
    assert!(distinct_colours(&rgba) > 40, "{shot} looks blank");
}

#[test]
fn corrupt_save_files_are_reported_kept_and_replaced_and_the_game_plays() {
    require("xvfb-run", "xvfb xauth");
    let dir = fresh_dir("menus-corrupt-save");
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("progress.ron"),
        "(completed: {\"tutorial\": (best_",
    )
    .unwrap();
    std::fs::write(data.join("settings.ron"), "(volume: 3.5)").unwrap();
    let bin = env!("CARGO_BIN_EXE_ironstep");
    let script = format!(
        "'{bin}' play --level builtin --window-size 320x180 --exit-after 5 > out.txt 2> err.txt\necho \"exit $?\""
    );
    run_in_xvfb(&script, &dir);
    let err = std::fs::read_to_string(dir.join("err.txt")).unwrap();
    for (file, reason) in [
        ("progress.ron", "unexpected field named `best_`"),
        ("settings.ron", "volume is 3.5"),
    ] {
        let path = data.join(file);
        let lines: Vec<&str> = err
            .lines()
            .filter(|l| l.contains(&path.display().to_string()))
            .collect();
        assert_eq!(lines.len(), 1, "one line for {file}:\n{err}");
        assert!(
            lines[0].contains("corrupt save file")
                && lines[0].to_lowercase().contains(reason)
                && lines[0].contains("replaced"),
            "{}",
            lines[0]
        );
        // Kept aside, and replaced by a file that reads cleanly.
        assert!(data.join(format!("{file}.corrupt")).is_file());
    }
    let store = game::flow::SaveStore::at(&data);
    assert_eq!(store.load_progress(), (Default::default(), None));
    assert_eq!(store.load_settings(), (Default::default(), None));
}
