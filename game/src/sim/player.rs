//! The side-scroller controller: walk, run, jump, slopes, steps, ladders,
//! one-way planks, ceilings, walls and moving platforms.
//!
//! Runs at the fixed simulation rate ([`SIM_HZ`]). The player is a point at the
//! feet (x, y) with a body [`BODY_HALF_WIDTH`] wide either side and
//! [`BODY_HEIGHT`] tall. Every question about the world goes through the
//! level's shared queries ([`Level::floor_below`], [`Level::wall_between`],
//! [`Level::ceiling_above`]): on the ground the feet are snapped to the floor
//! found under them every step, so walking up or down a slope never bounces
//! or slides; a solid face taller than [`MAX_STEP_UP`] is a wall; motion is
//! swept (every floor and face between this step's start and end is looked
//! at), so no fall speed tunnels through a thin floor.
use glam::Vec2;

use crate::sim::world::{FloorFilter, FloorHit, FloorKind, Ladder, Level};

mod ledge;
pub use ledge::{
    GRAB_REACH_DOWN, GRAB_REACH_UP, GRAB_REACH_X, GRAB_TIME, LEDGE_CLIMB_TIME, LEDGE_REGRAB_TIME,
    LedgeHang, climb_offset,
};

/// Simulation steps per second. 64 Hz is exact in binary floating point and
/// avoids the 0/2-step alternation a 60 Hz step shows on 60 Hz displays.
pub const SIM_HZ: f32 = 64.0;
/// Length of one simulation step, in seconds.
pub const DT: f32 = 1.0 / SIM_HZ;
/// Steepest walkable slope: 45°, the common engine default, and the steepest
/// slope our levels use.
pub const MAX_WALKABLE_SLOPE: f32 = 1.0 + 1e-4;
/// Tallest step walked up without jumping (a stair riser is 0.15–0.2 m).
pub const MAX_STEP_UP: f32 = 0.3;
/// Farthest the feet follow the ground downwards in one step before the player
/// counts as walking off a ledge; covers 45° at run speed with margin.
pub const MAX_SNAP_DOWN: f32 = 0.3;
/// How far from a ladder's centre line the player may start a climb.
pub const LADDER_REACH: f32 = 0.45;
/// Half the body's width, metres: how close the feet come to a wall (the
/// knight's shoulders are about 0.45 m across).
pub const BODY_HALF_WIDTH: f32 = 0.25;
/// The body's height for ceilings and headroom, metres (the knight stands
/// 1.8 m; a helmet brushing a ceiling is allowed a few centimetres).
pub const BODY_HEIGHT: f32 = 1.75;
/// Half the width a climber takes on a ladder, metres: the torso between
/// the rails (the hands hold the rails, which may touch a wall). A ladder's
/// centre line closer than this to a wall cannot be climbed down from its
/// top.
pub const CLIMB_HALF_WIDTH: f32 = 0.15;
/// How far ahead and behind a body on the ground walls are looked for,
/// metres: more than the braking distance from a run (3.4 m/s at 14 m/s²:
/// 0.41 m) and than a foot reaches from the body.
pub const WALL_LOOKAHEAD: f32 = 1.0;
/// How far the body may move before the walls beside it are looked up
/// again, metres (see [`Player::walls_at`]).
pub const WALL_REUSE: f32 = 0.2;
/// How far from a wall's face a foot's floor probe stays, metres.
pub const FOOT_WALL_INSET: f32 = 0.02;
/// Height above a ladder's foot below which a descending climber moves clear
/// of a wall beside the ladder, metres (at the climb speed this leaves about
/// half a second for a slide of a few centimetres).
pub const LADDER_FOOT_CLEARING: f32 = 0.5;
/// The least horizontal speed of a step off a ledge, m/s: from rest a body
/// falls a step (0.3 m) in about 0.25 s, and in that time it must clear the
/// ledge's face by its half width.
pub const WALK_OFF_SPEED: f32 = 1.1;
/// How far below a one-way plank the feet must be before a plank dropped
/// through can be landed on again, metres.
pub const DROP_CLEARANCE: f32 = 0.3;
/// How close the feet may come to either end of the level's ground, metres:
/// the ends are walls, about the knight's half-width in from the last edge so
/// the body never hangs over the void.
pub const LEVEL_END_MARGIN: f32 = 0.25;

/// Seconds a climb over a ladder's top takes, either way: rising off the
/// last rungs and stepping onto the floor beside the top (up), or stepping
/// from that floor over onto the rungs and down (down). About what a person
/// takes to climb off a fixed ladder; long enough that the step across is
/// walking pace (0.6 m in 0.65 s), so the walk clip carries it.
pub const LADDER_TOP_TIME: f32 = 1.0;
/// Seconds stepping onto a ladder at its foot takes: a shorter move (the
/// climber is beside the rungs already), long enough for the hands to meet
/// the rungs in step with the climb clip's grips.
pub const LADDER_FOOT_TIME: f32 = 0.6;
/// How far from a ladder's centre line a climber on the floor at its top
/// can start down it, metres: where a climb over the top leaves him
/// ([`LADDER_TOP_STEP`]) with a margin.
pub const LADDER_TOP_REACH: f32 = LADDER_TOP_STEP + 0.1;
/// How far below the ladder's top the feet are where a climb over the top
/// begins (up) or ends (down), metres: the last stretch of the climb
/// decelerates into the step across instead of stopping in one step.
pub const LADDER_TOP_RISE: f32 = 0.3;
/// From the ladder's centre line to where the climber stands on the floor
/// beside its top, metres (the body's half width clear of the rails).
pub const LADDER_TOP_STEP: f32 = 0.6;

/// How far below the body's floor a standing or walking foot looks for its
/// floor, metres: as far as the body itself follows the ground down in a
/// step ([`MAX_SNAP_DOWN`], a stair's riser with margin). A floor deeper
/// than this (plus what a walkable slope drops over the foot's distance from
/// the body) is out of the foot's reach: a ledge's drop.
pub const FOOT_PROBE_DEPTH: f32 = MAX_SNAP_DOWN;

/// The heights between which a foot at `foot_x` looks for its floor, for a
/// body standing at `body` (feet position): from a step above the body's
/// floor plus the steepest walkable rise over the distance to the foot, down
/// to [`FOOT_PROBE_DEPTH`] plus the steepest fall over that distance. A
/// floor above is a wall for the feet too; one below is a drop they do not
/// reach. Returns `(top, depth)` for [`Level::floor_below`].
pub fn foot_probe_range(body: Vec2, foot_x: f32) -> (f32, f32) {
    let run = (foot_x - body.x).abs() * MAX_WALKABLE_SLOPE;
    let top = body.y + MAX_STEP_UP + run;
    (top, MAX_STEP_UP + run + FOOT_PROBE_DEPTH + run)
}

/// The floor a foot at `x` of a body standing at `body` (its feet) stands
/// on, looked for from `top` down to `depth` below it (see
/// [`foot_probe_range`]): the highest solid floor there, and a one-way
/// floor only at or below the body's feet, as the body's own support takes
/// them (see [`Level::support_below`]). A plank over the body, which it
/// walks under, is no floor for its feet: Mannequiny's toe, under a plank
/// half a metre up as he walked beneath it on `long`, read as 9 cm inside
/// it, and a foot under a plank at shin height would have been stood on it.
pub fn foot_floor(level: &Level, body: Vec2, x: f32, top: f32, depth: f32) -> Option<FloorHit> {
    let up = top - body.y;
    level.support_below(x, body.y, up, depth - up, FloorFilter::All)
}

/// `x` kept between the level's end walls; `true` when it was moved.
fn within_ends(level: &Level, x: f32) -> (f32, bool) {
    let (x0, x1) = level.extent();
    let (lo, hi) = (x0 + LEVEL_END_MARGIN, x1 - LEVEL_END_MARGIN);
    if lo > hi {
        // A level narrower than the margins: nothing sensible to clamp to.
        return (x, false);
    }
    let c = x.clamp(lo, hi);
    (c, c != x)
}

/// Tunables a designer sets; gravity and launch speed derive from them.
#[derive(Clone, Copy, Debug)]
pub struct MoveParams {
    /// Walking speed along the surface, m/s (matches the knight's walk clip).
    pub walk_speed: f32,
    /// Running speed along the surface, m/s.
    pub run_speed: f32,
    /// Jump apex height, metres.
    pub jump_height: f32,
    /// Horizontal distance of a running jump from take-off to landing at the same height, metres.
    pub jump_distance: f32,
    /// Seconds after leaving a ledge during which a jump still counts.
    pub coyote_time: f32,
    /// Seconds a jump press is remembered before landing.
    pub jump_buffer: f32,
    /// Climbing speed, m/s.
    pub climb_speed: f32,
    /// Horizontal acceleration on the ground, m/s².
    pub ground_accel: f32,
    /// Horizontal acceleration in the air, m/s².
    pub air_accel: f32,
}

impl Default for MoveParams {
    fn default() -> Self {
        Self {
            walk_speed: 1.35,
            run_speed: 3.4,
            jump_height: 1.25,
            jump_distance: 3.4,
            coyote_time: 0.1,
            jump_buffer: 0.12,
            climb_speed: 0.9,
            ground_accel: 14.0,
            air_accel: 7.0,
        }
    }
}

impl MoveParams {
    /// Gravity (m/s², positive down) that makes a jump at run speed cover
    /// `jump_distance` while peaking at `jump_height`: g = 8 h v² / d².
    pub fn gravity(&self) -> f32 {
        8.0 * self.jump_height * self.run_speed * self.run_speed
            / (self.jump_distance * self.jump_distance)
    }

    /// Launch speed (m/s, up) for that jump: v₀ = 4 h v / d.
    pub fn launch_speed(&self) -> f32 {
        4.0 * self.jump_height * self.run_speed / self.jump_distance
    }
}

