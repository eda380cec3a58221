//! Window smoke test: opens a window, presents frames of the demo world with
//! bending tubes, checks that a zero-size (minimised) surface skips drawing,
//! requests a resize, saves a screenshot of its own content
//! (rendered to an offscreen texture, since swapchains cannot be read back
//! portably) and exits by itself.
//!
//! `cargo run -p renderer --example window_smoke -- [--frames N] [--screenshot PATH]`
//! (under Xvfb: `xvfb-run -a cargo run ...`).

use glam::{Mat4, Vec3};
use renderer::demo::{bend_palette, slopes_and_ladder_world, tube_mesh};
use renderer::{
    Camera, Frame, Gpu, Lighting, MaterialDesc, OffscreenTarget, Renderer, SkinnedMeshDesc,
    SkinnedMeshId, SurfaceTarget, WorldMeshId,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

/// Initial window size.
const INITIAL: (u32, u32) = (640, 360);
/// Size requested part-way through.
const RESIZED: (u32, u32) = (800, 450);
/// Give up (and fail) if the run takes longer than this.
const WATCHDOG: Duration = Duration::from_secs(60);

struct State {
    window: Arc<Window>,
    gpu: Gpu,
    surface: SurfaceTarget,
    renderer: Renderer,
    frame: Frame,
    tube: SkinnedMeshId,
    world: WorldMeshId,
}

struct App {
    frames_wanted: u32,
    screenshot: PathBuf,
    state: Option<State>,
    presented: u32,
    resize_seen: bool,
    minimize_checked: bool,
    started: Instant,
    result: Result<(), String>,
}

impl App {
    fn fail(&mut self, el: &ActiveEventLoop, msg: String) {
        self.result = Err(msg);
        el.exit();
    }

    fn init(&mut self, el: &ActiveEventLoop) -> Result<(), String> {
        let attrs = Window::default_attributes()
            .with_title("ironstep renderer smoke test")
            .with_inner_size(PhysicalSize::new(INITIAL.0, INITIAL.1));
        let window = Arc::new(el.create_window(attrs).map_err(|e| e.to_string())?);
        let size = window.inner_size();
        let (gpu, surface) = SurfaceTarget::create(
            Box::new(el.owned_display_handle()),
            window.clone(),
            (size.width, size.height),
        )
        .map_err(|e| e.to_string())?;
        let mut renderer = Renderer::new(gpu.clone(), surface.format());
        let (vertices, indices) = tube_mesh([1.0; 4]);
        let tube = renderer
            .upload_skinned_mesh(&SkinnedMeshDesc {
                label: "tube",
                vertices: &vertices,
                indices: &indices,
                joint_count: 2,
                material: MaterialDesc {
                    base_color: [0.8, 0.8, 0.85, 1.0],
                    texture: None,
                },
            })
            .map_err(|e| e.to_string())?;
        let (world_mesh, _) = slopes_and_ladder_world().map_err(|e| e.to_string())?;
        let world = renderer
            .upload_world_mesh(&world_mesh)
            .map_err(|e| e.to_string())?;
        window.request_redraw();
        self.state = Some(State {
            window,
            gpu,
            surface,
            renderer,
            frame: Frame::new(),
            tube,
            world,
        });
        Ok(())
    }

    fn fill_frame(state: &mut State, t: f32) -> (Camera, Lighting) {
        state.frame.clear();
        state.frame.draw_world(state.world);
        for i in 0..5 {
            let x = -5.0 + i as f32 * 0.9;
            let palette = bend_palette((t * 2.0 + i as f32).sin() * 0.8);
            state.frame.draw_skinned(
                state.tube,
                Mat4::from_translation(Vec3::new(x, 0.0, 0.0)),
                &palette,
            );
        }
        state.frame.line(
            Vec3::new(-6.0, 0.0, 0.0),
            Vec3::new(-3.0, 0.0, 0.0),
            [1.0, 1.0, 0.0, 1.0],
        );
        (
            Camera::side_view(Vec3::new(0.0, 1.0, 0.0), 11.0),
            Lighting::default(),
        )
    }

    fn redraw(&mut self, el: &ActiveEventLoop) -> Result<(), String> {
        let Some(state) = self.state.as_mut() else {
            return Ok(());
        };
        let t = self.presented as f32 / 60.0;
        let (cam, lighting) = Self::fill_frame(state, t);
        if let Some(tex) = state
            .surface
            .acquire(&state.gpu)
            .map_err(|e| e.to_string())?
        {
            let view = tex.texture.create_view(&Default::default());
            state
                .renderer
                .render(
                    &mut state.frame,
                    &cam,
                    &lighting,
                    &view,
                    state.surface.size(),
                )
                .map_err(|e| e.to_string())?;
            state.window.pre_present_notify();
            state.surface.present(&state.gpu, tex);
            self.presented += 1;
        }
        if self.presented >= self.frames_wanted / 4 && !self.minimize_checked {
            // A minimised window reports a zero size (X11 cannot make one, so
            // the size is given directly): no frame is handed out, no crash,
            // and drawing resumes at the old size.
            let size = state.surface.size();
            state.surface.resize(&state.gpu, (0, 0));
            let frame = state
                .surface
                .acquire(&state.gpu)
                .map_err(|e| e.to_string())?;
            if frame.is_some() || !state.surface.is_minimized() {
                return Err("a zero-size (minimised) surface still handed out a frame".into());
            }
            state.surface.resize(&state.gpu, size);
            self.minimize_checked = true;
            println!("window_smoke: zero-size (minimised) surface skipped drawing");
        }
        if self.presented == self.frames_wanted / 2 && !self.resize_seen {
            let _ = state
                .window
                .request_inner_size(PhysicalSize::new(RESIZED.0, RESIZED.1));
        }
        if self.presented >= self.frames_wanted && self.resize_seen && self.minimize_checked {
            let size = state.surface.size();
            let target = OffscreenTarget::new(&state.renderer, size.0, size.1);
            let (cam, lighting) = Self::fill_frame(state, t);
            state
                .renderer
                .render(&mut state.frame, &cam, &lighting, target.view(), size)
                .map_err(|e| e.to_string())?;
            target
                .save_png(&mut state.renderer, &self.screenshot)
                .map_err(|e| e.to_string())?;
            println!(
                "window_smoke: presented {} frames, resized to {}x{}, screenshot {}, adapter {}",
                self.presented,
                size.0,
                size.1,
                self.screenshot.display(),
                state.gpu.describe()
            );
            el.exit();
            return Ok(());
        }
        state.window.request_redraw();
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.state.is_none()
            && let Err(e) = self.init(el)
        {
            self.fail(el, e);
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if self.started.elapsed() > WATCHDOG {
            let msg = format!(
                "watchdog: {} frames presented, resize seen: {}",
                self.presented, self.resize_seen
            );
            self.fail(el, msg);
            return;
        }
        match event {
            WindowEvent::CloseRequested => el.exit(),
            WindowEvent::Resized(size) => {
                if let Some(state) = self.state.as_mut() {
                    state.surface.resize(&state.gpu, (size.width, size.height));
                    if (size.width, size.height) == RESIZED {
                        self.resize_seen = true;
                    }
                    state.window.request_redraw();
                }
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.redraw(el) {
                    self.fail(el, e);
                }
            }
            _ => {}
        }
    }
}

fn main() -> ExitCode {
    let mut frames_wanted = 90;
    let mut screenshot = PathBuf::from("window_smoke.png");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--frames", Some(n)) => match n.parse() {
                Ok(n) => frames_wanted = n,
                Err(_) => {
                    eprintln!("window_smoke: --frames needs a number, got `{n}`");
                    return ExitCode::FAILURE;
                }
            },
            ("--screenshot", Some(p)) => screenshot = PathBuf::from(p),
            _ => {
                eprintln!("usage: window_smoke [--frames N] [--screenshot PATH]");
                return ExitCode::FAILURE;
            }
        }
    }
    let event_loop = match EventLoop::new() {
        Ok(el) => el,
        Err(e) => {
            eprintln!(
                "window_smoke: cannot open a display ({e}); run it under Xvfb: \
                 `xvfb-run -a cargo run -p renderer --example window_smoke`"
            );
            return ExitCode::FAILURE;
        }
    };
    let mut app = App {
        frames_wanted: frames_wanted.max(2),
        screenshot,
        state: None,
        presented: 0,
        resize_seen: false,
        minimize_checked: false,
        started: Instant::now(),
        result: Ok(()),
    };
    if let Err(e) = event_loop.run_app(&mut app) {
        eprintln!("window_smoke: event loop failed: {e}");
        return ExitCode::FAILURE;
    }
    match app.result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("window_smoke: {e}");
            ExitCode::FAILURE
        }
    }
}
