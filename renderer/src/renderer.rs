//! The renderer: pipelines, per-frame buffers, the shadow and main passes
//! (sky, world, skinned meshes, soft quads, debug lines), and GPU skinning
//! readback for tests.

use crate::mesh::Material;
use crate::mesh::{
    LineVertex, MAX_JOINTS_PER_SKIN, SkinnedMeshDesc, SkinnedVertex, WorldMesh, WorldVertex,
};
use crate::soft::SoftQuad;
use crate::timing::{GpuTimer, PassTimes};
use crate::{Camera, Gpu, RenderError, shaders};
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};
use std::mem::size_of;

/// Multisample count of the main pass (4× MSAA, supported by every adapter wgpu runs on).
pub const SAMPLE_COUNT: u32 = 4;
/// The colour format of headless targets: sRGB output.
pub const COLOR_FORMAT_HEADLESS: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth format of the main pass and the shadow map.
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Shadow-map resolution: 2048² keeps a 1.8 m knight's feet sharp within a
/// 12 m shadow box (about 6 mm per texel) at 16 MiB of depth.
const SHADOW_MAP_SIZE: u32 = 2048;
/// Depth bias applied in the shader, in light clip-space depth units.
const SHADOW_DEPTH_BIAS: f32 = 0.0015;
/// Initial palette capacity in matrices (grows by doubling).
const INITIAL_PALETTE_CAPACITY: u64 = 256;
/// Initial instance capacity (grows by doubling).
const INITIAL_INSTANCE_CAPACITY: u64 = 16;
/// Initial debug-line vertex capacity (grows by doubling).
const INITIAL_LINE_CAPACITY: u64 = 1024;
/// Initial soft-quad capacity (grows by doubling): two contact shadows for
/// each of a hundred characters and a full dust pool fit without growing.
const INITIAL_SOFT_CAPACITY: u64 = 512;
/// Distance of the sun's disc from the screen's centre, as a fraction of
/// half the screen's height: high in the sky, clear of the hills.
const SUN_SCREEN_DISTANCE: f32 = 0.72;
/// Workgroup size of `skin_vertices` (must match the WGSL).
const SKIN_WORKGROUP: u32 = 64;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    light_view_proj: [[f32; 4]; 4],
    sun_dir: [f32; 4],
    sun_color: [f32; 4],
    sky_color: [f32; 4],
    ground_color: [f32; 4],
    shadow_params: [f32; 4],
    camera_pos: [f32; 4],
    fog_color: [f32; 4],
    fog_params: [f32; 4],
    sky_top: [f32; 4],
    sun_screen: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct InstanceGpu {
    model: [[f32; 4]; 4],
    tint: [f32; 4],
    palette_offset: u32,
    _pad: [u32; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SkinInputGpu {
    position: [f32; 4],
    normal: [f32; 4],
    joints: [u32; 4],
    weights: [f32; 4],
}

/// Handle of an uploaded skinned mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SkinnedMeshId(u32);

/// Handle of an uploaded world mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorldMeshId(u32);

/// The box the sun's shadow map covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShadowBox {
    /// Centre of the shadowed region (e.g. the player).
    pub center: Vec3,
    /// Half extent in metres.
    pub radius: f32,
}

/// Sun, sky and shadow settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lighting {
    /// Unit direction from the scene towards the sun.
    pub sun_dir: Vec3,
    /// Sun radiance (linear RGB).
    pub sun_color: Vec3,
    /// Ambient from above.
    pub sky_color: Vec3,
    /// Ambient from below.
    pub ground_color: Vec3,
    /// Background colour (linear RGB).
    pub clear_color: Vec3,
    /// Shadow region; `None` turns shadows off.
    pub shadow: Option<ShadowBox>,
    /// A gradient sky with the sun's disc instead of the plain clear
    /// colour; `None` draws the clear colour only.
    pub sky: Option<Sky>,
    /// Distance fog towards the horizon colour (the sky's, or the clear
    /// colour without a sky); `None` turns it off.
    pub fog: Option<Fog>,
}

/// The sky drawn behind everything.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sky {
    /// Colour at the top of the screen (linear RGB).
    pub top: Vec3,
    /// Colour at the horizon (linear RGB); the fog fades to it too.
    pub horizon: Vec3,
    /// Radius of the sun's disc as a fraction of half the screen height.
    pub sun_radius: f32,
}

/// Exponential distance fog: past `start` metres from the camera, a
/// fraction `1 - exp(-density × (d - start))` of the colour is the horizon's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fog {
    /// Distance from the camera where the fog starts, metres.
    pub start: f32,
    /// Density per metre.
    pub density: f32,
}

impl Default for Lighting {
    fn default() -> Self {
        Self {
            sun_dir: Vec3::new(-0.4, 1.0, 0.6).normalize(),
            sun_color: Vec3::new(1.0, 0.95, 0.85) * 0.9,
            sky_color: Vec3::new(0.30, 0.36, 0.45),
            ground_color: Vec3::new(0.12, 0.10, 0.08),
            clear_color: Vec3::new(0.35, 0.5, 0.7),
            shadow: Some(ShadowBox {
                center: Vec3::ZERO,
                radius: 6.0,
            }),
            sky: None,
            fog: None,
        }
    }
}

impl Lighting {
    /// The horizon colour: the sky's, or the clear colour without a sky.
    pub fn horizon(&self) -> Vec3 {
        self.sky.map_or(self.clear_color, |s| s.horizon)
    }

