//! WF0209: two choices of a `human` node with the same accelerator key.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{EdgeId, NodeKind, Workflow};

use super::Adjacency;

/// The accelerator key of a choice label, upper-cased: `[A] Approve` and
/// `A) Approve` give `A`. Attractor also derives keys from `A - Approve`
/// and from the first character, but those forms match ordinary labels
/// (`Rerun`, `Retry`) too often to warn about, so only explicit keys count.
pub fn accelerator_key(label: &str) -> Option<String> {
    let label = label.trim_start();
    if let Some(rest) = label.strip_prefix('[') {
        let (key, _) = rest.split_once(']')?;
        let key = key.trim();
        let plausible =
            !key.is_empty() && key.chars().count() <= 8 && !key.contains(char::is_whitespace);
        return plausible.then(|| key.to_uppercase());
    }
    let mut chars = label.chars();
    let key = chars.next().filter(|c| c.is_alphanumeric())?;
    let rest = chars.as_str().strip_prefix(')')?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| key.to_uppercase().collect())
}

/// WF0209 for each labelled outgoing edge of a `human` node whose key an
/// earlier edge of the same node already uses.
pub fn duplicate_accelerators(workflow: &Workflow, adjacency: &Adjacency) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for n in workflow.node_ids() {
        let node = workflow.node(n);
        if node.kind != NodeKind::Human {
            continue;
        }
        let keyed: Vec<(EdgeId, &str, String)> = adjacency
            .outgoing(n)
            .iter()
            .filter_map(|&e| {
                let label = workflow.edge(e).label.as_deref()?;
                Some((e, label, accelerator_key(label)?))
            })
            .collect();
        let used: HashSet<&str> = keyed.iter().map(|(_, _, key)| key.as_str()).collect();
        let mut first_use: HashMap<&str, (EdgeId, &str)> = HashMap::default();
        for (e, label, key) in &keyed {
            let Some(&(earlier, earlier_label)) = first_use.get(key.as_str()) else {
                first_use.insert(key, (*e, label));
                continue;
            };
            let edge = workflow.edge(*e);
            let earlier = workflow.edge(earlier);
            let diagnostic = Diagnostic::new(
                &codes::DUPLICATE_ACCELERATOR,
                format!(
                    "choices `{earlier_label}` and `{label}` of human node `{}` share the accelerator key `{key}`",
                    node.name
                ),
                edge.label_span.unwrap_or(edge.span),
            )
            .with_primary_label(format!("`{key}` is already used by `{earlier_label}`"))
            .with_label(earlier.label_span.unwrap_or(earlier.span), format!("`{key}` first used here"));
            out.push(match free_key(label, &used) {
                Some(free) => diagnostic.with_help(format!(
                    "give each choice its own key, for example `[{free}]` here"
                )),
                None => diagnostic.with_help("give each choice its own key"),
            });
        }
    }
    out
}

/// A key no choice of the node uses, preferring letters of the label text.
fn free_key(label: &str, used: &HashSet<&str>) -> Option<char> {
    let text = label.trim_start();
    let text = match text.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map_or(text, |(_, t)| t),
        None => text.get(2..).unwrap_or_default(),
    };
    text.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .chain('A'..='Z')
        .find(|c| !used.contains(c.encode_utf8(&mut [0; 4]) as &str))
}
