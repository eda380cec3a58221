//! End-to-end: the game's sound, checked without an audio device.
//!
//! `ironstep run --sound-log` plays the shipped scripts and writes every cue
//! the window would play; the tests read them against the level and the
//! knight's gait: footsteps alternate feet at the walk's and the run's
//! stride, planks, slopes, rungs and moving platforms sound as themselves
//! where they are, landings after higher falls are louder, and hands grip
//! rungs while climbing. The window itself runs silent without a device,
//! with one line saying so; deriving the events allocates nothing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use game::character::Character;
use game::character::events::EventTracker;
use game::sim::Sim;
use game::sim::player::DT;
use game::sim::script::Script;
use game::sim::world::{FloorKind, Level};
use serde_json::Value;

use crate::common;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One cue of a sound log.
#[derive(Clone, Debug)]
struct Cue {
    frame: u64,
    sound: String,
    volume: f64,
    surface: Option<String>,
    side: Option<String>,
    pos: [f64; 3],
    speed: Option<f64>,
    impact_speed: Option<f64>,
}

/// Runs `script` on `level` through the real binary with `--sound-log` (and
/// `extra` arguments) and returns its cues.
fn sound_log(level: &str, script: &str, frames: u32, extra: &[&str]) -> Vec<Cue> {
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let log = out_dir.join(format!("{script}{}.sounds.json", extra.join("")));
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .current_dir(repo())
        .args(["run", "--level", level, "--input"])
        .arg(format!("assets/scripts/{script}.txt"))
        .args(["--frames", &frames.to_string(), "--sound-log"])
        .arg(&log)
        .args(extra)
        .output()
        .expect("run ironstep");
    assert!(
        out.status.success(),
        "ironstep run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&log).unwrap()).unwrap();
    assert_eq!(doc["dropped"], 0, "no event was dropped");
    let num = |v: &Value| v.as_f64();
    let text = |v: &Value| v.as_str().map(str::to_string);
    doc["sounds"]
        .as_array()
        .expect("a list of sounds")
        .iter()
        .map(|s| Cue {
            frame: s["frame"].as_u64().unwrap(),
            sound: text(&s["sound"]).unwrap(),
            volume: num(&s["volume"]).unwrap(),
            surface: text(&s["surface"]),
            side: text(&s["side"]),
            pos: [0, 1, 2].map(|k| num(&s["position"][k]).unwrap()),
            speed: num(&s["speed"]),
            impact_speed: num(&s["impact_speed"]),
        })
        .collect()
}

fn is_floor_step(c: &Cue) -> bool {
    c.sound.starts_with("footstep_") && c.sound != "footstep_rung"
}

/// The knight's gait: footsteps alternate feet, and two plants in a row
/// at a steady walk or run are half a stride and half a stride's time
/// apart (the gait phase is driven by distance, so the count of steps
/// matches the distance walked); runs are louder than walks.
fn check_cadence(cues: &[Cue]) -> usize {
    let knight = Character::knight().unwrap();
    let params = game::sim::player::MoveParams::default();
    let half_stride = |speed: f64| {
        if (speed - f64::from(params.walk_speed)).abs() < 0.01 {
            Some(0.5 * f64::from(knight.clip_set.walk.cycle_distance))
        } else if (speed - f64::from(params.run_speed)).abs() < 0.01 {
            Some(0.5 * f64::from(knight.clip_set.run.cycle_distance))
        } else {
            None
        }
    };
    let steps: Vec<&Cue> = cues.iter().filter(|c| is_floor_step(c)).collect();
    let mut steady_pairs = 0;
    for w in steps.windows(3) {
        let (z, a, b) = (w[0], w[1], w[2]);
        let [sz, sa, sb] = [z, a, b].map(|c| c.speed.unwrap());
        // Two plants in a row of a steady gait: the same speed since the
        // plant before them (the walk/run blend has settled), within a
        // second of each other.
        let Some(expected) = half_stride(sa) else {
            continue;
        };
        if (sa - sb).abs() > 1e-3 || (sz - sa).abs() > 1e-3 || b.frame - a.frame > 64 {
            continue;
        }
        steady_pairs += 1;
        assert_ne!(
            a.side, b.side,
            "two plants of the same foot in a row: {a:?} then {b:?}"
        );
        let dx = (b.pos[0] - a.pos[0]).abs();
        // Within 15 % on level ground; 20 % onto a stair's tread, where a
        // landing short of a step up is moved back from the riser (by up
        // to a fifth of the leg, `RISER_MOVE_LEGS`): running up the
        // builtin level's stairs, a plant 0.932 m after the last against
        // half a stride of 1.1 m.
        let share = if a.pos[1] == b.pos[1] { 0.15 } else { 0.2 };
        assert!(
            (dx - expected).abs() < share * expected,
            "plants {dx:.3} m apart at {sa} m/s, half a stride is {expected:.3} m: {a:?} {b:?}"
        );
        // On flat ground (speed all horizontal) the second plant comes when
        // the body has covered half a stride: at the frame the gait says.
        if a.sound == "footstep_ground" && b.sound == "footstep_ground" && a.pos[1] == b.pos[1] {
            let gap = (b.frame - a.frame) as f64;
            let due = expected / sa * 64.0;
            assert!(
                (gap - due).abs() <= 2.0,
                "plants {gap} frames apart, half a stride at {sa} m/s takes {due:.1}: {a:?} {b:?}"
            );
        }
    }
    let volume_at = |speed: f32| {
        steps
            .iter()
            .find(|c| (c.speed.unwrap() - f64::from(speed)).abs() < 0.01)
            .map(|c| c.volume)
    };
    if let (Some(walk), Some(run)) = (volume_at(params.walk_speed), volume_at(params.run_speed)) {
        assert!(
            run > walk,
            "running steps ({run}) louder than walking ({walk})"
        );
    }
    steady_pairs
}

/// Every rung footstep and every grip, once the climber is on the ladder,
/// is on a rung of a ladder of the level (a grip also on the rails' rungs
/// above its top) (the ankle and the wrist sit at the
/// rig's offsets above a rung); hands alternate.
fn check_rungs(level: &Level, cues: &[Cue]) -> (usize, usize) {
    let rig = Character::knight().unwrap().rig;
    let (mut feet, mut grips) = (0, 0);
    let mut mount_frame = None;
    let mut last_hand: Option<&str> = None;
    for c in cues {
        let offset = match c.sound.as_str() {
            "footstep_rung" => f64::from(rig.ankle_from_rung.y),
            "grip" => f64::from(rig.wrist_from_rung.y),
            _ => {
                if is_floor_step(c) {
                    mount_frame = None;
                    last_hand = None;
                }
                continue;
            }
        };
        // The frame the climber takes hold: limbs are still where they
        // were, ladder IK fades in over the next frames.
        if mount_frame.is_none_or(|f| f == c.frame) {
            mount_frame = Some(c.frame);
            continue;
        }
        let (x, y) = (c.pos[0] as f32, c.pos[1] as f32);
        let ladder = level
            .ladders
            .iter()
            .find(|l| (x - l.x).abs() < 0.6 && y > l.bottom - 0.3 && y < l.top + 2.0)
            .unwrap_or_else(|| panic!("{c:?} is at no ladder"));
        // Hands also hold the rails' rungs above the ladder's top.
        let rung = if c.sound == "grip" {
            ladder.nearest_grip(y - offset as f32)
        } else {
            ladder.nearest_rung(y - offset as f32)
        }
        .unwrap();
        assert!(
            (y - rung - offset as f32).abs() < 0.03,
            "{c:?} is not on a rung (nearest {rung})"
        );
        if c.sound == "grip" {
            grips += 1;
            let hand = c.side.as_deref().unwrap();
            assert_ne!(last_hand, Some(hand), "the same hand gripped twice: {c:?}");
            last_hand = Some(hand);
        } else {
            feet += 1;
        }
    }
    (feet, grips)
}

/// A footstep sounds as a slope exactly where the floor under it slopes.
fn check_slopes(level: &Level, cues: &[Cue]) {
    for c in cues.iter().filter(|c| is_floor_step(c)) {
        let hit = level
            .floor_below(c.pos[0] as f32, c.pos[1] as f32 + 0.01, 0.1)
            .unwrap_or_else(|| panic!("no floor under {c:?}"));
        let sloped = hit.segment.angle().abs() > 0.05;
        assert_eq!(c.sound == "footstep_slope", sloped, "{c:?} on {hit:?}");
    }
}

#[test]
fn footsteps_follow_the_gait_and_hands_grip_rungs_on_the_ladders_script() {
    let cues = sound_log("builtin", "ladders", 2400, &[]);
    let pairs = check_cadence(&cues);
    // Running the slopes, walking to and between the ladders and to the exit.
    assert!(pairs >= 40, "only {pairs} steady footstep pairs");
    let level = Level::builtin();
    let (feet, grips) = check_rungs(&level, &cues);
    // Up ladder 1 and down ladder 2 (about 2.5 and 3 m): each foot takes a
    // rung per 0.6 m climbed (the climb cycle); hands too, but only while
    // they are below the top rung (a metre above the feet), so fewer.
    assert!(feet >= 14 && grips >= 6, "{feet} rung steps, {grips} grips");
    let count = |s: &str| cues.iter().filter(|c| c.sound == s).count();
    assert_eq!(count("jump"), 1, "one jump over the gap");
    assert_eq!(count("land"), 1, "one landing after it");
    assert!(count("footstep_slope") >= 10);
    check_slopes(&level, &cues);
}

#[test]
fn without_ik_footsteps_follow_the_clips_contact_instead() {
    // No foot locks without IK: the clips' contact weights plant the feet,
    // at the same cadence, on the floor under each ankle.
    let cues = sound_log("builtin", "ladders", 2400, &["--no-ik"]);
    let pairs = check_cadence(&cues);
    assert!(pairs >= 40, "only {pairs} steady footstep pairs");
    check_slopes(&Level::builtin(), &cues);
    let rungs = cues.iter().filter(|c| c.sound == "footstep_rung").count();
    assert!(rungs >= 14, "{rungs} rung steps");
}

#[test]
fn planks_platforms_and_falls_sound_as_themselves_on_the_tutorial() {
    let cues = sound_log("tutorial", "tutorial", 3900, &[]);
    let level = game::tools::headless::load_level("tutorial").unwrap();
    check_cadence(&cues);
    check_rungs(&level, &cues);
    // A plank footstep stands on a one-way plank of the level, a platform
    // footstep within a moving platform's path, and no other footstep on
    // either.
    let on_plank = |c: &Cue| {
        level.segments.iter().any(|s| {
            s.kind == FloorKind::OneWay
                && (s.x0..s.x1).contains(&(c.pos[0] as f32))
                && (s.height_at(c.pos[0] as f32) - c.pos[1] as f32).abs() < 0.01
        })
    };
    let on_path = |c: &Cue| {
        level.platforms.iter().any(|p| {
            let (lo, hi) = p
                .path
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), q| {
                    (lo.min(q.x - p.half_width), hi.max(q.x + p.half_width))
                });
            (lo..=hi).contains(&(c.pos[0] as f32))
        })
    };
    let mut planks = 0;
    let mut platforms = 0;
    for c in cues.iter().filter(|c| is_floor_step(c)) {
        match c.sound.as_str() {
            "footstep_plank" => {
                planks += 1;
                assert!(on_plank(c), "{c:?} is on no plank");
            }
            "footstep_platform" => {
                platforms += 1;
                assert!(on_path(c), "{c:?} is on no platform's path");
            }
            _ => assert!(!on_plank(c), "{c:?} is on a plank"),
        }
    }
    assert!(
        planks >= 8 && platforms >= 2,
        "{planks} plank and {platforms} platform steps"
    );

    // Landings: louder the further the fall from where the feet last left
    // a floor (the last footstep or jump before the landing): a jump up
    // onto a plank lands softly, one from a ledge hard.
    let mut landings = Vec::new();
    let mut takeoff_y = None;
    for c in &cues {
        if c.sound == "land" {
            let drop = takeoff_y.expect("a landing after a take-off") - c.pos[1];
            landings.push((drop, c.volume, c.impact_speed.unwrap()));
        } else if is_floor_step(c) || c.sound == "jump" {
            takeoff_y = Some(c.pos[1]);
        }
    }
    assert!(landings.len() >= 5, "{landings:?}");
    landings.sort_by(|a, b| a.0.total_cmp(&b.0));
    for w in landings.windows(2) {
        let ((d0, v0, s0), (d1, v1, s1)) = (w[0], w[1]);
        if d1 - d0 > 0.25 {
            assert!(
                v1 > v0 && s1 > s0,
                "a fall of {d1:.2} m ({s1:.2} m/s, volume {v1:.2}) is not louder than one of {d0:.2} m ({s0:.2} m/s, volume {v0:.2})"
            );
        }
    }
    let plank_landing = cues
        .iter()
        .any(|c| c.sound == "land" && c.surface.as_deref() == Some("plank"));
    assert!(plank_landing, "the jumps up through planks land on them");
}

