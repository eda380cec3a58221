//! The level as the simulation sees it: floors at any height (ground, one-way
//! planks, moving platforms), solids that block from the sides and from
//! below, ladders, spawn, exit and checkpoints — and the queries that collision, the foot
//! probes and the renderer share.
//!
//! The side-scroller plays in the XY plane (metres, +Y up). A floor is a
//! straight top surface ([`GroundSegment`]) with a [`FloorKind`]; a column may
//! hold any number of floors one above another. Solids ([`SolidBox`]) are
//! column-shaped blocks with a flat bottom and a straight (possibly sloped)
//! top: the walls, ceilings and the earth under the ground. Ground floors are
//! the exposed tops of solids, one-way floors stand alone, and each moving
//! platform ([`MovingPlatform`]) is a floor on a solid box that moves along a
//! path in the fixed step.
//!
//! Lookups go through a grid of [`INDEX_CELL`]-wide buckets over x, so their
//! cost depends on how many floors and solids share a column, never on the
//! level's length. Every query is allocation-free.
//!
//! The same structure serves the controller ([`Level::floor_below`],
//! [`Level::ceiling_above`], [`Level::wall_between`], [`Level::ladder_at`]),
//! every foot's IK probe and the meshes the renderer draws, so the knight
//! stands on what the player sees.

use glam::Vec2;

pub use crate::sim::ledge::NoGrab;

/// Width of one bucket of the spatial index, metres: one tile, so a floor or
/// solid the size of a tile is listed in one or two buckets.
pub const INDEX_CELL: f32 = 0.5;
/// How far above a point a floor may be and still count as "below" it,
/// metres: absorbs the rounding of feet that were snapped onto that floor.
pub const FLOOR_EPS: f32 = 1e-3;
/// Depth of the earth drawn and solid under the built-in level's ground.
const BUILTIN_GROUND_DEPTH: f32 = 4.0;

/// What a floor is, for the controller (one-way floors can be jumped up
/// through and dropped through), the foot IK (planted feet ride moving
/// platforms) and sounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloorKind {
    /// The top of a solid: ground, a floating block, a ledge.
    Ground,
    /// A one-way plank: solid from above only.
    OneWay,
    /// The top of moving platform `i` (index into [`Level::platforms`]).
    Platform(u16),
}

/// A straight piece of floor over `x0..x1`, rising from `y0` to `y1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundSegment {
    /// Left end, in metres.
    pub x0: f32,
    /// Right end (exclusive), in metres.
    pub x1: f32,
    /// Surface height at `x0`.
    pub y0: f32,
    /// Surface height at `x1`.
    pub y1: f32,
    /// What the floor is.
    pub kind: FloorKind,
}

impl GroundSegment {
    /// A ground floor (the top of a solid) from `(x0, y0)` to `(x1, y1)`.
    pub fn ground(x0: f32, x1: f32, y0: f32, y1: f32) -> Self {
        Self {
            x0,
            x1,
            y0,
            y1,
            kind: FloorKind::Ground,
        }
    }

    /// A flat one-way plank from `x0` to `x1` at height `y`.
    pub fn one_way(x0: f32, x1: f32, y: f32) -> Self {
        Self {
            x0,
            x1,
            y0: y,
            y1: y,
            kind: FloorKind::OneWay,
        }
    }

    /// Surface height at `x` (extrapolates outside the segment).
    #[inline]
    pub fn height_at(&self, x: f32) -> f32 {
        self.y0 + self.slope() * (x - self.x0)
    }

    /// Whether `x` lies over the segment (`x0 <= x < x1`).
    #[inline]
    pub fn covers(&self, x: f32) -> bool {
        self.x0 <= x && x < self.x1
    }

    /// Slope as rise over run.
    #[inline]
    pub fn slope(&self) -> f32 {
        (self.y1 - self.y0) / (self.x1 - self.x0)
    }

    /// Unit surface normal in the XY plane (pointing up).
    #[inline]
    pub fn normal(&self) -> Vec2 {
        Vec2::new(-self.slope(), 1.0).normalize()
    }

    /// Slope angle in radians (positive when rising to the right).
    pub fn angle(&self) -> f32 {
        self.slope().atan()
    }
}

/// A solid block: blocks from the sides and from below, over `x0..x1` from
/// `bottom` up to a straight top from `top0` (at `x0`) to `top1` (at `x1`).
/// Its side faces are `x0` (up to `top0`) and `x1` (up to `top1`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolidBox {
    /// Left face, metres.
    pub x0: f32,
    /// Right face, metres.
    pub x1: f32,
    /// Underside, metres.
    pub bottom: f32,
    /// Top at the left face.
    pub top0: f32,
    /// Top at the right face.
    pub top1: f32,
}

impl SolidBox {
    /// The highest point of the top.
    pub fn top_max(&self) -> f32 {
        self.top0.max(self.top1)
    }
}

/// How far a ladder's rails, with rungs at the ladder's spacing, reach above
/// its top, metres: the handhold a climber holds while climbing over the top
/// onto the floor (real fixed ladders' rails extend about a metre above the
/// landing for this). Hands hold these rungs; feet use the ladder's own.
pub const RAIL_EXTENSION: f32 = 0.9;

/// A ladder: a vertical strip the player can climb, with rungs at fixed spacing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ladder {
    /// Centre line, in metres.
    pub x: f32,
    /// Height of the ladder's foot (the floor it stands on).
    pub bottom: f32,
    /// Height of its top (the floor the climber steps onto).
    pub top: f32,
    /// Distance between rung centres (real fixed ladders: 0.25–0.36 m).
    pub rung_spacing: f32,
    /// Height of the first rung above `bottom`.
    pub first_rung_offset: f32,
    /// Half the distance between the rails, in metres (depth is Z, the ladder
    /// faces the camera, so the rails are at `x ± half_width`).
    pub half_width: f32,
}

