//! Namespace isolation policies as Pulsar evaluates them, shared by both load managers: the policy
//! lookup (`NamespaceIsolationPolicies.getPolicyByNamespace` / `isSharedBroker`), the per-policy broker
//! roles (`NamespaceIsolationPolicyImpl.isPrimaryBroker` / `isSecondaryBroker`), the failover rule
//! (`MinAvailablePolicy.shouldFailoverToSecondary(int)`), the exception handling of
//! `SimpleResourceAllocationPolicies`, and the candidate rule built on them
//! (`LoadManagerShared.applyNamespacePolicies`).
//!
//! Java facts this follows (see `docs/isolation-policies.md`):
//! - every pattern is a `java.util.regex` pattern applied with `String.matches`, i.e. it must match
//!   the **whole** string; namespaces are matched as `tenant/ns`, brokers by their host = the brokerId
//!   up to its last `:` (`LoadManagerShared.parseBrokerHost`; a brokerId without `:` is skipped);
//! - the first policy (in the stored map's order) with a matching namespace pattern governs the
//!   namespace;
//! - `areIsolationPoliciesPresent` is `false` when the lookup throws (invalid pattern, or a policy whose
//!   `auto_failover_policy` cannot be built); `isSharedBroker` is `false` when it throws.
//!
//! Patterns are compiled with the `regex` crate. Java-only syntax it lacks (look-around,
//! back-references, possessive quantifiers, `\Q…\E`) is reported as [`IsolationPolicyError`] and
//! evaluated as Java evaluates a pattern that throws (see [`JavaPattern::matches`]).

use indexmap::IndexMap;
use regex::Regex;
use thiserror::Error;

use crate::model::NamespaceIsolationPolicy;

/// `AutoFailoverPolicyType.min_available`, the only type Pulsar knows.
pub const MIN_AVAILABLE: &str = "min_available";

/// A policy the planner cannot evaluate exactly as written. Never fatal: the plan carries it as a
/// warning and the policy behaves as Pulsar's exception paths make it behave.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum IsolationPolicyError {
    #[error(
        "isolation policy `{policy}`: {field}[{index}] \"{pattern}\" is not a usable regular expression ({message}); Pulsar would throw when evaluating it"
    )]
    InvalidRegex {
        policy: String,
        field: &'static str,
        index: usize,
        pattern: String,
        message: String,
    },
    #[error(
        "isolation policy `{policy}`: {message}; Pulsar cannot build this policy, so it never isolates its namespaces and no broker counts as shared while it is consulted"
    )]
    InvalidAutoFailoverPolicy { policy: String, message: String },
}

/// Marker for "Java would throw here".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Throws;

/// One pattern with `String.matches` semantics (whole-string match).
#[derive(Clone, Debug)]
struct JavaPattern {
    compiled: Option<Regex>,
}

impl JavaPattern {
    fn compile(source: &str) -> Result<Regex, String> {
        // Validate the pattern alone first: wrapping an unbalanced pattern such as `a)(b` could make
        // it valid.
        Regex::new(source).map_err(|e| first_line(&e.to_string()))?;
        Regex::new(&format!(r"\A(?:{source})\z")).map_err(|e| first_line(&e.to_string()))
    }

    /// `text.matches(pattern)`; `Err` where Java throws `PatternSyntaxException`.
    fn matches(&self, text: &str) -> Result<bool, Throws> {
        self.compiled
            .as_ref()
            .map(|re| re.is_match(text))
            .ok_or(Throws)
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or(s)
        .trim()
        .to_string()
}

/// `MinAvailablePolicy`: `min_limit` and `usage_threshold` parsed with `Integer.parseInt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinAvailablePolicy {
    pub min_limit: i32,
    pub usage_threshold: i32,
}

impl MinAvailablePolicy {
    /// `shouldFailoverToSecondary(int totalPrimaryCandidates)`: `total < min_limit`.
    pub fn should_failover_to_secondary(&self, total_primary_candidates: usize) -> bool {
        i64::try_from(total_primary_candidates).unwrap_or(i64::MAX) < i64::from(self.min_limit)
    }
}

/// `Integer.parseInt(s)` (radix 10): optional sign, ASCII digits, within `i32`.
fn java_parse_int(s: &str) -> Option<i32> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i32>().ok()
}

