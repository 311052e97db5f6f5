//! `wfc run`: execute a workflow with a decision agent (docs/agents.md).

mod agent;
mod attractor;
pub(crate) mod cancel;
mod cli_agent;
mod effects;
mod elsewhere;
mod events;
mod interrupt;
mod llm;
mod llm_human;
pub(crate) mod load;
mod output;
pub(crate) mod resume;
mod script_resume;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use wf_ir::IrProgram;
use wf_vm::contract;
use wf_vm::{
    Engine, EngineConfig, Origin, PersistError, ProcessToolRunner, Report, RunDir, RunStatus,
    SimulatedToolRunner,
};

use crate::{EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};
use agent::{AgentOptions, AgentSpec};
use output::Tee;
use resume::{note_trust_changes, printable};

/// Exit status of `wfc run`: the run suspended (resumable).
pub const EXIT_SUSPENDED: u8 = 3;

/// Summary formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SummaryFormat {
    /// Readable text.
    Human,
    /// The run report as a JSON document.
    Json,
}

/// When to print progress lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressChoice {
    /// When standard error is a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// What `tool` nodes do (`--tools`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolMode {
    /// Run their commands (`sh -c`, in the current directory).
    Run,
    /// Run nothing: each succeeds with placeholder outputs (a dry run).
    Simulate,
    /// Run nothing: each fails with a refusal.
    Refuse,
}

impl ToolMode {
    /// The mode's name, as `--tools` takes it.
    pub fn name(self) -> &'static str {
        match self {
            ToolMode::Run => "run",
            ToolMode::Simulate => "simulate",
            ToolMode::Refuse => "refuse",
        }
    }
}

/// What an agent error does to a run (`--on-error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnError {
    /// The run fails (exit 1).
    Fail,
    /// The run suspends with the error recorded (exit 3); `--resume`
    /// asks the agent again. Needs a run directory.
    Suspend,
}

