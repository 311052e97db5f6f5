//! Formats standard input to standard output (a debugging aid; the real
//! command is `wfc fmt -`). An optional argument names the input, whose
//! extension picks the language (`x.dot` for DOT; `.wf` by default).
//! With `WF_FMT_FORCE` set, files with syntax errors are formatted too.

use std::io::Read;

use wf_fmt::SourceKind;

fn main() {
    let kind = std::env::args()
        .nth(1)
        .and_then(|name| SourceKind::from_path(std::path::Path::new(&name)))
        .unwrap_or(SourceKind::Wf);
    let mut text = String::new();
    if std::io::stdin().read_to_string(&mut text).is_err() {
        eprintln!("error: standard input is not UTF-8");
        std::process::exit(2);
    }
    // `WF_FMT_FORCE=1` formats what parses in a file with syntax errors.
    let result = if std::env::var_os("WF_FMT_FORCE").is_some() {
        wf_fmt::format_source_forced(&text, kind, &wf_fmt::Options::default())
    } else {
        wf_fmt::format_source(&text, kind, &wf_fmt::Options::default())
    };
    match result {
        Ok(out) => print!("{out}"),
        Err(err) => {
            eprintln!("error: {err}");
            std::process::exit(2);
        }
    }
}
