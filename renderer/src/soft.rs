//! Soft round quads: the instance format of the soft-quad pass
//! (`shaders/soft.wgsl`), which draws contact shadows under feet and puffs
//! of dust. The caller queues them with [`crate::Frame::soft_quad`]; the
//! renderer uploads them in one write and draws them in one instanced call
//! after everything opaque.

use bytemuck::{Pod, Zeroable};

/// One soft quad: a centre and two half-axes spanning it, in world space.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SoftQuad {
    /// Centre, world space.
    pub center: [f32; 3],
    /// Half-axis from the centre to the middle of one edge.
    pub axis_u: [f32; 3],
    /// The other half-axis.
    pub axis_v: [f32; 3],
    /// Straight RGBA; alpha is the opacity at the centre.
    pub color: [f32; 4],
}
