//! A model's buffers and images, read only from what belongs to the model.
//!
//! The `gltf` crate's own resolver (`gltf::import_buffers`,
//! `gltf::import_images`) follows `file:` URIs and absolute paths anywhere on
//! the disk, reads a file to its end whatever length the document declares
//! (`file:///dev/zero` reads until memory runs out), and panics on a
//! relative URI that does not percent-decode to UTF-8 (`"%FF"`). The
//! importer therefore resolves every URI here instead, under these rules:
//!
//! - A `data:` URI must be base64 (`data:[<media type>];base64,<data>`); it
//!   is decoded in memory.
//! - Any other URI must be a relative reference to a file in the model's
//!   folder or below it: no scheme (`file:`, `http:`, a drive letter), no
//!   absolute path, no backslash, no NUL, and no `..` that climbs out of the
//!   folder once the path is normalised. The resolved file, with symbolic
//!   links followed, must still lie inside the folder and be a regular file
//!   (no device, FIFO or directory).
//! - A buffer reads at most the `byteLength` its document declares, and a
//!   file (or data URI, or GLB chunk) shorter than that is refused. A
//!   declared length over [`MAX_BUFFER_BYTES`], or buffers and images
//!   together over [`MAX_RESOURCE_BYTES`], are refused before anything is
//!   read.
//! - An image file is read up to [`MAX_IMAGE_FILE_BYTES`]; it is decoded
//!   with at most [`MAX_IMAGE_SIDE`] pixels a side.
//!
//! Every refusal names the URI (shortened when long) and what is wrong; the
//! importer adds the model file.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use base64::Engine as _;

use super::ImportErrorReason as Reason;

/// The largest `byteLength` one buffer may declare: 256 MiB. A game
/// character's buffers are a few megabytes (CesiumMan's is 0.4 MB); the limit
/// keeps a wrong or hostile declaration from exhausting memory.
pub const MAX_BUFFER_BYTES: usize = 256 << 20;

/// The most bytes a model's buffers and image files may hold together:
/// 512 MiB, twice [`MAX_BUFFER_BYTES`], so that many buffers naming the
/// same large file cannot multiply it.
pub const MAX_RESOURCE_BYTES: usize = 512 << 20;

/// The largest image file (PNG or JPEG) a model may name: 64 MiB, far
/// above a compressed texture of [`MAX_IMAGE_SIDE`] pixels a side.
pub const MAX_IMAGE_FILE_BYTES: usize = 64 << 20;

/// The widest and tallest texture decoded: 8192 pixels, the largest 2D
/// texture the renderer's GPU limits guarantee (wgpu's default
/// `max_texture_dimension_2d`). A larger one could not be uploaded anyway,
/// and its size is checked before its pixels are decoded.
pub const MAX_IMAGE_SIDE: u32 = 8192;

/// The longest URI shown in an error; longer ones (data URIs) are cut.
const SHOWN_URI_CHARS: usize = 60;

/// A buffer or image URI with the model's folder: what it resolves to.
pub(super) struct Resolver<'a> {
    /// The model's folder; `None` when the model came as bytes alone.
    base: Option<&'a Path>,
    /// Bytes still allowed under [`MAX_RESOURCE_BYTES`].
    budget: usize,
    /// Decoded image bytes still allowed under
    /// [`MAX_TEXTURE_BYTES`](super::MAX_TEXTURE_BYTES).
    decoded_left: usize,
}

/// What is wrong with one URI, before the resource it belongs to is named.
type Problem = String;

impl<'a> Resolver<'a> {
    pub(super) fn new(base: Option<&'a Path>) -> Self {
        Self {
            base,
            budget: MAX_RESOURCE_BYTES,
            decoded_left: super::MAX_TEXTURE_BYTES,
        }
    }

