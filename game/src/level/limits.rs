//! What a level file may hold, and the checks that hold it to that before
//! anything is built from it.
//!
//! A level is text a designer (or anyone) wrote, so every size and
//! coordinate in it is checked against a limit below before it is used, in
//! integer arithmetic where it counts cells. The checks come in three
//! places:
//!
//! - [`read_level_file`]: every file a level reads (the map, its external
//!   tilesets `.tsx`/`.tsj` and object templates `.tx`/`.tj`; a JSON one is
//!   translated to XML by [`super::tmj`] first) must be a regular file of at
//!   most [`MAX_LEVEL_FILE_BYTES`], inside the map's own folder (see
//!   [`check_reference`]); images are never opened (the game draws its own
//!   tiles), so their paths are not checked.
//! - [`preflight`]: the XML of each of those files (for a JSON file, the XML
//!   it translates to) is read once before the
//!   `tiled` crate parses it, and the sizes `tiled` would trust (map, layer and
//!   chunk sizes, the tile data's length, compressed data, tileset tile counts)
//!   are checked: `tiled` 0.15 indexes a layer's tiles without checking that
//!   the file held width × height of them, allocates per declared tile, and
//!   decompresses without a bound, so a file past these limits would panic,
//!   abort or exhaust memory inside it.
//! - The loader (`convert` in `level/mod.rs`) checks every object of a known class
//!   against [`MAX_OBJECT_TILES`] and [`MAX_PATH_POINTS`], and the cells
//!   `Slope` objects cover against [`MAX_SLOPE_OBJECT_CELLS`].
//!
//! Each refusal is one [`LevelError`] naming the file, the place (map, layer,
//! tileset, object), the value and the limit. `assets/levels/README.md`
//! lists the limits for designers.

use std::io::{Cursor, Read};
use std::path::Path;

use base64::Engine;
use xml::reader::{EventReader, XmlEvent};

use super::{LevelError, TILE_METRES};

/// Largest level file (map, tileset or template) read, bytes: sixteen times
/// the longest shipped map's tiles at the largest map size ([`MAX_MAP_CELLS`]
/// cells of CSV take about 12 MiB); a larger file is not a level.
pub const MAX_LEVEL_FILE_BYTES: u64 = 16 << 20;
/// Longest side of a map and of any tile layer or chunk, tiles (2048 m at
/// [`TILE_METRES`]): twenty times the longest shipped level (205 tiles), and
/// small enough that positions keep sub-millimetre precision in `f32` and
/// the level's spatial index (one bucket per half metre) stays small.
pub const MAX_MAP_SIDE_TILES: u32 = 4096;
/// Most tile cells all tile layers and chunks of a map may declare together:
/// the `tiled` reader keeps an entry for every cell and the loader visits
/// each, so this bounds both memory (about 50 MB) and load time (well under
/// a second). The shipped levels use under 5,000.
pub const MAX_MAP_CELLS: u64 = 1 << 22;
/// Largest tile width or height, and tileset margin or spacing, pixels: a
/// tile is [`TILE_METRES`] whatever its pixels, and no tile art is larger.
pub const MAX_TILE_PX: u32 = 4096;
/// Most tiles a tileset may declare (`tilecount`, `columns`): the `tiled`
/// reader makes an entry for each declared tile before reading any.
pub const MAX_TILESET_TILES: u32 = 65536;
/// How far from the map's top-left corner a classed object may lie, in tiles
/// along each axis (its position, its far corner and every point of its
/// path): a whole map's length beyond the largest map. A ladder, spawn or
/// slope further out is a typo, and the checks that walk a ladder's height
/// or a platform's path stay bounded.
pub const MAX_OBJECT_TILES: u32 = MAX_MAP_SIDE_TILES;
/// Most points a `MovingPlatform` path may have: `check-level` sweeps the
/// platform's box along every leg.
pub const MAX_PATH_POINTS: usize = 1024;
/// Most tile cells `Slope` objects may cover in a map, all together: each
/// covered cell becomes a ground cell of its own (designer mode writes one
/// object per edited cell; a hand-drawn object covers a few dozen).
pub const MAX_SLOPE_OBJECT_CELLS: u64 = 1 << 16;
/// The farthest a level's geometry reaches from the map's top-left corner,
/// metres ([`MAX_OBJECT_TILES`] tiles): what every later check may assume.
pub const MAX_LEVEL_REACH_M: f32 = MAX_OBJECT_TILES as f32 * TILE_METRES;