/// What the player is doing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Locomotion {
    /// Standing, walking or running on the ground.
    Ground,
    /// Jumping or falling.
    Air,
    /// On a ladder (index into [`Level::ladders`]).
    Ladder(usize),
    /// Hanging from a ledge by the hands, catching it or climbing over it
    /// ([`Player::ledge`]).
    Ledge,
}

/// A move onto or off a ladder in progress: over its top onto the floor
/// beside it, from that floor onto the rungs, or from the floor at its foot
/// onto the rungs. The feet follow a fixed path from `from` to `to` over
/// `duration` ([`LADDER_TOP_TIME`], or [`LADDER_FOOT_TIME`] onto a ladder at
/// its foot), so the root moves continuously between climbing and
/// standing and the pose pipeline hands the limbs between rungs and floor by
/// the same progress.
///
/// Each coordinate follows a cubic Hermite curve over its own window of the
/// move, starting and ending at the velocities of the motions it joins (the
/// climb speed where it joins a climb, the walking speed the climber came
/// with, rest where it joins standing), so the velocity never jumps either.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LadderMove {
    /// True climbing off over the top onto the floor; false climbing on
    /// (from the floor at the top or at the foot).
    pub leaving: bool,
    /// Seconds into the move.
    pub t: f32,
    /// Seconds the whole move takes.
    pub duration: f32,
    /// The parts of the move (fractions of `duration`) in which x and y
    /// change: climbing off over the top the body rises first and steps
    /// across second; climbing on it steps across first and goes along the
    /// rungs second; catching a ladder in the air both at once. They
    /// overlap, so the motion never stops in between.
    pub windows: ((f32, f32), (f32, f32)),
    /// Feet position where the move started.
    pub from: Vec2,
    /// Feet position where it ends.
    pub to: Vec2,
    /// Velocity where it started, m/s.
    pub v_from: Vec2,
    /// Velocity where it ends, m/s.
    pub v_to: Vec2,
    /// +1 if the floor is right of the ladder, −1 left, 0 over the ladder
    /// itself (a plank it passes through).
    pub side: f32,
}

impl LadderMove {
    /// Feet position and velocity `t` seconds into the move.
    pub fn at(&self, t: f32) -> (Vec2, Vec2) {
        let u = (t / self.duration).clamp(0.0, 1.0);
        let ((xa, xb), (ya, yb)) = self.windows;
        let (x, vx) = hermite_window(
            u,
            self.duration,
            (xa, xb),
            (self.from.x, self.to.x),
            (self.v_from.x, self.v_to.x),
        );
        let (y, vy) = hermite_window(
            u,
            self.duration,
            (ya, yb),
            (self.from.y, self.to.y),
            (self.v_from.y, self.v_to.y),
        );
        (Vec2::new(x, y), Vec2::new(vx, vy))
    }

    /// Whether the feet and the climbing body stay out of every solid along
    /// the whole move (looked at every step's worth of progress).
    pub fn path_clear(&self, level: &Level) -> bool {
        let steps = (self.duration / DT).ceil() as usize;
        (0..=steps).all(|k| {
            let (p, _) = self.at(k as f32 * DT);
            !level.solid_overlaps(p.x - 1e-3, p.x + 1e-3, p.y + 0.01, p.y + 0.011)
                && !level.solid_overlaps(
                    p.x - CLIMB_HALF_WIDTH + 0.01,
                    p.x + CLIMB_HALF_WIDTH - 0.01,
                    p.y + MAX_STEP_UP + 0.01,
                    p.y + BODY_HEIGHT - 0.01,
                )
        })
    }

    /// Whether the move is over.
    pub fn done(&self) -> bool {
        self.t >= self.duration - 1e-5
    }

    /// How much the ladder holds the limbs, 0 to 1: leaving, it lets go as
    /// the body steps off ([`LadderMove::off_ladder`]); climbing on, it takes
    /// them over the whole move, so the hands meet the rungs once the clips
    /// have turned to the climb.
    pub fn hold(&self) -> f32 {
        if self.leaving {
            1.0 - self.off_ladder()
        } else {
            smoothstep(((self.t / self.duration - HOLD_FROM) / (1.0 - HOLD_FROM)).clamp(0.0, 1.0))
        }
    }

    /// How far the climber is off the ladder, 0 (on the rungs) to 1 (standing
    /// on the floor): the progress of the step across, eased. The pose
    /// pipeline fades ladder IK out, turns the body and hands the clips from
    /// the climb to the gait by it.
    pub fn off_ladder(&self) -> f32 {
        let u = (self.t / self.duration).clamp(0.0, 1.0);
        let ((xa, xb), _) = self.windows;
        let s = smoothstep(((u - xa) / (xb - xa)).clamp(0.0, 1.0));
        if self.leaving { s } else { 1.0 - s }
    }
}

/// Climbing onto a ladder, the fraction of the move after which the ladder
/// starts taking the limbs: once the clips are turning to the climb (at
/// the step across's middle, with a 0.4 s crossfade), so the hands go from
/// the climb clip's reach to the rungs, not from a pose still rising into it.
const HOLD_FROM: f32 = 0.4;
/// [`LadderMove::windows`] climbing off over a ladder's top.
const OFF_WINDOWS: ((f32, f32), (f32, f32)) = ((0.35, 1.0), (0.0, 0.6));
/// [`LadderMove::windows`] climbing onto a ladder from a floor.
const ON_WINDOWS: ((f32, f32), (f32, f32)) = ((0.0, 0.6), (0.4, 1.0));
/// [`LadderMove::windows`] catching a ladder in the air.
const CATCH_WINDOWS: ((f32, f32), (f32, f32)) = ((0.0, 0.6), (0.0, 0.6));
/// Seconds of its vertical speed a body catching a ladder in the air
/// travels on along the ladder while the hands take the rungs: the fall is
/// braked, not stopped in a step.
const CATCH_TRAVEL: f32 = 0.12;

/// A cubic Hermite curve from `p.0` (velocity `v.0`) to `p.1` (velocity
/// `v.1`, each limited so the curve never overshoots) over the window `w`
/// of a move's progress `u` (fractions of its duration `d`), constant
/// outside it. Returns the value and its time
/// derivative; before the window the velocity is `v.0`'s share that the
/// window has not begun (0), after it 0: a window starting at 0 starts at
/// `v.0`, one ending at 1 ends at `v.1`.
fn hermite_window(u: f32, d: f32, w: (f32, f32), p: (f32, f32), v: (f32, f32)) -> (f32, f32) {
    let span = (w.1 - w.0) * d;
    if u < w.0 {
        return (p.0, 0.0);
    }
    if u >= w.1 {
        return (p.1, if w.1 >= 1.0 { v.1 } else { 0.0 });
    }
    let s = (u - w.0) / (w.1 - w.0);
    // End slopes that would carry the curve past an end (a velocity away
    // from the target, or more than three times the mean) are limited, so
    // the feet never overshoot into the wall beside a ladder: the curve
    // stays monotone (Fritsch and Carlson's condition).
    let d = p.1 - p.0;
    let limit = |m: f32| {
        if m * d <= 0.0 {
            0.0
        } else {
            m.clamp(-3.0 * d.abs(), 3.0 * d.abs())
        }
    };
    let (m0, m1) = (limit(v.0 * span), limit(v.1 * span));
    let (s2, s3) = (s * s, s * s * s);
    let value = (2.0 * s3 - 3.0 * s2 + 1.0) * p.0
        + (s3 - 2.0 * s2 + s) * m0
        + (-2.0 * s3 + 3.0 * s2) * p.1
        + (s3 - s2) * m1;
    let ds = (6.0 * s2 - 6.0 * s) * p.0
        + (3.0 * s2 - 4.0 * s + 1.0) * m0
        + (-6.0 * s2 + 6.0 * s) * p.1
        + (3.0 * s2 - 2.0 * s) * m1;
    (value, ds / span)
}

/// 3t² − 2t³: 0 to 1 with zero slope at both ends.
fn smoothstep(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}

/// One step's input, already mapped from keys or a gamepad.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Input {
    /// Horizontal stick, −1 (left) to 1 (right).
    pub move_x: f32,
    /// Vertical stick, −1 (down) to 1 (up): ladders.
    pub move_y: f32,
    /// Run modifier held.
    pub run: bool,
    /// Jump pressed this step (an edge, not a level).
    pub jump_pressed: bool,
    /// Jump held (releasing early cuts the jump short).
    pub jump_held: bool,
}

