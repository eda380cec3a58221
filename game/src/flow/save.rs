//! What the game keeps between sessions, per user: the progress (levels
//! completed, best times) and the settings, two small RON files in the
//! platform's data folder (`directories`: `~/.local/share/ironstep` on
//! Linux, `%APPDATA%\ironstep\data` on Windows, `~/Library/Application
//! Support/ironstep` on macOS).
//!
//! The folder can be moved with `--data-dir DIR` or the
//! [`DATA_DIR_ENV`] environment variable (the flag wins); tests always
//! set one, so they never touch the real home folder.
//!
//! Every write goes through [`crate::fsio::write_atomic`] (temporary file
//! and rename), so a crash mid-save leaves the old file. A file that cannot
//! be read as what it should hold (bad RON, a value out of range) is
//! reported in one log line naming the file and the reason, kept beside as
//! `NAME.corrupt`, and replaced by a fresh one: the game starts, never
//! crashes. Two files rather than one so a broken settings file never costs
//! the progress.
//!
//! Limits: a save file larger than [`MAX_SAVE_BYTES`], a progress file of
//! more than [`MAX_PROGRESS_LEVELS`] levels or with a level name longer than
//! [`MAX_LEVEL_KEY_BYTES`] counts as corrupt (reported, kept aside,
//! replaced). Something that is not a regular file in a save file's place (a
//! folder, a device, a pipe) is reported and left alone: the game plays with
//! defaults rather than wait on it or move it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::flow::bindings::Bindings;

/// The environment variable that moves the save folder.
pub const DATA_DIR_ENV: &str = "IRONSTEP_DATA_DIR";
/// The progress file's name in the save folder.
pub const PROGRESS_FILE: &str = "progress.ron";
/// The settings file's name in the save folder.
pub const SETTINGS_FILE: &str = "settings.ron";
/// The volume a fresh settings file has, 0 to 1: loud enough to hear, with
/// room above it.
pub const DEFAULT_VOLUME: f32 = 0.8;

/// Largest save file read, bytes: a progress file of
/// [`MAX_PROGRESS_LEVELS`] levels with long names fits easily; anything
/// larger is not ours.
pub const MAX_SAVE_BYTES: u64 = 1 << 20;
/// Most completed levels a progress file may list: hundreds of times the
/// shipped sequence, with room for every level file a designer plays.
pub const MAX_PROGRESS_LEVELS: usize = 4096;
/// Longest level name (a path, for a level played from a file) a progress
/// file may key, bytes: the common path length limit (`PATH_MAX`).
pub const MAX_LEVEL_KEY_BYTES: usize = 4096;

/// The best run of one completed level.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The quickest time from spawn to exit, seconds of game time.
    pub best_time_s: f32,
    /// The fewest falls in any completed run.
    pub fewest_falls: u32,
}

/// Which levels were completed, and how well.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Progress {
    /// Completed levels by name (the name `--level` takes; a level played
    /// from a file is keyed by its path).
    pub completed: BTreeMap<String, Record>,
}

impl Progress {
    /// Records a completed run; returns whether its time is a new best
    /// (the first completion is one).
    pub fn record(&mut self, level: &str, time_s: f32, falls: u32) -> bool {
        match self.completed.get_mut(level) {
            None => {
                self.completed.insert(
                    level.to_string(),
                    Record {
                        best_time_s: time_s,
                        fewest_falls: falls,
                    },
                );
                true
            }
            Some(r) => {
                r.fewest_falls = r.fewest_falls.min(falls);
                let best = time_s < r.best_time_s;
                if best {
                    r.best_time_s = time_s;
                }
                best
            }
        }
    }

    /// The best time of `level`, if it was completed.
    pub fn best_time(&self, level: &str) -> Option<f32> {
        self.completed.get(level).map(|r| r.best_time_s)
    }

