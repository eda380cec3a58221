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
//! Recordings ([`crate::sim::record`]) use three more commands, one line
//! per change rather than per press: `keys [KEY...]` holds exactly those
//! keys from then on (a key not held before is pressed, one left out is
//! released; `keys` alone releases everything), `stick X Y` sets a
//! gamepad stick's deflection (−1 to 1 each, added to the keys' −1/0/1 and
//! clamped), and `ik on|off` switches foot and ladder IK as the settings
//! did. A press of a key already held (`press jump` while jump is held) is
//! a fresh press: a new jump; `flick KEY` is a press released within its
//! step (pressed, not held: `tap` holds for its step), `still KEY` holds a
//! key without pressing it (a button already down when the run took it
//! over: no jump). Lines without a time form the header, which
//! says what the run must be played on (each at most once; a command-line
//! flag that contradicts it is refused):
//!
//! ```text
//! level tutorial          # the --level argument
//! character m.glb         # the --character model (none: the knight)
//! rig m.ron               # the --rig file
//! ik on                   # IK at the start (off: --no-ik)
//! flow on                 # stepped through the game's flow (falls fade and respawn, the exit ends it)
//! frames 1234             # fixed steps to play (the default of --frames)
//! end 41.5 2.4 0af3...    # where the recorded run ended and its pose checksum
//! ```
//!
//! Old scripts have no header and play as they always did.
//!
//! Limits (each refusal names the file and, past the size limits, the
//! line): a script is at most [`MAX_SCRIPT_BYTES`] long, with at most
//! [`MAX_SCRIPT_LINES`] lines; times and hold durations lie in
//! 0..=[`MAX_SCRIPT_SECONDS`]; a goal lies within [`MAX_GOAL_METRES`] of the
//! origin with a radius in 0..=[`MAX_GOAL_METRES`]; `frames` lies in
//! 1..=[`crate::tools::headless::MAX_FRAMES`]; a header value (a level or
//! file name) is at most [`MAX_HEADER_VALUE_BYTES`] long.

use std::path::Path;

use glam::Vec2;
use thiserror::Error;

use crate::sim::player::{DT, Input};

/// Longest input script read, bytes: a hand-written script is a few
/// kilobytes (the shipped ones are under 1 KiB), and a recording whose
/// gamepad stick changes on every step of the longest run (38,400 steps,
/// about 60 bytes a step for a stick and a key line) is under 2.5 MiB; a
/// larger file is not one.
pub const MAX_SCRIPT_BYTES: u64 = 4 << 20;
/// Most lines a script may have: a recording writes at most four lines a
/// step (keys, a fresh jump press, the stick, IK) over the longest run
/// ([`MAX_SCRIPT_SECONDS`] at 64 Hz, 38,400 steps): 153,600, plus a
/// header.
pub const MAX_SCRIPT_LINES: usize = 1 << 18;
/// Longest header value (a level name or a model's path), bytes: the
/// common path length limit (`PATH_MAX`).
pub const MAX_HEADER_VALUE_BYTES: usize = 4096;
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

    /// The key's name in a script.
    pub fn name(self) -> &'static str {
        match self {
            Key::Left => "left",
            Key::Right => "right",
            Key::Up => "up",
            Key::Down => "down",
            Key::Jump => "jump",
            Key::Run => "run",
        }
    }

    /// Every key, in the order a `keys` line lists them.
    pub const ALL: [Key; 6] = [
        Key::Left,
        Key::Right,
        Key::Up,
        Key::Down,
        Key::Jump,
        Key::Run,
    ];

    /// The key's bit in a set of held keys.
    pub fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// What changes at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Change {
    /// A key pressed (`true`) or released.
    Key(Key, bool),
    /// Exactly these keys (bits of [`Key::bit`]) held from now on.
    Keys(u8),
    /// The stick's deflection from now on.
    Stick(Vec2),
    /// IK switched on or off.
    Ik(bool),
    /// Pressed and released within the step.
    Flick(Key),
    /// Held from now on without a press.
    Still(Key),
}

/// A change at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Event {
    time: f32,
    change: Change,
}

