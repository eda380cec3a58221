//! Ledges: the corners a falling or jumping body can catch with its hands,
//! hang from and climb over.
//!
//! No tile class marks a ledge. A ledge is the top corner of any solid (a
//! static [`SolidBox`] or a moving platform's body) where
//!
//! - the solid's top at the corner is a floor the controller stands on (a
//!   walkable top: ground or a platform's deck, at most 45°),
//! - the side face below the corner looks onto open air: no solid within
//!   [`LEDGE_AIR`] beside it, from [`LEDGE_FACE`] below the corner to
//!   [`LEDGE_AIR`] above it (so the hands have room to come onto it and a
//!   corner where the ground only steps down a little is no ledge),
//! - the corner is not at the level's end walls and lies in no [`NoGrab`] area of the level (Tiled `NoGrab`
//!   rectangles, for designers who want a corner left alone).
//!
//! One-way planks are not ledges (a documented choice): the body jumps up
//! through them, so a hand would have to catch a plank it is passing, and a
//! plank's end has no face for the feet; their own tops are reached by
//! jumping through them.
//!
//! Where the body hangs from a ledge and where a climb over it ends are
//! fixed by [`Ledge::hang_pos`] and [`Ledge::stand_pos`]; whether the body
//! may grab it from where it is, hang there and climb over it is the
//! controller's business ([`crate::sim::player`]). Every query here is
//! allocation-free and reads only the level's shared structure.

use glam::Vec2;

use crate::sim::player::{BODY_HALF_WIDTH, BODY_HEIGHT, MAX_STEP_UP, MAX_WALKABLE_SLOPE};
use crate::sim::world::{FloorKind, Level, SolidBox};

/// How far below a ledge's corner the feet hang, metres: the knight's
/// shoulders (1.47 m) plus 0.48 m of arm reaching up to the corner (his arm
/// is 0.60 m long, so the elbows keep a little bend and the hands hold the
/// corner at 90 % of the arm's reach, horizontally 0.25 m in front of the
/// shoulders). A smaller character's pose rises to it (see
/// `character::ledge_ik`).
pub const HANG_DROP: f32 = 1.95;
/// How far from a ledge's face the feet hang, metres: the body's half width,
/// so the body hangs against the wall.
pub const HANG_OFFSET: f32 = BODY_HALF_WIDTH;
/// How far a ledge's face must drop below its corner, and how wide the open
/// air beside it must be (across and up above the corner), metres: a step
/// or a gap narrower than a hand is no ledge.
pub const LEDGE_FACE: f32 = 0.3;
/// See [`LEDGE_FACE`]: the width of the air beside a ledge's face and its
/// height above the corner, metres.
pub const LEDGE_AIR: f32 = 0.3;
/// How far onto a ledge's top a climb over it sets the feet down, metres:
/// the body's half width clear of the edge, plus a margin.
pub const CLIMB_STEP: f32 = BODY_HALF_WIDTH + 0.15;

/// An area of a level whose corners are not ledges (a Tiled `NoGrab`
/// rectangle): a corner on or inside its edges is never grabbed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoGrab {
    /// Left edge, metres.
    pub x0: f32,
    /// Bottom edge, metres.
    pub y0: f32,
    /// Right edge, metres.
    pub x1: f32,
    /// Top edge, metres.
    pub y1: f32,
}

impl NoGrab {
    /// Whether the corner `p` lies on or inside the area (within a
    /// millimetre, so a rectangle drawn on tile edges covers the corners
    /// on them).
    pub fn contains(&self, p: Vec2) -> bool {
        const EPS: f32 = 1e-3;
        p.x >= self.x0 - EPS && p.x <= self.x1 + EPS && p.y >= self.y0 - EPS && p.y <= self.y1 + EPS
    }
}

/// A ledge: a grabbable top corner of a solid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ledge {
    /// The corner, metres.
    pub corner: Vec2,
    /// Which way the face looks onto open air: +1 for a solid's right face
    /// (the body hangs right of the corner, facing left), −1 for its left.
    pub side: f32,
    /// The moving platform whose edge it is, if any (its index in
    /// [`Level::platforms`]); it moves with the platform.
    pub platform: Option<u16>,
}

impl Ledge {
    /// Where the feet are while the body hangs from the ledge.
    pub fn hang_pos(&self) -> Vec2 {
        self.corner + Vec2::new(self.side * HANG_OFFSET, -HANG_DROP)
    }

