//! `--agent llm`: stages call a real model through `wf-llm`
//! (docs/llm.md).
//!
//! Before the run starts, [`prepare`] reads `wf.toml`'s `[llm]` table and
//! resolves the provider, model and key of every node that will call a
//! model, so a missing key or an unknown provider stops the run before its
//! first step, naming the node and the variable. [`LlmAgent`] then answers
//! at those nodes: the prompt (with the choices when the stage must route),
//! the model's answer as the outcome, and the usage as a `LlmUsage` handler
//! event, which `status.json` and the event stream carry. In a pipeline,
//! the call carries the run's context as the stage's fidelity says
//! ([`context`]), and a streamed answer grows the stage's `response.md` as
//! it arrives ([`live`]). The branches of a `parallel` node call the
//! model at once, each through a fork of the agent ([`branch`]); the
//! run's budgets count the calls in flight ([`budget`]). A CLI coding
//! agent continues its own session under `full` fidelity ([`session`]).

mod branch;
mod budget;
mod context;
mod live;
mod scope;
mod session;

use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use wf_ir::{IrNode, IrProgram, IrWorkflow, Opcode, WorkflowIdx};
use wf_llm::config::{LlmConfig, ProviderSettings};
use wf_llm::price::PriceTable;
use wf_llm::{Backend, Request, Usage, route};
use wf_vm::agent::{HandlerEvent, Status, Write};
use wf_vm::agents::AutoAgent;
use wf_vm::attractor::RunFiles;
use wf_vm::{AgentError, Decision, DecisionAgent, DecisionContext, Outcome};

/// The name of the handler event that carries a call's usage.
pub const USAGE_EVENT: &str = "LlmUsage";

/// What a run with `--agent llm` needs, resolved before it starts.
pub struct Setup {
    /// What every call reads, shared with the forks of the agent that
    /// run parallel branches on threads.
    common: Arc<Common>,
    /// Who answers the `human` nodes of a `.wf` workflow (`--interviewer`;
    /// `None`: the first valid choice, as `auto` decides). A pipeline's
    /// gates have their own handler.
    interviewer: Option<wf_vm::attractor::human::SharedInterviewer>,
}

/// The thread-safe part of [`Setup`].
struct Common {
    config: LlmConfig,
    prices: PriceTable,
    /// Settings by provider name, for the providers the run's nodes use.
    providers: BTreeMap<String, ProviderSettings>,
    /// CLI coding agents by provider name (`claude-cli`, …, or a provider
    /// declared with such an `api`), for the nodes that use them.
    clis: BTreeMap<String, wf_llm::cli::CliSettings>,
    /// Run-wide budgets: the root workflow's `max_cost_usd` and
    /// `max_tokens`, else `[llm]`'s, with the bookings of calls in flight.
    budget: budget::Budget,
    /// The run's running totals, across threads: a branch's call adds to
    /// them and the next call's budget check reads them.
    totals: Mutex<Totals>,
}

impl Setup {
    /// The same setup, with `spec` (`--interviewer`) answering the `human`
    /// nodes of a `.wf` workflow.
    pub fn with_interviewer(mut self, spec: Option<&str>) -> Result<Self, String> {
        if let Some(spec) = spec {
            let interviewer = wf_vm::attractor::interviewer::from_spec(spec)
                .map_err(|e| format!("error: {e}"))?;
            self.interviewer = Some(wf_vm::attractor::human::shared(interviewer));
        }
        Ok(self)
    }

    /// The run's totals so far, for the summary.
    pub fn totals(&self) -> Totals {
        lock(&self.common.totals).clone()
    }
}

/// A lock that a panicking branch did not make unusable: totals, threads
/// and the list of stages called stay valid whatever a panic interrupted.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Tokens, cost and calls of a run so far.
#[derive(Debug, Default, Clone)]
pub struct Totals {
    /// Calls that got an answer.
    pub calls: u64,
    /// Tokens.
    pub usage: Usage,
    /// Cost in USD of the calls whose model has a price.
    pub cost_usd: f64,
    /// Models called that have no price (their cost is not counted).
    pub unpriced: Vec<String>,
}

