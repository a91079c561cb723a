//! Archives from bytes (no file system): `.zip` (stored or deflate), `.tar.gz`, `.tar` and a single
//! gzip-compressed file. Members are read through hard caps on member size, total decompressed
//! bytes (one budget for all members of all archives of an import) and member count, and handed on
//! one at a time, so that a decompression bomb fails cleanly instead of exhausting memory.

use std::io::{Cursor, Read};

use super::diag::{Diag, ImportError, WarningKind};
use super::limits::ImportOptions;
use super::zip_reader::{
    MemberError, MemberPath, OpenError, ZipReader, member_path, read_capped, refused_warning,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArchiveKind {
    Zip,
    Gzip,
    Tar,
}

/// Recognises an archive by its magic bytes (names can lie).
pub(crate) fn sniff(bytes: &[u8]) -> Option<ArchiveKind> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        Some(ArchiveKind::Zip)
    } else if bytes.starts_with(&[0x1f, 0x8b]) {
        Some(ArchiveKind::Gzip)
    } else if is_tar(bytes) {
        Some(ArchiveKind::Tar)
    } else {
        None
    }
}

fn is_tar(bytes: &[u8]) -> bool {
    bytes.get(257..262) == Some(b"ustar")
}

/// A file found in an archive: its path inside the archive and its bytes.
pub(crate) struct Member {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// What is left of the import-wide caps.
pub(crate) struct Budget {
    pub total_bytes_left: u64,
    pub entries_left: usize,
}

impl Budget {
    pub(crate) fn take_entry(&mut self, opts: &ImportOptions) -> Result<(), ImportError> {
        self.entries_left = self.entries_left.checked_sub(1).ok_or_else(|| {
            ImportError::Limit(format!(
                "more than {} files in the import (cap on the number of entries, archives included)",
                opts.max_entries
            ))
        })?;
        Ok(())
    }

