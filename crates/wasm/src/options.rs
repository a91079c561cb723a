//! How every call reads its `options` argument: one serde-derived struct per call (`PlanOptions`,
//! `RebalanceOptions`, `SimulateOptions`, `HistoryOptions`, `ExportOptions`), read by core's
//! `typed_json` so a bad value is named by its path (`options.settings.KEY`), with the leaves below
//! saying what they expected and what they found ("expected a boolean, found a string"). An option
//! the call does not know is an **error** naming it and the call's options: a JavaScript caller's
//! typo (`sead: 1`) would otherwise silently do nothing (docs/embedding.md).

use std::fmt;

use lbplan_core::typed_json::{self, Obj, UnknownKey};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

use crate::error::{ApiError, kind_of};

/// Largest integer JavaScript numbers hold exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Reads `options` as `T`: `null`/`undefined` is every default; anything but an object is refused;
/// the keys `T` does not know are returned (each caller refuses them: [`refuse_unknown`]).
pub fn read<'v, T: Deserialize<'v> + Default>(
    options: &'v Value,
) -> Result<(T, Vec<UnknownKey>), ApiError> {
    match options {
        Value::Null => return Ok((T::default(), Vec::new())),
        Value::Object(_) => {}
        other => {
            return Err(ApiError::at(
                "options",
                format!("expected an object, found {}", kind_of(other)),
            ));
        }
    }
    let read = typed_json::from_value::<Obj<T>>(options)
        .map_err(|e| ApiError::at(options_path(&e.path), e.message))?;
    Ok((read.value.0, read.unknown))
}

/// The first unknown key as an error: a top-level one lists `T`'s options; a nested one says
/// `nested` (what that object takes).
pub fn refuse_unknown<'de, T: Deserialize<'de>>(
    unknown: &[UnknownKey],
    nested: &str,
) -> Result<(), ApiError> {
    let Some(u) = unknown.first() else {
        return Ok(());
    };
    let path = options_path(&u.to_string());
    Err(if u.at == "$" {
        ApiError::at(
            path,
            format!(
                "unknown option (expected one of {})",
                typed_json::field_names::<T>().join(", ")
            ),
        )
    } else {
        ApiError::at(path, format!("unknown field ({nested})"))
    })
}

/// `$.settings.KEY` → `options.settings.KEY`.
fn options_path(json_path: &str) -> String {
    format!(
        "options{}",
        json_path.strip_prefix('$').unwrap_or(json_path)
    )
}

/// Any JavaScript value as far as a message needs it: scalars kept, containers skipped.
enum Found {
    Null,
    Bool(bool),
    Number(Number),
    Str(String),
    Array,
    Object,
}

impl Found {
    /// "a string", "an array", … as `kind_of` says it.
    fn kind(&self) -> &'static str {
        match self {
            Found::Null => "null",
            Found::Bool(_) => "a boolean",
            Found::Number(_) => "a number",
            Found::Str(_) => "a string",
            Found::Array => "an array",
            Found::Object => "an object",
        }
    }
}

impl<'de> Deserialize<'de> for Found {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Found;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Found, E> {
                Ok(Found::Null)
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Found, E> {
                Ok(Found::Bool(b))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<Found, E> {
                Ok(Found::Number(x.into()))
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<Found, E> {
                Ok(Found::Number(x.into()))
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<Found, E> {
                Number::from_f64(x)
                    .map(Found::Number)
                    .ok_or_else(|| E::custom(format!("expected a finite number, found {x}")))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Found, E> {
                Ok(Found::Str(s.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Found, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Found::Array)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Found, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Found::Object)
            }
        }
        d.deserialize_any(V)
    }
}

/// A leaf read as [`Found`] then checked, the message naming what was found.
macro_rules! leaf {
    ($(#[$doc:meta])* $name:ident($t:ty), |$f:ident| $check:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name(pub $t);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let $f = Found::deserialize(d)?;
                let checked: Result<$t, String> = $check;
                checked.map($name).map_err(de::Error::custom)
            }
        }
    };
}

leaf!(
    /// `true` or `false`.
    Flag(bool),
    |f| match f {
        Found::Bool(b) => Ok(b),
        other => Err(format!("expected a boolean, found {}", other.kind())),
    }
);

leaf!(
    /// A string.
    Text(String),
    |f| match f {
        Found::Str(s) => Ok(s),
        other => Err(format!("expected a string, found {}", other.kind())),
    }
);

leaf!(
    /// A non-negative integer a JavaScript number holds exactly (a seed, a count of cycles).
    SafeInt(u64),
    |f| {
        let n = match &f {
            Found::Number(n) => n.as_u64().or_else(|| {
                // JavaScript numbers may arrive as f64 even when integral.
                n.as_f64()
                    .filter(|x| x.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER as f64).contains(x))
                    .map(|x| x as u64)
            }),
            _ => None,
        };
        match n {
            Some(n) if n <= MAX_SAFE_INTEGER => Ok(n),
            _ => Err(format!(
                "expected a non-negative integer up to {MAX_SAFE_INTEGER}, found {}",
                match &f {
                    Found::Number(n) => n.to_string(),
                    other => other.kind().to_string(),
                }
            )),
        }
    }
);

leaf!(
    /// A `broker.conf` value: a string, number or boolean, in its `broker.conf` text.
    ConfValue(String),
    |f| match f {
        Found::Str(s) => Ok(s),
        Found::Bool(b) => Ok(b.to_string()),
        Found::Number(n) => Ok(n.to_string()),
        other => Err(format!(
            "expected a string, number or boolean, found {}",
            other.kind()
        )),
    }
);

/// `{key: value}` → `broker.conf` text pairs, in the caller's order. Keys are checked by the core
/// when the plan resolves them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings(pub Vec<(String, String)>);

impl<'de> Deserialize<'de> for Settings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Anything else: the message names what was found, as the other leaves do.
        match SettingsOrNot::deserialize(d)? {
            SettingsOrNot::Settings(s) => Ok(s),
            SettingsOrNot::Not(kind) => Err(de::Error::custom(format!(
                "expected an object of broker.conf keys to values, found {kind}"
            ))),
        }
    }
}

