//! Typed leaves of the scenario reader, each refusing a wrong value with the wording the scenario
//! documentation uses ("expected a finite number"): serde names the JSON path (`typed_json`).

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Unexpected, Visitor};

/// A finite JSON number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Finite(pub f64);

impl<'de> Deserialize<'de> for Finite {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Finite;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a finite number")
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<Finite, E> {
                if x.is_finite() {
                    Ok(Finite(x))
                } else {
                    Err(E::invalid_value(Unexpected::Float(x), &self))
                }
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<Finite, E> {
                Ok(Finite(x as f64))
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<Finite, E> {
                Ok(Finite(x as f64))
            }
        }
        d.deserialize_any(V)
    }
}

/// A count: a non-negative integer below 2^32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Count(pub u32);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a non-negative integer below 2^32")
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<Count, E> {
                u32::try_from(x)
                    .map(Count)
                    .map_err(|_| E::invalid_value(Unexpected::Unsigned(x), &self))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<Count, E> {
                u64::try_from(x)
                    .map_err(|_| E::invalid_value(Unexpected::Signed(x), &self))
                    .and_then(|x| self.visit_u64(x))
            }
        }
        d.deserialize_any(V)
    }
}

/// A `broker.conf` value written as JSON: strings verbatim, numbers and booleans in their text
/// form (`true`, `80`, `0.5`, as `config::json_to_conf_text` writes them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConfText(pub String);

impl<'de> Deserialize<'de> for ConfText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ConfText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, number or boolean")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ConfText, E> {
                Ok(ConfText(s.to_string()))
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<ConfText, E> {
                Ok(ConfText(b.to_string()))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<ConfText, E> {
                Ok(ConfText(x.to_string()))
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<ConfText, E> {
                Ok(ConfText(x.to_string()))
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<ConfText, E> {
                // serde_json's own text for the number (`1.0`, `0.85`), as a parsed tree prints it.
                serde_json::Number::from_f64(x)
                    .map(|n| ConfText(n.to_string()))
                    .ok_or_else(|| E::invalid_value(Unexpected::Float(x), &self))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn leaves_accept_what_the_scenario_format_allows() {
        assert_eq!(Finite::deserialize(&json!(2)).unwrap(), Finite(2.0));
        assert_eq!(Finite::deserialize(&json!(-0.5)).unwrap(), Finite(-0.5));
        assert_eq!(
            Finite::deserialize(&json!("2")).unwrap_err().to_string(),
            "invalid type: string \"2\", expected a finite number"
        );
        assert_eq!(
            Count::deserialize(&json!(4294967295u64)).unwrap(),
            Count(u32::MAX)
        );
        assert_eq!(
            Count::deserialize(&json!(4294967296u64))
                .unwrap_err()
                .to_string(),
            "invalid value: integer `4294967296`, expected a non-negative integer below 2^32"
        );
        assert_eq!(
            Count::deserialize(&json!(-1)).unwrap_err().to_string(),
            "invalid value: integer `-1`, expected a non-negative integer below 2^32"
        );
        assert!(Count::deserialize(&json!(1.5)).is_err());
        assert_eq!(ConfText::deserialize(&json!(true)).unwrap().0, "true");
        assert_eq!(ConfText::deserialize(&json!(80)).unwrap().0, "80");
        assert_eq!(ConfText::deserialize(&json!(0.85)).unwrap().0, "0.85");
        assert_eq!(ConfText::deserialize(&json!("x")).unwrap().0, "x");
        assert_eq!(
            ConfText::deserialize(&json!([1])).unwrap_err().to_string(),
            "invalid type: sequence, expected a string, number or boolean"
        );
    }
}
