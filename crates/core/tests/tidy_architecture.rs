//! ARCHITECTURE.md's code map stays true: every Rust module of the workspace (and every script and
//! fuzz target) is named there, and every file or directory the map names exists. A module that is
//! not on the map is one a newcomer cannot find; an entry that no longer exists sends them nowhere.

use std::collections::{BTreeMap, BTreeSet};
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
        "deploy",
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

// ---- Layers and circles of the core ----------------------------------------------------------

/// Which top-level module of `crates/core/src` may use which (the same table as ARCHITECTURE.md's
/// "Layers"). The Pulsar ports never use `leader`, `plan` or anything above them; `leader` never uses
/// `plan`; `act` reads only the plan document (the uses still crossing: [`LAYER_EXCEPTIONS`]).
const LAYERS: &[(&str, &[&str])] = &[
    // Basics: the data model, names, configuration and small shared tools.
    ("units", &["model"]),
    ("model", &["units"]),
    ("naming", &["model"]),
    ("config", &["model", "release", "units"]),
    // Pulsar's releases and what each one's load balancing does (the table the code reads flags from).
    ("release", &["model"]),
    ("isolation", &["model"]),
    ("rng", &[]),
    ("reason", &[]),
    ("text", &[]),
    ("calendar", &[]),
    ("typed_json", &[]),
    // Pulsar's algorithms, ported, and what reads Pulsar's data.
    (
        "modular",
        &[
            "config",
            "isolation",
            "model",
            "naming",
            "reason",
            "rng",
            "units",
        ],
    ),
    (
        "extensible",
        &[
            "config",
            "isolation",
            "model",
            "modular",
            "naming",
            "reason",
            "rng",
            "units",
        ],
    ),
    ("split", &["config", "model", "naming", "units"]),
    (
        "replay",
        &[
            "config",
            "extensible",
            "model",
            "modular",
            "naming",
            "rng",
            "split",
            "typed_json",
        ],
    ),
    (
        "import",
        &["config", "model", "naming", "typed_json", "units"],
    ),
    ("synthetic", &["config", "model", "naming", "rng"]),
    (
        "load",
        &["config", "model", "naming", "text", "typed_json", "units"],
    ),
    // The leader: its view, kept state and cycle (of either load manager).
    (
        "leader",
        &[
            "config",
            "extensible",
            "isolation",
            "load",
            "model",
            "modular",
            "naming",
            "reason",
            "rng",
            "split",
            "units",
        ],
    ),
    // Plans, and acting on them.
    (
        "plan",
        &[
            "calendar",
            "config",
            "extensible",
            "isolation",
            "leader",
            "load",
            "model",
            "modular",
            "naming",
            "reason",
            "release",
            "rng",
            "split",
            "text",
            "units",
        ],
    ),
    (
        "act",
        &[
            "calendar",
            "config",
            "naming",
            "plan",
            "reason",
            "release",
            "typed_json",
        ],
    ),
    // Features built on plans and the leader.
    (
        "rebalance",
        &[
            "config", "leader", "load", "model", "modular", "naming", "plan", "reason", "units",
        ],
    ),
    (
        "simulate",
        &[
            "config",
            "isolation",
            "leader",
            "load",
            "model",
            "modular",
            "naming",
            "plan",
            "release",
            "rng",
            "split",
            "synthetic",
            "text",
            "typed_json",
            "units",
        ],
    ),
    (
        "history",
        &[
            "calendar", "config", "import", "leader", "load", "model", "modular", "naming", "plan",
            "release", "text",
        ],
    ),
    // The watch: the next cycle's plan, the history kept live (with the History view's
    // timeline), the metrics text.
    ("watch", &["config", "history", "model", "plan", "view"]),
    // The upgrade preview: a release's decisions against another's, then simulated.
    (
        "upgrade",
        &[
            "config",
            "model",
            "modular",
            "plan",
            "release",
            "simulate",
            "synthetic",
        ],
    ),
    (
        "view",
        &[
            "config",
            "history",
            "isolation",
            "load",
            "model",
            "modular",
            "naming",
            "plan",
            "release",
            "simulate",
            "text",
            "units",
        ],
    ),
];

