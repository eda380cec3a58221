//! Minimal, byte-preserving edits of a TMX file's text: set an object's
//! attribute, set (or add) one of its properties, add an object beside
//! another, move one point of an object's `<polyline>`, set one cell of a
//! CSV tile layer. Everything the edit does not touch stays byte-for-byte as it was
//! (comments, attribute order, indentation, tile data, unknown elements), so
//! a file saved by designer mode differs from Tiled's only where a value
//! changed and reopens in Tiled unchanged otherwise.
//!
//! The scanner reads tags, comments, CDATA, processing instructions and
//! quoted attribute values; it does not validate the XML (the level loader
//! does that on the edited text before anything is saved). Limit: entity
//! references in the attribute values we compare (`id`, `name`) are not
//! decoded; Tiled never writes them there for our numeric ids and ASCII
//! property names.

use std::ops::Range;

/// What a tag is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `<name ...>`.
    Open,
    /// `<name .../>`.
    Empty,
    /// `</name>`.
    Close,
}

/// One attribute: its name and the byte range of its raw value (inside the quotes).
#[derive(Clone, Debug)]
struct Attr {
    name: String,
    value: Range<usize>,
}

/// One tag: its name, kind, byte range (from `<` to after `>`) and attributes.
#[derive(Clone, Debug)]
struct Tag {
    name: String,
    kind: Kind,
    span: Range<usize>,
    attrs: Vec<Attr>,
}

/// The tags of a document with the element structure between them.
struct Scan {
    tags: Vec<Tag>,
    /// For each Open tag, the index of its Close tag.
    close: Vec<Option<usize>>,
    /// For each tag, the index of its parent's Open tag.
    parent: Vec<Option<usize>>,
}

/// The text of a TMX map being edited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmxText {
    text: String,
}

