//! `ironstep check-level FILE... [--json]`: finds what makes a level wrong
//! before anyone plays it, for designers and their CI.
//!
//! Findings: unknown classes and properties and overlapping solids (from the
//! loader), slopes steeper than walkable, ladders whose rung spacing the rig
//! cannot climb, ladder tops with no floor to step onto, and a spawn or exit
//! the player cannot reach. Each is printed as `file:location: message`; with
//! `--json`, one JSON document lists them all. The exit code is non-zero when
//! any file has an error.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use super::{Diagnostic, LoadedLevel, Severity};
use crate::knight::{clips, skeleton};
use crate::player::{LADDER_REACH, MAX_STEP_UP, MAX_WALKABLE_SLOPE, MoveParams};
use crate::world::{Ladder, Level};

/// How far beside a ladder's top a floor may be and still be stepped onto,
/// metres: the body half width plus a stride.
pub const LADDER_TOP_FLOOR_REACH: f32 = 0.6;
/// How close a floor must be to the ladder's top (or its foot) in height to
/// count, metres: a step the controller walks up.
pub const LADDER_END_TOLERANCE: f32 = MAX_STEP_UP;
/// Height kept in hand when judging whether a jump clears a ledge, metres: the
/// reachability search stays on the safe side of the controller's real arc.
pub const JUMP_SAFETY_MARGIN: f32 = 0.15;
/// Fraction of the straight arm a hand may reach to (the notes' ~0.9 × arm).
pub const ARM_REACH_FRACTION: f32 = 0.9;
/// Clearance a boot needs between two rungs, metres: ankle height above and
/// below the tread, so the foot fits between rungs.
pub const FOOT_CLEARANCE: f32 = 2.0 * skeleton::ANKLE_HEIGHT;

/// Arguments of `ironstep check-level`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Tiled maps (.tmx) to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
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
    for (i, s) in level.segments.iter().enumerate() {
        if s.slope().abs() > MAX_WALKABLE_SLOPE {
            let col = loaded.segment_columns.get(i).copied().unwrap_or_default();
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
        if !(lo - 1e-4..=hi + 1e-4).contains(&l.rung_spacing) {
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
            Some(r) if (r.x1 - s.x0).abs() < 1e-4 && (s.y0 - last_y1).abs() <= MAX_STEP_UP => {
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
        let ha = height(a.x1 - 1e-3);
        let hb = height(b.x0 + 1e-3);
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
    let file = path.display().to_string();
    match super::load(path) {
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
    }
}

/// Runs `ironstep check-level`: prints the findings; fails when any file has an error.
pub fn run(args: &CheckArgs) -> Result<()> {
    let reports: Vec<FileReport> = args.files.iter().map(|p| check_file(p)).collect();
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
