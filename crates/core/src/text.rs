//! Text for people: safe to show on a terminal, wrapped to a width, and the number formats every
//! text shares ([`rate`] in the unit that keeps its digits, [`count`] with thousands separators).
//!
//! Broker ids, bundle names, file and archive member names and an admin server's error text come
//! from outside; printed raw, an ESC sequence in them can recolour, move the cursor or rewrite what
//! the operator reads, and a newline can forge a line (`warning: …`, a plan row). Every
//! human-readable output of the front ends passes the outside text through [`escape_control`]; JSON
//! needs nothing more (serde already escapes controls).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal raw: C0 and C1 controls and DEL (C1 `U+009B` is a CSI on
/// some terminals), the line and paragraph separators (which some viewers break lines at), and
/// the bidirectional formatting characters (which reorder what is displayed, "Trojan Source").
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// `s` with every unsafe character (see [`is_unsafe_char`]) written as a visible escape: `\n`,
/// `\r`, `\t`, `\x1b` for the other ASCII controls, `\u{9b}` beyond ASCII. Borrows when nothing
/// needs escaping, which is the common case.
pub fn escape_control(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii() && is_unsafe_char(c) => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if is_unsafe_char(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A multi-line text we rendered ourselves (a table whose cells hold outside text) with each line
/// escaped and the line breaks kept.
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && is_unsafe_char(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&escape_control(line));
    }
    Cow::Owned(out)
}

