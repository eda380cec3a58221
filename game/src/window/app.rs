//! The windowed game: a winit 0.30 application that reads the keyboard, runs
//! the simulation at a fixed 64 Hz with render interpolation, and draws with
//! the renderer at its own paced frame rate.
//!
//! Keys and gamepad buttons go through the player's bindings
//! ([`crate::flow::bindings`], rebound on Settings → Key bindings); by
//! default ←/→ or A/D walk, Shift runs, Space jumps, ↑/↓ or W/S climb, I
//! toggles IK, F1 the debug overlay, F8 saves a replay of the attempt for a
//! bug report (into the save folder's `recordings/`, see [`replay_dir`]),
//! F12 a screenshot, Esc pauses; F2 (designer mode, see
//! `crate::window::designer`) and F3 (the profiler) are fixed. Gamepads
//! (gilrs): the left stick or d-pad to move and climb, South (A / Cross)
//! to jump, West (X / Square) or the right trigger to run, Start to pause.
//!
//! Every attempt at a level (from its load or restart) is recorded step by
//! step ([`crate::sim::record`]): the input of each fixed step in play,
//! played as recorded, and its pose's checksum; `--record FILE` writes each
//! attempt, the bug-report key saves the current one.
//!
//! The game around the levels is [`crate::flow::Game`]: a bare `ironstep`
//! (or `play` without `--level`) opens on the title screen, `play --level L`
//! goes straight into play. In menus the arrows (or W/S/A/D), Enter or
//! Space, Esc or Backspace, the mouse, and a gamepad's d-pad or stick,
//! South and East navigate ([`crate::window::flow_ui`] draws them). Each
//! screen change and flow event is printed to stdout as a `flow: ...`
//! line, which the end-to-end tests wait on.
//!
//! Each frame, in order: input → fixed steps (the flow's run: controller,
//! animation state, falls, checkpoints, exit), each followed by the pose
//! pipeline when it moved the simulation (never per rendered frame, never
//! while paused) and the step's contact and flow events' sounds
//! ([`crate::audio`]) and dust ([`crate::dust`]) → the pose drawn between
//! the last two steps ([`crate::window::frame_sim`]) → camera → fill the
//! renderer's frame (level, platforms, character, contact shadows, dust) → render and present (the 3D picture, then
//! designer, flow screens and profiler over it) → wait for the pacer's
//! deadline.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use glam::Vec3;
use renderer::{Frame, Gpu, OffscreenTarget, Renderer, SurfaceTarget};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Fullscreen, Window, WindowId};

use crate::audio::Audio;
use crate::character::Character;
use crate::character::events::{CharacterEvent, EventTracker};
use crate::dust::DustPool;
use crate::flow::{
    Action, Bindings, Command, FlowEvent, Game, MenuKey, SaveStore, Screen, Sequence,
};
use crate::profile::Stage;
use crate::scene::{
    CameraRig, SceneHandles, ShownPose, draw_character, draw_contact_shadows, draw_platforms,
    lighting, upload_scene, world_mesh,
};
use crate::sim::clock::FramePacer;
use crate::sim::player::{DT, Input};
use crate::sim::record::InputRecorder;
use crate::sim::script::{Header, Script, ScriptPlayer};
use crate::sim::{Body, Sim};
use crate::tools::headless::MAX_FRAMES;
use crate::window::designer::Designer;
use crate::window::flow_ui::FlowUi;
use crate::window::frame_sim::FrameSim;
use crate::window::overlay::ProfileOverlay;

/// Frames per second the loop paces itself to (presenting is not throttled
/// under every compositor, e.g. Xvfb).
pub const TARGET_FPS: u32 = 60;
/// Initial window size in pixels.
const WINDOW_SIZE: (u32, u32) = (1280, 720);

/// Arguments of `ironstep play` (also the defaults of a bare `ironstep`).
#[derive(Args, Debug, Default, Clone)]
pub struct PlayArgs {
    /// Go straight into play on this level: `builtin`, a shipped level
    /// (`tutorial`, `long`, `tower`), or a Tiled map, .tmx or .tmj (watched: saving
    /// it reloads the level). Without it the game opens on the title screen.
    #[arg(long)]
    pub level: Option<String>,
    /// The folder of the save files (progress, settings) instead of the
    /// platform's per-user data folder (also the `IRONSTEP_DATA_DIR`
    /// environment variable; this flag wins).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Start in designer mode (F2 toggles it): drag ladder ends and slope
    /// heights, edit values in the panel, Ctrl+S saves the TMX.
    #[arg(long)]
    pub edit: bool,
    /// Drive the player from an input script instead of the keyboard
    /// (keys still toggle IK and the overlay).
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// Record what is pressed, every fixed step of each attempt at a level
    /// (from its start or restart to the next), as an input script that
    /// `ironstep run --input FILE` replays exactly: the first attempt into
    /// FILE, later ones into FILE-2, FILE-3, ... (before the extension).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Quit by itself after this many rendered frames.
    #[arg(long)]
    pub exit_after: Option<u64>,
    /// Save a screenshot of the window's picture at these rendered frames
    /// (comma separated), into `--screenshot-dir`.
    #[arg(long, value_delimiter = ',')]
    pub screenshot_at: Vec<u64>,
    /// Directory for `--screenshot-at` pictures (and those F12 takes).
    #[arg(long, default_value = ".")]
    pub screenshot_dir: PathBuf,
    /// When the game quits from a menu (Quit on the pause menu or the title
    /// screen; Esc pauses, it does not quit), draw one more frame and save it
    /// as a screenshot first (tests drive the window with real events, then
    /// choose Quit: the picture shows every event before it, however slow
    /// the machine).
    #[arg(long)]
    pub screenshot_on_exit: bool,
    /// Start with the debug overlay shown.
    #[arg(long)]
    pub debug: bool,
    /// Start with the profiling overlay shown (F3 toggles it).
    #[arg(long)]
    pub profile: bool,
    /// Initial window size, WIDTHxHEIGHT (default 1280x720).
    #[arg(long, value_parser = crate::tools::headless::parse_size)]
    pub window_size: Option<(u32, u32)>,
    /// Master volume of the sound, 0 (silent: no audio device is opened)
    /// to 1, for this session; without it, the settings' volume (saved with
    /// the progress, changed on the settings screen).
    #[arg(long, value_parser = crate::audio::output::parse_volume)]
    pub volume: Option<f32>,
    /// Another character than the knight (`--character MODEL --rig RIG.ron`).
    #[command(flatten)]
    pub model: crate::character::model::CharacterArgs,
}

