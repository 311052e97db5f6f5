//! Parses `.wf` files and prints how long it took and what was found.
//!
//! `cargo run --release -p wf-syntax --example parse -- FILE… [--dump]`

use std::io::Write;
use std::time::Instant;

use wf_diagnostics::FileId;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dump = args.iter().any(|a| a == "--dump");
    let mut out = std::io::stdout().lock();
    for path in args.iter().filter(|a| !a.starts_with("--")) {
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let start = Instant::now();
        let parsed = wf_syntax::parse(&text, FileId(0));
        let elapsed = start.elapsed();
        let mut report = format!(
            "{path}: {} bytes, {} items, {} trivia, {} diagnostics in {elapsed:.2?}\n",
            text.len(),
            parsed.file.items.len(),
            parsed.trivia.len(),
            parsed.diagnostics.len()
        );
        for d in &parsed.diagnostics {
            report += &format!(
                "  {} {:?}: {}\n",
                d.code.code,
                d.primary.location.span.range(),
                d.message
            );
        }
        if dump {
            report += &wf_syntax::dump::sexpr(&parsed.file, false);
        }
        // A closed pipe (`| head`) just ends the output.
        if out.write_all(report.as_bytes()).is_err() {
            return;
        }
    }
}
