//! Fuzz target: `game::tools::fuzzing::tmj_level` (see that module for what it checks).
#![no_main]

libfuzzer_sys::fuzz_target!(init: game::tools::fuzzing::init(), |data: &[u8]| {
    game::tools::fuzzing::tmj_level(data);
});
