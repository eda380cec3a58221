//! What the player sees, built from the game state for the renderer: the
//! level's meshes from the same h(x) the feet stand on, dressed in the
//! world materials (grass on earth, stone on brick, wooden planks and
//! ladders) before a backdrop of hills, castles and a forest; the
//! characters with their palettes and the soft contact shadows under their
//! feet; the follow camera, the sun, sky and fog; and the debug overlay
//! (skeleton, IK targets, ground probes, rung markers).
//!
//! The renderer knows nothing of the game; this module is the one place that
//! translates.

use glam::{Mat4, Vec2, Vec3};
use renderer::{
    Backdrop, Camera, Fog, Frame, Ladder as LadderMesh, Lighting, Material, MaterialDesc,
    RenderError, Renderer, ShadowBox, SkinnedMeshDesc, SkinnedMeshId, SkinnedVertex, Sky, Skyline,
    Surface, TextureDesc, Tile, Wedge, WorldMesh, WorldMeshId,
};

use crate::character::pose_pipeline::{PoseDebug, PosePipeline};
use crate::character::{Character, CharacterMesh};
use crate::sim::player::Player;
use crate::sim::world::{FloorKind, Level};

/// Depth of the level's solid ground along Z, metres: wide enough that the
/// knight's feet (±0.1 m) and the ladder (at z = 0) sit well inside it.
pub const WORLD_DEPTH: f32 = 3.0;
/// How far below its lowest surface the ground is drawn, metres.
const GROUND_THICKNESS: f32 = 4.0;
/// Camera distance from the play plane, metres: the knight (1.8 m) fills
/// about a fifth of the screen height, enough to read his feet on a slope.
pub const CAMERA_DISTANCE: f32 = 7.5;
/// Height of the camera's focus above the feet, metres (the knight's chest).
const FOCUS_HEIGHT: f32 = 1.1;
/// Horizontal dead zone of the follow camera, metres either side.
const DEAD_ZONE: f32 = 0.6;
/// How far ahead of the player (in the facing direction) the camera looks.
const LOOK_AHEAD: f32 = 1.4;
/// Half-life of the camera's follow smoothing, seconds.
const FOLLOW_HALF_LIFE: f32 = 0.18;

/// The top of open ground.
const GRASS: Surface = Surface::new(Material::Grass, [0.30, 0.50, 0.19, 1.0]);
/// The sides of ground standing on the bottom of the map.
const EARTH: Surface = Surface::new(Material::Earth, [0.42, 0.30, 0.20, 1.0]);
/// The top of a floating block.
const STONE: Surface = Surface::new(Material::Stone, [0.58, 0.56, 0.52, 1.0]);
/// The sides of a floating block.
const BRICK: Surface = Surface::new(Material::Brick, [0.56, 0.31, 0.22, 1.0]);
/// Ladders.
const WOOD: Surface = Surface::new(Material::Wood, [0.50, 0.32, 0.16, 1.0]);
/// One-way planks.
const PLANK: Surface = Surface::new(Material::Wood, [0.62, 0.42, 0.22, 1.0]);
/// The steel frame of a moving platform.
const METAL: [f32; 4] = [0.42, 0.44, 0.48, 1.0];

/// Thickness of a one-way plank as drawn, metres: thin, like a bridge's deck.
pub const PLANK_THICKNESS: f32 = 0.12;

/// The level as the renderer's plain shapes: every solid as a box (flat
/// top) or a wedge (sloped top) from its underside to its top, so floating
/// platforms show their sides and undersides; one-way planks as thin wooden
/// decks hanging under their floor line; ladders with the same rungs the IK
/// uses; and parallax backdrops. Every floor the controller and the foot
/// probes use is the top of one of these shapes, at exactly its height.
///
/// Ground that stands on the bottom of the map is earth under a grass cap;
/// a floating block is brick under a stone cap; a solid whose top is not a
/// floor (another block sits on it) has no cap. Built once per level load
/// and per designer edit (the designer rebuilds through this function).
pub fn world_mesh(level: &Level) -> Result<WorldMesh, RenderError> {
    let s = world_shapes(level);
    WorldMesh::build(&s.tiles, &s.wedges, &s.ladders, &s.backdrops, WORLD_DEPTH)
}

/// The plain shapes [`world_mesh`] builds its mesh from.
#[derive(Clone, Debug, Default)]
pub struct WorldShapes {
    /// Boxes: flat-topped solids and planks.
    pub tiles: Vec<Tile>,
    /// Solids with a sloped top.
    pub wedges: Vec<Wedge>,
    /// Ladders with their rungs.
    pub ladders: Vec<LadderMesh>,
    /// Parallax backdrops.
    pub backdrops: Vec<Backdrop>,
}

