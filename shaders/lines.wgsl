// Debug lines and points, drawn on top of the scene (no depth test).
// Binds the same globals buffer as the lit passes; only view_proj is read.

struct LineGlobals {
    view_proj: mat4x4<f32>,
};
@group(0) @binding(0) var<uniform> line_globals: LineGlobals;

struct LineIn {
    @location(0) position: vec3<f32>,
    @location(1) color: vec4<f32>,
};

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_main(v: LineIn) -> LineOut {
    var out: LineOut;
    out.clip = line_globals.view_proj * vec4<f32>(v.position, 1.0);
    out.color = v.color;
    return out;
}

@fragment
fn fs_main(in: LineOut) -> @location(0) vec4<f32> {
    return in.color;
}
