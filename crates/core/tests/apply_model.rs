//! The guarded apply's model (`act::apply`): steps and their admin REST calls (the paths of
//! Pulsar's admin API, reference §10), batches, the drift check, the verification rule, the
//! journal and its resume and rollback lists.

use lbplan_core::act::apply::{
    ApplyPlan, Journal, JournalError, LiveOwners, Outcome, SheddingBefore, StepKind, StepStatus,
    already_applied, batches, drifted, read_plan, verify,
};
use lbplan_core::act::export::{owned_bundles_call, set_shedding_call, unset_shedding_call};
use serde_json::json;

const SPLIT: &str = "public/default/0x00000000_0x40000000";
const MOVE_1: &str = "public/default/0x80000000_0xc0000000";
const MOVE_2: &str = "tenant/ns/0x40000000_0x80000000";

fn plan_json() -> serde_json::Value {
    json!({
        "format_version": 2,
        "snapshot_fingerprint": "fp-1",
        "splits": [{"bundle": SPLIT, "broker": "b1:8080", "algorithm": "range_equally_divide",
                    "boundaries": [], "reason": {"kind": "split_threshold"}}],
        "unloads": [
            {"bundle": MOVE_1, "from": "b1:8080", "to": "b2:8080", "pass_destination": true,
             "reason": {"kind": "threshold_shedder", "text": "overloaded"}, "origin": "shedding"},
            {"bundle": "pulsar/b1:8080/0x00000000_0xffffffff", "from": "b1:8080", "to": "b2:8080",
             "pass_destination": true, "reason": "heartbeat", "origin": "manual"},
            {"bundle": MOVE_2, "from": "b2:8080", "to": "b3:8080", "pass_destination": false,
             "reason": "manual move", "origin": "manual"}
        ],
        "topic_unloads": [],
        "some_future_field": {"ignored": true}
    })
}

fn apply_plan() -> ApplyPlan {
    ApplyPlan::from_plan(&read_plan(&plan_json().to_string()).unwrap()).unwrap()
}

fn owners(pairs: &[(&str, &str)]) -> LiveOwners {
    pairs
        .iter()
        .map(|(b, o)| (b.to_string(), o.to_string()))
        .collect()
}

#[test]
fn steps_are_the_exports_calls_in_order_without_the_heartbeat_bundle() {
    let p = apply_plan();
    let calls: Vec<(&str, &str)> = p
        .steps
        .iter()
        .map(|s| (s.step.call.method, s.step.call.path.as_str()))
        .collect();
    assert_eq!(
        calls,
        vec![
            (
                "PUT",
                "/admin/v2/namespaces/public/default/0x00000000_0x40000000/split?unload=false&splitAlgorithmName=range_equally_divide"
            ),
            (
                "PUT",
                "/admin/v2/namespaces/public/default/0x80000000_0xc0000000/unload?destinationBroker=b2%3A8080"
            ),
            (
                "PUT",
                "/admin/v2/namespaces/tenant/ns/0x40000000_0x80000000/unload"
            ),
        ]
    );
    assert_eq!(p.steps[0].step.kind, StepKind::Split);
    assert_eq!(p.steps[1].step.destination.as_deref(), Some("b2:8080"));
    assert_eq!(p.steps[2].step.destination, None);
    assert_eq!(p.steps[2].step.predicted.as_deref(), Some("b3:8080"));
    assert_eq!(p.bundles(), vec![SPLIT, MOVE_1, MOVE_2]);
    assert_eq!(
        batches(&[0, 1, 2], 2),
        vec![vec![0, 1], vec![2]],
        "two calls, then one"
    );
}

#[test]
fn the_read_calls_are_pulsars_admin_paths() {
    assert_eq!(
        owned_bundles_call("us-west", "b1:8080").path,
        "/admin/v2/brokers/us-west/b1%3A8080/ownedNamespaces"
    );
    let pause = set_shedding_call(false);
    assert_eq!(
        (pause.method, pause.path.as_str()),
        (
            "POST",
            "/admin/v2/brokers/configuration/loadBalancerSheddingEnabled/false"
        )
    );
    let unset = unset_shedding_call();
    assert_eq!(
        (unset.method, unset.path.as_str()),
        (
            "DELETE",
            "/admin/v2/brokers/configuration/loadBalancerSheddingEnabled"
        )
    );
}

