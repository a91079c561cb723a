//! Elements whose inline style is computed (a broker's colour swatch, a usage bar's width, the map
//! tooltip's position). The style is set through the CSSOM after rendering, not as a `style`
//! attribute, so the page runs under a strict `style-src 'self'` Content-Security-Policy (which
//! refuses style attributes but not CSSOM writes).

use yew::prelude::*;

#[derive(Clone, Properties, PartialEq)]
pub struct StyledProps {
    /// `span` or `div`.
    #[prop_or("span")]
    pub tag: &'static str,
    #[prop_or_default]
    pub class: Classes,
    /// CSS properties and values, e.g. `("background", "#1571d8")`.
    pub css: Vec<(&'static str, String)>,
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    #[prop_or_default]
    pub role: Option<AttrValue>,
    #[prop_or_default]
    pub children: Html,
}

#[function_component(Styled)]
pub fn styled(p: &StyledProps) -> Html {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with(p.css.clone(), move |css| {
            if let Some(el) = node.cast::<web_sys::HtmlElement>() {
                let style = el.style();
                for (k, v) in css {
                    let _ = style.set_property(k, v);
                }
            }
        });
    }
    html! {
        <@{p.tag} ref={node} class={p.class.clone()} data-testid={p.testid.clone()} role={p.role.clone()}>
            { p.children.clone() }
        </@>
    }
}

/// A small square in a colour (`#rrggbb`).
#[derive(Clone, Properties, PartialEq)]
pub struct SwatchProps {
    pub colour: AttrValue,
}

#[function_component(Swatch)]
pub fn swatch(p: &SwatchProps) -> Html {
    html! { <Styled class="swatch" css={vec![("background", p.colour.to_string())]} /> }
}
