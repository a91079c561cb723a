//! A large view shown in steps, a frame apart. At 1,000 brokers the plan's lists, its usage bars
//! and its export text together cost 60–85 ms of rendering, style, layout and paint in one task of
//! the page's thread, over the 50 ms budget. Shown in steps, each task carries only its own part:
//! the view renders its first part at once and each further part in a task after the browser
//! has drawn a frame.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use gloo::render::{AnimationFrame, request_animation_frame};
use gloo::timers::callback::Timeout;
use yew::prelude::*;

/// How long a step waits for a frame before it goes on without one: a hidden tab draws no frames,
/// and its view must still complete.
const FRAME_WAIT_MS: u32 = 200;

/// What the next step waits on (held, not read: dropping it cancels the step).
#[derive(Default)]
struct Waiting {
    _frame: Option<AnimationFrame>,
    timer: Option<Timeout>,
}

/// The step to run, shared by the frame's path and the fallback timer: whichever comes first runs
/// it.
type Step = Rc<Cell<Option<Box<dyn FnOnce()>>>>;

fn run(step: &Step) {
    if let Some(f) = step.take() {
        f();
    }
}

/// Runs `then` in a task after the browser's next frame (or after [`FRAME_WAIT_MS`] without one).
fn after_next_frame(waiting: &Rc<RefCell<Waiting>>, then: impl FnOnce() + 'static) {
    let step: Step = Rc::new(Cell::new(Some(Box::new(then))));
    let frame = {
        let (step, waiting): (Step, Weak<RefCell<Waiting>>) =
            (step.clone(), Rc::downgrade(waiting));
        request_animation_frame(move |_| {
            // The frame's style, layout and paint follow this callback in its task; the step runs
            // in a task of its own after them (the fallback timer is dropped: cancelled).
            if let Some(w) = waiting.upgrade() {
                let step = step.clone();
                w.borrow_mut().timer = Some(Timeout::new(0, move || run(&step)));
            }
        })
    };
    let fallback = Timeout::new(FRAME_WAIT_MS, move || run(&step));
    *waiting.borrow_mut() = Waiting {
        _frame: Some(frame),
        timer: Some(fallback),
    };
}

/// How many of `steps` further parts of the view to show: 0 at its first render, then one more
/// after each frame until all are shown. A view that stays mounted keeps them all (a new plan in
/// the same view is patched in place, not shown in steps again).
#[hook]
pub fn use_steps_shown(steps: u32) -> u32 {
    let shown = use_state(|| 0_u32);
    let waiting = use_mut_ref(Waiting::default);
    {
        let (shown, waiting) = (shown.clone(), waiting.clone());
        use_effect_with(*shown, move |&n| {
            if n < steps {
                let shown = shown.clone();
                after_next_frame(&waiting, move || shown.set(n + 1));
            }
            move || *waiting.borrow_mut() = Waiting::default()
        });
    }
    *shown
}
