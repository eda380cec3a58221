//! A playable character: a skeleton, its clips and its rig, plus what the pose
//! pipeline derives from them once, at load time (contact curves per limb and
//! clip, the grip windows of the climb cycle, each foot's sole point).
//!
//! Everything here is computed from the model itself, so any humanoid glTF
//! with a rig file works the same way as our knight.

pub mod anim_state;
pub mod contact;
pub mod crowd;
pub mod drawn;
pub mod events;
pub mod humanoid;
pub mod ledge_ik;
pub mod model;
pub mod pose_pipeline;
pub mod procedural_climb;
pub mod rig;

use animation::ik::{HingeLimit, TwoBoneChain};
use animation::{Clip, PackedClip, Skeleton, Wrap, local_to_model, sample_at, validate_clip};
use glam::{Mat4, Quat, Vec3};
use thiserror::Error;

use crate::character::anim_state::{ClipInfo, ClipSet, LedgeClips};
use crate::character::pose_pipeline::HINGE_RANGE;
use crate::character::rig::{Rig, RigError, RigFile};
use crate::knight;
use contact::{CONTACT_SAMPLES, ContactCurve, Swing};

/// Why a character could not be assembled.
#[derive(Debug, Error)]
pub enum CharacterError {
    /// The rig file is wrong for this model.
    #[error(transparent)]
    Rig(#[from] RigError),
    /// A clip the rig names is not in the model.
    #[error("{file}: clip '{clip}' (for {state}) is not in the model; it has {available}")]
    MissingClip {
        /// The rig file.
        file: String,
        /// The clip name.
        clip: String,
        /// The state that needs it.
        state: &'static str,
        /// The clips the model has.
        available: String,
    },
    /// A clip is malformed.
    #[error("{model}: clip '{clip}': {reason}")]
    BadClip {
        /// The model file.
        model: String,
        /// The clip name.
        clip: String,
        /// What is wrong.
        reason: String,
    },
    /// The rig needs two legs (left, right).
    #[error("{file}: the rig must name exactly two legs, it names {count}")]
    LegCount {
        /// The rig file.
        file: String,
        /// How many it names.
        count: usize,
    },
    /// The built-in knight could not be generated.
    #[error(transparent)]
    Knight(#[from] knight::KnightError),
}

/// A character's skinned mesh in bind space, in plain arrays (the renderer
/// and the CPU skinning reference both take it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CharacterMesh {
    /// Positions, metres.
    pub positions: Vec<Vec3>,
    /// Unit normals.
    pub normals: Vec<Vec3>,
    /// Texture coordinates (empty when the model has none).
    pub uvs: Vec<[f32; 2]>,
    /// Linear RGBA vertex colours (empty when the model has none).
    pub colors: Vec<[f32; 4]>,
    /// Four joint indices per vertex, into the skeleton.
    pub joints: Vec<[u16; 4]>,
    /// Four weights per vertex, summing to one.
    pub weights: Vec<[f32; 4]>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Material base colour factor (linear RGBA).
    pub base_color: [f32; 4],
    /// Base colour texture, if any.
    pub texture: Option<Texture>,
}

/// An RGBA8 texture.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Texture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub rgba: Vec<u8>,
}

impl CharacterMesh {
    /// The knight's generated mesh.
    pub fn from_knight(m: &knight::mesh::Mesh) -> Self {
        Self {
            positions: m.positions.clone(),
            normals: m.normals.clone(),
            uvs: Vec::new(),
            colors: m.colors.clone(),
            joints: m.joints.clone(),
            weights: m.weights.clone(),
            indices: m.indices.iter().map(|&i| u32::from(i)).collect(),
            base_color: [1.0; 4],
            texture: None,
        }
    }
}

/// The part of a climb cycle during which a limb holds a rung.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grip {
    /// Normalized phase at which the grip starts.
    pub start: f32,
    /// Normalized phase at which it ends (may exceed 1 when the grip wraps).
    pub end: f32,
    /// Model-space position of the limb's end joint in the middle of the grip.
    pub center_model: Vec3,
}

impl Grip {
    /// Phase of the grip's middle.
    pub fn center(&self) -> f32 {
        0.5 * (self.start + self.end)
    }
}

/// A limb the pose pipeline drives: its joints and its contact data.
#[derive(Clone, Debug)]
pub struct Limb {
    /// Start joint (hip or shoulder).
    pub start: usize,
    /// Mid joint (knee or elbow).
    pub mid: usize,
    /// End joint (ankle or wrist).
    pub end: usize,
    /// The three joints as a two-bone chain checked against the skeleton.
    pub chain: TwoBoneChain,
    /// The mid joint's hinge (the rig's knee or elbow axis and the pose
    /// pipeline's range), built once here: it carries its limits' sines and
    /// cosines, so that the per-frame solves do not recompute them.
    pub hinge: HingeLimit,
    /// Contact curve per clip (indexed like [`Character::clips`]).
    pub contact: Vec<ContactCurve>,
    /// A leg's swings per clip (indexed like [`Character::clips`]): found
    /// in the walk and run cycles, empty elsewhere and for arms.
    pub swings: Vec<Vec<Swing>>,
    /// Grip window in the climb cycle, if the limb holds rungs.
    pub grip: Option<Grip>,
    /// +1 or −1: the side of the start→end line the mid joint moves to when
    /// it flexes (positive angle about its hinge axis), as
    /// `bend_sign · (hinge_model × (end − start))`.
    pub bend_sign: f32,
}

