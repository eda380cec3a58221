//! The skinning palette: one matrix per joint taking a vertex from bind space
//! (the mesh as modelled) to the animated model space.
//!
//! `palette[j] = model[j] * inverse_bind[j]`. The result goes to the GPU
//! (glam's `Mat4` is `bytemuck::Pod` with the `bytemuck` feature, so a
//! `&[Mat4]` can be uploaded with `bytemuck::cast_slice`), or to the CPU
//! reference skinning in [`crate::skinning`]. Allocates nothing.

use glam::{Mat4, Vec4};
use thiserror::Error;

/// Why a palette could not be built. The output is left untouched.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PaletteError {
    /// The model matrices, inverse bind matrices and output differ in length.
    #[error(
        "palette lengths differ: {models} model matrices, {inverse_bind} inverse bind matrices, output of {out}"
    )]
    LengthMismatch {
        /// Number of model matrices.
        models: usize,
        /// Number of inverse bind matrices.
        inverse_bind: usize,
        /// Length of the output slice.
        out: usize,
    },
}

fn check(models: usize, inverse_bind: usize, out: usize) -> Result<(), PaletteError> {
    if models == inverse_bind && models == out {
        Ok(())
    } else {
        Err(PaletteError::LengthMismatch {
            models,
            inverse_bind,
            out,
        })
    }
}

/// Writes `models[j] * inverse_bind[j]` into `out[j]` for every joint.
///
/// `models` are model-space joint matrices (from [`crate::local_to_model`]),
/// `inverse_bind` the skeleton's inverse bind matrices; all three slices must
/// have the same length.
pub fn palette(
    models: &[Mat4],
    inverse_bind: &[Mat4],
    out: &mut [Mat4],
) -> Result<(), PaletteError> {
    check(models.len(), inverse_bind.len(), out.len())?;
    for ((o, m), ib) in out.iter_mut().zip(models).zip(inverse_bind) {
        *o = *m * *ib;
    }
    Ok(())
}

/// Like [`palette`], writing each skinning matrix over its model matrix:
/// `models[j] = models[j] * inverse_bind[j]`, the same products (same bits)
/// without a second buffer, for callers that no longer need the model
/// matrices (a crowd). Both slices must have the same length.
pub fn palette_in_place(models: &mut [Mat4], inverse_bind: &[Mat4]) -> Result<(), PaletteError> {
    check(models.len(), inverse_bind.len(), models.len())?;
    for (m, ib) in models.iter_mut().zip(inverse_bind) {
        *m *= *ib;
    }
    Ok(())
}

/// `m * b` for affine `m` and `b` (bottom rows 0 0 0 1): the product of
/// their 3×4 parts, each column of `b` taking three vector products instead
/// of four, the translation's fourth term `m`'s own translation column.
/// Equal to glam's `m * b` for affine matrices but for the sign of zero
/// entries (glam adds a `±0` fourth term that this leaves out).
#[inline]
fn affine_product(m: &Mat4, b: &Mat4) -> Mat4 {
    let column = |v: Vec4| m.x_axis * v.x + m.y_axis * v.y + m.z_axis * v.z;
    Mat4::from_cols(
        column(b.x_axis),
        column(b.y_axis),
        column(b.z_axis),
        column(b.w_axis) + m.w_axis,
    )
}

/// Like [`palette`] for affine model and inverse bind matrices (bottom
/// rows 0 0 0 1: [`crate::local_to_model`]'s, and a skeleton's when
/// [`crate::Skeleton::inverse_binds_are_affine`]): the affine product, a
/// quarter fewer vector operations, equal to [`palette`]'s but for the sign
/// of zero entries. For matrices that are not affine the result is not the
/// product (their bottom rows are ignored).
pub fn palette_affine(
    models: &[Mat4],
    inverse_bind: &[Mat4],
    out: &mut [Mat4],
) -> Result<(), PaletteError> {
    check(models.len(), inverse_bind.len(), out.len())?;
    for ((o, m), ib) in out.iter_mut().zip(models).zip(inverse_bind) {
        *o = affine_product(m, ib);
    }
    Ok(())
}

avx2_builds! {
    kernel = palette_affine_in_place_kernel;
    /// [`palette_affine`] written over the model matrices, as
    /// [`palette_in_place`] is [`palette`].
    pub fn palette_affine_in_place(
        models: &mut [Mat4],
        inverse_bind: &[Mat4],
    ) -> Result<(), PaletteError> {
        check(models.len(), inverse_bind.len(), models.len())?;
        for (m, ib) in models.iter_mut().zip(inverse_bind) {
            *m = affine_product(m, ib);
        }
        Ok(())
    }
}

