//! Number formatting for the tables (display only).

/// `12.3 %`.
pub fn pct(value: f64) -> String {
    format!("{value:.1} %")
}

/// Messages per second with a thousands separator: `12,345.6`.
pub fn rate(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    let whole = rounded.trunc();
    let tenth = ((rounded - whole).abs() * 10.0).round();
    format!("{}.{tenth:.0}", group_thousands(whole))
}

/// Bytes per second in binary units: `1.5 MiB/s`.
pub fn bytes_per_sec(value: f64) -> String {
    const UNITS: [&str; 5] = ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"];
    let mut v = value;
    let mut unit = UNITS[0];
    for u in &UNITS[1..] {
        if v.abs() < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    format!("{v:.1} {unit}")
}

pub fn count(value: i64) -> String {
    group_thousands(value as f64)
}

fn group_thousands(whole: f64) -> String {
    let digits = format!("{:.0}", whole.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if whole < 0.0 {
        out.insert(0, '-');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // In the wasm test run (`cargo test --target wasm32-unknown-unknown`) this runs under Node.
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn formats() {
        assert_eq!(pct(43.75), "43.8 %");
        assert_eq!(rate(12345.64), "12,345.6");
        assert_eq!(rate(0.0), "0.0");
        assert_eq!(bytes_per_sec(1536.0 * 1024.0), "1.5 MiB/s");
        assert_eq!(bytes_per_sec(10.0), "10.0 B/s");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(count(-1000), "-1,000");
    }
}
