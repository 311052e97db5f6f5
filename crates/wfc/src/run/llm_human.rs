//! `.wf` `human` nodes under `--agent llm`: the interviewer of
//! `--interviewer` asks them, as it asks a `.dot` pipeline's gates (a run
//! with real models still has people deciding at its human nodes).

use wf_vm::attractor::human::{Choice, Gate, SharedInterviewer, run_gate};
use wf_vm::{Decision, DecisionContext, Outcome, Status, question};

/// Asks `interviewer` the question of the `human` node of `ctx`: its valid
/// edges are the choices; its `default` is taken at its `timeout`.
pub fn ask(ctx: &DecisionContext<'_>, interviewer: &SharedInterviewer) -> Decision {
    let node = ctx.str(ctx.node.id);
    let target = |e: &wf_ir::IrEdge| ctx.str(ctx.workflow.nodes[e.to.0 as usize].id);
    let choices: Vec<Choice> = ctx
        .valid_edge_list()
        .map(|e| Choice::new(ctx.str(e.id), e.label.map(|l| ctx.str(l)), target(e)))
        .collect();
    // The question: the node's label, then its prompt.
    let prompt = ctx
        .spec()
        .get("prompt")
        .and_then(|p| p.as_str())
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string);
    let text = match (ctx.label(), prompt) {
        (Some(l), Some(p)) => Some(format!("{l}\n{p}")),
        (l, p) => l.or(p),
    };
    let default = ctx.default_edge().map(target);
    let id = question::question_id(node, ctx.visit);
    let freeform = question::is_freeform(ctx.node);
    let listed = question::listed_options(ctx.node);
    let multiple = !freeform && question::is_multiple(ctx.node);
    let gate = Gate {
        node,
        id: Some(&id),
        freeform,
        multiple: multiple.then_some(&listed[..]),
        text: text.as_deref(),
        default_choice: default,
        timeout: ctx
            .node
            .engine
            .timeout_ms
            .map(std::time::Duration::from_millis),
    };
    let mut outcome = run_gate(&gate, &choices, interviewer.borrow_mut().as_mut());
    // A freeform or multi-select `.wf` node writes its answer to its one
    // declared key (as the console agent does), not to Attractor's
    // `human.gate.*` keys.
    let answer_key = if freeform {
        Some("human.gate.text")
    } else if multiple {
        Some("human.gate.selections")
    } else {
        None
    };
    if let Some(key) = answer_key
        && outcome.status == Status::Success
        && let Some(w) = outcome.writes.iter().find(|w| w.key == key)
    {
        return match question::freeform_decision(ctx, &id, w.value.clone()) {
            Ok(decision) => decision,
            Err(e) => Decision::Advance(Outcome::failed(e.message)),
        };
    }
    // A `.wf` node writes only the keys it declares: the gate's
    // `human.gate.*` keys are Attractor's.
    outcome.writes.retain(|w| !w.key.starts_with("human.gate."));
    Decision::Advance(outcome)
}
