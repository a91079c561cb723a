//! `broker.conf` from `GET /admin/v2/brokers/configuration/runtime` (one broker's effective
//! settings, every value Java's `String.valueOf`) with the cluster-wide dynamic overrides of
//! `/configuration/values` applied on top. Only the keys the planner reads (and `clusterName`) are
//! written: the runtime configuration also holds passwords and client credentials.

use indexmap::IndexMap;
use lbplan_core::config::{ConfigType, LoadBalancerConfig};

pub struct BrokerConf {
    pub text: String,
    /// Keys left out because the planner does not read them.
    pub dropped: usize,
    /// Keys whose value could not be understood (key, value, why).
    pub rejected: Vec<(String, String, String)>,
    /// Keys whose dynamic override differs from the runtime value.
    pub overridden: Vec<String>,
}

/// Java's `String.valueOf` of a setting, back to `broker.conf` text: `null` → unset,
/// `Optional.empty` → empty, `Optional[x]` → x, `[a, b]` (a collection) → `a,b`.
fn conf_text(ty: ConfigType, raw: &str) -> Option<String> {
    let t = raw.trim();
    if t == "null" {
        return None;
    }
    if t == "Optional.empty" {
        return Some(String::new());
    }
    if let Some(inner) = t
        .strip_prefix("Optional[")
        .and_then(|s| s.strip_suffix(']'))
    {
        return Some(inner.to_string());
    }
    if ty == ConfigType::List
        && let Some(inner) = t.strip_prefix('[').and_then(|s| s.strip_suffix(']'))
    {
        let items: Vec<&str> = inner
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        return Some(items.join(","));
    }
    Some(t.to_string())
}

pub fn build(
    runtime: Option<&IndexMap<String, String>>,
    dynamic: Option<&IndexMap<String, String>>,
    source: &str,
) -> BrokerConf {
    let mut merged: IndexMap<&str, &str> = IndexMap::new();
    let mut overridden = Vec::new();
    for (k, v) in runtime.into_iter().flatten() {
        merged.insert(k, v);
    }
    for (k, v) in dynamic.into_iter().flatten() {
        if merged.get(k.as_str()).is_some_and(|old| old != v) {
            overridden.push(k.clone());
        }
        merged.insert(k, v);
    }
    let mut lines = vec![
        format!("# Collected by lbplan collect from {source}"),
        "# (GET /admin/v2/brokers/configuration/runtime, overridden by /configuration/values)."
            .to_string(),
        "# Only load-balancing keys and clusterName are kept: other keys may hold secrets."
            .to_string(),
    ];
    if let Some(c) = merged.get("clusterName") {
        lines.push(format!("clusterName={}", c.trim()));
    }
    let mut scratch = LoadBalancerConfig::pulsar_4x();
    let mut rejected = Vec::new();
    let mut kept = 0usize;
    for (key, ty) in LoadBalancerConfig::KEYS {
        let Some(raw) = merged.get(key) else {
            continue;
        };
        let Some(text) = conf_text(*ty, raw) else {
            continue;
        };
        if text.contains('\n') || text.contains('\r') {
            rejected.push((
                key.to_string(),
                raw.to_string(),
                "spans several lines".to_string(),
            ));
            continue;
        }
        match scratch.set_text(key, &text) {
            Ok(_) => {
                lines.push(format!("{key}={text}"));
                kept += 1;
            }
            Err(e) => rejected.push((key.to_string(), raw.to_string(), e.to_string())),
        }
    }
    let known = kept + rejected.len() + usize::from(merged.contains_key("clusterName"));
    let dropped = merged.len().saturating_sub(known);
    let mut text = lines.join("\n");
    text.push('\n');
    BrokerConf {
        text,
        dropped,
        rejected,
        overridden,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn keeps_load_balancing_keys_only() {
        let rt = map(&[
            ("clusterName", "standalone"),
            ("loadBalancerSheddingEnabled", "true"),
            ("loadBalancerSheddingExcludedNamespaces", "[a/b, c/d]"),
            ("brokerClientAuthenticationParameters", "token:SECRET"),
            ("loadBalancerBrokerMaxTopics", "lots"),
            ("loadBalancerOverrideBrokerNicSpeedGbps", "Optional.empty"),
        ]);
        let dy = map(&[("loadBalancerSheddingEnabled", "false")]);
        let c = build(Some(&rt), Some(&dy), "http://a:8080");
        assert!(c.text.contains("clusterName=standalone\n"));
        assert!(c.text.contains("loadBalancerSheddingEnabled=false\n"));
        assert!(
            c.text
                .contains("loadBalancerSheddingExcludedNamespaces=a/b,c/d\n")
        );
        assert!(!c.text.contains("SECRET"));
        assert_eq!(
            c.overridden,
            vec!["loadBalancerSheddingEnabled".to_string()]
        );
        assert_eq!(c.rejected.len(), 1);
        assert_eq!(c.dropped, 1);
    }
}
