//! Minimal, byte-preserving edits of a Tiled JSON map's text (`.tmj`), the
//! same edits [`super::tmx_text`] makes in a TMX file: set an object's
//! member (`y`, `height`), set or add one of its properties, add an object
//! beside another (advancing the map's `nextobjectid`), move one point of
//! its `polyline`, set one cell of a tile layer's data array. Only the
//! edited value's bytes change (or the new member's or element's are
//! inserted, on one line, with its neighbours' spacing); key order,
//! whitespace, number spellings and everything else stay as they were, so a
//! file saved by designer mode differs from Tiled's only where a value
//! changed.
//!
//! The scanner records where each JSON value lies in the text; it checks
//! the syntax as far as it needs to find those places and refuses anything
//! nested deeper than [`super::tmj::JSON_DEPTH`]. The loader validates the
//! edited text before anything is saved.

use std::ops::Range;

use serde_json::Value;

use super::tmj::JSON_DEPTH;

/// The text of a Tiled JSON map being edited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmjText {
    text: String,
}

/// A JSON value found in the text.
#[derive(Clone, Debug)]
struct Node {
    /// Where the value lies.
    span: Range<usize>,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    /// Members: the key (decoded), where the key starts, the value's node.
    Object(Vec<Member>),
    /// Elements' nodes.
    Array(Vec<usize>),
    Scalar,
}

#[derive(Clone, Debug)]
struct Member {
    key: String,
    key_start: usize,
    value: usize,
}

/// The scanned document: nodes in the order they start, the root first.
struct Doc {
    nodes: Vec<Node>,
}

impl Doc {
    fn member(&self, node: usize, key: &str) -> Option<usize> {
        match &self.nodes[node].kind {
            Kind::Object(members) => members.iter().find(|m| m.key == key).map(|m| m.value),
            _ => None,
        }
    }

    fn elements(&self, node: usize) -> &[usize] {
        match &self.nodes[node].kind {
            Kind::Array(e) => e,
            _ => &[],
        }
    }
}

