//! End-to-end: the real `ironstep ik-lab` opens its window under Xvfb, a
//! scripted target moves around a circle, and two screenshots (scene and egui
//! panel) are non-blank and differ because the chains followed the target.
//!
//! Needs `xvfb-run` (tests/run installs it); without it the test fails with
//! what to install rather than skipping.

use crate::common;
use common::*;

/// Minimum distinct colours of a picture with a panel, text and chains: a
/// blank or single-colour frame has 1–2.
const MIN_COLOURS: usize = 12;
/// Pixels that must differ between the two screenshots: the five chains and
/// targets move by tens of pixels each between frames 10 and 40.
const MIN_CHANGED_PIXELS: usize = 200;

#[test]
fn scripted_target_moves_the_chains_in_a_real_window() {
    require("xvfb-run", "xvfb xauth");
    let dir = fresh_dir("ik-lab-e2e");
    let bin = env!("CARGO_BIN_EXE_ironstep");
    let out = xvfb("1024x768x24")
        .args([
            bin,
            "ik-lab",
            "--window-size",
            "800x450",
            "--target-path",
            "circle",
            "--exit-after",
            "45",
            "--screenshot-at",
            "10,40",
            "--screenshot-dir",
        ])
        .arg(&dir)
        .output()
        .expect("running xvfb-run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "ik-lab failed: {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let read = |n: u32| {
        let path = dir.join(format!("ik_lab_{n:05}.png"));
        let (w, h, rgba) = renderer::read_png_rgba(&path)
            .unwrap_or_else(|e| panic!("{}: {e}\nstdout:\n{stdout}", path.display()));
        assert_eq!((w, h), (800, 450));
        rgba
    };
    let (a, b) = (read(10), read(40));
    for (n, img) in [(10, &a), (40, &b)] {
        let colours = distinct_colours(img);
        assert!(colours >= MIN_COLOURS, "frame {n}: {colours} colours");
    }
    let changed = a
        .chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(p, q)| p != q)
        .count();
    assert!(
        changed >= MIN_CHANGED_PIXELS,
        "only {changed} pixels changed"
    );
    // Every chain reported a solve in the screenshot log.
    assert!(stdout.contains("FABRIK: Some(Solved"), "{stdout}");
}

/// Where a drag to window pixel `cursor` puts the shared target, computed
/// with the lab's own camera and ray (scale factor 1 under Xvfb).
fn expected_drag_target(size: (u32, u32), cursor: glam::Vec2) -> glam::Vec3 {
    use game::tools::ik_lab::{Lab, PANEL_WIDTH, cursor_ray, lab_camera, ray_plane_z};
    let camera = lab_camera(size, PANEL_WIDTH);
    let hit = ray_plane_z(cursor_ray(&camera, size, cursor).unwrap(), 0.0).unwrap();
    let mut lab = Lab::new().unwrap();
    lab.drag_target(hit);
    lab.target
}

#[test]
fn mouse_drag_and_wheel_move_the_target() {
    require("xvfb-run", "xvfb xauth");
    require("xdotool", "xdotool");
    let dir = fresh_dir("ik-lab-mouse");
    let bin = env!("CARGO_BIN_EXE_ironstep");
    // Real pointer events (XTEST): press in the scene, drag to (560, 120),
    // release, then two wheel-up clicks push the target toward the viewer;
    // then Esc, and the lab saves its last frame before quitting. The lab
    // handles events in order, so the screenshot follows every one of them
    // however slowly the machine runs (no frame count to race).
    let script = format!(
        r#"'{bin}' ik-lab --window-size 800x450 --screenshot-on-exit --screenshot-dir '{dir}' &
lab=$!
win=$(xdotool search --sync --name '^Ironstep IK lab$' | head -n 1)
sleep 0.5
xdotool mousemove --window "$win" 500 250 mousedown 1
sleep 0.2
xdotool mousemove --window "$win" 530 180
sleep 0.2
xdotool mousemove --window "$win" 560 120
sleep 0.2
xdotool mouseup 1
sleep 0.2
xdotool click 4
sleep 0.1
xdotool click 4
xdotool windowfocus --sync "$win"
xdotool key Escape
wait $lab"#,
        dir = dir.display()
    );
    let out = xvfb("1024x768x24")
        .args(["sh", "-c", &script])
        .output()
        .expect("running xvfb-run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ik-lab failed:\n{stdout}\n{stderr}");
    // "screenshot PATH target X Y Z".
    let target: Vec<f32> = stdout
        .lines()
        .find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() == 6 && w[0] == "screenshot")
                .then(|| w[3..].iter().map(|v| v.parse().unwrap()).collect())
        })
        .unwrap_or_else(|| panic!("no screenshot line:\n{stdout}\n{stderr}"));
    let want = expected_drag_target((800, 450), glam::Vec2::new(560.0, 120.0));
    assert!(
        (target[0] - want.x).abs() < 0.02 && (target[1] - want.y).abs() < 0.02,
        "target {target:?}, expected ({}, {}) from the drag",
        want.x,
        want.y
    );
    // Two notches of 0.1 m toward the viewer. winit under Xvfb reports each
    // XTEST wheel click as one or two line deltas, so 0.2 or 0.4 m.
    let notches = target[2] / 0.1;
    assert!(
        (notches - notches.round()).abs() < 1e-3 && (2.0..=4.0).contains(&notches.round()),
        "depth {}\n{stderr}",
        target[2]
    );
}
