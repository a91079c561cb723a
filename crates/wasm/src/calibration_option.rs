//! `options.calibration` of `plan()`, `explainDecision()`, `rebalance()`, `simulate()` and
//! `explainHistory()`: the object `lbplan history --calibrate` writes (its `format_version`, the
//! per-broker `cpu_cost_factors`, the fits), read by core as the CLI's `--calibration FILE` is.
//! Absent or `null`: the default model.

use lbplan_core::load::LoadModel;
use lbplan_core::load::calibration::Calibration;
use serde_json::Value;

use crate::error::ApiError;

/// The calibration `options` name, checked by core (`None` when absent or `null`).
pub fn calibration(options: &Value) -> Result<Option<Calibration>, ApiError> {
    match options.get("calibration") {
        None | Some(Value::Null) => Ok(None),
        Some(v @ Value::Object(_)) => Calibration::from_json_text(&v.to_string())
            .map(Some)
            .map_err(|e| ApiError::at("options.calibration", e.to_string())),
        Some(other) => Err(ApiError::at(
            "options.calibration",
            format!(
                "expected the object `lbplan history --calibrate` writes, found {}",
                crate::error::kind_of(other)
            ),
        )),
    }
}

/// The load model `options` ask for: the calibration's factors, else the default model.
pub fn load_model(options: &Value) -> Result<LoadModel, ApiError> {
    Ok(calibration(options)?.map_or_else(LoadModel::default, |c| c.model()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_file_shape_and_names_what_is_wrong() {
        let ok = serde_json::json!({"calibration": {
            "format_version": 1, "cpu_cost_factors": {"b1:8080": 2.0}, "fits": []}});
        assert_eq!(load_model(&ok).unwrap().cpu_factor("b1:8080"), 2.0);
        assert_eq!(
            load_model(&serde_json::json!({})).unwrap(),
            LoadModel::default()
        );
        let e = load_model(&serde_json::json!({"calibration": "x"})).unwrap_err();
        assert!(e.to_string().contains("options.calibration"), "{e}");
        let bad = serde_json::json!({"calibration": {
            "format_version": 1, "cpu_cost_factors": {"b1:8080": -2.0}, "fits": []}});
        let e = load_model(&bad).unwrap_err().to_string();
        assert!(
            e.contains("options.calibration") && e.contains("cpu_cost_factors"),
            "{e}"
        );
    }
}
