//! Graph checks on hand-built models (no parser needed).

use wf_diagnostics::Severity;
use wf_model::{EdgeId, NodeId, NodeKind, SourceFormat};

use super::*;
use crate::test_support::{ModelBuilder, codes, with_code};

#[test]
fn sketch_is_clean() {
    let wf = ModelBuilder::new("Hello")
        .chain(&["start", "greet", "done"])
        .build();
    assert_eq!(codes(&check_workflow(&wf)), Vec::<&str>::new());
}

#[test]
fn entry_rules_in_order() {
    let explicit = ModelBuilder::new("W").chain(&["a", "b"]).entry("a").build();
    assert_eq!(
        analyze(&explicit).entry,
        Entry::Resolved {
            node: NodeId(0),
            reason: EntryReason::Explicit
        }
    );

    let start = ModelBuilder::new("W")
        .chain(&["x", "y"])
        .chain(&["start", "y"])
        .build();
    let facts = analyze(&start);
    assert_eq!(
        facts.entry,
        Entry::Resolved {
            node: NodeId(2),
            reason: EntryReason::NamedStart
        }
    );
    // `x` is another root, so it is unreachable from `start`.
    let diags = check_workflow(&start);
    assert_eq!(codes(&diags), ["WF0205"]);
    assert_eq!(
        diags[0].message,
        "node `x` cannot be reached from the entry `start`"
    );

    let root = ModelBuilder::new("W").chain(&["a", "b", "c"]).build();
    assert_eq!(
        analyze(&root).entry,
        Entry::Resolved {
            node: NodeId(0),
            reason: EntryReason::OnlyRoot
        }
    );

    let unknown = ModelBuilder::new("W")
        .chain(&["a", "b"])
        .entry("zzz")
        .build();
    assert_eq!(analyze(&unknown).entry, Entry::UnknownExplicit);
    // WF0103 is a names check; the graph checks stay quiet about the entry.
    assert_eq!(codes(&check_workflow(&unknown)), Vec::<&str>::new());
}

#[test]
fn ambiguous_entry_lists_candidates() {
    let wf = ModelBuilder::new("Triage")
        .chain(&["intake", "classify", "done"])
        .chain(&["escalate", "done"])
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0203"]);
    let d = &diags[0];
    assert_eq!(
        d.message,
        "workflow `Triage` has 2 possible entry nodes: `intake`, `escalate`"
    );
    assert_eq!(d.primary.location, wf.name_span);
    assert_eq!(d.labels.len(), 2);
    assert_eq!(d.labels[0].location, wf.nodes[0].name_span);
    assert_eq!(d.labels[0].message, "`intake` has no incoming edges");
    assert!(d.help.as_deref().unwrap().contains("entry = intake"));
}

#[test]
fn empty_workflow_has_no_entry() {
    let wf = ModelBuilder::new("Draft").build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0202"]);
    assert_eq!(diags[0].message, "workflow `Draft` has no entry node");
    assert_eq!(diags[0].notes, ["the workflow has no nodes"]);
}

#[test]
fn simple_cycle_shows_whole_path() {
    // a -> b -> c -> a, entered from x.
    let wf = ModelBuilder::new("W")
        .entry("x")
        .chain(&["x", "a", "b", "c", "a"])
        .chain(&["c", "done"])
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0201"]);
    let d = &diags[0];
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.message, "cycle in workflow `W`: a -> b -> c -> a");
    // The primary span is the edge closing the cycle (c -> a, edge 3).
    assert_eq!(d.primary.location, wf.edges[3].span);
    assert_eq!(d.primary.message, "`c` goes back to `a`, closing the cycle");
    let labels: Vec<_> = d
        .labels
        .iter()
        .map(|l| (l.location, l.message.as_str()))
        .collect();
    assert_eq!(
        labels,
        [
            (wf.edges[1].span, "`a` goes to `b`"),
            (wf.edges[2].span, "`b` goes to `c`")
        ]
    );
    assert!(d.help.as_deref().unwrap().contains("call"));
}

#[test]
fn self_loop_is_a_cycle() {
    let wf = ModelBuilder::new("W")
        .chain(&["start", "a", "a"])
        .chain(&["a", "done"])
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0201"]);
    assert_eq!(diags[0].message, "cycle in workflow `W`: a -> a");
    assert_eq!(diags[0].primary.message, "`a` goes to itself");
    assert!(diags[0].labels.is_empty());
}