/// Arguments of `wfc run`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Exit status:
  0  the run completed
  1  the run failed (a node failed with no route on, a limit, an agent error
     without a run directory or with --on-error fail; the summary names the
     failure's kind and code, WF0901-WF0910)
  2  the run could not start or go on: usage error, unreadable file, errors
     in the workflow (printed as `wfc check` prints them), run-directory
     trouble, a --from run not given the keys it needs, a --fork step the
     source does not record, internal error (a run failure of kind
     `internal`, WF0907)
  3  the run suspended (the agent asked to, or an agent error in a durable
     run): resume it with `wfc run --resume DIR` (a run started without
     --run-dir cannot be resumed); `wfc status DIR` says where it stands

Ctrl-C, SIGTERM or SIGHUP kill the tools and agents still running and end
wfc by the signal (a shell shows 130, 143, 129). A durable run is first
suspended, its step logged as interrupted (WF0931): `wfc run --resume DIR`
goes on, `wfc cancel DIR` gives it up; a second signal ends wfc at once.

See docs/agents.md for the agents and the `exec:` protocol.")]
pub struct RunArgs {
    /// The workflow file: `.wf` (checked, then compiled), IR JSON written
    /// by `wfc build`, or another source format `wfc check` reads.
    #[arg(
        required_unless_present_any = ["resume", "fork"],
        conflicts_with_all = ["resume", "fork"]
    )]
    file: Option<PathBuf>,
    /// The workflow to run. Default: the file's only workflow; else the
    /// only one of its workflows no other calls; else its first.
    #[arg(long, value_name = "NAME", conflicts_with = "resume")]
    workflow: Option<String>,
    /// Seed the root frame: `KEY=VALUE`, the value read as JSON, else as
    /// a string (`--set n=3`, `--set 'tags=["a"]'`, `--set name=Ada`);
    /// always the text when the workflow needs the key as a `string`.
    #[arg(long = "set", value_name = "KEY=VALUE", conflicts_with_all = ["resume", "fork"])]
    set: Vec<String>,
    /// Start at NODE of the workflow instead of its entry, with only the
    /// `--set` values (and a pipeline's graph attributes) on the
    /// blackboard. Refused, naming them, when NODE or a node after it
    /// needs a key that is not given and no node on the way writes first.
    /// With --run-dir, `start.json` records NODE.
    #[arg(long, value_name = "NODE", conflicts_with_all = ["resume", "fork"])]
    from: Option<String>,
    /// Start a new run in the state the run in DIR had after --at STEP
    /// steps (for debugging): its pinned program, and its state rebuilt
    /// from its log. DIR is only read; the new run goes to --run-dir NEW,
    /// whose `start.json` records DIR and STEP.
    #[arg(
        long,
        value_name = "DIR",
        requires_all = ["at", "run_dir"],
        conflicts_with_all = ["resume", "workflow"]
    )]
    fork: Option<PathBuf>,
    /// With --fork: the step to fork at (the state after that many steps;
    /// `wfc status DIR` tells how many the run took).
    #[arg(long, value_name = "STEP", requires = "fork")]
    at: Option<u64>,
    /// The decision agent: rules, auto, llm (stages call a real model:
    /// docs/llm.md), script:FILE, console or exec:COMMAND. Default: rules for Reflex JSON (its rule-agent
    /// convention), auto (a dry run: every decision simulated) for `.wf`,
    /// IR and `.dot`. A resumed run uses the agent of the resuming command
    /// line; without one, the built-in agent it started with (`auto`,
    /// `rules` or `console`), never a command or file the run directory
    /// names.
    #[arg(long, value_name = "AGENT")]
    agent: Option<String>,
    /// Who answers the `wait.human` gates of a `.dot` pipeline (and, with
    /// `--agent llm`, the `human` nodes of a `.wf` workflow): auto (the
    /// first choice), console (stdin) or answers:FILE (one answer per
    /// line). Default: console with `--agent console`, else auto. A gate
    /// it has no answer for (end of input, the file used up) suspends a
    /// run with --run-dir until `wfc answer DIR`, and fails otherwise.
    #[arg(long, value_name = "INTERVIEWER")]
    interviewer: Option<String>,
    /// Run the nodes of a custom handler type of a `.dot` pipeline with
    /// an agent process: `TYPE=exec:COMMAND` (repeatable). The process
    /// speaks the `exec:` agent protocol; see docs/attractor.md.
    #[arg(long = "handler", value_name = "TYPE=exec:COMMAND")]
    handlers: Vec<String>,
    /// Run the commands of `tool` nodes: the same as `--tools run`.
    #[arg(long, conflicts_with = "tools")]
    allow_tools: bool,
    /// What `tool` nodes do: run their commands (through `sh -c` in the
    /// current directory), simulate them (succeed with placeholder
    /// outputs, running nothing) or refuse them (fail). Default: simulate
    /// with `--agent auto` (a dry run), else refuse. A resumed run takes
    /// the mode from the resuming command line only.
    #[arg(long, value_enum, value_name = "MODE")]
    tools: Option<ToolMode>,
    /// Make the run durable in DIR (created; must not hold a run): a step
    /// log and snapshots, so the run can be resumed after a suspension or
    /// a crash.
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    run_dir: Option<PathBuf>,
    /// Resume the run in DIR (suspended or killed) where it stopped.
    #[arg(long, value_name = "DIR")]
    resume: Option<PathBuf>,
    /// With --resume: settle an `effect = "at_most_once"` node that the
    /// run started but did not record as finished, as done: it succeeds
    /// without running again, with the writes of --outputs. A node in a
    /// `.wf` parallel branch goes by the name the run gave it
    /// (`fan#1/a/charge`; `wfc status DIR` shows it). Repeat it (and
    /// --rerun) to settle several nodes at once.
    #[arg(long, value_name = "NODE", requires = "resume")]
    assume_done: Vec<String>,
    /// With --assume-done: the node's outputs, a JSON object (key → value).
    /// With several --assume-done, the Nth --outputs is the Nth node's
    /// (`{}` for none).
    #[arg(long, value_name = "JSON", requires = "assume_done")]
    outputs: Vec<String>,
    /// With --resume: settle such a node as not done: it runs again (a
    /// node in a parallel branch by its name `fan#1/a/charge`). Repeat it
    /// to settle several.
    #[arg(long, value_name = "NODE", requires = "resume")]
    rerun: Vec<String>,
    /// With --resume: cancel the run instead of continuing it: it ends as
    /// failed (kind `cancelled`, WF0930) and the compensating nodes of its
    /// completed effects run (tools must be allowed). `wfc cancel DIR` does
    /// the same, and stops a run in progress first.
    #[arg(long, requires = "resume", conflicts_with_all = ["assume_done", "rerun"])]
    cancel: bool,
    /// What an agent error (a crash of an `exec:` agent, a timeout,
    /// garbage output, an `--agent llm` backend outage) does: `suspend`
    /// records it and suspends the run, so `wfc run --resume DIR` tries
    /// the step again; `fail` ends the run. Default: suspend with
    /// --run-dir or --resume, fail without (such a run cannot be resumed).
    /// Tool failures and wrong decisions are not agent errors: they route
    /// by the workflow's failure rules.
    #[arg(long, value_enum, value_name = "fail|suspend")]
    on_error: Option<OnError>,
    /// Stream the engine's events as JSON lines to FILE, or to standard
    /// output with `-` (the summary then goes to standard error). When
    /// resuming, FILE is first rewritten with the events of every step the
    /// run's log holds.
    #[arg(long, value_name = "FILE|-")]
    events: Option<PathBuf>,
    /// Stop the run (failed) after N steps, whatever the workflow allows.
    #[arg(long, value_name = "N")]
    max_steps: Option<u64>,
    /// The summary's format.
    #[arg(long, value_enum, default_value_t = SummaryFormat::Human)]
    format: SummaryFormat,
    /// Progress lines on standard error.
    #[arg(long, value_enum, default_value_t = ProgressChoice::Auto)]
    progress: ProgressChoice,
    /// How long the agent may take to answer when neither the node
    /// (`timeout`) nor the workflow (`default_timeout`) says (250ms, 30s,
    /// 5m, 1h). Default: 2 min for an `exec:` agent, and the engine's node
    /// timeout (5 min) for the others.
    #[arg(long, value_name = "DURATION", value_parser = agent::parse_duration)]
    agent_timeout: Option<Duration>,
    /// The most bytes of a tool's stdout, and of its stderr, written to
    /// the blackboard.
    #[arg(long, value_name = "BYTES", default_value_t = ProcessToolRunner::DEFAULT_MAX_OUTPUT_BYTES)]
    tool_output_limit: usize,
    /// Sleep this long before each decision (for crash-safety tests).
    #[arg(long, value_name = "MS", hide = true)]
    step_delay_ms: Option<u64>,
    /// How long the first Ctrl-C waits for the step in flight to stop
    /// before ending wfc anyway (default 2 s; for signal tests).
    #[arg(long, value_name = "MS", hide = true)]
    interrupt_grace_ms: Option<u64>,
}

