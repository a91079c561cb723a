//! Topic lists: `pulsar-admin topics list <ns>` output (one full topic name per line) or the JSON
//! array the REST API returns. Topics are grouped by namespace, taken from each name.

use indexmap::{IndexMap, IndexSet};
use serde_json::Value;

use super::diag::ImportError;
use super::json::{Ctx, JPath};

/// Whether every non-empty line is a full topic name (`persistent://…`, `non-persistent://…`).
pub(crate) fn looks_like_topics(text: &str) -> bool {
    let mut any = false;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if !(t.starts_with("persistent://") || t.starts_with("non-persistent://")) {
            return false;
        }
        any = true;
    }
    any
}

/// The namespace of a full topic name: `domain://tenant/ns/local` → `tenant/ns`, V1
/// `domain://property/cluster/ns/local` → `property/cluster/ns`.
pub(crate) fn topic_namespace(name: &str) -> Result<String, String> {
    let rest = name
        .strip_prefix("persistent://")
        .or_else(|| name.strip_prefix("non-persistent://"))
        .ok_or_else(|| {
            "expected a full topic name persistent://tenant/namespace/topic (or non-persistent://)"
                .to_string()
        })?;
    let parts: Vec<&str> = rest.splitn(4, '/').collect();
    if parts.len() < 3 || parts.iter().any(|p| p.is_empty()) {
        return Err("expected a full topic name persistent://tenant/namespace/topic".to_string());
    }
    let ns_parts = parts.len() - 1;
    Ok(parts
        .get(..ns_parts)
        .map(|p| p.join("/"))
        .unwrap_or_default())
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
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        add(&mut out, t).map_err(|e| {
            ImportError::at(
                file,
                format!("line {}", i + 1),
                format!("{e}, found \"{t}\""),
            )
        })?;
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
        add(&mut out, name).map_err(|e| ctx.err(&pi, format!("{e}, found \"{name}\"")))?;
    }
    Ok(out)
}
