//! `wfc`: the workflow language toolchain's command-line interface.
//!
//! Exit codes follow Ruff and actionlint: 0 clean, 1 findings, 2 usage, I/O
//! or internal error.

mod alloc;
mod answer;
mod build;
mod check;
mod explain;
mod fmt;
mod graph;
mod inputs;
mod lsp;
mod replay;
mod run;
mod status;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc, called directly (see `alloc.rs`).
#[global_allocator]
static GLOBAL: alloc::Mimalloc = alloc::Mimalloc;

/// Exit status: no findings.
pub const EXIT_CLEAN: u8 = 0;
/// Exit status: findings (errors, or warnings under `--deny-warnings`).
pub const EXIT_FINDINGS: u8 = 1;
/// Exit status: usage, I/O or internal error.
pub const EXIT_TROUBLE: u8 = 2;

/// wfc: check, format, compile and run workflow definitions.
#[derive(Debug, Parser)]
#[command(name = "wfc", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check workflow files: syntax, names and imports, graph structure, data flow, guards and attributes.
    Check(check::CheckArgs),
    /// Compile workflow files to the JSON IR (`-o -` for standard output); refuses on errors.
    Build(build::BuildArgs),
    /// Print the long explanation of a diagnostic code (or list every code).
    Explain(explain::ExplainArgs),
    /// Format `.wf` and `.dot` files in place (`--check` to verify, `--diff` to preview).
    Fmt(fmt::FmtArgs),
    /// Draw the workflows of a file as Graphviz DOT, Mermaid or SVG (docs/graph.md).
    Graph(graph::GraphArgs),
    /// Run the language server on standard input and output.
    Lsp(lsp::LspArgs),
    /// Run a workflow with a decision agent (exit 0 completed, 1 failed, 3 suspended).
    // Boxed: its many options make it far larger than the other commands.
    Run(Box<run::RunArgs>),
    /// Replay a run directory's recorded decisions and verify the same trace (exit 0 identical, 1 diverged).
    Replay(replay::ReplayArgs),
    /// Print a durable run's state, position, error and pending questions, from its run directory.
    Status(status::StatusArgs),
    /// Answer the question a suspended run waits on (then `wfc run --resume DIR` goes on).
    Answer(answer::AnswerArgs),
    /// Cancel a durable run, stopping it first if it is in progress, and run its compensations (exit 0 cancelled, 1 a compensation failed).
    Cancel(run::cancel::CancelArgs),
}

fn main() -> ExitCode {
    install_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help/version to stdout with success, usage errors to stderr.
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() {
                EXIT_TROUBLE
            } else {
                EXIT_CLEAN
            });
        }
    };
    let status = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Build(args) => build::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Lsp(args) => lsp::run(args),
        Command::Run(args) => run::run(*args),
        Command::Replay(args) => replay::run(args),
        Command::Status(args) => status::run(args),
        Command::Answer(args) => answer::run(args),
        Command::Cancel(args) => run::cancel::run(args),
    };
    ExitCode::from(status)
}

/// A panic is a bug in wfc, not in the user's workflow: say so, and exit 2
/// rather than Rust's default 101 so CI treats it as an internal error.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("error: internal error in wfc: {info}");
        eprintln!("note: this is a bug; please report it with the input that triggered it");
        std::process::exit(EXIT_TROUBLE as i32);
    }));
}
