//! Our own small profiler: named CPU stages of a frame, a fixed ring of the
//! last [`HISTORY`] frames with percentiles, a Chrome Trace Event recorder,
//! and a counting global allocator's counters.
//!
//! Nothing here allocates per frame: the history is fixed arrays allocated
//! once, percentiles are taken in a fixed scratch array, and the trace
//! recorder's buffer is reserved up front (events past its capacity are
//! counted and dropped, never grown into).
//!
//! With the cargo feature `puffin`, every [`Scope`] is also a puffin scope,
//! served live by `puffin_http` (see [`start_live_server`]); without it the
//! scopes feed only this module. One backend per build: the feature decides
//! at compile time, there is no run-time switch.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::pose_pipeline::PoseStage;

/// The CPU stages of a frame, in frame order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Reading the keyboard, gamepad or script (bench: each knight's script).
    Input,
    /// Fixed simulation steps: controller and animation state machine.
    Sim,
    /// Clip sampling.
    Sample,
    /// Blending, `local_to_model` and model placement.
    Blend,
    /// Foot IK.
    FootIk,
    /// Ladder IK.
    LadderIk,
    /// Skinning palettes.
    Palette,
    /// Filling the renderer's frame (copying palettes, camera, lights).
    Scene,
    /// The renderer's buffer writes (globals, palettes, instances, lines).
    Upload,
    /// Recording the shadow and main passes.
    Encode,
    /// `queue.submit`.
    Submit,
    /// Presenting and waiting (window: present and the frame pacer; headless:
    /// waiting for the GPU to finish the frame).
    Present,
}

/// Number of [`Stage`]s.
pub const STAGE_COUNT: usize = 12;

impl Stage {
    /// Every stage, in frame order.
    pub const ALL: [Stage; STAGE_COUNT] = [
        Stage::Input,
        Stage::Sim,
        Stage::Sample,
        Stage::Blend,
        Stage::FootIk,
        Stage::LadderIk,
        Stage::Palette,
        Stage::Scene,
        Stage::Upload,
        Stage::Encode,
        Stage::Submit,
        Stage::Present,
    ];

    /// The pose stages (sample + blend + all IK + palette).
    pub const POSE: [Stage; 5] = [
        Stage::Sample,
        Stage::Blend,
        Stage::FootIk,
        Stage::LadderIk,
        Stage::Palette,
    ];

    /// The stage's name in tables, traces and the overlay.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Input => "input",
            Stage::Sim => "sim",
            Stage::Sample => "sample",
            Stage::Blend => "blend",
            Stage::FootIk => "foot_ik",
            Stage::LadderIk => "ladder_ik",
            Stage::Palette => "palette",
            Stage::Scene => "scene",
            Stage::Upload => "upload",
            Stage::Encode => "encode",
            Stage::Submit => "submit",
            Stage::Present => "present_wait",
        }
    }

    /// The stage's index in [`Stage::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The profiler stage of a pose pipeline stage.
    pub fn of_pose(stage: PoseStage) -> Stage {
        match stage {
            PoseStage::Sample => Stage::Sample,
            PoseStage::Blend => Stage::Blend,
            PoseStage::FootIk => Stage::FootIk,
            PoseStage::LadderIk => Stage::LadderIk,
            PoseStage::Palette => Stage::Palette,
        }
    }
}

/// Frames of history kept: about 8 seconds at 60 Hz, enough for the
/// overlay's graph and stable percentiles, and 60 KiB of ring buffers.
pub const HISTORY: usize = 512;

/// Percentiles of a series.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
}

/// Nearest-rank percentiles of `values`, sorted in place.
pub fn percentiles(values: &mut [f64]) -> Percentiles {
    if values.is_empty() {
        return Percentiles::default();
    }
    values.sort_unstable_by(f64::total_cmp);
    let at = |q: f64| {
        let rank = (q * values.len() as f64).ceil() as usize;
        values[rank.clamp(1, values.len()) - 1]
    };
    Percentiles {
        p50: at(0.50),
        p95: at(0.95),
        p99: at(0.99),
    }
}

/// The last [`HISTORY`] frames: per-stage CPU time, frame time, GPU time.
pub struct FrameProfiler {
    current: [Duration; STAGE_COUNT],
    stages: Box<[[f32; HISTORY]; STAGE_COUNT]>,
    frames: Box<[f32; HISTORY]>,
    gpu: Box<[f32; HISTORY]>,
    head: usize,
    len: usize,
    frame_start: Instant,
}

impl Default for FrameProfiler {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameProfiler {
    /// An empty profiler (allocates its fixed rings once).
    pub fn new() -> Self {
        Self {
            current: [Duration::ZERO; STAGE_COUNT],
            stages: Box::new([[0.0; HISTORY]; STAGE_COUNT]),
            frames: Box::new([0.0; HISTORY]),
            gpu: Box::new([f32::NAN; HISTORY]),
            head: 0,
            len: 0,
            frame_start: Instant::now(),
        }
    }

