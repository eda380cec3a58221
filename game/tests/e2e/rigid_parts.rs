//! Models built of rigid parts and models with several skins, end to end
//! through the real `ironstep` binary on lavapipe.
//!
//! Our own test models are written here as GLB bytes: a "robot" whose legs
//! are skinned, whose chest is a mesh on a joint node with no skin, whose
//! shield hangs on a non-joint node under the left arm, whose claw is drawn
//! by a second skin over the same joint nodes, and whose beacon is an
//! animated mesh outside every skin; and a knight variant (our generated
//! knight with a second skin and a rigid hat) played with `--character`.
//! For each of them and every shared third-party model, `inspect --json`
//! lists every mesh and a render's silhouette covers every part: its
//! bounding box matches the CPU-skinned vertices of all meshes projected by
//! the same camera, and every part's own projected box holds drawn pixels.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use animation::gltf_import;
use game::character::CharacterMesh;
use game::tools::render_model::{framing_camera, posed_palettes, skinned_model_bounds};
use glam::{Mat4, Quat, Vec3};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn shared(rel: &str) -> PathBuf {
    repo().join("../shared/assets/third_party/gltf").join(rel)
}

fn ironstep(args: &[&str]) -> Output {
    let runtime = tmp("xdg-runtime-rigid");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_ironstep"))
        .current_dir(repo())
        .env("WGPU_DEBUG", "0")
        .env("XDG_RUNTIME_DIR", &runtime)
        .args(args)
        .output()
        .expect("the ironstep binary runs");
    assert!(
        out.status.success(),
        "ironstep {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

// --- A small GLB writer for test models.

/// The binary chunk and the JSON arrays that point into it.
#[derive(Default)]
struct Glb {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    /// Every material of the document (a writer over an existing document
    /// starts with its materials).
    materials: Vec<Value>,
}

impl Glb {
    /// Appends `bytes` as a buffer view and an accessor over it.
    fn accessor(&mut self, bytes: &[u8], component: u32, count: usize, kind: &str) -> usize {
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
        self.bin.extend_from_slice(bytes);
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.accessors.push(json!({
            "bufferView": self.views.len() - 1,
            "componentType": component,
            "count": count,
            "type": kind,
        }));
        self.accessors.len() - 1
    }

    fn floats(&mut self, v: &[f32], count: usize, kind: &str) -> usize {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.accessor(&bytes, 5126, count, kind)
    }

    fn vec3s(&mut self, v: &[Vec3]) -> usize {
        let flat: Vec<f32> = v.iter().flat_map(|p| p.to_array()).collect();
        let a = self.floats(&flat, v.len(), "VEC3");
        let (lo, hi) = v
            .iter()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(*p), hi.max(*p))
            });
        self.accessors[a]["min"] = json!(lo.to_array());
        self.accessors[a]["max"] = json!(hi.to_array());
        a
    }

    fn mat4s(&mut self, v: &[Mat4]) -> usize {
        let flat: Vec<f32> = v.iter().flat_map(|m| m.to_cols_array()).collect();
        self.floats(&flat, v.len(), "MAT4")
    }

    fn indices(&mut self, v: &[u16]) -> usize {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.accessor(&bytes, 5123, v.len(), "SCALAR")
    }

    /// Packs `doc` (with this writer's views, accessors and buffer) as GLB.
    fn finish(mut self, mut doc: Value) -> Vec<u8> {
        doc["bufferViews"] = Value::Array(self.views);
        doc["accessors"] = Value::Array(self.accessors);
        doc["buffers"] = json!([{"byteLength": self.bin.len()}]);
        doc["asset"] = json!({"version": "2.0"});
        if !self.materials.is_empty() {
            doc["materials"] = Value::Array(self.materials);
        }
        let mut j = serde_json::to_vec(&doc).unwrap();
        while !j.len().is_multiple_of(4) {
            j.push(b' ');
        }
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut out = Vec::new();
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&((28 + j.len() + self.bin.len()) as u32).to_le_bytes());
        out.extend_from_slice(&(j.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&j);
        out.extend_from_slice(&(self.bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&self.bin);
        out
    }
}

