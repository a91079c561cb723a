//! Java collection iteration order for broker names: `java.util.HashSet<String>` and
//! `java.util.concurrent.ConcurrentHashMap<String, _>`.
//!
//! Pulsar hands placement strategies a `Set<String>` of candidates and iterates brokers from a
//! `ConcurrentHashMap`. Round robin indexes into that order, and the strategies' floating-point sums
//! follow it, so reproducing Pulsar's picks bit for bit means reproducing the order. Both are fully
//! determined by `String.hashCode`, the table capacity and the insertion order, which we model here.

/// `String.hashCode()`: `s[0]·31^(n−1) + … + s[n−1]` over UTF-16 code units, in wrapping 32-bit math.
pub fn java_string_hash(s: &str) -> u32 {
    s.encode_utf16().fold(0u32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(u32::from(unit))
    })
}

/// `HashMap.hash(key)`: the high half folded into the low half.
fn spread(h: u32) -> u32 {
    h ^ (h >> 16)
}

const DEFAULT_CAPACITY: usize = 16;

/// A `java.util.HashSet<String>`: buckets by `spread(hash) & (capacity − 1)`, each bucket in insertion
/// order, iteration bucket by bucket. Like Java, the table never shrinks (`clear` and removals keep
/// the capacity), which is why a reused set iterates differently from a fresh one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JavaHashSet {
    buckets: Vec<Vec<String>>,
    len: usize,
}

impl Default for JavaHashSet {
    fn default() -> Self {
        Self::new()
    }
}

impl JavaHashSet {
    /// `new HashSet<>()`: capacity 16 (allocated on first insert in Java; same order).
    pub fn new() -> Self {
        Self::with_capacity_pow2(DEFAULT_CAPACITY)
    }

    /// A set with at least `capacity` buckets (rounded up to a power of two, at least 16).
    pub fn with_min_capacity(capacity: usize) -> Self {
        let cap = capacity
            .max(DEFAULT_CAPACITY)
            .checked_next_power_of_two()
            .unwrap_or(1 << 30);
        Self::with_capacity_pow2(cap)
    }

    fn with_capacity_pow2(cap: usize) -> Self {
        Self {
            buckets: vec![Vec::new(); cap],
            len: 0,
        }
    }

    /// `new HashSet<>(); addAll(items)` in the given order.
    pub fn from_ordered<'a>(items: impl IntoIterator<Item = &'a str>) -> Self {
        let mut set = Self::new();
        for item in items {
            set.insert(item);
        }
        set
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

    fn bucket_index(&self, s: &str) -> usize {
        let mask = self.buckets.len().saturating_sub(1);
        // The mask keeps the value below the capacity, which is far below u32::MAX.
        (spread(java_string_hash(s)) as usize) & mask
    }

    pub fn contains(&self, s: &str) -> bool {
        let i = self.bucket_index(s);
        self.buckets
            .get(i)
            .is_some_and(|b| b.iter().any(|x| x == s))
    }

    /// `add`: appends to its bucket; grows (doubling, order-preserving split) when the size exceeds
    /// 0.75 × capacity, as `HashMap.putVal` does.
    pub fn insert(&mut self, s: &str) -> bool {
        if self.contains(s) {
            return false;
        }
        let i = self.bucket_index(s);
        if let Some(bucket) = self.buckets.get_mut(i) {
            bucket.push(s.to_string());
            self.len += 1;
        }
        if self.len * 4 > self.buckets.len() * 3 {
            self.grow();
        }
        true
    }

    /// Java's resize splits every bucket into a low and a high bucket keeping relative order, which is
    /// exactly re-inserting in the current iteration order into the doubled table.
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.buckets);
        self.buckets = vec![Vec::new(); old.len() * 2];
        for s in old.into_iter().flatten() {
            let i = self.bucket_index(&s);
            if let Some(bucket) = self.buckets.get_mut(i) {
                bucket.push(s);
            }
        }
    }

    /// `removeIf(!keep)`: order of the survivors unchanged.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        for bucket in &mut self.buckets {
            bucket.retain(|s| keep(s));
        }
        self.len = self.buckets.iter().map(Vec::len).sum();
    }

    /// `clear()`: empties the set, keeps the capacity.
    pub fn clear(&mut self) {
        for bucket in &mut self.buckets {
            bucket.clear();
        }
        self.len = 0;
    }

    /// Iteration order.
    pub fn iter(&self) -> impl Iterator<Item = &String> {
        self.buckets.iter().flatten()
    }

    pub fn to_vec(&self) -> Vec<String> {
        self.iter().cloned().collect()
    }
}

/// The iteration order of a `ConcurrentHashMap<String, _>` (default constructor) after inserting
/// `keys` in the given order. Differs from `HashMap` in when it resizes (at size ≥ 0.75 × capacity)
/// and in how a resize splits a bucket: the tail run that goes to one side is kept, the nodes before
/// it are prepended one by one (so they come out reversed).
pub fn concurrent_hash_map_order<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut n = DEFAULT_CAPACITY;
    let mut table: Vec<Vec<(u32, String)>> = vec![Vec::new(); n];
    let mut count = 0usize;
    let mut size_ctl = n - (n >> 2);
    for key in keys {
        let h = spread(java_string_hash(key)) & 0x7fff_ffff;
        let i = (h as usize) & (n - 1);
        let Some(bin) = table.get_mut(i) else {
            continue;
        };
        if bin.iter().any(|(_, k)| k == key) {
            continue;
        }
        bin.push((h, key.to_string()));
        count += 1;
        while count >= size_ctl {
            table = chm_transfer(table, n);
            n *= 2;
            size_ctl = n - (n >> 2);
        }
    }
    table.into_iter().flatten().map(|(_, k)| k).collect()
}

/// `ConcurrentHashMap.transfer` for one doubling from `n` buckets.
fn chm_transfer(table: Vec<Vec<(u32, String)>>, n: usize) -> Vec<Vec<(u32, String)>> {
    let bit = n as u32;
    let mut next: Vec<Vec<(u32, String)>> = vec![Vec::new(); n * 2];
    for (i, bin) in table.into_iter().enumerate() {
        let Some(first) = bin.first() else {
            continue;
        };
        let mut run_bit = first.0 & bit;
        let mut last_run = 0usize;
        for (idx, (h, _)) in bin.iter().enumerate().skip(1) {
            let b = h & bit;
            if b != run_bit {
                run_bit = b;
                last_run = idx;
            }
        }
        let mut low: std::collections::VecDeque<(u32, String)> = Default::default();
        let mut high: std::collections::VecDeque<(u32, String)> = Default::default();
        let mut nodes = bin.into_iter();
        let head: Vec<(u32, String)> = nodes.by_ref().take(last_run).collect();
        let tail: Vec<(u32, String)> = nodes.collect();
        if run_bit == 0 {
            low.extend(tail);
        } else {
            high.extend(tail);
        }
        for node in head {
            if node.0 & bit == 0 {
                low.push_front(node);
            } else {
                high.push_front(node);
            }
        }
        if let Some(slot) = next.get_mut(i) {
            *slot = low.into();
        }
        if let Some(slot) = next.get_mut(i + n) {
            *slot = high.into();
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_matches_java() {
        // "b1:8080".hashCode() in Java.
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a") as i32, 97);
        assert_eq!(java_string_hash("hello") as i32, 99162322);
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
        let names: Vec<String> = (0..12)
            .map(|i| format!("broker-{i}.pulsar.svc:8080"))
            .collect();
        let order = concurrent_hash_map_order(names.iter().map(String::as_str));
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
    }
}
