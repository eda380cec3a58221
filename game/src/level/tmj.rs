//! Tiled's JSON formats (maps `.tmj`/`.json`, tilesets `.tsj`, object
//! templates `.tj`) read into a typed model and written out as the TMX, TSX
//! and TX text Tiled itself would write for them, which then takes the one
//! loading path every level takes: [`super::limits::preflight`], the `tiled`
//! reader, and the world builder. So a JSON map gets exactly the classes,
//! checks, limits and error messages a TMX map gets; nothing here decides
//! anything about a level.
//!
//! Why a translation: the `tiled` crate (0.15) reads only TMX and TSX (its
//! issue #108), and its `Map` cannot be built from outside the crate.
//!
//! What is read: everything the game or its checks use, as Tiled 1.8–1.11
//! write it — the map's size, orientation, tile size, `infinite`,
//! `nextobjectid` and properties; tile layers (data as a JSON array, or
//! base64 with zlib, gzip or zstd compression, finite or in chunks), object
//! layers, group layers and image layers with their names, ids, offsets,
//! parallax, visibility and properties; embedded and external tilesets with
//! their tiles' classes (`type`, or `class` as Tiled 1.9 wrote it),
//! properties and images; objects with every shape (rectangle, point,
//! ellipse, polygon, polyline, text, tile), templates and properties (class
//! properties included). What the game never uses (Wang sets, terrains,
//! animations, tile collision shapes, editor settings) is skipped.
//!
//! Bounds: the text is at most [`super::limits::MAX_LEVEL_FILE_BYTES`] (read
//! before this sees it); a tile layer's data array is refused past
//! [`super::limits::MAX_MAP_CELLS`] entries while it is read, before the
//! rest of the file; `serde_json` stops at 128 nested arrays and objects,
//! so nothing recurses without bound. Malformed JSON, or JSON that is not a
//! Tiled map, is one [`LevelError`] naming the file, the line and column,
//! and the reason.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_json::{Number, Value};

use super::LevelError;
use super::limits::MAX_MAP_CELLS;

/// How deep arrays and objects may nest in a Tiled JSON file: `serde_json`'s
/// own limit, which keeps its recursion off the end of the stack. Each
/// group layer nests two (its object and its `layers` array), so about 60
/// groups fit; the TMX reader's [`super::limits::MAX_XML_DEPTH`] allows 64.
pub const JSON_DEPTH: usize = 128;

/// Whether `path` names a Tiled JSON file (`.tmj`, `.tsj`, `.tj` or
/// `.json`), which is translated before it is read.
pub fn is_json_path(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["tmj", "tsj", "tj", "json"]
            .iter()
            .any(|j| e.eq_ignore_ascii_case(j))
    })
}

/// Translates a Tiled JSON map into TMX text; `file` names it in errors.
pub fn map_to_tmx(bytes: &[u8], file: &str) -> Result<String, LevelError> {
    let kind = document_type(bytes, file)?;
    if kind.as_deref().is_some_and(|k| k != "map") {
        return Err(invalid(
            file,
            "map",
            format!(
                "this Tiled JSON file is a {}, not a map",
                kind.unwrap_or_default()
            ),
        ));
    }
    let map: JMap = parse(bytes, file)?;
    let mut w = Xml::default();
    w.map(&map);
    w.finish(file)
}

/// Translates a Tiled JSON tileset (`.tsj`) or object template (`.tj`) that
/// a map names into TSX or TX text; `file` names it in errors. Which one it
/// is comes from its `type` (`tileset` or `template`), else from the
/// extension.
pub fn reference_to_xml(bytes: &[u8], path: &Path) -> Result<String, LevelError> {
    let file = path.display().to_string();
    let kind = document_type(bytes, &file)?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let template = match kind.as_deref() {
        Some("template") => true,
        Some("tileset") => false,
        Some(other) => {
            return Err(invalid(
                &file,
                "file",
                format!("a Tiled JSON {other} where a tileset or an object template was expected"),
            ));
        }
        None => ext == "tj",
    };
    let mut w = Xml::default();
    if template {
        let t: JTemplate = parse(bytes, &file)?;
        w.template(&t);
    } else {
        let t: JTileset = parse(bytes, &file)?;
        w.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        w.tileset(&t, false);
    }
    w.finish(&file)
}