impl Totals {
    /// The totals as the run report's `llm` object.
    pub fn to_json(&self) -> Value {
        json!({
            "calls": self.calls,
            "input_tokens": self.usage.input,
            "output_tokens": self.usage.output,
            "cached_tokens": self.usage.cached,
            "reasoning_tokens": self.usage.reasoning,
            "cost_usd": round(self.cost_usd),
            "unpriced_models": self.unpriced,
        })
    }

    /// One line for the summary.
    pub fn line(&self) -> String {
        let mut line = format!(
            "llm: {} call{}, {} input tokens ({} cached), {} output tokens ({} reasoning), ${:.4}",
            self.calls,
            if self.calls == 1 { "" } else { "s" },
            self.usage.input,
            self.usage.cached,
            self.usage.output,
            self.usage.reasoning,
            self.cost_usd
        );
        if !self.unpriced.is_empty() {
            line.push_str(&format!(
                " (no price for {}: add it under [llm.prices] in wf.toml)",
                self.unpriced.join(", ")
            ));
        }
        line
    }
}

fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Whether `node` of `workflow` calls the model under `--agent llm`:
/// codergen stages (and a fan-in with a prompt) in a pipeline; in `.wf`,
/// `step` nodes with a `prompt` (a sketch-level step has nothing to ask,
/// and is decided as `auto` decides).
fn calls_model(program: &IrProgram, workflow: &IrWorkflow, node: &IrNode) -> bool {
    if wf_vm::attractor::is_attractor(workflow) {
        match node.handler.map(|h| program.str(h)) {
            None | Some("codergen") => node.op == Opcode::Step,
            Some("parallel.fan_in") => node.spec.contains_key("prompt"),
            Some(_) => false,
        }
    } else {
        node.op == Opcode::Step && node.spec.contains_key("prompt")
    }
}

/// A spec string of a node, when set and not empty.
fn spec_text<'a>(node: &'a IrNode, key: &str) -> Option<&'a str> {
    node.spec
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// The provider a model name implies, for nodes that name a model but no
/// provider.
fn provider_of_model(model: &str) -> Option<&'static str> {
    let m = model.to_ascii_lowercase();
    if m.starts_with("claude") {
        Some("anthropic")
    } else if m.starts_with("gpt")
        || m.starts_with("o1")
        || m.starts_with("o3")
        || m.starts_with("o4")
    {
        Some("openai")
    } else if m.starts_with("gemini") {
        Some("gemini")
    } else {
        None
    }
}

/// The provider and model of a node: its own (`provider`/`llm_provider`,
/// `model`/`llm_model`, the stylesheet applied), else `[llm]`'s; a model
/// alone implies its provider from its name.
fn choice(config: &LlmConfig, node: &IrNode, id: &str) -> Result<(String, String), String> {
    let model = spec_text(node, "model")
        .map(str::to_string)
        .or_else(|| config.model.clone())
        .ok_or_else(|| {
            format!(
                "node `{id}` names no model: set `llm_model` (a `.dot` attribute or a model_stylesheet rule) \
                 or `model` (`.wf`), or a default with `[llm] model = \"…\"` in wf.toml"
            )
        })?;
    let provider = spec_text(node, "provider")
        .map(str::to_string)
        .or_else(|| config.provider.clone())
        .or_else(|| provider_of_model(&model).map(str::to_string))
        .ok_or_else(|| {
            format!(
                "node `{id}` uses the model `{model}` but names no provider: set `llm_provider` (`.dot`) \
                 or `provider` (`.wf`), or a default with `[llm] provider = \"…\"` in wf.toml"
            )
        })?;
    Ok((provider, model))
}