/// How far behind `SOLE_FIT_BALL` of its toes' reach a toe joint must lie
/// for the ball to be taken at the toe joint instead, metres (see
/// [`Character::ball_at_toe`]): the knight's toe joint, 2 mm behind, is his
/// ball already.
pub const BALL_TOE_MARGIN: f32 = 0.01;
/// How far above a foot's lowest skinned vertex at rest a vertex may lie and
/// still count as its sole, metres: a boot's heel and toe cap lie within a
/// centimetre of its tread; its instep and ankle well above.
pub const SOLE_BAND: f32 = 0.015;
/// How many stretches of each sole, from its heel to its ball, keep their
/// lowest skinned vertex at rest in [`Character::sole_profile`]: enough that
/// a floor's corner under the sole (a stair's edge, a crest) is never more
/// than a stretch (about 2–3 cm of a humanoid's sole) from one, few enough
/// to look at only where a sole point is off its floor.
pub const SOLE_PROFILE_POINTS: usize = 8;

/// A character ready for the pose pipeline.
#[derive(Clone, Debug)]
pub struct Character {
    /// Where the model came from (for messages).
    pub name: String,
    /// The skinned mesh, when the model has one (headless runs need none).
    pub mesh: Option<CharacterMesh>,
    /// The skeleton.
    pub skeleton: Skeleton,
    /// Every clip of the model.
    pub clips: Vec<Clip>,
    /// Each clip packed for sampling (indexed like [`Character::clips`]),
    /// when its tracks share one key time line ([`PackedClip::pack`]; every
    /// clip of the knight does): the pose pipeline samples those with one key
    /// search per clip, the others track by track, with the same result.
    /// Built by [`Character::new`] from `clips`; a caller that changes a
    /// clip afterwards must pack it again.
    pub packed_clips: Vec<Option<PackedClip>>,
    /// The rig resolved against the skeleton.
    pub rig: Rig,
    /// The clips the state machine plays.
    pub clip_set: ClipSet,
    /// Left and right legs.
    pub legs: [Limb; 2],
    /// Left and right arms, when the rig names them.
    pub arms: Vec<Limb>,
    /// Each foot's sole point (under the ankle at rest) in the ankle's frame.
    pub sole_local: [Vec3; 2],
    /// Each foot's heel and ball on its sole at rest, in the ankle's frame
    /// (see [`Character::sole_reach`]; the ball at
    /// `pose_pipeline::SOLE_FIT_BALL` of the toe's reach): the points foot
    /// IK keeps out of the floor and a planted foot rolls on. Not the toe's
    /// tip: it bends with a toe joint the ankle's frame does not follow.
    /// Both at the sole point without a mesh.
    pub sole_points: [[Vec3; 2]; 2],
    /// Each foot's underside between its heel and its ball: the lowest
    /// skinned vertex at rest of each of [`SOLE_PROFILE_POINTS`] equal
    /// stretches along the model's forward axis, in the ankle's frame, of
    /// the vertices within [`SOLE_BAND`] of the foot's lowest (`NaN` for a
    /// stretch with none, and all without a mesh). Foot IK
    /// keeps these out of a floor whose end passes under the sole, where the
    /// heel or the ball hangs past it (see `pose_pipeline::foot_ik`): a sole
    /// is not the line between its heel and ball (RiggedFigure's arch lies
    /// above it, Kenney's heel pad below it under a pitched foot).
    pub sole_profile: [[Vec3; SOLE_PROFILE_POINTS]; 2],
    /// How far each foot's sole reaches behind its ankle (the heel) and
    /// ahead of it (the toe) along the model's forward axis at rest,
    /// metres: from the foot's lowest skinned vertices (within
    /// [`SOLE_BAND`] of its lowest), 0 and 0 without a mesh. Foot IK fits a
    /// foot whose heel or toe would reach into rising ground onto both
    /// (see `pose_pipeline::foot_ik`).
    pub sole_reach: [[f32; 2]; 2],
    /// Each foot's toe joint and the tip of its toes in that joint's frame
    /// (the sole's front-most point at rest, from the foot's lowest skinned
    /// vertices): foot IK bends the toes up where the tip would go into the
    /// floor (see `pose_pipeline::foot_ik`). `None` without a toe joint
    /// reaching ahead of the ankle, or without a mesh.
    pub toe_tips: [Option<(usize, Vec3)>; 2],
    /// Where each foot's toes bend, in the ankle's frame, when its skin
    /// creases well behind the toe joint: the sole under the crease (the
    /// sole vertices skinned about half to the toes), where that lies more
    /// than [`BALL_TOE_MARGIN`] behind the joint; `None` elsewhere (the
    /// toes bend about their joint). CesiumMan's sole is skinned half to
    /// his toes 3.9 cm behind his toe joint: bent up about the joint, his
    /// toes carried that skin down into the floor (13 mm for a bend of 35°,
    /// a foot at the foot of a climb with its toes over the slope). Bent
    /// about the crease, the skin there stays where the foot has it, and
    /// the toe joint moves up with the toes.
    pub toe_pivot: [Option<Vec3>; 2],
    /// Whether each foot's ball ([`Character::sole_points`]) is its toe
    /// joint's place on the sole, well behind `SOLE_FIT_BALL` of the toes'
    /// reach: toes reaching that far past the ball go into a level floor
    /// as the foot rolls onto it, and foot IK bends them up out of any
    /// floor (on others only on slopes and at edges).
    pub ball_at_toe: [bool; 2],
    /// Each ankle's scale in the model at rest (for placing its toe joint
    /// without taking the scale from the matrices each frame).
    pub toe_scale: [Vec3; 2],
    /// Thigh + shin length of each leg at rest, metres.
    pub leg_length: [f32; 2],
    /// Height of each ankle above the model's floor at rest, metres: above
    /// its foot's lowest skinned vertex once the mesh is attached
    /// ([`Character::attach_mesh`]), else above the model's origin.
    pub rest_ankle_height: [f32; 2],
    /// Each ankle's model-space rotation at rest, where the foot stands flat
    /// (a held idle frame sets its feet down in this orientation).
    pub rest_ankle_rotation: [Quat; 2],
}