/// The error type every translation refusal is.
fn invalid(file: &str, location: &str, reason: String) -> LevelError {
    LevelError::Invalid {
        file: file.to_string(),
        location: location.to_string(),
        reason,
    }
}

/// The document's top-level `type` (`map`, `tileset`, `template`), read
/// without building the rest; `None` when it has none. Anything but a JSON
/// object is refused here, with its place.
fn document_type(bytes: &[u8], file: &str) -> Result<Option<String>, LevelError> {
    struct Head(Option<String>);
    impl<'de> Deserialize<'de> for Head {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Head;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a Tiled JSON document (an object)")
                }
                fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Head, A::Error> {
                    let mut kind = None;
                    while let Some(key) = map.next_key::<String>()? {
                        if key == "type" {
                            kind = map.next_value::<Value>()?.as_str().map(str::to_string);
                        } else {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                    Ok(Head(kind))
                }
            }
            d.deserialize_map(V)
        }
    }
    let head: Head = parse(bytes, file)?;
    Ok(head.0)
}

/// Parses `bytes` as `T`; a failure names the line and column.
fn parse<'a, T: Deserialize<'a>>(bytes: &'a [u8], file: &str) -> Result<T, LevelError> {
    serde_json::from_slice(bytes).map_err(|e| {
        let what = match e.classify() {
            serde_json::error::Category::Io | serde_json::error::Category::Syntax => {
                "not valid JSON"
            }
            serde_json::error::Category::Eof => "not valid JSON (the file ends early)",
            serde_json::error::Category::Data => "not in Tiled's JSON format",
        };
        // serde_json's message ends with " at line L column C": the place
        // goes in the location instead.
        let message = e.to_string();
        let mut reason = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m)
            .to_string();
        if reason == "recursion limit exceeded" {
            reason = format!(
                "arrays and objects nested more than {JSON_DEPTH} deep, more than the limit \
                 (group layers and class properties nest)"
            );
        }
        let what = if reason.starts_with("arrays and objects nested") {
            "too deep"
        } else {
            what
        };
        invalid(
            file,
            &format!("line {} column {}", e.line(), e.column()),
            format!("{what}: {reason}"),
        )
    })
}

/// A JSON scalar written as an XML attribute value: a string as it is, a
/// number as JSON wrote it, a boolean as `true`/`false`.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Number(Number),
    Bool(bool),
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Text(s) => f.write_str(s),
            Self::Number(n) => write!(f, "{n}"),
            Self::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// The members of a text object's `text` written to TMX's `<text>`.
const TEXT_ATTRIBUTES: [&str; 11] = [
    "fontfamily",
    "pixelsize",
    "wrap",
    "color",
    "bold",
    "italic",
    "underline",
    "strikeout",
    "kerning",
    "halign",
    "valign",
];

/// A map (`.tmj`).
#[derive(Debug, Deserialize)]
struct JMap {
    version: Option<Scalar>,
    tiledversion: Option<String>,
    class: Option<String>,
    orientation: String,
    renderorder: Option<String>,
    width: Number,
    height: Number,
    tilewidth: Number,
    tileheight: Number,
    hexsidelength: Option<Number>,
    staggeraxis: Option<String>,
    staggerindex: Option<String>,
    parallaxoriginx: Option<Number>,
    parallaxoriginy: Option<Number>,
    backgroundcolor: Option<String>,
    infinite: Option<bool>,
    nextlayerid: Option<Number>,
    nextobjectid: Option<Number>,
    #[serde(default)]
    properties: Vec<JProperty>,
    #[serde(default)]
    tilesets: Vec<JTileset>,
    layers: Vec<JLayer>,
}

/// A tileset: embedded in a map (with `firstgid`), a map's reference to an
/// external one (`firstgid` and `source` only), or a `.tsj` file.
#[derive(Debug, Deserialize)]
struct JTileset {
    firstgid: Option<Number>,
    source: Option<String>,
    version: Option<Scalar>,
    tiledversion: Option<String>,
    name: Option<String>,
    class: Option<String>,
    tilewidth: Option<Number>,
    tileheight: Option<Number>,
    spacing: Option<Number>,
    margin: Option<Number>,
    tilecount: Option<Number>,
    columns: Option<Number>,
    objectalignment: Option<String>,
    tilerendersize: Option<String>,
    fillmode: Option<String>,
    image: Option<String>,
    imagewidth: Option<Number>,
    imageheight: Option<Number>,
    transparentcolor: Option<String>,
    tileoffset: Option<JPoint>,
    #[serde(default)]
    properties: Vec<JProperty>,
    #[serde(default)]
    tiles: Vec<JTile>,
}

