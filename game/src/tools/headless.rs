//! `ironstep run`: the real simulation and pose pipeline, driven by a script
//! of timed presses, with motion metrics written as JSON.
//!
//! ```text
//! ironstep run --input assets/scripts/slopes_walk.txt --frames 1700 --metrics out.json
//! ironstep run --input assets/scripts/ladders.txt --frames 2400 --screenshot-every 64 --out shots/
//! ironstep run --autopilot --level tutorial --metrics out.json
//! ```
//!
//! With `--autopilot` instead of `--input`, the [`crate::tools::autopilot`]
//! plays the level from spawn to exit (`--frames` is then a cap, by default
//! [`crate::tools::autopilot::DEFAULT_FRAMES`]); the run stops at the exit,
//! the summary gains `exit_reached`, `autopilot_frames_to_exit` and, when it
//! could not finish, `autopilot_failure` (where and why), and the command
//! fails when the exit was not reached.
//!
//! With `--campaign --autopilot`, the whole level sequence is played in
//! order ([`crate::tools::campaign`]).
//!
//! With `--sound-log F.json`, every sound the window would play (which
//! sound, at which frame, how loud, on what surface) is written too
//! ([`crate::tools::sound_log`]): the game's sound, checked without a device.
//!
//! One frame is one fixed simulation step (64 per second), so a run is
//! deterministic: the same script gives the same metrics on every machine.
//!
//! With `--record FILE`, what each frame was given (the script's or the
//! autopilot's input) is written as an input script
//! ([`crate::sim::record`]) whose header names the level, the character
//! and IK; `run --input FILE` replays it to the same end (frames, final
//! position, pose checksum), and says whether it did when the file states
//! its end (an `end` line). A script recorded in the window (`flow on`) is
//! replayed through the game's flow as the window plays (falls fade and
//! respawn at the last checkpoint, the exit ends the run), posed as the
//! window poses ([`crate::window::frame_sim::FrameSim::step`]).
//!
//! ```text
//! ironstep run --autopilot --level tower --record tower-run.txt
//! ironstep run --input tower-run.txt
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::Serialize;

use renderer::{Frame, OffscreenTarget, Renderer};

use crate::character::Character;
use crate::character::events::{EventTracker, FrameEvents};
use crate::dust::DustPool;
use crate::flow::{Game, Progress, Sequence, Settings};
use crate::scene::{
    CameraRig, SceneHandles, draw_character, draw_contact_shadows, draw_platforms, lighting,
    upload_scene,
};
use crate::sim::player::DT;
use crate::sim::record::InputRecorder;
use crate::sim::script::{Header, Script, ScriptStep};
use crate::sim::world::Level;
use crate::sim::{Body, Sim};
use crate::tools::autopilot::{self, Autopilot};
use crate::tools::metrics::{FrameRecord, Recorder, Summary};
use crate::tools::sound_log::SoundLog;
use crate::window::frame_sim::FrameSim;

/// The most frames one run may take: ten minutes of game time, which no
/// script needs and which keeps the per-frame record in memory bounded
/// (about 200 bytes a frame).
pub const MAX_FRAMES: u64 = 64 * 600;