/// What `--resume` needs from the run's start, stored in `meta.json`.
const META_KIND: &str = "wfc-run";

/// Runs `wfc run` and returns the exit status.
pub fn run(args: RunArgs) -> u8 {
    // Ctrl-C must not leave a tool or an `exec:` agent running: they have
    // process groups of their own, out of the terminal's reach. A durable
    // run stops gracefully instead (run/interrupt.rs).
    if args.run_dir.is_some() || args.resume.is_some() {
        let grace = args
            .interrupt_grace_ms
            .map_or(wf_vm::interrupt::GRACE, Duration::from_millis);
        wf_vm::interrupt::stop_gracefully_on_termination_signals(grace);
    } else {
        wf_vm::tools::end_children_on_termination_signals();
    }
    match execute(&args) {
        Ok(status) => status,
        Err(message) => {
            eprintln!("{message}");
            EXIT_TROUBLE
        }
    }
}

fn execute(args: &RunArgs) -> Result<u8, String> {
    let agent_spec: Option<AgentSpec> = match &args.agent {
        Some(text) => Some(text.parse().map_err(|e| format!("error: {e}"))?),
        None => None,
    };
    let mut config = EngineConfig::default();
    if let Some(n) = args.max_steps {
        config.limits.max_steps = n;
    }
    // The engine times decisions with it too, so the explicit setting
    // wins over the default node timeout (5 min) in either direction.
    config.agent_timeout = args.agent_timeout;
    let durable = args.run_dir.is_some() || args.resume.is_some();
    config.suspend_on_agent_error = match args.on_error {
        Some(OnError::Suspend) if !durable => {
            return Err("error: --on-error suspend needs a run directory: a run without one cannot be resumed\n  \
                 help: add --run-dir DIR, or use --on-error fail"
                .into());
        }
        Some(choice) => choice == OnError::Suspend,
        None => durable,
    };
    // A gate nobody answers suspends a run that can wait for `wfc answer`.
    config.questions_wait = durable;
    config.stop_on_interrupt = durable;
    // Where the program comes from: the file, or the run directory (to
    // resume, or to fork from).
    let mut forked = None;
    let (program, meta, dir) = match (&args.file, &args.resume) {
        (_, Some(dir)) => {
            let run_dir = RunDir::open(dir).map_err(|e| match e {
                PersistError::InUse { .. } if args.cancel => format!(
                    "error: {e}\n  help: `wfc cancel {}` stops it, then cancels it",
                    dir.display()
                ),
                PersistError::NotFound(_) | PersistError::InUse { .. } => format!("error: {e}"),
                e => format!("error: cannot resume: {e}"),
            })?;
            // `program()` loads through the IR loader, which verifies it.
            let program = run_dir
                .program()
                .map_err(|e| format!("error: cannot resume: {e}"))?;
            let meta = run_dir
                .meta()
                .map_err(|e| format!("error: cannot resume: {e}"))?;
            if meta["kind"] != META_KIND {
                return Err(format!(
                    "error: cannot resume: `{}` was not started by `wfc run`",
                    dir.display()
                ));
            }
            let mut program = program;
            if let Some(root) = meta["workflow"]
                .as_str()
                .and_then(|w| program.workflow_by_name(w))
            {
                cap_steps(&mut program, root, args.max_steps);
            }
            (program, meta, Some(run_dir))
        }
        (Some(file), None) => {
            let loaded = load::load(file).map_err(|e| e.0)?;
            let (root, note) = load::choose_workflow(&loaded, args.workflow.as_deref())
                .map_err(|e| format!("error: {e}"))?;
            if let Some(note) = note {
                eprintln!("note: {note}");
            }
            let pipeline = attractor::is_pipeline(&loaded.program, root);
            let agent = match &agent_spec {
                Some(spec) => spec.clone(),
                None => {
                    let default = agent::default_for(loaded.format);
                    if default == AgentSpec::Auto && !pipeline {
                        eprintln!(
                            "note: no --agent given: `auto` simulates every decision (a dry \
                             run); choose who decides with --agent console, exec:COMMAND or \
                             script:FILE"
                        );
                    }
                    default
                }
            };
            let mut program = loaded.program;
            cap_steps(&mut program, root, args.max_steps);
            // The agent actually used, default included: a resumed run
            // keeps it unless `--agent` names another.
            let meta = json!({
                "kind": META_KIND,
                "source": file.display().to_string(),
                "workflow": program.str(program.workflows[root.0 as usize].name),
                "agent": agent.to_string(),
                "allow_tools": tool_mode(args, &agent) == ToolMode::Run,
                "tools": tool_mode(args, &agent).name(),
            });
            (program, meta, None)
        }
        (None, None) if let Some(source) = &args.fork => {
            let (source, mut program, meta) = elsewhere::fork_source(source)?;
            if let Some(root) = meta["workflow"]
                .as_str()
                .and_then(|w| program.workflow_by_name(w))
            {
                cap_steps(&mut program, root, args.max_steps);
            }
            forked = Some(source);
            (program, meta, None)
        }
        (None, None) => {
            return Err("error: give a workflow file, --resume DIR or --fork DIR".into());
        }
    };
    let workflow = meta["workflow"].as_str().unwrap_or("?").to_string();
    let root = program.workflow_by_name(&workflow);
    let pipeline = root.is_some_and(|r| attractor::is_pipeline(&program, r));
    // The default on resume: the agent the run started with when it is a
    // built-in that runs nothing of the run directory's choosing; a command
    // or a file named there is never run (a run directory is data).
    let default_agent = match meta["agent"].as_str().map(str::parse::<AgentSpec>) {
        Some(Ok(spec @ (AgentSpec::Auto | AgentSpec::Rules | AgentSpec::Console))) => spec,
        _ if pipeline => AgentSpec::Auto,
        _ => AgentSpec::Rules,
    };
    // The agent and the tool permission come from this command line only:
    // a run directory is data, and must not choose what runs.
    let spec = agent_spec.unwrap_or_else(|| default_agent.clone());
    let tools = tool_mode(args, &spec);
    if dir.is_some() {
        note_trust_changes(&meta, &spec, &default_agent, tools);
    }
    if tools == ToolMode::Simulate && args.tools.is_none() && has_tool_nodes(&program) {
        eprintln!(
            "note: tool nodes are simulated (--tools simulate); run them with --tools run (or --allow-tools)"
        );
    }
    let run_dir = args.run_dir.as_ref().or(args.resume.as_ref());
    let files = run_dir
        .filter(|_| pipeline)
        .map(wf_vm::attractor::RunFiles::new);
    // `--agent llm`: keys, providers and models are checked before the run.
    let llm = match (&spec, root) {
        (AgentSpec::Llm, Some(root)) => {
            let source = meta["source"].as_str().map(Path::new);
            let env = |var: &str| std::env::var(var).ok();
            let setup = llm::prepare(&program, root, source, &env)?;
            // A pipeline's gates ask `--interviewer` through their handler.
            let human = args.interviewer.as_deref().filter(|_| !pipeline);
            Some(std::rc::Rc::new(setup.with_interviewer(human)?))
        }
        _ => None,
    };
    let options = AgentOptions {
        timeout: args.agent_timeout,
        step_delay: args.step_delay_ms.map(Duration::from_millis),
        llm: llm.clone().map(|setup| (setup, files.clone())),
    };
    let resumed = dir.is_some();
    // One runner for the pipeline, its parallel branches and child pipelines.
    let pipeline_tools = match tools {
        _ if !pipeline => None,
        ToolMode::Run => Some(attractor::shared_tools(args.tool_output_limit)),
        ToolMode::Simulate => Some(attractor::simulated_tools()),
        ToolMode::Refuse => None,
    };
    // The answers `wfc answer` recorded since the run suspended.
    let answers = match &dir {
        Some(dir) => crate::answer::recorded(dir, &program)?,
        None => Vec::new(),
    };
    // The questions the gates of parallel branches wait on, once the run
    // suspends (the engine records them in the run's store).
    let waiting: wf_vm::question::WaitingQuestions = Default::default();
    let mut agent = if pipeline {
        let human = attractor::Humans {
            answers,
            interviewer: args.interviewer.as_deref(),
            source: meta["source"].as_str(),
            tools: pipeline_tools.clone(),
            custom: attractor::custom_handlers(&args.handlers, &options)?,
            waiting: run_dir.map(|_| waiting.clone()),
        };
        attractor::agent(&spec, &options, files.clone(), dir.as_ref(), human)
    } else {
        // A resumed script goes on after the answers its log took; either
        // way `wfc answer`'s answers come first.
        let built = match (&spec, &dir) {
            (AgentSpec::Script(file), Some(dir)) => script_resume::resumed_script(file, dir),
            _ => agent::build(&spec, &options),
        };
        built.map(|a| {
            Box::new(wf_vm::question::Answered::new(a, answers)) as Box<dyn wf_vm::DecisionAgent>
        })
    }
    .map_err(|e| format!("error: {e}"))?;

    // `held` keeps the run directory's lock until the process ends.
    let (mut engine, held) = match dir {
        Some(dir) => (
            Engine::resume(&program, dir.clone(), config)
                .map_err(|e| format!("error: cannot resume: {e}"))?,
            Some(dir),
        ),
        None if let Some(source) = &forked => {
            let forked = elsewhere::fork_meta(&meta, &spec, tools);
            let made = elsewhere::fork(&program, source, args, config, &forked, pipeline)?;
            elsewhere::note_agent(&meta, &spec);
            made
        }
        None => start(&program, &workflow, &meta, args, config, pipeline)?,
    };
    // `meta.json` chose how to run (a pipeline or not); the snapshot chose
    // what runs: they must agree.
    if resumed && root != Some(engine.root()) {
        return Err(format!(
            "error: cannot resume: `meta.json` names the workflow `{}`, but the snapshot runs `{}`",
            printable(&workflow),
            program.str(program.workflows[engine.root().0 as usize].name)
        ));
    }
    if resumed {
        effects::settle(&mut engine, args)?;
    }
    let resumed_dir = held.as_ref().filter(|_| resumed);
    let mut sinks = events::event_sinks(args, resumed_dir)?;
    let checkpoints = match (&files, root) {
        (Some(files), Some(root)) => {
            let context =
                wf_vm::attractor::graph_context(&program, &program.workflows[root.0 as usize]);
            let c = attractor::Checkpoints::new(files.clone(), &context, resumed_dir)?;
            sinks.push(Box::new(c.clone()));
            Some(c)
        }
        _ => None,
    };
    if !sinks.is_empty() {
        engine.set_event_sink(Box::new(Tee(sinks)));
    }
    if run_dir.is_some() {
        engine.set_waiting_questions(waiting.clone());
    }
    if pipeline {
        engine.set_tool_runner(attractor::tool_runner(
            pipeline_tools.as_ref(),
            files.clone(),
        ));
    } else if tools == ToolMode::Run {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        engine.set_tool_runner(Box::new(
            ProcessToolRunner::new(cwd).with_max_output_bytes(args.tool_output_limit),
        ));
    } else if tools == ToolMode::Simulate {
        engine.set_tool_runner(Box::new(SimulatedToolRunner::new()));
    }
    let report = engine.run(agent.as_mut());
    // The watchdog must not end the process while it reports the stop.
    let interrupted = interrupt::stopped(&report);
    // Every question the suspended run waits on: at the node it stands
    // at, and at the gates of its parallel branches.
    let mut questions: Vec<_> = run_dir
        .and_then(|_| wf_vm::question::pending(&program, &mut engine))
        .into_iter()
        .collect();
    questions.append(&mut waiting.borrow_mut());
    let steps = engine.steps();
    let persist_warning = engine.persist_warning().map(str::to_owned);
    let effects = effects::Summary::of(&engine);
    let due = engine.compensations_due();
    interrupt::warn_unfinished_compensations(&report, due, run_dir.map(|d| d.as_path()));
    // A sink that failed in the run's last step could not end it.
    let lost_events = engine
        .event_sink_failure()
        .filter(|_| !matches!(report.status, RunStatus::Failed { .. }));
    // The agent's process (exec) ends, and progress lines are flushed,
    // before the summary.
    drop(agent);
    drop(engine);
    if let Some(e) = checkpoints.and_then(|c| c.error()) {
        eprintln!("warning: {e}");
    }
    if let Some(w) = persist_warning {
        eprintln!("warning: {w}");
    }
    if pipeline && let Some(node) = attractor::dead_end(&program, &report) {
        eprintln!(
            "warning: the run stopped at `{node}`, which is not an exit: no edge leaves it (a dead end; see `wfc explain WF0820`)"
        );
    }
    let llm_totals = llm.map(|setup| setup.totals());
    // The engine recorded them before it logged the suspension (a kill
    // cannot come between); and those of a `.wf` fan-out's branches.
    if let Some(store) = held.as_ref()
        && matches!(report.status, RunStatus::Suspended { .. })
    {
        for (q, _) in wf_vm::question::current(store, steps).unwrap_or_default() {
            if !questions.iter().any(|k| k.id == q.id) {
                questions.push(q);
            }
        }
    }
    let status = finish(
        args,
        &workflow,
        run_dir.map(|d| d.as_path()),
        &report,
        llm_totals.as_ref(),
        &questions,
        &effects,
    );
    drop(held);
    // Ended by the signal, the lock released and the hint printed.
    if let Some(signal) = interrupted {
        wf_vm::interrupt::end_by(signal);
    }
    if let Some(e) = lost_events {
        eprintln!("{}", events::lost_events_error(&e));
        return Ok(EXIT_FINDINGS);
    }
    Ok(status)
}

