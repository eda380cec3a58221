//! Scripted input for headless runs and tests: a small text format of timed
//! presses.
//!
//! One command per line; `#` starts a comment; times are seconds from the
//! start of the run and must not decrease:
//!
//! ```text
//! # walk right, run, jump the gap, climb the first ladder
//! 0.0   press right
//! 2.0   press run
//! 6.5   tap jump          # pressed for one simulation step
//! 9.0   release run
//! 12.0  release right
//! 12.0  hold up 4.0       # press now, release after 4 s
//! goal  41.5 2.4 0.5      # the run must end within 0.5 m of (41.5, 2.4)
//! ```
//!
//! Keys: `left right up down jump run`. Commands: `press KEY`, `release KEY`,
//! `tap KEY`, `hold KEY SECONDS`. A `goal X Y RADIUS` line (no time) states
//! where the player must be when the run ends.
//!
//! Limits (each refusal names the file and, past the size limits, the
//! line): a script is at most [`MAX_SCRIPT_BYTES`] long, with at most
//! [`MAX_SCRIPT_LINES`] lines; times and hold durations lie in
//! 0..=[`MAX_SCRIPT_SECONDS`]; a goal lies within [`MAX_GOAL_METRES`] of the
//! origin with a radius in 0..=[`MAX_GOAL_METRES`].

use std::path::Path;

use glam::Vec2;
use thiserror::Error;

use crate::sim::player::{DT, Input};

/// Longest input script read, bytes: a hand-written script is a few
/// kilobytes (the shipped ones are under 1 KiB); a larger file is not one.
pub const MAX_SCRIPT_BYTES: u64 = 1 << 20;
/// Most lines a script may have: a press every simulation step of the
/// longest run ([`MAX_SCRIPT_SECONDS`] at 64 Hz) is under 40,000.
pub const MAX_SCRIPT_LINES: usize = 65_536;
/// Latest time (and longest hold) a script may name, seconds: the longest
/// headless run ([`crate::tools::headless::MAX_FRAMES`], ten minutes), so
/// every press can happen; in `f32` seconds that far keeps a precision of
/// 0.06 ms, far under one 15.6 ms step.
pub const MAX_SCRIPT_SECONDS: f32 = 600.0;
/// Farthest a goal may lie from the origin, and its largest radius, metres:
/// the farthest a level reaches ([`crate::level::limits::MAX_LEVEL_REACH_M`]
/// from the map's corner, both ways).
pub const MAX_GOAL_METRES: f32 = 2.0 * crate::level::limits::MAX_LEVEL_REACH_M;

/// A key the script can press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// Move left.
    Left,
    /// Move right.
    Right,
    /// Climb up.
    Up,
    /// Climb down.
    Down,
    /// Jump.
    Jump,
    /// Run modifier.
    Run,
}

impl Key {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "left" => Key::Left,
            "right" => Key::Right,
            "up" => Key::Up,
            "down" => Key::Down,
            "jump" => Key::Jump,
            "run" => Key::Run,
            _ => return None,
        })
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A press or release at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Event {
    time: f32,
    key: Key,
    down: bool,
}

/// Where the player must end up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Goal {
    /// Target feet position, metres.
    pub pos: Vec2,
    /// Allowed distance, metres.
    pub radius: f32,
}

/// A parsed input script.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    events: Vec<Event>,
    /// The goal, if the script names one.
    pub goal: Option<Goal>,
}

