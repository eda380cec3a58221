//! The game window and what draws over it: the winit application
//! ([`app`]) and the simulation side of its frames ([`frame_sim`]), designer mode ([`designer`]), the game flow's screens and HUD
//! ([`flow_ui`]), the F3 profiling overlay ([`overlay`]) and the egui glue
//! they share ([`ui`]).

pub mod app;
pub mod designer;
pub mod flow_ui;
pub mod frame_sim;
pub mod overlay;
pub mod ui;
