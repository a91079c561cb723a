//! The namespaces list's rows name the policies placement follows: the isolation policy that
//! governs a namespace (Pulsar's first full-regex match) and its anti-affinity group.

use lbplan_core::model::{AutoFailoverPolicy, NamespaceIsolationPolicy};
use lbplan_web::state::Loaded;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn rows_name_isolation_policies_and_anti_affinity_groups() {
    let mut snapshot = lbplan_core::synthetic::demo().unwrap();
    // `acme/.*` matches both acme namespaces as a whole string; `globex/tele` matches nothing
    // (not a prefix match: Java's String.matches).
    for (name, ns) in [("acme-isolated", "acme/.*"), ("partial", "globex/tele")] {
        snapshot.namespace_isolation_policies.insert(
            name.to_string(),
            NamespaceIsolationPolicy {
                namespaces: vec![ns.to_string()],
                primary: vec!["broker-0[0-1].*".to_string()],
                secondary: Vec::new(),
                auto_failover_policy: Some(AutoFailoverPolicy {
                    policy_type: "min_available".to_string(),
                    // Both parameters are required (`MinAvailablePolicy` parses both).
                    parameters: [("min_limit", "1"), ("usage_threshold", "80")]
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                }),
            },
        );
    }
    snapshot
        .namespaces
        .get_mut("initech/billing")
        .unwrap()
        .anti_affinity_group = Some("billing".to_string());
    let loaded = Loaded::new(snapshot, "test".into(), Vec::new());
    let row = |ns: &str| {
        loaded
            .namespaces
            .iter()
            .find(|r| r.namespace == ns)
            .unwrap()
    };
    assert_eq!(
        row("acme/orders").isolation_policy.as_deref(),
        Some("acme-isolated")
    );
    assert_eq!(
        row("acme/payments").isolation_policy.as_deref(),
        Some("acme-isolated")
    );
    assert_eq!(row("globex/telemetry").isolation_policy, None);
    assert_eq!(
        row("initech/billing").anti_affinity_group.as_deref(),
        Some("billing")
    );
    assert_eq!(row("globex/telemetry").anti_affinity_group, None);
}

/// Built in slices between the page's tasks (`Loaded::build`, as a snapshot imported in the worker
/// is shown), the demo has the same map and namespace rows as built in one go.
#[wasm_bindgen_test]
async fn built_in_slices_the_demo_has_the_same_map_and_rows() {
    let snapshot = lbplan_core::synthetic::demo().unwrap();
    let whole = Loaded::new(snapshot.clone(), "test".into(), Vec::new());
    let (sliced, stats) = Loaded::build(99, snapshot, "test".into(), Vec::new()).await;
    assert!(stats.slices >= 2, "{stats:?}");
    assert_eq!(*sliced.map, *whole.map);
    assert_eq!(sliced.namespaces, whole.namespaces);
    assert_eq!(sliced.bundle_count, whole.bundle_count);
    // Not the same load: a new id.
    assert_ne!(sliced, whole);
}
