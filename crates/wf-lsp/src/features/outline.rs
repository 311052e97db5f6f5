//! Document symbols (workflows, then their nodes) and folding ranges.

use tower_lsp_server::ls_types::{DocumentSymbol, FoldingRange, FoldingRangeKind, SymbolKind};
use wf_analysis::Database;
use wf_diagnostics::FileId;
use wf_model::NodeKind;

use crate::convert::FileMap;

/// The outline of a file.
#[allow(deprecated)] // `deprecated` is a required field of DocumentSymbol
pub fn symbols(db: &Database, files: &FileMap, file: FileId) -> Vec<DocumentSymbol> {
    db.file_workflows(file)
        .iter()
        .filter_map(|workflow| {
            let children = workflow
                .nodes
                .iter()
                .filter_map(|node| {
                    Some(DocumentSymbol {
                        name: node.name.clone(),
                        detail: Some(node.kind.as_str().to_string()),
                        kind: match node.kind {
                            NodeKind::Call => SymbolKind::FUNCTION,
                            NodeKind::Exit => SymbolKind::EVENT,
                            _ => SymbolKind::FIELD,
                        },
                        tags: None,
                        deprecated: None,
                        range: files.range(node.span.to_cover(node.name_span))?,
                        selection_range: files.range(node.name_span)?,
                        children: None,
                    })
                })
                .collect();
            Some(DocumentSymbol {
                name: workflow.name.clone(),
                detail: Some("workflow".to_string()),
                kind: SymbolKind::CLASS,
                tags: None,
                deprecated: None,
                range: files.range(workflow.span)?,
                selection_range: files.range(workflow.name_span)?,
                children: Some(children),
            })
        })
        .collect()
}

/// Folding ranges: every workflow and every node block spanning lines.
pub fn folding(db: &Database, files: &FileMap, file: FileId) -> Vec<FoldingRange> {
    let mut out = Vec::new();
    for workflow in db.file_workflows(file).iter() {
        let spans = std::iter::once(workflow.span).chain(
            workflow
                .nodes
                .iter()
                .filter(|n| !n.implicit)
                .map(|n| n.span),
        );
        for span in spans {
            let Some(range) = files.range(span) else {
                continue;
            };
            if range.end.line > range.start.line {
                out.push(FoldingRange {
                    start_line: range.start.line,
                    start_character: None,
                    end_line: range.end.line,
                    end_character: None,
                    kind: Some(FoldingRangeKind::Region),
                    collapsed_text: None,
                });
            }
        }
    }
    out.sort_by_key(|r| (r.start_line, r.end_line));
    out.dedup();
    out
}

/// Spans with a helper to cover another span of the same file.
trait Cover {
    fn to_cover(self, other: Self) -> Self;
}

impl Cover for wf_diagnostics::FileSpan {
    fn to_cover(self, other: Self) -> Self {
        if self.file != other.file || self.span.is_empty() {
            return other;
        }
        wf_diagnostics::FileSpan {
            file: self.file,
            span: self.span.to(other.span),
        }
    }
}
