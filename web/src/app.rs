//! The root component: fetches the demo snapshot on start and shows it, or shows why it could not.

use yew::prelude::*;

use crate::components::{BrokerTable, ErrorBanner, Header, NamespaceList};
use crate::state::{Action, AppState, DEMO_SNAPSHOT_URL, Status};

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(AppState::default);
    {
        let state = state.clone();
        use_effect_with((), move |_| {
            yew::platform::spawn_local(async move {
                let result = fetch_text(DEMO_SNAPSHOT_URL).await;
                state.dispatch(Action::Fetched {
                    source: DEMO_SNAPSHOT_URL.to_string(),
                    result,
                });
            });
            || ()
        });
    }
    let body = match &state.status {
        Status::Loading => html! {
            <p class="loading" data-testid="loading">{ "Loading the demo cluster…" }</p>
        },
        Status::Failed(message) => html! { <ErrorBanner message={message.clone()} /> },
        Status::Loaded(dashboard) => html! {
            <>
                <Header dashboard={dashboard.clone()} />
                if !dashboard.warnings.is_empty() {
                    <ul class="warnings" data-testid="warnings">
                        { for dashboard.warnings.iter().map(|w| html! { <li>{ w }</li> }) }
                    </ul>
                }
                <BrokerTable dashboard={dashboard.clone()} />
                <NamespaceList dashboard={dashboard.clone()} />
            </>
        },
    };
    html! { <main class="app">{ body }</main> }
}

/// GETs a URL as text; any failure (network, HTTP status) becomes a sentence.
async fn fetch_text(url: &str) -> Result<String, String> {
    let response = gloo::net::http::Request::get(url)
        .send()
        .await
        .map_err(|e| format!("request failed: {e}"))?;
    if !response.ok() {
        return Err(format!(
            "HTTP {} {}",
            response.status(),
            response.status_text()
        ));
    }
    response
        .text()
        .await
        .map_err(|e| format!("could not read the response: {e}"))
}
