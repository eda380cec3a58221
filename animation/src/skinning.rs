//! CPU reference skinning (linear blend skinning with up to four influences
//! per vertex) and the bounding box of a skinned mesh.
//!
//! The GPU vertex shader does the same work every frame; this module is the
//! reference it is tested against, and what the game uses for bounds and
//! picking. Each vertex blends its joints' palette matrices by weight,
//! transforms the position by the blended matrix, and the normal by the
//! inverse transpose of the blended matrix's 3×3 part, then normalizes it.
//!
//! Weights are normalized by their sum per vertex (glTF requires them to sum
//! to one; renormalizing makes quantized weights exact). Influences with a
//! weight of zero are ignored, whatever their joint index.

use glam::{Mat3, Mat4, Vec3, Vec4};
use thiserror::Error;

/// Influences per vertex, as in glTF's `JOINTS_0` / `WEIGHTS_0` and the GPU
/// vertex layout; more would need a second attribute set for little visual gain.
pub const MAX_INFLUENCES: usize = 4;

/// A vertex whose weights sum to at most this is refused: it is bound to no
/// joint, and dividing by the sum would blow rounding noise up into geometry.
pub const MIN_WEIGHT_SUM: f32 = 1e-6;

/// Why a mesh could not be skinned. Outputs may be partly written on error.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SkinningError {
    /// An input or output list differs in length from the positions.
    #[error("{what} has {found} entries, expected {expected} (one per vertex)")]
    LengthMismatch {
        /// Which list.
        what: &'static str,
        /// Number of vertices.
        expected: usize,
        /// Number of entries found.
        found: usize,
    },
    /// A vertex names a joint outside the palette with a non-zero weight.
    #[error("vertex {vertex} uses joint {joint}, but the palette has {palette_len} matrices")]
    JointOutOfRange {
        /// Index of the vertex.
        vertex: usize,
        /// The joint index it names.
        joint: u16,
        /// Length of the palette.
        palette_len: usize,
    },
    /// A vertex has a negative or non-finite weight, or weights summing to
    /// (almost) zero.
    #[error("vertex {vertex} has invalid weights {weights:?}")]
    BadWeights {
        /// Index of the vertex.
        vertex: usize,
        /// Its four weights.
        weights: [f32; 4],
    },
    /// There are no vertices to take bounds of.
    #[error("mesh has no vertices")]
    Empty,
}

/// The blended skinning matrix of one vertex.
#[inline]
fn blended_matrix(
    palette: &[Mat4],
    vertex: usize,
    joints: [u16; 4],
    weights: [f32; 4],
) -> Result<Mat4, SkinningError> {
    let valid = weights.iter().all(|w| w.is_finite() && *w >= 0.0);
    let sum: f32 = weights.iter().sum();
    if !valid || sum <= MIN_WEIGHT_SUM || !sum.is_finite() {
        return Err(SkinningError::BadWeights { vertex, weights });
    }
    let inv = 1.0 / sum;
    let mut cols = [Vec4::ZERO; 4];
    for (&joint, &w) in joints.iter().zip(&weights) {
        if w == 0.0 {
            continue;
        }
        let m = palette
            .get(joint as usize)
            .ok_or(SkinningError::JointOutOfRange {
                vertex,
                joint,
                palette_len: palette.len(),
            })?;
        let w = w * inv;
        cols[0] += m.x_axis * w;
        cols[1] += m.y_axis * w;
        cols[2] += m.z_axis * w;
        cols[3] += m.w_axis * w;
    }
    Ok(Mat4::from_cols(cols[0], cols[1], cols[2], cols[3]))
}

/// Transforms a normal by the inverse transpose of `m`'s 3×3 part and
/// normalizes it.
///
/// Uses the cofactor matrix (the inverse transpose times the determinant)
/// with the determinant's sign, so no division happens and a singular matrix
/// (a joint scaled to zero) still gives a finite result; a normal that
/// collapses to zero length comes out as zero.
#[inline]
fn transform_normal(m: &Mat3, n: Vec3) -> Vec3 {
    let (c0, c1, c2) = (m.x_axis, m.y_axis, m.z_axis);
    let cofactor = Mat3::from_cols(c1.cross(c2), c2.cross(c0), c0.cross(c1));
    let sign = if m.determinant() < 0.0 { -1.0 } else { 1.0 };
    (cofactor * n * sign).normalize_or_zero()
}

