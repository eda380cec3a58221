//! Which clips play, at what time and weight, for the player's state.
//!
//! Locomotion clips are in place (the root does not travel), so their phase is
//! driven by the distance the player actually moved divided by the clip's
//! stride: the feet then move exactly as fast as the ground passes under them
//! and never slide. Walk and run share one normalized gait phase so that
//! blending between them keeps the feet in step. State changes crossfade.

use glam::Vec2;

use crate::character::pose_pipeline::MAX_DUTY_WARP;
use crate::sim::player::{Locomotion, MoveParams, Player};

/// The most clips blended at once: a fading-out state (held) plus idle, walk
/// and run of the new state (the pipeline keeps fixed-size scratch for this
/// many poses).
pub const MAX_LAYERS: usize = 4;

/// Seconds a state change takes to crossfade. At 0.15 s the crossfade into
/// a jump swung a humanoid's arms (Kenney's RightArm) into the knight's jump
/// (retargeted) past the joint speed limit five frames after every takeoff
/// (Kenney's `s_long` script limited on 2.28 % of its frames): at 0.2 s the
/// five models' sweep is limited on 1,171 frames instead of 1,260, and no
/// motion figure is worse.
pub const CROSSFADE: f32 = 0.2;

/// Seconds the crossfade between climbing and walking takes while climbing
/// over a ladder's top: arms and legs change pose more than between any other
/// two states.
pub const CLIMB_CROSSFADE: f32 = 0.4;

/// The share of the height climbed that moves the climb clip's phase on a
/// ledge: climbing over one, the body rises about 2 m in under a second,
/// which at the full rate would play the climb cycle more than three times
/// (the limbs turned at up to 100 rad/s); at this share it plays it about
/// once, at a ladder climber's pace.
pub const LEDGE_CLIMB_RATE: f32 = 0.3;

/// A move of the feet longer than this in one step is a teleport (a
/// respawn), not motion: it advances no phase, metres.
pub const TELEPORT: f32 = 2.0;

/// The slowest a locomotion clip plays, as a share of its authored speed:
/// slower, a walk reads as slow motion (a run at walking pace as a
/// moonwalk). Below the speed this gives, the stride shortens instead
/// (see [`AnimState::update`] and [`fastest_rate`]).
pub const MIN_PLAYBACK_RATE: f32 = 0.7;
/// The gait's share of the pose (over the idle) from which it plays no
/// slower than [`MIN_PLAYBACK_RATE`]; below it, setting off or stopping,
/// the floor falls with the share, to 0 standing still, so that the last
/// steps into a stop slow with the body. It was the share itself, and a
/// gait 99.1 % of the pose played at 0.694 as the body slowed (the knight
/// on `long`); a floor full from a share of 0.9 made the stops' strides
/// shorter instead and cost the feet (the sweep's soles over 1 cm 406 →
/// 468).
pub const FULL_GAIT_SHARE: f32 = 0.99;
/// How fast the stride's scale may fall while the gait fades out under the
/// idle (stopping), per second. The last slow steps into a stop play at
/// the rate's falling floor and the stride covers the rest of the ground
/// (`natural / step`): braking over a few frames, that drew the clip's
/// feet in under the hips at up to 4 m/s, and a foot let go of as its
/// clip lifted it followed: RiggedFigure's knee at 28 rad/s, the joint
/// speed limit holding it and his sole 40.9 mm in the floor. At 4 per
/// second (a foot a quarter of a metre from the hips drawn in at most
/// 1 m/s) the phase still plays as before, only the stride lags the
/// braking body for a few frames; a planted foot is held by its lock.
/// Over the release sweep, limited frames 810 → 731, soles under the floor
/// by more than 1 cm 31 → 25 foot-frames; the same at 2 and 8 per second
/// (733 and 748 limited frames).
pub const STRIDE_SCALE_FALL: f32 = 4.0;
/// The longest a landing's recovery holds the pose before the state
/// follows the body again, seconds: 60 % of the land clip, at most this.
/// A model without a land clip lands into its idle, and Kenney's idle of
/// 1.1 s held him standing for 0.66 s while the autopilot ran him 1.6 m
/// from the level's spawn, his feet sliding; the knight's land (0.4 s) holds
/// 0.24 s.
pub const LAND_HOLD_MAX: f32 = 0.25;
/// The shortest time over which the gait fades in over the idle as the
/// body sets off, seconds. The gait's share follows the body's speed (all
/// of it from half walking pace), rising no faster than this: the player's
/// speed may double in one step, and a model whose idle and walk hold the
/// legs differently (Mannequiny's) turned a knee at 39 rad/s as a third of
/// the idle left in one frame. Stopping, see [`IDLE_FADE_OUT_TIME`].
pub const IDLE_FADE_TIME: f32 = 0.15;
/// The shortest time over which the gait fades out under the idle as the
/// body stops, seconds: the gait's share falls with the body's speed, no
/// faster than this. Falling at once, a body braking to a stop in a tenth
/// of a second brought the idle in over four frames, a swinging foot set
/// down in them: the speed limit acted on 1,617 frames of the five models'
/// sweep, on 1,261 with this (Mannequiny 301 -> 73; 0.12 s: 1,273 but the
/// knight's `long` over 0.5 %; 0.08 s: 1,533; 0.2 s: 1,313).
pub const IDLE_FADE_OUT_TIME: f32 = 0.15;
/// The fastest a locomotion clip plays, as a share of its authored speed:
/// faster, a walk used as a run reads as a scurry (CesiumMan's walk at
/// running pace played 4.05 times over). A character whose walk or run
/// would play faster at its pace plays at most [`DUTY_PLAYBACK_RATE`]
/// ([`fastest_rate`]); any other at most this, the stride lengthening
/// instead.
pub const MAX_PLAYBACK_RATE: f32 = 1.4;
/// The longest stride warping makes, in leg lengths (hip to ankle along
/// the bones) per cycle of two steps: the knight's run strides 2.5 of his
/// legs, and a stride made longer than a clip's own stretched CesiumMan's
/// legs (a walk of about 2.5 leg lengths per cycle made 1.5 times as long)
/// out of reach on the slopes, a planted foot dragged 2.3 cm. A clip
/// striding that far already is not lengthened at all; a gait needing
/// more plays faster than [`MAX_PLAYBACK_RATE`] instead.
pub const MAX_STRIDE_LEGS: f32 = 2.8;
/// How much longer a stride the legs' duty warp buys per unit of warp
/// ([`Layer::duty`]): a warp `a` plays each stance `1 + a` times as fast as
/// the body's clock (see
/// [`duty_phase`](crate::character::pose_pipeline::duty_phase)), so the
/// body passes over the planted foot in `1 + a` times less of the cycle,
/// and a stride that much longer keeps the foot's travel under the hips
/// what the clip's stance gives it.
pub const DUTY_STRIDE: f32 = 1.0;
/// The fastest a gait whose clips need warping at their paces
/// ([`fastest_rate`]) plays, as a share of its authored speed: above the
/// speed this gives the stride lengthens instead, beyond
/// what a stance reaches with the legs' stances played faster and their
/// swings slower ([`Layer::duty`]). A short leg's
/// swing played at 1.4 times over (the knight's run on CesiumMan, Kenney
/// and RiggedFigure) turned its joints faster than the speed limit on 2–5 %
/// of the frames of the shipped levels; at 1.2 with the rest of the stride
/// in the warp, 0.3–2.9 %; lower still (1.0, 0.9), the longer stances
/// carried planted feet out of reach on steep ground (a foot dragged 10 cm,
/// before a lock let go as its leg's reach ran out; on steep ground the
/// gait now plays at [`STEEP_PLAYBACK_RATE`], every planted foot within
/// 3.5 mm).
pub const DUTY_PLAYBACK_RATE: f32 = 1.2;
/// The fastest a gait that needs warping at its paces plays up or down a
/// 45° slope (see [`steep_fastest_rate`]), as a share of its authored
/// speed: its stride longer instead, as far as the legs span there (see
/// [`steep_longest_stride_scale`]). Held at [`DUTY_PLAYBACK_RATE`] there,
/// Kenney's and CesiumMan's short legs turned faster than the joint speed
/// limit on the 45° slopes (the limit acted on 2.8 % of Kenney's frames of
/// the builtin level's autopilot run, 1.9 % with this; over every shipped
/// level and script the shared humanoids' limited frames 1,368 → 1,185).
/// Faster there (up to [`MAX_PLAYBACK_RATE`]) was worse: 1,368 → 1,689.
pub const STEEP_PLAYBACK_RATE: f32 = 1.0;
/// The slope (rise over run, about 17°) from which a gait that needs
/// warping plays slower, down to [`STEEP_PLAYBACK_RATE`] at 45°.
pub const STEEP_FROM: f32 = 0.3;
/// The fastest the legs' duty warp ([`Layer::duty`]) changes, per second:
/// a change of the warp moves a leg's phase (up to 0.14 of a cycle per
/// unit of warp at the edges of its stance), and at this rate never more
/// than a tenth of what a running leg's phase moves in a frame.
pub const DUTY_RATE: f32 = 1.0;

/// The most a stride of `cycle_distance` metres per cycle is lengthened for
/// legs of `leg_length` metres (see [`MAX_STRIDE_LEGS`]); 1 (no
/// lengthening) when either is unknown.
pub fn longest_stride_scale(leg_length: f32, cycle_distance: f32) -> f32 {
    if leg_length > 0.0 && cycle_distance > 0.0 {
        (MAX_STRIDE_LEGS * leg_length / cycle_distance).max(1.0)
    } else {
        1.0
    }
}

