//! End-to-end: any humanoid glTF plays without a rig file (issue 31).
//!
//! - Every shared humanoid (CesiumMan, RiggedFigure, Kenney's characterMedium,
//!   GDQuest's Mannequiny) maps with no rig file, compared with a written
//!   expectation; CesiumMan's agrees with our hand-written rig file.
//! - GLBs built here from the knight cover the naming conventions (Mixamo
//!   with and without its prefix, Unreal's `_l` and `.l`, Rigify with the
//!   legs off `spine`, generic, "Left knee"), a Z-up model, a model in
//!   centimetres, a scaled armature, VRM 0.x and 1.0 humanBones with
//!   misleading names, a model with no clips (the knight's retargeted), feet
//!   hung off the root (an IK-controller rig's export), and non-humanoids (one clear error line, non-zero exit).
//! - `ironstep rig` prints a rig file that `--rig` reads back, and
//!   `--character MODEL` alone plays every shared humanoid through the
//!   autopilot on every shipped level.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use animation::gltf_import;
use animation::{JointDef, Skeleton};
use game::character::humanoid::{self, Inferred, normalize::Similarity};
use game::character::model::load_character_inferred;
use game::character::rig::RigFile;
use game::knight::{self, Knight};
use glam::{Quat, Vec3};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn shared(rel: &str) -> PathBuf {
    repo().join("../shared/assets/third_party/gltf").join(rel)
}

fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn ironstep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .current_dir(repo())
        .args(args)
        .output()
        .expect("the ironstep binary runs")
}

fn infer(path: &Path) -> Result<Inferred, String> {
    let mut model = gltf_import::load(path).map_err(|e| e.to_string())?;
    humanoid::reattach::feet(&mut model);
    humanoid::infer_model(&model).map_err(|e| e.to_string())
}

/// The mapping as names: pelvis; per leg hip, knee, ankle, toe ("-" for
/// none); per arm shoulder, elbow, wrist.
fn mapping(r: &RigFile) -> (String, Vec<[String; 4]>, Vec<[String; 3]>) {
    (
        r.pelvis.clone(),
        r.legs
            .iter()
            .map(|l| {
                [
                    l.hip.clone(),
                    l.knee.clone(),
                    l.ankle.clone(),
                    l.toe.clone().unwrap_or_else(|| "-".into()),
                ]
            })
            .collect(),
        r.arms
            .iter()
            .map(|a| [a.shoulder.clone(), a.elbow.clone(), a.wrist.clone()])
            .collect(),
    )
}

fn strings<const N: usize>(a: [&str; N]) -> [String; N] {
    a.map(str::to_string)
}

fn v3(t: (f32, f32, f32)) -> Vec3 {
    Vec3::new(t.0, t.1, t.2)
}

