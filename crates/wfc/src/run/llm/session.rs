//! `full` fidelity for CLI coding agents (docs/llm.md, "CLI coding
//! agents"): a thread continues the agent's own session.
//!
//! An HTTP backend is sent the thread's earlier turns; a CLI agent keeps
//! its conversation itself, under a session id it reports (validated by
//! [`SessionId::parse`]). So a `full` stage of a CLI agent resumes the
//! session the thread's previous call of that provider ran in. Sessions
//! are kept per (branch, provider, thread): a parallel branch never
//! appends to the session its parent or a sibling uses at the same time.
//! Its first call forks its parent's session where the CLI can
//! ([`wf_llm::cli::CliKind::forks_sessions`]), else starts one of its
//! own; its later calls continue its own. Each call records its session
//! in the stage's `status.json` (`usage.sent.cli_session`, with the
//! branch's `scope`), from which a resumed run reads them back
//! ([`Sessions::from_run`]), a branch's included. A call that fails to
//! resume (or fork) its session (the agent lost it) makes the thread
//! forget it, for this process and, through a marker in the stage folder,
//! for a resumed run, so that the next attempt starts afresh instead of
//! failing again.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wf_llm::cli::SessionId;
use wf_vm::attractor::RunFiles;

use super::lock;

/// Where a session belongs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    /// The parallel branch the stage runs in ([`super::scope::scope`];
    /// empty on the main line).
    pub scope: String,
    /// The CLI provider (`claude-cli`, …).
    pub provider: String,
    /// The `full` thread key.
    pub thread: String,
}

/// The marker a failed resume leaves in the stage folder.
const FAILED_FILE: &str = "cli-session-failed.json";

/// The sessions of a run, shared by the agent and its forks.
#[derive(Debug, Default)]
pub struct Sessions {
    ids: HashMap<Key, Entry>,
    /// Keys a call in flight holds.
    busy: HashSet<Key>,
}

/// A session of a key.
#[derive(Debug, Clone)]
struct Entry {
    id: SessionId,
    /// When it was recorded (ms since the epoch).
    at: u64,
    /// The scopes its branch is nested in ([`super::scope::scopes`]
    /// without the first); `None` for one read from the run directory,
    /// which a restart of its branch keeps (a branch run again after a
    /// resume continues it).
    outer: Option<Vec<String>>,
}

/// The run's sessions, behind a lock.
pub type Shared = Arc<Mutex<Sessions>>;