/// The player's simulation state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Player {
    /// Feet position, metres.
    pub pos: Vec2,
    /// Velocity, m/s.
    pub vel: Vec2,
    /// Current locomotion state.
    pub state: Locomotion,
    /// +1 facing right, −1 facing left.
    pub facing: f32,
    /// Seconds since the player last stood on the ground.
    pub since_grounded: f32,
    /// Seconds since jump was last pressed (large when not recently).
    pub since_jump_pressed: f32,
    /// Seconds in the current state.
    pub state_time: f32,
    /// Set for one step when the player lands (the land clip starts).
    pub just_landed: bool,
    /// Distance climbed on the current ladder (drives the climb cycle phase).
    pub climb_distance: f32,
    /// The floor stood on (meaningful on the ground).
    pub floor: FloorKind,
    /// Index of that floor ([`Level::segments`], or the platform's index).
    pub floor_index: usize,
    /// The one-way plank being dropped through (ignored until the feet are
    /// [`DROP_CLEARANCE`] below it).
    pub drop_through: Option<usize>,
    /// Horizontal speed kept from a moving platform left by a jump, a drop
    /// or a walk off its edge, m/s: added to the air motion until landing,
    /// so a jump on a moving platform lands back on it.
    pub carry_vx: f32,
    /// How far a moving platform the body stands on carried it this step,
    /// metres (zero off one): the body's own motion is the rest of its
    /// displacement, which drives the gait's phase (`sim::animate`).
    pub carried: Vec2,
    /// The slope (rise over run) of the floor stood on, as last stood on.
    pub floor_slope: f32,
    /// The faces of the nearest walls within [`WALL_LOOKAHEAD`] to the left
    /// and right of a body on the ground (±infinity where none, and off the
    /// ground): the feet's floor probes stay on this side of them.
    pub wall_faces: (f32, f32),
    /// Where [`Player::wall_faces`] were looked up (NaN: not valid). They
    /// are reused while the body stays within [`WALL_REUSE`] of it (across
    /// and up) on a level without moving platforms: walls do not move, and
    /// the lookahead less the reuse distance still covers the braking
    /// distance. The ground step stops at them.
    pub walls_at: Vec2,
    /// A climb over the top of the ladder being climbed, while it lasts
    /// (only in [`Locomotion::Ladder`]).
    pub ladder_move: Option<LadderMove>,
    /// The ledge held, while [`Locomotion::Ledge`] lasts.
    pub ledge: Option<LedgeHang>,
    /// Seconds since the hands last let go of a ledge (large when never):
    /// no ledge is caught for [`LEDGE_REGRAB_TIME`] after.
    pub since_ledge_release: f32,
    /// The body's own horizontal speed in a step in which a corner moved
    /// it out ([`Level::corner_clearance`]; `vel.x` is then the speed of
    /// that move): the next step goes on from it, so the deflection does
    /// not carry the body away (from a ledge it is about to catch).
    pub corner_vx: Option<f32>,
    /// How far the body goes on before it stands still, metres, while the
    /// ground step is bringing it to a stop (the stick let go or turned,
    /// or a wall or the level's end ahead): its speed's braking distance
    /// at the ground deceleration (0 standing still). Infinite while it
    /// is not stopping, and off the ground. A swinging foot lands where
    /// the body will be, and a stopping body is not where its gait's
    /// stride would carry it.
    pub stop_distance: f32,
}

impl Player {
    /// A player standing at `spawn`.
    pub fn new(spawn: Vec2) -> Self {
        Self {
            pos: spawn,
            vel: Vec2::ZERO,
            state: Locomotion::Air,
            facing: 1.0,
            since_grounded: f32::INFINITY,
            since_jump_pressed: f32::INFINITY,
            state_time: 0.0,
            just_landed: false,
            climb_distance: 0.0,
            floor: FloorKind::Ground,
            floor_index: 0,
            drop_through: None,
            carry_vx: 0.0,
            carried: Vec2::ZERO,
            floor_slope: 0.0,
            wall_faces: (f32::NEG_INFINITY, f32::INFINITY),
            walls_at: Vec2::NAN,
            ladder_move: None,
            ledge: None,
            since_ledge_release: f32::INFINITY,
            corner_vx: None,
            stop_distance: f32::INFINITY,
        }
    }

    /// Where a foot at `x` looks for its floor: `x`, kept on the body's
    /// side of the walls beside it ([`Player::wall_faces`]), so no foot
    /// reads a floor beyond a wall it cannot step onto (the top of a wall
    /// higher than a step).
    pub fn foot_probe_x(&self, x: f32) -> f32 {
        let (l, r) = self.wall_faces;
        x.max(l + FOOT_WALL_INSET).min(r - FOOT_WALL_INSET)
    }

    /// The floors landing and walking may use now (all but a plank being
    /// dropped through).
    fn floor_filter(&self) -> FloorFilter {
        self.drop_through
            .map_or(FloorFilter::All, FloorFilter::Except)
    }

    /// What the feet at `(x, y)` stand on after a horizontal move: a solid
    /// floor up to a step above or a snap below, or a one-way floor at or
    /// below the feet (a plank is never stepped up onto from under it).
    fn support(&self, level: &Level, x: f32, y: f32) -> Option<FloorHit> {
        level.support_below(x, y, MAX_STEP_UP, MAX_SNAP_DOWN, self.floor_filter())
    }

    fn stand_on(&mut self, hit: &FloorHit) {
        self.floor_slope = hit.segment.slope();
        self.floor = hit.kind();
        self.floor_index = hit.index;
        self.drop_through = None;
        self.carry_vx = 0.0;
    }

    /// Moving platforms carry what stands on them and push what they run
    /// into: called after the platforms moved, before the player's own motion.
    fn ride_platforms(&mut self, level: &Level) {
        self.carried = Vec2::ZERO;
        if self.state == Locomotion::Ground
            && let FloorKind::Platform(i) = self.floor
            && let Some(p) = level.platforms.get(i as usize)
        {
            self.pos += p.delta();
            self.carried = p.delta();
            // Kept if this step leaves the platform (reset by landing).
            self.carry_vx = p.delta().x / DT;
        }
        let held = self.ride_ledge(level);
        for (i, p) in level.platforms.iter().enumerate() {
            if held == Some(i) {
                // The platform whose edge the hands hold carries the body
                // (above); it neither lifts nor pushes it.
                continue;
            }
            let s = p.solid();
            let (x0, x1) = (self.pos.x - BODY_HALF_WIDTH, self.pos.x + BODY_HALF_WIDTH);
            let overlaps = s.x1 > x0
                && s.x0 < x1
                && s.top0 > self.pos.y
                && s.bottom < self.pos.y + BODY_HEIGHT;
            if !overlaps {
                continue;
            }
            if s.top0 - self.pos.y <= MAX_STEP_UP.max(p.delta().y + 1e-3) {
                // Its top came up under the feet: stand on it.
                self.pos.y = s.top0;
                if self.state == Locomotion::Air && self.vel.y <= 0.0 {
                    self.vel.y = 0.0;
                    self.set_state(Locomotion::Ground);
                }
            } else {
                // Its side ran into the body: pushed along.
                self.pos.x = if p.delta().x > 0.0 || (p.delta().x == 0.0 && self.pos.x > p.pos.x) {
                    s.x1 + BODY_HALF_WIDTH
                } else {
                    s.x0 - BODY_HALF_WIDTH
                };
            }
        }
    }

    fn set_state(&mut self, s: Locomotion) {
        if self.state != s {
            self.state = s;
            self.state_time = 0.0;
            self.ladder_move = None;
            if s != Locomotion::Ledge {
                self.ledge = None;
            }
        }
    }

    /// Advances the player by one fixed step [`DT`].
    pub fn step(&mut self, level: &Level, params: &MoveParams, input: &Input) {
        let input = sanitize(input);
        if let Some(vx) = self.corner_vx.take() {
            self.vel.x = vx;
        }
        self.just_landed = false;
        self.state_time += DT;
        self.since_ledge_release += DT;
        self.since_jump_pressed = if input.jump_pressed {
            0.0
        } else {
            self.since_jump_pressed + DT
        };
        if input.move_x.abs() > 0.1 {
            self.facing = input.move_x.signum();
        }
        self.ride_platforms(level);
        self.stop_distance = f32::INFINITY;
        if self.state != Locomotion::Ground {
            self.wall_faces = (f32::NEG_INFINITY, f32::INFINITY);
            self.walls_at = Vec2::NAN;
        }
        match self.state {
            Locomotion::Ground => self.step_ground(level, params, &input),
            Locomotion::Air => self.step_air(level, params, &input),
            Locomotion::Ladder(i) => self.step_ladder(level, params, &input, i),
            Locomotion::Ledge => self.step_ledge(level, params, &input),
        }
        if self.pos.y < level.kill_height {
            *self = Player::new(level.spawn);
        }
    }

    fn try_start_climb(&mut self, level: &Level, params: &MoveParams, input: &Input) -> bool {
        if input.move_y.abs() < 0.5 {
            return false;
        }
        // Down from the floor at a ladder's top, the climber may stand where
        // a climb over that top left him, a little beyond arm's reach.
        let reach = if input.move_y < 0.0 {
            LADDER_TOP_REACH
        } else {
            LADDER_REACH
        };
        let Some((i, l)) = level.ladder_at(self.pos, reach) else {
            return false;
        };
        let at_bottom = self.pos.y < l.top - 0.5;
        if self.state == Locomotion::Air {
            // Caught in the air, up or down held (falling or at a jump's top,
            // past the ladder within reach): the body goes on a little at its
            // speed while it comes onto the rungs, then hangs there.
            if self.vel.y > 0.0 {
                return false;
            }
            let y = (self.pos.y + self.vel.y * CATCH_TRAVEL)
                .clamp(l.bottom, (l.top - LADDER_TOP_RISE).max(l.bottom));
            let mut m = LadderMove {
                leaving: false,
                t: 0.0,
                duration: LADDER_FOOT_TIME,
                windows: CATCH_WINDOWS,
                from: self.pos,
                to: Vec2::new(l.x, y),
                v_from: self.vel,
                v_to: Vec2::ZERO,
                side: (self.pos.x - l.x).signum(),
            };
            // Beside the floor's edge at the ladder's top the body first
            // moves across onto the rungs, then down: the straight path
            // would cut through the block under that floor.
            if !m.path_clear(level) {
                m.windows = ON_WINDOWS;
                if !m.path_clear(level) {
                    return false;
                }
            }
            self.set_state(Locomotion::Ladder(i));
            self.climb_distance = 0.0;
            // The move's first step is this one: the body never stands
            // still for a step as it starts.
            self.step_ladder_move(level, m);
            return true;
        }
        // Up at the bottom, or down while standing on the floor at its top:
        // step across onto the rungs and start along them, one continuous
        // move (walking speed in, climbing speed out).
        let (duration, to_y, v_y) = if input.move_y > 0.0 && at_bottom {
            (
                LADDER_FOOT_TIME,
                (self.pos.y + LADDER_TOP_RISE).min(l.top),
                params.climb_speed,
            )
        } else if input.move_y < 0.0 && !at_bottom {
            (
                LADDER_TOP_TIME,
                l.top - LADDER_TOP_RISE,
                -params.climb_speed,
            )
        } else {
            return false;
        };
        let m = LadderMove {
            leaving: false,
            t: 0.0,
            duration,
            windows: ON_WINDOWS,
            from: self.pos,
            to: Vec2::new(l.x, to_y),
            v_from: Vec2::new(self.vel.x, 0.0),
            v_to: Vec2::new(0.0, v_y),
            side: (self.pos.x - l.x).signum(),
        };
        self.set_state(Locomotion::Ladder(i));
        self.climb_distance = 0.0;
        self.step_ladder_move(level, m);
        true
    }

