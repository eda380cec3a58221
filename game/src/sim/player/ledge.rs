//! The controller's ledge state: catching a ledge in the air, hanging from
//! it, climbing over it and letting go — modelled on how ladders are caught,
//! climbed over and left ([`LadderMove`]).
//!
//! The rules (the level README repeats them for designers):
//!
//! - **Grab**: in the air, rising or falling, facing the ledge's face (the
//!   last direction held, or the one held now), without down held, the
//!   hands (where they are while hanging: [`HANG_DROP`] above the feet and
//!   [`HANG_OFFSET`] ahead) pass within [`GRAB_REACH_UP`] above or
//!   [`GRAB_REACH_DOWN`] below a ledge's corner during the step, with the
//!   body within [`GRAB_REACH_X`] of its hanging place. Grabbing is always
//!   on (no button), as in most platformers with ledge grabs; holding down
//!   falls past ledges. Rising, a ledge is caught only if the jump would
//!   not carry the feet over its top anyway (the jump lands there as
//!   before). No ledge is caught through a wall or a ceiling: the body's way
//!   to its hanging place and the space it hangs in must be free, and a
//!   floor in reach of the hanging feet means the body stands there
//!   instead. For [`LEDGE_REGRAB_TIME`] after letting go nothing is caught.
//! - **Catch**: a move of [`GRAB_TIME`] from where the body was, at its
//!   speed, to the hanging place at rest (a Hermite curve, as catching a
//!   ladder in the air): the fall is braked over a few steps, never stopped
//!   in one.
//! - **Hang**: the feet stay at the hanging place; a moving platform whose
//!   edge is held carries the body.
//! - **Up** climbs over the top in one continuous move of
//!   [`LEDGE_CLIMB_TIME`] (the body rises first, then steps across onto the
//!   top, ending at rest on its floor), if the whole move is clear of
//!   solids (headroom over the top for the standing body): else up does
//!   nothing and the body hangs on.
//! - **Down** lets go: the body falls from the hanging place.
//! - **Jump** lets go away from the wall, as a wall jump: at walking speed
//!   away from the face and 70 % of a jump's launch speed, facing away
//!   (air control then acts as on any jump: held away, the push is kept;
//!   with nothing held it dies down and the body drops near the wall).
//! - **Left/right** do nothing while hanging: in this side view a ledge's
//!   edge runs into the screen, along the depth the game does not play in,
//!   so there is nothing to shimmy along (a documented choice).
use glam::Vec2;

use super::{
    BODY_HALF_WIDTH, BODY_HEIGHT, CLIMB_HALF_WIDTH, DT, FloorKind, Input, LadderMove, Level,
    Locomotion, MAX_STEP_UP, MoveParams, Player,
};
use crate::sim::ledge::{HANG_DROP, HANG_OFFSET, Ledge};

/// How far above the hands a corner may be and still be caught, metres:
/// the arms stretch up a little.
pub const GRAB_REACH_UP: f32 = 0.12;
/// How far below the hands a corner may be and still be caught, metres:
/// the hands sweep down past it and take it.
pub const GRAB_REACH_DOWN: f32 = 0.15;
/// How far across from its hanging place the body may be when it catches a
/// ledge, metres (the catch moves it there).
pub const GRAB_REACH_X: f32 = 0.3;
/// Seconds a catch takes (the fall braked onto the hands): 26 steps, over
/// which the hands swing up onto the corner (at walking joint speeds) and a
/// short character's body rises to its hang without a jerk.
pub const GRAB_TIME: f32 = 0.4;
/// Seconds a climb over a ledge takes, from hanging to standing on its top.
pub const LEDGE_CLIMB_TIME: f32 = 1.4;
/// Seconds after letting go of a ledge during which none is caught: long
/// enough that the hands fall past the corner they let go of.
pub const LEDGE_REGRAB_TIME: f32 = 0.35;
/// How much of a jump's launch speed a jump off a ledge has.
const LEDGE_JUMP_SHARE: f32 = 0.7;
/// [`LadderMove::windows`] of a climb over a ledge: the body rises first and
/// steps across onto the top second, the two overlapping.
const CLIMB_WINDOWS: ((f32, f32), (f32, f32)) = ((0.45, 1.0), (0.0, 0.65));
/// [`LadderMove::windows`] of a catch: both coordinates at once.
const GRAB_WINDOWS: ((f32, f32), (f32, f32)) = ((0.0, 1.0), (0.0, 1.0));

