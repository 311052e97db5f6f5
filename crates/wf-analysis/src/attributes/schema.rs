//! The schema of engine attributes: every workflow, node and edge attribute
//! the runtime understands, with its type, range and where it applies.
//!
//! `docs/attributes.md` is the human-readable form of these tables; keep
//! the two in step. Attributes not listed here form the opaque spec and are
//! never checked.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use wf_model::NodeKind;

/// A closed set of words an attribute accepts, written bare or quoted.
#[derive(Debug)]
pub struct EnumSpec {
    /// What one member is called in messages ("fidelity mode").
    pub what: &'static str,
    /// The members, in documentation order.
    pub values: &'static [&'static str],
}

/// Context fidelity modes (Attractor 5.4).
pub static FIDELITY: EnumSpec = EnumSpec {
    what: "fidelity mode",
    values: &[
        "full",
        "truncate",
        "compact",
        "summary:low",
        "summary:medium",
        "summary:high",
    ],
};

/// How many options a `human` node's question takes (docs/language.md,
/// "Questions").
pub static HUMAN_CHOICES: EnumSpec = EnumSpec {
    what: "choice mode",
    values: &["one", "multiple"],
};

/// Retry back-off presets (Attractor 3.6).
pub static BACKOFF_PRESETS: EnumSpec = EnumSpec {
    what: "backoff preset",
    values: &["none", "standard", "aggressive", "linear", "patient"],
};

/// LLM reasoning effort (Attractor 2.6).
pub static REASONING_EFFORT: EnumSpec = EnumSpec {
    what: "reasoning effort",
    values: &["low", "medium", "high"],
};

/// When a fan-out counts as done (Attractor 4.8).
pub static JOIN_POLICY: EnumSpec = EnumSpec {
    what: "join policy",
    values: &["wait_all", "k_of_n", "first_success", "quorum"],
};

/// What a fan-out does when a branch fails (Attractor 4.8).
pub static ERROR_POLICY: EnumSpec = EnumSpec {
    what: "error policy",
    values: &["fail_fast", "continue", "ignore"],
};

/// How a fan-in merges keys written by several branches (audit seed 2.7).
pub static MERGE: EnumSpec = EnumSpec {
    what: "merge strategy",
    values: &["last_wins", "first_wins", "collect", "merge_dict", "fail"],
};

/// How often a node's effect may happen (issue 17.3): `at_most_once` is
/// never run again after a crash without the user's say.
pub static EFFECT: EnumSpec = EnumSpec {
    what: "kind of effect",
    values: &["at_most_once"],
};

/// The settings of a custom `backoff = { … }` map (Attractor 3.6's
/// `BackoffConfig`, with durations instead of milliseconds).
pub static BACKOFF_FIELDS: &[(&str, Ty)] = &[
    ("initial_delay", Ty::Duration),
    ("factor", Ty::Number { min: 1.0 }),
    ("max_delay", Ty::Duration),
    ("jitter", Ty::Bool),
];

/// The type (and range) of an engine attribute.
#[derive(Debug, Clone, Copy)]
pub enum Ty {
    /// A string.
    String,
    /// A string or a list of strings.
    StringOrList,
    /// `true` or `false`.
    Bool,
    /// An integer of at least `min`.
    Int {
        /// The smallest allowed value.
        min: i64,
    },
    /// An integer or float of at least `min`.
    Number {
        /// The smallest allowed value.
        min: f64,
    },
    /// A duration longer than zero.
    Duration,
    /// One member of an enumeration.
    Enum(&'static EnumSpec),
    /// The name of a node of the same workflow.
    NodeRef,
    /// A [`BACKOFF_PRESETS`] member or a map of [`BACKOFF_FIELDS`].
    Backoff,
    /// A `human` node's default choice: a string naming an outgoing edge.
    Choice,
    /// A string holding a model stylesheet (checked by `stylesheet`).
    Stylesheet,
}

impl Ty {
    /// The expected type, for messages ("a duration").
    pub fn expected(self) -> String {
        match self {
            Ty::String => "a string".into(),
            Ty::StringOrList => "a string or a list of strings".into(),
            Ty::Bool => "a boolean".into(),
            // Said as a person would: no 64-bit bound for "any".
            Ty::Int { min: i64::MIN } => "a whole number".into(),
            Ty::Int { min } => format!("a whole number of at least {min}"),
            Ty::Number { min } => format!("a number of at least {min}"),
            Ty::Duration => "a duration".into(),
            Ty::Enum(spec) => format!("a {}", spec.what),
            Ty::NodeRef => "a node name".into(),
            Ty::Backoff => "a backoff preset or a map of backoff settings".into(),
            Ty::Choice => "the label of a choice".into(),
            Ty::Stylesheet => "a stylesheet string".into(),
        }
    }
}

/// Where an attribute is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A workflow body.
    Workflow,
    /// A node body.
    Node,
    /// An edge's attribute block.
    Edge,
}

