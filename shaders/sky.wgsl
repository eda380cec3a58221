// The sky: one full-screen triangle on the far plane, drawn after
// everything opaque in the main pass (depth test less-or-equal against the
// cleared depth, no write: only uncovered pixels are shaded), a gradient from the horizon colour (the fog's, so distant
// things melt into it) to the top colour, and the sun's disc with a glow.
// The disc sits on the screen in the direction the light comes from (the
// sun direction's x and y), so every shadow points away from it; the camera
// only translates, so a sun infinitely far away keeps its place on the
// screen. Prepended by `common.wgsl`.

struct SkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> SkyOut {
    // (-1, -1), (3, -1), (-1, 3): one triangle covering the screen.
    let x = f32((i << 1u) & 2u) * 2.0 - 1.0;
    let y = f32(i & 2u) * 2.0 - 1.0;
    var out: SkyOut;
    out.clip = vec4<f32>(x, y, 1.0, 1.0);
    out.ndc = vec2<f32>(x, y);
    return out;
}

@fragment
fn fs_main(in: SkyOut) -> @location(0) vec4<f32> {
    let up = clamp(in.ndc.y * 0.5 + 0.5, 0.0, 1.0);
    var c = mix(globals.fog_color.rgb, globals.sky_top.rgb, smoothstep(0.3, 1.0, up));
    let sun = globals.sun_screen;
    let d = length(vec2<f32>((in.ndc.x - sun.x) * sun.w, in.ndc.y - sun.y));
    let r = sun.z;
    let glow = 0.45 * exp(-d / (2.0 * r)) + 0.18 * exp(-d / (9.0 * r));
    c += globals.sun_color.rgb * glow;
    let disc = 1.0 - smoothstep(0.9 * r, r, d);
    c = mix(c, vec3<f32>(1.6, 1.5, 1.25), disc);
    return vec4<f32>(c, 1.0);
}
