//! The moments of a frame that a player hears or sees as contact: a foot
//! planted, a jump, a landing, a hand gripping a rung, and the game's own
//! milestones (a checkpoint, a level completed).
//!
//! [`EventTracker`] derives them after each fixed step from what the
//! simulation and the pose pipeline already computed, and keeps nothing of
//! its own but the previous frame's edges and a few timers:
//!
//! - **Foot plants** on the ground start, while walking or running, where
//!   the gait clips' contact weight of a foot crosses [`PLANT_CONTACT`] with
//!   its animated ankle down ([`PLANT_LIFT`]): the conditions on which the
//!   pose pipeline locks a foot, so a footstep sounds when the foot stops on
//!   the floor, at the pace of the distance-driven gait. (The lock itself
//!   can wait a few frames more for the foot to turn from a slope to flat,
//!   which the sound must not.) While standing (the standing layer weighs
//!   more than the gait), a foot the pipeline steps back under the body
//!   plants where its lock starts
//!   ([`crate::character::pose_pipeline::LimbDebug::locked`]); without IK
//!   (a debug toggle) nothing locks and standing feet make no sound.
//! - **Rung plants and grips** on a ladder start where a foot's or hand's
//!   contact weight in the climb cycle crosses [`GRIP_CONTACT`] (the same
//!   curves ladder IK holds rungs with), at a rung: a hand reaching on past
//!   the ladder's top rung holds nothing and makes no sound.
//! - **Jumps and landings** come from the controller's state: leaving the
//!   ground or a ladder upwards, and its one-step `just_landed` flag, with
//!   the fall speed of the step before touching down.
//!
//! The surface under a plant or a landing is looked up in the level: ground,
//! a slope, a one-way plank, a moving platform, or a ladder rung.
//!
//! A frame's events live in a fixed-capacity [`FrameEvents`]: deriving them
//! allocates nothing, and the same steps give the same events on every
//! machine. The audio ([`crate::audio`]), the headless sound log and the
//! world's dust puffs all read them; nothing here plays a sound.

use glam::{Vec2, Vec3};

use crate::character::Character;
use crate::character::anim_state::{Layer, MAX_LAYERS};
use crate::character::pose_pipeline::{PosePipeline, layer_contact};
use crate::sim::player::{DT, Locomotion, Player, foot_probe_range};
use crate::sim::world::{FloorKind, Level};
use crate::sim::{Body, Layers, Sim};

/// The most events one frame holds. Each source fires at most once a frame:
/// two feet (on the ground or on rungs, never both), two hands, a jump, a
/// landing, a checkpoint and a level completed make eight.
pub const MAX_EVENTS: usize = 8;

/// A clip contact weight at or above which a walking foot counts as
/// planted: the weight at which the pose pipeline locks a foot...
pub const PLANT_CONTACT: f32 = 0.9;

/// ...and when its ankle is at most this high above where it stands at
/// rest, metres: the lift at which the pose pipeline locks a foot (a foot
/// still coming down, or one the walk/run blend reads as still, is not
/// planted yet).
pub const PLANT_LIFT: f32 = 0.02;

/// A walking foot has left the ground (and may plant again) once its gait
/// contact falls below this, or its animated ankle rises above
/// [`SWING_LIFT`]. While the walk and run blend into each other their
/// contact curves mix, and a foot at the end of its stance can read as
/// planted again; only a foot that swung plants.
pub const SWING_CONTACT: f32 = 0.5;
/// See [`SWING_CONTACT`], metres: twice [`PLANT_LIFT`].
pub const SWING_LIFT: f32 = 0.04;

/// A contact weight at or above which a hand or foot holds a rung: half way,
/// where the climb cycle's grip windows are cut
/// ([`crate::character::Grip`]).
pub const GRIP_CONTACT: f32 = 0.5;

/// Seconds after a landing during which feet settling onto the floor make no
/// footstep: the landing's own sound is the contact (the pose pipeline fades
/// foot IK in over 0.1 s after touching down, and then locks both feet).
pub const LAND_QUIET: f32 = 0.25;

/// The least time between two contacts of the same foot or hand, seconds.
/// The fastest cycle (the run's, 0.7 s) plants each foot once in it; a
/// contact weight that dips and rises again within this (a crossfade into
/// the climb, a lock let go and taken again at once) is the same contact.
pub const MIN_CONTACT_INTERVAL: f32 = 0.15;

