//! A series read within one budget, one snapshot at a time: what a manifest expands to
//! (brokers, namespaces, runs referenced, however often) is held to what one snapshot file may be;
//! a manifest read under many names counts each time; files that are not the series' are never
//! read; a zip's members are inflated on demand within a per-member cap, and a zip naming a member
//! twice or holding two `series.json` is refused; capture times outside 1970..9999 are refused.
//! Every hostile input here is small: it *claims* or *references* much, and the refusal names the
//! file.

mod zip_support;

use std::io::Write;
use zip_support::zip_of;

use lbplan_core::history::store::{
    ENTRY_COST_BYTES, Files, FilesSource, HEADER_FILE, PARTS_DIR, SNAPSHOTS_DIR, SeriesLimits,
    SeriesSource, SnapshotFiles, StoredSeries, ZipSource, encode_snapshot, header_bytes,
    manifest_order,
};
use lbplan_core::history::{ExplainOptions, MAX_TIME_MS, explain_files, explain_source};
use lbplan_core::model::Snapshot;
use lbplan_core::simulate::builtin_snapshot;

fn store(series: &[Snapshot]) -> Files {
    let mut files: Files = vec![(HEADER_FILE.to_string(), header_bytes())];
    for (seq, s) in series.iter().enumerate() {
        let known: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
        let e = encode_snapshot(s, seq as u64, &|id| {
            known.contains(&format!("{PARTS_DIR}/{id}.json.gz"))
        })
        .unwrap();
        files.push((format!("{SNAPSHOTS_DIR}/{}", e.manifest_name), e.manifest));
        for (name, bytes) in e.parts {
            files.push((format!("{PARTS_DIR}/{name}"), bytes));
        }
    }
    files
}

fn demo_at(ms: i64) -> Snapshot {
    let mut s = builtin_snapshot("demo").unwrap();
    s.captured_at_ms = Some(ms);
    s
}

fn read_all(files: &Files, limits: SeriesLimits) -> Result<usize, String> {
    let mut s = StoredSeries::open_with(files, limits).map_err(|e| e.to_string())?;
    let mut n = 0;
    while let Some(snap) = s.next_snapshot() {
        snap.map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(n)
}

fn manifest_mut(files: &mut Files) -> (String, serde_json::Value) {
    let (name, bytes) = files
        .iter()
        .find(|(p, _)| p.starts_with("snapshots/"))
        .unwrap();
    (name.clone(), serde_json::from_slice(bytes).unwrap())
}

fn put(files: &mut Files, name: &str, bytes: Vec<u8>) {
    match files.iter_mut().find(|(p, _)| p == name) {
        Some((_, b)) => *b = bytes,
        None => files.push((name.to_string(), bytes)),
    }
}

/// A manifest listing 20,000 brokers that all point at one valid part is the snapshot file
/// holding 20,000 copies of that report: over a cap of a few MiB it is refused by the manifest's
/// name before any report is decoded (the reported case: 350,000 brokers, SIGABRT at 3–4 GB).
#[test]
fn a_manifest_listing_one_part_for_many_brokers_is_held_to_the_snapshot_cap() {
    let mut files = store(&[demo_at(1_000)]);
    let (name, mut m) = manifest_mut(&mut files);
    let (_, part) = {
        let brokers = m["brokers"].as_object().unwrap();
        let (k, v) = brokers.iter().next().unwrap();
        (k.clone(), v.as_str().unwrap().to_string())
    };
    let part_len: u64 = part.rsplit_once('-').unwrap().1.parse().unwrap();
    let mut brokers = serde_json::Map::new();
    for i in 0..20_000 {
        brokers.insert(
            format!("10.0.{}.{}:8080", i / 250, i % 250),
            part.clone().into(),
        );
    }
    m["brokers"] = brokers.into();
    put(&mut files, &name, serde_json::to_vec(&m).unwrap());
    let limits = SeriesLimits {
        max_snapshot_bytes: 4 << 20,
        ..SeriesLimits::default()
    };
    // 20,000 × (part + 256) is far over 4 MiB.
    assert!(20_000 * (part_len + ENTRY_COST_BYTES) > 4 << 20);
    let err = read_all(&files, limits).unwrap_err();
    assert!(err.starts_with(&name), "{err}");
    assert!(err.contains("expands to more than 4194304 bytes"), "{err}");
    // The default cap is the importer's per-file cap: a snapshot of a series holds no more than a
    // snapshot file may.
    assert_eq!(
        SeriesLimits::default().max_snapshot_bytes,
        lbplan_core::import::DEFAULT_MAX_FILE_BYTES
    );
}

/// A namespace index mapping 50,000 namespaces to one part counts each entry: refused naming the
/// manifest (the reported case: 2 M namespaces in a 10 MB series).
#[test]
fn a_namespace_index_mapping_many_namespaces_to_one_part_is_counted_per_entry() {
    let mut files = store(&[demo_at(1_000)]);
    let (name, m) = manifest_mut(&mut files);
    let index_id = m["namespaces"].as_str().unwrap().to_string();
    let index_file = format!("{PARTS_DIR}/{index_id}.json.gz");
    let gz = &files.iter().find(|(p, _)| *p == index_file).unwrap().1;
    let mut json = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut json).unwrap();
    let index: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&json).unwrap();
    let one = index.values().next().unwrap().clone();
    let mut big = serde_json::Map::new();
    for i in 0..50_000 {
        big.insert(format!("acme/ns-{i}"), one.clone());
    }
    let big_json = serde_json::to_vec(&big).unwrap();
    let big_id = format!(
        "{:016x}-{}",
        lbplan_core::model::fingerprint::fnv1a64(&big_json),
        big_json.len()
    );
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&big_json).unwrap();
    put(
        &mut files,
        &format!("{PARTS_DIR}/{big_id}.json.gz"),
        enc.finish().unwrap(),
    );
    let mut m = m;
    m["namespaces"] = big_id.into();
    put(&mut files, &name, serde_json::to_vec(&m).unwrap());
    let limits = SeriesLimits {
        max_snapshot_bytes: 8 << 20,
        ..SeriesLimits::default()
    };
    let err = read_all(&files, limits).unwrap_err();
    assert!(err.starts_with(&name), "{err}");
    assert!(err.contains("expands to more than 8388608 bytes"), "{err}");
}

