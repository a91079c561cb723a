//! Everything read from the inputs, before assembly: one map per kind of object, each entry with
//! its source (file and JSON path) so that conflicts between files can name both sides. Inserting a
//! second broker, time average or `BundleData` under the same name is an error here.

use std::rc::Rc;

use indexmap::{IndexMap, IndexSet};

use super::diag::{Diag, ImportError, WarningKind};
use crate::model::{
    BrokerLoadData, BundleData, LocalBrokerData, NamespaceIsolationPolicy, TimeAverageBrokerData,
    TopBundlesLoadData,
};
use crate::naming::BundleRange;

/// An insertion-ordered map with FxHash (see `rustc-hash` in Cargo.toml for why).
pub(crate) type FxIndexMap<K, V> = IndexMap<K, V, rustc_hash::FxBuildHasher>;

/// Where an object came from: a file and the JSON path of the object in it (`None` = the whole file).
/// The file name is shared: a snapshot file is the source of 200,000 objects.
#[derive(Clone, Debug)]
pub(crate) struct Src {
    pub file: Rc<str>,
    pub base: Option<String>,
}

impl Src {
    pub(crate) fn whole(file: &str) -> Self {
        Self {
            file: Rc::from(file),
            base: None,
        }
    }

    pub(crate) fn within(file: &str, base: String) -> Self {
        Self {
            file: Rc::from(file),
            base: Some(base),
        }
    }

    /// An object at `base` in a file whose name is already shared.
    pub(crate) fn shared(file: &Rc<str>, base: String) -> Self {
        Self {
            file: Rc::clone(file),
            base: Some(base),
        }
    }

    /// The JSON path of `suffix` (`.lastStats["…"]`) inside this object.
    pub(crate) fn at(&self, suffix: &str) -> String {
        match &self.base {
            Some(b) => format!("{b}{suffix}"),
            None => format!("${suffix}"),
        }
    }
}

/// `["key"]`, for building paths to map entries.
pub(crate) fn quoted(key: &str) -> String {
    format!("[{}]", serde_json::to_string(key).unwrap_or_default())
}

/// How much a source of bundle boundaries is trusted, lowest first. `Policies` is weak: its
/// `bundles` is written at namespace creation and is stale after a split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LayoutRank {
    Policies,
    BundlesData,
    LocalPolicies,
    Snapshot,
}

pub(crate) struct LayoutEntry {
    pub src: Src,
    /// Path of the boundaries inside the source (`$.bundles.boundaries`).
    pub at: String,
    pub rank: LayoutRank,
    pub boundaries: Vec<u32>,
}

pub(crate) struct BrokerEntry {
    pub src: Src,
    pub data: LocalBrokerData,
}

pub(crate) struct BundleDataEntry {
    pub src: Src,
    /// The namespace is the key up to this length (`tenant/ns` of `tenant/ns/0x…_0x…`).
    pub namespace_len: usize,
    pub range: BundleRange,
    pub data: BundleData,
}

#[derive(Default)]
pub(crate) struct Collected {
    pub brokers: FxIndexMap<String, BrokerEntry>,
    pub time_averages: FxIndexMap<String, (Src, TimeAverageBrokerData)>,
    pub load_data: FxIndexMap<String, (Src, BrokerLoadData)>,
    pub top_bundles: FxIndexMap<String, (Src, TopBundlesLoadData)>,
    pub bundle_data: FxIndexMap<String, BundleDataEntry>,
    pub layouts: FxIndexMap<String, Vec<LayoutEntry>>,
    pub anti_affinity: IndexMap<String, (Src, String)>,
    pub topics: IndexMap<String, IndexSet<String>>,
    pub conf: IndexMap<String, (Src, String)>,
    pub cluster: Option<(Src, String)>,
    pub leader: Option<(Src, String)>,
    pub captured_at_ms: Option<i64>,
    pub failure_domains: IndexMap<String, (Src, Vec<String>)>,
    pub isolation: IndexMap<String, (Src, NamespaceIsolationPolicy)>,
    pub recently_unloaded: IndexMap<String, i64>,
    /// Brokers named by `pulsar-admin brokers list` (where each was listed).
    pub listed_brokers: IndexMap<String, Src>,
    /// Inputs that produced something.
    pub recognised: usize,
}

fn duplicate(what: String, new: &Src, old: &Src) -> ImportError {
    ImportError::Conflict {
        file: new.file.to_string(),
        at: new.at(""),
        message: what,
        other_file: old.file.to_string(),
        other_at: old.at(""),
    }
}

impl Collected {
    pub(crate) fn add_broker(
        &mut self,
        name: String,
        src: Src,
        data: LocalBrokerData,
    ) -> Result<(), ImportError> {
        if let Some(old) = self.brokers.get(&name) {
            return Err(duplicate(
                format!("broker `{name}` is given twice"),
                &src,
                &old.src,
            ));
        }
        self.brokers.insert(name, BrokerEntry { src, data });
        Ok(())
    }

