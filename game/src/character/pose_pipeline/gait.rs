//! What the gait layers say about each leg, for foot IK (stage 3): its
//! contact weight now ([`layer_contact`]) and a frame ahead, its swing's
//! plan (progress, distance left, landing place in the model:
//! [`SwingPlan`]), and where on the level that swing lands
//! ([`plan_landing`]: the floor walked to with the player's own step rules,
//! clear of a step's edge), and the ground a swing passes over on its way
//! there ([`swing_ground`]). Reads the layers, the limbs' contact curves and
//! swings and the level; writes nothing.

use glam::{Vec2, Vec3};

use crate::character::Limb;
use crate::character::anim_state::Layer;
use crate::character::contact::ContactCurve;
use crate::sim::player::{MAX_SNAP_DOWN, MAX_STEP_UP};
use crate::sim::world::{FloorFilter, FloorHit, GroundSegment, Level};

/// Ground under a swinging foot this far above both where the swing left
/// and where it will land is an obstacle the foot steps over, metres.
pub(super) const OBSTACLE: f32 = 0.01;
/// The most a landing is moved back from a step up ahead (or on onto it)
/// to keep the toe out of the riser, in leg lengths (hip to ankle along the
/// bones), and never less than [`EDGE_MARGIN`]: the move is made over the
/// swing, and a leg's swing covers ground in proportion to its length. At
/// [`EDGE_MARGIN`] for every leg, the knight (toe 22 cm ahead of his ankle)
/// stopping before the builtin level's stairs landed with his toe 6.2 cm
/// in the first riser and stood there until he re-stepped; at 0.2 of his
/// leg, 8.5 mm. More (0.25) hurried CesiumMan's swings: a landing moved
/// further came down late, 5.2 cm into a slope. A running swing gets as
/// much: given no more than [`EDGE_MARGIN`] (for the joint speed limit, met
/// then by the knight running up 0.2 m stairs with the longer move), his
/// toe landed 3 cm into the builtin level's riser and stood there for five
/// frames as his foot rolled flat; now the longer move costs no limited
/// frame over the release sweep (`tests/sweep`), and one frame running up
/// `foot_ik`'s test flight (`a_swing_reaches_for_the_tread_it_lands_on`).
pub(super) const RISER_MOVE_LEGS: f32 = 0.2;
/// A swinging foot lands at least this far past an edge of the floor it
/// lands on, metres: its heel clear of the step behind. Short of a step up
/// ahead, at least this far short of it too, and further for a foot whose
/// toe reaches further ahead of its ankle (see [`TOE_CLEARANCE`]).
pub(super) const EDGE_MARGIN: f32 = 0.12;
/// The least turn of the floor (rise over run) at a convex kink, as
/// walked onto it (the top of a descent, or of a climb onto the flat),
/// for which a landing just past the kink moves on past it: the foot then
/// lies wholly on the floor it lands on. Within [`EDGE_MARGIN`] of the
/// kink, the sole under a foot turned to the descent lay over the flat
/// behind it, and the foot's ground rose to the flat's in the frame it
/// came down (RiggedFigure running over the top of the builtin level's
/// 45° descent, `transitions` frame 1521: 6 cm in a frame, the joint
/// speed limit acting, the sole 32.8 mm over the slope). Behind a smaller
/// turn a heel 7 cm behind its ankle stands within 7 mm of the floor.
/// The move is let go of over the next swing (foot IK's `LIFT_FADE`):
/// let go of as the contact fell, the knight's ankle, moved on to 12 cm
/// past the top of a 45° descent, went 8.7 cm back in the frame it
/// lifted.
pub(super) const CREST_TURN: f32 = 0.1;
/// How much further past a step down a landing moves on, per metre of the
/// step's drop, metres: the foot comes down the riser's height after its
/// heel has cleared the edge, and at [`EDGE_MARGIN`] alone a running foot
/// crossed the edge one or two frames before it landed (the knight,
/// running off a 0.25 m block on the tutorial, came down 28.8 mm late with
/// the joint speed limit acting). As far as the leg reaches with the pelvis
/// down by at most [`super::foot_ik::STEP_DOWN_DROP_LEGS`] of the leg (see
/// [`super::foot_ik::foot_targets`]).
pub(super) const STEP_DOWN_RUN: f32 = 0.4;
/// How far short of a step up ahead a landing foot's toe stays, metres
/// (the landing lands its toe's reach and this short of the riser, moved
/// back by at most [`RISER_MOVE_LEGS`]): kept clear by the ankle's margin
/// alone, the knight's toe, 22 cm ahead of his ankle, stood 10 cm into the
/// riser of the builtin level's stairs.
pub(super) const TOE_CLEARANCE: f32 = 0.02;
/// Floors crossed at most following the floor from the body to where a
/// swinging foot will land (a run's landing, 1.6 m ahead, crosses at most
/// three or four tiles' floors).
pub(super) const MAX_WALK_FLOORS: usize = 8;
/// How far past a floor's end the next one is looked for, metres.
pub(super) const WALK_EDGE: f32 = 1e-3;

/// The most a leg's own clock is warped against the body's
/// ([`Layer::duty`]): its stance played at most `1 + MAX_DUTY_WARP` times
/// the gait's rate (see [`duty_phase`]), a run's stance of 0.4 of the cycle
/// then taking 0.27 of it. More (0.7, 0.8, with the gait slower) shortened
/// the short-legged models' stances no further in the speed limit's count
/// and carried planted feet out of reach on steep ground.
pub const MAX_DUTY_WARP: f32 = 0.5;

/// A leg's stance in a gait clip: the middle of its stance (between
/// landing and the next lift-off) as a phase in [0, 1), and the stance's
/// share of the cycle; `None` for a clip without one swing (an idle, an
/// arm).
pub fn stance_of(leg: &Limb, clip: usize) -> Option<(f32, f32)> {
    let s = leg.swings.get(clip)?.first()?;
    let width = (1.0 - (s.land - s.lift)).clamp(0.05, 0.95);
    Some(((0.5 * (s.land + s.lift + 1.0)).rem_euclid(1.0), width))
}

/// The leg's phase when the body's is `phase`, under a duty warp of `duty`
/// (at most [`MAX_DUTY_WARP`]) for a stance of `width` of the cycle
/// centred on `centre`: the leg plays its stance `1 + duty` times as fast
/// as the body's clock, so that the stance takes `width / (1 + duty)` of
/// the body's cycle, and its swing correspondingly slower. The two agree
/// at mid-stance and mid-swing. So the body passes over the planted foot
/// in a smaller share of the cycle (a lower duty factor, as a runner's
/// falls with speed) and covers the rest of a longer stride while the
/// foot is carried through the air, more slowly.
pub fn duty_phase(phase: f32, duty: f32, centre: f32, width: f32) -> f32 {
    let body_width = width / (1.0 + duty);
    let d = (phase - centre + 0.5).rem_euclid(1.0) - 0.5;
    let q = if d.abs() <= 0.5 * body_width {
        d * (1.0 + duty)
    } else {
        let edge = 0.5 * body_width * d.signum();
        0.5 * width * d.signum() + (d - edge) * (1.0 - width) / (1.0 - body_width)
    };
    phase + (q - d)
}

/// The body's phase at which the leg's is `leg` (the inverse of
/// [`duty_phase`]).
pub fn body_phase(leg: f32, duty: f32, centre: f32, width: f32) -> f32 {
    let body_width = width / (1.0 + duty);
    let q = (leg - centre + 0.5).rem_euclid(1.0) - 0.5;
    let d = if q.abs() <= 0.5 * width {
        q / (1.0 + duty)
    } else {
        let edge = 0.5 * width * q.signum();
        0.5 * body_width * q.signum() + (q - edge) * (1.0 - body_width) / (1.0 - width)
    };
    leg + (d - q)
}