/// The tool mode of this command line: `--tools`, `--allow-tools` (run),
/// else simulate under the `auto` agent (a dry run) and refuse otherwise.
fn tool_mode(args: &RunArgs, agent: &AgentSpec) -> ToolMode {
    match args.tools {
        Some(mode) => mode,
        None if args.allow_tools => ToolMode::Run,
        None if *agent == AgentSpec::Auto => ToolMode::Simulate,
        None => ToolMode::Refuse,
    }
}

/// Whether any workflow of `program` has a `tool` node (the simulation
/// note is said only when it matters).
fn has_tool_nodes(program: &IrProgram) -> bool {
    program
        .workflows
        .iter()
        .any(|w| w.nodes.iter().any(|n| n.op == wf_ir::Opcode::Tool))
}

/// A new engine: inputs set, and made durable (and the directory locked)
/// when `--run-dir` is given.
fn start<'p>(
    program: &'p IrProgram,
    workflow: &str,
    meta: &Value,
    args: &RunArgs,
    config: EngineConfig,
    pipeline: bool,
) -> Result<(Engine<'p>, Option<RunDir>), String> {
    let root = program
        .workflow_by_name(workflow)
        .ok_or_else(|| format!("error: no workflow `{workflow}`"))?;
    let mut engine =
        Engine::new(program, root, config).map_err(|e| format!("error: cannot run: {e}"))?;
    if let Some(node) = &args.from {
        elsewhere::start_from(&mut engine, program, root, node)?;
    }
    // The typed keys: the workflow's needs, and with --from what the run
    // needs from its start node (those types are checked the same way).
    let mut needs: Vec<(String, wf_ir::ValueType)> = program.workflows[root.0 as usize]
        .needs
        .iter()
        .map(|k| (program.str(k.key).to_owned(), k.ty))
        .collect();
    if args.from.is_some() {
        needs.extend(elsewhere::typed_keys(&engine, program, root));
    }
    for item in &args.set {
        let (key, mut value) = parse_set(item)?;
        let text = item.split_once('=').map(|(_, t)| t).unwrap_or_default();
        if let Some(&(_, need)) = needs.iter().find(|(k, _)| *k == key) {
            // A key the workflow needs as a string keeps the text as written
            // (`--set version=1.2` is the string "1.2", not a number).
            if need == wf_ir::ValueType::String && !value.is_string() {
                value = Value::String(text.to_string());
            }
            // Any other type is checked now, not when a guard first reads
            // the value.
            if !contract::type_matches(need, &value) {
                let ty = contract::type_name(need);
                return Err(format!(
                    "error: --set {item}: workflow `{workflow}` needs `{key}` as `{ty}`, but `{text}` is {} {}\n  \
                     help: give {} {ty} value, e.g. --set {key}={}",
                    article(contract::json_type(&value)),
                    contract::json_type(&value),
                    article(ty),
                    example(need),
                ));
            }
        }
        engine
            .set_input(&key, value)
            .map_err(|e| format!("error: --set {item}: {e}"))?;
    }
    if pipeline {
        attractor::seed(&mut engine, program, root)?;
    }
    if let Some(node) = &args.from {
        elsewhere::check_given(&engine, program, root, node)?;
    }
    let Some(dir) = &args.run_dir else {
        return Ok((engine, None));
    };
    let run_dir = RunDir::create(dir, program, meta).map_err(|e| format!("error: {e}"))?;
    if pipeline {
        let source = args.file.as_deref().unwrap_or(Path::new("?"));
        attractor::manifest(&wf_vm::attractor::RunFiles::new(dir), program, root, source)?;
        // `checkpoint.json` is written (attractor::Checkpoints): the events
        // say when (CheckpointSaved).
        engine.set_checkpoints(true);
    }
    match &args.from {
        Some(node) => engine.persist_from(run_dir.clone(), Origin::From { node: node.clone() }),
        None => engine.persist_to(run_dir.clone()),
    }
    .map_err(|e| format!("error: {e}"))?;
    Ok((engine, Some(run_dir)))
}