/// One manifest under 40 names (hard links in a directory) is read 40 times, one at a time, each
/// read counted against the budget: a budget for 10 copies refuses the eleventh by its name.
#[test]
fn a_manifest_read_under_many_names_counts_each_time() {
    let mut files = store(&[demo_at(1_000)]);
    let (name, bytes) = files
        .iter()
        .find(|(p, _)| p.starts_with("snapshots/"))
        .cloned()
        .unwrap();
    let (time, _) = manifest_order(name.strip_prefix("snapshots/").unwrap()).unwrap();
    for seq in 1..40 {
        files.push((
            format!("{SNAPSHOTS_DIR}/{time:015}-{seq:06}.json"),
            bytes.clone(),
        ));
    }
    assert_eq!(read_all(&files, SeriesLimits::default()), Ok(40));
    let parts: u64 = files
        .iter()
        .filter(|(p, _)| p.starts_with("parts/"))
        .map(|(p, _)| {
            p.rsplit_once('-')
                .unwrap()
                .1
                .trim_end_matches(".json.gz")
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    let limits = SeriesLimits {
        max_total_bytes: header_bytes().len() as u64 + parts + 10 * bytes.len() as u64,
        ..SeriesLimits::default()
    };
    let err = read_all(&files, limits).unwrap_err();
    assert!(
        err.starts_with("snapshots/000000000001000-000010.json"),
        "{err}"
    );
    assert!(err.contains("cap on the total size read"), "{err}");
}

/// A source that fails the test if a file the reader has no business with is read.
struct Watched<'a> {
    inner: FilesSource<'a>,
    read: Vec<String>,
}

impl SeriesSource for Watched<'_> {
    fn is_stored(&self) -> bool {
        self.inner.is_stored()
    }
    fn manifest_names(&mut self) -> Result<Vec<String>, lbplan_core::history::SeriesError> {
        self.inner.manifest_names()
    }
    fn snapshot_files(&mut self) -> Result<Vec<String>, lbplan_core::history::SeriesError> {
        self.inner.snapshot_files()
    }
    fn read(
        &mut self,
        path: &str,
        cap: u64,
    ) -> Result<Vec<u8>, lbplan_core::history::store::ReadError> {
        self.read.push(path.to_string());
        self.inner.read(path, cap)
    }
}