    /// Adds `d` to `stage` in the current frame (a stage may run several
    /// times a frame, e.g. one simulation step after another).
    pub fn add(&mut self, stage: Stage, d: Duration) {
        self.current[stage.index()] += d;
    }

    /// Times `f` as `stage`.
    pub fn time<R>(&mut self, stage: Stage, f: impl FnOnce() -> R) -> R {
        let _scope = Scope::new(stage);
        let t = Instant::now();
        let r = f();
        self.add(stage, t.elapsed());
        r
    }

    /// Ends the current frame (its time runs from the previous call) with
    /// the GPU time of the latest frame whose timestamps arrived, if any.
    pub fn end_frame(&mut self, gpu_ms: Option<f64>) {
        let now = Instant::now();
        let frame = now - self.frame_start;
        self.frame_start = now;
        for (ring, cur) in self.stages.iter_mut().zip(&mut self.current) {
            ring[self.head] = cur.as_secs_f32() * 1e6;
            *cur = Duration::ZERO;
        }
        self.frames[self.head] = frame.as_secs_f32() * 1e3;
        self.gpu[self.head] = gpu_ms.map_or(f32::NAN, |g| g as f32);
        self.head = (self.head + 1) % HISTORY;
        self.len = (self.len + 1).min(HISTORY);
        #[cfg(feature = "puffin")]
        puffin::GlobalProfiler::lock().new_frame();
    }

    /// Frames recorded (at most [`HISTORY`]).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no frame has been recorded.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Frame times in milliseconds, oldest first.
    pub fn frame_ms(&self) -> impl Iterator<Item = f32> + '_ {
        let start = (self.head + HISTORY - self.len) % HISTORY;
        (0..self.len).map(move |i| self.frames[(start + i) % HISTORY])
    }

    /// Percentiles of the values `pick(i)` of the recorded frames (NaN skipped).
    fn series(&self, pick: impl Fn(usize) -> f32) -> Percentiles {
        // A stack array: taking percentiles allocates nothing.
        let mut scratch = [0.0f64; HISTORY];
        let mut n = 0;
        for i in 0..self.len {
            let v = pick(i);
            if v.is_finite() {
                scratch[n] = f64::from(v);
                n += 1;
            }
        }
        percentiles(&mut scratch[..n])
    }

    /// Frame time percentiles, milliseconds.
    pub fn frame_percentiles(&self) -> Percentiles {
        self.series(|i| self.frames[i])
    }

    /// GPU time percentiles, milliseconds (all zero when none arrived).
    pub fn gpu_percentiles(&self) -> Percentiles {
        self.series(|i| self.gpu[i])
    }

    /// A stage's CPU time percentiles, microseconds per frame.
    pub fn stage_percentiles(&self, stage: Stage) -> Percentiles {
        let ring = &self.stages[stage.index()];
        self.series(|i| ring[i])
    }

    /// Frames per second from the median frame time.
    pub fn fps(&self) -> f64 {
        let p50 = self.frame_percentiles().p50;
        if p50 > 0.0 { 1000.0 / p50 } else { 0.0 }
    }
}

/// A timed region: with the `puffin` feature also a live puffin scope.
/// Without it, a zero-sized marker (our own timing is done by the caller).
pub struct Scope {
    #[cfg(feature = "puffin")]
    _puffin: Option<puffin::ProfilerScope>,
}

impl Scope {
    /// Opens the scope of `stage` on this thread until dropped.
    #[inline]
    pub fn new(stage: Stage) -> Self {
        #[cfg(feature = "puffin")]
        {
            Self {
                _puffin: puffin_scope(stage),
            }
        }
        #[cfg(not(feature = "puffin"))]
        {
            let _ = stage;
            Self {}
        }
    }
}

#[cfg(feature = "puffin")]
fn puffin_scope(stage: Stage) -> Option<puffin::ProfilerScope> {
    use std::sync::OnceLock;
    static IDS: OnceLock<Vec<puffin::ScopeId>> = OnceLock::new();
    if !puffin::are_scopes_on() {
        return None;
    }
    let ids = IDS.get_or_init(|| {
        let details: Vec<_> = Stage::ALL
            .iter()
            .map(|s| {
                puffin::ScopeDetails::from_scope_name(s.name())
                    .with_file("game/src/profile.rs")
                    .with_function_name(s.name())
            })
            .collect();
        puffin::GlobalProfiler::lock().register_user_scopes(&details)
    });
    Some(puffin::ProfilerScope::new(ids[stage.index()], ""))
}

/// Where the puffin_http server listens (puffin's default port).
#[cfg(feature = "puffin")]
pub const PUFFIN_ADDR: &str = "127.0.0.1:8585";

/// Starts the puffin_http server on `addr` (e.g. `127.0.0.1:8585`) and
/// switches scopes on; keep the returned server alive while profiling.
#[cfg(feature = "puffin")]
pub fn start_live_server(addr: &str) -> anyhow::Result<puffin_http::Server> {
    puffin::set_scopes_on(true);
    puffin_http::Server::new(addr)
}

