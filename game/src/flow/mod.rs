//! The game flow around the simulation, testable without a window: a
//! level's run (timer, falls, checkpoints, respawn fade, exit), the order of
//! the levels, the menus and screens, and what is saved between sessions.
//!
//! - [`run`]: one attempt at one level, [`run::LevelRun`], stepped once
//!   per fixed step in place of [`crate::sim::Sim::step`]; it pushes
//!   [`run::FlowEvent`]s (checkpoint reached, fell, respawned, level
//!   complete) onto a per-frame list for sounds and the HUD.
//! - [`sequence`]: the level order, `assets/levels/sequence.ron`.
//! - [`game`]: the screens (title, level select, controls, settings,
//!   playing, paused, level complete, finished), their menus and the
//!   [`game::Command`]s they ask of the window.
//! - [`save`]: progress and settings in the per-user data folder, written
//!   atomically; corrupt files reported and replaced.
//! - [`bindings`]: the keys and gamepad buttons of each action, saved with
//!   the settings, and the rules a rebinding must keep.
//!
//! The window (`crate::window::app`) and the headless campaign
//! (`crate::tools::campaign`) drive the same types; nothing here draws,
//! plays sound or opens files other than the save files.

pub mod bindings;
pub mod game;
pub mod run;
pub mod save;
pub mod sequence;

pub use bindings::{Action, Bindings};
pub use game::{Command, Current, Game, Item, MenuKey, Screen};
pub use run::{FlowEvent, LevelRun, Phase};
pub use save::{Progress, SaveStore, Settings};
pub use sequence::Sequence;
