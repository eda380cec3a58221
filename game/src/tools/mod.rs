//! The command-line tools of the `ironstep` binary besides `play`:
//! `run` ([`headless`], with its motion [`metrics`], the [`autopilot`] and
//! the whole level sequence, [`campaign`]), `bench` ([`bench`]),
//! `inspect` ([`inspect`]), `render` ([`render_model`]), `ik-lab`
//! ([`ik_lab`], a window of its own) and the bodies of the fuzz targets
//! ([`fuzzing`]), and the sound log of `run --sound-log` ([`sound_log`]).
//! `check-level` lives with the levels
//! ([`crate::level::check`]).

pub mod autopilot;
pub mod bench;
pub mod campaign;
pub mod fuzzing;
pub mod headless;
pub mod ik_lab;
pub mod inspect;
pub mod metrics;
pub mod render_model;
pub mod rig;
pub mod sound_log;
