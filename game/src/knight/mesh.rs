//! The knight's mesh, built from parametric primitives in bind (model) space:
//! lathed shells with elliptical sections (limbs, torso, helmet), flat-shaded
//! boxes (gauntlets, sabatons, visor slit) and extruded outlines (shield).
//!
//! Each vertex carries a linear vertex colour (steel, dark steel, crimson
//! cloth, gold trim, leather) and up to two joint influences: rigid per part,
//! blended with a smoothstep over a band where a limb bends (elbows, knees,
//! hips, the waist), so the weights always sum to one.

use glam::{Vec2, Vec3};

use super::skeleton::{
    ANKLE_HEIGHT, BALL_FORWARD, HIP_HEIGHT, KNEE_HEIGHT, UPPER_ARM, bind_positions, joint,
};

/// A skinned, vertex-coloured triangle mesh in bind space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Positions, metres.
    pub positions: Vec<Vec3>,
    /// Unit normals.
    pub normals: Vec<Vec3>,
    /// Linear RGBA colours.
    pub colors: Vec<[f32; 4]>,
    /// Joint indices (unused slots are 0 with weight 0).
    pub joints: Vec<[u16; 4]>,
    /// Weights, summing to one.
    pub weights: Vec<[f32; 4]>,
    /// Triangle list, counter-clockwise seen from outside.
    pub indices: Vec<u16>,
}

