//! Reading log files into actions: bytes in chunks (any size, so a file is never held whole), cut
//! into lines of at most [`MAX_LINE_BYTES`], each split ([`line`]) and recognised ([`messages`]).
//! A gzip file (rolled Log4j files are `.log.gz`) is inflated as it is read.

use std::collections::VecDeque;
use std::io::Read;

use super::line::{NotEvent, split};
use super::messages::{Recognized, recognize};
use super::types::{
    ActionKind, LeaderLogError, LogFileSummary, LoggedAction, MAX_ACTIONS, MAX_LINE_BYTES,
    MAX_PENDING_WORDS,
};

/// A strategy's words wait this long for their action (one shedding cycle logs both together).
const WORDS_WINDOW_MS: i64 = 60_000;

struct Words {
    at_ms: i64,
    strategy: String,
    broker: Option<String>,
    bundle: Option<String>,
    text: String,
}

/// The actions of every file read so far, and each file's summary.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct LeaderLog {
    pub actions: Vec<LoggedAction>,
    pub files: Vec<LogFileSummary>,
}

/// Reads one file into a [`LeaderLog`]: `push` its bytes, then `finish`.
pub struct LogReader<'a> {
    log: &'a mut LeaderLog,
    summary: LogFileSummary,
    buf: Vec<u8>,
    /// The current line passed the cap: the rest of it is dropped.
    too_long: bool,
    words: VecDeque<Words>,
    /// Index in `log.actions` of this file's first action.
    first_action: usize,
}

impl<'a> LogReader<'a> {
    pub fn new(log: &'a mut LeaderLog, file: &str) -> Self {
        let first_action = log.actions.len();
        Self {
            log,
            summary: LogFileSummary {
                file: file.to_string(),
                ..LogFileSummary::default()
            },
            buf: Vec::new(),
            too_long: false,
            words: VecDeque::new(),
            first_action,
        }
    }

    /// Lines read so far (the one being read is the next).
    pub fn lines_read(&self) -> u64 {
        self.summary.lines
    }

    /// Reads the next bytes of the file.
    pub fn push(&mut self, mut chunk: &[u8]) -> Result<(), LeaderLogError> {
        while !chunk.is_empty() {
            let (part, rest, end) = match chunk.iter().position(|b| *b == b'\n') {
                Some(i) => (
                    chunk.get(..i).unwrap_or(&[]),
                    chunk.get(i + 1..).unwrap_or(&[]),
                    true,
                ),
                None => (chunk, &[][..], false),
            };
            if !self.too_long {
                if self.buf.len() + part.len() > MAX_LINE_BYTES {
                    self.too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(part);
                }
            }
            if end {
                self.end_line()?;
            }
            chunk = rest;
        }
        Ok(())
    }

    /// Reads the last line (if the file does not end in a newline) and files the summary.
    pub fn finish(mut self) -> Result<(), LeaderLogError> {
        if !self.buf.is_empty() || self.too_long {
            self.end_line()?;
        }
        self.summary.actions = self.log.actions.len() - self.first_action;
        self.log.files.push(self.summary);
        Ok(())
    }

    fn skip(&mut self, reason: &str) {
        *self.summary.skipped.entry(reason.to_string()).or_insert(0) += 1;
    }