/// The CLI coding agent a node's provider is, if it is one: the provider
/// named by the node, else `[llm] provider`, else implied by the node's
/// model (so `[llm.providers.anthropic] api = "claude-cli"` catches the
/// `claude-*` models). A CLI agent needs no model: without one it uses
/// its own default.
fn cli_choice(config: &LlmConfig, node: &IrNode) -> Option<(String, wf_llm::cli::CliSettings)> {
    let model = spec_text(node, "model")
        .map(str::to_string)
        .or_else(|| config.model.clone());
    let provider = spec_text(node, "provider")
        .map(str::to_string)
        .or_else(|| config.provider.clone())
        .or_else(|| {
            model
                .as_deref()
                .and_then(provider_of_model)
                .map(str::to_string)
        })?;
    let settings = wf_llm::cli::resolve(config, &provider)?;
    Some((settings.name.clone(), settings))
}

/// Reads `[llm]` from the `wf.toml` above `source` (none: the defaults)
/// and resolves every model-calling node of `program`, reading keys and
/// base URLs through `env`.
pub fn prepare(
    program: &IrProgram,
    root: WorkflowIdx,
    source: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Setup, String> {
    let config = match source
        .and_then(|s| std::path::absolute(s).ok())
        .and_then(|s| s.parent().and_then(wf_analysis::project::discover))
    {
        None => LlmConfig::default(),
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("error: cannot read `{}`: {e}", path.display()))?;
            wf_llm::config::parse(&text).map_err(|(line, column, message)| {
                format!("error: {}:{line}:{column}: {message}", path.display())
            })?
        }
    };
    let mut providers = BTreeMap::new();
    let mut clis = BTreeMap::new();
    let path_var = env("PATH");
    for workflow in &program.workflows {
        for node in &workflow.nodes {
            if !calls_model(program, workflow, node) {
                continue;
            }
            let id = program.str(node.id);
            if let Some((name, cli)) = cli_choice(&config, node) {
                // A missing program stops the run before it starts, as a
                // missing key does.
                super::cli_agent::locate(&cli, path_var.as_deref())
                    .map_err(|e| format!("error: node `{id}`: {e}"))?;
                clis.insert(name, cli);
                continue;
            }
            let (provider, _) = choice(&config, node, id).map_err(|e| format!("error: {e}"))?;
            let name = wf_llm::config::canonical(&provider).to_string();
            if providers.contains_key(&name) {
                continue;
            }
            let settings = config
                .resolve(&name, env)
                .map_err(|e| format!("error: node `{id}`: {e}"))?;
            providers.insert(name, settings);
        }
    }
    let spec = &program.workflows[root.0 as usize].spec;
    let number = |k: &str| {
        spec.get(k)
            .and_then(|v| v.as_f64().or_else(|| v.as_str()?.parse().ok()))
    };
    Ok(Setup {
        common: Arc::new(Common {
            prices: PriceTable::with_overrides(&config.prices),
            budget: budget::Budget::new(
                number("max_cost_usd").or(config.max_cost_usd),
                number("max_tokens").map(|n| n as u64).or(config.max_tokens),
            ),
            config,
            providers,
            clis,
            totals: Mutex::default(),
        }),
        interviewer: None,
    })
}

/// The agent of `--agent llm`.
pub struct LlmAgent {
    caller: Caller,
    /// The run directory's stage folders (not `Send`: a fork gets their
    /// layout as data).
    files: Option<RunFiles>,
    /// `--interviewer` for the `human` nodes of a `.wf` workflow (when
    /// set, the agent does not fork).
    interviewer: Option<wf_vm::attractor::human::SharedInterviewer>,
    /// Decides at the nodes that do not call the model (`.wf` branches,
    /// joins, …): the dry-run choice.
    other: AutoAgent,
}

