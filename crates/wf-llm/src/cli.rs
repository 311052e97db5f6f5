//! CLI coding agents as backends (docs/llm.md, "CLI coding agents"):
//! `claude -p`, `codex exec` and `gemini`, run once per stage.
//!
//! This module is the command template and the reading of the answer;
//! `wfc` runs the program (no shell: the argument list below is passed to
//! `exec` as is, and the prompt goes on standard input, so no text of the
//! workflow or of the model ever becomes part of a command line that a
//! shell would read).

use serde_json::Value;

use crate::provider::Usage;

/// A CLI coding agent wfc knows how to drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CliKind {
    /// Claude Code: `claude -p --output-format json`.
    Claude,
    /// OpenAI Codex CLI: `codex exec --json … -`.
    Codex,
    /// Gemini CLI: `gemini --output-format json` (headless on a pipe).
    Gemini,
}

impl CliKind {
    /// Every CLI agent, by its `api` / provider name in `wf.toml`.
    pub const ALL: [(&'static str, CliKind); 3] = [
        ("claude-cli", CliKind::Claude),
        ("codex-cli", CliKind::Codex),
        ("gemini-cli", CliKind::Gemini),
    ];

    /// The CLI agent an `api` or provider name means.
    pub fn from_name(name: &str) -> Option<CliKind> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
    }

    /// Whether wfc forks a session of this CLI for a parallel branch
    /// ([`argv`]'s `fork`): Claude Code's `--resume ID --fork-session`.
    /// Codex has `codex exec fork ID` only in its newest releases, and
    /// Gemini CLI cannot fork a session: their branches start a session
    /// of their own.
    pub fn forks_sessions(self) -> bool {
        self == CliKind::Claude
    }

    /// Its name in `wf.toml` (`claude-cli`, …).
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("?", |(n, _)| n)
    }

    /// The program run when `[llm.providers.NAME] command` is not set
    /// (looked up on `PATH`).
    pub fn program(self) -> &'static str {
        match self {
            CliKind::Claude => "claude",
            CliKind::Codex => "codex",
            CliKind::Gemini => "gemini",
        }
    }
}

/// A CLI agent provider, resolved from `[llm.providers.NAME]`.
#[derive(Debug, Clone, PartialEq)]
pub struct CliSettings {
    /// The provider's name.
    pub name: String,
    /// Which CLI it drives.
    pub kind: CliKind,
    /// The program (`command`, else [`CliKind::program`]).
    pub command: String,
    /// `args`: more arguments, after wfc's and before the prompt marker
    /// (`--permission-mode acceptEdits`, `--sandbox workspace-write`, …).
    pub args: Vec<String>,
    /// `timeout`: a bound on one stage, under the node's own (`timeout`,
    /// else the workflow's `default_timeout`, else `--agent-timeout`, else
    /// the engine's 5 minutes), which always applies.
    pub timeout: Option<std::time::Duration>,
}

/// The CLI agent provider `name` is, if it is one: a built-in name
/// (`claude-cli`, `codex-cli`, `gemini-cli`) or a `[llm.providers.NAME]`
/// table with such an `api` (so `[llm.providers.anthropic] api =
/// "claude-cli"` sends every Anthropic stage through Claude Code).
pub fn resolve(config: &crate::config::LlmConfig, name: &str) -> Option<CliSettings> {
    let name = crate::config::canonical(name);
    let table = config.providers.get(name);
    let kind = table
        .and_then(|t| t.cli)
        .or_else(|| CliKind::from_name(name))?;
    Some(CliSettings {
        name: name.to_string(),
        kind,
        command: table
            .and_then(|t| t.command.clone())
            .unwrap_or_else(|| kind.program().to_string()),
        args: table.and_then(|t| t.args.clone()).unwrap_or_default(),
        timeout: table.and_then(|t| t.timeout),
    })
}

/// The most characters of a session id wfc accepts from an agent.
pub const MAX_SESSION_ID: usize = 128;

/// A CLI agent's session id, as its JSON output reported it, checked to be
/// a plain identifier (ASCII letters, digits, `-` and `_`, starting with a
/// letter or digit, at most [`MAX_SESSION_ID`] characters) before it may
/// go on a command line: it comes from the agent's output, so it must not
/// be able to become a flag (`--…`), a second argument or shell syntax.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionId(String);

impl SessionId {
    /// The id `text`, when it is a plain identifier; `Err` says why not.
    pub fn parse(text: &str) -> Result<SessionId, String> {
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        let first_ok = text
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        if text.len() <= MAX_SESSION_ID && first_ok && text.chars().all(plain) {
            return Ok(SessionId(text.to_string()));
        }
        let shown: String = text.chars().take(40).collect();
        let more = if text.chars().count() > 40 { "…" } else { "" };
        Err(format!(
            "the session id {shown:?}{more} ({} bytes) is not a plain identifier (at most \
             {MAX_SESSION_ID} ASCII letters, digits, `-` and `_`, starting with a letter or \
             digit): wfc will not put it on a command line",
            text.len()
        ))
    }

