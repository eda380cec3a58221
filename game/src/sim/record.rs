//! Recording what was pressed, step by step, as an input script
//! ([`crate::sim::script`]) that replays the run exactly.
//!
//! The window (`play --record FILE`, and the bug-report key's saves), the
//! headless runs (`run --record FILE`, the autopilot's too) hand
//! [`InputRecorder::push`] the input of every fixed step the run steps, and
//! [`InputRecorder::after_step`] the simulation once the step is posed; the
//! recorder keeps the inputs run-length encoded (one entry per stretch of
//! identical steps) and a checksum of every step's pose, and
//! [`InputRecorder::script`] writes them out: a header naming the level,
//! the character and the settings the run was played with, then one line
//! per change of the held keys (`keys right run`), a fresh jump press
//! while jump is held (`press jump`), a change of the gamepad stick's
//! deflection (`stick 0.53 0`) or of IK (`ik off`), at the step's exact
//! time (a multiple of 1/64 s, written exactly). `ironstep run --input
//! FILE` then plays the same steps to the same end: the same frames, final
//! position and pose checksum, which the header's `end` line states and the
//! replay checks.
//!
//! Every input a keyboard, a gamepad, a script or the autopilot gives can
//! be said: the keys' −1/0/+1 or a stick's deflection on each axis, run,
//! jump held, and jump's press edge, also where it is no change of the held
//! keys (`press jump` while held: a new press; `flick jump`: pressed and
//! released within the step; `still jump`: held without a press, a button
//! already down). The one thing made plain first ([`canonical`]) is the
//! sign of a zero deflection and a deflection that is not a number (0), and
//! the game then plays that input, so the replay sees exactly what the
//! simulation saw.
//!
//! Limits: a recording holds at most [`crate::tools::headless::MAX_FRAMES`]
//! steps (ten minutes, the longest run a script may play); past it the
//! recorder stops and says so ([`InputRecorder::full`]).

use std::fmt::Write as _;

use glam::Vec2;

use crate::character::pose_pipeline::PosePipeline;
use crate::sim::player::{DT, Input};
use crate::sim::script::{Header, Key};
use crate::sim::{Body, Sim};
use crate::tools::headless::MAX_FRAMES;

/// FNV-1a over the pose after every step (the skinning palette and the
/// world transform, bit for bit), in step order: equal checksums mean the
/// same poses on every step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoseChecksum(u64);

impl Default for PoseChecksum {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl PoseChecksum {
    /// Folds in one step's pose.
    pub fn add(&mut self, p: &PosePipeline) {
        let mut h = self.0;
        for m in p.palette().iter().chain(std::iter::once(&p.world)) {
            for v in m.to_cols_array() {
                for b in v.to_bits().to_le_bytes() {
                    h ^= u64::from(b);
                    h = h.wrapping_mul(0x0100_0000_01b3);
                }
            }
        }
        self.0 = h;
    }

    /// Folds in the player's pose in `sim`.
    pub fn add_sim(&mut self, sim: &Sim) {
        if let Ok(body) = sim.world.get::<&Body>(sim.player) {
            self.add(&body.pipeline);
        }
    }

    /// The checksum so far.
    pub fn value(self) -> u64 {
        self.0
    }
}

/// One step's input as the script format says it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct StepInput {
    /// Keys held ([`Key::bit`]), jump among them when held.
    held: u8,
    /// Jump pressed this step.
    jump_pressed: bool,
    /// The part of the movement the keys cannot say (0 where they can).
    stick: Vec2,
    /// IK on during the step.
    ik: bool,
}

/// `-0.0` as `0.0` (the sign of a zero is not worth a line).
fn unsigned_zero(v: f32) -> f32 {
    if v == 0.0 { 0.0 } else { v }
}

/// The input as the script format says it: each deflection within −1..=1,
/// a zero without a sign and anything not a number as 0 (the controller
/// reads these alike; the replay then reads the same bits).
pub fn canonical(input: Input) -> Input {
    let clean = |v: f32| {
        if v.is_finite() {
            unsigned_zero(v.clamp(-1.0, 1.0))
        } else {
            0.0
        }
    };
    Input {
        move_x: clean(input.move_x),
        move_y: clean(input.move_y),
        ..input
    }
}

impl StepInput {
    fn of(input: &Input, ik: bool) -> Self {
        let mut held = 0u8;
        let mut stick = Vec2::ZERO;
        let mut axis = |v: f32, plus: Key, minus: Key, s: &mut f32| {
            if v == 1.0 {
                held |= plus.bit();
            } else if v == -1.0 {
                held |= minus.bit();
            } else {
                *s = unsigned_zero(v);
            }
        };
        axis(input.move_x, Key::Right, Key::Left, &mut stick.x);
        axis(input.move_y, Key::Up, Key::Down, &mut stick.y);
        if input.run {
            held |= Key::Run.bit();
        }
        if input.jump_held {
            held |= Key::Jump.bit();
        }
        Self {
            held,
            jump_pressed: input.jump_pressed,
            stick,
            ik,
        }
    }
}

