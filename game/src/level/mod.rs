//! Levels made in the Tiled map editor: TMX maps, and Tiled's JSON maps
//! (`.tmj`/`.json`, see [`tmj`]), turned into the game's [`Level`]: floors,
//! solid blocks, one-way planks, ladders, moving platforms, checkpoints, a
//! spawn and an exit.
//!
//! The scheme (documented for designers in `assets/levels/README.md`):
//!
//! - One tile is [`TILE_METRES`] wide and tall, whatever its size in pixels.
//!   Column `c` spans `c·T ..(c+1)·T` in x; the lowest row holding any tile
//!   sits on y = 0 and rows count upwards from there.
//! - Tile classes: `Solid` (a full block) and `Slope` (a block whose top runs
//!   from `left` to `right`, in tile heights, or rises at `angle` degrees
//!   from the floor of the column to its left; a horizontally flipped slope
//!   is mirrored, a vertically flipped or rotated one refused) make the
//!   ground cells, over all tile layers, groups included. There is no single
//!   ground height per column: every ground cell is a [`SolidBox`] (stacked
//!   full cells merge into one box; the map's lowest row reaches
//!   [`EARTH_BELOW_MAP`] further down), and every ground cell whose top is
//!   open (no ground cell right above it) is a floor, merged with the floor
//!   it continues in the next column. So a column may hold several floors,
//!   one above another: the ground, a floating platform, a ledge, a bridge
//!   over a tunnel. Two ground tiles in one cell are reported.
//! - `OneWay` tiles are one-way planks at the tile's top edge, merged along
//!   their row: floors that are no wall and no ceiling (stood on from above,
//!   jumped up through, dropped through), kept in [`LoadedLevel::one_way`].
//! - Object classes: `Ladder` (a rectangle from the floor at its foot to the
//!   floor at its top; `rung_spacing` and `first_rung_offset` in metres),
//!   `MovingPlatform` (a polyline: the path of the platform's top centre,
//!   with `width`, `thickness`, `speed` and `wait` within
//!   [`PLATFORM_LIMITS`]), `Spawn`, `Exit` and `Checkpoint` (points, or the
//!   bottom centre of a rectangle; a player who falls below `kill_height`
//!   comes back at the last checkpoint reached, the spawn being the first; a
//!   checkpoint's name in Tiled is what the game calls it), and `Slope` (a
//!   rectangle covering whole tiles: a per-cell override of the ground, with
//!   the `Slope` tile class's members; what designer mode writes when it
//!   edits one slope's heights).
//! - Map properties: `name` and `kill_height` (metres; by default
//!   [`DEFAULT_KILL_DEPTH`] below the lowest ground).
//! - Tiles and objects with no class are decoration and are ignored; tiles
//!   and objects of other classes, and unknown properties, are ignored too
//!   and reported as [`Diagnostic`]s, which `ironstep check-level` treats as
//!   errors.
//!
//! Every file is read bounded and checked against [`limits`] before the
//! `tiled` reader parses it. A JSON map, tileset (`.tsj`) or template (`.tj`)
//! is first translated into the TMX, TSX or TX text Tiled would write for
//! it ([`tmj`]), so both formats take this one path: the same classes,
//! checks, limits and errors. Every other problem (a file that cannot be
//! read or parsed, a non-orthogonal map, no ground, no spawn, a ladder that
//! is not a rectangle, a property of the wrong type) is a [`LevelError`]
//! naming the file, the place and the reason. Designer mode edits either
//! format in place ([`edit`], [`tmx_text`], [`tmj_text`]); hot reload
//! watches both ([`watch`]).

pub mod check;
pub mod edit;
pub mod limits;
pub mod reach;
pub mod shipped;
pub mod tmj;
pub mod tmj_text;
pub mod tmx_text;
pub mod watch;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use glam::Vec2;
use thiserror::Error;
use tiled::{
    LayerTile, LayerType, Loader, Map, ObjectShape, Orientation, PropertyValue, TileLayer,
};

use crate::sim::player::MAX_STEP_UP;
#[cfg(test)]
use crate::sim::world::FloorKind;
use crate::sim::world::{
    Checkpoint, GroundSegment, Ladder, Level, MovingPlatform, NoGrab, SolidBox,
};

/// Size of one tile in metres, both ways: half a metre makes the knight
/// (1.80 m) 3.6 tiles tall, a 45° slope one tile up per tile across, and a
/// half-tile step (0.25 m) a stair the controller walks up (below
/// [`crate::sim::player::MAX_STEP_UP`]).
pub const TILE_METRES: f32 = 0.5;
/// How far below the lowest ground a falling player is lost, metres, when the
/// map does not set `kill_height`: deeper than any jump can climb back.
pub const DEFAULT_KILL_DEPTH: f32 = 4.0;
/// How deep the earth under the map's lowest row goes, metres: that row is
/// the top of the ground, not a slab floating over the void (the same depth
/// the default kill height lies below the lowest floor).
pub const EARTH_BELOW_MAP: f32 = DEFAULT_KILL_DEPTH;
/// Rung spacing a `Ladder` gets when the map leaves it at the class default,
/// metres (the knight's authored climb).
pub const DEFAULT_RUNG_SPACING: f32 = crate::knight::clips::DEFAULT_RUNG_SPACING;
/// Height of a `Ladder`'s first rung above its foot when the map leaves it at
/// the class default, metres (one authored spacing).
pub const DEFAULT_FIRST_RUNG_OFFSET: f32 = crate::knight::clips::DEFAULT_RUNG_SPACING;
/// Default values of the class members, as `ironstep.tiled-project` declares
/// them (Tiled leaves members at their default out of the TMX).
pub const CLASS_DEFAULTS: [(&str, &str, f32); 9] = [
    ("Slope", "angle", 0.0),
    ("Slope", "left", 0.0),
    ("Slope", "right", 1.0),
    ("Ladder", "first_rung_offset", DEFAULT_FIRST_RUNG_OFFSET),
    ("Ladder", "rung_spacing", DEFAULT_RUNG_SPACING),
    ("MovingPlatform", "speed", 1.0),
    ("MovingPlatform", "thickness", 0.25),
    ("MovingPlatform", "wait", 1.0),
    ("MovingPlatform", "width", 1.5),
];
/// Limits of a `MovingPlatform`'s members, with their reasons: narrower than
/// a foot (0.3 m) nothing can stand on it; slower than 5 cm/s it looks stuck;
/// faster than 6 m/s (above the run speed) a rider cannot keep up with a
/// platform that reverses.
pub const PLATFORM_LIMITS: [(&str, f32, f32); 4] = [
    ("width", 0.3, 20.0),
    ("thickness", 0.05, 5.0),
    ("speed", 0.05, 6.0),
    ("wait", 0.0, 60.0),
];
/// Half the distance between a ladder's rails when its rectangle is too
/// narrow to say, metres.
pub const MIN_LADDER_HALF_WIDTH: f32 = 0.2;
/// Steepest `angle` a Slope tile may declare, degrees: beyond it the rise per
/// tile grows without bound (tan 90° is infinite). Walkability (45°) is
/// `check-level`'s business, not the loader's.
pub const MAX_SLOPE_ANGLE_DEG: f32 = 89.0;
/// Distance below which two heights or x positions count as equal, metres:
/// far below anything visible, far above f32 rounding at level scale.
pub const GRID_EPSILON: f32 = 1e-4;
/// The level embedded in the binary, so `ironstep` plays with no files around it.
pub const TUTORIAL_TMX: &str = include_str!("../../../assets/levels/tutorial.tmx");
/// The label errors give the embedded tutorial.
pub const TUTORIAL_LABEL: &str = "assets/levels/tutorial.tmx";

/// The tile classes the game knows.
pub const TILE_CLASSES: [&str; 3] = ["Solid", "OneWay", "Slope"];
/// The object classes the game knows (`Slope` is both a tile class and an
/// object class: the object overrides the cells it covers).
pub const OBJECT_CLASSES: [&str; 7] = [
    "Ladder",
    "Spawn",
    "Exit",
    "Slope",
    "MovingPlatform",
    "Checkpoint",
    "NoGrab",
];
/// The default of a class member (0 for a member we do not declare).
fn class_default(class: &str, key: &str) -> f32 {
    CLASS_DEFAULTS
        .iter()
        .find(|(c, k, _)| *c == class && *k == key)
        .map_or(0.0, |d| d.2)
}

/// Properties each known class may carry.
fn known_properties(class: &str) -> &'static [&'static str] {
    match class {
        "Slope" => &["left", "right", "angle"],
        "Ladder" => &["rung_spacing", "first_rung_offset"],
        "MovingPlatform" => &["width", "thickness", "speed", "wait"],
        _ => &[],
    }
}

/// Why a level could not be loaded.
#[derive(Debug, Error)]
pub enum LevelError {
    /// Tiled could not read or parse the file (or a tileset or template it names).
    #[error("{file}: {source}")]
    Tiled {
        /// The map file.
        file: String,
        /// The parser's error.
        source: tiled::Error,
    },
    /// The map parsed but does not make a level.
    #[error("{file}:{location}: {reason}")]
    Invalid {
        /// The map file.
        file: String,
        /// Where in the map (layer, tile, object), or `map`.
        location: String,
        /// What is wrong.
        reason: String,
    },
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the level works.
    Warning,
    /// The level is wrong: `check-level` exits non-zero.
    Error,
}

/// One finding about a level: where and what.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Diagnostic {
    /// How bad it is.
    pub severity: Severity,
    /// Where in the map: `object 12`, `layer 'Ground' tile (3,7)`, `x 4.50 m`.
    pub location: String,
    /// What is wrong, as a sentence.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{}: {sev}: {}", self.location, self.message)
    }
}

/// A level loaded from a map, with what the loader noticed on the way.
#[derive(Clone, Debug)]
pub struct LoadedLevel {
    /// The level the game plays.
    pub level: Level,
    /// One-way plank tops (`OneWay` tiles merged along their rows); they
    /// are also in the level's floors.
    pub one_way: Vec<GroundSegment>,
    /// The Tiled object id of each ladder, in [`Level::ladders`] order.
    pub ladder_ids: Vec<u32>,
    /// The Tiled object id of each moving platform, in
    /// [`Level::platforms`] order.
    pub platform_ids: Vec<u32>,
    /// The Tiled object id of each checkpoint, in
    /// [`Level::checkpoints`] order.
    pub checkpoint_ids: Vec<u32>,
    /// The Tiled object id of the spawn.
    pub spawn_id: u32,
    /// The Tiled object id of the exit.
    pub exit_id: u32,
    /// Unknown classes and properties, overlapping solids: things the loader
    /// skipped or tolerated.
    pub diagnostics: Vec<Diagnostic>,
    /// The file (or label) the level came from.
    pub file: String,
    /// How the map's pixels and rows map to metres.
    pub grid: Grid,
    /// Every ground cell with an open top (no ground cell right above it),
    /// column by column, each column's cells top-down: what designer mode
    /// shows slope handles for (a column may have several).
    pub columns: Vec<ColumnTop>,
    /// Every `OneWay` tile, with the tile layer holding it: where designer
    /// mode writes when it lengthens or shortens a plank.
    pub one_way_tiles: Vec<LayerCell>,
}

