//! Vertex types and the world geometry built from plain shapes: solid tiles
//! extruded along depth, slope wedges with the exact surface, ladders as
//! rails and rungs, and flat backdrops at parallax depths.

use crate::RenderError;
use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec3};

/// Most joints one skin may have. Joint indices are `Uint16x4` (65,536
/// possible) but each palette is `joints × 64` bytes uploaded every frame:
/// 1,024 joints (the animation crate's skeleton limit) is 64 KiB per instance,
/// so 1,000 such instances would already be 64 MiB per frame, near wgpu's
/// default 128 MiB storage-binding limit.
pub const MAX_JOINTS_PER_SKIN: u32 = 1024;

/// A skinned vertex: at most four influences (glTF `JOINTS_0`/`WEIGHTS_0`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SkinnedVertex {
    /// Bind-pose position.
    pub position: [f32; 3],
    /// Bind-pose normal.
    pub normal: [f32; 3],
    /// Texture coordinate.
    pub uv: [f32; 2],
    /// Indices into the instance's palette.
    pub joints: [u16; 4],
    /// Weights of the four joints (should sum to 1).
    pub weights: [f32; 4],
    /// Vertex colour, multiplied with the material (white when unused).
    pub color: [f32; 4],
}

/// A static world vertex, already in world space.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct WorldVertex {
    /// World position.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// Linear RGBA colour.
    pub color: [f32; 4],
}

/// A debug line vertex.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LineVertex {
    /// World position.
    pub position: [f32; 3],
    /// Linear RGBA colour.
    pub color: [f32; 4],
}

/// An RGBA8 (sRGB) texture given as plain bytes.
#[derive(Clone, Copy, Debug)]
pub struct TextureDesc<'a> {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes, rows top to bottom.
    pub rgba: &'a [u8],
}

/// A skinned mesh's material: base colour factor and optional texture.
#[derive(Clone, Copy, Debug)]
pub struct MaterialDesc<'a> {
    /// Linear RGBA factor.
    pub base_color: [f32; 4],
    /// Base colour texture; white when `None`.
    pub texture: Option<TextureDesc<'a>>,
}

impl Default for MaterialDesc<'_> {
    fn default() -> Self {
        Self {
            base_color: [1.0; 4],
            texture: None,
        }
    }
}

/// A skinned mesh to upload.
#[derive(Clone, Copy, Debug)]
pub struct SkinnedMeshDesc<'a> {
    /// Name used in errors.
    pub label: &'a str,
    /// The vertices.
    pub vertices: &'a [SkinnedVertex],
    /// Triangle list indices.
    pub indices: &'a [u32],
    /// Number of joints of the skin; every palette drawn with it has at least this many matrices.
    pub joint_count: u32,
    /// Its material.
    pub material: MaterialDesc<'a>,
}

impl SkinnedMeshDesc<'_> {
    /// Checks indices, joint indices, finiteness and the texture size.
    pub fn validate(&self) -> Result<(), RenderError> {
        let bad = |reason: String| RenderError::InvalidMesh {
            mesh: self.label.to_owned(),
            reason,
        };
        if self.vertices.is_empty() || self.indices.is_empty() {
            return Err(bad("no vertices or no indices".into()));
        }
        if !self.indices.len().is_multiple_of(3) {
            return Err(bad(format!(
                "{} indices is not a multiple of 3",
                self.indices.len()
            )));
        }
        if self.joint_count == 0 || self.joint_count > MAX_JOINTS_PER_SKIN {
            return Err(bad(format!(
                "joint count {} outside 1..={MAX_JOINTS_PER_SKIN}",
                self.joint_count
            )));
        }
        if let Some((i, &ix)) = self
            .indices
            .iter()
            .enumerate()
            .find(|&(_, &ix)| ix as usize >= self.vertices.len())
        {
            return Err(bad(format!(
                "index {i} is {ix}, past {} vertices",
                self.vertices.len()
            )));
        }
        for (i, v) in self.vertices.iter().enumerate() {
            let finite = v
                .position
                .iter()
                .chain(&v.normal)
                .chain(&v.uv)
                .chain(&v.weights)
                .all(|x| x.is_finite());
            if !finite {
                return Err(bad(format!("vertex {i} has a non-finite value")));
            }
            if let Some(j) = v.joints.iter().find(|&&j| u32::from(j) >= self.joint_count) {
                return Err(bad(format!(
                    "vertex {i} uses joint {j}, the skin has {} joints",
                    self.joint_count
                )));
            }
        }
        if let Some(t) = self.material.texture
            && (t.width == 0
                || t.height == 0
                || t.rgba.len() != t.width as usize * t.height as usize * 4)
        {
            return Err(bad(format!(
                "texture {}x{} needs {} bytes, got {}",
                t.width,
                t.height,
                t.width as usize * t.height as usize * 4,
                t.rgba.len()
            )));
        }
        Ok(())
    }
}

