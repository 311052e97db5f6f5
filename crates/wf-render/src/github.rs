//! GitHub Actions output: one workflow command per diagnostic.
//!
//! ```text
//! ::error file=flows/release.wf,line=6,col=3,endLine=6,endColumn=17,title=WF0201 cycle::workflow `Release` has a cycle…
//! ```
//!
//! Printed in a workflow step, each line becomes an annotation on the file
//! and lines it names. The command is the severity (`error`, `warning`, or
//! `notice` for an info); the message is the diagnostic's message followed
//! by its notes and help, one per line. Secondary labels and fixes cannot be
//! expressed and are left to the other formats.
//!
//! The runner rejects `col` and `endColumn` when `line` and `endLine`
//! differ, so a span over several lines gives only `line` and `endLine`. A
//! diagnostic whose file is unknown (a bug in a check) gives no position at
//! all, which makes it an annotation of the run rather than of a file.

use super::{Resolved, message_with_notes_and_help};
use wf_diagnostics::{Diagnostic, Severity, Sources};

pub(super) fn render(diags: &[&Diagnostic], sources: &Sources) -> String {
    let mut out = String::new();
    for d in diags {
        out.push_str(&command(d, sources));
        out.push('\n');
    }
    out
}

/// The workflow command for one diagnostic, without its newline.
fn command(d: &Diagnostic, sources: &Sources) -> String {
    let name = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut properties: Vec<(&str, String)> = Vec::new();
    let at = Resolved::new(d.primary.location, sources);
    if at.file.is_some() {
        let (start, end) = (at.start(), at.end());
        properties.push(("file", at.path().to_owned()));
        properties.push(("line", start.line.to_string()));
        if start.line == end.line {
            properties.push(("col", start.column.to_string()));
        }
        properties.push(("endLine", end.line.to_string()));
        if start.line == end.line {
            properties.push(("endColumn", end.column.to_string()));
        }
    }
    properties.push(("title", format!("{} {}", d.code.code, d.code.name)));
    let properties: Vec<String> = properties
        .into_iter()
        .map(|(key, value)| format!("{key}={}", escape_property(&value)))
        .collect();
    format!(
        "::{name} {}::{}",
        properties.join(","),
        escape_data(&message_with_notes_and_help(d))
    )
}

/// Escapes a command's message, as the Actions toolkit's `escapeData` does.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value, as the Actions toolkit's `escapeProperty` does:
/// the message escapes, plus `:` and `,`, which delimit properties.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_follow_the_actions_toolkit() {
        assert_eq!(escape_data("100% a:b,c\r\nd"), "100%25 a:b,c%0D%0Ad");
        assert_eq!(
            escape_property("100% a:b,c\r\nd"),
            "100%25 a%3Ab%2Cc%0D%0Ad"
        );
        // `%` first, so the escapes themselves are not escaped again.
        assert_eq!(escape_data("%0A"), "%250A");
    }
}
