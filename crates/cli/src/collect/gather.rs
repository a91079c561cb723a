//! The collection itself, in three rounds of concurrent requests (each round needs names learned
//! in the one before): (1) clusters, leader, configuration, tenants; (2) the cluster's brokers,
//! failure domains and isolation policies, each tenant's namespaces; (3) each broker's load report
//! (from the broker's own web service) and each namespace's bundles, policies, anti-affinity group
//! and topics. Whatever fails is recorded as missing; the rest is still written.

use std::collections::BTreeMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use indexmap::IndexMap;
use lbplan_core::config::EXTENSIBLE_LOAD_MANAGER;
use serde_json::Value;

use super::auth::REDACTED;
use super::broker_conf;
use super::endpoints::What;
use super::http::{Client, Failure, FailureKind, Fetched, display_url};
use super::layout;
use super::names::{self, Kind, Refusal};
use super::origins;
use super::pool;
use super::progress::Progress;
use super::report::{self, Missing, Report};

pub struct Options {
    /// `scheme://host:port[/prefix]` without a trailing slash.
    pub admin_base: String,
    /// Scheme used for the brokers' own web service URLs (that of the admin URL).
    pub broker_scheme: String,
    /// `--namespace` values (already checked); empty = every tenant's namespaces.
    pub namespaces: Vec<String>,
    pub cluster: Option<String>,
    pub concurrency: usize,
    pub credential: &'static str,
    /// `--send-credential-to-brokers`: the brokers' own web services get the credential too.
    pub credential_to_brokers: bool,
}

pub struct Gathered {
    /// Output files by layout path (without the report).
    pub files: BTreeMap<String, Vec<u8>>,
    pub report: Report,
    /// Whether any request succeeded at all.
    pub any_success: bool,
}

struct Run<'a> {
    client: &'a Client,
    progress: &'a Progress,
    opts: &'a Options,
    files: BTreeMap<String, Vec<u8>>,
    report: Report,
    any_success: bool,
}

type Answer = (What, String, Result<Fetched, Failure>);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

pub fn run(client: &Client, progress: &Progress, opts: &Options) -> Gathered {
    let started = Instant::now();
    let mut run = Run {
        client,
        progress,
        opts,
        files: BTreeMap::new(),
        report: Report {
            kind: report::KIND.into(),
            format_version: report::FORMAT_VERSION,
            tool: format!("lbplan collect {}", env!("CARGO_PKG_VERSION")),
            admin_url: opts.admin_base.clone(),
            credential: opts.credential.into(),
            collected_at_ms: now_ms(),
            elapsed_ms: 0,
            cluster: None,
            clusters: Vec::new(),
            brokers: Vec::new(),
            leader: None,
            load_manager: "unknown".to_string(),
            namespaces: Vec::new(),
            fetched: Vec::new(),
            missing: Vec::new(),
            notes: Vec::new(),
        },
        any_success: false,
    };
    run.all();
    run.report.elapsed_ms = ms(started.elapsed());
    Gathered {
        files: run.files,
        report: run.report,
        any_success: run.any_success,
    }
}

