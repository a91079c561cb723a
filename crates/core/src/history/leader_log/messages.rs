//! The load manager's messages, recognised per release. Each text was read in Pulsar's code at the
//! release commits named in `docs/research/pulsar-metrics-and-logs.md` §0 (3.0.17 `db1605ee`, 3.3.9
//! `084b90b4`, 4.0.13 `31b9ab7a`, 4.1.3 `24c65246`, 4.2.4 `534a635d`, master `00a6bada`); paths are
//! under `pulsar-broker/src/main/java/org/apache/pulsar/broker/loadbalance/`:
//!
//! * modular unload, `impl/ModularLoadManagerImpl.java:691 @4.0.13` (`:691 @3.0.17`, `:672 @3.3.9`,
//!   `:682 @4.1.3`): `[{}] Unloading bundle: {} from broker {} to dest broker {}` (strategy simple
//!   name, bundle, source, destination); master `:687-689`: `Unloading bundle from source broker to
//!   dest broker` with attributes `class`, `bundle`, `sourceBroker`, `destBroker`;
//! * its failure (after the admin call): `Error when trying to perform load shedding on {} for
//!   broker {}` (bundle, broker); master the same words without the values, attributes `bundle`, `broker`;
//! * modular split, `:812 @4.0.13` (`:807 @3.0.17`, `:788 @3.3.9`): `Load-manager splitting bundle {}
//!   and unloading {}`; master `:811`: `Load-manager splitting bundle and unloading` {`bundle`, `unloading`};
//!   `Failed to split namespace bundle {}` (master: attribute `bundle`);
//! * extensible unload, `extensions/scheduler/UnloadScheduler.java:167` (all releases): `[{}] Unloading
//!   bundle: {}` with the `Unload` record's `toString()` (`extensions/models/Unload.java:27`:
//!   `Unload[sourceBroker=…, serviceUnit=…, destBroker=Optional[…]|Optional.empty, force=…]`); master
//!   `:168-169`: `Unloading bundle` {`bundle`=the record, `strategy`};
//! * extensible split, `extensions/manager/SplitManager.java:69`: `Published the bundle split event
//!   for bundle:{}. Waiting the split event to complete. Timeout: {} {}`; master: `Published the bundle
//!   split event for bundle: . Waiting …` {`bundle`, …}; failures `:76`/`:83`;
//! * the strategies' own words, logged just before: `Attempting to shed load on {}, …`
//!   (`impl/ThresholdShedder.java:103`, `impl/OverloadShedder.java:96`), `broker:[{}] is planning to
//!   shed bundles to broker:[{}]. …` (`impl/AvgShedder.java:170`), `Found bundle to unload with
//!   msgRate|msgThroughput {}` (`impl/UniformLoadShedder.java:159`), `The bundle {} is considered to be
//!   unload. …` (`impl/BundleSplitterTask.java:103`; master `The bundle is considered to be unloaded`
//!   {`bundle`, …}), TransferShedder's `Attempting to shed load from broker:%s…` and `Decided to unload
//!   bundle:%s, …` (debug mode only) and `DefaultNamespaceBundleSplitStrategyImpl`'s `Splitting bundle: %s. …`;
//! * who leads: `PulsarService` `This broker {} was elected leader` (3.3+; 3.0.17 without the id;
//!   master `This broker was elected leader` {`broker`}), `ExtensibleLoadManagerImpl` `This
//!   broker:{} plays the leader now.` (master `This broker: plays the leader now` {`broker`}).

use super::line::Event;

/// What a line says, if it is one the history reads.
#[derive(Debug, PartialEq)]
pub enum Recognized {
    Unload {
        strategy: String,
        bundle: String,
        from: String,
        /// `None`: the extensible manager's `destBroker=Optional.empty` (the owner picks).
        to: Option<String>,
    },
    Split {
        bundle: String,
        /// The modular leader's `unloading` flag (`loadBalancerAutoUnloadSplitBundlesEnabled`).
        unloading: Option<bool>,
    },
    /// The leader's unload or split of `bundle` failed.
    Failed { bundle: String },
    /// A strategy's explanation, to attach to the next action on `broker` / `bundle`.
    Words {
        strategy: String,
        broker: Option<String>,
        bundle: Option<String>,
        text: String,
    },
    /// This file's broker leads from here (`None`: the 3.0.x line, which does not name it).
    Leader { broker: Option<String> },
    /// Any other line of the log.
    Other,
    /// A load-manager action's text whose values could not be read.
    Garbled,
}

fn word(s: &str) -> &str {
    s.split([' ', ',']).next().unwrap_or("")
}

