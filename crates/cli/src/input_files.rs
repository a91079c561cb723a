//! Reading import inputs from the file system, for every command that takes them (`import`, `plan`):
//! files as given, directories walked in name order, archives passed as bytes to the importer. Each
//! file found in a directory is named *relative to that directory* for recognition (so that a dump
//! under `/home/admin/…` is not taken for the metadata store's `admin/` node) and by its full path in
//! messages. Warnings go to stderr, one line each; errors name the file and the JSON path.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use lbplan_core::import::{
    ImportInput, ImportOptions, ImportWarning, Imported, Origin, import_with,
};

use crate::exit::CliError;

/// One file read: how it is recognised (`name`), how messages name it (`display`), its bytes.
struct Entry {
    name: String,
    display: String,
    bytes: Vec<u8>,
    origin: Origin,
}

/// The files of one import, read under the import's caps (checked before reading, so a huge file is
/// refused without being read).
pub struct InputFiles {
    opts: ImportOptions,
    entries: Vec<Entry>,
    total_bytes: u64,
}

impl InputFiles {
    pub fn new(opts: ImportOptions) -> Self {
        Self {
            opts,
            entries: Vec::new(),
            total_bytes: 0,
        }
    }

    /// Adds a file, or every file of a directory.
    pub fn add(&mut self, path: &Path) -> Result<(), CliError> {
        if path.is_dir() {
            let prefix = tree_prefix(path);
            self.read_dir(path, &prefix)
        } else {
            let shown = path.to_string_lossy().into_owned();
            self.read_file(path, shown.clone(), shown, Origin::Given)
        }
    }

    fn read_file(
        &mut self,
        path: &Path,
        name: String,
        display: String,
        origin: Origin,
    ) -> Result<(), CliError> {
        let bad = |e: std::io::Error| CliError::BadInput(format!("{display}: {e}"));
        let len = std::fs::metadata(path).map_err(bad)?.len();
        if len > self.opts.max_file_bytes {
            return Err(CliError::BadInput(format!(
                "{display}: is {len} bytes, over the cap of {} bytes per file",
                self.opts.max_file_bytes
            )));
        }
        self.total_bytes = self.total_bytes.saturating_add(len);
        if self.total_bytes > self.opts.max_total_bytes {
            return Err(CliError::BadInput(format!(
                "more than {} bytes in the import (cap on the total size)",
                self.opts.max_total_bytes
            )));
        }
        if self.entries.len() >= self.opts.max_entries {
            return Err(CliError::BadInput(format!(
                "more than {} files in the import (cap on the number of entries)",
                self.opts.max_entries
            )));
        }
        let bytes = std::fs::read(path).map_err(bad)?;
        self.entries.push(Entry {
            name,
            display,
            bytes,
            origin,
        });
        Ok(())
    }

    /// Walks a directory depth-first in name order; hidden entries and directory symlinks (which
    /// could loop) are skipped. `rel` is the directory's name for recognition (`a/b/`, or empty).
    fn read_dir(&mut self, dir: &Path, rel: &str) -> Result<(), CliError> {
        let bad = |e: std::io::Error| CliError::BadInput(format!("{}: {e}", dir.display()));
        let mut children: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
            .map_err(bad)?
            .map(|e| e.map(|e| (e.file_name().to_string_lossy().into_owned(), e.path())))
            .collect::<Result<_, _>>()
            .map_err(bad)?;
        children.sort();
        for (file_name, child) in children {
            if file_name.starts_with('.') {
                continue;
            }
            let name = format!("{rel}{file_name}");
            let meta = std::fs::symlink_metadata(&child).map_err(bad)?;
            if meta.is_dir() {
                self.read_dir(&child, &format!("{name}/"))?;
            } else if meta.is_file()
                || (meta.file_type().is_symlink()
                    && std::fs::metadata(&child).is_ok_and(|m| m.is_file()))
            {
                let display = child.to_string_lossy().into_owned();
                self.read_file(&child, name, display, Origin::Tree)?;
            }
        }
        Ok(())
    }

    /// The importer's view of the files (borrowed).
    pub fn inputs(&self) -> Vec<ImportInput<'_>> {
        self.entries
            .iter()
            .map(|e| ImportInput {
                name: Cow::Borrowed(e.name.as_str()),
                bytes: Cow::Borrowed(e.bytes.as_slice()),
                origin: e.origin,
                display: Some(Cow::Borrowed(e.display.as_str())),
            })
            .collect()
    }

    /// Imports the files; an import error is bad input (exit 2), naming the file and JSON path.
    pub fn import(&self) -> Result<Imported, CliError> {
        import_with(&self.inputs(), &self.opts).map_err(|e| CliError::BadInput(e.to_string()))
    }
}

/// The recognition prefix of a directory the user gave: empty, except when the directory is itself
/// a node of the metadata store (`…/loadbalance` or `…/admin` holding `brokers/`, `policies/`, …),
/// whose name then starts every path. A directory called `admin` that holds a whole dump (it has a
/// `loadbalance` or `admin` child) is a plain folder.
fn tree_prefix(dir: &Path) -> String {
    let Some(own) = dir.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return String::new();
    };
    let is_node = own == "loadbalance" || own == "admin";
    let holds_dump = dir.join("loadbalance").is_dir() || dir.join("admin").is_dir();
    if is_node && !holds_dump {
        format!("{own}/")
    } else {
        String::new()
    }
}

/// Prints warnings to stderr, one line each: `warning: file: $.path: message`, escaped (a warning
/// quotes names from the input).
pub fn print_warnings(warnings: &[ImportWarning]) {
    for w in warnings {
        crate::output::message("warning: ", &w.to_string());
    }
}

/// Reads and imports `paths` with the default caps, printing the warnings unless `quiet`.
pub fn import_paths(paths: &[PathBuf], quiet: bool) -> Result<Imported, CliError> {
    if paths.is_empty() {
        return Err(CliError::BadInput(
            "nothing to import: give files, directories or archives".to_string(),
        ));
    }
    let mut files = InputFiles::new(ImportOptions::default());
    for p in paths {
        files.add(p)?;
    }
    let imported = files.import()?;
    if !quiet {
        print_warnings(&imported.warnings);
    }
    Ok(imported)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_nodes_keep_their_name_plain_folders_do_not() {
        let base = std::env::temp_dir().join(format!("lbplan-input-files-{}", std::process::id()));
        let lb = base.join("x/loadbalance");
        let admin_dump = base.join("admin");
        std::fs::create_dir_all(lb.join("brokers")).unwrap();
        std::fs::create_dir_all(admin_dump.join("loadbalance")).unwrap();
        assert_eq!(tree_prefix(&lb), "loadbalance/");
        assert_eq!(tree_prefix(&admin_dump), "");
        assert_eq!(tree_prefix(&base.join("x")), "");
        std::fs::remove_dir_all(&base).ok();
    }
}
