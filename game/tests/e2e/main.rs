//! The end-to-end tests of the `ironstep` binary and the `game` library, in
//! one test binary: every file here is a module of it (one link of the game
//! with wgpu, egui and winit instead of one per file, which was most of the
//! test build's time on a 2-core machine). The modules run the real binary
//! headless (lavapipe, Xvfb) or the real pipeline; `common` holds what
//! several share.
//!
//! One global allocator serves the whole binary: the game's
//! [`CountingAllocator`], which counts per thread and per path only for the
//! threads that ask, so the allocation tests (`no_alloc`, `soak`) measure
//! their own thread whatever the other tests do at the same time.

use game::profile::CountingAllocator;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

mod common;

mod auto_rig;
mod autopilot;
mod bench;
mod campaign;
mod cesium_rig;
mod character_flag;
mod check_level;
mod designer;
mod device;
mod display_rate;
mod flow;
mod fuzz_corpus;
mod hostile_levels;
mod hostile_models;
mod ik_lab;
mod inspect;
mod knight_asset;
mod ledges;
mod level_names;
mod levels_play;
mod levels_vertical;
mod look;
mod menus;
mod motion;
mod no_alloc;
mod platform_feet;
mod profile_overlay;
mod render_model;
mod replay;
mod rigid_parts;
mod soak;
mod sound;
mod strip;
mod tmj_levels;
mod walls;
mod window;
