//! `ironstep check-level FILE... [--json]`: finds what makes a level wrong
//! before anyone plays it, for designers and their CI.
//!
//! Findings: unknown classes and properties and overlapping solids (from the
//! loader), slopes steeper than walkable, ladders whose rung spacing the rig
//! cannot climb, ladders whose top or bottom meets no floor (the ladder's
//! object id and which end), headroom lower than the knight over a walkable
//! floor (a warning naming the ceiling's cells), moving platforms whose path
//! leaves the map or whose box, swept along the path, enters a solid (the
//! platform's object id and where), and a spawn or exit the player cannot
//! reach. Reachability is the level's reachability graph
//! ([`super::reach::Graph`]: walks, jumps, falls, ladders, one-way drops and
//! moving platforms, each tried with the real controller); an unreachable
//! exit names the first place not reached on the way and the place reached
//! nearest to the exit. Each finding is printed as `file:location: message`;
//! with `--json`, one JSON document lists them all. The exit code is
//! non-zero when any file has an error.

use anyhow::{Result, bail};
use clap::Args;

use glam::Vec2;

use super::reach::{Graph, Node, NodeKind};
use super::shipped::LevelSource;
use super::{Diagnostic, GRID_EPSILON, LoadedLevel, Severity, TILE_METRES};
use crate::knight::{clips, skeleton};
use crate::scene::PLANK_THICKNESS;
use crate::sim::player::{
    BODY_HALF_WIDTH, BODY_HEIGHT, CLIMB_HALF_WIDTH, LADDER_FOOT_CLEARING, LADDER_REACH,
    MAX_STEP_UP, MAX_WALKABLE_SLOPE, MoveParams,
};
use crate::sim::world::{FloorFilter, FloorKind, Ladder, Level, MovingPlatform};
use crate::tools::autopilot::EXIT_RADIUS;

/// How far beside a ladder's top a floor may be and still be stepped onto,
/// metres: the body half width plus a stride.
pub const LADDER_TOP_FLOOR_REACH: f32 = 0.6;
/// How close a floor must be to the ladder's top (or its foot) in height to
/// count, metres: a step the controller walks up.
pub const LADDER_END_TOLERANCE: f32 = MAX_STEP_UP;
/// Spacing of the points a moving platform's box is checked at along its
/// path, metres: a tenth of a tile, so no solid cell slips between two.
pub const PLATFORM_SWEEP_STEP: f32 = 0.05;
/// Fraction of the straight arm a hand may reach to (the notes' ~0.9 × arm).
pub const ARM_REACH_FRACTION: f32 = 0.9;
/// Clearance a boot needs between two rungs, metres: ankle height above and
/// below the tread, so the foot fits between rungs.
pub const FOOT_CLEARANCE: f32 = 2.0 * skeleton::ANKLE_HEIGHT;

/// Arguments of `ironstep check-level`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Levels to check: Tiled maps (.tmx, .tmj or .json) or the names `--level` takes
    /// (`builtin`, `tutorial`, `long`, `tower`). The built-in level is made
    /// by code, not a Tiled map: it is accepted with a warning that there
    /// is nothing to check.
    #[arg(required = true, value_name = "LEVEL")]
    pub files: Vec<String>,
    /// Print one JSON document instead of `file:location: severity: message`
    /// lines.
    #[arg(long)]
    pub json: bool,
}

