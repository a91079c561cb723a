//! TransferShedder's `LoadStats`: mean and population standard deviation of the brokers'
//! `weightedMaxEMA`, the brokers sorted by load, the min/max cursors, and the simulated effect of each
//! planned offload on the deviation (§9.3, steps A and C.6).

use std::cmp::Ordering;

use indexmap::IndexMap;
use serde::Serialize;

use super::decision::SkipReason;
use crate::config::LoadBalancerConfig;
use crate::model::BrokerLoadData;

/// `TransferShedder.LoadStats`, kept field for field (Pulsar reports `avg`/`std` as `loadAvg`/`loadStd`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadStats {
    pub sum: f64,
    pub sq_sum: f64,
    pub total_brokers: i32,
    pub avg: f64,
    pub std: f64,
    /// Every load-store entry (outdated ones included), stably sorted ascending by `weightedMaxEMA`.
    pub brokers_sorted_by_load: Vec<String>,
    pub max_broker_index: i64,
    pub min_broker_index: i64,
    pub number_of_broker_shedding_per_cycle: i64,
    pub max_number_of_broker_shedding_per_cycle: i64,
}

/// Java's `Double.compare`: numeric order, `-0.0 < 0.0`, every NaN equal to every NaN and above +∞.
pub fn java_double_compare(a: f64, b: f64) -> Ordering {
    if a < b {
        return Ordering::Less;
    }
    if a > b {
        return Ordering::Greater;
    }
    // `doubleToLongBits` collapses every NaN to one canonical pattern.
    let bits = |x: f64| -> i64 {
        if x.is_nan() {
            0x7ff8_0000_0000_0000
        } else {
            i64::from_ne_bytes(x.to_bits().to_ne_bytes())
        }
    };
    bits(a).cmp(&bits(b))
}

/// `seconds * 1000` for a configured duration, saturating instead of wrapping on absurd values.
pub(crate) fn seconds_to_ms(seconds: i64) -> i64 {
    seconds.saturating_mul(1000)
}

impl LoadStats {
    /// `LoadStats.clear()`.
    pub fn clear(&mut self) {
        *self = LoadStats::default();
    }

    /// `update(sum, sqSum, totalBrokers)`: population mean and std (may be NaN when rounding makes the
    /// variance slightly negative, exactly as in Java).
    fn set_totals(&mut self, sum: f64, sq_sum: f64, total_brokers: i32) {
        self.sum = sum;
        self.sq_sum = sq_sum;
        self.total_brokers = total_brokers;
        if total_brokers == 0 {
            self.avg = 0.0;
            self.std = 0.0;
        } else {
            let n = f64::from(total_brokers);
            self.avg = sum / n;
            self.std = (sq_sum / n - self.avg * self.avg).sqrt();
        }
    }

    /// `setLoadDataStore`: every store entry, in store iteration order, then a stable sort by load.
    pub fn set_load_data_store(&mut self, store: &IndexMap<String, BrokerLoadData>) {
        let mut entries: Vec<(&String, f64)> = store
            .iter()
            .map(|(name, data)| (name, data.weighted_max_ema))
            .collect();
        // `sort_by` is stable, like Java's `List.sort`.
        entries.sort_by(|a, b| java_double_compare(a.1, b.1));
        self.brokers_sorted_by_load = entries.into_iter().map(|(n, _)| n.clone()).collect();
        self.max_broker_index = i64::try_from(self.brokers_sorted_by_load.len())
            .unwrap_or(i64::MAX)
            .saturating_sub(1);
        self.min_broker_index = 0;
    }

