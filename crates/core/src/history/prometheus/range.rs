//! The Prometheus HTTP API's answers read within limits: the `/api/v1/query_range` (and
//! `/api/v1/query` of a range selector) matrix, `/api/v1/series` label sets, and the error
//! envelope (`{"status":"error","errorType":…,"error":…}`). An answer in Prometheus' own shape is
//! read in one pass over the bytes; any other (and any that reaches a cap) by serde, one series at
//! a time by a counting visitor, so an answer with millions of series or points stops at the cap
//! with an error naming the query instead of building them.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One series of a range result: its labels (sorted by name, `__name__` included) and its points
/// (time in ms since the epoch, value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromSeries {
    pub labels: Vec<(String, String)>,
    pub points: Vec<(i64, f64)>,
}

impl PromSeries {
    /// The value of label `name`, if the series has it.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What one answer may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeLimits {
    pub max_series: usize,
    /// Points of all series of the answer together.
    pub max_points: usize,
    /// Labels of one series.
    pub max_labels: usize,
}

impl Default for RangeLimits {
    fn default() -> Self {
        // 10,000 bundles × 7 metrics fit; a day of 1-minute steps for one series is 1,440 points.
        Self {
            max_series: 200_000,
            max_points: 20_000_000,
            max_labels: 64,
        }
    }
}

/// Why an answer was refused; the caller names the query.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RangeError {
    /// Prometheus' own error envelope.
    #[error("Prometheus answered an error ({error_type}): {error}")]
    Prometheus { error_type: String, error: String },
    #[error("more than {max} series in one answer (cap on series per query; narrow the query)")]
    TooManySeries { max: usize },
    #[error("more than {max} points in one answer (cap on points per query; a shorter window)")]
    TooManyPoints { max: usize },
    #[error("a series with more than {max} labels")]
    TooManyLabels { max: usize },
    #[error("not a Prometheus API answer: {0}")]
    Malformed(String),
    #[error("resultType is `{0}`, expected `matrix` (a range query)")]
    NotMatrix(String),
}

/// Reads a `query_range` answer: its series, and Prometheus' warnings.
pub fn parse_matrix(
    body: &[u8],
    limits: RangeLimits,
) -> Result<(Vec<PromSeries>, Vec<String>), RangeError> {
    if let Some(series) = one_pass_matrix(body, limits) {
        return Ok((series, Vec::new()));
    }
    let mut counter = Counter {
        limits,
        points: 0,
        failure: None,
    };
    let mut de = serde_json::Deserializer::from_slice(body);
    let parsed = EnvelopeSeed {
        counter: &mut counter,
    }
    .deserialize(&mut de);
    if let Some(f) = counter.failure.take() {
        return Err(f);
    }
    let env = parsed.map_err(|e| RangeError::Malformed(e.to_string()))?;
    de.end().map_err(|e| RangeError::Malformed(e.to_string()))?;
    if env.status != "success" {
        return Err(RangeError::Prometheus {
            error_type: env.error_type.unwrap_or_else(|| "unknown".into()),
            error: env.error.unwrap_or_default(),
        });
    }
    match env.result_type.as_deref() {
        Some("matrix") => {}
        Some(other) => return Err(RangeError::NotMatrix(other.to_string())),
        None => return Err(RangeError::Malformed("no data.resultType".into())),
    }
    Ok((env.series, env.warnings))
}

/// Reads an error answer's envelope, if the body is one (a non-2xx answer usually is).
pub fn parse_error(body: &[u8]) -> Option<RangeError> {
    #[derive(Deserialize)]
    struct ErrorEnvelope {
        status: String,
        #[serde(rename = "errorType", default)]
        error_type: Option<String>,
        #[serde(default)]
        error: Option<String>,
    }
    let e: ErrorEnvelope = serde_json::from_slice(body).ok()?;
    (e.status == "error").then(|| RangeError::Prometheus {
        error_type: e.error_type.unwrap_or_else(|| "unknown".into()),
        error: e.error.unwrap_or_default(),
    })
}