/// One engine attribute.
#[derive(Debug)]
pub struct AttrSpec {
    /// The key.
    pub key: &'static str,
    /// Where it is written.
    pub place: Place,
    /// Its type.
    pub ty: Ty,
    /// For nodes: the kinds on which it means something (`None`: all).
    pub kinds: Option<&'static [NodeKind]>,
    /// For a second spelling (Attractor's `max_retries`): the main key.
    pub alias_of: Option<&'static str>,
    /// What it does, in a few words (for hovers and completion).
    pub summary: &'static str,
}

const fn attr(key: &'static str, place: Place, ty: Ty, summary: &'static str) -> AttrSpec {
    AttrSpec {
        key,
        place,
        ty,
        kinds: None,
        alias_of: None,
        summary,
    }
}

const fn on(
    kinds: &'static [NodeKind],
    key: &'static str,
    ty: Ty,
    summary: &'static str,
) -> AttrSpec {
    AttrSpec {
        key,
        place: Place::Node,
        ty,
        kinds: Some(kinds),
        alias_of: None,
        summary,
    }
}

const fn alias(
    key: &'static str,
    of: &'static str,
    place: Place,
    ty: Ty,
    summary: &'static str,
) -> AttrSpec {
    AttrSpec {
        key,
        place,
        ty,
        kinds: None,
        alias_of: Some(of),
        summary,
    }
}

