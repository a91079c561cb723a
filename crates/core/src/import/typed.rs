//! Building blocks for the typed readers: serde types that accept any JSON value and remember what
//! they found, so the checks run on the typed value can say "expected a string, found the number 1"
//! at the field's JSON path, exactly as before. A container where a scalar is expected is skipped
//! (drained with `IgnoredAny`), never stored: a typed read of an unexpected shape allocates no tree.
//! Syntax errors keep their line/column messages ([`from_text`]).
//!
//! Why not [`crate::typed_json`], the reader of every other format: there serde refuses a value
//! while reading it, with serde's words ("invalid type: string \"x\", expected f64"). The importer
//! reads first and checks after, in its `Ctx`: the checks word each message on what was found
//! ("expected a number, found the string \"x\""), add the domain rules serde does not know
//! (non-negative rates, 32-bit counts, a report's consistency) with the file name, and turn unknown
//! keys into typed warnings (`WarningKind::UnknownField`). Its leaf types therefore accept any value;
//! serde-derived fields could only do that by keeping a tree per value, losing the bounded memory
//! above. Use this module only inside `import/`; a format that is simply refused when malformed
//! (a vector, an options object, a report we write ourselves) belongs to `typed_json`.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use indexmap::{IndexMap, IndexSet};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::diag::ImportError;
use super::json::{Ctx, JPath, describe};

/// Any JSON value: a string (borrowed from the text unless it had escapes), or anything else as a
/// `Value` whose arrays and objects are left empty (only their kind is needed for messages).
#[derive(Debug)]
pub(crate) enum Leaf<'a> {
    Str(Cow<'a, str>),
    Other(Value),
}

impl Leaf<'_> {
    /// As a `Value`, for the `Ctx` readers (a string is copied: those only read it on error paths).
    pub(crate) fn value(&self) -> Cow<'_, Value> {
        match self {
            Leaf::Str(s) => Cow::Owned(Value::String(s.to_string())),
            Leaf::Other(v) => Cow::Borrowed(v),
        }
    }

    /// `Ctx::string`'s check and message.
    pub(crate) fn string(&self, ctx: &Ctx<'_>, p: &JPath<'_>) -> Result<&str, ImportError> {
        match self {
            Leaf::Str(s) => Ok(s),
            Leaf::Other(v) => Err(ctx.err(p, format!("expected a string, found {}", describe(v)))),
        }
    }

    /// "an array", "the number 3", … as `json::describe` says it.
    pub(crate) fn describe(&self) -> String {
        describe(&self.value())
    }
}

/// The visitor behind [`Leaf`], shared by [`List`] and [`Object`] for what they do not expect.
struct LeafV<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for LeafV<'a> {
    type Value = Leaf<'a>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Leaf<'a>, E> {
        Ok(Leaf::Other(Value::Bool(b)))
    }
    fn visit_i64<E: de::Error>(self, x: i64) -> Result<Leaf<'a>, E> {
        Ok(Leaf::Other(Value::Number(x.into())))
    }
    fn visit_u64<E: de::Error>(self, x: u64) -> Result<Leaf<'a>, E> {
        Ok(Leaf::Other(Value::Number(x.into())))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Leaf<'a>, E> {
        // JSON text has no NaN or infinity; `null` is what serde_json would make of one.
        Ok(Leaf::Other(
            Number::from_f64(x).map_or(Value::Null, Value::Number),
        ))
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Leaf<'a>, E> {
        Ok(Leaf::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Leaf<'a>, E> {
        Ok(Leaf::Str(Cow::Owned(s.to_string())))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Leaf<'a>, E> {
        Ok(Leaf::Str(Cow::Owned(s)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Leaf<'a>, E> {
        Ok(Leaf::Other(Value::Null))
    }
    fn visit_none<E: de::Error>(self) -> Result<Leaf<'a>, E> {
        Ok(Leaf::Other(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Leaf<'a>, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Leaf<'a>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Leaf::Other(Value::Array(Vec::new())))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Leaf<'a>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Leaf::Other(Value::Object(Map::new())))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Leaf<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LeafV(PhantomData))
    }
}

/// An object key, borrowed unless it had escapes.
pub(crate) struct Key<'a>(pub(crate) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_str(LeafV(PhantomData))? {
            Leaf::Str(s) => Ok(Key(s)),
            Leaf::Other(_) => Err(de::Error::custom("expected a string key")),
        }
    }
}

/// A JSON array of `T`, or what was found instead.
pub(crate) enum List<'a, T> {
    Items(Vec<T>),
    Not(Leaf<'a>),
}

/// A JSON object read as `T` (whose `Deserialize` reads a map), or what was found instead.
pub(crate) enum Object<'a, T> {
    Obj(T),
    Not(Leaf<'a>),
}

