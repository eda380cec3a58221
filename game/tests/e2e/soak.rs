//! Soak: 100,000 simulated frames of random input on every shipped level
//! (the built-in level and each TMX in `assets/levels/`), through the real
//! simulation and the full pose pipeline with IK. Every frame: no NaN in the
//! player, the pose or the palette; the player stays inside the level's
//! bounds and never enters a solid (ground, wall, ceiling). Over the run: the heap does not
//! grow (live bytes counted by a counting global allocator) and no
//! allocation happens after the warm-up.
//!
//! `IRONSTEP_SOAK_FRAMES` changes the frame count per level (default
//! 100,000, about three seconds per level in the test profile).

use std::path::Path;
use std::sync::Arc;

use game::character::Character;
use game::level;
use game::profile;
use game::sim::player::{
    BODY_HALF_WIDTH, BODY_HEIGHT, CLIMB_HALF_WIDTH, DT, Input, Locomotion, MAX_STEP_UP, Player,
};
use game::sim::world::Level;
use game::sim::{Body, Sim};
use glam::Vec2;

/// How far into a solid the body may reach before it counts as inside,
/// metres (the controller snaps to surfaces; this only absorbs f32 rounding).
const SINK_TOLERANCE: f32 = 1e-3;
/// Frames before counting allocations and live bytes (every clip sampled,
/// every state entered at least once in practice).
const WARM_UP: u64 = 2_000;
/// Frames between putting the player at a random ladder or floor.
const TELEPORT_EVERY: u64 = 5_000;

fn frames() -> u64 {
    std::env::var("IRONSTEP_SOAK_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// A small deterministic generator (64-bit LCG, high bits out).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }
    fn unit(&mut self) -> f32 {
        self.next() as f32 / (1u64 << 31) as f32
    }
}

/// Random input held for random stretches, like a player mashing the pad:
/// stick anywhere (often full deflection), run, jump taps and holds. Now and
/// then it heads for the nearest ladder and climbs it for a while, so the
/// ladder states get soaked too.
struct Masher {
    rng: Lcg,
    held: Input,
    left: u32,
    /// Climbing direction while seeking a ladder (0 when not seeking).
    seek: f32,
}

impl Masher {
    fn new(seed: u64) -> Self {
        Self {
            rng: Lcg(seed),
            held: Input::default(),
            left: 0,
            seek: 0.0,
        }
    }

    /// A random place to put the player: a ladder's foot or a floor's
    /// middle, half a metre up (the player drops onto it).
    fn place(&mut self, level: &Level) -> Vec2 {
        let r = &mut self.rng;
        if r.next().is_multiple_of(2) && !level.ladders.is_empty() {
            let l = level.ladders[r.next() as usize % level.ladders.len()];
            Vec2::new(l.x, l.bottom + 0.05)
        } else {
            let s = level.segments[r.next() as usize % level.segments.len()];
            let x = 0.5 * (s.x0 + s.x1);
            Vec2::new(x, s.height_at(x) + 0.05)
        }
    }

    fn next(&mut self, p: &Player, level: &Level) -> Input {
        if self.left == 0 {
            let r = &mut self.rng;
            self.seek = 0.0;
            if r.next().is_multiple_of(5) && !level.ladders.is_empty() {
                self.seek = if r.next().is_multiple_of(2) {
                    1.0
                } else {
                    -1.0
                };
                self.left = 200 + r.next() % 400;
            } else {
                let axis = |r: &mut Lcg| match r.next() % 4 {
                    0 => -1.0,
                    1 => 1.0,
                    2 => 0.0,
                    _ => r.unit() * 2.0 - 1.0,
                };
                self.held = Input {
                    move_x: axis(r),
                    move_y: axis(r),
                    run: r.next().is_multiple_of(2),
                    jump_pressed: false,
                    jump_held: r.next().is_multiple_of(3),
                };
                self.left = 1 + r.next() % 90;
                // A press edge starts most held jumps.
                self.held.jump_pressed = self.held.jump_held && !r.next().is_multiple_of(4);
            }
        } else {
            self.held.jump_pressed = false;
        }
        self.left -= 1;
        if self.seek != 0.0 {
            let nearest = level
                .ladders
                .iter()
                .min_by(|a, b| (a.x - p.pos.x).abs().total_cmp(&(b.x - p.pos.x).abs()))
                .expect("seeking only where there are ladders");
            let dx = nearest.x - p.pos.x;
            return Input {
                move_x: if dx.abs() > 0.2 { dx.signum() } else { 0.0 },
                move_y: self.seek,
                run: dx.abs() > 3.0,
                ..Input::default()
            };
        }
        self.held
    }
}

fn shipped_levels() -> Vec<Level> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/levels");
    let mut levels = vec![Level::builtin()];
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tmx"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 2, "the shipped levels are in {dir:?}");
    for p in paths {
        levels.push(
            level::load(&p)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
                .level,
        );
    }
    levels
}

/// What a soak of one level measured.
#[derive(Debug)]
struct Soak {
    frames: u64,
    allocations_after_warm_up: u64,
    live_bytes_growth: i64,
    states_seen: [bool; 4],
    respawns: u64,
    rss_after_warm_up_kib: u64,
    rss_at_end_kib: u64,
}

/// Resident set size of this process in KiB (Linux), 0 where unknown.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4)
}

