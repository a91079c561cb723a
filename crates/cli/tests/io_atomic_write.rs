//! An output file is written whole or not at all. A full disk is simulated without
//! root by the file-size limit (`ulimit -f`, RLIMIT_FSIZE; SIGXFSZ ignored so the write fails with
//! EFBIG instead of killing the process): writing the first few KiB succeeds, then the write fails
//! half-way, exactly as on a disk that fills up. `lbplan import snap.json -o snap.json` used to leave
//! `snap.json` truncated to what fitted.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The dashboard's demo snapshot (150 KB): every output below is far over the limit.
fn demo_snapshot() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json")
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lbplan-io-atomic-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs lbplan with files limited to 8 blocks (4 KiB with dash's 512-byte blocks, 8 KiB with
/// bash's): the shell ignores SIGXFSZ, which `exec` keeps, and sets the limit.
fn lbplan_on_a_full_disk(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 8 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("run lbplan under sh")
}

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("run lbplan")
}

/// The command fails with exit 1 naming the file, the old file is byte-identical and no temporary
/// file is left beside it.
fn assert_kept(out: &Output, dir: &Path, target: &Path, old: &[u8]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("error: {}: ", target.display())),
        "{stderr}"
    );
    assert!(
        std::fs::read(target).unwrap() == old,
        "{} changed",
        target.display()
    );
    let left = names(dir);
    assert!(
        left.iter().all(|n| !n.contains("lbplan-tmp")),
        "temporary file left: {left:?}"
    );
}

#[test]
fn import_over_its_own_input_on_a_full_disk_keeps_the_input() {
    let dir = temp_dir("import");
    let snap = dir.join("snap.json");
    std::fs::copy(demo_snapshot(), &snap).unwrap();
    let old = std::fs::read(&snap).unwrap();
    let p = snap.to_str().unwrap();
    let out = lbplan_on_a_full_disk(&["import", "-q", p, "-o", p]);
    assert_kept(&out, &dir, &snap, &old);
    // Without the limit the same command succeeds and the file is a snapshot again.
    let out = lbplan(&["import", "-q", p, "-o", p]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&snap).unwrap()).unwrap();
    assert_eq!(written["format_version"], 1);
    assert_eq!(written["cluster"], "demo");
    assert_eq!(names(&dir), ["snap.json"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn plan_simulate_and_generate_outputs_survive_a_full_disk() {
    let dir = temp_dir("others");
    let snap = demo_snapshot();
    let s = snap.to_str().unwrap();
    let cases: [(&str, Vec<&str>); 3] = [
        ("plan.json", vec!["plan", s, "--format", "json"]),
        (
            "sim.json",
            vec![
                "simulate",
                "builtin:demo",
                "--cycles",
                "2",
                "--format",
                "json",
                "--broker-usage",
            ],
        ),
        ("generated.json", vec!["generate", "--spec", "demo"]),
    ];
    for (name, args) in cases {
        let target = dir.join(name);
        let old = format!("previous {name}, must survive\n")
            .repeat(50)
            .into_bytes();
        std::fs::write(&target, &old).unwrap();
        let mut args = args.clone();
        let t = target.to_str().unwrap();
        args.extend(["-o", t]);
        let out = lbplan_on_a_full_disk(&args);
        assert_kept(&out, &dir, &target, &old);
    }
    std::fs::remove_dir_all(&dir).ok();
}