/// A ledge held: which, and the move in progress (a catch or a climb over
/// it); none while simply hanging.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LedgeHang {
    /// The ledge (on a moving platform, its corner where it is now).
    pub ledge: Ledge,
    /// The catch (`leaving` false) or the climb over the top (`leaving`
    /// true) in progress.
    pub motion: Option<LadderMove>,
}

impl LedgeHang {
    /// Whether the body is climbing over the top.
    pub fn climbing(&self) -> bool {
        self.motion.is_some_and(|m| m.leaving)
    }

    /// How far through the climb over the top the body is, 0 (hanging) to
    /// 1 (standing on the top); 0 when not climbing.
    pub fn climb_progress(&self) -> f32 {
        match self.motion {
            Some(m) if m.leaving => (m.t / m.duration).clamp(0.0, 1.0),
            _ => 0.0,
        }
    }

    /// How far through the catch the body is, 0 (just caught) to 1
    /// (hanging); 1 once hanging or climbing.
    pub fn catch_progress(&self) -> f32 {
        match self.motion {
            Some(m) if !m.leaving => (m.t / m.duration).clamp(0.0, 1.0),
            _ => 1.0,
        }
    }
}

/// Where the feet are `u` of the way (0 to 1) through a climb over a ledge
/// whose top is level with its corner, from the hanging place, the top
/// lying toward +x: the path [`climb_move`] takes (rising first, then
/// stepping across, at rest at both ends). Authored climb-up clips follow
/// it (see `knight::clips`), so the body they pose keeps to the corner.
pub fn climb_offset(u: f32) -> Vec2 {
    let m = LadderMove {
        leaving: true,
        t: 0.0,
        duration: LEDGE_CLIMB_TIME,
        windows: CLIMB_WINDOWS,
        from: Vec2::ZERO,
        to: Vec2::new(HANG_OFFSET + crate::sim::ledge::CLIMB_STEP, HANG_DROP),
        v_from: Vec2::ZERO,
        v_to: Vec2::ZERO,
        side: 1.0,
    };
    m.at(u.clamp(0.0, 1.0) * LEDGE_CLIMB_TIME).0
}

/// The climb over `ledge`'s top from its hanging place, if there is a floor
/// to climb onto and the whole move is clear of solids (the standing body's
/// headroom on the top included).
pub fn climb_move(level: &Level, ledge: &Ledge) -> Option<LadderMove> {
    let to = ledge.stand_pos(level)?;
    let m = LadderMove {
        leaving: true,
        t: 0.0,
        duration: LEDGE_CLIMB_TIME,
        windows: CLIMB_WINDOWS,
        from: ledge.hang_pos(),
        to,
        v_from: Vec2::ZERO,
        v_to: Vec2::ZERO,
        side: -ledge.side,
    };
    let standing = !level.solid_overlaps(
        to.x - BODY_HALF_WIDTH,
        to.x + BODY_HALF_WIDTH,
        to.y + MAX_STEP_UP,
        to.y + BODY_HEIGHT,
    );
    (standing && m.path_clear(level)).then_some(m)
}

