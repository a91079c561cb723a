//! How admin API answers become files of the importer's metadata-store layout (its paths are core's
//! `import::store_layout`, the module the importer recognises them with), and the checks that an
//! answer has the shape Pulsar gives (anything else is reported as malformed). Answers are written byte for byte as received, so numbers keep their exact text.

use indexmap::IndexMap;
use lbplan_core::typed_json::kind_of as describe;
use serde_json::{Map, Value};

pub use lbplan_core::import::store_layout::{
    BROKER_CONF, LEADER, broker_path, failure_domain_path, isolation_path, local_policies_path,
    policies_path, topics_path,
};

fn json(body: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(body).map_err(|_| "the body is not UTF-8 text".to_string())?;
    serde_json::from_str(text).map_err(|e| format!("the body is not valid JSON ({e})"))
}

fn object(body: &[u8], what: &str) -> Result<Map<String, Value>, String> {
    match json(body)? {
        Value::Object(m) => Ok(m),
        other => Err(format!(
            "expected {what} (a JSON object), found {}",
            describe(&other)
        )),
    }
}

/// A JSON array of strings (`clusters`, `tenants`, `brokers`, namespaces, topics).
pub fn string_list(body: &[u8]) -> Result<Vec<String>, String> {
    let v = json(body)?;
    let Value::Array(items) = v else {
        return Err(format!(
            "expected a JSON array of strings, found {}",
            describe(&v)
        ));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s),
            other => Err(format!(
                "expected a string at [{i}], found {}",
                describe(&other)
            )),
        })
        .collect()
}

/// A JSON object of settings (`configuration/runtime`, `configuration/values`); non-string values
/// are kept as their JSON text.
pub fn string_map(body: &[u8]) -> Result<IndexMap<String, String>, String> {
    let m = object(body, "a map of settings")?;
    Ok(m.into_iter()
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => s,
                Value::Null => "null".to_string(),
                other => other.to_string(),
            };
            (k, text)
        })
        .collect())
}

/// A `LocalBrokerData` load report: a JSON object (the importer checks its fields).
pub fn load_report(body: &[u8]) -> Result<(), String> {
    object(body, "a LocalBrokerData load report").map(|_| ())
}

/// `{"serviceUrl": ..., "brokerId": ...}`; returns the leader's brokerId (or its URL).
pub fn leader(body: &[u8]) -> Result<String, String> {
    let m = object(body, "the leader {\"serviceUrl\", \"brokerId\"}")?;
    let get = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    get("brokerId")
        .or_else(|| get("serviceUrl"))
        .ok_or_else(|| "expected `brokerId` or `serviceUrl`".to_string())
}

/// `BundlesData` `{"boundaries": [...], "numBundles": N}`; returns the parsed value.
pub fn bundles(body: &[u8]) -> Result<Value, String> {
    let m = object(body, "BundlesData {\"boundaries\", \"numBundles\"}")?;
    match m.get("boundaries") {
        Some(Value::Array(b)) if b.iter().all(Value::is_string) => Ok(Value::Object(m)),
        _ => Err("expected `boundaries`, an array of 0xXXXXXXXX strings".to_string()),
    }
}

/// Namespace `Policies`: a JSON object.
pub fn policies(body: &[u8]) -> Result<(), String> {
    object(body, "namespace policies").map(|_| ())
}

/// The anti-affinity group: Pulsar answers the bare text (or nothing when unset); a JSON string is
/// accepted too.
pub fn anti_affinity(body: &[u8]) -> Result<Option<String>, String> {
    let text = std::str::from_utf8(body).map_err(|_| "the body is not UTF-8 text".to_string())?;
    let t = text.trim();
    if t.is_empty() || t == "null" {
        return Ok(None);
    }
    let group = if t.starts_with('"') {
        serde_json::from_str::<String>(t).map_err(|e| format!("not a JSON string ({e})"))?
    } else {
        t.to_string()
    };
    if group.contains(['\n', '\r', '{', '[']) || group.len() > 1024 {
        return Err("expected the group name as text".to_string());
    }
    Ok((!group.is_empty()).then_some(group))
}

/// `admin/local-policies/<t>/<ns>` rebuilt from the two endpoints that expose its load-balancing
/// fields: `bundles` and `antiAffinity` (`LocalPolicies` JSON names).
pub fn local_policies(bundles: Option<&Value>, group: Option<&str>) -> Vec<u8> {
    let mut m = Map::new();
    if let Some(b) = bundles {
        m.insert("bundles".to_string(), b.clone());
    }
    if let Some(g) = group {
        m.insert(
            "namespaceAntiAffinityGroup".to_string(),
            Value::String(g.to_string()),
        );
    }
    serde_json::to_vec_pretty(&Value::Object(m)).unwrap_or_default()
}

/// `failureDomains`: `{"domain": {"brokers": [...]}}` → one `{"brokers": [...]}` file per domain.
/// The domain names are checked by the caller ([`super::names::check`]) before they become paths.
pub fn failure_domains(body: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let m = object(body, "a map of failure domains")?;
    let mut out = Vec::with_capacity(m.len());
    for (name, d) in m {
        let brokers = d
            .get("brokers")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("expected `{name}` to be {{\"brokers\": [...]}}"))?;
        if !brokers.iter().all(Value::is_string) {
            return Err(format!("expected `{name}.brokers` to hold strings"));
        }
        let node = serde_json::json!({ "brokers": brokers });
        out.push((name, serde_json::to_vec_pretty(&node).unwrap_or_default()));
    }
    Ok(out)
}

/// `namespaceIsolationPolicies`: a JSON object (possibly empty).
pub fn isolation_policies(body: &[u8]) -> Result<(), String> {
    object(body, "a map of namespace isolation policies").map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(string_list(br#"["a","b"]"#).unwrap(), vec!["a", "b"]);
        assert!(string_list(br#"{"a":1}"#).is_err());
        assert!(string_list(b"[\"a\"").is_err());
        assert_eq!(
            leader(br#"{"serviceUrl":"http://h:8080","brokerId":"h:8080"}"#).unwrap(),
            "h:8080"
        );
        assert_eq!(
            leader(br#"{"serviceUrl":"http://h:8080"}"#).unwrap(),
            "http://h:8080"
        );
        assert_eq!(
            anti_affinity(b"group-a").unwrap().as_deref(),
            Some("group-a")
        );
        assert_eq!(anti_affinity(b"\"g\"").unwrap().as_deref(), Some("g"));
        assert_eq!(anti_affinity(b"").unwrap(), None);
        assert!(bundles(br#"{"boundaries":["0x00000000","0xffffffff"],"numBundles":1}"#).is_ok());
        assert!(bundles(br#"{"numBundles":1}"#).is_err());
        let d = failure_domains(br#"{"d1":{"brokers":["h:1"]}}"#).unwrap();
        assert_eq!(d.len(), 1);
        assert!(failure_domains(br#"{"d1":{"brokers":"h:1"}}"#).is_err());
    }
}