/// What a call needs, shared by the agent and its forks: everything in it
/// is behind an `Arc`, so the branches on threads add to the same totals
/// and share the providers' concurrency caps (one [`Backend`]); a fork
/// gets a copy of the `full` conversations ([`Caller::forked`]).
#[derive(Clone)]
struct Caller {
    setup: Arc<Common>,
    backend: Backend,
    /// The `full` conversations of this process, per branch scope.
    threads: Arc<Mutex<context::Threads>>,
    /// The stages this process called, for the preambles of a run
    /// without a directory.
    called: Arc<Mutex<Vec<context::Stage>>>,
    /// Set when the run resumes from a checkpoint: the next call that
    /// resolves to `full` has no conversation to continue, and degrades to
    /// `summary:high` once (seed 5.3, 5.4).
    resumed: Arc<AtomicBool>,
    /// The CLI agents' sessions of the `full` threads.
    sessions: session::Shared,
}

impl LlmAgent {
    /// An agent calling models as `setup` says, writing the exact prompt
    /// sent into the stage folders of `files`.
    pub fn new(setup: Rc<Setup>, files: Option<RunFiles>) -> Self {
        // A run directory that holds a checkpoint before the first call is
        // a resumed run (a fresh one writes it after its first stage).
        let resumed = files
            .as_ref()
            .is_some_and(|f| f.root().join(wf_vm::attractor::CHECKPOINT_FILE).exists());
        // A resumed run's CLI agents continue the sessions its stages
        // recorded.
        let sessions = match (&files, resumed) {
            (Some(f), true) => session::Sessions::from_run(f),
            _ => session::Sessions::default(),
        };
        LlmAgent {
            caller: Caller {
                setup: setup.common.clone(),
                backend: Backend::new(),
                threads: Arc::default(),
                called: Arc::default(),
                resumed: Arc::new(AtomicBool::new(resumed)),
                sessions: Arc::new(Mutex::new(sessions)),
            },
            files,
            interviewer: setup.interviewer.clone(),
            other: AutoAgent::new(),
        }
    }
}

impl Caller {
    /// A copy for a fork of the agent: the same run-wide state, with a
    /// snapshot of the `full` conversations (its branches' turns stay in
    /// its copy; see [`context::Threads`]).
    fn forked(&self) -> Caller {
        Caller {
            threads: Arc::new(Mutex::new(lock(&self.threads).clone())),
            ..self.clone()
        }
    }

    /// The prompt of the node: `prompt`, else the label, else the id, with
    /// `$goal` expanded.
    fn prompt(ctx: &DecisionContext<'_>) -> String {
        let spec = ctx.spec();
        let text = spec
            .get("prompt")
            .and_then(Value::as_str)
            .filter(|p| !p.trim().is_empty())
            .map(str::to_string)
            .or_else(|| ctx.label())
            .unwrap_or_else(|| ctx.str(ctx.node.id).to_string());
        let goal = ctx.workflow.goal.map_or("", |g| ctx.str(g));
        text.replace("$goal", goal)
    }

    /// The labels the model chooses among, and whether it must route at
    /// all (some outgoing edge has a label or a condition).
    fn choices(ctx: &DecisionContext<'_>) -> (bool, Vec<String>) {
        let range = ctx.node.edges;
        let edges = &ctx.workflow.edges[range.start as usize..(range.start + range.len) as usize];
        let routes = edges.iter().any(|e| e.label.is_some() || e.guard.is_some());
        let mut labels: Vec<String> = Vec::new();
        for e in edges {
            if let Some(l) = e.label {
                let l = ctx.str(l).to_string();
                if !labels.contains(&l) {
                    labels.push(l);
                }
            }
        }
        (routes, labels)
    }

    /// The decision of a stage the budget refuses: the run suspends with
    /// the reason. In a parallel branch (of a pipeline or of a `.wf`
    /// workflow), which cannot suspend on its own, it is an agent error:
    /// a durable run suspends once the other branches ended, and
    /// `--resume` runs that branch again (docs/llm.md, "Usage and cost").
    fn refused(ctx: &DecisionContext<'_>, reason: String) -> Result<Decision, AgentError> {
        let reason = format!("budget: {reason}");
        let in_branch = if wf_vm::attractor::is_attractor(ctx.workflow) {
            !scope::scope(ctx.program, ctx.workflow, ctx.node_idx).is_empty()
        } else {
            // A `.wf` branch's engine names its questions after it.
            !ctx.config.question_scope.is_empty()
        };
        if in_branch {
            return Err(AgentError {
                message: format!("node `{}`: {reason}", ctx.str(ctx.node.id)),
            });
        }
        Ok(Decision::Suspend { reason })
    }

