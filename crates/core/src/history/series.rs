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

impl Series {
    /// Orders named snapshots by capture time; `name` is how an error names each one.
    pub fn from_named(mut named: Vec<(String, Snapshot)>) -> Result<Self, SeriesError> {
        if named.is_empty() {
            return Err(SeriesError::Empty);
        }
        if let Some((name, _)) = named.iter().find(|(_, s)| s.captured_at_ms.is_none()) {
            return Err(SeriesError::NoTime { name: name.clone() });
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
