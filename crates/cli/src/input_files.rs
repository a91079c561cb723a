//! Reading import inputs from the file system, for every command that takes them (`import`, `plan`):
//! files as given, directories walked in name order, archives passed as bytes to the importer. Each
//! file found in a directory is named *relative to that directory* for recognition (so that a dump
//! under `/home/admin/…` is not taken for the metadata store's `admin/` node) and by its full path in
//! messages. Warnings go to stderr, one line each; errors name the file and the JSON path.
//!
//! Only regular files are read, and `-` (standard input). A FIFO or a device named as a path is
//! refused: opening a FIFO waits for a writer and `/dev/zero` never ends, so files are opened
//! non-blocking and their type checked on the open handle (no check-then-open race). Every read
//! stops one byte past the cap, so a stream is never read further than that.

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use lbplan_core::import::{
    ImportInput, ImportOptions, ImportWarning, Imported, Origin, import_with,
};

use crate::exit::CliError;

/// The argument that means standard input.
pub const STDIN: &str = "-";

/// An input opened for reading: standard input, or a regular file and its size.
pub enum Source {
    Stdin,
    File { file: File, len: u64 },
}

impl Source {
    /// Opens `path` (`-` is standard input), refusing anything but a regular file.
    pub fn open(path: &Path, display: &str) -> Result<Self, CliError> {
        if path == Path::new(STDIN) {
            return Ok(Source::Stdin);
        }
        let bad = |e: std::io::Error| CliError::BadInput(format!("{display}: {e}"));
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // Opening a FIFO for reading blocks until a writer comes; non-blocking, it returns at
            // once and the type check below refuses it.
            options.custom_flags(libc::O_NONBLOCK);
        }
        let file = options.open(path).map_err(bad)?;
        let meta = file.metadata().map_err(bad)?;
        if meta.is_file() {
            return Ok(Source::File {
                file,
                len: meta.len(),
            });
        }
        Err(CliError::BadInput(format!(
            "{display}: is {}, not a regular file (to read a stream, pipe it to standard input and \
             name it `-`)",
            kind_of(&meta)
        )))
    }

    /// The size of a regular file, known before reading.
    pub fn len(&self) -> Option<u64> {
        match self {
            Source::Stdin => None,
            Source::File { len, .. } => Some(*len),
        }
    }

    /// Reads everything, or fails once more than `cap` bytes came (reading at most `cap + 1`).
    pub fn read_capped(self, cap: u64, display: &str) -> Result<Vec<u8>, CliError> {
        let bad = |e: std::io::Error| CliError::BadInput(format!("{display}: {e}"));
        let mut bytes = Vec::new();
        let limit = cap.saturating_add(1);
        match self {
            Source::Stdin => std::io::stdin().lock().take(limit).read_to_end(&mut bytes),
            Source::File { file, len } => {
                bytes.reserve(usize::try_from(len.min(cap)).unwrap_or(0));
                file.take(limit).read_to_end(&mut bytes)
            }
        }
        .map_err(bad)?;
        if bytes.len() as u64 > cap {
            return Err(CliError::BadInput(format!(
                "{display}: more than {cap} bytes, over the cap of {cap} bytes per file"
            )));
        }
        Ok(bytes)
    }
}

/// What a non-regular file is, for the message that refuses it.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// Reads one file (or `-`) of at most `cap` bytes, for the commands that read single files.
pub fn read_path(path: &Path, cap: u64) -> Result<Vec<u8>, CliError> {
    let display = shown(path);
    Source::open(path, &display)?.read_capped(cap, &display)
}

/// How messages name a path argument.
pub fn shown(path: &Path) -> String {
    if path == Path::new(STDIN) {
        "standard input".to_string()
    } else {
        path.to_string_lossy().into_owned()
    }
}

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
    stdin_read: bool,
}

impl InputFiles {
    pub fn new(opts: ImportOptions) -> Self {
        Self {
            opts,
            entries: Vec::new(),
            total_bytes: 0,
            stdin_read: false,
        }
    }

    /// Adds a file, every file of a directory, or standard input (`-`).
    pub fn add(&mut self, path: &Path) -> Result<(), CliError> {
        if path != Path::new(STDIN) && path.is_dir() {
            let prefix = tree_prefix(path);
            self.read_dir(path, &prefix)
        } else {
            let name = path.to_string_lossy().into_owned();
            self.read_file(path, name, shown(path), Origin::Given)
        }
    }

