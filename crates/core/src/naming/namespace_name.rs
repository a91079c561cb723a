//! Namespace names (`NamespaceName`): `tenant/namespace`, or the legacy `tenant/cluster/namespace`,
//! each part non-empty and made of `[-=:.A-Za-z0-9_]` (`NamedEntity.checkName`).

use std::fmt;

use super::NamingError;

/// A validated namespace name; `Display` gives the text it was parsed from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NamespaceName {
    pub tenant: String,
    /// The cluster of a legacy (V1) name.
    pub cluster: Option<String>,
    pub local_name: String,
    full: String,
}

/// `NamedEntity.checkName`: Java's `^[-=:.\w]*$` with ASCII `\w` (Pulsar's rule alone; see
/// [`super::rules`] for what a name must pass to leave the planner).
pub fn is_valid_name_part(part: &str) -> bool {
    super::is_named_entity(part)
}

impl NamespaceName {
    /// `NamespaceName.get(String)`. Like Java's `String.split("/")`, trailing empty parts are dropped,
    /// so `tenant/ns/` is accepted and keeps its text.
    pub fn parse(text: &str) -> Result<Self, NamingError> {
        let bad = || NamingError::BadNamespace(text.to_string());
        if text.is_empty() {
            return Err(bad());
        }
        let mut parts: Vec<&str> = text.split('/').collect();
        while parts.last().is_some_and(|p| p.is_empty()) {
            parts.pop();
        }
        let (tenant, cluster, local) = match parts.as_slice() {
            [t, n] => (*t, None, *n),
            [t, c, n] => (*t, Some(*c), *n),
            _ => return Err(bad()),
        };
        Self::from_parts(tenant, cluster, local).map(|mut ns| {
            ns.full = text.to_string();
            ns
        })
    }

    /// `NamespaceName.get(tenant, [cluster,] namespace)` with `validateNamespaceName`.
    pub fn from_parts(
        tenant: &str,
        cluster: Option<&str>,
        local_name: &str,
    ) -> Result<Self, NamingError> {
        let full = match cluster {
            Some(c) => format!("{tenant}/{c}/{local_name}"),
            None => format!("{tenant}/{local_name}"),
        };
        let parts_ok = [Some(tenant), cluster, Some(local_name)]
            .into_iter()
            .flatten()
            .all(|p| !p.is_empty() && is_valid_name_part(p));
        if !parts_ok {
            return Err(NamingError::BadNamespace(full));
        }
        Ok(Self {
            tenant: tenant.to_string(),
            cluster: cluster.map(str::to_string),
            local_name: local_name.to_string(),
            full,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.full
    }
}

impl fmt::Display for NamespaceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.full)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_v2_and_v1_rejects_the_rest() {
        let ns = NamespaceName::parse("public/default").unwrap();
        assert_eq!(
            (ns.tenant.as_str(), ns.local_name.as_str()),
            ("public", "default")
        );
        assert!(NamespaceName::parse("t/c/ns").unwrap().cluster.is_some());
        assert!(NamespaceName::parse("tenant-x/ns.1=a:b_c").is_ok());
        for bad in [
            "",
            "public",
            "a/b/c/d",
            "/ns",
            "a//b",
            "bad name/ns",
            "ünï/ns",
        ] {
            assert!(NamespaceName::parse(bad).is_err(), "{bad}");
        }
    }
}