/// Arguments of `ironstep run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The level: `builtin` (the default, or the level a recording's
    /// header names), a shipped level (`tutorial`, `long`, `tower`), or a
    /// Tiled map (.tmx, .tmj or .json).
    #[arg(long)]
    pub level: Option<String>,
    /// The input script (see `assets/scripts/`), or a recording (its
    /// header gives the level, character, IK and frames); or give
    /// `--autopilot`.
    #[arg(long, conflicts_with = "autopilot")]
    pub input: Option<PathBuf>,
    /// Write what each frame was given (the script's or the autopilot's
    /// input) to FILE as an input script that replays this run exactly
    /// with `run --input FILE`.
    #[arg(long, value_name = "FILE", conflicts_with = "campaign")]
    pub record: Option<PathBuf>,
    /// Play the level from spawn to exit with the autopilot instead of a
    /// script.
    #[arg(long)]
    pub autopilot: bool,
    /// With `--autopilot`: play the whole level sequence
    /// (`assets/levels/sequence.ron`) in order through the game's flow
    /// (falls, checkpoints, exits) and report levels completed, falls and
    /// time per level; `--frames` caps each level.
    #[arg(long, requires = "autopilot", conflicts_with_all = ["level", "input", "screenshot_every", "strip", "out"])]
    pub campaign: bool,
    /// Frames to run (one per 64 Hz simulation step; a recording's header
    /// gives its own); with `--autopilot` the most frames it may take.
    #[arg(long)]
    pub frames: Option<u64>,
    /// Write the motion metrics (per frame and a summary) to this JSON file.
    #[arg(long)]
    pub metrics: Option<PathBuf>,
    /// Run without IK (to compare with the raw animation).
    #[arg(long)]
    pub no_ik: bool,
    /// Start the walk and run cycle at phase P, in [0, 1) (default 0):
    /// every step then falls P of a stride further on along the level, so
    /// a run at several phases tries foot placement against steps landing
    /// anywhere on the ground, not only where phase 0 puts them (see
    /// `tests/sweep --phases`). Not with `--record`: a recording replays
    /// from phase 0.
    #[arg(long, value_name = "P", value_parser = parse_phase, conflicts_with_all = ["record", "campaign"])]
    pub gait_phase: Option<f32>,
    /// Write every sound the run would play to this JSON file: one entry
    /// per sound with its frame, sound, volume, surface, foot or hand and
    /// position.
    #[arg(long, value_name = "F.json")]
    pub sound_log: Option<PathBuf>,
    /// Render and save a PNG every K frames (needs `--out`).
    #[arg(long, value_name = "K", conflicts_with = "strip")]
    pub screenshot_every: Option<u64>,
    /// Render frames FROM to TO (counted from 1, both included, at most
    /// 64) side by side into one picture, a contact sheet (needs `--out
    /// FILE.png`): a transition at a glance.
    #[arg(long, value_name = "FROM..TO", value_parser = parse_range)]
    pub strip: Option<(u64, u64)>,
    /// Directory for screenshots (created if missing), or the contact
    /// sheet's PNG file with `--strip`.
    #[arg(long, value_name = "DIR|FILE")]
    pub out: Option<PathBuf>,
    /// Screenshot size, WIDTHxHEIGHT.
    #[arg(long, default_value = "960x540", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Draw the debug overlay (skeleton, IK targets, probes, rungs) in screenshots.
    #[arg(long)]
    pub debug: bool,
    /// Another character than the knight (`--character MODEL --rig RIG.ron`).
    #[command(flatten)]
    pub model: crate::character::model::CharacterArgs,
}

/// The largest screenshot side, pixels: wgpu's guaranteed texture limit.
pub const MAX_SIDE: u32 = 8192;

/// Parses `WIDTHxHEIGHT`.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not WIDTHxHEIGHT"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_SIDE).contains(n))
            .ok_or_else(|| format!("'{v}' in '{s}' must be a whole number from 1 to {MAX_SIDE}"))
    };
    Ok((parse(w)?, parse(h)?))
}

/// The most frames one contact sheet holds: eight rows of eight, a picture
/// still small enough to open (64 frames at 320×360 is 2560×2880 pixels).
pub const MAX_STRIP_FRAMES: u64 = 64;
/// Frames per row of a contact sheet.
pub const STRIP_COLUMNS: u64 = 8;

/// Parses a gait phase: a number in [0, 1).
pub fn parse_phase(s: &str) -> Result<f32, String> {
    let p: f32 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number (give a phase in [0, 1), e.g. 0.25)"))?;
    if (0.0..1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{s}: a gait phase lies in [0, 1)"))
    }
}

/// Parses `FROM..TO` (frames counted from 1, `TO` included).
pub fn parse_range(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("'{s}': give frames as FROM..TO, e.g. 1060..1075"))?;
    let num = |v: &str| {
        v.trim()
            .parse::<u64>()
            .map_err(|_| format!("'{v}' in '{s}' is not a frame number"))
    };
    let (a, b) = (num(a)?, num(b)?);
    if a == 0 || b < a {
        return Err(format!(
            "'{s}': FROM must be 1 or more and TO at least FROM"
        ));
    }
    if b - a + 1 > MAX_STRIP_FRAMES {
        return Err(format!(
            "'{s}' is {} frames; a strip holds at most {MAX_STRIP_FRAMES}",
            b - a + 1
        ));
    }
    Ok((a, b))
}