    /// Calls the model at the node `ctx` describes, writing into the
    /// stage folders of `files`.
    fn call(
        &self,
        ctx: &DecisionContext<'_>,
        files: Option<&RunFiles>,
    ) -> Result<Decision, AgentError> {
        let id = ctx.str(ctx.node.id);
        let err = |message: String| AgentError { message };
        let spent = self.setup.budget.spent(&lock(&self.setup.totals));
        if let Some(reason) = spent {
            return Self::refused(ctx, reason);
        }
        let cli = cli_choice(&self.setup.config, ctx.node).map(|(_, c)| c);
        let (provider, model) = match &cli {
            Some(c) => (
                c.name.clone(),
                spec_text(ctx.node, "model")
                    .map(str::to_string)
                    .or_else(|| self.setup.config.model.clone())
                    .unwrap_or_else(|| format!("({} default)", c.kind.program())),
            ),
            None => choice(&self.setup.config, ctx.node, id).map_err(err)?,
        };
        let provider = wf_llm::config::canonical(&provider).to_string();
        let setup = self.setup.clone();
        let settings = match cli {
            Some(_) => None,
            None => Some(setup.providers.get(&provider).ok_or_else(|| {
                err(format!(
                    "node `{id}`: provider `{provider}` was not prepared"
                ))
            })?),
        };
        let (mut routes, labels) = Self::choices(ctx);
        // A `.wf` step that declares what it writes gets those keys from
        // the answer's `context_updates`.
        let keys: Vec<(String, String)> = ctx
            .node
            .writes
            .iter()
            .map(|k| {
                let ty = wf_vm::contract::type_name(k.ty).to_string();
                (ctx.str(k.key).to_string(), ty)
            })
            .collect();
        routes |= !keys.is_empty();
        let mut prompt = Self::prompt(ctx);
        if routes {
            prompt.push_str(&route::instructions(&labels, &keys));
        }
        let mut sent = self.fidelity(ctx, prompt, files, cli.as_ref());
        let prompt = sent.prompt.clone();
        // The engine bounds the whole decision by the node's timeout (or
        // `--agent-timeout`, or its default): retries must fit in it.
        let stage = ctx
            .node
            .engine
            .timeout_ms
            .or(ctx.workflow.limits.default_timeout_ms)
            .map(Duration::from_millis)
            .or(ctx.config.agent_timeout)
            .unwrap_or(ctx.limits.node_timeout);
        let effort = spec_text(ctx.node, "reasoning_effort").map(str::to_string);
        // What is sent (a CLI agent gets the prompt alone, preamble
        // included; an HTTP backend the thread's earlier turns too).
        let request = Request {
            model: model.clone(),
            history: match settings {
                Some(_) => sent.history.clone(),
                None => Vec::new(),
            },
            prompt,
            reasoning_effort: effort.clone(),
            max_output_tokens: settings.map_or(0, |s| s.max_output_tokens),
            stream: true,
            // The choices again, for the provider's structured output.
            structured: settings.filter(|s| routes && s.structured_output).map(|_| {
                wf_llm::structured::Choices {
                    labels: labels.clone(),
                    keys: keys.clone(),
                }
            }),
        };
        let structured = settings.is_some_and(|s| wf_llm::structured::applies(s.api, &request));
        // The most this call can use, booked against the budgets before
        // it starts (a CLI agent has no cap: it runs alone).
        let worst = match settings {
            Some(s) => budget::Worst::of_request(&request, s.api, self.setup.prices.get(&model)),
            None => budget::Worst::UNBOUNDED,
        };
        let booking = match self.setup.budget.reserve(&self.setup.totals, worst) {
            Ok(b) => b,
            Err(reason) => return Self::refused(ctx, reason),
        };
        if let Some(files) = files {
            // The exact text sent, routing instructions included.
            files
                .write_text(id, "prompt.md", &request.prompt)
                .map_err(|e| {
                    err(format!(
                        "cannot write `{id}/prompt.md` in the run directory: {e}"
                    ))
                })?;
        }
        let mut cli_session = None;
        let (text, usage, latency, attempts, reported_cost, from_file) = match settings {
            None => {
                let cli = setup.clis.get(&provider).ok_or_else(|| {
                    err(format!(
                        "node `{id}`: provider `{provider}` was not prepared"
                    ))
                })?;
                let model_arg = spec_text(ctx.node, "model")
                    .map(str::to_string)
                    .or_else(|| setup.config.model.clone());
                let flags = super::cli_agent::Flags {
                    model: model_arg.as_deref(),
                    effort: effort.as_deref(),
                    resume: sent.session.as_ref().and_then(|l| l.resume.as_ref()),
                    fork: sent.session.as_ref().is_some_and(|l| l.fork),
                };
                let ran = match super::cli_agent::run(cli, id, &request.prompt, flags, stage, files)
                {
                    Ok(ran) => ran,
                    Err(e) => {
                        let more = sent.session.take().map(|l| l.failed(files, id));
                        return Err(err(format!("node `{id}`: {e}{}", more.unwrap_or_default())));
                    }
                };
                let a = ran.answer;
                cli_session = sent.session.take().map(|l| l.finish(a.session.as_ref()));
                (a.text, a.usage, ran.elapsed, 1, a.cost_usd, ran.status_file)
            }
            Some(settings) => {
                let timeout = ctx
                    .node
                    .engine
                    .timeout_ms
                    .or(ctx.workflow.limits.default_timeout_ms)
                    .map_or(settings.timeout, Duration::from_millis);
                let deadline = std::time::Instant::now() + stage;
                let mut live =
                    files.map(|f| live::LiveResponse::new(f.stage_path(id).join("response.md")));
                let called = self
                    .backend
                    .call_with(settings, &request, timeout, Some(deadline), &mut |c| {
                        if let Some(live) = live.as_mut() {
                            live.on(c);
                        }
                    })
                    .map_err(|e| err(format!("node `{id}` ({provider} {model}): {e}")))?;
                let r = called.response;
                (r.text, r.usage, called.latency, called.attempts, None, None)
            }
        };
        let price = self.setup.prices.get(&model);
        // A CLI agent's own cost figure (Claude Code reports one) wins
        // over the price table.
        let cost = reported_cost.or_else(|| price.map(|p| p.cost(&usage)));
        let totals = {
            let mut t = lock(&self.setup.totals);
            t.calls += 1;
            t.usage.add(&usage);
            match cost {
                Some(c) => t.cost_usd += c,
                None if !t.unpriced.contains(&model) => t.unpriced.push(model.clone()),
                None => {}
            }
            t.clone()
        };
        // Counted in the totals: the booking gives way to the usage.
        drop(booking);
        let mut event = HandlerEvent {
            name: USAGE_EVENT.into(),
            data: json!({
                "provider": provider,
                "model": model,
                "input_tokens": usage.input,
                "output_tokens": usage.output,
                "cached_tokens": usage.cached,
                "reasoning_tokens": usage.reasoning,
                "latency_ms": latency.as_millis() as u64,
                "attempts": attempts,
                "cost_usd": cost.map(round),
                "run_total": totals.to_json(),
                "sent": {
                    "fidelity": sent.mode,
                    "thread_id": sent.thread,
                    "messages": request.message_count(),
                    "preamble_tokens": sent.preamble_tokens,
                    "structured_output": structured,
                    "estimated_tokens": request.history.iter().map(|t| context::estimate_tokens(&t.text)).sum::<u64>()
                        + context::estimate_tokens(&request.prompt),
                },
            }),
        };
        if let Some(record) = cli_session {
            event.data["sent"]["cli_session"] = record;
        }
        if let Some(thread) = &sent.thread {
            lock(&self.threads).push(&sent.scopes, thread, request.prompt.clone(), text.clone());
        }
        let mut outcome = Outcome {
            notes: Some(text.clone()),
            events: vec![event],
            ..Outcome::success()
        };
        if let Some(mut file) = from_file {
            // The status-file contract (seed Appendix C): an agent that
            // wrote `status.json` decided the outcome itself.
            file.events.append(&mut outcome.events);
            if file.notes.is_none() {
                file.notes = outcome.notes.take();
            }
            outcome = file;
            routes = false;
        }
        if routes {
            match route::parse_answer(&text, &labels) {
                Ok(answer) => {
                    outcome.status = match answer.outcome.as_str() {
                        "partial_success" => Status::PartialSuccess,
                        "retry" => Status::Retry,
                        "fail" => Status::Fail,
                        _ => Status::Success,
                    };
                    if outcome.status == Status::Fail {
                        outcome.failure_reason = Some(
                            answer
                                .notes
                                .clone()
                                .unwrap_or_else(|| "the model answered `fail`".into()),
                        );
                    }
                    outcome.preferred_label = answer.preferred_label;
                    outcome.writes = answer
                        .context_updates
                        .into_iter()
                        .map(|(key, value)| Write { key, value })
                        .collect();
                }
                // A malformed answer may come out right next time.
                Err(reason) => {
                    outcome.status = Status::Retry;
                    outcome.failure_reason = Some(format!("node `{id}`: {reason}"));
                }
            }
        }
        lock(&self.called).push(context::Stage {
            node: id.to_string(),
            outcome: outcome.status.as_str().to_string(),
            notes: outcome.notes.clone().unwrap_or_default(),
        });
        if !wf_vm::attractor::is_attractor(ctx.workflow)
            && outcome.status == Status::Success
            && keys.is_empty()
        {
            // A `.wf` step that declares no writes keeps what a codergen
            // stage keeps (one that declares them may write nothing else).
            outcome.writes.push(Write {
                key: "last_response".into(),
                value: Value::String(wf_vm::attractor::truncate(
                    &text,
                    wf_vm::attractor::RESPONSE_SUMMARY_CHARS,
                )),
            });
        }
        if ctx.is_terminal() && !wf_vm::attractor::is_attractor(ctx.workflow) {
            // A `.wf` workflow ends at a terminal step: its writes are final.
            return Ok(match outcome.status {
                Status::Success | Status::PartialSuccess => Decision::Complete {
                    writes: outcome.writes,
                },
                _ => Decision::Advance(outcome),
            });
        }
        Ok(Decision::Advance(outcome))
    }
}