/// Reads a `/api/v1/series` answer: each series' labels, sorted, at most `limits.max_series`.
pub fn parse_series_list(
    body: &[u8],
    limits: RangeLimits,
) -> Result<Vec<Vec<(String, String)>>, RangeError> {
    if let Some(e) = parse_error(body) {
        return Err(e);
    }
    let mut failure = None;
    let mut de = serde_json::Deserializer::from_slice(body);
    let read = SeriesListSeed {
        limits,
        failure: &mut failure,
    }
    .deserialize(&mut de);
    if let Some(f) = failure {
        return Err(f);
    }
    let sets = read.map_err(|e| RangeError::Malformed(e.to_string()))?;
    de.end().map_err(|e| RangeError::Malformed(e.to_string()))?;
    sets.ok_or_else(|| RangeError::Malformed("no data array".into()))
}

/// `{"status":"success","data":[{labels}, …]}`, counting the label sets.
struct SeriesListSeed<'f> {
    limits: RangeLimits,
    failure: &'f mut Option<RangeError>,
}

impl<'de> DeserializeSeed<'de> for SeriesListSeed<'_> {
    type Value = Option<Vec<Vec<(String, String)>>>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SeriesListSeed<'_> {
    type Value = Option<Vec<Vec<(String, String)>>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Prometheus API envelope object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "data" {
                out = Some(map.next_value_seed(LabelSetsSeed {
                    limits: self.limits,
                    failure: &mut *self.failure,
                })?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(out)
    }
}

struct LabelSetsSeed<'f> {
    limits: RangeLimits,
    failure: &'f mut Option<RangeError>,
}

impl<'de> DeserializeSeed<'de> for LabelSetsSeed<'_> {
    type Value = Vec<Vec<(String, String)>>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for LabelSetsSeed<'_> {
    type Value = Vec<Vec<(String, String)>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of label sets")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(mut set) = seq.next_element_seed(LabelsSeed(self.limits.max_labels))? {
            if out.len() >= self.limits.max_series {
                *self.failure = Some(RangeError::TooManySeries {
                    max: self.limits.max_series,
                });
                return Err(de::Error::custom("too many series"));
            }
            set.sort();
            out.push(set);
        }
        Ok(out)
    }
}

struct Counter {
    limits: RangeLimits,
    points: usize,
    /// The cap that stopped the read (the parser's own error is then only the way out).
    failure: Option<RangeError>,
}

struct Envelope {
    status: String,
    error_type: Option<String>,
    error: Option<String>,
    result_type: Option<String>,
    series: Vec<PromSeries>,
    warnings: Vec<String>,
}

struct EnvelopeSeed<'c> {
    counter: &'c mut Counter,
}

impl<'de> DeserializeSeed<'de> for EnvelopeSeed<'_> {
    type Value = Envelope;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Envelope, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EnvelopeSeed<'_> {
    type Value = Envelope;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Prometheus API envelope object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope, A::Error> {
        let mut env = Envelope {
            status: String::new(),
            error_type: None,
            error: None,
            result_type: None,
            series: Vec::new(),
            warnings: Vec::new(),
        };
        let mut has_status = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "status" => {
                    env.status = map.next_value()?;
                    has_status = true;
                }
                "errorType" => env.error_type = map.next_value()?,
                "error" => env.error = map.next_value()?,
                "warnings" => env.warnings = map.next_value()?,
                "data" => {
                    let (rt, series) = map.next_value_seed(DataSeed {
                        counter: &mut *self.counter,
                    })?;
                    env.result_type = rt;
                    env.series = series;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !has_status {
            return Err(de::Error::missing_field("status"));
        }
        Ok(env)
    }
}

struct DataSeed<'c> {
    counter: &'c mut Counter,
}

impl<'de> DeserializeSeed<'de> for DataSeed<'_> {
    type Value = (Option<String>, Vec<PromSeries>);
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DataSeed<'_> {
    type Value = (Option<String>, Vec<PromSeries>);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("data: {resultType, result}")
    }
    // An error answer may carry `"data": null` or anything else; only an object is read.
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok((None, Vec::new()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut result_type = None;
        let mut series = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "resultType" => result_type = Some(map.next_value::<String>()?),
                "result" => {
                    series = map.next_value_seed(ResultSeed {
                        counter: &mut *self.counter,
                    })?
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok((result_type, series))
    }
}

struct ResultSeed<'c> {
    counter: &'c mut Counter,
}

