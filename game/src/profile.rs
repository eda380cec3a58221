//! Our own small profiler: named CPU stages of a frame, a fixed ring of the
//! last [`HISTORY`] frames with percentiles, a Chrome Trace Event recorder,
//! and a counting global allocator's counters.
//!
//! Nothing here allocates per frame: the history is fixed arrays allocated
//! once, percentiles are taken in a fixed scratch array, and the trace
//! recorder's buffer is reserved up front (events past its capacity are
//! counted and dropped, never grown into).
//!
//! The counting allocator counts per thread ([`thread_allocations`]) and per
//! [`AllocationScope`] (summed over the threads that entered it): only the
//! threads doing the measured work count, so other threads of the process
//! (a test harness, other tests, driver workers) can never spoil a count.
//!
//! With the cargo feature `puffin`, every [`Scope`] is also a puffin scope,
//! served live by `puffin_http` (see `start_live_server`, built with the
//! feature); without it the scopes feed only this module. One backend per
//! build: the feature decides at compile time, there is no run-time switch.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::character::pose_pipeline::PoseStage;

/// The CPU stages of a frame, in frame order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Reading the keyboard, gamepad or script (bench: each knight's script).
    Input,
    /// Fixed simulation steps: controller and animation state machine.
    Sim,
    /// Clip sampling.
    Sample,
    /// Blending the layers.
    Blend,
    /// `local_to_model` and model placement.
    LocalToModel,
    /// Foot IK.
    FootIk,
    /// Ladder IK.
    LadderIk,
    /// The joint speed limit (and the holds it re-solves).
    Limit,
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
pub const STAGE_COUNT: usize = 14;

impl Stage {
    /// Every stage, in frame order.
    pub const ALL: [Stage; STAGE_COUNT] = [
        Stage::Input,
        Stage::Sim,
        Stage::Sample,
        Stage::Blend,
        Stage::LocalToModel,
        Stage::FootIk,
        Stage::LadderIk,
        Stage::Limit,
        Stage::Palette,
        Stage::Scene,
        Stage::Upload,
        Stage::Encode,
        Stage::Submit,
        Stage::Present,
    ];

    /// The pose stages (sample, blend, local to model, all IK, palette).
    pub const POSE: [Stage; 7] = [
        Stage::Sample,
        Stage::Blend,
        Stage::LocalToModel,
        Stage::FootIk,
        Stage::LadderIk,
        Stage::Limit,
        Stage::Palette,
    ];

    /// The stage's name in tables, traces and the overlay.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Input => "input",
            Stage::Sim => "sim",
            Stage::Sample => "sample",
            Stage::Blend => "blend",
            Stage::LocalToModel => "local_to_model",
            Stage::FootIk => "foot_ik",
            Stage::LadderIk => "ladder_ik",
            Stage::Limit => "joint_limit",
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
            PoseStage::LocalToModel => Stage::LocalToModel,
            PoseStage::FootIk => Stage::FootIk,
            PoseStage::LadderIk => Stage::LadderIk,
            PoseStage::Limit => Stage::Limit,
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

/// What a thread's allocations are counted as, set by [`count_allocations`].
///
/// Counting is per thread: only allocations made by a thread inside a
/// [`count_allocations`] guard are counted, each under that guard's scope.
/// Threads that never enter one (a test harness's own threads, a driver's
/// worker threads, a file watcher) are not counted, so a count cannot be
/// spoiled by work that merely happens at the same time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocationScope {
    /// Simulation and pose work: input, fixed steps, sampling, blending,
    /// IK and palettes.
    Pose,
    /// Rendering work: filling the renderer's frame, uploads, encoding,
    /// submission and presentation (what our code and wgpu do on the
    /// calling thread).
    Render,
}

/// How many [`AllocationScope`]s there are.
const SCOPES: usize = 2;

impl AllocationScope {
    fn index(self) -> usize {
        self as usize
    }
}

/// No scope: this thread's allocations are not counted.
const NOT_COUNTED: u8 = u8::MAX;

thread_local! {
    /// The scope this thread's allocations count for, or [`NOT_COUNTED`].
    /// A `const` cell of a plain byte: reading it never allocates and never
    /// needs a destructor, so the allocator may read it at any time, even
    /// while the thread is being torn down.
    static THREAD_SCOPE: std::cell::Cell<u8> = const { std::cell::Cell::new(NOT_COUNTED) };
    /// Allocations (and reallocations) made by this thread, scope or not.
    static THREAD_ALLOCATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Bytes this thread allocated minus bytes it freed.
    static THREAD_LIVE_BYTES: std::cell::Cell<i64> = const { std::cell::Cell::new(0) };
}

