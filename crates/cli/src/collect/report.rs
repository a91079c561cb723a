//! `collect-report.json`: what was fetched (and into which file), what is missing and why, and what
//! the REST API cannot give at all. `lbplan_core::import::collect_report` reads it back and turns
//! each missing item into an import warning; keep the two in step (`FORMAT_VERSION`).

use serde::Serialize;

/// Version of the report's format; bump on incompatible changes (the parser refuses newer ones).
pub const FORMAT_VERSION: u32 = 1;
/// The `kind` tag that tells the importer this file is a collect report.
pub const KIND: &str = "lbplan-collect-report";
/// The report's file name at the root of the output.
pub const FILE_NAME: &str = "collect-report.json";

#[derive(Debug, Serialize)]
pub struct Report {
    pub kind: &'static str,
    pub format_version: u32,
    pub tool: String,
    pub admin_url: String,
    pub credential: &'static str,
    pub collected_at_ms: u64,
    pub elapsed_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    pub clusters: Vec<String>,
    pub brokers: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader: Option<String>,
    /// `modular`, `extensible` or `unknown` (from `loadManagerClassName`).
    pub load_manager: String,
    pub namespaces: Vec<String>,
    pub fetched: Vec<Fetched>,
    pub missing: Vec<Missing>,
    /// Notes that are not gaps (a V1 namespace skipped, keys dropped from broker.conf).
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Fetched {
    pub what: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    pub url: String,
    /// Output files written from this answer.
    pub files: Vec<String>,
    pub attempts: u32,
    pub elapsed_ms: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Missing {
    pub what: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `unauthorized`, `forbidden`, `not_found`, `http_status`, `timeout`, `connect`, `protocol`,
    /// `too_large`, `redirect_refused`, `malformed`, `invalid_name`, `skipped`,
    /// `not_exposed_by_rest_api`.
    pub reason: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    pub message: String,
    /// What the snapshot lacks because of it.
    pub consequence: String,
    /// How to fill the gap by hand (see docs/collecting-snapshots.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how_to_fill: Option<String>,
}

/// The items the REST API never serves, with how to export them from the metadata store.
pub fn not_exposed(extensible: bool) -> Vec<Missing> {
    let item = |what: &'static str, message: &str, consequence: &str, how: &str| Missing {
        what,
        subject: None,
        url: None,
        reason: "not_exposed_by_rest_api",
        http_status: None,
        attempts: None,
        message: message.to_string(),
        consequence: consequence.to_string(),
        how_to_fill: Some(how.to_string()),
    };
    if extensible {
        return vec![
            item(
                "broker_load_data",
                "the extensible load manager keeps BrokerLoadData in the non-persistent topic \
                 non-persistent://pulsar/system/loadbalancer-broker-load-data; broker-stats/load-report \
                 is not supported with it",
                "brokers have no load figures",
                "read the topic with `pulsar-client consume` or `pulsar-admin topics peek-messages` and \
                 save each broker's latest message as <brokerId>.json (docs/collecting-snapshots.md)",
            ),
            item(
                "top_bundles_load_data",
                "TopBundlesLoadData lives in the non-persistent topic \
                 non-persistent://pulsar/system/loadbalancer-top-bundles-load-data",
                "TransferShedder cannot be replayed without each broker's top bundles",
                "read the topic like the broker load data and save each message as <brokerId>.json \
                 (docs/collecting-snapshots.md)",
            ),
        ];
    }
    vec![
        item(
            "bundle_data",
            "BundleData (/loadbalance/bundle-data/<tenant>/<ns>/<range>) is only in the metadata store",
            "bundles without BundleData get Pulsar's defaults (50 msg/s, 50000 B/s) on import",
            "dump /loadbalance/bundle-data with `pulsar zookeeper-shell` (or your metadata store's \
             tool) into loadbalance/bundle-data/ beside this report (docs/collecting-snapshots.md)",
        ),
        item(
            "broker_time_average",
            "TimeAverageBrokerData (/loadbalance/broker-time-average/<brokerId>) is only in the \
             metadata store",
            "the importer recomputes time averages from bundle data",
            "dump /loadbalance/broker-time-average into loadbalance/broker-time-average/ beside this \
             report (docs/collecting-snapshots.md)",
        ),
    ]
}