/// The inputs of one run, from its first step, with its pose checksum.
#[derive(Clone, Debug)]
pub struct InputRecorder {
    /// What the run is played on (level, character, settings, flow).
    pub header: Header,
    /// Stretches of identical steps: the step's input and how many.
    runs: Vec<(StepInput, u32)>,
    frames: u64,
    checksum: PoseChecksum,
    /// IK now (set by the caller when the setting changes).
    ik: bool,
    /// The player's feet after the last step.
    end: Vec2,
    /// The last step pushed was recorded (the recording was not full).
    last_recorded: bool,
    /// The level was edited or reloaded during the run: the replay (on the
    /// file as it is now) may differ.
    pub edited: bool,
}

impl InputRecorder {
    /// A recorder for a run on what `header` names (its `ik` the setting at
    /// the start; `frames` and `end` are filled in when written).
    pub fn new(header: Header) -> Self {
        let ik = header.ik.unwrap_or(true);
        Self {
            header,
            runs: Vec::new(),
            frames: 0,
            checksum: PoseChecksum::default(),
            ik,
            end: Vec2::ZERO,
            last_recorded: false,
            edited: false,
        }
    }

    /// Steps recorded.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Whether the recording holds the most steps it may
    /// ([`MAX_FRAMES`]): later steps are not recorded.
    pub fn full(&self) -> bool {
        self.frames >= MAX_FRAMES
    }

    /// The pose checksum so far.
    pub fn checksum(&self) -> u64 {
        self.checksum.value()
    }

    /// Where the player's feet were after the last step.
    pub fn end(&self) -> Vec2 {
        self.end
    }

    /// IK switched on or off from the next step on.
    pub fn set_ik(&mut self, on: bool) {
        self.ik = on;
    }

    /// Records one step's `input` (made [`canonical`] first) and returns
    /// what the game must step with. Past [`MAX_FRAMES`] the input is
    /// returned and not recorded.
    pub fn push(&mut self, input: Input) -> Input {
        let input = canonical(input);
        self.last_recorded = !self.full();
        if !self.last_recorded {
            return input;
        }
        self.frames += 1;
        let step = StepInput::of(&input, self.ik);
        match self.runs.last_mut() {
            Some((last, n)) if *last == step && !step.jump_pressed => *n += 1,
            _ => self.runs.push((step, 1)),
        }
        input
    }

    /// Folds the step's pose into the checksum and notes where the player
    /// is (call once after each [`InputRecorder::push`], after the pose).
    pub fn after_step(&mut self, sim: &Sim) {
        if !self.last_recorded {
            return;
        }
        self.checksum.add_sim(sim);
        self.end = sim.player_state().pos;
    }