    /// Takes `bytes` from the budget, or says why not.
    fn take(&mut self, bytes: usize) -> Result<(), Problem> {
        if bytes > self.budget {
            return Err(format!(
                "the model's buffers and images would exceed {MAX_RESOURCE_BYTES} bytes together (the limit)"
            ));
        }
        self.budget -= bytes;
        Ok(())
    }

    /// The data of every buffer: the GLB chunk, a data URI or a file in the
    /// model's folder, exactly its declared length (padded with zeros to a
    /// multiple of four, as the `gltf` crate pads it).
    pub(super) fn buffers(
        &mut self,
        doc: &gltf::Document,
        mut blob: Option<Vec<u8>>,
    ) -> Result<Vec<gltf::buffer::Data>, Reason> {
        let mut out = Vec::new();
        for buffer in doc.buffers() {
            let what = format!("buffer {}", buffer.index());
            let declared = buffer.length();
            let uri = match buffer.source() {
                gltf::buffer::Source::Uri(uri) => Some(uri),
                gltf::buffer::Source::Bin => None,
            };
            let fail = |problem: Problem| match uri {
                Some(uri) => uri_error(&what, uri, problem),
                None => Reason::Resources(format!("{what} (the GLB binary chunk): {problem}")),
            };
            if declared > MAX_BUFFER_BYTES {
                return Err(fail(format!(
                    "declares {declared} bytes, more than the limit of {MAX_BUFFER_BYTES}"
                )));
            }
            self.take(declared).map_err(fail)?;
            let mut data = match uri {
                Some(uri) => self
                    .read_uri(uri, declared, MAX_BUFFER_BYTES)
                    .map_err(fail)?,
                None => blob
                    .take()
                    .ok_or_else(|| fail("the file has no binary chunk".into()))?,
            };
            if data.len() < declared {
                return Err(fail(format!(
                    "holds {} bytes, fewer than the byteLength of {declared} it declares",
                    data.len()
                )));
            }
            data.truncate(declared);
            while !data.len().is_multiple_of(4) {
                data.push(0);
            }
            out.push(gltf::buffer::Data(data));
        }
        Ok(out)
    }

    /// Decodes every image: a data URI, a file in the model's folder or a
    /// buffer view, as PNG or JPEG (by MIME type, else by the file name's
    /// extension), with at most [`MAX_IMAGE_SIDE`] pixels a side.
    pub(super) fn images(
        &mut self,
        doc: &gltf::Document,
        buffers: &[gltf::buffer::Data],
    ) -> Result<Vec<gltf::image::Data>, Reason> {
        use image::ImageFormat::{Jpeg, Png};
        let by_mime = |mime: &str| match mime {
            "image/png" => Some(Png),
            "image/jpeg" => Some(Jpeg),
            _ => None,
        };
        let mut out = Vec::new();
        for img in doc.images() {
            let what = format!("image {}", img.index());
            let (bytes, format, uri) = match img.source() {
                gltf::image::Source::View { view, mime_type } => {
                    let data = &buffers
                        .get(view.buffer().index())
                        .ok_or_else(|| {
                            Reason::Resources(format!("{what} lies in a buffer that is missing"))
                        })?
                        .0;
                    let end = view.offset().checked_add(view.length());
                    let Some(bytes) = end.and_then(|end| data.get(view.offset()..end)) else {
                        return Err(Reason::Resources(format!("{what} lies outside its buffer")));
                    };
                    (bytes.to_vec(), by_mime(mime_type), None)
                }
                gltf::image::Source::Uri { uri, mime_type } => {
                    let fail = |problem: Problem| uri_error(&what, uri, problem);
                    let bytes = self
                        .read_uri(uri, MAX_IMAGE_FILE_BYTES + 1, MAX_IMAGE_FILE_BYTES)
                        .map_err(fail)?;
                    if bytes.len() > MAX_IMAGE_FILE_BYTES {
                        return Err(fail(format!(
                            "the image is larger than the limit of {MAX_IMAGE_FILE_BYTES} bytes"
                        )));
                    }
                    self.take(bytes.len()).map_err(fail)?;
                    let format = match (mime_type, data_uri_media_type(uri)) {
                        (Some(m), _) => by_mime(m),
                        (None, Some(m)) => by_mime(m),
                        (None, None) => match uri.rsplit('.').next() {
                            Some("png") => Some(Png),
                            Some("jpg" | "jpeg") => Some(Jpeg),
                            _ => None,
                        },
                    };
                    (bytes, format, Some(uri))
                }
            };
            let fail = |problem: Problem| match uri {
                Some(uri) => uri_error(&what, uri, problem),
                None => Reason::Resources(format!("{what}: {problem}")),
            };
            let format = format.ok_or_else(|| {
                fail("is neither PNG nor JPEG (by its MIME type or file name)".into())
            })?;
            let image = decode_image(&bytes, format, self.decoded_left).map_err(fail)?;
            self.decoded_left = self.decoded_left.saturating_sub(image.pixels.len());
            out.push(image);
        }
        Ok(out)
    }

