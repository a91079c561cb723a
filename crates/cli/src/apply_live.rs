//! What `lbplan apply` reads from the cluster, through the shared admin client
//! ([`crate::collect::http`]): the cluster's name, its active brokers, who owns each bundle now
//! (every active broker's `ownedNamespaces`), the `loadBalancerSheddingEnabled` override, and the
//! broker's version (the profile the apply policy compares with the plan's). The
//! paths come from the exports' one list ([`lbplan_core::act::export`]).

use lbplan_core::act::apply::LiveOwners;
use lbplan_core::act::export::{
    RestCall, active_brokers_call, broker_version_call, dynamic_config_call, owned_bundles_call,
    runtime_config_call,
};
use serde_json::Value;

use crate::collect::http::{Client, display_url};
use crate::collect::origins;

/// The admin client and the base URL the paths go under.
pub struct Admin {
    pub client: Client,
    pub base: String,
    pub scheme: String,
    /// Send the credential to the brokers the server lists (`--send-credential-to-brokers`).
    pub credential_to_brokers: bool,
}

impl Admin {
    pub fn url(&self, call: &RestCall) -> String {
        format!("{}{}", self.base, call.path)
    }

    /// A GET, parsed as JSON.
    fn get_json(&self, call: &RestCall) -> Result<Value, String> {
        let url = self.url(call);
        let got = self
            .client
            .get(&url, &|_, _, _| {})
            .map_err(|f| describe_failure(&url, &f))?;
        serde_json::from_slice(&got.body)
            .map_err(|e| format!("GET {}: not JSON ({e})", display_url(&url)))
    }

    /// Sends one call of the plan (PUT, POST or DELETE): `Err` with why when it failed.
    pub fn send(&self, call: &RestCall) -> Result<u16, String> {
        let url = self.url(call);
        self.client
            .send(call.method, &url, call.body.as_deref())
            .map(|f| f.status)
            .map_err(|f| describe_failure(&url, &f))
    }

    /// `clusterName` of the broker behind the admin URL.
    pub fn cluster_name(&self) -> Result<String, String> {
        let conf = self.get_json(&runtime_config_call())?;
        conf.get("clusterName")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or_else(|| {
                "the runtime configuration has no clusterName; pass --cluster".to_string()
            })
    }

    /// The version of the broker behind the admin URL (`pulsar-admin brokers version`): Pulsar
    /// answers the bare string, some proxies a JSON string.
    pub fn broker_version(&self) -> Result<String, String> {
        let url = self.url(&broker_version_call());
        let got = self
            .client
            .get(&url, &|_, _, _| {})
            .map_err(|f| describe_failure(&url, &f))?;
        let text = String::from_utf8_lossy(&got.body);
        let v = text.trim().trim_matches('"').trim();
        if v.is_empty() || v.len() > 100 || v.chars().any(char::is_control) {
            return Err(format!("GET {}: not a version", display_url(&url)));
        }
        Ok(v.to_string())
    }

    /// The active brokers; each becomes an origin requests may be redirected to.
    pub fn active_brokers(&self, cluster: &str) -> Result<Vec<String>, String> {
        let v = self.get_json(&active_brokers_call(cluster))?;
        let brokers: Vec<String> = v
            .as_array()
            .ok_or_else(|| "the active broker list is not a JSON array".to_string())?
            .iter()
            .filter_map(|b| b.as_str().map(str::to_string))
            .collect();
        let found: Vec<_> = brokers
            .iter()
            .filter_map(|b| origins::origin_of_authority(&self.scheme, b))
            .collect();
        if self.credential_to_brokers {
            self.client.allow_credential(found);
        } else {
            self.client.allow_visit(found);
        }
        Ok(brokers)
    }

    /// Who owns each bundle now: the union of the active brokers' `ownedNamespaces`.
    pub fn live_owners(&self, cluster: &str) -> Result<LiveOwners, String> {
        let mut owners = LiveOwners::new();
        for broker in self.active_brokers(cluster)? {
            let v = self.get_json(&owned_bundles_call(cluster, &broker))?;
            let map = v
                .as_object()
                .ok_or_else(|| format!("the bundles owned by {broker} are not a JSON object"))?;
            for bundle in map.keys() {
                owners.insert(bundle.clone(), broker.clone());
            }
        }
        Ok(owners)
    }

    /// The dynamic `loadBalancerSheddingEnabled` override, if any.
    pub fn shedding_override(&self) -> Result<Option<String>, String> {
        let v = self.get_json(&dynamic_config_call())?;
        Ok(v.get("loadBalancerSheddingEnabled").map(|s| match s {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }))
    }
}

fn describe_failure(url: &str, f: &crate::collect::http::Failure) -> String {
    let mut m = format!("{}: {}", display_url(url), f.message);
    if let Some(o) = &f.credential_withheld_from {
        m.push_str(&format!(
            " (the credential was not sent to {o}; allow it with --allow-credential-to or \
             --send-credential-to-brokers)"
        ));
    }
    m
}