#[test]
fn deriving_sound_events_allocates_nothing_per_frame() {
    let character = Arc::new(Character::knight().unwrap());
    let text = std::fs::read_to_string(repo().join("assets/scripts/ladders.txt")).unwrap();
    let script = Script::parse(&text, "ladders.txt").unwrap();
    let mut sim = Sim::new(Level::builtin(), character);
    let mut input = script.player();
    let mut events = EventTracker::new();
    for _ in 0..64 {
        sim.step(&input.next_input());
        sim.pose(DT);
        events.observe_sim(&sim);
    }
    let before = game::profile::thread_allocations().expect("the counting allocator");
    let mut seen = 0;
    for _ in 0..2300 {
        sim.step(&input.next_input());
        sim.pose(DT);
        seen += events.observe_sim(&sim).len();
    }
    let allocations = game::profile::thread_allocations().unwrap() - before;
    assert!(seen >= 80, "{seen} events");
    // The simulation and pose allocate nothing either (see no_alloc), so
    // every allocation here would be the events'.
    assert_eq!(
        allocations, 0,
        "allocations in 2,300 frames with {seen} events"
    );
}

#[test]
fn the_window_without_an_audio_device_plays_on_with_one_line() {
    common::require("xvfb-run", "xvfb");
    let run = |volume: &str| {
        let out = common::xvfb("640x360x24")
            .current_dir(repo())
            .env("WGPU_DEBUG", "0")
            .args([env!("CARGO_BIN_EXE_ironstep"), "play", "--input"])
            .arg("assets/scripts/ladders.txt")
            .args([
                "--exit-after",
                "90",
                "--window-size",
                "640x360",
                "--volume",
                volume,
            ])
            .output()
            .expect("run ironstep play");
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "ironstep play failed: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            !stderr.contains("ALSA lib"),
            "ALSA's own messages leaked: {stderr}"
        );
        stderr
    };
    // Without a device (CI, this box) one line says so; with one, none.
    let lines = |s: &str| s.lines().filter(|l| l.contains("audio")).count();
    let stderr = run("0.8");
    assert!(lines(&stderr) <= 1, "{stderr}");
    if lines(&stderr) == 1 {
        assert!(
            stderr.contains("ironstep: no audio device (")
                && stderr.contains("playing without sound"),
            "{stderr}"
        );
    }
    // Volume 0 opens no device at all: no line either way.
    let muted = run("0");
    assert_eq!(lines(&muted), 0, "{muted}");
    // A volume out of range is refused with the reason.
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .args(["play", "--volume", "2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("from 0 (silent) to 1"), "{stderr}");
}