    /// The bytes a URI names: at most `file_limit` of a file (reading stops
    /// there); a data URI that decodes to more than `data_limit` is refused
    /// (its text is already in memory, part of the model file).
    fn read_uri(
        &self,
        uri: &str,
        file_limit: usize,
        data_limit: usize,
    ) -> Result<Vec<u8>, Problem> {
        if let Some(rest) = uri.strip_prefix("data:") {
            return decode_data_uri(rest, data_limit);
        }
        let Some(base) = self.base else {
            relative_path(uri)?;
            return Err(
                "names a file, but the model was given as bytes without its folder".to_string(),
            );
        };
        read_inside(base, uri, file_limit)
    }
}

/// The error for resource `what` whose URI `uri` has `problem`.
fn uri_error(what: &str, uri: &str, problem: Problem) -> Reason {
    Reason::Uri {
        resource: what.to_string(),
        uri: shown_uri(uri),
        problem,
    }
}

/// `uri` as an error shows it: control characters escaped, cut after
/// [`SHOWN_URI_CHARS`] characters.
fn shown_uri(uri: &str) -> String {
    let mut shown: String = uri
        .chars()
        .take(SHOWN_URI_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if uri.chars().count() > SHOWN_URI_CHARS {
        shown.push('…');
    }
    shown
}

/// The media type of a `data:` URI (`image/png` of
/// `data:image/png;base64,...`), if it is one and names one.
fn data_uri_media_type(uri: &str) -> Option<&str> {
    let header = uri.strip_prefix("data:")?.split_once(',')?.0;
    let media = header.split(';').next()?;
    (!media.is_empty()).then_some(media)
}

/// Decodes the part of a data URI after `data:`; only base64 is accepted.
fn decode_data_uri(rest: &str, limit: usize) -> Result<Vec<u8>, Problem> {
    let Some((header, payload)) = rest.split_once(',') else {
        return Err("is a data URI without a ',' before its data".to_string());
    };
    if !header.ends_with(";base64") {
        return Err("is a data URI that is not base64 (only ';base64,' data is read)".to_string());
    }
    // Every 4 base64 characters give 3 bytes: refuse before decoding.
    if payload.len() / 4 > limit / 3 + 1 {
        return Err(format!(
            "holds more than the {limit} bytes allowed here ({} base64 characters)",
            payload.len()
        ));
    }
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine
        .decode(payload)
        .map_err(|e| format!("is a data URI whose base64 is malformed: {e}"))
}

/// The normalised relative path a non-data URI names, or why it names none
/// the model may read: a scheme, an absolute path, a backslash, a NUL, a
/// percent-encoding that is not UTF-8, or a `..` that leaves the folder.
fn relative_path(uri: &str) -> Result<PathBuf, Problem> {
    // RFC 3986: a scheme is what precedes the first ':' when no '/', '?' or
    // '#' comes before it (this also catches Windows drive letters).
    if let Some(colon) = uri.find(':')
        && !uri[..colon].contains(['/', '?', '#'])
    {
        let scheme = &uri[..colon];
        return Err(format!(
            "uses the URI scheme '{}': a model may only name data: URIs and files in its own folder",
            shown_uri(scheme)
        ));
    }
    let decoded = percent_encoding::percent_decode_str(uri)
        .decode_utf8()
        .map_err(|_| "does not percent-decode to UTF-8 text".to_string())?;
    if decoded.is_empty() {
        return Err("is empty".to_string());
    }
    if decoded.contains('\0') {
        return Err("holds a NUL character".to_string());
    }
    if decoded.contains('\\') {
        return Err("holds a backslash: use '/' between folders".to_string());
    }
    if decoded.starts_with('/') {
        return Err(
            "is an absolute path: a model may only name files in its own folder".to_string(),
        );
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in decoded.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err("climbs out of the model's folder with '..'".to_string());
                }
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err("names the model's folder, not a file in it".to_string());
    }
    let path: PathBuf = parts.iter().collect();
    // Belt and braces: what is left must be plain names.
    if !path.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err("is not a plain relative path".to_string());
    }
    Ok(path)
}

