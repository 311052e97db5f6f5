//! A stage run by a CLI coding agent (`claude-cli`, `codex-cli`,
//! `gemini-cli`; docs/llm.md, "CLI coding agents").
//!
//! The program runs without a shell, in wfc's working directory (the
//! project the agent edits), with the prompt on its standard input, in a
//! process group of its own that the stage's timeout kills whole. Its
//! stage directory is in `WFC_STAGE_DIR` (and `WFC_STATUS_FILE` names
//! `status.json` there): an agent that writes the status file (seed
//! Appendix C) decides the stage's outcome, routing and context updates.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use wf_llm::cli::{self, CliAnswer, CliSettings, SessionId};
use wf_vm::Outcome;
use wf_vm::attractor::RunFiles;

/// The most bytes of the agent's stdout (and of its stderr) read.
const MAX_OUTPUT_BYTES: usize = 8 * 1024 * 1024;

/// What one run of the agent gave.
pub struct Ran {
    /// Its answer.
    pub answer: CliAnswer,
    /// How long it ran.
    pub elapsed: Duration,
    /// The outcome it wrote in `status.json`, read here when the stage
    /// directory is a temporary one (a pipeline run with a run directory
    /// reads it in its codergen handler, as for any backend).
    pub status_file: Option<Outcome>,
}

/// Where the agent's program is: `command` as a path when it has a `/`,
/// else the first match on `PATH`. `Err` says how to install or name it.
pub fn locate(settings: &CliSettings, path_var: Option<&str>) -> Result<PathBuf, String> {
    let command = &settings.command;
    let missing = || {
        format!(
            "provider `{}` runs `{command}`, which is not {} (install it, or name the program with \
             [llm.providers.{}] command = \"/path/to/{}\" in wf.toml)",
            settings.name,
            if command.contains('/') {
                "an executable file".to_string()
            } else {
                "on PATH".to_string()
            },
            settings.name,
            settings.kind.program()
        )
    };
    if command.contains('/') {
        return is_executable(Path::new(command))
            .then(|| PathBuf::from(command))
            .ok_or_else(missing);
    }
    std::env::split_paths(path_var.unwrap_or(""))
        .map(|dir| dir.join(command))
        .find(|p| is_executable(p))
        .ok_or_else(missing)
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// A stage directory made for a run without a run directory, removed
/// when dropped.
struct TempStage(PathBuf);

impl Drop for TempStage {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a call passes on the agent's command line (docs/llm.md, "The
/// command templates"), all optional.
#[derive(Default, Clone, Copy)]
pub struct Flags<'a> {
    /// The node's model.
    pub model: Option<&'a str>,
    /// The node's `reasoning_effort`.
    pub effort: Option<&'a str>,
    /// The agent session the call continues (`full` fidelity).
    pub resume: Option<&'a SessionId>,
    /// Continue a copy of `resume` (a parallel branch's first call).
    pub fork: bool,
}

/// Runs the agent `settings` names for node `node` with `prompt`.
/// `files` are the run's stage folders (a pipeline with `--run-dir`);
/// without them the stage directory is a temporary one.
pub fn run(
    settings: &CliSettings,
    node: &str,
    prompt: &str,
    flags: Flags<'_>,
    timeout: Duration,
    files: Option<&RunFiles>,
) -> Result<Ran, String> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let program = locate(settings, std::env::var("PATH").ok().as_deref())?;
    let (_temp, stage_files) = match files {
        Some(f) => (None, f.clone()),
        None => {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("wfc-stage-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&dir).map_err(|e| {
                format!("cannot create the stage directory `{}`: {e}", dir.display())
            })?;
            (Some(TempStage(dir.clone())), RunFiles::new(dir))
        }
    };
    let stage = stage_files
        .stage_dir(node)
        .map_err(|e| format!("cannot create the stage directory of `{node}`: {e}"))?;
    let stage = std::path::absolute(&stage).unwrap_or(stage);
    let mut command = Command::new(&program);
    command
        .args(cli::argv(
            settings,
            flags.model,
            flags.effort,
            flags.resume,
            flags.fork,
        ))
        .env("WFC_NODE", node)
        .env("WFC_STAGE_DIR", &stage)
        .env("WFC_STATUS_FILE", stage.join("status.json"));
    if let Some(f) = files {
        command.env(
            "WFC_RUN_DIR",
            std::path::absolute(f.root()).unwrap_or_default(),
        );
    }
    let timeout = settings.timeout.map_or(timeout, |t| t.min(timeout));
    let who = format!("`{}` ({})", program.display(), settings.name);
    let ran = wf_vm::tools::run_child(command, prompt.as_bytes(), timeout, MAX_OUTPUT_BYTES)
        .map_err(|e| format!("could not start {who}: {e}"))?;
    let stderr_tail = || {
        ran.stderr
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| format!(": {}", l.chars().take(300).collect::<String>()))
            .unwrap_or_default()
    };
    match ran.status {
        Some(s) if s.success() => {}
        _ => return Err(format!("{who} {}{}", ran.ending(timeout), stderr_tail())),
    }
    let answer =
        cli::parse_output(settings.kind, &ran.stdout).map_err(|e| format!("{who}: {e}"))?;
    let status_file = match files {
        Some(_) => None,
        None => read_status(&stage)?,
    };
    Ok(Ran {
        answer,
        elapsed: ran.elapsed,
        status_file,
    })
}

/// The outcome in `{stage}/status.json`, when the agent wrote one.
fn read_status(stage: &Path) -> Result<Option<Outcome>, String> {
    let path = stage.join("status.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read the agent's status.json: {e}")),
    };
    let bad = |what: String| {
        format!("the agent's status.json does not follow the status-file contract: {what}")
    };
    let doc = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON ({e})")))?;
    wf_vm::attractor::parse_status(&doc).map(Some).map_err(bad)
}
