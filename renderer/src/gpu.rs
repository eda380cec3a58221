//! Instance, adapter, device and queue: headless or for a window.

use std::sync::{Arc, Mutex};

use crate::RenderError;

/// What the device reported outside any call: its loss, and the first GPU
/// error no one captured. wgpu's default for the latter is to panic; we keep
/// it and return it from the next frame instead.
#[derive(Debug, Default)]
struct Health {
    lost: Mutex<Option<String>>,
    error: Mutex<Option<String>>,
}

/// The GPU context the renderer draws with.
#[derive(Clone, Debug)]
pub struct Gpu {
    /// The wgpu instance (needed to recreate a lost surface).
    pub instance: wgpu::Instance,
    /// The chosen adapter.
    pub adapter: wgpu::Adapter,
    /// The logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    health: Arc<Health>,
}

impl Gpu {
    /// Opens the default adapter with no window (offscreen rendering).
    pub fn headless() -> Result<Self, RenderError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        Self::from_instance(instance, None)
    }

    /// Opens an adapter able to present to `surface`, created from `instance`.
    pub fn for_surface(
        instance: wgpu::Instance,
        surface: &wgpu::Surface<'_>,
    ) -> Result<Self, RenderError> {
        Self::from_instance(instance, Some(surface))
    }

    fn from_instance(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self, RenderError> {
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: surface,
            apply_limit_buckets: false,
        }))
        .map_err(|e| RenderError::NoAdapter(e.to_string()))?;
        // Timestamps are optional: pass times are reported only where supported.
        let wanted = wgpu::Features::TIMESTAMP_QUERY;
        let required_features = adapter.features() & wanted;
        let required_limits = wgpu::Limits::default().using_resolution(adapter.limits());
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("ironstep"),
            required_features,
            required_limits,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| RenderError::Device(e.to_string()))?;
        let health = Arc::new(Health::default());
        let h = health.clone();
        device.set_device_lost_callback(move |reason, message| {
            let mut lost = h.lost.lock().unwrap_or_else(|p| p.into_inner());
            lost.get_or_insert(format!("{reason:?}: {message}"));
        });
        let h = health.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut error = h.error.lock().unwrap_or_else(|p| p.into_inner());
            error.get_or_insert(e.to_string());
        }));
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            health,
        })
    }

    /// `Err` once the device is lost (driver reset, GPU removed, destroyed)
    /// or after a GPU error no call captured; the renderer checks it before
    /// and after each frame, so such failures surface as errors with their
    /// reason instead of panics or silently black frames.
    pub fn check(&self) -> Result<(), RenderError> {
        if let Some(reason) = self
            .health
            .lost
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            return Err(RenderError::DeviceLost(reason));
        }
        if let Some(error) = self
            .health
            .error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            return Err(RenderError::Gpu(error));
        }
        Ok(())
    }

    /// A one-line description of the adapter, e.g. `llvmpipe (Vulkan, Cpu)`.
    pub fn describe(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
    }
}