/// Skins a mesh on the CPU.
///
/// `palette` holds one matrix per joint (see [`crate::palette::palette`]);
/// `positions` and `normals` are in bind space; `joints` and `weights` give up
/// to [`MAX_INFLUENCES`] influences per vertex. `normals` and `out_normals`
/// may both be empty for a mesh without normals; every other list has one
/// entry per vertex. Skinned positions and unit normals are written to the
/// outputs, in model space. Allocates nothing.
pub fn skin(
    palette: &[Mat4],
    positions: &[Vec3],
    normals: &[Vec3],
    joints: &[[u16; 4]],
    weights: &[[f32; 4]],
    out_positions: &mut [Vec3],
    out_normals: &mut [Vec3],
) -> Result<(), SkinningError> {
    let n = positions.len();
    check_len("joints", joints.len(), n)?;
    check_len("weights", weights.len(), n)?;
    check_len("output positions", out_positions.len(), n)?;
    let with_normals = !(normals.is_empty() && out_normals.is_empty());
    if with_normals {
        check_len("normals", normals.len(), n)?;
        check_len("output normals", out_normals.len(), n)?;
    }
    for v in 0..n {
        let m = blended_matrix(palette, v, joints[v], weights[v])?;
        out_positions[v] = m.transform_point3(positions[v]);
        if with_normals {
            out_normals[v] = transform_normal(&Mat3::from_mat4(m), normals[v]);
        }
    }
    Ok(())
}

/// The axis-aligned bounding box `(min, max)` of the skinned positions, in
/// model space, without writing them anywhere.
///
/// Same inputs and checks as [`skin`]; an empty mesh is an error.
pub fn skinned_bounds(
    palette: &[Mat4],
    positions: &[Vec3],
    joints: &[[u16; 4]],
    weights: &[[f32; 4]],
) -> Result<(Vec3, Vec3), SkinningError> {
    let n = positions.len();
    if n == 0 {
        return Err(SkinningError::Empty);
    }
    check_len("joints", joints.len(), n)?;
    check_len("weights", weights.len(), n)?;
    let mut lo = Vec3::INFINITY;
    let mut hi = Vec3::NEG_INFINITY;
    for v in 0..n {
        let p = blended_matrix(palette, v, joints[v], weights[v])?.transform_point3(positions[v]);
        lo = lo.min(p);
        hi = hi.max(p);
    }
    Ok((lo, hi))
}

