//! The F3 profiling overlay of the game window: a frame-time graph of the
//! last [`HISTORY`] frames with 16.7 ms and 33.3 ms lines, FPS and frame
//! time p50/p95/p99, the per-stage CPU breakdown and the GPU pass times from
//! the renderer's timestamp queries, drawn with egui ([`crate::window::ui`]).
//!
//! The profiler ([`FrameProfiler`]) runs every frame whether the overlay is
//! shown or not (it allocates nothing per frame); egui, which does allocate
//! while it lays out, runs only while the overlay is shown.

use std::time::Instant;

use renderer::{FrameStats, PassTimes, Renderer, wgpu};
use winit::event::WindowEvent;
use winit::window::Window;

use crate::character::pose_pipeline::{PoseStage, StageObserver};
use crate::profile::{FrameProfiler, HISTORY, Scope, Stage};
use crate::window::ui::EguiLayer;

/// Times the pose pipeline's stages into a [`FrameProfiler`].
pub struct PoseTimer<'a> {
    profiler: &'a mut FrameProfiler,
    start: Instant,
    scope: Option<Scope>,
}

impl<'a> PoseTimer<'a> {
    /// A timer adding to `profiler`.
    pub fn new(profiler: &'a mut FrameProfiler) -> Self {
        Self {
            profiler,
            start: Instant::now(),
            scope: None,
        }
    }
}

impl StageObserver for PoseTimer<'_> {
    fn enter(&mut self, stage: PoseStage) {
        self.scope = Some(Scope::new(Stage::of_pose(stage)));
        self.start = Instant::now();
    }

    fn exit(&mut self, stage: PoseStage) {
        self.profiler
            .add(Stage::of_pose(stage), self.start.elapsed());
        self.scope = None;
    }
}

/// The overlay: the profiler, the last GPU pass times, and egui.
pub struct ProfileOverlay {
    /// Whether the overlay is drawn (F3).
    pub visible: bool,
    /// The frame profiler the game loop feeds.
    pub profiler: FrameProfiler,
    /// The latest GPU pass times, if the adapter has timestamp queries.
    pub gpu: Option<PassTimes>,
    egui: EguiLayer,
}

/// Graph height, points; the graph's top is 50 ms.
const GRAPH_HEIGHT: f32 = 110.0;
/// Frame time at the graph's top, milliseconds.
const GRAPH_TOP_MS: f32 = 50.0;

impl ProfileOverlay {
    /// An overlay for `window`, painting onto targets of the renderer's format.
    pub fn new(window: &Window, renderer: &Renderer, visible: bool) -> Self {
        Self {
            visible,
            profiler: FrameProfiler::new(),
            gpu: None,
            egui: EguiLayer::new(window, renderer.device(), renderer.color_format()),
        }
    }

    /// Feeds a window event to egui while the overlay is shown.
    pub fn on_window_event(&mut self, window: &Window, event: &WindowEvent) {
        if self.visible {
            let _ = self.egui.on_window_event(window, event);
        }
    }

    /// Records the renderer's CPU split of a frame and the latest GPU times.
    pub fn record_render(&mut self, stats: &FrameStats, gpu: Option<PassTimes>) {
        self.profiler.add(Stage::Upload, stats.cpu_upload);
        self.profiler.add(Stage::Encode, stats.cpu_encode);
        self.profiler.add(Stage::Submit, stats.cpu_submit);
        if gpu.is_some() {
            self.gpu = gpu;
        }
    }

    /// Lays out this frame's overlay (call once per frame, before painting).
    pub fn prepare(&mut self, window: &Window) {
        if !self.visible {
            return;
        }
        let profiler = &self.profiler;
        let gpu = self.gpu;
        self.egui.run(window, |ui| {
            egui::Window::new("Profiler (F3)")
                .default_pos(egui::pos2(10.0, 10.0))
                .resizable(false)
                .show(ui.ctx(), |ui| draw(ui, profiler, gpu));
        });
    }

    /// Paints the prepared overlay over `view` (the frame's picture).
    pub fn paint(&mut self, renderer: &Renderer, view: &wgpu::TextureView, size: (u32, u32)) {
        if self.visible {
            self.egui
                .paint(renderer.device(), renderer.queue(), view, size);
        }
    }
}

fn draw(ui: &mut egui::Ui, p: &FrameProfiler, gpu: Option<PassTimes>) {
    let frame = p.frame_percentiles();
    ui.label(format!(
        "{:.1} FPS   frame p50 {:.2} ms  p95 {:.2} ms  p99 {:.2} ms",
        p.fps(),
        frame.p50,
        frame.p95,
        frame.p99
    ));
    let width = 360.0;
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, GRAPH_HEIGHT), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, egui::Color32::from_black_alpha(200));
    let y_of = |ms: f32| rect.bottom() - (ms / GRAPH_TOP_MS).clamp(0.0, 1.0) * rect.height();
    let bar = rect.width() / HISTORY as f32;
    let start = HISTORY - p.len();
    for (i, ms) in p.frame_ms().enumerate() {
        let x = rect.left() + (start + i) as f32 * bar;
        let color = if ms > 33.4 {
            egui::Color32::from_rgb(230, 60, 50)
        } else if ms > 16.8 {
            egui::Color32::from_rgb(230, 190, 40)
        } else {
            egui::Color32::from_rgb(80, 200, 90)
        };
        painter.line_segment(
            [egui::pos2(x, rect.bottom()), egui::pos2(x, y_of(ms))],
            egui::Stroke::new(bar.max(1.0), color),
        );
    }
    for (ms, label) in [(1000.0 / 60.0, "16.7 ms"), (1000.0 / 30.0, "33.3 ms")] {
        let y = y_of(ms);
        painter.line_segment(
            [egui::pos2(rect.left(), y), egui::pos2(rect.right(), y)],
            egui::Stroke::new(1.0, egui::Color32::from_gray(220)),
        );
        painter.text(
            egui::pos2(rect.left() + 3.0, y - 2.0),
            egui::Align2::LEFT_BOTTOM,
            label,
            egui::FontId::monospace(10.0),
            egui::Color32::from_gray(230),
        );
    }
    egui::Grid::new("stages").striped(true).show(ui, |ui| {
        for h in ["stage", "p50 µs", "p95 µs", "p99 µs"] {
            ui.strong(h);
        }
        ui.end_row();
        for stage in Stage::ALL {
            let s = p.stage_percentiles(stage);
            ui.monospace(stage.name());
            ui.monospace(format!("{:9.1}", s.p50));
            ui.monospace(format!("{:9.1}", s.p95));
            ui.monospace(format!("{:9.1}", s.p99));
            ui.end_row();
        }
        match gpu {
            Some(g) => {
                for (name, ms) in [("gpu shadow", g.shadow_ms), ("gpu main", g.main_ms)] {
                    ui.monospace(name);
                    ui.monospace(format!("{:9.1}", ms * 1e3));
                    ui.monospace("");
                    ui.monospace("");
                    ui.end_row();
                }
            }
            None => {
                ui.monospace("gpu");
                ui.monospace("n/a");
                ui.end_row();
            }
        }
    });
}
