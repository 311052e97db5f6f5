//! Three typo checks no Attractor validator has: an `outcome` compared with
//! a near miss of a status (WF0805), a `context.*` key used in one
//! condition next to a near-identical key used elsewhere (WF0806), and a
//! key that is a near miss of one the engine writes (WF0808).
//!
//! Both are tuned to stay silent on correct pipelines (checked over the
//! whole corpus, see `docs/attractor.md`): custom outcomes far from any
//! status are allowed, and so is a value or key the pipeline's own prompts
//! mention, because a prompt telling the model to write `outcome=failed`
//! declares that outcome.

use std::collections::BTreeMap;

use wf_diagnostics::{Applicability, Diagnostic, FileSpan, Fix, codes};
use wf_model::{BinOp, Expr, Value, Workflow};

/// The statuses of spec section 5.2, as conditions see them.
pub(super) const STATUSES: &[&str] = &["success", "partial_success", "retry", "fail", "skipped"];
/// Status spellings of peer engines (fabro writes `succeeded` and `failed`),
/// which the runtime reads as `success` and `fail` in `outcome=V`
/// ([`wf_ir::PEER_STATUSES`], the one list both use).
pub(super) fn peer_statuses() -> impl Iterator<Item = &'static str> {
    wf_ir::PEER_STATUSES.iter().map(|(peer, _)| *peer)
}

/// The keys the engine itself writes into the context (`docs/attractor.md`,
/// "Context"), besides `graph.*`, one per graph attribute.
const ENGINE_KEYS: &[&str] = &[
    "outcome",
    "preferred_label",
    "last_stage",
    "last_response",
    "tool.output",
    "current_node",
    "graph.goal",
    "graph.label",
    "parallel.results",
    "parallel.success_count",
    "parallel.failure_count",
    "parallel.fan_in.best_id",
    "parallel.fan_in.best_outcome",
    "human.gate.selected",
    "human.gate.label",
    "stack.child.status",
    "stack.child.outcome",
    "stack.child.current_node",
    "stack.child.steps",
    "stack.child.cycles",
];

/// Every typo diagnostic of `workflow`'s conditions.
pub fn check(workflow: &Workflow) -> Vec<Diagnostic> {
    let mut outcomes = Vec::new();
    // Per normalized key: the conditions (edge indices) using it, and where.
    let mut keys: BTreeMap<String, Vec<(usize, FileSpan, String)>> = BTreeMap::new();
    for (i, edge) in workflow.edges.iter().enumerate() {
        if let Some(guard) = &edge.guard {
            walk(&guard.expr, &mut |e| match e {
                Expr::Binary(lhs, BinOp::Eq | BinOp::Ne, rhs, _) => {
                    if let (Expr::Name(n, _), Expr::Literal(Value::String(v), at)) =
                        (&**lhs, &**rhs)
                        && n == "outcome"
                    {
                        outcomes.push((v.clone(), *at));
                    }
                }
                Expr::Key(k, at) => {
                    let bare = k.strip_prefix("context.").unwrap_or(k).to_string();
                    keys.entry(bare).or_default().push((i, *at, k.clone()));
                }
                _ => {}
            });
        }
    }
    if outcomes.is_empty() && keys.is_empty() {
        return Vec::new();
    }
    let prose = Prose::of(workflow);
    let mut out = Vec::new();
    engine_key_typos(workflow, &mut keys, &prose, &mut out);
    for (value, at) in outcomes {
        if let Some(d) = outcome_typo(&value, at, &prose) {
            out.push(d);
        }
    }
    key_typos(&keys, &prose, &mut out);
    out
}

fn walk<'e>(expr: &'e Expr, f: &mut impl FnMut(&'e Expr)) {
    f(expr);
    match expr {
        Expr::Binary(l, _, r, _) => {
            walk(l, f);
            walk(r, f);
        }
        Expr::Not(e, _) => walk(e, f),
        Expr::List(items, _) => items.iter().for_each(|e| walk(e, f)),
        _ => {}
    }
}

/// The free text of a pipeline (string attributes and labels of nodes and
/// of the graph), where prompts declare custom outcomes and context keys.
/// Borrowed piece by piece: most pipelines never ask, and joining the
/// prompts into one string copied most of the file.
struct Prose<'w>(Vec<&'w str>);

