//! Formats standard input to standard output (a debugging aid; the real
//! command is `wfc fmt -`).

use std::io::Read;

fn main() {
    let mut text = String::new();
    if std::io::stdin().read_to_string(&mut text).is_err() {
        eprintln!("error: standard input is not UTF-8");
        std::process::exit(2);
    }
    match wf_fmt::format(&text, &wf_fmt::Options::default()) {
        Ok(out) => print!("{out}"),
        Err(err) => {
            eprintln!("error: {err}");
            std::process::exit(2);
        }
    }
}
