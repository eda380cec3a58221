//! Any glTF model as the game's character or a tool's subject: the imported
//! meshes turned into [`CharacterMesh`]es the renderer can upload, and the
//! `--character MODEL.glb --rig RIG.ron` pair of flags that `ironstep play`
//! and `ironstep run` share.
//!
//! The import itself is `animation::gltf_import`; this module only adapts its
//! plain arrays (normals computed when the file has none, materials merged
//! when a character is drawn as one mesh).

use std::path::{Path, PathBuf};

use animation::gltf_import::{self, ImportedModel, SkinnedMesh};
use anyhow::{Context, Result, anyhow};
use clap::Args;
use glam::Vec3;

use crate::character::humanoid;
use crate::character::rig::{RigError, RigFile};
use crate::character::{Character, CharacterMesh, Texture};

/// The `--character` and `--rig` flags: play any humanoid glTF model.
#[derive(Args, Debug, Default, Clone)]
pub struct CharacterArgs {
    /// Play this glTF model (.glb, .gltf or .vrm) instead of the knight; its
    /// rig is inferred when no `--rig` is given (see `ironstep rig`).
    #[arg(long, value_name = "MODEL")]
    pub character: Option<PathBuf>,
    /// The rig file (RON) that maps the model's joints and clips, over the
    /// inferred rig field by field; needs `--character` (see `assets/rigs/`).
    #[arg(long, value_name = "RIG.ron", requires = "character")]
    pub rig: Option<PathBuf>,
}

impl CharacterArgs {
    /// The character the flags name: the model with its rig, or our knight
    /// when neither flag is given.
    pub fn load(&self) -> Result<Character> {
        match (&self.character, &self.rig) {
            (Some(model), Some(rig)) => load_character(model, rig),
            (None, None) => Character::knight().context("building the knight"),
            (Some(model), None) => load_character_inferred(model),
            (None, Some(_)) => Err(anyhow!("--rig needs --character MODEL")),
        }
    }
}

/// Loads a glTF model and its rig file as a playable character with a mesh.
///
/// The rig names joints of one skin: the first skin whose skeleton the rig
/// resolves against drives the character (when none does, the error is the
/// rig's complaint about the first mesh's skin). Every mesh is drawn, merged
/// into one mesh (see [`merge_meshes`]): the driving skin's own, its rigid
/// parts (the import binds them to their joints), and other skins' meshes
/// re-expressed in the driving skin's joints when every joint they use is
/// one of its joints (the same glTF node), so one pose drives them all. A
/// mesh whose joints are not all in the driving skin is left out with a note
/// on stderr. Errors name the model or the rig file and the reason.
///
/// The rig file is laid over the rig inferred from the model, field by field
/// (see `humanoid::merge`), when the model maps as a humanoid; otherwise it
/// must be complete. The model is turned and scaled as its `up` and `scale`
/// say before the rig is resolved.
pub fn load_character(model_path: &Path, rig_path: &Path) -> Result<Character> {
    let mut model = gltf_import::load(model_path)?;
    humanoid::reattach::feet(&mut model);
    let first = first_skin(&model)?;
    let rig_name = rig_path.display().to_string();
    let text = std::fs::read_to_string(rig_path).map_err(|source| RigError::Io {
        file: rig_name.clone(),
        source,
    })?;
    let rig = match humanoid::infer_model(&model) {
        Ok(inferred) => humanoid::merge(&inferred.rig, &text, &rig_name)?,
        Err(_) => RigFile::parse(&text, &rig_name)?,
    };
    humanoid::apply(&mut model, &rig, &rig_name)?;
    build_character(model, first, &rig, &rig_name)
}

/// Loads a glTF model as a playable character with the rig inferred from it
/// (see `character::humanoid`); a model that is not a humanoid is an error
/// naming what is missing.
pub fn load_character_inferred(model_path: &Path) -> Result<Character> {
    let mut model = gltf_import::load(model_path)?;
    humanoid::reattach::feet(&mut model);
    let first = first_skin(&model)?;
    let inferred = humanoid::infer_model(&model)?;
    let rig_name = format!("{} (inferred rig)", model.source);
    for w in &inferred.warnings {
        eprintln!("ironstep: {}: {w}", model.source);
    }
    humanoid::apply(&mut model, &inferred.rig, &rig_name)?;
    build_character(model, first, &inferred.rig, &rig_name)
}

