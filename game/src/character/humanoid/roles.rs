//! Which clip plays which state: by name first (`idle`, `walk`, `run`,
//! `jump`, `fall`, `land`, `climb` and their usual spellings, with index
//! prefixes like `01_walk` and suffixes like `_root.001` or `-loop`), then by
//! measurement for clips whose names say nothing: a clip whose two feet take
//! turns standing while the body moves over them is a gait, a walk below
//! [`WALK_MAX_SPEED`] and a run above it.
//!
//! The gait measurement also gives what a rig needs from a locomotion clip:
//! the ground one cycle covers (the body's speed over a standing foot, times
//! the cycle's duration, averaged over both feet), the direction the body
//! moves (the model's forward), and the time where both feet are lowest (a
//! standing frame for a model with no idle clip).

use animation::{Clip, Skeleton, Wrap, local_to_model, sample_at};
use glam::{Mat4, Vec3};

use super::names::words;

/// The fastest a walk goes, metres per second; a faster gait is a run (a
/// brisk human walk is under 2 m/s, a jog over 2.5).
pub const WALK_MAX_SPEED: f32 = 2.2;
/// Samples taken over a clip when measuring it.
pub const GAIT_SAMPLES: usize = 200;
/// How close to its lowest an ankle counts as standing, as a share of the
/// leg's length (1 cm on CesiumMan's 0.49 m legs, as his rig file measured).
pub const STANCE_BAND: f32 = 0.02;

/// The states a clip can play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Standing.
    Idle,
    /// Walk cycle.
    Walk,
    /// Run cycle.
    Run,
    /// Jump take-off.
    Jump,
    /// Falling.
    Fall,
    /// Landing.
    Land,
    /// Ladder climb.
    Climb,
}

impl Role {
    /// Every role, in rig-file order.
    pub const ALL: [Role; 7] = [
        Role::Idle,
        Role::Walk,
        Role::Run,
        Role::Jump,
        Role::Fall,
        Role::Land,
        Role::Climb,
    ];

    /// The rig file's field name.
    pub fn field(self) -> &'static str {
        match self {
            Role::Idle => "idle",
            Role::Walk => "walk",
            Role::Run => "run",
            Role::Jump => "jump",
            Role::Fall => "fall",
            Role::Land => "land",
            Role::Climb => "climb",
        }
    }
}

/// Words of a clip name with numbers, `root`, `loop`, `anim` and the
/// armature namespace (`Armature|`) taken out, lower-cased.
pub fn clip_words(name: &str) -> Vec<String> {
    words(name)
        .into_iter()
        .map(|w| w.to_lowercase())
        .filter(|w| {
            !w.chars().all(|c| c.is_ascii_digit())
                && !matches!(
                    w.as_str(),
                    "root" | "loop" | "anim" | "animation" | "cycle" | "inplace"
                )
        })
        .collect()
}

/// The role a clip's name gives it, and how many other words the name has
/// (fewer is a better match: `idle` beats `fight_idle`).
pub fn role_by_name(name: &str) -> Option<(Role, usize)> {
    let ws = clip_words(name);
    let has = |w: &str| ws.iter().any(|x| x == w);
    let n = ws.len();
    let role = if has("climb") || has("climbing") || has("ladder") {
        Role::Climb
    } else if has("land") || has("landing") {
        Role::Land
    } else if has("fall") || has("falling") || (has("air") || has("jump")) && has("idle") {
        Role::Fall
    } else if has("jump") || has("takeoff") || has("jumping") {
        Role::Jump
    } else if has("run") || has("running") || has("sprint") || has("jog") {
        Role::Run
    } else if has("walk") || has("walking") {
        Role::Walk
    } else if has("idle") || has("stand") || has("standing") {
        Role::Idle
    } else {
        return None;
    };
    Some((role, n.saturating_sub(1)))
}

/// What a locomotion clip measures (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gait {
    /// Ground distance one cycle covers, metres (mean of the two feet).
    pub cycle_distance: f32,
    /// That distance per feet: left, right.
    pub per_foot: [f32; 2],
    /// Speed of the body over a standing foot, m/s.
    pub speed: f32,
    /// Horizontal unit direction the body moves over its feet.
    pub forward: Vec3,
    /// Seconds into the clip where both ankles are lowest.
    pub stand_time: f32,
    /// Whether the two feet take turns in the air (a gait, not a pose).
    pub alternating: bool,
}

