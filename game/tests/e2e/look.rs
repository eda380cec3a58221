//! The world's look, end to end: a frame of the tutorial rendered headless
//! by `ironstep run` on lavapipe shows the sky's gradient, the sun's disc,
//! the backdrop and the world's materials; dust rises where the knight
//! lands in a real run; soft contact shadows lie under his feet.

use std::process::Command;
use std::sync::Arc;

use game::character::Character;
use game::character::events::{CharacterEvent, EventTracker};
use game::dust::DustPool;
use game::scene::draw_contact_shadows;
use game::sim::Sim;
use game::sim::player::DT;
use game::sim::script::Script;
use renderer::{Frame, read_png_rgba};

use crate::common::{distinct_colours, fresh_dir};

/// Picture size of the rendered frame: small enough for lavapipe in CI.
const SIZE: (u32, u32) = (320, 180);

fn pixel(rgba: &[u8], x: u32, y: u32) -> [u8; 3] {
    let i = ((y * SIZE.0 + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2]]
}

fn luma(p: [u8; 3]) -> f32 {
    0.2126 * f32::from(p[0]) + 0.7152 * f32::from(p[1]) + 0.0722 * f32::from(p[2])
}

/// Luma standard deviation over the rectangle `x0..x1 × y0..y1`.
fn luma_sd(rgba: &[u8], (x0, x1): (u32, u32), (y0, y1): (u32, u32)) -> f32 {
    let vals: Vec<f32> = (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .map(|(x, y)| luma(pixel(rgba, x, y)))
        .collect();
    let mean = vals.iter().sum::<f32>() / vals.len() as f32;
    (vals.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / vals.len() as f32).sqrt()
}

#[test]
fn a_rendered_tutorial_frame_has_sky_sun_backdrop_and_textured_ground() {
    let dir = fresh_dir("look");
    // Frame 96: 1.5 s into the tutorial, the knight running on the first
    // stretch of ground.
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .args([
            "run",
            "--level",
            "tutorial",
            "--input",
            "assets/scripts/tutorial.txt",
            "--frames",
            "96",
            "--screenshot-every",
            "96",
            "--size",
            &format!("{}x{}", SIZE.0, SIZE.1),
            "--out",
            dir.to_str().unwrap(),
        ])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("ironstep runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, h, rgba) = read_png_rgba(&dir.join("frame_00096.png")).unwrap();
    assert_eq!((w, h), SIZE);
    // Sky: deep blue at the top of the screen, paler lower down.
    let top = pixel(&rgba, SIZE.0 - 20, 2);
    assert!(top[2] > top[0] + 50, "top of the sky {top:?}");
    // The sun: a disc of near-white pixels in the upper left quarter.
    let sun = (0..SIZE.1 / 2)
        .flat_map(|y| (0..SIZE.0 / 2).map(move |x| (x, y)))
        .filter(|&(x, y)| pixel(&rgba, x, y).iter().all(|&c| c > 240))
        .count();
    assert!(sun > 20, "{sun} sun pixels in the upper left");
    // Procedural materials, shading, fog and silhouettes give many more
    // colours (32 levels a channel) than the flat-coloured world did: this
    // frame had 251 at `19069db`, 485 with the new look.
    let colours = distinct_colours(&rgba);
    assert!(colours > 380, "{colours} distinct colours");
    // The bottom of the screen is the ground's earth front: patterned, not
    // one flat colour (luma sd 1.44 at `19069db`, 4.47 now).
    let ground_sd = luma_sd(&rgba, (0, SIZE.0), (SIZE.1 - 20, SIZE.1));
    assert!(ground_sd > 3.0, "ground front luma sd {ground_sd}");
}

#[test]
fn dust_rises_where_the_knight_lands_and_contact_shadows_lie_under_his_feet() {
    let character = Arc::new(Character::knight().unwrap());
    let level = game::tools::headless::load_level("tutorial").unwrap();
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scripts/tutorial.txt"),
    )
    .unwrap();
    let script = Script::parse(&text, "tutorial.txt").unwrap();
    let mut input = script.player();
    let mut sim = Sim::new(level, character);
    let mut dust = DustPool::new();
    let mut events = EventTracker::new();
    let mut frame = Frame::new();
    let (mut landings, mut puffs, mut shadowed_ground_frames) = (0, 0, 0);
    // The first 20 s: runs over slopes and stairs, a jump over the gap, a
    // climb, a jump onto the floating platform and off it.
    for _ in 0..(20.0 / DT) as usize {
        sim.step(&input.next_input());
        sim.pose(DT);
        let player = sim.player_state();
        let frame_events = events.observe_sim(&sim);
        let before = dust.live_count();
        dust.emit_events(frame_events);
        landings += frame_events
            .iter()
            .filter(|e| matches!(e, CharacterEvent::Land { .. }))
            .count();
        puffs += usize::from(dust.live_count() > before);
        let body = sim.world.get::<&game::sim::Body>(sim.player).unwrap();
        dust.update(DT);
        frame.clear();
        draw_contact_shadows(
            &mut frame,
            &body.character,
            &body.pipeline,
            body.pipeline.world,
            &sim.level,
        );
        if player.state == game::sim::player::Locomotion::Ground {
            shadowed_ground_frames += usize::from(frame.soft_quad_count() == 2);
        }
    }
    assert!(landings > 0, "the run has landings");
    // Landings from jumps and running plants (the same contact events the
    // sounds play from) both raise dust.
    assert!(puffs >= 3, "{puffs} puffs in {landings} landings");
    // On the ground both feet nearly always cast a contact shadow.
    assert!(
        shadowed_ground_frames > 600,
        "{shadowed_ground_frames} frames"
    );
}
