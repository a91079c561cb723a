//! `lbplan watch --serve DIR`: the built dashboard (`trunk build`'s `dist/`) served from the
//! watch's own listener, same origin as `/watch/latest.json`, so the page loads the watched
//! cluster's snapshot without anything crossing origins. Only regular files under DIR are served:
//! a path with an empty, `.`, `..` or hidden segment is refused, the file's canonical path must
//! stay under DIR's (a link out of it is not followed), and a file over [`MAX_FILE_BYTES`] is
//! refused.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The dashboard's largest file (its wasm) is a few MiB.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The content type of a dashboard file, by its extension.
fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The file at URL path `path` (already without its query) under `root` (canonical), with its
/// content type; `None` when it is not one to serve.
pub fn read(root: &Path, path: &str) -> Option<(&'static str, Vec<u8>)> {
    let rel = path.strip_prefix('/')?;
    let rel = if rel.is_empty() { "index.html" } else { rel };
    let mut full = PathBuf::from(root);
    for seg in rel.split('/') {
        let ok = !seg.is_empty()
            && !seg.starts_with('.')
            && seg
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
        if !ok {
            return None;
        }
        full.push(seg);
    }
    let canonical = full.canonicalize().ok()?;
    if !canonical.starts_with(root) {
        return None;
    }
    let file = std::fs::File::open(&canonical).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(MAX_FILE_BYTES).read_to_end(&mut bytes).ok()?;
    Some((content_type(&canonical), bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_under_the_root_are_served() {
        let base = std::env::temp_dir().join(format!("lbplan-static-{}", std::process::id()));
        let root = base.join("dist");
        std::fs::create_dir_all(root.join("assets")).unwrap();
        std::fs::write(root.join("index.html"), "<html>page</html>").unwrap();
        std::fs::write(root.join("assets/app.wasm"), b"\0asm").unwrap();
        std::fs::write(base.join("secret.txt"), "outside").unwrap();
        std::os::unix::fs::symlink(base.join("secret.txt"), root.join("link.txt")).unwrap();
        let root = root.canonicalize().unwrap();
        let (t, b) = read(&root, "/").unwrap();
        assert_eq!(
            (t, b.as_slice()),
            ("text/html; charset=utf-8", &b"<html>page</html>"[..])
        );
        assert_eq!(
            read(&root, "/assets/app.wasm").unwrap().0,
            "application/wasm"
        );
        for refused in [
            "/../secret.txt",
            "/assets/../../secret.txt",
            "/link.txt",
            "/.hidden",
            "/assets",
            "//index.html",
            "/missing.js",
            "index.html",
            "/a%2e%2e/x",
        ] {
            assert!(read(&root, refused).is_none(), "{refused}");
        }
        std::fs::remove_dir_all(&base).ok();
    }
}