/// `m * b` for affine `m` and a pure translation `b` (affine, its linear
/// columns exactly the identity's): `m`'s linear columns as they are, and
/// the translation column [`affine_product`] forms, with the same
/// operations in the same order (so the same bits). Equal to
/// [`affine_product`] but for the sign of zero entries of the linear
/// columns (there `m.x · 1 + m.y · 0 + m.z · 0` turns a −0 into +0).
#[inline(always)]
fn translation_product(m: &Mat4, b: &Mat4) -> Vec4 {
    let t = b.w_axis;
    m.x_axis * t.x + m.y_axis * t.y + m.z_axis * t.z + m.w_axis
}

/// Like [`palette_affine`] for inverse bind matrices that are pure
/// translations ([`crate::Skeleton::inverse_binds_are_translations`], as
/// for a skeleton bound with every joint unrotated and unscaled): each
/// skinning matrix is its model matrix with the translation moved, three
/// vector products per joint instead of twelve. Equal to
/// [`palette_affine`]'s but for the sign of zero entries. For inverse binds
/// that are not pure translations the result is not the product (their
/// linear columns are ignored).
pub fn palette_translation(
    models: &[Mat4],
    inverse_bind: &[Mat4],
    out: &mut [Mat4],
) -> Result<(), PaletteError> {
    check(models.len(), inverse_bind.len(), out.len())?;
    for ((o, m), ib) in out.iter_mut().zip(models).zip(inverse_bind) {
        *o = Mat4::from_cols(m.x_axis, m.y_axis, m.z_axis, translation_product(m, ib));
    }
    Ok(())
}

avx2_builds! {
    kernel = palette_translation_in_place_kernel;
    /// [`palette_translation`] written over the model matrices: only each
    /// matrix's translation column changes.
    pub fn palette_translation_in_place(
        models: &mut [Mat4],
        inverse_bind: &[Mat4],
    ) -> Result<(), PaletteError> {
        check(models.len(), inverse_bind.len(), models.len())?;
        for (m, ib) in models.iter_mut().zip(inverse_bind) {
            m.w_axis = translation_product(m, ib);
        }
        Ok(())
    }
}