    /// Where the sun's disc is drawn, in NDC, on a target of `aspect`
    /// (width / height): in the direction the light comes from (its x and
    /// y), [`SUN_SCREEN_DISTANCE`] of half the screen height from the
    /// centre, so shadows point away from it.
    pub fn sun_on_screen(&self, aspect: f32) -> glam::Vec2 {
        let d = self
            .sun_dir
            .truncate()
            .try_normalize()
            .unwrap_or(glam::Vec2::Y);
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        glam::Vec2::new(d.x / aspect, d.y) * SUN_SCREEN_DISTANCE
    }

    /// The sun's view-projection for the shadow map (orthographic, depth 0..1).
    pub fn light_view_proj(&self) -> Mat4 {
        let Some(b) = self.shadow else {
            return Mat4::IDENTITY;
        };
        let dir = self.sun_dir.normalize_or(Vec3::Y);
        let up = if dir.abs().abs_diff_eq(Vec3::Y, 1e-3) {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let r = b.radius.max(0.01);
        let eye = b.center + dir * (r * 2.0);
        glam::camera::rh::proj::directx::orthographic(-r, r, -r, r, 0.0, r * 4.0)
            * glam::camera::rh::view::look_at_mat4(eye, b.center, up)
    }
}

#[derive(Clone, Copy, Debug)]
struct InstanceRecord {
    mesh: SkinnedMeshId,
    model: Mat4,
    tint: [f32; 4],
    palette_offset: u32,
    palette_len: u32,
}

/// What to draw this frame. Owned by the caller, cleared and refilled every
/// frame; it keeps its capacity, so steady-state frames allocate nothing.
#[derive(Clone, Debug)]
pub struct Frame {
    palettes: Vec<Mat4>,
    instances: Vec<InstanceRecord>,
    worlds: Vec<WorldMeshId>,
    lines: Vec<LineVertex>,
    soft: Vec<SoftQuad>,
    /// Whether debug lines and points are drawn (toggled at run time).
    pub show_debug: bool,
}

impl Default for Frame {
    fn default() -> Self {
        Self::new()
    }
}

/// Half size of a debug point's cross, in metres.
const POINT_HALF_SIZE: f32 = 0.05;

impl Frame {
    /// An empty frame with debug drawing on.
    pub fn new() -> Self {
        Self {
            palettes: Vec::new(),
            instances: Vec::new(),
            worlds: Vec::new(),
            lines: Vec::new(),
            soft: Vec::new(),
            show_debug: true,
        }
    }

    /// Empties the frame, keeping its allocations.
    pub fn clear(&mut self) {
        self.palettes.clear();
        self.instances.clear();
        self.worlds.clear();
        self.lines.clear();
        self.soft.clear();
    }

    /// A soft round quad centred on `center`, spanned by the half-axes
    /// `axis_u` and `axis_v`, in straight RGBA `color` (alpha: opacity at
    /// the centre, fading to nothing at the rim). Blended over the scene
    /// after everything opaque, without writing depth: contact shadows
    /// (lying on a floor, dark) and dust (facing the camera, light).
    pub fn soft_quad(&mut self, center: Vec3, axis_u: Vec3, axis_v: Vec3, color: [f32; 4]) {
        self.soft.push(SoftQuad {
            center: center.to_array(),
            axis_u: axis_u.to_array(),
            axis_v: axis_v.to_array(),
            color,
        });
    }

    /// Number of soft quads queued.
    pub fn soft_quad_count(&self) -> usize {
        self.soft.len()
    }

    /// Draws `mesh` with its bone `palette` (model × inverse bind, one per
    /// joint) placed by `model`.
    pub fn draw_skinned(&mut self, mesh: SkinnedMeshId, model: Mat4, palette: &[Mat4]) {
        self.draw_skinned_tinted(mesh, model, palette, [1.0; 4]);
    }

    /// Like [`Frame::draw_skinned`] with a colour multiplied into the material.
    pub fn draw_skinned_tinted(
        &mut self,
        mesh: SkinnedMeshId,
        model: Mat4,
        palette: &[Mat4],
        tint: [f32; 4],
    ) {
        let offset = self.palettes.len() as u32;
        self.palettes.extend_from_slice(palette);
        self.instances.push(InstanceRecord {
            mesh,
            model,
            tint,
            palette_offset: offset,
            palette_len: palette.len() as u32,
        });
    }

    /// Draws a world mesh.
    pub fn draw_world(&mut self, mesh: WorldMeshId) {
        self.worlds.push(mesh);
    }

    /// A debug line from `a` to `b`.
    pub fn line(&mut self, a: Vec3, b: Vec3, color: [f32; 4]) {
        self.lines.push(LineVertex {
            position: a.to_array(),
            color,
        });
        self.lines.push(LineVertex {
            position: b.to_array(),
            color,
        });
    }

    /// A debug point, drawn as a small 3-axis cross.
    pub fn point(&mut self, p: Vec3, color: [f32; 4]) {
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            self.line(
                p - axis * POINT_HALF_SIZE,
                p + axis * POINT_HALF_SIZE,
                color,
            );
        }
    }

    /// Number of skinned instances queued.
    pub fn instance_count(&self) -> usize {
        self.instances.len()
    }
}

/// What one [`Renderer::render`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Bytes written to GPU buffers this frame (globals, palettes, instances, lines).
    pub bytes_uploaded: u64,
    /// Skinned instances drawn.
    pub instances: u32,
    /// Draw calls issued (shadow and main pass).
    pub draw_calls: u32,
    /// CPU time of validation, instance grouping and the buffer writes.
    pub cpu_upload: std::time::Duration,
    /// CPU time of recording the passes.
    pub cpu_encode: std::time::Duration,
    /// CPU time of `queue.submit` (and starting the timestamp readback).
    pub cpu_submit: std::time::Duration,
}

struct SkinnedMeshGpu {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    joint_count: u32,
    material: wgpu::BindGroup,
}