/// A written expectation for one shared model.
struct Expect {
    file: &'static str,
    pelvis: &'static str,
    legs: [[&'static str; 4]; 2],
    arms: [[&'static str; 3]; 2],
    scale: f32,
    forward: Vec3,
    /// idle, walk, run, jump, fall, land.
    clips: [&'static str; 6],
}

#[test]
fn shared_humanoids_map_with_no_rig_file_as_written() {
    let expect = [
        Expect {
            file: "CesiumMan/CesiumMan.glb",
            pelvis: "Skeleton_torso_joint_1",
            legs: [
                [
                    "leg_joint_L_1",
                    "leg_joint_L_2",
                    "leg_joint_L_3",
                    "leg_joint_L_5",
                ],
                [
                    "leg_joint_R_1",
                    "leg_joint_R_2",
                    "leg_joint_R_3",
                    "leg_joint_R_5",
                ],
            ],
            arms: [
                [
                    "Skeleton_arm_joint_L__4_",
                    "Skeleton_arm_joint_L__3_",
                    "Skeleton_arm_joint_L__2_",
                ],
                [
                    "Skeleton_arm_joint_R",
                    "Skeleton_arm_joint_R__2_",
                    "Skeleton_arm_joint_R__3_",
                ],
            ],
            scale: 1.0,
            forward: Vec3::Z,
            // His one clip is a walk by measurement; he has no jump, and
            // lands into his idle (the walk, held). His walk would play
            // 4.04 times over at running pace, beyond what rate and stride
            // warping stand in for (issue 32): he runs the knight's run.
            clips: ["0", "0", "knight run", "knight jump", "knight fall", "0"],
        },
        Expect {
            file: "RiggedFigure/RiggedFigure.glb",
            pelvis: "torso_joint_1",
            legs: [
                [
                    "leg_joint_L_1",
                    "leg_joint_L_2",
                    "leg_joint_L_3",
                    "leg_joint_L_5",
                ],
                [
                    "leg_joint_R_1",
                    "leg_joint_R_2",
                    "leg_joint_R_3",
                    "leg_joint_R_5",
                ],
            ],
            arms: [
                ["arm_joint_L_1", "arm_joint_L_2", "arm_joint_L_3"],
                ["arm_joint_R_1", "arm_joint_R_2", "arm_joint_R_3"],
            ],
            scale: 1.0,
            forward: Vec3::Z,
            // His one clip moves no feet: every state is the knight's.
            clips: [
                "knight idle",
                "knight walk",
                "knight run",
                "knight jump",
                "knight fall",
                "knight land",
            ],
        },
        Expect {
            file: "KenneyCharacterMedium/characterMedium.glb",
            // Not the controls (HipsCtrl, LeftFootCtrl, LeftFootIK, …).
            pelvis: "Hips",
            legs: [
                ["LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToes"],
                ["RightUpLeg", "RightLeg", "RightFoot", "RightToes"],
            ],
            arms: [
                ["LeftArm", "LeftForeArm", "LeftHand"],
                ["RightArm", "RightForeArm", "RightHand"],
            ],
            // 3.77 units tall, scaled to 1.8 m.
            scale: 1.8 / 3.765,
            forward: Vec3::Z,
            // His run turns his knees at 44 rad/s at the 1.40 times over it
            // plays at running pace, past the joint speed limit: the
            // knight's run instead.
            clips: [
                "00_idle",
                "01_walk",
                "knight run",
                "06_jump",
                "knight fall",
                "00_idle",
            ],
        },
        Expect {
            file: "Mannequiny/mannequiny.glb",
            pelvis: "pelvis",
            legs: [
                ["thigh.l", "calf.l", "foot.l", "ball.l"],
                ["thigh.r", "calf.r", "foot.r", "ball.r"],
            ],
            arms: [
                ["upperarm.l", "lowerarm.l", "hand.l"],
                ["upperarm.r", "lowerarm.r", "hand.r"],
            ],
            scale: 1.0,
            forward: Vec3::Z,
            // No walk (his run would play 0.37 times over at walking pace,
            // a moonwalk: the knight's walk instead, issue 32); no fall
            // clip. His run (35 rad/s at its loop's seam, whose ends are 31°
            // apart), jump (38 rad/s) and land (27 rad/s) turn his knees
            // past the joint speed limit: the knight's instead.
            clips: [
                "idle_root.001",
                "knight walk",
                "knight run",
                "knight jump",
                "knight fall",
                "knight land",
            ],
        },
    ];
    for e in expect {
        let inf = infer(&shared(e.file)).unwrap_or_else(|err| panic!("{}: {err}", e.file));
        eprintln!("{}:\n  {}", e.file, inf.decisions.join("\n  "));
        let (pelvis, legs, arms) = mapping(&inf.rig);
        assert_eq!(pelvis, e.pelvis, "{}", e.file);
        assert_eq!(legs, e.legs.map(strings).to_vec(), "{}", e.file);
        assert_eq!(arms, e.arms.map(strings).to_vec(), "{}", e.file);
        assert!(
            (inf.rig.scale - e.scale).abs() < 1e-3,
            "{}: scale {}",
            e.file,
            inf.rig.scale
        );
        assert_eq!(v3(inf.rig.up), Vec3::Y, "{}", e.file);
        assert_eq!(v3(inf.rig.forward), e.forward, "{}", e.file);
        let c = &inf.rig.clips;
        assert_eq!(
            [&c.idle, &c.walk, &c.run, &c.jump, &c.fall, &c.land],
            e.clips.map(String::from).each_ref(),
            "{}",
            e.file
        );
        assert!(
            inf.rig.procedural_climb,
            "{}: none has a climb clip",
            e.file
        );
        // And it assembles a character, as `play` and `run` would.
        load_character_inferred(&shared(e.file)).unwrap_or_else(|err| panic!("{err:#}"));
    }
}

#[test]
fn cesium_man_auto_mapped_agrees_with_his_hand_written_rig() {
    let inf = infer(&shared("CesiumMan/CesiumMan.glb")).unwrap();
    let hand = RigFile::load(&repo().join("assets/rigs/cesium_man.rig.ron")).unwrap();
    let auto = &inf.rig;
    assert_eq!(mapping(auto), mapping(&hand));
    let angle = |a: (f32, f32, f32), b: (f32, f32, f32)| {
        v3(a)
            .normalize()
            .angle_between(v3(b).normalize())
            .to_degrees()
    };
    for l in &auto.legs {
        let a = l.knee_hinge_axis.expect("per-leg knee axes are written");
        assert!(angle(a, hand.knee_hinge_axis) < 3.0, "{a:?}");
    }
    for (a, h) in auto.arms.iter().zip(&hand.arms) {
        let (a, h) = (a.elbow_hinge_axis.unwrap(), h.elbow_hinge_axis.unwrap());
        assert!(angle(a, h) < 3.0, "{a:?} {h:?}");
    }
    assert_eq!(auto.knee_pure_hinge, hand.knee_pure_hinge);
    assert_eq!(auto.elbow_pure_hinge, hand.elbow_pure_hinge);
    assert!((auto.foot_height - hand.foot_height).abs() < 0.003);
    assert!((auto.walk_cycle_distance - hand.walk_cycle_distance).abs() < 0.03);
    assert!((auto.idle_time.unwrap() - hand.idle_time.unwrap()).abs() < 0.03);
    assert_eq!(auto.forward, hand.forward);
    assert_eq!(auto.procedural_climb, hand.procedural_climb);
    assert!((auto.climb_rung_distance - hand.climb_rung_distance).abs() < 0.011);
    assert!(v3(auto.wrist_from_rung).distance(v3(hand.wrist_from_rung)) < 0.005);
    assert!(v3(auto.ankle_from_rung).distance(v3(hand.ankle_from_rung)) < 0.01);
}

// ---- GLBs built from the knight -------------------------------------------

/// The JSON and binary chunks of a GLB.
fn glb_split(bytes: &[u8]) -> (Value, Vec<u8>) {
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&bytes[20..20 + len]).unwrap();
    let rest = &bytes[20 + len..];
    let bin = if rest.len() >= 8 {
        let blen = u32::from_le_bytes(rest[0..4].try_into().unwrap()) as usize;
        rest[8..8 + blen].to_vec()
    } else {
        Vec::new()
    };
    (json, bin)
}

/// A GLB of this JSON and binary chunk.
fn glb_join(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + if b.is_empty() { 0 } else { 8 + b.len() };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    if !b.is_empty() {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&b);
    }
    out
}

/// The knight with its joints renamed, turned and scaled by `g` (its up
/// axis becomes `g`'s image of +Y), with or without its clips.
fn knight_glb(rename: &dyn Fn(&str) -> String, g: Similarity, clips: bool) -> Vec<u8> {
    let k = Knight::generate(knight::clips::DEFAULT_RUNG_SPACING).unwrap();
    let s = &k.skeleton;
    let renamed = Skeleton::new(
        (0..s.len())
            .map(|j| JointDef {
                name: rename(s.name(j)),
                parent: s.parent(j),
                rest: s.rest_locals()[j],
                inverse_bind: s.inverse_bind()[j],
            })
            .collect(),
    )
    .unwrap();
    let skel = humanoid::normalize::skeleton(&renamed, &g).unwrap();
    let mut mesh = k.mesh.clone();
    for p in &mut mesh.positions {
        *p = g.point(*p);
    }
    for n in &mut mesh.normals {
        *n = g.rotation * *n;
    }
    let clips: Vec<_> = if clips {
        k.clips
            .iter()
            .map(|c| humanoid::normalize::clip(c, &g))
            .collect()
    } else {
        Vec::new()
    };
    knight::glb::write(&skel, &mesh, &clips).unwrap()
}

fn same() -> Similarity {
    Similarity {
        scale: 1.0,
        rotation: Quat::IDENTITY,
    }
}

/// Renames the knight's joints by a table of (knight base name, new name
/// with `{Side}`/`{side}`/`{S}`/`{s}` standing for Left/left/L/l or
/// Right/right/R/r).
fn convention(table: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> String {
    move |n: &str| {
        let (base, side) = match n.rsplit_once('_') {
            Some((b, "l")) => (b, Some(("Left", "left", "L", "l"))),
            Some((b, "r")) => (b, Some(("Right", "right", "R", "r"))),
            _ => (n, None),
        };
        let Some((_, new)) = table.iter().find(|(k, _)| *k == base) else {
            return n.to_string();
        };
        match side {
            Some((a, b, c, d)) => new
                .replace("{Side}", a)
                .replace("{side}", b)
                .replace("{S}", c)
                .replace("{s}", d),
            None => new.to_string(),
        }
    }
}

const MIXAMO: &[(&str, &str)] = &[
    ("pelvis", "mixamorig:Hips"),
    ("spine", "mixamorig:Spine"),
    ("chest", "mixamorig:Spine1"),
    ("neck", "mixamorig:Neck"),
    ("head", "mixamorig:Head"),
    ("clavicle", "mixamorig:{Side}Shoulder"),
    ("upper_arm", "mixamorig:{Side}Arm"),
    ("forearm", "mixamorig:{Side}ForeArm"),
    ("hand", "mixamorig:{Side}Hand"),
    ("thigh", "mixamorig:{Side}UpLeg"),
    ("shin", "mixamorig:{Side}Leg"),
    ("foot", "mixamorig:{Side}Foot"),
    ("toe", "mixamorig:{Side}ToeBase"),
    ("weapon", "mixamorig:Sword"),
    ("shield", "mixamorig:Shield"),
];
const MIXAMO_BARE: &[(&str, &str)] = &[
    ("pelvis", "Hips"),
    ("spine", "Spine"),
    ("chest", "Chest"),
    ("clavicle", "{Side}Shoulder"),
    ("upper_arm", "{Side}Arm"),
    ("forearm", "{Side}ForeArm"),
    ("hand", "{Side}Hand"),
    ("thigh", "{Side}UpLeg"),
    ("shin", "{Side}Leg"),
    ("foot", "{Side}Foot"),
    ("toe", "{Side}Toes"),
];
const UNREAL: &[(&str, &str)] = &[
    ("spine", "spine_01"),
    ("chest", "spine_02"),
    ("neck", "neck_01"),
    ("clavicle", "clavicle_{s}"),
    ("upper_arm", "upperarm_{s}"),
    ("forearm", "lowerarm_{s}"),
    ("hand", "hand_{s}"),
    ("thigh", "thigh_{s}"),
    ("shin", "calf_{s}"),
    ("foot", "foot_{s}"),
    ("toe", "ball_{s}"),
];
const UNREAL_DOT: &[(&str, &str)] = &[
    ("clavicle", "clavicle.{s}"),
    ("upper_arm", "upperarm.{s}"),
    ("forearm", "lowerarm.{s}"),
    ("hand", "hand.{s}"),
    ("thigh", "thigh.{s}"),
    ("shin", "calf.{s}"),
    ("foot", "foot.{s}"),
    ("toe", "ball.{s}"),
];
/// A Rigify metarig: no hips joint, the legs hang off `spine`.
const RIGIFY: &[(&str, &str)] = &[
    ("pelvis", "spine"),
    ("spine", "spine.001"),
    ("chest", "spine.003"),
    ("neck", "spine.004"),
    ("head", "spine.006"),
    ("clavicle", "shoulder.{S}"),
    ("upper_arm", "upper_arm.{S}"),
    ("forearm", "forearm.{S}"),
    ("hand", "hand.{S}"),
    ("thigh", "thigh.{S}"),
    ("shin", "shin.{S}"),
    ("foot", "foot.{S}"),
    ("toe", "toe.{S}"),
];
const GENERIC: &[(&str, &str)] = &[
    ("upper_arm", "UpperArm.{S}"),
    ("forearm", "LowerArm.{S}"),
    ("hand", "Hand.{S}"),
    ("thigh", "upperleg.{s}"),
    ("shin", "lowerleg.{s}"),
    ("foot", "Foot.{S}"),
    ("toe", "Toes.{S}"),
];
const SPOKEN: &[(&str, &str)] = &[
    ("upper_arm", "{Side} upper arm"),
    ("forearm", "{Side} elbow"),
    ("hand", "{Side} wrist"),
    ("thigh", "{Side} hip"),
    ("shin", "{Side} knee"),
    ("foot", "{Side} ankle"),
    ("toe", "{Side} toe"),
];

/// The knight's own mapping, renamed.
fn knight_mapping(rename: &dyn Fn(&str) -> String) -> (String, Vec<[String; 4]>, Vec<[String; 3]>) {
    let r = |n: &str| rename(n);
    (
        r("pelvis"),
        ["l", "r"]
            .iter()
            .map(|s| ["thigh", "shin", "foot", "toe"].map(|b| r(&format!("{b}_{s}"))))
            .collect(),
        ["l", "r"]
            .iter()
            .map(|s| ["upper_arm", "forearm", "hand"].map(|b| r(&format!("{b}_{s}"))))
            .collect(),
    )
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn renamed_conventions_map_and_names_agree_with_shape() {
    let conventions: [(&str, &'static [(&str, &str)]); 7] = [
        ("mixamo", MIXAMO),
        ("mixamo_bare", MIXAMO_BARE),
        ("unreal", UNREAL),
        ("unreal_dot", UNREAL_DOT),
        ("rigify", RIGIFY),
        ("generic", GENERIC),
        ("spoken", SPOKEN),
    ];
    for (name, table) in conventions {
        let rename = convention(table);
        let path = write(
            &format!("auto_rig_{name}.glb"),
            &knight_glb(&rename, same(), true),
        );
        let inf = infer(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(mapping(&inf.rig), knight_mapping(&rename), "{name}");
        assert_eq!(v3(inf.rig.forward), Vec3::X, "{name}: the knight faces +X");
        assert_eq!(inf.rig.scale, 1.0, "{name}");
        // The names are read: every limb's line says names and shape agree.
        let limbs: Vec<&String> = inf
            .decisions
            .iter()
            .filter(|d| d.contains(" leg: ") || d.contains(" arm: "))
            .collect();
        assert_eq!(limbs.len(), 4, "{name}");
        for d in limbs {
            assert!(d.contains("names and shape agree"), "{name}: {d}");
        }
        // The knight's own clips, by name.
        assert_eq!(inf.rig.clips.climb, "climb", "{name}");
        assert!(!inf.rig.procedural_climb);
    }
}

#[test]
fn z_up_centimetre_and_scaled_armature_models_stand_up_at_a_playable_size() {
    let rename = |n: &str| n.to_string();
    // Z-up: the knight turned so that it stands along +Z.
    let z_up = Similarity {
        scale: 1.0,
        rotation: Quat::from_rotation_arc(Vec3::Y, Vec3::Z),
    };
    let path = write("auto_rig_z_up.glb", &knight_glb(&rename, z_up, true));
    let inf = infer(&path).unwrap();
    assert_eq!(v3(inf.rig.up), Vec3::Z);
    assert_eq!(inf.rig.scale, 1.0);
    assert_eq!(mapping(&inf.rig), knight_mapping(&rename));
    // Forward is read after the turn: the knight's +X again.
    assert_eq!(v3(inf.rig.forward), Vec3::X);
    let c = load_character_inferred(&path).unwrap();
    assert!((c.leg_length[0] - 0.88).abs() < 0.05, "{}", c.leg_length[0]);
    assert!(c.rest_ankle_height[0] > 0.05 && c.rest_ankle_height[0] < 0.15);

    // Centimetres: 183 units tall, scaled to 1.8 m.
    let cm = Similarity {
        scale: 100.0,
        rotation: Quat::IDENTITY,
    };
    let path = write("auto_rig_cm.glb", &knight_glb(&rename, cm, true));
    let inf = infer(&path).unwrap();
    assert!(
        (inf.rig.scale - 1.8 / 182.7).abs() < 1e-4,
        "{}",
        inf.rig.scale
    );
    let c = load_character_inferred(&path).unwrap();
    assert!(
        (c.leg_length[0] - 0.88 * 1.8 / 1.827).abs() < 0.05,
        "{}",
        c.leg_length[0]
    );

    // A scaled armature: joints in centimetres under a node scaled by 0.01,
    // as Blender's FBX round trips leave them: the import folds the scale,
    // so the model is 1.83 m and is not scaled again.
    let (mut json, bin) = glb_split(&knight_glb(&rename, cm, true));
    let nodes = json["nodes"].as_array_mut().unwrap();
    let armature = nodes.len();
    nodes.push(json!({"name": "Armature", "scale": [0.01, 0.01, 0.01], "children": [0]}));
    let scene_nodes = json["scenes"][0]["nodes"].as_array_mut().unwrap();
    for n in scene_nodes.iter_mut() {
        if n.as_u64() == Some(0) {
            *n = json!(armature);
        }
    }
    let path = write("auto_rig_armature.glb", &glb_join(&json, &bin));
    let inf = infer(&path).unwrap();
    assert_eq!(inf.rig.scale, 1.0);
    assert_eq!(mapping(&inf.rig), knight_mapping(&rename));
    let c = load_character_inferred(&path).unwrap();
    assert!((c.leg_length[0] - 0.88).abs() < 0.05, "{}", c.leg_length[0]);
}

/// The knight with misleading names ("Left leg" is its thigh, "Left foot"
/// its shin) and a VRM humanBones extension of `version` (0 or 1).
fn vrm_knight(version: u32) -> PathBuf {
    let mislead: &'static [(&str, &str)] = &[
        ("thigh", "{Side} leg"),
        ("shin", "{Side} foot"),
        ("foot", "{Side} toe"),
        ("toe", "{Side} tip"),
        ("upper_arm", "{Side} shoulder"),
        ("forearm", "{Side} arm"),
        ("hand", "{Side} finger"),
    ];
    let rename = convention(mislead);
    let (mut json, bin) = glb_split(&knight_glb(&rename, same(), false));
    let node = |name: &str| {
        json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("node {name}"))
    };
    let mut bones = vec![
        ("hips", node("pelvis")),
        ("spine", node("spine")),
        ("head", node("head")),
    ];
    for (side, s) in [("left", "Left"), ("right", "Right")] {
        for (bone, joint) in [
            ("UpperLeg", "leg"),
            ("LowerLeg", "foot"),
            ("Foot", "toe"),
            ("Toes", "tip"),
            ("UpperArm", "shoulder"),
            ("LowerArm", "arm"),
            ("Hand", "finger"),
        ] {
            let b: &'static str = Box::leak(format!("{side}{bone}").into_boxed_str());
            bones.push((b, node(&format!("{s} {joint}"))));
        }
    }
    let ext = if version == 1 {
        let map: serde_json::Map<String, Value> = bones
            .iter()
            .map(|(b, n)| (b.to_string(), json!({"node": n})))
            .collect();
        json!({"VRMC_vrm": {"specVersion": "1.0", "humanoid": {"humanBones": map}}})
    } else {
        let list: Vec<Value> = bones
            .iter()
            .map(|(b, n)| json!({"bone": b, "node": n}))
            .collect();
        json!({"VRM": {"humanoid": {"humanBones": list}}})
    };
    json["extensions"] = ext;
    write(
        &format!("auto_rig_vrm{version}.vrm"),
        &glb_join(&json, &bin),
    )
}

#[test]
fn vrm_humanbones_win_over_misleading_names_in_both_versions() {
    for version in [0, 1] {
        let path = vrm_knight(version);
        let inf = infer(&path).unwrap_or_else(|e| panic!("VRM {version}: {e}"));
        let (pelvis, legs, arms) = mapping(&inf.rig);
        assert_eq!(pelvis, "pelvis");
        assert_eq!(
            legs[0],
            strings(["Left leg", "Left foot", "Left toe", "Left tip"])
        );
        assert_eq!(
            legs[1],
            strings(["Right leg", "Right foot", "Right toe", "Right tip"])
        );
        assert_eq!(
            arms[0],
            strings(["Left shoulder", "Left arm", "Left finger"])
        );
        assert!(
            inf.decisions.iter().any(|d| d.contains("VRM humanBones")),
            "{:?}",
            inf.decisions
        );
        // An avatar without clips walks with the knight's motion.
        assert_eq!(inf.rig.clips.walk, "knight walk");
    }
}

#[test]
fn a_model_with_no_clips_walks_with_the_knights_retargeted_motion() {
    let rename = convention(UNREAL);
    let path = write("auto_rig_no_clips.glb", &knight_glb(&rename, same(), false));
    let inf = infer(&path).unwrap();
    let c = &inf.rig.clips;
    assert_eq!(
        [&c.idle, &c.walk, &c.run, &c.jump, &c.fall, &c.land].map(|s| s.as_str()),
        [
            "knight idle",
            "knight walk",
            "knight run",
            "knight jump",
            "knight fall",
            "knight land"
        ]
    );
    // Retargeted onto the knight's own skeleton, the walk covers the
    // knight's ground per cycle (measured 1.14 m on its own walk clip).
    assert!(
        (inf.rig.walk_cycle_distance - 1.14).abs() < 0.05,
        "{}",
        inf.rig.walk_cycle_distance
    );
    let doc = walk_slopes(&path, "auto_rig_no_clips");
    let s = &doc["summary"];
    eprintln!("no clips: {s}");
    assert_eq!(s["nan_count"], 0);
    assert_eq!(s["ik_errors"], 0);
    // It walked: feet planted on the ground, within the knight's 5 mm.
    assert!(s["planted_frames"].as_f64().unwrap() > 100.0, "{s}");
    assert!(
        s["planted_foot_max_error_m"].as_f64().unwrap() <= 0.005,
        "{s}"
    );
    assert!(s["final_pos"][0].as_f64().unwrap() > 5.0, "{s}");
}

/// The knight with its feet hung off the root, as an IK-controller rig
/// exports them, and no clips: the feet are found at the shins' ends,
/// re-parented under them, and the model walks with its feet planted.
#[test]
fn feet_hung_off_the_root_are_found_and_follow_the_shins() {
    let k = Knight::generate(knight::clips::DEFAULT_RUNG_SPACING).unwrap();
    let s = &k.skeleton;
    let mut models = vec![glam::Mat4::IDENTITY; s.len()];
    animation::local_to_model(s, s.rest_locals(), &mut models);
    let root = s.joint_index("root").unwrap();
    let feet = ["foot_l", "foot_r"].map(|n| s.joint_index(n).unwrap());
    let skel = Skeleton::new(
        (0..s.len())
            .map(|j| {
                let off_root = feet.contains(&j);
                JointDef {
                    name: s.name(j).to_string(),
                    parent: if off_root { Some(root) } else { s.parent(j) },
                    rest: if off_root {
                        animation::Transform::from_mat4(&(models[root].inverse() * models[j]))
                    } else {
                        s.rest_locals()[j]
                    },
                    inverse_bind: s.inverse_bind()[j],
                }
            })
            .collect(),
    )
    .unwrap();
    let path = write(
        "auto_rig_feet_off_root.glb",
        &knight::glb::write(&skel, &k.mesh, &[]).unwrap(),
    );
    // As it is, the model shows no legs of three joints.
    let raw = gltf_import::load(&path).unwrap();
    let err = humanoid::infer_model(&raw).unwrap_err().to_string();
    assert!(err.contains("no two mirror-image leg chains"), "{err}");
    let inf = infer(&path).unwrap();
    let (_, legs, _) = mapping(&inf.rig);
    let mut legs = legs;
    legs.sort();
    assert_eq!(
        legs,
        [
            strings(["thigh_l", "shin_l", "foot_l", "toe_l"]),
            strings(["thigh_r", "shin_r", "foot_r", "toe_r"]),
        ]
    );
    let out = ironstep(&["rig", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for side in ["l", "r"] {
        let note = format!("foot 'foot_{side}' hangs off 'root', not its shin 'shin_{side}'");
        assert!(text.contains(&note), "{note} missing from:\n{text}");
    }
    let doc = walk_slopes(&path, "auto_rig_feet_off_root");
    let s = &doc["summary"];
    eprintln!("feet off the root: {s}");
    assert_eq!(s["nan_count"], 0);
    assert!(s["planted_frames"].as_f64().unwrap() > 100.0, "{s}");
    assert!(
        s["planted_foot_max_error_m"].as_f64().unwrap() <= 0.005,
        "{s}"
    );
    assert!(s["stance_slide_max_m"].as_f64().unwrap() <= 0.01, "{s}");
    assert!(s["final_pos"][0].as_f64().unwrap() > 5.0, "{s}");
}

/// The metrics of `model` walking the builtin level's slopes for 900
/// frames (`slopes_walk.txt`), written as `TAG.json`; the run must succeed.
fn walk_slopes(model: &Path, tag: &str) -> Value {
    let metrics = tmp(&format!("{tag}.json"));
    let out = ironstep(&[
        "run",
        "--input",
        "assets/scripts/slopes_walk.txt",
        "--frames",
        "900",
        "--character",
        model.to_str().unwrap(),
        "--metrics",
        metrics.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(&metrics).unwrap()).unwrap()
}

/// A skinned model of `joints` (name, parent, model-space rest position),
/// with a small box around each joint bound to it.
fn figure(joints: &[(&str, Option<usize>, Vec3)]) -> Vec<u8> {
    use animation::Transform;
    let defs: Vec<JointDef> = joints
        .iter()
        .map(|&(name, parent, p)| JointDef {
            name: name.to_string(),
            parent,
            rest: Transform::from_translation(p - parent.map_or(Vec3::ZERO, |q| joints[q].2)),
            inverse_bind: glam::Mat4::from_translation(-p),
        })
        .collect();
    let skel = Skeleton::new(defs).unwrap();
    let mut mesh = Knight::generate(knight::clips::DEFAULT_RUNG_SPACING)
        .unwrap()
        .mesh;
    mesh.positions.clear();
    mesh.normals.clear();
    mesh.colors.clear();
    mesh.joints.clear();
    mesh.weights.clear();
    mesh.indices.clear();
    for (j, &(_, _, p)) in joints.iter().enumerate() {
        let base = mesh.positions.len() as u16;
        for d in [Vec3::X, Vec3::Y, Vec3::Z] {
            mesh.positions.push(p + d * 0.03);
            mesh.normals.push(d);
            mesh.colors.push([1.0; 4]);
            mesh.joints.push([j as u16, 0, 0, 0]);
            mesh.weights.push([1.0, 0.0, 0.0, 0.0]);
        }
        mesh.indices.extend([base, base + 1, base + 2]);
    }
    knight::glb::write(&skel, &mesh, &[]).unwrap()
}

/// `ironstep rig` on a file: must fail with one line.
fn rig_fails(path: &Path) -> String {
    let out = ironstep(&["rig", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "an error, not a crash: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(path.to_str().unwrap()),
        "names the file: {err}"
    );
    err
}

#[test]
fn non_humanoids_are_one_clear_error_line() {
    // A single chain (a tentacle).
    let chain: Vec<(&str, Option<usize>, Vec3)> = (0..6)
        .map(|i| {
            let name: &'static str = ["a", "b", "c", "d", "e", "f"][i];
            (name, i.checked_sub(1), Vec3::new(0.0, 0.3 * i as f32, 0.0))
        })
        .collect();
    let err = rig_fails(&write("auto_rig_chain.glb", &figure(&chain)));
    assert!(err.contains("no two mirror-image leg chains"), "{err}");

    // A quadruped: hind legs under the pelvis, forelegs under the chest a
    // body length ahead at the same height, a head in front.
    let v = Vec3::new;
    let mut dog: Vec<(&str, Option<usize>, Vec3)> = vec![
        ("pelvis", None, v(0.0, 0.6, 0.0)),
        ("chest", Some(0), v(0.8, 0.6, 0.0)),
        ("head", Some(1), v(1.1, 0.85, 0.0)),
    ];
    for (root, x, tag) in [(0usize, 0.0f32, "hind"), (1, 0.8, "fore")] {
        for (side, z) in [("l", -0.15f32), ("r", 0.15)] {
            let names: [&'static str; 4] = match (tag, side) {
                ("hind", "l") => ["hind_hip_l", "hind_knee_l", "hind_ankle_l", "hind_paw_l"],
                ("hind", _) => ["hind_hip_r", "hind_knee_r", "hind_ankle_r", "hind_paw_r"],
                (_, "l") => ["fore_hip_l", "fore_knee_l", "fore_ankle_l", "fore_paw_l"],
                _ => ["fore_hip_r", "fore_knee_r", "fore_ankle_r", "fore_paw_r"],
            };
            let start = dog.len();
            for (k, n) in names.iter().enumerate() {
                let parent = if k == 0 { root } else { start + k - 1 };
                // Thigh and shin 0.2 m, the paw a short step forward (+X),
                // as a dog's.
                let (ahead, y) = [(0.0, 0.55), (0.0, 0.35), (0.0, 0.15), (0.08, 0.02)][k];
                dog.push((n, Some(parent), v(x + ahead, y, z)));
            }
        }
    }
    // Parents must come first: they do (each leg after its root).
    let err = rig_fails(&write("auto_rig_dog.glb", &figure(&dog)));
    assert!(err.contains("no two mirror-image arm chains"), "{err}");

    // No skin at all: the knight's mesh as a static mesh.
    let (mut json, bin) = glb_split(&knight_glb(&|n: &str| n.to_string(), same(), false));
    json.as_object_mut().unwrap().remove("skins");
    for n in json["nodes"].as_array_mut().unwrap() {
        n.as_object_mut().unwrap().remove("skin");
    }
    for m in json["meshes"].as_array_mut().unwrap() {
        for p in m["primitives"].as_array_mut().unwrap() {
            let a = p["attributes"].as_object_mut().unwrap();
            a.remove("JOINTS_0");
            a.remove("WEIGHTS_0");
        }
    }
    let err = rig_fails(&write("auto_rig_static.glb", &glb_join(&json, &bin)));
    assert!(err.contains("no skinned mesh"), "{err}");

    // `run --character` says the same, and does not crash.
    let out = ironstep(&[
        "run",
        "--input",
        "assets/scripts/slopes_walk.txt",
        "--frames",
        "10",
        "--character",
        tmp("auto_rig_chain.glb").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a humanoid"));
}

#[test]
fn the_rig_command_prints_a_rig_file_that_rig_reads_back() {
    let cesium = shared("CesiumMan/CesiumMan.glb");
    let file = tmp("auto_rig_cesium.rig.ron");
    let out = ironstep(&[
        "rig",
        cesium.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    // One comment line per decision: the pelvis, each limb, the axes, the
    // scale, each clip.
    for what in [
        "// - pelvis ",
        "// - left leg: ",
        "// - right arm: ",
        "// - up axis ",
        "// - forward ",
        "// - scale ",
        "// - knee hinge axes ",
        "// - elbow hinge axes ",
        "// - clip walk: '0' (by measurement",
        "// - clip climb: ",
    ] {
        assert!(text.contains(what), "{what}:\n{text}");
    }
    // It parses as a complete rig file and plays.
    RigFile::parse(&text, "x").unwrap();
    let out = ironstep(&[
        "run",
        "--input",
        "assets/scripts/slopes_walk.txt",
        "--frames",
        "64",
        "--character",
        cesium.to_str().unwrap(),
        "--rig",
        file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // --json carries the same rig and the decisions.
    let out = ironstep(&["rig", cesium.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rig"]["pelvis"], "Skeleton_torso_joint_1");
    assert!(doc["decisions"].as_array().unwrap().len() >= 10);

    // A rig file naming one field wins for that field; the rest is inferred.
    let model = gltf_import::load(&cesium).unwrap();
    let inferred = humanoid::infer_model(&model).unwrap().rig;
    let merged = humanoid::merge(&inferred, "(foot_height: 0.05)", "part.rig.ron").unwrap();
    assert_eq!(merged.foot_height, 0.05);
    assert_eq!(merged.legs, inferred.legs);
    let err = humanoid::merge(&inferred, "(foot_height: \"x\")", "part.rig.ron").unwrap_err();
    assert!(err.to_string().starts_with("part.rig.ron: "), "{err}");
}

/// The most each shared humanoid's autopilot runs may show, on any
/// shipped level, with no rig file: the share of frames the joint speed
/// limit acted on, planted foot error, stance slide and hands and feet on
/// rungs (metres), and the frames on a ledge the limit acted on. Every
/// figure is the project's target (2 %, 5 mm, 1 cm, 5 mm; none on a
/// ledge, but one frame of Kenney's, below; Mannequiny's share is held to
/// 1.5 %, under his figures, so that it cannot get worse unnoticed). On every level with a ledge, every model's hands also hold it
/// fully for at least [`LEDGE_GRIP_FRAMES`] frames per grab, within 5 mm.
const HUMANOID_BOUNDS: [(&str, f64, f64, f64, f64, u64); 4] = [
    // The limit's share 0.5–1.5 %: the target met (2.5–6.3 % before the
    // tenth session; 1.3–4.6 % until a lengthened stride was drawn by the
    // locks alone, 0.9–4.0 % until the legs' stances were played faster
    // than their swings, `Layer::duty`, and 0.7–2.3 % until a landing held
    // his idle, which is his land, for no longer than `LAND_HOLD_MAX`).
    ("CesiumMan/CesiumMan.glb", 0.02, 0.005, 0.01, 0.005, 0),
    // 0.3–1.9 %: the target met (4.1–7.3 %, 1.5–5.4 %, 0.6–3.5 %).
    ("RiggedFigure/RiggedFigure.glb", 0.02, 0.005, 0.01, 0.005, 0),
    // 0.9–1.9 %: the target met since his gait plays slower up and down
    // steep slopes (`anim_state::STEEP_PLAYBACK_RATE`; 0.9–2.8 % before,
    // 2.8 % on `builtin` mostly on the 45° slopes; 11.1–13.3 %, 3.7–6.9 %,
    // 1.2–5.1 %, 0.9–2.9 % in earlier sessions). On `long` and `tower` the
    // limit holds his right shoulder on one ledge frame, turning from the
    // hold back to his gait as the body rises over the top (his hips on 10
    // ledge frames of `tower` before his hands held the corner, 8 before a
    // lengthened stride was drawn by the locks alone).
    (
        "KenneyCharacterMedium/characterMedium.glb",
        0.02,
        0.005,
        0.01,
        0.005,
        1,
    ),
    // The limit acts on 0.3–0.9 % (1.6–2.4 % until the gait faded in over
    // his idle no faster than `IDLE_FADE_TIME`). Planted feet within 2.3 mm
    // (on `long` a foot planted at the foot of a slope went 10.7 mm into
    // it until a sole spanning a corner rested on both its ends,
    // `foot_ik::fit_sole`; his hand slid 27 mm off a rung there until a
    // hand lets go of a rung out of its reach).
    ("Mannequiny/mannequiny.glb", 0.015, 0.005, 0.01, 0.005, 0),
];

/// The slowest and fastest each shared humanoid's gait may play, as a
/// share of its clips' authored rate, on the autopilot's runs of the
/// shipped levels with no rig file (issue 32: within 0.7–1.4, the stride
/// making up the rest; below 0.7 only as the idle fades in, under
/// `FULL_GAIT_SHARE` of the pose: the metrics count frames the gait is
/// 99 % of it or more, and the floor then is 0.7, in `f32`).
const RATE_BOUNDS: [(&str, f64, f64); 4] = [
    // 0.69–1.80 until the walk/run blend caught up with a run-up as far as
    // the rate needs (his slow walk, authored at 0.84 m/s, blended into it).
    ("CesiumMan/CesiumMan.glb", SLOWEST_RATE, 1.4),
    ("RiggedFigure/RiggedFigure.glb", SLOWEST_RATE, 1.4),
    (
        "KenneyCharacterMedium/characterMedium.glb",
        SLOWEST_RATE,
        1.4,
    ),
    // 0.42–2.27 until every gait whose clips can be helped was warped.
    ("Mannequiny/mannequiny.glb", SLOWEST_RATE, 1.4),
];

/// 0.7 as an `f32` reads in the metrics (0.69999999): the slowest a gait
/// plays (0.694 until the floor was full from 99 % of the pose, not only
/// from all of it).
const SLOWEST_RATE: f64 = 0.7 - 1e-6;

/// The fewest frames of a grab on which a shared humanoid's hands hold a
/// ledge fully, climbing over it at once as the autopilot does (the
/// summary's `ledge_grip_frames` counts hands: twice this per grab): 25 to
/// 29 today, the knight's 48; one before the hang came from the model's
/// own hang pose.
const LEDGE_GRIP_FRAMES: u64 = 20;

/// The autopilot's metrics summary for shared model `m` on `level`, with no
/// rig file (the run's success checked); `test` names the calling test, so
/// tests running at once write their own files.
fn humanoid_autopilot(m: &str, level: &str, test: &str) -> Value {
    let name = format!("{test}_{}_{level}.json", m.split('/').next().unwrap());
    let doc = humanoid_run(m, &["--autopilot", "--level", level], &name);
    let mut s = doc["summary"].clone();
    // What the frames say of the ledge frames: how many the joint speed
    // limit acted on, and the fastest joint on them.
    let ledge = doc["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["state"] == "ledge");
    let (limited, fastest) = ledge.fold((0u64, 0.0f64), |(n, w), f| {
        (
            n + u64::from(f["limited_joints"].as_u64().unwrap() > 0),
            w.max(f["max_angular_speed"].as_f64().unwrap()),
        )
    });
    s["test_ledge_limited_frames"] = limited.into();
    s["test_ledge_max_joint_speed_rad_s"] = fastest.into();
    eprintln!("{m} on {level}: {s}");
    s
}

const SHIPPED_LEVELS: [&str; 4] = ["builtin", "tutorial", "long", "tower"];

#[test]
fn every_shared_humanoid_plays_every_shipped_level_with_no_rig_file() {
    let f = |s: &Value, k: &str| s[k].as_f64().unwrap_or_else(|| panic!("{k}: {s}"));
    for (m, limited, planted, slide, rung, ledge_limited) in HUMANOID_BOUNDS {
        for level in SHIPPED_LEVELS {
            let s = &humanoid_autopilot(m, level, "auto_rig");
            // Every level with a ledge needs one grab (`builtin` none).
            let grabs = u64::from(level != "builtin");
            let grip = s["ledge_grip_frames"].as_u64().unwrap();
            assert!(
                grip >= 2 * LEDGE_GRIP_FRAMES * grabs,
                "{m} on {level}: hands held the ledge on {grip} hand-frames"
            );
            let on_ledge = s["test_ledge_limited_frames"].as_u64().unwrap();
            assert!(
                on_ledge <= ledge_limited,
                "{m} on {level}: the limit acted on {on_ledge} ledge frames"
            );
            assert_eq!(s["exit_reached"], true, "{m} on {level}");
            assert_eq!(s["nan_count"], 0, "{m} on {level}");
            assert_eq!(s["ik_errors"], 0, "{m} on {level}");
            let share = f(s, "joint_speed_limited_frames") / f(s, "frames");
            assert!(share <= limited, "{m} on {level}: limited on {share}");
            let (_, lo, hi) = RATE_BOUNDS.iter().find(|r| r.0 == m).unwrap();
            let (slowest, fastest) = (f(s, "playback_rate_min"), f(s, "playback_rate_max"));
            assert!(
                slowest >= *lo && fastest <= hi + 1e-4,
                "{m} on {level}: the gait plays at {slowest:.3}–{fastest:.3}"
            );
            for (k, bound) in [
                ("planted_foot_max_error_m", planted),
                ("stance_slide_max_m", slide),
                ("rung_contact_max_error_m", rung),
                ("hand_hold_max_error_m", rung),
                ("ledge_hand_max_error_m", 0.005),
                ("test_ledge_max_joint_speed_rad_s", 20.0),
                // No pop anywhere (RiggedFigure setting off from his idle
                // turned a knee at 21 rad/s solved back onto its lock,
                // until a lock whose leg would pop lets go).
                ("max_joint_angular_speed_rad_s", 20.0),
                ("max_root_snap_m", 0.01),
            ] {
                assert!(f(s, k) <= bound, "{m} on {level}: {k} {}", f(s, k));
            }
        }
    }
}

/// Stepping down the tutorial's 0.25 m step, a trailing foot the clip still
/// has on the ground (its contact blended between the walk and the run)
/// stands on the tread's edge while its heel is over the tread: set down on
/// the floor below once its ankle had passed the edge, Mannequiny's heel
/// went 13 cm into the step.
#[test]
fn a_heel_over_the_tread_it_steps_down_from_stays_out_of_it() {
    let s = humanoid_autopilot("Mannequiny/mannequiny.glb", "tutorial", "heel_edge");
    let pen = s["sole_penetration_max_m"].as_f64().unwrap();
    assert!(pen <= 0.02, "a sole {pen} m under the floor");
}

/// Dropping 3.8 m onto the long level's lower route near its end, the
/// autopilot running on as it lands, Mannequiny's soles stay within 3 cm
/// of the floor: a foot swinging as the gait faded in over the landing had
/// begun its swing in the air, its planned path setting off from the
/// ground it stood on before the jump, and it rose 50 cm into its first
/// step (soles 91 mm above the floor, 54 mm in an earlier build).
#[test]
fn a_foot_swinging_as_the_body_lands_sets_off_from_the_floor_it_lands_on() {
    let s = humanoid_autopilot("Mannequiny/mannequiny.glb", "long", "drop_swing");
    let float = s["sole_float_max_m"].as_f64().unwrap();
    assert!(float <= 0.03, "a sole {float} m above the floor");
}

/// The autopilot's summary for CesiumMan on `level`, with `rig` or inferred.
fn cesium_summary(level: &str, rig: Option<&str>) -> Value {
    let metrics = tmp(&format!("auto_rig_cesium_{level}_{}.json", rig.is_some()));
    let cesium = shared("CesiumMan/CesiumMan.glb");
    let mut args = vec![
        "run",
        "--autopilot",
        "--level",
        level,
        "--character",
        cesium.to_str().unwrap(),
        "--metrics",
        metrics.to_str().unwrap(),
    ];
    if let Some(r) = rig {
        args.extend(["--rig", r]);
    }
    let out = ironstep(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&metrics).unwrap()).unwrap();
    doc["summary"].clone()
}

#[test]
fn cesium_man_auto_mapped_meets_his_hand_written_rigs_figures() {
    let f = |s: &Value, k: &str| s[k].as_f64().unwrap_or_else(|| panic!("{k}: {s}"));
    for level in ["builtin", "tutorial", "long", "tower"] {
        let auto = cesium_summary(level, None);
        let hand = cesium_summary(level, Some("assets/rigs/cesium_man.rig.ron"));
        eprintln!("{level}: auto {auto}\n{level}: hand {hand}");
        assert_eq!(auto["exit_reached"], true, "{level}");
        // The joint speed limit acts on at most 2 % of his frames (the
        // target) and no more than with his hand-written rig, but for half
        // a percent of the frames: the two rigs now name the same clips
        // (his walk, the knight's run, jump and fall) and differ only in
        // what the inference measures (knee axes 0.01–0.04 off the rig
        // file's, the walk's stride 1.68 against 1.69 m), and frames the
        // hand rig turns a joint at 15–18.7 rad/s the auto rig may turn
        // past the limit's 19; today 20/1619 and 35/2883 against 19 and
        // 23 (96, 117, 209, 58 against 364, 407, 453, 241 while his rig
        // file ran his walk four times over).
        let (a, h) = (
            f(&auto, "joint_speed_limited_frames"),
            f(&hand, "joint_speed_limited_frames"),
        );
        let frames = f(&auto, "frames");
        assert!(a <= 0.02 * frames, "{level}: {a} of {frames}");
        assert!(a <= h + 0.005 * frames, "{level}: {a} against {h}");
        // Feet within the knight's targets, as with his rig (today at most
        // 2.5 mm planted and 2.3 mm of slide, against 1.3 and 2.1).
        assert!(f(&auto, "planted_foot_max_error_m") <= 0.005, "{level}");
        assert!(f(&auto, "stance_slide_max_m") <= 0.01, "{level}");
        for k in ["rung_contact_max_error_m", "hand_hold_max_error_m"] {
            assert!(f(&auto, k) <= 0.005, "{level} {k}");
        }
        assert!(f(&auto, "max_root_snap_m") <= 0.01, "{level}");
        assert_eq!(auto["nan_count"], 0);
    }
}

/// Where a foreign humanoid's arms let go of a ladder or cross from its
/// walk into its climb, no joint turns faster than the 20 rad/s of a pop:
/// - Kenney's characterMedium on the builtin level's ladder: his idle's
///   arms hang and his procedural climb's reach up and out, half a turn
///   apart at the shoulder; crossing over, the blend of the two flipped
///   sides in one frame (35 rad/s; 167 on the tutorial), until each joint
///   is blended in the hemisphere of the frame before's blended rotation
///   (`animation::blend_near`; near the frame before's final rotation, which
///   ladder IK had turned far from the animation, it still jumped on the
///   tutorial: 29.8); 19.0 and 19.4 today.
/// - RiggedFigure on the tutorial's script: a hand letting go of the
///   ladder's top was solved back onto its easing hold after the speed
///   limit had slowed it (57 rad/s), until a hand letting go holds
///   nothing for the limit; 19.0 today.
/// - Kenney on the long level's script, getting onto a ladder from its top:
///   a hand still reaching for its rung was held in full against the limit
///   (his wrist 175 rad/s), until it holds only as much as it has reached;
///   then 40 rad/s (his arm, as his climb's arms reach up and out, solved
///   back onto the part of the hold reached) until a hand still reaching
///   goes only as fast as the limit lets its arm; 19.7 today.
#[test]
fn foreign_arms_cross_into_and_out_of_a_climb_without_a_pop() {
    let f = |s: &Value, k: &str| s[k].as_f64().unwrap_or_else(|| panic!("{k}: {s}"));
    for level in ["builtin", "tutorial"] {
        let kenney = humanoid_autopilot(
            "KenneyCharacterMedium/characterMedium.glb",
            level,
            "auto_rig_pop",
        );
        let fastest = f(&kenney, "max_joint_angular_speed_rad_s");
        assert!(fastest <= 20.0, "Kenney on {level}: {fastest} rad/s");
    }

    for (m, level, frames, bound) in [
        ("RiggedFigure/RiggedFigure.glb", "tutorial", "4700", 20.0),
        (
            "KenneyCharacterMedium/characterMedium.glb",
            "long",
            "4400",
            20.0,
        ),
    ] {
        let s = humanoid_script(m, level, frames, "auto_rig_pop");
        assert_eq!(s["goal_reached"], true, "{m} on {level}.txt: {s}");
        let fastest = f(&s, "max_joint_angular_speed_rad_s");
        assert!(fastest <= bound, "{m} on {level}.txt: {fastest} rad/s");
    }
}

/// Every shipped script on its own level (the others on the built-in
/// one) and the frames it needs: its last line's time plus four seconds.
const SCRIPTS: [(&str, &str, &str); 8] = [
    ("ladders", "builtin", "2570"),
    ("long", "long", "4339"),
    ("slopes_run", "builtin", "825"),
    ("slopes_walk", "builtin", "1728"),
    ("tower", "tower", "5273"),
    ("transitions", "builtin", "4595"),
    ("tutorial", "tutorial", "4614"),
    ("walls", "assets/levels/walls.tmx", "2208"),
];

/// Shared model `m` plays every shipped script with no rig file and
/// reaches its goal; its planted feet stay within `planted` of the floor
/// and `slide` of where they were put (metres), no joint turns faster than
/// `joint` rad/s, and the joint speed limit acts on at most
/// `RIG_LIMITED_SHARE` of its frames (issue 32: the limit a safety net;
/// Kenney's `slopes_run` was over it by a frame, 17 of 825, until a foot
/// lifted out of a slope as it comes down rises no faster than
/// `SLOPE_CLAMP_SPEED`). On every script but those in `sole_gaps` (the
/// known misses, each named where it is called), issue 32's 1 cm targets
/// hold too: no skinned sole of a foot the clip has down more than 1 cm
/// under or over the floor, and no such foot, not locked, more than 1 cm
/// off it.
fn humanoid_scripts_within(m: &str, planted: f64, slide: f64, joint: f64, sole_gaps: &[&str]) {
    let f = |s: &Value, k: &str| s[k].as_f64().unwrap_or_else(|| panic!("{k}: {s}"));
    let mut over = Vec::new();
    for (script, level, frames) in SCRIPTS {
        let name = format!(
            "auto_rig_scripts_{}_{script}.json",
            m.split('/').next().unwrap()
        );
        let input = format!("assets/scripts/{script}.txt");
        let args = ["--level", level, "--input", &input, "--frames", frames];
        let doc = humanoid_run(m, &args, &name);
        let s = &doc["summary"];
        assert_eq!(s["goal_reached"], true, "{m} on {script}.txt: {s}");
        assert_eq!(s["nan_count"], 0, "{m} on {script}.txt");
        let share = crate::common::limited_share(&doc);
        if share > crate::common::RIG_LIMITED_SHARE {
            over.push(format!(
                "{script}.txt: the joint speed limit on {:.2} % of frames",
                share * 100.0
            ));
        }
        let soles: &[&str] = if sole_gaps.contains(&script) {
            &[]
        } else {
            &FEET_ON_THE_FLOOR
        };
        let targets = [
            ("planted_foot_max_error_m", planted),
            ("stance_slide_max_m", slide),
            ("max_joint_angular_speed_rad_s", joint),
        ];
        for (k, bound) in targets.into_iter().chain(soles.iter().map(|&k| (k, 0.01))) {
            if f(s, k) > bound {
                over.push(format!("{script}.txt: {k} {:.4} > {bound}", f(s, k)));
            }
        }
    }
    assert!(over.is_empty(), "{m}: {over:#?}");
}

/// RiggedFigure on every shipped script: planted feet within 5 mm and
/// 1 cm of slide, joints under 20 rad/s, the targets. On the walls a foot
/// planted on a 0.3 m block was pushed 11 cm into it as the hip lowered for
/// the other foot's landing beyond (108.7 mm planted, 129.8 mm of slide,
/// 23.4 rad/s) until the pelvis is never lowered onto a locked foot; on the
/// tutorial a foot standing by the pit with its sole over the lift read as
/// sliding 47 mm as the lift left, until the metrics judge a plant in the
/// frame of the floor under its ankle (where foot IK holds it). Known
/// gaps in the 1 cm sole targets: near the top of the builtin level's 45°
/// climb a foot coming down walking 10.3 mm off the floor (`slopes_walk`)
/// and one let go of running 15.7 mm over it (`transitions`); on `walls`
/// his rear foot, let go of below the 0.3 m block while his clip still has
/// it down, 26.3 mm off it.
#[test]
fn rigged_figure_keeps_its_feet_on_every_shipped_script() {
    humanoid_scripts_within(
        "RiggedFigure/RiggedFigure.glb",
        0.005,
        0.01,
        20.0,
        &["slopes_walk", "transitions", "walls"],
    );
}

/// Kenney on every shipped script: planted feet, slide and joints within
/// the targets (40 rad/s on `long` until a hand still reaching for its
/// rung goes only as fast as the limit lets its arm, see
/// `foreign_arms_cross_into_and_out_of_a_climb_without_a_pop`), and the
/// 1 cm sole targets on every script.
#[test]
fn kenney_keeps_its_feet_on_every_shipped_script() {
    humanoid_scripts_within(
        "KenneyCharacterMedium/characterMedium.glb",
        0.005,
        0.01,
        20.0,
        &[],
    );
}

/// Mannequiny on every shipped script: slide within the target (11.5 to
/// 15.7 mm on tower, walls and tutorial until a held leg is solved again
/// where one two-bone pass misses: his idle scales his thighs), joints
/// under 20 rad/s (25 on `tutorial` and 23.5 on `transitions`, setting off
/// from his idle, until a lock whose leg would pop lets go). Known gap: a
/// foot planted near the top of `long`'s 45° climb 13.6 mm off the floor
/// (target 5 mm). Known gap in the 1 cm sole targets: on `walls` a foot
/// landing on the 0.3 m block comes down 16.2 mm late as the joint speed
/// limit holds it. On `slopes_walk` he stops just short of the stairs: his
/// swinging foot was planned onto the first tread (the gait's stride
/// carried on past where the body stops) and came down 24.9 mm late until
/// a stopping body's swing lands no further than it stops
/// (`Player::stop_distance`).
#[test]
fn mannequiny_keeps_its_feet_on_every_shipped_script() {
    humanoid_scripts_within("Mannequiny/mannequiny.glb", 0.015, 0.01, 20.0, &["walls"]);
}

/// CesiumMan with no rig file on every shipped script: planted feet within
/// 5 mm, 1 cm of slide, joints under 20 rad/s, the limit's share and the
/// 1 cm sole targets on every script (the walls script the last to meet
/// them: stopped by the 0.5 m wall, his front foot came down 12.8 mm under
/// the floor with its toes in the wall, see
/// `cesium_man_steps_back_from_a_wall_instead_of_sliding_his_toes_in_it`).
#[test]
fn cesium_man_keeps_its_feet_on_every_shipped_script() {
    humanoid_scripts_within("CesiumMan/CesiumMan.glb", 0.005, 0.01, 20.0, &[]);
}

/// CesiumMan's toes bent up out of the floor do not fold the skin behind
/// them into it: the walls, tutorial and slopes scripts started a quarter
/// and an eighth of a gait cycle on, where his toes bend up to 45° (onto a
/// slope ahead, out of a step's riser), keep every sole within issue 32's
/// 1 cm of the floor. His sole is skinned half to his toes 3.9 cm behind
/// his toe joint; bent about the joint, the toes carried that skin 32.6 mm
/// into the floor (`walls` at a quarter) and 10.6 mm to 13.6 mm on the
/// others. They now bend about that crease while it is on the floor
/// (`Character::toe_pivot`).
#[test]
fn cesium_mans_bent_toes_keep_the_skin_behind_them_out_of_the_floor() {
    let mut over = Vec::new();
    for (script, level, frames, phase) in [
        ("walls", "assets/levels/walls.tmx", "2208", "0.25"),
        ("tutorial", "tutorial", "4614", "0.25"),
        ("slopes_run", "builtin", "825", "0.125"),
    ] {
        let input = format!("assets/scripts/{script}.txt");
        let args = [
            "--level",
            level,
            "--input",
            &input,
            "--frames",
            frames,
            "--gait-phase",
            phase,
        ];
        let name = format!("auto_rig_cesium_crease_{script}.json");
        let doc = humanoid_run("CesiumMan/CesiumMan.glb", &args, &name);
        let s = &doc["summary"];
        assert_eq!(s["goal_reached"], true, "{script}: {s}");
        let run = format!("{script} at phase {phase}");
        over_a_centimetre(
            &run,
            s,
            &["sole_penetration_max_m", "sole_float_max_m"],
            &mut over,
        );
    }
    assert!(over.is_empty(), "over the 1 cm target: {over:#?}");
}

/// The summary figures of a foot on the floor that issue 32 holds to 1 cm:
/// the skinned sole under it and over it, and a foot put down but not
/// locked off it.
const FEET_ON_THE_FLOOR: [&str; 3] = [
    "sole_penetration_max_m",
    "sole_float_max_m",
    "unlocked_contact_max_error_m",
];

/// Adds to `over` each of the figures `keys` of summary `s` (of run `run`)
/// over issue 32's 1 cm.
fn over_a_centimetre(run: &str, s: &Value, keys: &[&str], over: &mut Vec<String>) {
    for k in keys {
        let v = s[k].as_f64().unwrap();
        if v > 0.01 {
            over.push(format!("{run}: {k} {v:.4} m"));
        }
    }
}

/// CesiumMan's walk plays in step with his run (`ClipSet::walk_phase_offset`):
/// the autopilot on the tutorial, started an eighth and five eighths of a
/// gait cycle on, keeps every foot within issue 32's 1 cm of the floor.
/// His own walk reaches each foot out 0.38 of a cycle after the knight's
/// run he runs with; played in one phase, a blend of the two had a foot in
/// its stance in one clip and in mid-swing in the other, and a foot the
/// blend called down stood 69.9 mm over the floor.
#[test]
fn cesium_mans_walk_and_run_blend_with_each_foot_in_one_place() {
    let mut over = Vec::new();
    for phase in ["0.125", "0.625"] {
        let args = ["--level", "tutorial", "--autopilot", "--gait-phase", phase];
        let doc = humanoid_run(
            "CesiumMan/CesiumMan.glb",
            &args,
            &format!("auto_rig_cesium_in_step_{phase}.json"),
        );
        let s = &doc["summary"];
        assert_eq!(s["exit_reached"], true, "at phase {phase}: {s}");
        let run = format!("tutorial autopilot at phase {phase}");
        over_a_centimetre(&run, s, &FEET_ON_THE_FLOOR, &mut over);
    }
    assert!(over.is_empty(), "over the 1 cm target: {over:#?}");
}

/// CesiumMan and RiggedFigure running the builtin level's autopilot onto
/// its 45° climb with a foot still planted on the flat behind them (the
/// gait started a quarter of a cycle on): the body rises 4 cm in a frame
/// there, and the pelvis holds the hips down for the planted knee
/// (`HOLD_KNEE_SPEED`). Before, the knee straightened past the joint speed
/// limit, which let go of the lock: the foot stood 15.8 mm (CesiumMan) and
/// 24.1 mm (RiggedFigure) over the floor while its clip still had it down.
#[test]
fn a_foot_planted_behind_a_body_running_onto_a_climb_stays_down() {
    let mut over = Vec::new();
    for model in ["CesiumMan/CesiumMan.glb", "RiggedFigure/RiggedFigure.glb"] {
        let args = ["--level", "builtin", "--autopilot", "--gait-phase", "0.25"];
        let name = model.split('/').next().unwrap();
        let doc = humanoid_run(model, &args, &format!("auto_rig_climb_start_{name}.json"));
        let s = &doc["summary"];
        assert_eq!(s["exit_reached"], true, "{name}: {s}");
        over_a_centimetre(
            &format!("{name}, builtin autopilot"),
            s,
            &FEET_ON_THE_FLOOR,
            &mut over,
        );
    }
    assert!(over.is_empty(), "over the 1 cm target: {over:#?}");
}

/// Every model running the builtin level's autopilot onto the top of its
/// 45° climb (the crest at x = 22.5 m, the top 1.5 m up) swings its rear
/// foot over the crest, not through it: each swinging foot's mesh at most
/// 25 mm under the floor while the body is on the top's first metre (the
/// knight's at most 5 mm), at gait phases 0 and 1/8. Raised by no more than
/// 0.04 of the leg over the straight line from lift-off to landing (before
/// `HOLD_KNEE_SPEED` let the stance knee keep its pace), the feet swung
/// 85–194 mm under the crest.
#[test]
fn every_model_swings_its_rear_foot_over_a_climbs_crest() {
    let models = [
        None,
        Some("CesiumMan/CesiumMan.glb"),
        Some("KenneyCharacterMedium/characterMedium.glb"),
        Some("Mannequiny/mannequiny.glb"),
        Some("RiggedFigure/RiggedFigure.glb"),
    ];
    let mut deepest = Vec::new();
    for model in models {
        for phase in ["0", "0.125"] {
            let args = ["--level", "builtin", "--autopilot", "--gait-phase", phase];
            let name = model.map_or("knight", |m| m.split('/').next().unwrap());
            let file = format!("auto_rig_crest_{name}_{phase}.json");
            let doc = model_run(model, &args, &file);
            let on_top = |f: &&Value| {
                let pos = &f["pos"];
                let (x, y) = (pos[0].as_f64().unwrap(), pos[1].as_f64().unwrap());
                (22.5..=23.5).contains(&x) && y >= 1.49
            };
            let swings: Vec<f64> = doc["frames"]
                .as_array()
                .unwrap()
                .iter()
                .filter(on_top)
                .flat_map(|f| f["feet"].as_array().unwrap().clone())
                .filter_map(|ft| ft["swing_penetration_m"].as_f64())
                .collect();
            // The window holds swinging feet (a changed level would leave
            // it empty, and the test would prove nothing).
            assert!(
                swings.len() >= 10,
                "{name} at {phase}: {} swinging foot-frames",
                swings.len()
            );
            let most = swings.iter().copied().fold(0.0, f64::max);
            let bound = if model.is_none() { 0.005 } else { 0.025 };
            if most > bound {
                deepest.push(format!("{name} at phase {phase}: {:.1} mm", most * 1000.0));
            }
        }
    }
    assert!(
        deepest.is_empty(),
        "feet swung under the crest: {deepest:#?}"
    );
}

/// RiggedFigure with no rig file walking our made level there and back
/// (`tests/levels/descents.tmx`: a 1 m 45° descent into 0.25 m stairs):
/// the joint speed limit acts on at most `RIG_LIMITED_SHARE` of the
/// frames (today 1.50 %), and the pelvis never drops more than 15 cm in a
/// frame (today 11.1 cm). Walking down the descent he landed on the stair
/// two risers below his rear foot, which held the pelvis up by its fold;
/// as that foot let go the pelvis fell 0.29 m in one frame, and the limit
/// acted for 21 frames (2.18 % of the run). A walking foot that cannot
/// reach past a step down now lands short of it, as a running one does.
#[test]
fn rigged_figure_walks_down_into_stairs_without_the_pelvis_falling() {
    let args = [
        "--level",
        "tests/levels/descents.tmx",
        "--input",
        "tests/levels/descents_walk.txt",
        "--frames",
        "3072",
    ];
    let doc = humanoid_run(
        "RiggedFigure/RiggedFigure.glb",
        &args,
        "auto_rig_rigged_figure_descents_walk.json",
    );
    assert_eq!(doc["summary"]["goal_reached"], true, "{}", doc["summary"]);
    let share = crate::common::limited_share(&doc);
    assert!(
        share <= crate::common::RIG_LIMITED_SHARE,
        "the joint speed limit on {:.2} % of frames",
        share * 100.0
    );
    let frames = doc["frames"].as_array().unwrap();
    let drop = |f: &Value| f["pelvis_drop"].as_f64().unwrap();
    let (fall, at) = frames
        .windows(2)
        .map(|w| (drop(&w[1]) - drop(&w[0]), w[1]["frame"].as_u64().unwrap()))
        .fold((0.0f64, 0), |a, b| if b.0 > a.0 { b } else { a });
    assert!(fall <= 0.15, "the pelvis dropped {fall} m in frame {at}");
}

/// CesiumMan with no rig file running the builtin level's slopes: no sole
/// of a foot his clip has down more than 1 cm above the floor (today 6.0
/// mm). His toe joint lies half as far ahead of his ankle as the ball foot
/// IK used to stand him on (at `SOLE_FIT_BALL` of his toes' reach, on the
/// toes his clip bends up): rolled onto that ball, the rest of his sole
/// stood up to 1.6 cm above the floor here (2.4 cm on `long`).
#[test]
fn cesium_man_stands_on_the_sole_behind_his_toes() {
    soles_within_a_centimetre_above_running_the_slopes(
        "CesiumMan/CesiumMan.glb",
        "auto_rig_cesium_man_soles.json",
    );
}

/// RiggedFigure with no rig file running the builtin level's slopes: no
/// foot his clip has down more than 1 cm over or under the floor. Running
/// up the 45° climb his stance knee would have to straighten faster than
/// the joint speed limit allows; his heel rises onto the ball instead
/// (`foot_ik::PUSH_OFF_KNEE_SPEED`), as a runner's does pushing off.
#[test]
fn rigged_figure_pushes_off_his_ball_running_up_a_climb() {
    soles_within_a_centimetre_above_running_the_slopes(
        "RiggedFigure/RiggedFigure.glb",
        "auto_rig_rigged_figure_push_off.json",
    );
}

/// Kenney's character with no rig file running the builtin level's slopes:
/// no sole of a foot his clip has down more than 1 cm above the floor
/// (today 2.9 mm). A foot let go of on a slope while his clip still had it
/// down was set at the height of the ground under his animated ankle, not
/// under where it stood on its way back along the slope: up to 1.3 cm above
/// it here (on `long` 1.95 cm then, 6.5 mm now).
#[test]
fn kenney_stands_on_a_slope_where_his_released_foot_is() {
    soles_within_a_centimetre_above_running_the_slopes(
        "KenneyCharacterMedium/characterMedium.glb",
        "auto_rig_kenney_released_on_slope.json",
    );
}

/// CesiumMan with no rig file on the walls script: no sole of a foot his
/// clip has down more than 1 cm above the floor (today 5.4 mm). Standing by
/// the ladder's top, his idle (his walk held mid-stride) stood his front
/// foot wholly past the ledge's edge, its heel 2.5 cm above the ledge, for
/// 57 frames; now it is placed back on the ledge.
#[test]
fn cesium_man_stands_back_on_a_ledge_his_idle_overreaches() {
    let doc = walls_run("CesiumMan/CesiumMan.glb", "auto_rig_cesium_man_ledge.json");
    let s = &doc["summary"];
    let float = s["sole_float_max_m"].as_f64().unwrap();
    assert!(float <= 0.01, "a sole {float} m above the floor: {s}");
}

/// CesiumMan with no rig file on the walls script, stopped by the 0.5 m
/// wall: no foot of his stands more than 1 cm under the floor on any frame
/// (today 8.7 mm; 12.8 mm for four frames as his idle came in, until a foot
/// coming down as the body brakes in a walk that plans no swing is placed
/// as a standing one, clear of the wall). His front foot,
/// let go of by the joint speed limit 8.6 cm past its place, slid back
/// along the floor with its toes in the wall, bent up as far as they go,
/// and the sole behind them 13.8 mm under the floor for 12 frames; it now
/// steps back in an arc (`joint_limit::restep`).
#[test]
fn cesium_man_steps_back_from_a_wall_instead_of_sliding_his_toes_in_it() {
    let doc = walls_run(
        "CesiumMan/CesiumMan.glb",
        "auto_rig_cesium_man_wall_restep.json",
    );
    let frames = doc["frames"].as_array().unwrap();
    let mut longest = [0usize; 2];
    let mut run = [0usize; 2];
    for (k, fr) in frames.iter().enumerate() {
        for (i, ft) in fr["feet"].as_array().unwrap().iter().enumerate().take(2) {
            let under = ft["sole_penetration_m"].as_f64().unwrap_or(0.0);
            run[i] = if under > 0.01 { run[i] + 1 } else { 0 };
            if run[i] > longest[i] {
                longest[i] = run[i];
                eprintln!("foot {i}: {} frames under the floor to frame {k}", run[i]);
            }
        }
    }
    assert!(
        longest.iter().all(|&n| n == 0),
        "a foot more than 1 cm under the floor for {longest:?} frames in a row"
    );
}

/// RiggedFigure with no rig file on the walls script: no sole of a foot his
/// clip has down more than 1 cm above or under the floor (today 0.5 mm
/// above, 5.6 mm under). Stepping up onto the 0.3 m block, his rear foot on
/// the floor below was let go of flat as his leg ran out of reach and hung
/// up to 7 cm over the floor for three frames while his clip still had it
/// down; it now rises onto its ball first (`foot_ik::heel_lift` on level
/// floor), its toes on the floor as it pushes off.
#[test]
fn rigged_figure_pushes_off_his_toes_stepping_up_onto_a_block() {
    let doc = walls_run(
        "RiggedFigure/RiggedFigure.glb",
        "auto_rig_rigged_figure_step_up.json",
    );
    let s = &doc["summary"];
    let float = s["sole_float_max_m"].as_f64().unwrap();
    let under = s["sole_penetration_max_m"].as_f64().unwrap();
    assert!(float <= 0.01, "a sole {float} m above the floor: {s}");
    assert!(under <= 0.01, "a sole {under} m under the floor: {s}");
}

/// Shared model `m` with no rig file plays the walls level's script
/// (`assets/levels/walls.tmx`, `walls.txt`, to its end), its metrics in
/// `json`.
fn walls_run(m: &str, json: &str) -> Value {
    let args = [
        "--level",
        "assets/levels/walls.tmx",
        "--input",
        "assets/scripts/walls.txt",
        "--frames",
        "2208",
    ];
    humanoid_run(m, &args, json)
}

/// Shared model `m` with no rig file runs `slopes_run` on the builtin
/// level (its metrics in `json`): no sole of a foot its clip has down more
/// than 1 cm above or under the floor on any frame, and no foot it has down
/// and not locked more than 1 cm off it.
fn soles_within_a_centimetre_above_running_the_slopes(m: &str, json: &str) {
    let args = [
        "--level",
        "builtin",
        "--input",
        "assets/scripts/slopes_run.txt",
        "--frames",
        "825",
    ];
    let doc = humanoid_run(m, &args, json);
    let s = &doc["summary"];
    let float = s["sole_float_max_m"].as_f64().unwrap();
    assert!(float <= 0.01, "{m}: a sole {float} m above the floor: {s}");
    // Nor under it: a foot off its lock on the 45° climb was raised out of
    // it by half its sink (CesiumMan 10.3 mm, Kenney 11.4 mm; today 8.7
    // and 7.5 mm).
    let under = s["sole_penetration_max_m"].as_f64().unwrap();
    assert!(under <= 0.01, "{m}: a sole {under} m under the floor: {s}");
    // Nor a foot its clip has down, not locked, off the floor: running up
    // the 45° climb a stance knee needed more than 20 rad/s and the joint
    // speed limit let go of its lock where it left the foot (CesiumMan
    // 10.1 mm, RiggedFigure 24.5 mm, before the push-off lifted the heel
    // for the knee's pace; today 5.5 and 8.8 mm).
    let off = s["unlocked_contact_max_error_m"].as_f64().unwrap();
    assert!(
        off <= 0.01,
        "{m}: a foot down {off} m off the floor, not locked: {s}"
    );
}

/// Kenney and RiggedFigure with no rig file running up the tutorial's
/// 0.25 m stairs (its script to frame 562, the last landing at x 29.1):
/// every foot their clip has down within 1 cm of the tread, the skinned
/// sole neither under nor over it by more. The fold limit of a swinging leg
/// (`foot_ik::SWING_FOLD`) held each landing foot 5–6 cm under the tread
/// until the frame its clip called it down (Kenney's sole 16.7 mm inside
/// the tread, RiggedFigure's 10.2 mm); it lets go of it over the swing's
/// last quarter now (`SWING_FOLD_RELEASE`; today 8.1 and 5.6 mm).
#[test]
fn short_legs_land_on_the_tread_running_up_stairs() {
    let args = on_script("tutorial", "assets/scripts/tutorial.txt", "562");
    // From the foot of the stairs (x 25.2 at frame 480) to the top.
    feet_on_the_floor_over(
        "KenneyCharacterMedium/characterMedium.glb",
        &args,
        480..562,
        "auto_rig_kenney_stairs_up.json",
    );
    feet_on_the_floor_over(
        "RiggedFigure/RiggedFigure.glb",
        &args,
        480..562,
        "auto_rig_rigged_figure_stairs_up.json",
    );
}

/// CesiumMan running up the tutorial's stairs and Kenney at the foot of
/// the builtin level's ladder step, both with no rig file: their toes,
/// reaching past the tread's end into the next riser, bend up until they
/// are out of it (`foot_ik::riser_bend`), not onto the tread above: bent
/// that far, CesiumMan's sole, half skinned to his toes across the ball,
/// folded 13.9 mm into the tread he stood on (today 9.8 mm), and Kenney's
/// 11.4 mm (today 8.5 mm).
#[test]
fn toes_in_a_riser_bend_only_out_of_it() {
    feet_on_the_floor_over(
        "CesiumMan/CesiumMan.glb",
        &on_script("tutorial", "assets/scripts/tutorial.txt", "600"),
        480..600,
        "auto_rig_cesium_man_stairs_up.json",
    );
    feet_on_the_floor_over(
        "KenneyCharacterMedium/characterMedium.glb",
        &on_script("builtin", "assets/scripts/ladders.txt", "620"),
        580..620,
        "auto_rig_kenney_ladders_riser.json",
    );
}

/// CesiumMan on the tutorial's script and Kenney on its autopilot, both
/// with no rig file, landing running at the foot of its 30° climb (x 13):
/// every foot their clip has down within 1 cm of the floor, the skinned
/// sole neither under nor over it by more. Their toes, reaching into the
/// slope as the foot came down across the corner onto the chord it rests
/// on, bent out of it only from the frame the foot landed, at
/// `foot_ik::TOE_BEND_SPEED` (CesiumMan 20.5 mm in the slope, Kenney 15.4
/// mm); they bend as the foot comes down now (today 6.7 and 6.4 mm).
#[test]
fn toes_are_out_of_a_climb_as_a_runner_lands_at_its_foot() {
    feet_on_the_floor_over(
        "CesiumMan/CesiumMan.glb",
        &on_script("tutorial", "assets/scripts/tutorial.txt", "260"),
        200..260,
        "auto_rig_cesium_man_climb_foot.json",
    );
    feet_on_the_floor_over(
        "KenneyCharacterMedium/characterMedium.glb",
        &["--level", "tutorial", "--autopilot"],
        200..260,
        "auto_rig_kenney_climb_foot.json",
    );
}

/// Mannequiny with no rig file on the tower's autopilot, standing at the
/// foot of a 7 cm step with his toes reaching past its riser: his soles
/// within 1 cm of the floor. Bent until their tip reached the step's top,
/// his toes' underside went through the step's corner (14.7 mm into it);
/// bent far enough that their sole clears the corner
/// (`foot_ik::corner_bend`), 8.1 mm today.
#[test]
fn toes_over_a_low_step_clear_its_corner() {
    feet_on_the_floor_over(
        "Mannequiny/mannequiny.glb",
        &["--level", "tower", "--autopilot"],
        660..740,
        "auto_rig_mannequiny_low_step.json",
    );
}

/// Mannequiny with no rig file on `long`'s autopilot, his trailing foot
/// down at the foot of a 45° climb with his toes reaching into it: his soles
/// within 1 cm of the floor. His toes were bent up until their tip reached
/// the climb's height under the unbent tip; bending, the tip moves back
/// toward its joint, where the climb is lower, and the foot stood 15 mm
/// over it. Set on the climb's line where the tip comes to, 5.4 mm today.
#[test]
fn toes_at_the_foot_of_a_climb_bend_onto_its_line() {
    feet_on_the_floor_over(
        "Mannequiny/mannequiny.glb",
        &["--level", "long", "--autopilot"],
        720..770,
        "auto_rig_mannequiny_climb_toes.json",
    );
}

/// Kenney on the builtin level's autopilot and CesiumMan on `long`'s
/// script, both with no rig file, setting a foot down just over the top of
/// a descent (30° and 45°) with its heel over the flat above: their soles
/// within 1 cm of the ground. The heel, past the slope's end, was held out
/// of the slope's line only, not of the flat it is over, while the foot
/// turned onto the slope: 14.3 mm in the flat for five frames (Kenney),
/// 20.7 mm (CesiumMan); today 9.5 and 2.5 mm.
#[test]
fn a_heel_over_the_top_of_a_descent_stays_out_of_the_flat() {
    feet_on_the_floor_over(
        "KenneyCharacterMedium/characterMedium.glb",
        &["--level", "builtin", "--autopilot"],
        300..340,
        "auto_rig_kenney_crest_heel.json",
    );
    feet_on_the_floor_over(
        "CesiumMan/CesiumMan.glb",
        &on_script("long", "assets/scripts/long.txt", "860"),
        800..860,
        "auto_rig_cesium_man_crest_heel.json",
    );
}

/// Kenney on the tutorial's and `long`'s scripts and CesiumMan on the
/// tutorial's, all with no rig file, setting a foot down with its heel or
/// its ball hanging past the end of the floor under it (a step's edge, the
/// top of a climb, a crest): their soles within 1 cm of the floor. Only the
/// heel and the ball were kept out of the floor, and the one past its end
/// not at all: the sole between them, over the floor's corner, went into
/// it (Kenney 12.4 and 11.0 mm, the heel pad under his ankle; CesiumMan
/// 10.2 mm). Now the sole's own underside between them is kept out too
/// (`Character::sole_profile`).
#[test]
fn a_sole_over_a_floors_end_stays_out_of_its_corner() {
    let kenney = "KenneyCharacterMedium/characterMedium.glb";
    for (m, level, to, frames, name) in [
        (
            kenney,
            "tutorial",
            "3260",
            3200..3260,
            "kenney_corner_tutorial",
        ),
        (kenney, "long", "800", 740..800, "kenney_corner_long"),
        (
            "CesiumMan/CesiumMan.glb",
            "tutorial",
            "480",
            430..480,
            "cesium_man_corner",
        ),
    ] {
        let script = format!("assets/scripts/{level}.txt");
        let name = format!("auto_rig_{name}.json");
        feet_on_the_floor_over(m, &on_script(level, &script, to), frames, &name);
    }
}

/// Stopping, the last slow steps draw the stride in under the hips while
/// the gait fades out under the idle. Scaled back to the clip's own stride
/// the frame the body came to rest, Mannequiny's feet jumped back out to it
/// (`transitions` frame 735, a foot 17.4 mm off the floor); drawn in as
/// fast as the body braked (up to 4 m/s), RiggedFigure's rear foot, let go
/// of as its clip lifted it, followed at a knee speed over the joint speed
/// limit, which left its sole 40.9 mm in the floor (`long` frame 4087).
/// Now the stride stays where the last step left it, and is drawn in no
/// faster than `STRIDE_SCALE_FALL`.
#[test]
fn a_stop_leaves_the_feet_where_its_last_steps_put_them() {
    for (m, level, to, frames, name) in [
        (
            "Mannequiny/mannequiny.glb",
            "transitions",
            "760",
            715..760,
            "mannequiny_stop",
        ),
        (
            "RiggedFigure/RiggedFigure.glb",
            "long",
            "4100",
            4070..4100,
            "rigged_figure_stop",
        ),
    ] {
        let script = format!("assets/scripts/{level}.txt");
        let level = if level == "transitions" {
            "builtin"
        } else {
            level
        };
        let name = format!("auto_rig_{name}.json");
        feet_on_the_floor_over(m, &on_script(level, &script, to), frames, &name);
    }
}

/// Turning round from a stand, the facing swings the clip's feet round the
/// hips at up to 5 m/s. Slid along the floor there, CesiumMan's rear foot
/// (29 cm behind his hips) turned his knee at 28 rad/s, and the joint speed
/// limit left its sole 27.5 mm in the floor (`transitions` frame 129). Now
/// a foot let go of as the body turns steps round with it
/// (`TURN_STEP_SHARE`), kept out of the floor as it goes.
#[test]
fn turning_round_from_a_stand_steps_round() {
    let args = on_script("builtin", "assets/scripts/transitions.txt", "160");
    feet_on_the_floor_over(
        "CesiumMan/CesiumMan.glb",
        &args,
        110..160,
        "auto_rig_cesium_man_turn.json",
    );
}

/// Walking down `long`'s first 45° descent, RiggedFigure's rear foot stands
/// on the flat above its crest while the pelvis is as low as that leg's fold
/// allows. Let go of there at the end of its stance, the pelvis was held
/// where it was as the body went on down, and the fold limit pushed the foot
/// 17 mm into the floor for a frame (frame 856). Now the pelvis rises at
/// once to what a foot its clip has down allows, locked or not.
#[test]
fn a_rear_foot_let_go_of_above_a_descent_stays_on_the_floor() {
    let args = on_script("long", "assets/scripts/long.txt", "870");
    feet_on_the_floor_over(
        "RiggedFigure/RiggedFigure.glb",
        &args,
        840..870,
        "auto_rig_rigged_figure_crest.json",
    );
}

/// Walking up `slopes_walk`'s 45° climb, RiggedFigure's foot comes down
/// ahead while the pelvis is low for the trailing foot, lower than the
/// landing leg folds. Its lock waits for the body to come up; the pelvis
/// rose only as its easing let it, and the fold limit held the foot up to
/// 18.6 mm in the slope for four frames (frame 1042). Now it rises at once.
#[test]
fn a_foot_coming_down_onto_a_climb_waits_for_the_pelvis_no_longer() {
    let args = on_script("builtin", "assets/scripts/slopes_walk.txt", "1060");
    feet_on_the_floor_over(
        "RiggedFigure/RiggedFigure.glb",
        &args,
        1030..1060,
        "auto_rig_rigged_figure_climb_landing.json",
    );
}

/// Running up to `long`'s 0.25 m step at x 77, a foot comes down just
/// short of the riser. Moved back by no more than a fifth of the leg
/// (`RISER_MOVE_LEGS`), and the step itself too far ahead, RiggedFigure's
/// toe, pitched up at the heel strike, landed 2.4 cm into the riser (script,
/// frame 2270) and CesiumMan's stood 13 mm in it for seven frames as his
/// foot rolled (autopilot, 2148–2154). Now such a landing moves back as far
/// as the toe needs.
#[test]
fn a_run_landing_short_of_a_step_keeps_its_toe_out_of_the_riser() {
    let script = on_script("long", "assets/scripts/long.txt", "2274");
    for (m, args, frames, name) in [
        (
            "RiggedFigure/RiggedFigure.glb",
            &script[..],
            2262..2274,
            "auto_rig_rigged_figure_riser.json",
        ),
        (
            "CesiumMan/CesiumMan.glb",
            &["--level", "long", "--autopilot"][..],
            2140..2154,
            "auto_rig_cesium_man_riser.json",
        ),
    ] {
        feet_on_the_floor_over(m, args, frames, name);
    }
}

/// Running over the top of the builtin level's 45° descent (x 25), a
/// foot coming down with its ankle 4.6 cm past the crest had the sole
/// under its ankle over the flat behind it: its ground rose 6 cm to the
/// flat's the frame it came down, and with the joint speed limit acting
/// RiggedFigure's sole stood 32.8 mm over the slope (`transitions`, frame
/// 1521). Now a landing just over a crest moves on past it
/// (`CREST_TURN`).
#[test]
fn a_run_landing_just_over_a_crest_lands_on_the_slope() {
    let script = on_script("builtin", "assets/scripts/transitions.txt", "1530");
    feet_on_the_floor_over(
        "RiggedFigure/RiggedFigure.glb",
        &script,
        1512..1530,
        "auto_rig_rigged_figure_crest.json",
    );
}

/// Walking up onto the tutorial's climb, RiggedFigure's rear foot, locked
/// on the flat at its foot, was let go of because holding it would have
/// turned his knee 23.8 rad/s; limited at 19 rad/s, the foot his clip still
/// had down stood 10.2 mm over the floor (frame 232). Such a leg is now
/// limited just under the 20 rad/s pop (`LEG_HOLD_LIMIT_SPEED`).
#[test]
fn a_foot_let_go_of_for_its_knees_pace_stays_on_the_floor() {
    let script = on_script("tutorial", "assets/scripts/tutorial.txt", "240");
    feet_on_the_floor_over(
        "RiggedFigure/RiggedFigure.glb",
        &script,
        225..240,
        "auto_rig_rigged_figure_pop.json",
    );
}

/// Walking `long`, RiggedFigure's foot coming down onto the ground (its clip
/// has it down, not locked yet) was slowed by the joint speed limit at
/// 19 rad/s and stood 11.7 mm off the floor (frame 2276). A leg holding its
/// foot is now slowed only to just under the 20 rad/s pop
/// (`LEG_HOLD_LIMIT_SPEED`).
#[test]
fn a_foot_coming_onto_the_ground_is_slowed_no_more_than_it_must_be() {
    let script = on_script("long", "assets/scripts/long.txt", "2290");
    feet_on_the_floor_over(
        "RiggedFigure/RiggedFigure.glb",
        &script,
        2265..2290,
        "auto_rig_rigged_figure_soft.json",
    );
}

/// The arguments of `ironstep run` playing `script` on `level` for
/// `frames` frames.
fn on_script<'a>(level: &'a str, script: &'a str, frames: &'a str) -> [&'a str; 6] {
    ["--level", level, "--input", script, "--frames", frames]
}

/// Runs shared model `m` with no rig file (`ironstep run ARGS`) and checks
/// that over `frames` every foot its clip has down is within 1 cm of the
/// floor: its skinned sole neither under nor over it, and a foot not locked
/// not off it, by more.
fn feet_on_the_floor_over(m: &str, args: &[&str], frames: std::ops::Range<usize>, name: &str) {
    let doc = humanoid_run(m, args, name);
    let all = doc["frames"].as_array().unwrap();
    assert!(all.len() >= frames.end, "{m}: {} frames", all.len());
    let mut worst = (0.0f64, 0u64, "");
    for fr in &all[frames] {
        for foot in fr["feet"].as_array().unwrap() {
            for k in ["sole_penetration_m", "sole_float_m", "unlocked_error_m"] {
                if let Some(v) = foot[k].as_f64()
                    && v > worst.0
                {
                    worst = (v, fr["frame"].as_u64().unwrap(), k);
                }
            }
        }
    }
    assert!(
        worst.0 <= 0.01,
        "{m} with {args:?}: {} {:.4} m at frame {}",
        worst.2,
        worst.0,
        worst.1
    );
}

/// The metrics summary of shared model `m` playing level `level`'s own
/// script (`assets/scripts/LEVEL.txt`) for `frames` frames with no rig
/// file (the run's success checked); `test` names the calling test.
fn humanoid_script(m: &str, level: &str, frames: &str, test: &str) -> Value {
    let name = format!(
        "{test}_{}_{level}_script.json",
        m.split('/').next().unwrap()
    );
    let script = format!("assets/scripts/{level}.txt");
    let args = ["--level", level, "--input", &script, "--frames", frames];
    humanoid_run(m, &args, &name)["summary"].clone()
}

/// `ironstep run ARGS` with shared model `m` and no rig file, its metrics
/// written to the temporary file `name`; the run's success checked, its
/// metrics document returned.
fn humanoid_run(m: &str, args: &[&str], name: &str) -> Value {
    model_run(Some(m), args, name)
}

/// `ironstep run` with `args`, playing model `m` (a path under the shared
/// glTF folder) or the knight (`None`), its metrics written to `name` in
/// the test's temporary folder and returned.
fn model_run(m: Option<&str>, args: &[&str], name: &str) -> Value {
    let metrics = tmp(name);
    let path = m.map(shared);
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    if let Some(path) = &path {
        all.extend(["--character", path.to_str().unwrap()]);
    }
    all.extend(["--metrics", metrics.to_str().unwrap()]);
    let out = ironstep(&all);
    assert!(
        out.status.success(),
        "{m:?} with {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(&metrics).unwrap()).unwrap()
}
