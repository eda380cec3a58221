//! End-to-end tests of `ironstep run --autopilot`: the real binary plays
//! the built-in level and every shipped level from spawn to exit with the
//! real controller and the whole pose pipeline, and the motion figures of
//! those runs hold; on a level whose exit cannot be reached it says where
//! and why.

use std::path::{Path, PathBuf};
use std::process::Command;

use game::level::shipped::shipped_names;

/// Largest distance of a planted foot's sole from its floor, metres.
const PLANTED_FOOT_BOUND_M: f64 = 0.005;
/// Largest travel of a planted ankle, metres.
const STANCE_SLIDE_BOUND_M: f64 = 0.01;
/// Largest distance from its floor of a foot the clip has down but foot IK
/// has not locked, metres: issue 32's 1 cm. The knight's worst is 5.5 mm
/// (`long`). The tutorial's was 2.9 cm until a landing past a step down
/// moved on by a share of the step's drop (`gait::STEP_DOWN_RUN`): running
/// off a 0.25 m block, his foot crossed the edge a frame or two before it
/// landed. Before that, 3.2 cm until the catch toward its ground started a
/// frame before (`LAND_CATCH_SPEED`); on `long`, 5.0 cm until a lock was
/// kept through a dip of the contact that only a trace of the run made
/// (`foot_ik::HOLD_STANCE`).
const UNLOCKED_CONTACT_BOUND_M: f64 = 0.01;
/// Largest height of a foot's skinned sole over the floor where its clip
/// has it down, metres: issue 32's 1 cm. The knight's worst is 8.9 mm (the
/// tutorial); 18.2 mm there before `gait::STEP_DOWN_RUN`.
const SOLE_FLOAT_BOUND_M: f64 = 0.01;
/// Largest depth of a foot's skinned sole under the floor, metres: issue
/// 32's 1 cm. The knight's worst is 5.5 mm (`long`); the tutorial's 10.4 mm
/// until his toe, landing running at the foot of a 30° slope, bent up out
/// of it faster (`foot_ik::TOE_BEND_SPEED` 10 → 16 rad/s).
const SOLE_PENETRATION_BOUND_M: f64 = 0.01;
/// Largest distance of a gripping hand or foot from its rung, metres.
const RUNG_CONTACT_BOUND_M: f64 = 0.005;

/// Bounds on the every-frame figures of issue 19 for one level's run: joint
/// speed (rad/s), root snap and hand hold (metres), the targets 20 rad/s,
/// 1 cm and 5 mm. All met: joint speed 19.0 on every level (the pose
/// pipeline's speed limit; before it, builtin 27.5 rad/s, a foot running
/// down the 0.2 m steps onto the tread two below; long 23.4, a thigh
/// running up a 45° hill; tutorial 22.6 and tower 22.5, a shoulder
/// climbing), root snap 8.6 mm at most, hands 3.3 mm (a hand the body rises
/// out of reach of, climbing over a ladder's top, lets go: it slid 8.9 cm
/// off its rung on long).
fn motion_bounds(_level: &str) -> (f64, f64, f64) {
    (20.0, 0.01, 0.005)
}

