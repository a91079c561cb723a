//! The leader's log merged with the series (core's `history::leader_log`): what the log confirms,
//! what the leader did that the replay did not predict, what it logged with no change in the
//! series, what the replay gave to the leader that the log does not show, the clocks' agreement
//! and the lines skipped. Each list is bounded (the JSON has them all); a click on a row shows
//! that moment.

use std::rc::Rc;

use lbplan_core::history::leader_log::{ActionKind, LoggedAction};
use lbplan_core::history::leader_log::{LeaderLogSection, MatchedAction};
use lbplan_worker::protocol::HistoryView;
use yew::prelude::*;

/// Rows listed at most per list.
const ROWS_SHOWN: usize = 50;

#[derive(Properties)]
pub struct HistoryLeaderLogProps {
    /// The explained series, shared with the view (see `history_answers`).
    pub view: Rc<HistoryView>,
    pub on_step: Callback<usize>,
}

impl PartialEq for HistoryLeaderLogProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.view, &o.view) && self.on_step == o.on_step
    }
}

fn what(a: &LoggedAction) -> String {
    match a.kind {
        ActionKind::Unload => format!(
            "unload {} {} → {}",
            a.bundle,
            a.from,
            a.to.as_deref().unwrap_or("(owner picks)")
        ),
        ActionKind::Split => format!("split {}", a.bundle),
    }
}

fn logged_at(a: &LoggedAction) -> String {
    let iso = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(a.at_ms as f64))
        .to_iso_string()
        .as_string()
        .unwrap_or_default();
    format!("{iso} · {} {}:{}", a.strategy, a.file, a.line)
}

fn more(total: usize) -> Html {
    if total > ROWS_SHOWN {
        html! { <li class="muted">{ format!("… {} more (lbplan history --format json)", total - ROWS_SHOWN) }</li> }
    } else {
        html! {}
    }
}

fn matched_list(
    title: &str,
    list_id: &'static str,
    list: &[MatchedAction],
    on_step: &Callback<usize>,
) -> Html {
    if list.is_empty() {
        return html! {};
    }
    html! {
        <>
            <h4>{ format!("{title} ({})", list.len()) }</h4>
            <ul class="small history-log-list" data-testid={format!("history-log-{list_id}")}>
                { for list.iter().take(ROWS_SHOWN).map(|m| {
                    let step = m.step;
                    let cb = on_step.clone();
                    html! {
                        <li data-testid="history-log-row" data-list={list_id} data-bundle={m.action.bundle.clone()}
                            class="clickable" onclick={Callback::from(move |_| cb.emit(step))}>
                            <span class="mono">{ what(&m.action) }</span>
                            if m.destination_as_logged == Some(false) { <span class="warn">{ " (went elsewhere)" }</span> }
                            <br/><span class="muted">{ format!("between snapshots {} and {} · replay: {} · logged {}", step + 1, step + 2, m.cause, logged_at(&m.action)) }</span>
                            if let Some(w) = &m.action.words { <br/><span class="muted mono">{ w.clone() }</span> }
                        </li>
                    }
                }) }
                { more(list.len()) }
            </ul>
        </>
    }
}

#[function_component(HistoryLeaderLogView)]
pub fn history_leader_log_view(p: &HistoryLeaderLogProps) -> Html {
    let Some(s): Option<&LeaderLogSection> = p.view.report.leader_log.as_ref() else {
        return html! {};
    };
    let lines: u64 = s.files.iter().map(|f| f.lines).sum();
    let leaders: Vec<&str> = s.files.iter().filter_map(|f| f.leader.as_deref()).collect();
    let c = &s.clock;
    let clock = if c.disagrees {
        format!(
            "Clocks disagree: the log's times are {:.1} s {} the snapshots that show its actions (median of {}); matched after shifting the log by that.",
            c.offset_ms.abs() as f64 / 1000.0,
            if c.offset_ms > 0 { "after" } else { "before" },
            c.matched
        )
    } else if c.matched > 0 {
        format!(
            "Clocks agree within {:.0} s (median offset {:.1} s over {} actions).",
            c.tolerance_ms as f64 / 1000.0,
            c.offset_ms as f64 / 1000.0,
            c.matched
        )
    } else {
        "No logged action matched a change: the clocks could not be compared.".to_string()
    };
    html! {
        <section class="history-leader-log" data-testid="history-leader-log">
            <h3>{ "From the leader's log" }</h3>
            <p class="small" data-testid="history-log-summary">
                { format!("{} file(s), {lines} lines, {} actions ({} failed); confirmed {}, by the leader but not predicted {}, logged with no change {}, predicted but not logged {}",
                    s.files.len(), s.actions, s.failed, s.confirmed.len(), s.not_predicted.len(), s.no_change.len(), s.not_logged.len()) }
                if !leaders.is_empty() { { format!("; leader named: {}", leaders.join(", ")) } }
            </p>
            <p class={classes!("small", c.disagrees.then_some("warn"))} data-testid="history-log-clock">{ clock }</p>
            if s.predictions_outside_log > 0 {
                <p class="small muted">{ format!("{} changes given to the leader fall outside the log's time span (not checked).", s.predictions_outside_log) }</p>
            }
            { for s.files.iter().filter(|f| !f.skipped.is_empty()).map(|f| html! {
                <p class="small muted" data-testid="history-log-skipped">
                    { format!("{}: skipped lines: {}", f.file, f.skipped.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")) }
                </p>
            }) }
            { matched_list("Confirmed by the log", "confirmed", &s.confirmed, &p.on_step) }
            { matched_list("In the log, not predicted by the replay", "not-predicted", &s.not_predicted, &p.on_step) }
            if !s.no_change.is_empty() {
                <h4>{ format!("In the log, no change in the series ({})", s.no_change.len()) }</h4>
                <ul class="small history-log-list" data-testid="history-log-no-change">
                    { for s.no_change.iter().take(ROWS_SHOWN).map(|u| html! {
                        <li data-testid="history-log-row" data-list="no-change" data-bundle={u.action.bundle.clone()}>
                            <span class="mono">{ what(&u.action) }</span>
                            <br/><span class="muted">{ format!("logged {} — {}", logged_at(&u.action), u.note) }</span>
                        </li>
                    }) }
                    { more(s.no_change.len()) }
                </ul>
            }
            if !s.not_logged.is_empty() {
                <h4>{ format!("Predicted by the replay, seen, not in the log ({})", s.not_logged.len()) }</h4>
                <ul class="small history-log-list" data-testid="history-log-not-logged">
                    { for s.not_logged.iter().take(ROWS_SHOWN).map(|n| {
                        let step = n.step;
                        let cb = p.on_step.clone();
                        let text = match n.kind {
                            ActionKind::Unload => format!("unload {} from {}", n.bundle, n.from),
                            ActionKind::Split => format!("split {}", n.bundle),
                        };
                        html! {
                            <li data-testid="history-log-row" data-list="not-logged" data-bundle={n.bundle.clone()}
                                class="clickable" onclick={Callback::from(move |_| cb.emit(step))}>
                                <span class="mono">{ text }</span>
                                <span class="muted">{ format!(" · between snapshots {} and {}", step + 1, step + 2) }</span>
                            </li>
                        }
                    }) }
                    { more(s.not_logged.len()) }
                </ul>
            }
        </section>
    }
}