/// The knight's rig file, as committed.
pub const KNIGHT_RIG: &str = include_str!("../../../assets/knight.rig.ron");

impl Character {
    /// Our knight, built by the generator (the same data as
    /// `assets/knight.glb`, which a test keeps byte-identical to it).
    pub fn knight() -> Result<Self, CharacterError> {
        let k = knight::Knight::generate(knight::clips::DEFAULT_RUNG_SPACING)?;
        let rig = RigFile::parse(KNIGHT_RIG, knight::RIG_PATH)?;
        let mut c = Self::new(
            knight::GLB_PATH,
            k.skeleton,
            k.clips,
            &rig,
            knight::RIG_PATH,
        )?;
        c.attach_mesh(CharacterMesh::from_knight(&k.mesh));
        Ok(c)
    }

    /// Assembles a character; `model` and `rig_file` label errors.
    pub fn new(
        model: &str,
        skeleton: Skeleton,
        clips: Vec<Clip>,
        rig_file: &RigFile,
        rig_path: &str,
    ) -> Result<Self, CharacterError> {
        let rig = rig_file.resolve(&skeleton, rig_path)?;
        if rig.legs.len() != 2 {
            return Err(CharacterError::LegCount {
                file: rig_path.to_string(),
                count: rig.legs.len(),
            });
        }
        // A rig without a climb clip of its own gets one generated from the
        // rest pose, appended after the model's clips.
        let mut clips = clips;
        if rig_file.procedural_climb {
            clips.push(procedural_climb::generate(&skeleton, &rig, rig_path)?);
        }
        for clip in &clips {
            validate_clip(clip, skeleton.len()).map_err(|e| CharacterError::BadClip {
                model: model.to_string(),
                clip: clip.name.clone(),
                reason: e.to_string(),
            })?;
        }
        let names = &rig_file.clips;
        let find = |name: &str, state: &'static str, distance: f32| {
            clips
                .iter()
                .position(|c| c.name == name)
                .map(|index| ClipInfo {
                    index,
                    duration: clips[index].duration.max(1e-3),
                    cycle_distance: distance,
                })
                .ok_or_else(|| CharacterError::MissingClip {
                    file: rig_path.to_string(),
                    clip: name.to_string(),
                    state,
                    available: clips
                        .iter()
                        .map(|c| format!("'{}'", c.name))
                        .collect::<Vec<_>>()
                        .join(", "),
                })
        };
        let mut clip_set = ClipSet {
            idle: find(&names.idle, "idle", 0.0)?,
            walk: find(&names.walk, "walk", rig_file.walk_cycle_distance)?,
            run: find(&names.run, "run", rig_file.run_cycle_distance)?,
            jump: find(&names.jump, "jump", 0.0)?,
            fall: find(&names.fall, "fall", 0.0)?,
            land: find(&names.land, "land", 0.0)?,
            climb: if rig_file.procedural_climb {
                let index = clips.len() - 1;
                ClipInfo {
                    index,
                    duration: clips[index].duration.max(1e-3),
                    cycle_distance: rig_file.climb_cycle_distance,
                }
            } else {
                find(&names.climb, "climb", rig_file.climb_cycle_distance)?
            },
            ledge: if names.hang.is_empty() {
                None
            } else {
                Some(LedgeClips {
                    hang: find(&names.hang, "hang", 0.0)?,
                    climb_up: find(&names.climb_up, "climb_up", 0.0)?,
                })
            },
            leg_length: 0.0,
            idle_hold: rig_file.idle_time,
            walk_phase_offset: 0.0,
        };