/// The level as plain shapes (see [`world_mesh`]).
pub fn world_shapes(level: &Level) -> WorldShapes {
    let lowest = level
        .segments
        .iter()
        .map(|s| s.y0.min(s.y1))
        .chain(level.solids.iter().map(|s| s.bottom))
        .fold(f32::INFINITY, f32::min);
    let bottom = if lowest.is_finite() { lowest } else { 0.0 } - GROUND_THICKNESS;
    let lowest_solid = level
        .solids
        .iter()
        .map(|s| s.bottom)
        .fold(f32::INFINITY, f32::min);
    let mut tiles = Vec::new();
    let mut wedges = Vec::new();
    for s in &level.solids {
        // A block with open ground on top is grass; one under another is earth.
        let covered = level
            .top_floor(0.5 * (s.x0 + s.x1))
            .is_some_and(|f| f.y > s.top_max() + 1e-3)
            && level
                .floor_below(0.5 * (s.x0 + s.x1), s.top_max() + 1e-3, 1e-2)
                .is_none();
        let floating = s.bottom > lowest_solid + 1e-3;
        let (body, top) = if floating {
            (BRICK, STONE)
        } else {
            (EARTH, GRASS)
        };
        let cap = (!covered).then_some(top);
        if (s.top1 - s.top0).abs() < 1e-6 {
            tiles.push(Tile {
                min: Vec2::new(s.x0, s.bottom),
                max: Vec2::new(s.x1, s.top0),
                body,
                cap,
            });
        } else {
            wedges.push(Wedge {
                x0: s.x0,
                x1: s.x1,
                y_bottom: s.bottom,
                h0: s.top0,
                h1: s.top1,
                body,
                cap,
            });
        }
    }
    for s in level
        .segments
        .iter()
        .filter(|s| s.kind == FloorKind::OneWay)
    {
        tiles.push(Tile {
            min: Vec2::new(s.x0, s.y0.min(s.y1) - PLANK_THICKNESS),
            max: Vec2::new(s.x1, s.y0.max(s.y1)),
            body: PLANK,
            cap: None,
        });
    }
    let ladders: Vec<LadderMesh> = level
        .ladders
        .iter()
        .map(|l| LadderMesh {
            x: l.x,
            y0: l.bottom,
            y1: l.rail_top(),
            rung_ys: l.grip_heights().collect(),
            surface: WOOD,
        })
        .collect();
    let backdrops = backdrops(level, bottom);
    WorldShapes {
        tiles,
        wedges,
        ladders,
        backdrops,
    }
}

/// The backdrop's layers, far to near, as (depth, height, colour, skyline):
/// pale hills far away, a layer of castles, a forest and dark near hills.
/// Their colours are before the fog, which pales the far ones further.
const BACKDROP_LAYERS: [(f32, f32, [f32; 4], Skyline); 4] = [
    (-70.0, 16.0, [0.36, 0.45, 0.58, 1.0], Skyline::Hills),
    (-38.0, 6.0, [0.24, 0.29, 0.38, 1.0], Skyline::Castles),
    (-18.0, 3.4, [0.09, 0.17, 0.12, 1.0], Skyline::Forest),
    (-7.0, 1.4, [0.13, 0.22, 0.11, 1.0], Skyline::Hills),
];
/// Widest view the backdrop covers, as the horizontal half-width seen per
/// metre of distance: 1.0 is a 2:1 window at the side view's 40° vertical
/// field of view with room to spare (16:9 needs 0.65).
const BACKDROP_HALF_WIDTH_PER_METRE: f32 = 1.0;

/// The backdrop's silhouette layers behind `level`: wide enough that the
/// camera anywhere over the level sees no end, standing on the spawn's
/// height (the level's home ground), reaching down past `bottom`.
fn backdrops(level: &Level, bottom: f32) -> Vec<Backdrop> {
    let (x0, x1) = level.extent();
    let ground = level.spawn.y;
    BACKDROP_LAYERS
        .iter()
        .zip(1u32..)
        .map(|(&(z, height, color, skyline), seed)| {
            let reach = (CAMERA_DISTANCE - z) * BACKDROP_HALF_WIDTH_PER_METRE;
            Backdrop {
                x0: x0 - reach,
                x1: x1 + reach,
                bottom: bottom.min(ground) - 0.5 * reach,
                base: ground - 0.6,
                height,
                z,
                color,
                skyline,
                seed,
            }
        })
        .collect()
}

