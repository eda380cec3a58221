//! The designer's model of a level file: the TMX text being edited, the level
//! the game plays made from it by the real loader, and the edits designer
//! mode offers (ladder ends and rungs, slope heights, one-way planks' ends,
//! moving platforms' path points), each applied to the text and reloaded at
//! once, so what the knight stands on is exactly what Ctrl+S will write.
//!
//! Edits are transactions: the edited text must load, or the edit is refused
//! with the loader's reason and nothing changes. Saving writes the text
//! atomically ([`crate::fsio::write_atomic`]). Only the values an edit
//! changed differ from the file on disk (see [`super::tmx_text`]). Every
//! edit can be undone and redone ([`LevelDoc::undo`], [`LevelDoc::redo`]);
//! the edits made between [`LevelDoc::begin_gesture`] and
//! [`LevelDoc::end_gesture`] (one drag) undo as one.
//!
//! Where values go in the TMX:
//!
//! - a ladder's top and bottom: its rectangle's `y` and `height` (pixels);
//! - rung spacing and first rung offset: the ladder object's `rung_spacing`
//!   and `first_rung_offset` properties (metres);
//! - one slope cell's heights: a `Slope` **object** covering that cell, with
//!   `left` and `right` properties (tile heights). Slope tiles are shared by
//!   every cell drawn with them, so editing the tile would move every slope
//!   of that kind; the object overrides just the cell (created on the first
//!   edit, updated after). Cells are keyed by column and row: a column may
//!   have a slope on a floating platform and another on the ground below;
//! - a one-way plank's ends: the tile layer's cells (CSV data only; other
//!   encodings are refused with the reason). Lengthening copies the end
//!   tile's gid (flips included) into empty cells of the layer holding it;
//!   shortening empties the `OneWay` tiles of the cells given up;
//! - a moving platform's path point: that point of the object's
//!   `<polyline points="...">`, in pixels relative to the object's `x`, `y`.
//!
//! A Tiled JSON map (`.tmj`, `.json`) is edited the same way in its own
//! format ([`super::tmj_text`]): the same members (`y`, `height`), the same
//! properties, the same `Slope` objects, data array cells and `polyline`
//! points, and it is saved back as JSON.

use std::path::{Path, PathBuf};

use super::check::check_level;
use super::tmj_text::TmjText;
use super::tmx_text::{TmxText, fmt_num};
use super::{ColumnTop, Diagnostic, GRID_EPSILON, LoadedLevel, TILE_METRES, load_with_text};
use crate::sim::world::Level;

/// Shortest ladder designer mode makes, metres: one rung at the shortest
/// climbable spacing; below it a ladder has nothing to climb.
pub const MIN_LADDER_HEIGHT: f32 = 0.25;
/// Pixel values are written rounded to this many per pixel: far below what
/// anyone sees, and it keeps f32 noise (`383.99997`) out of the file.
const PX_ROUNDING: f64 = 1000.0;
/// How many edits undo remembers. Each step keeps a copy of the text (a
/// level is tens of kilobytes), so 200 steps stay within a few megabytes;
/// the oldest step is forgotten first.
pub const MAX_UNDO: usize = 200;

/// One end of a ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LadderEnd {
    /// The top, the floor height climbed to.
    Top,
    /// The foot.
    Bottom,
}

/// One edge of a slope cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlopeSide {
    /// The cell's left edge.
    Left,
    /// The cell's right edge.
    Right,
}

/// One end of a one-way plank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlankEnd {
    /// The left end (its first tile).
    Left,
    /// The right end (its last tile).
    Right,
}

/// A one-way plank in grid terms: a run of `OneWay` tiles in one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plank {
    /// Tile row (counted down from the map's top).
    pub row: i32,
    /// The first tile's column.
    pub col0: i32,
    /// The last tile's column (inclusive).
    pub col1: i32,
}

impl Plank {
    /// Its length in tiles.
    pub fn tiles(&self) -> i32 {
        self.col1 - self.col0 + 1
    }
}

/// The text of the file being edited, in its own format.
#[derive(Clone, Debug, PartialEq, Eq)]
enum MapText {
    /// A TMX map.
    Tmx(TmxText),
    /// A Tiled JSON map.
    Tmj(TmjText),
}

/// Calls the same method on either format's text.
macro_rules! each {
    ($self:expr, $t:ident => $e:expr) => {
        match $self {
            MapText::Tmx($t) => $e,
            MapText::Tmj($t) => $e,
        }
    };
}

impl MapText {
    /// The text of the map at `path`, by its extension.
    fn new(path: &Path, text: String) -> Self {
        if super::tmj::is_json_path(path) {
            Self::Tmj(TmjText::new(text))
        } else {
            Self::Tmx(TmxText::new(text))
        }
    }

    /// Another text of the same format.
    fn with(&self, text: String) -> Self {
        match self {
            Self::Tmx(_) => Self::Tmx(TmxText::new(text)),
            Self::Tmj(_) => Self::Tmj(TmjText::new(text)),
        }
    }

    fn as_str(&self) -> &str {
        each!(self, t => t.as_str())
    }

    fn object_attr(&self, id: u32, name: &str) -> Result<Option<String>, String> {
        each!(self, t => t.object_attr(id, name))
    }

    fn set_object_attr(&mut self, id: u32, name: &str, value: &str) -> Result<(), String> {
        each!(self, t => t.set_object_attr(id, name, value))
    }

