//! The size guard run on every JSON input before any parser sees it: one pass over the bytes that
//! counts the values the text would become, allocating nothing per value, and refuses the file when
//! there are more than [`ImportOptions::max_json_values`](super::ImportOptions).
//!
//! Why a count and not a byte cap: a parsed value costs a fixed ~80 bytes (a `serde_json::Value`
//! with `preserve_order`) whatever its text, so `[0,0,…]` turns 2 bytes into 80 and a 200 MB file
//! into 8 GB. Bounding the number of values bounds everything a reader builds from the file (the
//! typed readers' structs and lists, the collect report) before it is built.
//!
//! The count is exact on valid JSON and on any valid prefix of invalid JSON: a parser stops at its
//! first syntax error, so it never builds more values than this pass counted up to that point.
//! Nesting deeper than serde_json's recursion limit stops the pass (the parser refuses it with its
//! own message after at most the values counted so far).

use std::borrow::Cow;

use super::diag::ImportError;
use super::json::JPath;

/// serde_json's recursion limit: deeper text is refused by the parser itself.
const MAX_DEPTH: usize = 128;

/// One open container: where its current child sits.
struct Frame {
    object: bool,
    /// Arrays: the current element's index. Objects: unused.
    index: usize,
    /// Objects: byte range of the current key's text (between the quotes, escapes unresolved).
    key: (usize, usize),
    /// Objects: the next string is a key (after `{` or `,`), not a value (after `:`).
    expect_key: bool,
}

/// Keys at or below this count are compared one by one; most objects in an export are a broker's
/// or a bundle's fields, and a fresh set per object was a quarter of a large snapshot's import.
const FEW_KEYS: usize = 16;

/// The keys seen so far in one open object (raw text), to catch a key given twice, which every JSON
/// parser resolves silently by keeping the last value. One per nesting depth, reused from object to
/// object; an ordered set only for objects with many keys, so hostile text cannot make the check
/// quadratic.
#[derive(Default)]
struct SeenKeys<'t> {
    few: Vec<&'t str>,
    many: std::collections::BTreeSet<&'t str>,
}

impl<'t> SeenKeys<'t> {
    fn clear(&mut self) {
        self.few.clear();
        if !self.many.is_empty() {
            self.many.clear();
        }
    }

    /// Whether `key` is new in this object.
    fn insert(&mut self, key: &'t str) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&key) {
                return false;
            }
            if self.few.len() < FEW_KEYS {
                self.few.push(key);
                return true;
            }
            self.many.extend(self.few.drain(..));
        }
        self.many.insert(key)
    }
}

/// Top-level keys listed in [`Scan::top_keys`]; an object with more is not one of the small
/// documents whose format they decide.
const MAX_TOP_KEYS: usize = 64;

/// What the guard's pass saw besides the count.
#[derive(Debug, Default)]
pub(crate) struct Scan<'t> {
    /// JSON paths of keys given twice in one object (the first [`MAX_DUPLICATES`]).
    pub duplicates: Vec<String>,
    /// The top-level object's keys as written, when the text is one object whose keys are all
    /// plain text (no escape, so the written key is the parsed key) and at most [`MAX_TOP_KEYS`];
    /// `None` otherwise. Lets `detect` know a snapshot file without a second pass over its text.
    pub top_keys: Option<Vec<&'t str>>,
}

