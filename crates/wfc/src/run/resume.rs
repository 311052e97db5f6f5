//! What `wfc run --resume` says about the run directory it does not trust:
//! the agent and tool permission the run started with.

use serde_json::Value;

use super::ToolMode;
use super::agent::AgentSpec;

/// On resume: says when the agent or the tool permission differs from
/// what the run started with (`meta.json`), which is not used.
pub fn note_trust_changes(meta: &Value, spec: &AgentSpec, default: &AgentSpec, tools: ToolMode) {
    let allow_tools = tools == ToolMode::Run;
    let now = spec.to_string();
    // No agent stored: the run started with the default.
    let started = meta["agent"]
        .as_str()
        .map_or_else(|| default.to_string(), printable);
    if started != now {
        eprintln!(
            "note: the run started with `--agent {started}`; it resumes with `--agent {now}` (the agent comes from this command line, not from the run directory)"
        );
    }
    match (meta["allow_tools"].as_bool() == Some(true), allow_tools) {
        (true, false) => eprintln!(
            "note: the run started with `--allow-tools`; its tool nodes are {} now unless you pass `--allow-tools` again",
            if tools == ToolMode::Simulate {
                "simulated"
            } else {
                "refused"
            }
        ),
        (false, true) => {
            eprintln!("note: the run started without `--allow-tools`; its tool nodes run now")
        }
        _ => {}
    }
}

/// `text` with its control characters escaped (it comes from a file).
pub fn printable(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}