/// Files beside a series (a notes file, a stray `snapshots/README`, an editor's backup, an
/// unreferenced part) are never read: only the header, the manifests and the parts they name.
#[test]
fn files_that_are_not_part_of_the_series_are_never_read() {
    let mut files = store(&[demo_at(1_000), demo_at(61_000)]);
    for extra in [
        "notes.bin",
        "snapshots/README",
        "snapshots/000000000001000-000000.json~",
        "parts/0000000000000000-5.json.gz",
    ] {
        files.push((extra.to_string(), vec![0; 64]));
    }
    let mut source = Watched {
        inner: FilesSource::new(&files),
        read: Vec::new(),
    };
    let report = explain_source(
        &mut source,
        SeriesLimits::default(),
        &ExplainOptions::default(),
        &mut |_, _, _| {},
    )
    .unwrap();
    assert_eq!(report.times_ms, vec![1_000, 61_000]);
    for path in &source.read {
        assert!(
            path == HEADER_FILE
                || (path.starts_with("snapshots/")
                    && path.ends_with(".json")
                    && !path.contains("README"))
                || (path.starts_with("parts/") && !path.starts_with("parts/0000000000000000")),
            "read {path}"
        );
    }
}

/// A series of ordinary snapshot files larger than what is kept between the two passes (here:
/// nothing kept) imports each file again when its turn comes, in time order.
#[test]
fn snapshot_files_beyond_the_kept_budget_are_read_again_one_at_a_time() {
    let text = |ms| serde_json::to_vec(&demo_at(ms)).unwrap();
    let files: Files = vec![
        ("b.json".to_string(), text(120_000)),
        ("a.json".to_string(), text(60_000)),
        ("c.json".to_string(), text(0)),
    ];
    let mut source = FilesSource::new(&files);
    let limits = SeriesLimits {
        max_kept_bytes: 0,
        ..SeriesLimits::default()
    };
    let mut plain = SnapshotFiles::open(&mut source, limits).unwrap();
    let mut times = Vec::new();
    while let Some(s) = plain.next_snapshot() {
        times.push(s.unwrap().captured_at_ms.unwrap());
    }
    assert_eq!(times, vec![0, 60_000, 120_000]);
}

/// Capture times outside 1970 to the year 9999 are refused by the file's name (they gave negative
/// durations and 4.7e23 bytes moved).
#[test]
fn extreme_capture_times_are_refused_naming_the_file() {
    // (Negative times are refused by the importer's reader already.)
    for bad in [MAX_TIME_MS + 1, i64::MAX] {
        let files: Files = vec![
            (
                "ok.json".to_string(),
                serde_json::to_vec(&demo_at(0)).unwrap(),
            ),
            (
                "bad.json".to_string(),
                serde_json::to_vec(&demo_at(bad)).unwrap(),
            ),
        ];
        let err = explain_files(&files, &ExplainOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("bad.json: $.captured_at_ms"),
            "{bad}: {err}"
        );
        assert!(err.contains("outside 0 to 253402300799999"), "{err}");
    }
    // The last millisecond of 9999 is a time: no overflow in the durations.
    let files: Files = vec![
        (
            "a.json".to_string(),
            serde_json::to_vec(&demo_at(0)).unwrap(),
        ),
        (
            "b.json".to_string(),
            serde_json::to_vec(&demo_at(MAX_TIME_MS)).unwrap(),
        ),
    ];
    let r = explain_files(&files, &ExplainOptions::default()).unwrap();
    assert_eq!(r.summary.duration_ms, MAX_TIME_MS);
    assert!(r.summary.bytes_moved >= 0.0);
}

/// A manifest renamed to another time is refused: names give the order, the envelope must agree.
#[test]
fn a_manifest_whose_name_and_time_disagree_is_refused() {
    let mut files = store(&[demo_at(1_000)]);
    let (name, bytes) = files
        .iter()
        .find(|(p, _)| p.starts_with("snapshots/"))
        .cloned()
        .unwrap();
    files.retain(|(p, _)| *p != name);
    files.push(("snapshots/000000000005000-000000.json".to_string(), bytes));
    let err = read_all(&files, SeriesLimits::default()).unwrap_err();
    assert!(
        err.starts_with("snapshots/000000000005000-000000.json: $.envelope.captured_at_ms is 1000"),
        "{err}"
    );
}