impl<'de> DeserializeSeed<'de> for ResultSeed<'_> {
    type Value = Vec<PromSeries>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ResultSeed<'_> {
    type Value = Vec<PromSeries>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of series")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        loop {
            if out.len() >= self.counter.limits.max_series {
                // One more series would pass the cap: stop before building it.
                if seq.next_element::<IgnoredAny>()?.is_some() {
                    self.counter.failure = Some(RangeError::TooManySeries {
                        max: self.counter.limits.max_series,
                    });
                    return Err(de::Error::custom("too many series"));
                }
                return Ok(out);
            }
            match seq.next_element_seed(SeriesSeed {
                counter: &mut *self.counter,
            })? {
                Some(s) => out.push(s),
                None => return Ok(out),
            }
        }
    }
}

struct SeriesSeed<'c> {
    counter: &'c mut Counter,
}

impl<'de> DeserializeSeed<'de> for SeriesSeed<'_> {
    type Value = PromSeries;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SeriesSeed<'_> {
    type Value = PromSeries;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a series {metric, values}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PromSeries, A::Error> {
        let mut s = PromSeries::default();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            match key.as_ref() {
                "metric" => {
                    let max = self.counter.limits.max_labels;
                    s.labels = map.next_value_seed(LabelsSeed(max))?;
                }
                "values" => {
                    let raw: &'de serde_json::value::RawValue = map.next_value()?;
                    s.points =
                        read_values(raw.get(), &mut *self.counter).map_err(de::Error::custom)?;
                }
                // A `query` answer's one sample reads as one point.
                "value" => {
                    s.points = map.next_value_seed(PointSeed {
                        counter: &mut *self.counter,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        s.labels.sort();
        Ok(s)
    }
}

/// A map key, borrowed from the answer when it has no escapes (read once per series: no
/// allocation for it).
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

struct LabelsSeed(usize);

impl<'de> DeserializeSeed<'de> for LabelsSeed {
    type Value = Vec<(String, String)>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LabelsSeed {
    type Value = Vec<(String, String)>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of label names to values")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, String>()? {
            if out.len() >= self.0 {
                return Err(de::Error::custom(format!(
                    "a series with more than {} labels",
                    self.0
                )));
            }
            out.push((k, v));
        }
        Ok(out)
    }
}

/// `value`: a `query` answer's one `[<unix seconds>, "<value>"]` pair.
struct PointSeed<'c> {
    counter: &'c mut Counter,
}

impl<'de> DeserializeSeed<'de> for PointSeed<'_> {
    type Value = Vec<(i64, f64)>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PointSeed<'_> {
    type Value = Vec<(i64, f64)>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("[time, \"value\"] pairs")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let t: f64 = seq
            .next_element()?
            .ok_or_else(|| de::Error::custom("a sample without its time"))?;
        let v: std::borrow::Cow<'de, str> = seq
            .next_element()?
            .ok_or_else(|| de::Error::custom("a sample without its value"))?;
        self.counter.points += 1;
        Ok(vec![sample(t, &v).map_err(de::Error::custom)?])
    }
}

/// One sample: the time in ms since the epoch, and the value Prometheus spelled as Go's strconv
/// ("NaN", "+Inf", "-Inf", "1e+06").
fn sample(t: f64, text: &str) -> Result<(i64, f64), String> {
    let ms = (t * 1000.0).round();
    if !ms.is_finite() || !(0.0..=crate::history::MAX_TIME_MS as f64).contains(&ms) {
        return Err(format!("a sample time {t} is not a time"));
    }
    Ok((ms as i64, sample_value(text)?))
}

fn sample_value(text: &str) -> Result<f64, String> {
    match text {
        "+Inf" | "Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        _ => text
            .parse::<f64>()
            .map_err(|_| format!("a sample value {text:?} is not a number")),
    }
}

/// Reads a `values` array the parser has already checked is JSON (a borrowed raw value): at
/// ~60 pairs a series and hundreds of thousands of series a window, a scan of the bytes that
/// reads each time and value in place is about half the cost of a visitor per pair. The points
/// cap is counted pair by pair, as before.
fn read_values(text: &str, counter: &mut Counter) -> Result<Vec<(i64, f64)>, String> {
    let mut scan = Scan {
        text,
        at: 0,
        strict: false,
    };
    scan_values(&mut scan, counter)
}

