//! `brokerToNamespaceToBundleRange` ([`BundleRangeCache`]): broker → namespace → the set of bundle
//! ranges it serves or was preallocated, which even distribution and anti-affinity count.
//!
//! Java keeps the namespace and range *strings*; only set semantics are ever observed (how many
//! ranges a broker has of a namespace, whether a namespace's set is empty, adding and removing one
//! range), never an order inside a broker's entry. So the cache stores ids instead of copies: each
//! namespace is interned once for the whole cache, a range spelled canonically (`0x%08x_0x%08x`,
//! nearly all) is its two boundaries packed in a `u64`, any other spelling is interned text, and a
//! broker's set of ranges holds up to two keys inline (almost every set holds one). Rebuilding the
//! cache for 200,000 bundles then allocates per broker and per namespace, not per bundle (it was
//! ≈ 381,000 strings and ≈ 181,000 two-allocation sets). Distinct texts map to distinct keys and
//! equal texts to equal keys, so every count is the one the strings gave.
//!
//! Brokers stay in insertion order (an `IndexMap`): anti-affinity's counts are listed in it.

use std::collections::{HashMap, HashSet};
use std::fmt;

use indexmap::{IndexMap, IndexSet};
use rustc_hash::FxBuildHasher;

/// Interned text: the id is the position in insertion order.
type Interner = IndexSet<Box<str>, FxBuildHasher>;

/// A bundle range as the set compares it: one key per distinct text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum RangeKey {
    /// The canonical spelling `0x%08x_0x%08x` (lower-case hex): lower boundary in the high half.
    Hex(u64),
    /// Any other spelling: its id in the cache's interner of such texts.
    Text(u32),
}

/// How many keys a set holds before it spills to a hash set.
const INLINE: usize = 2;

/// A set of ranges: up to [`INLINE`] keys without allocating, then a hash set.
#[derive(Clone, Debug)]
enum RangeSet {
    Inline { len: u8, keys: [RangeKey; INLINE] },
    Spilled(HashSet<RangeKey, FxBuildHasher>),
}

impl Default for RangeSet {
    fn default() -> Self {
        RangeSet::Inline {
            len: 0,
            keys: [RangeKey::Hex(0); INLINE],
        }
    }
}

impl RangeSet {
    fn len(&self) -> usize {
        match self {
            RangeSet::Inline { len, .. } => usize::from(*len),
            RangeSet::Spilled(set) => set.len(),
        }
    }

    fn inline_keys(keys: &[RangeKey; INLINE], len: u8) -> &[RangeKey] {
        keys.get(..usize::from(len)).unwrap_or(&[])
    }

    fn insert(&mut self, key: RangeKey) {
        match self {
            RangeSet::Inline { len, keys } => {
                if Self::inline_keys(keys, *len).contains(&key) {
                    return;
                }
                if let Some(slot) = keys.get_mut(usize::from(*len)) {
                    *slot = key;
                    *len += 1;
                } else {
                    let mut set = HashSet::with_capacity_and_hasher(INLINE * 4, FxBuildHasher);
                    set.extend(keys.iter().copied());
                    set.insert(key);
                    *self = RangeSet::Spilled(set);
                }
            }
            RangeSet::Spilled(set) => {
                set.insert(key);
            }
        }
    }

    fn remove(&mut self, key: RangeKey) {
        match self {
            RangeSet::Inline { len, keys } => {
                let n = usize::from(*len);
                if let Some(i) = Self::inline_keys(keys, *len).iter().position(|k| *k == key) {
                    // Order inside a set is never observed: the last key fills the hole.
                    keys.swap(i, n - 1);
                    *len -= 1;
                }
            }
            RangeSet::Spilled(set) => {
                set.remove(&key);
            }
        }
    }

    fn keys(&self) -> Vec<RangeKey> {
        match self {
            RangeSet::Inline { len, keys } => Self::inline_keys(keys, *len).to_vec(),
            RangeSet::Spilled(set) => set.iter().copied().collect(),
        }
    }
}

