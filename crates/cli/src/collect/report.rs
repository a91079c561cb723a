//! `collect-report.json`: the report's type is core's (`lbplan_core::import::collect_report`), so what
//! `lbplan collect` writes is what `lbplan import` reads; here is only what the collector knows on its
//! own: the items the REST API never serves.

pub use lbplan_core::import::collect_report::{
    CollectReport as Report, FILE_NAME, FORMAT_VERSION, Fetched, KIND, Missing,
};

/// The items the REST API never serves, with how to export them from the metadata store.
pub fn not_exposed(extensible: bool) -> Vec<Missing> {
    let item = |what: &'static str, message: &str, consequence: &str, how: &str| Missing {
        what: what.into(),
        subject: None,
        url: None,
        reason: "not_exposed_by_rest_api".into(),
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
