//! `TimeAverageMessageData` and `BundleData`: the leader's short- and long-term view of a bundle (§2.4–2.5).

use serde::{Deserialize, Serialize};

use super::NamespaceBundleStats;

/// `NUM_SHORT_SAMPLES`: window of the short-term average.
pub const NUM_SHORT_SAMPLES: i32 = 10;
/// `NUM_LONG_SAMPLES`: window of the long-term average.
pub const NUM_LONG_SAMPLES: i32 = 1000;

/// Default rates Pulsar gives a bundle it has never seen (`LoadManagerShared` defaults, §2.5).
pub const DEFAULT_MSG_RATE: f64 = 50.0;
pub const DEFAULT_MSG_THROUGHPUT: f64 = 50_000.0;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TimeAverageMessageData {
    pub max_samples: i32,
    pub num_samples: i32,
    pub msg_throughput_in: f64,
    pub msg_throughput_out: f64,
    pub msg_rate_in: f64,
    pub msg_rate_out: f64,
}

impl Default for TimeAverageMessageData {
    fn default() -> Self {
        Self::with_defaults(NUM_SHORT_SAMPLES)
    }
}

impl TimeAverageMessageData {
    /// A window holding Pulsar's default estimate (50 msg/s, 50000 B/s each way) and no samples.
    pub fn with_defaults(max_samples: i32) -> Self {
        Self {
            max_samples,
            num_samples: 0,
            msg_throughput_in: DEFAULT_MSG_THROUGHPUT,
            msg_throughput_out: DEFAULT_MSG_THROUGHPUT,
            msg_rate_in: DEFAULT_MSG_RATE,
            msg_rate_out: DEFAULT_MSG_RATE,
        }
    }

    pub fn total_msg_rate(&self) -> f64 {
        self.msg_rate_in + self.msg_rate_out
    }

    pub fn total_msg_throughput(&self) -> f64 {
        self.msg_throughput_in + self.msg_throughput_out
    }

    /// Folds one sample in: a running mean until `max_samples`, then an EMA with weight `1/max_samples`.
    /// A `max_samples` of 0 (only in hand-made JSON) would divide by zero in Java; here the sample
    /// simply replaces the value.
    pub fn update(&mut self, stats: &NamespaceBundleStats) {
        self.num_samples = (self.num_samples + 1).min(self.max_samples);
        let n = f64::from(self.num_samples);
        let blend = |old: f64, x: f64| {
            if n > 0.0 {
                ((n - 1.0) * old + x) / n
            } else {
                x
            }
        };
        self.msg_throughput_in = blend(self.msg_throughput_in, stats.msg_throughput_in);
        self.msg_throughput_out = blend(self.msg_throughput_out, stats.msg_throughput_out);
        self.msg_rate_in = blend(self.msg_rate_in, stats.msg_rate_in);
        self.msg_rate_out = blend(self.msg_rate_out, stats.msg_rate_out);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BundleData {
    pub short_term_data: TimeAverageMessageData,
    pub long_term_data: TimeAverageMessageData,
    pub topics: i32,
}

impl Default for BundleData {
    fn default() -> Self {
        Self::pulsar_default()
    }
}

impl BundleData {
    /// What the leader assumes for a bundle with no stored data: 50 msg/s and 50000 B/s each way.
    pub fn pulsar_default() -> Self {
        Self {
            short_term_data: TimeAverageMessageData::with_defaults(NUM_SHORT_SAMPLES),
            long_term_data: TimeAverageMessageData::with_defaults(NUM_LONG_SAMPLES),
            topics: 0,
        }
    }

    /// `BundleData.update(stats)`: the same sample into both windows, and the topic count.
    pub fn update(&mut self, stats: &NamespaceBundleStats) {
        self.short_term_data.update(stats);
        self.long_term_data.update(stats);
        self.topics = stats.topics as i32;
    }
}
