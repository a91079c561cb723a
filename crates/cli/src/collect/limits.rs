//! How much `collect` takes from a server: bytes and JSON elements per answer and for the whole
//! collection. A hostile or broken admin server must not crash the collection: parsing a JSON
//! array costs tens of bytes per element, so a 300 MB `["","",…]` (100 million elements) would need
//! gigabytes. Answers are counted while they stream in and cut as soon as a limit is passed, so a
//! cut answer costs at most its limit; what was cut is reported as `too_large`.

use std::fmt;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

/// The limits; [`Limits::DEFAULT`] in the CLI, smaller ones in tests.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of one answer (a topic list of a million topics is about 100 MB).
    pub answer_bytes: u64,
    /// Array elements and object members of one answer, at any depth.
    pub answer_elements: u64,
    /// Bytes of all answers kept together.
    pub total_bytes: u64,
    /// Elements of all answers kept together.
    pub total_elements: u64,
}

impl Limits {
    pub const DEFAULT: Limits = Limits {
        answer_bytes: 256 * 1024 * 1024,
        answer_elements: 2_000_000,
        total_bytes: 1024 * 1024 * 1024,
        total_elements: 10_000_000,
    };
}

/// Of an error answer only the start is read (its `reason` is shown, cut to one line).
pub const ERROR_BODY_BYTES: u64 = 64 * 1024;

/// Which limit an answer passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    AnswerBytes(u64),
    AnswerElements(u64),
    TotalBytes(u64),
    TotalElements(u64),
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::AnswerBytes(n) => write!(f, "an answer may have at most {n} bytes"),
            Limit::AnswerElements(n) => write!(
                f,
                "an answer may have at most {n} JSON elements (array elements and object members)"
            ),
            Limit::TotalBytes(n) => write!(f, "the collection's total of {n} bytes is reached"),
            Limit::TotalElements(n) => {
                write!(f, "the collection's total of {n} JSON elements is reached")
            }
        }
    }
}

/// Why an answer was cut; its text is the message of the `too_large` report item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Its `Content-Length` is over the limit: nothing was read.
    Announced { bytes: u64, limit: Limit },
    /// Reading stopped after `seen` bytes.
    Streaming { seen: u64, limit: Limit },
    /// Read whole, but keeping it would pass a total (others were kept meanwhile).
    Total { kept_before: u64, limit: Limit },
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cut::Announced { bytes, limit } => {
                write!(f, "not read: announced {bytes} bytes and {limit}")
            }
            Cut::Streaming { seen, limit } => write!(f, "cut after {seen} bytes: {limit}"),
            Cut::Total { kept_before, limit } => {
                write!(f, "{limit} ({kept_before} kept before this answer)")
            }
        }
    }
}

/// Counts array elements and object members in JSON text fed in pieces, without parsing it:
/// every `,` outside strings, plus one for each container that is not empty.
#[derive(Clone, Debug, Default)]
pub struct ElementCounter {
    count: u64,
    in_string: bool,
    escaped: bool,
    after_open: bool,
}

impl ElementCounter {
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            if self.after_open && !b.is_ascii_whitespace() {
                self.after_open = false;
                if b != b']' && b != b'}' {
                    self.count += 1;
                }
            }
            match b {
                b'"' => self.in_string = true,
                b'[' | b'{' => self.after_open = true,
                b',' => self.count += 1,
                _ => {}
            }
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }
}

/// What the whole collection has kept so far; shared by the request threads.
#[derive(Debug, Default)]
pub struct Budget {
    bytes: AtomicU64,
    elements: AtomicU64,
}

impl Budget {
    /// Takes `bytes` and `elements` from what is left, or says which total would be passed.
    fn take(&self, limits: &Limits, bytes: u64, elements: u64) -> Result<(), Cut> {
        let before = self.bytes.fetch_add(bytes, Ordering::SeqCst);
        if before.saturating_add(bytes) > limits.total_bytes {
            self.bytes.fetch_sub(bytes, Ordering::SeqCst);
            return Err(Cut::Total {
                kept_before: before,
                limit: Limit::TotalBytes(limits.total_bytes),
            });
        }
        let before_e = self.elements.fetch_add(elements, Ordering::SeqCst);
        if before_e.saturating_add(elements) > limits.total_elements {
            self.elements.fetch_sub(elements, Ordering::SeqCst);
            self.bytes.fetch_sub(bytes, Ordering::SeqCst);
            return Err(Cut::Total {
                kept_before: before_e,
                limit: Limit::TotalElements(limits.total_elements),
            });
        }
        Ok(())
    }

    fn bytes_left(&self, limits: &Limits) -> u64 {
        limits
            .total_bytes
            .saturating_sub(self.bytes.load(Ordering::SeqCst))
    }

    fn elements_left(&self, limits: &Limits) -> u64 {
        limits
            .total_elements
            .saturating_sub(self.elements.load(Ordering::SeqCst))
    }
}

