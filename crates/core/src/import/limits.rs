//! An import's size caps and their defaults: what one file, all files and one JSON document may
//! hold, checked by the entry, the archive reader and the JSON guard alike.

/// Default cap on one file (archive members included): 256 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// Default cap on all bytes of one import, decompressed archive members included: 1 GiB.
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 1024 * 1024 * 1024;
/// Default cap on the number of files of one import, archive members included.
pub const DEFAULT_MAX_ENTRIES: usize = 500_000;
/// Default cap on the JSON values (scalars, arrays, objects) of one file: 8 million. A parsed value
/// costs about 80 bytes whatever its text, so this bounds one file's tree to well under 1 GB; a
/// 200,000-bundle snapshot has about 5.5 million.
pub const DEFAULT_MAX_JSON_VALUES: u64 = 8_000_000;

/// Size caps (documented in docs/snapshot-format.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    pub max_file_bytes: u64,
    pub max_total_bytes: u64,
    pub max_entries: usize,
    /// JSON values per file, counted before parsing (see `json_guard`).
    pub max_json_values: u64,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_total_bytes: DEFAULT_MAX_TOTAL_BYTES,
            max_entries: DEFAULT_MAX_ENTRIES,
            max_json_values: DEFAULT_MAX_JSON_VALUES,
        }
    }
}
