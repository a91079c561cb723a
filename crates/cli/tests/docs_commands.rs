//! The README's and the docs' `lbplan` command lines run, so they cannot rot: every
//! line of a fenced block that starts with `lbplan ` (with its `\` continuations) runs in a fresh
//! directory per document, in the document's order (`--record-series series/` before
//! `history series/`), on the demo cluster: the operator's `snapshot.json` is
//! `static/demo-snapshot.json`, optional `[…]` groups are left out, simulations run 3 cycles, and
//! `lbplan` is the built binary. The lines that need a live cluster or stand for a synopsis are skipped by name below,
//! and each skip must still match a line (a skip list cannot rot either).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Lines not run: (the start of the command line, why).
const SKIPPED: &[(&str, &str)] = &[
    ("lbplan collect ", "reads a live cluster's admin API"),
    ("lbplan apply ", "calls a live cluster's admin API"),
    ("lbplan history --prometheus ", "queries a live Prometheus"),
    (
        "lbplan watch ",
        "watches a live cluster's admin API until stopped (tests/watch_cli.rs runs it against a fake one)",
    ),
    (
        "lbplan verify ",
        "compares a plan with the snapshot collected from a live cluster after it was applied",
    ),
    (
        "lbplan import snap",
        "reads the directory `lbplan collect` wrote from a live cluster",
    ),
    (
        "lbplan plan snapshot.json --op 'unload-bundle=public/default/",
        "names the operator's own bundles (public/default), which the demo cluster does not have",
    ),
    (
        "lbplan simulate [SNAPSHOT] --cycles N",
        "a synopsis: N and CONFIG stand for values",
    ),
    (
        "lbplan import FILE_OR_DIR_OR_ARCHIVE",
        "a synopsis: FILE_OR_DIR_OR_ARCHIVE stands for inputs",
    ),
    (
        "lbplan history SERIES --leader-log",
        "a synopsis: SERIES and the log files stand for the operator's",
    ),
];

/// The documents whose commands run.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// The `lbplan …` lines of the fenced blocks of `text`, continuations joined.
fn commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced || !t.starts_with("lbplan ") {
            continue;
        }
        let mut cmd = strip_comment(t).to_string();
        while cmd.ends_with('\\') {
            cmd.pop();
            let next = lines.next().unwrap_or_default();
            cmd = format!("{} {}", cmd.trim_end(), strip_comment(next.trim()));
        }
        out.push(cmd.trim().to_string());
    }
    out
}

/// A line without its trailing `# comment` (a `#` after white space, outside quotes).
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '#') if prev.is_whitespace() => return line[..i].trim_end(),
            _ => {}
        }
        prev = c;
    }
    line
}

/// The command as run on the demo cluster: optional groups left out, the operator's snapshot and
/// the repository's files by absolute path.
fn runnable(cmd: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in cmd.chars() {
        match c {
            '[' if !out.ends_with('=') => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let root = root();
    let demo = root.join("static/demo-snapshot.json");
    let mut words: Vec<String> = out
        .split_whitespace()
        .map(|w| match w {
            "snapshot.json" | "static/demo-snapshot.json" => demo.display().to_string(),
            w if w.starts_with("tests/conformance/") => root.join(w).display().to_string(),
            w => w.to_string(),
        })
        .collect();
    // Simulations run `SIM_CYCLES` cycles: the documented 120 to 1,440 cycles of a 136-broker
    // scenario take minutes each in a debug build, and what rots is the command line (options,
    // scenario names, paths), which the short run reads the same way.
    if words.get(1).is_some_and(|w| w == "simulate") {
        match words.iter().position(|w| w == "--cycles") {
            Some(k) if k + 1 < words.len() => words[k + 1] = SIM_CYCLES.to_string(),
            _ => words.extend(["--cycles".to_string(), SIM_CYCLES.to_string()]),
        }
    }
    words.join(" ")
}

/// Cycles of a documented simulation as the test runs it (see [`runnable`]).
const SIM_CYCLES: u32 = 3;

#[test]
fn the_documented_commands_run() {
    let bin = env!("CARGO_BIN_EXE_lbplan");
    let mut skips_used = vec![false; SKIPPED.len()];
    let mut ran = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let dir = std::env::temp_dir().join(format!(
            "lbplan-docs-{}-{}",
            std::process::id(),
            doc.file_stem().unwrap().to_string_lossy()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for cmd in commands(&text) {
            if let Some(k) = SKIPPED.iter().position(|(start, _)| cmd.starts_with(start)) {
                skips_used[k] = true;
                continue;
            }
            let line = runnable(&cmd);
            let out = Command::new("bash")
                .current_dir(&dir)
                .arg("-c")
                .arg(format!(
                    "set -o pipefail; lbplan() {{ '{bin}' \"$@\"; }}; {line}"
                ))
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}: `{cmd}` (run as `{line}`) failed: {}",
                doc.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    for ((start, why), used) in SKIPPED.iter().zip(skips_used) {
        assert!(
            used,
            "the skip `{start}` ({why}) matches no documented command any more"
        );
    }
    // README and docs hold ~30 runnable lines; a parser that finds none must not pass.
    assert!(ran >= 25, "only {ran} documented commands found");
}

#[test]
fn extraction_reads_continuations_comments_and_options() {
    let doc = "text\n```bash\nlbplan plan snapshot.json \\\n  --op 'a#b'   # why\nnot lbplan\n```\nlbplan outside\n";
    assert_eq!(commands(doc), ["lbplan plan snapshot.json --op 'a#b'"]);
    let r = runnable("lbplan history series/ [--format json|csv]");
    assert_eq!(r, "lbplan history series/");
    assert_eq!(
        runnable("lbplan simulate --scenario pr-16059 --cycles 120 --record-series s/"),
        "lbplan simulate --scenario pr-16059 --cycles 3 --record-series s/"
    );
    assert_eq!(
        runnable("lbplan simulate --scenario pr-16059 --wide"),
        "lbplan simulate --scenario pr-16059 --wide --cycles 3"
    );
}
