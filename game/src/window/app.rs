//! The windowed game: a winit 0.30 application that reads the keyboard, runs
//! the simulation at a fixed 64 Hz with render interpolation, and draws with
//! the renderer at its own paced frame rate.
//!
//! Keys: ←/→ or A/D walk, Shift runs, Space jumps, ↑/↓ or W/S climb, I toggles
//! IK, F1 toggles the debug overlay, F2 designer mode (see `crate::window::designer`),
//! Esc quits. Gamepads (gilrs): left stick or
//! d-pad to move and climb, South (A / Cross) to jump, West (X / Square) or
//! the right trigger to run.
//!
//! Each frame, in order: input → fixed steps (controller, animation state,
//! pose pipeline, the contact events' sounds: [`crate::audio`], and their
//! dust: [`crate::dust`]) → camera → fill the renderer's frame (level,
//! platforms, character, contact shadows, dust) → render and present →
//! wait for the pacer's deadline.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use glam::{Mat4, Vec3};
use renderer::{Frame, Gpu, OffscreenTarget, Renderer, SurfaceTarget};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::audio::Audio;
use crate::audio::output::DEFAULT_VOLUME;
use crate::character::Character;
use crate::character::events::EventTracker;
use crate::dust::DustPool;
use crate::profile::Stage;
use crate::scene::{
    CameraRig, SceneHandles, draw_character, draw_contact_shadows, draw_platforms, lighting,
    upload_scene,
};
use crate::sim::clock::{FixedClock, FramePacer};
use crate::sim::player::{DT, Input};
use crate::sim::script::{Script, ScriptPlayer};
use crate::sim::{Body, Sim};
use crate::window::designer::Designer;
use crate::window::overlay::{PoseTimer, ProfileOverlay};

/// Frames per second the loop paces itself to (presenting is not throttled
/// under every compositor, e.g. Xvfb).
pub const TARGET_FPS: u32 = 60;
/// Initial window size in pixels.
const WINDOW_SIZE: (u32, u32) = (1280, 720);

/// Arguments of `ironstep play` (also the defaults of a bare `ironstep`).
#[derive(Args, Debug, Default, Clone)]
pub struct PlayArgs {
    /// The level: `builtin` (the default), a shipped level (`tutorial`,
    /// `long`, `tower`), or a Tiled .tmx file (watched: saving it reloads the level).
    #[arg(long, default_value = "builtin")]
    pub level: String,
    /// Start in designer mode (F2 toggles it): drag ladder ends and slope
    /// heights, edit values in the panel, Ctrl+S saves the TMX.
    #[arg(long)]
    pub edit: bool,
    /// Drive the player from an input script instead of the keyboard
    /// (keys still toggle IK and the overlay).
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// Quit by itself after this many rendered frames.
    #[arg(long)]
    pub exit_after: Option<u64>,
    /// Save a screenshot of the window's picture at these rendered frames
    /// (comma separated), into `--screenshot-dir`.
    #[arg(long, value_delimiter = ',')]
    pub screenshot_at: Vec<u64>,
    /// Directory for `--screenshot-at` pictures.
    #[arg(long, default_value = ".")]
    pub screenshot_dir: PathBuf,
    /// When Esc quits, draw one more frame and save it as a screenshot
    /// first (tests drive the window with real events, then press Esc: the
    /// picture shows every event before it, however slow the machine).
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
    /// to 1; default [`crate::audio::output::DEFAULT_VOLUME`].
    #[arg(long, value_parser = crate::audio::output::parse_volume)]
    pub volume: Option<f32>,
    /// Another character than the knight (`--character MODEL --rig RIG.ron`).
    #[command(flatten)]
    pub model: crate::character::model::CharacterArgs,
}

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
}

/// Stick deflection below which a gamepad axis reads as centred (worn
/// sticks rest a little off centre).
const STICK_DEAD_ZONE: f32 = 0.25;

