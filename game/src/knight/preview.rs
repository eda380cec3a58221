//! A small CPU rasteriser for looking at the knight without the GPU renderer:
//! orthographic views, a z-buffer, flat shading with the vertex colours,
//! back faces culled (so wrong winding shows up as holes).

use animation::{Wrap, local_to_model, palette, sample_at, skin};
use glam::{Mat3, Mat4, Vec3};

use super::{Knight, KnightError};

/// Pixels per metre in the preview.
const PIXELS_PER_METRE: f32 = 170.0;
/// Width of one view, pixels (2.1 m: the sword reaches 0.9 m ahead).
const VIEW_WIDTH: usize = 360;
/// Height of one view, pixels (2.2 m).
const VIEW_HEIGHT: usize = 380;

/// A view: yaw and pitch of the camera around the knight, radians.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// Rotation about +Y applied to the model (0: side view from +Z).
    pub yaw: f32,
    /// Downward tilt of the camera.
    pub pitch: f32,
}

/// The side view the game camera uses.
pub const SIDE: View = View {
    yaw: 0.0,
    pitch: 0.0,
};
/// A three-quarter view from the front right, slightly above.
pub const THREE_QUARTER: View = View {
    yaw: -0.75,
    pitch: 0.25,
};

fn srgb(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0 + 0.5) as u8
}

