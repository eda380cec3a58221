//! The game library behind the `ironstep` binary, grouped by capability:
//!
//! - [`sim`]: the simulation and its world: the level model, the player
//!   controller, the fixed-step clock, input scripts and the hecs systems.
//! - [`level`]: Tiled levels: loading, checking, watching, editing, and the
//!   levels shipped in the binary.
//! - [`character`]: a playable character and its per-frame pose pipeline:
//!   rig files, contacts, the animation state machine, the crowd, glTF
//!   models as characters.
//! - [`audio`]: sound: the sounds each contact event makes, synthesized at
//!   startup, played through the audio device or not at all without one.
//! - [`knight`]: the generator of our own knight (skeleton, mesh, clips,
//!   glTF writer).
//! - [`window`]: the game window, designer mode, the profiling overlay and
//!   the egui glue.
//! - [`flow`]: the game around the levels: a level's run (timer, falls,
//!   checkpoints, respawn, exit), the level sequence, menus and screens,
//!   saved progress and settings; no window needed.
//! - [`cli`]: the `ironstep` command line (its clap definition and the
//!   dispatch to each subcommand).
//! - [`tools`]: the command-line tools (`run`, `bench`, `inspect`,
//!   `render`, `ik-lab`) and the fuzz targets' bodies.
//! - [`scene`] (what the renderer is given), [`dust`] (the pool of dust
//!   puffs raised by landings and hard foot plants), [`profile`] (our
//!   profiler and counting allocator) and [`fsio`] (atomic file writes)
//!   serve them all.

pub mod audio;
pub mod character;
pub mod cli;
pub mod dust;
pub mod flow;
pub mod fsio;
pub mod knight;
pub mod level;
pub mod profile;
pub mod scene;
pub mod sim;
pub mod tools;
pub mod window;
