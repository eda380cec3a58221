//! The running game's level tooling: hot reload of the played TMX file and
//! designer mode (F2, or `ironstep play --edit`).
//!
//! Hot reload: a [`LevelWatcher`] watches the level's folder; a save
//! reloads the level (the player kept where he was, moved by [`relocate`]
//! when the edit buried him or took his ground away), and the world mesh is
//! rebuilt. A broken save shows its error (file and reason) on screen and
//! the last good level stays; fixing the file clears it. The embedded
//! `builtin` level has no file, so nothing is watched or saved for it.
//!
//! Designer mode pauses the simulation (the pose pipeline with it: each
//! edit re-poses the knight afresh on the edited level, so his feet and
//! hands follow it at once, and nothing runs on frames without one, see
//! [`crate::window::frame_sim`]; "run the simulation" in the panel or P
//! lets him walk while editing), frees the camera (arrow
//! keys pan while paused), shows handles on ladder ends, on the edges of
//! every slope cell with an open top (several per column where floors
//! stack), on one-way planks' ends and on moving platforms' path points,
//! and an egui panel with the selected item's values and `check-level`'s
//! findings. Left-drag a handle: the cursor's ray onto the z = 0 play plane
//! gives the new place (ladder ends snap to [`LADDER_SNAP`], slope edges to
//! [`SLOPE_SNAP`] of a tile, plank ends to whole tiles, path points to
//! [`PATH_SNAP`]); each step of a drag is reloaded through the real loader,
//! so the knight and his IK follow live. Ctrl+Z undoes a whole drag (or a
//! panel edit), Ctrl+Shift+Z or Ctrl+Y redoes it. Ctrl+S saves through
//! [`LevelDoc::save`] (atomic; only the edited values change in the file).

use glam::{Vec2, Vec3};
use renderer::{Camera, Renderer};
use winit::event::{ElementState, MouseButton, WindowEvent};
use winit::keyboard::{KeyCode, ModifiersState, PhysicalKey};
use winit::window::Window;

use crate::level::edit::{LadderEnd, LevelDoc, PlankEnd, SlopeSide};
use crate::level::shipped::LevelSource;
use crate::level::watch::{LevelWatcher, Reload, relocate};
use crate::level::{Diagnostic, Severity, TILE_METRES};
use crate::scene::{CAMERA_DISTANCE, SceneHandles, world_mesh};
use crate::sim::player::{DT, Locomotion, MAX_SNAP_DOWN, MAX_STEP_UP};
use crate::sim::world::Level;
use crate::sim::{PrevPos, Sim};
use crate::tools::ik_lab::{cursor_ray, ray_plane_z, world_to_screen};
use crate::window::ui::EguiLayer;

/// Ladder ends snap to this height step when dragged, metres: an eighth of a
/// tile, fine enough to place a top at any half-step floor.
pub const LADDER_SNAP: f32 = TILE_METRES / 8.0;
/// Slope edges snap to this fraction of a tile height when dragged (one
/// pixel of our 32 px tiles).
pub const SLOPE_SNAP: f32 = 1.0 / 32.0;
/// Moving platforms' path points snap to this grid when dragged, metres: a
/// quarter tile (8 px of our 32 px tiles), fine enough to line a platform's
/// top up with any half-step floor.
pub const PATH_SNAP: f32 = TILE_METRES / 4.0;
/// How close the cursor must be to a handle to pick it, pixels.
pub const PICK_RADIUS_PX: f32 = 14.0;
/// Camera pan speed in designer mode, metres per second.
const PAN_SPEED: f32 = 6.0;
/// Width of the designer panel, points.
const PANEL_WIDTH: f32 = 300.0;
/// Handle colour of one-way planks' ends.
const PLANK_COLOUR: egui::Color32 = egui::Color32::from_rgb(120, 230, 80);
/// Handle and path colour of moving platforms.
const PLATFORM_COLOUR: egui::Color32 = egui::Color32::from_rgb(235, 90, 235);

/// Something designer mode can select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// A ladder, by index in [`Level::ladders`].
    Ladder(usize),
    /// The slope cell at tile (column, row).
    Slope(i32, i32),
    /// A one-way plank, by index in [`LevelDoc::planks`].
    Plank(usize),
    /// A moving platform, by index in [`Level::platforms`].
    Platform(usize),
}

/// A draggable point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Handle {
    /// A ladder's top or bottom.
    Ladder(usize, LadderEnd),
    /// The left or right edge of the slope cell at tile (column, row).
    Slope(i32, i32, SlopeSide),
    /// A one-way plank's left or right end.
    Plank(usize, PlankEnd),
    /// Point `k` of moving platform `i`'s path: `Platform(i, k)`.
    Platform(usize, usize),
}

impl Handle {
    fn item(self) -> Item {
        match self {
            Handle::Ladder(i, _) => Item::Ladder(i),
            Handle::Slope(c, r, _) => Item::Slope(c, r),
            Handle::Plank(i, _) => Item::Plank(i),
            Handle::Platform(i, _) => Item::Platform(i),
        }
    }

    /// How the handle is named in the game's output (`designer: handle
    /// LABEL at ...`) and in the panel.
    pub fn label(self) -> String {
        match self {
            Handle::Ladder(i, LadderEnd::Top) => format!("ladder {i} top"),
            Handle::Ladder(i, LadderEnd::Bottom) => format!("ladder {i} bottom"),
            Handle::Slope(c, r, SlopeSide::Left) => format!("slope {c},{r} left"),
            Handle::Slope(c, r, SlopeSide::Right) => format!("slope {c},{r} right"),
            Handle::Plank(i, PlankEnd::Left) => format!("plank {i} left"),
            Handle::Plank(i, PlankEnd::Right) => format!("plank {i} right"),
            Handle::Platform(i, k) => format!("platform {i} point {k}"),
        }
    }
}

/// The colour grabbable corners are marked in.
const LEDGE_COLOUR: egui::Color32 = egui::Color32::from_rgb(255, 70, 70);
/// How long each arm of a ledge's mark is, metres.
const LEDGE_MARK: f32 = 0.3;

