//! Typed reading of scenario JSON for the replay modules: each vector kind is a serde-derived input
//! type read through [`crate::typed_json`], so a malformed value is `ReplayError::Malformed` naming
//! its JSON path (`$.scenario.cycles[0].brokers[2].cpu.usage`), plus the value shapes several
//! kinds share (Java integers, `0x…` boundaries, "a list or an object" keys, `config` overrides).
//!
//! Unknown keys are errors, not warnings. A vector is an exact test input written by the oracle
//! harness (or by hand), not a document from a later Pulsar: a key the replay does not read — a
//! misspelt `recentlyUnloadedBundle`, a key of another kind — would silently drop an input, and the
//! comparison with `oracle_output` would then pass or fail for the wrong reason. The scenario-level
//! keys that describe a vector rather than feed it ([`DESCRIPTIVE_KEYS`]) are accepted unread.

use std::fmt;
use std::marker::PhantomData;

use indexmap::IndexMap;
use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::config::LoadBalancerConfig;
use crate::naming::parse_hex_boundary;
use crate::replay::error::ReplayError;

/// Scenario-level keys that describe a vector and are not read: `description` and `generator`
/// (who wrote it and how), and `store_map` (the Java map class the extensible oracle's stores
/// used; its iteration order does not reach any compared field, which the suites confirm).
pub(crate) const DESCRIPTIVE_KEYS: [&str; 3] = ["description", "generator", "store_map"];

/// Reads `value` (found at the JSON path `base`) as `T`; an error or an unknown key names its path.
pub(crate) fn read<'v, T: Deserialize<'v>>(value: &'v Value, base: &str) -> Result<T, ReplayError> {
    let read = crate::typed_json::from_value::<T>(value)
        .map_err(|e| ReplayError::malformed(below(base, &e.path), e.message))?;
    let unknown = read
        .unknown
        .iter()
        .find(|k| !(k.at == "$" && DESCRIPTIVE_KEYS.contains(&k.key.as_str())));
    match unknown {
        Some(k) => Err(ReplayError::malformed(
            below(base, &k.to_string()),
            "unknown key (replay would not read it)",
        )),
        None => Ok(read.value),
    }
}

/// `path` (`$.a.b`, relative to a value) below `base` (that value's own path).
fn below(base: &str, path: &str) -> String {
    format!("{base}{}", path.strip_prefix('$').unwrap_or(path))
}

/// A scenario's `config`: `broker.conf` key → JSON value (any key Pulsar's configuration has, so a
/// map rather than a struct).
pub(crate) type ConfigKeys = IndexMap<String, Value>;

/// `cfg` with the scenario's `config` keys applied; `conf_text` turns a key's JSON value into its
/// `broker.conf` text.
pub(crate) fn config_over(
    mut cfg: LoadBalancerConfig,
    keys: Option<&ConfigKeys>,
    path: &str,
    conf_text: impl Fn(&str, &Value) -> String,
) -> Result<LoadBalancerConfig, ReplayError> {
    for (key, value) in keys.into_iter().flatten() {
        cfg.set_text(key, &conf_text(key, value))
            .map_err(|e| ReplayError::malformed(format!("{path}.{key}"), e.to_string()))?;
    }
    Ok(cfg)
}

/// A Java `long` written as a JSON integer or as a whole float (`10.0`), as Jackson coerces it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Long(pub i64);

/// A Java `int`, read as [`Long`] and then range-checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Int(pub i32);

/// A Java `long` given as a JSON integer or as text in any `Long.decode` form (`0x…`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LongOrText(pub i64);

/// A 32-bit hash boundary: [`LongOrText`] within `0..=0xffffffff`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Boundary(pub u32);

/// Whole floats below 2^53 are exact: beyond that `10.0` could stand for several integers.
fn whole(f: f64) -> Option<i64> {
    (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
}

struct LongVisitor {
    text: bool,
}

impl Visitor<'_> for LongVisitor {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.text {
            "an integer or 0x… text"
        } else {
            "an integer"
        })
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
        Ok(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
        i64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<i64, E> {
        whole(v).ok_or_else(|| E::invalid_value(de::Unexpected::Float(v), &self))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<i64, E> {
        if !self.text {
            return Err(E::invalid_type(de::Unexpected::Str(v), &self));
        }
        parse_hex_boundary(v).map(i64::from).map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for Long {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LongVisitor { text: false }).map(Long)
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = d.deserialize_any(LongVisitor { text: false })?;
        i32::try_from(n)
            .map(Int)
            .map_err(|_| de::Error::custom(format!("{n} is out of range for a 32-bit integer")))
    }
}

impl<'de> Deserialize<'de> for LongOrText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LongVisitor { text: true })
            .map(LongOrText)
    }
}

impl<'de> Deserialize<'de> for Boundary {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = d.deserialize_any(LongVisitor { text: true })?;
        u32::try_from(n)
            .map(Boundary)
            .map_err(|_| de::Error::custom("a boundary must be within 0..=0xffffffff"))
    }
}

/// A key that takes a list (`["b1", "b2"]`) or an object (`{"b1": …}`): several scenario keys
/// accept a list of names as shorthand for an object with default values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ListOrMap<L, M> {
    List(L),
    Map(M),
}