impl Ladder {
    /// Heights of every rung, bottom to top.
    pub fn rung_heights(&self) -> impl Iterator<Item = f32> + '_ {
        let n = ((self.top - self.bottom - self.first_rung_offset) / self.rung_spacing).floor();
        let n = if n.is_finite() && n >= 0.0 {
            n as usize + 1
        } else {
            0
        };
        (0..n).map(move |i| self.bottom + self.first_rung_offset + i as f32 * self.rung_spacing)
    }

    /// The rung nearest to height `y`.
    pub fn nearest_rung(&self, y: f32) -> Option<f32> {
        self.rung_heights()
            .min_by(|a, b| (a - y).abs().total_cmp(&(b - y).abs()))
    }

    /// Heights a hand can hold: every rung, then the rungs of the rails'
    /// extension above the top ([`RAIL_EXTENSION`]) at the same spacing.
    pub fn grip_heights(&self) -> impl Iterator<Item = f32> + '_ {
        let last = self.rung_heights().last();
        let extra = match last {
            Some(r) if self.rung_spacing > 0.0 => {
                let n = ((self.top + RAIL_EXTENSION - r) / self.rung_spacing).floor();
                if n.is_finite() && n >= 1.0 {
                    n as usize
                } else {
                    0
                }
            }
            _ => 0,
        };
        self.rung_heights().chain(
            (1..=extra).map(move |k| last.unwrap_or(self.top) + k as f32 * self.rung_spacing),
        )
    }

    /// The hand hold nearest to height `y` ([`Ladder::grip_heights`]).
    pub fn nearest_grip(&self, y: f32) -> Option<f32> {
        self.grip_heights()
            .min_by(|a, b| (a - y).abs().total_cmp(&(b - y).abs()))
    }

    /// The height a limb reaching for the ladder at height `y` holds: a
    /// foot the nearest rung within half a spacing (none past the ladder's
    /// ends); a hand the nearest grip ([`Ladder::grip_heights`]) within half
    /// a spacing, or the highest grip when it is above the rails' top (the
    /// hand comes down to it while the climber rises over the top).
    pub fn hold_for(&self, y: f32, hand: bool) -> Option<f32> {
        let half = 0.5 * self.rung_spacing + 1e-4;
        if hand {
            let highest = self.grip_heights().last()?;
            if y > highest + half {
                return Some(highest);
            }
            self.nearest_grip(y).filter(|g| (g - y).abs() <= half)
        } else {
            self.nearest_rung(y).filter(|r| (r - y).abs() <= half)
        }
    }

    /// Top of the rails, metres.
    pub fn rail_top(&self) -> f32 {
        self.top + RAIL_EXTENSION
    }
}

/// A platform that moves back and forth along a path, waiting at each end.
///
/// Its position is a function of simulation time alone
/// ([`MovingPlatform::position_at`]), so every run, every thread count and
/// every replay sees it in the same place on the same step.
#[derive(Clone, Debug, PartialEq)]
pub struct MovingPlatform {
    /// The path of the platform's top centre, at least two points.
    pub path: Vec<Vec2>,
    /// Half its width, metres.
    pub half_width: f32,
    /// Its thickness below the top, metres.
    pub thickness: f32,
    /// Speed along the path, m/s.
    pub speed: f32,
    /// Seconds it waits at each end of the path.
    pub wait: f32,
    /// Top centre now (after the latest [`Level::advance_platforms`]).
    pub pos: Vec2,
    /// Top centre one step before.
    pub prev: Vec2,
}

impl MovingPlatform {
    /// A platform at the start of `path`.
    pub fn new(path: Vec<Vec2>, half_width: f32, thickness: f32, speed: f32, wait: f32) -> Self {
        let start = path.first().copied().unwrap_or(Vec2::ZERO);
        Self {
            path,
            half_width,
            thickness,
            speed,
            wait,
            pos: start,
            prev: start,
        }
    }

    /// Length of the path, metres.
    pub fn length(&self) -> f32 {
        self.path.windows(2).map(|w| w[0].distance(w[1])).sum()
    }

    /// Seconds for one round trip: there, wait, back, wait.
    pub fn period(&self) -> f32 {
        2.0 * (self.length() / self.speed.max(1e-3) + self.wait)
    }

    /// The point `d` metres along the path from its first point.
    pub fn point_along(&self, d: f32) -> Vec2 {
        let mut left = d.max(0.0);
        for w in self.path.windows(2) {
            let len = w[0].distance(w[1]);
            if left <= len && len > 0.0 {
                return w[0].lerp(w[1], left / len);
            }
            left -= len;
        }
        self.path.last().copied().unwrap_or(Vec2::ZERO)
    }

    /// Top centre at simulation time `t` seconds: waits at the first point,
    /// travels to the last, waits, travels back; repeats.
    pub fn position_at(&self, t: f32) -> Vec2 {
        let len = self.length();
        let speed = self.speed.max(1e-3);
        let travel = len / speed;
        let period = self.period();
        if period.is_nan() || period <= 0.0 || !t.is_finite() {
            return self.path.first().copied().unwrap_or(Vec2::ZERO);
        }
        let p = t.rem_euclid(period);
        let d = if p < self.wait {
            0.0
        } else if p < self.wait + travel {
            (p - self.wait) * speed
        } else if p < 2.0 * self.wait + travel {
            len
        } else {
            len - (p - 2.0 * self.wait - travel) * speed
        };
        self.point_along(d)
    }

    /// The platform's body now.
    pub fn solid(&self) -> SolidBox {
        SolidBox {
            x0: self.pos.x - self.half_width,
            x1: self.pos.x + self.half_width,
            bottom: self.pos.y - self.thickness,
            top0: self.pos.y,
            top1: self.pos.y,
        }
    }

    /// The platform's top now, as a floor of kind `Platform(index)`.
    pub fn floor(&self, index: usize) -> GroundSegment {
        GroundSegment {
            x0: self.pos.x - self.half_width,
            x1: self.pos.x + self.half_width,
            y0: self.pos.y,
            y1: self.pos.y,
            kind: FloorKind::Platform(index as u16),
        }
    }

    /// How far the platform moved in the latest step.
    pub fn delta(&self) -> Vec2 {
        self.pos - self.prev
    }
}

/// A floor found by a query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloorHit {
    /// Surface height at the query's x.
    pub y: f32,
    /// The floor segment (for a moving platform, its top now).
    pub segment: GroundSegment,
    /// Index into [`Level::segments`], or the platform's index for
    /// [`FloorKind::Platform`].
    pub index: usize,
}

impl FloorHit {
    /// What the floor is.
    pub fn kind(&self) -> FloorKind {
        self.segment.kind
    }

    /// Unit surface normal.
    pub fn normal(&self) -> Vec2 {
        self.segment.normal()
    }
}

/// Which floors a query accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloorFilter {
    /// Every floor.
    All,
    /// Every floor but one-way ones (e.g. while dropping through a plank).
    Solid,
    /// Every floor but the one-way floor at static index `i`.
    Except(usize),
    /// Static floors only (no moving platform).
    Static,
}