/// A box `lo..hi`: 24 vertices with flat normals, 36 indices.
fn cuboid(lo: Vec3, hi: Vec3) -> (Vec<Vec3>, Vec<Vec3>, Vec<u16>) {
    let (mut p, mut n, mut idx) = (Vec::new(), Vec::new(), Vec::new());
    for axis in 0..3 {
        for side in [-1.0f32, 1.0] {
            let mut normal = Vec3::ZERO;
            normal[axis] = side;
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = p.len() as u16;
            for (a, b) in [(0, 0), (1, 0), (1, 1), (0, 1)] {
                let mut q = Vec3::ZERO;
                q[axis] = if side > 0.0 { hi[axis] } else { lo[axis] };
                q[u] = if a == 0 { lo[u] } else { hi[u] };
                q[v] = if b == 0 { lo[v] } else { hi[v] };
                p.push(q);
                n.push(normal);
            }
            let quad = if side > 0.0 {
                [0, 1, 2, 0, 2, 3]
            } else {
                [0, 2, 1, 0, 3, 2]
            };
            idx.extend(quad.iter().map(|&i| base + i));
        }
    }
    (p, n, idx)
}

/// A mesh of one box with a colour; `skin` gives `(JOINTS_0 slot, weight)`
/// per vertex from its position when the mesh is skinned.
fn box_mesh(
    g: &mut Glb,
    name: &str,
    lo: Vec3,
    hi: Vec3,
    color: [f32; 4],
    skin: Option<&dyn Fn(Vec3) -> [(u16, f32); 2]>,
) -> Value {
    let (p, n, idx) = cuboid(lo, hi);
    let mut attributes = json!({"POSITION": g.vec3s(&p), "NORMAL": g.vec3s(&n)});
    if let Some(f) = skin {
        let joints: Vec<u8> = p
            .iter()
            .flat_map(|&q| {
                let [(a, _), (b, _)] = f(q);
                [a, b, 0, 0].into_iter().flat_map(u16::to_le_bytes)
            })
            .collect();
        let weights: Vec<f32> = p
            .iter()
            .flat_map(|&q| {
                let [(_, x), (_, y)] = f(q);
                [x, y, 0.0, 0.0]
            })
            .collect();
        attributes["JOINTS_0"] = json!(g.accessor(&joints, 5123, p.len(), "VEC4"));
        attributes["WEIGHTS_0"] = json!(g.floats(&weights, p.len(), "VEC4"));
    }
    g.materials
        .push(json!({"pbrMetallicRoughness": {"baseColorFactor": color}}));
    let material = g.materials.len() - 1;
    json!({"name": name, "primitives": [{"attributes": attributes, "indices": g.indices(&idx), "material": material}]})
}

