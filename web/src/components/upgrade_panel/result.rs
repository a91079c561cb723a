//! The upgrade preview as the panel shows it, from core's `UpgradePreview` (what `lbplan upgrade`
//! prints): the headline, the release-table rows that differ, this cycle's changed decisions with
//! the PRs behind each, the simulated cycles, new namespaces' bundles and the lines that keep
//! today's defaults.

use lbplan_core::upgrade::UpgradePreview;
use yew::prelude::*;

pub(super) fn view(p: &UpgradePreview) -> Html {
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