#[test]
fn one_error_per_component_and_tangles_are_noted() {
    // Component {a, b, c}: a <-> b and b <-> c. Component {p, q} separately.
    let wf = ModelBuilder::new("W")
        .chain(&["start", "a", "b", "a"])
        .chain(&["b", "c", "b"])
        .chain(&["start", "p", "q", "p"])
        .chain(&["c", "done"])
        .chain(&["q", "done"])
        .build();
    let diags = with_code(&check_workflow(&wf), "WF0201")
        .into_iter()
        .cloned()
        .collect::<Vec<_>>();
    assert_eq!(diags.len(), 2);
    assert_eq!(diags[0].message, "cycle in workflow `W`: a -> b -> a");
    assert_eq!(
        diags[0].notes,
        ["these nodes are on cycles with it too: `c`"]
    );
    assert_eq!(diags[1].message, "cycle in workflow `W`: p -> q -> p");
}

#[test]
fn cycle_is_info_in_dot() {
    let wf = ModelBuilder::new("W")
        .format(SourceFormat::Dot)
        .chain(&["start", "a", "b", "a"])
        .chain(&["b", "done"])
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0201"]);
    assert_eq!(diags[0].severity, Severity::Info);
}

#[test]
fn no_terminal_is_reported_with_the_cycle() {
    let wf = ModelBuilder::new("Poll")
        .chain(&["start", "check", "wait", "check"])
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0201", "WF0204"]);
    assert_eq!(diags[1].message, "workflow `Poll` has no terminal node");
    assert_eq!(diags[1].primary.location, wf.name_span);
}

#[test]
fn no_terminal_reachable_from_entry() {
    // `done` is a terminal but only `orphan` leads to it.
    let wf = ModelBuilder::new("W")
        .format(SourceFormat::Dot)
        .chain(&["start", "a", "b", "a"])
        .node("orphan", NodeKind::Step)
        .chain(&["orphan", "done"])
        .build();
    let diags = check_workflow(&wf);
    let terminal = with_code(&diags, "WF0204");
    assert_eq!(terminal.len(), 1);
    assert_eq!(
        terminal[0].message,
        "no terminal node is reachable from the entry `start` of workflow `W`"
    );
    assert_eq!(with_code(&diags, "WF0205").len(), 2);
}

#[test]
fn entry_with_incoming_edges() {
    let wf = ModelBuilder::new("Build")
        .entry("compile")
        .chain(&["prepare", "compile", "done"])
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0206", "WF0205"]);
    let d = &diags[0];
    assert_eq!(d.message, "entry node `compile` has an incoming edge");
    assert_eq!(d.primary.location, wf.nodes[1].name_span);
    assert_eq!(d.labels[0].location, wf.entry.as_ref().unwrap().1);
    assert_eq!(d.labels[1].location, wf.edges[0].span);
    assert_eq!(d.labels[1].message, "`prepare` goes to the entry");
}

#[test]
fn exit_with_outgoing_edges() {
    let wf = ModelBuilder::new("W")
        .node("done", NodeKind::Exit)
        .chain(&["start", "done", "notify"])
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0207"]);
    assert_eq!(diags[0].message, "exit node `done` has an outgoing edge");
    assert_eq!(diags[0].primary.location, wf.nodes[0].name_span);
    assert_eq!(diags[0].labels[0].message, "`done` goes to `notify`");
}

#[test]
fn human_without_choices() {
    let wf = ModelBuilder::new("W")
        .node("approve", NodeKind::Human)
        .chain(&["start", "approve"])
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0208"]);
    assert_eq!(
        diags[0].message,
        "human node `approve` has no outgoing edges to choose from"
    );
    // Silent when syntax errors may have swallowed the edges.
    let incomplete = ModelBuilder::new("W")
        .node("approve", NodeKind::Human)
        .chain(&["start", "approve"])
        .incomplete()
        .build();
    assert!(check_workflow(&incomplete).is_empty());
}

#[test]
fn accelerator_forms() {
    assert_eq!(accelerator_key("[A] Approve").as_deref(), Some("A"));
    assert_eq!(accelerator_key("  [a] approve").as_deref(), Some("A"));
    assert_eq!(accelerator_key("Y) Yes").as_deref(), Some("Y"));
    assert_eq!(accelerator_key("Y)").as_deref(), Some("Y"));
    assert_eq!(accelerator_key("Yes").as_deref(), None);
    assert_eq!(accelerator_key("Y - Yes").as_deref(), None);
    assert_eq!(accelerator_key("[] Nothing").as_deref(), None);
    assert_eq!(accelerator_key("[not a key] x").as_deref(), None);
    assert_eq!(accelerator_key("a)b").as_deref(), None);
}