/// A tile of a tile layer: its grid cell and which tile layer holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerCell {
    /// Tile column.
    pub col: i32,
    /// Tile row (counted down from the map's top).
    pub row: i32,
    /// The tile layer: its position among the map's `<layer>` elements in
    /// file order, counted from 0, those inside groups included (the index
    /// [`tmx_text::TmxText::tile_gid`] takes).
    pub layer: usize,
}

/// How a map's pixel coordinates map to the game's metres: x grows right from
/// column 0, y grows up from the bottom of the lowest row holding a tile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// The lowest row (counted down from the map's top) holding any tile.
    pub bottom_row: i32,
    /// Tile width in pixels.
    pub tile_width: u32,
    /// Tile height in pixels.
    pub tile_height: u32,
}

impl Grid {
    /// Metres per pixel across.
    pub fn metres_per_px_x(&self) -> f64 {
        f64::from(TILE_METRES) / f64::from(self.tile_width)
    }

    /// Metres per pixel up.
    pub fn metres_per_px_y(&self) -> f64 {
        f64::from(TILE_METRES) / f64::from(self.tile_height)
    }

    /// The map's pixel y (down from the map's top) of the height `y` metres.
    pub fn y_to_px(&self, y: f64) -> f64 {
        (f64::from(self.bottom_row + 1) * f64::from(TILE_METRES) - y) / self.metres_per_px_y()
    }

    /// The height in metres of the map's pixel y.
    pub fn px_to_y(&self, px: f64) -> f64 {
        f64::from(self.bottom_row + 1) * f64::from(TILE_METRES) - px * self.metres_per_px_y()
    }

    /// The height in metres of the bottom of tile row `row`.
    pub fn row_bottom(&self, row: i32) -> f32 {
        (self.bottom_row - row) as f32 * TILE_METRES
    }
}

/// A ground cell with an open top and the surface it gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColumnTop {
    /// Tile column.
    pub col: i32,
    /// Tile row (counted down from the map's top).
    pub row: i32,
    /// Whether the cell is a `Slope` (tile or object), whose heights designer
    /// mode may edit; `false` for a `Solid` block.
    pub slope: bool,
    /// The surface height at the cell's left edge, in tile heights above its
    /// bottom (what the cell gives, `angle` slopes included).
    pub left: f32,
    /// The surface height at the cell's right edge, in tile heights.
    pub right: f32,
    /// The `Slope` object overriding this cell, if any.
    pub override_id: Option<u32>,
}

/// Loads a Tiled map: a TMX file (`.tmx`) or a JSON one (`.tmj`, `.json`,
/// translated by [`tmj`]); external tilesets and templates (`.tsx`/`.tsj`,
/// `.tx`/`.tj`) are read beside it (inside the map's folder, see
/// [`limits::check_reference`]). Every file read is bounded and checked
/// against [`limits`] before the Tiled reader sees it.
pub fn load(path: impl AsRef<Path>) -> Result<LoadedLevel, LevelError> {
    let path = path.as_ref();
    check_extension(path)?;
    let bytes = limits::read_map_file(path)?;
    load_bytes(path, bytes)
}

/// The map file extensions the loader takes.
pub const MAP_EXTENSIONS: [&str; 3] = ["tmx", "tmj", "json"];

/// The error for a file that is not a Tiled map.
fn check_extension(path: &Path) -> Result<(), LevelError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if MAP_EXTENSIONS.iter().any(|m| ext.eq_ignore_ascii_case(m)) {
        return Ok(());
    }
    Err(LevelError::Invalid {
        file: path.display().to_string(),
        location: "map".into(),
        reason: format!(
            "only Tiled maps (.tmx, or .tmj/.json) are supported, not '.{ext}' files (in Tiled: File > Save As)"
        ),
    })
}

/// Loads the map at `path` from `text` (an edited version of the file) while
/// its external tilesets and templates are read from disk beside it, as
/// [`load`] would.
pub fn load_with_text(path: impl AsRef<Path>, text: &str) -> Result<LoadedLevel, LevelError> {
    let path = path.as_ref();
    if text.len() as u64 > limits::MAX_LEVEL_FILE_BYTES {
        return Err(LevelError::Invalid {
            file: path.display().to_string(),
            location: "map".into(),
            reason: format!(
                "{} bytes, more than the limit of {} bytes",
                text.len(),
                limits::MAX_LEVEL_FILE_BYTES
            ),
        });
    }
    load_bytes(path, text.as_bytes().to_vec())
}

/// Loads the map at `path` whose text is `bytes`: the text is checked
/// ([`limits::preflight`]), then parsed by the Tiled reader, which reads
/// each tileset and template it names through [`limits::read_level_file`].
fn load_bytes(path: &Path, bytes: Vec<u8>) -> Result<LoadedLevel, LevelError> {
    let file = path.display().to_string();
    let bytes = if tmj::is_json_path(path) {
        tmj::map_to_tmx(&bytes, &file)?.into_bytes()
    } else {
        bytes
    };
    let pre = limits::preflight(&bytes, &file)?;
    let own = path.to_path_buf();
    // The first refusal of a referenced file, reported instead of the
    // Tiled reader's wrapping of it.
    let refusal: Rc<RefCell<Option<LevelError>>> = Rc::default();
    let slot = Rc::clone(&refusal);
    let reader = move |p: &Path| -> Result<Cursor<Vec<u8>>, std::io::Error> {
        if p == own {
            return Ok(Cursor::new(bytes.clone()));
        }
        match limits::read_level_file(&own, p) {
            Ok(b) => Ok(Cursor::new(b)),
            Err(e) => {
                let message = e.to_string();
                slot.borrow_mut().get_or_insert(e);
                Err(std::io::Error::other(message))
            }
        }
    };
    let map = Loader::with_reader(reader).load_tmx_map(path);
    if let Some(e) = refusal.borrow_mut().take() {
        return Err(e);
    }
    let map = map.map_err(|source| LevelError::Tiled {
        file: file.clone(),
        source,
    })?;
    convert_guarded(&map, &file, &pre)
}

/// Loads a TMX map from text (an embedded level); `label` names it in errors.
/// External tilesets and templates cannot be resolved this way: embed them.
pub fn from_tmx_str(text: &str, label: &str) -> Result<LoadedLevel, LevelError> {
    check_text_size(text, label)?;
    tmx_text_to_level(text, label)
}

/// Loads a Tiled JSON map from text, as [`from_tmx_str`] does a TMX one.
pub fn from_tmj_str(text: &str, label: &str) -> Result<LoadedLevel, LevelError> {
    check_text_size(text, label)?;
    let tmx = tmj::map_to_tmx(text.as_bytes(), label)?;
    tmx_text_to_level(&tmx, label)
}

/// Loads a map from text in the format `label`'s extension names: Tiled
/// JSON for `.tmj`/`.json`, TMX otherwise (a shipped level, whatever format
/// it was saved in).
pub fn from_map_str(text: &str, label: &str) -> Result<LoadedLevel, LevelError> {
    if tmj::is_json_path(Path::new(label)) {
        from_tmj_str(text, label)
    } else {
        from_tmx_str(text, label)
    }
}

/// Refuses a map text over [`limits::MAX_LEVEL_FILE_BYTES`].
fn check_text_size(text: &str, label: &str) -> Result<(), LevelError> {
    if text.len() as u64 > limits::MAX_LEVEL_FILE_BYTES {
        return Err(LevelError::Invalid {
            file: label.to_string(),
            location: "map".into(),
            reason: format!(
                "{} bytes, more than the limit of {} bytes",
                text.len(),
                limits::MAX_LEVEL_FILE_BYTES
            ),
        });
    }
    Ok(())
}

/// [`from_tmx_str`] after its size check.
fn tmx_text_to_level(text: &str, label: &str) -> Result<LoadedLevel, LevelError> {
    let pre = limits::preflight(text.as_bytes(), label)?;
    let bytes = text.as_bytes().to_vec();
    let own = PathBuf::from(label);
    let reader = move |p: &Path| -> Result<Cursor<Vec<u8>>, std::io::Error> {
        if p == own {
            Ok(Cursor::new(bytes.clone()))
        } else {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!(
                    "{}: an embedded level cannot load external files",
                    p.display()
                ),
            ))
        }
    };
    let map = Loader::with_reader(reader)
        .load_tmx_map(label)
        .map_err(|source| LevelError::Tiled {
            file: label.to_string(),
            source,
        })?;
    convert_guarded(&map, label, &pre)
}

/// The embedded tutorial, the game's default level.
pub fn tutorial() -> Result<LoadedLevel, LevelError> {
    from_tmx_str(TUTORIAL_TMX, TUTORIAL_LABEL)
}

/// What a ground cell contributes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cell {
    Solid,
    /// Top from `left` to `right`, in tile heights above the tile's bottom.
    Slope {
        left: f32,
        right: f32,
    },
    /// Top rising at this angle (degrees) from the ground to the left.
    Angle(f32),
    OneWay,
}

/// A classified tile at a grid position.
struct Placed {
    col: i32,
    row: i32,
    cell: Cell,
    layer: String,
    /// The tile layer's index (see [`LayerCell::layer`]); unused for the
    /// cells of `Slope` objects.
    tile_layer: usize,
}

/// [`convert`], with a panic inside the `tiled` crate turned into an error
/// naming the file: `tiled` 0.15 indexes a finite layer's tiles without
/// checking that the file held width × height of them (found by fuzzing).
/// [`limits::preflight`] refuses such files first; this stays as a last
/// resort.
fn convert_guarded(
    map: &tiled::Map,
    file: &str,
    pre: &limits::Preflight,
) -> Result<LoadedLevel, LevelError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| convert(map, file, pre))) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown failure".into());
            Err(LevelError::Invalid {
                file: file.to_string(),
                location: "map".into(),
                reason: format!(
                    "malformed map data (the Tiled reader failed: {message}); \
                     does a tile layer hold fewer tiles than its width × height?"
                ),
            })
        }
    }
}