/// `AutoFailoverPolicyFactory.create` + the `MinAvailablePolicy` constructor's checks.
fn build_failover(policy: &NamespaceIsolationPolicy) -> Result<MinAvailablePolicy, String> {
    let Some(afp) = &policy.auto_failover_policy else {
        return Err("it has no auto_failover_policy".to_string());
    };
    if afp.policy_type != MIN_AVAILABLE {
        return Err(format!(
            "unrecognized auto_failover_policy type \"{}\" (only {MIN_AVAILABLE})",
            afp.policy_type
        ));
    }
    let int = |key: &str| -> Result<i32, String> {
        let text = afp
            .parameters
            .get(key)
            .ok_or_else(|| format!("auto_failover_policy has no `{key}` parameter"))?;
        java_parse_int(text)
            .ok_or_else(|| format!("auto_failover_policy `{key}` = \"{text}\" is not an integer"))
    };
    Ok(MinAvailablePolicy {
        min_limit: int("min_limit")?,
        usage_threshold: int("usage_threshold")?,
    })
}

/// One policy, compiled.
#[derive(Clone, Debug)]
struct CompiledPolicy {
    name: String,
    namespaces: Vec<JavaPattern>,
    primary: Vec<JavaPattern>,
    secondary: Vec<JavaPattern>,
    failover: Result<MinAvailablePolicy, String>,
}

/// `matchesBrokerRegex`: any pattern matches; the first throwing pattern reached throws.
fn any_matches(patterns: &[JavaPattern], text: &str) -> Result<bool, Throws> {
    for p in patterns {
        if p.matches(text)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The cluster's policies, in the stored map's order (Pulsar reads them into a `LinkedHashMap`).
#[derive(Clone, Debug, Default)]
pub struct IsolationPolicies {
    policies: Vec<CompiledPolicy>,
}

/// The policy governing one namespace.
#[derive(Clone, Copy, Debug)]
pub struct NamespacePolicy<'a> {
    policy: &'a CompiledPolicy,
    failover: MinAvailablePolicy,
}

impl NamespacePolicy<'_> {
    pub fn name(&self) -> &str {
        &self.policy.name
    }

    pub fn failover(&self) -> MinAvailablePolicy {
        self.failover
    }

    /// `isPrimaryBroker(host)`. A throwing pattern counts as no match (Java propagates the exception
    /// out of the lookup; the planner reports the pattern instead).
    pub fn is_primary(&self, host: &str) -> bool {
        any_matches(&self.policy.primary, host).unwrap_or(false)
    }

    /// `isSecondaryBroker(host)`, with the same treatment of throwing patterns.
    pub fn is_secondary(&self, host: &str) -> bool {
        any_matches(&self.policy.secondary, host).unwrap_or(false)
    }
}

/// What a broker is to one namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrokerRole {
    Primary,
    Secondary,
    /// Not isolated namespace, broker in the shared pool (and it takes the topic kind).
    Shared,
    /// Not allowed (not primary/secondary of the namespace's policy, or a primary of another policy,
    /// or it does not take the topic kind, or its brokerId has no `:`).
    Excluded,
}

/// One broker offered to [`IsolationPolicies::apply_namespace_policies`].
#[derive(Clone, Copy, Debug)]
pub struct BrokerOffer<'a, T> {
    pub item: T,
    pub broker_id: &'a str,
    /// `isEnablePersistentTopics(brokerId)`.
    pub persistent_topics_enabled: bool,
    /// `isEnableNonPersistentTopics(brokerId)`.
    pub non_persistent_topics_enabled: bool,
}

/// `applyNamespacePolicies`'s result.
#[derive(Clone, Debug, PartialEq)]
pub struct NamespacePoliciesOutcome<T> {
    /// Primaries then (when failing over, or for a non-isolated namespace) the secondary/shared pool,
    /// each group in offer order.
    pub candidates: Vec<T>,
    /// The governing policy's name, when the namespace is isolated.
    pub policy: Option<String>,
    pub primaries: usize,
    /// Secondaries (isolated namespace) or shared brokers (otherwise) that qualified.
    pub secondaries: usize,
    /// Whether the failover condition held (isolated namespaces only).
    pub failover: bool,
    /// The governing policy's `min_limit`.
    pub min_limit: Option<i32>,
    /// Offered brokers left out (for explanations).
    pub excluded: usize,
}

