//! Procedural content for tests, benchmarks and the window smoke test: a
//! two-joint skinned tube ("capsule figure" limb) and a small world with
//! 15°, 30° and 45° slopes and a ladder, in the world materials (grass and
//! stone caps, earth and brick sides, wooden ladder) before a backdrop of
//! hills, a castle and a forest. No assets needed.

use crate::RenderError;
use crate::mesh::{Ladder, Material, SkinnedVertex, Surface, Tile, Wedge, WorldMesh};
use crate::scenery::{Backdrop, Skyline};
use glam::{Mat4, Vec2, Vec3};

/// Length of the demo tube in metres (a knight-sized 1.6 m).
pub const TUBE_LENGTH: f32 = 1.6;
/// Radius of the demo tube in metres.
pub const TUBE_RADIUS: f32 = 0.16;
/// Segments around the tube.
const TUBE_SEGMENTS: u32 = 16;
/// Rings along the tube (more rings give a smoother bend).
const TUBE_RINGS: u32 = 24;

/// A tube standing on the origin along +Y, skinned to two joints: joint 0 at
/// the base, joint 1 at mid-height; weights blend smoothly across the middle
/// third. Returns `(vertices, indices)`.
pub fn tube_mesh(color: [f32; 4]) -> (Vec<SkinnedVertex>, Vec<u32>) {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    let ring_len = TUBE_SEGMENTS + 1;
    for r in 0..=TUBE_RINGS {
        let y = TUBE_LENGTH * r as f32 / TUBE_RINGS as f32;
        let t = ((y / TUBE_LENGTH - 1.0 / 3.0) * 3.0).clamp(0.0, 1.0);
        let w1 = t * t * (3.0 - 2.0 * t);
        for s in 0..=TUBE_SEGMENTS {
            let a = std::f32::consts::TAU * s as f32 / TUBE_SEGMENTS as f32;
            let (sin, cos) = a.sin_cos();
            vertices.push(SkinnedVertex {
                position: [cos * TUBE_RADIUS, y, sin * TUBE_RADIUS],
                normal: [cos, 0.0, sin],
                uv: [s as f32 / TUBE_SEGMENTS as f32, y / TUBE_LENGTH],
                joints: [0, 1, 0, 0],
                weights: [1.0 - w1, w1, 0.0, 0.0],
                color,
            });
        }
    }
    for r in 0..TUBE_RINGS {
        for s in 0..TUBE_SEGMENTS {
            let a = r * ring_len + s;
            let b = a + ring_len;
            indices.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    // Flat caps at both ends.
    for (y, ny, w1) in [(0.0, -1.0, 0.0), (TUBE_LENGTH, 1.0, 1.0)] {
        let centre = vertices.len() as u32;
        vertices.push(SkinnedVertex {
            position: [0.0, y, 0.0],
            normal: [0.0, ny, 0.0],
            uv: [0.5, 0.5],
            joints: [0, 1, 0, 0],
            weights: [1.0 - w1, w1, 0.0, 0.0],
            color,
        });
        let first = vertices.len() as u32;
        for s in 0..=TUBE_SEGMENTS {
            let a = std::f32::consts::TAU * s as f32 / TUBE_SEGMENTS as f32;
            let (sin, cos) = a.sin_cos();
            vertices.push(SkinnedVertex {
                position: [cos * TUBE_RADIUS, y, sin * TUBE_RADIUS],
                normal: [0.0, ny, 0.0],
                uv: [0.5 + 0.5 * cos, 0.5 + 0.5 * sin],
                joints: [0, 1, 0, 0],
                weights: [1.0 - w1, w1, 0.0, 0.0],
                color,
            });
        }
        for s in 0..TUBE_SEGMENTS {
            indices.extend_from_slice(&[centre, first + s, first + s + 1]);
        }
    }
    (vertices, indices)
}

/// The tube's palette bent by `angle` radians about Z at mid-height:
/// joint 0 stays put, joint 1 rotates about the knee point.
pub fn bend_palette(angle: f32) -> [Mat4; 2] {
    let knee = Vec3::new(0.0, TUBE_LENGTH * 0.5, 0.0);
    [
        Mat4::IDENTITY,
        Mat4::from_translation(knee) * Mat4::from_rotation_z(angle) * Mat4::from_translation(-knee),
    ]
}

const EARTH: Surface = Surface::new(Material::Earth, [0.42, 0.30, 0.20, 1.0]);
const GRASS: Surface = Surface::new(Material::Grass, [0.30, 0.55, 0.25, 1.0]);
const BRICK: Surface = Surface::new(Material::Brick, [0.55, 0.30, 0.22, 1.0]);
const STONE: Surface = Surface::new(Material::Stone, [0.55, 0.55, 0.52, 1.0]);
const WOOD: Surface = Surface::new(Material::Wood, [0.55, 0.35, 0.15, 1.0]);

/// The demo's backdrop: far hills, a castle layer and a forest, from
/// `bottom` up, spanning `x0..x1`.
fn demo_backdrops(x0: f32, x1: f32, bottom: f32) -> [Backdrop; 3] {
    let layer = |z: f32, height: f32, color: [f32; 4], skyline, seed| Backdrop {
        x0: x0 + z * 1.5,
        x1: x1 - z * 1.5,
        bottom: bottom + z,
        base: bottom,
        height,
        z,
        color,
        skyline,
        seed,
    };
    [
        layer(-40.0, 9.0, [0.30, 0.38, 0.52, 1.0], Skyline::Hills, 1),
        layer(-22.0, 4.0, [0.22, 0.28, 0.36, 1.0], Skyline::Castles, 2),
        layer(-9.0, 2.5, [0.12, 0.20, 0.14, 1.0], Skyline::Forest, 3),
    ]
}

/// Height of the surface at the end of a slope of `degrees` over `run` metres.
fn rise(run: f32, degrees: f32) -> f32 {
    run * degrees.to_radians().tan()
}

/// A demo world: flat ground, 15°, 30° and 45° slopes up to plateaus, a
/// ladder from the ground to a ledge, and a far background layer. Returns the
/// mesh and the ladder's rung heights.
pub fn slopes_and_ladder_world() -> Result<(WorldMesh, Vec<f32>), RenderError> {
    let bottom = -1.0;
    let mut tiles = vec![Tile {
        min: Vec2::new(-6.0, bottom),
        max: Vec2::new(-3.0, 0.0),
        body: EARTH,
        cap: Some(GRASS),
    }];
    let mut wedges = Vec::new();
    let mut x = -3.0;
    let mut h = 0.0;
    for deg in [15.0, 30.0, 45.0] {
        let run = 1.0;
        let top = h + rise(run, deg);
        wedges.push(Wedge {
            x0: x,
            x1: x + run,
            y_bottom: bottom,
            h0: h,
            h1: top,
            body: EARTH,
            cap: Some(GRASS),
        });
        x += run;
        h = top;
        tiles.push(Tile {
            min: Vec2::new(x, bottom),
            max: Vec2::new(x + 1.0, h),
            body: EARTH,
            cap: Some(GRASS),
        });
        x += 1.0;
    }
    // A ledge to the right, reached by the ladder.
    tiles.push(Tile {
        min: Vec2::new(x, bottom),
        max: Vec2::new(x + 2.5, 0.0),
        body: EARTH,
        cap: Some(GRASS),
    });
    tiles.push(Tile {
        min: Vec2::new(x + 2.5, 2.5),
        max: Vec2::new(x + 4.0, 3.0),
        body: BRICK,
        cap: Some(STONE),
    });
    let rung_ys: Vec<f32> = (1..=9).map(|i| i as f32 * 0.3).collect();
    let ladders = [Ladder {
        x: x + 2.2,
        y0: 0.0,
        y1: 3.0,
        rung_ys: rung_ys.clone(),
        surface: WOOD,
    }];
    let backdrops = demo_backdrops(-10.0, 12.0, bottom);
    Ok((
        WorldMesh::build(&tiles, &wedges, &ladders, &backdrops, 2.0)?,
        rung_ys,
    ))
}

/// A flat ground slab `width` metres wide with its top at y = 0.
pub fn ground_world(width: f32) -> Result<WorldMesh, RenderError> {
    WorldMesh::build(
        &[Tile {
            min: Vec2::new(-width * 0.5, -0.5),
            max: Vec2::new(width * 0.5, 0.0),
            body: EARTH,
            cap: Some(GRASS),
        }],
        &[],
        &[],
        &demo_backdrops(-width, width, -0.5),
        4.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tube_weights_sum_to_one_and_indices_are_in_range() {
        let (v, i) = tube_mesh([1.0; 4]);
        assert!(
            v.iter()
                .all(|v| (v.weights.iter().sum::<f32>() - 1.0).abs() < 1e-6)
        );
        assert!(i.iter().all(|&i| (i as usize) < v.len()));
    }

    #[test]
    fn demo_slopes_are_15_30_and_45_degrees() {
        let (mesh, rungs) = slopes_and_ladder_world().unwrap();
        assert_eq!(rungs.len(), 9);
        let mut angles: Vec<f32> = mesh
            .vertices
            .iter()
            // Sloped tops only: the caps' bevels lean towards ±z as well.
            .filter(|v| v.normal[1] > 0.0 && v.normal[1] < 0.999 && v.normal[2].abs() < 1e-4)
            .map(|v| v.normal[1].acos().to_degrees())
            .collect();
        angles.dedup_by(|a, b| (*a - *b).abs() < 0.01);
        assert_eq!(angles.len(), 3, "{angles:?}");
        for (a, want) in angles.iter().zip([15.0, 30.0, 45.0]) {
            assert!((a - want).abs() < 0.01, "{a} vs {want}");
        }
    }
}