/// One broker's part of the cache: namespace id → its set of ranges. Iterated only to count
/// (anti-affinity), so a hash map's order is enough.
#[derive(Clone, Debug, Default)]
pub struct BrokerRanges(HashMap<u32, RangeSet, FxBuildHasher>);

impl BrokerRanges {
    /// How many ranges of the namespace `ns` (from [`BundleRangeCache::namespace_id`]) it has.
    pub fn count(&self, ns: NamespaceId) -> usize {
        self.0.get(&ns.0).map_or(0, RangeSet::len)
    }

    /// Forgets every range (the entry stays, empty).
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// A namespace known to the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamespaceId(u32);

/// One broker's entry as text: namespace → its ranges, both sorted (see [`BundleRangeCache::to_sorted`]).
pub type SortedRanges = Vec<(String, Vec<String>)>;

/// `brokerToNamespaceToBundleRange`: see the module's documentation.
#[derive(Clone, Default)]
pub struct BundleRangeCache {
    brokers: IndexMap<String, BrokerRanges, FxBuildHasher>,
    namespaces: Interner,
    other_ranges: Interner,
}

/// The `tenant/ns` and range parts of a bundle name.
fn split_bundle(bundle: &str) -> (&str, &str) {
    crate::naming::BundleName::parts(bundle).unwrap_or((bundle, ""))
}

/// Eight lower-case hex digits, exactly as `%08x` writes them, read eight bytes at a time: this
/// runs for every bundle of every rebuild, and a byte-by-byte loop with its branches cost three
/// times as many instructions.
fn canonical_hex(digits: &[u8]) -> Option<u32> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let digits: [u8; 8] = digits.try_into().ok()?;
    // The first character is the most significant digit.
    let x = u64::from_be_bytes(digits);
    if x & HIGH != 0 {
        return None;
    }
    // Each byte is below 0x80, so adding at most 0x50 to it never carries into the next byte: the
    // byte's high bit then says whether it is at least the bound.
    let at_least = |bound: u64| x + (0x80 - bound) * ONES;
    let digit = at_least(0x30) & !at_least(0x3a) & HIGH;
    let letter = at_least(0x61) & !at_least(0x67) & HIGH;
    if digit | letter != HIGH {
        return None;
    }
    // Each byte's value: its low nibble, plus 9 for `a`-`f` (`a` is 0x61); at most 15, no carry.
    let nibbles = (x & (0x0f * ONES)) + (letter >> 7) * 9;
    // Pack the eight nibbles, most significant first, into 32 bits.
    let pairs = (nibbles | (nibbles >> 4)) & 0x00ff_00ff_00ff_00ff;
    let quads = (pairs | (pairs >> 8)) & 0x0000_ffff_0000_ffff;
    u32::try_from((quads | (quads >> 16)) & 0xffff_ffff).ok()
}

/// The length of a canonical range's text, `0x%08x_0x%08x`.
const CANONICAL_LEN: usize = 21;

/// The packed boundaries of a range spelled exactly `0x%08x_0x%08x`, else `None`: a text has
/// this form for one pair of values only, so packing it is one-to-one.
fn canonical_range(range: &str) -> Option<u64> {
    let b = range.as_bytes();
    if b.len() != CANONICAL_LEN
        || b.get(..2)? != b"0x"
        || b.get(10)? != &b'_'
        || b.get(11..13)? != b"0x"
    {
        return None;
    }
    let lo = canonical_hex(b.get(2..10)?)?;
    let hi = canonical_hex(b.get(13..21)?)?;
    Some((u64::from(lo) << 32) | u64::from(hi))
}