    fn step_ground(&mut self, level: &Level, params: &MoveParams, input: &Input) {
        self.since_grounded = 0.0;
        if self.try_start_climb(level, params, input) {
            return;
        }
        // Down + jump on a one-way plank: drop through it.
        if input.move_y < -0.5
            && self.since_jump_pressed <= params.jump_buffer
            && self.floor == FloorKind::OneWay
        {
            self.drop_through = Some(self.floor_index);
            self.since_jump_pressed = f32::INFINITY;
            self.vel.y = 0.0;
            self.set_state(Locomotion::Air);
            return;
        }
        if self.since_jump_pressed <= params.jump_buffer {
            // The take-off step moves the body already (it stood still for
            // one step before: a hitch in a running jump).
            self.jump(params);
            self.step_air(level, params, input);
            return;
        }
        let max_speed = if input.run {
            params.run_speed
        } else {
            params.walk_speed
        };
        // Speed is measured along the surface so the feet match the clip's
        // stride on slopes; convert to horizontal speed with the slope's cosine.
        // The floor stood on is nearly always last step's (looked at first).
        let slope = match level.segments.get(self.floor_index) {
            Some(s) if self.floor != FloorKind::Ground || !s.covers(self.pos.x) => level
                .floor_below_filtered(self.pos.x, self.pos.y, 0.05, self.floor_filter())
                .map_or(0.0, |h| h.segment.slope()),
            Some(s) => s.slope(),
            None => 0.0,
        };
        let cos = 1.0 / (1.0 + slope * slope).sqrt();
        let mut target_vx = input.move_x * max_speed * cos;
        // Ease to a stop at the level's end walls instead of hitting them:
        // never faster than what the ground deceleration can stop within the
        // room left (a sudden stop would snap the walk cycle to idle).
        let (x0, x1) = level.extent();
        // The largest v with v·DT + v²/(2a) ≤ room: this step's travel
        // plus the braking distance after it fit before the wall.
        let a = params.ground_accel;
        let stop = |room: f32| {
            let room = (room - LEVEL_END_MARGIN).max(0.0);
            a * ((DT * DT + 2.0 * room / a).sqrt() - DT)
        };
        // The same for walls ahead and behind: the body eases to a stop at
        // a wall instead of hitting it.
        let (y_lo, y_hi) = (self.pos.y + MAX_STEP_UP, self.pos.y + BODY_HEIGHT);
        let x = self.pos.x;
        let d = self.pos - self.walls_at;
        let reuse = level.platforms.is_empty() && d.abs().max_element() <= WALL_REUSE;
        if !reuse {
            let right = wall_ahead(level, x, 1.0, y_lo, y_hi).unwrap_or(f32::INFINITY);
            let left = wall_ahead(level, x, -1.0, y_lo, y_hi).unwrap_or(f32::NEG_INFINITY);
            self.wall_faces = (left - BODY_HALF_WIDTH, right + BODY_HALF_WIDTH);
            self.walls_at = self.pos;
        }
        let (left, right) = (
            self.wall_faces.0 + BODY_HALF_WIDTH,
            self.wall_faces.1 - BODY_HALF_WIDTH,
        );
        let brake = |room: f32| a * ((DT * DT + 2.0 * room.max(0.0) / a).sqrt() - DT);
        let wanted = target_vx;
        target_vx = target_vx
            .clamp(-stop(self.pos.x - x0), stop(x1 - self.pos.x))
            .clamp(-brake(x - left), brake(right - x));
        self.vel.x = approach(self.vel.x, target_vx, params.ground_accel * DT);
        // Stopping: asked for no speed this way (or the other way), in
        // its braking distance; or held back by a wall or the level's end
        // ahead, at it.
        if target_vx * self.vel.x <= 0.0 {
            self.stop_distance = self.vel.x * self.vel.x / (2.0 * a);
        } else if target_vx.abs() < wanted.abs() - 1e-4 {
            // (From where this step leaves the body.)
            let room = if target_vx > 0.0 {
                (x1 - x - LEVEL_END_MARGIN).min(right - x)
            } else {
                (x - x0 - LEVEL_END_MARGIN).min(x - left)
            };
            self.stop_distance = (room - self.vel.x.abs() * DT).max(0.0);
        }
        self.vel.y = 0.0;
        let (mut new_x, at_end) = within_ends(level, self.pos.x + self.vel.x * DT);
        if at_end {
            // What was left of the way to the wall (rounding only, after
            // the easing above).
            self.vel.x = (new_x - self.pos.x) / DT;
        }
        if new_x > right || new_x < left {
            // A wall (or a low ceiling's edge): stop at it.
            new_x = new_x.clamp(left, right);
            self.vel.x = 0.0;
        }
        match self.support(level, new_x, self.pos.y) {
            // Stepping up under a ceiling too low for the body: blocked.
            Some(h)
                if h.y > self.pos.y
                    && level.solid_overlaps(
                        new_x - BODY_HALF_WIDTH,
                        new_x + BODY_HALF_WIDTH,
                        h.y + MAX_STEP_UP,
                        h.y + BODY_HEIGHT,
                    ) =>
            {
                self.vel.x = 0.0;
            }
            Some(h) => {
                let prev_y = self.pos.y;
                self.pos = Vec2::new(new_x, h.y);
                self.vel.y = (h.y - prev_y) / DT;
                self.stand_on(&h);
            }
            None => {
                // Walked off a ledge or into a gap: stepping off with at
                // least enough speed that the body clears the ledge's face
                // before the feet drop a step below its top.
                self.pos.x = new_x;
                self.vel.y = 0.0;
                let dir = if self.vel.x.abs() > 1e-3 {
                    self.vel.x.signum()
                } else {
                    self.facing
                };
                if self.vel.x.abs() < WALK_OFF_SPEED {
                    self.vel.x = dir * WALK_OFF_SPEED;
                }
                self.set_state(Locomotion::Air);
            }
        }
    }

    fn jump(&mut self, params: &MoveParams) {
        self.vel.y = params.launch_speed();
        self.since_jump_pressed = f32::INFINITY;
        self.since_grounded = f32::INFINITY;
        self.set_state(Locomotion::Air);
    }

    fn step_air(&mut self, level: &Level, params: &MoveParams, input: &Input) {
        let start = self.pos;
        self.step_air_motion(level, params, input);
        if self.state == Locomotion::Air {
            self.try_grab(level, params, input, start);
        }
    }

    fn step_air_motion(&mut self, level: &Level, params: &MoveParams, input: &Input) {
        let start_x = self.pos.x;
        self.since_grounded += DT;
        if self.since_grounded <= params.coyote_time
            && self.since_jump_pressed <= params.jump_buffer
            && self.drop_through.is_none()
        {
            self.jump(params);
        }
        if self.try_start_climb(level, params, input) {
            return;
        }
        let g = params.gravity();
        // Releasing jump while rising cuts the jump short (variable height).
        let g = if self.vel.y > 0.0 && !input.jump_held {
            g * 2.5
        } else {
            g
        };
        let max_speed = if input.run {
            params.run_speed
        } else {
            params.walk_speed.max(self.vel.x.abs())
        };
        self.vel.x = approach(self.vel.x, input.move_x * max_speed, params.air_accel * DT);
        self.vel.y -= g * DT;
        let (mut x, at_end) = within_ends(level, self.pos.x + (self.vel.x + self.carry_vx) * DT);
        if at_end {
            self.vel.x = 0.0;
            self.carry_vx = 0.0;
        }
        // Horizontal: swept against every solid face on the way.
        if let Some(stop) = level.wall_between(
            self.pos.x,
            x,
            BODY_HALF_WIDTH,
            self.pos.y + MAX_STEP_UP,
            self.pos.y + BODY_HEIGHT,
        ) {
            x = stop;
            self.vel.x = 0.0;
            self.carry_vx = 0.0;
        }
        let mut new_y = self.pos.y + self.vel.y * DT;
        // Rising: the head stops at the lowest ceiling on the way.
        if self.vel.y > 0.0
            && let Some(c) = level.ceiling_above(
                x - BODY_HALF_WIDTH,
                x + BODY_HALF_WIDTH,
                self.pos.y + BODY_HEIGHT,
                new_y - self.pos.y + 1e-3,
            )
            && new_y + BODY_HEIGHT > c
        {
            new_y = (c - BODY_HEIGHT).max(self.pos.y);
            self.vel.y = 0.0;
        }
        if let Some(i) = self.drop_through
            && let Some(s) = level.segments.get(i)
            && (!s.covers(x) || new_y < s.height_at(x) - DROP_CLEARANCE)
        {
            self.drop_through = None;
        }
        // Vertical: swept from this step's start down to its end. Solid
        // floors are met up to a step above the feet (the feet ride over an
        // edge lower than a wall), one-way floors only from above.
        let solid = level.floor_below_filtered(
            x,
            self.pos.y.max(new_y) + MAX_STEP_UP,
            self.pos.y.max(new_y) + MAX_STEP_UP - new_y,
            FloorFilter::Solid,
        );
        let one_way = if self.vel.y <= 0.0 {
            level.floor_below_filtered(
                x,
                self.pos.y,
                self.pos.y - new_y + FLOOR_SWEEP_EPS,
                self.floor_filter(),
            )
        } else {
            None
        };
        let floor = match (solid, one_way) {
            (Some(a), Some(b)) => Some(if b.y > a.y { b } else { a }),
            (a, b) => a.or(b),
        };
        match floor {
            Some(h) if self.vel.y <= 0.0 && new_y <= h.y => {
                self.pos = Vec2::new(x, h.y);
                self.vel.y = 0.0;
                self.just_landed = true;
                self.since_grounded = 0.0;
                self.stand_on(&h);
                self.set_state(Locomotion::Ground);
            }
            // Rising across the edge of a step lower than a wall (e.g. jumping
            // off a ladder beside it): the feet ride over the edge instead of
            // passing through the ground, and the jump goes on.
            Some(h) if new_y < h.y && h.kind() != FloorKind::OneWay => self.pos = Vec2::new(x, h.y),
            _ => self.pos = Vec2::new(x, new_y),
        }
        // Falling past a corner beside the body with its legs over the
        // solid's side (walked off an edge and turned back at once): the
        // corner moves it out as it falls (see `Level::corner_clearance`),
        // continuously and with the velocity that carries it this step
        // (the next goes on from its own, `corner_vx`), so the body never
        // enters the side and is never snapped out of it.
        // Only where the body falls on past the corner (no floor within a
        // step under it: dropping down a stair it lands first, as before).
        if self.state == Locomotion::Air
            && level
                .floor_below(self.pos.x, self.pos.y, MAX_STEP_UP)
                .is_none()
            && let Some(clear) =
                level.corner_clearance(self.pos.x, BODY_HALF_WIDTH, self.pos.y, MAX_STEP_UP)
            && !level.solid_overlaps(
                clear - BODY_HALF_WIDTH,
                clear + BODY_HALF_WIDTH,
                self.pos.y + MAX_STEP_UP,
                self.pos.y + BODY_HEIGHT,
            )
        {
            self.corner_vx = Some(self.vel.x);
            self.vel.x = (clear - start_x) / DT;
            self.carry_vx = 0.0;
            self.pos.x = clear;
        }
        // Still in the air and overlapping a block (stepping off a ledge
        // slowly, a platform's push): moved out sideways to the nearer free
        // side.
        if self.state == Locomotion::Air
            && let Some(clear) = level.push_out_x(
                self.pos.x,
                BODY_HALF_WIDTH,
                self.pos.y + MAX_STEP_UP,
                self.pos.y + BODY_HEIGHT,
            )
        {
            self.pos.x = clear;
        }
    }

