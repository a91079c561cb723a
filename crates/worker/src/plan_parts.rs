//! A plan answer on the wire, in parts the page decodes one task at a time.
//!
//! A plan's rows carry their full explanation (`detail`: the rule that fired, the placement
//! pipeline, every candidate broker), so at 1,000 brokers and 200,000 bundles one plan's JSON is
//! ≈ 8 MiB: decoded in one message it was the page's one task over 50 ms (docs/performance.md,
//! rounds 16 and 20); at 1,000 brokers the per-broker usage before and after alone is ≈ 1 MiB.
//! The worker posts a `planned` answer as [`PlanRows`] messages of about [`PLAN_PART_BYTES`] each
//! (the plan's moves, splits, skips, outlook moves and brokers before and after, in order), then
//! the `planned` message itself with those lists empty and their lengths in `rows`
//! ([`plan_messages`]). Messages from one worker arrive in order, each in its own task: the page
//! decodes each part in its task ([`PlanRows::read_bytes`]), keeps them in a [`PlanAssembly`] and,
//! at the `planned` message ([`PlannedHead::read_bytes`]), puts the rows back: the plan the page
//! gets is the one the worker made, field for field. Nothing here decides anything about a plan:
//! it only cuts the answer and joins it again.

use lbplan_core::plan::diff::PlanDiff;
use lbplan_core::plan::{BrokerLoadView, Plan, PlannedSplit, PlannedUnload, SkippedDecision};
use serde::{Deserialize, Serialize};

use crate::protocol::Response;

/// Budget of one part's JSON in bytes (the dashboard's snapshot parts are the same size: a few
/// milliseconds of decoding on the page). A single row larger than this travels alone.
pub const PLAN_PART_BYTES: usize = 256 * 1024;

const ROWS_PREFIX: &str = "{\"type\":\"plan_rows\",";
const PLANNED_PREFIX: &str = "{\"type\":\"planned\",";

/// One part of a plan's rows, sent before its `planned` message: whole rows, in the plan's order.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct PlanRows {
    pub id: u32,
    #[serde(default)]
    pub unloads: Vec<PlannedUnload>,
    #[serde(default)]
    pub splits: Vec<PlannedSplit>,
    #[serde(default)]
    pub skipped: Vec<SkippedDecision>,
    /// The outlook's later-cycle moves (`Outlook::unloads_then`).
    #[serde(default)]
    pub outlook_unloads: Vec<PlannedUnload>,
    #[serde(default)]
    pub brokers_before: Vec<BrokerLoadView>,
    #[serde(default)]
    pub brokers_after: Vec<BrokerLoadView>,
}

impl PlanRows {
    /// The part in a `plan_rows` message, or `None` when `bytes` are another message.
    pub fn read_bytes(bytes: &[u8]) -> Option<Result<PlanRows, String>> {
        bytes.starts_with(ROWS_PREFIX.as_bytes()).then(|| {
            serde_json::from_slice(bytes).map_err(|e| format!("unreadable part of a plan: {e}"))
        })
    }
}

/// How many rows of each list travelled in [`PlanRows`] parts ahead of the `planned` message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowCounts {
    pub unloads: usize,
    pub splits: usize,
    pub skipped: usize,
    pub outlook_unloads: usize,
    #[serde(default)]
    pub brokers_before: usize,
    #[serde(default)]
    pub brokers_after: usize,
}

/// A `planned` message as the page reads it: the serde form of [`Response::Planned`] (a small
/// plan, or one the page's own tests write) or the head of a plan sent in parts (`rows`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct PlannedHead {
    pub id: u32,
    #[serde(default)]
    pub rows: Option<RowCounts>,
    pub result: Result<Box<Plan>, String>,
    #[serde(default)]
    pub diff: Option<Box<PlanDiff>>,
}

impl PlannedHead {
    /// The `planned` message in `bytes`, or `None` when they are another message.
    pub fn read_bytes(bytes: &[u8]) -> Option<Result<PlannedHead, String>> {
        bytes
            .starts_with(PLANNED_PREFIX.as_bytes())
            .then(|| serde_json::from_slice(bytes).map_err(|e| format!("unreadable plan: {e}")))
    }
}

#[derive(Serialize)]
struct HeadOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: u32,
    rows: RowCounts,
    result: Result<&'a Plan, ()>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<&'a PlanDiff>,
}

/// Rows serialised one by one into parts of about [`PLAN_PART_BYTES`].
struct Parts {
    id: u32,
    budget: usize,
    done: Vec<String>,
    /// The part being written: one JSON array's text per list.
    lists: [String; 6],
    bytes: usize,
}

const LISTS: [&str; 6] = [
    "unloads",
    "splits",
    "skipped",
    "outlook_unloads",
    "brokers_before",
    "brokers_after",
];

