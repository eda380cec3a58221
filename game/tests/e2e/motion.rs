//! End-to-end: the real `ironstep run` binary plays the shipped scripts over
//! the built-in level, and its motion metrics say the knight stands on the
//! world: planted feet on the ground on every slope up to 45°, no sliding,
//! hands and feet on the rungs of both ladders, no NaN, goal reached.
//!
//! Every bound below is the target, asserted. The last two this file held
//! as known gaps (a foot the clip puts down reaching the floor late on
//! `ladders` and `transitions`, and a sole floating over it on
//! `transitions`) are met now; the ignored `known_gap_*` tests in other
//! files name what is still missed.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs a script through the real binary and returns the metrics summary,
/// with the joint speed limit's share of its frames added as
/// `limited_share` (see [`common::limited_share`]).
fn run(script: &str, frames: u32) -> Value {
    let doc = run_doc(script, frames);
    let mut summary = doc["summary"].clone();
    summary["limited_share"] = common::limited_share(&doc).into();
    eprintln!("{script}: {summary}");
    summary
}

/// Runs a script through the real binary and returns its whole metrics
/// document (summary and frames).
fn run_doc(script: &str, frames: u32) -> Value {
    run_doc_on(None, script, frames, "metrics")
}

/// Runs a script through the real binary on `level` (the built-in level
/// without one) and returns its whole metrics document, written to a
/// temporary file named after the script and `tag` (tests running at once
/// write apart).
fn run_doc_on(level: Option<&str>, script: &str, frames: u32, tag: &str) -> Value {
    let path = format!("assets/scripts/{script}.txt");
    run_doc_at(level, &path, frames, &format!("{script}.{tag}"))
}

/// [`run_doc_on`] with the script at `path` (from the repository's root),
/// its metrics written to a temporary file named `name`.
fn run_doc_at(level: Option<&str>, path: &str, frames: u32, name: &str) -> Value {
    run_doc_with(level, path, frames, name, &[])
}