/// Uploads a character's skinned mesh.
pub fn upload_character(
    renderer: &mut Renderer,
    name: &str,
    mesh: &CharacterMesh,
    joint_count: usize,
) -> Result<SkinnedMeshId, RenderError> {
    let vertices: Vec<SkinnedVertex> = (0..mesh.positions.len())
        .map(|i| SkinnedVertex {
            position: mesh.positions[i].to_array(),
            normal: mesh.normals[i].to_array(),
            uv: mesh.uvs.get(i).copied().unwrap_or([0.0; 2]),
            joints: mesh.joints[i],
            weights: mesh.weights[i],
            color: mesh.colors.get(i).copied().unwrap_or([1.0; 4]),
        })
        .collect();
    renderer.upload_skinned_mesh(&SkinnedMeshDesc {
        label: name,
        vertices: &vertices,
        indices: &mesh.indices,
        joint_count: joint_count as u32,
        material: MaterialDesc {
            base_color: mesh.base_color,
            texture: mesh.texture.as_ref().map(|t| TextureDesc {
                width: t.width,
                height: t.height,
                rgba: &t.rgba,
            }),
        },
    })
}

/// The follow camera: a dead zone around the player, look-ahead in the
/// facing direction, smoothed.
#[derive(Clone, Copy, Debug)]
pub struct CameraRig {
    focus: Vec3,
    ahead: f32,
    initialized: bool,
}

impl Default for CameraRig {
    fn default() -> Self {
        Self {
            focus: Vec3::ZERO,
            ahead: 0.0,
            initialized: false,
        }
    }
}

impl CameraRig {
    /// Moves the camera after the player and returns it.
    pub fn update(&mut self, player: &Player, dt: f32) -> Camera {
        let feet = Vec3::new(player.pos.x, player.pos.y, 0.0);
        let moving = player.vel.x.abs() > 0.2;
        let ahead_target = if moving {
            player.facing * LOOK_AHEAD
        } else {
            0.0
        };
        if !self.initialized {
            self.initialized = true;
            self.focus = feet + Vec3::Y * FOCUS_HEIGHT;
            self.ahead = ahead_target;
        }
        let k = 1.0 - 0.5f32.powf(dt.max(0.0) / FOLLOW_HALF_LIFE);
        self.ahead += (ahead_target - self.ahead) * k * 0.5;
        let want = feet + Vec3::new(self.ahead, FOCUS_HEIGHT, 0.0);
        // Horizontal dead zone: only the part outside it is followed.
        let dx = want.x - self.focus.x;
        let excess = dx - dx.clamp(-DEAD_ZONE, DEAD_ZONE);
        self.focus.x += excess * k;
        self.focus.y += (want.y - self.focus.y) * k;
        Camera::side_view(self.focus, CAMERA_DISTANCE)
    }
}

/// The sky's colour at the horizon; distant things fade to it.
const HORIZON: Vec3 = Vec3::new(0.66, 0.76, 0.86);

/// Sun, sky, fog and a shadow box around `center` (the player). The sun
/// shines from the upper left and a little from the camera's side, so
/// shadows fall to the right; its disc stands upper left in the sky.
pub fn lighting(center: Vec3) -> Lighting {
    Lighting {
        sun_dir: Vec3::new(-0.55, 0.8, 0.45).normalize(),
        sun_color: Vec3::new(1.0, 0.93, 0.80) * 0.95,
        sky_color: Vec3::new(0.34, 0.40, 0.50),
        ground_color: Vec3::new(0.14, 0.12, 0.09),
        clear_color: HORIZON,
        shadow: Some(ShadowBox {
            center,
            radius: 6.0,
        }),
        sky: Some(Sky {
            top: Vec3::new(0.16, 0.33, 0.66),
            horizon: HORIZON,
            sun_radius: 0.07,
        }),
        // Clear around the play plane (the camera stands 7.5 m off it),
        // a quarter faded at the forest, most of the way at the far hills.
        fog: Some(Fog {
            start: 9.0,
            density: 0.02,
        }),
    }
}

const BONE: [f32; 4] = [1.0, 0.9, 0.2, 1.0];
const TARGET_LOCKED: [f32; 4] = [0.2, 1.0, 0.3, 1.0];
const TARGET_FREE: [f32; 4] = [0.2, 0.8, 1.0, 1.0];
const PROBE: [f32; 4] = [1.0, 0.3, 0.9, 1.0];
const RUNG: [f32; 4] = [1.0, 0.55, 0.1, 1.0];