/// Gamepads through gilrs: the left stick or d-pad moves and climbs, South
/// (A / Cross) jumps, West (X / Square) or the right trigger runs.
struct Pads {
    gilrs: Option<gilrs::Gilrs>,
    jump_held: bool,
    jump_edge: bool,
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
        }
    }

    /// Drains gamepad events (edges) and returns the first pad's state.
    fn poll(&mut self) -> Option<Input> {
        use gilrs::{Axis, Button, EventType};
        let g = self.gilrs.as_mut()?;
        while let Some(ev) = g.next_event() {
            match ev.event {
                EventType::ButtonPressed(Button::South, _) => {
                    if !self.jump_held {
                        self.jump_edge = true;
                    }
                    self.jump_held = true;
                }
                EventType::ButtonReleased(Button::South, _) => self.jump_held = false,
                _ => {}
            }
        }
        let (_, pad) = g.gamepads().next()?;
        let axis = |a: Axis| {
            let v = pad.value(a);
            if v.abs() < STICK_DEAD_ZONE { 0.0 } else { v }
        };
        let button = |b: Button| f32::from(pad.is_pressed(b));
        let x = axis(Axis::LeftStickX) + button(Button::DPadRight) - button(Button::DPadLeft);
        let y = axis(Axis::LeftStickY) + button(Button::DPadUp) - button(Button::DPadDown);
        Some(Input {
            move_x: x.clamp(-1.0, 1.0),
            move_y: y.clamp(-1.0, 1.0),
            run: pad.is_pressed(Button::West) || pad.is_pressed(Button::RightTrigger2),
            jump_pressed: std::mem::take(&mut self.jump_edge),
            jump_held: self.jump_held,
        })
    }
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
    clock: FixedClock,
    camera: CameraRig,
    prev_world: Mat4,
    last: Instant,
    overlay: ProfileOverlay,
    designer: Designer,
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
    keys: Keys,
    pads: Pads,
    pacer: FramePacer,
    frames: u64,
    /// Esc was pressed with `--screenshot-on-exit`: the next frame is saved,
    /// then the program quits.
    quit_after_screenshot: bool,
    error: Option<anyhow::Error>,
}

impl App {
    fn start(&mut self, el: &ActiveEventLoop) -> Result<()> {
        let (w, h) = self.args.window_size.unwrap_or(WINDOW_SIZE);
        let attrs = Window::default_attributes()
            .with_title("Ironstep")
            .with_inner_size(PhysicalSize::new(w, h));
        let window = Arc::new(el.create_window(attrs).context("opening the window")?);
        let size = window.inner_size();
        let (gpu, surface) = SurfaceTarget::create(
            Box::new(el.owned_display_handle()),
            window.clone(),
            (size.width, size.height),
        )
        .context("starting the GPU for the window")?;
        let mut renderer = Renderer::new(gpu.clone(), surface.format());
        let (mut designer, level) = Designer::open(&self.args.level, self.args.edit)?;
        designer.attach(&window, &renderer);
        let sim = Sim::new(level, self.character.clone());
        let handles = upload_scene(&mut renderer, &sim.level, &self.character)
            .context("uploading the scene")?;
        let mut frame = Frame::new();
        frame.show_debug = self.args.debug;
        eprintln!("ironstep: rendering with {}", gpu.describe());
        let overlay = ProfileOverlay::new(&window, &renderer, self.args.profile);
        let audio = Audio::open(self.args.volume.unwrap_or(DEFAULT_VOLUME));
        window.request_redraw();
        self.running = Some(Running {
            window,
            gpu,
            surface,
            renderer,
            frame,
            handles,
            sim,
            clock: FixedClock::game(),
            camera: CameraRig::default(),
            prev_world: Mat4::IDENTITY,
            last: Instant::now(),
            overlay,
            designer,
            audio,
            events: EventTracker::new(),
            dust: DustPool::new(),
        });
        Ok(())
    }

    fn key(&mut self, event: &KeyEvent, el: &ActiveEventLoop) {
        let PhysicalKey::Code(code) = event.physical_key else {
            return;
        };
        let down = event.state == ElementState::Pressed;
        let k = &mut self.keys;
        match code {
            KeyCode::ArrowLeft | KeyCode::KeyA => k.left = down,
            KeyCode::ArrowRight | KeyCode::KeyD => k.right = down,
            KeyCode::ArrowUp | KeyCode::KeyW => k.up = down,
            KeyCode::ArrowDown | KeyCode::KeyS => k.down = down,
            KeyCode::ShiftLeft | KeyCode::ShiftRight => k.run = down,
            KeyCode::Space => {
                if down && !k.jump {
                    k.jump_edge = true;
                }
                k.jump = down;
            }
            KeyCode::KeyI if down && !event.repeat => {
                if let Some(r) = self.running.as_mut() {
                    r.sim.ik_enabled = !r.sim.ik_enabled;
                    eprintln!(
                        "ironstep: IK {}",
                        if r.sim.ik_enabled { "on" } else { "off" }
                    );
                }
            }
            KeyCode::F1 if down && !event.repeat => {
                if let Some(r) = self.running.as_mut() {
                    r.frame.show_debug = !r.frame.show_debug;
                }
            }
            KeyCode::F3 if down && !event.repeat => {
                if let Some(r) = self.running.as_mut() {
                    r.overlay.visible = !r.overlay.visible;
                }
            }
            KeyCode::Escape if down && self.args.screenshot_on_exit => {
                self.quit_after_screenshot = true;
            }
            KeyCode::Escape if down => el.exit(),
            _ => {}
        }
    }