/// Allocations (and reallocations) per scope, summed over the threads that
/// counted for it.
static SCOPED_ALLOCATIONS: [AtomicU64; SCOPES] = [AtomicU64::new(0), AtomicU64::new(0)];
/// Bytes currently allocated by the whole process through
/// [`CountingAllocator`] (every thread: memory is shared).
static LIVE_BYTES: AtomicU64 = AtomicU64::new(0);
/// Set on the first allocation through [`CountingAllocator`].
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The scope the calling thread counts for, if any.
fn thread_scope() -> Option<usize> {
    THREAD_SCOPE
        .try_with(|s| s.get())
        .ok()
        .filter(|&s| s != NOT_COUNTED)
        .map(usize::from)
}

/// The system allocator, counting allocations per thread and scope (see
/// [`AllocationScope`]) and the process's live bytes. The `ironstep` binary
/// installs it as its global allocator, so the bench can report allocations
/// per frame and memory per character; the allocation tests install it too.
pub struct CountingAllocator;

impl CountingAllocator {
    fn note(&self, added: usize, removed: usize, counts_as_allocation: bool) {
        INSTALLED.store(true, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(added as u64, Ordering::Relaxed);
        LIVE_BYTES.fetch_sub(removed as u64, Ordering::Relaxed);
        let _ = THREAD_ALLOCATIONS.try_with(|c| c.set(c.get() + u64::from(counts_as_allocation)));
        let _ = THREAD_LIVE_BYTES.try_with(|c| c.set(c.get() + added as i64 - removed as i64));
        if counts_as_allocation && let Some(scope) = thread_scope() {
            SCOPED_ALLOCATIONS[scope].fetch_add(1, Ordering::Relaxed);
        }
    }
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.note(layout.size(), 0, true);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.note(layout.size(), 0, true);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.note(0, layout.size(), false);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.note(new_size, layout.size(), true);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// While alive, the calling thread's allocations count for a scope; dropping
/// it restores what the thread counted for before (guards nest).
#[must_use = "allocations are counted only while the guard lives"]
pub struct CountingGuard {
    previous: u8,
    /// The guard belongs to the thread that made it.
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for CountingGuard {
    fn drop(&mut self) {
        let previous = self.previous;
        let _ = THREAD_SCOPE.try_with(|s| s.set(previous));
    }
}

/// Counts the calling thread's allocations as `scope` until the returned
/// guard is dropped. Other threads are unaffected: each thread that does
/// measured work enters its own guard.
pub fn count_allocations(scope: AllocationScope) -> CountingGuard {
    let previous = THREAD_SCOPE
        .try_with(|s| s.replace(scope.index() as u8))
        .unwrap_or(NOT_COUNTED);
    CountingGuard {
        previous,
        _not_send: std::marker::PhantomData,
    }
}

/// Makes the calling thread count its allocations as `scope` (or stop
/// counting, with `None`) from now on, with no guard: for the threads of a
/// pool that does measured work for its whole life (the bench's pose
/// workers, set in the pool's start handler).
pub fn count_thread_as(scope: Option<AllocationScope>) {
    let value = scope.map_or(NOT_COUNTED, |s| s.index() as u8);
    let _ = THREAD_SCOPE.try_with(|s| s.set(value));
}

/// Allocations made so far by threads while they counted for `scope`, or
/// `None` when [`CountingAllocator`] is not the global allocator (e.g. in a
/// unit-test binary).
pub fn allocations(scope: AllocationScope) -> Option<u64> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| SCOPED_ALLOCATIONS[scope.index()].load(Ordering::Relaxed))
}

/// Allocations (and reallocations) made so far by the calling thread alone,
/// or `None` when [`CountingAllocator`] is not the global allocator. Tests
/// measure with this: neither the harness's threads nor other tests running
/// beside them can change it.
pub fn thread_allocations() -> Option<u64> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| THREAD_ALLOCATIONS.try_with(|c| c.get()).unwrap_or(0))
}

/// Bytes the calling thread has allocated minus bytes it has freed, or
/// `None` when not counted.
pub fn thread_live_bytes() -> Option<i64> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| THREAD_LIVE_BYTES.try_with(|c| c.get()).unwrap_or(0))
}

/// Bytes currently allocated by the whole process, or `None` when not
/// counted.
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
