//! The fast readers' JSON scanner: a cursor over a snapshot's text that reads plain strings,
//! non-negative numbers and objects of known keys, skips any other value by its extent, and answers
//! `None` wherever the importer's typed reader must decide (an escape, a minus sign, a repeated
//! key, nesting deeper than it follows).

/// Nesting deeper than this is left to the importer's reader (serde_json's own limit is 128).
const MAX_DEPTH: usize = 64;

/// A cursor over the text; every method answers `None` where the importer's reader must decide.
pub(super) struct Scan<'a> {
    pub(super) s: &'a [u8],
    pub(super) t: &'a str,
    pub(super) i: usize,
}

impl<'a> Scan<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Scan {
            s: text.as_bytes(),
            t: text,
            i: 0,
        }
    }

    /// Whether only whitespace is left.
    pub(super) fn at_end(&mut self) -> bool {
        self.ws();
        self.i == self.s.len()
    }

    /// The text from `from` to the cursor.
    pub(super) fn since(&self, from: usize) -> Option<&'a str> {
        self.t.get(from..self.i)
    }

    pub(super) fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    /// The position of the next token.
    pub(super) fn at(&mut self) -> usize {
        self.ws();
        self.i
    }

    pub(super) fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, b: u8) -> Option<()> {
        self.eat(b).then_some(())
    }

    /// A string without escapes or control characters, as its text.
    pub(super) fn plain_str(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.i;
        let rest = self.s.get(start..)?;
        let len = memchr::memchr(b'"', rest)?;
        let end = start + len;
        // An escape (even of a quote, which would end the string later) or a control character:
        // the importer's reader decides.
        if rest.get(..len)?.iter().any(|&c| c == b'\\' || c < 0x20) {
            return None;
        }
        self.i = end + 1;
        self.t.get(start..end)
    }

    /// Skips one value of any kind without checking it (the importer's reader reads it again from
    /// the copy): only its extent must be right, so strings honour escapes and brackets must
    /// match; a scalar runs to the next delimiter.
    pub(super) fn skip_value(&mut self) -> Option<()> {
        self.ws();
        let mut stack: Vec<u8> = Vec::new();
        loop {
            let c = *self.s.get(self.i)?;
            match c {
                b'"' => self.skip_string()?,
                b'{' | b'[' => {
                    if stack.len() >= MAX_DEPTH {
                        return None;
                    }
                    stack.push(if c == b'{' { b'}' } else { b']' });
                    self.i += 1;
                }
                b'}' | b']' => {
                    if stack.pop() != Some(c) {
                        return None;
                    }
                    self.i += 1;
                }
                _ if !stack.is_empty() => self.i += 1,
                _ => {
                    let start = self.i;
                    while let Some(&c) = self.s.get(self.i) {
                        if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                            break;
                        }
                        self.i += 1;
                    }
                    if self.i == start {
                        return None;
                    }
                }
            }
            if stack.is_empty() {
                return Some(());
            }
        }
    }

    /// Past a string starting at the cursor (escapes skipped, not checked).
    fn skip_string(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            match *self.s.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                b'\\' => self.i += 2,
                _ => self.i += 1,
            }
        }
    }

    /// A non-negative JSON number's text (strict grammar; a minus sign is left to the importer).
    fn number(&mut self) -> Option<(&'a str, bool)> {
        self.ws();
        let start = self.i;
        let digits = |s: &mut Self| {
            let from = s.i;
            while s.s.get(s.i).is_some_and(u8::is_ascii_digit) {
                s.i += 1;
            }
            s.i > from
        };
        match *self.s.get(self.i)? {
            b'0' => self.i += 1,
            b'1'..=b'9' => {
                digits(self);
            }
            _ => return None,
        }
        let mut integer = true;
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            integer = false;
            digits(self).then_some(())?;
        }
        if let Some(b'e' | b'E') = self.s.get(self.i) {
            self.i += 1;
            integer = false;
            if let Some(b'+' | b'-') = self.s.get(self.i) {
                self.i += 1;
            }
            digits(self).then_some(())?;
        }
        Some((self.t.get(start..self.i)?, integer))
    }

    /// `Ctx::non_negative`'s value: serde_json reads with `float_roundtrip` (correctly rounded,
    /// as `str::parse`), and an integer's `as_f64` rounds the same way.
    pub(super) fn rate(&mut self) -> Option<f64> {
        let (text, _) = self.number()?;
        text.parse::<f64>().ok().filter(|x| x.is_finite())
    }

    /// `Ctx::non_negative_i64`'s value for a plain integer (`3.0` and the like are left to it).
    pub(super) fn count(&mut self) -> Option<i64> {
        let (text, integer) = self.number()?;
        if !integer {
            return None;
        }
        text.parse::<i64>().ok()
    }

    /// An object whose keys are each read by `field`, which answers the key's bit (a distinct
    /// power of two per known key) or `None` for a key it does not read; a repeated key is
    /// `None` too. The bits of the keys present.
    pub(super) fn known_fields(
        &mut self,
        mut field: impl FnMut(&mut Self, &str) -> Option<u8>,
    ) -> Option<u8> {
        self.expect(b'{')?;
        let mut seen = 0_u8;
        if self.eat(b'}') {
            return Some(seen);
        }
        loop {
            let key = self.plain_str()?;
            self.expect(b':')?;
            let bit = field(self, key)?;
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            if !self.eat(b',') {
                self.expect(b'}')?;
                return Some(seen);
            }
        }
    }
}
