//! Runs the `window_smoke` example under Xvfb: it must open a window, present
//! at least 60 frames, follow a resize, save a screenshot and exit by itself.
//! Fails (does not skip) when `xvfb-run` is missing.

use std::path::PathBuf;
use std::process::Command;

/// Frames the example must present.
const FRAMES: u32 = 70;

fn example_binary() -> PathBuf {
    // Integration tests live in target/<profile>/deps; cargo builds examples
    // into target/<profile>/examples when it builds tests.
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|p| p.parent()).unwrap();
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
    assert!(bin.exists(), "{} not built; run `cargo test -p renderer` (it builds examples)", bin.display());
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
    assert!(out.status.success(), "window_smoke failed: {}\n{stdout}\n{stderr}", out.status);
    assert!(stdout.contains("resized to 800x450"), "{stdout}");
    let (w, h, rgba) = renderer::read_png_rgba(&shot).unwrap();
    assert_eq!((w, h), (800, 450));
    let first = &rgba[..4];
    let differing = rgba.chunks_exact(4).filter(|p| *p != first).count();
    assert!(differing > (w * h / 4) as usize, "screenshot looks blank");
    let _ = std::fs::remove_dir_all(&dir);
}