/// The character of `model` (already turned and scaled) driven by `rig`.
fn build_character(
    model: ImportedModel,
    first: usize,
    rig: &RigFile,
    rig_name: &str,
) -> Result<Character> {
    let rig_name = rig_name.to_string();
    let skin = match model
        .skins
        .iter()
        .position(|s| rig.resolve(&s.skeleton, &rig_name).is_ok())
    {
        Some(s) => s,
        None => {
            rig.resolve(&model.skins[first].skeleton, &rig_name)?;
            first
        }
    };
    let (parts, mut notes) = character_parts(&model, skin);
    let (mesh, merge_notes) = merge_meshes(&parts);
    notes.extend(merge_notes);
    for note in notes {
        eprintln!("ironstep: {}: {note}", model.source);
    }
    let s = &model.skins[skin];
    // Clips the rig takes from the knight (`knight walk`, …), retargeted.
    let mut clips = s.clips.clone();
    let mut moves_vertices = vec![false; s.skeleton.len()];
    for m in model.meshes.iter().filter(|m| m.skin == skin) {
        for (js, ws) in m.joints.iter().zip(&m.weights) {
            for (j, w) in js.iter().zip(ws) {
                if *w > 0.0
                    && let Some(v) = moves_vertices.get_mut(usize::from(*j))
                {
                    *v = true;
                }
            }
        }
    }
    humanoid::still_controls(&s.skeleton, &mut clips, &moves_vertices);
    let resolved = rig.resolve(&s.skeleton, &rig_name)?;
    clips.extend(humanoid::retarget::missing_knight_clips(
        &s.skeleton,
        &resolved,
        &clips,
    )?);
    let mut c = Character::new(&model.source, s.skeleton.clone(), clips, rig, &rig_name)?;
    c.attach_mesh(mesh);
    Ok(c)
}

/// Every mesh of `model` that skin `skin` can drive, in its joints (see
/// [`load_character`]), and a note for each mesh left out or only
/// approximately re-expressed.
pub fn character_parts(model: &ImportedModel, skin: usize) -> (Vec<CharacterMesh>, Vec<String>) {
    let mut parts = Vec::new();
    let mut notes = Vec::new();
    let driver = &model.skins[skin].name;
    for (i, m) in model.meshes.iter().enumerate() {
        match model.rebind_mesh(i, skin) {
            Ok(r) => {
                if r.approximate_vertices > 0 {
                    notes.push(format!(
                        "mesh '{}' of skin '{}' was bound in another pose than skin '{driver}'; {} of its vertices follow it approximately",
                        m.name, model.skins[m.skin].name, r.approximate_vertices
                    ));
                }
                parts.push(CharacterMesh::from_imported(&r.mesh));
            }
            Err(why) => notes.push(format!(
                "mesh '{}' of skin '{}' is left out because skin '{driver}' drives the character and {why}",
                m.name, model.skins[m.skin].name
            )),
        }
    }
    (parts, notes)
}

/// The skin of the model's first skinned mesh; an error naming the file when
/// the model has none (a static model cannot be posed).
pub fn first_skin(model: &ImportedModel) -> Result<usize> {
    model.meshes.first().map(|m| m.skin).ok_or_else(|| {
        anyhow!(
            "{}: the model has no skinned mesh (only skinned glTF models can be posed)",
            model.source
        )
    })
}

impl CharacterMesh {
    /// One imported primitive with its material. Normals the file lacks
    /// (imported as zero vectors) are computed from the triangles, so the
    /// mesh is lit rather than black.
    pub fn from_imported(m: &SkinnedMesh) -> Self {
        let normals = if m.normals.iter().all(|n| n.length_squared() > 0.0) {
            m.normals.clone()
        } else {
            smooth_normals(&m.positions, &m.indices, &m.normals)
        };
        Self {
            positions: m.positions.clone(),
            normals,
            uvs: m.uvs.clone(),
            colors: m.colors.clone(),
            joints: m.joints.clone(),
            weights: m.weights.clone(),
            indices: m.indices.clone(),
            base_color: m.material.base_color_factor,
            texture: m.material.base_color_texture.as_ref().map(|t| Texture {
                width: t.width,
                height: t.height,
                rgba: t.pixels.clone(),
            }),
        }
    }
}

/// Area-weighted vertex normals from the triangles, keeping any non-zero
/// normal the file gave; a vertex on no triangle gets +Y.
fn smooth_normals(positions: &[Vec3], indices: &[u32], given: &[Vec3]) -> Vec<Vec3> {
    let mut acc = vec![Vec3::ZERO; positions.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
        let n = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
        for i in [a, b, c] {
            acc[i] += n;
        }
    }
    acc.iter()
        .enumerate()
        .map(|(i, n)| match given.get(i) {
            Some(g) if g.length_squared() > 0.0 => *g,
            _ => n.normalize_or(Vec3::Y),
        })
        .collect()
}