struct WorldMeshGpu {
    vertices: wgpu::Buffer,
    /// The mesh's indices as built (the shadow pass draws the first
    /// `shadow_index_count`, see [`WorldMesh::shadow_indices`]).
    indices: wgpu::Buffer,
    shadow_index_count: u32,
    /// The same triangles grouped by material, in [`Material::ALL`]'s order,
    /// and each material's range of them: the main pass draws each range
    /// with that material's pipeline.
    material_indices: wgpu::Buffer,
    material_ranges: [std::ops::Range<u32>; Material::ALL.len()],
}

struct GrowBuffer {
    buffer: wgpu::Buffer,
    capacity: u64,
    usage: wgpu::BufferUsages,
    label: &'static str,
}

impl GrowBuffer {
    fn new(
        device: &wgpu::Device,
        label: &'static str,
        capacity: u64,
        usage: wgpu::BufferUsages,
    ) -> Self {
        let usage = usage | wgpu::BufferUsages::COPY_DST;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: capacity,
            usage,
            mapped_at_creation: false,
        });
        Self {
            buffer,
            capacity,
            usage,
            label,
        }
    }

    /// Grows to at least `bytes` (doubling); returns whether it was recreated.
    fn ensure(&mut self, device: &wgpu::Device, bytes: u64) -> bool {
        if bytes <= self.capacity {
            return false;
        }
        let capacity = bytes.next_power_of_two();
        *self = Self::new(device, self.label, capacity, self.usage);
        true
    }
}

struct Targets {
    size: (u32, u32),
    msaa: wgpu::TextureView,
    depth: wgpu::TextureView,
}

/// The renderer. Create it with a [`Gpu`] and the colour format of its targets.
pub struct Renderer {
    gpu: Gpu,
    color_format: wgpu::TextureFormat,
    globals: wgpu::Buffer,
    globals_bg: wgpu::BindGroup,
    shadow_view: wgpu::TextureView,
    shadow_bg: wgpu::BindGroup,
    skin_bgl: wgpu::BindGroupLayout,
    skin_bg: wgpu::BindGroup,
    material_bgl: wgpu::BindGroupLayout,
    palette_only_bgl: wgpu::BindGroupLayout,
    compute_bgl: wgpu::BindGroupLayout,
    material_sampler: wgpu::Sampler,
    skinned_pipeline: wgpu::RenderPipeline,
    skinned_shadow_pipeline: wgpu::RenderPipeline,
    /// One world pipeline per material, in [`Material::ALL`]'s order.
    world_pipelines: [wgpu::RenderPipeline; Material::ALL.len()],
    world_shadow_pipeline: wgpu::RenderPipeline,
    sky_pipeline: wgpu::RenderPipeline,
    soft_pipeline: wgpu::RenderPipeline,
    line_pipeline: wgpu::RenderPipeline,
    skin_compute_pipeline: wgpu::ComputePipeline,
    palettes: GrowBuffer,
    instances: GrowBuffer,
    lines: GrowBuffer,
    soft: GrowBuffer,
    skinned_meshes: Vec<SkinnedMeshGpu>,
    world_meshes: Vec<WorldMeshGpu>,
    targets: Option<Targets>,
    timer: Option<GpuTimer>,
    scratch_instances: Vec<InstanceGpu>,
    scratch_draws: Vec<(SkinnedMeshId, u32, u32)>,
}

fn bgl_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BindingType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty,
        count: None,
    }
}

fn storage(read_only: bool) -> wgpu::BindingType {
    wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only },
        has_dynamic_offset: false,
        min_binding_size: None,
    }
}

fn uniform() -> wgpu::BindingType {
    wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Uniform,
        has_dynamic_offset: false,
        min_binding_size: None,
    }
}

fn vertex_layout<'a>(
    stride: usize,
    attributes: &'a [wgpu::VertexAttribute],
) -> wgpu::VertexBufferLayout<'a> {
    wgpu::VertexBufferLayout {
        array_stride: stride as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes,
    }
}

const SKINNED_ATTRS: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Uint16x4, 4 => Float32x4, 5 => Float32x4
];
const WORLD_ATTRS: [wgpu::VertexAttribute; 4] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x4, 3 => Uint32];
const SOFT_ATTRS: [wgpu::VertexAttribute; 4] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x3, 3 => Float32x4];
const LINE_ATTRS: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];

/// Reads a MAP_READ buffer after waiting for the GPU.
pub(crate) fn map_and_read(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
) -> Result<Vec<u8>, RenderError> {
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    rx.recv()
        .map_err(|e| RenderError::Readback(e.to_string()))?
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    let data = buffer
        .get_mapped_range(..)
        .map_err(|e| RenderError::Readback(format!("{e:?}")))?
        .to_vec();
    buffer.unmap();
    Ok(data)
}

impl Renderer {
    /// A headless renderer drawing into [`COLOR_FORMAT_HEADLESS`] targets.
    pub fn headless() -> Result<Self, RenderError> {
        Ok(Self::new(Gpu::headless()?, COLOR_FORMAT_HEADLESS))
    }

