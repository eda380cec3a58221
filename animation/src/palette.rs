//! The skinning palette: one matrix per joint taking a vertex from bind space
//! (the mesh as modelled) to the animated model space.
//!
//! `palette[j] = model[j] * inverse_bind[j]`. The result goes to the GPU
//! (glam's `Mat4` is `bytemuck::Pod` with the `bytemuck` feature, so a
//! `&[Mat4]` can be uploaded with `bytemuck::cast_slice`), or to the CPU
//! reference skinning in [`crate::skinning`]. Allocates nothing.

use glam::Mat4;
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
