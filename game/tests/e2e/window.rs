//! End-to-end: the real `ironstep` opens its window under Xvfb straight
//! into play (`--level builtin`), real key presses (XTEST, via xdotool) walk
//! the knight, and screenshots of the window's picture (at frame 3, at frame
//! 60 while the key is held, and when the pause menu's Quit quits) show him
//! moved, on a picture that is not blank.
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
    // xdotool finds the window and focuses it; once the game has saved its
    // frame-3 screenshot it holds the right arrow until the game has saved
    // the one at frame 60 (57 rendered frames of walking, each at least one
    // fixed step, however slow the machine), then quits through the pause
    // menu, each key after the game printed that the one before took
    // effect (Esc pauses, Up wraps to Quit, Enter). The game saves one more
    // screenshot as it quits. Everything waits on the game's own output
    // lines (60 s at most each, a hang, not a speed, limit), never on time.
    let script = format!(
        r#"waitfor() {{ n=0; until grep -q "$1" out.txt; do n=$((n+1)); [ $n -gt 600 ] && {{ echo "timed out waiting for $1"; kill $game; exit 1; }}; sleep 0.1; done; }}
'{bin}' play --level builtin --window-size 640x360 --screenshot-at 3,60 --screenshot-on-exit --screenshot-dir '{dir}' > out.txt 2> err.txt &
game=$!
win=$(xdotool search --sync --name '^Ironstep$' | head -n 1)
xdotool windowfocus --sync "$win"
waitfor 'window_00003.png'
xdotool keydown Right
waitfor 'window_00060.png'
xdotool keyup Right
xdotool key Escape
waitfor 'flow: screen Paused'
xdotool key Up
waitfor 'selected "Quit"'
xdotool key Return
wait $game
echo "exit $?""#,
        dir = dir.display()
    );
    let out = xvfb("1024x768x24")
        .args(["sh", "-c", &script])
        .current_dir(&dir)
        .env("IRONSTEP_DATA_DIR", dir.join("data"))
        .output()
        .expect("run xvfb-run");
    let script_out = String::from_utf8_lossy(&out.stdout);
    let stdout = std::fs::read_to_string(dir.join("out.txt")).unwrap_or_default();
    let stderr = std::fs::read_to_string(dir.join("err.txt")).unwrap_or_default();
    assert!(
        out.status.success() && script_out.contains("exit 0"),
        "the game failed:\n{script_out}\n{}\ngame stdout:\n{stdout}\ngame stderr:\n{stderr}",
        String::from_utf8_lossy(&out.stderr)
    );
    // "screenshot PATH player X Y", one line per screenshot.
    let shots: Vec<(String, f32)> = stdout
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() == 5 && w[0] == "screenshot")
                .then(|| (w[1].to_string(), w[3].parse().unwrap()))
        })
        .collect();
    assert_eq!(shots.len(), 3, "three screenshots:\n{stdout}\n{stderr}");
    assert!(
        shots[2].1 > shots[0].1 + 0.5,
        "the knight walked right: x {} then {}",
        shots[0].1,
        shots[2].1
    );
    // The first picture and the last.
    let mut pictures = Vec::new();
    for (path, _) in [&shots[0], &shots[2]] {
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