impl Player {
    /// Catches a ledge in reach of the hands over this step (the body moved
    /// from `start` to `self.pos`), if the rules allow: see the module docs.
    pub(super) fn try_grab(
        &mut self,
        level: &Level,
        params: &MoveParams,
        input: &Input,
        start: Vec2,
    ) -> bool {
        if input.move_y < -0.5 || self.since_ledge_release < LEDGE_REGRAB_TIME {
            return false;
        }
        let facing = if input.move_x.abs() > 0.1 {
            input.move_x.signum()
        } else {
            self.facing
        };
        // The face the body faces looks back at it: side = -facing.
        let side = -facing;
        let ahead = facing * HANG_OFFSET;
        let (xa, xb) = (start.x.min(self.pos.x), start.x.max(self.pos.x));
        let (ya, yb) = (start.y.min(self.pos.y), start.y.max(self.pos.y));
        let hands = self.pos + Vec2::new(ahead, HANG_DROP);
        let Some(ledge) = level.ledge_near(
            (xa + ahead - GRAB_REACH_X, xb + ahead + GRAB_REACH_X),
            (
                ya + HANG_DROP - GRAB_REACH_DOWN,
                yb + HANG_DROP + GRAB_REACH_UP,
            ),
            side,
            hands,
        ) else {
            return false;
        };
        // Rising past a ledge the jump clears anyway: no catch (the feet
        // land on its top as without ledges).
        if self.vel.y > 0.0 {
            let apex = self.pos.y + self.vel.y * self.vel.y / (2.0 * params.gravity());
            if apex >= ledge.corner.y + 0.02 {
                return false;
            }
        }
        if !ledge.hang_clear(level) {
            return false;
        }
        let m = LadderMove {
            leaving: false,
            t: 0.0,
            duration: GRAB_TIME,
            windows: GRAB_WINDOWS,
            from: self.pos,
            to: ledge.hang_pos(),
            v_from: self.vel,
            v_to: Vec2::ZERO,
            side: ledge.side,
        };
        // The way there must be free: no catch through a wall or ceiling.
        if !grab_path_clear(level, &m) {
            return false;
        }
        self.facing = facing;
        self.set_state(Locomotion::Ledge);
        self.ledge = Some(LedgeHang {
            ledge,
            motion: Some(m),
        });
        self.carry_vx = 0.0;
        // The catch's first step is this one's end: the body never hangs
        // still for a step as it starts (its motion this step stands).
        true
    }

    /// Carries a body hanging from a moving platform's edge with it (the
    /// corner, and so the hanging place, and any move in progress: the
    /// step then puts the feet there); returns that platform's index.
    pub(super) fn ride_ledge(&mut self, level: &Level) -> Option<usize> {
        if self.state != Locomotion::Ledge {
            return None;
        }
        let hang = self.ledge.as_mut()?;
        let i = hang.ledge.platform? as usize;
        let p = level.platforms.get(i)?;
        let d = p.delta();
        hang.ledge.corner += d;
        if let Some(m) = hang.motion.as_mut() {
            m.from += d;
            m.to += d;
        }
        Some(i)
    }

    /// One step holding a ledge: the catch or climb in progress, or hanging
    /// and reading the input.
    pub(super) fn step_ledge(&mut self, level: &Level, params: &MoveParams, input: &Input) {
        self.since_grounded = 0.0;
        let Some(mut hang) = self.ledge else {
            self.set_state(Locomotion::Air);
            return;
        };
        let platform_vel = hang
            .ledge
            .platform
            .and_then(|i| level.platforms.get(i as usize))
            .map_or(Vec2::ZERO, |p| p.delta() / DT);
        if let Some(mut m) = hang.motion {
            m.t = (m.t + DT).min(m.duration);
            let (pos, vel) = m.at(m.t);
            self.pos = pos;
            self.vel = vel + platform_vel;
            if !m.done() {
                hang.motion = Some(m);
                self.ledge = Some(hang);
                return;
            }
            hang.motion = None;
            self.ledge = Some(hang);
            if m.leaving {
                self.facing = m.side;
                match level.floor_below(pos.x, pos.y + MAX_STEP_UP, 2.0 * MAX_STEP_UP) {
                    Some(h) if h.kind() != FloorKind::OneWay || h.y <= pos.y + 1e-3 => {
                        self.pos.y = h.y;
                        self.vel = Vec2::ZERO;
                        self.stand_on(&h);
                        self.set_state(Locomotion::Ground);
                    }
                    _ => self.let_go(Vec2::ZERO),
                }
            }
            return;
        }
        // Hanging.
        self.pos = hang.ledge.hang_pos();
        self.vel = platform_vel;
        if input.jump_pressed {
            let away = hang.ledge.side;
            self.facing = away;
            self.since_jump_pressed = f32::INFINITY;
            self.let_go(Vec2::new(
                away * params.walk_speed,
                params.launch_speed() * LEDGE_JUMP_SHARE,
            ));
            // The jump's first step moves the body already.
            self.step_air_motion(level, params, input);
            return;
        }
        if input.move_y < -0.5 {
            self.let_go(Vec2::ZERO);
            return;
        }
        if input.move_y > 0.5
            && let Some(mut m) = climb_move(level, &hang.ledge)
        {
            m.t = DT;
            let (pos, vel) = m.at(m.t);
            self.pos = pos;
            self.vel = vel + platform_vel;
            hang.motion = Some(m);
            self.ledge = Some(hang);
        }
    }

