//! The per-frame path allocates nothing in steady state: simulation steps
//! (controller, animation state) and the pose pipeline (sampling, blending,
//! foot and ladder IK, palette), counted with a counting global allocator
//! over the walk, slope and ladder scripts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use game::character::Character;
use game::player::DT;
use game::script::Script;
use game::sim::Sim;
use game::world::Level;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    // Running, jumping, climbing both ladders, walking to the exit.
    for _ in 0..2300 {
        sim.step(&input.next_input());
        sim.pose(DT);
    }
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(allocations, 0, "allocations in 2,300 steady-state frames");
}