/// Turns a parsed map into a level; `pre` is what [`limits::preflight`]
/// found in its text.
fn convert(map: &Map, file: &str, pre: &limits::Preflight) -> Result<LoadedLevel, LevelError> {
    let invalid = |location: &str, reason: String| LevelError::Invalid {
        file: file.to_string(),
        location: location.to_string(),
        reason,
    };
    if map.orientation != Orientation::Orthogonal {
        return Err(invalid(
            "map",
            format!(
                "{:?} maps are not supported: a side-scroller level is orthogonal",
                map.orientation
            ),
        ));
    }
    if map.tile_width == 0 || map.tile_height == 0 {
        return Err(invalid("map", "tile size is zero".into()));
    }
    let mut diagnostics = Vec::new();
    let mut placed = Vec::new();
    let mut objects = Vec::new();
    let mut unknown_tiles = BTreeMap::new();
    let mut tile_layers = 0;
    for layer in map.layers() {
        collect_layer(
            layer,
            &mut Collect {
                placed: &mut placed,
                objects: &mut objects,
                unknown_tiles: &mut unknown_tiles,
                diagnostics: &mut diagnostics,
                tile_layers: &mut tile_layers,
                file,
                map,
                first_gids: &pre.first_gids,
            },
        )?;
    }
    diagnostics.extend(tileset_diagnostics(map));
    for ((tileset, id), (class, count)) in &unknown_tiles {
        diagnostics.push(Diagnostic {
            severity: Severity::Error,
            location: format!("tileset '{tileset}' tile {id}"),
            message: format!(
                "unknown tile class '{class}' ({count} cells ignored; known: {})",
                TILE_CLASSES.join(", ")
            ),
        });
    }

    let ground: Vec<&Placed> = placed.iter().filter(|p| p.cell != Cell::OneWay).collect();
    let Some(bottom_row) = placed.iter().map(|p| p.row).max() else {
        return Err(invalid(
            "map",
            "no ground: no tile has the class Solid, Slope or OneWay".into(),
        ));
    };
    let t = TILE_METRES;
    let y_bottom = |row: i32| (bottom_row - row) as f32 * t;
    let overrides = slope_overrides(map, &objects, &mut diagnostics, file)?;

    // Overlapping solids: two ground tiles in one cell (different layers).
    let mut cells: BTreeMap<(i32, i32), &Placed> = BTreeMap::new();
    for p in &ground {
        if let Some(prev) = cells.insert((p.col, p.row), p) {
            diagnostics.push(Diagnostic {
                severity: Severity::Error,
                location: format!("layer '{}' tile ({},{})", p.layer, p.col, p.row),
                message: format!(
                    "overlapping solids: layer '{}' already has ground in this cell",
                    prev.layer
                ),
            });
        }
    }
    // Slope objects replace whatever the tiles put in their cells.
    for (&cell, (p, _)) in &overrides {
        cells.insert(cell, p);
    }
    if cells.is_empty() {
        return Err(invalid(
            "map",
            "no ground: no tile has the class Solid or Slope".into(),
        ));
    }
    // Every ground cell's top surface, column by column (left to right; an
    // `angle` slope starts where the column to its left ends within it).
    let mut tops: BTreeMap<(i32, i32), (f32, f32)> = BTreeMap::new();
    for (&(col, row), p) in &cells {
        let base = y_bottom(row);
        let (y0, y1) = match p.cell {
            Cell::Solid => (base + t, base + t),
            Cell::Slope { left, right } => (base + left * t, base + right * t),
            Cell::Angle(deg) => {
                let rise = t * deg.to_radians().tan();
                // The floor of the column to the left ending inside this cell.
                let from_left = tops
                    .range((col - 1, i32::MIN)..(col, i32::MIN))
                    .map(|(_, &(_, h))| h)
                    .find(|h| (base - GRID_EPSILON..=base + t + GRID_EPSILON).contains(h));
                let start = match from_left {
                    Some(h) => h,
                    None if deg >= 0.0 => base,
                    None => base + t,
                };
                (start, start + rise)
            }
            // One-way tops are filtered out of `cells` above.
            Cell::OneWay => continue,
        };
        tops.insert((col, row), (y0, y1));
    }
    // Solids: each column's cells bottom-up, a run of stacked cells merged
    // into one box while the cells below the top one are full blocks.
    let mut solids: Vec<SolidBox> = Vec::new();
    let mut col_cells: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    for &(col, row) in tops.keys() {
        col_cells.entry(col).or_default().push(row);
    }
    for (&col, rows) in &col_cells {
        let x0 = col as f32 * t;
        // Bottom-up: rows counted down from the map's top, so descending.
        let mut run: Option<(i32, SolidBox)> = None;
        for &row in rows.iter().rev() {
            let (y0, y1) = tops[&(col, row)];
            let full = |b: &SolidBox| (b.top0 - b.top1).abs() < GRID_EPSILON;
            match &mut run {
                Some((last_row, b))
                    if *last_row == row + 1
                        && full(b)
                        && (b.top0 - y_bottom(row)).abs() < GRID_EPSILON =>
                {
                    b.top0 = y0;
                    b.top1 = y1;
                    *last_row = row;
                }
                _ => {
                    if let Some((_, b)) = run.take() {
                        solids.push(b);
                    }
                    run = Some((
                        row,
                        SolidBox {
                            x0,
                            x1: x0 + t,
                            // The lowest row stands on earth that goes on
                            // below the map (drawn and solid).
                            bottom: if row == bottom_row {
                                y_bottom(row) - EARTH_BELOW_MAP
                            } else {
                                y_bottom(row)
                            },
                            top0: y0,
                            top1: y1,
                        },
                    ));
                }
            }
        }
        if let Some((_, b)) = run {
            solids.push(b);
        }
    }
    // Floors: every ground cell whose top is open (no ground cell above it),
    // merged with the floor it continues exactly in the column to the left.
    let mut segments: Vec<GroundSegment> = Vec::new();
    let mut columns = Vec::new();
    for (&(col, row), &(y0, y1)) in &tops {
        let base = y_bottom(row);
        // Covered by a ground cell above, unless its top is lower than the
        // cell's full height somewhere (a slope under a block still has an
        // open surface under that block).
        let full = (y0 - (base + t)).abs() < GRID_EPSILON && (y1 - (base + t)).abs() < GRID_EPSILON;
        if full && cells.contains_key(&(col, row - 1)) {
            continue;
        }
        let cell = cells[&(col, row)].cell;
        columns.push(ColumnTop {
            col,
            row,
            slope: !matches!(cell, Cell::Solid),
            left: (y0 - base) / t,
            right: (y1 - base) / t,
            override_id: overrides.get(&(col, row)).map(|(_, id)| *id),
        });
        let x0 = col as f32 * t;
        let seg = GroundSegment::ground(x0, x0 + t, y0, y1);
        let continues = segments.iter_mut().rev().find(|last| {
            (last.x1 - seg.x0).abs() < GRID_EPSILON
                && (last.y1 - seg.y0).abs() < GRID_EPSILON
                && (last.slope() - seg.slope()).abs() < GRID_EPSILON
        });
        if let Some(last) = continues {
            last.x1 = seg.x1;
            last.y1 = seg.y1;
            continue;
        }
        segments.push(seg);
    }
    // One-way planks, merged along a row.
    let mut one_way: Vec<GroundSegment> = Vec::new();
    let mut planks: Vec<(i32, i32)> = placed
        .iter()
        .filter(|p| p.cell == Cell::OneWay)
        .map(|p| (p.row, p.col))
        .collect();
    planks.sort_unstable();
    planks.dedup();
    let one_way_tiles = placed
        .iter()
        .filter(|p| p.cell == Cell::OneWay)
        .map(|p| LayerCell {
            col: p.col,
            row: p.row,
            layer: p.tile_layer,
        })
        .collect();
    for (row, col) in planks {
        let y = y_bottom(row) + t;
        let x0 = col as f32 * t;
        match one_way.last_mut() {
            Some(last) if (last.x1 - x0).abs() < GRID_EPSILON && last.y0 == y => last.x1 = x0 + t,
            _ => one_way.push(GroundSegment::one_way(x0, x0 + t, y)),
        }
    }

    // Objects: pixel coordinates, y down from the map's top row.
    let px_x = t / map.tile_width as f32;
    let px_y = t / map.tile_height as f32;
    let world = |x: f32, y: f32| Vec2::new(x * px_x, (bottom_row + 1) as f32 * t - y * px_y);
    let mut ladders = Vec::new();
    let mut ladder_ids = Vec::new();
    let mut spawn = None;
    let mut exit = None;
    let mut platforms = Vec::new();
    let mut platform_ids = Vec::new();
    let mut checkpoints = Vec::new();
    let mut checkpoint_ids = Vec::new();
    let mut no_grab = Vec::new();
    for o in &objects {
        let loc = format!("object {}", o.id);
        let feet = |o: &Obj| -> Result<Vec2, LevelError> {
            match o.shape {
                ObjectShape::Point(..) => Ok(world(o.x, o.y)),
                ObjectShape::Rect { width, height } => Ok(world(o.x + 0.5 * width, o.y + height)),
                _ => Err(invalid(
                    &loc,
                    format!("a {} must be a point or a rectangle", o.class),
                )),
            }
        };
        match o.class.as_str() {
            "Ladder" => {
                let ObjectShape::Rect { width, height } = o.shape else {
                    return Err(invalid(&loc, "a Ladder must be a rectangle".into()));
                };
                let top_left = world(o.x, o.y);
                let bottom_right = world(o.x + width, o.y + height);
                let rung_spacing = float_prop(
                    &o.properties,
                    "rung_spacing",
                    class_default("Ladder", "rung_spacing"),
                    file,
                    &loc,
                )?;
                let first_rung_offset = float_prop(
                    &o.properties,
                    "first_rung_offset",
                    class_default("Ladder", "first_rung_offset"),
                    file,
                    &loc,
                )?;
                if !(rung_spacing > 0.0 && rung_spacing.is_finite()) {
                    return Err(invalid(
                        &loc,
                        format!(
                            "rung_spacing must be a positive number of metres, not {rung_spacing}"
                        ),
                    ));
                }
                if !(first_rung_offset >= 0.0 && first_rung_offset.is_finite()) {
                    return Err(invalid(
                        &loc,
                        format!(
                            "first_rung_offset must be zero or more metres, not {first_rung_offset}"
                        ),
                    ));
                }
                if height <= 0.0 || width <= 0.0 {
                    return Err(invalid(&loc, "the Ladder rectangle is empty".into()));
                }
                let rungs = (top_left.y - bottom_right.y) / rung_spacing;
                if rungs > limits::MAX_LADDER_RUNGS {
                    return Err(invalid(
                        &loc,
                        format!(
                            "the ladder would have {rungs:.0} rungs ({:.2} m at {rung_spacing} m), more than the limit of {}",
                            top_left.y - bottom_right.y,
                            limits::MAX_LADDER_RUNGS
                        ),
                    ));
                }
                ladders.push(Ladder {
                    x: 0.5 * (top_left.x + bottom_right.x),
                    bottom: bottom_right.y,
                    top: top_left.y,
                    rung_spacing,
                    first_rung_offset,
                    half_width: (0.5 * (bottom_right.x - top_left.x)).max(MIN_LADDER_HALF_WIDTH),
                });
                ladder_ids.push(o.id);
            }
            "MovingPlatform" => {
                let ObjectShape::Polyline { points } = &o.shape else {
                    return Err(invalid(
                        &loc,
                        "a MovingPlatform must be a polyline: its path, the platform's top \
                         centre at each point"
                            .into(),
                    ));
                };
                if points.len() < 2 {
                    return Err(invalid(
                        &loc,
                        "a MovingPlatform's path needs at least two points".into(),
                    ));
                }
                let path: Vec<Vec2> = points
                    .iter()
                    .map(|&(px, py)| world(o.x + px, o.y + py))
                    .collect();
                let mut value = [0.0f32; 4];
                for (slot, (key, lo, hi)) in value.iter_mut().zip(PLATFORM_LIMITS) {
                    let v = float_prop(
                        &o.properties,
                        key,
                        class_default("MovingPlatform", key),
                        file,
                        &loc,
                    )?;
                    if !(lo..=hi).contains(&v) {
                        return Err(invalid(
                            &loc,
                            format!("{key} must be between {lo} and {hi}, not {v}"),
                        ));
                    }
                    *slot = v;
                }
                let [width, thickness, speed, wait] = value;
                let length: f32 = path.windows(2).map(|w| w[0].distance(w[1])).sum();
                if length > limits::MAX_PATH_LENGTH_M {
                    return Err(invalid(
                        &loc,
                        format!(
                            "the path is {length:.1} m long, more than the limit of {} m",
                            limits::MAX_PATH_LENGTH_M
                        ),
                    ));
                }
                if path.windows(2).all(|w| w[0].distance(w[1]) < GRID_EPSILON) {
                    return Err(invalid(
                        &loc,
                        "a MovingPlatform's path has no length".into(),
                    ));
                }
                platforms.push(MovingPlatform::new(
                    path,
                    0.5 * width,
                    thickness,
                    speed,
                    wait,
                ));
                platform_ids.push(o.id);
            }
            "Spawn" | "Exit" => {
                let slot = if o.class == "Spawn" {
                    &mut spawn
                } else {
                    &mut exit
                };
                if let Some((first, _)) = slot {
                    return Err(invalid(
                        &loc,
                        format!("a second {} (the first is object {first})", o.class),
                    ));
                }
                *slot = Some((o.id, feet(o)?));
            }
            "Checkpoint" => {
                let name = if o.name.trim().is_empty() {
                    format!("checkpoint {}", checkpoints.len() + 1)
                } else {
                    o.name.trim().to_string()
                };
                checkpoints.push(Checkpoint {
                    pos: feet(o)?,
                    name,
                });
                checkpoint_ids.push(o.id);
            }
            "NoGrab" => {
                let ObjectShape::Rect { width, height } = o.shape else {
                    return Err(invalid(
                        &loc,
                        "a NoGrab must be a rectangle: the corners on or inside it are not grabbed"
                            .into(),
                    ));
                };
                let (a, b) = (world(o.x, o.y + height), world(o.x + width, o.y));
                if !(a.is_finite() && b.is_finite() && width >= 0.0 && height >= 0.0) {
                    return Err(invalid(&loc, "the NoGrab rectangle is not finite".into()));
                }
                no_grab.push(NoGrab {
                    x0: a.x,
                    y0: a.y,
                    x1: b.x,
                    y1: b.y,
                });
            }
            _ => {}
        }
    }
    let Some((spawn_id, spawn)) = spawn else {
        return Err(invalid(
            "map",
            "no Spawn object: the player has nowhere to start".into(),
        ));
    };
    let Some((exit_id, exit)) = exit else {
        return Err(invalid(
            "map",
            "no Exit object: the level has no end".into(),
        ));
    };
    let lowest = segments
        .iter()
        .map(|s| s.y0.min(s.y1))
        .fold(f32::INFINITY, f32::min);
    let kill_height = match map.properties.get("kill_height") {
        None => lowest - DEFAULT_KILL_DEPTH,
        Some(PropertyValue::FloatValue(v)) if v.is_finite() => *v,
        Some(PropertyValue::IntValue(v)) => *v as f32,
        Some(other) => {
            return Err(invalid(
                "map",
                format!("kill_height must be a number of metres, not {other:?}"),
            ));
        }
    };
    for key in map.properties.keys() {
        if key != "kill_height" && key != "name" {
            diagnostics.push(Diagnostic {
                severity: Severity::Error,
                location: "map".into(),
                message: format!("unknown map property '{key}' (known: name, kill_height)"),
            });
        }
    }
    let name = match map.properties.get("name") {
        Some(PropertyValue::StringValue(s)) => s.clone(),
        _ => Path::new(file)
            .file_stem()
            .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned()),
    };
    let mut level = Level::new(
        name,
        segments.iter().chain(&one_way).copied().collect(),
        solids,
        ladders,
        platforms,
        spawn,
        exit,
        kill_height,
    );
    level.checkpoints = checkpoints;
    level.no_grab = no_grab;
    // A start buried in the ground would drop the knight through the world:
    // the spawn and every checkpoint (where a fall restarts) must have their
    // feet above a solid's surface, or less than a step under it (the
    // controller steps up that far).
    let starts = std::iter::once((spawn_id, "spawn".to_string(), level.spawn)).chain(
        level
            .checkpoints
            .iter()
            .zip(&checkpoint_ids)
            .map(|(c, id)| (*id, format!("checkpoint '{}'", c.name), c.pos)),
    );
    for (id, what, p) in starts {
        if let Some(s) = level.solid_at(p + Vec2::new(0.0, MAX_STEP_UP)) {
            return Err(invalid(
                &format!("object {id}"),
                format!(
                    "{what} inside a solid at ({:.2}, {:.2}) m: the feet are more than a step ({MAX_STEP_UP} m) under the top of the block at x {:.2}..{:.2} m (top {:.2} m), so the knight would fall out of the world; put it on top of the ground",
                    p.x,
                    p.y,
                    s.x0,
                    s.x1,
                    s.top_max()
                ),
            ));
        }
    }
    Ok(LoadedLevel {
        level,
        one_way,
        checkpoint_ids,
        ladder_ids,
        platform_ids,
        spawn_id,
        exit_id,
        diagnostics,
        file: file.to_string(),
        grid: Grid {
            bottom_row,
            tile_width: map.tile_width,
            tile_height: map.tile_height,
        },
        columns,
        one_way_tiles,
    })
}

