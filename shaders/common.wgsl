// Shared by every lit pass: the per-frame globals, the sun's shadow map, the
// lighting model (directional sun + hemispheric ambient, 4-tap PCF shadow)
// and distance fog. The renderer prepends this file to `skinned.wgsl`,
// `world.wgsl`, `sky.wgsl` and `soft.wgsl`.

struct Globals {
    view_proj: mat4x4<f32>,
    light_view_proj: mat4x4<f32>,
    // xyz: unit direction from the scene towards the sun.
    sun_dir: vec4<f32>,
    sun_color: vec4<f32>,
    sky_color: vec4<f32>,
    ground_color: vec4<f32>,
    // x: depth bias, y: shadow-map texel size, z: 1 when shadows are on.
    shadow_params: vec4<f32>,
    // xyz: the camera's position in world space.
    camera_pos: vec4<f32>,
    // rgb: what distant things fade to (the sky at the horizon);
    // a: fog density per metre past the start (0: no fog).
    fog_color: vec4<f32>,
    // x: distance from the camera where fog starts, metres.
    fog_params: vec4<f32>,
    // rgb: the sky's colour at the top of the screen.
    sky_top: vec4<f32>,
    // xy: the sun disc's centre in NDC; z: its radius in NDC-y units;
    // w: the target's aspect ratio (width / height).
    sun_screen: vec4<f32>,
};

@group(0) @binding(0) var<uniform> globals: Globals;
@group(1) @binding(0) var shadow_map: texture_depth_2d;
@group(1) @binding(1) var shadow_sampler: sampler_comparison;

// Fraction of sunlight reaching `world_pos` (1 = fully lit).
fn sun_visibility(world_pos: vec3<f32>) -> f32 {
    if (globals.shadow_params.z < 0.5) {
        return 1.0;
    }
    let clip = globals.light_view_proj * vec4<f32>(world_pos, 1.0);
    let ndc = clip.xyz / clip.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    let depth = ndc.z - globals.shadow_params.x;
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || depth > 1.0) {
        return 1.0;
    }
    // Four bilinear comparison taps half a texel apart: a 3x3-texel tent
    // filter for the cost of four samples.
    let h = 0.5 * globals.shadow_params.y;
    let sum = textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-h, -h), depth)
        + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(h, -h), depth)
        + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-h, h), depth)
        + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(h, h), depth);
    return sum * 0.25;
}

// Lambert sun with shadow plus a sky/ground hemisphere ambient.
fn shade(world_pos: vec3<f32>, normal: vec3<f32>, albedo: vec3<f32>) -> vec3<f32> {
    let n = normalize(normal);
    let l = normalize(globals.sun_dir.xyz);
    let n_dot_l = max(dot(n, l), 0.0);
    let hemi = mix(globals.ground_color.rgb, globals.sky_color.rgb, 0.5 * n.y + 0.5);
    // Faces turned away from the sun skip the shadow lookup.
    var sun = vec3<f32>(0.0);
    if (n_dot_l > 0.0) {
        sun = globals.sun_color.rgb * n_dot_l * sun_visibility(world_pos);
    }
    return albedo * (hemi + sun);
}

// How much of the horizon colour covers `world_pos` (exponential fog past
// the start distance), 0..1. Computed per vertex and interpolated: the
// world's faces are at most a few metres across, and per pixel it was a
// measurable share of a software-rendered frame.
fn fog_amount(world_pos: vec3<f32>) -> f32 {
    let d = max(distance(world_pos, globals.camera_pos.xyz) - globals.fog_params.x, 0.0);
    return 1.0 - exp(-d * globals.fog_color.a);
}

// Fades `color` towards the horizon colour by `amount` (see `fog_amount`).
fn apply_fog(color: vec3<f32>, amount: f32) -> vec3<f32> {
    return mix(color, globals.fog_color.rgb, amount);
}
