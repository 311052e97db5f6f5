//! Prints, per `.dot` file, the entry, the node kinds and the edge count of
//! the lowered model, for manual review:
//! `cargo run -p wf-dot --example dot_stats -- FILE…`.

use std::collections::BTreeMap;

use wf_diagnostics::FileId;

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let lowered = wf_dot::parse_and_lower(&text, FileId(0));
        for w in &lowered.program.workflows {
            let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
            for n in &w.nodes {
                *kinds.entry(n.kind.as_str()).or_default() += 1;
            }
            let entry = w.entry.as_ref().map_or("-", |(n, _)| n.as_str());
            println!(
                "{path}: entry={entry} nodes={} edges={} guards={} {kinds:?}",
                w.nodes.len(),
                w.edges.len(),
                w.edges.iter().filter(|e| e.guard.is_some()).count()
            );
        }
    }
}
