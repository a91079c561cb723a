//! The operator's balance goal (`--goal`): `max/mean<=1.15`, `std<=5%` or `max<=80%`, measured on
//! the brokers' weighted max usage exactly as a plan's `balance_after` measures it.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::plan::BalanceSummary;

/// One bound on the cluster balance.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "metric", content = "limit", rename_all = "kebab-case")]
pub enum Goal {
    /// `max/mean<=X`: the busiest broker's usage over the mean usage.
    MaxOverMean(f64),
    /// `std<=X%`: population standard deviation of the usage, in percentage points.
    StdPercent(f64),
    /// `max<=X%`: the busiest broker's usage.
    MaxPercent(f64),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("goal `{text}`: {why}")]
pub struct GoalError {
    pub text: String,
    pub why: String,
}

impl Goal {
    pub fn parse(text: &str) -> Result<Goal, GoalError> {
        let err = |why: &str| GoalError {
            text: text.to_string(),
            why: why.to_string(),
        };
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let (metric, value) = compact.split_once("<=").ok_or_else(|| {
            err("expected METRIC<=VALUE, e.g. max/mean<=1.15, std<=5% or max<=80%")
        })?;
        let (number, percent) = match value.strip_suffix('%') {
            Some(n) => (n, true),
            None => (value, false),
        };
        let limit: f64 = number
            .parse()
            .map_err(|_| err("the limit is not a number"))?;
        if !limit.is_finite() || limit <= 0.0 {
            return Err(err("the limit must be a positive number"));
        }
        match metric.to_ascii_lowercase().as_str() {
            "max/mean" => {
                if percent {
                    return Err(err("max/mean is a ratio, e.g. max/mean<=1.15 (no %)"));
                }
                if limit < 1.0 {
                    return Err(err("max/mean is never below 1"));
                }
                Ok(Goal::MaxOverMean(limit))
            }
            "std" => Ok(Goal::StdPercent(limit)),
            "max" => Ok(Goal::MaxPercent(limit)),
            _ => Err(err("unknown metric (expected max/mean, std or max)")),
        }
    }

    /// The measured value, in the goal's unit (ratio or percent).
    pub fn measure(&self, b: &BalanceSummary) -> f64 {
        match self {
            Goal::MaxOverMean(_) => b.max_over_mean,
            Goal::StdPercent(_) => b.std_usage_fraction * 100.0,
            Goal::MaxPercent(_) => b.max_usage_fraction * 100.0,
        }
    }

    pub fn limit(&self) -> f64 {
        match *self {
            Goal::MaxOverMean(l) | Goal::StdPercent(l) | Goal::MaxPercent(l) => l,
        }
    }

    /// Whether the balance meets the goal (a tiny tolerance absorbs float noise).
    pub fn is_met(&self, b: &BalanceSummary) -> bool {
        self.measure(b) <= self.limit() + 1e-9
    }

    /// How far above the goal the balance is (0 when met), in the goal's unit.
    pub fn excess(&self, b: &BalanceSummary) -> f64 {
        (self.measure(b) - self.limit()).max(0.0)
    }
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Goal::MaxOverMean(l) => write!(f, "max/mean<={l}"),
            Goal::StdPercent(l) => write!(f, "std<={l}%"),
            Goal::MaxPercent(l) => write!(f, "max<={l}%"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_forms() {
        assert_eq!(
            Goal::parse("max/mean<=1.15").unwrap(),
            Goal::MaxOverMean(1.15)
        );
        assert_eq!(Goal::parse(" std <= 5% ").unwrap(), Goal::StdPercent(5.0));
        assert_eq!(Goal::parse("max<=80%").unwrap(), Goal::MaxPercent(80.0));
        assert!(Goal::parse("max/mean<=0.9").is_err());
        assert!(Goal::parse("max/mean<=1.1%").is_err());
        assert!(Goal::parse("p99<=3").is_err());
        assert!(Goal::parse("max/mean=1.1").is_err());
        assert_eq!(Goal::MaxOverMean(1.15).to_string(), "max/mean<=1.15");
    }

    #[test]
    fn measures_like_the_plan_summary() {
        // Two brokers at 90 % and 10 %: mean 0.5, max/mean 1.8, std 0.4 (40 points).
        let b = BalanceSummary {
            broker_count: 2,
            max_usage_fraction: 0.9,
            mean_usage_fraction: 0.5,
            max_over_mean: 1.8,
            std_usage_fraction: 0.4,
            min_bundle_count: 1,
            max_bundle_count: 1,
        };
        assert!(!Goal::MaxOverMean(1.15).is_met(&b));
        assert!(Goal::MaxOverMean(1.8).is_met(&b));
        assert!((Goal::StdPercent(5.0).excess(&b) - 35.0).abs() < 1e-9);
        assert!(Goal::MaxPercent(90.0).is_met(&b));
    }
}
