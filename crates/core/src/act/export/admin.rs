//! The `pulsar-admin` form of each step. Options come first and `--` ends them before the
//! positional name: pulsar-admin's parsers (JCommander up to 3.1, picocli since) then read what
//! follows as a name even if it starts with `-`.

use std::fmt::Write as _;

use super::steps::Step;
use crate::act::names::shell_quote;

pub(super) const PRIMITIVES: &str = r#"PULSAR_ADMIN="${PULSAR_ADMIN:-pulsar-admin}"
dynamic_config() { "$PULSAR_ADMIN" brokers get-all-dynamic-config; }
set_shedding() { "$PULSAR_ADMIN" brokers update-dynamic-config --config loadBalancerSheddingEnabled --value "$1"; }
unset_shedding() { "$PULSAR_ADMIN" brokers delete-dynamic-config --config loadBalancerSheddingEnabled; }
owned_bundles() { "$PULSAR_ADMIN" brokers namespaces --url "$1" -- "$PULSAR_CLUSTER"; }
broker_version() { "$PULSAR_ADMIN" brokers version; }
"#;

pub(super) fn render_step(step: &Step, out: &mut String) {
    match step {
        Step::SetShedding(enabled) => {
            let _ = writeln!(out, "  set_shedding {enabled}");
        }
        Step::Skip { note } => {
            let _ = writeln!(out, "  # {note}");
        }
        Step::Split {
            namespace,
            range,
            algorithm,
            positions,
            note,
        } => {
            let _ = writeln!(out, "  # {note}");
            let _ = write!(
                out,
                "  lbplan_do \"$PULSAR_ADMIN\" namespaces split-bundle --bundle {} --split-algorithm-name {}",
                shell_quote(&range.to_string()),
                shell_quote(algorithm)
            );
            if !positions.is_empty() {
                let list: Vec<String> = positions.iter().map(u32::to_string).collect();
                let _ = write!(out, " --split-boundaries {}", shell_quote(&list.join(",")));
            }
            let _ = writeln!(out, " -- {}", shell_quote(namespace));
        }
        Step::Unload {
            bundle,
            namespace,
            range,
            expected_owner,
            destination,
            note,
        } => {
            let _ = writeln!(out, "  # {note}");
            let mut command = format!(
                "lbplan_do \"$PULSAR_ADMIN\" namespaces unload --bundle {}",
                shell_quote(&range.to_string())
            );
            if let Some(d) = destination {
                let _ = write!(command, " --destinationBroker {}", shell_quote(d));
            }
            let _ = write!(command, " -- {}", shell_quote(namespace));
            match expected_owner {
                Some(owner) => {
                    let _ = writeln!(
                        out,
                        "  if still_owned {} {}; then\n    {command}\n  fi",
                        shell_quote(bundle),
                        shell_quote(owner)
                    );
                }
                None => {
                    let _ = writeln!(out, "  {command}");
                }
            }
        }
        Step::UnloadTopic {
            domain,
            tenant,
            namespace,
            local,
        } => {
            let _ = writeln!(
                out,
                "  lbplan_do \"$PULSAR_ADMIN\" topics unload -- {}",
                shell_quote(&format!("{domain}://{tenant}/{namespace}/{local}"))
            );
        }
    }
}