/// Renders the knight posed by `clip` at `time` seconds, once per view,
/// side by side; returns `(width, height, rgb8)`.
pub fn render(
    knight: &Knight,
    clip: &str,
    times: &[f32],
    views: &[View],
) -> Result<(usize, usize, Vec<u8>), KnightError> {
    let clip = knight
        .clips
        .iter()
        .find(|c| c.name == clip)
        .ok_or_else(|| KnightError::Preview(format!("no clip named '{clip}'")))?;
    let s = &knight.skeleton;
    let m = &knight.mesh;
    let panels: Vec<(f32, View)> = times
        .iter()
        .flat_map(|t| views.iter().map(move |v| (*t, *v)))
        .collect();
    let width = VIEW_WIDTH * panels.len();
    let mut rgb = vec![0u8; width * VIEW_HEIGHT * 3];
    for y in 0..VIEW_HEIGHT {
        let g = 1.0 - y as f32 / VIEW_HEIGHT as f32;
        for x in 0..width {
            let i = (y * width + x) * 3;
            rgb[i] = (70.0 + 50.0 * g) as u8;
            rgb[i + 1] = (80.0 + 60.0 * g) as u8;
            rgb[i + 2] = (95.0 + 80.0 * g) as u8;
        }
    }
    let mut depth = vec![f32::MIN; width * VIEW_HEIGHT];
    let mut locals = s.rest_locals().to_vec();
    let mut models = vec![Mat4::IDENTITY; s.len()];
    let mut pal = vec![Mat4::IDENTITY; s.len()];
    let mut pos = vec![Vec3::ZERO; m.positions.len()];
    let light = Vec3::new(0.4, 0.8, 0.6).normalize();
    for (panel, (time, view)) in panels.iter().enumerate() {
        locals.copy_from_slice(s.rest_locals());
        sample_at(clip, *time, Wrap::Clamp, &mut locals);
        local_to_model(s, &locals, &mut models);
        palette(&models, s.inverse_bind(), &mut pal)
            .map_err(|e| KnightError::Preview(e.to_string()))?;
        skin(
            &pal,
            &m.positions,
            &[],
            &m.joints,
            &m.weights,
            &mut pos,
            &mut [],
        )
        .map_err(|e| KnightError::Preview(e.to_string()))?;
        let rot = Mat3::from_rotation_x(view.pitch) * Mat3::from_rotation_y(view.yaw);
        let ox = (panel * VIEW_WIDTH) as f32 + VIEW_WIDTH as f32 * 0.42;
        let oy = VIEW_HEIGHT as f32 - 0.15 * PIXELS_PER_METRE;
        let to_screen = |p: Vec3| {
            let v = rot * p;
            Vec3::new(
                ox + v.x * PIXELS_PER_METRE,
                oy - v.y * PIXELS_PER_METRE,
                v.z,
            )
        };
        // Ground line.
        let gy = to_screen(Vec3::ZERO).y as usize;
        if gy < VIEW_HEIGHT {
            for x in panel * VIEW_WIDTH..(panel + 1) * VIEW_WIDTH {
                let i = (gy * width + x) * 3;
                rgb[i..i + 3].copy_from_slice(&[40, 44, 40]);
            }
        }
        for tri in m.indices.chunks(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| i as usize);
            let (va, vb, vc) = (rot * pos[a], rot * pos[b], rot * pos[c]);
            let n = (vb - va).cross(vc - va);
            if n.z <= 0.0 {
                continue;
            }
            let n = n.normalize();
            let shade = 0.3 + 0.7 * n.dot(light).max(0.0);
            let col: [f32; 4] =
                std::array::from_fn(|k| (m.colors[a][k] + m.colors[b][k] + m.colors[c][k]) / 3.0);
            let px = [
                srgb(col[0] * shade),
                srgb(col[1] * shade),
                srgb(col[2] * shade),
            ];
            let (sa, sb, sc) = (to_screen(pos[a]), to_screen(pos[b]), to_screen(pos[c]));
            let area = (sb.x - sa.x) * (sc.y - sa.y) - (sb.y - sa.y) * (sc.x - sa.x);
            if area.abs() < 1e-6 {
                continue;
            }
            let x0 =
                sa.x.min(sb.x)
                    .min(sc.x)
                    .floor()
                    .max((panel * VIEW_WIDTH) as f32) as usize;
            let x1 =
                sa.x.max(sb.x)
                    .max(sc.x)
                    .ceil()
                    .min(((panel + 1) * VIEW_WIDTH - 1) as f32) as usize;
            let y0 = sa.y.min(sb.y).min(sc.y).floor().max(0.0) as usize;
            let y1 =
                sa.y.max(sb.y)
                    .max(sc.y)
                    .ceil()
                    .min((VIEW_HEIGHT - 1) as f32) as usize;
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
                    let w0 = ((sb.x - fx) * (sc.y - fy) - (sb.y - fy) * (sc.x - fx)) / area;
                    let w1 = ((sc.x - fx) * (sa.y - fy) - (sc.y - fy) * (sa.x - fx)) / area;
                    let w2 = 1.0 - w0 - w1;
                    if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                        continue;
                    }
                    let z = w0 * sa.z + w1 * sb.z + w2 * sc.z;
                    let di = y * width + x;
                    if z > depth[di] {
                        depth[di] = z;
                        rgb[di * 3..di * 3 + 3].copy_from_slice(&px);
                    }
                }
            }
        }
    }
    Ok((width, VIEW_HEIGHT, rgb))
}

/// Encodes an RGB8 image as PNG bytes.
pub fn encode_png(width: usize, height: usize, rgb: &[u8]) -> Result<Vec<u8>, KnightError> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width as u32, height as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc
        .write_header()
        .map_err(|e| KnightError::Preview(e.to_string()))?;
    w.write_image_data(rgb)
        .map_err(|e| KnightError::Preview(e.to_string()))?;
    w.finish()
        .map_err(|e| KnightError::Preview(e.to_string()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knight::clips::DEFAULT_RUNG_SPACING;

    #[test]
    fn preview_draws_the_knight_over_the_background() {
        let k = Knight::generate(DEFAULT_RUNG_SPACING).unwrap();
        let (w, h, rgb) = render(&k, "idle", &[0.0], &[SIDE]).unwrap();
        assert_eq!(rgb.len(), w * h * 3);
        // The crimson tabard shows: some pixel is clearly red.
        let red = rgb
            .chunks(3)
            .filter(|p| p[0] > 90 && p[1] < 40 && p[2] < 50)
            .count();
        assert!(red > 200, "{red} red pixels");
        assert!(render(&k, "dance", &[0.0], &[SIDE]).is_err());
    }
}
