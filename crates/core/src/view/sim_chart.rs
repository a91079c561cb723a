//! The simulation charts as data: for a comparison, the spread of the brokers' weighted max usage
//! (std, max/mean) and the unloads of every cycle, one series per configuration; for one run, every
//! broker's usage line. Each chart carries its axis range and tick values and maps values to pixels,
//! so the web crate only strokes what it is given.

use crate::simulate::{Comparison, SimulationRun};

use super::palette::broker_colour;
use crate::naming::BrokerNames;

/// Colours of the compared configurations, in order (then repeated).
pub const RUN_COLOURS: [[u8; 3]; 4] = [[37, 99, 235], [220, 38, 38], [22, 163, 74], [147, 51, 234]];

/// How many brokers the per-broker chart names in its legend (the highest peaks).
pub const LEGEND_BROKERS: usize = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartKind {
    /// Population standard deviation of the brokers' weighted max usage (a fraction).
    StdUsage,
    /// Highest weighted max usage over the mean.
    MaxOverMean,
    /// Bundles unloaded per cycle (bars).
    Unloads,
    /// Every broker's weighted max usage in one run (a fraction).
    BrokerUsage,
}

impl ChartKind {
    /// Stable name for `data-chart` attributes and file names.
    pub fn id(self) -> &'static str {
        match self {
            ChartKind::StdUsage => "std",
            ChartKind::MaxOverMean => "max-over-mean",
            ChartKind::Unloads => "unloads",
            ChartKind::BrokerUsage => "broker-usage",
        }
    }

    /// Values are fractions shown as percentages.
    pub fn is_fraction(self) -> bool {
        matches!(self, ChartKind::StdUsage | ChartKind::BrokerUsage)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    pub rgb: [u8; 3],
    /// One value per cycle (`values[k]` is cycle k); `NaN` where the series has no value (a broker
    /// that was down).
    pub values: Vec<f64>,
    /// Named in the legend.
    pub in_legend: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub kind: ChartKind,
    pub title: String,
    /// Cycles on the x axis (`0..cycles`).
    pub cycles: u32,
    /// Top of the y axis (the bottom is 0).
    pub y_max: f64,
    pub y_ticks: Vec<f64>,
    pub x_ticks: Vec<u32>,
    pub series: Vec<Series>,
    /// A horizontal line with its label (the "balanced" target of the std chart).
    pub reference: Option<(f64, String)>,
}

/// The plotting area inside a canvas, in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlotArea {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

impl PlotArea {
    /// The area left after the margins for tick labels.
    pub fn inside(width_px: f64, height_px: f64) -> Self {
        let (left, right, top, bottom) = (48.0, 12.0, 10.0, 22.0);
        Self {
            left,
            top,
            width: (width_px - left - right).max(1.0),
            height: (height_px - top - bottom).max(1.0),
        }
    }
}

impl Chart {
    /// Centre of cycle `k` on the x axis.
    pub fn x_px(&self, area: &PlotArea, cycle: f64) -> f64 {
        let n = f64::from(self.cycles.max(1));
        area.left + (cycle + 0.5) / n * area.width
    }

    pub fn y_px(&self, area: &PlotArea, value: f64) -> f64 {
        let v = if self.y_max > 0.0 {
            (value / self.y_max).clamp(0.0, 1.0)
        } else {
            0.0
        };
        area.top + (1.0 - v) * area.height
    }

    /// Width of one cycle's slot on the x axis.
    pub fn slot_px(&self, area: &PlotArea) -> f64 {
        area.width / f64::from(self.cycles.max(1))
    }

    /// The cycle under an x position, if inside the plot.
    pub fn cycle_at(&self, area: &PlotArea, x_px: f64) -> Option<u32> {
        if x_px < area.left || x_px > area.left + area.width || self.cycles == 0 {
            return None;
        }
        let k = ((x_px - area.left) / self.slot_px(area)).floor();
        Some((k as u32).min(self.cycles - 1))
    }

    /// A tick value as the axis shows it.
    pub fn tick_label(&self, v: f64) -> String {
        if self.kind.is_fraction() {
            format!("{:.0}%", v * 100.0)
        } else if self.y_max <= 5.0 && v.fract() != 0.0 {
            format!("{v:.2}")
        } else {
            format!("{v:.0}")
        }
    }
}

/// Round axis values: the top (at least `max`) and the ticks from 0 to it, about `target` of them,
/// with steps of 1, 2 or 5 times a power of ten.
pub fn nice_ticks(max: f64, target: usize) -> (f64, Vec<f64>) {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let rough = max / target.max(1) as f64;
    let exponent = libm::floor(libm::log10(rough)) as i32;
    let magnitude = libm::pow(10.0, f64::from(exponent));
    let mantissa = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .find(|m| m * magnitude >= rough)
        .unwrap_or(10.0);
    // i × mantissa × 10^exponent, dividing for negative exponents so 3 × 0.1 prints as 0.3.
    let value = |i: usize| {
        let units = i as f64 * mantissa;
        if exponent < 0 {
            units / libm::pow(10.0, f64::from(-exponent))
        } else {
            units * magnitude
        }
    };
    let n = (max / (mantissa * magnitude) - 1e-9).ceil().max(1.0) as usize;
    let ticks: Vec<f64> = (0..=n).map(value).collect();
    (value(n), ticks)
}

