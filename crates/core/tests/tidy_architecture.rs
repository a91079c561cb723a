//! ARCHITECTURE.md's code map stays true: every Rust module of the workspace (and every script and
//! fuzz target) is named there, and every file or directory the map names exists. A module that is
//! not on the map is one a newcomer cannot find; an entry that no longer exists sends them nowhere.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn architecture_md() -> String {
    let path = repo_root().join("ARCHITECTURE.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every `backticked` span of the text.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The words of a code span: split on everything that cannot be part of a module or file name.
fn words(span: &str) -> impl Iterator<Item = &str> {
    span.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
}

/// Every file under `dir` (recursively) whose name ends with `suffix`, as paths relative to the repo.
fn files_under(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, suffix, out);
        } else if path.to_string_lossy().ends_with(suffix) {
            out.push(path);
        }
    }
}

/// The name a module goes by: the file stem, or the directory's name for `mod.rs`.
fn module_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    match stem {
        "lib" | "main" => None,
        "mod" => Some(path.parent()?.file_name()?.to_str()?.to_owned()),
        _ => Some(stem.to_owned()),
    }
}

#[test]
fn every_module_script_and_fuzz_target_is_on_the_map() {
    let md = architecture_md();
    let named: BTreeSet<&str> = code_spans(&md).into_iter().flat_map(words).collect();
    let root = repo_root();
    let mut sources = Vec::new();
    for dir in [
        "crates/core/src",
        "crates/cli/src",
        "crates/wasm/src",
        "crates/worker/src",
        "web/src",
    ] {
        files_under(&root.join(dir), ".rs", &mut sources);
    }
    files_under(&root.join("fuzz/fuzz_targets"), ".rs", &mut sources);
    let mut scripts = Vec::new();
    files_under(&root.join("scripts"), ".sh", &mut scripts);

    let mut missing: Vec<String> = Vec::new();
    for path in sources.iter().chain(&scripts) {
        let name = if path.extension().is_some_and(|e| e == "sh") {
            path.file_name()
                .and_then(|n| n.to_str())
                .map(|n| n.trim_end_matches(".sh").to_owned())
        } else {
            module_name(path)
        };
        if let Some(name) = name
            && !named.contains(name.as_str())
        {
            let shown = path.strip_prefix(&root).unwrap_or(path);
            missing.push(format!("{} (as `{name}`)", shown.display()));
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's code map does not name {} module(s); add each to its crate's table:\n  {}",
        missing.len(),
        missing.join("\n  ")
    );
}

#[test]
fn every_path_on_the_map_exists() {
    let md = architecture_md();
    let map = md
        .split("## Code map")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Code map` section");
    let root = repo_root();
    let mut all = Vec::new();
    for dir in [
        "crates",
        "web",
        "static",
        "scripts",
        "tests",
        "docs",
        "fuzz",
        "scenarios",
        ".ci",
    ] {
        files_under(&root.join(dir), "", &mut all);
    }
    for top in std::fs::read_dir(&root).expect("repo root").flatten() {
        all.push(top.path());
    }
    let known: Vec<String> = all
        .iter()
        .filter_map(|p| p.strip_prefix(&root).ok())
        .map(|p| format!("/{}", p.display()))
        .collect();
    let exists = |entry: &str| {
        let entry = entry.trim_start_matches("./");
        if let Some(dir) = entry.strip_suffix('/') {
            let want = format!("/{dir}/");
            known.iter().any(|k| k.contains(&want))
        } else {
            let want = format!("/{entry}");
            known.iter().any(|k| k.ends_with(&want))
        }
    };
    let looks_like_path = |s: &str| {
        !s.contains(' ')
            && !s.contains('*')
            && !s.starts_with("--")
            // Build outputs: named on the map, absent from a clean clone.
            && !["dist/", "target/", "node_modules/", "test-artifacts/"].iter().any(|p| s.starts_with(p))
            && (s.ends_with('/')
                || [".rs", ".sh", ".js", ".md", ".html", ".json", ".toml", ".css", ".svg"]
                    .iter()
                    .any(|x| s.ends_with(x)))
    };
    let mut dangling: Vec<&str> = code_spans(map)
        .into_iter()
        .filter(|s| looks_like_path(s) && !exists(s))
        .collect();
    dangling.sort_unstable();
    dangling.dedup();
    assert!(
        dangling.is_empty(),
        "ARCHITECTURE.md's code map names paths that do not exist: {dangling:?}"
    );
}