/// Phases per game frame at which [`peak_joint_speed`] samples a clip: the
/// fastest turn between two of a clip's keys is seen whichever frame it
/// falls in.
pub const SPEED_PHASES: usize = 8;

/// The fastest any joint of `clip` turns relative to its parent as the game
/// shows it played `rate` times over, rad/s of game time, and that joint:
/// the angle between local rotations one game step (`sim::player::DT`)
/// apart, over the whole clip at [`SPEED_PHASES`] phases per step (the wrap
/// from the end back to the start included for a `looping` clip: a loop
/// whose ends differ turns there all at once). Joints the clip does not
/// animate keep their rest rotation and never count.
pub fn peak_joint_speed(
    skeleton: &Skeleton,
    clip: &Clip,
    looping: bool,
    rate: f32,
) -> (f32, usize) {
    let dt = crate::sim::player::DT;
    let step = rate * dt;
    if clip.duration <= 1e-3 || step.is_nan() || step <= 0.0 {
        return (0.0, 0);
    }
    let wrap = if looping { Wrap::Loop } else { Wrap::Clamp };
    let at = |t: f32| {
        let mut locals = skeleton.rest_locals().to_vec();
        sample_at(clip, t, wrap, &mut locals);
        locals
    };
    let h = step / SPEED_PHASES as f32;
    let n = ((clip.duration / h).ceil() as usize).max(1);
    let mut best = (0.0f32, 0usize);
    for i in 0..n {
        let t = i as f32 * h;
        let (a, b) = (at(t), at(t + step));
        for (j, (a, b)) in a.iter().zip(&b).enumerate() {
            let d = a.rotation.conjugate() * b.rotation;
            let speed = 2.0 * d.xyz().length().atan2(d.w.abs()) / dt;
            if speed > best.0 {
                best = (speed, j);
            }
        }
    }
    best
}

/// Model matrices of `skeleton` at `samples` times over `clip`.
pub fn sample_models(skeleton: &Skeleton, clip: &Clip, samples: usize) -> Vec<Vec<Mat4>> {
    let dt = clip.duration / samples as f32;
    (0..samples)
        .map(|i| {
            let mut locals = skeleton.rest_locals().to_vec();
            sample_at(clip, i as f32 * dt, Wrap::Loop, &mut locals);
            let mut m = vec![Mat4::IDENTITY; skeleton.len()];
            local_to_model(skeleton, &locals, &mut m);
            m
        })
        .collect()
}