/// How far under its hip the upper foot of a pair on a slope stays at
/// least, in leg lengths, for [`steep_stride_legs`]: a leg folds no further
/// (foot IK's fold limit).
pub const STEEP_FOLD_LEGS: f32 = 0.1;
/// How far from its hip the lower foot of a pair on a slope reaches at
/// most, in leg lengths, for [`steep_stride_legs`]: short of foot IK's
/// reach fraction (0.97), as the hips are not over the step's middle all
/// through double support. Over the release sweep, against 0.97:
/// RiggedFigure's soles more than 1 cm under the floor 45 → 11
/// foot-frames (his heel at the foot of `long`'s 45° descent, 11.5 mm for
/// 30 frames, no longer), feet down and not locked 24 → 20, over it 18 →
/// 14, limited frames 242 → 235, Kenney's one foot-frame more each and 4
/// limited frames more; 0.85 cut little more and lost Kenney a run; 1.1 (a
/// lifted heel's worth more) cut no stride of RiggedFigure's.
pub const STEEP_REACH_LEGS: f32 = 0.9;
/// The slope (rise over run, about 14°) below which no stride is cut:
/// the legs span more than [`MAX_STRIDE_LEGS`] there ([`steep_stride_legs`]
/// is 3.0 legs at 0.25 and 2.8 at 0.33), and the frames on the flat and on
/// gentle slopes skip working it out.
pub const STEEP_SPAN_FROM: f32 = 0.25;

/// The longest stride, in leg lengths per cycle of two steps, whose feet
/// a pair of legs spans in double support on ground of slope `slope` (rise
/// over run): the feet a step apart along x, the upper one
/// [`STEEP_FOLD_LEGS`] under the hip, the lower one within
/// [`STEEP_REACH_LEGS`] of it. Longer than any gait strides on the flat
/// (3.6 legs); up or down 45° 1.45 legs.
pub fn steep_stride_legs(slope: f32) -> f32 {
    let t = if slope.is_finite() { slope.abs() } else { 0.0 };
    // The step l with (l / 2)² + (t l + fold)² = reach²: the hip over the
    // middle of the step, as high over the upper foot as it folds.
    let a = 0.25 + t * t;
    let b = 2.0 * STEEP_FOLD_LEGS * t;
    let c = STEEP_FOLD_LEGS * STEEP_FOLD_LEGS - STEEP_REACH_LEGS * STEEP_REACH_LEGS;
    2.0 * (-b + (b * b - 4.0 * a * c).sqrt()) / (2.0 * a)
}

/// [`longest_stride_scale`] walking on ground of slope `slope`: no longer
/// than the legs span there ([`steep_stride_legs`]), and never shorter than
/// the clip's own stride (1).
///
/// Lengthened past it (the gait held to [`STEEP_PLAYBACK_RATE`] on steep
/// ground, the stride making up the speed), RiggedFigure's legs (0.54 m)
/// could not span his feet walking up or down 45°: his trailing foot was
/// let go of while his clip still had it down and floated up to 9 cm over
/// the climb. Shortened below the clip's own stride as well, CesiumMan's
/// walk played up to 1.9 times over on the slopes and a planted foot of his
/// stood 8 mm off the ground.
pub fn steep_longest_stride_scale(leg_length: f32, cycle_distance: f32, slope: f32) -> f32 {
    let flat = longest_stride_scale(leg_length, cycle_distance);
    if leg_length > 0.0 && cycle_distance > 0.0 {
        flat.min((steep_stride_legs(slope) * leg_length / cycle_distance).max(1.0))
    } else {
        flat
    }
}

/// What the pipeline needs to know of one clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipInfo {
    /// Index of the clip in the character's clip list.
    pub index: usize,
    /// Length of one cycle, seconds.
    pub duration: f32,
    /// Ground (or ladder) distance one cycle covers, metres; 0 for clips not
    /// driven by distance.
    pub cycle_distance: f32,
}

/// The clips the state machine uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipSet {
    /// Standing still.
    pub idle: ClipInfo,
    /// Walk cycle.
    pub walk: ClipInfo,
    /// Run cycle.
    pub run: ClipInfo,
    /// Take-off and rise.
    pub jump: ClipInfo,
    /// Falling (loops).
    pub fall: ClipInfo,
    /// Landing recovery.
    pub land: ClipInfo,
    /// Climb cycle (one cycle climbs `cycle_distance`).
    pub climb: ClipInfo,
    /// Authored ledge clips, when the rig names them: the hang (loops) and
    /// the climb over the top (played at the climb's progress). Without
    /// them a ledge plays the climb clip.
    pub ledge: Option<LedgeClips>,
    /// The mean length of the legs (hip to ankle along the bones), metres:
    /// bounds how far stride warping lengthens a gait's stride (see
    /// [`longest_stride_scale`]; 0: never lengthened).
    pub leg_length: f32,
    /// Seconds into the idle clip to hold while standing, when the idle clip
    /// is not a standing animation of its own (see `RigFile::idle_time`):
    /// standing then holds that one frame instead of playing the clip.
    pub idle_hold: Option<f32>,
    /// How far ahead of the run (a share of the cycle) the walk plays, so
    /// that the two land each foot at the same gait phase (see
    /// [`walk_phase_offset`]): walk and run share one phase and blend by
    /// speed, and two clips out of step would blend a foot in its stance
    /// with the same foot in mid-swing. 0 for clips already in step.
    pub walk_phase_offset: f32,
}

/// Two gaits whose feet are within this share of a cycle of each other are
/// taken as in step (no offset): three of the 64 samples per cycle that a
/// foot's track has, so that clips whose tracks differ by a sample or two
/// play as they always have.
pub const IN_STEP: f32 = 3.0 / 64.0;

/// The most the legs' own offsets (see [`walk_phase_offset`]) may differ
/// for their mean to be used: an eighth of a cycle. A walk whose feet do
/// not keep the run's rhythm between them has no one offset that matches.
const LEGS_AGREE: f32 = 0.125;

/// The phase in [0, 1) at which a foot's track (its position along the
/// direction of travel at evenly spaced phases of a cycle) is furthest
/// forward, between samples by the parabola through the furthest and its
/// two neighbours: where the foot reaches out to land.
pub fn furthest_forward<const N: usize>(track: &[f32; N]) -> Option<f32> {
    if N < 3 || track.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let i = (0..N).max_by(|&a, &b| track[a].total_cmp(&track[b]))?;
    let (a, b, c) = (track[(i + N - 1) % N], track[i], track[(i + 1) % N]);
    let bend = a - 2.0 * b + c;
    let shift = if bend < -1e-9 {
        (0.5 * (a - c) / bend).clamp(-0.5, 0.5)
    } else {
        0.0
    };
    Some(((i as f32 + shift) / N as f32).rem_euclid(1.0))
}

/// How far ahead of the run (a share of the cycle, in [0, 1)) the walk must
/// play for each foot to reach out to land when the run's does:
/// `walk[leg]` and `run[leg]` are the foot's position along the direction
/// of travel at evenly spaced phases of each clip (see
/// [`furthest_forward`]), and the offset is the mean over the legs of
/// where the walk's foot is furthest forward less where the run's is.
/// Tracks rather than contact windows, because an uneven walk
/// (CesiumMan's) splits a stance in two and its longest window can start
/// anywhere in it. 0 within [`IN_STEP`], when a track is not finite, or
/// when the legs' offsets differ by more than [`LEGS_AGREE`].
pub fn walk_phase_offset<const N: usize>(walk: &[[f32; N]], run: &[[f32; N]]) -> f32 {
    if walk.is_empty() || walk.len() != run.len() {
        return 0.0;
    }
    let mut offsets = Vec::with_capacity(walk.len());
    for (w, r) in walk.iter().zip(run) {
        let (Some(w), Some(r)) = (furthest_forward(w), furthest_forward(r)) else {
            return 0.0;
        };
        offsets.push((w - r).rem_euclid(1.0));
    }
    // The mean taken round the cycle from the first leg's offset.
    let first = offsets[0];
    let near = |o: f32| (o - first + 0.5).rem_euclid(1.0) - 0.5;
    if offsets.iter().any(|&o| near(o).abs() > LEGS_AGREE) {
        return 0.0;
    }
    let off = (first + offsets.iter().map(|&o| near(o)).sum::<f32>() / offsets.len() as f32)
        .rem_euclid(1.0);
    if off.min(1.0 - off) < IN_STEP || !off.is_finite() {
        0.0
    } else {
        off
    }
}

/// A character's authored ledge clips (see [`ClipSet::ledge`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LedgeClips {
    /// Hanging by the hands (loops).
    pub hang: ClipInfo,
    /// From hanging to standing on the top; its length is the whole climb.
    pub climb_up: ClipInfo,
}

/// One clip to sample: which, at what time, how much.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layer {
    /// The clip.
    pub clip: ClipInfo,
    /// Time to sample, seconds (the sampler wraps looping clips).
    pub time: f32,
    /// Blend weight (the layers of a frame need not sum to 1; the blender normalizes).
    pub weight: f32,
    /// True for looping clips.
    pub looping: bool,
    /// True for the idle (standing) layer: foot IK counts both feet in
    /// contact whatever the clip's own contact curve says, and treats the
    /// character as standing. Marked here, not found by clip, because a
    /// model with one clip plays it for idle and walk alike.
    pub still: bool,
    /// How fast the clip plays, as a share of its authored speed (1 as
    /// authored, 0 for a clip held still). Walk and run play in one phase,
    /// so for them it is the gait's rate: its cycles per second over the
    /// authored cycles per second of the blend (walk's and run's, weighted
    /// as the layers are), within [`MIN_PLAYBACK_RATE`] and
    /// [`fastest_rate`] while the stride can make up the rest.
    pub rate: f32,
    /// How much longer (over 1) or shorter the gait's stride is made than
    /// the clip's, so that the feet keep pace with the ground at `rate`:
    /// foot IK draws a shorter one in toward the hips, and its locks carry
    /// each landed foot back as far as the body travels (1: as authored).
    pub stride: f32,
    /// How far each leg's clock is warped against the gait's (0: not at
    /// all; at most [`MAX_DUTY_WARP`]): with a stride longer than
    /// [`longest_stride_scale`] allows a stance, the legs play their
    /// stances faster and their swings slower (see
    /// [`duty_phase`](crate::character::pose_pipeline::duty_phase)), so the
    /// body covers the rest of the stride while the foot is in the air.
    pub duty: f32,
    /// `Some(k)` for the outgoing state of crossfade number `k`: the pose
    /// pipeline poses this layer with the pose it showed the frame before
    /// that crossfade began (held), not with the clip, so a crossfade
    /// starts exactly where the body was, whatever it was doing (a blend of
    /// walk and run, or another crossfade half done). The clip and time
    /// still give the layer's contacts.
    pub held: Option<u32>,
}