/// The findings for one file.
#[derive(Debug, serde::Serialize)]
pub struct FileReport {
    /// The file as given.
    pub file: String,
    /// Whether the file loaded at all.
    pub loaded: bool,
    /// Every finding, errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl FileReport {
    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// The rung spacings the knight can climb, metres: the spacing the climb
/// cycle is authored for ([`clips::RUNG_SPACING_RANGE`]) narrowed by what the
/// limbs reach. A climb moves each hand two rungs per cycle, so a hand's
/// stroke, from the elbow's height (arm bent, pulling) up to
/// [`ARM_REACH_FRACTION`] of the arm above the shoulder, must span two
/// spacings; a boot must fit between two rungs.
pub fn climbable_rung_spacing() -> (f32, f32) {
    let arm = skeleton::UPPER_ARM + skeleton::FOREARM;
    let hand_stroke = ARM_REACH_FRACTION * arm + skeleton::UPPER_ARM;
    let reach_max = 0.5 * hand_stroke;
    let (lo, hi) = clips::RUNG_SPACING_RANGE;
    (lo.max(FOOT_CLEARANCE), hi.min(reach_max))
}

/// Checks one loaded level; returns the loader's findings and the checker's.
pub fn check_level(loaded: &LoadedLevel) -> Vec<Diagnostic> {
    let mut out = loaded.diagnostics.clone();
    let level = &loaded.level;
    let err = |location: String, message: String| Diagnostic {
        severity: Severity::Error,
        location,
        message,
    };
    for s in &level.segments {
        if s.slope().abs() > MAX_WALKABLE_SLOPE {
            let col = (s.x0 / TILE_METRES).floor() as i32;
            out.push(err(
                format!("column {col} (x {:.2} m)", s.x0),
                format!(
                    "slope of {:.1}° is steeper than the walkable 45°",
                    s.angle().to_degrees().abs()
                ),
            ));
        }
    }
    let (lo, hi) = climbable_rung_spacing();
    for (i, l) in level.ladders.iter().enumerate() {
        let loc = format!(
            "object {}",
            loaded.ladder_ids.get(i).copied().unwrap_or_default()
        );
        if !(lo - GRID_EPSILON..=hi + GRID_EPSILON).contains(&l.rung_spacing) {
            out.push(err(
                loc.clone(),
                format!(
                    "ladder rung spacing {:.3} m is outside what the knight can climb ({lo:.2}..={hi:.2} m)",
                    l.rung_spacing
                ),
            ));
        }
        if l.rung_heights().next().is_none() {
            out.push(err(
                loc.clone(),
                "ladder has no rungs (first rung above its top)".into(),
            ));
        }
        if !ladder_top_has_floor(level, l) {
            out.push(err(
                loc.clone(),
                format!(
                    "ladder top at {:.2} m has no floor to step onto within {LADDER_TOP_FLOOR_REACH} m beside it",
                    l.top
                ),
            ));
        }
        if let Some((a, b)) = climber_blocked(level, l) {
            out.push(err(
                loc.clone(),
                format!(
                    "a climber ({:.2} m wide) on the ladder overlaps a solid between {a:.2} and {b:.2} m: keep the ladder's centre line at least {CLIMB_HALF_WIDTH} m from walls and clear of blocks",
                    2.0 * CLIMB_HALF_WIDTH
                ),
            ));
        }
        if !ladder_bottom_has_floor(level, l) {
            out.push(err(
                loc.clone(),
                format!(
                    "ladder bottom at {:.2} m has no floor to stand on within {LADDER_REACH} m of it",
                    l.bottom
                ),
            ));
        }
    }
    out.extend(checkpoints(loaded));
    out.extend(low_planks(loaded));
    out.extend(headroom(loaded));
    out.extend(platform_paths(loaded));
    out.extend(reachability(loaded));
    out
}

/// The heights over which a climber's body ([`CLIMB_HALF_WIDTH`] either
/// side of the ladder) overlaps a solid, above the ladder's foot zone (where
/// a descending climber slides clear of what stands beside the foot,
/// [`LADDER_FOOT_CLEARING`]) up to its top: there the ladder cannot be
/// climbed (down from the top, the climber waits for a clearance that never
/// comes).
/// The strip is walked in [`CLIMBER_STEP`] slices counted as an integer
/// (a float that adds 5 cm at a time stops advancing far from the origin),
/// at most [`MAX_CLIMBER_SLICES`] of them: the loader keeps ladders within
/// [`super::limits::MAX_OBJECT_TILES`] tiles, so a real ladder needs far
/// fewer, and a longer strip is cut into that many equal slices.
fn climber_blocked(level: &Level, l: &Ladder) -> Option<(f32, f32)> {
    let start = l.bottom + LADDER_FOOT_CLEARING;
    let end = l.top;
    let span = end - start;
    if !span.is_finite() || span <= GRID_EPSILON {
        return None;
    }
    let slices = ((span / CLIMBER_STEP).ceil() as usize).clamp(1, MAX_CLIMBER_SLICES);
    let step = span / slices as f32;
    let mut hit: Option<(f32, f32)> = None;
    for i in 0..slices {
        let y = start + i as f32 * step;
        let top = if i + 1 == slices { end } else { y + step };
        if level.solid_overlaps(l.x - CLIMB_HALF_WIDTH, l.x + CLIMB_HALF_WIDTH, y, top) {
            hit = Some(hit.map_or((y, top), |(a, _)| (a, top)));
        }
    }
    hit
}

/// Height of one slice of a ladder's climbing strip that
/// `climber_blocked` checks, metres: a tenth of a tile, so no solid cell
/// slips between two.
pub const CLIMBER_STEP: f32 = 0.05;
/// Most slices `climber_blocked` checks on one ladder: the tallest ladder
/// the loader accepts (twice [`super::limits::MAX_LEVEL_REACH_M`], 4096 m)
/// at [`CLIMBER_STEP`].
pub const MAX_CLIMBER_SLICES: usize =
    (2.0 * super::limits::MAX_LEVEL_REACH_M / CLIMBER_STEP) as usize + 1;

/// One-way planks lower over a walkable floor than the knight is tall (with
/// the plank's drawn thickness): walking under one, his head passes through
/// it (a plank is no ceiling). One warning per plank, naming its cells.
fn low_planks(loaded: &LoadedLevel) -> Vec<Diagnostic> {
    let level = &loaded.level;
    let t = TILE_METRES;
    let mut out = Vec::new();
    for s in level
        .segments
        .iter()
        .filter(|s| s.kind == FloorKind::OneWay)
    {
        let c0 = (s.x0 / t + GRID_EPSILON).floor() as i32;
        let c1 = (s.x1 / t - GRID_EPSILON).ceil() as i32;
        let mut low: Option<(i32, i32, f32)> = None;
        for col in c0..c1 {
            let x = (col as f32 + 0.5) * t;
            let Some(under) = level.floor_below_filtered(
                x,
                s.y0 - PLANK_THICKNESS,
                BODY_HEIGHT + PLANK_THICKNESS,
                FloorFilter::Static,
            ) else {
                continue;
            };
            if under.segment.slope().abs() > MAX_WALKABLE_SLOPE {
                continue;
            }
            let gap = s.y0 - PLANK_THICKNESS - under.y;
            if gap < BODY_HEIGHT - GRID_EPSILON {
                low = Some(low.map_or((col, col, gap), |(a, _, g)| (a, col, g.min(gap))));
            }
        }
        if let Some((a, b, gap)) = low {
            let row = loaded.grid.bottom_row - (s.y0 / t).round() as i32 + 1;
            out.push(Diagnostic {
                severity: Severity::Warning,
                location: format!("cells ({a},{row})..({b},{row})"),
                message: format!(
                    "one-way plank at {:.2} m is {gap:.2} m over the floor under it, lower than the knight ({BODY_HEIGHT} m): walking under it his head passes through the plank",
                    s.y0
                ),
            });
        }
    }
    out
}

/// Every checkpoint must stand on a static floor (within a step,
/// [`MAX_STEP_UP`], above or below its feet) with room for the knight's
/// body above it: a player respawned there must land where they stand,
/// not fall again or start inside a wall.
fn checkpoints(loaded: &LoadedLevel) -> Vec<Diagnostic> {
    let level = &loaded.level;
    let mut out = Vec::new();
    for (i, c) in level.checkpoints.iter().enumerate() {
        let id = loaded.checkpoint_ids.get(i).copied().unwrap_or_default();
        let place = format!("'{}' at ({:.2}, {:.2}) m", c.name, c.pos.x, c.pos.y);
        let floor = level.floor_below_filtered(
            c.pos.x,
            c.pos.y + MAX_STEP_UP,
            2.0 * MAX_STEP_UP,
            FloorFilter::Static,
        );
        let mut problem = None;
        match floor {
            None => {
                problem = Some(format!(
                    "checkpoint {place} stands on no floor (none within {MAX_STEP_UP} m of its feet): a player respawned there would fall"
                ))
            }
            Some(f) => {
                let half = BODY_HALF_WIDTH;
                if level.solid_overlaps(
                    c.pos.x - half,
                    c.pos.x + half,
                    f.y + MAX_STEP_UP,
                    f.y + BODY_HEIGHT,
                ) {
                    problem = Some(format!(
                        "checkpoint {place} has no room for the knight ({BODY_HEIGHT} m tall, {:.2} m wide) above its floor",
                        2.0 * half
                    ));
                }
            }
        }
        if let Some(message) = problem {
            out.push(Diagnostic {
                severity: Severity::Error,
                location: format!("object {id}"),
                message,
            });
        }
    }
    out
}

/// Whether a floor at the ladder's top height lies beside it (or over it:
/// a plank the ladder passes through).
fn ladder_top_has_floor(level: &Level, l: &Ladder) -> bool {
    floor_near(level, l.x, l.top, LADDER_TOP_FLOOR_REACH)
}

/// Whether a floor at the ladder's foot lies within reach of it.
fn ladder_bottom_has_floor(level: &Level, l: &Ladder) -> bool {
    floor_near(level, l.x, l.bottom, LADDER_REACH)
}

/// Whether a static floor within `reach` of `x` has a height within
/// [`LADDER_END_TOLERANCE`] of `y`.
fn floor_near(level: &Level, x: f32, y: f32, reach: f32) -> bool {
    const SAMPLES: usize = 24;
    (0..=SAMPLES).any(|k| {
        let px = x - reach + 2.0 * reach * k as f32 / SAMPLES as f32;
        level
            .floor_below_filtered(
                px,
                y + LADDER_END_TOLERANCE,
                2.0 * LADDER_END_TOLERANCE,
                FloorFilter::Static,
            )
            .is_some()
    })
}

/// Ceilings lower than the knight ([`BODY_HEIGHT`]) over a walkable floor,
/// one warning per run of tile columns under the same ceiling: the floor
/// there cannot be walked (the body does not fit), which is rarely meant.
/// A warning, not an error: reachability says whether it matters.
fn headroom(loaded: &LoadedLevel) -> Vec<Diagnostic> {
    let level = &loaded.level;
    let t = TILE_METRES;
    let row_of = |y: f32| loaded.grid.bottom_row - (y / t).round() as i32;
    // (first column, last column, ceiling row, ceiling height, floor height)
    let mut low: Vec<(i32, i32, i32, f32, f32)> = Vec::new();
    for s in &level.segments {
        if s.slope().abs() > MAX_WALKABLE_SLOPE {
            continue;
        }
        let c0 = (s.x0 / t + GRID_EPSILON).floor() as i32;
        let c1 = (s.x1 / t - GRID_EPSILON).ceil() as i32;
        for col in c0..c1 {
            let xa = (col as f32 * t).max(s.x0);
            let xb = ((col + 1) as f32 * t).min(s.x1);
            if xb - xa < GRID_EPSILON {
                continue;
            }
            let y = s.height_at(xa).max(s.height_at(xb));
            let Some(c) = static_ceiling(level, xa, xb, y) else {
                continue;
            };
            if c - y >= BODY_HEIGHT - GRID_EPSILON {
                continue;
            }
            let row = row_of(c);
            match low.last_mut() {
                Some(r) if r.1 + 1 == col && r.2 == row && (r.4 - y).abs() < MAX_STEP_UP => {
                    r.1 = col;
                    r.4 = r.4.min(y);
                }
                _ => low.push((col, col, row, c, y)),
            }
        }
    }
    low.into_iter()
        .map(|(a, b, row, c, y)| Diagnostic {
            severity: Severity::Warning,
            location: if a == b {
                format!("cell ({a},{row})")
            } else {
                format!("cells ({a},{row})..({b},{row})")
            },
            message: format!(
                "headroom of {:.2} m under the ceiling over the floor at height {y:.2} m is lower than the knight ({BODY_HEIGHT} m): the floor cannot be walked",
                c - y
            ),
        })
        .collect()
}

/// The lowest static solid's underside over `xa..xb` above `y`, within the
/// knight's height.
fn static_ceiling(level: &Level, xa: f32, xb: f32, y: f32) -> Option<f32> {
    level
        .solids
        .iter()
        .filter(|s| s.x1 > xa + GRID_EPSILON && s.x0 < xb - GRID_EPSILON)
        .map(|s| s.bottom)
        .filter(|&b| b >= y - GRID_EPSILON && b < y + BODY_HEIGHT)
        .fold(None, |m: Option<f32>, b| Some(m.map_or(b, |m| m.min(b))))
}

/// Moving platforms whose path leaves the map, or whose box swept along
/// the path enters a solid.
fn platform_paths(loaded: &LoadedLevel) -> Vec<Diagnostic> {
    let level = &loaded.level;
    let (x_lo, x_hi) = level.extent();
    let y_top = (loaded.grid.bottom_row + 1) as f32 * TILE_METRES;
    let mut out = Vec::new();
    for (i, p) in level.platforms.iter().enumerate() {
        let loc = format!(
            "object {}",
            loaded.platform_ids.get(i).copied().unwrap_or_default()
        );
        let outside = p.path.iter().find(|q| {
            q.x - p.half_width < x_lo - GRID_EPSILON
                || q.x + p.half_width > x_hi + GRID_EPSILON
                || q.y > y_top + GRID_EPSILON
                || q.y - p.thickness < level.kill_height
        });
        if let Some(q) = outside {
            out.push(Diagnostic {
                severity: Severity::Error,
                location: loc.clone(),
                message: format!(
                    "moving platform path point ({:.2}, {:.2}) m puts the platform outside the map (x {x_lo:.2}..{x_hi:.2} m, above the kill height {:.2} m, below the top {y_top:.2} m)",
                    q.x, q.y, level.kill_height
                ),
            });
        }
        let hit = sweep(p).find(|q| {
            level.solids.iter().any(|s| {
                let (x0, x1) = (q.x - p.half_width, q.x + p.half_width);
                let (y0, y1) = (q.y - p.thickness, q.y);
                if !(s.x1 > x0 + GRID_EPSILON && s.x0 < x1 - GRID_EPSILON) {
                    return false;
                }
                let a = x0.max(s.x0);
                let b = x1.min(s.x1);
                let top_at = |x: f32| s.top0 + (s.top1 - s.top0) * (x - s.x0) / (s.x1 - s.x0);
                top_at(a).max(top_at(b)) > y0 + GRID_EPSILON && s.bottom < y1 - GRID_EPSILON
            })
        });
        if let Some(q) = hit {
            out.push(Diagnostic {
                severity: Severity::Error,
                location: loc,
                message: format!(
                    "moving platform's box enters a solid with its top centre at ({:.2}, {:.2}) m on its path",
                    q.x, q.y
                ),
            });
        }
    }
    out
}

/// Points every [`PLATFORM_SWEEP_STEP`] along a platform's path, both ends
/// of every leg included.
fn sweep(p: &MovingPlatform) -> impl Iterator<Item = Vec2> + '_ {
    p.path.windows(2).flat_map(|w| {
        let n = (w[0].distance(w[1]) / PLATFORM_SWEEP_STEP).ceil().max(1.0) as usize;
        (0..=n).map(move |k| w[0].lerp(w[1], k as f32 / n as f32))
    })
}

