//! Runs a compiled workflow with a custom agent, linking only the IR and
//! the engine (no parser, no checker): what an embedder's program looks
//! like.
//!
//! ```text
//! wfc build examples/release.wf -o release.ir.json
//! cargo run -p wf-vm --example run_ir -- release.ir.json Release ticket='"T-1"'
//! ```
//!
//! Arguments: the IR file, then optionally the workflow to run (default:
//! the first) and `key=value` inputs (the value is JSON, or else taken as a
//! string). Prints the run's report as JSON; exits 0 when the run
//! completed, 1 when it did not, 2 on bad input. No tool runner is set
//! (`Engine::set_tool_runner`), so tool nodes fail and the run follows
//! their failure routes.

use std::process::ExitCode;

use serde_json::Value;
use wf_ir::{ValueType, WorkflowIdx};
use wf_vm::{
    AgentError, Decision, DecisionAgent, DecisionContext, Engine, EngineConfig, Outcome, RunStatus,
    Write,
};

/// Takes the first valid edge at every node and writes every declared
/// output with a value of its type that names where it came from.
struct FirstEdge;

impl DecisionAgent for FirstEdge {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        let node = ctx.str(ctx.node.id);
        let writes: Vec<Write> = ctx
            .node
            .writes
            .iter()
            .map(|w| {
                let key = ctx.str(w.key);
                Write {
                    key: key.to_owned(),
                    value: value_of(w.ty, &format!("{key} from {node}")),
                }
            })
            .collect();
        if ctx.is_terminal() {
            return Ok(Decision::Complete { writes });
        }
        let mut outcome = Outcome::success();
        outcome.writes = writes;
        outcome.edge = ctx
            .valid_edge_list()
            .next()
            .map(|e| ctx.str(e.id).to_owned());
        Ok(Decision::Advance(outcome))
    }

    fn is_instant(&self) -> bool {
        true
    }
}

/// A value of type `ty`; `text` for strings and untyped keys.
fn value_of(ty: ValueType, text: &str) -> Value {
    match ty {
        ValueType::Int | ValueType::Number => Value::from(1),
        ValueType::Float => Value::from(1.5),
        ValueType::Bool => Value::Bool(true),
        ValueType::List => Value::Array(Vec::new()),
        ValueType::Map => Value::Object(Default::default()),
        ValueType::String | ValueType::Any => Value::from(text),
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Whether the run completed.
fn run() -> Result<bool, String> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: run_ir FILE.ir.json [WORKFLOW] [KEY=VALUE ...]")?;
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    // The verifying loader: an IR file is untrusted input.
    let program = wf_ir::load(&text).map_err(|e| format!("`{path}` is not valid IR: {e}"))?;
    let mut rest: Vec<String> = args.collect();
    let root = match rest.first().filter(|a| !a.contains('=')) {
        Some(name) => {
            let idx = program
                .workflow_by_name(name)
                .ok_or_else(|| format!("`{path}` has no workflow `{name}`"))?;
            rest.remove(0);
            idx
        }
        None if program.workflows.is_empty() => return Err(format!("`{path}` has no workflow")),
        None => WorkflowIdx(0),
    };
    let mut engine =
        Engine::new(&program, root, EngineConfig::default()).map_err(|e| e.to_string())?;
    for input in &rest {
        let (key, raw) = input
            .split_once('=')
            .ok_or_else(|| format!("`{input}` is not KEY=VALUE"))?;
        let value = serde_json::from_str(raw).unwrap_or_else(|_| Value::from(raw));
        engine.set_input(key, value).map_err(|e| e.message)?;
    }
    let report = engine.run(&mut FirstEdge);
    println!(
        "{}",
        serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
    );
    Ok(report.status == RunStatus::Completed)
}
