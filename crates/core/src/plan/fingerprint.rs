//! A stable fingerprint of a snapshot (FNV-1a 64 over its canonical JSON), so a plan names the exact
//! input it was computed from.

use crate::model::Snapshot;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(FNV_PRIME)
    })
}

/// `fnv1a64:<16 hex digits>` of the snapshot serialized as JSON (field order is fixed by the model).
pub fn snapshot_fingerprint(snapshot: &Snapshot) -> String {
    let bytes = serde_json::to_vec(snapshot).unwrap_or_default();
    format!("fnv1a64:{:016x}", fnv1a64(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_known_values() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