/// The spawn and exit must stand on floors, and the exit must be reachable
/// from the spawn through the level's reachability graph; when it is not,
/// the finding names the first place beyond the reached ones on the way to
/// the exit and the place reached nearest to the exit.
fn reachability(loaded: &LoadedLevel) -> Vec<Diagnostic> {
    let level = &loaded.level;
    let mut out = Vec::new();
    let graph = match Graph::build(level, &MoveParams::default()) {
        Ok(g) => g,
        Err(e) => {
            out.push(Diagnostic {
                severity: Severity::Error,
                location: "level".into(),
                message: format!("reachability not checked: {e}"),
            });
            return out;
        }
    };
    let spawn = graph.node_below(level, level.spawn, level.spawn.y - level.kill_height);
    let exit = graph.node_below(level, level.exit, EXIT_RADIUS);
    let (Some(spawn), Some(exit)) = (spawn, exit) else {
        for (name, id, p, n) in [
            ("spawn", loaded.spawn_id, level.spawn, spawn),
            ("exit", loaded.exit_id, level.exit, exit),
        ] {
            if n.is_none() {
                out.push(Diagnostic {
                    severity: Severity::Error,
                    location: format!("object {id}"),
                    message: format!(
                        "{name} at ({:.2}, {:.2}) m is unreachable: no walkable ground under it",
                        p.x, p.y
                    ),
                });
            }
        }
        return out;
    };
    let seen = graph.reachable_from(spawn, &[]);
    if seen[exit] {
        return out;
    }
    let nodes = &graph.nodes;
    let to_exit = |n: &Node| n.distance_to(level.exit);
    let mut msg = format!(
        "exit at ({:.2}, {:.2}) m is unreachable from the spawn",
        level.exit.x, level.exit.y
    );
    // Places are floors (a moving platform's node spans its whole path).
    let floor = |i: usize| nodes[i].kind == NodeKind::Stretch;
    let reached = (0..nodes.len())
        .filter(|&i| seen[i] && floor(i))
        .min_by(|&a, &b| to_exit(&nodes[a]).total_cmp(&to_exit(&nodes[b])));
    if let Some(ri) = reached {
        let r = &nodes[ri];
        // The first place not reached: the unreached node nearest to the
        // farthest one reached, among those no farther from the exit.
        let points: Vec<Vec2> = graph.node_points(ri).collect();
        let gap = |n: &Node| {
            points
                .iter()
                .map(|&p| n.distance_to(p))
                .fold(f32::INFINITY, f32::min)
        };
        let first = (0..nodes.len())
            .filter(|&i| !seen[i] && floor(i) && to_exit(&nodes[i]) <= to_exit(r) + 1e-3)
            .min_by(|&a, &b| gap(&nodes[a]).total_cmp(&gap(&nodes[b])))
            .unwrap_or(exit);
        msg += &format!(
            ": the first place not reached is {}; the farthest reached is {r}",
            nodes[first]
        );
    }
    out.push(Diagnostic {
        severity: Severity::Error,
        location: format!("object {}", loaded.exit_id),
        message: msg,
    });
    out
}