impl TmxText {
    /// Wraps a TMX document's text.
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into() }
    }

    /// The current text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Sets attribute `name` of object `id` to `value` (added when absent).
    pub fn set_object_attr(&mut self, id: u32, name: &str, value: &str) -> Result<(), String> {
        let scan = self.scan()?;
        let obj = find_object(&self.text, &scan, id)?;
        self.set_attr(&scan.tags[obj], name, value);
        Ok(())
    }

    /// The raw value of attribute `name` of object `id`, if it has one.
    pub fn object_attr(&self, id: u32, name: &str) -> Result<Option<String>, String> {
        let scan = self.scan()?;
        let obj = find_object(&self.text, &scan, id)?;
        Ok(attr(&self.text, &scan.tags[obj], name).map(str::to_string))
    }

    /// The raw value of property `name` of object `id`, if it has one.
    pub fn object_property(&self, id: u32, name: &str) -> Result<Option<String>, String> {
        let scan = self.scan()?;
        let obj = find_object(&self.text, &scan, id)?;
        let Some(props) = children(&scan, obj)
            .into_iter()
            .find(|&i| scan.tags[i].name == "properties")
        else {
            return Ok(None);
        };
        Ok(children(&scan, props)
            .into_iter()
            .map(|i| &scan.tags[i])
            .find(|t| t.name == "property" && attr(&self.text, t, "name") == Some(name))
            .and_then(|t| attr(&self.text, t, "value"))
            .map(str::to_string))
    }

    /// Sets property `name` (of Tiled type `ty`) of object `id` to `value`:
    /// the `value` attribute of an existing `<property>`, or a new one in
    /// its `<properties>` (created when the object has none).
    pub fn set_object_property(
        &mut self,
        id: u32,
        name: &str,
        ty: &str,
        value: &str,
    ) -> Result<(), String> {
        let scan = self.scan()?;
        let obj = find_object(&self.text, &scan, id)?;
        let props = children(&scan, obj)
            .into_iter()
            .find(|&i| scan.tags[i].name == "properties");
        if let Some(props) = props {
            let existing = children(&scan, props).into_iter().find(|&i| {
                scan.tags[i].name == "property"
                    && attr(&self.text, &scan.tags[i], "name") == Some(name)
            });
            if let Some(p) = existing {
                let tag = scan.tags[p].clone();
                if let Some(t) = attr(&self.text, &tag, "type")
                    && t != ty
                {
                    return Err(format!(
                        "object {id}: property '{name}' has type '{t}', expected '{ty}'"
                    ));
                }
                self.set_attr(&tag, "value", value);
                return Ok(());
            }
            let line = format!(
                "<property name=\"{name}\" type=\"{ty}\" value=\"{}\"/>",
                escape(value)
            );
            match scan.tags[props].kind {
                Kind::Empty => {
                    let tag = &scan.tags[props];
                    let indent = indent_of(&self.text, tag.span.start);
                    let at = tag.span.end - 2;
                    let end = tag.span.end;
                    let new = format!(">\n{indent} {line}\n{indent}</properties>");
                    self.text.replace_range(at..end, &new);
                }
                _ => {
                    let close = scan.close[props].ok_or("unclosed <properties>")?;
                    let indent = indent_of(&self.text, scan.tags[props].span.start);
                    self.insert_before_close(
                        scan.tags[close].span.start,
                        &format!("{indent} "),
                        &line,
                    );
                }
            }
            return Ok(());
        }
        let tag = scan.tags[obj].clone();
        let indent = indent_of(&self.text, tag.span.start);
        let prop = format!(
            "<property name=\"{name}\" type=\"{ty}\" value=\"{}\"/>",
            escape(value)
        );
        match tag.kind {
            Kind::Empty => {
                let new = if indent.is_empty() && !self.text[..tag.span.start].ends_with('\n') {
                    format!("><properties>{prop}</properties></object>")
                } else {
                    format!(
                        ">\n{indent} <properties>\n{indent}  {prop}\n{indent} </properties>\n{indent}</object>"
                    )
                };
                self.text
                    .replace_range(tag.span.end - 2..tag.span.end, &new);
            }
            _ => {
                let multiline = self.text[tag.span.end..].starts_with(['\n', '\r']);
                let new = if multiline {
                    format!("\n{indent} <properties>\n{indent}  {prop}\n{indent} </properties>")
                } else {
                    format!("<properties>{prop}</properties>")
                };
                self.text.insert_str(tag.span.end, &new);
            }
        }
        Ok(())
    }

    /// Adds an object to the object layer holding object `beside`, as its
    /// last child. `make` gets the new object's id and returns its XML (one
    /// element, no indentation); the map's `nextobjectid` is advanced.
    /// Returns the new id.
    pub fn insert_object(
        &mut self,
        beside: u32,
        make: impl FnOnce(u32) -> String,
    ) -> Result<u32, String> {
        let scan = self.scan()?;
        let obj = find_object(&self.text, &scan, beside)?;
        let group = scan.parent[obj].ok_or("an object outside any layer")?;
        let close = scan.close[group].ok_or("an unclosed object layer")?;
        let max_id = scan
            .tags
            .iter()
            .filter(|t| t.name == "object" && t.kind != Kind::Close)
            .filter_map(|t| attr(&self.text, t, "id")?.parse::<u32>().ok())
            .max()
            .unwrap_or(0);
        let map = scan
            .tags
            .iter()
            .find(|t| t.name == "map" && t.kind == Kind::Open)
            .cloned()
            .ok_or("no <map> element")?;
        let next = attr(&self.text, &map, "nextobjectid").and_then(|v| v.parse::<u32>().ok());
        let id = next.unwrap_or(0).max(max_id + 1);
        let indent = indent_of(&self.text, scan.tags[obj].span.start);
        let close_at = scan.tags[close].span.start;
        // Insert first (it lies after the map tag), then edit the map tag.
        self.insert_before_close(close_at, &indent, &make(id));
        if next.is_some() {
            self.set_attr(&map, "nextobjectid", &(id + 1).to_string());
        }
        Ok(id)
    }

    /// Inserts `element` on its own line (indented `indent`) before the
    /// closing tag at `close_at`, or inline when the closing tag does not
    /// start a line.
    fn insert_before_close(&mut self, close_at: usize, indent: &str, element: &str) {
        let line_start = self.text[..close_at].rfind('\n').map_or(0, |i| i + 1);
        let own_line = self.text[line_start..close_at]
            .chars()
            .all(|c| c == ' ' || c == '\t');
        if own_line && line_start > 0 {
            let eol = if self.text[..line_start].ends_with("\r\n") {
                "\r\n"
            } else {
                "\n"
            };
            self.text
                .insert_str(line_start, &format!("{indent}{element}{eol}"));
        } else {
            self.text.insert_str(close_at, element);
        }
    }

    /// Sets (or appends) an attribute of `tag`, which must be current.
    fn set_attr(&mut self, tag: &Tag, name: &str, value: &str) {
        let value = escape(value);
        if let Some(a) = tag.attrs.iter().find(|a| a.name == name) {
            self.text.replace_range(a.value.clone(), &value);
        } else {
            let at = match tag.kind {
                Kind::Empty => tag.span.end - 2,
                _ => tag.span.end - 1,
            };
            self.text.insert_str(at, &format!(" {name}=\"{value}\""));
        }
    }

    /// The global tile id (gid, flip bits included; 0 for an empty cell)
    /// at tile `(col, row)` of tile layer `layer`: the `layer`-th `<layer>`
    /// element of the file (counted from 0 in file order, those inside
    /// groups included, the order the loader reads them in). Only CSV tile
    /// data can be read (see [`TmxText::set_tile_gid`]).
    pub fn tile_gid(&self, layer: usize, col: i32, row: i32) -> Result<u32, String> {
        let scan = self.scan()?;
        let cells = csv_cells(&self.text, &scan, layer)?;
        let at = cells.index(col, row)?;
        self.text[cells.cells[at].clone()].parse().map_err(|_| {
            format!(
                "layer '{}': tile ({col},{row}) is not a tile id",
                cells.name
            )
        })
    }

    /// The name of tile layer `layer` (see [`TmxText::tile_gid`]).
    pub fn tile_layer_name(&self, layer: usize) -> Result<String, String> {
        let scan = self.scan()?;
        let tag = nth_tile_layer(&scan, layer)?;
        Ok(attr(&self.text, &scan.tags[tag], "name")
            .unwrap_or("")
            .to_string())
    }

    /// Writes `gid` into tile `(col, row)` of tile layer `layer`, changing
    /// only that number of the layer's CSV data. Other encodings (base64,
    /// compressed, one `<tile>` element per cell) and infinite maps'
    /// chunks are refused with the reason: rewriting them would re-encode
    /// the whole layer.
    pub fn set_tile_gid(
        &mut self,
        layer: usize,
        col: i32,
        row: i32,
        gid: u32,
    ) -> Result<(), String> {
        let scan = self.scan()?;
        let cells = csv_cells(&self.text, &scan, layer)?;
        let at = cells.index(col, row)?;
        self.text
            .replace_range(cells.cells[at].clone(), &gid.to_string());
        Ok(())
    }

    /// The points of object `id`'s `<polyline>`, in pixels relative to the
    /// object's `x` and `y`.
    pub fn polyline_points(&self, id: u32) -> Result<Vec<(f64, f64)>, String> {
        let scan = self.scan()?;
        let (tag, tokens) = polyline_tokens(&self.text, &scan, id)?;
        let value = attr(&self.text, &scan.tags[tag], "points").unwrap_or("");
        tokens
            .iter()
            .map(|r| parse_point(&value[r.clone()]).ok_or_else(|| bad_point(id, &value[r.clone()])))
            .collect()
    }

    /// Moves point `k` of object `id`'s `<polyline>` to `(x, y)` pixels
    /// relative to the object. Only that point's text in the `points`
    /// attribute changes; the others keep their bytes.
    pub fn set_polyline_point(&mut self, id: u32, k: usize, x: f64, y: f64) -> Result<(), String> {
        if !(x.is_finite() && y.is_finite()) {
            return Err(format!(
                "object {id}: point {k} at ({x}, {y}) is not a finite position"
            ));
        }
        let scan = self.scan()?;
        let (tag, tokens) = polyline_tokens(&self.text, &scan, id)?;
        let n = tokens.len();
        let token = tokens.get(k).cloned().ok_or_else(|| {
            format!("object {id}: its polyline has {n} points, there is no point {k}")
        })?;
        let value = scan.tags[tag]
            .attrs
            .iter()
            .find(|a| a.name == "points")
            .map(|a| a.value.start)
            .ok_or_else(|| format!("object {id}: its polyline has no points"))?;
        let range = value + token.start..value + token.end;
        self.text
            .replace_range(range, &format!("{},{}", fmt_num(x), fmt_num(y)));
        Ok(())
    }

    fn scan(&self) -> Result<Scan, String> {
        scan(&self.text)
    }
}

