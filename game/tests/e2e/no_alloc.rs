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