impl Run<'_> {
    fn fetch(&self, phase: &str, whats: Vec<What>) -> Vec<Answer> {
        self.progress.phase(phase, whats.len());
        let admin = &self.opts.admin_base;
        let scheme = &self.opts.broker_scheme;
        pool::map(&whats, self.opts.concurrency, |w| {
            let url = w.url(admin, scheme);
            let shown = display_url(&url);
            let hook = |attempt: u32, wait: Duration, why: &str| {
                self.progress.retry(&shown, attempt, wait, why);
            };
            let r = self.client.get(&url, &hook);
            let outcome = match &r {
                Ok(f) => format!("ok ({} bytes, {} ms)", f.body.len(), ms(f.elapsed)),
                Err(e) => format!("FAILED after {} attempt(s): {}", e.attempts, e.message),
            };
            self.progress.finished(&shown, &outcome);
            if let Err(e) = &r
                && e.kind == FailureKind::TooLarge
            {
                self.progress.warn(&format!(
                    "GET {shown}: answer cut ({}); it is listed as too_large in the report",
                    e.message
                ));
            }
            (w.clone(), url, r)
        })
    }

    fn fetched(&mut self, what: &What, url: &str, f: &Fetched, files: Vec<String>) {
        self.any_success = true;
        self.report.fetched.push(report::Fetched {
            what: what.label().into(),
            subject: what.subject().map(str::to_string),
            url: display_url(url),
            files,
            attempts: f.attempts,
            elapsed_ms: ms(f.elapsed),
        });
    }

    fn failed(&mut self, what: &What, url: &str, e: &Failure) {
        self.report.missing.push(Missing {
            what: what.label().into(),
            subject: what.subject().map(str::to_string),
            url: Some(display_url(url)),
            reason: e.kind.code().into(),
            http_status: e.http_status,
            attempts: Some(e.attempts),
            message: e.message.clone(),
            consequence: what.consequence().to_string(),
            how_to_fill: hint(what, e),
        });
    }

    fn malformed(&mut self, what: &What, url: &str, f: &Fetched, message: String) {
        self.any_success = true;
        self.progress.note(&format!(
            "{}: malformed answer: {message}",
            display_url(url)
        ));
        self.report.missing.push(Missing {
            what: what.label().into(),
            subject: what.subject().map(str::to_string),
            url: Some(display_url(url)),
            reason: "malformed".into(),
            http_status: Some(f.status),
            attempts: Some(f.attempts),
            message,
            consequence: what.consequence().to_string(),
            how_to_fill: None,
        });
    }

    fn skipped(&mut self, what: &What, reason: &'static str, message: String) {
        self.report.missing.push(Missing {
            what: what.label().into(),
            subject: what.subject().map(str::to_string),
            url: None,
            reason: reason.into(),
            http_status: None,
            attempts: None,
            message,
            consequence: what.consequence().to_string(),
            how_to_fill: None,
        });
    }

    /// Checks names from the answer at `url`; returns those that may be used. A name holding the
    /// credential is a warning on stderr and a `credential_in_name` report item (`lost` says what
    /// is missing because of it); any other refused name is a note, as before.
    fn keep_names(
        &mut self,
        kind: Kind,
        list: Vec<String>,
        url: &str,
        lost: impl Fn(String) -> What,
    ) -> Vec<String> {
        let mut kept = Vec::with_capacity(list.len());
        for name in list {
            match names::check(kind, &name, self.client.redactor()) {
                Ok(()) => kept.push(name),
                Err(Refusal::Credential(msg)) => {
                    self.refused(&lost(REDACTED.to_string()), url, msg)
                }
                Err(Refusal::Invalid(msg)) => self.report.notes.push(msg),
            }
        }
        kept
    }

    /// A name that holds the credential was refused.
    fn refused(&mut self, lost: &What, url: &str, message: String) {
        self.progress
            .warn(&format!("GET {}: {message}", display_url(url)));
        self.report.missing.push(Missing {
            what: lost.label().into(),
            subject: None,
            url: Some(display_url(url)),
            reason: "credential_in_name".into(),
            http_status: None,
            attempts: None,
            message,
            consequence: lost.consequence().to_string(),
            how_to_fill: Some(
                "the admin server answered with the credential as a name: check that --admin-url \
                 is your cluster and what it returns before collecting again"
                    .to_string(),
            ),
        });
    }

    /// Takes a successful, well-formed answer through `parse`; records the outcome.
    fn take<T>(
        &mut self,
        answer: &Answer,
        parse: impl FnOnce(&[u8]) -> Result<T, String>,
    ) -> Option<(T, Fetched)> {
        let (what, url, r) = answer;
        match r {
            Err(e) => {
                self.failed(what, url, e);
                None
            }
            Ok(f) => match parse(&f.body) {
                Ok(v) => Some((v, f.clone())),
                Err(msg) => {
                    self.malformed(what, url, f, msg);
                    None
                }
            },
        }
    }

    fn all(&mut self) {
        let first = self.cluster_round();
        self.write_broker_conf(first.runtime.as_ref(), first.dynamic.as_ref());
        let class = first
            .dynamic
            .as_ref()
            .and_then(|d| d.get("loadManagerClassName"))
            .or_else(|| {
                first
                    .runtime
                    .as_ref()
                    .and_then(|r| r.get("loadManagerClassName"))
            });
        let extensible = class.is_some_and(|c| c.trim() == EXTENSIBLE_LOAD_MANAGER);
        self.report.load_manager = match class {
            None => "unknown",
            Some(_) if extensible => "extensible",
            Some(_) => "modular",
        }
        .to_string();
        let cluster = self.choose_cluster(first.runtime.as_ref());
        self.report.cluster = cluster.clone();
        let (brokers, namespaces) = self.brokers_round(cluster.as_ref(), &first.tenants);
        self.reports_round(&brokers, &namespaces, extensible);
        self.report.missing.extend(report::not_exposed(extensible));
    }

    /// First what needs nothing else: clusters, the leader, the broker configuration, tenants.
    fn cluster_round(&mut self) -> FirstRound {
        let mut round1 = vec![
            What::Clusters,
            What::Leader,
            What::RuntimeConfig,
            What::DynamicConfig,
        ];
        if self.opts.namespaces.is_empty() {
            round1.push(What::Tenants);
        }
        let mut runtime: Option<IndexMap<String, String>> = None;
        let mut dynamic: Option<IndexMap<String, String>> = None;
        let mut tenants: Vec<String> = Vec::new();
        for a in self.fetch("cluster and configuration", round1) {
            match &a.0 {
                What::Clusters => {
                    if let Some((list, f)) = self.take(&a, layout::string_list) {
                        self.fetched(&a.0, &a.1, &f, Vec::new());
                        // Only the credential is refused here: a cluster with an odd name is
                        // refused when it is chosen, with its name in the report.
                        for c in list {
                            match names::check(Kind::Cluster, &c, self.client.redactor()) {
                                Err(Refusal::Credential(msg)) => {
                                    let lost = What::Brokers {
                                        cluster: REDACTED.to_string(),
                                    };
                                    self.refused(&lost, &a.1, msg);
                                }
                                _ => self.report.clusters.push(c),
                            }
                        }
                    }
                }
                What::Leader => {
                    if let Some((id, f)) = self.take(&a, layout::leader) {
                        match names::check(Kind::Leader, &id, self.client.redactor()) {
                            Ok(()) => self.report.leader = Some(id),
                            Err(Refusal::Credential(msg) | Refusal::Invalid(msg)) => {
                                self.progress
                                    .warn(&format!("GET {}: {msg}", display_url(&a.1)));
                            }
                        }
                        self.files
                            .insert(layout::LEADER.to_string(), f.body.clone());
                        self.fetched(&a.0, &a.1, &f, vec![layout::LEADER.to_string()]);
                    }
                }
                What::RuntimeConfig | What::DynamicConfig => {
                    if let Some((m, f)) = self.take(&a, layout::string_map) {
                        self.fetched(&a.0, &a.1, &f, vec![layout::BROKER_CONF.to_string()]);
                        if a.0 == What::RuntimeConfig {
                            runtime = Some(m);
                        } else {
                            dynamic = Some(m);
                        }
                    }
                }
                What::Tenants => {
                    if let Some((list, f)) = self.take(&a, layout::string_list) {
                        self.fetched(&a.0, &a.1, &f, Vec::new());
                        tenants = self.keep_names(Kind::Tenant, list, &a.1, |tenant| {
                            What::TenantNamespaces { tenant }
                        });
                    }
                }
                _ => {}
            }
        }
        FirstRound {
            runtime,
            dynamic,
            tenants,
        }
    }

    /// Then what needs the cluster or a tenant: brokers, failure domains, isolation policies,
    /// namespaces. The brokers and namespaces kept, sorted; the brokers' origins allowed.
    fn brokers_round(
        &mut self,
        cluster: Option<&String>,
        tenants: &[String],
    ) -> (Vec<String>, Vec<String>) {
        let mut round2 = Vec::new();
        if let Some(c) = cluster {
            round2.push(What::Brokers { cluster: c.clone() });
            round2.push(What::FailureDomains { cluster: c.clone() });
            round2.push(What::IsolationPolicies { cluster: c.clone() });
        }
        for t in tenants {
            round2.push(What::TenantNamespaces { tenant: t.clone() });
        }
        let mut brokers: Vec<String> = Vec::new();
        let mut namespaces: Vec<String> = self.opts.namespaces.clone();
        for a in self.fetch("brokers and namespaces", round2) {
            match &a.0 {
                What::Brokers { .. } => {
                    if let Some((list, f)) = self.take(&a, layout::string_list) {
                        self.fetched(&a.0, &a.1, &f, Vec::new());
                        // Checked before any of them is resolved or asked for its load report.
                        brokers = self.keep_names(Kind::Broker, list, &a.1, |broker| {
                            What::LoadReport { broker }
                        });
                    }
                }
                What::FailureDomains { cluster } => {
                    let cluster = cluster.clone();
                    if let Some((domains, f)) = self.take(&a, layout::failure_domains) {
                        let mut paths = Vec::new();
                        let (names, nodes): (Vec<String>, Vec<Vec<u8>>) =
                            domains.into_iter().unzip();
                        let kept =
                            self.keep_names(Kind::FailureDomain, names.clone(), &a.1, |_| {
                                What::FailureDomains {
                                    cluster: cluster.clone(),
                                }
                            });
                        for (name, bytes) in names.into_iter().zip(nodes) {
                            if !kept.contains(&name) {
                                continue;
                            }
                            let p = layout::failure_domain_path(&cluster, &name);
                            self.files.insert(p.clone(), bytes);
                            paths.push(p);
                        }
                        self.fetched(&a.0, &a.1, &f, paths);
                    }
                }
                What::IsolationPolicies { cluster } => {
                    let p = layout::isolation_path(cluster);
                    if let Some(((), f)) = self.take(&a, layout::isolation_policies) {
                        self.files.insert(p.clone(), f.body.clone());
                        self.fetched(&a.0, &a.1, &f, vec![p]);
                    }
                }
                What::TenantNamespaces { .. } => {
                    if let Some((list, f)) = self.take(&a, layout::string_list) {
                        self.fetched(&a.0, &a.1, &f, Vec::new());
                        let kept = self.keep_names(Kind::Namespace, list, &a.1, |namespace| {
                            What::Policies { namespace }
                        });
                        namespaces.extend(kept);
                    }
                }
                _ => {}
            }
        }
        namespaces.sort();
        namespaces.dedup();
        brokers.sort();
        brokers.dedup();
        // Load reports and redirects may go to the brokers; the credential only when allowed.
        let broker_origins: Vec<_> = brokers
            .iter()
            .filter_map(|b| origins::origin_of_authority(&self.opts.broker_scheme, b))
            .collect();
        if self.opts.credential_to_brokers {
            self.client.allow_credential(broker_origins);
        } else {
            self.client.allow_visit(broker_origins);
        }
        self.report.brokers = brokers.clone();
        self.report.namespaces = namespaces.clone();
        (brokers, namespaces)
    }

    /// Last what needs a broker or a namespace: load reports, bundles, policies, anti-affinity,
    /// topics; then each namespace's local policies assembled from its bundles and group.
    fn reports_round(&mut self, brokers: &[String], namespaces: &[String], extensible: bool) {
        let mut round3 = Vec::new();
        for b in brokers {
            let what = What::LoadReport { broker: b.clone() };
            if extensible {
                self.skipped(
                    &what,
                    "skipped",
                    "the extensible load manager does not serve broker-stats/load-report; its load \
                     data lives in system topics (see broker_load_data below)"
                        .to_string(),
                );
            } else {
                round3.push(what);
            }
        }
        for ns in namespaces {
            round3.push(What::Bundles {
                namespace: ns.clone(),
            });
            round3.push(What::Policies {
                namespace: ns.clone(),
            });
            round3.push(What::AntiAffinity {
                namespace: ns.clone(),
            });
            round3.push(What::Topics {
                namespace: ns.clone(),
            });
        }
        let mut layouts: BTreeMap<String, Value> = BTreeMap::new();
        let mut groups: BTreeMap<String, Option<String>> = BTreeMap::new();
        let mut local_sources: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for a in self.fetch("load reports and namespaces", round3) {
            match &a.0 {
                What::LoadReport { broker } => {
                    let p = layout::broker_path(broker);
                    if let Some(((), f)) = self.take(&a, layout::load_report) {
                        self.files.insert(p.clone(), f.body.clone());
                        self.fetched(&a.0, &a.1, &f, vec![p]);
                    }
                }
                What::Bundles { namespace } => {
                    let ns = namespace.clone();
                    if let Some((v, f)) = self.take(&a, layout::bundles) {
                        layouts.insert(ns.clone(), v);
                        self.fetched(&a.0, &a.1, &f, Vec::new());
                        local_sources
                            .entry(ns)
                            .or_default()
                            .push(self.report.fetched.len().saturating_sub(1));
                    }
                }
                What::AntiAffinity { namespace } => {
                    let ns = namespace.clone();
                    if let Some((g, f)) = self.take(&a, layout::anti_affinity) {
                        groups.insert(ns.clone(), g);
                        self.fetched(&a.0, &a.1, &f, Vec::new());
                        local_sources
                            .entry(ns)
                            .or_default()
                            .push(self.report.fetched.len().saturating_sub(1));
                    }
                }
                What::Policies { namespace } => {
                    let p = layout::policies_path(namespace);
                    if let Some(((), f)) = self.take(&a, layout::policies) {
                        self.files.insert(p.clone(), f.body.clone());
                        self.fetched(&a.0, &a.1, &f, vec![p]);
                    }
                }
                What::Topics { namespace } => {
                    let p = layout::topics_path(namespace);
                    if let Some((_, f)) = self.take(&a, layout::string_list) {
                        self.files.insert(p.clone(), f.body.clone());
                        self.fetched(&a.0, &a.1, &f, vec![p]);
                    }
                }
                _ => {}
            }
        }
        for (ns, idxs) in local_sources {
            let group = groups.get(&ns).cloned().flatten();
            if group.is_none() && !layouts.contains_key(&ns) {
                // Nothing load balancing reads: an empty node would only add noise.
                continue;
            }
            let bytes = layout::local_policies(layouts.get(&ns), group.as_deref());
            let p = layout::local_policies_path(&ns);
            self.files.insert(p.clone(), bytes);
            for i in idxs {
                if let Some(f) = self.report.fetched.get_mut(i) {
                    f.files.push(p.clone());
                }
            }
        }
    }

    fn choose_cluster(&mut self, runtime: Option<&IndexMap<String, String>>) -> Option<String> {
        let from_conf = runtime
            .and_then(|r| r.get("clusterName"))
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty() && c != "null");
        let chosen = self.opts.cluster.clone().or(from_conf).or_else(|| {
            match self.report.clusters.as_slice() {
                [only] => Some(only.clone()),
                _ => None,
            }
        });
        let Some(c) = chosen else {
            self.skipped(
                &What::Brokers {
                    cluster: "?".to_string(),
                },
                "skipped",
                format!(
                    "cannot tell which cluster to collect (clusters: {:?}); pass --cluster NAME",
                    self.report.clusters
                ),
            );
            return None;
        };
        match names::check(Kind::Cluster, &c, self.client.redactor()) {
            Ok(()) => {}
            Err(Refusal::Credential(msg)) => {
                // Only the runtime configuration's clusterName comes from the server here.
                let from = What::RuntimeConfig.url(&self.opts.admin_base, &self.opts.broker_scheme);
                self.progress
                    .warn(&format!("GET {}: {msg}", display_url(&from)));
                self.skipped(
                    &What::Brokers {
                        cluster: REDACTED.to_string(),
                    },
                    "credential_in_name",
                    msg,
                );
                return None;
            }
            Err(Refusal::Invalid(_)) => {
                self.skipped(
                    &What::Brokers { cluster: c.clone() },
                    "invalid_name",
                    format!("cluster name `{c}` is not a plain Pulsar name"),
                );
                return None;
            }
        }
        for other in &self.report.clusters {
            if *other != c {
                self.report.notes.push(format!(
                    "cluster `{other}` not collected: a snapshot covers one cluster; run collect \
                     against that cluster's admin URL"
                ));
            }
        }
        Some(c)
    }

    fn write_broker_conf(
        &mut self,
        runtime: Option<&IndexMap<String, String>>,
        dynamic: Option<&IndexMap<String, String>>,
    ) {
        if runtime.is_none() && dynamic.is_none() {
            return;
        }
        let conf = broker_conf::build(runtime, dynamic, &self.opts.admin_base);
        self.files
            .insert(layout::BROKER_CONF.to_string(), conf.text.into_bytes());
        if conf.dropped > 0 {
            self.report.notes.push(format!(
                "broker.conf: {} runtime configuration keys left out (the planner does not read \
                 them; some hold secrets)",
                conf.dropped
            ));
        }
        for k in conf.overridden {
            self.report.notes.push(format!(
                "broker.conf: `{k}` taken from the dynamic configuration"
            ));
        }
        for (k, v, why) in conf.rejected {
            self.report.missing.push(Missing {
                what: "configuration_key".into(),
                subject: Some(k.clone()),
                url: None,
                reason: "malformed".into(),
                http_status: None,
                attempts: None,
                message: format!(
                    "value `{}` not understood: {why}",
                    v.chars().take(80).collect::<String>()
                ),
                consequence: format!("`{k}` is left at the profile's default"),
                how_to_fill: Some(format!("add `{k}=<value>` to broker.conf by hand")),
            });
        }
    }
}

