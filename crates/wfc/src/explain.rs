//! `wfc explain`: the long explanation of a diagnostic code.

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
        for code in codes::ALL {
            println!(
                "{}  {:<24} {:<8} {}",
                code.code,
                code.name,
                code.severity.as_str(),
                code.summary
            );
        }
        return EXIT_CLEAN;
    };
    match codes::lookup(query.trim()) {
        Some(code) => {
            println!("# {}: {}", code.code, code.name);
            println!();
            println!(
                "Family: {}. Default severity: {}.",
                code.family.as_str(),
                code.severity.as_str()
            );
            println!();
            print!("{}", code.explanation);
            if !code.explanation.ends_with('\n') {
                println!();
            }
            EXIT_CLEAN
        }
        None => {
            eprintln!("error: unknown diagnostic code `{query}`");
            eprintln!("help: run `wfc explain` without arguments to list every code");
            EXIT_TROUBLE
        }
    }
}
