//! "What did the leader do, and why?" answered for a recorded series (core's `history::answers`):
//! the brokers that received and gave away the most, every ping-pong (a click shows that moment),
//! and the bursts with their likely trigger.

use std::rc::Rc;

use lbplan_core::history::report::HistoryAnswers;
use lbplan_core::naming::BrokerNames;

use super::named_text;
use lbplan_worker::protocol::HistoryView;
use yew::prelude::*;

use crate::format;

/// Brokers listed at most (the JSON has them all).
const BROKERS_SHOWN: usize = 10;
/// Ping-pongs listed at most.
const PING_PONG_SHOWN: usize = 50;

#[derive(Properties)]
pub struct HistoryAnswersProps {
    /// The explained series (its report's answers and capture times), shared with the view: moving
    /// the instant re-renders the view, not a copy of every ping-pong.
    pub view: Rc<HistoryView>,
    /// Moves the view to a step (a ping-pong's return, a burst).
    pub on_step: Callback<usize>,
}

impl PartialEq for HistoryAnswersProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.view, &o.view) && self.on_step == o.on_step
    }
}

#[function_component(HistoryAnswersView)]
pub fn history_answers_view(p: &HistoryAnswersProps) -> Html {
    let a: &HistoryAnswers = &p.view.report.answers;
    let names = {
        let view = p.view.clone();
        use_memo(Rc::as_ptr(&p.view) as usize, move |_| {
            BrokerNames::new(
                view.report
                    .answers
                    .brokers
                    .iter()
                    .map(|b| b.broker.as_str()),
            )
        })
    };
    let first = p.view.report.times_ms.first().copied().unwrap_or(0);
    let minutes = move |at: i64| format!("+{:.1} min", (at - first) as f64 / 60_000.0);
    if a.brokers.is_empty() && a.ping_pong.is_empty() && a.bursts.is_empty() {
        return html! {};
    }
    html! {
        <section class="history-answers" data-testid="history-answers">
            <h3>{ "What the leader did" }</h3>
            if !a.bursts.is_empty() {
                <ul class="small" data-testid="history-bursts">
                    { for a.bursts.iter().map(|b| {
                        let step = b.step;
                        html! {
                            <li data-testid="history-burst">
                                <button type="button" class="link" onclick={p.on_step.reform(move |_: MouseEvent| step)}>
                                    { format!("Burst at snapshot {} ({})", b.step + 1, minutes(b.at_ms)) }
                                </button>
                                { format!(": {} moves (usually {:.0}); likely trigger: ", b.moves, b.usual_moves) }{ named_text(&names, &b.trigger) }
                            </li>
                        }
                    }) }
                </ul>
            }
            if !a.brokers.is_empty() {
                <table class="data small" data-testid="history-brokers">
                    <caption class="small muted">{ if a.brokers.len() > BROKERS_SHOWN {
                        format!("The {BROKERS_SHOWN} brokers with the most moves, of {}", a.brokers.len())
                    } else {
                        "Moves per broker".to_string()
                    } }</caption>
                    <thead><tr>
                        <th scope="col">{ "broker" }</th>
                        <th scope="col" class="num">{ "received" }</th>
                        <th scope="col" class="num">{ "traffic in" }</th>
                        <th scope="col" class="num">{ "given away" }</th>
                        <th scope="col" class="num">{ "by the leader" }</th>
                        <th scope="col" class="num">{ "traffic out" }</th>
                    </tr></thead>
                    <tbody>
                        { for a.brokers.iter().take(BROKERS_SHOWN).map(|b| html! {
                            <tr data-testid="history-broker" data-broker={b.broker.clone()}>
                                <td class="mono" title={b.broker.clone()}>{ names.short(&b.broker).to_string() }</td>
                                <td class="num">{ b.bundles_in }</td>
                                <td class="num">{ format::bytes_per_sec(b.bytes_in_per_sec) }</td>
                                <td class="num">{ b.bundles_out }</td>
                                <td class="num">{ b.out_by_leader }</td>
                                <td class="num">{ format::bytes_per_sec(b.bytes_out_per_sec) }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            }
            <p class="small" data-testid="history-ping-pong-count">
                { match a.ping_pong.len() {
                    0 => "No ping-pong: no bundle went back to a broker it had left within an hour.".to_string(),
                    n => format!("Ping-pong: {n} return(s) of a bundle to a broker it had left within an hour{}",
                        if n > PING_PONG_SHOWN { format!(" (the first {PING_PONG_SHOWN} listed)") } else { String::new() }),
                } }
            </p>
            if !a.ping_pong.is_empty() {
                <ul class="small mono history-ping-pong" data-testid="history-ping-pong">
                    { for a.ping_pong.iter().take(PING_PONG_SHOWN).map(|pp| {
                        let step = pp.step;
                        let path: Vec<&str> = pp.brokers.iter().map(|b| names.short(b)).collect();
                        html! {
                            <li data-testid="history-ping-pong-row" data-step={step.to_string()} title={pp.brokers.join(" → ")}>
                                <button type="button" class="link" onclick={p.on_step.reform(move |_: MouseEvent| step)}
                                    title="Show this moment">
                                    { format!("{}  {}  left {}, back {}{}", pp.bundle, path.join(" → "),
                                        minutes(pp.left_at_ms), minutes(pp.back_at_ms),
                                        if pp.within_grace { " (within the grace period)" } else { "" }) }
                                </button>
                            </li>
                        }
                    }) }
                </ul>
            }
        </section>
    }
}