/// A tile of a tileset that has a class, properties or its own image.
#[derive(Debug, Deserialize)]
struct JTile {
    id: Number,
    #[serde(rename = "type")]
    kind: Option<String>,
    class: Option<String>,
    probability: Option<Number>,
    x: Option<Number>,
    y: Option<Number>,
    width: Option<Number>,
    height: Option<Number>,
    image: Option<String>,
    imagewidth: Option<Number>,
    imageheight: Option<Number>,
    #[serde(default)]
    properties: Vec<JProperty>,
}

/// A point (`x`, `y`): a polyline's vertex, a tileset's tile offset.
#[derive(Debug, Deserialize)]
struct JPoint {
    x: Number,
    y: Number,
}

/// A layer of any kind (`tilelayer`, `objectgroup`, `imagelayer`, `group`).
#[derive(Debug, Deserialize)]
struct JLayer {
    #[serde(rename = "type")]
    kind: String,
    id: Option<Number>,
    name: Option<String>,
    class: Option<String>,
    x: Option<Number>,
    y: Option<Number>,
    width: Option<Number>,
    height: Option<Number>,
    offsetx: Option<Number>,
    offsety: Option<Number>,
    parallaxx: Option<Number>,
    parallaxy: Option<Number>,
    opacity: Option<Number>,
    visible: Option<bool>,
    locked: Option<bool>,
    tintcolor: Option<String>,
    #[serde(default)]
    properties: Vec<JProperty>,
    // Tile layers.
    data: Option<JData>,
    encoding: Option<String>,
    compression: Option<String>,
    chunks: Option<Vec<JChunk>>,
    // Object layers.
    objects: Option<Vec<JObject>>,
    draworder: Option<String>,
    color: Option<String>,
    // Group layers.
    layers: Option<Vec<JLayer>>,
    // Image layers.
    image: Option<String>,
    imagewidth: Option<Number>,
    imageheight: Option<Number>,
    repeatx: Option<bool>,
    repeaty: Option<bool>,
    transparentcolor: Option<String>,
}

/// A chunk of an infinite map's tile layer.
#[derive(Debug, Deserialize)]
struct JChunk {
    x: Number,
    y: Number,
    width: Number,
    height: Number,
    data: JData,
}

/// Tile layer data: an array of gids, or base64 text (maybe compressed).
#[derive(Debug)]
enum JData {
    Gids(Vec<u32>),
    Base64(String),
}

impl<'de> Deserialize<'de> for JData {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JData;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of tile gids or a base64 string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<JData, E> {
                Ok(JData::Base64(s.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JData, A::Error> {
                let mut gids = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(g) = seq.next_element::<u32>()? {
                    if gids.len() as u64 >= MAX_MAP_CELLS {
                        return Err(de::Error::custom(format_args!(
                            "a tile layer's data holds more than {MAX_MAP_CELLS} tiles, the limit for all tile layers together"
                        )));
                    }
                    gids.push(g);
                }
                Ok(JData::Gids(gids))
            }
        }
        d.deserialize_any(V)
    }
}

/// An object, or an object template's object.
#[derive(Debug, Deserialize)]
struct JObject {
    id: Option<Number>,
    name: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    class: Option<String>,
    x: Option<Number>,
    y: Option<Number>,
    width: Option<Number>,
    height: Option<Number>,
    rotation: Option<Number>,
    gid: Option<Number>,
    visible: Option<bool>,
    template: Option<String>,
    point: Option<bool>,
    ellipse: Option<bool>,
    polygon: Option<Vec<JPoint>>,
    polyline: Option<Vec<JPoint>>,
    text: Option<BTreeMap<String, Scalar>>,
    #[serde(default)]
    properties: Vec<JProperty>,
}

/// An object template (`.tj`).
#[derive(Debug, Deserialize)]
struct JTemplate {
    tileset: Option<JTileset>,
    object: JObject,
}

/// A custom property.
#[derive(Debug, Deserialize)]
struct JProperty {
    name: String,
    #[serde(rename = "type")]
    kind: Option<String>,
    propertytype: Option<String>,
    #[serde(default)]
    value: Value,
}

/// The XML being written, with the first string XML cannot hold.
#[derive(Default)]
struct Xml {
    out: String,
    /// Where and why, for the first thing that cannot be written.
    bad: Option<(String, String)>,
}

impl Xml {
    fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// Writes ` name="value"` with the value escaped.
    fn attr(&mut self, name: &str, value: impl fmt::Display) {
        let value = value.to_string();
        let _ = write!(self.out, " {name}=\"");
        self.escaped(&value, name);
        self.out.push('"');
    }