impl FloorFilter {
    #[inline]
    fn accepts(self, s: &GroundSegment, index: usize) -> bool {
        match self {
            FloorFilter::All => true,
            FloorFilter::Solid => s.kind != FloorKind::OneWay,
            FloorFilter::Except(i) => !(s.kind == FloorKind::OneWay && index == i),
            FloorFilter::Static => !matches!(s.kind, FloorKind::Platform(_)),
        }
    }
}

/// Items listed per x bucket: the flat spatial index behind every query.
#[derive(Clone, Debug)]
struct Buckets<T> {
    /// Left edge of bucket 0.
    x0: f32,
    /// `start[b]..start[b + 1]` are bucket b's entries in `items`.
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Buckets<T> {
    fn default() -> Self {
        Self {
            x0: 0.0,
            start: Vec::new(),
            items: Vec::new(),
        }
    }
}

impl<T: Copy> Buckets<T> {
    /// Lists each item in every bucket its span `(a, b)` touches.
    fn build(x0: f32, n: usize, spans: impl Iterator<Item = (f32, f32, T)> + Clone) -> Self {
        let bucket = |x: f32| (((x - x0) / INDEX_CELL).floor().max(0.0) as usize).min(n - 1);
        let mut count = vec![0u32; n + 1];
        for (a, b, _) in spans.clone() {
            for k in bucket(a)..=bucket(b) {
                count[k + 1] += 1;
            }
        }
        for k in 0..n {
            count[k + 1] += count[k];
        }
        let mut fill = count.clone();
        let mut items: Vec<Option<T>> = vec![None; count[n] as usize];
        for (a, b, item) in spans {
            for k in bucket(a)..=bucket(b) {
                items[fill[k] as usize] = Some(item);
                fill[k] += 1;
            }
        }
        Self {
            x0,
            start: count,
            items: items.into_iter().flatten().collect(),
        }
    }

    /// The bucket holding `x`, `None` outside the indexed range.
    #[inline]
    fn index(&self, x: f32) -> Option<usize> {
        let k = (x - self.x0) * (1.0 / INDEX_CELL);
        let n = self.start.len().saturating_sub(1);
        // At or above zero the cast's truncation is the floor (and `NaN`
        // fails the comparison): no call to libm's `floorf`, which the
        // x86-64 baseline has no instruction for, on every ground probe.
        // Cast through `u32`, shorter than to `usize` on x86-64 (no
        // unsigned 64-bit conversion before AVX-512): a `k` past
        // `u32::MAX` saturates there, past any level's bucket count, so the
        // same bucket or none.
        let i = k as u32 as usize;
        (k >= 0.0 && i < n).then_some(i)
    }

    #[inline]
    fn at(&self, x: f32) -> &[T] {
        match self.index(x) {
            Some(k) => &self.items[self.start[k] as usize..self.start[k + 1] as usize],
            None => &[],
        }
    }

    /// Every entry of the buckets covering `a..=b` (an entry may repeat).
    fn span(&self, a: f32, b: f32) -> impl Iterator<Item = T> + '_ {
        let n = self.start.len().saturating_sub(1);
        let (ka, kb) = (
            span_bucket(self.x0, n, a),
            (span_bucket(self.x0, n, b) + 1).min(n),
        );
        let (s, e) = if ka < kb {
            (self.start[ka] as usize, self.start[kb] as usize)
        } else {
            (0, 0)
        };
        self.items[s..e].iter().copied()
    }
}

/// The bucket of [`Buckets::span`]'s end `x` among `n` from `x0`: the floor
/// of its cell, clamped into `0..=n`. Clamped first and then truncated,
/// which within `0..=n` is the floor (and takes `NaN` to 0 as the cast
/// did): no call to libm's `floorf` (the x86-64 baseline has no
/// instruction for it), and a cast through `u32`, shorter than to `usize`
/// on x86-64, for a bucket count far below `u32::MAX`.
fn span_bucket(x0: f32, n: usize, x: f32) -> usize {
    ((x - x0) / INDEX_CELL).clamp(0.0, n as f32) as u32 as usize
}

/// A static floor as the index keeps it: what the floor query reads, in 20
/// bytes, beside its neighbours in the bucket (no trip to the segment list
/// until one is chosen).
#[derive(Clone, Copy, Debug)]
struct FloorRec {
    x0: f32,
    x1: f32,
    y0: f32,
    slope: f32,
    /// Index into [`Level::segments`].
    index: u32,
}

/// The spatial index of a level's static floors and solids.
#[derive(Clone, Debug, Default)]
struct SpatialIndex {
    floors: Buckets<FloorRec>,
    solids: Buckets<u32>,
}

/// A place a player who falls out of the level comes back to, once they
/// have passed it (a Tiled `Checkpoint` object).
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// Feet position, metres.
    pub pos: Vec2,
    /// The object's name in the map, or `checkpoint N` (counted from 1)
    /// when it has none: what the HUD and `check-level` call it.
    pub name: String,
}

/// A whole level.
///
/// Build one with [`Level::new`] (or the loader), which indexes its floors
/// and solids; after changing `segments` or `solids` call
/// [`Level::reindex`].
#[derive(Clone, Debug)]
pub struct Level {
    /// Display name.
    pub name: String,
    /// Static floors (ground tops and one-way planks), sorted by `x0`; they
    /// may overlap in x (one above another).
    pub segments: Vec<GroundSegment>,
    /// Solid blocks: walls, ceilings, the earth under ground floors.
    pub solids: Vec<SolidBox>,
    /// Ladders.
    pub ladders: Vec<Ladder>,
    /// Moving platforms.
    pub platforms: Vec<MovingPlatform>,
    /// Where the player starts (feet position).
    pub spawn: Vec2,
    /// Where the level ends (feet position).
    pub exit: Vec2,
    /// Below this height a falling player is lost and respawns.
    pub kill_height: f32,
    /// Checkpoints in the map's order (the spawn is not among them; the game
    /// treats it as the first). [`Level::new`] leaves this empty; the Tiled
    /// loader fills it from `Checkpoint` objects.
    pub checkpoints: Vec<Checkpoint>,
    /// Areas whose corners are not grabbable (Tiled `NoGrab` rectangles,
    /// see [`crate::sim::ledge`]). [`Level::new`] leaves this empty.
    pub no_grab: Vec<NoGrab>,
    index: SpatialIndex,
    /// [`Level::extent`], computed by [`Level::reindex`].
    ends: (f32, f32),
}

