//! One way to read a JSON document into serde-derived types outside the importer (the collect
//! report, conformance vectors, simulation scenarios, the JavaScript API's options): a malformed
//! value is an error naming its JSON path (`$.missing[2].reason`, from `serde_path_to_error`), and
//! every key the types do not know is collected with its JSON path (`serde_ignored`), so each reader
//! decides whether an unknown key is a warning (a later writer's addition) or an error (a typo).
//!
//! The importer has its own building blocks (`import::typed`): it reads every value as found and
//! checks after, so its messages say what was found and apply its domain rules, in bounded memory
//! (see that module for why serde-derived fields cannot). Use this module for formats that are
//! refused when malformed (our own files and reports, conformance vectors, scenarios, API
//! options); extend `import::typed` only for what the importer reads.

use serde::Deserialize;
use serde_json::Value;

/// A value read, with the keys it did not know, in document order.
#[derive(Debug)]
pub struct Read<T> {
    pub value: T,
    pub unknown: Vec<UnknownKey>,
}

/// A key a reader did not know: the JSON path of its object (`$`, `$.missing[0]`) and the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKey {
    pub at: String,
    pub key: String,
}

impl std::fmt::Display for UnknownKey {
    /// The key's own JSON path: `$.missing[0].extra`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.at, KeyStep(&self.key))
    }
}

/// One key as a JSON path step: `.name` for a plain name, `["t/ns/0x00000000_0x40000000"]` (JSON
/// string syntax) for any other key, so a path stays readable and unambiguous when keys are bundle
/// names, broker ids (`b1:8080`) or contain dots.
struct KeyStep<'k>(&'k str);

impl std::fmt::Display for KeyStep<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plain = self
            .0
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && self
                .0
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if plain {
            write!(f, ".{}", self.0)
        } else {
            write!(f, "[{}]", Value::String(self.0.to_string()))
        }
    }
}

/// A malformed document: where (`$`, `$.cycles[0].brokers`) and what serde expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ReadError {
    pub path: String,
    pub message: String,
    /// The text is not JSON at all (`message` names the line and column; `path` is `$`).
    pub syntax: bool,
}

/// A JSON object read as `T`. serde's derived structs also accept an array (their fields in
/// order), which no format here means: this refuses one as "expected an object".
#[derive(Debug, Clone, PartialEq)]
pub struct Obj<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// Reads `T` from a parsed tree (borrowing its strings where `T` does).
pub fn from_value<'v, T: Deserialize<'v>>(v: &'v Value) -> Result<Read<T>, ReadError> {
    read(v, |e| e.to_string()).map_err(|(path, message, _)| ReadError {
        path,
        message,
        syntax: false,
    })
}

/// Reads `T` from JSON text. A syntax error is at `$` and names its line and column; a data error
/// names its JSON path (without serde_json's position, which the path replaces).
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> Result<Read<T>, ReadError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let out = read(&mut de, |e: serde_json::Error| {
        if e.is_data() {
            let at = format!(" at line {} column {}", e.line(), e.column());
            let m = e.to_string();
            m.strip_suffix(&at).map(str::to_string).unwrap_or(m)
        } else {
            e.to_string()
        }
    })
    .map_err(|(path, message, data)| ReadError {
        path: if data { path } else { "$".to_string() },
        message,
        syntax: !data,
    })?;
    de.end().map_err(|e| ReadError {
        path: "$".to_string(),
        message: e.to_string(),
        syntax: true,
    })?;
    Ok(out)
}

/// Reads with both trackers; an error is (JSON path, message, whether it is about the data).
fn read<'de, D, T>(
    de: D,
    message: impl Fn(D::Error) -> String,
) -> Result<Read<T>, (String, String, bool)>
where
    D: serde::Deserializer<'de, Error = serde_json::Error>,
    T: Deserialize<'de>,
{
    let mut unknown = Vec::new();
    let mut track = serde_path_to_error::Track::new();
    let value = {
        let mut on_ignored = |p: serde_ignored::Path<'_>| {
            // Only keys are ignored in these formats (a derived struct skips an unknown field's
            // value); an ignored sequence element would have no key and is not reported.
            if let serde_ignored::Path::Map { parent, key } = p {
                unknown.push(UnknownKey {
                    at: ignored_path(parent),
                    key,
                });
            }
        };
        let de = serde_ignored::Deserializer::new(de, &mut on_ignored);
        T::deserialize(serde_path_to_error::Deserializer::new(de, &mut track))
    };
    match value {
        Ok(value) => Ok(Read { value, unknown }),
        Err(e) => {
            let data = e.is_data();
            Err((error_path(&track.path()), message(e), data))
        }
    }
}

