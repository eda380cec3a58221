//! End-to-end: the real `ironstep run` binary plays a scripted run through
//! each shipped level (`assets/scripts/{tutorial,long,tower}.txt`) from the
//! spawn to the exit with the real controller and the full pose pipeline.
//!
//! The scripts are timed key presses written against the levels, an
//! independent proof beside the autopilot: the tutorial's run climbs a wall,
//! crosses a floating platform, jumps up through two one-way planks, drops
//! through a third, climbs a ladder through a plank and rides the moving
//! platform over the pit; the Long Climb's run takes the upper route of
//! floating platforms; the Tower's run rides the lift, climbs through the
//! roof plank and drops through two planks; each climbs over the wall its
//! exit stands on by catching its corner. Each run must end at the
//! level's exit with no NaN and the foot figures of the issue (planted foot
//! ≤ 5 mm from its floor, on a moving platform in the platform's frame;
//! stance slide ≤ 1 cm; rung contact ≤ 5 mm).

use std::path::{Path, PathBuf};
use std::process::Command;

use game::level::shipped::LevelSource;
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What one scripted run must show besides reaching the exit.
struct Case {
    /// The shipped level's name (also the script's name).
    level: &'static str,
    /// Frames to run (the script ends at the exit before this).
    frames: u32,
    /// Separate ladder climbs the run makes.
    climbs: usize,
    /// Bound on the planted foot's distance from its floor, metres.
    planted: f64,
    /// Bounds on issue 19's every-frame figures: joint speed (rad/s), root
    /// snap and hand hold (metres), the targets 20 rad/s, 1 cm and 5 mm.
    motion: (f64, f64, f64),
}

const CASES: [Case; 3] = [
    Case {
        level: "tutorial",
        frames: 4400,
        climbs: 3,
        planted: 0.005,
        // 19.0 rad/s with the speed limit (23.1 a shoulder climbing before
        // it; 25.8 a hip on the ground past the first plank, a foot landing
        // just past a step's edge: it lands clear of the edge now); root
        // snap 8.7 mm (1.6 cm stepping onto the
        // moving platform was its carry, which the metric now counts as
        // velocity); hands 1.4 mm (was 1.0 cm, a hand dragged off the
        // rails' top rung: it lets go now).
        motion: (20.0, 0.01, 0.005),
    },
    Case {
        level: "long",
        frames: 4200,
        climbs: 4,
        // Target 5 mm: met (2.8 mm). It read 28.6 mm at frame 2860 (x 91.27
        // m) when the metric judged only the sole point: the left foot rests
        // on the convex edge at the crest of a 45° hill with its sole point
        // 3 cm past the edge; the sole is now judged as a line along the foot.
        planted: 0.005,
        // 19.0 rad/s with the speed limit (23.4 before it, a thigh running
        // up a 45° hill, see slopes_run in motion.rs); 22.7 a hip on the
        // upper route (29.4 while the ladder took
        // the hands starting down from its top before the clips had turned
        // to the climb); root snap 8.6 mm (4.1 cm a landing in which the
        // body also meets a wall, each axis's velocity changing within the
        // step: the metric now explains each axis by its own); hands 0.5 mm
        // (was 8.6 cm, a hand
        // dragged off the rails' top rung where a rung is 0.5 m below the
        // floor: it lets go now).
        motion: (20.0, 0.01, 0.005),
    },
    Case {
        level: "tower",
        frames: 5100,
        climbs: 3,
        planted: 0.005,
        // 19.0 rad/s with the speed limit (22.5 before it, a shoulder
        // climbing; 34.4 starting down from a ladder's top, see long); root snap 8.6 mm (1.3 cm when the lift's side
        // nudged the standing body 1.25 cm across: the root eases there).
        motion: (20.0, 0.01, 0.005),
    },
];

/// Runs a level's script through the real binary; returns the metrics file.
fn run(case: &Case) -> Value {
    let metrics =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{}.vertical.json", case.level));
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .current_dir(repo())
        .args(["run", "--level", case.level, "--input"])
        .arg(format!("assets/scripts/{}.txt", case.level))
        .args(["--frames", &case.frames.to_string(), "--metrics"])
        .arg(&metrics)
        .output()
        .expect("run ironstep");
    assert!(
        out.status.success(),
        "{}: ironstep run failed: {}",
        case.level,
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&metrics).unwrap()).unwrap();
    eprintln!("{}: {}", case.level, doc["summary"]);
    doc
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("summary has no number '{key}': {v}"))
}