    /// Lets go of the ledge held, into the air at `vel` (plus the speed of
    /// a platform whose edge was held, kept as a platform's is).
    fn let_go(&mut self, vel: Vec2) {
        let carry = self.vel.x;
        self.vel = vel;
        self.carry_vx = carry;
        self.since_ledge_release = 0.0;
        self.since_grounded = f32::INFINITY;
        self.set_state(Locomotion::Air);
    }
}

/// Whether the body's box stays out of every solid along a catch's path
/// (each step's worth of progress): the body, full width, above a step's
/// height, and the feet.
fn grab_path_clear(level: &Level, m: &LadderMove) -> bool {
    let steps = (m.duration / DT).ceil() as usize;
    (0..=steps).all(|k| {
        let (p, _) = m.at(k as f32 * DT);
        !level.solid_overlaps(
            p.x - CLIMB_HALF_WIDTH,
            p.x + CLIMB_HALF_WIDTH,
            p.y + 0.01,
            p.y + BODY_HEIGHT.min(HANG_DROP - 0.05),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::ledge::HANG_OFFSET;
    use crate::sim::world::{GroundSegment, Ladder, MovingPlatform, SolidBox};

    /// Ground at 0 over -8..8 with a block over 2..4 up to `top`, plus
    /// `extra` solids (each with a floor on its top) and ladders.
    fn wall_level(top: f32, extra: &[SolidBox], ladders: Vec<Ladder>) -> Level {
        let mut floors = vec![
            GroundSegment::ground(-8.0, 2.0, 0.0, 0.0),
            GroundSegment::ground(2.0, 4.0, top, top),
            GroundSegment::ground(4.0, 8.0, 0.0, 0.0),
        ];
        let block = |x0, x1, bottom, top| SolidBox {
            x0,
            x1,
            bottom,
            top0: top,
            top1: top,
        };
        let mut solids = vec![
            block(-8.0, 2.0, -4.0, 0.0),
            block(2.0, 4.0, -4.0, top),
            block(4.0, 8.0, -4.0, 0.0),
        ];
        for s in extra {
            solids.push(*s);
            floors.push(GroundSegment::ground(s.x0, s.x1, s.top0, s.top1));
        }
        Level::new(
            "ledge test",
            floors,
            solids,
            ladders,
            vec![],
            Vec2::ZERO,
            Vec2::X,
            -10.0,
        )
    }

    const RIGHT: Input = Input {
        move_x: 1.0,
        move_y: 0.0,
        run: false,
        jump_pressed: false,
        jump_held: false,
    };

    fn step(p: &mut Player, level: &Level, input: Input) {
        p.step(level, &MoveParams::default(), &input);
    }

    /// Steps with `input` until the state is `state` (at most `max` steps);
    /// whether it got there.
    fn until(p: &mut Player, level: &Level, input: Input, state: Locomotion, max: usize) -> bool {
        for _ in 0..max {
            step(p, level, input);
            if p.state == state {
                return true;
            }
        }
        false
    }

    /// Steps a hanging catch to its end and checks the body hangs at the
    /// ledge's hanging place, having moved at most `max_step` per step.
    fn settles_hanging(p: &mut Player, level: &Level, corner: Vec2, side: f32) {
        let mut prev = p.pos;
        for _ in 0..64 {
            step(p, level, Input::default());
            assert!(
                (p.pos - prev).length() < 0.2,
                "the catch moved the body smoothly: {prev} -> {}",
                p.pos
            );
            prev = p.pos;
        }
        assert_eq!(p.state, Locomotion::Ledge, "{p:?}");
        let hang = p.ledge.expect("a ledge held");
        assert_eq!(hang.motion, None, "the catch is over");
        assert_eq!(hang.ledge.corner, corner);
        assert_eq!(hang.ledge.side, side);
        let want = corner + Vec2::new(side * HANG_OFFSET, -HANG_DROP);
        assert!((p.pos - want).length() < 1e-4, "hangs at {want}: {}", p.pos);
        assert_eq!(p.vel, Vec2::ZERO);
    }

    #[test]
    fn falling_past_a_ledge_facing_it_catches_it_and_the_fall_brakes() {
        let level = wall_level(3.0, &[], vec![]);
        let mut p = Player::new(Vec2::new(1.7, 1.6));
        p.facing = 1.0;
        let mut speeds = vec![];
        assert!(until(
            &mut p,
            &level,
            Input::default(),
            Locomotion::Ledge,
            64
        ));
        // The catch brakes over several steps, never stopping in one.
        let mut prev = p.vel.y;
        for _ in 0..(GRAB_TIME / DT) as usize + 1 {
            step(&mut p, &level, Input::default());
            speeds.push(p.vel.y);
            assert!(
                (p.vel.y - prev).abs() < 2.0,
                "braked, not stopped: {speeds:?}"
            );
            prev = p.vel.y;
        }
        settles_hanging(&mut p, &level, Vec2::new(2.0, 3.0), -1.0);
        // Facing away, the same fall passes the ledge and lands.
        let mut p = Player::new(Vec2::new(1.7, 1.6));
        p.facing = -1.0;
        assert!(until(
            &mut p,
            &level,
            Input::default(),
            Locomotion::Ground,
            200
        ));
        // Down held falls past it too.
        let mut p = Player::new(Vec2::new(1.7, 1.6));
        p.facing = 1.0;
        let down = Input {
            move_y: -1.0,
            ..Input::default()
        };
        assert!(until(&mut p, &level, down, Locomotion::Ground, 200));
    }

    #[test]
    fn climb_offset_is_the_climb_over_a_flat_topped_ledge_either_way() {
        // The authored climb-up clips follow `climb_offset`: it must be the
        // controller's own move, from the hanging place toward the top.
        let level = wall_level(3.0, &[], vec![]);
        for (x, side) in [(2.0, -1.0), (4.0, 1.0)] {
            let ledge = level
                .ledge_near((x - 0.1, x + 0.1), (2.9, 3.1), side, Vec2::new(x, 3.0))
                .expect("a ledge");
            let m = climb_move(&level, &ledge).expect("a climb");
            for k in 0..=20 {
                let u = k as f32 / 20.0;
                let (feet, _) = m.at(u * m.duration);
                let d = climb_offset(u);
                let want = ledge.hang_pos() + Vec2::new(-side * d.x, d.y);
                assert!(feet.distance(want) < 1e-4, "u {u}: {feet} vs {want}");
            }
        }
        assert_eq!(climb_offset(0.0), Vec2::ZERO);
    }

    #[test]
    fn a_standing_jump_beside_a_wall_too_tall_to_land_on_catches_its_top_rising() {
        let level = wall_level(3.0, &[], vec![]);
        let mut p = Player::new(Vec2::new(1.0, 0.0));
        assert!(until(&mut p, &level, RIGHT, Locomotion::Ground, 10));
        // Walk to the wall, then jump holding toward it.
        for _ in 0..120 {
            step(&mut p, &level, RIGHT);
        }
        assert!((p.pos.x - 1.75).abs() < 1e-3, "at the wall: {p:?}");
        let jump = Input {
            jump_pressed: true,
            jump_held: true,
            ..RIGHT
        };
        step(&mut p, &level, jump);
        let held = Input {
            jump_held: true,
            ..RIGHT
        };
        assert!(until(&mut p, &level, held, Locomotion::Ledge, 40));
        assert!(p.vel.y > 0.0, "caught while rising: {p:?}");
        settles_hanging(&mut p, &level, Vec2::new(2.0, 3.0), -1.0);
        // A wall the jump clears is landed on, not caught.
        let low = wall_level(1.0, &[], vec![]);
        let mut p = Player::new(Vec2::new(1.0, 0.0));
        for _ in 0..120 {
            step(&mut p, &low, RIGHT);
        }
        step(&mut p, &low, jump);
        for _ in 0..80 {
            step(&mut p, &low, held);
            assert_ne!(p.state, Locomotion::Ledge, "{p:?}");
        }
        assert_eq!((p.state, p.pos.y), (Locomotion::Ground, 1.0));
    }

    #[test]
    fn a_jump_that_clears_a_ledges_top_lands_on_it_instead() {
        // A jumper who rises 2.4 m passes a 2.3 m wall's corner with his
        // hands on the way up to clearing it.
        let params = MoveParams {
            jump_height: 2.4,
            ..MoveParams::default()
        };
        let level = wall_level(2.3, &[], vec![]);
        let mut p = Player::new(Vec2::new(1.0, 0.0));
        for _ in 0..120 {
            p.step(&level, &params, &RIGHT);
        }
        let jump = Input {
            jump_pressed: true,
            jump_held: true,
            ..RIGHT
        };
        p.step(&level, &params, &jump);
        let held = Input {
            jump_held: true,
            ..RIGHT
        };
        for _ in 0..120 {
            p.step(&level, &params, &held);
            assert_ne!(p.state, Locomotion::Ledge, "{p:?}");
        }
        assert_eq!((p.state, p.pos.y), (Locomotion::Ground, 2.3));
    }

    #[test]
    fn a_running_jump_short_of_a_ledge_catches_it() {
        let level = wall_level(2.8, &[], vec![]);
        for start in [-0.8f32, -0.3, 1.0] {
            let mut p = Player::new(Vec2::new(-6.0, 0.0));
            let run = Input { run: true, ..RIGHT };
            assert!(until(&mut p, &level, run, Locomotion::Ground, 10));
            while p.pos.x < start {
                step(&mut p, &level, run);
            }
            let jump = Input {
                jump_pressed: true,
                jump_held: true,
                ..run
            };
            step(&mut p, &level, jump);
            let held = Input {
                jump_held: true,
                ..run
            };
            assert!(
                until(&mut p, &level, held, Locomotion::Ledge, 120),
                "jumped from {start}: {p:?}"
            );
            settles_hanging(&mut p, &level, Vec2::new(2.0, 2.8), -1.0);
        }
    }

    #[test]
    fn a_jump_off_a_ladder_catches_the_ledge_beside_it() {
        let ladder = Ladder {
            x: 0.8,
            bottom: 0.0,
            top: 2.2,
            rung_spacing: 0.3,
            first_rung_offset: 0.3,
            half_width: 0.25,
        };
        let level = wall_level(4.2, &[], vec![ladder]);
        let mut p = Player::new(Vec2::new(0.8, 0.0));
        let up = Input {
            move_y: 1.0,
            ..Input::default()
        };
        assert!(until(&mut p, &level, up, Locomotion::Ladder(0), 80));
        for _ in 0..64 * 4 {
            step(&mut p, &level, up);
        }
        assert!((p.pos.y - 2.2).abs() < 1e-3, "at the ladder's top: {p:?}");
        let jump = Input {
            jump_pressed: true,
            jump_held: true,
            ..RIGHT
        };
        step(&mut p, &level, jump);
        assert!(
            until(&mut p, &level, RIGHT, Locomotion::Ledge, 120),
            "{p:?}"
        );
        settles_hanging(&mut p, &level, Vec2::new(2.0, 4.2), -1.0);
    }

    #[test]
    fn up_climbs_over_the_top_in_one_continuous_move_down_and_jump_let_go() {
        let level = wall_level(3.0, &[], vec![]);
        let hanging = |level: &Level| {
            let mut p = Player::new(Vec2::new(1.7, 1.6));
            p.facing = 1.0;
            assert!(until(
                &mut p,
                level,
                Input::default(),
                Locomotion::Ledge,
                64
            ));
            settles_hanging(&mut p, level, Vec2::new(2.0, 3.0), -1.0);
            p
        };
        let mut p = hanging(&level);
        let up = Input {
            move_y: 1.0,
            ..Input::default()
        };
        let mut prev = p.pos;
        let mut prev_v = p.vel;
        let mut steps = 0;
        while p.state == Locomotion::Ledge {
            step(&mut p, &level, up);
            steps += 1;
            assert!(steps < 200, "the climb ends");
            assert!(
                (p.pos - prev).length() < 0.1,
                "continuous: {prev} -> {}",
                p.pos
            );
            assert!(
                (p.vel - prev_v).length() < 0.6,
                "no jump in speed: {prev_v} -> {}",
                p.vel
            );
            // Never inside the block.
            assert!(p.pos.y >= 3.0 - 1e-3 || p.pos.x <= 2.0 + 1e-3, "{p:?}");
            (prev, prev_v) = (p.pos, p.vel);
        }
        assert_eq!(p.state, Locomotion::Ground);
        assert!((p.pos - Vec2::new(2.0 + crate::sim::ledge::CLIMB_STEP, 3.0)).length() < 1e-3);
        assert!((steps as f32 * DT - LEDGE_CLIMB_TIME).abs() < 2.0 * DT);
        // Down lets go: the body falls to the ground and does not catch the
        // ledge again.
        let mut p = hanging(&level);
        let down = Input {
            move_y: -1.0,
            ..Input::default()
        };
        step(&mut p, &level, down);
        assert_eq!(p.state, Locomotion::Air);
        for _ in 0..64 {
            step(&mut p, &level, Input::default());
            assert_ne!(p.state, Locomotion::Ledge);
        }
        assert_eq!((p.state, p.pos.y), (Locomotion::Ground, 0.0));
        // Jump pushes off away from the wall (held away, the push is kept).
        let mut p = hanging(&level);
        let jump = Input {
            jump_pressed: true,
            jump_held: true,
            ..Input::default()
        };
        step(&mut p, &level, jump);
        assert_eq!(p.state, Locomotion::Air);
        assert!(p.vel.x < -1.0 && p.vel.y > 2.0, "{p:?}");
        assert_eq!(p.facing, -1.0);
        let away = Input {
            move_x: -1.0,
            ..Input::default()
        };
        assert!(until(&mut p, &level, away, Locomotion::Ground, 200));
        assert!(p.pos.x < 1.0, "landed away from the wall: {p:?}");
    }

    #[test]
    fn no_climb_over_a_top_without_headroom_the_body_hangs_on() {
        // A ceiling 1 m over the block's top: room for the hands, not for a
        // standing body.
        let ceiling = SolidBox {
            x0: 2.0,
            x1: 4.0,
            bottom: 4.0,
            top0: 4.5,
            top1: 4.5,
        };
        let level = wall_level(3.0, &[ceiling], vec![]);
        let ledge = level
            .ledge_near((1.9, 2.1), (2.9, 3.1), -1.0, Vec2::new(2.0, 3.0))
            .expect("still a ledge");
        assert!(climb_move(&level, &ledge).is_none());
        assert!(climb_move(&wall_level(3.0, &[], vec![]), &ledge).is_some());
        let mut p = Player::new(Vec2::new(1.7, 1.6));
        p.facing = 1.0;
        assert!(until(
            &mut p,
            &level,
            Input::default(),
            Locomotion::Ledge,
            64
        ));
        let up = Input {
            move_y: 1.0,
            ..Input::default()
        };
        for _ in 0..64 * 3 {
            step(&mut p, &level, up);
        }
        assert_eq!(p.state, Locomotion::Ledge);
        assert!((p.pos - ledge.hang_pos()).length() < 1e-4, "{p:?}");
    }

    #[test]
    fn no_grab_through_a_ceiling_or_where_a_wall_takes_the_hanging_place() {
        // A slab over the body, its end short of the wall: the hands would
        // reach the corner through it.
        let slab = SolidBox {
            x0: 0.5,
            x1: 1.9,
            bottom: 2.35,
            top0: 2.5,
            top1: 2.5,
        };
        let level = wall_level(2.6, &[slab], vec![]);
        let mut p = Player::new(Vec2::new(1.75, 0.0));
        assert!(until(&mut p, &level, RIGHT, Locomotion::Ground, 10));
        let jump = Input {
            jump_pressed: true,
            jump_held: true,
            ..RIGHT
        };
        step(&mut p, &level, jump);
        for _ in 0..100 {
            step(&mut p, &level, RIGHT);
            assert_ne!(p.state, Locomotion::Ledge, "{p:?}");
        }
        // A pillar under the ledge, in the hanging place (its own top
        // marked not grabbable): falling past the corner beside it catches
        // nothing.
        let pillar = SolidBox {
            x0: 1.8,
            x1: 1.95,
            bottom: 0.0,
            top0: 2.0,
            top1: 2.0,
        };
        let mut level = wall_level(3.0, &[pillar], vec![]);
        level.no_grab.push(crate::sim::ledge::NoGrab {
            x0: 1.8,
            y0: 2.0,
            x1: 1.95,
            y1: 2.0,
        });
        let mut p = Player::new(Vec2::new(1.5, 1.6));
        p.facing = 1.0;
        for _ in 0..40 {
            step(&mut p, &level, Input::default());
            assert_ne!(p.state, Locomotion::Ledge, "{p:?}");
        }
        // Without the pillar the same fall catches it.
        let level = wall_level(3.0, &[], vec![]);
        let mut p = Player::new(Vec2::new(1.5, 1.6));
        p.facing = 1.0;
        assert!(until(
            &mut p,
            &level,
            Input::default(),
            Locomotion::Ledge,
            40
        ));
    }

    #[test]
    fn a_moving_platforms_edge_is_caught_and_carries_the_hanging_body() {
        let mut level = wall_level(0.0, &[], vec![]);
        // A ferry at 2.6 m from x = -3 to 1 and back.
        level.platforms.push(MovingPlatform::new(
            vec![Vec2::new(-3.0, 2.6), Vec2::new(1.0, 2.6)],
            0.75,
            0.25,
            1.0,
            0.5,
        ));
        let mut t = 0u64;
        let mut tick = |p: &mut Player, level: &mut Level, input: Input| {
            t += 1;
            level.advance_platforms(t as f32 * DT);
            step(p, level, input);
        };
        // Stand where its right edge comes to rest (x = 1.75: the ferry's
        // end, 1.0 + 0.75, plus the body's half width) and jump up facing
        // left as it arrives.
        let mut p = Player::new(Vec2::new(2.0, 0.0));
        p.facing = -1.0;
        // Wait for the ferry to reach its right end (after 0.5 + 4 s).
        while level.platforms[0].pos.x < 1.0 - 1e-4 {
            tick(&mut p, &mut level, Input::default());
        }
        assert_eq!((p.state, p.pos), (Locomotion::Ground, Vec2::new(2.0, 0.0)));
        let jump = Input {
            jump_pressed: true,
            jump_held: true,
            ..Input::default()
        };
        tick(&mut p, &mut level, jump);
        let mut caught = false;
        for _ in 0..40 {
            tick(
                &mut p,
                &mut level,
                Input {
                    jump_held: true,
                    ..Input::default()
                },
            );
            if p.state == Locomotion::Ledge {
                caught = true;
                break;
            }
        }
        assert!(caught, "{p:?} {:?}", level.platforms[0].pos);
        assert_eq!(p.ledge.unwrap().ledge.platform, Some(0));
        // Hanging on while the ferry goes back left: carried with it.
        let x0 = p.pos.x;
        for _ in 0..64 * 3 {
            tick(&mut p, &mut level, Input::default());
            assert_eq!(p.state, Locomotion::Ledge);
            let s = level.platforms[0].solid();
            if p.ledge.unwrap().motion.is_none() {
                let want = Vec2::new(s.x1 + HANG_OFFSET, s.top1 - HANG_DROP);
                assert!((p.pos - want).length() < 1e-3, "{p:?} {s:?}");
            }
        }
        assert!(p.pos.x < x0 - 1.0, "carried left: {x0} -> {}", p.pos.x);
        // Climbing over onto it rides it on.
        let up = Input {
            move_y: 1.0,
            ..Input::default()
        };
        for _ in 0..64 * 2 {
            tick(&mut p, &mut level, up);
        }
        assert_eq!(p.state, Locomotion::Ground, "{p:?}");
        assert_eq!(p.floor, FloorKind::Platform(0));
    }
}