/// Every ledge of the level (static corners and moving platforms' edges
/// where they are now, see `sim::ledge`) as the three points of its mark:
/// the corner, a point along the top inward and a point down the face.
pub fn ledge_marks(level: &Level) -> impl Iterator<Item = [Vec2; 3]> + '_ {
    let platforms = level.platforms.iter().enumerate().flat_map(move |(i, p)| {
        let s = p.solid();
        [
            (Vec2::new(s.x0, s.top0), -1.0),
            (Vec2::new(s.x1, s.top1), 1.0),
        ]
        .into_iter()
        .filter(move |&(c, side)| level.is_ledge(c, side, Some(i as u16)))
    });
    level
        .static_ledges()
        .map(|l| (l.corner, l.side))
        .chain(platforms)
        .map(|(c, side)| {
            [
                c,
                c - Vec2::new(side * LEDGE_MARK, 0.0),
                c - Vec2::new(0.0, LEDGE_MARK),
            ]
        })
}

/// Every handle of a document and its world position (z = 0).
pub fn handles(doc: &LevelDoc) -> Vec<(Handle, Vec2)> {
    let mut out = Vec::new();
    for (i, l) in doc.level().ladders.iter().enumerate() {
        out.push((Handle::Ladder(i, LadderEnd::Top), Vec2::new(l.x, l.top)));
        out.push((
            Handle::Ladder(i, LadderEnd::Bottom),
            Vec2::new(l.x, l.bottom),
        ));
    }
    for c in doc.loaded().columns.iter().filter(|c| c.slope) {
        for side in [SlopeSide::Left, SlopeSide::Right] {
            out.push((Handle::Slope(c.col, c.row, side), doc.slope_point(c, side)));
        }
    }
    for (i, s) in doc.loaded().one_way.iter().enumerate() {
        out.push((Handle::Plank(i, PlankEnd::Left), Vec2::new(s.x0, s.y0)));
        out.push((Handle::Plank(i, PlankEnd::Right), Vec2::new(s.x1, s.y1)));
    }
    for (i, p) in doc.level().platforms.iter().enumerate() {
        for (k, &q) in p.path.iter().enumerate() {
            out.push((Handle::Platform(i, k), q));
        }
    }
    out
}

/// Applies a drag of `handle` to the world point `at` on the play plane
/// (snapped; ladder ends and slope edges use only its height), returning
/// whether the document changed.
pub fn drag_handle(doc: &mut LevelDoc, handle: Handle, at: Vec2) -> Result<bool, String> {
    let y = at.y;
    match handle {
        Handle::Ladder(i, end) => {
            let Some(l) = doc.level().ladders.get(i).copied() else {
                return Ok(false);
            };
            let mut y = (y / LADDER_SNAP).round() * LADDER_SNAP;
            // Keep the ladder at least its minimum height instead of refusing.
            let min = crate::level::edit::MIN_LADDER_HEIGHT;
            y = match end {
                LadderEnd::Top => y.max(l.bottom + min),
                LadderEnd::Bottom => y.min(l.top - min),
            };
            let old = if end == LadderEnd::Top {
                l.top
            } else {
                l.bottom
            };
            if (y - old).abs() < 1e-5 {
                return Ok(false);
            }
            doc.set_ladder_end(i, end, y)?;
        }
        Handle::Slope(col, row, side) => {
            let Some(c) = doc.slope_cell(col, row) else {
                return Ok(false);
            };
            let base = doc.loaded().grid.row_bottom(c.row);
            let h = (((y - base) / TILE_METRES) / SLOPE_SNAP).round() * SLOPE_SNAP;
            let h = h.clamp(0.0, 1.0);
            let old = if side == SlopeSide::Left {
                c.left
            } else {
                c.right
            };
            if (h - old).abs() < 1e-5 {
                return Ok(false);
            }
            doc.set_slope_height(col, row, side, h)?;
        }
        Handle::Plank(i, end) => return drag_plank_end(doc, i, end, at.x),
        Handle::Platform(i, k) => {
            let Some(old) = doc
                .level()
                .platforms
                .get(i)
                .and_then(|p| p.path.get(k))
                .copied()
            else {
                return Ok(false);
            };
            let to = (at / PATH_SNAP).round() * PATH_SNAP;
            if to.distance(old) < 1e-5 {
                return Ok(false);
            }
            doc.set_platform_point(i, k, to)?;
        }
    }
    Ok(true)
}