        let forward = rig.forward;
        let curves_for = |end: usize, is_leg: bool| -> Vec<ContactCurve> {
            (0..clips.len())
                .map(|i| {
                    let clip = &clips[i];
                    let cycle = |info: &ClipInfo, dir: Vec3| {
                        contact::analyse(
                            &skeleton,
                            clip,
                            end,
                            dir * (info.cycle_distance / info.duration),
                        )
                    };
                    if i == clip_set.walk.index && is_leg {
                        cycle(&clip_set.walk, forward)
                    } else if i == clip_set.run.index && is_leg {
                        cycle(&clip_set.run, forward)
                    } else if i == clip_set.climb.index && clip_set.climb.cycle_distance > 0.0 {
                        cycle(&clip_set.climb, Vec3::Y)
                    } else if is_leg && (i == clip_set.idle.index || i == clip_set.land.index) {
                        ContactCurve::always()
                    } else {
                        ContactCurve::never()
                    }
                })
                .collect()
        };
        let climb_clip = &clips[clip_set.climb.index];
        let grip_for = |end: usize, curve: &ContactCurve| {
            if clip_set.climb.cycle_distance <= 0.0 {
                return None;
            }
            let (start, end_phase) = longest_contact_window(curve)?;
            let center = 0.5 * (start + end_phase);
            let mut locals = skeleton.rest_locals().to_vec();
            let mut models = vec![Mat4::IDENTITY; skeleton.len()];
            sample_at(
                climb_clip,
                center.rem_euclid(1.0) * clip_set.climb.duration,
                Wrap::Loop,
                &mut locals,
            );
            local_to_model(&skeleton, &locals, &mut models);
            Some(Grip {
                start,
                end: end_phase,
                center_model: models[end].w_axis.truncate(),
            })
        };
        let make_limb = |start: usize, mid: usize, end: usize, axis: Vec3, is_leg: bool| {
            let contact = curves_for(end, is_leg);
            let swings = contact
                .iter()
                .enumerate()
                .map(|(i, curve)| {
                    let stride = if i == clip_set.walk.index {
                        Some(clip_set.walk.cycle_distance)
                    } else if i == clip_set.run.index {
                        Some(clip_set.run.cycle_distance)
                    } else {
                        None
                    };
                    if let (true, Some(d)) = (is_leg, stride) {
                        contact::swings(&skeleton, &clips[i], start, end, curve, forward * d)
                    } else {
                        Vec::new()
                    }
                })
                .collect();
            let grip = grip_for(end, &contact[clip_set.climb.index]);
            // Checked once here, so that every frame's solve skips the walk
            // up the skeleton (the rig's resolution already checked the
            // chain, so this cannot fail for a resolved rig).
            let chain =
                TwoBoneChain::new(&skeleton, start, mid, end).map_err(|_| RigError::NotAChain {
                    file: rig_path.to_string(),
                    parent: skeleton.name(start).to_string(),
                    child: skeleton.name(end).to_string(),
                })?;
            Ok::<_, CharacterError>(Limb {
                start,
                mid,
                end,
                chain,
                hinge: HingeLimit::new(axis, HINGE_RANGE.0, HINGE_RANGE.1),
                contact,
                swings,
                grip,
                bend_sign: bend_sign(&skeleton, start, mid, end, axis),
            })
        };
        let leg = |l: &rig::Leg| make_limb(l.hip, l.knee, l.ankle, l.knee_hinge_axis, true);
        let mut legs = [leg(&rig.legs[0])?, leg(&rig.legs[1])?];
        // Foot IK plans a swing's landing only from a clean gait: one swing
        // per leg per cycle. An uneven clip (CesiumMan's walk, whose feet
        // drift through stances its analysis splits) plans none, for
        // either leg.
        for i in 0..clips.len() {
            if legs.iter().any(|l| l.swings[i].len() != 1) {
                for l in &mut legs {
                    l.swings[i].clear();
                }
            }
        }
        // Walk and run have each foot at one place in its cycle at one gait
        // phase (see `anim_state::walk_phase_offset`).
        if clip_set.walk.index != clip_set.run.index {
            let tracks = |clip: usize| {
                legs.iter()
                    .map(|l| contact::forward_track(&skeleton, &clips[clip], l.end, forward))
                    .collect::<Vec<_>>()
            };
            clip_set.walk_phase_offset = anim_state::walk_phase_offset(
                &tracks(clip_set.walk.index),
                &tracks(clip_set.run.index),
            );
        }
        let arms = rig
            .arms
            .iter()
            .map(|a| make_limb(a.shoulder, a.elbow, a.wrist, a.elbow_hinge_axis, false))
            .collect::<Result<_, _>>()?;

