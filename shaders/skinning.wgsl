// The ONE skinning function, shared by the skinned vertex shader and the
// `skin_vertices` compute entry point, so the GPU-vs-CPU test checks exactly
// what the renderer draws. The renderer prepends this file to `skinned.wgsl`.

// All bone palettes of a frame, instance after instance (model x inverse bind).
@group(2) @binding(0) var<storage, read> palettes: array<mat4x4<f32>>;

// Linear blend of four palette matrices starting at `palette_offset`.
fn skin_matrix(palette_offset: u32, joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
    return palettes[palette_offset + joints.x] * weights.x
        + palettes[palette_offset + joints.y] * weights.y
        + palettes[palette_offset + joints.z] * weights.z
        + palettes[palette_offset + joints.w] * weights.w;
}

// Transforms a normal by the inverse-transpose of `m`'s upper 3x3 (correct
// under non-uniform scale). The cofactor matrix equals det * inverse-transpose,
// so it is used with the sign of det and normalised: no division by det.
fn skin_normal(m: mat4x4<f32>, n: vec3<f32>) -> vec3<f32> {
    let c0 = m[0].xyz;
    let c1 = m[1].xyz;
    let c2 = m[2].xyz;
    let cofactor = mat3x3<f32>(cross(c1, c2), cross(c2, c0), cross(c0, c1));
    let det = dot(c0, cross(c1, c2));
    let v = cofactor * n * select(1.0, -1.0, det < 0.0);
    let len = length(v);
    return select(n, v / len, len > 1e-20);
}