/// Why a script could not be read.
#[derive(Debug, Error)]
pub enum ScriptError {
    /// The file could not be read.
    #[error("{file}: {reason}")]
    Io {
        /// The script's path.
        file: String,
        /// The I/O error (shown in the message, so not also chained as its
        /// source: a chain would print it twice).
        reason: std::io::Error,
    },
    /// A line is malformed.
    #[error("{file}:{line}: {reason}")]
    Syntax {
        /// The script's path (or a label).
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

impl Script {
    /// Reads and parses a script file: a regular file of at most
    /// [`MAX_SCRIPT_BYTES`] of UTF-8 text.
    pub fn load(path: &Path) -> Result<Self, ScriptError> {
        let io = |reason| ScriptError::Io {
            file: path.display().to_string(),
            reason,
        };
        let bytes = crate::fsio::read_bounded(path, MAX_SCRIPT_BYTES).map_err(io)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not UTF-8 text: {e}"),
            ))
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses script text; `file` labels errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, ScriptError> {
        let mut script = Script::default();
        let mut last_time = 0.0f32;
        if text.len() as u64 > MAX_SCRIPT_BYTES {
            return Err(ScriptError::Syntax {
                file: file.to_string(),
                line: 1,
                reason: format!(
                    "the script is {} bytes, more than the limit of {MAX_SCRIPT_BYTES}",
                    text.len()
                ),
            });
        }
        for (i, raw) in text.lines().enumerate() {
            let err = |reason: String| ScriptError::Syntax {
                file: file.to_string(),
                line: i + 1,
                reason,
            };
            if i >= MAX_SCRIPT_LINES {
                return Err(err(format!(
                    "more than {MAX_SCRIPT_LINES} lines, the limit for a script"
                )));
            }
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let num = |s: &str, what: &str| -> Result<f32, ScriptError> {
                s.parse::<f32>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| err(format!("{what} '{s}' is not a finite number")))
            };
            // A number in `lo..=hi`, its limit named when it is outside.
            let within = |s: &str, what: &str, lo: f32, hi: f32| -> Result<f32, ScriptError> {
                let v = num(s, what)?;
                if (lo..=hi).contains(&v) {
                    Ok(v)
                } else {
                    Err(err(format!("{what} {v} is outside the limits {lo}..={hi}")))
                }
            };
            if words[0] == "goal" {
                if words.len() != 4 {
                    return Err(err("expected 'goal X Y RADIUS'".into()));
                }
                let m = MAX_GOAL_METRES;
                script.goal = Some(Goal {
                    pos: Vec2::new(
                        within(words[1], "goal x (m)", -m, m)?,
                        within(words[2], "goal y (m)", -m, m)?,
                    ),
                    radius: within(words[3], "goal radius (m)", 0.0, m)?,
                });
                continue;
            }
            if words.len() < 3 {
                return Err(err("expected 'TIME COMMAND KEY'".into()));
            }
            let time = within(words[0], "time (s)", 0.0, MAX_SCRIPT_SECONDS)?;
            if time < last_time {
                return Err(err(format!(
                    "time {time} is earlier than the line before ({last_time})"
                )));
            }
            last_time = time;
            let key = Key::parse(words[2]).ok_or_else(|| {
                err(format!(
                    "unknown key '{}' (expected left, right, up, down, jump or run)",
                    words[2]
                ))
            })?;
            let mut push = |time: f32, down: bool| script.events.push(Event { time, key, down });
            match (words[1], words.len()) {
                ("press", 3) => push(time, true),
                ("release", 3) => push(time, false),
                ("tap", 3) => {
                    push(time, true);
                    push(time + DT * 0.5, false);
                }
                ("hold", 4) => {
                    let secs = within(words[3], "hold duration (s)", 0.0, MAX_SCRIPT_SECONDS)?;
                    push(time, true);
                    push(time + secs, false);
                }
                (cmd, _) => {
                    return Err(err(format!(
                        "unknown command or wrong argument count: '{cmd}' (expected press, release, tap KEY, or hold KEY SECONDS)"
                    )));
                }
            }
        }
        // Holds may end after later presses: keep events in time order (stable).
        script.events.sort_by(|a, b| a.time.total_cmp(&b.time));
        Ok(script)
    }

    /// A player of this script, one simulation step at a time.
    pub fn player(&self) -> ScriptPlayer<'_> {
        ScriptPlayer {
            script: self,
            next: 0,
            held: 0,
            step: 0,
        }
    }
}

/// Replays a script step by step.
pub struct ScriptPlayer<'a> {
    script: &'a Script,
    next: usize,
    held: u8,
    step: u64,
}