    /// The id's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The arguments of one call (the program aside). `model` and `effort`
/// are the node's (`llm_model`, `reasoning_effort`), when it has them;
/// `resume` is the session the call continues (`full` fidelity), which
/// each CLI takes its own way: `claude --resume ID`, `codex exec …
/// resume ID -`, `gemini --resume ID`. With `fork` (a parallel branch's
/// first call, for a CLI that [`CliKind::forks_sessions`]), the call
/// continues a copy of the session and leaves it as it was: `claude
/// --resume ID --fork-session`.
pub fn argv(
    s: &CliSettings,
    model: Option<&str>,
    effort: Option<&str>,
    resume: Option<&SessionId>,
    fork: bool,
) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
    let mut push = |x: &str| a.push(x.to_string());
    match s.kind {
        CliKind::Claude => {
            push("-p");
            push("--output-format");
            push("json");
            if let Some(id) = resume {
                push("--resume");
                push(id.as_str());
                if fork {
                    push("--fork-session");
                }
            }
            if let Some(m) = model {
                push("--model");
                push(m);
            }
        }
        CliKind::Codex => {
            push("exec");
            push("--json");
            push("--skip-git-repo-check");
            if let Some(m) = model {
                push("--model");
                push(m);
            }
            if let Some(e) = effort {
                push("-c");
                // A TOML string: the effort is one of low/medium/high
                // (checked by `wfc check`), quoted for codex's parser.
                push(&format!("model_reasoning_effort={}", toml_string(e)));
            }
        }
        CliKind::Gemini => {
            push("--output-format");
            push("json");
            if let Some(id) = resume {
                push("--resume");
                push(id.as_str());
            }
            if let Some(m) = model {
                push("--model");
                push(m);
            }
        }
    }
    a.extend(s.args.iter().cloned());
    if s.kind == CliKind::Codex {
        // `resume ID` is a subcommand of `exec`: `exec`'s own options
        // (above, and `args`) come before it.
        if let Some(id) = resume {
            a.push("resume".into());
            a.push(id.as_str().to_string());
        }
        // `-`: the prompt is read from standard input.
        a.push("-".into());
    }
    a
}

fn toml_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// What a CLI agent answered.
#[derive(Debug, Clone, PartialEq)]
pub struct CliAnswer {
    /// The final answer's text.
    pub text: String,
    /// The tokens it reported (zero where it reports none).
    pub usage: Usage,
    /// The cost it reported itself (Claude Code's `total_cost_usd`).
    pub cost_usd: Option<f64>,
    /// The session the call ran in, when the CLI reported one (Claude
    /// Code's and Gemini CLI's `session_id`, Codex's `thread.started`
    /// `thread_id`): a later call continues it with [`argv`]'s `resume`.
    pub session: Option<SessionId>,
}

/// The session id `value` that `cli`'s output holds: `None` when absent,
/// `Err` when it is not a plain identifier.
fn session_of(cli: &str, value: Option<&Value>) -> Result<Option<SessionId>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => SessionId::parse(s)
            .map(Some)
            .map_err(|e| format!("{cli} reported a session that wfc refuses: {e}")),
        Some(other) => Err(format!(
            "{cli} reported a session id that is not a string: {}",
            cut(&other.to_string())
        )),
    }
}