/// Deepest nesting of XML elements in a level file: the Tiled reader (and
/// the loader) recurse once per nested group layer and class property, so a
/// file nested deeper could overflow the stack; a real map nests a handful
/// of levels (map, group, layer, data).
pub const MAX_XML_DEPTH: usize = 64;
/// Longest `MovingPlatform` path, all legs together, metres: twice the
/// level's reach; `check-level` sweeps the platform's box every 5 cm of it.
pub const MAX_PATH_LENGTH_M: f32 = 2.0 * MAX_LEVEL_REACH_M;
/// Most rungs a `Ladder` may have: the climber looks for the nearest rung
/// among them all; a ladder the whole height of the largest map at the
/// closest climbable spacing (0.25 m) has 8,192.
pub const MAX_LADDER_RUNGS: f32 = 16384.0;

/// The bits of a tile gid that are flip flags, not the tile (as the `tiled`
/// reader masks them).
const FLIP_BITS: u32 = 0xE000_0000;

/// Whether `resolved` (a tileset or template path as the `tiled` reader
/// joined it to the folder of the file naming it) may be read for the map
/// at `map`: it must exist inside the map's folder or a folder under it,
/// after `..` and symbolic links are resolved. So an absolute path, a `..`
/// that leaves the map's folder, or a link out of it is refused (a level
/// file from elsewhere reads nothing else of the user's); `../` from a
/// template in a subfolder back into the map's folder is fine.
pub fn check_reference(map: &Path, resolved: &Path) -> Result<(), String> {
    let folder = map
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let root = folder
        .canonicalize()
        .map_err(|e| format!("the map's folder {}: {e}", folder.display()))?;
    // A path that does not exist is judged by its text (`..` resolved
    // without the file system), so an absolute path is refused as one.
    let target = match resolved.canonicalize() {
        Ok(t) => t,
        Err(e) => {
            let lexical = lexical(&std::env::current_dir().unwrap_or_default().join(resolved));
            if lexical.starts_with(&root) || lexical.starts_with(lexical_root(folder)) {
                return Err(e.to_string());
            }
            lexical
        }
    };
    if target.starts_with(&root) {
        Ok(())
    } else {
        Err(format!(
            "it is outside the map's folder {} (resolved to {}): a level reads only tilesets and \
             templates in its own folder or below; copy the file there or embed the tileset",
            root.display(),
            target.display()
        ))
    }
}