/// The summary line's words on the script's goal: whether it was reached,
/// and when not, what it was and where the run ended instead.
fn goal_words(goal: Option<crate::sim::script::Goal>, s: &Summary) -> String {
    match (goal, s.goal_reached) {
        (Some(g), Some(false)) => {
            let end = glam::Vec2::from(s.final_pos);
            format!(
                "NOT reached (the script's goal: end within {:.2} m of ({:.2}, {:.2}); ended at ({:.2}, {:.2}), {:.2} m from it)",
                g.radius,
                g.pos.x,
                g.pos.y,
                end.x,
                end.y,
                end.distance(g.pos)
            )
        }
        (_, Some(true)) => "reached".into(),
        (_, Some(false)) => "NOT reached".into(),
        (_, None) => "none".into(),
    }
}

/// The JSON document `--metrics` writes.
#[derive(Serialize)]
struct MetricsFile<'a> {
    level: &'a str,
    script: String,
    ik: bool,
    summary: &'a Summary,
    frames: &'a [FrameRecord],
}

/// Loads the level a `--level` argument names.
///
/// `builtin`, a shipped level's name or a path to a Tiled map: the one
/// resolver of [`crate::level::shipped::LevelSource`], shared by every
/// subcommand.
pub fn load_level(name: &str) -> Result<Level> {
    Ok(crate::level::shipped::LevelSource::resolve(name)?.load()?)
}

/// Renders frames of a run to PNG files.
pub struct Shooter {
    renderer: Renderer,
    target: OffscreenTarget,
    frame: Frame,
    handles: SceneHandles,
    camera: CameraRig,
    every: u64,
    dir: PathBuf,
    /// Paths written so far.
    pub written: Vec<PathBuf>,
    /// A contact sheet being filled: frames (from 1) and the sheet's pixels.
    strip: Option<Strip>,
    /// Dust raised by the player, advanced every step.
    dust: DustPool,
}

/// A contact sheet: consecutive frames in a grid of [`STRIP_COLUMNS`].
struct Strip {
    from: u64,
    to: u64,
    file: PathBuf,
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

impl Strip {
    fn new(from: u64, to: u64, file: PathBuf, cell: (u32, u32)) -> Self {
        let n = to - from + 1;
        let cols = n.min(STRIP_COLUMNS) as u32;
        let rows = n.div_ceil(STRIP_COLUMNS) as u32;
        let (width, height) = (cols * cell.0, rows * cell.1);
        Self {
            from,
            to,
            file,
            width,
            height,
            // Frames never rendered (a run that ended early) stay black.
            rgba: vec![0; width as usize * height as usize * 4],
        }
    }

    /// Copies frame `k` (counted from 1) into its cell.
    fn put(&mut self, k: u64, cell: (u32, u32), pixels: &[u8]) {
        let i = k - self.from;
        let (cx, cy) = (
            (i % STRIP_COLUMNS) as u32 * cell.0,
            (i / STRIP_COLUMNS) as u32 * cell.1,
        );
        let row = cell.0 as usize * 4;
        for y in 0..cell.1 as usize {
            let dst = ((cy as usize + y) * self.width as usize + cx as usize) * 4;
            self.rgba[dst..dst + row].copy_from_slice(&pixels[y * row..(y + 1) * row]);
        }
    }
}

impl Shooter {
    /// Sets up a headless renderer for `sim`'s level and character.
    pub fn new(sim: &Sim, every: u64, dir: &Path, size: (u32, u32), debug: bool) -> Result<Self> {
        std::fs::create_dir_all(dir).with_context(|| {
            format!("{}: cannot create the screenshot directory", dir.display())
        })?;
        let mut renderer = Renderer::headless().context("starting the headless renderer")?;
        let body = sim
            .world
            .get::<&Body>(sim.player)
            .expect("the player has a body");
        let handles = upload_scene(&mut renderer, &sim.level, &body.character)
            .context("uploading the scene")?;
        let target = OffscreenTarget::new(&renderer, size.0, size.1);
        let mut frame = Frame::new();
        frame.show_debug = debug;
        Ok(Self {
            renderer,
            target,
            frame,
            handles,
            camera: CameraRig::default(),
            every: every.max(1),
            dir: dir.to_path_buf(),
            written: Vec::new(),
            strip: None,
            dust: DustPool::new(),
        })
    }

