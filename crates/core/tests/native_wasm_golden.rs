//! Native half of the native-vs-wasm check: the plans and simulation CSVs of
//! `tests/native-wasm/cases.rs` equal the committed files byte for byte. The wasm half
//! (`web/tests/native_wasm.rs`, headless Chromium) compares the same outputs against the same files,
//! so together they prove both builds compute identical results.
//!
//! After an intended change of a plan or simulation, rewrite the files with
//! `LBPLAN_UPDATE_GOLDEN=1 cargo test -p lbplan-core --test native_wasm_golden` and review the diff.

#[path = "../../../tests/native-wasm/cases.rs"]
mod cases;

use std::path::Path;

#[test]
fn native_outputs_equal_the_committed_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/native-wasm");
    let update = std::env::var_os("LBPLAN_UPDATE_GOLDEN").is_some();
    let mut differing = Vec::new();
    for (name, output) in cases::outputs() {
        let path = dir.join(name);
        if update {
            std::fs::write(&path, &output).expect("write the golden file");
            continue;
        }
        let committed = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        if committed != output {
            let line = committed
                .lines()
                .zip(output.lines())
                .position(|(a, b)| a != b)
                .map_or_else(|| "length".to_string(), |k| format!("line {}", k + 1));
            differing.push(format!("{name} (first difference: {line})"));
        }
    }
    assert!(
        differing.is_empty(),
        "native outputs differ from tests/native-wasm/: {differing:?}; if the change is intended, \
         rerun with LBPLAN_UPDATE_GOLDEN=1 and review the diff"
    );
}