/// Reads a successful answer within the limits and takes it from the budget. `declared` is the
/// `Content-Length`, if any: a body announced larger than the limit is not read at all.
pub fn read_answer<R: Read>(
    mut body: R,
    declared: Option<u64>,
    limits: &Limits,
    budget: &Budget,
) -> Result<Result<Vec<u8>, Cut>, std::io::Error> {
    let byte_cap = limits.answer_bytes.min(budget.bytes_left(limits));
    let element_cap = limits.answer_elements.min(budget.elements_left(limits));
    let byte_limit = if byte_cap < limits.answer_bytes {
        Limit::TotalBytes(limits.total_bytes)
    } else {
        Limit::AnswerBytes(limits.answer_bytes)
    };
    let element_limit = if element_cap < limits.answer_elements {
        Limit::TotalElements(limits.total_elements)
    } else {
        Limit::AnswerElements(limits.answer_elements)
    };
    if let Some(n) = declared.filter(|n| *n > byte_cap) {
        return Ok(Err(Cut::Announced {
            bytes: n,
            limit: byte_limit,
        }));
    }
    // Up to 16 MiB of the announced size is reserved at once: more would let a server that
    // announces much and sends little make every request hold a large allocation.
    let mut out = Vec::with_capacity(
        usize::try_from(declared.unwrap_or(0))
            .unwrap_or(0)
            .min(16 << 20),
    );
    let mut counter = ElementCounter::default();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match body.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let piece = chunk.get(..n).unwrap_or_default();
        let seen = out.len() as u64 + n as u64;
        if seen > byte_cap {
            return Ok(Err(Cut::Streaming {
                seen,
                limit: byte_limit,
            }));
        }
        counter.feed(piece);
        if counter.count() > element_cap {
            return Ok(Err(Cut::Streaming {
                seen,
                limit: element_limit,
            }));
        }
        out.extend_from_slice(piece);
    }
    if let Err(cut) = budget.take(limits, out.len() as u64, counter.count()) {
        return Ok(Err(cut));
    }
    Ok(Ok(out))
}

/// Reads the start of an error answer (at most [`ERROR_BODY_BYTES`]); the rest is left unread.
pub fn read_error_start<R: Read>(body: R) -> Vec<u8> {
    let mut out = Vec::new();
    // A broken connection mid-way leaves what arrived: the excerpt is only for the message.
    let _ = body.take(ERROR_BODY_BYTES).read_to_end(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(text: &str) -> u64 {
        let mut c = ElementCounter::default();
        // Fed one byte at a time: pieces may split strings and escapes anywhere.
        for b in text.as_bytes() {
            c.feed(std::slice::from_ref(b));
        }
        c.count()
    }

    #[test]
    fn counts_elements_and_members_not_commas_in_strings() {
        assert_eq!(count(r#"["","",""]"#), 3);
        assert_eq!(count(r#"{"a":1,"b":[1,2]}"#), 4);
        assert_eq!(count(r#"[ [], {}, [ ] ]"#), 3);
        assert_eq!(count(r#"["a,b","c\",d"]"#), 2);
        assert_eq!(count("[]"), 0);
        assert_eq!(count("orders-group"), 0);
    }

    const SMALL: Limits = Limits {
        answer_bytes: 100,
        answer_elements: 5,
        total_bytes: 150,
        total_elements: 8,
    };

    fn read(body: &str, budget: &Budget) -> Result<Vec<u8>, Cut> {
        read_answer(body.as_bytes(), None, &SMALL, budget).unwrap()
    }

    #[test]
    fn cuts_an_answer_with_too_many_elements_or_bytes() {
        let budget = Budget::default();
        let six = r#"["","","","","",""]"#;
        let cut = read(six, &budget).unwrap_err();
        assert_eq!(
            cut,
            Cut::Streaming {
                seen: 19,
                limit: Limit::AnswerElements(5)
            }
        );
        assert_eq!(
            cut.to_string(),
            "cut after 19 bytes: an answer may have at most 5 JSON elements (array elements and \
             object members)"
        );
        let big = format!("\"{}\"", "x".repeat(120));
        assert_eq!(
            read(&big, &budget).unwrap_err(),
            Cut::Streaming {
                seen: 122,
                limit: Limit::AnswerBytes(100)
            }
        );
        let declared = read_answer("[]".as_bytes(), Some(101), &SMALL, &budget).unwrap();
        assert_eq!(
            declared.unwrap_err().to_string(),
            "not read: announced 101 bytes and an answer may have at most 100 bytes"
        );
        // Cut answers take nothing from the budget.
        assert_eq!(read(r#"["a","b","c","d","e"]"#, &budget).unwrap().len(), 21);
    }

    #[test]
    fn the_totals_bound_the_whole_collection() {
        let budget = Budget::default();
        let eighty = format!("\"{}\"", "x".repeat(78));
        assert!(read(&eighty, &budget).is_ok());
        assert_eq!(
            read(&eighty, &budget).unwrap_err(),
            Cut::Streaming {
                seen: 80,
                limit: Limit::TotalBytes(150)
            }
        );
        // 70 bytes are left: a small answer still fits.
        assert!(read("[1,2,3,4,5]", &budget).is_ok());
        assert_eq!(
            read("[1,2,3,4]", &budget).unwrap_err(),
            Cut::Streaming {
                seen: 9,
                limit: Limit::TotalElements(8)
            }
        );
        // What concurrent answers kept meanwhile is caught when an answer is taken.
        assert_eq!(
            budget.take(&SMALL, 60, 0),
            Err(Cut::Total {
                kept_before: 91,
                limit: Limit::TotalBytes(150)
            })
        );
        assert_eq!(
            Cut::Total {
                kept_before: 91,
                limit: Limit::TotalBytes(150)
            }
            .to_string(),
            "the collection's total of 150 bytes is reached (91 kept before this answer)"
        );
    }
}
