//! Publishing diagnostics: computed on a snapshot off the async threads,
//! sent only for files whose diagnostics changed (or, for an open file,
//! whose version did), and cleared for files that left the workspace.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{MessageType, Uri};

use crate::guard::{Guarded, guarded};
use crate::workspace::Workspace;

/// Computes every file's diagnostics on a snapshot and publishes those
/// that changed since the last publish (an empty list clears a file).
pub async fn publish(
    client: Client,
    workspace: Arc<Mutex<Option<Workspace>>>,
    counter: Arc<AtomicU64>,
    generation: u64,
    sending: Arc<tokio::sync::Mutex<()>>,
) {
    let lock = || workspace.lock().unwrap_or_else(|e| e.into_inner());
    let Some(snapshot) = lock().as_ref().map(Workspace::snapshot) else {
        return;
    };
    let computed =
        tokio::task::spawn_blocking(move || guarded(|| snapshot.all_diagnostics())).await;
    let all = match computed {
        Ok(Guarded::Done(all)) => all,
        // A newer edit cancelled it; its own publish follows.
        Ok(Guarded::Cancelled) => return,
        Ok(Guarded::Panicked(why)) => {
            client
                .log_message(
                    MessageType::ERROR,
                    format!("wfc lsp: diagnostics failed: {why}"),
                )
                .await;
            return;
        }
        Err(join) => {
            client
                .log_message(
                    MessageType::ERROR,
                    format!("wfc lsp: diagnostics failed: {join}"),
                )
                .await;
            return;
        }
    };
    // From the staleness check to the last notification: a publish that
    // passed the check must be on the wire before a newer one checks, or
    // the client could receive the older diagnostics last (and, with
    // `published` already updated, never get the newer ones again).
    let _sending = sending.lock().await;
    let mut changed = Vec::new();
    {
        let mut guard = lock();
        let Some(ws) = guard.as_mut() else { return };
        if counter.load(Ordering::SeqCst) != generation {
            return; // stale: a newer publish is scheduled
        }
        // Files that left the workspace (deleted, or their folder removed)
        // are cleared.
        let present: std::collections::HashSet<&Uri> = all.iter().map(|(uri, _)| uri).collect();
        let gone: Vec<Uri> = ws
            .published
            .iter()
            .filter(|(uri, d)| !d.is_empty() && !present.contains(uri))
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in gone {
            ws.published.insert(uri.clone(), Vec::new());
            changed.push((uri, Vec::new(), None));
        }
        for (uri, diagnostics) in all {
            let before = ws.published.get(&uri).map_or(&[][..], Vec::as_slice);
            let version = ws.version(&uri);
            // An open file's new version is published even when its
            // diagnostics did not change: a client then knows they are
            // those of the text it has (and tests wait for it, not for
            // the server to go quiet).
            let new_version =
                version.is_some() && version != ws.published_versions.get(&uri).copied();
            if before != diagnostics.as_slice() || new_version {
                ws.published.insert(uri.clone(), diagnostics.clone());
                if let Some(v) = version {
                    ws.published_versions.insert(uri.clone(), v);
                }
                changed.push((uri, diagnostics, version));
            }
        }
    }
    for (uri, diagnostics, version) in changed {
        client.publish_diagnostics(uri, diagnostics, version).await;
    }
}