/// `LoadManagerShared.parseBrokerHost`: the brokerId up to its last `:`; `None` when there is none.
pub fn broker_host(broker_id: &str) -> Option<&str> {
    // A byte search from the end (`:` is ASCII, never inside a multi-byte character): the port is a
    // few bytes from the end, and this runs for every broker of every placement.
    broker_id
        .as_bytes()
        .iter()
        .rposition(|&b| b == b':')
        .and_then(|i| broker_id.get(..i))
}

impl IsolationPolicies {
    /// Compiles the snapshot's policies; every pattern or failover policy that cannot be evaluated
    /// exactly is returned as an error (the policies still work, as described on each error).
    pub fn compile(
        policies: &IndexMap<String, NamespaceIsolationPolicy>,
    ) -> (Self, Vec<IsolationPolicyError>) {
        let mut errors = Vec::new();
        let mut out = Vec::with_capacity(policies.len());
        for (name, p) in policies {
            let mut patterns = |field: &'static str, list: &[String]| -> Vec<JavaPattern> {
                list.iter()
                    .enumerate()
                    .map(|(index, src)| match JavaPattern::compile(src) {
                        Ok(re) => JavaPattern { compiled: Some(re) },
                        Err(message) => {
                            errors.push(IsolationPolicyError::InvalidRegex {
                                policy: name.clone(),
                                field,
                                index,
                                pattern: src.clone(),
                                message,
                            });
                            JavaPattern { compiled: None }
                        }
                    })
                    .collect()
            };
            let namespaces = patterns("namespaces", &p.namespaces);
            let primary = patterns("primary", &p.primary);
            let secondary = patterns("secondary", &p.secondary);
            let failover = build_failover(p);
            if let Err(message) = &failover {
                errors.push(IsolationPolicyError::InvalidAutoFailoverPolicy {
                    policy: name.clone(),
                    message: message.clone(),
                });
            }
            out.push(CompiledPolicy {
                name: name.clone(),
                namespaces,
                primary,
                secondary,
                failover,
            });
        }
        (Self { policies: out }, errors)
    }

    pub fn is_empty(&self) -> bool {
        self.policies.is_empty()
    }

    pub fn len(&self) -> usize {
        self.policies.len()
    }

    /// `getPolicyByNamespace` + building the `NamespaceIsolationPolicyImpl`: `Err` where either throws.
    fn lookup(&self, namespace: &str) -> Result<Option<NamespacePolicy<'_>>, Throws> {
        for policy in &self.policies {
            if any_matches(&policy.namespaces, namespace)? {
                return match policy.failover {
                    Ok(failover) => Ok(Some(NamespacePolicy { policy, failover })),
                    Err(_) => Err(Throws),
                };
            }
        }
        Ok(None)
    }

    /// The policy governing `namespace` (`tenant/ns`), as `areIsolationPoliciesPresent` decides it:
    /// `None` when no policy matches or the lookup throws.
    pub fn namespace_policy(&self, namespace: &str) -> Option<NamespacePolicy<'_>> {
        self.lookup(namespace).ok().flatten()
    }

    /// `areIsolationPoliciesPresent(namespace)`.
    pub fn are_isolation_policies_present(&self, namespace: &str) -> bool {
        self.namespace_policy(namespace).is_some()
    }

    /// `isSharedBroker(host)`: no policy names the host as a primary. `false` when a policy consulted
    /// before a match cannot be built or has a throwing primary pattern (Java catches and answers false).
    pub fn is_shared_broker(&self, host: &str) -> bool {
        for policy in &self.policies {
            if policy.failover.is_err() {
                return false;
            }
            match any_matches(&policy.primary, host) {
                Ok(false) => {}
                Ok(true) | Err(Throws) => return false,
            }
        }
        true
    }

    /// The role of one broker for a namespace (`policy` = [`Self::namespace_policy`] of it).
    pub fn role(
        &self,
        policy: Option<&NamespacePolicy<'_>>,
        broker_id: &str,
        supports_topic_kind: bool,
    ) -> BrokerRole {
        let Some(host) = broker_host(broker_id) else {
            return BrokerRole::Excluded;
        };
        match policy {
            Some(p) if p.is_primary(host) => BrokerRole::Primary,
            Some(p) if p.is_secondary(host) => BrokerRole::Secondary,
            Some(_) => BrokerRole::Excluded,
            // The topic-kind check applies only to non-isolated namespaces, as in Pulsar.
            None if supports_topic_kind && self.is_shared_broker(host) => BrokerRole::Shared,
            None => BrokerRole::Excluded,
        }
    }

    /// `LoadManagerShared.applyNamespacePolicies` over `brokers` (in the order Pulsar iterates them).
    pub fn apply_namespace_policies<'a, T>(
        &self,
        namespace: &str,
        non_persistent: bool,
        brokers: impl IntoIterator<Item = BrokerOffer<'a, T>>,
    ) -> NamespacePoliciesOutcome<T> {
        let policy = self.namespace_policy(namespace);
        let brokers = brokers.into_iter();
        // Without a policy every broker is a secondary (shared) or excluded: room for all of them.
        let room = if policy.is_none() {
            brokers.size_hint().0
        } else {
            0
        };
        let mut primaries = Vec::new();
        let mut secondaries = Vec::with_capacity(room);
        let mut excluded = 0;
        for offer in brokers {
            let supports = if non_persistent {
                offer.non_persistent_topics_enabled
            } else {
                offer.persistent_topics_enabled
            };
            match self.role(policy.as_ref(), offer.broker_id, supports) {
                BrokerRole::Primary => primaries.push(offer.item),
                BrokerRole::Secondary | BrokerRole::Shared => secondaries.push(offer.item),
                BrokerRole::Excluded => excluded += 1,
            }
        }
        let n_primaries = primaries.len();
        let n_secondaries = secondaries.len();
        let failover = policy
            .as_ref()
            .is_some_and(|p| p.failover.should_failover_to_secondary(n_primaries));
        let mut candidates = primaries;
        if policy.is_none() || failover {
            if candidates.is_empty() {
                candidates = secondaries;
            } else {
                candidates.extend(secondaries);
            }
        } else {
            excluded += n_secondaries;
        }
        NamespacePoliciesOutcome {
            candidates,
            policy: policy.as_ref().map(|p| p.name().to_string()),
            primaries: n_primaries,
            secondaries: n_secondaries,
            failover,
            min_limit: policy.as_ref().map(|p| p.failover.min_limit),
            excluded,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::AutoFailoverPolicy;

    fn policy(
        ns: &[&str],
        primary: &[&str],
        secondary: &[&str],
        min_limit: &str,
    ) -> NamespaceIsolationPolicy {
        NamespaceIsolationPolicy {
            namespaces: ns.iter().map(|s| s.to_string()).collect(),
            primary: primary.iter().map(|s| s.to_string()).collect(),
            secondary: secondary.iter().map(|s| s.to_string()).collect(),
            auto_failover_policy: Some(AutoFailoverPolicy {
                policy_type: MIN_AVAILABLE.to_string(),
                parameters: [("min_limit", min_limit), ("usage_threshold", "80")]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            }),
        }
    }

    fn compile(
        p: &[(&str, NamespaceIsolationPolicy)],
    ) -> (IsolationPolicies, Vec<IsolationPolicyError>) {
        let map: IndexMap<String, NamespaceIsolationPolicy> =
            p.iter().map(|(n, p)| (n.to_string(), p.clone())).collect();
        IsolationPolicies::compile(&map)
    }

    fn offers<'a>(ids: &'a [&'a str]) -> Vec<BrokerOffer<'a, &'a str>> {
        ids.iter()
            .map(|id| BrokerOffer {
                item: *id,
                broker_id: id,
                persistent_topics_enabled: true,
                non_persistent_topics_enabled: true,
            })
            .collect()
    }

    #[test]
    fn host_is_broker_id_up_to_last_colon() {
        // parseBrokerHost uses lastIndexOf(':') "to support ipv6 addresses".
        assert_eq!(
            broker_host("broker-0.example.com:8080"),
            Some("broker-0.example.com")
        );
        assert_eq!(broker_host("[::1]:8080"), Some("[::1]"));
        assert_eq!(broker_host("no-port"), None);
        // As `String.lastIndexOf(':')` + `substring`, whatever the characters before it.
        assert_eq!(broker_host("brökér-ü:6650"), Some("brökér-ü"));
        assert_eq!(broker_host("a:b:c"), Some("a:b"));
        assert_eq!(broker_host(":8080"), Some(""));
        assert_eq!(broker_host("host:"), Some("host"));
    }

    #[test]
    fn patterns_match_the_whole_string() {
        // String.matches: "broker-[0-1]" does not match "broker-10" (find() would), ".*" matches "".
        let (p, errs) = compile(&[("p", policy(&["t/iso"], &["broker-[0-1]"], &[], "1"))]);
        assert!(errs.is_empty());
        let ns = p.namespace_policy("t/iso").expect("isolated");
        assert!(ns.is_primary("broker-1"));
        assert!(!ns.is_primary("broker-10"));
        assert!(!ns.is_primary("xbroker-1"));
        // The namespace pattern too: "t/iso" does not govern "t/iso2".
        assert!(p.namespace_policy("t/iso2").is_none());
    }

    #[test]
    fn first_matching_policy_wins_and_shared_excludes_all_primaries() {
        let (p, _) = compile(&[
            ("a", policy(&["t/.*"], &["b1"], &["b2"], "1")),
            ("b", policy(&["t/x"], &["b3"], &[], "1")),
        ]);
        assert_eq!(
            p.namespace_policy("t/x").map(|n| n.name().to_string()),
            Some("a".into())
        );
        // Secondaries stay shared: isSharedBroker only looks at primaries.
        assert!(!p.is_shared_broker("b1"));
        assert!(p.is_shared_broker("b2"));
        assert!(!p.is_shared_broker("b3"));
        assert!(p.is_shared_broker("b4"));
    }

    #[test]
    fn failover_below_min_limit() {
        // MinAvailablePolicy.shouldFailoverToSecondary(int): total < min_limit.
        let (p, _) = compile(&[("p", policy(&["t/iso"], &["b[12]"], &["b3"], "2"))]);
        let all = ["b1:8080", "b2:8080", "b3:8080", "b4:8080"];
        let out = p.apply_namespace_policies("t/iso", false, offers(&all));
        assert_eq!(out.candidates, ["b1:8080", "b2:8080"]);
        assert!(!out.failover);
        let out =
            p.apply_namespace_policies("t/iso", false, offers(&["b1:8080", "b3:8080", "b4:8080"]));
        assert_eq!(out.candidates, ["b1:8080", "b3:8080"]);
        assert!(out.failover);
        // Non-isolated namespaces: every broker but the primaries, topic kind permitting.
        let out = p.apply_namespace_policies("t/other", false, offers(&all));
        assert_eq!(out.candidates, ["b3:8080", "b4:8080"]);
    }

    #[test]
    fn invalid_patterns_and_failover_policies_follow_the_java_exception_paths() {
        let mut broken = policy(&["t/iso"], &["b1"], &[], "1");
        broken.auto_failover_policy = None;
        let (p, errs) = compile(&[("p", broken)]);
        assert!(matches!(
            errs.as_slice(),
            [IsolationPolicyError::InvalidAutoFailoverPolicy { .. }]
        ));
        // The namespace lookup throws: not isolated; isSharedBroker throws: nothing is shared.
        assert!(!p.are_isolation_policies_present("t/iso"));
        assert!(!p.is_shared_broker("b2"));

        let (p, errs) = compile(&[("p", policy(&["t/(iso"], &["b1"], &[], "1"))]);
        assert!(matches!(
            errs.as_slice(),
            [IsolationPolicyError::InvalidRegex {
                field: "namespaces",
                index: 0,
                ..
            }]
        ));
        assert!(!p.are_isolation_policies_present("t/iso"));
        assert!(p.is_shared_broker("b2") && !p.is_shared_broker("b1"));
        // `a)(b` alone is invalid even though `(?:a)(b)` would compile.
        assert!(JavaPattern::compile("a)(b").is_err());
        assert_eq!(java_parse_int("+3"), Some(3));
        assert_eq!(java_parse_int("3.0"), None);
    }
}
