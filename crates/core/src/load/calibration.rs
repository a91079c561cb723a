//! Per-broker CPU cost factors fitted from a recorded series (`lbplan history --calibrate`), read
//! back by `lbplan plan --calibration FILE`.
//!
//! The one load model estimates a bundle's CPU from its owner's report and carries it, in cores,
//! to wherever it moves: right when brokers run the same hardware, wrong by the ratio of their
//! speeds when they do not. A series shows each broker's CPU at many throughputs; a least-squares
//! line per broker, CPU = idle + β × (bytes in + out), gives its cost per byte β (Cruise Control
//! trains the same kind of linear model of CPU from bytes in and out, per broker, in its
//! `LinearRegressionModelParameters`). A broker's factor is its β over the median β: 2.0 is a
//! broker that needs twice the cores for the same traffic. A broker whose throughput never
//! changed, or whose line does not rise, gets no factor (1).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::model::Snapshot;
use crate::typed_json;

use super::work::LoadModel;

/// The calibration file's `format_version`.
pub const CALIBRATION_FORMAT_VERSION: u32 = 1;

/// At least this many snapshots of a broker before its line is fitted.
pub const MIN_SAMPLES: usize = 3;

/// One broker's fitted line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokerFit {
    pub broker: String,
    pub samples: usize,
    /// Cores per MB/s of throughput (in + out).
    pub cores_per_mb_per_sec: f64,
    /// Cores at no traffic (the line's intercept).
    pub idle_cores: f64,
    /// Share of the CPU's variance the line explains (1 = exactly on it).
    pub r_squared: f64,
}

/// What `lbplan history --calibrate` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    pub format_version: u32,
    /// brokerId → the cores one unit of work needs there relative to the median broker.
    pub cpu_cost_factors: IndexMap<String, f64>,
    pub fits: Vec<BrokerFit>,
    /// Brokers left at 1, with why.
    #[serde(default)]
    pub not_fitted: IndexMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CalibrationError {
    #[error("{0}")]
    Read(String),
    #[error(
        "$.format_version: {found} (this build reads calibration format {CALIBRATION_FORMAT_VERSION})"
    )]
    Version { found: u32 },
    #[error("$.cpu_cost_factors[\"{broker}\"]: {value} is not a positive finite factor")]
    Factor { broker: String, value: f64 },
}

impl Calibration {
    /// Reads a calibration file's text; errors name the JSON path.
    pub fn from_json_text(text: &str) -> Result<Self, CalibrationError> {
        let read = typed_json::from_str::<Calibration>(text)
            .map_err(|e| CalibrationError::Read(e.to_string()))?;
        let c = read.value;
        if c.format_version != CALIBRATION_FORMAT_VERSION {
            return Err(CalibrationError::Version {
                found: c.format_version,
            });
        }
        if let Some((broker, value)) = c
            .cpu_cost_factors
            .iter()
            .find(|(_, v)| !(v.is_finite() && **v > 0.0))
        {
            return Err(CalibrationError::Factor {
                broker: broker.clone(),
                value: *value,
            });
        }
        Ok(c)
    }

    /// What the calibration changes on `snapshot`, in a line an operator reads before trusting it:
    /// how many of its brokers run faster or slower than the median and by how much, and the
    /// brokers it names that the snapshot does not have (a calibration of another cluster, or of
    /// brokers since replaced: their factors are unused).
    pub fn describe_for(&self, snapshot: &Snapshot) -> String {
        let mut shown: Vec<(&String, f64)> = self
            .cpu_cost_factors
            .iter()
            .filter(|(b, f)| snapshot.brokers.contains_key(*b) && (**f - 1.0).abs() >= 0.005)
            .map(|(b, f)| (b, *f))
            .collect();
        shown.sort_by(|a, b| (b.1 - 1.0).abs().total_cmp(&(a.1 - 1.0).abs()));
        let known = self
            .cpu_cost_factors
            .keys()
            .filter(|b| snapshot.brokers.contains_key(*b))
            .count();
        let unknown = self.cpu_cost_factors.len() - known;
        let mut text = format!(
            "CPU cost factors for {known} of the snapshot's {} brokers",
            snapshot.brokers.len()
        );
        if shown.is_empty() {
            text.push_str("; all at 1 (same speed)");
        } else {
            let listed: Vec<String> = shown
                .iter()
                .take(5)
                .map(|(b, f)| format!("{b} ×{f:.2}"))
                .collect();
            text.push_str(&format!("; not at 1: {}", listed.join(", ")));
            if shown.len() > 5 {
                text.push_str(&format!(" and {} more", shown.len() - 5));
            }
        }
        if unknown > 0 {
            text.push_str(&format!(
                "; {unknown} broker(s) of the calibration are not in this snapshot (unused)"
            ));
        }
        text
    }

    /// The load model with these factors (the default idle fraction).
    pub fn model(&self) -> LoadModel {
        LoadModel {
            cpu_factors: self.cpu_cost_factors.clone(),
            ..LoadModel::default()
        }
    }
}

/// Fits every broker's line over `snapshots` and the factors relative to the median broker.
pub fn fit<'a>(snapshots: impl IntoIterator<Item = &'a Snapshot>) -> Calibration {
    let mut f = Fitter::default();
    for s in snapshots {
        f.push(s);
    }
    f.finish()
}

