//! Writing files so that a crash never leaves a truncated one behind, and
//! reading the files a user hands us with a bound ([`read_bounded`]).
//!
//! Every file the program writes (designer-mode level saves, metrics, traces,
//! screenshots) goes through [`write_atomic`]: the bytes go to a temporary
//! file beside the destination, are flushed to disk, and the temporary file
//! is renamed over the destination. A rename within one directory is atomic
//! on the file systems we run on, so a reader (Tiled, the hot reloader, a
//! test) sees either the old file or the new one, never half of one.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: temporary file, flush, rename.
///
/// The temporary file lives in the destination's own directory (a rename
/// across file systems would not be atomic) and is removed again if any step
/// fails, so a failed write leaves the old file untouched and no litter.
pub fn write_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> io::Result<()> {
    let path = path.as_ref();
    let tmp = temp_path(path);
    let result = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Reads a file the user named (a level, a tileset, an input script, a save
/// file) whole, refusing what is not a regular file (a folder, a device such
/// as `/dev/zero`, a pipe) and anything over `limit` bytes, before reading a
/// byte of it: a wrong path then costs a clear error, not a hang or all the
/// memory. The error says which rule was broken; the caller names the file.
pub fn read_bounded(path: impl AsRef<Path>, limit: u64) -> io::Result<Vec<u8>> {
    let path = path.as_ref();
    // Look before opening: opening a pipe blocks until a writer comes.
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a folder, a device or a pipe): refused",
        ));
    }
    if meta.len() > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("{} bytes, more than the limit of {limit} bytes", meta.len()),
        ));
    }
    let mut bytes = Vec::new();
    File::open(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("grew past the limit of {limit} bytes while being read"),
        ));
    }
    Ok(bytes)
}

/// The temporary name used for `path`: hidden, in the same directory, and
/// unique per process so two programs saving the same file do not collide.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_owned());
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ironstep-fsio-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn write_atomic_replaces_the_file_and_leaves_no_temporary() {
        let dir = scratch("replace");
        let path = dir.join("level.tmx");
        fs::write(&path, "old").unwrap();
        write_atomic(&path, b"new contents").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new contents");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("level.tmx")]);
    }

    #[test]
    fn read_bounded_refuses_devices_folders_and_oversized_files() {
        let dir = scratch("bounded");
        let e = read_bounded("/dev/zero", 1 << 20).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = read_bounded(&dir, 1 << 20).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let path = dir.join("big.txt");
        fs::write(&path, vec![b'x'; 101]).unwrap();
        let e = read_bounded(&path, 100).unwrap_err();
        assert!(
            e.to_string()
                .contains("101 bytes, more than the limit of 100 bytes"),
            "{e}"
        );
        assert_eq!(read_bounded(&path, 101).unwrap().len(), 101);
        let e = read_bounded(dir.join("missing"), 100).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn failed_write_keeps_the_old_file() {
        let dir = scratch("fail");
        // The destination is a non-empty directory: the rename must fail.
        let path = dir.join("occupied");
        fs::create_dir_all(path.join("inside")).unwrap();
        assert!(write_atomic(&path, b"x").is_err());
        assert!(path.join("inside").is_dir());
        let count = fs::read_dir(&dir).unwrap().count();
        assert_eq!(count, 1, "the temporary file was cleaned up");
    }
}
