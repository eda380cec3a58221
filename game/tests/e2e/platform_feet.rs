//! The knight on moving platforms, through the real simulation and pose
//! pipeline with IK: a ferry moving sideways and a lift moving up and down.
//! Standing and walking on them, a planted foot stays on the platform's top
//! (within 5 mm) and does not slide relative to it (within 1 cm): the motion
//! metrics measure both in the platform's frame, on every frame.

use std::sync::Arc;

use game::character::Character;
use game::sim::player::{DT, Input, Locomotion};
use game::sim::world::{FloorKind, GroundSegment, Level, MovingPlatform};
use game::sim::{Body, Sim};
use game::tools::metrics::Recorder;
use glam::Vec2;

/// Flat ground with one platform on `path`, the player dropped onto its
/// start.
fn level_with(path: Vec<Vec2>, speed: f32) -> Level {
    let mut level = Level::from_profile(
        "platform",
        vec![GroundSegment::ground(-12.0, 12.0, 0.0, 0.0)],
        vec![],
        path[0] + Vec2::new(0.0, 0.05),
        Vec2::new(10.0, 0.0),
        -10.0,
    );
    level
        .platforms
        .push(MovingPlatform::new(path, 1.5, 0.3, speed, 1.5));
    level
}

/// Runs `steps` steps with the input `input_at(step)`, recording every
/// frame; returns the recorder and how many frames were on the platform.
fn ride(level: Level, steps: u64, input_at: impl Fn(u64) -> Input) -> (Recorder, u64) {
    let knight = Arc::new(Character::knight().unwrap());
    let mut sim = Sim::new(level, knight);
    let mut rec = Recorder::default();
    let mut on_platform = 0;
    for i in 0..steps {
        sim.step(&input_at(i));
        sim.pose(DT);
        let p = sim.player_state();
        if p.state == Locomotion::Ground && p.floor == FloorKind::Platform(0) {
            on_platform += 1;
        }
        let body = sim.world.get::<&Body>(sim.player).unwrap();
        rec.record(&sim.level, &p, &body.character, &body.pipeline, DT);
    }
    (rec, on_platform)
}

fn assert_feet(rec: &Recorder, what: &str) {
    let s = &rec.summary;
    println!(
        "{what}: {} frames, {} planted, planted error {:.2} mm, slide {:.2} mm, {:.1} rad/s",
        s.frames,
        s.planted_frames,
        s.planted_foot_max_error_m * 1e3,
        s.stance_slide_max_m * 1e3,
        s.max_joint_angular_speed_rad_s
    );
    assert_eq!(s.nan_count, 0, "{what}");
    assert!(s.planted_frames > 100, "{what}: feet were planted");
    assert!(
        s.planted_foot_max_error_m <= 0.005,
        "{what}: planted foot {} m off the top",
        s.planted_foot_max_error_m
    );
    assert!(
        s.stance_slide_max_m <= 0.01,
        "{what}: a planted foot slid {} m on the platform",
        s.stance_slide_max_m
    );
}

#[test]
fn feet_stay_planted_on_a_ferry_standing_and_walking() {
    let ferry = vec![Vec2::new(-4.0, 1.0), Vec2::new(4.0, 1.0)];
    // Stand for 12 s (a round trip with stops), then walk back and forth
    // on it for 12 s.
    let (rec, on) = ride(level_with(ferry, 1.0), 64 * 24, |i| {
        let t = i / 64;
        let walk = if t < 12 {
            0.0
        } else if t % 2 == 0 {
            1.0
        } else {
            -1.0
        };
        Input {
            move_x: walk * 0.6,
            ..Input::default()
        }
    });
    assert!(on > 64 * 20, "rode the ferry ({on} frames on it)");
    assert_feet(&rec, "ferry");
}

#[test]
fn feet_stay_planted_on_a_lift() {
    let lift = vec![Vec2::new(0.0, 0.5), Vec2::new(0.0, 3.5)];
    let (rec, on) = ride(level_with(lift, 0.8), 64 * 16, |_| Input::default());
    assert!(on > 64 * 15, "rode the lift ({on} frames on it)");
    assert_feet(&rec, "lift");
}