fn bundle_like(s: &str) -> bool {
    // `tenant/namespace/0x…_0x…` (or a `/`-joined cluster path): no spaces, a range at the end.
    !s.is_empty() && !s.contains(' ') && s.contains("/0x") && s.contains('_')
}

/// `Unload[sourceBroker=a, serviceUnit=b, destBroker=Optional[c], force=false]`.
fn parse_unload_record(s: &str) -> Option<(String, String, Option<String>)> {
    let inner = s.trim().strip_prefix("Unload[")?.strip_suffix(']')?;
    let mut source = None;
    let mut unit = None;
    let mut dest = None;
    for part in inner.split(", ") {
        let (k, v) = part.split_once('=')?;
        match k {
            "sourceBroker" => source = Some(v.to_string()),
            "serviceUnit" => unit = Some(v.to_string()),
            "destBroker" => {
                dest = Some(
                    match v
                        .strip_prefix("Optional[")
                        .and_then(|d| d.strip_suffix(']'))
                    {
                        Some(d) => Some(d.to_string()),
                        None if v == "Optional.empty" => None,
                        None => return None,
                    },
                )
            }
            _ => {}
        }
    }
    Some((source?, unit?, dest?))
}

fn unload_record(strategy: &str, record: &str) -> Recognized {
    match parse_unload_record(record) {
        Some((from, bundle, to)) if bundle_like(&bundle) => Recognized::Unload {
            strategy: strategy.to_string(),
            bundle,
            from,
            to,
        },
        _ => Recognized::Garbled,
    }
}

/// `[Strategy] rest` → (`Strategy`, `rest`).
fn bracketed(msg: &str) -> Option<(&str, &str)> {
    let inner = msg.strip_prefix('[')?;
    let (name, rest) = inner.split_once("] ")?;
    Some((name, rest))
}

/// Recognises one event.
pub fn recognize(e: &Event) -> Recognized {
    let m = e.message.as_str();
    match e.logger.as_str() {
        "ModularLoadManagerImpl" => modular(e, m),
        "UnloadScheduler" => {
            if let Some((strategy, rest)) = bracketed(m)
                && let Some(record) = rest.strip_prefix("Unloading bundle: ")
            {
                return unload_record(strategy, record);
            }
            if m == "Unloading bundle" {
                return match (e.ctx("bundle"), e.ctx("strategy")) {
                    (Some(b), s) => unload_record(s.unwrap_or("TransferShedder"), b),
                    _ => Recognized::Garbled,
                };
            }
            Recognized::Other
        }
        "SplitManager" => {
            if let Some(rest) = m.strip_prefix("Published the bundle split event for bundle:") {
                let bundle = match e.ctx("bundle") {
                    Some(b) => b.to_string(),
                    None => rest
                        .split(". Waiting")
                        .next()
                        .unwrap_or("")
                        .trim()
                        .to_string(),
                };
                return if bundle_like(&bundle) {
                    Recognized::Split {
                        bundle,
                        unloading: None,
                    }
                } else {
                    Recognized::Garbled
                };
            }
            let failed = m
                .strip_prefix("Failed the bundle split event for bundle:")
                .or_else(|| m.strip_prefix("Timed out while waiting for the bundle split event:"));
            match failed {
                Some(rest) => failure(e.ctx("bundle").unwrap_or(rest.trim())),
                None => Recognized::Other,
            }
        }
        "ThresholdShedder" | "OverloadShedder" => {
            match m.strip_prefix("Attempting to shed load on ") {
                Some(rest) => words(e, Some(word(rest)), None),
                None => Recognized::Other,
            }
        }
        "AvgShedder" => match m.strip_prefix("broker:[") {
            Some(rest)
                if m.contains("] is planning to shed bundles to broker:[")
                    && !m.contains(",but the") =>
            {
                words(e, rest.split(']').next(), None)
            }
            _ => Recognized::Other,
        },
        "UniformLoadShedder" => {
            if m.starts_with("Found bundle to unload with ") {
                words(e, None, None)
            } else {
                Recognized::Other
            }
        }
        "TransferShedder" => {
            if let Some(rest) = m.strip_prefix("Attempting to shed load from broker:") {
                words(e, Some(word(rest)), None)
            } else if let Some(rest) = m.strip_prefix("Decided to unload bundle:") {
                words(e, None, Some(word(rest)))
            } else {
                Recognized::Other
            }
        }
        "BundleSplitterTask" => {
            if let Some(rest) = m.strip_prefix("The bundle ")
                && rest.contains(" is considered to be unload")
            {
                words(e, None, Some(word(rest)))
            } else if m == "The bundle is considered to be unloaded" {
                words(e, None, e.ctx("bundle"))
            } else {
                Recognized::Other
            }
        }
        "DefaultNamespaceBundleSplitStrategyImpl" => match m.strip_prefix("Splitting bundle: ") {
            Some(rest) => words(e, None, Some(rest.split(". ").next().unwrap_or(""))),
            None => Recognized::Other,
        },
        "PulsarService" => {
            if m == "This broker was elected leader" {
                Recognized::Leader {
                    broker: e.ctx("broker").map(str::to_string),
                }
            } else if let Some(rest) = m.strip_prefix("This broker ")
                && let Some(id) = rest.strip_suffix(" was elected leader")
            {
                Recognized::Leader {
                    broker: Some(id.to_string()),
                }
            } else {
                Recognized::Other
            }
        }
        "ExtensibleLoadManagerImpl" => {
            if m == "This broker: plays the leader now" {
                Recognized::Leader {
                    broker: e.ctx("broker").map(str::to_string),
                }
            } else if let Some(rest) = m.strip_prefix("This broker:")
                && let Some(id) = rest.strip_suffix(" plays the leader now.")
            {
                Recognized::Leader {
                    broker: Some(id.to_string()),
                }
            } else {
                Recognized::Other
            }
        }
        _ => Recognized::Other,
    }
}

