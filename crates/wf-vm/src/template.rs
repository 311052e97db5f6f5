//! Expanding `$key` / `${key}` templates (`wf_ir::Template`) against the
//! scoped blackboard.
//!
//! A string value is inserted as is; any other value as compact JSON
//! (`3`, `true`, `["a","b"]`). Labels and spec strings the agent receives
//! are expanded as text ([`render`]); a missing key is the empty string,
//! since those texts are for reading.
//!
//! A tool `command` is never expanded as text: [`shell_command`] passes each
//! value to `sh` in an environment variable and writes a reference to it
//! where the interpolation was, quoted for the shell context it lands in
//! ([`wf_shell`]). The script therefore does not depend on the
//! values, and a value can never become shell syntax. A key with no value
//! in scope, a context no reference can be written in, and a value `sh`
//! cannot hold (a NUL character) each fail the node before anything runs.

use serde_json::{Map, Value};
use wf_ir::{IrProgram, Part, Template};
use wf_shell::{self as shell, Piece, Refusal};

use crate::agent::BlackboardView;

/// Expands `template` as text: values as they are, a missing key as the
/// empty string.
pub fn render(program: &IrProgram, template: &Template, view: &dyn BlackboardView) -> String {
    let mut out = String::new();
    for part in template {
        match *part {
            Part::Text(id) => out.push_str(program.str(id)),
            Part::Key(id) => match view.get(program.str(id)) {
                Some(Value::String(s)) => out.push_str(s),
                Some(other) => out.push_str(&other.to_string()),
                None => {}
            },
        }
    }
    out
}

/// A tool command ready for `sh -c`: the script and the variables that
/// carry its interpolated values.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShellCommand {
    /// The script: the command's text, each interpolation replaced by a
    /// reference to its variable (`"${WFC_VALUE_1}"`).
    pub script: String,
    /// The environment variables to set, `(name, value)`: one per distinct
    /// key, `WFC_VALUE_1`, `WFC_VALUE_2`, … in order of first use.
    pub vars: Vec<(String, String)>,
}

impl ShellCommand {
    /// A command without interpolations.
    pub fn plain(script: impl Into<String>) -> ShellCommand {
        ShellCommand {
            script: script.into(),
            vars: Vec::new(),
        }
    }
}

/// Why a tool command cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandError {
    /// The key has no value in scope.
    Missing(String),
    /// The key sits where no reference to a value can be written.
    Refused(String, Refusal),
    /// The key's value holds a NUL character, which no shell variable can.
    Nul(String),
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommandError::Missing(key) => write!(
                f,
                "the command interpolates `{key}`, which has no value in scope \
                 (write it before this node, or escape the dollar as `\\${key}`)"
            ),
            CommandError::Refused(key, why) => write!(
                f,
                "the command interpolates `{key}` {} (error[{}]); wfc passes values to \
                 commands as variables and cannot refer to one there: {}",
                why.place(),
                why.code(),
                why.help(key)
            ),
            CommandError::Nul(key) => write!(
                f,
                "the value of `{key}` contains a NUL character, which a shell variable \
                 cannot hold"
            ),
        }
    }
}

/// The variable that carries the `n`-th distinct key (from 0).
fn var_name(n: usize) -> String {
    format!("WFC_VALUE_{}", n + 1)
}

/// Builds the script and variables of a tool command from `template`.
pub fn shell_command(
    program: &IrProgram,
    template: &Template,
    view: &dyn BlackboardView,
) -> Result<ShellCommand, CommandError> {
    let pieces = template.iter().map(|part| match *part {
        Part::Text(id) => Piece::Text(program.str(id)),
        Part::Key(_) => Piece::Key,
    });
    let mut slots = shell::slots(pieces).into_iter();
    let mut command = ShellCommand::default();
    let mut keys: Vec<&str> = Vec::new();
    for part in template {
        match *part {
            Part::Text(id) => command.script.push_str(program.str(id)),
            Part::Key(id) => {
                let key = program.str(id);
                let slot = slots.next().expect("one slot per key");
                if let shell::Slot::Refused(why) = slot {
                    return Err(CommandError::Refused(key.to_string(), why));
                }
                let n = match keys.iter().position(|k| *k == key) {
                    Some(n) => n,
                    None => {
                        let value = match view.get(key) {
                            Some(Value::String(s)) => s.clone(),
                            Some(other) => other.to_string(),
                            None => return Err(CommandError::Missing(key.to_string())),
                        };
                        if value.contains('\0') {
                            return Err(CommandError::Nul(key.to_string()));
                        }
                        keys.push(key);
                        command.vars.push((var_name(keys.len() - 1), value));
                        keys.len() - 1
                    }
                };
                let reference = slot
                    .reference(&var_name(n))
                    .map_err(|why| CommandError::Refused(key.to_string(), why))?;
                command.script.push_str(&reference);
            }
        }
    }
    Ok(command)
}

/// `spec` with each templated top-level string expanded as text.
pub fn render_spec(
    program: &IrProgram,
    spec: &Map<String, Value>,
    templates: &std::collections::BTreeMap<String, Template>,
    view: &dyn BlackboardView,
) -> Map<String, Value> {
    let mut out = spec.clone();
    for (key, template) in templates {
        if let Some(slot @ Value::String(_)) = out.get_mut(key) {
            let text = render(program, template, view);
            *slot = Value::String(text);
        }
    }
    out
}

#[cfg(test)]
mod tests;