impl<'de, L: Deserialize<'de>, M: Deserialize<'de>> Deserialize<'de> for ListOrMap<L, M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<L, M>(PhantomData<(L, M)>);
        impl<'de, L: Deserialize<'de>, M: Deserialize<'de>> Visitor<'de> for V<L, M> {
            type Value = ListOrMap<L, M>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list or an object")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                L::deserialize(SeqAccessDeserializer::new(seq)).map(ListOrMap::List)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                M::deserialize(MapAccessDeserializer::new(map)).map(ListOrMap::Map)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// `true`/`false` for every bundle, or bundle → flag with `*` as the default (`isOwner`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FlagOrMap {
    All(bool),
    Each(IndexMap<String, bool>),
}

impl<'de> Deserialize<'de> for FlagOrMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FlagOrMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a boolean or an object")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<FlagOrMap, E> {
                Ok(FlagOrMap::All(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<FlagOrMap, A::Error> {
                IndexMap::deserialize(MapAccessDeserializer::new(map)).map(FlagOrMap::Each)
            }
        }
        d.deserialize_any(V)
    }
}

impl FlagOrMap {
    /// The flag of `bundle`: its own entry, else `*`, else `true`.
    pub(crate) fn flag(&self, bundle: &str) -> bool {
        match self {
            FlagOrMap::All(b) => *b,
            FlagOrMap::Each(m) => m
                .get(bundle)
                .or_else(|| m.get("*"))
                .copied()
                .unwrap_or(true),
        }
    }
}

/// `""` (the same-named entry elsewhere in the cycle) or a value of its own (`preallocated`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SameOr<T> {
    Same,
    Own(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for SameOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = SameOr<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"\" or an object")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<SameOr<T>, E> {
                if v.is_empty() {
                    Ok(SameOr::Same)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SameOr<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(SameOr::Own)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NamespaceBundleStats;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Cycle {
        #[serde(default)]
        bundle_stats: IndexMap<String, NamespaceBundleStats>,
        #[serde(default)]
        topics: Option<Int>,
        #[serde(default)]
        boundaries: Vec<Boundary>,
        #[serde(default)]
        is_owner: Option<FlagOrMap>,
        #[serde(default)]
        recently_unloaded_bundles: Option<ListOrMap<Vec<String>, IndexMap<String, Long>>>,
    }

    /// A bad field inside a Pulsar object is named by its own path, below the object's; a key that
    /// is not a plain name is quoted.
    #[test]
    fn errors_name_the_json_path() {
        let at = "$.scenario.cycles[0]";
        let ok: Cycle = read(
            &json!({"bundleStats": {"acme/orders/0x00000000_0x10000000": {"msgRateIn": 12.5}},
                "topics": 7.0, "boundaries": [0, "0x80000000", 4294967295_u64],
                "isOwner": {"*": false, "t/ns/0x00000000_0x80000000": true},
                "recentlyUnloadedBundles": {"t/ns/0x00000000_0x80000000": 1.5e3}}),
            at,
        )
        .unwrap();
        assert_eq!(ok.bundle_stats[0].msg_rate_in, 12.5);
        assert_eq!(ok.topics, Some(Int(7)));
        let b: Vec<u32> = ok.boundaries.iter().map(|b| b.0).collect();
        assert_eq!(b, [0, 0x8000_0000, 0xffff_ffff]);
        let owner = ok.is_owner.as_ref().unwrap();
        assert!(owner.flag("t/ns/0x00000000_0x80000000"));
        assert!(!owner.flag("t/ns/0x80000000_0xffffffff"));
        assert!(FlagOrMap::Each(IndexMap::new()).flag("t/ns/0x00000000_0x80000000"));
        assert!(matches!(
            ok.recently_unloaded_bundles,
            Some(ListOrMap::Map(m)) if m[0] == Long(1500)
        ));
        let e = read::<Cycle>(
            &json!({"bundleStats": {"acme/orders/0x00000000_0x10000000": {"msgRateIn": "fast"}}}),
            at,
        )
        .unwrap_err();
        assert_eq!(
            e,
            ReplayError::malformed(
                format!("{at}.bundleStats[\"acme/orders/0x00000000_0x10000000\"].msgRateIn"),
                "invalid type: string \"fast\", expected f64"
            )
        );
        let e = read::<Cycle>(&json!({"topics": 2.5}), at).unwrap_err();
        assert_eq!(
            e,
            ReplayError::malformed(
                format!("{at}.topics"),
                "invalid value: floating point `2.5`, expected an integer"
            )
        );
        let e = read::<Cycle>(&json!({"boundaries": [4294967296_u64]}), at).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{at}.boundaries[0]: a boundary must be within 0..=0xffffffff")
        );
        let e = read::<Cycle>(&json!({"recentlyUnloadedBundles": 5}), at).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{at}.recentlyUnloadedBundles: invalid type: integer `5`, expected a list or an object"
            )
        );
    }

    /// A key the reader does not know is an error naming it; descriptive keys at the top are not.
    #[test]
    fn unknown_keys_are_errors_except_descriptive_ones() {
        let at = "$.scenario";
        assert!(read::<Cycle>(&json!({"description": "d", "generator": "g"}), at).is_ok());
        let e = read::<Cycle>(&json!({"isOwnr": true}), at).unwrap_err();
        assert_eq!(
            e,
            ReplayError::malformed(
                "$.scenario.isOwnr",
                "unknown key (replay would not read it)"
            )
        );
        let e = read::<Cycle>(
            &json!({"bundleStats": {"t/ns/0x00000000_0xffffffff": {"description": 1}}}),
            at,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.scenario.bundleStats[\"t/ns/0x00000000_0xffffffff\"].description: unknown key (replay would not read it)"
        );
    }
}
