//! One log line split into its parts, for the two shapes Pulsar writes:
//!
//! * text, the default `conf/log4j2.yaml` pattern of every release
//!   `%d{ISO8601_OFFSET_DATE_TIME_HHMM} [%t] %-5level %logger{36} - %msg%n` (3.0.17, 3.3.9, 4.1.3),
//!   `… - %msg %X%n` (4.0.13, 4.2.4: every line ends in ` {}` or the context map) and
//!   `… - %msg%equals{ %X}{ {}}{}%n` (master, apache/pulsar#26285): in master the load manager logs
//!   through slog, whose attributes are the context map `{k1=v1, k2=v2}` after the message;
//! * JSON, one object a line: master's `conf/OtelLogLayout.json` (`Timestamp`, `SeverityText`,
//!   `Body`, `Attributes` with `code.namespace` = logger and the context flattened into it) and
//!   4.x's `EcsLayout.json` (`@timestamp`, `log.level`, `message`, `log.logger`).

use super::time;

/// A log event: when, which logger, the message and its context (slog attributes).
#[derive(Debug, Default, PartialEq)]
pub struct Event {
    pub at_ms: i64,
    pub level: String,
    /// The logger's simple class name (`ModularLoadManagerImpl`).
    pub logger: String,
    pub message: String,
    /// The context map's entries, in the order written.
    pub context: Vec<(String, String)>,
}

