//! Java iteration order of string-keyed collections, wherever Pulsar's decisions depend on it: the
//! candidate `HashSet<String>` placement strategies walk (round robin indexes into it, floating-point
//! sums follow it), the brokers' and bundles' `ConcurrentHashMap`s, the `HashMap` that
//! `getBundleDataForLoadShedding()` collects into, and loops that stop part-way (the namespace bundle
//! cap, the per-cycle split limit). The one implementation of this emulation in the crate.
//!
//! Every order is fully determined by `String.hashCode`, the table capacity and the insertion order:
//! - `java.util.HashMap` / `HashSet` ([`JavaHashTable`], [`hash_map_order`]): bucket =
//!   `hash(key) & (capacity − 1)` with `hash = h ^ (h >>> 16)`, each bucket in insertion order, the
//!   table doubles when the size exceeds ¾ of it (an order-preserving split) and never shrinks.
//! - `java.util.concurrent.ConcurrentHashMap` ([`concurrent_hash_map_order`]), default constructor,
//!   filled by `put`: the same buckets (`spread` also clears the sign bit), but it doubles once the
//!   count *reaches* ¾ of the table, and `transfer` keeps each bin's trailing run in order while the
//!   nodes before it are prepended one by one (so they come out reversed).
//!
//! Tree bins (8+ colliding keys in one bucket) are not modelled; they do not occur at these sizes.
//! Checked against the oracle's `broker_iteration_order`, `bundle_iteration_order` and
//! `candidate_iteration_order` outputs.

use std::collections::HashSet;

/// `String.hashCode()`: `h = 31·h + c` over UTF-16 code units, wrapping.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// `HashMap.hash(key)`: the high half folded into the low half (bits reinterpreted, as Java's `>>>`
/// works on them).
pub fn hash_map_hash(s: &str) -> u32 {
    let h = java_string_hash(s) as u32;
    h ^ (h >> 16)
}

/// `ConcurrentHashMap.spread`: `(h ^ (h >>> 16)) & 0x7fffffff`.
fn chm_spread(s: &str) -> u32 {
    hash_map_hash(s) & 0x7fff_ffff
}

const DEFAULT_CAPACITY: usize = 16;

/// `hash & (capacity − 1)`; the capacity is a power of two, so the mask keeps the low bits.
fn bucket(hash: u32, capacity: usize) -> usize {
    (hash as usize) & capacity.saturating_sub(1)
}

/// A `java.util.HashMap` key table (what a `HashSet` is) over items of type `K`, each stored with its
/// [`hash_map_hash`]. Items are compared by `==`, so `K` can be the name itself ([`JavaHashSet`]) or
/// a cheap stand-in for it, such as a position in a list of names, when the caller supplies the
/// name's hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JavaHashTable<K> {
    buckets: Vec<Vec<(u32, K)>>,
    len: usize,
}

/// A `java.util.HashSet<String>`.
pub type JavaHashSet = JavaHashTable<String>;

impl<K> Default for JavaHashTable<K> {
    fn default() -> Self {
        Self::with_capacity_pow2(DEFAULT_CAPACITY)
    }
}

impl<K> JavaHashTable<K> {
    /// `new HashSet<>()`: capacity 16 (allocated on first insert in Java; same order).
    pub fn new() -> Self {
        Self::default()
    }

    /// A table with at least `capacity` buckets (rounded up to a power of two, at least 16).
    pub fn with_min_capacity(capacity: usize) -> Self {
        let cap = capacity
            .max(DEFAULT_CAPACITY)
            .checked_next_power_of_two()
            .unwrap_or(1 << 30);
        Self::with_capacity_pow2(cap)
    }

    fn with_capacity_pow2(cap: usize) -> Self {
        let mut buckets = Vec::with_capacity(cap);
        buckets.resize_with(cap, Vec::new);
        Self { buckets, len: 0 }
    }

