//! Progress on stderr: one line per finished request and per retry, so an operator sees what is
//! slow or failing while `collect` runs, and warnings. Every line goes through the [`Redactor`], then is escaped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::auth::Redactor;

pub struct Progress {
    enabled: bool,
    redactor: Redactor,
    done: AtomicUsize,
    total: AtomicUsize,
}

impl Progress {
    pub fn new(enabled: bool, redactor: Redactor) -> Self {
        Self {
            enabled,
            redactor,
            done: AtomicUsize::new(0),
            total: AtomicUsize::new(0),
        }
    }

    /// Escaped: an admin server's error text is quoted in these lines.
    fn line(&self, s: &str) {
        if self.enabled {
            crate::output::message("collect: ", &self.redactor.text(s));
        }
    }

    pub fn note(&self, s: &str) {
        self.line(s);
    }

    /// A warning (a cut answer, a refused name): printed even with `--quiet`, which silences only
    /// progress, because it says the server sent something it should not have.
    pub fn warn(&self, s: &str) {
        crate::output::message("warning: collect: ", &self.redactor.text(s));
    }

    /// A phase of `n` requests starts.
    pub fn phase(&self, name: &str, n: usize) {
        self.total.fetch_add(n, Ordering::Relaxed);
        self.line(&format!("{name}: {n} request(s)"));
    }

    pub fn retry(&self, url: &str, attempt: u32, wait: Duration, why: &str) {
        self.line(&format!(
            "retrying {url} (attempt {attempt}) in {} ms: {why}",
            wait.as_millis()
        ));
    }

    pub fn finished(&self, url: &str, outcome: &str) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let total = self.total.load(Ordering::Relaxed);
        self.line(&format!("[{done}/{total}] GET {url}: {outcome}"));
    }
}