    /// Where the feet stand once a climb over the ledge is over: on its
    /// top, [`CLIMB_STEP`] in from the corner (the floor's height there).
    /// `None` when no floor is there within a step of the corner's height.
    pub fn stand_pos(&self, level: &Level) -> Option<Vec2> {
        let x = self.corner.x - self.side * CLIMB_STEP;
        level
            .floor_below(x, self.corner.y + MAX_STEP_UP, 2.0 * MAX_STEP_UP)
            .filter(|h| h.kind() != FloorKind::OneWay)
            .map(|h| Vec2::new(x, h.y))
    }

    /// Whether the space the hanging body takes is free: no solid in the
    /// body's box at [`Ledge::hang_pos`] (touching the ledge's own face is
    /// not overlapping), and no floor within a step ([`MAX_STEP_UP`]) of its
    /// feet, above or below (there the body stands instead of hanging).
    pub fn hang_clear(&self, level: &Level) -> bool {
        let h = self.hang_pos();
        !level.solid_overlaps(
            h.x - BODY_HALF_WIDTH,
            h.x + BODY_HALF_WIDTH,
            h.y + 0.01,
            (h.y + BODY_HEIGHT).min(self.corner.y - 0.01),
        ) && level
            .floor_below(h.x, h.y + MAX_STEP_UP, 2.0 * MAX_STEP_UP)
            .is_none()
    }
}

impl Level {
    /// Whether the corner `corner` of a solid, whose face below it looks
    /// toward `side` (see [`Ledge::side`]), is a ledge (the module's rules).
    /// `platform`: the moving platform whose corner it is.
    pub fn is_ledge(&self, corner: Vec2, side: f32, platform: Option<u16>) -> bool {
        if !corner.is_finite() || self.no_grab.iter().any(|z| z.contains(corner)) {
            return false;
        }
        // The level's ends are walls: nobody hangs beyond them.
        let (e0, e1) = self.extent();
        if (side < 0.0 && corner.x <= e0 + 1e-3) || (side > 0.0 && corner.x >= e1 - 1e-3) {
            return false;
        }
        let (a, b) = if side > 0.0 {
            (corner.x, corner.x + LEDGE_AIR)
        } else {
            (corner.x - LEDGE_AIR, corner.x)
        };
        if self.solid_overlaps(a, b, corner.y - LEDGE_FACE, corner.y + LEDGE_AIR) {
            return false;
        }
        // The top at the corner is a floor: the solid's own, just inside.
        let inside = corner.x - side * 0.02;
        match self.floor_below(inside, corner.y + 0.02, 0.05) {
            Some(h) => {
                let own = match (h.kind(), platform) {
                    (FloorKind::Ground, None) => true,
                    (FloorKind::Platform(i), Some(p)) => i == p,
                    _ => false,
                };
                own && h.segment.slope().abs() <= MAX_WALKABLE_SLOPE
            }
            None => false,
        }
    }

    /// The ledge nearest `near` among the corners inside the box
    /// `x0..=x1` × `y0..=y1` whose face looks toward `side`, moving
    /// platforms' included. Allocation-free; the cost is that of the solids
    /// in the box's columns.
    pub fn ledge_near(
        &self,
        (x0, x1): (f32, f32),
        (y0, y1): (f32, f32),
        side: f32,
        near: Vec2,
    ) -> Option<Ledge> {
        let mut best: Option<(f32, Ledge)> = None;
        let mut consider = |s: &SolidBox, platform: Option<u16>| {
            let corner = if side > 0.0 {
                Vec2::new(s.x1, s.top1)
            } else {
                Vec2::new(s.x0, s.top0)
            };
            if !(x0..=x1).contains(&corner.x) || !(y0..=y1).contains(&corner.y) {
                return;
            }
            let d = corner.distance_squared(near);
            if best.is_some_and(|(b, _)| b <= d) || !self.is_ledge(corner, side, platform) {
                return;
            }
            best = Some((
                d,
                Ledge {
                    corner,
                    side: side.signum(),
                    platform,
                },
            ));
        };
        for s in self.solids_near(x0 - 0.01, x1 + 0.01) {
            consider(s, None);
        }
        for (i, p) in self.platforms.iter().enumerate() {
            consider(&p.solid(), Some(i as u16));
        }
        best.map(|(_, l)| l)
    }

