//! Prints the diagnostics of `.dot` files, for manual review:
//! `cargo run -p wf-dot --example dot_check -- FILE…`.

use wf_diagnostics::{FileId, Sources};
use wf_render::{Format, RenderOptions, render};

fn main() {
    let mut sources = Sources::new();
    let mut all = Vec::new();
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let id: FileId = sources.add(path.clone(), text.clone());
        all.extend(wf_dot::parse_and_lower(&text, id).diagnostics);
    }
    print!(
        "{}",
        render(&all, &sources, Format::Human, &RenderOptions::default())
    );
}