/// The phase at which `leg` plays `layer`'s clip when the layer's own is
/// `phase`: the same, unless the layer warps the legs' clocks
/// ([`Layer::duty`]) and the clip has a stance for the leg.
pub fn leg_phase(leg: &Limb, layer: &Layer, phase: f32) -> f32 {
    if layer.duty > 0.0
        && let Some((centre, width)) = stance_of(leg, layer.clip.index)
    {
        duty_phase(phase, layer.duty.min(MAX_DUTY_WARP), centre, width)
    } else {
        phase
    }
}

/// The contact weight of a limb under the blended layers (0 free, 1 planted
/// or gripping): each layer's clip contact curve at its phase, weighted;
/// a standing layer counts both feet down.
pub fn layer_contact(limb: &Limb, layers: &[Layer]) -> f32 {
    contact_at(limb, layers, |l| l.time)
}

/// [`layer_contact`] one frame ahead: each layer's clip moved on by the
/// step it took in the last frame (`steps`, see
/// `Sampler::clip_steps`); a held layer stays where it is. Foot IK takes
/// it with the contact now from [`layer_contacts`].
#[cfg(test)]
pub(super) fn layer_contact_ahead(limb: &Limb, layers: &[Layer], steps: &[[f32; 2]]) -> f32 {
    contact_at(limb, layers, |l| l.time + step_of(l, steps))
}

/// The step a layer's clip takes next frame (see `layer_contact_ahead`).
fn step_of(l: &Layer, steps: &[[f32; 2]]) -> f32 {
    if l.held.is_some() {
        0.0
    } else {
        steps.get(l.clip.index).map_or(0.0, |e| e[1])
    }
}

/// A layer holds a foot in full stance where its contact curve is at
/// least this (see [`Contacts::stance`]).
pub(super) const FULL_STANCE: f32 = 0.99;

/// A leg's contact under the blended layers, now and a frame ahead, and
/// how much of the pose holds its foot in full stance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Contacts {
    /// [`layer_contact`]: the layers' contacts, weighted.
    pub now: f32,
    /// `layer_contact_ahead`: the same a frame on.
    pub ahead: f32,
    /// The share of the layers' weight in which the foot is in full
    /// stance ([`FULL_STANCE`]) both now and a frame ahead (standing
    /// layers count both feet down). A contact under one because a minor
    /// layer swings the foot (a trace of the run in a walk) keeps this
    /// high; one falling because the foot lifts in the layer that carries
    /// the pose does not.
    pub stance: f32,
}

/// [`layer_contact`] and `layer_contact_ahead` in one pass over the
/// layers, with the stance's share ([`Contacts`]). The same operations on
/// the same operands as the two apart, so the same bits, with the layers'
/// weights and each layer's clip, curve and duration read once.
pub(super) fn layer_contacts(limb: &Limb, layers: &[Layer], steps: &[[f32; 2]]) -> Contacts {
    let (mut now, mut ahead, mut stance, mut total) = (0.0, 0.0, 0.0, 0.0);
    for l in layers {
        if l.still {
            // Standing: both feet down (see `Layer::still`).
            now += l.weight;
            ahead += l.weight;
            stance += l.weight;
            total += l.weight;
            continue;
        }
        let duration = l.clip.duration.max(1e-3);
        let curve = &limb.contact[l.clip.index];
        let here = layer_curve_at(limb, l, curve, l.time / duration);
        now += l.weight * here;
        let time = l.time + step_of(l, steps);
        let next = layer_curve_at(limb, l, curve, time / duration);
        ahead += l.weight * next;
        if here.min(next) >= FULL_STANCE {
            stance += l.weight;
        }
        total += l.weight;
    }
    if total > 1e-6 {
        Contacts {
            now: now / total,
            ahead: ahead / total,
            stance: stance / total,
        }
    } else {
        Contacts {
            now: 0.0,
            ahead: 0.0,
            stance: 0.0,
        }
    }
}

/// `curve` (the limb's contact in `l`'s clip) at the layer's own phase
/// `phase`, as [`contact_at`] reads it.
#[inline(always)]
fn layer_curve_at(limb: &Limb, l: &Layer, curve: &ContactCurve, phase: f32) -> f32 {
    let phase = leg_phase(limb, l, phase);
    let phase = if l.looping {
        phase
    } else {
        phase.clamp(0.0, 0.999)
    };
    curve.at(phase)
}

/// The layers' blended contact for `limb` with each layer's clip at
/// `time(layer)`.
pub(super) fn contact_at(limb: &Limb, layers: &[Layer], time: impl Fn(&Layer) -> f32) -> f32 {
    let (mut sum, mut total) = (0.0, 0.0);
    for l in layers {
        if l.still {
            // Standing: both feet down (see `Layer::still`).
            sum += l.weight;
            total += l.weight;
            continue;
        }
        let phase = leg_phase(limb, l, time(l) / l.clip.duration.max(1e-3));
        let phase = if l.looping {
            phase
        } else {
            phase.clamp(0.0, 0.999)
        };
        sum += l.weight * limb.contact[l.clip.index].at(phase);
        total += l.weight;
    }
    if total > 1e-6 { sum / total } else { 0.0 }
}

/// The floor the body walks to from `body` (its feet) toward `x`, floor by
/// floor, stepping at most [`MAX_STEP_UP`] up and [`MAX_SNAP_DOWN`] down
/// where one floor ends and the next begins (as the player's own walk
/// does), with the x it was found at: the floor at `x`, or the end of the
/// last one before a ledge's drop or a rise higher than a step (where the
/// body stops, or walks off into the air, and a swing lands no farther).
/// `visit` sees each stretch of floor walked, as the heights at its two
/// ends (a floor is straight between them), from the body on. `start` is
/// the floor under the body itself ([`floor_under_body`]). At most
/// [`MAX_WALK_FLOORS`] floors are crossed.
pub(super) fn walkable_floor(
    level: &Level,
    body: Vec2,
    start: FloorHit,
    x: f32,
    mut visit: impl FnMut(f32, f32, &GroundSegment),
) -> (f32, FloorHit) {
    // As the body walks: a step up onto a solid floor, never up onto a
    // one-way plank it would walk under (see `foot_floor`).
    let reach =
        |x: f32, y: f32| level.support_below(x, y, MAX_STEP_UP, MAX_SNAP_DOWN, FloorFilter::All);
    let at = |x: f32, hit: FloorHit| {
        let y = hit.segment.height_at(x);
        (x, FloorHit { y, ..hit })
    };
    let mut hit = start;
    let dir = x - body.x;
    let mut from = body.x;
    for _ in 0..MAX_WALK_FLOORS {
        let seg = hit.segment;
        let end = if dir > 0.0 { seg.x1 } else { seg.x0 };
        if (x - end) * dir < 0.0 || dir == 0.0 {
            visit(from, x, &seg);
            return at(x, hit);
        }
        let inside = end - WALK_EDGE.copysign(dir);
        visit(from, inside, &seg);
        from = end + WALK_EDGE.copysign(dir);
        match reach(from, seg.height_at(end)) {
            Some(next) => hit = next,
            None => return at(inside, hit),
        }
    }
    let x = hit.segment.x0.max(hit.segment.x1.min(x));
    at(x, hit)
}

/// The floor under the body at `body` (its feet) that [`walkable_floor`]
/// walks on from: within a step up or a snap down. `None` when there is
/// none.
pub(super) fn floor_under_body(level: &Level, body: Vec2) -> Option<FloorHit> {
    level.support_below(body.x, body.y, MAX_STEP_UP, MAX_SNAP_DOWN, FloorFilter::All)
}

