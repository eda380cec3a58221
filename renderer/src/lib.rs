//! The wgpu renderer. It knows meshes, palettes, cameras and lines; it knows
//! nothing of the ECS, the level format or the game's rules.
//!
//! A frame: the caller fills a [`Frame`] (skinned instances with their bone
//! palettes, world meshes, debug lines), then [`Renderer::render`] uploads all
//! palettes in one buffer write, draws the sun's shadow map, draws the scene
//! with 4× MSAA into an sRGB target (sky, world materials with distance fog,
//! skinned meshes, soft quads for contact shadows and dust) and the debug
//! lines on top. Targets are
//! either an [`OffscreenTarget`] (headless, read back to PNG) or a window's
//! [`SurfaceTarget`].

mod camera;
pub mod demo;
mod error;
mod gpu;
mod image;
mod mesh;
mod renderer;
mod scenery;
pub mod shaders;
mod soft;
mod surface;
mod timing;

pub use camera::{Camera, Projection};
pub use error::RenderError;
pub use gpu::Gpu;
pub use image::{OffscreenTarget, read_png_rgba, write_png_rgba};
pub use mesh::{
    CAP_LIP, CAP_THICKNESS, Ladder, LineVertex, MAX_JOINTS_PER_SKIN, Material, MaterialDesc,
    SkinnedMeshDesc, SkinnedVertex, Surface, TextureDesc, Tile, Wedge, WorldMesh, WorldVertex,
};
pub use renderer::{
    COLOR_FORMAT_HEADLESS, Fog, Frame, FrameStats, Lighting, Renderer, SAMPLE_COUNT, ShadowBox,
    SkinnedMeshId, Sky, WorldMeshId,
};
pub use scenery::{Backdrop, CASTLE_SPACING, Skyline};
pub use soft::SoftQuad;
pub use surface::{PresentableWindow, SurfaceTarget};
pub use timing::PassTimes;

/// Re-export of wgpu so callers build surfaces and views with the same version.
pub use wgpu;
