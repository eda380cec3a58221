//! egui glue for our winit windows and wgpu renderer, shared by every tool
//! window (the IK lab today; designer mode and profiling overlays later).
//!
//! A frame with UI goes: feed each winit event to [`EguiLayer::on_window_event`]
//! (it says whether egui consumed it, so the game ignores clicks on panels) →
//! [`EguiLayer::run`] with the UI closure → let the renderer draw the 3D scene
//! → [`EguiLayer::paint`] onto the same texture view. Painting loads what the
//! 3D pass drew (never clears) and egui-wgpu picks its sRGB-correct shader from
//! the target's format, so panels look the same on sRGB and linear targets.
//!
//! The painting half, [`EguiPainter`], needs no window: headless screenshots
//! and tests paint the same UI output into an offscreen texture.

use egui::{ClippedPrimitive, TexturesDelta};
use renderer::wgpu;
use winit::event::WindowEvent;
use winit::window::Window;

/// Tessellated UI of one frame, waiting to be painted.
struct Prepared {
    primitives: Vec<ClippedPrimitive>,
    textures: TexturesDelta,
    pixels_per_point: f32,
}

/// Paints egui output with wgpu onto a texture view, after the 3D pass.
pub struct EguiPainter {
    renderer: egui_wgpu::Renderer,
    prepared: Option<Prepared>,
}

impl EguiPainter {
    /// A painter for targets of `format` (the renderer's colour format).
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        Self {
            renderer: egui_wgpu::Renderer::new(
                device,
                format,
                egui_wgpu::RendererOptions::default(),
            ),
            prepared: None,
        }
    }

    /// Tessellates a finished egui frame and keeps it for [`EguiPainter::paint`].
    pub fn prepare(&mut self, ctx: &egui::Context, output: egui::FullOutput) {
        let primitives = ctx.tessellate(output.shapes, output.pixels_per_point);
        // Texture updates not yet painted (a frame skipped) must not be lost.
        let mut textures = self.prepared.take().map(|p| p.textures).unwrap_or_default();
        textures.append(output.textures_delta);
        self.prepared = Some(Prepared {
            primitives,
            textures,
            pixels_per_point: output.pixels_per_point,
        });
    }

    /// Whether a prepared frame is waiting to be painted.
    pub fn has_prepared(&self) -> bool {
        self.prepared.is_some()
    }

    /// Paints the prepared UI over `view` (a `size` texture of the painter's
    /// format), loading its content. The same prepared UI may be painted
    /// again (e.g. into a screenshot target); texture uploads happen once.
    pub fn paint(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        view: &wgpu::TextureView,
        size: (u32, u32),
    ) {
        let Some(prepared) = self.prepared.as_mut() else {
            return;
        };
        if size.0 == 0 || size.1 == 0 {
            return;
        }
        for (id, deltas) in &prepared.textures.set {
            for delta in deltas {
                self.renderer.update_texture(device, queue, *id, delta);
            }
        }
        prepared.textures.set.clear();
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [size.0, size.1],
            pixels_per_point: prepared.pixels_per_point,
        };
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("egui"),
        });
        let extra = self.renderer.update_buffers(
            device,
            queue,
            &mut encoder,
            &prepared.primitives,
            &screen,
        );
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("egui pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        // The 3D scene is already there: draw over it.
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            let mut pass = pass.forget_lifetime();
            self.renderer
                .render(&mut pass, &prepared.primitives, &screen);
        }
        queue.submit(extra.into_iter().chain([encoder.finish()]));
        for id in prepared.textures.free.drain() {
            self.renderer.free_texture(&id);
        }
    }
}

/// egui for one winit window: input, the UI closure, and painting.
pub struct EguiLayer {
    ctx: egui::Context,
    state: egui_winit::State,
    painter: EguiPainter,
}