/// Reads the CLI's standard output. `Err` says what is wrong with it (or
/// the error the CLI reported).
pub fn parse_output(kind: CliKind, stdout: &str) -> Result<CliAnswer, String> {
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    match kind {
        CliKind::Claude => {
            let doc = json_object(stdout)?;
            let text = doc
                .get("result")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            if doc.get("is_error") == Some(&Value::Bool(true)) {
                let what = doc
                    .get("subtype")
                    .and_then(Value::as_str)
                    .unwrap_or("error");
                return Err(format!("claude reported an error ({what}): {}", cut(&text)));
            }
            if doc.get("result").is_none() {
                return Err("claude's JSON output has no `result`".into());
            }
            let u = doc.get("usage").cloned().unwrap_or(Value::Null);
            let cached = n(&u, "cache_read_input_tokens");
            Ok(CliAnswer {
                text,
                usage: Usage {
                    input: n(&u, "input_tokens") + cached + n(&u, "cache_creation_input_tokens"),
                    output: n(&u, "output_tokens"),
                    cached,
                    reasoning: 0,
                },
                cost_usd: doc.get("total_cost_usd").and_then(Value::as_f64),
                session: session_of("claude", doc.get("session_id"))?,
            })
        }
        CliKind::Codex => {
            // JSON lines: the last agent message is the answer; usage comes
            // with `turn.completed`; `turn.failed` and `error` are errors.
            let mut text = None;
            let mut usage = Usage::default();
            let mut session = None;
            for line in stdout.lines().filter(|l| l.trim_start().starts_with('{')) {
                let Ok(event) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                match event.get("type").and_then(Value::as_str) {
                    Some("thread.started") => {
                        session = session_of("codex", event.get("thread_id"))?;
                    }
                    Some("item.completed")
                        if event.pointer("/item/type") == Some(&"agent_message".into()) =>
                    {
                        text = event
                            .pointer("/item/text")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                    }
                    Some("turn.completed") => {
                        let u = event.get("usage").cloned().unwrap_or(Value::Null);
                        usage.add(&Usage {
                            input: n(&u, "input_tokens"),
                            output: n(&u, "output_tokens"),
                            cached: n(&u, "cached_input_tokens"),
                            reasoning: n(&u, "reasoning_output_tokens"),
                        });
                    }
                    Some("turn.failed") | Some("error") => {
                        let message = event
                            .pointer("/error/message")
                            .or_else(|| event.get("message"))
                            .and_then(Value::as_str)
                            .unwrap_or("no message");
                        return Err(format!("codex reported an error: {}", cut(message)));
                    }
                    _ => {}
                }
            }
            let text = text.ok_or(
                "codex's JSON lines hold no final agent message (`item.completed` of type `agent_message`)",
            )?;
            Ok(CliAnswer {
                text,
                usage,
                cost_usd: None,
                session,
            })
        }
        CliKind::Gemini => {
            let doc = json_object(stdout)?;
            if let Some(error) = doc.get("error").filter(|e| !e.is_null()) {
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| error.to_string(), str::to_string);
                return Err(format!("gemini reported an error: {}", cut(&message)));
            }
            let text = doc
                .get("response")
                .and_then(Value::as_str)
                .ok_or("gemini's JSON output has no `response`")?
                .to_string();
            // `stats.models.{model}.tokens`: summed over the models used.
            let mut usage = Usage::default();
            if let Some(models) = doc
                .get("stats")
                .and_then(|s| s.get("models"))
                .and_then(Value::as_object)
            {
                for m in models.values() {
                    let t = m.get("tokens").cloned().unwrap_or(Value::Null);
                    let thoughts = n(&t, "thoughts");
                    usage.add(&Usage {
                        input: n(&t, "prompt"),
                        output: n(&t, "candidates") + thoughts,
                        cached: n(&t, "cached"),
                        reasoning: thoughts,
                    });
                }
            }
            Ok(CliAnswer {
                text,
                usage,
                cost_usd: None,
                // Recent Gemini CLI versions report it; older ones do not.
                session: session_of("gemini", doc.get("session_id"))?,
            })
        }
    }
}

/// The one JSON object the CLI printed (lines before it, such as a
/// warning some versions print, are skipped).
fn json_object(stdout: &str) -> Result<serde_json::Map<String, Value>, String> {
    let trimmed = stdout.trim();
    let start = trimmed
        .find('{')
        .ok_or_else(|| format!("the output is not JSON: {}", cut(trimmed)))?;
    match serde_json::from_str::<Value>(&trimmed[start..]) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("the output is not a JSON object".into()),
        Err(e) => Err(format!("the output is not JSON ({e}): {}", cut(trimmed))),
    }
}

