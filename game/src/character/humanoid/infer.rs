//! Builds a rig file from a model alone: the joints by shape, checked against
//! names (or taken from a VRM extension), the axes and the scale from the
//! rest pose, and the clips' roles and cycle distances by name and
//! measurement; with one line per decision for `ironstep rig`.

use animation::gltf_import::ImportedModel;
use animation::{Clip, Skeleton, local_to_model};
use glam::{Mat4, Vec3};
use thiserror::Error;

use super::names::{self, Bone, Side};
use super::normalize::{self, Similarity};
use super::retarget;
use super::roles::{self, Gait, Role};
use super::shape::{Body, Legs, UP_CANDIDATES};
use super::vrm::VrmBones;
use crate::character::rig::{ArmNames, ClipNames, LegNames, RigFile};

/// The standing height a model is scaled to when its own is outside
/// [`KEEP_HEIGHT`], metres: an adult's, so that the levels' ladders, steps
/// and jumps (built for the 1.8 m knight) keep their meaning.
pub const STANDING_HEIGHT: f32 = 1.8;
/// Standing heights kept as they are, metres: from a child's to a tall
/// adult's. Outside it a model is in other units (centimetres, or Kenney's
/// 3.77-unit characters) and is scaled to [`STANDING_HEIGHT`].
pub const KEEP_HEIGHT: (f32, f32) = (1.0, 2.4);
/// The smallest bend a clip must give a knee or elbow for the hinge axis to
/// be measured from it rather than from the rest pose, degrees.
pub const MEASURED_BEND_DEG: f32 = 15.0;
/// The largest change over the locomotion clip of a thigh's (upper arm's)
/// lean along the knee's (elbow's) hinge axis, as the cosine between them,
/// for the joint to count as a pure hinge (CesiumMan's knees change by 0.04
/// and 0.09 and are not; a clean rig's change by under 0.01).
pub const PURE_HINGE_LEAN: f32 = 0.03;

/// Why a model is not a humanoid: one line naming what is missing.
#[derive(Debug, Error)]
#[error("{file}: not a humanoid: {reason}")]
pub struct NotHumanoid {
    /// The model file.
    pub file: String,
    /// What is missing.
    pub reason: String,
}

/// A rig inferred from a model.
#[derive(Clone, Debug)]
pub struct Inferred {
    /// The rig file.
    pub rig: RigFile,
    /// Which skin it maps.
    pub skin: usize,
    /// One line per decision.
    pub decisions: Vec<String>,
    /// What may be wrong.
    pub warnings: Vec<String>,
}

/// Infers a rig for `model`; `vrm` are its VRM humanoid bones, if any. The
/// first skin with a mesh that maps wins.
pub fn infer(model: &ImportedModel, vrm: Option<&VrmBones>) -> Result<Inferred, NotHumanoid> {
    let err = |reason: String| NotHumanoid {
        file: model.source.clone(),
        reason,
    };
    let mut skins: Vec<usize> = model.meshes.iter().map(|m| m.skin).collect();
    skins.dedup();
    skins.retain(|&s| model.skins[s].gltf_skin.is_some());
    if skins.is_empty() {
        return Err(err(
            "no skinned mesh (a humanoid needs a skin to pose)".to_string()
        ));
    }
    let mut first_err = None;
    for &s in &skins {
        match infer_skin(model, s, vrm) {
            Ok(i) => return Ok(i),
            Err(reason) => {
                first_err.get_or_insert(reason);
            }
        }
    }
    Err(err(first_err.unwrap_or_default()))
}

/// A limb chosen from a chain.
struct Limb {
    joints: [usize; 3],
    extra: Option<usize>,
}

fn fmt_v(v: Vec3) -> String {
    format!("({:.2}, {:.2}, {:.2})", v.x, v.y, v.z)
}

fn axis_name(v: Vec3) -> String {
    for (a, n) in [
        (Vec3::X, "+X"),
        (Vec3::NEG_X, "-X"),
        (Vec3::Y, "+Y"),
        (Vec3::NEG_Y, "-Y"),
        (Vec3::Z, "+Z"),
        (Vec3::NEG_Z, "-Z"),
    ] {
        if v.dot(a) > 0.999 {
            return n.to_string();
        }
    }
    fmt_v(v)
}

/// `v` snapped to the nearest axis when within 10° of it.
fn snap(v: Vec3) -> Vec3 {
    let v = v.normalize_or(Vec3::Z);
    UP_CANDIDATES
        .iter()
        .copied()
        .find(|a| v.dot(*a) > 10f32.to_radians().cos())
        .unwrap_or(v)
}

/// `x` rounded to a multiple of `step` (a power of ten), as the `f32`
/// nearest that decimal, so that it prints short.
fn round(x: f32, step: f32) -> f32 {
    let per = (1.0 / f64::from(step)).round();
    let y = ((f64::from(x) * per).round() / per) as f32;
    if y == 0.0 { 0.0 } else { y }
}