    /// Writes the attribute when there is a value.
    fn opt(&mut self, name: &str, value: Option<impl fmt::Display>) {
        if let Some(v) = value {
            self.attr(name, v);
        }
    }

    /// Writes `s` escaped for an attribute value or element text. Line
    /// breaks and tabs become character references (so an attribute keeps
    /// them); other control characters cannot be held by XML at all and are
    /// refused.
    fn escaped(&mut self, s: &str, what: &str) {
        for c in s.chars() {
            match c {
                '&' => self.out.push_str("&amp;"),
                '<' => self.out.push_str("&lt;"),
                '>' => self.out.push_str("&gt;"),
                '"' => self.out.push_str("&quot;"),
                '\n' => self.out.push_str("&#10;"),
                '\r' => self.out.push_str("&#13;"),
                '\t' => self.out.push_str("&#9;"),
                c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                    if self.bad.is_none() {
                        self.bad = Some((
                            "map".into(),
                            format!(
                                "a '{what}' value holds the control character U+{:04X}, which a Tiled map cannot hold",
                                c as u32
                            ),
                        ));
                    }
                }
                c => self.out.push(c),
            }
        }
    }

    fn finish(self, file: &str) -> Result<String, LevelError> {
        match self.bad {
            Some((location, reason)) => Err(invalid(file, &location, reason)),
            None => Ok(self.out),
        }
    }

    fn map(&mut self, m: &JMap) {
        self.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map");
        self.opt("version", m.version.as_ref());
        self.opt("tiledversion", m.tiledversion.as_ref());
        self.opt("class", m.class.as_ref());
        self.attr("orientation", &m.orientation);
        self.opt("renderorder", m.renderorder.as_ref());
        self.attr("width", &m.width);
        self.attr("height", &m.height);
        self.attr("tilewidth", &m.tilewidth);
        self.attr("tileheight", &m.tileheight);
        self.opt("hexsidelength", m.hexsidelength.as_ref());
        self.opt("staggeraxis", m.staggeraxis.as_ref());
        self.opt("staggerindex", m.staggerindex.as_ref());
        self.opt("parallaxoriginx", m.parallaxoriginx.as_ref());
        self.opt("parallaxoriginy", m.parallaxoriginy.as_ref());
        self.opt("backgroundcolor", m.backgroundcolor.as_ref());
        self.opt("infinite", m.infinite.map(u8::from));
        self.opt("nextlayerid", m.nextlayerid.as_ref());
        self.opt("nextobjectid", m.nextobjectid.as_ref());
        self.raw(">\n");
        self.properties(&m.properties);
        for t in &m.tilesets {
            self.tileset(t, true);
        }
        for l in &m.layers {
            self.layer(l);
        }
        self.raw("</map>\n");
    }

