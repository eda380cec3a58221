//! Helpers shared by the end-to-end tests that drive real windows under Xvfb.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Fails with the package to install when a command-line tool is missing
/// (tests/run installs them; a missing tool is never a silent skip).
pub fn require(tool: &str, package: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "`{tool}` is missing: install it with `apt-get install {package}` (or run tests/run)"
    );
}

/// Distinct colours, a cheap check that a picture is not blank or uniform.
pub fn distinct_colours(rgba: &[u8]) -> usize {
    let mut seen = std::collections::HashSet::new();
    for p in rgba.chunks_exact(4) {
        seen.insert([p[0] >> 3, p[1] >> 3, p[2] >> 3]);
    }
    seen.len()
}

/// A fresh, empty folder named `name` under this test binary's temporary
/// folder (whatever an earlier run left there is removed first).
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `timeout 300 xvfb-run -a -s "-screen 0 SCREEN"`, ready for the command
/// to run in that new X display (`SCREEN` as `WIDTHxHEIGHTxDEPTH`). The
/// five-minute bound keeps a hung window from hanging the test run.
pub fn xvfb(screen: &str) -> Command {
    let mut cmd = Command::new("timeout");
    cmd.args([
        "300",
        "xvfb-run",
        "-a",
        "-s",
        &format!("-screen 0 {screen}"),
    ]);
    cmd
}
