//! The level as the simulation sees it: one ground height function h(x), its
//! normal, ladders, spawn and exit.
//!
//! The side-scroller plays in the XY plane (metres, +Y up). Ground is a list of
//! straight top-surface segments sorted by x; a vertical jump between two
//! neighbours is a step or a wall, a missing stretch is a gap. The same
//! [`Level::ground_height`] serves collision, the foot probes of the pose
//! pipeline and the renderer's meshes, so what the player sees is what the
//! knight stands on.

use glam::Vec2;

/// A straight piece of ground surface over `x0..x1`, rising from `y0` to `y1`.
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
}

impl GroundSegment {
    /// Surface height at `x` (extrapolates outside the segment).
    #[inline]
    pub fn height_at(&self, x: f32) -> f32 {
        let t = (x - self.x0) / (self.x1 - self.x0);
        self.y0 + (self.y1 - self.y0) * t
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

/// A ladder: a vertical strip the player can climb, with rungs at fixed spacing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ladder {
    /// Centre line, in metres.
    pub x: f32,
    /// Height of the ladder's foot (normally the ground under it).
    pub bottom: f32,
    /// Height of its top (normally the floor the climber steps onto).
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
}

/// A whole level.
#[derive(Clone, Debug)]
pub struct Level {
    /// Display name.
    pub name: String,
    /// Ground surface, sorted by `x0`, non-overlapping; gaps between segments are pits.
    pub segments: Vec<GroundSegment>,
    /// Ladders.
    pub ladders: Vec<Ladder>,
    /// Where the player starts (feet position).
    pub spawn: Vec2,
    /// Where the level ends (feet position).
    pub exit: Vec2,
    /// Below this height a falling player is lost and respawns.
    pub kill_height: f32,
}

impl Level {
    /// The ground segment under `x`, if any.
    pub fn segment_at(&self, x: f32) -> Option<&GroundSegment> {
        self.segment_index(x).map(|i| &self.segments[i])
    }

    /// The index in [`Level::segments`] of the ground segment under `x`, if any.
    pub fn segment_index(&self, x: f32) -> Option<usize> {
        let i = self.segments.partition_point(|s| s.x1 <= x);
        self.segments
            .get(i)
            .filter(|s| s.x0 <= x && x < s.x1)
            .map(|_| i)
    }

    /// [`Level::segment_index`], looking first at `hint` and its two
    /// neighbours: a foot or a body moving along the ground is nearly always
    /// over the segment it was over a frame ago, or the next one. The answer
    /// is the same as the binary search's (a candidate is taken only where
    /// the search would stop: the first segment ending after `x`); a stale
    /// or out-of-range hint only costs that search.
    pub fn segment_index_near(&self, x: f32, hint: usize) -> Option<usize> {
        let s = &self.segments;
        for j in [hint, hint.wrapping_add(1), hint.wrapping_sub(1)] {
            if let Some(g) = s.get(j)
                && g.x0 <= x
                && x < g.x1
                && (j == 0 || s[j - 1].x1 <= x)
            {
                return Some(j);
            }
        }
        self.segment_index(x)
    }

    /// Ground height h(x), or `None` over a gap or outside the level.
    pub fn ground_height(&self, x: f32) -> Option<f32> {
        self.segment_at(x).map(|s| s.height_at(x))
    }

    /// Unit ground normal at `x` (straight up over gaps).
    pub fn ground_normal(&self, x: f32) -> Vec2 {
        self.segment_at(x).map_or(Vec2::Y, GroundSegment::normal)
    }

    /// Left and right ends of the ground.
    pub fn extent(&self) -> (f32, f32) {
        let a = self.segments.first().map_or(0.0, |s| s.x0);
        let b = self.segments.last().map_or(0.0, |s| s.x1);
        (a, b)
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
        Level {
            name: "built-in".into(),
            segments: b.segments,
            ladders: vec![l1, l2],
            spawn: Vec2::new(0.0, 0.0),
            exit,
            kill_height: -8.0,
        }
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
        self.segments.push(GroundSegment {
            x0: self.x,
            x1: self.x + dx,
            y0: self.y,
            y1: self.y + dy,
        });
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]

        /// The hinted lookup answers what the binary search answers, for any
        /// hint (in range, out of range, stale), on and off the ground,
        /// exactly at segment ends included.
        #[test]
        fn hinted_segment_lookup_equals_the_search(
            x in -10.0f32..120.0,
            end in 0usize..64,
            hint in proptest::prop_oneof![0usize..64, proptest::strategy::Just(usize::MAX)],
            at_end in proptest::bool::ANY,
        ) {
            let level = Level::builtin();
            let x = if at_end {
                level.segments[end % level.segments.len()].x1
            } else {
                x
            };
            proptest::prop_assert_eq!(level.segment_index_near(x, hint), level.segment_index(x));
        }
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