    /// A tileset element: in a map (`in_map`, with `firstgid`) or as a TSX
    /// document of its own.
    fn tileset(&mut self, t: &JTileset, in_map: bool) {
        self.raw("<tileset");
        if in_map {
            self.opt("firstgid", t.firstgid.as_ref());
        }
        if let Some(source) = &t.source {
            self.attr("source", source);
            self.raw("/>\n");
            return;
        }
        if !in_map {
            self.opt("version", t.version.as_ref());
            self.opt("tiledversion", t.tiledversion.as_ref());
        }
        self.opt("name", t.name.as_ref());
        self.opt("class", t.class.as_ref());
        self.opt("tilewidth", t.tilewidth.as_ref());
        self.opt("tileheight", t.tileheight.as_ref());
        self.opt("spacing", t.spacing.as_ref());
        self.opt("margin", t.margin.as_ref());
        self.opt("tilecount", t.tilecount.as_ref());
        self.opt("columns", t.columns.as_ref());
        self.opt("objectalignment", t.objectalignment.as_ref());
        self.opt("tilerendersize", t.tilerendersize.as_ref());
        self.opt("fillmode", t.fillmode.as_ref());
        self.raw(">\n");
        if let Some(o) = &t.tileoffset {
            self.raw("<tileoffset");
            self.attr("x", &o.x);
            self.attr("y", &o.y);
            self.raw("/>\n");
        }
        self.properties(&t.properties);
        if let Some(image) = &t.image {
            self.image(
                image,
                t.imagewidth.as_ref(),
                t.imageheight.as_ref(),
                t.transparentcolor.as_ref(),
            );
        }
        for tile in &t.tiles {
            self.raw("<tile");
            self.attr("id", &tile.id);
            self.opt("type", tile.kind.as_ref().or(tile.class.as_ref()));
            self.opt("probability", tile.probability.as_ref());
            self.opt("x", tile.x.as_ref());
            self.opt("y", tile.y.as_ref());
            self.opt("width", tile.width.as_ref());
            self.opt("height", tile.height.as_ref());
            self.raw(">\n");
            self.properties(&tile.properties);
            if let Some(image) = &tile.image {
                self.image(
                    image,
                    tile.imagewidth.as_ref(),
                    tile.imageheight.as_ref(),
                    None,
                );
            }
            self.raw("</tile>\n");
        }
        self.raw("</tileset>\n");
    }

    fn image(
        &mut self,
        source: &str,
        width: Option<&Number>,
        height: Option<&Number>,
        trans: Option<&String>,
    ) {
        self.raw("<image");
        self.attr("source", source);
        // Tiled writes the colour with a '#'; TMX holds it without.
        self.opt("trans", trans.map(|t| t.trim_start_matches('#')));
        self.opt("width", width);
        self.opt("height", height);
        self.raw("/>\n");
    }

    /// The attributes every kind of layer has.
    fn layer_attrs(&mut self, l: &JLayer) {
        self.opt("id", l.id.as_ref());
        self.opt("name", l.name.as_ref());
        self.opt("class", l.class.as_ref());
        self.opt("opacity", l.opacity.as_ref());
        self.opt("visible", l.visible.map(u8::from));
        self.opt("locked", l.locked.map(u8::from));
        self.opt("tintcolor", l.tintcolor.as_ref());
        self.opt("offsetx", l.offsetx.as_ref());
        self.opt("offsety", l.offsety.as_ref());
        self.opt("parallaxx", l.parallaxx.as_ref());
        self.opt("parallaxy", l.parallaxy.as_ref());
    }

