//! `ironstep bench`: a deterministic scripted crowd ([`crate::character::crowd`]) posed
//! every frame and, unless `--no-render`, drawn headless; prints per-stage
//! CPU time (p50/p95/p99 over the measured frames) and GPU pass times, and
//! writes a JSON summary and a Chrome trace.
//!
//! ```text
//! ironstep bench --characters 1000 --frames 200 --threads 2 --no-render --json b.json
//! ironstep bench --characters 10 --frames 60 --trace t.json   # open in ui.perfetto.dev
//! ```
//!
//! Stage times of the pose stages (and input, sim) are CPU time summed over
//! the worker threads; `crowd_wall` is the wall time of the parallel
//! section. `cpu_frame` is the main thread's frame without the GPU wait
//! (input through submit); `present_wait` is the wait for the GPU.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use glam::Vec3;
use renderer::{Camera, Frame, OffscreenTarget, Renderer};
use serde::Serialize;

use crate::character::Character;
use crate::character::crowd::Crowd;
use crate::fsio::write_atomic;
use crate::profile::{
    self, AllocationScope, GPU_TID, Percentiles, STAGE_COUNT, Stage, TraceEvent, TraceRecorder,
    percentiles,
};
use crate::scene::{draw_character, draw_contact_shadows, draw_platforms, lighting, upload_scene};
use crate::tools::headless::{load_level, parse_size};

/// The most knights: 100,000 is ~0.5 GB of pose state (see BENCHMARKS.md)
/// and more than any level holds.
pub const MAX_CHARACTERS: usize = 100_000;
/// The most frames: the per-frame samples are kept in memory (about
/// 150 bytes a frame).
pub const MAX_FRAMES: usize = 100_000;
/// The most trace events kept: about 110 bytes each in the file, so a trace
/// stays under ~220 MB; further events are dropped and counted.
pub const MAX_TRACE_EVENTS: usize = 2_000_000;

/// Arguments of `ironstep bench`.
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Knights in the crowd.
    #[arg(long, default_value_t = 100)]
    pub characters: usize,
    /// Frames measured (after the warm-up).
    #[arg(long, default_value_t = 200)]
    pub frames: usize,
    /// Frames run before measuring (cursors and buffers reach their size).
    #[arg(long, default_value_t = 16)]
    pub warmup: usize,
    /// The level: `builtin` (the default), a shipped level (`tutorial`,
    /// `long`, `tower`), or a Tiled map (.tmx, .tmj or .json).
    #[arg(long, default_value = "builtin")]
    pub level: String,
    /// Seed of the knights' start places, directions and gaits.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Pose worker threads (a rayon pool of this size; 0: one per core).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Skip rendering: CPU work only.
    #[arg(long)]
    pub no_render: bool,
    /// Offscreen render size, WIDTHxHEIGHT.
    #[arg(long, default_value = "960x540", value_parser = parse_size)]
    pub render_size: (u32, u32),
    /// Write a JSON summary here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write a Chrome Trace Event JSON file here (Perfetto, chrome://tracing).
    #[arg(long)]
    pub trace: Option<PathBuf>,
}

/// Percentiles of one stage, µs per frame.
#[derive(Serialize, Debug, Clone)]
pub struct StageRow {
    /// Stage name.
    pub stage: String,
    /// Median, µs.
    pub p50_us: f64,
    /// 95th percentile, µs.
    pub p95_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
}

/// CPU µs per knight of each stage (median frame), in frame order.
#[derive(Serialize, Debug, Clone, Copy, Default)]
pub struct StagesPerCharacter {
    /// Input (the scripted brains) and one simulation step.
    pub sim: f64,
    /// Clip sampling.
    pub sample: f64,
    /// Blending the layers.
    pub blend: f64,
    /// `local_to_model` and model placement.
    pub local_to_model: f64,
    /// Foot IK.
    pub foot_ik: f64,
    /// Ladder IK.
    pub ladder_ik: f64,
    /// The joint speed limit.
    pub joint_limit: f64,
    /// Skinning palettes.
    pub palette: f64,
}