fn x_ticks(cycles: u32) -> Vec<u32> {
    if cycles == 0 {
        return Vec::new();
    }
    let (_, ticks) = nice_ticks(f64::from(cycles.saturating_sub(1).max(1)), 6);
    ticks
        .into_iter()
        .map(|t| t as u32)
        .filter(|t| *t < cycles)
        .collect()
}

fn chart(
    kind: ChartKind,
    title: &str,
    cycles: u32,
    series: Vec<Series>,
    floor: f64,
    reference: Option<(f64, String)>,
) -> Chart {
    let highest = series
        .iter()
        .flat_map(|s| s.values.iter().copied())
        .chain(reference.iter().map(|r| r.0))
        .filter(|v| v.is_finite())
        .fold(floor, f64::max);
    let (y_max, y_ticks) = nice_ticks(highest, 5);
    Chart {
        kind,
        title: title.to_string(),
        cycles,
        y_max,
        y_ticks,
        x_ticks: x_ticks(cycles),
        series,
        reference,
    }
}

/// The colour of the `k`-th run of a comparison (charts, legends and tables agree).
pub fn run_colour(k: usize) -> [u8; 3] {
    RUN_COLOURS
        .get(k % RUN_COLOURS.len())
        .copied()
        .unwrap_or([0, 0, 0])
}

/// The three comparison charts: std, max/mean and unloads per cycle, one series per configuration.
pub fn comparison_charts(c: &Comparison) -> Vec<Chart> {
    let cycles = c
        .runs
        .iter()
        .map(|r| u32::try_from(r.cycles.len()).unwrap_or(u32::MAX))
        .max()
        .unwrap_or(0);
    let series_of = |value: &dyn Fn(&crate::simulate::CycleMetrics) -> f64| -> Vec<Series> {
        c.runs
            .iter()
            .enumerate()
            .map(|(k, r)| Series {
                label: r.config.name.clone(),
                rgb: run_colour(k),
                values: r.cycles.iter().map(value).collect(),
                in_legend: true,
            })
            .collect()
    };
    let target = c.runs.first().map(|r| r.summary.balanced_std_fraction);
    vec![
        chart(
            ChartKind::StdUsage,
            "Spread: std of the brokers' weighted max usage",
            cycles,
            series_of(&|m| m.std_usage_fraction),
            0.01,
            target.map(|t| (t, format!("balanced below {:.0}%", t * 100.0))),
        ),
        chart(
            ChartKind::MaxOverMean,
            "Hottest broker: max / mean usage",
            cycles,
            series_of(&|m| m.max_over_mean),
            1.0,
            Some((1.0, "even".to_string())),
        ),
        chart(
            ChartKind::Unloads,
            "Bundles unloaded per cycle",
            cycles,
            series_of(&|m| m.bundles_unloaded as f64),
            1.0,
            None,
        ),
    ]
}

/// Every broker's usage over one run (`None` when the run kept no broker usage). Brokers are
/// coloured as in the bundle map; the legend names the highest peaks.
pub fn broker_usage_chart(run: &SimulationRun) -> Option<Chart> {
    if run
        .cycles
        .iter()
        .all(|m| m.broker_usage_fraction.is_empty())
    {
        return None;
    }
    let mut names: Vec<&str> = Vec::new();
    for m in &run.cycles {
        for b in m.broker_usage_fraction.keys() {
            if !names.contains(&b.as_str()) {
                names.push(b);
            }
        }
    }
    names.sort_unstable();
    let lines = names
        .iter()
        .map(|b| {
            let values = run
                .cycles
                .iter()
                .map(|m| m.broker_usage_fraction.get(*b).copied().unwrap_or(f64::NAN))
                .collect();
            ((*b).to_string(), values)
        })
        .collect();
    Some(usage_lines_chart(
        &format!("Weighted max usage per broker — {}", run.config.name),
        lines,
    ))
}