    /// `update(loadStore, availableBrokers, recentlyUnloadedBrokers, conf)` (step A): skips outdated
    /// data, stops the cycle on a broker still cooling down, prunes cooled-down brokers from
    /// `recently_unloaded_brokers`, and requires load data from every available broker.
    pub fn update(
        &mut self,
        store: &IndexMap<String, BrokerLoadData>,
        available_brokers: &[String],
        recently_unloaded_brokers: &mut IndexMap<String, i64>,
        conf: &LoadBalancerConfig,
        now_ms: i64,
    ) -> Option<SkipReason> {
        self.max_number_of_broker_shedding_per_cycle =
            conf.load_balancer_max_number_of_broker_shedding_per_cycle;
        let ttl_ms = seconds_to_ms(conf.load_balancer_broker_load_data_ttl_in_seconds);
        let delay_ms = seconds_to_ms(conf.load_balance_shedding_delay_in_seconds);
        let mut reason = None;
        let mut sum = 0.0;
        let mut sq_sum = 0.0;
        let mut total_brokers: i32 = 0;
        for (broker, data) in store {
            // Java long arithmetic wraps; so does ours, rather than panicking.
            if now_ms.wrapping_sub(data.updated_at) > ttl_ms {
                reason = Some(SkipReason::OutDatedData);
                continue;
            }
            if let Some(&unloaded_at) = recently_unloaded_brokers.get(broker) {
                // The broker needs time to report load measured after its last transfer.
                if data.updated_at.wrapping_sub(unloaded_at) < delay_ms {
                    self.set_totals(0.0, 0.0, 0);
                    return Some(SkipReason::CoolDown);
                }
                recently_unloaded_brokers.shift_remove(broker);
            }
            let load = data.weighted_max_ema;
            sum += load;
            sq_sum += load * load;
            total_brokers = total_brokers.saturating_add(1);
        }
        if total_brokers == 0 {
            self.set_totals(0.0, 0.0, 0);
            return Some(reason.unwrap_or(SkipReason::NoBrokers));
        }
        if available_brokers.iter().any(|b| !store.contains_key(b)) {
            self.set_totals(0.0, 0.0, 0);
            return Some(SkipReason::NoLoadData);
        }
        self.set_totals(sum, sq_sum, total_brokers);
        None
    }

    /// `offload(max, min, offload)`: the std after moving `offload` (a load fraction) from the max to
    /// the min broker; the mean is unchanged. `abs()` guards against a slightly negative variance.
    pub fn offload(&mut self, max: f64, min: f64, offload: f64) {
        self.sq_sum -= max * max + min * min;
        let max_after = if max - offload > 0.0 {
            max - offload
        } else {
            // Java's Math.max(0, x): 0 for x <= 0 (and NaN stays NaN).
            java_max_zero(max - offload)
        };
        let min_after = min + offload;
        self.sq_sum += max_after * max_after + min_after * min_after;
        self.std = (self.sq_sum / f64::from(self.total_brokers) - self.avg * self.avg)
            .abs()
            .sqrt();
        self.number_of_broker_shedding_per_cycle =
            self.number_of_broker_shedding_per_cycle.saturating_add(1);
        self.min_broker_index = self.min_broker_index.saturating_add(1);
    }

    /// `hasTransferableBrokers()`.
    pub fn has_transferable_brokers(&self) -> bool {
        self.number_of_broker_shedding_per_cycle < self.max_number_of_broker_shedding_per_cycle
            && self.min_broker_index < self.max_broker_index
    }

    fn broker_at(&self, index: i64) -> Option<&str> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.brokers_sorted_by_load.get(i))
            .map(String::as_str)
    }

    pub fn peek_min_broker(&self) -> Option<&str> {
        self.broker_at(self.min_broker_index)
    }

    pub fn peek_max_broker(&self) -> Option<&str> {
        self.broker_at(self.max_broker_index)
    }

    /// `pollMaxBroker()`: the current max broker; the max cursor moves down.
    pub fn poll_max_broker(&mut self) -> Option<String> {
        let broker = self.peek_max_broker().map(str::to_string);
        self.max_broker_index = self.max_broker_index.saturating_sub(1);
        broker
    }
}

/// `Math.max(0, x)` for `x <= 0` or NaN: NaN propagates, `-0.0` loses to `0`.
fn java_max_zero(x: f64) -> f64 {
    if x.is_nan() { x } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_compare_orders_nan_last_and_negative_zero_first() {
        assert_eq!(java_double_compare(-0.0, 0.0), Ordering::Less);
        assert_eq!(
            java_double_compare(f64::NAN, f64::INFINITY),
            Ordering::Greater
        );
        assert_eq!(java_double_compare(f64::NAN, f64::NAN), Ordering::Equal);
    }
}
