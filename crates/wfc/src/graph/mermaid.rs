//! The scene as a Mermaid flowchart.

use std::fmt::Write;

use wf_model::NodeKind;

use super::dot::{ENTRY_FILL, TERMINAL_FILL};
use super::scene::{CallTarget, Scene};

/// The opening and closing brackets of a node kind's Mermaid shape.
pub fn brackets(kind: NodeKind) -> (&'static str, &'static str) {
    match kind {
        NodeKind::Step => ("[", "]"),
        NodeKind::Human => ("{{", "}}"),
        NodeKind::Tool => ("[/", "/]"),
        NodeKind::Call => ("[[", "]]"),
        NodeKind::Branch => ("{", "}"),
        NodeKind::Parallel => ("[/", "\\]"),
        NodeKind::Join => ("[\\", "/]"),
        NodeKind::Exit => ("([", "])"),
    }
}

/// Renders `scene` as one `flowchart`.
pub fn render(scene: &Scene) -> String {
    let mut out = String::from("flowchart TD\n");
    let mut entries = Vec::new();
    let mut terminals = Vec::new();
    for (c, cluster) in scene.clusters.iter().enumerate() {
        let mut title = cluster.name.clone();
        if let Some(label) = &cluster.label {
            title.push('\n');
            title.push_str(label);
        }
        let _ = writeln!(out, "  subgraph w{c}[{}]", quote(&title));
        for (n, node) in cluster.nodes.iter().enumerate() {
            let mut label = node.name.clone();
            if let Some(text) = &node.label {
                label.push('\n');
                label.push_str(text);
            }
            let (open, close) = brackets(node.kind);
            let _ = writeln!(out, "    w{c}_n{n}{open}{}{close}", quote(&label));
            if cluster.entry == Some(n) {
                entries.push(format!("w{c}_n{n}"));
            } else if node.terminal {
                terminals.push(format!("w{c}_n{n}"));
            }
        }
        for edge in &cluster.edges {
            let lines = edge.text_lines();
            let arrow = if lines.is_empty() {
                "-->".to_owned()
            } else {
                format!("-->|{}|", quote(&lines.join("\n")))
            };
            let _ = writeln!(out, "    w{c}_n{} {arrow} w{c}_n{}", edge.from, edge.to);
        }
        out.push_str("  end\n");
    }
    for (x, external) in scene.externals.iter().enumerate() {
        let mut label = external.name.clone();
        label.push('\n');
        label.push_str(external.file.as_deref().unwrap_or("(not found)"));
        let _ = writeln!(out, "  x{x}[[{}]]:::external", quote(&label));
    }
    for (c, cluster) in scene.clusters.iter().enumerate() {
        for (n, node) in cluster.nodes.iter().enumerate() {
            let target = match node.call {
                // A link from inside a subgraph to that same subgraph confuses
                // Mermaid's layout: a recursive call points at the entry.
                Some(CallTarget::Cluster(t)) if t == c => match cluster.entry {
                    Some(e) => format!("w{c}_n{e}"),
                    None => format!("w{c}"),
                },
                Some(CallTarget::Cluster(t)) => format!("w{t}"),
                Some(CallTarget::External(x)) => format!("x{x}"),
                None => continue,
            };
            let _ = writeln!(out, "  w{c}_n{n} -.-> {target}");
        }
    }
    let _ = writeln!(
        out,
        "  classDef entry fill:{ENTRY_FILL},stroke:#1e8e3e,stroke-width:2px"
    );
    let _ = writeln!(
        out,
        "  classDef terminal fill:{TERMINAL_FILL},stroke:#c5221f,stroke-width:2px"
    );
    out.push_str("  classDef external stroke-dasharray:5 5\n");
    if !entries.is_empty() {
        let _ = writeln!(out, "  class {} entry", entries.join(","));
    }
    if !terminals.is_empty() {
        let _ = writeln!(out, "  class {} terminal", terminals.join(","));
    }
    out
}

/// A Mermaid quoted label. Characters Mermaid would read as markup become
/// entity codes, and line breaks `<br/>`.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '&' => out.push_str("#amp;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '`' => out.push_str("#96;"),
            '|' => out.push_str("#124;"),
            '\n' => out.push_str("<br/>"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            quote("a < \"b\" #1\nc"),
            "\"a #lt; #quot;b#quot; #35;1<br/>c\""
        );
    }
}
