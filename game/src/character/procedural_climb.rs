//! The procedural climb cycle: a ladder climb generated at load time for a
//! model that has no climb clip of its own (a rig file's
//! `procedural_climb: true`), so that it climbs with its hands and feet on
//! the rungs as the knight does with its authored clip.
//!
//! The result is an ordinary [`Clip`] (densely keyed LINEAR tracks, like the
//! knight's baked clips and the glTF importer's), appended to the
//! character's clips under [`NAME`]; the contact analysis, the grips and the
//! ladder IK then treat it like any authored climb.
//!
//! The cycle is built like the knight's (`knight::clips`), in place, on a
//! lattice of rungs `climb_cycle_distance / 2` apart that lie
//! `climb_rung_distance` in front of the root along the rig's forward axis:
//!
//! - each hand and foot grips its highest hold for half the cycle, moving
//!   down one rung spacing at the climbing speed (`climb_cycle_distance`
//!   per [`DURATION`]), which is how a hold that stands still in the world
//!   moves in a clip played in place; then it reaches back up to that hold
//!   over the other half, easing in and out and drawn back from the rungs
//!   on the way;
//! - diagonal limbs move together: the left hand and the right foot reach in
//!   the first half of the cycle, the right hand and the left foot in the
//!   second;
//! - the body faces the rungs (the model's forward), its upper body leaning
//!   toward them by [`LEAN`], its pelvis tucked under by [`TUCK`] (the spine
//!   turned back up by as much), bobbing by [`BOB`] twice per cycle;
//! - the holds come from the limbs' lengths in the rest pose (see
//!   [`layout`]): every hold, moved up or down by [`RUNG_MARGIN`] (the ladder
//!   IK moves a hold onto the nearest real rung, wherever the cycle's phase
//!   puts it), stays within [`REACH_MAX`] of the limb's length from its
//!   start joint; within that, the feet stand as low and the hands grip as
//!   high as they can, and the hands' highest hold lies a whole number of
//!   rung spacings above the feet's where both bands allow, so that hands
//!   and feet hold rungs of one ladder. A small model whose limbs cannot
//!   cover the margin gets it shrunk evenly (CesiumMan's legs fold high at
//!   the top of the cycle: his feet come up to his hips);
//! - each hand grips [`HAND_OUT`] outside its shoulder, each foot under its
//!   hip;
//! - at each of [`KEYS`] keys the pelvis is placed and each limb is solved
//!   by the animation crate's two-bone IK toward its target, pointing its
//!   knee or elbow toward a pole (knees up toward the rungs, elbows down,
//!   back and out) and turning it about the rig's hinge axis for that limb,
//!   as the pose pipeline's ladder IK does: a knee or elbow that is not a
//!   pure hinge (`knee_pure_hinge` or `elbow_pure_hinge` false) is bent
//!   unhinged, as there. A foot and a
//!   hand follow their shin and forearm.
//!
//! Rungs the model's limbs cannot reach (the rungs too far in front for the
//! legs, holds out of the arms' reach) are an error naming the rig file and
//! what to change, never a clip whose hands miss the rungs.

use animation::ik::{HingeLimit, KneeStrategy, Pole, TwoBoneChain, TwoBoneOptions};
use animation::{Clip, Interpolation, Pose, Skeleton, Track, local_to_model};
use glam::{Mat4, Quat, Vec3};

use crate::character::pose_pipeline::HINGE_RANGE;
use crate::character::rig::{Rig, RigError};