    /// A shooter that fills a contact sheet of frames `from..=to` (counted
    /// from 1) and writes it to `file` when [`Shooter::finish`] is called.
    pub fn strip(
        sim: &Sim,
        (from, to): (u64, u64),
        file: &Path,
        size: (u32, u32),
        debug: bool,
    ) -> Result<Self> {
        let dir = file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut s = Self::new(sim, 1, dir, size, debug)?;
        s.strip = Some(Strip::new(from, to, file.to_path_buf(), size));
        Ok(s)
    }

    /// Writes the contact sheet, if this shooter fills one.
    pub fn finish(&mut self) -> Result<()> {
        if let Some(s) = self.strip.take() {
            renderer::write_png_rgba(&s.file, s.width, s.height, &s.rgba)
                .with_context(|| format!("{}: cannot save the strip", s.file.display()))?;
            self.written.push(s.file);
        }
        Ok(())
    }

    /// Follows the player, raises the dust of this frame's contact
    /// `events` and, on every K-th frame, renders and saves it.
    pub fn after_frame(&mut self, sim: &Sim, frame_index: u64, events: &FrameEvents) -> Result<()> {
        let player = sim.player_state();
        self.dust.emit_events(events);
        self.dust.update(DT);
        let camera = self.camera.update(&player, DT);
        let number = frame_index + 1;
        let wanted = match &self.strip {
            Some(s) => (s.from..=s.to).contains(&number),
            None => number.is_multiple_of(self.every),
        };
        if !wanted {
            return Ok(());
        }
        self.frame.clear();
        self.frame.draw_world(self.handles.world);
        draw_platforms(&mut self.frame, self.handles.platform, &sim.level, 1.0);
        let body = sim
            .world
            .get::<&Body>(sim.player)
            .expect("the player has a body");
        draw_character(
            &mut self.frame,
            self.handles.character,
            &body.character,
            &body.pipeline,
            body.pipeline.world,
        );
        draw_contact_shadows(
            &mut self.frame,
            &body.character,
            &body.pipeline,
            body.pipeline.world,
            &sim.level,
        );
        self.dust.draw(&mut self.frame);
        let center = glam::Vec3::new(player.pos.x, player.pos.y, 0.0);
        self.renderer
            .render(
                &mut self.frame,
                &camera,
                &lighting(center),
                self.target.view(),
                self.target.size(),
            )
            .context("rendering a frame")?;
        if let Some(s) = self.strip.as_mut() {
            let pixels = self
                .target
                .read_rgba(&mut self.renderer)
                .context("reading a strip frame back")?;
            s.put(number, self.target.size(), &pixels);
            return Ok(());
        }
        let path = self.dir.join(format!("frame_{:05}.png", frame_index + 1));
        self.target
            .save_png(&mut self.renderer, &path)
            .with_context(|| format!("{}: cannot save the screenshot", path.display()))?;
        self.written.push(path);
        Ok(())
    }
}

/// Runs a script and returns the recorder; with a [`Shooter`], saves
/// screenshots; with an [`InputRecorder`], records every frame's input. A
/// script recorded in the window (`flow on`) steps through the game's flow
/// as the window does.
#[allow(clippy::too_many_arguments)]
pub fn run_script(
    level: Level,
    character: Arc<Character>,
    script: &Script,
    frames: u64,
    ik: bool,
    shots: Option<ShotOptions<'_>>,
    sounds: Option<&mut SoundLog>,
    record: Option<&mut InputRecorder>,
    gait_phase: f32,
) -> Result<Recorder> {
    let mut input = script.player();
    let flow = script.header.flow.then(|| FlowReplay::new(&level));
    let mut rec = run_frames(
        level,
        character,
        frames,
        ik,
        Stepping {
            shots,
            sounds,
            record,
            flow,
            gait_phase,
        },
        |_| Some(input.next_step()),
    )?;
    if let Some(goal) = script.goal {
        let end = glam::Vec2::from_array(rec.summary.final_pos);
        rec.summary.goal_reached = Some(end.distance(goal.pos) <= goal.radius);
    }
    Ok(rec)
}

/// Plays the level with the autopilot for at most `frames` frames (it
/// stops at the exit or when it gives up) and returns the recorder, whose
/// summary holds the autopilot's outcome; with an [`InputRecorder`],
/// records every frame's input.
#[allow(clippy::too_many_arguments)]
pub fn run_autopilot(
    level: Level,
    character: Arc<Character>,
    frames: u64,
    ik: bool,
    shots: Option<ShotOptions<'_>>,
    sounds: Option<&mut SoundLog>,
    record: Option<&mut InputRecorder>,
    gait_phase: f32,
) -> Result<Recorder> {
    let mut pilot = Autopilot::new(&level, crate::sim::player::MoveParams::default())
        .with_context(|| format!("{}: cannot build the reachability graph", level.name))?;
    let mut reached_at = None;
    let stepping = Stepping {
        shots,
        sounds,
        record,
        flow: None,
        gait_phase,
    };
    let mut rec = run_frames(level, character, frames, ik, stepping, |sim| {
        let player = sim.player_state();
        if pilot.at_exit(&player) {
            reached_at = Some(sim.steps);
            return None;
        }
        if pilot.failed() {
            return None;
        }
        Some(ScriptStep {
            input: pilot.input(&sim.level, &player, sim.steps),
            ik: None,
        })
    })?;
    let s = &mut rec.summary;
    s.exit_reached = Some(reached_at.is_some());
    s.autopilot_frames_to_exit = reached_at;
    s.autopilot_failure = match (&pilot.outcome.failure, reached_at) {
        (Some(why), _) => Some(why.clone()),
        (None, None) => {
            let p = glam::Vec2::from_array(s.final_pos);
            Some(format!(
                "out of frames after {} at ({:.2}, {:.2}) m",
                s.frames, p.x, p.y
            ))
        }
        (None, Some(_)) => None,
    };
    Ok(rec)
}

/// The game's flow around a replayed window recording: the run (falls,
/// respawns, checkpoints, the exit) and the window's way of posing.
pub struct FlowReplay {
    game: Game,
    frame_sim: Option<FrameSim>,
    prof: crate::profile::FrameProfiler,
}

impl FlowReplay {
    /// The flow of a run on `level` alone, in play.
    pub fn new(level: &Level) -> Self {
        let sequence = Sequence::shipped().expect("the embedded level sequence loads");
        let game = Game::playing(
            sequence,
            Progress::default(),
            Settings::default(),
            &level.name,
        );
        Self {
            game,
            frame_sim: None,
            prof: crate::profile::FrameProfiler::new(),
        }
    }
}

/// What a run does besides stepping: screenshots, the sound log, the
/// recording, and the flow (a window recording's replay).
pub struct Stepping<'a, 'b> {
    /// Screenshots or a contact sheet.
    pub shots: Option<ShotOptions<'a>>,
    /// The sound log.
    pub sounds: Option<&'b mut SoundLog>,
    /// The input recording.
    pub record: Option<&'b mut InputRecorder>,
    /// Where in its cycle the gait starts (see `RunArgs::gait_phase`).
    pub gait_phase: f32,
    /// Step through the game's flow as the window does.
    pub flow: Option<FlowReplay>,
}

/// Runs the simulation, asking `next` for each frame's input (`None`
/// ends the run early), and records the motion metrics. Every input is
/// made [`crate::sim::record::canonical`] (as a recording writes it), so a
/// run plays alike recorded or not.
fn run_frames(
    level: Level,
    character: Arc<Character>,
    frames: u64,
    ik: bool,
    stepping: Stepping<'_, '_>,
    mut next: impl FnMut(&Sim) -> Option<ScriptStep>,
) -> Result<Recorder> {
    let Stepping {
        shots,
        mut sounds,
        mut record,
        mut flow,
        gait_phase,
    } = stepping;
    let mut sim = Sim::new(level, character);
    sim.ik_enabled = ik;
    sim.start_gait_at(gait_phase);
    if let Some(f) = flow.as_mut() {
        // The window poses the player once as the level loads.
        f.frame_sim = Some(FrameSim::new(&mut sim));
    }
    let mut shooter = match shots {
        Some(o) => Some(match o.strip {
            Some(range) => Shooter::strip(&sim, range, o.dir, o.size, o.debug)?,
            None => Shooter::new(&sim, o.every, o.dir, o.size, o.debug)?,
        }),
        None => None,
    };
    let mut rec = Recorder::default();
    let mut events = EventTracker::new();
    for i in 0..frames {
        let Some(step) = next(&sim) else {
            break;
        };
        if let Some(on) = step.ik {
            sim.ik_enabled = on;
            if let Some(r) = record.as_deref_mut() {
                r.set_ik(on);
            }
        }
        let input = match record.as_deref_mut() {
            Some(r) => r.push(step.input),
            None => crate::sim::record::canonical(step.input),
        };
        match flow.as_mut() {
            Some(FlowReplay {
                game,
                frame_sim: Some(fs),
                prof,
            }) => {
                game.begin_frame();
                fs.step(game, &mut sim, &input, prof);
            }
            _ => {
                sim.step(&input);
                sim.pose(DT);
            }
        }
        if let Some(r) = record.as_deref_mut() {
            r.after_step(&sim);
        }
        // The contact events drive the sound log and the screenshots' dust.
        let frame_events = events.observe_sim(&sim);
        if let Some(log) = sounds.as_deref_mut() {
            log.record(i, frame_events);
        }
        let player = sim.player_state();
        {
            let body = sim
                .world
                .get::<&Body>(sim.player)
                .expect("the player has a body");
            rec.record(&sim.level, &player, &body.character, &body.pipeline, DT);
        }
        if let Some(s) = shooter.as_mut() {
            s.after_frame(&sim, i, frame_events)?;
        }
    }
    if let Some(s) = shooter.as_mut() {
        s.finish()?;
    }
    Ok(rec)
}

/// Screenshot settings of a run.
#[derive(Clone, Copy, Debug)]
pub struct ShotOptions<'a> {
    /// Every K-th frame is saved.
    pub every: u64,
    /// Into this directory (or, with `strip`, this PNG file).
    pub dir: &'a Path,
    /// Frames (from 1, both included) of a contact sheet instead of files.
    pub strip: Option<(u64, u64)>,
    /// At this size.
    pub size: (u32, u32),
    /// With the debug overlay.
    pub debug: bool,
}

