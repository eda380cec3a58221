//! `ironstep render`: one picture of any skinned glTF model, headless.
//!
//! ```text
//! ironstep render CesiumMan.glb --clip 0 --time 0.5 --size 640x480 --out shot.png
//! ```
//!
//! The model is posed with the clip at the time (clamped to the clip, as in
//! `ironstep inspect`), its skinned bounds are found on the CPU with the
//! `animation` crate's skinning, and a perspective camera is placed so the
//! bounds fill the picture with a margin. Every mesh of every skin is drawn
//! (rigid parts included, which the import binds to their joints), each with
//! its own skin's palette. The meshes are drawn by the
//! game's renderer (sun, sky light, self-shadow, 4× MSAA) with its base colour
//! factor, base colour texture and vertex colours, and the PNG is written
//! atomically.

use std::path::PathBuf;

use animation::gltf_import;
use animation::{Wrap, local_to_model, palette, sample_at, skinned_bounds};
use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use glam::{Mat4, Vec3};
use renderer::{Camera, Frame, Lighting, OffscreenTarget, Renderer, ShadowBox};

use crate::character::CharacterMesh;
use crate::character::model::first_skin;
use crate::scene::upload_character;
use crate::tools::headless::parse_size;

/// Arguments of `ironstep render`.
#[derive(Args, Debug)]
pub struct RenderArgs {
    /// The glTF model (.glb or .gltf) to render.
    pub model: PathBuf,
    /// The clip to pose the model with, by name or index (default: clip 0,
    /// or the rest pose when the model has no clips).
    #[arg(long)]
    pub clip: Option<String>,
    /// The time in seconds at which the clip is sampled (clamped to the clip).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub time: f32,
    /// Picture size, WIDTHxHEIGHT.
    #[arg(long, default_value = "640x640")]
    pub size: String,
    /// The PNG file to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// Direction from the model towards the camera: in front (+Z, glTF's
/// forward), a little to the right (+X) and above, a three-quarter view that
/// shows a model facing +Z or +X (our knight) in depth rather than edge-on.
const VIEW_DIR: Vec3 = Vec3::new(0.55, 0.2, 1.0);
/// Vertical field of view, radians: 40°, the game's side view, a mild
/// perspective that does not distort the model.
const FOV_Y: f32 = 40.0 * std::f32::consts::PI / 180.0;
/// The box's projected corners reach at most this share of the way from
/// the picture's centre to its edge, leaving a margin around the model.
const FILL: f32 = 0.88;
/// Refinement steps of the camera distance; each moves the projected extent
/// most of the way to [`FILL`] (the projection is nearly inverse in distance),
/// and six bring it within a fraction of a percent.
const FIT_STEPS: usize = 6;

/// A camera that sees the whole box `lo..hi` in a picture of `aspect`
/// (width / height): looks at the box's centre along [`VIEW_DIR`], starting
/// from the distance at which the box's bounding sphere fits the smaller
/// field of view, then moved in until the box's eight projected corners
/// reach [`FILL`] of the picture's half-size (a tall figure fills the height,
/// not a sphere around it). It never comes nearer than 1.2 × the sphere's
/// radius, so the near plane stays in front of the box.
pub fn framing_camera(lo: Vec3, hi: Vec3, aspect: f32) -> Camera {
    let center = 0.5 * (lo + hi);
    let radius = (0.5 * (hi - lo).length()).max(1e-4);
    let half_y = 0.5 * FOV_Y;
    let half_x = (half_y.tan() * aspect).atan();
    let at = |distance: f32| Camera {
        position: center + VIEW_DIR.normalize() * distance,
        target: center,
        up: Vec3::Y,
        projection: renderer::Projection::Perspective { fov_y: FOV_Y },
        near: (distance - radius) * 0.5,
        far: distance + radius * 4.0,
    };
    let extent = |cam: &Camera| {
        let vp = cam.view_proj(aspect);
        (0..8)
            .map(|i| {
                let c = Vec3::new(
                    if i & 1 == 0 { lo.x } else { hi.x },
                    if i & 2 == 0 { lo.y } else { hi.y },
                    if i & 4 == 0 { lo.z } else { hi.z },
                );
                let p = vp.project_point3(c);
                p.x.abs().max(p.y.abs())
            })
            .fold(0.0f32, f32::max)
    };
    let mut distance = radius / half_y.min(half_x).sin();
    for _ in 0..FIT_STEPS {
        let e = extent(&at(distance));
        if !(e.is_finite() && e > 0.0) {
            break;
        }
        distance = (distance * e / FILL).max(radius * 1.2);
    }
    at(distance)
}

/// Runs `ironstep render`.
pub fn run(args: &RenderArgs) -> Result<()> {
    let file = args.model.display().to_string();
    let (width, height) = parse_size(&args.size).map_err(|e| anyhow!("--size: {e}"))?;
    if !args.time.is_finite() {
        bail!(
            "{file}: --time {} is not a finite number of seconds",
            args.time
        );
    }
    let model = gltf_import::load(&args.model)?;
    first_skin(&model)?;
    let clip = match &args.clip {
        Some(c) => Some(model.find_clip(c).ok_or_else(|| {
            let names: Vec<String> = model
                .clips
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{i}: '{}'", c.name))
                .collect();
            anyhow!(
                "{file}: no clip named or numbered '{c}' (clips: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )
        })?),
        None => (!model.clips.is_empty()).then_some(0),
    };

    let palettes = posed_palettes(&model, clip, args.time).with_context(|| file.clone())?;
    let meshes: Vec<CharacterMesh> = model
        .meshes
        .iter()
        .map(CharacterMesh::from_imported)
        .collect();
    let skins: Vec<usize> = model.meshes.iter().map(|m| m.skin).collect();
    let (lo, hi) = skinned_model_bounds(&meshes, &skins, &palettes)
        .with_context(|| format!("{file}: skinning for the bounds"))?;
    if !(lo.is_finite() && hi.is_finite()) {
        bail!("{file}: the posed model has no finite vertices to frame");
    }

    let mut renderer = Renderer::headless().context("starting the headless renderer")?;
    let mut frame = Frame::new();
    frame.show_debug = false;
    // Every mesh is drawn with the palette of its own skin.
    for (i, (m, &skin)) in meshes.iter().zip(&skins).enumerate() {
        let pal = &palettes[skin];
        let id = upload_character(&mut renderer, &format!("{file}#{i}"), m, pal.len())
            .with_context(|| format!("{file}: uploading mesh {i}"))?;
        frame.draw_skinned(id, Mat4::IDENTITY, pal);
    }
    let camera = framing_camera(lo, hi, width as f32 / height as f32);
    let center = 0.5 * (lo + hi);
    let lighting = Lighting {
        shadow: Some(ShadowBox {
            center,
            radius: (hi - lo).length().max(0.01),
        }),
        ..Lighting::default()
    };
    let target = OffscreenTarget::new(&renderer, width, height);
    renderer
        .render(
            &mut frame,
            &camera,
            &lighting,
            target.view(),
            (width, height),
        )
        .with_context(|| format!("{file}: rendering"))?;
    let rgba = target
        .read_rgba(&mut renderer)
        .context("reading the picture back")?;
    let png = encode_png(width, height, &rgba)?;
    let out = args.out.display();
    crate::fsio::write_atomic(&args.out, &png).with_context(|| format!("{out}: cannot write"))?;
    println!(
        "{out}: {width}x{height}, {} at {} s, skinned bounds {:.3?}..{:.3?} m",
        match clip {
            Some(c) => format!("clip '{}'", model.clips[c].name),
            None => "rest pose".to_string(),
        },
        args.time,
        lo.to_array(),
        hi.to_array()
    );
    Ok(())
}

/// Every skin's palette (model × inverse bind) with the clip sampled at
/// `time` (clamped), or the rest pose without a clip. Each skin is posed by
/// its own retargeted copy of the clip; since every skin's skeleton gives
/// glTF scene-space globals, skins that share joints (the same nodes) get the
/// same global for them, so one pose drives them all.
pub fn posed_palettes(
    model: &gltf_import::ImportedModel,
    clip: Option<usize>,
    time: f32,
) -> Result<Vec<Vec<Mat4>>> {
    model
        .skins
        .iter()
        .map(|skin| {
            let skel = &skin.skeleton;
            let mut locals = skel.rest_locals().to_vec();
            if let Some(c) = clip {
                sample_at(&skin.clips[c], time, Wrap::Clamp, &mut locals);
            }
            let mut models = vec![Mat4::IDENTITY; skel.len()];
            local_to_model(skel, &locals, &mut models);
            let mut pal = vec![Mat4::IDENTITY; skel.len()];
            palette(&models, skel.inverse_bind(), &mut pal)
                .with_context(|| format!("skin '{}'", skin.name))?;
            Ok(pal)
        })
        .collect()
}

/// The CPU-skinned bounds `(min, max)` of every mesh, each skinned with
/// `palettes[skins[i]]`; empty meshes are skipped, and with none left the
/// bounds are infinite (`min > max`).
pub fn skinned_model_bounds(
    meshes: &[CharacterMesh],
    skins: &[usize],
    palettes: &[Vec<Mat4>],
) -> Result<(Vec3, Vec3)> {
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for (m, &skin) in meshes.iter().zip(skins) {
        if m.positions.is_empty() {
            continue;
        }
        let (a, b) = skinned_bounds(&palettes[skin], &m.positions, &m.joints, &m.weights)?;
        lo = lo.min(a);
        hi = hi.max(b);
    }
    Ok((lo, hi))
}

/// RGBA8 (sRGB) pixels as PNG bytes.
pub fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut enc = png::Encoder::new(&mut bytes, width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
    let mut w = enc.write_header().context("encoding the PNG")?;
    w.write_image_data(rgba).context("encoding the PNG")?;
    w.finish().context("encoding the PNG")?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every corner of the box projects inside the picture, and the box's
    /// height covers a good share of it.
    #[test]
    fn framing_fits_the_box_with_a_margin() {
        for (lo, hi, aspect) in [
            (Vec3::new(-0.3, 0.0, -0.2), Vec3::new(0.3, 1.8, 0.2), 1.0),
            (Vec3::new(-0.3, 0.0, -0.2), Vec3::new(0.3, 1.8, 0.2), 0.5),
            (
                Vec3::new(5.0, 2.0, 1.0),
                Vec3::new(9.0, 2.5, 1.5),
                16.0 / 9.0,
            ),
        ] {
            let cam = framing_camera(lo, hi, aspect);
            let vp = cam.view_proj(aspect);
            let (mut ymin, mut ymax) = (f32::INFINITY, f32::NEG_INFINITY);
            for i in 0..8 {
                let c = Vec3::new(
                    if i & 1 == 0 { lo.x } else { hi.x },
                    if i & 2 == 0 { lo.y } else { hi.y },
                    if i & 4 == 0 { lo.z } else { hi.z },
                );
                let p = vp.project_point3(c);
                assert!(p.x.abs() < 0.97 && p.y.abs() < 0.97, "{c} → {p}");
                assert!(p.z > 0.0 && p.z < 1.0, "depth {p}");
                ymin = ymin.min(p.y);
                ymax = ymax.max(p.y);
            }
            if hi.y - lo.y > 1.0 {
                // A standing figure: at least three quarters of the height.
                assert!(ymax - ymin > 1.5, "covers {}", (ymax - ymin) / 2.0);
            }
        }
    }

    #[test]
    fn png_bytes_decode_to_the_pixels() {
        let rgba: Vec<u8> = (0..2 * 3 * 4).map(|i| i as u8 * 10).collect();
        let bytes = encode_png(2, 3, &rgba).unwrap();
        let dec = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        r.next_frame(&mut buf).unwrap();
        assert_eq!(buf, rgba);
    }
}
