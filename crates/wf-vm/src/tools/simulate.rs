//! [`SimulatedToolRunner`]: tool nodes in a dry run (`--tools simulate`).

use std::time::Duration;

use serde_json::Value;

use crate::agent::{DecisionContext, Outcome, ToolRunner, Write};
use crate::contract::placeholder;
use crate::template::ShellCommand;

/// Runs no command: every tool node succeeds with placeholder outputs, so
/// that a dry run (`--agent auto`) goes past the tool nodes of a real
/// pipeline instead of failing at the first one.
///
/// The outcome carries the writes a real run would: `<node>.stdout` (a
/// marker naming the command that was not run), `<node>.stderr` (empty),
/// `<node>.exit_code` (0), and a placeholder of its declared type for each
/// key the node declares it writes (`.wf` `writes`), as the `auto` agent
/// gives other nodes.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimulatedToolRunner;

impl SimulatedToolRunner {
    /// The runner.
    pub fn new() -> Self {
        SimulatedToolRunner
    }

    /// The text that stands for a simulated command's standard output.
    pub fn placeholder_output(command: &ShellCommand) -> String {
        format!(
            "[wfc: simulated (--tools simulate): `{}` was not run]",
            command.script
        )
    }
}

impl ToolRunner for SimulatedToolRunner {
    fn run(
        &mut self,
        context: &DecisionContext<'_>,
        command: &ShellCommand,
        _timeout: Duration,
    ) -> Outcome {
        let node = context.str(context.node.id);
        let captured = [
            (
                format!("{node}.stdout"),
                Value::String(Self::placeholder_output(command)),
            ),
            (format!("{node}.stderr"), Value::String(String::new())),
            (format!("{node}.exit_code"), Value::from(0)),
        ];
        // Declared keys first; the captured ones keep their real types.
        let mut writes: Vec<Write> = context
            .node
            .writes
            .iter()
            .map(|w| (context.str(w.key), w.ty))
            .filter(|(key, _)| !captured.iter().any(|(k, _)| k == key))
            .map(|(key, ty)| Write {
                key: key.to_owned(),
                value: placeholder(ty, key),
            })
            .collect();
        writes.extend(
            captured
                .into_iter()
                .map(|(key, value)| Write { key, value }),
        );
        let mut outcome = Outcome {
            writes,
            notes: Some(format!("Tool simulated: `{}` was not run", command.script)),
            ..Outcome::success()
        };
        // A pipeline's tool entered again reports what leaves the loop.
        crate::attractor::explore::steer(context, &mut outcome);
        outcome
    }

    fn fork(&self) -> Option<Box<dyn ToolRunner + Send>> {
        Some(Box::new(*self))
    }
}