/// Floors steeper than this sound as a slope, radians (about 3°): every
/// level's flat floors are exactly level, so this only keeps float noise of
/// a flat segment from counting.
pub const SLOPE_MIN_ANGLE: f32 = 0.05;

/// How far above and below a contact point the floor under it is looked
/// for, metres: a planted sole lies within millimetres of its floor; a
/// centimetre above and ten below covers a foot at a step's edge.
const SURFACE_ABOVE: f32 = 0.01;
const SURFACE_BELOW: f32 = 0.1;

/// Left or right (a foot or a hand).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The rig's first leg or arm.
    Left,
    /// The rig's second leg or arm.
    Right,
}

impl Side {
    /// Both sides, in the rig's order.
    pub const BOTH: [Side; 2] = [Side::Left, Side::Right];

    /// The side's index into the rig's legs and arms.
    pub fn index(self) -> usize {
        match self {
            Side::Left => 0,
            Side::Right => 1,
        }
    }

    /// The side's name, as the sound log writes it.
    pub fn name(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
        }
    }
}

/// What a foot (or a landing) met.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Surface {
    /// The flat top of a solid: ground, a ledge, a floating block.
    Ground,
    /// A ground floor steeper than [`SLOPE_MIN_ANGLE`].
    Slope,
    /// A one-way wooden plank.
    Plank,
    /// A ladder's rung.
    Rung,
    /// A moving platform's top.
    Platform,
}

impl Surface {
    /// Every surface, in a fixed order (the sound bank's).
    pub const ALL: [Surface; 5] = [
        Surface::Ground,
        Surface::Slope,
        Surface::Plank,
        Surface::Rung,
        Surface::Platform,
    ];

    /// The surface's name, as the sound log writes it.
    pub fn name(self) -> &'static str {
        match self {
            Surface::Ground => "ground",
            Surface::Slope => "slope",
            Surface::Plank => "plank",
            Surface::Rung => "rung",
            Surface::Platform => "platform",
        }
    }

    /// The surface of a floor of this kind and slope angle (radians).
    pub fn of_floor(kind: FloorKind, angle: f32) -> Self {
        match kind {
            FloorKind::OneWay => Surface::Plank,
            FloorKind::Platform(_) => Surface::Platform,
            FloorKind::Ground if angle.abs() > SLOPE_MIN_ANGLE => Surface::Slope,
            FloorKind::Ground => Surface::Ground,
        }
    }
}

/// One moment of contact, in world space (metres, m/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CharacterEvent {
    /// A foot came to rest on a floor or a rung.
    FootPlant {
        /// Which foot.
        foot: Side,
        /// Where it stands: the floor point under the sole, or the rung.
        position: Vec3,
        /// What it stands on.
        surface: Surface,
        /// The body's speed when the foot came down, m/s (walking about
        /// 1.4, running about 4; on a ladder the climbing speed).
        speed: f32,
    },
    /// The character left the ground or a ladder upwards.
    Jump {
        /// The feet position at take-off.
        position: Vec3,
    },
    /// The character touched down after being in the air.
    Land {
        /// The feet position on touching down.
        position: Vec3,
        /// What it landed on.
        surface: Surface,
        /// The downward speed just before touching down, m/s (≥ 0).
        impact_speed: f32,
    },
    /// A hand closed on a rung.
    LadderGrip {
        /// Which hand.
        hand: Side,
        /// Where the hand is (on the rung).
        position: Vec3,
    },
    /// The hands caught a ledge (its corner).
    LedgeGrab {
        /// The corner caught.
        position: Vec3,
    },
    /// A checkpoint was reached (raised by the game flow).
    Checkpoint {
        /// The checkpoint's position.
        position: Vec3,
    },
    /// The level's exit was reached (raised by the game flow).
    LevelComplete {
        /// The exit's position.
        position: Vec3,
    },
}