/// The robot (metres, +Y up, facing +Z):
///
/// - joints: "hips" (node 0, at y = 1), "spine" (node 1, 0.5 above),
///   "arm_l" (node 2, at the spine's +X side), "arm_r" (node 3, -X side);
/// - skin 0 ("body", joints hips, spine, arm_l, arm_r) draws "Legs", skinned
///   to the hips;
/// - "Chest" is a mesh on the spine joint node itself, with no skin;
/// - "Shield" is a mesh on node 4, a non-joint child of arm_l moved out,
///   turned and scaled, with no skin;
/// - skin 1 ("claw", joints arm_r, spine, hips: the same nodes in another
///   order, with their own inverse binds) draws "Claw" on node 5;
/// - "Beacon" is a mesh on node 6, outside every skin, which the animation
///   lifts;
/// - animation "wave" raises arm_l 60°, lowers arm_r 40° and lifts the beacon
///   by 0.6 m over one second.
fn robot() -> Vec<u8> {
    let mut g = Glb::default();
    let globals = [
        Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0)),
        Mat4::from_translation(Vec3::new(0.0, 1.5, 0.0)),
        Mat4::from_translation(Vec3::new(0.35, 1.9, 0.0)),
        Mat4::from_translation(Vec3::new(-0.35, 1.9, 0.0)),
    ];
    let ibm0 = g.mat4s(&globals.map(|m| m.inverse()));
    let ibm1 = g.mat4s(&[
        globals[3].inverse(),
        globals[1].inverse(),
        globals[0].inverse(),
    ]);
    let legs = box_mesh(
        &mut g,
        "Legs",
        Vec3::new(-0.25, 0.0, -0.12),
        Vec3::new(0.25, 1.0, 0.12),
        [0.2, 0.3, 0.8, 1.0],
        Some(&|_| [(0, 1.0), (1, 0.0)]),
    );
    // The chest in the spine's own space (the joint node's mesh).
    let chest = box_mesh(
        &mut g,
        "Chest",
        Vec3::new(-0.3, -0.5, -0.15),
        Vec3::new(0.3, 0.5, 0.15),
        [0.8, 0.8, 0.8, 1.0],
        None,
    );
    let shield = box_mesh(
        &mut g,
        "Shield",
        Vec3::new(-0.05, -0.3, -0.25),
        Vec3::new(0.05, 0.3, 0.25),
        [0.9, 0.7, 0.1, 1.0],
        None,
    );
    // The claw in bind (scene) space along arm_r, skin 1's slot 0.
    let claw = box_mesh(
        &mut g,
        "Claw",
        Vec3::new(-1.1, 1.8, -0.08),
        Vec3::new(-0.35, 2.0, 0.08),
        [0.8, 0.1, 0.1, 1.0],
        Some(&|p: Vec3| {
            if p.x > -0.4 {
                [(1, 0.5), (0, 0.5)]
            } else {
                [(0, 1.0), (2, 0.0)]
            }
        }),
    );
    let beacon = box_mesh(
        &mut g,
        "Beacon",
        Vec3::splat(-0.1),
        Vec3::splat(0.1),
        [0.1, 0.8, 0.2, 1.0],
        None,
    );
    let times = g.floats(&[0.0, 1.0], 2, "SCALAR");
    g.accessors[times]["min"] = json!([0.0]);
    g.accessors[times]["max"] = json!([1.0]);
    let q = |axis: Vec3, deg: f32| Quat::from_axis_angle(axis, deg.to_radians()).to_array();
    let arm_l_keys: Vec<f32> = [q(Vec3::Z, 0.0), q(Vec3::Z, 60.0)].concat();
    let arm_r_keys: Vec<f32> = [q(Vec3::Z, 0.0), q(Vec3::Z, 40.0)].concat();
    let arm_l = g.floats(&arm_l_keys, 2, "VEC4");
    let arm_r = g.floats(&arm_r_keys, 2, "VEC4");
    let lift = g.floats(&[0.9, 2.3, 0.0, 0.9, 2.9, 0.0], 2, "VEC3");
    let doc = json!({
        "scene": 0,
        "scenes": [{"nodes": [0, 6]}],
        "nodes": [
            {"name": "hips", "translation": [0, 1, 0], "children": [1]},
            {"name": "spine", "translation": [0, 0.5, 0], "children": [2, 3], "mesh": 1},
            {"name": "arm_l", "translation": [0.35, 0.4, 0], "children": [4]},
            {"name": "arm_r", "translation": [-0.35, 0.4, 0], "children": [5]},
            {"name": "shield_mount", "translation": [0.45, 0, 0.1],
             "rotation": Quat::from_rotation_y(0.3).to_array(), "scale": [1.2, 1.2, 1.2], "mesh": 2},
            {"name": "claw_node", "mesh": 3, "skin": 1},
            {"name": "beacon", "translation": [0.9, 2.3, 0], "mesh": 4},
            {"name": "legs_node", "mesh": 0, "skin": 0}
        ],
        "skins": [
            {"name": "body", "joints": [0, 1, 2, 3], "inverseBindMatrices": ibm0},
            {"name": "claw", "joints": [3, 1, 0], "inverseBindMatrices": ibm1}
        ],
        "meshes": [legs, chest, shield, claw, beacon],
        "animations": [{"name": "wave",
            "channels": [
                {"sampler": 0, "target": {"node": 2, "path": "rotation"}},
                {"sampler": 1, "target": {"node": 3, "path": "rotation"}},
                {"sampler": 2, "target": {"node": 6, "path": "translation"}}],
            "samplers": [
                {"input": times, "output": arm_l},
                {"input": times, "output": arm_r},
                {"input": times, "output": lift}]}]
    });
    // The legs' node is not in the scene's node list; add it to the root.
    let mut doc = doc;
    doc["scenes"][0]["nodes"] = json!([0, 6, 7]);
    g.finish(doc)
}