/// What the keyboard holds of the actions that move the player.
#[derive(Clone, Copy, Debug, Default)]
struct Keys {
    left: bool,
    right: bool,
    up: bool,
    down: bool,
    run: bool,
    jump: bool,
    jump_edge: bool,
}

impl Keys {
    fn input(&self) -> Input {
        Input {
            move_x: f32::from(self.right) - f32::from(self.left),
            move_y: f32::from(self.up) - f32::from(self.down),
            run: self.run,
            jump_pressed: self.jump_edge,
            jump_held: self.jump,
        }
    }

    /// A key bound to `action` went down or up; `in_menu`: a menu is up
    /// (a jump pressed there is no jump).
    fn set(&mut self, action: Action, down: bool, in_menu: bool) {
        match action {
            Action::Left => self.left = down,
            Action::Right => self.right = down,
            Action::Up => self.up = down,
            Action::Down => self.down = down,
            Action::Run => self.run = down,
            Action::Jump => {
                if down && !self.jump && !in_menu {
                    self.jump_edge = true;
                }
                self.jump = down;
            }
            _ => {}
        }
    }
}

/// Stick deflection below which a gamepad axis reads as centred (worn
/// sticks rest a little off centre).
const STICK_DEAD_ZONE: f32 = 0.25;

/// Stick deflection past which a stick counts as a menu key press, and
/// below which it must come back before the next one (a latch, so one push
/// moves the selection once).
const STICK_MENU_PRESS: f32 = 0.6;

/// Gamepads through gilrs: the left stick or d-pad moves and climbs, South
/// (A / Cross) jumps, West (X / Square) or the right trigger runs; in menus
/// the d-pad or stick moves, South confirms, East goes back, Start pauses.
struct Pads {
    gilrs: Option<gilrs::Gilrs>,
    jump_held: bool,
    jump_edge: bool,
    /// The stick's menu direction last reported, until it comes back.
    stick: StickLatch,
}

/// Turns a stick's deflection into single menu key presses.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct StickLatch {
    held: Option<MenuKey>,
}

impl StickLatch {
    /// The key a stick at (`x`, `y`) presses now, if it was not already
    /// held that way (y up).
    fn update(&mut self, x: f32, y: f32) -> Option<MenuKey> {
        let dir = if x.abs().max(y.abs()) < STICK_MENU_PRESS {
            None
        } else if y.abs() >= x.abs() {
            Some(if y > 0.0 { MenuKey::Up } else { MenuKey::Down })
        } else {
            Some(if x > 0.0 {
                MenuKey::Right
            } else {
                MenuKey::Left
            })
        };
        let pressed = dir.filter(|d| self.held != Some(*d));
        self.held = dir;
        pressed
    }
}

/// The menu key a gamepad button presses.
fn pad_menu_key(b: gilrs::Button) -> Option<MenuKey> {
    use gilrs::Button;
    match b {
        Button::DPadUp => Some(MenuKey::Up),
        Button::DPadDown => Some(MenuKey::Down),
        Button::DPadLeft => Some(MenuKey::Left),
        Button::DPadRight => Some(MenuKey::Right),
        Button::South => Some(MenuKey::Confirm),
        Button::East | Button::Start => Some(MenuKey::Back),
        _ => None,
    }
}

impl Pads {
    fn new() -> Self {
        let gilrs = match gilrs::Gilrs::new() {
            Ok(g) => Some(g),
            Err(e) => {
                eprintln!("ironstep: no gamepad support ({e}); the keyboard works");
                None
            }
        };
        Self {
            gilrs,
            jump_held: false,
            jump_edge: false,
            stick: StickLatch::default(),
        }
    }

    /// Drains gamepad events once per frame: records jump edges (a press
    /// of a button bound to jump), and returns each button pressed (its
    /// gilrs name) with the menu key it is, and the menu keys of the left
    /// stick pushed past [`STICK_MENU_PRESS`]. The jump edge is only used
    /// in play.
    fn pump(&mut self, bindings: &Bindings) -> Vec<(Option<String>, Option<MenuKey>)> {
        use gilrs::{Axis, EventType};
        let mut keys = Vec::new();
        let Some(g) = self.gilrs.as_mut() else {
            return keys;
        };
        while let Some(ev) = g.next_event() {
            match ev.event {
                EventType::ButtonPressed(b, _) => {
                    let name = format!("{b:?}");
                    if bindings.has_button(Action::Jump, &name) {
                        if !self.jump_held {
                            self.jump_edge = true;
                        }
                        self.jump_held = true;
                    }
                    keys.push((Some(name), pad_menu_key(b)));
                }
                EventType::ButtonReleased(b, _)
                    if bindings.has_button(Action::Jump, &format!("{b:?}")) =>
                {
                    self.jump_held = false;
                }
                _ => {}
            }
        }
        if let Some((_, pad)) = g.gamepads().next() {
            let (x, y) = (pad.value(Axis::LeftStickX), pad.value(Axis::LeftStickY));
            keys.extend(self.stick.update(x, y).map(|k| (None, Some(k))));
        }
        keys
    }

    /// The first pad's state as the controller's input, through `bindings`.
    fn poll(&mut self, bindings: &Bindings) -> Option<Input> {
        use gilrs::Axis;
        let g = self.gilrs.as_mut()?;
        let (_, pad) = g.gamepads().next()?;
        let axis = |a: Axis| {
            let v = pad.value(a);
            if v.abs() < STICK_DEAD_ZONE { 0.0 } else { v }
        };
        let held = |action: Action| {
            bindings
                .get(action)
                .pad
                .iter()
                .filter_map(|name| pad_button(name))
                .any(|b| pad.is_pressed(b))
        };
        let button = |action: Action| f32::from(held(action));
        let x = axis(Axis::LeftStickX) + button(Action::Right) - button(Action::Left);
        let y = axis(Axis::LeftStickY) + button(Action::Up) - button(Action::Down);
        Some(Input {
            move_x: x.clamp(-1.0, 1.0),
            move_y: y.clamp(-1.0, 1.0),
            run: held(Action::Run),
            jump_pressed: std::mem::take(&mut self.jump_edge),
            jump_held: self.jump_held,
        })
    }
}

