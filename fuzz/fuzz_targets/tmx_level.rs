//! Fuzz target: `game::fuzzing::tmx_level` (see that module for what it checks).
#![no_main]

libfuzzer_sys::fuzz_target!(init: game::fuzzing::init(), |data: &[u8]| {
    game::fuzzing::tmx_level(data)
});
