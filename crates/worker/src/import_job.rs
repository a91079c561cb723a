//! The `import` request: uploaded files imported by core in the worker, so a 177 MB snapshot never
//! costs the page a long task. The page sends the files beside the request's JSON in one message
//! (`{request, files}`: `File`/`Blob` handles, read here with `FileReaderSync`, or `ArrayBuffer`s in
//! the transfer list: neither is copied on the page). The worker keeps the snapshot it imported as
//! the one it plans on (with its fingerprint, computed once here), answers `imported` with the
//! warnings, then sends the snapshot in `view::snapshot_chunks` parts, which the page assembles
//! between its other tasks. Every snapshot the dashboard shows comes this way: uploads, the demo,
//! `?snapshot=URL`, host-given text (a transferred `ArrayBuffer`) and a snapshot kept by an older
//! dashboard ([`read_kept`]). A plan worker started after the last one died is given the shown
//! snapshot's files again (`restore`): it imports and holds them, and sends no parts.

use lbplan_core::import::{ImportInput, ImportOptions, import_with};
use lbplan_core::model::Snapshot;
use lbplan_core::model::fingerprint::snapshot_fingerprint;
use lbplan_core::view::snapshot_chunks::{DEFAULT_CHUNK_BYTES, write_chunks};

use crate::WorkerState;
use crate::lists_apart;
use crate::protocol::{ImportJob, Response};

/// What the worker keeps after an import: (the page's id for it, the snapshot, its fingerprint).
pub type Kept = (u64, Snapshot, String);

/// Imports `job`'s files (`bytes`, in the order of `job.files`); posts `imported` and the parts.
/// Returns the snapshot to keep when the import succeeded.
pub fn run(job: ImportJob, bytes: Vec<Vec<u8>>, post: &mut dyn FnMut(Response)) -> Option<Kept> {
    let (id, snapshot_id) = (job.id, job.snapshot_id);
    let failed = |message: String| Response::Imported {
        id,
        snapshot_id,
        result: Err(message),
    };
    if bytes.len() != job.files.len() {
        post(failed(format!(
            "the worker received {} file(s) for {} name(s): reload the page",
            bytes.len(),
            job.files.len()
        )));
        return None;
    }
    let inputs: Vec<ImportInput<'_>> = job
        .files
        .iter()
        .zip(bytes.iter())
        .map(|((name, in_tree), b)| {
            if *in_tree {
                ImportInput::in_tree(name.as_str(), b.as_slice())
            } else {
                ImportInput::given(name.as_str(), b.as_slice())
            }
        })
        .collect();
    let read = if job.kept {
        match bytes.as_slice() {
            [one] => read_kept(one),
            _ => Err("a kept snapshot is one file".to_string()),
        }
    } else {
        import_with(&inputs, &ImportOptions::default())
            .map(|i| {
                let warnings = i.warnings.iter().map(ToString::to_string).collect();
                (i.snapshot, warnings)
            })
            .map_err(|e| e.to_string())
    };
    let (snapshot, warnings) = match read {
        Ok(r) => r,
        Err(e) => {
            post(failed(e));
            return None;
        }
    };
    drop(inputs);
    drop(bytes);
    post(Response::Imported {
        id,
        snapshot_id,
        result: Ok(warnings),
    });
    if job.restore {
        // The page shows this snapshot already: the worker only has to hold it again.
        let fingerprint = snapshot_fingerprint(&snapshot);
        return Some((snapshot_id, snapshot, fingerprint));
    }
    let budget = match job.chunk_bytes {
        0 => DEFAULT_CHUNK_BYTES,
        n => n,
    };
    // Many namespaces, and the lists of brokers with many bundles, go in parts of their own after
    // the head (`lists_apart`): in core's parts each would be one long task on the page.
    let mut snapshot = snapshot;
    let taken = lists_apart::take_large(&mut snapshot);
    let mut head_sent = false;
    let mut lists_sent = Ok(());
    let sent = write_chunks(&snapshot, budget, &mut |json| {
        post(Response::Part {
            id,
            json: json.to_string(),
        });
        if !head_sent {
            head_sent = true;
            lists_sent = lists_apart::write_parts(&taken, budget, &mut |json| {
                post(Response::ListsPart {
                    id,
                    json: json.to_string(),
                })
            });
        }
    });
    let sent = sent.map_err(|e| e.to_string()).and(lists_sent);
    lists_apart::put_back(&mut snapshot, taken);
    if let Err(e) = sent {
        post(Response::Failed { id, message: e });
        return None;
    }
    // After the parts: the page shows the snapshot while the worker computes this.
    let fingerprint = snapshot_fingerprint(&snapshot);
    Some((snapshot_id, snapshot, fingerprint))
}