/// What a call sends besides its settings: the fidelity it resolved, the
/// user message (preamble included) and the thread's earlier turns.
struct Sent {
    mode: String,
    thread: Option<String>,
    prompt: String,
    history: Vec<wf_llm::Turn>,
    preamble_tokens: u64,
    /// A CLI agent's hold on the thread's session (`full`).
    session: Option<session::Lease>,
    /// The stage's branch scope and those it is nested in
    /// ([`scope::scopes`]): whose conversation the call continues.
    scopes: Vec<String>,
}

impl Caller {
    /// Applies the stage's fidelity to `prompt` (seed 5.4): in a pipeline,
    /// `full` continues the stage's thread (a fresh thread starts with the
    /// `compact` preamble) and every other mode starts a fresh
    /// conversation with its preamble; a `.wf` step sends its prompt alone.
    /// A CLI agent (`cli`) continues its own session of the thread rather
    /// than being sent the earlier turns.
    fn fidelity(
        &self,
        ctx: &DecisionContext<'_>,
        prompt: String,
        files: Option<&RunFiles>,
        cli: Option<&wf_llm::cli::CliSettings>,
    ) -> Sent {
        if !wf_vm::attractor::is_attractor(ctx.workflow) {
            return Sent {
                mode: "none".into(),
                thread: None,
                prompt,
                history: Vec::new(),
                preamble_tokens: 0,
                session: None,
                scopes: vec![String::new()],
            };
        }
        let (mut mode, thread) = wf_vm::attractor::resolve_fidelity(ctx);
        // The branch the stage runs in, and those it is nested in: a
        // branch forks its parent's `full` conversations.
        let scopes = scope::scopes(ctx.program, ctx.workflow, ctx.node_idx);
        let restart = ctx.step == 0
            && scope::branch_of(ctx.program, ctx.workflow, ctx.node_idx)
                .is_some_and(|b| b.first == ctx.node_idx);
        lock(&self.threads).enter(&scopes[0], restart);
        lock(&self.sessions).enter(&scopes[0], restart);
        let session = match (cli, thread.as_deref()) {
            (Some(cli), Some(t)) if mode == "full" => Some(session::Lease::take(
                &self.sessions,
                session::Key {
                    scope: scopes[0].clone(),
                    provider: cli.name.clone(),
                    thread: t.to_string(),
                },
                &scopes[1..],
                cli.kind.forks_sessions(),
            )),
            _ => None,
        };
        // A session the agent keeps (recorded in the run directory)
        // survives a resume; only a conversation that lived in the process
        // degrades. The degraded call still starts its thread: the next
        // `full` stage continues from it.
        let continues_session = session.as_ref().is_some_and(|l| l.resume.is_some());
        if mode == "full" && !continues_session && self.resumed.swap(false, Ordering::SeqCst) {
            mode = "summary:high".into();
        }
        let history = match thread.as_deref() {
            Some(t) if mode == "full" => lock(&self.threads).get(&scopes, t),
            _ => Vec::new(),
        };
        // What the call continues: for a CLI agent its session (the
        // earlier turns are not sent to it), else the earlier turns.
        let continues = match cli {
            Some(_) => continues_session,
            None => !history.is_empty(),
        };
        let preamble = if mode == "full" && continues {
            String::new()
        } else {
            let stages = context::history(files, &lock(&self.called));
            let run = files
                .and_then(|f| f.root().file_name())
                .map(|n| n.to_string_lossy().into_owned());
            let preamble_mode = if mode == "full" {
                "compact"
            } else {
                mode.as_str()
            };
            context::preamble(preamble_mode, ctx, run.as_deref(), &stages)
        };
        Sent {
            preamble_tokens: context::estimate_tokens(&preamble),
            prompt: format!("{preamble}{prompt}"),
            mode,
            thread,
            history,
            session,
            scopes,
        }
    }
}

impl DecisionAgent for LlmAgent {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        if calls_model(ctx.program, ctx.workflow, ctx.node) {
            self.caller.call(ctx, self.files.as_ref())
        } else if ctx.node.op == Opcode::Human
            && let Some(interviewer) = &self.interviewer
        {
            Ok(super::llm_human::ask(ctx, interviewer))
        } else {
            self.other.decide(ctx)
        }
    }

    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        // `--interviewer` lives on this thread: `.wf` branches that may
        // reach a `human` node must ask it, so they run one after another.
        if self.interviewer.is_some() {
            return None;
        }
        Some(Box::new(branch::Branch::new(
            self.caller.forked(),
            self.files.as_ref(),
        )))
    }
}

/// The summary with the run's model usage: an `llm` object in the JSON
/// report, a last line in the readable one.
pub fn with_totals(summary: String, json: bool, totals: &Totals) -> String {
    if json && let Ok(Value::Object(mut doc)) = serde_json::from_str::<Value>(&summary) {
        doc.insert("llm".into(), totals.to_json());
        let mut text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or(summary);
        text.push('\n');
        return text;
    }
    format!("{summary}{}\n", totals.line())
}