impl Parts {
    fn push<T: Serialize>(&mut self, list: usize, row: &T) {
        // Rows are strings, numbers and lists: they always serialise.
        let text = serde_json::to_string(row).unwrap_or_else(|_| "null".to_string());
        if self.bytes > 0 && self.bytes + text.len() > self.budget {
            self.close();
        }
        let Some(out) = self.lists.get_mut(list) else {
            return;
        };
        if !out.is_empty() {
            out.push(',');
        }
        self.bytes += text.len() + 1;
        out.push_str(&text);
    }

    fn close(&mut self) {
        if self.bytes == 0 {
            return;
        }
        let mut message = format!("{ROWS_PREFIX}\"id\":{}", self.id);
        for (name, list) in LISTS.iter().zip(self.lists.iter_mut()) {
            if !list.is_empty() {
                message.push_str(&format!(",\"{name}\":[{list}]"));
                list.clear();
            }
        }
        message.push('}');
        self.done.push(message);
        self.bytes = 0;
    }
}

/// The messages a `planned` answer travels as, in order: its rows in [`PlanRows`] parts of about
/// `budget` bytes, then its head. Any other answer, and a refused plan, is given back (it travels
/// as one message, [`Response::to_json`]).
pub fn plan_messages(response: Response, budget: usize) -> Result<Vec<String>, Response> {
    let Response::Planned {
        id,
        result: Ok(mut plan),
        diff,
    } = response
    else {
        return Err(response);
    };
    let mut parts = Parts {
        id,
        budget: budget.max(1),
        done: Vec::new(),
        lists: Default::default(),
        bytes: 0,
    };
    // The rows leave the plan: what stays is its head.
    let unloads = std::mem::take(&mut plan.unloads);
    let splits = std::mem::take(&mut plan.splits);
    let skipped = std::mem::take(&mut plan.skipped);
    let outlook_unloads = plan
        .outlook
        .as_mut()
        .map(|o| std::mem::take(&mut o.unloads_then))
        .unwrap_or_default();
    let brokers_before = std::mem::take(&mut plan.brokers_before);
    let brokers_after = std::mem::take(&mut plan.brokers_after);
    for row in &unloads {
        parts.push(0, row);
    }
    for row in &splits {
        parts.push(1, row);
    }
    for row in &skipped {
        parts.push(2, row);
    }
    for row in &outlook_unloads {
        parts.push(3, row);
    }
    for row in &brokers_before {
        parts.push(4, row);
    }
    for row in &brokers_after {
        parts.push(5, row);
    }
    parts.close();
    let head = HeadOut {
        kind: "planned",
        id,
        rows: RowCounts {
            unloads: unloads.len(),
            splits: splits.len(),
            skipped: skipped.len(),
            outlook_unloads: outlook_unloads.len(),
            brokers_before: brokers_before.len(),
            brokers_after: brokers_after.len(),
        },
        result: Ok(&plan),
        diff: diff.as_deref(),
    };
    let mut messages = parts.done;
    // A plan holds only strings, numbers and maps with string keys: it always serialises.
    messages.push(serde_json::to_string(&head).unwrap_or_else(|e| {
        format!(r#"{{"type":"failed","id":{id},"message":"cannot encode the plan: {e}"}}"#)
    }));
    Ok(messages)
}

/// The page's side: the parts of the plan being received, joined to its head when it comes.
#[derive(Debug, Default)]
pub struct PlanAssembly {
    rows: Option<PlanRows>,
}

impl PlanAssembly {
    /// Keeps one part (a part of another plan drops what an unfinished one left).
    pub fn add(&mut self, part: PlanRows) {
        match &mut self.rows {
            Some(rows) if rows.id == part.id => {
                rows.unloads.extend(part.unloads);
                rows.splits.extend(part.splits);
                rows.skipped.extend(part.skipped);
                rows.outlook_unloads.extend(part.outlook_unloads);
                rows.brokers_before.extend(part.brokers_before);
                rows.brokers_after.extend(part.brokers_after);
            }
            _ => self.rows = Some(part),
        }
    }

    /// The `planned` answer `head` closes, with its rows put back: a [`Response::Planned`], or a
    /// [`Response::Failed`] when parts are missing.
    pub fn finish(&mut self, head: PlannedHead) -> Response {
        let PlannedHead {
            id,
            rows: counts,
            result,
            diff,
        } = head;
        let rows = self.rows.take().filter(|r| r.id == id).unwrap_or_default();
        let (counts, mut plan) = match (counts, result) {
            (Some(counts), Ok(plan)) => (counts, plan),
            // A plan in one message (or a refusal): as it came.
            (_, result) => return Response::Planned { id, result, diff },
        };
        let got = RowCounts {
            unloads: rows.unloads.len(),
            splits: rows.splits.len(),
            skipped: rows.skipped.len(),
            outlook_unloads: rows.outlook_unloads.len(),
            brokers_before: rows.brokers_before.len(),
            brokers_after: rows.brokers_after.len(),
        };
        if got != counts {
            return Response::Failed {
                id,
                message: format!(
                    "the plan's parts did not all arrive ({got:?} of {counts:?}): plan again"
                ),
            };
        }
        plan.unloads = rows.unloads;
        plan.splits = rows.splits;
        plan.skipped = rows.skipped;
        plan.brokers_before = rows.brokers_before;
        plan.brokers_after = rows.brokers_after;
        if let Some(outlook) = &mut plan.outlook {
            outlook.unloads_then = rows.outlook_unloads;
        }
        Response::Planned {
            id,
            result: Ok(plan),
            diff,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lbplan_core::plan::{PlanRequest, make_plan};

    fn demo_plan() -> Plan {
        let demo = lbplan_core::synthetic::demo().unwrap();
        make_plan(&demo, &PlanRequest::leader_cycle()).unwrap()
    }

    /// What the page does with the messages, in order.
    fn receive(messages: &[String]) -> Response {
        let mut assembly = PlanAssembly::default();
        let mut answer = None;
        for m in messages {
            if let Some(part) = PlanRows::read_bytes(m.as_bytes()) {
                assert!(answer.is_none(), "a part after the head");
                assembly.add(part.unwrap());
            } else {
                let head = PlannedHead::read_bytes(m.as_bytes()).expect("a planned message");
                answer = Some(assembly.finish(head.unwrap()));
            }
        }
        answer.expect("no head")
    }

    #[test]
    fn a_plan_in_parts_arrives_whole() {
        let plan = demo_plan();
        assert!(!plan.unloads.is_empty() && plan.unloads.iter().all(|u| u.detail.is_some()));
        let answer = Response::Planned {
            id: 5,
            result: Ok(Box::new(plan.clone())),
            diff: None,
        };
        // One row per part, a few rows per part, everything in one part.
        for budget in [1, 4096, PLAN_PART_BYTES] {
            let messages = plan_messages(answer.clone(), budget).unwrap();
            let rows = plan.unloads.len()
                + plan.splits.len()
                + plan.skipped.len()
                + plan.outlook.as_ref().map_or(0, |o| o.unloads_then.len())
                + plan.brokers_before.len()
                + plan.brokers_after.len();
            if budget == 1 {
                assert_eq!(messages.len(), rows + 1);
            }
            for m in &messages[..messages.len() - 1] {
                // A part is over the budget only when it is one row.
                assert!(m.len() <= budget + 200 || budget == 1, "{} bytes", m.len());
            }
            assert_eq!(receive(&messages), answer, "budget {budget}");
        }
        // The head is the plan without its rows and brokers: its settings, verdict and balance.
        let messages = plan_messages(answer.clone(), PLAN_PART_BYTES).unwrap();
        let head = messages.last().unwrap();
        assert!(
            !head.contains("\"cpu_pct\""),
            "a broker's usage in the head"
        );
        assert!(
            head.len() < answer.to_json().len() / 4,
            "{} bytes",
            head.len()
        );
    }

    #[test]
    fn a_missing_part_fails_and_other_answers_pass_through() {
        let plan = demo_plan();
        let answer = Response::Planned {
            id: 6,
            result: Ok(Box::new(plan)),
            diff: None,
        };
        let messages = plan_messages(answer, 1).unwrap();
        assert!(messages.len() > 2);
        let mut without_first = messages[1..].to_vec();
        assert!(matches!(
            receive(&without_first),
            Response::Failed { id: 6, .. }
        ));
        // A part of an older plan left behind is dropped when the next plan's parts come.
        without_first.insert(0, messages[0].replace("\"id\":6", "\"id\":4"));
        assert!(matches!(
            receive(&without_first),
            Response::Failed { id: 6, .. }
        ));
        let mut older_then_all = vec![messages[0].replace("\"id\":6", "\"id\":4")];
        older_then_all.extend(messages.iter().cloned());
        assert!(matches!(
            receive(&older_then_all),
            Response::Planned {
                id: 6,
                result: Ok(_),
                ..
            }
        ));

        // A refusal is one message, read as the serde form of `planned`.
        let refused = Response::Planned {
            id: 7,
            result: Err("no brokers".to_string()),
            diff: None,
        };
        let back = plan_messages(refused.clone(), 1).unwrap_err();
        assert_eq!(back, refused);
        assert_eq!(receive(&[refused.to_json()]), refused);
        // So is a plan a page's test writes whole.
        let whole = Response::Planned {
            id: 8,
            result: Ok(Box::new(demo_plan())),
            diff: None,
        };
        assert_eq!(receive(&[whole.to_json()]), whole);
        assert!(plan_messages(Response::Ready { format_version: 1 }, 1).is_err());
    }
}