/// Like [`palette`], but writes each matrix as 16 floats in column-major
/// order (the layout of a WGSL `mat4x4<f32>`), for upload buffers that are
/// not typed as `Mat4`.
pub fn palette_columns(
    models: &[Mat4],
    inverse_bind: &[Mat4],
    out: &mut [[f32; 16]],
) -> Result<(), PaletteError> {
    check(models.len(), inverse_bind.len(), out.len())?;
    for ((o, m), ib) in out.iter_mut().zip(models).zip(inverse_bind) {
        *o = (*m * *ib).to_cols_array();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    #[test]
    fn bind_pose_gives_identity_palette() {
        let models = [
            Mat4::from_translation(Vec3::Y),
            Mat4::from_rotation_translation(Quat::from_rotation_z(0.5), Vec3::new(0.0, 2.0, 0.0)),
        ];
        let inverse_bind = models.map(|m| m.inverse());
        let mut out = [Mat4::ZERO; 2];
        palette(&models, &inverse_bind, &mut out).unwrap();
        for m in out {
            assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-6));
        }
    }

    #[test]
    fn palette_is_model_times_inverse_bind() {
        let model = Mat4::from_rotation_translation(Quat::from_rotation_x(1.0), Vec3::X);
        let ib = Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0));
        let mut out = [Mat4::ZERO];
        let mut cols = [[0.0; 16]];
        palette(&[model], &[ib], &mut out).unwrap();
        palette_columns(&[model], &[ib], &mut cols).unwrap();
        // A bind-space point at (0, 1, 0) sits at the joint origin, so it lands on the joint.
        let p = out[0].transform_point3(Vec3::Y);
        assert!(p.abs_diff_eq(Vec3::X, 1e-6));
        assert_eq!(cols[0], out[0].to_cols_array());
    }

    #[test]
    fn length_mismatch_is_an_error_and_writes_nothing() {
        let mut out = [Mat4::ZERO; 2];
        let e = palette(&[Mat4::IDENTITY; 2], &[Mat4::IDENTITY; 3], &mut out);
        assert_eq!(
            e,
            Err(PaletteError::LengthMismatch {
                models: 2,
                inverse_bind: 3,
                out: 2
            })
        );
        assert!(palette(&[Mat4::IDENTITY; 2], &[Mat4::IDENTITY; 2], &mut out[..1]).is_err());
        assert!(palette_columns(&[Mat4::IDENTITY], &[], &mut [[0.0; 16]]).is_err());
        assert_eq!(out, [Mat4::ZERO; 2]);
    }

    proptest::proptest! {
        /// For affine matrices the affine palette is glam's product, bit for
        /// bit but for the sign of zero entries, in place or not; a
        /// skeleton knows whether its inverse binds are affine.
        #[test]
        fn affine_palette_equals_the_full_product(
            q in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            t in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
            s in (0.1f32..3.0, -3.0f32..-0.1),
            axis in 0usize..3,
        ) {
            let r = Quat::from_xyzw(q.0, q.1, q.2, q.3).normalize();
            proptest::prop_assume!(r.is_finite());
            let t = Vec3::new(t.0, t.1, t.2);
            let model = Mat4::from_scale_rotation_translation(Vec3::new(s.0, 1.0, s.1), r, t);
            // Axis-aligned parts give exact zeros, whose signs may differ.
            let bind = Mat4::from_rotation_translation(
                match axis { 0 => Quat::from_rotation_x(s.0), 1 => Quat::from_rotation_y(s.0), _ => r },
                Vec3::new(t.z, t.x, t.y),
            );
            let ib = bind.inverse();
            let ib = Mat4::from_cols(ib.x_axis.truncate().extend(0.0), ib.y_axis.truncate().extend(0.0), ib.z_axis.truncate().extend(0.0), ib.w_axis.truncate().extend(1.0));
            let models = [model, Mat4::IDENTITY];
            let ibs = [ib, ib];
            let mut full = [Mat4::ZERO; 2];
            let mut affine = [Mat4::ZERO; 2];
            palette(&models, &ibs, &mut full).unwrap();
            palette_affine(&models, &ibs, &mut affine).unwrap();
            let mut in_place = models;
            palette_affine_in_place(&mut in_place, &ibs).unwrap();
            proptest::prop_assert_eq!(in_place, affine);
            // The dispatched build (AVX2 where the processor has it) and the
            // baseline build in place give the same bits, zeros' signs too.
            let mut baseline = models;
            palette_affine_in_place_kernel(&mut baseline, &ibs).unwrap();
            let bits = |m: &[Mat4; 2]| m.map(|m| m.to_cols_array().map(f32::to_bits));
            proptest::prop_assert_eq!(bits(&baseline), bits(&in_place));
            // `==` on floats ignores the sign of zero, nothing else.
            proptest::prop_assert_eq!(affine, full);
            for (a, f) in affine.iter().zip(&full) {
                for (x, y) in a.to_cols_array().iter().zip(f.to_cols_array()) {
                    proptest::prop_assert!(x.to_bits() == y.to_bits() || (*x == 0.0 && y == 0.0));
                }
            }
        }
    }

    proptest::proptest! {
        /// For pure translation inverse binds the translation palette is the
        /// affine one, its translations bit for bit and its linear columns
        /// but for the sign of zero entries, in place or not, in every
        /// build; a skeleton knows whether its inverse binds are pure
        /// translations.
        #[test]
        fn translation_palette_equals_the_affine_product(
            q in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            t in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
            s in (0.1f32..3.0, -3.0f32..-0.1),
            axis in 0usize..3,
        ) {
            let r = Quat::from_xyzw(q.0, q.1, q.2, q.3).normalize();
            proptest::prop_assume!(r.is_finite());
            let t = Vec3::new(t.0, t.1, t.2);
            // Axis-aligned rotations give exact zeros, whose signs may differ.
            let r = match axis { 0 => Quat::from_rotation_x(s.0), 1 => Quat::from_rotation_y(s.1), _ => r };
            let model = Mat4::from_scale_rotation_translation(Vec3::new(s.0, 1.0, s.1), r, t);
            let ib = Mat4::from_translation(Vec3::new(t.z, -t.x, s.0));
            let models = [model, Mat4::IDENTITY, -model];
            let ibs = [ib, ib, Mat4::from_translation(-t)];
            let mut affine = [Mat4::ZERO; 3];
            let mut moved = [Mat4::ZERO; 3];
            palette_affine(&models, &ibs, &mut affine).unwrap();
            palette_translation(&models, &ibs, &mut moved).unwrap();
            let mut in_place = models;
            palette_translation_in_place(&mut in_place, &ibs).unwrap();
            let mut baseline = models;
            palette_translation_in_place_kernel(&mut baseline, &ibs).unwrap();
            let bits = |m: &[Mat4; 3]| m.map(|m| m.to_cols_array().map(f32::to_bits));
            proptest::prop_assert_eq!(bits(&in_place), bits(&moved));
            proptest::prop_assert_eq!(bits(&baseline), bits(&moved));
            for (a, m) in affine.iter().zip(&moved) {
                proptest::prop_assert_eq!(a.w_axis.to_array().map(f32::to_bits), m.w_axis.to_array().map(f32::to_bits));
                for (x, y) in a.to_cols_array().iter().zip(m.to_cols_array()) {
                    proptest::prop_assert!(x.to_bits() == y.to_bits() || (*x == 0.0 && y == 0.0));
                }
            }
        }
    }

    #[test]
    fn translation_palette_checks_lengths_and_the_skeleton_its_inverse_binds() {
        let mut out = [Mat4::ZERO; 2];
        assert!(palette_translation(&[Mat4::IDENTITY; 2], &[Mat4::IDENTITY; 3], &mut out).is_err());
        assert!(palette_translation_in_place(&mut out, &[Mat4::IDENTITY]).is_err());
        assert_eq!(out, [Mat4::ZERO; 2]);
        let joint = |inverse_bind| crate::JointDef {
            name: "j".into(),
            parent: None,
            rest: crate::Transform::IDENTITY,
            inverse_bind,
        };
        let moved = crate::Skeleton::new(vec![
            joint(Mat4::from_translation(Vec3::X)),
            joint(Mat4::IDENTITY),
        ])
        .unwrap();
        assert!(moved.inverse_binds_are_translations());
        let turned = crate::Skeleton::new(vec![
            joint(Mat4::from_translation(Vec3::X)),
            joint(Mat4::from_rotation_z(1e-3)),
        ])
        .unwrap();
        assert!(turned.inverse_binds_are_affine() && !turned.inverse_binds_are_translations());
        let scaled =
            crate::Skeleton::new(vec![joint(Mat4::from_scale(Vec3::new(1.0, 1.0, 1.001)))])
                .unwrap();
        assert!(!scaled.inverse_binds_are_translations());
        let mut projective = Mat4::from_translation(Vec3::Y);
        projective.w_axis.w = 2.0;
        let other = crate::Skeleton::new(vec![joint(projective)]).unwrap();
        assert!(!other.inverse_binds_are_affine() && !other.inverse_binds_are_translations());
    }

    #[test]
    fn affine_palette_checks_lengths_and_the_skeleton_its_inverse_binds() {
        let mut out = [Mat4::ZERO; 2];
        assert!(palette_affine(&[Mat4::IDENTITY; 2], &[Mat4::IDENTITY; 3], &mut out).is_err());
        assert!(palette_affine_in_place(&mut out, &[Mat4::IDENTITY]).is_err());
        assert_eq!(out, [Mat4::ZERO; 2]);
        let joint = |inverse_bind| crate::JointDef {
            name: "j".into(),
            parent: None,
            rest: crate::Transform::IDENTITY,
            inverse_bind,
        };
        let affine = crate::Skeleton::new(vec![joint(Mat4::from_translation(Vec3::X))]).unwrap();
        assert!(affine.inverse_binds_are_affine());
        let mut projective = Mat4::IDENTITY;
        projective.x_axis.w = 1e-3;
        let other = crate::Skeleton::new(vec![joint(Mat4::IDENTITY), joint(projective)]).unwrap();
        assert!(!other.inverse_binds_are_affine());
    }

    #[test]
    fn in_place_palette_equals_the_separate_one() {
        let models = [
            Mat4::from_translation(Vec3::new(0.5, 1.0, -2.0)),
            Mat4::from_scale_rotation_translation(
                Vec3::splat(1.5),
                Quat::from_rotation_z(0.7),
                Vec3::new(0.0, 2.0, 0.0),
            ),
        ];
        let inverse_bind = [
            Mat4::from_rotation_x(0.3).inverse(),
            Mat4::from_translation(Vec3::Y).inverse(),
        ];
        let mut out = [Mat4::ZERO; 2];
        palette(&models, &inverse_bind, &mut out).unwrap();
        let mut in_place = models;
        palette_in_place(&mut in_place, &inverse_bind).unwrap();
        assert_eq!(in_place, out);
        assert!(palette_in_place(&mut in_place, &inverse_bind[..1]).is_err());
    }
}
