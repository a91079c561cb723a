//! Manual what-if operations, and their one-line text form used by the CLI (`--op`), share links and
//! the dashboard's edit history.
//!
//! Text forms:
//! `unload-namespace=T/NS` · `unload-bundle=T/NS/0x…_0x…[->HOST:PORT]` · `unload-topic=TOPIC` ·
//! `split-bundle=T/NS/0x…_0x…[:ALGORITHM[:P1,P2,…]]` · `add-broker=HOST:PORT[~LIKE_BROKER]` ·
//! `remove-broker=HOST:PORT` · `set=KEY=VALUE`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::naming::parse_hex_boundary;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Operation {
    UnloadNamespace {
        namespace: String,
    },
    UnloadBundle {
        bundle: String,
        destination_broker: Option<String>,
    },
    UnloadTopic {
        topic: String,
    },
    SplitBundle {
        bundle: String,
        algorithm: Option<String>,
        positions: Vec<u32>,
    },
    /// An empty broker; resource limits copied from `like` (or the first broker).
    AddBroker {
        broker: String,
        like: Option<String>,
    },
    /// The broker goes away; its bundles are placed by the strategy.
    RemoveBroker {
        broker: String,
    },
    SetConfig {
        key: String,
        value: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("operation `{text}`: {why}")]
pub struct OperationError {
    pub text: String,
    pub why: String,
}

impl Operation {
    /// The `broker.conf` overrides among `operations` (`set=KEY=VALUE`), in the order given: a
    /// later one of the same key wins when they are applied after the snapshot's own values.
    pub fn config_overrides(operations: &[Operation]) -> Vec<(String, String)> {
        operations
            .iter()
            .filter_map(|o| match o {
                Operation::SetConfig { key, value } => Some((key.clone(), value.clone())),
                _ => None,
            })
            .collect()
    }

    pub fn parse(text: &str) -> Result<Operation, OperationError> {
        let err = |why: &str| OperationError {
            text: text.to_string(),
            why: why.to_string(),
        };
        let (kind, arg) = text
            .trim()
            .split_once('=')
            .ok_or_else(|| err("expected KIND=ARGUMENT"))?;
        let arg = arg.trim();
        if arg.is_empty() {
            return Err(err("missing argument"));
        }
        match kind {
            "unload-namespace" => Ok(Operation::UnloadNamespace {
                namespace: arg.to_string(),
            }),
            "unload-bundle" => {
                let (bundle, dest) = match arg.split_once("->") {
                    Some((b, d)) => (b.trim(), Some(d.trim().to_string())),
                    None => (arg, None),
                };
                Ok(Operation::UnloadBundle {
                    bundle: bundle.to_string(),
                    destination_broker: dest,
                })
            }
            "unload-topic" => Ok(Operation::UnloadTopic {
                topic: arg.to_string(),
            }),
            "split-bundle" => {
                // The bundle name itself contains no ':', so the first ':' starts the algorithm.
                let mut parts = arg.splitn(3, ':');
                let bundle = parts.next().unwrap_or_default().to_string();
                let algorithm = parts.next().map(str::to_string).filter(|a| !a.is_empty());
                let positions = match parts.next() {
                    Some(list) => list
                        .split(',')
                        .filter(|p| !p.trim().is_empty())
                        .map(|p| {
                            parse_hex_boundary(p)
                                .map_err(|_| err("positions must be 32-bit numbers"))
                        })
                        .collect::<Result<Vec<u32>, _>>()?,
                    None => Vec::new(),
                };
                Ok(Operation::SplitBundle {
                    bundle,
                    algorithm,
                    positions,
                })
            }
            "add-broker" => {
                let (broker, like) = match arg.split_once('~') {
                    Some((b, l)) => (b.to_string(), Some(l.to_string())),
                    None => (arg.to_string(), None),
                };
                Ok(Operation::AddBroker { broker, like })
            }
            "remove-broker" => Ok(Operation::RemoveBroker {
                broker: arg.to_string(),
            }),
            "set" => {
                let (key, value) = arg
                    .split_once('=')
                    .ok_or_else(|| err("expected set=KEY=VALUE"))?;
                Ok(Operation::SetConfig {
                    key: key.trim().to_string(),
                    value: value.trim().to_string(),
                })
            }
            _ => Err(err(
                "unknown operation (expected unload-namespace, unload-bundle, unload-topic, split-bundle, add-broker, remove-broker or set)",
            )),
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operation::UnloadNamespace { namespace } => write!(f, "unload-namespace={namespace}"),
            Operation::UnloadBundle {
                bundle,
                destination_broker: Some(d),
            } => write!(f, "unload-bundle={bundle}->{d}"),
            Operation::UnloadBundle {
                bundle,
                destination_broker: None,
            } => write!(f, "unload-bundle={bundle}"),
            Operation::UnloadTopic { topic } => write!(f, "unload-topic={topic}"),
            Operation::SplitBundle {
                bundle,
                algorithm,
                positions,
            } => {
                write!(f, "split-bundle={bundle}")?;
                if algorithm.is_some() || !positions.is_empty() {
                    write!(f, ":{}", algorithm.as_deref().unwrap_or(""))?;
                }
                if !positions.is_empty() {
                    let list: Vec<String> = positions.iter().map(|p| p.to_string()).collect();
                    write!(f, ":{}", list.join(","))?;
                }
                Ok(())
            }
            Operation::AddBroker {
                broker,
                like: Some(l),
            } => write!(f, "add-broker={broker}~{l}"),
            Operation::AddBroker { broker, like: None } => write!(f, "add-broker={broker}"),
            Operation::RemoveBroker { broker } => write!(f, "remove-broker={broker}"),
            Operation::SetConfig { key, value } => write!(f, "set={key}={value}"),
        }
    }
}

