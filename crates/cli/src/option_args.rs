//! The options several subcommands share, read one way: `--profile` (a name of core's
//! `Profile::ALL`) and `--set KEY=VALUE`. Four commands used to parse these each in their own
//! words, and one had already fallen behind (no 3.x in its message).

use lbplan_core::config::Profile;

use crate::exit::CliError;

/// `--profile NAME`.
pub fn parse_profile(text: &str) -> Result<Profile, CliError> {
    Profile::parse(text).ok_or_else(|| {
        let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        CliError::BadInput(format!(
            "unknown profile `{text}` (expected {})",
            names.join(", ")
        ))
    })
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