/// At most 300 characters of `text`, for messages.
fn cut(text: &str) -> String {
    let t = text.trim();
    match t.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn settings(kind: CliKind) -> CliSettings {
        CliSettings {
            name: kind.name().into(),
            kind,
            command: kind.program().into(),
            args: vec!["--extra".into()],
            timeout: None,
        }
    }

    #[test]
    fn templates_put_the_prompt_nowhere_on_the_command_line() {
        let c = argv(
            &settings(CliKind::Claude),
            Some("opus"),
            Some("high"),
            None,
            false,
        );
        assert_eq!(
            c,
            [
                "-p",
                "--output-format",
                "json",
                "--model",
                "opus",
                "--extra"
            ]
        );
        let x = argv(
            &settings(CliKind::Codex),
            Some("gpt-5"),
            Some("high"),
            None,
            false,
        );
        assert_eq!(
            x,
            [
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--model",
                "gpt-5",
                "-c",
                "model_reasoning_effort=\"high\"",
                "--extra",
                "-"
            ]
        );
        let g = argv(&settings(CliKind::Gemini), None, None, None, false);
        assert_eq!(g, ["--output-format", "json", "--extra"]);
    }

    #[test]
    fn outputs_are_read_per_cli() {
        let c = parse_output(
            CliKind::Claude,
            r#"{"type":"result","subtype":"success","is_error":false,"result":"done","total_cost_usd":0.01,"usage":{"input_tokens":3,"cache_read_input_tokens":10,"output_tokens":5}}"#,
        )
        .unwrap();
        assert_eq!(
            (c.text.as_str(), c.usage.input, c.usage.cached),
            ("done", 13, 10)
        );
        assert_eq!(c.cost_usd, Some(0.01));
        let e = parse_output(
            CliKind::Claude,
            r#"{"type":"result","subtype":"error_max_turns","is_error":true,"result":"too many turns"}"#,
        )
        .unwrap_err();
        assert!(e.contains("error_max_turns"), "{e}");
        let x = parse_output(
            CliKind::Codex,
            "{\"type\":\"thread.started\"}\n{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"first\"}}\n{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"last\"}}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":7,\"cached_input_tokens\":2,\"output_tokens\":4}}\n",
        )
        .unwrap();
        assert_eq!(
            (x.text.as_str(), x.usage.input, x.usage.output),
            ("last", 7, 4)
        );
        assert!(
            parse_output(
                CliKind::Codex,
                "{\"type\":\"turn.failed\",\"error\":{\"message\":\"quota\"}}"
            )
            .unwrap_err()
            .contains("quota")
        );
        let g = parse_output(
            CliKind::Gemini,
            r#"{"response":"hi","stats":{"models":{"gemini-2.5-pro":{"tokens":{"prompt":9,"candidates":2,"cached":1,"thoughts":3}}}}}"#,
        )
        .unwrap();
        assert_eq!(
            (g.text.as_str(), g.usage.output, g.usage.reasoning),
            ("hi", 5, 3)
        );
        assert!(parse_output(CliKind::Gemini, "not json").is_err());
    }

    #[test]
    fn a_session_is_resumed_each_cli_its_own_way() {
        let id = SessionId::parse("0199a213-81c0-7800-8aa1-bbab2a035a53").unwrap();
        let c = argv(&settings(CliKind::Claude), None, None, Some(&id), false);
        assert_eq!(
            c[..5],
            ["-p", "--output-format", "json", "--resume", id.as_str()]
        );
        assert!(!c.contains(&"--fork-session".to_string()));
        let f = argv(&settings(CliKind::Claude), None, None, Some(&id), true);
        assert_eq!(f[3..6], ["--resume", id.as_str(), "--fork-session"]);
        let x = argv(
            &settings(CliKind::Codex),
            Some("gpt-5"),
            None,
            Some(&id),
            false,
        );
        assert_eq!(
            x,
            [
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--model",
                "gpt-5",
                "--extra",
                "resume",
                id.as_str(),
                "-"
            ]
        );
        let g = argv(&settings(CliKind::Gemini), None, None, Some(&id), false);
        assert_eq!(
            g,
            [
                "--output-format",
                "json",
                "--resume",
                id.as_str(),
                "--extra"
            ]
        );
    }

    #[test]
    fn session_ids_are_read_and_hostile_ones_refused() {
        let c = parse_output(CliKind::Claude, r#"{"result":"ok","session_id":"s-1"}"#).unwrap();
        assert_eq!(c.session.as_ref().map(SessionId::as_str), Some("s-1"));
        let x = parse_output(
            CliKind::Codex,
            "{\"type\":\"thread.started\",\"thread_id\":\"t_2\"}\n{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"a\"}}\n",
        )
        .unwrap();
        assert_eq!(x.session.as_ref().map(SessionId::as_str), Some("t_2"));
        let g = parse_output(CliKind::Gemini, r#"{"response":"r","session_id":"g1"}"#).unwrap();
        assert_eq!(g.session.as_ref().map(SessionId::as_str), Some("g1"));
        // An older Gemini CLI reports none: nothing to continue.
        let old = parse_output(CliKind::Gemini, r#"{"response":"r"}"#).unwrap();
        assert_eq!(old.session, None);
        let long = "a".repeat(10_000);
        for bad in [
            "; rm -rf ~",
            "a\nb",
            "--dangerously-skip-permissions",
            "",
            &long,
            "é",
        ] {
            let e = SessionId::parse(bad).unwrap_err();
            assert!(e.contains("not a plain identifier"), "{e}");
            assert!(e.len() < 400, "the message quotes at most a part: {e}");
            let doc = json!({"result": "ok", "session_id": bad}).to_string();
            let e = parse_output(CliKind::Claude, &doc).unwrap_err();
            assert!(
                e.starts_with("claude reported a session that wfc refuses"),
                "{e}"
            );
        }
        assert!(parse_output(CliKind::Claude, r#"{"result":"ok","session_id":7}"#).is_err());
        assert!(SessionId::parse(&"a".repeat(MAX_SESSION_ID)).is_ok());
    }
}