/// The gilrs button of a binding's name.
fn pad_button(name: &str) -> Option<gilrs::Button> {
    use gilrs::Button;
    Some(match name {
        "South" => Button::South,
        "East" => Button::East,
        "North" => Button::North,
        "West" => Button::West,
        "LeftTrigger" => Button::LeftTrigger,
        "LeftTrigger2" => Button::LeftTrigger2,
        "RightTrigger" => Button::RightTrigger,
        "RightTrigger2" => Button::RightTrigger2,
        "Select" => Button::Select,
        "Start" => Button::Start,
        "Mode" => Button::Mode,
        "LeftThumb" => Button::LeftThumb,
        "RightThumb" => Button::RightThumb,
        "DPadUp" => Button::DPadUp,
        "DPadDown" => Button::DPadDown,
        "DPadLeft" => Button::DPadLeft,
        "DPadRight" => Button::DPadRight,
        "C" => Button::C,
        "Z" => Button::Z,
        _ => return None,
    })
}

/// Keyboard and gamepad together: the larger deflection wins, buttons add up.
fn combine(a: Input, b: Option<Input>) -> Input {
    let Some(b) = b else { return a };
    let pick = |x: f32, y: f32| if x.abs() >= y.abs() { x } else { y };
    Input {
        move_x: pick(a.move_x, b.move_x),
        move_y: pick(a.move_y, b.move_y),
        run: a.run || b.run,
        jump_pressed: a.jump_pressed || b.jump_pressed,
        jump_held: a.jump_held || b.jump_held,
    }
}

struct Running {
    window: Arc<Window>,
    gpu: Gpu,
    surface: SurfaceTarget,
    renderer: Renderer,
    frame: Frame,
    handles: SceneHandles,
    sim: Sim,
    /// The fixed-step clock, the pose pipeline's runs and the pose drawn
    /// between steps.
    frame_sim: FrameSim,
    camera: CameraRig,
    last: Instant,
    overlay: ProfileOverlay,
    designer: Designer,
    flow_ui: FlowUi,
    /// The sound, and the contact events that drive it and the dust.
    audio: Audio,
    events: EventTracker,
    /// Dust raised by the player's landings and running steps, advanced
    /// every fixed step.
    dust: DustPool,
}

struct App {
    args: PlayArgs,
    character: Arc<Character>,
    running: Option<Running>,
    /// The game around the levels: screens, menus, the run, progress.
    game: Game,
    /// Where progress and settings are saved (none: no home folder).
    store: Option<SaveStore>,
    /// The screen and selection last printed as a `flow:` line.
    announced: Option<(Screen, usize, String)>,
    /// The notice last printed.
    announced_notice: Option<String>,
    /// The `--level` argument of the level the designer has open.
    opened_level: String,
    keys: Keys,
    pads: Pads,
    pacer: FramePacer,
    frames: u64,
    /// Esc was pressed with `--screenshot-on-exit`: the next frame is saved,
    /// then the program quits.
    quit_after_screenshot: bool,
    /// F12 was pressed: the next frame is saved as a screenshot.
    screenshot_next: bool,
    /// What the current attempt at the level was given, step by step.
    recorder: InputRecorder,
    /// Attempts written to `--record`'s files so far.
    recordings_written: u32,
    /// Rendered frames the on-screen notice ([`Game::notice`]) stays.
    notice_frames: u32,
    error: Option<anyhow::Error>,
}

impl App {
    fn start(&mut self, el: &ActiveEventLoop) -> Result<()> {
        let (w, h) = self.args.window_size.unwrap_or(WINDOW_SIZE);
        let attrs = Window::default_attributes()
            .with_title("Ironstep")
            .with_inner_size(PhysicalSize::new(w, h))
            .with_fullscreen(
                self.game
                    .settings
                    .fullscreen
                    .then_some(Fullscreen::Borderless(None)),
            );
        let window = Arc::new(el.create_window(attrs).context("opening the window")?);
        let size = window.inner_size();
        let (gpu, surface) = SurfaceTarget::create(
            Box::new(el.owned_display_handle()),
            window.clone(),
            (size.width, size.height),
        )
        .context("starting the GPU for the window")?;
        let mut renderer = Renderer::new(gpu.clone(), surface.format());
        let (mut designer, level) = Designer::open(&self.game.current_level_arg(), self.args.edit)?;
        designer.attach(&window, &renderer);
        let mut sim = Sim::new(level, self.character.clone());
        sim.ik_enabled = self.game.settings.ik;
        let frame_sim = FrameSim::new(&mut sim);
        self.game.level_name = sim.level.name.clone();
        self.recorder = InputRecorder::new(self.record_header());
        let handles = upload_scene(&mut renderer, &sim.level, &self.character)
            .context("uploading the scene")?;
        let mut frame = Frame::new();
        frame.show_debug = self.args.debug || self.game.settings.debug;
        let flow_ui = FlowUi::new(&window, &renderer);
        eprintln!("ironstep: rendering with {}", gpu.describe());
        let overlay = ProfileOverlay::new(&window, &renderer, self.args.profile);
        // `--volume` overrides the saved setting for this session.
        let audio = Audio::open(self.args.volume.unwrap_or(self.game.settings.volume));
        window.request_redraw();
        self.running = Some(Running {
            window,
            gpu,
            surface,
            renderer,
            frame,
            handles,
            sim,
            frame_sim,
            camera: CameraRig::default(),
            last: Instant::now(),
            overlay,
            designer,
            flow_ui,
            audio,
            events: EventTracker::new(),
            dust: DustPool::new(),
        });
        println!(
            "flow: level {} ({})",
            self.game.current_level_arg(),
            self.game.level_name
        );
        Ok(())
    }

