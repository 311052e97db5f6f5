//! Marking workflows that syntax errors may have truncated.

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Diagnostic, FileId, Severity, codes};
use wf_syntax::{Parsed, ast};

use super::{Lowered, lower_files};

/// Lowers parsed files like [`lower_files`], and also marks as
/// [`incomplete`](wf_model::Workflow::incomplete) every workflow that a
/// syntax error (its primary span or a label) points into: an unclosed brace
/// or a broken statement may have swallowed nodes and edges, so checks that
/// reason about absence must stay silent.
pub fn lower_parsed(files: &[(FileId, &Parsed)]) -> Lowered {
    let trees: Vec<(FileId, &ast::File)> = files.iter().map(|&(id, p)| (id, &p.file)).collect();
    let mut lowered = lower_files(&trees);
    let mut errors: HashMap<FileId, Vec<u32>> = HashMap::default();
    for &(_, parsed) in files {
        // Labels count too: an unclosed `{` is reported at the end of the
        // file, with a label on the brace.
        let locations = parsed
            .diagnostics
            .iter()
            .filter(|d| skips_source(d))
            .flat_map(|d| std::iter::once(&d.primary).chain(&d.labels));
        for label in locations {
            let at = label.location;
            errors.entry(at.file).or_default().push(at.span.start);
        }
    }
    for starts in errors.values_mut() {
        starts.sort_unstable();
    }
    for workflow in &mut lowered.program.workflows {
        let Some(starts) = errors.get(&workflow.file) else {
            continue;
        };
        let span = workflow.span.span;
        // The first error at or after the workflow's start, if inside it.
        let i = starts.partition_point(|&s| s < span.start);
        if starts.get(i).is_some_and(|&s| s <= span.end) {
            workflow.incomplete = true;
        }
    }
    lowered
}

/// Whether a syntax diagnostic may mean that source was skipped. Errors in
/// a single literal (escapes, numbers) and repeated attributes lose nothing
/// structural.
fn skips_source(diagnostic: &Diagnostic) -> bool {
    let harmless = [
        &codes::INVALID_ESCAPE,
        &codes::INVALID_NUMBER,
        &codes::DUPLICATE_ATTRIBUTE,
    ];
    diagnostic.severity == Severity::Error
        && !harmless.iter().any(|c| c.code == diagnostic.code.code)
}