/// The generated clip's name.
pub const NAME: &str = "procedural climb";
/// One cycle, seconds: the knight's climb cycle. The climb phase follows
/// the distance climbed, so this sets only the clip's own (model-space)
/// climbing speed, which the contact analysis compares a gripping limb's
/// motion against.
pub const DURATION: f32 = 1.2;
/// Keys per cycle: 40 per second, as the knight's baked clips, which keeps
/// the chord error of a gripping hand between keys far below the contact
/// analysis's still speed.
pub const KEYS: usize = 48;
/// The farthest a limb's end may be from its start joint, as a fraction of
/// the limb's length, at any hold the ladder IK may move it to: a limb
/// solved straight has no bend direction, and its twist flips (measured on
/// CesiumMan: a hip turned 1.5 rad in one frame as its foot was pulled
/// through full extension).
pub const REACH_MAX: f32 = 0.95;
/// How far the ladder IK may move a hold up or down, metres: onto the
/// nearest real rung, at most half the widest rung spacing a level may use
/// (`knight::clips::RUNG_SPACING_RANGE`, fixed ladders' 25–36 cm). Every
/// hold of the cycle is kept within reach that far either way where the
/// limbs are long enough.
pub const RUNG_MARGIN: f32 = 0.5 * crate::knight::clips::RUNG_SPACING_RANGE.1;
/// How far a reaching hand is drawn back from the rungs at the middle of its
/// reach, as a fraction of `climb_rung_distance`, so that it clears the
/// rungs it passes: less than the knight's 0.4 (0.12 m for rungs 0.3 m in
/// front), since every centimetre of the arc is joint speed for a small
/// model (CesiumMan's hips turned 23 rad/s at 0.4, at most 20 at 0.25 on
/// the 0.30 m rungs).
pub const REACH_BACK: f32 = 0.25;
/// How far a reaching foot swings out sideways at the middle of its reach,
/// as a fraction of the rung spacing (4.5 cm for 0.3 m rungs), around the
/// rungs it passes. Not drawn back nor lifted as the knight's are: for a
/// small model whose feet come up to its hips, either brought a rising foot
/// so near the hip that a correction onto a higher rung folded the knee
/// almost shut, where its direction turns fast (CesiumMan: a hip at 64 rad/s
/// climbing down the tower).
pub const FOOT_SWING: f32 = 0.15;
/// How far a hand's hold lies outside its shoulder, metres: the hands grip
/// wider than the shoulders, where a player watching from behind sees them
/// on the rungs beside the head and shoulders rather than hidden behind
/// them.
pub const HAND_OUT: f32 = 0.08;
/// The pelvis's lean toward the rungs, radians (about 5°, as the knight's
/// spine leans).
pub const LEAN: f32 = 0.08;
/// How far the pelvis turns back from the rungs (and the spine forward
/// again, so the upper body keeps its lean), radians: a climber's pelvis
/// tucks under as the knees come up. Without it a small model's thigh, whose
/// foot stands as high as its hip at the top of the cycle, turned nearly half
/// a turn from its walk (CesiumMan: 2.9 rad), and blending walk and climb
/// through such a turn flips the hip's path midway (190 rad/s in one frame).
pub const TUCK: f32 = 0.6;
/// The pelvis's bob, metres, twice per cycle (once per pull; the knight's
/// is 1 cm).
pub const BOB: f32 = 0.01;
/// The most a solved limb's end may miss its hold while gripping, metres:
/// more means the hold is out of reach, which [`generate`] reports instead
/// of baking a clip whose hands miss the rungs.
const REACH_TOLERANCE: f32 = 1e-4;

/// The direction a climbing arm's elbow is bent toward (model space), from
/// the model's up and forward axes and the arm's outward side: down, back
/// and out, under the arm raised to the rungs. The ledge IK bends a hanging
/// arm the same way (`ledge_ik`), so the hang and the climb over the top
/// keep the elbows where the climb clip has them.
pub fn elbow_pole(up: Vec3, forward: Vec3, out: Vec3) -> Vec3 {
    -up - forward * 0.4 + out * 0.9
}

/// Phase at which each limb starts its reach: left hand and right foot in
/// the first half, right hand and left foot in the second.
const HAND_MOVE: [f32; 2] = [0.0, 0.5];
/// See [`HAND_MOVE`].
const FOOT_MOVE: [f32; 2] = [0.5, 0.0];

/// The height of a limb's hold (model space) at cycle phase `p` for a limb
/// whose highest hold is `top` and whose reach starts at `move_start`, with
/// how far the reach has bowed out, `sin²(π w)` at its progress `w` (zero
/// with zero speed at both ends, one in the middle); `None` in place of the
/// arc while the limb grips.
pub fn hold_height(top: f32, spacing: f32, p: f32, move_start: f32) -> (f32, Option<f32>) {
    let q = (p - move_start).rem_euclid(1.0);
    if q < 0.5 {
        let w = q / 0.5;
        let ease = w * w * (3.0 - 2.0 * w);
        (
            top - spacing + spacing * ease,
            Some((std::f32::consts::PI * w).sin().powi(2)),
        )
    } else {
        (top - 2.0 * spacing * (q - 0.5), None)
    }
}

