//! The README's apache/pulsar#16059 table is what the simulator computes: the built-in `pr-16059`
//! scenario (600 cycles, seed 0, its own 136-broker cluster, its four configurations) is run and
//! every cell of the table, and the "N of the M unloads" sentence, is compared with the result. A
//! change to the engine that moves these numbers must update the README with it.

use std::path::Path;

use lbplan_core::simulate::{RunOptions, builtin_scenario, builtin_snapshot, compare};

/// The table rows of the README section, as cells (header and separator dropped).
fn readme_rows(readme: &str) -> (Vec<Vec<String>>, String) {
    let section = readme
        .split("### What the simulation shows for apache/pulsar#16059")
        .nth(1)
        .expect("the README has the pr-16059 section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let rows = section
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect();
    (rows, section.to_string())
}

/// A cell as the README writes a count: `5,639` → 5639.
fn count(cell: &str) -> usize {
    cell.replace(',', "")
        .parse()
        .unwrap_or_else(|_| panic!("not a count: {cell:?}"))
}

#[test]
fn the_readme_table_is_what_the_simulator_computes() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .expect("README.md");
    let (rows, section) = readme_rows(&readme);
    let scenario = builtin_scenario("pr-16059")
        .expect("built in")
        .expect("parses");
    let snapshot = builtin_snapshot("pr-16059").expect("built-in cluster");
    assert_eq!(snapshot.brokers.len(), 136, "the README says 136 brokers");
    let opts = RunOptions {
        cycles: 600,
        seed: 0,
        record_broker_usage: false,
        record_ownership: false,
    };
    let result = compare(
        &snapshot,
        &scenario,
        &scenario.compare,
        opts,
        &mut |_, _| true,
    )
    .expect("the scenario runs");
    assert_eq!(
        rows.len(),
        result.runs.len(),
        "one README row per configuration of the scenario"
    );

    for (row, run) in rows.iter().zip(&result.runs) {
        let s = &run.summary;
        let name = &row[0];
        let balanced = s
            .balanced_at_cycle
            .map_or_else(|| "never".to_string(), |c| c.to_string());
        assert_eq!(row[1], balanced, "{name}: balanced at cycle");
        assert_eq!(count(&row[2]), s.total_unloads, "{name}: unloads");
        assert_eq!(
            count(&row[3]),
            s.cycles_with_unloads as usize,
            "{name}: cycles with unloads"
        );
        let last = s
            .last_unload_cycle
            .map_or_else(|| "never".to_string(), |c| c.to_string());
        assert_eq!(row[4], last, "{name}: last unload");
        assert_eq!(
            row[5],
            format!("{:.2}", s.final_max_over_mean),
            "{name}: final max/mean"
        );
        // Percent, as `lbplan plan` and `lbplan simulate` print it.
        assert_eq!(
            row[6],
            format!("{:.1} %", s.final_std_usage_fraction * 100.0),
            "{name}: final std"
        );
    }

    // "(5,348 of the 5,639 unloads came from brokers that had received shed bundles within the hour)"
    let first = &result.runs[0].summary;
    let sentence = format!(
        "{} of the {}",
        thousands(first.total_unloads_from_recent_destinations),
        thousands(first.total_unloads)
    );
    assert!(
        section.replace('\n', " ").contains(&sentence),
        "the README's sentence about unloads from recent destinations should read {sentence:?}"
    );
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