impl<'w> Prose<'w> {
    fn of(workflow: &'w Workflow) -> Prose<'w> {
        let attrs = workflow
            .attributes
            .iter()
            .chain(workflow.nodes.iter().flat_map(|n| &n.attributes));
        let strings = attrs.filter_map(|a| match &a.value {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        });
        let labels = workflow.nodes.iter().filter_map(|n| n.label.as_deref());
        Prose(strings.chain(labels).collect())
    }

    /// Whether `word` occurs as a whole word (not inside a longer name) in
    /// one of the texts.
    fn mentions(&self, word: &str) -> bool {
        let is_name = |c: char| c.is_alphanumeric() || c == '_';
        self.0.iter().any(|text| {
            text.match_indices(word).any(|(i, _)| {
                let before = text[..i].chars().next_back();
                let after = text[i + word.len()..].chars().next();
                !before.is_some_and(is_name) && !after.is_some_and(is_name)
            })
        })
    }
}

/// WF0805 when `value` is not a status but a near miss of one: equal but
/// for case, or at most two edits away (one for short values).
fn outcome_typo(value: &str, at: FileSpan, prose: &Prose<'_>) -> Option<Diagnostic> {
    if STATUSES.contains(&value) || wf_ir::peer_status(value).is_some() {
        return None;
    }
    let lower = value.to_lowercase();
    let (status, _) = STATUSES
        .iter()
        .copied()
        .chain(peer_statuses())
        .map(|s| (s, strsim::osa_distance(&lower, s)))
        .filter(|(s, d)| *d <= if s.len() < 6 { 1 } else { 2 })
        .min_by_key(|(_, d)| *d)?;
    if prose.mentions(value) {
        return None;
    }
    let d = Diagnostic::new(
        &codes::ATTRACTOR_OUTCOME_TYPO,
        format!("`{value}` is not an outcome status; did you mean `{status}`?"),
        at,
    )
    .with_primary_label("`outcome` is never this, so the condition never holds")
    .with_note(format!("the statuses are {}", STATUSES.join(", ")))
    .with_help(format!("write `outcome={status}`"));
    Some(with_fix(d, at, value, status))
}

/// WF0808 for each key that is not one the engine writes but a near miss
/// of one; such keys are removed from `keys`, so that WF0806 does not
/// report them again.
fn engine_key_typos(
    workflow: &Workflow,
    keys: &mut BTreeMap<String, Vec<(usize, FileSpan, String)>>,
    prose: &Prose<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let graph_keys: Vec<String> = workflow
        .attributes
        .iter()
        .map(|a| format!("graph.{}", a.key))
        .collect();
    let engine = || {
        ENGINE_KEYS
            .iter()
            .copied()
            .chain(graph_keys.iter().map(String::as_str))
    };
    let mut reported = Vec::new();
    for (key, uses) in keys.iter() {
        let lower = key.to_lowercase();
        if engine().any(|k| k == key) || prose.mentions(key) {
            continue;
        }
        let Some(meant) = engine()
            .filter(|k| near(&lower, k) || lower == *k)
            .min_by_key(|k| strsim::osa_distance(&lower, k))
        else {
            continue;
        };
        for (_, at, written) in uses {
            // `outcome` and `preferred_label` are never `context.` keys.
            let by = match written.strip_suffix(key.as_str()) {
                Some(prefix) if !matches!(meant, "outcome" | "preferred_label") => {
                    format!("{prefix}{meant}")
                }
                _ => meant.to_string(),
            };
            let d = Diagnostic::new(
                &codes::ATTRACTOR_ENGINE_KEY_TYPO,
                format!("`{written}` is not a key the engine writes; did you mean `{by}`?"),
                *at,
            )
            .with_primary_label("nothing writes this key, so it is always empty")
            .with_note(format!("the engine writes `{meant}`"))
            .with_help(format!("write `{by}`"));
            out.push(with_fix(d, *at, written, &by));
        }
        reported.push(key.clone());
    }
    for key in reported {
        keys.remove(&key);
    }
}

/// Adds the fix replacing `written` at `at` by `by`, when the span covers
/// exactly the text (no quotes or escapes around it in the source).
fn with_fix(d: Diagnostic, at: FileSpan, written: &str, by: &str) -> Diagnostic {
    if at.span.len() as usize != written.len() {
        return d;
    }
    d.with_fix(Fix::replace(
        format!("replace with `{by}`"),
        at,
        by,
        Applicability::MaybeIncorrect,
    ))
}

/// Above this many distinct keys in one pipeline's conditions the key
/// check does not run: it compares keys pairwise, and no real pipeline
/// comes near (the corpus's largest has a handful).
const MAX_KEYS: usize = 500;
/// Keys longer than this (in bytes) are never compared.
const MAX_KEY_LEN: usize = 200;

/// How far apart two keys may be to be one key misspelled: two edits,
/// one for keys under six characters (`mode` and `node` are not typos).
fn near(a: &str, b: &str) -> bool {
    let limit = if a.len().min(b.len()) < 6 { 1 } else { 2 };
    // Cheap rejections first: the distance is quadratic in the lengths.
    if a.len().abs_diff(b.len()) > limit || a.len() > MAX_KEY_LEN || b.len() > MAX_KEY_LEN {
        return false;
    }
    let digitless = |s: &str| {
        s.chars()
            .filter(|c| !c.is_ascii_digit())
            .collect::<String>()
    };
    strsim::osa_distance(a, b) <= limit && digitless(a) != digitless(b)
}

/// WF0806 for each key used in one condition while a near-identical key is
/// used in more (or is the one the prompts mention).
fn key_typos(
    keys: &BTreeMap<String, Vec<(usize, FileSpan, String)>>,
    prose: &Prose<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let conditions = |uses: &[(usize, FileSpan, String)]| {
        let mut edges: Vec<usize> = uses.iter().map(|u| u.0).collect();
        edges.dedup();
        edges.len()
    };
    if keys.len() > MAX_KEYS {
        return;
    }
    for (key, uses) in keys {
        if conditions(uses) != 1 {
            continue;
        }
        let mut near_keys = keys
            .iter()
            .filter(|(other, _)| *other != key && near(key, other))
            .peekable();
        if near_keys.peek().is_none() || prose.mentions(key) {
            continue;
        }
        let other = near_keys
            .find(|(other, other_uses)| conditions(other_uses) > 1 || prose.mentions(other));
        let Some((_, other_uses)) = other else {
            continue;
        };
        let (_, at, written) = &uses[0];
        let (_, other_at, other_written) = &other_uses[0];
        let d = Diagnostic::new(
            &codes::ATTRACTOR_CONTEXT_KEY_TYPO,
            format!("`{written}` is used only here; did you mean `{other_written}`?"),
            *at,
        )
        .with_primary_label("no other condition reads this key")
        .with_label(*other_at, format!("`{other_written}` is used here"))
        .with_help(format!("write `{other_written}`"));
        out.push(with_fix(d, *at, written, other_written));
    }
}
