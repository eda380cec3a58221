//! End-to-end tests of the game flow on a shipped level, through the real
//! loader and simulation: a fall into the tutorial's gap after its first
//! checkpoint fades, counts a fall, and brings the knight back standing at
//! that checkpoint, and the run then goes on.

use std::sync::Arc;

use glam::Vec2;

use game::character::Character;
use game::flow::run::RESPAWN_STEPS;
use game::flow::{FlowEvent, LevelRun, Phase};
use game::level::shipped::LevelSource;
use game::sim::Sim;
use game::sim::player::{Input, Locomotion};

#[test]
fn a_fall_into_the_tutorials_gap_respawns_at_the_checkpoint_before_it() {
    let level = LevelSource::resolve("tutorial").unwrap().load().unwrap();
    let checkpoint = level
        .checkpoints
        .iter()
        .position(|c| c.name == "before the gap")
        .expect("the tutorial has a checkpoint before its gap");
    let at = level.checkpoints[checkpoint].pos;
    let mut sim = Sim::new(level, Arc::new(Character::knight().unwrap()));
    // Start a metre and a half before the checkpoint, on its floor, and
    // walk right without jumping: over the checkpoint and into the gap.
    sim.respawn_player(at - Vec2::new(1.5, 0.0));
    let mut run = LevelRun::new();
    let walk = Input {
        move_x: 1.0,
        ..Input::default()
    };
    let mut events = Vec::new();
    let mut steps = 0;
    while !events
        .iter()
        .any(|e| matches!(e, FlowEvent::Respawned { .. }))
    {
        run.step(&mut sim, &walk, &mut events);
        sim.pose(game::sim::player::DT);
        steps += 1;
        assert!(steps < 64 * 20, "no respawn after 20 s: {events:?}");
    }
    let [
        FlowEvent::CheckpointReached { index, name },
        FlowEvent::Fell { at: fell },
        FlowEvent::Respawned { at: back },
    ] = &events[..]
    else {
        panic!("{events:?}")
    };
    assert_eq!((*index, name.as_str()), (checkpoint, "before the gap"));
    assert!(
        fell.x > at.x && fell.y < at.y - 2.0,
        "fell into the gap at {fell}"
    );
    assert_eq!(*back, at);
    assert_eq!(run.falls, 1);
    // The rest of the fade, then the knight stands at the checkpoint.
    for _ in 0..RESPAWN_STEPS {
        run.step(&mut sim, &Input::default(), &mut events);
        sim.pose(game::sim::player::DT);
    }
    assert_eq!(run.phase, Phase::Playing);
    for _ in 0..32 {
        run.step(&mut sim, &Input::default(), &mut events);
        sim.pose(game::sim::player::DT);
    }
    let p = sim.player_state();
    assert_eq!(p.state, Locomotion::Ground, "standing after the respawn");
    assert!((p.pos - at).length() < 0.05, "at the checkpoint: {}", p.pos);
    assert_eq!(run.checkpoint, Some(checkpoint));
}
