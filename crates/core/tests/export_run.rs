//! Runs the exported bash scripts against fake `pulsar-admin` and `curl` executables placed first
//! on PATH. The fakes record each invocation's argv (one line, arguments joined by `|`), answer the
//! reads a script makes (dynamic configuration, owned bundles, in the shapes Pulsar prints) and
//! fail, or send the script SIGTERM, on a chosen command. They prove what the text alone cannot:
//! the trap restores shedding on a failed unload and on TERM, argv and `bash -x` never carry the
//! token, `--` precedes positionals, a bundle whose owner changed is skipped and reported, each
//! step is announced with its owner check, call and result and a summary ends the run, `dry-run`
//! sends nothing, and a stale plan (or one of unknown age) refuses to apply without `--i-know`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lbplan_core::act::export::{ExportOptions, ScriptFormat, export_script};
use lbplan_core::plan::{PLAN_FORMAT_VERSION, Plan, PlannedUnload};

const FAKE_PULSAR_ADMIN: &str = r#"#!/usr/bin/env bash
{ printf 'pulsar-admin'; printf '|%s' "$@"; printf '\n'; } >>"$FAKE_DIR/log"
if [ -n "${FAKE_TERM_ON:-}" ] && [[ "$*" == *"$FAKE_TERM_ON"* ]]; then kill -TERM "$PPID"; exit 0; fi
if [ -n "${FAKE_FAIL_ON:-}" ] && [[ "$*" == *"$FAKE_FAIL_ON"* ]]; then echo "fake failure" >&2; exit 1; fi
case "$1 $2" in
  "brokers get-all-dynamic-config") cat "$FAKE_DIR/dynamic-config" 2>/dev/null || true ;;
  "brokers namespaces") cat "$FAKE_DIR/owned/$4" ;;
  "brokers version") cat "$FAKE_DIR/version" 2>/dev/null || true ;;
esac
"#;