/// The cells of one CSV tile layer: byte ranges of each number, row by row.
struct CsvCells {
    name: String,
    width: i32,
    height: i32,
    cells: Vec<Range<usize>>,
}

impl CsvCells {
    /// The index of tile `(col, row)` in `cells`.
    fn index(&self, col: i32, row: i32) -> Result<usize, String> {
        if !(0..self.width).contains(&col) || !(0..self.height).contains(&row) {
            return Err(format!(
                "tile ({col},{row}) is outside layer '{}' ({}×{} tiles)",
                self.name, self.width, self.height
            ));
        }
        Ok((row * self.width + col) as usize)
    }
}

/// The tag index of the `n`-th `<layer>` element (file order, from 0).
fn nth_tile_layer(scan: &Scan, n: usize) -> Result<usize, String> {
    scan.tags
        .iter()
        .enumerate()
        .filter(|(_, t)| t.name == "layer" && t.kind != Kind::Close)
        .nth(n)
        .map(|(i, _)| i)
        .ok_or_else(|| format!("the file has no tile layer {n}"))
}

/// Reads the CSV data of tile layer `n`, refusing other encodings.
fn csv_cells(text: &str, scan: &Scan, n: usize) -> Result<CsvCells, String> {
    let layer = nth_tile_layer(scan, n)?;
    let tag = &scan.tags[layer];
    let name = attr(text, tag, "name").unwrap_or("").to_string();
    let dim = |k: &str| -> Result<i32, String> {
        attr(text, tag, k)
            .and_then(|v| v.trim().parse::<i32>().ok())
            .filter(|&v| v >= 0)
            .ok_or_else(|| format!("layer '{name}' has no valid {k}"))
    };
    let (width, height) = (dim("width")?, dim("height")?);
    let data = children(scan, layer)
        .into_iter()
        .find(|&i| scan.tags[i].name == "data")
        .ok_or_else(|| format!("layer '{name}' has no tile data"))?;
    let dtag = &scan.tags[data];
    let advice = "designer mode edits tile layers stored as CSV (in Tiled: Map > Map Properties > Tile Layer Format: CSV, then save)";
    let encoding = attr(text, dtag, "encoding");
    let compression = attr(text, dtag, "compression").filter(|c| !c.is_empty());
    match (encoding, compression) {
        (Some("csv"), None) => {}
        (Some(e), Some(c)) => {
            return Err(format!(
                "layer '{name}' stores its tiles as {e} ({c}); {advice}"
            ));
        }
        (Some(e), None) => return Err(format!("layer '{name}' stores its tiles as {e}; {advice}")),
        (None, _) => {
            return Err(format!(
                "layer '{name}' stores its tiles as XML <tile> elements; {advice}"
            ));
        }
    }
    if dtag.kind == Kind::Empty {
        return Err(format!("layer '{name}' has empty tile data"));
    }
    if !children(scan, data).is_empty() {
        return Err(format!(
            "layer '{name}' stores its tiles in chunks (an infinite map); designer mode edits finite maps' CSV layers"
        ));
    }
    let close = scan.close[data].ok_or_else(|| format!("layer '{name}': unclosed <data>"))?;
    let (start, end) = (dtag.span.end, scan.tags[close].span.start);
    let mut cells = Vec::with_capacity((width as usize).saturating_mul(height as usize));
    let mut at = start;
    let fields: Vec<&str> = text[start..end].split(',').collect();
    for (k, field) in fields.iter().enumerate() {
        let lead = field.len() - field.trim_start().len();
        let num = field.trim();
        if num.is_empty() && k + 1 == fields.len() && k > 0 {
            // A trailing comma after the last tile.
            break;
        }
        if !num.bytes().all(|b| b.is_ascii_digit()) || num.is_empty() {
            return Err(format!(
                "layer '{name}': '{}' in its CSV data is not a tile id",
                num.chars().take(20).collect::<String>()
            ));
        }
        cells.push(at + lead..at + lead + num.len());
        at += field.len() + 1;
    }
    if cells.len() != (width as usize) * (height as usize) {
        return Err(format!(
            "layer '{name}' holds {} tiles, not its {width}×{height}",
            cells.len()
        ));
    }
    Ok(CsvCells {
        name,
        width,
        height,
        cells,
    })
}

