//! The scene as Graphviz DOT.

use std::fmt::Write;

use wf_model::NodeKind;

use super::scene::{CallTarget, Cluster, Scene};

/// Fill of the entry node (green) and of terminals (red), shared with the
/// Mermaid output so both pictures read the same.
pub const ENTRY_FILL: &str = "#e6f4ea";
/// See [`ENTRY_FILL`].
pub const TERMINAL_FILL: &str = "#fce8e6";

/// The Graphviz shape of a node kind (Attractor's shapes where it has one).
pub fn shape(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Step => "box",
        NodeKind::Human => "hexagon",
        NodeKind::Tool => "parallelogram",
        NodeKind::Call => "box3d",
        NodeKind::Branch => "diamond",
        NodeKind::Parallel => "component",
        NodeKind::Join => "tripleoctagon",
        NodeKind::Exit => "Msquare",
    }
}

/// Renders `scene` as one `digraph`.
pub fn render(scene: &Scene) -> String {
    let mut out = String::new();
    out.push_str("digraph wfc {\n");
    out.push_str("  compound=true;\n");
    out.push_str("  graph [fontname=\"Helvetica\"];\n");
    out.push_str("  node [fontname=\"Helvetica\", fontsize=11];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for (c, cluster) in scene.clusters.iter().enumerate() {
        write_cluster(&mut out, c, cluster);
    }
    for (x, external) in scene.externals.iter().enumerate() {
        let mut label = external.name.clone();
        label.push('\n');
        match &external.file {
            Some(file) => label.push_str(file),
            None => label.push_str("(not found)"),
        }
        let _ = writeln!(
            out,
            "  x{x} [label={}, shape=box3d, style=dashed];",
            quote(&label)
        );
    }
    for (c, cluster) in scene.clusters.iter().enumerate() {
        for (n, node) in cluster.nodes.iter().enumerate() {
            let Some(target) = node.call else { continue };
            let from = format!("w{c}_n{n}");
            match target {
                CallTarget::Cluster(t) => {
                    let head = anchor(t, &scene.clusters[t]);
                    // `lhead` cannot point at the cluster the edge starts in.
                    let lhead = if t == c {
                        String::new()
                    } else {
                        format!(", lhead=\"cluster_{t}\"")
                    };
                    let _ = writeln!(
                        out,
                        "  {from} -> {head} [style=dashed, arrowhead=empty, constraint=false{lhead}];"
                    );
                }
                CallTarget::External(x) => {
                    let _ = writeln!(out, "  {from} -> x{x} [style=dashed, arrowhead=empty];");
                }
            }
        }
    }
    out.push_str("}\n");
    out
}

/// The node a call edge points at: the callee's entry, else its first node,
/// else the placeholder of an empty cluster.
fn anchor(c: usize, cluster: &Cluster) -> String {
    match cluster.entry.or(if cluster.nodes.is_empty() {
        None
    } else {
        Some(0)
    }) {
        Some(n) => format!("w{c}_n{n}"),
        None => format!("w{c}_empty"),
    }
}

fn write_cluster(out: &mut String, c: usize, cluster: &Cluster) {
    let _ = writeln!(out, "  subgraph cluster_{c} {{");
    let mut title = cluster.name.clone();
    if let Some(label) = &cluster.label {
        title.push('\n');
        title.push_str(label);
    }
    let _ = writeln!(out, "    label={};", quote(&title));
    out.push_str("    style=rounded;\n");
    if cluster.nodes.is_empty() {
        let _ = writeln!(
            out,
            "    w{c}_empty [label=\"(no nodes)\", shape=plaintext];"
        );
    }
    for (n, node) in cluster.nodes.iter().enumerate() {
        let mut label = node.name.clone();
        if let Some(text) = &node.label {
            label.push('\n');
            label.push_str(text);
        }
        let mut attrs = format!("label={}, shape={}", quote(&label), shape(node.kind));
        if cluster.entry == Some(n) {
            let _ = write!(
                attrs,
                ", style=filled, fillcolor=\"{ENTRY_FILL}\", penwidth=2"
            );
        } else if node.terminal {
            let _ = write!(attrs, ", style=filled, fillcolor=\"{TERMINAL_FILL}\"");
        }
        if node.terminal && node.kind != NodeKind::Exit {
            attrs.push_str(", peripheries=2");
        }
        let _ = writeln!(out, "    w{c}_n{n} [{attrs}];");
    }
    for edge in &cluster.edges {
        let lines = edge.text_lines();
        let label = if lines.is_empty() {
            String::new()
        } else {
            format!(" [label={}]", quote(&lines.join("\n")))
        };
        let _ = writeln!(out, "    w{c}_n{} -> w{c}_n{}{label};", edge.from, edge.to);
    }
    out.push_str("  }\n");
}

/// A DOT quoted string: `"` and `\` escaped, line breaks as `\n`.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
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
    fn quotes_dot_strings() {
        assert_eq!(quote("a \"b\" \\n\nc"), r#""a \"b\" \\n\nc""#);
    }
}
