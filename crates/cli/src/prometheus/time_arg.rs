//! `--from` / `--to` / `--step` as Prometheus' API reads them: an RFC 3339 time
//! (`2026-12-07T10:00:00Z`, `…+01:00`, fractions of a second) or Unix seconds (`1733565600.5`);
//! a step as `15s`, `1m`, `2h` or plain seconds.

/// Milliseconds since the epoch of `text`.
pub fn parse_time(text: &str) -> Result<i64, String> {
    let t = text.trim();
    let bad = || {
        format!(
            "`{text}`: expected an RFC 3339 time (2026-12-07T10:00:00Z) or Unix seconds \
             (1733565600)"
        )
    };
    if t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        let secs: f64 = t.parse().map_err(|_| bad())?;
        let ms = (secs * 1000.0).round();
        return if (0.0..=lbplan_core::history::MAX_TIME_MS as f64).contains(&ms) {
            Ok(ms as i64)
        } else {
            Err(bad())
        };
    }
    rfc3339(t).ok_or_else(bad)
}

fn num(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)`.
fn rfc3339(t: &str) -> Option<i64> {
    let (date, rest) = t.split_once(['T', 't', ' '])?;
    let mut d = date.splitn(3, '-');
    let (y, mo, da) = (num(d.next()?)?, num(d.next()?)?, num(d.next()?)?);
    let zone_at = rest.find(['Z', 'z', '+', '-'])?;
    let (clock, zone) = rest.split_at(zone_at);
    let (hms, frac) = match clock.split_once('.') {
        Some((a, f)) => (a, f),
        None => (clock, ""),
    };
    let mut c = hms.splitn(3, ':');
    let (h, mi, s) = (num(c.next()?)?, num(c.next()?)?, num(c.next()?)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&da) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let ms_frac = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().chain("000".chars()).take(3).collect();
        num(&digits)?
    };
    let offset_min = match zone {
        "Z" | "z" => 0,
        z => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            let (oh, om) = z.get(1..)?.split_once(':')?;
            sign * (num(oh)? * 60 + num(om)?)
        }
    };
    let days = lbplan_core::calendar::days_from_civil(y, mo, da);
    let secs = days * 86_400 + h * 3600 + mi * 60 + s - offset_min * 60;
    (secs >= 0).then_some(secs * 1000 + ms_frac)
}

/// `60s`, `5m`, `1h`, `90` (seconds) → milliseconds, at least one second.
pub fn parse_step(text: &str) -> Result<i64, String> {
    let t = text.trim();
    let bad = || format!("`{text}`: expected a step with s, m or h (60s, 5m, 1h), at least 1s");
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let n = num(digits).ok_or_else(bad)?;
    let secs = match unit {
        "s" => Some(n),
        "m" => n.checked_mul(60),
        "h" => n.checked_mul(3600),
        _ => None,
    }
    .filter(|s| *s >= 1 && *s <= 86_400 * 366)
    .ok_or_else(bad)?;
    Ok(secs * 1000)
}

/// Seconds with milliseconds, as the API's `start` / `end` take them.
pub fn api_seconds(ms: i64) -> String {
    format!("{}.{:03}", ms.div_euclid(1000), ms.rem_euclid(1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_as_prometheus_reads_them() {
        // 2015-07-01T20:10:30.781Z is 1435781430.781 in Prometheus' own API docs.
        assert_eq!(
            parse_time("2015-07-01T20:10:30.781Z"),
            Ok(1_435_781_430_781)
        );
        assert_eq!(parse_time("1435781430.781"), Ok(1_435_781_430_781));
        assert_eq!(
            parse_time("2015-07-01T22:10:30+02:00"),
            Ok(1_435_781_430_000)
        );
        assert!(parse_time("yesterday").is_err());
        assert!(parse_time("2015-13-01T00:00:00Z").is_err());
        assert_eq!(parse_step("60s"), Ok(60_000));
        assert_eq!(parse_step("5m"), Ok(300_000));
        assert!(parse_step("0s").is_err());
        assert_eq!(api_seconds(1_435_781_430_781), "1435781430.781");
    }
}