/// `act` reads the plan document only: of `plan/`, these files.
const ACT_READS_OF_PLAN: &[&str] = &[
    "plan",
    "plan/explain_level",
    "plan/model",
    "plan/verdict",
    "plan/verdict_types",
];

/// Uses that cross the table today, each with why it is left: (file, file it uses).
const LAYER_EXCEPTIONS: &[(&str, &str)] = &[];

/// Circles of files inside one module that remain (each sorted): a new circle fails, and one that is
/// gone must be struck from this list.
const KNOWN_CIRCLES: &[&[&str]] = &[];

/// A Rust source with comments, string and character literals blanked out, cut at its tests.
fn code_of(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    let at = |i: usize| b.get(i).copied().unwrap_or('\0');
    while i < b.len() {
        let c = at(i);
        if c == '/' && at(i + 1) == '/' {
            while i < b.len() && at(i) != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < b.len() {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r'
            && (at(i + 1) == '"' || at(i + 1) == '#')
            && !(i > 0 && (at(i - 1).is_alphanumeric() || at(i - 1) == '_'))
        {
            let mut j = i + 1;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            if at(j) != '"' {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if at(j) == '"' && (1..=hashes).all(|k| at(j + k) == '#') {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && at(i) != '"' {
                if at(i) == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            if at(i + 1) == '\\' {
                i += 2;
                while i < b.len() && at(i) != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else if at(i + 2) == '\'' {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    match out.find("#[cfg(test)]") {
        Some(cut) => out[..cut].to_owned(),
        None => out,
    }
}

/// Identifiers, `::` and single punctuation characters.
fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(b[start..i].iter().collect());
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push("::".to_owned());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// The paths a `use` tree names, from `toks[*i]` up to its end (`;`, `,` or `}` left unread).
fn use_tree(toks: &[String], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    loop {
        let Some(t) = toks.get(*i) else { return };
        match t.as_str() {
            "{" => {
                *i += 1;
                loop {
                    match toks.get(*i).map(String::as_str) {
                        None => return,
                        Some("}") => {
                            *i += 1;
                            return;
                        }
                        Some(",") => *i += 1,
                        Some(_) => use_tree(toks, i, &path, out),
                    }
                }
            }
            "::" => *i += 1,
            "as" => {
                *i += 2;
                out.push(path);
                return;
            }
            ";" | "," | "}" => {
                out.push(path);
                return;
            }
            "*" => {
                *i += 1;
                out.push(path);
                return;
            }
            _ => {
                path.push(t.clone());
                *i += 1;
            }
        }
    }
}

struct CoreFiles {
    /// Module path (`["plan", "model"]`) → file.
    files: BTreeMap<Vec<String>, PathBuf>,
    /// (module, name) → the path a `pub use` of that module hands the name on from.
    reexports: BTreeMap<(Vec<String>, String), Vec<String>>,
}

impl CoreFiles {
    fn read(src: &Path) -> (Self, BTreeMap<Vec<String>, String>) {
        let mut paths = Vec::new();
        files_under(src, ".rs", &mut paths);
        let mut files = BTreeMap::new();
        let mut codes = BTreeMap::new();
        for path in paths {
            let rel = path.strip_prefix(src).expect("under src");
            let mut module: Vec<String> = rel
                .with_extension("")
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod" || m == "lib") {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).expect("source");
            codes.insert(module.clone(), code_of(&text));
            files.insert(module, path);
        }
        let mut reexports = BTreeMap::new();
        for (module, code) in &codes {
            let toks = tokens(code);
            let mut i = 0;
            while i < toks.len() {
                if let Some(after) = pub_use_at(&toks, i) {
                    let mut j = after;
                    let mut named = Vec::new();
                    use_tree(&toks, &mut j, &[], &mut named);
                    for p in named {
                        if let Some(last) = p.last() {
                            reexports.insert((module.clone(), last.clone()), p.clone());
                        }
                    }
                    i = j;
                } else {
                    i += 1;
                }
            }
        }
        (Self { files, reexports }, codes)
    }

    /// The file a path used from `module` lands in, following `pub use` hand-ons.
    fn resolve(&self, module: &[String], path: &[String], depth: u32) -> Option<Vec<String>> {
        let (mut base, rest): (Vec<String>, &[String]) = match path.first()?.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "super" => {
                let mut base = module.to_vec();
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                (base, rest)
            }
            "self" => (module.to_vec(), &path[1..]),
            first => {
                let mut child = module.to_vec();
                child.push(first.to_owned());
                if !self.files.contains_key(&child) {
                    return None;
                }
                (module.to_vec(), path)
            }
        };
        base.extend(rest.iter().cloned());
        for k in (0..=base.len()).rev() {
            let head = base[..k].to_vec();
            if self.files.contains_key(&head) {
                if let Some(name) = base.get(k)
                    && depth < 5
                    && let Some(target) = self.reexports.get(&(head.clone(), name.clone()))
                    && let Some(found) = self.resolve(&head, target, depth + 1)
                {
                    return Some(found);
                }
                return Some(head);
            }
        }
        None
    }

    /// Each file's uses of other files of the crate (`pub use` hand-ons are not uses).
    fn edges(
        &self,
        codes: &BTreeMap<Vec<String>, String>,
    ) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (module, code) in codes {
            let toks = tokens(code);
            let kids: BTreeSet<&str> = self
                .files
                .keys()
                .filter(|k| k.len() == module.len() + 1 && k.starts_with(module))
                .filter_map(|k| k.last().map(String::as_str))
                .collect();
            let mut used = Vec::new();
            let mut i = 0;
            while i < toks.len() {
                if let Some(after) = pub_use_at(&toks, i) {
                    let mut j = after;
                    use_tree(&toks, &mut j, &[], &mut Vec::new());
                    i = j;
                } else if toks[i] == "use" {
                    let mut j = i + 1;
                    use_tree(&toks, &mut j, &[], &mut used);
                    i = j;
                } else if (toks[i] == "crate"
                    || toks[i] == "super"
                    || kids.contains(toks[i].as_str()))
                    && toks.get(i + 1).is_some_and(|t| t == "::")
                    && (i == 0 || toks[i - 1] != "::")
                {
                    let mut path = vec![toks[i].clone()];
                    let mut j = i + 1;
                    while toks.get(j).is_some_and(|t| t == "::")
                        && toks
                            .get(j + 1)
                            .is_some_and(|t| t.chars().all(|c| c.is_alphanumeric() || c == '_'))
                    {
                        path.push(toks[j + 1].clone());
                        j += 2;
                    }
                    used.push(path);
                    i = j;
                } else {
                    i += 1;
                }
            }
            let entry = edges.entry(module.clone()).or_default();
            for path in used {
                if let Some(target) = self.resolve(module, &path, 0)
                    && &target != module
                {
                    entry.insert(target);
                }
            }
        }
        edges
    }
}

/// If a `pub use` (or `pub(…) use`) starts at `toks[i]`, the index after its `use`.
fn pub_use_at(toks: &[String], i: usize) -> Option<usize> {
    if toks.get(i)? != "pub" {
        return None;
    }
    let mut j = i + 1;
    if toks.get(j)? == "(" {
        while toks.get(j)? != ")" {
            j += 1;
        }
        j += 1;
    }
    (toks.get(j)? == "use").then_some(j + 1)
}

fn core_edges() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let (files, codes) = CoreFiles::read(&repo_root().join("crates/core/src"));
    files.edges(&codes)
}

fn shown(module: &[String]) -> String {
    module.join("/")
}

#[test]
fn core_modules_use_only_the_layers_below_them() {
    let edges = core_edges();
    let table: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut wrong = Vec::new();
    let mut tops = BTreeSet::new();
    for (from, targets) in &edges {
        let Some(top) = from.first() else { continue };
        tops.insert(top.clone());
        let Some(allowed) = table.get(top.as_str()) else {
            wrong.push(format!("{top}: not in the layer table"));
            continue;
        };
        for to in targets {
            let Some(to_top) = to.first() else { continue };
            if to_top == top {
                continue;
            }
            let (a, b) = (shown(from), shown(to));
            if LAYER_EXCEPTIONS.contains(&(a.as_str(), b.as_str())) {
                continue;
            }
            let ok = allowed.contains(&to_top.as_str())
                && (top != "act" || to_top != "plan" || ACT_READS_OF_PLAN.contains(&b.as_str()));
            if !ok {
                wrong.push(format!("{a} uses {b}"));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "uses that cross the layers (crates/core/tests/tidy_architecture.rs: LAYERS):\n  {}",
        wrong.join("\n  ")
    );
    // The table names no module that is gone.
    let stale: Vec<&str> = table
        .keys()
        .copied()
        .filter(|m| !tops.contains(*m))
        .collect();
    assert!(
        stale.is_empty(),
        "the layer table names modules that are gone: {stale:?}"
    );
    // The listed exceptions still exist (an exception removed from the code leaves the list).
    for (a, b) in LAYER_EXCEPTIONS {
        let found = edges
            .iter()
            .any(|(from, to)| shown(from) == *a && to.iter().any(|t| shown(t) == *b));
        assert!(
            found,
            "layer exception {a} -> {b} no longer happens: strike it"
        );
    }
}

/// Circles of files (strongly connected groups of two or more) among the uses inside each top-level module.
fn circles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> BTreeSet<Vec<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<Vec<String>, usize>,
        low: BTreeMap<Vec<String>, usize>,
        stack: Vec<Vec<String>>,
        next: usize,
        found: BTreeSet<Vec<String>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: &Vec<String>) {
            self.index.insert(v.clone(), self.next);
            self.low.insert(v.clone(), self.next);
            self.next += 1;
            self.stack.push(v.clone());
            let empty = BTreeSet::new();
            let targets = self.edges.get(v).unwrap_or(&empty).clone();
            for w in targets.iter().filter(|w| w.first() == v.first()) {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    let done = &w == v;
                    group.push(shown(&w));
                    if done {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.found.insert(group);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        next: 0,
        found: BTreeSet::new(),
    };
    for v in edges.keys() {
        if !v.is_empty() && !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.found
}

#[test]
fn no_new_circle_of_files_inside_a_core_module() {
    let found = circles(&core_edges());
    let known: BTreeSet<Vec<String>> = KNOWN_CIRCLES
        .iter()
        .map(|c| c.iter().map(|s| (*s).to_owned()).collect())
        .collect();
    let new: Vec<String> = found.difference(&known).map(|c| c.join(" <-> ")).collect();
    let gone: Vec<String> = known.difference(&found).map(|c| c.join(" <-> ")).collect();
    assert!(
        new.is_empty(),
        "files that use each other in a circle (move the shared types down to a leaf file both import):\n  {}",
        new.join("\n  ")
    );
    assert!(
        gone.is_empty(),
        "circles no longer there: strike them from KNOWN_CIRCLES:\n  {}",
        gone.join("\n  ")
    );
}

#[test]
fn the_dependency_reader_sees_uses_hand_ons_and_tests() {
    // Real shapes from the core: a grouped `use`, a path in code, a `pub use` hand-on, a test module.
    let code = code_of(
        "use super::{a::B, c};\n// use crate::gone;\nfn f() { let s = \"crate::x\"; crate::plan::make(); }\npub use d::E;\n#[cfg(test)]\nmod tests { use crate::t; }",
    );
    let toks = tokens(&code);
    let mut used = Vec::new();
    let mut i = 1;
    use_tree(&toks, &mut i, &[], &mut used);
    assert_eq!(used, vec![vec!["super", "a", "B"], vec!["super", "c"]]);
    assert!(!code.contains("gone") && !code.contains("crate::x") && !code.contains("crate::t"));
    assert!(code.contains("crate::plan::make"));
    assert_eq!(
        pub_use_at(&toks, toks.iter().position(|t| t == "pub").unwrap()),
        toks.iter().position(|t| t == "d")
    );
    let mut edges = BTreeMap::new();
    let m = |s: &str| s.split('/').map(str::to_owned).collect::<Vec<_>>();
    edges.insert(m("plan/a"), BTreeSet::from([m("plan/b"), m("model")]));
    edges.insert(m("plan/b"), BTreeSet::from([m("plan/a")]));
    edges.insert(m("model"), BTreeSet::from([m("plan/a")]));
    assert_eq!(
        circles(&edges),
        BTreeSet::from([vec!["plan/a".to_owned(), "plan/b".to_owned()]])
    );
}