impl CharacterEvent {
    /// The event's kind, as the sound log writes it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            CharacterEvent::FootPlant { .. } => "footstep",
            CharacterEvent::Jump { .. } => "jump",
            CharacterEvent::Land { .. } => "land",
            CharacterEvent::LadderGrip { .. } => "grip",
            CharacterEvent::LedgeGrab { .. } => "ledge_grab",
            CharacterEvent::Checkpoint { .. } => "checkpoint",
            CharacterEvent::LevelComplete { .. } => "level_complete",
        }
    }

    /// Where the event happened.
    pub fn position(&self) -> Vec3 {
        match *self {
            CharacterEvent::FootPlant { position, .. }
            | CharacterEvent::Jump { position }
            | CharacterEvent::Land { position, .. }
            | CharacterEvent::LadderGrip { position, .. }
            | CharacterEvent::LedgeGrab { position }
            | CharacterEvent::Checkpoint { position }
            | CharacterEvent::LevelComplete { position } => position,
        }
    }
}

/// The events of one frame: at most [`MAX_EVENTS`], in a fixed array.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameEvents {
    slots: [Option<CharacterEvent>; MAX_EVENTS],
    len: usize,
    dropped: u32,
}

impl FrameEvents {
    /// Adds an event; returns false (and counts it in
    /// [`FrameEvents::dropped`]) when the frame is full.
    pub fn push(&mut self, event: CharacterEvent) -> bool {
        if self.len == MAX_EVENTS {
            self.dropped += 1;
            return false;
        }
        self.slots[self.len] = Some(event);
        self.len += 1;
        true
    }

    /// The events, in the order they were derived.
    pub fn iter(&self) -> impl Iterator<Item = &CharacterEvent> {
        self.slots[..self.len].iter().flatten()
    }

    /// How many events the frame holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the frame has no events.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Events that did not fit this frame (none while every source fires at
    /// most once a frame; see [`MAX_EVENTS`]).
    pub fn dropped(&self) -> u32 {
        self.dropped
    }

    /// Empties the frame.
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

/// What one frame of [`EventTracker::observe`] reads: the simulation's and
/// the pose pipeline's results after a step.
#[derive(Clone, Copy, Debug)]
pub struct EventInput<'a> {
    /// The level (floors under contacts).
    pub level: &'a Level,
    /// The controller's state after the step.
    pub player: &'a Player,
    /// The character (its legs' and arms' contact curves).
    pub character: &'a Character,
    /// The clips the state machine chose this step.
    pub layers: &'a [Layer],
    /// The pose pipeline after this step's pose (its foot locks and pose):
    /// a full one ([`PosePipeline::new`]), since a lean one's model
    /// matrices hold the palette once the frame is done.
    pub pipeline: &'a PosePipeline,
    /// Whether the pose ran with IK (foot locks exist only then).
    pub ik_enabled: bool,
}

/// Derives each frame's [`CharacterEvent`]s from the one before.
#[derive(Clone, Debug, Default)]
pub struct EventTracker {
    prev: Option<Player>,
    planted: [bool; 2],
    /// Whether each foot has swung (left the ground) since it last planted.
    swung: [bool; 2],
    rung_feet: [bool; 2],
    hands: [bool; 2],
    /// Seconds since each foot's and each hand's last contact event.
    since_foot: [f32; 2],
    since_hand: [f32; 2],
    since_land: f32,
    events: FrameEvents,
}

impl EventTracker {
    /// A tracker that has seen no frame yet.
    pub fn new() -> Self {
        Self {
            since_foot: [f32::INFINITY; 2],
            since_hand: [f32::INFINITY; 2],
            since_land: f32::INFINITY,
            ..Self::default()
        }
    }

    /// Forgets the previous frame (after a respawn or a level change): the
    /// next frame raises no jump or landing against the old state, and feet
    /// already down make no footstep.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// This frame's events (those [`EventTracker::observe`] derived and
    /// those [`EventTracker::raise`]d since).
    pub fn events(&self) -> &FrameEvents {
        &self.events
    }

    /// Adds an event the game raises itself (a checkpoint, a level
    /// completed) to this frame's events; false when the frame is full.
    pub fn raise(&mut self, event: CharacterEvent) -> bool {
        self.events.push(event)
    }

    /// Derives the player's events after a [`Sim::step`] and
    /// [`Sim::pose`]: the usual call, for one fixed step per frame.
    pub fn observe_sim(&mut self, sim: &Sim) -> &FrameEvents {
        let player = sim.player_state();
        let (Ok(body), Ok(layers)) = (
            sim.world.get::<&Body>(sim.player),
            sim.world.get::<&Layers>(sim.player),
        ) else {
            self.events.clear();
            return &self.events;
        };
        self.observe(&EventInput {
            level: &sim.level,
            player: &player,
            character: &body.character,
            layers: &layers.layers[..layers.count],
            pipeline: &body.pipeline,
            ik_enabled: sim.ik_enabled,
        });
        &self.events
    }