fn scan_values(scan: &mut Scan<'_>, counter: &mut Counter) -> Result<Vec<(i64, f64)>, String> {
    scan.expect(b'[', "values is not an array of [time, \"value\"] pairs")?;
    let remaining = counter.limits.max_points.saturating_sub(counter.points);
    // A pair of a day's answer is about 24 bytes (the raw array's length is known; in one pass,
    // an hour of minutes is guessed); the cap bounds the guess.
    let guess = if scan.strict {
        60
    } else {
        scan.text.len() / 20 + 1
    };
    let mut out = Vec::with_capacity(guess.min(remaining));
    if scan.eat(b']') {
        return Ok(out);
    }
    loop {
        if counter.points >= counter.limits.max_points {
            counter.failure = Some(RangeError::TooManyPoints {
                max: counter.limits.max_points,
            });
            return Err("too many points".into());
        }
        scan.expect(b'[', "a sample is not a [time, \"value\"] pair")?;
        if scan.peek() == Some(b']') {
            return Err("a sample without its time".into());
        }
        let t = scan.time()?;
        if !scan.eat(b',') {
            return Err("a sample without its value".into());
        }
        let value = scan.value()?;
        scan.expect(b']', "a sample with more than a time and a value")?;
        counter.points += 1;
        out.push((t, value));
        if scan.eat(b']') {
            return Ok(out);
        }
        scan.expect(b',', "values is not an array of [time, \"value\"] pairs")?;
    }
}

/// A cursor over checked JSON text; whitespace skipped before each token.
struct Scan<'a> {
    text: &'a str,
    at: usize,
    /// Unchecked text (the one-pass reader): only times spelled as exact milliseconds and values
    /// without escapes are read; anything else is left to serde.
    strict: bool,
}

impl<'a> Scan<'a> {
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.at) {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    fn eat(&mut self, want: u8) -> bool {
        let hit = self.peek() == Some(want);
        if hit {
            self.at += 1;
        }
        hit
    }

    fn expect(&mut self, want: u8, what: &str) -> Result<(), String> {
        if self.eat(want) {
            Ok(())
        } else {
            Err(what.to_string())
        }
    }

    /// A string without escapes or control characters (the one-pass reader's keys and labels).
    fn plain_string(&mut self) -> Option<&'a str> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        let rest = self.text.as_bytes().get(start..)?;
        let len = memchr::memchr2(b'"', b'\\', rest)?;
        if rest.get(len) != Some(&b'"') || rest.get(..len)?.iter().any(|&b| b < 0x20) {
            return None;
        }
        self.at = start + len + 1;
        self.text.get(start..start + len)
    }

    /// The token up to the next delimiter (a number, `true`, `null`, …).
    fn token(&mut self) -> &'a str {
        self.peek();
        let start = self.at;
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.at) {
            if matches!(b, b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t') {
                break;
            }
            self.at += 1;
        }
        self.text.get(start..self.at).unwrap_or("")
    }

    /// `<unix seconds>`: whole seconds with up to 3 decimals (what Prometheus writes) are read as
    /// exact milliseconds, which is what rounding the parsed float gives for them; anything else
    /// goes through the float.
    fn time(&mut self) -> Result<i64, String> {
        if self.peek() == Some(b'"') {
            return Err("a sample time is not a number".into());
        }
        let token = self.token();
        if let Some(ms) = exact_ms(token.as_bytes()) {
            return Ok(ms);
        }
        if self.strict {
            return Err("a time left to serde".into());
        }
        let t = token
            .parse::<f64>()
            .map_err(|_| format!("a sample time {token} is not a number"))?;
        sample(t, "0").map(|(ms, _)| ms)
    }

    /// `"<value>"`, read in place unless it has escapes (Prometheus writes none).
    fn value(&mut self) -> Result<f64, String> {
        if self.peek() != Some(b'"') {
            let token = self.token();
            return Err(format!("a sample value {token} is not a string"));
        }
        let start = self.at + 1;
        let rest = self.text.as_bytes().get(start..).unwrap_or(&[]);
        let Some(len) = memchr::memchr2(b'"', b'\\', rest) else {
            return Err("a sample value string without its end".into());
        };
        if rest.get(len) == Some(&b'"') {
            self.at = start + len + 1;
            return sample_value(self.text.get(start..start + len).unwrap_or(""));
        }
        if self.strict {
            return Err("an escaped value left to serde".into());
        }
        // Escapes: the checked string's end is the first quote not escaped.
        let mut end = start + len;
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(end) {
            match b {
                b'\\' => end += 2,
                b'"' => break,
                _ => end += 1,
            }
        }
        let quoted = self.text.get(start - 1..end + 1).unwrap_or("");
        self.at = end + 1;
        let text: String = serde_json::from_str(quoted).map_err(|e| e.to_string())?;
        sample_value(&text)
    }
}

