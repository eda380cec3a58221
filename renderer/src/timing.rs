//! GPU pass timing with timestamp queries, read back one frame late so the
//! CPU never waits for it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Timestamps per frame: begin and end of the shadow pass and the main pass.
const TIMESTAMP_COUNT: u32 = 4;
/// Bytes of the resolved timestamps (one u64 each).
const TIMESTAMP_BYTES: u64 = TIMESTAMP_COUNT as u64 * 8;

/// GPU time of each pass of one frame, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassTimes {
    /// The sun's shadow-map pass.
    pub shadow_ms: f64,
    /// The main colour pass (world, skinned meshes, debug lines).
    pub main_ms: f64,
}

pub(crate) struct GpuTimer {
    query_set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    mapped: Arc<AtomicBool>,
    pending: bool,
    period_ns: f64,
    last: Option<PassTimes>,
}

impl GpuTimer {
    /// A timer, or `None` where the device lacks timestamp queries.
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let query_set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: TIMESTAMP_COUNT,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamp resolve"),
            size: TIMESTAMP_BYTES,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamp readback"),
            size: TIMESTAMP_BYTES,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Some(Self {
            query_set,
            resolve,
            readback,
            mapped: Arc::new(AtomicBool::new(false)),
            pending: false,
            period_ns: f64::from(queue.get_timestamp_period()),
            last: None,
        })
    }

    /// Whether this frame may write timestamps (the readback buffer is free).
    pub(crate) fn can_record(&self) -> bool {
        !self.pending
    }

    pub(crate) fn writes(&self, pass: u32) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(pass * 2),
            end_of_pass_write_index: Some(pass * 2 + 1),
        }
    }

    pub(crate) fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.query_set, 0..TIMESTAMP_COUNT, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, TIMESTAMP_BYTES);
    }

    /// Called after the submit that recorded timestamps.
    pub(crate) fn after_submit(&mut self) {
        let flag = self.mapped.clone();
        self.readback.map_async(wgpu::MapMode::Read, .., move |r| {
            if r.is_ok() {
                flag.store(true, Ordering::Release);
            }
        });
        self.pending = true;
    }

    /// Collects the times if the readback has completed (after a device poll).
    pub(crate) fn collect(&mut self) {
        if !self.pending || !self.mapped.load(Ordering::Acquire) {
            return;
        }
        if let Ok(view) = self.readback.get_mapped_range(..) {
            let ticks: &[u64] = bytemuck::cast_slice(&view);
            let ms = |a: u64, b: u64| b.saturating_sub(a) as f64 * self.period_ns / 1.0e6;
            self.last = Some(PassTimes {
                shadow_ms: ms(ticks[0], ticks[1]),
                main_ms: ms(ticks[2], ticks[3]),
            });
        }
        self.readback.unmap();
        self.mapped.store(false, Ordering::Release);
        self.pending = false;
    }

    pub(crate) fn last(&self) -> Option<PassTimes> {
        self.last
    }
}
