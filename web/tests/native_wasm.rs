//! Wasm half of the native-vs-wasm check: in headless Chromium the core computes the plans and
//! simulation CSVs of `tests/native-wasm/cases.rs`, which must equal, byte for byte, the files the
//! native test (`crates/core/tests/native_wasm_golden.rs`) checks. Transcendental functions come from
//! the `libm` crate in core, so the two builds cannot drift in the last bit.

#[path = "../../tests/native-wasm/cases.rs"]
mod cases;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const COMMITTED: [(&str, &str); 4] = [
    (
        "demo-plan.json",
        include_str!("../../tests/native-wasm/demo-plan.json"),
    ),
    (
        "demo-simulation.csv",
        include_str!("../../tests/native-wasm/demo-simulation.csv"),
    ),
    (
        "synthetic-plan.json",
        include_str!("../../tests/native-wasm/synthetic-plan.json"),
    ),
    (
        "synthetic-simulation.csv",
        include_str!("../../tests/native-wasm/synthetic-simulation.csv"),
    ),
];

#[wasm_bindgen_test]
fn wasm_outputs_equal_the_native_ones() {
    let outputs = cases::outputs();
    assert_eq!(
        outputs.len(),
        COMMITTED.len(),
        "every case has a committed file"
    );
    for ((name, output), (file, committed)) in outputs.iter().zip(COMMITTED) {
        assert_eq!(*name, file, "cases and committed files in the same order");
        assert!(
            output == committed,
            "{name}: the wasm output differs from the native one (first difference at line {:?})",
            output
                .lines()
                .zip(committed.lines())
                .position(|(a, b)| a != b)
                .map(|k| k + 1)
        );
    }
}
