//! `wf-vm`: the engine that runs compiled workflows.
//!
//! It executes a verified [`wf_ir::IrProgram`] with the Reflex semantics: a
//! call stack of frames with scoped, append-only blackboards, guards
//! evaluated from bytecode, and a [`agent::DecisionAgent`] consulted at every
//! node that is not a `call` being entered. `docs/runtime.md` is the
//! reference for the semantics, events, limits and the run directory.
//!
//! It links no front end: only `wf-ir` (the IR types and the verifying
//! loader) and the two rules it shares with the checker (`wf-shell`,
//! `wf-paths`). `examples/run_ir.rs` runs an IR file with a custom agent.
//!
//! # Running a workflow
//!
//! ```no_run
//! use wf_vm::{Engine, EngineConfig, JsonLinesSink, RunDir, agents::AutoAgent};
//! # fn demo(program: &wf_ir::IrProgram) -> Result<(), Box<dyn std::error::Error>> {
//! let wf = program.workflow_by_name("Release").ok_or("no such workflow")?;
//! let mut engine = Engine::new(program, wf, EngineConfig::default())?;
//! engine.set_input("ticket", serde_json::json!("T-1"))?;          // --set
//! engine.set_event_sink(Box::new(JsonLinesSink::new(std::io::stdout())));
//! engine.persist_to(RunDir::create("run", program, &serde_json::json!({}))?)?;
//! let report = engine.run(&mut AutoAgent::new());
//! println!("{}", serde_json::to_string_pretty(&report)?);
//! # Ok(()) }
//! ```
//!
//! Resuming a suspended or killed run:
//!
//! ```no_run
//! # use wf_vm::{Engine, EngineConfig, RunDir, agents::AutoAgent};
//! # fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = RunDir::open("run")?;
//! let program = dir.program()?;            // loaded and verified
//! let mut engine = Engine::resume(&program, dir, EngineConfig::default())?;
//! let report = engine.run(&mut AutoAgent::new());
//! # Ok(()) }
//! ```
//!
//! Verifying a run from its log (`wfc replay`: no agent, no tool, nothing
//! written):
//!
//! ```no_run
//! # use wf_vm::{Engine, RunDir};
//! # fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = RunDir::open_read_only("run")?;
//! let program = dir.program()?;
//! let replay = Engine::replay(&program, &dir)?;
//! if let Some(d) = &replay.divergence {
//!     // `step` is the log's index, from 0; people count from 1.
//!     println!("step {}: {}", d.step + 1, d.what);
//! }
//! # Ok(()) }
//! ```
//!
//! A run directory is one [`RunStore`]: `persist_to`, `resume`, `inspect`
//! and `replay` take any (a [`MemoryStore`], or a store of the embedder's
//! own, e.g. a database).
//!
//! [`Engine::run`] runs to completion, suspension or failure;
//! [`Engine::run_for`] runs a step budget and returns
//! [`RunStatus::Yielded`] when the run could go on; [`Engine::step`] runs one
//! step. The [`Report`] has the status, steps, time, the root frame's final
//! blackboard and the failure trace.

pub mod agent;
pub mod agents;
pub mod attractor;
mod blackboard;
pub mod bound;
pub mod config;
pub mod contract;
pub mod effects;
mod engine;
pub mod event;
pub mod failure;
mod guard;
pub mod interrupt;
pub mod persist;
pub mod question;
pub mod report;
pub mod required;
mod select;
pub mod stamp;
mod store;
pub mod template;
pub mod tools;

pub use agent::{
    AgentError, BlackboardView, Decision, DecisionAgent, DecisionContext, HandlerEvent, Outcome,
    Status, ToolRunner, Write,
};
pub use blackboard::{Blackboard, EntryRef, Source};
pub use config::{EngineConfig, RunLimits, SizeLimits};
pub use engine::{
    Divergence, Engine, EngineError, EntrySnapshot, ForkError, FrameSnapshot, GateSnapshot,
    LimitsSnapshot, Origin, Replay, SNAPSHOT_FORMAT, Snapshot, StepInput, VisitSnapshot,
};
pub use event::{CollectSink, Event, EventSink, JsonLinesSink};
pub use failure::{FailureKind, RunFailure};
pub use persist::{LogRecord, PersistError, RunDir};
pub use report::{Entries, FailureRecord, Report, RunStatus};
pub use select::normalize_label;
pub use store::{Lease, MemoryStore, QuestionRecord, RunStore, StorePart};
pub use tools::{ProcessToolRunner, SimulatedToolRunner};
