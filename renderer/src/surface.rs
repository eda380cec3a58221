//! A window's swapchain: configuration, resize, zero size (minimised) and
//! recovery from Lost/Outdated surfaces without crashing.

use crate::{Gpu, RenderError};
use std::sync::Arc;

/// Frames the swapchain may queue: 2 keeps latency low while letting the CPU
/// encode the next frame during presentation.
const MAX_FRAME_LATENCY: u32 = 2;

/// A window the renderer can present to (a winit `Window` in an `Arc` is one).
pub trait PresentableWindow: wgpu::WindowHandle + wgpu::rwh::HasDisplayHandle {}
impl<T: wgpu::WindowHandle + wgpu::rwh::HasDisplayHandle> PresentableWindow for T {}

/// A window surface the renderer presents to.
pub struct SurfaceTarget {
    window: Arc<dyn PresentableWindow>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    configured: bool,
    /// The last frame was Suboptimal: reconfigure before the next acquire
    /// (wgpu forbids reconfiguring while a frame is held).
    stale: bool,
}

impl SurfaceTarget {
    /// Creates the instance, surface, adapter and device for `window`.
    /// `display` is the event loop's owned display handle.
    pub fn create(
        display: Box<dyn wgpu::wgt::WgpuHasDisplayHandle>,
        window: Arc<dyn PresentableWindow>,
        size: (u32, u32),
    ) -> Result<(Gpu, Self), RenderError> {
        let instance = wgpu::Instance::new(
            wgpu::InstanceDescriptor::new_with_display_handle_from_env(display),
        );
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| RenderError::Surface(e.to_string()))?;
        let gpu = Gpu::for_surface(instance, &surface)?;
        let caps = surface.get_capabilities(&gpu.adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(wgpu::TextureFormat::is_srgb)
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| {
                RenderError::Surface("the adapter cannot present to this window".into())
            })?;
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            color_space: Default::default(),
            width: size.0,
            height: size.1,
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: MAX_FRAME_LATENCY,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
        };
        let mut target = Self {
            window,
            surface,
            config,
            configured: false,
            stale: false,
        };
        target.resize(&gpu, size);
        Ok((gpu, target))
    }

    /// The swapchain's colour format (create the [`crate::Renderer`] with it).
    pub fn format(&self) -> wgpu::TextureFormat {
        self.config.format
    }

    /// The configured size.
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Whether the window has zero size (minimised): nothing is drawn.
    pub fn is_minimized(&self) -> bool {
        !self.configured
    }

    /// Reconfigures for a new window size; a zero size pauses drawing.
    pub fn resize(&mut self, gpu: &Gpu, size: (u32, u32)) {
        if size.0 == 0 || size.1 == 0 {
            self.configured = false;
            return;
        }
        self.config.width = size.0;
        self.config.height = size.1;
        self.surface.configure(&gpu.device, &self.config);
        self.configured = true;
    }

    /// The next frame to draw into, or `None` when this frame must be skipped
    /// (minimised, timeout, occluded, or the surface was just reconfigured or
    /// recreated after Outdated/Lost).
    pub fn acquire(&mut self, gpu: &Gpu) -> Result<Option<wgpu::SurfaceTexture>, RenderError> {
        if !self.configured {
            return Ok(None);
        }
        if self.stale {
            self.surface.configure(&gpu.device, &self.config);
            self.stale = false;
        }
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) => Ok(Some(t)),
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => {
                // Present this one; reconfigure before the next.
                self.stale = true;
                Ok(Some(t))
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                Ok(None)
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface.configure(&gpu.device, &self.config);
                Ok(None)
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.surface = gpu
                    .instance
                    .create_surface(self.window.clone())
                    .map_err(|e| RenderError::Surface(e.to_string()))?;
                self.surface.configure(&gpu.device, &self.config);
                Ok(None)
            }
            other => Err(RenderError::Surface(format!(
                "cannot acquire a frame: {other:?}"
            ))),
        }
    }

    /// Presents an acquired frame.
    pub fn present(&self, gpu: &Gpu, frame: wgpu::SurfaceTexture) {
        gpu.queue.present(frame);
    }
}
