//! Animation clips: keyframed translation, rotation and scale tracks per joint,
//! with glTF 2.0's interpolation modes.
//!
//! This module holds the data; sampling lives in [`crate::sampling`].

use glam::{Quat, Vec3};

/// How values between two keys are computed, exactly as glTF 2.0 defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// The value of the earlier key holds until the next key.
    Step,
    /// Linear interpolation; spherical (shortest path) for rotations.
    Linear,
    /// Cubic Hermite spline with in- and out-tangents per key, scaled by the key interval.
    CubicSpline,
}

/// One animated property of one joint.
///
/// For [`Interpolation::CubicSpline`], `values` holds three entries per key in
/// glTF order: in-tangent, value, out-tangent. Otherwise one value per key.
#[derive(Clone, Debug, PartialEq)]
pub struct Track<T> {
    /// The joint this track animates.
    pub joint: u16,
    /// How values between keys are computed.
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing.
    pub times: Vec<f32>,
    /// Key values (three per key for cubic splines).
    pub values: Vec<T>,
}

/// A named animation: tracks for any subset of a skeleton's joints.
///
/// Joints without a track keep whatever the pose they are sampled into holds
/// (normally the rest pose).
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// The clip's name (glTF animations without a name are named by their index).
    pub name: String,
    /// Length in seconds: the last key time of any track.
    pub duration: f32,
    /// Translation tracks.
    pub translations: Vec<Track<Vec3>>,
    /// Rotation tracks.
    pub rotations: Vec<Track<Quat>>,
    /// Scale tracks.
    pub scales: Vec<Track<Vec3>>,
}
