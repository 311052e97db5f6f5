//! CLI coding agents as `--agent llm` backends (docs/llm.md, "CLI coding
//! agents"): fake `claude`, `codex` and `gemini` executables
//! (`tests/run/cli_agents/fake_agent.sh`) first on `PATH` record the
//! argv, stdin, working directory and environment they were given.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use insta_cmd::get_cargo_bin;
use serde_json::Value;

use crate::common::dot::scratch;
use crate::common::repo_root;

fn fixtures() -> PathBuf {
    repo_root().join("tests/run/cli_agents")
}

/// A scratch folder with `bin/{claude,codex,gemini}` (the fake) and `log/`.
fn setup(test: &str) -> PathBuf {
    let dir = scratch(&format!("cli-agents-{test}"));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(dir.join("log")).unwrap();
    for name in ["claude", "codex", "gemini"] {
        std::os::unix::fs::symlink(fixtures().join("fake_agent.sh"), bin.join(name)).unwrap();
    }
    dir
}

/// `wfc run FILE --agent llm ARGS` in `dir`, the fake first on `PATH`.
fn run(dir: &Path, file: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(dir)
        .args([
            "run",
            file,
            "--agent",
            "llm",
            "--format",
            "json",
            "--progress",
            "never",
        ])
        .args(args)
        .env("NO_COLOR", "1")
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", dir.join("bin").display()),
        )
        .env("FAKE_LOG", dir.join("log"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn summary(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "not JSON: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

const PROMPT: &str = "Plan it: $(touch pwned) `touch pwned2` 'q' \"d\" ; rm -rf x";

#[test]
fn claude_gets_the_prompt_on_stdin_never_on_a_command_line() {
    let dir = setup("claude");
    let dot = format!(
        "digraph p {{\n  start [shape=Mdiamond]\n  plan [shape=box, llm_provider=\"claude-cli\", llm_model=\"claude-opus-4-6\", prompt={}]\n  done [shape=Msquare]\n  start -> plan -> done\n}}\n",
        serde_json::to_string(PROMPT).unwrap()
    );
    std::fs::write(dir.join("p.dot"), dot).unwrap();
    let output = fixtures().join("claude.json");
    let out = run(
        &dir,
        "p.dot",
        &["--run-dir", "run"],
        &[("FAKE_OUTPUT", output.to_str().unwrap())],
    );
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    let log = dir.join("log");
    assert_eq!(
        read(&log.join("argv")),
        "-p\n--output-format\njson\n--model\nclaude-opus-4-6\n"
    );
    // The stage's prompt, after the fidelity preamble a pipeline stage
    // gets (docs/llm.md, "Fidelity"), exactly as written.
    let stdin = read(&log.join("stdin"));
    assert!(
        stdin.starts_with("## Context (fidelity: compact)"),
        "{stdin}"
    );
    assert!(stdin.ends_with(&format!("\n\n{PROMPT}")), "{stdin}");
    let cwd = dir.canonicalize().unwrap();
    assert_eq!(read(&log.join("cwd")).trim(), cwd.to_str().unwrap());
    let env: Vec<String> = read(&log.join("env")).lines().map(str::to_string).collect();
    let stage = dir.join("run/plan");
    assert_eq!(env[0], "plan");
    assert_eq!(
        Path::new(&env[1]).canonicalize().unwrap(),
        stage.canonicalize().unwrap()
    );
    assert_eq!(env[2], format!("{}/status.json", env[1]));
    assert!(!dir.join("pwned").exists() && !dir.join("pwned2").exists());
    assert_eq!(read(&stage.join("response.md")), "Planned: three steps.");
    let status: Value = serde_json::from_str(&read(&stage.join("status.json"))).unwrap();
    assert_eq!(status["outcome"], "success");
    assert_eq!(status["usage"]["provider"], "claude-cli");
    assert_eq!(status["usage"]["input_tokens"], 100);
    assert_eq!(status["usage"]["cached_tokens"], 60);
    // Claude Code's own cost figure wins over the price table.
    assert_eq!(status["usage"]["cost_usd"], 0.0123);
    assert_eq!(s["llm"]["calls"], 1);
}

#[test]
fn codex_runs_a_wf_step_with_its_effort_and_the_answer_routes_writes() {
    let dir = setup("codex");
    std::fs::write(
        dir.join("w.wf"),
        "workflow W {\n  gives draft: string\n  step write \"Write\" {\n    prompt = \"Write the draft\"\n    provider = \"codex-cli\"\n    model = \"gpt-5.4\"\n    reasoning_effort = \"high\"\n    writes draft: string\n  }\n  write -> done\n}\n",
    )
    .unwrap();
    let output = fixtures().join("codex.jsonl");
    let out = run(
        &dir,
        "w.wf",
        &[],
        &[("FAKE_OUTPUT", output.to_str().unwrap())],
    );
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(
        read(&dir.join("log/argv")),
        "exec\n--json\n--skip-git-repo-check\n--model\ngpt-5.4\n-c\nmodel_reasoning_effort=\"high\"\n-\n"
    );
    let stdin = read(&dir.join("log/stdin"));
    assert!(stdin.starts_with("Write the draft\n\n---\n"), "{stdin}");
    assert!(stdin.contains("must set \"draft\""), "{stdin}");
    assert_eq!(s["blackboard"]["draft"], "v1", "{s}");
    assert_eq!(s["llm"]["input_tokens"], 120);
    // Without a run directory the stage directory was a temporary one,
    // gone after the stage.
    let stage = read(&dir.join("log/env"))
        .lines()
        .nth(1)
        .unwrap()
        .to_string();
    assert!(!Path::new(&stage).exists(), "{stage}");
}

/// A `.dot` pipeline whose `plan` stage goes to `provider` and routes to
/// `fix` or `ship`.
fn routed(dir: &Path, provider: &str) {
    std::fs::write(
        dir.join("r.dot"),
        format!(
            "digraph r {{\n  start [shape=Mdiamond]\n  plan [shape=box, llm_provider=\"{provider}\", prompt=\"Plan\"]\n  fix [shape=box, llm_provider=\"{provider}\"]\n  ship [shape=Msquare]\n  start -> plan\n  plan -> fix [label=\"Fix\"]\n  plan -> ship [label=\"Ship\"]\n  fix -> ship\n}}\n"
        ),
    )
    .unwrap();
}

#[test]
fn a_status_file_the_agent_writes_routes_the_run() {
    for (provider, output, with_dir) in [
        ("gemini-cli", "gemini.json", false),
        ("claude-cli", "claude.json", true),
    ] {
        let dir = setup(&format!("status-{provider}"));
        routed(&dir, provider);
        let output = fixtures().join(output);
        let events = dir.join("events.jsonl");
        let mut args = vec!["--events", events.to_str().unwrap()];
        if with_dir {
            args.extend(["--run-dir", "run"]);
        }
        // The answer's text has no JSON object: without the status file
        // the stage would be a retry, then a failure.
        let out = run(
            &dir,
            "r.dot",
            &args,
            &[
                ("FAKE_OUTPUT", output.to_str().unwrap()),
                ("FAKE_MODE", "status"),
                (
                    "FAKE_STATUS",
                    r#"{"outcome": "success", "preferred_next_label": "Ship", "context_updates": {"plan.ok": true}, "notes": "from the file"}"#,
                ),
            ],
        );
        let s = summary(&out);
        assert_eq!(out.status.code(), Some(0), "{provider}: {s}");
        let events = read(&events);
        assert!(
            !events.contains("\"fix\""),
            "{provider}: the run went through `fix`:\n{events}"
        );
        // The stage's usage is kept with the file's outcome.
        assert!(events.contains("LlmUsage"), "{provider}:\n{events}");
        assert_eq!(
            read(&dir.join("log/argv")).lines().next(),
            Some(if provider == "gemini-cli" {
                "--output-format"
            } else {
                "-p"
            })
        );
    }
}

#[test]
fn a_hanging_agent_is_killed_at_the_node_timeout_with_its_children() {
    let dir = setup("hang");
    std::fs::write(
        dir.join("h.dot"),
        "digraph h {\n  start [shape=Mdiamond]\n  plan [shape=box, llm_provider=\"claude-cli\", timeout=\"1s\"]\n  done [shape=Msquare]\n  start -> plan -> done\n}\n",
    )
    .unwrap();
    let output = fixtures().join("claude.json");
    let started = Instant::now();
    let out = run(
        &dir,
        "h.dot",
        &[],
        &[
            ("FAKE_OUTPUT", output.to_str().unwrap()),
            ("FAKE_MODE", "hang"),
        ],
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_ne!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains("timed out"),
        "{stdout}{stderr}"
    );
    let pid = read(&dir.join("log/child.pid")).trim().to_string();
    // The background `sleep` the agent started is gone too.
    // (SIGKILL is delivered asynchronously, and an orphan may stay a
    // zombie until it is reaped: both count as gone.)
    let gone = || match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z')),
    };
    let until = Instant::now() + Duration::from_secs(3);
    while !gone() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(gone(), "the agent's child {pid} outlived the timeout");
}

#[test]
fn a_missing_program_stops_the_run_before_it_starts() {
    let dir = setup("missing");
    std::fs::remove_file(dir.join("bin/codex")).unwrap();
    routed(&dir, "codex-cli");
    let out = run(&dir, "r.dot", &["--run-dir", "run"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("node `plan`: provider `codex-cli` runs `codex`, which is not on PATH"),
        "{stderr}"
    );
    assert!(!dir.join("run").exists());
}

#[test]
fn a_failing_agent_says_how_it_ended() {
    let dir = setup("fail");
    routed(&dir, "claude-cli");
    let output = fixtures().join("claude.json");
    let out = run(
        &dir,
        "r.dot",
        &[],
        &[
            ("FAKE_OUTPUT", output.to_str().unwrap()),
            ("FAKE_MODE", "fail"),
        ],
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("exited with status 7: fake: not logged in"),
        "{all}"
    );
}

#[test]
fn a_provider_declared_with_a_cli_api_takes_its_models() {
    let dir = setup("declared");
    std::fs::write(
        dir.join("wf.toml"),
        "[llm.providers.anthropic]\napi = \"claude-cli\"\nargs = [\"--permission-mode\", \"acceptEdits\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("d.dot"),
        "digraph d {\n  graph [model_stylesheet=\"* { llm_model: claude-sonnet-4-6; }\"]\n  start [shape=Mdiamond]\n  plan [shape=box, prompt=\"Plan\"]\n  done [shape=Msquare]\n  start -> plan -> done\n}\n",
    )
    .unwrap();
    let output = fixtures().join("claude.json");
    // No ANTHROPIC_API_KEY: the CLI brings its own login.
    let out = run(
        &dir,
        "d.dot",
        &[],
        &[("FAKE_OUTPUT", output.to_str().unwrap())],
    );
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(
        read(&dir.join("log/argv")),
        "-p\n--output-format\njson\n--model\nclaude-sonnet-4-6\n--permission-mode\nacceptEdits\n"
    );
}

#[test]
fn wf_human_nodes_under_agent_llm_ask_the_interviewer() {
    let dir = setup("wf-human");
    std::fs::write(
        dir.join("h.wf"),
        "workflow H {\n  human approve \"Ship it?\" {\n    prompt = \"The build is green.\"\n  }\n  exit shipped\n  exit held\n  approve -> shipped \"[S] Ship\"\n  approve -> held \"[H] Hold\"\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("answers.txt"), "H\n").unwrap();
    // No model is called: the workflow has no step with a prompt.
    let out = run(&dir, "h.wf", &["--interviewer", "answers:answers.txt"], &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    // `auto` (and the interviewer `auto`) would take the first choice.
    assert_eq!(s["at"]["node"], "held", "{s}");
    let out = run(&dir, "h.wf", &[], &[]);
    assert_eq!(summary(&out)["at"]["node"], "shipped");
    // An unknown interviewer is an error before the run.
    let out = run(&dir, "h.wf", &["--interviewer", "robot"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown interviewer `robot`"));
}

#[test]
fn wf_freeform_and_multi_select_questions_under_agent_llm_write_their_key() {
    let dir = setup("wf-human-kinds");
    std::fs::write(
        dir.join("q.wf"),
        "workflow Q {\n  human note \"Release note?\" { freeform = true  writes release.note: string }\n  human targets \"Where?\" {\n    choices = multiple\n    options = [\"[L] Linux\", \"[M] Mac\", \"[W] Windows\"]\n    writes deploy.targets: list\n  }\n  exit done\n  start -> note -> targets -> done\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("answers.txt"), "Ships on Friday\nL, W\n").unwrap();
    let out = run(&dir, "q.wf", &["--interviewer", "answers:answers.txt"], &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    let board = &s["blackboard"];
    assert_eq!(board["release.note"], "Ships on Friday", "{s}");
    assert_eq!(
        board["deploy.targets"],
        serde_json::json!(["[L] Linux", "[W] Windows"]),
        "{s}"
    );
    assert!(board.get("human.gate.text").is_none(), "{s}");
}

#[test]
fn wf_parallel_human_nodes_under_agent_llm_still_ask_the_interviewer() {
    // The llm agent forks for concurrent branches, but its forks cannot
    // reach `--interviewer`: with one, it does not fork (the wrapper that
    // applies recorded answers, `question::Answered`, forks only when the
    // agent it wraps does).
    let dir = setup("wf-parallel-human");
    std::fs::write(
        dir.join("p.wf"),
        "workflow P {\n  parallel ask\n  human a \"Note A?\" { freeform = true  writes a.note: string }\n  human b \"Note B?\" { freeform = true  writes b.note: string }\n  join collect { reads a.note, b.note }\n  exit done\n  start -> ask\n  ask -> a -> collect\n  ask -> b -> collect\n  collect -> done\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("answers.txt"), "from A\nfrom B\n").unwrap();
    let out = run(&dir, "p.wf", &["--interviewer", "answers:answers.txt"], &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["blackboard"]["a.note"], "from A", "{s}");
    assert_eq!(s["blackboard"]["b.note"], "from B", "{s}");
}

/// `wfc run --resume run --agent llm` in `dir`, the fake first on `PATH`.
fn resume(dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(dir)
        .args([
            "run", "--resume", "run", "--agent", "llm", "--format", "json",
        ])
        .args(["--progress", "never"])
        .env("NO_COLOR", "1")
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", dir.join("bin").display()),
        )
        .env("FAKE_LOG", dir.join("log"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The argv and stdin the fake got at stage `node`.
fn call_of(dir: &Path, node: &str) -> (Vec<String>, String) {
    let argv = read(&dir.join(format!("log/argv.{node}")));
    let stdin = read(&dir.join(format!("log/stdin.{node}")));
    (argv.lines().map(str::to_string).collect(), stdin)
}

/// The session `argv` resumes, each CLI's way (`None`: a fresh one).
fn resumed(provider: &str, argv: &[String]) -> Option<String> {
    let at = |flag: &str| {
        argv.iter()
            .position(|a| a == flag)
            .map(|i| argv[i + 1].clone())
    };
    match provider {
        // `codex exec … resume ID -`: the id, then the prompt marker.
        "codex-cli" => at("resume").inspect(|_| assert_eq!(argv.last().unwrap(), "-")),
        _ => at("--resume"),
    }
}

/// A pipeline of `provider` stages: `plan`, `build` and `ship` on thread
/// `main`, `review` on thread `other`, `tidy` on `main` but `compact`.
fn sessions_dot(dir: &Path, provider: &str, extra: &str) {
    std::fs::write(
        dir.join("s.dot"),
        format!(
            "digraph s {{\n  graph [default_fidelity=\"full\", thread_id=\"main\"{extra}]\n  node [llm_provider=\"{provider}\"]\n  start [shape=Mdiamond]\n  plan [shape=box, prompt=\"Plan\"]\n  build [shape=box, prompt=\"Build\"]\n  review [shape=box, thread_id=\"other\", prompt=\"Review\"]\n  tidy [shape=box, fidelity=\"compact\", prompt=\"Tidy\"]\n  ship [shape=box, prompt=\"Ship\"]\n  done [shape=Msquare]\n  start -> plan -> build -> review -> tidy -> ship -> done\n}}\n"
        ),
    )
    .unwrap();
}

#[test]
fn full_stages_of_a_thread_continue_the_agents_own_session() {
    for (provider, output) in [
        ("claude-cli", "claude_session.json"),
        ("codex-cli", "codex_session.jsonl"),
        ("gemini-cli", "gemini_session.json"),
    ] {
        let dir = setup(&format!("session-{provider}"));
        sessions_dot(&dir, provider, "");
        let output = fixtures().join(output);
        let out = run(
            &dir,
            "s.dot",
            &["--run-dir", "run"],
            &[("FAKE_OUTPUT", output.to_str().unwrap())],
        );
        let s = summary(&out);
        assert_eq!(out.status.code(), Some(0), "{provider}: {s}");
        // The thread's first call starts a session, with the compact
        // preamble; the next `full` stage of the thread resumes it and is
        // sent its prompt alone (the agent has the conversation).
        let (argv, stdin) = call_of(&dir, "plan");
        assert_eq!(resumed(provider, &argv), None, "{provider}: {argv:?}");
        assert!(
            stdin.starts_with("## Context (fidelity: compact)"),
            "{stdin}"
        );
        let (argv, stdin) = call_of(&dir, "build");
        assert_eq!(
            resumed(provider, &argv).as_deref(),
            Some("s-plan"),
            "{provider}: {argv:?}"
        );
        assert_eq!(stdin, "Build", "{provider}");
        // Another thread, and a stage that is not `full`, start afresh.
        let (argv, stdin) = call_of(&dir, "review");
        assert_eq!(resumed(provider, &argv), None, "{provider}: {argv:?}");
        assert!(
            stdin.starts_with("## Context (fidelity: compact)"),
            "{stdin}"
        );
        let (argv, _) = call_of(&dir, "tidy");
        assert_eq!(resumed(provider, &argv), None, "{provider}: {argv:?}");
        // The thread goes on from its latest session, not from `tidy`'s.
        let (argv, stdin) = call_of(&dir, "ship");
        assert_eq!(
            resumed(provider, &argv).as_deref(),
            Some("s-build"),
            "{provider}: {argv:?}"
        );
        assert_eq!(stdin, "Ship", "{provider}");
        // status.json records each session, for a resumed run.
        let status: Value =
            serde_json::from_str(&read(&dir.join("run/build/status.json"))).unwrap();
        let record = &status["usage"]["sent"]["cli_session"];
        assert_eq!(record["id"], "s-build", "{provider}: {status}");
        assert_eq!(record["resumed"], true, "{provider}: {status}");
        assert_eq!(status["usage"]["sent"]["thread_id"], "main");
    }
}

#[test]
fn a_resumed_run_continues_the_recorded_session_without_degrading() {
    let dir = setup("session-resume");
    sessions_dot(&dir, "claude-cli", "");
    // 125 tokens a call: the budget stops the run before `review`.
    std::fs::write(dir.join("wf.toml"), "[llm]\nmax_tokens = 200\n").unwrap();
    let output = fixtures().join("claude_session.json");
    let env = [("FAKE_OUTPUT", output.to_str().unwrap())];
    let out = run(&dir, "s.dot", &["--run-dir", "run"], &env);
    assert_eq!(out.status.code(), Some(3), "{}", summary(&out));
    assert!(!dir.join("log/argv.review").exists());
    std::fs::write(dir.join("wf.toml"), "").unwrap();
    let out = resume(&dir, &env);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    // `review` (thread `other`) has no session to continue: it degrades
    // to summary:high once, as an HTTP conversation would.
    let (argv, stdin) = call_of(&dir, "review");
    assert_eq!(resumed("claude-cli", &argv), None, "{argv:?}");
    assert!(
        stdin.starts_with("## Context (fidelity: summary:high)"),
        "{stdin}"
    );
    // `ship` continues `build`'s session, read back from the run directory.
    let (argv, stdin) = call_of(&dir, "ship");
    assert_eq!(
        resumed("claude-cli", &argv).as_deref(),
        Some("s-build"),
        "{argv:?}"
    );
    assert_eq!(stdin, "Ship");
}

#[test]
fn the_first_full_stage_after_a_resume_continues_its_session() {
    let dir = setup("session-resume-first");
    std::fs::write(
        dir.join("r.dot"),
        "digraph r {\n  graph [default_fidelity=\"full\", thread_id=\"main\"]\n  node [llm_provider=\"claude-cli\"]\n  start [shape=Mdiamond]\n  plan [shape=box, prompt=\"Plan\"]\n  build [shape=box, prompt=\"Build\"]\n  ship [shape=box, prompt=\"Ship\"]\n  done [shape=Msquare]\n  start -> plan -> build -> ship -> done\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("wf.toml"), "[llm]\nmax_tokens = 200\n").unwrap();
    let output = fixtures().join("claude_session.json");
    let env = [("FAKE_OUTPUT", output.to_str().unwrap())];
    let out = run(&dir, "r.dot", &["--run-dir", "run"], &env);
    assert_eq!(out.status.code(), Some(3), "{}", summary(&out));
    std::fs::write(dir.join("wf.toml"), "").unwrap();
    let out = resume(&dir, &env);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let (argv, stdin) = call_of(&dir, "ship");
    assert_eq!(
        resumed("claude-cli", &argv).as_deref(),
        Some("s-build"),
        "{argv:?}"
    );
    assert_eq!(
        stdin, "Ship",
        "not degraded: the agent has the conversation"
    );
    let status: Value = serde_json::from_str(&read(&dir.join("run/ship/status.json"))).unwrap();
    assert_eq!(status["usage"]["sent"]["fidelity"], "full", "{status}");
}

/// A pipeline of `provider` stages on thread `main`: `plan`, then a
/// fan-out to the branches `a1 -> a2` and `b1 -> b2`, then `last`.
fn branches_dot(dir: &Path, provider: &str) {
    std::fs::write(
        dir.join("p.dot"),
        format!("digraph p {{\n  graph [default_fidelity=\"full\", thread_id=\"main\"]\n  node [llm_provider=\"{provider}\"]\n  start [shape=Mdiamond]\n  plan [shape=box, prompt=\"Plan\"]\n  fan [shape=component]\n  a1 [shape=box, prompt=\"A1\"]\n  a2 [shape=box, prompt=\"A2\"]\n  b1 [shape=box, prompt=\"B1\"]\n  b2 [shape=box, prompt=\"B2\"]\n  join [shape=tripleoctagon]\n  last [shape=box, prompt=\"Last\"]\n  done [shape=Msquare]\n  start -> plan -> fan\n  fan -> a1 -> a2 -> join\n  fan -> b1 -> b2 -> join\n  join -> last -> done\n}}\n"),
    )
    .unwrap();
}

fn forks(dir: &Path, node: &str) -> bool {
    call_of(dir, node).0.iter().any(|a| a == "--fork-session")
}

#[test]
fn each_parallel_branch_forks_its_parents_session_and_keeps_its_own() {
    let dir = setup("session-branches");
    branches_dot(&dir, "claude-cli");
    let output = fixtures().join("claude_session.json");
    let out = run(
        &dir,
        "p.dot",
        &["--run-dir", "run"],
        &[("FAKE_OUTPUT", output.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let resumes = |node: &str| resumed("claude-cli", &call_of(&dir, node).0);
    // A branch's first stage forks its parent's session (`--resume s-plan
    // --fork-session`: the parent's session is left as it was), and is
    // sent its prompt alone: the fork holds the conversation.
    for (first, second) in [("a1", "a2"), ("b1", "b2")] {
        assert_eq!(resumes(first).as_deref(), Some("s-plan"), "{first}");
        assert!(forks(&dir, first), "{first}: {:?}", call_of(&dir, first).0);
        assert_eq!(call_of(&dir, first).1, first.to_uppercase());
        // Its later stages continue its own session, not a sibling's.
        assert_eq!(
            resumes(second).as_deref(),
            Some(format!("s-{first}").as_str())
        );
        assert!(!forks(&dir, second), "{second}");
    }
    // After the fan-in the main line continues its own.
    assert_eq!(resumes("last").as_deref(), Some("s-plan"));
    assert!(!forks(&dir, "last"));
    let status: Value = serde_json::from_str(&read(&dir.join("run/a1/status.json"))).unwrap();
    let record = &status["usage"]["sent"]["cli_session"];
    assert_eq!(record["scope"], "fan/a1", "{status}");
    assert_eq!(record["forked_from"], "s-plan", "{status}");
    assert_eq!(status["usage"]["sent"]["fidelity"], "full", "{status}");
}

#[test]
fn a_branch_of_a_cli_that_cannot_fork_starts_its_own_session_with_the_preamble() {
    for (provider, output) in [
        ("gemini-cli", "gemini_session.json"),
        ("codex-cli", "codex_session.jsonl"),
    ] {
        let dir = setup(&format!("session-branches-{provider}"));
        branches_dot(&dir, provider);
        let output = fixtures().join(output);
        let out = run(
            &dir,
            "p.dot",
            &["--run-dir", "run"],
            &[("FAKE_OUTPUT", output.to_str().unwrap())],
        );
        assert_eq!(out.status.code(), Some(0), "{provider}: {}", summary(&out));
        let (argv, stdin) = call_of(&dir, "a1");
        assert_eq!(resumed(provider, &argv), None, "{provider}: {argv:?}");
        assert!(
            stdin.starts_with("## Context (fidelity: compact)")
                && stdin.contains("- plan: success"),
            "{provider}: {stdin}"
        );
        let (argv, stdin) = call_of(&dir, "a2");
        assert_eq!(
            resumed(provider, &argv).as_deref(),
            Some("s-a1"),
            "{provider}"
        );
        assert_eq!(stdin, "A2", "{provider}");
        let (argv, _) = call_of(&dir, "last");
        assert_eq!(
            resumed(provider, &argv).as_deref(),
            Some("s-plan"),
            "{provider}"
        );
    }
}

#[test]
fn a_branch_run_again_after_a_resume_continues_its_sessions() {
    let dir = setup("session-branches-resume");
    branches_dot(&dir, "claude-cli");
    // `check`, a `compact` stage between `a1` and `a2`, fails: the durable
    // run suspends in the fan-out (a stage that resumed a session and
    // failed would make the thread forget it: see the lost-session test).
    let text = read(&dir.join("p.dot")).replace(
        "fan -> a1 -> a2",
        "check [shape=box, fidelity=\"compact\", prompt=\"Check\"]\n  fan -> a1 -> check -> a2",
    );
    std::fs::write(dir.join("p.dot"), text).unwrap();
    let output = fixtures().join("claude_session.json");
    let output = output.to_str().unwrap();
    let env = [("FAKE_OUTPUT", output), ("FAKE_FAIL_NODE", "check")];
    let out = run(&dir, "p.dot", &["--run-dir", "run"], &env);
    assert_eq!(out.status.code(), Some(3), "{}", summary(&out));
    assert!(!dir.join("log/argv.a2").exists());
    let _ = std::fs::remove_file(dir.join("log/argv.a1"));
    // The resumed run's sessions are told apart by a suffix.
    let out = resume(&dir, &[("FAKE_OUTPUT", output), ("FAKE_SUFFIX", "-2")]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let resumes = |node: &str| resumed("claude-cli", &call_of(&dir, node).0);
    // Branch `a` runs again: its first stage continues the session it
    // recorded (not a new fork of the parent's), and the branch goes on
    // from there.
    assert_eq!(resumes("a1").as_deref(), Some("s-a1"));
    assert!(!forks(&dir, "a1"), "{:?}", call_of(&dir, "a1").0);
    assert_eq!(call_of(&dir, "a1").1, "A1");
    assert_eq!(resumes("a2").as_deref(), Some("s-a1-2"));
    // The main line continues its own session after the fan-in.
    assert_eq!(resumes("last").as_deref(), Some("s-plan"));
}

#[test]
fn an_agent_that_reports_no_session_gets_the_preamble_at_each_stage() {
    // Gemini CLI before it reported `session_id`: nothing can be resumed.
    let dir = setup("session-none");
    sessions_dot(&dir, "gemini-cli", "");
    let output = fixtures().join("gemini.json");
    let out = run(
        &dir,
        "s.dot",
        &[],
        &[("FAKE_OUTPUT", output.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let (argv, stdin) = call_of(&dir, "build");
    assert_eq!(resumed("gemini-cli", &argv), None, "{argv:?}");
    assert!(
        stdin.starts_with("## Context (fidelity: compact)"),
        "{stdin}"
    );
    assert!(stdin.contains("\n- plan: success\n"), "{stdin}");
    assert!(stdin.ends_with("\n\nBuild"), "{stdin}");
}

#[test]
fn a_hostile_session_id_is_refused_with_a_clear_error() {
    let long = "a".repeat(10_000);
    for (name, id) in [
        ("injection", "x; rm -rf ~"),
        ("newline", "s-1\n--dangerously-skip-permissions"),
        ("flag", "--dangerously-skip-permissions"),
        ("long", long.as_str()),
    ] {
        let dir = setup(&format!("session-hostile-{name}"));
        sessions_dot(&dir, "claude-cli", "");
        let output = dir.join("claude.json");
        let doc = serde_json::json!({"type": "result", "is_error": false, "result": "ok", "session_id": id});
        std::fs::write(&output, doc.to_string()).unwrap();
        let out = run(
            &dir,
            "s.dot",
            &[],
            &[("FAKE_OUTPUT", output.to_str().unwrap())],
        );
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_ne!(out.status.code(), Some(0), "{name}: {all}");
        assert!(
            all.contains("claude reported a session that wfc refuses")
                && all.contains("is not a plain identifier"),
            "{name}: {all}"
        );
        assert!(
            !all.contains(&"a".repeat(100)),
            "{name}: the id is quoted in part only"
        );
        // The stage failed at once: no later stage ran, so the id never
        // reached a command line.
        assert!(!dir.join("log/argv.build").exists(), "{name}");
        assert!(!read(&dir.join("log/argv")).contains("--resume"), "{name}");
    }
}

/// `plan`, `build` and `ship` of `claude-cli` on thread `main`; `build`
/// and `ship` have `retries` retries.
fn lost_dot(dir: &Path, retries: u32) {
    std::fs::write(
        dir.join("l.dot"),
        format!(
            "digraph l {{\n  graph [default_fidelity=\"full\", thread_id=\"main\"]\n  node [llm_provider=\"claude-cli\"]\n  start [shape=Mdiamond]\n  plan [shape=box, prompt=\"Plan\"]\n  build [shape=box, prompt=\"Build\", max_retries={retries}]\n  ship [shape=box, prompt=\"Ship\", max_retries={retries}]\n  done [shape=Msquare]\n  start -> plan -> build -> ship -> done\n}}\n"
        ),
    )
    .unwrap();
}

#[test]
fn a_session_the_agent_lost_is_forgotten_and_the_next_attempt_starts_afresh() {
    let output = fixtures().join("claude_session.json");
    // In one process: the retry of `build` starts a new session.
    let dir = setup("session-lost");
    lost_dot(&dir, 1);
    let env = [
        ("FAKE_OUTPUT", output.to_str().unwrap()),
        ("FAKE_LOST_SESSIONS", "1"),
    ];
    let events = dir.join("events.jsonl");
    let out = run(&dir, "l.dot", &["--events", events.to_str().unwrap()], &env);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let events = read(&events);
    assert!(
        events.contains("the call resumed the agent's session s-plan of thread `main`"),
        "{events}"
    );
    let (argv, stdin) = call_of(&dir, "build");
    assert_eq!(resumed("claude-cli", &argv), None, "{argv:?}");
    assert!(
        stdin.starts_with("## Context (fidelity: compact)"),
        "{stdin}"
    );

    // A durable run suspends on it; the resumed run does not try the lost
    // session again.
    let dir = setup("session-lost-resume");
    lost_dot(&dir, 0);
    let out = run(&dir, "l.dot", &["--run-dir", "run"], &env);
    assert_eq!(out.status.code(), Some(3), "{}", summary(&out));
    assert!(
        summary(&out).to_string().contains("No conversation found"),
        "{}",
        summary(&out)
    );
    let out = resume(&dir, &env[..1]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let (argv, stdin) = call_of(&dir, "build");
    assert_eq!(resumed("claude-cli", &argv), None, "{argv:?}");
    assert!(
        stdin.starts_with("## Context (fidelity: summary:high)"),
        "{stdin}"
    );
    let (argv, _) = call_of(&dir, "ship");
    assert_eq!(resumed("claude-cli", &argv).as_deref(), Some("s-build"));
}

#[test]
fn a_run_resumed_from_another_directory_starts_new_sessions() {
    // The CLIs keep their sessions per project (working directory).
    let dir = setup("session-cwd");
    lost_dot(&dir, 0);
    std::fs::write(dir.join("wf.toml"), "[llm]\nmax_tokens = 200\n").unwrap();
    let output = fixtures().join("claude_session.json");
    let env = [("FAKE_OUTPUT", output.to_str().unwrap())];
    let out = run(&dir, "l.dot", &["--run-dir", "run"], &env);
    assert_eq!(out.status.code(), Some(3), "{}", summary(&out));
    std::fs::write(dir.join("wf.toml"), "").unwrap();
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::rename(dir.join("bin"), elsewhere.join("bin")).unwrap();
    std::fs::rename(dir.join("log"), elsewhere.join("log")).unwrap();
    std::fs::rename(dir.join("run"), elsewhere.join("run")).unwrap();
    let out = resume(&elsewhere, &env);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let (argv, stdin) = call_of(&elsewhere, "ship");
    assert_eq!(resumed("claude-cli", &argv), None, "{argv:?}");
    assert!(
        stdin.starts_with("## Context (fidelity: summary:high)"),
        "{stdin}"
    );
}
