//! A series: snapshots in time order, each with its capture time (`captured_at_ms`).

use crate::model::Snapshot;

/// Snapshots sorted by capture time (equal times keep their given order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub snapshots: Vec<Snapshot>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeriesError {
    /// A snapshot without `captured_at_ms` cannot be placed in time.
    #[error("{name}: $.captured_at_ms is missing: a series needs each snapshot's capture time")]
    NoTime { name: String },
    #[error("a series needs at least one snapshot")]
    Empty,
    /// A stored series that does not decode.
    #[error("{file}: {why}")]
    Malformed { file: String, why: String },
}

impl SeriesError {
    pub fn malformed(file: impl Into<String>, why: impl Into<String>) -> Self {
        Self::Malformed {
            file: file.into(),
            why: why.into(),
        }
    }
}

/// The latest capture time a series accepts: the end of the year 9999 (ms since the epoch). Any
/// two times of a series then differ by far less than `i64::MAX`, so no duration overflows.
pub const MAX_TIME_MS: i64 = 253_402_300_799_999;

/// Refuses a capture time before the epoch or after [`MAX_TIME_MS`], naming `name`: such a time
/// is a corrupt or hostile snapshot, and would give negative or overflowing durations.
pub fn check_time(name: &str, at_ms: i64) -> Result<(), SeriesError> {
    if (0..=MAX_TIME_MS).contains(&at_ms) {
        return Ok(());
    }
    Err(SeriesError::malformed(
        name,
        format!(
            "$.captured_at_ms {at_ms} is outside 0 to {MAX_TIME_MS} (1970 to the end of the year \
             9999): not a capture time"
        ),
    ))
}

impl Series {
    /// Orders named snapshots by capture time; `name` is how an error names each one.
    pub fn from_named(mut named: Vec<(String, Snapshot)>) -> Result<Self, SeriesError> {
        if named.is_empty() {
            return Err(SeriesError::Empty);
        }
        for (name, s) in &named {
            let at = s
                .captured_at_ms
                .ok_or_else(|| SeriesError::NoTime { name: name.clone() })?;
            check_time(name, at)?;
        }
        named.sort_by_key(|(_, s)| s.captured_at_ms.unwrap_or(i64::MIN));
        Ok(Self {
            snapshots: named.into_iter().map(|(_, s)| s).collect(),
        })
    }

    /// Capture times, in order.
    pub fn times_ms(&self) -> Vec<i64> {
        self.snapshots
            .iter()
            .map(|s| s.captured_at_ms.unwrap_or(0))
            .collect()
    }
}
