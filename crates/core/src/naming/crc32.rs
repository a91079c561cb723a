//! CRC-32 (IEEE 802.3: reflected polynomial `0xEDB88320`, init and final XOR `0xFFFFFFFF`), the hash
//! Pulsar's `ConsistentHashingTopicBundleAssigner` applies to topic names (Guava `Hashing.crc32()`,
//! identical to `java.util.zip.CRC32` and `zlib.crc32`). Table-driven, no dependency.

/// Reflected CRC-32 polynomial.
const POLY: u32 = 0xEDB8_8320;

/// One entry per byte value, computed at compile time.
const TABLE: [u32; 256] = build_table();

// `i < 256` indexes the 256-entry table; a const fn cannot use `get_mut`.
#[expect(
    clippy::indexing_slicing,
    reason = "the loop bound is the table's length"
)]
const fn build_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        // `i < 256` so the cast is exact.
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

/// CRC-32 of `bytes`, as the unsigned value Pulsar uses (`padToLong()`).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        // The low byte of the running CRC, deliberately truncated; a `u8` always indexes the
        // 256-entry table in range.
        let idx = usize::from((crc as u8) ^ b);
        #[expect(
            clippy::indexing_slicing,
            reason = "a u8 always indexes the 256-entry table"
        )]
        let entry = TABLE[idx];
        crc = entry ^ (crc >> 8);
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        // Reference §4.4.
        assert_eq!(crc32(b"persistent://public/default/my-topic"), 0x2bad_45f7);
        // `split/topic_count_equally_divide` hashes the raw strings "a", "b", "c".
        assert_eq!(crc32(b"a"), 3_904_355_907);
        assert_eq!(crc32(b"b"), 1_908_338_681);
        assert_eq!(crc32(b"c"), 112_844_655);
    }
}