/// The pose one character is drawn in: its skinning matrices, its model
/// matrices (the debug bones, the contact shadows' ankles) and what IK did
/// (the debug marks). A pose pipeline's latest frame is one
/// (`&PosePipeline` converts); the window draws the pose between the last
/// two simulation steps instead ([`crate::character::drawn::DrawnPose`]).
#[derive(Clone, Copy, Debug)]
pub struct ShownPose<'a> {
    /// Skinning matrices (model × inverse bind).
    pub palette: &'a [Mat4],
    /// Model matrices, one per joint.
    pub models: &'a [Mat4],
    /// What IK did (targets, probes, rungs), drawn with the debug overlay.
    pub debug: &'a PoseDebug,
}

impl<'a> From<&'a PosePipeline> for ShownPose<'a> {
    fn from(p: &'a PosePipeline) -> Self {
        Self {
            palette: p.palette(),
            models: &p.models,
            debug: &p.debug,
        }
    }
}

/// Draws one character placed by `world` (normally `pipeline.world`, or an
/// interpolation of it) and, when `frame.show_debug` is set, its overlay.
pub fn draw_character<'a>(
    frame: &mut Frame,
    mesh: SkinnedMeshId,
    character: &Character,
    pose: impl Into<ShownPose<'a>>,
    world: Mat4,
) {
    let pose = pose.into();
    frame.draw_skinned(mesh, world, pose.palette);
    if !frame.show_debug {
        return;
    }
    let w = world;
    let at = |m: &Mat4| w.transform_point3(m.w_axis.truncate());
    for j in 0..character.skeleton.len() {
        if let Some(p) = character.skeleton.parent(j)
            && let (Some(a), Some(b)) = (pose.models.get(p), pose.models.get(j))
        {
            frame.line(at(a), at(b), BONE);
        }
    }
    let d = pose.debug;
    if d.ground_weight > 0.0 {
        for f in &d.feet {
            frame.point(f.target, if f.locked { TARGET_LOCKED } else { TARGET_FREE });
            frame.point(f.probe, PROBE);
            frame.line(f.probe, f.target, PROBE);
        }
    }
    if d.climb_weight > 0.0 {
        for l in d.hands.iter().chain(&d.rung_feet) {
            frame.point(l.target, TARGET_FREE);
            if let Some(r) = l.rung {
                frame.line(
                    Vec3::new(l.target.x - 0.15, r, 0.0),
                    Vec3::new(l.target.x + 0.15, r, 0.0),
                    RUNG,
                );
            }
        }
    }
}

/// Half-length of a foot's contact shadow along the floor, metres (a
/// sole's length and a little more, so it shows round the boot).
const CONTACT_SHADOW_LENGTH: f32 = 0.2;
/// Half-width of a contact shadow across the floor (in depth), metres.
const CONTACT_SHADOW_WIDTH: f32 = 0.13;
/// Height of the sole above its floor at which the contact shadow has faded
/// out, metres: a foot lifted in a step keeps a faint one, a jump none.
const CONTACT_SHADOW_FADE: f32 = 0.35;
/// Opacity of a contact shadow's centre under a foot on the floor.
const CONTACT_SHADOW_DARKNESS: f32 = 0.6;
/// How far above the floor the shadow lies, metres: clear of the floor's
/// depth at the camera's distance, too little to see.
const CONTACT_SHADOW_LIFT: f32 = 0.005;

/// Queues a soft contact shadow under each foot of one character placed by
/// `world`: a dark oval lying on the floor below the ankle (tilted with a
/// slope), darkest when the sole touches the floor and fading out as the
/// foot lifts. The sun's shadow map gives the long cast shadow; this one
/// grounds the feet where the map's texels are too coarse to.
pub fn draw_contact_shadows<'a>(
    frame: &mut Frame,
    character: &Character,
    pose: impl Into<ShownPose<'a>>,
    world: Mat4,
    level: &Level,
) {
    let pose = pose.into();
    let sole = character.rig.foot_height;
    for leg in &character.rig.legs {
        let Some(ankle) = pose.models.get(leg.ankle) else {
            continue;
        };
        let ankle = world.transform_point3(ankle.w_axis.truncate());
        let Some(hit) = level.floor_below(ankle.x, ankle.y, sole + CONTACT_SHADOW_FADE) else {
            continue;
        };
        let gap = (ankle.y - sole - hit.y).max(0.0);
        let k = 1.0 - gap / CONTACT_SHADOW_FADE;
        if k <= 0.0 {
            continue;
        }
        let n = hit.normal();
        let along = Vec3::new(n.y, -n.x, 0.0);
        let center = Vec3::new(ankle.x, hit.y, ankle.z) + n.extend(0.0) * CONTACT_SHADOW_LIFT;
        frame.soft_quad(
            center,
            along * CONTACT_SHADOW_LENGTH,
            Vec3::Z * CONTACT_SHADOW_WIDTH,
            [0.0, 0.0, 0.0, CONTACT_SHADOW_DARKNESS * k * k],
        );
    }
}

