//! End to end: `lbplan history` on hostile series (each small on disk, claiming or
//! referencing much) ends with exit 0 or 2 and a message naming the file; `simulate
//! --record-series` commits in batches, refuses another cluster and a file where its directory
//! should be; count arguments have caps; imported names and times pass core's rules.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("runs lbplan")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lbplan-bounds-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A series of `cycles` simulated demo snapshots in `dir`.
fn record(dir: &Path, cycles: &str) {
    let out = lbplan(&[
        "simulate",
        "builtin:demo",
        "--cycles",
        cycles,
        "--no-progress",
        "--record-series",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}

fn manifests(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

fn history(path: &Path) -> Output {
    lbplan(&["history", path.to_str().unwrap(), "--format", "json"])
}

fn snapshots_explained(out: &Output) -> u64 {
    assert!(out.status.success(), "{}", stderr(out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["summary"]["snapshots"].as_u64().unwrap()
}

/// A sparse file claiming `len` bytes (no blocks written).
fn sparse(path: &Path, len: u64) {
    std::fs::File::create(path).unwrap().set_len(len).unwrap();
}

const GIB_1_9: u64 = 1_900 << 20;

/// Sparse 1.9 GiB files beside a series (at its root, in `snapshots/` under a name that is not a
/// manifest's) are never read: exit 0. One under a referenced part's name is refused from its
/// size, unread, naming it.
#[test]
fn files_beside_a_series_are_not_read_and_a_huge_part_is_refused_unread() {
    let dir = scratch("sparse");
    let series = dir.join("s");
    record(&series, "3");
    sparse(&series.join("backup.tar"), GIB_1_9);
    sparse(&series.join("snapshots").join("notes.txt"), GIB_1_9);
    assert_eq!(snapshots_explained(&history(&series)), 3);

    let part = std::fs::read_dir(series.join("parts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap();
    std::fs::remove_file(&part).unwrap();
    sparse(&part, GIB_1_9);
    let out = history(&series);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let name = part.file_name().unwrap().to_str().unwrap();
    assert!(
        stderr(&out).contains(&format!("parts/{name}: larger than a part may be")),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A directory of 20 hard links to one snapshot file is 20 snapshots read one at a time (exit 0);
/// a sparse 1.9 GiB `.json` among snapshot files is refused from its size, naming it.
#[test]
fn hard_linked_snapshot_files_and_a_huge_one() {
    let dir = scratch("links");
    let plain = dir.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json");
    let mut snap: serde_json::Value =
        serde_json::from_slice(&std::fs::read(demo).unwrap()).unwrap();
    snap["captured_at_ms"] = 1_700_000_000_000i64.into();
    let first = plain.join("s00.json");
    std::fs::write(&first, serde_json::to_vec(&snap).unwrap()).unwrap();
    for i in 1..20 {
        std::fs::hard_link(&first, plain.join(format!("s{i:02}.json"))).unwrap();
    }
    assert_eq!(snapshots_explained(&history(&plain)), 20);

    let huge = plain.join("s99.json");
    sparse(&huge, GIB_1_9);
    let out = history(&plain);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("s99.json: larger than the cap of 268435456 bytes per file"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// 40 hard links of one manifest (under 40 manifest names of the same time) are 40 snapshots,
/// each manifest parsed when its turn comes: exit 0.
#[test]
fn hard_linked_manifests_are_read_one_at_a_time() {
    let dir = scratch("manifests");
    let series = dir.join("s");
    record(&series, "1");
    let m = manifests(&series).remove(0);
    let name = m.file_name().unwrap().to_str().unwrap().to_string();
    let time = name.split('-').next().unwrap();
    for seq in 1..40 {
        std::fs::hard_link(
            &m,
            series
                .join("snapshots")
                .join(format!("{time}-{seq:06}.json")),
        )
        .unwrap();
    }
    assert_eq!(snapshots_explained(&history(&series)), 40);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 12 MB manifest listing 300,000 brokers that all point at one valid part is refused by name
/// before any report is decoded (it was SIGABRT at 3–4 GB).
#[test]
fn a_manifest_listing_one_part_for_300000_brokers_is_refused() {
    let dir = scratch("brokers");
    let series = dir.join("s");
    record(&series, "1");
    let m = manifests(&series).remove(0);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&m).unwrap()).unwrap();
    let part = v["brokers"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .clone();
    let mut brokers = serde_json::Map::new();
    for i in 0..300_000u32 {
        brokers.insert(format!("b{i}:1"), part.clone());
    }
    v["brokers"] = brokers.into();
    let bytes = serde_json::to_vec(&v).unwrap();
    assert!(bytes.len() < 16 << 20);
    std::fs::write(&m, bytes).unwrap();
    let out = history(&series);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let name = m.file_name().unwrap().to_str().unwrap();
    assert!(
        stderr(&out).contains(&format!(
            "snapshots/{name}: the snapshot expands to more than 268435456 bytes"
        )),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn zip_dir(dir: &Path) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut files = vec![];
    for sub in ["", "snapshots", "parts"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                files.push(p);
            }
        }
    }
    files.sort();
    for p in files {
        let rel = p.strip_prefix(dir).unwrap().to_str().unwrap().to_string();
        w.start_file(rel, opts).unwrap();
        w.write_all(&std::fs::read(&p).unwrap()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn patch(bytes: &mut [u8], from: &[u8], to: &[u8]) {
    let mut i = 0;
    while i + from.len() <= bytes.len() {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
        }
        i += 1;
    }
}

/// A zipped series is read member by member: a manifest member that inflates past a manifest's
/// cap (17 MiB of spaces in a few KiB) is refused naming it; two members of one name and two
/// `series.json` are refused naming the zip; the zipped series itself reads.
#[test]
fn zipped_series_members_are_capped_and_named_once() {
    let dir = scratch("zip");
    let series = dir.join("s");
    record(&series, "2");
    let ok = dir.join("ok.zip");
    std::fs::write(&ok, zip_dir(&series)).unwrap();
    assert_eq!(snapshots_explained(&history(&ok)), 2);

    let m = manifests(&series).remove(0);
    let mut text = std::fs::read(&m).unwrap();
    text.extend(std::iter::repeat_n(b' ', 17 << 20));
    std::fs::write(&m, text).unwrap();
    let bomb = dir.join("bomb.zip");
    let bytes = zip_dir(&series);
    assert!(bytes.len() < 1 << 20);
    std::fs::write(&bomb, bytes).unwrap();
    let out = history(&bomb);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let name = m.file_name().unwrap().to_str().unwrap();
    assert!(
        stderr(&out).contains(&format!(
            "snapshots/{name}: more than a manifest may have (16777216 bytes)"
        )),
        "{}",
        stderr(&out)
    );

    // Two manifests of one name: the second's name patched onto the first's.
    let [a, b] = [0, 1].map(|i| {
        manifests(&series)[i]
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string()
    });
    let mut dup = zip_dir(&series);
    patch(&mut dup, b.as_bytes(), a.as_bytes());
    let dup_path = dir.join("dup.zip");
    std::fs::write(&dup_path, dup).unwrap();
    let out = history(&dup_path);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("dup.zip: member snapshots/{a} appears twice")),
        "{}",
        stderr(&out)
    );

    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    for name in ["a/series.json", "b/series.json"] {
        w.start_file(name, opts).unwrap();
        w.write_all(&std::fs::read(series.join("series.json")).unwrap())
            .unwrap();
    }
    let two = dir.join("two.zip");
    std::fs::write(&two, w.finish().unwrap().into_inner()).unwrap();
    let out = history(&two);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("two.zip: holds 2 series.json files (a/series.json, b/series.json)"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A zip member whose header claims 2 GiB is refused from the header, before inflating anything.
#[test]
fn a_zip_member_claiming_gigabytes_is_refused_from_its_header() {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    w.start_file("a.json", opts).unwrap();
    w.write_all(b"{\"zzzz\":1}").unwrap();
    let mut bytes = w.finish().unwrap().into_inner();
    // The uncompressed size (10) in the local and central headers, claimed as 0x7fffffff.
    patch(
        &mut bytes,
        &[10, 0, 0, 0, 6, 0],
        &[0xff, 0xff, 0xff, 0x7f, 6, 0],
    );
    let dir = scratch("claim");
    let path = dir.join("claim.zip");
    std::fs::write(&path, bytes).unwrap();
    let out = history(&path);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("a.json: larger than the cap of 268435456 bytes per file"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--record-series` on a file is exit 2 naming it, before any cycle runs (it was exit 1 "File
/// exists" after the whole run).
#[test]
fn record_series_into_a_file_is_refused_up_front() {
    let dir = scratch("file");
    let file = dir.join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let out = lbplan(&[
        "simulate",
        "builtin:demo",
        "--cycles",
        "2",
        "--no-progress",
        "--record-series",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("{}: is a file, not a directory", file.display())),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A recording of 70 cycles (a batch of 64 and a partial one) leaves 70 manifests and no
/// temporary file; appending a recording of another cluster is refused naming the directory,
/// leaving the series as it was; a batch interrupted before its commit (its manifest still under
/// a temporary name) leaves the committed prefix readable, and the next recording removes it.
#[test]
fn recording_commits_in_batches_and_keeps_one_cluster() {
    let dir = scratch("record");
    let series = dir.join("s");
    record(&series, "70");
    assert_eq!(manifests(&series).len(), 70);
    let leftovers = |sub: &str| {
        std::fs::read_dir(series.join(sub))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_str()
                    .unwrap()
                    .ends_with(".lbplan-tmp")
            })
            .count()
    };
    assert_eq!(leftovers("snapshots") + leftovers("parts"), 0);

    let out = lbplan(&[
        "simulate",
        "builtin:pr-16059",
        "--cycles",
        "2",
        "--no-progress",
        "--record-series",
        series.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("a series records one cluster"),
        "{}",
        stderr(&out)
    );
    assert_eq!(manifests(&series).len(), 70);

    // An interrupted batch: a manifest written but not yet renamed, a part likewise.
    let last = manifests(&series).pop().unwrap();
    std::fs::copy(&last, series.join("snapshots/.x.json.1.1.lbplan-tmp")).unwrap();
    std::fs::write(series.join("parts/.y.json.gz.1.2.lbplan-tmp"), b"half").unwrap();
    assert_eq!(snapshots_explained(&history(&series)), 70);
    record(&series, "1");
    assert_eq!(manifests(&series).len(), 71);
    assert_eq!(leftovers("snapshots") + leftovers("parts"), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--outlook-cycles` beyond its cap (1000) is exit 2 stating the range, on plan and rebalance
/// (4294967295 ran for hours); the cap is in `--help`.
#[test]
fn outlook_cycles_are_capped() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json");
    let demo = demo.to_str().unwrap();
    for cmd in ["plan", "rebalance"] {
        let out = lbplan(&[cmd, demo, "--outlook-cycles", "4294967295"]);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {}", stderr(&out));
        assert!(stderr(&out).contains("0..=1000"), "{cmd}: {}", stderr(&out));
        let help = lbplan(&[cmd, "--help"]);
        let text = String::from_utf8_lossy(&help.stdout);
        assert!(text.contains("0 to 1000"), "{cmd}: {text}");
    }
    let out = lbplan(&["plan", demo, "--outlook-cycles", "1000", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A snapshot naming the namespace `acme/..` (a dot segment: a URL with it reaches another
/// endpoint) is refused at import as the exports refuse it, naming the file and JSON path.
#[test]
fn a_dot_segment_namespace_is_refused_at_import() {
    let dir = scratch("dots");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json");
    let text = std::fs::read_to_string(demo).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let ns = v["namespaces"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let bad = text.replace(&format!("\"{ns}"), "\"acme/..");
    let path = dir.join("dots.json");
    std::fs::write(&path, bad).unwrap();
    let out = lbplan(&["import", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("dots.json"), "{err}");
    assert!(
        err.contains("namespace `..` is not a valid Pulsar name"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A snapshot file captured "after the year 9999" is refused by `history` naming it (it gave
/// negative durations and 4.7e23 bytes moved).
#[test]
fn an_extreme_capture_time_is_refused_naming_the_file() {
    let dir = scratch("time");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(demo).unwrap()).unwrap();
    v["captured_at_ms"] = 0.into();
    std::fs::write(dir.join("a.json"), serde_json::to_vec(&v).unwrap()).unwrap();
    v["captured_at_ms"] = i64::MAX.into();
    std::fs::write(dir.join("b.json"), serde_json::to_vec(&v).unwrap()).unwrap();
    let out = history(&dir);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("b.json: $.captured_at_ms 9223372036854775807 is outside"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A recording killed at an arbitrary moment (here once its first batch is committed, during the
/// next one: `kill -9`, as a crash or a lost machine would end it) leaves a series whose every
/// visible snapshot reads back whole, and the next recording continues it.
#[test]
fn a_recording_killed_mid_batch_leaves_a_readable_series_that_continues() {
    let dir = scratch("killed");
    let series = dir.join("s");
    let mut child = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args([
            "simulate",
            "builtin:demo",
            "--cycles",
            "400",
            "--no-progress",
            "--record-series",
            series.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let committed = |s: &Path| {
        std::fs::read_dir(s.join("snapshots"))
            .map(|d| {
                d.filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .file_name()
                        .to_str()
                        .unwrap()
                        .ends_with(".json")
                })
                .count()
            })
            .unwrap_or(0)
    };
    // Wait (bounded) until the first batch is visible, then a little into the next one.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    while committed(&series) < 64
        && child.try_wait().unwrap().is_none()
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = child.kill();
    let _ = child.wait();
    let visible = manifests(&series).len() as u64;
    assert!(visible >= 64, "{visible} snapshots visible");
    assert_eq!(snapshots_explained(&history(&series)), visible);
    record(&series, "1");
    assert_eq!(manifests(&series).len() as u64, visible + 1);
    assert_eq!(snapshots_explained(&history(&series)), visible + 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A recording that meets a full disk (a small tmpfs, mounted in a private mount namespace so
/// the test needs no privileges it cannot get) stops with exit 1, names the file the disk refused
/// and says how many snapshots the series holds; those all read back, and once space is freed the
/// next recording continues the series.
#[cfg(target_os = "linux")]
#[test]
fn a_recording_that_fills_the_disk_keeps_its_snapshots_and_continues_once_freed() {
    let dir = scratch("full");
    let mnt = dir.join("mnt");
    let out = dir.join("out");
    std::fs::create_dir_all(&mnt).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let bin = env!("CARGO_BIN_EXE_lbplan");
    // Inside the namespace: fill the disk, record until it is full, read back, free, continue.
    let script = format!(
        "mount -t tmpfs -o size=18m tmpfs '{m}' || exit 97
touch '{o}/mounted'
head -c 2000000 /dev/zero > '{m}/filler'
'{bin}' simulate builtin:demo --cycles 400 --no-progress --record-series '{m}/s' \
  > /dev/null 2> '{o}/record.err'; echo $? > '{o}/record.rc'
ls '{m}/s/snapshots' | grep -c 'json$' > '{o}/visible'
'{bin}' history '{m}/s' --format json > '{o}/h1.json' 2> '{o}/h1.err'
rm '{m}/filler'
'{bin}' simulate builtin:demo --cycles 1 --no-progress --record-series '{m}/s' \
  > /dev/null 2> '{o}/again.err'; echo $? > '{o}/again.rc'
'{bin}' history '{m}/s' --format json > '{o}/h2.json' 2> '{o}/h2.err'",
        m = mnt.display(),
        o = out.display(),
    );
    let status = Command::new("unshare")
        .args(["-rm", "sh", "-c", &script])
        .status();
    match status {
        // Not mounted: unshare or mount refused (an unprivileged container), nothing was run.
        Ok(_) if !out.join("mounted").exists() => {
            eprintln!("skipped: this machine does not allow a private tmpfs mount");
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
        Err(e) => {
            eprintln!("skipped: unshare is not available ({e})");
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
        Ok(_) => {}
    }
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    assert_eq!(read("record.rc").trim(), "1", "{}", read("record.err"));
    let err = read("record.err");
    assert!(err.contains("No space left on device"), "{err}");
    let visible: u64 = read("visible").trim().parse().unwrap();
    assert!(
        err.contains(&format!("holds {visible} snapshots, each readable")),
        "{err}"
    );
    // At least one batch of 64 was made durable before the disk filled (18 MiB holds ~130).
    assert!(visible >= 64, "{visible} snapshots visible");
    let count = |name: &str| {
        let v: serde_json::Value = serde_json::from_str(&read(name)).unwrap();
        v["summary"]["snapshots"].as_u64().unwrap()
    };
    assert_eq!(count("h1.json"), visible, "{}", read("h1.err"));
    assert_eq!(read("again.rc").trim(), "0", "{}", read("again.err"));
    assert_eq!(count("h2.json"), visible + 1, "{}", read("h2.err"));
    let _ = std::fs::remove_dir_all(&dir);
}
