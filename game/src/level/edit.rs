//! The designer's model of a level file: the TMX text being edited, the level
//! the game plays made from it by the real loader, and the edits designer
//! mode offers (ladder ends and rungs, slope heights), each applied to the
//! text and reloaded at once, so what the knight stands on is exactly what
//! Ctrl+S will write.
//!
//! Edits are transactions: the edited text must load, or the edit is refused
//! with the loader's reason and nothing changes. Saving writes the text
//! atomically ([`crate::fsio::write_atomic`]). Only the values an edit
//! changed differ from the file on disk (see [`super::tmx_text`]).
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
//!   edit, updated after).

use std::path::{Path, PathBuf};

use super::check::check_level;
use super::tmx_text::{TmxText, fmt_num};
use super::{ColumnTop, Diagnostic, LoadedLevel, TILE_METRES, load_with_text};
use crate::sim::world::Level;

/// Shortest ladder designer mode makes, metres: one rung at the shortest
/// climbable spacing; below it a ladder has nothing to climb.
pub const MIN_LADDER_HEIGHT: f32 = 0.25;
/// Pixel values are written rounded to this many per pixel: far below what
/// anyone sees, and it keeps f32 noise (`383.99997`) out of the file.
const PX_ROUNDING: f64 = 1000.0;

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

/// A level file open for editing.
#[derive(Clone, Debug)]
pub struct LevelDoc {
    path: PathBuf,
    /// The text as it is on disk (last opened or saved).
    saved: String,
    text: TmxText,
    loaded: LoadedLevel,
}

impl LevelDoc {
    /// Opens a TMX file for editing.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, String> {
        let path = path.as_ref().to_path_buf();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Self::from_text(path, text)
    }

    /// A document for `path` whose text on disk is `text`.
    pub fn from_text(path: PathBuf, text: String) -> Result<Self, String> {
        let loaded = load_with_text(&path, &text).map_err(|e| e.to_string())?;
        Ok(Self {
            path,
            saved: text.clone(),
            text: TmxText::new(text),
            loaded,
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

    /// Applies an edit of the text; keeps it only when the result loads.
    fn edit(
        &mut self,
        f: impl FnOnce(&mut TmxText, &LoadedLevel) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut text = self.text.clone();
        let file = self.path.display().to_string();
        f(&mut text, &self.loaded).map_err(|e| format!("{file}: {e}"))?;
        let loaded = load_with_text(&self.path, text.as_str()).map_err(|e| e.to_string())?;
        self.text = text;
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

    /// The top cell of column `col` when it is a slope.
    pub fn slope_cell(&self, col: i32) -> Option<ColumnTop> {
        self.loaded
            .columns
            .iter()
            .find(|c| c.col == col && c.slope)
            .copied()
    }

    /// Sets one edge's height of the slope cell on top of column `col`, in
    /// tile heights (0–1); the other edge keeps the height it has.
    pub fn set_slope_height(&mut self, col: i32, side: SlopeSide, h: f32) -> Result<(), String> {
        let c = self
            .slope_cell(col)
            .ok_or_else(|| format!("{}: column {col} has no slope on top", self.path.display()))?;
        match side {
            SlopeSide::Left => self.set_slope_heights(col, h, c.right),
            SlopeSide::Right => self.set_slope_heights(col, c.left, h),
        }
    }

    /// Sets the left and right heights (tile heights, 0–1) of the slope cell
    /// on top of column `col`, through the `Slope` object covering it
    /// (created when there is none).
    pub fn set_slope_heights(&mut self, col: i32, left: f32, right: f32) -> Result<(), String> {
        let c = self
            .slope_cell(col)
            .ok_or_else(|| format!("{}: column {col} has no slope on top", self.path.display()))?;
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
                    text.insert_object(spawn, |id| {
                        format!(
                            "<object id=\"{id}\" name=\"slope {col},{row}\" type=\"Slope\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\"><properties><property name=\"left\" type=\"float\" value=\"{l}\"/><property name=\"right\" type=\"float\" value=\"{r}\"/></properties></object>",
                            row = c.row,
                            x = i64::from(col) * i64::from(g.tile_width),
                            y = i64::from(c.row) * i64::from(g.tile_height),
                            w = g.tile_width,
                            h = g.tile_height,
                        )
                    })?;
                }
            }
            Ok(())
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
        let e = d.set_slope_heights(0, 0.0, 1.0).unwrap_err();
        assert!(e.contains("column 0 has no slope"), "{e}");
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
        d.set_slope_height(cell.col, SlopeSide::Right, 0.75)
            .unwrap();
        let now = d.slope_cell(cell.col).unwrap();
        assert!(now.override_id.is_some());
        assert!((now.left - cell.left).abs() < 1e-5 && now.right == 0.75);
        let x1 = (cell.col + 1) as f32 * TILE_METRES - 1e-4;
        let base = d.loaded().grid.row_bottom(cell.row);
        let h = d.level().ground_height(x1).unwrap();
        assert!((h - (base + 0.75 * TILE_METRES)).abs() < 1e-3, "{h}");
        assert!(d.text().contains("nextobjectid=\"8\""));
        let len = d.text().len();
        d.set_slope_height(cell.col, SlopeSide::Left, 0.5).unwrap();
        assert_eq!(d.slope_cell(cell.col).unwrap().left, 0.5);
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
}