/// The file a buffer or image URI that is not a `data:` URI names, under
/// the model's folder `base`: its canonical path (symbolic links followed),
/// which lies inside `base`'s and is a regular file; or, in a sentence
/// that follows the URI in an error, why it names no file the model may
/// read. The importer reads only what this returns (the fuzz target checks
/// the promise on every URI it finds).
pub fn resolve_file_uri(base: &Path, uri: &str) -> Result<PathBuf, String> {
    let relative = relative_path(uri)?;
    let shown = relative.display();
    // A model named without a folder (`model.gltf`) has the empty path as
    // its parent: the working folder.
    let base = if base.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base
    };
    let folder = base
        .canonicalize()
        .map_err(|e| format!("the model's folder cannot be opened: {e}"))?;
    let target = folder
        .join(&relative)
        .canonicalize()
        .map_err(|e| format!("cannot open {shown}: {e}"))?;
    if !target.starts_with(&folder) {
        return Err(format!(
            "{shown} leads out of the model's folder (through a symbolic link)"
        ));
    }
    let meta = std::fs::metadata(&target).map_err(|e| format!("cannot open {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown} is not a regular file"));
    }
    Ok(target)
}

/// Reads at most `limit` bytes of the file `uri` names under `base` (see
/// [`resolve_file_uri`]).
fn read_inside(base: &Path, uri: &str, limit: usize) -> Result<Vec<u8>, Problem> {
    let target = resolve_file_uri(base, uri)?;
    let relative = relative_path(uri)?;
    let shown = relative.display();
    let file = std::fs::File::open(&target).map_err(|e| format!("cannot open {shown}: {e}"))?;
    // The file could have been swapped between the checks and the opening.
    let opened = file
        .metadata()
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !opened.is_file() {
        return Err(format!("{shown} is not a regular file"));
    }
    let mut data = Vec::with_capacity(limit.min(opened.len() as usize));
    file.take(limit as u64)
        .read_to_end(&mut data)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    Ok(data)
}