const FAKE_CURL: &str = r#"#!/usr/bin/env bash
{ printf 'curl'; printf '|%s' "$@"; printf '\n'; } >>"$FAKE_DIR/log"
cat >>"$FAKE_DIR/curl-stdin"
url=${!#}
method=GET
prev=
for a in "$@"; do [ "$prev" = -X ] && method=$a; prev=$a; done
if [ -n "${FAKE_FAIL_ON:-}" ] && [[ "$method $url" == *"$FAKE_FAIL_ON"* ]]; then echo "curl: (22) 500" >&2; exit 22; fi
case "$method $url" in
  "GET "*/admin/v2/brokers/configuration/values) cat "$FAKE_DIR/dynamic-config" 2>/dev/null || echo '{}' ;;
  "GET "*/admin/v2/brokers/version) cat "$FAKE_DIR/version" 2>/dev/null || true ;;
  "GET "*/ownedNamespaces) seg=${url%/ownedNamespaces}; seg=${seg##*/}; cat "$FAKE_DIR/owned/$(printf '%b' "${seg//%/\\x}")" ;;
esac
"#;

const TOKEN: &str = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.SIG";

struct Fake {
    dir: PathBuf,
}

impl Fake {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("lbplan-export-run-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("owned")).unwrap();
        for (exe, text) in [("pulsar-admin", FAKE_PULSAR_ADMIN), ("curl", FAKE_CURL)] {
            let path = dir.join("bin").join(exe);
            std::fs::write(&path, text).unwrap();
            make_executable(&path);
        }
        Fake { dir }
    }

    fn file(&self, name: &str, text: &str) {
        std::fs::write(self.dir.join(name), text).unwrap();
    }

    /// What `brokers namespaces` / `ownedNamespaces` returns for `broker`.
    fn owned(&self, broker: &str, text: &str) {
        std::fs::write(self.dir.join("owned").join(broker), text).unwrap();
    }

    fn run(&self, script: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
        let path = self.dir.join("plan.sh");
        std::fs::write(&path, script).unwrap();
        let mut cmd = Command::new("bash");
        cmd.args(args.iter().copied().take_while(|a| a.starts_with('-')))
            .arg(&path)
            .args(args.iter().copied().skip_while(|a| a.starts_with('-')))
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    self.dir.join("bin").display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("FAKE_DIR", &self.dir)
            .env("PULSAR_CLUSTER", "pulsar-cluster")
            .env_remove("PULSAR_TOKEN")
            .env_remove("PULSAR_TOKEN_FILE")
            .env_remove("PULSAR_ADMIN");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            // The profile check's version read is asserted on its own (see
            // `a_plan_of_another_profile_refuses_to_apply_without_i_know`).
            .filter(|l| {
                !l.ends_with("|brokers|version") && !l.ends_with("/admin/v2/brokers/version")
            })
            .collect()
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(not(unix))]
fn make_executable(_: &Path) {}

fn unload(bundle: &str, from: &str, to: &str) -> PlannedUnload {
    PlannedUnload {
        bundle: bundle.into(),
        from: from.into(),
        to: Some(to.into()),
        pass_destination: true,
        reason: lbplan_core::reason::DecisionReason::new(
            lbplan_core::reason::ReasonKind::ThresholdShedder,
        ),
        reason_text: "ThresholdShedder: broker usage above average + threshold".into(),
        detail: None,
        bytes_per_sec: 0.0,
        msg_per_sec: 0.0,
        origin: "shedding".into(),
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Two unloads off b1: `acme/orders` to b2 first, then `globex/clicks` to b3, from a snapshot
/// captured a minute ago (the script's age check lets it through).
fn two_unloads() -> Plan {
    Plan {
        format_version: PLAN_FORMAT_VERSION,
        cluster: Some("pulsar-cluster".into()),
        snapshot_captured_at_ms: Some(now_ms() - 60_000),
        profile: "4.x".into(),
        unloads: vec![
            unload("acme/orders/0x00000000_0x10000000", "b1:8080", "b2:8080"),
            unload("globex/clicks/0x80000000_0x90000000", "b1:8080", "b3:8080"),
        ],
        ..Plan::default()
    }
}

const PAUSE: ExportOptions = ExportOptions {
    pause_automatic_shedding: true,
    i_know: false,
};

/// `pulsar-admin brokers namespaces` output of Pulsar 2.x/3.x (`key    value` per map entry).
const B1_OWNS_BOTH: &str = "acme/orders/0x00000000_0x10000000    NamespaceOwnershipStatus(broker_assignment=shared, is_controlled=false, is_active=true)\n\
globex/clicks/0x80000000_0x90000000    NamespaceOwnershipStatus(broker_assignment=shared, is_controlled=false, is_active=true)\n";

#[test]
fn a_failed_unload_still_restores_shedding() {
    // With `set -e`, one failed unload exited and left loadBalancerSheddingEnabled=false.
    let fake = Fake::new("fail");
    fake.owned("b1:8080", B1_OWNS_BOTH);
    fake.file("dynamic-config", "loadBalancerSheddingEnabled    true\n");
    let script = export_script(&two_unloads(), ScriptFormat::PulsarAdmin, PAUSE).unwrap();
    let out = fake.run(&script, &[], &[("FAKE_FAIL_ON", "namespaces unload")]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        fake.log(),
        [
            "pulsar-admin|brokers|get-all-dynamic-config",
            "pulsar-admin|brokers|update-dynamic-config|--config|loadBalancerSheddingEnabled|--value|false",
            "pulsar-admin|brokers|namespaces|--url|b1:8080|--|pulsar-cluster",
            "pulsar-admin|namespaces|unload|--bundle|0x00000000_0x10000000|--destinationBroker|b2:8080|--|acme/orders",
            "pulsar-admin|brokers|update-dynamic-config|--config|loadBalancerSheddingEnabled|--value|true",
        ]
    );
}

#[test]
fn without_a_previous_override_the_override_is_deleted() {
    // No dynamic override before: putting back "true" would pin a value broker.conf did not set.
    let fake = Fake::new("none");
    fake.owned("b1:8080", B1_OWNS_BOTH);
    let script = export_script(&two_unloads(), ScriptFormat::PulsarAdmin, PAUSE).unwrap();
    let out = fake.run(&script, &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let log = fake.log();
    assert_eq!(
        log.last().map(String::as_str),
        Some("pulsar-admin|brokers|delete-dynamic-config|--config|loadBalancerSheddingEnabled")
    );
    assert_eq!(log.len(), 7, "{log:#?}");
}

#[test]
fn sigterm_restores_shedding_too() {
    let fake = Fake::new("term");
    fake.owned("b1:8080", B1_OWNS_BOTH);
    fake.file(
        "dynamic-config",
        "{\n  \"loadBalancerSheddingEnabled\" : \"false\"\n}\n",
    );
    let script = export_script(&two_unloads(), ScriptFormat::PulsarAdmin, PAUSE).unwrap();
    let out = fake.run(&script, &[], &[("FAKE_TERM_ON", "0x00000000_0x10000000")]);
    assert_eq!(out.status.code(), Some(143), "{out:?}");
    let log = fake.log();
    assert_eq!(
        log.last().map(String::as_str),
        Some(
            "pulsar-admin|brokers|update-dynamic-config|--config|loadBalancerSheddingEnabled|--value|false"
        )
    );
    assert!(
        !log.iter().any(|l| l.contains("0x80000000_0x90000000|")),
        "{log:#?}"
    );
}

#[test]
fn a_bundle_whose_owner_changed_is_skipped_and_reported() {
    let fake = Fake::new("moved");
    // The orders bundle moved to another broker since the snapshot; b1 still owns the other.
    fake.owned(
        "b1:8080",
        "globex/clicks/0x80000000_0x90000000    NamespaceOwnershipStatus(broker_assignment=shared, is_controlled=false, is_active=true)\n\
         xacme/orders/0x00000000_0x10000000    NamespaceOwnershipStatus(broker_assignment=shared, is_controlled=false, is_active=true)\n",
    );
    let script = export_script(&two_unloads(), ScriptFormat::PulsarAdmin, PAUSE).unwrap();
    let out = fake.run(&script, &[], &[]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "SKIPPED acme/orders/0x00000000_0x10000000: b1:8080 does not own it any more"
        ),
        "{stderr}"
    );
    assert!(stderr.contains(
        "1 unload(s) skipped because the bundle moved: acme/orders/0x00000000_0x10000000"
    ));
    let unloads: Vec<String> = fake
        .log()
        .into_iter()
        .filter(|l| l.starts_with("pulsar-admin|namespaces|unload"))
        .collect();
    assert_eq!(
        unloads,
        [
            "pulsar-admin|namespaces|unload|--bundle|0x80000000_0x90000000|--destinationBroker|b3:8080|--|globex/clicks"
        ]
    );
    assert_eq!(
        fake.log().last().map(String::as_str),
        Some("pulsar-admin|brokers|delete-dynamic-config|--config|loadBalancerSheddingEnabled")
    );
}

#[test]
fn curl_never_puts_the_token_in_argv_or_in_the_trace() {
    // The token was in curl's argv (`ps`) and in `bash -x` output.
    let fake = Fake::new("token");
    // The REST answer of GET /admin/v2/brokers/{cluster}/{broker}/ownedNamespaces.
    fake.owned(
        "b1:8080",
        r#"{"acme/orders/0x00000000_0x10000000":{"broker_assignment":"shared","is_controlled":false,"is_active":true},"globex/clicks/0x80000000_0x90000000":{"broker_assignment":"shared","is_controlled":false,"is_active":true}}"#,
    );
    fake.file("token", &format!("{TOKEN}\n"));
    fake.file(
        "dynamic-config",
        // Other dynamic settings may hold credentials: they must not reach the trace either.
        r#"{"brokerClientAuthenticationParameters":"token:OTHER-SECRET","loadBalancerSheddingEnabled":"true"}"#,
    );
    let script = export_script(&two_unloads(), ScriptFormat::Curl, PAUSE).unwrap();
    let token_file = fake.dir.join("token");
    let out = fake.run(
        &script,
        &["-x"],
        &[
            ("PULSAR_ADMIN_URL", "http://broker-1:8080"),
            ("PULSAR_TOKEN_FILE", token_file.to_str().unwrap()),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let log = fake.log();
    assert_eq!(log.len(), 7, "{log:#?}");
    assert_eq!(
        log[3],
        "curl|-sS|-f|-L|--path-as-is|-H|@-|-X|PUT|http://broker-1:8080/admin/v2/namespaces/acme/orders/0x00000000_0x10000000/unload?destinationBroker=b2%3A8080"
    );
    assert_eq!(
        log[6],
        "curl|-sS|-f|-L|--path-as-is|-H|@-|-X|POST|http://broker-1:8080/admin/v2/brokers/configuration/loadBalancerSheddingEnabled/true"
    );
    assert!(
        log.iter()
            .all(|l| !l.contains("secret") && !l.contains(TOKEN))
    );
    let trace = String::from_utf8_lossy(&out.stderr);
    assert!(
        trace.contains("+ curl") || trace.contains("curl -sS"),
        "{trace}"
    );
    assert!(!trace.contains(TOKEN), "{trace}");
    assert!(!trace.contains("OTHER-SECRET"), "{trace}");
    // curl got the header on stdin, once per call.
    let header = format!("Authorization: Bearer {TOKEN}\n");
    // (8: the brokers' version is read too, for the profile check.)
    assert_eq!(fake.read("curl-stdin"), header.repeat(8));

    // The same from the environment.
    let fake = Fake::new("token-env");
    fake.owned("b1:8080", B1_OWNS_BOTH);
    let script =
        export_script(&two_unloads(), ScriptFormat::Curl, ExportOptions::default()).unwrap();
    let out = fake.run(
        &script,
        &["-x"],
        &[
            ("PULSAR_ADMIN_URL", "http://broker-1:8080"),
            ("PULSAR_TOKEN", TOKEN),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains(TOKEN));
    assert!(fake.log().iter().all(|l| !l.contains(TOKEN)));
    assert_eq!(fake.read("curl-stdin"), header.repeat(5));
}

#[test]
fn a_failed_curl_unload_restores_shedding() {
    let fake = Fake::new("curl-fail");
    fake.owned("b1:8080", B1_OWNS_BOTH);
    let script = export_script(&two_unloads(), ScriptFormat::Curl, PAUSE).unwrap();
    let out = fake.run(
        &script,
        &[],
        &[
            ("PULSAR_ADMIN_URL", "http://broker-1:8080"),
            (
                "FAKE_FAIL_ON",
                "PUT http://broker-1:8080/admin/v2/namespaces/acme/orders",
            ),
        ],
    );
    assert_eq!(out.status.code(), Some(22), "{out:?}");
    assert_eq!(
        fake.log().last().map(String::as_str),
        Some(
            "curl|-sS|-f|-L|--path-as-is|-H|@-|-X|DELETE|http://broker-1:8080/admin/v2/brokers/configuration/loadBalancerSheddingEnabled"
        )
    );
}

#[test]
fn without_a_cluster_name_nothing_is_changed() {
    let fake = Fake::new("no-cluster");
    let script = export_script(&two_unloads(), ScriptFormat::PulsarAdmin, PAUSE).unwrap();
    let out = fake.run(&script, &[], &[("PULSAR_CLUSTER", "")]);
    assert_ne!(out.status.code(), Some(0));
    assert!(fake.log().is_empty(), "{:?}", fake.log());
    let out = fake.run(&script, &[], &[("PULSAR_CLUSTER", "../x")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(fake.log().is_empty());
}

#[test]
fn rollback_checks_that_the_destination_still_owns_the_bundle() {
    let fake = Fake::new("rollback");
    // The orders bundle is on b2 as planned; the clicks bundle is not on b3 (it moved again).
    fake.owned(
        "b2:8080",
        "acme/orders/0x00000000_0x10000000    NamespaceOwnershipStatus(broker_assignment=shared, is_controlled=false, is_active=true)\n",
    );
    fake.owned("b3:8080", "");
    let script = export_script(
        &two_unloads(),
        ScriptFormat::PulsarAdmin,
        ExportOptions::default(),
    )
    .unwrap();
    let out = fake.run(&script, &["rollback"], &[]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(
        fake.log(),
        [
            "pulsar-admin|brokers|namespaces|--url|b3:8080|--|pulsar-cluster",
            "pulsar-admin|brokers|namespaces|--url|b2:8080|--|pulsar-cluster",
            "pulsar-admin|namespaces|unload|--bundle|0x00000000_0x10000000|--destinationBroker|b1:8080|--|acme/orders",
        ]
    );
}

#[test]
fn each_step_says_what_it_does_and_a_dry_run_sends_nothing() {
    let fake = Fake::new("steps");
    fake.owned("b1:8080", B1_OWNS_BOTH);
    fake.file("dynamic-config", "loadBalancerSheddingEnabled    true\n");
    let script = export_script(&two_unloads(), ScriptFormat::PulsarAdmin, PAUSE).unwrap();
    assert!(
        script.contains("# Cluster: pulsar-cluster. Snapshot captured "),
        "{script}"
    );
    let out = fake.run(&script, &["dry-run"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.starts_with("Verdict: no change"), "{stderr}");
    assert!(stderr.contains("Cluster: pulsar-cluster\n"), "{stderr}");
    assert!(
        stderr.contains("step 1 of 2: move acme/orders/0x00000000_0x10000000: b1:8080 → b2:8080"),
        "{stderr}"
    );
    assert!(
        stderr.contains("  owner checked: b1:8080 owns acme/orders/0x00000000_0x10000000"),
        "{stderr}"
    );
    assert!(stderr.contains("  dry run, not sent: pulsar-admin namespaces unload --bundle 0x00000000_0x10000000 --destinationBroker b2:8080 -- acme/orders"), "{stderr}");
    assert!(
        stderr.contains("summary (dry run): 2 step(s) listed, nothing sent"),
        "{stderr}"
    );
    // Only reads: the owners, never the shedding setting or an unload.
    assert_eq!(
        fake.log(),
        [
            "pulsar-admin|brokers|namespaces|--url|b1:8080|--|pulsar-cluster",
            "pulsar-admin|brokers|namespaces|--url|b1:8080|--|pulsar-cluster",
        ]
    );

    let fake = Fake::new("steps-run");
    fake.owned("b1:8080", B1_OWNS_BOTH);
    let out = fake.run(&script, &[], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("step 2 of 2: move globex/clicks/0x80000000_0x90000000: b1:8080 → b3:8080"),
        "{stderr}"
    );
    assert!(stderr.contains("  call sent: pulsar-admin namespaces unload --bundle 0x80000000_0x90000000 --destinationBroker b3:8080 -- globex/clicks\n  result: ok"), "{stderr}");
    assert!(
        stderr.contains("summary: 2 of 2 call(s) sent, 0 skipped (bundle moved)"),
        "{stderr}"
    );
}

#[test]
fn a_stale_plan_or_one_of_unknown_age_refuses_to_apply_without_i_know() {
    let three_days = 3 * 86_400_000;
    for (tag, captured) in [("stale", Some(now_ms() - three_days)), ("unknown", None)] {
        let fake = Fake::new(tag);
        fake.owned("b1:8080", B1_OWNS_BOTH);
        let plan = Plan {
            snapshot_captured_at_ms: captured,
            ..two_unloads()
        };
        let script = export_script(&plan, ScriptFormat::Curl, PAUSE).unwrap();
        let out = fake.run(&script, &[], &[("PULSAR_ADMIN_URL", "http://admin:8080")]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{tag}: {stderr}");
        assert!(stderr.contains("refusing to apply"), "{tag}: {stderr}");
        assert!(
            fake.log().is_empty(),
            "{tag}: nothing was called: {:?}",
            fake.log()
        );
        if captured.is_some() {
            assert!(
                stderr.contains("s old, over the limit of 900 s (LBPLAN_MAX_AGE)"),
                "{stderr}"
            );
            // A longer limit, or the acknowledgement, lets it run.
            let out = fake.run(
                &script,
                &[],
                &[
                    ("PULSAR_ADMIN_URL", "http://admin:8080"),
                    ("LBPLAN_MAX_AGE", "400000"),
                ],
            );
            assert_eq!(out.status.code(), Some(0), "{:?}", out);
        } else {
            assert!(
                stderr.contains("does not say when its snapshot was captured"),
                "{stderr}"
            );
        }
        let fake = Fake::new(&format!("{tag}-iknow"));
        fake.owned("b1:8080", B1_OWNS_BOTH);
        // (`apply` first: the helper hands leading dashes to bash itself.)
        let out = fake.run(
            &script,
            &["apply", "--i-know"],
            &[("PULSAR_ADMIN_URL", "http://admin:8080")],
        );
        assert_eq!(out.status.code(), Some(0), "{tag}: {out:?}");
        // A rollback is never refused.
        let out = fake.run(
            &script,
            &["rollback"],
            &[("PULSAR_ADMIN_URL", "http://admin:8080")],
        );
        assert!(!String::from_utf8_lossy(&out.stderr).contains("refusing to apply"));
    }
}

#[test]
fn a_plan_of_another_profile_refuses_to_apply_without_i_know() {
    // The plan was made with the 4.x profile; the brokers run Pulsar 3.0.6 (`pulsar-admin brokers
    // version` prints the bare version; the REST answer is the same string).
    for format in [ScriptFormat::PulsarAdmin, ScriptFormat::Curl] {
        let fake = Fake::new(&format!("profile-{format:?}"));
        fake.owned("b1:8080", B1_OWNS_BOTH);
        fake.file("version", "3.0.6\n");
        let script = export_script(&two_unloads(), format, PAUSE).unwrap();
        let env = [("PULSAR_ADMIN_URL", "http://admin:8080")];
        let out = fake.run(&script, &[], &env);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{format:?}: {stderr}");
        assert!(
            stderr.contains("Cluster's version: 3.0.6 (release 3.0.6)"),
            "{stderr}"
        );
        assert!(
            stderr.contains(
                "HAZARD: the plan was made with the 4.x profile, the cluster's version is 3.0.6: re-plan with --profile 3.0.6"
            ),
            "{stderr}"
        );
        assert!(
            fake.log().is_empty(),
            "nothing else was called: {:?}",
            fake.log()
        );
        // The dry run shows the hazard and goes on (it sends nothing).
        let out = fake.run(&script, &["dry-run"], &env);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("HAZARD: the plan was made with the 4.x profile")
        );
        // Acknowledged, it runs.
        let out = fake.run(&script, &["apply", "--i-know"], &env);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(
            fake.log().iter().any(|l| l.contains("unload")),
            "{:?}",
            fake.log()
        );
        // The plan's own release (4.x is 4.0.14), a release this build's table does not know, or
        // a version that cannot be read, passes (the last two said).
        for (version, says) in [
            ("4.0.14\n", "Cluster's version: 4.0.14 (release 4.0.14)"),
            (
                "9.9.9\n",
                "Cluster's version: 9.9.9, a release this plan's table does not know: the profile is not checked",
            ),
            (
                "",
                "cannot read the brokers' version: the plan's profile is not checked",
            ),
        ] {
            let fake = Fake::new(&format!("profile-ok-{format:?}-{}", version.len()));
            fake.owned("b1:8080", B1_OWNS_BOTH);
            fake.file("version", version);
            let out = fake.run(&script, &[], &env);
            assert_eq!(out.status.code(), Some(0), "{out:?}");
            assert!(
                String::from_utf8_lossy(&out.stderr).contains(says),
                "{out:?}"
            );
        }
    }
}
