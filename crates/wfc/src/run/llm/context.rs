//! Context fidelity (seed 5.4) for model calls: what a stage is told of
//! the run before its prompt.
//!
//! `full` continues one conversation per thread; every other mode starts a
//! fresh one whose single user message begins with a preamble built from
//! the run's history: the stages completed so far (from `checkpoint.json`
//! and each stage's `status.json` when the run has a directory, else the
//! stages this process called) and the context values. docs/llm.md
//! ("Fidelity") shows the exact text.

use std::collections::HashMap;

use serde_json::Value;
use wf_llm::{Role, Turn};
use wf_vm::DecisionContext;
use wf_vm::attractor::RunFiles;

/// A completed stage, as the preambles list it.
#[derive(Debug, Clone)]
pub struct Stage {
    /// The node id.
    pub node: String,
    /// Its outcome (`success`, `fail`, …).
    pub outcome: String,
    /// Its notes (the model's answer, a tool's output, a reason).
    pub notes: String,
}

/// How much of the run each mode tells, in characters (about 4 per
/// token: the seed's budgets of ~600, ~1500 and ~3000 tokens).
struct Detail {
    /// The most stages listed (the latest ones).
    stages: usize,
    /// The most characters of a stage's notes (0: none).
    notes: usize,
    /// The most context values listed.
    values: usize,
    /// The most characters of a value.
    value_chars: usize,
    /// The most characters of the whole preamble.
    budget: usize,
}

fn detail(mode: &str) -> Option<Detail> {
    let d = |stages, notes, values, value_chars, budget| {
        Some(Detail {
            stages,
            notes,
            values,
            value_chars,
            budget,
        })
    };
    match mode {
        "compact" => d(usize::MAX, 0, 50, 200, 8_000),
        "summary:low" => d(3, 0, 0, 0, 2_400),
        "summary:medium" => d(10, 200, 20, 200, 6_000),
        "summary:high" => d(30, 500, 100, 500, 12_000),
        _ => None,
    }
}

/// The characters of a conversation a `full` thread keeps (about 100k
/// tokens); older turns are dropped first, two at a time.
pub const THREAD_CHARS: usize = 400_000;

/// An estimate of the tokens of `text`: a quarter of its characters.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// The stages completed so far, oldest first: from the run directory's
/// checkpoint when there is one, else `called` (this process's calls).
pub fn history(files: Option<&RunFiles>, called: &[Stage]) -> Vec<Stage> {
    let Some(files) = files else {
        return called.to_vec();
    };
    let read = |path: std::path::PathBuf| -> Option<Value> {
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    };
    let Some(checkpoint) = read(files.root().join(wf_vm::attractor::CHECKPOINT_FILE)) else {
        return called.to_vec();
    };
    let nodes = checkpoint["completed_nodes"].as_array().cloned();
    nodes
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_str)
        .map(|node| {
            let status = read(files.stage_path(node).join("status.json")).unwrap_or_default();
            let text = |k: &str| status[k].as_str().unwrap_or_default().to_string();
            Stage {
                node: node.to_string(),
                outcome: match text("outcome") {
                    o if o.is_empty() => "success".into(),
                    o => o,
                },
                notes: text("notes"),
            }
        })
        .collect()
}

/// One line of text, cut at `n` characters.
fn line(text: &str, n: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= n {
        return flat;
    }
    let cut: String = flat.chars().take(n).collect();
    format!("{cut}…")
}

/// The preamble of a fresh conversation in `mode` (empty for `full`, which
/// carries the conversation itself), ending with a blank line.
pub fn preamble(
    mode: &str,
    ctx: &DecisionContext<'_>,
    run: Option<&str>,
    stages: &[Stage],
) -> String {
    let goal = ctx.workflow.goal.map_or("", |g| ctx.str(g));
    let mut out = format!("## Context (fidelity: {mode})\n\nGoal: {goal}\n");
    if mode == "truncate" {
        if let Some(run) = run {
            out.push_str(&format!("Run: {run}\n"));
        }
        out.push('\n');
        return out;
    }
    let Some(d) = detail(mode) else {
        return String::new();
    };
    let failed = stages.iter().filter(|s| s.outcome == "fail").count();
    out.push_str(&format!(
        "Stages completed: {} ({} failed)\n",
        stages.len(),
        failed
    ));
    let skip = stages.len().saturating_sub(d.stages);
    if !stages.is_empty() {
        out.push_str(if skip > 0 {
            "\nLatest stages:\n"
        } else {
            "\nStages:\n"
        });
    }
    for s in &stages[skip..] {
        out.push_str(&format!("- {}: {}", s.node, s.outcome));
        if d.notes > 0 && !s.notes.trim().is_empty() {
            out.push_str(&format!(" — {}", line(&s.notes, d.notes)));
        }
        out.push('\n');
    }
    let mut keys: Vec<&str> = ctx
        .blackboard
        .keys()
        .into_iter()
        .filter(|k| !k.starts_with("graph.") && !k.starts_with("internal."))
        .collect();
    keys.sort_unstable();
    if d.values > 0 && !keys.is_empty() {
        out.push_str("\nContext values:\n");
        for k in keys.iter().take(d.values) {
            let v = ctx.blackboard.get(k).cloned().unwrap_or(Value::Null);
            let v = match v {
                Value::String(s) => s,
                other => other.to_string(),
            };
            out.push_str(&format!("- {k}: {}\n", line(&v, d.value_chars)));
        }
    }
    if out.chars().count() > d.budget {
        out = out.chars().take(d.budget).collect();
        out.push_str("\n[context cut to its budget]\n");
    }
    out.push('\n');
    out
}