impl TmjText {
    /// Wraps a TMJ document's text.
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into() }
    }

    /// The current text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn scan(&self) -> Result<Doc, String> {
        let mut s = Scanner {
            text: self.text.as_bytes(),
            at: 0,
            nodes: Vec::new(),
        };
        s.ws();
        s.value(0)?;
        s.ws();
        if s.at != s.text.len() {
            return Err(format!(
                "unexpected text after the JSON document at byte {}",
                s.at
            ));
        }
        Ok(Doc { nodes: s.nodes })
    }

    /// The raw text of a node: a string decoded, anything else as written.
    fn raw(&self, doc: &Doc, node: usize) -> String {
        let t = &self.text[doc.nodes[node].span.clone()];
        match serde_json::from_str::<Value>(t) {
            Ok(Value::String(s)) => s,
            _ => t.to_string(),
        }
    }

    /// Member `name` of object `id`, as text (a string decoded), if it has
    /// one.
    pub fn object_attr(&self, id: u32, name: &str) -> Result<Option<String>, String> {
        let doc = self.scan()?;
        let obj = find_object(&self.text, &doc, id)?.0;
        Ok(doc.member(obj, name).map(|v| self.raw(&doc, v)))
    }

    /// Sets member `name` of object `id` to the number `value` (added when
    /// absent).
    pub fn set_object_attr(&mut self, id: u32, name: &str, value: &str) -> Result<(), String> {
        let json = number(value)?;
        let doc = self.scan()?;
        let obj = find_object(&self.text, &doc, id)?.0;
        match doc.member(obj, name) {
            Some(v) => self.text.replace_range(doc.nodes[v].span.clone(), &json),
            None => self.insert_member(&doc, obj, name, &json),
        }
        Ok(())
    }

    /// The property `name` of object `id`: its node.
    fn property(&self, doc: &Doc, obj: usize, name: &str) -> Option<usize> {
        let props = doc.member(obj, "properties")?;
        doc.elements(props).iter().copied().find(|&p| {
            doc.member(p, "name")
                .is_some_and(|n| self.raw(doc, n) == name)
        })
    }

    /// The value of property `name` of object `id` as text, if it has one.
    pub fn object_property(&self, id: u32, name: &str) -> Result<Option<String>, String> {
        let doc = self.scan()?;
        let obj = find_object(&self.text, &doc, id)?.0;
        Ok(self
            .property(&doc, obj, name)
            .and_then(|p| doc.member(p, "value"))
            .map(|v| self.raw(&doc, v)))
    }

    /// Sets property `name` (of Tiled type `ty`) of object `id` to `value`:
    /// the `value` of an existing property, or a new one in its
    /// `properties` (created when the object has none), in name order as
    /// Tiled keeps them.
    pub fn set_object_property(
        &mut self,
        id: u32,
        name: &str,
        ty: &str,
        value: &str,
    ) -> Result<(), String> {
        let json = match ty {
            "float" | "int" => number(value)?,
            "bool" => (value == "true").to_string(),
            _ => serde_json::to_string(value).map_err(|e| e.to_string())?,
        };
        let doc = self.scan()?;
        let obj = find_object(&self.text, &doc, id)?.0;
        if let Some(p) = self.property(&doc, obj, name) {
            if let Some(t) = doc.member(p, "type").map(|t| self.raw(&doc, t))
                && t != ty
            {
                return Err(format!(
                    "object {id}: property '{name}' has type '{t}', expected '{ty}'"
                ));
            }
            match doc.member(p, "value") {
                Some(v) => self.text.replace_range(doc.nodes[v].span.clone(), &json),
                None => self.insert_member(&doc, p, "value", &json),
            }
            return Ok(());
        }
        let prop = format!(
            "{{\"name\":{},\"type\":\"{ty}\",\"value\":{json}}}",
            serde_json::to_string(name).map_err(|e| e.to_string())?
        );
        match doc.member(obj, "properties") {
            Some(props) => {
                let before = doc.elements(props).iter().position(|&p| {
                    doc.member(p, "name")
                        .is_some_and(|n| self.raw(&doc, n).as_str() > name)
                });
                self.insert_element(&doc, props, before, &prop);
            }
            None => self.insert_member(&doc, obj, "properties", &format!("[{prop}]")),
        }
        Ok(())
    }

    /// Adds an object to the object layer holding object `beside`, as its
    /// last element. `make` gets the new object's id and returns its JSON
    /// (one object, on one line); the map's `nextobjectid` is advanced.
    /// Returns the new id.
    pub fn insert_object(
        &mut self,
        beside: u32,
        make: impl FnOnce(u32) -> String,
    ) -> Result<u32, String> {
        let doc = self.scan()?;
        let (_, array) = find_object(&self.text, &doc, beside)?;
        let mut max_id = 0;
        for_each_object(&doc, 0, &mut |o| {
            if let Some(v) = doc.member(o, "id")
                && let Ok(n) = self.raw(&doc, v).parse::<u32>()
            {
                max_id = max_id.max(n);
            }
        });
        let next_node = doc.member(0, "nextobjectid");
        let next = next_node.and_then(|n| self.raw(&doc, n).parse::<u32>().ok());
        let id = next.unwrap_or(0).max(max_id + 1);
        // Both edits as (range, replacement), applied from the end of the
        // text backwards so the earlier range stays valid.
        let element = make(id);
        let mut edits: Vec<(Range<usize>, String)> = Vec::new();
        if let Some(n) = next_node.filter(|_| next.is_some()) {
            edits.push((doc.nodes[n].span.clone(), (id + 1).to_string()));
        }
        let (text, at) = self.element_insertion(&doc, array, None, &element);
        edits.push((at..at, text));
        edits.sort_by_key(|e| std::cmp::Reverse(e.0.start));
        for (range, replacement) in edits {
            self.text.replace_range(range, &replacement);
        }
        Ok(id)
    }

    /// Inserts member `"key":json` into object `obj`, before the first
    /// member whose key sorts after it (Tiled writes keys sorted), with the
    /// spacing its neighbours have.
    fn insert_member(&mut self, doc: &Doc, obj: usize, key: &str, json: &str) {
        let Kind::Object(members) = &doc.nodes[obj].kind else {
            return;
        };
        let entry = format!("{}:{json}", serde_json::to_string(key).unwrap_or_default());
        let span = doc.nodes[obj].span.clone();
        let Some(last) = members.last() else {
            self.text.insert_str(span.start + 1, &entry);
            return;
        };
        match members.iter().position(|m| m.key.as_str() > key) {
            Some(i) => {
                let lead = self.lead(doc, obj, i);
                self.text
                    .insert_str(members[i].key_start, &format!("{entry},{lead}"));
            }
            None => {
                let lead = self.lead(doc, obj, members.len() - 1);
                let end = doc.nodes[last.value].span.end;
                self.text.insert_str(end, &format!(",{lead}{entry}"));
            }
        }
    }

    /// The whitespace before member or element `i` of a container (after
    /// its `{`, `[` or comma).
    fn lead(&self, doc: &Doc, node: usize, i: usize) -> String {
        let start = match &doc.nodes[node].kind {
            Kind::Object(m) => m[i].key_start,
            Kind::Array(e) => doc.nodes[e[i]].span.start,
            Kind::Scalar => return String::new(),
        };
        let before = &self.text[..start];
        let ws = before.len() - before.trim_end().len();
        before[before.len() - ws..].to_string()
    }

    /// Inserts `element` into array `array` before element `before` (or at
    /// the end), with the spacing its neighbours have.
    fn insert_element(&mut self, doc: &Doc, array: usize, before: Option<usize>, element: &str) {
        let (text, at) = self.element_insertion(doc, array, before, element);
        self.text.insert_str(at, &text);
    }

    /// What [`TmjText::insert_element`] inserts, and where.
    fn element_insertion(
        &self,
        doc: &Doc,
        array: usize,
        before: Option<usize>,
        element: &str,
    ) -> (String, usize) {
        let elements = doc.elements(array);
        let span = doc.nodes[array].span.clone();
        match (elements.last(), before) {
            (None, _) => (element.to_string(), span.start + 1),
            (Some(_), Some(i)) => {
                let lead = self.lead(doc, array, i);
                (
                    format!("{element},{lead}"),
                    doc.nodes[elements[i]].span.start,
                )
            }
            (Some(&last), None) => {
                let lead = self.lead(doc, array, elements.len() - 1);
                (format!(",{lead}{element}"), doc.nodes[last].span.end)
            }
        }
    }

    /// The tile layer `layer` (counted from 0 in file order, those inside
    /// groups included, as the loader reads them): its node and name.
    fn tile_layer(&self, doc: &Doc, layer: usize) -> Result<(usize, String), String> {
        let mut found = Vec::new();
        tile_layers(self, doc, 0, &mut found);
        found
            .into_iter()
            .nth(layer)
            .ok_or_else(|| format!("no tile layer {layer}"))
    }

    /// The data array of tile layer `layer` and the cell index of `(col,
    /// row)` in it. Only a finite layer's JSON array can be edited: base64
    /// data and infinite maps' chunks are refused with the reason
    /// (rewriting them would re-encode the whole layer).
    fn cell(&self, doc: &Doc, layer: usize, col: i32, row: i32) -> Result<usize, String> {
        let (node, name) = self.tile_layer(doc, layer)?;
        let Some(data) = doc.member(node, "data") else {
            return Err(format!(
                "layer '{name}': its tiles are in chunks (an infinite map); designer mode edits tiles only in a finite map's layer data array"
            ));
        };
        if !matches!(doc.nodes[data].kind, Kind::Array(_)) {
            return Err(format!(
                "layer '{name}': its data is base64 text; designer mode edits tiles only in a data array (in Tiled: Map Properties > Tile Layer Format > CSV)"
            ));
        }
        let dim = |k: &str| {
            doc.member(node, k)
                .and_then(|v| self.raw(doc, v).parse::<i64>().ok())
                .unwrap_or(0)
        };
        let (w, h) = (dim("width"), dim("height"));
        let cells = doc.elements(data);
        if w <= 0 || h <= 0 || cells.len() as i64 != w * h {
            return Err(format!(
                "layer '{name}': its data holds {} tiles, not {w} × {h}",
                cells.len()
            ));
        }
        if !(0..w).contains(&i64::from(col)) || !(0..h).contains(&i64::from(row)) {
            return Err(format!(
                "layer '{name}': tile ({col},{row}) is outside its {w} × {h} tiles"
            ));
        }
        Ok(cells[(i64::from(row) * w + i64::from(col)) as usize])
    }

    /// The global tile id (flip bits included; 0 for an empty cell) at
    /// tile `(col, row)` of tile layer `layer` (see
    /// [`super::tmx_text::TmxText::tile_gid`]).
    pub fn tile_gid(&self, layer: usize, col: i32, row: i32) -> Result<u32, String> {
        let doc = self.scan()?;
        let cell = self.cell(&doc, layer, col, row)?;
        self.raw(&doc, cell).parse().map_err(|_| {
            format!(
                "layer '{}': tile ({col},{row}) is not a tile id",
                self.tile_layer(&doc, layer)
                    .map(|l| l.1)
                    .unwrap_or_default()
            )
        })
    }

    /// The name of tile layer `layer`.
    pub fn tile_layer_name(&self, layer: usize) -> Result<String, String> {
        let doc = self.scan()?;
        Ok(self.tile_layer(&doc, layer)?.1)
    }

    /// Writes `gid` into tile `(col, row)` of tile layer `layer`, changing
    /// only that number of the layer's data array.
    pub fn set_tile_gid(
        &mut self,
        layer: usize,
        col: i32,
        row: i32,
        gid: u32,
    ) -> Result<(), String> {
        let doc = self.scan()?;
        let cell = self.cell(&doc, layer, col, row)?;
        self.text
            .replace_range(doc.nodes[cell].span.clone(), &gid.to_string());
        Ok(())
    }

    /// The points of object `id`'s `polyline`: their `x` and `y` nodes.
    fn polyline(&self, doc: &Doc, id: u32) -> Result<Vec<(usize, usize)>, String> {
        let obj = find_object(&self.text, doc, id)?.0;
        let line = doc
            .member(obj, "polyline")
            .ok_or_else(|| format!("object {id}: it has no polyline"))?;
        doc.elements(line)
            .iter()
            .map(|&p| match (doc.member(p, "x"), doc.member(p, "y")) {
                (Some(x), Some(y)) => Ok((x, y)),
                _ => Err(format!("object {id}: a polyline point without x and y")),
            })
            .collect()
    }

    /// The points of object `id`'s `polyline`, in pixels relative to the
    /// object's `x` and `y`.
    pub fn polyline_points(&self, id: u32) -> Result<Vec<(f64, f64)>, String> {
        let doc = self.scan()?;
        let num = |n: usize| -> Result<f64, String> {
            self.raw(&doc, n)
                .parse()
                .map_err(|_| format!("object {id}: a polyline point is not a number"))
        };
        self.polyline(&doc, id)?
            .into_iter()
            .map(|(x, y)| Ok((num(x)?, num(y)?)))
            .collect()
    }

    /// Moves point `k` of object `id`'s `polyline` to `(x, y)` pixels
    /// relative to the object: only those two numbers change.
    pub fn set_polyline_point(&mut self, id: u32, k: usize, x: f64, y: f64) -> Result<(), String> {
        if !(x.is_finite() && y.is_finite()) {
            return Err(format!(
                "object {id}: point {k} at ({x}, {y}) is not a finite position"
            ));
        }
        let doc = self.scan()?;
        let points = self.polyline(&doc, id)?;
        let n = points.len();
        let &(xn, yn) = points.get(k).ok_or_else(|| {
            format!("object {id}: its polyline has {n} points, there is no point {k}")
        })?;
        let (xs, ys) = (doc.nodes[xn].span.clone(), doc.nodes[yn].span.clone());
        let fmt = super::tmx_text::fmt_num;
        // The later one first, so the earlier span stays valid.
        if xs.start > ys.start {
            self.text.replace_range(xs, &fmt(x));
            self.text.replace_range(ys, &fmt(y));
        } else {
            self.text.replace_range(ys, &fmt(y));
            self.text.replace_range(xs, &fmt(x));
        }
        Ok(())
    }
}