/// A bundle name's namespace and range key: a canonical range is the name's last 21 bytes after
/// a `/` (it contains no `/`, so that `/` is the last one, where [`split_bundle`] would cut), read
/// without searching; any other name is split by [`split_bundle`].
fn split_key<'b>(bundle: &'b str, other_ranges: &mut Interner) -> (&'b str, RangeKey) {
    let cut = bundle.len().wrapping_sub(CANONICAL_LEN + 1);
    if bundle.as_bytes().get(cut) == Some(&b'/')
        && let (Some(ns), Some(range)) = (bundle.get(..cut), bundle.get(cut + 1..))
        && let Some(packed) = canonical_range(range)
    {
        return (ns, RangeKey::Hex(packed));
    }
    let (ns, range) = split_bundle(bundle);
    let key = match canonical_range(range) {
        Some(packed) => RangeKey::Hex(packed),
        None => RangeKey::Text(intern(other_ranges, range)),
    };
    (ns, key)
}

fn intern(interner: &mut Interner, text: &str) -> u32 {
    let id = match interner.get_index_of(text) {
        Some(id) => id,
        None => interner.insert_full(text.into()).0,
    };
    // More than 2³² distinct texts cannot be held in memory; saturate rather than wrap.
    u32::try_from(id).unwrap_or(u32::MAX)
}

fn find(interner: &Interner, text: &str) -> Option<u32> {
    interner
        .get_index_of(text)
        .and_then(|id| u32::try_from(id).ok())
}

/// Adds one broker's bundles to its entry, remembering the last namespace (a broker's bundles
/// often come grouped by namespace, so most skip the namespace lookup).
pub struct RangeFiller<'c, 'b> {
    entry: &'c mut BrokerRanges,
    namespaces: &'c mut Interner,
    other_ranges: &'c mut Interner,
    last: Option<(&'b str, u32)>,
}

impl<'b> RangeFiller<'_, 'b> {
    /// Records `bundle` (a full bundle name) as served by this filler's broker.
    pub fn add(&mut self, bundle: &'b str) {
        let (ns, key) = split_key(bundle, self.other_ranges);
        let id = match self.last {
            Some((last_ns, id)) if last_ns == ns => id,
            _ => intern(self.namespaces, ns),
        };
        self.last = Some((ns, id));
        self.entry.0.entry(id).or_default().insert(key);
    }
}

impl BundleRangeCache {
    /// Empties the cache (ids are forgotten too, so its memory follows the cluster's names).
    pub fn clear(&mut self) {
        self.brokers.clear();
        self.namespaces.clear();
        self.other_ranges.clear();
    }

    /// How many brokers have an entry.
    pub fn len(&self) -> usize {
        self.brokers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.brokers.is_empty()
    }

    /// A filler for `broker`'s entry (created empty at the end when missing), expecting about
    /// `bundles` more bundles. Always `Some`; an `Option` only because the entry is found by the
    /// position it was just given.
    pub fn filler<'c, 'b>(
        &'c mut self,
        broker: &str,
        bundles: usize,
    ) -> Option<RangeFiller<'c, 'b>> {
        let slot = match self.brokers.get_index_of(broker) {
            Some(slot) => slot,
            None => {
                let entry = BrokerRanges(HashMap::with_capacity_and_hasher(bundles, FxBuildHasher));
                self.brokers.insert_full(broker.to_string(), entry).0
            }
        };
        let (_, entry) = self.brokers.get_index_mut(slot)?;
        Some(RangeFiller {
            entry,
            namespaces: &mut self.namespaces,
            other_ranges: &mut self.other_ranges,
            last: None,
        })
    }

    /// Records `bundle` as served by `broker`.
    pub fn add(&mut self, broker: &str, bundle: &str) {
        if let Some(mut filler) = self.filler(broker, 0) {
            filler.add(bundle);
        }
    }

    /// Forgets that `broker` serves `bundle`; an emptied namespace entry stays, counting zero.
    pub fn remove(&mut self, broker: &str, bundle: &str) {
        let (ns, range) = split_bundle(bundle);
        let Some(ns) = find(&self.namespaces, ns) else {
            return;
        };
        let key = match canonical_range(range) {
            Some(packed) => RangeKey::Hex(packed),
            None => match find(&self.other_ranges, range) {
                Some(id) => RangeKey::Text(id),
                None => return,
            },
        };
        if let Some(set) = self.brokers.get_mut(broker).and_then(|e| e.0.get_mut(&ns)) {
            set.remove(key);
        }
    }