/// Where the generated cycle's limbs hold, in model space: what the clip is
/// built on, and what the tests check it against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClimbLayout {
    /// The rung spacing, metres (half the cycle distance).
    pub spacing: f32,
    /// Height of the highest rung a foot stands on.
    pub foot_top: f32,
    /// Height of the highest rung a hand grips (a whole number of spacings
    /// above `foot_top`).
    pub hand_top: f32,
    /// Each foot's and hand's distance to the left of the model's centre
    /// (left, right).
    pub foot_side: [f32; 2],
    /// See [`ClimbLayout::foot_side`].
    pub hand_side: [f32; 2],
}

/// The model's axes: up, forward (horizontal, unit) and left.
fn axes(rig: &Rig) -> (Vec3, Vec3, Vec3) {
    let up = Vec3::Y;
    let f = Vec3::new(rig.forward.x, 0.0, rig.forward.z).normalize_or(Vec3::X);
    (up, f, up.cross(f))
}

/// The rest pose with the pelvis placed for phase `p`: leaning toward the
/// rungs and bobbing.
fn place_pelvis(skeleton: &Skeleton, rig: &Rig, rest_models: &[Mat4], p: f32, pose: &mut Pose) {
    let (up, _, left) = axes(rig);
    pose.locals.copy_from_slice(skeleton.rest_locals());
    let j = rig.pelvis;
    let (scale, rot, pos) = rest_models[j].to_scale_rotation_translation();
    let bob = BOB * (2.0 * std::f32::consts::TAU * p).sin();
    let pelvis_rot = Quat::from_axis_angle(left, LEAN - TUCK) * rot;
    let model = Mat4::from_scale_rotation_translation(scale, pelvis_rot, pos + up * bob);
    let local = match skeleton.parent(j) {
        Some(parent) => rest_models[parent].inverse() * model,
        None => model,
    };
    let (_, r, t) = local.to_scale_rotation_translation();
    pose.locals[j].rotation = r.normalize();
    pose.locals[j].translation = t;
    // The upper body turns back by the tuck: it leans by LEAN alone.
    let lean = Quat::from_axis_angle(left, LEAN);
    for c in upper_body(skeleton, rig) {
        let (_, rc, _) = rest_models[c].to_scale_rotation_translation();
        pose.locals[c].rotation = (pelvis_rot.inverse() * lean * rc).normalize();
    }
}

/// The pelvis's children that carry no leg (the spine): they keep the upper
/// body's lean when the pelvis tucks.
fn upper_body<'a>(skeleton: &'a Skeleton, rig: &'a Rig) -> impl Iterator<Item = usize> + 'a {
    (0..skeleton.len()).filter(move |&c| {
        skeleton.parent(c) == Some(rig.pelvis)
            && !rig
                .legs
                .iter()
                .any(|l| l.hip == c || skeleton.is_descendant_of(l.hip, c))
    })
}

fn invalid(file: &str, reason: String) -> RigError {
    RigError::Invalid {
        file: file.to_string(),
        reason,
    }
}

/// The heights (relative to the start joint, up) a limb's end can reach at
/// a horizontal distance `across` from it, as `±band`: within
/// [`REACH_MAX`] of its length `length`, so it never straightens.
fn reach_band(across: f32, length: f32) -> f32 {
    let r = REACH_MAX * length;
    (r * r - across * across).max(0.0).sqrt()
}