/// The `full` conversations, by branch scope and thread key.
///
/// A parallel branch forks its parent's conversations (seed 5.4: a
/// branch's context is an isolated clone): its first call on a thread
/// starts from the turns its parent had made on it (the parent waits for
/// its branches, so those are the turns before the fan-out), and its
/// turns go into its own copy. Siblings never see each other's turns, and
/// after the fan-in the parent continues its own conversation, without
/// the branches' turns.
#[derive(Debug, Default, Clone)]
pub struct Threads {
    turns: HashMap<(String, String), Conversation>,
}

/// One scope's conversation on one thread.
#[derive(Debug, Default, Clone)]
struct Conversation {
    /// The scopes the conversation's branch is nested in, innermost
    /// first (empty on the main line).
    outer: Vec<String>,
    turns: Vec<Turn>,
}

impl Threads {
    /// The earlier turns of `thread` as seen from `scopes` (the stage's
    /// branch scope and those it is nested in, innermost first, ending
    /// with the main line's `""`): the scope's own conversation, else the
    /// nearest enclosing one's, which the scope forks (empty: a fresh
    /// thread).
    pub fn get(&self, scopes: &[String], thread: &str) -> Vec<Turn> {
        scopes
            .iter()
            .find_map(|s| self.turns.get(&(s.clone(), thread.to_string())))
            .map(|c| c.turns.clone())
            .unwrap_or_default()
    }

    /// Records a call of `thread` in `scopes[0]` (see [`Threads::get`]):
    /// the prompt sent and the answer; drops the oldest turns past
    /// [`THREAD_CHARS`].
    pub fn push(&mut self, scopes: &[String], thread: &str, prompt: String, answer: String) {
        let Some((scope, outer)) = scopes.split_first() else {
            return;
        };
        let key = (scope.clone(), thread.to_string());
        if !self.turns.contains_key(&key) {
            let forked = Conversation {
                outer: outer.to_vec(),
                turns: self.get(outer, thread),
            };
            self.turns.insert(key.clone(), forked);
        }
        let turns = &mut self.turns.entry(key).or_default().turns;
        turns.push(Turn {
            role: Role::User,
            text: prompt,
        });
        turns.push(Turn {
            role: Role::Assistant,
            text: answer,
        });
        let size = |t: &[Turn]| t.iter().map(|t| t.text.len()).sum::<usize>();
        while turns.len() > 2 && size(turns) > THREAD_CHARS {
            turns.drain(..2);
        }
    }

    /// A call in `scope`: the branches nested in it have ended (a scope
    /// waits for its branches), so their conversations are dropped and a
    /// later fan-out forks afresh; with `restart` (the first step of a
    /// branch run again, as a loop back to its fan-out does), the scope's
    /// own as well.
    pub fn enter(&mut self, scope: &str, restart: bool) {
        self.turns.retain(|(s, _), c| {
            !(c.outer.iter().any(|o| o == scope) || restart && !scope.is_empty() && s == scope)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn main() -> Vec<String> {
        vec![String::new()]
    }

    fn texts(turns: Vec<Turn>) -> Vec<String> {
        turns.into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn threads_keep_their_turns_in_order_and_drop_the_oldest_past_the_bound() {
        let mut t = Threads::default();
        t.push(&main(), "a", "p1".into(), "r1".into());
        t.push(&main(), "b", "q1".into(), "s1".into());
        t.push(&main(), "a", "p2".into(), "r2".into());
        assert_eq!(texts(t.get(&main(), "a")), ["p1", "r1", "p2", "r2"]);
        assert!(t.get(&main(), "c").is_empty());
        t.push(&main(), "a", "x".repeat(THREAD_CHARS), "y".into());
        assert_eq!(t.get(&main(), "a").len(), 2, "the older turns were dropped");
    }

    #[test]
    fn branches_fork_the_parents_thread_and_the_parent_does_not_see_theirs() {
        let mut t = Threads::default();
        let a = vec!["fan/a".to_string(), String::new()];
        let b = vec!["fan/b".to_string(), String::new()];
        let nested = vec!["inner/x".to_string(), "fan/a".to_string(), String::new()];
        t.push(&main(), "t", "p".into(), "r".into());
        t.push(&a, "t", "a1".into(), "ra1".into());
        t.push(&b, "t", "b1".into(), "rb1".into());
        t.push(&a, "t", "a2".into(), "ra2".into());
        assert_eq!(texts(t.get(&a, "t")), ["p", "r", "a1", "ra1", "a2", "ra2"]);
        assert_eq!(texts(t.get(&b, "t")), ["p", "r", "b1", "rb1"]);
        // A branch nested in `fan/a` forks `fan/a`'s conversation.
        t.push(&nested, "t", "x1".into(), "rx1".into());
        assert_eq!(
            texts(t.get(&nested, "t")),
            ["p", "r", "a1", "ra1", "a2", "ra2", "x1", "rx1"]
        );
        // `fan/a` goes on: its nested branch has ended.
        t.enter("fan/a", false);
        assert_eq!(
            texts(t.get(&nested, "t")),
            ["p", "r", "a1", "ra1", "a2", "ra2"]
        );
        // After the fan-in the main line has its own turns only, and the
        // next fan-out forks again.
        t.enter("", false);
        assert_eq!(texts(t.get(&main(), "t")), ["p", "r"]);
        assert_eq!(texts(t.get(&a, "t")), ["p", "r"]);
        // A branch run again forks afresh.
        t.push(&b, "t", "b1".into(), "rb1".into());
        t.enter("fan/b", true);
        assert_eq!(texts(t.get(&b, "t")), ["p", "r"]);
    }

    #[test]
    fn lines_are_flattened_and_cut() {
        assert_eq!(line("a\n  b", 10), "a b");
        assert_eq!(line("abcdef", 3), "abc…");
        assert_eq!(estimate_tokens("abcde"), 2);
    }
}
