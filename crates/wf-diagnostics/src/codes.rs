//! The registry of every diagnostic code `wfc` can emit.
//!
//! Codes are grouped by family in hundreds: `WF00xx` syntax, `WF01xx` names,
//! `WF02xx` graph structure, `WF03xx` contracts and data flow, `WF04xx`
//! conditions (guards), `WF05xx` engine attributes. A code, once published, keeps its meaning
//! forever; retired codes are never reused. Each code's long explanation lives
//! in `explanations/<CODE>.md` beside this crate and is compiled in, so
//! `wfc explain` and `docs/diagnostics.md` print the same text.

use serde::{Deserialize, Serialize, Serializer};

use crate::diagnostic::Severity;

/// The family a code belongs to (its hundreds digit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Lexing and parsing.
    Syntax,
    /// Declarations, references and reserved names.
    Names,
    /// The shape of a workflow graph.
    Graph,
    /// Node contracts, signatures, return maps and data flow.
    Contracts,
    /// Guard expressions: names, types, satisfiability, coverage.
    Conditions,
    /// Engine attributes: types, ranges, references.
    Attributes,
}

impl Family {
    /// Lowercase name as used in docs and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Syntax => "syntax",
            Family::Names => "names",
            Family::Graph => "graph",
            Family::Contracts => "contracts",
            Family::Conditions => "conditions",
            Family::Attributes => "attributes",
        }
    }
}

/// A diagnostic code and everything static about it.
#[derive(Debug, PartialEq)]
pub struct Code {
    /// The stable code, such as `WF0201`.
    pub code: &'static str,
    /// The stable kebab-case name, such as `cycle`.
    pub name: &'static str,
    /// The family.
    pub family: Family,
    /// Default severity.
    pub severity: Severity,
    /// One-line summary used in listings and hovers.
    pub summary: &'static str,
    /// Long explanation in Markdown: what it detects, why it matters, an
    /// example, how to fix it.
    pub explanation: &'static str,
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code)
    }
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $ident:ident = $code:literal, $name:literal, $family:ident, $severity:ident, $summary:literal; )*) => {
        $(
            $(#[$doc])*
            pub static $ident: Code = Code {
                code: $code,
                name: $name,
                family: Family::$family,
                severity: Severity::$severity,
                summary: $summary,
                explanation: include_str!(concat!("../explanations/", $code, ".md")),
            };
        )*

        /// Every code, in code order.
        pub static ALL: &[&Code] = &[$(&$ident),*];
    };
}

