//! The levels shipped inside the binary and the one resolver every
//! subcommand uses for a `--level` argument (`play`, `run`, `bench`,
//! `check-level`): `builtin`, the name of a shipped level, or a path to a
//! Tiled map (`.tmx`, or `.tmj`/`.json`). An unknown name is an error that
//! lists what exists.

use std::path::{Path, PathBuf};

use super::{LevelError, LoadedLevel};
use crate::sim::world::Level;

/// A Tiled level embedded in the binary, so it plays with no files around it.
#[derive(Debug)]
pub struct ShippedLevel {
    /// The name `--level` takes.
    pub name: &'static str,
    /// Where the level lives in the repository (what errors name).
    pub file: &'static str,
    /// The map's text: TMX, or Tiled JSON when `file` ends in `.tmj` or
    /// `.json` (a level may be shipped in either format).
    pub tmx: &'static str,
}

/// Every shipped Tiled level, tutorial first. Their sources are in
/// `assets/levels/`; each is embedded at build time.
pub const SHIPPED_LEVELS: [ShippedLevel; 3] = [
    ShippedLevel {
        name: "tutorial",
        file: super::TUTORIAL_LABEL,
        tmx: super::TUTORIAL_TMX,
    },
    ShippedLevel {
        name: "long",
        file: "assets/levels/long.tmx",
        tmx: include_str!("../../../assets/levels/long.tmx"),
    },
    ShippedLevel {
        name: "tower",
        file: "assets/levels/tower.tmx",
        tmx: include_str!("../../../assets/levels/tower.tmx"),
    },
];

/// The name of the level built by code ([`Level::builtin`]).
pub const BUILTIN: &str = "builtin";

/// What a `--level` argument names.
#[derive(Clone, Debug, PartialEq)]
pub enum LevelSource {
    /// The level built by code.
    Builtin,
    /// A level embedded in the binary.
    Shipped(&'static str),
    /// A Tiled map on disk (watched by `play`, editable in designer mode).
    File(PathBuf),
}

/// A `--level` argument that names nothing.
#[derive(Debug, thiserror::Error)]
#[error(
    "{given}: unknown level; give `builtin`, a shipped level ({}) or a path to a Tiled map (.tmx, .tmj or .json)",
    shipped_names().join(", ")
)]
pub struct UnknownLevel {
    /// The argument as given.
    pub given: String,
}

/// The names of the shipped levels, in order.
pub fn shipped_names() -> Vec<&'static str> {
    SHIPPED_LEVELS.iter().map(|l| l.name).collect()
}

/// Every name `--level` accepts besides paths: `builtin` then the shipped
/// levels.
pub fn level_names() -> Vec<&'static str> {
    std::iter::once(BUILTIN).chain(shipped_names()).collect()
}

impl LevelSource {
    /// Resolves a `--level` argument. A name wins over a file of the same
    /// name in the working folder only when it has no extension and no
    /// folder (`tutorial` is the shipped level, `./tutorial.tmx` the file).
    /// Anything that looks like a path (a `.tmx` extension, a folder
    /// separator, or an existing file) is a file; the loader then says what
    /// is wrong with it.
    pub fn resolve(given: &str) -> Result<Self, UnknownLevel> {
        if given == BUILTIN {
            return Ok(Self::Builtin);
        }
        if let Some(l) = SHIPPED_LEVELS.iter().find(|l| l.name == given) {
            return Ok(Self::Shipped(l.name));
        }
        let path = Path::new(given);
        let looks_like_path = path.extension().is_some()
            || given.contains(std::path::MAIN_SEPARATOR)
            || given.contains('/')
            || path.is_file();
        if looks_like_path && !given.is_empty() {
            Ok(Self::File(path.to_path_buf()))
        } else {
            Err(UnknownLevel {
                given: given.to_string(),
            })
        }
    }

    /// The file on disk, for a [`LevelSource::File`].
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::File(p) => Some(p),
            _ => None,
        }
    }

    /// What errors and reports call this level.
    pub fn label(&self) -> String {
        match self {
            Self::Builtin => BUILTIN.to_string(),
            Self::Shipped(name) => shipped(name).map_or(name.to_string(), |l| l.file.to_string()),
            Self::File(p) => p.display().to_string(),
        }
    }

    /// Loads the Tiled level this names; `None` for the built-in level,
    /// which is not a Tiled map.
    pub fn load_tiled(&self) -> Option<Result<LoadedLevel, LevelError>> {
        match self {
            Self::Builtin => None,
            Self::Shipped(name) => {
                let l = shipped(name).expect("resolved names are shipped");
                Some(super::from_map_str(l.tmx, l.file))
            }
            Self::File(p) => Some(super::load(p)),
        }
    }

    /// Loads the level the game plays.
    pub fn load(&self) -> Result<Level, LevelError> {
        match self.load_tiled() {
            None => Ok(Level::builtin()),
            Some(loaded) => loaded.map(|l| l.level),
        }
    }
}

/// The shipped level called `name`.
pub fn shipped(name: &str) -> Option<&'static ShippedLevel> {
    SHIPPED_LEVELS.iter().find(|l| l.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_what_they_name() {
        assert_eq!(
            LevelSource::resolve("builtin").unwrap(),
            LevelSource::Builtin
        );
        for name in shipped_names() {
            assert_eq!(
                LevelSource::resolve(name).unwrap(),
                LevelSource::Shipped(name)
            );
        }
        assert_eq!(
            LevelSource::resolve("maps/mine.tmx").unwrap(),
            LevelSource::File("maps/mine.tmx".into())
        );
        assert_eq!(
            LevelSource::resolve("mine.tmx").unwrap(),
            LevelSource::File("mine.tmx".into())
        );
    }

    #[test]
    fn an_unknown_name_lists_what_exists() {
        let e = LevelSource::resolve("tutorail").unwrap_err().to_string();
        assert!(e.starts_with("tutorail: unknown level"), "{e}");
        for name in level_names() {
            assert!(e.contains(name), "{e} lacks {name}");
        }
        assert!(LevelSource::resolve("").is_err());
    }

    #[test]
    fn every_shipped_level_loads_from_the_binary() {
        for name in shipped_names() {
            let source = LevelSource::resolve(name).unwrap();
            let level = source.load().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!level.segments.is_empty(), "{name} has ground");
        }
    }

    #[test]
    fn the_tower_is_shipped_after_the_tutorial_and_the_long_climb() {
        assert_eq!(shipped_names(), ["tutorial", "long", "tower"]);
        let tower = LevelSource::resolve("tower").unwrap();
        assert_eq!(tower.label(), "assets/levels/tower.tmx");
        assert_eq!(tower.load().unwrap().name, "Tower");
    }

    #[test]
    fn a_missing_file_names_the_file() {
        let e = LevelSource::resolve("no/such/level.tmx")
            .unwrap()
            .load()
            .unwrap_err()
            .to_string();
        assert!(e.contains("no/such/level.tmx"), "{e}");
    }

    #[test]
    fn a_level_may_be_shipped_as_tmj() {
        let tmj = ShippedLevel {
            name: "tower",
            file: "assets/levels/tower.tmj",
            tmx: include_str!("../../tests/levels/tmj/tower.tmj"),
        };
        let tmx = shipped("tower").unwrap();
        let (a, b) = (
            super::super::from_map_str(tmj.tmx, tmj.file).unwrap(),
            super::super::from_map_str(tmx.tmx, tmx.file).unwrap(),
        );
        assert_eq!(format!("{:?}", a.level), format!("{:?}", b.level));
        assert_eq!(a.file, "assets/levels/tower.tmj");
    }
}