/// [`fit`] one snapshot at a time (a stored series is read as a stream): each broker's
/// (throughput, CPU) points.
#[derive(Clone, Debug, Default)]
pub struct Fitter {
    samples: IndexMap<String, Vec<(f64, f64)>>,
}

impl Fitter {
    pub fn push(&mut self, s: &Snapshot) {
        for (id, b) in &s.brokers {
            let l = &b.local_broker_data;
            let x = (l.msg_throughput_in + l.msg_throughput_out) / 1e6;
            let y = l.cpu.usage / 100.0;
            if x.is_finite() && y.is_finite() {
                self.samples.entry(id.clone()).or_default().push((x, y));
            }
        }
    }

    pub fn finish(self) -> Calibration {
        let mut fits = Vec::new();
        let mut not_fitted = IndexMap::new();
        for (broker, pts) in self.samples {
            match line(&pts) {
                Ok((slope, intercept, r2)) => fits.push(BrokerFit {
                    broker,
                    samples: pts.len(),
                    cores_per_mb_per_sec: slope,
                    idle_cores: intercept,
                    r_squared: r2,
                }),
                Err(why) => {
                    not_fitted.insert(broker, why.to_string());
                }
            }
        }
        let mut slopes: Vec<f64> = fits.iter().map(|f| f.cores_per_mb_per_sec).collect();
        slopes.sort_by(f64::total_cmp);
        let at = |i: usize| slopes.get(i).copied().unwrap_or(0.0);
        let median = match slopes.len() {
            0 => 0.0,
            n if n % 2 == 1 => at(n / 2),
            n => (at(n / 2 - 1) + at(n / 2)) / 2.0,
        };
        let cpu_cost_factors = if median > 0.0 {
            fits.iter()
                .map(|f| (f.broker.clone(), f.cores_per_mb_per_sec / median))
                .collect()
        } else {
            IndexMap::new()
        };
        Calibration {
            format_version: CALIBRATION_FORMAT_VERSION,
            cpu_cost_factors,
            fits,
            not_fitted,
        }
    }
}

/// Least squares `y = a + b x`: (b, a, r²).
fn line(pts: &[(f64, f64)]) -> Result<(f64, f64, f64), &'static str> {
    if pts.len() < MIN_SAMPLES {
        return Err("fewer than 3 snapshots report it");
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my) * (p.1 - my)).sum();
    if sxx <= 1e-12 * mx.abs().max(1.0) {
        return Err("its throughput never changed");
    }
    let b = sxy / sxx;
    if !(b.is_finite() && b > 0.0) {
        return Err("its CPU does not rise with its throughput");
    }
    let r2 = if syy > 0.0 {
        (sxy * sxy) / (sxx * syy)
    } else {
        1.0
    };
    Ok((b, my - b * mx, r2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_round_trips_and_bad_factors_are_refused() {
        let c = Calibration {
            format_version: 1,
            cpu_cost_factors: [("b1:8080".to_string(), 2.0)].into_iter().collect(),
            fits: Vec::new(),
            not_fitted: IndexMap::new(),
        };
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(Calibration::from_json_text(&text).unwrap(), c);
        assert_eq!(c.model().cpu_factor("b1:8080"), 2.0);
        let bad = text.replace("2.0", "-1.0");
        assert!(matches!(
            Calibration::from_json_text(&bad),
            Err(CalibrationError::Factor { .. })
        ));
        let v2 = text.replace("\"format_version\":1", "\"format_version\":2");
        assert!(matches!(
            Calibration::from_json_text(&v2),
            Err(CalibrationError::Version { found: 2 })
        ));
        let unknown = text.replace("\"fits\"", "\"fitz\"");
        assert!(
            Calibration::from_json_text(&unknown)
                .unwrap_err()
                .to_string()
                .contains("fitz")
        );
    }

    #[test]
    fn the_description_names_what_differs_and_what_is_unused() {
        let demo = crate::synthetic::demo().unwrap();
        let mut ids = demo.brokers.keys();
        let (a, b) = (ids.next().unwrap().clone(), ids.next().unwrap().clone());
        let c = Calibration {
            format_version: 1,
            cpu_cost_factors: [
                (a.clone(), 2.0),
                (b.clone(), 1.0),
                ("gone-broker:8080".to_string(), 0.5),
            ]
            .into_iter()
            .collect(),
            fits: Vec::new(),
            not_fitted: IndexMap::new(),
        };
        let text = c.describe_for(&demo);
        assert!(text.starts_with(&format!(
            "CPU cost factors for 2 of the snapshot's {} brokers",
            demo.brokers.len()
        )));
        assert!(text.contains(&format!("not at 1: {a} ×2.00")), "{text}");
        assert!(!text.contains(&format!("{b} ×")), "{text}");
        assert!(text.contains("1 broker(s) of the calibration are not in this snapshot"));
    }

    #[test]
    fn a_line_needs_varying_throughput() {
        assert!(line(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]).is_err());
        let (b, a, r2) = line(&[(1.0, 1.5), (2.0, 2.5), (3.0, 3.5)]).unwrap();
        assert!((b - 1.0).abs() < 1e-12 && (a - 0.5).abs() < 1e-12 && (r2 - 1.0).abs() < 1e-12);
    }
}