    fn validate(&self) -> Result<(), String> {
        if self.completed.len() > MAX_PROGRESS_LEVELS {
            return Err(format!(
                "{} completed levels, more than the limit of {MAX_PROGRESS_LEVELS}",
                self.completed.len()
            ));
        }
        for (name, r) in &self.completed {
            if name.len() > MAX_LEVEL_KEY_BYTES {
                return Err(format!(
                    "a level name of {} bytes, longer than the limit of {MAX_LEVEL_KEY_BYTES}",
                    name.len()
                ));
            }
            if !(r.best_time_s.is_finite() && r.best_time_s >= 0.0) {
                return Err(format!(
                    "the best time of {name:?} is {}, not a number of seconds",
                    r.best_time_s
                ));
            }
        }
        Ok(())
    }
}

/// The player's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Fullscreen (borderless) rather than a window.
    pub fullscreen: bool,
    /// Master volume, 0 (silent) to 1 (for the sound system to read).
    pub volume: f32,
    /// Foot and ladder IK on.
    pub ik: bool,
    /// The debug overlay (bones, IK targets, probes) shown.
    pub debug: bool,
    /// The keys and gamepad buttons of each action (a file without them,
    /// from before they could be changed, gets the defaults).
    pub bindings: Bindings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            fullscreen: false,
            volume: DEFAULT_VOLUME,
            ik: true,
            debug: false,
            bindings: Bindings::default(),
        }
    }
}

impl Settings {
    fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.volume) {
            return Err(format!("volume is {}, not between 0 and 1", self.volume));
        }
        self.bindings
            .check()
            .map_err(|e| format!("key bindings: {e}"))
    }
}

/// What the save files must pass beyond parsing.
trait Checked {
    fn check(&self) -> Result<(), String>;
}

impl Checked for Progress {
    fn check(&self) -> Result<(), String> {
        self.validate()
    }
}

impl Checked for Settings {
    fn check(&self) -> Result<(), String> {
        self.validate()
    }
}

/// Where the save files live.
#[derive(Clone, Debug, PartialEq)]
pub struct SaveStore {
    dir: PathBuf,
}

impl SaveStore {
    /// A store in `dir` (created when the first file is saved).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The store the game uses: `flag` (`--data-dir`) if given, else the
    /// [`DATA_DIR_ENV`] variable if set and not empty, else the platform's
    /// per-user data folder. `None` when there is none (no home folder):
    /// the game then plays without saving.
    pub fn locate(flag: Option<&Path>) -> Option<Self> {
        if let Some(dir) = flag {
            return Some(Self::at(dir));
        }
        if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|d| !d.is_empty()) {
            return Some(Self::at(dir));
        }
        directories::ProjectDirs::from("", "", "ironstep").map(|d| Self::at(d.data_dir()))
    }

    /// The save folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The progress file's path.
    pub fn progress_path(&self) -> PathBuf {
        self.dir.join(PROGRESS_FILE)
    }

    /// The settings file's path.
    pub fn settings_path(&self) -> PathBuf {
        self.dir.join(SETTINGS_FILE)
    }

    /// Reads the progress. A missing file is no progress; a corrupt one is
    /// reported, kept as `progress.ron.corrupt` and replaced (see the
    /// module's documentation). The second value is the log line written,
    /// if any.
    pub fn load_progress(&self) -> (Progress, Option<String>) {
        load_or_replace(&self.progress_path())
    }

    /// Reads the settings, like [`SaveStore::load_progress`].
    pub fn load_settings(&self) -> (Settings, Option<String>) {
        load_or_replace(&self.settings_path())
    }

    /// Writes the progress atomically.
    pub fn save_progress(&self, p: &Progress) -> Result<(), String> {
        save(&self.progress_path(), p)
    }

    /// Writes the settings atomically.
    pub fn save_settings(&self, s: &Settings) -> Result<(), String> {
        save(&self.settings_path(), s)
    }
}