impl Event {
    pub fn ctx(&self, key: &str) -> Option<&str> {
        self.context
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a line is not an event.
#[derive(Debug, PartialEq, Eq)]
pub enum NotEvent {
    /// No timestamp at its start (a stack trace, a wrapped message, another program's line).
    NoTimestamp,
    /// A timestamp, but not the pattern's `[thread] LEVEL logger - message`, or JSON without the
    /// fields.
    Garbled,
}

fn simple_name(logger: &str) -> &str {
    // `%logger{36}` is the full class name; an inner class keeps its `$` suffix.
    let last = logger.rsplit('.').next().unwrap_or(logger);
    last.split('$').next().unwrap_or(last)
}

/// Splits a text or JSON line.
pub fn split(line: &str) -> Result<Event, NotEvent> {
    if line.starts_with('{') {
        return split_json(line);
    }
    let (at_ms, rest) = time::parse_prefix(line).ok_or(NotEvent::NoTimestamp)?;
    let rest = rest.strip_prefix(" [").ok_or(NotEvent::Garbled)?;
    // A thread name may hold spaces; the pattern closes it with `] ` before the level.
    let close = rest.find("] ").ok_or(NotEvent::Garbled)?;
    let rest = rest.get(close + 2..).ok_or(NotEvent::Garbled)?;
    let (level, rest) = rest.split_once(' ').ok_or(NotEvent::Garbled)?;
    let rest = rest.trim_start_matches(' ');
    let (logger, message) = rest.split_once(" - ").ok_or(NotEvent::Garbled)?;
    if logger.is_empty() || logger.contains(' ') {
        return Err(NotEvent::Garbled);
    }
    let logger = simple_name(logger);
    // Only the load manager's loggers' context is read (the rest of a broker's log is skipped
    // unread: most of a busy broker's lines).
    let (message, context) = if super::loggers::is_known_logger(logger) {
        split_context(message)
    } else {
        (message, Vec::new())
    };
    Ok(Event {
        at_ms,
        level: level.to_string(),
        logger: logger.to_string(),
        message: message.to_string(),
        context,
    })
}

/// Openings of a context map tried from the end of a message.
const MAX_CONTEXT_TRIES: usize = 4;

/// Splits `message {k1=v1, k2=v2}` (`%X` after the message) into the message and the map; a
/// message without a trailing map (3.x, 4.1) is returned whole, and 4.0.13's empty ` {}` dropped.
fn split_context(message: &str) -> (&str, Vec<(String, String)>) {
    let trimmed = message.trim_end();
    if let Some(m) = trimmed.strip_suffix(" {}") {
        return (m, Vec::new());
    }
    if !trimmed.ends_with('}') {
        return (trimmed, Vec::new());
    }
    // The map starts at one of the last few ` {` (a value may hold one: `Unload[…]` does not, a
    // record's `toString()` might); a bounded number of tries keeps a hostile line linear.
    let mut search = trimmed.len();
    let mut tries = 0;
    while let Some(open) = trimmed.get(..search).and_then(|s| s.rfind(" {")) {
        tries += 1;
        if tries > MAX_CONTEXT_TRIES {
            break;
        }
        if let Some(map) = trimmed.get(open + 2..trimmed.len() - 1)
            && let Some(entries) = parse_map(map)
        {
            return (trimmed.get(..open).unwrap_or(trimmed), entries);
        }
        search = open;
    }
    (trimmed, Vec::new())
}

/// `k1=v1, k2=v2` with values that may hold `, ` inside brackets (`Unload[a=1, b=2]`).
fn parse_map(map: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = map.as_bytes();
    let mut i = 0;
    let mut push = |part: &str| -> Option<()> {
        let (k, v) = part.split_once('=')?;
        if k.is_empty()
            || !k
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        {
            return None;
        }
        out.push((k.to_string(), v.to_string()));
        Some(())
    };
    while i < bytes.len() {
        match bytes.get(i) {
            Some(b'[' | b'{' | b'(') => depth += 1,
            Some(b']' | b'}' | b')') => depth -= 1,
            Some(b',') if depth == 0 && bytes.get(i + 1) == Some(&b' ') => {
                push(map.get(start..i)?)?;
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    push(map.get(start..)?)?;
    Some(out)
}

fn json_str(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn split_json(line: &str) -> Result<Event, NotEvent> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|_| NotEvent::Garbled)?;
    let obj = v.as_object().ok_or(NotEvent::Garbled)?;
    let field = |names: &[&str]| names.iter().find_map(|n| obj.get(*n).and_then(json_str));
    let at = field(&["Timestamp", "@timestamp", "timestamp"]).ok_or(NotEvent::NoTimestamp)?;
    let at_ms = time::parse(&at).ok_or(NotEvent::Garbled)?;
    let message = field(&["Body", "message"]).ok_or(NotEvent::Garbled)?;
    let level = field(&["SeverityText", "log.level", "level"]).unwrap_or_default();
    let attributes = obj.get("Attributes").and_then(|a| a.as_object());
    let logger = attributes
        .and_then(|a| a.get("code.namespace"))
        .and_then(json_str)
        .or_else(|| field(&["log.logger", "loggerName"]))
        .ok_or(NotEvent::Garbled)?;
    let mut context = Vec::new();
    let mut add = |map: &serde_json::Map<String, serde_json::Value>| {
        for (k, v) in map {
            if let Some(s) = json_str(v) {
                context.push((k.clone(), s));
            }
        }
    };
    if let Some(a) = attributes {
        add(a);
        if let Some(mdc) = a.get("mdc").and_then(|m| m.as_object()) {
            add(mdc);
        }
    }
    Ok(Event {
        at_ms,
        level,
        logger: simple_name(&logger).to_string(),
        message,
        context,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lines_of_each_release() {
        // 3.0.17 / 4.1.3: no context.
        let e = split(
            "2026-08-20T08:57:37,123+0000 [pulsar-load-manager-5-1] INFO  \
             org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl - [ThresholdShedder] \
             Unloading bundle: public/default/0x40000000_0x80000000 from broker b1:8080 to dest broker b2:8080",
        )
        .unwrap();
        assert_eq!(e.logger, "ModularLoadManagerImpl");
        assert_eq!(e.level, "INFO");
        assert!(e.message.ends_with("to dest broker b2:8080"));
        assert!(e.context.is_empty());
        // 4.0.13: ` {}` after every message without context.
        let e = split(
            "2026-08-20T08:57:37,123+0000 [pulsar-load-manager-5-1] INFO  \
             org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl - Load-manager splitting \
             bundle public/default/0x00000000_0x80000000 and unloading false {}",
        )
        .unwrap();
        assert!(e.message.ends_with("unloading false"), "{}", e.message);
        // master: slog attributes through %X.
        let e = split(
            "2026-08-20T08:57:37,123+0000 [pulsar-load-manager-5-1] INFO  \
             org.apache.pulsar.broker.loadbalance.extensions.scheduler.UnloadScheduler - Unloading bundle \
             {bundle=Unload[sourceBroker=b1:8080, serviceUnit=public/default/0x00000000_0x80000000, \
             destBroker=Optional[b2:8080], force=false], strategy=TransferShedder}",
        )
        .unwrap();
        assert_eq!(e.message, "Unloading bundle");
        assert_eq!(e.ctx("strategy"), Some("TransferShedder"));
        assert!(
            e.ctx("bundle")
                .unwrap()
                .starts_with("Unload[sourceBroker=b1:8080, ")
        );
    }

    #[test]
    fn context_only_for_load_manager_loggers_and_near_the_end() {
        // Another logger's trailing braces are not read as a context map.
        let e = split(
            "2026-08-20T08:57:37,123+0000 [pulsar-io-4-3] INFO  org.apache.pulsar.broker.service.ServerCnx \
             - Created new producer: Producer{topic=x, producerId=1} {a=b}",
        )
        .unwrap();
        assert!(e.context.is_empty());
        assert!(e.message.ends_with("{a=b}"));
        // A map within the last four ` {` is found; a text with many unbalanced ones is left whole.
        let head = "2026-08-20T08:57:37,123+0000 [t] INFO  \
                    org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl - m";
        let e = split(&format!(
            "{head} {{x {{y {{bundle=t/n/0x0_0x1, unloading=true}}"
        ))
        .unwrap();
        assert_eq!(e.ctx("unloading"), Some("true"));
        let hostile = format!("{head}{}}}", " {".repeat(10_000));
        let e = split(&hostile).unwrap();
        assert!(e.context.is_empty());
    }

    #[test]
    fn non_events() {
        assert_eq!(
            split("\tat org.apache.pulsar.broker.Foo.bar(Foo.java:12)"),
            Err(NotEvent::NoTimestamp)
        );
        assert_eq!(
            split("2026-08-20T08:57:37,123+0000 something else"),
            Err(NotEvent::Garbled)
        );
        assert_eq!(split("{\"Timestamp\": 3"), Err(NotEvent::Garbled));
    }

    #[test]
    fn json_otel_layout() {
        let e = split(
            r#"{"Timestamp":"2026-08-20T08:57:37.123Z","SeverityText":"INFO","Body":"Unloading bundle from source broker to dest broker","Attributes":{"thread.name":"pulsar-load-manager-5-1","code.namespace":"org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl","bundle":"public/default/0x40000000_0x80000000","class":"ThresholdShedder","destBroker":"b2:8080","sourceBroker":"b1:8080"}}"#,
        )
        .unwrap();
        assert_eq!(e.at_ms, 1_787_216_257_123);
        assert_eq!(e.logger, "ModularLoadManagerImpl");
        assert_eq!(e.ctx("sourceBroker"), Some("b1:8080"));
    }
}
