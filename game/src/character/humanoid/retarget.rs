//! The knight's clips played on another humanoid: the library every mapped
//! model can draw on for the states it has no clip for.
//!
//! Both skeletons are Y-up (see `normalize`); the knight faces +X, the target
//! its rig's forward, and the turn `A` about +Y between the two is the frame
//! they share. Per mapped joint (pelvis, spine and chest, neck and head,
//! clavicles, the limbs' joints), the knight's change from its rest pose in
//! model space, `Δ = R_k(t)·R_k,rest⁻¹`, is carried over after the target's
//! rest pose is first brought to the knight's: its bone (the joint to its
//! mapped child) turned onto the knight's bone direction by `C`, so a T-pose
//! arm follows the knight's hanging arm. The target joint's model rotation is
//! `A·Δ·A⁻¹ · C · R_t,rest`, and its local rotation follows from its
//! parent's. Joints without a child to aim at take their parent's `C`. The
//! feet and toes take none (`C` = 1): a standing model's soles lie flat on
//! its floor at rest, so the knight's flat stance foot is a flat foot on any
//! model, however its ankle-to-toe bone points.
//! Unmapped joints (fingers, twist joints, controls) keep their rest local
//! transforms. The pelvis moves as the knight's does, turned by `A` and
//! scaled by the ratio of the legs' lengths.
//!
//! Foot and hand placement is left to IK, as for any clip: a retargeted
//! clip's feet land where the target's legs put them, and the pose pipeline
//! plants them.

use animation::{Clip, Interpolation, Skeleton, Track, Transform, Wrap, local_to_model, sample_at};
use glam::{Mat4, Quat, Vec3};

use super::names::{self, Bone};
use crate::character::rig::RigFile;
use crate::character::{CharacterError, KNIGHT_RIG};
use crate::knight;

/// Keys per second of a retargeted clip (densely keyed LINEAR tracks, like
/// the knight's baked clips).
pub const KEYS_PER_SECOND: f32 = 60.0;
/// The prefix of a retargeted clip's name: `knight walk` is the knight's
/// walk retargeted.
pub const PREFIX: &str = "knight ";

/// The joints of a target skeleton the knight's drive.
#[derive(Clone, Debug, PartialEq)]
pub struct Mapping {
    /// Pelvis.
    pub pelvis: usize,
    /// Left, right: hip, knee, ankle, and the toe when there is one.
    pub legs: [([usize; 3], Option<usize>); 2],
    /// Left, right: shoulder, elbow, wrist.
    pub arms: [[usize; 3]; 2],
    /// The target's forward axis (Y-up model space).
    pub forward: Vec3,
}

/// The knight's joint name for each target joint it drives, in an order
/// where parents come first.
fn pairs(target: &Skeleton, m: &Mapping) -> Vec<(&'static str, usize)> {
    let mut out = vec![("pelvis", m.pelvis)];
    // The spine: the path from the pelvis up to the joint the arms hang off.
    let base = common_ancestor(target, m.arms[0][0], m.arms[1][0]);
    let mut spine = Vec::new();
    if let Some(b) = base {
        let mut j = Some(b);
        while let Some(k) = j {
            if k == m.pelvis {
                break;
            }
            spine.push(k);
            j = target.parent(k);
        }
        if j.is_none() {
            spine.clear();
        }
        spine.reverse();
    }
    match spine.len() {
        0 => {}
        1 => out.push(("chest", spine[0])),
        n => {
            out.push(("spine", spine[0]));
            out.push(("chest", spine[n - 1]));
        }
    }
    if let Some(b) = base {
        for (bone, knight) in [(Bone::Neck, "neck"), (Bone::Head, "head")] {
            if let Some(j) = (b + 1..target.len()).find(|&j| {
                target.is_descendant_of(j, b)
                    && names::bone(target.name(j)).is_some_and(|(x, _)| x == bone)
            }) {
                out.push((knight, j));
            }
        }
    }
    for (i, side) in ["l", "r"].into_iter().enumerate() {
        let [s, e, w] = m.arms[i];
        if let Some(p) = target.parent(s)
            && Some(p) != base
            && base.is_some_and(|b| target.is_descendant_of(p, b))
        {
            out.push((
                if side == "l" {
                    "clavicle_l"
                } else {
                    "clavicle_r"
                },
                p,
            ));
        }
        let names = if side == "l" {
            ["upper_arm_l", "forearm_l", "hand_l"]
        } else {
            ["upper_arm_r", "forearm_r", "hand_r"]
        };
        out.extend(names.into_iter().zip([s, e, w]));
        let ([h, k, a], toe) = m.legs[i];
        let names = if side == "l" {
            ["thigh_l", "shin_l", "foot_l", "toe_l"]
        } else {
            ["thigh_r", "shin_r", "foot_r", "toe_r"]
        };
        out.extend(names.into_iter().zip([h, k, a]));
        if let Some(t) = toe {
            out.push((names[3], t));
        }
    }
    out.sort_by_key(|p| p.1);
    out.dedup_by_key(|p| p.1);
    out
}