/// `path` with `.` and `..` resolved by its text alone.
fn lexical(path: &Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The map's folder as an absolute path by its text alone.
fn lexical_root(folder: &Path) -> std::path::PathBuf {
    lexical(&std::env::current_dir().unwrap_or_default().join(folder))
}

/// Reads the file `resolved` that the map `map` names (a tileset or template)
/// under [`check_reference`] and [`crate::fsio::read_bounded`], then
/// [`preflight`]s it.
/// The error names the referenced file.
pub fn read_level_file(map: &Path, resolved: &Path) -> Result<Vec<u8>, LevelError> {
    let file = resolved.display().to_string();
    let refused = |reason: String| LevelError::Invalid {
        file: map.display().to_string(),
        location: format!("file '{file}'"),
        reason,
    };
    check_reference(map, resolved).map_err(refused)?;
    let bytes = crate::fsio::read_bounded(resolved, MAX_LEVEL_FILE_BYTES)
        .map_err(|e| refused(e.to_string()))?;
    // A Tiled JSON tileset or template is read as the TSX or TX text it
    // translates to, and checked as that.
    let bytes = if super::tmj::is_json_path(resolved) {
        super::tmj::reference_to_xml(&bytes, resolved)
            .map_err(|e| match e {
                LevelError::Invalid {
                    location, reason, ..
                } => refused_at(map, &file, &location, reason),
                other => other,
            })?
            .into_bytes()
    } else {
        bytes
    };
    // Named in the map's error (the map is what the user loads), with the
    // file and the place inside it.
    preflight(&bytes, &file).map_err(|e| match e {
        LevelError::Invalid {
            location, reason, ..
        } => refused_at(map, &file, &location, reason),
        other => other,
    })?;
    Ok(bytes)
}

/// An error in the file `file` that the map `map` names, at `location` in it.
fn refused_at(map: &Path, file: &str, location: &str, reason: String) -> LevelError {
    LevelError::Invalid {
        file: map.display().to_string(),
        location: format!("file '{file}' {location}"),
        reason,
    }
}

/// Reads the map file itself under [`crate::fsio::read_bounded`] (no
/// folder rule: the user named it).
pub fn read_map_file(path: &Path) -> Result<Vec<u8>, LevelError> {
    crate::fsio::read_bounded(path, MAX_LEVEL_FILE_BYTES).map_err(|e| LevelError::Invalid {
        file: path.display().to_string(),
        location: "map".into(),
        reason: format!("cannot read {}: {e}", path.display()),
    })
}

/// What [`preflight`] learnt that the loader needs.
#[derive(Clone, Debug, Default)]
pub struct Preflight {
    /// The `firstgid` of each of the map's tilesets, in file order (the
    /// order of `tiled`'s tileset indices).
    pub first_gids: Vec<u32>,
}

/// The tile layer or chunk whose data is being read.
struct Grid {
    /// The layer's name.
    layer: String,
    /// Top-left tile of the data (a chunk's position; 0, 0 for a layer).
    x: i64,
    y: i64,
    /// Width and height in tiles.
    w: u64,
    h: u64,
    encoding: Option<String>,
    compression: Option<String>,
}

/// A tileset being read: what its `<image>` must agree with.
struct TilesetScan {
    name: String,
    has_columns: bool,
    margin: u32,
}

/// Checks a map, tileset or template document against the limits above
/// before the `tiled` reader parses it. A document that is not well-formed
/// XML passes (the reader reports that itself, the same way); what this
/// refuses is well-formed XML whose numbers would make the reader panic,
/// allocate without bound or silently misread the level.
pub fn preflight(bytes: &[u8], file: &str) -> Result<Preflight, LevelError> {
    let mut out = Preflight::default();
    let fail = |location: String, reason: String| LevelError::Invalid {
        file: file.to_string(),
        location,
        reason,
    };
    let mut parser = EventReader::new(Cursor::new(bytes));
    let mut stack: Vec<String> = Vec::new();
    let mut infinite = false;
    let mut map_size: Option<(u64, u64)> = None;
    let mut cells: u64 = 0;
    let mut layer: Option<(String, u64, u64)> = None;
    // The layer or chunk whose data text comes next, until it is read.
    let mut pending: Option<Grid> = None;
    let mut data_encoding: (Option<String>, Option<String>) = (None, None);
    let mut tileset: Option<TilesetScan> = None;
    loop {
        let event = match parser.next() {
            Ok(e) => e,
            // Malformed XML: the `tiled` reader reports it.
            Err(_) => return Ok(out),
        };
        match event {
            XmlEvent::StartElement {
                name, attributes, ..
            } => {
                let tag = name.local_name.clone();
                if stack.len() >= MAX_XML_DEPTH {
                    return Err(fail(
                        format!("element <{tag}>"),
                        format!(
                            "nested {} elements deep, more than the limit of {MAX_XML_DEPTH}",
                            stack.len() + 1
                        ),
                    ));
                }
                let get = |key: &str| {
                    attributes
                        .iter()
                        .find(|a| a.name.local_name == key)
                        .map(|a| a.value.trim().to_string())
                };
                // An attribute that must be a whole number in 0..=max.
                let bounded = |key: &str, max: u64, location: &str| -> Result<u64, LevelError> {
                    match get(key) {
                        None => Ok(0),
                        Some(v) => match v.parse::<u64>() {
                            Ok(n) if n <= max => Ok(n),
                            Ok(n) => Err(fail(
                                location.to_string(),
                                format!("{key} {n} is more than the limit of {max}"),
                            )),
                            // Not a number: the reader reports it.
                            Err(_) => Ok(0),
                        },
                    }
                };
                match tag.as_str() {
                    "map" if stack.is_empty() => {
                        let side = u64::from(MAX_MAP_SIDE_TILES);
                        let w = get("width").and_then(|v| v.parse::<u64>().ok());
                        let h = get("height").and_then(|v| v.parse::<u64>().ok());
                        for (key, v) in [("width", w), ("height", h)] {
                            if let Some(v) = v.filter(|&v| v > side) {
                                return Err(fail(
                                    "map".into(),
                                    format!(
                                        "map too large: {key} {v} tiles is more than the limit of {side} tiles ({} m)",
                                        side as f32 * TILE_METRES
                                    ),
                                ));
                            }
                        }
                        for key in ["tilewidth", "tileheight"] {
                            bounded(key, u64::from(MAX_TILE_PX), "map")?;
                        }
                        // Exactly as the Tiled reader decides it (no trimming).
                        infinite = attributes
                            .iter()
                            .any(|a| a.name.local_name == "infinite" && a.value == "1");
                        map_size = w.zip(h);
                    }
                    "tileset" => {
                        let name = get("name").unwrap_or_default();
                        let location = if name.is_empty() {
                            "tileset".to_string()
                        } else {
                            format!("tileset '{name}'")
                        };
                        if stack.last().is_some_and(|p| p == "map") {
                            let gid = get("firstgid").and_then(|v| v.parse::<u32>().ok());
                            out.first_gids.push(gid.unwrap_or(1));
                        }
                        for key in ["tilecount", "columns"] {
                            bounded(key, u64::from(MAX_TILESET_TILES), &location)?;
                        }
                        for key in ["tilewidth", "tileheight", "margin", "spacing"] {
                            bounded(key, u64::from(MAX_TILE_PX), &location)?;
                        }
                        tileset = Some(TilesetScan {
                            margin: bounded("margin", u64::from(MAX_TILE_PX), &location)? as u32,
                            name: location,
                            has_columns: get("columns").is_some(),
                        });
                    }
                    "image" if stack.last().is_some_and(|p| p == "tileset") => {
                        // Without `columns`, the reader computes them as
                        // (image width − margin + spacing) / (tile width +
                        // spacing), in unsigned arithmetic.
                        if let Some(ts) = tileset.as_ref().filter(|t| !t.has_columns) {
                            let width = get("width").and_then(|v| v.parse::<i64>().ok());
                            if let Some(w) = width
                                && (w < i64::from(ts.margin) || w > i64::from(i32::MAX))
                            {
                                return Err(fail(
                                    ts.name.clone(),
                                    format!(
                                        "image width {w} px is not between the margin ({} px) and {} px, and the tileset has no columns attribute",
                                        ts.margin,
                                        i32::MAX
                                    ),
                                ));
                            }
                        }
                    }
                    "layer" => {
                        let name = get("name").unwrap_or_default();
                        let location = format!("layer '{name}'");
                        let side = u64::from(MAX_MAP_SIDE_TILES);
                        let w = bounded("width", side, &location)?;
                        let h = bounded("height", side, &location)?;
                        if !infinite {
                            if let Some((mw, mh)) = map_size
                                && (w, h) != (mw, mh)
                            {
                                return Err(fail(
                                    location,
                                    format!(
                                        "the layer is {w} × {h} tiles but the map is {mw} × {mh}: a finite map's tile layers have the map's size"
                                    ),
                                ));
                            }
                            cells = add_cells(cells, w * h, &location, file)?;
                        }
                        layer = Some((name, w, h));
                    }
                    "data" if layer.is_some() => {
                        data_encoding = (get("encoding"), get("compression"));
                        if !infinite {
                            let (name, w, h) = layer.clone().unwrap_or_default();
                            pending = Some(Grid {
                                layer: name,
                                x: 0,
                                y: 0,
                                w,
                                h,
                                encoding: data_encoding.0.clone(),
                                compression: data_encoding.1.clone(),
                            });
                        }
                    }
                    "chunk" if infinite && layer.is_some() => {
                        let name = layer.as_ref().map(|l| l.0.clone()).unwrap_or_default();
                        let side = i64::from(MAX_MAP_SIDE_TILES);
                        let num = |key: &str| get(key).and_then(|v| v.parse::<i64>().ok());
                        let (x, y) = (num("x").unwrap_or(0), num("y").unwrap_or(0));
                        let (w, h) = (num("width").unwrap_or(0), num("height").unwrap_or(0));
                        let location = format!("layer '{name}' chunk at ({x},{y})");
                        for (key, lo, len) in [("x", x, w), ("y", y, h)] {
                            if !(0..=side).contains(&len)
                                || lo < -side
                                || lo.saturating_add(len) > side
                            {
                                return Err(fail(
                                    location,
                                    format!(
                                        "the chunk spans {key} {lo}..{} tiles, outside the limit of ±{side} tiles",
                                        lo.saturating_add(len)
                                    ),
                                ));
                            }
                        }
                        cells = add_cells(cells, (w * h) as u64, &location, file)?;
                        pending = Some(Grid {
                            layer: name,
                            x,
                            y,
                            w: w as u64,
                            h: h as u64,
                            encoding: data_encoding.0.clone(),
                            compression: data_encoding.1.clone(),
                        });
                    }
                    _ => {}
                }
                stack.push(tag);
            }
            XmlEvent::EndElement { name } => {
                stack.pop();
                match name.local_name.as_str() {
                    // A layer or chunk with no data text: the reader sees no
                    // tiles at all and would index past them.
                    "data" | "chunk" => {
                        if let Some(g) = pending.take() {
                            check_tiles(&g, None, &out.first_gids, file)?;
                        }
                    }
                    "layer" => layer = None,
                    "tileset" => tileset = None,
                    _ => {}
                }
            }
            XmlEvent::Characters(text) => {
                if let Some(g) = pending.take() {
                    check_tiles(&g, Some(&text), &out.first_gids, file)?;
                }
            }
            XmlEvent::EndDocument => return Ok(out),
            _ => {}
        }
    }
}

/// Adds a layer's or chunk's cells to the map's count, refusing past
/// [`MAX_MAP_CELLS`].
fn add_cells(total: u64, more: u64, location: &str, file: &str) -> Result<u64, LevelError> {
    let sum = total.saturating_add(more);
    if sum > MAX_MAP_CELLS {
        return Err(LevelError::Invalid {
            file: file.to_string(),
            location: location.to_string(),
            reason: format!(
                "map too large: its tile layers hold {sum} cells so far, more than the limit of {MAX_MAP_CELLS}"
            ),
        });
    }
    Ok(sum)
}

/// Checks one layer's or chunk's tile data: exactly width × height tiles,
/// compressed data decompressed under that bound, and every gid either 0
/// (empty) or at or above the first tileset's `firstgid`. Data the reader
/// cannot decode at all (a bad number, bad base64, an unknown encoding)
/// passes: the reader reports it.
fn check_tiles(
    g: &Grid,
    text: Option<&str>,
    first_gids: &[u32],
    file: &str,
) -> Result<(), LevelError> {
    let expected = g.w * g.h;
    let fail = |reason: String| LevelError::Invalid {
        file: file.to_string(),
        location: format!("layer '{}'", g.layer),
        reason,
    };
    // Whether the data holds more than width × height tiles.
    let mut too_long = false;
    // How many bytes decompression produced before it was stopped.
    let mut unpacked: Option<usize> = None;
    let gids: Vec<u32> = match (text, g.encoding.as_deref(), g.compression.as_deref()) {
        // No text at all: the reader reads no tiles (and would index past them).
        (None, _, _) => Vec::new(),
        (Some(text), Some("csv"), None) => {
            let mut gids = Vec::new();
            for v in text.split(',') {
                match v.trim().parse::<u32>() {
                    Ok(n) => gids.push(n),
                    Err(_) => return Ok(()),
                }
                if gids.len() as u64 > expected {
                    too_long = true;
                    break;
                }
            }
            gids
        }
        (Some(text), Some("base64"), compression) => {
            let engine = base64::engine::GeneralPurpose::new(
                &base64::alphabet::STANDARD,
                base64::engine::general_purpose::PAD,
            );
            let Ok(raw) = engine.decode(text.trim().as_bytes()) else {
                return Ok(());
            };
            // One more byte than the tiles need shows the data is too long.
            let bound = expected * 4 + 1;
            let bytes = match compression {
                None => Some(raw),
                Some("zlib") => bounded_read(flate2::bufread::ZlibDecoder::new(&raw[..]), bound),
                Some("gzip") => bounded_read(flate2::bufread::GzDecoder::new(&raw[..]), bound),
                Some("zstd") => zstd::stream::read::Decoder::with_buffer(&raw[..])
                    .ok()
                    .and_then(|d| bounded_read(d, bound)),
                Some(_) => None,
            };
            let Some(bytes) = bytes else {
                return Ok(());
            };
            if compression.is_some() {
                unpacked = Some(bytes.len());
            }
            too_long = bytes.len() as u64 > expected * 4;
            if bytes.len() % 4 != 0 && !too_long {
                return Err(fail(format!(
                    "the data length does not match width × height: {} bytes is not 4 bytes per tile",
                    bytes.len()
                )));
            }
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }
        _ => return Ok(()),
    };
    if too_long {
        let stopped = unpacked
            .map(|n| format!(" (decompression stopped after {n} bytes)"))
            .unwrap_or_default();
        return Err(fail(format!(
            "the data length does not match width × height: it holds more than {} × {} = {expected} tiles{stopped}",
            g.w, g.h
        )));
    }
    if gids.len() as u64 != expected {
        return Err(fail(format!(
            "the data length does not match width × height: it holds {} tiles, not {} × {} = {expected}",
            gids.len(),
            g.w,
            g.h
        )));
    }
    let first = first_gids.iter().copied().min();
    for (i, &bits) in gids.iter().enumerate() {
        let gid = bits & !FLIP_BITS;
        if gid != 0 && first.is_none_or(|f| gid < f) {
            let (col, row) = (g.x + (i as u64 % g.w) as i64, g.y + (i as u64 / g.w) as i64);
            return Err(LevelError::Invalid {
                file: file.to_string(),
                location: format!("layer '{}' tile ({col},{row})", g.layer),
                reason: format!(
                    "tile gid {gid} belongs to no tileset ({})",
                    match first {
                        Some(f) => format!("the first tileset starts at gid {f}"),
                        None => "the map has no tilesets".into(),
                    }
                ),
            });
        }
    }
    Ok(())
}

/// Up to `bound` bytes of a decoder's output; `None` when the data is
/// broken within them (the reader then reports that itself, having read
/// no further than this).
fn bounded_read(decoder: impl Read, bound: u64) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    decoder.take(bound).read_to_end(&mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// A fresh folder for one test, holding a copy of the test map that
    /// names an external tileset (`external.tsx`) and a template.
    fn scratch(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ironstep-limits-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/levels");
        for f in [
            "external_tileset_and_template.tmx",
            "external.tsx",
            "ladder.tx",
        ] {
            std::fs::copy(src.join(f), dir.join(f)).unwrap();
        }
        dir
    }

    /// The test map with its tileset source replaced by `source`.
    fn map_naming(dir: &Path, source: &str) -> PathBuf {
        let path = dir.join("external_tileset_and_template.tmx");
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("source=\"external.tsx\"", &format!("source=\"{source}\""));
        let out = dir.join("named.tmx");
        std::fs::write(&out, text).unwrap();
        out
    }

    fn load_error(path: &Path) -> String {
        super::super::load(path).unwrap_err().to_string()
    }

    #[test]
    fn tilesets_inside_the_maps_folder_load_whatever_the_path_says() {
        let dir = scratch("inside");
        std::fs::create_dir_all(dir.join("tiles")).unwrap();
        std::fs::copy(dir.join("external.tsx"), dir.join("tiles/ground.tsx")).unwrap();
        let reference = super::super::load(dir.join("external_tileset_and_template.tmx")).unwrap();
        for source in [
            "tiles/ground.tsx",
            "tiles/../external.tsx",
            "./external.tsx",
        ] {
            let l = super::super::load(map_naming(&dir, source))
                .unwrap_or_else(|e| panic!("{source}: {e}"));
            assert_eq!(l.level.segments, reference.level.segments, "{source}");
        }
    }

    #[test]
    fn tilesets_outside_the_maps_folder_are_refused_naming_the_path() {
        let dir = scratch("outside");
        let level_dir = dir.join("levels");
        std::fs::create_dir_all(&level_dir).unwrap();
        for f in ["external_tileset_and_template.tmx", "ladder.tx"] {
            std::fs::copy(dir.join(f), level_dir.join(f)).unwrap();
        }
        let absolute = dir.join("external.tsx").display().to_string();
        for source in [
            "../external.tsx",
            absolute.as_str(),
            "/etc/hostname",
            "/no/such/file.tsx",
            "../../missing.tsx",
        ] {
            let e = load_error(&map_naming(&level_dir, source));
            assert!(
                e.contains("named.tmx:file '")
                    && e.contains(source.trim_start_matches("../"))
                    && e.contains("outside the map's folder"),
                "{source}: {e}"
            );
        }
        // A link inside the folder to a file outside it is outside too.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("external.tsx"), level_dir.join("link.tsx"))
                .unwrap();
            let e = load_error(&map_naming(&level_dir, "link.tsx"));
            assert!(
                e.contains("link.tsx") && e.contains("outside the map's folder"),
                "{e}"
            );
            std::os::unix::fs::symlink("/dev/zero", level_dir.join("zero.tsx")).unwrap();
            let e = load_error(&map_naming(&level_dir, "zero.tsx"));
            assert!(
                e.contains("zero.tsx") && e.contains("outside the map's folder"),
                "{e}"
            );
        }
    }

    #[test]
    fn folders_pipes_and_oversized_files_are_refused_naming_the_path() {
        let dir = scratch("special");
        std::fs::create_dir_all(dir.join("folder.tsx")).unwrap();
        let e = load_error(&map_naming(&dir, "folder.tsx"));
        assert!(
            e.contains("folder.tsx") && e.contains("not a regular file"),
            "{e}"
        );
        #[cfg(unix)]
        {
            let fifo = dir.join("pipe.tsx");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                let e = load_error(&map_naming(&dir, "pipe.tsx"));
                assert!(
                    e.contains("pipe.tsx") && e.contains("not a regular file"),
                    "{e}"
                );
            }
        }
        let big = dir.join("big.tsx");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(MAX_LEVEL_FILE_BYTES + 1).unwrap();
        let e = load_error(&map_naming(&dir, "big.tsx"));
        assert!(
            e.contains("big.tsx") && e.contains(&format!("limit of {MAX_LEVEL_FILE_BYTES} bytes")),
            "{e}"
        );
        // The map itself is bounded the same way.
        let e = load_error(&{
            let p = dir.join("big.tmx");
            std::fs::rename(&big, &p).unwrap();
            p
        });
        assert!(
            e.starts_with(&format!("{}:map:", dir.join("big.tmx").display())),
            "{e}"
        );
    }

    #[test]
    fn a_tileset_file_past_a_limit_is_refused_naming_that_file() {
        let dir = scratch("tsx-limit");
        let tsx = dir.join("external.tsx");
        let text = std::fs::read_to_string(&tsx)
            .unwrap()
            .replace("tilecount=\"4\"", "tilecount=\"3000000000\"");
        std::fs::write(&tsx, text).unwrap();
        let e = load_error(&dir.join("external_tileset_and_template.tmx"));
        let map = dir.join("external_tileset_and_template.tmx");
        assert!(
            e.starts_with(&format!(
                "{}:file '{}' tileset 'test':",
                map.display(),
                tsx.display()
            )) && e.contains("tileset 'test'")
                && e.contains("tilecount 3000000000 is more than the limit of 65536"),
            "{e}"
        );
    }
}
