//! `wfc lsp`: the language server on standard input and output (see
//! `docs/lsp.md`).

use clap::Args;

/// Arguments of `wfc lsp`.
#[derive(Debug, Args)]
pub struct LspArgs {
    /// Talk over standard input and output (the default and only transport;
    /// accepted because editors pass it).
    #[arg(long)]
    stdio: bool,
}

/// Runs the server until the client says `exit`.
pub fn run(args: LspArgs) -> u8 {
    let _ = args.stdio;
    // The CLI's hook exits the process on a panic; the server catches a
    // panicking request and keeps serving, so it only logs to stderr.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("wfc lsp: internal error: {info}");
    }));
    match wf_lsp::run_stdio() {
        Ok(()) => crate::EXIT_CLEAN,
        Err(err) => {
            eprintln!("error: wfc lsp: cannot start: {err}");
            crate::EXIT_TROUBLE
        }
    }
}
