//! Backdrop silhouettes made by our own code: rolling hills, a forest of
//! conifers and round trees, and castles with towers, battlements and a
//! flag. Each [`Backdrop`] is one flat layer facing the camera at a depth
//! behind the play plane, so the perspective camera scrolls it slower than
//! the level (parallax) and the world shader's distance fog pales it. The
//! shapes are a deterministic function of the layer's numbers and seed.

use crate::mesh::{Material, Surface, WorldMesh};
use glam::Vec3;

/// What a backdrop layer's skyline is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Skyline {
    /// Rolling hills.
    Hills,
    /// Low hills under a forest of conifers and round trees.
    Forest,
    /// Low hills with a castle every [`CASTLE_SPACING`] heights.
    Castles,
}

/// One silhouette layer of the backdrop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backdrop {
    /// Left end of the layer, metres.
    pub x0: f32,
    /// Right end of the layer.
    pub x1: f32,
    /// The layer's lower edge (hidden behind nearer things), metres.
    pub bottom: f32,
    /// The line the skyline stands on, metres.
    pub base: f32,
    /// The skyline's typical height above `base`, metres.
    pub height: f32,
    /// Depth of the layer (negative: behind the play plane).
    pub z: f32,
    /// Linear RGBA colour of the silhouette (before fog).
    pub color: [f32; 4],
    /// What stands on the skyline.
    pub skyline: Skyline,
    /// Varies the shapes between layers.
    pub seed: u32,
}

/// Most samples a layer's ground line is built from: a very long layer gets
/// wider samples rather than an unbounded vertex count (2,048 samples are
/// 8,192 vertices).
const MAX_PROFILE_SAMPLES: f32 = 2048.0;
/// Distance between castles along a [`Skyline::Castles`] layer, in layer
/// heights: about one castle in view at the depths the game uses.
pub const CASTLE_SPACING: f32 = 9.0;
/// How far shapes standing on a layer's ground are drawn in front of it,
/// metres: they never share a depth with the ground strip.
const FEATURE_OFFSET: f32 = 0.02;

impl Backdrop {
    /// Checks that the numbers describe a layer: finite, `x0 < x1`,
    /// `bottom < base`, a positive height.
    pub(crate) fn check(&self) -> Result<(), String> {
        let vals = [
            self.x0,
            self.x1,
            self.bottom,
            self.base,
            self.height,
            self.z,
        ];
        if vals.iter().any(|v| !v.is_finite()) {
            return Err("non-finite value".into());
        }
        if self.x1 <= self.x0 {
            return Err(format!("x1 {} is not right of x0 {}", self.x1, self.x0));
        }
        if self.base <= self.bottom {
            return Err(format!(
                "base {} is not above bottom {}",
                self.base, self.bottom
            ));
        }
        if self.height <= 0.0 {
            return Err(format!("height {} must be positive", self.height));
        }
        Ok(())
    }

    /// The ground line's height at `x`: a sum of three sines with
    /// seed-chosen phases, wavelengths a few layer heights long.
    fn ground(&self, x: f32) -> f32 {
        let (amplitude, offset) = match self.skyline {
            Skyline::Hills => (1.0, 0.5),
            Skyline::Forest => (0.3, 0.15),
            Skyline::Castles => (0.25, 0.1),
        };
        let h = self.height;
        let tau = std::f32::consts::TAU;
        let p = |k: u32| unit_hash(self.seed, k) * tau;
        let wave = 0.3 * (x * tau / (8.0 * h) + p(1)).sin()
            + 0.15 * (x * tau / (3.1 * h) + p(2)).sin()
            + 0.05 * (x * tau / (1.3 * h) + p(3)).sin();
        self.base + h * amplitude * (offset + wave)
    }
}

/// A hash of `(seed, k)` in `0..1`: integer mixing (a xorshift-multiply
/// finaliser), so layers are reproducible on every platform.
fn unit_hash(seed: u32, k: u32) -> f32 {
    let mut x = seed.wrapping_mul(0x9E37_79B9) ^ k.wrapping_mul(0x85EB_CA6B);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7FEB_352D);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846C_A68B);
    x ^= x >> 16;
    (x >> 8) as f32 / (1u32 << 24) as f32
}

/// Adds one layer's silhouette to `mesh` (the layer was checked).
pub(crate) fn add_backdrop(mesh: &mut WorldMesh, b: &Backdrop) {
    let mut layer = Layer {
        mesh,
        z: b.z,
        surface: Surface::new(Material::Silhouette, b.color),
    };
    let step = (b.height / 4.0)
        .max((b.x1 - b.x0) / MAX_PROFILE_SAMPLES)
        .max(0.05);
    let mut xa = b.x0;
    while xa < b.x1 {
        let xb = (xa + step).min(b.x1);
        layer.quad(
            [xa, b.bottom],
            [xb, b.bottom],
            [xb, b.ground(xb)],
            [xa, b.ground(xa)],
            0.0,
        );
        xa = xb;
    }
    match b.skyline {
        Skyline::Hills => {}
        Skyline::Forest => add_forest(&mut layer, b),
        Skyline::Castles => add_castles(&mut layer, b),
    }
}