/// Where a recorded run ended: what its replay must reproduce.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordedEnd {
    /// The player's feet after the last frame, metres.
    pub pos: Vec2,
    /// The pose checksum of the whole run ([`crate::sim::record::PoseChecksum`]).
    pub checksum: u64,
}

/// What a script says about the run it must be played on (its lines
/// without a time); all absent in an old script.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// The level, as `--level` takes it.
    pub level: Option<String>,
    /// The character's model (`--character`); none: the knight.
    pub character: Option<String>,
    /// The character's rig file (`--rig`).
    pub rig: Option<String>,
    /// Foot and ladder IK at the start.
    pub ik: Option<bool>,
    /// Stepped through the game's flow (falls, respawns, the exit), as the
    /// window plays, rather than the bare simulation.
    pub flow: bool,
    /// Fixed steps to play.
    pub frames: Option<u64>,
    /// Where the recorded run ended.
    pub end: Option<RecordedEnd>,
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
    /// The header: level, character, settings, frames, recorded end.
    pub header: Header,
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
            let on_off = |w: &str, what: &str| match w {
                "on" => Ok(true),
                "off" => Ok(false),
                _ => Err(err(format!("{what} '{w}' is neither on nor off"))),
            };
            if header_line(&mut script, &words, line, &err, &within, &on_off)? {
                continue;
            }
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
            if words.len() < 2 {
                return Err(err("expected 'TIME COMMAND KEY'".into()));
            }
            let time = within(words[0], "time (s)", 0.0, MAX_SCRIPT_SECONDS)?;
            if time < last_time {
                return Err(err(format!(
                    "time {time} is earlier than the line before ({last_time})"
                )));
            }
            last_time = time;
            let key_of = |w: &str| {
                Key::parse(w).ok_or_else(|| {
                    err(format!(
                        "unknown key '{w}' (expected left, right, up, down, jump or run)"
                    ))
                })
            };
            let mut push = |time: f32, change: Change| script.events.push(Event { time, change });
            match (words[1], words.len()) {
                ("keys", _) => {
                    let mut mask = 0u8;
                    for w in &words[2..] {
                        mask |= key_of(w)?.bit();
                    }
                    push(time, Change::Keys(mask));
                }
                ("stick", 4) => {
                    let v = Vec2::new(
                        within(words[2], "stick x", -1.0, 1.0)?,
                        within(words[3], "stick y", -1.0, 1.0)?,
                    );
                    push(time, Change::Stick(v));
                }
                ("ik", 3) => push(time, Change::Ik(on_off(words[2], "ik")?)),
                ("flick", 3) => push(time, Change::Flick(key_of(words[2])?)),
                ("still", 3) => push(time, Change::Still(key_of(words[2])?)),
                ("press", 3) => push(time, Change::Key(key_of(words[2])?, true)),
                ("release", 3) => push(time, Change::Key(key_of(words[2])?, false)),
                ("tap", 3) => {
                    let key = key_of(words[2])?;
                    push(time, Change::Key(key, true));
                    push(time + DT * 0.5, Change::Key(key, false));
                }
                ("hold", 4) => {
                    let key = key_of(words[2])?;
                    let secs = within(words[3], "hold duration (s)", 0.0, MAX_SCRIPT_SECONDS)?;
                    push(time, Change::Key(key, true));
                    push(time + secs, Change::Key(key, false));
                }
                (cmd, 2)
                    if ["press", "release", "tap", "hold", "flick", "still"].contains(&cmd) =>
                {
                    return Err(err("expected 'TIME COMMAND KEY'".into()));
                }
                (cmd, _) => {
                    return Err(err(format!(
                        "unknown command or wrong argument count: '{cmd}' (expected press, release, tap, flick or still KEY, hold KEY SECONDS, keys [KEY...], stick X Y or ik on|off)"
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
            stick: Vec2::ZERO,
            step: 0,
        }
    }
}

/// A number of a line within limits, or the error naming them.
type Within<'a> = &'a dyn Fn(&str, &str, f32, f32) -> Result<f32, ScriptError>;

/// Reads a header line (a line without a time) into `script`; `false` when
/// `words` is not one.
fn header_line(
    script: &mut Script,
    words: &[&str],
    line: &str,
    err: &dyn Fn(String) -> ScriptError,
    within: Within<'_>,
    on_off: &dyn Fn(&str, &str) -> Result<bool, ScriptError>,
) -> Result<bool, ScriptError> {
    let key = words[0];
    let h = &mut script.header;
    let twice = |set: bool| {
        if set {
            Err(err(format!(
                "a second '{key}' line (the header names each once)"
            )))
        } else {
            Ok(())
        }
    };
    // The rest of the line after the keyword: a name or a path.
    let value = || -> Result<String, ScriptError> {
        let v = line[key.len()..].trim();
        if v.is_empty() {
            return Err(err(format!("expected '{key} VALUE'")));
        }
        if v.len() > MAX_HEADER_VALUE_BYTES {
            return Err(err(format!(
                "the {key} is {} bytes, more than the limit of {MAX_HEADER_VALUE_BYTES}",
                v.len()
            )));
        }
        Ok(v.to_string())
    };
    let one = || -> Result<&str, ScriptError> {
        match words {
            [_, w] => Ok(w),
            _ => Err(err(format!("expected '{key} on' or '{key} off'"))),
        }
    };
    match key {
        "level" => {
            twice(h.level.is_some())?;
            h.level = Some(value()?);
        }
        "character" => {
            twice(h.character.is_some())?;
            h.character = Some(value()?);
        }
        "rig" => {
            twice(h.rig.is_some())?;
            h.rig = Some(value()?);
        }
        "ik" => {
            twice(h.ik.is_some())?;
            h.ik = Some(on_off(one()?, "ik")?);
        }
        "flow" => {
            h.flow = on_off(one()?, "flow")?;
        }
        "frames" => {
            twice(h.frames.is_some())?;
            let max = crate::tools::headless::MAX_FRAMES;
            let n = match words {
                [_, w] => w.parse::<u64>().ok().filter(|n| (1..=max).contains(n)),
                _ => None,
            };
            h.frames = Some(n.ok_or_else(|| {
                err(format!(
                    "expected 'frames N' with N a whole number from 1 to {max}"
                ))
            })?);
        }
        "end" => {
            twice(h.end.is_some())?;
            let [_, x, y, sum] = words else {
                return Err(err("expected 'end X Y CHECKSUM'".into()));
            };
            let m = MAX_GOAL_METRES;
            let pos = Vec2::new(
                within(x, "end x (m)", -m, m)?,
                within(y, "end y (m)", -m, m)?,
            );
            let checksum = u64::from_str_radix(sum, 16).map_err(|_| {
                err(format!(
                    "end checksum '{sum}' is not a hexadecimal number of 64 bits"
                ))
            })?;
            h.end = Some(RecordedEnd { pos, checksum });
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// One step of a script: the input, and IK switched on or off before it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ScriptStep {
    /// The controller's input.
    pub input: Input,
    /// IK switched on (`true`) or off at this step (an `ik` line).
    pub ik: Option<bool>,
}

/// Replays a script step by step.
pub struct ScriptPlayer<'a> {
    script: &'a Script,
    next: usize,
    held: u8,
    stick: Vec2,
    step: u64,
}

impl ScriptPlayer<'_> {
    /// The input for the next simulation step.
    pub fn next_input(&mut self) -> Input {
        self.next_step().input
    }

    /// The input for the next simulation step, and a change of IK.
    pub fn next_step(&mut self) -> ScriptStep {
        let t_end = (self.step + 1) as f32 * DT;
        let mut pressed = 0u8;
        let mut flicked = 0u8;
        let mut ik = None;
        while let Some(e) = self.script.events.get(self.next) {
            if e.time >= t_end {
                break;
            }
            match e.change {
                Change::Key(key, true) => {
                    pressed |= key.bit();
                    self.held |= key.bit();
                }
                Change::Key(key, false) => self.held &= !key.bit(),
                Change::Keys(mask) => {
                    pressed |= mask & !self.held;
                    self.held = mask;
                }
                Change::Stick(v) => self.stick = v,
                Change::Ik(on) => ik = Some(on),
                Change::Flick(key) => {
                    pressed |= key.bit();
                    flicked |= key.bit();
                    self.held &= !key.bit();
                }
                Change::Still(key) => self.held |= key.bit(),
            }
            self.next += 1;
        }
        self.step += 1;
        let held = (self.held | pressed) & !(flicked & !self.held);
        let is = |k: Key| held & k.bit() != 0;
        // The stick adds to the keys: a recording writes one or the other
        // (0 + s is s exactly), a hand-written script may mix them.
        let axis = |plus: Key, minus: Key, stick: f32| {
            (f32::from(is(plus)) - f32::from(is(minus)) + stick).clamp(-1.0, 1.0)
        };
        ScriptStep {
            input: Input {
                move_x: axis(Key::Right, Key::Left, self.stick.x),
                move_y: axis(Key::Up, Key::Down, self.stick.y),
                run: is(Key::Run),
                jump_pressed: pressed & Key::Jump.bit() != 0,
                jump_held: is(Key::Jump),
            },
            ik,
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

    /// Every shipped script (the old format: no header) still parses,
    /// with an empty header, and plays as before.
    #[test]
    fn old_scripts_still_parse_with_an_empty_header() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scripts");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            let s = Script::load(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(s.header, Header::default(), "{}", path.display());
            n += 1;
        }
        assert!(n >= 5, "{n} scripts");
    }

    #[test]
    fn header_lines_name_the_run_and_bad_ones_are_refused() {
        let s = Script::parse(
            "level maps/a b.tmx # a comment\nik off\nflow on\nframes 64\nend 1.5 -2 00ff\n0 keys right run\n0.5 stick 0.25 -1\n0.75 ik on\n",
            "h.txt",
        )
        .unwrap();
        assert_eq!(s.header.level.as_deref(), Some("maps/a b.tmx"));
        assert_eq!(
            (s.header.ik, s.header.flow, s.header.frames),
            (Some(false), true, Some(64))
        );
        assert_eq!(s.header.end.unwrap().checksum, 0xff);
        let mut p = s.player();
        let first = p.next_step();
        assert_eq!((first.input.move_x, first.input.run), (1.0, true));
        let steps: Vec<ScriptStep> = (1..64).map(|_| p.next_step()).collect();
        assert_eq!(steps[31].input.move_x, 1.0, "keys and stick add, clamped");
        assert_eq!(steps[31].input.move_y, -1.0);
        assert_eq!(steps[47].ik, Some(true));
        for (text, want) in [
            ("level a\nlevel b\n", "h.txt:2: a second 'level' line"),
            (
                "frames 0\n",
                "h.txt:1: expected 'frames N' with N a whole number from 1 to 38400",
            ),
            ("ik maybe\n", "h.txt:1: ik 'maybe' is neither on nor off"),
            (
                "end 1 2 xyz\n",
                "h.txt:1: end checksum 'xyz' is not a hexadecimal",
            ),
            (
                "0 stick 2 0\n",
                "h.txt:1: stick x 2 is outside the limits -1..=1",
            ),
            ("0 flick\n", "h.txt:1: expected 'TIME COMMAND KEY'"),
            ("level\n", "h.txt:1: expected 'level VALUE'"),
        ] {
            let e = Script::parse(text, "h.txt").unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn flick_presses_without_holding_and_still_holds_without_pressing() {
        let s = Script::parse("0 flick jump\n0.5 still jump\n1 press jump\n", "f").unwrap();
        let mut p = s.player();
        let i: Vec<Input> = (0..66).map(|_| p.next_input()).collect();
        assert!(i[0].jump_pressed && !i[0].jump_held);
        assert!(!i[1].jump_held);
        assert!(!i[32].jump_pressed && i[32].jump_held);
        assert!(i[64].jump_pressed && i[64].jump_held, "a press while held");
        assert!(!i[65].jump_pressed && i[65].jump_held);
    }
}
