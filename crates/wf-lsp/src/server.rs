//! The [`LanguageServer`] implementation: capabilities, document sync,
//! debounced diagnostics, and request dispatch onto snapshots.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::features;
use crate::guard::{Guarded, guarded};
use crate::publish::publish;
use crate::workspace::{Snapshot, Workspace};

/// The server: the client handle and the shared workspace.
pub struct Backend {
    client: Client,
    workspace: Arc<Mutex<Option<Workspace>>>,
    /// Bumped on every edit; a debounced publish runs only if no edit came
    /// after the one that scheduled it.
    generation: Arc<AtomicU64>,
    /// Held by a publish from its staleness check until its notifications
    /// are sent, so an older publish can never be sent after a newer one.
    sending: Arc<tokio::sync::Mutex<()>>,
    /// The debounce delay in milliseconds (see [`crate::debounce_from_env`]
    /// and the `debounceMs` initialization option).
    debounce_ms: Arc<AtomicU64>,
    /// Whether the client lets the server register file watchers.
    watch: Arc<std::sync::atomic::AtomicBool>,
}

impl Backend {
    /// A server talking to `client` (for [`tower_lsp_server::LspService::new`]).
    pub fn new(client: Client) -> Self {
        Backend {
            client,
            workspace: Arc::new(Mutex::new(None)),
            generation: Arc::new(AtomicU64::new(0)),
            sending: Arc::new(tokio::sync::Mutex::new(())),
            debounce_ms: Arc::new(AtomicU64::new(crate::debounce_from_env().as_millis() as u64)),
            watch: Arc::new(std::sync::atomic::AtomicBool::new(false)),
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

    /// Loads the workspace again with `folders` (off the async threads),
    /// keeping the open documents, then publishes.
    async fn reload(&self, folders: Vec<std::path::PathBuf>) {
        let built = tokio::task::spawn_blocking(move || Workspace::new(folders)).await;
        let Ok((mut fresh, problems)) = built else {
            return;
        };
        {
            let mut guard = self.lock();
            if let Some(old) = guard.as_ref() {
                // Documents as they are now (edits may have landed while
                // the new workspace was loading).
                for doc in old.open.values() {
                    fresh.open(doc.uri.clone(), doc.version, doc.text.clone());
                }
                fresh.published = old.published.clone();
                fresh.published_versions = old.published_versions.clone();
            }
            *guard = Some(fresh);
        }
        for problem in problems {
            self.client.log_message(MessageType::WARNING, problem).await;
        }
        self.schedule_publish();
    }

    /// Schedules a publish of the diagnostics after the debounce delay.
    fn schedule_publish(&self) {
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let (client, workspace, counter, sending) = (
            self.client.clone(),
            self.workspace.clone(),
            self.generation.clone(),
            self.sending.clone(),
        );
        let delay = std::time::Duration::from_millis(self.debounce_ms.load(Ordering::Relaxed));
        tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            if counter.load(Ordering::SeqCst) == generation {
                publish(client, workspace, counter, generation, sending).await;
            }
        });
    }
}

/// Every workspace folder (or the root URI) as a path.
fn workspace_folders(params: &InitializeParams) -> Vec<std::path::PathBuf> {
    let folders: Vec<std::path::PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned()))
        .collect();
    if !folders.is_empty() {
        return folders;
    }
    #[allow(deprecated)] // root_uri is what older clients send
    let root = params.root_uri.as_ref();
    root.and_then(|uri| uri.to_file_path().map(|p| p.into_owned()))
        .into_iter()
        .collect()
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let folders = workspace_folders(&params);
        let watch = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|w| w.dynamic_registration)
            .unwrap_or(false);
        self.watch.store(watch, Ordering::Relaxed);
        if let Some(ms) = params
            .initialization_options
            .as_ref()
            .and_then(|options| options.get("debounceMs"))
            .and_then(serde_json::Value::as_u64)
        {
            self.debounce_ms.store(ms, Ordering::Relaxed);
        }
        let (workspace, problems) = tokio::task::spawn_blocking(move || Workspace::new(folders))
            .await
            .map_err(|_| Error::internal_error())?;
        *self.lock() = Some(workspace);
        for problem in problems {
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
        if self.watch.load(Ordering::Relaxed) {
            // Not awaited here: the client answers after it has read this
            // notification's successors.
            let client = self.client.clone();
            tokio::spawn(async move {
                if let Err(err) = client
                    .register_capability(vec![crate::watch::registration()])
                    .await
                {
                    client
                        .log_message(
                            MessageType::WARNING,
                            format!("wfc lsp: cannot watch files: {err}"),
                        )
                        .await;
                }
            });
        }
        self.schedule_publish();
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        let Some(mut folders) = self.lock().as_ref().map(Workspace::folder_paths) else {
            return;
        };
        let path = |f: &WorkspaceFolder| f.uri.to_file_path().map(|p| p.into_owned());
        let removed: Vec<_> = params.event.removed.iter().filter_map(path).collect();
        folders.retain(|f| !removed.contains(f));
        for added in params.event.added.iter().filter_map(path) {
            if !folders.contains(&added) {
                folders.push(added);
            }
        }
        self.reload(folders).await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let reload = {
            let mut guard = self.lock();
            let Some(ws) = guard.as_mut() else { return };
            ws.disk_changed(&params.changes).then(|| ws.folder_paths())
        };
        match reload {
            Some(folders) => self.reload(folders).await,
            None => self.schedule_publish(),
        }
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
        self.read("formatting", move |s| features::format(s, &uri, None))
            .await
    }

    async fn range_formatting(
        &self,
        params: DocumentRangeFormattingParams,
    ) -> Result<Option<Vec<TextEdit>>> {
        let (uri, range) = (params.text_document.uri, params.range);
        self.read("rangeFormatting", move |s| {
            features::format(s, &uri, Some(range))
        })
        .await
    }
}
