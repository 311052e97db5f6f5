//! `wfc explain`: the long explanation of a diagnostic code.

use std::io::Write;

use clap::Args;
use wf_diagnostics::codes;

use crate::{EXIT_CLEAN, EXIT_TROUBLE};

/// Arguments of `wfc explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A code (`WF0201`) or a name (`cycle`). Omit it to list every code.
    code: Option<String>,
}

/// Runs `wfc explain`.
pub fn run(args: ExplainArgs) -> u8 {
    let Some(query) = args.code else {
        let mut out = String::new();
        for code in codes::ALL {
            out.push_str(&format!(
                "{}  {:<30} {:<8} {}\n",
                code.code,
                code.name,
                code.severity.as_str(),
                code.summary
            ));
        }
        print_ignoring_closed_pipe(&out);
        return EXIT_CLEAN;
    };
    match codes::lookup(query.trim()) {
        Some(code) => {
            let mut out = format!(
                "# {}: {}\n\nFamily: {}. Default severity: {}.\n\n{}",
                code.code,
                code.name,
                code.family.as_str(),
                code.severity.as_str(),
                wf_render::explanation(code)
            );
            if !out.ends_with('\n') {
                out.push('\n');
            }
            print_ignoring_closed_pipe(&out);
            EXIT_CLEAN
        }
        None => {
            eprintln!("error: unknown diagnostic code `{query}`");
            eprintln!("help: run `wfc explain` without arguments to list every code");
            EXIT_TROUBLE
        }
    }
}

/// `wfc explain | head` closes the pipe early: that is not an error.
fn print_ignoring_closed_pipe(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}
