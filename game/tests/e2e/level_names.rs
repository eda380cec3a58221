//! End-to-end: every subcommand that takes a level (`play`, `run`, `bench`,
//! `check-level`) resolves it the same way: `builtin`, a shipped level's
//! name, or a path; an unknown name fails with the list of what exists.
//! (`play --level tutorial` once failed while `run --level tutorial` worked.)

use crate::common;
use common::*;

use std::process::Command;

use game::level::shipped::level_names;

fn ironstep(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .args(args)
        .current_dir(fresh_dir(&format!("level-names-{}", args.join("-"))))
        .env("WGPU_DEBUG", "0")
        .output()
        .expect("ironstep runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts a failure whose message names the argument and lists every
/// level name.
fn assert_unknown_level(code: i32, stderr: &str, given: &str) {
    assert_ne!(code, 0, "{stderr}");
    assert!(
        stderr.contains(&format!("{given}: unknown level")),
        "{stderr}"
    );
    for name in level_names() {
        assert!(stderr.contains(name), "the error lacks `{name}`: {stderr}");
    }
}

#[test]
fn run_and_bench_take_every_level_name_and_list_them_for_an_unknown_one() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/scripts/slopes_walk.txt"
    );
    for name in level_names() {
        let (code, out, err) =
            ironstep(&["run", "--level", name, "--input", script, "--frames", "8"]);
        assert_eq!(code, 0, "run --level {name}:\n{out}\n{err}");
        let (code, out, err) = ironstep(&[
            "bench",
            "--level",
            name,
            "--characters",
            "2",
            "--frames",
            "3",
            "--warmup",
            "1",
            "--no-render",
        ]);
        assert_eq!(code, 0, "bench --level {name}:\n{out}\n{err}");
    }
    let (code, _, err) = ironstep(&[
        "run", "--level", "tutorail", "--input", script, "--frames", "8",
    ]);
    assert_unknown_level(code, &err, "tutorail");
    let (code, _, err) = ironstep(&[
        "bench",
        "--level",
        "nowhere",
        "--frames",
        "2",
        "--no-render",
    ]);
    assert_unknown_level(code, &err, "nowhere");
}

#[test]
fn check_level_takes_every_level_name_and_rejects_unknown_ones() {
    let mut args = vec!["check-level"];
    args.extend(level_names());
    let (code, out, err) = ironstep(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains(&format!("{} level files OK", level_names().len())),
        "{out}"
    );
    // The built-in level is made by code: accepted, with nothing to check.
    assert!(
        out.contains("builtin:level: warning: the built-in level is made by code"),
        "{out}"
    );
    let (code, out, err) = ironstep(&["check-level", "tutorail"]);
    assert_unknown_level(code, &format!("{out}{err}"), "tutorail");
}

#[test]
fn play_opens_every_level_name_and_rejects_unknown_ones() {
    require("xvfb-run", "xvfb xauth");
    let bin = env!("CARGO_BIN_EXE_ironstep");
    let data = fresh_dir("level-names-data");
    for name in level_names() {
        let out = xvfb("1024x768x24")
            .args([
                bin,
                "play",
                "--level",
                name,
                "--window-size",
                "320x180",
                "--exit-after",
                "5",
            ])
            .env("WGPU_DEBUG", "0")
            .env("IRONSTEP_DATA_DIR", &data)
            .output()
            .expect("running xvfb-run");
        assert!(
            out.status.success(),
            "play --level {name}:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = xvfb("1024x768x24")
        .args([bin, "play", "--level", "tutorail", "--exit-after", "5"])
        .env("WGPU_DEBUG", "0")
        .output()
        .expect("running xvfb-run");
    assert_unknown_level(
        out.status.code().unwrap_or(-1),
        &String::from_utf8_lossy(&out.stderr),
        "tutorail",
    );
}
