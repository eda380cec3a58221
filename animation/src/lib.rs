//! The pose pipeline of Ironstep: everything that turns a skeleton and its clips
//! into skinning matrices, with inverse kinematics in between.
//!
//! The crate is pure and deterministic. It depends on `glam` (and, behind the
//! `gltf` feature, on the `gltf` crate for offline import); it never touches the
//! GPU, the ECS or the level format. Each step of the pipeline is a plain
//! function with explicit inputs and outputs, in the spirit of ozz-animation's
//! jobs:
//!
//! ```text
//! sample (clip) -> blend -> local_to_model -> IK (+ partial re-propagation) -> palette
//! ```
//!
//! Spaces: *local* is a joint relative to its parent, *model* is the skeleton's
//! own space (the root joint's parent is the identity), *world* belongs to the
//! game and never appears here.

#[macro_use]
mod dispatch;

pub mod blend;
pub mod clip;
#[cfg(feature = "gltf")]
pub mod gltf_import;
pub mod ik;
pub mod packed;
pub mod palette;
pub mod pose;
pub mod rate_limit;
pub mod sampling;
pub mod skeleton;
pub mod skinning;
pub mod transform;

pub use blend::{
    BlendError, BlendLayer, RootMotion, blend, blend_near, crossfade, extract_root_motion,
    remove_root_horizontal_translation,
};
pub use clip::{Clip, Interpolation, Track};
pub use packed::{PackedClip, sample_packed};
pub use palette::{
    PaletteError, palette, palette_affine, palette_affine_in_place, palette_columns,
    palette_in_place, palette_translation, palette_translation_in_place,
};
pub use pose::{
    LOCAL_TO_MODEL_LANES, Pose, local_to_model, local_to_model_from, local_to_model_x4,
    translate_subtree,
};
pub use rate_limit::{limit_rotations, rotation_angle};
pub use sampling::{
    ClipError, SamplingCursor, Wrap, sample, sample_at, sample_joint, validate_clip, wrap_time,
};
pub use skeleton::{JointDef, MAX_JOINTS, Skeleton, SkeletonError};
pub use skinning::{MAX_INFLUENCES, SkinningError, skin, skinned_bounds};
pub use transform::Transform;