/// Measures a clip as a gait of a Y-up skeleton with this pelvis, ankles and
/// leg length; `None` for a clip too short to be one.
pub fn measure_gait(
    skeleton: &Skeleton,
    clip: &Clip,
    pelvis: usize,
    ankles: [usize; 2],
    leg_length: f32,
) -> Option<Gait> {
    if clip.duration <= 1e-3 {
        return None;
    }
    let models = sample_models(skeleton, clip, GAIT_SAMPLES);
    let dt = clip.duration / GAIT_SAMPLES as f32;
    let pos = |m: &Mat4| m.w_axis.truncate();
    let band = STANCE_BAND * leg_length;
    let mut lifts = [Vec::new(), Vec::new()];
    let mut per_foot = [0.0; 2];
    let mut total = Vec3::ZERO;
    let mut alternating = true;
    for (side, &ankle) in ankles.iter().enumerate() {
        let ys: Vec<f32> = models.iter().map(|m| pos(&m[ankle]).y).collect();
        let min_y = ys.iter().copied().fold(f32::INFINITY, f32::min);
        let max_y = ys.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        lifts[side] = ys.iter().map(|y| y - min_y).collect::<Vec<f32>>();
        let mut v = Vec3::ZERO;
        let mut n = 0;
        for i in 0..GAIT_SAMPLES {
            let k = (i + 1) % GAIT_SAMPLES;
            if ys[i] < min_y + band && ys[k] < min_y + band {
                let foot = pos(&models[k][ankle]) - pos(&models[i][ankle]);
                let body = pos(&models[k][pelvis]) - pos(&models[i][pelvis]);
                v += (body - foot) / dt;
                n += 1;
            }
        }
        let v = v / n.max(1) as f32;
        let flat = Vec3::new(v.x, 0.0, v.z);
        per_foot[side] = flat.length() * clip.duration;
        total += flat;
        let stance = n as f32 / GAIT_SAMPLES as f32;
        alternating &= max_y - min_y > 3.0 * band && (0.05..0.95).contains(&stance);
    }
    let stand = (0..GAIT_SAMPLES)
        .min_by(|&a, &b| {
            lifts[0][a]
                .max(lifts[1][a])
                .total_cmp(&lifts[0][b].max(lifts[1][b]))
        })
        .unwrap_or(0);
    let cycle_distance = 0.5 * (per_foot[0] + per_foot[1]);
    Some(Gait {
        cycle_distance,
        per_foot,
        speed: cycle_distance / clip.duration,
        forward: total.normalize_or_zero(),
        stand_time: stand as f32 * dt,
        alternating: alternating && total.length() > 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_prefixes_and_suffixes_give_roles() {
        let cases = [
            ("00_idle", Role::Idle),
            ("01_walk", Role::Walk),
            ("02_run", Role::Run),
            ("06_jump", Role::Jump),
            ("idle_root.001", Role::Idle),
            ("run_root.001", Role::Run),
            ("air_jump_root.001", Role::Jump),
            ("air_land_root.001", Role::Land),
            ("Armature|Walk-loop", Role::Walk),
            ("jump_idle", Role::Fall),
            ("Falling", Role::Fall),
            ("Sprint", Role::Run),
            ("ladder_climb", Role::Climb),
            ("JumpStart", Role::Jump),
        ];
        for (name, role) in cases {
            assert_eq!(role_by_name(name).map(|r| r.0), Some(role), "{name}");
        }
        assert_eq!(role_by_name("0"), None);
        assert_eq!(role_by_name("03_attack"), None);
        // Fewer other words is a better match.
        assert!(role_by_name("idle").unwrap().1 < role_by_name("fight_idle").unwrap().1);
    }
}

#[cfg(test)]
mod speed_tests {
    use super::*;
    use animation::{Interpolation, JointDef, Track, Transform};
    use glam::Quat;

    /// A root and one child whose clip turns it 0.5 rad about Z over one
    /// second, evenly: 0.5 rad/s as authored.
    fn turning() -> (Skeleton, Clip) {
        let joint = |name: &str, parent| JointDef {
            name: name.into(),
            parent,
            rest: Transform::IDENTITY,
            inverse_bind: Mat4::IDENTITY,
        };
        let skeleton = Skeleton::new(vec![joint("root", None), joint("arm", Some(0))]).unwrap();
        let clip = Clip {
            name: "turn".into(),
            duration: 1.0,
            translations: Vec::new(),
            rotations: vec![Track {
                joint: 1,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 1.0],
                values: vec![Quat::IDENTITY, Quat::from_rotation_z(0.5)],
            }],
            scales: Vec::new(),
        };
        (skeleton, clip)
    }

    #[test]
    fn a_clips_fastest_joint_is_measured_as_the_game_shows_it() {
        let (skeleton, clip) = turning();
        // Played once, evenly: its own speed, times the rate.
        let (once, joint) = peak_joint_speed(&skeleton, &clip, false, 1.0);
        assert_eq!(joint, 1);
        assert!((once - 0.5).abs() < 1e-3, "{once}");
        let (twice, _) = peak_joint_speed(&skeleton, &clip, false, 2.0);
        assert!((twice - 1.0).abs() < 1e-3, "{twice}");
        // Looped, its ends 0.5 rad apart turn at once: 0.5 rad in one
        // 1/64 s step (32 rad/s), plus the motion of that step.
        let (looped, _) = peak_joint_speed(&skeleton, &clip, true, 1.0);
        assert!((looped - 32.0).abs() < 0.6, "{looped}");
        // An empty clip or no rate measures nothing.
        assert_eq!(peak_joint_speed(&skeleton, &clip, true, 0.0).0, 0.0);
    }
}
