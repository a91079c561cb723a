//! A stable fingerprint of a snapshot (FNV-1a 64 over its canonical JSON), so a plan names the exact
//! input it was computed from.
//!
//! The JSON is hashed as `serde_json` writes it, without building the text: on a 200,000-bundle
//! snapshot the text is ~190 MB, and growing that buffer cost as much as the hashing.

use std::io;

use crate::model::Snapshot;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_continue(FNV_OFFSET, bytes)
}

fn fnv1a64_continue(state: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(state, |h, b| (h ^ u64::from(*b)).wrapping_mul(FNV_PRIME))
}

/// An `io::Write` sink that FNV-1a-hashes everything written to it, in order: the hash of the
/// concatenation of the writes, whatever their boundaries.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a64Writer {
    state: u64,
}

impl Default for Fnv1a64Writer {
    fn default() -> Self {
        Self { state: FNV_OFFSET }
    }
}

impl Fnv1a64Writer {
    pub fn finish(&self) -> u64 {
        self.state
    }
}

impl io::Write for Fnv1a64Writer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.state = fnv1a64_continue(self.state, buf);
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.state = fnv1a64_continue(self.state, buf);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `fnv1a64:<16 hex digits>` of the snapshot serialized as JSON (field order is fixed by the model).
///
/// The value is what `serde_json::to_vec` followed by [`fnv1a64`] gives (and that of empty input if
/// serialisation failed, which the model's types cannot make it do). Callers that keep a snapshot
/// loaded can compute this once and pass it to
/// [`make_plan_with_fingerprint`](crate::plan::make_plan_with_fingerprint).
pub fn snapshot_fingerprint(snapshot: &Snapshot) -> String {
    let mut sink = Fnv1a64Writer::default();
    let hash = match serde_json::to_writer(&mut sink, snapshot) {
        Ok(()) => sink.finish(),
        Err(_) => fnv1a64(b""),
    };
    format!("fnv1a64:{hash:016x}")
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn fnv_known_values() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn writer_hashes_the_concatenation() -> io::Result<()> {
        let mut w = Fnv1a64Writer::default();
        w.write_all(b"foo")?;
        w.write_all(b"")?;
        w.write_all(b"bar")?;
        assert_eq!(w.finish(), 0x8594_4171_f739_67e8);
        Ok(())
    }

    #[test]
    fn streamed_fingerprint_equals_hash_of_the_text() {
        let mut snapshot = Snapshot {
            cluster: Some("c1".to_string()),
            ..Snapshot::default()
        };
        snapshot
            .broker_conf
            .insert("loadBalancerEnabled".to_string(), "true".to_string());
        let text = serde_json::to_vec(&snapshot).unwrap_or_default();
        assert_eq!(
            snapshot_fingerprint(&snapshot),
            format!("fnv1a64:{:016x}", fnv1a64(&text))
        );
    }
}
