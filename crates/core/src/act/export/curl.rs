//! The admin REST form of each step ([`RestCall`], also the dashboard's Apply flow) and its curl
//! rendering. Every name is its own percent-encoded path segment and curl sends the path as
//! written (`--path-as-is`), so no name can climb to another endpoint. The token never reaches a
//! command line: `call` pipes the `Authorization` header into curl's standard input (`-H @-`),
//! read from `PULSAR_TOKEN_FILE` or the exported `PULSAR_TOKEN` without expanding it, so neither
//! `ps` nor `bash -x` shows it.

use std::fmt::Write as _;

use super::steps::Step;
use crate::act::names::{shell_quote, url_encode};
use crate::naming::BundleRange;

pub(super) const PRIMITIVES: &str = r#": "${PULSAR_ADMIN_URL:?set PULSAR_ADMIN_URL, e.g. http://broker-1:8080}"
# Authentication (optional): PULSAR_TOKEN_FILE=/path/to/token, or PULSAR_TOKEN in the environment.
# The header goes to curl on its standard input: never on a command line, in `set -x` or in this file.
auth_header() {
  if [ -n "${PULSAR_TOKEN_FILE:-}" ]; then
    printf 'Authorization: Bearer '
    tr -d '\r\n' <"$PULSAR_TOKEN_FILE"
    printf '\n'
  elif [ -n "${PULSAR_TOKEN:+set}" ]; then
    printf 'Authorization: Bearer '
    printenv PULSAR_TOKEN | tr -d '\r\n'
    printf '\n'
  fi
}
# call METHOD PATH [CURL_OPTION...]: PATH is sent as written, its names already percent-encoded.
call() {
  local method=$1 path=$2
  shift 2
  echo "$method $path" >&2
  auth_header | curl -sS -f -L --path-as-is -H @- -X "$method" "$@" "$PULSAR_ADMIN_URL$path"
}
dynamic_config() { call GET /admin/v2/brokers/configuration/values; }
set_shedding() { call POST "/admin/v2/brokers/configuration/loadBalancerSheddingEnabled/$1"; }
unset_shedding() { call DELETE /admin/v2/brokers/configuration/loadBalancerSheddingEnabled; }
owned_bundles() { call GET "/admin/v2/brokers/$PULSAR_CLUSTER/$1/ownedNamespaces"; }
broker_version() { call GET /admin/v2/brokers/version; }
"#;

/// One admin REST call of a plan, as the curl export and the dashboard's Apply flow make it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RestCall {
    pub method: &'static str,
    /// Path and query under the admin base URL (`/admin/v2/...`), each name a percent-encoded
    /// segment.
    pub path: String,
    /// JSON body, when the call has one.
    pub body: Option<String>,
    /// What the call does, one line.
    pub note: String,
}

/// `tenant/namespace` as two encoded path segments.
fn namespace_path(namespace: &str) -> String {
    namespace
        .split('/')
        .map(url_encode)
        .collect::<Vec<_>>()
        .join("/")
}

/// `PUT /admin/v2/namespaces/{tenant}/{namespace}/{bundle}/unload[?destinationBroker=…]`.
pub(super) fn unload_call(
    namespace: &str,
    range: &BundleRange,
    destination: Option<&str>,
    note: String,
) -> RestCall {
    let mut path = format!(
        "/admin/v2/namespaces/{}/{range}/unload",
        namespace_path(namespace)
    );
    if let Some(d) = destination {
        path.push_str(&format!("?destinationBroker={}", url_encode(d)));
    }
    RestCall {
        method: "PUT",
        path,
        body: None,
        note,
    }
}

/// `POST /admin/v2/brokers/configuration/loadBalancerSheddingEnabled/{value}` (`set_shedding`).
pub(super) fn shedding_call(enabled: bool) -> RestCall {
    RestCall {
        method: "POST",
        path: format!("/admin/v2/brokers/configuration/loadBalancerSheddingEnabled/{enabled}"),
        body: None,
        note: format!("loadBalancerSheddingEnabled={enabled}"),
    }
}

/// `DELETE /admin/v2/brokers/configuration/loadBalancerSheddingEnabled` (`unset_shedding`): the
/// dynamic override goes away and `broker.conf`'s value applies again.
pub fn unset_shedding_call() -> RestCall {
    RestCall {
        method: "DELETE",
        path: "/admin/v2/brokers/configuration/loadBalancerSheddingEnabled".to_string(),
        body: None,
        note: "delete the loadBalancerSheddingEnabled override".to_string(),
    }
}

/// `GET /admin/v2/brokers/configuration/values` (`dynamic_config`): the dynamic overrides, a JSON
/// object of strings.
pub fn dynamic_config_call() -> RestCall {
    RestCall {
        method: "GET",
        path: "/admin/v2/brokers/configuration/values".to_string(),
        body: None,
        note: "read the dynamic configuration overrides".to_string(),
    }
}