/// Works out where the limbs hold (see the module docs); `file` labels
/// errors.
pub fn layout(skeleton: &Skeleton, rig: &Rig, file: &str) -> Result<ClimbLayout, RigError> {
    let (up, f, left) = axes(rig);
    let spacing = 0.5 * rig.file.climb_cycle_distance;
    let d = rig.file.climb_rung_distance;
    if rig.arms.len() != 2 || rig.legs.len() != 2 || spacing <= 0.0 || d <= 0.0 {
        return Err(invalid(
            file,
            "procedural_climb needs two legs, two arms, a positive climb_cycle_distance and a positive climb_rung_distance".to_string(),
        ));
    }
    let mut pose = Pose {
        locals: skeleton.rest_locals().to_vec(),
    };
    let mut rest = vec![Mat4::IDENTITY; skeleton.len()];
    local_to_model(skeleton, skeleton.rest_locals(), &mut rest);
    let mut models = rest.clone();
    place_pelvis(skeleton, rig, &rest, 0.0, &mut pose);
    local_to_model(skeleton, &pose.locals, &mut models);
    let p = |j: usize| models[j].w_axis.truncate();
    let length = |a: usize, b: usize, c: usize| (p(b) - p(a)).length() + (p(c) - p(b)).length();
    // The horizontal distance from `from` to a hold `side` to the left and
    // `offset` from a rung on the rung plane.
    let across = |from: Vec3, side: f32, offset: Vec3| {
        let to = f * d + left * side + offset;
        let h = to - from;
        (h - up * h.dot(up)).length()
    };
    let foot_side = [0, 1].map(|i| p(rig.legs[i].hip).dot(left));
    let hand_side = [0, 1].map(|i| {
        let s = p(rig.arms[i].shoulder).dot(left);
        s + HAND_OUT * s.signum()
    });
    // Each group's band of rung heights (model space) its highest hold may
    // take: both limbs reach every hold of the cycle moved by up to the
    // margin either way (the ladder IK's correction onto the nearest real
    // rung), or, where the limbs cannot cover that, the margin shrunk
    // evenly.
    let band = |limbs: [(Vec3, f32, f32); 2], offset: Vec3, what: &str| {
        let (mut lo, mut hi) = (f32::NEG_INFINITY, f32::INFINITY);
        for (start, side, len) in limbs {
            let h = across(start, side, offset);
            let v = reach_band(h, len);
            let base = start.dot(up) - offset.dot(up);
            lo = lo.max(base - v);
            hi = hi.min(base + v);
        }
        // The holds span one spacing below the top.
        let room = hi - lo - spacing;
        if room < 0.0 {
            return Err(invalid(
                file,
                format!(
                    "procedural_climb: the {what} cannot reach holds {spacing} m apart (half of climb_cycle_distance) on rungs climb_rung_distance {d} m in front: bring the rungs closer or shorten the cycle"
                ),
            ));
        }
        let margin = RUNG_MARGIN.min(0.5 * room);
        Ok((lo + margin + spacing, hi - margin))
    };
    let legs = [0, 1].map(|i| {
        let l = &rig.legs[i];
        (p(l.hip), foot_side[i], length(l.hip, l.knee, l.ankle))
    });
    let arms = [0, 1].map(|i| {
        let a = &rig.arms[i];
        (
            p(a.shoulder),
            hand_side[i],
            length(a.shoulder, a.elbow, a.wrist),
        )
    });
    let (foot_lo, foot_hi) = band(legs, rig.ankle_from_rung, "legs")?;
    let (hand_lo, hand_hi) = band(arms, rig.wrist_from_rung, "arms")?;
    // Feet as low and hands as high as they go (the body hangs between
    // them, the knees least folded), then both moved within their bands
    // onto one lattice of rungs where the bands allow it.
    let (mut foot_top, mut hand_top) = (foot_lo, hand_hi);
    let n = ((hand_top - foot_top) / spacing).round();
    let mut best = f32::INFINITY;
    for n in [n, n - 1.0, n + 1.0] {
        // Feet at `y`, hands at `y + n·spacing`: both in their bands.
        let (lo, hi) = (
            foot_lo.max(hand_lo - n * spacing),
            foot_hi.min(hand_hi - n * spacing),
        );
        if n < 1.0 || lo > hi {
            continue;
        }
        // The lattice nearest the preferred holds.
        let y = (0.5 * (foot_lo + hand_hi - n * spacing)).clamp(lo, hi);
        let cost = (y - foot_lo).abs() + (y + n * spacing - hand_hi).abs();
        if cost < best {
            best = cost;
            (foot_top, hand_top) = (y, y + n * spacing);
        }
    }
    Ok(ClimbLayout {
        spacing,
        foot_top,
        hand_top,
        foot_side,
        hand_side,
    })
}

