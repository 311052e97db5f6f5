//! The `wfc` language server: `.wf` diagnostics, hover, navigation and
//! editing help over the Language Server Protocol, on tower-lsp-server.
//!
//! It runs on the same salsa database as `wfc check` (the
//! [`wf_analysis::Database`]), so the editor and CI never disagree. Edits
//! go to the database under a lock; every request reads a snapshot (a
//! clone) on a blocking thread, so a request still running when the next
//! edit lands is cancelled by salsa and answered with "content modified",
//! and a panic in a request is caught, logged to the client and answered
//! with an internal error rather than ending the server. See `docs/lsp.md`.

mod convert;
mod features;
mod guard;
mod publish;
mod server;
mod watch;
mod workspace;

pub use convert::{LineIndex, apply_change};
pub use server::Backend;

use tower_lsp_server::{LspService, Server};

/// How long after the last edit diagnostics are recomputed and published,
/// unless the `WFC_LSP_DEBOUNCE_MS` environment variable or the
/// `debounceMs` initialization option says otherwise.
pub const DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(150);

/// The debounce delay: `WFC_LSP_DEBOUNCE_MS` (milliseconds, `0` publishes
/// as soon as an edit lands, as the latency benchmark does) when set to a
/// number, else [`DEBOUNCE`]. The `debounceMs` initialization option
/// overrides both.
pub fn debounce_from_env() -> std::time::Duration {
    std::env::var("WFC_LSP_DEBOUNCE_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(DEBOUNCE, std::time::Duration::from_millis)
}

/// Serves the protocol on `input`/`output` until the client sends `exit`
/// (or closes the input).
pub async fn serve<I, O>(input: I, output: O)
where
    I: tokio::io::AsyncRead + Unpin,
    O: tokio::io::AsyncWrite,
{
    let (service, socket) = LspService::new(Backend::new);
    Server::new(input, output, socket).serve(service).await;
}

/// Serves the protocol on standard input and output (what `wfc lsp` does).
pub fn run_stdio() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    Ok(())
}
