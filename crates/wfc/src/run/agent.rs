//! `--agent SPEC`: which decision agent a run uses.

use std::fmt;
use std::path::PathBuf;
use std::rc::Rc;
use std::str::FromStr;
use std::time::Duration;

use wf_vm::agents::{AutoAgent, ConsoleAgent, ExecAgent, RulesAgent, ScriptAgent};
use wf_vm::attractor::RunFiles;
use wf_vm::{AgentError, Decision, DecisionAgent, DecisionContext};

use super::load::SourceFormat;

/// A parsed `--agent` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSpec {
    /// `rules`: the Reflex rule-agent convention in node specs.
    Rules,
    /// `auto`: deterministic simulation.
    Auto,
    /// `script:FILE`: answers from a JSON file.
    Script(PathBuf),
    /// `console`: a person at the terminal.
    Console,
    /// `exec:COMMAND`: an external program.
    Exec(String),
    /// `llm`: stages call a real model (docs/llm.md).
    Llm,
}

impl FromStr for AgentSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.split_once(':') {
            None if s == "rules" => AgentSpec::Rules,
            None if s == "auto" => AgentSpec::Auto,
            None if s == "console" => AgentSpec::Console,
            None if s == "llm" => AgentSpec::Llm,
            Some(("script", file)) if !file.is_empty() => AgentSpec::Script(file.into()),
            Some(("exec", command)) if !command.trim().is_empty() => {
                AgentSpec::Exec(command.to_string())
            }
            Some(("script", _)) => {
                return Err("`script:` needs a file: `script:answers.json`".into());
            }
            Some(("exec", _)) => {
                return Err("`exec:` needs a command: `exec:python3 agent.py`".into());
            }
            _ => {
                return Err(format!(
                    "unknown agent `{s}`: expected rules, auto, llm, script:FILE, console or exec:COMMAND"
                ));
            }
        })
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Rules => f.write_str("rules"),
            AgentSpec::Auto => f.write_str("auto"),
            AgentSpec::Script(file) => write!(f, "script:{}", file.display()),
            AgentSpec::Console => f.write_str("console"),
            AgentSpec::Exec(command) => write!(f, "exec:{command}"),
            AgentSpec::Llm => f.write_str("llm"),
        }
    }
}

/// The agent when `--agent` is not given: `rules` for Reflex JSON, whose
/// workflows carry the rule-agent convention in their node specs; `auto`
/// (a dry run) for everything else, where `rules` would stop at the first
/// fork that the spec does not route.
pub fn default_for(format: SourceFormat) -> AgentSpec {
    match format {
        SourceFormat::Reflex => AgentSpec::Rules,
        SourceFormat::Ir | SourceFormat::Source => AgentSpec::Auto,
    }
}

/// Options that shape the agent.
pub struct AgentOptions {
    /// `--agent-timeout`: an `exec` agent's answer time when the node and
    /// workflow set none.
    pub timeout: Option<Duration>,
    /// Hidden `--step-delay-ms`: sleep before each decision (crash tests).
    pub step_delay: Option<Duration>,
    /// What `--agent llm` resolved before the run, and the run's stage
    /// folders (where the exact prompt sent is written).
    pub llm: Option<(Rc<super::llm::Setup>, Option<RunFiles>)>,
}

/// Builds the agent `spec` names.
pub fn build(spec: &AgentSpec, options: &AgentOptions) -> Result<Box<dyn DecisionAgent>, String> {
    let agent: Box<dyn DecisionAgent> = match spec {
        AgentSpec::Rules => Box::new(RulesAgent::new()),
        AgentSpec::Auto => Box::new(AutoAgent::new()),
        AgentSpec::Script(file) => Box::new(ScriptAgent::from_file(file)?),
        AgentSpec::Console => Box::new(ConsoleAgent::new(
            wf_vm::agents::console::StdinLines,
            std::io::stderr(),
        )),
        AgentSpec::Exec(command) => {
            let mut agent = ExecAgent::new(command.clone());
            if let Some(timeout) = options.timeout {
                agent = agent.with_default_timeout(timeout);
            }
            Box::new(agent)
        }
        AgentSpec::Llm => {
            let (setup, files) = options
                .llm
                .clone()
                .ok_or("`--agent llm` was not prepared for this run")?;
            Box::new(super::llm::LlmAgent::new(setup, files))
        }
    };
    Ok(with_delay(agent, options.step_delay))
}

/// `agent`, waiting `delay` before every decision when set.
pub fn with_delay(
    agent: Box<dyn DecisionAgent>,
    delay: Option<Duration>,
) -> Box<dyn DecisionAgent> {
    match delay {
        Some(delay) => Box::new(Delayed {
            inner: agent,
            delay,
        }),
        None => agent,
    }
}

/// An agent that waits before every decision, so a test can kill a run at
/// many different points. `A` is the run's agent, or a fork of it for a
/// branch thread (`dyn DecisionAgent + Send`): one body for both.
struct Delayed<A: DecisionAgent + ?Sized> {
    inner: Box<A>,
    delay: Duration,
}

impl<A: DecisionAgent + ?Sized> DecisionAgent for Delayed<A> {
    fn decide(&mut self, context: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        std::thread::sleep(self.delay);
        self.inner.decide(context)
    }

    /// Forks as its inner agent does, each fork waiting as well.
    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        Some(Box::new(Delayed {
            inner: self.inner.fork()?,
            delay: self.delay,
        }))
    }
}

/// Parses `250ms`, `30s`, `5m`, `1h` or a plain number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (write 250ms, 30s, 5m or 1h)"))?;
    let ms = match unit {
        "ms" => Some(n),
        "" | "s" => n.checked_mul(1000),
        "m" => n.checked_mul(60_000),
        "h" => n.checked_mul(3_600_000),
        _ => {
            return Err(format!(
                "`{text}` is not a duration (write 250ms, 30s, 5m or 1h)"
            ));
        }
    };
    ms.map(Duration::from_millis)
        .ok_or_else(|| format!("`{text}` is too long a duration"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip() {
        for s in [
            "rules",
            "auto",
            "console",
            "llm",
            "script:a.json",
            "exec:python3 x.py --flag",
        ] {
            assert_eq!(s.parse::<AgentSpec>().unwrap().to_string(), s);
        }
        assert_eq!(
            "exec:a:b".parse::<AgentSpec>().unwrap(),
            AgentSpec::Exec("a:b".into())
        );
        assert!(
            "script:"
                .parse::<AgentSpec>()
                .unwrap_err()
                .contains("needs a file")
        );
        assert!(
            "llms"
                .parse::<AgentSpec>()
                .unwrap_err()
                .contains("unknown agent `llms`")
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert!(parse_duration("5 min").is_err());
        assert!(parse_duration("").is_err());
    }
}