/// A solid tile: the rectangle `min..max` extruded along depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tile {
    /// Lower-left corner (x, y) in metres.
    pub min: Vec2,
    /// Upper-right corner.
    pub max: Vec2,
    /// Linear RGBA colour.
    pub color: [f32; 4],
}

/// A slope: the solid below the straight line from `(x0, h0)` to `(x1, h1)`
/// down to `y_bottom`, extruded along depth. Its top is exactly that line, so
/// the ground height function and the drawn surface agree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wedge {
    /// Left x.
    pub x0: f32,
    /// Right x.
    pub x1: f32,
    /// Bottom y of the solid.
    pub y_bottom: f32,
    /// Surface height at `x0`.
    pub h0: f32,
    /// Surface height at `x1`.
    pub h1: f32,
    /// Linear RGBA colour.
    pub color: [f32; 4],
}

/// A ladder: two rails from `y0` to `y1` centred on `x`, rungs at `rung_ys`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ladder {
    /// Centre x.
    pub x: f32,
    /// Bottom of the rails.
    pub y0: f32,
    /// Top of the rails.
    pub y1: f32,
    /// Heights of the rungs (the same values the IK uses).
    pub rung_ys: Vec<f32>,
    /// Linear RGBA colour.
    pub color: [f32; 4],
}

/// A flat background layer facing the camera at depth `z` (negative is behind
/// the play plane; perspective then gives parallax).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backdrop {
    /// Lower-left corner (x, y).
    pub min: Vec2,
    /// Upper-right corner.
    pub max: Vec2,
    /// Depth of the layer.
    pub z: f32,
    /// Linear RGBA colour.
    pub color: [f32; 4],
}

/// Ladder rail and rung half-thickness in metres (6 cm wooden rails).
const LADDER_HALF_THICKNESS: f32 = 0.03;
/// Half the distance between the two rails (a 50 cm wide ladder).
const LADDER_HALF_WIDTH: f32 = 0.25;

/// A static world mesh: triangle list in world space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorldMesh {
    /// Vertices.
    pub vertices: Vec<WorldVertex>,
    /// Triangle list indices.
    pub indices: Vec<u32>,
}

impl WorldMesh {
    /// Builds the world from plain shapes. Tiles and wedges span `z` in
    /// `-depth/2..depth/2`; ladders stand at `z = 0`, the play plane.
    pub fn build(
        tiles: &[Tile],
        wedges: &[Wedge],
        ladders: &[Ladder],
        backdrops: &[Backdrop],
        depth: f32,
    ) -> Result<Self, RenderError> {
        if !(depth.is_finite() && depth > 0.0) {
            return Err(RenderError::InvalidShape {
                shape: "world".into(),
                reason: format!("depth {depth} must be positive"),
            });
        }
        let mut mesh = Self::default();
        let hz = depth * 0.5;
        for (i, t) in tiles.iter().enumerate() {
            check_rect(&format!("tile {i}"), t.min, t.max)?;
            mesh.add_box(t.min.extend(-hz), t.max.extend(hz), t.color);
        }
        for (i, w) in wedges.iter().enumerate() {
            let name = format!("wedge {i}");
            let vals = [w.x0, w.x1, w.y_bottom, w.h0, w.h1];
            if vals.iter().any(|v| !v.is_finite()) {
                return Err(shape_err(&name, "non-finite value"));
            }
            if w.x1 <= w.x0 {
                return Err(shape_err(
                    &name,
                    &format!("x1 {} is not right of x0 {}", w.x1, w.x0),
                ));
            }
            if w.h0 < w.y_bottom || w.h1 < w.y_bottom {
                return Err(shape_err(&name, "surface below y_bottom"));
            }
            mesh.add_wedge(w, hz);
        }
        for (i, l) in ladders.iter().enumerate() {
            let name = format!("ladder {i}");
            if ![l.x, l.y0, l.y1]
                .iter()
                .chain(&l.rung_ys)
                .all(|v| v.is_finite())
            {
                return Err(shape_err(&name, "non-finite value"));
            }
            if l.y1 <= l.y0 {
                return Err(shape_err(&name, "top is not above bottom"));
            }
            let t = LADDER_HALF_THICKNESS;
            for side in [-1.0, 1.0] {
                let rx = l.x + side * LADDER_HALF_WIDTH;
                mesh.add_box(
                    Vec3::new(rx - t, l.y0, -t),
                    Vec3::new(rx + t, l.y1, t),
                    l.color,
                );
            }
            for &y in &l.rung_ys {
                mesh.add_box(
                    Vec3::new(l.x - LADDER_HALF_WIDTH, y - t, -t * 0.8),
                    Vec3::new(l.x + LADDER_HALF_WIDTH, y + t, t * 0.8),
                    l.color,
                );
            }
        }
        for (i, b) in backdrops.iter().enumerate() {
            check_rect(&format!("backdrop {i}"), b.min, b.max)?;
            if !b.z.is_finite() {
                return Err(shape_err(&format!("backdrop {i}"), "non-finite z"));
            }
            let z = b.z;
            mesh.add_quad(
                [
                    Vec3::new(b.min.x, b.min.y, z),
                    Vec3::new(b.max.x, b.min.y, z),
                    Vec3::new(b.max.x, b.max.y, z),
                    Vec3::new(b.min.x, b.max.y, z),
                ],
                Vec3::Z,
                b.color,
            );
        }
        Ok(mesh)
    }

