//! The game library behind the `ironstep` binary: the level model, the player
//! controller, and (as they land) the pose pipeline and the application.

pub mod anim_state;
pub mod app;
pub mod bench;
pub mod character;
pub mod clock;
pub mod contact;
pub mod crowd;
pub mod designer;
pub mod fsio;
pub mod fuzzing;
pub mod headless;
pub mod ik_lab;
pub mod knight;
pub mod level;
pub mod metrics;
pub mod model;
pub mod overlay;
pub mod player;
pub mod pose_pipeline;
pub mod profile;
pub mod render_model;
pub mod rig;
pub mod scene;
pub mod script;
pub mod sim;
pub mod ui;
pub mod world;
