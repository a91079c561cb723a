//! `pulsar-client consume` console output of the extensible load manager's system topics
//! (`non-persistent://pulsar/system/loadbalancer-broker-load-data`, `…-top-bundles-load-data`): the
//! only way to see a `BrokerLoadData` when the extensible manager runs, because its brokers serve no
//! `load-report` (§9.4).
//!
//! Pulsar prints each message as a `----- got message -----` line, then
//! `key:[<brokerId>], properties:[…], content:<payload>` (`AbstractCmdConsume.interpretMessage`),
//! with the client's log lines in between. With the default `bytes` schema the payload is the JSON
//! the broker published. The topics are read as a `TableView` (the latest message per key wins, an
//! empty payload deletes the key), so that is how messages are folded here.

use indexmap::IndexMap;

/// The line `AbstractCmdConsume` prints before each message.
pub(crate) const MESSAGE_BOUNDARY: &str = "----- got message -----";

/// Whether `text` is `pulsar-client consume` output (a boundary line on its own).
pub(crate) fn looks_like_consume_output(text: &str) -> bool {
    text.lines().any(|l| l.trim() == MESSAGE_BOUNDARY)
}

/// One message: its key, its payload text (empty for a tombstone) and its line (1-based).
#[derive(Debug, PartialEq)]
pub(crate) struct Message<'a> {
    pub key: Option<&'a str>,
    pub content: &'a str,
    pub line: usize,
    /// The message's position in the output (1-based), for messages.
    pub index: usize,
}

/// The latest message per key, in order of each key's first appearance (a `TableView`'s view), and
/// the messages that carried no key (`key:[null]`) or no `content:`, which no broker can be named
/// from.
pub(crate) struct Messages<'a> {
    pub latest: IndexMap<&'a str, Message<'a>>,
    pub unkeyed: Vec<Message<'a>>,
}

pub(crate) fn messages(text: &str) -> Messages<'_> {
    let mut latest: IndexMap<&str, Message<'_>> = IndexMap::new();
    let mut unkeyed = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut index = 0;
    while let Some((_, l)) = lines.next() {
        if l.trim() != MESSAGE_BOUNDARY {
            continue;
        }
        index += 1;
        let Some((i, head)) = lines.next() else {
            break;
        };
        let (key, content) = split_head(head);
        let content = content.unwrap_or("").trim();
        let m = Message {
            key,
            content,
            line: i + 1,
            index,
        };
        match key {
            Some(k) => {
                // A later message replaces an earlier one, and moves nothing: `IndexMap::insert`
                // keeps the key's first position.
                latest.insert(k, m);
            }
            None => unkeyed.push(m),
        }
    }
    Messages { latest, unkeyed }
}

/// `key:[K], properties:[…], content:C` → `(K, C)`; `key:[null]` is no key.
fn split_head(head: &str) -> (Option<&str>, Option<&str>) {
    let head = head.trim_start();
    let key = head
        .strip_prefix("key:[")
        .and_then(|r| r.find("], ").map(|end| r.get(..end).unwrap_or("")))
        .filter(|k| *k != "null" && !k.is_empty());
    let content = head.find("content:").and_then(|at| head.get(at + 8..));
    (key, content)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape `AbstractCmdConsume.interpretMessage` prints, with a client log line between.
    #[test]
    fn latest_message_per_key_wins_in_first_seen_order() {
        let text = "2025-12-01T12:00:41,201+0000 [io] INFO Subscribed\n\
                    ----- got message -----\n\
                    key:[b1:8080], properties:[], content:{\"a\":1}\n\
                    ----- got message -----\n\
                    key:[b2:8080], properties:[], content:{\"a\":2}\n\
                    ----- got message -----\n\
                    key:[b1:8080], properties:[x=y], content:{\"a\":3}\n\
                    ----- got message -----\n\
                    key:[null], properties:[], content:hello\n";
        assert!(looks_like_consume_output(text));
        let m = messages(text);
        let keys: Vec<&str> = m.latest.keys().copied().collect();
        assert_eq!(keys, ["b1:8080", "b2:8080"]);
        assert_eq!(m.latest["b1:8080"].content, "{\"a\":3}");
        assert_eq!(m.latest["b1:8080"].line, 7);
        assert_eq!(m.latest["b1:8080"].index, 3);
        assert_eq!(m.unkeyed.len(), 1);
        assert!(!looks_like_consume_output("key=value\n"));
    }
}
