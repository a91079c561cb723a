//! Settings: the Pulsar release (detected from the leader's version, a line's newest, or any known
//! release, with why), then the settings an operator reaches for
//! first (core's `TOP_SETTINGS`: the strategies, the two thresholds, shedding and splitting on/off),
//! each with a line saying what it decides, then every `broker.conf` key with Pulsar's default and
//! the effective value; above them, core's version-aware check of the configuration against the
//! release (`view::settings_check`). Booleans are switches. A change is an operation in the edit history
//! (`set=KEY=VALUE`), so it can be undone and shared.

use std::rc::Rc;

use lbplan_core::config::settings::release_basis;
use lbplan_core::config::{ConfigType, Profile, simple_class_name};
use lbplan_core::model::Snapshot;
use lbplan_core::plan::operations::Operation;
use lbplan_core::release::{LINE_ALIASES, releases_by_line};
use lbplan_core::view::settings::{
    PLACEMENT_STRATEGIES, SHEDDING_STRATEGIES, SettingRow, TOP_SETTINGS, ValueSource,
    effective_profile, setting_rows,
};
use lbplan_core::view::settings_check::{SettingFinding, Severity, check_settings, finding_line};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::calibration_loader::CalibrationLoader;
use super::event_value;
use crate::state::LoadedCalibration;

#[derive(Clone, Properties)]
pub struct SettingsProps {
    pub snapshot: Rc<Snapshot>,
    pub profile: Option<Profile>,
    pub operations: Rc<Vec<Operation>>,
    pub on_profile: Callback<Option<Profile>>,
    pub on_set: Callback<(String, String)>,
    #[prop_or_default]
    pub readonly: bool,
    /// The plan's warnings (the 5.0 fallback warning shows here).
    pub warnings: Rc<Vec<String>>,
    /// The calibration the predictions use (`None`: the default model).
    #[prop_or_default]
    pub calibration: Option<Rc<LoadedCalibration>>,
    #[prop_or_default]
    pub on_calibration: Callback<Option<Rc<LoadedCalibration>>>,
}

impl PartialEq for SettingsProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.snapshot, &o.snapshot)
            && self.profile == o.profile
            // The app hands a fresh Rc of the same operations at each of its renders.
            && (Rc::ptr_eq(&self.operations, &o.operations) || self.operations == o.operations)
            && self.readonly == o.readonly
            && self.warnings == o.warnings
            && self.calibration == o.calibration
    }
}

/// What the panel shows that core derives from the snapshot, the profile and the overrides.
struct SettingsDerived {
    rows: Vec<SettingRow>,
    effective: Profile,
    basis_text: String,
    findings: Vec<SettingFinding>,
}

fn settings_derived(
    snapshot: &Snapshot,
    profile: Option<Profile>,
    overrides: &[(String, String)],
) -> SettingsDerived {
    // Which release's behaviour the plan uses and why (leader, majority, the operator's choice).
    let basis_text = match release_basis(snapshot, profile) {
        Ok(b) => {
            let mut t = format!("Behaviour of Pulsar {}: {}", b.release, b.why);
            for w in &b.warnings {
                t.push_str(&format!("; {w}"));
            }
            t
        }
        Err(e) => e.to_string(),
    };
    SettingsDerived {
        rows: setting_rows(snapshot, profile, overrides),
        effective: effective_profile(snapshot, profile),
        basis_text,
        // Core's version-aware check (as `lbplan config --check`): what this release does not
        // take as configured, each with the PR that changes it.
        findings: check_settings(snapshot, profile, overrides)
            .map(|c| c.findings)
            .unwrap_or_default(),
    }
}

