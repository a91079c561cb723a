//! The calibration file of the settings panel: `lbplan history --calibrate` fits each broker's
//! CPU cost per byte from a recorded series; loaded here, every plan, what-if, rebalance,
//! simulation and history check of the dashboard predicts with those factors, as the CLI's
//! `--calibration FILE` does. Core reads the file (`Calibration::from_json_text`) and says what it
//! changes on the loaded snapshot (`describe_for`); a bad file leaves the model as it was.

use std::rc::Rc;

use lbplan_core::load::calibration::Calibration;
use lbplan_core::model::Snapshot;
use yew::prelude::*;

use crate::state::LoadedCalibration;

/// A calibration file is a few numbers per broker; a larger file is not one.
const MAX_CALIBRATION_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

#[derive(Clone, Properties)]
pub struct CalibrationProps {
    pub snapshot: Rc<Snapshot>,
    pub calibration: Option<Rc<LoadedCalibration>>,
    pub on_calibration: Callback<Option<Rc<LoadedCalibration>>>,
    #[prop_or_default]
    pub readonly: bool,
}

impl PartialEq for CalibrationProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.snapshot, &o.snapshot)
            && self.calibration == o.calibration
            && self.readonly == o.readonly
    }
}

#[function_component(CalibrationLoader)]
pub fn calibration_loader(p: &CalibrationProps) -> Html {
    let error = use_state(|| None::<String>);
    let onchange = {
        let error = error.clone();
        let on_calibration = p.on_calibration.clone();
        Callback::from(move |e: Event| {
            let Some(input) = super::event_input(&e) else {
                return;
            };
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            // The same file chosen again after a fix must fire `change` again.
            input.set_value("");
            let name = file.name();
            if file.size() > MAX_CALIBRATION_BYTES {
                error.set(Some(format!(
                    "{name}: {} bytes is not a calibration file (at most 16 MiB)",
                    file.size()
                )));
                return;
            }
            let error = error.clone();
            let on_calibration = on_calibration.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let text = wasm_bindgen_futures::JsFuture::from(file.text())
                    .await
                    .map(|v| v.as_string().unwrap_or_default())
                    .map_err(|e| format!("{e:?}"));
                match text.and_then(|t| Calibration::from_json_text(&t).map_err(|e| e.to_string()))
                {
                    Ok(calibration) => {
                        error.set(None);
                        on_calibration.emit(Some(Rc::new(LoadedCalibration { name, calibration })));
                    }
                    Err(e) => error.set(Some(format!("{name}: {e}"))),
                }
            });
        })
    };
    let on_clear = {
        let on_calibration = p.on_calibration.clone();
        let error = error.clone();
        Callback::from(move |_: MouseEvent| {
            error.set(None);
            on_calibration.emit(None);
        })
    };
    html! {
        <div class="setting calibration" data-testid="calibration">
            <span>{ "Load model" }</span>
            if let Some(c) = &p.calibration {
                <span class="small" data-testid="calibration-summary">
                    { format!("Calibration {}: {}", c.name, c.calibration.describe_for(&p.snapshot)) }
                </span>
                <button type="button" class="secondary small" onclick={on_clear}
                    disabled={p.readonly} data-testid="calibration-clear">{ "Use the default model" }</button>
            } else {
                <span class="why small">
                    { "Default: every broker turns a bundle's work into CPU at the same cost. Load a \
                       calibration (lbplan history --calibrate -o calibration.json) when brokers run \
                       different hardware." }
                </span>
            }
            <label class="small">
                { if p.calibration.is_some() { "Another calibration file: " } else { "Calibration file: " } }
                <input type="file" accept=".json,application/json" {onchange} disabled={p.readonly}
                    data-testid="calibration-input" />
            </label>
            if let Some(e) = &*error {
                <span class="error small" role="alert" data-testid="calibration-error">{ e }</span>
            }
        </div>
    }
}
