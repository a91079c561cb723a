//! Writing an output file whole or not at all. The bytes go to a new temporary file beside the
//! target, are synced, and the temporary file is renamed over the target: a full disk, a killed run
//! or a write error leaves the old file byte for byte (`lbplan import snap.json -o snap.json` on a
//! full disk used to leave it truncated). Every command that writes a file goes through here.
//!
//! A target that is a symlink to a regular file is written through (its target is replaced, the link
//! kept), except with [`Existing::ReplaceEntry`]. A target that is not a regular file (`/dev/stdout`,
//! `/dev/null`, a FIFO) cannot be renamed over, so it is written in place.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What to do when the target already exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Replace the file, through a symlink if the name is one.
    Replace,
    /// Replace whatever regular file or symlink has the name, never following a link (for outputs
    /// whose name someone else may have changed during the run).
    ReplaceEntry,
    /// Fail with [`WriteError::Exists`]; checked atomically when the file is put in place.
    Refuse,
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{path}: {source}")]
    Io { path: String, source: io::Error },
    #[error("{path}: {source} (not written; an existing file is unchanged)")]
    NotWritten { path: String, source: io::Error },
    #[error("{path}: already exists (give --force to replace it)")]
    Exists { path: String },
    #[error("{path}: is a directory")]
    IsDirectory { path: String },
    #[error("{path}: is not a regular file; not replaced")]
    NotRegular { path: String },
}

/// Writes `bytes` to `path` whole or not at all.
pub fn write_file(path: &Path, bytes: &[u8], existing: Existing) -> Result<(), WriteError> {
    write_with(path, existing, |f| f.write_all(bytes))
}

/// Writes what `fill` writes to `path` whole or not at all; when `fill` fails, the target is
/// untouched and the temporary file removed.
pub fn write_with(
    path: &Path,
    existing: Existing,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), WriteError> {
    let shown = path.display().to_string();
    let io_err = |source: io::Error| WriteError::Io {
        path: shown.clone(),
        source,
    };
    let (target, keep_permissions) = if existing == Existing::ReplaceEntry {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => return Err(WriteError::IsDirectory { path: shown }),
            Ok(meta) if meta.is_file() => (path.to_path_buf(), Some(meta.permissions())),
            Ok(meta) if meta.file_type().is_symlink() => (path.to_path_buf(), None),
            Ok(_) => return Err(WriteError::NotRegular { path: shown }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => (path.to_path_buf(), None),
            Err(e) => return Err(io_err(e)),
        }
    } else {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => return Err(WriteError::IsDirectory { path: shown }),
            Ok(_) if existing == Existing::Refuse => {
                return Err(WriteError::Exists { path: shown });
            }
            Ok(meta) if !meta.is_file() => return write_in_place(path, fill).map_err(io_err),
            Ok(meta) => {
                let is_link =
                    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
                let target = if is_link {
                    std::fs::canonicalize(path).map_err(io_err)?
                } else {
                    path.to_path_buf()
                };
                (target, Some(meta.permissions()))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => (path.to_path_buf(), None),
            Err(e) => return Err(io_err(e)),
        }
    };
    let not_written = |source: io::Error| WriteError::NotWritten {
        path: shown.clone(),
        source,
    };
    let mut temp = TempFile::create_beside(&target).map_err(not_written)?;
    if let Some(p) = keep_permissions {
        temp.file.set_permissions(p).map_err(not_written)?;
    }
    fill(&mut temp.file).map_err(not_written)?;
    temp.file.flush().map_err(not_written)?;
    // Synced before the rename, so that a crash cannot leave the new name on empty blocks.
    temp.file.sync_all().map_err(not_written)?;
    match existing {
        Existing::Replace | Existing::ReplaceEntry => {
            std::fs::rename(&temp.path, &target).map_err(not_written)?
        }
        Existing::Refuse => put_new(&temp.path, &target).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                WriteError::Exists {
                    path: shown.clone(),
                }
            } else {
                not_written(e)
            }
        })?,
    }
    temp.disarm();
    sync_parent(&target);
    Ok(())
}

