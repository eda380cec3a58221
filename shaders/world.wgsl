// Static world meshes (tiles, caps, slopes, planks, ladders, backdrop
// silhouettes): vertices already in world space with normals, a tint and a
// material number (the renderer groups triangles by it). Each material is a
// procedural pattern computed from the world position (no textures),
// projected on the plane the face mostly lies in, with its own fragment
// entry point. Prepended by `common.wgsl`.

struct WorldIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
    @location(3) material: u32,
};

struct WorldOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world_pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
    @location(3) @interpolate(flat) material: u32,
    @location(4) fog: f32,
};

@vertex
fn vs_main(v: WorldIn) -> WorldOut {
    var out: WorldOut;
    out.clip = globals.view_proj * vec4<f32>(v.position, 1.0);
    out.world_pos = v.position;
    out.normal = v.normal;
    out.color = v.color;
    out.material = v.material;
    out.fog = fog_amount(v.position);
    return out;
}

@vertex
fn vs_shadow(v: WorldIn) -> @builtin(position) vec4<f32> {
    return globals.light_view_proj * vec4<f32>(v.position, 1.0);
}

// An integer hash (xorshift-multiply finaliser) of a lattice cell, in 0..1.
fn hash_u(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn hash2(c: vec2<i32>) -> f32 {
    let h = hash_u(bitcast<u32>(c.x) * 1973u + hash_u(bitcast<u32>(c.y)));
    return f32(h >> 8u) / 16777216.0;
}

// Value noise: smooth interpolation of hashed lattice values, 0..1.
fn value_noise(p: vec2<f32>) -> f32 {
    let i = vec2<i32>(floor(p));
    let f = fract(p);
    let u = f * f * (3.0 - 2.0 * f);
    let a = hash2(i);
    let b = hash2(i + vec2<i32>(1, 0));
    let c = hash2(i + vec2<i32>(0, 1));
    let d = hash2(i + vec2<i32>(1, 1));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}

// Two octaves of value noise, 0..1. Two, not more: on a software
// rasteriser every octave is a visible share of the frame (BENCHMARKS.md).
fn fbm(p: vec2<f32>) -> f32 {
    return 0.62 * value_noise(p) + 0.38 * value_noise(p * 2.63 + vec2<f32>(17.1, 3.7));
}

// The face's own 2D coordinates: (x, z) on tops and bottoms, (x, y) on the
// front and back, (z, y) on the ends. Horizontal runs along the first
// coordinate, so boards and courses line up with the level.
fn plane_coords(p: vec3<f32>, n: vec3<f32>) -> vec2<f32> {
    let a = abs(n);
    if (a.y >= a.x && a.y >= a.z) {
        return p.xz;
    }
    if (a.z >= a.x) {
        return p.xy;
    }
    return p.zy;
}

// Masonry: rows `course` high of blocks `block` long, every other row
// shifted by half a block. Returns (mortar 0..1, the block's own hash).
fn masonry(uv: vec2<f32>, block: f32, course: f32, joint: f32) -> vec2<f32> {
    let row = floor(uv.y / course);
    let shifted = uv.x / block + 0.5 * (row - 2.0 * floor(row * 0.5));
    let col = floor(shifted);
    let fx = (shifted - col) * block;
    let fy = (uv.y / course - row) * course;
    let edge = min(min(fx, block - fx), min(fy, course - fy));
    let mortar = 1.0 - smoothstep(joint * 0.5, joint, edge);
    return vec2<f32>(mortar, hash2(vec2<i32>(i32(col), i32(row))));
}

fn grass(p: vec3<f32>, n: vec3<f32>, tint: vec3<f32>) -> vec3<f32> {
    let uv = plane_coords(p, n);
    let blotch = fbm(uv * 1.3);
    // Blades: fine speckle seen from above, upright streaks on the cap's
    // front and back.
    var stretch = vec2<f32>(38.0, 38.0);
    if (abs(n.y) < 0.5) {
        stretch = vec2<f32>(38.0, 7.0);
    }
    let blades = value_noise(uv * stretch);
    let dry = smoothstep(0.55, 0.8, value_noise(uv * 0.35 + vec2<f32>(40.0, 11.0)));
    var c = tint * (0.72 + 0.5 * blotch) * (0.82 + 0.32 * blades);
    c = mix(c, c * vec3<f32>(1.35, 1.15, 0.55), dry * 0.6);
    return c;
}

fn earth(p: vec3<f32>, n: vec3<f32>, tint: vec3<f32>) -> vec3<f32> {
    let uv = plane_coords(p, n);
    let warp = value_noise(uv * 0.9);
    let strata = 0.5 + 0.5 * sin((uv.y + 0.35 * warp) * 13.0);
    var c = tint * (0.72 + 0.18 * strata + 0.3 * fbm(uv * 3.1));
    // Pebbles: one in some cells of a 12 cm lattice.
    let cell = floor(uv * 8.0);
    let h = hash2(vec2<i32>(cell));
    let centre = cell + vec2<f32>(0.3 + 0.4 * fract(h * 7.0), 0.3 + 0.4 * fract(h * 13.0));
    let d = length(uv * 8.0 - centre);
    let pebble = (1.0 - smoothstep(0.16, 0.24, d)) * step(0.8, h);
    c = mix(c, vec3<f32>(0.30, 0.27, 0.24) * (0.8 + 0.4 * fract(h * 31.0)), pebble * 0.8);
    return c;
}

fn stone(p: vec3<f32>, n: vec3<f32>, tint: vec3<f32>) -> vec3<f32> {
    let uv = plane_coords(p, n);
    let m = masonry(uv, 0.5, 0.25, 0.025);
    let weather = fbm(uv * 2.7);
    var c = tint * (0.8 + 0.25 * m.y) * (0.75 + 0.45 * weather);
    // Moss where the weathering noise is high, on tops only.
    let moss = smoothstep(0.62, 0.78, value_noise(uv * 0.9 + vec2<f32>(7.0, 3.0))) * step(0.7, n.y);
    c = mix(c, vec3<f32>(0.20, 0.30, 0.12), moss * 0.7);
    return mix(c, tint * 0.35, m.x);
}

fn brick(p: vec3<f32>, n: vec3<f32>, tint: vec3<f32>) -> vec3<f32> {
    let uv = plane_coords(p, n);
    let m = masonry(uv, 0.25, 0.125, 0.014);
    let grain = value_noise(uv * 30.0);
    let c = tint * (0.7 + 0.45 * m.y) * (0.88 + 0.2 * grain);
    return mix(c, vec3<f32>(0.55, 0.52, 0.47), m.x);
}

fn wood(p: vec3<f32>, n: vec3<f32>, tint: vec3<f32>) -> vec3<f32> {
    let uv = plane_coords(p, n);
    // Boards 10 cm wide along x, each with its own shade and grain phase.
    let board = floor(uv.y / 0.1);
    let h = hash2(vec2<i32>(i32(board), 7));
    let grain = value_noise(vec2<f32>(uv.x * 1.7 + h * 13.0, uv.y * 90.0));
    let rings = 0.5 + 0.5 * sin(uv.y * 260.0 + grain * 6.0 + uv.x * 0.8);
    // Seams between boards (about 8 mm) and board ends every 1.2 m, staggered.
    let fy = fract(uv.y / 0.1);
    let seam = 1.0 - smoothstep(0.0, 0.08, min(fy, 1.0 - fy));
    let fx = fract(uv.x / 1.2 + h);
    let butt = 1.0 - smoothstep(0.0, 0.006, min(fx, 1.0 - fx));
    let c = tint * (0.78 + 0.3 * h) * (0.85 + 0.2 * rings);
    return c * (1.0 - 0.55 * max(seam, butt));
}

fn metal(p: vec3<f32>, n: vec3<f32>, tint: vec3<f32>) -> vec3<f32> {
    let uv = plane_coords(p, n);
    let brushed = value_noise(vec2<f32>(uv.x * 3.0, uv.y * 140.0));
    return tint * (0.85 + 0.25 * brushed);
}

// One fragment entry point per material: the renderer draws each
// material's triangles with its own pipeline, so a fragment runs only its
// own pattern (a software rasteriser runs every branch of a switch whose
// lanes may differ, paying for all six patterns on every pixel).
fn finish(in: WorldOut, albedo: vec3<f32>) -> vec4<f32> {
    let lit = shade(in.world_pos, in.normal, albedo);
    return vec4<f32>(apply_fog(lit, in.fog), in.color.a);
}

@fragment
fn fs_plain(in: WorldOut) -> @location(0) vec4<f32> {
    return finish(in, in.color.rgb);
}

@fragment
fn fs_grass(in: WorldOut) -> @location(0) vec4<f32> {
    return finish(in, grass(in.world_pos, in.normal, in.color.rgb));
}

@fragment
fn fs_stone(in: WorldOut) -> @location(0) vec4<f32> {
    return finish(in, stone(in.world_pos, in.normal, in.color.rgb));
}

@fragment
fn fs_earth(in: WorldOut) -> @location(0) vec4<f32> {
    return finish(in, earth(in.world_pos, in.normal, in.color.rgb));
}

@fragment
fn fs_brick(in: WorldOut) -> @location(0) vec4<f32> {
    return finish(in, brick(in.world_pos, in.normal, in.color.rgb));
}

@fragment
fn fs_wood(in: WorldOut) -> @location(0) vec4<f32> {
    return finish(in, wood(in.world_pos, in.normal, in.color.rgb));
}

@fragment
fn fs_metal(in: WorldOut) -> @location(0) vec4<f32> {
    return finish(in, metal(in.world_pos, in.normal, in.color.rgb));
}

// Backdrop silhouettes: unlit, only fogged.
@fragment
fn fs_silhouette(in: WorldOut) -> @location(0) vec4<f32> {
    return vec4<f32>(apply_fog(in.color.rgb, in.fog), in.color.a);
}