/// Decodes PNG or JPEG bytes into the `gltf` crate's image form (which the
/// importer's texture conversion takes), refusing an image wider or taller
/// than [`MAX_IMAGE_SIDE`], or one whose decoding would allocate more than
/// `max_alloc` bytes, before its pixels are decoded.
fn decode_image(
    bytes: &[u8],
    format: image::ImageFormat,
    max_alloc: usize,
) -> Result<gltf::image::Data, Problem> {
    use gltf::image::Format;
    use image::DynamicImage;
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(max_alloc as u64);
    reader.limits(limits);
    let image = reader.decode().map_err(|e| {
        format!(
            "cannot be decoded (at most {MAX_IMAGE_SIDE} pixels a side, {max_alloc} bytes): {e}"
        )
    })?;
    let format = match image {
        DynamicImage::ImageLuma8(_) => Format::R8,
        DynamicImage::ImageLumaA8(_) => Format::R8G8,
        DynamicImage::ImageRgb8(_) => Format::R8G8B8,
        DynamicImage::ImageRgba8(_) => Format::R8G8B8A8,
        DynamicImage::ImageLuma16(_) => Format::R16,
        DynamicImage::ImageLumaA16(_) => Format::R16G16,
        DynamicImage::ImageRgb16(_) => Format::R16G16B16,
        DynamicImage::ImageRgba16(_) => Format::R16G16B16A16,
        DynamicImage::ImageRgb32F(_) => Format::R32G32B32FLOAT,
        DynamicImage::ImageRgba32F(_) => Format::R32G32B32A32FLOAT,
        _ => return Err("has a pixel format the importer does not read".to_string()),
    };
    let (width, height) = (image.width(), image.height());
    Ok(gltf::image::Data {
        pixels: image.into_bytes(),
        format,
        width,
        height,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_in_the_folder() {
        let ok = |uri: &str| relative_path(uri).unwrap();
        assert_eq!(ok("a.bin"), PathBuf::from("a.bin"));
        assert_eq!(ok("sub/./x/../a%20b.bin"), PathBuf::from("sub/a b.bin"));
        let bad = |uri: &str| relative_path(uri).unwrap_err();
        assert!(bad("file:///dev/zero").contains("scheme 'file'"));
        assert!(bad("C:/x.bin").contains("scheme 'C'"));
        assert!(bad("/etc/hostname").contains("absolute path"));
        assert!(bad("%2Fetc/hostname").contains("absolute path"));
        assert!(bad("%FF").contains("UTF-8"));
        assert!(bad("../x.bin").contains("'..'"));
        assert!(bad("a/../../x.bin").contains("'..'"));
        assert!(bad("a/%2E%2E/%2e%2e/x.bin").contains("'..'"));
        assert!(bad("..\\x.bin").contains("backslash"));
        assert!(bad("a%00.bin").contains("NUL"));
        assert!(bad("").contains("empty"));
        assert!(bad("a/..").contains("folder"));
    }

    #[test]
    fn a_model_named_without_a_folder_resolves_in_the_working_folder() {
        // Tests run in the crate's folder, which holds Cargo.toml.
        let here = std::env::current_dir().unwrap().canonicalize().unwrap();
        let found = resolve_file_uri(Path::new(""), "Cargo.toml").unwrap();
        assert_eq!(found, here.join("Cargo.toml"));
        assert!(resolve_file_uri(Path::new(""), "../Cargo.toml").is_err());
    }

    #[test]
    fn data_uris_are_base64_and_bounded() {
        assert_eq!(
            decode_data_uri("application/octet-stream;base64,AAEC", 3).unwrap(),
            [0, 1, 2]
        );
        // Padding may be left out, as many exporters do.
        assert_eq!(decode_data_uri(";base64,AAE", 8).unwrap(), [0, 1]);
        assert!(
            decode_data_uri("text/plain,hello", 8)
                .unwrap_err()
                .contains("not base64")
        );
        assert!(
            decode_data_uri(";base64,!!!!", 8)
                .unwrap_err()
                .contains("malformed")
        );
        let long = format!(";base64,{}", "A".repeat(400));
        assert!(
            decode_data_uri(&long, 100)
                .unwrap_err()
                .contains("100 bytes")
        );
        assert_eq!(
            data_uri_media_type("data:image/png;base64,AA"),
            Some("image/png")
        );
        assert_eq!(data_uri_media_type("data:;base64,AA"), None);
    }

    #[test]
    fn shown_uris_are_escaped_and_cut() {
        assert_eq!(shown_uri("a\nb"), "a\\nb");
        let long = "x".repeat(100);
        assert_eq!(shown_uri(&long).chars().count(), SHOWN_URI_CHARS + 1);
    }
}
