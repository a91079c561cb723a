//! Reading JSON with locations: syntax errors that say line, column and why (truncated file, `NaN`),
//! for the typed readers that read the text (no format is parsed into a tree), and field checks that name the JSON path (`$.cpu.limit`) and
//! the expectation in every error. Paths are built lazily on the stack and rendered only on error.

use serde_json::Value;

use super::diag::{Diag, ImportError, WarningKind};

/// One step of a JSON path.
#[derive(Clone, Copy, Debug)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// A JSON path as a chain of borrowed segments; `JPath::ROOT` is `$`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JPath<'a> {
    parent: Option<&'a JPath<'a>>,
    seg: Option<Seg<'a>>,
}

impl<'a> JPath<'a> {
    pub(crate) const ROOT: JPath<'static> = JPath {
        parent: None,
        seg: None,
    };

    pub(crate) fn key(&'a self, key: &'a str) -> JPath<'a> {
        JPath {
            parent: Some(self),
            seg: Some(Seg::Key(key)),
        }
    }

    pub(crate) fn index(&'a self, i: usize) -> JPath<'a> {
        JPath {
            parent: Some(self),
            seg: Some(Seg::Index(i)),
        }
    }

    /// `$.a.b[2]["t/ns/0x0_0x1"]`: identifier-like keys with a dot, others quoted in brackets.
    pub(crate) fn render(&self) -> String {
        let mut out = String::with_capacity(64);
        out.push('$');
        self.render_into(&mut out);
        out
    }

    /// Appends the segments after `$`, outermost first.
    fn render_into(&self, out: &mut String) {
        if let Some(parent) = self.parent {
            parent.render_into(out);
        }
        match self.seg {
            None => {}
            Some(Seg::Key(k)) if is_identifier(k) => {
                out.push('.');
                out.push_str(k);
            }
            Some(Seg::Key(k)) => {
                out.push('[');
                if k.chars().any(|c| c == '"' || c == '\\' || c.is_control()) {
                    out.push_str(&serde_json::to_string(k).unwrap_or_default());
                } else {
                    // What serde_json writes for a string needing no escapes.
                    out.push('"');
                    out.push_str(k);
                    out.push('"');
                }
                out.push(']');
            }
            Some(Seg::Index(i)) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
}

fn is_identifier(k: &str) -> bool {
    let mut chars = k.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The file being read and where its warnings go.
pub(crate) struct Ctx<'a> {
    pub(crate) file: &'a str,
    pub(crate) diag: &'a mut Diag,
}

impl Ctx<'_> {
    pub(crate) fn err(&self, p: &JPath<'_>, message: impl Into<String>) -> ImportError {
        ImportError::at(self.file, p.render(), message)
    }

    pub(crate) fn warn(&mut self, kind: WarningKind, p: &JPath<'_>, message: impl Into<String>) {
        self.diag.warn(kind, self.file, Some(p.render()), message);
    }

    pub(crate) fn boolean(&self, v: &Value, p: &JPath<'_>) -> Result<bool, ImportError> {
        v.as_bool()
            .ok_or_else(|| self.err(p, format!("expected true or false, found {}", describe(v))))
    }

    /// A finite number. Jackson writes NaN/∞ as the strings `"NaN"`, `"Infinity"`: named as such.
    pub(crate) fn number(&self, v: &Value, p: &JPath<'_>) -> Result<f64, ImportError> {
        match v {
            Value::Number(n) => n
                .as_f64()
                .filter(|x| x.is_finite())
                .ok_or_else(|| self.err(p, "expected a finite number")),
            Value::String(s) if is_non_finite_word(s) => Err(self.err(
                p,
                format!(
                    "expected a finite number, found {s} (NaN and infinite values are not allowed)"
                ),
            )),
            other => Err(self.err(p, format!("expected a number, found {}", describe(other)))),
        }
    }

    /// A finite number ≥ 0.
    pub(crate) fn non_negative(&self, v: &Value, p: &JPath<'_>) -> Result<f64, ImportError> {
        let x = self.number(v, p)?;
        if x < 0.0 {
            return Err(self.err(p, format!("expected a non-negative number, found {x}")));
        }
        Ok(x)
    }

    /// A whole number (JSON integer; `3.0` is accepted as Jackson would coerce it).
    pub(crate) fn integer(&self, v: &Value, p: &JPath<'_>) -> Result<i64, ImportError> {
        if let Some(i) = v.as_i64() {
            return Ok(i);
        }
        if let Some(x) = v.as_f64() {
            if x.fract() == 0.0 && x.abs() < 9.0e15 {
                return Ok(x as i64);
            }
            return Err(self.err(p, format!("expected an integer, found {x}")));
        }
        if let Value::String(s) = v
            && is_non_finite_word(s)
        {
            return Err(self.err(p, format!("expected an integer, found {s}")));
        }
        Err(self.err(p, format!("expected an integer, found {}", describe(v))))
    }

    pub(crate) fn non_negative_i64(&self, v: &Value, p: &JPath<'_>) -> Result<i64, ImportError> {
        let i = self.integer(v, p)?;
        if i < 0 {
            return Err(self.err(p, format!("expected a non-negative integer, found {i}")));
        }
        Ok(i)
    }

    /// A Java `int` ≥ 0.
    pub(crate) fn non_negative_i32(&self, v: &Value, p: &JPath<'_>) -> Result<i32, ImportError> {
        let i = self.non_negative_i64(v, p)?;
        i32::try_from(i).map_err(|_| {
            self.err(
                p,
                format!("expected an integer up to 2147483647 (a Java int), found {i}"),
            )
        })
    }
}

fn is_non_finite_word(s: &str) -> bool {
    matches!(
        s,
        "NaN" | "Infinity" | "-Infinity" | "+Infinity" | "-NaN" | "inf" | "-inf" | "nan"
    )
}

/// Short description of a value's type for "expected X, found Y".
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            let shown: String = s.chars().take(40).collect();
            format!("the string \"{shown}\"")
        }
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// The error for JSON `text` that does not parse: line, column and why. It says "truncated" when the
/// text ends early and names bare `NaN`/`Infinity` tokens (which Jackson can emit and JSON forbids).
pub(crate) fn syntax_error(file: &str, text: &str, e: &serde_json::Error) -> ImportError {
    {
        let at = format!("line {}, column {}", e.line(), e.column());
        let near = offset_of(text, e.line(), e.column()).and_then(|o| text.get(o..));
        let message = match e.classify() {
            serde_json::error::Category::Eof => {
                "unexpected end of file: expected more JSON (the file looks truncated)".to_string()
            }
            _ if e.to_string().contains("number out of range") => {
                "expected a finite number: this one is out of range (infinite values are not allowed)"
                    .to_string()
            }
            _ if near.is_some_and(starts_with_non_finite) => {
                "expected a JSON value: NaN and infinite numbers are not allowed".to_string()
            }
            _ => format!("invalid JSON: {}", strip_position(&e.to_string())),
        };
        ImportError::at(file, at, message)
    }
}

fn starts_with_non_finite(rest: &str) -> bool {
    // serde_json reports the column of the last character it read, so look a few bytes back too.
    let probe: String = rest.chars().take(12).collect();
    ["NaN", "Infinity", "-Infinity", "aN", "nfinity"]
        .iter()
        .any(|w| probe.starts_with(w) || probe.get(1..).is_some_and(|p| p.starts_with(w)))
}

/// Byte offset of (1-based line, 1-based column) in `text`; serde_json's column is the last byte read.
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let mut start = 0usize;
    for _ in 1..line {
        start += text.get(start..)?.find('\n')? + 1;
    }
    let mut off = start + column.saturating_sub(1);
    while off > 0 && !text.is_char_boundary(off) {
        off -= 1;
    }
    (off <= text.len()).then_some(off)
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg.get(..i).unwrap_or(msg).to_string(),
        None => msg.to_string(),
    }
}