codes! {
    /// A token the parser did not expect at this point.
    UNEXPECTED_TOKEN = "WF0001", "unexpected-token", Syntax, Error,
        "the parser found a token it did not expect here";
    /// A `"` string without its closing quote on the same line, or a `"""` string never closed.
    UNTERMINATED_STRING = "WF0002", "unterminated-string", Syntax, Error,
        "a string literal is not closed";
    /// A backslash escape that the language does not define.
    INVALID_ESCAPE = "WF0003", "invalid-escape", Syntax, Error,
        "a string contains an unknown escape sequence";
    /// An opening `{`, `[` or `(` that is never closed, or closed by the wrong delimiter.
    UNCLOSED_DELIMITER = "WF0004", "unclosed-delimiter", Syntax, Error,
        "a bracket is not closed, or closed by the wrong bracket";
    /// A character that cannot start any token.
    INVALID_CHARACTER = "WF0005", "invalid-character", Syntax, Error,
        "a character that is not part of the language";
    /// A `/*` comment without its `*/`.
    UNTERMINATED_COMMENT = "WF0006", "unterminated-comment", Syntax, Error,
        "a block comment is not closed";
    /// A number or duration that is malformed or out of range.
    INVALID_NUMBER = "WF0007", "invalid-number", Syntax, Error,
        "a number or duration literal is malformed or out of range";
    /// A `///` doc comment that is not followed by an item it could document.
    DANGLING_DOC_COMMENT = "WF0008", "dangling-doc-comment", Syntax, Warning,
        "a doc comment documents nothing";
    /// An attribute key given twice in the same block.
    DUPLICATE_ATTRIBUTE = "WF0009", "duplicate-attribute", Syntax, Error,
        "an attribute is set twice in the same block";

    /// Two workflows share a name.
    DUPLICATE_WORKFLOW = "WF0101", "duplicate-workflow", Names, Error,
        "two workflows have the same name";
    /// Two nodes in one workflow share a name.
    DUPLICATE_NODE = "WF0102", "duplicate-node", Names, Error,
        "two nodes in one workflow have the same name";
    /// `entry = x` names a node the workflow does not have.
    UNKNOWN_ENTRY = "WF0103", "unknown-entry", Names, Error,
        "the entry attribute names a node that does not exist";
    /// A `call` node invokes a workflow that is not defined.
    UNKNOWN_WORKFLOW = "WF0104", "unknown-workflow", Names, Error,
        "a call node invokes a workflow that is not defined";
    /// An edge mentions an undeclared name close to a declared one: probably a typo.
    UNDECLARED_NODE = "WF0105", "undeclared-node", Names, Warning,
        "an edge names an undeclared node that looks like a typo of a declared one";
    /// A node id or blackboard key uses the reserved `_` prefix or `internal.` namespace.
    RESERVED_NAME = "WF0106", "reserved-name", Names, Error,
        "a name uses the reserved `_` prefix or the `internal.` namespace";

    /// A workflow's edges form a cycle.
    CYCLE = "WF0201", "cycle", Graph, Error,
        "the edges of a workflow form a cycle";
    /// No entry node can be determined.
    MISSING_ENTRY = "WF0202", "missing-entry", Graph, Error,
        "the workflow has no entry node";
    /// Several nodes could be the entry.
    AMBIGUOUS_ENTRY = "WF0203", "ambiguous-entry", Graph, Error,
        "several nodes could be the entry node";
    /// No node can end the workflow.
    NO_TERMINAL = "WF0204", "no-terminal", Graph, Error,
        "the workflow has no terminal node";
    /// A node that no path from the entry reaches.
    UNREACHABLE_NODE = "WF0205", "unreachable-node", Graph, Warning,
        "a node cannot be reached from the entry";
    /// The entry node has incoming edges.
    ENTRY_HAS_INCOMING = "WF0206", "entry-has-incoming", Graph, Error,
        "the entry node has incoming edges";
    /// An `exit` node has outgoing edges.
    EXIT_HAS_OUTGOING = "WF0207", "exit-has-outgoing", Graph, Error,
        "an exit node has outgoing edges";
    /// A `human` node offers no choices.
    HUMAN_WITHOUT_CHOICES = "WF0208", "human-without-choices", Graph, Error,
        "a human node has no outgoing edges to choose from";
    /// Two choices of a `human` node share an accelerator key.
    DUPLICATE_ACCELERATOR = "WF0209", "duplicate-accelerator", Graph, Warning,
        "two choices of a human node use the same accelerator key";

    // WF03xx: contracts and data flow (added in this block only).

    // WF04xx: conditions (added in this block only).

    // WF05xx: attributes (added in this block only).
}

/// Looks a code up by its code (`WF0201`, case-insensitive) or its name (`cycle`).
pub fn lookup(query: &str) -> Option<&'static Code> {
    ALL.iter()
        .copied()
        .find(|c| c.code.eq_ignore_ascii_case(query) || c.name == query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_well_formed() {
        for pair in ALL.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} before {}",
                pair[0].code,
                pair[1].code
            );
        }
        let mut names: Vec<_> = ALL.iter().map(|c| c.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ALL.len(), "duplicate code names");
        for code in ALL {
            assert!(code.code.starts_with("WF") && code.code.len() == 6);
            assert!(
                code.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-')
            );
            let family_digit = &code.code[2..4];
            let expected = match code.family {
                Family::Syntax => "00",
                Family::Names => "01",
                Family::Graph => "02",
                Family::Contracts => "03",
                Family::Conditions => "04",
                Family::Attributes => "05",
            };
            assert_eq!(
                family_digit, expected,
                "{} is in the wrong family",
                code.code
            );
        }
    }

    #[test]
    fn lookup_by_code_or_name() {
        assert_eq!(lookup("wf0201").unwrap().name, "cycle");
        assert_eq!(lookup("cycle").unwrap().code, "WF0201");
        assert!(lookup("WF9999").is_none());
    }
}