/// Drags plank `i`'s `end` to the tile edge nearest `x`. The plank keeps
/// at least one tile; when the whole way is refused (the next plank of its
/// row, a used cell, the map's edge) it goes as far as it can, one tile at
/// a time back from the cursor, and reports the refusal only when it
/// cannot move at all.
fn drag_plank_end(doc: &mut LevelDoc, i: usize, end: PlankEnd, x: f32) -> Result<bool, String> {
    let Some(p) = doc.planks().get(i).copied() else {
        return Ok(false);
    };
    let edge = (x / TILE_METRES).round() as i32;
    let (current, target) = match end {
        PlankEnd::Left => (p.col0, edge.min(p.col1)),
        PlankEnd::Right => (p.col1, (edge - 1).max(p.col0)),
    };
    let mut first_error = None;
    let mut col = target;
    while col != current {
        match doc.set_plank_end(i, end, col) {
            Ok(()) => return Ok(true),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
        col += (current - col).signum();
    }
    first_error.map_or(Ok(false), Err)
}

/// Puts a new level into the running simulation: the player keeps his place,
/// lifted onto the ground or moved to the nearest ground when the new level
/// buried him or took his ground or his ladder away.
pub fn replace_level(sim: &mut Sim, mut level: Level) {
    platforms_at_sim_time(&mut level, sim.steps);
    let player = sim.player;
    if let Ok((p, prev)) = sim
        .world
        .query_one_mut::<(&mut crate::sim::player::Player, &mut PrevPos)>(player)
    {
        if let Locomotion::Ladder(i) = p.state
            && level
                .ladders
                .get(i)
                .is_none_or(|l| (p.pos.x - l.x).abs() > crate::sim::player::LADDER_REACH)
        {
            p.state = Locomotion::Air;
        }
        let mut pos = relocate(p.pos, &level);
        // A player standing on a floor that moved stays standing on it (the
        // floor under his feet, not the column's top); with no floor left
        // under him he falls.
        if p.state == Locomotion::Ground {
            match level.floor_below(pos.x, pos.y + MAX_STEP_UP, MAX_STEP_UP + MAX_SNAP_DOWN) {
                Some(hit) => {
                    pos.y = hit.y;
                    p.floor = hit.kind();
                    p.floor_index = hit.index;
                }
                None => p.state = Locomotion::Air,
            }
        }
        p.drop_through = None;
        if pos != p.pos {
            p.pos = pos;
            prev.0 = pos;
        }
    }
    sim.level = level;
}

/// Puts a freshly loaded level's moving platforms where the running
/// simulation's clock has them (a loaded level starts them at their paths'
/// first points): a reload or an edit never makes them jump back.
fn platforms_at_sim_time(level: &mut Level, steps: u64) {
    let t = steps as f32 * DT;
    let before = steps.saturating_sub(1) as f32 * DT;
    for p in &mut level.platforms {
        p.prev = p.position_at(before);
        p.pos = p.position_at(t);
    }
}

/// Hot reload and designer mode for one window.
pub struct Designer {
    /// The watched file's watcher (none for the embedded level).
    watcher: Option<LevelWatcher>,
    /// The file being played, open for editing (none for the embedded level).
    doc: Option<LevelDoc>,
    /// The last failed reload's message, until a reload succeeds.
    reload_error: Option<String>,
    /// What the last edit or save said (an error or a confirmation).
    status: Option<(bool, String)>,
    /// `check-level`'s findings on the edited level.
    findings: Vec<Diagnostic>,
    /// For a level with no file (built-in or shipped), why there is nothing
    /// to edit and how to edit a copy (see [`no_file_note`]).
    no_file: String,
    /// Whether designer mode is on.
    pub enabled: bool,
    /// Whether the simulation runs while designing.
    pub run_sim: bool,
    selected: Option<Item>,
    drag: Option<Handle>,
    cursor: Vec2,
    modifiers: ModifiersState,
    ctrl_held: bool,
    pan: [bool; 4],
    focus: Option<Vec3>,
    camera: Option<Camera>,
    size: (u32, u32),
    /// Set when the level changed and the sim and world mesh must follow.
    level_dirty: bool,
    announce: bool,
    egui: Option<EguiLayer>,
}

/// Why a level with no file cannot be edited, and how to edit a copy: the
/// built-in level is made by code; a shipped level is embedded in the
/// binary, and its `.tmx` in `assets/levels/` can be copied and played.
fn no_file_note(source: &LevelSource) -> String {
    match source {
        LevelSource::Shipped(name) => format!(
            "the shipped level `{name}` is embedded in the game; to edit it, copy \
             assets/levels/{name}.tmx (with tiles.png beside it) and play the copy \
             with --edit --level COPY.tmx"
        ),
        _ => "the built-in level is made by code and has no file; to edit a level, \
              copy a .tmx of assets/levels/ (with tiles.png beside it) and play the copy \
              with --edit --level COPY.tmx"
            .into(),
    }
}

impl Designer {
    /// Loads the level `name` (`builtin`, a shipped level's name or a TMX
    /// path, see [`LevelSource::resolve`]) and, for a file, starts watching
    /// it. Returns the designer and the level to play. Built-in and shipped
    /// levels live in the binary: nothing is watched or saved for them.
    pub fn open(name: &str, edit: bool) -> anyhow::Result<(Self, Level)> {
        let source = LevelSource::resolve(name)?;
        let (watcher, doc, level) = match source.path() {
            None => (None, None, source.load()?),
            Some(path) => {
                let path = path.to_path_buf();
                let watcher = LevelWatcher::new(&path)?;
                let doc = LevelDoc::open(&path).map_err(anyhow::Error::msg)?;
                let level = doc.level().clone();
                (Some(watcher), Some(doc), level)
            }
        };
        let findings = doc.as_ref().map(LevelDoc::check).unwrap_or_default();
        Ok((
            Self {
                watcher,
                doc,
                reload_error: None,
                status: None,
                findings,
                no_file: no_file_note(&source),
                enabled: edit,
                run_sim: false,
                selected: None,
                drag: None,
                cursor: Vec2::ZERO,
                modifiers: ModifiersState::empty(),
                ctrl_held: false,
                pan: [false; 4],
                focus: None,
                camera: None,
                size: (1, 1),
                level_dirty: false,
                announce: edit,
                egui: None,
            },
            level,
        ))
    }

    /// Creates the egui layer for the window.
    pub fn attach(&mut self, window: &Window, renderer: &Renderer) {
        self.egui = Some(EguiLayer::new(
            window,
            renderer.device(),
            renderer.color_format(),
        ));
    }

    /// Whether the simulation should step this frame.
    pub fn sim_paused(&self) -> bool {
        self.enabled && !self.run_sim
    }

    /// The error of the last failed reload, if it is still broken.
    pub fn reload_error(&self) -> Option<&str> {
        self.reload_error.as_deref()
    }

    /// Feeds a window event. Returns true when designer mode or its panel
    /// used it (the game should then ignore it).
    pub fn on_event(&mut self, window: &Window, event: &WindowEvent) -> bool {
        let ui_used = self
            .egui
            .as_mut()
            .is_some_and(|e| e.on_window_event(window, event));
        match event {
            WindowEvent::ModifiersChanged(m) => {
                self.modifiers = m.state();
                false
            }
            WindowEvent::KeyboardInput {
                event,
                is_synthetic,
                ..
            } => {
                let PhysicalKey::Code(code) = event.physical_key else {
                    return ui_used;
                };
                let down = event.state == ElementState::Pressed;
                // A press that acts once: not the key's auto-repeat, nor
                // the press winit makes up for a key held as the window
                // gains focus.
                let press = down && !event.repeat && !*is_synthetic;
                if code == KeyCode::F2 && press {
                    self.toggle();
                    return true;
                }
                if ui_used {
                    return true;
                }
                if !self.enabled {
                    return false;
                }
                match code {
                    // Tracked by hand too: under some X servers winit reports
                    // no ModifiersChanged for synthetic (XTEST) key presses.
                    KeyCode::ControlLeft | KeyCode::ControlRight => {
                        self.ctrl_held = down;
                        false
                    }
                    KeyCode::KeyS if self.modifiers.control_key() || self.ctrl_held => {
                        if press {
                            self.save();
                        }
                        true
                    }
                    KeyCode::KeyZ | KeyCode::KeyY
                        if self.modifiers.control_key() || self.ctrl_held =>
                    {
                        if down && !*is_synthetic {
                            let redo = code == KeyCode::KeyY || self.modifiers.shift_key();
                            self.history(redo);
                        }
                        true
                    }
                    KeyCode::KeyP if press => {
                        self.run_sim = !self.run_sim;
                        true
                    }
                    KeyCode::ArrowLeft
                    | KeyCode::ArrowRight
                    | KeyCode::ArrowUp
                    | KeyCode::ArrowDown
                        if !self.run_sim =>
                    {
                        let k = match code {
                            KeyCode::ArrowLeft => 0,
                            KeyCode::ArrowRight => 1,
                            KeyCode::ArrowUp => 2,
                            _ => 3,
                        };
                        self.pan[k] = down;
                        true
                    }
                    _ => false,
                }
            }
            WindowEvent::CursorMoved { position, .. } => {
                self.cursor = Vec2::new(position.x as f32, position.y as f32);
                if self.drag.is_some() {
                    self.drag_to_cursor();
                    return true;
                }
                ui_used
            }
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } if self.enabled => {
                let over_ui = self.egui.as_ref().is_some_and(EguiLayer::wants_pointer);
                // Whatever a press drags (a handle, a value in the panel)
                // undoes as one step.
                if let Some(doc) = self.doc.as_mut() {
                    match state {
                        ElementState::Pressed => doc.begin_gesture(),
                        ElementState::Released => doc.end_gesture(),
                    }
                }
                match state {
                    ElementState::Pressed if !over_ui => {
                        self.drag = self.pick(self.cursor);
                        if let Some(h) = self.drag {
                            println!("designer: picked {}", h.label());
                            self.selected = Some(h.item());
                        }
                        true
                    }
                    ElementState::Released if self.drag.is_some() => {
                        self.drag = None;
                        self.refresh_findings();
                        true
                    }
                    _ => ui_used,
                }
            }
            _ => ui_used,
        }
    }

    fn toggle(&mut self) {
        self.enabled = !self.enabled;
        self.drag = None;
        self.pan = [false; 4];
        if self.enabled {
            self.focus = None;
            self.announce = true;
        }
        eprintln!(
            "ironstep: designer mode {}",
            if self.enabled { "on" } else { "off" }
        );
    }

    /// The handle under pixel `p`, nearest first.
    fn pick(&self, p: Vec2) -> Option<Handle> {
        let doc = self.doc.as_ref()?;
        let cam = self.camera.as_ref()?;
        handles(doc)
            .into_iter()
            .filter_map(|(h, w)| {
                let s = world_to_screen(cam, self.size, w.extend(0.0))?;
                let d = s.distance(p);
                (d <= PICK_RADIUS_PX).then_some((h, d))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(h, _)| h)
    }

    fn drag_to_cursor(&mut self) {
        let (Some(handle), Some(cam), Some(doc)) = (self.drag, self.camera, self.doc.as_mut())
        else {
            return;
        };
        let Some(hit) = cursor_ray(&cam, self.size, self.cursor).and_then(|r| ray_plane_z(r, 0.0))
        else {
            return;
        };
        match drag_handle(doc, handle, hit.truncate()) {
            Ok(true) => {
                self.level_dirty = true;
                self.status = None;
            }
            Ok(false) => {}
            Err(e) => self.status = Some((false, e)),
        }
    }

    /// Undoes (or, with `redo`, redoes) the last edit or drag.
    fn history(&mut self, redo: bool) {
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        self.drag = None;
        let r = if redo { doc.redo() } else { doc.undo() };
        let what = if redo { "redo" } else { "undo" };
        match r {
            Ok(true) => {
                println!("designer: {what}");
                self.level_dirty = true;
                self.status = None;
            }
            Ok(false) => self.status = Some((false, format!("nothing to {what}"))),
            Err(e) => self.status = Some((false, format!("cannot {what}: {e}"))),
        }
    }

    fn refresh_findings(&mut self) {
        if let Some(doc) = &self.doc {
            self.findings = doc.check();
        }
    }

    fn save(&mut self) {
        let Some(doc) = self.doc.as_mut() else {
            self.status = Some((false, format!("nothing to save: {}", self.no_file)));
            return;
        };
        self.status = Some(match doc.save() {
            Ok(()) => {
                println!("designer: saved {}", doc.path().display());
                (true, format!("saved {}", doc.path().display()))
            }
            Err(e) => (false, e),
        });
    }

    /// Polls the watcher and applies reloads and edits to the simulation and
    /// the renderer. Call once per frame before stepping. Returns whether the
    /// simulation's level was replaced (an edit or a reload): the caller
    /// shows it on the player's pose (see
    /// [`crate::window::frame_sim::FrameSim::edited`]).
    pub fn update(
        &mut self,
        sim: &mut Sim,
        renderer: &mut Renderer,
        handles: &SceneHandles,
        dt: f32,
    ) -> anyhow::Result<bool> {
        let mut replaced = false;
        if let Some(w) = self.watcher.as_mut()
            && let Some(r) = w.poll()
        {
            match r {
                Reload::Reloaded(_) => {
                    self.reload_error = None;
                    let dirty = self.doc.as_ref().is_some_and(LevelDoc::is_dirty);
                    let on_disk = self
                        .doc
                        .as_ref()
                        .and_then(|d| std::fs::read_to_string(d.path()).ok());
                    let ours = self
                        .doc
                        .as_ref()
                        .is_some_and(|d| on_disk.as_deref() == Some(d.saved_text()));
                    if ours {
                        // Our own save (or a touch): nothing new.
                    } else if dirty {
                        self.status = Some((
                            false,
                            "the file changed on disk; your unsaved edits are kept (Ctrl+S overwrites the file)".into(),
                        ));
                    } else if let Some(doc) = self.doc.as_mut() {
                        match LevelDoc::open(doc.path()) {
                            Ok(d) => {
                                *doc = d;
                                self.level_dirty = true;
                                eprintln!("ironstep: reloaded {}", doc.path().display());
                                println!("designer: reloaded {}", doc.path().display());
                            }
                            Err(e) => self.reload_error = Some(e),
                        }
                    }
                }
                Reload::Error(e) => {
                    eprintln!("ironstep: {e}");
                    println!("designer: reload failed: {e}");
                    self.reload_error = Some(e);
                }
            }
        }
        if self.level_dirty {
            self.level_dirty = false;
            if let Some(doc) = &self.doc {
                replace_level(sim, doc.level().clone());
                replaced = true;
                renderer.replace_world_mesh(handles.world, &world_mesh(&sim.level)?)?;
                if self.drag.is_none() {
                    self.findings = doc.check();
                }
            }
        }
        if self.enabled && !self.run_sim {
            let dir = Vec2::new(
                f32::from(self.pan[1]) - f32::from(self.pan[0]),
                f32::from(self.pan[2]) - f32::from(self.pan[3]),
            );
            if let Some(f) = self.focus.as_mut() {
                *f += (dir * PAN_SPEED * dt).extend(0.0);
            }
        }
        Ok(replaced)
    }

    /// The camera to draw with: the game's follow camera, or designer mode's
    /// free camera (starting where the follow camera was).
    pub fn camera(&mut self, follow: Camera, size: (u32, u32)) -> Camera {
        self.size = size;
        let cam = if self.enabled && !self.run_sim {
            let focus = *self.focus.get_or_insert(follow.target);
            Camera::side_view(focus, CAMERA_DISTANCE)
        } else {
            self.focus = Some(follow.target);
            follow
        };
        self.camera = Some(cam);
        if self.announce && self.enabled {
            self.announce = false;
            self.print_handles(&cam);
        }
        cam
    }

    /// Prints the on-screen handles (for tests and scripts driving the window).
    fn print_handles(&self, cam: &Camera) {
        let Some(doc) = &self.doc else {
            println!("designer: on (nothing to edit: {})", self.no_file);
            return;
        };
        println!("designer: on {}", doc.path().display());
        for (h, w) in handles(doc) {
            if let Some(s) = world_to_screen(cam, self.size, w.extend(0.0))
                && s.x >= 0.0
                && s.y >= 0.0
                && s.x < self.size.0 as f32
                && s.y < self.size.1 as f32
            {
                println!(
                    "designer: handle {} at {:.0} {:.0} px ({:.3} {:.3} m)",
                    h.label(),
                    s.x,
                    s.y,
                    w.x,
                    w.y
                );
            }
        }
    }

    /// Draws the handles (screen-space squares, so they stay visible without
    /// the debug overlay) and the selected ladder's rungs.
    fn draw_handles(&self, ui: &egui::Ui) {
        let (Some(doc), Some(cam)) = (&self.doc, self.camera) else {
            return;
        };
        let painter = ui.ctx().layer_painter(egui::LayerId::background());
        let ppp = ui.ctx().pixels_per_point();
        let to_ui =
            |w: Vec3| world_to_screen(&cam, self.size, w).map(|p| egui::pos2(p.x / ppp, p.y / ppp));
        if let Some(Item::Ladder(i)) = self.selected
            && let Some(l) = doc.level().ladders.get(i)
        {
            for y in l.rung_heights() {
                if let (Some(a), Some(b)) = (
                    to_ui(Vec3::new(l.x - l.half_width, y, 0.0)),
                    to_ui(Vec3::new(l.x + l.half_width, y, 0.0)),
                ) {
                    painter.line_segment([a, b], egui::Stroke::new(2.0, egui::Color32::YELLOW));
                }
            }
        }
        // Grabbable corners (ledges): an angle along the top and down the
        // face, so a designer sees where the knight can hang.
        for [a, b, c] in ledge_marks(doc.level()) {
            if let (Some(a), Some(b), Some(c)) = (
                to_ui(a.extend(0.0)),
                to_ui(b.extend(0.0)),
                to_ui(c.extend(0.0)),
            ) {
                let stroke = egui::Stroke::new(2.5, LEDGE_COLOUR);
                painter.line_segment([b, a], stroke);
                painter.line_segment([a, c], stroke);
            }
        }
        // Moving platforms' paths, so their points read as one path.
        for (i, p) in doc.level().platforms.iter().enumerate() {
            let colour = if self.selected == Some(Item::Platform(i)) {
                egui::Color32::YELLOW
            } else {
                PLATFORM_COLOUR
            };
            for w in p.path.windows(2) {
                if let (Some(a), Some(b)) = (to_ui(w[0].extend(0.0)), to_ui(w[1].extend(0.0))) {
                    painter.line_segment([a, b], egui::Stroke::new(1.5, colour));
                }
            }
        }
        if let Some(Item::Plank(i)) = self.selected
            && let Some(s) = doc.loaded().one_way.get(i)
            && let (Some(a), Some(b)) = (
                to_ui(Vec3::new(s.x0, s.y0, 0.0)),
                to_ui(Vec3::new(s.x1, s.y1, 0.0)),
            )
        {
            painter.line_segment([a, b], egui::Stroke::new(3.0, egui::Color32::YELLOW));
        }
        for (h, w) in handles(doc) {
            let Some(p) = to_ui(w.extend(0.0)) else {
                continue;
            };
            let fill = match (self.drag == Some(h), self.selected == Some(h.item()), h) {
                (true, _, _) => egui::Color32::WHITE,
                (_, true, _) => egui::Color32::YELLOW,
                (_, _, Handle::Ladder(..)) => egui::Color32::from_rgb(255, 120, 30),
                (_, _, Handle::Plank(..)) => PLANK_COLOUR,
                (_, _, Handle::Platform(..)) => PLATFORM_COLOUR,
                _ => egui::Color32::from_rgb(40, 220, 255),
            };
            let r = egui::Rect::from_center_size(p, egui::vec2(10.0, 10.0));
            painter.rect_filled(r, 2.0, fill);
            painter.rect_stroke(
                r,
                2.0,
                egui::Stroke::new(1.5, egui::Color32::BLACK),
                egui::StrokeKind::Outside,
            );
        }
    }

    /// Runs the UI (panel in designer mode, the reload error always).
    pub fn ui(&mut self, window: &Window) {
        let Some(mut egui) = self.egui.take() else {
            return;
        };
        let mut edits: Vec<Edit> = Vec::new();
        let mut save = false;
        egui.run(window, |ui| {
            if let Some(e) = &self.reload_error {
                egui::Area::new(egui::Id::unique("reload error"))
                    .anchor(egui::Align2::CENTER_TOP, egui::vec2(0.0, 8.0))
                    .show(ui.ctx(), |ui| {
                        egui::Frame::popup(ui.style())
                            .fill(egui::Color32::from_rgb(90, 20, 20))
                            .show(ui, |ui| {
                                ui.set_max_width(700.0);
                                ui.colored_label(egui::Color32::WHITE, "Level reload failed");
                                ui.colored_label(egui::Color32::from_rgb(255, 200, 200), e);
                            });
                    });
            }
            if !self.enabled {
                return;
            }
            self.draw_handles(ui);
            egui::Panel::right("designer panel")
                .exact_size(PANEL_WIDTH)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        self.panel(ui, &mut edits, &mut save);
                    });
                });
        });
        self.egui = Some(egui);
        for e in edits {
            self.apply(e);
        }
        if save {
            self.save();
        }
    }

    fn panel(&mut self, ui: &mut egui::Ui, edits: &mut Vec<Edit>, save: &mut bool) {
        ui.heading("Designer");
        let Some(doc) = &self.doc else {
            ui.label(format!(
                "Nothing is watched, edited or saved: {}.",
                self.no_file
            ));
            return;
        };
        ui.label(doc.path().display().to_string());
        ui.horizontal(|ui| {
            if doc.is_dirty() {
                ui.colored_label(egui::Color32::from_rgb(255, 200, 80), "unsaved edits");
            } else {
                ui.label("saved");
            }
            if ui.button("Save (Ctrl+S)").clicked() {
                *save = true;
            }
        });
        ui.horizontal(|ui| {
            if ui
                .add_enabled(doc.can_undo(), egui::Button::new("Undo (Ctrl+Z)"))
                .clicked()
            {
                edits.push(Edit::Undo);
            }
            if ui
                .add_enabled(doc.can_redo(), egui::Button::new("Redo (Ctrl+Y)"))
                .clicked()
            {
                edits.push(Edit::Redo);
            }
        });
        if let Some((ok, msg)) = &self.status {
            let c = if *ok {
                egui::Color32::from_rgb(140, 230, 140)
            } else {
                egui::Color32::from_rgb(255, 140, 140)
            };
            ui.colored_label(c, msg);
        }
        ui.checkbox(&mut self.run_sim, "run the simulation (P)");
        ui.label("Drag a handle: ladder ends (orange), slope edges (cyan), one-way plank ends (green), moving platform path points (magenta). Arrows pan while paused; F2 leaves.");
        ui.separator();
        match self.selected {
            Some(Item::Ladder(i)) => {
                if let Some(l) = doc.level().ladders.get(i).copied() {
                    let id = doc.loaded().ladder_ids.get(i).copied().unwrap_or(0);
                    ui.strong(format!("Ladder {i} (object {id})"));
                    let mut v = [l.rung_spacing, l.first_rung_offset, l.bottom, l.top];
                    let labels = [
                        "rung spacing (m)",
                        "first rung offset (m)",
                        "bottom (m)",
                        "top (m)",
                    ];
                    for (k, label) in labels.iter().enumerate() {
                        ui.horizontal(|ui| {
                            ui.label(*label);
                            ui.add(egui::DragValue::new(&mut v[k]).speed(0.005).max_decimals(3));
                        });
                    }
                    ui.label(format!("{} rungs", l.rung_heights().count()));
                    if v[0] != l.rung_spacing {
                        edits.push(Edit::RungSpacing(i, v[0]));
                    }
                    if v[1] != l.first_rung_offset {
                        edits.push(Edit::FirstRung(i, v[1]));
                    }
                    if v[2] != l.bottom || v[3] != l.top {
                        edits.push(Edit::Extent(i, v[2], v[3]));
                    }
                }
            }
            Some(Item::Slope(col, row)) => {
                if let Some(c) = doc.slope_cell(col, row) {
                    ui.strong(format!("Slope at tile ({col},{row})"));
                    ui.label(match c.override_id {
                        Some(id) => format!("stored on Slope object {id}"),
                        None => "from its tile (the first edit adds a Slope object for this cell)"
                            .into(),
                    });
                    let mut v = [c.left, c.right];
                    for (k, label) in ["left height (tiles)", "right height (tiles)"]
                        .iter()
                        .enumerate()
                    {
                        ui.horizontal(|ui| {
                            ui.label(*label);
                            ui.add(
                                egui::DragValue::new(&mut v[k])
                                    .speed(0.01)
                                    .range(0.0..=1.0)
                                    .max_decimals(4),
                            );
                        });
                    }
                    let deg = ((c.right - c.left) * TILE_METRES / TILE_METRES)
                        .atan()
                        .to_degrees();
                    ui.label(format!("{deg:.1}°"));
                    if v != [c.left, c.right] {
                        edits.push(Edit::Slope(col, row, v[0], v[1]));
                    }
                }
            }
            Some(Item::Plank(i)) => {
                if let Some(p) = doc.planks().get(i).copied() {
                    ui.strong(format!("One-way plank {i}"));
                    ui.label(format!(
                        "row {}, {} tiles ({:.2} m)",
                        p.row,
                        p.tiles(),
                        p.tiles() as f32 * TILE_METRES
                    ));
                    let mut v = [p.col0, p.col1];
                    for (k, label) in ["first column", "last column"].iter().enumerate() {
                        ui.horizontal(|ui| {
                            ui.label(*label);
                            ui.add(egui::DragValue::new(&mut v[k]).speed(0.05));
                        });
                    }
                    if v[0] != p.col0 {
                        edits.push(Edit::PlankEnd(i, PlankEnd::Left, v[0]));
                    }
                    if v[1] != p.col1 {
                        edits.push(Edit::PlankEnd(i, PlankEnd::Right, v[1]));
                    }
                }
            }
            Some(Item::Platform(i)) => {
                if let Some(p) = doc.level().platforms.get(i) {
                    let id = doc.loaded().platform_ids.get(i).copied().unwrap_or(0);
                    ui.strong(format!("Moving platform {i} (object {id})"));
                    ui.label(format!(
                        "{:.2} m wide, {:.2} m/s, waits {:.2} s; path {:.2} m",
                        2.0 * p.half_width,
                        p.speed,
                        p.wait,
                        p.length()
                    ));
                    for (k, q) in p.path.iter().enumerate() {
                        let mut v = [q.x, q.y];
                        ui.horizontal(|ui| {
                            ui.label(format!("point {k} (m)"));
                            for c in &mut v {
                                ui.add(egui::DragValue::new(c).speed(0.01).max_decimals(3));
                            }
                        });
                        if v != [q.x, q.y] {
                            edits.push(Edit::PathPoint(i, k, Vec2::from(v)));
                        }
                    }
                }
            }
            None => {
                ui.label("Nothing selected: click a handle.");
            }
        }
        ui.separator();
        let errors = self
            .findings
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        ui.strong(format!(
            "check-level: {errors} errors, {} warnings",
            self.findings.len() - errors
        ));
        for d in &self.findings {
            let c = match d.severity {
                Severity::Error => egui::Color32::from_rgb(255, 140, 140),
                Severity::Warning => egui::Color32::from_rgb(255, 220, 120),
            };
            ui.colored_label(c, d.to_string());
        }
    }

    fn apply(&mut self, e: Edit) {
        if let Edit::Undo | Edit::Redo = e {
            self.history(matches!(e, Edit::Redo));
            return;
        }
        let Some(doc) = self.doc.as_mut() else { return };
        let r = match e {
            Edit::RungSpacing(i, v) => doc.set_rung_spacing(i, v),
            Edit::FirstRung(i, v) => doc.set_first_rung_offset(i, v),
            Edit::Extent(i, b, t) => doc.set_ladder_extent(i, b, t),
            Edit::Slope(c, row, l, r) => doc.set_slope_heights(c, row, l, r),
            Edit::PlankEnd(i, end, col) => doc.set_plank_end(i, end, col),
            Edit::PathPoint(i, k, p) => doc.set_platform_point(i, k, p),
            Edit::Undo | Edit::Redo => return,
        };
        match r {
            Ok(()) => {
                self.status = None;
                self.level_dirty = true;
            }
            Err(e) => self.status = Some((false, e)),
        }
    }

    /// Paints the UI prepared by [`Designer::ui`] over `view`.
    pub fn paint(
        &mut self,
        renderer: &Renderer,
        view: &renderer::wgpu::TextureView,
        size: (u32, u32),
    ) {
        if let Some(e) = self.egui.as_mut() {
            e.paint(renderer.device(), renderer.queue(), view, size);
        }
    }

    /// The document being edited, if the level has a file.
    pub fn doc(&self) -> Option<&LevelDoc> {
        self.doc.as_ref()
    }
}