        // Rest pose: sole points and leg lengths.
        let mut rest_models = vec![Mat4::IDENTITY; skeleton.len()];
        local_to_model(&skeleton, skeleton.rest_locals(), &mut rest_models);
        let pos = |j: usize| rest_models[j].w_axis.truncate();
        let sole_local = [0, 1].map(|i| {
            let ankle = &rest_models[legs[i].end];
            let sole_model = pos(legs[i].end) - Vec3::Y * rig.foot_height;
            ankle.inverse().transform_point3(sole_model)
        });
        let rest_ankle_height = [0, 1].map(|i| pos(legs[i].end).y);
        let toe_scale = [0, 1].map(|i| rest_models[legs[i].end].to_scale_rotation_translation().0);
        let rest_ankle_rotation = [0, 1].map(|i| {
            let (_, r, _) = rest_models[legs[i].end].to_scale_rotation_translation();
            r.normalize()
        });
        let leg_length = [0, 1].map(|i| {
            (pos(legs[i].mid) - pos(legs[i].start)).length()
                + (pos(legs[i].end) - pos(legs[i].mid)).length()
        });
        // Stride warping bounds a stride by the legs (see
        // `anim_state::MAX_STRIDE_LEGS`).
        clip_set.leg_length = 0.5 * (leg_length[0] + leg_length[1]);
        Ok(Self {
            name: model.to_string(),
            mesh: None,
            skeleton,
            packed_clips: clips.iter().map(PackedClip::pack).collect(),
            clips,
            rig,
            clip_set,
            legs,
            arms,
            sole_local,
            sole_points: sole_local.map(|p| [p; 2]),
            sole_profile: [[Vec3::NAN; SOLE_PROFILE_POINTS]; 2],
            sole_reach: [[0.0; 2]; 2],
            toe_tips: [None; 2],
            toe_pivot: [None; 2],
            ball_at_toe: [false; 2],
            toe_scale,
            leg_length,
            rest_ankle_height,
            rest_ankle_rotation,
        })
    }

    /// Gives the character its skinned mesh, and with it each foot's sole
    /// reach ([`Character::sole_reach`]).
    pub fn attach_mesh(&mut self, mesh: CharacterMesh) {
        let mut rest = vec![Mat4::IDENTITY; self.skeleton.len()];
        local_to_model(&self.skeleton, self.skeleton.rest_locals(), &mut rest);
        let skin: Vec<Mat4> = rest
            .iter()
            .zip(self.skeleton.inverse_bind())
            .map(|(m, ib)| *m * *ib)
            .collect();
        let forward = Vec3::new(self.rig.forward.x, 0.0, self.rig.forward.z).normalize_or_zero();
        let mut lowest_sole = [f32::NAN; 2];
        let mut soles: [Vec<Vec3>; 2] = [Vec::new(), Vec::new()];
        self.sole_reach = [0, 1].map(|i| {
            let ankle = rest[self.legs[i].end].w_axis.truncate();
            let sole: Vec<Vec3> = self
                .foot_vertices(&mesh, i)
                .into_iter()
                .filter_map(|v| {
                    let (js, ws) = (mesh.joints.get(v)?, mesh.weights.get(v)?);
                    let at = *mesh.positions.get(v)?;
                    let mut p = Vec3::ZERO;
                    for (j, w) in js.iter().zip(ws) {
                        p += skin.get(usize::from(*j))?.transform_point3(at) * *w;
                    }
                    p.is_finite().then_some(p)
                })
                .collect();
            let lowest = sole.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
            lowest_sole[i] = lowest;
            let (back, ahead) = sole
                .iter()
                .filter(|p| p.y <= lowest + SOLE_BAND)
                .map(|p| (*p - ankle).dot(forward))
                .fold((0.0f32, 0.0f32), |(b, a), f| (b.max(-f), a.max(f)));
            soles[i] = sole;
            [back, ahead]
        });
        // The heel and ball at the lowest vertices' height, along the
        // model's forward axis, in each ankle's frame. The ball no further
        // ahead than a toe joint between the ankle and the toes' tip: past
        // it, the sole bends up with the toes, and a foot rising onto a ball
        // there rose onto its bending toes (CesiumMan's and RiggedFigure's
        // toe joints are half as far ahead as `SOLE_FIT_BALL` of their toes'
        // reach).
        self.sole_points = [0, 1].map(|i| {
            let m = rest[self.legs[i].end];
            let ankle = m.w_axis.truncate();
            let [back, ahead] = self.sole_reach[i];
            if !lowest_sole[i].is_finite() {
                return [self.sole_local[i]; 2];
            }
            let low = Vec3::new(ankle.x, lowest_sole[i], ankle.z);
            let toe_joint = self
                .rig
                .legs
                .get(i)
                .and_then(|l| l.toe)
                .and_then(|t| rest.get(t))
                .map(|t| (t.w_axis.truncate() - ankle).dot(forward))
                .filter(|&along| along > 0.0 && along < ahead);
            let ball = crate::character::pose_pipeline::SOLE_FIT_BALL * ahead;
            let at_toe = toe_joint.filter(|&along| along < ball - BALL_TOE_MARGIN);
            self.ball_at_toe[i] = at_toe.is_some();
            let ball = at_toe.unwrap_or(ball);
            // The lowest vertex of each stretch from the heel to the ball,
            // of those on the sole (within SOLE_BAND of its lowest: a
            // stretch under an arch, or spanned by one face of a low-poly
            // boot, has none).
            let mut profile = [None::<Vec3>; SOLE_PROFILE_POINTS];
            let span = (back + ball).max(1e-6);
            for p in soles[i]
                .iter()
                .filter(|p| p.y <= lowest_sole[i] + SOLE_BAND)
            {
                let along = (*p - ankle).dot(forward);
                let t = (along + back) / span;
                if !(0.0..=1.0).contains(&t) {
                    continue;
                }
                let k = ((t * SOLE_PROFILE_POINTS as f32) as usize).min(SOLE_PROFILE_POINTS - 1);
                if profile[k].is_none_or(|q| p.y < q.y) {
                    profile[k] = Some(*p);
                }
            }
            let inv = m.inverse();
            self.sole_profile[i] =
                profile.map(|p| p.map_or(Vec3::NAN, |p| inv.transform_point3(p)));
            [-back, ball].map(|along| inv.transform_point3(low + forward * along))
        });
        // The toes' tip, where a toe joint of the foot lies between the
        // ankle and it along the forward axis.
        self.toe_tips = [0, 1].map(|i| {
            let toe = self.rig.legs.get(i)?.toe?;
            let ankle = rest[self.legs[i].end].w_axis.truncate();
            let joint = rest.get(toe)?;
            let ahead = self.sole_reach[i][1];
            let to_joint = (joint.w_axis.truncate() - ankle).dot(forward);
            if !lowest_sole[i].is_finite() || to_joint <= 0.0 || ahead <= to_joint {
                return None;
            }
            let tip = Vec3::new(ankle.x, lowest_sole[i], ankle.z) + forward * ahead;
            let local = joint.inverse().transform_point3(tip);
            local.is_finite().then_some((toe, local))
        });
        // The toes' crease: the mean place along the foot of the sole
        // vertices skinned between a quarter and three quarters to the
        // toes (the toe joint and what hangs from it).
        self.toe_pivot = [0, 1].map(|i| {
            let (toe, _) = self.toe_tips[i]?;
            let m = rest[self.legs[i].end];
            let ankle = m.w_axis.truncate();
            let joint = (rest.get(toe)?.w_axis.truncate() - ankle).dot(forward);
            let (mut n, mut sum) = (0.0f32, 0.0f32);
            for v in self.foot_vertices(&mesh, i) {
                let (Some(js), Some(ws), Some(at)) = (
                    mesh.joints.get(v),
                    mesh.weights.get(v),
                    mesh.positions.get(v),
                ) else {
                    continue;
                };
                let mut p = Vec3::ZERO;
                let mut toes = 0.0;
                for (j, w) in js.iter().zip(ws) {
                    let j = usize::from(*j);
                    p += skin.get(j)?.transform_point3(*at) * *w;
                    if j == toe || self.skeleton.is_descendant_of(j, toe) {
                        toes += *w;
                    }
                }
                if p.y <= lowest_sole[i] + SOLE_BAND && (0.25..=0.75).contains(&toes) {
                    n += 1.0;
                    sum += (p - ankle).dot(forward);
                }
            }
            let crease = sum / n;
            (n > 0.0 && crease < joint - BALL_TOE_MARGIN).then(|| {
                let under = Vec3::new(ankle.x, lowest_sole[i], ankle.z) + forward * crease;
                m.inverse().transform_point3(under)
            })
        });
        // A planted ankle stands as high over the floor as it does over its
        // own foot's lowest vertex at rest: Mannequiny's soles reach 4.5 mm
        // below his model's origin, where the rest pose's ankle height alone
        // had every planted foot 4.5 mm in the floor.
        for (i, lowest) in lowest_sole.into_iter().enumerate() {
            if lowest.is_finite() {
                let ankle = rest[self.legs[i].end].w_axis.y;
                self.rest_ankle_height[i] = ankle - lowest;
            }
        }
        self.mesh = Some(mesh);
    }

    /// The vertices of `mesh` that foot `leg` (0 left, 1 right) carries: at
    /// least half of each one's weight on the ankle's subtree.
    pub fn foot_vertices(&self, mesh: &CharacterMesh, leg: usize) -> Vec<usize> {
        let Some(leg) = self.legs.get(leg) else {
            return Vec::new();
        };
        let sk = &self.skeleton;
        let foot: Vec<bool> = (0..sk.len())
            .map(|j| j == leg.end || sk.is_descendant_of(j, leg.end))
            .collect();
        mesh.joints
            .iter()
            .zip(&mesh.weights)
            .enumerate()
            .filter(|(_, (js, ws))| {
                let share: f32 = js
                    .iter()
                    .zip(ws.iter())
                    .filter(|(j, _)| foot.get(usize::from(**j)).copied().unwrap_or(false))
                    .map(|(_, w)| *w)
                    .sum();
                share >= 0.5
            })
            .map(|(v, _)| v)
            .collect()
    }
}