    fn step_ladder(&mut self, level: &Level, params: &MoveParams, input: &Input, i: usize) {
        let Some(l) = level.ladders.get(i).copied() else {
            self.set_state(Locomotion::Air);
            return;
        };
        self.since_grounded = 0.0;
        if let Some(o) = self.ladder_move {
            self.step_ladder_move(level, o);
            return;
        }
        if input.jump_pressed {
            self.vel = Vec2::new(
                input.move_x * params.walk_speed,
                params.launch_speed() * 0.6,
            );
            // Off the ladder the body takes its full width: clear of a wall
            // the climber was beside.
            if let Some(clear) = level.push_out_x(
                self.pos.x,
                BODY_HALF_WIDTH,
                self.pos.y + MAX_STEP_UP,
                self.pos.y + BODY_HEIGHT,
            ) {
                self.pos.x = clear;
            }
            self.set_state(Locomotion::Air);
            // The jump's first step moves the body already, as a jump from
            // the ground does (it hung still for a step, a 2 cm hitch).
            self.step_air(level, params, input);
            return;
        }
        let dy = input.move_y.clamp(-1.0, 1.0) * params.climb_speed * DT;
        // Near the top going up: climb over onto the floor beside it, one
        // continuous move that starts at the climbing speed.
        if dy > 0.0
            && self.pos.y + dy >= l.top - LADDER_TOP_RISE
            && let Some((to, side)) = self.top_exit(level, &l)
        {
            let o = LadderMove {
                leaving: true,
                t: 0.0,
                duration: LADDER_TOP_TIME,
                windows: OFF_WINDOWS,
                from: self.pos,
                to,
                v_from: Vec2::new(0.0, dy / DT),
                v_to: Vec2::ZERO,
                side,
            };
            self.step_ladder_move(level, o);
            return;
        }
        // Slide onto the centre line, then climb. Near the foot of a ladder
        // closer to a wall than half a body, going down, the climber slides
        // off the centre line to where the whole body stands clear of the
        // wall, so he steps off onto the floor without entering it.
        let mut target_x = l.x;
        if dy < 0.0
            && self.pos.y - l.bottom < LADDER_FOOT_CLEARING
            && let Some(clear) = level.push_out_x(
                l.x,
                BODY_HALF_WIDTH,
                l.bottom + MAX_STEP_UP,
                l.bottom + BODY_HEIGHT,
            )
        {
            target_x = clear;
        }
        self.pos.x = approach(self.pos.x, target_x, 2.0 * DT);
        // Going down, the body first slides clear of the floor's edge at the
        // ladder's top: it never sinks into the block beside the ladder.
        let blocked = dy < 0.0
            && level.solid_overlaps(
                self.pos.x - CLIMB_HALF_WIDTH,
                self.pos.x + CLIMB_HALF_WIDTH,
                self.pos.y + dy + MAX_STEP_UP,
                self.pos.y + dy + BODY_HEIGHT,
            );
        let dy = if blocked { 0.0 } else { dy };
        self.vel = Vec2::new(0.0, dy / DT);
        self.pos.y += dy;
        self.climb_distance += dy;
        // Still over a solid floor at the ladder's top (sliding onto the
        // centre line after starting down from there): the feet stay on that
        // floor instead of sinking into it. A one-way plank the ladder passes
        // through is climbed through.
        if let Some(h) = level.floor_below_filtered(
            self.pos.x,
            l.top + FLOOR_SWEEP_EPS,
            0.05,
            FloorFilter::Solid,
        ) && self.pos.y < h.y
            && h.y > l.bottom + MAX_STEP_UP
        {
            self.pos.y = h.y;
        }
        if self.pos.y >= l.top && dy > 0.0 {
            // A ladder with no floor at its top: the climb ends there.
            self.pos.y = l.top;
        } else if dy < 0.0
            && let Some(h) = level.floor_below(self.pos.x, self.pos.y - dy + FLOOR_SWEEP_EPS, -dy + 0.01)
            && self.pos.y <= h.y
            // Only the floor at the ladder's foot ends a descent: the floor
            // at its top is where a downward climb starts.
            && h.y <= l.bottom + MAX_STEP_UP
        {
            self.pos.y = h.y;
            // What is left of the slide clear of a wall (none after a
            // descent of more than LADDER_FOOT_CLEARING).
            if let Some(clear) = level.push_out_x(
                self.pos.x,
                BODY_HALF_WIDTH,
                h.y + MAX_STEP_UP,
                h.y + BODY_HEIGHT,
            ) {
                self.pos.x = clear;
            }
            // Standing at the foot: the descent is over (the velocity said
            // still climbing down the step the body stood on the floor).
            self.vel = Vec2::ZERO;
            self.stand_on(&h);
            self.set_state(Locomotion::Ground);
        } else if self.pos.y < l.bottom - 0.05 {
            self.set_state(Locomotion::Air);
        }
    }

    /// Where a climb over the top of `l` ends, and on which side: a floor
    /// over the ladder itself (a plank it passes through) where the climb
    /// is, else the floor within a step of the top beside it, the side the
    /// climber faces first.
    fn top_exit(&self, level: &Level, l: &Ladder) -> Option<(Vec2, f32)> {
        let at_top = |x: f32| {
            level
                .floor_below(x, l.top + MAX_STEP_UP, 2.0 * MAX_STEP_UP)
                .filter(|h| (h.y - l.top).abs() < MAX_STEP_UP)
        };
        if let Some(h) = at_top(l.x) {
            return Some((Vec2::new(l.x, h.y), 0.0));
        }
        let first = if self.facing < 0.0 { -1.0 } else { 1.0 };
        [first, -first].into_iter().find_map(|side| {
            let x = l.x + side * LADDER_TOP_STEP;
            at_top(x).map(|h| (Vec2::new(x, h.y), side))
        })
    }

    /// One step of a climb over a ladder's top ([`LadderMove`]): the feet
    /// follow its path; at its end the climber stands on the floor (up) or
    /// climbs on down the rungs (down).
    fn step_ladder_move(&mut self, level: &Level, mut o: LadderMove) {
        o.t = (o.t + DT).min(o.duration);
        let (pos, vel) = o.at(o.t);
        // The climb cycle goes on with the height climbed.
        self.climb_distance += pos.y - self.pos.y;
        self.pos = pos;
        self.vel = vel;
        if !o.done() {
            self.ladder_move = Some(o);
            return;
        }
        self.ladder_move = None;
        if !o.leaving {
            return;
        }
        if o.side != 0.0 {
            self.facing = o.side;
        }
        match level.floor_below(pos.x, pos.y + MAX_STEP_UP, 2.0 * MAX_STEP_UP) {
            Some(h) => {
                self.pos.y = h.y;
                self.vel = Vec2::ZERO;
                self.stand_on(&h);
                self.set_state(Locomotion::Ground);
            }
            None => self.set_state(Locomotion::Air),
        }
    }
}

/// Tolerance of the swept floor checks, metres.
const FLOOR_SWEEP_EPS: f32 = 1e-3;