    /// Carries out what the flow asked for.
    fn apply(&mut self, commands: Vec<Command>, el: &ActiveEventLoop) -> Result<()> {
        for c in commands {
            match c {
                Command::Load(_) => self.load_current()?,
                Command::SaveProgress => {
                    if let Some(store) = &self.store
                        && let Err(e) = store.save_progress(&self.game.progress)
                    {
                        eprintln!("ironstep: {e}");
                    }
                }
                Command::SettingsChanged => self.settings_changed(),
                Command::Quit => self.quit(el),
            }
        }
        Ok(())
    }

    /// Quits, after one more screenshot with `--screenshot-on-exit`.
    fn quit(&mut self, el: &ActiveEventLoop) {
        if self.args.screenshot_on_exit {
            self.quit_after_screenshot = true;
        } else {
            el.exit();
        }
    }

    /// Applies the settings to the window and the game, and saves them.
    fn settings_changed(&mut self) {
        let s = self.game.settings.clone();
        if let Some(r) = self.running.as_mut() {
            r.sim.ik_enabled = s.ik;
            r.frame.show_debug = s.debug;
            let want = s.fullscreen.then_some(Fullscreen::Borderless(None));
            if r.window.fullscreen().is_some() != want.is_some() {
                r.window.set_fullscreen(want);
            }
        }
        self.recorder.set_ik(s.ik);
        if let Some(store) = &self.store
            && let Err(e) = store.save_settings(&s)
        {
            eprintln!("ironstep: {e}");
        }
    }

    /// The header of a recording of an attempt at the current level.
    fn record_header(&self) -> Header {
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        Header {
            level: Some(self.game.current_level_arg()),
            character: path(&self.args.model.character),
            rig: path(&self.args.model.rig),
            ik: Some(self.game.settings.ik),
            flow: true,
            frames: None,
            end: None,
        }
    }

    /// The attempt at the level ended (another level or a restart was
    /// loaded, or the game quits): with `--record`, its recording is
    /// written; a fresh recording starts.
    fn finish_attempt(&mut self) {
        let fresh = InputRecorder::new(self.record_header());
        let done = std::mem::replace(&mut self.recorder, fresh);
        let Some(file) = self.args.record.clone() else {
            return;
        };
        if done.frames() == 0 {
            return;
        }
        self.recordings_written += 1;
        let path = numbered(&file, self.recordings_written);
        let note = vec!["recorded by `ironstep play --record`".to_string()];
        match write_recording(&path, &done, &note) {
            Ok(()) => println!("{}", recording_line("wrote", &path, &done)),
            Err(e) => eprintln!("ironstep: {e:#}"),
        }
    }

    /// The bug-report key: saves the current attempt, from the level's
    /// start, into the recordings folder, with a message on screen.
    fn save_replay(&mut self) {
        let r = &self.recorder;
        let message = if r.frames() == 0 {
            "Nothing to save yet: no step of this level has been played".to_string()
        } else if r.full() {
            format!(
                "Cannot save a replay: this attempt is longer than {} minutes, the longest a replay plays; restart the level to record again",
                MAX_FRAMES / 64 / 60
            )
        } else {
            let dir = replay_dir(self.store.as_ref());
            let seconds = r.frames() as f32 / 64.0;
            let from = r.frames().saturating_sub(REPLAY_SECONDS * 64);
            let note = vec![
                format!(
                    "saved with the bug-report key ({}) during play: the whole attempt from the level's start, {seconds:.1} s",
                    self.game.settings.bindings.keys_text(Action::SaveReplay)
                ),
                format!(
                    "(a replay must start where the attempt started); the last {REPLAY_SECONDS} s begin at frame {} ({:.2} s)",
                    from + 1,
                    from as f32 / 64.0
                ),
            ];
            let path = replay_path(&dir, &self.game.current_level_arg());
            match write_recording(&path, r, &note) {
                Ok(()) => {
                    println!("{}", recording_line("saved", &path, r));
                    format!(
                        "Replay saved: {} (attach it to your bug report)",
                        path.display()
                    )
                }
                Err(e) => {
                    eprintln!("ironstep: {e:#}");
                    format!("Could not save the replay: {e:#}")
                }
            }
        };
        self.show_notice(message);
    }

    /// Shows `message` on screen for a few seconds.
    fn show_notice(&mut self, message: String) {
        self.game.notice = Some(message);
        // Shown (and printed) afresh even when the same as the last.
        self.announced_notice = None;
    }

    /// Puts the flow's current level into the window: the same level
    /// again (a restart) keeps the designer and its edits, another one is
    /// opened afresh; the player starts at its spawn.
    fn load_current(&mut self) -> Result<()> {
        let Some(r) = self.running.as_mut() else {
            return Ok(());
        };
        let arg = self.game.current_level_arg();
        let level = match r.designer.doc() {
            Some(doc) if self.opened_level == arg => doc.level().clone(),
            _ => match Designer::open(&arg, r.designer.enabled) {
                Ok((mut designer, level)) => {
                    designer.attach(&r.window, &r.renderer);
                    r.designer = designer;
                    self.opened_level = arg;
                    level
                }
                // Only a level file can fail here (the sequence's levels
                // are embedded and checked): keep playing the level open,
                // from its spawn, and say why.
                Err(e) => {
                    eprintln!("ironstep: {e:#}");
                    println!("flow: load failed: {e:#}");
                    r.sim.level.clone()
                }
            },
        };
        r.renderer
            .replace_world_mesh(r.handles.world, &world_mesh(&level)?)?;
        let mut sim = Sim::new(level, self.character.clone());
        sim.ik_enabled = self.game.settings.ik;
        r.sim = sim;
        r.events.reset();
        r.frame_sim.restart(&mut r.sim);
        r.camera = CameraRig::default();
        self.game.level_name = r.sim.level.name.clone();
        self.finish_attempt();
        self.keys.jump_edge = false;
        self.pads.jump_edge = false;
        println!(
            "flow: level {} ({})",
            self.opened_level, self.game.level_name
        );
        Ok(())
    }