impl Layer {
    /// `clip` at `time` seconds, weighing `weight`, looping, played as
    /// authored (rate, stride 1, no duty warp), neither standing nor held.
    pub fn looping(clip: ClipInfo, time: f32, weight: f32) -> Self {
        Layer {
            clip,
            time,
            weight,
            looping: true,
            still: false,
            rate: 1.0,
            stride: 1.0,
            duty: 0.0,
            held: None,
        }
    }
}

/// The state machine's memory between frames.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimState {
    gait_phase: f32,
    /// The gait's playback rate in the latest update (see [`Layer::rate`])
    /// and its stride scale (see [`Layer::stride`]).
    gait_rate: f32,
    stride_scale: f32,
    /// The legs' duty warp in the latest update (see [`Layer::duty`]).
    duty: f32,

    climb_phase: f32,
    /// How far through a climb over a ledge the player is (0 to 1): the
    /// climb-up clip's time.
    ledge_progress: f32,
    speed_blend: f32,
    /// The gait's share against the idle in locomotion: following the
    /// speed's, rising no faster than [`IDLE_FADE_TIME`] allows and falling
    /// no faster than [`IDLE_FADE_OUT_TIME`] does.
    moving: f32,
    current: Mode,
    previous: Option<(Mode, f32)>,
    fade: f32,
    /// Seconds the current crossfade takes.
    fade_time: f32,
    mode_time: f32,
    /// Number of the latest crossfade (see [`Layer::held`]).
    crossfades: u32,
    /// The heaviest layer of the latest frame, and that of the frame before
    /// the current crossfade began: the held layer's clip, time and
    /// standing flag (its contacts are those of the pose it holds, not
    /// the outgoing state's clips at the new state's speed).
    shown_main: Option<Layer>,
    held_main: Option<Layer>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Locomotion,
    Jump,
    Fall,
    Land,
    Climb,
    /// Hanging from a ledge with the authored hang clip.
    Hang,
    /// Climbing over a ledge with the authored climb-up clip.
    ClimbUp,
}

impl Default for AnimState {
    fn default() -> Self {
        Self {
            gait_phase: 0.0,
            gait_rate: 0.0,
            stride_scale: 1.0,
            duty: 0.0,

            climb_phase: 0.0,
            ledge_progress: 0.0,
            speed_blend: 0.0,
            moving: 0.0,
            current: Mode::Locomotion,
            previous: None,
            fade: 1.0,
            fade_time: CROSSFADE,
            mode_time: 0.0,
            crossfades: 0,
            shown_main: None,
            held_main: None,
        }
    }
}

impl AnimState {
    /// A state standing still whose walk and run cycle starts at `phase`
    /// (wrapped into [0, 1); NaN or infinite as 0) once the body moves.
    pub fn starting_at(phase: f32) -> Self {
        Self {
            gait_phase: if phase.is_finite() {
                phase.rem_euclid(1.0)
            } else {
                0.0
            },
            ..Self::default()
        }
    }

    /// Normalized gait phase in [0, 1): 0 is the start of the walk/run cycle.
    pub fn gait_phase(&self) -> f32 {
        self.gait_phase
    }

    /// Normalized climb phase in [0, 1).
    pub fn climb_phase(&self) -> f32 {
        self.climb_phase
    }