/// Loads and checks one file.
pub fn check_file(path: &std::path::Path) -> FileReport {
    check_source(&LevelSource::File(path.to_path_buf()))
}

/// Resolves a level argument (any name `--level` takes, or a path) and
/// checks it; an unknown name is an error finding. `builtin` passes with a
/// warning: it is made by code, so there is no map to check (its floors,
/// ladders and exit are tested with that code and by the autopilot).
pub fn check_named(given: &str) -> FileReport {
    match LevelSource::resolve(given) {
        Ok(LevelSource::Builtin) => FileReport {
            file: given.to_string(),
            loaded: true,
            diagnostics: vec![Diagnostic {
                severity: Severity::Warning,
                location: "level".into(),
                message:
                    "the built-in level is made by code, not a Tiled map: there is nothing to check"
                        .into(),
            }],
        },
        Ok(source) => check_source(&source),
        Err(e) => unloaded(given.to_string(), "level".into(), e.to_string()),
    }
}

/// A report for a level that did not load.
fn unloaded(file: String, location: String, message: String) -> FileReport {
    FileReport {
        file,
        loaded: false,
        diagnostics: vec![Diagnostic {
            severity: Severity::Error,
            location,
            message,
        }],
    }
}

/// Loads and checks a resolved Tiled level.
fn check_source(source: &LevelSource) -> FileReport {
    let file = source.label();
    let Some(loaded) = source.load_tiled() else {
        return unloaded(file, "level".into(), "not a Tiled map".into());
    };
    match loaded {
        Ok(loaded) => FileReport {
            diagnostics: check_level(&loaded),
            file,
            loaded: true,
        },
        Err(e) => {
            let (location, message) = match &e {
                super::LevelError::Invalid {
                    location, reason, ..
                } => (location.clone(), reason.clone()),
                super::LevelError::Tiled { source, .. } => ("map".to_string(), source.to_string()),
            };
            unloaded(file, location, message)
        }
    }
}

