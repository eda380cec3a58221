//! End-to-end tests of recordings and replays, and of rebinding keys.
//!
//! - The autopilot's run on the built-in level and on every level of
//!   `assets/levels/` is recorded (`run --autopilot --record`) and replayed
//!   (`run --input`): the same frames, final position and pose checksum; a
//!   recording altered by one line is caught, and a flag that contradicts
//!   a recording's header is refused.
//! - A scripted window run under Xvfb that falls into the tutorial's gap
//!   (respawns at a checkpoint, through the game's flow), with IK switched
//!   off (I) between two falls, is recorded with `play --record`, and the
//!   bug-report key (F8) saves the attempt so far into the save folder's
//!   `recordings/`: both replay headless to the window's frames, position
//!   and pose checksum.
//! - Rebinding through the settings screen in a real window: walk right
//!   moved to L (refusing A, which walks left, with a message), the new key
//!   walks the knight, the settings file holds it, and restoring the
//!   defaults brings the old keys back.
//!
//! The window tests wait on the game's own output lines (`flow: ...`,
//! `recording: ...`, `notice: ...`, `screenshot ...`), never on time; the
//! limit of 60 s per wait only stops a hang.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;
use game::level::shipped::shipped_names;

fn ironstep(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .env("WGPU_DEBUG", "0")
        .output()
        .expect("ironstep runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The summary of a metrics file: frames, final position, pose checksum.
fn end_of(metrics: &Path) -> (u64, [f64; 2], String) {
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(metrics).unwrap()).unwrap();
    let s = &doc["summary"];
    let pos = s["final_pos"].as_array().expect("final_pos");
    (
        s["frames"].as_u64().expect("frames"),
        [pos[0].as_f64().unwrap(), pos[1].as_f64().unwrap()],
        s["pose_checksum"]
            .as_str()
            .expect("pose_checksum")
            .to_string(),
    )
}

/// Every level the autopilot is recorded on: the built-in one, the
/// shipped ones by name, and every other map in `assets/levels/` by path.
fn every_level() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let shipped_files: Vec<String> = shipped_names()
        .iter()
        .map(|n| format!("assets/levels/{n}.tmx"))
        .collect();
    let mut levels: Vec<String> = std::iter::once("builtin")
        .chain(shipped_names())
        .map(String::from)
        .collect();
    let mut others: Vec<String> = std::fs::read_dir(root.join("assets/levels"))
        .unwrap()
        .map(|e| format!("assets/levels/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".tmx") && !shipped_files.contains(p))
        .collect();
    others.sort();
    levels.extend(others);
    levels
}

#[test]
fn autopilot_recordings_replay_exactly_on_every_level() {
    let dir = fresh_dir("replay-autopilot");
    let levels = every_level();
    assert!(levels.len() >= 5, "{levels:?}");
    for level in &levels {
        let tag = level.replace(['/', '.'], "_");
        let rec = dir.join(format!("{tag}.txt"));
        let (a, b) = (
            dir.join(format!("{tag}-a.json")),
            dir.join(format!("{tag}-b.json")),
        );
        let p = |p: &PathBuf| p.display().to_string();
        let (code, out, err) = ironstep(&[
            "run",
            "--autopilot",
            "--level",
            level,
            "--record",
            &p(&rec),
            "--metrics",
            &p(&a),
        ]);
        assert_eq!(code, 0, "{level}: {out}\n{err}");
        assert!(out.contains("recording: wrote"), "{out}");
        let text = std::fs::read_to_string(&rec).unwrap();
        assert!(
            text.lines().any(|l| l == format!("level {level}")),
            "{level}: the header names the level:\n{text}"
        );
        // No --level, no --frames: the header gives them.
        let (code, out, err) = ironstep(&["run", "--input", &p(&rec), "--metrics", &p(&b)]);
        assert_eq!(code, 0, "{level}: {out}\n{err}");
        assert!(
            out.contains("replay: matches the recording"),
            "{level}: {out}"
        );
        let (ra, rb) = (end_of(&a), end_of(&b));
        assert!(ra.0 > 100, "{level}: {} frames", ra.0);
        assert_eq!(
            ra, rb,
            "{level}: recorded vs replayed (frames, end, checksum)"
        );
        println!(
            "{level}: {} frames, end {:?}, pose checksum {}",
            ra.0, ra.1, ra.2
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A recording changed by one line replays to another end, and the replay
/// says so and fails; a flag that contradicts the header is refused.
#[test]
fn an_altered_recording_or_a_contradicting_flag_is_caught() {
    let dir = fresh_dir("replay-altered");
    let rec = dir.join("t.txt");
    let r = rec.display().to_string();
    let (code, out, err) = ironstep(&["run", "--autopilot", "--level", "tutorial", "--record", &r]);
    assert_eq!(code, 0, "{out}\n{err}");
    let text = std::fs::read_to_string(&rec).unwrap();
    // The first line that holds run: the knight walks instead.
    let altered = text.replacen(" keys right run\n", " keys right\n", 1);
    assert_ne!(altered, text, "{text}");
    std::fs::write(&rec, altered).unwrap();
    let (code, out, err) = ironstep(&["run", "--input", &r]);
    assert_ne!(code, 0, "{out}");
    assert!(
        err.contains("replay: differs from the recording: ended at ("),
        "{err}"
    );
    assert!(err.contains("pose checksum"), "{err}");
    let (code, _, err) = ironstep(&["run", "--input", &r, "--level", "long"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("recorded with the level tutorial, but --level says long"),
        "{err}"
    );
    let (code, _, err) = ironstep(&["run", "--input", &r, "--no-ik"]);
    assert_ne!(code, 0);
    assert!(err.contains("recorded with IK on, but --no-ik"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The path, frames, end and checksum of a `recording: VERB PATH (N
/// frames, ends at X Y, pose checksum H)` line.
fn recording(out: &str, verb: &str) -> (PathBuf, u64, [f64; 2], String) {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix(&format!("recording: {verb} ")))
        .unwrap_or_else(|| panic!("no 'recording: {verb}' line:\n{out}"));
    let (path, rest) = line.split_once(" (").unwrap();
    let w: Vec<&str> = rest.split_whitespace().collect();
    // N frames, ends at X Y, pose checksum H)
    (
        PathBuf::from(path),
        w[0].parse().unwrap(),
        [
            w[4].parse().unwrap(),
            w[5].trim_end_matches(',').parse().unwrap(),
        ],
        w[8].trim_end_matches(')').to_string(),
    )
}

#[test]
fn a_window_run_and_the_bug_report_key_replay_exactly() {
    require("xvfb-run", "xvfb xauth");
    require("xdotool", "xdotool");
    let dir = fresh_dir("replay-window");
    // Run right and never jump, holding down so that the far side's corner
    // is not caught (a ledge grab): the knight falls into the tutorial's
    // gap, fades out and comes back at the checkpoint before it, again and
    // again.
    std::fs::write(
        dir.join("fall.txt"),
        "0 press right\n0 press run\n0 press down\n",
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_ironstep");
    let script = format!(
        r#"{WAITFOR}
'{bin}' play --level tutorial --input fall.txt --record rec.txt --volume 0 --window-size 480x270 > out.txt 2> err.txt &
game=$!
win=$(xdotool search --sync --name '^Ironstep$' | head -n 1)
xdotool windowfocus --sync "$win"
waitfor 'flow: event Respawned'
xdotool key i
n=0; until grep -q 'IK off' err.txt; do n=$((n+1)); [ $n -gt 600 ] && {{ echo "timed out waiting for IK off"; kill $game; exit 1; }}; sleep 0.1; done
waitcount 'flow: event Respawned' 2
xdotool key F8
waitfor 'recording: saved'
waitfor 'notice: Replay saved'
xdotool key Escape
waitfor 'flow: screen Paused'
xdotool key Up
waitfor 'selected "Quit"'
xdotool key Return
wait $game
echo "exit $?""#
    );
    let out = run_in_xvfb(&script, &dir);
    let saved = recording(&out, "saved");
    let wrote = recording(&out, "wrote");
    assert!(
        saved.0.starts_with(dir.join("data").join("recordings")),
        "the bug-report key saves into the save folder: {}",
        saved.0.display()
    );
    assert_eq!(wrote.0, PathBuf::from("rec.txt"));
    assert!(saved.1 > 0 && wrote.1 >= saved.1, "{out}");
    let text = std::fs::read_to_string(&saved.0).unwrap();
    assert!(
        text.contains("flow on") && text.contains("level tutorial"),
        "{text}"
    );
    assert!(text.contains("the last 60 s begin at frame"), "{text}");
    // IK switched off with I mid-run is in the recording, at its step.
    assert!(text.lines().any(|l| l.ends_with(" ik off")), "{text}");
    for (path, frames, end, sum) in [saved, (dir.join(&wrote.0), wrote.1, wrote.2, wrote.3)] {
        let m = dir.join("m.json");
        let (code, stdout, err) = ironstep(&[
            "run",
            "--input",
            &path.display().to_string(),
            "--metrics",
            &m.display().to_string(),
        ]);
        assert_eq!(code, 0, "{}: {stdout}\n{err}", path.display());
        assert!(stdout.contains("replay: matches the recording"), "{stdout}");
        let (f, e, c) = end_of(&m);
        assert_eq!(
            (f, c.as_str()),
            (frames, sum.as_str()),
            "{}",
            path.display()
        );
        for k in 0..2 {
            assert!((e[k] - end[k]).abs() < 1e-4, "{e:?} vs {end:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn keys_rebound_in_settings_are_used_in_play_saved_and_restored() {
    require("xvfb-run", "xvfb xauth");
    require("xdotool", "xdotool");
    let dir = fresh_dir("replay-rebind");
    let bin = env!("CARGO_BIN_EXE_ironstep");
    // Pause, Settings (the fourth item), Key bindings (the fifth), walk
    // right (the second): L. Then climb up: A, refused (it walks left).
    // Back to play, hold L and take screenshots (F12, each printing the
    // knight's x) until he has walked 0.5 m right. Then restore the
    // defaults (two up from the first binding) and quit (Back returns to
    // the pause menu's Settings; Quit is the next item).
    let script = format!(
        r#"{WAITFOR}
shots() {{ grep -c '^screenshot ' out.txt; }}
xof() {{ grep '^screenshot ' out.txt | tail -n 1 | awk '{{print $4}}'; }}
'{bin}' play --level builtin --volume 0 --window-size 480x270 --screenshot-dir shots > out.txt 2> err.txt &
game=$!
mkdir -p shots
win=$(xdotool search --sync --name '^Ironstep$' | head -n 1)
xdotool windowfocus --sync "$win"
waitfor 'flow: screen Playing'
xdotool key Escape
waitfor 'flow: screen Paused'
xdotool key Down Down Down
waitcount 'Paused selected "Settings"' 1
xdotool key Return
waitfor 'flow: screen Settings'
xdotool key Down Down Down Down
waitfor 'selected "Key bindings"'
xdotool key Return
waitfor 'flow: screen Bindings'
xdotool key Down
waitfor 'selected "walk right: → or D'
xdotool key Return
waitfor 'selected "walk right: press a key'
xdotool key l
waitfor 'selected "walk right: L  |'
cp data/settings.ron rebound.ron
xdotool key Down
waitfor 'selected "climb up: ↑ or W'
xdotool key Return
waitfor 'selected "climb up: press a key'
xdotool key a
waitfor 'notice: Not bound: A already does "walk left"'
xdotool key Escape Escape
waitcount 'Paused selected "Settings"' 2
xdotool key Escape
waitcount 'flow: screen Playing' 2
xdotool key F12
waitcount '^screenshot ' 1
x0=$(xof)
xdotool keydown l
i=0
until awk -v a="$(xof)" -v b="$x0" 'BEGIN {{ exit !(a > b + 0.5) }}'; do
  i=$((i+1)); [ $i -gt 600 ] && {{ echo "never walked right"; kill $game; exit 1; }}
  c=$(shots); xdotool key F12; waitcount '^screenshot ' $((c+1))
done
xdotool keyup l
echo "walked from $x0 to $(xof)"
xdotool key Escape
waitcount 'Paused selected "Resume"' 2
xdotool key Down Down Down
waitcount 'Paused selected "Settings"' 3
xdotool key Return
xdotool key Down Down Down Down
waitcount 'selected "Key bindings"' 2
xdotool key Return
waitcount 'flow: screen Bindings' 2
xdotool key Up Up
waitfor 'selected "Restore the default controls"'
xdotool key Return
waitfor 'notice: The default controls are restored'
xdotool key Up
waitfor 'selected "toggle the debug overlay'
xdotool key Escape Escape
waitcount 'Paused selected "Settings"' 4
xdotool key Down
waitfor 'selected "Quit"'
xdotool key Return
wait $game
echo "exit $?""#
    );
    let out = run_in_xvfb(&script, &dir);
    let rebound = std::fs::read_to_string(dir.join("rebound.ron")).unwrap();
    assert!(
        rebound.contains("\"KeyL\""),
        "saved with the settings:\n{rebound}"
    );
    // The refused binding left climb up as it was.
    assert!(
        out.contains(
            "Not bound: A already does \"walk left\": rebind that first, or restore the defaults"
        ),
        "{out}"
    );
    let store = game::flow::SaveStore::at(dir.join("data"));
    let (settings, msg) = store.load_settings();
    assert_eq!(msg, None);
    assert_eq!(
        settings.bindings,
        game::flow::Bindings::default(),
        "restored"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