    fn object_property(&self, id: u32, name: &str) -> Result<Option<String>, String> {
        each!(self, t => t.object_property(id, name))
    }

    fn set_object_property(
        &mut self,
        id: u32,
        name: &str,
        ty: &str,
        value: &str,
    ) -> Result<(), String> {
        each!(self, t => t.set_object_property(id, name, ty, value))
    }

    fn tile_gid(&self, layer: usize, col: i32, row: i32) -> Result<u32, String> {
        each!(self, t => t.tile_gid(layer, col, row))
    }

    fn tile_layer_name(&self, layer: usize) -> Result<String, String> {
        each!(self, t => t.tile_layer_name(layer))
    }

    fn set_tile_gid(&mut self, layer: usize, col: i32, row: i32, gid: u32) -> Result<(), String> {
        each!(self, t => t.set_tile_gid(layer, col, row, gid))
    }

    fn set_polyline_point(&mut self, id: u32, k: usize, x: f64, y: f64) -> Result<(), String> {
        each!(self, t => t.set_polyline_point(id, k, x, y))
    }

    /// Adds a `Slope` object named `name` over the rectangle `[x, y, w, h]`
    /// (pixels) with the `left` and `right` heights given as text, to the
    /// object layer holding object `beside`.
    fn insert_slope(
        &mut self,
        beside: u32,
        name: &str,
        [x, y, w, h]: [i64; 4],
        (l, r): (&str, &str),
    ) -> Result<u32, String> {
        match self {
            Self::Tmx(t) => t.insert_object(beside, |id| {
                format!(
                    "<object id=\"{id}\" name=\"{name}\" type=\"Slope\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\"><properties><property name=\"left\" type=\"float\" value=\"{l}\"/><property name=\"right\" type=\"float\" value=\"{r}\"/></properties></object>"
                )
            }),
            // Keys in the order Tiled writes them (sorted).
            Self::Tmj(t) => t.insert_object(beside, |id| {
                format!(
                    "{{\"height\":{h},\"id\":{id},\"name\":\"{name}\",\"properties\":[{{\"name\":\"left\",\"type\":\"float\",\"value\":{l}}},{{\"name\":\"right\",\"type\":\"float\",\"value\":{r}}}],\"rotation\":0,\"type\":\"Slope\",\"visible\":true,\"width\":{w},\"x\":{x},\"y\":{y}}}"
                )
            }),
        }
    }
}

/// A level file open for editing.
#[derive(Clone, Debug)]
pub struct LevelDoc {
    path: PathBuf,
    /// The text as it is on disk (last opened or saved).
    saved: String,
    text: MapText,
    loaded: LoadedLevel,
    /// Texts before each undoable step, oldest first.
    undo: Vec<String>,
    /// Texts undone, most recently undone last.
    redo: Vec<String>,
    /// Inside a gesture: whether its step is already on the undo stack.
    gesture: Option<bool>,
}