/// The renderer's handles for one level and one character.
#[derive(Clone, Copy, Debug)]
pub struct SceneHandles {
    /// The level's mesh.
    pub world: WorldMeshId,
    /// The character's mesh.
    pub character: SkinnedMeshId,
    /// A unit box (1 m cube, top face at y = 0) drawn scaled and placed for
    /// each moving platform: platforms move as instances, never by
    /// rebuilding a mesh.
    pub platform: SkinnedMeshId,
}

/// Draws every moving platform of `level` where it is `alpha` of the way
/// from its previous step's position to its current one (the render
/// interpolation of the fixed step).
pub fn draw_platforms(frame: &mut Frame, mesh: SkinnedMeshId, level: &Level, alpha: f32) {
    for p in &level.platforms {
        let at = p.prev.lerp(p.pos, alpha.clamp(0.0, 1.0));
        let model = Mat4::from_translation(Vec3::new(at.x, at.y, 0.0))
            * Mat4::from_scale(Vec3::new(
                2.0 * p.half_width,
                p.thickness,
                WORLD_DEPTH * 0.6,
            ));
        frame.draw_skinned(mesh, model, &[Mat4::IDENTITY]);
    }
}

/// Wooden deck boards across a moving platform's top (alternating shades).
const DECK: [[f32; 4]; 2] = [[0.55, 0.37, 0.20, 1.0], [0.46, 0.30, 0.16, 1.0]];
/// Boards across the deck, along its depth.
const DECK_BOARDS: usize = 5;

/// The unit box of [`SceneHandles::platform`]: one joint, every vertex
/// bound to it with weight 1. Its top is a deck of wooden boards, its sides
/// a steel frame whose edges are darker (they read as a riveted rim).
fn upload_platform_box(renderer: &mut Renderer) -> Result<SkinnedMeshId, RenderError> {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    let mut quad = |corners: [Vec3; 4], n: Vec3, colors: [[f32; 4]; 4]| {
        let base = vertices.len() as u32;
        for (p, color) in corners.into_iter().zip(colors) {
            vertices.push(SkinnedVertex {
                position: p.to_array(),
                normal: n.to_array(),
                uv: [p.x + 0.5, p.z + 0.5],
                joints: [0; 4],
                weights: [1.0, 0.0, 0.0, 0.0],
                color,
            });
        }
        indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    };
    // Box from (-0.5, -1, -0.5) to (0.5, 0, 0.5): the top at y = 0.
    for i in 0..DECK_BOARDS {
        let z0 = -0.5 + i as f32 / DECK_BOARDS as f32;
        let z1 = z0 + 1.0 / DECK_BOARDS as f32;
        quad(
            [
                Vec3::new(-0.5, 0.0, z1),
                Vec3::new(0.5, 0.0, z1),
                Vec3::new(0.5, 0.0, z0),
                Vec3::new(-0.5, 0.0, z0),
            ],
            Vec3::Y,
            [DECK[i % 2]; 4],
        );
    }
    let sides: [(Vec3, Vec3, Vec3); 5] = [
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::X, Vec3::NEG_Z, Vec3::Y),
        (Vec3::NEG_X, Vec3::Z, Vec3::Y),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
    ];
    for (n, u, v) in sides {
        let centre = Vec3::new(0.0, -0.5, 0.0) + n * 0.5;
        let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)];
        // Sides shade from a bright top edge under the deck to a dark foot,
        // the underside darkest: the steel reads as a frame under the boards.
        let k = |sv: f32| {
            if n == Vec3::NEG_Y {
                0.6
            } else {
                0.75 + 0.5 * (sv + 0.5)
            }
        };
        quad(
            corners.map(|(su, sv)| centre + u * su + v * sv),
            n,
            corners.map(|(_, sv)| {
                let k = k(sv);
                [METAL[0] * k, METAL[1] * k, METAL[2] * k, 1.0]
            }),
        );
    }
    renderer.upload_skinned_mesh(&SkinnedMeshDesc {
        label: "moving platform",
        vertices: &vertices,
        indices: &indices,
        joint_count: 1,
        material: MaterialDesc {
            base_color: [1.0; 4],
            texture: None,
        },
    })
}