/// "a" or "an" before a type name.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// A value of type `ty` as `--set` reads it, for the help line.
fn example(ty: wf_ir::ValueType) -> &'static str {
    use wf_ir::ValueType::*;
    match ty {
        String | Any => "text",
        Int => "3",
        Float | Number => "1.5",
        Bool => "true",
        List => "'[\"a\",\"b\"]'",
        Map => "'{\"k\":1}'",
    }
}

/// `KEY=VALUE`: the value as JSON, else as a string.
fn parse_set(item: &str) -> Result<(String, Value), String> {
    let Some((key, text)) = item.split_once('=') else {
        return Err(format!("error: --set `{item}`: expected KEY=VALUE"));
    };
    let key = key.trim();
    if key.is_empty() {
        return Err(format!("error: --set `{item}`: the key is empty"));
    }
    let value = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()));
    Ok((key.to_string(), value))
}

/// `--max-steps` caps the root workflow's own `max_steps` too (a workflow's
/// limits override the engine's defaults).
fn cap_steps(program: &mut IrProgram, root: wf_ir::WorkflowIdx, cap: Option<u64>) {
    if let Some(cap) = cap {
        let limits = &mut program.workflows[root.0 as usize].limits;
        limits.max_steps = Some(limits.max_steps.map_or(cap, |own| own.min(cap)));
    }
}

