//! Scratch: writes plans of several requests on the demo and large synthetic clusters as JSON, to
//! compare two builds byte for byte. `LBPLAN_DUMP_DIR=<dir> cargo bench --bench plan_dump`.

use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::{PlanRequest, make_plan};
use lbplan_core::synthetic::{SyntheticSpec, generate};

/// A named request: settings and operations (text forms).
type Case = (&'static str, Vec<(&'static str, &'static str)>, Vec<String>);

fn main() {
    let Some(dir) = std::env::var_os("LBPLAN_DUMP_DIR") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    for (spec_name, spec) in [
        ("demo", SyntheticSpec::demo()),
        ("large", SyntheticSpec::large()),
    ] {
        let snapshot = generate(&spec, 0).expect("synthetic");
        let ns = snapshot
            .namespaces
            .keys()
            .nth(3)
            .cloned()
            .unwrap_or_default();
        let cases: Vec<Case> = vec![
            ("default", vec![], vec![]),
            (
                "splits",
                vec![
                    ("loadBalancerNamespaceBundleMaxTopics", "3"),
                    ("loadBalancerNamespaceMaximumBundles", "200"),
                ],
                vec![],
            ),
            (
                "outlook",
                vec![("loadBalancerBrokerThresholdShedderPercentage", "60")],
                vec![],
            ),
            (
                "avg",
                vec![
                    ("loadBalancerLoadSheddingStrategy", "AvgShedder"),
                    ("loadBalancerLoadPlacementStrategy", "AvgShedder"),
                ],
                vec![],
            ),
            ("manual", vec![], vec![format!("unload-namespace={ns}")]),
        ];
        for (name, settings, ops) in cases {
            let req = PlanRequest {
                settings: settings
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                operations: ops
                    .iter()
                    .map(|o| Operation::parse(o).expect("op"))
                    .collect(),
                ..PlanRequest::leader_cycle()
            };
            let plan = make_plan(&snapshot, &req).expect("plans");
            let text = serde_json::to_string_pretty(&plan).expect("json");
            std::fs::write(dir.join(format!("{spec_name}-{name}.json")), text).expect("write");
            println!(
                "{spec_name}-{name}: {} unloads, {} splits, {} skipped, outlook {:?}",
                plan.unloads.len(),
                plan.splits.len(),
                plan.skipped.len(),
                plan.outlook.as_ref().map(|o| o.acts_at_cycle)
            );
        }
    }
}
