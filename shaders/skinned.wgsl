// Skinned meshes: instanced draw, each instance with its own palette offset
// and model transform. Prepended by `common.wgsl` and `skinning.wgsl`.

struct Instance {
    model: mat4x4<f32>,
    tint: vec4<f32>,
    palette_offset: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};
@group(2) @binding(1) var<storage, read> instances: array<Instance>;

struct Material {
    base_color: vec4<f32>,
};
@group(3) @binding(0) var<uniform> material: Material;
@group(3) @binding(1) var base_texture: texture_2d<f32>;
@group(3) @binding(2) var base_sampler: sampler;

struct SkinnedIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) joints: vec4<u32>,
    @location(4) weights: vec4<f32>,
    @location(5) color: vec4<f32>,
};

struct SkinnedOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world_pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) color: vec4<f32>,
    @location(4) fog: f32,
};

@vertex
fn vs_main(v: SkinnedIn, @builtin(instance_index) instance_index: u32) -> SkinnedOut {
    let inst = instances[instance_index];
    let m = inst.model * skin_matrix(inst.palette_offset, v.joints, v.weights);
    let world = m * vec4<f32>(v.position, 1.0);
    var out: SkinnedOut;
    out.clip = globals.view_proj * world;
    out.world_pos = world.xyz;
    out.normal = skin_normal(m, v.normal);
    out.uv = v.uv;
    out.color = v.color * inst.tint;
    out.fog = fog_amount(world.xyz);
    return out;
}

@vertex
fn vs_shadow(v: SkinnedIn, @builtin(instance_index) instance_index: u32) -> @builtin(position) vec4<f32> {
    let inst = instances[instance_index];
    let m = inst.model * skin_matrix(inst.palette_offset, v.joints, v.weights);
    return globals.light_view_proj * (m * vec4<f32>(v.position, 1.0));
}

@fragment
fn fs_main(in: SkinnedOut) -> @location(0) vec4<f32> {
    let albedo = material.base_color * textureSample(base_texture, base_sampler, in.uv) * in.color;
    let lit = shade(in.world_pos, in.normal, albedo.rgb);
    return vec4<f32>(apply_fog(lit, in.fog), albedo.a);
}

// GPU skinning readback for tests: skins `params.vertex_count` vertices with
// the palette starting at `params.palette_offset`, using `skin_matrix` and
// `skin_normal` exactly as `vs_main` does (without a model transform).
struct SkinParams {
    vertex_count: u32,
    palette_offset: u32,
    _pad0: u32,
    _pad1: u32,
};
struct SkinInput {
    position: vec4<f32>,
    normal: vec4<f32>,
    joints: vec4<u32>,
    weights: vec4<f32>,
};
struct SkinOutput {
    position: vec4<f32>,
    normal: vec4<f32>,
};
@group(3) @binding(3) var<storage, read> skin_in: array<SkinInput>;
@group(3) @binding(4) var<storage, read_write> skin_out: array<SkinOutput>;
@group(3) @binding(5) var<uniform> skin_params: SkinParams;

@compute @workgroup_size(64)
fn skin_vertices(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= skin_params.vertex_count) {
        return;
    }
    let v = skin_in[i];
    let m = skin_matrix(skin_params.palette_offset, v.joints, v.weights);
    var out: SkinOutput;
    out.position = m * vec4<f32>(v.position.xyz, 1.0);
    out.normal = vec4<f32>(skin_normal(m, v.normal.xyz), 0.0);
    skin_out[i] = out;
}