    pub(crate) fn take_bytes(&mut self, n: u64, opts: &ImportOptions) -> Result<(), ImportError> {
        self.total_bytes_left = self.total_bytes_left.checked_sub(n).ok_or_else(|| {
            ImportError::Limit(format!(
                "more than {} bytes in the import (cap on the total size, decompressed archive \
                 members included)",
                opts.max_total_bytes
            ))
        })?;
        Ok(())
    }
}

fn too_big(file: &str, member: &str, cap: u64) -> ImportError {
    ImportError::file(
        file,
        format!("archive member {member} is larger than the cap of {cap} bytes per file"),
    )
}

/// Reads one member through both caps: the per-file cap and what is left of the import's total, so
/// that no member is read past either (its header's size may lie).
fn read_member(
    file: &str,
    path: &str,
    r: impl Read,
    opts: &ImportOptions,
    budget: &mut Budget,
    bad: impl FnOnce(std::io::Error) -> ImportError,
) -> Result<Vec<u8>, ImportError> {
    let cap = opts.max_file_bytes.min(budget.total_bytes_left);
    let data = read_capped(r, cap).map_err(bad)?;
    let Some(data) = data else {
        return Err(over_cap(file, path, cap, opts));
    };
    budget.take_bytes(data.len() as u64, opts)?;
    Ok(data)
}

/// A member past `cap`: the per-file cap, or what was left of the import's total.
fn over_cap(file: &str, path: &str, cap: u64, opts: &ImportOptions) -> ImportError {
    if cap == opts.max_file_bytes {
        return too_big(file, path, cap);
    }
    ImportError::Limit(format!(
        "{file}: archive member {path} decompresses to more than the {cap} bytes left under the \
         cap of {} bytes on the import (decompressed archive members included)",
        opts.max_total_bytes
    ))
}

/// What receives each member, one at a time (so only one decompressed member is in memory).
pub(crate) type Each<'a> = dyn FnMut(Member, &mut Diag) -> Result<(), ImportError> + 'a;

/// Expands an archive, handing each member to `each` as soon as it is read.
pub(crate) fn expand(
    file: &str,
    kind: ArchiveKind,
    bytes: &[u8],
    opts: &ImportOptions,
    budget: &mut Budget,
    diag: &mut Diag,
    each: &mut Each<'_>,
) -> Result<(), ImportError> {
    match kind {
        ArchiveKind::Zip => expand_zip(file, bytes, opts, budget, diag, each),
        ArchiveKind::Tar => expand_tar(file, Cursor::new(bytes), opts, budget, diag, each),
        ArchiveKind::Gzip => {
            // Streamed: a `.tar.gz` is read member by member, never inflated whole.
            let mut gz = flate2::read::GzDecoder::new(bytes);
            let mut head = Vec::with_capacity(TAR_MAGIC_END);
            (&mut gz)
                .take(TAR_MAGIC_END as u64)
                .read_to_end(&mut head)
                .map_err(|e| ImportError::file(file, format!("not a valid gzip stream: {e}")))?;
            let tar = is_tar(&head);
            let stream = Cursor::new(head).chain(gz);
            if tar {
                return expand_tar(file, stream, opts, budget, diag, each);
            }
            let name = super::detect::segments(file)
                .last()
                .map(|s| s.strip_suffix(".gz").unwrap_or(s).to_string())
                .unwrap_or_default();
            let bad = |e| ImportError::file(file, format!("not a valid gzip stream: {e}"));
            let data = read_member(file, "(the decompressed file)", stream, opts, budget, bad)?;
            each(
                Member {
                    path: name,
                    bytes: data,
                },
                diag,
            )
        }
    }
}

/// Bytes needed to see a tar header's `ustar` magic.
const TAR_MAGIC_END: usize = 262;

fn expand_zip(
    file: &str,
    bytes: &[u8],
    opts: &ImportOptions,
    budget: &mut Budget,
    diag: &mut Diag,
    each: &mut Each<'_>,
) -> Result<(), ImportError> {
    let bad = |why: String| ImportError::file(file, format!("not a readable zip archive: {why}"));
    let mut zip = ZipReader::open(bytes, budget.entries_left).map_err(|e| match e {
        OpenError::Unreadable(why) => bad(why),
        // The zip reader keeps one member per name: a second one of the same name would be read
        // in place of the first, silently.
        OpenError::Duplicate(name) => {
            ImportError::file(file, super::zip_names::duplicate_message(&name))
        }
        OpenError::TooManyEntries(n) => ImportError::Limit(format!(
            "{file}: has {n} entries, more than the {} left under the cap on the number of entries",
            budget.entries_left
        )),
    })?;
    warn_refused(file, zip.refused(), diag);
    let files = zip.files().to_vec();
    // What the directory says the members decompress to, before any is inflated: a bomb whose
    // headers tell the truth (10 GB of zeros in 10 MB) is refused at once instead of after
    // inflating and reading a gigabyte of it. Headers that lie are caught while inflating.
    let mut declared: u64 = 0;
    for (path, i) in &files {
        let size = zip.declared_size(*i).map_err(|e| bad(member_why(e)))?;
        if size > opts.max_file_bytes {
            return Err(too_big(file, path, opts.max_file_bytes));
        }
        declared = declared.saturating_add(size);
    }
    if declared > budget.total_bytes_left {
        return Err(ImportError::Limit(format!(
            "{file}: its members decompress to {declared} bytes (as its directory states), more \
             than the {} left under the cap of {} bytes on the import (decompressed archive \
             members included)",
            budget.total_bytes_left, opts.max_total_bytes
        )));
    }
    for (path, i) in files {
        budget.take_entry(opts)?;
        let cap = opts.max_file_bytes.min(budget.total_bytes_left);
        let data = match zip.read(i, cap) {
            Ok(data) => data,
            Err(MemberError::TooLarge) => return Err(over_cap(file, &path, cap, opts)),
            Err(MemberError::Other(why)) => {
                return Err(ImportError::file(
                    file,
                    format!("cannot read archive member {path}: {why}"),
                ));
            }
        };
        budget.take_bytes(data.len() as u64, opts)?;
        if sniff(&data).is_some() {
            skip_nested(file, &path, diag);
            continue;
        }
        each(Member { path, bytes: data }, diag)?;
    }
    Ok(())
}

fn member_why(e: MemberError) -> String {
    match e {
        MemberError::TooLarge => "larger than its cap".to_string(),
        MemberError::Other(why) => why,
    }
}

/// The archive's members refused for their names, in one warning on the archive.
fn warn_refused(file: &str, refused: &[String], diag: &mut Diag) {
    if let Some(why) = refused_warning(refused) {
        diag.warn(WarningKind::IgnoredFile, file, None, &why);
    }
}

fn expand_tar(
    file: &str,
    stream: impl Read,
    opts: &ImportOptions,
    budget: &mut Budget,
    diag: &mut Diag,
    each: &mut Each<'_>,
) -> Result<(), ImportError> {
    let bad =
        |e: std::io::Error| ImportError::file(file, format!("not a readable tar archive: {e}"));
    let mut archive = tar::Archive::new(stream);
    let mut refused = Vec::new();
    for entry in archive.entries().map_err(bad)? {
        let entry = entry.map_err(bad)?;
        let kind = entry.header().entry_type();
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        if kind.is_dir() || kind.is_pax_global_extensions() {
            continue;
        }
        let path = match member_path(&raw) {
            MemberPath::File(path) => path,
            MemberPath::Skip => continue,
            MemberPath::Refused => {
                refused.push(raw);
                continue;
            }
        };
        if !kind.is_file() {
            diag.warn(
                WarningKind::IgnoredFile,
                &format!("{file}!/{path}"),
                None,
                "not a regular file (link or device); skipped",
            );
            continue;
        }
        let size = entry.header().size().map_err(bad)?;
        if size > opts.max_file_bytes {
            return Err(too_big(file, &path, opts.max_file_bytes));
        }
        budget.take_entry(opts)?;
        let data = read_member(file, &path, entry, opts, budget, |e| {
            ImportError::file(file, format!("cannot read archive member {path}: {e}"))
        })?;
        if sniff(&data).is_some() {
            skip_nested(file, &path, diag);
            continue;
        }
        each(Member { path, bytes: data }, diag)?;
    }
    warn_refused(file, &refused, diag);
    Ok(())
}

fn skip_nested(file: &str, path: &str, diag: &mut Diag) {
    diag.warn(
        WarningKind::IgnoredFile,
        &format!("{file}!/{path}"),
        None,
        "archive inside an archive; skipped (unpack it first)",
    );
}