/// What a run is played on: the command line's flags, filled in from a
/// recording's header; a flag that contradicts the header is refused.
struct Resolved {
    level: String,
    model: crate::character::model::CharacterArgs,
    ik: bool,
    frames: Option<u64>,
}

fn resolve(args: &RunArgs, script: Option<&Script>) -> Result<Resolved> {
    let header = script.map(|s| s.header.clone()).unwrap_or_default();
    let file = args
        .input
        .as_deref()
        .map_or(String::new(), |p| p.display().to_string());
    let clash = |what: &str, recorded: &str, given: &str, flag: &str| {
        anyhow::anyhow!(
            "{file}: recorded with {what} {recorded}, but {flag} says {given}: leave {flag} out to replay the recording as it was played"
        )
    };
    let level = match (&args.level, &header.level) {
        (Some(given), Some(recorded)) if given != recorded => {
            return Err(clash("the level", recorded, given, "--level"));
        }
        (Some(given), _) => given.clone(),
        (None, Some(recorded)) => recorded.clone(),
        (None, None) => "builtin".to_string(),
    };
    let mut model = args.model.clone();
    let path_of = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    for (what, flag, given, recorded) in [
        (
            "the character",
            "--character",
            path_of(&args.model.character),
            &header.character,
        ),
        ("the rig", "--rig", path_of(&args.model.rig), &header.rig),
    ] {
        if let (Some(g), Some(r)) = (&given, recorded)
            && g != r
        {
            return Err(clash(what, r, g, flag));
        }
    }
    if model.character.is_none() && header.character.is_some() {
        model.character = header.character.as_ref().map(PathBuf::from);
        model.rig = header.rig.as_ref().map(PathBuf::from);
    }
    if args.no_ik && header.ik == Some(true) {
        return Err(clash("IK", "on", "off", "--no-ik"));
    }
    Ok(Resolved {
        level,
        model,
        ik: header.ik.unwrap_or(!args.no_ik),
        frames: args.frames.or(header.frames),
    })
}

