//! IR files (`wfc build`'s output) that are read, by `wfc check` or the
//! language server: verified with the loader `wfc run` uses, and reported
//! as WF0011 when refused, instead of being read as a broken Reflex
//! workflow (the other JSON the analysis reads). (The analysis could now do
//! this itself, since `wf-ir` no longer depends on it.)

use wf_diagnostics::{Diagnostic, FileId, Sources, Span, codes};

/// WF0011 for each `.json` source that is an IR file the loader refuses.
pub fn verify_ir_files(sources: &Sources) -> Vec<Diagnostic> {
    sources
        .iter()
        .filter_map(|(id, file)| verify_ir(id, &file.path, &file.text))
        .collect()
}

/// WF0011 for the file `id` (at `path`, with `text`) when it is a `.json`
/// IR file the loader refuses; `None` for any other file.
pub fn verify_ir(id: FileId, path: &str, text: &str) -> Option<Diagnostic> {
    let json = wf_model::SourceFormat::of_path(std::path::Path::new(path))
        == Some(wf_model::SourceFormat::ReflexJson);
    // The substring test keeps the JSON parse off every other file.
    if !json || !text.contains("wfc-ir") || !wf_reflex::is_ir_file(text) {
        return None;
    }
    refused(id, text)
}

fn refused(id: FileId, text: &str) -> Option<Diagnostic> {
    let err = wf_ir::load(text).err()?;
    // The line and column of malformed JSON; else the value the JSON path
    // names, as deep as it can be followed; else the first character.
    let (start, end) = match err.position {
        Some((line, column)) => {
            let start = offset_of(text, line, column);
            let end = text[start..]
                .chars()
                .next()
                .map_or(start, |c| start + c.len_utf8());
            (start, end)
        }
        None => path_span(text, &err.path).unwrap_or((0, text.len().min(1))),
    };
    let message = match err.position {
        Some(_) if err.kind != wf_ir::LoadErrorKind::Syntax => {
            format!("the IR file is refused: {}: {}", err.path, err.message)
        }
        _ => format!("the IR file is refused: {err}"),
    };
    Some(
        Diagnostic::new(
            &codes::INVALID_IR,
            message,
            Span::new(start, end).in_file(id),
        )
        .with_help(
            "build it again from its source (`wfc build FILE -o OUT.json`) rather than editing it",
        ),
    )
}

/// The span of the value a JSON path (`$.workflows[0].edges[2].to`) names,
/// or of the deepest value on the way that exists.
fn path_span(text: &str, path: &str) -> Option<(usize, usize)> {
    use wf_reflex::json::{Json, JsonKind};
    let root = wf_reflex::json::parse(text).ok()?;
    let mut at: &Json = &root;
    let mut rest = path.strip_prefix('$')?;
    while !rest.is_empty() {
        let next = if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let (key, tail) = after.split_at(end);
            rest = tail;
            match &at.kind {
                JsonKind::Object(members) => {
                    members.iter().find(|m| m.key == key).map(|m| &m.value)
                }
                _ => None,
            }
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            let index: usize = after[..end].parse().ok()?;
            rest = &after[end + 1..];
            match &at.kind {
                JsonKind::Array(items) => items.get(index),
                _ => None,
            }
        } else {
            None
        };
        match next {
            Some(value) => at = value,
            None => break,
        }
    }
    // A whole object or array would underline pages: its first line will do.
    let start = at.span.start as usize;
    let mut end = at.span.end as usize;
    if let Some(line_end) = text[start..end].find('\n') {
        end = start + line_end;
    }
    Some((start, end))
}

/// The byte offset of a 1-based line and column (columns as serde_json
/// counts them, bytes), clamped to the text and to a character boundary.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let mut at = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
