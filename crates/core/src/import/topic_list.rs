//! Topic lists: `pulsar-admin topics list <ns>` output (one full topic name per line; 2.x prints
//! each in double quotes) or the JSON array the REST API returns. Topics are grouped by namespace,
//! taken from each name, and every name passes `naming::rules::check_topic`. Also recognises the
//! look-alike `pulsar-admin topics partitioned-lookup` output (topic and broker URL per line), which
//! is not a topic list.

use indexmap::{IndexMap, IndexSet};
use serde_json::Value;

use super::diag::ImportError;
use super::json::{Ctx, JPath};
use crate::naming as rules;

fn is_full_topic(t: &str) -> bool {
    t.starts_with("persistent://") || t.starts_with("non-persistent://")
}

/// A line of `pulsar-admin topics list` without its surrounding whitespace and, as 2.x prints
/// them, double quotes.
fn topic_line(line: &str) -> &str {
    let t = line.trim();
    t.strip_prefix('"')
        .and_then(|u| u.strip_suffix('"'))
        .unwrap_or(t)
}

/// Whether every non-empty line is a full topic name (`persistent://…`, `non-persistent://…`),
/// quoted or not.
pub(crate) fn looks_like_topics(text: &str) -> bool {
    let mut any = false;
    for line in text.lines() {
        let t = topic_line(line);
        if t.is_empty() {
            continue;
        }
        if !is_full_topic(t) {
            return false;
        }
        any = true;
    }
    any
}

/// Whether every non-empty line is `<full topic name> <broker service URL>`, as
/// `pulsar-admin topics partitioned-lookup` prints (`persistent://t/n/x-partition-0
/// pulsar://broker-1:6650`).
pub(crate) fn looks_like_partitioned_lookup(text: &str) -> bool {
    let mut any = false;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let (Some(topic), Some(url), None) = (words.next(), words.next(), words.next()) else {
            if line.trim().is_empty() {
                continue;
            }
            return false;
        };
        if !is_full_topic(topic)
            || !(url.starts_with("pulsar://") || url.starts_with("pulsar+ssl://"))
        {
            return false;
        }
        any = true;
    }
    any
}

/// The namespace `tenant/ns` of a full topic name `domain://tenant/ns/local`, after Pulsar's name
/// rule (`naming::rules::check_topic`: legacy `property/cluster/ns/local` names are refused).
pub(crate) fn topic_namespace(name: &str) -> Result<String, String> {
    let parts = rules::check_topic(name).map_err(|e| e.to_string())?;
    Ok(format!("{}/{}", parts.tenant, parts.namespace))
}

pub(crate) type TopicsByNamespace = IndexMap<String, IndexSet<String>>;

fn add(out: &mut TopicsByNamespace, name: &str) -> Result<(), String> {
    let ns = topic_namespace(name)?;
    out.entry(ns).or_default().insert(name.to_string());
    Ok(())
}

/// Groups full topic names by namespace; `None` at the first one that is not a full name (the
/// caller then reads the file the generic way, which names it).
pub(crate) fn group<'a>(names: impl Iterator<Item = &'a str>) -> Option<TopicsByNamespace> {
    let mut out = TopicsByNamespace::new();
    for name in names {
        add(&mut out, name).ok()?;
    }
    Some(out)
}

pub(crate) fn parse_text(file: &str, text: &str) -> Result<TopicsByNamespace, ImportError> {
    let mut out = TopicsByNamespace::new();
    for (i, line) in text.lines().enumerate() {
        let t = topic_line(line);
        if t.is_empty() {
            continue;
        }
        add(&mut out, t).map_err(|e| ImportError::at(file, format!("line {}", i + 1), e))?;
    }
    Ok(out)
}

pub(crate) fn parse_json(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<TopicsByNamespace, ImportError> {
    let mut out = TopicsByNamespace::new();
    for (i, item) in ctx.array(v, p)?.iter().enumerate() {
        let pi = p.index(i);
        let name = ctx.string(item, &pi)?;
        add(&mut out, name).map_err(|e| ctx.err(&pi, e))?;
    }
    Ok(out)
}
