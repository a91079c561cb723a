//! A fast non-cryptographic hasher (FxHash, as rustc uses) for the importer's internal maps keyed by
//! bundle, broker and namespace names. These maps live only for one import of the user's own files,
//! so resistance to crafted collisions (what std's SipHash buys) is not worth its cost here:
//! hashing 200,000 bundle names several times was a visible part of a large import.

use std::hash::{BuildHasherDefault, Hasher};

use indexmap::IndexMap;

#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            for (slot, b) in w.iter_mut().zip(rest) {
                *slot = *b;
            }
            self.add(u64::from_le_bytes(w));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;
pub(crate) type FxIndexMap<K, V> = IndexMap<K, V, FxBuild>;
pub(crate) type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
pub(crate) type FxHashSet<K> = std::collections::HashSet<K, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn equal_keys_hash_equal_and_different_keys_spread() {
        let h = |s: &str| FxBuild::default().hash_one(s);
        assert_eq!(
            h("public/default/0x00000000_0x40000000"),
            h("public/default/0x00000000_0x40000000")
        );
        assert_ne!(
            h("public/default/0x00000000_0x40000000"),
            h("public/default/0x40000000_0x80000000")
        );
        let mut m: FxIndexMap<String, u32> = FxIndexMap::default();
        m.insert("a".into(), 1);
        assert_eq!(m.get("a"), Some(&1));
    }
}
