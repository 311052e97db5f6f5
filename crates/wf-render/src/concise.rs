//! Concise output: `path:line:col: severity[CODE] message`, one line each.
//!
//! The shape is the one editors' problem matchers and `grep` expect (as in
//! GCC, Ruff's `--output-format concise`); labels, notes, help and fixes are
//! left to the human and JSON formats.

use super::Resolved;
use wf_diagnostics::{Diagnostic, Sources};

pub(super) fn render(diags: &[&Diagnostic], sources: &Sources) -> String {
    let mut out = String::new();
    for d in diags {
        let at = Resolved::new(d.primary.location, sources);
        let start = at.start();
        // A stray newline in a message would break the one-line contract
        // that line-based consumers rely on.
        let message = d.message.replace(['\r', '\n'], " ");
        out.push_str(&format!(
            "{}:{}:{}: {}[{}] {}\n",
            at.path(),
            start.line,
            start.column,
            d.severity.as_str(),
            d.code.code,
            message
        ));
    }
    out
}