    /// Derives this frame's events (clearing the previous frame's).
    pub fn observe(&mut self, input: &EventInput) -> &FrameEvents {
        self.events.clear();
        let p = input.player;
        let c = input.character;
        let feet_pos = Vec3::new(p.pos.x, p.pos.y, 0.0);
        self.since_land += DT;
        for t in self.since_foot.iter_mut().chain(&mut self.since_hand) {
            *t += DT;
        }
        // The first frame (after a reset) only learns what is already down.
        let first = self.prev.is_none();

        if let Some(prev) = self.prev {
            // Leaving the ground (a jump resets `since_grounded` to
            // infinity; walking off an edge does not) or a ladder, upwards.
            let jumped = p.state == Locomotion::Air
                && p.vel.y > 0.0
                && match prev.state {
                    Locomotion::Ladder(_) | Locomotion::Ledge => true,
                    _ => p.since_grounded.is_infinite() && prev.since_grounded.is_finite(),
                };
            if jumped {
                self.events
                    .push(CharacterEvent::Jump { position: feet_pos });
            }
            // Catching a ledge: one grab, at the corner.
            if p.state == Locomotion::Ledge
                && prev.state != Locomotion::Ledge
                && let Some(h) = p.ledge
            {
                self.events.push(CharacterEvent::LedgeGrab {
                    position: h.ledge.corner.extend(0.0),
                });
            }
            if p.just_landed {
                self.since_land = 0.0;
                self.events.push(CharacterEvent::Land {
                    position: feet_pos,
                    surface: surface_under(input.level, p.pos, p),
                    impact_speed: (-prev.vel.y).max(0.0),
                });
            }
        }

        let world = input.pipeline.world;
        let joint_world =
            |joint: usize| world.transform_point3(input.pipeline.models[joint].w_axis.truncate());
        let on_ground = p.state == Locomotion::Ground;
        // On a ladder that holds the limbs fully: while stepping onto it or
        // off it (a ladder move) the hands and feet are still on their way.
        let on_ladder =
            matches!(p.state, Locomotion::Ladder(_)) && input.pipeline.debug.climb_weight >= 0.999;
        let speed = p.vel.length();
        // The layers but the standing one (walking, running, landing), and
        // their share of the mix: the standing layer counts both feet down
        // whatever they do.
        let unused = Layer::looping(c.clip_set.idle, 0.0, 0.0);
        let mut gait = [unused; MAX_LAYERS];
        let mut gait_count = 0;
        let (mut gait_sum, mut total) = (0.0, 0.0);
        for l in input.layers {
            total += l.weight;
            if !l.still && gait_count < MAX_LAYERS {
                gait[gait_count] = *l;
                gait_count += 1;
                gait_sum += l.weight;
            }
        }
        let gait_weight = if total > 0.0 { gait_sum / total } else { 0.0 };
        for side in Side::BOTH {
            let i = side.index();
            let leg = &c.legs[i];
            // Feet on the ground: while walking or running, the gait clips'
            // contact with the animated ankle (before IK, which lifts a foot
            // onto a slope) down; while standing, the pose pipeline's foot
            // lock (a foot stepped back under the body).
            let foot = input.pipeline.debug.feet[i];
            let animated = input
                .pipeline
                .animated
                .get(leg.end)
                .unwrap_or(&input.pipeline.models[leg.end]);
            let lift = animated.w_axis.y - c.rest_ankle_height[i];
            let contact = layer_contact(leg, &gait[..gait_count]);
            if contact < SWING_CONTACT || lift > SWING_LIFT {
                self.swung[i] = true;
            }
            let walking = gait_weight >= 0.5;
            let planted = on_ground
                && if walking {
                    contact >= PLANT_CONTACT && lift <= PLANT_LIFT
                } else {
                    input.ik_enabled && foot.locked
                };
            // A walking foot plants once per swing.
            let new_plant = planted && !self.planted[i] && (self.swung[i] || !walking);
            if new_plant {
                self.swung[i] = false;
            }
            // The floor under the sole (foot IK's probe) or, without IK,
            // under the ankle, looked for where foot IK would look (a slope
            // rises or falls under a foot). A foot over no floor (hanging
            // past an edge) plants on nothing and makes no sound.
            let ankle = joint_world(leg.end);
            let probe_x = if input.ik_enabled {
                foot.probe.x
            } else {
                p.foot_probe_x(ankle.x)
            };
            let (top, depth) = foot_probe_range(p.pos, probe_x);
            if new_plant
                && !first
                && self.since_land >= LAND_QUIET
                && self.since_foot[i] >= MIN_CONTACT_INTERVAL
                && let Some(floor) = input.level.floor_below(probe_x, top, depth)
            {
                self.since_foot[i] = 0.0;
                self.events.push(CharacterEvent::FootPlant {
                    foot: side,
                    position: Vec3::new(probe_x, floor.y, ankle.z),
                    surface: Surface::of_floor(floor.kind(), floor.segment.angle()),
                    speed,
                });
            }
            self.planted[i] = planted;

            // Feet and hands on rungs: the climb cycle's contact, where the
            // limb is at a rung (a hand also at the rails' rungs above the
            // top; past them a limb reaching on holds nothing: no sound).
            let at_rung = |joint: usize, from_rung: Vec3, hand: bool| {
                let ladder = match p.state {
                    Locomotion::Ladder(k) => input.level.ladders.get(k),
                    _ => None,
                };
                let at = joint_world(joint);
                let held = at.y - from_rung.y;
                ladder
                    .and_then(|l| {
                        let r = if hand {
                            l.nearest_grip(held)
                        } else {
                            l.nearest_rung(held)
                        };
                        r.map(|r| (l, r))
                    })
                    .is_some_and(|(l, r)| (held - r).abs() <= 0.5 * l.rung_spacing)
                    .then_some(at)
            };
            let on_rung = on_ladder && layer_contact(leg, input.layers) >= GRIP_CONTACT;
            if on_rung
                && !self.rung_feet[i]
                && !first
                && self.since_foot[i] >= MIN_CONTACT_INTERVAL
                && let Some(position) = at_rung(leg.end, c.rig.ankle_from_rung, false)
            {
                self.since_foot[i] = 0.0;
                self.events.push(CharacterEvent::FootPlant {
                    foot: side,
                    position,
                    surface: Surface::Rung,
                    speed,
                });
            }
            self.rung_feet[i] = on_rung;
            let arm = c.arms.get(i);
            let gripping = on_ladder
                && arm.is_some_and(|arm| layer_contact(arm, input.layers) >= GRIP_CONTACT);
            if gripping
                && !self.hands[i]
                && !first
                && self.since_hand[i] >= MIN_CONTACT_INTERVAL
                && let Some(position) =
                    arm.and_then(|a| at_rung(a.end, c.rig.wrist_from_rung, true))
            {
                self.since_hand[i] = 0.0;
                self.events.push(CharacterEvent::LadderGrip {
                    hand: side,
                    position,
                });
            }
            self.hands[i] = gripping;
        }
        self.prev = Some(*p);
        &self.events
    }
}

