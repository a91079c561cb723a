//! Following `lbplan watch --serve` (the page opened with `?watch`): every interval the page asks
//! its own origin for `/watch/status.json` (core's `watch::page::PageStatus`), and only when the
//! capture times there changed fetches the newer snapshot (onto the one import path, keeping the
//! operator's what-ifs) and the History view (`/watch/history-view.json`, core's
//! `watch::live::LiveView`). A bar says which snapshot is shown and when the next check is, with
//! a Pause button; a failed poll is shown and the next one backs off (core's `next_poll_ms`).
//! Nothing goes to another origin: the paths are fixed and `loader` refuses any other origin.

use std::rc::Rc;

use gloo::timers::callback::{Interval, Timeout};
use lbplan_core::watch::live::{LIVE_VIEW_FORMAT_VERSION, LiveView};
use lbplan_core::watch::page::{PAGE_STATUS_FORMAT_VERSION, PageStatus, next_poll_ms};
use yew::prelude::*;

use crate::loader::fetch_json;
use crate::state::Action;
use crate::worker_import::WorkerImports;

const STATUS_URL: &str = "/watch/status.json";
const LATEST_URL: &str = "/watch/latest.json";
const HISTORY_URL: &str = "/watch/history-view.json";

#[derive(Clone, PartialEq, Properties)]
pub struct LiveBarProps {
    pub imports: WorkerImports,
    /// Capture time of the snapshot the page shows.
    pub shown_at: Option<i64>,
}

pub enum Msg {
    Poll,
    Status(Result<PageStatus, String>),
    History(Result<Box<LiveView>, String>),
    Pause,
    Resume,
    Tick,
}

pub struct LiveBar {
    paused: bool,
    /// Failed polls in a row (the next waits longer).
    failures: u32,
    interval_ms: u64,
    /// When the next poll runs (ms since the epoch).
    next_at: Option<f64>,
    timer: Option<Timeout>,
    _ticker: Interval,
    error: Option<String>,
    /// The watch's latest round gave no snapshot.
    watch_failing: bool,
    /// The latest snapshot asked for (not asked again while it loads).
    asked_latest: Option<i64>,
    /// The History view's latest capture time fetched or being fetched.
    asked_history: Option<i64>,
    polls: u64,
}

fn now() -> f64 {
    js_sys::Date::now()
}

/// `12:34:56 UTC` of a capture time.
fn clock(ms: i64) -> String {
    let iso = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64))
        .to_iso_string()
        .as_string()
        .unwrap_or_default();
    format!("{} UTC", iso.get(11..19).unwrap_or("?"))
}

impl Component for LiveBar {
    type Message = Msg;
    type Properties = LiveBarProps;

