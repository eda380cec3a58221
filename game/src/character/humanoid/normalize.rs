//! Turning a model so its up axis is +Y and scaling it to a standing height,
//! exactly: every joint's rest and animated transforms, every inverse bind
//! matrix and every mesh vertex are conjugated by one similarity transform
//! `G = s·R` (`local' = G·local·G⁻¹`), so every joint's model matrix becomes
//! `G·M·G⁻¹`, every skinned vertex lands at `G·v`, and the pose pipeline
//! (which measures heights along +Y, in metres) sees a Y-up model of the
//! wanted size. Joint local frames turn with `R`, so a hinge axis written for
//! the normalized model is `R` times the raw one.

use animation::gltf_import::ImportedModel;
use animation::{Clip, Interpolation, JointDef, Skeleton, SkeletonError, Transform};
use glam::{Mat3, Mat4, Quat, Vec3};

/// The rotation that takes the unit vector `up` to +Y (a half turn about X
/// for −Y, so that the result stays axis-aligned).
pub fn up_rotation(up: Vec3) -> Quat {
    if up.dot(Vec3::Y) < -0.9999 {
        Quat::from_rotation_x(std::f32::consts::PI)
    } else {
        Quat::from_rotation_arc(up.normalize(), Vec3::Y)
    }
}

/// One similarity transform: uniform scale times rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Similarity {
    /// Uniform scale.
    pub scale: f32,
    /// Rotation.
    pub rotation: Quat,
}

impl Similarity {
    /// Up axis `up` turned to +Y and lengths multiplied by `scale`.
    pub fn new(up: Vec3, scale: f32) -> Self {
        Self {
            scale,
            rotation: up_rotation(up),
        }
    }

    /// Whether it changes nothing.
    pub fn is_identity(&self) -> bool {
        (self.scale - 1.0).abs() < 1e-6 && self.rotation.abs_diff_eq(Quat::IDENTITY, 1e-6)
    }

    /// The transform as a matrix.
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(Vec3::splat(self.scale), self.rotation, Vec3::ZERO)
    }

    /// A point or translation.
    pub fn point(&self, p: Vec3) -> Vec3 {
        self.rotation * p * self.scale
    }

    /// A local rotation (conjugated).
    pub fn quat(&self, q: Quat) -> Quat {
        self.rotation * q * self.rotation.inverse()
    }

    /// A local scale: its components follow the axes `R` permutes (exact for
    /// uniform scales and for the axis-aligned turns this module makes).
    pub fn scale_vec(&self, s: Vec3) -> Vec3 {
        let m = Mat3::from_quat(self.rotation);
        let abs = Mat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs());
        abs * s
    }

    /// A local transform (conjugated).
    pub fn transform(&self, t: &Transform) -> Transform {
        Transform::new(
            self.point(t.translation),
            self.quat(t.rotation),
            self.scale_vec(t.scale),
        )
    }
}

/// The skeleton conjugated by `g`.
pub fn skeleton(s: &Skeleton, g: &Similarity) -> Result<Skeleton, SkeletonError> {
    let m = g.matrix();
    let mi = m.inverse();
    Skeleton::new(
        (0..s.len())
            .map(|j| JointDef {
                name: s.name(j).to_string(),
                parent: s.parent(j),
                rest: g.transform(&s.rest_locals()[j]),
                inverse_bind: m * s.inverse_bind()[j] * mi,
            })
            .collect(),
    )
}

/// A clip conjugated by `g` (cubic-spline tangents transform as the values,
/// since every map here is linear).
pub fn clip(c: &Clip, g: &Similarity) -> Clip {
    let mut c = c.clone();
    for t in &mut c.translations {
        for v in &mut t.values {
            *v = g.point(*v);
        }
    }
    for t in &mut c.rotations {
        for v in &mut t.values {
            *v = g.quat(*v);
        }
        if t.interpolation != Interpolation::CubicSpline {
            for v in &mut t.values {
                *v = v.normalize();
            }
        }
    }
    for t in &mut c.scales {
        for v in &mut t.values {
            *v = g.scale_vec(*v);
        }
    }
    c
}

/// The whole model conjugated by `g`: every skin, clip and mesh.
pub fn model(model: &mut ImportedModel, g: &Similarity) -> Result<(), SkeletonError> {
    if g.is_identity() {
        return Ok(());
    }
    for s in &mut model.skins {
        s.skeleton = skeleton(&s.skeleton, g)?;
        for c in &mut s.clips {
            *c = clip(c, g);
        }
    }
    for m in &mut model.meshes {
        for p in &mut m.positions {
            *p = g.point(*p);
        }
        for n in &mut m.normals {
            *n = g.rotation * *n;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use animation::local_to_model;

    #[test]
    fn conjugation_moves_every_joint_by_the_similarity() {
        let defs = vec![
            JointDef {
                name: "a".into(),
                parent: None,
                rest: Transform::new(
                    Vec3::new(0.0, 0.0, 90.0),
                    Quat::from_rotation_y(0.3),
                    Vec3::splat(2.0),
                ),
                inverse_bind: Mat4::IDENTITY,
            },
            JointDef {
                name: "b".into(),
                parent: Some(0),
                rest: Transform::new(
                    Vec3::new(10.0, 5.0, -40.0),
                    Quat::from_rotation_x(0.7),
                    Vec3::ONE,
                ),
                inverse_bind: Mat4::from_translation(Vec3::X),
            },
        ];
        let s = Skeleton::new(defs).unwrap();
        let g = Similarity::new(Vec3::Z, 0.01);
        let n = skeleton(&s, &g).unwrap();
        let mut before = vec![Mat4::IDENTITY; 2];
        let mut after = vec![Mat4::IDENTITY; 2];
        local_to_model(&s, s.rest_locals(), &mut before);
        local_to_model(&n, n.rest_locals(), &mut after);
        for j in 0..2 {
            let want = g.matrix() * before[j] * g.matrix().inverse();
            assert!(
                after[j].abs_diff_eq(want, 1e-4),
                "{j}: {:?} {:?}",
                after[j],
                want
            );
            // Palettes (model × inverse bind) move skinned vertices by G.
            let p = before[j] * s.inverse_bind()[j];
            let q = after[j] * n.inverse_bind()[j];
            assert!(q.abs_diff_eq(g.matrix() * p * g.matrix().inverse(), 1e-4));
        }
        // Z-up becomes Y-up: a joint 90 units up Z is 0.9 m up Y.
        assert!((after[0].w_axis.y - 0.9).abs() < 1e-5);
    }
}