/// The `--json` document.
#[derive(Serialize, Debug)]
pub struct BenchReport {
    /// Knights.
    pub characters: usize,
    /// Frames measured.
    pub frames: usize,
    /// Warm-up frames.
    pub warmup: usize,
    /// Pose worker threads.
    pub threads: usize,
    /// Seed.
    pub seed: u64,
    /// Level.
    pub level: String,
    /// Whether frames were rendered, and at what size.
    pub rendered: Option<[u32; 2]>,
    /// Sample + blend + all IK + palette, CPU µs per knight (median frame).
    pub cpu_pose_us_per_character_p50: f64,
    /// The same for the 99th percentile frame.
    pub cpu_pose_us_per_character_p99: f64,
    /// Pose CPU time of all knights, ms (median frame; summed over threads).
    pub cpu_pose_ms_p50: f64,
    /// Wall time of the parallel crowd section (input, sim, pose), ms.
    pub crowd_wall_ms_p50: f64,
    /// Main-thread frame time without the GPU wait, ms (median).
    pub cpu_frame_ms_p50: f64,
    /// The same, 99th percentile.
    pub cpu_frame_ms_p99: f64,
    /// GPU time (shadow + main pass) from timestamp queries, ms; null when
    /// not rendered or unsupported.
    pub gpu_frame_ms_p50: Option<f64>,
    /// Allocations per measured frame, pose and render paths together (the
    /// sum of the next two; null when the counting allocator is not
    /// installed).
    pub allocations_per_frame_steady: Option<f64>,
    /// Allocations per measured frame on the pose path: the crowd's input,
    /// simulation and pose work on every pose worker thread.
    pub allocations_per_frame_pose: Option<f64>,
    /// Allocations per measured frame on the render path, on the thread
    /// that fills the frame and calls wgpu (0 when not rendered). The
    /// driver's own worker threads are not counted.
    pub allocations_per_frame_render: Option<f64>,
    /// Bytes allocated per knight by the crowd (simulation and pose state).
    pub memory_per_character_bytes: Option<f64>,
    /// FNV-1a of every knight's final palette and world transform.
    pub pose_checksum: String,
    /// Knights on a ladder / on the ground at the end.
    pub on_ladder: usize,
    /// Knights on the ground at the end.
    pub on_ground: usize,
    /// CPU µs per knight of the simulation step and of each pose stage
    /// (median frame of each stage over the knights; single-thread runs
    /// read best).
    pub stage_us_per_character: StagesPerCharacter,
    /// Per-stage CPU time, µs per frame.
    pub stages: Vec<StageRow>,
    /// Trace events dropped for the trace's size limit.
    pub trace_events_dropped: u64,
}

/// Per-frame samples.
#[derive(Default)]
struct Samples {
    stages: Vec<[f64; STAGE_COUNT]>,
    crowd_wall: Vec<f64>,
    cpu_frame: Vec<f64>,
    gpu: Vec<f64>,
}

/// The offscreen renderer of a bench.
struct View {
    renderer: Renderer,
    target: OffscreenTarget,
    frame: Frame,
    handles: crate::scene::SceneHandles,
    camera: Camera,
    center: Vec3,
}

impl View {
    fn new(crowd: &Crowd, size: (u32, u32)) -> Result<Self> {
        let mut renderer = Renderer::headless().context("starting the headless renderer")?;
        let handles = upload_scene(&mut renderer, crowd.level(), crowd.character())
            .context("uploading the scene")?;
        let target = OffscreenTarget::new(&renderer, size.0, size.1);
        let mut frame = Frame::new();
        frame.show_debug = false;
        // The whole level in view.
        let (x0, x1) = crowd.level().extent();
        let center = Vec3::new(0.5 * (x0 + x1), 1.0, 0.0);
        let camera = Camera::side_view(center, 0.75 * (x1 - x0));
        Ok(Self {
            renderer,
            target,
            frame,
            handles,
            camera,
            center,
        })
    }
}

/// Runs `ironstep bench`.
pub fn run(args: &BenchArgs) -> Result<()> {
    #[cfg(feature = "puffin")]
    let _puffin = profile::start_live_server(profile::PUFFIN_ADDR)?;
    let report = bench(args)?;
    print_table(&report);
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).context("encoding the report")?;
        write_atomic(path, json.as_bytes())
            .with_context(|| format!("{}: cannot write the report", path.display()))?;
    }
    Ok(())
}

