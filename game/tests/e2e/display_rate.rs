//! What a player on a fast display sees: the window's frame loop
//! ([`game::window::frame_sim::FrameSim`], the code `ironstep play` runs
//! every rendered frame) driven at 144 Hz with made-up frame times, its
//! drawn pose rendered headless on lavapipe. The knight's limbs move in
//! every displayed frame, not only in those where a 64 Hz step ran; and the
//! loop allocates nothing per frame.

use std::sync::Arc;

use game::character::Character;
use game::flow::{Game, Progress, Screen, Sequence, Settings};
use game::profile::{self, FrameProfiler};
use game::scene::{ShownPose, draw_character, lighting, upload_scene};
use game::sim::player::Input;
use game::sim::world::Level;
use game::sim::{Body, Sim};
use game::window::frame_sim::FrameSim;
use renderer::{Camera, Frame, OffscreenTarget, Renderer, write_png_rgba};

use crate::common::fresh_dir;

/// Picture size: the knight large enough that a limb's sub-step movement
/// (a few millimetres) changes pixels, small enough for lavapipe in CI.
const SIZE: (u32, u32) = (256, 256);
/// The display's refresh rate, Hz.
const DISPLAY_HZ: f32 = 144.0;
/// Consecutive displayed frames rendered.
const FRAMES: usize = 24;

fn walk_right(game: &Game) -> Input {
    Input {
        move_x: if game.screen == Screen::Playing {
            1.0
        } else {
            0.0
        },
        ..Input::default()
    }
}

fn start() -> (Game, Sim, FrameSim, Arc<Character>) {
    let character = Arc::new(Character::knight().unwrap());
    let game = Game::playing(
        Sequence::shipped().unwrap(),
        Progress::default(),
        Settings::default(),
        "builtin",
    );
    let mut sim = Sim::new(Level::builtin(), character.clone());
    let fs = FrameSim::new(&mut sim);
    (game, sim, fs, character)
}

/// Pixels whose colour differs by more than 2 levels in some channel.
fn changed_pixels(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(p, q)| p.iter().zip(*q).any(|(x, y)| x.abs_diff(*y) > 2))
        .count()
}