    /// Keeps the brokers for which `keep(name)` holds, in their order.
    pub fn retain_brokers(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.brokers.retain(|name, _| keep(name));
    }

    /// Empties `broker`'s entry, keeping it where it is.
    pub fn clear_broker(&mut self, broker: &str) {
        if let Some(entry) = self.brokers.get_mut(broker) {
            entry.clear();
        }
    }

    /// Empties the entry at position `i`, keeping it where it is.
    pub fn clear_index(&mut self, i: usize) {
        if let Some((_, entry)) = self.brokers.get_index_mut(i) {
            entry.clear();
        }
    }

    /// The id of namespace `ns` (`tenant/ns`), when any bundle of it was ever added since the
    /// last [`Self::clear`]; none means every broker has zero ranges of it.
    pub fn namespace_id(&self, ns: &str) -> Option<NamespaceId> {
        find(&self.namespaces, ns).map(NamespaceId)
    }

    /// How many ranges of `namespace` `broker` has.
    pub fn ranges_on(&self, broker: &str, namespace: &str) -> usize {
        match (self.namespace_id(namespace), self.brokers.get(broker)) {
            (Some(ns), Some(entry)) => entry.count(ns),
            _ => 0,
        }
    }

    /// `broker`'s entry.
    pub fn get(&self, broker: &str) -> Option<&BrokerRanges> {
        self.brokers.get(broker)
    }

    /// The position of `broker`'s entry.
    pub fn get_index_of(&self, broker: &str) -> Option<usize> {
        self.brokers.get_index_of(broker)
    }

    /// The entry at position `i`, with its broker's name.
    pub fn get_index(&self, i: usize) -> Option<(&str, &BrokerRanges)> {
        self.brokers.get_index(i).map(|(k, v)| (k.as_str(), v))
    }

    /// Per broker, in the cache's order, how many of its non-empty namespaces `counts` (given
    /// each namespace's text) — anti-affinity's count of the group's namespaces on each broker.
    /// Brokers with none are left out.
    pub fn count_namespaces(&self, mut counts: impl FnMut(&str) -> bool) -> Vec<(&str, i64)> {
        // Decided once per namespace, not once per broker that has it.
        let counted: Vec<bool> = self.namespaces.iter().map(|ns| counts(ns)).collect();
        let mut out = Vec::new();
        for (broker, entry) in &self.brokers {
            let n = entry
                .0
                .iter()
                .filter(|(id, set)| {
                    set.len() > 0
                        && usize::try_from(**id)
                            .ok()
                            .and_then(|i| counted.get(i))
                            .copied()
                            .unwrap_or(false)
                })
                .count();
            if n > 0 {
                out.push((broker.as_str(), i64::try_from(n).unwrap_or(i64::MAX)));
            }
        }
        out
    }

    /// The text of a range key.
    fn range_text(&self, key: RangeKey) -> String {
        match key {
            RangeKey::Hex(packed) => {
                let mut out = String::with_capacity(21);
                crate::naming::push_boundary(&mut out, (packed >> 32) as u32);
                out.push('_');
                crate::naming::push_boundary(&mut out, packed as u32);
                out
            }
            RangeKey::Text(id) => usize::try_from(id)
                .ok()
                .and_then(|i| self.other_ranges.get_index(i))
                .map_or_else(String::new, |t| t.to_string()),
        }
    }

