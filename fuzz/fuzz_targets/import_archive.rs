//! Fuzz target `import_archive`: the bytes become the *members* of a well-formed archive (so the
//! fuzzer explores what archives hold rather than failing at their headers), which is imported as
//! one file, must never panic (errors are fine). The raw archive bytes themselves are fuzzed by the
//! `import` target (`dump.zip`).
//!
//! Byte 0 picks the container (bits 0–1: zip deflated, zip stored, `.tar.gz`, single `.gz`), the
//! caps (bit 2: the small caps of the `import` target, else the defaults that the JS API's
//! `importFiles`, the dashboard and `lbplan import` use, through `import`) and whether the archive
//! is cut short (bit 3: truncated at a length taken from byte 1). The rest is split at `0xFF` into up
//! to eight members, each named by its first byte as in the `import` target.
#![no_main]

use std::io::{Cursor, Write};

use libfuzzer_sys::fuzz_target;
use lbplan_core::import::{ImportInput, ImportOptions, import, import_with};

const NAMES: [&str; 16] = [
    "loadbalance/brokers/10.0.0.1:8080",
    "loadbalance/brokers/10.0.0.2:8080",
    "loadbalance/bundle-data/public/default/0x00000000_0x80000000",
    "loadbalance/bundle-data/public/default/0x80000000_0xffffffff",
    "loadbalance/broker-time-average/10.0.0.1:8080",
    "loadbalance/leader",
    "admin/local-policies/public/default",
    "admin/policies/public/default",
    "admin/clusters/c/failureDomain/d",
    "admin/clusters/c/namespaceIsolationPolicies",
    "conf/broker.conf",
    "topics.txt",
    "snapshot.json",
    "public/default.json",
    "nested.zip",
    "report.json",
];

fn zip_of(members: &[(&str, &[u8])], method: zip::CompressionMethod) -> Option<Vec<u8>> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in members {
        w.start_file(*name, opts).ok()?;
        w.write_all(bytes).ok()?;
    }
    Some(w.finish().ok()?.into_inner())
}

fn tar_gz_of(members: &[(&str, &[u8])]) -> Option<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    for (name, bytes) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        b.append_data(&mut h, name, *bytes).ok()?;
    }
    b.into_inner().ok()?.finish().ok()
}

fn gz_of(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).ok()?;
    gz.finish().ok()
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Some((&cut, rest)) = rest.split_first() else {
        return;
    };
    let members: Vec<(&str, &[u8])> = rest
        .split(|&b| b == 0xFF)
        .take(8)
        .filter_map(|chunk| {
            let (&pick, body) = chunk.split_first()?;
            Some((NAMES[usize::from(pick) % NAMES.len()], body))
        })
        .collect();
    let (name, archive) = match mode & 3 {
        0 => ("dump.zip", zip_of(&members, zip::CompressionMethod::Deflated)),
        1 => ("dump.zip", zip_of(&members, zip::CompressionMethod::Stored)),
        2 => ("dump.tar.gz", tar_gz_of(&members)),
        _ => match members.first() {
            Some((n, body)) => (*n, gz_of(body)),
            None => return,
        },
    };
    let Some(mut archive) = archive else {
        return;
    };
    if mode & 8 != 0 {
        let keep = archive.len() * usize::from(cut) / 256;
        archive.truncate(keep);
    }
    let inputs = [ImportInput::given(name, archive)];
    if mode & 4 != 0 {
        let opts = ImportOptions {
            max_file_bytes: 1 << 20,
            max_total_bytes: 8 << 20,
            max_entries: 1000,
            max_json_values: 10_000,
        };
        let _ = import_with(&inputs, &opts);
    } else {
        let _ = import(&inputs);
    }
});
