//! Budgets (`max_tokens`, `max_cost_usd`) are not overspent by calls in
//! flight together (docs/llm.md, "Usage and cost"): parallel branches
//! against a slow fake Anthropic server on loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use insta_cmd::get_cargo_bin;
use serde_json::{Value, json};

use crate::common::{repo_root, summary};

/// A fake Anthropic server answering every request after `delay` with
/// `input` and `output` tokens of usage; it keeps when each request was
/// read and answered.
struct Slow {
    base: String,
    spans: Arc<Mutex<Vec<(Instant, Instant)>>>,
}

impl Slow {
    fn start(delay: Duration, input: u64, output: u64) -> Slow {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let spans = Arc::new(Mutex::new(Vec::new()));
        let log = spans.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let log = log.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    let _ = reader.read_exact(&mut body);
                    let read = Instant::now();
                    std::thread::sleep(delay);
                    let body = json!({
                        "id": "msg_1", "type": "message", "role": "assistant",
                        "model": "claude-sonnet-4-6", "stop_reason": "end_turn",
                        "content": [{"type": "text", "text": "looks fine"}],
                        "usage": {"input_tokens": input, "output_tokens": output}
                    })
                    .to_string();
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    log.lock().unwrap().push((read, Instant::now()));
                });
            }
        });
        Slow { base, spans }
    }

    fn spans(&self) -> Vec<(Instant, Instant)> {
        self.spans.lock().unwrap().clone()
    }
}

/// The most requests in flight at once.
fn overlap(spans: &[(Instant, Instant)]) -> usize {
    spans
        .iter()
        .map(|(start, _)| {
            spans
                .iter()
                .filter(|(s, e)| s <= start && start < e)
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// A scratch folder with the four-branch pipeline and `toml` as `wf.toml`.
fn scratch(test: &str, toml: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("wfc-llm-budget-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let source = repo_root().join("tests/run/dot/llm/parallel.dot");
    std::fs::copy(source, dir.join("parallel.dot")).unwrap();
    std::fs::write(dir.join("wf.toml"), toml).unwrap();
    dir
}

/// `wfc run ARGS --agent llm --format json` against `fake`.
fn wfc(fake: &Slow, dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(dir)
        .arg("run")
        .args(args)
        .args(["--agent", "llm", "--format", "json", "--progress", "never"])
        .env("NO_COLOR", "1");
    for var in ["OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"] {
        cmd.env_remove(var);
    }
    cmd.env("ANTHROPIC_API_KEY", "sk-wfc-test-budget")
        .env("ANTHROPIC_BASE_URL", &fake.base)
        .output()
        .unwrap()
}

fn status(dir: &Path, node: &str) -> Option<Value> {
    let text = std::fs::read_to_string(dir.join("run").join(node).join("status.json")).ok()?;
    serde_json::from_str(&text).ok()
}

#[test]
fn parallel_calls_in_flight_never_overspend_the_token_budget() {
    // Each call may answer 1000 tokens; its prompt is estimated at far
    // under 300, so two calls' worst cases fit in 2600 and three do not.
    // The model answers 400 + 1000 tokens: after two calls the budget is
    // spent.
    let dir = scratch(
        "tokens",
        "[llm]\nmax_tokens = 2600\n[llm.providers.anthropic]\nmax_output_tokens = 1000\n",
    );
    let fake = Slow::start(Duration::from_millis(300), 400, 1000);
    let out = wfc(&fake, &dir, &["parallel.dot", "--run-dir", "run"]);
    let report = summary(&out);
    assert_eq!(out.status.code(), Some(3), "{report}");
    assert_eq!(report["status"], "suspended", "{report}");
    let text = report.to_string();
    assert!(
        text.contains("budget: the run has used 2800 tokens of its budget max_tokens = 2600"),
        "{text}"
    );
    // Two calls were sent (together, unless the machine is slow to start
    // the second); the two others waited for them and then found the
    // budget spent.
    let spans = fake.spans();
    assert_eq!(spans.len(), 2, "{report}");
    assert!(overlap(&spans) <= 2);
    // The overrun is within the documented bound: the input tokens the
    // estimate (four characters a token) missed of the calls that ran
    // together; their output stayed under its cap.
    let mut missed = 0;
    let mut called = 0;
    for branch in ["security", "speed", "style", "tests"] {
        let Some(s) = status(&dir, branch) else {
            continue;
        };
        let Some(usage) = s.get("usage") else {
            continue;
        };
        called += 1;
        let estimated = usage["sent"]["estimated_tokens"].as_u64().unwrap();
        assert!(estimated < 300, "{s}");
        missed += usage["input_tokens"].as_u64().unwrap() - estimated;
    }
    assert_eq!(called, 2);
    let total = report["llm"]["input_tokens"].as_u64().unwrap()
        + report["llm"]["output_tokens"].as_u64().unwrap();
    assert_eq!(total, 2800, "{report}");
    assert!(total <= 2600 + missed, "{total} > 2600 + {missed}");

    // Raised, the budget lets the resumed run send the two refused
    // branches' calls, and only those (the others were journaled).
    std::fs::write(dir.join("wf.toml"), "[llm]\nmax_tokens = 10000\n").unwrap();
    let out = wfc(&fake, &dir, &["--resume", "run"]);
    let report = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(fake.spans().len(), 4, "{report}");
    assert_eq!(
        report["blackboard"]["parallel.success_count"], 4,
        "{report}"
    );
}

#[test]
fn a_cost_budget_books_the_priced_worst_case() {
    // claude-sonnet-4-6 costs $15 per million output tokens: a call that
    // may answer 1000 tokens books at least $0.015, so with $0.032 two
    // calls run at once and the third waits; the model's 400 + 1000 tokens
    // ($0.0162 a call) spend the budget after two.
    let dir = scratch(
        "cost",
        "[llm]\nmax_cost_usd = 0.032\n[llm.providers.anthropic]\nmax_output_tokens = 1000\n",
    );
    let fake = Slow::start(Duration::from_millis(300), 400, 1000);
    let out = wfc(&fake, &dir, &["parallel.dot", "--run-dir", "run"]);
    let report = summary(&out);
    assert_eq!(out.status.code(), Some(3), "{report}");
    assert!(
        report
            .to_string()
            .contains("of its budget max_cost_usd = 0.032"),
        "{report}"
    );
    let spans = fake.spans();
    assert_eq!(spans.len(), 2, "{report}");
    assert!(overlap(&spans) <= 2);
}
