//! `ironstep inspect`: a model report for artists and riggers.
//!
//! Human output lists each skin's joint tree, the clips (name, duration,
//! channels), every mesh (vertices, triangles, influences; rigid parts
//! marked) and the import's warnings. `--json` prints one JSON document
//! with, per skin, each joint's name, parent and global transform in glTF
//! scene space (column-major) with the chosen clip sampled at `--time`, and
//! every mesh with its skin and node.

use std::fmt::Write as _;
use std::path::PathBuf;

use animation::gltf_import::{self, ImportedModel};
use animation::{Wrap, local_to_model, sample_at};
use anyhow::{Context, bail};
use glam::Mat4;
use serde::Serialize;

/// Arguments of `ironstep inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// The glTF model (.glb or .gltf) to inspect.
    pub model: PathBuf,
    /// The clip to pose the joints with, by name or index (default: clip 0).
    #[arg(long)]
    pub clip: Option<String>,
    /// The time in seconds at which the clip is sampled (clamped to the clip).
    #[arg(long, default_value_t = 0.0)]
    pub time: f32,
    /// Print one JSON document instead of the human report.
    #[arg(long)]
    pub json: bool,
}

/// The `--json` document.
#[derive(Serialize, Debug)]
pub struct Report {
    /// The model's path.
    pub model: String,
    /// The clip the joints are posed with (`null` when the model has none).
    pub clip: Option<String>,
    /// The sampling time in seconds.
    pub time: f32,
    /// Every skin.
    pub skins: Vec<SkinReport>,
    /// Every clip.
    pub clips: Vec<ClipReport>,
    /// Every skinned mesh.
    pub meshes: Vec<MeshReport>,
    /// The import's warnings.
    pub warnings: Vec<String>,
}

/// One skin in the JSON report.
#[derive(Serialize, Debug)]
pub struct SkinReport {
    /// The skin's name.
    pub name: String,
    /// The joints in skeleton order (parent before child).
    pub joints: Vec<JointReport>,
}

/// One joint in the JSON report.
#[derive(Serialize, Debug)]
pub struct JointReport {
    /// The joint's name.
    pub name: String,
    /// Index of the parent joint in this list, or `null` for a root.
    pub parent: Option<usize>,
    /// Global transform in glTF scene space, 16 floats, column-major.
    pub global: [f32; 16],
}

/// One clip in the JSON report.
#[derive(Serialize, Debug)]
pub struct ClipReport {
    /// The clip's name (its index when unnamed).
    pub name: String,
    /// Its length in seconds.
    pub duration: f32,
    /// Channels in the file.
    pub channels: usize,
    /// Channels the import ignored.
    pub ignored_channels: usize,
}

/// One mesh in the JSON report.
#[derive(Serialize, Debug)]
pub struct MeshReport {
    /// `mesh/primitive`.
    pub name: String,
    /// The skin index.
    pub skin: usize,
    /// The glTF node that carries the mesh.
    pub node: usize,
    /// True for a rigid part (a mesh without a skin, bound wholly to the
    /// joint it hangs under, or to its own node in the "scene nodes" skin).
    pub rigid: bool,
    /// Vertex count.
    pub vertices: usize,
    /// Triangle count.
    pub triangles: usize,
    /// Most non-zero weights on one vertex.
    pub max_influences: usize,
    /// Whether a base color texture was decoded.
    pub textured: bool,
}

/// Builds the report: imports the model and poses every skin with the chosen
/// clip at `time`.
pub fn report(args: &InspectArgs) -> anyhow::Result<Report> {
    let model = gltf_import::load(&args.model)?;
    if !args.time.is_finite() {
        bail!("--time must be a finite number of seconds");
    }
    let clip = match &args.clip {
        Some(c) => Some(model.find_clip(c).with_context(|| {
            format!(
                "{}: no clip named or numbered '{c}' (clips: {})",
                model.source,
                clip_names(&model)
            )
        })?),
        None => (!model.clips.is_empty()).then_some(0),
    };
    let skins = model
        .skins
        .iter()
        .map(|skin| {
            let skel = &skin.skeleton;
            let mut locals = skel.rest_locals().to_vec();
            if let Some(c) = clip {
                sample_at(&skin.clips[c], args.time, Wrap::Clamp, &mut locals);
            }
            let mut models = vec![Mat4::IDENTITY; skel.len()];
            local_to_model(skel, &locals, &mut models);
            SkinReport {
                name: skin.name.clone(),
                joints: (0..skel.len())
                    .map(|j| JointReport {
                        name: skel.name(j).to_string(),
                        parent: skel.parent(j),
                        global: models[j].to_cols_array(),
                    })
                    .collect(),
            }
        })
        .collect();
    Ok(Report {
        model: model.source.clone(),
        clip: clip.map(|c| model.clips[c].name.clone()),
        time: args.time,
        skins,
        clips: model
            .clips
            .iter()
            .map(|c| ClipReport {
                name: c.name.clone(),
                duration: c.duration,
                channels: c.channels,
                ignored_channels: c.ignored_channels,
            })
            .collect(),
        meshes: model
            .meshes
            .iter()
            .map(|m| MeshReport {
                name: m.name.clone(),
                skin: m.skin,
                node: m.node,
                rigid: m.rigid,
                vertices: m.positions.len(),
                triangles: m.triangle_count(),
                max_influences: m.max_influences(),
                textured: m.material.base_color_texture.is_some(),
            })
            .collect(),
        warnings: model.warnings.clone(),
    })
}