/// The JSON field names a serde-derived struct reads, in declaration order and as renamed, for
/// messages listing what a reader expects ("unknown option (expected one of …)") without a second
/// list to keep in step with the struct.
pub fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(FieldNames(&mut names));
    names
}

/// A deserializer that only records the fields a struct asks for, then stops.
struct FieldNames<'n>(&'n mut &'static [&'static str]);

impl<'de> serde::Deserializer<'de> for FieldNames<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(serde::de::Error::custom("fields recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// `serde_path_to_error`'s path (`missing[0].what`, `.` for the root) as a JSON path.
fn error_path(p: &serde_path_to_error::Path) -> String {
    let mut out = String::from("$");
    for seg in p.iter() {
        match seg {
            serde_path_to_error::Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            serde_path_to_error::Segment::Map { key } => out.push_str(&KeyStep(key).to_string()),
            serde_path_to_error::Segment::Enum { variant } => {
                out.push('.');
                out.push_str(variant);
            }
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    out
}

/// `serde_ignored`'s path of an unknown key as a JSON path (`$.missing[0].extra`).
fn ignored_path(p: &serde_ignored::Path<'_>) -> String {
    match p {
        serde_ignored::Path::Root => "$".to_string(),
        serde_ignored::Path::Seq { parent, index } => format!("{}[{index}]", ignored_path(parent)),
        serde_ignored::Path::Map { parent, key } => {
            format!("{}{}", ignored_path(parent), KeyStep(key))
        }
        serde_ignored::Path::Some { parent }
        | serde_ignored::Path::NewtypeStruct { parent }
        | serde_ignored::Path::NewtypeVariant { parent } => ignored_path(parent),
    }
}

/// A JSON value's type for "expected X, found Y" messages: `null`, `a boolean`, `a number`,
/// `a string`, `an array`, `an object`.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Item<'a> {
        what: &'a str,
        #[serde(default)]
        n: Option<u32>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Doc<'a> {
        #[serde(borrow)]
        items: Vec<Item<'a>>,
    }

    #[test]
    fn unknown_keys_are_collected_with_their_paths() {
        let r: Read<Doc<'_>> = from_str(
            r#"{"items": [{"what": "a"}, {"what": "b", "extra": [1, {"x": 2}]}], "v": 2}"#,
        )
        .unwrap();
        assert_eq!(r.value.items[1], Item { what: "b", n: None });
        let unknown: Vec<String> = r.unknown.iter().map(ToString::to_string).collect();
        assert_eq!(unknown, vec!["$.items[1].extra", "$.v"]);
        assert_eq!(r.unknown[0].at, "$.items[1]");
        assert_eq!(r.unknown[0].key, "extra");
    }

    #[test]
    fn errors_name_the_json_path_or_the_line() {
        let e = from_str::<Doc<'_>>(r#"{"items": [{"what": "a"}, {"what": "b", "n": -1}]}"#)
            .unwrap_err();
        assert_eq!(e.path, "$.items[1].n");
        assert!(e.message.starts_with("invalid value: integer `-1`"), "{e}");
        let e = from_str::<Doc<'_>>("{\"items\": [\n{\"what\": }").unwrap_err();
        assert!(e.syntax);
        assert_eq!(e.path, "$");
        assert_eq!(e.message, "expected value at line 2 column 10");
        let e = from_str::<Doc<'_>>(r#"{"items": []} x"#).unwrap_err();
        assert_eq!(e.to_string(), "$: trailing characters at line 1 column 15");
        // A derived struct would take `["a"]` as its fields in order; `Obj` does not.
        let e = from_str::<Obj<Item<'_>>>(r#"["a"]"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "$: invalid type: sequence, expected an object"
        );
        assert!(!e.syntax);
        let r = from_str::<Vec<Obj<Item<'_>>>>(r#"[{"what": "a", "n": 2}]"#).unwrap();
        assert_eq!(
            r.value,
            vec![Obj(Item {
                what: "a",
                n: Some(2)
            })]
        );
        assert_eq!(field_names::<Item<'_>>(), ["what", "n"]);
        let v = serde_json::json!({"items": [{"n": 1}]});
        let e = from_value::<Doc<'_>>(&v).unwrap_err();
        assert_eq!(e.to_string(), "$.items[0]: missing field `what`");
    }
}
