//! `ironstep check-level FILE... [--json]`: finds what makes a level wrong
//! before anyone plays it, for designers and their CI.
//!
//! Findings: unknown classes and properties and overlapping solids (from the
//! loader), slopes steeper than walkable, ladders whose rung spacing the rig
//! cannot climb, ladder tops with no floor to step onto, and a spawn or exit
//! the player cannot reach. Each is printed as `file:location: message`; with
//! `--json`, one JSON document lists them all. The exit code is non-zero when
//! any file has an error.

use anyhow::{Result, bail};
use clap::Args;

use super::shipped::LevelSource;
use super::{Diagnostic, GRID_EPSILON, LoadedLevel, Severity, TILE_METRES};
use crate::knight::{clips, skeleton};
use crate::sim::player::{LADDER_REACH, MAX_STEP_UP, MAX_WALKABLE_SLOPE, MoveParams};
use crate::sim::world::{Ladder, Level};

/// How far beside a ladder's top a floor may be and still be stepped onto,
/// metres: the body half width plus a stride.
pub const LADDER_TOP_FLOOR_REACH: f32 = 0.6;
/// How close a floor must be to the ladder's top (or its foot) in height to
/// count, metres: a step the controller walks up.
pub const LADDER_END_TOLERANCE: f32 = MAX_STEP_UP;
/// Height kept in hand when judging whether a jump clears a ledge, metres: the
/// reachability search stays on the safe side of the controller's real arc.
pub const JUMP_SAFETY_MARGIN: f32 = 0.15;
/// How far inside a run's end its edge height is probed, metres (the end
/// itself belongs to the next segment or to a gap).
const EDGE_PROBE: f32 = 1e-3;
/// Fraction of the straight arm a hand may reach to (the notes' ~0.9 × arm).
pub const ARM_REACH_FRACTION: f32 = 0.9;
/// Clearance a boot needs between two rungs, metres: ankle height above and
/// below the tread, so the foot fits between rungs.
pub const FOOT_CLEARANCE: f32 = 2.0 * skeleton::ANKLE_HEIGHT;

/// Arguments of `ironstep check-level`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Levels to check: Tiled maps (.tmx) or shipped levels' names
    /// (`tutorial`, `long`). The built-in level is not a Tiled map.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Print one JSON document instead of `file:location: message` lines.
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
    }
    out.extend(reachability(loaded));
    out
}

/// Whether a floor at the ladder's top height lies beside it.
fn ladder_top_has_floor(level: &Level, l: &Ladder) -> bool {
    floors_near(level, l.x, l.top).next().is_some()
}

/// Points of ground within [`LADDER_TOP_FLOOR_REACH`] of `x` whose height is
/// within [`LADDER_END_TOLERANCE`] of `y`.
fn floors_near(level: &Level, x: f32, y: f32) -> impl Iterator<Item = f32> + '_ {
    const SAMPLES: usize = 24;
    (0..=SAMPLES).filter_map(move |k| {
        let px =
            x - LADDER_TOP_FLOOR_REACH + 2.0 * LADDER_TOP_FLOOR_REACH * k as f32 / SAMPLES as f32;
        level
            .ground_height(px)
            .filter(|h| (h - y).abs() <= LADDER_END_TOLERANCE)
            .map(|_| px)
    })
}

/// A stretch of ground walkable end to end: no gap, no wall taller than a
/// step, no slope steeper than walkable.
#[derive(Clone, Copy, Debug)]
struct Run {
    x0: f32,
    x1: f32,
}

/// Splits the ground into walkable runs.
fn runs(level: &Level) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    let mut last_y1 = f32::NAN;
    for s in &level.segments {
        if s.slope().abs() > MAX_WALKABLE_SLOPE {
            last_y1 = f32::NAN;
            continue;
        }
        match out.last_mut() {
            Some(r)
                if (r.x1 - s.x0).abs() < GRID_EPSILON && (s.y0 - last_y1).abs() <= MAX_STEP_UP =>
            {
                r.x1 = s.x1;
            }
            _ => out.push(Run { x0: s.x0, x1: s.x1 }),
        }
        last_y1 = s.y1;
    }
    out
}

/// The highest a running jump rises at horizontal distance `dx` from take-off,
/// metres (negative once it falls below the take-off height): the controller's
/// parabola with its derived gravity and launch speed.
pub fn jump_rise_at(params: &MoveParams, dx: f32) -> f32 {
    let v = params.run_speed;
    let g = params.gravity();
    let v0 = params.launch_speed();
    let t_apex = v0 / g;
    let t = dx / v;
    if t <= t_apex {
        params.jump_height
    } else {
        v0 * t - 0.5 * g * t * t
    }
}

