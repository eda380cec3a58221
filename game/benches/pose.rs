//! The knight's per-frame pose work, one character on one core: sample and
//! blend the state machine's clips, foot IK (ground probes, pelvis drop, two
//! legs) or ladder IK (two arms, two legs), palette.
//!
//! `cargo bench -p game --bench pose`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use game::character::Character;
use game::character::anim_state::AnimState;
use game::character::pose_pipeline::{FrameInput, PosePipeline};
use game::sim::player::{DT, Player};
use game::sim::script::Script;
use game::sim::world::Level;
use game::sim::{Layers, Sim};

/// The player's state `frames` steps into a script.
fn state_at(script: &str, frames: u32) -> (Player, Layers, f32) {
    let character = Arc::new(Character::knight().unwrap());
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../assets/scripts")
            .join(script),
    )
    .unwrap();
    let script = Script::parse(&text, "bench").unwrap();
    let mut sim = Sim::new(Level::builtin(), character);
    let mut input = script.player();
    for _ in 0..frames {
        sim.step(&input.next_input());
        sim.pose(DT);
    }
    let player = *sim.world.get::<&Player>(sim.player).unwrap();
    let layers = *sim.world.get::<&Layers>(sim.player).unwrap();
    let phase = sim
        .world
        .get::<&AnimState>(sim.player)
        .unwrap()
        .climb_phase();
    (player, layers, phase)
}

fn bench(c: &mut Criterion) {
    let character = Character::knight().unwrap();
    let level = Level::builtin();
    // Frame 1060 of slopes_walk: walking up the 45° slope. Frame 960 of
    // ladders: climbing the first ladder.
    for (name, script, frame) in [
        ("knight_pose/walk_45deg_slope", "slopes_walk.txt", 1060),
        ("knight_pose/climb_ladder", "ladders.txt", 960),
    ] {
        let (player, layers, climb_phase) = state_at(script, frame);
        let mut pipeline = PosePipeline::new(&character);
        c.bench_function(name, |b| {
            b.iter(|| {
                let input = FrameInput {
                    level: &level,
                    player: &player,
                    layers: &layers.layers[..layers.count],
                    climb_phase,
                    ik_enabled: true,
                    dt: DT,
                };
                pipeline.run(&character, black_box(&input));
                black_box(pipeline.palette());
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
