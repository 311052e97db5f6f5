//! The Attractor lint rules (spec section 7.2) and two typo checks, for
//! workflows read from `.dot` pipelines ([`SourceFormat::Dot`]) only.
//!
//! Every rule of section 7.2 is visible under its rule id: the rules that
//! an existing check already implements keep that check's code, and
//! `adapt` adds the note `attractor rule: <id>` and gives it the seed's
//! severity; the others have `WF08xx` codes of their own (`rules`). The
//! checks of `.wf` that do not apply to Attractor's run-time semantics are
//! dropped here for `.dot` workflows. `docs/attractor.md` has the table of
//! rules, codes and severities, and the decisions behind them.

mod closed;
mod fabro;
pub mod files;
mod hooks;
pub mod models;
mod rules;
mod typos;

use wf_diagnostics::{Diagnostic, Severity, codes};
use wf_model::{SourceFormat, Workflow};

use crate::graph::GraphFacts;

/// The Attractor rule id of a diagnostic code that implements one, and the
/// seed's severity for it (`None`: keep the code's own).
pub fn rule_of(code: &str) -> Option<(&'static str, Option<Severity>)> {
    Some(match code {
        "WF0202" | "WF0203" | "WF0801" => ("start_node", None),
        "WF0204" => ("terminal_node", None),
        "WF0205" => ("reachability", Some(Severity::Error)),
        "WF0105" => ("edge_target_exists", Some(Severity::Error)),
        "WF0206" => ("start_no_incoming", None),
        "WF0207" => ("exit_no_outgoing", None),
        "WF0606" => ("condition_syntax", None),
        "WF0510" => ("stylesheet_syntax", None),
        "WF0802" => ("type_known", None),
        "WF0505" => ("retry_target_exists", Some(Severity::Warning)),
        "WF0803" => ("goal_gate_has_retry", None),
        "WF0804" => ("prompt_on_llm_nodes", None),
        // fabro-validate's rules, under fabro's ids.
        "WF0810" => ("all_conditional_edges", None),
        "WF0811" => ("orphan_custom_outcome", None),
        "WF0812" => ("reserved_keyword_node_id", None),
        "WF0813" => ("script_absolute_cd", None),
        "WF0814" => ("thread_id_requires_fidelity_full", None),
        "WF0815" => ("unresolved_file_ref", None),
        "WF0816" => ("node_model_known", None),
        _ => return None,
    })
}

/// The note naming a rule, as it appears in output.
pub fn rule_note(rule: &str) -> String {
    format!("attractor rule: {rule}")
}

/// Adds the `attractor rule` note (and the seed's severity) to `d` when its
/// code implements a rule. For the diagnostics of the DOT front end
/// (WF0606, WF0510), which the front end reports before any check runs.
pub fn annotate(d: &mut Diagnostic) {
    if let Some((rule, severity)) = rule_of(d.code.code) {
        let note = rule_note(rule);
        if !d.notes.contains(&note) {
            d.notes.push(note);
        }
        if let Some(severity) = severity {
            d.severity = severity;
        }
    }
}

/// Runs the Attractor rules over a `.dot` workflow and adapts the
/// diagnostics `out` already holds for it (see `adapt`). Of the other
/// formats, only the models of the steps are judged (WF0816: `wfc run
/// --agent llm` calls the same providers for a `.wf` step).
pub fn check_workflow(workflow: &Workflow, facts: &GraphFacts, out: &mut Vec<Diagnostic>) {
    if workflow.format != SourceFormat::Dot {
        out.extend(models::check(workflow));
        return;
    }
    adapt(workflow, out);
    let missing = rules::missing_start_or_exit(workflow, out);
    out.extend(missing);
    out.extend(rules::check(workflow, facts));
    out.extend(typos::check(workflow));
    out.extend(rules::start_exit_handlers(workflow));
    out.extend(rules::dead_ends(workflow, facts));
    out.extend(fabro::check(workflow));
    out.extend(models::check(workflow));
    out.extend(hooks::check(workflow));
    out.extend(closed::check(workflow, facts));
    for d in out.iter_mut() {
        annotate(d);
    }
}

/// Drops the `.wf` checks that do not apply to a `.dot` workflow:
///
/// - WF0305 (a key read but never written): Attractor handlers write
///   context keys at run time, invisible to the analysis.
/// - WF0403 (unknown outcome): engines let nodes report custom outcomes;
///   WF0805 reports the near misses of a status instead.
/// - WF0510 from the `.wf` stylesheet grammar: the DOT front end parses the
///   stylesheet in the Attractor dialect and reports its errors itself.
/// - WF0507 (a tool without `command`) when the node has a non-empty
///   `tool_command`, Attractor's name for it (or `script`, fabro's);
///   otherwise WF0507 is reworded to name `tool_command`.
/// - WF0504 on a fidelity attribute is Attractor rule `fidelity_valid`,
///   a warning.
fn adapt(workflow: &Workflow, out: &mut Vec<Diagnostic>) {
    let fidelity_spans: Vec<_> = workflow
        .attributes
        .iter()
        .chain(workflow.nodes.iter().flat_map(|n| &n.attributes))
        .chain(workflow.edges.iter().flat_map(|e| &e.attributes))
        .filter(|a| matches!(a.key.as_str(), "fidelity" | "default_fidelity"))
        .map(|a| a.value_span)
        .collect();
    let with_tool_command: Vec<_> = workflow
        .nodes
        .iter()
        .filter(|n| {
            n.attributes.iter().any(|a| {
                matches!(a.key.as_str(), "tool_command" | "script")
                    && matches!(&a.value, wf_model::Value::String(s) if !s.trim().is_empty())
            })
        })
        .map(|n| n.name_span)
        .collect();
    out.retain(|d| {
        let at = d.primary.location;
        !(std::ptr::eq(d.code, &codes::UNWRITTEN_KEY)
            || std::ptr::eq(d.code, &codes::UNKNOWN_OUTCOME)
            || std::ptr::eq(d.code, &codes::INVALID_STYLESHEET)
            || (std::ptr::eq(d.code, &codes::MISSING_TOOL_COMMAND)
                && with_tool_command.contains(&at)))
    });
    for d in out.iter_mut() {
        if std::ptr::eq(d.code, &codes::MISSING_TOOL_COMMAND) && d.fix.is_none() {
            d.message = d.message.replace("`command`", "`tool_command`");
            d.help = Some("add the command the node runs: `tool_command=\"make test\"`".into());
        } else if std::ptr::eq(d.code, &codes::MISSING_TOOL_COMMAND) {
            // The fix renames to `command`, which Attractor does not read.
            d.message = d.message.replace("`command`", "`tool_command`");
            d.fix = None;
            d.help = d
                .help
                .take()
                .map(|h| h.replace("`command`", "`tool_command`"));
        }
        if std::ptr::eq(d.code, &codes::UNKNOWN_ATTRIBUTE_VALUE)
            && fidelity_spans.iter().any(|s| {
                s.file == d.primary.location.file && within(s.span, d.primary.location.span)
            })
        {
            d.severity = Severity::Warning;
            d.notes.push(rule_note("fidelity_valid"));
        }
    }
}

/// Whether `inner` lies within `outer`.
fn within(outer: wf_diagnostics::Span, inner: wf_diagnostics::Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}