/// Generates the climb cycle for `rig` on `skeleton` (see the module docs);
/// `file` (the rig file) labels errors.
pub fn generate(skeleton: &Skeleton, rig: &Rig, file: &str) -> Result<Clip, RigError> {
    let l = layout(skeleton, rig, file)?;
    let (up, f, left) = axes(rig);
    let d = rig.file.climb_rung_distance;
    let n = skeleton.len();
    let mut rest = vec![Mat4::IDENTITY; n];
    local_to_model(skeleton, skeleton.rest_locals(), &mut rest);

    // The chains, with their hinge axes, poles, offsets and phases.
    struct Chain {
        chain: TwoBoneChain,
        hinge: Option<HingeLimit>,
        pole: Vec3,
        top: f32,
        side: f32,
        offset: Vec3,
        move_start: f32,
        /// Where the reach's arc takes the limb, at its middle.
        arc: Vec3,
        end_rotation: Option<Quat>,
        what: &'static str,
    }
    let chain = |a: usize, b: usize, c: usize| {
        TwoBoneChain::new(skeleton, a, b, c).map_err(|e| invalid(file, e.to_string()))
    };
    let mut chains = Vec::with_capacity(4);
    for (i, leg) in rig.legs.iter().enumerate() {
        let out = left * l.foot_side[i].signum();
        chains.push(Chain {
            chain: chain(leg.hip, leg.knee, leg.ankle)?,
            // Solved like the ladder IK solves it: a knee that is not a pure
            // hinge is bent toward its pole unhinged.
            hinge: rig
                .knee_pure_hinge
                .then(|| HingeLimit::new(leg.knee_hinge_axis, HINGE_RANGE.0, HINGE_RANGE.1)),
            pole: f + up + out * 0.15,
            top: l.foot_top,
            side: l.foot_side[i],
            offset: rig.ankle_from_rung,
            move_start: FOOT_MOVE[i],
            arc: out * FOOT_SWING * l.spacing,
            end_rotation: None,
            what: ["left foot", "right foot"][i],
        });
    }
    for (i, arm) in rig.arms.iter().enumerate() {
        let out = left * l.hand_side[i].signum();
        chains.push(Chain {
            chain: chain(arm.shoulder, arm.elbow, arm.wrist)?,
            hinge: rig
                .elbow_pure_hinge
                .then(|| HingeLimit::new(arm.elbow_hinge_axis, HINGE_RANGE.0, HINGE_RANGE.1)),
            pole: elbow_pole(up, f, out),
            top: l.hand_top,
            side: l.hand_side[i],
            offset: rig.wrist_from_rung,
            move_start: HAND_MOVE[i],
            arc: -f * REACH_BACK * d,
            end_rotation: None,
            what: ["left hand", "right hand"][i],
        });
    }

    // The animated joints: the pelvis and each chain's three.
    let mut animated = vec![rig.pelvis];
    animated.extend(upper_body(skeleton, rig));
    for c in &chains {
        let (a, b, e) = c.chain.joints();
        for j in [a, b, e] {
            if !animated.contains(&j) {
                animated.push(j);
            }
        }
    }
    let mut pose = Pose {
        locals: skeleton.rest_locals().to_vec(),
    };
    let mut models = rest.clone();
    let mut times = Vec::with_capacity(KEYS + 1);
    let mut pelvis = Vec::with_capacity(KEYS + 1);
    let mut rotations: Vec<Vec<Quat>> = vec![Vec::with_capacity(KEYS + 1); animated.len()];
    for k in 0..=KEYS {
        // The last key repeats the first, so the loop closes exactly.
        let phase = if k == KEYS {
            0.0
        } else {
            k as f32 / KEYS as f32
        };
        place_pelvis(skeleton, rig, &rest, phase, &mut pose);
        local_to_model(skeleton, &pose.locals, &mut models);
        for c in &chains {
            let (y, reach) = hold_height(c.top, l.spacing, phase, c.move_start);
            let arc = reach.unwrap_or(0.0);
            let target = f * d + left * c.side + up * y + c.arc * arc + c.offset;
            let opts = TwoBoneOptions {
                knee: KneeStrategy::Pole {
                    pole: Pole::Direction(c.pole),
                    twist: 0.0,
                },
                hinge: c.hinge,
                end_rotation: c.end_rotation.map(|r| (r, 1.0)),
                ..TwoBoneOptions::new(target)
            };
            let solved = c
                .chain
                .solve(&opts, skeleton, &mut pose, &mut models)
                .map_err(|e| invalid(file, format!("procedural_climb: {}: {e}", c.what)))?;
            // A hold must be reached exactly; a reaching limb may fall a
            // little short on its way (folded up past its hinge's range,
            // drawing back from the rungs).
            if reach.is_none() && solved.residual > REACH_TOLERANCE {
                return Err(invalid(
                    file,
                    format!(
                        "procedural_climb: the {} misses its hold by {:.3} m at phase {phase:.2}: the rungs are out of its reach (climb_rung_distance, climb_cycle_distance)",
                        c.what, solved.residual
                    ),
                ));
            }
        }
        times.push(k as f32 / KEYS as f32 * DURATION);
        pelvis.push(pose.locals[rig.pelvis].translation);
        for (track, &j) in rotations.iter_mut().zip(&animated) {
            let mut q = pose.locals[j].rotation;
            // Each key on the hemisphere of the one before, so that
            // interpolation takes the short way.
            if track.last().is_some_and(|prev: &Quat| prev.dot(q) < 0.0) {
                q = -q;
            }
            track.push(q);
        }
    }
    let linear = |joint: usize| (joint as u16, Interpolation::Linear, times.clone());
    let (joint, interpolation, key_times) = linear(rig.pelvis);
    let translations = vec![Track {
        joint,
        interpolation,
        times: key_times,
        values: pelvis,
    }];
    let rotations = animated
        .iter()
        .zip(rotations)
        .map(|(&j, values)| {
            let (joint, interpolation, times) = linear(j);
            Track {
                joint,
                interpolation,
                times,
                values,
            }
        })
        .collect();
    Ok(Clip {
        name: NAME.to_string(),
        duration: DURATION,
        translations,
        rotations,
        scales: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::character::rig::RigFile;
    use crate::character::{Character, KNIGHT_RIG};
    use crate::knight;
    use animation::{Wrap, sample_at};

    /// The knight's rig asking for a procedural climb instead of its own
    /// clip, with its rungs `rung_distance` metres in front.
    fn procedural_rig(rung_distance: &str) -> RigFile {
        let text = KNIGHT_RIG
            .replace(", climb: \"climb\"", "")
            .replace(
                "climb_cycle_distance:",
                "procedural_climb: true, climb_cycle_distance:",
            )
            .replace(
                "climb_rung_distance: 0.300",
                &format!("climb_rung_distance: {rung_distance}"),
            );
        RigFile::parse(&text, "p.rig.ron").unwrap()
    }

    fn knight_with(rig: &RigFile) -> Result<Character, crate::character::CharacterError> {
        let k = knight::Knight::generate(knight::clips::DEFAULT_RUNG_SPACING).unwrap();
        Character::new("k.glb", k.skeleton, k.clips, rig, "p.rig.ron")
    }

    #[test]
    fn hold_height_grips_for_half_a_cycle_then_reaches_back_up() {
        let (top, s) = (1.0, 0.3);
        // Gripping (the second half after the reach starts): down one
        // spacing at a constant rate, no arc.
        for k in 0..10 {
            let p = 0.5 + 0.05 * k as f32;
            let (y, arc) = hold_height(top, s, p, 0.0);
            assert!(arc.is_none());
            assert!((y - (top - 2.0 * s * (p - 0.5))).abs() < 1e-6, "{p}: {y}");
        }
        // Reaching: from the lowest hold back to the top, continuous at both
        // ends, the arc zero there.
        let (y0, a0) = hold_height(top, s, 0.0, 0.0);
        let (y1, a1) = hold_height(top, s, 0.4999, 0.0);
        assert!((y0 - (top - s)).abs() < 1e-6 && (y1 - top).abs() < 1e-3);
        assert!(a0.unwrap() < 1e-6 && a1.unwrap() < 1e-3);
        let (_, mid) = hold_height(top, s, 0.25, 0.0);
        assert!((mid.unwrap() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn the_generated_climb_holds_each_rung_still_for_its_grip_and_alternates_limbs() {
        let rig = procedural_rig("0.3");
        let c = knight_with(&rig).unwrap();
        let climb = c.clip_set.climb;
        assert_eq!(climb.index, c.clips.len() - 1);
        let clip = &c.clips[climb.index];
        assert_eq!(clip.name, NAME);
        let l = layout(&c.skeleton, &c.rig, "p.rig.ron").unwrap();
        // Hands and feet hold rungs of one lattice.
        let rungs = (l.hand_top - l.foot_top) / l.spacing;
        assert!(
            (rungs - rungs.round()).abs() < 1e-4 && rungs >= 1.0,
            "{l:?}"
        );

        let (up, f, _) = axes(&c.rig);
        let limbs: Vec<(&crate::character::Limb, Vec3)> = c
            .legs
            .iter()
            .map(|leg| (leg, c.rig.ankle_from_rung))
            .chain(c.arms.iter().map(|arm| (arm, c.rig.wrist_from_rung)))
            .collect();
        let mut centres = Vec::new();
        for (i, (limb, offset)) in limbs.iter().enumerate() {
            let g = limb
                .grip
                .unwrap_or_else(|| panic!("limb {i} grips no rung"));
            // About half the cycle (the contact analysis's edges blur a sample
            // or two).
            assert!((0.4..0.6).contains(&(g.end - g.start)), "limb {i}: {g:?}");
            centres.push(g.center());
            // Through the grip (away from its blurred edges) the limb's end
            // stands still in the world, on a rung of the lattice, at the
            // rung plane's depth.
            let mut world = Vec::new();
            for k in 1..10 {
                let phase = g.start + (g.end - g.start) * (0.1 + 0.8 * k as f32 / 10.0);
                let mut locals = c.skeleton.rest_locals().to_vec();
                sample_at(
                    clip,
                    phase.rem_euclid(1.0) * climb.duration,
                    Wrap::Loop,
                    &mut locals,
                );
                let mut models = vec![Mat4::IDENTITY; c.skeleton.len()];
                local_to_model(&c.skeleton, &locals, &mut models);
                let end = models[limb.end].w_axis.truncate();
                let depth = (end - *offset).dot(f);
                assert!(
                    (depth - c.rig.file.climb_rung_distance).abs() < 1e-3,
                    "limb {i}: depth {depth}"
                );
                // Model space moves down at the climbing speed: add it back.
                world.push((end - *offset).dot(up) + phase * climb.cycle_distance);
            }
            let (lo, hi) = world
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), y| {
                    (a.min(*y), b.max(*y))
                });
            assert!(hi - lo < 2e-3, "limb {i} slides {} m on its rung", hi - lo);
            let off_lattice = ((world[0] - l.foot_top) / l.spacing).fract().abs();
            assert!(
                off_lattice.min(1.0 - off_lattice) * l.spacing < 2e-3,
                "limb {i} off the rungs by {off_lattice} spacings"
            );
        }
        let apart = |a: f32, b: f32| {
            let d = (a - b).rem_euclid(1.0);
            d.min(1.0 - d)
        };
        // Legs and arms each alternate; the left hand moves with the right
        // foot, the right hand with the left foot.
        assert!(apart(centres[0], centres[1]) > 0.45, "{centres:?}");
        assert!(apart(centres[2], centres[3]) > 0.45, "{centres:?}");
        assert!(apart(centres[2], centres[1]) < 0.05, "{centres:?}");
        assert!(apart(centres[3], centres[0]) < 0.05, "{centres:?}");
    }

    #[test]
    fn rungs_out_of_reach_are_an_error_naming_the_rig_file() {
        let rig = procedural_rig("1.5");
        let err = knight_with(&rig).unwrap_err().to_string();
        assert!(
            err.starts_with("p.rig.ron: procedural_climb: ") && err.contains("climb_rung_distance"),
            "{err}"
        );
    }
}