/// Replaces every occurrence of `from` by `to` (same length) in `bytes`.
fn patch(bytes: &mut [u8], from: &[u8], to: &[u8]) {
    assert_eq!(from.len(), to.len());
    let mut i = 0;
    let mut n = 0;
    while i + from.len() <= bytes.len() {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
            n += 1;
        }
        i += 1;
    }
    assert!(n > 0);
}

/// Two members of one name (which one is meant is not known) and two `series.json` are refused,
/// naming the zip and the member.
#[test]
fn a_zip_naming_a_member_twice_or_holding_two_series_is_refused() {
    let mut dup = zip_of(&[("a.json", b"{}"), ("b.json", b"[]")]);
    patch(&mut dup, b"b.json", b"a.json");
    let err = ZipSource::open("s.zip", &dup, 100)
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        err,
        "s.zip: member a.json appears twice (a zip whose members share a name is refused: which \
         one is meant is not known)"
    );
    let header = header_bytes();
    let two = zip_of(&[("x/series.json", &header), ("y/series.json", &header)]);
    let err = ZipSource::open("s.zip", &two, 100)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.starts_with("s.zip: holds 2 series.json files (x/series.json, y/series.json)"),
        "{err}"
    );
}

/// Members are inflated on demand and stop one byte past the cap asked: 16 KiB of spaces in a
/// few dozen bytes is refused against a 4 KiB cap, read whole against 16 KiB; an upload's zip is
/// read the same way, so a manifest inflating past the manifest cap is refused naming it.
#[test]
fn zip_members_are_capped_per_member_while_inflating() {
    let zeros = vec![b' '; 16 << 10];
    let bytes = zip_of(&[
        ("series.json", &header_bytes()),
        ("snapshots/big.json", &zeros),
    ]);
    let huge = vec![b' '; usize::try_from(SeriesLimits::default().max_manifest_bytes).unwrap() + 1];
    let bomb = zip_of(&[
        ("series.json", &header_bytes()),
        ("snapshots/001796083200000-000000.json", &huge),
    ]);
    let err = lbplan_core::history::explain_uploaded(
        vec![("s.zip".to_string(), bomb)],
        &ExplainOptions::default(),
        &mut |_, _, _| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("s.zip") && err.contains("001796083200000-000000.json"),
        "{err}"
    );
    // The source reads one member when asked, within the cap asked.
    let mut source = ZipSource::open("s.zip", &bytes, 100).unwrap();
    assert!(source.read("snapshots/big.json", 4096).is_err());
    assert_eq!(
        source.read("snapshots/big.json", 16 << 10).unwrap().len(),
        16 << 10
    );
}

/// The importer refuses a zip naming a member twice too (it read one of them, silently).
#[test]
fn the_importer_refuses_a_zip_naming_a_member_twice() {
    let demo = serde_json::to_vec(&demo_at(0)).unwrap();
    let mut dup = zip_of(&[("a.json", &demo), ("b.json", b"{}")]);
    patch(&mut dup, b"b.json", b"a.json");
    let input = lbplan_core::import::ImportInput::given("dump.zip", &dup);
    let err = lbplan_core::import::import(&[input])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("dump.zip") && err.contains("member a.json appears twice"),
        "{err}"
    );
}

/// An upload of one zip holding a series folder (`s/series.json`, `s/snapshots/…`, `s/parts/…`,
/// as `zip -r` of the directory writes it) explains exactly as the folder's files do: members are
/// read as the series needs them, the common top directory removed.
#[test]
fn an_uploaded_zip_of_a_series_folder_explains_as_its_files() {
    let demo = builtin_snapshot("demo").unwrap();
    let mut later = demo.clone();
    later.captured_at_ms = demo.captured_at_ms.map(|t| t + 60_000);
    let files = store(&[demo, later]);
    let members: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(p, b)| (format!("s/{p}"), b.clone()))
        .collect();
    let refs: Vec<(&str, &[u8])> = members
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let zip = zip_of(&refs);
    let opts = ExplainOptions::default();
    let from_zip = lbplan_core::history::explain_uploaded(
        vec![("s.zip".to_string(), zip)],
        &opts,
        &mut |_, _, _| {},
    )
    .unwrap();
    let from_files = explain_files(&files, &opts).unwrap();
    assert_eq!(from_zip.summary.snapshots, 2);
    assert_eq!(
        serde_json::to_string(&from_zip).unwrap(),
        serde_json::to_string(&from_files).unwrap()
    );
}
