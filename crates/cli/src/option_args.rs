//! The options several subcommands share, read one way: `--profile` (a Pulsar release, `4.0.7`, or a
//! line alias, `4.x`, resolved by core's `release::resolve_version`), `--leader` and
//! `--set KEY=VALUE`. Four commands used to parse these each in their own
//! words, and one had already fallen behind (no 3.x in its message).

use lbplan_core::config::Profile;
use lbplan_core::model::Snapshot;
use lbplan_core::release::{resolve_release, resolve_version};

use crate::exit::CliError;

/// `--profile VERSION`: a release (`4.0.7`), a line alias (`4.x` → its newest patch), or
/// `master-90cba329`. An unknown version plans as the nearest known release, with a warning on
/// stderr naming both; text that is no version is an error naming it.
pub fn parse_profile(text: &str) -> Result<Profile, CliError> {
    let m = resolve_version(text).map_err(|e| CliError::BadInput(format!("--profile: {e}")))?;
    if m.approximate
        && let Some(note) = &m.note
    {
        eprintln!("warning: --profile: {note}");
    }
    Ok(Profile::of_release(m.release))
}

/// `--leader BROKER`: the broker whose release decides (a rolling upgrade's leader), written into
/// the snapshot's `leader_broker`; a broker the snapshot does not have is an error naming it.
pub fn apply_leader(snapshot: &mut Snapshot, leader: Option<&str>) -> Result<(), CliError> {
    let Some(leader) = leader else {
        return Ok(());
    };
    resolve_release(snapshot, None, Some(leader))
        .map_err(|e| CliError::BadInput(format!("--leader: {e}")))?;
    snapshot.leader_broker = Some(leader.trim().to_string());
    Ok(())
}

/// An optional `--profile`.
pub fn parse_optional_profile(text: Option<&str>) -> Result<Option<Profile>, CliError> {
    text.map(parse_profile).transpose()
}

/// `--set KEY=VALUE`, each side trimmed; whether the key exists is the planner's to say.
pub fn parse_setting(item: &str) -> Result<(String, String), CliError> {
    item.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| CliError::BadInput(format!("--set `{item}`: expected KEY=VALUE")))
}

/// Every `--set`.
pub fn parse_settings(items: &[String]) -> Result<Vec<(String, String)>, CliError> {
    items.iter().map(|s| parse_setting(s)).collect()
}
