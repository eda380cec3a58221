//! Minimal, byte-preserving edits of a TMX file's text: set an object's
//! attribute, set (or add) one of its properties, add an object beside
//! another. Everything the edit does not touch stays byte-for-byte as it was
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

    fn scan(&self) -> Result<Scan, String> {
        scan(&self.text)
    }
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

    proptest::proptest! {
        #[test]
        fn scanning_arbitrary_text_never_panics(s in ".{0,200}") {
            let mut t = TmxText::new(format!("<map>{s}"));
            let _ = t.set_object_attr(1, "y", "2");
            let _ = t.set_object_property(1, "a", "float", "2");
        }
    }
}
