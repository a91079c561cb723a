//! The Simulate panel's form: the scenario (built-in or a file), cycles, seed, the scenario's own
//! cluster, and the configurations to compare (current settings, presets, a custom one).

use lbplan_core::simulate::builtin_scenario_names;
use lbplan_core::view::palette::css_hex;
use lbplan_core::view::sim_chart::run_colour;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::{
    MAX_CONFIGS, MAX_CYCLES, Msg, PRESETS, SimulatePanel, UPLOADED, describe_current,
    scenario_cluster,
};
use crate::components::event_value;
use crate::components::styled::Swatch;

impl SimulatePanel {
    pub(super) fn view_form(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let p = ctx.props();
        let running = self.running.is_some();
        let names = builtin_scenario_names();
        let description = self
            .scenario
            .as_ref()
            .map(|s| s.description.clone())
            .unwrap_or_default();
        let on_file = link.batch_callback(|e: Event| {
            let input: web_sys::HtmlInputElement = e.target()?.dyn_into().ok()?;
            let file = input.files()?.get(0)?;
            input.set_value("");
            Some(Msg::ScenarioFile(file))
        });
        let configs = self.configs(p);
        let offset = usize::from(self.include_current);
        let is_current = move |k: usize| offset == 1 && k == 0;
        html! {
            <>
                <div class="sim-form">
                    <label>{ "Scenario " }
                        <select data-testid="simulation-scenario" disabled={running}
                            onchange={link.callback(|e: Event| Msg::Scenario(event_value(&e)))}>
                            { for names.iter().map(|n| html! {
                                <option value={*n} selected={self.scenario_key == *n}>{ *n }</option>
                            }) }
                            if let Some(u) = &self.uploaded {
                                <option value={UPLOADED} selected={self.scenario_key == UPLOADED}>{ format!("{} (file)", u.name) }</option>
                            }
                        </select>
                    </label>
                    <label class="file-button">{ "or a scenario file " }
                        <input type="file" accept=".json,application/json" data-testid="simulation-scenario-file"
                            disabled={running} onchange={on_file} />
                    </label>
                    <label>{ "Cycles " }
                        <input type="number" min="1" max={MAX_CYCLES.to_string()} class="num-input" data-testid="simulation-cycles"
                            value={self.cycles_text.clone()} disabled={running}
                            onchange={link.callback(|e: Event| Msg::Cycles(event_value(&e)))} />
                    </label>
                    <label>{ "Seed " }
                        <input type="number" min="0" class="num-input" value={self.seed_text.clone()} disabled={running}
                            onchange={link.callback(|e: Event| Msg::Seed(event_value(&e)))} />
                    </label>
                </div>
                <p class="muted small">{ description }</p>
                if let Some(reference) = scenario_cluster(&self.scenario) {
                    <label class="small">
                        <input type="checkbox" data-testid="simulation-own-cluster" checked={self.own_cluster} disabled={running}
                            onchange={{ let on = self.own_cluster; link.callback(move |_| Msg::OwnCluster(!on)) }} />
                        { format!(" run on the scenario's own cluster ({reference}) instead of the loaded snapshot") }
                    </label>
                }
                if let Err(e) = &self.scenario {
                    <p class="error-text" role="alert">{ e.clone() }</p>
                }
                <h3>{ "Configurations" }</h3>
                <ul class="sim-configs" data-testid="simulation-configs">
                    { for configs.iter().enumerate().map(|(k, c)| {
                        let text = c.to_text();
                        html! {
                            <li>
                                <Swatch colour={css_hex(run_colour(k))} />
                                <strong>{ if c.name.is_empty() { format!("configuration {}", k + 1) } else { c.name.clone() } }</strong>
                                <span class="mono small muted">{ if is_current(k) { describe_current(c) } else { text } }</span>
                                if !running && configs.len() > 1 {
                                    <button type="button" class="small" aria-label={format!("remove {}", c.name)}
                                        onclick={link.callback(move |_| if is_current(k) { Msg::Current(false) } else { Msg::Remove(k - offset) })}>{ "remove" }</button>
                                }
                            </li>
                        }
                    }) }
                </ul>
                if configs.len() < MAX_CONFIGS && !running {
                    <div class="sim-form">
                        if !self.include_current {
                            <button type="button" data-testid="simulation-add-current" onclick={link.callback(|_| Msg::Current(true))}>{ "add current settings" }</button>
                        }
                        <label>{ "Compare with " }
                            <select data-testid="simulation-preset" onchange={link.callback(|e: Event| Msg::AddPreset(event_value(&e)))}>
                                <option value="" selected=true>{ "a preset…" }</option>
                                { for PRESETS.iter().map(|(label, text)| html! { <option value={*text}>{ *label }</option> }) }
                            </select>
                        </label>
                        <label>{ "or " }
                            <input type="text" class="mono custom-config" placeholder="name=mine;loadBalancerBrokerThresholdShedderPercentage=5"
                                aria-label="A configuration: name=…;profile=…;KEY=VALUE;…" value={self.custom.clone()}
                                oninput={link.callback(|e: InputEvent| Msg::Custom(crate::components::event_value(&e)))} />
                        </label>
                        <button type="button" onclick={link.callback(|_| Msg::AddCustom)} disabled={self.custom.trim().is_empty()}>{ "add" }</button>
                    </div>
                }
                if let Some(e) = &self.form_error {
                    <p class="error-text" role="alert" data-testid="simulation-form-error">{ e.clone() }</p>
                }
                <div class="actions">
                    <button type="button" class="primary" data-testid="run-simulation" disabled={running || self.scenario.is_err()}
                        onclick={link.callback(|_| Msg::Run)}>{ "Run simulation" }</button>
                    <span class="muted small">{ "Starts from the loaded snapshot with each configuration; manual moves in the history are not applied. Runs in a Web Worker." }</span>
                </div>
            </>
        }
    }
}