/// Writes `value` as pretty RON to `path` atomically, creating the folder;
/// the error names the file and the reason.
fn save<T: Serialize>(path: &Path, value: &T) -> Result<(), String> {
    let text = ron::ser::to_string_pretty(value, ron::ser::PrettyConfig::default())
        .map_err(|e| format!("{}: cannot encode: {e}", path.display()))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))?;
    }
    crate::fsio::write_atomic(path, text.as_bytes())
        .map_err(|e| format!("{}: cannot save: {e}", path.display()))
}

/// Reads `path` as `T`; see [`SaveStore::load_progress`].
fn load_or_replace<T>(path: &Path) -> (T, Option<String>)
where
    T: Default + Serialize + DeserializeOwned + Checked,
{
    let text = match crate::fsio::read_bounded(path, MAX_SAVE_BYTES) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (T::default(), None),
        // Too large: corrupt, replaced below like any other.
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => Err(e.to_string()),
        Err(e) => {
            // Unreadable (permissions, a folder in its place): nothing can
            // be replaced safely; play with defaults and say so.
            let line = format!(
                "ironstep: {}: cannot read the save file ({e}); playing with defaults",
                path.display()
            );
            eprintln!("{line}");
            return (T::default(), Some(line));
        }
    };
    let parsed = text
        .and_then(|text| String::from_utf8(text).map_err(|e| format!("not UTF-8 text: {e}")))
        .and_then(|t| ron::from_str::<T>(&t).map_err(|e| e.to_string()))
        .and_then(|v| v.check().map(|()| v));
    let reason = match parsed {
        Ok(v) => return (v, None),
        Err(reason) => reason,
    };
    let fresh = T::default();
    let mut kept = path.as_os_str().to_owned();
    kept.push(".corrupt");
    let kept = PathBuf::from(kept);
    let outcome = std::fs::rename(path, &kept)
        .map_err(|e| format!("cannot move it aside: {e}"))
        .and_then(|()| save(path, &fresh));
    let line = match outcome {
        Ok(()) => format!(
            "ironstep: {}: corrupt save file ({reason}); kept as {} and replaced by a fresh one",
            path.display(),
            kept.display()
        ),
        Err(e) => format!(
            "ironstep: {}: corrupt save file ({reason}); playing with defaults ({e})",
            path.display()
        ),
    };
    eprintln!("{line}");
    (fresh, Some(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ironstep-save-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn progress_and_settings_round_trip_through_the_folder() {
        let store = SaveStore::at(scratch("round-trip").join("nested"));
        let (p, msg) = store.load_progress();
        assert_eq!((p, msg), (Progress::default(), None));
        let mut p = Progress::default();
        assert!(p.record("tutorial", 31.5, 2));
        assert!(!p.record("tutorial", 40.0, 0), "slower is no best");
        assert!(p.record("tutorial", 30.0, 1));
        store.save_progress(&p).unwrap();
        let mut s = Settings {
            fullscreen: true,
            volume: 0.25,
            ik: false,
            debug: true,
            ..Settings::default()
        };
        s.bindings
            .bind_key(crate::flow::bindings::Action::Jump, "KeyK")
            .unwrap();
        s.bindings
            .bind_button(crate::flow::bindings::Action::Run, "North")
            .unwrap();
        store.save_settings(&s).unwrap();
        assert_eq!(store.load_progress(), (p.clone(), None));
        assert_eq!(store.load_settings(), (s, None));
        let r = p.completed["tutorial"];
        assert_eq!((r.best_time_s, r.fewest_falls), (30.0, 0));
        // Nothing but the two files: the temporary files were renamed.
        let mut names: Vec<String> = std::fs::read_dir(store.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [PROGRESS_FILE, SETTINGS_FILE]);
    }

    #[test]
    fn a_corrupt_file_is_reported_kept_aside_and_replaced() {
        let dir = scratch("corrupt");
        std::fs::create_dir_all(&dir).unwrap();
        let store = SaveStore::at(&dir);
        std::fs::write(store.progress_path(), "(completed: {\"tutorial\": (best_ti").unwrap();
        let (p, msg) = store.load_progress();
        assert_eq!(p, Progress::default());
        let msg = msg.expect("a log line");
        assert!(
            msg.contains(&store.progress_path().display().to_string())
                && msg.contains("corrupt save file")
                && msg.contains("replaced"),
            "{msg}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("progress.ron.corrupt")).unwrap(),
            "(completed: {\"tutorial\": (best_ti"
        );
        // The replacement reads back cleanly.
        assert_eq!(store.load_progress(), (Progress::default(), None));
    }

    #[test]
    fn values_out_of_range_count_as_corrupt() {
        let dir = scratch("range");
        std::fs::create_dir_all(&dir).unwrap();
        let store = SaveStore::at(&dir);
        std::fs::write(store.settings_path(), "(volume: 7.0)").unwrap();
        let (s, msg) = store.load_settings();
        assert_eq!(s, Settings::default());
        assert!(msg.unwrap().contains("volume is 7"));
        std::fs::write(
            store.progress_path(),
            "(completed: {\"long\": (best_time_s: -1.0, fewest_falls: 0)})",
        )
        .unwrap();
        let (_, msg) = store.load_progress();
        assert!(msg.unwrap().contains("best time of \"long\""));
        // Binary junk is corrupt too, not a panic.
        std::fs::write(store.settings_path(), [0xff, 0xfe, 0x00]).unwrap();
        assert!(store.load_settings().1.unwrap().contains("not UTF-8"));
    }

    #[test]
    fn files_past_the_limits_are_corrupt_and_replaced() {
        let dir = scratch("limits");
        std::fs::create_dir_all(&dir).unwrap();
        let store = SaveStore::at(&dir);
        // Too large: a megabyte of spaces before a valid settings file.
        let mut big = vec![b' '; MAX_SAVE_BYTES as usize];
        big.extend_from_slice(b"(debug: true)");
        std::fs::write(store.settings_path(), &big).unwrap();
        let (s, msg) = store.load_settings();
        assert_eq!(s, Settings::default());
        let msg = msg.unwrap();
        assert!(
            msg.contains("corrupt save file")
                && msg.contains(&format!("limit of {MAX_SAVE_BYTES} bytes"))
                && msg.contains("replaced"),
            "{msg}"
        );
        assert_eq!(
            std::fs::metadata(dir.join("settings.ron.corrupt"))
                .unwrap()
                .len(),
            big.len() as u64
        );
        assert_eq!(store.load_settings(), (Settings::default(), None));
        // Too many levels, and a name too long.
        let entry = |name: String| format!("{name:?}: (best_time_s: 1.0, fewest_falls: 0)");
        let many: Vec<String> = (0..=MAX_PROGRESS_LEVELS)
            .map(|i| entry(format!("l{i}")))
            .collect();
        std::fs::write(
            store.progress_path(),
            format!("(completed: {{{}}})", many.join(",")),
        )
        .unwrap();
        let msg = store.load_progress().1.unwrap();
        assert!(
            msg.contains("4097 completed levels, more than the limit of 4096"),
            "{msg}"
        );
        let long = entry("x".repeat(MAX_LEVEL_KEY_BYTES + 1));
        std::fs::write(store.progress_path(), format!("(completed: {{{long}}})")).unwrap();
        let msg = store.load_progress().1.unwrap();
        assert!(msg.contains("a level name of 4097 bytes"), "{msg}");
    }

    #[test]
    fn something_not_a_file_in_a_save_files_place_is_left_alone() {
        let dir = scratch("not-a-file");
        std::fs::create_dir_all(dir.join(SETTINGS_FILE)).unwrap();
        let store = SaveStore::at(&dir);
        let (s, msg) = store.load_settings();
        assert_eq!(s, Settings::default());
        assert!(msg.unwrap().contains("not a regular file"));
        assert!(dir.join(SETTINGS_FILE).is_dir(), "left where it was");
        #[cfg(unix)]
        {
            // A pipe is not waited on.
            let fifo = dir.join(PROGRESS_FILE);
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.is_ok_and(|s| s.success()), "mkfifo");
            let (p, msg) = store.load_progress();
            assert_eq!(p, Progress::default());
            assert!(msg.unwrap().contains("not a regular file"));
        }
    }

    #[test]
    fn a_partial_settings_file_keeps_the_defaults_of_what_it_omits() {
        let dir = scratch("partial");
        std::fs::create_dir_all(&dir).unwrap();
        let store = SaveStore::at(&dir);
        std::fs::write(store.settings_path(), "(debug: true)").unwrap();
        let (s, msg) = store.load_settings();
        assert_eq!(msg, None);
        assert_eq!(
            s,
            Settings {
                debug: true,
                ..Settings::default()
            }
        );
    }

    /// The folder [`the_flag_wins_over_the_environment`] puts in
    /// [`DATA_DIR_ENV`] for the child test process it runs.
    const ENV_DIR: &str = "/from/the/environment";

    /// Runs itself again as a child process with [`DATA_DIR_ENV`] set (the
    /// variable is set for the child only: setting it in this process would
    /// race the other tests' threads), and the child checks that the
    /// variable moves the store and that `--data-dir` wins over it.
    #[test]
    fn the_flag_wins_over_the_environment() {
        const NAME: &str = "flow::save::tests::the_flag_wins_over_the_environment";
        if std::env::var_os(DATA_DIR_ENV).is_some_and(|v| v == ENV_DIR) {
            // The child: the variable is set.
            assert_eq!(SaveStore::locate(None).unwrap().dir(), Path::new(ENV_DIR));
            let flag = Path::new("/somewhere/else");
            assert_eq!(SaveStore::locate(Some(flag)).unwrap().dir(), flag);
            println!("checked with {DATA_DIR_ENV}={ENV_DIR}");
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([NAME, "--exact", "--nocapture", "--test-threads", "1"])
            .env(DATA_DIR_ENV, ENV_DIR)
            .output()
            .expect("the test binary runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(&format!("checked with {DATA_DIR_ENV}")),
            "the child test failed or did not run:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A settings file from before key bindings (no `bindings` field), or
    /// one that leaves an action out, loads with the default bindings.
    #[test]
    fn an_old_settings_file_gets_the_default_bindings() {
        let dir = scratch("old-settings");
        std::fs::create_dir_all(&dir).unwrap();
        let store = SaveStore::at(&dir);
        std::fs::write(
            store.settings_path(),
            "(fullscreen: false, volume: 0.5, ik: true, debug: false)",
        )
        .unwrap();
        let (s, msg) = store.load_settings();
        assert_eq!(msg, None);
        assert_eq!(s.bindings, Bindings::default());
        assert_eq!(s.volume, 0.5);
        std::fs::write(
            store.settings_path(),
            "(bindings: (jump: (keys: [\"KeyK\"], pad: [\"South\"])))",
        )
        .unwrap();
        let (s, msg) = store.load_settings();
        assert_eq!(msg, None);
        assert_eq!(s.bindings.jump.keys, ["KeyK"]);
        assert_eq!(s.bindings.left, Bindings::default().left);
    }

    /// Bindings that break the rules (a key on two actions) make the file
    /// corrupt: reported naming the key and the actions, kept aside and
    /// replaced, as any corrupt settings file.
    #[test]
    fn conflicting_bindings_in_the_file_are_reported_and_replaced() {
        let dir = scratch("conflict");
        std::fs::create_dir_all(&dir).unwrap();
        let store = SaveStore::at(&dir);
        std::fs::write(
            store.settings_path(),
            "(bindings: (jump: (keys: [\"KeyA\"])))",
        )
        .unwrap();
        let (s, msg) = store.load_settings();
        assert_eq!(s, Settings::default());
        let msg = msg.unwrap();
        assert!(
            msg.contains("key bindings: the key KeyA is bound to both \"walk left\" and \"jump")
                && msg.contains("replaced"),
            "{msg}"
        );
        assert!(dir.join("settings.ron.corrupt").is_file());
        assert_eq!(store.load_settings(), (Settings::default(), None));
    }
}
