//! `wfc run` on Attractor pipelines (`.dot`): the handler adapter as the
//! agent, the graph attributes mirrored into the context, the run
//! directory's `manifest.json`, `checkpoint.json` and per-node files, and
//! the tool runner that adds `tool.output` (docs/attractor.md, "Running
//! pipelines").

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::Value;
use wf_ir::{IrProgram, WorkflowIdx};
use wf_vm::attractor::custom::SharedAgent;
use wf_vm::attractor::nested::SharedTools;
use wf_vm::attractor::{AttractorAgent, CheckpointWriter, RunFiles};
use wf_vm::{
    DecisionAgent, Engine, Event, EventSink, ProcessToolRunner, Report, RunDir, RunStatus,
    ToolRunner,
};

use super::agent::{self, AgentOptions, AgentSpec};

/// Whether workflow `root` of `program` is an Attractor pipeline.
pub fn is_pipeline(program: &IrProgram, root: WorkflowIdx) -> bool {
    wf_vm::attractor::is_attractor(&program.workflows[root.0 as usize])
}

/// The context a new run starts with: the graph attributes (`graph.goal`,
/// …), written into the root frame before the run starts.
pub fn seed(engine: &mut Engine<'_>, program: &IrProgram, root: WorkflowIdx) -> Result<(), String> {
    for (key, value) in
        wf_vm::attractor::graph_context(program, &program.workflows[root.0 as usize])
    {
        engine
            .set_input(&key, value)
            .map_err(|e| format!("error: cannot set the graph attribute `{key}`: {e}"))?;
    }
    Ok(())
}

/// The agent of a pipeline run: the handler adapter, with the agent the
/// user named as the backend (`auto`: none, the responses are simulated);
/// `resumed`: the run directory of a resumed run.
pub fn agent(
    spec: &AgentSpec,
    options: &AgentOptions,
    files: Option<RunFiles>,
    resumed: Option<&wf_vm::RunDir>,
    human: Humans<'_>,
) -> Result<Box<dyn DecisionAgent>, String> {
    let backend = match (spec, resumed) {
        (AgentSpec::Auto, _) => None,
        // A resumed script goes on after the answers its log took, as for
        // `.wf` (docs/agents.md, "Resumed scripts").
        (AgentSpec::Script(file), Some(dir)) => {
            Some(super::script_resume::resumed_script(file, dir)?)
        }
        (other, _) => Some(agent::build(
            other,
            &AgentOptions {
                timeout: options.timeout,
                step_delay: None,
                llm: options.llm.clone(),
            },
        )?),
    };
    let mut adapter = AttractorAgent::new(backend, files);
    if resumed.is_some() {
        adapter = adapter.resumed();
    }
    // R2: interviewer install
    install_r2(&mut adapter, spec, human)?;
    Ok(agent::with_delay(Box::new(adapter), options.step_delay))
}

/// What the human gates and child pipelines of a run need from the
/// command line (R2).
pub struct Humans<'a> {
    /// `--interviewer`.
    pub interviewer: Option<&'a str>,
    /// The pipeline file (child pipelines are relative to its directory).
    pub source: Option<&'a str>,
    /// The run's tool runner, shared with parallel branches and child
    /// pipelines (`None`: tools are not allowed).
    pub tools: Option<SharedTools>,
    /// `--handler TYPE=exec:COMMAND`: custom handler types and their agents.
    pub custom: Vec<(String, SharedAgent)>,
    /// The answers `wfc answer` recorded for the gates (on resume).
    pub answers: Vec<wf_vm::question::AnswerRecord>,
    /// Where the gates of parallel branches leave the questions they wait
    /// on (a durable run).
    pub waiting: Option<wf_vm::question::WaitingQuestions>,
}

/// The agents of `--handler TYPE=exec:COMMAND`, one process per type.
pub fn custom_handlers(
    items: &[String],
    options: &AgentOptions,
) -> Result<Vec<(String, SharedAgent)>, String> {
    let mut out: Vec<(String, SharedAgent)> = Vec::new();
    for item in items {
        let bad = |why: &str| {
            format!(
                "error: --handler `{item}`: {why}\n  help: write --handler TYPE=exec:COMMAND, e.g. --handler my.lint=exec:./lint-handler"
            )
        };
        let Some((ty, agent)) = item.split_once('=') else {
            return Err(bad("expected TYPE=exec:COMMAND"));
        };
        let ty = ty.trim();
        if ty.is_empty() {
            return Err(bad("the handler type is empty"));
        }
        if wf_vm::attractor::BUILT_IN_TYPES.contains(&ty) {
            return Err(bad(&format!(
                "`{ty}` is a built-in handler type (the LLM stage's backend is `--agent`)"
            )));
        }
        if out.iter().any(|(t, _)| t == ty) {
            return Err(bad(&format!("`{ty}` is given twice")));
        }
        let spec = match agent.parse::<AgentSpec>() {
            Ok(spec @ AgentSpec::Exec(_)) => spec,
            Ok(_) => return Err(bad("the handler must be an `exec:COMMAND` process")),
            Err(e) => return Err(bad(&e)),
        };
        let built = agent::build(
            &spec,
            &AgentOptions {
                timeout: options.timeout,
                step_delay: None,
                llm: None,
            },
        )?;
        out.push((ty.to_string(), Rc::new(RefCell::new(built))));
    }
    Ok(out)
}