/// `value` as a JSON number, refused when it is not one.
fn number(value: &str) -> Result<String, String> {
    let v: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("'{value}' is not a number"))?;
    if !v.is_finite() {
        return Err(format!("'{value}' is not a finite number"));
    }
    Ok(value.trim().to_string())
}

/// Calls `f` on every object node of every object layer under `node` (the
/// map or a group layer), in file order.
fn for_each_object(doc: &Doc, node: usize, f: &mut dyn FnMut(usize)) {
    let Some(layers) = doc.member(node, "layers") else {
        return;
    };
    for &l in doc.elements(layers) {
        if let Some(objects) = doc.member(l, "objects") {
            for &o in doc.elements(objects) {
                f(o);
            }
        }
        for_each_object(doc, l, f);
    }
}

/// Every tile layer under `node` in file order (groups included): its node
/// and name.
fn tile_layers(text: &TmjText, doc: &Doc, node: usize, out: &mut Vec<(usize, String)>) {
    let Some(layers) = doc.member(node, "layers") else {
        return;
    };
    for &l in doc.elements(layers) {
        let kind = doc.member(l, "type").map(|t| text.raw(doc, t));
        match kind.as_deref() {
            Some("tilelayer") => {
                let name = doc.member(l, "name").map(|n| text.raw(doc, n));
                out.push((l, name.unwrap_or_default()));
            }
            Some("group") => tile_layers(text, doc, l, out),
            _ => {}
        }
    }
}