/// Prints the summary and hints; returns the exit status.
fn finish(
    args: &RunArgs,
    workflow: &str,
    run_dir: Option<&Path>,
    report: &Report,
    llm: Option<&llm::Totals>,
    questions: &[wf_vm::question::PendingQuestion],
    effects: &effects::Summary,
) -> u8 {
    let shown_dir = run_dir.map(|d| d.display().to_string());
    let mut summary = match args.format {
        SummaryFormat::Human => output::human_summary(workflow, report),
        SummaryFormat::Json => output::json_summary(workflow, shown_dir.as_deref(), report),
    };
    if let Some(totals) = llm {
        summary = llm::with_totals(summary, args.format == SummaryFormat::Json, totals);
    }
    summary = effects.add_to(summary, args.format == SummaryFormat::Json);
    let failed = matches!(report.status, RunStatus::Failed { .. });
    // With `--events -` standard output carries only events; a failed
    // run's messages go to standard error, except the JSON report, which
    // stays on standard output for the program reading it.
    if let (RunStatus::Failed { reason }, SummaryFormat::Json) = (&report.status, args.format) {
        eprintln!("error: the run failed: {}", output::one_line(reason));
    }
    if args.events.as_deref() == Some(Path::new("-"))
        || (failed && args.format == SummaryFormat::Human)
    {
        eprint!("{summary}");
    } else {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(summary.as_bytes()).and_then(|()| out.flush());
    }
    if matches!(report.status, RunStatus::Suspended { .. }) {
        match &shown_dir {
            Some(dir) if let Some(hint) = interrupt::hint(report, dir) => eprint!("{hint}"),
            Some(dir) if let Some(error) = suspending_error(report) => eprintln!(
                "hint: the run suspended on an agent error ({} {}): {}\n  \
                 once the agent works again, `wfc run --resume {dir}` tries the step again \
                 (`--on-error fail` fails the run instead)",
                error.kind.code(),
                error.kind.name(),
                output::one_line(&error.reason)
            ),
            Some(dir) if !questions.is_empty() => {
                eprint!("{}", crate::answer::hints(dir, questions))
            }
            Some(dir) if let [p] = &effects.pending[..] => eprintln!(
                "hint: if `{node}` took effect, `wfc run --resume {dir} --assume-done {node} [--outputs JSON]`; \
                 if it did not, `wfc run --resume {dir} --rerun {node}`",
                node = p.node
            ),
            Some(dir) if !effects.pending.is_empty() => {
                eprint!("{}", effects::several_hint(dir, &effects.pending))
            }
            Some(dir) => eprintln!("hint: resume with `wfc run --resume {dir}`"),
            None => eprintln!(
                "hint: this run cannot be resumed; run with `--run-dir DIR` to make it resumable"
            ),
        }
    }
    exit_status(report)
}

