//! `lbplan import FILE_OR_DIR... [-o snapshot.json]`: reads the inputs (directories walked in sorted
//! order, archives passed as bytes), hands them to `lbplan_core::import`, prints each warning to
//! stderr and writes the snapshot JSON. Bad input exits with status 2.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use lbplan_core::import::{ImportInput, ImportOptions, Origin, import_with};

use crate::exit::CliError;

#[derive(clap::Args)]
pub struct Args {
    /// Files, directories (laid out like the metadata store or not), .zip, .tar.gz or .tar archives.
    inputs: Vec<PathBuf>,
    /// Where to write the snapshot (stdout when absent).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Do not print warnings.
    #[arg(short = 'q', long)]
    quiet: bool,
}

struct Reader {
    opts: ImportOptions,
    entries: Vec<(String, Vec<u8>, Origin)>,
    total: u64,
}

impl Reader {
    fn read_file(&mut self, path: &Path, origin: Origin) -> Result<(), CliError> {
        let name = path.to_string_lossy().into_owned();
        let bad = |e: std::io::Error| CliError::BadInput(format!("{name}: {e}"));
        let len = std::fs::metadata(path).map_err(bad)?.len();
        if len > self.opts.max_file_bytes {
            return Err(CliError::BadInput(format!(
                "{name}: is {len} bytes, over the cap of {} bytes per file",
                self.opts.max_file_bytes
            )));
        }
        self.total += len;
        if self.total > self.opts.max_total_bytes {
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
        self.entries.push((name, bytes, origin));
        Ok(())
    }

    /// Walks a directory depth-first in name order; hidden entries and directory symlinks (which
    /// could loop) are skipped.
    fn read_dir(&mut self, dir: &Path) -> Result<(), CliError> {
        let bad = |e: std::io::Error| CliError::BadInput(format!("{}: {e}", dir.display()));
        let mut children: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(bad)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(bad)?;
        children.sort();
        for child in children {
            if child
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            {
                continue;
            }
            let meta = std::fs::symlink_metadata(&child).map_err(bad)?;
            if meta.is_dir() {
                self.read_dir(&child)?;
            } else if meta.file_type().is_symlink() {
                if std::fs::metadata(&child).is_ok_and(|m| m.is_file()) {
                    self.read_file(&child, Origin::Tree)?;
                }
            } else if meta.is_file() {
                self.read_file(&child, Origin::Tree)?;
            }
        }
        Ok(())
    }
}

pub fn run(args: Args) -> Result<(), CliError> {
    if args.inputs.is_empty() {
        return Err(CliError::BadInput(
            "nothing to import: give files, directories or archives".to_string(),
        ));
    }
    let mut reader = Reader {
        opts: ImportOptions::default(),
        entries: Vec::new(),
        total: 0,
    };
    for input in &args.inputs {
        if input.is_dir() {
            reader.read_dir(input)?;
        } else {
            reader.read_file(input, Origin::Given)?;
        }
    }
    let inputs: Vec<ImportInput<'_>> = reader
        .entries
        .iter()
        .map(|(name, bytes, origin)| ImportInput {
            name: Cow::Borrowed(name.as_str()),
            bytes: Cow::Borrowed(bytes.as_slice()),
            origin: *origin,
        })
        .collect();
    let imported =
        import_with(&inputs, &reader.opts).map_err(|e| CliError::BadInput(e.to_string()))?;
    if !args.quiet {
        for w in &imported.warnings {
            eprintln!("warning: {w}");
        }
    }
    let mut json = serde_json::to_string_pretty(&imported.snapshot)
        .map_err(|e| CliError::Failed(format!("cannot serialize the snapshot: {e}")))?;
    json.push('\n');
    match &args.output {
        Some(path) => std::fs::write(path, json)
            .map_err(|e| CliError::Failed(format!("{}: {e}", path.display())))?,
        None => print!("{json}"),
    }
    Ok(())
}
