// Static world meshes (tiles, slopes, ladders, background layers): vertices
// already in world space with normals and colours. Prepended by `common.wgsl`.

struct WorldIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
};

struct WorldOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world_pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
};

@vertex
fn vs_main(v: WorldIn) -> WorldOut {
    var out: WorldOut;
    out.clip = globals.view_proj * vec4<f32>(v.position, 1.0);
    out.world_pos = v.position;
    out.normal = v.normal;
    out.color = v.color;
    return out;
}

@vertex
fn vs_shadow(v: WorldIn) -> @builtin(position) vec4<f32> {
    return globals.light_view_proj * vec4<f32>(v.position, 1.0);
}

@fragment
fn fs_main(in: WorldOut) -> @location(0) vec4<f32> {
    return vec4<f32>(shade(in.world_pos, in.normal, in.color.rgb), in.color.a);
}
