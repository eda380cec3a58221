//! The side-view camera: perspective (default) or orthographic, with a
//! smoothed follow used by the game.

use glam::camera::rh::{proj::directx, view::look_at_mat4};
use glam::{Mat4, Vec3};

/// How the camera projects the scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Projection {
    /// Perspective with a vertical field of view in radians.
    Perspective {
        /// Vertical field of view in radians.
        fov_y: f32,
    },
    /// Orthographic showing `height` metres vertically.
    Orthographic {
        /// Visible height in metres.
        height: f32,
    },
}

/// A camera looking from `position` at `target`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Eye position in world space.
    pub position: Vec3,
    /// The point looked at.
    pub target: Vec3,
    /// The up direction (normally +Y).
    pub up: Vec3,
    /// Perspective or orthographic.
    pub projection: Projection,
    /// Near clip distance in metres.
    pub near: f32,
    /// Far clip distance in metres.
    pub far: f32,
}

/// Default vertical field of view of the side view: 40°, a mild perspective
/// that keeps background parallax visible without distorting the knight.
pub const SIDE_VIEW_FOV_Y: f32 = 40.0 * std::f32::consts::PI / 180.0;

impl Camera {
    /// A perspective side view: looks along -Z at `focus` from `distance`
    /// metres in front of the play plane.
    pub fn side_view(focus: Vec3, distance: f32) -> Self {
        Self {
            position: focus + Vec3::Z * distance,
            target: focus,
            up: Vec3::Y,
            projection: Projection::Perspective {
                fov_y: SIDE_VIEW_FOV_Y,
            },
            near: 0.1,
            far: 200.0,
        }
    }

    /// The view matrix (world to camera).
    pub fn view(&self) -> Mat4 {
        look_at_mat4(self.position, self.target, self.up)
    }

    /// The projection matrix for a target of `aspect` = width / height
    /// (wgpu depth range 0..1).
    pub fn projection_matrix(&self, aspect: f32) -> Mat4 {
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        match self.projection {
            Projection::Perspective { fov_y } => {
                directx::perspective(fov_y, aspect, self.near, self.far)
            }
            Projection::Orthographic { height } => {
                let h = height * 0.5;
                let w = h * aspect;
                directx::orthographic(-w, w, -h, h, self.near, self.far)
            }
        }
    }

    /// Projection × view.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.projection_matrix(aspect) * self.view()
    }

    /// Moves the camera (eye and target together) towards `focus` so that the
    /// remaining distance halves every `half_life` seconds. A non-positive
    /// half-life snaps; a non-finite focus or step is ignored.
    pub fn follow(&mut self, focus: Vec3, dt: f32, half_life: f32) {
        if !focus.is_finite() || !dt.is_finite() || dt < 0.0 {
            return;
        }
        let t = if half_life.is_finite() && half_life > 0.0 {
            1.0 - 0.5f32.powf(dt / half_life)
        } else {
            1.0
        };
        let new_target = self.target.lerp(focus, t);
        self.position += new_target - self.target;
        self.target = new_target;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn side_view_puts_focus_at_screen_centre() {
        let cam = Camera::side_view(Vec3::new(3.0, 1.0, 0.0), 8.0);
        let p = cam
            .view_proj(16.0 / 9.0)
            .project_point3(Vec3::new(3.0, 1.0, 0.0));
        assert!(p.x.abs() < 1e-5 && p.y.abs() < 1e-5, "{p}");
        assert!(p.z > 0.0 && p.z < 1.0);
    }

    #[test]
    fn orthographic_shows_the_requested_height() {
        let mut cam = Camera::side_view(Vec3::ZERO, 8.0);
        cam.projection = Projection::Orthographic { height: 10.0 };
        let top = cam.view_proj(1.0).project_point3(Vec3::new(0.0, 5.0, 0.0));
        assert!((top.y - 1.0).abs() < 1e-5, "{top}");
    }

    proptest! {
        #[test]
        fn follow_never_overshoots_and_keeps_the_offset(
            fx in -100.0f32..100.0, fy in -100.0f32..100.0,
            dt in 0.0f32..1.0, half_life in 0.01f32..2.0,
        ) {
            let mut cam = Camera::side_view(Vec3::ZERO, 8.0);
            let focus = Vec3::new(fx, fy, 0.0);
            let before = cam.target.distance(focus);
            cam.follow(focus, dt, half_life);
            prop_assert!(cam.target.distance(focus) <= before + 1e-4);
            prop_assert!((cam.position - cam.target - Vec3::Z * 8.0).length() < 1e-3);
        }
    }

    #[test]
    fn follow_ignores_nan_focus() {
        let mut cam = Camera::side_view(Vec3::ZERO, 8.0);
        cam.follow(Vec3::NAN, 0.016, 0.2);
        assert_eq!(cam.target, Vec3::ZERO);
    }
}