/// Where a body on the ground at `x` (feet; body heights `y_lo..y_hi` above
/// a step) stops at the first wall within [`WALL_LOOKAHEAD`] in direction
/// `dir`: a solid face the body would run into whose top is more than a
/// step above the floor just before it. A face the ground itself rises to
/// (a slope or a stair ahead, higher than the feet now but walked up to) is
/// no wall.
fn wall_ahead(level: &Level, x: f32, dir: f32, y_lo: f32, y_hi: f32) -> Option<f32> {
    let stop = level.wall_between(x, x + dir * WALL_LOOKAHEAD, BODY_HALF_WIDTH, y_lo, y_hi)?;
    let face = stop + dir * BODY_HALF_WIDTH;
    // The floor the body will stand on where it would stop: within a step
    // plus a walkable slope's rise or fall over the way there (a plank
    // too). With none, the face counts as a wall.
    let before = stop - dir * 1e-3;
    let run = (stop - x).abs() * MAX_WALKABLE_SLOPE;
    let Some(floor) = level.floor_below(before, y_lo + run, 2.0 * (MAX_STEP_UP + run)) else {
        return Some(stop);
    };
    let wall = level.solid_overlaps(
        face.min(face + dir * 1e-2),
        face.max(face + dir * 1e-2),
        floor.y + MAX_STEP_UP,
        floor.y + BODY_HEIGHT,
    );
    wall.then_some(stop)
}

/// Moves `v` toward `target` by at most `max_delta`.
fn approach(v: f32, target: f32, max_delta: f32) -> f32 {
    v + (target - v).clamp(-max_delta, max_delta)
}