impl Level {
    /// A level of these floors, solids, ladders and platforms, indexed.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: impl Into<String>,
        mut segments: Vec<GroundSegment>,
        solids: Vec<SolidBox>,
        ladders: Vec<Ladder>,
        platforms: Vec<MovingPlatform>,
        spawn: Vec2,
        exit: Vec2,
        kill_height: f32,
    ) -> Self {
        segments.sort_by(|a, b| a.x0.total_cmp(&b.x0).then(a.y0.total_cmp(&b.y0)));
        let mut level = Self {
            name: name.into(),
            segments,
            solids,
            ladders,
            platforms,
            spawn,
            exit,
            kill_height,
            checkpoints: Vec::new(),
            no_grab: Vec::new(),
            index: SpatialIndex::default(),
            ends: (0.0, 0.0),
        };
        level.reindex();
        level
    }

    /// A level of these floors alone (no solids, ladders or platforms),
    /// spawning at the origin: a test's ground.
    #[cfg(test)]
    pub fn of_floors(name: &str, segments: Vec<GroundSegment>) -> Self {
        Self::new(
            name,
            segments,
            vec![],
            vec![],
            vec![],
            Vec2::ZERO,
            Vec2::X,
            -10.0,
        )
    }

    /// A level whose solids are the earth under each of `segments` (ground
    /// floors), down to 4 m below the lowest: the one-height-per-column
    /// profile of simple levels and tests.
    pub fn from_profile(
        name: impl Into<String>,
        segments: Vec<GroundSegment>,
        ladders: Vec<Ladder>,
        spawn: Vec2,
        exit: Vec2,
        kill_height: f32,
    ) -> Self {
        let lowest = segments
            .iter()
            .map(|s| s.y0.min(s.y1))
            .fold(f32::INFINITY, f32::min);
        let bottom = if lowest.is_finite() { lowest } else { 0.0 } - BUILTIN_GROUND_DEPTH;
        let solids = segments
            .iter()
            .filter(|s| s.kind == FloorKind::Ground)
            .map(|s| SolidBox {
                x0: s.x0,
                x1: s.x1,
                bottom,
                top0: s.y0,
                top1: s.y1,
            })
            .collect();
        Self::new(
            name,
            segments,
            solids,
            ladders,
            Vec::new(),
            spawn,
            exit,
            kill_height,
        )
    }

    /// Rebuilds the spatial index after `segments` or `solids` changed.
    pub fn reindex(&mut self) {
        self.ends = self.compute_extent();
        let (a, b) = self.ends;
        let x0 = (a / INDEX_CELL).floor() * INDEX_CELL;
        let n = (((b - x0) / INDEX_CELL).ceil().max(0.0) as usize + 1).max(1);
        self.index = SpatialIndex {
            floors: Buckets::build(
                x0,
                n,
                self.segments.iter().enumerate().map(|(i, s)| {
                    let rec = FloorRec {
                        x0: s.x0,
                        x1: s.x1,
                        y0: s.y0,
                        slope: s.slope(),
                        index: i as u32,
                    };
                    (s.x0, s.x1, rec)
                }),
            ),
            solids: Buckets::build(
                x0,
                n,
                self.solids
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (s.x0, s.x1, i as u32)),
            ),
        };
    }

    /// Moves every platform to where it is at simulation time `t` seconds
    /// (the previous position is kept for [`MovingPlatform::delta`]).
    pub fn advance_platforms(&mut self, t: f32) {
        for p in &mut self.platforms {
            p.prev = p.pos;
            p.pos = p.position_at(t);
        }
    }

    /// The nearest floor under `(x, y)`: the highest floor over `x` whose
    /// surface there is at most [`FLOOR_EPS`] above `y` and at most
    /// `max_drop` below it, moving platforms included. A floor above the
    /// point is never returned.
    #[inline]
    pub fn floor_below(&self, x: f32, y: f32, max_drop: f32) -> Option<FloorHit> {
        self.floor_below_filtered(x, y, max_drop, FloorFilter::All)
    }

    /// [`Level::floor_below`] over the floors `filter` accepts.
    pub fn floor_below_filtered(
        &self,
        x: f32,
        y: f32,
        max_drop: f32,
        filter: FloorFilter,
    ) -> Option<FloorHit> {
        let lo = y - max_drop;
        let hi = y + FLOOR_EPS;
        let mut best_y = f32::NEG_INFINITY;
        let mut best_i = u32::MAX;
        for r in self.index.floors.at(x) {
            if x < r.x0 || x >= r.x1 {
                continue;
            }
            let h = r.y0 + r.slope * (x - r.x0);
            if h <= hi
                && h >= lo
                && h > best_y
                && filter.accepts(&self.segments[r.index as usize], r.index as usize)
            {
                best_y = h;
                best_i = r.index;
            }
        }
        let mut best = (best_i != u32::MAX).then(|| FloorHit {
            y: best_y,
            segment: self.segments[best_i as usize],
            index: best_i as usize,
        });
        if filter == FloorFilter::Static {
            return best;
        }
        for (i, p) in self.platforms.iter().enumerate() {
            let s = p.floor(i);
            if s.covers(x) {
                let h = p.pos.y;
                if h <= hi && h >= lo && best.is_none_or(|b| h > b.y) {
                    best = Some(FloorHit {
                        y: h,
                        segment: s,
                        index: i,
                    });
                }
            }
        }
        best
    }

    /// The floor feet at `(x, y)` stand on: the highest of the solid floors
    /// (ground, moving platforms) up to `step_up` above `y` and the floors
    /// `filter` accepts at or below `y` (a one-way plank only from above),
    /// at most `drop` below `y`. One pass over the bucket: what the
    /// controller asks every step.
    pub fn support_below(
        &self,
        x: f32,
        y: f32,
        step_up: f32,
        drop: f32,
        filter: FloorFilter,
    ) -> Option<FloorHit> {
        let lo = y - drop;
        let mut best_y = f32::NEG_INFINITY;
        let mut best_i = u32::MAX;
        for r in self.index.floors.at(x) {
            if x < r.x0 || x >= r.x1 {
                continue;
            }
            let h = r.y0 + r.slope * (x - r.x0);
            if h < lo || h <= best_y || h > y + step_up + FLOOR_EPS {
                continue;
            }
            let s = &self.segments[r.index as usize];
            let one_way = s.kind == FloorKind::OneWay;
            let top = if one_way {
                y + FLOOR_EPS
            } else {
                y + step_up + FLOOR_EPS
            };
            if h <= top && (!one_way || filter.accepts(s, r.index as usize)) {
                best_y = h;
                best_i = r.index;
            }
        }
        let mut best = (best_i != u32::MAX).then(|| FloorHit {
            y: best_y,
            segment: self.segments[best_i as usize],
            index: best_i as usize,
        });
        for (i, p) in self.platforms.iter().enumerate() {
            let s = p.floor(i);
            let h = p.pos.y;
            if s.covers(x)
                && h >= lo
                && h <= y + step_up + FLOOR_EPS
                && best.is_none_or(|b| h > b.y)
            {
                best = Some(FloorHit {
                    y: h,
                    segment: s,
                    index: i,
                });
            }
        }
        best
    }

    /// The underside of the lowest solid (moving platforms included) over
    /// any x in `x0..x1` whose underside is at or above `y` and at most
    /// `max_rise` above it: the ceiling a body rising from `y` would hit.
    pub fn ceiling_above(&self, x0: f32, x1: f32, y: f32, max_rise: f32) -> Option<f32> {
        let mut best: Option<f32> = None;
        let mut consider = |s: &SolidBox| {
            if s.x1 > x0 && s.x0 < x1 && s.bottom >= y - FLOOR_EPS && s.bottom <= y + max_rise {
                best = Some(best.map_or(s.bottom, |b: f32| b.min(s.bottom)));
            }
        };
        for i in self.index.solids.span(x0, x1) {
            consider(&self.solids[i as usize]);
        }
        for p in &self.platforms {
            consider(&p.solid());
        }
        best
    }

    /// Every static solid (not a moving platform) whose span over x may
    /// meet `x0..=x1` (from the index's buckets: one may repeat, and one
    /// listed may lie a bucket away); the ledge query reads corners from them.
    pub fn solids_near(&self, x0: f32, x1: f32) -> impl Iterator<Item = &SolidBox> + '_ {
        self.index
            .solids
            .span(x0, x1)
            .map(|i| &self.solids[i as usize])
    }

    /// The static solid (not a moving platform) holding the point `p`
    /// strictly inside it, if any: under its top there and above its
    /// bottom. For loading and checks (the loader refuses a spawn buried in
    /// the ground), not the per-step path.
    pub fn solid_at(&self, p: Vec2) -> Option<&SolidBox> {
        self.index
            .solids
            .span(p.x, p.x)
            .map(|i| &self.solids[i as usize])
            .find(|s| {
                if !(s.x0 < p.x && p.x < s.x1) {
                    return false;
                }
                let top = s.top0 + (s.top1 - s.top0) * (p.x - s.x0) / (s.x1 - s.x0);
                s.bottom < p.y && p.y < top
            })
    }

    /// Whether a solid overlaps the box `x0..x1` × `y0..y1` (open
    /// intervals: touching is not overlapping), moving platforms included.
    pub fn solid_overlaps(&self, x0: f32, x1: f32, y0: f32, y1: f32) -> bool {
        let hit = |s: &SolidBox| {
            if !(s.x1 > x0 + FLOOR_EPS && s.x0 < x1 - FLOOR_EPS) {
                return false;
            }
            // The top under the box's span (the highest of the two ends).
            let a = x0.max(s.x0);
            let b = x1.min(s.x1);
            let top_at = |x: f32| s.top0 + (s.top1 - s.top0) * (x - s.x0) / (s.x1 - s.x0);
            let top = top_at(a).max(top_at(b));
            top > y0 + FLOOR_EPS && s.bottom < y1 - FLOOR_EPS
        };
        self.index
            .solids
            .span(x0, x1)
            .any(|i| hit(&self.solids[i as usize]))
            || self.platforms.iter().any(|p| hit(&p.solid()))
    }

    /// Where a body in the air at `x` (half width `half_width`, feet at
    /// `feet`) must be so that its legs clear the corners of solids beside
    /// it as it falls past them: a solid whose top lies within `band` above
    /// the feet (below the body's lower edge, `feet + band`, so not yet a
    /// wall for it) and which the body overlaps from one side (its centre
    /// outside the solid) may overlap it by at most the height its lower
    /// edge is still above that top. The corner so acts as a 45° chamfer
    /// that moves a falling body out continuously, the amount shrinking to
    /// nothing exactly when the solid's face would become a wall, instead
    /// of the body entering the solid's side and being pushed out of it in
    /// one step. `None` when no corner constrains it (or corners on both
    /// sides leave it no room).
    pub fn corner_clearance(&self, x: f32, half_width: f32, feet: f32, band: f32) -> Option<f32> {
        let (x0, x1) = (x - half_width, x + half_width);
        let edge = feet + band;
        let (mut lo, mut hi) = (f32::NEG_INFINITY, f32::INFINITY);
        let mut consider = |s: &SolidBox| {
            if s.x1 <= x0 + FLOOR_EPS || s.x0 >= x1 - FLOOR_EPS || s.bottom >= edge {
                return;
            }
            if x >= s.x1 {
                // Beside its right face: its top at that edge.
                let top = s.top1;
                if top > feet + FLOOR_EPS && top < edge {
                    lo = lo.max(s.x1 + half_width - (edge - top));
                }
            } else if x <= s.x0 {
                let top = s.top0;
                if top > feet + FLOOR_EPS && top < edge {
                    hi = hi.min(s.x0 - half_width + (edge - top));
                }
            }
        };
        for i in self.index.solids.span(x0, x1) {
            consider(&self.solids[i as usize]);
        }
        for p in &self.platforms {
            consider(&p.solid());
        }
        if lo > hi {
            return None;
        }
        let c = x.clamp(lo, hi);
        (c != x).then_some(c)
    }

    /// Where a body at `x` (half width `half_width`, heights `y_lo..y_hi`)
    /// that overlaps solids goes to be clear of them: the nearer of just
    /// left of the leftmost overlapped face and just right of the
    /// rightmost, if that place is free. `None` when nothing overlaps (or
    /// no side is free).
    pub fn push_out_x(&self, x: f32, half_width: f32, y_lo: f32, y_hi: f32) -> Option<f32> {
        let (x0, x1) = (x - half_width, x + half_width);
        let mut left = f32::INFINITY;
        let mut right = f32::NEG_INFINITY;
        let mut any = false;
        let mut consider = |s: &SolidBox| {
            let top = {
                let a = x0.max(s.x0);
                let b = x1.min(s.x1);
                let top_at = |x: f32| s.top0 + (s.top1 - s.top0) * (x - s.x0) / (s.x1 - s.x0);
                top_at(a).max(top_at(b))
            };
            if s.x1 > x0 + FLOOR_EPS
                && s.x0 < x1 - FLOOR_EPS
                && top > y_lo + FLOOR_EPS
                && s.bottom < y_hi - FLOOR_EPS
            {
                any = true;
                left = left.min(s.x0 - half_width);
                right = right.max(s.x1 + half_width);
            }
        };
        for i in self.index.solids.span(x0, x1) {
            consider(&self.solids[i as usize]);
        }
        for p in &self.platforms {
            consider(&p.solid());
        }
        if !any {
            return None;
        }
        let free = |c: f32| !self.solid_overlaps(c - half_width, c + half_width, y_lo, y_hi);
        let (near, far) = if x - left <= right - x {
            (left, right)
        } else {
            (right, left)
        };
        [near, far].into_iter().find(|&c| c.is_finite() && free(c))
    }

    /// The first wall a body crosses moving its feet from `from` to `to`
    /// horizontally: the body spans `x ± half_width` and heights `y_lo..y_hi`
    /// (open). A wall is a solid's side face (up to its top at that face)
    /// overlapping those heights that the body's leading edge would pass.
    /// Returns the feet's x where the body touches the face. Faces the body
    /// already overlaps are ignored, so a body never gets stuck in one.
    pub fn wall_between(
        &self,
        from: f32,
        to: f32,
        half_width: f32,
        y_lo: f32,
        y_hi: f32,
    ) -> Option<f32> {
        if (to - from).abs() < 1e-9 {
            return None;
        }
        let right = to > from;
        let lead_from = from + half_width.copysign(to - from);
        let lead_to = to + half_width.copysign(to - from);
        let mut best: Option<f32> = None;
        let mut consider = |s: &SolidBox| {
            let (face, face_top) = if right {
                (s.x0, s.top0)
            } else {
                (s.x1, s.top1)
            };
            let crossed = if right {
                lead_from <= face + FLOOR_EPS && lead_to > face
            } else {
                lead_from >= face - FLOOR_EPS && lead_to < face
            };
            if crossed && face_top > y_lo && s.bottom < y_hi {
                let stop = face - half_width.copysign(to - from);
                best = Some(match best {
                    Some(b) if right => b.min(stop),
                    Some(b) => b.max(stop),
                    None => stop,
                });
            }
        };
        let (a, b) = if right {
            (lead_from, lead_to)
        } else {
            (lead_to, lead_from)
        };
        for i in self.index.solids.span(a - INDEX_CELL, b + INDEX_CELL) {
            consider(&self.solids[i as usize]);
        }
        for p in &self.platforms {
            consider(&p.solid());
        }
        best
    }

    /// The topmost static floor over `x` (ground or one-way), whatever its
    /// height: the overview h(x) of tools that want "the surface" of a
    /// column. The controller and the IK never use it; they look below a
    /// point ([`Level::floor_below`]).
    pub fn ground_height(&self, x: f32) -> Option<f32> {
        self.top_floor(x).map(|h| h.y)
    }

    /// The topmost static floor over `x`.
    pub fn top_floor(&self, x: f32) -> Option<FloorHit> {
        self.floor_below_filtered(x, f32::MAX, f32::INFINITY, FloorFilter::Static)
    }

    /// The static floor segment topmost over `x`, if any.
    pub fn segment_at(&self, x: f32) -> Option<&GroundSegment> {
        let mut best: Option<&GroundSegment> = None;
        for r in self.index.floors.at(x) {
            let s = &self.segments[r.index as usize];
            if s.covers(x) && best.is_none_or(|b| s.height_at(x) > b.height_at(x)) {
                best = Some(s);
            }
        }
        best
    }

    /// Unit normal of the topmost static floor at `x` (straight up where
    /// there is none).
    pub fn ground_normal(&self, x: f32) -> Vec2 {
        self.segment_at(x).map_or(Vec2::Y, GroundSegment::normal)
    }

    /// Left and right ends of the level: its floors and solids (as of the
    /// last [`Level::reindex`]).
    #[inline]
    pub fn extent(&self) -> (f32, f32) {
        self.ends
    }

    fn compute_extent(&self) -> (f32, f32) {
        let a = self
            .segments
            .iter()
            .map(|s| s.x0)
            .chain(self.solids.iter().map(|s| s.x0))
            .fold(f32::INFINITY, f32::min);
        let b = self
            .segments
            .iter()
            .map(|s| s.x1)
            .chain(self.solids.iter().map(|s| s.x1))
            .fold(f32::NEG_INFINITY, f32::max);
        if a.is_finite() && b.is_finite() {
            (a, b)
        } else {
            (0.0, 0.0)
        }
    }

    /// The ladder whose climbable strip contains the point, if any.
    /// `reach` is how far from the centre line the player may stand.
    pub fn ladder_at(&self, p: Vec2, reach: f32) -> Option<(usize, &Ladder)> {
        self.ladders.iter().enumerate().find(|(_, l)| {
            (p.x - l.x).abs() <= reach && p.y >= l.bottom - 0.05 && p.y <= l.top + 0.05
        })
    }

    /// The built-in level: flat ground, 15°/30°/45° slopes up and down, steps,
    /// gaps and two ladders of different rung spacing.
    pub fn builtin() -> Self {
        let mut b = LevelBuilder::new(-4.0, 0.0);
        b.flat(8.0);
        for deg in [15.0f32, 30.0, 45.0] {
            let run = 1.5;
            b.slope_deg(run, deg);
            b.flat(2.5);
            b.slope_deg(run, -deg);
            b.flat(3.0);
        }
        // Stairs up and down: three 0.2 m steps each way, 0.45 m treads.
        for _ in 0..3 {
            b.step(0.2);
            b.flat(0.45);
        }
        b.flat(1.5);
        for _ in 0..3 {
            b.step(-0.2);
            b.flat(0.45);
        }
        b.flat(3.0);
        // A gap to jump.
        b.gap(1.6);
        b.flat(4.0);
        // A ladder up a 2.4 m wall, rungs 0.30 m apart.
        let wall_x = b.x;
        b.step(2.4);
        b.flat(5.0);
        let l1 = Ladder {
            x: wall_x - 0.35,
            bottom: 0.0,
            top: 2.4,
            rung_spacing: 0.30,
            first_rung_offset: 0.30,
            half_width: 0.25,
        };
        // Down again by a second ladder, rungs 0.25 m apart, 3.0 m tall.
        b.step(-3.0);
        let l2_wall = b.x;
        b.flat(6.0);
        let l2 = Ladder {
            x: l2_wall + 0.2,
            bottom: -0.6,
            top: 2.4,
            rung_spacing: 0.25,
            first_rung_offset: 0.25,
            half_width: 0.25,
        };
        b.slope_deg(2.0, 15.0);
        b.flat(6.0);
        let exit = Vec2::new(b.x - 1.0, b.y);
        Level::from_profile(
            "built-in",
            b.segments,
            vec![l1, l2],
            Vec2::new(0.0, 0.0),
            exit,
            -8.0,
        )
    }
}

