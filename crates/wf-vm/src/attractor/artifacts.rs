//! The artifact store (seed 5.5): named stage outputs too large for the
//! context. An artifact is stored under the context key `artifact.<id>`:
//! up to [`FILE_BACKING_THRESHOLD`] bytes (its JSON text) the value itself
//! is there (`data`); above it, with a run directory, the value is written
//! to `{run_dir}/artifacts/<id>.json` and the context holds only where
//! (`path`). Either way the record (`id`, `name`, `size_bytes`,
//! `stored_at`, `is_file_backed`) is in the run's durable context, so a
//! resumed run has every artifact.
//!
//! A handler stores with [`store`] (and adds the returned write to its
//! outcome) and reads with [`retrieve`]; a backend or a tool stores by
//! listing artifacts in the `artifacts` object of its `status.json`
//! (see `status_file`), and reads a file-backed one from its `path`.

use std::io;

use serde_json::{Value, json};

use super::files::{RunFiles, now, safe_name};
use crate::agent::{BlackboardView, Write};

/// Above this many bytes an artifact is written to a file (seed: 100 KB).
pub const FILE_BACKING_THRESHOLD: usize = 100 * 1024;

/// The context key of artifact `id`.
pub fn key(id: &str) -> String {
    format!("artifact.{id}")
}

/// Stores `data` as artifact `id` (named `name`): writes the file when it
/// is file-backed, and returns the context write that records it.
pub fn store(files: Option<&RunFiles>, id: &str, name: &str, data: &Value) -> io::Result<Write> {
    if id.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "an artifact id must not be empty",
        ));
    }
    let bytes = serde_json::to_vec(data).expect("JSON values serialise");
    let (ms, stored_at) = now();
    let mut info = json!({
        "id": id,
        "name": name,
        "size_bytes": bytes.len(),
        "stored_at": stored_at,
        "stored_at_ms": ms,
    });
    let map = info.as_object_mut().expect("an object");
    match files.filter(|_| bytes.len() > FILE_BACKING_THRESHOLD) {
        Some(files) => {
            let dir = files.root().join("artifacts");
            std::fs::create_dir_all(&dir)?;
            let file = format!("{}.json", safe_name(id));
            files.write_atomic(&dir.join(&file), &bytes)?;
            map.insert("is_file_backed".into(), json!(true));
            map.insert("path".into(), json!(format!("artifacts/{file}")));
        }
        None => {
            map.insert("is_file_backed".into(), json!(false));
            map.insert("data".into(), data.clone());
        }
    }
    Ok(Write {
        key: key(id),
        value: info,
    })
}

/// Artifact `id` as stored in `context`; `Err` says why not (none by that
/// id, its file missing or unreadable).
pub fn retrieve(
    files: Option<&RunFiles>,
    context: &dyn BlackboardView,
    id: &str,
) -> Result<Value, String> {
    let info = context
        .get(&key(id))
        .ok_or_else(|| format!("Artifact not found: `{id}`"))?;
    if info["is_file_backed"] != true {
        return Ok(info["data"].clone());
    }
    let (Some(files), Some(path)) = (files, info["path"].as_str()) else {
        return Err(format!(
            "artifact `{id}` is file-backed, and this run has no run directory to read it from"
        ));
    };
    let path = files.root().join(path);
    let text = std::fs::read(&path)
        .map_err(|e| format!("cannot read artifact `{id}` from `{}`: {e}", path.display()))?;
    serde_json::from_slice(&text)
        .map_err(|e| format!("artifact `{id}` in `{}` is not JSON: {e}", path.display()))
}

/// The ids of the artifacts in `context`, in key order.
pub fn list(context: &dyn BlackboardView) -> Vec<String> {
    let mut ids: Vec<String> = context
        .keys()
        .into_iter()
        .filter_map(|k| k.strip_prefix("artifact."))
        .map(str::to_owned)
        .collect();
    ids.sort();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    struct Ctx(BTreeMap<String, Value>);

    impl BlackboardView for Ctx {
        fn get(&self, key: &str) -> Option<&Value> {
            self.0.get(key)
        }
        fn keys(&self) -> Vec<&str> {
            self.0.keys().map(String::as_str).collect()
        }
        fn local(&self) -> Vec<(&str, &Value)> {
            self.0.iter().map(|(k, v)| (k.as_str(), v)).collect()
        }
    }

    #[test]
    fn small_artifacts_live_in_the_context_large_ones_in_files() {
        let dir = std::env::temp_dir().join(format!("wf-vm-artifacts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let files = RunFiles::new(&dir);
        let small = json!({"lines": 3});
        let large = json!("x".repeat(FILE_BACKING_THRESHOLD + 1));
        let mut ctx = Ctx(BTreeMap::new());
        for (id, data) in [("plan", &small), ("log/full", &large)] {
            let w = store(Some(&files), id, id, data).unwrap();
            ctx.0.insert(w.key, w.value);
        }
        assert_eq!(ctx.0["artifact.plan"]["is_file_backed"], false);
        let big = &ctx.0["artifact.log/full"];
        assert_eq!(big["is_file_backed"], true);
        assert_eq!(big["path"], "artifacts/log%2Ffull.json");
        assert!(big.get("data").is_none());
        assert!(dir.join("artifacts/log%2Ffull.json").is_file());
        assert_eq!(retrieve(Some(&files), &ctx, "plan").unwrap(), small);
        assert_eq!(retrieve(Some(&files), &ctx, "log/full").unwrap(), large);
        assert!(
            retrieve(Some(&files), &ctx, "nope")
                .unwrap_err()
                .contains("not found")
        );
        assert_eq!(list(&ctx), ["log/full", "plan"]);
        // Without a run directory everything stays in the context.
        let w = store(None, "big", "big", &large).unwrap();
        assert_eq!(w.value["is_file_backed"], false);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