#[function_component(SettingsPanel)]
pub fn settings_panel(p: &SettingsProps) -> Html {
    let filter = use_state(String::new);
    // The table of every key is built only while its <details> is open (a few hundred rows with
    // their controls, otherwise laid out for nothing at every render of the loaded page).
    let all_open = use_state(|| false);
    let on_toggle_all = {
        let all_open = all_open.clone();
        Callback::from(move |e: Event| {
            if let Some(el) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                all_open.set(el.has_attribute("open"));
            }
        })
    };
    let overrides = Operation::config_overrides(&p.operations);
    // Each of these resolves the release over every broker's version (≈ 10 ms at 1,000 brokers):
    // once per snapshot, profile and overrides, not at each render (a plan's arrival, a toggle).
    let derived = use_memo(
        (
            Rc::as_ptr(&p.snapshot) as usize,
            p.profile,
            overrides.clone(),
        ),
        {
            let snapshot = p.snapshot.clone();
            move |(_, profile, overrides)| settings_derived(&snapshot, *profile, overrides)
        },
    );
    let SettingsDerived {
        rows,
        effective,
        basis_text,
        findings,
    } = &*derived;
    let effective = *effective;
    let get = |k: &str| {
        rows.iter()
            .find(|r| r.key == k)
            .map(|r| r.effective.clone())
            .unwrap_or_default()
    };
    let on_profile = {
        let cb = p.on_profile.clone();
        Callback::from(move |e: Event| cb.emit(Profile::parse(&event_value(&e))))
    };
    let strategy_select = |key: &'static str,
                           options: &'static [&'static str],
                           why: &'static str| {
        let current = get(key);
        // Core's row says when the broker runs another class than the one configured.
        let note = rows
            .iter()
            .find(|r| r.key == key)
            .and_then(|r| r.note.clone());
        let on_set = p.on_set.clone();
        let onchange =
            Callback::from(move |e: Event| on_set.emit((key.to_string(), event_value(&e))));
        html! {
            <label class="setting">
                <span class="mono">{ key }</span>
                <select {onchange} disabled={p.readonly} data-testid={key.to_string()}>
                    { for options.iter().map(|o| html! {
                        <option value={o.to_string()} selected={simple_class_name(o) == simple_class_name(&current)}>{ simple_class_name(o) }</option>
                    }) }
                </select>
                if let Some(note) = note {
                    <span class="muted small" data-testid={format!("{key}-note")}>{ note }</span>
                }
                <span class="why small">{ why }</span>
            </label>
        }
    };
    // A threshold or a switch of the top settings, edited in place.
    let top_setting = |key: &'static str, why: &'static str| -> Html {
        let Some(r) = rows.iter().find(|r| r.key == key) else {
            return html! {};
        };
        let control = value_control(r, &p.on_set, p.readonly);
        html! {
            <div class="setting top-setting" data-testid={format!("top-{key}")}>
                <span class="mono">{ key }</span>
                { control }
                <span class="why small">{ why }</span>
            </div>
        }
    };
    let top: Html = TOP_SETTINGS
        .iter()
        .map(|(key, why)| match *key {
            "loadBalancerLoadSheddingStrategy" => strategy_select(key, SHEDDING_STRATEGIES, why),
            "loadBalancerLoadPlacementStrategy" => strategy_select(key, PLACEMENT_STRATEGIES, why),
            _ => top_setting(key, why),
        })
        .collect();
    let needle = (*filter).to_lowercase();
    let on_filter = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| {
            filter.set(
                e.target()
                    .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                    .map(|i| i.value())
                    .unwrap_or_default(),
            )
        })
    };
    html! {
        <section class="panel settings" data-testid="settings">
            <h2>{ "Settings" }</h2>
            <div class="settings-top">
                <label class="setting">
                    <span>{ "Pulsar release" }</span>
                    <select onchange={on_profile} disabled={p.readonly} data-testid="profile-select">
                        <option value="auto" selected={p.profile.is_none()}>{ format!("auto ({effective})") }</option>
                        <optgroup label="newest of a line">
                            { for LINE_ALIASES.iter().map(|a| html! {
                                <option value={a.to_string()}>{ a.to_string() }</option>
                            }) }
                        </optgroup>
                        { for releases_by_line().into_iter().map(|(line, releases)| html! {
                            <optgroup label={line.label()}>
                                { for releases.into_iter().map(|r| {
                                    let name = r.name();
                                    let selected = p.profile.map(|x| x.release()) == Some(r);
                                    html! { <option value={name.clone()} {selected}>{ name }</option> }
                                }) }
                            </optgroup>
                        }) }
                    </select>
                    <span class="why small" data-testid="release-basis">{ basis_text }</span>
                </label>
                <CalibrationLoader snapshot={p.snapshot.clone()} calibration={p.calibration.clone()}
                    on_calibration={p.on_calibration.clone()} readonly={p.readonly} />
            </div>
            if !findings.is_empty() {
                <ul class="warnings" data-testid="settings-check">
                    { for findings.iter().map(|f| html! {
                        <li class={if f.severity == Severity::Error { "error" } else { "" }}>{ finding_line(f) }</li>
                    }) }
                </ul>
            }
            <div class="settings-top top-settings">{ top }</div>
            if !p.warnings.is_empty() {
                <ul class="warnings" data-testid="plan-warnings">
                    { for p.warnings.iter().map(|w| html! { <li>{ w }</li> }) }
                </ul>
            }
            <details ontoggle={on_toggle_all}>
                <summary>{ format!("All {} broker.conf keys", rows.len()) }</summary>
                if *all_open {
                <input type="search" placeholder="filter keys" oninput={on_filter} aria-label="Filter keys" />
                <div class="table-scroll settings-table">
                    <table class="data">
                        <thead><tr>
                            <th scope="col">{ "Key" }</th><th scope="col">{ "Type" }</th>
                            <th scope="col">{ "Pulsar default" }</th><th scope="col">{ "Effective" }</th>
                        </tr></thead>
                        <tbody>
                            { for rows.iter().filter(|r| needle.is_empty() || r.key.to_lowercase().contains(&needle)).map(|r| {
                                let key = r.key;
                                let kind = match r.kind {
                                    ConfigType::Bool => "boolean", ConfigType::Int => "int", ConfigType::Double => "double",
                                    ConfigType::Text => "string", ConfigType::List => "list", ConfigType::OptionalDouble => "optional double",
                                };
                                let source = match r.source {
                                    ValueSource::PulsarDefault => "", ValueSource::SnapshotConf => "from broker.conf", ValueSource::Override => "changed",
                                };
                                html! {
                                    <tr class={classes!((r.source != ValueSource::PulsarDefault).then_some("changed"))}>
                                        <th scope="row" class="mono">{ key }</th>
                                        <td>{ kind }</td>
                                        <td class="mono">{ &r.pulsar_default }</td>
                                        <td>
                                            { value_control(r, &p.on_set, p.readonly) }
                                            <span class="muted small">{ format!(" {source}") }</span>
                                            if let Some(note) = &r.note {
                                                <span class="muted small">{ format!(" ({note})") }</span>
                                            }
                                        </td>
                                    </tr>
                                }
                            }) }
                        </tbody>
                    </table>
                </div>
                }
            </details>
        </section>
    }
}

/// The editor of one setting's effective value: a switch for a boolean (a checkbox with
/// `role="switch"`, so assistive technology announces on/off), a text field otherwise. Either
/// emits `(key, value)` as `broker.conf` spells it.
fn value_control(r: &SettingRow, on_set: &Callback<(String, String)>, readonly: bool) -> Html {
    let key = r.key;
    let on_set = on_set.clone();
    if r.kind == ConfigType::Bool {
        let on = r.effective.trim().eq_ignore_ascii_case("true");
        let onchange = Callback::from(move |e: Event| {
            let checked = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                .is_some_and(|i| i.checked());
            on_set.emit((key.to_string(), checked.to_string()));
        });
        return html! {
            <label class="switch">
                <input type="checkbox" role="switch" checked={on} {onchange} disabled={readonly}
                    aria-label={key} aria-checked={on.to_string()} data-key={key} />
                <span class="mono small">{ if on { "true" } else { "false" } }</span>
            </label>
        };
    }
    let onchange = Callback::from(move |e: Event| on_set.emit((key.to_string(), event_value(&e))));
    html! {
        <input class="mono" value={r.effective.clone()} {onchange} disabled={readonly}
            aria-label={format!("{key} effective value")} data-key={key} />
    }
}
