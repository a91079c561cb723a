//! Ctrl-C (SIGINT), SIGTERM, SIGHUP (the ssh session dropped) and SIGQUIT (Ctrl-\) during
//! `lbplan apply` and `lbplan watch`: the handler only raises a flag (all a signal handler
//! may safely do); the run checks it between calls and while waiting, then stops (apply restores
//! the paused shedding setting and writes the journal; watch finishes its round's write). A call
//! already in flight finishes first (its deadline bounds it). Uses `signal(2)` through `libc`,
//! which the CLI already depends on.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Turns SIGINT, SIGTERM, SIGHUP and SIGQUIT into the flag [`interrupted`] reads: each of them
/// would otherwise end the process with shedding still paused.
pub fn install() {
    #[cfg(unix)]
    {
        let handler = on_signal as extern "C" fn(libc::c_int);
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe {
            libc::signal(libc::SIGINT, handler as libc::sighandler_t);
            libc::signal(libc::SIGTERM, handler as libc::sighandler_t);
            libc::signal(libc::SIGHUP, handler as libc::sighandler_t);
            libc::signal(libc::SIGQUIT, handler as libc::sighandler_t);
        }
    }
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Sleeps `total` in short slices; `false` when a signal came first.
pub fn sleep(total: Duration) -> bool {
    let slice = Duration::from_millis(100);
    let mut left = total;
    while !left.is_zero() {
        if interrupted() {
            return false;
        }
        let step = left.min(slice);
        std::thread::sleep(step);
        left = left.saturating_sub(step);
    }
    !interrupted()
}