impl Mesh {
    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

/// Half the width of a blend band at a bending joint, metres: wide enough that
/// a 90° bend folds smoothly, narrow enough that the armour plates stay rigid.
const BEND_BAND: f32 = 0.05;

/// Segments around a limb or torso shell: 12 keeps the silhouette round at
/// game-camera size while the whole knight stays under 5k triangles.
const ROUND_SEGMENTS: usize = 12;

/// Converts an sRGB colour component to linear (glTF vertex colours are linear).
fn lin(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// A linear RGBA colour from sRGB bytes.
fn rgb(r: u8, g: u8, b: u8) -> [f32; 4] {
    [
        lin(r as f32 / 255.0),
        lin(g as f32 / 255.0),
        lin(b as f32 / 255.0),
        1.0,
    ]
}

/// The palette.
struct Palette {
    steel: [f32; 4],
    dark: [f32; 4],
    cloth: [f32; 4],
    gold: [f32; 4],
    leather: [f32; 4],
    slit: [f32; 4],
}

fn palette() -> Palette {
    Palette {
        steel: rgb(176, 182, 192),
        dark: rgb(88, 92, 104),
        cloth: rgb(150, 24, 30),
        gold: rgb(214, 170, 64),
        leather: rgb(96, 62, 36),
        slit: rgb(12, 12, 16),
    }
}

/// How a primitive's vertices are bound to joints.
#[derive(Clone, Debug)]
enum Skin {
    /// Everything follows one joint.
    Rigid(usize),
    /// Joints along an axis: `joints[i]` below `bounds[i]` (measured from
    /// `origin` along `dir`), blended over [`BEND_BAND`] at each bound.
    Chain {
        origin: Vec3,
        dir: Vec3,
        joints: Vec<usize>,
        bounds: Vec<f32>,
    },
    /// The skirt of the tabard: the pelvis above the hips, fading into the
    /// thigh on each side further down so the legs carry it when they swing.
    Skirt,
}

fn smoothstep(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

impl Skin {
    fn weights(&self, p: Vec3) -> ([u16; 4], [f32; 4]) {
        match self {
            Skin::Rigid(j) => ([*j as u16, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            Skin::Chain {
                origin,
                dir,
                joints,
                bounds,
            } => {
                let s = (p - *origin).dot(*dir);
                for (i, b) in bounds.iter().enumerate() {
                    if s < b + BEND_BAND {
                        let t = smoothstep((s - (b - BEND_BAND)) / (2.0 * BEND_BAND));
                        let (a, c) = (joints[i] as u16, joints[i + 1] as u16);
                        return if t <= 0.0 {
                            ([a, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
                        } else {
                            ([a, c, 0, 0], [1.0 - t, t, 0.0, 0.0])
                        };
                    }
                }
                let last = *joints.last().unwrap_or(&0) as u16;
                ([last, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
            }
            Skin::Skirt => {
                let down = smoothstep((HIP_HEIGHT + 0.02 - p.y) / 0.14);
                let side = smoothstep(p.z.abs() / 0.12);
                let t = 0.8 * down * side;
                let thigh = if p.z < 0.0 {
                    joint::THIGH_L
                } else {
                    joint::THIGH_R
                } as u16;
                if t <= 0.0 {
                    ([joint::PELVIS as u16, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
                } else {
                    ([joint::PELVIS as u16, thigh, 0, 0], [1.0 - t, t, 0.0, 0.0])
                }
            }
        }
    }
}

/// Smooth or faceted normals for a primitive.
#[derive(Clone, Copy, PartialEq)]
enum Shading {
    Smooth,
    Flat,
}

/// A primitive before it joins the mesh.
struct Part {
    positions: Vec<Vec3>,
    colors: Vec<[f32; 4]>,
    tris: Vec<[u32; 3]>,
}

/// A point on a lathe profile: distance along the axis, radius, colour.
#[derive(Clone, Copy)]
struct Ring {
    t: f32,
    r: f32,
    color: [f32; 4],
}

fn ring(t: f32, r: f32, color: [f32; 4]) -> Ring {
    Ring { t, r, color }
}

/// Two unit vectors perpendicular to `axis`, forming a right-handed frame
/// `(u, w, axis)`; `u` leans toward `hint`.
fn frame(axis: Vec3, hint: Vec3) -> (Vec3, Vec3) {
    let mut u = hint - axis * hint.dot(axis);
    if u.length_squared() < 1e-6 {
        u = axis.any_orthonormal_vector();
    }
    let u = u.normalize();
    let w = axis.cross(u);
    (u, w)
}

/// A surface of revolution along `axis` from `origin` with elliptical
/// sections (radius × `su` along the frame's `u`, × `sw` along `w`).
/// Rings of radius zero close the shell at that end.
fn lathe(
    origin: Vec3,
    axis: Vec3,
    hint: Vec3,
    profile: &[Ring],
    segments: usize,
    (su, sw): (f32, f32),
) -> Part {
    let axis = axis.normalize();
    let (u, w) = frame(axis, hint);
    let mut positions = Vec::new();
    let mut colors = Vec::new();
    let mut tris = Vec::new();
    for rg in profile {
        for s in 0..segments {
            let a = s as f32 / segments as f32 * std::f32::consts::TAU;
            let off = u * (a.cos() * rg.r * su) + w * (a.sin() * rg.r * sw);
            positions.push(origin + axis * rg.t + off);
            colors.push(rg.color);
        }
    }
    let n = segments as u32;
    for i in 0..profile.len().saturating_sub(1) as u32 {
        let (r0, r1) = (profile[i as usize].r, profile[i as usize + 1].r);
        for s in 0..n {
            let a = i * n + s;
            let b = i * n + (s + 1) % n;
            let c = a + n;
            let d = b + n;
            // Counter-clockwise seen from outside: the frame (u, w, axis) is
            // right-handed, so going around increases toward w. A ring of
            // radius zero makes one of the two triangles degenerate.
            if r0 > 0.0 {
                tris.push([a, b, d]);
            }
            if r1 > 0.0 {
                tris.push([a, d, c]);
            }
        }
    }
    Part {
        positions,
        colors,
        tris,
    }
}

/// A box with centre `c`, half extents `h` along the axes `(x, y, z)` of a
/// rotated frame.
fn cuboid(c: Vec3, h: Vec3, axes: [Vec3; 3], color: [f32; 4]) -> Part {
    let mut positions = Vec::new();
    let mut tris = Vec::new();
    for (i, sign) in [
        (0usize, 1.0f32),
        (0, -1.0),
        (1, 1.0),
        (1, -1.0),
        (2, 1.0),
        (2, -1.0),
    ] {
        let n = axes[i] * sign;
        let (a, b) = ((i + 1) % 3, (i + 2) % 3);
        let (ua, ub) = (axes[a] * h[a] * sign, axes[b] * h[b]);
        let base = positions.len() as u32;
        let centre = c + n * h[i];
        positions.extend([
            centre - ua - ub,
            centre + ua - ub,
            centre + ua + ub,
            centre - ua + ub,
        ]);
        tris.push([base, base + 1, base + 2]);
        tris.push([base, base + 2, base + 3]);
    }
    let colors = vec![color; positions.len()];
    Part {
        positions,
        colors,
        tris,
    }
}

fn axis_box(c: Vec3, h: Vec3, color: [f32; 4]) -> Part {
    cuboid(c, h, [Vec3::X, Vec3::Y, Vec3::Z], color)
}

/// A convex outline (in the plane spanned by `u`, `v`, centred on `c`)
/// extruded by `depth` along `u × v`.
fn slab(c: Vec3, u: Vec3, v: Vec3, outline: &[Vec2], depth: f32, color: [f32; 4]) -> Part {
    let n = u.cross(v).normalize();
    let k = outline.len() as u32;
    // Wind the outline counter-clockwise in (u, v) so the front faces +n.
    let area: f32 = (0..outline.len())
        .map(|i| outline[i].perp_dot(outline[(i + 1) % outline.len()]))
        .sum();
    let reversed: Vec<Vec2>;
    let outline = if area < 0.0 {
        reversed = outline.iter().rev().copied().collect();
        &reversed[..]
    } else {
        outline
    };
    let mut positions = Vec::new();
    let mut tris = Vec::new();
    let at = |p: Vec2, d: f32| c + u * p.x + v * p.y + n * d;
    // Front (+n) and back faces as fans, then the rim as quads, each with its
    // own vertices so flat shading keeps the edges crisp.
    for p in outline {
        positions.push(at(*p, depth * 0.5));
    }
    for p in outline {
        positions.push(at(*p, -depth * 0.5));
    }
    for i in 1..k - 1 {
        tris.push([0, i, i + 1]);
        tris.push([k, k + i + 1, k + i]);
    }
    for i in 0..k {
        let j = (i + 1) % k;
        let base = positions.len() as u32;
        positions.extend([
            at(outline[i as usize], depth * 0.5),
            at(outline[i as usize], -depth * 0.5),
            at(outline[j as usize], -depth * 0.5),
            at(outline[j as usize], depth * 0.5),
        ]);
        tris.push([base, base + 1, base + 2]);
        tris.push([base, base + 2, base + 3]);
    }
    let colors = vec![color; positions.len()];
    Part {
        positions,
        colors,
        tris,
    }
}

/// Collects parts into a [`Mesh`].
#[derive(Default)]
struct Builder {
    mesh: Mesh,
}

impl Builder {
    fn add(&mut self, part: Part, skin: &Skin, shading: Shading) {
        let m = &mut self.mesh;
        match shading {
            Shading::Smooth => {
                let base = m.positions.len() as u32;
                let mut normals = vec![Vec3::ZERO; part.positions.len()];
                for t in &part.tris {
                    let [a, b, c] = t.map(|i| part.positions[i as usize]);
                    let n = (b - a).cross(c - a);
                    for i in t {
                        normals[*i as usize] += n;
                    }
                }
                for (i, p) in part.positions.iter().enumerate() {
                    self.push_vertex(*p, normals[i], part.colors[i], skin);
                }
                for t in &part.tris {
                    for i in t {
                        self.mesh.indices.push((base + i) as u16);
                    }
                }
            }
            Shading::Flat => {
                for t in &part.tris {
                    let [a, b, c] = t.map(|i| part.positions[i as usize]);
                    let n = (b - a).cross(c - a);
                    for i in t {
                        let idx = self.mesh.positions.len() as u16;
                        self.push_vertex(
                            part.positions[*i as usize],
                            n,
                            part.colors[*i as usize],
                            skin,
                        );
                        self.mesh.indices.push(idx);
                    }
                }
            }
        }
    }

    fn push_vertex(&mut self, p: Vec3, n: Vec3, color: [f32; 4], skin: &Skin) {
        let (j, w) = skin.weights(p);
        let m = &mut self.mesh;
        m.positions.push(p);
        m.normals.push(n.try_normalize().unwrap_or(Vec3::Y));
        m.colors.push(color);
        m.joints.push(j);
        m.weights.push(w);
    }
}

/// Samples a capsule-like profile: a rounded cap of radius `r0` at `t0`, a
/// straight taper, and a rounded cap of radius `r1` at `t1`.
fn capsule_profile(
    t0: f32,
    r0: f32,
    t1: f32,
    r1: f32,
    color: [f32; 4],
    cap_rings: usize,
) -> Vec<Ring> {
    let mut out = Vec::new();
    for i in 0..=cap_rings {
        let a = std::f32::consts::FRAC_PI_2 * (1.0 - i as f32 / cap_rings as f32);
        out.push(ring(t0 - r0 * a.sin(), r0 * a.cos(), color));
    }
    for i in 0..=cap_rings {
        let a = std::f32::consts::FRAC_PI_2 * (i as f32 / cap_rings as f32);
        out.push(ring(t1 + r1 * a.sin(), r1 * a.cos(), color));
    }
    out
}

/// Builds the whole knight.
pub fn build() -> Mesh {
    let p = palette();
    let bind = bind_positions();
    let mut b = Builder::default();
    let seg = ROUND_SEGMENTS;

    // Torso: fauld, belt, breastplate in one lathe from the hips to the neck,
    // pelvis -> spine -> chest.
    let torso_skin = Skin::Chain {
        origin: Vec3::ZERO,
        dir: Vec3::Y,
        joints: vec![joint::PELVIS, joint::SPINE, joint::CHEST],
        bounds: vec![1.06, 1.22],
    };
    let torso = [
        ring(0.90, 0.0, p.dark),
        ring(0.90, 0.13, p.dark),
        ring(0.96, 0.155, p.dark),
        ring(1.02, 0.16, p.leather),
        ring(1.06, 0.16, p.leather),
        ring(1.07, 0.165, p.steel),
        ring(1.16, 0.175, p.steel),
        ring(1.28, 0.20, p.steel),
        ring(1.38, 0.205, p.steel),
        ring(1.45, 0.18, p.steel),
        ring(1.49, 0.12, p.gold),
        ring(1.52, 0.07, p.dark),
        ring(1.52, 0.0, p.dark),
    ];
    b.add(
        lathe(Vec3::ZERO, Vec3::Y, Vec3::X, &torso, seg * 2, (0.72, 1.0)),
        &torso_skin,
        Shading::Smooth,
    );
    // Breastplate ridge and belt buckle.
    b.add(
        cuboid(
            Vec3::new(0.148, 1.31, 0.0),
            Vec3::new(0.012, 0.11, 0.012),
            [
                Vec3::new(1.0, 0.05, 0.0).normalize(),
                Vec3::new(-0.05, 1.0, 0.0).normalize(),
                Vec3::Z,
            ],
            p.steel,
        ),
        &Skin::Rigid(joint::CHEST),
        Shading::Flat,
    );
    b.add(
        axis_box(
            Vec3::new(0.115, 1.04, 0.0),
            Vec3::new(0.012, 0.028, 0.035),
            p.gold,
        ),
        &Skin::Rigid(joint::PELVIS),
        Shading::Flat,
    );
    // Tabard skirt: crimson, split front and back by the legs' swing.
    let skirt = [
        ring(1.03, 0.168, p.cloth),
        ring(0.93, 0.185, p.cloth),
        ring(0.80, 0.20, p.cloth),
        ring(0.78, 0.20, p.gold),
        ring(0.78, 0.0, p.gold),
    ];
    b.add(
        lathe(Vec3::ZERO, Vec3::Y, Vec3::X, &skirt, seg * 2, (0.78, 1.0)),
        &Skin::Skirt,
        Shading::Smooth,
    );
    // Tabard front panel with a gold cross over the breastplate.
    b.add(
        cuboid(
            Vec3::new(0.137, 1.20, 0.0),
            Vec3::new(0.01, 0.09, 0.09),
            [
                Vec3::new(1.0, 0.12, 0.0).normalize(),
                Vec3::new(-0.12, 1.0, 0.0).normalize(),
                Vec3::Z,
            ],
            p.cloth,
        ),
        &Skin::Rigid(joint::SPINE),
        Shading::Flat,
    );

    // Helmet: a great helm with a domed top, visor slit and crest.
    let head = bind[joint::HEAD];
    let helm = [
        ring(-0.10, 0.0, p.steel),
        ring(-0.10, 0.105, p.steel),
        ring(-0.06, 0.118, p.steel),
        ring(0.06, 0.122, p.steel),
        ring(0.12, 0.112, p.steel),
        ring(0.16, 0.085, p.steel),
        ring(0.185, 0.045, p.steel),
        ring(0.193, 0.0, p.steel),
    ];
    b.add(
        lathe(head, Vec3::Y, Vec3::X, &helm, seg + 4, (1.05, 0.92)),
        &Skin::Rigid(joint::HEAD),
        Shading::Smooth,
    );
    // Visor slit and breathing ridge.
    b.add(
        axis_box(
            head + Vec3::new(0.124, 0.075, 0.0),
            Vec3::new(0.012, 0.011, 0.085),
            p.slit,
        ),
        &Skin::Rigid(joint::HEAD),
        Shading::Flat,
    );
    b.add(
        axis_box(
            head + Vec3::new(0.128, 0.0, 0.0),
            Vec3::new(0.01, 0.055, 0.01),
            p.dark,
        ),
        &Skin::Rigid(joint::HEAD),
        Shading::Flat,
    );
    b.add(
        axis_box(
            head + Vec3::new(0.0, 0.098, 0.0),
            Vec3::new(0.126, 0.012, 0.11),
            p.gold,
        ),
        &Skin::Rigid(joint::HEAD),
        Shading::Flat,
    );
    // Crest: a crimson fin from the brow over the crown.
    let crest: Vec<Vec2> = (0..=8)
        .map(|i| {
            let a = std::f32::consts::PI * (0.1 + 0.8 * i as f32 / 8.0);
            Vec2::new(0.15 * a.cos(), 0.15 * a.sin() + 0.07)
        })
        .collect();
    b.add(
        slab(
            head + Vec3::new(-0.01, 0.0, 0.0),
            Vec3::X,
            Vec3::Y,
            &crest,
            0.03,
            p.cloth,
        ),
        &Skin::Rigid(joint::HEAD),
        Shading::Flat,
    );
    // Gorget between helmet and breastplate.
    b.add(
        lathe(
            bind[joint::NECK] + Vec3::Y * -0.04,
            Vec3::Y,
            Vec3::X,
            &[
                ring(0.0, 0.13, p.dark),
                ring(0.06, 0.09, p.dark),
                ring(0.06, 0.0, p.dark),
            ],
            seg,
            (0.9, 1.0),
        ),
        &Skin::Rigid(joint::NECK),
        Shading::Smooth,
    );

    for side in [-1.0f32, 1.0] {
        let left = side < 0.0;
        let (upper, fore, hand, clav) = if left {
            (
                joint::UPPER_ARM_L,
                joint::FOREARM_L,
                joint::HAND_L,
                joint::CLAVICLE_L,
            )
        } else {
            (
                joint::UPPER_ARM_R,
                joint::FOREARM_R,
                joint::HAND_R,
                joint::CLAVICLE_R,
            )
        };
        let sh = bind[upper];
        let out = Vec3::Z * side;
        // Arm: rerebrace and vambrace in one lathe, upper arm -> forearm.
        let arm = [
            ring(0.0, 0.0, p.steel),
            ring(0.0, 0.058, p.steel),
            ring(0.12, 0.06, p.steel),
            ring(0.30, 0.052, p.steel),
            ring(0.34, 0.055, p.dark),
            ring(0.38, 0.05, p.steel),
            ring(0.52, 0.045, p.steel),
            ring(0.57, 0.06, p.dark),
            ring(0.60, 0.055, p.dark),
            ring(0.60, 0.0, p.dark),
        ];
        b.add(
            lathe(sh, Vec3::NEG_Y, Vec3::X, &arm, seg, (1.0, 1.0)),
            &Skin::Chain {
                origin: sh,
                dir: Vec3::NEG_Y,
                joints: vec![upper, fore],
                bounds: vec![UPPER_ARM],
            },
            Shading::Smooth,
        );
        // Couter (elbow cop), blended like the elbow.
        b.add(
            lathe(
                bind[fore] + Vec3::X * -0.045 + Vec3::Y * 0.04,
                Vec3::NEG_Y,
                Vec3::X,
                &capsule_profile(0.0, 0.045, 0.06, 0.035, p.steel, 3),
                8,
                (1.0, 1.0),
            ),
            &Skin::Chain {
                origin: sh,
                dir: Vec3::NEG_Y,
                joints: vec![upper, fore],
                bounds: vec![UPPER_ARM],
            },
            Shading::Smooth,
        );
        // Pauldron: a domed shell over the shoulder, with a gold rim.
        let pauldron = [
            ring(-0.07, 0.0, p.steel),
            ring(-0.065, 0.05, p.steel),
            ring(-0.04, 0.085, p.steel),
            ring(0.0, 0.105, p.steel),
            ring(0.05, 0.11, p.steel),
            ring(0.07, 0.11, p.gold),
            ring(0.085, 0.1, p.gold),
        ];
        b.add(
            lathe(
                sh + Vec3::Y * 0.03 + out * 0.01,
                (Vec3::NEG_Y * 0.8 + out * 0.6).normalize(),
                Vec3::X,
                &pauldron,
                seg + 2,
                (1.15, 1.0),
            ),
            &Skin::Rigid(upper),
            Shading::Smooth,
        );
        // Shoulder strap piece tying pauldron to the chest.
        b.add(
            axis_box(
                bind[clav] + out * 0.1 + Vec3::Y * 0.05,
                Vec3::new(0.07, 0.02, 0.07),
                p.dark,
            ),
            &Skin::Rigid(clav),
            Shading::Flat,
        );
        // Gauntlet: fist and thumb.
        let wrist = bind[hand];
        b.add(
            axis_box(
                wrist + Vec3::new(0.01, -0.07, 0.0),
                Vec3::new(0.05, 0.055, 0.038),
                p.dark,
            ),
            &Skin::Rigid(hand),
            Shading::Flat,
        );
        b.add(
            axis_box(
                wrist + Vec3::new(0.05, -0.04, -side * 0.02),
                Vec3::new(0.018, 0.03, 0.018),
                p.dark,
            ),
            &Skin::Rigid(hand),
            Shading::Flat,
        );
    }

    for side in [-1.0f32, 1.0] {
        let left = side < 0.0;
        let (thigh, shin, foot, toe) = if left {
            (joint::THIGH_L, joint::SHIN_L, joint::FOOT_L, joint::TOE_L)
        } else {
            (joint::THIGH_R, joint::SHIN_R, joint::FOOT_R, joint::TOE_R)
        };
        let hip = bind[thigh];
        let leg_skin = Skin::Chain {
            origin: hip,
            dir: Vec3::NEG_Y,
            joints: vec![thigh, shin, foot],
            bounds: vec![HIP_HEIGHT - KNEE_HEIGHT, HIP_HEIGHT - ANKLE_HEIGHT - 0.02],
        };
        // Cuisse, knee, greave in one lathe from the hip to the ankle.
        let leg = [
            ring(-0.04, 0.0, p.dark),
            ring(-0.04, 0.085, p.dark),
            ring(0.08, 0.085, p.steel),
            ring(0.34, 0.068, p.steel),
            ring(0.44, 0.062, p.dark),
            ring(0.52, 0.06, p.steel),
            ring(0.62, 0.062, p.steel),
            ring(0.80, 0.048, p.steel),
            ring(0.86, 0.052, p.dark),
            ring(0.86, 0.0, p.dark),
        ];
        b.add(
            lathe(hip, Vec3::NEG_Y, Vec3::X, &leg, seg, (1.0, 0.95)),
            &leg_skin,
            Shading::Smooth,
        );
        // Poleyn (knee cop) with a gold stud.
        let knee = bind[shin];
        b.add(
            lathe(
                knee + Vec3::X * 0.045 + Vec3::Y * 0.05,
                Vec3::NEG_Y,
                Vec3::X,
                &capsule_profile(0.0, 0.05, 0.07, 0.04, p.steel, 3),
                8,
                (0.9, 1.1),
            ),
            &leg_skin,
            Shading::Smooth,
        );
        // Sabaton: the foot box and the toe cap.
        let ankle = bind[foot];
        b.add(
            cuboid(
                Vec3::new(0.03, 0.045, ankle.z),
                Vec3::new(0.095, 0.045, 0.05),
                [Vec3::X, Vec3::Y, Vec3::Z],
                p.dark,
            ),
            &Skin::Rigid(foot),
            Shading::Flat,
        );
        // The cap tips down 8.5° toward its point, raised so that its
        // lowest edge rests on the floor with the sole (tilted about its
        // centre, it reached 7 mm under it: the toes sank into the floor).
        let (cap_x, cap_y) = (
            Vec3::new(1.0, -0.15, 0.0).normalize(),
            Vec3::new(0.15, 1.0, 0.0).normalize(),
        );
        let half = Vec3::new(0.05, 0.028, 0.045);
        let sink = half.x * cap_x.y.abs() + half.y * cap_y.y;
        b.add(
            cuboid(
                Vec3::new(BALL_FORWARD + 0.045, sink, ankle.z),
                half,
                [cap_x, cap_y, Vec3::Z],
                p.steel,
            ),
            &Skin::Rigid(toe),
            Shading::Flat,
        );
    }

    // Sword in the right fist: blade pointing forward, slightly raised.
    let grip = bind[joint::WEAPON_R];
    let dir = Vec3::new(1.0, 0.12, 0.0).normalize();
    let flat = Vec3::Y.cross(dir).cross(dir).normalize() * -1.0;
    let sword = Skin::Rigid(joint::WEAPON_R);
    b.add(
        lathe(
            grip + dir * 0.10,
            dir,
            flat,
            &[
                ring(0.0, 0.025, p.steel),
                ring(0.62, 0.02, p.steel),
                ring(0.72, 0.0, p.steel),
            ],
            4,
            (1.0, 0.25),
        ),
        &sword,
        Shading::Flat,
    );
    b.add(
        cuboid(
            grip + dir * 0.09,
            Vec3::new(0.012, 0.10, 0.018),
            [dir, flat, dir.cross(flat)],
            p.gold,
        ),
        &sword,
        Shading::Flat,
    );
    b.add(
        lathe(
            grip - dir * 0.1,
            dir,
            flat,
            &capsule_profile(0.0, 0.02, 0.18, 0.018, p.leather, 1),
            6,
            (1.0, 1.0),
        ),
        &sword,
        Shading::Smooth,
    );
    b.add(
        lathe(
            grip - dir * 0.125,
            dir,
            flat,
            &capsule_profile(0.0, 0.028, 0.0, 0.028, p.gold, 3),
            8,
            (1.0, 1.0),
        ),
        &sword,
        Shading::Smooth,
    );

    // Heater shield on the left forearm: face outward (−Z), its point
    // toward −X in bind pose so it hangs point-down once the forearm is
    // raised to guard.
    let sc = bind[joint::SHIELD_L];
    let heater: Vec<Vec2> = {
        let mut o = vec![Vec2::new(-0.21, 0.25), Vec2::new(0.21, 0.25)];
        for i in 1..=6 {
            let a = i as f32 / 6.0;
            o.push(Vec2::new(0.21 * (1.0 - a * a), 0.25 - 0.58 * a));
        }
        for i in (1..6).rev() {
            let a = i as f32 / 6.0;
            o.push(Vec2::new(-0.21 * (1.0 - a * a), 0.25 - 0.58 * a));
        }
        o
    };
    // Shield plane: u across the shield, v up the shield (+X in bind pose),
    // normal u × v = −Z.
    let (su, sv) = (Vec3::NEG_Y, Vec3::X);
    let shield = Skin::Rigid(joint::SHIELD_L);
    let face = sc + sv * 0.08;
    b.add(
        slab(face, su, sv, &heater, 0.03, p.cloth),
        &shield,
        Shading::Flat,
    );
    let bar = |c: Vec2, h: Vec2| {
        vec![
            Vec2::new(c.x - h.x, c.y - h.y),
            Vec2::new(c.x + h.x, c.y - h.y),
            Vec2::new(c.x + h.x, c.y + h.y),
            Vec2::new(c.x - h.x, c.y + h.y),
        ]
    };
    let emblem_c = face + su.cross(sv) * 0.02;
    b.add(
        slab(
            emblem_c,
            su,
            sv,
            &bar(Vec2::new(0.0, 0.0), Vec2::new(0.035, 0.22)),
            0.012,
            p.gold,
        ),
        &shield,
        Shading::Flat,
    );
    b.add(
        slab(
            emblem_c,
            su,
            sv,
            &bar(Vec2::new(0.0, 0.08), Vec2::new(0.16, 0.035)),
            0.012,
            p.gold,
        ),
        &shield,
        Shading::Flat,
    );
    b.mesh
}

#[cfg(test)]
mod tests {
    use super::*;
    use animation::MAX_INFLUENCES;

    #[test]
    fn triangle_count_is_between_2k_and_5k() {
        let m = build();
        let t = m.triangle_count();
        assert!((2000..=5000).contains(&t), "{t} triangles");
    }

    #[test]
    fn weights_sum_to_one_with_at_most_four_influences() {
        let m = build();
        for (w, j) in m.weights.iter().zip(&m.joints) {
            let sum: f32 = w.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "{w:?}");
            assert!(w.iter().filter(|x| **x > 0.0).count() <= MAX_INFLUENCES);
            assert!(j.iter().all(|j| (*j as usize) < joint::COUNT));
        }
    }

    #[test]
    fn elbows_and_knees_have_blended_vertices() {
        let m = build();
        for pair in [
            [joint::UPPER_ARM_L, joint::FOREARM_L],
            [joint::THIGH_R, joint::SHIN_R],
        ] {
            let blended = m
                .joints
                .iter()
                .zip(&m.weights)
                .filter(|(j, w)| {
                    j[0] as usize == pair[0] && j[1] as usize == pair[1] && w[1] > 0.2 && w[1] < 0.8
                })
                .count();
            assert!(blended >= 12, "{blended} blended vertices at {pair:?}");
        }
    }

    #[test]
    fn triangles_wind_counter_clockwise_seen_from_outside() {
        // Closed shells wound outward enclose a positive signed volume; a
        // part wound inside out would subtract twice its own volume (the
        // torso alone encloses about 0.07 m³; overlapping parts count twice).
        let m = build();
        let volume: f32 = m
            .indices
            .chunks(3)
            .map(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| m.positions[i as usize]);
                a.dot(b.cross(c)) / 6.0
            })
            .sum();
        assert!((0.08..0.3).contains(&volume), "enclosed volume {volume} m³");
        // Smooth and flat normals agree with the winding triangle by triangle.
        let agree = m
            .indices
            .chunks(3)
            .filter(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
                let n = (m.positions[b] - m.positions[a]).cross(m.positions[c] - m.positions[a]);
                n.dot(m.normals[a] + m.normals[b] + m.normals[c]) > 0.0
            })
            .count();
        assert!(
            agree * 100 >= m.triangle_count() * 99,
            "{agree} of {}",
            m.triangle_count()
        );
    }

    #[test]
    fn mesh_is_finite_and_stands_on_the_ground() {
        let m = build();
        assert!(m.positions.iter().all(|p| p.is_finite()));
        assert!(m.normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-4));
        let min_y = m.positions.iter().map(|p| p.y).fold(f32::MAX, f32::min);
        let max_y = m.positions.iter().map(|p| p.y).fold(f32::MIN, f32::max);
        // The soles rest on the floor: nothing under it, the sole on it.
        assert!((-1e-4..0.01).contains(&min_y), "soles at {min_y}");
        assert!((1.75..1.95).contains(&max_y), "crest at {max_y}");
        assert!(m.positions.len() < u16::MAX as usize);
    }
}