    /// Advances by `dt` seconds after the player's feet moved by `moved`
    /// metres (`params` gives the walk and run speeds), and writes the layers
    /// to sample into `out`; returns how many it wrote. The gait phase
    /// follows the distance across, the climb phase the height climbed; a
    /// move longer than [`TELEPORT`] (a respawn) advances neither.
    pub fn update(
        &mut self,
        clips: &ClipSet,
        player: &Player,
        params: &MoveParams,
        moved: Vec2,
        dt: f32,
        out: &mut [Layer; MAX_LAYERS],
    ) -> usize {
        let moved = if moved.length() > TELEPORT {
            Vec2::ZERO
        } else {
            moved
        };
        let mode = match player.state {
            Locomotion::Ground
                if self.current == Mode::Land
                    && self.mode_time < (clips.land.duration * 0.6).min(LAND_HOLD_MAX) =>
            {
                Mode::Land
            }
            Locomotion::Ground if player.just_landed && player.vel.x.abs() < 0.5 => Mode::Land,
            Locomotion::Ground => Mode::Locomotion,
            Locomotion::Air if player.vel.y > 0.0 => Mode::Jump,
            Locomotion::Air => Mode::Fall,
            // Climbing over a ladder's top: the climb while on the rungs,
            // the gait for the step across.
            Locomotion::Ladder(_) => match player.ladder_move {
                Some(o) if o.off_ladder() >= 0.5 => Mode::Locomotion,
                _ => Mode::Climb,
            },
            // Hanging from a ledge: the climb clip (arms up, feet on the
            // wall; its phase moves with the height climbed, so the legs
            // step up the wall climbing over); the gait for the step
            // across onto the top.
            // With authored ledge clips: the hang while catching and
            // hanging, the climb-up clip through the whole climb over the
            // top (it ends standing).
            Locomotion::Ledge => match (clips.ledge, player.ledge.and_then(|h| h.motion)) {
                (Some(_), Some(o)) if o.leaving => Mode::ClimbUp,
                (Some(_), _) => Mode::Hang,
                (None, Some(o)) if o.leaving && o.off_ladder() >= 0.5 => Mode::Locomotion,
                (None, _) => Mode::Climb,
            },
        };
        self.ledge_progress = player.ledge.map_or(0.0, |h| h.climb_progress());
        if mode != self.current
            && let Some((prev, prev_time)) = self.previous
            && prev == mode
            && self.fade < 1.0
        {
            // Back to the state a crossfade is leaving (a step in the air
            // between two steps on the ground): that state's clips go on
            // from where they were left instead of starting over, and the
            // new crossfade starts from the pose shown now (held), over
            // the part of the old one that was done.
            self.previous = Some((self.current, self.mode_time));
            self.current = mode;
            self.mode_time = prev_time;
            self.fade_time *= self.fade.max(0.25);
            self.fade = 0.0;
            self.crossfades = self.crossfades.wrapping_add(1);
            self.held_main = self.shown_main;
        } else if mode != self.current {
            self.previous = Some((self.current, self.mode_time));
            self.current = mode;
            self.mode_time = 0.0;
            self.fade = 0.0;
            self.crossfades = self.crossfades.wrapping_add(1);
            self.held_main = self.shown_main;
            // Between the climb and the gait while climbing over a ladder's
            // top, and stepping off one at its foot, the whole body changes
            // pose: a longer crossfade keeps it at walking joint speeds. (Onto
            // a ladder at its foot the hands must meet the rungs in step with
            // the climb clip's grips: the short one.)
            let leaving = self.previous.is_some_and(|(m, _)| m == Mode::Climb);
            let ledge_move = player.ledge.is_some_and(|h| h.motion.is_some());
            self.fade_time = if player.ladder_move.is_some() || ledge_move || leaving {
                CLIMB_CROSSFADE
            } else {
                CROSSFADE
            };
        } else {
            self.mode_time += dt;
        }
        self.fade = (self.fade + dt / self.fade_time).min(1.0);

        // Gait: speed picks the walk/run blend; distance drives the phase.
        let (walk_speed, run_speed) = (params.walk_speed, params.run_speed);
        let speed = player.vel.length();
        let target_blend = ((speed - walk_speed) / (run_speed - walk_speed)).clamp(0.0, 1.0);
        self.speed_blend += (target_blend - self.speed_blend) * (dt / 0.2).min(1.0);
        let target_moving = (speed / (0.5 * walk_speed)).clamp(0.0, 1.0);
        let most = dt.max(0.0) / IDLE_FADE_TIME;
        // Rising, no faster than IDLE_FADE_TIME; falling, no faster than
        // IDLE_FADE_OUT_TIME; reaching its target the share takes it
        // exactly (the idle's weight then is 0, not a rounding's worth).
        let fall = dt.max(0.0) / IDLE_FADE_OUT_TIME;
        self.moving = if target_moving - self.moving > most {
            self.moving + most
        } else if self.moving - target_moving > fall {
            self.moving - fall
        } else {
            target_moving
        };
        self.gait_rate = 0.0;
        // The stride's scale the frame before (1 out of the gait): standing
        // still in the gait it is kept (see `gait` below).
        let held_scale = self.stride_scale;
        self.stride_scale = 1.0;
        let mut duty = 0.0;
        if self.current == Mode::Locomotion {
            // Distance gives the phase its natural step; the gait plays
            // within its rate range of the blend's authored cycle rate
            // (walk's and run's cycles per second, weighted as the layers
            // are: continuous as the blend changes), and the stride makes
            // up the rest (see `warp_gait`). While the gait fades in or out
            // (starting, stopping: the idle blending in below half walking
            // pace, see `mode_layers`) the slowest rate fades with it, so
            // the clip slows to a stop with the body instead of drawing the
            // feet in under it. The step, stride scale and legs' warp at
            // blend `b`, and the rate they play at (0 with no stride).
            let fastest =
                fastest_rate(clips, params).map(|f| steep_fastest_rate(f, player.floor_slope));
            let moving = self.moving;
            // The longest stride at blend `b` for a step of `natural`
            // cycles where the clips play `cycles`: a walk's no longer than
            // the legs span on the floor's slope (see
            // `steep_longest_stride_scale`), a run's as on the flat (its
            // feet are never both down: held to the span too, the run
            // played up to 1.86 times over on the slopes), and never so
            // short that the gait plays faster than MAX_PLAYBACK_RATE for it.
            let longest_at = |b: f32, natural: f32, cycles: f32| {
                let stride = lerp(clips.walk.cycle_distance, clips.run.cycle_distance, b);
                let flat = longest_stride_scale(clips.leg_length, stride);
                // (Below `STEEP_SPAN_FROM` no gait's stride is cut: most
                // frames, the look is all they pay.)
                if player.floor_slope.abs() < STEEP_SPAN_FROM || b >= 1.0 {
                    return flat;
                }
                let steep =
                    steep_longest_stride_scale(clips.leg_length, stride, player.floor_slope);
                let least =
                    natural / (MAX_PLAYBACK_RATE * cycles * (1.0 + DUTY_STRIDE * MAX_DUTY_WARP));
                lerp(steep.max(least).min(flat), flat, b)
            };
            let gait = |b: f32| {
                let stride = lerp(clips.walk.cycle_distance, clips.run.cycle_distance, b);
                let authored = cycle_rate(clips.walk) * (1.0 - b) + cycle_rate(clips.run) * b;
                if stride <= 0.0 {
                    return None;
                }
                let natural = moved.x.abs() / stride;
                let (step, scale, warp) = match fastest {
                    Some(fastest) => warp_gait(
                        natural,
                        authored * dt,
                        MIN_PLAYBACK_RATE * (moving * (1.0 / FULL_GAIT_SHARE)).min(1.0),
                        fastest,
                        longest_at(b, natural, authored * dt),
                    ),
                    None => (natural, 1.0, 0.0),
                };
                // Standing still while the gait fades out under the idle,
                // its phase stays where it is and so does its stride: the
                // feet stay where the last step left them. (Scaled back to
                // the clip's own stride, RiggedFigure's rear foot, drawn in
                // under his hips by the last slow steps into a stop, jumped
                // 8 cm back in one frame and his knee turned 28 rad/s.)
                let scale = if natural <= 0.0 && fastest.is_some() {
                    held_scale
                } else {
                    scale
                };
                // And while it fades out, the last slow steps draw the
                // stride in no faster than `STRIDE_SCALE_FALL` (see there).
                let fall = STRIDE_SCALE_FALL * dt;
                let scale =
                    if fastest.is_some() && moving < FULL_GAIT_SHARE && scale < held_scale - fall {
                        held_scale - fall
                    } else {
                        scale
                    };
                let rate = if authored > 0.0 && dt > 0.0 {
                    step / (authored * dt)
                } else {
                    0.0
                };
                Some((step, scale, warp, rate))
            };
            let mut now = gait(self.speed_blend);
            // Speeding up, the blend lags the speed; where that would play
            // the gait faster than MAX_PLAYBACK_RATE with its stride
            // lengthened as far as it goes (a slow walk blended into a
            // run-up: CesiumMan's, authored at 0.84 m/s, played 1.8 times
            // over), the blend catches up as far as it must.
            let too_fast =
                |g: Option<(f32, f32, f32, f32)>| g.is_some_and(|g| g.3 > MAX_PLAYBACK_RATE);
            if fastest.is_some() && too_fast(now) && self.speed_blend < target_blend {
                let (mut lo, mut hi) = (self.speed_blend, target_blend);
                if !too_fast(gait(hi)) {
                    for _ in 0..12 {
                        let mid = 0.5 * (lo + hi);
                        if too_fast(gait(mid)) {
                            lo = mid;
                        } else {
                            hi = mid;
                        }
                    }
                }
                self.speed_blend = hi;
                now = gait(hi);
            }
            if let Some((step, scale, warp, rate)) = now {
                duty = warp;
                self.gait_phase = (self.gait_phase + step).fract();
                self.gait_rate = rate;
                self.stride_scale = scale;
            }
        }
        // The legs' duty warp moves no faster than `DUTY_RATE`: the legs'
        // phases depend on it, and a warp changing at once (the body
        // slowing onto a step) moved a swinging foot back through its
        // swing and its landing onto another tread.
        let most = DUTY_RATE * dt.max(0.0);
        self.duty += (duty - self.duty).clamp(-most, most);
        if self.current == Mode::Climb && clips.climb.cycle_distance > 0.0 {
            // On a ledge the legs step up the wall at a share of the height
            // climbed (the body rises over a ledge faster than up rungs).
            let rate = if player.state == Locomotion::Ledge {
                LEDGE_CLIMB_RATE
            } else {
                1.0
            };
            self.climb_phase =
                (self.climb_phase + rate * moved.y / clips.climb.cycle_distance).rem_euclid(1.0);
        }

        let mut n = 0;
        let mut push = |layer: Layer, out: &mut [Layer; MAX_LAYERS]| {
            if layer.weight > 1e-4 && n < MAX_LAYERS {
                out[n] = layer;
                n += 1;
            }
        };
        let fade = smooth(self.fade);
        if let Some((prev, prev_time)) = self.previous
            && fade < 1.0
        {
            // The outgoing state: the pose shown when the crossfade began,
            // held; the main layer shown then, frozen, for contacts. With
            // no frame shown before (a crossfade in the first frame: landing
            // at the spawn) the outgoing state's main layer at the
            // crossfade's start stands in, frozen too: worked out afresh
            // each frame, it turned from the stand to the gait as the body
            // set off, and the feet's contacts with it.
            let main = match self.held_main {
                Some(main) => main,
                None => {
                    let main = self.mode_layers(clips, prev, prev_time)[0];
                    self.held_main = Some(main);
                    main
                }
            };
            push(
                Layer {
                    weight: (1.0 - fade),
                    held: Some(self.crossfades),
                    ..main
                },
                out,
            );
        }
        for l in self.mode_layers(clips, self.current, self.mode_time) {
            push(
                Layer {
                    weight: l.weight * fade,
                    ..l
                },
                out,
            );
        }
        self.shown_main = out[..n]
            .iter()
            .copied()
            .max_by(|a, b| a.weight.total_cmp(&b.weight))
            .map(|l| Layer { held: None, ..l });
        n
    }

    fn mode_layers(&self, c: &ClipSet, mode: Mode, time: f32) -> [Layer; 3] {
        let one = |clip: ClipInfo, time: f32, looping: bool| Layer {
            looping,
            ..Layer::looping(clip, time, 1.0)
        };
        let gait = |clip: ClipInfo, weight: f32, offset: f32| {
            let phase = self.gait_phase + offset;
            let phase = if phase >= 1.0 { phase - 1.0 } else { phase };
            Layer {
                weight,
                rate: self.gait_rate,
                stride: self.stride_scale,
                duty: self.duty,
                ..one(clip, phase * clip.duration, true)
            }
        };
        let idle_time = |time: f32| c.idle_hold.unwrap_or(time);
        let idle = |time: f32| Layer {
            still: true,
            held: None,
            rate: if c.idle_hold.is_some() { 0.0 } else { 1.0 },
            ..one(c.idle, idle_time(time), true)
        };
        let none = Layer {
            weight: 0.0,
            ..one(c.idle, 0.0, true)
        };
        match mode {
            Mode::Locomotion => {
                // Idle fades into the gait as speed rises toward walking
                // pace; walk and run blend by speed throughout (starting or
                // stopping a run too: no clip is swapped for another).
                let moving = self.moving;
                if moving <= 1e-3 {
                    return [idle(time), none, none];
                }
                let b = self.speed_blend;
                let walk = gait(c.walk, (1.0 - b) * moving, c.walk_phase_offset);
                let run = gait(c.run, b * moving, 0.0);
                let idle = Layer {
                    weight: 1.0 - moving,
                    ..idle(time)
                };
                // The main clip first: the one a crossfade out of this
                // state names for its contacts.
                if moving < 0.5 {
                    [idle, walk, run]
                } else if b < 0.5 {
                    [walk, run, idle]
                } else {
                    [run, walk, idle]
                }
            }
            Mode::Jump => [one(c.jump, time, false), none, none],
            Mode::Fall => [one(c.fall, time, true), none, none],
            Mode::Land => [one(c.land, time, false), none, none],
            Mode::Climb => [
                one(c.climb, self.climb_phase * c.climb.duration, true),
                none,
                none,
            ],
            // Only entered with the ledge clips (see `update`); the climb
            // clip stands in should they be missing.
            Mode::Hang => match c.ledge {
                Some(l) => [one(l.hang, time, true), none, none],
                None => [one(c.climb, 0.0, true), none, none],
            },
            Mode::ClimbUp => match c.ledge {
                Some(l) => [
                    one(l.climb_up, self.ledge_progress * l.climb_up.duration, false),
                    none,
                    none,
                ],
                None => [one(c.climb, 0.0, true), none, none],
            },
        }
    }
}