/// Uploads what a scene needs.
pub fn upload_scene(
    renderer: &mut Renderer,
    level: &Level,
    character: &Character,
) -> Result<SceneHandles, RenderError> {
    let world = renderer.upload_world_mesh(&world_mesh(level)?)?;
    let mesh = character
        .mesh
        .as_ref()
        .ok_or_else(|| RenderError::InvalidMesh {
            mesh: character.name.clone(),
            reason: "the model has no skinned mesh".into(),
        })?;
    let character = upload_character(renderer, &character.name, mesh, character.skeleton.len())?;
    let platform = upload_platform_box(renderer)?;
    Ok(SceneHandles {
        world,
        character,
        platform,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::testmaps::{map, point};
    use proptest::prelude::*;

    /// The heights of every drawn shape's top over `x`: (top, is it
    /// covered by another shape right above it).
    fn tops_at(s: &WorldShapes, x: f32) -> Vec<f32> {
        let mut out = Vec::new();
        for t in &s.tiles {
            if t.min.x <= x && x < t.max.x {
                out.push(t.max.y);
            }
        }
        for w in &s.wedges {
            if w.x0 <= x && x < w.x1 {
                out.push(w.h0 + (w.h1 - w.h0) * (x - w.x0) / (w.x1 - w.x0));
            }
        }
        out
    }

    /// Whether some shape holds the point (x, y) strictly inside (below its
    /// top, above its bottom).
    fn inside(s: &WorldShapes, x: f32, y: f32) -> bool {
        s.tiles
            .iter()
            .any(|t| t.min.x <= x && x < t.max.x && t.min.y < y && y < t.max.y)
            || s.wedges.iter().any(|w| {
                w.x0 <= x
                    && x < w.x1
                    && w.y_bottom < y
                    && y < w.h0 + (w.h1 - w.h0) * (x - w.x0) / (w.x1 - w.x0)
            })
    }

    /// A random grid of ground, planks and 45° slopes, several per column.
    fn grid() -> impl Strategy<Value = Vec<String>> {
        let cell = prop_oneof![
            6 => Just('.'),
            4 => Just('#'),
            1 => Just('-'),
            1 => Just('/'),
            1 => Just('\\'),
        ];
        proptest::collection::vec(proptest::collection::vec(cell, 12), 8).prop_map(|rows| {
            let mut rows: Vec<String> = rows.into_iter().map(|r| r.into_iter().collect()).collect();
            // A solid bottom row, so the map always has ground.
            rows.push("#".repeat(12));
            rows
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1_000))]

        /// The drawn top surface is the collision floor everywhere: every
        /// floor the controller and the foot probes stand on is the top of
        /// a drawn shape at exactly its height, and every drawn top that is
        /// open to the sky (not inside another shape) is a floor.
        #[test]
        fn the_drawn_top_surface_is_the_collision_floor(rows in grid(), fx in 0.0f32..1.0) {
            let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
            let objs = point(1, "Spawn", 0.0, 0) + &point(2, "Exit", 11.0, 0);
            let loaded = crate::level::from_tmx_str(&map(&[&refs], &objs), "random.tmx").unwrap();
            let level = &loaded.level;
            let shapes = world_shapes(level);
            for col in 0..12 {
                let x = (col as f32 + fx.clamp(0.01, 0.99)) * 0.5;
                let tops = tops_at(&shapes, x);
                for s in level.segments.iter().filter(|s| s.covers(x)) {
                    let h = s.height_at(x);
                    prop_assert!(
                        tops.iter().any(|t| (t - h).abs() < 1e-4),
                        "floor {s:?} at x {x} is not drawn (tops {tops:?})"
                    );
                }
                for &t in &tops {
                    if inside(&shapes, x, t + 1e-3) {
                        continue;
                    }
                    let f = level.floor_below(x, t + 1e-4, 1e-3);
                    prop_assert!(
                        f.is_some_and(|f| (f.y - t).abs() < 1e-4),
                        "drawn top {t} at x {x} is not a floor"
                    );
                }
            }
        }
    }
}