/// A value changed in the panel.
#[derive(Clone, Copy, Debug)]
enum Edit {
    RungSpacing(usize, f32),
    FirstRung(usize, f32),
    Extent(usize, f32, f32),
    Slope(i32, i32, f32, f32),
    PlankEnd(usize, PlankEnd, i32),
    PathPoint(usize, usize, Vec2),
    Undo,
    Redo,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::testmaps::{map, point};

    #[test]
    fn the_overlay_marks_every_grabbable_corner_and_no_other() {
        let level = crate::level::from_tmx_str(crate::level::TUTORIAL_TMX, "tutorial.tmx")
            .unwrap()
            .level;
        let marks: Vec<[Vec2; 3]> = ledge_marks(&level).collect();
        // The exit's wall: its corner at (82, 4) m, marked along its top
        // (to the right) and down its face.
        assert!(
            marks.iter().any(|m| m[0] == Vec2::new(82.0, 4.0)
                && m[1] == Vec2::new(82.0 + LEDGE_MARK, 4.0)
                && m[2] == Vec2::new(82.0, 4.0 - LEDGE_MARK)),
            "{marks:?}"
        );
        assert_eq!(
            marks.len(),
            level.static_ledges().count() + {
                level
                    .platforms
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let s = p.solid();
                        usize::from(level.is_ledge(Vec2::new(s.x0, s.top0), -1.0, Some(i as u16)))
                            + usize::from(level.is_ledge(
                                Vec2::new(s.x1, s.top1),
                                1.0,
                                Some(i as u16),
                            ))
                    })
                    .sum::<usize>()
            }
        );
        // Every mark is a ledge: the controller's own query finds it.
        for m in &marks {
            let side = if m[1].x < m[0].x { 1.0 } else { -1.0 };
            assert!(
                level
                    .ledge_near((m[0].x, m[0].x), (m[0].y, m[0].y), side, m[0])
                    .is_some(),
                "{m:?}"
            );
        }
    }

    /// Ground with a slope on a floating block over a slope on the ground
    /// (column 7), a plank over columns 2–4 of row 1 with a decoration tile
    /// at (7,1), and a moving platform (object 3) with three path points.
    fn doc() -> LevelDoc {
        let rows: &[&str] = &[
            "..........",
            "..---..d..",
            "......./..",
            ".......#..",
            "..........",
            "......./..",
            "##########",
        ];
        let objs = point(1, "Spawn", 0.0, 6)
            + &point(2, "Exit", 9.0, 6)
            + "<object id=\"3\" type=\"MovingPlatform\" x=\"32\" y=\"160\"><polyline points=\"0,0 96,0 96,-64\"/></object>";
        let path = std::env::temp_dir().join("ironstep-designer-handles.tmx");
        LevelDoc::from_text(path, map(&[rows], &objs)).unwrap()
    }

    fn at(doc: &LevelDoc, h: Handle) -> Vec2 {
        handles(doc)
            .into_iter()
            .find(|(k, _)| *k == h)
            .map(|(_, w)| w)
            .unwrap_or_else(|| panic!("no handle {}", h.label()))
    }

    #[test]
    fn every_slope_cell_plank_end_and_path_point_has_a_handle() {
        let d = doc();
        let labels: Vec<String> = handles(&d).iter().map(|(h, _)| h.label()).collect();
        for want in [
            "slope 7,2 left",
            "slope 7,2 right",
            "slope 7,5 left",
            "slope 7,5 right",
            "plank 0 left",
            "plank 0 right",
            "platform 0 point 0",
            "platform 0 point 1",
            "platform 0 point 2",
        ] {
            assert!(labels.iter().any(|l| l == want), "{want}: {labels:?}");
        }
        assert_eq!(
            at(&d, Handle::Plank(0, PlankEnd::Left)),
            Vec2::new(1.0, 3.0)
        );
        assert_eq!(
            at(&d, Handle::Plank(0, PlankEnd::Right)),
            Vec2::new(2.5, 3.0)
        );
        assert_eq!(at(&d, Handle::Platform(0, 2)), Vec2::new(2.0, 2.0));
        assert_eq!(
            at(&d, Handle::Slope(7, 2, SlopeSide::Right)),
            Vec2::new(4.0, 2.5)
        );
        assert_eq!(
            at(&d, Handle::Slope(7, 5, SlopeSide::Right)),
            Vec2::new(4.0, 1.0)
        );
    }

    #[test]
    fn dragging_a_slope_edge_moves_only_that_cell() {
        let mut d = doc();
        // Down by 0.2 m: 0.6 tile heights, snapped to 19/32.
        let h = Handle::Slope(7, 2, SlopeSide::Right);
        assert!(drag_handle(&mut d, h, Vec2::new(4.0, 2.3)).unwrap());
        assert_eq!(d.slope_cell(7, 2).unwrap().right, 19.0 / 32.0);
        assert_eq!(d.slope_cell(7, 5).unwrap().right, 1.0);
        assert!(
            !drag_handle(&mut d, h, Vec2::new(3.0, 2.3)).unwrap(),
            "same height"
        );
    }

    #[test]
    fn dragging_a_plank_end_goes_in_whole_tiles_as_far_as_it_can() {
        let mut d = doc();
        let h = Handle::Plank(0, PlankEnd::Right);
        // To x 3.1 m: the nearest tile edge is 3.0 m, the last tile column 5.
        assert!(drag_handle(&mut d, h, Vec2::new(3.1, 2.0)).unwrap());
        assert_eq!(d.planks()[0].col1, 5);
        assert_eq!(at(&d, h), Vec2::new(3.0, 3.0));
        // Towards x 4.6 m: the decoration at column 7 stops it at column 6.
        assert!(drag_handle(&mut d, h, Vec2::new(4.6, 3.0)).unwrap());
        assert_eq!(d.planks()[0].col1, 6);
        // Further right is refused, and reported.
        let e = drag_handle(&mut d, h, Vec2::new(4.6, 3.0)).unwrap_err();
        assert!(e.contains("already holds tile 7"), "{e}");
        // Past the other end: the plank keeps one tile.
        let left = Handle::Plank(0, PlankEnd::Left);
        assert!(drag_handle(&mut d, left, Vec2::new(4.4, 3.0)).unwrap());
        assert_eq!(d.planks()[0].col0, 6);
        assert!(!drag_handle(&mut d, left, Vec2::new(4.4, 3.0)).unwrap());
    }

    #[test]
    fn dragging_a_path_point_snaps_it_to_a_quarter_tile() {
        let mut d = doc();
        let h = Handle::Platform(0, 1);
        assert!(drag_handle(&mut d, h, Vec2::new(2.43, 1.2)).unwrap());
        assert_eq!(d.level().platforms[0].path[1], Vec2::new(2.375, 1.25));
        assert!(
            d.text().contains("points=\"0,0 120,-16 96,-64\""),
            "{}",
            d.text()
        );
        assert!(
            !drag_handle(&mut d, h, Vec2::new(2.4, 1.26)).unwrap(),
            "same snap"
        );
        assert!(!drag_handle(&mut d, Handle::Platform(0, 7), Vec2::ZERO).unwrap());
    }

    #[test]
    fn a_level_with_no_file_says_how_to_edit_a_copy() {
        // `play --edit --level tutorial`: the tutorial is shipped, not
        // built-in; the note names its .tmx to copy.
        let (d, _) = Designer::open("tutorial", true).unwrap();
        assert!(d.doc.is_none());
        assert!(
            d.no_file.contains("shipped level `tutorial`")
                && d.no_file.contains("copy assets/levels/tutorial.tmx")
                && !d.no_file.contains("built-in"),
            "{}",
            d.no_file
        );
        let (d, _) = Designer::open("builtin", true).unwrap();
        assert!(
            d.no_file.contains("built-in level is made by code"),
            "{}",
            d.no_file
        );
    }
}