    /// Every static ledge of the level (both faces of every solid), for
    /// tools: the designer's overlay and `check-level`. Moving platforms'
    /// edges are left out (they move).
    pub fn static_ledges(&self) -> impl Iterator<Item = Ledge> + '_ {
        self.solids.iter().flat_map(move |s| {
            [
                (Vec2::new(s.x0, s.top0), -1.0),
                (Vec2::new(s.x1, s.top1), 1.0),
            ]
            .into_iter()
            .filter(move |&(c, side)| self.is_ledge(c, side, None))
            .map(|(corner, side)| Ledge {
                corner,
                side,
                platform: None,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::world::{GroundSegment, MovingPlatform};

    /// Ground at 0 over -8..8 and a block over 2..4 up to `top`.
    fn block_level(top: f32) -> Level {
        let floors = vec![
            GroundSegment::ground(-8.0, 2.0, 0.0, 0.0),
            GroundSegment::ground(2.0, 4.0, top, top),
            GroundSegment::ground(4.0, 8.0, 0.0, 0.0),
        ];
        Level::from_profile("t", floors, vec![], Vec2::ZERO, Vec2::X, -10.0)
    }

    #[test]
    fn a_blocks_top_corners_are_ledges_and_a_low_step_is_not() {
        let level = block_level(2.5);
        let all: Vec<Ledge> = level.static_ledges().collect();
        assert_eq!(all.len(), 2, "{all:?}");
        assert!(
            all.iter()
                .any(|l| l.corner == Vec2::new(2.0, 2.5) && l.side == -1.0)
        );
        assert!(
            all.iter()
                .any(|l| l.corner == Vec2::new(4.0, 2.5) && l.side == 1.0)
        );
        // A step lower than LEDGE_FACE is no ledge.
        assert_eq!(block_level(0.25).static_ledges().count(), 0);
        // The ground's ends at the level's edges are walls (no ledges), and
        // the block's ground neighbours touch their faces.
        let found = level.ledge_near((1.5, 2.5), (2.0, 3.0), -1.0, Vec2::new(2.0, 2.5));
        assert_eq!(found.map(|l| l.corner), Some(Vec2::new(2.0, 2.5)));
        // The other way round, nothing: the face at 2.0 looks left.
        assert!(
            level
                .ledge_near((1.5, 2.5), (2.0, 3.0), 1.0, Vec2::new(2.0, 2.5))
                .is_none()
        );
    }

    #[test]
    fn no_grab_areas_and_covered_corners_are_not_ledges() {
        let mut level = block_level(2.5);
        level.no_grab.push(NoGrab {
            x0: 1.5,
            y0: 2.0,
            x1: 2.0,
            y1: 3.0,
        });
        let all: Vec<Ledge> = level.static_ledges().collect();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].corner.x, 4.0);
        // A solid just above the corner on the open side leaves no room for
        // the hands.
        let mut level = block_level(2.5);
        level.solids.push(SolidBox {
            x0: 1.5,
            x1: 2.0,
            bottom: 2.7,
            top0: 3.5,
            top1: 3.5,
        });
        level.reindex();
        assert!(!level.is_ledge(Vec2::new(2.0, 2.5), -1.0, None));
    }

    #[test]
    fn a_moving_platforms_edges_are_ledges_that_move_with_it() {
        let mut level = block_level(0.0);
        level.platforms.push(MovingPlatform::new(
            vec![Vec2::new(0.0, 3.0), Vec2::new(0.0, 5.0)],
            0.75,
            0.25,
            1.0,
            0.0,
        ));
        level.advance_platforms(0.0);
        let l = level
            .ledge_near((-1.0, 1.0), (2.0, 6.0), 1.0, Vec2::new(0.75, 3.0))
            .expect("the platform's right edge");
        assert_eq!((l.corner, l.platform), (Vec2::new(0.75, 3.0), Some(0)));
        level.advance_platforms(1.0);
        let l = level
            .ledge_near((-1.0, 1.0), (2.0, 6.0), -1.0, Vec2::new(-0.75, 4.0))
            .expect("the platform's left edge");
        assert_eq!(l.corner, Vec2::new(-0.75, 4.0));
        // Static tools leave platforms out.
        assert_eq!(level.static_ledges().count(), 0);
    }
}