    /// Prints the screen and selection when they (or the selected item's
    /// label: a setting changed, a binding waits for its key) changed, a
    /// new notice, and the flow's events of this frame (what the
    /// end-to-end tests wait on).
    fn announce(&mut self) {
        let item = self
            .game
            .items()
            .get(self.game.selected)
            .map(|&i| self.game.label(i))
            .unwrap_or_default();
        let now = (self.game.screen, self.game.selected, item);
        if self.announced.as_ref() != Some(&now) {
            let item = now.2.clone();
            self.announced = Some(now.clone());
            let pos = self
                .running
                .as_ref()
                .map(|r| r.sim.player_state().pos)
                .unwrap_or_default();
            println!(
                "flow: screen {:?} selected {:?} player {:.3} {:.3}",
                now.0, item, pos.x, pos.y
            );
        }
        for e in &self.game.events {
            println!("flow: event {e:?}");
        }
        if self.game.notice != self.announced_notice {
            if let Some(n) = &self.game.notice {
                println!("notice: {n}");
                self.notice_frames = NOTICE_FRAMES;
            }
            self.announced_notice = self.game.notice.clone();
        }
    }

    /// One key event. `synthetic`: made up by winit for a key already held
    /// as the window gains focus (or let go of as it loses it).
    fn key(&mut self, event: &KeyEvent, synthetic: bool, el: &ActiveEventLoop) -> Result<()> {
        let PhysicalKey::Code(code) = event.physical_key else {
            return Ok(());
        };
        let down = event.state == ElementState::Pressed;
        let fresh = down && !event.repeat && !synthetic;
        let name = format!("{code:?}");
        if self.game.capturing.is_some() {
            // The bindings screen waits for a key: Esc cancels, any other
            // is bound (or refused, with the reason on screen).
            if fresh {
                if code == KeyCode::Escape {
                    self.game.cancel_binding();
                } else {
                    let commands = self.game.bind_key(&name);
                    return self.apply(commands, el);
                }
            }
            return Ok(());
        }
        let in_menu = self.game.in_menu();
        // A menu moves one item per press: neither the key's auto-repeat
        // nor the press winit makes up for a key held as the window gains
        // focus moves it (a Down pressed as the window took focus moved two
        // items). The menus' keys are fixed, whatever is bound.
        if down
            && in_menu
            && let Some(key) = keyboard_menu_key(code)
        {
            if event.repeat || synthetic {
                return Ok(());
            }
            let commands = self.game.key(key);
            return self.apply(commands, el);
        }
        if let Some(action) = self.game.settings.bindings.action_for_key(&name) {
            self.keys.set(action, down, in_menu);
            if fresh {
                self.action_pressed(action, el)?;
            }
        }
        if code == KeyCode::F3
            && fresh
            && let Some(r) = self.running.as_mut()
        {
            r.overlay.visible = !r.overlay.visible;
        }
        Ok(())
    }

    /// A key or button bound to `action` was pressed (the moves are held
    /// in [`Keys`] and the pad's state; this does the rest).
    fn action_pressed(&mut self, action: Action, el: &ActiveEventLoop) -> Result<()> {
        match action {
            Action::Pause if matches!(self.game.screen, Screen::Playing | Screen::Paused) => {
                let commands = self.game.key(MenuKey::Back);
                return self.apply(commands, el);
            }
            Action::ToggleIk => {
                self.game.settings.ik = !self.game.settings.ik;
                eprintln!(
                    "ironstep: IK {}",
                    if self.game.settings.ik { "on" } else { "off" }
                );
                self.settings_changed();
            }
            Action::ToggleDebug => {
                self.game.settings.debug = !self.game.settings.debug;
                self.settings_changed();
            }
            Action::Screenshot => self.screenshot_next = true,
            Action::SaveReplay => self.save_replay(),
            _ => {}
        }
        Ok(())
    }