/// `s` cut to `width` characters, an ellipsis marking the cut (text reports kept within a
/// terminal's width).
pub fn fit_width(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` broken at spaces into lines of at most `width` characters, each starting with
/// `indent` (a reason sentence under a plan row, kept within a terminal's width). A word longer
/// than a line keeps a line of its own rather than being cut: ids and bundle names stay whole.
pub fn wrap(text: &str, width: usize, indent: &str) -> Vec<String> {
    wrap_hanging(text, width, indent, indent)
}

/// The words of `text`, a number kept with the word after it ("80.0 MiB/s", "984 brokers") so a
/// line never ends in a figure whose unit starts the next.
fn glued_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut glue = false;
    for w in text.split(' ').filter(|w| !w.is_empty()) {
        match words.last_mut() {
            Some(last) if glue && w.starts_with(|c: char| c.is_alphabetic() || c == '%') => {
                last.push(' ');
                last.push_str(w);
                glue = false;
            }
            _ => {
                glue = w.starts_with(|c: char| c.is_ascii_digit())
                    && w.chars()
                        .all(|c| c.is_ascii_digit() || c == '.' || c == ',');
                words.push(w.to_string());
            }
        }
    }
    words
}

/// [`wrap`] with the first line led by `first` (a list item's `- `) and the others by `indent`.
pub fn wrap_hanging(text: &str, width: usize, first: &str, indent: &str) -> Vec<String> {
    let mut lead = first;
    let mut room = width.saturating_sub(lead.chars().count()).max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0usize;
    for word in glued_words(text) {
        let n = word.chars().count();
        let word = word.as_str();
        if used > 0 && used + 1 + n > room {
            lines.push(format!("{lead}{line}"));
            lead = indent;
            room = width.saturating_sub(lead.chars().count()).max(1);
            line.clear();
            used = 0;
        }
        if used > 0 {
            line.push(' ');
            used += 1;
        }
        line.push_str(word);
        used += n;
    }
    if used > 0 || lines.is_empty() {
        lines.push(format!("{lead}{line}"));
    }
    lines
}

const KIB: f64 = 1024.0;
const MIB: f64 = KIB * 1024.0;
const GIB: f64 = MIB * 1024.0;

/// A byte rate in the unit that keeps its digits: `27 MiB/s`, `9.4 MiB/s`, `512 KiB/s`, `300 B/s`
/// (never "0.0 MiB/s" for a small but real figure).
pub fn rate(bytes_per_sec: f64) -> String {
    let b = bytes_per_sec;
    let (value, unit) = if b.abs() >= GIB {
        (b / GIB, "GiB/s")
    } else if b.abs() >= MIB {
        (b / MIB, "MiB/s")
    } else if b.abs() >= KIB {
        (b / KIB, "KiB/s")
    } else {
        return format!("{} B/s", count(b));
    };
    if value.abs() >= 100.0 {
        format!("{value:.0} {unit}")
    } else {
        format!("{value:.1} {unit}")
    }
}

/// A count or message rate for a reader: whole units with thousands separators (`13,209`), one
/// decimal below 10 so a small rate does not read as zero.
pub fn count(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    if value.abs() < 10.0 && value.fract() != 0.0 {
        return format!("{value:.1}");
    }
    let whole = format!("{:.0}", value.abs());
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    if value < 0.0 && whole != "0" {
        format!("-{grouped}")
    } else {
        grouped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        let s = "persistent://tenant/ns/tópic-中 10.0.0.1:8080 0x00000000_0x40000000";
        assert!(matches!(escape_control(s), Cow::Borrowed(x) if x == s));
        assert!(matches!(escape_lines("a\nb\n"), Cow::Borrowed("a\nb\n")));
    }

    #[test]
    fn terminal_sequences_and_line_breaks_become_visible() {
        // An SGR colour, a cursor-up + erase-line, a CR overwrite and a forged line.
        assert_eq!(escape_control("b\u{1b}[31m:8080"), "b\\x1b[31m:8080");
        assert_eq!(escape_control("x\u{1b}[1A\u{1b}[2K"), "x\\x1b[1A\\x1b[2K");
        assert_eq!(escape_control("ok\rbad"), "ok\\rbad");
        assert_eq!(
            escape_control("b:8080\nwarning: forged"),
            "b:8080\\nwarning: forged"
        );
        assert_eq!(escape_control("a\tb\u{7f}\u{0}"), "a\\tb\\x7f\\x00");
    }

    #[test]
    fn c1_controls_and_bidi_overrides_are_escaped() {
        // U+009B is the one-byte CSI of ISO 6429; U+202E reverses the text that follows.
        assert_eq!(escape_control("a\u{9b}31m"), "a\\u{9b}31m");
        assert_eq!(escape_control("ab\u{202e}cd"), "ab\\u{202e}cd");
        assert_eq!(escape_control("\u{2028}\u{2066}"), "\\u{2028}\\u{2066}");
    }

    #[test]
    fn escape_lines_keeps_the_line_breaks_only() {
        assert_eq!(
            escape_lines("row \u{1b}]0;title\u{7}\nnext\n"),
            "row \\x1b]0;title\\x07\nnext\n"
        );
    }

    #[test]
    fn a_reason_wraps_at_spaces_within_the_width() {
        let reason = "ThresholdShedder: broker usage 79.2% ≥ average 34.9% + threshold 10.0%; \
                      must shed 20.7 MiB/s, bundle carries 10.4 MiB/s";
        let lines = wrap(reason, 40, "    ");
        assert_eq!(
            lines,
            [
                "    ThresholdShedder: broker usage 79.2%",
                "    ≥ average 34.9% + threshold 10.0%;",
                "    must shed 20.7 MiB/s, bundle carries",
                "    10.4 MiB/s",
            ]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 40));
        // A word longer than the room stands alone, whole.
        let long = "to pulsar-broker-0010.pulsar-broker-headless.prod.svc:8080 now";
        assert_eq!(
            wrap(long, 20, "  "),
            [
                "  to",
                "  pulsar-broker-0010.pulsar-broker-headless.prod.svc:8080",
                "  now"
            ]
        );
        assert_eq!(wrap("", 20, "  "), ["  "]);
        // A figure stays with its unit.
        assert_eq!(
            wrap("must shed 120 MiB/s now", 16, ""),
            ["must shed", "120 MiB/s now"]
        );
        assert_eq!(
            wrap_hanging("- broker-10 ends at 120.5% (was 40.1%)", 22, "", "  "),
            ["- broker-10 ends at", "  120.5% (was 40.1%)"]
        );
    }

    #[test]
    fn rates_keep_their_digits() {
        // "no 'must shed 0.0 MiB/s'": a small figure gets a smaller unit.
        assert_eq!(rate(0.0), "0 B/s");
        assert_eq!(rate(300.0), "300 B/s");
        assert_eq!(rate(40_000.0), "39.1 KiB/s");
        assert_eq!(rate(9.4 * MIB), "9.4 MiB/s");
        assert_eq!(rate(150.0 * MIB), "150 MiB/s");
        assert_eq!(rate(2.5 * GIB), "2.5 GiB/s");
    }

    #[test]
    fn counts_read_at_a_glance() {
        // "13,209 msg/s, not 13209.3467".
        assert_eq!(count(13209.3467), "13,209");
        assert_eq!(count(1602.0), "1,602");
        assert_eq!(count(999.6), "1,000");
        assert_eq!(count(1_234_567.0), "1,234,567");
        assert_eq!(count(-4816.0), "-4,816");
        assert_eq!(count(0.5), "0.5");
        assert_eq!(count(0.0), "0");
    }
}
