//! `lbplan import` stays within 2 GB of address space on hostile input: a 200 MB
//! `[0,0,…]` file (under the 256 MiB file cap; it used to parse into ~8 GB of JSON tree) and a
//! ~200 KB zip holding it both exit 2 naming the file and the cap, under `ulimit -v 2000000`. The
//! inputs are generated into a temporary directory; ordinary imports still succeed under the same
//! limit.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The address-space limit of the goal, in KiB (`ulimit -v` units).
const ULIMIT_KB: &str = "2000000";

/// Zeros in the hostile array: 200,000,001 bytes of `[0,…,0]`.
const ZEROS: usize = 100_000_000;

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("lbplan-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `[0,0,…,0]` with `n` zeros to `w` in 1 MiB chunks (never whole in memory).
fn write_zeros(w: &mut impl Write, n: usize) {
    const CHUNK: usize = 1 << 19;
    let chunk = "0,".repeat(CHUNK);
    w.write_all(b"[").unwrap();
    let mut left = n;
    while left > 1 {
        let k = (left - 1).min(CHUNK);
        w.write_all(&chunk.as_bytes()[..2 * k]).unwrap();
        left -= k;
    }
    w.write_all(b"0]").unwrap();
}

/// `lbplan import <args>` under `ulimit -v`.
fn import_limited(args: &[&Path]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "ulimit -v {ULIMIT_KB} && exec \"$0\" import \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_lbplan"));
    for a in args {
        cmd.arg(a);
    }
    cmd.output().expect("run lbplan under sh")
}

fn assert_refused(o: &Output, file: &str) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{file}: $[7999999]: more than 8000000 JSON values in one file (the cap on JSON \
             values per file)"
        )),
        "{stderr}"
    );
}

#[test]
fn a_200_mb_array_of_zeros_exits_2_within_2_gb() {
    let tmp = TempDir::new("import-memory-array");
    let path = tmp.0.join("zeros.json");
    let mut w = BufWriter::new(File::create(&path).unwrap());
    write_zeros(&mut w, ZEROS);
    w.into_inner().unwrap().sync_all().unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        2 * ZEROS as u64 + 1
    );
    let o = import_limited(&[&path]);
    assert_refused(&o, &path.to_string_lossy());
}

#[test]
fn a_zip_bomb_of_that_array_exits_2_within_2_gb() {
    let tmp = TempDir::new("import-memory-zip");
    let path = tmp.0.join("bomb.zip");
    let mut zip = zip::ZipWriter::new(BufWriter::new(File::create(&path).unwrap()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(9))
        .large_file(false);
    zip.start_file("dump/zeros.json", opts).unwrap();
    write_zeros(&mut zip, ZEROS);
    zip.finish()
        .unwrap()
        .into_inner()
        .unwrap()
        .sync_all()
        .unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 512 * 1024, "the bomb is {size} bytes");
    let o = import_limited(&[&path]);
    assert_refused(&o, &format!("{}!/dump/zeros.json", path.display()));
}

#[test]
fn ordinary_imports_still_succeed_within_2_gb() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let tmp = TempDir::new("import-memory-ok");
    let out = tmp.0.join("snapshot.json");
    for input in [
        root.join("crates/core/tests/import_corpus/metadata-store"),
        root.join("static/demo-snapshot.json"),
    ] {
        let o = import_limited(&[&input, Path::new("-o"), &out]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: {}",
            input.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        let snapshot: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(snapshot["format_version"], 1, "{}", input.display());
    }
}