#[test]
fn a_plan_of_another_format_version_is_refused_with_its_path() {
    let mut v = plan_json();
    v["format_version"] = json!(1);
    assert_eq!(
        read_plan(&v.to_string()).unwrap_err().to_string(),
        "$.format_version: expected 2 to 6, found 1"
    );
    let mut v = plan_json();
    v["unloads"][0]["from"] = json!(7);
    assert_eq!(
        read_plan(&v.to_string()).unwrap_err().to_string(),
        "$.unloads[0].from: invalid type: integer `7`, expected a string"
    );
    // Typed from the text: a wrong shape is refused at its path, a missing version named.
    let mut v = plan_json();
    v["splits"] = json!([{"bundle": "a/b/0x00000000_0x80000000", "broker": "b1:8080",
                          "algorithm": "range_equally_divide", "boundaries": [-1]}]);
    assert_eq!(
        read_plan(&v.to_string()).unwrap_err().to_string(),
        "$.splits[0].boundaries[0]: invalid value: integer `-1`, expected u32"
    );
    assert_eq!(
        read_plan("{\"snapshot_fingerprint\": \"fp\"}")
            .unwrap_err()
            .to_string(),
        "$.format_version: missing (is this a plan JSON?)"
    );
}

#[test]
fn drift_is_a_bundle_not_on_its_expected_owner() {
    let p = apply_plan();
    let all = [0, 1, 2];
    let live = owners(&[(SPLIT, "b1:8080"), (MOVE_1, "b1:8080"), (MOVE_2, "b2:8080")]);
    assert!(drifted(&p.steps, &all, &live).is_empty());
    // MOVE_1 moved to b3 behind the plan's back; MOVE_2 is owned by nobody.
    let live = owners(&[(SPLIT, "b1:8080"), (MOVE_1, "b3:8080")]);
    let d = drifted(&p.steps, &all, &live);
    assert_eq!(d.len(), 2);
    assert_eq!((d[0].index, d[0].found.as_deref()), (1, Some("b3:8080")));
    assert_eq!((d[1].index, d[1].found.as_deref()), (2, None));
    assert_eq!(
        d[0].describe(),
        "public/default/0x80000000_0xc0000000: the plan expects it on b1:8080, it is on b3:8080"
    );
    // Only the steps asked about are checked.
    assert!(drifted(&p.steps, &[0], &live).is_empty());
}

#[test]
fn verification_tells_honoured_moved_elsewhere_and_still_on_source() {
    let p = apply_plan();
    let with_dest = &p.steps[1];
    assert_eq!(
        verify(with_dest, Some("b2:8080")),
        Outcome::Honoured {
            owner: "b2:8080".into()
        }
    );
    let elsewhere = verify(with_dest, Some("b3:8080"));
    assert!(!elsewhere.ok());
    assert_eq!(
        elsewhere,
        Outcome::MovedElsewhere {
            owner: "b3:8080".into(),
            destination: "b2:8080".into()
        }
    );
    let stuck = verify(with_dest, Some("b1:8080"));
    assert!(!stuck.ok());
    assert!(
        verify(with_dest, None).ok(),
        "unowned until the next lookup"
    );
    // Without a destination any broker but the source is what was asked.
    assert!(verify(&p.steps[2], Some("b1:8080")).ok());
    assert!(!verify(&p.steps[2], Some("b2:8080")).ok());
    // A split is done when the bundle itself is no longer owned.
    assert_eq!(verify(&p.steps[0], None), Outcome::SplitDone);
    assert!(!verify(&p.steps[0], Some("b1:8080")).ok());
}

#[test]
fn journal_resume_and_rollback() {
    let p = apply_plan();
    let mut j = Journal::new(&p, "http://127.0.0.1:8080");
    assert_eq!(j.format_version, 2);
    assert_eq!(j.resume_indices(), vec![0, 1, 2]);
    j.shedding_before = SheddingBefore::from_override(None);
    assert_eq!(j.shedding_before, Some(SheddingBefore::NoOverride));
    assert_eq!(
        SheddingBefore::from_override(Some("false")),
        Some(SheddingBefore::Override(false))
    );
    assert_eq!(SheddingBefore::from_override(Some("maybe")), None);
    j.record(0, StepStatus::Done, Some(Outcome::SplitDone), None, None);
    j.record(
        1,
        StepStatus::Done,
        Some(Outcome::Honoured {
            owner: "b2:8080".into(),
        }),
        Some("b2:8080".into()),
        None,
    );
    j.record(2, StepStatus::Failed, None, None, Some("HTTP 500".into()));
    assert_eq!(j.resume_indices(), vec![2]);
    assert_eq!(j.counts(), (2, 1, 0));
    let back = j.rollback_steps(&p).unwrap();
    assert_eq!(back.len(), 1, "only the done unload goes back");
    assert_eq!(back[0].back_to, "b1:8080");
    assert_eq!(back[0].expected_owner.as_deref(), Some("b2:8080"));
    assert_eq!(
        back[0].call.path,
        "/admin/v2/namespaces/public/default/0x80000000_0xc0000000/unload?destinationBroker=b1%3A8080"
    );
    assert_eq!(j.permanent_splits(), vec![SPLIT]);

    let again = Journal::from_json(&j.to_json()).unwrap();
    assert_eq!(again, j);
    again.check_matches(&p).unwrap();
    let mut other = plan_json();
    other["snapshot_fingerprint"] = json!("fp-2");
    let other = ApplyPlan::from_plan(&read_plan(&other.to_string()).unwrap()).unwrap();
    assert!(matches!(
        again.check_matches(&other),
        Err(JournalError::OtherPlan { .. })
    ));
    let text = j
        .to_json()
        .replace("\"format_version\": 2", "\"format_version\": 9");
    assert_eq!(
        Journal::from_json(&text).unwrap_err().to_string(),
        "$.format_version: expected 1 to 2, found 9"
    );
    // Typed from the text: a wrong shape is refused at its JSON path.
    let text = j
        .to_json()
        .replacen("\"status\": \"", "\"status\": \"later_", 1);
    let e = Journal::from_json(&text).unwrap_err().to_string();
    assert!(
        e.starts_with("not a journal: $.steps[0].status: unknown variant `later_"),
        "{e}"
    );
}

