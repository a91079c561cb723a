//! What the exported scripts say, line by line where it matters (issues 14.6, 14.7, 22.6): names
//! that would reach another endpoint refuse the export with the decision named, `--` ends
//! pulsar-admin's options, curl sends the path as written with names percent-encoded and gets the
//! token on stdin, shedding is restored by a trap, a drain pins destinations and leaves the
//! heartbeat namespace alone, and each unload first checks the bundle's owner.

use indexmap::IndexMap;
use lbplan_core::act::export::{
    ExportError, ExportOptions, ScriptFormat, export_script, rest_calls,
};
use lbplan_core::config::Profile;
use lbplan_core::model::{
    BrokerSnapshot, BundleData, LocalBrokerData, NamespaceBundleStats, ResourceUsage,
    SNAPSHOT_FORMAT_VERSION, Snapshot, TimeAverageMessageData,
};
use lbplan_core::naming::NameKind;
use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::{PLAN_FORMAT_VERSION, Plan, PlanRequest, PlannedUnload, make_plan};

fn unload(bundle: &str, from: &str, to: &str) -> PlannedUnload {
    PlannedUnload {
        bundle: bundle.into(),
        from: from.into(),
        to: Some(to.into()),
        pass_destination: true,
        reason: lbplan_core::reason::DecisionReason::new(
            lbplan_core::reason::ReasonKind::ManualUnloadToDestination,
        ),
        reason_text: "manual unload to a chosen destinationBroker".into(),
        detail: None,
        bytes_per_sec: 0.0,
        msg_per_sec: 0.0,
        origin: "manual".into(),
    }
}

fn plan_with(unloads: Vec<PlannedUnload>, topics: &[&str]) -> Plan {
    Plan {
        format_version: PLAN_FORMAT_VERSION,
        unloads,
        topic_unloads: topics.iter().map(|t| t.to_string()).collect(),
        ..Plan::default()
    }
}

fn both(plan: &Plan) -> [Result<String, ExportError>; 2] {
    [ScriptFormat::PulsarAdmin, ScriptFormat::Curl]
        .map(|f| export_script(plan, f, ExportOptions::default()))
}

