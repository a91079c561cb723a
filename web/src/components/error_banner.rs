//! The error panel: what went wrong, in words, instead of a blank page; dismissable when the page
//! still has something to show.

use yew::prelude::*;

#[derive(Clone, PartialEq, Properties)]
pub struct ErrorBannerProps {
    pub message: AttrValue,
    #[prop_or_default]
    pub on_dismiss: Option<Callback<()>>,
}

#[function_component(ErrorBanner)]
pub fn error_banner(props: &ErrorBannerProps) -> Html {
    html! {
        <div class="error-banner" role="alert" data-testid="error-banner">
            <strong>{ "Error: " }</strong>{ props.message.clone() }
            if let Some(cb) = props.on_dismiss.clone() {
                <button type="button" class="dismiss" aria-label="Dismiss" onclick={move |_| cb.emit(())}>{ "×" }</button>
            }
        </div>
    }
}