fn round_v(v: Vec3, step: f32) -> (f32, f32, f32) {
    (round(v.x, step), round(v.y, step), round(v.z, step))
}

fn infer_skin(model: &ImportedModel, s: usize, vrm: Option<&VrmBones>) -> Result<Inferred, String> {
    let skin = &model.skins[s];
    let skel = &skin.skeleton;
    let name = |j: usize| skel.name(j).to_string();
    let meshes: Vec<_> = model
        .meshes
        .iter()
        .filter(|m| m.skin == s)
        .map(|m| (&m.positions[..], &m.joints[..], &m.weights[..]))
        .collect();
    let body = Body::new(skel, &meshes);
    let mut decisions = Vec::new();
    let mut warnings = Vec::new();

    // VRM bones, as joints of this skin.
    let vrm_joint = |bone: &str| -> Option<usize> {
        let node = *vrm?.get(bone)?;
        skin.joint_nodes.iter().position(|&n| n == node)
    };
    let vrm_legs = ["left", "right"].map(|side| {
        let j = |b: &str| vrm_joint(&format!("{side}{b}"));
        Some((j("UpperLeg")?, j("LowerLeg")?, j("Foot")?, j("Toes")))
    });
    let vrm_arms = ["left", "right"].map(|side| {
        let j = |b: &str| vrm_joint(&format!("{side}{b}"));
        Some([j("UpperArm")?, j("LowerArm")?, j("Hand")?])
    });
    let vrm_hips = vrm_joint("hips");
    let use_vrm = vrm_hips.is_some() && vrm_legs.iter().all(Option::is_some);

    // Legs by shape (this also finds up, the floor and the height).
    let shape_legs = body.legs();
    let legs: Legs = match (&shape_legs, use_vrm) {
        (Some(l), _) => l.clone(),
        (None, true) => {
            let (floor, top) = body.extent(Vec3::Y);
            let [Some(a), Some(b)] = vrm_legs else {
                unreachable!("checked above")
            };
            warnings.push(
                "the shape shows no legs; the VRM extension's are used as they are".to_string(),
            );
            Legs {
                pelvis: vrm_hips.expect("checked above"),
                chains: [vec![a.0, a.1, a.2], vec![b.0, b.1, b.2]],
                up: Vec3::Y,
                floor,
                height: top - floor,
            }
        }
        (None, false) => {
            return Err(if body.vertices.is_empty() {
                "no skinned vertices to stand on (a humanoid needs a skinned mesh)".to_string()
            } else {
                "no two mirror-image leg chains of at least three joints under one joint (tried up = +Y, +Z, -Y, -Z, +X, -X)".to_string()
            });
        }
    };
    let up = legs.up;
    decisions.push(format!(
        "up axis {}: the legs stand along it; standing height {:.3} model units",
        axis_name(up),
        legs.height
    ));

    // Shape's pick in each leg chain.
    let pick = |chain: &[usize]| {
        let i = body.limb_start(chain);
        Limb {
            joints: [chain[i], chain[i + 1], chain[i + 2]],
            extra: chain.get(i + 3).copied(),
        }
    };
    let mut leg_limbs = legs.chains.clone().map(|c| pick(&c));
    let mut pelvis = legs.pelvis;

    // Forward: toes point forward; else the foot's vertices lie in front of
    // the ankle.
    let flat = |v: Vec3| v - up * v.dot(up);
    let mut fwd = Vec3::ZERO;
    for l in &leg_limbs {
        let ankle = l.joints[2];
        match l.extra {
            Some(t) => fwd += flat(body.pos(t) - body.pos(ankle)),
            None => {
                let foot: Vec<Vec3> = body
                    .vertices
                    .iter()
                    .filter(|(_, j)| *j == ankle || skel.is_descendant_of(*j, ankle))
                    .map(|(p, _)| flat(*p - body.pos(ankle)))
                    .collect();
                if !foot.is_empty() {
                    fwd += foot.iter().sum::<Vec3>() / foot.len() as f32;
                }
            }
        }
    }
    let (forward_raw, forward_why) = if fwd.length() > 0.01 * legs.height {
        (snap(fwd), "the feet point that way")
    } else {
        warnings.push(
            "the feet show no forward direction; +Z (glTF's convention) is assumed".to_string(),
        );
        (
            snap(flat(Vec3::Z)),
            "glTF's convention (the feet did not say)",
        )
    };
    let left = up.cross(forward_raw).normalize();

    // Sides by shape, names checked.
    let lateral = |j: usize| (body.pos(j) - body.pos(pelvis)).dot(left);
    if lateral(leg_limbs[0].joints[2]) < lateral(leg_limbs[1].joints[2]) {
        leg_limbs.swap(0, 1);
    }
    if use_vrm {
        let [Some(a), Some(b)] = vrm_legs else {
            unreachable!("checked above")
        };
        let vrm_pick = [a, b].map(|(h, k, f, t)| Limb {
            joints: [h, k, f],
            extra: t,
        });
        let hips = vrm_hips.expect("checked above");
        if vrm_pick
            .iter()
            .zip(&leg_limbs)
            .any(|(v, s)| v.joints != s.joints)
            || hips != pelvis
        {
            decisions.push(format!(
                "legs from the VRM humanBones extension (the shape alone would pick pelvis '{}', hips '{}' and '{}')",
                name(pelvis),
                name(leg_limbs[0].joints[0]),
                name(leg_limbs[1].joints[0])
            ));
        } else {
            decisions.push("legs from the VRM humanBones extension; the shape agrees".to_string());
        }
        leg_limbs = vrm_pick;
        pelvis = hips;
    }
    decisions.push(format!(
        "pelvis '{}': {}",
        name(pelvis),
        if use_vrm {
            "VRM hips".to_string()
        } else {
            name_check(
                skel,
                &[pelvis],
                &[Bone::Hips],
                None,
                "two mirror-image leg chains hang below it",
            )
        }
    ));
    for (i, side) in [Side::Left, Side::Right].into_iter().enumerate() {
        let l = &leg_limbs[i];
        let [h, k, a] = l.joints;
        let why = if use_vrm {
            "VRM humanBones".to_string()
        } else {
            name_check(
                skel,
                &[h, k, a],
                &[Bone::UpperLeg, Bone::LowerLeg, Bone::Foot],
                Some(side),
                "by shape: the two longest consecutive segments of the chain down to the floor",
            )
        };
        decisions.push(format!(
            "{} leg: hip '{}', knee '{}', ankle '{}', toe {} ({why})",
            side.word(),
            name(h),
            name(k),
            name(a),
            l.extra
                .map_or("none".to_string(), |t| format!("'{}'", name(t)))
        ));
    }

    // Arms.
    let arm_limbs: [Limb; 2] = if let [Some(a), Some(b)] = vrm_arms {
        decisions.push("arms from the VRM humanBones extension".to_string());
        [a, b].map(|j| Limb {
            joints: j,
            extra: None,
        })
    } else {
        let arms = body.arms(&legs, left).ok_or_else(|| {
            "no two mirror-image arm chains of at least three joints reaching sideways above the pelvis".to_string()
        })?;
        arms.chains.map(|c| pick(&c))
    };
    for (i, side) in [Side::Left, Side::Right].into_iter().enumerate() {
        let [sh, el, wr] = arm_limbs[i].joints;
        let why = if vrm_arms[i].is_some() {
            "VRM humanBones".to_string()
        } else {
            name_check(
                skel,
                &[sh, el, wr],
                &[Bone::UpperArm, Bone::LowerArm, Bone::Hand],
                Some(side),
                "by shape: the chain reaching furthest sideways, its two longest consecutive segments",
            )
        };
        decisions.push(format!(
            "{} arm: shoulder '{}', elbow '{}', wrist '{}' ({why})",
            side.word(),
            name(sh),
            name(el),
            name(wr)
        ));
    }

    // Scale.
    let scale = if (KEEP_HEIGHT.0..=KEEP_HEIGHT.1).contains(&legs.height) {
        decisions.push(format!(
            "scale 1: standing height {:.2} m is within {}-{} m",
            legs.height, KEEP_HEIGHT.0, KEEP_HEIGHT.1
        ));
        1.0
    } else {
        let s = STANDING_HEIGHT / legs.height;
        decisions.push(format!(
            "scale {s:.5}: standing height {:.3} units is outside {}-{} m, scaled to {STANDING_HEIGHT} m",
            legs.height, KEEP_HEIGHT.0, KEEP_HEIGHT.1
        ));
        s
    };
    let scale = round(scale, 1e-5);

    // Everything below is measured on the normalized (Y-up, scaled) model.
    let g = Similarity::new(up, scale);
    let nskel = normalize::skeleton(skel, &g).map_err(|e| e.to_string())?;
    let nclips: Vec<Clip> = skin.clips.iter().map(|c| normalize::clip(c, &g)).collect();
    let mut models = vec![Mat4::IDENTITY; nskel.len()];
    local_to_model(&nskel, nskel.rest_locals(), &mut models);
    let pos = |j: usize| models[j].w_axis.truncate();
    let legj = leg_limbs.each_ref().map(|l| l.joints);
    let armj = arm_limbs.each_ref().map(|l| l.joints);
    let leg_length = legj.map(|[h, k, a]| (pos(k) - pos(h)).length() + (pos(a) - pos(k)).length());
    let arm_length = armj.map(|[s, e, w]| (pos(e) - pos(s)).length() + (pos(w) - pos(e)).length());
    let mean_leg = 0.5 * (leg_length[0] + leg_length[1]);

    // Clip roles by name.
    let mut role_clip: [Option<(usize, String)>; 7] = Default::default();
    let mut best_words = [usize::MAX; 7];
    for (ci, c) in nclips.iter().enumerate() {
        if c.duration <= 1e-3 {
            continue;
        }
        if let Some((role, extra)) = roles::role_by_name(&c.name) {
            let r = role as usize;
            if extra < best_words[r] {
                best_words[r] = extra;
                role_clip[r] = Some((ci, "by name".to_string()));
            }
        }
    }
    // Gaits by measurement.
    let gait =
        |ci: usize| roles::measure_gait(&nskel, &nclips[ci], pelvis, legj.map(|l| l[2]), mean_leg);
    for (ci, c) in nclips.iter().enumerate() {
        if role_clip.iter().flatten().any(|(i, _)| *i == ci) || c.duration <= 1e-3 {
            continue;
        }
        let Some(gm) = gait(ci).filter(|g| g.alternating && g.speed > 0.2) else {
            continue;
        };
        let role = if gm.speed <= roles::WALK_MAX_SPEED {
            Role::Walk
        } else {
            Role::Run
        };
        if role_clip[role as usize].is_none() {
            role_clip[role as usize] = Some((
                ci,
                format!(
                    "by measurement: its feet take turns standing while the body moves {:.2} m/s over them",
                    gm.speed
                ),
            ));
        }
    }
    // Forward: where the model's own walk moves it, else where its feet
    // point.
    let own_gait = role_clip[Role::Walk as usize]
        .as_ref()
        .or(role_clip[Role::Run as usize].as_ref())
        .and_then(|(ci, _)| {
            gait(*ci)
                .filter(|g| g.alternating && g.speed > 0.2)
                .map(|g| (*ci, g))
        });
    let forward = match own_gait {
        Some((ci, gm)) => {
            let f = snap(gm.forward);
            decisions.push(format!(
                "forward {}: the body moves that way over its standing feet in '{}'",
                axis_name(f),
                nclips[ci].name
            ));
            f
        }
        None => {
            let f = snap(g.rotation * forward_raw);
            decisions.push(format!("forward {}: {forward_why}", axis_name(f)));
            f
        }
    };

    // What the model lacks comes from the knight's clips, retargeted.
    let walk = role_clip[Role::Walk as usize].clone();
    let run = role_clip[Role::Run as usize].clone();
    let mut knight_wanted: Vec<&str> = Vec::new();
    let knight = |role: &str, wanted: &mut Vec<&'static str>, k: &'static str| {
        wanted.push(k);
        (
            usize::MAX,
            format!("no {role} clip: the knight's {k}, retargeted"),
        )
    };
    // One gait stands in for the other only within the speeds it plays at
    // with its rate and stride warped (see `stand_in_range`); otherwise the
    // knight's, retargeted.
    let speeds = crate::sim::player::MoveParams::default();
    let ratio = |ci: usize, speed: f32| gait(ci).map(|g| speed / g.speed);
    let longest = |ci: usize| {
        gait(ci).map_or(1.0, |g| {
            crate::character::anim_state::longest_stride_scale(mean_leg, g.cycle_distance)
        })
    };
    let (walk, run) = match (walk, run) {
        (Some(w), Some(r)) => (w, r),
        (Some(w), None) => match (ratio(w.0, speeds.run_speed), stand_in_range(longest(w.0))) {
            (Some(k), (_, hi)) if k <= hi => {
                let why = format!("no run clip: the walk, played {k:.2} times over");
                let r = (w.0, why);
                (w, r)
            }
            (k, (_, hi)) => {
                let (ci, why) = knight("run", &mut knight_wanted, "run");
                let why = format!(
                    "{why} (the walk would play {:.2} times over, more than {hi:.2})",
                    k.unwrap_or(f32::INFINITY)
                );
                (w, (ci, why))
            }
        },
        (None, Some(r)) => match (ratio(r.0, speeds.walk_speed), stand_in_range(longest(r.0))) {
            (Some(k), (lo, _)) if k >= lo => {
                let why = format!("no walk clip: the run, played {k:.2} times over");
                let w = (r.0, why);
                (w, r)
            }
            (k, (lo, _)) => {
                let (ci, why) = knight("walk", &mut knight_wanted, "walk");
                let why = format!(
                    "{why} (the run would play {:.2} times over, less than {lo:.2})",
                    k.unwrap_or(0.0)
                );
                ((ci, why), r)
            }
        },
        (None, None) => (
            knight("walk", &mut knight_wanted, "walk"),
            knight("run", &mut knight_wanted, "run"),
        ),
    };
    // A gait of the model's own that turns a joint faster than the joint
    // speed limit at the rate it would play at is not shown as it is
    // authored: the knight's, retargeted, plays instead (see
    // `too_fast_to_show`). A walk standing in for the run is judged at
    // each pace.
    let too_fast = |ci: usize, speed: f32| {
        if ci == usize::MAX {
            return None;
        }
        let rate = ratio(ci, speed).map_or(1.0, |k| played_rate(k, longest(ci)));
        too_fast_to_show(&nskel, &nclips[ci], true, rate)
    };
    let walk_fast = too_fast(walk.0, speeds.walk_speed);
    let run_fast = too_fast(run.0, speeds.run_speed);
    let walk = match walk_fast {
        Some(fast) => {
            let (ci, _) = knight("walk", &mut knight_wanted, "walk");
            let own = &nclips[walk.0].name;
            (ci, format!("the knight's walk, retargeted: '{own}' {fast}"))
        }
        None => walk,
    };
    let run = match run_fast {
        Some(fast) => {
            let (ci, _) = knight("run", &mut knight_wanted, "run");
            let own = &nclips[run.0].name;
            (ci, format!("the knight's run, retargeted: '{own}' {fast}"))
        }
        None => run,
    };
    let own_walk = walk.0 != usize::MAX;
    let idle = match role_clip[Role::Idle as usize].clone() {
        Some(i) => Some(i),
        None if own_walk => None,
        None => Some(knight("idle", &mut knight_wanted, "idle")),
    };
    // A jump or fall of the model's own too fast to show (see
    // `too_fast_to_show`, played once at its own rate) gives way to the
    // knight's too.
    let own_fast = |ci: usize| too_fast_to_show(&nskel, &nclips[ci], false, 1.0);
    let mut other = |role: Role, k: &'static str| match role_clip[role as usize].clone() {
        Some((ci, why)) => match own_fast(ci) {
            Some(fast) => {
                let (ki, _) = knight(k, &mut knight_wanted, k);
                let own = &nclips[ci].name;
                (
                    ki,
                    format!("the knight's {k}, retargeted: '{own}' ({why}) {fast}"),
                )
            }
            None => (ci, why),
        },
        None => knight(k, &mut knight_wanted, k),
    };
    let jump = other(Role::Jump, "jump");
    let fall = other(Role::Fall, "fall");
    // No land clip: a model with clips of its own lands into its idle (the
    // knight's land, retargeted onto CesiumMan, raised his planted-foot
    // error on `long` from 1.5 to 4.9 mm and the joint speed limit's share
    // of frames); one without lands as the knight does.
    // A land clip too fast to show counts as none.
    let land_fast = role_clip[Role::Land as usize]
        .as_ref()
        .and_then(|(ci, _)| own_fast(*ci).map(|fast| format!("'{}' {fast}", nclips[*ci].name)));
    let land = match (&role_clip[Role::Land as usize], own_walk) {
        (Some(_), true) if land_fast.is_some() => (
            usize::MAX - 1,
            format!(
                "the idle (a landing settles into standing): {}",
                land_fast.clone().unwrap_or_default()
            ),
        ),
        (Some(_), false) if land_fast.is_some() => {
            let (ki, _) = knight("land", &mut knight_wanted, "land");
            let fast = land_fast.clone().unwrap_or_default();
            (ki, format!("the knight's land, retargeted: {fast}"))
        }
        (Some(l), _) => l.clone(),
        (None, true) => (
            usize::MAX - 1,
            "no land clip: the idle (a landing settles into standing)".to_string(),
        ),
        (None, false) => other(Role::Land, "land"),
    };
    let mut nclips = nclips;
    let mut knight_index = std::collections::HashMap::new();
    if !knight_wanted.is_empty() {
        let mapping = retarget::Mapping {
            pelvis,
            legs: [0, 1].map(|i| (legj[i], leg_limbs[i].extra)),
            arms: armj,
            forward,
        };
        let extra = retarget::knight_clips(&nskel, &mapping, &knight_wanted)
            .map_err(|e| format!("retargeting the knight's clips: {e}"))?;
        for (k, c) in knight_wanted.iter().zip(extra) {
            knight_index.insert(*k, nclips.len());
            nclips.push(c);
        }
    }
    // Resolve the knight placeholders: the clip a role takes from the knight
    // is named after the knight's clip (`knight walk`).
    let fix = |(ci, why): (usize, String), k: &str| {
        if ci == usize::MAX {
            (knight_index[k], why)
        } else {
            (ci, why)
        }
    };
    let walk = fix(walk, "walk");
    let run = fix(run, "run");
    let jump = fix(jump, "jump");
    let fall = fix(fall, "fall");
    let land = if land.0 == usize::MAX - 1 {
        land
    } else {
        fix(land, "land")
    };
    let idle = idle.map(|i| fix(i, "idle"));
    // The land placeholder for "the idle", resolved once the idle is known.
    let land_is_idle = land.0 == usize::MAX - 1;
    let gait =
        |ci: usize| roles::measure_gait(&nskel, &nclips[ci], pelvis, legj.map(|l| l[2]), mean_leg);
    let walk_gait = gait(walk.0);
    let run_gait = gait(run.0);
    let cycle = |g: &Option<Gait>, what: &str, warnings: &mut Vec<String>| match g {
        Some(g) if g.cycle_distance > 0.05 => round(g.cycle_distance, 0.01),
        _ => {
            warnings.push(format!(
                "the {what} clip covers no measurable ground; its cycle distance is set from the leg length"
            ));
            round(1.4 * mean_leg, 0.01)
        }
    };
    let walk_cycle = cycle(&walk_gait, "walk", &mut warnings);
    let run_cycle = if run.0 == walk.0 {
        walk_cycle
    } else {
        cycle(&run_gait, "run", &mut warnings)
    };
    let (idle, idle_time) = match idle {
        Some(i) => (i, None),
        None => {
            let t = walk_gait.map_or(0.0, |g| round(g.stand_time, 0.01));
            (
                (
                    walk.0,
                    format!("no idle clip: the walk held at {t:.2} s, where both feet are lowest"),
                ),
                Some(t),
            )
        }
    };
    let land = if land_is_idle { (idle.0, land.1) } else { land };
    let climb = role_clip[Role::Climb as usize].clone();
    for (role, (ci, why)) in [
        ("idle", &idle),
        ("walk", &walk),
        ("run", &run),
        ("jump", &jump),
        ("fall", &fall),
        ("land", &land),
    ] {
        decisions.push(format!("clip {role}: '{}' ({why})", nclips[*ci].name));
    }
    match &climb {
        Some((ci, why)) => decisions.push(format!("clip climb: '{}' ({why})", nclips[*ci].name)),
        None => decisions.push(
            "clip climb: none, so a procedural climb is generated from the rest pose".to_string(),
        ),
    }
    decisions.push(format!(
        "cycle distances: walk {walk_cycle:.2} m, run {run_cycle:.2} m (the body's travel over a standing foot per cycle)"
    ));

    // Hinge axes: measured where the walk bends the limb most, else from the
    // rest pose (knees flex about forward × shin, elbows about forearm ×
    // forward).
    let walk_models = roles::sample_models(&nskel, &nclips[walk.0], roles::GAIT_SAMPLES);
    let hinge = |[a, b, c]: [usize; 3], knee: bool| -> (Vec3, &'static str) {
        let p = |m: &[Mat4], j: usize| m[j].w_axis.truncate();
        let bend = |m: &[Mat4]| {
            let u = (p(m, b) - p(m, a)).normalize_or_zero();
            let l = (p(m, c) - p(m, b)).normalize_or_zero();
            u.dot(l).clamp(-1.0, 1.0).acos()
        };
        let most = walk_models
            .iter()
            .max_by(|x, y| bend(x).total_cmp(&bend(y)))
            .filter(|m| bend(m) > MEASURED_BEND_DEG.to_radians());
        let (m, axis, how) = match most {
            Some(m) => {
                let axis = (p(m, b) - p(m, a)).cross(p(m, c) - p(m, b));
                (m.as_slice(), axis, "measured where the walk bends it most")
            }
            None => {
                let d = pos(c) - pos(b);
                let axis = if knee {
                    forward.cross(d)
                } else {
                    d.cross(forward)
                };
                (models.as_slice(), axis, "from the rest pose")
            }
        };
        let (_, r, _) = m[b].to_scale_rotation_translation();
        ((r.inverse() * axis.normalize_or(Vec3::X)).normalize(), how)
    };
    let lean_range = |[a, b, _]: [usize; 3], axis: Vec3| {
        let (lo, hi) =
            walk_models
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), m| {
                    let (_, r, _) = m[b].to_scale_rotation_translation();
                    let l = (m[b].w_axis.truncate() - m[a].w_axis.truncate())
                        .normalize_or_zero()
                        .dot(r * axis);
                    (lo.min(l), hi.max(l))
                });
        hi - lo
    };
    let knees = legj.map(|l| hinge(l, true));
    let knee_axis = knees[0].0;
    let knee_leans = [0, 1].map(|i| lean_range(legj[i], knees[i].0));
    let knee_pure = knee_leans.iter().all(|&l| l <= PURE_HINGE_LEAN);
    decisions.push(format!(
        "knee hinge axes {} (left) and {} (right) in each knee's frame ({}); pure hinge: {knee_pure} (thigh lean along it changes by {:.3} and {:.3} in the walk, limit {PURE_HINGE_LEAN})",
        fmt_v(knees[0].0),
        fmt_v(knees[1].0),
        knees[0].1,
        knee_leans[0],
        knee_leans[1]
    ));
    let elbows = armj.map(|a| hinge(a, false));
    let elbow_leans = [0, 1].map(|i| lean_range(armj[i], elbows[i].0));
    let elbow_pure = elbow_leans.iter().all(|&l| l <= PURE_HINGE_LEAN);
    decisions.push(format!(
        "elbow hinge axes {} (left) and {} (right) in each elbow's frame ({}); pure hinge: {elbow_pure} (upper arm lean changes by {:.3} and {:.3})",
        fmt_v(elbows[0].0),
        fmt_v(elbows[1].0),
        elbows[0].1,
        elbow_leans[0],
        elbow_leans[1]
    ));

    // The foot: the ankle's height above the lowest vertex the foot moves,
    // at rest (where the game stands a planted ankle over the floor, see
    // `Character::attach_mesh`). Mannequiny's soles reach 4.5 mm below his
    // origin: taken from the origin's plane, the sole point the metrics
    // judge stood 4.5 mm off his foot.
    let sole = |ankle: usize| {
        body.vertices
            .iter()
            .filter(|(_, j)| *j == ankle || skel.is_descendant_of(*j, ankle))
            .map(|(p, _)| g.point(*p).y)
            .fold(f32::INFINITY, f32::min)
    };
    let foot_heights = legj.map(|l| pos(l[2]).y - sole(l[2]));
    let foot_height = if foot_heights.iter().all(|h| h.is_finite() && *h > 0.0) {
        round(0.5 * (foot_heights[0] + foot_heights[1]), 0.001)
    } else {
        warnings.push(
            "no vertices move with the feet; the ankle's height above the sole is set to a tenth of the leg"
                .to_string(),
        );
        round(0.1 * mean_leg, 0.001)
    };
    decisions.push(format!(
        "foot height {foot_height:.3} m: the ankles above the lowest vertices the feet move, at rest"
    ));
    let toe_reach = leg_limbs
        .iter()
        .filter_map(|l| l.extra.map(|t| (pos(t) - pos(l.joints[2])).length()))
        .fold(0.0f32, f32::max);
    let toe_reach = if toe_reach > 0.0 {
        toe_reach
    } else {
        0.15 * mean_leg
    };

    // The climb: a procedural one (unless a clip is named) on rungs in reach
    // of the arms (CesiumMan's hand-measured 0.25 m for his 0.43 m arms).
    let mean_arm = 0.5 * (arm_length[0] + arm_length[1]);
    let rung = round((0.58 * mean_arm).clamp(0.2, 0.35), 0.01);
    let (climb_name, procedural) = match &climb {
        Some((ci, _)) => (nclips[*ci].name.clone(), false),
        None => (String::new(), true),
    };
    if procedural {
        decisions.push(format!(
            "climb rungs {rung:.2} m in front (0.58 of the arms' {mean_arm:.2} m); wrists 3 cm above and behind the rung, ankles {:.3} m above it and {:.3} m behind (ankle to toe)",
            foot_height - 0.006,
            toe_reach
        ));
    }
    let file = RigFile {
        pelvis: name(pelvis),
        legs: leg_limbs
            .iter()
            .zip(&knees)
            .map(|(l, k)| LegNames {
                hip: name(l.joints[0]),
                knee: name(l.joints[1]),
                ankle: name(l.joints[2]),
                toe: l.extra.map(name),
                knee_hinge_axis: Some(round_v(k.0, 0.01)),
            })
            .collect(),
        arms: arm_limbs
            .iter()
            .zip(&elbows)
            .map(|(l, e)| ArmNames {
                shoulder: name(l.joints[0]),
                elbow: name(l.joints[1]),
                wrist: name(l.joints[2]),
                elbow_hinge_axis: Some(round_v(e.0, 0.01)),
            })
            .collect(),
        knee_hinge_axis: round_v(knee_axis, 0.01),
        elbow_hinge_axis: round_v(elbows[0].0, 0.01),
        knee_pure_hinge: knee_pure,
        elbow_pure_hinge: elbow_pure,
        foot_height,
        clips: ClipNames {
            idle: nclips[idle.0].name.clone(),
            walk: nclips[walk.0].name.clone(),
            run: nclips[run.0].name.clone(),
            jump: nclips[jump.0].name.clone(),
            fall: nclips[fall.0].name.clone(),
            land: nclips[land.0].name.clone(),
            climb: climb_name,
            // Ledges: the climb clip serves (no model brings hang clips
            // the inference could tell apart).
            hang: String::new(),
            climb_up: String::new(),
        },
        idle_time,
        walk_cycle_distance: walk_cycle,
        run_cycle_distance: run_cycle,
        climb_cycle_distance: 0.6,
        procedural_climb: procedural,
        forward: round_v(forward, 0.01),
        climb_rung_distance: if procedural { rung } else { 0.3 },
        wrist_from_rung: round_v(Vec3::Y * 0.03 - forward * 0.03, 0.001),
        ankle_from_rung: round_v(Vec3::Y * (foot_height - 0.006) - forward * toe_reach, 0.001),
        up: round_v(up, 0.01),
        scale,
    };
    Ok(Inferred {
        rig: file,
        skin: s,
        decisions,
        warnings,
    })
}

