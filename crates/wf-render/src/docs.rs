//! `docs/diagnostics.md`, generated from the code registry.
//!
//! The reference page is built from [`codes::ALL`] rather than written by
//! hand so it cannot drift from what `wfc explain` prints; a test in
//! `tests/it/docs.rs` fails when the committed file is stale.

use wf_diagnostics::codes::{self, Code};

use crate::explanation;

/// The command that regenerates `docs/diagnostics.md`.
pub const REGENERATE_DOCS: &str = "UPDATE_DOCS=1 cargo test -p wf-render";

/// Renders `docs/diagnostics.md`: an index table of every code, then each
/// code's long explanation under a `## WF0201: cycle` heading.
pub fn diagnostics_markdown() -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "<!-- Generated from crates/wf-diagnostics (codes.rs) and crates/wf-render (explanations/); do not edit.\n     \
         Regenerate with: {REGENERATE_DOCS} -->\n\n"
    ));
    out.push_str(
        "# Diagnostics\n\n\
         Every problem `wfc` reports has a stable code (`WF0201`), a stable name\n\
         (`cycle`), a family and a default severity. Codes are grouped in hundreds:\n\
         `WF00xx` syntax, `WF01xx` names and imports, `WF02xx` graph structure,\n\
         `WF03xx` contracts and data flow, `WF04xx` conditions (guards), `WF05xx`\n\
         engine attributes, `WF06xx` the Attractor DOT front end (`.dot` files), `WF07xx` the Reflex\n\
         workflow JSON front end (`.json` files), `WF08xx` the Attractor lint rules. `WF09xx` are\n\
         not found by checking: they are the kinds of failure `wfc run` reports (family `run`,\n\
         `docs/runtime.md` section 6.1), and cannot be suppressed. Levels can be changed per project in `wf.toml` and\n\
         single findings suppressed with `// wfc: allow(CODE)` (see\n\
         `docs/configuration.md`). A published code\n\
         keeps its meaning forever. `wfc explain CODE` (or `wfc explain NAME`) prints\n\
         the explanations below; `docs/json-output.md` describes the JSON output.\n\n",
    );
    out.push_str("| Code | Name | Severity | Family | Summary |\n");
    out.push_str("|------|------|----------|--------|---------|\n");
    for code in codes::ALL {
        out.push_str(&format!(
            "| [{}](#{}) | `{}` | {} | {} | {} |\n",
            code.code,
            anchor(code),
            code.name,
            code.severity.as_str(),
            code.family.as_str(),
            code.summary.replace('|', "\\|"),
        ));
    }
    for code in codes::ALL {
        out.push_str(&format!("\n## {}: {}\n\n", code.code, code.name));
        out.push_str(&format!(
            "Family: {}. Default severity: {}.\n\n",
            code.family.as_str(),
            code.severity.as_str()
        ));
        out.push_str(&demote_headings(explanation(code).trim_end()));
        out.push('\n');
    }
    out
}

/// The GitHub-style anchor of a code's heading (`wf0201-cycle`).
fn anchor(code: &Code) -> String {
    format!("{}-{}", code.code.to_ascii_lowercase(), code.name)
}

/// Moves the explanation's headings one level down, below the code's own
/// `##` heading; lines inside code fences are left alone.
fn demote_headings(markdown: &str) -> String {
    let mut in_fence = false;
    let mut out = String::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && line.starts_with('#') {
            out.push('#');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_outside_fences_are_demoted() {
        let md = "## What\n\n```wf\n# not a heading\n```\n";
        assert_eq!(
            demote_headings(md),
            "### What\n\n```wf\n# not a heading\n```\n"
        );
    }

    #[test]
    fn every_code_is_indexed_and_explained() {
        let md = diagnostics_markdown();
        for code in codes::ALL {
            assert!(md.contains(&format!("| [{}](#{}) |", code.code, anchor(code))));
            assert!(md.contains(&format!("\n## {}: {}\n", code.code, code.name)));
        }
    }
}