/// The object with id `id` and the `objects` array holding it.
fn find_object(text: &str, doc: &Doc, id: u32) -> Result<(usize, usize), String> {
    fn walk(text: &str, doc: &Doc, node: usize, id: u32) -> Option<(usize, usize)> {
        let layers = doc.member(node, "layers")?;
        for &l in doc.elements(layers) {
            if let Some(objects) = doc.member(l, "objects") {
                for &o in doc.elements(objects) {
                    if doc
                        .member(o, "id")
                        .is_some_and(|v| text[doc.nodes[v].span.clone()].trim() == id.to_string())
                    {
                        return Some((o, objects));
                    }
                }
            }
            if let Some(found) = walk(text, doc, l, id) {
                return Some(found);
            }
        }
        None
    }
    walk(text, doc, 0, id).ok_or_else(|| format!("no object {id} in the map"))
}

/// A JSON reader that records where each value lies.
struct Scanner<'t> {
    text: &'t [u8],
    at: usize,
    nodes: Vec<Node>,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self
            .text
            .get(self.at)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn fail<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("not valid JSON at byte {}: {what}", self.at))
    }

    /// Reads one value starting at the cursor; returns its node.
    fn value(&mut self, depth: usize) -> Result<usize, String> {
        if depth > JSON_DEPTH {
            return self.fail(&format!("nested more than {JSON_DEPTH} deep"));
        }
        let start = self.at;
        let index = self.nodes.len();
        self.nodes.push(Node {
            span: start..start,
            kind: Kind::Scalar,
        });
        let kind = match self.text.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut members = Vec::new();
                self.ws();
                if self.text.get(self.at) == Some(&b'}') {
                    self.at += 1;
                } else {
                    loop {
                        self.ws();
                        let key_start = self.at;
                        self.string()?;
                        let key = serde_json::from_slice::<String>(&self.text[key_start..self.at])
                            .map_err(|e| format!("not valid JSON at byte {key_start}: {e}"))?;
                        self.ws();
                        if self.text.get(self.at) != Some(&b':') {
                            return self.fail("expected ':'");
                        }
                        self.at += 1;
                        self.ws();
                        let value = self.value(depth + 1)?;
                        members.push(Member {
                            key,
                            key_start,
                            value,
                        });
                        self.ws();
                        match self.text.get(self.at) {
                            Some(b',') => self.at += 1,
                            Some(b'}') => {
                                self.at += 1;
                                break;
                            }
                            _ => return self.fail("expected ',' or '}'"),
                        }
                    }
                }
                Kind::Object(members)
            }
            Some(b'[') => {
                self.at += 1;
                let mut elements = Vec::new();
                self.ws();
                if self.text.get(self.at) == Some(&b']') {
                    self.at += 1;
                } else {
                    loop {
                        self.ws();
                        elements.push(self.value(depth + 1)?);
                        self.ws();
                        match self.text.get(self.at) {
                            Some(b',') => self.at += 1,
                            Some(b']') => {
                                self.at += 1;
                                break;
                            }
                            _ => return self.fail("expected ',' or ']'"),
                        }
                    }
                }
                Kind::Array(elements)
            }
            Some(b'"') => {
                self.string()?;
                Kind::Scalar
            }
            Some(_) => {
                // A number, true, false or null: up to the next delimiter.
                while self.text.get(self.at).is_some_and(|b| {
                    !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.at += 1;
                }
                if self.at == start {
                    return self.fail("expected a value");
                }
                Kind::Scalar
            }
            None => return self.fail("the text ends early"),
        };
        self.nodes[index] = Node {
            span: start..self.at,
            kind,
        };
        Ok(index)
    }

    /// Skips a string starting at the cursor.
    fn string(&mut self) -> Result<(), String> {
        if self.text.get(self.at) != Some(&b'"') {
            return self.fail("expected a string");
        }
        self.at += 1;
        loop {
            match self.text.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(b'\\') => self.at += 2,
                Some(_) => self.at += 1,
                None => return self.fail("a string does not end"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = r#"{ "height":2,
 "layers":[
        {
         "data":[1, 0, 0,
            1, 1, 1],
         "height":2,
         "name":"Ground",
         "type":"tilelayer",
         "width":3
        }, 
        {
         "name":"Objects",
         "objects":[
                {
                 "height":64,
                 "id":2,
                 "properties":[
                        {
                         "name":"rung_spacing",
                         "type":"float",
                         "value":0.3
                        }],
                 "type":"Ladder",
                 "x":10,
                 "y":0
                }, 
                {
                 "id":5,
                 "polyline":[
                        {
                         "x":0,
                         "y":0
                        }, 
                        {
                         "x":96,
                         "y":0
                        }],
                 "type":"MovingPlatform",
                 "x":1.5,
                 "y":8
                }],
         "type":"objectgroup"
        }],
 "nextobjectid":6,
 "width":3
}"#;

    /// The text with `edit` applied, and what changed: the bytes before
    /// and after the first and last difference.
    fn changed(edit: impl FnOnce(&mut TmjText)) -> (String, String, String) {
        let mut t = TmjText::new(MAP);
        edit(&mut t);
        let new = t.as_str().to_string();
        let (a, b) = (MAP.as_bytes(), new.as_bytes());
        let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let post = a[pre..]
            .iter()
            .rev()
            .zip(b[pre..].iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        assert!(
            serde_json::from_str::<Value>(&new).is_ok(),
            "the edit keeps valid JSON:\n{new}"
        );
        (
            MAP[pre..MAP.len() - post].to_string(),
            new[pre..new.len() - post].to_string(),
            new,
        )
    }

    #[test]
    fn set_attr_changes_only_the_value() {
        let (old, new, _) = changed(|t| t.set_object_attr(2, "height", "96.5").unwrap());
        assert_eq!((old.as_str(), new.as_str()), ("64", "96.5"));
        let t = TmjText::new(MAP);
        assert_eq!(t.object_attr(2, "y").unwrap().as_deref(), Some("0"));
        assert_eq!(t.object_attr(2, "width").unwrap(), None);
        assert!(t.object_attr(9, "y").unwrap_err().contains("no object 9"));
    }

    #[test]
    fn a_missing_attr_is_inserted_in_key_order_with_the_neighbours_spacing() {
        let (_, _, text) = changed(|t| t.set_object_attr(2, "width", "32").unwrap());
        assert!(
            text.contains(
                "\"type\":\"Ladder\",\n                 \"width\":32,\n                 \"x\":10"
            ),
            "{text}"
        );
    }

    #[test]
    fn properties_are_set_added_and_type_checked() {
        let (old, new, _) = changed(|t| {
            t.set_object_property(2, "rung_spacing", "float", "0.25")
                .unwrap()
        });
        assert_eq!((old.as_str(), new.as_str()), ("3", "25"));
        let (_, _, text) = changed(|t| {
            t.set_object_property(2, "first_rung_offset", "float", "0.4")
                .unwrap()
        });
        let t = TmjText::new(&text);
        assert_eq!(
            t.object_property(2, "first_rung_offset")
                .unwrap()
                .as_deref(),
            Some("0.4")
        );
        assert!(text.find("first_rung_offset").unwrap() < text.find("rung_spacing").unwrap());
        let (_, _, text) = changed(|t| t.set_object_property(5, "speed", "float", "2").unwrap());
        assert!(
            text.contains("\"properties\":[{\"name\":\"speed\",\"type\":\"float\",\"value\":2}]"),
            "{text}"
        );
        let mut t = TmjText::new(MAP);
        let e = t
            .set_object_property(2, "rung_spacing", "string", "x")
            .unwrap_err();
        assert!(e.contains("has type 'float'"), "{e}");
    }

    #[test]
    fn insert_object_appends_to_the_layer_and_advances_nextobjectid() {
        let (_, _, text) = changed(|t| {
            let id = t
                .insert_object(2, |id| format!("{{\"id\":{id},\"type\":\"Slope\"}}"))
                .unwrap();
            assert_eq!(id, 6);
        });
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["nextobjectid"], 7);
        assert_eq!(v["layers"][1]["objects"][2]["id"], 6);
    }

    #[test]
    fn tiles_and_polyline_points_change_one_number_each() {
        let (old, new, _) = changed(|t| t.set_tile_gid(0, 2, 0, 7).unwrap());
        assert_eq!((old.as_str(), new.as_str()), ("0", "7"));
        let t = TmjText::new(MAP);
        assert_eq!(t.tile_gid(0, 0, 1).unwrap(), 1);
        assert_eq!(t.tile_layer_name(0).unwrap(), "Ground");
        assert!(t.tile_gid(0, 3, 0).unwrap_err().contains("outside"));
        assert_eq!(t.polyline_points(5).unwrap(), vec![(0.0, 0.0), (96.0, 0.0)]);
        let (_, _, text) = changed(|t| t.set_polyline_point(5, 1, 128.0, -32.0).unwrap());
        assert_eq!(
            TmjText::new(text).polyline_points(5).unwrap()[1],
            (128.0, -32.0)
        );
    }

    #[test]
    fn base64_layers_and_broken_text_are_refused_with_the_reason() {
        let b64 = MAP.replace("[1, 0, 0,\n            1, 1, 1]", "\"AQAAAA==\"");
        let e = TmjText::new(b64).tile_gid(0, 0, 0).unwrap_err();
        assert!(e.contains("base64"), "{e}");
        let e = TmjText::new("{\"layers\":[").tile_gid(0, 0, 0).unwrap_err();
        assert!(e.contains("not valid JSON"), "{e}");
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(
            TmjText::new(deep)
                .object_attr(1, "x")
                .unwrap_err()
                .contains("deep")
        );
    }
}