/// The `<polyline>` tag of object `id` and the byte ranges (within its
/// `points` value) of each `x,y` pair.
fn polyline_tokens(text: &str, scan: &Scan, id: u32) -> Result<(usize, Vec<Range<usize>>), String> {
    let obj = find_object(text, scan, id)?;
    let line = children(scan, obj)
        .into_iter()
        .find(|&i| scan.tags[i].name == "polyline")
        .ok_or_else(|| {
            format!("object {id} has no <polyline> in the file (is it from a template?)")
        })?;
    let value = attr(text, &scan.tags[line], "points")
        .ok_or_else(|| format!("object {id}: its polyline has no points"))?;
    let mut tokens = Vec::new();
    let mut start = None;
    for (i, c) in value.char_indices().chain([(value.len(), ' ')]) {
        match (c.is_ascii_whitespace(), start) {
            (true, Some(s)) => {
                tokens.push(s..i);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    for r in &tokens {
        if parse_point(&value[r.clone()]).is_none() {
            return Err(bad_point(id, &value[r.clone()]));
        }
    }
    Ok((line, tokens))
}

fn parse_point(s: &str) -> Option<(f64, f64)> {
    let (x, y) = s.split_once(',')?;
    let (x, y) = (x.parse::<f64>().ok()?, y.parse::<f64>().ok()?);
    (x.is_finite() && y.is_finite()).then_some((x, y))
}

fn bad_point(id: u32, s: &str) -> String {
    format!(
        "object {id}: polyline point '{}' is not 'x,y'",
        s.chars().take(30).collect::<String>()
    )
}

/// A number as designer mode writes it: at most six decimals (a micrometre,
/// or a millionth of a pixel), shortest form, no `-0`.
pub fn fmt_num(v: f64) -> String {
    let r = (v * 1e6).round() / 1e6;
    if r == 0.0 { "0".into() } else { format!("{r}") }
}

fn escape(v: &str) -> String {
    v.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

/// The whitespace between the start of the line and byte `at`, when only
/// whitespace precedes it on its line.
fn indent_of(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let pre = &text[line_start..at];
    if pre.chars().all(|c| c == ' ' || c == '\t') {
        pre.to_string()
    } else {
        String::new()
    }
}

fn attr<'t>(text: &'t str, tag: &Tag, name: &str) -> Option<&'t str> {
    tag.attrs
        .iter()
        .find(|a| a.name == name)
        .map(|a| &text[a.value.clone()])
}

fn find_object(text: &str, scan: &Scan, id: u32) -> Result<usize, String> {
    let id_text = id.to_string();
    scan.tags
        .iter()
        .position(|t| {
            t.name == "object" && t.kind != Kind::Close && attr(text, t, "id") == Some(&id_text)
        })
        .ok_or_else(|| format!("object {id} is not in the file"))
}

/// The direct children (their opening tags) of the element opened at `open`.
fn children(scan: &Scan, open: usize) -> Vec<usize> {
    (open + 1..scan.close[open].unwrap_or(open))
        .filter(|&i| scan.parent[i] == Some(open) && scan.tags[i].kind != Kind::Close)
        .collect()
}

fn scan(text: &str) -> Result<Scan, String> {
    let b = text.as_bytes();
    let mut tags = Vec::new();
    let mut i = 0;
    let skip_to = |from: usize, end: &str, what: &str| -> Result<usize, String> {
        text[from..]
            .find(end)
            .map(|k| from + k + end.len())
            .ok_or_else(|| format!("unterminated {what} at byte {from}"))
    };
    while let Some(k) = text[i..].find('<') {
        let j = i + k;
        let rest = &text[j..];
        if rest.starts_with("<!--") {
            i = skip_to(j, "-->", "comment")?;
            continue;
        }
        if rest.starts_with("<![CDATA[") {
            i = skip_to(j, "]]>", "CDATA section")?;
            continue;
        }
        if rest.starts_with("<?") {
            i = skip_to(j, "?>", "processing instruction")?;
            continue;
        }
        if rest.starts_with("<!") {
            i = skip_to(j, ">", "declaration")?;
            continue;
        }
        if rest.starts_with("</") {
            let end = skip_to(j, ">", "closing tag")?;
            tags.push(Tag {
                name: text[j + 2..end - 1].trim().to_string(),
                kind: Kind::Close,
                span: j..end,
                attrs: Vec::new(),
            });
            i = end;
            continue;
        }
        let mut p = j + 1;
        let name_end = |p: usize| {
            let mut q = p;
            while q < b.len() && !b[q].is_ascii_whitespace() && !matches!(b[q], b'/' | b'>' | b'=')
            {
                q += 1;
            }
            q
        };
        let q = name_end(p);
        let name = text[p..q].to_string();
        if name.is_empty() {
            return Err(format!("a tag without a name at byte {j}"));
        }
        p = q;
        let mut attrs = Vec::new();
        let kind = loop {
            while p < b.len() && b[p].is_ascii_whitespace() {
                p += 1;
            }
            if p >= b.len() {
                return Err(format!("unterminated tag <{name}> at byte {j}"));
            }
            if text[p..].starts_with("/>") {
                p += 2;
                break Kind::Empty;
            }
            if b[p] == b'>' {
                p += 1;
                break Kind::Open;
            }
            let q = name_end(p);
            let aname = text[p..q].to_string();
            p = q;
            while p < b.len() && b[p].is_ascii_whitespace() {
                p += 1;
            }
            if aname.is_empty() || p >= b.len() || b[p] != b'=' {
                return Err(format!("a malformed attribute in <{name}> at byte {p}"));
            }
            p += 1;
            while p < b.len() && b[p].is_ascii_whitespace() {
                p += 1;
            }
            let quote = match b.get(p) {
                Some(&c @ (b'"' | b'\'')) => c as char,
                _ => {
                    return Err(format!(
                        "an unquoted attribute value in <{name}> at byte {p}"
                    ));
                }
            };
            let start = p + 1;
            let len = text[start..].find(quote).ok_or_else(|| {
                format!("an unterminated attribute value in <{name}> at byte {p}")
            })?;
            attrs.push(Attr {
                name: aname,
                value: start..start + len,
            });
            p = start + len + 1;
        };
        tags.push(Tag {
            name,
            kind,
            span: j..p,
            attrs,
        });
        i = p;
    }
    let mut close = vec![None; tags.len()];
    let mut parent = vec![None; tags.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (k, t) in tags.iter().enumerate() {
        match t.kind {
            Kind::Close => {
                let open = stack
                    .pop()
                    .ok_or_else(|| format!("</{}> closes nothing", t.name))?;
                if tags[open].name != t.name {
                    return Err(format!(
                        "</{}> closes <{}> at byte {}",
                        t.name, tags[open].name, tags[open].span.start
                    ));
                }
                close[open] = Some(k);
                parent[k] = stack.last().copied();
            }
            Kind::Open => {
                parent[k] = stack.last().copied();
                stack.push(k);
            }
            Kind::Empty => parent[k] = stack.last().copied(),
        }
    }
    if let Some(&open) = stack.last() {
        return Err(format!("<{}> is never closed", tags[open].name));
    }
    Ok(Scan {
        tags,
        close,
        parent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.10\" nextobjectid=\"7\">\n <!-- a <comment> -->\n <objectgroup id=\"3\" name=\"Objects\">\n  <object id=\"1\" type=\"Spawn\" x=\"80\" y=\"384\">\n   <point/>\n  </object>\n  <object id=\"2\" type=\"Ladder\" x=\"2521.6\" y=\"224\" width=\"32\" height=\"160\">\n   <properties>\n    <property name=\"rung_spacing\" type=\"float\" value=\"0.3\"/>\n   </properties>\n  </object>\n  <object id=\"4\" type=\"Ladder\" x=\"10\" y=\"20\" width=\"32\" height=\"64\"/>\n </objectgroup>\n</map>\n";

    /// The lines of `a` and `b` that differ, as pairs (None: a line only one has).
    fn changed_lines<'a>(a: &'a str, b: &'a str) -> Vec<(&'a str, &'a str)> {
        a.lines().zip(b.lines()).filter(|(x, y)| x != y).collect()
    }

    #[test]
    fn setting_an_attribute_changes_only_its_value() {
        let mut t = TmxText::new(DOC);
        t.set_object_attr(2, "height", "176").unwrap();
        t.set_object_attr(2, "y", "208").unwrap();
        assert_eq!(
            changed_lines(DOC, t.as_str()),
            vec![(
                "  <object id=\"2\" type=\"Ladder\" x=\"2521.6\" y=\"224\" width=\"32\" height=\"160\">",
                "  <object id=\"2\" type=\"Ladder\" x=\"2521.6\" y=\"208\" width=\"32\" height=\"176\">"
            )]
        );
        assert_eq!(t.object_attr(2, "y").unwrap().as_deref(), Some("208"));
        assert_eq!(DOC.len(), t.as_str().len());
    }

    #[test]
    fn setting_an_existing_property_changes_only_its_value() {
        let mut t = TmxText::new(DOC);
        t.set_object_property(2, "rung_spacing", "float", "0.32")
            .unwrap();
        assert_eq!(t.as_str(), DOC.replace("value=\"0.3\"", "value=\"0.32\""));
        assert_eq!(
            t.object_property(2, "rung_spacing").unwrap().as_deref(),
            Some("0.32")
        );
        assert_eq!(t.object_property(2, "first_rung_offset").unwrap(), None);
        assert_eq!(t.object_property(1, "rung_spacing").unwrap(), None);
        let e = t
            .set_object_property(2, "rung_spacing", "int", "1")
            .unwrap_err();
        assert!(e.contains("type 'float'"), "{e}");
    }

    #[test]
    fn a_new_property_joins_the_existing_list_at_its_indentation() {
        let mut t = TmxText::new(DOC);
        t.set_object_property(2, "first_rung_offset", "float", "0.25")
            .unwrap();
        let want = DOC.replace(
            "    <property name=\"rung_spacing\" type=\"float\" value=\"0.3\"/>\n",
            "    <property name=\"rung_spacing\" type=\"float\" value=\"0.3\"/>\n    <property name=\"first_rung_offset\" type=\"float\" value=\"0.25\"/>\n",
        );
        assert_eq!(t.as_str(), want);
    }

    #[test]
    fn a_self_closing_object_gets_a_properties_block() {
        let mut t = TmxText::new(DOC);
        t.set_object_property(4, "rung_spacing", "float", "0.28")
            .unwrap();
        let want = DOC.replace(
            "  <object id=\"4\" type=\"Ladder\" x=\"10\" y=\"20\" width=\"32\" height=\"64\"/>\n",
            "  <object id=\"4\" type=\"Ladder\" x=\"10\" y=\"20\" width=\"32\" height=\"64\">\n   <properties>\n    <property name=\"rung_spacing\" type=\"float\" value=\"0.28\"/>\n   </properties>\n  </object>\n",
        );
        assert_eq!(t.as_str(), want);
        // An object with children but no properties gets them first.
        t.set_object_property(1, "note", "string", "a<b").unwrap();
        assert!(t.as_str().contains(
            "type=\"Spawn\" x=\"80\" y=\"384\">\n   <properties>\n    <property name=\"note\" type=\"string\" value=\"a&lt;b\"/>\n   </properties>\n   <point/>"
        ), "{}", t.as_str());
    }

    #[test]
    fn inserting_an_object_advances_nextobjectid_and_keeps_the_rest() {
        let mut t = TmxText::new(DOC);
        let id = t
            .insert_object(1, |id| format!("<object id=\"{id}\" type=\"Slope\"/>"))
            .unwrap();
        assert_eq!(id, 7);
        let want = DOC
            .replace("nextobjectid=\"7\"", "nextobjectid=\"8\"")
            .replace(
                " </objectgroup>",
                "  <object id=\"7\" type=\"Slope\"/>\n </objectgroup>",
            );
        assert_eq!(t.as_str(), want);
    }

    #[test]
    fn missing_objects_and_broken_text_are_errors_not_panics() {
        let mut t = TmxText::new(DOC);
        assert!(
            t.set_object_attr(99, "y", "1")
                .unwrap_err()
                .contains("object 99")
        );
        for bad in [
            "<map",
            "<map><object id=\"1\"></map>",
            "<map a=1/>",
            "</map>",
            "<map><!-- x",
        ] {
            let mut t = TmxText::new(bad);
            assert!(t.set_object_attr(1, "y", "1").is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers_are_written_short_and_exact() {
        assert_eq!(fmt_num(2521.6), "2521.6");
        assert_eq!(fmt_num(160.0), "160");
        assert_eq!(fmt_num(0.30000001192092896), "0.3");
        assert_eq!(fmt_num(-0.0000001), "0");
        assert_eq!(fmt_num(0.071797), "0.071797");
    }

    /// A map with a 3×2 CSV layer inside a group, a base64 layer, an XML
    /// layer and a polyline object.
    const TILES: &str = "<map width=\"3\" height=\"2\">\n <group id=\"9\" name=\"g\">\n  <layer id=\"1\" name=\"Ground\" width=\"3\" height=\"2\">\n   <data encoding=\"csv\">\n0,2,2147483650,\n1,1,1\n</data>\n  </layer>\n </group>\n <layer id=\"2\" name=\"B64\" width=\"3\" height=\"2\">\n  <data encoding=\"base64\" compression=\"zlib\">eJxjYGBgAAAABAAB</data>\n </layer>\n <layer id=\"3\" name=\"Xml\" width=\"1\" height=\"1\"><data><tile gid=\"1\"/></data></layer>\n <objectgroup id=\"4\">\n  <object id=\"5\" type=\"MovingPlatform\" x=\"64\" y=\"96\">\n   <polyline points=\"0,0  128,-32.5 256,0\"/>\n  </object>\n  <object id=\"6\" x=\"1\" y=\"1\"><point/></object>\n </objectgroup>\n</map>\n";

    #[test]
    fn setting_a_csv_tile_changes_only_that_number() {
        let mut t = TmxText::new(TILES);
        assert_eq!(t.tile_gid(0, 1, 0).unwrap(), 2);
        assert_eq!(
            t.tile_gid(0, 2, 0).unwrap(),
            2_147_483_650,
            "flip bits kept"
        );
        assert_eq!(t.tile_layer_name(0).unwrap(), "Ground");
        t.set_tile_gid(0, 0, 0, 2).unwrap();
        t.set_tile_gid(0, 2, 1, 0).unwrap();
        t.set_tile_gid(0, 1, 0, 0).unwrap();
        assert_eq!(
            t.as_str(),
            TILES.replace("0,2,2147483650,\n1,1,1\n", "2,0,2147483650,\n1,1,0\n")
        );
        assert_eq!(t.tile_gid(0, 0, 0).unwrap(), 2);
        // A longer number shifts the rest of the text, nothing else changes.
        t.set_tile_gid(0, 1, 1, 12345).unwrap();
        assert!(t.as_str().contains("2,0,2147483650,\n1,12345,0\n</data>"));
        assert_eq!(t.tile_gid(0, 2, 1).unwrap(), 0);
    }

    #[test]
    fn other_tile_encodings_and_bad_cells_are_refused_and_nothing_changes() {
        let mut t = TmxText::new(TILES);
        let e = t.set_tile_gid(1, 0, 0, 1).unwrap_err();
        assert!(
            e.contains("'B64'") && e.contains("base64 (zlib)") && e.contains("CSV"),
            "{e}"
        );
        let e = t.set_tile_gid(2, 0, 0, 1).unwrap_err();
        assert!(e.contains("'Xml'") && e.contains("XML"), "{e}");
        let e = t.set_tile_gid(0, 3, 0, 1).unwrap_err();
        assert!(
            e.contains("tile (3,0) is outside layer 'Ground' (3×2 tiles)"),
            "{e}"
        );
        assert!(t.set_tile_gid(0, -1, 0, 1).is_err());
        assert!(
            t.set_tile_gid(3, 0, 0, 1)
                .unwrap_err()
                .contains("no tile layer 3")
        );
        assert_eq!(t.as_str(), TILES);
        let short = TmxText::new(TILES.replace("1,1,1\n", "1,1\n"));
        let e = short.tile_gid(0, 0, 0).unwrap_err();
        assert!(e.contains("holds 5 tiles, not its 3×2"), "{e}");
        let chunks = TmxText::new(
            "<map><layer name=\"I\" width=\"2\" height=\"1\"><data encoding=\"csv\"><chunk x=\"0\" y=\"0\" width=\"2\" height=\"1\">1,0</chunk></data></layer></map>",
        );
        assert!(
            chunks
                .tile_gid(0, 0, 0)
                .unwrap_err()
                .contains("infinite map")
        );
        let junk = TmxText::new(TILES.replace("1,1,1\n", "1,x,1\n"));
        assert!(junk.tile_gid(0, 0, 0).unwrap_err().contains("'x'"));
    }

    #[test]
    fn moving_a_polyline_point_rewrites_only_that_pair() {
        let mut t = TmxText::new(TILES);
        assert_eq!(
            t.polyline_points(5).unwrap(),
            vec![(0.0, 0.0), (128.0, -32.5), (256.0, 0.0)]
        );
        t.set_polyline_point(5, 1, 136.0, -40.25).unwrap();
        assert_eq!(
            t.as_str(),
            TILES.replace("0,0  128,-32.5 256,0", "0,0  136,-40.25 256,0")
        );
        t.set_polyline_point(5, 2, 0.1 + 0.2, 0.0).unwrap();
        assert!(t.as_str().contains("points=\"0,0  136,-40.25 0.3,0\""));
        let before = t.as_str().to_string();
        let e = t.set_polyline_point(5, 3, 0.0, 0.0).unwrap_err();
        assert!(e.contains("3 points, there is no point 3"), "{e}");
        assert!(t.set_polyline_point(5, 0, f64::NAN, 0.0).is_err());
        let e = t.set_polyline_point(6, 0, 0.0, 0.0).unwrap_err();
        assert!(e.contains("object 6 has no <polyline>"), "{e}");
        assert!(t.polyline_points(99).unwrap_err().contains("object 99"));
        assert_eq!(t.as_str(), before);
        let bad = TmxText::new(TILES.replace("256,0\"", "256\""));
        assert!(
            bad.polyline_points(5)
                .unwrap_err()
                .contains("'256' is not 'x,y'")
        );
    }

    proptest::proptest! {
        #[test]
        fn scanning_arbitrary_text_never_panics(s in ".{0,200}") {
            let mut t = TmxText::new(format!("<map>{s}"));
            let _ = t.set_object_attr(1, "y", "2");
            let _ = t.set_object_property(1, "a", "float", "2");
            let _ = t.set_tile_gid(0, 0, 0, 1);
            let _ = t.set_polyline_point(1, 0, 1.0, 2.0);
        }

        #[test]
        fn arbitrary_csv_data_never_panics_and_a_set_cell_reads_back(
            data in "[0-9, \n]{0,40}",
            col in -1i32..4,
            row in -1i32..3,
            gid in 0u32..100,
        ) {
            let text = format!("<map><layer name=\"L\" width=\"3\" height=\"2\"><data encoding=\"csv\">{data}</data></layer></map>");
            let mut t = TmxText::new(text.clone());
            if t.set_tile_gid(0, col, row, gid).is_ok() {
                proptest::prop_assert_eq!(t.tile_gid(0, col, row).unwrap(), gid);
            } else {
                proptest::prop_assert_eq!(t.as_str(), text.as_str());
            }
        }
    }
}
