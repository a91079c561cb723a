//! A bundle's hash range `[lo, hi)` (closed at `0xffffffff`) and full bundle names
//! `tenant/ns/0x%08x_0x%08x`.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NamingError {
    #[error("`{0}` is not a bundle name of the form tenant/namespace/0xXXXXXXXX_0xXXXXXXXX")]
    BadBundleName(String),
    #[error("`{0}` is not a bundle range of the form 0xXXXXXXXX_0xXXXXXXXX")]
    BadRange(String),
    #[error("`{0}` is not a 32-bit hash boundary (0x00000000..0xffffffff)")]
    BadBoundary(String),
    #[error("bundle range `{0}` is empty (lower bound must be below the upper bound)")]
    EmptyRange(String),
    #[error("`{0}` is not a namespace name of the form tenant/namespace")]
    BadNamespace(String),
    #[error("invalid topic name `{name}`: {why}")]
    BadTopic { name: String, why: String },
    #[error("invalid bundle boundaries: {0}")]
    BadBoundaries(String),
    #[error("the number of bundles must be at least 1")]
    ZeroBundles,
    #[error("topic `{topic}` is not in namespace `{namespace}`")]
    TopicNotInNamespace { topic: String, namespace: String },
}

/// A hash range of a namespace. `hi == 0xffffffff` means the range includes `0xffffffff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BundleRange {
    pub lo: u32,
    pub hi: u32,
}

impl BundleRange {
    pub const FULL: BundleRange = BundleRange {
        lo: 0,
        hi: u32::MAX,
    };

    pub fn new(lo: u32, hi: u32) -> Result<Self, NamingError> {
        if lo < hi {
            Ok(Self { lo, hi })
        } else {
            Err(NamingError::EmptyRange(format!("0x{lo:08x}_0x{hi:08x}")))
        }
    }

    /// Parses `0xXXXXXXXX_0xXXXXXXXX`; each side in any form Java's `Long.decode` accepts.
    pub fn parse(text: &str) -> Result<Self, NamingError> {
        let (lo, hi) = text
            .split_once('_')
            .ok_or_else(|| NamingError::BadRange(text.to_string()))?;
        let lo = parse_hex_boundary(lo).map_err(|_| NamingError::BadRange(text.to_string()))?;
        let hi = parse_hex_boundary(hi).map_err(|_| NamingError::BadRange(text.to_string()))?;
        Self::new(lo, hi)
    }

    /// Whether `hash` falls in the range (`[lo, hi)`, or `[lo, hi]` for the last range).
    pub fn contains(&self, hash: u32) -> bool {
        hash >= self.lo && (hash < self.hi || (self.hi == u32::MAX && hash == u32::MAX))
    }

    /// Pulsar refuses to split a range that is not larger than 1.
    pub fn is_splittable(&self) -> bool {
        u64::from(self.hi) - u64::from(self.lo) > 1
    }
}

impl fmt::Display for BundleRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:08x}_0x{:08x}", self.lo, self.hi)
    }
}

/// Appends `x` as Pulsar writes a boundary, `0x%08x`, without `format!`'s machinery: splits
/// rewrite every boundary of a namespace's layout and the importer names every bundle.
pub fn push_boundary(out: &mut String, x: u32) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.push_str("0x");
    for shift in (0..8).rev() {
        let nibble = (x >> (shift * 4)) & 0xf;
        out.push(char::from(
            DIGITS.get(nibble as usize).copied().unwrap_or(b'0'),
        ));
    }
}

/// `0x%08x` as its own string ([`push_boundary`]).
pub fn boundary_text(x: u32) -> String {
    let mut s = String::with_capacity(10);
    push_boundary(&mut s, x);
    s
}

/// The canonical `0x` + 8 hex digits, read directly; `None` sends anything else to the general
/// path. The value is the one `from_str_radix` gives, so this only saves time.
fn parse_canonical_boundary(text: &str) -> Option<u32> {
    let digits = text.strip_prefix("0x")?.as_bytes();
    if digits.len() != 8 {
        return None;
    }
    digits.iter().try_fold(0u32, |acc, &c| {
        let d = char::from(c).to_digit(16)?;
        Some((acc << 4) | d)
    })
}