/// Which way a limb's mid joint moves when it flexes about `axis` (its own
/// frame), relative to `hinge_model × (end − start)`: found by flexing the
/// rest pose a little and looking.
fn bend_sign(skeleton: &Skeleton, start: usize, mid: usize, end: usize, axis: Vec3) -> f32 {
    let mut locals = skeleton.rest_locals().to_vec();
    locals[mid].rotation *= glam::Quat::from_axis_angle(axis, 0.5);
    let mut models = vec![Mat4::IDENTITY; skeleton.len()];
    local_to_model(skeleton, &locals, &mut models);
    let p = |j: usize| models[j].w_axis.truncate();
    let line = p(end) - p(start);
    let off = p(mid) - p(start);
    let off = off - line * (off.dot(line) / line.length_squared().max(1e-12));
    let (_, r, _) = models[mid].to_scale_rotation_translation();
    let dir = (r * axis).cross(line);
    if dir.dot(off) >= 0.0 { 1.0 } else { -1.0 }
}

/// The longest cyclic run of a curve's samples at or above one half, as
/// `(start, end)` phases with `start` in [0, 1) and `end > start`; `None`
/// when the limb never touches anything.
fn longest_contact_window(curve: &ContactCurve) -> Option<(f32, f32)> {
    let n = CONTACT_SAMPLES;
    let on: Vec<bool> = (0..n)
        .map(|i| curve.at(i as f32 / n as f32) >= 0.5)
        .collect();
    if on.iter().all(|b| *b) || !on.iter().any(|b| *b) {
        return None;
    }
    // Start scanning just after an "off" sample so no run is split.
    let first_off = on.iter().position(|b| !*b)?;
    let mut best = (0usize, 0usize);
    let mut run_start = None;
    for k in 1..=n {
        let i = (first_off + k) % n;
        match (on[i], run_start) {
            (true, None) => run_start = Some(k),
            (false, Some(s)) => {
                if k - s > best.1 - best.0 {
                    best = (s, k);
                }
                run_start = None;
            }
            _ => {}
        }
    }
    if best.1 == best.0 {
        return None;
    }
    let start = ((first_off + best.0) % n) as f32 / n as f32;
    let len = (best.1 - best.0) as f32 / n as f32;
    Some((start, start + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model of `../shared/assets/third_party/gltf/` with its rig
    /// inferred.
    fn third_party(m: &str) -> Character {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/assets/third_party/gltf");
        model::load_character_inferred(&root.join(m)).unwrap()
    }

    /// CesiumMan's toes bend about the crease of his skin, 3.9 cm behind
    /// his toe joint on the sole; the knight's, Kenney's and Mannequiny's
    /// skins crease at their toe joints (or not at all), and their toes
    /// bend about the joint.
    #[test]
    fn toes_bend_about_a_crease_only_where_the_skin_has_one_behind_the_joint() {
        let c = third_party("CesiumMan/CesiumMan.glb");
        let mut rest = vec![Mat4::IDENTITY; c.skeleton.len()];
        local_to_model(&c.skeleton, c.skeleton.rest_locals(), &mut rest);
        let fwd = c.rig.forward;
        for i in 0..2 {
            let pivot = c.toe_pivot[i].expect("CesiumMan's crease");
            let ankle = rest[c.legs[i].end];
            let (toe, _) = c.toe_tips[i].unwrap();
            let joint = (rest[toe].w_axis - ankle.w_axis).truncate().dot(fwd);
            let crease = (ankle.transform_point3(pivot) - ankle.w_axis.truncate()).dot(fwd);
            assert!(
                (0.03..0.05).contains(&(joint - crease)),
                "foot {i}: crease {crease} m, joint {joint} m along the foot"
            );
            // On the sole: as low as the foot's lowest vertex.
            let low = ankle.w_axis.y - c.rest_ankle_height[i];
            assert!((ankle.transform_point3(pivot).y - low).abs() < 1e-3);
        }
        assert_eq!(Character::knight().unwrap().toe_pivot, [None, None]);
        for m in [
            "KenneyCharacterMedium/characterMedium.glb",
            "Mannequiny/mannequiny.glb",
        ] {
            assert_eq!(third_party(m).toe_pivot, [None, None], "{m}");
        }
    }

    /// CesiumMan's own walk reaches each foot out 0.38 of a cycle after
    /// the knight's run he runs with, so his walk plays that far ahead; the
    /// knight's walk and run, and the retargeted pairs of the other rigs,
    /// are in step.
    #[test]
    fn a_walk_out_of_step_with_its_run_plays_ahead_by_the_difference() {
        let c = third_party("CesiumMan/CesiumMan.glb");
        let off = c.clip_set.walk_phase_offset;
        assert!((0.36..0.40).contains(&off), "{off}");
        assert_eq!(Character::knight().unwrap().clip_set.walk_phase_offset, 0.0);
        for m in [
            "KenneyCharacterMedium/characterMedium.glb",
            "Mannequiny/mannequiny.glb",
            "RiggedFigure/RiggedFigure.glb",
        ] {
            assert_eq!(third_party(m).clip_set.walk_phase_offset, 0.0, "{m}");
        }
    }

    #[test]
    fn knight_assembles_with_contact_curves_and_grips() {
        let c = Character::knight().unwrap();
        let walk = c.clip_set.walk.index;
        for leg in &c.legs {
            let duty = leg.contact[walk].duty();
            assert!((0.45..0.75).contains(&duty), "walk duty {duty}");
            let g = leg.grip.expect("feet stand on rungs");
            assert!(g.end > g.start && g.end - g.start < 0.8);
        }
        assert_eq!(c.arms.len(), 2);
        for arm in &c.arms {
            let g = arm.grip.expect("hands grip rungs");
            assert!((0.3..0.7).contains(&(g.end - g.start)), "{g:?}");
        }
        // Left and right alternate: their grip centres are half a cycle apart.
        let d =
            (c.arms[0].grip.unwrap().center() - c.arms[1].grip.unwrap().center()).rem_euclid(1.0);
        assert!((d - 0.5).abs() < 0.1, "{d}");
        for s in c.sole_local {
            assert!(s.is_finite());
        }
        // His boots' treads reach 6.5 cm behind the ankles and 22 cm
        // ahead (to the toe caps).
        for [back, ahead] in c.sole_reach {
            assert!((back - 0.065).abs() < 0.01, "{back}");
            assert!((ahead - 0.22).abs() < 0.01, "{ahead}");
        }
        assert!((c.leg_length[0] - 0.88).abs() < 0.05, "{}", c.leg_length[0]);
    }

    #[test]
    fn a_planted_ankle_stands_as_high_as_over_its_feet_lowest_vertex() {
        // Mannequiny's soles reach 4.5 mm below his model's origin at rest:
        // his planted ankle height is measured from them (his rest ankle's
        // height alone had every planted foot 4.5 mm in the floor), and his
        // inferred foot height agrees with it.
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/assets/third_party/gltf/Mannequiny/mannequiny.glb");
        let c = model::load_character_inferred(&path).unwrap();
        let mut rest = vec![Mat4::IDENTITY; c.skeleton.len()];
        local_to_model(&c.skeleton, c.skeleton.rest_locals(), &mut rest);
        for i in 0..2 {
            let ankle = rest[c.legs[i].end].w_axis.y;
            let below = c.rest_ankle_height[i] - ankle;
            assert!((below - 0.0045).abs() < 0.0005, "foot {i}: {below}");
            assert!((c.rest_ankle_height[i] - c.rig.foot_height).abs() < 0.001);
        }
    }

    #[test]
    fn a_soles_profile_follows_its_underside_from_heel_to_ball() {
        // The knight's own boots and Kenney's shoes (rig inferred): each
        // stretch's point lies between the heel and the ball along the
        // model's forward axis, in order, on the underside (no lower than
        // the foot's lowest vertex, and within SOLE_BAND of it: a sole, not
        // an instep). The knight's low-poly boot has its tread's vertices
        // only at the heel and the toe cap (the faces between them span
        // the stretches); Kenney's shoe has its sole under every stretch
        // but one.
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/assets/third_party/gltf/KenneyCharacterMedium/characterMedium.glb");
        for (c, least) in [
            (Character::knight().unwrap(), 2),
            (
                model::load_character_inferred(&path).unwrap(),
                SOLE_PROFILE_POINTS - 1,
            ),
        ] {
            let mut rest = vec![Mat4::IDENTITY; c.skeleton.len()];
            local_to_model(&c.skeleton, c.skeleton.rest_locals(), &mut rest);
            let forward = Vec3::new(c.rig.forward.x, 0.0, c.rig.forward.z).normalize_or_zero();
            for i in 0..2 {
                let m = rest[c.legs[i].end];
                let ankle = m.w_axis.truncate();
                let lowest = ankle.y - c.rest_ankle_height[i];
                let [heel, ball] =
                    c.sole_points[i].map(|p| (m.transform_point3(p) - ankle).dot(forward));
                let points: Vec<Vec3> = c.sole_profile[i]
                    .iter()
                    .filter(|q| q.is_finite())
                    .map(|q| m.transform_point3(*q))
                    .collect();
                assert!(points.len() >= least, "foot {i}: {points:?}");
                let mut last = f32::NEG_INFINITY;
                for p in points {
                    let along = (p - ankle).dot(forward);
                    assert!(
                        along >= heel - 1e-4 && along <= ball + 1e-4,
                        "foot {i}: {along}"
                    );
                    assert!(along > last, "foot {i}: out of order");
                    last = along;
                    assert!(
                        p.y >= lowest - 1e-4 && p.y <= lowest + SOLE_BAND + 1e-4,
                        "foot {i}: {p} over {lowest}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_rig_naming_a_missing_clip_is_an_error_naming_it() {
        let k = knight::Knight::generate(knight::clips::DEFAULT_RUNG_SPACING).unwrap();
        let text = KNIGHT_RIG.replace("climb: \"climb\"", "climb: \"ladder\"");
        let rig = RigFile::parse(&text, "x.rig.ron").unwrap();
        let err = Character::new("x.glb", k.skeleton, k.clips, &rig, "x.rig.ron").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("x.rig.ron") && msg.contains("'ladder'"),
            "{msg}"
        );
    }

    #[test]
    fn contact_window_handles_wrapping_runs() {
        let mut w = [0.0f32; CONTACT_SAMPLES];
        for (i, v) in w.iter_mut().enumerate() {
            if !(10..54).contains(&i) {
                *v = 1.0;
            }
        }
        let curve = ContactCurve::from_samples(w);
        let (s, e) = longest_contact_window(&curve).unwrap();
        assert!((s - 54.0 / 64.0).abs() < 1e-6, "{s}");
        assert!((e - s - 20.0 / 64.0).abs() < 1e-6, "{e}");
    }
}