/// Cells overridden by `Slope` objects: (column, row) → (the cell, object id).
type SlopeOverrides = BTreeMap<(i32, i32), (Placed, u32)>;

/// The cells `Slope` objects override, each with the cell it makes and the
/// object's id. A Slope object must be a rectangle covering whole tiles: it
/// stands for tiles, so it must sit on the grid. Two objects covering one
/// cell are reported (the later one wins).
fn slope_overrides(
    map: &Map,
    objects: &[Obj],
    diagnostics: &mut Vec<Diagnostic>,
    file: &str,
) -> Result<SlopeOverrides, LevelError> {
    /// How far from a whole tile a Slope object's edge may be, in tiles
    /// (Tiled writes snapped coordinates exactly; this absorbs float text).
    const SNAP: f32 = 1e-3;
    let mut out: SlopeOverrides = BTreeMap::new();
    let mut covered: u64 = 0;
    let (tw, th) = (map.tile_width as f32, map.tile_height as f32);
    for o in objects.iter().filter(|o| o.class == "Slope") {
        let loc = format!("object {}", o.id);
        let invalid = |reason: String| LevelError::Invalid {
            file: file.to_string(),
            location: loc.clone(),
            reason,
        };
        let ObjectShape::Rect { width, height } = o.shape else {
            return Err(invalid(
                "a Slope object must be a rectangle covering whole tiles".into(),
            ));
        };
        let (c0, r0, nc, nr) = (o.x / tw, o.y / th, width / tw, height / th);
        let whole = |v: f32| v.is_finite() && (v - v.round()).abs() < SNAP;
        if !(whole(c0) && whole(r0) && whole(nc) && whole(nr))
            || nc.round() < 1.0
            || nr.round() < 1.0
        {
            return Err(invalid(format!(
                "a Slope object must cover whole tiles: snap it to the grid (x, y, width and height multiples of {}×{} px), not x {} y {} width {width} height {height}",
                map.tile_width, map.tile_height, o.x, o.y
            )));
        }
        let cell = slope_cell(&o.properties, false, file, &loc)?;
        // The object lies within `limits::MAX_OBJECT_TILES` of the origin
        // (checked when it was collected), so these fit an i32 easily; the
        // cell count is summed in u64 against its own limit before any
        // cell is made.
        let (c0, r0) = (c0.round() as i32, r0.round() as i32);
        let (nc, nr) = (nc.round() as i32, nr.round() as i32);
        covered = covered.saturating_add(nc as u64 * nr as u64);
        if covered > limits::MAX_SLOPE_OBJECT_CELLS {
            return Err(invalid(format!(
                "Slope objects cover {covered} cells with this one ({nc} × {nr} tiles), more than the limit of {} cells: draw large ground with tiles",
                limits::MAX_SLOPE_OBJECT_CELLS
            )));
        }
        for col in c0..c0 + nc {
            for row in r0..r0 + nr {
                let placed = Placed {
                    col,
                    row,
                    cell,
                    layer: loc.clone(),
                    tile_layer: usize::MAX,
                };
                if let Some((_, first)) = out.insert((col, row), (placed, o.id)) {
                    diagnostics.push(Diagnostic {
                        severity: Severity::Error,
                        location: loc.clone(),
                        message: format!(
                            "tile ({col},{row}) is already overridden by Slope object {first}"
                        ),
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The ground a `Slope` (tile or object) with these properties makes;
/// `flip_h` mirrors it (a horizontally flipped tile).
fn slope_cell(
    props: &tiled::Properties,
    flip_h: bool,
    file: &str,
    loc: &str,
) -> Result<Cell, LevelError> {
    let invalid = |reason: String| LevelError::Invalid {
        file: file.into(),
        location: loc.into(),
        reason,
    };
    let angle = float_prop(props, "angle", class_default("Slope", "angle"), file, loc)?;
    let cell = if angle != 0.0 {
        if angle.abs() >= MAX_SLOPE_ANGLE_DEG {
            return Err(invalid(format!(
                "Slope angle {angle}° is not between -{MAX_SLOPE_ANGLE_DEG}° and {MAX_SLOPE_ANGLE_DEG}°"
            )));
        }
        Cell::Angle(angle)
    } else {
        let left = float_prop(props, "left", class_default("Slope", "left"), file, loc)?;
        let right = float_prop(props, "right", class_default("Slope", "right"), file, loc)?;
        for (k, v) in [("left", left), ("right", right)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(invalid(format!(
                    "Slope {k} height {v} is outside 0..1 tile heights"
                )));
            }
        }
        Cell::Slope { left, right }
    };
    // A horizontally flipped slope mirrors its surface.
    Ok(match cell {
        Cell::Slope { left, right } if flip_h => Cell::Slope {
            left: right,
            right: left,
        },
        Cell::Angle(deg) if flip_h => Cell::Angle(-deg),
        other => other,
    })
}

/// An object of a known class, copied out of the map.
struct Obj {
    id: u32,
    class: String,
    name: String,
    x: f32,
    y: f32,
    shape: ObjectShape,
    properties: tiled::Properties,
}

/// Where [`collect_layer`] puts what it finds, and what it needs to know.
struct Collect<'a> {
    placed: &'a mut Vec<Placed>,
    objects: &'a mut Vec<Obj>,
    unknown_tiles: &'a mut BTreeMap<(String, u32), (String, usize)>,
    diagnostics: &'a mut Vec<Diagnostic>,
    tile_layers: &'a mut usize,
    file: &'a str,
    map: &'a Map,
    /// Each tileset's first gid, by the Tiled reader's tileset index.
    first_gids: &'a [u32],
}

/// Walks a layer (recursing into groups), classifying tiles and objects.
fn collect_layer(layer: tiled::Layer<'_>, cx: &mut Collect<'_>) -> Result<(), LevelError> {
    let name = layer.name.clone();
    let file = cx.file;
    if layer.offset_x != 0.0 || layer.offset_y != 0.0 {
        cx.diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            location: format!("layer '{name}'"),
            message: "layer offsets are ignored: the grid decides where ground is".into(),
        });
    }
    match layer.layer_type() {
        LayerType::Group(g) => {
            for child in g.layers() {
                collect_layer(child, cx)?;
            }
        }
        LayerType::Image(_) => {}
        LayerType::Tiles(tl) => {
            let tile_layer = *cx.tile_layers;
            *cx.tile_layers += 1;
            let first_gids = cx.first_gids;
            let placed = &mut *cx.placed;
            let unknown_tiles = &mut *cx.unknown_tiles;
            let mut visit = |col: i32, row: i32, tile: LayerTile<'_>| -> Result<(), LevelError> {
                let tileset = tile.get_tileset();
                let Some(t) = tile.get_tile() else {
                    // A gid past its tileset's tiles: Tiled shows nothing
                    // there, so the level would silently lose the tile.
                    let first = first_gids.get(tile.tileset_index()).copied().unwrap_or(1);
                    return Err(LevelError::Invalid {
                        file: file.into(),
                        location: format!("layer '{name}' tile ({col},{row})"),
                        reason: format!(
                            "tile gid {} belongs to no tileset (tileset '{}' holds {} tiles from gid {first})",
                            u64::from(first) + u64::from(tile.id()),
                            tileset.name,
                            tileset.tilecount
                        ),
                    });
                };
                let Some(class) = t.user_type.as_deref().filter(|c| !c.is_empty()) else {
                    return Ok(());
                };
                let loc = format!("layer '{name}' tile ({col},{row})");
                let cell = match class {
                    "Solid" => Cell::Solid,
                    "OneWay" => Cell::OneWay,
                    "Slope" if tile.flip_v || tile.flip_d => {
                        return Err(LevelError::Invalid {
                            file: file.into(),
                            location: loc,
                            reason: "a Slope tile flipped vertically or rotated would be a ceiling or a wall; only horizontal flips are supported".into(),
                        });
                    }
                    "Slope" => slope_cell(&t.properties, tile.flip_h, file, &loc)?,
                    other => {
                        unknown_tiles
                            .entry((tileset.name.clone(), tile.id()))
                            .or_insert_with(|| (other.to_string(), 0))
                            .1 += 1;
                        return Ok(());
                    }
                };
                placed.push(Placed {
                    col,
                    row,
                    cell,
                    layer: name.clone(),
                    tile_layer,
                });
                Ok(())
            };
            // Sizes and chunk positions were bounded by `limits::preflight`
            // ([`limits::MAX_MAP_SIDE_TILES`]), so these loops and the i32
            // arithmetic stay small.
            match tl {
                TileLayer::Finite(f) => {
                    for row in 0..f.height() as i32 {
                        for col in 0..f.width() as i32 {
                            if let Some(tile) = f.get_tile(col, row) {
                                visit(col, row, tile)?;
                            }
                        }
                    }
                }
                TileLayer::Infinite(inf) => {
                    let w = tiled::ChunkData::WIDTH as i32;
                    let h = tiled::ChunkData::HEIGHT as i32;
                    for ((chx, chy), chunk) in inf.chunks() {
                        for ly in 0..h {
                            for lx in 0..w {
                                if let Some(tile) = chunk.get_tile(lx, ly) {
                                    visit(chx * w + lx, chy * h + ly, tile)?;
                                }
                            }
                        }
                    }
                }
            }
        }
        LayerType::Objects(ol) => {
            for o in ol.objects() {
                let class = o.user_type.clone();
                let loc = format!("object {}", o.id());
                if class.is_empty() {
                    continue;
                }
                if !OBJECT_CLASSES.contains(&class.as_str()) {
                    cx.diagnostics.push(Diagnostic {
                        severity: Severity::Error,
                        location: loc,
                        message: format!(
                            "unknown object class '{class}' (ignored; known: {})",
                            OBJECT_CLASSES.join(", ")
                        ),
                    });
                    continue;
                }
                unknown_props(&class, &o.properties, &loc, cx.diagnostics);
                let obj = Obj {
                    id: o.id(),
                    class,
                    name: o.name.clone(),
                    x: o.x,
                    y: o.y,
                    shape: o.shape.clone(),
                    properties: o.properties.clone(),
                };
                check_object_reach(&obj, cx.map, file)?;
                cx.objects.push(obj);
            }
        }
    }
    Ok(())
}

/// Refuses an object of a known class that reaches further from the map's
/// top-left corner than [`limits::MAX_OBJECT_TILES`] tiles (its position,
/// its far corner, every point of its path) or has more than
/// [`limits::MAX_PATH_POINTS`] points: everything built from objects
/// (ladders, slopes, platform paths, the spatial index) then stays bounded.
fn check_object_reach(o: &Obj, map: &Map, file: &str) -> Result<(), LevelError> {
    let reach_x = f64::from(limits::MAX_OBJECT_TILES) * f64::from(map.tile_width);
    let reach_y = f64::from(limits::MAX_OBJECT_TILES) * f64::from(map.tile_height);
    let fail = |reason: String| LevelError::Invalid {
        file: file.to_string(),
        location: format!("object {}", o.id),
        reason,
    };
    let (x, y) = (f64::from(o.x), f64::from(o.y));
    let mut coords: Vec<(&str, f64, f64)> = vec![("x", x, reach_x), ("y", y, reach_y)];
    match &o.shape {
        ObjectShape::Rect { width, height } | ObjectShape::Ellipse { width, height } => {
            coords.push(("x + width", x + f64::from(*width), reach_x));
            coords.push(("y + height", y + f64::from(*height), reach_y));
        }
        ObjectShape::Polyline { points } | ObjectShape::Polygon { points } => {
            if points.len() > limits::MAX_PATH_POINTS {
                return Err(fail(format!(
                    "{} points, more than the limit of {}",
                    points.len(),
                    limits::MAX_PATH_POINTS
                )));
            }
            for &(px, py) in points {
                coords.push(("a point's x", x + f64::from(px), reach_x));
                coords.push(("a point's y", y + f64::from(py), reach_y));
            }
        }
        _ => {}
    }
    for (what, v, reach) in coords {
        if !(v.is_finite() && v.abs() <= reach) {
            return Err(fail(format!(
                "{what} {v} px is outside the limit of ±{reach} px from the map's top-left corner \
                 ({} tiles, {} m): is it a typo?",
                limits::MAX_OBJECT_TILES,
                limits::MAX_LEVEL_REACH_M
            )));
        }
    }
    Ok(())
}

/// Reports properties a known class does not have.
fn unknown_props(
    class: &str,
    props: &tiled::Properties,
    loc: &str,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let known = known_properties(class);
    let mut keys: Vec<&String> = props
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .collect();
    keys.sort();
    for k in keys {
        diagnostics.push(Diagnostic {
            severity: Severity::Error,
            location: loc.to_string(),
            message: format!(
                "unknown property '{k}' on a {class} (known: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
        });
    }
}

/// Reports unknown properties on the classed tiles of every tileset.
fn tileset_diagnostics(map: &Map) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for ts in map.tilesets() {
        for (id, tile) in ts.tiles() {
            if let Some(class) = tile.user_type.as_deref()
                && TILE_CLASSES.contains(&class)
            {
                let loc = format!("tileset '{}' tile {id}", ts.name);
                unknown_props(class, &tile.properties, &loc, &mut out);
            }
        }
    }
    out
}

/// A float property with a default; integers are accepted, other types are an error.
fn float_prop(
    props: &tiled::Properties,
    key: &str,
    default: f32,
    file: &str,
    loc: &str,
) -> Result<f32, LevelError> {
    match props.get(key) {
        None => Ok(default),
        Some(PropertyValue::FloatValue(v)) if v.is_finite() => Ok(*v),
        Some(PropertyValue::IntValue(v)) => Ok(*v as f32),
        Some(other) => Err(LevelError::Invalid {
            file: file.to_string(),
            location: loc.to_string(),
            reason: format!("property '{key}' must be a number, not {other:?}"),
        }),
    }
}

/// Small crafted maps for tests: ASCII grids turned into TMX text.
#[cfg(test)]
pub(crate) mod testmaps {
    /// The test tileset: `#` Solid, `-` OneWay, `/` 45° up, `\` 45° down,
    /// `s` a 60° slope (too steep), `L` an unknown class `Lava`, `d` decoration.
    const TILESET: &str = r#" <tileset firstgid="1" name="test" tilewidth="32" tileheight="32" tilecount="7" columns="7">
  <image source="t.png" width="224" height="32"/>
  <tile id="0" type="Solid"/>
  <tile id="1" type="OneWay"/>
  <tile id="2" type="Slope"><properties><property name="left" type="float" value="0"/><property name="right" type="float" value="1"/></properties></tile>
  <tile id="3" type="Slope"><properties><property name="left" type="float" value="1"/><property name="right" type="float" value="0"/></properties></tile>
  <tile id="4" type="Slope"><properties><property name="angle" type="float" value="60"/></properties></tile>
  <tile id="5" type="Lava"/>
 </tileset>
"#;

    fn gid(c: char) -> u32 {
        match c {
            '#' => 1,
            '-' => 2,
            '/' => 3,
            '\\' => 4,
            's' => 5,
            'L' => 6,
            'd' => 7,
            _ => 0,
        }
    }

    /// A map of tile layers (each a grid of equal rows) and raw object XML.
    pub fn map(layers: &[&[&str]], objects: &str) -> String {
        let h = layers[0].len();
        let w = layers[0][0].len();
        let mut s = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.10\" orientation=\"orthogonal\" renderorder=\"right-down\" width=\"{w}\" height=\"{h}\" tilewidth=\"32\" tileheight=\"32\" infinite=\"0\">\n{TILESET}"
        );
        for (i, rows) in layers.iter().enumerate() {
            let csv: Vec<String> = rows
                .iter()
                .map(|r| {
                    r.chars()
                        .map(|c| gid(c).to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect();
            s += &format!(
                " <layer id=\"{}\" name=\"L{i}\" width=\"{w}\" height=\"{h}\"><data encoding=\"csv\">{}</data></layer>\n",
                i + 1,
                csv.join(",\n")
            );
        }
        s += &format!(" <objectgroup id=\"99\" name=\"Objects\">{objects}</objectgroup>\n</map>\n");
        s
    }

    /// A point object of `class` with feet at tile column `col` (its centre)
    /// standing on row boundary `row_top` (pixels from the map top = row · 32).
    pub fn point(id: u32, class: &str, col: f32, row_top: u32) -> String {
        format!(
            "<object id=\"{id}\" type=\"{class}\" x=\"{}\" y=\"{}\"><point/></object>",
            (col + 0.5) * 32.0,
            row_top * 32
        )
    }

    /// A `MovingPlatform` polyline through `points` (the top centre, metres,
    /// y up) on a map `rows` tiles tall, with its width (m), speed (m/s) and
    /// wait (s).
    pub fn platform(
        id: u32,
        rows: usize,
        points: &[(f32, f32)],
        width: f32,
        speed: f32,
        wait: f32,
    ) -> String {
        let px = |(x, y): (f32, f32)| (x * 64.0, (rows as f32 * 0.5 - y) * 64.0);
        let (x0, y0) = px(points[0]);
        let pts: Vec<String> = points
            .iter()
            .map(|&p| {
                let (x, y) = px(p);
                format!("{},{}", x - x0, y - y0)
            })
            .collect();
        format!(
            "<object id=\"{id}\" type=\"MovingPlatform\" x=\"{x0}\" y=\"{y0}\"><properties><property name=\"width\" type=\"float\" value=\"{width}\"/><property name=\"speed\" type=\"float\" value=\"{speed}\"/><property name=\"wait\" type=\"float\" value=\"{wait}\"/></properties><polyline points=\"{}\"/></object>",
            pts.join(" ")
        )
    }

    /// A ladder rectangle in pixels with a rung spacing in metres.
    pub fn ladder(id: u32, x: f32, y: f32, w: f32, h: f32, spacing: f32) -> String {
        format!(
            "<object id=\"{id}\" type=\"Ladder\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\"><properties><property name=\"rung_spacing\" type=\"float\" value=\"{spacing}\"/></properties></object>"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::testmaps::{map, point};
    use super::*;

    const FLAT: &[&str] = &["..........", "..........", "##########", "##########"];

    fn flat_with(objects: &str) -> Result<LoadedLevel, LevelError> {
        from_tmx_str(&map(&[FLAT], objects), "flat.tmx")
    }

    #[test]
    fn flat_map_gives_ground_at_the_tile_tops_in_metres() {
        let objs = point(1, "Spawn", 1.0, 2) + &point(2, "Exit", 8.0, 2);
        let l = flat_with(&objs).unwrap();
        assert_eq!(l.level.segments.len(), 1, "collinear columns merge");
        let s = l.level.segments[0];
        assert_eq!((s.x0, s.x1, s.y0, s.y1), (0.0, 5.0, 1.0, 1.0));
        assert_eq!(l.level.spawn, Vec2::new(0.75, 1.0));
        assert_eq!(l.level.exit, Vec2::new(4.25, 1.0));
        assert_eq!(l.level.kill_height, 1.0 - DEFAULT_KILL_DEPTH);
        assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
    }

    #[test]
    fn slope_tiles_give_the_exact_surface_they_declare() {
        let rows: &[&str] = &["....", "./\\.", "####"];
        let objs = point(1, "Spawn", 0.0, 2) + &point(2, "Exit", 3.0, 2);
        let l = from_tmx_str(&map(&[rows], &objs), "slope.tmx").unwrap();
        let lv = &l.level;
        for (x, h) in [
            (0.25, 0.5),
            (0.5, 0.5),
            (0.75, 0.75),
            (1.0, 1.0),
            (1.25, 0.75),
            (1.75, 0.5),
        ] {
            let got = lv.ground_height(x).unwrap();
            assert!((got - h).abs() < 1e-6, "h({x}) = {got}, want {h}");
        }
        let n = lv.ground_normal(0.7);
        assert!((n.angle_to(Vec2::Y).abs().to_degrees() - 45.0).abs() < 1e-3);
    }

    #[test]
    fn a_horizontally_flipped_slope_mirrors_and_a_vertical_flip_is_refused() {
        // gid 3 (45° up) with Tiled's horizontal-flip bit.
        let flipped_up = (0x8000_0000u32 | 3).to_string();
        let text = map(
            &[&["....", "./..", "####"]],
            &(point(1, "Spawn", 0.0, 2) + &point(2, "Exit", 3.0, 2)),
        )
        .replacen("0,3,0,0", &format!("0,{flipped_up},0,0"), 1);
        let l = from_tmx_str(&text, "flip.tmx").unwrap();
        assert_eq!(l.level.ground_height(0.5), Some(1.0));
        assert_eq!(l.level.ground_height(1.0), Some(0.5));
        let vflip = (0x4000_0000u32 | 3).to_string();
        let text = text.replacen(&flipped_up, &vflip, 1);
        let e = from_tmx_str(&text, "flip.tmx").unwrap_err().to_string();
        assert!(
            e.starts_with("flip.tmx:layer 'L0' tile (1,1):") && e.contains("flipped"),
            "{e}"
        );
    }

    #[test]
    fn other_files_third_party_json_maps_and_isometric_maps_are_refused_clearly() {
        // A Tiled JSON map of another game is read, and refused for what
        // it lacks, as its TMX would be.
        let title = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/assets/third_party/tiled/mapeditor-tiled-examples/sticker-knight/ui/title.json");
        let e = load(&title).unwrap_err().to_string();
        assert!(
            e.contains("title.json:map:") && e.contains("no ground"),
            "{e}"
        );
        let e = load(Path::new("level.txt")).unwrap_err().to_string();
        assert!(
            e.starts_with("level.txt:map:") && e.contains("only Tiled maps (.tmx, or .tmj/.json)"),
            "{e}"
        );
        let text = map(&[FLAT], &point(1, "Spawn", 1.0, 2))
            .replace("orientation=\"orthogonal\"", "orientation=\"isometric\"");
        let e = from_tmx_str(&text, "iso.tmx").unwrap_err().to_string();
        assert!(
            e.starts_with("iso.tmx:map:") && e.contains("Isometric"),
            "{e}"
        );
    }

    #[test]
    fn gaps_between_columns_have_no_ground() {
        let rows: &[&str] = &["##..##"];
        let objs = point(1, "Spawn", 0.0, 0) + &point(2, "Exit", 5.0, 0);
        let l = from_tmx_str(&map(&[rows], &objs), "gap.tmx").unwrap();
        assert!(l.level.ground_height(1.2).is_none());
        assert_eq!(l.level.ground_height(2.1), Some(0.5));
        assert_eq!(l.level.segments.len(), 2);
    }

    #[test]
    fn block_corners_are_ledges_unless_a_no_grab_rectangle_covers_them() {
        // A block six tiles tall (3 m) in the middle of the ground.
        let rows: &[&str] = &[
            "...##...", "...##...", "...##...", "...##...", "...##...", "########",
        ];
        let objs = point(1, "Spawn", 0.0, 5) + &point(2, "Exit", 7.0, 5);
        let l = from_tmx_str(&map(&[rows], &objs), "ledge.tmx").unwrap();
        let mut corners: Vec<(f32, f32, f32)> = l
            .level
            .static_ledges()
            .map(|e| (e.corner.x, e.corner.y, e.side))
            .collect();
        corners.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(corners, vec![(1.5, 3.0, -1.0), (2.5, 3.0, 1.0)]);
        // A NoGrab rectangle over the right corner (pixels, y down).
        let no_grab =
            "<object id=\"3\" type=\"NoGrab\" x=\"144\" y=\"0\" width=\"32\" height=\"32\"/>";
        let l = from_tmx_str(&map(&[rows], &(objs.clone() + no_grab)), "ledge.tmx").unwrap();
        assert_eq!(l.level.no_grab.len(), 1);
        let left: Vec<f32> = l.level.static_ledges().map(|e| e.corner.x).collect();
        assert_eq!(left, vec![1.5]);
        // A NoGrab point is an error naming the object.
        let bad = "<object id=\"3\" type=\"NoGrab\" x=\"144\" y=\"0\"><point/></object>";
        let err = from_tmx_str(&map(&[rows], &(objs + bad)), "ledge.tmx").unwrap_err();
        assert!(err.to_string().contains("object 3"), "{err}");
    }

    #[test]
    fn one_way_tiles_are_floors_above_the_ground_merged_along_a_row() {
        let rows: &[&str] = &["..--..", "......", "######"];
        let objs = point(1, "Spawn", 0.0, 2) + &point(2, "Exit", 5.0, 2);
        let l = from_tmx_str(&map(&[rows], &objs), "oneway.tmx").unwrap();
        assert_eq!(
            l.one_way.len(),
            1,
            "two plank tiles side by side are one plank"
        );
        assert_eq!(
            (l.one_way[0].x0, l.one_way[0].x1, l.one_way[0].y0),
            (1.0, 2.0, 1.5)
        );
        let lv = &l.level;
        let plank = lv.floor_below(1.2, 2.0, 1.0).unwrap();
        assert_eq!((plank.y, plank.kind()), (1.5, FloorKind::OneWay));
        assert_eq!(
            lv.floor_below(1.2, 1.4, 2.0).unwrap().y,
            0.5,
            "under the plank: ground"
        );
        assert!(
            lv.ceiling_above(1.0, 2.0, 0.5, 3.0).is_none(),
            "a plank is no ceiling"
        );
    }

    #[test]
    fn floors_at_every_height_with_solids_around_them() {
        // A floating block over a tunnel, a ledge, a slope on a platform.
        let rows: &[&str] = &["......./", "..###.##", "........", "##....##", "########"];
        let objs = point(1, "Spawn", 0.0, 3) + &point(2, "Exit", 7.0, 4);
        let l = from_tmx_str(&map(&[rows], &objs), "floors.tmx").unwrap();
        let lv = &l.level;
        // Column 2: the block's top at 2.0 m, the ground at 0.5 m under it.
        assert_eq!(lv.floor_below(1.2, 3.0, 5.0).unwrap().y, 2.0);
        assert_eq!(lv.floor_below(1.2, 1.0, 5.0).unwrap().y, 0.5);
        // The block's underside is a ceiling at 1.5 m over the tunnel.
        assert_eq!(lv.ceiling_above(1.1, 1.3, 0.5, 3.0), Some(1.5));
        // Column 7: a slope cell on top of a block, then ground far below.
        let top = lv.floor_below(3.75, 3.0, 5.0).unwrap();
        assert!(
            (top.y - 2.25).abs() < 1e-5 && top.segment.slope() > 0.9,
            "{top:?}"
        );
        assert_eq!(lv.floor_below(3.75, 1.9, 5.0).unwrap().y, 1.0);
        // Columns 6–7 are a wall for a body on the ground (stopped at its
        // face, 3.0 m, less the half width); on the block's level (2.0 m)
        // the way is open.
        assert_eq!(
            lv.wall_between(2.0, 3.5, 0.25, 0.5 + 0.3, 0.5 + 1.75),
            Some(2.75)
        );
        assert_eq!(lv.wall_between(2.0, 3.5, 0.25, 2.0 + 0.3, 2.0 + 1.75), None);
    }

    #[test]
    fn unknown_classes_and_properties_are_reported_and_ignored() {
        let rows: &[&str] = &["..L.", "####"];
        let objs = point(1, "Spawn", 0.0, 1)
            + &point(2, "Exit", 3.0, 1)
            + "<object id=\"3\" type=\"Coin\" x=\"5\" y=\"5\"><point/></object>"
            + "<object id=\"4\" type=\"Spawnn\" x=\"5\" y=\"5\"><point/></object>";
        let l = from_tmx_str(&map(&[rows], &objs), "unknown.tmx").unwrap();
        let msgs: Vec<String> = l.diagnostics.iter().map(ToString::to_string).collect();
        assert!(
            msgs.iter().any(|m| m.contains("unknown tile class 'Lava'")),
            "{msgs:?}"
        );
        assert!(
            msgs.iter()
                .any(|m| m.starts_with("object 3") && m.contains("'Coin'")),
            "{msgs:?}"
        );
        assert!(
            msgs.iter()
                .any(|m| m.starts_with("object 4") && m.contains("'Spawnn'")),
            "{msgs:?}"
        );
        assert_eq!(
            l.level.ground_height(1.1),
            Some(0.5),
            "the Lava tile is not ground"
        );
    }

    #[test]
    fn a_slope_object_overrides_the_cells_it_covers() {
        // Column 1's top is Solid at row 2 (top 1.0 m); the object makes it a
        // slope from 0.25 to 0.75 tile heights.
        let objs = point(1, "Spawn", 0.0, 2)
            + &point(2, "Exit", 8.0, 2)
            + "<object id=\"3\" type=\"Slope\" x=\"32\" y=\"64\" width=\"32\" height=\"32\"><properties><property name=\"left\" type=\"float\" value=\"0.25\"/><property name=\"right\" type=\"float\" value=\"0.75\"/></properties></object>";
        let l = flat_with(&objs).unwrap();
        assert_eq!(l.level.ground_height(0.5), Some(0.625));
        assert_eq!(l.level.ground_height(0.75), Some(0.75));
        assert_eq!(l.level.ground_height(0.25), Some(1.0), "column 0 untouched");
        let c = l.columns.iter().find(|c| c.col == 1).unwrap();
        assert!(c.slope && c.override_id == Some(3));
        assert_eq!((c.row, c.left, c.right), (2, 0.25, 0.75));
        assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
        assert_eq!(l.grid.bottom_row, 3);
        assert_eq!(l.grid.y_to_px(1.0), 64.0);
    }

    #[test]
    fn a_slope_object_off_the_grid_is_an_error_naming_it() {
        let objs = point(1, "Spawn", 0.0, 2)
            + &point(2, "Exit", 8.0, 2)
            + "<object id=\"9\" type=\"Slope\" x=\"40\" y=\"64\" width=\"32\" height=\"32\"/>";
        let e = flat_with(&objs).unwrap_err().to_string();
        assert!(
            e.starts_with("flat.tmx:object 9:") && e.contains("whole tiles"),
            "{e}"
        );
    }

    #[test]
    fn load_with_text_reads_the_edited_text_and_the_tilesets_from_disk() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/levels");
        let path = dir.join("external_tileset_and_template.tmx");
        let text = std::fs::read_to_string(&path).unwrap();
        let from_disk = load(&path).unwrap();
        let from_text = load_with_text(&path, &text).unwrap();
        assert_eq!(from_disk.level.segments, from_text.level.segments);
        assert_eq!(from_disk.level.ladders, from_text.level.ladders);
        let e = load_with_text(&path, "<map").unwrap_err().to_string();
        assert!(e.contains("external_tileset_and_template.tmx"), "{e}");
    }

    #[test]
    fn checkpoints_load_in_map_order_with_their_names() {
        let objs = point(1, "Spawn", 1.0, 2)
            + &point(2, "Exit", 8.0, 2)
            + &point(3, "Checkpoint", 3.0, 2)
            + "<object id=\"4\" name=\"  the far side \" type=\"Checkpoint\" x=\"160\" y=\"32\" width=\"32\" height=\"32\"/>";
        let l = flat_with(&objs).unwrap();
        let c = &l.level.checkpoints;
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].name, "checkpoint 1");
        assert!(
            (c[0].pos - Vec2::new(1.75, 1.0)).length() < 1e-5,
            "{:?}",
            c[0]
        );
        // A rectangle's feet are its bottom centre; the name is trimmed.
        assert_eq!(c[1].name, "the far side");
        assert!(
            (c[1].pos - Vec2::new(2.75, 1.0)).length() < 1e-5,
            "{:?}",
            c[1]
        );
        assert_eq!(l.checkpoint_ids, [3, 4]);
        assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
    }

    #[test]
    fn missing_spawn_is_an_error_naming_the_file() {
        let e = flat_with(&point(2, "Exit", 8.0, 2))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("flat.tmx:map:") && e.contains("no Spawn"),
            "{e}"
        );
    }

    #[test]
    fn a_ladder_that_is_not_a_rectangle_is_an_error_naming_the_object() {
        let objs = point(1, "Spawn", 1.0, 2)
            + &point(2, "Exit", 8.0, 2)
            + "<object id=\"7\" type=\"Ladder\" x=\"5\" y=\"5\"><point/></object>";
        let e = flat_with(&objs).unwrap_err().to_string();
        assert!(
            e.contains("flat.tmx:object 7") && e.contains("rectangle"),
            "{e}"
        );
    }

    #[test]
    fn a_property_of_the_wrong_type_is_an_error() {
        let objs = point(1, "Spawn", 1.0, 2)
            + &point(2, "Exit", 8.0, 2)
            + "<object id=\"5\" type=\"Ladder\" x=\"64\" y=\"0\" width=\"16\" height=\"64\"><properties><property name=\"rung_spacing\" value=\"wide\"/></properties></object>";
        let e = flat_with(&objs).unwrap_err().to_string();
        assert!(e.contains("object 5") && e.contains("rung_spacing"), "{e}");
    }

    #[test]
    fn malformed_xml_is_an_error_not_a_panic() {
        let e = from_tmx_str("<map><layer", "broken.tmx")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("broken.tmx:"), "{e}");
    }

    #[test]
    fn shipped_levels_load_with_every_slope_angle_and_several_ladders() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/levels");
        for name in ["tutorial.tmx", "long.tmx"] {
            let l = load(dir.join(name)).unwrap();
            assert!(l.diagnostics.is_empty(), "{name}: {:?}", l.diagnostics);
            for deg in [15.0f32, 30.0, 45.0] {
                for sign in [1.0, -1.0] {
                    let found = l
                        .level
                        .segments
                        .iter()
                        .any(|s| (s.angle().to_degrees() - sign * deg).abs() < 0.01);
                    assert!(found, "{name}: no {}° slope", sign * deg);
                }
            }
            let spacings: std::collections::BTreeSet<u32> = l
                .level
                .ladders
                .iter()
                .map(|l| (l.rung_spacing * 100.0).round() as u32)
                .collect();
            assert!(spacings.len() >= 3, "{name}: spacings {spacings:?}");
            let heights: std::collections::BTreeSet<u32> = l
                .level
                .ladders
                .iter()
                .map(|l| ((l.top - l.bottom) * 100.0).round() as u32)
                .collect();
            assert!(heights.len() >= 3, "{name}: heights {heights:?}");
        }
    }

    #[test]
    fn the_tutorial_and_the_tower_hold_every_kind_of_floor() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/levels");
        for name in ["tutorial.tmx", "tower.tmx"] {
            let l = load(dir.join(name)).unwrap();
            assert!(l.diagnostics.is_empty(), "{name}: {:?}", l.diagnostics);
            let level = &l.level;
            assert!(l.one_way.len() >= 2, "{name}: one-way planks");
            assert!(level.ladders.len() >= 3, "{name}: ladders");
            assert!(!level.platforms.is_empty(), "{name}: a moving platform");
            // A floor with a solid over it: a tunnel under a platform or a
            // bridge, with the knight's headroom (4 tiles) kept.
            let tunnel = level.segments.iter().any(|s| {
                let x = 0.5 * (s.x0 + s.x1);
                let y = s.height_at(x);
                level.ceiling_above(x - 0.25, x + 0.25, y, 4.0).is_some()
            });
            assert!(tunnel, "{name}: a tunnel");
            for s in &level.segments {
                for k in 0..4 {
                    let x = s.x0 + (s.x1 - s.x0) * (k as f32 + 0.5) / 4.0;
                    let y = s.height_at(x);
                    if let Some(c) = level.ceiling_above(x - 0.2, x + 0.2, y, 10.0) {
                        assert!(
                            c - y >= 4.0 * TILE_METRES - GRID_EPSILON,
                            "{name}: headroom at x {x}"
                        );
                    }
                }
            }
            // Every ladder's top is a floor: beside it, or a plank it passes.
            for d in &level.ladders {
                let top = [-0.6f32, 0.0, 0.6].iter().any(|dx| {
                    level
                        .floor_below(d.x + dx, d.top + 0.01, 0.02)
                        .is_some_and(|h| (h.y - d.top).abs() < 0.01)
                });
                assert!(top, "{name}: ladder at x {} has no floor at its top", d.x);
            }
        }
        let tower = load(dir.join("tower.tmx")).unwrap().level;
        let heights: std::collections::BTreeSet<i32> = tower
            .segments
            .iter()
            .map(|s| (s.y0 * 100.0).round() as i32)
            .collect();
        assert!(heights.len() >= 4, "tower floors {heights:?}");
        let lift = &tower.platforms[0];
        let (a, b) = (lift.path[0], *lift.path.last().unwrap());
        assert!(
            a.x == b.x && b.y - a.y >= 2.0,
            "the tower's lift is vertical: {a} {b}"
        );
        // Spawn on the ground; the exit east of it on the top of a 3 m wall
        // (caught by its corner: issue 34).
        assert!(tower.spawn.y < 2.0 && tower.exit.x > tower.spawn.x);
        assert!(
            (tower.exit.y - tower.spawn.y - 3.0).abs() < 0.01,
            "{}",
            tower.exit
        );
    }

    #[test]
    fn embedded_tutorial_equals_the_file() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/levels");
        let file = load(dir.join("tutorial.tmx")).unwrap();
        let embedded = tutorial().unwrap();
        assert_eq!(file.level.segments, embedded.level.segments);
        assert_eq!(file.level.ladders, embedded.level.ladders);
        assert_eq!(file.level.platforms, embedded.level.platforms);
        assert!(
            embedded
                .level
                .ground_height(embedded.level.spawn.x)
                .is_some()
        );
    }

    #[test]
    fn the_tiled_project_declares_exactly_our_classes_and_defaults() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/levels/ironstep.tiled-project");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut classes = Vec::new();
        let mut members = Vec::new();
        for t in v["propertyTypes"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap();
            for use_as in t["useAs"].as_array().unwrap() {
                classes.push((use_as.as_str().unwrap().to_string(), name.to_string()));
            }
            for m in t["members"].as_array().unwrap() {
                let key = m["name"].as_str().unwrap();
                assert!(known_properties(name).contains(&key), "{name}.{key}");
                members.push((
                    name.to_string(),
                    key.to_string(),
                    m["value"].as_f64().unwrap() as f32,
                ));
            }
        }
        let mut want: Vec<(String, String)> = TILE_CLASSES
            .iter()
            .map(|c| ("tile".to_string(), c.to_string()))
            .chain(
                OBJECT_CLASSES
                    .iter()
                    .map(|c| ("object".to_string(), c.to_string())),
            )
            .collect();
        want.sort();
        classes.sort();
        assert_eq!(classes, want);
        let want: Vec<(String, String, f32)> = CLASS_DEFAULTS
            .iter()
            .map(|(c, k, v)| (c.to_string(), k.to_string(), *v))
            .collect();
        assert_eq!(members, want);
    }

    #[test]
    fn third_party_maps_load_or_fail_with_file_and_reason() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/assets/third_party/tiled/mapeditor-tiled-examples");
        let maps = [
            "forest/forest.tmx",
            "sticker-knight/map/sandbox.tmx",
            "sticker-knight/map/sandbox2.tmx",
        ];
        for m in maps {
            let path = root.join(m);
            assert!(path.exists(), "{} is missing", path.display());
            match load(&path) {
                Ok(l) => assert!(!l.level.segments.is_empty()),
                Err(e) => {
                    let msg = e.to_string();
                    assert!(msg.starts_with(&path.display().to_string()), "{msg}");
                    assert!(msg.contains("no ground"), "{msg}");
                }
            }
        }
    }

    /// The ends every hostile map below keeps (so only the planted value is
    /// wrong): a spawn and an exit on the flat ground.
    fn ends() -> String {
        point(1, "Spawn", 0.0, 2) + &point(2, "Exit", 8.0, 2)
    }

    fn refused(text: &str) -> String {
        from_tmx_str(text, "hostile.tmx").unwrap_err().to_string()
    }

    #[test]
    fn a_ladder_four_million_metres_up_is_refused_naming_it_value_and_limit() {
        let objs = ends()
            + "<object id=\"5\" type=\"Ladder\" x=\"64\" y=\"-128000000\" width=\"16\" height=\"320\"/>";
        let e = refused(&map(&[FLAT], &objs));
        assert!(
            e.starts_with("hostile.tmx:object 5:")
                && e.contains("-128000000")
                && e.contains("131072")
                && e.contains("4096 tiles"),
            "{e}"
        );
    }

    #[test]
    fn a_slope_object_3_2_million_px_square_is_refused_before_any_cell_is_made() {
        let objs = ends()
            + "<object id=\"6\" type=\"Slope\" x=\"0\" y=\"0\" width=\"3200000\" height=\"3200000\"/>";
        let e = refused(&map(&[FLAT], &objs));
        assert!(
            e.starts_with("hostile.tmx:object 6:") && e.contains("x + width 3200000 px"),
            "{e}"
        );
    }

    #[test]
    fn slope_objects_past_the_cell_budget_are_refused_inside_the_reach() {
        // 300 × 300 tiles lies within the reach limit but covers 90,000
        // cells, more than MAX_SLOPE_OBJECT_CELLS.
        let objs = ends()
            + "<object id=\"7\" type=\"Slope\" x=\"0\" y=\"0\" width=\"9600\" height=\"9600\"/>";
        let e = refused(&map(&[FLAT], &objs));
        assert!(
            e.starts_with("hostile.tmx:object 7:")
                && e.contains("90000 cells")
                && e.contains(&limits::MAX_SLOPE_OBJECT_CELLS.to_string()),
            "{e}"
        );
        // One under the budget loads (256 × 256 = 65,536 cells).
        let objs = ends()
            + "<object id=\"7\" type=\"Slope\" x=\"0\" y=\"64\" width=\"8192\" height=\"8192\"/>";
        assert!(from_tmx_str(&map(&[FLAT], &objs), "ok.tmx").is_ok());
    }

    #[test]
    fn a_slope_object_at_64e9_px_is_refused_not_wrapped_or_dropped() {
        let objs = ends()
            + "<object id=\"8\" type=\"Slope\" x=\"64000000000\" y=\"64\" width=\"32\" height=\"32\"/>";
        let e = refused(&map(&[FLAT], &objs));
        assert!(
            e.starts_with("hostile.tmx:object 8:") && e.contains("x 64000000000 px"),
            "{e}"
        );
    }

    #[test]
    fn a_map_two_million_tiles_wide_is_too_large_before_tiled_sees_it() {
        let text = map(&[FLAT], &ends()).replacen("width=\"10\"", "width=\"2000000\"", 2);
        let e = refused(&text);
        assert!(
            e.starts_with("hostile.tmx:map:")
                && e.contains("map too large")
                && e.contains("2000000")
                && e.contains("4096"),
            "{e}"
        );
    }

    #[test]
    fn a_map_width_of_1e8_over_104_columns_is_refused() {
        // Only the map's width is changed (the layer keeps its 10 columns of
        // data): the size limit speaks first.
        let text = map(&[FLAT], &ends()).replacen("width=\"10\"", "width=\"100000000\"", 1);
        let e = refused(&text);
        assert!(
            e.contains("map too large") && e.contains("100000000"),
            "{e}"
        );
        // Within the limits, a layer whose data is shorter than width ×
        // height: 104 columns of data declared 200 wide.
        let row: Vec<&str> = vec!["1"; 104];
        let text = format!(
            "<map orientation=\"orthogonal\" width=\"200\" height=\"1\" tilewidth=\"32\" tileheight=\"32\" infinite=\"0\">{}<layer name=\"G\" width=\"200\" height=\"1\"><data encoding=\"csv\">{}</data></layer></map>",
            testmaps_tileset(),
            row.join(",")
        );
        let e = refused(&text);
        assert!(
            e.starts_with("hostile.tmx:layer 'G':")
                && e.contains("data length does not match width × height")
                && e.contains("104")
                && e.contains("200 × 1 = 200"),
            "{e}"
        );
        // A layer whose size is not the map's is refused too.
        let text = map(&[FLAT], &ends()).replacen("width=\"10\"", "width=\"104\"", 1);
        let e = refused(&text);
        assert!(
            e.contains("layer 'L0'") && e.contains("the map is 104 × 4"),
            "{e}"
        );
    }

    /// The test tileset alone (firstgid 1, seven tiles).
    fn testmaps_tileset() -> String {
        let m = map(&[&["#"]], "");
        let a = m.find("<tileset").unwrap();
        let b = m.find("</tileset>").unwrap() + "</tileset>".len();
        m[a..b].to_string()
    }

    #[test]
    fn a_tile_gid_that_belongs_to_no_tileset_names_the_layer_cell_and_gid() {
        // Past the tileset's seven tiles.
        let text = map(&[FLAT], &ends()).replacen("1,1,1", "1,50,1", 1);
        let e = refused(&text);
        assert!(
            e.starts_with("hostile.tmx:layer 'L0' tile (1,2):") && e.contains("gid 50"),
            "{e}"
        );
        // Below the first tileset's first gid.
        let text = map(&[FLAT], &ends()).replace("firstgid=\"1\"", "firstgid=\"10\"");
        let e = refused(&text);
        assert!(
            e.contains("layer 'L0' tile (0,2)")
                && e.contains("gid 1 belongs to no tileset")
                && e.contains("starts at gid 10"),
            "{e}"
        );
    }

    #[test]
    fn a_spawn_inside_the_ground_is_refused_naming_where() {
        // Feet a tile and a half under the surface (row boundary 3.5 → y 80 px below it).
        let objs = "<object id=\"1\" type=\"Spawn\" x=\"48\" y=\"112\"><point/></object>"
            .to_string()
            + &point(2, "Exit", 8.0, 2);
        let e = refused(&map(&[FLAT], &objs));
        assert!(
            e.starts_with("hostile.tmx:object 1:")
                && e.contains("spawn inside a solid at (0.75, 0.25) m"),
            "{e}"
        );
        // A checkpoint likewise; a spawn a few centimetres into the ground is
        // stepped out of and loads.
        let objs = ends()
            + "<object id=\"3\" name=\"deep\" type=\"Checkpoint\" x=\"48\" y=\"120\"><point/></object>";
        let e = refused(&map(&[FLAT], &objs));
        assert!(e.contains("checkpoint 'deep' inside a solid"), "{e}");
        let objs = "<object id=\"1\" type=\"Spawn\" x=\"48\" y=\"66\"><point/></object>"
            .to_string()
            + &point(2, "Exit", 8.0, 2);
        assert!(from_tmx_str(&map(&[FLAT], &objs), "ok.tmx").is_ok());
    }

    #[test]
    fn compressed_data_is_decompressed_under_a_bound() {
        use base64::Engine;
        use std::io::Write;
        // 10 × 4 tiles declared; the zlib stream expands to 400 MB of zeros.
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..400 {
            z.write_all(&zeros).unwrap();
        }
        let data = base64::engine::general_purpose::STANDARD.encode(z.finish().unwrap());
        let m = map(&[FLAT], &ends());
        let a = m.find("<data").unwrap();
        let b = m.find("</data>").unwrap() + "</data>".len();
        let text = format!(
            "{}<data encoding=\"base64\" compression=\"zlib\">{data}</data>{}",
            &m[..a],
            &m[b..]
        );
        let e = refused(&text);
        assert!(
            e.contains("layer 'L0'")
                && e.contains(
                    "holds more than 10 × 4 = 40 tiles (decompression stopped after 161 bytes)"
                ),
            "{e}"
        );
    }

    #[test]
    fn a_tileset_declaring_billions_of_tiles_is_refused() {
        let text = map(&[FLAT], &ends()).replace("tilecount=\"7\"", "tilecount=\"4000000000\"");
        let e = refused(&text);
        assert!(
            e.starts_with("hostile.tmx:tileset 'test':") && e.contains("tilecount 4000000000"),
            "{e}"
        );
        // An image narrower than the margin, with no columns attribute:
        // the reader's unsigned arithmetic would underflow.
        let text = map(&[FLAT], &ends()).replace(" columns=\"7\"", " margin=\"300\"");
        let e = refused(&text);
        assert!(e.contains("image width 224 px"), "{e}");
    }

    #[test]
    fn infinite_chunks_past_the_limits_are_refused() {
        let chunk = |x: i64, w: u64| {
            format!(
                "<map orientation=\"orthogonal\" width=\"10\" height=\"4\" tilewidth=\"32\" tileheight=\"32\" infinite=\"1\">{}<layer name=\"G\" width=\"10\" height=\"4\"><data encoding=\"csv\"><chunk x=\"{x}\" y=\"0\" width=\"{w}\" height=\"1\">{}</chunk></data></layer></map>",
                testmaps_tileset(),
                vec!["1"; w as usize].join(",")
            )
        };
        let e = refused(&chunk(2_147_483_600, 16));
        assert!(
            e.contains("chunk at (2147483600,0)") && e.contains("±4096"),
            "{e}"
        );
        let e = refused(&chunk(-16, 5000));
        assert!(e.contains("chunk at (-16,0)"), "{e}");
    }

    #[test]
    fn deep_nesting_long_paths_and_ladders_of_countless_rungs_are_refused() {
        // Group layers nested 100 deep: the reader would recurse that far.
        let deep = format!(
            "{}{}",
            "<group name=\"g\">".repeat(100),
            "</group>".repeat(100)
        );
        let text =
            map(&[FLAT], &ends()).replacen(" <objectgroup", &format!("{deep}<objectgroup"), 1);
        let e = refused(&text);
        assert!(
            e.contains("element <group>") && e.contains("more than the limit of 64"),
            "{e}"
        );
        // A platform path of three legs of 2,000 m.
        let objs = ends()
            + "<object id=\"9\" type=\"MovingPlatform\" x=\"32\" y=\"16\"><polyline points=\"0,0 128000,0 0,0 128000,0\"/></object>";
        let e = refused(&map(&[FLAT], &objs));
        assert!(
            e.starts_with("hostile.tmx:object 9:") && e.contains("the path is 6000.0 m long"),
            "{e}"
        );
        // A ladder with rungs a hundredth of a millimetre apart.
        let objs = ends()
            + "<object id=\"5\" type=\"Ladder\" x=\"96\" y=\"0\" width=\"16\" height=\"64\"><properties><property name=\"rung_spacing\" type=\"float\" value=\"0.00001\"/></properties></object>";
        let e = refused(&map(&[FLAT], &objs));
        assert!(
            e.starts_with("hostile.tmx:object 5:")
                && e.contains("100000 rungs")
                && e.contains("limit of 16384"),
            "{e}"
        );
    }

    #[test]
    fn a_moving_platform_with_too_many_points_is_refused() {
        let pts: Vec<String> = (0..2000).map(|i| format!("{},0", i % 64)).collect();
        let objs = ends()
            + &format!(
                "<object id=\"9\" type=\"MovingPlatform\" x=\"32\" y=\"16\"><polyline points=\"{}\"/></object>",
                pts.join(" ")
            );
        let e = refused(&map(&[FLAT], &objs));
        assert!(
            e.starts_with("hostile.tmx:object 9:") && e.contains("2000 points"),
            "{e}"
        );
    }
}
