//! Inputs from the file system, shared by `lbplan import` and `lbplan plan`: paths are recognised
//! relative to the directory the user gave (a dump under a folder named `admin` imports the same),
//! and `lbplan plan` takes anything the importer takes (a directory, a .zip, one load report, a
//! snapshot), with warnings on stderr and errors naming file and JSON path (exit 2).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/import_corpus")
}

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("run lbplan")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lbplan-input-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn import_stdout(dir: &Path) -> Vec<u8> {
    let o = lbplan(&["import", "-q", dir.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}: {}",
        dir.display(),
        stderr(&o)
    );
    o.stdout
}

#[test]
fn a_dump_under_a_folder_named_admin_imports_the_same() {
    let fixture = corpus().join("metadata-store");
    let expected = import_stdout(&fixture);
    let snapshot: serde_json::Value = serde_json::from_slice(&expected).unwrap();
    // What the fixture's conf/broker.conf and topics/ give: both were lost when the full path was
    // matched (`…/admin/snap/conf/broker.conf` looked like an `admin/` metadata node).
    assert_eq!(snapshot["cluster"], "pulsar-prod");
    assert_eq!(
        snapshot["broker_conf"]["loadBalancerBrokerOverloadedThresholdPercentage"],
        "80"
    );

    let base = temp_dir("admin");
    // `/home/admin/snap`: the dump in a folder below one named `admin`.
    let under_admin = base.join("admin").join("snap");
    copy_tree(&fixture, &under_admin);
    assert_eq!(import_stdout(&under_admin), expected);
    // `…/loadbalance/snap`: same with the other node name.
    let under_lb = base.join("loadbalance").join("snap");
    copy_tree(&fixture, &under_lb);
    assert_eq!(import_stdout(&under_lb), expected);
    // A folder itself named `admin` that holds the whole dump.
    let named_admin = base.join("other").join("admin");
    copy_tree(&fixture, &named_admin);
    assert_eq!(import_stdout(&named_admin), expected);

    // Messages still name the full path of the file.
    let o = lbplan(&["import", under_admin.to_str().unwrap()]);
    let err = stderr(&o);
    let shown = under_admin.join("admin/partitioned-topics");
    assert!(
        err.contains(&format!("warning: {}", shown.display())),
        "{err}"
    );
    std::fs::remove_dir_all(&base).ok();
}

#[test]
fn a_metadata_node_given_alone_is_recognised_by_its_name() {
    let base = temp_dir("node");
    let lb = base.join("loadbalance");
    copy_tree(&corpus().join("metadata-store/loadbalance"), &lb);
    let o = lbplan(&["import", lb.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let brokers: Vec<&String> = s["brokers"].as_object().unwrap().keys().collect();
    assert_eq!(brokers, ["10.0.0.1:8080", "10.0.0.2:8080"]);
    assert_eq!(s["leader_broker"], "10.0.0.1:8080");
    // No "broker named after its file" warning: the path told the broker.
    assert!(!stderr(&o).contains("named `"), "{}", stderr(&o));
    std::fs::remove_dir_all(&base).ok();
}

fn plan_json(input: &Path) -> (serde_json::Value, String) {
    let o = lbplan(&["plan", input.to_str().unwrap(), "--format", "json"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{}: {err}", input.display());
    (serde_json::from_slice(&o.stdout).unwrap(), err)
}

fn zip_dir(dir: &Path, out: &Path) {
    fn walk(root: &Path, dir: &Path, w: &mut zip::ZipWriter<std::fs::File>) {
        let mut children: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        children.sort();
        for c in children {
            if c.is_dir() {
                walk(root, &c, w);
            } else {
                let name = c
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                w.start_file(name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                w.write_all(&std::fs::read(&c).unwrap()).unwrap();
            }
        }
    }
    let mut w = zip::ZipWriter::new(std::fs::File::create(out).unwrap());
    walk(dir, dir, &mut w);
    w.finish().unwrap();
}

#[test]
fn plan_reads_whatever_import_reads() {
    let base = temp_dir("plan");
    let dir = corpus().join("metadata-store");

    // A directory: warnings on stderr, one line each, naming file and place.
    let (from_dir, err) = plan_json(&dir);
    let lines: Vec<&str> = err.lines().collect();
    assert!(!lines.is_empty());
    assert!(lines.iter().all(|l| l.starts_with("warning: ")), "{err}");
    let unknown = format!(
        "warning: {}: $: unknown field `fooBar` ignored",
        corpus().join("warnings/unknown-field.json").display()
    );
    let (_, err_one) = plan_json(&corpus().join("warnings/unknown-field.json"));
    assert!(err_one.lines().any(|l| l == unknown), "{err_one}");

    // The snapshot `lbplan import` writes, and a .zip of the tree: the same plan.
    let snap = base.join("snapshot.json");
    let o = lbplan(&[
        "import",
        "-q",
        dir.to_str().unwrap(),
        "-o",
        snap.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (from_snapshot, err_snap) = plan_json(&snap);
    assert_eq!(from_snapshot, from_dir);
    assert!(
        err_snap.is_empty(),
        "a snapshot imports cleanly: {err_snap}"
    );
    let zip = base.join("dump.zip");
    zip_dir(&dir, &zip);
    let (from_zip, _) = plan_json(&zip);
    assert_eq!(from_zip, from_dir);

    // One load report (Pulsar's LocalBrokerDataTest JSON).
    let (one, _) = plan_json(&corpus().join("reports/LocalBrokerDataTest.json"));
    assert!(one.is_object());

    // Bad input: exit 2, file, JSON path and expectation.
    let bad = corpus().join("malformed/wrong-type.json");
    let o = lbplan(&["plan", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!(
            "error: {}: $.cpu.limit: expected a number, found the string \"eight hundred\"",
            bad.display()
        )),
        "{}",
        stderr(&o)
    );
    let o = lbplan(&["plan", "/nonexistent/lbplan-snapshot.json"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&base).ok();
}
