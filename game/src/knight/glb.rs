//! Writes the knight as a binary glTF 2.0 file (GLB) with `gltf-json`:
//! one skinned, vertex-coloured mesh, a 24-joint skin and seven animations.
//!
//! The output is deterministic: the JSON comes from serde structs (fixed
//! field order, `BTreeMap` attributes) and every float is snapped to a
//! binary grid before it is written, so the committed file can be compared
//! byte for byte with a fresh run of the generator.

use animation::{Clip, Skeleton};
use glam::{Mat4, Quat, Vec3};
use gltf_json as json;
use json::validation::{Checked::Valid, USize64};

use super::mesh::Mesh;

/// Grid for geometry, colours and weights: 2⁻¹⁶ (15 µm, far below a pixel)
/// so that last-bit differences between math libraries rarely change a byte.
const GEOMETRY_GRID: f32 = 65536.0;
/// Grid for rotations: 2⁻²⁰ keeps quaternions unit length to ~2·10⁻⁶, well
/// inside the validator's tolerance.
const ROTATION_GRID: f32 = 1_048_576.0;

fn snap(x: f32, grid: f32) -> f32 {
    let y = (x * grid).round() / grid;
    if y == 0.0 { 0.0 } else { y }
}

/// The binary chunk and the JSON objects that point into it.
struct Writer {
    root: json::Root,
    bin: Vec<u8>,
}

impl Writer {
    /// Appends bytes as a new buffer view (4-byte aligned).
    fn view(
        &mut self,
        bytes: &[u8],
        target: Option<json::buffer::Target>,
    ) -> json::Index<json::buffer::View> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: json::Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: Default::default(),
            extras: Default::default(),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        target: Option<json::buffer::Target>,
        min_max: Option<(Vec<f32>, Vec<f32>)>,
        normalized: bool,
    ) -> json::Index<json::Accessor> {
        let view = self.view(bytes, target);
        let (min, max) = match min_max {
            Some((a, b)) => (Some(json::Value::from(a)), Some(json::Value::from(b))),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: Default::default(),
            extras: Default::default(),
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized,
            sparse: None,
        })
    }

    fn floats(
        &mut self,
        values: &[f32],
        type_: json::accessor::Type,
        per: usize,
        target: Option<json::buffer::Target>,
        bounds: bool,
    ) -> json::Index<json::Accessor> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let min_max = bounds.then(|| {
            let mut min = vec![f32::MAX; per];
            let mut max = vec![f32::MIN; per];
            for c in values.chunks(per) {
                for i in 0..per {
                    min[i] = min[i].min(c[i]);
                    max[i] = max[i].max(c[i]);
                }
            }
            (min, max)
        });
        self.accessor(
            &bytes,
            values.len() / per,
            json::accessor::ComponentType::F32,
            type_,
            target,
            min_max,
            false,
        )
    }
}