fn clip_names(model: &ImportedModel) -> String {
    if model.clips.is_empty() {
        return "none".into();
    }
    model
        .clips
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{i}: {}", c.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Renders the human report.
pub fn human(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "model: {}", report.model);
    for (s, skin) in report.skins.iter().enumerate() {
        let _ = writeln!(
            out,
            "skin {s} '{}': {} joints",
            skin.name,
            skin.joints.len()
        );
        // Depth-first, so that every joint is printed under its parent.
        let mut children = vec![Vec::new(); skin.joints.len()];
        let mut stack = Vec::new();
        for (j, joint) in skin.joints.iter().enumerate().rev() {
            match joint.parent {
                Some(p) if p < j => children[p].push(j),
                _ => stack.push((j, 0usize)),
            }
        }
        while let Some((j, depth)) = stack.pop() {
            let _ = writeln!(out, "  {}{} [{j}]", "  ".repeat(depth), skin.joints[j].name);
            // Children were collected in reverse order; popping restores it.
            stack.extend(children[j].iter().map(|&c| (c, depth + 1)));
        }
    }
    let _ = writeln!(out, "clips: {}", report.clips.len());
    for (i, c) in report.clips.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {i}: '{}' {:.3} s, {} channels ({} ignored)",
            c.name, c.duration, c.channels, c.ignored_channels
        );
    }
    let _ = writeln!(out, "meshes: {}", report.meshes.len());
    for m in &report.meshes {
        let _ = writeln!(
            out,
            "  '{}' (skin {}{}): {} vertices, {} triangles, up to {} influences{}",
            m.name,
            m.skin,
            if m.rigid { ", rigid" } else { "" },
            m.vertices,
            m.triangles,
            m.max_influences,
            if m.textured { ", textured" } else { "" }
        );
    }
    let _ = writeln!(out, "warnings: {}", report.warnings.len());
    for w in &report.warnings {
        let _ = writeln!(out, "  - {w}");
    }
    out
}

/// Runs the inspect command.
pub fn run(args: &InspectArgs) -> anyhow::Result<()> {
    let report = report(args)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", human(&report));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cesium() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/assets/third_party/gltf/CesiumMan/CesiumMan.glb")
    }

    fn args(clip: Option<&str>, time: f32) -> InspectArgs {
        InspectArgs {
            model: cesium(),
            clip: clip.map(str::to_string),
            time,
            json: false,
        }
    }

    #[test]
    fn human_report_lists_joints_clips_meshes_and_warnings() {
        let r = report(&args(None, 0.0)).unwrap();
        let text = human(&r);
        assert!(text.contains("19 joints"), "{text}");
        assert!(text.contains("clips: 1"), "{text}");
        assert!(text.contains("triangles"), "{text}");
        assert!(text.contains("warnings: 0"), "{text}");
        // The tree is depth-first: the left leg's chain follows its root
        // directly, each one level deeper.
        let leg = text.find("    leg_joint_L_1 [").unwrap();
        let next = &text[leg..];
        assert!(
            next.lines()
                .nth(1)
                .unwrap()
                .starts_with("      leg_joint_L_2 ["),
            "{text}"
        );
        assert!(
            text.contains("4672 triangles") && text.contains("3273 vertices"),
            "{text}"
        );
    }

    #[test]
    fn unknown_clip_is_an_error_listing_the_clips() {
        let err = report(&args(Some("nope"), 0.0)).unwrap_err();
        assert!(format!("{err:#}").contains("no clip named"), "{err:#}");
    }

    #[test]
    fn clip_by_index_and_by_name_pose_the_same() {
        let by_index = report(&args(Some("0"), 0.7)).unwrap();
        let name = by_index.clip.clone().unwrap();
        let by_name = report(&args(Some(&name), 0.7)).unwrap();
        for (a, b) in by_index.skins[0]
            .joints
            .iter()
            .zip(&by_name.skins[0].joints)
        {
            assert_eq!(a.global, b.global);
        }
    }
}
