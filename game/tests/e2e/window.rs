//! End-to-end: the real `ironstep` opens its window under Xvfb straight
//! into play (`--level builtin`), real key presses (XTEST, via xdotool) walk
//! the knight, and two screenshots of the window's picture (at frame 3, and
//! when the pause menu's Quit quits) show him moved, on a picture that is
//! not blank.
//!
//! Needs `xvfb-run` and `xdotool` (tests/run installs them); without them the
//! test fails with what to install rather than skipping.

use crate::common;
use common::*;

use std::path::Path;

#[test]
fn keys_walk_the_knight_in_a_real_window() {
    require("xvfb-run", "xvfb xauth");
    require("xdotool", "xdotool");
    let dir = fresh_dir("window-e2e");
    let bin = env!("CARGO_BIN_EXE_ironstep");
    // xdotool finds the window, focuses it, holds the right arrow for three
    // seconds and quits through the pause menu (Esc pauses, Up wraps to
    // Quit, Enter); the game saves a screenshot at frame 3 and one more
    // when it quits. Everything waits on events (the window
    // appearing, the key presses in order), not on a frame count, so a slow
    // or loaded machine only makes the walk shorter, never missed.
    let script = format!(
        r#"'{bin}' play --level builtin --window-size 640x360 --screenshot-at 3 --screenshot-on-exit --screenshot-dir '{dir}' &
game=$!
win=$(xdotool search --sync --name '^Ironstep$' | head -n 1)
xdotool windowfocus --sync "$win"
xdotool keydown Right
sleep 3
xdotool keyup Right
xdotool key Escape Up Return
wait $game"#,
        dir = dir.display()
    );
    let out = xvfb("1024x768x24")
        .args(["sh", "-c", &script])
        .env("IRONSTEP_DATA_DIR", dir.join("data"))
        .output()
        .expect("run xvfb-run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the game failed:\n{stdout}\n{stderr}");
    // "screenshot PATH player X Y", one line per screenshot.
    let shots: Vec<(String, f32)> = stdout
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() == 5 && w[0] == "screenshot")
                .then(|| (w[1].to_string(), w[3].parse().unwrap()))
        })
        .collect();
    assert_eq!(shots.len(), 2, "two screenshots:\n{stdout}\n{stderr}");
    assert!(
        shots[1].1 > shots[0].1 + 0.5,
        "the knight walked right: x {} then {}",
        shots[0].1,
        shots[1].1
    );
    let mut pictures = Vec::new();
    for (path, _) in &shots {
        let (w, h, rgba) = renderer::read_png_rgba(Path::new(path)).unwrap();
        assert_eq!((w, h), (640, 360));
        let n = distinct_colours(&rgba);
        assert!(n > 40, "{path} looks blank ({n} colours)");
        pictures.push(rgba);
    }
    let changed = pictures[0]
        .chunks_exact(4)
        .zip(pictures[1].chunks_exact(4))
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed > 1000, "the picture changed ({changed} pixels)");
}