/// The agent error a suspended run stopped on: the failure trace's last
/// entry, when the suspension's reason is its reason (an agent's own
/// suspension records no failure).
pub(crate) fn suspending_error(report: &Report) -> Option<&wf_vm::FailureRecord> {
    let RunStatus::Suspended { reason } = &report.status else {
        return None;
    };
    report.failures.last().filter(|last| &last.reason == reason)
}

/// The exit status of a run that ended so (`wfc run --help`).
fn exit_status(report: &Report) -> u8 {
    match &report.status {
        RunStatus::Completed => EXIT_CLEAN,
        RunStatus::Suspended { .. } => EXIT_SUSPENDED,
        // An engine that failed itself is an internal error, as elsewhere
        // in the CLI; every other failure is the run's.
        RunStatus::Failed { .. } if report.kind == Some(wf_vm::FailureKind::Internal) => {
            EXIT_TROUBLE
        }
        RunStatus::Failed { .. } => EXIT_FINDINGS,
        RunStatus::Running | RunStatus::Yielded => EXIT_TROUBLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_values_are_json_or_strings() {
        assert_eq!(parse_set("n=3").unwrap(), ("n".into(), json!(3)));
        assert_eq!(parse_set("s=Ada").unwrap(), ("s".into(), json!("Ada")));
        assert_eq!(parse_set("l=[1,2]").unwrap(), ("l".into(), json!([1, 2])));
        assert_eq!(parse_set("q=\"3\"").unwrap(), ("q".into(), json!("3")));
        assert_eq!(parse_set("e=").unwrap(), ("e".into(), json!("")));
        assert_eq!(parse_set("a=b=c").unwrap(), ("a".into(), json!("b=c")));
        assert!(parse_set("novalue").is_err());
        assert!(parse_set("=1").is_err());
    }

    /// Issue 15.5: a failed run exits 1, but 2 when the engine failed
    /// itself (kind `internal`), as the CLI's other internal errors do.
    #[test]
    fn an_internal_failure_exits_2_and_others_1() {
        use wf_vm::FailureKind;
        let failed: Report = serde_json::from_value(json!({
            "status": "failed", "reason": "r", "steps": 1, "elapsed_ms": 0,
            "blackboard": {}, "failures": []
        }))
        .unwrap();
        for kind in FailureKind::ALL {
            let report = Report {
                kind: Some(kind),
                ..failed.clone()
            };
            let want = if kind == FailureKind::Internal {
                EXIT_TROUBLE
            } else {
                EXIT_FINDINGS
            };
            assert_eq!(exit_status(&report), want, "{kind}");
        }
        let completed = Report {
            status: RunStatus::Completed,
            kind: None,
            ..failed
        };
        assert_eq!(exit_status(&completed), EXIT_CLEAN);
    }
}