/// Merges primitives into one mesh (a character is one draw). With one
/// primitive, or primitives sharing one material, the material is kept as
/// is. Otherwise each primitive's base colour factor is baked into its
/// vertex colours and textures are dropped, because one draw binds one
/// texture; the returned notes say so.
pub fn merge_meshes(meshes: &[CharacterMesh]) -> (CharacterMesh, Vec<String>) {
    let mut notes = Vec::new();
    let Some(first) = meshes.first() else {
        return (CharacterMesh::default(), notes);
    };
    if meshes.len() == 1 {
        return (first.clone(), notes);
    }
    let same_material = meshes
        .iter()
        .all(|m| m.base_color == first.base_color && m.texture == first.texture);
    let any_uvs = meshes.iter().any(|m| !m.uvs.is_empty());
    let any_colors = !same_material || meshes.iter().any(|m| !m.colors.is_empty());
    let mut out = CharacterMesh {
        base_color: if same_material {
            first.base_color
        } else {
            [1.0; 4]
        },
        texture: if same_material {
            first.texture.clone()
        } else {
            None
        },
        ..CharacterMesh::default()
    };
    if !same_material && meshes.iter().any(|m| m.texture.is_some()) {
        notes.push(format!(
            "{} primitives with different materials are drawn as one mesh; their textures are left out and their base colours kept",
            meshes.len()
        ));
    }
    for m in meshes {
        let base = out.positions.len() as u32;
        let n = m.positions.len();
        out.positions.extend_from_slice(&m.positions);
        out.normals.extend_from_slice(&m.normals);
        out.joints.extend_from_slice(&m.joints);
        out.weights.extend_from_slice(&m.weights);
        out.indices.extend(m.indices.iter().map(|i| i + base));
        if any_uvs {
            out.uvs
                .extend((0..n).map(|i| m.uvs.get(i).copied().unwrap_or([0.0; 2])));
        }
        if any_colors {
            let factor = if same_material {
                [1.0; 4]
            } else {
                m.base_color
            };
            out.colors.extend((0..n).map(|i| {
                let c = m.colors.get(i).copied().unwrap_or([1.0; 4]);
                std::array::from_fn(|k| c[k] * factor[k])
            }));
        }
    }
    (out, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triangle(color: [f32; 4], textured: bool) -> CharacterMesh {
        CharacterMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            normals: vec![Vec3::Z; 3],
            uvs: Vec::new(),
            colors: Vec::new(),
            joints: vec![[0; 4]; 3],
            weights: vec![[1.0, 0.0, 0.0, 0.0]; 3],
            indices: vec![0, 1, 2],
            base_color: color,
            texture: textured.then(|| Texture {
                width: 1,
                height: 1,
                rgba: vec![255; 4],
            }),
        }
    }

    #[test]
    fn normals_missing_from_the_file_are_computed_from_triangles() {
        let p = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let n = smooth_normals(&p, &[0, 1, 2], &[Vec3::ZERO; 3]);
        assert_eq!(n, vec![Vec3::Z; 3]);
    }

    #[test]
    fn merging_offsets_indices_and_bakes_differing_materials_into_colours() {
        let red = [1.0, 0.0, 0.0, 1.0];
        let blue = [0.0, 0.0, 1.0, 1.0];
        let (m, notes) = merge_meshes(&[triangle(red, false), triangle(blue, true)]);
        assert_eq!(m.indices, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(m.colors[0], red);
        assert_eq!(m.colors[5], blue);
        assert_eq!(m.base_color, [1.0; 4]);
        assert!(m.texture.is_none());
        assert_eq!(notes.len(), 1, "{notes:?}");
    }

    #[test]
    fn merging_keeps_a_shared_material() {
        let (m, notes) = merge_meshes(&[triangle(BLUE, true), triangle(BLUE, true)]);
        assert_eq!(m.base_color, BLUE);
        assert!(m.texture.is_some());
        assert!(m.colors.is_empty());
        assert!(notes.is_empty());
    }

    const BLUE: [f32; 4] = [0.0, 0.0, 1.0, 1.0];

    #[test]
    fn a_missing_rig_file_is_named() {
        let knight = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/knight.glb");
        let err = load_character(&knight, Path::new("no/such.rig.ron")).unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.starts_with("no/such.rig.ron: "), "{msg}");
    }
}