/// Runs the benchmark and returns its report (writes the trace if asked).
pub fn bench(args: &BenchArgs) -> Result<BenchReport> {
    if args.characters == 0 || args.characters > MAX_CHARACTERS {
        bail!(
            "--characters {} must be from 1 to {MAX_CHARACTERS}",
            args.characters
        );
    }
    if args.frames == 0 || args.frames > MAX_FRAMES {
        bail!("--frames {} must be from 1 to {MAX_FRAMES}", args.frames);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .thread_name(|i| format!("pose-{i}"))
        // Every pose worker counts its allocations as the pose path; the
        // worker that renders counts as the render path while it does.
        .start_handler(|_| profile::count_thread_as(Some(AllocationScope::Pose)))
        .build()
        .context("building the thread pool")?;
    let threads = pool.current_num_threads();
    // Every worker runs one job before anything is measured: a worker's
    // first look into a work queue registers it with crossbeam's epoch
    // collector, an allocation that on a loaded machine (a worker not yet
    // scheduled) would otherwise fall into the measured frames.
    pool.broadcast(|_| ());
    let level = load_level(&args.level)?;
    let character = Arc::new(Character::knight().context("building the knight")?);
    let bytes_before = profile::live_bytes();
    let mut crowd = Crowd::new(level, character, args.characters, args.seed);
    let memory_per_character = match (bytes_before, profile::live_bytes()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 / args.characters as f64),
        _ => None,
    };
    let mut view = if args.no_render {
        None
    } else {
        Some(View::new(&crowd, args.render_size)?)
    };
    let mut trace = args
        .trace
        .as_ref()
        .map(|_| TraceRecorder::new(trace_capacity(args, crowd.timings.len())));
    let mut samples = Samples {
        stages: Vec::with_capacity(args.frames),
        crowd_wall: Vec::with_capacity(args.frames),
        cpu_frame: Vec::with_capacity(args.frames),
        gpu: Vec::with_capacity(args.frames),
    };
    let mut allocations_start = [None; 2];
    // The whole loop runs on a pool worker: calling `pool.install` once per
    // frame from outside would inject a job into rayon's global queue, whose
    // blocks of 63 slots allocate every 63 frames.
    pool.install(|| -> Result<()> {
        for frame in 0..args.warmup + args.frames {
            let measured = frame >= args.warmup;
            if frame == args.warmup {
                allocations_start = [
                    profile::allocations(AllocationScope::Pose),
                    profile::allocations(AllocationScope::Render),
                ];
            }
            let mut stage_ns = [0u64; STAGE_COUNT];
            let frame_start = Instant::now();
            crowd.frame();
            let crowd_end = Instant::now();
            for g in &crowd.timings {
                for (acc, ns) in stage_ns.iter_mut().zip(g.ns) {
                    *acc += ns;
                }
            }
            if let Some(t) = trace.as_mut().filter(|_| measured) {
                for g in &crowd.timings {
                    for stage in Stage::ALL {
                        if let Some(start) = g.start[stage.index()] {
                            t.push(TraceEvent {
                                name: stage.name(),
                                tid: g.worker as u32 + 1,
                                start_ns: t.ns(start),
                                dur_ns: g.ns[stage.index()],
                                frame: frame as u32,
                            });
                        }
                    }
                }
            }
            let mut main_events: [(Stage, Instant, Duration); 5] =
                [(Stage::Scene, crowd_end, Duration::ZERO); 5];
            let mut gpu = None;
            let mut cpu_end = crowd_end;
            if let Some(v) = view.as_mut() {
                let _render_path = profile::count_allocations(AllocationScope::Render);
                let t0 = Instant::now();
                {
                    let _s = profile::Scope::new(Stage::Scene);
                    v.frame.clear();
                    v.frame.draw_world(v.handles.world);
                    draw_platforms(&mut v.frame, v.handles.platform, crowd.level(), 1.0);
                    for p in crowd.pipelines() {
                        draw_character(
                            &mut v.frame,
                            v.handles.character,
                            crowd.character(),
                            p,
                            p.world,
                        );
                        draw_contact_shadows(
                            &mut v.frame,
                            crowd.character(),
                            p,
                            p.world,
                            crowd.level(),
                        );
                    }
                }
                let t1 = Instant::now();
                let stats = v
                    .renderer
                    .render(
                        &mut v.frame,
                        &v.camera,
                        &lighting(v.center),
                        v.target.view(),
                        v.target.size(),
                    )
                    .context("rendering a frame")?;
                let t2 = Instant::now();
                {
                    let _s = profile::Scope::new(Stage::Present);
                    v.renderer.wait_idle().context("waiting for the GPU")?;
                }
                let t3 = Instant::now();
                let upload_start = t1;
                let encode_start = upload_start + stats.cpu_upload;
                let submit_start = encode_start + stats.cpu_encode;
                main_events = [
                    (Stage::Scene, t0, t1 - t0),
                    (Stage::Upload, upload_start, stats.cpu_upload),
                    (Stage::Encode, encode_start, stats.cpu_encode),
                    (Stage::Submit, submit_start, stats.cpu_submit),
                    (Stage::Present, t2, t3 - t2),
                ];
                for (stage, _, d) in main_events {
                    stage_ns[stage.index()] = d.as_nanos() as u64;
                }
                cpu_end = t2;
                gpu = v.renderer.last_pass_times();
                if let (Some(t), Some(g)) = (trace.as_mut().filter(|_| measured), gpu) {
                    let start = t.ns(submit_start);
                    let shadow = (g.shadow_ms * 1e6) as u64;
                    for (name, s, d) in [
                        ("gpu_shadow", start, shadow),
                        ("gpu_main", start + shadow, (g.main_ms * 1e6) as u64),
                    ] {
                        t.push(TraceEvent {
                            name,
                            tid: GPU_TID,
                            start_ns: s,
                            dur_ns: d,
                            frame: frame as u32,
                        });
                    }
                }
            }
            if let Some(t) = trace.as_mut().filter(|_| measured) {
                t.push(TraceEvent {
                    name: "crowd_wall",
                    tid: 0,
                    start_ns: t.ns(frame_start),
                    dur_ns: (crowd_end - frame_start).as_nanos() as u64,
                    frame: frame as u32,
                });
                if view.is_some() {
                    for (stage, start, d) in main_events {
                        t.push(TraceEvent {
                            name: stage.name(),
                            tid: 0,
                            start_ns: t.ns(start),
                            dur_ns: d.as_nanos() as u64,
                            frame: frame as u32,
                        });
                    }
                }
            }
            #[cfg(feature = "puffin")]
            puffin::GlobalProfiler::lock().new_frame();
            if measured {
                samples.stages.push(stage_ns.map(|ns| ns as f64 / 1e3));
                samples
                    .crowd_wall
                    .push((crowd_end - frame_start).as_secs_f64() * 1e3);
                samples
                    .cpu_frame
                    .push((cpu_end - frame_start).as_secs_f64() * 1e3);
                if let Some(g) = gpu {
                    samples.gpu.push(g.shadow_ms + g.main_ms);
                }
            }
        }
        Ok(())
    })?;
    let per_frame = |start: Option<u64>, scope| match (start, profile::allocations(scope)) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 / args.frames as f64),
        _ => None,
    };
    let allocations_pose = per_frame(allocations_start[0], AllocationScope::Pose);
    let allocations_render = per_frame(allocations_start[1], AllocationScope::Render);
    let n = args.characters as f64;
    let mut pose: Vec<f64> = samples
        .stages
        .iter()
        .map(|s| Stage::POSE.iter().map(|p| s[p.index()]).sum::<f64>())
        .collect();
    let pose_p = percentiles(&mut pose);
    let mut stages = Vec::new();
    let mut row = |name: &str, p: Percentiles| {
        stages.push(StageRow {
            stage: name.to_string(),
            p50_us: p.p50,
            p95_us: p.p95,
            p99_us: p.p99,
        })
    };
    for stage in Stage::ALL {
        if view.is_none()
            && matches!(
                stage,
                Stage::Scene | Stage::Upload | Stage::Encode | Stage::Submit | Stage::Present
            )
        {
            continue;
        }
        let mut v: Vec<f64> = samples.stages.iter().map(|s| s[stage.index()]).collect();
        row(stage.name(), percentiles(&mut v));
    }
    row("pose (sum)", pose_p);
    let wall = percentiles(&mut samples.crowd_wall);
    row("crowd_wall", scale(wall, 1e3));
    let cpu_frame = percentiles(&mut samples.cpu_frame);
    row("cpu_frame", scale(cpu_frame, 1e3));
    let gpu = (!samples.gpu.is_empty()).then(|| percentiles(&mut samples.gpu));
    if let Some(g) = gpu {
        row("gpu_frame", scale(g, 1e3));
    }
    let per_character = |stages: &[Stage]| {
        let mut v: Vec<f64> = samples
            .stages
            .iter()
            .map(|s| stages.iter().map(|p| s[p.index()]).sum::<f64>())
            .collect();
        percentiles(&mut v).p50 / n
    };
    let stage_us_per_character = StagesPerCharacter {
        sim: per_character(&[Stage::Input, Stage::Sim]),
        sample: per_character(&[Stage::Sample]),
        blend: per_character(&[Stage::Blend]),
        local_to_model: per_character(&[Stage::LocalToModel]),
        foot_ik: per_character(&[Stage::FootIk]),
        ladder_ik: per_character(&[Stage::LadderIk]),
        joint_limit: per_character(&[Stage::Limit]),
        palette: per_character(&[Stage::Palette]),
    };
    let (on_ladder, on_ground) = crowd.census();
    let report = BenchReport {
        characters: args.characters,
        frames: args.frames,
        warmup: args.warmup,
        threads,
        seed: args.seed,
        level: args.level.clone(),
        rendered: (!args.no_render).then_some([args.render_size.0, args.render_size.1]),
        cpu_pose_us_per_character_p50: pose_p.p50 / n,
        cpu_pose_us_per_character_p99: pose_p.p99 / n,
        cpu_pose_ms_p50: pose_p.p50 / 1e3,
        crowd_wall_ms_p50: wall.p50,
        cpu_frame_ms_p50: cpu_frame.p50,
        cpu_frame_ms_p99: cpu_frame.p99,
        gpu_frame_ms_p50: gpu.map(|g| g.p50),
        allocations_per_frame_steady: allocations_pose.zip(allocations_render).map(|(p, r)| p + r),
        allocations_per_frame_pose: allocations_pose,
        allocations_per_frame_render: allocations_render,
        memory_per_character_bytes: memory_per_character,
        pose_checksum: format!("{:016x}", crowd.checksum()),
        on_ladder,
        on_ground,
        stage_us_per_character,
        stages,
        trace_events_dropped: trace.as_ref().map_or(0, |t| t.dropped),
    };
    if let (Some(path), Some(t)) = (&args.trace, &trace) {
        write_atomic(path, t.to_json(threads).as_bytes())
            .with_context(|| format!("{}: cannot write the trace", path.display()))?;
    }
    drop(view);
    Ok(report)
}

