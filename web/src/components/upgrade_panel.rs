//! Upgrade preview: the loaded snapshot's cluster moved from the release it runs (the Settings
//! panel's choice, else its leader's) to a chosen release, as `lbplan upgrade` shows it — core's
//! `upgrade::upgrade_preview`: the release-table rows that differ, this cycle's decisions that
//! change with the PRs behind each, the first cycles simulated under both, the bundles of new
//! namespaces, and the `broker.conf` lines that keep today's defaults. Run in this tab on demand.

use std::rc::Rc;

use lbplan_core::config::Profile;
use lbplan_core::release::{LINE_ALIASES, releases_by_line};
use lbplan_core::upgrade::{UpgradePreview, upgrade_preview};
use yew::prelude::*;

use super::event_value;
use crate::state::Loaded;

/// Simulated cycles under each release (the CLI's `--cycles` defaults to 30; fewer keep the tab
/// responsive).
const CYCLES: u32 = 10;

#[derive(Clone, Properties)]
pub struct UpgradePanelProps {
    pub loaded: Rc<Loaded>,
    /// The Settings panel's release (`None`: the leader's).
    pub profile: Option<Profile>,
}

impl PartialEq for UpgradePanelProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.loaded, &other.loaded) && self.profile == other.profile
    }
}

#[function_component(UpgradePanel)]
pub fn upgrade_panel(p: &UpgradePanelProps) -> Html {
    let target = use_state(|| "5.0.0".to_string());
    let result = use_state(|| None::<Result<UpgradePreview, String>>);
    {
        // Another snapshot or release: the preview shown no longer applies.
        let result = result.clone();
        use_effect_with(p.clone(), move |_| {
            result.set(None);
        });
    }
    let on_target = {
        let target = target.clone();
        Callback::from(move |e: Event| target.set(event_value(&e)))
    };
    let on_run = {
        let (target, result, loaded, profile) =
            (target.clone(), result.clone(), p.loaded.clone(), p.profile);
        Callback::from(move |_| {
            let r = match Profile::parse(&target) {
                None => Err(format!("`{}` is not a Pulsar release", *target)),
                Some(to) => upgrade_preview(&loaded.snapshot, profile, to, CYCLES)
                    .map_err(|e| e.to_string()),
            };
            result.set(Some(r));
        })
    };
    html! {
        <section class="panel upgrade" data-testid="upgrade-panel">
            <h2>{ "Upgrade preview" }</h2>
            <label>{ "Upgrade to " }
                <select data-testid="upgrade-target" onchange={on_target}>
                    <optgroup label="Lines">
                        { for LINE_ALIASES.iter().map(|a| html! {
                            <option value={a.to_string()} selected={*a == target.as_str()}>{ *a }</option>
                        }) }
                    </optgroup>
                    { for releases_by_line().into_iter().map(|(line, releases)| html! {
                        <optgroup label={line.label()}>
                            { for releases.into_iter().map(|r| {
                                let name = r.name();
                                let selected = name == *target;
                                html! { <option value={name.clone()} {selected}>{ name }</option> }
                            }) }
                        </optgroup>
                    }) }
                </select>
            </label>
            <button type="button" data-testid="upgrade-run" onclick={on_run}>{ "Preview" }</button>
            if p.loaded.bundle_count > 20_000 {
                <p class="muted small">{ "Large snapshot: the preview plans twice and simulates here, which takes a while." }</p>
            }
            { match &*result {
                None => html! {},
                Some(Err(e)) => html! { <p class="error" role="alert" data-testid="upgrade-error">{ e.clone() }</p> },
                Some(Ok(preview)) => view(preview),
            } }
        </section>
    }
}