/// Every engine attribute ([`lookup`] indexes it by key).
#[rustfmt::skip]
pub static SCHEMA: &[AttrSpec] = {
    use NodeKind::{Human, Join, Parallel, Step, Tool};
    use Place::{Edge, Node, Workflow};
    &[
    // Workflow attributes.
    attr("goal", Workflow, Ty::String, "what the workflow achieves"),
    attr("label", Workflow, Ty::String, "the display name"),
    attr("entry", Workflow, Ty::NodeRef, "the entry node"),
    attr("max_steps", Workflow, Ty::Int { min: 1 }, "the step budget of a run"),
    attr("max_visits", Workflow, Ty::Int { min: 1 }, "how often one node may run in a run"),
    attr("max_depth", Workflow, Ty::Int { min: 1 }, "the deepest call stack a run may build"),
    attr("wall_clock", Workflow, Ty::Duration, "the wall-clock limit of a run"),
    attr("default_timeout", Workflow, Ty::Duration, "the timeout of nodes that set none"),
    attr("default_retries", Workflow, Ty::Int { min: 0 }, "the retries of nodes that set none"),
    alias("default_max_retry", "default_retries", Workflow, Ty::Int { min: 0 }, "the retries of nodes that set none"),
    attr("default_fidelity", Workflow, Ty::Enum(&FIDELITY), "the fidelity of nodes that set none"),
    attr("retry_target", Workflow, Ty::NodeRef, "where to jump when a goal gate is unsatisfied at a terminal"),
    attr("fallback_retry_target", Workflow, Ty::NodeRef, "where to jump when `retry_target` is not set"),
    attr("model_stylesheet", Workflow, Ty::Stylesheet, "per-node model defaults"),
    attr("max_cost_usd", Workflow, Ty::Number { min: 0.0 }, "the model spending budget of a run, in US dollars"),
    attr("max_tokens", Workflow, Ty::Int { min: 1 }, "the model token budget of a run (input plus output)"),
    // Node attributes, every kind.
    attr("label", Node, Ty::String, "the display name"),
    attr("timeout", Node, Ty::Duration, "the longest the node may run"),
    attr("retries", Node, Ty::Int { min: 0 }, "extra attempts after the first"),
    alias("max_retries", "retries", Node, Ty::Int { min: 0 }, "extra attempts after the first"),
    attr("backoff", Node, Ty::Backoff, "the delay between attempts"),
    attr("allow_partial", Node, Ty::Bool, "whether exhausted retries count as `partial_success`"),
    attr("auto_status", Node, Ty::Bool, "whether a node that reports no status succeeds"),
    attr("goal_gate", Node, Ty::Bool, "whether the node must succeed before the workflow completes"),
    attr("retry_target", Node, Ty::NodeRef, "where to jump when the node fails for good"),
    attr("fallback_retry_target", Node, Ty::NodeRef, "where to jump when `retry_target` is not set"),
    attr("fidelity", Node, Ty::Enum(&FIDELITY), "how much context the node's LLM session carries"),
    attr("thread_id", Node, Ty::String, "the LLM session the node reuses"),
    attr("class", Node, Ty::StringOrList, "stylesheet classes"),
    attr("prompt", Node, Ty::String, "the instruction for the agent"),
    attr("model", Node, Ty::String, "the LLM model"),
    alias("llm_model", "model", Node, Ty::String, "the LLM model"),
    attr("provider", Node, Ty::String, "the LLM provider"),
    alias("llm_provider", "provider", Node, Ty::String, "the LLM provider"),
    attr("reasoning_effort", Node, Ty::Enum(&REASONING_EFFORT), "the LLM's reasoning depth"),
    attr("max_visits", Node, Ty::Int { min: 1 }, "how often this node may run in a run"),
    // Node attributes of some kinds only.
    on(&[Tool], "command", Ty::String, "the command a `tool` node runs"),
    on(&[Human], "default", Ty::Choice, "the choice taken when nobody answers in time"),
    on(&[Human], "freeform", Ty::Bool, "whether the person answers in free text, written to the node's one declared key"),
    on(&[Human], "choices", Ty::Enum(&HUMAN_CHOICES), "`multiple`: the person picks one or more of `options`, written to the node's one declared key"),
    on(&[Human], "options", Ty::StringOrList, "the options of a `choices = multiple` question"),
    on(&[Parallel, Join], "join_policy", Ty::Enum(&JOIN_POLICY), "when a fan-out counts as done"),
    on(&[Parallel], "error_policy", Ty::Enum(&ERROR_POLICY), "what a fan-out does when a branch fails"),
    on(&[Parallel], "max_parallel", Ty::Int { min: 1 }, "how many branches run at once"),
    on(&[Join], "merge", Ty::Enum(&MERGE), "how a fan-in merges the branches' writes"),
    on(&[Tool, Step], "idempotence_key", Ty::String, "the key under which the node's completed effect is reused"),
    on(&[Tool, Step], "effect", Ty::Enum(&EFFECT), "how often the node's effect may happen (`at_most_once`)"),
    on(&[Tool, Step], "compensate", Ty::NodeRef, "the `tool` node that undoes this node's effect when the run fails"),
    // Edge attributes.
    attr("label", Edge, Ty::String, "the choice text and routing key"),
    attr("weight", Edge, Ty::Int { min: i64::MIN }, "the edge's priority (higher wins)"),
    attr("fidelity", Edge, Ty::Enum(&FIDELITY), "the target node's fidelity, from this edge"),
    attr("thread_id", Edge, Ty::String, "the target node's LLM session, from this edge"),
    attr("loop_restart", Edge, Ty::Bool, "whether taking the edge restarts the run"),
    ]
};

/// The engine attribute `key` written at `place`, if there is one.
pub fn lookup(place: Place, key: &str) -> Option<&'static AttrSpec> {
    // Every attribute of every node is looked up (twice): a hash of the
    // keys instead of a scan of the table, which was a visible part of
    // checking attribute-heavy pipelines.
    static BY_KEY: OnceLock<FxHashMap<&'static str, Vec<&'static AttrSpec>>> = OnceLock::new();
    let by_key = BY_KEY.get_or_init(|| {
        let mut map: FxHashMap<&'static str, Vec<&'static AttrSpec>> = FxHashMap::default();
        for spec in SCHEMA {
            map.entry(spec.key).or_default().push(spec);
        }
        map
    });
    by_key.get(key)?.iter().copied().find(|s| s.place == place)
}

/// Whether `spec` means something on a node of `kind`.
pub fn applies_to(spec: &AttrSpec, kind: NodeKind) -> bool {
    spec.kinds.is_none_or(|kinds| kinds.contains(&kind))
}

/// The kinds `spec` is meant for, for messages ("`tool`", "`parallel` or `join`").
pub fn kinds_text(spec: &AttrSpec) -> String {
    let kinds = spec.kinds.unwrap_or_default();
    let names: Vec<String> = kinds.iter().map(|k| format!("`{}`", k.as_str())).collect();
    names.join(" or ")
}
