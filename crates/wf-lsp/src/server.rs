//! The [`LanguageServer`] implementation: capabilities, document sync,
//! debounced diagnostics, and request dispatch onto snapshots.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};
use wf_analysis::db::ide::catch_cancellation;

use crate::features;
use crate::workspace::{Snapshot, Workspace};

/// The server: the client handle and the shared workspace.
pub struct Backend {
    client: Client,
    workspace: Arc<Mutex<Option<Workspace>>>,
    /// Bumped on every edit; a debounced publish runs only if no edit came
    /// after the one that scheduled it.
    generation: Arc<AtomicU64>,
    /// The debounce delay in milliseconds (see [`crate::debounce_from_env`]
    /// and the `debounceMs` initialization option).
    debounce_ms: Arc<AtomicU64>,
}

impl Backend {
    /// A server talking to `client` (for [`tower_lsp_server::LspService::new`]).
    pub fn new(client: Client) -> Self {
        Backend {
            client,
            workspace: Arc::new(Mutex::new(None)),
            generation: Arc::new(AtomicU64::new(0)),
            debounce_ms: Arc::new(AtomicU64::new(crate::debounce_from_env().as_millis() as u64)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Workspace>> {
        // A panic while holding the lock leaves the state as it was before
        // the edit at worst: keep serving.
        self.workspace.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `read` on a snapshot on a blocking thread. Cancellation by a
    /// newer edit answers "content modified"; a panic is logged and answered
    /// with an internal error.
    async fn read<T: Send + 'static>(
        &self,
        what: &'static str,
        read: impl FnOnce(&Snapshot) -> Option<T> + Send + 'static,
    ) -> Result<Option<T>> {
        let Some(snapshot) = self.lock().as_ref().map(Workspace::snapshot) else {
            return Ok(None);
        };
        let outcome = tokio::task::spawn_blocking(move || guarded(|| read(&snapshot))).await;
        match outcome {
            Ok(Guarded::Done(value)) => Ok(value),
            Ok(Guarded::Cancelled) => Err(Error::content_modified()),
            Ok(Guarded::Panicked(why)) => {
                self.client
                    .log_message(MessageType::ERROR, format!("wfc lsp: {what} failed: {why}"))
                    .await;
                Err(Error::internal_error())
            }
            Err(join) => {
                self.client
                    .log_message(
                        MessageType::ERROR,
                        format!("wfc lsp: {what} failed: {join}"),
                    )
                    .await;
                Err(Error::internal_error())
            }
        }
    }

    /// Schedules a publish of the diagnostics after the debounce delay.
    fn schedule_publish(&self) {
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let (client, workspace, counter) = (
            self.client.clone(),
            self.workspace.clone(),
            self.generation.clone(),
        );
        let delay = std::time::Duration::from_millis(self.debounce_ms.load(Ordering::Relaxed));
        tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            if counter.load(Ordering::SeqCst) == generation {
                publish(client, workspace, counter, generation).await;
            }
        });
    }
}

/// Computes every file's diagnostics on a snapshot and publishes those
/// that changed since the last publish (an empty list clears a file).
async fn publish(
    client: Client,
    workspace: Arc<Mutex<Option<Workspace>>>,
    counter: Arc<AtomicU64>,
    generation: u64,
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
    let mut changed = Vec::new();
    {
        let mut guard = lock();
        let Some(ws) = guard.as_mut() else { return };
        if counter.load(Ordering::SeqCst) != generation {
            return; // stale: a newer publish is scheduled
        }
        for (uri, diagnostics) in all {
            let before = ws.published.get(&uri).map_or(&[][..], Vec::as_slice);
            if before != diagnostics.as_slice() {
                let version = ws.version(&uri);
                ws.published.insert(uri.clone(), diagnostics.clone());
                changed.push((uri, diagnostics, version));
            }
        }
    }
    for (uri, diagnostics, version) in changed {
        client.publish_diagnostics(uri, diagnostics, version).await;
    }
}

/// How a guarded read ended.
#[derive(Debug, PartialEq)]
enum Guarded<T> {
    /// It returned.
    Done(T),
    /// An edit cancelled it (salsa unwound it).
    Cancelled,
    /// It panicked, with this message.
    Panicked(String),
}

/// Runs a read of a snapshot, catching salsa's cancellation and any panic
/// (a bug in one request must not end the server).
fn guarded<T>(read: impl FnOnce() -> T) -> Guarded<T> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| {
        catch_cancellation(AssertUnwindSafe(read))
    })) {
        Ok(Ok(value)) => Guarded::Done(value),
        Ok(Err(_cancelled)) => Guarded::Cancelled,
        Err(payload) => Guarded::Panicked(panic_message(payload.as_ref())),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

/// The first workspace folder (or the root URI) as a path.
fn workspace_folder(params: &InitializeParams) -> Option<std::path::PathBuf> {
    let folder = params
        .workspace_folders
        .as_ref()
        .and_then(|folders| folders.first())
        .map(|f| f.uri.clone());
    #[allow(deprecated)] // root_uri is what older clients send
    let uri = folder.or_else(|| params.root_uri.clone())?;
    uri.to_file_path().map(|p| p.into_owned())
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let folder = workspace_folder(&params);
        if let Some(ms) = params
            .initialization_options
            .as_ref()
            .and_then(|options| options.get("debounceMs"))
            .and_then(serde_json::Value::as_u64)
        {
            self.debounce_ms.store(ms, Ordering::Relaxed);
        }
        let (workspace, problem) = tokio::task::spawn_blocking(move || Workspace::new(folder))
            .await
            .map_err(|_| Error::internal_error())?;
        *self.lock() = Some(workspace);
        if let Some(problem) = problem {
            self.client.log_message(MessageType::WARNING, problem).await;
        }
        Ok(InitializeResult {
            capabilities: features::capabilities(),
            server_info: Some(ServerInfo {
                name: "wfc".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.schedule_publish();
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    // Document sync: each handler applies its edit before its first
    // `.await`, so edits apply in the order the client sent them.
    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        if let Some(ws) = self.lock().as_mut() {
            ws.open(doc.uri, doc.version, doc.text);
        }
        self.schedule_publish();
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let doc = params.text_document;
        if let Some(ws) = self.lock().as_mut() {
            ws.change(&doc.uri, doc.version, &params.content_changes);
        }
        self.schedule_publish();
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        if let Some(ws) = self.lock().as_mut() {
            ws.close(&params.text_document.uri);
        }
        self.schedule_publish();
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        self.read("hover", move |s| features::hover(s, &at)).await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let at = params.text_document_position_params;
        self.read("definition", move |s| features::definition(s, &at))
            .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let at = params.text_document_position;
        self.read("references", move |s| features::references(s, &at))
            .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let uri = params.text_document.uri;
        self.read("documentSymbol", move |s| {
            features::document_symbols(s, &uri)
        })
        .await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        let uri = params.text_document.uri;
        self.read("foldingRange", move |s| features::folding_ranges(s, &uri))
            .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let at = params.text_document_position;
        self.read("completion", move |s| features::completion(s, &at))
            .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        self.read("codeAction", move |s| features::code_actions(s, &params))
            .await
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        let at = params.text_document_position_params;
        self.read("documentHighlight", move |s| {
            features::document_highlight(s, &at)
        })
        .await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        self.read("prepareRename", move |s| {
            Some(features::prepare_rename(s, &params))
        })
        .await?
        .transpose()
        .map_err(Error::invalid_params)
        .map(Option::flatten)
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        self.read("rename", move |s| Some(features::rename(s, &params)))
            .await?
            .transpose()
            .map_err(Error::invalid_params)
            .map(Option::flatten)
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let (uri, range) = (params.text_document.uri, params.range);
        self.read("inlayHint", move |s| features::inlay_hints(s, &uri, range))
            .await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        let uri = params.text_document.uri;
        self.read("semanticTokens", move |s| {
            features::semantic_tokens(s, &uri)
        })
        .await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        let query = params.query;
        self.read("workspaceSymbol", move |s| {
            features::workspace_symbols(s, &query)
        })
        .await
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        let uri = params.text_document.uri;
        self.read("formatting", move |s| features::format(s, &uri))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_read_is_caught_with_its_message() {
        assert_eq!(guarded(|| 7), Guarded::Done(7));
        let caught: Guarded<()> = guarded(|| panic!("broken hover {}", 3));
        assert_eq!(caught, Guarded::Panicked("broken hover 3".to_string()));
        let caught: Guarded<()> = guarded(|| panic!("static"));
        assert_eq!(caught, Guarded::Panicked("static".to_string()));
    }
}