/// Reads a success answer as Prometheus writes it (the envelope's known keys only, no escapes,
/// times with up to 3 decimals) in one pass over the bytes; `None` for anything else (an error,
/// warnings, a cap reached, text that may not be JSON), which the serde reader then reads with
/// its own errors. Serde checking the text first and a scan reading it again cost twice this.
fn one_pass_matrix(body: &[u8], limits: RangeLimits) -> Option<Vec<PromSeries>> {
    let text = std::str::from_utf8(body).ok()?;
    let mut scan = Scan {
        text,
        at: 0,
        strict: true,
    };
    let mut counter = Counter {
        limits,
        points: 0,
        failure: None,
    };
    let (mut success, mut series) = (false, None);
    scan.eat(b'{').then_some(())?;
    loop {
        let key = scan.plain_string()?;
        scan.eat(b':').then_some(())?;
        match key {
            "status" if !success => {
                (scan.plain_string()? == "success").then_some(())?;
                success = true;
            }
            "data" if series.is_none() => series = Some(one_pass_data(&mut scan, &mut counter)?),
            _ => return None,
        }
        if scan.eat(b'}') {
            break;
        }
        scan.eat(b',').then_some(())?;
    }
    (success && scan.peek().is_none()).then_some(series?)
}

fn one_pass_data(scan: &mut Scan<'_>, counter: &mut Counter) -> Option<Vec<PromSeries>> {
    let (mut matrix, mut series) = (false, None);
    scan.eat(b'{').then_some(())?;
    loop {
        let key = scan.plain_string()?;
        scan.eat(b':').then_some(())?;
        match key {
            "resultType" if !matrix => {
                (scan.plain_string()? == "matrix").then_some(())?;
                matrix = true;
            }
            "result" if series.is_none() => series = Some(one_pass_result(scan, counter)?),
            _ => return None,
        }
        if scan.eat(b'}') {
            break;
        }
        scan.eat(b',').then_some(())?;
    }
    matrix.then_some(series?)
}

fn one_pass_result(scan: &mut Scan<'_>, counter: &mut Counter) -> Option<Vec<PromSeries>> {
    let mut out = Vec::new();
    scan.eat(b'[').then_some(())?;
    if scan.eat(b']') {
        return Some(out);
    }
    loop {
        (out.len() < counter.limits.max_series).then_some(())?;
        out.push(one_pass_series(scan, counter)?);
        if scan.eat(b']') {
            return Some(out);
        }
        scan.eat(b',').then_some(())?;
    }
}

fn one_pass_series(scan: &mut Scan<'_>, counter: &mut Counter) -> Option<PromSeries> {
    let mut s = PromSeries::default();
    let (mut metric, mut values) = (false, false);
    scan.eat(b'{').then_some(())?;
    if !scan.eat(b'}') {
        loop {
            let key = scan.plain_string()?;
            scan.eat(b':').then_some(())?;
            match key {
                "metric" if !metric => {
                    s.labels = one_pass_labels(scan, counter.limits.max_labels)?;
                    metric = true;
                }
                "values" if !values => {
                    s.points = scan_values(scan, counter).ok()?;
                    values = true;
                }
                _ => return None,
            }
            if scan.eat(b'}') {
                break;
            }
            scan.eat(b',').then_some(())?;
        }
    }
    s.labels.sort();
    Some(s)
}

