//! Runs the `window_smoke` example under Xvfb: it must open a window, present
//! at least 60 frames, skip drawing while minimised, follow a resize, save a
//! screenshot and exit by itself.
//! Fails (does not skip) when `xvfb-run` is missing.

use std::path::PathBuf;
use std::process::Command;

/// Frames the example must present.
const FRAMES: u32 = 70;
/// Largest share of the screenshot one colour may cover (the background
/// covers about two thirds of the demo scene).
const MAX_SINGLE_COLOUR_SHARE: f64 = 0.9;
/// Least number of distinct colours in the screenshot.
const MIN_COLOURS: usize = 50;

/// Builds the example (a no-op when `cargo test` already built it fresh:
/// `cargo test --test window` alone does not build examples, and a stale
/// binary would test old code) and returns its path.
fn example_binary() -> PathBuf {
    // Integration tests live in <target>/<profile dir>/deps.
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|p| p.parent()).unwrap();
    let target_dir = profile_dir.parent().unwrap();
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev".to_owned(),
        Some(other) => other.to_owned(),
        None => panic!("unexpected test path {}", exe.display()),
    };
    let out = Command::new(env!("CARGO"))
        .args([
            "build",
            // The whole workspace, as `cargo test --workspace` selects it:
            // with `-p renderer` alone, cargo unifies wgpu's features
            // differently and rebuilds the whole wgpu stack (minutes in CI).
            "--workspace",
            "--example",
            "window_smoke",
            "--profile",
        ])
        .arg(&profile)
        .arg("--target-dir")
        .arg(target_dir)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "building the window_smoke example failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    profile_dir.join("examples").join("window_smoke")
}

#[test]
fn window_opens_presents_resizes_and_screenshots_under_xvfb() {
    let xvfb = Command::new("xvfb-run").arg("--help").output();
    assert!(
        xvfb.is_ok(),
        "xvfb-run is missing: install it with `apt-get install --no-install-recommends xvfb xauth` (tests/run does this)"
    );
    let bin = example_binary();
    assert!(
        bin.exists(),
        "{} was not built by `cargo build --example window_smoke`",
        bin.display()
    );
    let dir = std::env::temp_dir().join(format!("ironstep-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("shot.png");
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(&bin)
        .args(["--frames", &FRAMES.to_string(), "--screenshot"])
        .arg(&shot)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "window_smoke failed: {}\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("resized to 800x450"), "{stdout}");
    assert!(
        stdout.contains("minimised) surface skipped drawing"),
        "{stdout}"
    );
    let presented: u32 = stdout
        .split("presented ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no frame count in: {stdout}"));
    assert!(presented >= 60, "only {presented} frames presented");
    let (w, h, rgba) = renderer::read_png_rgba(&shot).unwrap();
    assert_eq!((w, h), (800, 450));
    // A drawn scene: no colour covers nearly all of it, and shading gives
    // many distinct colours (a blank or cleared-only frame has one).
    let mut colours: Vec<u32> = rgba
        .chunks_exact(4)
        .map(|p| u32::from_le_bytes([p[0], p[1], p[2], 0]))
        .collect();
    colours.sort_unstable();
    let mut most_common = 0;
    let mut distinct = 0;
    for run in colours.chunk_by(|a, b| a == b) {
        most_common = most_common.max(run.len());
        distinct += 1;
    }
    let share = most_common as f64 / colours.len() as f64;
    assert!(
        share < MAX_SINGLE_COLOUR_SHARE && distinct > MIN_COLOURS,
        "screenshot looks blank: one colour covers {:.0}%, {distinct} colours",
        share * 100.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}