/// `GET /admin/v2/brokers/configuration/runtime`: the broker's configuration (its `clusterName`).
pub fn runtime_config_call() -> RestCall {
    RestCall {
        method: "GET",
        path: "/admin/v2/brokers/configuration/runtime".to_string(),
        body: None,
        note: "read the broker's runtime configuration (clusterName)".to_string(),
    }
}

/// `GET /admin/v2/brokers/version` (`pulsar-admin brokers version`): the version of the broker
/// behind the admin URL, which the apply policy compares with the plan's profile.
pub fn broker_version_call() -> RestCall {
    RestCall {
        method: "GET",
        path: "/admin/v2/brokers/version".to_string(),
        body: None,
        note: "read the broker's version (the profile it implies)".to_string(),
    }
}

/// `GET /admin/v2/brokers/{cluster}`: the active brokers (`host:port` ids).
pub fn active_brokers_call(cluster: &str) -> RestCall {
    RestCall {
        method: "GET",
        path: format!("/admin/v2/brokers/{}", url_encode(cluster)),
        body: None,
        note: format!("list the active brokers of {cluster}"),
    }
}

/// `GET /admin/v2/brokers/{cluster}/{broker}/ownedNamespaces` (`owned_bundles`): the bundles a
/// broker owns, a JSON object keyed by full bundle name (`tenant/ns/0x…_0x…`).
pub fn owned_bundles_call(cluster: &str, broker: &str) -> RestCall {
    RestCall {
        method: "GET",
        path: format!(
            "/admin/v2/brokers/{}/{}/ownedNamespaces",
            url_encode(cluster),
            url_encode(broker)
        ),
        body: None,
        note: format!("bundles owned by {broker}"),
    }
}

/// The REST call of a step; `None` for a step the script only comments.
pub(super) fn rest_call(step: &Step) -> Option<RestCall> {
    Some(match step {
        Step::Skip { .. } => return None,
        Step::SetShedding(enabled) => shedding_call(*enabled),
        Step::Split {
            namespace,
            range,
            algorithm,
            positions,
            note,
        } => RestCall {
            method: "PUT",
            path: format!(
                "/admin/v2/namespaces/{}/{range}/split?unload=false&splitAlgorithmName={}",
                namespace_path(namespace),
                url_encode(algorithm)
            ),
            body: (!positions.is_empty()).then(|| {
                let list: Vec<String> = positions.iter().map(u32::to_string).collect();
                format!("[{}]", list.join(","))
            }),
            note: note.clone(),
        },
        Step::Unload {
            namespace,
            range,
            destination,
            note,
            ..
        } => unload_call(namespace, range, destination.as_deref(), note.clone()),
        Step::UnloadTopic {
            domain,
            tenant,
            namespace,
            local,
        } => RestCall {
            method: "PUT",
            path: format!(
                "/admin/v2/{domain}/{}/{}/{}/unload",
                url_encode(tenant),
                url_encode(namespace),
                url_encode(local)
            ),
            body: None,
            note: format!("unload topic {domain}://{tenant}/{namespace}/{local}"),
        },
    })
}

pub(super) fn render_step(step: &Step, out: &mut String) {
    match step {
        Step::Split { note, .. } | Step::Unload { note, .. } | Step::Skip { note } => {
            let _ = writeln!(out, "  # {note}");
        }
        Step::SetShedding(_) | Step::UnloadTopic { .. } => {}
    }
    let Some(call) = rest_call(step) else {
        return;
    };
    let mut line = format!("lbplan_do call {} {}", call.method, shell_quote(&call.path));
    if let Some(body) = &call.body {
        let _ = write!(
            line,
            " -H 'Content-Type: application/json' --data {}",
            shell_quote(body)
        );
    }
    match step {
        Step::Unload {
            bundle,
            expected_owner: Some(owner),
            ..
        } => {
            let _ = writeln!(
                out,
                "  if still_owned {} {} {}; then\n    {line}\n  fi",
                shell_quote(bundle),
                shell_quote(owner),
                shell_quote(&url_encode(owner))
            );
        }
        _ => {
            let _ = writeln!(out, "  {line}");
        }
    }
}

#[cfg(test)]
mod primitives_tests {
    use super::*;

    /// The script's bash primitives and the guarded apply's calls are the same endpoints.
    #[test]
    fn the_script_primitives_use_the_same_paths_as_the_apply_calls() {
        for call in [
            dynamic_config_call(),
            unset_shedding_call(),
            shedding_call(true),
        ] {
            let path = call
                .path
                .trim_end_matches("/true")
                .trim_end_matches("/false");
            assert!(PRIMITIVES.contains(path), "{path}");
        }
        let owned = owned_bundles_call("CLUSTER", "BROKER").path;
        let script_form = owned
            .replace("CLUSTER", "$PULSAR_CLUSTER")
            .replace("BROKER", "$1");
        assert!(PRIMITIVES.contains(&script_form), "{script_form}");
    }
}