/// The fastest a character's gait plays, as a share of its authored speed,
/// the stride lengthening beyond it (see [`warp_gait`]); `None` where its
/// gait is not warped at all.
///
/// A character whose walk at walking pace or run at running pace would play
/// slower than [`MIN_PLAYBACK_RATE`], or faster than [`MAX_PLAYBACK_RATE`]
/// with a stride that may be lengthened (see [`longest_stride_scale`]),
/// plays at most [`DUTY_PLAYBACK_RATE`] (one gait that needs it is enough:
/// left unwarped because his walk cannot be helped, CesiumMan with no rig
/// file, whose run can, met the joint speed limit on 2.6 times as many
/// frames). One whose clips cannot be helped otherwise (a walk striding 2.5
/// leg lengths already, played as a run: lengthened further, planted feet
/// dragged out of reach on the slopes) plays them as distance drives them.
/// Every other gait plays within [`MIN_PLAYBACK_RATE`] and
/// [`MAX_PLAYBACK_RATE`]: the knight's walk plays at 1.18 at walking pace
/// and its run at 1.08 at running pace, but unwarped a slow approach played
/// his walk at 0.37 (a moonwalk) and a run-up, the walk/run blend lagging
/// the speed, at 2.0.
pub fn fastest_rate(clips: &ClipSet, params: &MoveParams) -> Option<f32> {
    // Each gait's rate at its pace against the range, as `speed * duration`
    // against `rate * cycle_distance` (no division: this runs every frame
    // of every character).
    let (mut needs, mut hopeless) = (false, false);
    for (clip, speed) in [
        (clips.walk, params.walk_speed),
        (clips.run, params.run_speed),
    ] {
        if clip.cycle_distance <= 0.0 || clip.duration <= 0.0 {
            continue;
        }
        let travel = speed * clip.duration;
        let fast = travel > MAX_PLAYBACK_RATE * clip.cycle_distance;
        // `longest_stride_scale` above 1.
        let lengthens =
            clips.leg_length > 0.0 && MAX_STRIDE_LEGS * clips.leg_length > clip.cycle_distance;
        needs |= travel < MIN_PLAYBACK_RATE * clip.cycle_distance || (fast && lengthens);
        hopeless |= fast;
    }
    if needs {
        Some(DUTY_PLAYBACK_RATE)
    } else if hopeless {
        None
    } else {
        Some(MAX_PLAYBACK_RATE)
    }
}

/// The fastest a gait plays on a floor of slope `slope` (rise over run),
/// for `fastest` on the flat ([`fastest_rate`]): a gait that needs warping
/// ([`DUTY_PLAYBACK_RATE`]) plays slower on steep ground, linearly from
/// [`STEEP_FROM`] to [`STEEP_PLAYBACK_RATE`] at 45°; any other as on the
/// flat.
fn steep_fastest_rate(fastest: f32, slope: f32) -> f32 {
    if fastest >= MAX_PLAYBACK_RATE || !slope.is_finite() {
        return fastest;
    }
    let steep = ((slope.abs() - STEEP_FROM) / (1.0 - STEEP_FROM)).clamp(0.0, 1.0);
    fastest + (STEEP_PLAYBACK_RATE - fastest) * steep
}

/// Cycles per second a clip plays as authored (0 for an empty clip).
fn cycle_rate(clip: ClipInfo) -> f32 {
    if clip.duration > 0.0 {
        1.0 / clip.duration
    } else {
        0.0
    }
}