/// Consecutive 144 Hz frames of the walking knight, drawn by the window's
/// own frame loop, with the camera held on his drawn body (so the body
/// stays put in the picture and what changes is his limbs and his turn):
/// every frame differs from the one before. Drawn as of the last step, as
/// before this was fixed, over half of them were identical to the previous
/// one (no step ran between them). The frames are kept as a contact sheet,
/// `display_rate/walk_144hz.png` in the test's temp folder, to look at.
#[test]
fn at_144_hz_the_knights_limbs_move_in_every_displayed_frame() {
    let (mut game, mut sim, mut fs, character) = start();
    let mut prof = FrameProfiler::new();
    let dt = 1.0 / DISPLAY_HZ;
    // A second into the walk: in full gait.
    for _ in 0..DISPLAY_HZ as usize {
        game.begin_frame();
        fs.frame(
            &mut game,
            &mut sim,
            dt,
            false,
            &mut prof,
            walk_right,
            |_, _, _| {},
        );
    }
    let mut renderer = Renderer::headless().expect("a headless renderer (lavapipe)");
    let handles = upload_scene(&mut renderer, &sim.level, &character).unwrap();
    let target = OffscreenTarget::new(&renderer, SIZE.0, SIZE.1);
    let mut frame = Frame::new();
    frame.show_debug = false;
    let mut shots: Vec<Vec<u8>> = Vec::new();
    let mut steps_between = Vec::new();
    for _ in 0..FRAMES {
        game.begin_frame();
        let (steps, _) = fs.frame(
            &mut game,
            &mut sim,
            dt,
            false,
            &mut prof,
            walk_right,
            |_, _, _| {},
        );
        steps_between.push(steps.steps);
        let drawn = fs.drawn();
        let body = sim.world.get::<&Body>(sim.player).unwrap();
        frame.clear();
        // The character alone (no level): the background stays the same.
        draw_character(
            &mut frame,
            handles.character,
            &body.character,
            ShownPose {
                palette: drawn.palette(),
                models: drawn.models(),
                debug: &body.pipeline.debug,
            },
            drawn.world(),
        );
        let root = drawn.world().w_axis.truncate();
        let camera = Camera::side_view(root + glam::Vec3::Y * 0.9, 3.0);
        renderer
            .render(
                &mut frame,
                &camera,
                &lighting(glam::Vec3::ZERO),
                target.view(),
                SIZE,
            )
            .unwrap();
        shots.push(target.read_rgba(&mut renderer).unwrap());
    }
    // The contact sheet: the frames side by side, 8 a row.
    let cols = 8;
    let rows = FRAMES.div_ceil(cols);
    let (w, h) = (SIZE.0 as usize * cols, SIZE.1 as usize * rows);
    let mut sheet = vec![0u8; w * h * 4];
    for (k, shot) in shots.iter().enumerate() {
        let (cx, cy) = ((k % cols) * SIZE.0 as usize, (k / cols) * SIZE.1 as usize);
        let row = SIZE.0 as usize * 4;
        for y in 0..SIZE.1 as usize {
            let dst = ((cy + y) * w + cx) * 4;
            sheet[dst..dst + row].copy_from_slice(&shot[y * row..(y + 1) * row]);
        }
    }
    let dir = fresh_dir("display_rate");
    write_png_rgba(&dir.join("walk_144hz.png"), w as u32, h as u32, &sheet).unwrap();
    let changes: Vec<usize> = shots
        .windows(2)
        .map(|p| changed_pixels(&p[0], &p[1]))
        .collect();
    eprintln!("steps run before each frame: {steps_between:?}");
    eprintln!("pixels changed from the frame before: {changes:?}");
    assert!(
        steps_between.contains(&0),
        "some frames fall between two steps (144 Hz over 64 Hz)"
    );
    // Every frame changes about as much as any other: not a few pixels
    // (the body's own glide, the shadow map's texels) on frames without a
    // step and thousands on frames with one. Measured: 3,000–3,400 pixels
    // every frame; drawn as of the last step, 27–103 on frames without a
    // step against 4,700–5,200 with one.
    let most = changes.iter().copied().max().unwrap_or(0);
    assert!(most > 500, "the knight's limbs barely moved: {changes:?}");
    for (k, &n) in changes.iter().enumerate() {
        assert!(
            n * 4 >= most,
            "frame {} shows {n} pixels changed from the frame before ({} steps ran between them), against up to {most}: {changes:?}",
            k + 2,
            steps_between[k + 1]
        );
    }
}

/// The window's frame loop allocates nothing per rendered frame in steady
/// state: steps, pose pipeline, recording the step and drawing between
/// steps all reuse their buffers.
#[test]
fn the_window_frame_loop_allocates_nothing_per_frame() {
    let (mut game, mut sim, mut fs, _) = start();
    let mut prof = FrameProfiler::new();
    let dt = 1.0 / DISPLAY_HZ;
    for _ in 0..200 {
        game.begin_frame();
        fs.frame(
            &mut game,
            &mut sim,
            dt,
            false,
            &mut prof,
            walk_right,
            |_, _, _| {},
        );
    }
    let before = profile::thread_allocations().expect("the counting allocator is installed");
    for k in 0..1000 {
        game.begin_frame();
        // Designer mode's pause for a while in the middle.
        let paused = (400..600).contains(&k);
        fs.frame(
            &mut game,
            &mut sim,
            dt,
            paused,
            &mut prof,
            walk_right,
            |_, _, _| {},
        );
    }
    let allocations = profile::thread_allocations().unwrap() - before;
    assert_eq!(allocations, 0, "allocations in 1,000 rendered frames");
}
