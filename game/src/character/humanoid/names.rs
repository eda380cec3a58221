//! Joint names as the common conventions spell them, reduced to a role: which
//! humanoid bone a joint is (hips, thigh, shin, …) and on which side.
//!
//! A name is split into words at the separators `_ . : - |` and spaces, at
//! lower-to-upper case changes (`LeftUpLeg` → `Left Up Leg`) and between
//! letters and digits. Everything up to the last `:` or `|` is a namespace
//! (`mixamorig:`, `mixamorig1:`, `Armature|`) and is dropped. A word `l`,
//! `left`, `r` or `right` anywhere (prefix or suffix) is the side; the
//! remaining words, lower-cased and joined, are looked up in [`BONE_WORDS`].
//! Words that are only digits and a 3ds Max `bip01`-style prefix are left
//! out of the lookup, so `spine_01`, `Bip001 L Thigh` and `thigh.L` all
//! reduce to a bone.
//!
//! Names only suggest: the shape of the skeleton decides (see
//! `humanoid::shape`), and a VRM extension, where present, wins over both.

/// Which side of the body a joint is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The character's left.
    Left,
    /// The character's right.
    Right,
}

impl Side {
    /// Index into `[left, right]` arrays.
    pub fn index(self) -> usize {
        match self {
            Side::Left => 0,
            Side::Right => 1,
        }
    }

    /// "left" or "right".
    pub fn word(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
        }
    }
}

/// The humanoid bones a rig needs (and the torso ones that help find them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bone {
    /// The pelvis.
    Hips,
    /// A spine joint.
    Spine,
    /// The chest (upper spine).
    Chest,
    /// The neck.
    Neck,
    /// The head.
    Head,
    /// The clavicle.
    Shoulder,
    /// The upper arm (its joint is the shoulder).
    UpperArm,
    /// The forearm (its joint is the elbow).
    LowerArm,
    /// The hand (its joint is the wrist).
    Hand,
    /// The thigh (its joint is the hip).
    UpperLeg,
    /// The shin (its joint is the knee).
    LowerLeg,
    /// The foot (its joint is the ankle).
    Foot,
    /// The toes (its joint is the ball of the foot).
    Toes,
}

/// The joined words of a name (without side and digits) per bone, as Mixamo,
/// Unreal's mannequin, Blender/Rigify, 3ds Max Biped, Unity/VRM and generic
/// exporters spell them. Mixamo's traps are here on purpose: its `LeftLeg` is
/// the shin and its `LeftArm` the upper arm.
pub const BONE_WORDS: &[(&str, Bone)] = &[
    ("hips", Bone::Hips),
    ("hip", Bone::Hips),
    ("pelvis", Bone::Hips),
    ("spine", Bone::Spine),
    ("torso", Bone::Spine),
    ("chest", Bone::Chest),
    ("upperchest", Bone::Chest),
    ("neck", Bone::Neck),
    ("head", Bone::Head),
    ("shoulder", Bone::Shoulder),
    ("clavicle", Bone::Shoulder),
    ("collar", Bone::Shoulder),
    ("arm", Bone::UpperArm),
    ("upperarm", Bone::UpperArm),
    ("uparm", Bone::UpperArm),
    ("armupper", Bone::UpperArm),
    ("humerus", Bone::UpperArm),
    ("forearm", Bone::LowerArm),
    ("lowerarm", Bone::LowerArm),
    ("armlower", Bone::LowerArm),
    ("elbow", Bone::LowerArm),
    ("hand", Bone::Hand),
    ("wrist", Bone::Hand),
    ("upleg", Bone::UpperLeg),
    ("upperleg", Bone::UpperLeg),
    ("legupper", Bone::UpperLeg),
    ("thigh", Bone::UpperLeg),
    ("femur", Bone::UpperLeg),
    ("leg", Bone::LowerLeg),
    ("lowerleg", Bone::LowerLeg),
    ("leglower", Bone::LowerLeg),
    ("lowleg", Bone::LowerLeg),
    ("shin", Bone::LowerLeg),
    ("calf", Bone::LowerLeg),
    ("knee", Bone::LowerLeg),
    ("foot", Bone::Foot),
    ("ankle", Bone::Foot),
    ("toe", Bone::Toes),
    ("toes", Bone::Toes),
    ("toebase", Bone::Toes),
    ("ball", Bone::Toes),
];

