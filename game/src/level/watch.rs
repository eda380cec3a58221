//! Hot reload: watches a level's TMX (and the tilesets and templates beside
//! it) and reloads it shortly after Tiled saves, keeping the last good level
//! when the new file is broken.
//!
//! The watcher is polled from the game loop ([`LevelWatcher::poll`]); file
//! events arrive on a channel from the `notify` crate's thread. Editors save
//! in bursts (truncate, write, rename), so a reload waits until the folder has
//! been quiet for [`DEBOUNCE`].

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use glam::Vec2;
use notify::{RecursiveMode, Watcher};
use thiserror::Error;

use super::{LevelError, LoadedLevel};
use crate::world::Level;

/// Quiet time after the last file event before reloading: long enough to see
/// a whole save burst, short enough that a save shows within half a second.
pub const DEBOUNCE: Duration = Duration::from_millis(120);
/// Extensions whose change triggers a reload: the map, external tilesets,
/// templates and the project file.
pub const WATCHED_EXTENSIONS: [&str; 4] = ["tmx", "tsx", "tx", "tiled-project"];

/// Why the watcher could not start.
#[derive(Debug, Error)]
pub enum WatchError {
    /// The first load failed: there is no good level to keep.
    #[error(transparent)]
    Level(#[from] LevelError),
    /// The file system watcher could not start.
    #[error("{dir}: cannot watch: {source}")]
    Notify {
        /// The watched folder.
        dir: String,
        /// The watcher's error.
        source: notify::Error,
    },
}

/// What a poll found.
#[derive(Debug)]
pub enum Reload {
    /// The file changed and loaded: this is the new level.
    Reloaded(Box<LoadedLevel>),
    /// The file changed but is broken: the old level stays; show this.
    Error(String),
}

/// Watches one level file and reloads it when it (or anything beside it that
/// it may use) changes.
pub struct LevelWatcher {
    path: PathBuf,
    current: LoadedLevel,
    last_error: Option<String>,
    events: Receiver<notify::Result<notify::Event>>,
    pending_since: Option<Instant>,
    // Kept alive: dropping it stops the events.
    _watcher: notify::RecommendedWatcher,
}

impl LevelWatcher {
    /// Loads the level and starts watching its folder.
    pub fn new(path: impl AsRef<Path>) -> Result<Self, WatchError> {
        let path = path.as_ref().to_path_buf();
        let current = super::load(&path)?;
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let (tx, events) = channel();
        let mut watcher = notify::recommended_watcher(move |ev| {
            // The receiver is gone only when the watcher is dropped.
            let _ = tx.send(ev);
        })
        .map_err(|source| WatchError::Notify {
            dir: dir.display().to_string(),
            source,
        })?;
        watcher
            .watch(&dir, RecursiveMode::NonRecursive)
            .map_err(|source| WatchError::Notify {
                dir: dir.display().to_string(),
                source,
            })?;
        Ok(Self {
            path,
            current,
            last_error: None,
            events,
            pending_since: None,
            _watcher: watcher,
        })
    }

    /// The last level that loaded.
    pub fn current(&self) -> &LoadedLevel {
        &self.current
    }

    /// The error of the last failed reload, until a reload succeeds.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    /// Drains file events; once they have been quiet for [`DEBOUNCE`],
    /// reloads. Never blocks.
    pub fn poll(&mut self) -> Option<Reload> {
        self.poll_at(Instant::now())
    }

    /// Polls until a reload happens or `timeout` passes (for tools and tests).
    pub fn wait(&mut self, timeout: Duration) -> Option<Reload> {
        let end = Instant::now() + timeout;
        loop {
            if let Some(r) = self.poll() {
                return Some(r);
            }
            if Instant::now() >= end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn poll_at(&mut self, now: Instant) -> Option<Reload> {
        while let Ok(ev) = self.events.try_recv() {
            let relevant = match ev {
                Ok(ev) => {
                    ev.paths.iter().any(|p| {
                        p.extension()
                            .and_then(|e| e.to_str())
                            .is_some_and(|e| WATCHED_EXTENSIONS.contains(&e))
                    }) && !matches!(ev.kind, notify::EventKind::Access(_))
                }
                // A watcher error: reload to be safe.
                Err(_) => true,
            };
            if relevant {
                self.pending_since = Some(now);
            }
        }
        let since = self.pending_since?;
        if now.duration_since(since) < DEBOUNCE {
            return None;
        }
        self.pending_since = None;
        match super::load(&self.path) {
            Ok(level) => {
                self.current = level.clone();
                self.last_error = None;
                Some(Reload::Reloaded(Box::new(level)))
            }
            Err(e) => {
                let msg = format!("{e} (keeping the last good level)");
                self.last_error = Some(msg.clone());
                Some(Reload::Error(msg))
            }
        }
    }
}

/// Moves a player position to the nearest valid spot in `level`: unchanged
/// when it is on a ladder or above ground, lifted onto the surface when it is
/// inside the ground, and put on the nearest ground when it is over a gap or
/// outside the level. With no ground at all, the spawn.
pub fn relocate(pos: Vec2, level: &Level) -> Vec2 {
    if !pos.is_finite() {
        return level.spawn;
    }
    if level.ladder_at(pos, crate::player::LADDER_REACH).is_some() {
        return pos;
    }
    if let Some(h) = level.ground_height(pos.x) {
        return Vec2::new(pos.x, pos.y.max(h));
    }
    // Over a gap or beyond the ends: the nearest surface point.
    const EDGE_INSET: f32 = 1e-3;
    level
        .segments
        .iter()
        .map(|s| {
            let x = pos.x.clamp(s.x0, (s.x1 - EDGE_INSET).max(s.x0));
            Vec2::new(x, s.height_at(x))
        })
        .min_by(|a, b| a.distance_squared(pos).total_cmp(&b.distance_squared(pos)))
        .unwrap_or(level.spawn)
}
