//! The per-frame path allocates nothing in steady state: simulation steps
//! (controller, animation state) and the pose pipeline (sampling, blending,
//! foot and ladder IK, palette), counted with a counting global allocator
//! over the walk, slope and ladder scripts. Only this test's own thread is
//! counted: other threads of the process (the harness's, other tests') never
//! are.

use std::sync::Arc;

use game::character::Character;
use game::profile;
use game::sim::Sim;
use game::sim::player::DT;
use game::sim::script::Script;
use game::sim::world::Level;

/// Allocations this thread has made so far.
fn own_allocations() -> u64 {
    profile::thread_allocations().expect("the counting allocator is installed")
}

#[test]
fn simulation_and_pose_pipeline_allocate_nothing_per_frame() {
    let character = Arc::new(Character::knight().unwrap());
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scripts/ladders.txt"),
    )
    .unwrap();
    let script = Script::parse(&text, "ladders.txt").unwrap();
    let mut sim = Sim::new(Level::builtin(), character);
    let mut input = script.player();
    // Warm up: every clip is sampled once (cursors sized) before counting.
    for _ in 0..64 {
        sim.step(&input.next_input());
        sim.pose(DT);
    }
    let before = own_allocations();
    // Running, jumping, climbing both ladders, walking to the exit.
    for _ in 0..2300 {
        sim.step(&input.next_input());
        sim.pose(DT);
    }
    let allocations = own_allocations() - before;
    assert_eq!(allocations, 0, "allocations in 2,300 steady-state frames");
}

/// The count is per thread: what other threads allocate meanwhile (the
/// harness's, or another test's running beside this one) is not counted,
/// what this thread allocates is. (The harness's threads allocating during
/// the loop above once failed it on a loaded machine.)
#[test]
fn only_the_calling_thread_is_counted() {
    let before = own_allocations();
    // Another thread allocates a thousand times.
    let other = std::thread::spawn(|| {
        let before = own_allocations();
        for i in 0..1000 {
            std::hint::black_box(vec![i as u8; 16]);
        }
        own_allocations() - before
    });
    let in_other_thread = other.join().unwrap();
    let after_other_thread = own_allocations();
    // This thread allocates exactly once.
    let boxed = std::hint::black_box(Box::new([7u8; 32]));
    let after_own = own_allocations();
    drop(boxed);
    assert_eq!(in_other_thread, 1000, "the other thread counts its own");
    // Spawning and joining allocate on this thread too (the thread's handle
    // and name), so the other thread's thousand allocations must be the
    // ones missing: fewer than 1000 counted here.
    assert!(
        after_other_thread - before < 1000,
        "another thread's allocations were counted: {}",
        after_other_thread - before
    );
    assert_eq!(
        after_own - after_other_thread,
        1,
        "this thread's allocation"
    );
}

/// The look's per-frame work allocates nothing in steady state either:
/// raising dust from the contact events of landings and plants (deriving
/// them included), advancing the fixed pool, and
/// queueing the dust and both feet's contact shadows into a reused frame.
#[test]
fn dust_and_contact_shadows_allocate_nothing_per_frame() {
    use game::character::events::EventTracker;
    use game::dust::DustPool;
    use game::scene::draw_contact_shadows;

    let character = Arc::new(Character::knight().unwrap());
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scripts/ladders.txt"),
    )
    .unwrap();
    let script = Script::parse(&text, "ladders.txt").unwrap();
    let mut sim = Sim::new(Level::builtin(), character);
    let mut input = script.player();
    let mut dust = DustPool::new();
    let mut events = EventTracker::new();
    let mut frame = renderer::Frame::new();
    let mut frame_work = |sim: &Sim, dust: &mut DustPool, events: &mut EventTracker| {
        dust.emit_events(events.observe_sim(sim));
        dust.update(DT);
        let body = sim.world.get::<&game::sim::Body>(sim.player).unwrap();
        frame.clear();
        draw_contact_shadows(
            &mut frame,
            &body.character,
            &body.pipeline,
            body.pipeline.world,
            &sim.level,
        );
        dust.draw(&mut frame);
    };
    // Warm up with a full pool, so the frame's soft-quad list has its
    // largest size before counting.
    for _ in 0..64 {
        sim.step(&input.next_input());
        sim.pose(DT);
    }
    for i in 0..100 {
        dust.emit(glam::Vec3::new(i as f32 * 0.01, 0.0, 0.0), 1.0);
    }
    frame_work(&sim, &mut dust, &mut events);
    let before = own_allocations();
    for _ in 0..2300 {
        sim.step(&input.next_input());
        sim.pose(DT);
        frame_work(&sim, &mut dust, &mut events);
    }
    let allocations = own_allocations() - before;
    assert_eq!(
        allocations, 0,
        "allocations in 2,300 frames of dust and shadows"
    );
}