/// Refuses `text` if it holds more than `max_values` JSON values (scalars, arrays and objects, at
/// any depth), naming the path of the first value over the cap.
pub(crate) fn check<'t>(
    file: &str,
    text: &'t str,
    max_values: u64,
) -> Result<Scan<'t>, ImportError> {
    let b = text.as_bytes();
    let mut duplicates: Vec<String> = Vec::new();
    let mut top_keys: Option<Vec<&str>> = None;
    let mut roots = 0usize;
    let mut stack: Vec<Frame> = Vec::with_capacity(16);
    // `seen[d]` belongs to the object open at depth `d` (unused for arrays).
    let mut seen: Vec<SeenKeys<'_>> = Vec::with_capacity(16);
    let mut count: u64 = 0;
    let mut i = 0usize;
    while let Some(&c) = b.get(i) {
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b',' => {
                if let Some(top) = stack.last_mut() {
                    top.index = top.index.saturating_add(1);
                    top.expect_key = top.object;
                }
                i += 1;
            }
            b':' => {
                if let Some(top) = stack.last_mut() {
                    top.expect_key = false;
                }
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b'"' => {
                let end = string_end(b, i + 1);
                let depth = stack.len();
                match stack.last_mut() {
                    Some(top) if top.object && top.expect_key => {
                        top.key = (i + 1, end);
                        let key = text.get(i + 1..end).unwrap_or("");
                        if depth == 1 {
                            top_keys = top_keys.take().and_then(|mut keys| {
                                (keys.len() < MAX_TOP_KEYS && !key.contains('\\')).then(|| {
                                    keys.push(key);
                                    keys
                                })
                            });
                        }
                        let new = seen
                            .get_mut(depth.wrapping_sub(1))
                            .is_none_or(|keys| keys.insert(key));
                        if !new && duplicates.len() < MAX_DUPLICATES {
                            let keys: Vec<Cow<'_, str>> =
                                stack.iter().map(|f| key_text(text, f.key)).collect();
                            duplicates.push(render(&JPath::ROOT, &stack, &keys));
                        }
                    }
                    _ => {
                        if stack.is_empty() {
                            roots += 1;
                            top_keys = None;
                        }
                        count += 1;
                        if count > max_values {
                            return Err(over_cap(file, text, &stack, max_values));
                        }
                    }
                }
                i = end.saturating_add(1);
            }
            b'{' | b'[' => {
                count += 1;
                if count > max_values {
                    return Err(over_cap(file, text, &stack, max_values));
                }
                if stack.len() >= MAX_DEPTH {
                    return Ok(Scan {
                        duplicates,
                        top_keys: None,
                    });
                }
                let depth = stack.len();
                if depth == 0 {
                    roots += 1;
                    top_keys = (roots == 1 && c == b'{').then(Vec::new);
                }
                match seen.get_mut(depth) {
                    Some(keys) => keys.clear(),
                    None => seen.push(SeenKeys::default()),
                }
                stack.push(Frame {
                    object: c == b'{',
                    index: 0,
                    key: (0, 0),
                    expect_key: c == b'{',
                });
                i += 1;
            }
            _ => {
                // A number, `true`, `false`, `null` (or garbage the parser will refuse): one value.
                if stack.is_empty() {
                    roots += 1;
                    top_keys = None;
                }
                count += 1;
                if count > max_values {
                    return Err(over_cap(file, text, &stack, max_values));
                }
                i += 1;
                while b.get(i).is_some_and(|&c| !is_delimiter(c)) {
                    i += 1;
                }
            }
        }
    }
    Ok(Scan {
        duplicates,
        top_keys,
    })
}

/// Duplicate keys reported per file.
const MAX_DUPLICATES: usize = 10;

fn is_delimiter(c: u8) -> bool {
    matches!(
        c,
        b',' | b':' | b'{' | b'}' | b'[' | b']' | b'"' | b' ' | b'\t' | b'\n' | b'\r'
    )
}

/// Index of the quote closing the string whose text starts at `from` (the text's length if none).
fn string_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(off) = b
        .get(i..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        let at = i + off;
        if b.get(at) == Some(&b'"') {
            return at;
        }
        i = at + 2;
    }
    b.len()
}

fn over_cap(file: &str, text: &str, stack: &[Frame], max_values: u64) -> ImportError {
    let keys: Vec<Cow<'_, str>> = stack
        .iter()
        .map(|f| key_text(text, f.key))
        .collect::<Vec<_>>();
    let at = render(&JPath::ROOT, stack, &keys);
    ImportError::at(
        file,
        at,
        format!(
            "more than {max_values} JSON values in one file (the cap on JSON values per file); \
             refused before parsing"
        ),
    )
}

/// A key as the parser would read it (escapes resolved); the raw text if it does not decode.
fn key_text(text: &str, (start, end): (usize, usize)) -> Cow<'_, str> {
    let raw = text.get(start..end).unwrap_or("");
    if !raw.contains('\\') {
        return Cow::Borrowed(raw);
    }
    let quoted = text.get(start.saturating_sub(1)..end.saturating_add(1));
    match quoted.and_then(|q| serde_json::from_str::<String>(q).ok()) {
        Some(s) => Cow::Owned(s),
        None => Cow::Borrowed(raw),
    }
}