/// Version of the envelope older dashboards kept a snapshot in (localStorage or IndexedDB).
pub const KEPT_SNAPSHOT_FORMAT_VERSION: u32 = 1;

/// A snapshot kept by an older dashboard: `{format_version, source, warnings, snapshot}`.
#[derive(serde::Deserialize)]
struct KeptEnvelope {
    format_version: u32,
    warnings: Vec<String>,
    snapshot: serde_json::Value,
}

/// A kept envelope, checked: its version, then the snapshot by core's snapshot reader (unknown
/// keys found by that reading are added to the warnings kept at import).
pub fn read_kept(bytes: &[u8]) -> Result<(Snapshot, Vec<String>), String> {
    let env: KeptEnvelope =
        serde_json::from_slice(bytes).map_err(|e| format!("saved snapshot: {e}"))?;
    if env.format_version != KEPT_SNAPSHOT_FORMAT_VERSION {
        return Err(format!(
            "saved snapshot format_version {} is not supported",
            env.format_version
        ));
    }
    let body = serde_json::to_string(&env.snapshot).map_err(|e| format!("saved snapshot: {e}"))?;
    let read =
        lbplan_core::import::read_snapshot("saved snapshot", &body).map_err(|e| e.to_string())?;
    let mut warnings = env.warnings;
    warnings.extend(
        read.warnings
            .iter()
            .filter(|w| w.kind == lbplan_core::import::WarningKind::UnknownField)
            .map(ToString::to_string),
    );
    Ok((read.snapshot, warnings))
}

impl WorkerState {
    /// [`WorkerState::handle`] for a message that brought files' bytes along (an `import`).
    pub fn handle_with_files(
        &mut self,
        text: &str,
        files: Vec<Vec<u8>>,
        post: &mut dyn FnMut(Response),
        now_ms: &mut dyn FnMut() -> f64,
    ) {
        self.inbox = files;
        self.handle(text, post, now_ms);
        self.inbox = Vec::new();
    }
}

/// The request's JSON and the files' bytes of one message from the page: a string alone, or
/// `{request, files}` with `Blob`s (read with `FileReaderSync`) or `ArrayBuffer`s.
#[cfg(target_arch = "wasm32")]
pub fn receive(data: &wasm_bindgen::JsValue) -> Result<(String, Vec<Vec<u8>>), String> {
    use wasm_bindgen::JsCast;

    if let Some(text) = data.as_string() {
        return Ok((text, Vec::new()));
    }
    let field = |k: &str| js_sys::Reflect::get(data, &k.into()).ok();
    let text = field("request")
        .and_then(|v| v.as_string())
        .ok_or("a message without its request")?;
    let files: js_sys::Array = field("files")
        .and_then(|v| v.dyn_into().ok())
        .unwrap_or_default();
    let mut out = Vec::with_capacity(files.length() as usize);
    let mut reader = None;
    for f in files.iter() {
        let buffer = if let Some(blob) = f.dyn_ref::<web_sys::Blob>() {
            let r = match &reader {
                Some(r) => r,
                None => reader.insert(
                    web_sys::FileReaderSync::new()
                        .map_err(|e| format!("cannot read the files here: {e:?}"))?,
                ),
            };
            r.read_as_array_buffer(blob)
                .map_err(|e| format!("a file could not be read: {e:?}"))?
        } else if let Some(b) = f.dyn_ref::<js_sys::ArrayBuffer>() {
            b.clone()
        } else {
            return Err("a file that is neither a Blob nor an ArrayBuffer".to_string());
        };
        out.push(js_sys::Uint8Array::new(&buffer).to_vec());
    }
    Ok((text, out))
}

#[cfg(test)]
mod tests {
    use lbplan_core::view::snapshot_chunks::Assembler;

    use super::*;
    use crate::protocol::{PlanJob, Request, SnapshotPart, WORKER_PROTOCOL_VERSION};

    /// The dashboard's demo file, as the page would upload it.
    const DEMO: &str = include_str!("../../../static/demo-snapshot.json");

    fn import_request(id: u32, snapshot_id: u64, names: &[&str], chunk_bytes: usize) -> String {
        serde_json::to_string(&Request::Import(Box::new(ImportJob {
            format_version: WORKER_PROTOCOL_VERSION,
            id,
            snapshot_id,
            files: names.iter().map(|n| (n.to_string(), false)).collect(),
            chunk_bytes,
            kept: false,
            restore: false,
            live: false,
        })))
        .unwrap()
    }

