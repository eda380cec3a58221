//! Offline glTF 2.0 import: skins, skinned meshes, materials and clips, turned
//! into Ironstep's own types.
//!
//! Only this module touches the `gltf` crate (feature `gltf`); nothing of it
//! leaks into the public API. The importer produces, per skin, a [`Skeleton`]
//! whose `local_to_model` output equals the glTF scene-space global transforms
//! of the joints (the scene root is the identity), the clips retargeted to that
//! skeleton's joint order, and the skinned meshes with joint indices already
//! remapped into the same order.
//!
//! Decisions, as the glTF 2.0 specification and the lead's design ask:
//!
//! - Every skin becomes one [`ImportedSkin`]. Joints may have several roots.
//!   A joint's parent is its nearest ancestor node that is also a joint of the
//!   skin; joints are sorted parent-before-child (by node depth).
//! - Non-joint nodes above or between joints are folded into the joint below
//!   them: the joint's rest local becomes `prefix × local`, and its animation
//!   tracks are transformed by the same prefix. Channels that animate non-joint
//!   nodes are therefore *ignored with a warning* (their rest transform is
//!   folded in, their motion is not).
//! - A missing `inverseBindMatrices` accessor means identity matrices.
//! - The skinned mesh node's own transform is ignored, as the specification
//!   says: skinned vertices are placed by the joints alone.
//! - A mesh whose node has no skin is a rigid part, as three.js, Bevy and
//!   Godot draw it. On or under a joint (of the lowest-numbered skin that
//!   has the nearest such joint), every vertex is bound to that joint with
//!   weight one and moved by `inverse_bind⁻¹ × relative` (`relative` being
//!   the node's transform relative to the joint), so that the joint's
//!   palette matrix places it where the node is; a mirroring node reverses
//!   the winding. Non-joint nodes between the part and its joint are folded
//!   in at rest; their animation is ignored with the usual warning (they
//!   are not joints of the file's skin, and adding joints to it would change
//!   its palette). A part whose joint's inverse bind matrix is singular is
//!   ignored with a warning.
//! - Meshes outside every skin's joints (static or animated) hang on their
//!   own node in one synthetic skin appended last, [`SCENE_NODES_SKIN`],
//!   whose joints are those nodes and all their ancestors, with inverse
//!   binds that make the rest palette the identity; clips are retargeted to
//!   it like any skin, so an animated prop moves. An ancestor that is also
//!   folded into a real skin's joint moves this skin but not that one (the
//!   real skin folds only its rest transform).
//! - Skins are independent skeletons; a node that is a joint of several
//!   skins has the same global in each. [`ImportedModel::rebind_mesh`] moves
//!   a mesh onto another skin that has all its joints, so one pose (after
//!   IK, say) drives both.
//! - LINEAR and STEP rotation keys are normalized (exporters round them;
//!   SimpleSkin stores 0.707 for the square root of one half).
//! - Weights are renormalized to sum to one (with a warning when any vertex
//!   needed it); `JOINTS_1`/`WEIGHTS_1` and morph targets are ignored with a
//!   warning.
//! - Malformed input gives an [`ImportError`] naming the file and the reason.
//!   Accessors are checked against their buffers before they are read, and
//!   the whole import runs under `catch_unwind` as a last resort against
//!   panics inside the `gltf` crate; such a caught panic prints nothing (the
//!   panic hook stays quiet on the importing thread) and is reported as
//!   [`ImportErrorReason::Panic`] with where the crate panicked.
//! - A model reads only what belongs to it: buffer and image URIs are
//!   resolved by our own code (never the `gltf` crate's), to base64 `data:`
//!   URIs and regular files inside the model's folder, each buffer read to
//!   its declared `byteLength` and no further (see the `resources`
//!   submodule for the rules, [`MAX_BUFFER_BYTES`] and the other limits).
//! - Every size and count the file declares is checked against a limit
//!   before it is used: the file itself ([`MAX_MODEL_FILE_BYTES`]), nodes
//!   ([`MAX_NODES`]), skins ([`MAX_SKINS`], and [`MAX_JOINTS`] each),
//!   animations ([`MAX_ANIMATIONS`]), accessors ([`MAX_ACCESSOR_ELEMENTS`]),
//!   and the totals of primitives, vertices, indices, animation keys and
//!   texture bytes the import builds ([`MAX_PRIMITIVES`],
//!   [`MAX_TOTAL_VERTICES`], [`MAX_TOTAL_INDICES`], [`MAX_TOTAL_KEYS`],
//!   [`MAX_TEXTURE_BYTES`]), so that a small file cannot make the import
//!   allocate without bound. Arithmetic on declared sizes is checked.

mod resources;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Once;

use glam::{Mat4, Quat, Vec3};
use thiserror::Error;

use crate::clip::{Clip, Interpolation, Track};
use crate::sampling::validate_clip;
use crate::skeleton::{JointDef, MAX_JOINTS, Skeleton, SkeletonError};
use crate::skinning::MAX_INFLUENCES;
use crate::transform::Transform;

/// How far a vertex's weight sum may stray from one before it counts as
/// renormalized in the warnings (exporters quantize weights; sums of
/// 0.999–1.001 are rounding, CesiumMan's 1.07 is not).
pub const WEIGHT_SUM_TOLERANCE: f32 = 1e-3;

/// The largest ratio between the largest and smallest scale of a non-joint
/// prefix transform that still counts as uniform. A non-uniform prefix cannot
/// be folded exactly into translation/rotation/scale tracks, so the importer
/// warns beyond it.
pub const UNIFORM_SCALE_TOLERANCE: f32 = 1e-4;

/// The smallest squared length a LINEAR/STEP rotation key may have before
/// normalization; shorter keys carry no usable direction and are rejected.
pub const MIN_KEY_QUAT_LENGTH_SQ: f32 = 1e-12;

/// The deepest node hierarchy accepted; deeper chains are treated as cycles.
/// Real rigs are a few dozen nodes deep; the limit only bounds the walk over
/// hostile files.
pub const MAX_NODE_DEPTH: usize = 4096;

pub use resources::{
    MAX_BUFFER_BYTES, MAX_IMAGE_FILE_BYTES, MAX_IMAGE_SIDE, MAX_RESOURCE_BYTES, resolve_file_uri,
};

/// The largest model file (`.glb` or `.gltf`) read: 256 MiB. A game
/// character is a few megabytes (CesiumMan 0.5 MB); the limit keeps a wrong
/// path (a disk image, `/dev/zero`) from being read into memory.
pub const MAX_MODEL_FILE_BYTES: u64 = 256 << 20;

/// The most nodes a model may have: 65,536. Rigs have a few dozen, scenes
/// a few thousand; the hierarchy checks walk every node up to
/// [`MAX_NODE_DEPTH`] ancestors, which this keeps bounded.
pub const MAX_NODES: usize = 65_536;

/// The most skins a model may have: 64. Each becomes a skeleton with a copy
/// of every clip; characters have one or two.
pub const MAX_SKINS: usize = 64;

/// The most animations a model may have: 1,024. Each becomes one clip per
/// skin; characters have a dozen or two.
pub const MAX_ANIMATIONS: usize = 1024;

/// The most elements one accessor may declare: 4,194,304 (2²²). A game
/// character has tens of thousands of vertices and keys per channel; an
/// accessor without a buffer view (sparse, or all zeros) could otherwise
/// declare billions of elements that take no room in the file.
pub const MAX_ACCESSOR_ELEMENTS: usize = 1 << 22;

/// The most mesh primitives the import builds (one per primitive and node
/// that draws it): 4,096. Each is drawn (or merged) as a part of the
/// character; characters have a handful.
pub const MAX_PRIMITIVES: usize = 4096;

/// The most vertices the import builds, all primitives together: 4,194,304
/// (2²²), about 300 MiB of imported vertex data, a hundred times a detailed
/// game character. A mesh drawn by several nodes counts once per node.
pub const MAX_TOTAL_VERTICES: usize = 1 << 22;

/// The most triangle-list indices the import builds, all primitives
/// together: 16,777,216 (2²⁴, 64 MiB; over five million triangles).
pub const MAX_TOTAL_INDICES: usize = 1 << 24;

/// The most animation keys the import reads and builds, all channels and
/// their copies for every skin together: 4,194,304 (2²², under 100 MiB).
/// A character's clips have tens of thousands.
pub const MAX_TOTAL_KEYS: usize = 1 << 22;

/// The most texture bytes (8-bit RGBA) the import builds, all primitives'
/// materials together: 512 MiB, two textures of [`MAX_IMAGE_SIDE`] pixels a
/// side. A texture is copied into every primitive that uses it.
pub const MAX_TEXTURE_BYTES: usize = 512 << 20;

/// Why a model could not be imported; always names the file.
#[derive(Debug, Error)]
#[error("{file}: {reason}")]
pub struct ImportError {
    /// The path (or the name given to [`load_from_bytes`]) of the model.
    pub file: String,
    /// What is wrong with it.
    pub reason: ImportErrorReason,
}

/// The reasons an import fails.
#[derive(Debug, Error)]
pub enum ImportErrorReason {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(#[from] std::io::Error),
    /// The bytes are not a valid glTF or GLB document (bad JSON, truncated
    /// GLB, an index that names nothing, ...).
    #[error("not a valid glTF document: {0}")]
    Document(String),
    /// A buffer or image could not be loaded (missing file, short buffer,
    /// undecodable image).
    #[error("cannot load buffers or images: {0}")]
    Resources(String),
    /// An accessor's data does not fit its buffer, or holds too few elements.
    #[error("accessor {accessor} ({what}): {problem}")]
    Accessor {
        /// The accessor's index in the document.
        accessor: usize,
        /// What the accessor was read for.
        what: String,
        /// What is wrong.
        problem: String,
    },
    /// The node hierarchy is not a forest (a node with two parents, or a cycle).
    #[error("node hierarchy: {0}")]
    Hierarchy(String),
    /// A skin cannot become a skeleton.
    #[error("skin {skin} ('{name}'): {problem}")]
    Skin {
        /// The skin's index.
        skin: usize,
        /// The skin's name.
        name: String,
        /// What is wrong.
        problem: String,
    },
    /// The skeleton built from a skin was rejected.
    #[error("skin {skin} ('{name}'): {source}")]
    Skeleton {
        /// The skin's index.
        skin: usize,
        /// The skin's name.
        name: String,
        /// The skeleton's complaint.
        source: SkeletonError,
    },
    /// A mesh primitive is malformed (index or joint out of range, attribute
    /// counts differ).
    #[error("mesh '{mesh}' primitive {primitive}: {problem}")]
    Primitive {
        /// The mesh's name (or index).
        mesh: String,
        /// The primitive's index in the mesh.
        primitive: usize,
        /// What is wrong.
        problem: String,
    },
    /// An animation channel is malformed.
    #[error("animation '{animation}' channel {channel}: {problem}")]
    Channel {
        /// The animation's name (or index).
        animation: String,
        /// The channel's index.
        channel: usize,
        /// What is wrong.
        problem: String,
    },
    /// A buffer or image URI names something the model may not read, or
    /// what it names is unusable (see the `resources` submodule's rules).
    #[error("{resource} uri \"{uri}\" {problem}")]
    Uri {
        /// `buffer N` or `image N`.
        resource: String,
        /// The URI as written (control characters escaped, cut when long).
        uri: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A size or count the file declares is over one of the import's limits.
    #[error("{what}, more than the limit of {limit}")]
    TooLarge {
        /// What is too large, with its value.
        what: String,
        /// The limit.
        limit: usize,
    },
    /// The `gltf` crate panicked on this input (a bug we guard against).
    #[error("the glTF reader failed on malformed data: {0}")]
    Panic(String),
}

/// A decoded texture, always 8-bit RGBA, rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureRgba8 {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub pixels: Vec<u8>,
}

/// The parts of a glTF material the renderer uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// The material's name (empty when unnamed or when the primitive has none).
    pub name: String,
    /// Linear RGBA multiplier of the base color.
    pub base_color_factor: [f32; 4],
    /// The decoded base color texture, if the material has one.
    pub base_color_texture: Option<TextureRgba8>,
}

impl Default for Material {
    /// glTF's default material: opaque white, no texture.
    fn default() -> Self {
        Self {
            name: String::new(),
            base_color_factor: [1.0; 4],
            base_color_texture: None,
        }
    }
}

/// One skinned triangle list (one glTF primitive), ready for upload.
#[derive(Clone, Debug)]
pub struct SkinnedMesh {
    /// `mesh name/primitive index` (mesh index when unnamed).
    pub name: String,
    /// Index into [`ImportedModel::skins`] of the skin that deforms it.
    pub skin: usize,
    /// The glTF node that carries the mesh.
    pub node: usize,
    /// True for a rigid part: a mesh whose node has no skin, bound wholly
    /// (weight one) to the joint it hangs under, or to its own node in the
    /// [`SCENE_NODES_SKIN`] skin when no joint is above it. Its positions and
    /// normals are already in that joint's bind space.
    pub rigid: bool,
    /// Bind-pose positions (glTF scene units, metres).
    pub positions: Vec<Vec3>,
    /// Normals (zero vectors when the file has none).
    pub normals: Vec<Vec3>,
    /// `TEXCOORD_0` (zeros when the file has none).
    pub uvs: Vec<[f32; 2]>,
    /// `COLOR_0` as linear RGBA (empty when the file has none; RGB colours
    /// get alpha 1).
    pub colors: Vec<[f32; 4]>,
    /// Four joint indices per vertex, into the skin's [`Skeleton`] order.
    pub joints: Vec<[u16; MAX_INFLUENCES]>,
    /// Four weights per vertex, summing to one.
    pub weights: Vec<[f32; MAX_INFLUENCES]>,
    /// Triangle list indices into the vertex arrays.
    pub indices: Vec<u32>,
    /// The primitive's material.
    pub material: Material,
    /// How many vertices had weights that did not sum to one.
    pub renormalized_vertices: usize,
    /// Number of morph targets the file gives (ignored by the import).
    pub ignored_morph_targets: usize,
}