#[test]
fn duplicate_accelerator_keys() {
    let wf = ModelBuilder::new("Approve")
        .node("approve", NodeKind::Human)
        .edge("start", "approve")
        .labelled("approve", "ship", "[R] Release")
        .labelled("approve", "reject", "[R] Reject")
        .labelled("approve", "later", "Later")
        .labelled("approve", "retry", "r) Retry")
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0209", "WF0209"]);
    let d = &diags[0];
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(
        d.message,
        "choices `[R] Release` and `[R] Reject` of human node `approve` share the accelerator key `R`"
    );
    assert_eq!(Some(d.primary.location), wf.edges[2].label_span);
    assert_eq!(Some(d.labels[0].location), wf.edges[1].label_span);
    assert_eq!(
        d.help.as_deref(),
        Some("give each choice its own key, for example `[E]` here")
    );
    assert_eq!(Some(diags[1].primary.location), wf.edges[4].label_span);
}

#[test]
fn accelerators_of_non_human_nodes_are_ignored() {
    let wf = ModelBuilder::new("W")
        .labelled("start", "a", "[A] one")
        .labelled("start", "b", "[A] two")
        .build();
    assert!(check_workflow(&wf).is_empty());
}

#[test]
fn adjacency_keeps_source_order() {
    let wf = ModelBuilder::new("W")
        .chain(&["a", "b"])
        .chain(&["a", "c"])
        .chain(&["c", "b"])
        .build();
    let adjacency = Adjacency::new(&wf);
    assert_eq!(adjacency.outgoing(NodeId(0)), [EdgeId(0), EdgeId(1)]);
    assert_eq!(adjacency.incoming(NodeId(1)), [EdgeId(0), EdgeId(2)]);
    assert!(adjacency.outgoing(NodeId(1)).is_empty());
}

/// A single cycle through 100,000 nodes: the SCC search, the cycle path and
/// reachability must be iterative (no stack overflow) and linear.
#[test]
fn huge_cycle_does_not_overflow_the_stack() {
    const N: usize = 100_000;
    let names: Vec<String> = (0..N).map(|i| format!("n{i}")).collect();
    let mut chain: Vec<&str> = names.iter().map(String::as_str).collect();
    chain.push("n0");
    let wf = ModelBuilder::new("Big").chain(&chain).build();
    // Run on a small stack to prove no recursion depth depends on the input.
    let diags = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || check_workflow(&wf))
        .unwrap()
        .join()
        .unwrap();
    // A cycle (with the path elided in the middle), no entry (every node
    // has an incoming edge) and no terminal.
    assert_eq!(codes(&diags), ["WF0201", "WF0202", "WF0204"]);
    let cycle = &diags[0];
    assert!(
        cycle
            .message
            .starts_with("cycle in workflow `Big`: n0 -> n1 -> "),
        "{}",
        cycle.message
    );
    assert!(
        cycle
            .message
            .ends_with(&format!("… ({} more) -> n99999 -> n0", N - 23)),
        "{}",
        cycle.message
    );
    assert_eq!(cycle.labels.len(), 24);
}

/// 1,000,000 edges through 500,000 nodes in one long path: linear checks
/// finish quickly and reachability is iterative.
#[test]
fn a_million_edges() {
    const N: usize = 500_000;
    let names: Vec<String> = (0..N).map(|i| format!("n{i}")).collect();
    let mut b =
        ModelBuilder::new("Big").chain(&names.iter().map(String::as_str).collect::<Vec<_>>());
    // A second, parallel edge for each step doubles the edge count (with
    // a label, so it is not a duplicate of the first).
    for pair in names.windows(2) {
        b = b.labelled(&pair[0], &pair[1], "again");
    }
    let wf = b.build();
    assert_eq!(wf.edges.len(), 2 * (N - 1));
    let diags = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || check_workflow(&wf))
        .unwrap()
        .join()
        .unwrap();
    assert!(diags.is_empty());
}

#[test]
fn cycle_starts_where_a_walk_from_the_entry_meets_it() {
    // `review` is declared before `draft`, but the walk from `start` meets
    // `draft` first, so `review -> draft` is the edge that goes back.
    let wf = ModelBuilder::new("W")
        .node("review", NodeKind::Step)
        .node("draft", NodeKind::Step)
        .chain(&["start", "draft", "review", "done"])
        .chain(&["review", "draft"])
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0201"]);
    assert_eq!(
        diags[0].message,
        "cycle in workflow `W`: draft -> review -> draft"
    );
    assert_eq!(diags[0].primary.location, wf.edges[3].span);
}

#[test]
fn an_exact_duplicate_edge_is_a_warning() {
    let wf = ModelBuilder::new("W")
        .chain(&["start", "a", "done"])
        .edge("start", "a")
        .labelled("a", "done", "other")
        .build();
    let diags = check_workflow(&wf);
    assert_eq!(codes(&diags), ["WF0210"]);
    assert_eq!(
        diags[0].message,
        "the edge `start -> a` is written twice, identically"
    );
    assert_eq!(diags[0].primary.location, wf.edges[2].span);
    assert_eq!(diags[0].labels[0].location, wf.edges[0].span);
}