/// Where a foot swinging toward `x` lands, and on what: the floor the body
/// walks to there (see [`walkable_floor`]), moved on past an edge it would
/// land within [`EDGE_MARGIN`] of (a foot landing just past a stair's edge
/// would have its heel on the step behind it, and drop or rise the
/// riser's height in its last frame) or of a crest (see [`CREST_TURN`]),
/// or back from (or onto) a step up
/// ahead that its toe would reach into (`reach`: how far the sole reaches
/// behind and ahead of the ankle, and the furthest it is moved for the toe:
/// `sole`, see [`clear_of_edge`]).
///
/// The ground on the foot's way is kept in `ground` too, from `lift_x`
/// (where its swing began) to the landing: the ends of each stretch of
/// floor walked, for the swing's path over it ([`swing_ground`]).
///
/// Returns the landing's x, its floor, and how far the edge moved it.
#[allow(clippy::too_many_arguments)]
pub(super) fn plan_landing(
    level: &Level,
    body: Vec2,
    x: f32,
    dir: f32,
    then_x: f32,
    foot_x: f32,
    lift_x: f32,
    sole: SoleRoom,
    ground: &mut WayGround,
) -> Option<Landing> {
    let SoleRoom { reach, most } = sole;
    ground.len = 0;
    // The floor under the body when the foot lands, and the highest floor
    // from the foot on to its landing (behind the body too, for a trailing
    // foot).
    let mut body_floor = body.y;
    let mut highest = f32::NEG_INFINITY;
    // Back to where the swing began (the foot, or further behind it).
    let back = if lift_x.is_finite() && (foot_x - lift_x) * dir > 0.0 {
        lift_x
    } else {
        foot_x
    };
    let mut over = |a: f32, b: f32, seg: &GroundSegment| {
        let (lo, hi) = (a.min(b), a.max(b));
        if (lo..=hi).contains(&then_x) {
            body_floor = seg.height_at(then_x);
        }
        // The part of this stretch ahead of the foot.
        let (lo, hi) = if dir > 0.0 {
            (lo.max(foot_x), hi)
        } else {
            (lo, hi.min(foot_x))
        };
        if lo <= hi {
            highest = highest.max(seg.height_at(lo).max(seg.height_at(hi)));
        }
        // Where one floor ends and the next begins: the body's own place
        // and the walk's end are on a floor, between its ends (the ground
        // between two floors' ends is straight).
        if a != body.x {
            ground.push(a, seg);
        }
        if b != x && b != back {
            ground.push(b, seg);
        }
    };
    // Both walks start on the floor under the body, found once.
    let start = floor_under_body(level, body)?;
    let (reached, hit) = walkable_floor(level, body, start, x, &mut over);
    if (body.x - back) * dir > 0.0 {
        walkable_floor(level, body, start, back, &mut over);
    }
    let (x, hit, moved, past_drop) = clear_of_edge(level, x, reached, hit, dir, reach, most);
    Some(Landing {
        x,
        hit,
        moved,
        past_drop,
        body_floor,
        highest,
    })
}

/// The ground a swinging foot's ankle is aimed at (the height its sole
/// would stand at, as `foot_ik::ankle_over` gives it), `t` of the way from
/// its lift-off at `(lift_x, from)` to its landing at `(land_x, land)`: the
/// upper hull of those two and the ground between them (`way`, each
/// stretch end widened by the sole's reach behind and ahead of the ankle,
/// `[heel, toe]`, so that the sole passes over a corner only once the
/// ankle is that far from it; a flat sole over a corner clears it at the
/// corner's own height). The straight line from lift-off to landing
/// passes under a crest or a tread's nose between them (over the top of
/// the builtin level's 45° descent, 24 cm under the flat a quarter of the
/// way on), and a swinging toe went into the ground there; the hull
/// never passes under the ground. A swing landing higher than it left
/// (by [`CLIMB_SWING`]) passes over the edges of steps only, not over
/// the top of a slope it climbs. `None` where nothing on the way rises
/// above the straight line (level floor, an even slope, a step in
/// place): the swing goes along it. `dir` is the way the body walks.
/// With `crest`, over the top of a slope it climbs as well (the hull of
/// all the ground on the way): how high the foot must be to pass over the
/// crest (see [`CREST_RAISE_LEGS`]).
pub(super) fn swing_ground(
    way: &WayGround,
    (lift_x, from): (f32, f32),
    (land_x, land): (f32, f32),
    [heel, toe]: [f32; 2],
    dir: f32,
    t: f32,
    crest: bool,
) -> Option<f32> {
    let span = land_x - lift_x;
    if span.abs() < MIN_SWING_SPAN || !span.is_finite() {
        return None;
    }
    // Ground no higher than both ends is under the line (level floor).
    // A swing up to higher ground passes over the steps' edges on its way,
    // not over the top of a slope it climbs (see `CLIMB_SWING`).
    let low = from.min(land);
    let climb = !crest && land > from + CLIMB_SWING;
    let over = |p: &&Vec3| p.y > low && (!climb || p.z > 0.0);
    if !way.points().iter().any(|p| over(&p)) {
        return None;
    }
    // The hull's height at t is the highest of the lines joining a point
    // at or before t to one at or after it (the two ends among them). Only
    // points above the line from lift-off to landing can be on the hull
    // (on level floor, none are), so few pairs are tried.
    let (mut before, mut nb) = ([Vec2::ZERO; 3 * WAY_POINTS + 1], 1);
    let (mut after, mut na) = ([Vec2::ZERO; 3 * WAY_POINTS + 1], 1);
    before[0] = Vec2::new(0.0, from);
    after[0] = Vec2::new(1.0, land);
    for p in way.points().iter().filter(over) {
        for x in [p.x - dir * toe, p.x, p.x + dir * heel] {
            let u = (x - lift_x) / span;
            if u > 0.0 && u < 1.0 && p.y > from + (land - from) * u {
                let q = Vec2::new(u, p.y);
                if u <= t {
                    before[nb] = q;
                    nb += 1;
                }
                if u >= t {
                    after[na] = q;
                    na += 1;
                }
            }
        }
    }
    if nb == 1 && na == 1 {
        return None;
    }
    let mut best = from + (land - from) * t;
    for a in &before[..nb] {
        for b in &after[..na] {
            let h = if b.x > a.x {
                a.y + (b.y - a.y) * (t - a.x) / (b.x - a.x)
            } else {
                a.y.max(b.y)
            };
            best = best.max(h);
        }
    }
    Some(best)
}

/// How much higher a swing lands than it left, metres, for
/// [`swing_ground`] to take it over the edges of steps on its way only, not
/// over a slope's top: running up the builtin level's 45° climb onto its
/// top, a swing held over the crest let the pelvis stay high (it had been
/// lowered for the foot aimed under the crest), and the short-legged rigs'
/// stance knee, straightening as the body rose over the crest, turned past
/// 20 rad/s and let go (Kenney's foot 10.0 mm off the floor, RiggedFigure's
/// 27.6 mm).
pub(super) const CLIMB_SWING: f32 = OBSTACLE;

/// How far above that line a swing climbing onto a slope's top is raised
/// toward passing over the crest, at most, as a share of the leg's length
/// (see [`swing_ground`]). Along the line, a foot swung up a 45° climb
/// onto its top passed under the crest: the knight's rear foot running up
/// the builtin level's climb went 16 cm into it, and came down onto the
/// top 11 mm in. Raised by the whole of what the crest needs (up to 36 cm
/// for the knight), the short-legged rigs' stance knees straightened past
/// the joint speed limit as before `CLIMB_SWING`, so it was held to 0.04
/// of the leg (over `tests/sweep --phases 8`, 319 → 329 of 560 runs; 322,
/// 316 and 313 at 0.06, 0.075 and 0.1), and the knight's rear foot still
/// swung 18 cm under the builtin level's crest. With the hips held down
/// for a planted knee (`foot_ik::HOLD_KNEE_SPEED`) the stance knees keep
/// their pace: 362 runs at 0.04, 350 and 347 at 0.06 and 0.1, 373 at 0.3,
/// 374 at 0.4, 0.5 and the whole leg (none fewer than at 0.04; feet
/// swinging under the floor, the deepest of each run, 158 → 132 mm on
/// average). Half the leg: the most a swing is lifted over its line.
pub(super) const CREST_RAISE_LEGS: f32 = 0.5;

/// The shortest swing, metres from lift-off to landing, whose path
/// [`swing_ground`] fits over the ground between (a foot stepping in
/// place goes straight).
pub(super) const MIN_SWING_SPAN: f32 = 0.05;

/// The most stretch ends [`WayGround`] keeps: both ends of every floor of
/// the two walks of [`plan_landing`] (to the landing, and back to where
/// the swing began), [`MAX_WALK_FLOORS`] each, so none is ever dropped.
pub(super) const WAY_POINTS: usize = 4 * MAX_WALK_FLOORS;