/// Builds ground profiles left to right.
struct LevelBuilder {
    x: f32,
    y: f32,
    segments: Vec<GroundSegment>,
}

impl LevelBuilder {
    fn new(x: f32, y: f32) -> Self {
        Self {
            x,
            y,
            segments: Vec::new(),
        }
    }

    fn run(&mut self, dx: f32, dy: f32) {
        self.segments.push(GroundSegment::ground(
            self.x,
            self.x + dx,
            self.y,
            self.y + dy,
        ));
        self.x += dx;
        self.y += dy;
    }

    fn flat(&mut self, dx: f32) {
        self.run(dx, 0.0);
    }

    fn slope_deg(&mut self, dx: f32, deg: f32) {
        self.run(dx, dx * deg.to_radians().tan());
    }

    fn step(&mut self, dy: f32) {
        self.y += dy;
    }

    fn gap(&mut self, dx: f32) {
        self.x += dx;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    /// A random level of floors (ground, one-way) and solids scattered over
    /// 0..40 m at any height, several per column.
    fn random_level() -> impl Strategy<Value = Level> {
        let floor = (
            0.0f32..38.0,
            0.25f32..4.0,
            -3.0f32..6.0,
            -1.0f32..1.0,
            any::<bool>(),
        );
        let solid = (0.0f32..38.0, 0.25f32..3.0, -3.0f32..6.0, 0.1f32..3.0);
        (
            proptest::collection::vec(floor, 1..24),
            proptest::collection::vec(solid, 0..16),
        )
            .prop_map(|(floors, solids)| {
                let segments = floors
                    .into_iter()
                    .map(|(x0, w, y, dy, one_way)| GroundSegment {
                        x0,
                        x1: x0 + w,
                        y0: y,
                        y1: if one_way { y } else { y + dy },
                        kind: if one_way {
                            FloorKind::OneWay
                        } else {
                            FloorKind::Ground
                        },
                    })
                    .collect();
                let solids = solids
                    .into_iter()
                    .map(|(x0, w, top, h)| SolidBox {
                        x0,
                        x1: x0 + w,
                        bottom: top - h,
                        top0: top,
                        top1: top,
                    })
                    .collect();
                Level::new(
                    "random",
                    segments,
                    solids,
                    vec![],
                    vec![],
                    Vec2::ZERO,
                    Vec2::X,
                    -10.0,
                )
            })
    }

    /// Places along x for the bucket tests: anywhere, at the cells' edges,
    /// infinities, `NaN` and −0.
    fn probe_x() -> impl Strategy<Value = f32> {
        prop_oneof![
            -100.0f32..100.0,
            (-50i32..50).prop_map(|k| k as f32 * INDEX_CELL),
            Just(f32::INFINITY),
            Just(f32::NEG_INFINITY),
            Just(f32::NAN),
            Just(-0.0f32),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3_000))]

