//! The load model checked against a recorded series (core's `load::accuracy`): for each resource,
//! how far the usage the planner predicts after a move was from what the next snapshot showed.
//! It is what a plan's "after" numbers can be trusted to, on this cluster.

use lbplan_core::load::accuracy::{CLOSE_POINTS, ModelAccuracy};
use yew::prelude::*;

use crate::format::pct;

#[derive(Properties, PartialEq)]
pub struct ModelAccuracyProps {
    pub accuracy: ModelAccuracy,
}

#[function_component(ModelAccuracyView)]
pub fn model_accuracy_view(p: &ModelAccuracyProps) -> Html {
    let a = &p.accuracy;
    if a.moves == 0 {
        let line = a.lines().into_iter().next().unwrap_or_default();
        return html! {
            <section class="model-accuracy" data-testid="history-model">
                <h3>{ "Load model" }</h3>
                <p class="small muted" data-testid="history-model-none">{ line }</p>
            </section>
        };
    }
    html! {
        <section class="model-accuracy" data-testid="history-model">
            <h3>{ "Load model, checked against this series" }</h3>
            <p class="small muted">
                { format!(
                    "After each of the {} moves (in {} steps) the planner's one load model predicts the usage of \
                     the source and the destination; each prediction is compared here with the next snapshot. \
                     A plan's \"after\" numbers on this cluster are as close as this.",
                    a.moves, a.steps_with_moves
                ) }
            </p>
            <table class="data small" data-testid="history-model-table">
                <thead><tr>
                    <th scope="col">{ "resource" }</th>
                    <th scope="col" class="num">{ "predictions" }</th>
                    <th scope="col" class="num">{ format!("within ±{CLOSE_POINTS:.0} points") }</th>
                    <th scope="col" class="num">{ "mean |error|" }</th>
                    <th scope="col" class="num">{ "90th percentile" }</th>
                    <th scope="col" class="num" title="predicted − observed: positive when the model over-predicts">{ "bias" }</th>
                </tr></thead>
                <tbody>
                    { for a.resources.iter().map(|r| html! {
                        <tr data-testid="history-model-row" data-resource={r.resource.clone()}>
                            <td class="mono">{ r.resource.clone() }</td>
                            <td class="num">{ r.predictions }</td>
                            <td class="num" data-testid="history-model-within">{ pct(100.0 * r.within_3_points_fraction) }</td>
                            <td class="num">{ format!("{:.1} points", r.mean_abs_error_points) }</td>
                            <td class="num">{ format!("{:.1} points", r.p90_abs_error_points) }</td>
                            <td class="num">{ format!("{:+.1}", r.mean_error_points) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </section>
    }
}