/// The spawn and exit must stand on ground, and the exit must be reachable
/// from the spawn by walking, jumping, dropping and climbing.
fn reachability(loaded: &LoadedLevel) -> Vec<Diagnostic> {
    let level = &loaded.level;
    let params = MoveParams::default();
    let runs = runs(level);
    let run_of = |x: f32| runs.iter().position(|r| r.x0 <= x && x < r.x1);
    let mut out = Vec::new();
    let spawn_run = run_of(level.spawn.x).filter(|_| level.ground_height(level.spawn.x).is_some());
    let exit_run = run_of(level.exit.x).filter(|_| level.ground_height(level.exit.x).is_some());
    let (Some(spawn_run), Some(exit_run)) = (spawn_run, exit_run) else {
        for (name, id, p, r) in [
            ("spawn", loaded.spawn_id, level.spawn, spawn_run),
            ("exit", loaded.exit_id, level.exit, exit_run),
        ] {
            if r.is_none() {
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
    // Directed edges between runs.
    let n = runs.len();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    let height = |x: f32| level.ground_height(x).unwrap_or(f32::NEG_INFINITY);
    for i in 0..n.saturating_sub(1) {
        let (a, b) = (runs[i], runs[i + 1]);
        let dx = (b.x0 - a.x1).max(0.0);
        let ha = height(a.x1 - EDGE_PROBE);
        let hb = height(b.x0 + EDGE_PROBE);
        if hb - ha <= jump_rise_at(&params, dx) - JUMP_SAFETY_MARGIN {
            edges[i].push(i + 1);
        }
        if ha - hb <= jump_rise_at(&params, dx) - JUMP_SAFETY_MARGIN {
            edges[i + 1].push(i);
        }
    }
    for l in &level.ladders {
        let foot: Vec<usize> = floors_near(level, l.x, l.bottom)
            .filter(|x| (x - l.x).abs() <= LADDER_REACH.max(LADDER_TOP_FLOOR_REACH))
            .filter_map(run_of)
            .collect();
        let top: Vec<usize> = floors_near(level, l.x, l.top).filter_map(run_of).collect();
        for &f in &foot {
            for &t in &top {
                edges[f].push(t);
                edges[t].push(f);
            }
        }
    }
    let mut seen = vec![false; n];
    let mut stack = vec![spawn_run];
    seen[spawn_run] = true;
    while let Some(i) = stack.pop() {
        for &j in &edges[i] {
            if !seen[j] {
                seen[j] = true;
                stack.push(j);
            }
        }
    }
    if !seen[exit_run] {
        let first_cut = (0..n).find(|&i| seen[i] && !seen.get(i + 1).copied().unwrap_or(true));
        let hint = first_cut.map_or(String::new(), |i| {
            format!("; the player gets stuck near x {:.2} m", runs[i].x1)
        });
        out.push(Diagnostic {
            severity: Severity::Error,
            location: format!("object {}", loaded.exit_id),
            message: format!(
                "exit at ({:.2}, {:.2}) m is unreachable from the spawn{hint}",
                level.exit.x, level.exit.y
            ),
        });
    }
    out
}

/// Loads and checks one file.
pub fn check_file(path: &std::path::Path) -> FileReport {
    check_source(&LevelSource::File(path.to_path_buf()))
}

/// Resolves a level argument (a shipped level's name or a path) and checks
/// it; an unknown name or `builtin` is an error finding.
pub fn check_named(given: &str) -> FileReport {
    match LevelSource::resolve(given) {
        Ok(LevelSource::Builtin) => unloaded(
            given.to_string(),
            "level".into(),
            "the built-in level is made by code, not a Tiled map: there is nothing to check".into(),
        ),
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
    use super::super::testmaps::{ladder, map, point};
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
        let errs = check(&[WALL], &ends());
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with("object 2") && errs[0].contains("unreachable"),
            "{errs:?}"
        );
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
    fn jump_rise_is_the_apex_near_and_falls_off_far() {
        let p = MoveParams::default();
        assert_eq!(jump_rise_at(&p, 0.0), p.jump_height);
        assert!(
            (jump_rise_at(&p, p.jump_distance)).abs() < 1e-4,
            "lands level at jump_distance"
        );
        assert!(jump_rise_at(&p, 2.0 * p.jump_distance) < -1.0);
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
