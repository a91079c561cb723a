//! Writing the collected files: a directory tree, or a `.zip` of the same tree (deflate, fixed
//! timestamps). Paths were built from checked names; they are checked again here so that nothing
//! can land outside the output.
//!
//! Nothing is written through a path someone else could have changed during the run. The tree is
//! built in a fresh directory of our own beside `-o` (created with `mkdir`, which never follows a
//! link, and closed to others while it fills; files are created new, never opened through a link),
//! then renamed to `-o` in one step: a rename refuses a symlink or a non-empty directory at the
//! target instead of following or merging into it. The `.zip` goes through
//! [`crate::atomic_write`]; an existing file is refused unless `--force`.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::atomic_write::{self, Existing};

/// Whether a layout path is relative, `/`-separated, without empty, `.` or `..` segments.
pub fn is_safe_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && p.split('/')
            .all(|s| !s.is_empty() && s != "." && s != ".." && !s.contains(['\\', '\0']))
}

/// Checks the output location before any request is made (checked again, atomically, when the
/// tree is put in place).
pub fn check_dir_target(out: &Path) -> Result<(), String> {
    if std::fs::symlink_metadata(out).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!(
            "{}: is a symbolic link (collect writes only into a directory it creates)",
            out.display()
        ));
    }
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                Err(format!(
                    "{}: the directory exists and is not empty (choose a new -o)",
                    out.display()
                ))
            } else {
                Ok(())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if out.is_file() => Err(format!("{}: exists and is a file ({e})", out.display())),
        Err(e) => Err(format!("{}: {e}", out.display())),
    }
}

/// Checks a `.zip` target before any request is made: an existing one is kept unless `force`.
pub fn check_file_target(out: &Path, force: bool) -> Result<(), String> {
    match std::fs::symlink_metadata(out) {
        Ok(m) if m.is_dir() => Err(format!("{}: is a directory", out.display())),
        Ok(_) if !force => Err(format!(
            "{}: already exists (give --force to replace it)",
            out.display()
        )),
        _ => Ok(()),
    }
}

pub fn write_dir(out: &Path, files: &BTreeMap<String, Vec<u8>>) -> Result<(), String> {
    if let Some(rel) = files.keys().find(|rel| !is_safe_path(rel)) {
        return Err(format!(
            "refusing to write `{rel}`: not a plain relative path"
        ));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let tree = TempTree::create_beside(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for (rel, bytes) in files {
        let mut path = tree.path.clone();
        path.extend(rel.split('/'));
        write_new(&path, bytes).map_err(|e| format!("{}: {e}", out.join(rel).display()))?;
    }
    tree.put_at(out)
}

/// Creates `path` (and its missing directories, inside our own tree) as a new file.
fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// The directory the tree is built in, removed (with what it holds) on drop unless put in place.
struct TempTree {
    path: PathBuf,
    /// The mode `mkdir` gave it (umask applied), restored once the tree is complete.
    mode: std::fs::Permissions,
    armed: bool,
}

impl TempTree {
    fn create_beside(out: &Path) -> io::Result<Self> {
        let name = out
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a directory name"))?
            .to_string_lossy();
        let stem: String = name.chars().take(64).collect();
        let pid = std::process::id();
        for n in 0..100u32 {
            let path = out.with_file_name(format!(".{stem}.{pid}.{n}.lbplan-tmp"));
            match std::fs::create_dir(&path) {
                Ok(()) => return Self::close_to_others(path),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::from(io::ErrorKind::AlreadyExists))
    }

    /// Only we may add entries while the tree fills; anything that got in before is a refusal.
    fn close_to_others(path: PathBuf) -> io::Result<Self> {
        let mut tree = Self {
            mode: std::fs::metadata(&path)?.permissions(),
            path,
            armed: true,
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tree.path, std::fs::Permissions::from_mode(0o700))?;
        }
        if std::fs::read_dir(&tree.path)?.next().is_some() {
            tree.armed = false;
            return Err(io::Error::other(format!(
                "{}: something appeared in our new directory; nothing was written",
                tree.path.display()
            )));
        }
        Ok(tree)
    }

    fn put_at(mut self, out: &Path) -> Result<(), String> {
        std::fs::set_permissions(&self.path, self.mode.clone())
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        std::fs::rename(&self.path, out).map_err(|e| match std::fs::symlink_metadata(out) {
            Ok(m) if m.file_type().is_symlink() => format!(
                "{}: is a symbolic link (it appeared during the run; nothing was written)",
                out.display()
            ),
            Ok(m) if m.is_dir() => format!(
                "{}: the directory is not empty (it was filled during the run; nothing was written)",
                out.display()
            ),
            Ok(_) => format!("{}: exists and is not a directory", out.display()),
            Err(_) => format!("{}: {e}", out.display()),
        })?;
        self.armed = false;
        Ok(())
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        if self.armed {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

pub fn zip_bytes(files: &BTreeMap<String, Vec<u8>>) -> Result<Vec<u8>, String> {
    use zip::write::SimpleFileOptions;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(false);
    for (rel, bytes) in files {
        if !is_safe_path(rel) {
            return Err(format!(
                "refusing to write `{rel}`: not a plain relative path"
            ));
        }
        w.start_file(rel.as_str(), opts)
            .map_err(|e| format!("zip entry {rel}: {e}"))?;
        w.write_all(bytes)
            .map_err(|e| format!("zip entry {rel}: {e}"))?;
    }
    let cursor = w.finish().map_err(|e| format!("zip: {e}"))?;
    Ok(cursor.into_inner())
}

/// Writes the `.zip` whole or not at all; an existing file (or link) at `out` is refused unless
/// `force`, and then replaced itself, never written through.
pub fn write_file(out: &Path, bytes: &[u8], force: bool) -> Result<(), String> {
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let existing = if force {
        Existing::ReplaceEntry
    } else {
        Existing::Refuse
    };
    atomic_write::write_file(out, bytes, existing).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_paths() {
        assert!(is_safe_path("loadbalance/brokers/10.0.0.1:8080"));
        assert!(!is_safe_path("../x"));
        assert!(!is_safe_path("/etc/passwd"));
        assert!(!is_safe_path("a//b"));
        assert!(!is_safe_path("a/./b"));
    }
}