    /// The cache as text: broker → namespace → ranges (brokers in order, namespaces and ranges
    /// sorted, empty sets left out), for comparing two caches by what they count.
    pub fn to_sorted(&self) -> Vec<(String, SortedRanges)> {
        self.brokers
            .iter()
            .map(|(broker, entry)| {
                let mut namespaces: SortedRanges = entry
                    .0
                    .iter()
                    .filter(|(_, set)| set.len() > 0)
                    .map(|(id, set)| {
                        let ns = usize::try_from(*id)
                            .ok()
                            .and_then(|i| self.namespaces.get_index(i))
                            .map_or_else(String::new, |t| t.to_string());
                        let mut ranges: Vec<String> =
                            set.keys().into_iter().map(|k| self.range_text(k)).collect();
                        ranges.sort();
                        (ns, ranges)
                    })
                    .collect();
                namespaces.sort();
                (broker.clone(), namespaces)
            })
            .collect()
    }
}

impl fmt::Debug for BundleRangeCache {
    /// What the cache counts, in a fixed order: equal for equal contents whatever the order of
    /// insertion into each broker's entry.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sorted = self.to_sorted();
        f.debug_map()
            .entries(sorted.iter().map(|(b, m)| (b, m)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// The string model the cache replaces: broker → namespace → set of range texts.
    type Model = IndexMap<String, IndexMap<String, IndexSet<String>>>;

    fn model_count(m: &Model, broker: &str, ns: &str) -> usize {
        m.get(broker)
            .and_then(|e| e.get(ns))
            .map_or(0, IndexSet::len)
    }

    #[test]
    fn canonical_ranges_pack_one_to_one() {
        assert_eq!(
            canonical_range("0x00000000_0xffffffff"),
            Some(0x0000_0000_ffff_ffff)
        );
        assert_eq!(
            canonical_range("0x12345678_0x9abcdef0"),
            Some(0x1234_5678_9abc_def0)
        );
        for other in [
            "0x0000000A_0xffffffff",
            "0X00000000_0xffffffff",
            "0x00000000-0xffffffff",
            "0x0000000_0xffffffff",
            "0x00000000_0xfffffffff",
            " 0x00000000_0xffffffff",
            "",
            "0x0000000g_0xffffffff",
        ] {
            assert_eq!(canonical_range(other), None, "{other}");
        }
        let cache = BundleRangeCache::default();
        for v in [0u64, 1, 0x0123_4567_89ab_cdef, u64::MAX] {
            let text = cache.range_text(RangeKey::Hex(v));
            assert_eq!(canonical_range(&text), Some(v));
        }
    }

    /// The fast split agrees with the general one on names with and without a canonical tail.
    #[test]
    fn split_key_agrees_with_split_bundle() {
        let mut fast = Interner::default();
        let mut slow = Interner::default();
        for name in [
            "t/ns/0x00000000_0xffffffff",
            "t/ns/0x0000000A_0xffffffff",
            "t/ns/0x0000000a_0xffffffff",
            "/0x00000000_0xffffffff",
            "0x00000000_0xffffffff",
            "x0x00000000_0xffffffff",
            "t/ns/a/0x00000000_0xffffffff",
            "t/ns/0x00000000_0xfffffff/",
            "t/ns/0x0000/000_0xffffffff",
            "t/ns/",
            "",
            "t/ns/é0x00000000_0xfffffff",
        ] {
            let (ns, key) = split_key(name, &mut fast);
            let (want_ns, range) = split_bundle(name);
            let want = match canonical_range(range) {
                Some(p) => RangeKey::Hex(p),
                None => RangeKey::Text(intern(&mut slow, range)),
            };
            assert_eq!((ns, key), (want_ns, want), "{name}");
        }
        for x in [0u32, 9, 10, 15, 16, 0x1234_abcd, u32::MAX] {
            let text = format!("{x:08x}");
            assert_eq!(canonical_hex(text.as_bytes()), Some(x));
            assert_eq!(
                canonical_hex(format!("{x:08X}").as_bytes()).is_some(),
                !text.bytes().any(|c| c.is_ascii_alphabetic())
            );
        }
        // Against the byte-by-byte reading: every byte value at every position of a few digit
        // strings, and random eight-byte strings biased to hex characters.
        let reference = |d: &[u8]| -> Option<u32> {
            d.iter().try_fold(0u32, |acc, &c| {
                let v = match c {
                    b'0'..=b'9' => c - b'0',
                    b'a'..=b'f' => c - b'a' + 10,
                    _ => return None,
                };
                Some((acc << 4) | u32::from(v))
            })
        };
        for base in [*b"00000000", *b"ffffffff", *b"09af5b3c"] {
            for pos in 0..8 {
                for c in 0..=255u8 {
                    let mut d = base;
                    d[pos] = c;
                    assert_eq!(canonical_hex(&d), reference(&d), "{d:?}");
                }
            }
        }
        let alphabet = b"0123456789abcdefABCDEF/:`g@ \x7f\x80\xff";
        let mut rng = SplitMix64::new(3);
        for _ in 0..200_000 {
            let d: [u8; 8] = std::array::from_fn(|_| {
                alphabet[(rng.next_u64() % alphabet.len() as u64) as usize]
            });
            assert_eq!(canonical_hex(&d), reference(&d), "{d:?}");
        }
        for bad in [
            "0000000g", "000000/0", "0000000:", "0000000`", "0000000G", "0000000",
        ] {
            assert_eq!(canonical_hex(bad.as_bytes()), None, "{bad}");
        }
    }

    /// Random adds, removes, broker clears and retains, with canonical and other spellings, give
    /// the counts, emptiness and anti-affinity counts of the string model.
    #[test]
    fn counts_like_sets_of_strings() {
        let mut rng = SplitMix64::new(7);
        let spellings = |r: u64, lo: u32, hi: u32| match r % 4 {
            0 => format!("0x{lo:08X}_0x{hi:08x}"),
            1 => format!("{lo}_{hi}"),
            _ => format!("0x{lo:08x}_0x{hi:08x}"),
        };
        for round in 0..20 {
            let mut cache = BundleRangeCache::default();
            let mut model = Model::new();
            for _ in 0..2_000 {
                let broker = format!("b{}", rng.next_u64() % 6);
                let ns = format!("t/ns{}", rng.next_u64() % 5);
                let lo = (rng.next_u64() % 6) as u32 * 0x1000_0000;
                let range = spellings(rng.next_u64(), lo, lo + 0x1000_0000);
                let bundle = format!("{ns}/{range}");
                match rng.next_u64() % 10 {
                    0..=5 => {
                        cache.add(&broker, &bundle);
                        model
                            .entry(broker.clone())
                            .or_default()
                            .entry(ns.clone())
                            .or_default()
                            .insert(range);
                    }
                    6..=8 => {
                        cache.remove(&broker, &bundle);
                        if let Some(set) = model.get_mut(&broker).and_then(|m| m.get_mut(&ns)) {
                            set.shift_remove(&range);
                        }
                    }
                    _ if round % 2 == 0 => {
                        cache.clear_broker(&broker);
                        if let Some(m) = model.get_mut(&broker) {
                            m.clear();
                        }
                    }
                    _ => {
                        cache.retain_brokers(|b| b != broker);
                        model.retain(|b, _| *b != broker);
                    }
                }
                for b in 0..7 {
                    let b = format!("b{b}");
                    for n in 0..6 {
                        let n = format!("t/ns{n}");
                        assert_eq!(cache.ranges_on(&b, &n), model_count(&model, &b, &n));
                    }
                }
            }
            let brokers: Vec<&str> = (0..cache.len())
                .filter_map(|i| cache.get_index(i).map(|(b, _)| b))
                .collect();
            let model_brokers: Vec<&str> = model.keys().map(String::as_str).collect();
            assert_eq!(brokers, model_brokers);
            let group = |ns: &str| ns.ends_with('1') || ns.ends_with('3');
            let want: Vec<(&str, i64)> = model
                .iter()
                .filter_map(|(b, m)| {
                    let n = m
                        .iter()
                        .filter(|(ns, set)| !set.is_empty() && group(ns))
                        .count() as i64;
                    (n > 0).then_some((b.as_str(), n))
                })
                .collect();
            assert_eq!(cache.count_namespaces(group), want);
        }
    }
}