    /// The recording as an input script: the header (with the frames and
    /// the end), then one line per change. `note` lines are written as
    /// comments at the top.
    pub fn script(&self, note: &[String]) -> String {
        let mut out = String::new();
        out.push_str("# ironstep input recording: replay with `ironstep run --input THIS_FILE`\n");
        for n in note {
            let _ = writeln!(out, "# {n}");
        }
        if self.edited {
            out.push_str(
                "# the level was edited or reloaded during this run: a replay may differ\n",
            );
        }
        let h = &self.header;
        if let Some(l) = &h.level {
            let _ = writeln!(out, "level {l}");
        }
        if let Some(c) = &h.character {
            let _ = writeln!(out, "character {c}");
        }
        if let Some(r) = &h.rig {
            let _ = writeln!(out, "rig {r}");
        }
        let on_off = |b: bool| if b { "on" } else { "off" };
        let _ = writeln!(out, "ik {}", on_off(h.ik.unwrap_or(true)));
        let _ = writeln!(out, "flow {}", on_off(h.flow));
        if self.frames > 0 {
            let _ = writeln!(out, "frames {}", self.frames);
            let _ = writeln!(
                out,
                "end {} {} {:016x}",
                self.end.x,
                self.end.y,
                self.checksum.value()
            );
        }
        let mut prev = StepInput {
            held: 0,
            jump_pressed: false,
            stick: Vec2::ZERO,
            ik: h.ik.unwrap_or(true),
        };
        let mut step = 0u64;
        let jump = Key::Jump.bit();
        for &(s, n) in &self.runs {
            // Steps with a press are never merged: every change, the press
            // included, is on a stretch's first step.
            let t = step as f32 * DT;
            // Jump newly held without a press: the `keys` line leaves it
            // out (it would press it) and a `still` line holds it.
            let still = s.held & jump != 0 && prev.held & jump == 0 && !s.jump_pressed;
            let mask = if still { s.held & !jump } else { s.held };
            if mask != prev.held {
                let _ = write!(out, "{t} keys");
                for key in Key::ALL {
                    if mask & key.bit() != 0 {
                        let _ = write!(out, " {}", key.name());
                    }
                }
                out.push('\n');
            }
            if still {
                let _ = writeln!(out, "{t} still jump");
            }
            if s.jump_pressed && s.held & jump == 0 {
                // Pressed and released within the step.
                let _ = writeln!(out, "{t} flick jump");
            } else if s.jump_pressed && prev.held & jump != 0 {
                // Pressed again while held (the `keys` line pressed it
                // otherwise).
                let _ = writeln!(out, "{t} press jump");
            }
            if s.stick != prev.stick {
                let _ = writeln!(out, "{t} stick {} {}", s.stick.x, s.stick.y);
            }
            if s.ik != prev.ik {
                let _ = writeln!(out, "{t} ik {}", on_off(s.ik));
            }
            step += u64::from(n);
            prev = s;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::script::Script;

    fn input(move_x: f32, move_y: f32, run: bool, pressed: bool, held: bool) -> Input {
        Input {
            move_x,
            move_y,
            run,
            jump_pressed: pressed,
            jump_held: held,
        }
    }

    /// Every step's input comes back from the written script exactly,
    /// IK switches included: keys, a stick, re-pressed jumps, a press and
    /// release within one step, a jump held through a gap.
    #[test]
    fn a_recording_replays_every_input_exactly() {
        let mut steps = Vec::new();
        let mut iks = Vec::new();
        for i in 0..400u32 {
            let x = match i / 40 {
                0 => 0.0,
                1 => 1.0,
                2 => -1.0,
                3 => 0.53,
                4 => -0.0,
                5 => (i as f32 * 0.37).sin(),
                _ => 1.0,
            };
            let y = if (100..140).contains(&i) { -1.0 } else { 0.0 };
            let pressed = i % 37 == 0 || (200..206).contains(&i);
            let held = pressed || (i % 37 < 9) || (300..310).contains(&i);
            steps.push(input(x, y, i % 90 > 45, pressed, held));
            iks.push(!(150..250).contains(&i));
        }
        // A press released within its step, jump held without a press, a
        // press released within the step while held before.
        steps[10] = input(0.0, 0.0, false, true, false);
        steps[11] = input(0.0, 0.0, false, false, true);
        steps[12] = input(0.0, 0.0, false, true, false);
        steps[13] = input(-0.0, f32::NAN, false, false, false);
        let mut rec = InputRecorder::new(Header {
            level: Some("tutorial".into()),
            ik: Some(true),
            ..Header::default()
        });
        let mut played = Vec::new();
        for (s, ik) in steps.iter().zip(&iks) {
            rec.set_ik(*ik);
            played.push((rec.push(*s), *ik));
        }
        assert_eq!(rec.frames(), 400);
        // The inputs the game steps with are the ones given, but for the
        // sign of a zero and a deflection that is not a number.
        assert_eq!(played[10].0, steps[10]);
        assert_eq!(played[11].0, steps[11]);
        assert_eq!(played[13].0, Input::default());
        assert_eq!(played[13].0.move_x.to_bits(), 0);
        let text = rec.script(&["a test".into()]);
        let script = Script::parse(&text, "rec.txt").unwrap();
        assert_eq!(script.header.level.as_deref(), Some("tutorial"));
        assert_eq!(script.header.frames, Some(400));
        let mut player = script.player();
        let mut ik = script.header.ik.unwrap();
        for (i, (want, want_ik)) in played.iter().enumerate() {
            let step = player.next_step();
            if let Some(on) = step.ik {
                ik = on;
            }
            assert_eq!(step.input, *want, "step {i}:\n{text}");
            assert_eq!(
                step.input.move_x.to_bits(),
                want.move_x.to_bits(),
                "step {i}"
            );
            assert_eq!(ik, *want_ik, "step {i}");
        }
        // Compact: a line per change, not per step.
        assert!(text.lines().count() < 200, "{}", text.lines().count());
    }

    #[test]
    fn the_header_names_the_run_and_its_end() {
        let mut rec = InputRecorder::new(Header {
            level: Some("maps/my level.tmx".into()),
            character: Some("m.glb".into()),
            rig: Some("m.ron".into()),
            ik: Some(false),
            flow: true,
            ..Header::default()
        });
        rec.push(input(1.0, 0.0, false, false, false));
        rec.end = Vec2::new(1.25, -0.5);
        let text = rec.script(&[]);
        let s = Script::parse(&text, "r").unwrap();
        assert_eq!(s.header.level.as_deref(), Some("maps/my level.tmx"));
        assert_eq!(s.header.character.as_deref(), Some("m.glb"));
        assert_eq!(s.header.rig.as_deref(), Some("m.ron"));
        assert_eq!(s.header.ik, Some(false));
        assert!(s.header.flow);
        assert_eq!(s.header.frames, Some(1));
        let end = s.header.end.unwrap();
        assert_eq!(end.pos, Vec2::new(1.25, -0.5));
        assert_eq!(end.checksum, PoseChecksum::default().value());
    }

    #[test]
    fn the_recording_stops_at_the_longest_run() {
        let mut rec = InputRecorder::new(Header::default());
        for _ in 0..MAX_FRAMES + 5 {
            rec.push(Input::default());
        }
        assert!(rec.full());
        assert_eq!(rec.frames(), MAX_FRAMES);
    }
}
