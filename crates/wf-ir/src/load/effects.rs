//! The effect attributes of nodes (`idempotence_key`, `effect`,
//! `compensate`; issue 17.3) as the engine reads them from the spec: a
//! stored program that names a compensation the engine cannot run is
//! refused here rather than when a run fails.

use super::{LoadError, LoadErrorKind as Kind};
use crate::types::{IrProgram, IrWorkflow, Opcode};

/// Checks the effect attributes of every node of `w` (at JSON path `at`).
pub(super) fn verify(program: &IrProgram, w: &IrWorkflow, at: &str) -> Result<(), LoadError> {
    for (n, node) in w.nodes.iter().enumerate() {
        let spec = |key: &str| format!("{at}.nodes[{n}].spec.{key}");
        for key in ["idempotence_key", "effect", "compensate"] {
            if node.spec.get(key).is_some_and(|v| !v.is_string()) {
                return Err(LoadError::new(
                    Kind::Invalid,
                    spec(key),
                    "expected a string",
                ));
            }
        }
        if let Some(effect) = node.spec.get("effect").and_then(|v| v.as_str())
            && effect != "at_most_once"
        {
            return Err(LoadError::new(
                Kind::Invalid,
                spec("effect"),
                format!("unknown kind of effect `{effect}` (expected `at_most_once`)"),
            ));
        }
        let Some(name) = node.spec.get("compensate").and_then(|v| v.as_str()) else {
            continue;
        };
        let target = w
            .nodes
            .iter()
            .position(|t| program.strings.get(t.id.0 as usize).map(String::as_str) == Some(name));
        let problem = match target {
            None => format!("names no node of this workflow: `{name}`"),
            Some(t) if t == n => "a node cannot compensate itself".to_owned(),
            Some(t) if w.nodes[t].op != Opcode::Tool => {
                format!("the compensating node `{name}` is not a `tool` node")
            }
            Some(_) => continue,
        };
        return Err(LoadError::new(Kind::Invalid, spec("compensate"), problem));
    }
    Ok(())
}
