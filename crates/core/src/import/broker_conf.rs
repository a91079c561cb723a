//! `broker.conf` (Java properties text) and `pulsar-admin brokers get-all-dynamic-config` (a flat
//! JSON map of the same keys to their values as text): the load-balancing keys, checked against
//! their Java types with [`LoadBalancerConfig::set_text`]; `clusterName` gives the cluster. Other
//! keys are dropped.

use super::diag::ImportError;
use super::json::{Ctx, JPath};
use super::typed::{self, Entries, Leaf, Object};
use crate::config::LoadBalancerConfig;

/// One `key=value` setting and the (1-based) line it started on.
pub(crate) struct Setting {
    pub key: String,
    pub value: String,
    pub line: usize,
}

pub(crate) struct BrokerConf {
    /// Load-balancing keys, in file order.
    pub settings: Vec<Setting>,
    pub cluster_name: Option<Setting>,
    /// How many keys the load manager does not read (dropped).
    pub ignored: usize,
}

/// Whether text looks like a properties file: every non-comment line is `identifier[=:]…`.
pub(crate) fn looks_like_conf(text: &str) -> bool {
    let mut any = false;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('!') {
            continue;
        }
        let key_end = t.find(['=', ':']).unwrap_or(t.len());
        let key = t.get(..key_end).unwrap_or("").trim_end();
        if key.is_empty()
            || key_end == t.len()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            return false;
        }
        any = true;
    }
    any
}

/// Parses `broker.conf`: `#`/`!` comments, `key=value` or `key: value`, `\` line continuations.
pub(crate) fn parse(file: &str, text: &str) -> Result<BrokerConf, ImportError> {
    let mut out = BrokerConf {
        settings: Vec::new(),
        cluster_name: None,
        ignored: 0,
    };
    let mut scratch = LoadBalancerConfig::for_profile(crate::config::Profile::Pulsar4x);
    let mut lines = text.lines().enumerate();
    while let Some((i, raw)) = lines.next() {
        let line_no = i + 1;
        let mut logical = raw.trim_start().to_string();
        if logical.is_empty() || logical.starts_with('#') || logical.starts_with('!') {
            continue;
        }
        // A line ending in an odd number of backslashes continues on the next line.
        while logical.chars().rev().take_while(|&c| c == '\\').count() % 2 == 1 {
            logical.pop();
            match lines.next() {
                Some((_, next)) => logical.push_str(next.trim_start()),
                None => break,
            }
        }
        let Some(sep) = logical.find(['=', ':']) else {
            return Err(ImportError::at(
                file,
                format!("line {line_no}"),
                format!(
                    "expected key=value, found \"{}\"",
                    logical.chars().take(60).collect::<String>()
                ),
            ));
        };
        let key = logical.get(..sep).unwrap_or("").trim().to_string();
        let value = logical.get(sep + 1..).unwrap_or("").trim().to_string();
        if key.is_empty() {
            return Err(ImportError::at(
                file,
                format!("line {line_no}"),
                "expected a key before `=`",
            ));
        }
        let setting = Setting {
            key,
            value,
            line: line_no,
        };
        out.take(&mut scratch, setting)
            .map_err(|e| ImportError::at(file, format!("line {line_no}"), e))?;
    }
    Ok(out)
}

impl BrokerConf {
    /// Keeps one setting: `clusterName` apart, a load-balancing key checked against its Java type
    /// (on `scratch`), any other key counted as ignored. Both `broker.conf` and the dynamic
    /// configuration read their settings through here.
    fn take(&mut self, scratch: &mut LoadBalancerConfig, setting: Setting) -> Result<(), String> {
        if setting.key == "clusterName" {
            self.cluster_name = Some(setting);
            return Ok(());
        }
        match scratch.set_text(&setting.key, &setting.value) {
            Ok(true) => self.settings.push(setting),
            Ok(false) => self.ignored += 1,
            Err(e) => return Err(e.to_string()),
        }
        Ok(())
    }
}

/// Checks one load-balancing value (snapshot's `broker_conf`); `Ok(false)` for an unknown key.
pub(crate) fn check_value(key: &str, value: &str) -> Result<bool, String> {
    let mut scratch = LoadBalancerConfig::for_profile(crate::config::Profile::Pulsar4x);
    scratch.set_text(key, value).map_err(|e| e.to_string())
}

/// Whether a JSON object is `pulsar-admin brokers get-all-dynamic-config` output (REST
/// `GET /admin/v2/brokers/configuration/values`): a map of `broker.conf` keys (Java identifiers)
/// to strings, at least one of them a key the load manager reads (so that `{"hello": "world"}`
/// stays unrecognised; a dynamic configuration without such a key has nothing for a plan).
///
/// `entries` are the object's keys, each with whether its value is a string.
pub(crate) fn is_dynamic_config<'k>(
    entries: impl Iterator<Item = (&'k str, bool)> + Clone,
) -> bool {
    let identifiers = entries.clone().all(|(k, is_string)| {
        is_string
            && k.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    identifiers
        && entries
            .map(|(k, _)| k)
            .any(|k| LoadBalancerConfig::KEYS.iter().any(|(key, _)| *key == k))
}

/// The dynamic configuration map, read from its text, as settings; `line` is unused (0), the caller
/// names the JSON key. A value that is not a string (shape detection lets none through) is empty.
pub(crate) fn dynamic_from_text(ctx: &Ctx<'_>, text: &str) -> Result<BrokerConf, ImportError> {
    let raw: Object<'_, Entries<'_, Leaf<'_>>> = typed::from_text(ctx.file, text)?;
    let m = raw.get(ctx, &JPath::ROOT, "a map of broker.conf keys")?;
    let mut out = BrokerConf {
        settings: Vec::new(),
        cluster_name: None,
        ignored: 0,
    };
    let mut scratch = LoadBalancerConfig::for_profile(crate::config::Profile::Pulsar4x);
    for (key, v) in m.0 {
        let value = match v {
            Leaf::Str(s) => s.trim().to_string(),
            Leaf::Other(_) => String::new(),
        };
        let at = JPath::ROOT.key(&key).render();
        let setting = Setting {
            key: key.into_owned(),
            value,
            line: 0,
        };
        out.take(&mut scratch, setting)
            .map_err(|e| ImportError::at(ctx.file, at, e))?;
    }
    Ok(out)
}