/// How names bear on joints picked by shape: "names agree", or what they
/// say instead (shape decides).
fn name_check(
    skel: &Skeleton,
    joints: &[usize],
    bones: &[Bone],
    side: Option<Side>,
    shape: &str,
) -> String {
    let mut agree = true;
    let mut said = false;
    let mut notes = Vec::new();
    for (&j, &b) in joints.iter().zip(bones) {
        let n = skel.name(j);
        let parts = names::parts(n);
        if let (Some(s), Some(ns)) = (side, parts.side)
            && s != ns
        {
            agree = false;
            notes.push(format!("'{n}' says {}", ns.word()));
        }
        // Numbered generic names (CesiumMan's `leg_joint_L_1`) say which
        // limb, not which joint of it.
        if parts.stem.ends_with("joint") {
            agree = false;
            continue;
        }
        match names::bone(n) {
            Some((nb, _)) => {
                said = true;
                if nb != b {
                    agree = false;
                    notes.push(format!("'{n}' reads as {nb:?}"));
                }
            }
            None => agree = false,
        }
    }
    if said && agree {
        format!("names and shape agree; {shape}")
    } else if notes.is_empty() {
        format!("{shape}; names say nothing")
    } else {
        format!(
            "{shape}; names disagree ({}), shape decides",
            notes.join(", ")
        )
    }
}