/// A layer being built: flat shapes at one depth.
struct Layer<'a> {
    mesh: &'a mut WorldMesh,
    z: f32,
    surface: Surface,
}

impl Layer<'_> {
    fn at(&self, p: [f32; 2], lift: f32) -> Vec3 {
        Vec3::new(p[0], p[1], self.z + lift)
    }

    fn quad(&mut self, a: [f32; 2], b: [f32; 2], c: [f32; 2], d: [f32; 2], lift: f32) {
        let corners = [
            self.at(a, lift),
            self.at(b, lift),
            self.at(c, lift),
            self.at(d, lift),
        ];
        self.mesh.add_quad(corners, Vec3::Z, self.surface);
    }

    /// An axis-aligned rectangle standing in front of the ground strip.
    fn rect(&mut self, x0: f32, y0: f32, x1: f32, y1: f32) {
        self.quad([x0, y0], [x1, y0], [x1, y1], [x0, y1], FEATURE_OFFSET);
    }

    fn triangle(&mut self, a: [f32; 2], b: [f32; 2], c: [f32; 2]) {
        let corners = [
            self.at(a, FEATURE_OFFSET),
            self.at(b, FEATURE_OFFSET),
            self.at(c, FEATURE_OFFSET),
        ];
        self.mesh.add_triangle(corners, Vec3::Z, self.surface);
    }

    /// A wall from `x0` to `x1` rising from `y0` to `y1` with battlements:
    /// merlons `m` wide and high with gaps as wide between them.
    fn battlemented(&mut self, x0: f32, x1: f32, y0: f32, y1: f32, m: f32) {
        self.rect(x0, y0, x1, y1);
        let count = (((x1 - x0) / m - 1.0) / 2.0).floor().max(0.0) as u32 + 1;
        let used = (2 * count - 1) as f32 * m;
        let start = x0 + 0.5 * (x1 - x0 - used);
        for i in 0..count {
            let mx = start + 2.0 * i as f32 * m;
            self.rect(mx, y1 - 0.01, mx + m, y1 + m);
        }
    }
}

fn add_forest(layer: &mut Layer<'_>, b: &Backdrop) {
    let mut x = b.x0;
    let mut k = 100;
    while x < b.x1 {
        let r = |i: u32| unit_hash(b.seed, k * 8 + i);
        let th = b.height * (0.6 + 0.5 * r(0));
        let g = b.ground(x) - 0.1 * th;
        // A narrow trunk, then three tiers of a conifer or a round crown.
        layer.rect(x - 0.04 * th, g, x + 0.04 * th, g + 0.3 * th);
        if r(1) < 0.7 {
            for tier in 0..3 {
                let t = tier as f32;
                let y = g + th * (0.18 + 0.24 * t);
                let half = th * (0.3 - 0.07 * t);
                let apex = if tier == 2 { g + th } else { y + 0.42 * th };
                layer.triangle([x - half, y], [x + half, y], [x, apex]);
            }
        } else {
            let c = [x, g + 0.62 * th];
            let radius = 0.3 * th;
            let sides = 10;
            for s in 0..sides {
                let a0 = std::f32::consts::TAU * s as f32 / sides as f32;
                let a1 = std::f32::consts::TAU * (s + 1) as f32 / sides as f32;
                // A little lumpy, so no two crowns are the same disc.
                let w = 1.0 + 0.12 * (unit_hash(b.seed, k * 64 + s) - 0.5);
                layer.triangle(
                    c,
                    [c[0] + radius * w * a0.cos(), c[1] + radius * w * a0.sin()],
                    [c[0] + radius * w * a1.cos(), c[1] + radius * w * a1.sin()],
                );
            }
        }
        x += b.height * (0.25 + 0.45 * r(2));
        k += 1;
    }
}

