//! Batches that respect the release's destination affinity. Before apache/pulsar#25518 (4.0.10,
//! 4.2.1, 5.0.0-M1; no 4.1 release) the modular manager keyed `unload --destinationBroker`'s
//! affinity by the bare range (`0x00000000_0xffffffff`): two unloads with destinations whose
//! bundles share a range (two single-bundle namespaces, say) sent together overwrite each other's
//! destination, and one bundle lands on the other's broker. On such a release a batch never holds
//! two of them: the second starts a new batch, sent after the first is verified.

use super::ApplyStep;
use super::StepKind;
use crate::config::Profile;

/// The batches to send and why any batch was cut short.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AffinityBatches {
    pub batches: Vec<Vec<usize>>,
    /// One line per cut: the two bundles, their range, and the PR.
    pub notes: Vec<String>,
    /// The position (in `steps`) of each step that starts a batch early, with its note.
    pub cuts: Vec<(usize, String)>,
}

/// The range of a full bundle name (`tenant/ns/0x…_0x…` → `0x…_0x…`).
fn range_of(bundle: &str) -> &str {
    bundle.rsplit('/').next().unwrap_or(bundle)
}

/// Whether a plan made with `profile` (a plan's `profile` text) keys affinity by range. An
/// unreadable profile is taken to (the safe side: it only splits batches).
pub fn affinity_by_range(profile: &str) -> bool {
    Profile::parse(profile).is_none_or(|p| !p.behaviour().affinity_by_full_bundle_name)
}

/// `pending` (positions in `steps`) cut into batches of at most `size` (at least 1), in order;
/// with `by_range`, a step that would share a range with a destination unload already in the batch
/// starts the next batch.
pub fn affinity_batches(
    steps: &[ApplyStep],
    pending: &[usize],
    size: usize,
    by_range: bool,
) -> AffinityBatches {
    let size = size.max(1);
    let mut out = AffinityBatches::default();
    let mut current: Vec<usize> = Vec::new();
    let mut ranges: Vec<(String, String)> = Vec::new();
    for &pos in pending {
        let keyed = steps.get(pos).and_then(|s| {
            (by_range && s.step.kind == StepKind::Unload && s.step.destination.is_some())
                .then_some(s.step.bundle.as_deref())
                .flatten()
        });
        let clash = keyed.and_then(|b| {
            ranges
                .iter()
                .find(|(r, _)| r == range_of(b))
                .map(|(r, other)| (b, r.clone(), other.clone()))
        });
        if let Some((b, r, other)) = &clash {
            let note = format!(
                "{b} waits for the next batch: {other} in the same batch also names a destination and has the same range {r}; before apache/pulsar#25518 (4.0.10, 4.2.1, 5.0.0-M1) the leader keys destination affinity by range, so one would go to the other's broker"
            );
            out.cuts.push((pos, note.clone()));
            out.notes.push(note);
        }
        if current.len() >= size || clash.is_some() {
            out.batches.push(std::mem::take(&mut current));
            ranges.clear();
        }
        current.push(pos);
        if let Some(b) = keyed {
            ranges.push((range_of(b).to_string(), b.to_string()));
        }
    }
    if !current.is_empty() {
        out.batches.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::act::export::{RestCall, StepCall};

    fn unload(bundle: &str, to: Option<&str>) -> ApplyStep {
        ApplyStep {
            index: 0,
            step: StepCall {
                kind: StepKind::Unload,
                bundle: Some(bundle.to_string()),
                expected_owner: Some("a:8080".to_string()),
                destination: to.map(str::to_string),
                predicted: to.map(str::to_string),
                call: RestCall {
                    method: "PUT",
                    path: String::new(),
                    body: None,
                    note: String::new(),
                },
            },
            expected: None,
        }
    }

    /// Two single-bundle namespaces (range `0x00000000_0xffffffff`) moved with destinations: one
    /// batch from 4.0.10, two before; a third bundle of another range stays with the first.
    #[test]
    fn same_range_destinations_are_never_sent_together_before_25518() {
        let steps = vec![
            unload("t/ns1/0x00000000_0xffffffff", Some("b:8080")),
            unload("t/ns2/0x00000000_0xffffffff", Some("c:8080")),
            unload("t/ns3/0x00000000_0x80000000", Some("c:8080")),
        ];
        let before = affinity_batches(&steps, &[0, 1, 2], 10, affinity_by_range("4.0.9"));
        assert_eq!(before.batches, vec![vec![0], vec![1, 2]]);
        assert_eq!(before.notes.len(), 1);
        assert!(before.notes[0].contains("apache/pulsar#25518"));
        assert!(before.notes[0].contains("0x00000000_0xffffffff"));
        for after in ["4.0.10", "4.2.1", "5.0.0-M1", "master-90cba329"] {
            let b = affinity_batches(&steps, &[0, 1, 2], 10, affinity_by_range(after));
            assert_eq!(b.batches, vec![vec![0, 1, 2]], "{after}");
            assert!(b.notes.is_empty());
        }
        // 4.1.x never got the fix in a release.
        assert!(affinity_by_range("4.1.3"));
        // Without a destination nothing is keyed: one batch.
        let free = vec![
            unload("t/ns1/0x00000000_0xffffffff", None),
            unload("t/ns2/0x00000000_0xffffffff", None),
        ];
        assert_eq!(
            affinity_batches(&free, &[0, 1], 10, true).batches,
            vec![vec![0, 1]]
        );
        // The size still cuts.
        assert_eq!(
            affinity_batches(&steps, &[0, 2], 1, false).batches,
            vec![vec![0], vec![2]]
        );
    }
}
