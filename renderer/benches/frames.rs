//! Headless frame benchmark: 0 (world only), 1, 100 and 1,000 skinned instances of the demo
//! tube on the slopes world. Reports CPU encode time (building buffers,
//! recording and submitting both passes), GPU time per pass (timestamp
//! queries), wall time from encode to GPU idle, and bytes uploaded per frame.
//!
//! `cargo bench -p renderer --bench frames`

use glam::{Mat4, Vec3};
use renderer::demo::{bend_palette, slopes_and_ladder_world, tube_mesh};
use renderer::{Camera, Frame, Lighting, MaterialDesc, OffscreenTarget, Renderer, SkinnedMeshDesc};
use std::time::Instant;

/// Frames measured per instance count (after warm-up).
const FRAMES: u32 = 30;
/// Warm-up frames (shader compilation, buffer growth).
const WARMUP: u32 = 5;
/// Target size: the game's default window.
const SIZE: (u32, u32) = (960, 540);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut r = Renderer::headless()?;
    println!("adapter: {}", r.gpu().describe());
    let (vertices, indices) = tube_mesh([1.0; 4]);
    let tube = r.upload_skinned_mesh(&SkinnedMeshDesc {
        label: "tube",
        vertices: &vertices,
        indices: &indices,
        joint_count: 2,
        material: MaterialDesc::default(),
    })?;
    let world = r.upload_world_mesh(&slopes_and_ladder_world()?.0)?;
    let target = OffscreenTarget::new(&r, SIZE.0, SIZE.1);
    let cam = Camera::side_view(Vec3::new(0.0, 1.0, 0.0), 30.0);
    let lighting = Lighting::default();
    let mut frame = Frame::new();
    println!(
        "| instances | triangles | CPU encode ms | GPU shadow ms | GPU main ms | wall ms/frame | bytes uploaded/frame |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for count in [0u32, 1, 100, 1000] {
        let mut cpu_ms = 0.0;
        let mut wall_ms = 0.0;
        let (mut shadow_ms, mut main_ms) = (0.0, 0.0);
        let mut bytes = 0;
        for f in 0..WARMUP + FRAMES {
            frame.clear();
            frame.draw_world(world);
            let side = (count as f32).sqrt().ceil() as u32;
            for i in 0..count {
                let (x, y) = (
                    (i % side) as f32 * 0.5 - side as f32 * 0.25,
                    (i / side) as f32 * 0.5,
                );
                let palette = bend_palette(((f + i) as f32 * 0.1).sin() * 0.7);
                frame.draw_skinned(tube, Mat4::from_translation(Vec3::new(x, y, 0.0)), &palette);
            }
            let start = Instant::now();
            let stats = r.render(&mut frame, &cam, &lighting, target.view(), target.size())?;
            let cpu = start.elapsed().as_secs_f64() * 1e3;
            r.wait_idle()?;
            let wall = start.elapsed().as_secs_f64() * 1e3;
            r.wait_idle()?;
            if f >= WARMUP {
                cpu_ms += cpu;
                wall_ms += wall;
                bytes = stats.bytes_uploaded;
                if let Some(t) = r.last_pass_times() {
                    shadow_ms += t.shadow_ms;
                    main_ms += t.main_ms;
                }
            }
        }
        let n = f64::from(FRAMES);
        println!(
            "| {count} | {} | {:.3} | {:.2} | {:.2} | {:.2} | {bytes} |",
            count as usize * indices.len() / 3,
            cpu_ms / n,
            shadow_ms / n,
            main_ms / n,
            wall_ms / n
        );
    }
    Ok(())
}