    fn layer(&mut self, l: &JLayer) {
        match l.kind.as_str() {
            "tilelayer" => {
                self.raw("<layer");
                self.layer_attrs(l);
                self.opt("x", l.x.as_ref());
                self.opt("y", l.y.as_ref());
                self.opt("width", l.width.as_ref());
                self.opt("height", l.height.as_ref());
                self.raw(">\n");
                self.properties(&l.properties);
                let encoding = l.encoding.as_deref().unwrap_or("csv");
                let compression = l.compression.as_deref().filter(|c| !c.is_empty());
                if l.data.is_some() || l.chunks.is_some() {
                    self.raw("<data");
                    self.data_attrs(&l.data, encoding, compression);
                    self.raw(">");
                    if let Some(data) = &l.data {
                        self.data(data);
                    }
                    for c in l.chunks.iter().flatten() {
                        self.raw("<chunk");
                        self.attr("x", &c.x);
                        self.attr("y", &c.y);
                        self.attr("width", &c.width);
                        self.attr("height", &c.height);
                        self.raw(">");
                        self.data(&c.data);
                        self.raw("</chunk>\n");
                    }
                    self.raw("</data>\n");
                }
                self.raw("</layer>\n");
            }
            "objectgroup" => {
                self.raw("<objectgroup");
                self.layer_attrs(l);
                self.opt("color", l.color.as_ref());
                self.opt("draworder", l.draworder.as_ref());
                self.raw(">\n");
                self.properties(&l.properties);
                for o in l.objects.iter().flatten() {
                    self.object(o);
                }
                self.raw("</objectgroup>\n");
            }
            "imagelayer" => {
                self.raw("<imagelayer");
                self.layer_attrs(l);
                self.opt("repeatx", l.repeatx.map(u8::from));
                self.opt("repeaty", l.repeaty.map(u8::from));
                self.raw(">\n");
                self.properties(&l.properties);
                if let Some(image) = l.image.as_ref().filter(|i| !i.is_empty()) {
                    self.image(
                        image,
                        l.imagewidth.as_ref(),
                        l.imageheight.as_ref(),
                        l.transparentcolor.as_ref(),
                    );
                }
                self.raw("</imagelayer>\n");
            }
            "group" => {
                self.raw("<group");
                self.layer_attrs(l);
                self.raw(">\n");
                self.properties(&l.properties);
                for inner in l.layers.iter().flatten() {
                    self.layer(inner);
                }
                self.raw("</group>\n");
            }
            other => {
                if self.bad.is_none() {
                    self.bad = Some((
                        format!("layer '{}'", l.name.as_deref().unwrap_or("")),
                        format!(
                            "unknown layer type '{other}' (known: tilelayer, objectgroup, imagelayer, group)"
                        ),
                    ));
                }
            }
        }
    }

    /// The `<data>` attributes: an array is written as CSV, base64 text
    /// keeps its encoding and compression.
    fn data_attrs(&mut self, data: &Option<JData>, encoding: &str, compression: Option<&str>) {
        match data {
            Some(JData::Gids(_)) => self.attr("encoding", "csv"),
            _ => {
                self.attr("encoding", encoding);
                self.opt("compression", compression);
            }
        }
    }

