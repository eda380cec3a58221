//! Any humanoid glTF as a playable character without a hand-written rig
//! file: its joints mapped by shape and names (or a VRM extension), its up
//! axis, scale, hinge axes and clip roles inferred, and the result written
//! as an ordinary rig file that `ironstep rig` prints and `--rig` reads
//! back.
//!
//! - [`names`]: joint names of the common conventions reduced to bones.
//! - [`shape`]: the pelvis, legs and arms found by the rest pose's shape.
//! - [`vrm`]: VRM 0.x and 1.0 humanoid bones from the glTF JSON.
//! - [`roles`]: which clip plays which state, by name and by measurement.
//! - [`normalize`]: the model turned Y-up and scaled, exactly.
//! - [`reattach`]: feet hung off the root re-parented under their shins.
//! - [`infer`]: all of it put together into a [`RigFile`].

pub mod infer;
pub mod names;
pub mod normalize;
pub mod reattach;
pub mod retarget;
pub mod roles;
pub mod shape;
pub mod vrm;

use animation::gltf_import::ImportedModel;
use glam::Vec3;

use crate::character::rig::{RigError, RigFile};
pub use infer::{Inferred, NotHumanoid};

/// Infers the rig of a loaded model; its VRM bones are read from the file at
/// `model.source` when it is one.
pub fn infer_model(model: &ImportedModel) -> Result<Inferred, NotHumanoid> {
    let bones = vrm::bones_of_file(std::path::Path::new(&model.source));
    infer::infer(model, bones.as_ref())
}

/// The inferred rig as a rig file: a header, one comment line per decision
/// and warning, then the RON that `--rig` reads.
pub fn to_ron(model: &str, inferred: &Inferred) -> String {
    let mut out = format!(
        "// Rig inferred by `ironstep rig` from {model}.\n// Edit a field and pass this file with --rig to correct a guess; a rig file\n// may name only some fields, the rest are inferred.\n"
    );
    for d in &inferred.decisions {
        out.push_str(&format!("// - {d}\n"));
    }
    for w in &inferred.warnings {
        out.push_str(&format!("// warning: {w}\n"));
    }
    let pretty = ron::ser::PrettyConfig::new().struct_names(false);
    let text = ron::ser::to_string_pretty(&inferred.rig, pretty).expect("a rig file serializes");
    out.push_str(&text);
    out.push('\n');
    out
}

/// The rig file `text` (labelled `file`) over the inferred rig, field by
/// field: every top-level field the file names wins, the rest are
/// inferred.
pub fn merge(inferred: &RigFile, text: &str, file: &str) -> Result<RigFile, RigError> {
    let parse_err = |reason: String| RigError::Parse {
        file: file.to_string(),
        reason,
    };
    let given: ron::Value = ron::from_str(text).map_err(|e| parse_err(e.to_string()))?;
    let ron::Value::Map(given) = given else {
        return Err(parse_err(
            "a rig file is one ( field: value, … ) struct".to_string(),
        ));
    };
    let base = ron::to_string(inferred).expect("a rig file serializes");
    let base: ron::Value = ron::from_str(&base).expect("a serialized rig file parses");
    let ron::Value::Map(mut base) = base else {
        unreachable!("a rig file serializes as a struct")
    };
    for (k, v) in given.iter() {
        base.insert(k.clone(), v.clone());
    }
    ron::Value::Map(base)
        .into_rust()
        .map_err(|e| parse_err(e.to_string()))
}

/// Turns and scales `model` as the rig's `up` and `scale` say (see
/// [`normalize`]); `file` labels errors.
pub fn apply(model: &mut ImportedModel, rig: &RigFile, file: &str) -> Result<(), RigError> {
    let up = Vec3::from(rig.up);
    if !(up.is_finite() && up.length() > 1e-3) {
        return Err(RigError::Invalid {
            file: file.to_string(),
            reason: "up must be a finite non-zero vector".to_string(),
        });
    }
    if !(rig.scale.is_finite() && rig.scale > 1e-4 && rig.scale < 1e4) {
        return Err(RigError::Invalid {
            file: file.to_string(),
            reason: format!(
                "scale {} must be a positive number (1e-4 to 1e4)",
                rig.scale
            ),
        });
    }
    let g = normalize::Similarity::new(up.normalize(), rig.scale);
    normalize::model(model, &g).map_err(|e| RigError::Invalid {
        file: file.to_string(),
        reason: format!("the model turned and scaled: {e}"),
    })
}

/// Holds still the control joints a model's clips animate: joints named as
/// helpers or controls (see `names::HELPER_WORDS`) that move no vertex and
/// have nothing below them that does. Kenney's rigs animate their foot IK
/// controllers (`LeftFootCtrl`, `LeftHeelRoll`, …) in every clip; they
/// deform nothing, yet their spins counted against the joint speed limit.
/// Returns how many joints were held still.
pub fn still_controls(
    skeleton: &animation::Skeleton,
    clips: &mut [animation::Clip],
    moves_vertices: &[bool],
) -> usize {
    let n = skeleton.len();
    // Whether a joint or anything below it moves vertices.
    let mut matters = moves_vertices.to_vec();
    matters.resize(n, false);
    for j in (0..n).rev() {
        if matters[j]
            && let Some(p) = skeleton.parent(j)
        {
            matters[p] = true;
        }
    }
    let still: Vec<bool> = (0..n)
        .map(|j| !matters[j] && names::is_helper(skeleton.name(j)))
        .collect();
    for c in clips.iter_mut() {
        c.translations.retain(|t| !still[usize::from(t.joint)]);
        c.rotations.retain(|t| !still[usize::from(t.joint)]);
        c.scales.retain(|t| !still[usize::from(t.joint)]);
    }
    still.iter().filter(|s| **s).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use animation::{Clip, Interpolation, JointDef, Skeleton, Track, Transform};
    use glam::{Mat4, Quat};

    #[test]
    fn control_joints_that_move_no_vertex_are_held_still() {
        let joints = [
            ("HipsCtrl", None),
            ("LeftFootCtrl", None),
            ("Hips", Some(0)),
            ("LeftHeelRoll", Some(1)),
        ];
        let skel = Skeleton::new(
            joints
                .iter()
                .map(|&(n, p)| JointDef {
                    name: n.to_string(),
                    parent: p,
                    rest: Transform::IDENTITY,
                    inverse_bind: Mat4::IDENTITY,
                })
                .collect(),
        )
        .unwrap();
        let track = |j: u16| Track {
            joint: j,
            interpolation: Interpolation::Linear,
            times: vec![0.0],
            values: vec![Quat::IDENTITY],
        };
        let mut clips = vec![Clip {
            name: "walk".into(),
            duration: 1.0,
            translations: Vec::new(),
            rotations: (0..4).map(track).collect(),
            scales: Vec::new(),
        }];
        // Only Hips moves vertices; HipsCtrl carries it, so it keeps moving.
        let n = still_controls(&skel, &mut clips, &[false, false, true, false]);
        assert_eq!(n, 2);
        let kept: Vec<u16> = clips[0].rotations.iter().map(|t| t.joint).collect();
        assert_eq!(kept, [0, 2]);
    }
}