    fn create(ctx: &Context<Self>) -> Self {
        ctx.link().send_message(Msg::Poll);
        Self {
            paused: false,
            failures: 0,
            interval_ms: 60_000,
            next_at: None,
            timer: None,
            _ticker: {
                let link = ctx.link().clone();
                Interval::new(1000, move || link.send_message(Msg::Tick))
            },
            error: None,
            watch_failing: false,
            asked_latest: None,
            asked_history: None,
            polls: 0,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Poll => {
                self.timer = None;
                self.next_at = None;
                if self.paused {
                    return true;
                }
                self.polls += 1;
                ctx.link().send_future(async {
                    Msg::Status(fetch_json::<PageStatus>(STATUS_URL).await.and_then(|s| {
                        if s.format_version == PAGE_STATUS_FORMAT_VERSION {
                            Ok(s)
                        } else {
                            Err(format!(
                                "{STATUS_URL}: format_version {} (this page reads {PAGE_STATUS_FORMAT_VERSION}): reload the page",
                                s.format_version
                            ))
                        }
                    }))
                });
            }
            Msg::Status(Ok(status)) => {
                self.failures = 0;
                self.error = None;
                self.interval_ms = status.interval_ms;
                self.watch_failing = !status.last_round_ok;
                self.follow(ctx, &status);
                self.schedule(ctx);
            }
            Msg::Status(Err(e)) => {
                self.failures = self.failures.saturating_add(1);
                self.error = Some(format!("The watch did not answer: {e}"));
                self.schedule(ctx);
            }
            Msg::History(Ok(view)) => ctx
                .props()
                .imports
                .dispatcher
                .dispatch(Action::LiveHistory(Ok(Rc::new(*view)))),
            Msg::History(Err(e)) => {
                // Asked again at the next poll.
                self.asked_history = None;
                self.error = Some(format!("The watch's history could not be read: {e}"));
            }
            Msg::Pause => {
                self.paused = true;
                self.timer = None;
                self.next_at = None;
            }
            Msg::Resume => {
                self.paused = false;
                ctx.link().send_message(Msg::Poll);
            }
            Msg::Tick => return !self.paused && self.next_at.is_some(),
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let shown = ctx.props().shown_at;
        let next = match (self.paused, self.next_at) {
            (true, _) => "paused".to_string(),
            (false, Some(at)) => format!(
                "next check in {} s",
                ((at - now()) / 1000.0).ceil().max(0.0) as u64
            ),
            (false, None) => "checking…".to_string(),
        };
        let paused = self.paused;
        let label = if paused { "Resume" } else { "Pause" };
        let on_click = ctx.link().callback(
            move |_: MouseEvent| {
                if paused { Msg::Resume } else { Msg::Pause }
            },
        );
        html! {
            <div class="panel live-bar small" role="status" data-testid="live-bar"
                data-paused={self.paused.to_string()} data-polls={self.polls.to_string()}
                data-shown-at={shown.map(|t| t.to_string()).unwrap_or_default()}>
                <strong>{ "Live: " }</strong>
                <span data-testid="live-shown">{ match shown {
                    Some(t) => format!("snapshot of {}", clock(t)),
                    None => "waiting for the watch's first snapshot".to_string(),
                } }</span>
                { ", " }<span data-testid="live-next">{ next }</span>{ " " }
                <button type="button" data-testid="live-pause" onclick={on_click}>{ label }</button>
                if self.watch_failing {
                    <span class="muted" data-testid="live-watch-failing">
                        { " The watch's latest round got no snapshot (the cluster down, slow or answering garbage): the last good one is shown." }
                    </span>
                }
                if let Some(e) = &self.error {
                    <span class="error" role="alert" data-testid="live-error">
                        { format!(" {e}; trying again with a longer wait.") }
                    </span>
                }
            </div>
        }
    }
}

impl LiveBar {
    fn schedule(&mut self, ctx: &Context<Self>) {
        if self.paused {
            return;
        }
        let wait = next_poll_ms(self.interval_ms, self.failures);
        self.next_at = Some(now() + wait as f64);
        let link = ctx.link().clone();
        let wait = u32::try_from(wait).unwrap_or(u32::MAX);
        self.timer = Some(Timeout::new(wait, move || link.send_message(Msg::Poll)));
    }

    /// Fetches what changed since the page last asked.
    fn follow(&mut self, ctx: &Context<Self>, status: &PageStatus) {
        let props = ctx.props();
        if let Some(at) = status.latest_captured_at_ms {
            if props.shown_at.is_none() && self.asked_latest.is_none() {
                // The page is still importing its first snapshot, the watch's latest.
                self.asked_latest = Some(at);
            } else if props.shown_at != Some(at) && self.asked_latest != Some(at) {
                self.asked_latest = Some(at);
                let imports = props.imports.clone();
                yew::platform::spawn_local(async move {
                    // The operator's what-ifs are kept (those naming what is gone are set aside).
                    crate::app::load_url(&imports, LATEST_URL.to_string(), true, None).await;
                });
            }
        }
        if let Some(at) = status.history_latest_ms
            && self.asked_history != Some(at)
        {
            self.asked_history = Some(at);
            ctx.link().send_future(async {
                Msg::History(fetch_json::<LiveView>(HISTORY_URL).await.and_then(|v| {
                    if v.format_version == LIVE_VIEW_FORMAT_VERSION {
                        Ok(Box::new(v))
                    } else {
                        Err(format!(
                            "{HISTORY_URL}: format_version {} (this page reads {LIVE_VIEW_FORMAT_VERSION}): reload the page",
                            v.format_version
                        ))
                    }
                }))
            });
        }
    }
}