    pub fn capacity(&self) -> usize {
        self.buckets.len()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Iteration order.
    pub fn iter(&self) -> impl Iterator<Item = &K> {
        self.buckets.iter().flatten().map(|(_, k)| k)
    }

    /// Iteration order, with each item's hash.
    pub fn iter_hashed(&self) -> impl Iterator<Item = (u32, &K)> {
        self.buckets.iter().flatten().map(|(h, k)| (*h, k))
    }

    /// `removeIf(!keep)`: order of the survivors unchanged.
    pub fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        let mut len = 0;
        for bucket in &mut self.buckets {
            bucket.retain(|(_, k)| keep(k));
            len += bucket.len();
        }
        self.len = len;
    }

    /// `clear()`: empties the table, keeps the capacity.
    pub fn clear(&mut self) {
        for bucket in &mut self.buckets {
            bucket.clear();
        }
        self.len = 0;
    }

    /// Java's resize splits every bucket into a low and a high bucket keeping relative order, which is
    /// exactly re-inserting in the current iteration order into the doubled table.
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.buckets);
        let cap = old.len().saturating_mul(2).max(DEFAULT_CAPACITY);
        self.buckets = Vec::with_capacity(cap);
        self.buckets.resize_with(cap, Vec::new);
        for (h, k) in old.into_iter().flatten() {
            if let Some(b) = self.buckets.get_mut(bucket(h, cap)) {
                b.push((h, k));
            }
        }
    }
}

impl<K: PartialEq> JavaHashTable<K> {
    /// Whether `item` (whose hash is `hash`) is in the table.
    pub fn contains_hashed(&self, hash: u32, item: &K) -> bool {
        self.buckets
            .get(bucket(hash, self.buckets.len()))
            .is_some_and(|b| b.iter().any(|(h, k)| *h == hash && k == item))
    }

    /// `add` of an item whose hash is `hash` (the [`hash_map_hash`] of the name it stands for):
    /// appends to its bucket; grows (doubling, order-preserving split) when the size exceeds
    /// 0.75 × capacity, as `HashMap.putVal` does.
    pub fn insert_hashed(&mut self, hash: u32, item: K) -> bool {
        let cap = self.buckets.len();
        let Some(b) = self.buckets.get_mut(bucket(hash, cap)) else {
            return false;
        };
        if b.iter().any(|(h, k)| *h == hash && *k == item) {
            return false;
        }
        b.push((hash, item));
        self.len += 1;
        if self.len.saturating_mul(4) > cap.saturating_mul(3) {
            self.grow();
        }
        true
    }
}

impl JavaHashTable<String> {
    /// `new HashSet<>(); addAll(items)` in the given order.
    pub fn from_ordered<'a>(items: impl IntoIterator<Item = &'a str>) -> Self {
        let mut set = Self::new();
        for item in items {
            set.insert(item);
        }
        set
    }

    pub fn contains(&self, s: &str) -> bool {
        let hash = hash_map_hash(s);
        self.buckets
            .get(bucket(hash, self.buckets.len()))
            .is_some_and(|b| b.iter().any(|(h, k)| *h == hash && k == s))
    }

    /// `add`.
    pub fn insert(&mut self, s: &str) -> bool {
        let hash = hash_map_hash(s);
        if self.contains(s) {
            return false;
        }
        self.insert_hashed(hash, s.to_string())
    }

    pub fn to_vec(&self) -> Vec<String> {
        self.iter().cloned().collect()
    }
}

/// Indices into `keys_in_put_order` in the order a default `java.util.HashMap` (or `HashSet`) filled
/// in that order iterates them: by bucket of the final table, insertion order within a bucket. A
/// repeated key keeps its first position.
pub fn hash_map_order<S: AsRef<str>>(keys_in_put_order: &[S]) -> Vec<usize> {
    let mut seen: HashSet<&str> = HashSet::with_capacity(keys_in_put_order.len());
    let mut entries: Vec<(u32, usize)> = Vec::with_capacity(keys_in_put_order.len());
    for (index, key) in keys_in_put_order.iter().enumerate() {
        let key = key.as_ref();
        if seen.insert(key) {
            entries.push((hash_map_hash(key), index));
        }
    }
    // Resized while the size exceeds ¾ of the table: the final capacity decides the buckets.
    let mut cap = DEFAULT_CAPACITY;
    while entries.len().saturating_mul(4) > cap.saturating_mul(3) {
        cap = cap.saturating_mul(2);
    }
    // Stable: insertion order within a bucket.
    entries.sort_by_key(|&(h, _)| bucket(h, cap));
    entries.into_iter().map(|(_, i)| i).collect()
}