impl Sessions {
    /// The sessions recorded in the run directory: the latest
    /// `usage.sent.cli_session` of each (branch, provider, thread), when
    /// it was recorded in this working directory (the CLIs keep their
    /// sessions per project) and no resume of it failed since. The main
    /// line's come from the completed stages of `checkpoint.json`; a
    /// branch's from any stage folder (a branch run again after a resume
    /// is not among the completed stages, and continues its sessions).
    pub fn from_run(files: &RunFiles) -> Sessions {
        let mut s = Sessions::default();
        let read = |path: std::path::PathBuf| -> Option<Value> {
            serde_json::from_slice(&std::fs::read(path).ok()?).ok()
        };
        let Some(checkpoint) = read(files.root().join(wf_vm::attractor::CHECKPOINT_FILE)) else {
            return s;
        };
        let completed: HashSet<std::path::PathBuf> = checkpoint["completed_nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|node| files.stage_path(node))
            .collect();
        let dirs: Vec<std::path::PathBuf> = std::fs::read_dir(files.root())
            .into_iter()
            .flatten()
            .flatten()
            .map(|d| d.path())
            .collect();
        for dir in &dirs {
            let Some(status) = read(dir.join("status.json")) else {
                continue;
            };
            let usage = &status["usage"];
            let record = &usage["sent"]["cli_session"];
            let (Some(provider), Some(thread), Some(id)) = (
                usage["provider"].as_str(),
                usage["sent"]["thread_id"].as_str(),
                record["id"].as_str(),
            ) else {
                continue;
            };
            let scope = match record.get("scope") {
                None => String::new(),
                Some(Value::String(scope)) if !scope.is_empty() => scope.clone(),
                Some(_) => continue,
            };
            if scope.is_empty() && !completed.contains(dir) {
                continue;
            }
            // An id edited into the run directory is checked as one from
            // the agent is; a bad one is dropped (the thread starts anew).
            let Ok(id) = SessionId::parse(id) else {
                continue;
            };
            if record["cwd"]
                .as_str()
                .is_some_and(|c| Some(c) != cwd().as_deref())
            {
                continue;
            }
            let key = Key {
                scope,
                provider: provider.to_string(),
                thread: thread.to_string(),
            };
            let at = record["at_ms"].as_u64().unwrap_or(0);
            if s.ids.get(&key).is_none_or(|e| e.at <= at) {
                let outer = None;
                s.ids.insert(key, Entry { id, at, outer });
            }
        }
        // Resumes that failed, in any stage folder (the failed stage is
        // not among the completed ones).
        for marker in dirs.iter().filter_map(|d| read(d.join(FAILED_FILE))) {
            let failed = |key: &Key, e: &Entry| {
                Some(key.provider.as_str()) == marker["provider"].as_str()
                    && Some(key.thread.as_str()) == marker["thread"].as_str()
                    && Some(e.id.as_str()) == marker["id"].as_str()
            };
            s.ids.retain(|k, e| !failed(k, e));
        }
        s
    }

    /// A call in `scope`, as [`super::context::Threads::enter`]: the
    /// sessions of the branches nested in it are forgotten (those branches
    /// have ended; a later fan-out forks afresh), and with `restart` (a
    /// branch run again) the scope's own, except one read back from the
    /// run directory (whose nesting is not known: a branch's is forgotten
    /// once the main line calls).
    pub fn enter(&mut self, scope: &str, restart: bool) {
        self.ids.retain(|k, e| match &e.outer {
            None => !scope.is_empty() || k.scope.is_empty(),
            Some(outer) => {
                !(outer.iter().any(|o| o == scope)
                    || restart && !scope.is_empty() && k.scope == scope)
            }
        });
    }
}

/// The working directory, as recorded beside a session.
fn cwd() -> Option<String> {
    std::env::current_dir()
        .ok()
        .map(|d| d.to_string_lossy().into_owned())
}

/// A call's hold on its thread's session, from before the call until
/// its answer is read. Dropped without [`Lease::finish`] or
/// [`Lease::failed`] (the agent did not run: a budget refusal, an error
/// before it), it keeps the session as it was.
pub struct Lease {
    shared: Shared,
    key: Key,
    /// The scopes the key's branch is nested in, innermost first.
    outer: Vec<String>,
    /// The session the call resumes (`None`: it starts one).
    pub resume: Option<SessionId>,
    /// Whether `resume` is the parent's session, which the call forks (a
    /// branch's first call) rather than continues.
    pub fork: bool,
    /// Whether this call holds the key: a second call on a key in use
    /// (two branches reaching the same node at once) starts a session of
    /// its own and records nothing, so the first one's is not crossed.
    owner: bool,
}

impl Lease {
    /// Takes `key`'s session for one call. `outer` are the scopes the
    /// key's branch is nested in, innermost first
    /// ([`super::scope::scopes`] without the first): a branch without a
    /// session of its own forks the nearest one's when the CLI
    /// `can_fork`, and otherwise starts one.
    pub fn take(shared: &Shared, key: Key, outer: &[String], can_fork: bool) -> Lease {
        let mut s = lock(shared);
        let owner = s.busy.insert(key.clone());
        let own = s.ids.get(&key).map(|e| e.id.clone());
        let parent = || {
            outer.iter().find_map(|scope| {
                let k = Key {
                    scope: scope.clone(),
                    ..key.clone()
                };
                s.ids.get(&k).map(|e| e.id.clone())
            })
        };
        let (resume, fork) = match (owner, own) {
            (false, _) => (None, false),
            (true, Some(id)) => (Some(id), false),
            (true, None) if can_fork => match parent() {
                Some(id) => (Some(id), true),
                None => (None, false),
            },
            (true, None) => (None, false),
        };
        drop(s);
        Lease {
            shared: shared.clone(),
            key,
            outer: outer.to_vec(),
            resume,
            fork,
            owner,
        }
    }

