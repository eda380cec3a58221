//! The F3 profiling overlay renders in the real game window under Xvfb:
//! `ironstep play --profile` shows it from the first frame, and a screenshot
//! of the window's picture is not blank and has the overlay's dark frame-time
//! graph where the sky would otherwise be.
//!
//! Needs `xvfb-run` (tests/run installs it); without it the test fails with
//! what to install rather than skipping.

use crate::common;
use common::*;

use std::path::Path;

#[test]
fn f3_overlay_renders_in_the_window() {
    require("xvfb-run", "xvfb xauth");
    let dir = fresh_dir("profile-overlay");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scripts/slopes_walk.txt");
    let out = xvfb("1280x720x24")
        .arg(env!("CARGO_BIN_EXE_ironstep"))
        .args([
            "play",
            "--level",
            "builtin",
            "--profile",
            "--window-size",
            "960x540",
        ])
        .args(["--exit-after", "30", "--screenshot-at", "28"])
        .arg("--input")
        .arg(&script)
        .arg("--screenshot-dir")
        .arg(&dir)
        .env("WGPU_DEBUG", "0")
        .env("IRONSTEP_DATA_DIR", dir.join("data"))
        .output()
        .expect("run xvfb-run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the game failed:\n{stdout}\n{stderr}");
    let path = dir.join("window_00028.png");
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e}\n{stdout}\n{stderr}", path.display())),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.line_size / info.width as usize;
    let px = |x: u32, y: u32| {
        let i = y as usize * info.line_size + x as usize * channels;
        [buf[i], buf[i + 1], buf[i + 2]]
    };
    let mut colours = std::collections::HashSet::new();
    for y in (0..info.height).step_by(4) {
        for x in (0..info.width).step_by(4) {
            let p = px(x, y);
            colours.insert([p[0] >> 3, p[1] >> 3, p[2] >> 3]);
        }
    }
    assert!(
        colours.len() > 50,
        "a blank picture: {} colours",
        colours.len()
    );
    // The graph's dark background, top left, over what is sky without it.
    let g = px(60, 120);
    assert!(
        g.iter().all(|&c| c < 40),
        "graph pixel {g:?} is not the overlay's"
    );
}