impl ScriptPlayer<'_> {
    /// The input for the next simulation step.
    pub fn next_input(&mut self) -> Input {
        let t_end = (self.step + 1) as f32 * DT;
        let mut pressed = 0u8;
        while let Some(e) = self.script.events.get(self.next) {
            if e.time >= t_end {
                break;
            }
            if e.down {
                pressed |= e.key.bit();
                self.held |= e.key.bit();
            } else {
                self.held &= !e.key.bit();
            }
            self.next += 1;
        }
        self.step += 1;
        let held = self.held | pressed;
        let is = |k: Key| held & k.bit() != 0;
        Input {
            move_x: f32::from(is(Key::Right)) - f32::from(is(Key::Left)),
            move_y: f32::from(is(Key::Up)) - f32::from(is(Key::Down)),
            run: is(Key::Run),
            jump_pressed: pressed & Key::Jump.bit() != 0,
            jump_held: is(Key::Jump),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presses_hold_until_released_and_taps_last_one_step() {
        let s = Script::parse("0 press right\n0.5 tap jump\n1.0 release right\n", "t").unwrap();
        let mut p = s.player();
        let inputs: Vec<Input> = (0..80).map(|_| p.next_input()).collect();
        assert_eq!(inputs[0].move_x, 1.0);
        let jumps: Vec<usize> = (0..80).filter(|&i| inputs[i].jump_pressed).collect();
        assert_eq!(jumps, vec![32]);
        assert!(!inputs[33].jump_held);
        assert_eq!(inputs[63].move_x, 1.0);
        assert_eq!(inputs[64].move_x, 0.0);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e = Script::parse("0 press right\n0.5 press fly\n", "walk.txt").unwrap_err();
        assert_eq!(
            e.to_string(),
            "walk.txt:2: unknown key 'fly' (expected left, right, up, down, jump or run)"
        );
        let e = Script::parse("1 press right\n0.5 release right\n", "w").unwrap_err();
        assert!(e.to_string().starts_with("w:2: time 0.5 is earlier"));
        let e = Script::parse("nan press right\n", "w").unwrap_err();
        assert!(e.to_string().contains("not a finite number"));
    }

    #[test]
    fn values_past_the_limits_are_refused_naming_line_value_and_limit() {
        let e = Script::parse("0 press right\n601 release right\n", "w.txt").unwrap_err();
        assert_eq!(
            e.to_string(),
            "w.txt:2: time (s) 601 is outside the limits 0..=600"
        );
        let e = Script::parse("-1 press right\n", "w.txt").unwrap_err();
        assert!(
            e.to_string().starts_with("w.txt:1: time (s) -1 is outside"),
            "{e}"
        );
        let e = Script::parse("0 hold up 1e30\n", "w.txt").unwrap_err();
        assert!(
            e.to_string().contains(
                "hold duration (s) 1000000000000000000000000000000 is outside the limits 0..=600"
            ),
            "{e}"
        );
        let e = Script::parse("0 hold up -2\n", "w.txt").unwrap_err();
        assert!(
            e.to_string().contains("hold duration (s) -2 is outside"),
            "{e}"
        );
        let e = Script::parse("goal 1e9 0 1\n", "w.txt").unwrap_err();
        assert!(
            e.to_string()
                .contains("goal x (m) 1000000000 is outside the limits -4096..=4096"),
            "{e}"
        );
        let e = Script::parse("goal 1 0 -1\n", "w.txt").unwrap_err();
        assert!(
            e.to_string().contains("goal radius (m) -1 is outside"),
            "{e}"
        );
        let many = "# nothing\n".repeat(MAX_SCRIPT_LINES + 1);
        let e = Script::parse(&many, "w.txt").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "w.txt:{}: more than {MAX_SCRIPT_LINES} lines, the limit for a script",
                MAX_SCRIPT_LINES + 1
            )
        );
        // The largest values allowed still parse and play.
        let s = Script::parse("600 hold up 600\ngoal 4096 -4096 4096\n", "w.txt").unwrap();
        assert_eq!(s.events.len(), 2);
    }

    #[test]
    fn load_refuses_devices_and_oversized_files_naming_them() {
        let e = Script::load(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("/dev/zero: not a regular file"), "{e}");
        let dir = std::env::temp_dir().join(format!("ironstep-script-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.txt");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_SCRIPT_BYTES + 1)
            .unwrap();
        let e = Script::load(&big).unwrap_err().to_string();
        assert!(
            e.contains("big.txt") && e.contains(&format!("limit of {MAX_SCRIPT_BYTES} bytes")),
            "{e}"
        );
        let text = std::fs::write(&big, [0xffu8, 0xfe, b'\n']);
        text.unwrap();
        let e = Script::load(&big).unwrap_err().to_string();
        assert!(e.contains("big.txt: not UTF-8"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn goal_and_hold_parse() {
        let s = Script::parse("goal 10 2 0.5\n0 hold up 1.0 # climb\n", "t").unwrap();
        assert_eq!(s.goal.unwrap().pos, Vec2::new(10.0, 2.0));
        let mut p = s.player();
        let ups = (0..100).filter(|_| p.next_input().move_y > 0.0).count();
        assert_eq!(ups, 64);
    }
}