    fn run_import(state: &mut WorkerState, text: &str, files: Vec<Vec<u8>>) -> Vec<String> {
        let mut out = Vec::new();
        state.handle_with_files(text, files, &mut |r| out.push(r.to_json()), &mut || 0.0);
        out
    }

    #[test]
    fn an_import_answers_warnings_then_parts_that_assemble_to_the_snapshot() {
        let mut state = WorkerState::default();
        let out = run_import(
            &mut state,
            &import_request(4, 9, &["demo-snapshot.json"], 8 * 1024),
            vec![DEMO.as_bytes().to_vec()],
        );
        let first: Response = serde_json::from_str(&out[0]).unwrap();
        assert_eq!(
            first,
            Response::Imported {
                id: 4,
                snapshot_id: 9,
                result: Ok(Vec::new())
            }
        );
        // The leader's view was built after the parts were posted, before any plan was asked.
        let names: Vec<&str> = state.spans.iter().map(|(n, _, _)| *n).collect();
        assert_eq!(
            names,
            ["worker: import and parts", "worker: leader view built"]
        );
        let mut assembler = Assembler::new();
        for text in &out[1..] {
            // Parts travel as bytes; the page reads them so.
            assert_eq!(
                SnapshotPart::read_bytes(text.as_bytes()),
                SnapshotPart::read(text)
            );
            let part = SnapshotPart::read(text).unwrap().unwrap();
            assert_eq!(part.id, 4);
            assembler.push(part.chunk).unwrap();
        }
        // Several parts under an 8 KiB budget, and the same snapshot the page's own import reads.
        assert!(out.len() > 4);
        let expected = lbplan_core::import::read_snapshot("demo", DEMO)
            .unwrap()
            .snapshot;
        assert_eq!(assembler.finish().unwrap(), expected);
        // The worker plans on it without the page sending it.
        let job = PlanJob::new(1, 9, None, &lbplan_core::plan::PlanRequest::leader_cycle());
        let mut answers = Vec::new();
        state.handle(
            &serde_json::to_string(&Request::Plan(Box::new(job))).unwrap(),
            &mut |r| answers.push(r),
            &mut || 0.0,
        );
        let plan_of_page = lbplan_core::plan::make_plan(
            &expected,
            &lbplan_core::plan::PlanRequest::leader_cycle(),
        )
        .unwrap();
        match answers.as_slice() {
            [Response::Planned { result: Ok(p), .. }] => assert_eq!(**p, plan_of_page),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_broken_file_is_an_error_naming_it_and_nothing_is_kept() {
        let mut state = WorkerState::default();
        let out = run_import(
            &mut state,
            &import_request(2, 3, &["broken.json"], 0),
            vec![b"{\"format_version\": 1, \"brokers\": [".to_vec()],
        );
        assert_eq!(out.len(), 1);
        match serde_json::from_str::<Response>(&out[0]).unwrap() {
            Response::Imported {
                id: 2,
                snapshot_id: 3,
                result: Err(e),
            } => assert!(e.contains("broken.json"), "{e}"),
            other => panic!("{other:?}"),
        }
        assert!(state.snapshot.is_none());
    }

    #[test]
    fn files_and_names_must_pair_up() {
        let mut state = WorkerState::default();
        let out = run_import(
            &mut state,
            &import_request(5, 1, &["a.json", "b.json"], 0),
            vec![DEMO.as_bytes().to_vec()],
        );
        assert!(
            out[0].contains("received 1 file(s) for 2 name(s)"),
            "{}",
            out[0]
        );
    }

    /// A host page's snapshot text (named `snapshot`, as `app/loading.rs` names it) with a bad
    /// value: the error names the file and the JSON path, as the page's own import did.
    #[test]
    fn a_host_snapshot_with_a_bad_value_names_the_file_and_json_path() {
        let mut broken: serde_json::Value = serde_json::from_str(DEMO).unwrap();
        broken["brokers"]["broker-00.demo.svc:8080"]["local_broker_data"]["cpu"]["usage"] =
            serde_json::json!("high");
        let mut state = WorkerState::default();
        let out = run_import(
            &mut state,
            &import_request(7, 8, &["snapshot"], 0),
            vec![broken.to_string().into_bytes()],
        );
        match serde_json::from_str::<Response>(&out[0]).unwrap() {
            Response::Imported { result: Err(e), .. } => assert!(
                e.contains("snapshot") && e.contains("local_broker_data.cpu.usage"),
                "{e}"
            ),
            other => panic!("{other:?}"),
        }
        assert!(state.snapshot.is_none());
    }
}
