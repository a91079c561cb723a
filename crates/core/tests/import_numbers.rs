//! Numbers that used to reach a plan as `null` (NaN or ∞ in JSON): a resource
//! usage whose Java-float percentage overflows (Pulsar's `percentUsage` is an f32) and a resource
//! weight of 1e308 are refused at import with the file and path; the largest values still accepted
//! plan with every number finite.

use lbplan_core::import::{ImportInput, import};
use lbplan_core::plan::{PlanRequest, make_plan};
use serde_json::{Value, json};

fn demo() -> Value {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn first_broker(v: &mut Value) -> (String, &mut Value) {
    let brokers = v["brokers"].as_object_mut().unwrap();
    let (name, b) = brokers.iter_mut().next().unwrap();
    (name.clone(), &mut b["local_broker_data"])
}

fn import_err(name: &str, v: &Value) -> String {
    let bytes = serde_json::to_vec(v).unwrap();
    import(&[ImportInput::given(name, bytes)])
        .unwrap_err()
        .to_string()
}

#[test]
fn a_usage_whose_float_percentage_overflows_is_refused_with_its_path() {
    // 1e39 is past a Java float (3.4028235e38): Pulsar's percentUsage gives Infinity.
    let report = json!({"brokerId": "b:8080", "cpu": {"usage": 1e39, "limit": 800.0}});
    assert_eq!(
        import_err("loadbalance/brokers/b:8080", &report),
        "loadbalance/brokers/b:8080: $.cpu.usage: usage 1e39 of limit 800.0 overflows Pulsar's \
         32-bit percentage (a Java float holds at most 3.4028235e38): expected a usage and limit a \
         float can hold"
    );
    // Both fit a float, their ratio does not.
    let mut snap = demo();
    let (name, lbd) = first_broker(&mut snap);
    lbd["bandwidthIn"] = json!({"usage": 3.0e38, "limit": 0.001});
    let e = import_err("snapshot.json", &snap);
    assert!(
        e.starts_with(&format!(
            "snapshot.json: $.brokers[\"{name}\"].local_broker_data.bandwidthIn.usage: usage \
             3e38 of limit 0.001 overflows"
        )),
        "{e}"
    );
}

#[test]
fn a_resource_weight_of_1e308_is_refused_at_import_and_at_plan_time() {
    let conf = "loadBalancerCPUResourceWeight=1e308\n";
    let e = import(&[ImportInput::given("broker.conf", conf.as_bytes())])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("broker.conf: line 1: "), "{e}");
    assert!(
        e.contains("a resource weight between -1000000 and 1000000"),
        "{e}"
    );

    let mut snap = demo();
    snap["broker_conf"]["loadBalancerBandwidthOutResourceWeight"] = json!("1e308");
    let e = import_err("snapshot.json", &snap);
    assert!(
        e.starts_with("snapshot.json: $.broker_conf.loadBalancerBandwidthOutResourceWeight: "),
        "{e}"
    );

    let snapshot = import(&[ImportInput::given(
        "demo.json",
        serde_json::to_vec(&demo()).unwrap(),
    )])
    .unwrap()
    .snapshot;
    let req = PlanRequest {
        settings: vec![("loadBalancerCPUResourceWeight".into(), "1e308".into())],
        ..PlanRequest::leader_cycle()
    };
    let e = make_plan(&snapshot, &req).unwrap_err().to_string();
    assert!(e.contains("loadBalancerCPUResourceWeight"), "{e}");
}

/// The plan's `Option` fields that hold no float (`null` there means absent, not NaN): from
/// `plan/model.rs`, `modular/pipeline.rs`, `modular/leader.rs` and `extensible/`.
const OPTIONAL: [&str; 12] = [
    "note",
    "overloaded_first_choice",
    "acts_at_cycle",
    "outlook",
    "to",
    "broker",
    "choice",
    "available_brokers",
    "placement",
    "cycle_skipped",
    "dest_broker",
    "skip_reason",
];

fn check_numbers(v: &Value, path: &str, bad: &mut Vec<String>) {
    match v {
        Value::Null if !OPTIONAL.iter().any(|k| path.ends_with(&format!(".{k}"))) => {
            bad.push(path.to_string())
        }
        Value::Number(n) if !n.as_f64().is_some_and(f64::is_finite) => bad.push(path.to_string()),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                check_numbers(x, &format!("{path}[{i}]"), bad);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                check_numbers(x, &format!("{path}.{k}"), bad);
            }
        }
        _ => {}
    }
}

#[test]
fn the_largest_accepted_values_plan_without_null_or_nan() {
    let mut snap = demo();
    // A percentage just under a Java float's maximum: 3e36 / 1 × 100 = 3e38.
    let (_, lbd) = first_broker(&mut snap);
    lbd["cpu"] = json!({"usage": 3.0e36, "limit": 1.0});
    lbd["bandwidthIn"] = json!({"usage": 3.0e36, "limit": 1.0});
    for key in [
        "loadBalancerCPUResourceWeight",
        "loadBalancerBandwidthInResourceWeight",
        "loadBalancerMemoryResourceWeight",
    ] {
        snap["broker_conf"][key] = json!("1000000");
    }
    let bytes = serde_json::to_vec(&snap).unwrap();
    let snapshot = import(&[ImportInput::given("extreme.json", bytes)])
        .unwrap()
        .snapshot;
    for class in [
        "org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl",
        "org.apache.pulsar.broker.loadbalance.extensions.ExtensibleLoadManagerImpl",
    ] {
        let req = PlanRequest {
            settings: vec![("loadManagerClassName".into(), class.into())],
            ..PlanRequest::leader_cycle()
        };
        let plan = make_plan(&snapshot, &req).unwrap();
        let json: Value = serde_json::from_str(&serde_json::to_string(&plan).unwrap()).unwrap();
        let mut bad = Vec::new();
        check_numbers(&json, "$", &mut bad);
        assert!(bad.is_empty(), "{class}: null or non-finite at {bad:?}");
    }
}