/// The most a stand-in gait's stride is shortened: a run played at walking
/// pace with strides under two thirds of its own reads as a shuffle.
const STAND_IN_SHORTEST_STRIDE: f32 = 2.0 / 3.0;

/// The rate a gait whose authored speed would have to play `k` times over
/// for the game's pace plays at, stride warping making up the rest (see
/// `anim_state::warp_gait`): no slower than `MIN_PLAYBACK_RATE`, no faster
/// than `MAX_PLAYBACK_RATE` unless its stride, lengthened `longest` times,
/// still falls short.
fn played_rate(k: f32, longest: f32) -> f32 {
    use crate::character::anim_state::{MAX_PLAYBACK_RATE, MIN_PLAYBACK_RATE};
    if k < MIN_PLAYBACK_RATE {
        MIN_PLAYBACK_RATE
    } else if k > MAX_PLAYBACK_RATE {
        (k / longest.max(1.0)).max(MAX_PLAYBACK_RATE)
    } else {
        k
    }
}

/// Why `clip` cannot be shown as authored at `rate` (1 for a clip played
/// once at its own pace), or `None` when it can: its fastest joint
/// ([`roles::peak_joint_speed`]) would turn faster than the joint speed
/// limit (`pose_pipeline::MAX_JOINT_SPEED`), which would then hold it back
/// on most of its frames. Kenney's run turns his knees at 31 rad/s as
/// authored (44 at the 1.40 times it plays at running pace), and
/// Mannequiny's jump his at 38: the limit acted on 13–24 % of their frames.
fn too_fast_to_show(skeleton: &Skeleton, clip: &Clip, looping: bool, rate: f32) -> Option<String> {
    use crate::character::pose_pipeline::MAX_JOINT_SPEED;
    let (shown, joint) = roles::peak_joint_speed(skeleton, clip, looping, rate);
    (shown > MAX_JOINT_SPEED).then(|| {
        format!(
            "turns '{}' at {shown:.1} rad/s played {rate:.2} times over, faster than the joint speed limit's {MAX_JOINT_SPEED} rad/s",
            skeleton.name(joint)
        )
    })
}

/// The speeds, as shares of its own authored speed, at which a model's one
/// gait stands in for the gait it lacks (its walk for running, its run for
/// walking), for a stride lengthened at most `longest` times (see
/// `anim_state::longest_stride_scale`): as slow as it plays with its
/// stride shortened to [`STAND_IN_SHORTEST_STRIDE`], as fast as it plays
/// with its stride at its longest (`anim_state::MIN_PLAYBACK_RATE` and
/// `MAX_PLAYBACK_RATE`). Outside it the gait would scurry or shuffle, and
/// the knight's gait, retargeted, plays instead (CesiumMan's walk would play
/// 4.04 times over at running pace).
fn stand_in_range(longest: f32) -> (f32, f32) {
    use crate::character::anim_state::{MAX_PLAYBACK_RATE, MIN_PLAYBACK_RATE};
    (
        MIN_PLAYBACK_RATE * STAND_IN_SHORTEST_STRIDE,
        MAX_PLAYBACK_RATE * longest,
    )
}
