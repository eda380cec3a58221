//! Fuzz target: `game::tools::fuzzing::gltf_import` (see that module for what it checks).
#![no_main]

libfuzzer_sys::fuzz_target!(init: game::tools::fuzzing::init(), |data: &[u8]| {
    game::tools::fuzzing::gltf_import(data);
});