    /// A renderer for targets of `color_format` (use an sRGB format).
    pub fn new(gpu: Gpu, color_format: wgpu::TextureFormat) -> Self {
        let device = gpu.device.clone();
        let vs = wgpu::ShaderStages::VERTEX;
        let fs = wgpu::ShaderStages::FRAGMENT;
        let cs = wgpu::ShaderStages::COMPUTE;

        let globals_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globals"),
            entries: &[bgl_entry(0, vs | fs, uniform())],
        });
        let shadow_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shadow map"),
            entries: &[
                bgl_entry(
                    0,
                    fs,
                    wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                bgl_entry(
                    1,
                    fs,
                    wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                ),
            ],
        });
        let skin_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("palettes + instances"),
            entries: &[
                bgl_entry(0, vs, storage(true)),
                bgl_entry(1, vs, storage(true)),
            ],
        });
        let material_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                bgl_entry(0, fs, uniform()),
                bgl_entry(
                    1,
                    fs,
                    wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                bgl_entry(
                    2,
                    fs,
                    wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                ),
            ],
        });
        let palette_only_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("palette (compute)"),
            entries: &[bgl_entry(0, cs, storage(true))],
        });
        let compute_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skin_vertices io"),
            entries: &[
                bgl_entry(3, cs, storage(true)),
                bgl_entry(4, cs, storage(false)),
                bgl_entry(5, cs, uniform()),
            ],
        });

        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("globals"),
            size: size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals_bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globals"),
            layout: &globals_bgl,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            }],
        });
        let shadow_tex = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("shadow map"),
            size: wgpu::Extent3d {
                width: SHADOW_MAP_SIZE,
                height: SHADOW_MAP_SIZE,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let shadow_view = shadow_tex.create_view(&Default::default());
        let shadow_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow compare"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let shadow_bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("shadow map"),
            layout: &shadow_bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&shadow_view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&shadow_sampler),
                },
            ],
        });
        let material_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("material"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });

        let skinned_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("skinned.wgsl"),
            source: wgpu::ShaderSource::Wgsl(shaders::SKINNED_MODULE.into()),
        });
        let world_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("world.wgsl"),
            source: wgpu::ShaderSource::Wgsl(shaders::WORLD_MODULE.into()),
        });
        let sky_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("sky.wgsl"),
            source: wgpu::ShaderSource::Wgsl(shaders::SKY_MODULE.into()),
        });
        let soft_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("soft.wgsl"),
            source: wgpu::ShaderSource::Wgsl(shaders::SOFT_MODULE.into()),
        });
        let line_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("lines.wgsl"),
            source: wgpu::ShaderSource::Wgsl(shaders::LINES_MODULE.into()),
        });

        let layout = |label: &str, groups: &[Option<&wgpu::BindGroupLayout>]| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: groups,
                immediate_size: 0,
            })
        };
        let skinned_layout = layout(
            "skinned",
            &[
                Some(&globals_bgl),
                Some(&shadow_bgl),
                Some(&skin_bgl),
                Some(&material_bgl),
            ],
        );
        let skinned_shadow_layout = layout(
            "skinned shadow",
            &[Some(&globals_bgl), None, Some(&skin_bgl)],
        );
        let world_layout = layout("world", &[Some(&globals_bgl), Some(&shadow_bgl)]);
        let world_shadow_layout = layout("world shadow", &[Some(&globals_bgl)]);
        let compute_layout = layout(
            "skin_vertices",
            &[None, None, Some(&palette_only_bgl), Some(&compute_bgl)],
        );

        let skinned_buffers = [Some(vertex_layout(
            size_of::<SkinnedVertex>(),
            &SKINNED_ATTRS,
        ))];
        let world_buffers = [Some(vertex_layout(size_of::<WorldVertex>(), &WORLD_ATTRS))];
        let line_buffers = [Some(vertex_layout(size_of::<LineVertex>(), &LINE_ATTRS))];

        let color_target = [Some(wgpu::ColorTargetState {
            format: color_format,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        })];
        let lit = |label: &str,
                   layout: &wgpu::PipelineLayout,
                   module: &wgpu::ShaderModule,
                   buffers: &[Option<wgpu::VertexBufferLayout>],
                   fragment_entry: &str| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: SAMPLE_COUNT,
                    ..Default::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some(fragment_entry),
                    compilation_options: Default::default(),
                    targets: &color_target,
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let shadow = |label: &str,
                      layout: &wgpu::PipelineLayout,
                      module: &wgpu::ShaderModule,
                      buffers: &[Option<wgpu::VertexBufferLayout>]| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs_shadow"),
                    compilation_options: Default::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: wgpu::DepthBiasState {
                        constant: 2,
                        slope_scale: 2.0,
                        clamp: 0.0,
                    },
                }),
                multisample: Default::default(),
                fragment: None,
                multiview_mask: None,
                cache: None,
            })
        };
        let skinned_pipeline = lit(
            "skinned",
            &skinned_layout,
            &skinned_module,
            &skinned_buffers,
            "fs_main",
        );
        let world_pipelines = Material::ALL.map(|m| {
            lit(
                m.entry_point(),
                &world_layout,
                &world_module,
                &world_buffers,
                m.entry_point(),
            )
        });
        let skinned_shadow_pipeline = shadow(
            "skinned shadow",
            &skinned_shadow_layout,
            &skinned_module,
            &skinned_buffers,
        );
        let world_shadow_pipeline = shadow(
            "world shadow",
            &world_shadow_layout,
            &world_module,
            &world_buffers,
        );
        let overlay = |label: &str,
                       module: &wgpu::ShaderModule,
                       buffers: &[Option<wgpu::VertexBufferLayout>],
                       depth_compare: wgpu::CompareFunction,
                       blend: Option<wgpu::BlendState>| {
            let layout = layout(label, &[Some(&globals_bgl), Some(&shadow_bgl)]);
            let targets = [Some(wgpu::ColorTargetState {
                format: color_format,
                blend,
                write_mask: wgpu::ColorWrites::ALL,
            })];
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(false),
                    depth_compare: Some(depth_compare),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: SAMPLE_COUNT,
                    ..Default::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &targets,
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        // The sky lies on the far plane, drawn after everything opaque: the
        // depth test keeps only the pixels still at the cleared depth.
        let sky_pipeline = overlay(
            "sky",
            &sky_module,
            &[],
            wgpu::CompareFunction::LessEqual,
            None,
        );
        let soft_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<SoftQuad>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &SOFT_ATTRS,
        })];
        let soft_pipeline = overlay(
            "soft quads",
            &soft_module,
            &soft_buffers,
            wgpu::CompareFunction::LessEqual,
            Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
        );
        let line_layout = layout("lines", &[Some(&globals_bgl)]);
        let line_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("lines"),
            layout: Some(&line_layout),
            vertex: wgpu::VertexState {
                module: &line_module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &line_buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::LineList,
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(false),
                depth_compare: Some(wgpu::CompareFunction::Always),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: wgpu::MultisampleState {
                count: SAMPLE_COUNT,
                ..Default::default()
            },
            fragment: Some(wgpu::FragmentState {
                module: &line_module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &color_target,
            }),
            multiview_mask: None,
            cache: None,
        });
        let skin_compute_pipeline =
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("skin_vertices"),
                layout: Some(&compute_layout),
                module: &skinned_module,
                entry_point: Some("skin_vertices"),
                compilation_options: Default::default(),
                cache: None,
            });

        let storage_usage = wgpu::BufferUsages::STORAGE;
        let palettes = GrowBuffer::new(
            &device,
            "palettes",
            INITIAL_PALETTE_CAPACITY * size_of::<Mat4>() as u64,
            storage_usage,
        );
        let instances = GrowBuffer::new(
            &device,
            "instances",
            INITIAL_INSTANCE_CAPACITY * size_of::<InstanceGpu>() as u64,
            storage_usage,
        );
        let lines = GrowBuffer::new(
            &device,
            "debug lines",
            INITIAL_LINE_CAPACITY * size_of::<LineVertex>() as u64,
            wgpu::BufferUsages::VERTEX,
        );
        let soft = GrowBuffer::new(
            &device,
            "soft quads",
            INITIAL_SOFT_CAPACITY * size_of::<SoftQuad>() as u64,
            wgpu::BufferUsages::VERTEX,
        );
        let skin_bg = Self::make_skin_bg(&device, &skin_bgl, &palettes.buffer, &instances.buffer);
        let timer = GpuTimer::new(&device, &gpu.queue);
        Self {
            gpu,
            color_format,
            globals,
            globals_bg,
            shadow_view,
            shadow_bg,
            skin_bgl,
            skin_bg,
            material_bgl,
            palette_only_bgl,
            compute_bgl,
            material_sampler,
            skinned_pipeline,
            skinned_shadow_pipeline,
            world_pipelines,
            world_shadow_pipeline,
            sky_pipeline,
            soft_pipeline,
            line_pipeline,
            skin_compute_pipeline,
            palettes,
            instances,
            lines,
            soft,
            skinned_meshes: Vec::new(),
            world_meshes: Vec::new(),
            targets: None,
            timer,
            scratch_instances: Vec::new(),
            scratch_draws: Vec::new(),
        }
    }

    fn make_skin_bg(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        palettes: &wgpu::Buffer,
        instances: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("palettes + instances"),
            layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: palettes.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: instances.as_entire_binding(),
                },
            ],
        })
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.gpu.device
    }

    /// The queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.gpu.queue
    }

    /// The GPU context.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The colour format targets must have.
    pub fn color_format(&self) -> wgpu::TextureFormat {
        self.color_format
    }

    /// Whether per-pass GPU timing is available on this adapter.
    pub fn has_gpu_timing(&self) -> bool {
        self.timer.is_some()
    }

    /// GPU time of each pass of the last frame whose timestamps have arrived.
    pub fn last_pass_times(&self) -> Option<PassTimes> {
        self.timer.as_ref().and_then(GpuTimer::last)
    }

    /// Polls the device without blocking and collects arrived timestamps.
    pub fn collect_gpu_times(&mut self) {
        let _ = self.gpu.device.poll(wgpu::PollType::Poll);
        if let Some(t) = &mut self.timer {
            t.collect();
        }
    }

    /// Waits for all submitted work (and its timestamps) to finish.
    pub fn wait_idle(&mut self) -> Result<(), RenderError> {
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        self.collect_gpu_times();
        Ok(())
    }

    /// Uploads a skinned mesh after validating it.
    pub fn upload_skinned_mesh(
        &mut self,
        desc: &SkinnedMeshDesc<'_>,
    ) -> Result<SkinnedMeshId, RenderError> {
        use wgpu::util::DeviceExt;
        desc.validate()?;
        let device = &self.gpu.device;
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(desc.label),
            contents: bytemuck::cast_slice(desc.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(desc.label),
            contents: bytemuck::cast_slice(desc.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let material_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(desc.label),
            contents: bytemuck::cast_slice(&desc.material.base_color),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let white = [255u8; 4];
        let (w, h, rgba) = match desc.material.texture {
            Some(t) => (t.width, t.height, t.rgba),
            None => (1, 1, &white[..]),
        };
        let texture = device.create_texture_with_data(
            &self.gpu.queue,
            &wgpu::TextureDescriptor {
                label: Some(desc.label),
                size: wgpu::Extent3d {
                    width: w,
                    height: h,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8UnormSrgb,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            rgba,
        );
        let view = texture.create_view(&Default::default());
        let material = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(desc.label),
            layout: &self.material_bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: material_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::Sampler(&self.material_sampler),
                },
            ],
        });
        self.skinned_meshes.push(SkinnedMeshGpu {
            vertices,
            indices,
            index_count: desc.indices.len() as u32,
            joint_count: desc.joint_count,
            material,
        });
        Ok(SkinnedMeshId(self.skinned_meshes.len() as u32 - 1))
    }

    /// Uploads a static world mesh.
    pub fn upload_world_mesh(&mut self, mesh: &WorldMesh) -> Result<WorldMeshId, RenderError> {
        let gpu = self.world_mesh_gpu(mesh)?;
        self.world_meshes.push(gpu);
        Ok(WorldMeshId(self.world_meshes.len() as u32 - 1))
    }

    /// Replaces the world mesh `id` with `mesh` (a level reloaded or edited):
    /// the old buffers are dropped, the id stays valid. On error the old mesh
    /// stays.
    pub fn replace_world_mesh(
        &mut self,
        id: WorldMeshId,
        mesh: &WorldMesh,
    ) -> Result<(), RenderError> {
        if id.0 as usize >= self.world_meshes.len() {
            return Err(RenderError::InvalidMesh {
                mesh: "world".into(),
                reason: format!("no world mesh {}", id.0),
            });
        }
        let gpu = self.world_mesh_gpu(mesh)?;
        self.world_meshes[id.0 as usize] = gpu;
        Ok(())
    }

    fn world_mesh_gpu(&self, mesh: &WorldMesh) -> Result<WorldMeshGpu, RenderError> {
        use wgpu::util::DeviceExt;
        if mesh.vertices.is_empty() || mesh.indices.is_empty() {
            return Err(RenderError::InvalidMesh {
                mesh: "world".into(),
                reason: "no vertices or no indices".into(),
            });
        }
        if mesh.shadow_indices > mesh.indices.len() {
            return Err(RenderError::InvalidMesh {
                mesh: "world".into(),
                reason: format!(
                    "{} shadow-casting indices, the mesh has {}",
                    mesh.shadow_indices,
                    mesh.indices.len()
                ),
            });
        }
        if let Some(&i) = mesh
            .indices
            .iter()
            .find(|&&i| i as usize >= mesh.vertices.len())
        {
            return Err(RenderError::InvalidMesh {
                mesh: "world".into(),
                reason: format!("index {i} past {} vertices", mesh.vertices.len()),
            });
        }
        let device = &self.gpu.device;
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("world vertices"),
            contents: bytemuck::cast_slice(&mesh.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("world indices"),
            contents: bytemuck::cast_slice(&mesh.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        // Triangles grouped by their first vertex's material.
        let mut buckets: [Vec<u32>; Material::ALL.len()] = Default::default();
        for tri in mesh.indices.chunks_exact(3) {
            let number = mesh.vertices[tri[0] as usize].material;
            let material = Material::from_u32(number).ok_or_else(|| RenderError::InvalidMesh {
                mesh: "world".into(),
                reason: format!("vertex {} has no material {number}", tri[0]),
            })?;
            buckets[material as usize].extend_from_slice(tri);
        }
        let mut grouped = Vec::with_capacity(mesh.indices.len());
        let material_ranges = buckets.map(|b| {
            let start = grouped.len() as u32;
            grouped.extend_from_slice(&b);
            start..grouped.len() as u32
        });
        let material_indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("world indices by material"),
            contents: bytemuck::cast_slice(&grouped),
            usage: wgpu::BufferUsages::INDEX,
        });
        Ok(WorldMeshGpu {
            vertices,
            indices,
            shadow_index_count: mesh.shadow_indices as u32,
            material_indices,
            material_ranges,
        })
    }

    fn ensure_targets(&mut self, size: (u32, u32)) {
        if self.targets.as_ref().is_some_and(|t| t.size == size) {
            return;
        }
        let make = |format, label| {
            self.gpu
                .device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d {
                        width: size.0,
                        height: size.1,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: SAMPLE_COUNT,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        self.targets = Some(Targets {
            size,
            msaa: make(self.color_format, "msaa colour"),
            depth: make(DEPTH_FORMAT, "depth"),
        });
    }

    /// Draws `frame` seen by `camera` into `target` (a view of a texture of
    /// `size` in the renderer's colour format) and submits the work.
    /// Instances are grouped by mesh (the frame's instance list is reordered),
    /// one instanced draw per mesh per pass.
    pub fn render(
        &mut self,
        frame: &mut Frame,
        camera: &Camera,
        lighting: &Lighting,
        target: &wgpu::TextureView,
        size: (u32, u32),
    ) -> Result<FrameStats, RenderError> {
        self.gpu.check()?;
        if size.0 == 0 || size.1 == 0 {
            return Err(RenderError::InvalidFrame("target has zero size".into()));
        }
        let t_start = std::time::Instant::now();
        for (i, r) in frame.instances.iter().enumerate() {
            let palette = &frame.palettes
                [r.palette_offset as usize..(r.palette_offset + r.palette_len) as usize];
            if !r.model.is_finite() || !palette.iter().all(Mat4::is_finite) {
                return Err(RenderError::InvalidFrame(format!(
                    "skinned instance {i} (mesh {:?}) has a non-finite model or palette matrix",
                    r.mesh
                )));
            }
            let mesh = self.skinned_meshes.get(r.mesh.0 as usize).ok_or_else(|| {
                RenderError::InvalidFrame(format!("unknown skinned mesh {:?}", r.mesh))
            })?;
            if r.palette_len < mesh.joint_count {
                return Err(RenderError::InvalidFrame(format!(
                    "instance of mesh {:?} has a palette of {} matrices, the skin has {} joints",
                    r.mesh, r.palette_len, mesh.joint_count
                )));
            }
            if r.palette_len > MAX_JOINTS_PER_SKIN {
                return Err(RenderError::InvalidFrame(format!(
                    "palette of {} matrices exceeds {MAX_JOINTS_PER_SKIN}",
                    r.palette_len
                )));
            }
        }
        if let Some(w) = frame
            .worlds
            .iter()
            .find(|w| w.0 as usize >= self.world_meshes.len())
        {
            return Err(RenderError::InvalidFrame(format!(
                "unknown world mesh {w:?}"
            )));
        }
        let palette_bytes = (frame.palettes.len() * size_of::<Mat4>()) as u64;
        let max_binding = self.gpu.device.limits().max_storage_buffer_binding_size;
        if palette_bytes > max_binding {
            return Err(RenderError::InvalidFrame(format!(
                "{palette_bytes} bytes of palettes exceed the device's storage binding limit of {max_binding}"
            )));
        }
        self.collect_gpu_times();
        self.ensure_targets(size);

        // Group instances by mesh and build the instance array.
        frame.instances.sort_unstable_by_key(|r| r.mesh);
        self.scratch_instances.clear();
        self.scratch_draws.clear();
        for r in &frame.instances {
            let index = self.scratch_instances.len() as u32;
            self.scratch_instances.push(InstanceGpu {
                model: r.model.to_cols_array_2d(),
                tint: r.tint,
                palette_offset: r.palette_offset,
                _pad: [0; 3],
            });
            match self.scratch_draws.last_mut() {
                Some((mesh, _, count)) if *mesh == r.mesh => *count += 1,
                _ => self.scratch_draws.push((r.mesh, index, 1)),
            }
        }

        // Uploads: one write each for globals, all palettes, all instances, all lines.
        let device = self.gpu.device.clone();
        let queue = self.gpu.queue.clone();
        let aspect = size.0 as f32 / size.1 as f32;
        let sun_screen = lighting.sun_on_screen(aspect);
        let horizon = lighting.horizon();
        let fog = lighting.fog.unwrap_or(crate::Fog {
            start: 0.0,
            density: 0.0,
        });
        let sky_top = lighting.sky.map_or(lighting.clear_color, |s| s.top);
        let sun_radius = lighting.sky.map_or(0.0, |s| s.sun_radius);
        let globals = Globals {
            view_proj: camera.view_proj(aspect).to_cols_array_2d(),
            light_view_proj: lighting.light_view_proj().to_cols_array_2d(),
            sun_dir: lighting
                .sun_dir
                .normalize_or(Vec3::Y)
                .extend(0.0)
                .to_array(),
            sun_color: lighting.sun_color.extend(1.0).to_array(),
            sky_color: lighting.sky_color.extend(1.0).to_array(),
            ground_color: lighting.ground_color.extend(1.0).to_array(),
            shadow_params: Vec4::new(
                SHADOW_DEPTH_BIAS,
                1.0 / SHADOW_MAP_SIZE as f32,
                if lighting.shadow.is_some() { 1.0 } else { 0.0 },
                0.0,
            )
            .to_array(),
            camera_pos: camera.position.extend(1.0).to_array(),
            fog_color: horizon.extend(fog.density.max(0.0)).to_array(),
            fog_params: [fog.start, 0.0, 0.0, 0.0],
            sky_top: sky_top.extend(1.0).to_array(),
            sun_screen: [sun_screen.x, sun_screen.y, sun_radius, aspect],
        };
        let mut uploaded = size_of::<Globals>() as u64;
        queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
        let instance_bytes = (self.scratch_instances.len() * size_of::<InstanceGpu>()) as u64;
        let grew_p = self.palettes.ensure(&device, palette_bytes);
        let grew_i = self.instances.ensure(&device, instance_bytes);
        if grew_p || grew_i {
            self.skin_bg = Self::make_skin_bg(
                &device,
                &self.skin_bgl,
                &self.palettes.buffer,
                &self.instances.buffer,
            );
        }
        if palette_bytes > 0 {
            queue.write_buffer(
                &self.palettes.buffer,
                0,
                bytemuck::cast_slice(&frame.palettes),
            );
            queue.write_buffer(
                &self.instances.buffer,
                0,
                bytemuck::cast_slice(&self.scratch_instances),
            );
            uploaded += palette_bytes + instance_bytes;
        }
        if !frame.soft.is_empty() {
            let soft_bytes = (frame.soft.len() * size_of::<SoftQuad>()) as u64;
            self.soft.ensure(&device, soft_bytes);
            queue.write_buffer(&self.soft.buffer, 0, bytemuck::cast_slice(&frame.soft));
            uploaded += soft_bytes;
        }
        let draw_lines = frame.show_debug && !frame.lines.is_empty();
        if draw_lines {
            let line_bytes = (frame.lines.len() * size_of::<LineVertex>()) as u64;
            self.lines.ensure(&device, line_bytes);
            queue.write_buffer(&self.lines.buffer, 0, bytemuck::cast_slice(&frame.lines));
            uploaded += line_bytes;
        }

        let t_encode = std::time::Instant::now();
        let record_time = self.timer.as_ref().is_some_and(GpuTimer::can_record);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("frame"),
        });
        let mut draw_calls = 0;
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.shadow_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: if record_time {
                    self.timer.as_ref().map(|t| t.writes(0))
                } else {
                    None
                },
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if lighting.shadow.is_some() {
                pass.set_bind_group(0, &self.globals_bg, &[]);
                pass.set_pipeline(&self.world_shadow_pipeline);
                for w in &frame.worlds {
                    let m = &self.world_meshes[w.0 as usize];
                    if m.shadow_index_count == 0 {
                        continue;
                    }
                    pass.set_vertex_buffer(0, m.vertices.slice(..));
                    pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(0..m.shadow_index_count, 0, 0..1);
                    draw_calls += 1;
                }
                pass.set_pipeline(&self.skinned_shadow_pipeline);
                pass.set_bind_group(2, &self.skin_bg, &[]);
                for &(mesh, first, count) in &self.scratch_draws {
                    let m = &self.skinned_meshes[mesh.0 as usize];
                    pass.set_vertex_buffer(0, m.vertices.slice(..));
                    pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(0..m.index_count, 0, first..first + count);
                    draw_calls += 1;
                }
            }
        }
        {
            let targets = self.targets.as_ref().expect("ensure_targets ran");
            let c = lighting.clear_color;
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("main"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &targets.msaa,
                    depth_slice: None,
                    resolve_target: Some(target),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: f64::from(c.x),
                            g: f64::from(c.y),
                            b: f64::from(c.z),
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Discard,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &targets.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: if record_time {
                    self.timer.as_ref().map(|t| t.writes(1))
                } else {
                    None
                },
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.globals_bg, &[]);
            pass.set_bind_group(1, &self.shadow_bg, &[]);
            for (k, pipeline) in self.world_pipelines.iter().enumerate() {
                for w in &frame.worlds {
                    let m = &self.world_meshes[w.0 as usize];
                    let range = m.material_ranges[k].clone();
                    if range.is_empty() {
                        continue;
                    }
                    pass.set_pipeline(pipeline);
                    pass.set_vertex_buffer(0, m.vertices.slice(..));
                    pass.set_index_buffer(m.material_indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(range, 0, 0..1);
                    draw_calls += 1;
                }
            }
            pass.set_pipeline(&self.skinned_pipeline);
            pass.set_bind_group(2, &self.skin_bg, &[]);
            for &(mesh, first, count) in &self.scratch_draws {
                let m = &self.skinned_meshes[mesh.0 as usize];
                pass.set_bind_group(3, &m.material, &[]);
                pass.set_vertex_buffer(0, m.vertices.slice(..));
                pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..m.index_count, 0, first..first + count);
                draw_calls += 1;
            }
            // The sky last of the opaque things, at the far plane: only the
            // pixels nothing else covered are shaded.
            if lighting.sky.is_some() {
                pass.set_pipeline(&self.sky_pipeline);
                pass.draw(0..3, 0..1);
                draw_calls += 1;
            }
            if !frame.soft.is_empty() {
                pass.set_pipeline(&self.soft_pipeline);
                pass.set_vertex_buffer(0, self.soft.buffer.slice(..));
                pass.draw(0..6, 0..frame.soft.len() as u32);
                draw_calls += 1;
            }
            if draw_lines {
                pass.set_pipeline(&self.line_pipeline);
                pass.set_vertex_buffer(0, self.lines.buffer.slice(..));
                pass.draw(0..frame.lines.len() as u32, 0..1);
                draw_calls += 1;
            }
        }
        if record_time && let Some(t) = &self.timer {
            t.resolve(&mut encoder);
        }
        let commands = encoder.finish();
        let t_submit = std::time::Instant::now();
        queue.submit([commands]);
        if record_time && let Some(t) = &mut self.timer {
            t.after_submit();
        }
        self.gpu.check()?;
        Ok(FrameStats {
            bytes_uploaded: uploaded,
            instances: self.scratch_instances.len() as u32,
            draw_calls,
            cpu_upload: t_encode - t_start,
            cpu_encode: t_submit - t_encode,
            cpu_submit: t_submit.elapsed(),
        })
    }

    /// Skins `vertices` with `palette` on the GPU using the same WGSL
    /// function as the vertex shader (`skin_vertices` compute entry point)
    /// and reads back `(position, normal)` per vertex. For tests.
    pub fn skin_on_gpu(
        &mut self,
        vertices: &[SkinnedVertex],
        palette: &[Mat4],
    ) -> Result<Vec<(Vec3, Vec3)>, RenderError> {
        use wgpu::util::DeviceExt;
        if vertices.is_empty() {
            return Ok(Vec::new());
        }
        if palette.is_empty() {
            return Err(RenderError::InvalidFrame("empty palette".into()));
        }
        if let Some((i, j)) = vertices.iter().enumerate().find_map(|(i, v)| {
            v.joints
                .iter()
                .find(|&&j| usize::from(j) >= palette.len())
                .map(|&j| (i, j))
        }) {
            return Err(RenderError::InvalidFrame(format!(
                "vertex {i} uses joint {j}, the palette has {} matrices",
                palette.len()
            )));
        }
        let device = self.gpu.device.clone();
        let input: Vec<SkinInputGpu> = vertices
            .iter()
            .map(|v| SkinInputGpu {
                position: [v.position[0], v.position[1], v.position[2], 1.0],
                normal: [v.normal[0], v.normal[1], v.normal[2], 0.0],
                joints: v.joints.map(u32::from),
                weights: v.weights,
            })
            .collect();
        let n = vertices.len() as u32;
        let out_bytes = u64::from(n) * 32;
        let palette_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skin palette"),
            contents: bytemuck::cast_slice(palette),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let in_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skin in"),
            contents: bytemuck::cast_slice(&input),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skin params"),
            contents: bytemuck::cast_slice(&[n, 0, 0, 0]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let out_buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skin out"),
            size: out_bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skin readback"),
            size: out_bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let palette_bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skin palette"),
            layout: &self.palette_only_bgl,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: palette_buf.as_entire_binding(),
            }],
        });
        let io_bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skin io"),
            layout: &self.compute_bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: in_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: out_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: params.as_entire_binding(),
                },
            ],
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.skin_compute_pipeline);
            pass.set_bind_group(2, &palette_bg, &[]);
            pass.set_bind_group(3, &io_bg, &[]);
            pass.dispatch_workgroups(n.div_ceil(SKIN_WORKGROUP), 1, 1);
        }
        encoder.copy_buffer_to_buffer(&out_buf, 0, &readback, 0, out_bytes);
        self.gpu.queue.submit([encoder.finish()]);
        let data = map_and_read(&device, &readback)?;
        let floats: &[f32] = bytemuck::cast_slice(&data);
        Ok(floats
            .chunks_exact(8)
            .map(|c| (Vec3::new(c[0], c[1], c[2]), Vec3::new(c[4], c[5], c[6])))
            .collect())
    }
}
