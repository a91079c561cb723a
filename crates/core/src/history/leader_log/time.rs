//! Log timestamps to milliseconds since the epoch: Log4j 2's `ISO8601_OFFSET_DATE_TIME_HHMM`
//! (`2026-08-20T08:57:37,123+0000`, the default `conf/log4j2.yaml` pattern of 3.x/4.x/master) and the
//! JSON layouts' `2026-08-20T08:57:37.123Z`. The offset may be `+hhmm`, `+hh:mm`, `+hh` or `Z`
//! (Log4j 2.23–2.26 print `+0000`; the legacy formatter prints `Z`).

use crate::calendar::days_from_civil;

fn digits(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses a timestamp at the start of `s`; returns the time in ms and the rest after it.
pub fn parse_prefix(s: &str) -> Option<(i64, &str)> {
    let end = s.find([' ', '"']).unwrap_or(s.len());
    Some((parse(s.get(..end)?)?, s.get(end..)?))
}

/// Parses one whole timestamp.
pub fn parse(s: &str) -> Option<i64> {
    // yyyy-MM-ddTHH:mm:ss
    let date = s.get(..10)?;
    let sep = s.get(10..11)?;
    if sep != "T" && sep != " " {
        return None;
    }
    let clock = s.get(11..19)?;
    let mut rest = s.get(19..)?;
    let y = digits(date.get(..4)?)?;
    let mo = digits(date.get(5..7)?)?;
    let d = digits(date.get(8..10)?)?;
    let h = digits(clock.get(..2)?)?;
    let mi = digits(clock.get(3..5)?)?;
    let se = digits(clock.get(6..8)?)?;
    if date.get(4..5)? != "-"
        || date.get(7..8)? != "-"
        || clock.get(2..3)? != ":"
        || clock.get(5..6)? != ":"
    {
        return None;
    }
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut millis = 0;
    if rest.starts_with([',', '.']) {
        let frac_end = rest
            .get(1..)?
            .find(|c: char| !c.is_ascii_digit())
            .map_or(rest.len(), |i| i + 1);
        let frac = rest.get(1..frac_end)?;
        // Milliseconds from the first three digits (a layout may print more).
        let ms3: String = frac.chars().chain("000".chars()).take(3).collect();
        millis = digits(&ms3)?;
        rest = rest.get(frac_end..)?;
    }
    let offset_min = match rest {
        "" | "Z" => 0,
        _ => {
            let sign = match rest.get(..1)? {
                "+" => 1,
                "-" => -1,
                _ => return None,
            };
            let body: String = rest.get(1..)?.chars().filter(|c| *c != ':').collect();
            let (oh, om) = match body.len() {
                2 => (digits(&body)?, 0),
                4 => (digits(body.get(..2)?)?, digits(body.get(2..)?)?),
                _ => return None,
            };
            if oh > 18 || om > 59 {
                return None;
            }
            sign * (oh * 60 + om)
        }
    };
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se - offset_min * 60;
    secs.checked_mul(1000)?.checked_add(millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log4j_default_pattern_and_json() {
        // 2026-08-20T08:57:37.123Z = 1787216257123 ms (date -d @1787216257).
        assert_eq!(
            parse("2026-08-20T08:57:37,123+0000"),
            Some(1_787_216_257_123)
        );
        assert_eq!(parse("2026-08-20T08:57:37.123Z"), Some(1_787_216_257_123));
        assert_eq!(
            parse("2026-08-20T10:57:37,123+0200"),
            Some(1_787_216_257_123)
        );
        assert_eq!(
            parse("2026-08-20T03:57:37,123-05:00"),
            Some(1_787_216_257_123)
        );
        assert_eq!(parse("1970-01-01T00:00:00,000+0000"), Some(0));
        assert_eq!(parse("2026-13-20T08:57:37,123+0000"), None);
        assert_eq!(parse("2026-08-20 garbage"), None);
        assert_eq!(parse("2026-08-20T08:57:37,123+00000"), None);
    }
}