fn words(e: &Event, broker: Option<&str>, bundle: Option<&str>) -> Recognized {
    let mut text = e.message.clone();
    for (k, v) in &e.context {
        if !k.contains('.') {
            text.push_str(&format!(" {k}={v}"));
        }
    }
    Recognized::Words {
        strategy: e.logger.clone(),
        broker: broker.filter(|b| !b.is_empty()).map(str::to_string),
        bundle: bundle.filter(|b| bundle_like(b)).map(str::to_string),
        text,
    }
}

fn failure(bundle: &str) -> Recognized {
    let bundle = bundle.trim();
    if bundle_like(bundle) {
        Recognized::Failed {
            bundle: bundle.to_string(),
        }
    } else {
        Recognized::Garbled
    }
}

fn modular(e: &Event, m: &str) -> Recognized {
    if let Some((strategy, rest)) = bracketed(m)
        && let Some(rest) = rest.strip_prefix("Unloading bundle: ")
    {
        let parsed = rest.split_once(" from broker ").and_then(|(bundle, rest)| {
            let (from, to) = rest.split_once(" to dest broker ")?;
            Some((bundle, from, to))
        });
        return match parsed {
            Some((bundle, from, to))
                if bundle_like(bundle) && !from.is_empty() && !to.is_empty() =>
            {
                Recognized::Unload {
                    strategy: strategy.to_string(),
                    bundle: bundle.to_string(),
                    from: from.to_string(),
                    to: Some(to.to_string()),
                }
            }
            _ => Recognized::Garbled,
        };
    }
    if m == "Unloading bundle from source broker to dest broker" {
        return match (e.ctx("bundle"), e.ctx("sourceBroker"), e.ctx("destBroker")) {
            (Some(b), Some(f), Some(t)) if bundle_like(b) => Recognized::Unload {
                strategy: e.ctx("class").unwrap_or("").to_string(),
                bundle: b.to_string(),
                from: f.to_string(),
                to: Some(t.to_string()),
            },
            _ => Recognized::Garbled,
        };
    }
    if let Some(rest) = m.strip_prefix("Load-manager splitting bundle ") {
        let (bundle, unloading) = if rest == "and unloading" {
            (
                e.ctx("bundle").unwrap_or(""),
                e.ctx("unloading").unwrap_or(""),
            )
        } else {
            rest.split_once(" and unloading ").unwrap_or(("", ""))
        };
        let unloading = match unloading {
            "true" => Some(true),
            "false" => Some(false),
            _ => return Recognized::Garbled,
        };
        return if bundle_like(bundle) {
            Recognized::Split {
                bundle: bundle.to_string(),
                unloading,
            }
        } else {
            Recognized::Garbled
        };
    }
    if let Some(rest) = m.strip_prefix("Error when trying to perform load shedding on ") {
        return match e.ctx("bundle") {
            Some(b) => failure(b),
            None => failure(rest.split(" for broker ").next().unwrap_or("")),
        };
    }
    if let Some(rest) = m.strip_prefix("Failed to split namespace bundle") {
        return failure(e.ctx("bundle").unwrap_or(rest));
    }
    Recognized::Other
}
