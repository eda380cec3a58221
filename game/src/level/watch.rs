//! Hot reload: watches a level's map (TMX or TMJ) and the tilesets and
//! templates beside it, and reloads it shortly after Tiled saves, keeping
//! the last good level when the new file is broken.
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
use crate::sim::world::{FloorFilter, Level};

/// Quiet time after the last file event before reloading: long enough to see
/// a whole save burst, short enough that a save shows within half a second.
pub const DEBOUNCE: Duration = Duration::from_millis(120);
/// Extensions whose change triggers a reload: the map, external tilesets,
/// templates and the project file, in Tiled's XML and JSON formats.
pub const WATCHED_EXTENSIONS: [&str; 8] = [
    "tmx",
    "tsx",
    "tx",
    "tmj",
    "tsj",
    "tj",
    "json",
    "tiled-project",
];

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

/// How far below a floor a position may lie and still be lifted onto it,
/// metres: one tile, the most one edit of a cell raises a floor (a slope
/// edge from the cell's bottom to its top, a new tile over the feet).
/// Deeper, the position is inside the ground rather than just under a
/// floor that rose, and goes to the nearest floor instead.
pub const BURIED_DEPTH: f32 = super::TILE_METRES;

/// Moves a player position to the nearest valid spot in `level`: unchanged
/// when it is on a ladder or above a floor (the floor under it, not the
/// column's top: a player under a floating platform stays under it), lifted
/// onto a floor that rose over it by up to [`BURIED_DEPTH`], and put on the
/// nearest floor when it is over a gap, deeper in the ground or outside the
/// level. With no floor at all, the spawn.
pub fn relocate(pos: Vec2, level: &Level) -> Vec2 {
    if !pos.is_finite() {
        return level.spawn;
    }
    if level
        .ladder_at(pos, crate::sim::player::LADDER_REACH)
        .is_some()
    {
        return pos;
    }
    // One-way planks are left out: standing under one is no burial.
    if let Some(hit) = level.floor_below_filtered(
        pos.x,
        pos.y + BURIED_DEPTH,
        BURIED_DEPTH,
        FloorFilter::Solid,
    ) && hit.y > pos.y
    {
        return Vec2::new(pos.x, hit.y);
    }
    if level.floor_below(pos.x, pos.y, f32::INFINITY).is_some() {
        return pos;
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

#[cfg(test)]
mod tests {
    use super::super::testmaps::{map, point};
    use super::*;

    /// A fresh folder under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let p =
                std::env::temp_dir().join(format!("ironstep-watch-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            Self(p)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn level_text(width: usize) -> String {
        let floor = "#".repeat(width);
        let air = ".".repeat(width);
        let rows: &[&str] = &[&air, &floor];
        map(
            &[rows],
            &(point(1, "Spawn", 0.0, 1) + &point(2, "Exit", (width - 1) as f32, 1)),
        )
    }

    /// Generous wait for file events on a loaded CI machine; the reload itself
    /// follows the last event by [`DEBOUNCE`].
    const EVENT_WAIT: Duration = Duration::from_secs(10);

    #[test]
    fn saving_a_changed_map_reloads_it() {
        let dir = TempDir::new("reload");
        let path = dir.0.join("level.tmx");
        std::fs::write(&path, level_text(6)).unwrap();
        let mut w = LevelWatcher::new(&path).unwrap();
        assert_eq!(w.current().level.extent(), (0.0, 3.0));
        let saved = Instant::now();
        std::fs::write(&path, level_text(10)).unwrap();
        match w.wait(EVENT_WAIT) {
            Some(Reload::Reloaded(l)) => {
                // Reported, not asserted: wall-clock times vary on CI.
                println!("reloaded {:?} after the save", saved.elapsed());
                assert_eq!(l.level.extent(), (0.0, 5.0));
            }
            other => panic!("expected a reload, got {other:?}"),
        }
        assert_eq!(w.current().level.extent(), (0.0, 5.0));
        assert!(w.last_error().is_none());
    }

    #[test]
    fn a_broken_save_keeps_the_old_level_and_reports_file_and_reason() {
        let dir = TempDir::new("broken");
        let path = dir.0.join("level.tmx");
        std::fs::write(&path, level_text(6)).unwrap();
        let mut w = LevelWatcher::new(&path).unwrap();
        std::fs::write(&path, "<map><layer").unwrap();
        match w.wait(EVENT_WAIT) {
            Some(Reload::Error(msg)) => {
                assert!(msg.contains("level.tmx"), "{msg}");
                assert!(msg.contains("keeping the last good level"), "{msg}");
            }
            other => panic!("expected an error, got {other:?}"),
        }
        assert_eq!(w.current().level.extent(), (0.0, 3.0), "old level kept");
        assert!(w.last_error().is_some());
        // Fixing the file clears the error.
        std::fs::write(&path, level_text(8)).unwrap();
        match w.wait(EVENT_WAIT) {
            Some(Reload::Reloaded(l)) => assert_eq!(l.level.extent(), (0.0, 4.0)),
            other => panic!("expected a reload, got {other:?}"),
        }
        assert!(w.last_error().is_none());
    }

    #[test]
    fn an_atomic_save_by_rename_reloads_like_tileds_save() {
        let dir = TempDir::new("rename");
        let path = dir.0.join("level.tmx");
        std::fs::write(&path, level_text(6)).unwrap();
        let mut w = LevelWatcher::new(&path).unwrap();
        // Tiled (QSaveFile) writes a temporary file and renames it over the map.
        let tmp = dir.0.join("level.tmx.a1b2c3");
        std::fs::write(&tmp, level_text(12)).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        match w.wait(EVENT_WAIT) {
            Some(Reload::Reloaded(l)) => assert_eq!(l.level.extent(), (0.0, 6.0)),
            other => panic!("expected a reload, got {other:?}"),
        }
    }

    #[test]
    fn a_missing_file_fails_to_start_with_its_name() {
        let e = LevelWatcher::new("/nonexistent/ironstep/level.tmx")
            .err()
            .unwrap();
        assert!(
            e.to_string().contains("/nonexistent/ironstep/level.tmx"),
            "{e}"
        );
    }

    fn gap_level() -> Level {
        let rows: &[&str] = &["......", "##..##"];
        super::super::from_tmx_str(
            &map(
                &[rows],
                &(point(1, "Spawn", 0.0, 1) + &point(2, "Exit", 5.0, 1)),
            ),
            "gap.tmx",
        )
        .unwrap()
        .level
    }

    #[test]
    fn relocate_keeps_a_valid_spot_and_lifts_a_buried_one() {
        let l = gap_level();
        assert_eq!(relocate(Vec2::new(0.3, 2.0), &l), Vec2::new(0.3, 2.0));
        assert_eq!(relocate(Vec2::new(0.3, -1.0), &l), Vec2::new(0.3, 0.5));
    }

    #[test]
    fn relocate_keeps_a_player_under_a_floating_platform_under_it() {
        let rows: &[&str] = &["......", "..##..", "......", "......", "######"];
        let l = super::super::from_tmx_str(
            &map(
                &[rows],
                &(point(1, "Spawn", 0.0, 4) + &point(2, "Exit", 5.0, 4)),
            ),
            "under.tmx",
        )
        .unwrap()
        .level;
        // The ground is at 0.5 m, the block's top at 2.0 m over columns 2–3.
        assert_eq!(relocate(Vec2::new(1.2, 0.5), &l), Vec2::new(1.2, 0.5));
        assert_eq!(relocate(Vec2::new(1.2, 2.0), &l), Vec2::new(1.2, 2.0));
        // Feet a little inside the raised ground come up onto it.
        assert_eq!(relocate(Vec2::new(1.2, 0.3), &l), Vec2::new(1.2, 0.5));
        // A plank half a tile over the feet is no burial.
        let rows: &[&str] = &["......", "..--..", "######"];
        let l = super::super::from_tmx_str(
            &map(
                &[rows],
                &(point(1, "Spawn", 0.0, 2) + &point(2, "Exit", 5.0, 2)),
            ),
            "plank.tmx",
        )
        .unwrap()
        .level;
        assert_eq!(relocate(Vec2::new(1.2, 0.5), &l), Vec2::new(1.2, 0.5));
        assert_eq!(relocate(Vec2::new(1.2, 1.0), &l), Vec2::new(1.2, 1.0));
    }

    #[test]
    fn relocate_moves_off_a_gap_to_the_nearest_ground() {
        let l = gap_level();
        let p = relocate(Vec2::new(1.2, 0.5), &l);
        assert!((p.x - 1.0).abs() < 0.01 && p.y == 0.5, "{p}");
        let p = relocate(Vec2::new(1.9, 0.5), &l);
        assert_eq!(p, Vec2::new(2.0, 0.5));
        let p = relocate(Vec2::new(40.0, 0.5), &l);
        assert!((p.x - 3.0).abs() < 0.01 && p.y == 0.5, "{p}");
        assert_eq!(relocate(Vec2::NAN, &l), l.spawn);
    }

    proptest::proptest! {
        #[test]
        fn relocated_spots_are_never_inside_the_ground(x in -10.0f32..10.0, y in -5.0f32..5.0) {
            let l = gap_level();
            let p = relocate(Vec2::new(x, y), &l);
            proptest::prop_assert!(p.is_finite());
            match l.ground_height(p.x) {
                Some(h) => proptest::prop_assert!(p.y >= h - 1e-6),
                None => proptest::prop_assert!(l.ladder_at(p, crate::sim::player::LADDER_REACH).is_some()),
            }
        }
    }
}