/// Java `Long.decode` restricted to 0..=0xffffffff: `0x`/`0X`/`#` hex, leading-`0` octal, decimal.
pub fn parse_hex_boundary(text: &str) -> Result<u32, NamingError> {
    if let Some(value) = parse_canonical_boundary(text) {
        return Ok(value);
    }
    let bad = || NamingError::BadBoundary(text.to_string());
    let t = text.trim();
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(h) = t.strip_prefix('#') {
        (h, 16)
    } else if t.len() > 1 && t.starts_with('0') {
        (t.get(1..).unwrap_or_default(), 8)
    } else {
        (t, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(bad());
    }
    let value = u64::from_str_radix(digits, radix).map_err(|_| bad())?;
    u32::try_from(value).map_err(|_| bad())
}

/// A full bundle name split into namespace and range.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BundleName {
    /// `tenant/namespace`.
    pub namespace: String,
    pub range: BundleRange,
}

impl fmt::Display for BundleName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.range)
    }
}

impl BundleName {
    /// The one split of a full bundle name, borrowed and not validated: the namespace is the text
    /// before the last `/` (as `LoadManagerShared.getNamespaceNameFromBundleName` takes it), the
    /// range the text after it; `None` without a `/`. Hot paths use this; [`parse_bundle_name`]
    /// (which uses it too) also checks both parts.
    pub fn parts(name: &str) -> Option<(&str, &str)> {
        name.rsplit_once('/')
    }

    /// The validated split of a full bundle name, borrowed from it: `(tenant/namespace, range)`
    /// under [`parse_bundle_name`]'s rules (which uses it), without allocating. The canonical
    /// spelling `0x%08x_0x%08x`, nearly every name, is read directly; any other spelling goes
    /// through [`BundleRange::parse`] (`Long.decode` forms, upper case). The importer calls this
    /// for every bundle.
    pub fn split(name: &str) -> Option<(&str, BundleRange)> {
        let (namespace, range) = Self::parts(name)?;
        let mut parts = namespace.split('/');
        let (Some(tenant), Some(ns)) = (parts.next(), parts.next()) else {
            return None;
        };
        if tenant.is_empty() || ns.is_empty() || parts.next().is_some_and(str::is_empty) {
            return None;
        }
        let range = match canonical_range(range) {
            Some(r) => r,
            None => BundleRange::parse(range).ok()?,
        };
        Some((namespace, range))
    }

    /// The namespace part of a full bundle name; the whole text when it has no `/` (Pulsar's
    /// `substring(0, lastIndexOf('/'))` would fail there; callers only use it as a map key).
    pub fn namespace_of(name: &str) -> &str {
        Self::parts(name).map_or(name, |(ns, _)| ns)
    }

    /// The range part of a full bundle name, not validated; the whole text when it has no `/`.
    pub fn range_text_of(name: &str) -> &str {
        Self::parts(name).map_or(name, |(_, range)| range)
    }
}

/// Parses `tenant/ns/0x…_0x…`: namespace = text before the last `/`, range after it.
pub fn parse_bundle_name(name: &str) -> Result<BundleName, NamingError> {
    let (namespace, range) =
        BundleName::split(name).ok_or_else(|| NamingError::BadBundleName(name.to_string()))?;
    Ok(BundleName {
        namespace: namespace.to_string(),
        range,
    })
}

/// `0x%08x_0x%08x` read directly; `None` for any other spelling.
fn canonical_range(range: &str) -> Option<BundleRange> {
    let b = range.as_bytes();
    if b.len() != 21 || b.get(10) != Some(&b'_') {
        return None;
    }
    let lo = lower_hex8(b.get(..10)?)?;
    let hi = lower_hex8(b.get(11..)?)?;
    BundleRange::new(lo, hi).ok()
}

/// `0x` and eight lower-case hex digits.
fn lower_hex8(b: &[u8]) -> Option<u32> {
    let digits = b.strip_prefix(b"0x")?;
    if digits.len() != 8 {
        return None;
    }
    digits.iter().try_fold(0u32, |acc, &d| {
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            _ => return None,
        };
        Some((acc << 4) | u32::from(v))
    })
}

