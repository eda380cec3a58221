//! Offscreen render targets, GPU readback and PNG files.

use crate::{RenderError, Renderer};
use std::path::Path;

/// wgpu requires texture-to-buffer copies to have rows aligned to this many bytes.
const ROW_ALIGN: u32 = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;

/// A texture the renderer can draw into and read back.
pub struct OffscreenTarget {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    width: u32,
    height: u32,
}

impl OffscreenTarget {
    /// A `width × height` target in the renderer's colour format.
    pub fn new(renderer: &Renderer, width: u32, height: u32) -> Self {
        let texture = renderer.device().create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen target"),
            size: wgpu::Extent3d {
                width: width.max(1),
                height: height.max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: renderer.color_format(),
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Self {
            texture,
            view,
            width: width.max(1),
            height: height.max(1),
        }
    }

    /// The view to pass to [`Renderer::render`].
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// `(width, height)` in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Reads the pixels back as tightly packed RGBA8 (sRGB-encoded) rows.
    pub fn read_rgba(&self, renderer: &mut Renderer) -> Result<Vec<u8>, RenderError> {
        let device = renderer.device().clone();
        let queue = renderer.queue().clone();
        let unpadded = self.width * 4;
        let padded = unpadded.div_ceil(ROW_ALIGN) * ROW_ALIGN;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: u64::from(padded) * u64::from(self.height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            self.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([encoder.finish()]);
        let data = crate::renderer::map_and_read(&device, &buffer)?;
        renderer.collect_gpu_times();
        let bgra = matches!(
            renderer.color_format(),
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        );
        let mut out = Vec::with_capacity((unpadded * self.height) as usize);
        for row in data.chunks(padded as usize) {
            out.extend_from_slice(&row[..unpadded as usize]);
        }
        if bgra {
            for px in out.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        Ok(out)
    }

    /// Reads the pixels back and writes them to a PNG file.
    pub fn save_png(&self, renderer: &mut Renderer, path: &Path) -> Result<(), RenderError> {
        let rgba = self.read_rgba(renderer)?;
        write_png_rgba(path, self.width, self.height, &rgba)
    }
}

/// Writes RGBA8 pixels (sRGB) to a PNG file.
pub fn write_png_rgba(
    path: &Path,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> Result<(), RenderError> {
    let err = |reason: String| RenderError::Png {
        path: path.to_owned(),
        reason,
    };
    if rgba.len() != width as usize * height as usize * 4 {
        return Err(err(format!("{} bytes for {width}x{height}", rgba.len())));
    }
    let mut bytes = Vec::with_capacity(rgba.len() / 2);
    {
        let mut enc = png::Encoder::new(&mut bytes, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut writer = enc.write_header().map_err(|e| err(e.to_string()))?;
        writer
            .write_image_data(rgba)
            .map_err(|e| err(e.to_string()))?;
        writer.finish().map_err(|e| err(e.to_string()))?;
    }
    write_atomic(path, &bytes).map_err(|e| err(e.to_string()))
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// that is flushed and renamed over `path`, so a crash never leaves a
/// truncated picture (the same rule as the game's `fsio::write_atomic`,
/// which this crate cannot depend on).
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?;
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Reads a PNG file as `(width, height, rgba8)`; RGB files get opaque alpha.
pub fn read_png_rgba(path: &Path) -> Result<(u32, u32, Vec<u8>), RenderError> {
    let err = |reason: String| RenderError::Png {
        path: path.to_owned(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| err(e.to_string()))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| err("image too large".into()))?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| err(e.to_string()))?;
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => return Err(err(format!("unsupported colour type {other:?}"))),
    };
    Ok((info.width, info.height, rgba))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips_replaces_atomically_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("ironstep-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("shot.png");
        std::fs::write(&path, b"an older, different file").unwrap();
        let rgba: Vec<u8> = (0..4 * 3 * 2).map(|i| (i * 10) as u8).collect();
        write_png_rgba(&path, 3, 2, &rgba).unwrap();
        assert_eq!(read_png_rgba(&path).unwrap(), (3, 2, rgba));
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["shot.png"], "no temporary file left behind");
        // A failed write (no such folder) leaves nothing and says where.
        let bad = dir.join("missing/shot.png");
        let e = write_png_rgba(&bad, 3, 2, &[0; 24]).unwrap_err();
        assert!(e.to_string().contains("missing"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