fn one_pass_labels(scan: &mut Scan<'_>, max: usize) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    scan.eat(b'{').then_some(())?;
    if scan.eat(b'}') {
        return Some(out);
    }
    loop {
        let name = scan.plain_string()?;
        scan.eat(b':').then_some(())?;
        let value = scan.plain_string()?;
        (out.len() < max).then_some(())?;
        out.push((name.to_string(), value.to_string()));
        if scan.eat(b'}') {
            return Some(out);
        }
        scan.eat(b',').then_some(())?;
    }
}

/// `digits[.d{1,3}]` as milliseconds, if the time is spelled so and within range.
fn exact_ms(token: &[u8]) -> Option<i64> {
    let (whole, frac) = match token.iter().position(|&b| b == b'.') {
        Some(dot) => (token.get(..dot)?, token.get(dot + 1..)?),
        None => (token, &[][..]),
    };
    // A leading zero ("01") is not JSON.
    if whole.len() > 1 && whole.first() == Some(&b'0') {
        return None;
    }
    if whole.is_empty()
        || whole.len() > 12
        || frac.len() > 3
        || (frac.is_empty() && token.len() != whole.len())
    {
        return None;
    }
    let mut ms: i64 = 0;
    for &b in whole {
        if !b.is_ascii_digit() {
            return None;
        }
        ms = ms * 10 + i64::from(b - b'0');
    }
    let mut scale = 1000;
    for &b in frac {
        if !b.is_ascii_digit() {
            return None;
        }
        scale /= 10;
        ms = ms * 10 + i64::from(b - b'0');
    }
    let ms = ms * scale;
    // The range is the float path's.
    (ms <= crate::history::MAX_TIME_MS).then_some(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_matrix_shape() {
        // The example of Prometheus' docs/querying/api.md (v2.42.0), "Range queries".
        let body = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"__name__":"up","job":"prometheus","instance":"localhost:9090"},
             "values":[[1435781430.781,"1"],[1435781445.781,"1"],[1435781460.781,"1"]]},
            {"metric":{"__name__":"up","job":"node","instance":"localhost:9091"},
             "values":[[1435781430.781,"0"],[1435781445.781,"0"],[1435781460.781,"1"]]}]}}"#;
        let (series, warnings) = parse_matrix(body, RangeLimits::default()).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(series.len(), 2);
        assert_eq!(series[1].label("instance"), Some("localhost:9091"));
        assert_eq!(
            series[1].points,
            vec![
                (1_435_781_430_781, 0.0),
                (1_435_781_445_781, 0.0),
                (1_435_781_460_781, 1.0)
            ]
        );
    }

    #[test]
    fn the_error_envelope_is_an_error_with_its_type() {
        let body = br#"{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"}"#;
        let e = parse_matrix(body, RangeLimits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Prometheus answered an error (bad_data): exceeded maximum resolution of 11,000 \
             points per timeseries. Try decreasing the query resolution (?step=XX)"
        );
        assert_eq!(parse_error(body), Some(e));
    }

    #[test]
    fn caps_stop_the_read() {
        let body = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"a":"1"},"values":[[1,"1"]]},{"metric":{"a":"2"},"values":[[1,"1"]]},
            {"metric":{"a":"3"},"values":[[1,"1"],[2,"2"]]}]}}"#;
        let few = RangeLimits {
            max_series: 2,
            ..RangeLimits::default()
        };
        assert_eq!(
            parse_matrix(body, few).unwrap_err(),
            RangeError::TooManySeries { max: 2 }
        );
        let points = RangeLimits {
            max_points: 3,
            ..RangeLimits::default()
        };
        assert_eq!(
            parse_matrix(body, points).unwrap_err(),
            RangeError::TooManyPoints { max: 3 }
        );
    }

    #[test]
    fn special_values_and_bad_ones() {
        let body = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{},"values":[[1,"NaN"],[2,"+Inf"],[3,"1e+06"]]}]}}"#;
        let (s, _) = parse_matrix(body, RangeLimits::default()).unwrap();
        assert!(s[0].points[0].1.is_nan());
        assert_eq!(s[0].points[1].1, f64::INFINITY);
        assert_eq!(s[0].points[2].1, 1e6);
        let bad = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{},"values":[[1,"x"]]}]}}"#;
        assert!(matches!(
            parse_matrix(bad, RangeLimits::default()),
            Err(RangeError::Malformed(_))
        ));
        let vector = br#"{"status":"success","data":{"resultType":"vector","result":[]}}"#;
        assert_eq!(
            parse_matrix(vector, RangeLimits::default()).unwrap_err(),
            RangeError::NotMatrix("vector".into())
        );
    }

    #[test]
    fn values_are_read_as_prometheus_spells_them() {
        // Go's strconv.FormatFloat(v, 'f', -1, 64) as Prometheus' API writes sample values, times
        // as seconds with up to 3 decimals; whitespace and an escaped value are valid JSON too.
        let body = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"__name__":"m"},"values":[ [ 1435781430.781 , "-Inf" ] ,
              [1435781430.7,"Inf"],[1435781431,"+Inf"],[1.5e3,"-0.25"],[0.001,"\u0031e-3"],
              [1435781432.0,"NaN"]]}]}}"#;
        let (s, _) = parse_matrix(body, RangeLimits::default()).unwrap();
        let p = &s[0].points;
        assert_eq!(p.len(), 6);
        assert_eq!(p[0], (1_435_781_430_781, f64::NEG_INFINITY));
        assert_eq!(p[1], (1_435_781_430_700, f64::INFINITY));
        assert_eq!(p[2], (1_435_781_431_000, f64::INFINITY));
        assert_eq!(p[3], (1_500_000, -0.25));
        assert_eq!(p[4], (1, 0.001));
        assert_eq!(p[5].0, 1_435_781_432_000);
        assert!(p[5].1.is_nan());
    }

    #[test]
    fn a_malformed_pair_is_malformed_naming_what() {
        let read = |values: &str| {
            let body = format!(
                r#"{{"status":"success","data":{{"resultType":"matrix","result":[{{"metric":{{}},"values":{values}}}]}}}}"#
            );
            match parse_matrix(body.as_bytes(), RangeLimits::default()) {
                Err(RangeError::Malformed(m)) => m,
                other => panic!("{values}: {other:?}"),
            }
        };
        assert!(read(r#"[[1,"x"]]"#).starts_with(r#"a sample value "x" is not a number"#));
        assert!(read(r#"[[1,"1"],[2]]"#).starts_with("a sample without its value"));
        assert!(read(r#"[[]]"#).starts_with("a sample without its time"));
        assert!(read(r#"[[1,"1",3]]"#).starts_with("a sample with more than a time and a value"));
        assert!(read(r#"[[1,2]]"#).starts_with("a sample value 2 is not a string"));
        assert!(read(r#"[["1","2"]]"#).starts_with("a sample time is not a number"));
        assert!(read(r#"[[-1,"2"]]"#).starts_with("a sample time -1 is not a time"));
        // The time as the float prints it, after the year 9999 (in or out of the exact path).
        assert!(read(r#"[[1e12,"2"]]"#).starts_with("a sample time 1000000000000 is not a time"));
        assert!(
            read(r#"[[300000000000,"2"]]"#).starts_with("a sample time 300000000000 is not a time")
        );
        assert!(read(r#"{"a":1}"#).starts_with("values is not an array"));
        // Not JSON at all is still the parser's own error.
        assert!(read(r#"[[1,"1"],]"#).contains("line 1"));
    }

    #[test]
    fn the_one_pass_reader_leaves_the_rest_to_serde() {
        // Prometheus' own shape is read in one pass, the same as serde's reader reads it.
        let plain = br#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"job":"b","__name__":"up"},"values":[[1435781430.781,"1"],[1435781445,"NaN"]]}]}}"#;
        let one = one_pass_matrix(plain, RangeLimits::default()).unwrap();
        assert_eq!(one[0].labels[0], ("__name__".to_string(), "up".to_string()));
        assert_eq!(one[0].points[0], (1_435_781_430_781, 1.0));
        // Not JSON (a leading zero, a trailing comma) is serde's error, not a reading.
        for bad in [
            &br#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[01,"1"]]}]}}"#[..],
            &br#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"],]}]}}"#[..],
            &br#"{"status":"success","data":{"resultType":"matrix","result":[]}} x"#[..],
        ] {
            assert!(
                one_pass_matrix(bad, RangeLimits::default()).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
            assert!(matches!(
                parse_matrix(bad, RangeLimits::default()),
                Err(RangeError::Malformed(_))
            ));
        }
        // Warnings, escapes and a cap go to serde's reader too.
        let warned = br#"{"status":"success","warnings":["w"],"data":{"resultType":"matrix","result":[{"metric":{"a":"\u0062"},"values":[]}]}}"#;
        assert!(one_pass_matrix(warned, RangeLimits::default()).is_none());
        let (s, w) = parse_matrix(warned, RangeLimits::default()).unwrap();
        assert_eq!((s[0].label("a"), w), (Some("b"), vec!["w".to_string()]));
    }
}