/// Puts `temp` at `target` only if nothing is there: a hard link fails atomically when the name
/// exists (where a rename would replace it); file systems without hard links get a checked rename.
fn put_new(temp: &Path, target: &Path) -> io::Result<()> {
    match std::fs::hard_link(temp, target) {
        Ok(()) => std::fs::remove_file(temp),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) if std::fs::symlink_metadata(target).is_ok() => {
            Err(io::Error::from(io::ErrorKind::AlreadyExists))
        }
        Err(_) => std::fs::rename(temp, target),
    }
}

fn write_in_place(path: &Path, fill: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).open(path)?;
    fill(&mut file)?;
    file.flush()
}

/// Best effort: the rename is durable once the directory is synced; a failure here changes nothing
/// the user can act on.
fn sync_parent(target: &Path) {
    if let Some(dir) = target.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// A temporary file beside the target, removed on drop unless disarmed.
struct TempFile {
    path: PathBuf,
    file: File,
    armed: bool,
}

impl TempFile {
    fn create_beside(target: &Path) -> io::Result<Self> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?
            .to_string_lossy();
        // Short enough that the suffix never pushes the name over NAME_MAX (255 bytes).
        let stem: String = name.chars().take(64).collect();
        let pid = std::process::id();
        let mut last = None;
        for n in 0..100u32 {
            let path = dir.join(format!(".{stem}.{pid}.{n}.lbplan-tmp"));
            // create_new: never reuse or follow whatever is already at that name.
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    return Ok(Self {
                        path,
                        file,
                        armed: true,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists)))
    }

    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("lbplan-atomic-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_write_failing_midway_leaves_the_old_file_byte_identical() {
        let dir = temp_dir("fail");
        let target = dir.join("snap.json");
        let old = b"{\"format_version\": 1, \"old\": true}\n".repeat(100);
        std::fs::write(&target, &old).unwrap();
        let err = write_with(&target, Existing::Replace, |f| {
            f.write_all(b"{\"format_version\": 1, \"new\"")?;
            Err(io::Error::from_raw_os_error(28)) // ENOSPC, as on a full disk
        })
        .unwrap_err();
        assert!(matches!(err, WriteError::NotWritten { .. }), "{err}");
        assert!(err.to_string().contains("snap.json"), "{err}");
        assert_eq!(std::fs::read(&target).unwrap(), old);
        assert_eq!(names(&dir), ["snap.json"], "the temporary file is removed");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_successful_write_replaces_the_file_and_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_dir("ok");
        let target = dir.join("plan.txt");
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_file(&target, b"new", Existing::Replace).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(names(&dir), ["plan.txt"]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn refuse_keeps_an_existing_file_and_a_symlink() {
        let dir = temp_dir("refuse");
        let existing = dir.join("out.zip");
        std::fs::write(&existing, "keep").unwrap();
        let err = write_file(&existing, b"new", Existing::Refuse).unwrap_err();
        assert!(matches!(err, WriteError::Exists { .. }), "{err}");
        assert_eq!(std::fs::read(&existing).unwrap(), b"keep");
        // A dangling symlink is a name that exists: it is neither followed nor replaced.
        let link = dir.join("link.zip");
        std::os::unix::fs::symlink(dir.join("elsewhere"), &link).unwrap();
        let err = write_file(&link, b"new", Existing::Refuse).unwrap_err();
        assert!(matches!(err, WriteError::Exists { .. }), "{err}");
        assert!(!dir.join("elsewhere").exists());
        write_file(&dir.join("new.zip"), b"new", Existing::Refuse).unwrap();
        assert_eq!(names(&dir), ["link.zip", "new.zip", "out.zip"]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_target_is_written_through_and_stays_a_link() {
        let dir = temp_dir("link");
        let real = dir.join("real.json");
        let link = dir.join("link.json");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_file(&link, b"new", Existing::Replace).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn replace_entry_replaces_a_link_without_following_it() {
        let dir = temp_dir("entry");
        let victim = dir.join("victim");
        let link = dir.join("out.zip");
        std::fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        write_file(&link, b"zip", Existing::ReplaceEntry).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
        assert_eq!(std::fs::read(&link).unwrap(), b"zip");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_written_in_place_and_its_errors_reported() {
        write_file(Path::new("/dev/null"), b"x", Existing::Replace).unwrap();
        let err = write_file(Path::new("/dev/full"), b"x", Existing::Replace).unwrap_err();
        assert!(err.to_string().starts_with("/dev/full: "), "{err}");
    }
}