/// How close two floor ends are, in x and in height, metres, for
/// [`WayGround`] to keep one (a floor's end and the next one's start, each
/// [`WALK_EDGE`] from their join).
const SAME_END: f32 = 0.01;

/// The ground on a swinging foot's way: the ends of the stretches of floor
/// walked, each as its x and its floor's height there, and whether it is
/// the edge of a step (one floor ending where the next begins at another
/// height). A floor is straight between its ends, so the ground between
/// two ends is never above the line joining them.
#[derive(Clone, Copy, Debug)]
pub(super) struct WayGround {
    /// The ends, `(x, height, 1 at a step's edge or else 0)`, in the order
    /// walked.
    pub(super) points: [Vec3; WAY_POINTS],
    /// How many of `points` are set.
    pub(super) len: usize,
}

impl Default for WayGround {
    fn default() -> Self {
        Self {
            points: [Vec3::ZERO; WAY_POINTS],
            len: 0,
        }
    }
}

impl WayGround {
    fn push(&mut self, x: f32, seg: &GroundSegment) {
        let mut p = Vec3::new(x, seg.height_at(x), 0.0);
        // One floor's end where the next begins at the same height (tiles
        // of one surface, or a kink) is kept once; at another height both
        // are a step's edges.
        if self.len > 0 {
            let q = &mut self.points[self.len - 1];
            if (q.x - p.x).abs() <= SAME_END {
                if (q.y - p.y).abs() <= SAME_END {
                    return;
                }
                q.z = 1.0;
                p.z = 1.0;
            }
        }
        if self.len < WAY_POINTS {
            self.points[self.len] = p;
            self.len += 1;
        }
    }

    /// The ends kept.
    pub(super) fn points(&self) -> &[Vec3] {
        &self.points[..self.len]
    }
}

/// A landing foot's sole and the room its landing has to keep it clear of
/// a riser (see [`plan_landing`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct SoleRoom {
    /// How far the sole reaches behind and ahead of the ankle, metres
    /// (`Character::sole_reach`).
    pub(super) reach: [f32; 2],
    /// The furthest the landing is moved to keep the toe out of a riser,
    /// metres (see [`RISER_MOVE_LEGS`]), but for a landing for which the
    /// step itself lies further too: that one moves back as far as its toe
    /// needs (see [`clear_of_edge`]).
    pub(super) most: f32,
}

/// Where a swinging foot will land, and what lies on its way.
#[derive(Clone, Copy, Debug)]
pub(super) struct Landing {
    /// The landing's x, metres.
    pub(super) x: f32,
    /// The floor there.
    pub(super) hit: FloorHit,
    /// How far an edge moved the landing on (see [`EDGE_MARGIN`]), metres.
    pub(super) moved: f32,
    /// How much of that move is for a step's drop behind the landing (see
    /// [`STEP_DOWN_RUN`]), metres: what foot IK takes back where the leg
    /// would not reach.
    pub(super) past_drop: f32,
    /// The floor under the body when the foot lands.
    pub(super) body_floor: f32,
    /// The highest floor between the foot and its landing.
    pub(super) highest: f32,
}

/// A landing at `x`, on `hit` found at `reached`, moved clear of an edge
/// behind it (a step down behind the heel) or of a step up just ahead (the
/// toe, `toe` metres ahead of the ankle, in its riser: moved back, or onto
/// the step with the heel, `heel` metres behind the ankle, clear of the
/// riser, whichever leaves the toe out of it within `most`, at least
/// [`EDGE_MARGIN`], see [`RISER_MOVE_LEGS`]); past a step down, on by
/// [`STEP_DOWN_RUN`] of its drop too; just past a crest, on past it (see
/// [`CREST_TURN`]): returns the landing's x, its floor, how far it moved
/// and how much of that is for the drop.
pub(super) fn clear_of_edge(
    level: &Level,
    x: f32,
    reached: f32,
    hit: FloorHit,
    dir: f32,
    [heel, toe]: [f32; 2],
    most: f32,
) -> (f32, FloorHit, f32, f32) {
    let seg = &hit.segment;
    // Short of the landing (a ledge or a wall stops the way there): no move.
    if (reached - x).abs() > 1e-3 {
        return (reached, hit, 0.0, 0.0);
    }
    let on = |clear: f32| {
        let hit = FloorHit {
            y: seg.height_at(clear),
            ..hit
        };
        (clear, hit, clear - x, 0.0)
    };
    let edge = if dir > 0.0 { seg.x0 } else { seg.x1 };
    if (x - edge) * dir < EDGE_MARGIN + STEP_DOWN_RUN * MAX_STEP_UP {
        // Is the floor behind the edge at another height (a step), or the
        // same surface going on (tiles, or a slope's kink)?
        let behind = edge - dir * 1e-3;
        let y = seg.height_at(edge);
        let back = level.support_below(behind, y, MAX_STEP_UP, MAX_SNAP_DOWN, FloorFilter::All);
        let step = back.is_none_or(|h| (h.y - y).abs() > OBSTACLE);
        // A step down behind it (none found: a drop deeper than a step
        // up, taken as one).
        let drop = back.map_or(MAX_STEP_UP, |h| (h.y - y).clamp(0.0, MAX_STEP_UP));
        let past_drop = STEP_DOWN_RUN * drop;
        let clear = edge + dir * (EDGE_MARGIN + past_drop);
        if step && seg.covers(clear) && (clear - x) * dir > 0.0 {
            let (clear, hit, moved, _) = on(clear);
            return (clear, hit, moved, moved.abs().min(past_drop));
        }
        // Just past a crest (the same surface going on, turned down by at
        // least CREST_TURN), on past it by EDGE_MARGIN, or the heel's
        // reach and TOE_CLEARANCE where that is more: the heel hangs
        // over the floor behind the kink otherwise (see CREST_TURN).
        // Moved on only as far as the heel's reach and TOE_CLEARANCE,
        // Mannequiny's foot landing at the top of the builtin level's 45°
        // descent came down 63.6 mm over the floor (`slopes_walk` 1229).
        let crest =
            !step && back.is_some_and(|h| (seg.slope() - h.segment.slope()) * dir < -CREST_TURN);
        let clear = edge + dir * EDGE_MARGIN.max(heel + TOE_CLEARANCE);
        if crest && seg.covers(clear) && (clear - x) * dir > 0.0 {
            return on(clear);
        }
    }
    // Just short of a step up ahead, the toe would stand in its riser: the
    // foot lands short of it by the toe's reach and TOE_CLEARANCE (the body
    // steps up on the next stride).
    let end = if dir > 0.0 { seg.x1 } else { seg.x0 };
    let margin = EDGE_MARGIN.max(toe + TOE_CLEARANCE);
    if (end - x) * dir < margin {
        let y = seg.height_at(end);
        // (A plank the body would walk under is no step up.)
        let rise = level.support_below(
            end + dir * 1e-3,
            y,
            MAX_STEP_UP,
            -OBSTACLE,
            FloorFilter::All,
        );
        // Moved back by at most `most` (but for the case below): each
        // landing moved back is made up by the next swing, and moves up to
        // the toe's whole reach (24 cm for the knight) hurried the
        // short-legged models' swings past the joint speed limit (see
        // RISER_MOVE_LEGS). On a tread too short for the toe's margin,
        // EDGE_MARGIN short of the riser (the ankle's margin).
        let full = end - dir * margin;
        let clear = if (x - full) * dir > most {
            x - dir * most
        } else {
            full
        };
        // Where moving back leaves the toe in the riser, onto the step
        // instead if that is within `most`: the heel its reach and
        // TOE_CLEARANCE past the riser. Where that is further too, back as
        // far as the toe needs after all: moved back by `most` alone,
        // RiggedFigure's toe (17.7 cm ahead of his ankle, pitched up at
        // the heel strike) landed running 2.4 cm into a riser of `long`
        // (frame 2270), and CesiumMan's stood in one as his foot rolled
        // (`long` autopilot 2148–2155, 18.6 mm). Over the release sweep
        // the joint speed limit acted on 734 → 740 frames, the same with
        // the move held to 1.5 or 2 times `most`; at 1.25 times neither
        // landing moved.
        let mut far = false;
        if let Some(up) = rise
            && (x - full) * dir > most
        {
            let on_step = end + dir * (heel + TOE_CLEARANCE);
            if (on_step - x).abs() <= most && up.segment.covers(on_step) {
                let hit = FloorHit {
                    y: up.segment.height_at(on_step),
                    ..up
                };
                return (on_step, hit, on_step - x, 0.0);
            }
            far = true;
        }
        let shortest = end - dir * EDGE_MARGIN;
        let tries = if far {
            [full, clear, shortest]
        } else {
            [clear, shortest, shortest]
        };
        for clear in tries {
            if rise.is_some() && seg.covers(clear) && (clear - x) * dir < 0.0 {
                return on(clear);
            }
        }
    }
    (x, hit, 0.0, 0.0)
}