/// Forwards every non-container visit to [`LeafV`], wrapping the leaf with `$wrap`.
macro_rules! forward_scalars {
    ($wrap:path) => {
        fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
            LeafV(PhantomData).visit_bool(b).map($wrap)
        }
        fn visit_i64<E: de::Error>(self, x: i64) -> Result<Self::Value, E> {
            LeafV(PhantomData).visit_i64(x).map($wrap)
        }
        fn visit_u64<E: de::Error>(self, x: u64) -> Result<Self::Value, E> {
            LeafV(PhantomData).visit_u64(x).map($wrap)
        }
        fn visit_f64<E: de::Error>(self, x: f64) -> Result<Self::Value, E> {
            LeafV(PhantomData).visit_f64(x).map($wrap)
        }
        fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
            LeafV(PhantomData).visit_borrowed_str(s).map($wrap)
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
            LeafV(PhantomData).visit_str(s).map($wrap)
        }
        fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
            LeafV(PhantomData).visit_string(s).map($wrap)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            LeafV(PhantomData).visit_unit().map($wrap)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            LeafV(PhantomData).visit_none().map($wrap)
        }
    };
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for List<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a, T>(PhantomData<(&'a (), T)>);
        impl<'de: 'a, 'a, T: Deserialize<'de>> Visitor<'de> for V<'a, T> {
            type Value = List<'a, T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            forward_scalars!(List::Not);
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                // The hint is the element count of an in-memory `Value`, none for text.
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(x) = seq.next_element()? {
                    out.push(x);
                }
                Ok(List::Items(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                LeafV(PhantomData).visit_map(map).map(List::Not)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for Object<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a, T>(PhantomData<(&'a (), T)>);
        impl<'de: 'a, 'a, T: Deserialize<'de>> Visitor<'de> for V<'a, T> {
            type Value = Object<'a, T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            forward_scalars!(Object::Not);
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                LeafV(PhantomData).visit_seq(seq).map(Object::Not)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Object::Obj)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

impl<'a, T> Object<'a, T> {
    /// `Ctx::object`'s check and message: `what` names the expected object.
    pub(crate) fn get(self, ctx: &Ctx<'_>, p: &JPath<'_>, what: &str) -> Result<T, ImportError> {
        match self {
            Object::Obj(t) => Ok(t),
            Object::Not(l) => Err(ctx.err(
                p,
                format!("expected {what} (a JSON object), found {}", l.describe()),
            )),
        }
    }
}

impl<'a, T> List<'a, T> {
    /// `Ctx::array`'s check and message.
    pub(crate) fn get(self, ctx: &Ctx<'_>, p: &JPath<'_>) -> Result<Vec<T>, ImportError> {
        match self {
            List::Items(v) => Ok(v),
            List::Not(l) => Err(ctx.err(p, format!("expected an array, found {}", l.describe()))),
        }
    }
}

/// A JSON object's entries in document order, each value read as `T`. A repeated key keeps its
/// first place and the later value, as a parsed tree does (`json_guard` warns about it).
pub(crate) struct Entries<'a, T>(pub(crate) IndexMap<Cow<'a, str>, T>);

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for Entries<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a, T>(PhantomData<(&'a (), T)>);
        impl<'de: 'a, 'a, T: Deserialize<'de>> Visitor<'de> for V<'a, T> {
            type Value = Entries<'a, T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                // The hint is the entry count of an in-memory `Value`, none for text.
                let mut out = IndexMap::with_capacity(map.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(Key(k)) = map.next_key::<Key<'a>>()? {
                    out.insert(k, map.next_value()?);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// Keys of an object not read, in document order, each once (a repeated key is warned about by
/// `json_guard`); `Ctx::check_known` turns them into warnings.
///
/// The set is made at the first unknown key: most objects have none, and a large import reads
/// hundreds of thousands of them.
#[derive(Default)]
pub(crate) struct Unknown<'a>(Option<IndexSet<Cow<'a, str>>>);

impl<'a> Unknown<'a> {
    pub(crate) fn add(&mut self, k: Cow<'a, str>) {
        self.0.get_or_insert_with(IndexSet::new).insert(k);
    }

    /// One `unknown field` warning per key, as `Ctx::check_known` gives them.
    pub(crate) fn warn(&self, ctx: &mut Ctx<'_>, p: &JPath<'_>) {
        for k in self.0.iter().flatten() {
            ctx.warn(
                super::diag::WarningKind::UnknownField,
                p,
                format!("unknown field `{k}` ignored"),
            );
        }
    }
}

/// Reads `text` as `T`: the typed types above never refuse a value, so an error is the text's
/// syntax, named by line and column (`json::syntax_error`).
pub(crate) fn from_text<'a, T: Deserialize<'a>>(
    file: &str,
    text: &'a str,
) -> Result<T, ImportError> {
    serde_json::from_str(text).map_err(|e| super::json::syntax_error(file, text, &e))
}

/// Implements `Deserialize` for a `Default` struct of `Option` fields read from a JSON object by
/// key. A repeated key keeps the later value (as a parsed tree would; `json_guard` warns about it).
/// Other keys are skipped, and collected into the named [`Unknown`] field when there is one.
macro_rules! json_object {
    ($name:ident, $what:literal, { $($key:literal => $field:ident),* $(,)? } $(, unknown: $unknown:ident)?) => {
        impl<'de: 'a, 'a> serde::Deserialize<'de> for $name<'a> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V<'a>(std::marker::PhantomData<&'a ()>);
                impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
                    type Value = $name<'a>;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<Self::Value, A::Error> {
                        let mut out = $name::default();
                        while let Some($crate::import::typed::Key(k)) =
                            map.next_key::<$crate::import::typed::Key<'a>>()?
                        {
                            match k.as_ref() {
                                $($key => out.$field = map.next_value()?,)*
                                _ => {
                                    map.next_value::<serde::de::IgnoredAny>()?;
                                    $(out.$unknown.add(k);)?
                                }
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_map(V(std::marker::PhantomData))
            }
        }
    };
}
pub(crate) use json_object;