    fn read_file(
        &mut self,
        path: &Path,
        name: String,
        display: String,
        origin: Origin,
    ) -> Result<(), CliError> {
        if self.entries.len() >= self.opts.max_entries {
            return Err(CliError::BadInput(format!(
                "more than {} files in the import (cap on the number of entries)",
                self.opts.max_entries
            )));
        }
        let source = Source::open(path, &display)?;
        if path == Path::new(STDIN) {
            if self.stdin_read {
                return Err(CliError::BadInput(
                    "`-` (standard input) is named twice".to_string(),
                ));
            }
            self.stdin_read = true;
        }
        // A regular file's size is known before reading: a huge one is refused unread.
        if let Some(len) = source.len() {
            self.check_sizes(&display, len)?;
        }
        let bytes = source.read_capped(self.opts.max_file_bytes, &display)?;
        let len = bytes.len() as u64;
        self.check_sizes(&display, len)?;
        self.total_bytes = self.total_bytes.saturating_add(len);
        self.entries.push(Entry {
            name,
            display,
            bytes,
            origin,
        });
        Ok(())
    }

    /// The per-file and total caps for one more file of `len` bytes.
    fn check_sizes(&self, display: &str, len: u64) -> Result<(), CliError> {
        if len > self.opts.max_file_bytes {
            return Err(CliError::BadInput(format!(
                "{display}: is {len} bytes, over the cap of {} bytes per file",
                self.opts.max_file_bytes
            )));
        }
        if self.total_bytes.saturating_add(len) > self.opts.max_total_bytes {
            return Err(CliError::BadInput(format!(
                "more than {} bytes in the import (cap on the total size)",
                self.opts.max_total_bytes
            )));
        }
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

/// Prints warnings to stderr grouped by kind (core's `group_warnings`: actionable kinds first),
/// each group a count line, its first examples as `warning: file: $.path: message`, the likely
/// cause when known and how many more; escaped (a warning quotes names from the input).
pub fn print_warnings(warnings: &[ImportWarning]) {
    for g in lbplan_core::import::group_warnings(warnings) {
        if g.count > 1 {
            crate::output::message("warning: ", &format!("{} ({}):", g.title, g.count));
        }
        for w in &g.examples {
            crate::output::message("warning: ", &w.to_string());
        }
        if let Some(cause) = g.cause {
            crate::output::message("warning: ", &format!("likely cause: {cause}"));
        }
        if g.hidden > 0 {
            crate::output::message(
                "warning: ",
                &format!("… and {} more warnings of this kind", g.hidden),
            );
        }
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

/// Reads a file (or `-`, standard input) as UTF-8 text, naming the file in every error. Only
/// regular files are read, at most the importer's per-file cap.
pub fn read_text(path: &std::path::Path) -> Result<String, CliError> {
    let bytes = read_path(path, lbplan_core::import::DEFAULT_MAX_FILE_BYTES)?;
    String::from_utf8(bytes)
        .map_err(|e| CliError::BadInput(format!("{}: not UTF-8 text ({e})", path.display())))
}

/// Reads and parses a JSON file, naming the file and position in errors.
pub fn read_json(path: &std::path::Path) -> Result<serde_json::Value, CliError> {
    let text = read_text(path)?;
    serde_json::from_str(&text)
        .map_err(|e| CliError::BadInput(format!("{}: invalid JSON: {e}", path.display())))
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

    #[test]
    fn a_read_stops_one_byte_past_the_cap() {
        let path = std::env::temp_dir().join(format!("lbplan-read-cap-{}", std::process::id()));
        std::fs::write(&path, [b'x'; 100]).unwrap();
        let open = || Source::open(&path, "f").unwrap();
        assert_eq!(open().len(), Some(100));
        assert_eq!(open().read_capped(100, "f").unwrap().len(), 100);
        let err = open().read_capped(99, "f").unwrap_err().to_string();
        assert_eq!(
            err,
            "f: more than 99 bytes, over the cap of 99 bytes per file"
        );
        std::fs::remove_file(&path).ok();
    }
}
