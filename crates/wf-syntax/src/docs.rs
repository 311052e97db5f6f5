//! Attaches `///` doc comments to the items they document (WF0008 for the
//! ones that document nothing).
//!
//! A run of doc comments separated only by whitespace documents the import,
//! workflow, node or edge chain that starts right after it (again with only
//! whitespace between). Anything else in between, a plain comment included,
//! leaves the run dangling.

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Diagnostic, FileId, Span, codes};

use crate::ast::{Docs, File, Item, Statement};
use crate::{Trivia, TriviaKind};

const WHITESPACE: [char; 5] = [' ', '\t', '\r', '\n', '\x0c'];

fn only_whitespace(text: &str) -> bool {
    text.trim_matches(WHITESPACE).is_empty()
}

/// The text of one `///` line: the marker and one leading space removed.
fn doc_line(raw: &str) -> String {
    let body = raw.strip_prefix("///").unwrap_or(raw);
    let body = body.strip_prefix(' ').unwrap_or(body);
    body.trim_end_matches('\r').to_string()
}

/// Where doc comments can go: the item's docs, and for workflows the span
/// that must grow to include them.
struct Target<'t> {
    docs: &'t mut Docs,
    span: Option<&'t mut Span>,
}

pub(crate) fn attach(
    file: &mut File,
    trivia: &[Trivia],
    text: &str,
    fid: FileId,
    out: &mut Vec<Diagnostic>,
) {
    let mut runs: Vec<(Span, Vec<String>)> = Vec::new();
    for t in trivia.iter().filter(|t| t.kind == TriviaKind::DocComment) {
        let line = doc_line(text.get(t.span.range()).unwrap_or(""));
        match runs.last_mut() {
            Some((span, lines))
                if only_whitespace(
                    text.get(span.end as usize..t.span.start as usize)
                        .unwrap_or("x"),
                ) =>
            {
                *span = span.to(t.span);
                lines.push(line);
            }
            _ => runs.push((t.span, vec![line])),
        }
    }
    if runs.is_empty() {
        return;
    }

    let mut targets: HashMap<u32, Target<'_>> = HashMap::default();
    for item in &mut file.items {
        match item {
            Item::Import(import) => {
                targets.insert(
                    import.span.start,
                    Target {
                        docs: &mut import.docs,
                        span: None,
                    },
                );
            }
            Item::Workflow(workflow) => {
                targets.insert(
                    workflow.span.start,
                    Target {
                        docs: &mut workflow.docs,
                        span: Some(&mut workflow.span),
                    },
                );
                for statement in &mut workflow.body {
                    match statement {
                        Statement::Node(node) => {
                            targets.insert(
                                node.span.start,
                                Target {
                                    docs: &mut node.docs,
                                    span: None,
                                },
                            );
                        }
                        Statement::Edge(edge) => {
                            targets.insert(
                                edge.span.start,
                                Target {
                                    docs: &mut edge.docs,
                                    span: None,
                                },
                            );
                        }
                        _ => {}
                    }
                }
            }
            Item::Error(_) => {}
        }
    }

    for (span, lines) in runs {
        let rest = text.get(span.end as usize..).unwrap_or("");
        let next = span.end + (rest.len() - rest.trim_start_matches(WHITESPACE).len()) as u32;
        match targets.get_mut(&next) {
            Some(target) => {
                target.docs.lines = lines;
                target.docs.span = Some(span);
                if let Some(item_span) = target.span.as_deref_mut() {
                    *item_span = span.to(*item_span);
                }
            }
            None => out.push(
                Diagnostic::new(
                    &codes::DANGLING_DOC_COMMENT,
                    "doc comment documents nothing",
                    span.in_file(fid),
                )
                .with_primary_label("not followed by an import, workflow, node or edge")
                .with_help(
                    "move it right before the item it documents, or use `//` for a plain comment",
                ),
            ),
        }
    }
}