    fn redraw(
        &mut self,
        el: &ActiveEventLoop,
        scripted: &mut Option<ScriptPlayer<'_>>,
    ) -> Result<()> {
        if self.running.is_none() {
            return Ok(());
        }
        self.game.begin_frame();
        // Gamepad menu keys first, and what they ask for at once: a level
        // they load must not see this frame's steps of the old one.
        for (button, key) in self.pads.pump(&self.game.settings.bindings) {
            if self.game.capturing.is_some() {
                // The bindings screen waits for a button (the stick is no
                // binding).
                if let Some(b) = button {
                    let commands = self.game.bind_button(&b);
                    self.apply(commands, el)?;
                }
                continue;
            }
            let action = button
                .as_deref()
                .and_then(|b| self.game.settings.bindings.action_for_button(b));
            if self.game.in_menu()
                && let Some(key) = key
            {
                let commands = self.game.key(key);
                self.apply(commands, el)?;
            } else if let Some(a) = action {
                self.action_pressed(a, el)?;
            }
        }
        let Some(r) = self.running.as_mut() else {
            return Ok(());
        };
        let now = Instant::now();
        let elapsed = (now - r.last).as_secs_f32();
        r.last = now;
        let paused = r.designer.sim_paused();
        if r.designer
            .update(&mut r.sim, &mut r.renderer, &r.handles, elapsed)?
        {
            let stepping = !paused && !self.game.in_menu() && self.game.run.is_playing();
            r.frame_sim.edited(&mut r.sim, stepping);
            // The level this attempt is played on changed under it.
            self.recorder.edited = true;
        }
        // The fixed steps, the pose pipeline after each step that moved the
        // simulation (never per rendered frame), and the pose drawn between
        // the last two steps (see `crate::window::frame_sim`).
        let keys = &mut self.keys;
        let pads = &mut self.pads;
        let volume = self.args.volume;
        // The recorder is given each step's input in play, and the step's
        // pose after it (two closures: shared through a cell).
        let recorder = std::cell::RefCell::new(&mut self.recorder);
        let recorded = std::cell::Cell::new(false);
        let (steps, mut commands) = r.frame_sim.frame(
            &mut self.game,
            &mut r.sim,
            elapsed,
            paused,
            &mut r.overlay.profiler,
            |game| {
                // A script's presses are played only while the player moves
                // (not in menus or a respawn's fade), as a player's would be.
                let moving = game.screen == Screen::Playing && game.run.is_playing();
                let input = match scripted.as_mut() {
                    Some(s) if moving => s.next_input(),
                    Some(_) => Input::default(),
                    None => combine(keys.input(), pads.poll(&game.settings.bindings)),
                };
                keys.jump_edge = false;
                // Only steps in play step the run (menus hold it still):
                // those are recorded, and played as recorded.
                if game.screen == Screen::Playing {
                    recorded.set(true);
                    recorder.borrow_mut().push(input)
                } else {
                    input
                }
            },
            |sim, game, flow_events| {
                if recorded.replace(false) {
                    recorder.borrow_mut().after_step(sim);
                }
                // The step's sounds: the character's contacts, then what the
                // flow raised (a respawn starts the contacts afresh).
                if flow_events
                    .iter()
                    .any(|e| matches!(e, FlowEvent::Respawned { .. }))
                {
                    r.events.reset();
                }
                r.events.observe_sim(sim);
                let at = sim.player_state().pos.extend(0.0);
                for e in flow_events {
                    let raised = match e {
                        FlowEvent::CheckpointReached { .. } => {
                            CharacterEvent::Checkpoint { position: at }
                        }
                        FlowEvent::LevelComplete { .. } => {
                            CharacterEvent::LevelComplete { position: at }
                        }
                        _ => continue,
                    };
                    r.events.raise(raised);
                }
                if volume.is_none() {
                    // The settings screen's volume, live.
                    r.audio.set_master_volume(game.settings.volume);
                }
                r.audio.play_events(r.events.events());
                r.dust.emit_events(r.events.events());
                r.dust.update(DT);
            },
        );
        let scene_start = Instant::now();
        let player = r.sim.player_state();
        let camera = r.camera.update(&player, elapsed);
        let camera = r.designer.camera(camera, r.surface.size());
        r.frame.clear();
        r.frame.draw_world(r.handles.world);
        draw_platforms(&mut r.frame, r.handles.platform, &r.sim.level, steps.alpha);
        {
            let body = r
                .sim
                .world
                .get::<&Body>(r.sim.player)
                .expect("the player has a body");
            // Render interpolation: the body, its limbs and its facing drawn
            // between the last two steps.
            let drawn = r.frame_sim.drawn();
            let shown = ShownPose {
                palette: drawn.palette(),
                models: drawn.models(),
                debug: &body.pipeline.debug,
            };
            draw_character(
                &mut r.frame,
                r.handles.character,
                &body.character,
                shown,
                drawn.world(),
            );
            draw_contact_shadows(
                &mut r.frame,
                &body.character,
                shown,
                drawn.world(),
                &r.sim.level,
            );
            r.dust.draw(&mut r.frame);
        }
        r.designer.ui(&r.window);
        let pointer = r.flow_ui.prepare(&r.window, &self.game);
        let light = lighting(Vec3::new(player.pos.x, player.pos.y, 0.0));
        r.overlay.profiler.add(Stage::Scene, scene_start.elapsed());
        r.overlay.prepare(&r.window);
        if let Some(tex) = r.surface.acquire(&r.gpu)? {
            let view = tex.texture.create_view(&Default::default());
            let stats =
                r.renderer
                    .render(&mut r.frame, &camera, &light, &view, r.surface.size())?;
            r.overlay
                .record_render(&stats, r.renderer.last_pass_times());
            r.designer.paint(&r.renderer, &view, r.surface.size());
            r.flow_ui.paint(&r.renderer, &view, r.surface.size());
            r.overlay.paint(&r.renderer, &view, r.surface.size());
            let present_start = Instant::now();
            r.window.pre_present_notify();
            r.surface.present(&r.gpu, tex);
            r.overlay
                .profiler
                .add(Stage::Present, present_start.elapsed());
            self.frames += 1;
            if self.args.screenshot_at.contains(&self.frames)
                || self.quit_after_screenshot
                || std::mem::take(&mut self.screenshot_next)
            {
                // The swapchain cannot be read back portably: draw the same
                // frame into an offscreen target of the window's size.
                let size = r.surface.size();
                let target = OffscreenTarget::new(&r.renderer, size.0, size.1);
                r.renderer
                    .render(&mut r.frame, &camera, &light, target.view(), size)?;
                r.designer.paint(&r.renderer, target.view(), size);
                r.flow_ui.paint(&r.renderer, target.view(), size);
                r.overlay.paint(&r.renderer, target.view(), size);
                let path = self
                    .args
                    .screenshot_dir
                    .join(format!("window_{:05}.png", self.frames));
                target.save_png(&mut r.renderer, &path)?;
                println!(
                    "screenshot {} player {:.3} {:.3}",
                    path.display(),
                    player.pos.x,
                    player.pos.y
                );
            }
        }
        if self.quit_after_screenshot || self.args.exit_after.is_some_and(|n| self.frames >= n) {
            el.exit();
        }
        let gpu_ms = r.overlay.gpu.map(|g| g.shadow_ms + g.main_ms);
        r.overlay.profiler.end_frame(gpu_ms);
        if self.notice_frames > 0 {
            self.notice_frames -= 1;
            if self.notice_frames == 0 {
                self.game.notice = None;
            }
        }
        if let Some(i) = pointer.hovered {
            self.game.hover(i);
        }
        if let Some(i) = pointer.clicked {
            commands.extend(self.game.activate(i));
        }
        self.announce();
        self.apply(commands, el)
    }
}

/// The menu key a keyboard key presses.
fn keyboard_menu_key(code: KeyCode) -> Option<MenuKey> {
    match code {
        KeyCode::ArrowUp | KeyCode::KeyW => Some(MenuKey::Up),
        KeyCode::ArrowDown | KeyCode::KeyS => Some(MenuKey::Down),
        KeyCode::ArrowLeft | KeyCode::KeyA => Some(MenuKey::Left),
        KeyCode::ArrowRight | KeyCode::KeyD => Some(MenuKey::Right),
        KeyCode::Enter | KeyCode::NumpadEnter | KeyCode::Space => Some(MenuKey::Confirm),
        KeyCode::Escape | KeyCode::Backspace => Some(MenuKey::Back),
        _ => None,
    }
}