/// [`run_doc_at`] with more arguments for `ironstep run`.
fn run_doc_with(level: Option<&str>, path: &str, frames: u32, name: &str, more: &[&str]) -> Value {
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let metrics = out_dir.join(format!("{name}.json"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ironstep"));
    cmd.current_dir(repo()).arg("run");
    if let Some(level) = level {
        cmd.args(["--level", level]);
    }
    let out = cmd
        .arg("--input")
        .arg(path)
        .args(["--frames", &frames.to_string(), "--metrics"])
        .arg(&metrics)
        .args(more)
        .output()
        .expect("run ironstep");
    assert!(
        out.status.success(),
        "ironstep run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&metrics).unwrap()).unwrap();
    assert_eq!(
        doc["frames"].as_array().map(Vec::len),
        Some(frames as usize),
        "one record per frame"
    );
    doc
}

/// A number of the summary; `a/b` reads a nested key.
fn f(v: &Value, key: &str) -> f64 {
    v.pointer(&format!("/{key}"))
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("summary has no number '{key}': {v}"))
}

fn common(s: &Value) {
    assert_eq!(s["nan_count"], 0);
    assert_eq!(s["ik_errors"], 0);
    assert_eq!(
        s["goal_reached"], true,
        "the player reaches the scripted goal"
    );
    // Target 1 cm: met (walk 1.3 mm, run 1.8, ladders 2.9; a locked foot
    // is probed where it is held, not where its clip drifts to).
    assert!(f(s, "stance_slide_max_m") <= 0.01, "stance slide");
    // The joint speed limit (19 rad/s) is a safety net: it may act on at
    // most 0.5 % of the knight's frames (issue 32). Met: 0.0 % walking the
    // slopes, 0.29 % running them, on the ladders and the transitions.
    let share = f(s, "limited_share");
    assert!(
        share <= common::KNIGHT_LIMITED_SHARE,
        "the joint speed limit acts on {:.2} % of frames",
        share * 100.0
    );
}

#[test]
fn walking_over_every_slope_keeps_planted_feet_on_the_ground() {
    let s = run("slopes_walk", 1700);
    common(&s);
    assert!(f(&s, "max_planted_slope_deg") >= 44.9);
    assert!(f(&s, "planted_frames") > 1000.0);
    // Target 5 mm: met (1.3 mm; a foot locks once it lies on the slope, and
    // keeps the clip's own sink of under a millimetre).
    assert!(f(&s, "planted_foot_max_error_m") <= 0.005);
    // A foot the clip has in contact but not yet locked (landing on a new
    // slope): 3.8 mm today, within the 1 cm target (8.2 mm until a foot
    // coming down closed the gap to its ground faster than its lag; 1.85 cm
    // until it was turned onto the slope as it lands; see
    // feet_put_down_reach_the_floor_on_ladders_and_transitions for the
    // other scripts).
    assert!(f(&s, "unlocked_contact_frames") > 0.0);
    assert!(f(&s, "unlocked_contact_max_error_m") <= 0.01);
    // Target < 1 mm: met (0.26 mm; the pelvis rises back the last fraction
    // of a millimetre instead of creeping, and a planted foot is released as
    // soon as the clip moves it).
    assert!(f(&s, "ik_flat_ground_delta_m") < 0.001);
    assert!(f(&s, "flat_ground_frames") > 50.0);
    // Target 20 rad/s on every frame: met (16.5; setting off from the idle
    // reached 26.9 while a crossfade started from its first clip instead
    // of the pose shown).
    assert!(f(&s, "joint_speed_by_cause/steady") <= 20.0);
    assert!(f(&s, "max_joint_angular_speed_rad_s") <= 20.0);
    assert!(f(&s, "max_root_snap_m") <= 0.01, "root snap");
    // The skinned feet of every foot the clip has on the ground, within
    // 1 cm of the ground, into it or above it (issue 32, items 3 and 4):
    // 8.5 mm into it at most today. His toe went 6.2 cm into the first
    // stair's riser as he stopped before the stairs while a landing short
    // of a step up was moved back no further than `EDGE_MARGIN` (12 cm,
    // where his toe reaches 22 cm ahead of his ankle); moved up to a fifth
    // of his leg (`RISER_MOVE_LEGS`), it lands clear.
    assert!(f(&s, "sole_frames") > 1000.0, "the soles are measured");
    for k in ["sole_penetration_max_m", "sole_float_max_m"] {
        assert!(f(&s, k) <= 0.01, "{k} {:.4} m, target 1 cm", f(&s, k));
    }
}

#[test]
fn running_over_every_slope_keeps_planted_feet_on_the_ground() {
    let s = run("slopes_run", 1700);
    common(&s);
    assert!(f(&s, "max_planted_slope_deg") >= 44.9);
    // Target 5 mm: met (2.5 mm).
    assert!(f(&s, "planted_foot_max_error_m") <= 0.005);
    // Landing on a new slope before the lock: target 1 cm, met (3.8 mm;
    // 1.1 cm until a foot coming down closed the gap to its ground faster
    // than its lag, `LAND_CATCH_SPEED`).
    assert!(f(&s, "unlocked_contact_frames") > 0.0);
    assert!(f(&s, "unlocked_contact_max_error_m") <= 0.01);
    // Target < 1 mm: met (0.14 mm).
    assert!(f(&s, "ik_flat_ground_delta_m") < 0.001);
    // Target 20 rad/s on every frame: met (19.0, the pose pipeline's speed
    // limit, on 5 frames of 3000). Before it: 23.4, the swinging thigh
    // running up the 45° slope while the pelvis drops for the trailing
    // foot, and 22.2 a knee as a foot lands stretched at the foot of a
    // slope (was 33.1: starting and stopping swapped walk and run at half
    // speed).
    assert!(f(&s, "joint_speed_by_cause/steady") <= 20.0);
    assert!(f(&s, "max_joint_angular_speed_rad_s") <= 20.0);
    assert!(f(&s, "max_root_snap_m") <= 0.01, "root snap");
}

#[test]
fn climbing_both_ladders_puts_hands_and_feet_on_rungs() {
    let s = run("ladders", 2400);
    common(&s);
    // Frames climbing the rungs (climbing over the top is judged by hand
    // hold, root snap and joint speed instead): 123 today.
    assert!(f(&s, "rung_contact_frames") > 100.0, "both ladders climbed");
    // Target 5 mm: met (1.1 mm; hands and feet reach for the rungs while
    // the body still eases into its climbing place).
    assert!(f(&s, "rung_contact_max_error_m") <= 0.005);
    // Target 5 mm: met (3.0 mm).
    assert!(f(&s, "planted_foot_max_error_m") <= 0.005);
    // Target < 1 mm on the flat stretches after the ladders: met (0.55 mm;
    // was 1.7 mm, a knee at heel strike and toe-off, where the lock lifted
    // the clip's sinking ankle or held the foot a frame too long).
    assert!(f(&s, "ik_flat_ground_delta_m") < 0.001);
    // Target 20 rad/s in steady frames: met (19.0 with the speed limit;
    // before it 23.4, a thigh running up the 45° slope, see slopes_run, and
    // 22.5 a shoulder climbing down the second ladder near its foot, where
    // ladder IK adds 8 rad/s to the clip's 14: the limit slows the elbow's
    // swing about the shoulder→hand line, which keeps the hand on its
    // rung). Running down the stairs, a knee reached for the lower tread at
    // 25.6 rad/s; a swinging knee now straightens at a bounded speed (17.1
    // there).
    assert!(f(&s, "joint_speed_by_cause/steady") <= 20.0);
    // Over every frame: climbing over the ladders' tops is one continuous
    // move now (was 120 rad/s and a 0.60 m root jump stepping off the top,
    // hands 1.43 m from any rung); the running jump's take-off, 63.7 rad/s
    // while its crossfade started from the walk's arms, is 15 now; starting
    // down from the second ladder's top, 25.9 while the ladder took the
    // hands before the clips had turned to the climb, is under 21; the
    // uphill run above 23.4 before the speed limit. Met: 19.0. Root snap,
    // target 1 cm: met (8.6 mm; was 1.2 cm stepping off
    // the ladder at its foot, where the body kept a climbing velocity the
    // step it stood on the floor, and the root's spring out of the ladder's
    // depth started at its full acceleration).
    assert!(f(&s, "max_joint_angular_speed_rad_s") <= 20.0);
    assert!(f(&s, "max_root_snap_m") <= 0.01, "root snap");
    // Hands held by the ladder (rungs, and the rails' rungs above the top
    // while climbing over it): target 5 mm, met (0.5 mm).
    assert!(f(&s, "hand_hold_max_error_m") <= 0.005, "hand hold");
    assert!(f(&s, "hand_hold_frames") > 120.0);
    assert!(f(&s, "hand_release_frames") > 0.0);
}

#[test]
fn a_missing_script_is_a_one_line_error_naming_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .args(["run", "--input", "no/such/script.txt", "--frames", "10"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no/such/script.txt"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn a_goal_not_reached_is_named_with_where_the_run_ended() {
    // slopes_walk.txt ends within 0.5 m of (28.9, 0.0); ten frames do not
    // get there.
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .current_dir(repo())
        .args([
            "run",
            "--input",
            "assets/scripts/slopes_walk.txt",
            "--frames",
            "10",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "goal NOT reached (the script's goal: end within 0.50 m of (28.90, 0.00); ended at ("
        ),
        "{stdout}"
    );
}

#[test]
fn every_transition_of_transitions_txt_is_measured_on_every_frame() {
    // Start and stop, turns, walk <-> run, jumps in place, a running jump,
    // the first ladder climbed on at its foot and over its top, down it from
    // the top, jumps off it to either side, over its top again, the second
    // ladder down from its top and off at its foot.
    let s = run("transitions", 4500);
    common(&s);
    // Targets 5 mm: met (2.3 mm planted; hands 0.6 mm from what they hold,
    // feet and hands on rungs 0.5 mm).
    assert!(f(&s, "planted_foot_max_error_m") <= 0.005);
    assert!(f(&s, "hand_hold_max_error_m") <= 0.005, "hand hold");
    assert!(f(&s, "rung_contact_max_error_m") <= 0.005);
    assert!(f(&s, "hand_hold_frames") > 400.0);
    assert!(f(&s, "hand_release_frames") > 100.0);
    // Root snap, target 1 cm: met (8.6 mm; 2.0 cm jumping off the ladder
    // while the jump's first step stood still, 5.5 cm with a first-order
    // ease of the ladder's depth). No teleports (climbing over a ladder's
    // top jumped 0.60 m).
    assert!(f(&s, "max_root_snap_m") <= 0.01, "root snap");
    // Joint speed, target 20 rad/s on every frame: met (19.0, the speed
    // limit, on 13 frames of 4500). Before the limit: 23.7 a shoulder
    // getting onto the ladder from its top (26.2 while the hold came in
    // with the climb with the hand nearly a metre above its rung: a hand is
    // carried onto its hold at 1.5 m/s at most now); 23.6 the trailing
    // knee of a planted foot as the body runs up onto a slope (the foot is
    // let go of a frame before its clip lifts it now, and the limit slows
    // the knee); 23.4 a foot coming down as the run stops (a foot on its way
    // to the ground reaches it only as fast as the limit lets its leg, and
    // locks once it has). 24.4 a foot landing after the running jump,
    // carried clear of the step's edge through its swing and put back on
    // the edge the frame it landed (it keeps that place through the stance
    // now). The running foot coming down onto the 0.2 m step after the gap
    // was 29.2 while the step was found the frame the foot landed; a swing
    // now reaches for where it will land (were 63.8 at the running
    // take-off, 54 jumping off the ladder, 46 starting down from its top).
    assert!(f(&s, "max_joint_angular_speed_rad_s") <= 20.0);
    assert!(f(&s, "joint_speed_by_cause/steady") <= 20.0);
    // Turning around, onto and off the ladders: the body turns through the
    // side view at 28.7 rad/s at most (a first-order ease turned 46 rad/s
    // in a turn's first frame; a mirror flip would be 201).
    assert!(f(&s, "max_turn_speed_rad_s") <= 30.0, "turn speed");
    // Standing after each stop, IK leaves the idle alone: target < 1 mm,
    // met (0.57 mm). With the gait fading out under the idle over 0.15 s a
    // foot put down mid-stride stood 3.9 cm off the idle's stance until the
    // body moved again; it now steps there once the clip holds it still.
    assert!(f(&s, "ik_flat_ground_delta_m") < 0.001, "flat ground");
    assert!(f(&s, "flat_ground_frames") > 300.0);
}

/// Issue 32's target for a foot the clip puts down but the pipeline has not
/// locked yet: on the floor within 1 cm on every frame, on `ladders` and
/// `transitions` too (4.2 mm on each today). Until the two changes below
/// changes such a foot reached its floor up to 2.0 cm late there: let go of
/// while its clip still had it down, it rose with the clip as the clip
/// rolled it off (now held on the floor, `HELD_DOWN_LIFT`); raised to keep
/// its heel out of the floor at a heel strike, it eased down after the clip
/// rolled it flat and floated (now it comes down as the clip raises its
/// ankle, `rises` in `foot_ik`).
#[test]
fn feet_put_down_reach_the_floor_on_ladders_and_transitions() {
    let mut over = Vec::new();
    for (script, frames) in [("ladders", 2400), ("transitions", 4500)] {
        let v = f(&run(script, frames), "unlocked_contact_max_error_m");
        if v > 0.01 {
            over.push(format!("{script}: {v:.4} m"));
        }
    }
    assert!(over.is_empty(), "over the 1 cm target: {over:?}");
}

/// The feet's skinned mesh against the floor (`sole_penetration_m`,
/// `sole_float_m`, from the CPU-skinned foot vertices in the metrics path):
/// measured on every foot the clip has on the ground, and a knight standing
/// still on level floor rests both soles on it, within 2 mm either way (his
/// toe caps reached 7 mm under it until they were raised; 1.1 mm at most
/// today, as the idle settles). While he moves they do too: see
/// `soles_neither_sink_nor_float_through_the_transitions_or_up_stairs`.
#[test]
fn a_standing_knight_rests_his_soles_on_level_floor() {
    let doc = run_doc("transitions", 1700);
    let s = &doc["summary"];
    assert!(f(s, "sole_frames") > 500.0, "the soles are measured: {s}");
    let frames = doc["frames"].as_array().unwrap();
    let mut standing = 0;
    for (prev, frame) in frames.iter().zip(frames.iter().skip(1)) {
        let level = frame["pos"][1].as_f64() == Some(0.0);
        let still = frame["pos"] == prev["pos"];
        let feet = frame["feet"].as_array().unwrap();
        if !(level && still && feet.iter().all(|foot| foot["planted"] == true)) {
            continue;
        }
        for foot in feet {
            let under = foot["sole_penetration_m"].as_f64().unwrap();
            let over = foot["sole_float_m"].as_f64().unwrap();
            assert!(
                under <= 0.002 && over <= 0.002,
                "frame {}: sole {under} m under, {over} m over the floor",
                frame["frame"]
            );
        }
        standing += 1;
    }
    assert!(standing > 100, "{standing} frames standing on level floor");
}

/// Issue 32, item 4 (foot roll): on `transitions` the skinned feet of a
/// foot the clip has on the ground stay within 1 cm of the ground, into it
/// (4.2 mm today; 2.2 cm until the toes bent up out of the floor, 5.3 cm
/// until a foot coming down onto a slope was turned onto it by the time it
/// lands, 8.8 cm until a landing within a few centimetres of a riser landed
/// on the step instead, 11 cm until a landing was moved clear by its toe's
/// reach) and above it (2.6 mm today; 1.3 cm until a foot rolling flat from
/// a heel strike came down as its clip raised its ankle instead of easing
/// down after it, 1.5 cm until a foot coming down closed the gap to its
/// ground faster than its lag; 6 cm until a foot re-stepping while the
/// knight stands, lifted on purpose, was left out of the figure). On
/// `ladders` too, where he runs up the builtin level's stairs: a running
/// landing was moved back from a step up ahead by at most `EDGE_MARGIN`,
/// and his toe stood 3 cm into the riser for five frames as his foot
/// rolled flat (8 mm today, moved as far as a walking one).
#[test]
fn soles_neither_sink_nor_float_through_the_transitions_or_up_stairs() {
    let mut over = Vec::new();
    for (script, frames) in [("transitions", 4500), ("ladders", 2400)] {
        let s = run(script, frames);
        for k in ["sole_penetration_max_m", "sole_float_max_m"] {
            if f(&s, k) > 0.01 {
                over.push(format!("{script}: {k} {:.4} m", f(&s, k)));
            }
        }
    }
    assert!(over.is_empty(), "over the 1 cm target: {over:?}");
}

/// Issue 32's 1 cm for the knight on every shipped script, on its own
/// level, every frame: a foot his clip has down is within 1 cm of the
/// floor (`unlocked_contact_max_error_m`), and his skinned soles neither
/// under nor over it by more (`sole_penetration_max_m`,
/// `sole_float_max_m`). `long` was the last to meet it: over the top of a
/// 30° descent his swinging foot, held up by the slope under it, followed
/// it down with the swing's lag and landed 16.2 mm over it (it follows the
/// slope without the lag now, `foot_ik`). The autopilot's runs are held to
/// the same in `autopilot.rs`.
#[test]
fn the_knight_puts_his_feet_on_the_floor_on_every_shipped_script() {
    let mut over = Vec::new();
    for (script, level, frames) in [
        ("ladders", "builtin", 2570),
        ("long", "long", 4339),
        ("slopes_run", "builtin", 825),
        ("slopes_walk", "builtin", 1728),
        ("tower", "tower", 5273),
        ("transitions", "builtin", 4595),
        ("tutorial", "tutorial", 4614),
        ("walls", "assets/levels/walls.tmx", 2208),
    ] {
        let doc = run_doc_on(Some(level), script, frames, "every_script");
        feet_over_a_centimetre(script, &doc, &mut over);
    }
    assert!(over.is_empty(), "over the 1 cm target: {over:?}");
}

/// Checks that `script`'s run (`doc`) measured the soles, and adds each of
/// issue 32's three 1 cm figures its summary has over 1 cm to `over`.
fn feet_over_a_centimetre(script: &str, doc: &Value, over: &mut Vec<String>) {
    let s = &doc["summary"];
    assert!(
        f(s, "sole_frames") > 100.0,
        "{script}: the soles are measured"
    );
    for k in [
        "unlocked_contact_max_error_m",
        "sole_penetration_max_m",
        "sole_float_max_m",
    ] {
        if f(s, k) > 0.01 {
            over.push(format!("{script}: {k} {:.4} m", f(s, k)));
        }
    }
}

/// Issue 32's 1 cm for the knight on the made level
/// (`tests/levels/descents.tmx`: a 1 m 45° descent into 0.25 m stairs,
/// stairs up into a 45° climb, a bump and a block), walked and run both
/// ways, every frame, as on the shipped scripts above. Running down the
/// descent, a landing moved on past the stair at its foot was out of his
/// leg's reach with the pelvis as low as it goes (0.58 m of drop needed,
/// 0.45 m allowed), and his foot stood 51.6 mm over the tread (frame 81);
/// such a landing now comes down short of the stair (`foot_ik`).
///
/// The joint speed limit acts on at most 0.5 % of his frames there too
/// (issue 32's share for the knight). Running down the stairs with his
/// pelvis lowered for the landing ahead, his swinging foot passed under
/// his hip 9 cm from it and his thigh turned 43 rad/s: 9 of 1,664 frames
/// limited (0.54 %) until a foot in the air keeps
/// at least `foot_ik::SWING_FOLD_LIMIT` of its leg under its hip.
#[test]
fn the_knight_puts_his_feet_on_the_floor_on_the_made_level() {
    let mut over = Vec::new();
    for (script, frames) in [("descents_walk", 3072), ("descents_run", 1664)] {
        let doc = run_doc_at(
            Some("tests/levels/descents.tmx"),
            &format!("tests/levels/{script}.txt"),
            frames,
            &format!("{script}.feet"),
        );
        feet_over_a_centimetre(script, &doc, &mut over);
        let s = &doc["summary"];
        let share = f(s, "joint_speed_limited_frames") / f(s, "frames");
        if share > 0.005 {
            over.push(format!(
                "{script}: the limit acted on {:.2} %",
                100.0 * share
            ));
        }
    }
    assert!(over.is_empty(), "over the targets: {over:?}");
}

/// Running the whole made level both ways, the root moves with the body:
/// setting off up its 45° climb from the stairs below it (frame 222, and
/// on the way back, 899), the root still easing up over the last stair
/// rose by that ease and the climb at once, an 18.6 mm snap. The ease now
/// gives way to the body's new motion (`placement`).
#[test]
fn the_root_goes_on_up_a_climb_from_a_stair() {
    let doc = run_doc_at(
        Some("tests/levels/descents.tmx"),
        "tests/levels/descents_run.txt",
        1664,
        "descents_run.root_climb",
    );
    let snap = f(&doc["summary"], "max_root_snap_m");
    assert!(snap <= 0.01, "root snap {snap:.4} m");
}

/// Walking and running down the made level's 45° descent into the 0.25 m
/// stair below its foot (`tests/levels/descents.tmx`), the root goes on down
/// at the slope's speed while only the step is eased. Eased whole, the root
/// stopped dead from the descent's speed there: a 3.3 cm snap running
/// (frame 89), 1.1 cm walking (frame 211).
#[test]
fn the_root_goes_on_down_a_descent_into_a_stair() {
    for (script, frames) in [("descents_run", 120), ("descents_walk", 260)] {
        let doc = run_doc_at(
            Some("tests/levels/descents.tmx"),
            &format!("tests/levels/{script}.txt"),
            frames,
            &format!("{script}.root_snap"),
        );
        let snap = f(&doc["summary"], "max_root_snap_m");
        assert!(snap <= 0.01, "{script}: root snap {snap:.4} m");
    }
}

/// The metrics measure the skinned foot for every foot on settled ground,
/// not only where the clip has it down: a swinging foot's depth under the
/// floor (`swing_penetration_m`) and how far a foot touching the floor
/// has slipped along it since it came to touch it (`touch_slide_m`). Each
/// summary figure is its frames' largest; a foot is measured by the sole
/// figures or the swing figure, never both, by its contact; a touch
/// slips from 0 and never less; a planted foot within 4 mm of the floor
/// touches it; and standing still on level floor, no foot planted since
/// the frame before slips. (A foot coming to rest does: on `transitions`
/// it slips 2 cm in the frame it is planted, frame 314.) Neither is a
/// target yet: the knight's swinging toe goes 20 cm into the builtin
/// level's 45° slope as it swings up it (see BENCHMARKS, "Thirty-first
/// session").
#[test]
fn swinging_and_touching_feet_are_measured_on_every_frame() {
    let doc = run_doc("transitions", 1700);
    let s = &doc["summary"];
    assert!(f(s, "swing_frames") > 200.0, "{s}");
    assert!(f(s, "touch_frames") > 1000.0, "{s}");
    let frames = doc["frames"].as_array().unwrap();
    let num = |v: &Value| v.as_f64();
    let (mut swing_max, mut touch_max, mut standing) = (0.0f64, 0.0f64, 0);
    for (j, frame) in frames.iter().enumerate() {
        let feet = frame["feet"].as_array().unwrap();
        let still = j > 0 && frame["pos"] == frames[j - 1]["pos"];
        let level = frame["pos"][1].as_f64() == Some(0.0);
        for (i, foot) in feet.iter().enumerate() {
            let at = format!("frame {} foot {i}: {foot}", frame["frame"]);
            let (sole, swing) = (
                num(&foot["sole_penetration_m"]),
                num(&foot["swing_penetration_m"]),
            );
            assert!(sole.is_none() || swing.is_none(), "{at}");
            if let Some(v) = swing {
                assert!(f(foot, "contact") < 0.9 && v >= 0.0, "{at}");
                swing_max = swing_max.max(v);
            }
            // (A foot stepping, lifted on purpose, reads 0 over.)
            if foot["planted"] == true && num(&foot["sole_float_m"]).is_some_and(|g| g <= 0.004) {
                assert!(num(&foot["touch_slide_m"]).is_some(), "{at}");
            }
            let Some(t) = num(&foot["touch_slide_m"]) else {
                continue;
            };
            touch_max = touch_max.max(t);
            let before = (j > 0)
                .then(|| num(&frames[j - 1]["feet"][i]["touch_slide_m"]))
                .flatten();
            match before {
                Some(b) => assert!(t >= b, "{at}: slipped {b} before"),
                None => assert_eq!(t, 0.0, "{at}"),
            }
            let held = j > 0 && frames[j - 1]["feet"][i]["planted"] == true;
            if still && level && held && feet.iter().all(|x| x["planted"] == true) {
                let b = before.unwrap_or(0.0);
                assert!(t - b <= 0.001, "{at}: standing still, slipped {}", t - b);
                standing += 1;
            }
        }
    }
    assert!(standing > 100, "{standing} foot-frames standing still");
    assert!(
        (swing_max - f(s, "swing_penetration_max_m")).abs() < 1e-6,
        "{s}"
    );
    assert!((touch_max - f(s, "touch_slide_max_m")).abs() < 1e-6, "{s}");
}

/// Setting off from a stand on `tutorial` (frame 2228, level floor), the
/// idle's crossfade into the walk carries the knight's rear foot's
/// animation 33 cm forward while its clip keeps it down; let go of there
/// (past `LOCK_MAX_DRIFT`), it steps, lifted in an arc, instead of sliding
/// along the floor: each of its touches of the floor from the stand to his
/// stride slips under 6 cm (4.6 cm before the foot rises; it slid 42 cm
/// over 18 frames). (His other foot, setting off first, still drags 12.8
/// cm along the floor over the four frames its swing begins, 2232–2235:
/// its contact falls from the idle's as the walk fades in, and held down
/// by it the foot does not rise.)
#[test]
fn setting_off_from_a_stand_a_foot_far_from_its_clip_steps_not_slides() {
    let doc = run_doc_on(Some("tutorial"), "tutorial", 2262, "setoff");
    let frames = doc["frames"].as_array().unwrap();
    let mut touched = 0;
    for frame in &frames[2220..2262] {
        if let Some(t) = frame["feet"][1]["touch_slide_m"].as_f64() {
            touched += 1;
            assert!(t < 0.06, "frame {}: slipped {t} m", frame["frame"]);
        }
    }
    assert!(touched > 15, "{touched} frames touching");
}

/// Walking up stairs (the made level's quarter-metre stairs, walked right,
/// the body on their treads), no swinging foot of the knight goes more
/// than issue 32's 1 cm into a tread: its swing passes over the ground
/// between lift-off and landing (`gait::swing_ground`), not along the
/// straight line from one to the other, which ran under each tread's nose
/// (169 mm into the top tread before). Over the whole walk, there and
/// back, his swinging feet are more than 1 cm in on at most 150
/// foot-frames (110 today, 303 before): most of those left are his toes
/// at the top of the 45° climbs, which a swing up a slope is raised toward
/// passing over by only a little (`gait::CREST_RAISE_LEGS`).
#[test]
fn the_knights_swinging_feet_pass_over_the_stairs_noses() {
    let doc = run_doc_at(
        Some("tests/levels/descents.tmx"),
        "tests/levels/descents_walk.txt",
        3072,
        "descents_walk.swing_stairs",
    );
    let frames = doc["frames"].as_array().unwrap();
    let (mut on_stairs, mut in_total) = (0, 0);
    for frame in frames {
        let pos = &frame["pos"];
        let (x, y) = (pos[0].as_f64().unwrap(), pos[1].as_f64().unwrap());
        let walking_right = frame["frame"].as_u64().unwrap() < 1400;
        let stairs = walking_right && (9.0..12.0).contains(&x) && (2.2..2.8).contains(&y);
        on_stairs += usize::from(stairs);
        for (i, foot) in frame["feet"].as_array().unwrap().iter().enumerate() {
            let under = foot["swing_penetration_m"].as_f64().unwrap_or(0.0);
            in_total += usize::from(under > 0.01);
            assert!(
                !stairs || under <= 0.01,
                "frame {} foot {i}: swinging {under} m into a tread",
                frame["frame"]
            );
        }
    }
    assert!(on_stairs > 50, "{on_stairs} frames on the stairs");
    assert!(
        in_total <= 150,
        "{in_total} foot-frames of swinging feet over 1 cm in"
    );
}

/// Runs `script` on the built-in level with the gait started at `phase`
/// (`ironstep run --gait-phase`) and returns its metrics document.
fn run_at_phase(script: &str, frames: u32, phase: f32) -> Value {
    let path = format!("assets/scripts/{script}.txt");
    let name = format!("{script}.phase{phase}");
    run_doc_with(
        None,
        &path,
        frames,
        &name,
        &["--gait-phase", &phase.to_string()],
    )
}

/// `--gait-phase` starts the walk and run cycle there: half a cycle on,
/// the knight's symmetric walk sets off on the other foot, planted first
/// about when the other foot was at phase 0, and the run is otherwise the
/// same (the body's path does not depend on the pose).
#[test]
fn a_run_started_half_a_gait_cycle_on_sets_off_on_the_other_foot() {
    let first_planted = |doc: &Value| {
        doc["frames"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|fr| {
                let feet = fr["feet"].as_array().unwrap();
                let planted: Vec<bool> = feet.iter().map(|f| f["planted"] == true).collect();
                (planted[0] != planted[1]).then(|| (fr["frame"].as_u64().unwrap(), planted[1]))
            })
            .expect("a frame with one foot planted")
    };
    let a = run_at_phase("slopes_walk", 200, 0.0);
    let b = run_at_phase("slopes_walk", 200, 0.5);
    let (fa, right_a) = first_planted(&a);
    let (fb, right_b) = first_planted(&b);
    // Within a few frames: the idle the walk sets off from is not
    // symmetric.
    assert!(
        fa.abs_diff(fb) <= 3,
        "planted first at frames {fa} and {fb}"
    );
    assert_ne!(right_a, right_b, "the other foot");
    assert_eq!(a["summary"]["final_pos"], b["summary"]["final_pos"]);
}

/// Running up the built-in level's 45° climb onto its top, started at each
/// eighth of the gait cycle up to half (the other half puts the other foot
/// where these put one), every foot the clip puts down reaches the floor
/// within issue 32's 1 cm, neither sinking nor floating. The rear foot,
/// swung from the slope onto the top along the straight line from lift-off
/// to landing, went 16 cm into the crest on its way and came down onto the
/// top 11.2 mm in (started a quarter of a cycle on); raised toward passing
/// over the crest (`gait::CREST_RAISE_LEGS`), 9.3 mm.
#[test]
fn the_knight_running_up_the_climb_lands_on_its_top_wherever_his_steps_fall() {
    let mut over = Vec::new();
    for phase in [0.125, 0.25, 0.375] {
        let doc = run_at_phase("slopes_run", 825, phase);
        feet_over_a_centimetre(&format!("slopes_run at phase {phase}"), &doc, &mut over);
    }
    assert!(over.is_empty(), "over the 1 cm target: {over:?}");
}

/// On level floor (the frames the metrics count as flat, `flat_ik_delta_m`)
/// no swinging foot of the knight goes more than issue 32's 1 cm into the
/// floor (the tower, 2,265 such frames: 0.8 mm today). Over slopes and
/// crests his swinging toes still do (see BENCHMARKS, "Thirty-first
/// session"); on level floor a foot that did would be a swing dragging
/// through it (Kenney's, whose walk has no stance, go 65.9 mm in).
#[test]
fn the_knights_swinging_feet_stay_out_of_level_floor() {
    let doc = run_doc_on(Some("tower"), "tower", 5273, "swing_flat");
    let frames = doc["frames"].as_array().unwrap();
    let mut flat = 0;
    for frame in frames.iter().filter(|f| !f["flat_ik_delta_m"].is_null()) {
        flat += 1;
        for (i, foot) in frame["feet"].as_array().unwrap().iter().enumerate() {
            let under = foot["swing_penetration_m"].as_f64().unwrap_or(0.0);
            assert!(
                under <= 0.01,
                "frame {} foot {i}: swinging {under} m into level floor",
                frame["frame"]
            );
        }
    }
    assert!(flat > 1000, "{flat} frames on level floor");
}