/// Replaces NaN or out-of-range stick values so bad input never reaches the state.
fn sanitize(input: &Input) -> Input {
    let clean = |v: f32| {
        if v.is_finite() {
            v.clamp(-1.0, 1.0)
        } else {
            0.0
        }
    };
    Input {
        move_x: clean(input.move_x),
        move_y: clean(input.move_y),
        ..*input
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::sim::world::{GroundSegment, MovingPlatform, SolidBox};

    fn run(p: &mut Player, level: &Level, input: Input, steps: usize) {
        for _ in 0..steps {
            p.step(level, &MoveParams::default(), &input);
        }
    }

    fn press_jump(p: &mut Player, level: &Level, extra: Input) {
        let press = Input {
            jump_pressed: true,
            jump_held: true,
            ..extra
        };
        p.step(level, &MoveParams::default(), &press);
    }

    /// Ground at 0 over -8..8 plus what the test adds.
    fn level_with(
        extra_floors: Vec<GroundSegment>,
        extra_solids: Vec<SolidBox>,
        ladders: Vec<Ladder>,
    ) -> Level {
        let mut floors = vec![GroundSegment::ground(-8.0, 8.0, 0.0, 0.0)];
        floors.extend(extra_floors);
        let mut solids = vec![SolidBox {
            x0: -8.0,
            x1: 8.0,
            bottom: -4.0,
            top0: 0.0,
            top1: 0.0,
        }];
        solids.extend(extra_solids);
        Level::new(
            "test",
            floors,
            solids,
            ladders,
            vec![],
            Vec2::ZERO,
            Vec2::X,
            -10.0,
        )
    }

    #[test]
    fn a_plank_over_the_body_is_no_floor_for_its_feet_but_one_under_it_is() {
        // A plank 0.25 m up from x = 0.5: within the feet's probe range
        // (a step up, and more over the distance from the body), but the
        // body walks under it, so a foot under it stands on the ground.
        let level = level_with(vec![GroundSegment::one_way(0.5, 3.0, 0.25)], vec![], vec![]);
        let mut p = Player::new(Vec2::ZERO);
        settle(&mut p, &level);
        let (top, depth) = foot_probe_range(p.pos, 0.7);
        let probed = level.floor_below(0.7, top, depth).map(|h| h.y);
        assert_eq!(probed, Some(0.25), "the plain probe finds the plank");
        assert_eq!(
            foot_floor(&level, p.pos, 0.7, top, depth).map(|h| h.y),
            Some(0.0)
        );
        // Standing on the plank, the feet stand on it too.
        let on = Vec2::new(1.5, 0.25);
        let (top, depth) = foot_probe_range(on, 1.3);
        assert_eq!(
            foot_floor(&level, on, 1.3, top, depth).map(|h| h.y),
            Some(0.25)
        );
        // A solid step up within the range is a foot's floor from below.
        let step = level_with(
            vec![GroundSegment::ground(0.5, 3.0, 0.25, 0.25)],
            vec![],
            vec![],
        );
        let mut p = Player::new(Vec2::ZERO);
        settle(&mut p, &step);
        let (top, depth) = foot_probe_range(p.pos, 0.7);
        assert_eq!(
            foot_floor(&step, p.pos, 0.7, top, depth).map(|h| h.y),
            Some(0.25)
        );
    }

    #[test]
    fn one_way_planks_are_jumped_up_through_landed_on_and_dropped_through() {
        let level = level_with(vec![GroundSegment::one_way(-1.0, 1.0, 1.0)], vec![], vec![]);
        let mut p = Player::new(Vec2::ZERO);
        settle(&mut p, &level);
        press_jump(&mut p, &level, Input::default());
        let held = Input {
            jump_held: true,
            ..Input::default()
        };
        let mut apex: f32 = 0.0;
        for _ in 0..200 {
            p.step(&level, &MoveParams::default(), &held);
            apex = apex.max(p.pos.y);
            if p.state == Locomotion::Ground {
                break;
            }
        }
        assert!(apex > 1.1, "rose through the plank: apex {apex}");
        assert_eq!(p.state, Locomotion::Ground);
        assert_eq!(
            (p.pos.y, p.floor),
            (1.0, FloorKind::OneWay),
            "landed on the plank"
        );
        // Down alone does nothing; down + jump drops through to the ground.
        let down = Input {
            move_y: -1.0,
            ..Input::default()
        };
        run(&mut p, &level, down, 10);
        assert_eq!(p.pos.y, 1.0);
        press_jump(&mut p, &level, down);
        run(&mut p, &level, Input::default(), 120);
        assert_eq!(
            (p.state, p.pos.y, p.floor),
            (Locomotion::Ground, 0.0, FloorKind::Ground)
        );
        assert!(p.drop_through.is_none());
        // A plank at shin height is not stepped up onto from below.
        let low = level_with(vec![GroundSegment::one_way(1.0, 3.0, 0.2)], vec![], vec![]);
        let mut p = Player::new(Vec2::ZERO);
        settle(&mut p, &low);
        run(
            &mut p,
            &low,
            Input {
                move_x: 1.0,
                ..Input::default()
            },
            250,
        );
        assert!(
            p.pos.x > 3.0 && p.pos.y == 0.0,
            "walked under the plank: {p:?}"
        );
    }

    #[test]
    fn a_ceiling_cuts_a_jump_and_a_wall_stops_the_body() {
        // A ceiling 2.5 m up: a jump peaks at 1.25 m, the head at 3.0 m.
        let ceiling = SolidBox {
            x0: -2.0,
            x1: 2.0,
            bottom: 2.5,
            top0: 3.0,
            top1: 3.0,
        };
        let wall = SolidBox {
            x0: 4.0,
            x1: 4.05,
            bottom: 0.0,
            top0: 6.0,
            top1: 6.0,
        };
        let level = level_with(
            vec![GroundSegment::ground(4.0, 4.05, 6.0, 6.0)],
            vec![ceiling, wall],
            vec![],
        );
        let mut p = Player::new(Vec2::ZERO);
        settle(&mut p, &level);
        press_jump(&mut p, &level, Input::default());
        let mut apex: f32 = 0.0;
        while p.state == Locomotion::Air {
            p.step(
                &level,
                &MoveParams::default(),
                &Input {
                    jump_held: true,
                    ..Input::default()
                },
            );
            apex = apex.max(p.pos.y);
        }
        assert!(
            (apex + BODY_HEIGHT - 2.5).abs() < 1e-3,
            "the head stops at the ceiling: feet apex {apex}"
        );
        // Running and jumping at a 5 cm wall: stopped at its face, every step.
        let mut p = Player::new(Vec2::new(2.5, 0.0));
        settle(&mut p, &level);
        for i in 0..400 {
            let input = Input {
                move_x: 1.0,
                run: true,
                jump_pressed: i % 60 == 0,
                jump_held: i % 60 < 30,
                ..Input::default()
            };
            p.step(&level, &MoveParams::default(), &input);
            assert!(
                p.pos.x <= 4.0 - BODY_HALF_WIDTH + 1e-4,
                "through the wall at step {i}: {p:?}"
            );
        }
    }

    #[test]
    fn no_fall_speed_tunnels_through_a_thin_floor() {
        // Falls from up to 60 m (about 34 m/s, 0.53 m a step) onto a 2 cm
        // solid slab and onto a plank: the feet stop on the top.
        for (floor, solid) in [
            (
                GroundSegment::ground(-1.0, 1.0, 1.0, 1.0),
                Some(SolidBox {
                    x0: -1.0,
                    x1: 1.0,
                    bottom: 0.98,
                    top0: 1.0,
                    top1: 1.0,
                }),
            ),
            (GroundSegment::one_way(-1.0, 1.0, 1.0), None),
        ] {
            let level = level_with(vec![floor], solid.into_iter().collect(), vec![]);
            for h in [3.0f32, 10.0, 25.0, 60.0] {
                let mut p = Player::new(Vec2::new(0.0, h));
                run(&mut p, &level, Input::default(), 600);
                assert_eq!(
                    (p.state, p.pos.y),
                    (Locomotion::Ground, 1.0),
                    "fell from {h} through {floor:?}"
                );
            }
        }
    }

    #[test]
    fn walking_off_a_floating_platform_falls_to_the_floor_below() {
        let block = SolidBox {
            x0: -2.0,
            x1: 2.0,
            bottom: 1.5,
            top0: 2.0,
            top1: 2.0,
        };
        let level = level_with(
            vec![GroundSegment::ground(-2.0, 2.0, 2.0, 2.0)],
            vec![block],
            vec![],
        );
        let mut p = Player::new(Vec2::new(0.0, 2.5));
        settle(&mut p, &level);
        assert_eq!(
            p.pos.y, 2.0,
            "stands on the platform, not the ground under it"
        );
        let mut left_at = None;
        for i in 0..400 {
            p.step(
                &level,
                &MoveParams::default(),
                &Input {
                    move_x: 1.0,
                    ..Input::default()
                },
            );
            if p.state == Locomotion::Air && left_at.is_none() {
                left_at = Some((i, p.pos.x));
            }
        }
        let (_, x) = left_at.expect("walked off the edge");
        assert!(
            (x - 2.0).abs() < 0.05,
            "left the platform at its edge, x = {x}"
        );
        assert_eq!((p.state, p.pos.y), (Locomotion::Ground, 0.0));
        // Walking back under it: the tunnel (1.5 m) is lower than the body,
        // so its edge is a wall.
        run(
            &mut p,
            &level,
            Input {
                move_x: -1.0,
                ..Input::default()
            },
            300,
        );
        assert!(
            (p.pos.x - (2.0 + BODY_HALF_WIDTH)).abs() < 1e-3,
            "stopped at the low tunnel: {p:?}"
        );
    }

    #[test]
    fn walking_off_an_edge_and_turning_back_at_once_slides_off_the_corner_without_a_snap() {
        // A 3 m block over x -2..2 on the ground. Walked (or run) off its
        // right edge, the body turns back toward it at once: falling past
        // the corner with its legs over the block's side, it is moved out
        // continuously (the corner deflects it as it falls), never snapped
        // out of the block's side in one step (it was: by up to 13.6 cm),
        // and never overlaps the block. Every step's displacement is
        // explained by the velocities before and after it within 1 cm (the
        // root snap's measure).
        let block = SolidBox {
            x0: -2.0,
            x1: 2.0,
            bottom: 0.0,
            top0: 3.0,
            top1: 3.0,
        };
        let level = level_with(
            vec![GroundSegment::ground(-2.0, 2.0, 3.0, 3.0)],
            vec![block],
            vec![],
        );
        for (running, back_after) in [(false, 0), (false, 3), (true, 0), (true, 2)] {
            let mut p = Player::new(Vec2::new(1.0, 3.0));
            settle(&mut p, &level);
            let right = Input {
                move_x: 1.0,
                run: running,
                ..Input::default()
            };
            let mut steps = 0;
            while p.state == Locomotion::Ground {
                p.step(&level, &MoveParams::default(), &right);
                steps += 1;
                assert!(steps < 400, "never walked off: {p:?}");
            }
            run(&mut p, &level, right, back_after);
            let left = Input {
                move_x: -1.0,
                ..right
            };
            let mut worst: f32 = 0.0;
            for _ in 0..200 {
                let (x, vx) = (p.pos.x, p.vel.x);
                p.step(&level, &MoveParams::default(), &left);
                if p.state == Locomotion::Ledge {
                    break;
                }
                let dx = p.pos.x - x;
                let (lo, hi) = (vx.min(p.vel.x) * DT, vx.max(p.vel.x) * DT);
                let snap = (lo - dx).max(dx - hi).max(0.0);
                worst = worst.max(snap);
                assert!(
                    !level.solid_overlaps(
                        p.pos.x - BODY_HALF_WIDTH,
                        p.pos.x + BODY_HALF_WIDTH,
                        p.pos.y + MAX_STEP_UP,
                        p.pos.y + BODY_HEIGHT
                    ),
                    "inside the block: {p:?}"
                );
                if p.state == Locomotion::Ground {
                    break;
                }
            }
            assert!(
                worst <= 0.01,
                "run {running}, back after {back_after}: snapped {worst} m out of the block's side"
            );
            assert!(p.pos.x >= 2.0 + BODY_HALF_WIDTH - 1e-3, "{p:?}");
        }
    }

    #[test]
    fn a_ladder_joins_the_ground_to_a_plank_it_passes_through() {
        let ladder = Ladder {
            x: 0.0,
            bottom: 0.0,
            top: 3.0,
            rung_spacing: 0.3,
            first_rung_offset: 0.3,
            half_width: 0.25,
        };
        let level = level_with(
            vec![GroundSegment::one_way(-1.5, 1.5, 3.0)],
            vec![],
            vec![ladder],
        );
        let mut p = Player::new(Vec2::new(0.2, 0.0));
        settle(&mut p, &level);
        let up = Input {
            move_y: 1.0,
            ..Input::default()
        };
        run(&mut p, &level, up, 1);
        assert_eq!(p.state, Locomotion::Ladder(0));
        for _ in 0..600 {
            p.step(&level, &MoveParams::default(), &up);
            if p.state == Locomotion::Ground {
                break;
            }
        }
        assert_eq!(
            (p.state, p.pos.y, p.floor),
            (Locomotion::Ground, 3.0, FloorKind::OneWay),
            "on the plank"
        );
        assert!(p.pos.x.abs() < 0.3, "came up through the plank: {p:?}");
        let down = Input {
            move_y: -1.0,
            ..Input::default()
        };
        run(&mut p, &level, down, 1);
        assert_eq!(
            p.state,
            Locomotion::Ladder(0),
            "down at the top climbs down through the plank"
        );
        for _ in 0..600 {
            p.step(&level, &MoveParams::default(), &down);
            if p.state == Locomotion::Ground {
                break;
            }
        }
        assert_eq!((p.state, p.pos.y), (Locomotion::Ground, 0.0));
    }

    /// Runs `steps` steps of a level with moving platforms the way the
    /// simulation does: platforms first, then the controller.
    fn run_moving(
        p: &mut Player,
        level: &mut Level,
        t0: &mut u64,
        input: Input,
        steps: usize,
        mut check: impl FnMut(&Player, &Level),
    ) {
        for _ in 0..steps {
            *t0 += 1;
            level.advance_platforms(*t0 as f32 * DT);
            p.step(level, &MoveParams::default(), &input);
            check(p, level);
        }
    }

    #[test]
    fn moving_platforms_carry_riders_who_walk_and_jump_on_them_and_never_sink() {
        let mut level = level_with(vec![], vec![], vec![]);
        // A lift from 0.5 m to 3 m and a ferry from x = 2 to 6 at 1.5 m.
        level.platforms.push(MovingPlatform::new(
            vec![Vec2::new(-4.0, 0.5), Vec2::new(-4.0, 3.0)],
            0.75,
            0.25,
            1.0,
            1.0,
        ));
        level.platforms.push(MovingPlatform::new(
            vec![Vec2::new(2.0, 1.5), Vec2::new(6.0, 1.5)],
            0.75,
            0.25,
            1.2,
            0.5,
        ));
        let mut t = 0u64;
        let mut p = Player::new(Vec2::new(-4.0, 1.0));
        run_moving(&mut p, &mut level, &mut t, Input::default(), 32, |_, _| {});
        assert_eq!(p.floor, FloorKind::Platform(0), "landed on the lift: {p:?}");
        let mut top: f32 = 0.0;
        run_moving(
            &mut p,
            &mut level,
            &mut t,
            Input::default(),
            64 * 5,
            |p, l| {
                assert_eq!(p.state, Locomotion::Ground);
                assert!(
                    (p.pos.y - l.platforms[0].pos.y).abs() < 1e-4,
                    "rider off the lift's top: {p:?}"
                );
                top = top.max(p.pos.y);
            },
        );
        assert!(top > 2.9, "rode the lift up: {top}");
        // The ferry: board it from a jump, ride, walk on it, jump on it.
        let above = level.platforms[1].position_at((t + 1) as f32 * DT) + Vec2::new(0.0, 0.3);
        let mut p = Player::new(above);
        run_moving(&mut p, &mut level, &mut t, Input::default(), 40, |_, _| {});
        assert_eq!(p.floor, FloorKind::Platform(1));
        let mut prev = (p.pos.x - level.platforms[1].pos.x, 0);
        run_moving(&mut p, &mut level, &mut t, Input::default(), 200, |p, l| {
            let rel = p.pos.x - l.platforms[1].pos.x;
            assert!(
                (rel - prev.0).abs() < 1e-4,
                "standing still on the ferry moved {}",
                rel - prev.0
            );
            assert!((p.pos.y - 1.5).abs() < 1e-4);
            prev.1 += 1;
        });
        let before = p.pos.x - level.platforms[1].pos.x;
        // Walking on it, the body's own motion (what drives its gait) is
        // its displacement less the ferry's carry, never the sum.
        let (mut at, mut own, mut carried) = (p.pos, 0.0f32, 0.0f32);
        run_moving(
            &mut p,
            &mut level,
            &mut t,
            Input {
                move_x: -1.0,
                ..Input::default()
            },
            20,
            |p, _| {
                own += (p.pos - at - p.carried).x;
                carried += p.carried.x.abs();
                at = p.pos;
            },
        );
        let walked = p.pos.x - level.platforms[1].pos.x - before;
        assert!(walked < -0.2, "walked along the ferry: {walked}");
        assert!(
            (own - walked).abs() < 1e-3,
            "own motion {own}, walked {walked}"
        );
        assert!(carried > 0.05, "the ferry carried the body {carried} m");
        press_jump(&mut p, &level, Input::default());
        run_moving(
            &mut p,
            &mut level,
            &mut t,
            Input {
                jump_held: true,
                ..Input::default()
            },
            120,
            |_, _| {},
        );
        assert_eq!(p.state, Locomotion::Ground);
        assert!(p.pos.y >= 1.5 - 1e-4, "landed back on it or beside: {p:?}");
    }

    #[test]
    fn a_platforms_side_pushes_the_body() {
        let mut level = level_with(vec![], vec![], vec![]);
        // A low cart at knee height sweeping along the ground.
        level.platforms.push(MovingPlatform::new(
            vec![Vec2::new(-6.0, 0.6), Vec2::new(0.0, 0.6)],
            0.5,
            0.5,
            1.0,
            0.0,
        ));
        let mut t = 0u64;
        let mut p = Player::new(Vec2::new(-3.0, 0.0));
        run_moving(
            &mut p,
            &mut level,
            &mut t,
            Input::default(),
            64 * 6,
            |p, l| {
                let s = l.platforms[0].solid();
                let body = (p.pos.x - BODY_HALF_WIDTH, p.pos.x + BODY_HALF_WIDTH);
                let inside =
                    body.1 > s.x0 + 1e-3 && body.0 < s.x1 - 1e-3 && p.pos.y < s.top0 - 1e-3;
                assert!(!inside, "the cart went into the body: {p:?} {s:?}");
            },
        );
        let s = level.platforms[0].solid();
        assert!(
            (p.pos.x - (s.x1 + BODY_HALF_WIDTH)).abs() < 1e-4 && s.x1 > 0.45,
            "pushed along to the path's end: {p:?}"
        );
    }

    fn settle(p: &mut Player, level: &Level) {
        for _ in 0..64 {
            p.step(level, &MoveParams::default(), &Input::default());
        }
    }

    /// Flat ground at height 0 from `x0` to `x1`, spawn at the origin.
    fn flat_level(x0: f32, x1: f32) -> Level {
        Level::from_profile(
            "flat",
            vec![crate::sim::world::GroundSegment::ground(x0, x1, 0.0, 0.0)],
            vec![],
            Vec2::ZERO,
            Vec2::X,
            -10.0,
        )
    }

    #[test]
    fn the_level_ends_are_walls_on_the_ground_and_in_the_air() {
        let level = flat_level(-2.0, 2.0);
        let params = MoveParams::default();
        for dir in [-1.0f32, 1.0] {
            let mut p = Player::new(Vec2::ZERO);
            settle(&mut p, &level);
            for i in 0..600 {
                // Run at the end, jumping now and then.
                let input = Input {
                    move_x: dir,
                    run: true,
                    jump_pressed: i % 50 == 0,
                    jump_held: i % 50 < 20,
                    ..Input::default()
                };
                p.step(&level, &params, &input);
                assert!(
                    p.pos.x.abs() <= 2.0 - LEVEL_END_MARGIN + 1e-5,
                    "passed the end wall: {p:?}"
                );
                assert!(p.pos.y >= 0.0, "fell off the level: {p:?}");
            }
        }
    }

    /// How far the body goes from a step on until it stands still.
    fn travel_to_a_stop(p: &mut Player, level: &Level, input: &Input) -> f32 {
        let x = p.pos.x;
        for _ in 0..600 {
            if p.vel.x == 0.0 {
                return (p.pos.x - x).abs();
            }
            p.step(level, &MoveParams::default(), input);
        }
        panic!("never stopped: {p:?}");
    }

    #[test]
    fn a_stopping_body_says_how_far_it_goes_on() {
        let level = flat_level(-50.0, 50.0);
        let params = MoveParams::default();
        for (run, dir) in [(false, 1.0f32), (true, 1.0), (false, -1.0), (true, -1.0)] {
            let go = Input {
                move_x: dir,
                run,
                ..Input::default()
            };
            // Walking or running on: not stopping.
            let mut p = Player::new(Vec2::ZERO);
            settle(&mut p, &level);
            for _ in 0..64 {
                p.step(&level, &params, &go);
                assert_eq!(p.stop_distance, f32::INFINITY, "{p:?}");
            }
            // The stick let go of (or turned): from every step of the
            // stop, the distance said is the one the body goes on, within
            // half a step's travel (the steps are discrete).
            for turn in [0.0, -dir] {
                let mut q = p;
                let input = Input {
                    move_x: turn,
                    run,
                    ..Input::default()
                };
                q.step(&level, &params, &input);
                while q.vel.x * dir > 0.0 {
                    let said = q.stop_distance;
                    let mut r = q;
                    let stop = Input {
                        move_x: 0.0,
                        ..input
                    };
                    let went = travel_to_a_stop(&mut r, &level, &stop);
                    let slack = 0.5 * q.vel.x.abs() * DT + 1e-4;
                    assert!(
                        (said - went).abs() <= slack,
                        "run {run} dir {dir} turn {turn}: said {said}, went {went}"
                    );
                    q.step(&level, &params, &input);
                }
            }
        }
        // Running at a wall: the body eases to a stop at it, and says so
        // from the first step the wall holds it back, to within a step.
        let wall = SolidBox {
            x0: 6.0,
            x1: 6.5,
            bottom: 0.0,
            top0: 3.0,
            top1: 3.0,
        };
        let level = level_with(
            vec![
                GroundSegment::ground(-50.0, 6.0, 0.0, 0.0),
                GroundSegment::ground(6.0, 6.5, 3.0, 3.0),
                GroundSegment::ground(6.5, 50.0, 0.0, 0.0),
            ],
            vec![wall],
            vec![],
        );
        let run = Input {
            move_x: 1.0,
            run: true,
            ..Input::default()
        };
        let mut p = Player::new(Vec2::ZERO);
        settle(&mut p, &level);
        let mut said = Vec::new();
        for _ in 0..600 {
            p.step(&level, &params, &run);
            if p.vel.x != 0.0 && p.stop_distance.is_finite() {
                said.push((p.pos.x, p.stop_distance));
            }
        }
        let end = p.pos.x;
        assert!(
            (end - (6.0 - BODY_HALF_WIDTH)).abs() < 1e-3,
            "stopped at {end}"
        );
        // (Braking from a run takes 18 steps.)
        assert!(
            said.len() > 15,
            "the wall held the body back too late: {said:?}"
        );
        for (x, d) in said {
            assert!(
                (x + d - end).abs() <= params.run_speed * DT,
                "at {x} said {d}, stopped at {end}"
            );
        }
    }

    #[test]
    fn derived_jump_reaches_designed_height_and_distance() {
        let params = MoveParams::default();
        let level = flat_level(-100.0, 100.0);
        let mut p = Player::new(Vec2::ZERO);
        settle(&mut p, &level);
        p.vel.x = params.run_speed;
        let x0 = p.pos.x;
        let run = Input {
            move_x: 1.0,
            run: true,
            jump_pressed: true,
            jump_held: true,
            ..Input::default()
        };
        p.step(&level, &params, &run);
        let mut apex: f32 = 0.0;
        let held = Input {
            jump_pressed: false,
            ..run
        };
        while p.state == Locomotion::Air {
            p.step(&level, &params, &held);
            apex = apex.max(p.pos.y);
        }
        let dist = p.pos.x - x0;
        assert!((apex - params.jump_height).abs() < 0.06, "apex {apex}");
        assert!(
            (dist - params.jump_distance).abs() < 0.15,
            "distance {dist}"
        );
    }

    #[test]
    fn walks_up_and_down_45_degree_slopes_without_leaving_the_ground() {
        let level = Level::builtin();
        let params = MoveParams::default();
        let mut p = Player::new(level.spawn);
        settle(&mut p, &level);
        let right = Input {
            move_x: 1.0,
            run: true,
            ..Input::default()
        };
        // Run across the three slope hills (they end before x = 30).
        while p.pos.x < 30.0 {
            p.step(&level, &params, &right);
            assert_eq!(
                p.state,
                Locomotion::Ground,
                "left the ground at x = {}",
                p.pos.x
            );
            let h = level.ground_height(p.pos.x).unwrap();
            assert!(
                (p.pos.y - h).abs() < 1e-4,
                "feet off the ground at x = {}",
                p.pos.x
            );
        }
    }

    #[test]
    fn a_wall_blocks_and_a_ladder_climbs_it() {
        let level = Level::builtin();
        let params = MoveParams::default();
        let ladder = level.ladders[0];
        let mut p = Player::new(Vec2::new(ladder.x - 2.0, 0.0));
        settle(&mut p, &level);
        let right = Input {
            move_x: 1.0,
            ..Input::default()
        };
        for _ in 0..(5.0 * SIM_HZ) as usize {
            p.step(&level, &params, &right);
        }
        assert_eq!(p.state, Locomotion::Ground);
        assert!(
            p.pos.x < ladder.x + 0.4,
            "walked through the wall to {}",
            p.pos.x
        );
        let up = Input {
            move_y: 1.0,
            ..Input::default()
        };
        p.step(&level, &params, &up);
        assert_eq!(p.state, Locomotion::Ladder(0));
        for _ in 0..(10.0 * SIM_HZ) as usize {
            p.step(&level, &params, &up);
            if p.state == Locomotion::Ground {
                break;
            }
        }
        assert_eq!(p.state, Locomotion::Ground, "did not step off at the top");
        assert!((p.pos.y - ladder.top).abs() < 1e-4);
    }

    #[test]
    fn coyote_time_allows_a_late_jump() {
        let level = Level::builtin();
        let params = MoveParams::default();
        // Find the gap and walk off its edge.
        let edge = level
            .segments
            .windows(2)
            .find(|w| w[1].x0 - w[0].x1 > 1.0)
            .map(|w| w[0].x1)
            .unwrap();
        let mut p = Player::new(Vec2::new(edge - 1.0, 0.0));
        settle(&mut p, &level);
        let right = Input {
            move_x: 1.0,
            ..Input::default()
        };
        while p.state == Locomotion::Ground {
            p.step(&level, &params, &right);
        }
        // Three steps (≈ 47 ms) after leaving the edge: still allowed.
        for _ in 0..3 {
            p.step(&level, &params, &right);
        }
        p.step(
            &level,
            &params,
            &Input {
                jump_pressed: true,
                jump_held: true,
                ..right
            },
        );
        assert!(p.vel.y > 0.0, "coyote jump refused");
    }

    #[test]
    fn nan_input_is_ignored() {
        let level = Level::builtin();
        let mut p = Player::new(level.spawn);
        settle(&mut p, &level);
        let bad = Input {
            move_x: f32::NAN,
            move_y: f32::INFINITY,
            ..Input::default()
        };
        for _ in 0..10 {
            p.step(&level, &MoveParams::default(), &bad);
        }
        assert!(p.pos.is_finite() && p.vel.is_finite());
    }
}