/// `PoliciesUtil.getBundles(n)`: `[0, seg, 2·seg, …, (n−1)·seg, 0xffffffff]` with `seg = 2^32 / n`.
/// Returns `None` for `n == 0`.
pub fn default_boundaries(n: u32) -> Option<Vec<u32>> {
    if n == 0 {
        return None;
    }
    let seg = (1u64 << 32) / u64::from(n);
    // `i · seg < 2^32` for every `i < n`, so the conversion never fails.
    let mut out: Vec<u32> = (0..u64::from(n))
        .filter_map(|i| u32::try_from(i * seg).ok())
        .collect();
    out.push(u32::MAX);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values spread over the whole 32-bit space (a Weyl sequence), plus the edges.
    fn boundary_samples() -> impl Iterator<Item = u32> {
        (0u32..200_000).map(|i| i.wrapping_mul(0x9e37_79b9)).chain([
            0,
            1,
            0x4000_0000,
            0x7fff_ffff,
            0x8000_0000,
            u32::MAX,
        ])
    }

    #[test]
    fn boundaries_are_written_as_javas_0x_percent_08x() {
        assert_eq!(boundary_text(0x4000_0000), "0x40000000");
        assert_eq!(boundary_text(u32::MAX), "0xffffffff");
        assert_eq!(boundary_text(0), "0x00000000");
        for x in boundary_samples() {
            assert_eq!(boundary_text(x), format!("0x{x:08x}"));
        }
    }

    #[test]
    fn canonical_boundaries_read_as_long_decode_reads_them() {
        for x in boundary_samples() {
            let lower = format!("0x{x:08x}");
            let upper = format!("0x{x:08X}");
            assert_eq!(parse_hex_boundary(&lower), Ok(x));
            assert_eq!(parse_hex_boundary(&upper), Ok(x));
        }
        // Not canonical: the general path decides, as before.
        assert_eq!(parse_hex_boundary(" 0x40000000 "), Ok(0x4000_0000));
        assert_eq!(parse_hex_boundary("0X40000000"), Ok(0x4000_0000));
        assert_eq!(parse_hex_boundary("0x4"), Ok(4));
        assert!(parse_hex_boundary("0x+0000000").is_err());
        assert!(parse_hex_boundary("0x4000000g").is_err());
        assert!(parse_hex_boundary("0x100000000").is_err());
    }

    /// Names from the conformance vectors (`oracle/gen-0285-topic_bundle.json`,
    /// `oracle/gen-0169-shedding-AvgShedder.json`,
    /// `oracle-extensible/gen-0069-shedding_extensible.json`), a heartbeat bundle among them.
    #[test]
    fn one_split_for_every_bundle_name() {
        assert_eq!(
            BundleName::parts("acme/orders/0x00000000_0x10000000"),
            Some(("acme/orders", "0x00000000_0x10000000"))
        );
        assert_eq!(
            BundleName::namespace_of("my-tenant/ns-0/0x02000000_0x04000000"),
            "my-tenant/ns-0"
        );
        // The heartbeat namespace's second part is the broker's host:port.
        let hb = "pulsar/10.1.0.13:8080/0x00000000_0xffffffff";
        assert_eq!(BundleName::namespace_of(hb), "pulsar/10.1.0.13:8080");
        let parsed = parse_bundle_name(hb).unwrap();
        assert_eq!(parsed.namespace, "pulsar/10.1.0.13:8080");
        assert_eq!(parsed.range, BundleRange::FULL);
        assert_eq!(BundleName::parts("acme"), None);
        assert_eq!(BundleName::namespace_of("acme"), "acme");
    }

    #[test]
    fn parses_and_formats_like_pulsar() {
        let b = parse_bundle_name("public/default/0x0FFFFFFF_0xffffffff").unwrap();
        assert_eq!(b.namespace, "public/default");
        assert_eq!(b.range.to_string(), "0x0fffffff_0xffffffff");
        assert!(b.range.contains(u32::MAX));
        assert!(
            !BundleRange::parse("0x00000000_0x40000000")
                .unwrap()
                .contains(0x4000_0000)
        );
        assert!(parse_bundle_name("public/default/0x40000000_0x00000000").is_err());
        assert!(parse_bundle_name("nonsense").is_err());
        assert!(parse_bundle_name("t/ns/0x1_0x100000000").is_err());
    }
}