/// A [`ChartKind::BrokerUsage`] chart of `(broker, usage per step)` lines (`NaN` where a broker
/// was not live): brokers coloured as in the bundle map, the legend naming the highest peaks. The
/// simulation's per-broker chart and the History view's load lines.
pub fn usage_lines_chart(title: &str, lines: Vec<(String, Vec<f64>)>) -> Chart {
    let steps = lines.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
    // The legend names brokers by the one display rule (colours stay keyed by the full id).
    let labels: Vec<String> = {
        let names = BrokerNames::new(lines.iter().map(|(b, _)| b.as_str()));
        lines
            .iter()
            .map(|(b, _)| names.short(b).to_string())
            .collect()
    };
    let mut series: Vec<Series> = lines
        .into_iter()
        .zip(labels)
        .map(|((b, values), label)| Series {
            rgb: broker_colour(&b),
            label,
            values,
            in_legend: false,
        })
        .collect();
    let peak = |s: &Series| {
        s.values
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max)
    };
    let mut order: Vec<(f64, usize)> = series.iter().map(peak).zip(0..).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in order.iter().take(LEGEND_BROKERS) {
        if let Some(s) = series.get_mut(i) {
            s.in_legend = true;
        }
    }
    let cycles = u32::try_from(steps).unwrap_or(u32::MAX);
    chart(ChartKind::BrokerUsage, title, cycles, series, 0.01, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::{CycleMetrics, RunSummary};

    #[test]
    fn ticks_are_round() {
        assert_eq!(nice_ticks(0.37, 5), (0.4, vec![0.0, 0.1, 0.2, 0.3, 0.4]));
        assert_eq!(nice_ticks(7.0, 5), (8.0, vec![0.0, 2.0, 4.0, 6.0, 8.0]));
        assert_eq!(
            nice_ticks(10.0, 5),
            (10.0, vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0])
        );
        assert_eq!(nice_ticks(0.0, 5).0, 1.0);
        assert_eq!(x_ticks(150), vec![0, 50, 100]);
        assert_eq!(x_ticks(40), vec![0, 10, 20, 30]);
    }

    fn run(name: &str, stds: &[f64], unloads: &[usize]) -> SimulationRun {
        SimulationRun {
            config: crate::simulate::RunConfig {
                name: name.into(),
                ..Default::default()
            },
            summary: RunSummary {
                balanced_std_fraction: 0.1,
                ..RunSummary::default()
            },
            cycles: stds
                .iter()
                .zip(unloads)
                .enumerate()
                .map(|(k, (s, u))| CycleMetrics {
                    cycle: k as u32,
                    std_usage_fraction: *s,
                    max_over_mean: 1.0 + s,
                    bundles_unloaded: *u,
                    ..CycleMetrics::default()
                })
                .collect(),
            ..SimulationRun::default()
        }
    }

    #[test]
    fn comparison_has_one_series_per_run_and_the_balance_target() {
        let c = Comparison {
            runs: vec![
                run("a", &[0.3, 0.2, 0.05], &[4, 1, 0]),
                run("b", &[0.3, 0.25], &[2, 0]),
            ],
            ..Comparison::default()
        };
        let charts = comparison_charts(&c);
        let ids: Vec<&str> = charts.iter().map(|c| c.kind.id()).collect();
        assert_eq!(ids, ["std", "max-over-mean", "unloads"]);
        let std = &charts[0];
        assert_eq!(std.cycles, 3);
        assert_eq!(std.series[1].values, vec![0.3, 0.25]);
        assert_eq!(std.series[1].rgb, RUN_COLOURS[1]);
        assert_eq!(std.reference.as_ref().unwrap().0, 0.1);
        assert_eq!(std.y_max, 0.3);
        assert_eq!(charts[2].y_max, 4.0);
        let area = PlotArea::inside(348.0, 132.0);
        assert_eq!(area.width, 288.0);
        // 3 slots of 96 px: cycle 1 is centred at 48 + 144.
        assert_eq!(std.x_px(&area, 1.0), 192.0);
        assert_eq!(std.cycle_at(&area, 200.0), Some(1));
        assert_eq!(std.cycle_at(&area, 10.0), None);
        assert_eq!(std.y_px(&area, 0.3), area.top);
        assert_eq!(std.tick_label(0.2), "20%");
    }

    #[test]
    fn broker_chart_names_the_highest_peaks() {
        let mut r = run("x", &[0.0, 0.0], &[0, 0]);
        for (k, m) in r.cycles.iter_mut().enumerate() {
            for b in 0..7 {
                m.broker_usage_fraction
                    .insert(format!("b{b}:8080"), 0.1 * b as f64 + 0.01 * k as f64);
            }
        }
        r.cycles[1].broker_usage_fraction.shift_remove("b0:8080");
        let c = broker_usage_chart(&r).unwrap();
        assert_eq!(c.series.len(), 7);
        let named: Vec<&str> = c
            .series
            .iter()
            .filter(|s| s.in_legend)
            .map(|s| s.label.as_str())
            .collect();
        // The legend names them by the display rule (the shared port dropped), colours by id.
        assert_eq!(named, ["b2", "b3", "b4", "b5", "b6"]);
        assert_eq!(c.series[6].rgb, broker_colour("b6:8080"));
        assert!(c.series[0].values[1].is_nan());
        // Highest value 0.61 (b6 at cycle 1): steps of 0.2 up to 0.8.
        assert_eq!(c.y_max, 0.8);
        assert!(broker_usage_chart(&run("y", &[0.1], &[0])).is_none());
    }
}