/// Why the GLB could not be written.
#[derive(Debug, thiserror::Error)]
pub enum GlbError {
    /// The JSON could not be serialized.
    #[error("serializing the glTF JSON: {0}")]
    Json(#[from] json::Error),
    /// The mesh has more vertices than 16-bit indices can address.
    #[error("the mesh has {0} vertices, more than 16-bit indices address")]
    TooManyVertices(usize),
}

fn vec3s(v: &[Vec3], grid: f32) -> Vec<f32> {
    v.iter()
        .flat_map(|p| p.to_array().map(|x| snap(x, grid)))
        .collect()
}

/// Encodes the knight as GLB bytes.
pub fn write(skeleton: &Skeleton, mesh: &Mesh, clips: &[Clip]) -> Result<Vec<u8>, GlbError> {
    use json::accessor::{ComponentType, Type};
    use json::buffer::Target;
    if mesh.positions.len() > u16::MAX as usize {
        return Err(GlbError::TooManyVertices(mesh.positions.len()));
    }
    let mut w = Writer {
        root: json::Root {
            asset: json::Asset {
                generator: Some("ironstep make-knight".into()),
                version: "2.0".into(),
                copyright: None,
                extensions: Default::default(),
                extras: Default::default(),
                min_version: None,
            },
            ..Default::default()
        },
        bin: Vec::new(),
    };

    // Joint nodes: translations only (every rest rotation is the identity).
    let n = skeleton.len();
    for j in 0..n {
        let rest = skeleton.rest_locals()[j];
        let children: Vec<json::Index<json::Node>> = (0..n)
            .filter(|c| skeleton.parent(*c) == Some(j))
            .map(|c| json::Index::new(c as u32))
            .collect();
        let t = rest.translation.to_array().map(|x| snap(x, GEOMETRY_GRID));
        w.root.push(json::Node {
            name: Some(skeleton.name(j).to_string()),
            translation: (t != [0.0; 3]).then_some(t),
            children: (!children.is_empty()).then_some(children),
            ..Default::default()
        });
    }

    // Geometry.
    let positions = vec3s(&mesh.positions, GEOMETRY_GRID);
    let pos = w.floats(&positions, Type::Vec3, 3, Some(Target::ArrayBuffer), true);
    let normals = vec3s(&mesh.normals, GEOMETRY_GRID);
    let nrm = w.floats(&normals, Type::Vec3, 3, Some(Target::ArrayBuffer), false);
    let colors: Vec<f32> = mesh
        .colors
        .iter()
        .flat_map(|c| c.map(|x| snap(x, GEOMETRY_GRID)))
        .collect();
    let col = w.floats(&colors, Type::Vec4, 4, Some(Target::ArrayBuffer), false);
    // A joint whose weight snaps to zero is written as joint 0, as the
    // validator expects of unused influences.
    let joints: Vec<u8> = mesh
        .joints
        .iter()
        .zip(&mesh.weights)
        .map(|(j, w)| {
            std::array::from_fn::<u16, 4, _>(|i| {
                if snap(w[i], GEOMETRY_GRID) == 0.0 {
                    0
                } else {
                    j[i]
                }
            })
        })
        .collect::<Vec<_>>()
        .iter()
        .flat_map(|j| j.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let jnt = w.accessor(
        &joints,
        mesh.joints.len(),
        ComponentType::U16,
        Type::Vec4,
        Some(Target::ArrayBuffer),
        None,
        false,
    );
    let weights: Vec<f32> = mesh
        .weights
        .iter()
        .flat_map(|w| {
            let mut q = w.map(|x| snap(x, GEOMETRY_GRID));
            // Keep the sum exactly one after snapping.
            let rest: f32 = q[1..].iter().sum();
            q[0] = 1.0 - rest;
            q
        })
        .collect();
    let wgt = w.floats(&weights, Type::Vec4, 4, Some(Target::ArrayBuffer), false);
    let idx_bytes: Vec<u8> = mesh.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    let idx = w.accessor(
        &idx_bytes,
        mesh.indices.len(),
        ComponentType::U16,
        Type::Scalar,
        Some(Target::ElementArrayBuffer),
        None,
        false,
    );

    let material = w.root.push(json::Material {
        name: Some("armour".into()),
        pbr_metallic_roughness: json::material::PbrMetallicRoughness {
            base_color_factor: json::material::PbrBaseColorFactor([1.0; 4]),
            metallic_factor: json::material::StrengthFactor(0.4),
            roughness_factor: json::material::StrengthFactor(0.45),
            ..Default::default()
        },
        ..Default::default()
    });
    let mut attributes = std::collections::BTreeMap::new();
    attributes.insert(Valid(json::mesh::Semantic::Positions), pos);
    attributes.insert(Valid(json::mesh::Semantic::Normals), nrm);
    attributes.insert(Valid(json::mesh::Semantic::Colors(0)), col);
    attributes.insert(Valid(json::mesh::Semantic::Joints(0)), jnt);
    attributes.insert(Valid(json::mesh::Semantic::Weights(0)), wgt);
    let mesh_index = w.root.push(json::Mesh {
        name: Some("knight".into()),
        primitives: vec![json::mesh::Primitive {
            attributes,
            indices: Some(idx),
            material: Some(material),
            mode: Valid(json::mesh::Mode::Triangles),
            targets: None,
            extensions: Default::default(),
            extras: Default::default(),
        }],
        weights: None,
        extensions: Default::default(),
        extras: Default::default(),
    });

    // Skin.
    let ibm: Vec<f32> = skeleton
        .inverse_bind()
        .iter()
        .flat_map(|m: &Mat4| m.to_cols_array().map(|x| snap(x, GEOMETRY_GRID)))
        .collect();
    let ibm = w.floats(&ibm, Type::Mat4, 16, None, false);
    let skin = w.root.push(json::Skin {
        name: Some("knight".into()),
        inverse_bind_matrices: Some(ibm),
        joints: (0..n).map(|j| json::Index::new(j as u32)).collect(),
        skeleton: Some(json::Index::new(0)),
        extensions: Default::default(),
        extras: Default::default(),
    });
    let body = w.root.push(json::Node {
        name: Some("knight".into()),
        mesh: Some(mesh_index),
        skin: Some(skin),
        ..Default::default()
    });
    let roots: Vec<json::Index<json::Node>> = (0..n)
        .filter(|j| skeleton.parent(*j).is_none())
        .map(|j| json::Index::new(j as u32))
        .chain([body])
        .collect();
    let scene = w.root.push(json::Scene {
        name: Some("knight".into()),
        nodes: roots,
        extensions: Default::default(),
        extras: Default::default(),
    });
    w.root.scene = Some(scene);

    // Animations: one time accessor per track list (tracks of a clip share
    // their key times when they are equal).
    for clip in clips {
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        let mut cached: Option<(Vec<f32>, json::Index<json::Accessor>)> = None;
        let mut input_for = |w: &mut Writer, times: &[f32]| {
            let times: Vec<f32> = times.iter().map(|t| snap(*t, GEOMETRY_GRID)).collect();
            if let Some((t, i)) = &cached
                && *t == times
            {
                return *i;
            }
            let i = w.floats(&times, Type::Scalar, 1, None, true);
            cached = Some((times, i));
            i
        };
        let interp = |i: animation::Interpolation| match i {
            animation::Interpolation::Step => json::animation::Interpolation::Step,
            animation::Interpolation::Linear => json::animation::Interpolation::Linear,
            animation::Interpolation::CubicSpline => json::animation::Interpolation::CubicSpline,
        };
        let mut channel = |input, output, interpolation, node: u16, path| {
            let s = json::Index::new(samplers.len() as u32);
            samplers.push(json::animation::Sampler {
                input,
                output,
                interpolation: Valid(interpolation),
                extensions: Default::default(),
                extras: Default::default(),
            });
            channels.push(json::animation::Channel {
                sampler: s,
                target: json::animation::Target {
                    node: json::Index::new(node as u32),
                    path: Valid(path),
                    extensions: Default::default(),
                    extras: Default::default(),
                },
                extensions: Default::default(),
                extras: Default::default(),
            });
        };
        for t in &clip.translations {
            let input = input_for(&mut w, &t.times);
            let out = w.floats(&vec3s(&t.values, GEOMETRY_GRID), Type::Vec3, 3, None, false);
            channel(
                input,
                out,
                interp(t.interpolation),
                t.joint,
                json::animation::Property::Translation,
            );
        }
        for t in &clip.rotations {
            let input = input_for(&mut w, &t.times);
            let values: Vec<f32> = t
                .values
                .iter()
                .flat_map(|q: &Quat| q.to_array().map(|x| snap(x, ROTATION_GRID)))
                .collect();
            let out = w.floats(&values, Type::Vec4, 4, None, false);
            channel(
                input,
                out,
                interp(t.interpolation),
                t.joint,
                json::animation::Property::Rotation,
            );
        }
        for t in &clip.scales {
            let input = input_for(&mut w, &t.times);
            let out = w.floats(&vec3s(&t.values, GEOMETRY_GRID), Type::Vec3, 3, None, false);
            channel(
                input,
                out,
                interp(t.interpolation),
                t.joint,
                json::animation::Property::Scale,
            );
        }
        w.root.push(json::Animation {
            name: Some(clip.name.clone()),
            channels,
            samplers,
            extensions: Default::default(),
            extras: Default::default(),
        });
    }

    while !w.bin.len().is_multiple_of(4) {
        w.bin.push(0);
    }
    w.root.push(json::Buffer {
        byte_length: USize64::from(w.bin.len()),
        name: None,
        uri: None,
        extensions: Default::default(),
        extras: Default::default(),
    });
    let mut text = w.root.to_vec()?;
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    Ok(container(&text, &w.bin))
}

/// GLB magic "glTF", version 2, and the chunk types "JSON" and "BIN\0".
const GLB_MAGIC: u32 = 0x4654_6C67;
const GLB_VERSION: u32 = 2;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// Wraps padded JSON and binary chunks in a GLB container.
fn container(text: &[u8], bin: &[u8]) -> Vec<u8> {
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    for v in [
        GLB_MAGIC,
        GLB_VERSION,
        total as u32,
        text.len() as u32,
        CHUNK_JSON,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    out.extend_from_slice(bin);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_lengths_are_consistent_and_aligned() {
        let out = container(b"{}  ", &[1, 2, 3, 4]);
        assert_eq!(out.len(), 12 + 8 + 4 + 8 + 4);
        assert_eq!(
            u32::from_le_bytes(out[8..12].try_into().unwrap()) as usize,
            out.len()
        );
        assert_eq!(&out[0..4], b"glTF");
        assert_eq!(&out[16..20], b"JSON");
        assert_eq!(&out[28..32], b"BIN\0");
    }

    #[test]
    fn snapping_keeps_values_close_and_never_writes_negative_zero() {
        assert_eq!(snap(-1e-9, GEOMETRY_GRID).to_bits(), 0.0f32.to_bits());
        assert!((snap(0.123_456, GEOMETRY_GRID) - 0.123_456).abs() < 1.0 / GEOMETRY_GRID);
    }
}