    fn add_quad(&mut self, corners: [Vec3; 4], normal: Vec3, color: [f32; 4]) {
        let base = self.vertices.len() as u32;
        for c in corners {
            self.vertices.push(WorldVertex {
                position: c.to_array(),
                normal: normal.to_array(),
                color,
            });
        }
        self.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }

    fn add_box(&mut self, a: Vec3, b: Vec3, color: [f32; 4]) {
        let p = |x: f32, y: f32, z: f32| Vec3::new(x, y, z);
        self.add_quad(
            [
                p(a.x, a.y, b.z),
                p(b.x, a.y, b.z),
                p(b.x, b.y, b.z),
                p(a.x, b.y, b.z),
            ],
            Vec3::Z,
            color,
        );
        self.add_quad(
            [
                p(b.x, a.y, a.z),
                p(a.x, a.y, a.z),
                p(a.x, b.y, a.z),
                p(b.x, b.y, a.z),
            ],
            Vec3::NEG_Z,
            color,
        );
        self.add_quad(
            [
                p(a.x, b.y, b.z),
                p(b.x, b.y, b.z),
                p(b.x, b.y, a.z),
                p(a.x, b.y, a.z),
            ],
            Vec3::Y,
            color,
        );
        self.add_quad(
            [
                p(a.x, a.y, a.z),
                p(b.x, a.y, a.z),
                p(b.x, a.y, b.z),
                p(a.x, a.y, b.z),
            ],
            Vec3::NEG_Y,
            color,
        );
        self.add_quad(
            [
                p(b.x, a.y, b.z),
                p(b.x, a.y, a.z),
                p(b.x, b.y, a.z),
                p(b.x, b.y, b.z),
            ],
            Vec3::X,
            color,
        );
        self.add_quad(
            [
                p(a.x, a.y, a.z),
                p(a.x, a.y, b.z),
                p(a.x, b.y, b.z),
                p(a.x, b.y, a.z),
            ],
            Vec3::NEG_X,
            color,
        );
    }

    fn add_wedge(&mut self, w: &Wedge, hz: f32) {
        let c = w.color;
        let (x0, x1, yb, h0, h1) = (w.x0, w.x1, w.y_bottom, w.h0, w.h1);
        let p = |x: f32, y: f32, z: f32| Vec3::new(x, y, z);
        // Front and back faces: the trapezoid under the surface line.
        self.add_quad(
            [p(x0, yb, hz), p(x1, yb, hz), p(x1, h1, hz), p(x0, h0, hz)],
            Vec3::Z,
            c,
        );
        self.add_quad(
            [
                p(x1, yb, -hz),
                p(x0, yb, -hz),
                p(x0, h0, -hz),
                p(x1, h1, -hz),
            ],
            Vec3::NEG_Z,
            c,
        );
        // The exact sloped surface, normal perpendicular to the line.
        let top_normal = Vec3::new(-(h1 - h0), x1 - x0, 0.0).normalize();
        self.add_quad(
            [p(x0, h0, hz), p(x1, h1, hz), p(x1, h1, -hz), p(x0, h0, -hz)],
            top_normal,
            c,
        );
        self.add_quad(
            [p(x0, yb, -hz), p(x1, yb, -hz), p(x1, yb, hz), p(x0, yb, hz)],
            Vec3::NEG_Y,
            c,
        );
        if h1 > yb {
            self.add_quad(
                [p(x1, yb, hz), p(x1, yb, -hz), p(x1, h1, -hz), p(x1, h1, hz)],
                Vec3::X,
                c,
            );
        }
        if h0 > yb {
            self.add_quad(
                [p(x0, yb, -hz), p(x0, yb, hz), p(x0, h0, hz), p(x0, h0, -hz)],
                Vec3::NEG_X,
                c,
            );
        }
    }
}