    fn data(&mut self, data: &JData) {
        match data {
            JData::Gids(gids) => {
                for (i, g) in gids.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    let _ = write!(self.out, "{g}");
                }
            }
            JData::Base64(text) => self.escaped(text, "data"),
        }
    }

    fn object(&mut self, o: &JObject) {
        self.raw("<object");
        self.opt("id", o.id.as_ref());
        self.opt("name", o.name.as_ref());
        self.opt("type", o.kind.as_ref().or(o.class.as_ref()));
        self.opt("gid", o.gid.as_ref());
        self.opt("x", o.x.as_ref());
        self.opt("y", o.y.as_ref());
        self.opt("width", o.width.as_ref());
        self.opt("height", o.height.as_ref());
        self.opt("rotation", o.rotation.as_ref());
        self.opt("visible", o.visible.map(u8::from));
        self.opt("template", o.template.as_ref());
        self.raw(">\n");
        self.properties(&o.properties);
        if o.point == Some(true) {
            self.raw("<point/>\n");
        }
        if o.ellipse == Some(true) {
            self.raw("<ellipse/>\n");
        }
        for (tag, points) in [("polygon", &o.polygon), ("polyline", &o.polyline)] {
            if let Some(points) = points {
                let mut s = String::new();
                for (i, p) in points.iter().enumerate() {
                    if i > 0 {
                        s.push(' ');
                    }
                    let _ = write!(s, "{},{}", p.x, p.y);
                }
                let _ = write!(self.out, "<{tag}");
                self.attr("points", s);
                self.raw("/>\n");
            }
        }
        if let Some(text) = &o.text {
            self.raw("<text");
            // Only the attributes TMX's <text> has: a key is no place for
            // arbitrary names in XML.
            for (k, v) in text {
                if TEXT_ATTRIBUTES.contains(&k.as_str()) {
                    let v = match v {
                        Scalar::Bool(b) => u8::from(*b).to_string(),
                        other => other.to_string(),
                    };
                    self.attr(k, v);
                }
            }
            self.raw(">");
            if let Some(t) = text.get("text") {
                self.escaped(&t.to_string(), "text");
            }
            self.raw("</text>\n");
        }
        self.raw("</object>\n");
    }

    fn template(&mut self, t: &JTemplate) {
        self.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<template>\n");
        if let Some(ts) = &t.tileset {
            self.tileset(ts, true);
        }
        self.object(&t.object);
        self.raw("</template>\n");
    }

    fn properties(&mut self, props: &[JProperty]) {
        if props.is_empty() {
            return;
        }
        self.raw("<properties>\n");
        for p in props {
            self.property(
                &p.name,
                p.kind.as_deref(),
                p.propertytype.as_deref(),
                &p.value,
            );
        }
        self.raw("</properties>\n");
    }

    /// One property. A class value (a JSON object) holds its members, whose
    /// types JSON leaves to the project: a number with no fraction is an
    /// `int`, any other a `float`.
    fn property(&mut self, name: &str, kind: Option<&str>, propertytype: Option<&str>, v: &Value) {
        self.raw("<property");
        self.attr("name", name);
        let kind = kind.unwrap_or(match v {
            Value::Bool(_) => "bool",
            Value::Number(n) if n.is_f64() => "float",
            Value::Number(_) => "int",
            Value::Object(_) => "class",
            _ => "string",
        });
        self.attr("type", kind);
        self.opt("propertytype", propertytype);
        match v {
            Value::Object(members) => {
                self.raw(">\n<properties>\n");
                for (k, m) in members {
                    self.property(k, None, None, m);
                }
                self.raw("</properties>\n</property>\n");
            }
            Value::String(s) => {
                self.attr("value", s);
                self.raw("/>\n");
            }
            Value::Number(n) => {
                self.attr("value", n);
                self.raw("/>\n");
            }
            Value::Bool(b) => {
                self.attr("value", b);
                self.raw("/>\n");
            }
            // A null or an array is not a Tiled property value: written as
            // text the loader reports like any value of the wrong type.
            other => {
                self.attr("value", other);
                self.raw("/>\n");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{from_tmj_str, from_tmx_str};
    use super::*;

    /// A map with every object shape, Tiled 1.9's `class` keys, class
    /// properties, an image layer, a group and a tile offset (the fuzz seed).
    const SHAPES: &str = include_str!("../../../fuzz/corpus/tmj_level/seed-shapes.tmj");

    #[test]
    fn every_shape_and_tiled_1_9_class_keys_load() {
        let l = from_tmj_str(SHAPES, "shapes.tmj").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(l.ladder_ids, vec![3]);
        assert_eq!(l.platform_ids, vec![4]);
        assert_eq!(l.checkpoint_ids, vec![6]);
        assert_eq!((l.spawn_id, l.exit_id), (1, 2));
        assert_eq!(
            l.one_way.len(),
            1,
            "the OneWay tiles (class key) make a plank"
        );
        assert!(l.columns.iter().any(|c| c.override_id == Some(5)));
        // The class property arrives, as an unknown map property.
        assert!(
            l.diagnostics
                .iter()
                .any(|d| d.message.contains("unknown map property 'style'")),
            "{:?}",
            l.diagnostics
        );
        // Quotes, ampersands and line breaks survive the translation.
        let tmx = map_to_tmx(SHAPES.as_bytes(), "shapes.tmj").unwrap();
        assert!(
            tmx.contains("Shapes &amp; &quot;quotes&quot; &lt;ok&gt;"),
            "{tmx}"
        );
        assert!(tmx.contains("line one&#10;line two"));
        assert!(tmx.contains("<text") && tmx.contains("Hello &lt;world&gt; &amp; you</text>"));
    }

    #[test]
    fn a_class_property_keeps_its_members() {
        let tmx = map_to_tmx(SHAPES.as_bytes(), "shapes.tmj").unwrap();
        for want in [
            r#"<property name="style" type="class" propertytype="Look">"#,
            r#"<property name="scale" type="float" value="1.5"/>"#,
            r#"<property name="count" type="int" value="3"/>"#,
            r#"<property name="on" type="bool" value="true"/>"#,
            r#"<property name="depth" type="int" value="2"/>"#,
        ] {
            assert!(tmx.contains(want), "{want}\n{tmx}");
        }
    }

    #[test]
    fn the_translation_of_the_tutorials_export_is_the_tutorial() {
        let tmj = include_str!("../../tests/levels/tmj/tutorial.tmj");
        let a = from_tmj_str(tmj, "t").unwrap();
        let b = from_tmx_str(super::super::TUTORIAL_TMX, "t").unwrap();
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }

    #[test]
    fn a_data_array_past_the_cell_limit_is_refused_while_it_is_read() {
        let cells = MAX_MAP_CELLS as usize + 1;
        let mut data = String::with_capacity(cells * 2 + 2);
        data.push('[');
        for i in 0..cells {
            data.push_str(if i == 0 { "0" } else { ",0" });
        }
        data.push(']');
        let text = format!(
            r#"{{"type":"map","orientation":"orthogonal","width":4096,"height":1025,"tilewidth":32,"tileheight":32,"layers":[{{"type":"tilelayer","name":"L","width":4096,"height":1025,"data":{data}}}]}}"#
        );
        let e = from_tmj_str(&text, "big.tmj").unwrap_err().to_string();
        assert!(
            e.starts_with("big.tmj:line 1 column ") && e.contains("more than 4194304 tiles"),
            "{e}"
        );
    }

    #[test]
    fn json_that_is_not_a_map_names_the_place_and_the_reason() {
        let cases: [(&str, &str); 5] = [
            ("", "line 1 column 0: not valid JSON (the file ends early)"),
            ("{\"type\":\"map\",", "not valid JSON (the file ends early)"),
            ("null", "expected a Tiled JSON document"),
            (
                "{\"type\":\"template\",\"object\":{}}",
                "map: this Tiled JSON file is a template, not a map",
            ),
            (
                "{\"orientation\":\"orthogonal\",\"width\":1,\"height\":1,\"tilewidth\":32,\"tileheight\":32,\"layers\":[{\"name\":\"x\"}]}",
                "line 1 column 102: not in Tiled's JSON format: missing field `type`",
            ),
        ];
        for (text, want) in cases {
            let e = from_tmj_str(text, "x.tmj").unwrap_err().to_string();
            assert!(e.starts_with("x.tmj:") && e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn tilesets_and_templates_are_told_apart_by_type_then_extension() {
        let ts = r#"{"name":"t","tilewidth":32,"tileheight":32,"tilecount":1,"columns":1,"tiles":[{"id":0,"type":"Solid"}]}"#;
        let tsx = reference_to_xml(ts.as_bytes(), Path::new("a.tsj")).unwrap();
        assert!(
            tsx.contains("<tileset name=\"t\"") && tsx.contains("<tile id=\"0\" type=\"Solid\">"),
            "{tsx}"
        );
        let tj = r#"{"object":{"type":"Ladder","width":16,"height":64}}"#;
        let tx = reference_to_xml(tj.as_bytes(), Path::new("a.tj")).unwrap();
        assert!(
            tx.contains("<template>") && tx.contains("<object type=\"Ladder\""),
            "{tx}"
        );
        let typed = r#"{"type":"template","object":{"type":"Ladder"}}"#;
        assert!(
            reference_to_xml(typed.as_bytes(), Path::new("a.json"))
                .unwrap()
                .contains("<template>")
        );
        let e = reference_to_xml(br#"{"type":"map"}"#, Path::new("a.tsj"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("a Tiled JSON map where a tileset"), "{e}");
    }

    #[test]
    fn any_json_key_or_string_makes_well_formed_xml() {
        // A text object with a key XML could not hold as an attribute name,
        // names and values full of markup: the map still loads, and the
        // strings arrive as they were.
        let mut v: Value =
            serde_json::from_str(include_str!("../../tests/levels/tmj/walls.tmj")).unwrap();
        v["layers"][1]["objects"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({
                "id": 90, "name": "</object><x a=\"", "x": 1, "y": 1, "width": 10, "height": 10,
                "text": {"text": "]]><!--", "a b<\"": 1, "wrap": true},
                "properties": [{"name": "\"'<&>", "type": "string", "value": "&amp;\u{7f}\u{e9}"}]
            }));
        let text = serde_json::to_string(&v).unwrap();
        let l = from_tmj_str(&text, "odd.tmj").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(l.level.name, "Walls and ledges");
        let tmx = map_to_tmx(text.as_bytes(), "odd.tmj").unwrap();
        assert!(!tmx.contains("a b<"), "{tmx}");
    }
}