/// The header of a recording of a run on what `r` names.
fn record_header(r: &Resolved, flow: bool) -> Header {
    Header {
        level: Some(r.level.clone()),
        character: r.model.character.as_ref().map(|p| p.display().to_string()),
        rig: r.model.rig.as_ref().map(|p| p.display().to_string()),
        ik: Some(r.ik),
        flow,
        frames: None,
        end: None,
    }
}

/// Runs `ironstep run`.
pub fn run(args: &RunArgs) -> Result<()> {
    let script = args.input.as_deref().map(Script::load).transpose()?;
    let resolved = resolve(args, script.as_ref())?;
    let frames = match (&args.input, args.autopilot, resolved.frames) {
        (None, false, _) => bail!(
            "give --input SCRIPT (a script of timed presses, see assets/scripts/) or --autopilot (play the level from spawn to exit)"
        ),
        (Some(_), _, None) => bail!(
            "--input needs --frames N (one frame per 64 Hz step; a recording's header gives its own)"
        ),
        (_, _, Some(n)) => n,
        (None, true, None) => autopilot::DEFAULT_FRAMES,
    };
    if frames == 0 || frames > MAX_FRAMES {
        bail!("--frames {frames} must be between 1 and {MAX_FRAMES}");
    }
    if args.campaign {
        let character = Arc::new(args.model.load()?);
        return crate::tools::campaign::run(
            character,
            args.frames,
            !args.no_ik,
            args.metrics.as_deref(),
        );
    }
    let level = load_level(&resolved.level)?;
    let character = Arc::new(resolved.model.load()?);
    let ik = resolved.ik;
    let shots = match (args.screenshot_every, args.strip, &args.out) {
        (Some(every), None, Some(dir)) => Some(ShotOptions {
            every,
            dir,
            strip: None,
            size: args.size,
            debug: args.debug,
        }),
        (None, Some(range), Some(file)) => {
            if file
                .extension()
                .is_none_or(|e| !e.eq_ignore_ascii_case("png"))
            {
                bail!(
                    "{}: --strip writes one PNG picture; give --out FILE.png",
                    file.display()
                );
            }
            if range.1 > frames {
                bail!(
                    "--strip {}..{} ends after the run's {frames} frames",
                    range.0,
                    range.1
                );
            }
            Some(ShotOptions {
                every: 1,
                dir: file,
                strip: Some(range),
                size: args.size,
                debug: args.debug,
            })
        }
        (Some(_), _, None) => bail!("--screenshot-every needs --out DIR"),
        (None, Some(_), None) => bail!("--strip needs --out FILE.png"),
        (None, None, Some(_)) => bail!("--out needs --screenshot-every K or --strip FROM..TO"),
        (None, None, None) => None,
        (Some(_), Some(_), _) => bail!("give --screenshot-every or --strip, not both"),
    };
    let flow = script.as_ref().is_some_and(|s| s.header.flow);
    let mut recorder = args
        .record
        .as_ref()
        .map(|_| InputRecorder::new(record_header(&resolved, flow)));
    let mut sounds = args.sound_log.as_ref().map(|_| SoundLog::default());
    let rec = match &script {
        Some(script) => run_script(
            level,
            character,
            script,
            frames,
            ik,
            shots,
            sounds.as_mut(),
            recorder.as_mut(),
            args.gait_phase.unwrap_or(0.0),
        )?,
        None => run_autopilot(
            level,
            character,
            frames,
            ik,
            shots,
            sounds.as_mut(),
            recorder.as_mut(),
            args.gait_phase.unwrap_or(0.0),
        )?,
    };
    if let (Some(path), Some(log)) = (&args.sound_log, &sounds) {
        log.write(path)?;
    }
    if let (Some(path), Some(r)) = (&args.record, &recorder) {
        let source = match &args.input {
            Some(p) => format!("recorded by `ironstep run` from {}", p.display()),
            None => "recorded by `ironstep run --autopilot`".to_string(),
        };
        crate::fsio::write_atomic(path, r.script(&[source]).as_bytes())
            .with_context(|| format!("{}: cannot write the recording", path.display()))?;
        println!(
            "recording: wrote {} ({} frames, ends at {:.3} {:.3}, pose checksum {:016x})",
            path.display(),
            r.frames(),
            r.end().x,
            r.end().y,
            r.checksum()
        );
    }
    let s = &rec.summary;
    let goal = goal_words(script.as_ref().and_then(|sc| sc.goal), s);
    println!(
        "{} frames; planted foot error {:.4} m; stance slide {:.4} m; max joint speed {:.2} rad/s (steady {:.2}, state changes {:.2}, blends {:.2}); root snap {:.4} m; turn speed {:.1} rad/s; hand hold error {:.4} m; rung contact error {:.4} m; flat-ground IK delta {:.6} m; NaN frames {}; goal {}",
        s.frames,
        s.planted_foot_max_error_m,
        s.stance_slide_max_m,
        s.max_joint_angular_speed_rad_s,
        s.joint_speed_by_cause.steady,
        s.joint_speed_by_cause.state_change,
        s.joint_speed_by_cause.blend,
        s.max_root_snap_m,
        s.max_turn_speed_rad_s,
        s.hand_hold_max_error_m,
        s.rung_contact_max_error_m,
        s.ik_flat_ground_delta_m,
        s.nan_count,
        goal
    );
    let end = glam::Vec2::from_array(s.final_pos);
    println!(
        "ended at {} {} after {} frames; pose checksum {:016x}",
        end.x, end.y, s.frames, s.pose_checksum
    );
    let source = match &args.input {
        Some(p) => p.display().to_string(),
        None => "autopilot".to_string(),
    };
    if let Some(path) = &args.metrics {
        write_metrics(path, &resolved.level, &source, ik, &rec)?;
    }
    if let Some(sc) = &script
        && let Some(want) = sc.header.end
    {
        check_replay(sc, want, frames, s)?;
    }
    if s.exit_reached.is_some() {
        match (&s.autopilot_frames_to_exit, &s.autopilot_failure) {
            (Some(n), _) => println!("autopilot: exit reached in {n} frames"),
            (None, why) => bail!(
                "autopilot: exit NOT reached: {}",
                why.as_deref().unwrap_or("unknown reason")
            ),
        }
    }
    Ok(())
}