fn view(p: &UpgradePreview) -> Html {
    let d = &p.decisions;
    let why = |bundle: &str, decision: &str| -> String {
        p.decision_causes
            .iter()
            .find(|c| c.bundle == bundle && c.decision == decision)
            .filter(|c| !c.prs.is_empty())
            .map_or_else(String::new, |c| format!(" [{}]", c.prs.join(", ")))
    };
    let to = |t: &Option<String>| t.clone().unwrap_or_else(|| "?".to_string());
    html! {
        <div data-testid="upgrade-result">
            <p data-testid="upgrade-headline">{ format!("Upgrade {} → {} ({})", p.from.release, p.to, p.from.why) }</p>
            { for p.from.warnings.iter().chain(&p.warnings).map(|w| html! { <p class="muted small">{ format!("warning: {w}") }</p> }) }
            <h3>{ "Behaviour that differs" }</h3>
            if p.changes.is_empty() {
                <p>{ "No row of the release table differs between the two releases." }</p>
            } else {
                <ul data-testid="upgrade-changes">
                    { for p.changes.iter().map(|c| html! {
                        <li class={if c.applies { "" } else { "muted" }}>
                            { format!("{} {}: {}{}", c.direction, c.prs, c.summary,
                                if c.applies { "" } else { " (not used by this cluster)" }) }
                        </li>
                    }) }
                </ul>
            }
            <h3>{ "This cycle's decisions" }</h3>
            if d.identical_decisions {
                <p data-testid="upgrade-decisions">{ "The same under both releases." }</p>
            } else {
                <ul class="mono small" data-testid="upgrade-decisions">
                    { for d.moves_added.iter().map(|m| html! {
                        <li>{ format!("+ {} {} → {}{}", m.bundle, m.from, to(&m.to), why(&m.bundle, "added")) }</li>
                    }) }
                    { for d.moves_removed.iter().map(|m| html! {
                        <li>{ format!("- {} {} → {}{}", m.bundle, m.from, to(&m.to), why(&m.bundle, "removed")) }</li>
                    }) }
                    { for d.moves_changed.iter().map(|m| html! {
                        <li>{ format!("~ {} to {} instead of {}{}", m.bundle, to(&m.what_if.to), to(&m.baseline.to), why(&m.bundle, "destination")) }</li>
                    }) }
                </ul>
            }
            if !p.simulated.is_empty() {
                <h3>{ format!("The first {} cycles (steady load)", p.cycles) }</h3>
                <table class="data" data-testid="upgrade-simulated">
                    <thead><tr>
                        <th scope="col">{ "Release" }</th><th scope="col" class="num">{ "Unloads" }</th>
                        <th scope="col" class="num">{ "GB moved" }</th><th scope="col" class="num">{ "Ping-pong" }</th>
                        <th scope="col">{ "Balanced" }</th>
                    </tr></thead>
                    <tbody>
                        { for p.simulated.iter().map(|s| html! { <tr>
                            <td>{ s.release.clone() }</td>
                            <td class="num">{ s.summary.total_unloads }</td>
                            <td class="num">{ format!("{:.1}", s.summary.total_bytes_moved / 1e9) }</td>
                            <td class="num">{ s.summary.total_thrashing }</td>
                            <td>{ s.summary.balanced_at_cycle.map_or_else(|| "never".to_string(), |c| format!("at cycle {c}")) }</td>
                        </tr> }) }
                    </tbody>
                </table>
            }
            if !p.new_namespaces.is_empty() {
                <h3>{ "Bundles of a new namespace (system namespace)" }</h3>
                <ul data-testid="upgrade-new-namespaces">
                    { for p.new_namespaces.iter().map(|n| html! {
                        <li>{ format!("{}: {} ({})", n.release, n.namespace_bundles, n.system_namespace_bundles) }</li>
                    }) }
                </ul>
            }
            <h3>{ "broker.conf lines that keep today's defaults" }</h3>
            if p.keep_today.is_empty() {
                <p>{ "No default differs." }</p>
            } else {
                <pre class="mono small" data-testid="upgrade-keep-today">{ p.keep_today.join("\n") }</pre>
            }
        </div>
    }
}