/// Indices into `keys_in_put_order` in the order a default `ConcurrentHashMap` iterates them. A
/// repeated key keeps its first position, as `put` on an existing key does.
pub fn concurrent_hash_map_order<S: AsRef<str>>(keys_in_put_order: &[S]) -> Vec<usize> {
    let mut capacity: usize = DEFAULT_CAPACITY;
    let mut table: Vec<Vec<(u32, usize)>> = vec![Vec::new(); capacity];
    let mut seen: HashSet<&str> = HashSet::with_capacity(keys_in_put_order.len());
    let mut count = 0usize;
    for (index, key) in keys_in_put_order.iter().enumerate() {
        let key = key.as_ref();
        if !seen.insert(key) {
            continue;
        }
        let hash = chm_spread(key);
        if let Some(bin) = table.get_mut(bucket(hash, capacity)) {
            bin.push((hash, index));
        }
        count += 1;
        // `addCount`: resize once the count reaches `sizeCtl = 0.75 · capacity`.
        while count >= capacity - (capacity >> 2) {
            table = transfer(table, capacity);
            capacity *= 2;
        }
    }
    table
        .into_iter()
        .flat_map(|bin| bin.into_iter().map(|(_, i)| i))
        .collect()
}

/// `ConcurrentHashMap.transfer` for list bins: bin `i` splits into `i` (hash bit `n` clear) and
/// `i + n` (bit set).
fn transfer(table: Vec<Vec<(u32, usize)>>, n: usize) -> Vec<Vec<(u32, usize)>> {
    // `n` is a power of two below 2^31 here (the table doubles from 16 per ¾ of its size).
    let bit = u32::try_from(n).unwrap_or(0);
    let mut next: Vec<Vec<(u32, usize)>> = vec![Vec::new(); 2 * n];
    for (i, bin) in table.into_iter().enumerate() {
        let Some(&(first_hash, _)) = bin.first() else {
            continue;
        };
        // The last run of nodes sharing the same bit is moved as is.
        let mut run_bit = first_hash & bit;
        let mut last_run = 0;
        for (j, &(h, _)) in bin.iter().enumerate().skip(1) {
            if h & bit != run_bit {
                run_bit = h & bit;
                last_run = j;
            }
        }
        let tail: Vec<(u32, usize)> = bin.get(last_run..).unwrap_or_default().to_vec();
        let (mut low, mut high) = if run_bit == 0 {
            (tail, Vec::new())
        } else {
            (Vec::new(), tail)
        };
        // Nodes before the run are prepended one by one, reversing their order.
        for &node in bin.get(..last_run).unwrap_or_default() {
            if node.0 & bit == 0 {
                low.insert(0, node);
            } else {
                high.insert(0, node);
            }
        }
        if let Some(slot) = next.get_mut(i) {
            *slot = low;
        }
        if let Some(slot) = next.get_mut(i + n) {
            *slot = high;
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(order: &[usize], keys: &[String]) -> Vec<String> {
        order.iter().filter_map(|&i| keys.get(i).cloned()).collect()
    }

    #[test]
    fn string_hash_matches_java() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        // "hello".hashCode() in Java.
        assert_eq!(java_string_hash("hello"), 99_162_322);
        // Overflowing and non-ASCII (value from an independent Python model of `hashCode`).
        assert_eq!(java_string_hash("ünïcode"), -609_351_766);
    }

    #[test]
    fn order_of_an_oracle_cycle() {
        // oracle/handmade-split_task_3_namespace_cap.json: broker_iteration_order.
        let keys = ["b1:8080", "b2:8080"];
        let order: Vec<&str> = concurrent_hash_map_order(&keys)
            .into_iter()
            .filter_map(|i| keys.get(i).copied())
            .collect();
        assert_eq!(order, ["b1:8080", "b2:8080"]);
    }

    #[test]
    fn small_maps_iterate_by_bucket() {
        // "b" (98) and "a" (97) land in buckets 2 and 1 of 16.
        assert_eq!(concurrent_hash_map_order(&["b", "a"]), vec![1, 0]);
        assert_eq!(hash_map_order(&["b", "a"]), vec![1, 0]);
        // A repeated key keeps its first position.
        assert_eq!(concurrent_hash_map_order(&["b", "a", "b"]), vec![1, 0]);
        assert_eq!(hash_map_order(&["b", "a", "b"]), vec![1, 0]);
    }

    #[test]
    fn hash_set_order_follows_buckets() {
        // Oracle handmade-rr_1_cycle: HashSet of b1..b3 iterates b1, b2, b3.
        let set = JavaHashSet::from_ordered(["b3:8080", "b1:8080", "b2:8080"]);
        assert_eq!(set.to_vec(), ["b1:8080", "b2:8080", "b3:8080"]);
        assert_eq!(set.capacity(), 16);
    }

    #[test]
    fn concurrent_hash_map_order_matches_oracle() {
        // Oracle gen-0228 `broker_iteration_order` for broker-0 … broker-11 inserted in order.
        let keys: Vec<String> = (0..12)
            .map(|i| format!("broker-{i}.pulsar.svc:8080"))
            .collect();
        let order = names(&concurrent_hash_map_order(&keys), &keys);
        let want: Vec<String> = [1, 10, 0, 4, 9, 3, 11, 6, 7, 8, 2, 5]
            .iter()
            .map(|i| format!("broker-{i}.pulsar.svc:8080"))
            .collect();
        assert_eq!(order, want);
        // The same keys copied into a fresh HashSet (16 buckets, no resize at 12) iterate
        // differently: gen-0228's candidate_iteration_order starts broker-1, broker-3, broker-11.
        let set = JavaHashSet::from_ordered(order.iter().map(String::as_str));
        let first: Vec<&String> = set.iter().take(3).collect();
        assert_eq!(
            first,
            [
                "broker-1.pulsar.svc:8080",
                "broker-3.pulsar.svc:8080",
                "broker-11.pulsar.svc:8080"
            ]
        );
    }

    #[test]
    fn hash_set_grows_past_three_quarters() {
        let names: Vec<String> = (0..13).map(|i| format!("broker-{i}")).collect();
        let set = JavaHashSet::from_ordered(names.iter().map(String::as_str));
        assert_eq!(set.capacity(), 32);
        assert_eq!(set.len(), 13);
        // A HashSet filled in one go iterates like a HashMap filled in the same order.
        assert_eq!(set.to_vec(), {
            let order = hash_map_order(&names);
            order
                .iter()
                .filter_map(|&i| names.get(i).cloned())
                .collect::<Vec<_>>()
        });
    }

    #[test]
    fn index_table_iterates_like_the_string_set() {
        // Positions standing for names, with the names' hashes, give the same order.
        let names: Vec<String> = (0..40).map(|i| format!("b-{i}.example:8080")).collect();
        let set = JavaHashSet::from_ordered(names.iter().map(String::as_str));
        let mut table: JavaHashTable<usize> = JavaHashTable::new();
        for (i, n) in names.iter().enumerate() {
            table.insert_hashed(hash_map_hash(n), i);
        }
        let by_position: Vec<String> = table
            .iter()
            .filter_map(|&i| names.get(i).cloned())
            .collect();
        assert_eq!(by_position, set.to_vec());
        assert!(table.contains_hashed(hash_map_hash("b-3.example:8080"), &3));
        assert!(!table.insert_hashed(hash_map_hash("b-3.example:8080"), 3));
    }
}