fn common_ancestor(s: &Skeleton, a: usize, b: usize) -> Option<usize> {
    let mut j = s.parent(a);
    while let Some(k) = j {
        if s.is_descendant_of(b, k) {
            return Some(k);
        }
        j = s.parent(k);
    }
    None
}

fn models_of(s: &Skeleton, locals: &[Transform]) -> Vec<Mat4> {
    let mut m = vec![Mat4::IDENTITY; s.len()];
    local_to_model(s, locals, &mut m);
    m
}

fn rot(m: &Mat4) -> Quat {
    m.to_scale_rotation_translation().1.normalize()
}

/// The knight's clips `names` (its own clip names: `walk`, `run`, …)
/// retargeted onto `target`, each named [`PREFIX`] + its name.
pub fn knight_clips(
    target: &Skeleton,
    m: &Mapping,
    names: &[&str],
) -> Result<Vec<Clip>, CharacterError> {
    let k = knight::Knight::generate(knight::clips::DEFAULT_RUNG_SPACING)?;
    let krig =
        RigFile::parse(KNIGHT_RIG, knight::RIG_PATH)?.resolve(&k.skeleton, knight::RIG_PATH)?;
    let ks = &k.skeleton;
    let pairs: Vec<(usize, usize)> = pairs(target, m)
        .into_iter()
        .filter_map(|(kn, t)| ks.joint_index(kn).map(|kj| (kj, t)))
        .collect();
    let k_rest = models_of(ks, ks.rest_locals());
    let t_rest = models_of(target, target.rest_locals());
    let pos = |ms: &[Mat4], j: usize| ms[j].w_axis.truncate();
    let f = Vec3::new(m.forward.x, 0.0, m.forward.z).normalize_or(Vec3::Z);
    let a = Quat::from_rotation_y(-f.z.atan2(f.x));
    // Rest alignment per mapped joint: the target's bone turned onto the
    // knight's (in the shared frame), else the parent's.
    let mapped_t: Vec<Option<usize>> = (0..target.len())
        .map(|t| pairs.iter().find(|p| p.1 == t).map(|p| p.0))
        .collect();
    let mut align = vec![Quat::IDENTITY; target.len()];
    // The feet (and the toes, which take their alignment) are not turned:
    // a standing model's soles lie flat on its floor at rest as the
    // knight's do, whatever way its ankle-to-toe bone points. Turned onto
    // the knight's bone, RiggedFigure (whose toe joint lies lower under
    // the ankle) stood every stance of the knight's walk on his heel, toes
    // 42° up and the heel 3.4 cm into the floor.
    let feet = [krig.legs[0].ankle, krig.legs[1].ankle];
    for &(kj, tj) in &pairs {
        if feet.contains(&kj) {
            continue;
        }
        let child = pairs
            .iter()
            .filter(|&&(kc, tc)| {
                ks.parent(kc) == Some(kj) && target.is_descendant_of(tc, tj) && tc != tj
            })
            .min_by_key(|p| p.1);
        align[tj] = match child {
            Some(&(kc, tc)) if kj != krig.pelvis => {
                let dt = pos(&t_rest, tc) - pos(&t_rest, tj);
                let dk = a * (pos(&k_rest, kc) - pos(&k_rest, kj));
                if dt.length() > 1e-6 && dk.length() > 1e-6 {
                    Quat::from_rotation_arc(dt.normalize(), dk.normalize())
                } else {
                    Quat::IDENTITY
                }
            }
            _ => {
                // The nearest mapped ancestor's alignment.
                let mut p = target.parent(tj);
                let mut q = Quat::IDENTITY;
                while let Some(pj) = p {
                    if mapped_t[pj].is_some() {
                        q = align[pj];
                        break;
                    }
                    p = target.parent(pj);
                }
                q
            }
        };
    }
    let leg = |ms: &[Mat4], l: [usize; 3]| {
        (pos(ms, l[1]) - pos(ms, l[0])).length() + (pos(ms, l[2]) - pos(ms, l[1])).length()
    };
    let k_leg = 0.5
        * (leg(
            &k_rest,
            [krig.legs[0].hip, krig.legs[0].knee, krig.legs[0].ankle],
        ) + leg(
            &k_rest,
            [krig.legs[1].hip, krig.legs[1].knee, krig.legs[1].ankle],
        ));
    let t_leg = 0.5 * (leg(&t_rest, m.legs[0].0) + leg(&t_rest, m.legs[1].0));
    let ratio = t_leg / k_leg.max(1e-6);
    let kp = krig.pelvis;

    let mut out = Vec::new();
    for name in names {
        let clip = k.clips.iter().find(|c| c.name == *name).ok_or_else(|| {
            CharacterError::MissingClip {
                file: knight::RIG_PATH.to_string(),
                clip: name.to_string(),
                state: "retargeting",
                available: k
                    .clips
                    .iter()
                    .map(|c| c.name.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })?;
        let n = ((clip.duration * KEYS_PER_SECOND).ceil() as usize).max(1) + 1;
        let times: Vec<f32> = (0..n)
            .map(|i| clip.duration * i as f32 / (n - 1) as f32)
            .collect();
        let mut rot_keys: Vec<Vec<Quat>> = vec![Vec::with_capacity(n); pairs.len()];
        let mut pelvis_keys = Vec::with_capacity(n);
        for &t in &times {
            let mut kl = ks.rest_locals().to_vec();
            sample_at(clip, t, Wrap::Clamp, &mut kl);
            let km = models_of(ks, &kl);
            // Target model rotations, parents first.
            let mut tl = target.rest_locals().to_vec();
            let mut tm = t_rest.clone();
            let delta_p = a * (pos(&km, kp) - pos(&k_rest, kp)) * ratio;
            let pelvis_model = pos(&t_rest, m.pelvis) + delta_p;
            for j in 0..target.len() {
                let parent = target.parent(j).map_or(Mat4::IDENTITY, |p| tm[p]);
                if let Some(kj) = mapped_t[j] {
                    let delta = rot(&km[kj]) * rot(&k_rest[kj]).inverse();
                    let want = (a * delta * a.inverse() * align[j] * rot(&t_rest[j])).normalize();
                    let (_, pr, _) = parent.to_scale_rotation_translation();
                    tl[j].rotation = (pr.inverse() * want).normalize();
                    if j == m.pelvis {
                        tl[j].translation = parent.inverse().transform_point3(pelvis_model);
                    }
                }
                tm[j] = parent * tl[j].to_mat4();
            }
            for (i, &(_, tj)) in pairs.iter().enumerate() {
                rot_keys[i].push(tl[tj].rotation);
            }
            pelvis_keys.push(tl[m.pelvis].translation);
        }
        // Consecutive keys on one hemisphere, so LINEAR interpolation takes
        // the short way.
        for keys in &mut rot_keys {
            for i in 1..keys.len() {
                if keys[i].dot(keys[i - 1]) < 0.0 {
                    keys[i] = -keys[i];
                }
            }
        }
        out.push(Clip {
            name: format!("{PREFIX}{name}"),
            duration: clip.duration,
            translations: vec![Track {
                joint: m.pelvis as u16,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values: pelvis_keys,
            }],
            rotations: pairs
                .iter()
                .zip(rot_keys)
                .map(|(&(_, tj), values)| Track {
                    joint: tj as u16,
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    values,
                })
                .collect(),
            scales: Vec::new(),
        });
    }
    Ok(out)
}

/// The knight clips a rig names (`knight walk`, …) that `clips` lacks,
/// retargeted onto `target` by the rig's own mapping.
pub fn missing_knight_clips(
    target: &Skeleton,
    rig: &crate::character::rig::Rig,
    clips: &[Clip],
) -> Result<Vec<Clip>, CharacterError> {
    let c = &rig.file.clips;
    let mut wanted: Vec<&str> = Vec::new();
    for n in [
        &c.idle, &c.walk, &c.run, &c.jump, &c.fall, &c.land, &c.climb,
    ] {
        if let Some(k) = n.strip_prefix(PREFIX)
            && !clips.iter().any(|x| &x.name == n)
            && !wanted.contains(&k)
        {
            wanted.push(k);
        }
    }
    if wanted.is_empty() || rig.legs.len() != 2 || rig.arms.len() != 2 {
        return Ok(Vec::new());
    }
    let leg = |i: usize| {
        let l = &rig.legs[i];
        ([l.hip, l.knee, l.ankle], l.toe)
    };
    let arm = |i: usize| {
        let a = &rig.arms[i];
        [a.shoulder, a.elbow, a.wrist]
    };
    let m = Mapping {
        pelvis: rig.pelvis,
        legs: [leg(0), leg(1)],
        arms: [arm(0), arm(1)],
        forward: rig.forward,
    };
    knight_clips(target, &m, &wanted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::character::Character;

    /// The angle by which joint `j`'s model rotation in `clip` at `t`
    /// differs from its rest, radians.
    fn turned_from_rest(s: &Skeleton, clip: &Clip, t: f32, j: usize) -> f32 {
        let rest = models_of(s, s.rest_locals());
        let mut locals = s.rest_locals().to_vec();
        sample_at(clip, t, Wrap::Clamp, &mut locals);
        let models = models_of(s, &locals);
        (rot(&models[j]) * rot(&rest[j]).inverse())
            .normalize()
            .angle_between(Quat::IDENTITY)
    }

    #[test]
    fn a_retargeted_foot_turns_from_its_rest_as_the_knights_does() {
        // Every shared humanoid plays some of the knight's clips; at every
        // key of each, each foot is turned from its rest by the knight's
        // own angle, so the knight's flat stance foot is flat on it too.
        // (RiggedFigure's feet, turned onto the knight's ankle-to-toe
        // bones, stood every stance of the walk 0.74 rad off flat.)
        let knight = Character::knight().unwrap();
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/assets/third_party/gltf");
        let mut checked = 0;
        for model in [
            "RiggedFigure/RiggedFigure.glb",
            "Mannequiny/mannequiny.glb",
            "CesiumMan/CesiumMan.glb",
            "KenneyCharacterMedium/characterMedium.glb",
        ] {
            let c = crate::character::model::load_character_inferred(&dir.join(model)).unwrap();
            for clip in c.clips.iter().filter(|c| c.name.starts_with(PREFIX)) {
                let own = &clip.name[PREFIX.len()..];
                let kc = knight.clips.iter().find(|c| c.name == own).unwrap();
                for k in 0..=20 {
                    let t = clip.duration * k as f32 / 20.0;
                    for i in 0..2 {
                        let theirs = turned_from_rest(&c.skeleton, clip, t, c.legs[i].end);
                        let ours = turned_from_rest(&knight.skeleton, kc, t, knight.legs[i].end);
                        assert!(
                            (theirs - ours).abs() < 0.01,
                            "{model} {}: foot {i} at {t:.2} s turned {theirs:.3} rad from rest, the knight's {ours:.3}",
                            clip.name
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked >= 4 * 2 * 21, "{checked}");
    }
}