/// The feet position and state of every frame.
fn track(doc: &Value) -> Vec<(f64, f64, String)> {
    doc["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| {
            (
                f["pos"][0].as_f64().unwrap(),
                f["pos"][1].as_f64().unwrap(),
                f["state"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn scripted_runs_reach_the_exit_of_every_shipped_level_with_feet_on_the_floors() {
    for case in &CASES {
        let name = case.level;
        let doc = run(case);
        let s = &doc["summary"];
        assert_eq!(s["nan_count"], 0, "{name}: NaN frames");
        assert_eq!(s["ik_errors"], 0, "{name}: IK errors");
        assert_eq!(s["goal_reached"], true, "{name}: the script's goal");
        // The goal line is the exit: check against the level itself.
        let level = LevelSource::resolve(name).unwrap().load().unwrap();
        let end = glam::Vec2::new(
            s["final_pos"][0].as_f64().unwrap() as f32,
            s["final_pos"][1].as_f64().unwrap() as f32,
        );
        assert!(
            end.distance(level.exit) <= 0.6,
            "{name}: ended at {end}, exit at {}",
            level.exit
        );
        // The figures (met: tutorial 2.3 mm, long 2.8 mm, tower
        // 1.0 mm planted error; slides at most 2.5 mm; rung contact at most
        // 1.3 mm).
        assert!(
            num(s, "planted_foot_max_error_m") <= case.planted,
            "{name}: planted foot"
        );
        assert!(num(s, "stance_slide_max_m") <= 0.01, "{name}: stance slide");
        let (joint, snap, hand) = case.motion;
        for (key, bound) in [
            ("max_joint_angular_speed_rad_s", joint),
            ("max_root_snap_m", snap),
            ("hand_hold_max_error_m", hand),
        ] {
            assert!(
                num(s, key) <= bound,
                "{name}: {key} {} > {bound}",
                num(s, key)
            );
        }
        assert!(
            num(s, "rung_contact_max_error_m") <= 0.005,
            "{name}: rung contact"
        );
        // The joint speed limit acts on at most 0.5 % of the knight's
        // frames (issue 32). Met: tutorial 0.34 %, long 0.21 %, tower 0.18 %.
        let share = crate::common::limited_share(&doc);
        assert!(
            share <= crate::common::KNIGHT_LIMITED_SHARE,
            "{name}: the joint speed limit acts on {:.2} % of frames",
            share * 100.0
        );
        let t = track(&doc);
        assert_eq!(
            t.len(),
            case.frames as usize,
            "{name}: one record per frame"
        );
        let climbs = t
            .windows(2)
            .filter(|w| w[1].2 == "ladder" && w[0].2 != "ladder")
            .count();
        assert_eq!(climbs, case.climbs, "{name}: ladder climbs");
        // Falling below the kill height respawns at the spawn, a jump of
        // metres in one frame: the run never does.
        let jump = t
            .windows(2)
            .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
            .fold(0.0, f64::max);
        assert!(
            jump < 1.0,
            "{name}: moved {jump} m in one frame (a respawn?)"
        );
        // Every shipped level's exit stands on a wall whose corner is
        // caught and climbed over (the tutorial's at (82, 4) m, long's at
        // (104.5, 6) m, the tower's at (31, 4.5) m), the hands on it
        // (issue 34).
        let hanging = t.iter().filter(|(_, _, st)| st == "ledge").count();
        assert!(hanging > 64, "{name}: on the ledge {hanging} frames");
        assert!(num(s, "ledge_hand_max_error_m") <= 0.005, "{name}: {s}");
        match name {
            "tutorial" => {
                // Carried over the pit (x 67–73 m) standing on the platform.
                let riding = t
                    .iter()
                    .filter(|(x, y, st)| {
                        (67.6..72.4).contains(x) && (*y - 4.0).abs() < 1e-3 && st == "ground"
                    })
                    .count();
                assert!(riding > 64 * 4, "{name}: rode the platform {riding} frames");
            }
            "tower" => {
                // Lifted from 4.5 m to 7.5 m standing on the lift.
                let lifted = t
                    .iter()
                    .filter(|(x, y, st)| {
                        (1.0..2.5).contains(x) && (4.6..7.4).contains(y) && st == "ground"
                    })
                    .count();
                assert!(lifted > 64 * 3, "{name}: rode the lift {lifted} frames");
            }
            _ => {
                // The upper route: standing on the floating platforms at
                // 7.0 m over the ground of the second round.
                let high = t
                    .iter()
                    .filter(|(x, y, st)| (31.5..53.0).contains(x) && *y >= 6.99 && st == "ground")
                    .count();
                assert!(high > 64 * 2, "{name}: on the upper route {high} frames");
            }
        }
    }
}
