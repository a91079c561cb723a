//! The error panel: what went wrong, in words, instead of a blank page.

use yew::prelude::*;

#[derive(Clone, PartialEq, Properties)]
pub struct ErrorBannerProps {
    pub message: AttrValue,
}

#[function_component(ErrorBanner)]
pub fn error_banner(props: &ErrorBannerProps) -> Html {
    html! {
        <div class="error-banner" role="alert" data-testid="error-banner">
            <strong>{ "Error: " }</strong>{ props.message.clone() }
        </div>
    }
}