impl LevelDoc {
    /// Opens a Tiled map (TMX, or TMJ/JSON) for editing.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, String> {
        let path = path.as_ref().to_path_buf();
        let bytes = crate::fsio::read_bounded(&path, super::limits::MAX_LEVEL_FILE_BYTES)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| format!("{}: cannot read: not UTF-8 text: {e}", path.display()))?;
        Self::from_text(path, text)
    }

    /// A document for `path` whose text on disk is `text`.
    pub fn from_text(path: PathBuf, text: String) -> Result<Self, String> {
        let loaded = load_with_text(&path, &text).map_err(|e| e.to_string())?;
        Ok(Self {
            saved: text.clone(),
            text: MapText::new(&path, text),
            path,
            loaded,
            undo: Vec::new(),
            redo: Vec::new(),
            gesture: None,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The current (edited) text.
    pub fn text(&self) -> &str {
        self.text.as_str()
    }

    /// The text last read from or written to disk.
    pub fn saved_text(&self) -> &str {
        &self.saved
    }

    /// Whether there are edits not yet saved.
    pub fn is_dirty(&self) -> bool {
        self.text.as_str() != self.saved
    }

    /// The loaded level with the edits.
    pub fn loaded(&self) -> &LoadedLevel {
        &self.loaded
    }

    /// The level with the edits.
    pub fn level(&self) -> &Level {
        &self.loaded.level
    }

    /// `check-level`'s findings on the edited level.
    pub fn check(&self) -> Vec<Diagnostic> {
        check_level(&self.loaded)
    }

    /// Writes the edited text to the file atomically.
    pub fn save(&mut self) -> Result<(), String> {
        crate::fsio::write_atomic(&self.path, self.text.as_str().as_bytes())
            .map_err(|e| format!("{}: cannot save: {e}", self.path.display()))?;
        self.saved = self.text.as_str().to_string();
        Ok(())
    }

    /// Starts a gesture (a drag): the edits until [`LevelDoc::end_gesture`]
    /// undo as one step.
    pub fn begin_gesture(&mut self) {
        self.gesture = Some(false);
    }

    /// Ends the gesture begun by [`LevelDoc::begin_gesture`].
    pub fn end_gesture(&mut self) {
        self.gesture = None;
    }

    /// Whether there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// Whether there is an undone edit to redo.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Undoes the last edit (or gesture). Returns whether there was one.
    /// The text before it is loaded again; should that fail (a tileset
    /// beside the map changed on disk since), nothing changes.
    pub fn undo(&mut self) -> Result<bool, String> {
        let Some(prev) = self.undo.last() else {
            return Ok(false);
        };
        let loaded = load_with_text(&self.path, prev).map_err(|e| e.to_string())?;
        let prev = self.undo.pop().unwrap_or_default();
        self.redo.push(
            {
                let new = self.text.with(prev);
                std::mem::replace(&mut self.text, new)
            }
            .as_str()
            .to_string(),
        );
        self.loaded = loaded;
        self.gesture = self.gesture.map(|_| false);
        Ok(true)
    }

    /// Redoes the last undone edit. Returns whether there was one.
    pub fn redo(&mut self) -> Result<bool, String> {
        let Some(next) = self.redo.last() else {
            return Ok(false);
        };
        let loaded = load_with_text(&self.path, next).map_err(|e| e.to_string())?;
        let next = self.redo.pop().unwrap_or_default();
        self.undo.push(
            {
                let new = self.text.with(next);
                std::mem::replace(&mut self.text, new)
            }
            .as_str()
            .to_string(),
        );
        self.loaded = loaded;
        self.gesture = self.gesture.map(|_| false);
        Ok(true)
    }

    /// Applies an edit of the text; keeps it only when the result loads.
    fn edit(
        &mut self,
        f: impl FnOnce(&mut MapText, &LoadedLevel) -> Result<(), String>,
    ) -> Result<(), String> {
        self.edit_checked(f, |_| Ok(()))
    }

    /// Applies an edit of the text; keeps it only when the result loads and
    /// `check` accepts the loaded level. A kept edit is an undo step (or
    /// part of the current gesture's) and clears what could be redone.
    fn edit_checked(
        &mut self,
        f: impl FnOnce(&mut MapText, &LoadedLevel) -> Result<(), String>,
        check: impl FnOnce(&LoadedLevel) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut text = self.text.clone();
        let file = self.path.display().to_string();
        f(&mut text, &self.loaded).map_err(|e| format!("{file}: {e}"))?;
        if text == self.text {
            return Ok(());
        }
        let loaded = load_with_text(&self.path, text.as_str()).map_err(|e| e.to_string())?;
        check(&loaded).map_err(|e| format!("{file}: {e}"))?;
        let old = std::mem::replace(&mut self.text, text);
        if self.gesture != Some(true) {
            self.undo.push(old.as_str().to_string());
            if self.undo.len() > MAX_UNDO {
                self.undo.remove(0);
            }
            if self.gesture.is_some() {
                self.gesture = Some(true);
            }
        }
        self.redo.clear();
        self.loaded = loaded;
        Ok(())
    }

    fn ladder_id(&self, i: usize) -> Result<u32, String> {
        self.loaded
            .ladder_ids
            .get(i)
            .copied()
            .ok_or_else(|| format!("{}: no ladder {i}", self.path.display()))
    }

    /// Moves ladder `i`'s top or bottom to height `y` (metres), keeping the
    /// other end. Refused when the ladder would be shorter than
    /// [`MIN_LADDER_HEIGHT`].
    pub fn set_ladder_end(&mut self, i: usize, end: LadderEnd, y: f32) -> Result<(), String> {
        let l = *self
            .level()
            .ladders
            .get(i)
            .ok_or_else(|| format!("{}: no ladder {i}", self.path.display()))?;
        match end {
            LadderEnd::Top => self.set_ladder_extent(i, l.bottom, y),
            LadderEnd::Bottom => self.set_ladder_extent(i, y, l.top),
        }
    }

    /// Sets ladder `i`'s foot and top heights (metres). Writes the
    /// rectangle's `y` when the top moved and its `height` when either did.
    pub fn set_ladder_extent(&mut self, i: usize, bottom: f32, top: f32) -> Result<(), String> {
        let id = self.ladder_id(i)?;
        if !(bottom.is_finite() && top.is_finite()) || top - bottom < MIN_LADDER_HEIGHT - 1e-4 {
            return Err(format!(
                "{}: object {id}: a ladder from {bottom} m to {top} m is shorter than {MIN_LADDER_HEIGHT} m",
                self.path.display()
            ));
        }
        let old = self.level().ladders[i];
        self.edit(|text, loaded| {
            let g = loaded.grid;
            let px = |v: f64| (v * PX_ROUNDING).round() / PX_ROUNDING;
            let raw = |name: &str| -> Result<Option<f64>, String> {
                Ok(text.object_attr(id, name)?.and_then(|v| v.parse().ok()))
            };
            let old_y = raw("y")?.unwrap_or_else(|| g.y_to_px(f64::from(old.top)));
            let old_h = raw("height")?.unwrap_or_else(|| g.y_to_px(f64::from(old.bottom)) - old_y);
            let top_moved = (top - old.top).abs() > 1e-6;
            let bottom_moved = (bottom - old.bottom).abs() > 1e-6;
            let new_y = if top_moved {
                px(g.y_to_px(f64::from(top)))
            } else {
                old_y
            };
            let new_bottom = if bottom_moved {
                px(g.y_to_px(f64::from(bottom)))
            } else {
                old_y + old_h
            };
            if top_moved {
                text.set_object_attr(id, "y", &fmt_num(new_y))?;
            }
            if top_moved || bottom_moved {
                text.set_object_attr(id, "height", &fmt_num(px(new_bottom - new_y)))?;
            }
            Ok(())
        })
    }

    /// Sets ladder `i`'s distance between rungs (metres).
    pub fn set_rung_spacing(&mut self, i: usize, spacing: f32) -> Result<(), String> {
        self.set_ladder_property(i, "rung_spacing", spacing)
    }

    /// Sets the height of ladder `i`'s first rung above its foot (metres).
    pub fn set_first_rung_offset(&mut self, i: usize, offset: f32) -> Result<(), String> {
        self.set_ladder_property(i, "first_rung_offset", offset)
    }

    fn set_ladder_property(&mut self, i: usize, name: &str, v: f32) -> Result<(), String> {
        let id = self.ladder_id(i)?;
        self.edit(|text, _| text.set_object_property(id, name, "float", &fmt_num(f64::from(v))))
    }

    /// The slope cell at tile `(col, row)`, when that cell is a slope with
    /// an open top.
    pub fn slope_cell(&self, col: i32, row: i32) -> Option<ColumnTop> {
        self.loaded
            .columns
            .iter()
            .find(|c| c.col == col && c.row == row && c.slope)
            .copied()
    }

    fn require_slope(&self, col: i32, row: i32) -> Result<ColumnTop, String> {
        self.slope_cell(col, row).ok_or_else(|| {
            format!(
                "{}: tile ({col},{row}) is not a slope with an open top",
                self.path.display()
            )
        })
    }

    /// Sets one edge's height of the slope cell at tile `(col, row)`, in
    /// tile heights (0–1); the other edge keeps the height it has.
    pub fn set_slope_height(
        &mut self,
        col: i32,
        row: i32,
        side: SlopeSide,
        h: f32,
    ) -> Result<(), String> {
        let c = self.require_slope(col, row)?;
        match side {
            SlopeSide::Left => self.set_slope_heights(col, row, h, c.right),
            SlopeSide::Right => self.set_slope_heights(col, row, c.left, h),
        }
    }

    /// Sets the left and right heights (tile heights, 0–1) of the slope cell
    /// at tile `(col, row)`, through the `Slope` object covering it (created
    /// when there is none).
    pub fn set_slope_heights(
        &mut self,
        col: i32,
        row: i32,
        left: f32,
        right: f32,
    ) -> Result<(), String> {
        let c = self.require_slope(col, row)?;
        for (k, v) in [("left", left), ("right", right)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!(
                    "{}: tile ({col},{}): slope {k} height {v} is outside 0..1 tile heights",
                    self.path.display(),
                    c.row
                ));
            }
        }
        // Values as the loader will read them back: f32 through six decimals.
        let (l, r) = (fmt_num(f64::from(left)), fmt_num(f64::from(right)));
        let spawn = self.loaded.spawn_id;
        self.edit(|text, loaded| {
            match c.override_id {
                Some(id) => {
                    if text.object_property(id, "angle")?.is_some() {
                        text.set_object_property(id, "angle", "float", "0")?;
                    }
                    text.set_object_property(id, "left", "float", &l)?;
                    text.set_object_property(id, "right", "float", &r)?;
                }
                None => {
                    let g = loaded.grid;
                    text.insert_slope(
                        spawn,
                        &format!("slope {col},{}", c.row),
                        [
                            i64::from(col) * i64::from(g.tile_width),
                            i64::from(c.row) * i64::from(g.tile_height),
                            i64::from(g.tile_width),
                            i64::from(g.tile_height),
                        ],
                        (&l, &r),
                    )?;
                }
            }
            Ok(())
        })
    }

    /// The one-way planks, in [`LoadedLevel::one_way`] order (row by row
    /// from the top, left to right).
    pub fn planks(&self) -> Vec<Plank> {
        let g = self.loaded.grid;
        self.loaded
            .one_way
            .iter()
            .map(|s| Plank {
                row: g.bottom_row + 1 - (s.y0 / TILE_METRES).round() as i32,
                col0: (s.x0 / TILE_METRES).round() as i32,
                col1: (s.x1 / TILE_METRES).round() as i32 - 1,
            })
            .collect()
    }

    /// Moves plank `i`'s left or right end to tile column `col` (the new
    /// first or last tile), keeping the other end: lengthening writes the
    /// end tile's gid into the empty cells of the layer holding it,
    /// shortening empties the `OneWay` tiles of the cells given up.
    /// Refused (nothing changes) when the plank would be shorter than one
    /// tile, leave the map, touch another plank of its row (they would
    /// become one), cover a cell its layer already uses, or when the layer
    /// is not stored as CSV.
    pub fn set_plank_end(&mut self, i: usize, end: PlankEnd, col: i32) -> Result<(), String> {
        let file = self.path.display().to_string();
        let planks = self.planks();
        let p = *planks
            .get(i)
            .ok_or_else(|| format!("{file}: no one-way plank {i}"))?;
        let (c0, c1) = match end {
            PlankEnd::Left => (col, p.col1),
            PlankEnd::Right => (p.col0, col),
        };
        let row = p.row;
        if c1 < c0 {
            return Err(format!(
                "{file}: a plank is at least one tile long (row {row}, columns {c0} to {c1})"
            ));
        }
        if (c0, c1) == (p.col0, p.col1) {
            return Ok(());
        }
        if let Some(o) = planks
            .iter()
            .enumerate()
            .find(|&(j, o)| j != i && o.row == row && o.col0 <= c1 + 1 && o.col1 >= c0 - 1)
            .map(|(_, o)| o)
        {
            return Err(format!(
                "{file}: row {row}: a plank over columns {c0}–{c1} would join the plank over columns {}–{}",
                o.col0, o.col1
            ));
        }
        let layers_at = |c: i32| -> Vec<usize> {
            self.loaded
                .one_way_tiles
                .iter()
                .filter(|t| t.col == c && t.row == row)
                .map(|t| t.layer)
                .collect()
        };
        // The tile the plank grows from: its current end on the moved side.
        let from = if end == PlankEnd::Left {
            p.col0
        } else {
            p.col1
        };
        let source = layers_at(from).first().copied().ok_or_else(|| {
            format!("{file}: tile ({from},{row}) of plank {i} is in no tile layer")
        })?;
        let grow: Vec<i32> = (c0..=c1)
            .filter(|c| !(p.col0..=p.col1).contains(c))
            .collect();
        let shrink: Vec<(i32, Vec<usize>)> = (p.col0..=p.col1)
            .filter(|c| !(c0..=c1).contains(c))
            .map(|c| (c, layers_at(c)))
            .collect();
        let want = (c0 as f32, (c1 + 1) as f32);
        self.edit_checked(
            |text, _| {
                let gid = text.tile_gid(source, from, row)?;
                for &c in &grow {
                    let there = text.tile_gid(source, c, row)?;
                    if there != 0 {
                        return Err(format!(
                            "layer '{}' tile ({c},{row}) already holds tile {there}: a plank grows only into empty cells",
                            text.tile_layer_name(source)?
                        ));
                    }
                    text.set_tile_gid(source, c, row, gid)?;
                }
                for (c, layers) in &shrink {
                    for &l in layers {
                        text.set_tile_gid(l, *c, row, 0)?;
                    }
                }
                Ok(())
            },
            |loaded| {
                let y = loaded.grid.row_bottom(row) + TILE_METRES;
                let (x0, x1) = (want.0 * TILE_METRES, want.1 * TILE_METRES);
                let ok = loaded.one_way.iter().any(|s| {
                    (s.y0 - y).abs() < GRID_EPSILON
                        && (s.x0 - x0).abs() < GRID_EPSILON
                        && (s.x1 - x1).abs() < GRID_EPSILON
                });
                if ok {
                    Ok(())
                } else {
                    Err(format!(
                        "the edit did not give a plank over columns {c0}–{c1} of row {row}"
                    ))
                }
            },
        )
    }

    /// The Tiled object id of moving platform `i`.
    fn platform_id(&self, i: usize) -> Result<u32, String> {
        self.loaded
            .platform_ids
            .get(i)
            .copied()
            .ok_or_else(|| format!("{}: no moving platform {i}", self.path.display()))
    }

    /// Moves point `k` of moving platform `i`'s path to `p` (metres, the
    /// platform's top centre there), written relative to the object's
    /// position in pixels. The loader's checks apply (a path with no length
    /// is refused).
    pub fn set_platform_point(&mut self, i: usize, k: usize, p: glam::Vec2) -> Result<(), String> {
        let id = self.platform_id(i)?;
        if !p.is_finite() {
            return Err(format!(
                "{}: object {id}: path point {k} at {p} is not a finite position",
                self.path.display()
            ));
        }
        self.edit(|text, loaded| {
            let g = loaded.grid;
            let px = |v: f64| (v * PX_ROUNDING).round() / PX_ROUNDING;
            let origin = |name: &str| -> Result<f64, String> {
                Ok(text
                    .object_attr(id, name)?
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0.0))
            };
            let (ox, oy) = (origin("x")?, origin("y")?);
            let x = f64::from(p.x) / g.metres_per_px_x() - ox;
            let y = g.y_to_px(f64::from(p.y)) - oy;
            text.set_polyline_point(id, k, px(x), px(y))
        })
    }

    /// The surface point of a slope cell's edge, metres.
    pub fn slope_point(&self, c: &ColumnTop, side: SlopeSide) -> glam::Vec2 {
        let base = self.loaded.grid.row_bottom(c.row);
        let x0 = c.col as f32 * TILE_METRES;
        match side {
            SlopeSide::Left => glam::Vec2::new(x0, base + c.left * TILE_METRES),
            SlopeSide::Right => glam::Vec2::new(x0 + TILE_METRES, base + c.right * TILE_METRES),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testmaps::{map, point};
    use super::*;

    /// A copy of a shipped level in a fresh temp folder, removed on drop.
    struct Copy {
        dir: PathBuf,
        path: PathBuf,
    }

    impl Copy {
        fn of(name: &str, tag: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("ironstep-edit-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/levels");
            let path = dir.join(name);
            std::fs::copy(src.join(name), &path).unwrap();
            Self { dir, path }
        }
    }

    impl Drop for Copy {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    #[test]
    fn moving_a_ladder_top_writes_y_and_height_and_the_foot_stays() {
        let c = Copy::of("tutorial.tmx", "top");
        let mut d = LevelDoc::open(&c.path).unwrap();
        let before = d.level().ladders[0];
        d.set_ladder_end(0, LadderEnd::Top, before.top + 0.25)
            .unwrap();
        let after = d.level().ladders[0];
        assert!((after.top - before.top - 0.25).abs() < 1e-5);
        assert_eq!(after.bottom, before.bottom);
        assert!(d.is_dirty());
        let changed: Vec<(&str, &str)> = d
            .saved_text()
            .lines()
            .zip(d.text().lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(
            changed,
            vec![(
                "  <object id=\"2\" name=\"ladder 2\" type=\"Ladder\" x=\"2521.6\" y=\"224\" width=\"32\" height=\"160\">",
                "  <object id=\"2\" name=\"ladder 2\" type=\"Ladder\" x=\"2521.6\" y=\"208\" width=\"32\" height=\"176\">"
            )]
        );
        // Moving the foot changes only the height.
        d.set_ladder_end(0, LadderEnd::Bottom, before.bottom + 0.5)
            .unwrap();
        assert!(d.text().contains("y=\"208\" width=\"32\" height=\"144\""));
    }

    #[test]
    fn a_too_short_ladder_or_a_bad_value_is_refused_and_nothing_changes() {
        let c = Copy::of("tutorial.tmx", "refuse");
        let mut d = LevelDoc::open(&c.path).unwrap();
        let l = d.level().ladders[0];
        let e = d
            .set_ladder_end(0, LadderEnd::Top, l.bottom + 0.1)
            .unwrap_err();
        assert!(e.contains("tutorial.tmx") && e.contains("shorter"), "{e}");
        let e = d.set_rung_spacing(0, -0.3).unwrap_err();
        assert!(e.contains("object 2") && e.contains("rung_spacing"), "{e}");
        let e = d.set_slope_heights(0, 0, 0.0, 1.0).unwrap_err();
        assert!(e.contains("tile (0,0) is not a slope"), "{e}");
        assert!(!d.is_dirty(), "refused edits leave the text alone");
        assert!(d.set_ladder_end(9, LadderEnd::Top, 1.0).is_err());
    }

    #[test]
    fn a_slope_edit_adds_one_override_object_then_updates_it() {
        let c = Copy::of("tutorial.tmx", "slope");
        let mut d = LevelDoc::open(&c.path).unwrap();
        // An `angle` (15°) slope cell: converted to explicit heights.
        let cell = *d
            .loaded()
            .columns
            .iter()
            .find(|c| c.slope && c.override_id.is_none())
            .unwrap();
        d.set_slope_height(cell.col, cell.row, SlopeSide::Right, 0.75)
            .unwrap();
        let now = d.slope_cell(cell.col, cell.row).unwrap();
        assert!(now.override_id.is_some());
        assert!((now.left - cell.left).abs() < 1e-5 && now.right == 0.75);
        let x1 = (cell.col + 1) as f32 * TILE_METRES - 1e-4;
        let base = d.loaded().grid.row_bottom(cell.row);
        let h = d.level().ground_height(x1).unwrap();
        assert!((h - (base + 0.75 * TILE_METRES)).abs() < 1e-3, "{h}");
        // The tutorial's objects end at id 8; the new one is 9.
        assert!(d.text().contains("nextobjectid=\"10\""));
        let len = d.text().len();
        d.set_slope_height(cell.col, cell.row, SlopeSide::Left, 0.5)
            .unwrap();
        assert_eq!(d.slope_cell(cell.col, cell.row).unwrap().left, 0.5);
        assert!(
            d.text().len() <= len + 2,
            "updated in place, not added again"
        );
        assert!(d.check().iter().all(|x| !x.message.contains("unknown")));
    }

    #[test]
    fn save_writes_the_edited_text_and_it_reloads_with_the_new_values() {
        let c = Copy::of("tutorial.tmx", "save");
        let mut d = LevelDoc::open(&c.path).unwrap();
        d.set_rung_spacing(1, 0.3).unwrap();
        d.set_first_rung_offset(1, 0.2).unwrap();
        d.save().unwrap();
        assert!(!d.is_dirty());
        let back = super::super::load(&c.path).unwrap();
        assert_eq!(back.level.ladders[1].rung_spacing, 0.3);
        assert_eq!(back.level.ladders[1].first_rung_offset, 0.2);
        assert_eq!(std::fs::read_to_string(&c.path).unwrap(), d.text());
    }

    /// A made map: ground (layer 0), a 2-tile floating block with a slope
    /// on it over a slope on the ground (column 7), and in layer 1 a plank
    /// over columns 2–4 of row 1, a decoration tile at (6,1) and a second
    /// plank over columns 8–9; a three-point and a two-point moving
    /// platform (objects 3 and 4).
    fn stacked_text() -> String {
        let ground: &[&str] = &[
            "..........",
            "..........",
            "......./..",
            ".......#..",
            "..........",
            "......./..",
            "##########",
        ];
        let planks: &[&str] = &[
            "..........",
            "..---.d.--",
            "..........",
            "..........",
            "..........",
            "..........",
            "..........",
        ];
        let objs = point(1, "Spawn", 0.0, 6)
            + &point(2, "Exit", 9.0, 6)
            + "<object id=\"3\" type=\"MovingPlatform\" x=\"32\" y=\"160\"><polyline points=\"0,0 96,0 96,-64\"/></object>"
            + "<object id=\"4\" type=\"MovingPlatform\" x=\"256\" y=\"96\"><polyline points=\"0,0 0,32\"/></object>";
        map(&[ground, planks], &objs)
    }

    fn stacked() -> LevelDoc {
        let path = std::env::temp_dir().join("ironstep-edit-stacked.tmx");
        LevelDoc::from_text(path, stacked_text()).unwrap()
    }

    /// The lines of `a` and `b` that differ.
    fn changed<'a>(a: &'a str, b: &'a str) -> Vec<(&'a str, &'a str)> {
        a.lines().zip(b.lines()).filter(|(x, y)| x != y).collect()
    }

    /// Standard base64 with padding (the test's own, for a base64 layer).
    fn base64(bytes: &[u8]) -> String {
        const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for k in 0..4 {
                if k <= chunk.len() {
                    out.push(ABC[(n >> (18 - 6 * k)) as usize & 63] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[test]
    fn slope_cells_are_keyed_by_column_and_row() {
        let mut d = stacked();
        let slopes: Vec<(i32, i32)> = d
            .loaded()
            .columns
            .iter()
            .filter(|c| c.slope)
            .map(|c| (c.col, c.row))
            .collect();
        assert_eq!(slopes, vec![(7, 2), (7, 5)], "two slopes in column 7");
        // The ground slope (row 5, 0.5–1.0 m) and the one on the block
        // (row 2, 2.0–2.5 m) are edited apart.
        d.set_slope_height(7, 5, SlopeSide::Right, 0.5).unwrap();
        let lv = d.level();
        let low = lv.floor_below(3.9999, 1.4, 2.0).unwrap().y;
        let high = lv.floor_below(3.9999, 3.0, 1.0).unwrap().y;
        assert!(
            (low - 0.75).abs() < 1e-3 && (high - 2.5).abs() < 1e-3,
            "{low} {high}"
        );
        assert!(
            d.text()
                .contains("name=\"slope 7,5\" type=\"Slope\" x=\"224\" y=\"160\""),
            "{}",
            d.text()
        );
        d.set_slope_heights(7, 2, 0.25, 0.25).unwrap();
        let high = d.level().floor_below(3.6, 3.0, 1.0).unwrap().y;
        assert!((high - 2.125).abs() < 1e-3, "{high}");
        assert_eq!(
            d.slope_cell(7, 5).unwrap().right,
            0.5,
            "the ground slope kept"
        );
        assert!(
            d.text()
                .contains("name=\"slope 7,2\" type=\"Slope\" x=\"224\" y=\"64\"")
        );
        // The block's solid cell under the slope has no open top.
        let before = d.text().to_string();
        let e = d.set_slope_height(7, 3, SlopeSide::Left, 0.5).unwrap_err();
        assert!(e.contains("tile (7,3) is not a slope"), "{e}");
        assert_eq!(d.text(), before);
    }

    #[test]
    fn dragging_a_plank_end_writes_whole_tiles_into_its_csv_layer() {
        let mut d = stacked();
        let planks = d.planks();
        assert_eq!(
            planks[0],
            Plank {
                row: 1,
                col0: 2,
                col1: 4
            }
        );
        assert_eq!(
            planks[1],
            Plank {
                row: 1,
                col0: 8,
                col1: 9
            }
        );
        assert!(d.loaded().one_way_tiles.iter().all(|t| t.layer == 1));
        d.set_plank_end(0, PlankEnd::Right, 5).unwrap();
        // Only layer 1's row 1 changed: column 5 got the plank's gid (2).
        assert_eq!(
            changed(d.saved_text(), d.text()),
            vec![("0,0,2,2,2,0,7,0,2,2,", "0,0,2,2,2,2,7,0,2,2,")]
        );
        let p = d.loaded().one_way[0];
        assert_eq!((p.x0, p.x1, p.y0), (1.0, 3.0, 3.0));
        // Shortening from the left empties the cells given up.
        d.set_plank_end(0, PlankEnd::Left, 4).unwrap();
        assert_eq!(
            changed(d.saved_text(), d.text()),
            vec![("0,0,2,2,2,0,7,0,2,2,", "0,0,0,0,2,2,7,0,2,2,")]
        );
        assert_eq!(
            d.planks()[0],
            Plank {
                row: 1,
                col0: 4,
                col1: 5
            }
        );
        // The reloaded level equals one made from the edited grid.
        let want = stacked_text().replace("0,0,2,2,2,0,7,0,2,2,", "0,0,0,0,2,2,7,0,2,2,");
        let want = super::super::from_tmx_str(&want, "want.tmx").unwrap();
        assert_eq!(d.level().segments, want.level.segments);
        assert_eq!(d.loaded().one_way, want.one_way);
        // Lengthening to the left copies the end tile again.
        d.set_plank_end(0, PlankEnd::Left, 2).unwrap();
        assert!(d.text().contains("0,0,2,2,2,2,7,0,2,2,"));
    }

    #[test]
    fn plank_edits_that_cannot_be_made_are_refused_and_nothing_changes() {
        let mut d = stacked();
        let text = d.text().to_string();
        let refuse = |d: &mut LevelDoc, end: PlankEnd, col: i32, want: &str| {
            let e = d.set_plank_end(0, end, col).unwrap_err();
            assert!(
                e.contains("ironstep-edit-stacked.tmx") && e.contains(want),
                "{e}"
            );
        };
        refuse(&mut d, PlankEnd::Right, 1, "at least one tile");
        refuse(
            &mut d,
            PlankEnd::Right,
            6,
            "'L1' tile (6,1) already holds tile 7",
        );
        refuse(
            &mut d,
            PlankEnd::Left,
            -1,
            "tile (-1,1) is outside layer 'L1' (10×7 tiles)",
        );
        // Plank 1 cannot grow left until it touches plank 0.
        let e = d.set_plank_end(1, PlankEnd::Left, 5).unwrap_err();
        assert!(e.contains("would join the plank over columns 2–4"), "{e}");
        assert!(
            d.set_plank_end(5, PlankEnd::Left, 5)
                .unwrap_err()
                .contains("no one-way plank 5")
        );
        // The plank layer stored as base64 instead of CSV: refused with the
        // reason, the text untouched.
        let full = stacked_text();
        let csv = full
            .split("<data encoding=\"csv\">")
            .nth(2)
            .and_then(|t| t.split("</data>").next())
            .unwrap();
        let bytes: Vec<u8> = csv
            .split(',')
            .flat_map(|g| g.trim().parse::<u32>().unwrap().to_le_bytes())
            .collect();
        let xml = full.replacen(
            &format!("<data encoding=\"csv\">{csv}</data>"),
            &format!("<data encoding=\"base64\">{}</data>", base64(&bytes)),
            1,
        );
        let mut x = LevelDoc::from_text(d.path().to_path_buf(), xml.clone()).unwrap();
        assert_eq!(x.planks(), d.planks(), "the base64 layer loads the same");
        let e = x.set_plank_end(0, PlankEnd::Right, 5).unwrap_err();
        assert!(
            e.contains("layer 'L1' stores its tiles as base64") && e.contains("CSV"),
            "{e}"
        );
        assert_eq!(x.text(), xml);
        assert_eq!(d.text(), text);
        assert!(!d.is_dirty() && !d.can_undo());
    }

    #[test]
    fn a_path_point_moves_in_pixels_relative_to_its_object() {
        let mut d = stacked();
        let path = d.level().platforms[0].path.clone();
        assert_eq!(
            path,
            vec![
                glam::Vec2::new(0.5, 1.0),
                glam::Vec2::new(2.0, 1.0),
                glam::Vec2::new(2.0, 2.0)
            ]
        );
        d.set_platform_point(0, 2, glam::Vec2::new(2.5, 2.25))
            .unwrap();
        // Object 3 sits at (32, 160) px: the point (2.5 m, 2.25 m) is at
        // (160, 80) px in the map, (128, -80) from the object.
        let diff = changed(d.saved_text(), d.text());
        assert_eq!(diff.len(), 1);
        assert_eq!(
            diff[0].1,
            diff[0]
                .0
                .replace("points=\"0,0 96,0 96,-64\"", "points=\"0,0 96,0 128,-80\"")
        );
        assert!(d.text().contains("<polyline points=\"0,0 96,0 128,-80\"/>"));
        assert_eq!(d.text().len(), d.saved_text().len() + 1);
        assert_eq!(d.level().platforms[0].path[2], glam::Vec2::new(2.5, 2.25));
        assert_eq!(d.level().platforms[0].path[..2], path[..2]);
    }

    #[test]
    fn path_point_edits_that_cannot_be_made_are_refused_and_nothing_changes() {
        let mut d = stacked();
        let text = d.text().to_string();
        // Platform 1's two points on top of each other: a path with no length.
        let p0 = d.level().platforms[1].path[0];
        let e = d.set_platform_point(1, 1, p0).unwrap_err();
        assert!(e.contains("object 4") && e.contains("no length"), "{e}");
        let e = d.set_platform_point(0, 3, p0).unwrap_err();
        assert!(e.contains("there is no point 3"), "{e}");
        let e = d.set_platform_point(2, 0, p0).unwrap_err();
        assert!(e.contains("no moving platform 2"), "{e}");
        let e = d
            .set_platform_point(0, 0, glam::Vec2::new(f32::NAN, 0.0))
            .unwrap_err();
        assert!(e.contains("not a finite position"), "{e}");
        assert_eq!(d.text(), text);
        assert!(!d.can_undo());
    }

    #[test]
    fn undo_and_redo_step_through_edits_and_a_drag_is_one_step() {
        let mut d = stacked();
        assert!(!d.undo().unwrap(), "nothing to undo");
        d.begin_gesture();
        d.set_plank_end(0, PlankEnd::Right, 5).unwrap();
        assert!(d.set_plank_end(0, PlankEnd::Right, 6).is_err());
        d.set_platform_point(0, 1, glam::Vec2::new(2.25, 1.0))
            .unwrap();
        d.end_gesture();
        let after_drag = d.text().to_string();
        d.set_slope_height(7, 5, SlopeSide::Left, 0.5).unwrap();
        assert!(d.undo().unwrap());
        assert_eq!(d.text(), after_drag);
        assert!(d.slope_cell(7, 5).unwrap().left == 0.0);
        assert!(d.undo().unwrap(), "the whole drag at once");
        assert_eq!(d.text(), d.saved_text());
        assert!(!d.is_dirty() && !d.can_undo() && d.can_redo());
        assert_eq!(d.planks()[0].col1, 4);
        assert!(d.redo().unwrap());
        assert_eq!(d.text(), after_drag);
        assert_eq!(d.planks()[0].col1, 5);
        assert_eq!(d.level().platforms[0].path[1], glam::Vec2::new(2.25, 1.0));
        // A new edit forgets what could be redone.
        d.set_plank_end(0, PlankEnd::Right, 4).unwrap();
        assert!(!d.can_redo() && !d.redo().unwrap());
        // Undo never reaches past MAX_UNDO steps.
        for k in 0..MAX_UNDO + 5 {
            d.set_slope_height(7, 5, SlopeSide::Left, (k % 2) as f32 * 0.5)
                .unwrap();
        }
        let mut n = 0;
        while d.undo().unwrap() {
            n += 1;
        }
        assert_eq!(n, MAX_UNDO);
    }
}