fn ironstep(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("WGPU_DEBUG", "0")
        .output()
        .expect("ironstep runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("ironstep-autopilot-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the autopilot on `level`; returns the exit code, stdout, stderr
/// and the metrics' summary, with the joint speed limit's share of its
/// frames added as `limited_share` when the run wrote its metrics.
fn autopilot(level: &str, dir: &Path) -> (i32, String, String, serde_json::Value) {
    let metrics = dir.join(format!("{}.json", level.replace(['/', '.'], "_")));
    let m = metrics.display().to_string();
    let (code, out, err) = ironstep(&["run", "--autopilot", "--level", level, "--metrics", &m]);
    let doc: serde_json::Value = std::fs::read_to_string(&metrics)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    let mut summary = doc["summary"].clone();
    if summary.is_object() {
        summary["limited_share"] = crate::common::limited_share(&doc).into();
    }
    (code, out, err, summary)
}

#[test]
fn the_autopilot_finishes_every_level_with_the_feet_on_the_world() {
    let dir = scratch("levels");
    let levels: Vec<&str> = std::iter::once("builtin").chain(shipped_names()).collect();
    let mut table = Vec::new();
    for level in levels {
        let (code, out, err, s) = autopilot(level, &dir);
        assert_eq!(code, 0, "{level}: stdout {out}\nstderr {err}");
        assert_eq!(s["exit_reached"], true, "{level}: {s}");
        assert!(s["autopilot_failure"].is_null(), "{level}: {s}");
        let frames = s["autopilot_frames_to_exit"]
            .as_u64()
            .expect("frames to exit");
        assert_eq!(
            s["frames"].as_u64(),
            Some(frames),
            "{level}: the run stops at the exit"
        );
        assert!(
            out.contains(&format!("exit reached in {frames} frames")),
            "{out}"
        );
        let f = |k: &str| {
            s[k].as_f64()
                .unwrap_or_else(|| panic!("{level}: {k} in {s}"))
        };
        assert_eq!(s["nan_count"], 0, "{level}: {s}");
        assert!(f("planted_frames") > 0.0, "{level}: no planted frame: {s}");
        assert!(
            f("planted_foot_max_error_m") <= PLANTED_FOOT_BOUND_M,
            "{level}: planted foot {}",
            f("planted_foot_max_error_m")
        );
        assert!(
            f("unlocked_contact_max_error_m") <= UNLOCKED_CONTACT_BOUND_M,
            "{level}: a foot put down {} m off the floor",
            f("unlocked_contact_max_error_m")
        );
        assert!(
            f("sole_float_max_m") <= SOLE_FLOAT_BOUND_M,
            "{level}: a sole {} m over the floor",
            f("sole_float_max_m")
        );
        assert!(
            f("sole_penetration_max_m") <= SOLE_PENETRATION_BOUND_M,
            "{level}: a sole {} m under the floor",
            f("sole_penetration_max_m")
        );
        assert!(
            f("stance_slide_max_m") <= STANCE_SLIDE_BOUND_M,
            "{level}: stance slide {}",
            f("stance_slide_max_m")
        );
        assert!(
            f("rung_contact_max_error_m") <= RUNG_CONTACT_BOUND_M,
            "{level}: rung contact {}",
            f("rung_contact_max_error_m")
        );
        // The speed limit is a safety net: it acts on at most 0.5 % of the
        // knight's frames (issue 32).
        assert!(
            f("limited_share") <= crate::common::KNIGHT_LIMITED_SHARE,
            "{level}: the joint speed limit acts on {:.2} % of frames",
            f("limited_share") * 100.0
        );
        // The gait plays within 0.7–1.4 times its authored rate, the
        // stride making up the rest of the ground speed (issue 32): below
        // 0.7 only as the idle fades in under `FULL_GAIT_SHARE` of the
        // pose, which the metrics leave out (0.694 with 99 % of the pose
        // until the floor was full from there). Before the knight's gait
        // was warped: 0.37 on a slow approach, 2.0 in a run-up.
        let (slowest, fastest) = (f("playback_rate_min"), f("playback_rate_max"));
        assert!(
            slowest >= 0.7 - 1e-6 && fastest <= 1.4 + 1e-4,
            "{level}: the gait plays at {slowest:.3}–{fastest:.3} times its authored rate"
        );
        // Every shipped level needs a grab (check_level.rs shows it): the
        // run catches a corner and climbs over it, the gripping hands on
        // the corner (issue 34: 5 mm; today 0.0 mm, 116 ledge frames on each).
        if level != "builtin" {
            assert!(f("ledge_frames") > 0.0, "{level}: no ledge frame: {s}");
        }
        assert!(
            f("ledge_hand_max_error_m") <= 0.005,
            "{level}: ledge hands {}",
            f("ledge_hand_max_error_m")
        );
        let (joint, snap, hand) = motion_bounds(level);
        for (key, bound) in [
            ("max_joint_angular_speed_rad_s", joint),
            ("max_root_snap_m", snap),
            ("hand_hold_max_error_m", hand),
        ] {
            assert!(f(key) <= bound, "{level}: {key} {} > {bound}", f(key));
        }
        table.push(format!(
            "{level}: {frames} frames; planted {:.4} m, slide {:.4} m, rung {:.4} m ({} rung frames), {} ledge frames, speed limit on {:.2} % of frames",
            f("planted_foot_max_error_m"),
            f("stance_slide_max_m"),
            f("rung_contact_max_error_m"),
            f("rung_contact_frames"),
            f("ledge_frames"),
            f("limited_share") * 100.0
        ));
    }
    println!("{}", table.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_autopilot_run_is_deterministic() {
    let dir = scratch("twice");
    let a = dir.join("a.json").display().to_string();
    let b = dir.join("b.json").display().to_string();
    for m in [&a, &b] {
        let (code, out, err) =
            ironstep(&["run", "--autopilot", "--level", "builtin", "--metrics", m]);
        assert_eq!(code, 0, "{out}\n{err}");
    }
    let read = |p: &str| std::fs::read(p).unwrap();
    assert!(read(&a) == read(&b), "two runs wrote different metrics");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unreachable_exit_fails_and_names_the_place() {
    // The check-level test map without its ladder: a 3 m wall the knight
    // cannot jump (nor catch, see below) stands between spawn and exit.
    let dir = scratch("wall");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/levels/encoding_csv.tmx"),
    )
    .unwrap();
    let start = text.find("  <object id=\"3\"").unwrap();
    let end = start + text[start..].find("</object>\n").unwrap() + "</object>\n".len();
    // And no corner grabbable (a NoGrab rectangle over the whole map: its
    // top is otherwise reached by catching the wall's corner).
    let no_grab =
        "  <object id=\"3\" type=\"NoGrab\" x=\"0\" y=\"0\" width=\"384\" height=\"256\"/>\n";
    let wall = format!("{}{no_grab}{}", &text[..start], &text[end..]);
    let path = dir.join("wall.tmx");
    std::fs::write(&path, wall).unwrap();
    let (code, out, err, s) = autopilot(&path.display().to_string(), &dir);
    assert_ne!(code, 0, "{out}");
    assert_eq!(s["exit_reached"], false, "{s}");
    assert!(s["autopilot_frames_to_exit"].is_null(), "{s}");
    let why = s["autopilot_failure"].as_str().expect("a reason");
    assert!(
        why.starts_with("no path from the floor from x 0.25 to ")
            && why.contains("standing at (0.75, 0.50) m")
            && why.contains("to the exit at (5.25, 3.50) m"),
        "{why}"
    );
    assert!(
        err.contains("exit NOT reached: no path from the floor"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_needs_a_script_or_the_autopilot() {
    let (code, _, err) = ironstep(&["run", "--level", "builtin"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("give --input SCRIPT") && err.contains("--autopilot"),
        "{err}"
    );
    let (code, _, err) = ironstep(&[
        "run",
        "--autopilot",
        "--input",
        "../assets/scripts/ladders.txt",
        "--frames",
        "10",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("cannot be used with"), "{err}");
    let (code, _, err) = ironstep(&["run", "--input", "../assets/scripts/ladders.txt"]);
    assert_ne!(code, 0);
    assert!(err.contains("--input needs --frames N"), "{err}");
}
