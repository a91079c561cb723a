//! One reader of a zip's listing and members for the importer and the history store alike: the
//! one path rule (directories and macOS metadata skipped; a name that is absolute or has a `..`
//! component refused and counted, never read), a name given twice refused, the member count
//! checked against the caller's cap before anything is inflated, and each member inflated only
//! when asked, never past the cap asked (the bytes are counted, whatever its header says).

use std::io::{Cursor, Read};

/// What the one path rule makes of a member's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MemberPath {
    /// A file to read, under this relative `/`-separated path.
    File(String),
    /// A directory or an operating system's metadata (`__MACOSX/`, `.DS_Store`, `._*`): skipped
    /// without a word.
    Skip,
    /// Absolute (`/x`, `\x`, `C:/x`) or with a `..` component: a hostile name (zip-slip) that no
    /// reader follows; refused and counted in a warning.
    Refused,
}

/// The one path rule of archive members (zip and tar).
pub(crate) fn member_path(raw: &str) -> MemberPath {
    // A drive letter (`C:`) makes a Windows name absolute; a colon elsewhere is a broker id.
    let drive = |first: &str| {
        let b = first.as_bytes();
        b.len() == 2 && b.first().is_some_and(u8::is_ascii_alphabetic) && b.get(1) == Some(&b':')
    };
    let absolute = raw.starts_with(['/', '\\']) || raw.split(['/', '\\']).next().is_some_and(drive);
    let segs: Vec<&str> = raw
        .split(['/', '\\'])
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    if absolute || segs.contains(&"..") {
        return MemberPath::Refused;
    }
    let Some(last) = segs.last() else {
        return MemberPath::Skip;
    };
    if segs.first() == Some(&"__MACOSX") || *last == ".DS_Store" || last.starts_with("._") {
        return MemberPath::Skip;
    }
    MemberPath::File(segs.join("/"))
}

/// The warning both readers give for the members refused by their names (`None`: none was).
pub(crate) fn refused_warning(refused: &[String]) -> Option<String> {
    let first = refused.first()?;
    let n = refused.len();
    let entries = if n == 1 { "entry" } else { "entries" };
    Some(format!(
        "{n} {entries} refused: a name that is absolute or has a `..` component is not read \
         (first: {first:?})"
    ))
}

/// Why a zip could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum OpenError {
    /// Not a zip the reader understands, in words.
    Unreadable(String),
    /// A member name given twice: which one is meant is not known.
    Duplicate(String),
    /// More entries (directories and refused names included) than the caller's cap.
    TooManyEntries(usize),
}

/// Why a member was not handed over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MemberError {
    /// Larger than the cap asked: from its header's size, or one byte past the cap read.
    TooLarge,
    /// A corrupt member or a failed inflation, in words.
    Other(String),
}

/// Reads at most `cap` bytes; `Ok(None)` if there were more.
pub(crate) fn read_capped(r: impl Read, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut out = Vec::new();
    r.take(cap.saturating_add(1)).read_to_end(&mut out)?;
    Ok((out.len() as u64 <= cap).then_some(out))
}

/// A zip opened under the one path rule.
pub(crate) struct ZipReader<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    /// Each file member kept: its path and index, in the zip's order.
    files: Vec<(String, usize)>,
    /// The raw names of the members refused by the path rule.
    refused: Vec<String>,
}

impl<'a> ZipReader<'a> {
    /// Opens `bytes`, refusing more than `max_entries` entries.
    pub(crate) fn open(bytes: &'a [u8], max_entries: usize) -> Result<Self, OpenError> {
        let bad = |e: zip::result::ZipError| OpenError::Unreadable(e.to_string());
        let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(bad)?;
        // The zip reader keeps one member per name; the central directory says if one is twice.
        if let Some(name) = super::zip_names::first_duplicate(bytes) {
            return Err(OpenError::Duplicate(name));
        }
        if zip.len() > max_entries {
            return Err(OpenError::TooManyEntries(zip.len()));
        }
        let (mut files, mut refused) = (Vec::new(), Vec::new());
        for i in 0..zip.len() {
            let entry = zip.by_index_raw(i).map_err(bad)?;
            if entry.is_dir() {
                continue;
            }
            match member_path(entry.name()) {
                MemberPath::File(path) => files.push((path, i)),
                MemberPath::Skip => {}
                MemberPath::Refused => refused.push(entry.name().to_string()),
            }
        }
        Ok(Self {
            zip,
            files,
            refused,
        })
    }

    /// The file members kept (path, index), in the zip's order.
    pub(crate) fn files(&self) -> &[(String, usize)] {
        &self.files
    }

    /// The raw names of the members the path rule refused.
    pub(crate) fn refused(&self) -> &[String] {
        &self.refused
    }

    /// What member `index`'s header says it inflates to.
    pub(crate) fn declared_size(&mut self, index: usize) -> Result<u64, MemberError> {
        self.zip
            .by_index_raw(index)
            .map(|e| e.size())
            .map_err(|e| MemberError::Other(e.to_string()))
    }

    /// Member `index`'s bytes, at most `cap` of them.
    pub(crate) fn read(&mut self, index: usize, cap: u64) -> Result<Vec<u8>, MemberError> {
        let entry = self
            .zip
            .by_index(index)
            .map_err(|e| MemberError::Other(e.to_string()))?;
        if entry.size() > cap {
            return Err(MemberError::TooLarge);
        }
        // Within the cap, the header's size is a fair guess of what to hold.
        let mut data = Vec::with_capacity(usize::try_from(entry.size()).unwrap_or(0));
        entry
            .take(cap.saturating_add(1))
            .read_to_end(&mut data)
            .map_err(|e| MemberError::Other(e.to_string()))?;
        if data.len() as u64 > cap {
            return Err(MemberError::TooLarge);
        }
        Ok(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(p: &str) -> MemberPath {
        MemberPath::File(p.to_string())
    }

    #[test]
    fn one_path_rule() {
        for hostile in [
            "../x.json",
            "a/../../x.json",
            "a/../b.json",
            "..\\x.json",
            "/etc/x.json",
            "\\x.json",
            "C:/x.json",
            "c:\\x.json",
        ] {
            assert_eq!(member_path(hostile), MemberPath::Refused, "{hostile}");
        }
        assert_eq!(member_path("./a//b.json"), file("a/b.json"));
        assert_eq!(member_path("a\\b.json"), file("a/b.json"));
        assert_eq!(
            member_path("b1:8080/report.json"),
            file("b1:8080/report.json")
        );
        assert_eq!(member_path("..x/y..json"), file("..x/y..json"));
        for skipped in ["", "./", "__MACOSX/a/._b.json", "a/.DS_Store", "a/._b.json"] {
            assert_eq!(member_path(skipped), MemberPath::Skip, "{skipped}");
        }
    }

    #[test]
    fn the_refused_are_counted_in_one_warning() {
        assert_eq!(refused_warning(&[]), None);
        assert_eq!(
            refused_warning(&["/a".to_string(), "../b".to_string()]).as_deref(),
            Some(
                "2 entries refused: a name that is absolute or has a `..` component is not read \
                 (first: \"/a\")"
            )
        );
    }
}