fn soak(level: Level, character: Arc<Character>, seed: u64, frames: u64) -> Soak {
    let name = level.name.clone();
    let (x0, x1) = level.extent();
    let kill = level.kill_height;
    // Only this thread's allocations and frees count (no other thread's).
    let mut sim = Sim::new(level, character);
    let mut masher = Masher::new(seed);
    let (mut allocations0, mut live0, mut rss0) = (0, 0, 0);
    let mut states_seen = [false; 4];
    let mut respawns = 0;
    let mut last_y = f32::INFINITY;
    for frame in 0..frames {
        if frame == WARM_UP {
            // Reading the RSS allocates: before the counters are taken.
            rss0 = rss_kib();
            allocations0 = profile::thread_allocations().unwrap();
            live0 = profile::thread_live_bytes().unwrap();
        }
        // Now and then the player is put somewhere else, as a respawn
        // would: at a random ladder's foot or on a random floor, so random
        // input explores every part of a level with floors one above
        // another (a walk from the spawn rarely gets past the first puzzle).
        if frame % TELEPORT_EVERY == TELEPORT_EVERY - 1 {
            let to = masher.place(&sim.level);
            let mut q = sim.world.get::<&mut Player>(sim.player).unwrap();
            *q = Player::new(to);
            last_y = to.y;
        }
        let input = masher.next(&sim.player_state(), &sim.level);
        sim.step(&input);
        sim.pose(DT);
        let p = sim.player_state();
        let at = || format!("{name}, frame {frame}: {p:?}");
        assert!(
            p.pos.is_finite() && p.vel.is_finite(),
            "NaN player: {}",
            at()
        );
        // Inside the level: between its ends (the controller walls them
        // off) and above the kill height (a fall below it respawns).
        assert!(
            (x0 - 0.5..=x1 + 0.5).contains(&p.pos.x),
            "left the level's x range {x0}..{x1}: {}",
            at()
        );
        assert!(p.pos.y >= kill - 1.0, "fell out of the level: {}", at());
        if p.pos.y > last_y + 2.0 && !matches!(p.state, Locomotion::Ladder(_)) {
            respawns += 1;
        }
        last_y = p.pos.y;
        // Never inside a solid: the feet are not under any block's top, and
        // the body above a step's height (1 cm in from its outline, so
        // touching a wall is not overlapping; below a step the body may
        // overlap a slope or stair it is walking onto) stays out of every
        // block, wall and ceiling.
        assert!(
            !sim.level.solid_overlaps(
                p.pos.x - 1e-3,
                p.pos.x + 1e-3,
                p.pos.y + SINK_TOLERANCE,
                p.pos.y + SINK_TOLERANCE + 1e-3,
            ),
            "feet inside a solid: {}",
            at()
        );
        let inset = 0.01;
        let half = if matches!(p.state, Locomotion::Ladder(_)) {
            CLIMB_HALF_WIDTH
        } else {
            BODY_HALF_WIDTH
        };
        assert!(
            !sim.level.solid_overlaps(
                p.pos.x - half + inset,
                p.pos.x + half - inset,
                p.pos.y + MAX_STEP_UP + inset,
                p.pos.y + BODY_HEIGHT - inset,
            ),
            "body inside a solid: {}",
            at()
        );
        states_seen[match p.state {
            Locomotion::Ground => 0,
            Locomotion::Air => 1,
            Locomotion::Ladder(_) => 2,
            // Seen where the soak catches a ledge; not required.
            Locomotion::Ledge => 3,
        }] = true;
        let body = sim.world.get::<&Body>(sim.player).unwrap();
        let pl = &body.pipeline;
        assert!(
            pl.pose.locals.iter().all(|l| l.is_finite()),
            "NaN in the pose: {}",
            at()
        );
        assert!(
            pl.palette().iter().all(|m| m.is_finite()) && pl.world.is_finite(),
            "NaN in the palette: {}",
            at()
        );
    }
    Soak {
        frames,
        allocations_after_warm_up: profile::thread_allocations().unwrap() - allocations0,
        live_bytes_growth: profile::thread_live_bytes().unwrap() - live0,
        states_seen,
        respawns,
        rss_after_warm_up_kib: rss0,
        rss_at_end_kib: rss_kib(),
    }
}

#[test]
fn random_input_for_100k_frames_on_every_shipped_level() {
    let character = Arc::new(Character::knight().unwrap());
    let frames = frames();
    assert!(
        frames > WARM_UP,
        "IRONSTEP_SOAK_FRAMES must exceed {WARM_UP}"
    );
    for (i, level) in shipped_levels().into_iter().enumerate() {
        let name = level.name.clone();
        let s = soak(level, character.clone(), 0x5eed + i as u64, frames);
        eprintln!(
            "{name}: {} frames, {} respawns after falls, RSS {} KiB after the warm-up, {} KiB at the end, heap growth {} B",
            s.frames, s.respawns, s.rss_after_warm_up_kib, s.rss_at_end_kib, s.live_bytes_growth
        );
        assert!(
            s.states_seen[..3].iter().all(|&seen| seen),
            "{name}: the random input never reached every state (ground, air, ladder): {s:?}"
        );
        assert_eq!(
            s.allocations_after_warm_up, 0,
            "{name}: allocations after the warm-up"
        );
        assert!(
            s.live_bytes_growth <= 0,
            "{name}: the heap grew by {} bytes",
            s.live_bytes_growth
        );
    }
}