    /// Records that the call ran in session `ran_in` (when the agent
    /// reported one) and returns what `status.json` keeps of it.
    pub fn finish(self, ran_in: Option<&SessionId>) -> Value {
        let at_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        if let (true, Some(id)) = (self.owner, ran_in) {
            let entry = Entry {
                id: id.clone(),
                at: at_ms,
                outer: Some(self.outer.clone()),
            };
            lock(&self.shared).ids.insert(self.key.clone(), entry);
        }
        let mut record = json!({
            "id": ran_in.map(SessionId::as_str),
            "resumed": self.resume.is_some(),
            "at_ms": at_ms,
            "cwd": cwd(),
        });
        if !self.key.scope.is_empty() {
            record["scope"] = json!(self.key.scope);
        }
        if let (true, Some(from)) = (self.fork, &self.resume) {
            record["forked_from"] = json!(from.as_str());
        }
        record
    }
}

impl Lease {
    /// The call failed: when it resumed a session, the thread forgets it
    /// (the agent may have lost it, and resuming it again would fail
    /// again), here and, with a run directory, for a resumed run (a marker
    /// in `node`'s folder). Returns what the error adds.
    pub fn failed(self, files: Option<&RunFiles>, node: &str) -> String {
        let Some(id) = &self.resume else {
            return String::new();
        };
        // The session is forgotten wherever it is kept: a fork that failed
        // leaves the parent's session unusable too.
        lock(&self.shared).ids.retain(|_, e| e.id != *id);
        if let Some(files) = files {
            let marker = json!({
                "provider": self.key.provider,
                "thread": self.key.thread,
                "id": id.as_str(),
            });
            // Best effort: without it a resumed run tries the session once
            // more, which fails the same way.
            let _ = files
                .stage_dir(node)
                .and_then(|d| files.write_json(&d.join(FAILED_FILE), &marker));
        }
        format!(
            " (the call {} the agent's session {} of thread `{}`: the stage's next \
             attempt starts a new one)",
            if self.fork { "forked" } else { "resumed" },
            id.as_str(),
            self.key.thread
        )
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.owner {
            lock(&self.shared).busy.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(scope: &str) -> Key {
        Key {
            scope: scope.into(),
            provider: "claude-cli".into(),
            thread: "t".into(),
        }
    }

    #[test]
    fn a_lease_resumes_the_last_session_and_a_key_in_use_is_not_crossed() {
        let shared = Shared::default();
        let first = Lease::take(&shared, key(""), &[], true);
        assert_eq!(first.resume, None);
        let s1 = SessionId::parse("s1").unwrap();
        let record = first.finish(Some(&s1));
        assert_eq!(record["id"], "s1");
        assert_eq!(record["resumed"], false);
        let second = Lease::take(&shared, key(""), &[], true);
        assert_eq!(second.resume, Some(s1.clone()));
        // Held: another call on the key starts afresh and records nothing.
        let third = Lease::take(&shared, key(""), &[], true);
        assert_eq!(third.resume, None);
        third.finish(Some(&SessionId::parse("other").unwrap()));
        second.finish(Some(&SessionId::parse("s2").unwrap()));
        assert_eq!(
            Lease::take(&shared, key(""), &[], true)
                .resume
                .as_ref()
                .map(SessionId::as_str),
            Some("s2")
        );
        // An error (no finish) keeps the session; another scope has its own.
        drop(Lease::take(&shared, key(""), &[], true));
        assert_eq!(
            Lease::take(&shared, key(""), &[], true)
                .resume
                .as_ref()
                .map(SessionId::as_str),
            Some("s2")
        );
        // A branch without a session forks its parent's, where the CLI can.
        let main = [String::new()];
        let branch = Lease::take(&shared, key("fan/a"), &main, true);
        assert_eq!(
            (branch.resume.as_ref(), branch.fork),
            (Some(&SessionId::parse("s2").unwrap()), true)
        );
        let record = branch.finish(Some(&SessionId::parse("a1").unwrap()));
        assert_eq!(
            (record["forked_from"].as_str(), record["scope"].as_str()),
            (Some("s2"), Some("fan/a"))
        );
        let again = Lease::take(&shared, key("fan/a"), &main, true);
        assert_eq!(
            (again.resume.as_ref().map(SessionId::as_str), again.fork),
            (Some("a1"), false)
        );
        drop(again);
        let other = Lease::take(&shared, key("fan/b"), &main, false);
        assert_eq!((other.resume.clone(), other.fork), (None, false));
        // The main line goes on: the branch has ended, the next fan-out
        // forks afresh.
        lock(&shared).enter("", false);
        let next = Lease::take(&shared, key("fan/a"), &main, true);
        assert_eq!(next.resume.as_ref().map(SessionId::as_str), Some("s2"));
    }

    #[test]
    fn a_resumed_run_reads_the_latest_valid_sessions() {
        let dir = std::env::temp_dir().join(format!("wfc-sessions-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let files = RunFiles::new(&dir);
        let stage = |node: &str, thread: &str, record: Value| {
            let status = json!({"usage": {"provider": "claude-cli",
                "sent": {"fidelity": "full", "thread_id": thread, "cli_session": record}}});
            std::fs::create_dir_all(files.stage_path(node)).unwrap();
            std::fs::write(
                files.stage_path(node).join("status.json"),
                status.to_string(),
            )
            .unwrap();
        };
        stage("a", "t", json!({"id": "later", "at_ms": 20}));
        stage("b", "t", json!({"id": "earlier", "at_ms": 10}));
        stage("c", "u", json!({"id": "x; rm -rf ~", "at_ms": 30}));
        stage(
            "d",
            "v",
            json!({"id": "branch", "at_ms": 40, "scope": "fan/d"}),
        );
        stage("e", "w", json!({"id": "not-completed", "at_ms": 50}));
        stage(
            "f",
            "v",
            json!({"id": "branch-later", "at_ms": 60, "scope": "fan/f"}),
        );
        let checkpoint = json!({"completed_nodes": ["a", "b", "c", "d"]});
        std::fs::write(dir.join("checkpoint.json"), checkpoint.to_string()).unwrap();
        let shared: Shared = Arc::new(Mutex::new(Sessions::from_run(&files)));
        let resumes_in = |scope: &str, thread: &str| {
            let lease = Lease::take(
                &shared,
                Key {
                    scope: scope.into(),
                    provider: "claude-cli".into(),
                    thread: thread.into(),
                },
                &[],
                false,
            );
            lease.resume.as_ref().map(|id| id.as_str().to_string())
        };
        let resumes = |thread: &str| resumes_in("", thread);
        // The latest by time, whatever the order of the stages.
        assert_eq!(resumes("t").as_deref(), Some("later"));
        // A hostile id, a branch's session and a stage not completed: none.
        assert_eq!(resumes("u"), None);
        assert_eq!(resumes("v"), None);
        assert_eq!(resumes("w"), None);
        // A branch's sessions are read from any stage folder, for the
        // branch run again.
        assert_eq!(resumes_in("fan/d", "v").as_deref(), Some("branch"));
        assert_eq!(resumes_in("fan/f", "v").as_deref(), Some("branch-later"));
        // The branch run again keeps them; once the main line calls, the
        // branches have ended and only the main line's are kept.
        lock(&shared).enter("fan/d", true);
        assert_eq!(resumes_in("fan/d", "v").as_deref(), Some("branch"));
        lock(&shared).enter("", false);
        assert_eq!(resumes_in("fan/d", "v"), None);
        assert_eq!(resumes("t").as_deref(), Some("later"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