impl SkinnedMesh {
    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// The largest number of non-zero weights on any vertex.
    pub fn max_influences(&self) -> usize {
        self.weights
            .iter()
            .map(|w| w.iter().filter(|&&x| x > 0.0).count())
            .max()
            .unwrap_or(0)
    }
}

/// One glTF skin as a skeleton plus its clips.
#[derive(Clone, Debug)]
pub struct ImportedSkin {
    /// The skin's name (its index when unnamed; [`SCENE_NODES_SKIN`] for
    /// the synthetic skin).
    pub name: String,
    /// The glTF skin's index, or `None` for the synthetic skin of scene
    /// nodes that carries meshes outside every skin (always the last).
    pub gltf_skin: Option<usize>,
    /// The joints sorted parent-before-child, with rest pose and inverse bind
    /// matrices. `local_to_model` of its rest pose gives glTF scene-space
    /// global transforms.
    pub skeleton: Skeleton,
    /// For each skeleton joint, the glTF node index it came from.
    pub joint_nodes: Vec<usize>,
    /// Every animation of the file retargeted to this skeleton, in the order
    /// of [`ImportedModel::clips`] (a clip that moves none of this skin's
    /// joints is present and empty).
    pub clips: Vec<Clip>,
}

/// Facts about one glTF animation, shared by all skins.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipInfo {
    /// The animation's name (its index when unnamed).
    pub name: String,
    /// Its length in seconds (the last key time of any channel).
    pub duration: f32,
    /// Number of channels in the file.
    pub channels: usize,
    /// Channels that were ignored (non-joint nodes, morph weights).
    pub ignored_channels: usize,
}

/// Everything the game and the renderer need from one glTF file.
#[derive(Clone, Debug)]
pub struct ImportedModel {
    /// The path (or name) the model was loaded from.
    pub source: String,
    /// Every skin of the file.
    pub skins: Vec<ImportedSkin>,
    /// Every skinned mesh primitive.
    pub meshes: Vec<SkinnedMesh>,
    /// Every animation, by index; the retargeted tracks are in each
    /// [`ImportedSkin::clips`].
    pub clips: Vec<ClipInfo>,
    /// Things the import ignored or changed, one sentence each.
    pub warnings: Vec<String>,
}

impl ImportedModel {
    /// The index of the clip with this name, or with this index written as a
    /// number.
    pub fn find_clip(&self, name_or_index: &str) -> Option<usize> {
        self.clips
            .iter()
            .position(|c| c.name == name_or_index)
            .or_else(|| {
                name_or_index
                    .parse::<usize>()
                    .ok()
                    .filter(|&i| i < self.clips.len())
            })
    }
}

/// A mesh of one skin re-expressed in the joints of another skin that has
/// all the joints it uses (see [`ImportedModel::rebind_mesh`]).
#[derive(Clone, Debug)]
pub struct ReboundMesh {
    /// The mesh, its joints now indices into the other skin's skeleton and
    /// its vertices in that skin's bind space.
    pub mesh: SkinnedMesh,
    /// Vertices whose influences disagree on where the vertex lies in the
    /// new bind space (the two skins were bound in different poses); they
    /// take the weighted mean and follow the pose only approximately.
    pub approximate_vertices: usize,
}

impl ImportedModel {
    /// Re-expresses mesh `mesh` (of its own skin) in the joints of skin
    /// `onto`, so that one pose of `onto` drives it: every joint the mesh
    /// uses must be a joint (the same glTF node) of `onto`. Since every
    /// skin's skeleton gives scene-space globals, a node's global is the same
    /// in both; only the inverse bind matrices differ, so each vertex moves by
    /// `inverse_bind_onto⁻¹ × inverse_bind_own` of its joints (exact when its
    /// joints agree, as they do when both skins were bound in one pose).
    /// Errors say, in a sentence, which joint is missing or why not.
    pub fn rebind_mesh(&self, mesh: usize, onto: usize) -> Result<ReboundMesh, String> {
        let m = self
            .meshes
            .get(mesh)
            .ok_or_else(|| format!("there is no mesh {mesh}"))?;
        let to = self
            .skins
            .get(onto)
            .ok_or_else(|| format!("there is no skin {onto}"))?;
        let from = &self.skins[m.skin];
        let mut rebound = m.clone();
        rebound.skin = onto;
        if m.skin == onto {
            return Ok(ReboundMesh {
                mesh: rebound,
                approximate_vertices: 0,
            });
        }
        let index_in_onto: HashMap<usize, usize> = to
            .joint_nodes
            .iter()
            .enumerate()
            .map(|(i, &n)| (n, i))
            .collect();
        // Per joint of the mesh's skin: its index in `onto` and the matrix
        // from the old bind space to the new one (computed when first used).
        let mut cache: Vec<Option<(u16, Mat4, glam::Mat3)>> = vec![None; from.joint_nodes.len()];
        let mut approximate = 0;
        for v in 0..m.positions.len() {
            let (p, n) = (m.positions[v], m.normals[v]);
            let (mut pos, mut nor) = (Vec3::ZERO, Vec3::ZERO);
            let mut spread = 0.0f32;
            let mut first: Option<Vec3> = None;
            for k in 0..MAX_INFLUENCES {
                let (j, w) = (usize::from(m.joints[v][k]), m.weights[v][k]);
                if w <= 0.0 {
                    rebound.joints[v][k] = 0;
                    continue;
                }
                if cache[j].is_none() {
                    let node = from.joint_nodes[j];
                    let &d = index_in_onto.get(&node).ok_or_else(|| {
                        format!(
                            "its joint '{}' (node {node}) is not a joint of skin '{}'",
                            from.skeleton.name(j),
                            to.name
                        )
                    })?;
                    let bind = rigid_bind(to.skeleton.inverse_bind()[d], from.skeleton.inverse_bind()[j])
                        .ok_or_else(|| {
                            format!(
                                "joint '{}' of skin '{}' has an inverse bind matrix that cannot be inverted",
                                to.skeleton.name(d),
                                to.name
                            )
                        })?;
                    let normal_m = glam::Mat3::from_mat4(bind).inverse().transpose();
                    cache[j] = Some((d as u16, bind, normal_m));
                }
                let (d, bind, normal_m) = cache[j].expect("filled above");
                rebound.joints[v][k] = d;
                let q = bind.transform_point3(p);
                let first = *first.get_or_insert(q);
                spread = spread.max(first.distance(q));
                pos += w * q;
                nor += w * (normal_m * n);
            }
            if spread > 1e-4 * (1.0 + pos.length()) {
                approximate += 1;
            }
            if !pos.is_finite() {
                return Err(format!(
                    "vertex {v} does not lie at a finite place in skin '{}'",
                    to.name
                ));
            }
            rebound.positions[v] = pos;
            rebound.normals[v] = nor.normalize_or_zero();
        }
        Ok(ReboundMesh {
            mesh: rebound,
            approximate_vertices: approximate,
        })
    }
}

/// Loads a `.glb` or `.gltf` file; external buffers and images are resolved
/// next to it. Errors name `path`.
/// The file must be a regular file of at most [`MAX_MODEL_FILE_BYTES`].
pub fn load(path: &Path) -> Result<ImportedModel, ImportError> {
    let file = path.display().to_string();
    let fail = |reason: ImportErrorReason| ImportError {
        file: file.clone(),
        reason,
    };
    let bytes = read_model_file(path).map_err(fail)?;
    load_from_bytes(&bytes, &file, path.parent())
}