/// One complete event of a Chrome trace.
#[derive(Clone, Copy, Debug)]
pub struct TraceEvent {
    /// The event's name.
    pub name: &'static str,
    /// The row it is drawn on (0: main thread, 1..: pose workers, GPU row).
    pub tid: u32,
    /// Start, nanoseconds since the recorder's origin.
    pub start_ns: u64,
    /// Duration, nanoseconds.
    pub dur_ns: u64,
    /// The frame it belongs to.
    pub frame: u32,
}

/// Collects Chrome Trace Event "complete" events into a buffer reserved up
/// front. Events past the capacity are counted in `dropped`, not stored: a
/// long run with many characters would otherwise grow the buffer (and the
/// file) without bound.
pub struct TraceRecorder {
    origin: Instant,
    events: Vec<TraceEvent>,
    /// Events not stored because the buffer was full.
    pub dropped: u64,
}

/// Row of GPU pass events in a trace.
pub const GPU_TID: u32 = 1000;

impl TraceRecorder {
    /// A recorder holding at most `capacity` events.
    pub fn new(capacity: usize) -> Self {
        Self {
            origin: Instant::now(),
            events: Vec::with_capacity(capacity),
            dropped: 0,
        }
    }

    /// Nanoseconds from the origin to `t`.
    pub fn ns(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.origin).as_nanos() as u64
    }

    /// Records an event (dropped when full).
    pub fn push(&mut self, e: TraceEvent) {
        if self.events.len() < self.events.capacity() {
            self.events.push(e);
        } else {
            self.dropped += 1;
        }
    }

    /// The events recorded.
    pub fn events(&self) -> &[TraceEvent] {
        &self.events
    }

    /// The trace as Chrome Trace Event JSON (Perfetto, chrome://tracing):
    /// an object with `traceEvents` of "X" (complete) events, times in µs,
    /// plus thread-name metadata.
    pub fn to_json(&self, workers: usize) -> String {
        let mut out = String::with_capacity(self.events.len() * 110 + 1024);
        out.push_str("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !first {
                out.push_str(",\n");
            }
            first = false;
        };
        let mut name_row = |out: &mut String, tid: u32, name: &str| {
            sep(out);
            let _ = write!(
                out,
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":{tid},\"args\":{{\"name\":\"{name}\"}}}}"
            );
        };
        name_row(&mut out, 0, "main");
        for w in 0..workers {
            name_row(&mut out, w as u32 + 1, &format!("pose worker {w}"));
        }
        name_row(&mut out, GPU_TID, "GPU (placed after submit)");
        for e in &self.events {
            sep(&mut out);
            let _ = write!(
                out,
                "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":1,\"tid\":{},\"ts\":{:.3},\"dur\":{:.3},\"args\":{{\"frame\":{}}}}}",
                e.name,
                if e.tid == GPU_TID { "gpu" } else { "cpu" },
                e.tid,
                e.start_ns as f64 / 1e3,
                e.dur_ns as f64 / 1e3,
                e.frame
            );
        }
        out.push_str("\n]}\n");
        out
    }
}

/// Allocations counted by [`CountingAllocator`].
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
/// Bytes currently allocated through [`CountingAllocator`].
static LIVE_BYTES: AtomicU64 = AtomicU64::new(0);
/// Set on the first allocation through [`CountingAllocator`].
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The system allocator, counting allocations and live bytes. The
/// `ironstep` binary installs it as its global allocator, so the bench can
/// report allocations per frame and memory per character.
pub struct CountingAllocator;

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        INSTALLED.store(true, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as u64, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        LIVE_BYTES.fetch_sub(layout.size() as u64, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations so far, or `None` when [`CountingAllocator`] is not the
/// global allocator (e.g. in a test binary).
pub fn allocations() -> Option<u64> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| ALLOCATIONS.load(Ordering::Relaxed))
}

/// Bytes currently allocated, or `None` when not counted.
pub fn live_bytes() -> Option<u64> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| LIVE_BYTES.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let p = percentiles(&mut v);
        assert_eq!((p.p50, p.p95, p.p99), (50.0, 95.0, 99.0));
        assert_eq!(percentiles(&mut []), Percentiles::default());
    }

    #[test]
    fn ring_keeps_the_last_frames() {
        let mut p = FrameProfiler::new();
        for i in 0..HISTORY + 10 {
            p.add(Stage::Sim, Duration::from_micros(i as u64));
            p.end_frame(None);
        }
        assert_eq!(p.len(), HISTORY);
        let sim = p.stage_percentiles(Stage::Sim);
        assert!(sim.p50 >= 10.0 + HISTORY as f64 / 2.0 - 1.0, "{sim:?}");
        assert_eq!(p.frame_ms().count(), HISTORY);
    }
}
