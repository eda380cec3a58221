// Soft round quads, instanced: contact shadows under feet (lying on the
// floor, dark) and dust puffs (facing the camera, light). Each instance is
// a centre and two half-axes spanning its quad; the fragment fades from the
// centre to the rim. Output is premultiplied alpha, blended over the scene
// without writing depth. Prepended by `common.wgsl`.

struct SoftIn {
    @location(0) center: vec3<f32>,
    @location(1) axis_u: vec3<f32>,
    @location(2) axis_v: vec3<f32>,
    // Straight (not premultiplied) RGBA; alpha is the centre's opacity.
    @location(3) color: vec4<f32>,
};

struct SoftOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
    @location(2) fog: f32,
};

@vertex
fn vs_main(v: SoftIn, @builtin(vertex_index) i: u32) -> SoftOut {
    // Two triangles: corners (-1,-1) (1,-1) (1,1), (-1,-1) (1,1) (-1,1).
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let uv = corners[i];
    let p = v.center + v.axis_u * uv.x + v.axis_v * uv.y;
    var out: SoftOut;
    out.clip = globals.view_proj * vec4<f32>(p, 1.0);
    out.uv = uv;
    out.color = v.color;
    out.fog = fog_amount(p);
    return out;
}

@fragment
fn fs_main(in: SoftOut) -> @location(0) vec4<f32> {
    let r = length(in.uv);
    let k = 1.0 - smoothstep(0.15, 1.0, r);
    let a = in.color.a * k * k;
    let rgb = apply_fog(in.color.rgb, in.fog);
    return vec4<f32>(rgb * a, a);
}
