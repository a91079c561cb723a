//! Topic lists: `pulsar-admin topics list <ns>` output (one full topic name per line; 2.x prints
//! each in double quotes) or the JSON array the REST API returns. Topics are grouped by namespace,
//! taken from each name, and every name passes `naming::rules::check_topic`. Also recognises the
//! look-alike `pulsar-admin topics partitioned-lookup` output (topic and broker URL per line), which
//! is not a topic list. One typed reader for the JSON form ([`typed`] leaves).

use indexmap::{IndexMap, IndexSet};

use super::diag::ImportError;
use super::json::{Ctx, JPath};
use super::typed::{self, Leaf, List};
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

/// A typed list of topic names at `p` (a namespace's `topics` in our snapshot), grouped.
pub(crate) fn check_list(
    ctx: &mut Ctx<'_>,
    list: List<'_, Leaf<'_>>,
    p: &JPath<'_>,
) -> Result<TopicsByNamespace, ImportError> {
    group(ctx, &list.get(ctx, p)?, p)
}

/// A JSON topic list (the REST API's array of full names) from its text, into borrowed strings
/// rather than a tree (a list of millions of topics would cost ~100 bytes a name). `Ok(None)` when
/// the text is an array with an item that is not a string: not a topic list.
pub(crate) fn read_json_text(
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<Option<TopicsByNamespace>, ImportError> {
    let List::Items(items) = typed::from_text::<List<'_, Leaf<'_>>>(ctx.file, text)? else {
        return Ok(None);
    };
    if !items.iter().all(|l| matches!(l, Leaf::Str(_))) {
        return Ok(None);
    }
    group(ctx, &items, &JPath::ROOT).map(Some)
}

/// Groups full topic names by namespace; every item must be a full topic name.
fn group(
    ctx: &mut Ctx<'_>,
    items: &[Leaf<'_>],
    p: &JPath<'_>,
) -> Result<TopicsByNamespace, ImportError> {
    let mut out = TopicsByNamespace::new();
    for (i, item) in items.iter().enumerate() {
        let pi = p.index(i);
        let name = item.string(ctx, &pi)?;
        add(&mut out, name).map_err(|e| ctx.err(&pi, e))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    //! The JSON topic list's one typed reader, through `import`: topics grouped by the namespace
    //! of each name, a name Pulsar refuses named by its index, an array of anything else not a topic
    //! list.

    use crate::import::{ImportInput, import};

    const REPORT: &str = r#"{"lastUpdate": 1, "cpu": {"usage": 1, "limit": 100}}"#;

    fn run(origin_tree: bool, text: &str) -> Result<crate::import::Imported, String> {
        let list = if origin_tree {
            ImportInput::in_tree("topics.json", text.as_bytes())
        } else {
            ImportInput::given("topics.json", text.as_bytes())
        };
        let inputs = [
            ImportInput::in_tree("loadbalance/brokers/b1:8080", REPORT.as_bytes()),
            list,
        ];
        import(&inputs).map_err(|e| e.to_string())
    }

    #[test]
    fn topics_are_grouped_by_namespace() {
        let out = run(
            false,
            r#"["persistent://public/default/a", "non-persistent://t/ns/b",
                "persistent://public/default/a", "persistent://public/default/\u0063"]"#,
        )
        .unwrap();
        let topics = |ns: &str| out.snapshot.namespaces.get(ns).unwrap().topics.clone();
        assert_eq!(
            topics("public/default").unwrap(),
            [
                "persistent://public/default/a",
                "persistent://public/default/c"
            ]
        );
        assert_eq!(topics("t/ns").unwrap(), ["non-persistent://t/ns/b"]);
    }

    #[test]
    fn a_refused_name_is_named_by_its_index() {
        // A `/` in the local name reads as a legacy tenant/cluster/namespace/topic name.
        let e = run(
            true,
            r#"["persistent://public/default/a", "persistent://t/c/ns/b"]"#,
        )
        .unwrap_err();
        assert!(e.contains("topics.json: $[1]: "), "{e}");
        assert!(e.contains("legacy"), "{e}");
    }

    #[test]
    fn an_array_of_other_things_is_not_a_topic_list() {
        let e = run(false, r#"["persistent://public/default/a", 1]"#).unwrap_err();
        assert!(
            e.contains("topics.json: unrecognised content: expected"),
            "{e}"
        );
        let out = run(true, r#"[["persistent://public/default/a"]]"#).unwrap();
        assert!(
            out.warnings
                .iter()
                .any(|w| w.file == "topics.json" && w.message == "not a recognised export; skipped"),
            "{:?}",
            out.warnings
        );
        let e = run(false, "[\"persistent://public/default/a\",\n").unwrap_err();
        assert!(
            e.contains("line 2, column 0") && e.contains("truncated"),
            "{e}"
        );
    }
}