fn scale(p: Percentiles, k: f64) -> Percentiles {
    Percentiles {
        p50: p.p50 * k,
        p95: p.p95 * k,
        p99: p.p99 * k,
    }
}

/// Events a trace needs: per measured frame, one per group for input, sim
/// and each pose stage, plus 8 on the main thread and GPU rows; capped at
/// [`MAX_TRACE_EVENTS`].
fn trace_capacity(args: &BenchArgs, groups: usize) -> usize {
    (args.frames * (groups * (2 + crate::profile::Stage::POSE.len()) + 8)).min(MAX_TRACE_EVENTS)
}

fn print_table(r: &BenchReport) {
    println!(
        "ironstep bench: {} knights, {} frames (+{} warm-up), {} thread(s), {}",
        r.characters,
        r.frames,
        r.warmup,
        r.threads,
        match r.rendered {
            Some([w, h]) => format!("rendered {w}x{h} offscreen"),
            None => "not rendered".into(),
        }
    );
    println!(
        "{:<14} {:>12} {:>12} {:>12}",
        "stage", "p50 µs", "p95 µs", "p99 µs"
    );
    for s in &r.stages {
        println!(
            "{:<14} {:>12.1} {:>12.1} {:>12.1}",
            s.stage, s.p50_us, s.p95_us, s.p99_us
        );
    }
    println!(
        "pose per knight p50 {:.3} µs; cpu frame p50 {:.3} ms, p99 {:.3} ms; gpu frame p50 {}; allocations/frame {} (pose {}, render {}); memory/knight {}; on ladder {}, on ground {}; checksum {}",
        r.cpu_pose_us_per_character_p50,
        r.cpu_frame_ms_p50,
        r.cpu_frame_ms_p99,
        r.gpu_frame_ms_p50
            .map_or("n/a".into(), |g| format!("{g:.3} ms")),
        r.allocations_per_frame_steady
            .map_or("n/a".into(), |a| format!("{a}")),
        r.allocations_per_frame_pose
            .map_or("n/a".into(), |a| format!("{a}")),
        r.allocations_per_frame_render
            .map_or("n/a".into(), |a| format!("{a}")),
        r.memory_per_character_bytes
            .map_or("n/a".into(), |m| format!("{m:.0} B")),
        r.on_ladder,
        r.on_ground,
        r.pose_checksum
    );
}