/// The surface of the floor under `at` (a sole's contact point or the feet
/// position); the floor the player stands on when none is found there (a
/// foot just past an edge).
fn surface_under(level: &Level, at: Vec2, p: &Player) -> Surface {
    match level.floor_below(at.x, at.y + SURFACE_ABOVE, SURFACE_BELOW) {
        Some(hit) => Surface::of_floor(hit.kind(), hit.segment.angle()),
        None => Surface::of_floor(p.floor, 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_frame_counts_what_it_drops() {
        let mut f = FrameEvents::default();
        let e = CharacterEvent::Jump {
            position: Vec3::ZERO,
        };
        for _ in 0..MAX_EVENTS {
            assert!(f.push(e));
        }
        assert!(!f.push(e));
        assert_eq!((f.len(), f.dropped()), (MAX_EVENTS, 1));
        f.clear();
        assert!(f.is_empty() && f.dropped() == 0);
    }

    #[test]
    fn floors_map_to_surfaces() {
        assert_eq!(Surface::of_floor(FloorKind::Ground, 0.0), Surface::Ground);
        assert_eq!(Surface::of_floor(FloorKind::Ground, -0.3), Surface::Slope);
        assert_eq!(Surface::of_floor(FloorKind::OneWay, 0.0), Surface::Plank);
        assert_eq!(
            Surface::of_floor(FloorKind::Platform(2), 0.0),
            Surface::Platform
        );
    }
}