        /// A span's end falls in the bucket the floor of its cell, clamped,
        /// puts it in, anywhere, at the bucket edges, and for infinities
        /// and `NaN`.
        #[test]
        fn a_span_s_bucket_is_the_clamped_floor_of_its_cell(
            x0 in -50.0f32..50.0,
            n in 0usize..40,
            x in probe_x(),
        ) {
            let want = ((x - x0) / INDEX_CELL).floor().clamp(0.0, n as f32) as usize;
            prop_assert_eq!(span_bucket(x0, n, x), want);
        }

        /// A probe's bucket is the one `floor` puts it in (the index casts
        /// instead of calling `floorf`): the same bucket or none, anywhere,
        /// at the bucket edges, and for infinities and NaN.
        #[test]
        fn the_bucket_of_a_probe_is_the_floor_of_its_cell(
            x0 in -50.0f32..50.0,
            cells in 1usize..40,
            x in probe_x(),
        ) {
            let b: Buckets<u32> = Buckets::build(x0, cells, std::iter::empty());
            let k = ((x - x0) * (1.0 / INDEX_CELL)).floor();
            let want = (k >= 0.0 && (k as usize) < cells).then_some(k as usize);
            prop_assert_eq!(b.index(x), want);
        }

        /// The indexed floor query answers what a scan of every floor
        /// answers: the nearest floor below, never one above the origin.
        #[test]
        fn floor_below_is_the_nearest_floor_below_never_above(
            level in random_level(),
            x in -2.0f32..44.0,
            y in -4.0f32..8.0,
            drop in 0.0f32..6.0,
        ) {
            let found = level.floor_below(x, y, drop);
            let scan = level
                .segments
                .iter()
                .filter(|s| s.covers(x))
                .map(|s| s.height_at(x))
                .filter(|&h| h <= y + FLOOR_EPS && h >= y - drop)
                .fold(None, |b: Option<f32>, h| Some(b.map_or(h, |b| b.max(h))));
            prop_assert_eq!(found.map(|f| f.y), scan);
            if let Some(f) = found {
                prop_assert!(f.y <= y + FLOOR_EPS, "a floor above the origin");
                prop_assert!(f.segment.covers(x));
                prop_assert_eq!(level.segments[f.index], f.segment);
            }
        }