/// A kept what-if that names what a newer snapshot of the cluster no longer has (the dashboard
/// following a watch, a restored session on another snapshot): which one, and what is missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleOperation {
    /// Index into the operations given.
    pub index: usize,
    pub operation: Operation,
    /// What is gone, in words (`bundle t/ns/0x…_0x… is not in the snapshot`).
    pub why: String,
}

impl fmt::Display for StaleOperation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` ({})", self.operation, self.why)
    }
}

/// The operations of `ops` that name a bundle, namespace or broker `snapshot` does not have
/// (a broker added by an earlier operation counts as there). The others apply as they did.
pub fn stale_operations(
    ops: &[Operation],
    snapshot: &crate::model::Snapshot,
) -> Vec<StaleOperation> {
    let has_bundle = |b: &str| {
        snapshot.brokers.values().any(|s| {
            let l = &s.local_broker_data;
            l.bundles.iter().any(|x| x == b) || l.last_stats.contains_key(b)
        })
    };
    let has_namespace = |ns: &str| {
        snapshot.brokers.values().any(|s| {
            let l = &s.local_broker_data;
            l.bundles
                .iter()
                .chain(l.last_stats.keys())
                .any(|x| crate::naming::BundleName::parts(x).is_some_and(|(n, _)| n == ns))
        })
    };
    let mut added: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for (index, op) in ops.iter().enumerate() {
        let has_broker = |b: &str| snapshot.brokers.contains_key(b) || added.contains(&b);
        let why = match op {
            Operation::UnloadBundle {
                bundle,
                destination_broker,
            } => {
                if !has_bundle(bundle) {
                    Some(format!("bundle {bundle} is not in the snapshot"))
                } else {
                    destination_broker
                        .as_deref()
                        .filter(|d| !has_broker(d))
                        .map(|d| format!("broker {d} is not in the snapshot"))
                }
            }
            Operation::SplitBundle { bundle, .. } => {
                (!has_bundle(bundle)).then(|| format!("bundle {bundle} is not in the snapshot"))
            }
            Operation::UnloadNamespace { namespace } => (!has_namespace(namespace))
                .then(|| format!("namespace {namespace} has no bundle in the snapshot")),
            Operation::RemoveBroker { broker } => {
                (!has_broker(broker)).then(|| format!("broker {broker} is not in the snapshot"))
            }
            Operation::AddBroker { broker, .. } => {
                added.push(broker);
                None
            }
            Operation::UnloadTopic { .. } | Operation::SetConfig { .. } => None,
        };
        if let Some(why) = why {
            out.push(StaleOperation {
                index,
                operation: op.clone(),
                why,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_forms_round_trip() {
        for text in [
            "unload-namespace=public/default",
            "unload-bundle=public/default/0x00000000_0x40000000->b2:8080",
            "unload-bundle=public/default/0x00000000_0x40000000",
            "unload-topic=persistent://public/default/t1",
            "split-bundle=public/default/0x00000000_0x40000000:specified_positions_divide:536870912",
            "split-bundle=public/default/0x00000000_0x40000000:topic_count_equally_divide",
            "split-bundle=public/default/0x00000000_0x40000000",
            "add-broker=b9:8080~b1:8080",
            "remove-broker=b3:8080",
            "set=loadBalancerBrokerThresholdShedderPercentage=5",
        ] {
            let op = Operation::parse(text).unwrap();
            assert_eq!(op.to_string(), text);
        }
        assert!(Operation::parse("explode=now").is_err());
        assert!(
            Operation::parse("split-bundle=t/n/0x0_0x10:specified_positions_divide:12,zz").is_err()
        );
    }

    /// A session's what-ifs against a newer snapshot where bundle A moved away and was split,
    /// broker b2 left and namespace t/gone has no bundle: the ones naming them are stale, the
    /// others (and a destination added by an earlier operation) are not.
    #[test]
    fn operations_naming_what_a_snapshot_lacks_are_stale() {
        use crate::model::{BrokerSnapshot, Snapshot};
        let mut snap = Snapshot::default();
        let mut b1 = BrokerSnapshot::default();
        b1.local_broker_data.bundles = vec![
            "t/ns/0x00000000_0x40000000".to_string(),
            "t/ns/0x40000000_0x80000000".to_string(),
            "t/ns/0x80000000_0xffffffff".to_string(),
        ];
        snap.brokers.insert("b1:8080".to_string(), b1);
        let ops: Vec<Operation> = [
            "unload-bundle=t/ns/0x00000000_0x80000000",
            "unload-bundle=t/ns/0x80000000_0xffffffff->b2:8080",
            "add-broker=b3:8080",
            "unload-bundle=t/ns/0x80000000_0xffffffff->b3:8080",
            "split-bundle=t/ns/0x40000000_0x80000000",
            "unload-namespace=t/gone",
            "unload-namespace=t/ns",
            "remove-broker=b2:8080",
            "set=loadBalancerBrokerOverloadedThresholdPercentage=90",
        ]
        .iter()
        .map(|t| Operation::parse(t).unwrap())
        .collect();
        let stale: Vec<(usize, String)> = stale_operations(&ops, &snap)
            .into_iter()
            .map(|s| (s.index, s.why))
            .collect();
        assert_eq!(
            stale,
            vec![
                (
                    0,
                    "bundle t/ns/0x00000000_0x80000000 is not in the snapshot".to_string()
                ),
                (1, "broker b2:8080 is not in the snapshot".to_string()),
                (
                    5,
                    "namespace t/gone has no bundle in the snapshot".to_string()
                ),
                (7, "broker b2:8080 is not in the snapshot".to_string()),
            ]
        );
    }
}
