//! Java iteration order of string-keyed maps, for the places where Pulsar's decisions depend on it
//! (a loop that stops part-way: the namespace bundle cap, the per-cycle split limit).
//!
//! [`concurrent_hash_map_order`] reproduces `java.util.concurrent.ConcurrentHashMap` built with the
//! default constructor and filled by `put` in a given order: bucket = `spread(String.hashCode())` masked
//! by the table size, list bins keep insertion order, the table doubles when the count reaches 3/4 of
//! it, and each resize splits every bin the way `transfer` does (the trailing run keeps its order, the
//! nodes before it are prepended). Tree bins (8+ colliding keys in one bucket) are not modelled.
//! Checked against the oracle's `broker_iteration_order` and `bundle_iteration_order` outputs.

/// `String.hashCode()`: `h = 31·h + c` over UTF-16 code units, wrapping.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// `ConcurrentHashMap.spread`: `(h ^ (h >>> 16)) & 0x7fffffff`.
fn spread(h: i32) -> u32 {
    // Reinterpreting the bits, as Java's `int` arithmetic does.
    let h = h as u32;
    (h ^ (h >> 16)) & 0x7fff_ffff
}

/// Indices into `keys_in_put_order` in the order a default `ConcurrentHashMap` iterates them. Keys
/// are expected unique (a repeated key keeps its first position, as `put` on an existing key does).
pub fn concurrent_hash_map_order<S: AsRef<str>>(keys_in_put_order: &[S]) -> Vec<usize> {
    let mut capacity: usize = 16;
    let mut table: Vec<Vec<(u32, usize)>> = vec![Vec::new(); capacity];
    let mut count = 0usize;
    for (index, key) in keys_in_put_order.iter().enumerate() {
        let key = key.as_ref();
        let duplicate = keys_in_put_order
            .get(..index)
            .is_some_and(|earlier| earlier.iter().any(|k| k.as_ref() == key));
        if duplicate {
            continue;
        }
        let hash = spread(java_string_hash(key));
        if let Some(bin) = table.get_mut(bucket(hash, capacity)) {
            bin.push((hash, index));
        }
        count += 1;
        // `addCount`: resize once the count reaches `sizeCtl = 0.75 · capacity`.
        while count >= capacity - (capacity >> 2) {
            table = transfer(&table, capacity);
            capacity *= 2;
        }
    }
    table
        .into_iter()
        .flat_map(|bin| bin.into_iter().map(|(_, i)| i))
        .collect()
}

fn bucket(hash: u32, capacity: usize) -> usize {
    // `capacity` is a power of two ≤ 2^31 here, so the mask fits in u32.
    (hash & (u32::try_from(capacity).unwrap_or(u32::MAX).wrapping_sub(1))) as usize
}

/// `ConcurrentHashMap.transfer` for list bins: bin `i` splits into `i` (hash bit `n` clear) and
/// `i + n` (bit set).
fn transfer(table: &[Vec<(u32, usize)>], n: usize) -> Vec<Vec<(u32, usize)>> {
    let bit = u32::try_from(n).unwrap_or(0);
    let mut next: Vec<Vec<(u32, usize)>> = vec![Vec::new(); 2 * n];
    for (i, bin) in table.iter().enumerate() {
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
}