/// A hint for the operator, by failure.
fn hint(what: &What, e: &Failure) -> Option<String> {
    use super::http::FailureKind as K;
    if let Some(origin) = &e.credential_withheld_from
        && matches!(e.kind, K::Unauthorized | K::Forbidden)
    {
        return Some(format!(
            "the credential was not sent to {origin} (only the admin URL's origin gets it): pass \
             --send-credential-to-brokers, or --allow-credential-to HOST:PORT for this one"
        ));
    }
    let s = match (e.kind, what) {
        (K::Unauthorized, _) => {
            "check the token (--token-file or PULSAR_AUTH_TOKEN) or --auth-header-file"
        }
        (K::Forbidden, _) => {
            "this endpoint needs a super-user role (broker-stats and configuration do)"
        }
        (K::Connect | K::Timeout, What::LoadReport { .. }) => {
            "the load report is served by the broker itself at its web service address: run collect \
             where the brokers are reachable, or fetch it with `pulsar-admin --admin-url \
             http://<brokerId> broker-stats load-report` (docs/collecting-snapshots.md)"
        }
        (K::Timeout, _) => {
            "raise --timeout, or fetch this endpoint by hand (docs/collecting-snapshots.md)"
        }
        (K::TooLarge, _) => {
            "the answer passed collect's size limits (docs/collecting-snapshots.md): fetch this \
             endpoint by hand if the cluster really is that large"
        }
        (K::NotFound, What::LoadReport { .. }) => {
            "the broker did not serve a load report (gone since the broker list was read?); fetch it \
             with `pulsar-admin broker-stats load-report` against that broker"
        }
        _ => return None,
    };
    Some(s.to_string())
}
/// What the first round answers that later rounds need.
struct FirstRound {
    runtime: Option<IndexMap<String, String>>,
    dynamic: Option<IndexMap<String, String>>,
    tenants: Vec<String>,
}