/// Words that mark a helper or control joint: IK and pole targets, roll and
/// `Ctrl` controls, `_end` and `nub` leaves, twist and roll deformers. Such a
/// joint is never a limb joint (Kenney's rigs carry `LeftFootCtrl`,
/// `LeftHeelRoll`, `LeftFootIK`, `LeftKneeCtrl` and `*_end` in the skin).
pub const HELPER_WORDS: &[&str] = &[
    "ik",
    "pole",
    "target",
    "ctrl",
    "control",
    "controller",
    "roll",
    "end",
    "nub",
    "twist",
    "helper",
    "ctl",
    "tgt",
    "null",
    "locator",
    "mch",
    "org",
    "def",
];

/// A joint name split into the parts that matter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameParts {
    /// The side the name says, if any.
    pub side: Option<Side>,
    /// The lower-case words left after the namespace, the side and numbers
    /// are taken out, joined without separators.
    pub stem: String,
    /// Whether a word marks a helper or control joint ([`HELPER_WORDS`]).
    pub helper: bool,
}

/// Splits `name` into words (see the module documentation).
pub fn words(name: &str) -> Vec<String> {
    let name = name.rsplit([':', '|']).next().unwrap_or(name);
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        let sep = matches!(c, '_' | '.' | '-' | ' ' | '(' | ')' | '[' | ']');
        let boundary = match prev {
            _ if sep => true,
            Some(p) => {
                (p.is_lowercase() && c.is_uppercase()) || (p.is_ascii_digit() != c.is_ascii_digit())
            }
            None => false,
        };
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        if !sep {
            cur.push(c);
        }
        prev = if sep { None } else { Some(c) };
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Reduces a joint name to its side, stem and helper mark.
pub fn parts(name: &str) -> NameParts {
    let mut side = None;
    let mut helper = false;
    let mut stem = String::new();
    let ws = words(name);
    for (i, w) in ws.iter().enumerate() {
        let lw = w.to_lowercase();
        match lw.as_str() {
            "l" | "left" | "lft" => side = Some(Side::Left),
            "r" | "right" | "rgt" => side = Some(Side::Right),
            _ if lw.chars().all(|c| c.is_ascii_digit()) => {}
            // 3ds Max Biped's `Bip001`, `Bip01` (split at the digits).
            "bip" if i == 0 => {}
            // Blender's `DEF-`/`ORG-`/`MCH-` mark Rigify's layers; `DEF`
            // joints are the deforming ones, so only MCH/ORG are helpers.
            "def" => {}
            _ if HELPER_WORDS.contains(&lw.as_str()) => helper = true,
            _ => stem.push_str(&lw),
        }
    }
    // A fused side (`leftupperleg` written in one word).
    if side.is_none() {
        for (prefix, s) in [("left", Side::Left), ("right", Side::Right)] {
            if let Some(rest) = stem.strip_prefix(prefix).filter(|r| !r.is_empty()) {
                side = Some(s);
                stem = rest.to_string();
                break;
            }
        }
    }
    NameParts { side, stem, helper }
}

/// The bone a name stands for, with its side; `None` for names that say
/// nothing (CesiumMan's `leg_joint_L_1` says "leg" and "left" but not which
/// leg joint, so it is [`Bone::LowerLeg`] by words and the shape decides).
pub fn bone(name: &str) -> Option<(Bone, Option<Side>)> {
    let p = parts(name);
    if p.helper {
        return None;
    }
    let stem = p.stem.strip_suffix("joint").unwrap_or(&p.stem);
    let stem = stem.strip_prefix("skeleton").unwrap_or(stem);
    let b = BONE_WORDS
        .iter()
        .find(|(w, _)| *w == stem)
        .map(|(_, b)| *b)?;
    // A sided "hip" is the thigh's top ("Left hip"), not the pelvis.
    let b = match (b, p.side) {
        (Bone::Hips, Some(_)) => Bone::UpperLeg,
        (b, _) => b,
    };
    Some((b, p.side))
}

/// Whether a name marks a helper or control joint (see [`HELPER_WORDS`]).
pub fn is_helper(name: &str) -> bool {
    parts(name).helper
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions_reduce_to_bones_and_sides() {
        use Bone::*;
        use Side::*;
        let cases: &[(&str, Bone, Option<Side>)] = &[
            ("mixamorig:Hips", Hips, None),
            ("mixamorig1:LeftUpLeg", UpperLeg, Some(Left)),
            ("LeftLeg", LowerLeg, Some(Left)),
            ("RightFoot", Foot, Some(Right)),
            ("LeftToeBase", Toes, Some(Left)),
            ("LeftToes", Toes, Some(Left)),
            ("LeftArm", UpperArm, Some(Left)),
            ("RightForeArm", LowerArm, Some(Right)),
            ("LeftHand", Hand, Some(Left)),
            ("pelvis", Hips, None),
            ("thigh_l", UpperLeg, Some(Left)),
            ("calf_r", LowerLeg, Some(Right)),
            ("foot.l", Foot, Some(Left)),
            ("ball_l", Toes, Some(Left)),
            ("clavicle_l", Shoulder, Some(Left)),
            ("upperarm.r", UpperArm, Some(Right)),
            ("lowerarm_l", LowerArm, Some(Left)),
            ("hand_r", Hand, Some(Right)),
            ("thigh.L", UpperLeg, Some(Left)),
            ("shin.R", LowerLeg, Some(Right)),
            ("toe.L", Toes, Some(Left)),
            ("upper_arm.L", UpperArm, Some(Left)),
            ("forearm.R", LowerArm, Some(Right)),
            ("DEF-thigh.L", UpperLeg, Some(Left)),
            ("UpperLeg.L", UpperLeg, Some(Left)),
            ("lowerleg.l", LowerLeg, Some(Left)),
            ("Left knee", LowerLeg, Some(Left)),
            ("L_Thigh", UpperLeg, Some(Left)),
            ("Bip001 L Thigh", UpperLeg, Some(Left)),
            ("Bip001 R Calf", LowerLeg, Some(Right)),
            ("leftUpperLeg", UpperLeg, Some(Left)),
            ("spine_01", Spine, None),
            ("Armature|Spine2", Spine, None),
            ("leg_joint_L_1", LowerLeg, Some(Left)),
            ("Skeleton_arm_joint_L__4_", UpperArm, Some(Left)),
            ("Left hip", UpperLeg, Some(Left)),
        ];
        for &(name, b, s) in cases {
            assert_eq!(bone(name), Some((b, s)), "{name}: {:?}", parts(name));
        }
    }

    #[test]
    fn helpers_and_leaves_are_no_bones() {
        for name in [
            "LeftFootCtrl",
            "LeftHeelRoll",
            "LeftToeRoll",
            "LeftFootIK",
            "LeftKneeCtrl",
            "HipsCtrl",
            "LeftToes_end",
            "foot_ik.L",
            "knee_pole_target.R",
            "thigh_twist_01_l",
            "MCH-thigh.L",
        ] {
            assert!(is_helper(name), "{name}");
            assert_eq!(bone(name), None, "{name}");
        }
        assert!(!is_helper("Hips"));
        assert!(!is_helper("DEF-thigh.L"));
    }

    #[test]
    fn words_split_at_separators_case_and_digits() {
        assert_eq!(words("mixamorig:LeftUpLeg"), ["Left", "Up", "Leg"]);
        assert_eq!(words("leg_joint_L_1"), ["leg", "joint", "L", "1"]);
        assert_eq!(words("Bip001 L Thigh"), ["Bip", "001", "L", "Thigh"]);
        assert_eq!(words("thigh.L"), ["thigh", "L"]);
    }
}