/// Compares a replay with the end its recording states (when the whole
/// recording was played): prints that it matches, or fails naming what
/// differs.
fn check_replay(
    script: &Script,
    want: crate::sim::script::RecordedEnd,
    frames: u64,
    s: &Summary,
) -> Result<()> {
    let recorded = script.header.frames.unwrap_or(frames);
    if frames != recorded {
        println!(
            "replay: {frames} of the recording's {recorded} frames played; its end is not compared"
        );
        return Ok(());
    }
    let end = glam::Vec2::from_array(s.final_pos);
    let mut differs = Vec::new();
    if s.frames != recorded {
        differs.push(format!("{} frames, not {recorded}", s.frames));
    }
    if end != want.pos {
        differs.push(format!(
            "ended at ({}, {}), not ({}, {})",
            end.x, end.y, want.pos.x, want.pos.y
        ));
    }
    if s.pose_checksum != want.checksum {
        differs.push(format!(
            "pose checksum {:016x}, not {:016x}",
            s.pose_checksum, want.checksum
        ));
    }
    if differs.is_empty() {
        println!(
            "replay: matches the recording ({recorded} frames, ends at ({}, {}), pose checksum {:016x})",
            end.x, end.y, want.checksum
        );
        Ok(())
    } else {
        bail!("replay: differs from the recording: {}", differs.join("; "))
    }
}

fn write_metrics(path: &Path, level: &str, script: &str, ik: bool, rec: &Recorder) -> Result<()> {
    let doc = MetricsFile {
        level,
        script: script.to_string(),
        ik,
        summary: &rec.summary,
        frames: &rec.frames,
    };
    let json = serde_json::to_string(&doc).context("encoding the metrics")?;
    crate::fsio::write_atomic(path, json.as_bytes())
        .with_context(|| format!("{}: cannot write the metrics", path.display()))
}