    pub(crate) fn add_time_average(
        &mut self,
        name: String,
        src: Src,
        data: TimeAverageBrokerData,
    ) -> Result<(), ImportError> {
        if let Some((old, _)) = self.time_averages.get(&name) {
            return Err(duplicate(
                format!("TimeAverageBrokerData of broker `{name}` is given twice"),
                &src,
                old,
            ));
        }
        self.time_averages.insert(name, (src, data));
        Ok(())
    }

    pub(crate) fn add_load_data(
        &mut self,
        name: String,
        src: Src,
        data: BrokerLoadData,
    ) -> Result<(), ImportError> {
        if let Some((old, _)) = self.load_data.get(&name) {
            return Err(duplicate(
                format!("BrokerLoadData of broker `{name}` is given twice"),
                &src,
                old,
            ));
        }
        self.load_data.insert(name, (src, data));
        Ok(())
    }

    pub(crate) fn add_top_bundles(
        &mut self,
        name: String,
        src: Src,
        data: TopBundlesLoadData,
    ) -> Result<(), ImportError> {
        if let Some((old, _)) = self.top_bundles.get(&name) {
            return Err(duplicate(
                format!("TopBundlesLoadData of broker `{name}` is given twice"),
                &src,
                old,
            ));
        }
        self.top_bundles.insert(name, (src, data));
        Ok(())
    }

    pub(crate) fn add_bundle_data(
        &mut self,
        namespace: &str,
        range: BundleRange,
        src: Src,
        data: BundleData,
    ) -> Result<(), ImportError> {
        let name = super::fields::bundle_key(namespace, range);
        if let Some(old) = self.bundle_data.get(&name) {
            return Err(duplicate(
                format!("BundleData of bundle {name} is given twice"),
                &src,
                &old.src,
            ));
        }
        self.bundle_data.insert(
            name,
            BundleDataEntry {
                src,
                namespace_len: namespace.len(),
                range,
                data,
            },
        );
        Ok(())
    }

    pub(crate) fn add_layout(&mut self, namespace: String, entry: LayoutEntry) {
        self.layouts.entry(namespace).or_default().push(entry);
    }

    pub(crate) fn add_anti_affinity(
        &mut self,
        ns: String,
        src: Src,
        group: String,
        diag: &mut Diag,
    ) {
        match self.anti_affinity.get(&ns) {
            Some((old, g)) if *g != group => diag.warn(
                WarningKind::ValueConflict,
                &src.file,
                Some(src.at(".namespaceAntiAffinityGroup")),
                format!(
                    "anti-affinity group `{group}` of {ns} differs from `{g}` given by {}; `{g}` kept",
                    old.file
                ),
            ),
            Some(_) => {}
            None => {
                self.anti_affinity.insert(ns, (src, group));
            }
        }
    }

    pub(crate) fn add_conf(&mut self, key: String, value: String, src: Src, diag: &mut Diag) {
        if let Some((old, v)) = self.conf.get(&key)
            && *v != value
        {
            diag.warn(
                WarningKind::ConfOverridden,
                &src.file,
                src.base.clone(),
                format!("`{key}={value}` overrides `{key}={v}` from {}", old.file),
            );
        }
        self.conf.insert(key, (src, value));
    }

    pub(crate) fn set_cluster(&mut self, name: String, src: Src, diag: &mut Diag) {
        match &self.cluster {
            Some((old, c)) if *c != name => diag.warn(
                WarningKind::ValueConflict,
                &src.file,
                src.base.clone(),
                format!(
                    "cluster `{name}` differs from `{c}` given by {}; `{c}` kept",
                    old.file
                ),
            ),
            Some(_) => {}
            None => self.cluster = Some((src, name)),
        }
    }

    pub(crate) fn set_leader(&mut self, name: String, src: Src, diag: &mut Diag) {
        match &self.leader {
            Some((old, l)) if *l != name => diag.warn(
                WarningKind::ValueConflict,
                &src.file,
                src.base.clone(),
                format!(
                    "leader `{name}` differs from `{l}` given by {}; `{l}` kept",
                    old.file
                ),
            ),
            Some(_) => {}
            None => self.leader = Some((src, name)),
        }
    }

    pub(crate) fn add_failure_domain(
        &mut self,
        domain: String,
        brokers: Vec<String>,
        src: Src,
        diag: &mut Diag,
    ) {
        match self.failure_domains.get(&domain) {
            Some((old, b)) if *b != brokers => diag.warn(
                WarningKind::ValueConflict,
                &src.file,
                src.base.clone(),
                format!(
                    "failure domain `{domain}` also given by {} with other brokers; that one kept",
                    old.file
                ),
            ),
            Some(_) => {}
            None => {
                self.failure_domains.insert(domain, (src, brokers));
            }
        }
    }

    pub(crate) fn add_isolation(
        &mut self,
        name: String,
        policy: NamespaceIsolationPolicy,
        src: Src,
        diag: &mut Diag,
    ) {
        match self.isolation.get(&name) {
            Some((old, p)) if *p != policy => diag.warn(
                WarningKind::ValueConflict,
                &src.file,
                src.base.clone(),
                format!(
                    "isolation policy `{name}` also given by {} differently; that one kept",
                    old.file
                ),
            ),
            Some(_) => {}
            None => {
                self.isolation.insert(name, (src, policy));
            }
        }
    }
}
