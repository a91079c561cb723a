//! `lbplan config`: the effective configuration of a profile, as `broker.conf` lines.

use lbplan_core::config::{LoadBalancerConfig, Profile};

use crate::exit::CliError;

#[derive(clap::Args)]
pub struct Args {
    /// Profile: 4.x, 5.0 or master-90cba329.
    #[arg(long, default_value = "4.x")]
    profile: String,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let profile = Profile::parse(&args.profile).ok_or_else(|| {
        CliError::BadInput(format!(
            "unknown profile `{}` (expected 4.x, 5.0 or master-90cba329)",
            args.profile
        ))
    })?;
    let cfg = LoadBalancerConfig::for_profile(profile);
    let mut text = String::new();
    for (key, _) in LoadBalancerConfig::KEYS {
        text.push_str(&format!(
            "{key}={}\n",
            cfg.get_text(key).unwrap_or_default()
        ));
    }
    crate::output::to_stdout(text.as_bytes())
}
