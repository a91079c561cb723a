//! The one naming rule (`lbplan_core::naming`): names Pulsar accepts (`NamedEntity.checkName`
//! `^[-=:.\w]*$`, `NamespaceName.validateNamespaceName`, `TopicName`) pass, names Pulsar rejects
//! are refused, and so are the ones Pulsar accepts but that are dangerous downstream (dot segments,
//! a leading `-`). Broker ids accept IPv6 in brackets everywhere.

use lbplan_core::naming::{
    NameKind, check_broker_id, check_bundle, check_namespace, check_topic, is_broker_id,
    is_named_entity, is_pulsar_name,
};

#[test]
fn names_pulsar_accepts_pass() {
    // Names from Pulsar's docs and tests: `public/default`, `pulsar/system`, `my-tenant`,
    // `sample/standalone`-style and `prop-xyz/ns1`, plus every special character checkName allows.
    for ns in [
        "public/default",
        "pulsar/system",
        "my-tenant/my-namespace",
        "prop-xyz/ns1",
        "t_1/a=b:c.d",
        "pulsar/10.0.0.1:8080",
    ] {
        assert!(check_namespace(ns).is_ok(), "{ns}");
    }
    assert_eq!(check_namespace("acme/orders").unwrap(), ("acme", "orders"));
    let t = check_topic("persistent://public/default/my-topic-partition-3").unwrap();
    assert_eq!(
        (t.domain, t.tenant, t.namespace, t.local_name),
        ("persistent", "public", "default", "my-topic-partition-3")
    );
    assert!(check_topic("non-persistent://public/default/a.b:c=d").is_ok());
    let (ns, range) = check_bundle("public/default/0x00000000_0x40000000").unwrap();
    assert_eq!(ns, "public/default");
    assert_eq!(range.to_string(), "0x00000000_0x40000000");
}

#[test]
fn names_pulsar_rejects_are_refused() {
    // `NamedEntity.checkName` allows only [-=:.A-Za-z0-9_]: a space, `/`, `$`, `;`, `'`, non-ASCII.
    for ns in [
        "public/default; rm -rf /",
        "pub$(id)/x",
        "public/de'fault",
        "ünï/ns",
        "bad name/ns",
        "public",
        "/ns",
        "t/",
    ] {
        assert!(check_namespace(ns).is_err(), "{ns}");
    }
    assert!(is_named_entity("a-b=c:d.e_f") && !is_named_entity("a b"));
    for topic in [
        "queue://t/ns/x",
        "persistent://t/ns/",
        "persistent://bad tenant/ns/x",
        "persistent://t//x",
        "public/default/x",
    ] {
        assert!(check_topic(topic).is_err(), "{topic}");
    }
}

#[test]
fn names_dangerous_downstream_are_refused() {
    // `..` passes checkName but curl collapses it; a leading `-` is an option to
    // pulsar-admin; control characters break the script's lines.
    let e = check_namespace("acme/..").unwrap_err();
    assert_eq!(e.kind, NameKind::Namespace);
    assert!(e.to_string().contains("dot segments"), "{e}");
    assert!(check_namespace("../0x00000000_0x10000000").is_err());
    assert!(check_namespace("./ns").is_err());
    let e = check_namespace("acme/-ns").unwrap_err();
    assert!(e.to_string().contains("leading `-`"), "{e}");
    assert!(check_namespace("-t/ns").is_err());
    assert!(check_namespace("acme/or\nders").is_err());
    // `persistent://../../x` would become `PUT /admin/x/unload`.
    let e = check_topic("persistent://../../x").unwrap_err();
    assert_eq!(e.kind, NameKind::Tenant);
    assert!(check_topic("persistent://t/ns/..").is_err());
    assert!(check_topic("persistent://t/ns/.").is_err());
    // V2 `t/ns/a/b` is read by Pulsar as the legacy tenant/cluster/namespace/topic `t/ns/a` + `b`.
    assert!(check_topic("persistent://t/ns/a/b").is_err());
    assert!(check_topic("persistent://public/default/x'; reboot; '").is_err());
    assert!(check_topic("persistent://public/default/x\ty").is_err());
    assert!(check_bundle("acme/../0x00000000_0x10000000").is_err());
    assert!(!is_pulsar_name("..") && !is_pulsar_name("-x") && !is_pulsar_name(""));
    // The message shows a control character escaped, on one line.
    let e = check_namespace("a/b\u{7}").unwrap_err().to_string();
    assert!(e.contains("b\\u{7}") && !e.contains('\u{7}'), "{e}");
}

#[test]
fn broker_ids_are_host_port_with_ipv6_in_brackets() {
    for ok in [
        "broker-1.pulsar.svc:8080",
        "10.244.2.23:8080",
        "[::1]:8080",
        "[2001:db8::7]:8443",
    ] {
        assert!(check_broker_id(ok).is_ok(), "{ok}");
    }
    for bad in [
        "b1:8080`touch x`",
        "http://b1:8080",
        "b1",
        "-b1:8080",
        "..:8080",
        "b1:65536",
        "b1:0",
        "[::1]8080",
    ] {
        assert!(!is_broker_id(bad), "{bad}");
    }
}

/// The corpus's metadata-store tree with `loadbalance/leader` replaced by `leader`.
fn import_with_leader(leader: &str) -> Result<lbplan_core::import::Imported, String> {
    use lbplan_core::import::{ImportInput, Origin, import};
    use std::borrow::Cow;
    use std::path::Path;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import_corpus/metadata-store");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path
                    .strip_prefix(root.parent().unwrap())
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let bytes = if name.ends_with("loadbalance/leader") {
                    leader.as_bytes().to_vec()
                } else {
                    std::fs::read(&path).unwrap()
                };
                files.push((name, bytes));
            }
        }
    }
    files.sort();
    let inputs: Vec<ImportInput<'_>> = files
        .iter()
        .map(|(n, b)| ImportInput {
            name: Cow::Borrowed(n.as_str()),
            bytes: Cow::Borrowed(b.as_slice()),
            origin: Origin::Tree,
            display: None,
        })
        .collect();
    import(&inputs).map_err(|e| e.to_string())
}

#[test]
fn the_importer_reads_a_leader_url_with_the_same_broker_rule() {
    let imp = import_with_leader(r#"{"serviceUrl":"http://10.0.0.1:8080/"}"#).unwrap();
    assert_eq!(imp.snapshot.leader_broker.as_deref(), Some("10.0.0.1:8080"));
    // Before the rule was shared, any text with a `:` was taken for a broker id.
    let e = import_with_leader(r#"{"serviceUrl":"http://..:8080/"}"#).unwrap_err();
    assert!(
        e.contains("serviceUrl") && e.contains("expected a URL http://host:port"),
        "{e}"
    );
}