/// A settings object, or the kind of what came instead.
enum SettingsOrNot {
    Settings(Settings),
    Not(&'static str),
}

impl<'de> Deserialize<'de> for SettingsOrNot {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SettingsOrNot;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of broker.conf keys to values")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<SettingsOrNot, E> {
                Ok(SettingsOrNot::Not("a boolean"))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<SettingsOrNot, E> {
                Ok(SettingsOrNot::Not("a number"))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<SettingsOrNot, E> {
                Ok(SettingsOrNot::Not("a number"))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<SettingsOrNot, E> {
                Ok(SettingsOrNot::Not("a number"))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<SettingsOrNot, E> {
                Ok(SettingsOrNot::Not("a string"))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SettingsOrNot, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(SettingsOrNot::Not("an array"))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SettingsOrNot, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    let ConfValue(v) = map.next_value()?;
                    out.push((k, v));
                }
                Ok(SettingsOrNot::Settings(Settings(out)))
            }
        }
        d.deserialize_any(V)
    }
}

/// A list of `T`, or what came instead (the caller's message says what list it wanted).
#[derive(Clone, Debug, PartialEq)]
pub enum List<T> {
    Items(Vec<T>),
    Not(&'static str),
}

impl<T> List<T> {
    /// The items, or an error at `path` saying `expected` and what was found.
    pub fn items(self, path: &str, expected: &str) -> Result<Vec<T>, ApiError> {
        match self {
            List::Items(v) => Ok(v),
            List::Not(kind) => Err(ApiError::at(
                path,
                format!("expected {expected}, found {kind}"),
            )),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<List<T>, E> {
                Ok(List::Not("a boolean"))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<List<T>, E> {
                Ok(List::Not("a number"))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<List<T>, E> {
                Ok(List::Not("a number"))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<List<T>, E> {
                Ok(List::Not("a number"))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<List<T>, E> {
                Ok(List::Not("a string"))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = seq.next_element()? {
                    out.push(x);
                }
                Ok(List::Items(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<List<T>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(List::Not("an object"))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Default, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Opts {
        seed: Option<SafeInt>,
        leader_cycle: Option<Flag>,
        settings: Option<Settings>,
        drain: Option<List<Text>>,
    }

    fn err(v: Value) -> String {
        match read::<Opts>(&v) {
            Ok((_, unknown)) => refuse_unknown::<Opts>(&unknown, "none")
                .unwrap_err()
                .to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn leaves_read_and_name_what_they_found() {
        let (o, unknown) = read::<Opts>(&json!({
            "seed": 9007199254740991u64, "leaderCycle": false,
            "settings": {"a": 1, "b": "x", "c": true, "d": 0.5}, "drain": ["b1:8080"]
        }))
        .unwrap();
        assert!(unknown.is_empty());
        assert_eq!(o.seed, Some(SafeInt(MAX_SAFE_INTEGER)));
        assert_eq!(o.leader_cycle, Some(Flag(false)));
        assert_eq!(
            o.settings.unwrap().0,
            [("a", "1"), ("b", "x"), ("c", "true"), ("d", "0.5")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(o.drain, Some(List::Items(vec![Text("b1:8080".into())])));
        // A JavaScript number that serde-wasm-bindgen could not prove integral.
        let (o, _) = read::<Opts>(&json!({"seed": 42.0})).unwrap();
        assert_eq!(o.seed, Some(SafeInt(42)));
        let (o, _) = read::<Opts>(&json!({"seed": null})).unwrap();
        assert_eq!(o.seed, None);
        assert_eq!(
            err(json!({"seed": 1.5})),
            "options.seed: expected a non-negative integer up to 9007199254740991, found 1.5"
        );
        assert_eq!(
            err(json!({"seed": "1"})),
            "options.seed: expected a non-negative integer up to 9007199254740991, found a string"
        );
        assert_eq!(
            err(json!({"leaderCycle": "yes"})),
            "options.leaderCycle: expected a boolean, found a string"
        );
        assert_eq!(
            err(json!({"settings": {"a": [1]}})),
            "options.settings.a: expected a string, number or boolean, found an array"
        );
        assert_eq!(
            err(json!({"settings": []})),
            "options.settings: expected an object of broker.conf keys to values, found an array"
        );
        assert_eq!(
            err(json!({"drain": [1]})),
            "options.drain[0]: expected a string, found a number"
        );
        assert_eq!(
            err(json!({"sead": 1})),
            "options.sead: unknown option (expected one of seed, leaderCycle, settings, drain)"
        );
        assert_eq!(
            err(json!([1])),
            "options: expected an object, found an array"
        );
    }
}