        /// Ceilings and walls found through the index are those a scan finds.
        #[test]
        fn ceiling_and_wall_queries_match_a_scan(
            level in random_level(),
            x in -2.0f32..44.0,
            dx in -3.0f32..3.0,
            y in -4.0f32..8.0,
        ) {
            let hw = 0.3;
            let scan_ceiling = level
                .solids
                .iter()
                .filter(|s| s.x1 > x - hw && s.x0 < x + hw)
                .map(|s| s.bottom)
                .filter(|&b| b >= y - FLOOR_EPS && b <= y + 2.0)
                .fold(None, |m: Option<f32>, b| Some(m.map_or(b, |m| m.min(b))));
            prop_assert_eq!(level.ceiling_above(x - hw, x + hw, y, 2.0), scan_ceiling);
            let (lo, hi) = (y + 0.3, y + 1.8);
            let scan_wall = level
                .solids
                .iter()
                .filter_map(|s| {
                    let (face, top) = if dx > 0.0 { (s.x0, s.top0) } else { (s.x1, s.top1) };
                    let (from, to) = (x + hw * dx.signum(), x + dx + hw * dx.signum());
                    let crossed = if dx > 0.0 {
                        from <= face + FLOOR_EPS && to > face
                    } else {
                        from >= face - FLOOR_EPS && to < face
                    };
                    (crossed && top > lo && s.bottom < hi).then(|| face - hw * dx.signum())
                })
                .fold(None, |m: Option<f32>, s| {
                    Some(m.map_or(s, |m| if dx > 0.0 { m.min(s) } else { m.max(s) }))
                });
            prop_assert_eq!(level.wall_between(x, x + dx, hw, lo, hi), scan_wall);
        }
    }

    #[test]
    fn a_platform_moves_there_waits_and_comes_back_on_time() {
        let p = MovingPlatform::new(
            vec![
                Vec2::new(0.0, 1.0),
                Vec2::new(4.0, 1.0),
                Vec2::new(4.0, 3.0),
            ],
            0.75,
            0.25,
            2.0,
            1.0,
        );
        assert_eq!(p.length(), 6.0);
        assert_eq!(p.period(), 2.0 * (3.0 + 1.0));
        assert_eq!(
            p.position_at(0.5),
            Vec2::new(0.0, 1.0),
            "waiting at the start"
        );
        assert_eq!(p.position_at(2.0), Vec2::new(2.0, 1.0));
        assert_eq!(
            p.position_at(4.5),
            Vec2::new(4.0, 3.0),
            "waiting at the end"
        );
        assert_eq!(p.position_at(6.0), Vec2::new(4.0, 1.0), "on the way back");
        assert_eq!(p.position_at(8.5), p.position_at(0.5), "periodic");
    }

    #[test]
    fn moving_platforms_are_floors_ceilings_and_walls() {
        let mut level = Level::from_profile(
            "ride",
            vec![GroundSegment::ground(-5.0, 5.0, 0.0, 0.0)],
            vec![],
            Vec2::ZERO,
            Vec2::X,
            -10.0,
        );
        level.platforms.push(MovingPlatform::new(
            vec![Vec2::new(0.0, 2.0), Vec2::new(0.0, 4.0)],
            1.0,
            0.25,
            1.0,
            0.0,
        ));
        level.advance_platforms(1.0);
        let top = level.floor_below(0.5, 3.5, 1.0).unwrap();
        assert_eq!(top.kind(), FloorKind::Platform(0));
        assert_eq!(top.y, 3.0);
        assert_eq!(level.platforms[0].delta(), Vec2::new(0.0, 1.0));
        assert_eq!(
            level.floor_below(0.5, 2.9, 5.0).unwrap().kind(),
            FloorKind::Ground
        );
        assert_eq!(level.ceiling_above(0.0, 0.6, 1.0, 3.0), Some(2.75));
        assert_eq!(level.wall_between(-2.0, 0.0, 0.3, 2.0, 3.5), Some(-1.3));
        assert_eq!(
            level.top_floor(0.5).unwrap().y,
            0.0,
            "platforms are not static floors"
        );
    }

    #[test]
    fn one_way_floors_can_be_left_out() {
        let level = Level::of_floors(
            "plank",
            vec![
                GroundSegment::ground(0.0, 4.0, 0.0, 0.0),
                GroundSegment::one_way(1.0, 3.0, 1.5),
            ],
        );
        assert_eq!(level.floor_below(2.0, 2.0, 3.0).unwrap().y, 1.5);
        assert_eq!(
            level
                .floor_below_filtered(2.0, 2.0, 3.0, FloorFilter::Solid)
                .unwrap()
                .y,
            0.0
        );
        assert!(
            level.floor_below(2.0, 1.0, 0.5).is_none(),
            "the plank is above"
        );
        assert!(
            level.ceiling_above(1.5, 2.5, 0.5, 3.0).is_none(),
            "a plank is no ceiling"
        );
    }

    #[test]
    fn builtin_level_has_every_slope_angle() {
        let level = Level::builtin();
        for deg in [15.0f32, 30.0, 45.0] {
            let found = level
                .segments
                .iter()
                .any(|s| (s.angle().to_degrees() - deg).abs() < 0.01);
            assert!(found, "no {deg}° slope");
        }
        assert_eq!(level.ladders.len(), 2);
        assert_ne!(level.ladders[0].rung_spacing, level.ladders[1].rung_spacing);
    }

    #[test]
    fn ground_height_is_continuous_along_slopes_and_none_over_gaps() {
        let level = Level::builtin();
        let (a, b) = level.extent();
        let mut gaps = 0;
        let mut x = a;
        while x < b {
            if level.ground_height(x).is_none() {
                gaps += 1;
            }
            x += 0.01;
        }
        assert!(gaps > 0, "the built-in level has a gap");
        let s = level.segments.iter().find(|s| s.slope() > 0.9).unwrap();
        let mid = 0.5 * (s.x0 + s.x1);
        let h = level.ground_height(mid).unwrap();
        assert!((h - 0.5 * (s.y0 + s.y1)).abs() < 1e-5);
        let n = level.ground_normal(mid);
        assert!((n.angle_to(Vec2::Y).abs().to_degrees() - 45.0).abs() < 0.01);
    }

    #[test]
    fn ladders_reach_the_floor_they_lead_to() {
        let level = Level::builtin();
        for l in &level.ladders {
            let top_floor = [l.x - 0.6, l.x + 0.6]
                .iter()
                .filter_map(|&x| level.ground_height(x))
                .any(|h| (h - l.top).abs() < 1e-4);
            assert!(top_floor, "ladder at {} has no floor at its top", l.x);
            let rungs: Vec<f32> = l.rung_heights().collect();
            assert!(rungs.len() >= 7);
            assert!(
                rungs
                    .windows(2)
                    .all(|w| (w[1] - w[0] - l.rung_spacing).abs() < 1e-5)
            );
            assert!(*rungs.last().unwrap() <= l.top + 1e-5);
        }
    }
}
