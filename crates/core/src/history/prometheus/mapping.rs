//! Which broker exposed a series: a label's value (the scrape target's `instance`, by default)
//! turned into a brokerId (`host:webServicePort`). Pulsar serves `/metrics` on the web service
//! port, so a Prometheus that scrapes each broker at its advertised address has `instance` equal
//! to the brokerId; otherwise an explicit map says, or a value that is a known broker's host
//! (Pulsar's own `broker` label is the advertised host without the port) is that broker.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The rule from a series' labels to a brokerId, stated in the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerMapping {
    /// The label naming the broker (default `instance`).
    pub label: String,
    /// Label value → brokerId, given by the operator; wins over everything else.
    pub explicit: BTreeMap<String, String>,
    /// brokerIds known from the layout snapshot: a value equal to one's host is that broker.
    pub known: Vec<String>,
}

impl Default for BrokerMapping {
    fn default() -> Self {
        Self {
            label: "instance".to_string(),
            explicit: BTreeMap::new(),
            known: Vec::new(),
        }
    }
}

impl BrokerMapping {
    /// The mapping an operator asks for: the label (`None`: `instance`), explicit value →
    /// brokerId pairs, and the layout snapshot's brokers as the known ones.
    pub fn new(
        label: Option<String>,
        explicit: BTreeMap<String, String>,
        layout: Option<&crate::model::Snapshot>,
    ) -> Self {
        let default = Self::default();
        Self {
            label: label.unwrap_or(default.label),
            explicit,
            known: layout
                .map(|l| l.brokers.keys().cloned().collect())
                .unwrap_or_default(),
        }
    }

    /// The brokerId of a series with these labels (sorted), `None` without the label.
    pub fn broker_of(&self, labels: &[(String, String)]) -> Option<String> {
        let value = labels
            .iter()
            .find(|(k, _)| *k == self.label)
            .map(|(_, v)| v.as_str())?;
        Some(self.broker_id(value))
    }

    /// The brokerId a label value stands for.
    pub fn broker_id(&self, value: &str) -> String {
        if let Some(id) = self.explicit.get(value) {
            return id.clone();
        }
        if self.known.iter().any(|k| k == value) {
            return value.to_string();
        }
        let mut by_host = self.known.iter().filter(|k| host_of(k) == value);
        match (by_host.next(), by_host.next()) {
            (Some(one), None) => one.clone(),
            _ => value.to_string(),
        }
    }

    /// The rule in words, for the report.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "brokerId = the `{}` label's value (Pulsar serves /metrics on the web service port, \
             so a target scraped at host:webServicePort is the brokerId)",
            self.label
        );
        if !self.known.is_empty() {
            s.push_str("; a value equal to a layout broker's host is that broker");
        }
        if !self.explicit.is_empty() {
            s.push_str(&format!("; {} explicit mappings", self.explicit.len()));
        }
        s
    }
}

/// One `VALUE=BROKER_ID` pair (`--broker-map`, the dashboard's map field, one per line).
pub fn parse_pair(item: &str) -> Result<(String, String), String> {
    match item.trim().split_once('=') {
        Some((value, id)) if !value.trim().is_empty() && !id.trim().is_empty() => {
            Ok((value.trim().to_string(), id.trim().to_string()))
        }
        _ => Err(format!(
            "`{item}`: expected VALUE=BROKER_ID (e.g. 10.0.0.7:8080=broker-1:8080)"
        )),
    }
}

/// Pairs one per line (blank lines skipped), an error naming the line.
pub fn parse_pairs(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (value, id) = parse_pair(line).map_err(|e| format!("line {}: {e}", i + 1))?;
        out.insert(value, id);
    }
    Ok(out)
}

/// `host` of `host:port` (`[v6]:port` keeps its brackets).
fn host_of(id: &str) -> &str {
    match id.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => host,
        _ => id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_explicit_and_host() {
        let mut m = BrokerMapping {
            known: vec!["broker-1.svc:8080".into(), "broker-2.svc:8080".into()],
            ..BrokerMapping::default()
        };
        let labels = vec![("instance".to_string(), "broker-1.svc:8080".to_string())];
        assert_eq!(m.broker_of(&labels).as_deref(), Some("broker-1.svc:8080"));
        // Pulsar's `broker` label: the advertised host, no port.
        assert_eq!(m.broker_id("broker-2.svc"), "broker-2.svc:8080");
        m.explicit
            .insert("10.0.0.7:9100".into(), "broker-2.svc:8080".into());
        assert_eq!(m.broker_id("10.0.0.7:9100"), "broker-2.svc:8080");
        assert_eq!(m.broker_id("unknown:1"), "unknown:1");
        assert_eq!(m.broker_of(&[]), None);
    }

    #[test]
    fn pairs_are_read_one_per_line_naming_a_bad_one() {
        let m =
            parse_pairs("10.0.0.7:8080=broker-1.svc:8080\n\n 10.0.0.8:8080 = broker-2.svc:8080 \n")
                .unwrap();
        assert_eq!(
            m.get("10.0.0.8:8080").map(String::as_str),
            Some("broker-2.svc:8080")
        );
        assert_eq!(m.len(), 2);
        let e = parse_pairs("a=b\nbroker-3").unwrap_err();
        assert!(
            e.starts_with("line 2: `broker-3`: expected VALUE=BROKER_ID"),
            "{e}"
        );
        assert!(parse_pair("=x").is_err());
    }
}
