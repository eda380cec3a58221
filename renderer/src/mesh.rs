//! Vertex types and the world geometry built from plain shapes: solid tiles
//! extruded along depth, slope wedges with the exact surface, ladders as
//! rails and rungs, and silhouette backdrops at parallax depths (built by
//! `scenery.rs`). Every world vertex names the procedural [`Material`] the
//! world shader paints it with; a shape's open top can wear a cap (grass or
//! stone) with a lip over its exposed edges and bevelled front and back.

use crate::RenderError;
use crate::scenery::Backdrop;
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
    /// Linear RGBA colour: the material's base tint.
    pub color: [f32; 4],
    /// The [`Material`] the world shader paints this vertex's faces with
    /// (`Material as u32`).
    pub material: u32,
}

/// The procedural materials of the world shader (`shaders/world.wgsl`). Each
/// is computed per pixel from the world position and normal, tinted by the
/// vertex colour: no textures, so nothing to load and nothing to tile.
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Material {
    /// The vertex colour, lit; no pattern.
    #[default]
    Plain = 0,
    /// Grass: blotchy green with blades of lighter and darker tint.
    Grass = 1,
    /// Dressed stone slabs with joints and weathering.
    Stone = 2,
    /// Earth: strata and pebbles.
    Earth = 3,
    /// Brick courses with mortar joints, each brick its own shade.
    Brick = 4,
    /// Wooden boards with grain along x and seams.
    Wood = 5,
    /// Brushed metal.
    Metal = 6,
    /// A flat backdrop silhouette: unlit, only fogged by distance.
    Silhouette = 7,
}

impl Material {
    /// Every material, in the order the renderer draws them: the level's
    /// materials first, the backdrop last (the level hides much of it, and
    /// the depth test then spares those pixels).
    pub const ALL: [Material; 8] = [
        Material::Plain,
        Material::Grass,
        Material::Stone,
        Material::Earth,
        Material::Brick,
        Material::Wood,
        Material::Metal,
        Material::Silhouette,
    ];

    /// The material with number `n` (`Material as u32`), if any.
    pub fn from_u32(n: u32) -> Option<Self> {
        Self::ALL.get(n as usize).copied()
    }

    /// Its fragment entry point in `shaders/world.wgsl`.
    pub fn entry_point(self) -> &'static str {
        match self {
            Material::Plain => "fs_plain",
            Material::Grass => "fs_grass",
            Material::Stone => "fs_stone",
            Material::Earth => "fs_earth",
            Material::Brick => "fs_brick",
            Material::Wood => "fs_wood",
            Material::Metal => "fs_metal",
            Material::Silhouette => "fs_silhouette",
        }
    }
}

/// What a face is made of: a material and its tint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Surface {
    /// The procedural material.
    pub material: Material,
    /// Linear RGBA tint.
    pub color: [f32; 4],
}

impl Surface {
    /// A surface of `material` tinted `color`.
    pub const fn new(material: Material, color: [f32; 4]) -> Self {
        Self { material, color }
    }
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
    /// Its sides and underside.
    pub body: Surface,
    /// The cap of its top ([`CAP_THICKNESS`] thick, a lip over its exposed
    /// edges); `None` draws the top in the body's surface.
    pub cap: Option<Surface>,
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
    /// Its sides and underside.
    pub body: Surface,
    /// The cap along its sloped top (lips over the front and back only:
    /// a slope's ends meet other ground); `None` draws the top in the body's
    /// surface.
    pub cap: Option<Surface>,
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
    /// What rails and rungs are made of.
    pub surface: Surface,
}

