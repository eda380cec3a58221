//! Helpers shared by the end-to-end tests that drive real windows under Xvfb.
// Each test binary includes this module and uses only part of it.
#![allow(dead_code)]

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