// --- Silhouettes against the CPU.

/// The pixels that differ from the background (the top-left pixel).
struct Picture {
    width: u32,
    height: u32,
    drawn: Vec<bool>,
}

impl Picture {
    fn load(path: &Path) -> Self {
        let (width, height, rgba) = renderer::read_png_rgba(path).expect("a PNG was written");
        let bg = [rgba[0], rgba[1], rgba[2]];
        let drawn = rgba
            .chunks_exact(4)
            .map(|p| p.iter().zip(bg).any(|(a, b)| a.abs_diff(b) > 8))
            .collect();
        Self {
            width,
            height,
            drawn,
        }
    }

    /// Bounding box of the drawn pixels: min x, min y, max x, max y.
    fn bbox(&self) -> [i64; 4] {
        let mut b = [i64::MAX, i64::MAX, i64::MIN, i64::MIN];
        for (i, _) in self.drawn.iter().enumerate().filter(|(_, d)| **d) {
            let (x, y) = (
                (i as u32 % self.width) as i64,
                (i as u32 / self.width) as i64,
            );
            b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
        }
        b
    }

    /// The share of pixels in the box `b` that are drawn.
    fn drawn_share(&self, b: [i64; 4]) -> f64 {
        let (mut drawn, mut all) = (0, 0);
        for y in b[1].max(0)..=b[3].min(self.height as i64 - 1) {
            for x in b[0].max(0)..=b[2].min(self.width as i64 - 1) {
                all += 1;
                drawn += usize::from(self.drawn[(y * self.width as i64 + x) as usize]);
            }
        }
        drawn as f64 / all.max(1) as f64
    }
}

/// Renders `model` at `clip`/`time` (w × h) and checks the silhouette
/// against the CPU: the drawn pixels' box equals the box of every mesh's
/// CPU-skinned vertices projected by the same camera (within 3 pixels), and
/// inside each mesh's own projected box at least `part_share` of the pixels
/// are drawn. Returns the PNG's path.
fn render_and_compare(
    model_path: &Path,
    clip: Option<&str>,
    time: f32,
    part_share: f64,
) -> PathBuf {
    let (w, h) = (480u32, 480u32);
    let stem = model_path
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let png = tmp(&format!("rigid_{stem}.png"));
    let _ = std::fs::remove_file(&png);
    let t = time.to_string();
    let mut args = vec!["render", model_path.to_str().unwrap(), "--time", &t];
    if let Some(c) = clip {
        args.extend(["--clip", c]);
    }
    let size = format!("{w}x{h}");
    args.extend(["--size", &size, "--out", png.to_str().unwrap()]);
    ironstep(&args);

    let model = gltf_import::load(model_path).unwrap();
    let clip_index = match clip {
        Some(c) => model.find_clip(c),
        None => (!model.clips.is_empty()).then_some(0),
    };
    let palettes = posed_palettes(&model, clip_index, time).unwrap();
    let meshes: Vec<CharacterMesh> = model
        .meshes
        .iter()
        .map(CharacterMesh::from_imported)
        .collect();
    let skins: Vec<usize> = model.meshes.iter().map(|m| m.skin).collect();
    let (lo, hi) = skinned_model_bounds(&meshes, &skins, &palettes).unwrap();
    let vp = framing_camera(lo, hi, w as f32 / h as f32).view_proj(w as f32 / h as f32);
    let pic = Picture::load(&png);
    let mut all = [i64::MAX, i64::MAX, i64::MIN, i64::MIN];
    for (m, mesh) in model.meshes.iter().zip(&meshes) {
        let mut out = vec![Vec3::ZERO; mesh.positions.len()];
        animation::skin(
            &palettes[m.skin],
            &mesh.positions,
            &[],
            &mesh.joints,
            &mesh.weights,
            &mut out,
            &mut [],
        )
        .unwrap();
        let mut b = [i64::MAX, i64::MAX, i64::MIN, i64::MIN];
        for p in out {
            let ndc = vp.project_point3(p);
            let x = ((ndc.x + 1.0) * 0.5 * w as f32).floor() as i64;
            let y = ((1.0 - ndc.y) * 0.5 * h as f32).floor() as i64;
            b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
        }
        let share = pic.drawn_share(b);
        eprintln!(
            "{stem}: mesh '{}' (skin {}, rigid {}) projects to {b:?}, {share:.2} drawn",
            m.name, m.skin, m.rigid
        );
        assert!(
            share >= part_share,
            "{stem}: mesh '{}' is not drawn: {share:.2} of {b:?}",
            m.name
        );
        all = [
            all[0].min(b[0]),
            all[1].min(b[1]),
            all[2].max(b[2]),
            all[3].max(b[3]),
        ];
    }
    let got = pic.bbox();
    eprintln!("{stem}: silhouette {got:?}, CPU-skinned meshes project to {all:?}");
    for k in 0..4 {
        assert!(
            (got[k] - all[k]).abs() <= 3,
            "{stem}: silhouette {got:?} vs CPU {all:?}"
        );
    }
    png
}