/// The event-loop adapter: owns the script so its player can borrow it.
struct Handler<'s> {
    app: App,
    scripted: Option<ScriptPlayer<'s>>,
}

impl ApplicationHandler for Handler<'_> {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.app.running.is_none()
            && let Err(e) = self.app.start(el)
        {
            self.app.error = Some(e);
            el.exit();
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if let Some(r) = self.app.running.as_mut() {
            r.overlay.on_window_event(&r.window, &event);
            r.flow_ui.on_window_event(&r.window, &event);
            // Over a menu, keys and the mouse are the menu's, not the
            // designer's (its arrows would pan the view instead).
            if !self.app.game.in_menu() && r.designer.on_event(&r.window, &event) {
                return;
            }
        }
        match event {
            WindowEvent::CloseRequested => el.exit(),
            WindowEvent::Resized(size) => {
                if let Some(r) = self.app.running.as_mut() {
                    r.surface.resize(&r.gpu, (size.width, size.height));
                }
            }
            WindowEvent::KeyboardInput {
                event,
                is_synthetic,
                ..
            } => {
                if let Err(e) = self.app.key(&event, is_synthetic, el) {
                    self.app.error = Some(e);
                    el.exit();
                }
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.app.redraw(el, &mut self.scripted) {
                    self.app.error = Some(e);
                    el.exit();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, el: &ActiveEventLoop) {
        let (deadline, _) = self.app.pacer.next_deadline(Instant::now());
        el.set_control_flow(ControlFlow::WaitUntil(deadline));
        if let Some(r) = self.app.running.as_ref() {
            r.window.request_redraw();
        }
    }
}

/// Plays the game in a window until the player quits.
pub fn play(args: PlayArgs) -> Result<()> {
    // An unknown level name fails here, before a window opens.
    if let Some(level) = &args.level {
        crate::level::shipped::LevelSource::resolve(level)?;
    }
    let store = SaveStore::locate(args.data_dir.as_deref());
    let (progress, settings) = match &store {
        Some(s) => (s.load_progress().0, s.load_settings().0),
        None => {
            eprintln!(
                "ironstep: no per-user data folder (no home folder?); progress and settings are not saved (give --data-dir DIR)"
            );
            Default::default()
        }
    };
    let sequence = Sequence::shipped()?;
    let game = match &args.level {
        Some(level) => Game::playing(sequence, progress, settings, level),
        None => Game::new(sequence, progress, settings),
    };
    for &n in &args.screenshot_at {
        if n == 0 {
            bail!("--screenshot-at counts frames from 1");
        }
    }
    if !args.screenshot_at.is_empty() {
        ensure_dir(&args.screenshot_dir)?;
    }
    let script = args.input.as_deref().map(Script::load).transpose()?;
    let character = Arc::new(args.model.load()?);
    #[cfg(feature = "puffin")]
    let _puffin = crate::profile::start_live_server(crate::profile::PUFFIN_ADDR)?;
    let event_loop = EventLoop::new().map_err(|e| {
        anyhow!("cannot open a window: {e} (no display? run under a desktop session or `xvfb-run -a ironstep`)")
    })?;
    let app = App {
        args,
        character,
        running: None,
        opened_level: game.current_level_arg(),
        game,
        store,
        announced: None,
        announced_notice: None,
        keys: Keys::default(),
        pads: Pads::new(),
        pacer: FramePacer::new(TARGET_FPS),
        frames: 0,
        quit_after_screenshot: false,
        screenshot_next: false,
        recorder: InputRecorder::new(Header::default()),
        recordings_written: 0,
        notice_frames: 0,
        error: None,
    };
    let mut handler = Handler {
        app,
        scripted: script.as_ref().map(Script::player),
    };
    event_loop
        .run_app(&mut handler)
        .context("running the window's event loop")?;
    // The attempt under way when the game quit.
    handler.app.finish_attempt();
    match handler.app.error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// How much play the bug-report key's saves are about, seconds: the file
/// holds the whole attempt (see [`replay_dir`]), and says where these last
/// seconds begin.
pub const REPLAY_SECONDS: u64 = 60;

/// Rendered frames an on-screen notice stays: five seconds at
/// [`TARGET_FPS`], long enough to read a path.
const NOTICE_FRAMES: u32 = 5 * TARGET_FPS;

/// The folder the bug-report key saves replays into: `recordings` in the
/// save folder (`~/.local/share/ironstep/recordings` on Linux), or in the
/// working folder when there is none.
///
/// A saved replay holds every step of the attempt from the level's start
/// (or restart), not only the last [`REPLAY_SECONDS`]: the state 60 s ago
/// is the product of everything before it (the pose pipeline's smoothing
/// and foot locks, the controller's timers, moving platforms, the run's
/// checkpoint), and only a replay from the spawn reproduces it bit for
/// bit. The inputs are small (a line per change), so the whole attempt
/// costs little; the file notes where the last 60 s begin.
pub fn replay_dir(store: Option<&SaveStore>) -> PathBuf {
    store.map_or_else(
        || PathBuf::from("recordings"),
        |s| s.dir().join("recordings"),
    )
}

/// A fresh file name in `dir` for a replay of `level`: the level's file
/// stem and the time (seconds since 1970), numbered when taken.
fn replay_path(dir: &Path, level: &str) -> PathBuf {
    let stem: String = Path::new(level)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let base = dir.join(format!("replay-{stem}-{secs}.txt"));
    (1..)
        .map(|n| numbered(&base, n))
        .find(|p| !p.exists())
        .unwrap_or(base)
}

/// `file` for `n` = 1, else `file` with `-n` before its extension.
fn numbered(file: &Path, n: u32) -> PathBuf {
    if n <= 1 {
        return file.to_path_buf();
    }
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match file.extension() {
        Some(ext) => format!("{stem}-{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{n}"),
    };
    file.with_file_name(name)
}

/// Writes a recording atomically, creating its folder.
fn write_recording(path: &Path, r: &InputRecorder, note: &[String]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the folder", dir.display()))?;
    }
    crate::fsio::write_atomic(path, r.script(note).as_bytes())
        .with_context(|| format!("{}: cannot write the recording", path.display()))
}

/// The line printed for a written recording (tests wait on it).
fn recording_line(verb: &str, path: &Path, r: &InputRecorder) -> String {
    format!(
        "recording: {verb} {} ({} frames, ends at {} {}, pose checksum {:016x})",
        path.display(),
        r.frames(),
        r.end().x,
        r.end().y,
        r.checksum()
    )
}

fn ensure_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{}: cannot create the screenshot directory", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyboard_and_gamepad_combine_by_larger_deflection() {
        let keys = Input {
            move_x: 1.0,
            run: false,
            ..Input::default()
        };
        let pad = Input {
            move_x: -0.4,
            move_y: 0.8,
            run: true,
            jump_pressed: true,
            jump_held: true,
        };
        let c = combine(keys, Some(pad));
        assert_eq!(c.move_x, 1.0);
        assert_eq!(c.move_y, 0.8);
        assert!(c.run && c.jump_pressed && c.jump_held);
        assert_eq!(combine(keys, None), keys);
    }

    #[test]
    fn a_pushed_stick_presses_one_menu_key_until_it_comes_back() {
        let mut s = StickLatch::default();
        assert_eq!(s.update(0.1, -0.2), None, "inside the press threshold");
        assert_eq!(s.update(0.0, -0.9), Some(MenuKey::Down));
        assert_eq!(s.update(0.1, -1.0), None, "still held down");
        assert_eq!(s.update(0.0, 0.0), None);
        assert_eq!(s.update(0.0, -0.7), Some(MenuKey::Down), "pushed again");
        assert_eq!(s.update(0.8, -0.3), Some(MenuKey::Right), "turned right");
        assert_eq!(s.update(-0.2, 0.9), Some(MenuKey::Up));
    }

    #[test]
    fn keyboard_and_gamepad_buttons_map_onto_the_same_menu_keys() {
        use gilrs::Button;
        for (code, button, key) in [
            (KeyCode::ArrowUp, Button::DPadUp, MenuKey::Up),
            (KeyCode::ArrowDown, Button::DPadDown, MenuKey::Down),
            (KeyCode::ArrowLeft, Button::DPadLeft, MenuKey::Left),
            (KeyCode::ArrowRight, Button::DPadRight, MenuKey::Right),
            (KeyCode::Enter, Button::South, MenuKey::Confirm),
            (KeyCode::Escape, Button::East, MenuKey::Back),
        ] {
            assert_eq!(keyboard_menu_key(code), Some(key));
            assert_eq!(pad_menu_key(button), Some(key));
        }
        assert_eq!(pad_menu_key(Button::Start), Some(MenuKey::Back), "pause");
        assert_eq!(keyboard_menu_key(KeyCode::KeyI), None);
        assert_eq!(pad_menu_key(Button::West), None);
    }

    /// Every key and button name a binding may use is the name the window
    /// sees for that key (winit's `KeyCode`) or button (gilrs's `Button`):
    /// a binding the settings accept always works.
    #[test]
    fn binding_names_are_the_names_the_window_sees() {
        use crate::flow::bindings::{BUTTONS, KEYS};
        use KeyCode::*;
        let codes = [
            ArrowLeft,
            ArrowRight,
            ArrowUp,
            ArrowDown,
            KeyA,
            KeyB,
            KeyC,
            KeyD,
            KeyE,
            KeyF,
            KeyG,
            KeyH,
            KeyI,
            KeyJ,
            KeyK,
            KeyL,
            KeyM,
            KeyN,
            KeyO,
            KeyP,
            KeyQ,
            KeyR,
            KeyS,
            KeyT,
            KeyU,
            KeyV,
            KeyW,
            KeyX,
            KeyY,
            KeyZ,
            Digit0,
            Digit1,
            Digit2,
            Digit3,
            Digit4,
            Digit5,
            Digit6,
            Digit7,
            Digit8,
            Digit9,
            Space,
            Enter,
            Tab,
            Backspace,
            Escape,
            ShiftLeft,
            ShiftRight,
            ControlLeft,
            ControlRight,
            AltLeft,
            AltRight,
            CapsLock,
            Comma,
            Period,
            Slash,
            Semicolon,
            Quote,
            BracketLeft,
            BracketRight,
            Backslash,
            Minus,
            Equal,
            Backquote,
            IntlBackslash,
            Insert,
            Delete,
            Home,
            End,
            PageUp,
            PageDown,
            Numpad0,
            Numpad1,
            Numpad2,
            Numpad3,
            Numpad4,
            Numpad5,
            Numpad6,
            Numpad7,
            Numpad8,
            Numpad9,
            NumpadEnter,
            NumpadAdd,
            NumpadSubtract,
            F1,
            F2,
            F3,
            F4,
            F5,
            F6,
            F7,
            F8,
            F9,
            F10,
            F11,
            F12,
        ];
        let names: Vec<String> = codes.iter().map(|c| format!("{c:?}")).collect();
        let table: Vec<String> = KEYS.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(names, table);
        for (name, _) in BUTTONS {
            let b = pad_button(name).unwrap_or_else(|| panic!("{name}: no gilrs button"));
            assert_eq!(format!("{b:?}"), *name);
        }
    }

    #[test]
    fn numbered_recordings_keep_the_extension_and_replays_get_fresh_names() {
        assert_eq!(numbered(Path::new("a/run.txt"), 1), Path::new("a/run.txt"));
        assert_eq!(
            numbered(Path::new("a/run.txt"), 3),
            Path::new("a/run-3.txt")
        );
        assert_eq!(numbered(Path::new("run"), 2), Path::new("run-2"));
        let dir =
            std::env::temp_dir().join(format!("ironstep-replay-names-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = replay_path(&dir, "maps/my level.tmx");
        assert!(
            a.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("replay-my_level-"),
            "{}",
            a.display()
        );
        std::fs::write(&a, "").unwrap();
        let b = replay_path(&dir, "maps/my level.tmx");
        assert_ne!(a, b, "a taken name is not reused");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