    fn redraw(
        &mut self,
        el: &ActiveEventLoop,
        scripted: &mut Option<ScriptPlayer<'_>>,
    ) -> Result<()> {
        let Some(r) = self.running.as_mut() else {
            return Ok(());
        };
        let now = Instant::now();
        let elapsed = (now - r.last).as_secs_f32();
        r.last = now;
        r.designer
            .update(&mut r.sim, &mut r.renderer, &r.handles, elapsed)?;
        let mut steps = r.clock.advance(elapsed);
        if r.designer.sim_paused() {
            // Designer mode: no steps, but the pose follows every edit.
            steps.steps = 0;
            steps.alpha = 1.0;
            r.sim.pose(DT);
        }
        let prof = &mut r.overlay.profiler;
        for _ in 0..steps.steps {
            let input = prof.time(Stage::Input, || match scripted.as_mut() {
                Some(s) => s.next_input(),
                None => combine(self.keys.input(), self.pads.poll()),
            });
            self.keys.jump_edge = false;
            r.prev_world = current_world(&r.sim);
            prof.time(Stage::Sim, || r.sim.step(&input));
            r.sim.pose_observed(DT, &mut PoseTimer::new(prof));
            let events = r.events.observe_sim(&r.sim);
            r.audio.play_events(events);
            r.dust.emit_events(events);
            r.dust.update(DT);
        }
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
            // Render interpolation: the body drawn between the last two steps.
            let now_world = body.pipeline.world;
            let t = steps.alpha;
            let blended = lerp_translation(r.prev_world, now_world, t);
            draw_character(
                &mut r.frame,
                r.handles.character,
                &body.character,
                &body.pipeline,
                blended,
            );
            draw_contact_shadows(
                &mut r.frame,
                &body.character,
                &body.pipeline,
                blended,
                &r.sim.level,
            );
            r.dust.draw(&mut r.frame);
        }
        r.designer.ui(&r.window);
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
            r.overlay.paint(&r.renderer, &view, r.surface.size());
            let present_start = Instant::now();
            r.window.pre_present_notify();
            r.surface.present(&r.gpu, tex);
            r.overlay
                .profiler
                .add(Stage::Present, present_start.elapsed());
            self.frames += 1;
            if self.args.screenshot_at.contains(&self.frames) || self.quit_after_screenshot {
                // The swapchain cannot be read back portably: draw the same
                // frame into an offscreen target of the window's size.
                let size = r.surface.size();
                let target = OffscreenTarget::new(&r.renderer, size.0, size.1);
                r.renderer
                    .render(&mut r.frame, &camera, &light, target.view(), size)?;
                r.designer.paint(&r.renderer, target.view(), size);
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
        Ok(())
    }
}

/// The player's model-to-world transform after the last step.
fn current_world(sim: &Sim) -> Mat4 {
    sim.world
        .get::<&Body>(sim.player)
        .map(|b| b.pipeline.world)
        .unwrap_or(Mat4::IDENTITY)
}

/// `b`'s rotation with the translation interpolated from `a` to `b`.
fn lerp_translation(a: Mat4, b: Mat4, t: f32) -> Mat4 {
    let mut m = b;
    let ta = a.w_axis.truncate();
    let tb = b.w_axis.truncate();
    if (tb - ta).length() < 1.0 {
        m.w_axis = (ta + (tb - ta) * t.clamp(0.0, 1.0)).extend(1.0);
    }
    m
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
            if r.designer.on_event(&r.window, &event) {
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
            WindowEvent::KeyboardInput { event, .. } => self.app.key(&event, el),
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
    crate::level::shipped::LevelSource::resolve(&args.level)?;
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
        keys: Keys::default(),
        pads: Pads::new(),
        pacer: FramePacer::new(TARGET_FPS),
        frames: 0,
        quit_after_screenshot: false,
        error: None,
    };
    let mut handler = Handler {
        app,
        scripted: script.as_ref().map(Script::player),
    };
    event_loop
        .run_app(&mut handler)
        .context("running the window's event loop")?;
    match handler.app.error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
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
    fn render_interpolation_moves_only_the_translation_and_skips_teleports() {
        let a = Mat4::from_translation(Vec3::new(0.0, 0.0, 0.0));
        let b = Mat4::from_rotation_translation(
            glam::Quat::from_rotation_y(1.0),
            Vec3::new(0.2, 0.1, 0.0),
        );
        let m = lerp_translation(a, b, 0.5);
        assert!((m.w_axis.truncate() - Vec3::new(0.1, 0.05, 0.0)).length() < 1e-6);
        assert_eq!(m.x_axis, b.x_axis);
        let far = Mat4::from_translation(Vec3::new(50.0, 0.0, 0.0));
        assert_eq!(lerp_translation(a, far, 0.5), far);
    }
}