/// The path of the current value: each open container's current key or index, outermost first.
fn render(parent: &JPath<'_>, stack: &[Frame], keys: &[Cow<'_, str>]) -> String {
    match (stack.split_first(), keys.split_first()) {
        (Some((f, rest)), Some((k, krest))) => {
            let p = if f.object {
                parent.key(k)
            } else {
                parent.index(f.index)
            };
            render(&p, rest, krest)
        }
        _ => parent.render(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number of values serde_json builds, counted on the tree.
    fn tree_values(v: &serde_json::Value) -> u64 {
        1 + match v {
            serde_json::Value::Array(a) => a.iter().map(tree_values).sum(),
            serde_json::Value::Object(m) => m.values().map(tree_values).sum(),
            _ => 0,
        }
    }

    /// The smallest cap the text passes.
    fn counted(text: &str) -> u64 {
        (0..10_000)
            .find(|&cap| check("f.json", text, cap).is_ok())
            .unwrap()
    }

    #[test]
    fn counts_exactly_what_the_parser_builds() {
        for text in [
            "{}",
            "[]",
            "0",
            r#""a,b:{[""#,
            r#"{"a":1,"b":[true,false,null,-1.5e3],"c":{"d":"x\"y","e\\":[]}}"#,
            "[[],[[]],{},{\"k\":{}}]",
            " [ 1 , 2 ,\n\t3 ] ",
            r#"{"brokers":{"b:8080":{"local_broker_data":{"cpu":{"usage":1,"limit":2}}}}}"#,
        ] {
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(counted(text), tree_values(&v), "{text}");
        }
    }

    #[test]
    fn names_the_first_value_over_the_cap() {
        let e = check("a.json", "[0,0,0]", 3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.json: $[2]: more than 3 JSON values in one file (the cap on JSON values per file); \
             refused before parsing"
        );
        // Values in order: the root, `x`, the array, `1`, the object, `c`: the 7th is `c[0]`.
        let text = r#"{"x":{"a\"b":[1,{"c":[0,0]}]}}"#;
        let e = check("s.json", text, 6).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(r#"s.json: $.x["a\"b"][1].c[0]: more than 6"#),
            "{e}"
        );
    }

    /// serde_json keeps the last of two equal keys; the guard must name every such key, in small
    /// objects and in objects past the point where it changes how it remembers keys, and must not
    /// take a sibling object's keys (the remembered keys are reused per depth) for duplicates.
    #[test]
    fn finds_keys_given_twice_at_any_object_size() {
        let many: String = (0..40).map(|k| format!("\"k{k}\":{k},")).collect();
        let text = format!(
            r#"{{"a":{{"x":1,"y":2}},"b":{{"x":1,"y":2,"x":3}},"c":{{{many}"k7":0}},"d":{{{many}"z":0}},"a":0}}"#
        );
        let dups = check("d.json", &text, 1_000).unwrap().duplicates;
        assert_eq!(dups, ["$.b.x", "$.c.k7", "$.a"]);
        // What the guard names is what serde_json silently resolves.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["b"]["x"], 3);
        assert_eq!(v["c"]["k7"], 0);
        assert_eq!(v["a"], 0);
    }

    /// The top-level keys are listed only when the written key is the parsed key and the text is
    /// one object: `detect` decides a snapshot from them without reading the text again.
    #[test]
    fn lists_the_top_level_keys_of_one_plain_object() {
        fn keys(text: &str) -> Option<Vec<&str>> {
            check("k.json", text, 1_000).unwrap().top_keys
        }
        assert_eq!(
            keys(r#" {"format_version":3,"brokers":{"b:8080":{"x":1}},"cluster":"c"} "#),
            Some(vec!["format_version", "brokers", "cluster"])
        );
        assert_eq!(keys("{}"), Some(vec![]));
        // `\u0066ormat_version` parses as `format_version`: not listed as written.
        assert_eq!(keys(r#"{"\u0066ormat_version":3}"#), None);
        for text in ["[1]", "1", r#""s""#, r#"1 {"a":1}"#, r#"{"a":1} {"b":2}"#] {
            assert_eq!(keys(text), None, "{text}");
        }
        let many: String = (0..=MAX_TOP_KEYS).map(|k| format!("\"k{k}\":0,")).collect();
        assert_eq!(keys(&format!("{{{many}\"z\":0}}")), None);
    }

    #[test]
    fn nesting_past_the_parser_limit_is_left_to_the_parser() {
        let deep = "[".repeat(100_000);
        assert!(check("d.json", &deep, 1_000).is_ok());
        assert!(check("d.json", &deep, 100).is_err());
        assert!(serde_json::from_str::<serde_json::Value>(&deep).is_err());
    }

    #[test]
    fn unterminated_strings_and_garbage_do_not_panic() {
        for text in [
            "\"abc", "[\"\\", "{\"a", "{\"a\":", "]]]}}}", "[1,,,]", "nul",
        ] {
            let _ = check("g.json", text, 2);
        }
    }
}