fn check_len(what: &'static str, found: usize, expected: usize) -> Result<(), SkinningError> {
    if found == expected {
        Ok(())
    } else {
        Err(SkinningError::LengthMismatch {
            what,
            expected,
            found,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;
    use proptest::prelude::*;

    #[test]
    fn single_joint_rotating_90_degrees_moves_point_and_normal() {
        // Joint at the origin turns 90° about Z: x goes to y.
        let palette = [Mat4::from_rotation_z(90f32.to_radians())];
        let mut p = [Vec3::ZERO];
        let mut n = [Vec3::ZERO];
        skin(
            &palette,
            &[Vec3::new(2.0, 0.0, 0.0)],
            &[Vec3::X],
            &[[0; 4]],
            &[[1.0, 0.0, 0.0, 0.0]],
            &mut p,
            &mut n,
        )
        .unwrap();
        assert!(p[0].abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-6), "{}", p[0]);
        assert!(n[0].abs_diff_eq(Vec3::Y, 1e-6), "{}", n[0]);
    }

    #[test]
    fn two_joints_half_and_half_average_the_transforms() {
        // Joint 0 stays, joint 1 lifts by 2 m: a 50/50 vertex lifts by 1 m.
        let palette = [
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0)),
        ];
        let mut p = [Vec3::ZERO];
        let mut n = [Vec3::ZERO];
        skin(
            &palette,
            &[Vec3::X],
            &[Vec3::Z],
            &[[0, 1, 0, 0]],
            &[[0.5, 0.5, 0.0, 0.0]],
            &mut p,
            &mut n,
        )
        .unwrap();
        assert!(p[0].abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-6));
        assert!(n[0].abs_diff_eq(Vec3::Z, 1e-6));
        // Unnormalized weights 2:2 give the same result.
        skin(
            &palette,
            &[Vec3::X],
            &[Vec3::Z],
            &[[0, 1, 0, 0]],
            &[[2.0, 2.0, 0.0, 0.0]],
            &mut p,
            &mut n,
        )
        .unwrap();
        assert!(p[0].abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-6));
    }

    #[test]
    fn non_uniform_scale_keeps_normals_perpendicular_to_the_surface() {
        // A 45° slope (the plane x + y = 0 with normal (1, 1, 0)/√2) stretched
        // by 2 along X becomes the plane x/2 + y = 0, whose normal is
        // (1/2, 1, 0) normalized = (1, 2, 0)/√5 — not the naively scaled (2, 1, 0).
        let palette = [Mat4::from_scale(Vec3::new(2.0, 1.0, 1.0))];
        let normal = Vec3::new(1.0, 1.0, 0.0).normalize();
        let mut p = [Vec3::ZERO];
        let mut n = [Vec3::ZERO];
        skin(
            &palette,
            &[Vec3::new(1.0, -1.0, 0.0)],
            &[normal],
            &[[0; 4]],
            &[[1.0, 0.0, 0.0, 0.0]],
            &mut p,
            &mut n,
        )
        .unwrap();
        let expect = Vec3::new(1.0, 2.0, 0.0) / 5f32.sqrt();
        assert!(n[0].abs_diff_eq(expect, 1e-6), "{}", n[0]);
        // The skinned tangent of the surface stays perpendicular to the skinned normal.
        let tangent = palette[0].transform_vector3(Vec3::new(1.0, -1.0, 0.0));
        assert!(tangent.dot(n[0]).abs() < 1e-6);
        assert!(p[0].abs_diff_eq(Vec3::new(2.0, -1.0, 0.0), 1e-6));
    }

    #[test]
    fn mirroring_keeps_normals_pointing_outward() {
        // A mirror in X flips the surface; its outward normal +X must become -X.
        let palette = [Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0))];
        let mut p = [Vec3::ZERO];
        let mut n = [Vec3::ZERO];
        skin(
            &palette,
            &[Vec3::X],
            &[Vec3::X],
            &[[0; 4]],
            &[[1.0, 0.0, 0.0, 0.0]],
            &mut p,
            &mut n,
        )
        .unwrap();
        assert!(n[0].abs_diff_eq(-Vec3::X, 1e-6), "{}", n[0]);
    }

    #[test]
    fn bad_indices_weights_and_lengths_are_errors() {
        let palette = [Mat4::IDENTITY; 2];
        let mut p = [Vec3::ZERO];
        let mut n = [Vec3::ZERO];
        let e = skin(
            &palette,
            &[Vec3::X],
            &[Vec3::X],
            &[[0, 2, 0, 0]],
            &[[0.5, 0.5, 0.0, 0.0]],
            &mut p,
            &mut n,
        );
        assert_eq!(
            e,
            Err(SkinningError::JointOutOfRange {
                vertex: 0,
                joint: 2,
                palette_len: 2
            })
        );
        // A zero-weight influence may name any joint.
        skin(
            &palette,
            &[Vec3::X],
            &[Vec3::X],
            &[[0, 9, 0, 0]],
            &[[1.0, 0.0, 0.0, 0.0]],
            &mut p,
            &mut n,
        )
        .unwrap();
        for w in [[0.0; 4], [1.0, -0.5, 0.0, 0.0], [f32::NAN, 1.0, 0.0, 0.0]] {
            let e = skin(
                &palette,
                &[Vec3::X],
                &[Vec3::X],
                &[[0; 4]],
                &[w],
                &mut p,
                &mut n,
            );
            assert!(matches!(
                e,
                Err(SkinningError::BadWeights { vertex: 0, .. })
            ));
        }
        let e = skin(
            &palette,
            &[Vec3::X],
            &[],
            &[[0; 4]],
            &[[1.0, 0.0, 0.0, 0.0]],
            &mut p,
            &mut n,
        );
        assert!(matches!(
            e,
            Err(SkinningError::LengthMismatch {
                what: "normals",
                ..
            })
        ));
        // A mesh without normals is fine.
        skin(
            &palette,
            &[Vec3::X],
            &[],
            &[[0; 4]],
            &[[1.0, 0.0, 0.0, 0.0]],
            &mut p,
            &mut [],
        )
        .unwrap();
        assert_eq!(
            skinned_bounds(&palette, &[], &[], &[]),
            Err(SkinningError::Empty)
        );
    }

    #[test]
    fn bounds_enclose_the_skinned_positions() {
        let palette = [
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::new(0.0, 0.0, 4.0)),
        ];
        let positions = [
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(1.0, 2.0, 0.0),
            Vec3::ZERO,
        ];
        let joints = [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]];
        let weights = [
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [0.75, 0.25, 0.0, 0.0],
        ];
        let (lo, hi) = skinned_bounds(&palette, &positions, &joints, &weights).unwrap();
        assert_eq!(lo, Vec3::new(-1.0, 0.0, 0.0));
        assert_eq!(hi, Vec3::new(1.0, 2.0, 4.0));
    }

    fn arb_joint_matrix() -> impl Strategy<Value = Mat4> {
        (
            (
                -1.0f32..1.0,
                -1.0f32..1.0,
                -1.0f32..1.0,
                0.0f32..std::f32::consts::TAU,
            ),
            (0.2f32..3.0, 0.2f32..3.0, 0.2f32..3.0),
            (-3.0f32..3.0, -3.0f32..3.0, -3.0f32..3.0),
        )
            .prop_map(|((ax, ay, az, angle), (sx, sy, sz), (tx, ty, tz))| {
                let axis = Vec3::new(ax, ay, az).try_normalize().unwrap_or(Vec3::Y);
                Mat4::from_scale_rotation_translation(
                    Vec3::new(sx, sy, sz),
                    Quat::from_axis_angle(axis, angle),
                    Vec3::new(tx, ty, tz),
                )
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        #[test]
        fn skinned_normals_are_unit_and_perpendicular_to_skinned_tangents(
            a in arb_joint_matrix(),
            b in arb_joint_matrix(),
            w in 0.0f32..=1.0,
            normal in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            tangent in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
        ) {
            let n = Vec3::new(normal.0, normal.1, normal.2);
            prop_assume!(n.length() > 0.1);
            let n = n.normalize();
            // A tangent perpendicular to the normal.
            let t = Vec3::new(tangent.0, tangent.1, tangent.2).reject_from(n);
            prop_assume!(t.length() > 0.1);
            let weights = [1.0 - w, w, 0.0, 0.0];
            let palette = [a, b];
            let mut p = [Vec3::ZERO];
            let mut out_n = [Vec3::ZERO];
            skin(&palette, &[Vec3::ZERO], &[n], &[[0, 1, 0, 0]], &[weights], &mut p, &mut out_n).unwrap();
            let blended = a * (1.0 - w) + b * w;
            prop_assume!(Mat3::from_mat4(blended).determinant().abs() > 1e-2);
            prop_assert!((out_n[0].length() - 1.0).abs() < 1e-4);
            let skinned_t = blended.transform_vector3(t).normalize();
            prop_assert!(skinned_t.dot(out_n[0]).abs() < 1e-3, "{} . {}", skinned_t, out_n[0]);
            prop_assert!(p[0].abs_diff_eq(blended.w_axis.truncate(), 1e-4));
        }
    }
}