/// `inspect --json` lists the meshes; returns `(name, skin, rigid)` each.
fn inspected_meshes(model: &Path) -> (Vec<(String, usize, bool)>, Vec<String>) {
    let out = ironstep(&["inspect", model.to_str().unwrap(), "--json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let meshes = doc["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_string(),
                m["skin"].as_u64().unwrap() as usize,
                m["rigid"].as_bool().unwrap(),
            )
        })
        .collect();
    let warnings = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect();
    (meshes, warnings)
}

#[test]
fn the_robot_lists_and_draws_every_part_each_with_its_skin() {
    let path = tmp("robot.glb");
    std::fs::write(&path, robot()).unwrap();
    let (meshes, warnings) = inspected_meshes(&path);
    let m = |name: &str, skin: usize, rigid: bool| (name.to_string(), skin, rigid);
    assert_eq!(
        meshes,
        [
            m("Chest/0", 0, true),
            m("Shield/0", 0, true),
            m("Claw/0", 1, false),
            m("Beacon/0", 2, true),
            m("Legs/0", 0, false),
        ],
        "{warnings:?}"
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    // Raised left arm with its shield, lowered claw, lifted beacon.
    let png = render_and_compare(&path, Some("wave"), 1.0, 0.3);
    eprintln!("look at {}", png.display());
    let png = render_and_compare(&path, None, 0.0, 0.3);
    eprintln!("look at {}", png.display());
}

#[test]
fn every_shared_model_lists_and_draws_every_mesh() {
    for rel in [
        "CesiumMan/CesiumMan.glb",
        "RiggedFigure/RiggedFigure.glb",
        "RiggedSimple/RiggedSimple.glb",
        "SimpleSkin/SimpleSkin.gltf",
    ] {
        let path = shared(rel);
        // Independently: every primitive of every mesh node in the file.
        let (doc, _, _) = gltf::import(&path).unwrap();
        let want: usize = doc
            .nodes()
            .filter_map(|n| n.mesh())
            .map(|m| m.primitives().count())
            .sum();
        let (meshes, _) = inspected_meshes(&path);
        assert_eq!(meshes.len(), want, "{rel}: {meshes:?}");
        render_and_compare(&path, None, 0.5, 0.3);
    }
}

// --- Our knight with a second skin and a rigid hat, played with --character.

/// Splits a GLB into its JSON document and binary chunk.
fn unpack(glb: &[u8]) -> (Value, Vec<u8>) {
    let u32_at = |i: usize| u32::from_le_bytes(glb[i..i + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let doc = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin = glb[bin_at + 8..bin_at + 8 + u32_at(bin_at)].to_vec();
    (doc, bin)
}

/// The little-endian elements of a tightly packed accessor.
fn read_accessor(doc: &Value, bin: &[u8], a: usize, size: usize) -> Vec<[u8; 4]> {
    let acc = &doc["accessors"][a];
    let view = &doc["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    assert!(view.get("byteStride").is_none(), "packed");
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let count = acc["count"].as_u64().unwrap() as usize;
    bin[start..start + count * size * 4]
        .chunks_exact(4)
        .map(|c| c.try_into().unwrap())
        .collect()
}

const KNIGHT_VERTICES: usize = 2576;

/// `assets/knight.glb` plus skin 1 ("copy": the same 24 joint nodes in
/// reverse order, bound `shift` away) drawing a copy of the knight's mesh
/// (its positions moved by `shift⁻¹`, its joints renumbered) on a new node,
/// and "Hat", a box on a non-joint child of the "head" joint with no skin.
fn knight_variant() -> Vec<u8> {
    let (mut doc, bin) = unpack(&std::fs::read(repo().join("assets/knight.glb")).unwrap());
    let attrs = doc["meshes"][0]["primitives"][0]["attributes"].clone();
    let at = |k: &str| attrs[k].as_u64().unwrap() as usize;
    let f = |w: &[u8; 4]| f32::from_le_bytes(*w);
    let positions: Vec<Vec3> = read_accessor(&doc, &bin, at("POSITION"), 3)
        .chunks_exact(3)
        .map(|c| Vec3::new(f(&c[0]), f(&c[1]), f(&c[2])))
        .collect();
    let normals: Vec<Vec3> = read_accessor(&doc, &bin, at("NORMAL"), 3)
        .chunks_exact(3)
        .map(|c| Vec3::new(f(&c[0]), f(&c[1]), f(&c[2])))
        .collect();
    assert_eq!(positions.len(), KNIGHT_VERTICES);
    let joints: Vec<u16> = read_accessor(&doc, &bin, at("JOINTS_0"), 2)
        .iter()
        .flat_map(|w| {
            [
                u16::from_le_bytes([w[0], w[1]]),
                u16::from_le_bytes([w[2], w[3]]),
            ]
        })
        .collect();
    let skin = doc["skins"][0].clone();
    let joint_nodes: Vec<Value> = skin["joints"].as_array().unwrap().clone();
    let n = joint_nodes.len();
    let ibms: Vec<Mat4> = read_accessor(
        &doc,
        &bin,
        skin["inverseBindMatrices"].as_u64().unwrap() as usize,
        16,
    )
    .chunks_exact(16)
    .map(|c| Mat4::from_cols_slice(&c.iter().map(f).collect::<Vec<_>>()))
    .collect();

    let mut g = Glb {
        bin,
        views: doc["bufferViews"].as_array().unwrap().clone(),
        accessors: doc["accessors"].as_array().unwrap().clone(),
        materials: doc["materials"].as_array().cloned().unwrap_or_default(),
    };
    let shift = Mat4::from_translation(Vec3::new(0.0, 0.0, 0.5)) * Mat4::from_rotation_y(0.4);
    let back = shift.inverse();
    let moved: Vec<Vec3> = positions
        .iter()
        .map(|&p| back.transform_point3(p))
        .collect();
    let turned: Vec<Vec3> = normals.iter().map(|&v| back.transform_vector3(v)).collect();
    let renumbered: Vec<u8> = joints
        .iter()
        .flat_map(|&j| (n as u16 - 1 - j).to_le_bytes())
        .collect();
    let mut copy_attrs = attrs.clone();
    copy_attrs["POSITION"] = json!(g.vec3s(&moved));
    copy_attrs["NORMAL"] = json!(g.vec3s(&turned));
    copy_attrs["JOINTS_0"] = json!(g.accessor(&renumbered, 5123, KNIGHT_VERTICES, "VEC4"));
    let reversed_ibms: Vec<Mat4> = (0..n).rev().map(|k| ibms[k] * shift).collect();
    let copy_ibm = g.mat4s(&reversed_ibms);
    let mut copy = doc["meshes"][0].clone();
    copy["name"] = json!("knight_copy");
    copy["primitives"][0]["attributes"] = copy_attrs;
    let hat = box_mesh(
        &mut g,
        "Hat",
        Vec3::new(-0.12, 0.0, -0.12),
        Vec3::new(0.12, 0.3, 0.12),
        [0.1, 0.7, 0.2, 1.0],
        None,
    );
    let meshes = doc["meshes"].as_array_mut().unwrap();
    meshes.push(copy);
    meshes.push(hat);
    let reversed: Vec<Value> = joint_nodes.iter().rev().cloned().collect();
    doc["skins"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "copy", "joints": reversed, "inverseBindMatrices": copy_ibm}));
    let nodes = doc["nodes"].as_array_mut().unwrap();
    let head = nodes.iter().position(|n| n["name"] == "head").unwrap();
    let hat_node = nodes.len() + 1;
    nodes.push(json!({"name": "knight_copy", "mesh": 1, "skin": 1}));
    nodes.push(json!({"name": "hat_mount", "mesh": 2, "translation": [0, 0.2, 0]}));
    let children = nodes[head]
        .as_object_mut()
        .unwrap()
        .entry("children")
        .or_insert(json!([]));
    children.as_array_mut().unwrap().push(json!(hat_node));
    doc["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!(hat_node - 1));
    g.finish(doc)
}

#[test]
fn a_knight_with_two_skins_and_a_rigid_hat_plays_with_one_pose() {
    let path = tmp("knight_variant.glb");
    std::fs::write(&path, knight_variant()).unwrap();
    let rig = repo().join("assets/knight.rig.ron");
    let c = game::character::model::load_character(&path, &rig).unwrap();
    let mesh = c.mesh.as_ref().unwrap();
    assert_eq!(mesh.positions.len(), 2 * KNIGHT_VERTICES + 24);
    // Posed by one pose of the driving skin (walk, 0.3 s), the copy drawn
    // by skin 1 lies on the original, and the hat on the head.
    let skel = &c.skeleton;
    let walk = c.clips.iter().position(|k| k.name == "walk").unwrap();
    let mut locals = skel.rest_locals().to_vec();
    animation::sample_at(&c.clips[walk], 0.3, animation::Wrap::Loop, &mut locals);
    let mut models = vec![Mat4::IDENTITY; skel.len()];
    animation::local_to_model(skel, &locals, &mut models);
    let mut pal = vec![Mat4::IDENTITY; skel.len()];
    animation::palette(&models, skel.inverse_bind(), &mut pal).unwrap();
    let mut out = vec![Vec3::ZERO; mesh.positions.len()];
    animation::skin(
        &pal,
        &mesh.positions,
        &[],
        &mesh.joints,
        &mesh.weights,
        &mut out,
        &mut [],
    )
    .unwrap();
    let (original, rest) = out.split_at(KNIGHT_VERTICES);
    let (copy, hat) = rest.split_at(KNIGHT_VERTICES);
    for (a, b) in original.iter().zip(copy) {
        assert!(a.abs_diff_eq(*b, 1e-4), "{a} vs {b}");
    }
    let head = skel.joint_index("head").unwrap();
    assert!(
        mesh.joints[2 * KNIGHT_VERTICES..]
            .iter()
            .all(|j| j[0] as usize == head)
    );
    let head_at = models[head];
    let (lo, hi) = hat
        .iter()
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(l, h), p| {
            (l.min(*p), h.max(*p))
        });
    let want = head_at.transform_point3(Vec3::new(0.0, 0.35, 0.0));
    assert!(
        (0.5 * (lo + hi)).abs_diff_eq(want, 1e-4),
        "hat at {} not {want}",
        0.5 * (lo + hi)
    );

    // The real binary plays it headless with screenshots, and renders it.
    let dir = tmp("knight_variant_run");
    let _ = std::fs::remove_dir_all(&dir);
    let out = ironstep(&[
        "run",
        "--input",
        "assets/scripts/slopes_walk.txt",
        "--character",
        path.to_str().unwrap(),
        "--rig",
        rig.to_str().unwrap(),
        "--frames",
        "96",
        "--screenshot-every",
        "95",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("left out"), "{err}");
    eprintln!("look at {}", dir.display());
    let png = render_and_compare(&path, Some("walk"), 0.3, 0.3);
    eprintln!("look at {}", png.display());
}