fn add_castles(layer: &mut Layer<'_>, b: &Backdrop) {
    let h = b.height;
    let spacing = CASTLE_SPACING * h;
    let mut cx = b.x0 + spacing * (0.3 + 0.4 * unit_hash(b.seed, 7));
    while cx + 2.0 * h < b.x1 {
        let g = b.ground(cx) - 0.15 * h;
        let m = 0.08 * h;
        // Curtain wall between two towers, a keep behind it.
        layer.battlemented(cx - 1.6 * h, cx + 1.6 * h, g, g + 0.45 * h, m);
        layer.battlemented(cx - 0.35 * h, cx + 0.45 * h, g, g + 1.15 * h, m);
        // The keep's flag on its pole.
        let pole = cx + 0.05 * h;
        layer.rect(pole - 0.01 * h, g + 1.2 * h, pole + 0.01 * h, g + 1.5 * h);
        layer.triangle(
            [pole, g + 1.5 * h],
            [pole, g + 1.38 * h],
            [pole + 0.2 * h, g + 1.44 * h],
        );
        // Left tower battlemented, right tower with a conical roof.
        let tw = 0.21 * h;
        layer.battlemented(cx - 1.6 * h - tw, cx - 1.6 * h + tw, g, g + 0.85 * h, m);
        layer.rect(cx + 1.6 * h - tw, g, cx + 1.6 * h + tw, g + 0.8 * h);
        layer.triangle(
            [cx + 1.6 * h - tw - 0.05 * h, g + 0.79 * h],
            [cx + 1.6 * h + tw + 0.05 * h, g + 0.79 * h],
            [cx + 1.6 * h, g + 1.2 * h],
        );
        cx += spacing;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::WorldMesh;

    fn layer(skyline: Skyline) -> Backdrop {
        Backdrop {
            x0: -50.0,
            x1: 150.0,
            bottom: -20.0,
            base: 0.0,
            height: 6.0,
            z: -30.0,
            color: [0.3, 0.4, 0.5, 1.0],
            skyline,
            seed: 3,
        }
    }

    fn build(b: Backdrop) -> WorldMesh {
        WorldMesh::build(&[], &[], &[], &[b], 2.0).unwrap()
    }

    #[test]
    fn every_silhouette_vertex_lies_in_its_layer_and_faces_the_camera() {
        for skyline in [Skyline::Hills, Skyline::Forest, Skyline::Castles] {
            let b = layer(skyline);
            let mesh = build(b);
            assert!(!mesh.indices.is_empty());
            for v in &mesh.vertices {
                let [x, y, z] = v.position;
                assert!(
                    (z - b.z).abs() <= FEATURE_OFFSET + 1e-5,
                    "{skyline:?} z {z}"
                );
                assert!(
                    x >= b.x0 - b.height && x <= b.x1 + b.height,
                    "{skyline:?} x {x}"
                );
                assert!(
                    y >= b.bottom && y < b.base + 2.0 * b.height,
                    "{skyline:?} y {y}"
                );
                assert_eq!(v.normal, [0.0, 0.0, 1.0]);
                assert_eq!(v.material, Material::Silhouette as u32);
            }
        }
    }

    #[test]
    fn hills_rise_and_fall_within_their_height() {
        let b = layer(Skyline::Hills);
        let heights: Vec<f32> = (0..400).map(|i| b.ground(b.x0 + i as f32 * 0.5)).collect();
        let lo = heights.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = heights.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert!(hi - lo > 0.5 * b.height, "flat hills: {lo}..{hi}");
        assert!(lo >= b.base && hi <= b.base + b.height, "{lo}..{hi}");
    }

    #[test]
    fn castles_and_trees_stand_above_the_hills_skyline() {
        // A castle layer reaches higher than its low hills alone (the keep
        // is 1.15 heights tall), and so does a forest.
        for skyline in [Skyline::Forest, Skyline::Castles] {
            let b = layer(skyline);
            let top = build(b)
                .vertices
                .iter()
                .map(|v| v.position[1])
                .fold(f32::NEG_INFINITY, f32::max);
            let ground_top = (0..400)
                .map(|i| b.ground(b.x0 + i as f32 * 0.5))
                .fold(f32::NEG_INFINITY, f32::max);
            assert!(
                top > ground_top + 0.5 * b.height,
                "{skyline:?}: {top} vs {ground_top}"
            );
        }
    }

    #[test]
    fn a_very_long_layer_has_a_bounded_vertex_count() {
        let b = Backdrop {
            x1: 100_000.0,
            ..layer(Skyline::Hills)
        };
        let mesh = build(b);
        assert!(mesh.vertices.len() <= 4 * (MAX_PROFILE_SAMPLES as usize + 2));
    }

    #[test]
    fn a_layer_with_its_base_below_its_bottom_is_an_error_naming_it() {
        let b = Backdrop {
            base: -30.0,
            ..layer(Skyline::Hills)
        };
        let err = WorldMesh::build(&[], &[], &[], &[layer(Skyline::Hills), b], 2.0).unwrap_err();
        assert!(err.to_string().contains("backdrop 1"), "{err}");
    }

    #[test]
    fn the_same_numbers_give_the_same_silhouette() {
        assert_eq!(build(layer(Skyline::Forest)), build(layer(Skyline::Forest)));
        let other = Backdrop {
            seed: 4,
            ..layer(Skyline::Forest)
        };
        assert_ne!(build(layer(Skyline::Forest)), build(other));
    }
}
