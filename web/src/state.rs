//! The dashboard's state (a `use_reducer` store) and the rows it shows, derived from a snapshot
//! through `lbplan-core` only: usages and weighted maxima come from the core's Pulsar arithmetic,
//! never recomputed here.

use std::collections::HashMap;
use std::rc::Rc;

use lbplan_core::config::{LoadBalancerConfig, Profile};
use lbplan_core::model::{LocalBrokerData, SNAPSHOT_FORMAT_VERSION, Snapshot};
use lbplan_core::naming::parse_bundle_name;
use lbplan_core::units::ResourceWeights;
use yew::Reducible;

/// Where the dashboard loads its demo cluster from (relative, so it works under any base path).
pub const DEMO_SNAPSHOT_URL: &str = "static/demo-snapshot.json";

/// One row of the brokers table.
#[derive(Clone, Debug, PartialEq)]
pub struct BrokerRow {
    pub broker: String,
    /// `getMaxResourceUsageWithWeight` × 100, with the profile's (and `broker.conf`'s) weights.
    pub weighted_max_usage_pct: f64,
    pub cpu_pct: f64,
    pub bandwidth_in_pct: f64,
    pub bandwidth_out_pct: f64,
    pub msg_rate_in: f64,
    pub msg_rate_out: f64,
    /// In + out, bytes per second.
    pub msg_throughput_bytes_per_sec: f64,
    pub bundle_count: usize,
    pub version: String,
}

impl BrokerRow {
    pub fn new(broker: &str, local: &LocalBrokerData, weights: &ResourceWeights) -> Self {
        Self {
            broker: broker.to_string(),
            weighted_max_usage_pct: local.max_resource_usage_with_weight(weights) * 100.0,
            cpu_pct: local.cpu.percent_usage(),
            bandwidth_in_pct: local.bandwidth_in.percent_usage(),
            bandwidth_out_pct: local.bandwidth_out.percent_usage(),
            msg_rate_in: local.msg_rate_in,
            msg_rate_out: local.msg_rate_out,
            msg_throughput_bytes_per_sec: local.total_msg_throughput(),
            bundle_count: local.last_stats.len().max(local.bundles.len()),
            version: local.broker_version_string.clone().unwrap_or_default(),
        }
    }
}

/// One row of the namespaces list.
#[derive(Clone, Debug, PartialEq)]
pub struct NamespaceRow {
    pub namespace: String,
    pub bundle_count: i32,
    /// Topic names exported for the namespace when present, else the sum of its bundles' topics.
    pub topics: i64,
    /// `pulsar/<host:port>`: a broker's heartbeat namespace.
    pub heartbeat: bool,
}

/// A loaded snapshot and everything derived from it for display.
#[derive(Clone, Debug, PartialEq)]
pub struct Dashboard {
    pub snapshot: Rc<Snapshot>,
    pub profile: Profile,
    pub config: LoadBalancerConfig,
    /// Things the user should know (unknown `broker.conf` keys, values that did not parse).
    pub warnings: Vec<String>,
    pub brokers: Vec<BrokerRow>,
    pub namespaces: Vec<NamespaceRow>,
}

impl Dashboard {
    /// Parses a snapshot file (`format_version` checked) and derives the rows.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let snapshot: Snapshot =
            serde_json::from_str(text).map_err(|e| format!("the snapshot is not valid: {e}"))?;
        if snapshot.format_version != SNAPSHOT_FORMAT_VERSION {
            return Err(format!(
                "snapshot format_version {} is not supported (this dashboard reads {})",
                snapshot.format_version, SNAPSHOT_FORMAT_VERSION
            ));
        }
        Ok(Self::from_snapshot(snapshot))
    }

    /// Derives the rows of a snapshot: profile from the first `brokerVersionString`, configuration
    /// from the profile's defaults overlaid with the snapshot's `broker.conf`.
    pub fn from_snapshot(snapshot: Snapshot) -> Self {
        let mut warnings = Vec::new();
        let version = snapshot
            .brokers
            .values()
            .find_map(|b| b.local_broker_data.broker_version_string.as_deref());
        let profile = match version {
            Some(v) => Profile::from_broker_version(v),
            None => {
                warnings.push("no broker reports a brokerVersionString; assuming 4.x".to_string());
                Profile::Pulsar4x
            }
        };
        let mut config = LoadBalancerConfig::for_profile(profile);
        for (key, value) in &snapshot.broker_conf {
            match config.set_text(key, value) {
                Ok(true) => {}
                Ok(false) => {
                    warnings.push(format!("broker.conf: `{key}` is not a load-balancing key"))
                }
                Err(e) => warnings.push(format!("broker.conf: {e}")),
            }
        }
        let weights = config.resource_weights();
        let brokers = snapshot
            .brokers
            .iter()
            .map(|(id, b)| BrokerRow::new(id, &b.local_broker_data, &weights))
            .collect();
        let namespaces = namespace_rows(&snapshot);
        Self {
            snapshot: Rc::new(snapshot),
            profile,
            config,
            warnings,
            brokers,
            namespaces,
        }
    }

    pub fn cluster_name(&self) -> &str {
        self.snapshot
            .cluster
            .as_deref()
            .unwrap_or("(unnamed cluster)")
    }
}

fn namespace_rows(snapshot: &Snapshot) -> Vec<NamespaceRow> {
    let mut topics_by_ns: HashMap<String, i64> = HashMap::new();
    for (name, data) in &snapshot.bundle_data {
        if let Ok(b) = parse_bundle_name(name) {
            *topics_by_ns.entry(b.namespace).or_default() += i64::from(data.topics);
        }
    }
    snapshot
        .namespaces
        .iter()
        .map(|(name, ns)| NamespaceRow {
            namespace: name.clone(),
            bundle_count: ns.bundles.num_bundles,
            topics: match &ns.topics {
                Some(list) => i64::try_from(list.len()).unwrap_or(i64::MAX),
                None => topics_by_ns.get(name).copied().unwrap_or(0),
            },
            heartbeat: is_heartbeat(name),
        })
        .collect()
}

/// `pulsar/<host:port>` (V2 name) or `pulsar/<cluster>/<host:port>` (V1): shown last and greyed.
fn is_heartbeat(namespace: &str) -> bool {
    namespace
        .strip_prefix("pulsar/")
        .is_some_and(|rest| rest.rsplit('/').next().is_some_and(|h| h.contains(':')))
}

/// What the page shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Status {
    #[default]
    Loading,
    Loaded(Rc<Dashboard>),
    Failed(String),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppState {
    pub status: Status,
}

pub enum Action {
    /// The snapshot file arrived (its text) or could not be fetched (why), from `source`.
    Fetched {
        source: String,
        result: Result<String, String>,
    },
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let status = match action {
            Action::Fetched { source, result } => {
                match result.and_then(|t| Dashboard::from_json(&t)) {
                    Ok(d) => Status::Loaded(Rc::new(d)),
                    Err(e) => Status::Failed(format!("Could not load {source}: {e}")),
                }
            }
        };
        Rc::new(AppState { status })
    }
}
