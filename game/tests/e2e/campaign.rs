//! End-to-end test of `ironstep run --campaign --autopilot`: the real binary
//! plays the whole level sequence (`assets/levels/sequence.ron`) headless
//! through the game's flow and reports every level completed, with its
//! time, frames and falls, printed and in the metrics JSON; a level's
//! frames there equal those of the autopilot playing that level alone (the
//! flow's exit is the autopilot's).

use std::process::Command;

use game::flow::Sequence;

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

#[test]
fn the_autopilot_completes_the_whole_sequence_and_reports_each_level() {
    let dir = crate::common::fresh_dir("campaign");
    let metrics = dir.join("campaign.json");
    let m = metrics.display().to_string();
    let (code, out, err) = ironstep(&["run", "--campaign", "--autopilot", "--metrics", &m]);
    assert_eq!(code, 0, "stdout {out}\nstderr {err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&metrics).unwrap()).unwrap();
    let s = &doc["summary"];
    let sequence = Sequence::shipped().unwrap();
    let n = sequence.len();
    assert_eq!(s["levels_in_sequence"], n);
    assert_eq!(s["levels_completed"], n, "{s}");
    let levels = s["levels"].as_array().unwrap();
    assert_eq!(levels.len(), n);
    let mut falls = 0;
    let mut time = 0.0;
    for (l, name) in levels.iter().zip(&sequence.names) {
        assert_eq!(l["level"], name.as_str());
        assert_eq!(l["completed"], true, "{l}");
        assert!(l["failure"].is_null(), "{l}");
        let frames = l["frames"].as_u64().unwrap();
        let t = l["time_s"].as_f64().unwrap();
        assert!(frames > 64, "{name}: a level takes more than a second");
        assert!(
            (t - frames as f64 / 64.0).abs() < 1e-3,
            "{name}: {t} s for {frames} frames"
        );
        let f = l["falls"].as_u64().unwrap();
        falls += f;
        time += t;
        assert!(
            out.contains(&format!(
                "campaign: {name} ({}): exit reached in {frames} frames ({t:.2} s), {f} falls",
                l["name"].as_str().unwrap()
            )),
            "{out}"
        );
        // The motion metrics cover the level's simulated frames.
        assert_eq!(l["motion"]["nan_count"], 0, "{name}");
        assert!(l["motion"]["frames"].as_u64().unwrap() <= frames);
    }
    assert_eq!(s["falls"].as_u64(), Some(falls));
    assert!((s["time_s"].as_f64().unwrap() - time).abs() < 1e-2);
    assert!(
        out.contains(&format!(
            "campaign: {n} of {n} levels completed, {falls} falls"
        )),
        "{out}"
    );
    // The tutorial alone: the same frames to its exit.
    let (code, out, err) = ironstep(&["run", "--autopilot", "--level", &sequence.names[0]]);
    assert_eq!(code, 0, "{out}\n{err}");
    let frames = levels[0]["frames"].as_u64().unwrap();
    assert!(
        out.contains(&format!("exit reached in {frames} frames")),
        "{out}"
    );
}

#[test]
fn campaign_needs_the_autopilot_and_takes_no_level() {
    let (code, _, err) = ironstep(&["run", "--campaign"]);
    assert_ne!(code, 0);
    assert!(err.contains("--autopilot"), "{err}");
    let (code, _, err) = ironstep(&["run", "--campaign", "--autopilot", "--level", "long"]);
    assert_ne!(code, 0);
    assert!(err.contains("--level"), "{err}");
}