/// The gait's phase step for a frame whose distance would advance it by
/// `natural` cycles while its clips, as authored, play `cycles` cycles in
/// that frame; the stride scale that makes up the difference; and the
/// legs' duty warp that lets the stride be that long. The step keeps the
/// rate (`step / cycles`) within `slowest` (at most [`MIN_PLAYBACK_RATE`])
/// and [`DUTY_PLAYBACK_RATE`]; the stride scale
/// (`natural / step`) covers the rest of the ground, up to `longest` as
/// the clips' stances reach and on up to `1 + MAX_DUTY_WARP` times that
/// with the legs' stances played faster ([`Layer::duty`]); beyond it the
/// clips play faster. Standing still (`natural` 0) the phase stays where
/// it is.
fn warp_gait(
    natural: f32,
    cycles: f32,
    slowest: f32,
    fastest: f32,
    longest: f32,
) -> (f32, f32, f32) {
    if natural <= 0.0 || cycles <= 0.0 || !natural.is_finite() || !cycles.is_finite() {
        return (natural, 1.0, 0.0);
    }
    let farthest = longest * (1.0 + DUTY_STRIDE * MAX_DUTY_WARP);
    let step = natural.clamp(slowest * cycles, fastest.max(slowest) * cycles);
    let scale = natural / step;
    let (step, scale) = if scale > farthest {
        (natural / farthest, farthest)
    } else {
        (step, scale)
    };
    let duty = if scale > longest {
        ((scale / longest - 1.0) / DUTY_STRIDE).min(MAX_DUTY_WARP)
    } else {
        0.0
    };
    (step, scale, duty)
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

fn smooth(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A foot's track along the direction of travel over a cycle: forward
    /// through a swing of `swing` of the cycle, back through the stance,
    /// furthest forward at `land`, reaching `stride` from back to front.
    fn track(land: f32, swing: f32, stride: f32) -> [f32; 64] {
        std::array::from_fn(|i| {
            let p = (i as f32 / 64.0 - land).rem_euclid(1.0);
            let stance = 1.0 - swing;
            let t = if p < stance {
                1.0 - p / stance
            } else {
                (p - stance) / swing
            };
            stride * (t - 0.5)
        })
    }

    #[test]
    fn the_walk_plays_as_far_ahead_as_its_feet_reach_out_after_the_runs() {
        // CesiumMan's: his walk reaches each foot out 0.38 of a cycle after
        // his run does, with a longer stance and a shorter stride.
        let walk = [track(0.38, 0.4, 0.6), track(0.88, 0.4, 0.6)];
        let run = [track(0.0, 0.6, 1.2), track(0.5, 0.6, 1.2)];
        let off = walk_phase_offset(&walk, &run);
        assert!((off - 0.38).abs() < 0.5 / 64.0, "{off}");
        // In step (the knight's walk and run): none.
        let walk = [track(0.01, 0.4, 0.7), track(0.51, 0.4, 0.7)];
        assert_eq!(walk_phase_offset(&walk, &run), 0.0);
        // Legs that disagree by a quarter of a cycle: none.
        let walk = [track(0.3, 0.4, 0.6), track(0.55, 0.4, 0.6)];
        assert_eq!(walk_phase_offset(&walk, &run), 0.0);
        // A track not finite, or no legs: none.
        let mut bad = [track(0.38, 0.4, 0.6), track(0.88, 0.4, 0.6)];
        bad[1][7] = f32::NAN;
        assert_eq!(walk_phase_offset(&bad, &run), 0.0);
        assert_eq!(walk_phase_offset::<64>(&[], &[]), 0.0);
    }

    proptest! {
        #[test]
        fn the_walks_offset_is_where_its_feet_reach_out_less_where_the_runs_do(
            walk_land in 0.0f32..1.0,
            run_land in 0.0f32..1.0,
            walk_swing in 0.3f32..0.5,
            run_swing in 0.5f32..0.7,
            stride in 0.3f32..2.0,
        ) {
            let walk = [
                track(walk_land, walk_swing, stride),
                track(walk_land + 0.5, walk_swing, stride),
            ];
            let run = [
                track(run_land, run_swing, 1.5 * stride),
                track(run_land + 0.5, run_swing, 1.5 * stride),
            ];
            let off = walk_phase_offset(&walk, &run);
            prop_assert!((0.0..1.0).contains(&off));
            let want = (walk_land - run_land).rem_euclid(1.0);
            let near = |a: f32, b: f32| ((a - b + 0.5).rem_euclid(1.0) - 0.5).abs();
            // Within a sample of the shift (a track's furthest point is
            // found between samples); none where that is within `IN_STEP`.
            if want.min(1.0 - want) > IN_STEP + 1.0 / 64.0 {
                prop_assert!(near(off, want) <= 1.0 / 64.0, "{off} for {want}");
            } else if want.min(1.0 - want) < IN_STEP - 1.0 / 64.0 {
                prop_assert_eq!(off, 0.0);
            }
        }
    }

    fn clips() -> ClipSet {
        let c = |index, duration, cycle_distance| ClipInfo {
            index,
            duration,
            cycle_distance,
        };
        ClipSet {
            idle: c(0, 2.0, 0.0),
            walk: c(1, 1.05, 1.42),
            run: c(2, 0.7, 2.4),
            jump: c(3, 0.5, 0.0),
            fall: c(4, 0.5, 0.0),
            land: c(5, 0.4, 0.0),
            climb: c(6, 1.2, 0.6),
            ledge: None,
            leg_length: 0.88,
            idle_hold: None,
            walk_phase_offset: 0.0,
        }
    }

    fn no_layers() -> [Layer; MAX_LAYERS] {
        [Layer {
            clip: clips().idle,
            time: 0.0,
            weight: 0.0,
            looping: true,
            still: true,
            rate: 1.0,
            stride: 1.0,
            duty: 0.0,
            held: None,
        }; MAX_LAYERS]
    }

    #[test]
    fn the_gait_fades_in_and_out_over_the_idle_no_faster_than_its_fade_times() {
        // Standing, then at walking pace in one step, then standing again:
        // the gait's weight rises by at most dt / IDLE_FADE_TIME a step
        // (it was all there in the first step), and falls by at most
        // dt / IDLE_FADE_OUT_TIME a step as the body stops in one (the idle
        // took the whole pose back in that step), to none.
        let mut s = AnimState::default();
        let mut p = Player::new(Vec2::ZERO);
        p.state = Locomotion::Ground;
        let params = MoveParams::default();
        let dt = 1.0 / 64.0;
        let mut out = no_layers();
        let gait = |out: &[Layer; MAX_LAYERS], n: usize| -> f32 {
            let total: f32 = out[..n].iter().map(|l| l.weight).sum();
            out[..n]
                .iter()
                .filter(|l| !l.still)
                .map(|l| l.weight)
                .sum::<f32>()
                / total
        };
        for _ in 0..64 {
            s.update(&clips(), &p, &params, Vec2::ZERO, dt, &mut out);
        }
        p.vel = Vec2::new(params.walk_speed, 0.0);
        let (mut last, mut steps) = (0.0f32, 0);
        while last < 1.0 && steps < 64 {
            let n = s.update(&clips(), &p, &params, p.vel * dt, dt, &mut out);
            let now = gait(&out, n);
            assert!(now - last <= dt / IDLE_FADE_TIME + 1e-5, "{last} -> {now}");
            (last, steps) = (now, steps + 1);
        }
        assert_eq!(last, 1.0, "the gait has the whole pose after {steps} steps");
        assert!(steps as f32 >= IDLE_FADE_TIME / dt - 1.0, "{steps} steps");
        p.vel = Vec2::ZERO;
        let (mut last, mut steps) = (1.0f32, 0);
        while last > 0.0 && steps < 64 {
            let n = s.update(&clips(), &p, &params, Vec2::ZERO, dt, &mut out);
            let now = gait(&out, n);
            assert!(
                last - now <= dt / IDLE_FADE_OUT_TIME + 1e-5,
                "{last} -> {now}"
            );
            (last, steps) = (now, steps + 1);
        }
        assert_eq!(last, 0.0, "the idle has the whole pose after {steps} steps");
        assert!(
            steps as f32 >= IDLE_FADE_OUT_TIME / dt - 1.0,
            "{steps} steps"
        );
    }

    #[test]
    fn gait_phase_follows_distance_not_time() {
        let mut s = AnimState::default();
        let mut p = Player::new(Vec2::ZERO);
        p.state = Locomotion::Ground;
        p.vel = Vec2::new(1.35, 0.0);
        let mut out = no_layers();
        // Walking exactly one stride advances the phase by one whole cycle
        // (at 1.42 m/s, a rate the walk plays at as it is: a gait far from
        // its authored speed warps its stride, see the tests below).
        for _ in 0..100 {
            s.update(
                &clips(),
                &p,
                &MoveParams::default(),
                Vec2::new(1.42 / 100.0, 0.0),
                1.0 / 100.0,
                &mut out,
            );
        }
        assert!(
            s.gait_phase() < 1e-3 || s.gait_phase() > 1.0 - 1e-3,
            "{}",
            s.gait_phase()
        );
        // Standing still does not advance it.
        let before = s.gait_phase();
        s.update(
            &clips(),
            &p,
            &MoveParams::default(),
            Vec2::ZERO,
            1.0,
            &mut out,
        );
        assert_eq!(s.gait_phase(), before);
    }

    #[test]
    fn a_ledge_plays_the_authored_hang_and_climb_up_or_the_climb_without_them() {
        use crate::sim::ledge::Ledge;
        use crate::sim::player::{LadderMove, LedgeHang};
        let c = |index, duration| ClipInfo {
            index,
            duration,
            cycle_distance: 0.0,
        };
        let with = ClipSet {
            ledge: Some(LedgeClips {
                hang: c(7, 2.4),
                climb_up: c(8, 1.4),
            }),
            ..clips()
        };
        let ledge = Ledge {
            corner: Vec2::new(2.0, 3.0),
            side: -1.0,
            platform: None,
        };
        let mut p = Player::new(ledge.hang_pos());
        p.state = Locomotion::Ledge;
        p.ledge = Some(LedgeHang {
            ledge,
            motion: None,
        });
        let climb = LadderMove {
            leaving: true,
            t: 0.7,
            duration: 1.4,
            windows: ((0.45, 1.0), (0.0, 0.65)),
            from: ledge.hang_pos(),
            to: Vec2::new(1.6, 3.0),
            v_from: Vec2::ZERO,
            v_to: Vec2::ZERO,
            side: 1.0,
        };
        let dt = 1.0 / 64.0;
        let main = |s: &mut AnimState, set: &ClipSet, p: &Player| {
            let mut out = no_layers();
            let mut last = out[0];
            // Long enough for any crossfade to end.
            for _ in 0..64 {
                let n = s.update(set, p, &MoveParams::default(), Vec2::ZERO, dt, &mut out);
                last = out[..n]
                    .iter()
                    .copied()
                    .max_by(|a, b| a.weight.total_cmp(&b.weight))
                    .unwrap();
            }
            last
        };
        // Hanging: the hang loop; climbing: the climb-up clip at the
        // climb's progress (half way: half its length).
        let mut s = AnimState::default();
        let hang = main(&mut s, &with, &p);
        assert_eq!(hang.clip.index, 7);
        assert!(hang.looping);
        p.ledge = Some(LedgeHang {
            ledge,
            motion: Some(climb),
        });
        let up = main(&mut s, &with, &p);
        assert_eq!(up.clip.index, 8);
        assert!(!up.looping);
        assert!((up.time - 0.7).abs() < 1e-5, "{}", up.time);
        // Without them, both are the climb clip (its phase moved by the
        // height climbed).
        let mut s = AnimState::default();
        assert_eq!(main(&mut s, &clips(), &p).clip.index, 6);
        p.ledge = Some(LedgeHang {
            ledge,
            motion: None,
        });
        assert_eq!(main(&mut s, &clips(), &p).clip.index, 6);
    }

    #[test]
    fn state_changes_crossfade_and_weights_stay_normalized() {
        let mut s = AnimState::default();
        let mut p = Player::new(Vec2::ZERO);
        p.state = Locomotion::Ground;
        let mut out = no_layers();
        s.update(
            &clips(),
            &p,
            &MoveParams::default(),
            Vec2::ZERO,
            1.0 / 64.0,
            &mut out,
        );
        p.state = Locomotion::Air;
        p.vel = Vec2::new(0.0, 3.0);
        let n = s.update(
            &clips(),
            &p,
            &MoveParams::default(),
            Vec2::ZERO,
            1.0 / 64.0,
            &mut out,
        );
        assert_eq!(n, 2, "fading idle out, jump in");
        let total: f32 = out[..n].iter().map(|l| l.weight).sum();
        assert!((total - 1.0).abs() < 1e-5);
        for _ in 0..20 {
            s.update(
                &clips(),
                &p,
                &MoveParams::default(),
                Vec2::ZERO,
                1.0 / 64.0,
                &mut out,
            );
        }
        let n = s.update(
            &clips(),
            &p,
            &MoveParams::default(),
            Vec2::ZERO,
            1.0 / 64.0,
            &mut out,
        );
        assert_eq!(n, 1);
        assert_eq!(out[0].clip.index, clips().jump.index);
    }

    #[test]
    fn every_crossfade_holds_the_pose_it_starts_from() {
        let mut s = AnimState::default();
        let mut p = Player::new(Vec2::ZERO);
        p.state = Locomotion::Ground;
        let mut out = no_layers();
        let step = |s: &mut AnimState, p: &Player, out: &mut [Layer; MAX_LAYERS]| {
            let n = s.update(
                &clips(),
                p,
                &MoveParams::default(),
                Vec2::ZERO,
                1.0 / 64.0,
                out,
            );
            out[..n].to_vec()
        };
        let layers = step(&mut s, &p, &mut out);
        assert!(layers.iter().all(|l| l.held.is_none()), "no crossfade yet");
        // Take-off: the outgoing state is held, numbered.
        p.state = Locomotion::Air;
        p.vel = Vec2::new(0.0, 3.0);
        let layers = step(&mut s, &p, &mut out);
        let first = layers[0].held.expect("the ground's pose held");
        assert_eq!(layers.iter().filter(|l| l.held.is_some()).count(), 1);
        // Falling two frames later, the jump's crossfade not done: a new
        // crossfade, holding the pose shown then (not the ground's).
        step(&mut s, &p, &mut out);
        p.vel = Vec2::new(0.0, -1.0);
        let layers = step(&mut s, &p, &mut out);
        let second = layers[0].held.expect("the pose of mid-crossfade held");
        assert_ne!(first, second);
        assert_eq!(layers[1].clip.index, clips().fall.index);
    }

    #[test]
    fn a_long_landing_clip_holds_no_longer_than_land_hold_max() {
        // A model whose landing is its 1.1 s idle lands standing and sets
        // off running at once: the gait comes in after LAND_HOLD_MAX (it
        // held 60 % of the clip, 0.66 s, the feet standing in the pose
        // while the body ran 1.6 m); a short land clip (0.4 s) still plays
        // its 60 %.
        for (duration, held) in [(1.1, LAND_HOLD_MAX), (0.4, 0.24)] {
            let mut c = clips();
            c.land = ClipInfo { duration, ..c.land };
            let mut s = AnimState::default();
            let mut p = Player::new(Vec2::ZERO);
            p.state = Locomotion::Ground;
            p.just_landed = true;
            let dt = 1.0 / 64.0;
            let mut out = no_layers();
            let mut landing = 0.0;
            for _ in 0..80 {
                let n = s.update(&c, &p, &MoveParams::default(), p.vel * dt, dt, &mut out);
                p.just_landed = false;
                p.vel = Vec2::new(3.4, 0.0);
                let land = out[..n]
                    .iter()
                    .any(|l| l.held.is_none() && l.clip.index == c.land.index && l.weight > 0.0);
                if !land {
                    break;
                }
                landing += dt;
            }
            assert!(
                (landing - held).abs() <= 2.0 * dt,
                "a {duration} s land held {landing} s"
            );
        }
    }

    #[test]
    fn a_crossfade_in_the_first_frame_holds_its_stand_as_the_body_sets_off() {
        // Landing at the spawn, the first frame starts a crossfade with no
        // frame shown before it: its held layer stands in for the stand and
        // stays the stand (both feet down) while the body speeds up into a
        // walk. It turned into the walk's layer after two frames, and the
        // feet's contacts dropped from 0.89 to 0.
        let mut s = AnimState::default();
        let mut p = Player::new(Vec2::ZERO);
        p.state = Locomotion::Ground;
        p.just_landed = true;
        let mut out = no_layers();
        let mut held = Vec::new();
        for k in 0..6 {
            p.vel = Vec2::new(0.25 * k as f32, 0.0);
            let n = s.update(
                &clips(),
                &p,
                &MoveParams::default(),
                p.vel / 64.0,
                1.0 / 64.0,
                &mut out,
            );
            p.just_landed = false;
            if let Some(l) = out[..n].iter().find(|l| l.held.is_some()) {
                held.push((l.clip.index, l.still));
            }
        }
        assert!(held.len() >= 4, "{held:?}");
        assert!(
            held.iter().all(|&h| h == (clips().idle.index, true)),
            "{held:?}"
        );
    }

    #[test]
    fn a_walk_on_steep_ground_strides_no_further_than_the_legs_span() {
        // On the flat no gait's stride is cut; up or down 45° a pair of
        // legs spans 1.45 leg lengths per cycle (two steps of 0.72).
        assert!(steep_stride_legs(0.0) > MAX_STRIDE_LEGS);
        for slope in [1.0, -1.0] {
            let legs = steep_stride_legs(slope);
            assert!((legs - 1.448).abs() < 0.01, "{legs}");
            // The step found: the lower foot at the reach, the upper one
            // at the fold under the hip over the step's middle.
            let step = legs / 2.0;
            let lower = (0.25 * step * step + (step + STEEP_FOLD_LEGS).powi(2)).sqrt();
            assert!((lower - STEEP_REACH_LEGS).abs() < 1e-4, "{lower}");
        }
        // Below STEEP_SPAN_FROM no stride is cut.
        assert!(steep_stride_legs(STEEP_SPAN_FROM) > MAX_STRIDE_LEGS);
        assert!((steep_stride_legs(0.333) - MAX_STRIDE_LEGS).abs() < 0.01);
        // Steeper, shorter.
        assert!(steep_stride_legs(0.5) > steep_stride_legs(1.0));
        assert!(steep_stride_legs(f32::NAN) > MAX_STRIDE_LEGS);
        // RiggedFigure-like legs (0.54 m) and a walk of 0.7 m per cycle:
        // lengthened up to 2.16 times on the flat, 1.12 up 45°; a walk of
        // 0.9 m per cycle, longer than the legs span there, is not
        // lengthened but never shortened (1).
        let flat = longest_stride_scale(0.54, 0.7);
        assert!((flat - 2.16).abs() < 1e-3, "{flat}");
        assert_eq!(steep_longest_stride_scale(0.54, 0.7, 0.0), flat);
        let steep = steep_longest_stride_scale(0.54, 0.7, 1.0);
        assert!((steep - 1.117).abs() < 0.01, "{steep}");
        assert_eq!(steep_longest_stride_scale(0.54, 0.9, 1.0), 1.0);
        // Unknown legs or stride: as on the flat.
        assert_eq!(steep_longest_stride_scale(0.0, 0.8, 1.0), 1.0);
    }

    #[test]
    fn warp_gait_keeps_the_rate_in_range_and_the_feet_on_the_ground() {
        const LONGEST: f32 = 1.5;
        let farthest = LONGEST * (1.0 + DUTY_STRIDE * MAX_DUTY_WARP);
        assert_eq!(
            warp_gait(0.0, 0.02, MIN_PLAYBACK_RATE, DUTY_PLAYBACK_RATE, LONGEST),
            (0.0, 1.0, 0.0)
        );
        for slowest in [0.0, 0.35, MIN_PLAYBACK_RATE] {
            for i in 1..=200 {
                for j in 1..=20 {
                    let natural = i as f32 * 1e-3;
                    let cycles = j as f32 * 2.5e-3;
                    let (step, scale, duty) =
                        warp_gait(natural, cycles, slowest, DUTY_PLAYBACK_RATE, LONGEST);
                    let what = format!(
                        "{natural} over {cycles} (slowest {slowest}): {step} x {scale}, {duty}"
                    );
                    // The stride covers what the phase does not: the feet
                    // keep pace with the ground.
                    assert!((step * scale - natural).abs() <= 1e-5 * natural, "{what}");
                    assert!(scale <= farthest + 1e-5, "{what}");
                    // The legs' warp makes up what a stance does not reach,
                    // and only that.
                    let needed = ((scale / LONGEST - 1.0) / DUTY_STRIDE).max(0.0);
                    assert!((duty - needed).abs() <= 1e-5, "{what}");
                    assert!((0.0..=MAX_DUTY_WARP + 1e-6).contains(&duty), "{what}");
                    let (rate, wanted) = (step / cycles, natural / cycles);
                    if (slowest..=DUTY_PLAYBACK_RATE).contains(&wanted) {
                        assert!((step - natural).abs() <= 1e-6, "{what}");
                        assert!((scale - 1.0).abs() <= 1e-6 && duty == 0.0, "{what}");
                    } else if scale < farthest - 1e-5 {
                        assert!(
                            rate >= slowest - 1e-4 && rate <= DUTY_PLAYBACK_RATE + 1e-4,
                            "{what}"
                        );
                    } else {
                        assert!(rate >= DUTY_PLAYBACK_RATE - 1e-4, "{what}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_gait_that_fits_its_paces_still_plays_within_the_rate_range() {
        // The test clips fit the game's paces (the walk plays at 1.0 at
        // walking pace, the run at 0.99 at running pace), as the knight's
        // do; a slow approach and a run-up (the walk/run blend lagging the
        // speed) still play them within MIN_PLAYBACK_RATE and
        // MAX_PLAYBACK_RATE, the stride shortened or lengthened instead
        // (unwarped, the knight's walk played at 0.37 and 2.0 there).
        let c = clips();
        let params = MoveParams::default();
        assert_eq!(fastest_rate(&c, &params), Some(MAX_PLAYBACK_RATE));
        let dt = 1.0 / 64.0;
        let mut out = no_layers();
        // Half walking pace throughout; walking pace, then running pace.
        let slow = |_: usize| 0.7f32;
        let run_up = |k: usize| {
            if k < 64 {
                params.walk_speed
            } else {
                params.run_speed
            }
        };
        for (case, speed_at) in [
            ("slow", &slow as &dyn Fn(usize) -> f32),
            ("run-up", &run_up),
        ] {
            let mut s = AnimState::default();
            let mut p = Player::new(Vec2::ZERO);
            p.state = Locomotion::Ground;
            let (mut lo, mut hi, mut shortest, mut longest) = (f32::MAX, 0.0f32, f32::MAX, 0.0f32);
            for k in 0..128 {
                let speed = speed_at(k);
                p.vel = Vec2::new(speed, 0.0);
                s.update(&c, &p, &params, Vec2::new(speed * dt, 0.0), dt, &mut out);
                if s.moving >= 1.0 {
                    lo = lo.min(s.gait_rate);
                    hi = hi.max(s.gait_rate);
                    shortest = shortest.min(s.stride_scale);
                    longest = longest.max(s.stride_scale);
                }
            }
            assert!(
                lo >= MIN_PLAYBACK_RATE - 1e-4 && hi <= MAX_PLAYBACK_RATE + 1e-4,
                "{case}: {lo}–{hi}"
            );
            if case == "slow" {
                // The walk as distance drives it at 0.7 m/s plays at 0.52:
                // at its slowest instead, its stride shortened to cover
                // the rest.
                let natural = 0.7 * c.walk.duration / c.walk.cycle_distance;
                assert!((hi - MIN_PLAYBACK_RATE).abs() < 1e-3, "{hi}");
                assert!(
                    (shortest - natural / MIN_PLAYBACK_RATE).abs() < 1e-3,
                    "{shortest}"
                );
            } else {
                // The blend still mostly walk at running pace: at its
                // fastest, the short stride lengthened.
                assert!((hi - MAX_PLAYBACK_RATE).abs() < 1e-3, "{hi}");
                assert!(longest > 1.3, "{longest}");
            }
        }
        // A walk so short a cycle that it plays 3 times over at walking
        // pace, with no leg length to lengthen it by, is left as authored.
        let mut hopeless = c;
        hopeless.walk.cycle_distance = 0.45;
        hopeless.leg_length = 0.0;
        assert_eq!(fastest_rate(&hopeless, &params), None);
    }

    #[test]
    fn stopping_keeps_the_stride_where_the_last_step_left_it() {
        // Braking from walking pace to a stop, the last slow steps draw
        // the stride in (the rate's floor falls with the gait's share, the
        // stride covers the rest); standing still, the phase stops and so
        // does the stride's scale. Scaled back to the clip's own stride the
        // frame the body came to rest, the feet jumped back out to it:
        // RiggedFigure's rear foot 8 cm in one frame.
        let c = cesium_like_clips();
        let params = MoveParams::default();
        assert!(fastest_rate(&c, &params).is_some());
        let dt = 1.0 / 64.0;
        let mut out = no_layers();
        let mut s = AnimState::default();
        let mut p = Player::new(Vec2::ZERO);
        p.state = Locomotion::Ground;
        let mut scales = Vec::new();
        for k in 0..96 {
            // Walking pace for a second, then braking to rest over a
            // quarter of a second, then standing.
            let speed = params.walk_speed * (1.0 - (k as f32 - 64.0) / 16.0).clamp(0.0, 1.0);
            p.vel = Vec2::new(speed, 0.0);
            s.update(&c, &p, &params, Vec2::new(speed * dt, 0.0), dt, &mut out);
            scales.push((speed, s.stride_scale, s.gait_phase, s.moving));
        }
        let drawn_in = scales[79].1;
        assert!(drawn_in < 0.9, "the last steps' stride: {drawn_in}");
        // Drawn in no faster than STRIDE_SCALE_FALL as the gait fades.
        let mut fading = 0;
        for w in scales.windows(2).filter(|w| w[1].3 < FULL_GAIT_SHARE) {
            assert!(w[1].1 >= w[0].1 - STRIDE_SCALE_FALL * dt - 1e-6, "{w:?}");
            fading += 1;
        }
        assert!(fading >= 8, "{fading} frames fading");
        for w in scales.windows(2).skip(79) {
            let ((_, a, phase_a, _), (speed, b, phase_b, _)) = (w[0], w[1]);
            assert_eq!(speed, 0.0);
            assert_eq!(a, b, "the stride's scale standing still");
            assert_eq!(phase_a, phase_b, "the phase standing still");
        }
    }

    /// CesiumMan's clips: a long slow walk (1.68 m in 2 s, authored at
    /// 0.84 m/s) and a short run (the knight's on his legs), on short legs:
    /// clips that need warping at their paces.
    fn cesium_like_clips() -> ClipSet {
        let c = clips();
        ClipSet {
            walk: ClipInfo {
                duration: 2.0,
                cycle_distance: 1.68,
                ..c.walk
            },
            run: ClipInfo {
                duration: 0.7,
                cycle_distance: 1.3,
                ..c.run
            },
            leg_length: 0.6,
            ..c
        }
    }

    #[test]
    fn a_slow_walk_blended_into_a_run_up_plays_no_faster_than_max_playback_rate() {
        // CesiumMan's clips: a long slow walk (1.68 m in 2 s, authored at
        // 0.84 m/s) and a short run, on short legs. Setting off at walking
        // pace and then running, the walk/run blend lags the speed; the
        // walk-heavy gait at running pace played 1.8 times over until the
        // blend caught up as far as the rate needs.
        let c = cesium_like_clips();
        let params = MoveParams::default();
        assert_eq!(fastest_rate(&c, &params), Some(DUTY_PLAYBACK_RATE));
        let dt = 1.0 / 64.0;
        let mut out = no_layers();
        let mut s = AnimState::default();
        let mut p = Player::new(Vec2::ZERO);
        p.state = Locomotion::Ground;
        let mut fastest = 0.0f32;
        for k in 0..160 {
            let speed = if k < 64 {
                params.walk_speed
            } else {
                params.run_speed
            };
            p.vel = Vec2::new(speed, 0.0);
            s.update(&c, &p, &params, Vec2::new(speed * dt, 0.0), dt, &mut out);
            if s.moving >= 1.0 {
                fastest = fastest.max(s.gait_rate);
            }
        }
        assert!(fastest <= MAX_PLAYBACK_RATE + 1e-3, "{fastest}");
    }

    #[test]
    fn a_gait_that_is_nearly_all_the_pose_plays_no_slower_than_the_floor() {
        // Walking, then braking to a stop over a second: while the idle
        // fades in, every frame whose gait is FULL_GAIT_SHARE of the pose
        // or more plays at MIN_PLAYBACK_RATE or faster, and the last steps
        // still slow below it as the share falls (a stop slows with the
        // body). With the floor falling with the share itself, a gait
        // 99.1 % of the pose played at 0.694.
        let c = clips();
        let params = MoveParams::default();
        let dt = 1.0 / 64.0;
        let mut out = no_layers();
        let mut s = AnimState::default();
        let mut p = Player::new(Vec2::ZERO);
        p.state = Locomotion::Ground;
        let (mut full_lo, mut part_lo, mut seen) = (f32::MAX, f32::MAX, 0);
        for k in 0..192 {
            let speed = if k < 64 {
                0.6 * params.walk_speed
            } else {
                (0.6 * params.walk_speed * (1.0 - (k - 64) as f32 / 64.0)).max(0.0)
            };
            p.vel = Vec2::new(speed, 0.0);
            s.update(&c, &p, &params, Vec2::new(speed * dt, 0.0), dt, &mut out);
            if s.gait_rate > 0.0 && s.moving >= FULL_GAIT_SHARE {
                full_lo = full_lo.min(s.gait_rate);
                if s.moving < 1.0 {
                    seen += 1;
                }
            } else if s.gait_rate > 0.0 {
                part_lo = part_lo.min(s.gait_rate);
            }
        }
        assert!(seen > 0, "no frame with the gait between the share and all");
        assert!(full_lo >= MIN_PLAYBACK_RATE - 1e-6, "{full_lo}");
        assert!(part_lo < MIN_PLAYBACK_RATE, "{part_lo}");
    }

    #[test]
    fn a_gait_that_needs_warping_plays_slower_on_steep_ground() {
        // CesiumMan-like clips (they need warping: DUTY_PLAYBACK_RATE on
        // the flat) running at running pace on the flat, on a 45° slope
        // and half way: the rate holds at DUTY_PLAYBACK_RATE,
        // STEEP_PLAYBACK_RATE, and between. Clips that fit their paces
        // (the test clips, the knight's) keep MAX_PLAYBACK_RATE anywhere.
        let c = cesium_like_clips();
        let params = MoveParams::default();
        let dt = 1.0 / 64.0;
        let rate_on = |c: &ClipSet, slope: f32| {
            let mut out = no_layers();
            let mut s = AnimState::default();
            let mut p = Player::new(Vec2::ZERO);
            p.state = Locomotion::Ground;
            p.floor_slope = slope;
            p.vel = Vec2::new(params.run_speed, 0.0);
            // Steady running (the run-up's blend caught up).
            for _ in 0..256 {
                s.update(
                    c,
                    &p,
                    &params,
                    Vec2::new(params.run_speed * dt, 0.0),
                    dt,
                    &mut out,
                );
            }
            s.gait_rate
        };
        let half = 0.5 * (STEEP_FROM + 1.0);
        for (slope, want) in [
            (0.0, DUTY_PLAYBACK_RATE),
            (-1.0, STEEP_PLAYBACK_RATE),
            (half, 0.5 * (DUTY_PLAYBACK_RATE + STEEP_PLAYBACK_RATE)),
        ] {
            let got = rate_on(&c, slope);
            assert!(
                (got - want).abs() < 1e-3,
                "slope {slope}: {got} against {want}"
            );
        }
        let fits = clips();
        assert!((rate_on(&fits, 1.0) - rate_on(&fits, 0.0)).abs() < 1e-6);
    }

    #[test]
    fn the_legs_warp_changes_no_faster_than_duty_rate() {
        // A short walk used as a run at running pace: the warp rises to
        // what the stride needs by at most DUTY_RATE a second, falls back
        // as the body slows to a walk no faster either (a warp changing at
        // once moved a swinging foot back through its swing), and is gone
        // with the gait when the body stops.
        let mut c = clips();
        c.walk = ClipInfo {
            cycle_distance: 0.7,
            ..c.walk
        };
        c.run = c.walk;
        let params = MoveParams::default();
        assert_eq!(fastest_rate(&c, &params), Some(DUTY_PLAYBACK_RATE));
        let mut s = AnimState::default();
        let mut p = Player::new(Vec2::ZERO);
        p.state = Locomotion::Ground;
        let dt = 1.0 / 64.0;
        let mut out = no_layers();
        let (mut last, mut highest, mut lowest) = (0.0f32, 0.0f32, f32::MAX);
        for k in 0..400 {
            let speed = match k {
                0..150 => params.run_speed,
                150..300 => params.walk_speed,
                _ => 0.0,
            };
            p.vel = Vec2::new(speed, 0.0);
            let n = s.update(&c, &p, &params, Vec2::new(speed * dt, 0.0), dt, &mut out);
            // The warp the gait layers play with (none shown once the body
            // has stopped: the idle takes the pose back at once).
            let gait = out[..n].iter().filter(|l| !l.still && l.held.is_none());
            if let Some(duty) = gait.map(|l| l.duty).reduce(f32::max) {
                assert!(
                    (duty - last).abs() <= DUTY_RATE * dt + 1e-6,
                    "{k}: {last} -> {duty}"
                );
                highest = highest.max(duty);
                if k >= 150 {
                    lowest = lowest.min(duty);
                }
                last = duty;
            }
        }
        assert!(highest > 0.1, "the warp never rose: {highest}");
        assert!(lowest < highest - 0.05, "the warp never fell: {lowest}");
    }

    #[test]
    fn a_gait_far_from_its_authored_speed_plays_in_range_with_its_stride_warped() {
        // A walk (1.35 m/s as authored) used as a run at 2.5 m/s, and a run
        // (3.43 m/s) used as a walk at 1.35 m/s: each plays at the edge of
        // its rate range (a stride that may be lengthened, at
        // `DUTY_PLAYBACK_RATE`), and its stride makes up the rest of the
        // ground.
        let dt = 1.0 / 64.0;
        for (clip, speed, rate) in [
            (clips().walk, 2.5, DUTY_PLAYBACK_RATE),
            (clips().run, 1.35, MIN_PLAYBACK_RATE),
        ] {
            let set = ClipSet {
                walk: clip,
                run: clip,
                ..clips()
            };
            let mut s = AnimState::default();
            let mut p = Player::new(Vec2::ZERO);
            p.state = Locomotion::Ground;
            p.vel = Vec2::new(speed, 0.0);
            let mut out = no_layers();
            let mut n = 0;
            for _ in 0..200 {
                let moved = Vec2::new(speed * dt, 0.0);
                n = s.update(&set, &p, &MoveParams::default(), moved, dt, &mut out);
            }
            let natural = speed * clip.duration / clip.cycle_distance;
            let gait: Vec<&Layer> = out[..n].iter().filter(|l| !l.still).collect();
            assert!(!gait.is_empty(), "{speed}: {out:?}");
            for l in gait {
                assert!((l.rate - rate).abs() < 1e-4, "{speed} m/s: rate {}", l.rate);
                assert!(
                    (l.rate * l.stride - natural).abs() < 1e-3,
                    "{speed} m/s: rate {} x stride {} for {natural}",
                    l.rate,
                    l.stride
                );
            }
        }
    }
}