#[test]
fn dot_segments_refuse_the_export_naming_the_decision() {
    // `PUT /admin/v2/namespaces/acme/../0x00000000_0x10000000/unload` reaches
    // `/admin/v2/namespaces/0x00000000_0x10000000/unload`.
    let plan = plan_with(
        vec![
            unload("acme/orders/0x10000000_0x20000000", "b1:8080", "b2:8080"),
            unload("acme/../0x00000000_0x10000000", "b1:8080", "b2:8080"),
        ],
        &[],
    );
    for result in both(&plan) {
        match result.unwrap_err() {
            ExportError::Name { decision, source } => {
                assert_eq!(
                    decision,
                    "unload 2 of 2 (bundle `acme/../0x00000000_0x10000000` from `b1:8080`)"
                );
                assert_eq!(source.kind, NameKind::Namespace);
                assert_eq!(source.value, "..");
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(rest_calls(&plan, ExportOptions::default()).is_err());
}

#[test]
fn topic_climbing_to_another_endpoint_is_refused() {
    // `--op 'unload-topic=persistent://../../x'` became `PUT /admin/x/unload`.
    let plan = plan_with(vec![], &["persistent://../../x"]);
    for result in both(&plan) {
        let e = result.unwrap_err().to_string();
        assert!(
            e.starts_with(
                "refusing to export topic unload 1 of 1 (`persistent://../../x`): tenant `..`"
            ),
            "{e}"
        );
    }
    // The planner refuses the operation itself with the same rule.
    let snap = drain_snapshot();
    let request = PlanRequest {
        operations: vec![Operation::parse("unload-topic=persistent://../../x").unwrap()],
        ..manual(Profile::Pulsar4x)
    };
    let e = make_plan(&snap, &request).unwrap_err().to_string();
    assert!(e.contains("dot segments"), "{e}");
}

#[test]
fn leading_dash_names_are_refused_and_options_end_before_positionals() {
    let plan = plan_with(
        vec![unload("-ns/x/0x00000000_0x10000000", "b1:8080", "b2:8080")],
        &[],
    );
    for result in both(&plan) {
        let e = result.unwrap_err().to_string();
        assert!(
            e.contains("tenant `-ns`") && e.contains("leading `-`"),
            "{e}"
        );
    }
    let plan = plan_with(
        vec![unload("t/ns/0x00000000_0x10000000", "b1:8080", "b2:8080")],
        &["persistent://t/ns/orders-partition-0"],
    );
    let admin = export_script(&plan, ScriptFormat::PulsarAdmin, ExportOptions::default()).unwrap();
    assert!(admin.contains(
        "  if still_owned 't/ns/0x00000000_0x10000000' 'b1:8080'; then\n    lbplan_do \"$PULSAR_ADMIN\" namespaces unload --bundle '0x00000000_0x10000000' --destinationBroker 'b2:8080' -- 't/ns'\n  fi\n"
    ), "{admin}");
    assert!(admin.contains(
        "  lbplan_do \"$PULSAR_ADMIN\" topics unload -- 'persistent://t/ns/orders-partition-0'\n"
    ));
    assert!(admin.contains(
        "owned_bundles() { \"$PULSAR_ADMIN\" brokers namespaces --url \"$1\" -- \"$PULSAR_CLUSTER\"; }"
    ));
}

#[test]
fn ipv6_brokers_export_consistently() {
    // An IPv6 cluster could be collected (`[::1]:8080`) but not exported.
    let plan = plan_with(
        vec![unload(
            "t/ns/0x00000000_0x10000000",
            "[::1]:8080",
            "[::2]:8080",
        )],
        &[],
    );
    let admin = export_script(&plan, ScriptFormat::PulsarAdmin, ExportOptions::default()).unwrap();
    assert!(
        admin.contains("--destinationBroker '[::2]:8080' -- 't/ns'"),
        "{admin}"
    );
    let curl = export_script(&plan, ScriptFormat::Curl, ExportOptions::default()).unwrap();
    assert!(curl.contains(
        "  if still_owned 't/ns/0x00000000_0x10000000' '[::1]:8080' '%5B%3A%3A1%5D%3A8080'; then\n    lbplan_do call PUT '/admin/v2/namespaces/t/ns/0x00000000_0x10000000/unload?destinationBroker=%5B%3A%3A2%5D%3A8080'\n  fi\n"
    ), "{curl}");
}

#[test]
fn curl_sends_the_path_as_written_and_the_token_on_stdin() {
    let plan = plan_with(
        vec![unload("t/ns:1/0x00000000_0x10000000", "b1:8080", "b2:8080")],
        &["persistent://t/ns/a%b"],
    );
    let curl = export_script(&plan, ScriptFormat::Curl, ExportOptions::default()).unwrap();
    assert!(curl.contains(
        "  auth_header | curl -sS -f -L --path-as-is -H @- -X \"$method\" \"$@\" \"$PULSAR_ADMIN_URL$path\"\n"
    ));
    // Names are percent-encoded segments: `:` in a namespace, `%` in a topic's local name.
    assert!(curl.contains("call PUT '/admin/v2/namespaces/t/ns%3A1/0x00000000_0x10000000/unload?destinationBroker=b2%3A8080'"));
    assert!(curl.contains("  lbplan_do call PUT '/admin/v2/persistent/t/ns/a%25b/unload'\n"));
    // The token is read by curl's stdin feeder, never expanded into an argument or a test.
    assert!(curl.contains("    tr -d '\\r\\n' <\"$PULSAR_TOKEN_FILE\"\n"));
    assert!(curl.contains("  elif [ -n \"${PULSAR_TOKEN:+set}\" ]; then\n"));
    assert!(curl.contains("    printenv PULSAR_TOKEN | tr -d '\\r\\n'\n"));
    assert!(!curl.contains("$PULSAR_TOKEN\"") && !curl.contains("AUTH=("));
}

#[test]
fn paused_shedding_is_restored_by_a_trap() {
    let plan = plan_with(
        vec![unload("t/ns/0x00000000_0x10000000", "b1:8080", "b2:8080")],
        &[],
    );
    let opts = ExportOptions {
        pause_automatic_shedding: true,
        i_know: false,
    };
    for format in [ScriptFormat::PulsarAdmin, ScriptFormat::Curl] {
        let s = export_script(&plan, format, opts).unwrap();
        assert!(s.contains("  trap restore_shedding EXIT\n  trap 'exit 130' INT\n  trap 'exit 143' TERM\n  set_shedding false\n"));
        assert!(
            s.contains("apply() {\n  require_cluster\n  pause_shedding\n"),
            "{s}"
        );
        // The previous value: a dynamic override is set back, no override is deleted.
        assert!(s.contains("set_shedding \"$SHEDDING_RESTORE\""));
        assert!(s.contains("    none)\n      unset_shedding"));
    }
    let curl = export_script(&plan, ScriptFormat::Curl, opts).unwrap();
    assert!(curl.contains(
        "unset_shedding() { call DELETE /admin/v2/brokers/configuration/loadBalancerSheddingEnabled; }"
    ));
    assert!(curl.contains("dynamic_config() { call GET /admin/v2/brokers/configuration/values; }"));
}

fn manual(profile: Profile) -> PlanRequest {
    PlanRequest {
        profile: Some(profile),
        leader_cycle: false,
        ..PlanRequest::leader_cycle()
    }
}

fn broker(cpu: f64, bundles: &[&str]) -> BrokerSnapshot {
    let mut local = LocalBrokerData {
        cpu: ResourceUsage::new(cpu, 100.0),
        memory: ResourceUsage::new(0.0, 100.0),
        direct_memory: ResourceUsage::new(0.0, 100.0),
        bandwidth_in: ResourceUsage::new(0.0, 100.0),
        bandwidth_out: ResourceUsage::new(0.0, 100.0),
        broker_version_string: Some("4.0.7".into()),
        ..LocalBrokerData::default()
    };
    let stats: IndexMap<String, NamespaceBundleStats> = bundles
        .iter()
        .map(|n| {
            let s = NamespaceBundleStats {
                msg_rate_in: 100.0,
                msg_rate_out: 100.0,
                msg_throughput_in: 1e6,
                msg_throughput_out: 1e6,
                topics: 2,
                ..NamespaceBundleStats::default()
            };
            (n.to_string(), s)
        })
        .collect();
    local.set_last_stats(stats);
    BrokerSnapshot {
        local_broker_data: local,
        ..BrokerSnapshot::default()
    }
}

/// b1 owns a data bundle and its own heartbeat namespace's bundle; b2 and b3 are idle.
fn drain_snapshot() -> Snapshot {
    let data = "t/ns/0x00000000_0x80000000";
    let heartbeat = "pulsar/b1:8080/0x00000000_0xffffffff";
    let mut s = Snapshot {
        format_version: SNAPSHOT_FORMAT_VERSION,
        ..Snapshot::default()
    };
    s.brokers
        .insert("b1:8080".into(), broker(50.0, &[data, heartbeat]));
    s.brokers.insert("b2:8080".into(), broker(10.0, &[]));
    s.brokers.insert("b3:8080".into(), broker(20.0, &[]));
    let window = |max| TimeAverageMessageData {
        max_samples: max,
        num_samples: max,
        msg_throughput_in: 1e6,
        msg_throughput_out: 1e6,
        msg_rate_in: 100.0,
        msg_rate_out: 100.0,
    };
    for b in [data, heartbeat] {
        s.bundle_data.insert(
            b.into(),
            BundleData {
                short_term_data: window(10),
                long_term_data: window(1000),
                topics: 2,
            },
        );
    }
    s
}

#[test]
fn a_drain_pins_destinations_and_leaves_the_heartbeat_namespace() {
    // The remove-broker script unloaded without destinations while the broker was
    // still live, and moved the broker's own heartbeat namespace.
    let snap = drain_snapshot();
    let request = PlanRequest {
        operations: vec![Operation::parse("remove-broker=b1:8080").unwrap()],
        ..manual(Profile::Pulsar4x)
    };
    let plan = make_plan(&snap, &request).unwrap();
    let data = plan
        .unloads
        .iter()
        .find(|u| u.bundle == "t/ns/0x00000000_0x80000000")
        .expect("the drain moves the data bundle");
    assert_eq!(data.origin, "remove-broker");
    let to = data.to.clone().expect("the plan places the bundle");
    assert_ne!(to, "b1:8080");
    let admin = export_script(&plan, ScriptFormat::PulsarAdmin, ExportOptions::default()).unwrap();
    assert!(
        admin.contains(&format!(
            "\"$PULSAR_ADMIN\" namespaces unload --bundle '0x00000000_0x80000000' --destinationBroker '{to}' -- 't/ns'"
        )),
        "{admin}"
    );
    assert!(!admin.contains("-- 'pulsar/b1:8080'"), "{admin}");
    // The planner moves every bundle of the removed broker; the script leaves the heartbeat one.
    assert!(
        plan.unloads
            .iter()
            .any(|u| u.bundle == "pulsar/b1:8080/0x00000000_0xffffffff")
    );
    assert!(admin.contains(
        "  # not unloading pulsar/b1:8080/0x00000000_0xffffffff from b1:8080: a heartbeat or SLA-monitor namespace stays on its broker\n"
    ));
    let curl = export_script(&plan, ScriptFormat::Curl, ExportOptions::default()).unwrap();
    assert!(curl.contains(&format!(
        "call PUT '/admin/v2/namespaces/t/ns/0x00000000_0x80000000/unload?destinationBroker={}'",
        to.replace(':', "%3A")
    )));
    assert!(!curl.contains("/namespaces/pulsar/"));
}

#[test]
fn heartbeat_and_sla_unloads_are_skipped_in_every_export() {
    let plan = plan_with(
        vec![
            unload("pulsar/b1:8080/0x00000000_0xffffffff", "b1:8080", "b2:8080"),
            unload(
                "sla-monitor/b1:8080/0x00000000_0xffffffff",
                "b1:8080",
                "b2:8080",
            ),
            unload(
                "pulsar/c1/b1:8080/0x00000000_0xffffffff",
                "b1:8080",
                "b2:8080",
            ),
        ],
        &[],
    );
    assert!(
        rest_calls(&plan, ExportOptions::default())
            .unwrap()
            .is_empty()
    );
    let admin = export_script(&plan, ScriptFormat::PulsarAdmin, ExportOptions::default()).unwrap();
    assert!(!admin.contains("namespaces unload --bundle"), "{admin}");
    assert!(admin.contains("  echo 'Nothing to do: the plan has no operations.' >&2\n"));
}