fn shape_err(shape: &str, reason: &str) -> RenderError {
    RenderError::InvalidShape {
        shape: shape.to_owned(),
        reason: reason.to_owned(),
    }
}

fn check_rect(name: &str, min: Vec2, max: Vec2) -> Result<(), RenderError> {
    if !(min.is_finite() && max.is_finite()) {
        return Err(shape_err(name, "non-finite corner"));
    }
    if max.x <= min.x || max.y <= min.y {
        return Err(shape_err(
            name,
            &format!("max {max} is not above and right of min {min}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GREY: [f32; 4] = [0.5, 0.5, 0.5, 1.0];

    proptest! {
        #[test]
        fn wedge_top_surface_lies_exactly_on_the_slope_line(
            x0 in -50.0f32..50.0, w in 0.1f32..10.0, yb in -5.0f32..0.0,
            h0 in 0.0f32..5.0, h1 in 0.0f32..5.0,
        ) {
            let wedge = Wedge { x0, x1: x0 + w, y_bottom: yb, h0, h1, color: GREY };
            let mesh = WorldMesh::build(&[], &[wedge], &[], &[], 2.0).unwrap();
            let expected_n = Vec3::new(-(h1 - h0), w, 0.0).normalize();
            let top: Vec<_> = mesh.vertices.iter()
                .filter(|v| Vec3::from(v.normal).abs_diff_eq(expected_n, 1e-4) && v.normal[1] > 0.0)
                .collect();
            prop_assert_eq!(top.len(), 4);
            for v in top {
                let [x, y, _] = v.position;
                let line = h0 + (h1 - h0) * (x - x0) / w;
                prop_assert!((y - line).abs() < 1e-4, "{} vs {}", y, line);
            }
        }
    }

    #[test]
    fn every_normal_is_unit_and_every_index_in_range() {
        let mesh = WorldMesh::build(
            &[Tile {
                min: Vec2::new(0.0, -1.0),
                max: Vec2::new(4.0, 0.0),
                color: GREY,
            }],
            &[Wedge {
                x0: 4.0,
                x1: 5.0,
                y_bottom: -1.0,
                h0: 0.0,
                h1: 0.577,
                color: GREY,
            }],
            &[Ladder {
                x: 2.0,
                y0: 0.0,
                y1: 3.0,
                rung_ys: vec![0.3, 0.6, 0.9],
                color: GREY,
            }],
            &[Backdrop {
                min: Vec2::new(-10.0, -5.0),
                max: Vec2::new(10.0, 5.0),
                z: -6.0,
                color: GREY,
            }],
            2.0,
        )
        .unwrap();
        // 1 tile box + wedge (6 faces) + ladder (2 rails + 3 rungs) + backdrop.
        assert_eq!(mesh.vertices.len(), (6 + 6 + 5 * 6 + 1) * 4);
        assert!(
            mesh.indices
                .iter()
                .all(|&i| (i as usize) < mesh.vertices.len())
        );
        for v in &mesh.vertices {
            assert!((Vec3::from(v.normal).length() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn inverted_tile_is_an_error_naming_the_tile() {
        let err = WorldMesh::build(
            &[
                Tile {
                    min: Vec2::ZERO,
                    max: Vec2::ONE,
                    color: GREY,
                },
                Tile {
                    min: Vec2::ONE,
                    max: Vec2::ZERO,
                    color: GREY,
                },
            ],
            &[],
            &[],
            &[],
            1.0,
        )
        .unwrap_err();
        assert!(err.to_string().contains("tile 1"), "{err}");
    }

    #[test]
    fn skinned_mesh_with_joint_past_the_skin_is_rejected() {
        let v = SkinnedVertex {
            joints: [0, 5, 0, 0],
            weights: [0.5, 0.5, 0.0, 0.0],
            ..Default::default()
        };
        let desc = SkinnedMeshDesc {
            label: "knight",
            vertices: &[v, v, v],
            indices: &[0, 1, 2],
            joint_count: 4,
            material: MaterialDesc::default(),
        };
        let err = desc.validate().unwrap_err().to_string();
        assert!(err.contains("knight") && err.contains("joint 5"), "{err}");
    }
}
