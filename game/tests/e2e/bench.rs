//! `ironstep bench` end to end, running the real binary: the Chrome trace is
//! valid and has every stage, the JSON report has its keys, runs are
//! deterministic (same seed and arguments, and 1 vs 2 threads), and steady
//! frames allocate nothing. Small crowds and few frames keep it quick.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `ironstep bench ARGS --json FILE` and returns the report.
fn bench(dir: &Path, tag: &str, args: &[&str]) -> Value {
    let json = dir.join(format!("{tag}.json"));
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .arg("bench")
        .args(args)
        .arg("--json")
        .arg(&json)
        .env("WGPU_DEBUG", "0")
        .env("XDG_RUNTIME_DIR", &runtime)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ironstep bench {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("foot_ik"), "no table:\n{text}");
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

const STAGES: [&str; 14] = [
    "input",
    "sim",
    "sample",
    "blend",
    "local_to_model",
    "foot_ik",
    "ladder_ik",
    "joint_limit",
    "palette",
    "scene",
    "upload",
    "encode",
    "submit",
    "present_wait",
];

#[test]
fn rendered_bench_writes_a_chrome_trace_with_every_stage_and_the_report_keys() {
    let dir = out_dir("bench_trace");
    let trace = dir.join("trace.json");
    let report = bench(
        &dir,
        "rendered",
        &[
            "--characters",
            "3",
            "--frames",
            "6",
            "--warmup",
            "4",
            "--threads",
            "2",
            "--render-size",
            "160x90",
            "--trace",
            trace.to_str().unwrap(),
        ],
    );
    for key in [
        "characters",
        "frames",
        "threads",
        "cpu_pose_us_per_character_p50",
        "cpu_frame_ms_p50",
        "cpu_frame_ms_p99",
        "gpu_frame_ms_p50",
        "allocations_per_frame_steady",
        "allocations_per_frame_pose",
        "allocations_per_frame_render",
        "pose_checksum",
    ] {
        assert!(report.get(key).is_some(), "report lacks {key}: {report}");
    }
    assert_eq!(report["characters"], 3);
    assert_eq!(report["frames"], 6);
    assert_eq!(report["threads"], 2);
    assert!(report["cpu_pose_us_per_character_p50"].as_f64().unwrap() > 0.0);
    // Each stage's cost per knight, the simulation step and local-to-model
    // among them (local-to-model apart from blending).
    for key in [
        "sim",
        "sample",
        "blend",
        "local_to_model",
        "foot_ik",
        "ladder_ik",
        "joint_limit",
        "palette",
    ] {
        let us = report["stage_us_per_character"][key].as_f64();
        assert!(
            us.is_some_and(|us| us >= 0.0),
            "stage_us_per_character lacks {key}: {report}"
        );
    }
    // The two paths are counted apart and add up to the steady figure; the
    // pose path allocates nothing even while frames are rendered.
    let count = |key: &str| {
        report[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key}: {report}"))
    };
    assert_eq!(count("allocations_per_frame_pose"), 0.0, "{report}");
    assert_eq!(
        count("allocations_per_frame_steady"),
        count("allocations_per_frame_pose") + count("allocations_per_frame_render"),
        "{report}"
    );
    // null only where the adapter has no timestamp queries.
    let gpu = &report["gpu_frame_ms_p50"];
    assert!(gpu.is_null() || gpu.as_f64().unwrap() > 0.0, "{gpu}");

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = doc["traceEvents"].as_array().expect("traceEvents array");
    let complete: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert!(!complete.is_empty());
    for e in &complete {
        assert!(e["name"].is_string() && e["pid"].is_u64() && e["tid"].is_u64());
        assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() >= 0.0);
    }
    for stage in STAGES {
        let n = complete.iter().filter(|e| e["name"] == stage).count();
        assert!(n >= 6, "stage {stage}: {n} events in 6 frames");
    }
    if !gpu.is_null() {
        assert!(complete.iter().any(|e| e["name"] == "gpu_main"));
    }
}

#[test]
fn bench_is_deterministic_across_runs_and_thread_counts_and_allocates_nothing() {
    let dir = out_dir("bench_determinism");
    let args = |threads: &'static str| {
        [
            "--characters",
            "24",
            "--frames",
            "40",
            "--warmup",
            "24",
            "--seed",
            "5",
            "--no-render",
            "--threads",
            threads,
        ]
    };
    let a = bench(&dir, "a", &args("1"));
    let b = bench(&dir, "b", &args("1"));
    let c = bench(&dir, "c", &args("2"));
    assert_eq!(a["pose_checksum"], b["pose_checksum"]);
    assert_eq!(a["pose_checksum"], c["pose_checksum"]);
    assert_eq!(c["threads"], 2);
    for r in [&a, &c] {
        assert_eq!(r["allocations_per_frame_steady"].as_f64(), Some(0.0), "{r}");
        assert_eq!(r["allocations_per_frame_pose"].as_f64(), Some(0.0), "{r}");
        assert_eq!(r["allocations_per_frame_render"].as_f64(), Some(0.0), "{r}");
        assert!(r["gpu_frame_ms_p50"].is_null());
    }
    // Another seed is another crowd.
    let mut other = args("1");
    other[7] = "6";
    let d = bench(&dir, "d", &other);
    assert_ne!(a["pose_checksum"], d["pose_checksum"]);
}
