//! Writing the collected files: a directory tree, or a `.zip` of the same tree (deflate, fixed
//! timestamps). Paths were built from checked names; they are checked again here so that nothing
//! can land outside the output.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Whether a layout path is relative, `/`-separated, without empty, `.` or `..` segments.
pub fn is_safe_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && p.split('/')
            .all(|s| !s.is_empty() && s != "." && s != ".." && !s.contains(['\\', '\0']))
}

/// Checks the output location before any request is made.
pub fn check_dir_target(out: &Path) -> Result<(), String> {
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

pub fn write_dir(out: &Path, files: &BTreeMap<String, Vec<u8>>) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for (rel, bytes) in files {
        if !is_safe_path(rel) {
            return Err(format!(
                "refusing to write `{rel}`: not a plain relative path"
            ));
        }
        let mut path = PathBuf::from(out);
        path.extend(rel.split('/'));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
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

pub fn write_file(out: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(out, bytes).map_err(|e| format!("{}: {e}", out.display()))
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