/// Ladder rail and rung half-thickness in metres (6 cm wooden rails).
const LADDER_HALF_THICKNESS: f32 = 0.03;
/// Half the distance between the two rails (a 50 cm wide ladder).
const LADDER_HALF_WIDTH: f32 = 0.25;
/// Thickness of a cap (grass or stone) on an open top, metres: a quarter of a
/// half-metre tile, thick enough to read as a layer, thinner than any tile.
pub const CAP_THICKNESS: f32 = 0.12;
/// How far a cap overhangs an exposed edge, metres (in x at the ends of a
/// top, in depth at the front and back). Only drawn: collision keeps the
/// solid's own faces, and 5 cm is less than a foot's probe spacing.
pub const CAP_LIP: f32 = 0.05;
/// The chamfer along a cap's front and back top edges, metres: the bevel
/// catches the light as a bright line that outlines every ledge.
const CAP_BEVEL: f32 = 0.03;
/// Distance outside a face at which a neighbour is looked for when deciding
/// whether the face is exposed (and gets a lip), metres.
const NEIGHBOUR_PROBE: f32 = 1e-3;

/// A static world mesh: triangle list in world space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorldMesh {
    /// Vertices.
    pub vertices: Vec<WorldVertex>,
    /// Triangle list indices.
    pub indices: Vec<u32>,
    /// How many of the first indices draw shapes that cast shadows (solids,
    /// planks, ladders). The backdrop comes after them and is left out of
    /// the shadow pass: it is far behind the shadow box, and its large
    /// quads cost the rasteriser for nothing.
    pub shadow_indices: usize,
}

