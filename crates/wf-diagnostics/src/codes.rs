//! The registry of every diagnostic code `wfc` can emit.
//!
//! Codes are grouped by family in hundreds: `WF00xx` syntax, `WF01xx` names,
//! `WF02xx` graph structure, `WF03xx` contracts and data flow, `WF04xx`
//! conditions (guards), `WF05xx` engine attributes, `WF06xx` the Attractor
//! DOT front end (syntax and lowering of `.dot` files), `WF07xx` the Reflex
//! workflow JSON front end (`.json` files), `WF08xx` the Attractor lint
//! rules, `WF09xx` run failures (not found by checking: the kinds of
//! failure a run reports, `docs/runtime.md`). A code, once published, keeps its meaning
//! forever; retired codes are never reused. Each code's long explanation lives
//! in `crates/wf-render/explanations/<CODE>.md`, compiled into `wf-render`
//! (not here, so that editing one recompiles only the crates that print
//! it); `wfc explain` and `docs/diagnostics.md` print the same text.

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
    /// The Attractor DOT front end: syntax and lowering of `.dot` files.
    Dot,
    /// The Reflex workflow JSON front end: JSON syntax and the Reflex schema.
    Reflex,
    /// The Attractor lint rules (spec section 7.2) and typo checks of `.dot`
    /// pipelines.
    Attractor,
    /// Run failures: the kinds of failure `wfc run` reports (never
    /// reported by checking).
    Run,
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
            Family::Dot => "dot",
            Family::Reflex => "reflex",
            Family::Attractor => "attractor",
            Family::Run => "run",
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
    /// One-line summary used in listings and hovers. The long explanation
    /// is `wf_render::explanation`.
    pub summary: &'static str,
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
    /// A `// wfc: allow(...)` comment that names no known code, names one that
    /// cannot be suppressed, or is malformed.
    INVALID_SUPPRESSION = "WF0010", "invalid-suppression", Syntax, Warning,
        "a suppression comment is malformed, or names an unknown or unsuppressible code";
    /// A wfc IR file (`wfc build`'s output) that the IR loader refuses.
    INVALID_IR = "WF0011", "invalid-ir", Syntax, Error,
        "an IR file is malformed or fails verification";
    /// A guard `wfc build --emit reflex` cannot write (`wfc check --target reflex`).
    REFLEX_INEXPRESSIBLE_GUARD = "WF0012", "reflex-inexpressible-guard", Syntax, Error,
        "a guard has no Reflex equivalent";
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
    /// An `import` whose file cannot be loaded: missing, a directory, unreadable.
    UNRESOLVED_IMPORT = "WF0107", "unresolved-import", Names, Error,
        "an imported file does not exist or cannot be read";
    /// An `import` path that leaves the project root (absolute, `..`, symbolic link).
    IMPORT_OUTSIDE_ROOT = "WF0108", "import-outside-root", Names, Error,
        "an import path leaves the project root";
    /// An `import` path that does not name a `.wf` file.
    IMPORT_NOT_WF = "WF0109", "import-not-wf", Names, Error,
        "an import path does not name a `.wf` file";
    /// A manager node's child pipeline path does not name a `.dot` file.
    CHILD_NOT_PIPELINE = "WF0110", "child-not-pipeline", Names, Error,
        "a child pipeline path does not name a `.dot` pipeline";

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
    /// An edge written twice, with the same label, guard and attributes.
    DUPLICATE_EDGE = "WF0210", "duplicate-edge", Graph, Warning,
        "an edge is written twice, identically";

    // WF03xx: contracts and data flow (added in this block only).
    /// A required read is not written on every path from the entry.
    READ_NOT_WRITTEN = "WF0301", "read-not-written", Contracts, Error,
        "a required read is not written on every path from the entry";
    /// A callee's `needs` key is not available at a call site.
    CALLEE_NEED_UNAVAILABLE = "WF0302", "callee-need-unavailable", Contracts, Error,
        "a key the called workflow needs is not available at the call";
    /// A `gives` key is not written on every path to a terminal.
    GIVES_NOT_WRITTEN = "WF0303", "gives-not-written", Contracts, Error,
        "a key the workflow gives is not written on every path to a terminal";
    /// A return map takes a key the callee does not guarantee.
    RETURN_MAP_NOT_GUARANTEED = "WF0304", "return-map-unguaranteed", Contracts, Error,
        "a return map takes a key the called workflow does not guarantee";
    /// A guard or string interpolation reads a key nothing writes.
    UNWRITTEN_KEY = "WF0305", "unwritten-key", Contracts, Warning,
        "a guard or interpolation reads a key that nothing writes";
    /// One key is declared with incompatible types.
    TYPE_MISMATCH = "WF0306", "type-mismatch", Contracts, Error,
        "a key is declared with incompatible types";
    /// A type name that is not one of the language's types.
    UNKNOWN_TYPE = "WF0307", "unknown-type", Contracts, Error,
        "a contract uses a type name that does not exist";
    /// Every way to complete a workflow recurses into it again.
    RECURSION_NEVER_COMPLETES = "WF0308", "endless-recursion", Contracts, Error,
        "every path to a terminal recurses into the workflow again";
    /// A freeform `human` node does not declare the one string key its
    /// answer is written to.
    FREEFORM_WITHOUT_WRITE = "WF0321", "freeform-without-write", Contracts, Error,
        "a freeform human node does not declare the one string key its answer goes to";
    /// A multi-select `human` node lacks its options or its one list key,
    /// or is freeform too.
    MULTIPLE_CHOICE_MISUSED = "WF0322", "multiple-choice-misused", Contracts, Error,
        "a multi-select human node lacks its options or the one list key its answer goes to";

    // WF04xx: conditions (added in this block only).
    /// An operand of a guard operator has a type the operator does not accept.
    GUARD_TYPE_MISMATCH = "WF0401", "guard-type-mismatch", Conditions, Error,
        "an operand of a guard operator has the wrong type";
    /// A guard, or an operand of `&&`, `||` or `!`, that is not a boolean.
    NON_BOOLEAN_CONDITION = "WF0402", "non-boolean-condition", Conditions, Error,
        "a guard, or an operand of `&&`, `||` or `!`, is not a boolean";
    /// `outcome` compared with a value that is not an outcome status.
    UNKNOWN_OUTCOME = "WF0403", "unknown-outcome", Conditions, Error,
        "`outcome` is compared with a value that is not an outcome status";
    /// A `matches` pattern that is not a valid regular expression.
    INVALID_REGEX = "WF0404", "invalid-regex", Conditions, Error,
        "a `matches` pattern is not a valid regular expression";
    /// A guard that can never hold: constant false, or contradictory clauses.
    GUARD_NEVER_HOLDS = "WF0405", "guard-never-holds", Conditions, Warning,
        "a guard can never hold, so its edge is never taken";
    /// A fan-out where some outcome status leaves no edge that can be taken.
    UNCOVERED_OUTCOME = "WF0406", "uncovered-outcome", Conditions, Warning,
        "for some outcome status, no outgoing edge of a node can be taken";
    /// A guard that always holds, so it is not a condition at all.
    GUARD_ALWAYS_HOLDS = "WF0407", "guard-always-holds", Conditions, Info,
        "a guard always holds";

    // WF05xx: attributes (added in this block only).
    /// An engine attribute whose value has the wrong type.
    ATTRIBUTE_TYPE_MISMATCH = "WF0501", "attribute-type-mismatch", Attributes, Error,
        "an engine attribute has a value of the wrong type";
    /// A duration attribute that is zero, negative, or a string that is not a duration literal.
    INVALID_DURATION = "WF0502", "invalid-duration", Attributes, Error,
        "a duration attribute is zero, negative or not a valid duration";
    /// A numeric engine attribute outside its range.
    ATTRIBUTE_OUT_OF_RANGE = "WF0503", "attribute-out-of-range", Attributes, Error,
        "a numeric engine attribute is out of range";
    /// An enumerated engine attribute with a value that is not one of its members.
    UNKNOWN_ATTRIBUTE_VALUE = "WF0504", "unknown-attribute-value", Attributes, Error,
        "an engine attribute has a value that is not one of its allowed values";
    /// `retry_target` or `fallback_retry_target` names a node that does not exist.
    UNKNOWN_RETRY_TARGET = "WF0505", "unknown-retry-target", Attributes, Error,
        "a retry target names a node that does not exist";
    /// A `human` node's `default` matches none of its choices.
    UNKNOWN_DEFAULT_CHOICE = "WF0506", "unknown-default-choice", Attributes, Error,
        "a human node's default matches none of its choices";
    /// A `tool` node without a command.
    MISSING_TOOL_COMMAND = "WF0507", "missing-tool-command", Attributes, Error,
        "a tool node has no command to run";
    /// An engine attribute on a node kind or edge where it has no effect.
    MISPLACED_ATTRIBUTE = "WF0508", "misplaced-attribute", Attributes, Warning,
        "an engine attribute is set where it has no effect";
    /// An engine attribute set under both of its names (`retries` and `max_retries`).
    CONFLICTING_ATTRIBUTE_ALIASES = "WF0509", "conflicting-attribute-aliases", Attributes, Error,
        "an engine attribute is set under both of its names";
    /// A workflow's `model_stylesheet` that does not parse.
    INVALID_STYLESHEET = "WF0510", "invalid-stylesheet", Attributes, Error,
        "a model stylesheet has a syntax error";
    /// An interpolation in a tool command where the shell never expands it
    /// (a comment, a here-document with a quoted delimiter).
    UNEXPANDED_INTERPOLATION = "WF0511", "unexpanded-interpolation", Attributes, Error,
        "an interpolation in a tool command sits where the shell never expands it";
    /// An interpolation in a tool command inside a shell construct whose
    /// quoting wfc does not track (backquotes, `${…}`, `$'…'`, a here-document
    /// delimiter, right after `\` or `$`).
    UNTRACKED_INTERPOLATION = "WF0512", "untracked-interpolation", Attributes, Error,
        "an interpolation in a tool command sits in a shell construct wfc cannot pass a value into";
    /// An interpolation in a tool command where bash evaluates text as code
    /// (`$((…))`, `((…))`, `[[ … ]]`).
    EVALUATED_INTERPOLATION = "WF0513", "evaluated-interpolation", Attributes, Error,
        "an interpolation in a tool command sits where the shell evaluates it as code";
    /// An attribute name the schema does not know but that is a near miss of one it does.
    MISSPELT_ATTRIBUTE = "WF0515", "misspelt-attribute", Attributes, Warning,
        "an attribute name is probably a misspelling of a known attribute";
    /// `compensate` names a node that cannot undo an effect: not a `tool` node, or the node itself.
    INVALID_COMPENSATION = "WF0530", "invalid-compensation", Attributes, Error,
        "a node's compensation is not a tool node it can run";

    // WF06xx: the Attractor DOT front end (added in this block only).
    /// A token the DOT parser did not expect, or a character outside DOT.
    DOT_SYNTAX_ERROR = "WF0601", "dot-syntax-error", Dot, Error,
        "the DOT parser found a token or character it did not expect here";
    /// A `"` string, `/*` comment or `<` HTML string never closed.
    DOT_UNTERMINATED = "WF0602", "dot-unterminated", Dot, Error,
        "a DOT string or block comment is not closed";
    /// Graphviz syntax the Attractor subset rejects: `strict`, `graph`, `--`, ports, HTML strings, several graphs.
    DOT_UNSUPPORTED = "WF0603", "dot-unsupported", Dot, Error,
        "Graphviz syntax outside the Attractor DOT subset";
    /// A node id that is not a bare identifier (`"Run tests"`, `1st`, `a-b`).
    DOT_NODE_ID = "WF0604", "dot-node-id", Dot, Warning,
        "a node id is not a bare identifier";
    /// A duration attribute written as a bare number, read as seconds.
    DOT_DURATION_UNIT = "WF0605", "dot-duration-unit", Dot, Warning,
        "a duration attribute has no unit and is read as seconds";
    /// An edge `condition` that does not parse (Attractor rule `condition_syntax`).
    DOT_CONDITION_SYNTAX = "WF0606", "dot-condition-syntax", Dot, Error,
        "an edge condition does not parse";
    /// An edge `condition` using an operator beyond the Attractor condition language.
    DOT_CONDITION_EXTENSION = "WF0607", "dot-condition-extension", Dot, Warning,
        "an edge condition uses an operator outside the Attractor condition language";

    // WF07xx: the Reflex workflow JSON front end (added in this block only).
    /// A Reflex workflow JSON file that is not well-formed JSON.
    INVALID_JSON = "WF0701", "invalid-json", Reflex, Error,
        "a JSON file is not well-formed JSON";
    /// A Reflex workflow document that does not follow the Reflex workflow schema.
    REFLEX_SCHEMA = "WF0702", "reflex-schema", Reflex, Error,
        "a Reflex workflow document does not follow the Reflex schema";
    /// A Reflex edge with a `custom` guard, which wfc cannot check, compile or run.
    REFLEX_CUSTOM_GUARD = "WF0703", "reflex-custom-guard", Reflex, Error,
        "a Reflex edge uses a custom guard";
    /// A Reflex edge whose `from` or `to` names no node of the workflow.
    REFLEX_UNKNOWN_NODE = "WF0704", "reflex-unknown-node", Reflex, Error,
        "a Reflex edge names a node the workflow does not define";

    // WF08xx: Attractor lint rules and typo checks of `.dot` pipelines
    // (added in this block only).
    /// Attractor `start_node`: more than one start node.
    ATTRACTOR_MULTIPLE_STARTS = "WF0801", "attractor-multiple-starts", Attractor, Error,
        "an Attractor pipeline has more than one start node";
    /// Attractor `type_known`: a node `type` no handler is registered for.
    ATTRACTOR_UNKNOWN_TYPE = "WF0802", "attractor-unknown-type", Attractor, Warning,
        "a node's `type` is not a handler type Attractor knows";
    /// Attractor `goal_gate_has_retry`: a goal gate with nowhere to retry.
    ATTRACTOR_GOAL_GATE_NO_RETRY = "WF0803", "attractor-goal-gate-no-retry", Attractor, Warning,
        "a `goal_gate` node has no retry target";
    /// Attractor `prompt_on_llm_nodes`: an LLM node with neither `prompt` nor `label`.
    ATTRACTOR_MISSING_PROMPT = "WF0804", "attractor-missing-prompt", Attractor, Warning,
        "a codergen node has neither a `prompt` nor a `label`";
    /// An `outcome` compared with a near-miss of a status name.
    ATTRACTOR_OUTCOME_TYPO = "WF0805", "attractor-outcome-typo", Attractor, Error,
        "a condition compares `outcome` with a misspelled status";
    /// A `context.*` key used once, next to a near-identical key used elsewhere.
    ATTRACTOR_CONTEXT_KEY_TYPO = "WF0806", "attractor-context-key-typo", Attractor, Warning,
        "a condition's context key is probably a misspelling of another";
    /// A start or exit found by its id whose `shape` or `type` runs another handler.
    ATTRACTOR_START_EXIT_HANDLER = "WF0807", "attractor-start-exit-handler", Attractor, Warning,
        "a start or exit node found by its id has a shape or type that runs another handler";
    /// A condition key that is a near miss of a key the engine itself writes.
    ATTRACTOR_ENGINE_KEY_TYPO = "WF0808", "attractor-engine-key-typo", Attractor, Warning,
        "a condition key is probably a misspelling of a key the engine writes";
    /// A value engines accept leniently: `weight="2.0"`, a condition in a boolean attribute.
    ATTRACTOR_LENIENT_VALUE = "WF0809", "attractor-lenient-value", Attractor, Warning,
        "an attribute value is not of its type, and engines read it leniently";
    /// Attractor `all_conditional_edges`: no edge is taken when the node succeeds.
    ATTRACTOR_NO_FALLBACK_EDGE = "WF0810", "attractor-no-fallback-edge", Attractor, Warning,
        "every outgoing edge of a node is conditional and none is sure to match";
    /// A custom outcome a node's prompt asks for that no outgoing edge handles.
    ATTRACTOR_UNHANDLED_OUTCOME = "WF0811", "attractor-unhandled-outcome", Attractor, Warning,
        "a node's prompt asks for an outcome that none of its edges handles";
    /// A node id that is a DOT keyword.
    ATTRACTOR_RESERVED_NODE_ID = "WF0812", "attractor-reserved-node-id", Attractor, Warning,
        "a node id is a DOT keyword";
    /// A tool command that changes to an absolute directory.
    ATTRACTOR_ABSOLUTE_CD = "WF0813", "attractor-absolute-cd", Attractor, Warning,
        "a tool command changes to an absolute directory";
    /// A `thread_id` where the fidelity is not `full`, so it has no effect.
    ATTRACTOR_THREAD_WITHOUT_FULL = "WF0814", "attractor-thread-without-full-fidelity", Attractor, Warning,
        "a `thread_id` is set where the fidelity is not `full`, so it has no effect";
    /// A `@file` prompt naming no file (a missing child pipeline is WF0107).
    ATTRACTOR_MISSING_FILE = "WF0815", "attractor-missing-file", Attractor, Warning,
        "a `@file` prompt names a file that does not exist";
    /// A node's model that the catalog does not list for its provider.
    ATTRACTOR_UNKNOWN_MODEL = "WF0816", "attractor-unknown-model", Attractor, Warning,
        "a node's model is not known for its provider";
    /// A node with no outgoing edge that is not an exit: a run ends there.
    ATTRACTOR_DEAD_END = "WF0820", "attractor-dead-end", Attractor, Warning,
        "a node that is not an exit has no outgoing edge, so a run that reaches it stops there";
    /// A `tool_hooks.pre` / `tool_hooks.post` that no tool call runs.
    ATTRACTOR_TOOL_HOOKS_IGNORED = "WF0860", "attractor-tool-hooks-ignored", Attractor, Warning,
        "a tool hook is set where no tool node runs it: wfc runs tool hooks around `tool` nodes only";
    /// A `stack.manager_loop` node with no child pipeline to supervise.
    ATTRACTOR_MANAGER_WITHOUT_CHILD = "WF0861", "attractor-manager-without-child", Attractor, Warning,
        "a manager node names no child pipeline (`stack.child_dotfile`), so a run fails there";
    /// A loop whose ways out all need an outcome no handler returns.
    ATTRACTOR_CLOSED_LOOP = "WF0862", "attractor-closed-loop", Attractor, Warning,
        "a loop can only be left on an `outcome` no handler returns, so a run goes round until `max_visits`";

    // WF09xx: run failures (`wf_vm::FailureKind`; a wf-vm test checks that
    // its codes and names are these)
    /// A run limit was exceeded: steps, visits, call depth, wall clock, a callee's budget, a node timeout.
    RUN_LIMIT_EXCEEDED = "WF0901", "run-limit-exceeded", Run, Error,
        "the run, a call or a node went over one of its limits";
    /// The agent returned an error, or a decision the engine cannot apply.
    AGENT_FAILED = "WF0902", "agent-failed", Run, Error,
        "the decision agent failed or answered something the engine cannot apply";
    /// A tool node's command failed, timed out, or was refused.
    TOOL_FAILED = "WF0903", "tool-failed", Run, Error,
        "a tool node's command failed, timed out or was refused";
    /// A write was rejected, or a declared write, read, need or `gives` key was missing.
    CONTRACT_VIOLATED = "WF0904", "contract-violated", Run, Error,
        "a node or workflow broke its data contract at run time";
    /// A guard could not be evaluated at run time.
    GUARD_ERROR = "WF0905", "guard-error", Run, Error,
        "an edge's guard could not be evaluated";
    /// The run directory or the event file could not be written or read back.
    STORE_ERROR = "WF0906", "store-error", Run, Error,
        "the run directory or the event file failed";
    /// A state the engine should never reach.
    INTERNAL_ERROR = "WF0907", "internal-error", Run, Error,
        "the engine reached a state it should never reach";
    /// A node failed and nothing routed the failure.
    NODE_FAILED = "WF0908", "node-failed", Run, Error,
        "a node failed and no edge or retry target handled the failure";
    /// No valid edge for a successful outcome, or an unsatisfied goal gate.
    NO_ROUTE = "WF0909", "no-route", Run, Error,
        "the run had nowhere to go from a node";
    /// The program asks for something the engine cannot run.
    PROGRAM_UNSUPPORTED = "WF0910", "program-unsupported", Run, Error,
        "the program uses something this engine cannot run";
    /// The user cancelled a durable run (`--cancel`).
    RUN_CANCELLED = "WF0930", "run-cancelled", Run, Error,
        "the user cancelled the run";
    /// A signal stopped a durable run mid-step; it is suspended.
    RUN_INTERRUPTED = "WF0931", "run-interrupted", Run, Warning,
        "a signal (Ctrl-C, SIGTERM) interrupted a durable run, which is suspended";
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
                Family::Dot => "06",
                Family::Reflex => "07",
                Family::Attractor => "08",
                Family::Run => "09",
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