/// Where a leg's swing will land, from the gait layers it swings in.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SwingPlan {
    /// The share of the layers' weight in which the foot swings (0 in
    /// contact, or with no gait playing).
    pub(super) share: f32,
    /// Progress through the swing, 0 at lift-off to 1 at landing.
    pub(super) progress: f32,
    /// How far the body moves before the foot lands, metres.
    pub(super) ahead: f32,
    /// The foot's model-space position when it lands.
    pub(super) land_model: Vec3,
    /// The hip's model-space position then.
    pub(super) land_start: Vec3,
}

/// A leg's [`SwingPlan`] under the blended layers: each gait layer in which
/// the foot swings gives its progress, distance left and landing place
/// (its clip's phase follows distance walked, so distance left is phase
/// left times the cycle's distance), weighted by the layer's weight. Its
/// share is of the gait and standing layers: a crossfade's held pose (a
/// landing running on) leaves the swing to the gait coming in. A gait
/// layer whose clip plans no swing (an uneven walk's, see
/// [`Limb::swings`]) counts in that share's whole: a trace of a run
/// blended into it plans only its trace of the landing.
pub(super) fn swing_plan(leg: &Limb, layers: &[Layer]) -> SwingPlan {
    let mut plan = SwingPlan::default();
    let mut total = 0.0;
    for l in layers {
        if l.held.is_some() || l.weight <= 0.0 {
            continue;
        }
        if l.still {
            total += l.weight;
            continue;
        }
        total += l.weight;
        let Some(swings) = leg.swings.get(l.clip.index).filter(|s| !s.is_empty()) else {
            continue;
        };
        let body = l.time / l.clip.duration.max(1e-3);
        let phase = leg_phase(leg, l, body);
        let swing = swings.iter().find_map(|s| s.at(phase).map(|at| (at, s)));
        if let Some(((progress, left), s)) = swing {
            // The body's phase left until the leg's reaches the landing
            // (the same as the leg's but under a duty warp).
            let left = match stance_of(leg, l.clip.index) {
                Some((centre, width)) if l.duty > 0.0 => {
                    let duty = l.duty.min(MAX_DUTY_WARP);
                    (body_phase(phase + left, duty, centre, width) - body).rem_euclid(1.0)
                }
                _ => left,
            };
            plan.land_model += s.land_model * l.weight;
            plan.land_start += s.land_start * l.weight;
            plan.share += l.weight;
            plan.progress += progress * l.weight;
            plan.ahead += left * l.clip.cycle_distance * l.stride * l.weight;
        }
    }
    if plan.share > 0.0 {
        let w = plan.share;
        plan.progress /= w;
        plan.ahead /= w;
        plan.land_model /= w;
        plan.land_start /= w;
        plan.share = if total > 0.0 {
            (w / total).min(1.0)
        } else {
            0.0
        };
    }
    plan
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::character::Character;

    #[test]
    fn the_contact_ahead_is_the_clips_one_step_on() {
        // A run layer moving on by its last step reads next frame's
        // contact; a held layer stays where it is.
        let c = Character::knight().unwrap();
        let run = c.clip_set.run;
        let mut steps = vec![[f32::NAN, 0.0]; c.clips.len()];
        let step = run.duration / 40.0;
        steps[run.index] = [0.0, step];
        let leg = &c.legs[0];
        let mut changed = 0;
        for k in 0..40 {
            let layer = Layer::looping(run, k as f32 * step, 1.0);
            let ahead = layer_contact_ahead(leg, &[layer], &steps);
            let next = layer_contact(
                leg,
                &[Layer {
                    time: layer.time + step,
                    ..layer
                }],
            );
            assert!((ahead - next).abs() < 1e-6, "{k}: {ahead} vs {next}");
            let held = Layer {
                held: Some(1),
                ..layer
            };
            let now = layer_contact(leg, &[held]);
            assert_eq!(layer_contact_ahead(leg, &[held], &steps), now);
            changed += usize::from((ahead - now).abs() > 0.5);
        }
        assert!(changed > 0, "the run's contact never changed in a step");
    }

    #[test]
    fn the_contacts_in_one_pass_are_the_two_apart() {
        // Every knight clip, alone and crossfaded with another, at times
        // through its cycle, warped or not, held or not, with the clip
        // steps of a frame: the same bits as `layer_contact` and
        // `layer_contact_ahead`.
        let c = Character::knight().unwrap();
        let steps: Vec<[f32; 2]> = c
            .clips
            .iter()
            .map(|clip| [0.0, clip.duration / 37.0])
            .collect();
        let cs = c.clip_set;
        let infos = [
            cs.idle, cs.walk, cs.run, cs.jump, cs.fall, cs.land, cs.climb,
        ];
        let layer = |k: usize, i: usize, weight: f32| {
            let clip = infos[k];
            Layer {
                clip,
                time: clip.duration * (i as f32 * 0.071 - 0.2),
                weight,
                looping: !i.is_multiple_of(5),
                still: i % 11 == 3,
                rate: 1.0,
                stride: 1.0,
                duty: if i.is_multiple_of(3) { 0.3 } else { 0.0 },
                held: (i % 7 == 2).then_some(0),
            }
        };
        let n = infos.len();
        let mut checked = 0;
        for leg in c.legs.iter().chain(&c.arms) {
            for k in 0..n {
                for i in 0..24 {
                    let single = [layer(k, i, 1.0)];
                    let mixed = [layer(k, i, 0.3), layer((k + 1) % n, i + 5, 0.7)];
                    for layers in [&single[..], &mixed[..], &[]] {
                        let Contacts { now, ahead, .. } = layer_contacts(leg, layers, &steps);
                        assert_eq!(now.to_bits(), layer_contact(leg, layers).to_bits());
                        assert_eq!(
                            ahead.to_bits(),
                            layer_contact_ahead(leg, layers, &steps).to_bits()
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100);
    }

    /// A looping gait layer of `clip` at `phase` of its cycle, weighing
    /// `weight`, unwarped and not held.
    fn gait_layer(clip: crate::character::anim_state::ClipInfo, phase: f32, weight: f32) -> Layer {
        Layer::looping(clip, clip.duration * phase, weight)
    }

    #[test]
    fn the_stance_share_is_the_weight_that_holds_the_foot_down() {
        // A walk in mid-stance with a trace of the run swinging the same
        // foot: the contact falls under the lock's threshold, the share of
        // the pose holding the foot in full stance is the walk's weight.
        // A walk alone lifting its foot (its contact falling through 0.9)
        // holds it in full stance in none of the pose.
        let c = Character::knight().unwrap();
        let cs = c.clip_set;
        let leg = &c.legs[0];
        let steps: Vec<[f32; 2]> = c
            .clips
            .iter()
            .map(|clip| [0.0, clip.duration / 64.0])
            .collect();
        let at = |clip, phase| layer_contacts(leg, &[gait_layer(clip, phase, 1.0)], &steps);
        let phases = (0..200).map(|k| k as f32 / 200.0);
        let stance = phases.clone().find(|&p| at(cs.walk, p).now >= 1.0).unwrap();
        let swing = phases.clone().find(|&p| at(cs.run, p).now <= 0.0).unwrap();
        let both = layer_contacts(
            leg,
            &[
                gait_layer(cs.walk, stance, 0.88),
                gait_layer(cs.run, swing, 0.12),
            ],
            &steps,
        );
        assert!(both.now < 0.9, "{both:?}");
        assert!((both.stance - 0.88).abs() < 1e-5, "{both:?}");
        // The walk's own toe-off: its contact passing 0.9 on the way down.
        let lifting = phases
            .clone()
            .zip(phases.skip(1))
            .find(|&(a, b)| at(cs.walk, a).now >= 0.9 && at(cs.walk, b).now < 0.9)
            .unwrap()
            .1;
        let alone = at(cs.walk, lifting);
        assert!(alone.now < 0.9 && alone.stance == 0.0, "{alone:?}");
        // Standing holds both feet.
        let mut idle = gait_layer(cs.idle, 0.0, 1.0);
        idle.still = true;
        assert_eq!(layer_contacts(leg, &[idle], &steps).stance, 1.0);
    }

    #[test]
    fn a_gait_that_plans_no_swing_keeps_its_share_of_the_plan() {
        // A walk whose clip plans no swings (an uneven one, CesiumMan's)
        // blended with a trace of a run that does: the plan is the run's
        // share of the gait, not all of it. With the walk left out of the
        // total, the trace of a run planned the whole foot's landing from
        // the run's phase while the walk held the foot in the air, and
        // the plan's end pulled CesiumMan's trailing foot up 28 cm in two
        // frames on a 45° descent (a knee at 53 rad/s).
        let c = Character::knight().unwrap();
        let cs = c.clip_set;
        let mut leg = c.legs[0].clone();
        leg.swings[cs.walk.index].clear();
        let swing = c.legs[0].swings[cs.run.index][0];
        let mid = 0.5 * (swing.lift + swing.land);
        let run = gait_layer(cs.run, mid.rem_euclid(1.0), 0.01);
        let alone = swing_plan(&leg, &[run]);
        assert!((alone.share - 1.0).abs() < 1e-6, "{alone:?}");
        let plan = swing_plan(&leg, &[gait_layer(cs.walk, 0.3, 0.99), run]);
        assert!((plan.share - 0.01).abs() < 1e-6, "{plan:?}");
        assert!((plan.progress - alone.progress).abs() < 1e-6, "{plan:?}");
    }

    #[test]
    fn a_landing_keeps_clear_of_a_riser_ahead_and_a_step_behind() {
        use crate::sim::world::Level;
        // A floor from -5 to 1 m, then `next` from 1 to 5 m at `h`.
        let level = |h: f32| {
            let floors = vec![
                GroundSegment::ground(-5.0, 1.0, 0.0, 0.0),
                GroundSegment::ground(1.0, 5.0, h, h),
            ];
            Level::from_profile("edge", floors, vec![], Vec2::ZERO, Vec2::new(4.0, h), -10.0)
        };
        let land = |level: &Level, x: f32| {
            let hit = level.floor_below(x, 0.5, 1.0).unwrap();
            let (at, _, moved, _) = clear_of_edge(level, x, x, hit, 1.0, [0.0; 2], EDGE_MARGIN);
            assert!((at - (x + moved)).abs() < 1e-6);
            at
        };
        // A step up 5 cm ahead of the landing: the toe would be in its
        // riser, so the foot lands EDGE_MARGIN short of it.
        let up = level(0.2);
        assert!((land(&up, 0.95) - (1.0 - EDGE_MARGIN)).abs() < 1e-5);
        // Far enough short of it, or past it (its heel then clear of the
        // step behind): no move.
        assert_eq!(land(&up, 0.8), 0.8);
        assert_eq!(land(&up, 1.3), 1.3);
        // Landing just past a step up behind the heel: moved on.
        assert!((land(&up, 1.05) - (1.0 + EDGE_MARGIN)).abs() < 1e-5);
        // No riser ahead (the floor goes on level, or steps down): no move.
        assert_eq!(land(&level(0.0), 0.95), 0.95);
        assert_eq!(land(&level(-0.2), 0.95), 0.95);
        // Past a step up behind, further than EDGE_MARGIN: no move.
        assert_eq!(land(&up, 1.15), 1.15);
        // Past a 0.2 m step down: on by STEP_DOWN_RUN of the drop as well
        // (to 1.2 m), that part of the move told apart for foot IK; from
        // further than that, no move.
        let down = level(-0.2);
        let land_down = |x: f32| {
            let hit = down.floor_below(x, 0.5, 1.0).unwrap();
            let (at, _, moved, past_drop) =
                clear_of_edge(&down, x, x, hit, 1.0, [0.0; 2], EDGE_MARGIN);
            assert!((at - (x + moved)).abs() < 1e-6);
            (at, past_drop)
        };
        let clear = 1.0 + EDGE_MARGIN + STEP_DOWN_RUN * 0.2;
        let (at, past_drop) = land_down(1.05);
        assert!((at - clear).abs() < 1e-5 && (past_drop - STEP_DOWN_RUN * 0.2).abs() < 1e-5);
        let (at, past_drop) = land_down(1.15);
        assert!((at - clear).abs() < 1e-5 && (past_drop - (clear - 1.15)).abs() < 1e-5);
        assert_eq!(land_down(1.25), (1.25, 0.0));
        // A heel reaching 7 cm behind the ankle and a toe 22 cm ahead:
        // landing 15 cm short of the riser, back to its toe's reach and
        // TOE_CLEARANCE short of it; 5 cm short, back as far too, 19 cm,
        // though that is further than `most` (onto the step would be 14 cm
        // on, further too; back by EDGE_MARGIN alone left the toe 7 cm in
        // the riser); 2 cm short, onto the step instead, its heel
        // TOE_CLEARANCE past the riser (11 cm on, within `most`); far
        // enough short, no move.
        let (heel, toe) = (0.07, 0.22);
        let land_toe = |x: f32| {
            let hit = up.floor_below(x, 0.5, 1.0).unwrap();
            let (at, hit, moved, _) = clear_of_edge(&up, x, x, hit, 1.0, [heel, toe], EDGE_MARGIN);
            assert!((at - (x + moved)).abs() < 1e-6);
            assert!((hit.y - hit.segment.height_at(at)).abs() < 1e-6, "{hit:?}");
            (at, hit.y)
        };
        assert!((land_toe(0.85).0 - (1.0 - toe - TOE_CLEARANCE)).abs() < 1e-5);
        assert!((land_toe(0.95).0 - (1.0 - toe - TOE_CLEARANCE)).abs() < 1e-5);
        let (at, y) = land_toe(0.98);
        assert!((at - (1.0 + heel + TOE_CLEARANCE)).abs() < 1e-5 && (y - 0.2).abs() < 1e-6);
        assert_eq!(land_toe(0.7).0, 0.7);
        // A longer leg moves its landing further (RISER_MOVE_LEGS): 5 cm
        // short of the riser, a move of up to 20 cm takes the toe its
        // reach and TOE_CLEARANCE short of the riser (19 cm back); 2 cm
        // short, still onto the step (the shorter move).
        let long_leg = |x: f32| {
            let hit = up.floor_below(x, 0.5, 1.0).unwrap();
            clear_of_edge(&up, x, x, hit, 1.0, [heel, toe], 0.2).0
        };
        assert!((long_leg(0.95) - (1.0 - toe - TOE_CLEARANCE)).abs() < 1e-5);
        assert!((long_leg(0.98) - (1.0 + heel + TOE_CLEARANCE)).abs() < 1e-5);
        // Within `most` of the step, a landing short of it goes onto it,
        // not back: 4 cm short with `most` 14 cm (onto the step 13 cm on,
        // back 20 cm).
        let near = |x: f32| {
            let hit = up.floor_below(x, 0.5, 1.0).unwrap();
            clear_of_edge(&up, x, x, hit, 1.0, [heel, toe], 0.14).0
        };
        assert!((near(0.96) - (1.0 + heel + TOE_CLEARANCE)).abs() < 1e-5);
        for x in [0.85, 0.95, 0.96, 0.98] {
            let at = land_toe(x).0;
            assert!(
                at + toe <= 1.0 - TOE_CLEARANCE + 1e-5 || at - heel >= 1.0,
                "{x}: the toe in the riser at {at}"
            );
        }
    }

    /// The flat at 0 up to x = 1, a 45° descent to x = 2, the flat at -1
    /// beyond: a crest at 1, the foot of the slope at 2 (the builtin
    /// level's descent, made small).
    fn small_crest() -> Vec<GroundSegment> {
        vec![
            GroundSegment::ground(-5.0, 1.0, 0.0, 0.0),
            GroundSegment::ground(1.0, 2.0, 0.0, -1.0),
            GroundSegment::ground(2.0, 6.0, -1.0, -1.0),
        ]
    }

    #[test]
    fn a_landing_just_over_a_crest_moves_on_past_it() {
        use crate::sim::world::Level;
        let floors = small_crest();
        let level = Level::from_profile(
            "crest",
            floors,
            vec![],
            Vec2::ZERO,
            Vec2::new(5.0, -1.0),
            -10.0,
        );
        let (heel, toe) = (0.07, 0.18);
        let land = |x: f32, dir: f32, heel: f32| {
            let hit = level.floor_below(x, 0.5, 2.0).unwrap();
            let (at, hit, moved, past_drop) =
                clear_of_edge(&level, x, x, hit, dir, [heel, toe], EDGE_MARGIN);
            assert!((at - (x + moved)).abs() < 1e-6);
            assert!((hit.y - hit.segment.height_at(at)).abs() < 1e-6, "{hit:?}");
            assert_eq!(past_drop, 0.0);
            at
        };
        // Walking right, 3 cm over the crest: on to EDGE_MARGIN past it, on
        // the slope; a heel reaching further than EDGE_MARGIN less
        // TOE_CLEARANCE, on to its reach and TOE_CLEARANCE past it.
        assert!((land(1.03, 1.0, heel) - (1.0 + EDGE_MARGIN)).abs() < 1e-5);
        assert!((land(1.03, 1.0, 0.15) - (1.0 + 0.15 + TOE_CLEARANCE)).abs() < 1e-5);
        // Further past it than that, or on the flat before it: no move.
        assert_eq!(land(1.2, 1.0, heel), 1.2);
        assert_eq!(land(0.97, 1.0, heel), 0.97);
        // Just past the slope's foot (a concave kink): no move; the sole
        // rests on the chord there (`fit_sole`).
        assert_eq!(land(2.03, 1.0, heel), 2.03);
        // Walking left up the slope, just over its top onto the flat (a
        // convex kink too): on, onto the flat.
        assert!((land(0.97, -1.0, heel) - (1.0 - EDGE_MARGIN)).abs() < 1e-5);
        // Walking left onto the slope's foot from the flat below (concave):
        // no move.
        assert_eq!(land(1.97, -1.0, heel), 1.97);
        // A kink turned by less than CREST_TURN is no crest.
        let gentle = vec![
            GroundSegment::ground(-5.0, 1.0, 0.0, 0.0),
            // Down half CREST_TURN per metre over its 4 m.
            GroundSegment::ground(1.0, 5.0, 0.0, -2.0 * CREST_TURN),
        ];
        let gentle = Level::from_profile(
            "gentle",
            gentle,
            vec![],
            Vec2::ZERO,
            Vec2::new(4.0, 0.0),
            -10.0,
        );
        let hit = gentle.floor_below(1.03, 0.5, 1.0).unwrap();
        let at = clear_of_edge(&gentle, 1.03, 1.03, hit, 1.0, [heel, toe], EDGE_MARGIN).0;
        assert_eq!(at, 1.03);
    }

    /// The ground `way` over `floors`, as `plan_landing` walks it for a
    /// foot lifted at `lift_x` (body at `body`) swinging to `x`.
    fn way_over(floors: Vec<GroundSegment>, body: Vec2, lift_x: f32, x: f32) -> (WayGround, f32) {
        use crate::sim::world::Level;
        let level = Level::from_profile("way", floors, vec![], body, Vec2::new(x, 0.0), -10.0);
        let mut way = WayGround::default();
        let sole = SoleRoom {
            reach: [0.07, 0.18],
            most: EDGE_MARGIN,
        };
        let dir = (x - body.x).signum();
        let l = plan_landing(&level, body, x, dir, x, lift_x, lift_x, sole, &mut way).unwrap();
        (way, l.x)
    }

    #[test]
    fn a_swing_over_a_crest_stays_over_the_flat_until_its_sole_is_past_it() {
        let floors = small_crest();
        let (heel, toe) = (0.07, 0.18);
        let (lift_x, body) = (0.3, Vec2::new(0.8, 0.0));
        let (way, land_x) = way_over(floors, body, lift_x, 2.5);
        assert!((land_x - 2.5).abs() < 1e-6);
        let line = |x: f32| -(x - lift_x) / (land_x - lift_x);
        let at = |x: f32| {
            let t = (x - lift_x) / (land_x - lift_x);
            swing_ground(
                &way,
                (lift_x, 0.0),
                (land_x, -1.0),
                [heel, toe],
                1.0,
                t,
                false,
            )
            .unwrap_or(line(x))
        };
        // The straight line from lift-off to landing is 32 cm under the
        // crest; the swing stays over the flat until its heel is past it
        // (the walk ends a floor `WALK_EDGE` short of its end).
        assert!(line(1.0) < -0.3);
        for k in 0..=20 {
            let x = lift_x + (1.0 + heel - lift_x) * k as f32 / 20.0;
            assert!(at(x) >= -2.0 * WALK_EDGE, "{x}: {}", at(x));
            assert!(at(x) <= 1e-5, "{x}: {}", at(x));
        }
        // Then straight down to the landing, never under the slope.
        for k in 0..=20 {
            let x = 1.0 + heel + (land_x - 1.0 - heel) * k as f32 / 20.0;
            let slope = (1.0 - x).clamp(-1.0, 0.0);
            assert!(at(x) >= slope - 1e-5, "{x}: {} under {slope}", at(x));
            assert!(at(x) >= line(x));
        }
        assert!((at(land_x) + 1.0).abs() < 1e-5);
    }

    /// A flight of `n` treads 0.3 m deep, each `rise` above the last, from
    /// the floor at 0 (to x = 0.6) to the floor beyond them.
    fn flight(rise: f32, n: usize) -> Vec<GroundSegment> {
        let mut floors = vec![GroundSegment::ground(-5.0, 0.6, 0.0, 0.0)];
        for k in 1..=n {
            let (x0, y) = (0.6 + 0.3 * (k - 1) as f32, rise * k as f32);
            floors.push(GroundSegment::ground(x0, x0 + 0.3, y, y));
        }
        let (end, top) = (0.6 + 0.3 * n as f32, rise * (n + 1) as f32);
        floors.push(GroundSegment::ground(end, end + 5.0, top, top));
        floors
    }

    #[test]
    fn a_swing_over_stairs_clears_every_nose_up_or_down() {
        let (heel, toe) = (0.07, 0.18);
        for rise in [-0.25f32, 0.25] {
            // Two treads at a stride: from the floor before the flight to
            // its second tread.
            let (lift_x, body) = (0.35, Vec2::new(0.6, 0.0));
            let (way, land_x) = way_over(flight(rise, 3), body, lift_x, 1.1);
            let land = 2.0 * rise;
            let line = |x: f32| land * (x - lift_x) / (land_x - lift_x);
            let at = |x: f32| {
                let t = (x - lift_x) / (land_x - lift_x);
                swing_ground(
                    &way,
                    (lift_x, 0.0),
                    (land_x, land),
                    [heel, toe],
                    1.0,
                    t,
                    false,
                )
                .unwrap_or(line(x))
            };
            // Wherever the sole is over a tread's nose (the ankle from its
            // toe's reach before it to its heel's past it, less the walk's
            // `WALK_EDGE` at each end), the ankle's ground is at least as
            // high as the higher of the treads there.
            for (nose, tread) in [(0.6, rise.max(0.0)), (0.9, (2.0 * rise).max(rise))] {
                for k in 0..=20 {
                    let (from, to) = (nose - toe + 2.0 * WALK_EDGE, nose + heel - 2.0 * WALK_EDGE);
                    let x = from + (to - from) * k as f32 / 20.0;
                    if x < land_x {
                        let h = at(x);
                        assert!(
                            h >= tread - 2.0 * WALK_EDGE,
                            "rise {rise}, nose {nose}, ankle {x}: {h}"
                        );
                    }
                }
            }
            assert!(at(lift_x).abs() < 1e-5);
            assert!((at(land_x) - land).abs() < 1e-5);
        }
    }

    #[test]
    fn a_swing_up_a_slope_onto_its_top_goes_straight() {
        // Up a 45° climb from 0 at x = 1 to 1 at x = 2, the flat beyond: a
        // swing from the slope onto the top goes along the line, not over
        // the crest (see `CLIMB_SWING`); on level floor, or stepping in
        // place, it goes straight too.
        let floors = vec![
            GroundSegment::ground(-5.0, 1.0, 0.0, 0.0),
            GroundSegment::ground(1.0, 2.0, 0.0, 1.0),
            GroundSegment::ground(2.0, 6.0, 1.0, 1.0),
        ];
        let (way, land_x) = way_over(floors, Vec2::new(1.7, 0.7), 1.3, 2.6);
        for k in 0..=10 {
            let t = k as f32 / 10.0;
            let h = swing_ground(&way, (1.3, 0.3), (land_x, 1.0), [0.07, 0.18], 1.0, t, false);
            assert_eq!(h, None, "{t}");
        }
        // Over the crest, the ground the foot itself passes: never under
        // the top (1.0, less the walk's `WALK_EDGE` at each floor's end)
        // once its sole reaches the crest (its toe at x = 2),
        // nor under the line, and at the line's ends at lift-off and
        // landing. The line there passes up to 0.23 m under the top.
        let line = |t: f32| 0.3 + 0.7 * t;
        let mut deepest = 0.0f32;
        for k in 0..=40 {
            let t = k as f32 / 40.0;
            let x = 1.3 + (land_x - 1.3) * t;
            let h = swing_ground(&way, (1.3, 0.3), (land_x, 1.0), [0.07, 0.18], 1.0, t, true)
                .unwrap_or(line(t));
            assert!(h >= line(t) - 1e-5, "{t}: {h}");
            if x + 0.18 >= 2.0 {
                assert!(h >= 1.0 - 2.0 * WALK_EDGE, "ankle at {x}: {h}");
                deepest = deepest.max(1.0 - line(t));
            }
            if k == 0 || k == 40 {
                assert!((h - line(t)).abs() < 1e-5, "{t}: {h}");
            }
        }
        assert!(deepest > 0.2, "{deepest}");
        let floors = vec![GroundSegment::ground(-5.0, 6.0, 0.0, 0.0)];
        let (way, land_x) = way_over(floors, Vec2::new(0.5, 0.0), 0.2, 1.4);
        for k in 0..=10 {
            let t = k as f32 / 10.0;
            let h = swing_ground(&way, (0.2, 0.0), (land_x, 0.0), [0.07, 0.18], 1.0, t, false);
            assert_eq!(h, None);
        }
        let h = swing_ground(&way, (0.2, 0.0), (0.22, 0.3), [0.07, 0.18], 1.0, 0.5, false);
        assert_eq!(h, None);
    }

    mod swing_hull {
        use super::super::{CLIMB_SWING, WAY_POINTS, WayGround, swing_ground};
        use glam::Vec3;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2_000))]

            #[test]
            fn the_swing_is_over_the_line_and_every_point_and_under_the_highest(
                points in proptest::collection::vec((-1.0f32..1.0, any::<bool>()), 0..WAY_POINTS),
                from in -1.0f32..1.0,
                land in -1.0f32..1.0,
                span in 0.3f32..2.5,
                dir in prop_oneof![Just(1.0f32), Just(-1.0f32)],
                t in 0.0f32..=1.0,
                heel in 0.0f32..0.15,
                toe in 0.0f32..0.25,
                crest in any::<bool>(),
            ) {
                // Points spread over the way, in any order, some of them
                // steps' edges; with `crest`, the swing over a slope's top
                // it climbs too.
                let lift_x = 3.0;
                let land_x = lift_x + dir * span;
                let mut way = WayGround::default();
                let n = points.len();
                for (k, &(y, step)) in points.iter().enumerate() {
                    let u = ((k * 7919) % (n + 1)) as f32 / (n + 1) as f32;
                    way.points[k] = Vec3::new(lift_x + dir * span * u, y, f32::from(u8::from(step)));
                }
                way.len = n;
                let line = |t: f32| from + (land - from) * t;
                let at = |t: f32| {
                    swing_ground(&way, (lift_x, from), (land_x, land), [heel, toe], dir, t, crest)
                        .unwrap_or(line(t))
                };
                let h = at(t);
                // Never under the line from lift-off to landing, never over
                // the highest of the ends and the ground between.
                prop_assert!(h >= line(t) - 1e-5);
                let top = points.iter().fold(from.max(land), |a, &(b, _)| a.max(b));
                prop_assert!(h <= top + 1e-5);
                // Over every point wherever the sole is over it (a swing up
                // to higher ground, over the steps' edges only, but with
                // `crest`).
                let climb = !crest && land > from + CLIMB_SWING;
                for p in way.points().iter().filter(|p| !climb || p.z > 0.0) {
                    for x in [p.x - dir * toe, p.x, p.x + dir * heel] {
                        let u = (x - lift_x) / (land_x - lift_x);
                        if u > 0.0 && u < 1.0 {
                            prop_assert!(at(u) >= p.y - 1e-5, "{u}: {} under {}", at(u), p.y);
                        }
                    }
                }
                // The ends are the ends, or over them.
                prop_assert!(at(0.0) >= from - 1e-5);
                prop_assert!(at(1.0) >= land - 1e-5);
            }
        }
    }

    mod duty_warp {
        use super::super::{body_phase, duty_phase};
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(5_000))]

            #[test]
            fn a_leg_s_clock_runs_on_and_comes_back_to_the_body_s(
                phase in -2.0f32..3.0,
                step in 1e-4f32..0.05,
                duty in 0.0f32..0.5,
                centre in 0.0f32..1.0,
                width in 0.1f32..0.9,
            ) {
                // The body's phase back from the leg's; the leg's phase
                // never moves backwards as the body's moves on, and moves
                // on no faster than `1 + duty` times it nor slower than
                // the swing's share; unwarped, the leg's is the body's.
                let q = duty_phase(phase, duty, centre, width);
                prop_assert!((body_phase(q, duty, centre, width) - phase).abs() < 1e-4);
                let q2 = duty_phase(phase + step, duty, centre, width);
                let slowest = (1.0 - width) / (1.0 - width / (1.0 + duty));
                prop_assert!(q2 - q >= step * slowest - 1e-4, "{q} -> {q2}");
                prop_assert!(q2 - q <= step * (1.0 + duty) + 1e-4, "{q} -> {q2}");
                prop_assert!((duty_phase(phase, 0.0, centre, width) - phase).abs() < 1e-5);
                // Mid-stance and mid-swing agree.
                for p in [centre, centre + 0.5] {
                    prop_assert!((duty_phase(p, duty, centre, width) - p).abs() < 1e-5);
                }
            }

            #[test]
            fn a_warped_stance_takes_its_share_over_one_plus_the_warp(
                duty in 0.0f32..0.5,
                centre in 0.0f32..1.0,
                width in 0.1f32..0.9,
            ) {
                // The stance's two ends in the leg's phase are reached at
                // body phases `width / (1 + duty)` apart.
                let start = body_phase(centre - 0.5 * width, duty, centre, width);
                let end = body_phase(centre + 0.5 * width, duty, centre, width);
                prop_assert!((end - start - width / (1.0 + duty)).abs() < 1e-4);
            }
        }
    }
}