impl WorldMesh {
    /// Builds the world from plain shapes. Tiles and wedges span `z` in
    /// `-depth/2..depth/2` (caps overhang that by [`CAP_LIP`]); ladders stand
    /// at `z = 0`, the play plane; backdrops are silhouette layers behind.
    ///
    /// Whether a cap's end is exposed (and gets a lip) is decided against
    /// every other tile and wedge: the build is O(shapes²), a few
    /// milliseconds for a thousand shapes, and it runs once per level load or
    /// designer edit, never per frame.
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
        }
        // Is the point (x, y) inside some tile or wedge (other than a face
        // of the shape asking)? A cap end beside such a point is covered.
        let solid_at = |x: f32, y: f32| {
            tiles
                .iter()
                .any(|t| t.min.x < x && x < t.max.x && t.min.y < y && y < t.max.y)
                || wedges.iter().any(|w| {
                    w.x0 < x
                        && x < w.x1
                        && w.y_bottom < y
                        && y < w.h0 + (w.h1 - w.h0) * (x - w.x0) / (w.x1 - w.x0)
                })
        };
        for t in tiles {
            let Some(cap) = t.cap else {
                mesh.add_box(t.min.extend(-hz), t.max.extend(hz), t.body, true);
                continue;
            };
            mesh.add_box(t.min.extend(-hz), t.max.extend(hz), t.body, false);
            // Probed a little lower than the probe across: a neighbouring
            // slope falling away at up to 45° still counts as covering.
            let y = t.max.y - 20.0 * NEIGHBOUR_PROBE;
            let lip = |x: f32| if solid_at(x, y) { 0.0 } else { CAP_LIP };
            let thickness = CAP_THICKNESS.min(t.max.y - t.min.y);
            mesh.add_cap(
                [
                    t.min.x - lip(t.min.x - NEIGHBOUR_PROBE),
                    t.max.x + lip(t.max.x + NEIGHBOUR_PROBE),
                ],
                [t.max.y, t.max.y],
                thickness,
                hz,
                cap,
            );
        }
        for w in wedges {
            mesh.add_wedge(w, hz, w.cap.is_none());
            if let Some(cap) = w.cap {
                let thickness = CAP_THICKNESS.min(w.h0.min(w.h1) - w.y_bottom).max(0.02);
                mesh.add_cap([w.x0, w.x1], [w.h0, w.h1], thickness, hz, cap);
            }
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
                    l.surface,
                    true,
                );
            }
            for &y in &l.rung_ys {
                mesh.add_box(
                    Vec3::new(l.x - LADDER_HALF_WIDTH, y - t, -t * 0.8),
                    Vec3::new(l.x + LADDER_HALF_WIDTH, y + t, t * 0.8),
                    l.surface,
                    true,
                );
            }
        }
        mesh.shadow_indices = mesh.indices.len();
        // Nearest layer first: its pixels are drawn before the layers it
        // hides, so the depth test spares the rasteriser their shading.
        let mut order: Vec<usize> = (0..backdrops.len()).collect();
        order.sort_by(|&a, &b| backdrops[b].z.total_cmp(&backdrops[a].z));
        for i in order {
            let b = &backdrops[i];
            b.check()
                .map_err(|reason| shape_err(&format!("backdrop {i}"), &reason))?;
            crate::scenery::add_backdrop(&mut mesh, b);
        }
        Ok(mesh)
    }

    /// A quad with a given normal; corners in order around it.
    pub(crate) fn add_quad(&mut self, corners: [Vec3; 4], normal: Vec3, surface: Surface) {
        let base = self.vertices.len() as u32;
        for c in corners {
            self.push_vertex(c, normal, surface);
        }
        self.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }

    /// A triangle with a given normal.
    pub(crate) fn add_triangle(&mut self, corners: [Vec3; 3], normal: Vec3, surface: Surface) {
        let base = self.vertices.len() as u32;
        for c in corners {
            self.push_vertex(c, normal, surface);
        }
        self.indices.extend_from_slice(&[base, base + 1, base + 2]);
    }

    /// A quad whose normal is computed from its corners and turned to the
    /// side of `outward`.
    fn add_quad_facing(&mut self, corners: [Vec3; 4], outward: Vec3, surface: Surface) {
        let n = (corners[2] - corners[0])
            .cross(corners[3] - corners[1])
            .normalize_or(outward);
        let n = if n.dot(outward) < 0.0 { -n } else { n };
        self.add_quad(corners, n, surface);
    }

    fn push_vertex(&mut self, position: Vec3, normal: Vec3, surface: Surface) {
        self.vertices.push(WorldVertex {
            position: position.to_array(),
            normal: normal.to_array(),
            color: surface.color,
            material: surface.material as u32,
        });
    }

    /// A box from `a` to `b`; `with_top` false leaves its top face out
    /// (a cap covers it).
    fn add_box(&mut self, a: Vec3, b: Vec3, surface: Surface, with_top: bool) {
        let p = |x: f32, y: f32, z: f32| Vec3::new(x, y, z);
        self.add_quad(
            [
                p(a.x, a.y, b.z),
                p(b.x, a.y, b.z),
                p(b.x, b.y, b.z),
                p(a.x, b.y, b.z),
            ],
            Vec3::Z,
            surface,
        );
        self.add_quad(
            [
                p(b.x, a.y, a.z),
                p(a.x, a.y, a.z),
                p(a.x, b.y, a.z),
                p(b.x, b.y, a.z),
            ],
            Vec3::NEG_Z,
            surface,
        );
        if with_top {
            self.add_quad(
                [
                    p(a.x, b.y, b.z),
                    p(b.x, b.y, b.z),
                    p(b.x, b.y, a.z),
                    p(a.x, b.y, a.z),
                ],
                Vec3::Y,
                surface,
            );
        }
        self.add_quad(
            [
                p(a.x, a.y, a.z),
                p(b.x, a.y, a.z),
                p(b.x, a.y, b.z),
                p(a.x, a.y, b.z),
            ],
            Vec3::NEG_Y,
            surface,
        );
        self.add_quad(
            [
                p(b.x, a.y, b.z),
                p(b.x, a.y, a.z),
                p(b.x, b.y, a.z),
                p(b.x, b.y, b.z),
            ],
            Vec3::X,
            surface,
        );
        self.add_quad(
            [
                p(a.x, a.y, a.z),
                p(a.x, a.y, b.z),
                p(a.x, b.y, b.z),
                p(a.x, b.y, a.z),
            ],
            Vec3::NEG_X,
            surface,
        );
    }

    /// A cap along the top from `xs[0]` to `xs[1]`, whose top runs straight
    /// from `tops[0]` to `tops[1]` (the solid's exact surface between the
    /// solid's own ends), `thickness` deep, overhanging the front and back
    /// faces (`±hz`) by [`CAP_LIP`], its front and back top edges bevelled.
    /// The cross-section is a hexagon: bottom, front face, bevel, top,
    /// bevel, back face.
    fn add_cap(&mut self, xs: [f32; 2], tops: [f32; 2], thickness: f32, hz: f32, surface: Surface) {
        let zf = hz + CAP_LIP;
        let bevel = CAP_BEVEL.min(thickness * 0.5);
        // The section at each end: (z, depth below the top) going around.
        let section = [
            (-zf, thickness),
            (zf, thickness),
            (zf, bevel),
            (zf - bevel, 0.0),
            (-zf + bevel, 0.0),
            (-zf, bevel),
        ];
        let at = |end: usize, k: usize| {
            let (z, below) = section[k];
            Vec3::new(xs[end], tops[end] - below, z)
        };
        let outward = [
            Vec3::NEG_Y,
            Vec3::Z,
            Vec3::new(0.0, 1.0, 1.0),
            Vec3::Y,
            Vec3::new(0.0, 1.0, -1.0),
            Vec3::NEG_Z,
        ];
        for (k, &out) in outward.iter().enumerate() {
            let k1 = (k + 1) % section.len();
            self.add_quad_facing([at(0, k), at(1, k), at(1, k1), at(0, k1)], out, surface);
        }
        // End faces: the hexagon as a fan (it is convex).
        for (end, out) in [(0, Vec3::NEG_X), (1, Vec3::X)] {
            for k in 1..section.len() - 1 {
                self.add_triangle([at(end, 0), at(end, k), at(end, k + 1)], out, surface);
            }
        }
    }

    /// A wedge; `with_top` false leaves the sloped top out (a cap covers it).
    fn add_wedge(&mut self, w: &Wedge, hz: f32, with_top: bool) {
        let c = w.body;
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
        if with_top {
            // The exact sloped surface, normal perpendicular to the line.
            let top_normal = Vec3::new(-(h1 - h0), x1 - x0, 0.0).normalize();
            self.add_quad(
                [p(x0, h0, hz), p(x1, h1, hz), p(x1, h1, -hz), p(x0, h0, -hz)],
                top_normal,
                c,
            );
        }
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

pub(crate) fn shape_err(shape: &str, reason: &str) -> RenderError {
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

    const GREY: Surface = Surface::new(Material::Plain, [0.5, 0.5, 0.5, 1.0]);
    const GRASS: Surface = Surface::new(Material::Grass, [0.3, 0.5, 0.2, 1.0]);

    fn tile(x0: f32, x1: f32, top: f32, cap: Option<Surface>) -> Tile {
        Tile {
            min: Vec2::new(x0, -1.0),
            max: Vec2::new(x1, top),
            body: GREY,
            cap,
        }
    }

    proptest! {
        #[test]
        fn wedge_top_surface_lies_exactly_on_the_slope_line(
            x0 in -50.0f32..50.0, w in 0.1f32..10.0, yb in -5.0f32..0.0,
            h0 in 0.0f32..5.0, h1 in 0.0f32..5.0, capped: bool,
        ) {
            let cap = capped.then_some(GRASS);
            let wedge = Wedge { x0, x1: x0 + w, y_bottom: yb, h0, h1, body: GREY, cap };
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
                let want = if capped { Material::Grass } else { Material::Plain };
                prop_assert_eq!(v.material, want as u32);
            }
        }
    }

    #[test]
    fn every_normal_is_unit_and_every_index_in_range() {
        let mesh = WorldMesh::build(
            &[tile(0.0, 4.0, 0.0, None), tile(6.0, 8.0, 0.0, Some(GRASS))],
            &[Wedge {
                x0: 4.0,
                x1: 5.0,
                y_bottom: -1.0,
                h0: 0.0,
                h1: 0.577,
                body: GREY,
                cap: Some(GRASS),
            }],
            &[Ladder {
                x: 2.0,
                y0: 0.0,
                y1: 3.0,
                rung_ys: vec![0.3, 0.6, 0.9],
                surface: GREY,
            }],
            &[],
            2.0,
        )
        .unwrap();
        // A plain box (6 faces); a capped box (5 faces, the cap's 6 sides
        // and two hexagon ends of 4 triangles); a capped wedge (5 faces and
        // the same cap); a ladder of 2 rails and 3 rungs.
        let cap = 6 * 4 + 2 * 4 * 3;
        assert_eq!(mesh.vertices.len(), 6 * 4 + (5 * 4 + cap) * 2 + 5 * 6 * 4);
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
    fn caps_overhang_exposed_ends_and_the_front_but_not_a_covered_join() {
        // Two capped tiles side by side at the same height, a third higher
        // one to their right: the join of the first two is covered, the
        // left end and the step up to the third are exposed.
        let mesh = WorldMesh::build(
            &[
                tile(0.0, 1.0, 0.0, Some(GRASS)),
                tile(1.0, 2.0, 0.0, Some(GRASS)),
                tile(2.0, 3.0, 1.0, Some(GRASS)),
            ],
            &[],
            &[],
            &[],
            2.0,
        )
        .unwrap();
        let grass: Vec<Vec3> = mesh
            .vertices
            .iter()
            .filter(|v| v.material == Material::Grass as u32)
            .map(|v| Vec3::from(v.position))
            .collect();
        let near = |x: f32, y: f32| {
            grass
                .iter()
                .any(|p| (p.x - x).abs() < 1e-5 && (p.y - y).abs() < 0.2)
        };
        // Left end of the low caps: a lip.
        assert!(near(-CAP_LIP, 0.0));
        // The join at x = 1: no lip on either side.
        assert!(!near(1.0 - CAP_LIP, 0.0) && !near(1.0 + CAP_LIP, 0.0));
        // Under the higher tile's left edge the low cap ends flush (the
        // third tile covers it); the high cap overhangs the step.
        assert!(!near(2.0 + CAP_LIP, 0.0));
        assert!(near(2.0 - CAP_LIP, 1.0));
        // The top is exactly the tile's top, and the lip overhangs the front.
        let top = grass.iter().map(|p| p.y).fold(f32::NEG_INFINITY, f32::max);
        assert!((top - 1.0).abs() < 1e-6, "{top}");
        let front = grass.iter().map(|p| p.z).fold(f32::NEG_INFINITY, f32::max);
        assert!((front - (1.0 + CAP_LIP)).abs() < 1e-6, "{front}");
    }

    #[test]
    fn a_capped_top_is_drawn_once_at_its_height() {
        // The body leaves its top out under a cap: exactly one upward face
        // at the top's height, so nothing fights for those pixels.
        let mesh =
            WorldMesh::build(&[tile(0.0, 1.0, 0.0, Some(GRASS))], &[], &[], &[], 2.0).unwrap();
        let up_at_top = mesh
            .vertices
            .iter()
            .filter(|v| v.normal == [0.0, 1.0, 0.0] && v.position[1].abs() < 1e-6)
            .count();
        assert_eq!(up_at_top, 4);
    }

    #[test]
    fn inverted_tile_is_an_error_naming_the_tile() {
        let err = WorldMesh::build(
            &[
                Tile {
                    min: Vec2::ZERO,
                    max: Vec2::ONE,
                    body: GREY,
                    cap: None,
                },
                Tile {
                    min: Vec2::ONE,
                    max: Vec2::ZERO,
                    body: GREY,
                    cap: None,
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