/// Installs the `wait.human`, `parallel`, `parallel.fan_in` and
/// `stack.manager_loop` handlers with the interviewer `--interviewer`
/// names (default: `console` with `--agent console`, else `auto`) and a
/// child-pipeline loader that checks and compiles like `wfc run` does.
fn install_r2(
    adapter: &mut AttractorAgent<'_>,
    spec: &AgentSpec,
    human: Humans<'_>,
) -> Result<(), String> {
    let name = human.interviewer.unwrap_or(match spec {
        AgentSpec::Console => "console",
        _ => "auto",
    });
    let mut interviewer = wf_vm::attractor::interviewer::from_spec(name)?;
    if !human.answers.is_empty() {
        interviewer = Box::new(wf_vm::question::AnsweringInterviewer::new(
            interviewer,
            human.answers,
        ));
    }
    let loader: wf_vm::attractor::parallel::ChildLoader = Rc::new(|path: &Path| {
        super::load::load(path)
            .map(|l| l.program)
            .map_err(|e| e.0.trim_start_matches("error: ").to_owned())
    });
    wf_vm::attractor::parallel::install(
        adapter.registry_mut(),
        wf_vm::attractor::parallel::Kit {
            interviewer: Some(wf_vm::attractor::human::shared(interviewer)),
            loader: Some(loader),
            base_dir: human
                .source
                .and_then(|s| Path::new(s).parent())
                .map(Path::to_path_buf),
            // The root `wfc run` checked the pipeline with (see
            // `inputs::load_database`): child pipelines may not leave it.
            root: human.source.map(|s| {
                let cwd = std::env::current_dir()
                    .and_then(|d| d.canonicalize())
                    .unwrap_or_default();
                wf_analysis::imports::common_root([cwd.join(s).as_path(), cwd.join("-").as_path()])
            }),
            depth: 0,
            tools: human.tools,
            custom: human.custom,
            scope: String::new(),
            waiting: human.waiting,
            // The root pipeline's fan-outs journal in the run directory.
            journal: None,
        },
    );
    Ok(())
}

/// The process runner of a pipeline run with `--allow-tools`, shared by
/// the pipeline, its parallel branches and its child pipelines.
pub fn shared_tools(output_limit: usize) -> SharedTools {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    // `tool_hooks.pre` / `post` run around each command (seed 9.7).
    Rc::new(RefCell::new(wf_vm::attractor::hooks::HookedTools::new(
        ProcessToolRunner::new(cwd.clone()).with_max_output_bytes(output_limit),
        cwd,
    )))
}

/// The runner of `--tools simulate`: no command runs, each tool node
/// succeeds with placeholder outputs.
pub fn simulated_tools() -> SharedTools {
    Rc::new(RefCell::new(wf_vm::SimulatedToolRunner::new()))
}

/// The tool runner of a pipeline run: refuses every tool without `tools`
/// (no `--allow-tools`), and adds `tool.output` and `status.json`.
pub fn tool_runner(tools: Option<&SharedTools>, files: Option<RunFiles>) -> Box<dyn ToolRunner> {
    wf_vm::attractor::nested::tool_runner(tools, files)
}

/// Writes `manifest.json` for a new run.
pub fn manifest(
    files: &RunFiles,
    program: &IrProgram,
    root: WorkflowIdx,
    source: &Path,
) -> Result<(), String> {
    let w = &program.workflows[root.0 as usize];
    let goal = w.goal.map_or("", |g| program.str(g));
    files
        .write_manifest(
            program.str(w.name),
            goal,
            Some(&source.display().to_string()),
        )
        .map_err(|e| {
            format!(
                "error: cannot write `manifest.json` in `{}`: {e}",
                files.root().display()
            )
        })
}

/// The checkpoint writer, shared so the CLI can report a write error
/// after the run.
#[derive(Clone)]
pub struct Checkpoints(Rc<RefCell<CheckpointWriter>>);

impl Checkpoints {
    /// For a run whose context starts as `context` (the graph
    /// attributes): a new one, or a resumed one (`resumed`), whose
    /// checkpoint is derived again from the run's log.
    pub fn new(
        files: RunFiles,
        context: &[(String, Value)],
        resumed: Option<&RunDir>,
    ) -> Result<Self, String> {
        let w = match resumed {
            None => CheckpointWriter::new(files, context),
            Some(dir) => CheckpointWriter::from_log(files, context, dir)
                .map_err(|e| format!("error: cannot resume: {e}"))?,
        };
        Ok(Checkpoints(Rc::new(RefCell::new(w))))
    }

    /// The first error writing `checkpoint.json`, if any.
    pub fn error(&self) -> Option<String> {
        self.0.borrow().error.clone()
    }
}

impl EventSink for Checkpoints {
    fn emit(&mut self, event: &Event<'_>) {
        self.0.borrow_mut().emit(event);
    }
}

/// The node a completed run stopped at when it is a dead end: not an exit,
/// with no outgoing edge (WF0820). Engines end the run there (seed 3.2,
/// step 6); the CLI says so rather than let "completed" suggest the exit
/// was reached.
pub fn dead_end(program: &IrProgram, report: &Report) -> Option<String> {
    if !matches!(report.status, RunStatus::Completed) {
        return None;
    }
    let at = report.at.as_ref()?;
    let w = program.workflow_by_name(&at.workflow)?;
    let wf = &program.workflows[w.0 as usize];
    let node = wf.nodes.iter().find(|n| program.str(n.id) == at.node)?;
    (node.op != wf_ir::Opcode::Exit && node.edges.len == 0).then(|| at.node.clone())
}
