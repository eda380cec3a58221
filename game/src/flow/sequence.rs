//! The order the levels are played in: `assets/levels/sequence.ron`,
//! embedded in the binary. Each entry names a level the way `--level` does
//! (`builtin` or a shipped level's name), and every entry is checked
//! against [`LevelSource::resolve`] when the sequence is read, so a typo is
//! an error naming the file and the entry, not a level that fails later.

use serde::Deserialize;

use crate::level::shipped::LevelSource;

/// The sequence file, embedded at build time.
pub const SEQUENCE_RON: &str = include_str!("../../../assets/levels/sequence.ron");
/// The label errors give the embedded sequence file.
pub const SEQUENCE_LABEL: &str = "assets/levels/sequence.ron";

/// The file's shape.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SequenceFile {
    levels: Vec<String>,
}

/// Why a sequence file is not a sequence.
#[derive(Debug, thiserror::Error)]
pub enum SequenceError {
    /// The text is not the RON the file should hold.
    #[error("{file}: {reason}")]
    Parse {
        /// The file (or label).
        file: String,
        /// The parser's message, with line and column.
        reason: String,
    },
    /// An entry names no level.
    #[error("{file}: entry {index} ({given:?}): {reason}")]
    Entry {
        /// The file (or label).
        file: String,
        /// The entry's position, counted from 1.
        index: usize,
        /// The entry as written.
        given: String,
        /// Why it names no level.
        reason: String,
    },
    /// The file lists no level, or one level twice.
    #[error("{file}: {reason}")]
    Invalid {
        /// The file (or label).
        file: String,
        /// What is wrong.
        reason: String,
    },
}

/// The levels of the game, in order; never empty.
#[derive(Clone, Debug, PartialEq)]
pub struct Sequence {
    /// The level names, as `--level` takes them.
    pub names: Vec<String>,
    /// What each name resolves to.
    pub sources: Vec<LevelSource>,
    /// Each level's display name (its map's `name` property).
    pub titles: Vec<String>,
}

impl Sequence {
    /// The sequence shipped in the binary.
    pub fn shipped() -> Result<Self, SequenceError> {
        Self::parse(SEQUENCE_RON, SEQUENCE_LABEL)
    }

    /// Reads a sequence from RON text; `file` is what errors name.
    pub fn parse(text: &str, file: &str) -> Result<Self, SequenceError> {
        let parsed: SequenceFile = ron::from_str(text).map_err(|e| SequenceError::Parse {
            file: file.to_string(),
            reason: e.to_string(),
        })?;
        if parsed.levels.is_empty() {
            return Err(SequenceError::Invalid {
                file: file.to_string(),
                reason: "the sequence lists no level".into(),
            });
        }
        let mut sources = Vec::with_capacity(parsed.levels.len());
        let mut titles = Vec::with_capacity(parsed.levels.len());
        for (i, name) in parsed.levels.iter().enumerate() {
            let entry = |reason: String| SequenceError::Entry {
                file: file.to_string(),
                index: i + 1,
                given: name.clone(),
                reason,
            };
            if parsed.levels[..i].contains(name) {
                return Err(entry("listed twice".into()));
            }
            match LevelSource::resolve(name) {
                // The sequence is embedded in the binary: a path would
                // depend on the folder the game starts in.
                Ok(LevelSource::File(_)) => {
                    return Err(entry(
                        "a sequence names built-in or shipped levels, not files".into(),
                    ));
                }
                Ok(source) => {
                    // Loaded once here: a level that does not load is the
                    // sequence's error, and its display name is known.
                    let level = source.load().map_err(|e| entry(e.to_string()))?;
                    titles.push(level.name);
                    sources.push(source);
                }
                Err(e) => return Err(entry(e.to_string())),
            }
        }
        Ok(Self {
            names: parsed.levels,
            sources,
            titles,
        })
    }

    /// How many levels there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Always false: a sequence has at least one level.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The position of the level called `name`, if it is in the sequence.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::shipped::shipped_names;

    #[test]
    fn the_shipped_sequence_starts_with_the_tutorial_and_holds_every_shipped_level() {
        let s = Sequence::shipped().unwrap();
        assert_eq!(s.names[0], "tutorial");
        for name in shipped_names() {
            assert!(s.position(name).is_some(), "{name} is not in the sequence");
        }
        assert_eq!(s.titles[0], "Tutorial");
        assert_eq!(s.titles.len(), s.len());
    }

    #[test]
    fn a_misspelt_or_repeated_entry_is_an_error_naming_the_file_and_entry() {
        let e = Sequence::parse(r#"(levels: ["tutorial", "tutorail"])"#, "seq.ron")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("seq.ron: entry 2 (\"tutorail\"): tutorail: unknown level"),
            "{e}"
        );
        let e = Sequence::parse(r#"(levels: ["long", "long"])"#, "seq.ron")
            .unwrap_err()
            .to_string();
        assert!(e.contains("entry 2") && e.contains("listed twice"), "{e}");
        let e = Sequence::parse(r#"(levels: ["maps/x.tmx"])"#, "seq.ron")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not files"), "{e}");
    }

    #[test]
    fn malformed_or_empty_files_are_errors_naming_the_file() {
        let e = Sequence::parse("(levels: [", "seq.ron")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("seq.ron: "), "{e}");
        let e = Sequence::parse("(levels: [])", "seq.ron")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "seq.ron: the sequence lists no level");
        let e = Sequence::parse(r#"(levels: ["long"], extra: 1)"#, "seq.ron")
            .unwrap_err()
            .to_string();
        assert!(e.contains("extra"), "{e}");
    }
}