    fn end_line(&mut self) -> Result<(), LeaderLogError> {
        self.summary.lines += 1;
        if std::mem::take(&mut self.too_long) {
            self.skip("too_long");
            return Ok(());
        }
        let bytes = std::mem::take(&mut self.buf);
        let Ok(text) = std::str::from_utf8(&bytes) else {
            self.skip("not_utf8");
            return Ok(());
        };
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text.trim().is_empty() {
            return Ok(());
        }
        let event = match split(text) {
            Ok(e) => e,
            Err(NotEvent::NoTimestamp) => {
                self.skip("no_timestamp");
                return Ok(());
            }
            Err(NotEvent::Garbled) => {
                self.skip("garbled");
                return Ok(());
            }
        };
        let at_ms = event.at_ms;
        self.summary.first_ms = Some(self.summary.first_ms.map_or(at_ms, |f| f.min(at_ms)));
        self.summary.last_ms = Some(self.summary.last_ms.map_or(at_ms, |l| l.max(at_ms)));
        match recognize(&event) {
            Recognized::Other => {}
            Recognized::Garbled => self.skip("garbled_action"),
            Recognized::Leader { broker } => {
                if broker.is_some() {
                    self.summary.leader = broker;
                }
            }
            Recognized::Words {
                strategy,
                broker,
                bundle,
                text,
            } => {
                if self.words.len() >= MAX_PENDING_WORDS {
                    self.words.pop_front();
                }
                self.words.push_back(Words {
                    at_ms,
                    strategy,
                    broker,
                    bundle,
                    text,
                });
            }
            Recognized::Failed { bundle } => {
                let start = self
                    .first_action
                    .max(self.log.actions.len().saturating_sub(16));
                if let Some(a) = self
                    .log
                    .actions
                    .get_mut(start..)
                    .and_then(|tail| tail.iter_mut().rev().find(|a| a.bundle == bundle))
                {
                    a.failed = true;
                }
            }
            Recognized::Unload {
                strategy,
                bundle,
                from,
                to,
            } => {
                let words = self.words_for(at_ms, &strategy, Some(&from), &bundle);
                self.add(LoggedAction {
                    kind: ActionKind::Unload,
                    at_ms,
                    bundle,
                    from,
                    to,
                    strategy,
                    words,
                    unloading: None,
                    failed: false,
                    file: self.summary.file.clone(),
                    line: self.summary.lines,
                })?;
            }
            Recognized::Split { bundle, unloading } => {
                let words = self.words_for(at_ms, "", None, &bundle);
                let strategy = if unloading.is_some() {
                    "BundleSplitterTask"
                } else {
                    "DefaultNamespaceBundleSplitStrategyImpl"
                };
                self.add(LoggedAction {
                    kind: ActionKind::Split,
                    at_ms,
                    bundle,
                    from: String::new(),
                    to: None,
                    strategy: strategy.to_string(),
                    words,
                    unloading,
                    failed: false,
                    file: self.summary.file.clone(),
                    line: self.summary.lines,
                })?;
            }
        }
        Ok(())
    }

    fn add(&mut self, action: LoggedAction) -> Result<(), LeaderLogError> {
        if self.log.actions.len() >= MAX_ACTIONS {
            return Err(LeaderLogError::TooManyActions {
                file: action.file,
                line: action.line,
            });
        }
        self.log.actions.push(action);
        Ok(())
    }

    /// The latest words within a cycle about this bundle, else this broker, else (UniformLoadShedder
    /// names neither) the same strategy's.
    fn words_for(
        &self,
        at_ms: i64,
        strategy: &str,
        broker: Option<&str>,
        bundle: &str,
    ) -> Option<String> {
        let recent = || {
            self.words
                .iter()
                .rev()
                .filter(move |w| at_ms - w.at_ms <= WORDS_WINDOW_MS && w.at_ms <= at_ms)
        };
        recent()
            .find(|w| w.bundle.as_deref() == Some(bundle))
            .or_else(|| recent().find(|w| broker.is_some() && w.broker.as_deref() == broker))
            .or_else(|| {
                recent()
                    .find(|w| w.broker.is_none() && w.bundle.is_none() && w.strategy == strategy)
            })
            .map(|w| w.text.clone())
    }
}

/// Reads a whole file's bytes (plain, or gzip by its magic number) into `log`, inflating in chunks.
pub fn read_bytes(log: &mut LeaderLog, file: &str, bytes: &[u8]) -> Result<(), LeaderLogError> {
    let mut reader = LogReader::new(log, file);
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut gz = flate2::read::MultiGzDecoder::new(bytes);
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let n = gz.read(&mut chunk).map_err(|e| LeaderLogError::Gzip {
                file: file.to_string(),
                why: e.to_string(),
            })?;
            if n == 0 {
                break;
            }
            reader.push(chunk.get(..n).unwrap_or(&[]))?;
        }
    } else {
        reader.push(bytes)?;
    }
    reader.finish()
}

impl LeaderLog {
    /// The actions in time order (files may be given in any order; a stable sort keeps each
    /// file's order for equal times).
    pub fn sort(&mut self) {
        self.actions.sort_by_key(|a| a.at_ms);
    }
}