/// Runs `ironstep check-level`: prints the findings; fails when any file has an error.
pub fn run(args: &CheckArgs) -> Result<()> {
    let reports: Vec<FileReport> = args.files.iter().map(|p| check_named(p)).collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        for r in &reports {
            for d in &r.diagnostics {
                println!("{}:{d}", r.file);
            }
        }
    }
    let bad = reports.iter().filter(|r| r.has_errors()).count();
    if bad > 0 {
        bail!("{bad} of {} level files have errors", reports.len());
    }
    if !args.json {
        println!("{} level files OK", reports.len());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testmaps::{ladder, map, platform, point};
    use super::*;

    /// A 3 m wall between low ground (columns 0–5) and high ground (6–11).
    const WALL: &[&str] = &[
        "............",
        "......######",
        "......######",
        "......######",
        "......######",
        "......######",
        "......######",
        "############",
    ];

    fn ends() -> String {
        point(1, "Spawn", 1.0, 7) + &point(2, "Exit", 10.0, 1)
    }

    /// A `NoGrab` rectangle over [`WALL`]'s corner: without it the wall's
    /// top is reached by catching the corner (see `sim::ledge`).
    fn no_grab_wall() -> String {
        "<object id=\"9\" type=\"NoGrab\" x=\"176\" y=\"16\" width=\"32\" height=\"32\"/>".into()
    }

    fn check(layers: &[&[&str]], objects: &str) -> Vec<String> {
        let l = super::super::from_tmx_str(&map(layers, objects), "t.tmx").unwrap();
        check_level(&l)
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_wall_with_a_good_ladder_passes() {
        let errs = check(
            &[WALL],
            &(ends() + &ladder(3, 170.0, 32.0, 16.0, 192.0, 0.30)),
        );
        assert!(errs.is_empty(), "{errs:?}");
    }

    #[test]
    fn exit_behind_a_wall_without_ladder_is_unreachable() {
        // Reached by a grab of the wall's corner...
        assert!(check(&[WALL], &ends()).is_empty());
        // ...and out of reach where the corner is not grabbable.
        let errs = check(&[WALL], &(ends() + &no_grab_wall()));
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with("object 2") && errs[0].contains("unreachable"),
            "{errs:?}"
        );
    }

    #[test]
    fn an_unreachable_exit_names_the_first_place_not_reached_and_the_farthest_reached() {
        let errs = check(&[WALL], &(ends() + &no_grab_wall()));
        assert!(
            errs[0].contains(
                "the first place not reached is the floor from x 3.00 to 5.75 m at height 3.50..3.50 m"
            ) && errs[0]
                .contains("the farthest reached is the floor from x 0.25 to 2.75 m at height 0.50..0.50 m"),
            "{errs:?}"
        );
    }

    #[test]
    fn a_ladder_whose_foot_hangs_in_the_air_is_an_error() {
        // The good ladder, and one beside it from 2 m above the low floor
        // to the top.
        let errs = check(
            &[WALL],
            &(ends()
                + &ladder(3, 170.0, 32.0, 16.0, 192.0, 0.30)
                + &ladder(4, 160.0, 32.0, 16.0, 96.0, 0.30)),
        );
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with("object 4")
                && errs[0].contains("ladder bottom at 2.00 m has no floor"),
            "{errs:?}"
        );
    }

    #[test]
    fn a_ladder_far_from_the_origin_is_walked_in_bounded_slices() {
        // Built by code, past what the loader accepts: at 4,000 km a float
        // that adds 5 cm at a time never moves, so the walk must count.
        let ground = vec![crate::sim::world::GroundSegment::ground(0.0, 4.0, 0.0, 0.0)];
        for bottom in [4.0e6f32, -4.0e6, 1.0e30] {
            let ladder = Ladder {
                x: 1.0,
                bottom,
                top: bottom + 16.0,
                rung_spacing: 0.3,
                first_rung_offset: 0.3,
                half_width: 0.2,
            };
            let level = Level::from_profile(
                "far",
                ground.clone(),
                vec![ladder],
                Vec2::new(0.5, 0.0),
                Vec2::new(3.5, 0.0),
                -4.0,
            );
            assert_eq!(climber_blocked(&level, &level.ladders[0]), None, "{bottom}");
        }
        const { assert!(MAX_CLIMBER_SLICES >= 81_920) };
    }

    /// Findings of every severity.
    fn findings(layers: &[&[&str]], objects: &str) -> Vec<String> {
        let l = super::super::from_tmx_str(&map(layers, objects), "t.tmx").unwrap();
        check_level(&l).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_ladder_hugging_a_wall_cannot_be_climbed_and_is_an_error() {
        // Centre 3 cm from the wall's face: a climber's body (0.15 m either
        // side) would be in the wall.
        let errs = check(
            &[WALL],
            &(ends() + &ladder(3, 182.0, 32.0, 16.0, 192.0, 0.30)),
        );
        assert!(
            errs.iter().any(|e| e.starts_with("object 3")
                && e.contains("overlaps a solid between 1.00 and 3.50 m")),
            "{errs:?}"
        );
        // The good ladder, 0.22 m from the face, passes (tested above).
    }

    #[test]
    fn a_plank_lower_than_the_knight_over_a_floor_is_a_warning() {
        let rows: &[&str] = &[
            "..........",
            "..........",
            "...---....",
            "..........",
            "..........",
            "######----",
            "##########",
        ];
        let objs = point(1, "Spawn", 0.0, 5) + &point(2, "Exit", 9.0, 6);
        let all = findings(&[rows], &objs);
        let planks: Vec<&String> = all.iter().filter(|f| f.contains("one-way plank")).collect();
        assert_eq!(planks.len(), 2, "{all:?}");
        assert!(
            planks[0].starts_with("cells (3,2)..(5,2): warning: one-way plank at 2.50 m is 1.38 m over the floor under it"),
            "{planks:?}"
        );
        // The plank on the ground's level (columns 6–9) has 0.38 m under it.
        assert!(planks[1].starts_with("cells (6,5)..(9,5)"), "{planks:?}");
    }

    #[test]
    fn a_ceiling_lower_than_the_knight_is_reported_with_its_cells() {
        // A slab 1 m over the floor at columns 4–7 (row 1): a crawl space.
        let rows: &[&str] = &[
            "............",
            "....####....",
            "............",
            "............",
            "############",
        ];
        let objs = point(1, "Spawn", 0.0, 4) + &point(2, "Exit", 2.0, 4);
        let all = findings(&[rows], &objs);
        assert_eq!(all.len(), 1, "{all:?}");
        assert!(
            all[0].starts_with("cells (4,1)..(7,1): warning: headroom of 1.00 m"),
            "{all:?}"
        );
        // Two tiles higher, the knight fits: nothing to report.
        let high: &[&str] = &[
            "....####....",
            "............",
            "............",
            "............",
            "............",
            "############",
        ];
        let objs = point(1, "Spawn", 0.0, 5) + &point(2, "Exit", 11.0, 5);
        assert!(findings(&[high], &objs).is_empty());
    }

    #[test]
    fn a_moving_platform_through_a_wall_or_out_of_the_map_is_an_error() {
        // Two ledges over a pit; a pillar stands in the middle of the pit.
        let rows: &[&str] = &[
            "......................",
            "......................",
            "#####.......#....#####",
            "#####.......#....#####",
        ];
        let objs = point(1, "Spawn", 1.0, 2) + &point(2, "Exit", 20.0, 2);
        let through = platform(5, rows.len(), &[(3.25, 1.0), (7.75, 1.0)], 1.5, 2.0, 1.0);
        let errs = check(&[rows], &(objs.clone() + &through));
        assert!(
            errs.iter().any(|e| e.starts_with("object 5")
                && e.contains("enters a solid with its top centre at (5.30, 1.00) m")),
            "{errs:?}"
        );
        let outside = platform(5, rows.len(), &[(3.25, 1.0), (3.25, 9.0)], 1.5, 2.0, 1.0);
        let errs = check(&[rows], &(objs + &outside));
        assert!(
            errs.iter().any(|e| e.starts_with("object 5")
                && e.contains("path point (3.25, 9.00) m puts the platform outside the map")),
            "{errs:?}"
        );
    }

    #[test]
    fn a_moving_platform_over_a_pit_makes_the_exit_reachable() {
        let rows: &[&str] = &[
            "......................",
            "......................",
            "#####............#####",
            "#####............#####",
        ];
        let objs = point(1, "Spawn", 1.0, 2) + &point(2, "Exit", 20.0, 2);
        let errs = check(&[rows], &objs);
        assert!(errs.iter().any(|e| e.contains("unreachable")), "{errs:?}");
        let ride = platform(5, rows.len(), &[(3.25, 1.0), (7.75, 1.0)], 1.5, 2.0, 1.0);
        let errs = check(&[rows], &(objs + &ride));
        assert!(errs.is_empty(), "{errs:?}");
    }

    #[test]
    fn a_one_way_plank_is_dropped_through_to_the_exit() {
        let rows: &[&str] = &[
            "..........",
            "..........",
            "##------##",
            "##......##",
            "##......##",
            "##......##",
            "##......##",
            "##########",
        ];
        let errs = check(
            &[rows],
            &(point(1, "Spawn", 4.0, 2) + &point(2, "Exit", 4.0, 7)),
        );
        assert!(errs.is_empty(), "{errs:?}");
        // The other way round, the plank is 2.5 m up: out of a jump's
        // reach, and reached only by catching a wall's corner beside it.
        let up = point(1, "Spawn", 4.0, 7) + &point(2, "Exit", 4.0, 2);
        assert!(check(&[rows], &up).is_empty());
        let no_grab = "<object id=\"9\" type=\"NoGrab\" x=\"48\" y=\"48\" width=\"32\" height=\"32\"/><object id=\"10\" type=\"NoGrab\" x=\"240\" y=\"48\" width=\"32\" height=\"32\"/>";
        let errs = check(&[rows], &(up + no_grab));
        assert!(errs.iter().any(|e| e.contains("unreachable")), "{errs:?}");
    }

    #[test]
    fn rung_spacing_beyond_the_rigs_reach_is_an_error() {
        for bad in [0.15f32, 0.5] {
            let errs = check(
                &[WALL],
                &(ends() + &ladder(3, 170.0, 32.0, 16.0, 192.0, bad)),
            );
            assert_eq!(errs.len(), 1, "{errs:?}");
            assert!(
                errs[0].starts_with("object 3") && errs[0].contains("rung spacing"),
                "{errs:?}"
            );
        }
    }

    #[test]
    fn ladder_top_without_floor_is_an_error() {
        // A ladder on the low side reaching 1 m above the high floor.
        let errs = check(
            &[WALL],
            &(ends()
                + &ladder(3, 170.0, 32.0, 16.0, 192.0, 0.30)
                + &ladder(4, 40.0, 0.0, 16.0, 224.0, 0.30)),
        );
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with("object 4") && errs[0].contains("no floor"),
            "{errs:?}"
        );
    }

    #[test]
    fn slopes_steeper_than_walkable_are_errors() {
        let rows: &[&str] = &["........", "...s....", "########"];
        let objs = point(1, "Spawn", 0.0, 2) + &point(2, "Exit", 7.0, 2);
        let errs = check(&[rows], &objs);
        assert!(
            errs.iter()
                .any(|e| e.starts_with("column 3") && e.contains("60.0°")),
            "{errs:?}"
        );
    }

    #[test]
    fn spawn_over_a_gap_is_unreachable() {
        let rows: &[&str] = &["........", "###..###"];
        let objs = point(1, "Spawn", 3.0, 1) + &point(2, "Exit", 7.0, 1);
        let errs = check(&[rows], &objs);
        assert!(
            errs.iter()
                .any(|e| e.starts_with("object 1") && e.contains("spawn")),
            "{errs:?}"
        );
    }

    #[test]
    fn a_gap_wider_than_a_jump_cuts_the_exit_off_but_a_narrow_one_does_not() {
        let narrow: &[&str] = &["...................", "########...########"];
        let wide: &[&str] = &["...................", "####...........####"];
        let objs = point(1, "Spawn", 0.0, 1) + &point(2, "Exit", 18.0, 1);
        assert!(check(&[narrow], &objs).is_empty());
        let errs = check(&[wide], &objs);
        assert!(errs.iter().any(|e| e.contains("unreachable")), "{errs:?}");
    }

    #[test]
    fn overlapping_solids_in_two_layers_are_errors() {
        let a: &[&str] = &["......", "######"];
        let b: &[&str] = &["......", "..#..."];
        let objs = point(1, "Spawn", 0.0, 1) + &point(2, "Exit", 5.0, 1);
        let errs = check(&[a, b], &objs);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].contains("tile (2,1)") && errs[0].contains("overlapping solids"),
            "{errs:?}"
        );
    }

    #[test]
    fn a_checkpoint_in_the_air_is_an_error_naming_it_and_one_on_the_ground_passes() {
        let on_ground = point(3, "Checkpoint", 3.0, 7);
        let errs = check(
            &[WALL],
            &(ends() + &ladder(4, 170.0, 32.0, 16.0, 192.0, 0.30) + &on_ground),
        );
        assert!(errs.is_empty(), "{errs:?}");
        // Named "ledge", two metres over the low ground (row boundary 3).
        let floating = "<object id=\"5\" name=\"ledge\" type=\"Checkpoint\" x=\"112\" y=\"96\"><point/></object>";
        let errs = check(
            &[WALL],
            &(ends() + &ladder(4, 170.0, 32.0, 16.0, 192.0, 0.30) + floating),
        );
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with("object 5: error: checkpoint 'ledge' at (1.75, 2.50) m")
                && errs[0].contains("stands on no floor"),
            "{errs:?}"
        );
    }

    #[test]
    fn unknown_classes_are_errors_for_the_checker() {
        let rows: &[&str] = &["..L...", "######"];
        let objs = point(1, "Spawn", 0.0, 1) + &point(2, "Exit", 5.0, 1);
        let errs = check(&[rows], &objs);
        assert!(errs.iter().any(|e| e.contains("'Lava'")), "{errs:?}");
    }

    #[test]
    fn climbable_spacing_comes_from_the_rig_and_the_climb_clip() {
        let (lo, hi) = climbable_rung_spacing();
        let (clip_lo, clip_hi) = clips::RUNG_SPACING_RANGE;
        assert!(lo >= clip_lo && hi <= clip_hi && lo < hi);
        let arm = skeleton::UPPER_ARM + skeleton::FOREARM;
        assert!(2.0 * hi <= ARM_REACH_FRACTION * arm + skeleton::UPPER_ARM + 1e-6);
        assert!(lo >= FOOT_CLEARANCE);
    }

    #[test]
    fn every_shipped_level_passes() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/levels");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "tmx") {
                let r = check_file(&path);
                assert!(
                    r.loaded && !r.has_errors(),
                    "{}: {:?}",
                    r.file,
                    r.diagnostics
                );
                n += 1;
            }
        }
        assert!(n >= 2, "at least two shipped levels");
    }
}