/// Reads a model file: a regular file (not a device, FIFO or folder) of at
/// most [`MAX_MODEL_FILE_BYTES`], read no further than that.
fn read_model_file(path: &Path) -> Result<Vec<u8>, ImportErrorReason> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(ImportErrorReason::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        )));
    }
    let too_large = |len: u64| ImportErrorReason::TooLarge {
        what: format!("the file holds {len} bytes"),
        limit: MAX_MODEL_FILE_BYTES as usize,
    };
    if meta.len() > MAX_MODEL_FILE_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)?
        .take(MAX_MODEL_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_MODEL_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Loads a model from bytes (GLB or glTF JSON). `name` labels errors and the
/// result; `base_dir` resolves external buffer and image URIs (with `None`,
/// only embedded and `data:` URIs work). Never panics.
pub fn load_from_bytes(
    bytes: &[u8],
    name: &str,
    base_dir: Option<&Path>,
) -> Result<ImportedModel, ImportError> {
    let reason = match catch_quietly(|| import(bytes, name, base_dir)) {
        Ok(Ok(model)) => return Ok(model),
        Ok(Err(reason)) => reason,
        Err(message) => ImportErrorReason::Panic(message),
    };
    Err(ImportError {
        file: name.to_string(),
        reason,
    })
}

thread_local! {
    /// Whether this thread is inside [`catch_quietly`].
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last quiet panic happened, for its error message.
    static QUIET_PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`, turning a panic into its message (with where it happened)
/// without printing anything: the process's panic hook is wrapped, once, by
/// one that stays silent on a thread inside this function and passes every
/// other panic on to the hook it replaced.
fn catch_quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static WRAP_HOOK: Once = Once::new();
    WRAP_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
                QUIET_PANIC_AT.with(|a| *a.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
    let was_quiet = QUIET.with(|q| q.replace(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was_quiet));
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        match QUIET_PANIC_AT.with(|a| a.borrow_mut().take()) {
            Some(at) => format!("{message} (at {at})"),
            None => message,
        }
    })
}

type Reason = ImportErrorReason;

/// The node forest: each node's parent and local matrix.
struct Nodes {
    parent: Vec<Option<usize>>,
    local: Vec<Mat4>,
}

impl Nodes {
    fn new(doc: &gltf::Document) -> Result<Self, Reason> {
        let count = doc.nodes().count();
        let mut parent = vec![None; count];
        let mut local = vec![Mat4::IDENTITY; count];
        for node in doc.nodes() {
            local[node.index()] = Mat4::from_cols_array_2d(&node.transform().matrix());
            for child in node.children() {
                let c = child.index();
                if c == node.index() {
                    return Err(Reason::Hierarchy(format!("node {c} is its own child")));
                }
                if let Some(p) = parent[c] {
                    return Err(Reason::Hierarchy(format!(
                        "node {c} has two parents ({p} and {})",
                        node.index()
                    )));
                }
                parent[c] = Some(node.index());
            }
        }
        for (i, m) in local.iter().enumerate() {
            if !m.is_finite() {
                return Err(Reason::Hierarchy(format!(
                    "node {i} has a non-finite transform"
                )));
            }
        }
        let nodes = Self { parent, local };
        for i in 0..count {
            nodes.depth(i)?;
        }
        Ok(nodes)
    }

    /// Number of ancestors of `node`; errors on cycles.
    fn depth(&self, node: usize) -> Result<usize, Reason> {
        let mut d = 0;
        let mut n = node;
        while let Some(p) = self.parent[n] {
            d += 1;
            if d > MAX_NODE_DEPTH.min(self.parent.len()) {
                return Err(Reason::Hierarchy(format!(
                    "node {node} is part of a cycle or deeper than {MAX_NODE_DEPTH}"
                )));
            }
            n = p;
        }
        Ok(d)
    }

    /// The product of local matrices from `node` up to, excluding, `stop`
    /// (or to the scene root when `stop` is `None`).
    fn product_up_to(&self, node: usize, stop: Option<usize>) -> Mat4 {
        let mut m = Mat4::IDENTITY;
        let mut n = Some(node);
        while let Some(i) = n {
            if Some(i) == stop {
                break;
            }
            m = self.local[i] * m;
            n = self.parent[i];
        }
        m
    }
}

/// Checks that an accessor's elements lie inside its buffer before the
/// `gltf` crate slices it.
fn check_accessor(
    acc: &gltf::Accessor,
    buffers: &[gltf::buffer::Data],
    what: &str,
) -> Result<(), Reason> {
    let fail = |problem: String| Reason::Accessor {
        accessor: acc.index(),
        what: what.to_string(),
        problem,
    };
    let elem = acc.size();
    for (count, of) in [
        (acc.count(), "elements"),
        (acc.sparse().map_or(0, |s| s.count()), "sparse elements"),
    ] {
        if count > MAX_ACCESSOR_ELEMENTS {
            return Err(Reason::TooLarge {
                what: format!("accessor {} ({what}) declares {count} {of}", acc.index()),
                limit: MAX_ACCESSOR_ELEMENTS,
            });
        }
    }
    let mut views = Vec::new();
    if let Some(view) = acc.view() {
        views.push((view, acc.offset(), acc.count(), elem));
    }
    if let Some(sparse) = acc.sparse() {
        let idx = sparse.indices();
        let idx_size = match idx.index_type() {
            gltf::accessor::sparse::IndexType::U8 => 1,
            gltf::accessor::sparse::IndexType::U16 => 2,
            gltf::accessor::sparse::IndexType::U32 => 4,
        };
        views.push((idx.view(), idx.offset(), sparse.count(), idx_size));
        let vals = sparse.values();
        views.push((vals.view(), vals.offset(), sparse.count(), elem));
    }
    for (view, offset, count, elem) in views {
        let buffer_len = buffers
            .get(view.buffer().index())
            .map(|b| b.len())
            .ok_or_else(|| fail(format!("buffer {} is missing", view.buffer().index())))?;
        let view_end = view.offset().checked_add(view.length());
        if view_end.is_none_or(|end| end > buffer_len) {
            return Err(fail(format!(
                "buffer view {} ends past its buffer ({} bytes)",
                view.index(),
                buffer_len
            )));
        }
        let stride = view.stride().unwrap_or(elem);
        if stride < elem {
            return Err(fail(format!(
                "stride {stride} is smaller than the element size {elem}"
            )));
        }
        if count > 0 {
            let end = (count - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(offset))
                .and_then(|x| x.checked_add(elem));
            if end.is_none_or(|end| end > view.length()) {
                return Err(fail(format!(
                    "{count} elements at offset {offset} overrun buffer view {} ({} bytes)",
                    view.index(),
                    view.length()
                )));
            }
        }
    }
    Ok(())
}

/// Reads an accessor through `read`, checking bounds first and the element
/// count after.
fn read_checked<T, I: Iterator<Item = T>>(
    acc: Option<gltf::Accessor>,
    buffers: &[gltf::buffer::Data],
    what: &str,
    read: impl FnOnce() -> Option<I>,
) -> Result<Option<Vec<T>>, Reason> {
    let Some(acc) = acc else { return Ok(None) };
    check_accessor(&acc, buffers, what)?;
    let values: Vec<T> = read()
        .ok_or_else(|| Reason::Accessor {
            accessor: acc.index(),
            what: what.to_string(),
            problem: "its data cannot be read".to_string(),
        })?
        .collect();
    if values.len() != acc.count() {
        return Err(Reason::Accessor {
            accessor: acc.index(),
            what: what.to_string(),
            problem: format!("holds {} elements, declares {}", values.len(), acc.count()),
        });
    }
    Ok(Some(values))
}

/// A non-joint prefix folded into a joint: `prefix × local`.
#[derive(Clone, Copy)]
struct Prefix {
    translation: Vec3,
    rotation: Quat,
    scale: f32,
    identity: bool,
}

impl Prefix {
    fn new(m: Mat4, joint_name: &str, warnings: &mut Vec<String>) -> Self {
        let (s, r, t) = m.to_scale_rotation_translation();
        let (lo, hi) = (s.min_element().abs(), s.max_element().abs());
        if hi - lo > UNIFORM_SCALE_TOLERANCE * hi.max(1.0) {
            warnings.push(format!(
                "joint '{joint_name}' sits under non-joint nodes with non-uniform scale {s}; its animation is folded with the mean scale"
            ));
        }
        let scale = (s.x + s.y + s.z) / 3.0;
        let identity = m.abs_diff_eq(Mat4::IDENTITY, 1e-7);
        Self {
            translation: t,
            rotation: r.normalize(),
            scale,
            identity,
        }
    }
    fn point(&self, v: Vec3) -> Vec3 {
        self.translation + self.rotation * (self.scale * v)
    }
    fn vector(&self, v: Vec3) -> Vec3 {
        self.rotation * (self.scale * v)
    }
}

/// Checks the counts of nodes, skins and animations against their limits.
fn check_counts(doc: &gltf::Document) -> Result<(), Reason> {
    let json = doc.as_json();
    for (count, what, limit) in [
        (json.nodes.len(), "nodes", MAX_NODES),
        (json.skins.len(), "skins", MAX_SKINS),
        (json.animations.len(), "animations", MAX_ANIMATIONS),
    ] {
        if count > limit {
            return Err(Reason::TooLarge {
                what: format!("the model has {count} {what}"),
                limit,
            });
        }
    }
    Ok(())
}

/// What is left of the limits on the totals the import builds
/// ([`MAX_PRIMITIVES`], [`MAX_TOTAL_VERTICES`], [`MAX_TOTAL_INDICES`],
/// [`MAX_TOTAL_KEYS`], [`MAX_TEXTURE_BYTES`]).
struct Budget {
    primitives: usize,
    vertices: usize,
    indices: usize,
    keys: usize,
    texture_bytes: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            primitives: MAX_PRIMITIVES,
            vertices: MAX_TOTAL_VERTICES,
            indices: MAX_TOTAL_INDICES,
            keys: MAX_TOTAL_KEYS,
            texture_bytes: MAX_TEXTURE_BYTES,
        }
    }
}

/// Which of [`Budget`]'s totals a take draws on.
#[derive(Clone, Copy)]
enum Total {
    Primitives,
    Vertices,
    Indices,
    Keys,
    TextureBytes,
}

impl Budget {
    /// Takes `n` from one total, or an error naming it and its limit.
    fn take(&mut self, total: Total, n: usize) -> Result<(), Reason> {
        let (left, limit, what) = match total {
            Total::Primitives => (&mut self.primitives, MAX_PRIMITIVES, "mesh primitives"),
            Total::Vertices => (&mut self.vertices, MAX_TOTAL_VERTICES, "vertices"),
            Total::Indices => (&mut self.indices, MAX_TOTAL_INDICES, "indices"),
            Total::Keys => (&mut self.keys, MAX_TOTAL_KEYS, "animation keys"),
            Total::TextureBytes => (&mut self.texture_bytes, MAX_TEXTURE_BYTES, "texture bytes"),
        };
        if n > *left {
            return Err(Reason::TooLarge {
                what: format!(
                    "the model needs over {} {what} (all meshes, nodes and skins together)",
                    limit - *left + n.min(usize::MAX - limit)
                ),
                limit,
            });
        }
        *left -= n;
        Ok(())
    }
}

/// Checks what the `gltf` crate's own validation leaves out but its
/// accessors unwrap: animation channel targets (node index and path) and the
/// MIME type of images stored in buffer views.
fn validate_unchecked(doc: &gltf::Document) -> Result<(), Reason> {
    use gltf::json::validation::Checked;
    let json = doc.as_json();
    for (a, anim) in json.animations.iter().enumerate() {
        for (c, channel) in anim.channels.iter().enumerate() {
            if channel.target.node.value() >= json.nodes.len() {
                return Err(Reason::Document(format!(
                    "animation {a} channel {c} targets node {}, but there are {} nodes",
                    channel.target.node.value(),
                    json.nodes.len()
                )));
            }
            if matches!(channel.target.path, Checked::Invalid) {
                return Err(Reason::Document(format!(
                    "animation {a} channel {c} has an unknown target path"
                )));
            }
        }
    }
    for (i, image) in json.images.iter().enumerate() {
        if image.buffer_view.is_some() && image.mime_type.is_none() {
            return Err(Reason::Document(format!(
                "image {i} is stored in a buffer view but has no mimeType"
            )));
        }
        if image.buffer_view.is_none() && image.uri.is_none() {
            return Err(Reason::Document(format!(
                "image {i} has neither a uri nor a bufferView"
            )));
        }
    }
    Ok(())
}

fn import(bytes: &[u8], name: &str, base_dir: Option<&Path>) -> Result<ImportedModel, Reason> {
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| Reason::Document(e.to_string()))?;
    let gltf::Gltf {
        document: doc,
        blob,
    } = gltf;
    validate_unchecked(&doc)?;
    check_counts(&doc)?;
    let mut resolver = resources::Resolver::new(base_dir);
    let buffers = resolver.buffers(&doc, blob)?;
    let images = resolver.images(&doc, &buffers)?;
    let nodes = Nodes::new(&doc)?;
    let mut warnings = Vec::new();
    let mut budget = Budget::default();

    // Skins.
    let mut skins = Vec::new();
    // Per skin: glTF joint slot -> skeleton index.
    let mut slot_maps = Vec::new();
    // Per skin: node -> (skeleton index, prefix).
    let mut node_maps: Vec<NodeMap> = Vec::new();
    for skin in doc.skins() {
        let skin_name = skin
            .name()
            .map_or_else(|| skin.index().to_string(), str::to_string);
        let skin_err = |problem: String| Reason::Skin {
            skin: skin.index(),
            name: skin_name.clone(),
            problem,
        };
        let joint_nodes: Vec<usize> = skin.joints().map(|n| n.index()).collect();
        if joint_nodes.is_empty() {
            return Err(skin_err("has no joints".into()));
        }
        if joint_nodes.len() > MAX_JOINTS {
            return Err(skin_err(format!(
                "has {} joints, more than {MAX_JOINTS}",
                joint_nodes.len()
            )));
        }
        let mut slot_of_node = HashMap::new();
        for (slot, &n) in joint_nodes.iter().enumerate() {
            if slot_of_node.insert(n, slot).is_some() {
                return Err(skin_err(format!("lists node {n} twice")));
            }
        }
        if let Some(count) = skin.inverse_bind_matrices().map(|a| a.count())
            && count > MAX_JOINTS
        {
            return Err(skin_err(format!(
                "has {count} inverse bind matrices, more than the limit of {MAX_JOINTS} joints"
            )));
        }
        let reader = skin.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
        let ibms: Vec<Mat4> = match read_checked(
            skin.inverse_bind_matrices(),
            &buffers,
            "inverse bind matrices",
            || reader.read_inverse_bind_matrices(),
        )? {
            Some(m) => m.iter().map(Mat4::from_cols_array_2d).collect(),
            None => vec![Mat4::IDENTITY; joint_nodes.len()],
        };
        if ibms.len() < joint_nodes.len() {
            return Err(skin_err(format!(
                "has {} joints but {} inverse bind matrices",
                joint_nodes.len(),
                ibms.len()
            )));
        }
        // Nearest joint ancestor per joint slot.
        let mut parent_slot = vec![None; joint_nodes.len()];
        for (slot, &n) in joint_nodes.iter().enumerate() {
            let mut up = nodes.parent[n];
            while let Some(p) = up {
                if let Some(&ps) = slot_of_node.get(&p) {
                    parent_slot[slot] = Some(ps);
                    break;
                }
                up = nodes.parent[p];
            }
        }
        // Sort by node depth: ancestors first; ties keep the skin's order.
        let mut order: Vec<usize> = (0..joint_nodes.len()).collect();
        let depths: Vec<usize> = joint_nodes
            .iter()
            .map(|&n| nodes.depth(n))
            .collect::<Result<_, _>>()?;
        order.sort_by_key(|&s| depths[s]);
        let mut index_of_slot = vec![0usize; joint_nodes.len()];
        for (i, &s) in order.iter().enumerate() {
            index_of_slot[s] = i;
        }
        let mut defs = Vec::with_capacity(order.len());
        let mut node_map = HashMap::new();
        for &slot in &order {
            let n = joint_nodes[slot];
            let node = doc
                .nodes()
                .nth(n)
                .expect("joint node index validated by gltf");
            let joint_name = node
                .name()
                .map_or_else(|| format!("node{n}"), str::to_string);
            let parent = parent_slot[slot].map(|ps| index_of_slot[ps]);
            let prefix_m = match nodes.parent[n] {
                Some(p) => nodes.product_up_to(p, parent_slot[slot].map(|ps| joint_nodes[ps])),
                None => Mat4::IDENTITY,
            };
            let prefix = Prefix::new(prefix_m, &joint_name, &mut warnings);
            let rest = Transform::from_mat4(&(prefix_m * nodes.local[n]));
            node_map.insert(n, (index_of_slot[slot], prefix));
            defs.push(JointDef {
                name: joint_name,
                parent,
                rest,
                inverse_bind: ibms[slot],
            });
        }
        let skeleton = Skeleton::new(defs).map_err(|source| Reason::Skeleton {
            skin: skin.index(),
            name: skin_name.clone(),
            source,
        })?;
        skins.push(ImportedSkin {
            name: skin_name,
            gltf_skin: Some(skin.index()),
            skeleton,
            joint_nodes: order.iter().map(|&s| joint_nodes[s]).collect(),
            clips: Vec::new(),
        });
        slot_maps.push(index_of_slot);
        node_maps.push(node_map);
    }

    // Meshes without a skin: rigid parts. One under a joint (or on one)
    // hangs on the nearest such joint, of the lowest-numbered skin that has
    // it; one outside every skin's joints hangs on its own node in the
    // synthetic skin of scene nodes built here.
    let mut joint_owner: HashMap<usize, (usize, usize)> = HashMap::new();
    for (s, skin) in skins.iter().enumerate() {
        for (j, &n) in skin.joint_nodes.iter().enumerate() {
            joint_owner.entry(n).or_insert((s, j));
        }
    }
    let owner_of = |joint_owner: &HashMap<usize, (usize, usize)>, node: usize| {
        let mut n = Some(node);
        while let Some(i) = n {
            if let Some(&(s, j)) = joint_owner.get(&i) {
                return Some((s, j, i));
            }
            n = nodes.parent[i];
        }
        None
    };
    let skinless: Vec<usize> = doc
        .nodes()
        .filter(|n| n.mesh().is_some() && n.skin().is_none())
        .map(|n| n.index())
        .collect();
    let outside: Vec<usize> = skinless
        .iter()
        .copied()
        .filter(|&n| owner_of(&joint_owner, n).is_none())
        .collect();
    if !outside.is_empty() {
        match scene_nodes_skin(&doc, &nodes, &outside) {
            Ok((skin, node_map)) => {
                for (j, &n) in skin.joint_nodes.iter().enumerate() {
                    joint_owner.entry(n).or_insert((skins.len(), j));
                }
                skins.push(skin);
                node_maps.push(node_map);
            }
            Err(problem) => warnings.push(format!(
                "meshes on nodes {outside:?} lie outside every skin and were ignored: {problem}"
            )),
        }
    }

    let textures: Vec<Option<TextureRgba8>> = images.iter().map(to_rgba8).collect();
    let mut meshes = Vec::new();
    for node in doc.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        let mesh_name = mesh
            .name()
            .map_or_else(|| mesh.index().to_string(), str::to_string);
        let binding = match node.skin() {
            Some(skin) => Binding::Skin {
                skin: skin.index(),
                slot_map: &slot_maps[skin.index()],
            },
            None => {
                let Some((skin, joint, joint_node)) = owner_of(&joint_owner, node.index()) else {
                    // Only when the scene-node skin could not be built (warned above).
                    continue;
                };
                let inverse_bind = skins[skin].skeleton.inverse_bind()[joint];
                let relative = nodes.product_up_to(node.index(), Some(joint_node));
                match rigid_bind(inverse_bind, relative) {
                    Some(bind) => Binding::Rigid {
                        skin,
                        joint: joint as u16,
                        bind,
                    },
                    None => {
                        warnings.push(format!(
                            "mesh '{mesh_name}' on node {} hangs on joint '{}', whose inverse bind matrix cannot be inverted; the mesh was ignored",
                            node.index(),
                            skins[skin].skeleton.name(joint)
                        ));
                        continue;
                    }
                }
            }
        };
        for prim in mesh.primitives() {
            budget.take(Total::Primitives, 1)?;
            let m = read_primitive(
                &prim,
                &mesh_name,
                node.index(),
                &binding,
                &buffers,
                &textures,
                &mut budget,
                &mut warnings,
            )?;
            if let Some(m) = m {
                meshes.push(m);
            }
        }
    }

    // Animations.
    let mut clips = Vec::new();
    for anim in doc.animations() {
        let anim_name = anim
            .name()
            .map_or_else(|| anim.index().to_string(), str::to_string);
        let mut per_skin: Vec<Clip> = skins
            .iter()
            .map(|_| Clip {
                name: anim_name.clone(),
                duration: 0.0,
                translations: Vec::new(),
                rotations: Vec::new(),
                scales: Vec::new(),
            })
            .collect();
        let mut duration = 0.0f32;
        let mut channels = 0;
        let mut ignored = 0;
        let mut non_joint_nodes = Vec::new();
        for (ci, channel) in anim.channels().enumerate() {
            channels += 1;
            let chan_err = |problem: String| Reason::Channel {
                animation: anim_name.clone(),
                channel: ci,
                problem,
            };
            let sampler = channel.sampler();
            let reader = channel.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
            // The keys are read once here and copied into every skin that
            // has the target joint (taken below).
            budget.take(Total::Keys, sampler.input().count())?;
            let times = read_checked(Some(sampler.input()), &buffers, "key times", || {
                reader.read_inputs()
            })?
            .unwrap_or_default();
            if times.is_empty() {
                return Err(chan_err("has no keys".into()));
            }
            if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[1] <= w[0]) {
                return Err(chan_err(
                    "key times are not finite and strictly increasing".into(),
                ));
            }
            duration = duration.max(*times.last().expect("non-empty"));
            let interpolation = match sampler.interpolation() {
                gltf::animation::Interpolation::Step => Interpolation::Step,
                gltf::animation::Interpolation::Linear => Interpolation::Linear,
                gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let target = channel.target().node().index();
            use gltf::animation::util::ReadOutputs;
            let outputs = {
                check_accessor(&sampler.output(), &buffers, "key values")?;
                reader
                    .read_outputs()
                    .ok_or_else(|| chan_err("key values cannot be read".into()))?
            };
            enum Values {
                T(Vec<Vec3>),
                R(Vec<Quat>),
                S(Vec<Vec3>),
            }
            let values = match outputs {
                ReadOutputs::Translations(it) => Values::T(it.map(Vec3::from).collect()),
                ReadOutputs::Rotations(it) => {
                    let mut keys: Vec<Quat> = it.into_f32().map(Quat::from_array).collect();
                    if interpolation != Interpolation::CubicSpline {
                        // glTF requires unit keys, but exporters round them
                        // (SimpleSkin stores 0.707 for sqrt(1/2)); slerp
                        // needs them unit. Cubic tangents are not rotations
                        // and stay as they are.
                        for q in &mut keys {
                            if !q.is_finite() || q.length_squared() < MIN_KEY_QUAT_LENGTH_SQ {
                                return Err(chan_err(
                                    "a rotation key is zero or not finite".into(),
                                ));
                            }
                            *q = q.normalize();
                        }
                    }
                    Values::R(keys)
                }
                ReadOutputs::Scales(it) => Values::S(it.map(Vec3::from).collect()),
                ReadOutputs::MorphTargetWeights(_) => {
                    ignored += 1;
                    continue;
                }
            };
            let len = match &values {
                Values::T(v) | Values::S(v) => v.len(),
                Values::R(v) => v.len(),
            };
            if len != times.len() * per_key {
                return Err(chan_err(format!(
                    "{} keys need {} values, the file gives {len}",
                    times.len(),
                    times.len() * per_key
                )));
            }
            let mut used = false;
            for (s, map) in node_maps.iter().enumerate() {
                let Some(&(joint, prefix)) = map.get(&target) else {
                    continue;
                };
                used = true;
                budget.take(Total::Keys, len)?;
                let joint = joint as u16;
                let is_value = |i: usize| per_key == 1 || i % 3 == 1;
                let clip = &mut per_skin[s];
                match &values {
                    Values::T(v) => clip.translations.push(Track {
                        joint,
                        interpolation,
                        times: times.clone(),
                        values: v
                            .iter()
                            .enumerate()
                            .map(|(i, &x)| {
                                if prefix.identity {
                                    x
                                } else if is_value(i) {
                                    prefix.point(x)
                                } else {
                                    prefix.vector(x)
                                }
                            })
                            .collect(),
                    }),
                    Values::R(v) => clip.rotations.push(Track {
                        joint,
                        interpolation,
                        times: times.clone(),
                        values: v
                            .iter()
                            .map(|&q| {
                                if prefix.identity {
                                    q
                                } else {
                                    prefix.rotation * q
                                }
                            })
                            .collect(),
                    }),
                    Values::S(v) => clip.scales.push(Track {
                        joint,
                        interpolation,
                        times: times.clone(),
                        values: v
                            .iter()
                            .map(|&x| if prefix.identity { x } else { x * prefix.scale })
                            .collect(),
                    }),
                }
            }
            if !used {
                ignored += 1;
                non_joint_nodes.push(target);
            }
        }
        if !non_joint_nodes.is_empty() {
            non_joint_nodes.sort_unstable();
            non_joint_nodes.dedup();
            warnings.push(format!(
                "animation '{anim_name}' animates nodes {non_joint_nodes:?} that are no skin's joints; those channels are ignored"
            ));
        }
        for (s, clip) in per_skin.iter_mut().enumerate() {
            clip.duration = duration;
            validate_clip(clip, skins[s].skeleton.len()).map_err(|e| Reason::Channel {
                animation: anim_name.clone(),
                channel: 0,
                problem: e.to_string(),
            })?;
        }
        for (skin, clip) in skins.iter_mut().zip(per_skin) {
            skin.clips.push(clip);
        }
        clips.push(ClipInfo {
            name: anim_name,
            duration,
            channels,
            ignored_channels: ignored,
        });
    }

    Ok(ImportedModel {
        source: name.to_string(),
        skins,
        meshes,
        clips,
        warnings,
    })
}

/// Per skin: glTF node -> (skeleton index, the non-joint prefix folded into it).
type NodeMap = HashMap<usize, (usize, Prefix)>;

/// The name of the synthetic skin that holds meshes outside every skin.
pub const SCENE_NODES_SKIN: &str = "scene nodes";

/// How a primitive's vertices are bound to a skeleton.
enum Binding<'a> {
    /// A skinned node: `JOINTS_0`/`WEIGHTS_0` through the skin's slot map.
    Skin { skin: usize, slot_map: &'a [usize] },
    /// A rigid part: every vertex on one joint with weight one, moved by
    /// `bind` into the skin's bind space.
    Rigid { skin: usize, joint: u16, bind: Mat4 },
}

/// The matrix that takes a rigid part's vertices from its node's space into
/// the bind space of the joint it hangs on: `inverse_bind⁻¹ × relative`,
/// where `relative` is the node's transform relative to the joint. Skinning
/// with the joint's palette matrix (`global × inverse_bind`) then gives
/// `global × relative × v`, the node's own placement. `None` when the
/// inverse bind matrix is singular or the result is not finite.
fn rigid_bind(inverse_bind: Mat4, relative: Mat4) -> Option<Mat4> {
    let det = inverse_bind.determinant();
    if !det.is_finite() || det.abs() < 1e-12 {
        return None;
    }
    let bind = inverse_bind.inverse() * relative;
    bind.is_finite().then_some(bind)
}

/// The synthetic skin [`SCENE_NODES_SKIN`]: every node in `mesh_nodes` (mesh
/// nodes outside every skin's joints) and all their ancestors become joints,
/// parented as in the file, so that animation of any of them moves the
/// meshes. Each inverse bind matrix is the inverse of the node's rest global
/// (identity when that is singular), so rest-pose palettes are identities.
/// Errors say why the skin cannot be built (too many nodes, a bad transform).
fn scene_nodes_skin(
    doc: &gltf::Document,
    nodes: &Nodes,
    mesh_nodes: &[usize],
) -> Result<(ImportedSkin, NodeMap), String> {
    let mut members = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for &n in mesh_nodes {
        let mut up = Some(n);
        while let Some(i) = up {
            if !seen.insert(i) {
                break;
            }
            members.push(i);
            up = nodes.parent[i];
        }
    }
    if members.len() > MAX_JOINTS {
        return Err(format!(
            "they and their ancestors are {} nodes, more than {MAX_JOINTS} joints",
            members.len()
        ));
    }
    let mut depth = HashMap::new();
    for &n in &members {
        depth.insert(n, nodes.depth(n).map_err(|e| e.to_string())?);
    }
    members.sort_by_key(|&n| (depth[&n], n));
    let index: HashMap<usize, usize> = members.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut defs = Vec::with_capacity(members.len());
    let mut node_map = HashMap::new();
    let no_prefix = Prefix::new(Mat4::IDENTITY, "", &mut Vec::new());
    for (i, &n) in members.iter().enumerate() {
        let name = doc
            .nodes()
            .nth(n)
            .and_then(|node| node.name().map(str::to_string))
            .unwrap_or_else(|| format!("node{n}"));
        let global = nodes.product_up_to(n, None);
        let det = global.determinant();
        let inverse_bind = if det.is_finite() && det.abs() > 1e-12 && global.inverse().is_finite() {
            global.inverse()
        } else {
            Mat4::IDENTITY
        };
        node_map.insert(n, (i, no_prefix));
        defs.push(JointDef {
            name,
            parent: nodes.parent[n].map(|p| index[&p]),
            rest: Transform::from_mat4(&nodes.local[n]),
            inverse_bind,
        });
    }
    let skeleton = Skeleton::new(defs).map_err(|e| e.to_string())?;
    Ok((
        ImportedSkin {
            name: SCENE_NODES_SKIN.to_string(),
            gltf_skin: None,
            skeleton,
            joint_nodes: members,
            clips: Vec::new(),
        },
        node_map,
    ))
}

#[allow(clippy::too_many_arguments)]
fn read_primitive(
    prim: &gltf::Primitive,
    mesh_name: &str,
    node: usize,
    binding: &Binding,
    buffers: &[gltf::buffer::Data],
    textures: &[Option<TextureRgba8>],
    budget: &mut Budget,
    warnings: &mut Vec<String>,
) -> Result<Option<SkinnedMesh>, Reason> {
    let prim_err = |problem: String| Reason::Primitive {
        mesh: mesh_name.to_string(),
        primitive: prim.index(),
        problem,
    };
    let label = format!("{mesh_name}/{}", prim.index());
    if prim.mode() != gltf::mesh::Mode::Triangles {
        warnings.push(format!(
            "primitive '{label}' is not a triangle list ({:?}) and was ignored",
            prim.mode()
        ));
        return Ok(None);
    }
    let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let attr = |s: gltf::Semantic| prim.get(&s);
    // Every attribute must have as many elements as POSITION (checked as
    // each is read), so its count bounds them all.
    if let Some(acc) = attr(gltf::Semantic::Positions) {
        check_accessor(&acc, buffers, "POSITION")?;
        budget.take(Total::Vertices, acc.count())?;
    }
    let positions: Vec<Vec3> =
        read_checked(attr(gltf::Semantic::Positions), buffers, "POSITION", || {
            reader.read_positions()
        })?
        .ok_or_else(|| prim_err("has no POSITION".into()))?
        .into_iter()
        .map(Vec3::from)
        .collect();
    let n = positions.len();
    let same_len = |what: &str, len: usize| {
        if len == n {
            Ok(())
        } else {
            Err(prim_err(format!(
                "{what} has {len} elements, POSITION has {n}"
            )))
        }
    };
    let normals: Vec<Vec3> =
        match read_checked(attr(gltf::Semantic::Normals), buffers, "NORMAL", || {
            reader.read_normals()
        })? {
            Some(v) => v.into_iter().map(Vec3::from).collect(),
            None => vec![Vec3::ZERO; n],
        };
    same_len("NORMAL", normals.len())?;
    let uvs: Vec<[f32; 2]> = match read_checked(
        attr(gltf::Semantic::TexCoords(0)),
        buffers,
        "TEXCOORD_0",
        || reader.read_tex_coords(0).map(|t| t.into_f32()),
    )? {
        Some(v) => v,
        None => vec![[0.0; 2]; n],
    };
    same_len("TEXCOORD_0", uvs.len())?;
    // NaN or infinite vertex data would draw garbage and poison the skinned
    // bounds used to frame the model: refuse it, naming the first bad vertex.
    let non_finite = |what: &str, v: Option<usize>| match v {
        Some(v) => Err(prim_err(format!("{what} of vertex {v} is not finite"))),
        None => Ok(()),
    };
    non_finite("POSITION", positions.iter().position(|p| !p.is_finite()))?;
    non_finite("NORMAL", normals.iter().position(|p| !p.is_finite()))?;
    non_finite(
        "TEXCOORD_0",
        uvs.iter().position(|t| !t.iter().all(|x| x.is_finite())),
    )?;
    let colors: Vec<[f32; 4]> =
        read_checked(attr(gltf::Semantic::Colors(0)), buffers, "COLOR_0", || {
            reader.read_colors(0).map(|c| c.into_rgba_f32())
        })?
        .unwrap_or_default();
    if !colors.is_empty() {
        same_len("COLOR_0", colors.len())?;
    }
    non_finite(
        "COLOR_0",
        colors.iter().position(|c| !c.iter().all(|x| x.is_finite())),
    )?;
    let (skin_index, rigid_bind) = match *binding {
        Binding::Skin { skin, .. } => (skin, None),
        Binding::Rigid { skin, bind, .. } => (skin, Some(bind)),
    };
    let (joints, weights, renormalized) = match *binding {
        Binding::Rigid { joint, .. } => {
            (vec![[joint, 0, 0, 0]; n], vec![[1.0, 0.0, 0.0, 0.0]; n], 0)
        }
        Binding::Skin { slot_map, .. } => read_skin_weights(
            prim, &reader, &label, n, skin_index, slot_map, buffers, warnings,
        )?,
    };
    // A rigid part's vertices move into its joint's bind space; normals by
    // the inverse transpose, and a mirroring transform reverses the winding.
    let (positions, normals, mirrored) = match rigid_bind {
        Some(bind) => {
            let normal_m = glam::Mat3::from_mat4(bind).inverse().transpose();
            let p: Vec<Vec3> = positions
                .iter()
                .map(|&v| bind.transform_point3(v))
                .collect();
            let nn: Vec<Vec3> = normals
                .iter()
                .map(|&v| (normal_m * v).normalize_or_zero())
                .collect();
            non_finite(
                "POSITION (placed on its joint)",
                p.iter().position(|v| !v.is_finite()),
            )?;
            (p, nn, bind.determinant() < 0.0)
        }
        None => (positions, normals, false),
    };
    budget.take(Total::Indices, prim.indices().map_or(n, |a| a.count()))?;
    let indices: Vec<u32> = match read_checked(prim.indices(), buffers, "indices", || {
        reader.read_indices().map(|i| i.into_u32())
    })? {
        Some(i) => i,
        None => (0..n as u32).collect(),
    };
    if !indices.len().is_multiple_of(3) {
        return Err(prim_err(format!(
            "has {} indices, not a multiple of 3",
            indices.len()
        )));
    }
    if let Some((at, &bad)) = indices.iter().enumerate().find(|(_, i)| **i as usize >= n) {
        return Err(prim_err(format!(
            "index {at} is {bad}, but there are only {n} vertices"
        )));
    }
    let mut indices = indices;
    if mirrored {
        for t in indices.chunks_exact_mut(3) {
            t.swap(1, 2);
        }
    }
    let morphs = prim.morph_targets().count();
    if morphs > 0 {
        warnings.push(format!(
            "primitive '{label}' has {morphs} morph targets; morph targets are ignored"
        ));
    }
    let mat = prim.material();
    let pbr = mat.pbr_metallic_roughness();
    let base_color_texture = pbr.base_color_texture().and_then(|info| {
        if info.tex_coord() != 0 {
            warnings.push(format!(
                "primitive '{label}': base color texture uses TEXCOORD_{}; only TEXCOORD_0 is imported",
                info.tex_coord()
            ));
        }
        textures.get(info.texture().source().index())?.as_ref()
    });
    if let Some(t) = base_color_texture {
        budget.take(Total::TextureBytes, t.pixels.len())?;
    }
    let base_color_texture = base_color_texture.cloned();
    Ok(Some(SkinnedMesh {
        name: label,
        skin: skin_index,
        node,
        rigid: rigid_bind.is_some(),
        positions,
        normals,
        uvs,
        colors,
        joints,
        weights,
        indices,
        material: Material {
            name: mat.name().unwrap_or_default().to_string(),
            base_color_factor: pbr.base_color_factor(),
            base_color_texture,
        },
        renormalized_vertices: renormalized,
        ignored_morph_targets: morphs,
    }))
}

/// Reads a skinned primitive's `JOINTS_0`/`WEIGHTS_0`: joints remapped to
/// skeleton order through `slot_map`, weights renormalized (with warnings).
/// Returns the joints, the weights and how many vertices were renormalized.
#[allow(clippy::too_many_arguments)]
fn read_skin_weights<'a, 's, F>(
    prim: &gltf::Primitive,
    reader: &gltf::mesh::Reader<'a, 's, F>,
    label: &str,
    n: usize,
    skin_index: usize,
    slot_map: &[usize],
    buffers: &[gltf::buffer::Data],
    warnings: &mut Vec<String>,
) -> Result<SkinWeights, Reason>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    let prim_err = |problem: String| Reason::Primitive {
        mesh: label.rsplit_once('/').map_or(label, |(m, _)| m).to_string(),
        primitive: prim.index(),
        problem,
    };
    let same_len = |what: &str, len: usize| {
        if len == n {
            Ok(())
        } else {
            Err(prim_err(format!(
                "{what} has {len} elements, POSITION has {n}"
            )))
        }
    };
    let attr = |s: gltf::Semantic| prim.get(&s);
    let joints_raw = read_checked(attr(gltf::Semantic::Joints(0)), buffers, "JOINTS_0", || {
        reader.read_joints(0).map(|j| j.into_u16())
    })?
    .ok_or_else(|| prim_err("has no JOINTS_0 although its node has a skin".into()))?;
    same_len("JOINTS_0", joints_raw.len())?;
    let weights_raw = read_checked(
        attr(gltf::Semantic::Weights(0)),
        buffers,
        "WEIGHTS_0",
        || reader.read_weights(0).map(|w| w.into_f32()),
    )?
    .ok_or_else(|| prim_err("has no WEIGHTS_0 although its node has a skin".into()))?;
    same_len("WEIGHTS_0", weights_raw.len())?;
    if prim.get(&gltf::Semantic::Joints(1)).is_some()
        || prim.get(&gltf::Semantic::Weights(1)).is_some()
    {
        warnings.push(format!(
            "primitive '{label}' has JOINTS_1/WEIGHTS_1; only the first {MAX_INFLUENCES} influences are used"
        ));
    }
    let mut joints = Vec::with_capacity(n);
    let mut weights = Vec::with_capacity(n);
    let mut renormalized = 0;
    let mut zero_weight = 0;
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for (v, (j, w)) in joints_raw.iter().zip(&weights_raw).enumerate() {
        let mut mapped = [0u16; MAX_INFLUENCES];
        for k in 0..MAX_INFLUENCES {
            let slot = j[k] as usize;
            // An out-of-range joint with zero weight is harmless padding only
            // if it is zero; anything else must name a real joint.
            let Some(&idx) = slot_map.get(slot) else {
                return Err(prim_err(format!(
                    "vertex {v} names joint {slot}, but skin {skin_index} has only {} joints",
                    slot_map.len()
                )));
            };
            mapped[k] = idx as u16;
        }
        let mut w = w.map(|x| if x.is_finite() && x > 0.0 { x } else { 0.0 });
        // Summed in f64 so that huge finite weights cannot overflow the sum
        // to infinity (which would turn every weight into zero).
        let sum64: f64 = w.iter().map(|&x| f64::from(x)).sum();
        let sum = sum64 as f32;
        if sum <= 0.0 {
            zero_weight += 1;
            w = [1.0, 0.0, 0.0, 0.0];
        } else {
            if (sum - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
                renormalized += 1;
                lo = lo.min(sum);
                hi = hi.max(sum);
            }
            w = w.map(|x| (f64::from(x) / sum64) as f32);
        }
        joints.push(mapped);
        weights.push(w);
    }
    if renormalized > 0 {
        warnings.push(format!(
            "primitive '{label}': weights of {renormalized} of {n} vertices summed to {lo:.3}..{hi:.3}; renormalized to 1"
        ));
    }
    if zero_weight > 0 {
        warnings.push(format!(
            "primitive '{label}': {zero_weight} vertices have no weight; bound fully to their first joint"
        ));
    }
    Ok((joints, weights, renormalized))
}

/// Per-vertex joints, weights and the count of renormalized vertices.
type SkinWeights = (
    Vec<[u16; MAX_INFLUENCES]>,
    Vec<[f32; MAX_INFLUENCES]>,
    usize,
);

/// Converts a decoded glTF image to 8-bit RGBA (16-bit channels keep their
/// high byte, float channels are clamped to [0, 1]).
fn to_rgba8(image: &gltf::image::Data) -> Option<TextureRgba8> {
    use gltf::image::Format;
    let (channels, bytes_per_channel) = match image.format {
        Format::R8 => (1, 1),
        Format::R8G8 => (2, 1),
        Format::R8G8B8 => (3, 1),
        Format::R8G8B8A8 => (4, 1),
        Format::R16 => (1, 2),
        Format::R16G16 => (2, 2),
        Format::R16G16B16 => (3, 2),
        Format::R16G16B16A16 => (4, 2),
        Format::R32G32B32FLOAT => (3, 4),
        Format::R32G32B32A32FLOAT => (4, 4),
    };
    let texel = channels * bytes_per_channel;
    let count = image.width as usize * image.height as usize;
    if image.pixels.len() < count * texel {
        return None;
    }
    let mut pixels = Vec::with_capacity(count * 4);
    for px in image.pixels.chunks_exact(texel).take(count) {
        let mut rgba = [0u8, 0, 0, 255];
        for c in 0..channels {
            let b = &px[c * bytes_per_channel..(c + 1) * bytes_per_channel];
            rgba[c] = match bytes_per_channel {
                1 => b[0],
                2 => u16::from_le_bytes([b[0], b[1]]).to_be_bytes()[0],
                _ => (f32::from_le_bytes([b[0], b[1], b[2], b[3]]).clamp(0.0, 1.0) * 255.0).round()
                    as u8,
            };
        }
        if channels == 1 {
            rgba[1] = rgba[0];
            rgba[2] = rgba[0];
        }
        pixels.extend_from_slice(&rgba);
    }
    Some(TextureRgba8 {
        width: image.width,
        height: image.height,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::local_to_model;
    use crate::sampling::{Wrap, sample_at};

    /// The shared third-party models every CI checkout has beside the repo.
    const MODELS: [&str; 4] = [
        "CesiumMan/CesiumMan.glb",
        "RiggedFigure/RiggedFigure.glb",
        "RiggedSimple/RiggedSimple.glb",
        "SimpleSkin/SimpleSkin.gltf",
    ];

    /// Largest allowed difference between our globals and the independent
    /// composition, scaled by the matrix magnitude (f32 products of a few
    /// dozen matrices).
    const TOLERANCE: f32 = 1e-5;

    fn model_path(rel: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/assets/third_party/gltf")
            .join(rel)
    }

    #[test]
    fn vertex_colors_are_imported_when_present() {
        // Our knight carries its colours per vertex (COLOR_0, float RGBA).
        let knight =
            load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/knight.glb")).unwrap();
        let mesh = &knight.meshes[0];
        assert_eq!(mesh.colors.len(), mesh.positions.len());
        assert!(mesh.colors.iter().any(|c| c != &mesh.colors[0]));
        assert!(
            mesh.colors
                .iter()
                .flatten()
                .all(|x| (0.0..=1.0).contains(x))
        );
        // CesiumMan has none: the list stays empty.
        let cesium = load(&model_path(MODELS[0])).unwrap();
        assert!(cesium.meshes[0].colors.is_empty());
    }

    /// A straightforward, independent global transform per node: walk up
    /// the parents, multiplying each node's local matrix (taken from
    /// `locals`), with no knowledge of skins.
    fn node_globals(doc: &gltf::Document, locals: &[Mat4]) -> Vec<Mat4> {
        let mut parent = vec![None; locals.len()];
        for n in doc.nodes() {
            for c in n.children() {
                parent[c.index()] = Some(n.index());
            }
        }
        (0..locals.len())
            .map(|i| {
                let mut m = locals[i];
                let mut up = parent[i];
                while let Some(p) = up {
                    m = locals[p] * m;
                    up = parent[p];
                }
                m
            })
            .collect()
    }

    /// Independent glTF sampling of one animation for LINEAR and STEP
    /// samplers (clamped at both ends), giving every node's local matrix.
    fn sampled_node_locals(
        doc: &gltf::Document,
        buffers: &[gltf::buffer::Data],
        anim: usize,
        t: f32,
    ) -> Vec<Mat4> {
        let mut trs: Vec<(Vec3, Quat, Vec3)> = doc
            .nodes()
            .map(|n| {
                let (t, r, s) = n.transform().decomposed();
                (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
            })
            .collect();
        let anim = doc.animations().nth(anim).unwrap();
        for ch in anim.channels() {
            let r = ch.reader(|b| Some(&buffers[b.index()].0[..]));
            let times: Vec<f32> = r.read_inputs().unwrap().collect();
            let step = ch.sampler().interpolation() == gltf::animation::Interpolation::Step;
            let k = times.iter().rposition(|&x| x <= t);
            let (i0, i1, u) = match k {
                None => (0, 0, 0.0),
                Some(k) if k + 1 >= times.len() => (k, k, 0.0),
                Some(k) => (
                    k,
                    k + 1,
                    if step {
                        0.0
                    } else {
                        (t - times[k]) / (times[k + 1] - times[k])
                    },
                ),
            };
            let node = ch.target().node().index();
            use gltf::animation::util::ReadOutputs;
            match r.read_outputs().unwrap() {
                ReadOutputs::Translations(it) => {
                    let v: Vec<Vec3> = it.map(Vec3::from).collect();
                    trs[node].0 = v[i0].lerp(v[i1], u);
                }
                ReadOutputs::Rotations(it) => {
                    // The spec requires unit keys; normalize the rounded ones.
                    let v: Vec<Quat> = it
                        .into_f32()
                        .map(|q| Quat::from_array(q).normalize())
                        .collect();
                    trs[node].1 = v[i0].slerp(v[i1], u);
                }
                ReadOutputs::Scales(it) => {
                    let v: Vec<Vec3> = it.map(Vec3::from).collect();
                    trs[node].2 = v[i0].lerp(v[i1], u);
                }
                ReadOutputs::MorphTargetWeights(_) => {}
            }
        }
        trs.iter()
            .map(|&(t, r, s)| Mat4::from_scale_rotation_translation(s, r, t))
            .collect()
    }

    fn assert_close(a: Mat4, b: Mat4, what: &str) {
        let scale = b.to_cols_array().iter().fold(1.0f32, |m, x| m.max(x.abs()));
        for (x, y) in a.to_cols_array().iter().zip(b.to_cols_array()) {
            assert!((x - y).abs() <= TOLERANCE * scale, "{what}: {a} vs {b}");
        }
    }

    fn ours_at(skin: &ImportedSkin, clip: Option<usize>, t: f32) -> Vec<Mat4> {
        let mut locals = skin.skeleton.rest_locals().to_vec();
        if let Some(c) = clip {
            sample_at(&skin.clips[c], t, Wrap::Clamp, &mut locals);
        }
        let mut models = vec![Mat4::IDENTITY; locals.len()];
        local_to_model(&skin.skeleton, &locals, &mut models);
        models
    }

    #[test]
    fn every_shared_model_rest_pose_equals_independent_node_composition() {
        for rel in MODELS {
            let path = model_path(rel);
            let model = load(&path).unwrap_or_else(|e| panic!("{e}"));
            let (doc, _, _) = gltf::import(&path).unwrap();
            let locals: Vec<Mat4> = doc
                .nodes()
                .map(|n| Mat4::from_cols_array_2d(&n.transform().matrix()))
                .collect();
            let globals = node_globals(&doc, &locals);
            assert_eq!(model.skins.len(), doc.skins().count(), "{rel}");
            for skin in &model.skins {
                let ours = ours_at(skin, None, 0.0);
                for (j, &node) in skin.joint_nodes.iter().enumerate() {
                    assert_close(ours[j], globals[node], &format!("{rel} joint {j}"));
                }
            }
        }
    }

    #[test]
    fn every_shared_clip_matches_independent_sampling_at_keys_between_and_outside() {
        for rel in MODELS {
            let path = model_path(rel);
            let model = load(&path).unwrap();
            let (doc, buffers, _) = gltf::import(&path).unwrap();
            for (c, info) in model.clips.iter().enumerate() {
                let anim = doc.animations().nth(c).unwrap();
                let ch = anim.channels().next().unwrap();
                let keys: Vec<f32> = ch
                    .reader(|b| Some(&buffers[b.index()].0[..]))
                    .read_inputs()
                    .unwrap()
                    .collect();
                let mut times = vec![-0.5, info.duration + 0.5];
                for w in keys.windows(2).step_by(3) {
                    times.push(w[0]);
                    times.push(0.37 * w[0] + 0.63 * w[1]);
                }
                for t in times {
                    let globals = node_globals(&doc, &sampled_node_locals(&doc, &buffers, c, t));
                    for skin in &model.skins {
                        let ours = ours_at(skin, Some(c), t);
                        for (j, &node) in skin.joint_nodes.iter().enumerate() {
                            assert_close(
                                ours[j],
                                globals[node],
                                &format!("{rel} clip {c} t={t} joint {j}"),
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn looping_across_the_end_equals_sampling_from_the_start() {
        let model = load(&model_path(MODELS[0])).unwrap();
        let skin = &model.skins[0];
        let d = model.clips[0].duration;
        for x in [0.01f32, 0.25, 0.6] {
            let mut a = skin.skeleton.rest_locals().to_vec();
            let mut b = a.clone();
            sample_at(&skin.clips[0], d + x, Wrap::Loop, &mut a);
            sample_at(&skin.clips[0], x, Wrap::Loop, &mut b);
            for (p, q) in a.iter().zip(&b) {
                assert!(p.translation.abs_diff_eq(q.translation, 1e-4), "{x}");
                assert!(p.rotation.abs_diff_eq(q.rotation, 1e-4), "{x}");
            }
        }
    }

    #[test]
    fn cesium_man_has_19_joints_one_clip_a_texture_and_unit_weights() {
        let model = load(&model_path(MODELS[0])).unwrap();
        assert_eq!(model.skins.len(), 1);
        assert_eq!(model.skins[0].skeleton.len(), 19);
        assert_eq!(model.clips.len(), 1);
        assert!(model.clips[0].duration > 1.0);
        let mesh = &model.meshes[0];
        let texture = mesh.material.base_color_texture.as_ref().unwrap();
        assert!(texture.width > 0 && texture.height > 0);
        assert_eq!(
            texture.pixels.len(),
            texture.width as usize * texture.height as usize * 4
        );
        // The texture is not a flat colour.
        assert!(texture.pixels.chunks(4).any(|p| p != &texture.pixels[..4]));
        // CesiumMan's float weights already sum to one within rounding, so
        // nothing counts as renormalized (the unorm8 test model does).
        assert_eq!(mesh.renormalized_vertices, 0);
        assert!(!model.warnings.iter().any(|w| w.contains("renormalized")));
        for w in &mesh.weights {
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        for j in mesh.joints.iter().flatten() {
            assert!((*j as usize) < 19);
        }
    }

    // --- A small hand-built GLB exercising the rules the shared models do not.

    /// Packs a JSON document and a binary chunk into a GLB.
    fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
        let mut j = json.as_bytes().to_vec();
        while !j.len().is_multiple_of(4) {
            j.push(b' ');
        }
        let mut b = bin.to_vec();
        while !b.len().is_multiple_of(4) {
            b.push(0);
        }
        let total = 12 + 8 + j.len() + 8 + b.len();
        let mut out = Vec::new();
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(j.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&j);
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&b);
        out
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// Node 0 ("offset", not a joint: translate (0,1,0), turn 90° about Z)
    /// holds joint "upper" (node 1), which holds joint "lower" (node 2,
    /// translate (0,1,0)). The skin lists the joints child first and has no
    /// inverse bind matrices. Node 3 carries the skinned mesh with a
    /// transform that must be ignored. The animation moves "upper" with a
    /// CUBICSPLINE translation, turns "lower" with STEP keys and moves the
    /// non-joint node 0 (ignored). `joint_value` is the JOINTS_0 entry of
    /// the first vertex.
    fn test_model(joint_value: u8) -> Vec<u8> {
        test_model_edited(joint_value, &[])
    }

    /// [`test_model`] with textual `(from, to)` replacements applied to its
    /// JSON (the binary chunk stays the same).
    fn test_model_edited(joint_value: u8, edits: &[(&str, &str)]) -> Vec<u8> {
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let mut bin = Vec::new();
        let mut views = Vec::new();
        let mut push = |bytes: Vec<u8>| {
            views.push(format!(
                r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#,
                bin.len(),
                bytes.len()
            ));
            bin.extend_from_slice(&bytes);
            while bin.len() % 4 != 0 {
                bin.push(0);
            }
        };
        push(f32s(&[0.0, 1.0])); // 0: cubic times
        push(f32s(&[
            9.0, 9.0, 9.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, // key 0: in, value, out
            0.0, 4.0, 0.0, 2.0, 0.0, 0.0, 9.0, 9.0, 9.0, // key 1: in, value, out
        ])); // 1
        push(f32s(&[0.0, 0.5])); // 2: step times
        push(f32s(&[0.0, 0.0, 0.0, 1.0, s, 0.0, 0.0, s])); // 3: identity, 90° about X
        push(f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0])); // 4: positions
        push(vec![joint_value, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]); // 5: joints u8
        push(vec![200, 100, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0]); // 6: weights unorm8
        push([0u16, 1, 2].iter().flat_map(|x| x.to_le_bytes()).collect()); // 7: indices
        push(f32s(&[0.0, 0.0, 0.0, 3.0, 0.0, 0.0])); // 8: node 0 translation
        let u16s = |v: &[u16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        push(u16s(&[30000, 40000, 0, 0, 65535, 0, 0, 0, 65535, 0, 0, 0])); // 9: weights unorm16
        push(u16s(&[1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])); // 10: joints u16
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0,3]}}],
"nodes":[
 {{"name":"offset","translation":[0,1,0],"rotation":[0,0,{s},{s}],"children":[1]}},
 {{"name":"upper","children":[2]}},
 {{"name":"lower","translation":[0,1,0]}},
 {{"name":"body","mesh":0,"skin":0,"translation":[5,5,5]}}],
"skins":[{{"joints":[2,1]}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":4,"JOINTS_0":5,"WEIGHTS_0":6}},"indices":7}}]}}],
"animations":[{{"channels":[
  {{"sampler":0,"target":{{"node":1,"path":"translation"}}}},
  {{"sampler":1,"target":{{"node":2,"path":"rotation"}}}},
  {{"sampler":2,"target":{{"node":0,"path":"translation"}}}}],
 "samplers":[{{"input":0,"output":1,"interpolation":"CUBICSPLINE"}},
  {{"input":2,"output":3,"interpolation":"STEP"}},
  {{"input":0,"output":8,"interpolation":"LINEAR"}}]}}],
"accessors":[
 {{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},
 {{"bufferView":1,"componentType":5126,"count":6,"type":"VEC3"}},
 {{"bufferView":2,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[0.5]}},
 {{"bufferView":3,"componentType":5126,"count":2,"type":"VEC4"}},
 {{"bufferView":4,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
 {{"bufferView":5,"componentType":5121,"count":3,"type":"VEC4"}},
 {{"bufferView":6,"componentType":5121,"normalized":true,"count":3,"type":"VEC4"}},
 {{"bufferView":7,"componentType":5123,"count":3,"type":"SCALAR"}},
 {{"bufferView":8,"componentType":5126,"count":2,"type":"VEC3"}},
 {{"bufferView":9,"componentType":5123,"normalized":true,"count":3,"type":"VEC4"}},
 {{"bufferView":10,"componentType":5123,"count":3,"type":"VEC4"}}],
"bufferViews":[{}],
"buffers":[{{"byteLength":{}}}]}}"#,
            views.join(","),
            bin.len()
        );
        let json = edits.iter().fold(json, |json, (from, to)| {
            assert!(json.contains(from), "the test model contains {from}");
            json.replace(from, to)
        });
        glb(&json, &bin)
    }

    #[test]
    fn joints_are_sorted_parent_first_with_non_joint_ancestors_folded_in() {
        let model = load_from_bytes(&test_model(0), "test.glb", None).unwrap();
        let skin = &model.skins[0];
        assert_eq!(skin.skeleton.names(), ["upper", "lower"]);
        assert_eq!(skin.joint_nodes, [1, 2]);
        assert_eq!(skin.skeleton.parent(1), Some(0));
        assert_eq!(skin.skeleton.inverse_bind(), [Mat4::IDENTITY; 2]);
        let models = ours_at(skin, None, 0.0);
        // "upper" sits at the offset node: (0,1,0); "lower" is one unit
        // along the offset's turned +Y, i.e. along -X.
        assert!(models[0].w_axis.truncate().abs_diff_eq(Vec3::Y, 1e-6));
        assert!(
            models[1]
                .w_axis
                .truncate()
                .abs_diff_eq(Vec3::new(-1.0, 1.0, 0.0), 1e-6)
        );
    }

    #[test]
    fn cubicspline_import_matches_hand_computed_hermite_through_the_folded_parent() {
        let model = load_from_bytes(&test_model(0), "test.glb", None).unwrap();
        let skin = &model.skins[0];
        // Hermite at s = 0.5 over a 1 s interval: h00 = h01 = 0.5,
        // h10 = 0.125, h11 = -0.125, so p = 0.5·(0,0,0) + 0.125·(1,0,0)
        // + 0.5·(2,0,0) - 0.125·(0,4,0) = (1.125, -0.5, 0) in the offset
        // node's space. Turned 90° about Z it is (0.5, 1.125, 0); plus the
        // offset's (0,1,0) it is (0.5, 2.125, 0).
        let models = ours_at(skin, Some(0), 0.5);
        assert!(
            models[0]
                .w_axis
                .truncate()
                .abs_diff_eq(Vec3::new(0.5, 2.125, 0.0), 1e-5),
            "{}",
            models[0].w_axis
        );
        // At the keys the values themselves: (0,0,0) and (2,0,0) -> (0,1,0), (0,3,0).
        let at0 = ours_at(skin, Some(0), 0.0);
        let at1 = ours_at(skin, Some(0), 1.0);
        assert!(at0[0].w_axis.truncate().abs_diff_eq(Vec3::Y, 1e-5));
        assert!(
            at1[0]
                .w_axis
                .truncate()
                .abs_diff_eq(Vec3::new(0.0, 3.0, 0.0), 1e-5)
        );
    }

    #[test]
    fn step_keys_hold_until_the_next_key() {
        let model = load_from_bytes(&test_model(0), "test.glb", None).unwrap();
        let clip = &model.skins[0].clips[0];
        let rot = |t: f32| {
            let mut locals = model.skins[0].skeleton.rest_locals().to_vec();
            sample_at(clip, t, Wrap::Clamp, &mut locals);
            locals[1].rotation
        };
        let turned = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        assert!(rot(0.0).abs_diff_eq(Quat::IDENTITY, 1e-6));
        assert!(rot(0.49).abs_diff_eq(Quat::IDENTITY, 1e-6));
        assert!(rot(0.5).abs_diff_eq(turned, 1e-6));
        assert!(rot(0.9).abs_diff_eq(turned, 1e-6));
    }

    #[test]
    fn non_joint_channels_are_ignored_with_a_warning() {
        let model = load_from_bytes(&test_model(0), "test.glb", None).unwrap();
        assert_eq!(model.clips[0].channels, 3);
        assert_eq!(model.clips[0].ignored_channels, 1);
        assert!(
            model
                .warnings
                .iter()
                .any(|w| w.contains("no skin's joints"))
        );
        assert_eq!(model.clips[0].duration, 1.0);
    }

    #[test]
    fn unorm8_weights_are_renormalized_and_joints_remapped() {
        let model = load_from_bytes(&test_model(0), "test.glb", None).unwrap();
        let mesh = &model.meshes[0];
        // 200/255 + 100/255 = 1.18: renormalized to 2/3, 1/3.
        assert!((mesh.weights[0][0] - 2.0 / 3.0).abs() < 1e-5);
        assert!((mesh.weights[0][1] - 1.0 / 3.0).abs() < 1e-5);
        assert_eq!(mesh.renormalized_vertices, 1);
        // Skin slot 0 is "lower" (skeleton joint 1), slot 1 is "upper" (0).
        assert_eq!(mesh.joints[0][..2], [1, 0]);
        assert_eq!(mesh.indices, [0, 1, 2]);
        assert_eq!(mesh.material, Material::default());
    }

    #[test]
    fn joints_without_a_common_root_become_several_skeleton_roots() {
        let bytes = test_model_edited(
            0,
            &[
                (r#""joints":[2,1]"#, r#""joints":[2,1,4]"#),
                (r#""nodes":[0,3]"#, r#""nodes":[0,3,4]"#),
                (
                    r#""translation":[5,5,5]}"#,
                    r#""translation":[5,5,5]},{"name":"hand","translation":[2,0,0]}"#,
                ),
            ],
        );
        let model = load_from_bytes(&bytes, "roots.glb", None).unwrap();
        let skel = &model.skins[0].skeleton;
        // "hand" is at the scene root, shallower than "upper": it sorts first.
        assert_eq!(skel.names(), ["hand", "upper", "lower"]);
        assert_eq!(skel.parent(0), None);
        assert_eq!(skel.parent(1), None);
        assert_eq!(skel.parent(2), Some(1));
        let models = ours_at(&model.skins[0], None, 0.0);
        assert!(models[0].w_axis.truncate().abs_diff_eq(Vec3::X * 2.0, 1e-6));
        assert!(
            models[2]
                .w_axis
                .truncate()
                .abs_diff_eq(Vec3::new(-1.0, 1.0, 0.0), 1e-6)
        );
        // JOINTS_0 slot 1 is still "upper", now skeleton joint 1.
        assert_eq!(model.meshes[0].joints[0][..2], [2, 1]);
    }

    #[test]
    fn u16_joints_and_unorm16_weights_are_read_and_renormalized() {
        let bytes = test_model_edited(
            0,
            &[(
                r#""JOINTS_0":5,"WEIGHTS_0":6"#,
                r#""JOINTS_0":10,"WEIGHTS_0":9"#,
            )],
        );
        let model = load_from_bytes(&bytes, "u16.glb", None).unwrap();
        let mesh = &model.meshes[0];
        // 30000/65535 + 40000/65535 = 1.07: renormalized to 3/7, 4/7.
        assert!((mesh.weights[0][0] - 3.0 / 7.0).abs() < 1e-5);
        assert!((mesh.weights[0][1] - 4.0 / 7.0).abs() < 1e-5);
        assert_eq!(mesh.weights[1], [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(mesh.renormalized_vertices, 1);
        // Skin slot 1 is "upper" (joint 0), slot 0 is "lower" (joint 1).
        assert_eq!(mesh.joints[0][..2], [0, 1]);
        assert_eq!(mesh.joints[2][0], 1);
    }

    #[test]
    fn morph_targets_are_ignored_with_a_warning() {
        let bytes = test_model_edited(
            0,
            &[(
                r#""indices":7}"#,
                r#""indices":7,"targets":[{"POSITION":4}]}"#,
            )],
        );
        let model = load_from_bytes(&bytes, "morph.glb", None).unwrap();
        assert_eq!(model.meshes[0].ignored_morph_targets, 1);
        assert!(
            model
                .warnings
                .iter()
                .any(|w| w.contains("morph targets are ignored")),
            "{:?}",
            model.warnings
        );
    }

    #[test]
    fn skins_without_joints_and_accessors_past_their_buffer_are_errors() {
        let err = reason(&test_model_edited(
            0,
            &[(r#""joints":[2,1]"#, r#""joints":[]"#)],
        ));
        assert!(err.to_string().contains("has no joints"), "{err}");
        // Accessor 4 (POSITION) claims 300 vertices in a 36-byte view.
        let err = reason(&test_model_edited(
            0,
            &[(r#""count":3,"type":"VEC3""#, r#""count":300,"type":"VEC3""#)],
        ));
        assert!(err.to_string().starts_with("broken.glb: "), "{err}");
        assert!(!matches!(err.reason, ImportErrorReason::Panic(_)), "{err}");
    }

    // --- Rigid parts: meshes whose nodes have no skin.

    /// [`test_model`] plus mesh 1, "Part": the same triangle with no
    /// `JOINTS_0`/`WEIGHTS_0`, on the nodes the `extra` edits place it.
    fn with_part(extra: &[(&str, &str)]) -> ImportedModel {
        let mut edits = vec![(
            r#""indices":7}]}],"#,
            r#""indices":7}]},{"name":"Part","primitives":[{"attributes":{"POSITION":4},"indices":7}]}],"#,
        )];
        edits.extend_from_slice(extra);
        load_from_bytes(&test_model_edited(0, &edits), "parts.glb", None)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Where a mesh's vertices are when skinned with `skin`'s pose.
    fn skinned(
        model: &ImportedModel,
        mesh: &SkinnedMesh,
        clip: Option<usize>,
        t: f32,
    ) -> Vec<Vec3> {
        let skin = &model.skins[mesh.skin];
        let models = ours_at(skin, clip, t);
        let mut pal = vec![Mat4::IDENTITY; models.len()];
        crate::palette(&models, skin.skeleton.inverse_bind(), &mut pal).unwrap();
        let mut out = vec![Vec3::ZERO; mesh.positions.len()];
        crate::skinning::skin(
            &pal,
            &mesh.positions,
            &[],
            &mesh.joints,
            &mesh.weights,
            &mut out,
            &mut [],
        )
        .unwrap();
        out
    }

    /// The triangle of accessor 4.
    const TRIANGLE: [Vec3; 3] = [Vec3::ZERO, Vec3::X, Vec3::Y];

    #[test]
    fn a_mesh_on_a_joint_without_a_skin_follows_that_joint_rigidly() {
        // "lower" (node 2) carries the part itself.
        let model = with_part(&[(
            r#"{"name":"lower","translation":[0,1,0]}"#,
            r#"{"name":"lower","translation":[0,1,0],"mesh":1}"#,
        )]);
        assert!(
            !model.warnings.iter().any(|w| w.contains("was ignored")),
            "{:?}",
            model.warnings
        );
        let part = model.meshes.iter().find(|m| m.name == "Part/0").unwrap();
        assert!(part.rigid && part.skin == 0 && part.node == 2);
        assert!(part.joints.iter().all(|j| j[0] == 1), "bound to 'lower'");
        assert!(part.weights.iter().all(|w| *w == [1.0, 0.0, 0.0, 0.0]));
        // Rest and two times of the clip (before and after the STEP key
        // turns "lower"): the part is where the joint's global puts it.
        for (clip, t) in [(None, 0.0), (Some(0), 0.25), (Some(0), 0.75)] {
            let joint = ours_at(&model.skins[0], clip, t)[1];
            let want = TRIANGLE.map(|p| joint.transform_point3(p));
            for (got, want) in skinned(&model, part, clip, t).iter().zip(want) {
                assert!(got.abs_diff_eq(want, 1e-5), "t={t}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn a_part_on_a_non_joint_node_under_a_joint_keeps_its_offset_and_mirroring() {
        // Node 4 "shield" under "lower": moved, turned, mirrored in X.
        let model = with_part(&[
            (
                r#"{"name":"lower","translation":[0,1,0]}"#,
                r#"{"name":"lower","translation":[0,1,0],"children":[4]}"#,
            ),
            (
                r#""translation":[5,5,5]}"#,
                r#""translation":[5,5,5]},{"name":"shield","mesh":1,"translation":[0,0,2],"rotation":[0,0.6,0,0.8],"scale":[-2,2,2]}"#,
            ),
        ]);
        let part = model.meshes.iter().find(|m| m.name == "Part/0").unwrap();
        assert!(part.rigid && part.skin == 0 && part.node == 4);
        assert!(part.joints.iter().all(|j| j[0] == 1));
        let local = Mat4::from_scale_rotation_translation(
            Vec3::new(-2.0, 2.0, 2.0),
            Quat::from_xyzw(0.0, 0.6, 0.0, 0.8),
            Vec3::new(0.0, 0.0, 2.0),
        );
        for (clip, t) in [(None, 0.0), (Some(0), 0.75)] {
            let joint = ours_at(&model.skins[0], clip, t)[1];
            let want = TRIANGLE.map(|p| (joint * local).transform_point3(p));
            for (got, want) in skinned(&model, part, clip, t).iter().zip(want) {
                assert!(got.abs_diff_eq(want, 1e-5), "t={t}: {got} vs {want}");
            }
        }
        // A mirroring node reverses the triangle's winding, as glTF asks.
        assert_eq!(part.indices, [0, 2, 1]);
    }

    #[test]
    fn an_animated_mesh_outside_every_skin_gets_a_skin_of_scene_nodes() {
        // Node 4 "flag" at the scene root, moved by a LINEAR channel from
        // (0,0,0) to (3,0,0) over one second.
        let model = with_part(&[
            (r#""nodes":[0,3]"#, r#""nodes":[0,3,4]"#),
            (
                r#""translation":[5,5,5]}"#,
                r#""translation":[5,5,5]},{"name":"flag","mesh":1}"#,
            ),
            (
                r#"{"sampler":2,"target":{"node":0,"path":"translation"}}"#,
                r#"{"sampler":2,"target":{"node":4,"path":"translation"}}"#,
            ),
        ]);
        assert_eq!(model.skins.len(), 2);
        let scene = &model.skins[1];
        assert_eq!(
            (scene.name.as_str(), scene.gltf_skin),
            (SCENE_NODES_SKIN, None)
        );
        assert_eq!(scene.joint_nodes, [4]);
        assert_eq!(model.skins[0].gltf_skin, Some(0));
        // The channel now moves a joint: nothing is ignored.
        assert_eq!(model.clips[0].ignored_channels, 0, "{:?}", model.warnings);
        let part = model.meshes.iter().find(|m| m.name == "Part/0").unwrap();
        assert!(part.rigid && part.skin == 1);
        for t in [0.0, 0.5, 1.0] {
            let offset = Vec3::new(3.0 * t, 0.0, 0.0);
            for (got, p) in skinned(&model, part, Some(0), t).iter().zip(TRIANGLE) {
                assert!(got.abs_diff_eq(p + offset, 1e-5), "t={t}: {got}");
            }
        }
    }

    #[test]
    fn rigid_bind_refuses_an_inverse_bind_that_cannot_be_undone() {
        // A zero scale cannot be inverted (the import then skips the part
        // with a warning naming it); a regular one gives `ibm⁻¹ × relative`.
        let flat = Mat4::from_scale(Vec3::new(0.0, 1.0, 1.0));
        assert!(rigid_bind(flat, Mat4::IDENTITY).is_none());
        let ibm = Mat4::from_translation(Vec3::new(0.0, -2.0, 0.0));
        let bind = rigid_bind(ibm, Mat4::from_translation(Vec3::X)).unwrap();
        assert!(
            bind.transform_point3(Vec3::ZERO)
                .abs_diff_eq(Vec3::new(1.0, 2.0, 0.0), 1e-6)
        );
    }

    // --- Re-expressing one skin's mesh in another skin's joints.

    /// Skin "A" has nodes [10, 11]; skin "B" has nodes [12, 11, 10] with
    /// inverse binds `A's × shift` (the same bind pose, its mesh authored
    /// `shift⁻¹` away) except where `odd` gives another for node 11.
    fn two_skins(odd: Option<Mat4>) -> ImportedModel {
        let ibm_a = [
            Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)),
            Mat4::from_rotation_z(0.7) * Mat4::from_translation(Vec3::new(-1.0, -2.0, 0.0)),
        ];
        let shift = Mat4::from_translation(Vec3::new(0.5, 0.0, -2.0)) * Mat4::from_rotation_y(0.3);
        let skin = |name: &str, nodes: Vec<usize>, ibms: Vec<Mat4>| ImportedSkin {
            name: name.into(),
            gltf_skin: Some(0),
            skeleton: Skeleton::new(
                nodes
                    .iter()
                    .zip(&ibms)
                    .map(|(n, &inverse_bind)| JointDef {
                        name: format!("n{n}"),
                        parent: None,
                        rest: Transform::IDENTITY,
                        inverse_bind,
                    })
                    .collect(),
            )
            .unwrap(),
            joint_nodes: nodes,
            clips: Vec::new(),
        };
        let a = skin("A", vec![10, 11], ibm_a.to_vec());
        let b = skin(
            "B",
            vec![12, 11, 10],
            vec![
                Mat4::IDENTITY,
                odd.unwrap_or(ibm_a[1] * shift),
                ibm_a[0] * shift,
            ],
        );
        let mesh = SkinnedMesh {
            name: "m/0".into(),
            skin: 0,
            node: 3,
            rigid: false,
            positions: vec![Vec3::new(0.1, 1.0, 0.0), Vec3::new(0.0, 2.5, 0.3)],
            normals: vec![Vec3::X, Vec3::Y],
            uvs: vec![[0.0; 2]; 2],
            colors: Vec::new(),
            joints: vec![[0, 1, 0, 0], [1, 0, 0, 0]],
            weights: vec![[0.4, 0.6, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
            indices: Vec::new(),
            material: Material::default(),
            renormalized_vertices: 0,
            ignored_morph_targets: 0,
        };
        ImportedModel {
            source: "two.glb".into(),
            skins: vec![a, b],
            meshes: vec![mesh],
            clips: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The mesh skinned by a palette built from per-node globals.
    fn skinned_by_nodes(
        model: &ImportedModel,
        mesh: &SkinnedMesh,
        globals: &HashMap<usize, Mat4>,
    ) -> Vec<Vec3> {
        let skin = &model.skins[mesh.skin];
        let pal: Vec<Mat4> = skin
            .joint_nodes
            .iter()
            .zip(skin.skeleton.inverse_bind())
            .map(|(n, ibm)| globals[n] * *ibm)
            .collect();
        let mut out = vec![Vec3::ZERO; mesh.positions.len()];
        crate::skinning::skin(
            &pal,
            &mesh.positions,
            &[],
            &mesh.joints,
            &mesh.weights,
            &mut out,
            &mut [],
        )
        .unwrap();
        out
    }

    #[test]
    fn a_mesh_rebound_onto_a_skin_with_its_joints_follows_the_same_node_pose() {
        let model = two_skins(None);
        let r = model.rebind_mesh(0, 1).unwrap();
        assert_eq!(r.mesh.skin, 1);
        assert_eq!(r.approximate_vertices, 0);
        // A's joint 0 (node 10) is B's joint 2; A's 1 (node 11) is B's 1.
        assert_eq!(r.mesh.joints, [[2, 1, 0, 0], [1, 0, 0, 0]]);
        let globals: HashMap<usize, Mat4> = [
            (
                10,
                Mat4::from_rotation_x(0.4) * Mat4::from_translation(Vec3::Y),
            ),
            (
                11,
                Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0)) * Mat4::from_rotation_z(-0.2),
            ),
            (12, Mat4::from_translation(Vec3::splat(9.0))),
        ]
        .into();
        let want = skinned_by_nodes(&model, &model.meshes[0], &globals);
        let got = skinned_by_nodes(&model, &r.mesh, &globals);
        for (g, w) in got.iter().zip(&want) {
            assert!(g.abs_diff_eq(*w, 1e-5), "{g} vs {w}");
        }
        // Onto its own skin it is unchanged.
        let same = model.rebind_mesh(0, 0).unwrap();
        assert_eq!(same.mesh.positions, model.meshes[0].positions);
    }

    #[test]
    fn rebinding_counts_vertices_of_skins_bound_in_other_poses_and_names_missing_joints() {
        let model = two_skins(Some(Mat4::from_translation(Vec3::new(0.0, -7.0, 0.0))));
        let r = model.rebind_mesh(0, 1).unwrap();
        // Vertex 0 mixes nodes 10 and 11, whose binds now disagree; vertex
        // 1 hangs on node 11 alone and is exact.
        assert_eq!(r.approximate_vertices, 1);
        // Skin A lacks node 12: a mesh using it cannot move onto A.
        let mut model = two_skins(None);
        model.meshes[0].skin = 1;
        model.meshes[0].joints = vec![[0, 1, 0, 0], [1, 0, 0, 0]];
        let err = model.rebind_mesh(0, 0).unwrap_err();
        assert!(
            err.contains("'n12'") && err.contains("node 12") && err.contains("'A'"),
            "{err}"
        );
    }

    fn reason(bytes: &[u8]) -> ImportError {
        load_from_bytes(bytes, "broken.glb", None).unwrap_err()
    }

    #[test]
    fn joint_index_out_of_range_is_an_error_naming_the_file() {
        let err = reason(&test_model(7));
        assert!(
            matches!(err.reason, ImportErrorReason::Primitive { .. }),
            "{err}"
        );
        let text = err.to_string();
        assert!(
            text.starts_with("broken.glb: ") && text.contains("joint 7"),
            "{text}"
        );
    }

    #[test]
    fn invalid_json_bad_accessor_and_missing_buffer_are_errors() {
        let err = reason(b"{ this is not json");
        assert!(
            matches!(err.reason, ImportErrorReason::Document(_)),
            "{err}"
        );
        let bad_accessor = r#"{"asset":{"version":"2.0"},"nodes":[{}],"skins":[{"joints":[0],"inverseBindMatrices":5}]}"#;
        let err = reason(bad_accessor.as_bytes());
        assert!(
            matches!(err.reason, ImportErrorReason::Document(_)),
            "{err}"
        );
        let missing =
            r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"missing.bin"}]}"#;
        let err = reason(missing.as_bytes());
        assert!(matches!(err.reason, ImportErrorReason::Uri { .. }), "{err}");
        let err = load(Path::new("/nonexistent/model.glb")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/model.glb"), "{err}");
    }

    #[test]
    fn truncated_and_byte_flipped_cesium_man_never_panics() {
        let bytes = std::fs::read(model_path(MODELS[0])).unwrap();
        let check = |data: &[u8], what: &str| {
            if let Err(e) = load_from_bytes(data, "corrupt.glb", None) {
                assert!(
                    !matches!(e.reason, ImportErrorReason::Panic(_)),
                    "{what}: {e}"
                );
                assert!(e.to_string().starts_with("corrupt.glb: "));
            }
        };
        // Truncations: every length in the header and JSON chunk region
        // coarsely, plus a spread through the binary chunk.
        let mut len = 0;
        while len < bytes.len() {
            let err = load_from_bytes(&bytes[..len], "corrupt.glb", None);
            assert!(err.is_err(), "truncated at {len} loaded");
            check(&bytes[..len], &format!("truncated at {len}"));
            len += if len < 4096 { 97 } else { bytes.len() / 40 };
        }
        // Byte flips at seeded pseudo-random positions (xorshift), biased to
        // the JSON and the first part of the binary chunk where structure is.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..120 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let span = if i % 2 == 0 {
                8192.min(bytes.len())
            } else {
                bytes.len()
            };
            let pos = (state as usize) % span;
            let mut data = bytes.clone();
            data[pos] ^= 1 << (state >> 60 & 7);
            check(&data, &format!("flip at {pos}"));
        }
    }

    // --- A model reads only what belongs to it (issue 30).

    /// A fresh folder for one test's files.
    fn scratch(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("animation-gltf-uri-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A glTF whose one buffer has `uri` and `byteLength`, written as
    /// `model.gltf` into `dir`; the import's error.
    fn buffer_uri_error(dir: &Path, uri: &str, byte_length: usize) -> ImportError {
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{byte_length},"uri":{}}}]}}"#,
            serde_json_string(uri)
        );
        let path = dir.join("model.gltf");
        std::fs::write(&path, json).unwrap();
        match load(&path) {
            Ok(_) => panic!("a buffer uri {uri:?} was accepted"),
            Err(e) => e,
        }
    }

    /// `s` as a JSON string literal.
    fn serde_json_string(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    /// Asserts that `err` is a URI refusal naming the model file, the URI
    /// and `why`.
    fn assert_uri_refused(err: &ImportError, uri: &str, why: &str) {
        let text = err.to_string();
        assert!(
            matches!(err.reason, ImportErrorReason::Uri { .. }),
            "not a URI refusal: {text}"
        );
        assert!(text.contains("model.gltf: buffer 0 uri"), "{text}");
        assert!(text.contains(&format!("\"{uri}\"")), "{text}");
        assert!(text.contains(why), "{text}");
    }

    #[test]
    fn a_buffer_uri_naming_a_device_is_refused() {
        let dir = scratch("device");
        let err = buffer_uri_error(&dir, "file:///dev/zero", 64);
        assert_uri_refused(&err, "file:///dev/zero", "URI scheme 'file'");
        // The same device through a symbolic link in the model's folder, a
        // folder, and a link to a file outside.
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.bin")).unwrap();
        let err = buffer_uri_error(&dir, "zero.bin", 64);
        assert_uri_refused(&err, "zero.bin", "leads out of the model's folder");
        std::fs::create_dir(dir.join("sub")).unwrap();
        let err = buffer_uri_error(&dir, "sub", 4);
        assert_uri_refused(&err, "sub", "is not a regular file");
        let outside = scratch("device-outside");
        std::fs::write(outside.join("secret.bin"), [7u8; 8]).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.bin"), dir.join("link.bin")).unwrap();
        let err = buffer_uri_error(&dir, "link.bin", 8);
        assert_uri_refused(&err, "link.bin", "leads out of the model's folder");
    }

    #[test]
    fn a_buffer_uri_naming_an_absolute_path_is_refused() {
        let dir = scratch("absolute");
        // A file that exists and that the user may read.
        let target = dir.join("elsewhere.bin");
        std::fs::write(&target, [1u8; 16]).unwrap();
        let uri = target.display().to_string();
        let err = buffer_uri_error(&dir, &uri, 16);
        assert_uri_refused(&err, &uri, "is an absolute path");
        let err = buffer_uri_error(&dir, "/etc/hostname", 4);
        assert_uri_refused(&err, "/etc/hostname", "is an absolute path");
        // Percent-encoded, it is still absolute.
        let err = buffer_uri_error(&dir, "%2Fetc/hostname", 4);
        assert_uri_refused(&err, "%2Fetc/hostname", "is an absolute path");
    }

    #[test]
    fn a_buffer_uri_that_is_not_utf8_once_decoded_is_refused_without_a_panic() {
        let dir = scratch("percent");
        let err = buffer_uri_error(&dir, "%FF", 4);
        assert_uri_refused(&err, "%FF", "does not percent-decode to UTF-8");
        // Given as bytes (no folder), the same.
        let json = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"%FF"}]}"#;
        let err = load_from_bytes(json.as_bytes(), "model.gltf", None).unwrap_err();
        assert_uri_refused(&err, "%FF", "UTF-8");
    }

    #[test]
    fn a_buffer_uri_climbing_out_of_the_folder_is_refused() {
        let root = scratch("dotdot");
        let dir = root.join("model");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(root.join("outside.bin"), [0u8; 8]).unwrap();
        for uri in [
            "../outside.bin",
            "sub/../../outside.bin",
            "%2E%2E/outside.bin",
        ] {
            let err = buffer_uri_error(&dir, uri, 8);
            assert_uri_refused(&err, uri, "climbs out of the model's folder");
        }
    }

    #[test]
    fn a_buffer_file_shorter_than_its_declared_length_is_refused() {
        let dir = scratch("short");
        std::fs::write(dir.join("short.bin"), [0u8; 10]).unwrap();
        let err = buffer_uri_error(&dir, "short.bin", 100);
        assert_uri_refused(
            &err,
            "short.bin",
            "holds 10 bytes, fewer than the byteLength of 100",
        );
        // A declaration over the limit is refused before the file is read.
        let err = buffer_uri_error(&dir, "short.bin", MAX_BUFFER_BYTES + 1);
        assert_uri_refused(&err, "short.bin", "more than the limit");
        // A data URI too.
        let err = buffer_uri_error(&dir, "data:application/octet-stream;base64,AAAA", 4);
        assert_uri_refused(
            &err,
            "data:application/octet-stream;base64,AAAA",
            "fewer than the byteLength of 4",
        );
    }

    /// CesiumMan as `.gltf` JSON with its binary chunk in `CesiumMan.bin`
    /// (padded with `extra` bytes past its declared length) in `dir`.
    fn external_cesium_man(dir: &Path, uri: &str, extra: usize) -> PathBuf {
        let bytes = std::fs::read(model_path(MODELS[0])).unwrap();
        let gltf = gltf::Gltf::from_slice(&bytes).unwrap();
        let mut root = gltf.document.as_json().clone();
        root.buffers[0].uri = Some(uri.to_string());
        let mut bin = gltf.blob.clone().unwrap();
        bin.extend(std::iter::repeat_n(0xAB, extra));
        let decoded = percent_encoding::percent_decode_str(uri)
            .decode_utf8()
            .unwrap();
        let bin_path = dir.join(&*decoded);
        std::fs::create_dir_all(bin_path.parent().unwrap()).unwrap();
        std::fs::write(bin_path, bin).unwrap();
        let path = dir.join("CesiumMan.gltf");
        std::fs::write(&path, gltf::json::serialize::to_vec(&root).unwrap()).unwrap();
        path
    }

    #[test]
    fn a_model_with_external_buffers_in_its_folder_loads_as_its_glb_does() {
        let glb = load(&model_path(MODELS[0])).unwrap();
        let dir = scratch("external");
        for uri in ["CesiumMan.bin", "data/./Cesium%20Man.bin", "data/../x.bin"] {
            let model =
                load(&external_cesium_man(&dir, uri, 100)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(model.meshes.len(), glb.meshes.len());
            for (a, b) in model.meshes.iter().zip(&glb.meshes) {
                assert_eq!(a.positions, b.positions);
                assert_eq!(a.indices, b.indices);
                assert_eq!(
                    a.material, b.material,
                    "the texture in a buffer view decodes alike"
                );
            }
            assert_eq!(model.clips, glb.clips);
            assert_eq!(
                model.skins[0].clips[0].rotations[0].values,
                glb.skins[0].clips[0].rotations[0].values
            );
        }
    }

    #[test]
    fn an_image_uri_obeys_the_same_rules() {
        let dir = scratch("image");
        for (uri, why) in [
            ("/etc/hostname", "is an absolute path"),
            ("file:///dev/zero", "URI scheme 'file'"),
            ("../x.png", "climbs out"),
            ("%FF", "UTF-8"),
        ] {
            let json = format!(
                r#"{{"asset":{{"version":"2.0"}},"images":[{{"uri":{}}}]}}"#,
                serde_json_string(uri)
            );
            let path = dir.join("model.gltf");
            std::fs::write(&path, json).unwrap();
            let text = load(&path).unwrap_err().to_string();
            assert!(
                text.contains(&format!("model.gltf: image 0 uri \"{uri}\"")),
                "{text}"
            );
            assert!(text.contains(why), "{text}");
        }
    }

    #[test]
    fn counts_over_their_limits_are_refused_before_use() {
        // An accessor without a buffer view takes no room in the file but
        // would be read as `count` zeros.
        let err = reason(&test_model_edited(
            0,
            &[(
                r#""count":3,"type":"VEC3""#,
                r#""count":4194305,"type":"VEC3""#,
            )],
        ));
        assert!(
            matches!(
                err.reason,
                ImportErrorReason::TooLarge { .. } | ImportErrorReason::Document(_)
            ),
            "{err}"
        );
        let nodes = format!(
            r#"{{"asset":{{"version":"2.0"}},"nodes":[{}]}}"#,
            vec!["{}"; MAX_NODES + 1].join(",")
        );
        let err = reason(nodes.as_bytes());
        assert_eq!(
            err.to_string(),
            format!(
                "broken.glb: the model has {} nodes, more than the limit of {MAX_NODES}",
                MAX_NODES + 1
            )
        );
        let sparse = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":8,"uri":"data:;base64,AAAAAAAAAAA="}],
            "bufferViews":[{"buffer":0,"byteLength":8}],
            "accessors":[{"componentType":5126,"count":16777216,"type":"VEC3","min":[0,0,0],"max":[0,0,0],"sparse":{"count":1,
                "indices":{"bufferView":0,"componentType":5125},"values":{"bufferView":0}}}],
            "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]}"#;
        let err = reason(sparse.as_bytes());
        assert!(
            err.to_string()
                .contains("declares 16777216 elements, more than the limit of 4194304"),
            "{err}"
        );
        let mut budget = Budget::default();
        budget
            .take(Total::Vertices, MAX_TOTAL_VERTICES - 1)
            .unwrap();
        let err = budget.take(Total::Vertices, 2).unwrap_err().to_string();
        assert!(err.contains("more than the limit of 4194304"), "{err}");
        assert!(Budget::default().take(Total::Keys, usize::MAX).is_err());
    }

    #[test]
    fn a_caught_panic_is_quiet_and_says_where_it_happened() {
        let err = catch_quietly::<()>(|| panic!("deliberate")).unwrap_err();
        assert!(err.starts_with("deliberate (at "), "{err}");
        assert!(err.contains("gltf_import.rs:"), "{err}");
        assert_eq!(catch_quietly(|| 5).unwrap(), 5);
        // Outside, this thread is not quiet any more.
        assert!(!QUIET.with(Cell::get));
    }

    #[test]
    fn the_model_file_itself_must_be_a_regular_file() {
        let err = load(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(
            err.starts_with("/dev/zero: ") && err.contains("not a regular file"),
            "{err}"
        );
        let dir = scratch("folder");
        let err = load(&dir).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
    }
}