impl EguiLayer {
    /// egui for `window`, painting onto targets of `format`.
    pub fn new(window: &Window, device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let ctx = egui::Context::default();
        let max_side = device.limits().max_texture_dimension_2d as usize;
        let state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            None,
            Some(max_side),
        );
        Self {
            ctx,
            state,
            painter: EguiPainter::new(device, format),
        }
    }

    /// The egui context (e.g. to ask whether the pointer is over a panel).
    pub fn context(&self) -> &egui::Context {
        &self.ctx
    }

    /// Feeds a window event to egui. Returns true when egui consumed it (a
    /// click on a panel, typing in a field): the caller should then ignore it.
    pub fn on_window_event(&mut self, window: &Window, event: &WindowEvent) -> bool {
        self.state.on_window_event(window, event).consumed
    }

    /// Whether the pointer is over egui or dragging one of its widgets.
    pub fn wants_pointer(&self) -> bool {
        self.ctx.egui_wants_pointer_input() || self.ctx.is_pointer_over_egui()
    }

    /// Runs one UI frame with `ui` and prepares it for painting.
    pub fn run(&mut self, window: &Window, ui: impl FnMut(&mut egui::Ui)) {
        let input = self.state.take_egui_input(window);
        let output = self.ctx.run_ui(input, ui);
        self.state
            .handle_platform_output(window, output.platform_output.clone());
        self.painter.prepare(&self.ctx, output);
    }

    /// Paints the last prepared UI over `view`; see [`EguiPainter::paint`].
    pub fn paint(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        view: &wgpu::TextureView,
        size: (u32, u32),
    ) {
        self.painter.paint(device, queue, view, size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use renderer::{OffscreenTarget, Renderer};

    /// Pixels of a target before and after painting the UI, and its size.
    struct Painted {
        before: Vec<u8>,
        after: Vec<u8>,
        size: (u32, u32),
    }

    /// Paints a UI with one opaque panel over a cleared target.
    fn paint_panel() -> Painted {
        let mut renderer =
            Renderer::headless().expect("a wgpu adapter (install mesa-vulkan-drivers)");
        let target = OffscreenTarget::new(&renderer, 200, 100);
        // Clear the target to a known colour by rendering an empty frame.
        let mut frame = renderer::Frame::new();
        let camera = renderer::Camera::side_view(glam::Vec3::ZERO, 5.0);
        let light = renderer::Lighting {
            clear_color: glam::Vec3::ZERO,
            shadow: None,
            ..Default::default()
        };
        renderer
            .render(&mut frame, &camera, &light, target.view(), target.size())
            .unwrap();
        let before = target.read_rgba(&mut renderer).unwrap();
        let ctx = egui::Context::default();
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(200.0, 100.0),
            )),
            ..Default::default()
        };
        let output = ctx.run_ui(input, |ui| {
            egui::Panel::left("test panel")
                .exact_size(100.0)
                .frame(egui::Frame::NONE.fill(egui::Color32::from_rgb(255, 255, 255)))
                .show(ui, |ui| {
                    ui.label("IK");
                });
        });
        let mut painter = EguiPainter::new(renderer.device(), renderer.color_format());
        painter.prepare(&ctx, output);
        painter.paint(
            renderer.device(),
            renderer.queue(),
            target.view(),
            target.size(),
        );
        let after = target.read_rgba(&mut renderer).unwrap();
        Painted {
            before,
            after,
            size: target.size(),
        }
    }

    #[test]
    fn panel_paints_over_the_scene_and_keeps_the_rest() {
        let Painted {
            before,
            after,
            size: (w, h),
        } = paint_panel();
        let px = |img: &[u8], x: u32, y: u32| {
            let i = ((y * w + x) * 4) as usize;
            [img[i], img[i + 1], img[i + 2]]
        };
        // Left half: the white panel, painted sRGB-correct (255 stays 255).
        let p = px(&after, 20, h / 2);
        assert!(p.iter().all(|&c| c >= 250), "panel pixel {p:?}");
        // Right half: the 3D pass's picture, loaded, not cleared.
        assert_eq!(px(&after, w - 20, h / 2), px(&before, w - 20, h / 2));
        assert_ne!(px(&before, 20, h / 2), p);
    }
}