#[test]
fn a_resume_counts_steps_the_cluster_already_shows_as_applied() {
    let p = apply_plan();
    // The split went through (the bundle is gone) and MOVE_1 is on its destination; MOVE_2 was not
    // touched, and an unowned bundle is not taken as applied.
    let live = owners(&[(MOVE_1, "b2:8080"), (MOVE_2, "b2:8080")]);
    let done = already_applied(&p.steps, &[0, 1, 2], &live);
    assert_eq!(
        done,
        vec![
            (0, Outcome::SplitDone),
            (
                1,
                Outcome::Honoured {
                    owner: "b2:8080".into()
                }
            )
        ]
    );
    let live = owners(&[(SPLIT, "b1:8080")]);
    assert!(already_applied(&p.steps, &[0, 1, 2], &live).is_empty());
}

#[test]
fn shedding_before_is_written_once_and_a_pause_left_behind_is_restored() {
    let p = apply_plan();
    let mut j = Journal::new(&p, "http://127.0.0.1:8080");
    assert!(j.needs_shedding_read());
    assert_eq!(j.shedding_restore_call(), None);
    // The first pause records what was there: an override of true.
    j.record_pause(SheddingBefore::Override(true));
    // A second pause (a resume after kill -9) reads our own `false`: it must not replace it.
    j.record_pause(SheddingBefore::Override(false));
    assert_eq!(j.shedding_before, Some(SheddingBefore::Override(true)));
    assert!(j.shedding_left_paused());
    assert_eq!(j.shedding_restore_call(), Some(set_shedding_call(true)));
    assert_eq!(
        j.shedding_by_hand().unwrap(),
        "pulsar-admin brokers update-dynamic-config --config loadBalancerSheddingEnabled --value true   (or: curl -X POST 'http://127.0.0.1:8080/admin/v2/brokers/configuration/loadBalancerSheddingEnabled/true')"
    );
    // A resume without --pause-shedding keeps (and then restores) the pause left behind.
    let s = lbplan_core::act::apply::Session::resume(&p, j.clone()).unwrap();
    assert!(s.pauses_shedding(false));
    j.shedding_restored = true;
    assert!(!j.shedding_left_paused());
    assert_eq!(j.shedding_restore_call(), None);
    assert_eq!(
        SheddingBefore::NoOverride.by_hand(""),
        "pulsar-admin brokers delete-dynamic-config --config loadBalancerSheddingEnabled   (or: curl -X DELETE '$PULSAR_ADMIN_URL/admin/v2/brokers/configuration/loadBalancerSheddingEnabled')"
    );
}

#[test]
fn a_journal_naming_another_bundle_or_source_than_the_plan_is_refused() {
    let p = apply_plan();
    let mut j = Journal::new(&p, "");
    j.record(1, StepStatus::Done, None, Some("b2:8080".into()), None);
    let mut edited = j.clone();
    edited.steps[1].bundle = Some("victim/ns/0x00000000_0xffffffff".into());
    assert_eq!(
        edited.check_matches(&p).unwrap_err().to_string(),
        "$.steps[1].bundle: the journal says `victim/ns/0x00000000_0xffffffff`, the plan `public/default/0x80000000_0xc0000000`"
    );
    let mut edited = j.clone();
    edited.steps[1].from = Some("b3:8080".into());
    assert!(matches!(
        edited.check_matches(&p),
        Err(JournalError::StepDiffers { field: "from", .. })
    ));
    // The rollback moves the plan's bundle back to the plan's source.
    let back = j.rollback_steps(&p).unwrap();
    assert_eq!(back[0].bundle, MOVE_1);
    assert_eq!(back[0].back_to, "b1:8080");
}
